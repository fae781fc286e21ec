"""The layout search: which parallel layouts of one model on one GPU type start and hold a load.

``shardwise plan`` searches layouts with it, and the rules that suggest another layout ask it the same
questions: SW104 (would replicas on fewer GPUs each hold their share of the load?), SW106 (would a
lower-precision variant run on one GPU?) and SW202 (does a tensor-parallel group that stays inside the
NVLink domain fit?). So a layout ``plan`` recommends is one the rules accept, and a layout a rule
suggests is one ``plan`` would consider sound.

A layout is judged by sizing it with the whole model (:func:`.sizing.size_deployment`: weights,
activations and the KV cache per GPU for the vLLM release) and comparing with the error band:

* it **starts** when the weights and one ``max_model_len`` request fit beyond the band, **may refuse**
  inside it, **refuses** beyond it (what SW101 and SW102 say);
* it **holds** a load of ``seqs`` sequences of the expected context when their KV cache fits with the
  band taken off, **may not hold** it inside the band, and **does not hold** it beyond it (what SW103
  says when the load is declared).

A load is what the team declares (docs/capacity-model.md, "Load"): a target concurrency for the whole
deployment (annotation ``shardwise.dev/target-concurrency``, the stack field ``target_concurrency``,
``plan --concurrency``), spread over its replicas, at a p95 context (annotation
``shardwise.dev/p95-context-tokens``, ``--p95-context``); without a declared p95 context every sequence is
taken at ``max_model_len``, the most it can be. ``max_num_seqs`` is vLLM's cap on the batch, never a load:
vLLM's scheduler admits a sequence only when its KV blocks can be allocated. Without a declared load a
layout is judged by :func:`serves`, for ``plan`` and for every rule that names a smaller layout (SW104, SW106,
SW202): it starts, one sequence of the expected context fits its KV cache beyond the error band, and it has room
for a KV cache (the weights × the KV reserve, 1.4, fit the memory vLLM may use, or the KV cache left beyond the
band is a quarter of that reserve).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..catalog.accelerators import SIZED_VENDORS
from ..model.inventory import layout_text, world_size
from ..model.records import evolve
from ..model.shapes import GpuInfo, ModelShape, Precision
from ..vllm.support import pp_refusal
from ..vllm.versions import ResolvedVersion
from .sizing import (
    BYTES_PER_PARAM,
    Device,
    EngineSettings,
    ReplicaSizing,
    Verdict,
    WeightsAlone,
    _facts,
    error_band_floor,
    moe_layers,
    size_deployment,
    stages_alone,
    variant_refusal,
    weight_precision,
    weights_alone,
)

LoadVerdict = Literal["holds", "may-not-hold", "does-not-hold"]

#: Lower precisions a rule may suggest: the ``--quantization`` that serves it and how people call it.
VARIANTS: dict[str, tuple[str, str]] = {"fp8": ("fp8", "FP8"), "int4": ("awq", "4-bit AWQ/GPTQ")}


@dataclass(frozen=True)
class Parallel:
    """A parallel layout: TP × PP GPUs per engine, DP engines per group, experts spread or not."""

    tp: int
    pp: int = 1
    dp: int = 1
    expert_parallel: bool = False
    #: ``--prefill-context-parallel-size`` of a group as written (the search itself never adds it): its ranks hold
    #: the TP shard each, so it adds GPUs to an engine and no memory to any of them
    pcp: int = 1

    @property
    def gpus(self) -> int:
        """GPUs one engine runs on (vLLM's ``world_size``, TP × PP × PCP)."""
        return world_size(self.tp, self.pp, self.pcp)

    @property
    def world(self) -> int:
        """GPUs the whole group (every data-parallel engine) runs on."""
        return self.gpus * self.dp

    def text(self) -> str:
        """``TP4×PP1``, with ``×PCP2``, ``×DP8 EP`` when context- or data-parallel ranks (and expert parallelism) are
        in play."""
        return layout_text(self.tp, self.pp, self.pcp, self.dp, self.expert_parallel)


@dataclass(frozen=True)
class Fit:
    """One layout sized with the whole model, and judged against a load."""

    parallel: Parallel
    sizing: ReplicaSizing
    seqs: int  # the sequences one engine must hold (the replica's share over its DP engines)
    seqs_declared: bool
    starts: Verdict
    load: LoadVerdict

    @property
    def holds(self) -> int:
        """Sequences of the expected context the KV cache of one engine holds (central estimate)."""
        return self.sizing.concurrency_at_expected_context

    @property
    def need_gib(self) -> float:
        """KV cache per GPU the load needs."""
        return self.seqs * self.sizing.context_kv_gib

    @property
    def sure(self) -> bool:
        """Starts, and holds a declared load, beyond the estimate's error band."""
        return self.starts == "starts" and self.seqs_declared and self.load == "holds"


def judge(s: ReplicaSizing, parallel: Parallel, seqs: int | None) -> Fit:
    """``s`` (one engine) against ``seqs`` sequences of its expected context for the whole replica (None: vLLM's
    default, not a declared load).

    With data-parallel ranks every engine has its own KV cache and vLLM's data-parallel load balancing hands
    each its share of the requests (``vllm/v1/engine/core_client.py``, ``DPLBAsyncMPClient``): one engine holds
    ``seqs / DP`` of them, rounded up, and the replica holds DP × what one engine holds."""
    if seqs is not None and parallel.dp > 1:
        seqs = -(-seqs // parallel.dp)
    if "refuses" in (s.weights_fit_band, s.verdict):
        starts: Verdict = "refuses"
    elif s.weights_fit_band == "starts" and s.verdict == "starts":
        starts = "starts"
    else:
        starts = "may-refuse"
    n = s.max_num_seqs if seqs is None else seqs
    need = n * s.context_kv_gib
    kv, below, above = s.kv_cache_gib_per_gpu, s.error_band_gib, s.error_band_above_gib
    load: LoadVerdict = ("holds" if need <= kv - below and starts != "refuses" else
                         "does-not-hold" if need > kv + above or starts == "refuses" else "may-not-hold")
    return Fit(parallel, s, n, seqs is not None, starts, load)


@dataclass(frozen=True)
class Sizer:
    """One model on one GPU type with one set of vLLM settings, sized at any layout and precision."""

    model: ModelShape
    device: Device
    settings: EngineSettings
    version: ResolvedVersion
    expected_context: int | None = None
    weights_gib: float | None = None
    #: What this sizer was asked and told, by question: a layout's sizing and its weights alone.
    #: A group's sizer is shared by the rules that search its smaller layouts (SW104, SW106, SW202): they ask
    #: again of the same layouts, and each answer is a pure function of the sizer's fields and the question.
    #: Not an argument: a copy made with another field (``dataclasses.replace``, as ``plan`` does) starts empty.
    told: dict[tuple[object, ...], object] = field(default_factory=dict, init=False, compare=False, hash=False,
                                                   repr=False)

    def _settings(self, parallel: Parallel, quantization: str | None, max_num_seqs: int | None) -> EngineSettings:
        changes: dict[str, object] = {"tp": parallel.tp, "pp": parallel.pp, "dp": parallel.dp,
                                      "expert_parallel": parallel.expert_parallel}
        if quantization is not None:
            changes["quantization"] = quantization
        if max_num_seqs is not None:
            changes["max_num_seqs"] = max_num_seqs
        return evolve(self.settings, **changes)

    def size(self, parallel: Parallel, *, quantization: str | None = None,
             max_num_seqs: int | None = None) -> ReplicaSizing:
        key = ("size", parallel, quantization, max_num_seqs)
        hit = self.told.get(key)
        if hit is None:
            hit = self.told[key] = size_deployment(
                self.model, self.device, self._settings(parallel, quantization, max_num_seqs), self.version,
                expected_context=self.expected_context, weights_gib=self.weights_gib)
        return hit  # type: ignore[return-value]

    def refuses(self, parallel: Parallel, *, quantization: str | None = None) -> bool:
        """Whether ``parallel`` surely does not start because its weights alone do not fit (a 70B model on one GPU),
        told without sizing it (:func:`.sizing.weights_alone`, and for several pipeline stages
        :func:`.sizing.stages_alone`; False where only the sizing can tell): its
        :meth:`fit` would start ``"refuses"``. The searches below skip such a layout before they size it."""
        alone = self._bounds(parallel, quantization)
        return alone is not None and alone.refuses

    def alone(self, parallel: Parallel, *, quantization: str | None = None) -> WeightsAlone | None:
        """What :meth:`size` would find of ``parallel``'s weights, told without sizing it
        (:func:`.sizing.weights_alone`; None where only the sizing can tell)."""
        key = ("alone", parallel, quantization)
        if key in self.told:
            return self.told[key]  # type: ignore[return-value]
        told = self.told[key] = weights_alone(self.model, self.device, self._settings(parallel, quantization, None),
                                              self.version, weights_gib=self.weights_gib)
        return told

    def _bounds(self, parallel: Parallel, quantization: str | None) -> WeightsAlone | None:
        """:meth:`alone`, and for several pipeline stages the bounds every stage keeps (:func:`.sizing.stages_alone`:
        the lightest stage's weights, whether all of them refuse)."""
        if parallel.pp <= 1:
            return self.alone(parallel, quantization=quantization)
        key = ("stages", parallel, quantization)
        if key in self.told:
            return self.told[key]  # type: ignore[return-value]
        told = self.told[key] = stages_alone(self.model, self.device, self._settings(parallel, quantization, None),
                                             self.version, weights_gib=self.weights_gib)
        return told

    def passes_over(self, parallel: Parallel, kv_reserve: float | None, *, quantization: str | None = None) -> bool:
        """Whether a search may pass over ``parallel`` without sizing it: its weights alone surely refuse
        (:meth:`refuses`), or, for a search that asks whether it serves the model (``kv_reserve`` given,
        :func:`serves`), they surely leave it no room for a KV cache (:func:`no_room`; with several pipeline stages,
        the lightest stage's weights: the KV cache is at most what they leave, and the room asked of the weights the
        sizing judges is at least a share of them)."""
        alone = self._bounds(parallel, quantization)
        if alone is None:
            return False
        return alone.refuses or (kv_reserve is not None and self.settings.kv_cache_memory_bytes is None
                                 and no_room(alone, kv_reserve))

    def fit(self, parallel: Parallel, seqs: int | None, *, quantization: str | None = None,
            max_num_seqs: int | None = None) -> Fit:
        return judge(self.size(parallel, quantization=quantization, max_num_seqs=max_num_seqs), parallel, seqs)

    @property
    def precision(self) -> Precision:
        return weight_precision(self.model, self.settings.dtype, self.settings.quantization)


@dataclass(frozen=True)
class Load:
    """A declared load: ``concurrency`` sequences the whole deployment holds at once (None: not declared),
    each of ``context`` tokens (None: ``max_model_len``), spread over ``replicas`` replicas."""

    concurrency: int | None
    context: int | None = None
    replicas: int = 1
    output_tokens_per_second: float | None = None  # one replica, measured: the cost per million tokens

    @property
    def declared(self) -> bool:
        return self.concurrency is not None

    @property
    def per_replica(self) -> int | None:
        """Sequences one replica holds: the concurrency over the replicas, rounded up."""
        if self.concurrency is None:
            return None
        return -(-self.concurrency // max(1, self.replicas))


def replicas_for(concurrency: int, holds: int) -> int | None:
    """Replicas, each holding ``holds`` sequences, that hold ``concurrency`` together (None: none holds one)."""
    return -(-concurrency // holds) if holds >= 1 else None


def plural(count: int, noun: str) -> str:
    """``1 sequence``, ``2 sequences``, ``1,024 sequences``: counts as people write them."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def tp_allowed(model: ModelShape, tp: int, *, expert_parallel: bool = False) -> bool:
    """Whether vLLM builds and loads the model's weights at tensor-parallel size ``tp``: the attention heads
    divide, the KV heads divide or are replicated evenly, and the checkpoint's quantisation blocks or groups
    stay whole on every rank (:func:`weight_load_refusals`, sure or not); with ``expert_parallel`` the experts stay
    whole on their ranks, so their width is not split."""
    return tp >= 1 and not weight_load_refusals(model, tp, expert_parallel=expert_parallel)


@dataclass(frozen=True)
class LoadRefusal:
    """A reason vLLM refuses to create or load the model's weights at one tensor-parallel size."""

    message: str  # what vLLM checks, with the numbers
    #: The shape and the checkpoint's own ``quantization_config`` say so. False: the block or group size is
    #: assumed (the precision came from the name, or a configuration that does not state it).
    sure: bool = True
    experts: bool = False  # the experts' width: expert parallelism (whole experts per rank) avoids it
    #: A quantisation block or group a rank would split: the constraint of vLLM's CUDA and ROCm weight loaders
    #: (``Fp8MoEMethod``, ``validate_fp8_block_shape``, Marlin, AWQ/GPTQ), not of the model's shape (heads)
    tiles: bool = False
    #: The Qwen2-MoE line's shared expert (:func:`_tp_shared_expert_width`): data parallelism beside expert
    #: parallelism keeps it whole on each rank from vLLM#39181 on (sequence-parallel MoE)
    shared: bool = False


def _quant_tiles(model: ModelShape) -> tuple[str, int, int, bool] | None:
    """``(kind, n, k, sure)`` of the checkpoint's quantised weights: ``("block", block_n, block_k)`` for
    block-wise FP8 (``weight_block_size``, compressed-tensors ``block_structure``), ``("group", 0, group)``
    for AWQ/GPTQ and compressed-tensors group strategies; None when nothing splits into tiles."""
    q = model.hf_config.get("quantization_config")
    assumed = bool(model.extra.get("quantization_config_assumed")) or not isinstance(q, dict)
    cfg = q if isinstance(q, dict) else {}
    method = str(cfg.get("quant_method", model.quantization or "")).lower()
    block = cfg.get("weight_block_size")
    groups = cfg.get("config_groups")
    if method == "compressed-tensors" and isinstance(groups, dict):
        for group in groups.values():
            w = group.get("weights") if isinstance(group, dict) else None
            if not isinstance(w, dict):
                continue
            if w.get("strategy") == "block" and isinstance(w.get("block_structure"), list):
                block = w["block_structure"]
            elif w.get("strategy") == "group" and isinstance(w.get("group_size"), int) and w["group_size"] > 0:
                return "group", 0, int(w["group_size"]), not assumed
    if isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) and b > 0 for b in block):
        return "block", int(block[0]), int(block[1]), not assumed
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin") or (not cfg and model.precision in ("int4", "int8")):
        size = cfg.get("group_size", cfg.get("q_group_size", 128))
        if isinstance(size, int) and size > 0:
            return "group", 0, size, not assumed and "group_size" in cfg
        return None  # per-channel (group_size -1): nothing to keep whole
    if model.precision == "fp8" and (assumed or method in ("fp8", "")) and not isinstance(block, list):
        # FP8 without a stated block: per-tensor or per-channel scales unless the checkpoint says otherwise.
        # Qwen's and DeepSeek's own FP8 releases use 128 x 128 blocks, so a copy whose configuration is not
        # known may too.
        # "FP8-dynamic" copies (Neural Magic / Red Hat) scale per channel; NVIDIA's own FP8 releases are TensorRT
        # Model Optimizer's FP8 recipe, one scale per tensor (vLLM's ModelOptFp8Config, quant_algo "FP8").
        name = model.id.lower()
        unblocked = "fp8-dynamic" in name or name.startswith("nvidia/")
        if assumed and name.startswith("qwen/"):
            # Qwen's own FP8 releases state their format on every model card: "The quantization method is
            # fine-grained fp8 quantization with block size of 128" (Qwen3, Qwen3-VL, Qwen3.5, Qwen3.6 -FP8 repos),
            # so a name of theirs the catalog does not hold is as sure as its configuration would be (vLLM's Qwen3
            # FP8 SageMaker guide quotes the refusal: "output_size of gate's and up's weight = 192 is not divisible
            # by weight quantization block_n = 128" at TP4)
            return "block", 128, 128, True
        return ("block", 128, 128, False) if assumed and not unblocked else None
    return None


def weight_load_refusals(model: ModelShape, tp: int, *, expert_parallel: bool = False,
                         sequence_parallel_moe: bool = False) -> tuple[LoadRefusal, ...]:
    """Why vLLM refuses ``model``'s weights at tensor-parallel size ``tp`` (empty: it builds them).

    * attention heads: ``ModelConfig.verify_with_parallel_config`` (heads % TP);
    * KV heads: ``QKVParallelLinear`` divides them over the ranks when TP < KV heads and replicates each
      over TP / KV heads ranks otherwise, and both divisions must be exact;
    * block-wise FP8 (128 x 128): ``Fp8MoEMethod.create_weights`` needs each rank's expert width
      (``moe_intermediate_size / TP``) to be a multiple of block_n (and of block_k for the down
      projection at TP > 1), ``validate_fp8_block_shape`` the same of dense column- and row-parallel
      layers (MLP width, attention output input);
    * AWQ/GPTQ groups: a row-parallel layer's input per rank (MLP width, attention output input,
      expert width) must be a whole number of groups.

    With ``expert_parallel`` the experts stay whole on their ranks: their width is not split. With
    ``sequence_parallel_moe`` (expert parallelism with TP and DP above 1) the Qwen2-MoE line's shared expert is not
    split either (:func:`_tp_shared_expert_width`).
    """
    out: list[LoadRefusal] = []
    if tp < 1:
        return (LoadRefusal(f"tensor_parallel_size {tp} is not a positive number of GPUs"),)
    heads, kv = model.num_attention_heads, model.num_key_value_heads
    if heads % tp:
        out.append(LoadRefusal(f"{model.id} has {heads} attention heads, not divisible by tensor_parallel_size {tp}"))
        return tuple(out)
    if model.mla is None and kv % tp and tp % kv:
        out.append(LoadRefusal(f"{model.id} has {kv} KV heads; tensor_parallel_size {tp} neither divides them "
                               "nor is a multiple of them"))
    tiles = _quant_tiles(model) if tp > 1 else None
    if tiles is None:
        return tuple(out)
    kind, bn, bk, sure = tiles
    what = f"{bn}x{bk} FP8 blocks" if kind == "block" else f"groups of {bk} weights"
    tail = ("vLLM refuses to load the weights" if sure else
            f"vLLM refuses to load the weights if the checkpoint stores {what} (its quantization_config would say)")
    checks: list[tuple[str, int, bool]] = []  # (layer, size per rank, column-parallel output)
    shared = _tp_shared_expert_width(model)
    if shared and not (sequence_parallel_moe and expert_parallel):
        # built before the routed experts, and split over the TP ranks with or without expert parallelism
        checks.append((_SHARED_DOWN, shared // tp, False))
    if model.moe is not None and moe_layers(model) and not expert_parallel:
        per = model.moe.moe_intermediate_size // tp
        checks += [("columns of each expert's gate/up projection", per, True),
                   ("input columns of each expert's down projection", per, False)]
    if model.moe is None or moe_layers(model) < model.num_hidden_layers:
        per = model.intermediate_size // tp
        checks += [("columns of the MLP's gate/up projection", per, True),
                   ("input columns of the MLP's down projection", per, False)]
    v_dim = model.head_dim
    if model.mla is not None:
        cfg = model.extra.get("config")
        v = cfg.get("v_head_dim") if isinstance(cfg, dict) else None
        v_dim = v if isinstance(v, int) and v > 0 else 128
    checks.append(("input columns of the attention output projection", heads // tp * v_dim, False))
    for layer, per, column in checks:
        if kind == "block":
            size, name = (bn, "block_n") if column else (bk, "block_k")
        else:
            if column:
                continue  # groups run along the input: a column split keeps them whole
            size, name = bk, "group_size"
        if per % size:
            out.append(LoadRefusal(
                f"at tensor_parallel_size {tp} each rank holds {per:,} {layer} of {model.id}, not a "
                f"multiple of {name} {size}" + (f" ({what}); " if sure else "; ") + tail, sure,
                experts="expert" in layer and layer != _SHARED_DOWN, tiles=True, shared=layer == _SHARED_DOWN))
            break  # vLLM stops at the first layer it cannot build
    return tuple(out)


_SHARED_DOWN = "input columns of the shared expert's down projection"


def _tp_shared_expert_width(model: ModelShape) -> int:
    """The width of the shared expert vLLM splits over the tensor-parallel ranks whether or not expert parallelism
    is on (0: none, or not known to be split). The Qwen2-MoE line states it as ``shared_expert_intermediate_size``
    (Qwen2-MoE, Qwen3-Next, Qwen3.5 and Qwen3.6 MoE): vLLM builds it as ``Qwen2MoeMLP`` (``models/qwen2_moe.py``;
    ``qwen3_next.py`` imports it as ``Qwen3NextMLP``), a ``MergedColumnParallelLinear`` gate/up and a
    ``RowParallelLinear`` down projection with no ``disable_tp``, before the routed experts (``SharedFusedMoE``), in
    every release that builds these models (read in the 0.19.0 wheel, ``Qwen3NextSparseMoeBlock.__init__``).
    Of the two, only the down projection refuses a split block at 0.19.0: ``validate_fp8_block_shape``
    (``quantization/utils/fp8_utils.py``) needs a row-parallel layer's ``input_size_per_partition`` to be a multiple
    of block_k, while a merged column layer whose partitions are not multiples of block_n is let through
    (``linear.py`` ``_maybe_allow_fp8_block_shape_mismatch``). vLLM pull request 52915 quotes the refusal for
    Qwen/Qwen3.6-35B-A3B-FP8 at TP8: "Weight input_size_per_partition = 64 is not divisible by weight quantization
    block_k = 128". With sequence-parallel MoE (``ParallelConfig.use_sequence_parallel_moe``: expert parallelism,
    TP and DP above 1 and an all-to-all backend of its list, the default ``allgather_reducescatter`` among them)
    vLLM builds this shared expert whole on each rank from vLLM#39181 on (``Qwen2MoeMLP``'s ``is_sequence_parallel``
    sets ``disable_tp``; read in the 0.25.1 and 0.29.0 wheels, absent from 0.19.0), so a caller that knows the DP
    size passes ``sequence_parallel_moe`` to :func:`weight_load_refusals` and the width is not counted there (a
    backend outside that list, or a release before the pull request, would still refuse: a refusal missed, never
    one made up). DeepSeek's shared experts are not counted: with sequence-parallel MoE vLLM builds them with
    ``disable_tp``, and without it this function does not read their width."""
    cfg = model.extra.get("config")
    if model.moe is None or not moe_layers(model) or not isinstance(cfg, dict):
        return 0
    width = cfg.get("shared_expert_intermediate_size")
    return width if isinstance(width, int) and not isinstance(width, bool) and width > 0 else 0


#: A layout whose weights × the KV reserve do not fit still has room for a KV cache when the KV cache it keeps beyond
#: the error band is at least this share of the reserve (weights × (reserve − 1)) and holds a sequence of the context
#: (the p95 context, else max_model_len): a quarter, so an 8B on one 24 GB L4 at a lowered --max-model-len has room
#: (3.1 GiB sure of a 6.0 GiB reserve), and so has Llama-3.1-405B at TP8 on one 8 × H200 node without a declared
#: load (23.9 GiB sure of 37.8: three 131,072-token sequences), where the rule of thumb added a second node; a 70B
#: on four 40 GB A100 (0.3 GiB of 13.2) or DeepSeek-R1 on four MI300X does not.
MIN_KV_SHARE = 0.25


def has_room(s: ReplicaSizing, kv_reserve: float) -> bool:
    """Room for a KV cache: the rule of thumb (the weights × the KV reserve fit the memory vLLM may use), or the KV
    actually left beyond the error band is :data:`MIN_KV_SHARE` of the reserve, with or without a declared load."""
    return (s.weights_gib_per_gpu * kv_reserve <= s.usable_gib_per_gpu
            or s.kv_cache_gib_per_gpu - s.error_band_gib >= MIN_KV_SHARE * (kv_reserve - 1) * s.weights_gib_per_gpu)


def no_room(alone: WeightsAlone, kv_reserve: float) -> bool:
    """Whether a sizing whose weights are ``alone`` (one pipeline stage, or the lightest of several:
    :func:`.sizing.stages_alone`; no ``--kv-cache-memory-bytes``) surely has no room for a KV cache (:func:`has_room`
    False), told before the sizing: the weights × the reserve do not
    fit, and even all the memory the weights and the non-torch memory leave (the KV cache is at most that:
    :func:`.sizing.weights_alone`), less the least error band (:func:`.sizing.error_band_floor`), is below
    :data:`MIN_KV_SHARE` of the reserve. A
    quarter of the smaller layouts a 2,000-file lint sizes to ask whether they serve the model are of this kind
    (weights that fit, but only just)."""
    w, usable = alone.weights_gib, alone.usable_gib
    most = max(usable - w - alone.nontorch_gib, 0.0) - error_band_floor(usable)  # the KV cache beyond the band
    return kv_reserve > 1 and not w * kv_reserve <= usable and most < MIN_KV_SHARE * (kv_reserve - 1) * w


def sure_holds(s: ReplicaSizing) -> int:
    """Sequences of the expected context one engine's KV cache holds with the error band taken off (what
    :func:`judge` calls holding)."""
    if s.context_kv_gib <= 0 or s.kv_cache_gib_per_gpu <= s.error_band_gib:
        return 0
    return int((s.kv_cache_gib_per_gpu - s.error_band_gib) / s.context_kv_gib)


def most_holds(s: ReplicaSizing) -> int:
    """Sequences of the expected context one engine's KV cache holds at the top of the estimate's error band (what
    :func:`judge` takes for "may not hold" rather than "does not hold")."""
    if s.context_kv_gib <= 0:
        return 0
    return max(0, int((s.kv_cache_gib_per_gpu + s.error_band_above_gib) / s.context_kv_gib))


def serves(fit: Fit, kv_reserve: float) -> bool:
    """The one judgement, without a declared load, of whether a layout serves the model: it starts beyond the
    estimate's error band, its KV cache holds one sequence of the expected context beyond the band, and it has room
    for a KV cache (:func:`has_room`). ``plan`` recommends the fewest GPUs per replica that serve the model
    (``shardwise.rules.app.plan``, a candidate's ``roomy``), and SW104 names a smaller layout only when it serves
    the model (:func:`reserve_alternative`): so a layout ``plan`` recommends never gets SW104 for want of a load."""
    return fit.starts == "starts" and sure_holds(fit.sizing) >= 1 and has_room(fit.sizing, kv_reserve)


def lowered_caps(default: int, lowest: int) -> list[int]:
    """The ``--max-num-seqs`` values below vLLM's default ``default`` that a smaller layout is tried with, largest
    first: the powers of two under it, down to ``lowest`` (:func:`lowest_default_cap`: one halving). What follows
    the cap (the profile's sampler over ``min(max_num_seqs, max_num_batched_tokens)`` rows of the vocabulary, the
    penalties' per-sequence tensors, the CUDA graphs captured up to it) shrinks with it, and the KV cache grows by as
    much; a team lowers it before it buys a second GPU."""
    caps = []
    cap = default // 2
    while cap >= max(1, lowest):
        caps.append(cap)
        cap //= 2
    return caps


def lowest_default_cap(version: ResolvedVersion, default: int) -> int:
    """The lowest ``--max-num-seqs`` plan and SW104 lower vLLM's default ``default`` to: half of it, and never below
    the release's own ``vllm serve`` default for its smallest GPUs (256 on GPUs under 70 GiB, and on A100s, from vLLM
    0.8.4 to 0.16 at least: ``engine/arg_utils.py`` ``_set_default_max_num_seqs_and_batched_tokens_args``, read at
    0.11.1, 0.14.1 and 0.16.0; 1,024 on every GPU in 0.8.0 - 0.8.3), so that where the default already is that cap
    nothing is lowered. One halving halves
    what follows the cap (Gemma 3's 262k-logit sort at 0.11.1 - 0.16: 9.63 GiB at 1,024 rows, 4.86 at 512), which is
    what keeps a smaller layout out where it is the sampler; a cap cut further trades the batch a replica admits for
    the room the KV reserve asks, and would decide layouts inside the estimate's error band: MiniMax-M2.5 on two H200
    at 0.16.0 has room only at 256 rows (11.6 GiB beyond the band against the 10.7 asked), where its recipe runs
    four; Qwen3-32B on two 40 GB A100 only at 64 (by 0.03 GiB), where its recipe runs four."""
    return max(version.behaviour.batch_tiers[-1].max_num_seqs, default // 2)


def largest_cap(default: int, lowest: int, good: Callable[[int], bool]) -> int | None:
    """The largest of :func:`lowered_caps` ``(default, lowest)`` for which ``good`` holds, where ``good`` is monotone
    (true at a cap, true at every smaller one: a smaller cap only leaves more KV cache), or None where it holds at
    none. Bisected: a handful of sizings, not one per cap."""
    caps = lowered_caps(default, lowest)
    if not caps or not good(caps[-1]):
        return None
    lo, hi = len(caps) - 1, -1  # caps[lo] is good; caps[hi] (hi > -1) is not
    while lo - hi > 1:
        mid = (lo + hi) // 2
        if good(caps[mid]):
            lo = mid
        else:
            hi = mid
    return caps[lo]


# --------------------------------------------------------------------------------------------------
# Fewer GPUs per engine: SW104, SW106, SW202
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alternative:
    """A layout on fewer GPUs per engine that replicas of the current layout could use instead."""

    fit: Fit
    replicas: int  # engines of the alternative on the GPUs of one current engine
    precision: str  # the precision it serves
    quantization: str | None  # the --quantization it needs (None: as served now)

    @property
    def sure(self) -> bool:
        return self.fit.sure


def smaller(model: ModelShape, current: Parallel, *, max_tp: int | None = None) -> list[Parallel]:
    """Layouts whose replicas split one engine of ``current`` evenly: TP × PP a divisor of its GPUs and fewer of
    them (any TP and PP, not only divisors of the current TP and PP: two TP1 × PP2 replicas split one TP4 engine's
    GPUs as evenly as two TP2 do), a TP vLLM accepts with ``current``'s expert parallelism (the candidates keep it:
    a block-wise FP8 MoE whose experts cannot be split four ways loads at TP4 with the experts spread) and at most
    ``max_tp``; fewest GPUs first, then the larger TP. Worked out once per model, layout and ``max_tp`` (kept in
    the sizing's per-model facts: 1,559 calls in a 2,000-file lint, a few dozen distinct)."""
    memo = _facts(model)
    key = ("smaller", current, max_tp)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = tuple(_smaller(model, current, max_tp))
    return list(hit)


#: The most GPUs a smaller layout of one engine is sought with (:func:`smaller`): more than any cluster gives one
#: replica. The search tried each count up to the engine's GPUs, so ``--pipeline-parallel-size 2147483647`` (a fuzzer's)
#: held a run for minutes (fuzz21); an engine of more GPUs is still offered the layouts up to this many.
MOST_GPUS = 65_536


def _smaller(model: ModelShape, current: Parallel, max_tp: int | None) -> list[Parallel]:
    out = []
    every = _divisors(current.gpus, MOST_GPUS)
    for gpus in every:
        if gpus >= current.gpus:
            continue
        for tp in [d for d in every if d <= gpus and gpus % d == 0]:  # a divisor of a divisor divides the whole
            if tp_allowed(model, tp, expert_parallel=current.expert_parallel) and (max_tp is None or tp <= max_tp):
                out.append(Parallel(tp, gpus // tp, current.dp, current.expert_parallel))
    return sorted(out, key=lambda p: (p.gpus, -p.tp))


def _divisors(n: int, most: int) -> list[int]:
    """The divisors of ``n`` up to ``most``, ascending."""
    return [d for d in range(1, min(n, most) + 1) if n % d == 0]


def fewer_stages(current: Parallel) -> list[Parallel]:
    """``current`` with fewer pipeline stages whose GPUs do not split its own evenly (TP1 × PP2 of a TP1 × PP3
    engine, TP4 × PP2 of a TP4 × PP3), fewest first: what SW104 weighs where no :func:`smaller` layout serves.
    Pipeline stages buy memory, nothing else (the seeds: "sharding ... buys capacity to run the model at all, not
    throughput"); a stage the model does not need for its weights and KV cache is a GPU the replica holds for
    nothing, even where what is left over takes no second replica. Only stages are dropped: the TP group, its DP
    size and expert parallelism stay as written (a narrower TP group on an uneven share is a different layout,
    which :func:`smaller` already weighs where it splits the GPUs evenly). And only to a power of two of GPUs, the
    engines ``plan`` itself tries (:func:`gpu_counts`): a layout ``plan`` recommends never gets SW104, so TP1 × PP4
    on a four-GPU PCIe node is not blocked for a TP1 × PP3 that ``plan`` never weighs."""
    # TP × PP is a power of two where both are: the powers of two below the stages, not every count (fuzz21)
    if not _power_of_two(current.tp):
        return []
    out = []
    pp = 1
    while pp < current.pp:
        if current.gpus % (current.tp * pp):
            out.append(Parallel(current.tp, pp, current.dp, current.expert_parallel))
        pp *= 2
    return out


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def alternative(sz: Sizer, current: Parallel, candidates: list[Parallel], seqs: int | None, kv_reserve: float,
                quantization: str | None = None) -> Alternative | None:
    """The first of ``candidates`` whose replicas, sharing one engine's load of ``seqs`` (None: undeclared),
    surely start and hold their share; else the first that does within the error band; else, for an
    undeclared load, the first that serves the model (:func:`serves`, the judgement ``plan`` makes)."""
    precision = weight_precision(sz.model, sz.settings.dtype, quantization or sz.settings.quantization)
    maybe = None
    for cand in candidates:
        if sz.passes_over(cand, kv_reserve if seqs is None else None, quantization=quantization):
            continue  # does not start (or, with no load, surely does not serve): sizing it would tell no more
        k = current.gpus // cand.gpus
        share = None if seqs is None else math.ceil(seqs / k)
        fit = sz.fit(cand, share, quantization=quantization)
        alt = Alternative(fit, k, precision, quantization)
        if fit.starts != "starts":
            continue
        if seqs is None:
            if serves(fit, kv_reserve):
                return alt
        elif fit.load == "holds":
            return alt
        elif fit.load == "may-not-hold" and maybe is None:
            maybe = alt
    return maybe


@dataclass(frozen=True)
class Reserve:
    """A smaller layout judged without a declared load, by the doctrine's reserve: it starts at the configured
    max_model_len and keeps the KV reserve (its weights × ``kv_reserve`` fit the memory vLLM may use). What the
    sharded layout holds itself is no yardstick: sharding always holds more, since it splits the weights."""

    fit: Fit
    replicas: int  # engines of it on the GPUs of one current engine
    kv_reserve: float
    #: The device's vendor is one whose memory profile the estimates follow (CUDA, ROCm): elsewhere (Gaudi, TPU)
    #: vLLM's plugin profiles memory its own way and the error band is not known.
    calibrated: bool = True

    @property
    def reserve_gib(self) -> float:
        """GiB per GPU the weights and the KV reserve take: the weights × ``kv_reserve``."""
        return self.fit.sizing.weights_gib_per_gpu * self.kv_reserve

    @property
    def kept(self) -> bool:
        """The reserve fits the memory vLLM may use beyond the estimate's error band."""
        s = self.fit.sizing
        return self.reserve_gib + s.error_band_gib <= s.usable_gib_per_gpu

    @property
    def sure(self) -> bool:
        """Starts at max_model_len and keeps the reserve, both beyond the error band (on a calibrated device)."""
        return self.fit.starts == "starts" and self.kept and self.calibrated



def reserve_alternative(sz: Sizer, current: Parallel, candidates: list[Parallel], kv_reserve: float) -> Reserve | None:
    """Without a declared load: the first of ``candidates`` (fewest GPUs first) that surely starts at
    max_model_len with the KV reserve kept; else the first that serves the model (:func:`serves`: it starts beyond
    the error band with room for a KV cache) though the reserve is thin, or on a device the estimates do not
    follow; None when none serves it. A smaller layout that only may start, or starts without room for a KV cache,
    is not one ``plan`` would recommend: the sharding is what gives the model its KV cache."""
    first = None
    for cand in candidates:
        if sz.passes_over(cand, kv_reserve):
            continue  # does not start, or has no room for a KV cache: does not serve the model
        fit = sz.fit(cand, None)
        if not serves(fit, kv_reserve):
            continue
        r = Reserve(fit, current.gpus // cand.gpus, kv_reserve, sz.device.vendor in SIZED_VENDORS)
        if r.sure:
            return r
        first = first or r
    return first


@dataclass(frozen=True)
class Capped:
    """A smaller layout that serves the model (:func:`serves`) only at a ``--max-num-seqs`` below vLLM's default,
    which the manifest does not set: what ``plan`` recommends in its place (``shardwise.rules.app.plan``,
    ``_fitted``)."""

    reserve: Reserve  # the smaller layout judged at ``cap``
    cap: int  # the largest power of two below the default at which it serves
    default: int  # vLLM's default max_num_seqs for the release and GPU


def capped_alternative(sz: Sizer, current: Parallel, candidates: list[Parallel], kv_reserve: float) -> Capped | None:
    """Without a declared load, where no smaller layout serves the model at vLLM's default ``--max-num-seqs``
    (:func:`reserve_alternative` None) and the manifest leaves it at the default: the first of ``candidates`` that
    serves it at the largest lower cap (:func:`largest_cap`) that still admits the sequences of the expected context
    its KV cache holds beyond the error band; None when none does. The judgement ``plan`` makes of a layout it tries
    at a lower cap, so a layout ``plan`` recommends never gets this finding."""
    if sz.settings.max_num_seqs is not None:
        return None  # the manifest sets the cap: it is judged as set
    for cand in candidates:
        if sz.passes_over(cand, kv_reserve):
            continue
        found = _capped_fit(sz, cand, kv_reserve)
        if found is None:
            continue
        fit, cap, default = found
        r = Reserve(fit, current.gpus // cand.gpus, kv_reserve, sz.device.vendor in SIZED_VENDORS)
        return Capped(r, cap, default)
    return None


def _capped_fit(sz: Sizer, cand: Parallel, kv_reserve: float) -> tuple[Fit, int, int] | None:
    """``cand`` judged at the largest lower cap at which it serves the model, that cap and vLLM's default; None where
    it serves at none, or only below the sequences of the expected context its KV cache holds beyond the band."""
    default = sz.size(cand).max_num_seqs
    fits: dict[int, Fit] = {}

    def good(cap: int) -> bool:
        fits[cap] = sz.fit(cand, None, max_num_seqs=cap)
        return serves(fits[cap], kv_reserve)

    cap = largest_cap(default, lowest_default_cap(sz.version, default), good)
    if cap is None or cap < max(1, sure_holds(fits[cap].sizing)):
        return None
    return fits[cap], cap, default


@dataclass(frozen=True)
class Replication:
    """Replicas of a smaller layout on the GPUs of one engine of the current one, against what that engine holds.

    ``suggest``: they hold at least the same load on no more GPUs (the declared share of one replica, else
    what the current engine holds at the same context); otherwise only the trade-off may be stated."""

    alt: Alternative
    together: int  # sequences the replicas hold together (central estimate)
    current_holds: int  # sequences one engine of the current layout holds
    need: int | None  # the declared share of one current replica (None: no load declared)
    suggest: bool

    @property
    def sure(self) -> bool:
        return self.suggest and self.need is not None and self.alt.sure


def replication(sz: Sizer, current: Parallel, current_holds: int, candidates: list[Parallel], seqs: int | None,
                kv_reserve: float, quantization: str | None = None) -> Replication | None:
    """What replicas of ``candidates`` hold on the GPUs of one engine of ``current``, against its load.

    With a declared load (``seqs`` per current replica): the :func:`alternative` whose replicas hold their
    share (None when none does: the sharding is needed). Without one: the first candidate that serves the model
    (:func:`serves`) whose replicas hold at least ``current_holds`` together, else the first that serves it as a
    trade-off (``suggest`` False), else None.

    ``current_holds`` is what one engine of ``current`` holds: a replica of data-parallel engines holds DP times
    that, and so does each replica of a candidate (the candidates keep the DP size)."""
    current_holds *= current.dp
    if seqs is not None:
        alt = alternative(sz, current, candidates, seqs, kv_reserve, quantization)
        if alt is None:
            return None
        return Replication(alt, alt.replicas * alt.fit.holds * alt.fit.parallel.dp, current_holds, seqs, True)
    precision = weight_precision(sz.model, sz.settings.dtype, quantization or sz.settings.quantization)
    first = None
    for cand in candidates:
        if sz.passes_over(cand, kv_reserve, quantization=quantization):
            continue  # does not start, or has no room for a KV cache: does not serve the model
        k = current.gpus // cand.gpus
        fit = sz.fit(cand, None, quantization=quantization)
        if not serves(fit, kv_reserve):
            continue
        together = k * fit.holds * cand.dp
        r = Replication(Alternative(fit, k, precision, quantization), together, current_holds, None,
                        together >= current_holds)
        if r.suggest:
            return r
        first = first or r
    return first


#: The quantisation methods a checkpoint of each :data:`VARIANTS` precision may use: the variant is one vLLM starts
#: where one of them passes its quantisation config's checks (:func:`.sizing.variant_refusal`).
_VARIANT_METHODS: dict[str, tuple[str, ...]] = {"fp8": ("fp8",), "int4": ("awq", "gptq")}


def lower_precisions(model: ModelShape, gpu: GpuInfo | None, current: Precision,
                     sz: Sizer | None = None) -> list[Precision]:
    """Precisions below ``current`` that vLLM serves on ``gpu``: FP8 where the GPU has FP8 units (Ada,
    Hopper, Blackwell, MI300), 4-bit AWQ/GPTQ everywhere vLLM's quantisation config takes it: with ``sz``, not where
    it refuses every method of the variant on the sizer's GPU and release (review44: AWQ and GPTQ take float16 only,
    which vLLM 0.9.1+ refuses for Gemma 2 on a T4, where bfloat16 is refused too)."""
    out: list[Precision] = []
    if gpu is None or gpu.fp8:
        out.append("fp8")
    out.append("int4")
    return [p for p in out if BYTES_PER_PARAM[p] < BYTES_PER_PARAM[current] and (
        sz is None or not variant_refusal(sz.model, sz.device, sz.settings, sz.version, _VARIANT_METHODS[p]))]


def precision_variant(sz: Sizer, current: Parallel, gpu: GpuInfo | None, seqs: int | None, kv_reserve: float,
                      candidates: list[Parallel]) -> Alternative | None:
    """The first lower precision (FP8, then 4-bit) at which one of ``candidates`` is an :func:`alternative`."""
    for p in lower_precisions(sz.model, gpu, sz.precision, sz):
        alt = alternative(sz, current, candidates, seqs, kv_reserve, quantization=VARIANTS[p][0])
        if alt is not None:
            return alt
    return None


# --------------------------------------------------------------------------------------------------
# The node and the search behind `plan`
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """What a node of the pool offers a layout: its GPUs, and how many of them one NVLink domain joins."""

    gpus: int
    #: 1: PCIe only; 2: H100 NVL pairs; the node's GPUs on NVSwitch boards; more than the node where NVLink
    #: switches join several nodes (GB200 NVL72: 72 GPUs over 18 trays of 4)
    nvlink_domain: int

    @property
    def tp_limit(self) -> int:
        """The largest TP that stays inside one NVLink domain (one node's, or a rack's that spans nodes)."""
        return max(1, self.nvlink_domain if self.nvlink_domain > self.gpus else min(self.gpus, self.nvlink_domain))


def _largest_tp(model: ModelShape, limit: int, expert_parallel: bool = False) -> int:
    tp = 1
    while tp * 2 <= limit and tp_allowed(model, tp * 2, expert_parallel=expert_parallel):
        tp *= 2
    return tp


def layouts_for(model: ModelShape, gpus: int, node: Node, *, pp: int | None = None,
                expert_parallel: bool = False) -> list[Parallel]:
    """The layouts ``plan`` considers on ``gpus`` GPUs per engine, preferred first.

    Tensor parallelism inside the NVLink domain, pipeline parallelism beyond it (across the PCIe
    links of a node, or across nodes), as vLLM's parallelism guide advises; with ``pp`` fixed, the
    TP that makes up the rest. For a mixture-of-experts model, the same GPUs as data-parallel
    engines with the experts spread over them is a second layout. ``expert_parallel``: the layouts will run with
    the experts spread (``--enable-expert-parallel`` asked), so a TP that splits an expert's quantisation blocks is
    not refused for it, and on a node without NVLink the TP spans the node's GPUs rather than leaving pipeline
    stages alone, which vLLM runs with no expert parallelism at all (its EP group is a stage's TP × DP ranks)."""
    out: list[Parallel] = []
    if pp is not None:
        if gpus % pp == 0 and tp_allowed(model, gpus // pp, expert_parallel=expert_parallel):
            out.append(Parallel(gpus // pp, pp))
        return out
    limit = node.tp_limit
    if expert_parallel and limit < 2 and model.moe is not None:
        # vLLM spreads the experts over the TP × DP ranks of a pipeline stage (FusedMoEParallelConfig.make,
        # vllm/model_executor/layers/fused_moe/config.py: use_ep = dp_size × tp_size > 1 and enable_expert_parallel,
        # 0.10 to 0.11; × pcp_size from 0.12): pipeline stages alone over a PCIe node's GPUs run
        # --enable-expert-parallel as a no-op, every stage holding all its layers' experts. With the experts asked
        # spread, the TP group is the node's GPUs, as the links are (the attention's all-reduce over PCIe)
        limit = node.gpus
    tp = _largest_tp(model, min(gpus, limit), expert_parallel)
    if gpus % tp == 0 and gpus // tp <= model.num_hidden_layers and not pp_refusal(model, gpus // tp):
        out.append(Parallel(tp, gpus // tp))
    if model.moe is not None and 1 < gpus <= max(node.gpus, node.tp_limit):
        out.append(Parallel(1, 1, gpus, True))
    return out


def gpu_counts(node: Node) -> tuple[list[int], list[int]]:
    """GPUs per engine ``plan`` tries: powers of two up to a node, then 2 and 4 whole nodes."""
    inside = [1]
    while inside[-1] * 2 <= node.gpus:
        inside.append(inside[-1] * 2)
    across = [node.gpus * n for n in (2, 4)]
    return inside, across

