"""``shardwise plan``: size one model on one GPU pool and recommend the layout the rules accept.

The search (which layouts, in which order) is :mod:`.layout`'s; each layout is turned into the same
serving group a manifest of it would be (the model, the vLLM settings, the node pool) and every rule
runs on it, so a layout the plan recommends has no mandatory finding in ``shardwise lint`` either.

The node comes from ``--instance-type`` (the instance catalog: GPU, GPUs per node, NVLink), else
``--gpus-per-node`` with the GPU's usual interconnect, else the largest instance type the catalog has
with that GPU; only a GPU the instance catalog lacks, without ``--gpus-per-node``, is assumed to sit
8 to a node, and the output says so.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..capacity.group import COUNT_ENV, SIZING_ENV, SWITCH_VALUES, WORD_ENV, env_settings
from ..capacity.layout import (
    Load,
    Node,
    Parallel,
    Sizer,
    gpu_counts,
    has_room,
    judge,
    largest_cap,
    layouts_for,
    lowest_default_cap,
    plural,
    replicas_for,
    serves,
    sure_holds,
)
from ..capacity.sizing import ReplicaSizing, band_text, quantization_capability_refusal
from ..model import NodePool, ServingGroup
from ..model.errors import InputError, ShardwiseError
from ..model.shapes import GpuInfo, ModelShape
from ..vllm.support import speculative_draft_tp, speculative_method, speculative_model, speculative_tokens
from ..vllm.versions import ResolvedVersion, dated_by_env, resolve

if TYPE_CHECKING:
    from ..capacity.throughput import DecodeEstimate
    from ..engine import Finding


class PlanError(ShardwiseError):
    """Options that do not make a plan (the CLI reports it and exits 2)."""


#: How ``plan --install`` says the engine's vLLM is installed (:attr:`PlanRequest.install`).
INSTALLS = ("image", "pip")


@dataclass(frozen=True)
class PlanRequest:
    """What ``shardwise plan`` was asked: the model, the GPU pool and the vLLM settings."""

    model: str
    base_model: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    instance_type: str | None = None
    gpus_per_node: int | None = None
    tp: int | None = None  # None: search
    pp: int | None = None  # None: search (1 with --tp)
    dp: int = 1
    #: ``--prefill-context-parallel-size`` (vLLM 0.12+), on every layout: its ranks hold the TP shard each, so an
    #: engine runs TP × PP × PCP GPUs (vLLM's world size) and lint sizes the emitted manifest so (planpcp1)
    pcp: int = 1
    enable_expert_parallel: bool = False
    gpu_memory_utilization: float | None = None  # None: the release's default
    vllm_version: str | None = None
    max_model_len: int | str | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    p95_context: int | None = None
    dtype: str = "auto"
    quantization: str | None = None
    kv_cache_dtype: str = "auto"
    speculative_config: str | None = None  # --speculative-config as vLLM takes it (JSON)
    weights_gib: float | None = None
    kv_reserve: float = 1.4
    concurrency: int | None = None  # the load: sequences the deployment serves at once (None: not declared)
    output_tokens_per_second: float | None = None  # one replica at the load, measured: the cost per token
    #: the engine's environment the capacity model reads (``--env NAME=VALUE``: :data:`..capacity.group.SIZING_ENV`),
    #: as (name, value) pairs; ``--emit`` writes it into the pod's env
    env: tuple[tuple[str, str], ...] = ()
    #: further vLLM engine flags the capacity model reads (``--engine-arg FLAG=VALUE``: :data:`ENGINE_ARG_FLAGS`), as
    #: (flag, value) pairs, the flag as vLLM spells it without its dashes; ``--emit`` writes them on the command line
    engine_args: tuple[tuple[str, str], ...] = ()
    #: how the engine's vLLM is installed (``--install``): ``image``, the official vllm/vllm-openai image of the
    #: release; ``pip``, ``pip install vllm==RELEASE`` at start-up in a Python image (FlashInfer only where that
    #: release's wheel brings it: ``Behaviour.pip_flashinfer``); ``--emit`` writes it so
    install: str = "image"

    def __post_init__(self) -> None:
        # a mapping or a list of pairs (a JSON request) is taken as the pairs it holds
        for name in ("env", "engine_args"):
            value = getattr(self, name)
            pairs = value.items() if isinstance(value, Mapping) else value
            object.__setattr__(self, name, tuple((str(k), str(v)) for k, v in pairs))

    @property
    def searching(self) -> bool:
        return self.tp is None


def finding_dicts(findings: Sequence[Finding]) -> list[dict[str, str]]:
    """Findings as the plan's JSON gives them: code, name, level and the message after its code."""
    return [{"code": f.code, "name": f.name, "level": f.level, "message": f.coded_message} for f in findings]


@dataclass
class Candidate:
    """One layout the plan sized and ran the rules on."""

    parallel: Parallel
    sizing: ReplicaSizing
    findings: list[Finding]  # not suppressed
    blocked: bool  # a mandatory finding
    refused: bool  # a mandatory finding that is vLLM refusing the layout itself (SW203): it does not start
    holds: int  # sequences of the expected context one replica (every DP engine) holds beyond the error band
    fits: bool  # nothing blocks, it starts beyond the error band, and it holds at least one sequence
    roomy: bool  # nothing blocks and it serves the model (capacity.layout.serves: starts, holds one, room for KV)
    max_model_len_lowered: bool = False  # max_model_len lowered to what the KV cache holds
    load: LoadSizing | None = None
    #: vLLM's default --max-num-seqs where plan lowered it so that the layout serves (what follows the cap, the
    #: profile's sampler above all, left too little KV cache at the default): :func:`_fitted`; None: not lowered
    max_num_seqs_lowered_from: int | None = None
    #: the accelerator is one the capacity model does not size (a Google TPU: capacity.group.tpu_of), so SW101 says
    #: its capacity is not checked and the start-up verdict is ``maybe``, never ``yes``
    capacity_unchecked: bool = False

    @property
    def max_num_seqs_lowered(self) -> bool:
        return self.max_num_seqs_lowered_from is not None  # replicas, GPUs, nodes and cost for the declared load

    @property
    def starts(self) -> bool:
        return self.sizing.starts and not self.refused

    @property
    def start_up(self) -> str:
        """``yes``, ``maybe`` or ``no``: plan's one start-up verdict for the layout, in its table, its ``starts`` line
        and its recommendation, as SW101 and SW102 judge it: ``maybe`` when the weights and one ``max_model_len``
        request fit only within the estimate's error band, or when they fit but the margin outside the KV budget
        (CUDA graphs captured after sizing, the sampler's warm-up) is short within the band (SW101's advisory), or
        when the accelerator is a TPU, whose capacity SW101 says is not checked (:attr:`capacity_unchecked`), or when
        either cannot decide (a quantisation method read from the checkpoint's name only, a release only assumed:
        mend36). One function decides it from the layout's findings, the ones lint gives the emitted manifest
        (:func:`..checks.start_up.start_up_verdict`); ``no`` also where vLLM refuses the layout itself (SW203) or
        the sizing is sure it refuses."""
        from ..checks.start_up import start_up_verdict

        s = self.sizing
        if self.refused or s.verdict == "refuses":
            return "no"
        return start_up_verdict(self.findings)

    def as_dict(self) -> dict[str, Any]:
        s = self.sizing
        return {
            "tensor_parallel_size": s.tensor_parallel_size,
            "pipeline_parallel_size": s.pipeline_parallel_size,
            "data_parallel_size": s.data_parallel_size,
            "expert_parallel": s.expert_parallel,
            "gpus": self.parallel.world,
            "weights_gib_per_gpu": round(s.weights_gib_per_gpu, 3),
            "kv_cache_gib_per_gpu": round(s.kv_cache_gib_per_gpu, 3),
            "kv_cache_tokens": s.kv_cache_tokens,
            "max_concurrency": round(s.max_concurrency, 3),
            "starts": self.starts,
            "verdict": "refuses" if self.refused else s.verdict,
            "max_model_len": s.max_model_len,
            "max_model_len_lowered": self.max_model_len_lowered,
            "max_num_seqs": s.max_num_seqs,
            "max_num_seqs_lowered": self.max_num_seqs_lowered,
            "sequences_per_replica": self.holds,
            "roomy": self.roomy,
            "load": self.load.as_dict() if self.load else None,
            "mandatory": [f.code for f in self.findings if f.level == "mandatory"],
            "findings": finding_dicts(self.findings),
        }


@dataclass(frozen=True)
class LoadSizing:
    """A layout against the declared load: the replicas it takes (+1 for headroom where the load needs it), GPUs,
    nodes and cost."""

    concurrency: int
    context: int
    per_replica: int  # sequences one replica holds beyond the error band
    replicas_needed: int  # replicas that hold the load together
    replicas: int  # replicas_needed + the headroom replica where the load needs one
    gpus: int
    nodes: int
    usd_per_hour: float | None  # the nodes' on-demand price: whole instances, as they are billed
    usd_per_million_output_tokens: float | None  # with --output-tokens-per-second
    instance_type: str | None = None  # the instance type the nodes are and the price is of
    no_price: str | None = None  # why there is no price
    gpus_per_node: int | None = None  # GPUs of one node of ``instance_type``
    billed_as: str | None = None  # which instance type ``instance_type`` is: named, or the smallest holding a replica
    output_tokens_per_second: float | None = None  # one replica: measured (--output-tokens-per-second) or estimated
    tokens_estimated: bool = False  # output_tokens_per_second is the decode estimate, not a measurement

    @property
    def headroom_text(self) -> str:
        """``+ 1 for headroom``, or why there is none: the replicas keep a fifth of what they hold free."""
        if self.replicas > self.replicas_needed:
            return "+ 1 for headroom"
        held = self.replicas_needed * self.per_replica
        return (f"no headroom replica: the load fills {self.concurrency / held:.0%} of the {held:,} they hold, "
                f"not above the {HEADROOM_FILL:.0%} at which one is added")

    def as_dict(self) -> dict[str, Any]:
        return {
            "concurrency": self.concurrency, "context": self.context, "sequences_per_replica": self.per_replica,
            "replicas_needed": self.replicas_needed, "replicas": self.replicas,
            "headroom_replicas": self.replicas - self.replicas_needed,
            "gpus": self.gpus, "nodes": self.nodes, "instance_type": self.instance_type, "billed_as": self.billed_as,
            "usd_per_hour": self.usd_per_hour, "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "output_tokens_per_second": (round(self.output_tokens_per_second, 1)
                                         if self.output_tokens_per_second is not None else None),
            "output_tokens_per_second_estimated": self.tokens_estimated,
            "no_price": self.no_price,
        }


@dataclass(frozen=True)
class NodeInfo:
    """The node a replica runs on, and where that came from."""

    node: Node
    pool: NodePool | None  # None: a custom GPU (no topology rule can run)
    source: str  # "p5.48xlarge", "--gpus-per-node", "assumed: ..."
    interconnect: str | None
    instance: Any = None  # the catalog's InstanceType the price comes from (None: not known)
    hint: str = ""  # how to name another node, where the plan chose it: "--instance-type or --gpus-per-node ..."

    def text(self, gpu_name: str, priced: str = "") -> str:
        """The node line; ``priced`` says which instance type the recommendation is priced on where the plan chose
        the node (see :func:`priced_text`)."""
        link = {"nvswitch": "NVSwitch", "nvlink": "NVLink", "pcie": "PCIe only", "fabric": "the vendor's fabric"}.get(
            self.interconnect or "", "interconnect not known")
        if self.interconnect == "nvlink" and self.node.nvlink_domain < self.node.gpus:
            link = f"NVLink in groups of {self.node.nvlink_domain}, PCIe between them"
        if self.node.nvlink_domain > self.node.gpus:
            link += (f"; one NVLink domain joins {self.node.nvlink_domain} GPUs across nodes: keep a replica's pods "
                     "in one nvidia.com/gpu.clique")
        hint = f"; {self.hint}" if self.hint else ""
        return f"{self.node.gpus} × {gpu_name} per node ({self.source}{priced}{hint}; {link})"


@dataclass
class Plan:
    request: PlanRequest
    model: ModelShape
    gpu: GpuInfo | None
    memory_gib: float
    node: NodeInfo
    candidates: list[Candidate]
    chosen: Candidate | None
    gpus_needed: dict[str, Any]
    params: int  # the model's parameters (as --weights-gib implies them)

    @property
    def shown(self) -> Candidate:
        return self.chosen or self.candidates[-1]

    @property
    def gpu_name(self) -> str:
        return self.gpu.name if self.gpu else "a custom GPU"

    @property
    def ok(self) -> bool:
        return self.chosen is not None

    @property
    def load(self) -> Load:
        r = self.request
        return Load(r.concurrency, r.p95_context, 1, r.output_tokens_per_second)

    def recommended(self) -> dict[str, Any] | None:
        c = self.chosen
        if c is None or not self.request.searching:
            return None
        s = c.sizing
        world = c.parallel.world
        packing = layout_text(c.parallel, self.node.node)
        name = engine_text(c.parallel)
        if c.load is not None:
            ld = c.load
            if ld.instance_type and ld.gpus_per_node and ld.gpus_per_node != self.node.node.gpus:
                packing = layout_text(c.parallel, Node(ld.gpus_per_node, ld.gpus_per_node))
            on = f"{plural(ld.nodes, 'node')}" + (f" ({ld.instance_type})" if ld.instance_type else "")
            text = (f"recommended: {plural(ld.replicas, 'replica')} of {name} for {plural(ld.concurrency, 'sequence')} "
                    f"of {ld.context:,} tokens ({ld.replicas_needed:,} for the load, each holding {ld.per_replica:,}, "
                    f"{ld.headroom_text}) = {plural(ld.gpus, 'GPU')} on {on}; {packing}")
        else:
            held = f"one replica holds {plural(c.holds, 'sequence')} of {s.expected_context:,} tokens"
            if s.expected_context != s.max_model_len:
                full = max(0, int(s.max_concurrency)) * c.parallel.dp  # vLLM's figure is one engine's
                held = (f"one replica holds {plural(full, 'sequence')} of {s.max_model_len:,} tokens "
                        f"(max_model_len), {c.holds:,} of {s.expected_context:,} (the p95 context)")
            text = (f"recommended: {name}; {held}; {packing}; as many replicas as the load needs "
                    "(--concurrency C sizes them)")
        if c.max_model_len_lowered:
            text += (f"; --max-model-len {s.max_model_len} (the model's {s.model_max_len:,} tokens do not fit one "
                     "replica's KV cache)")
        if c.max_num_seqs_lowered and 0 < s.mamba_blocks < (c.max_num_seqs_lowered_from or 0):
            text += (f"; --max-num-seqs {s.max_num_seqs} (vLLM's default of {c.max_num_seqs_lowered_from:,} exceeds "
                     "the Mamba cache blocks one replica's KV cache holds, and vLLM refuses to start above them)")
        elif c.max_num_seqs_lowered:
            text += (f"; --max-num-seqs {s.max_num_seqs} (at vLLM's default of {c.max_num_seqs_lowered_from:,} what "
                     "follows the cap, the profile's sampler over the vocabulary above all, leaves one replica too "
                     "little KV cache)")
        if c.start_up == "maybe":
            text += f"; start-up: MAYBE, {_maybe_why(c)}: no layout on as few GPUs surely starts"
        return {
            "tensor_parallel_size": c.parallel.tp,
            "pipeline_parallel_size": c.parallel.pp,
            "data_parallel_size": c.parallel.dp,
            **({"prefill_context_parallel_size": c.parallel.pcp} if c.parallel.pcp != 1 else {}),
            "enable_expert_parallel": c.parallel.expert_parallel,
            "replicas_per_node": self.node.node.gpus // world if world <= self.node.node.gpus else None,
            "nodes_per_replica": -(-world // self.node.node.gpus),
            "gpus_per_node": self.node.node.gpus,
            "max_num_seqs": s.max_num_seqs,
            "max_num_seqs_default": s.max_num_seqs_default,
            "max_num_seqs_lowered": c.max_num_seqs_lowered,
            "max_model_len": s.max_model_len,
            "max_model_len_lowered": c.max_model_len_lowered,
            "sequences_per_replica": c.holds,
            "load": c.load.as_dict() if c.load else None,
            "text": text,
        }

    def failure(self) -> str | None:
        """The line for stderr when no layout is free of mandatory findings."""
        if self.ok or not self.request.searching:
            return None
        tried = ", ".join(c.parallel.text() for c in self.candidates)
        return (f"no layout of {tried} is free of mandatory findings; try a GPU with more memory, "
                "--quantization or a shorter --max-model-len")


def engine_text(p: Parallel) -> str:
    """``TP4``, ``TP8 × PP2``, ``TP1 × DP8 with expert parallelism``."""
    parts = ([f"TP{p.tp}"] + ([f"PP{p.pp}"] if p.pp > 1 else []) + ([f"PCP{p.pcp}"] if p.pcp > 1 else [])
             + ([f"DP{p.dp}"] if p.dp > 1 else []))
    return " × ".join(parts) + (" with expert parallelism" if p.expert_parallel else "")


def layout_text(p: Parallel, node: Node) -> str:
    """``TP4 × 2 replicas per 8-GPU node``; ``TP8 × PP2 = 16 GPUs: one replica spans 2 8-GPU nodes``."""
    name = engine_text(p)
    if p.world <= node.gpus:
        n = node.gpus // p.world
        left = node.gpus - n * p.world
        spare = f" ({plural(left, 'GPU')} left over)" if left else ""
        return f"{name} × {plural(n, 'replica')} per {node.gpus}-GPU node{spare}"
    nodes = -(-p.world // node.gpus)
    return f"{name} = {p.world} GPUs: one replica spans {nodes} {node.gpus}-GPU nodes"


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def _quantization_refused(req: PlanRequest) -> str | None:
    """Why vLLM exits on ``--quantization`` for the checkpoint ``--model`` names
    (:func:`~shardwise.rules.vllm.flags.checkpoint_quantization_refused`): judged only for a catalog id served as
    published (no --base-model, no engine argument that loads other files or config)."""
    from ..catalog.lookup import find_model_exact
    from ..vllm.flags import checkpoint_quantization_refused

    changed = ("revision", "hf-overrides", "hf_overrides", "quantization-config", "quantization_config",
               "load-format", "load_format")
    if req.quantization is None or req.base_model is not None \
            or any(name.lstrip("-") in changed for name, _ in req.engine_args):
        return None
    shape = find_model_exact(req.model)
    if shape is None:
        return None
    return checkpoint_quantization_refused(req.quantization, shape.id, shape.quantization, shape.precision)


def plan_release(req: PlanRequest) -> ResolvedVersion:
    """The release plan sizes for: ``--vllm-version``, else the current release, or where ``--env`` sets
    ``VLLM_ALL2ALL_BACKEND`` the newest release that reads it (:func:`..vllm.versions.dated_by_env`), as lint takes a
    manifest's (``capacity.group.vllm_version``)."""
    return dated_by_env(resolve(req.vllm_version, None, missing="--vllm-version not given"), dict(req.env))


def load_model(spec: str, base_model: str | None, vllm_version: str | None = None) -> ModelShape:
    """The shape ``plan`` sizes; a family the capacity model recognises but does not size (:mod:`..catalog.unsized`:
    DeepSeek-V4, MiniMax-M3, MiMo-V2, Step-3.5 / 3.7, encoder-only embedders) is refused with the reason (for
    DeepSeek-V4, with what the release, ``--vllm-version`` or else the current one, lacks), never sized as a name or a
    config's shapes suggest."""
    from ..catalog import CatalogError, unsized

    def refused(name: str, by_config: bool = False) -> PlanError:
        why = unsized.reason(name, by_config=by_config)
        if not unsized.is_reason(why):  # a later V4 release known by name only: no V4 release's note
            return PlanError(f"cannot size it: {why}")
        release = resolve(vllm_version, None, missing="--vllm-version not given")
        return PlanError(f"cannot size it: {why}; {unsized.release_note(release.version, release.note)}")

    try:
        shape = _load_model(spec, base_model)
    except CatalogError:
        named = next((n for n in (spec, base_model) if n and unsized.is_dsv4_name(n)), None)
        if named is not None:
            raise refused(named) from None
        other = next((n for n in (spec, base_model) if n and unsized.family_of_name(n)), None)
        if other is not None:
            raise PlanError(f"cannot size it: {unsized.family_reason(other)}") from None
        raise
    if unsized.is_dsv4_config(shape.hf_config):
        raise refused(spec if unsized.is_dsv4_name(spec) else shape.id, by_config=True)
    family = unsized.family_of_config(shape.hf_config)
    if family is not None:
        note = _encoder_weights(shape.source, vllm_version) if family[0] == unsized.ENCODER_ONLY else ""
        raise PlanError(f"cannot size it: {unsized.family_reason(spec, shape.hf_config)}{note}")
    return shape


def _encoder_weights(source: str, vllm_version: str | None) -> str:
    """What ``plan`` says of an encoder-only embedder's config.json (round catalog21): its weights on one GPU under
    ``--dtype auto``, no KV cache, and that the pooling runner's profile peak is not modelled, so no layout is given."""
    import json

    from ..capacity import encoder

    try:
        with open(source, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return ""
    if not isinstance(raw, dict):
        return ""
    release = resolve(vllm_version, None, missing="--vllm-version not given")
    major, minor, patch = (*release.version.parts, 0, 0, 0)[:3]
    peak = ("the pooling runner's profile peak (a dummy run over max_num_batched_tokens, then the pooler once per "
            "task) is not modelled, so plan gives no layout")
    try:
        gib = encoder.weights_bytes(raw, (major, minor, patch)) / 1024**3
    except encoder.EncoderShapeError as err:
        return f"; its weights were not judged: {err}; {peak}"
    return (f"; on one GPU its weights alone are {gib:.2f} GiB in {encoder.dtype(raw)} under --dtype auto on vLLM "
            f"{release.version}, with no KV cache; {peak}")


def _overridden(model: ModelShape, req: PlanRequest) -> ModelShape:
    """The model under ``--engine-arg hf-overrides=JSON``, as lint reads the flag from a manifest
    (:func:`..catalog.hfconfig.with_hf_overrides`: the keys that decide the context limit)."""
    if not any(flag.strip().lstrip("-").replace("_", "-") == "hf-overrides" for flag, _ in req.engine_args):
        return model
    from ..catalog.hfconfig import hf_overrides_of, with_hf_overrides
    from ..model import Location
    from ..vllm.args import parse_serve_args

    given = parse_serve_args(engine_words(req.engine_args), form="api", location=Location())
    return with_hf_overrides(model, hf_overrides_of(given.extra))


def _load_model(spec: str, base_model: str | None) -> ModelShape:
    from ..catalog import CatalogError, find_model, find_model_exact, load_local_model

    # a link that leads nowhere (its target gone, a loop of links) is the path given, not a model id: the reader
    # says why it cannot be read (review17: it was "unknown model 'LINK'", or "no such file or directory")
    if os.path.exists(spec) or os.path.islink(spec):
        return load_local_model(spec)
    if spec.startswith(("/", "./", "../", "~")) or spec.endswith(".json"):
        raise InputError("no such file or directory", spec)
    for option, name in (("--model", spec), ("--base-model", base_model or "")):
        odd = next((c for c in name if c < " " or "\x7f" <= c <= "\x9f" or "\ud800" <= c <= "\udfff"), None)
        if odd is not None:  # a Hugging Face id is letters, digits, '-', '_', '.' and one '/'; emit would write it
            raise PlanError(f"{option} '{name}' is no model id: it holds "
                            + ("a byte that is not UTF-8" if odd >= "\ud800" else "a control character"))
    if base_model is not None:  # checked even where the catalog knows --model itself: never dropped
        try:
            base = find_model(base_model)
        except CatalogError:
            raise PlanError(f"--base-model {base_model!r} is not a model of the catalog: give the catalog id of the "
                            f"model {spec!r} is a copy of, or leave --base-model out") from None
        own = find_model_exact(spec)
        if own is not None and own.id == spec.strip() and base.id not in (own.id, own.base_model):
            # find_model sizes a catalog id as its own entry: the base model would be read by nothing
            raise PlanError(f"--base-model {base_model!r} is unused: the catalog knows {spec!r} itself and sizes "
                            "its own entry; leave --base-model out")
    return find_model(spec, base_model)


def with_weights(model: ModelShape, weights_gib: float, precision: str) -> ModelShape:
    """A copy of ``model`` whose parameter count gives ``weights_gib`` at ``precision``, so that the rules,
    which size a layout from the parameters, agree with ``--weights-gib`` (embeddings stay 16-bit when the
    linear layers are quantised)."""
    from ..capacity.sizing import BYTES_PER_PARAM, GIB

    total = weights_gib * GIB
    bpp = BYTES_PER_PARAM[precision]
    if bpp >= 2.0:
        params = total / bpp
    else:
        embed = model.embedding_params
        params = (total - 2.0 * embed) / bpp + embed
        if params < embed:
            params = total / 2.0
    return replace(model, params=max(1, round(params)))


def resolve_node(req: PlanRequest) -> tuple[GpuInfo | None, NodeInfo]:
    """The GPU and the node, from ``--instance-type``, ``--gpu`` and ``--gpus-per-node`` (the hardware
    vocabulary in :mod:`.catalog.hardware` says what each node carries)."""
    from .. import catalog
    from ..catalog import hardware
    from ..model import Location

    gpu = catalog.find_gpu(req.gpu) if req.gpu else None
    where = Location("plan")
    if req.instance_type:
        inst = hardware.catalog_instance(req.instance_type)
        if gpu is not None and gpu.name != inst.gpu:
            raise PlanError(f"--gpu {req.gpu} is {gpu.name}, but {inst.name} carries {inst.gpu}")
        pool = hardware.instance_pool(inst.name, where, req.gpus_per_node)
        info = _node_info(pool, inst.name + (", --gpus-per-node" if req.gpus_per_node else ""))
        return pool.gpu, replace(info, instance=inst if info.node.gpus == inst.gpus else None)
    if gpu is None:
        n = req.gpus_per_node or 8
        source = "--gpus-per-node" if req.gpus_per_node else "assumed; give --gpus-per-node"
        return None, NodeInfo(Node(n, n), None, source, None)
    if req.gpus_per_node:
        inst = hardware.instance_with(gpu.name, req.gpus_per_node)
        if inst is not None:  # the instance type of that size: its pool, as the manifest --emit writes names it
            return gpu, replace(_node_info(hardware.instance_pool(inst.name, where), f"--gpus-per-node ({inst.name})"),
                                instance=inst)
        return gpu, _node_info(hardware.gpu_pool(gpu.name, req.gpus_per_node, where), "--gpus-per-node")
    inst = hardware.largest_instance(gpu.name)
    if inst is not None:
        info = _node_info(hardware.instance_pool(inst.name, where),
                          f"{inst.name}, the largest instance type with this GPU")
        return gpu, replace(info, instance=inst, hint="--instance-type or --gpus-per-node for another")
    if gpu.gpus_per_node:  # a superchip rack's compute tray (GB300 NVL72: 4 GPUs; the domain spans the trays)
        return gpu, _node_info(hardware.gpu_pool(gpu.name, gpu.gpus_per_node, where),
                               f"a compute tray of {gpu.gpus_per_node} {gpu.name} (no instance type with this GPU in "
                               "the catalog); give --gpus-per-node for another")
    return gpu, _node_info(hardware.gpu_pool(gpu.name, 8, where), "assumed: no instance type with this GPU in the "
                                                                  "catalog; give --gpus-per-node")


def _node_info(pool: NodePool, source: str) -> NodeInfo:
    from ..catalog.hardware import node_links

    gpus, domain = node_links(pool)
    if domain > gpus and not pool.clique:
        # an NVLink domain wider than a node (GB200 NVL72): the plan's replica runs in one domain, as pods kept in
        # one nvidia.com/gpu.clique would
        pool = replace(pool, clique="one NVLink domain")
    return NodeInfo(Node(gpus, domain), pool, source, pool.interconnect)


# --------------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    req: PlanRequest
    model: ModelShape
    rules_model: ModelShape
    gpu: GpuInfo | None
    memory_gib: float
    node: NodeInfo
    sizer: Sizer


def make_plan(req: PlanRequest) -> Plan:
    """Size the layouts, run the rules on each and pick the one to recommend."""
    from ..capacity.sizing import (
        BYTES_PER_PARAM,
        GB,
        GIB,
        VLLM_QUANTIZATION_METHODS,
        Device,
        EngineSettings,
        QuantizationUnknown,
        min_gpus,
        quantization_precision,
        weight_precision,
    )
    from ..vllm.versions import parse_version

    if req.gpu is None and req.gpu_memory_gib is None and req.instance_type is None:
        raise PlanError("plan needs --gpu NAME (e.g. H100), --instance-type TYPE (e.g. p5.48xlarge) or "
                        "--gpu-memory-gib GIB (memory of one GPU as CUDA reports it)")
    if req.quantization and req.quantization.lower() not in VLLM_QUANTIZATION_METHODS:
        raise PlanError(f"unknown --quantization '{req.quantization}'; expected one of vLLM's methods: "
                        f"{', '.join(sorted(VLLM_QUANTIZATION_METHODS))}")
    if req.speculative_config is not None and speculative_method(req.speculative_config) is None:
        raise PlanError(f"--speculative-config '{req.speculative_config}' names no method (JSON with \"method\", "
                        "e.g. '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}')")
    if req.vllm_version is not None and parse_version(req.vllm_version) is None:
        raise PlanError(f"--vllm-version '{req.vllm_version}' is not a vLLM release number (e.g. 0.11.0)")
    if req.install not in INSTALLS:
        raise PlanError(f"--install '{req.install}': expected one of {', '.join(INSTALLS)}")
    if req.tp is not None and req.tp * (req.pp or 1) > 1024:
        raise PlanError(f"--tp {req.tp} × --pp {req.pp} = {req.tp * (req.pp or 1)} GPUs per replica is absurd")
    if req.pcp < 1:
        raise PlanError(f"--pcp {req.pcp}: a positive count")
    env = check_env(req.env)
    engine_words(req.engine_args)  # refused before anything is loaded
    model = _overridden(load_model(req.model, req.base_model, req.vllm_version), req)
    if req.quantization:
        try:
            quantization_precision(model, req.quantization)
        except QuantizationUnknown as e:
            raise PlanError(f"cannot decide: {e.text}") from None
        refused = _quantization_refused(req)
        if refused is not None:
            raise PlanError(f"vLLM refuses it: {refused}")
    _check_lengths(req, model)
    gpu, node = resolve_node(req)
    if gpu is not None:
        gpu_gb = gpu.memory_gb
        mem = float(req.gpu_memory_gib or gpu.memory_gib)
    else:
        assert req.gpu_memory_gib is not None
        gpu_gb = req.gpu_memory_gib * GIB / GB
        mem = float(req.gpu_memory_gib)
    try:  # a checkpoint whose bits its name leaves open (a bare -GPTQ, a quantisation before unread words)
        precision = weight_precision(model, req.dtype, req.quantization)
    except QuantizationUnknown as e:
        raise PlanError(f"cannot decide: {e.text}") from None
    if precision not in BYTES_PER_PARAM:
        raise InputError(f"no bytes-per-parameter figure for precision {precision}", req.model)
    rules_model = with_weights(model, req.weights_gib, precision) if req.weights_gib else model
    settings = EngineSettings(
        gpu_memory_utilization=req.gpu_memory_utilization, max_model_len=req.max_model_len,
        max_num_seqs=req.max_num_seqs, max_num_batched_tokens=req.max_num_batched_tokens, dtype=req.dtype,
        quantization=req.quantization, kv_cache_dtype=req.kv_cache_dtype,
        speculative_method=speculative_method(req.speculative_config),
        speculative_tokens=speculative_tokens(req.speculative_config),
        speculative_model=speculative_model(req.speculative_config),
        speculative_draft_tp=speculative_draft_tp(req.speculative_config), pip_install=req.install == "pip",
        prefill_context_parallel=req.pcp, **env_settings(env),
    )
    version = plan_release(req)
    _refuse_absent_flags(_own_words(req), engine_words(req.engine_args), str(version.version))
    sizer = Sizer(model, Device.of(gpu, mem), settings, version, req.p95_context, req.weights_gib)
    if req.searching:  # a refusal no layout escapes: said once, not as "no layout is free of mandatory findings"
        below = quantization_capability_refusal(model, settings, sizer.device, version, [])
        if below:
            raise PlanError(f"vLLM refuses it at every layout: {below}")
    ctx = _Context(req, model, rules_model, gpu, mem, node, sizer)
    if req.engine_args:
        # the flags as lint reads them: the group a manifest of the plan would be, its engine settings as the capacity
        # model takes them from it (so plan sizes what lint of the emitted manifest sizes)
        from ..capacity.group import engine_settings

        linted = engine_settings(_group(ctx, Parallel(1, 1, 1, False), req.max_model_len, 1))
        settings = replace(settings, **{f: getattr(linted, f) for f in ENGINE_ARG_SETTINGS})
        ctx = replace(ctx, sizer=replace(sizer, settings=settings))
    need = min_gpus(model, gpu_gb, precision, req.kv_reserve, RULE_OF_THUMB_USABLE, weights_gib=req.weights_gib)

    if not req.searching:
        only = _named(ctx, Parallel(req.tp or 1, req.pp or 1, req.dp, req.enable_expert_parallel, req.pcp))
        chosen = only if not only.blocked else None
        return Plan(req, model, gpu, mem, node, [only], chosen, need, rules_model.params)

    inside, across = gpu_counts(node.node)
    if req.dp * req.pcp > 1:  # the counts are GPUs per replica (DP × TP × PP × PCP): one node's stays in it
        inside, across = ([w // (req.dp * req.pcp) for w in ws if w % (req.dp * req.pcp) == 0]
                          for ws in (inside, across))
    candidates: list[Candidate] = []
    chosen = None
    for counts in (inside, across):
        for gpus in counts:
            for p in layouts_for(model, gpus, node.node, pp=req.pp, expert_parallel=req.enable_expert_parallel):
                if req.dp > 1 or req.enable_expert_parallel:  # the data parallelism asked, on every layout
                    if p.dp > 1:
                        continue
                    p = replace(p, dp=req.dp, expert_parallel=req.enable_expert_parallel)
                candidates.append(_fitted(ctx, replace(p, pcp=req.pcp)))
        chosen = _pick(candidates, req.concurrency is not None)
        if chosen is not None and req.concurrency is None:
            break  # without a load, a replica wider than a node only when none inside one has room
    return Plan(req, model, gpu, mem, node, candidates, chosen, need, rules_model.params)


def check_env(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """``--env``: only the variables the capacity model reads, each once, a switch as 0 or 1 (or true/false), a count
    as a positive integer, a backend as a word."""
    out: dict[str, str] = {}
    for name, value in pairs:
        if name not in SIZING_ENV:
            raise PlanError(f"--env {name}: the capacity model does not read {name}; it reads "
                            f"{', '.join(SIZING_ENV)}")
        if name in out and out[name] != value:
            raise PlanError(f"--env {name} is given twice ('{out[name]}' and '{value}')")
        if name in COUNT_ENV:
            if not (value.strip().isdecimal() and int(value) > 0):
                raise PlanError(f"--env {name}={value}: a count, a positive integer")
        elif name in WORD_ENV:
            if not value.strip():
                raise PlanError(f"--env {name}={value}: a backend's name")
        elif name != "VLLM_ALLOW_LONG_MAX_MODEL_LEN" and value.strip().lower() not in SWITCH_VALUES:
            raise PlanError(f"--env {name}={value}: a switch, 0 or 1")
        out[name] = value
    return out


#: ``--engine-arg`` flags: the engine arguments the capacity model reads (:func:`..capacity.group.engine_settings`) that
#: plan has no option of its own for, each with its kind: ``switch`` (true/false, or the flag alone for true), ``int``
#: (vLLM's human-readable counts too: 8G), ``json`` (an object, as vLLM takes it) or ``word``
ENGINE_ARG_FLAGS: dict[str, str] = {
    "all2all-backend": "word",
    # EPLB's redundant experts in the weights (capacity.group._eplb): --eplb-config '{"num_redundant_experts": N}'
    "enable-eplb": "switch",
    "eplb-config": "json",
    "block-size": "int",
    "enforce-eager": "switch",
    "enable-chunked-prefill": "switch",
    "enable-prefix-caching": "switch",
    "kv-cache-memory-bytes": "int",
    "compilation-config": "json",
    "async-scheduling": "switch",
    "limit-mm-per-prompt": "json",
    "mm-processor-kwargs": "json",
    "runner": "word",
    # the pooling runner's other spellings lint reads (capacity.group.pooling_runner): --task before --runner
    # (removed in 0.13.0), --convert beside it (0.10.1+); plan takes every flag lint sizes a layout with
    "task": "word",
    "convert": "word",
    "mm-encoder-tp-mode": "word",
    # a state layer's cache dtypes (capacity.group reads them; kv_layout.state_dtype_bytes)
    "mamba-cache-dtype": "word",
    "mamba-ssm-cache-dtype": "word",
    # 0.34's extensible KV cache: turned off by the switch, or by a block count given (capacity.group._extensible)
    "enable-extensible-kv-cache": "switch",
    "num-gpu-blocks-override": "int",
    # the speculative draft's flags before --speculative-config (removed in 0.8.3; capacity.group reads them)
    "speculative-model": "word",
    "num-speculative-tokens": "int",
    # the config overrides vLLM derives the context limit from (catalog.hfconfig.with_hf_overrides)
    "hf-overrides": "json",
    # the GiB of each GPU's decoder layers vLLM keeps in CPU memory (capacity.group._offload_bytes; a float)
    "cpu-offload-gb": "word",
}

#: The :class:`..capacity.sizing.EngineSettings` fields those flags set (what plan takes from the group's settings)
ENGINE_ARG_SETTINGS = ("all2all_backend", "enable_eplb", "num_redundant_experts", "block_size", "enforce_eager",
                       "enable_chunked_prefill", "enable_prefix_caching", "kv_cache_memory_bytes", "cudagraph_mode",
                       "async_scheduling", "pooling", "mm_max_pixels",
                       "mm_limits", "mm_args", "mm_args_verbatim", "mm_encoder_tp_mode", "extensible_kv_cache",
                       "mamba_cache_dtype", "mamba_ssm_cache_dtype",
                       "speculative_method", "speculative_model", "speculative_tokens", "speculative_draft_tp",
                       "cpu_offload_bytes")

#: engine flags plan takes as options of its own (``--engine-arg`` names them instead)
_OWN_OPTIONS = ("tensor-parallel-size", "pipeline-parallel-size", "data-parallel-size", "enable-expert-parallel",
                "prefill-context-parallel-size",
                "gpu-memory-utilization", "max-model-len", "max-num-seqs", "max-num-batched-tokens", "dtype",
                "quantization", "kv-cache-dtype", "speculative-config")


def engine_words(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """``--engine-arg`` pairs as the ``vllm serve`` words they stand for (``--block-size 32``, ``--enforce-eager``,
    ``--no-enable-prefix-caching``), each flag once; a flag the capacity model does not read, or one plan has an
    option for, is refused."""
    import json

    from ..vllm.args import parse_serve_args

    words: list[str] = []
    seen: dict[str, str] = {}
    for raw, value in pairs:
        flag = raw.strip().lstrip("-").replace("_", "-")
        if flag in _OWN_OPTIONS:
            raise PlanError(f"--engine-arg {raw}: give plan's own --{flag}")
        kind = ENGINE_ARG_FLAGS.get(flag)
        if kind is None:
            raise PlanError(f"--engine-arg {raw}: the capacity model does not read --{flag}; it reads "
                            f"{', '.join(ENGINE_ARG_FLAGS)} (and plan's own options)")
        if flag in seen and seen[flag] != value:
            raise PlanError(f"--engine-arg {flag} is given twice ('{seen[flag]}' and '{value}')")
        seen[flag] = value
        if kind == "switch":
            v = value.strip().lower()
            if v not in ("true", "false"):
                raise PlanError(f"--engine-arg {flag}={value}: a switch, true or false")
            words.append(f"--{flag}" if v == "true" else f"--no-{flag}")
            continue
        if kind == "json":
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise PlanError(f"--engine-arg {flag}={value}: a JSON object, as vLLM takes it")
            if flag == "hf-overrides":
                _hf_overrides_read(parsed)
        elif not value.strip():
            raise PlanError(f"--engine-arg {flag} has no value")
        words.extend([f"--{flag}", value])
    try:
        parse_serve_args(words, form="api")  # vLLM's values (a block size, a count) as lint reads them
    except InputError as e:
        raise PlanError(f"--engine-arg: {e.message}") from None
    return words


def _hf_overrides_read(overrides: dict[str, Any]) -> None:
    """Refuse ``--engine-arg hf-overrides`` keys the capacity model does not apply: like a flag it does not read, an
    override of ``num_hidden_layers`` or ``num_key_value_heads`` would change what vLLM loads while the plan sized
    the checkpoint as it is (only :data:`..catalog.hfconfig.HF_OVERRIDE_LENGTH_KEYS`, at the top level or in
    ``text_config``, are applied)."""
    from ..catalog.hfconfig import HF_OVERRIDE_LENGTH_KEYS

    nested = overrides.get("text_config")
    others = [k for k in overrides if k not in HF_OVERRIDE_LENGTH_KEYS and not (k == "text_config"
                                                                                and isinstance(nested, dict))]
    if isinstance(nested, dict):
        others += [f"text_config.{k}" for k in nested if k not in HF_OVERRIDE_LENGTH_KEYS]
    if others:
        raise PlanError(f"--engine-arg hf-overrides: the capacity model applies only "
                        f"{', '.join(HF_OVERRIDE_LENGTH_KEYS[:-1])} and {HF_OVERRIDE_LENGTH_KEYS[-1]} (at the top "
                        "level or in text_config), not "
                        f"{', '.join(others)}: the plan would size the checkpoint as it is")


def _own_words(req: PlanRequest) -> list[str]:
    """The flags of plan's own options that a manifest of the plan writes whatever the layout, as vLLM receives them
    (those given; the parallel sizes and expert parallelism depend on the layout)."""
    words: list[str] = []
    for flag, value in (("gpu-memory-utilization", req.gpu_memory_utilization), ("max-model-len", req.max_model_len),
                        ("max-num-seqs", req.max_num_seqs), ("max-num-batched-tokens", req.max_num_batched_tokens),
                        ("dtype", None if req.dtype == "auto" else req.dtype), ("quantization", req.quantization),
                        ("kv-cache-dtype", None if req.kv_cache_dtype == "auto" else req.kv_cache_dtype),
                        ("speculative-config", req.speculative_config),
                        # before 0.12.0 vLLM exits on it (SW003): plan refuses it there, as lint of the manifest would
                        ("prefill-context-parallel-size", req.pcp if req.pcp != 1 else None)):
        if value is not None:
            words.extend([f"--{flag}", str(value)])
    return words


def _refuse_absent_flags(own: list[str], words: list[str], release: str) -> None:
    """A flag the release does not define, among plan's own options as written (``own``: ``--speculative-config``
    before 0.8.2) and the --engine-arg flags (``words``: ``--runner`` and ``--convert`` before 0.10.1, ``--task``
    from 0.13.0, ``--compilation-config`` before 0.6.5): vLLM exits on it at start-up, and lint says so of the
    manifest plan would emit (SW003, on the image ``vllm/vllm-openai:v<release>`` it writes), so plan refuses it for
    the same reason instead of planning a layout that does not start. Judged by lint's own function
    (:func:`..vllm.flags.absent_flag`: the gaps table, then the release's collected option set) with the same
    message; a release whose source was not read is not judged, as lint does not judge it. A value the release
    refuses (:func:`..vllm.flags.release_value_refused`: ``--kv-cache-dtype nvfp4`` before 0.20.0,
    ``--engine-arg mamba-ssm-cache-dtype=bfloat16`` before 0.22.0) is refused the same way."""
    from ..vllm.flags import absent_flag, release_read, release_value_refused

    read = release_read(f"vllm/vllm-openai:v{release}")
    if read is None:
        return
    tokens = [*own, *words]
    absent = absent_flag(["vllm", "serve", *tokens], tokens, read)
    if absent is None:
        absent = release_value_refused(["vllm", "serve", *tokens], tokens, read)
        if absent is not None and not absent[0].startswith("--"):  # the value's word: its flag is the word before
            value, why = absent  # (the reason starts "`--flag value`": the flag, not another holding the same value)
            absent = next((tokens[i - 1], why) for i in range(1, len(tokens))
                          if tokens[i] == value and why.startswith(f"`{tokens[i - 1].replace('_', '-')} "))
    if absent is None:
        return
    word, why = absent
    name = word[2:].partition("=")[0]
    flag = name[3:] if name.startswith("no-") and name[3:] in ENGINE_ARG_FLAGS else name
    given = f"--engine-arg {flag}" if flag in ENGINE_ARG_FLAGS else f"--{flag}"
    raise PlanError(f"{given}: {why} (lint: SW003)")


def _check_lengths(req: PlanRequest, model: ModelShape) -> None:
    """A --max-model-len or --p95-context beyond the model's own limit is the model's, not the GPU's: vLLM refuses
    such a --max-model-len on any GPU (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1) and rejects longer requests."""
    from ..capacity.sizing import possible_limits

    # the longest limit the release may derive: one the overrides' RoPE dict makes depend on the image's
    # transformers or on a release not given is sized, and the sizing says it cannot decide (sizing.possible_limits)
    limit = possible_limits(model, plan_release(req))[-1]
    why = (f"{model.id} allows {limit:,} tokens (max_position_embeddings {model.max_position_embeddings:,}"
           + (" with its RoPE scaling" if limit != model.max_position_embeddings else "") + " in its config.json)")
    mml = req.max_model_len
    if isinstance(mml, int) and mml > limit and not env_settings(dict(req.env)).get("allow_long_max_model_len"):
        raise PlanError(f"--max-model-len {mml:,} is above the model's limit: {why}; vLLM refuses it on any GPU "
                        "unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set (--env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)")
    if req.p95_context is not None and req.p95_context > limit:
        raise PlanError(f"--p95-context {req.p95_context:,} is above the model's limit: {why}; vLLM rejects "
                        "longer requests, so no layout serves that context")
    if req.p95_context is not None and isinstance(mml, int) and req.p95_context > mml:
        # never judged at max_model_len instead (a silent clamp); lint's SW103 says the same of a manifest
        raise PlanError(f"--p95-context {req.p95_context:,} is above --max-model-len {mml:,}: vLLM rejects or cuts "
                        "short longer requests, so no layout serves that context; raise --max-model-len to at least "
                        f"{req.p95_context:,} or leave it out ({why})")


def _pick(candidates: list[Candidate], load_declared: bool) -> Candidate | None:
    """The layout to recommend.

    Without a declared load: the fewest GPUs per replica that fit with room for a KV cache (the weights × the
    KV reserve fit, and one sequence of max_model_len; with a p95 context declared, that context held beyond the
    error band, at a lowered max_model_len where need be); among those, one that surely starts (no SW101 advisory)
    before one that may not, then the one holding the most sequences per GPU. With one: :func:`load_key`."""
    if load_declared:
        fits = [c for c in candidates if c.fits and c.load is not None]
        return min(fits, key=load_key(fits), default=None)
    roomy = [c for c in candidates if c.roomy]
    if not roomy:
        return None
    fewest = min(c.parallel.world for c in roomy)
    same = [c for c in roomy if c.parallel.world == fewest]
    # a layout that surely starts before one that may not (SW101's margin), then the most sequences per GPU; never
    # more GPUs for it: the margin is the estimate's error, and SW101's remedies (eager mode, a smaller batch cap) cost
    # no GPU
    return max(same, key=lambda c: (c.start_up == "yes", c.holds / c.parallel.world))


def load_key(fits: list[Candidate]) -> Callable[[Candidate], tuple[float, int, int, int, bool]]:
    """How the layouts ``fits`` that hold the declared load rank (smallest first): what the team is billed for the
    load with its headroom replica, where every one of them has a price (the instance types they are billed on,
    :func:`billed_instance`), then the fewest GPUs in all, the narrower engine, the fewest nodes, and a layout that
    surely starts (:attr:`Candidate.start_up`) before one that may not. Three one-GPU
    replicas of an 8B on g6.xlarge (2.41 USD an hour) beat one TP1 × PP2 replica that needs no headroom but is
    billed a 4-GPU g6.12xlarge (4.60); without prices (MI300X, GB200) the GPUs decide."""
    priced = all(c.load is not None and c.load.usd_per_hour is not None for c in fits)

    def key(c: Candidate) -> tuple[float, int, int, int, bool]:
        assert c.load is not None
        bill = c.load.usd_per_hour if priced and c.load.usd_per_hour is not None else 0.0
        # at the same bill and GPUs, a layout that surely starts before one that may not (SW101's margin)
        return bill, c.load.gpus, c.parallel.world, c.load.nodes, c.start_up != "yes"

    return key


def ranked(plan: Plan) -> list[Candidate]:
    """The layouts that hold the declared load, best first (as :func:`_pick` orders them)."""
    fits = [c for c in plan.candidates if c.fits and c.load is not None]
    return sorted(fits, key=load_key(fits))


def _group(ctx: _Context, p: Parallel, max_model_len: int | str | None, replicas: int,
           max_num_seqs: int | None = None) -> ServingGroup:
    """The serving group a manifest of layout ``p`` on the plan's node would be."""
    from ..model import EngineArgs, Location
    from ..vllm.args import parse_serve_args

    req = ctx.req
    # the --engine-arg flags parsed as lint parses them from a command line: the fields they set, and the rest
    given = parse_serve_args(engine_words(req.engine_args), form="api", location=Location())
    fields = {k: getattr(given, k) for k in given.locations if k in ENGINE_ARG_FIELDS}
    extra = {k: given.extra[k] for k in given.locations if k not in ENGINE_ARG_FIELDS and k in given.extra}
    if req.speculative_config:
        extra["speculative_config"] = req.speculative_config
    if p.pcp != 1:
        extra["prefill_context_parallel_size"] = p.pcp
    engine = EngineArgs(
        model=ctx.model.id, tensor_parallel_size=p.tp, pipeline_parallel_size=p.pp, data_parallel_size=p.dp,
        enable_expert_parallel=p.expert_parallel, gpu_memory_utilization=req.gpu_memory_utilization,
        max_model_len=max_model_len, max_num_seqs=req.max_num_seqs if max_num_seqs is None else max_num_seqs,
        max_num_batched_tokens=req.max_num_batched_tokens,
        dtype=req.dtype, quantization=req.quantization, kv_cache_dtype=req.kv_cache_dtype,
        extra=extra, **fields,
    )
    per_node = ctx.node.node.gpus
    pods = -(-p.world // per_node) if p.world > per_node else 1
    return ServingGroup(
        name=ctx.model.id, kind="plan", namespace="", engine=engine, model=ctx.rules_model, replicas=replicas,
        pods_per_group=pods, gpus_per_pod=p.world if pods == 1 else per_node,
        pool=ctx.node.pool, placement_known=ctx.node.pool is not None, gpu_override=ctx.gpu,
        gpu_memory_gib_override=ctx.memory_gib if req.gpu_memory_gib else None, p95_context=req.p95_context,
        target_concurrency=req.concurrency, output_tokens_per_second=req.output_tokens_per_second,
        vllm_version=req.vllm_version, engine_env=dict(req.env), pip_install=req.install == "pip",
    )


#: EngineArgs fields an ``--engine-arg`` flag may set (the others land in its ``extra``)
ENGINE_ARG_FIELDS = frozenset({"block_size", "enforce_eager", "enable_chunked_prefill", "kv_cache_memory_bytes",
                               "cpu_offload_gb"})


#: Mandatory findings that are vLLM refusing the layout itself, not a judgement about it: it does not start.
REFUSALS = frozenset({"SW203"})


def _evaluate(ctx: _Context, p: Parallel, max_model_len: int | str | None = None,
              max_num_seqs: int | None = None) -> Candidate:
    from ..capacity.group import tpu_of
    from ..checks.registry import ALL_RULES
    from ..engine import LintConfig, run_rules
    from ..model import Inventory

    req = ctx.req
    mml = req.max_model_len if max_model_len is None else max_model_len
    sizer = ctx.sizer if max_model_len is None else replace(
        ctx.sizer, settings=replace(ctx.sizer.settings, max_model_len=mml))
    s = sizer.size(p, max_num_seqs=max_num_seqs)
    fit = judge(s, p, None)
    holds = sure_holds(s) * p.dp if fit.starts == "starts" else 0
    load = _load_sizing(ctx, p, holds, s) if req.concurrency is not None else None
    config = LintConfig(kv_reserve=req.kv_reserve, p95_context_tokens=req.p95_context)
    group = _group(ctx, p, mml, load.replicas_needed if load else 1, max_num_seqs)
    findings = [f for f in run_rules(ALL_RULES, Inventory(groups=[group]), config) if not f.suppressed]
    blocked = any(f.blocking for f in findings)
    fits = not blocked and fit.starts == "starts" and holds >= 1
    return Candidate(
        parallel=p, sizing=s,
        findings=findings,
        blocked=blocked, refused=any(f.blocking and f.code in REFUSALS for f in findings), holds=holds, fits=fits,
        roomy=not blocked and serves(fit, req.kv_reserve),  # the judgement SW104 makes of a smaller layout
        max_model_len_lowered=max_model_len is not None, load=load, capacity_unchecked=tpu_of(group) is not None,
    )


def _fitted(ctx: _Context, p: Parallel) -> Candidate:
    """``p`` as :func:`_fitted_len` fits it at vLLM's default ``--max-num-seqs``; where that does not serve (without
    a declared load, :attr:`Candidate.roomy`, what :func:`_pick` asks; with one, :attr:`Candidate.fits`) and no
    --max-num-seqs was given, ``p`` at the largest lower cap that does (:func:`~shardwise.rules.capacity.layout.
    largest_cap`: half the default, never below the release's small-GPU default of 256), if that cap still admits
    what the layout must run at once (:func:`seqs_floor`). What follows the cap (the profile's sampler over the
    vocabulary, the penalties' tensors, the CUDA graphs captured up to it) is then what kept the layout out:
    Gemma-3-27B on one H100 at vLLM 0.11.1 - 0.16 samples 1,024 rows of 262,208 logits in the profile (9.63 GiB) and
    keeps too little KV cache, where a team lowers the cap before it buys a second GPU (issue 28)."""
    c = _fitted_len(ctx, p)
    req = ctx.req
    declared = req.concurrency is not None
    if req.max_num_seqs is not None or not c.sizing.max_num_seqs_default:
        return c
    if _serving(c, declared):
        return _fewer_replicas(ctx, p, c) if declared else c
    if ctx.sizer.passes_over(p, None if declared else req.kv_reserve):
        return c  # the weights alone refuse (or leave no room for a KV cache): no cap gives room
    if c.sizing.mamba_verdict != "starts" and 1 <= c.sizing.mamba_blocks_sure < c.sizing.max_num_seqs:
        return _mamba_capped(ctx, c, lambda seqs: _fitted_len(ctx, p, seqs), lambda x: _serving(x, declared))
    tried: dict[int, Candidate] = {}

    def good(cap: int) -> bool:
        tried[cap] = _fitted_len(ctx, p, cap)
        return _serving(tried[cap], declared)

    cap = largest_cap(c.sizing.max_num_seqs, lowest_default_cap(ctx.sizer.version, c.sizing.max_num_seqs), good)
    if cap is None:
        return c
    low = tried[cap]
    if cap < seqs_floor(low, req.concurrency):
        return c
    return replace(low, max_num_seqs_lowered_from=c.sizing.max_num_seqs)


def _mamba_capped(ctx: _Context, c: Candidate, size: Callable[[int], Candidate],
                  ok: Callable[[Candidate], bool]) -> Candidate:
    """``c``, a layout at vLLM's default ``--max-num-seqs`` above the Mamba cache blocks its KV cache surely holds
    (vLLM 0.20+ refuses it, sizing.mamba_seqs_check), with the cap lowered to those blocks (``size`` sizes the layout
    at a cap; a lower cap only leaves more KV cache) where it is then ``ok`` and admits what it must run at once
    (:func:`seqs_floor`); else ``c``. The lower cap frees what follows it (the profile's sampler, the graphs), so the
    blocks grow: once more at those blocks, kept where they surely hold that cap too. Both the free search
    (:func:`_fitted`) and a layout named with ``--tp`` (:func:`_named`) lower it so."""
    blocks = c.sizing.mamba_blocks_sure
    low = size(blocks)
    more = low.sizing.mamba_blocks_sure
    if ok(low) and blocks < more < c.sizing.max_num_seqs:
        wider = size(more)
        if ok(wider) and wider.sizing.mamba_verdict == "starts":
            low, blocks = wider, more
    if ok(low) and blocks >= seqs_floor(low, ctx.req.concurrency):
        return replace(low, max_num_seqs_lowered_from=c.sizing.max_num_seqs)
    return c


def _named(ctx: _Context, p: Parallel) -> Candidate:
    """The layout ``plan --tp`` names, as asked; where no ``--max-num-seqs`` was given and vLLM's default exceeds the
    Mamba cache blocks it surely holds, at the cap lowered to them (:func:`_mamba_capped`), where it then serves as
    the free search asks (:func:`_serving`: it holds the declared load, or without one it has a roomy KV cache); a
    layout whose KV cache is tight keeps the default and its refusal (SW102 names the cap). Nothing else is changed:
    a context or a cap that leaves too little KV cache is reported, not fitted."""
    c = _evaluate(ctx, p)
    s = c.sizing
    declared = ctx.req.concurrency is not None
    if (ctx.req.max_num_seqs is None and s.max_num_seqs_default and s.mamba_verdict != "starts"
            and 1 <= s.mamba_blocks_sure < s.max_num_seqs):
        return _mamba_capped(ctx, c, lambda seqs: _evaluate(ctx, p, max_num_seqs=seqs),
                             lambda x: _serving(x, declared))
    return c


def _fewer_replicas(ctx: _Context, p: Parallel, c: Candidate) -> Candidate:
    """``c``, a layout that holds the declared load at vLLM's default ``--max-num-seqs``, or ``p`` at the lowest cap
    plan lowers it to (:func:`~shardwise.rules.capacity.layout.lowest_default_cap`) where that holds the same load
    on fewer replicas: what follows the cap (the profile's sampler above all) comes back as KV cache, so each
    replica holds more sequences. Gemma-3-27B on one H100 at vLLM 0.11.1 holds one 4,096-token sequence beyond the
    error band at 1,024 rows (a load of 4 takes 5 replicas with headroom) and three at 512 (2 replicas). The cap
    never falls below each replica's share of the load (:func:`seqs_floor`)."""
    assert c.load is not None
    default = c.sizing.max_num_seqs
    cap = lowest_default_cap(ctx.sizer.version, default)
    if cap >= default:
        return c
    low = _fitted_len(ctx, p, cap)
    if (not _serving(low, True) or low.load is None or low.load.replicas >= c.load.replicas
            or cap < seqs_floor(low, ctx.req.concurrency)):
        return c
    return replace(low, max_num_seqs_lowered_from=default)


def _serving(c: Candidate, declared: bool) -> bool:
    """What :func:`_pick` asks of a layout: with a declared load, it fits (starts, holds one sequence, nothing
    blocks); without one, it serves the model (:attr:`Candidate.roomy`)."""
    return c.fits and c.load is not None if declared else c.roomy


def seqs_floor(c: Candidate, concurrency: int | None) -> int:
    """The lowest ``--max-num-seqs`` (each engine's) layout ``c`` may run with: with a declared load, its share of
    the load per replica (the concurrency over the replicas that hold it, rounded up) over its data-parallel engines;
    without one, the sequences of the expected context (the p95 context, else max_model_len) one engine's KV cache
    holds beyond the error band. A lower cap would queue requests the KV cache has room for."""
    engines = max(1, c.parallel.dp)  # the cap is each data-parallel engine's
    if concurrency is not None and c.load is not None:
        share = -(-concurrency // max(1, c.load.replicas_needed))
        return -(-share // engines)
    return max(1, c.holds // engines)


def _fitted_len(ctx: _Context, p: Parallel, seqs: int | None = None) -> Candidate:
    """``p`` sized as asked; when the model's own context does not fit (and no --max-model-len was given) a
    layout whose weights leave room for a KV cache (or any layout, with a declared load), ``p`` at the
    max_model_len that fits beyond the error band, if that still holds the p95 context. Without a declared load,
    where the profile's batch follows max_model_len (V0), the longest max_model_len that leaves room for a KV cache
    (:func:`~shardwise.rules.capacity.layout.serves`, what :func:`_pick` asks) when the p95 context leaves it."""
    from ..capacity.group import MIN_SUGGESTED_MAX_MODEL_LEN, round_max_model_len

    c = _evaluate(ctx, p, max_num_seqs=seqs)
    s = c.sizing
    req = ctx.req
    # with neither a load nor a p95 context declared, weights that leave no room for a KV cache (neither the rule of
    # thumb nor the KV actually left, has_room) are not squeezed onto the GPU by a shorter context; a declared load
    # or p95 context is judged on the sequences of it the shorter context holds
    crowded = not has_room(s, req.kv_reserve)
    declared = req.concurrency is not None or req.p95_context is not None
    # Where the profile run's batch follows max_model_len (V0 without chunked prefill, which it turns on only above
    # 32,768 tokens: max_num_batched_tokens = max(max_model_len, 2048) unless given), a shorter context shortens that
    # batch and its activation, so the length sized at the model's context is not what fits at itself:
    # DeepSeek-R1-Distill-Llama-8B on one A10G with vLLM 0.7.0 fits 29,328 tokens beside a 2,048-token profile, but at
    # 28,672 the profile takes 2.5 GiB more (and Mistral-7B's 32,768 tokens, profiled whole, leave less than the p95
    # context). And the room for a KV cache follows it too: Qwen2.5-7B on one A10G with vLLM 0.6.1 keeps 2.83 GiB of
    # KV beside a 20,480-token profile (1.19 GiB beyond the error band, short of a quarter-reserve of 1.42: no room)
    # and 3.09 GiB beside an 18,432-token one (1.54 GiB, room for a p95 context of 1,024), so without a declared load
    # the lowering looks for room, not only for a start, before plan shards the model (issue 28: the doctrine lowers
    # --max-model-len on one GPU first).
    v0_batch = s.engine == "v0" and req.max_num_batched_tokens is None
    room = req.concurrency is None and declared and v0_batch  # a shorter context may give the room _pick asks
    if (c.fits and (c.roomy or not room)) or req.max_model_len is not None or (not declared and crowded):
        return c
    length = round_max_model_len(s.max_model_len_fit_sure)
    # the p95 context, as a length people write
    floor = round_max_model_len(max(req.p95_context or 0, MIN_SUGGESTED_MAX_MODEL_LEN) + 1023)
    if floor >= s.max_model_len or (length >= s.max_model_len and not room):
        return c  # no shorter context to try, or the context is not what keeps the layout out
    low = _evaluate(ctx, p, length, seqs) if floor <= length < s.max_model_len else None
    if low is not None and low.fits and (low.roomy or not room):
        return low
    if not v0_batch:
        return c
    # The longest length that fits (or, without a load, that leaves room) lies between the p95 context and the first
    # try: bisected on multiples of 1,024 (a handful of sizings). V1 profiles a fixed token budget: the first try
    # decides, as before.
    best = _evaluate(ctx, p, floor, seqs)
    if not best.fits:
        return low if low is not None and low.fits else c
    if room and not best.roomy:  # no shorter context gives room either: the longest that fits, as before
        if c.fits:
            return c
        if low is not None and low.fits:
            return low
    good = (lambda t: t.roomy) if room and best.roomy else (lambda t: t.fits)
    lo = floor // 1024  # good
    hi = (length if low is not None else s.max_model_len) // 1024  # not good
    while hi - lo > 1:
        mid = (lo + hi) // 2
        trial = _evaluate(ctx, p, mid * 1024, seqs)
        if good(trial):
            lo, best = mid, trial
        else:
            hi = mid
    return best


#: The utilisation the rule of thumb (``capacity.seeds.gpus_needed``, the weights × the KV reserve) is judged at: the
#: seeds' own default, whatever ``--gpu-memory-utilization`` the plan sizes with; the text says so where they differ.
RULE_OF_THUMB_USABLE = 0.90

#: The share of what the replicas hold that the load may fill before a headroom replica is added: the
#: rule-of-thumb autoscaler scales up above 80 % KV use (capacity.seeds.autoscale, ``up``).
HEADROOM_FILL = 0.80


def _load_sizing(ctx: _Context, p: Parallel, holds: int, s: ReplicaSizing) -> LoadSizing | None:
    """Replicas of ``p`` for the declared load (+1 for headroom where the load needs it), their GPUs, nodes, and the
    cost of the whole instances they run on."""
    from ..capacity.seeds import plan_cost

    req = ctx.req
    assert req.concurrency is not None
    needed = replicas_for(req.concurrency, holds)
    if needed is None:
        return None
    # warm headroom where the load needs it: one replica more where the load would fill the replicas that hold it
    # beyond the rule-of-thumb autoscaler's threshold (KV use above 80 %, seeds.autoscale), which would add one
    replicas = needed + (1 if req.concurrency > HEADROOM_FILL * needed * holds else 0)
    inst, why, how = _billed_instance(ctx, p)
    per_node = inst.gpus if inst is not None else ctx.node.node.gpus
    nodes = -(-replicas // (per_node // p.world)) if p.world <= per_node else replicas * -(-p.world // per_node)
    hourly = per_mtok = None
    tps = req.output_tokens_per_second
    estimated = None
    if not tps:  # each replica runs its share of the load: the decode estimate at that batch
        batch = min(-(-req.concurrency // replicas), holds, s.max_num_seqs)
        estimated = decode_estimate(ctx.model, ctx.gpu, s, p, batch)
        tps = estimated.tokens_per_second if estimated is not None else None
    if inst is not None and inst.price_per_hour_usd is not None:
        # whole instances are billed (what lint and diff price too): the nodes × the instance's on-demand price
        hourly = round(nodes * inst.price_per_hour_usd, 2)
        if tps:
            cost = plan_cost(p.text(), replicas, p.world, tps / 300, hourly / (replicas * p.world), 0.0)
            per_mtok = round(float(cost["cost/1k_tok"]) * 1000, 2)
    elif inst is not None:
        why = f"{inst.name} has no public us-east-1 on-demand price in the catalog"
    return LoadSizing(req.concurrency, s.expected_context, holds, needed, replicas, replicas * p.world, nodes,
                      hourly, per_mtok, inst.name if inst is not None else None, why if hourly is None else None,
                      per_node, how if inst is not None else None, tps, estimated is not None)


def decode_estimate(model: ModelShape, gpu: GpuInfo | None, s: ReplicaSizing, p: Parallel,
                    batch: int) -> DecodeEstimate | None:
    """The decode-throughput estimate of one replica of ``p`` at ``batch`` sequences of the expected context (None:
    a custom GPU, or one the speed catalog lacks)."""
    from ..capacity.sizing import GIB
    from ..capacity.throughput import estimate_decode
    from ..vllm import kv_layout

    if gpu is None or batch < 1:
        return None
    read = kv_layout.replica_decode_read_bytes(model, p.tp, p.pp, s.kv_cache_dtype_bytes, s.expected_context,
                                               resolve(s.vllm_version).behaviour.mla_cache)
    return estimate_decode(model, gpu.name, weights_bytes_per_gpu=s.weights_gib_per_gpu * GIB,
                           kv_bytes_per_token_per_gpu=s.kv_bytes_per_token_per_gpu, tp=p.tp, pp=p.pp, dp=p.dp,
                           batch=batch, context=s.expected_context, expert_parallel=p.expert_parallel,
                           kv_read_bytes_per_sequence=read)


def replica_estimate(plan: Plan, c: Candidate) -> DecodeEstimate | None:
    """The estimate for the layout: at its share of the declared load, else at the most sequences one replica runs
    (what it holds, within max_num_seqs)."""
    s = c.sizing
    if c.load is not None:
        batch = min(-(-c.load.concurrency // c.load.replicas), c.holds, s.max_num_seqs)
    else:
        batch = min(c.holds, s.max_num_seqs)
    return decode_estimate(plan.model, plan.gpu, s, c.parallel, batch)


def _billed_instance(ctx: _Context, p: Parallel) -> tuple[Any, str | None, str]:
    """The instance type replicas of ``p`` are billed on (or None and why), and which it is (``billed_as``)."""
    return billed_instance(ctx.req, ctx.node, ctx.gpu, p.world)


def billed_instance(req: PlanRequest, node: NodeInfo, gpu: GpuInfo | None, world: int) -> tuple[Any, str | None, str]:
    """The instance type a replica of ``world`` GPUs is billed on, or None and why, and which one it is: the node
    pool's instance type when --instance-type or --gpus-per-node names it; else the smallest priced instance type of
    the GPU that holds one replica (a one-GPU replica of L4 on a g6.xlarge, not an eighth of a g6.48xlarge); a replica
    wider than any instance type runs on the plan's nodes."""
    from ..catalog import CatalogError, instances_for_gpu

    if req.instance_type or req.gpus_per_node or gpu is None:
        how = "the named instance type" if req.instance_type else "the node of --gpus-per-node"
        if node.instance is not None:
            return node.instance, None, how
        if gpu is None:
            return None, "a custom GPU has no instance type to price", how
        return None, f"the catalog has no instance type with {node.node.gpus} {gpu.name} GPUs", how
    try:
        found = instances_for_gpu(gpu.name)
    except CatalogError:
        found = []
    if not found:
        return None, f"the catalog has no instance type with {gpu.name} GPUs (none is sold on-demand on AWS)", ""
    holding = [i for i in found if i.gpus >= world]
    priced = [i for i in holding if i.price_per_hour_usd is not None]
    smallest = "the smallest priced instance type with the GPU that holds one replica"
    if priced:
        return min(priced, key=lambda i: (i.gpus, i.price_per_hour_usd)), None, smallest
    if holding:
        return holding[0], None, "the smallest instance type with the GPU that holds one replica (none is priced)"
    return node.instance, None, "the plan's node: no instance type with the GPU holds one replica"


# --------------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------------


def priced_text(plan: Plan) -> str:
    """Where the plan took the largest instance type with the GPU as its node (no --instance-type or
    --gpus-per-node), the layouts are tried on it, but the recommendation is priced on the smallest instance type
    that holds one replica (:func:`billed_instance`): the node line says which, so that it and the price agree.
    Empty where the node is named, or where nothing is priced."""
    load = plan.shown.load
    if not plan.node.hint or load is None or load.instance_type is None or plan.node.instance is None:
        return ""
    world = plan.shown.parallel.world
    replica = f"replica of {world} GPU{'s' if world != 1 else ''}"
    priced = "priced" if load.usd_per_hour is not None else "counted (no price known)"
    if load.instance_type != plan.node.instance.name:
        held = load.gpus_per_node
        return (f", where the layouts are tried; the recommendation's {replica} is {priced} on "
                f"{load.instance_type} "
                f"({held} GPU{'s' if held != 1 else ''}), the smallest instance type with this GPU that holds it")
    if world > plan.node.node.gpus:
        return (f", which the recommendation's {replica} spans {-(-world // plan.node.node.gpus)} of and is "
                f"{priced} on")
    return f", which the recommendation's {replica} is {priced} on"


def plan_json(plan: Plan) -> dict[str, Any]:
    shown = plan.shown
    s = shown.sizing
    out: dict[str, Any] = {
        "model": plan.model.id,
        "base_model": plan.model.base_model,
        "params": plan.params,
        "gpu": plan.gpu.name if plan.gpu else "custom",
        "gpus_per_node": plan.node.node.gpus,
        "node": {"gpus": plan.node.node.gpus, "nvlink_domain": plan.node.node.nvlink_domain,
                 "interconnect": plan.node.interconnect, "source": plan.node.source,
                 "instance_type": plan.node.instance.name if plan.node.instance else None},
    }
    out.update(s.as_dict())
    for key in ("load_tokens", "headroom_gib_per_gpu"):  # max_num_seqs × the context: a cap, not a load
        out.pop(key, None)
    if plan.request.env:
        out["env"] = dict(plan.request.env)
    if plan.request.install != "image":
        out["install"] = plan.request.install  # --install pip (the official image otherwise)
    if plan.request.engine_args:
        out["engine_args"] = engine_words(plan.request.engine_args)  # the vllm serve words they stand for
    out["starts"] = shown.starts
    if shown.refused:
        out["verdict"] = "refuses"
    out["sequences_per_replica"] = shown.holds
    out["load"] = {"concurrency": plan.request.concurrency, "context": s.expected_context,
                   "context_declared": plan.request.p95_context is not None,
                   "output_tokens_per_second": plan.request.output_tokens_per_second}
    est = replica_estimate(plan, shown) if shown.starts else None
    out["throughput"] = ({"estimate": False, "output_tokens_per_second": plan.request.output_tokens_per_second}
                         if plan.request.output_tokens_per_second else est.as_dict() if est is not None else None)
    out["findings"] = finding_dicts(shown.findings)
    out["gpus_needed"] = plan.gpus_needed
    out["recommended"] = plan.recommended()
    if plan.request.searching:
        out["candidates"] = [c.as_dict() for c in plan.candidates]
        if plan.request.concurrency is not None:
            out["for_the_load"] = [_load_row(c) for c in ranked(plan)]
    return out


def _load_row(c: Candidate) -> dict[str, Any]:
    assert c.load is not None
    return {"layout": engine_text(c.parallel), "gpus_per_replica": c.parallel.world, **c.load.as_dict()}


def _table(rows: list[tuple[str, str]]) -> list[str]:
    w = max(len(k) for k, _ in rows)
    return [f"  {k:<{w}}  {v}".rstrip() for k, v in rows]


def _starts_text(c: Candidate) -> str:
    s = c.sizing
    if c.refused:
        refusals = "; ".join(f.coded_message for f in c.findings if f.code in REFUSALS and f.level == "mandatory")
        return f"no: vLLM refuses the layout ({refusals})"
    if s.weights_fit_band != "starts" and s.weights_gib_per_gpu > s.usable_gib_per_gpu:
        # the weights are the checkpoint's bytes, not an estimate: say that first, whatever else does not fit
        whole = (f", more than the GPU's whole {s.gpu_memory_gib:.2f} GiB" if s.weights_gib_per_gpu > s.gpu_memory_gib
                 else "")
        return (f"no: weights {s.weights_gib_per_gpu:.2f} GiB per GPU > {s.usable_gib_per_gpu:.2f} GiB usable "
                f"({s.gpu_memory_utilization:g} × {s.gpu_memory_gib:.2f}){whole}")
    if c.start_up == "maybe" and _undecided_only(c):
        return f"maybe: {_maybe_why(c)}"
    if s.verdict == "starts" and c.start_up == "maybe":
        # the margin outside the budget is short within its error band, on the central estimate or beside it (SW101)
        why = s.refusal or s.margin_failure
        return "maybe: within the estimate's error band" + (f" ({why})" if why else "")
    if s.verdict == "starts":
        return "yes"
    if s.verdict == "may-refuse":
        return "maybe: within the estimate's error band" + (f" ({s.refusal})" if s.refusal else "")
    return f"no: {s.refusal}" if s.refusal else "no"


def _undecided_only(c: Candidate) -> bool:
    """Whether every advisory SW101/SW102 finding of ``c`` is one that cannot decide (no error band is at stake)."""
    from ..checks.start_up import start_up_findings

    advisory = start_up_findings(c.findings)
    return bool(advisory) and all(f.undecided for f in advisory)


def _maybe_why(c: Candidate) -> str:
    """Why ``c``'s start-up is ``maybe``, naming the rule that says so: the estimate's error band (SW101), or a
    finding that cannot decide (SW102's quantisation method read from a checkpoint's name only, mend36)."""
    if _undecided_only(c):
        from ..checks.start_up import start_up_findings

        codes = sorted({f.code for f in start_up_findings(c.findings)})
        return f"cannot decide (see {' and '.join(codes)} below)"
    return "within the estimate's error band (see SW101 below)"


def _columns(header: tuple[str, ...], body: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:>{w}}}" if i < len(header) - 1 else f"{{:<{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in body)]


def _money(x: float | None) -> str:
    return "–" if x is None else f"${x:,.2f}"


def per_million_text(load: LoadSizing | None) -> str:
    """``$1.23`` (measured rate), ``$1.23 (est.)`` (the decode estimate), or ``–``."""
    if load is None or load.usd_per_million_output_tokens is None:
        return "–"
    return _money(load.usd_per_million_output_tokens) + (" (est.)" if load.tokens_estimated else "")


def _candidates_table(plan: Plan) -> list[str]:
    header = ("TP", "PP", "DP", "GPUs", "weights GiB/GPU", "KV GiB/GPU", "KV tokens", "max conc", "seqs/replica",
              "starts", "mandatory findings")
    body = []
    for c in plan.candidates:
        s = c.sizing
        body.append((
            str(c.parallel.tp), str(c.parallel.pp),
            f"{c.parallel.dp}{' EP' if c.parallel.expert_parallel else ''}", str(c.parallel.world),
            f"{s.weights_gib_per_gpu:.2f}", f"{s.kv_cache_gib_per_gpu:.2f}", f"{s.kv_cache_tokens:,}",
            f"{s.max_concurrency:,.2f}", f"{c.holds:,}",
            c.start_up,
            ", ".join(f.code for f in c.findings if f.level == "mandatory") or "–",
        ))
    lines = _columns(header, body)
    lowered = [c for c in plan.candidates if c.max_model_len_lowered]
    if lowered:
        where = ", ".join(c.parallel.text() for c in lowered)
        lines.append(f"max_model_len lowered to what the KV cache holds on {where} (the model allows "
                     f"{lowered[0].sizing.model_max_len:,} tokens)")
    capped = [c for c in plan.candidates if c.max_num_seqs_lowered]
    if capped:
        where = ", ".join(f"{c.parallel.text()} ({c.sizing.max_num_seqs:,})" for c in capped)
        mamba = 0 < capped[0].sizing.mamba_blocks < (capped[0].max_num_seqs_lowered_from or 0)
        why = ("it exceeds the Mamba cache blocks the KV cache holds, which vLLM refuses" if mamba
               else "what follows the cap (the profile's sampler above all) leaves too little KV cache")
        lines.append(f"max_num_seqs lowered from vLLM's default of {capped[0].max_num_seqs_lowered_from:,} on "
                     f"{where}: at the default, {why}")
    if plan.request.concurrency is not None:
        lines += ["", *_load_table(plan)]
    rec = plan.recommended()
    return [*lines, "", rec["text"] if rec else "recommended: none of these layouts (see findings)", ""]


def _load_table(plan: Plan, top: int = 4) -> list[str]:
    """The layouts that hold the declared load, side by side: the replicas the load needs, all of them with the
    headroom replica (``with headroom``), GPUs, nodes, instance and cost."""
    req = plan.request
    best = ranked(plan)[:top]
    context = plan.shown.sizing.expected_context
    head = (f"for {plural(req.concurrency or 0, 'sequence')} of {context:,} tokens at once "
            f"({'--p95-context' if req.p95_context else 'max_model_len; no --p95-context'}):")
    if not best:
        return [head, "  no layout holds a sequence of that context"]
    header = ("layout", "GPUs/replica", "seqs/replica", "replicas", "with headroom", "GPUs", "nodes", "instance",
              "$/hour", "$/M output tokens")
    body = [(engine_text(c.parallel), str(c.parallel.world), f"{c.load.per_replica:,}", f"{c.load.replicas_needed:,}",
             f"{c.load.replicas:,}", f"{c.load.gpus:,}", f"{c.load.nodes:,}", c.load.instance_type or "–",
             _money(c.load.usd_per_hour), per_million_text(c.load))
            for c in best if c.load is not None]
    from ..catalog import CatalogError, find_instance

    notes: dict[str, list[str]] = {}  # source and date: the instance types priced from it
    for name in dict.fromkeys(c.load.instance_type for c in best if c.load is not None and c.load.instance_type):
        try:
            inst = find_instance(name)
        except CatalogError:
            continue
        if inst.price_per_hour_usd is not None:
            notes.setdefault(f"{inst.price_source or 'the catalog'}, {inst.price_date or 'undated'}", []).append(
                f"{inst.name} ${inst.price_per_hour_usd:,.2f}/hour for {plural(inst.gpus, 'GPU')}")
    price = ("priced as whole instances at their on-demand price: " + "; ".join(
        f"{', '.join(names)} ({where})" for where, names in notes.items())) if notes else ""
    why = list(dict.fromkeys(c.load.no_price for c in best if c.load is not None and c.load.no_price))
    if why:
        price += ("; " if price else "") + "no price: " + "; ".join(why)
    if not any(c.load is not None and c.load.usd_per_hour is not None for c in best):
        tokens = ""  # nothing priced: no cost per token either
    elif req.output_tokens_per_second:
        tokens = "; $/M output tokens from --output-tokens-per-second (measured)"
    elif any(c.load is not None and c.load.tokens_estimated for c in best):
        tokens = ("; $/M output tokens (est.) from the decode estimate of each replica at its share of the load "
                  "(docs/capacity-model.md; --output-tokens-per-second R for a measured rate)")
    else:
        tokens = f"; $/M output tokens needs --output-tokens-per-second (no speeds of {plan.gpu_name} for an estimate)"
    return [head, *("  " + line for line in _columns(header, body)), f"  {price}{tokens}"]


def _throughput_text(plan: Plan, c: Candidate) -> str:
    measured = plan.request.output_tokens_per_second
    if measured:
        return f"{measured:,.0f} output tokens/s per replica (--output-tokens-per-second, measured)"
    est = replica_estimate(plan, c) if c.starts else None
    if est is None:
        why = "the layout does not start" if not c.starts else (
            "no sequence fits" if c.holds < 1 else f"no speeds of {plan.gpu_name} in the catalog")
        return f"no estimate: {why}; --output-tokens-per-second R gives a measured rate"
    return est.text()


def plan_text(plan: Plan) -> str:
    """The plan as people read it: the layouts tried (when searching), then the one shown, sized."""
    req = plan.request
    shown = plan.shown
    s = shown.sizing
    lines: list[str] = _candidates_table(plan) if req.searching else []
    dp = f" × DP{s.data_parallel_size}" if s.data_parallel_size > 1 else ""
    pcp = f" × PCP{shown.parallel.pcp}" if shown.parallel.pcp > 1 else ""
    ep = " with expert parallelism" if s.expert_parallel else ""
    lines.append(f"{plan.model.id} on {plan.gpu_name} ({plan.memory_gib:.1f} GiB), TP{s.tensor_parallel_size} × "
                 f"PP{s.pipeline_parallel_size}{pcp}{dp} = {plural(s.gpus, 'GPU')} per engine{ep}; "
                 f"{s.vllm_version_note} ({s.engine.upper()} engine)")
    graphs = ("taken from the KV budget" if s.cudagraphs_in_budget else
              "captured after the KV cache is sized: not in the budget" if s.cudagraph_gib_per_gpu else "none")
    band = band_text(s.error_band_gib, s.error_band_above_gib, 2, " ")
    kv = (f"{s.available_kv_gib:.2f} GiB {band} (vLLM logs it as 'Available KV cache memory')"
          if s.available_kv_gib > 0 else
          f"none: the weights, activations and the rest take {-s.available_kv_gib:.2f} GiB more than the usable "
          "memory")
    need = plan.gpus_needed
    # data parallelism: each engine has its own KV cache, and vLLM logs these figures once per engine
    engines = shown.parallel.dp
    per_engine = f" in each of the {engines} data-parallel engines" if engines > 1 else ""
    rows = [
        ("node", plan.node.text(plan.gpu.name if plan.gpu else "custom GPU", priced_text(plan))),
        *([("engine env", " ".join(f"{k}={v}" for k, v in req.env) + " (--env)")] if req.env else []),
        *([("install", f"pip install vllm=={s.vllm_version} in a Python image (--install pip)")]
          if req.install == "pip" else []),
        *([("engine args", shlex.join(engine_words(req.engine_args)) + " (--engine-arg)")] if req.engine_args
          else []),
        ("weights", f"{s.weights_gb_total:.1f} GB {s.weight_precision} in total, "
                    f"{s.weights_gib_per_gpu:.2f} GiB per GPU"),
        ("usable per GPU", f"{s.usable_gib_per_gpu:.2f} GiB ({s.gpu_memory_utilization:g} × {plan.memory_gib:.2f})"),
        ("activation peak per GPU", f"{s.activation_gib_per_gpu:.2f} GiB (estimate: {s.max_num_batched_tokens:,} "
                                    f"batched tokens; sampler {s.sampler_gib_per_gpu:.2f}"
                                    + (f", vision encoder {s.encoder_gib_per_gpu:.2f}" if s.encoder_gib_per_gpu else "")
                                    + ")"),
        ("non-torch per GPU", f"{s.non_torch_gib_per_gpu:.2f} GiB (estimate)"),
        ("CUDA graphs per GPU", f"{s.cudagraph_gib_per_gpu:.2f} GiB (estimate, {graphs})"),
        ("KV cache per GPU", kv),
        ("KV bytes per token per GPU", f"{s.kv_bytes_per_token_per_gpu:,}"
                                       + (" (hybrid layers: the KV cache groups hold less)" if s.hybrid_kv else "")),
        ("KV cache tokens", f"{s.kv_cache_tokens:,} ('GPU KV cache size'){per_engine}"),
        ("max_model_len", f"{s.max_model_len:,} (the model allows {s.model_max_len:,})"),
        ("max concurrency", f"{s.max_concurrency:.2f}x at {s.max_model_len:,} tokens{per_engine}"
         if s.kv_cache_tokens > 0 else "none: no KV cache"),
    ]
    if s.mamba_blocks:
        what = ("refuses a max_num_seqs above them" if s.mamba_batch == s.max_num_seqs and
                resolve(s.vllm_version).behaviour.mamba_seqs == "refused" else
                f"fails an assert on a full decode CUDA graph above them (it captures up to {s.mamba_batch:,})")
        rows.append(("Mamba cache blocks", f"{s.mamba_blocks:,} ({s.mamba_blocks_sure:,} beyond the error band): vLLM "
                                           f"{s.vllm_version} {what}{per_engine}"))
    if req.p95_context:
        rows.append(("", f"{plural(s.concurrency_at_expected_context, 'sequence')} at the p95 context of "
                         f"{s.expected_context:,} tokens{per_engine}"))
    seqs_how = "vLLM default" if s.max_num_seqs_default else "--max-num-seqs"
    if shown.max_num_seqs_lowered:
        seqs_how = f"--max-num-seqs, lowered from vLLM's default of {shown.max_num_seqs_lowered_from:,}"
    rows.append(("max_num_seqs", f"{s.max_num_seqs:,} ({seqs_how}): vLLM's cap on the batch, not a load; it admits a "
                                 "sequence only when its KV blocks fit"))
    held = f"{plural(shown.holds, 'sequence')} of {s.expected_context:,} tokens beyond the estimate's error band"
    if req.concurrency is None:
        rows.append(("load", f"none declared; one replica holds {held} (--concurrency C sizes replicas for a load)"))
    elif shown.load is not None:
        ld = shown.load
        rows.append(("load", f"{plural(ld.concurrency, 'sequence')} (--concurrency) × {ld.context:,} tokens: "
                             f"{plural(ld.replicas_needed, 'replica')} of this layout, each holding {held}, "
                             f"{ld.headroom_text} = {plural(ld.gpus, 'GPU')} on {plural(ld.nodes, 'node')}"))
    else:
        rows.append(("load", f"{plural(req.concurrency, 'sequence')} (--concurrency): this layout holds none of "
                             f"{s.expected_context:,} tokens"))
    rows.append(("throughput", _throughput_text(plan, shown)))
    rows += [
        ("starts", _starts_text(shown)),
        (f"GPUs for weights × {req.kv_reserve:g}",
         f"{plural(need['tensor_parallel_size'], 'GPU')}: the weights × {req.kv_reserve:g} (room for a KV cache) are "
         f"{need['need_gb']} GB against {need['per_gpu_gb']} GB usable per GPU"
         + ("" if s.gpu_memory_utilization == RULE_OF_THUMB_USABLE else
            f" (the rule's {RULE_OF_THUMB_USABLE:g} of the GPU, not the {s.gpu_memory_utilization:g} sized above)")
         + ", rounded up to a power of two (a rule of thumb; the sizing above decides)"),
    ]
    if not req.searching:
        rows.append(("layout", layout_text(shown.parallel, plan.node.node)))
    lines.extend(_table(rows))
    for note in s.notes:
        lines.append(f"  note: {note}")
    lines.append("")
    if shown.findings:
        lines.append("findings:")
        for f in shown.findings:
            lines.append(f"  {f.code} [{f.level}] {f.message}")
    else:
        lines.append("findings: none")
    return "\n".join(lines) + "\n"
