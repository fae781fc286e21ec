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
layout is judged by the rule of thumb that its weights × the KV reserve (1.4) fit the memory vLLM may use
and one ``max_model_len`` sequence fits its KV cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from ..model.shapes import GpuInfo, ModelShape, Precision
from ..vllm.versions import ResolvedVersion
from .sizing import (
    BYTES_PER_PARAM,
    Device,
    EngineSettings,
    ReplicaSizing,
    Verdict,
    size_deployment,
    weight_precision,
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

    @property
    def gpus(self) -> int:
        """GPUs one engine runs on."""
        return self.tp * self.pp

    @property
    def world(self) -> int:
        """GPUs the whole group (every data-parallel engine) runs on."""
        return self.tp * self.pp * self.dp

    def text(self) -> str:
        """``TP4×PP1``, with ``×DP8 EP`` when data-parallel ranks (and expert parallelism) are in play."""
        out = f"TP{self.tp}×PP{self.pp}"
        if self.dp > 1:
            out += f"×DP{self.dp}"
        return out + (" EP" if self.expert_parallel else "")


@dataclass(frozen=True)
class Fit:
    """One layout sized with the whole model, and judged against a load."""

    parallel: Parallel
    sizing: ReplicaSizing
    seqs: int  # the sequences one engine must hold
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
    """``s`` against ``seqs`` sequences of its expected context (None: vLLM's default, not a declared load)."""
    if "refuses" in (s.weights_fit_band, s.verdict):
        starts: Verdict = "refuses"
    elif s.weights_fit_band == "starts" and s.verdict == "starts":
        starts = "starts"
    else:
        starts = "may-refuse"
    n = s.max_num_seqs if seqs is None else seqs
    need = n * s.context_kv_gib
    kv, band = s.kv_cache_gib_per_gpu, s.error_band_gib
    load: LoadVerdict = ("holds" if need <= kv - band and starts != "refuses" else
                         "does-not-hold" if need > kv + band or starts == "refuses" else "may-not-hold")
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

    def size(self, parallel: Parallel, *, quantization: str | None = None,
             max_num_seqs: int | None = None) -> ReplicaSizing:
        changes: dict[str, object] = {"tp": parallel.tp, "pp": parallel.pp, "dp": parallel.dp,
                                      "expert_parallel": parallel.expert_parallel}
        if quantization is not None:
            changes["quantization"] = quantization
        if max_num_seqs is not None:
            changes["max_num_seqs"] = max_num_seqs
        settings = replace(self.settings, **changes)  # type: ignore[arg-type]
        return size_deployment(self.model, self.device, settings, self.version,
                               expected_context=self.expected_context, weights_gib=self.weights_gib)

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


def tp_allowed(model: ModelShape, tp: int) -> bool:
    """vLLM splits the attention heads over TP ranks: it refuses a TP that does not divide them."""
    return tp >= 1 and model.num_attention_heads % tp == 0


def roomy(fit: Fit, kv_reserve: float) -> bool:
    """The rule of thumb for an undeclared load: the weights × the KV reserve fit the memory vLLM may use."""
    s = fit.sizing
    return fit.starts == "starts" and s.weights_gib_per_gpu * kv_reserve <= s.usable_gib_per_gpu and fit.holds >= 1


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
    """Layouts whose replicas split one engine of ``current`` evenly: TP and PP each a divisor, fewer GPUs,
    a TP vLLM accepts (and at most ``max_tp``); fewest GPUs first, then the larger TP."""
    out = []
    for tp in _divisors(current.tp):
        for pp in _divisors(current.pp):
            if tp * pp < current.gpus and tp_allowed(model, tp) and (max_tp is None or tp <= max_tp):
                out.append(Parallel(tp, pp, current.dp, current.expert_parallel))
    return sorted(out, key=lambda p: (p.gpus, -p.tp))


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def alternative(sz: Sizer, current: Parallel, candidates: list[Parallel], seqs: int | None, kv_reserve: float,
                quantization: str | None = None) -> Alternative | None:
    """The first of ``candidates`` whose replicas, sharing one engine's load of ``seqs`` (None: undeclared),
    surely start and hold their share; else the first that does within the error band; else, for an
    undeclared load, the first that starts with room for the KV cache by the rule of thumb."""
    precision = weight_precision(sz.model, sz.settings.dtype, quantization or sz.settings.quantization)
    maybe = None
    for cand in candidates:
        k = current.gpus // cand.gpus
        share = None if seqs is None else math.ceil(seqs / k)
        fit = sz.fit(cand, share, quantization=quantization)
        alt = Alternative(fit, k, precision, quantization)
        if fit.starts != "starts":
            continue
        if seqs is None:
            if roomy(fit, kv_reserve):
                return alt
        elif fit.load == "holds":
            return alt
        elif fit.load == "may-not-hold" and maybe is None:
            maybe = alt
    return maybe


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
    share (None when none does: the sharding is needed). Without one: the first roomy candidate whose
    replicas hold at least ``current_holds`` together, else the first roomy one as a trade-off
    (``suggest`` False), else None."""
    if seqs is not None:
        alt = alternative(sz, current, candidates, seqs, kv_reserve, quantization)
        if alt is None:
            return None
        return Replication(alt, alt.replicas * alt.fit.holds, current_holds, seqs, True)
    precision = weight_precision(sz.model, sz.settings.dtype, quantization or sz.settings.quantization)
    first = None
    for cand in candidates:
        k = current.gpus // cand.gpus
        fit = sz.fit(cand, None, quantization=quantization)
        if not roomy(fit, kv_reserve):
            continue
        r = Replication(Alternative(fit, k, precision, quantization), k * fit.holds, current_holds, None,
                        k * fit.holds >= current_holds)
        if r.suggest:
            return r
        first = first or r
    return first


def lower_precisions(model: ModelShape, gpu: GpuInfo | None, current: Precision) -> list[Precision]:
    """Precisions below ``current`` that vLLM serves on ``gpu``: FP8 where the GPU has FP8 units (Ada,
    Hopper, Blackwell, MI300), 4-bit AWQ/GPTQ everywhere."""
    out: list[Precision] = []
    if gpu is None or gpu.fp8:
        out.append("fp8")
    out.append("int4")
    return [p for p in out if BYTES_PER_PARAM[p] < BYTES_PER_PARAM[current]]


def precision_variant(sz: Sizer, current: Parallel, gpu: GpuInfo | None, seqs: int | None, kv_reserve: float,
                      candidates: list[Parallel]) -> Alternative | None:
    """The first lower precision (FP8, then 4-bit) at which one of ``candidates`` is an :func:`alternative`."""
    for p in lower_precisions(sz.model, gpu, sz.precision):
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
    nvlink_domain: int  # 1: PCIe only; 2: H100 NVL pairs; the node's GPUs on NVSwitch boards

    @property
    def tp_limit(self) -> int:
        """The largest TP that stays inside one NVLink domain of one node."""
        return max(1, min(self.gpus, self.nvlink_domain))


def _largest_tp(model: ModelShape, limit: int) -> int:
    tp = 1
    while tp * 2 <= limit and tp_allowed(model, tp * 2):
        tp *= 2
    return tp


def layouts_for(model: ModelShape, gpus: int, node: Node, *, pp: int | None = None) -> list[Parallel]:
    """The layouts ``plan`` considers on ``gpus`` GPUs per engine, preferred first.

    Tensor parallelism inside the NVLink domain, pipeline parallelism beyond it (across the PCIe
    links of a node, or across nodes), as vLLM's parallelism guide advises; with ``pp`` fixed, the
    TP that makes up the rest. For a mixture-of-experts model, the same GPUs as data-parallel
    engines with the experts spread over them is a second layout."""
    out: list[Parallel] = []
    if pp is not None:
        if gpus % pp == 0 and tp_allowed(model, gpus // pp):
            out.append(Parallel(gpus // pp, pp))
        return out
    tp = _largest_tp(model, min(gpus, node.tp_limit))
    if gpus % tp == 0 and gpus // tp <= model.num_hidden_layers:
        out.append(Parallel(tp, gpus // tp))
    if model.moe is not None and 1 < gpus <= node.gpus:
        out.append(Parallel(1, 1, gpus, True))
    return out


def gpu_counts(node: Node) -> tuple[list[int], list[int]]:
    """GPUs per engine ``plan`` tries: powers of two up to a node, then 2 and 4 whole nodes."""
    inside = [1]
    while inside[-1] * 2 <= node.gpus:
        inside.append(inside[-1] * 2)
    across = [node.gpus * n for n in (2, 4)]
    return inside, across

