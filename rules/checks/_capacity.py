"""Shared helpers for the capacity and topology rules: the sizing of one serving group."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..capacity.layout import Load, Parallel, Replication, Sizer
from ..capacity.sizing import Device, EngineSettings, ReplicaSizing, size_deployment, weight_precision
from ..catalog.accelerators import family_known, group_vendor, non_nccl_vendors
from ..engine import LintConfig
from ..model import ModelNotKnown, ServingGroup, Undecidable, is_unknown, known
from ..model.shapes import GpuInfo, ModelShape, Precision
from ..model.vocab import ANN_TARGET_CONCURRENCY
from ..vllm.versions import ResolvedVersion, resolve
from ._layout import per_group

_LOCATION_PREFIX = re.compile(r"^\S+?:\d+: ")


def nccl_rules_apply(g: ServingGroup) -> bool:
    """Whether the NVIDIA fabric rules (NVLink, EFA, /dev/shm for NCCL) speak about this group's devices: not
    for vendors whose collectives run their own library (the vendor table's ``nccl``: TPU ICI, Gaudi HCCL,
    NeuronLink, Ascend HCCL, oneCCL, Rebellions, Furiosa)."""
    if g.accelerator_resource and not family_known(g.accelerator_resource):
        return False  # a family the vendor table does not know: SW204 says it cannot decide, nothing blocks
    return group_vendor(g) not in non_nccl_vendors()


def gpu_of(g: ServingGroup) -> GpuInfo | None:
    if g.gpu_override is not None:
        return g.gpu_override
    if g.pool is not None:
        return g.pool.gpu
    return None


def gpu_name(g: ServingGroup) -> str:
    gpu = gpu_of(g)
    if gpu is not None:
        return gpu.name
    return "custom GPU" if g.gpu_memory_gib_override else "unknown GPU"


def gpu_memory_gib(g: ServingGroup) -> float | None:
    """Memory per GPU as CUDA reports it, from the plan override, the pool, or its GPU."""
    if g.gpu_memory_gib_override:
        return g.gpu_memory_gib_override
    if group_vendor(g) == "aws":  # tensor parallelism counts NeuronCores; the catalog gives memory per device
        raise Undecidable("memory per NeuronCore", "the catalog gives memory per Neuron device, which its "
                          "NeuronCores share in a proportion set by the logical core size")
    if g.pool is not None:
        mem = known(g.pool.gpu_memory_gib, f"GPU memory of node pool `{g.pool.name}`")
        if mem:
            return float(mem)
        if g.pool.gpu is not None:
            return g.pool.gpu.memory_gib
    if g.gpu_override is not None:
        return g.gpu_override.memory_gib
    return None


def gpu_memory_gb(g: ServingGroup) -> float | None:
    """Nominal decimal GB per GPU (the seeds' ``gpu_gb``)."""
    if group_vendor(g) == "aws":
        gpu_memory_gib(g)  # raises: the memory per NeuronCore is not known
    gpu = gpu_of(g)
    if gpu is not None:
        return gpu.memory_gb
    mem = gpu_memory_gib(g)
    return mem * 1024**3 / 1e9 if mem else None


def require_model(g: ServingGroup):
    if g.model is None:
        if g.model_unknown:  # SW004 reports it once for the workload
            raise ModelNotKnown(g.model_unknown)
        if g.model_error:  # its config.json cannot be read: an input error the run reports (exit 2)
            raise ModelNotKnown(_LOCATION_PREFIX.sub("", g.model_error, count=1))
        raise Undecidable("the model")
    g.model_reads += 1
    return g.model


def precision(g: ServingGroup, model: ModelShape) -> Precision:
    """Precision of the weights vLLM will load for this group."""
    return weight_precision(model, known(g.engine.dtype, "dtype"), known(g.engine.quantization, "quantization"))


def tp_pp(g: ServingGroup) -> tuple[int, int]:
    tp = int(known(g.engine.tensor_parallel_size, "tensor_parallel_size"))
    pp = int(known(g.engine.pipeline_parallel_size, "pipeline_parallel_size"))
    return tp, pp


def expected_context(g: ServingGroup, config: LintConfig) -> int | None:
    return g.p95_context or config.p95_context_tokens


_CACHE_ATTR = "_shardwise_sizing"


def vllm_version(g: ServingGroup) -> ResolvedVersion:
    """The vLLM release the group runs: ``plan --vllm-version``, the image tag, or the current release."""
    return per_group(g, "vllm_version", _vllm_version)


def _vllm_version(g: ServingGroup) -> ResolvedVersion:
    if g.vllm_version:
        return resolve(g.vllm_version)
    if g.kind == "plan":
        return resolve(None, None, missing="--vllm-version not given")
    c = g.main_container
    if c is not None and is_unknown(c.image):
        return resolve(None, None, missing="the image is not known yet")
    return resolve(None, c.image if c is not None else None)


def _env_true(g: ServingGroup, name: str) -> bool:
    c = g.main_container
    value = c.env.get(name) if c is not None else None
    return isinstance(value, str) and value.strip().lower() in ("1", "true", "yes")


def engine_settings(g: ServingGroup) -> EngineSettings:
    """The group's vLLM engine arguments as the capacity model reads them (unknown values: Undecidable)."""
    return per_group(g, "engine_settings", _engine_settings)


def _engine_settings(g: ServingGroup) -> EngineSettings:
    e = g.engine
    tp, pp = tp_pp(g)
    mml = known(e.max_model_len, "max_model_len")
    if mml is None and e.extra.get("max_model_len") == "auto":
        mml = "auto"
    chunked = known(e.extra.get("enable_chunked_prefill"), "enable_chunked_prefill")
    return EngineSettings(
        tp=tp, pp=pp,
        dp=int(known(e.data_parallel_size, "data_parallel_size")),
        expert_parallel=bool(known(e.enable_expert_parallel, "enable_expert_parallel")),
        gpu_memory_utilization=utilization(e.gpu_memory_utilization),
        max_model_len=mml if mml == "auto" or mml is None else int(mml),
        max_num_seqs=known(e.max_num_seqs, "max_num_seqs"),
        max_num_batched_tokens=known(e.max_num_batched_tokens, "max_num_batched_tokens"),
        enable_chunked_prefill=None if chunked is None else bool(chunked),
        dtype=known(e.dtype, "dtype"),
        quantization=known(e.quantization, "quantization"),
        kv_cache_dtype=known(e.kv_cache_dtype, "kv_cache_dtype"),
        block_size=int(known(e.block_size, "block_size")) if e.block_size not in (None, 16) else None,
        enforce_eager=bool(known(e.enforce_eager, "enforce_eager")),
        allow_long_max_model_len=_env_true(g, "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
        kv_cache_memory_bytes=known(e.extra.get("kv_cache_memory_bytes"), "kv_cache_memory_bytes"),
    )


def utilization(value: Any) -> float | None:
    """The declared gpu_memory_utilization, or None for vLLM's default (the release decides it)."""
    v = known(value, "gpu_memory_utilization")
    return None if v is None else float(v)


def sizing(g: ServingGroup, config: LintConfig) -> ReplicaSizing | None:
    """The group's sizing (one engine, one data-parallel rank), or None when there is no GPU to size against.

    Cached on the group (several rules read it); raises Undecidable for unknown inputs.
    """
    key = (config.p95_context_tokens,)
    cached = g.__dict__.get(_CACHE_ATTR)
    if cached is not None and cached[0] == key:
        return cached[1]
    model = require_model(g)
    mem = gpu_memory_gib(g)
    result = None
    if mem:
        result = size_deployment(
            model, Device.of(gpu_of(g), mem), engine_settings(g), vllm_version(g),
            expected_context=expected_context(g, config),
        )
    g.__dict__[_CACHE_ATTR] = (key, result)
    return result


def sizer(g: ServingGroup, config: LintConfig) -> Sizer | None:
    """The group's model, GPU, settings and release, to size other layouts of it (None: no GPU to size on)."""
    model = require_model(g)
    mem = gpu_memory_gib(g)
    if not mem:
        return None
    return Sizer(model, Device.of(gpu_of(g), mem), engine_settings(g), vllm_version(g), expected_context(g, config))


def parallel(g: ServingGroup) -> Parallel:
    """The group's layout as the layout search sees it (raises :class:`Undecidable` on an unknown flag)."""
    from ._layout import layout

    lay = layout(g)
    if lay.world == 1:
        return Parallel(1)  # expert parallelism changes nothing on one GPU
    return Parallel(lay.tp, lay.pp, lay.dp, bool(known(g.engine.enable_expert_parallel, "enable_expert_parallel")))


def declared_load(g: ServingGroup, config: LintConfig) -> Load:
    """The load the team declared for the workload (docs/capacity-model.md, "Load"): the annotation
    ``shardwise.dev/target-concurrency`` (the stack's ``target_concurrency``) for the whole workload, spread
    over its replicas, at the declared p95 context. ``--max-num-seqs`` is vLLM's cap, never a load."""
    if g.target_concurrency is None:
        return Load(None, expected_context(g, config))
    replicas = known(g.replicas, "replicas")
    n = int(replicas) if isinstance(replicas, int) and replicas > 0 else 1
    return Load(g.target_concurrency, expected_context(g, config), n, g.output_tokens_per_second)


def declared_seqs(g: ServingGroup, config: LintConfig | None = None) -> tuple[int | None, str]:
    """The sequences one replica must hold, as declared, and how (``64 by annotation
    shardwise.dev/target-concurrency over 2 replicas``); (None, "no load declared") without a declared load."""
    load = declared_load(g, config or LintConfig())
    if load.per_replica is None:
        return None, "no load declared"
    return load.per_replica, load_text(load, g)


def load_source(g: ServingGroup) -> str:
    """Where the group's load is declared: ``plan --concurrency``, else the annotation."""
    return "--concurrency" if g.kind == "plan" else f"annotation {ANN_TARGET_CONCURRENCY}"


def load_text(load: Load, g: ServingGroup) -> str:
    """``64 by annotation shardwise.dev/target-concurrency`` (``… over 2 replicas`` when there are several)."""
    over = f" over {load.replicas} replicas" if load.replicas > 1 else ""
    return f"{load.concurrency:,} by {load_source(g)}{over}"


def context_text(g: ServingGroup, config: LintConfig, s: ReplicaSizing) -> str:
    """``8,192 tokens (p95 context)`` or ``8,192 tokens (max_model_len; no p95 context declared)``."""
    how = "p95 context" if expected_context(g, config) else "max_model_len; no p95 context declared"
    return f"{s.expected_context:,} tokens ({how})"


def fmt_gib(x: float) -> str:
    return f"{x:.1f} GiB"


def layout_text(s: ReplicaSizing) -> str:
    """``TP4×PP1``, with ``×DP8 EP`` when data-parallel ranks (and expert parallelism) are in play."""
    text = f"TP{s.tensor_parallel_size}×PP{s.pipeline_parallel_size}"
    if s.data_parallel_size > 1:
        text += f"×DP{s.data_parallel_size}"
    if s.expert_parallel:
        text += " EP"
    return text


def _round_len(n: int) -> int:
    """A --max-model-len people would write: down to a multiple of 1,024 (of 16 below that)."""
    return n // 1024 * 1024 if n >= 1024 else max(16, n // 16 * 16)


def fits_instead(g: ServingGroup, s: ReplicaSizing, config: LintConfig) -> str:
    """What makes one max_model_len request fit: the max_model_len that does, and the cheapest change that
    keeps max_model_len (a higher utilization, an fp8 KV cache, twice the tensor parallelism)."""
    parts: list[str] = []
    fit = _round_len(s.max_model_len_fit_sure)
    if 16 <= fit < s.max_model_len:
        parts.append(f"--max-model-len {fit} fits")
    base = engine_settings(g)
    model = require_model(g)
    device = Device.of(gpu_of(g), s.gpu_memory_gib)
    version = vllm_version(g)
    candidates: list[tuple[str, EngineSettings]] = []
    current = s.gpu_memory_utilization  # as sized: the release's default when none is set
    for util in (0.92, 0.95):
        if util > current:
            candidates.append((f"--gpu-memory-utilization {util:g}", replace(base, gpu_memory_utilization=util)))
    if not base.kv_cache_dtype.lower().startswith("fp8") and model.mla is None:
        candidates.append(("--kv-cache-dtype fp8", replace(base, kv_cache_dtype="fp8")))
    per_node = g.pool.gpus_per_node if g.pool is not None else None
    room = per_node if isinstance(per_node, int) else 8
    if base.tp * 2 * base.pp <= room and model.num_attention_heads % (base.tp * 2) == 0:
        candidates.append((f"--tensor-parallel-size {base.tp * 2}", replace(base, tp=base.tp * 2)))
    for text, settings in candidates:
        r = size_deployment(model, device, settings, version, expected_context=expected_context(g, config))
        if r.verdict == "starts" and r.margin_verdict == "starts":  # a change that starts, margin included
            parts.append(f"cheapest change keeping max_model_len {s.max_model_len:,}: {text}")
            break
    return "; ".join(parts)


def replicas_text(r: Replication, current: Parallel, how: str, context: str,
                  source: str = f"annotation {ANN_TARGET_CONCURRENCY}") -> tuple[str, bool]:
    """What the replicas hold together against the load, both numbers, and whether that is sure."""
    alt = r.alt
    f = alt.fit
    a = f.sizing
    sized = (f"{f.parallel.text()} starts with {a.weights_gib_per_gpu:.1f} GiB of weights and "
             f"{a.kv_cache_gib_per_gpu:.1f} GiB (±{a.error_band_gib:.1f}) of KV cache per GPU")
    them = f"{alt.replicas} replicas × {f.parallel.text()} on the same {current.world} GPUs"
    if r.need is None:
        if not r.suggest:
            return (f"{sized}, but {them} would hold {r.together:,} sequences of {context} together where "
                    f"{current.text()} holds {r.current_holds:,}: replicas run without the all-reduce but hold "
                    f"fewer sequences; declare the load ({source}) to have it "
                    "judged"), False
        return (f"{sized}: {them} hold {r.together:,} sequences of {context} together, at least the "
                f"{r.current_holds:,} {current.text()} holds; no load is declared, so declare it ({source}) to make "
                "this finding sure"), False
    held = (f"{them} hold {'' if f.sure else 'about '}{r.together:,} sequences of {context} together, at least "
            f"the {r.need:,} one replica must hold ({how}; {current.text()} holds {r.current_holds:,})")
    if f.sure:
        return f"{sized}: {held}", True
    return (f"{sized}: {held}: within the estimate's error band, so the KV cache vLLM logs at start-up "
            "settles it"), False
