"""Shared helpers for the capacity and topology rules: the sizing of one serving group."""

from __future__ import annotations

import re

from ..catalog.types import GpuInfo, ModelShape, Precision
from ..engine import LintConfig
from ..model import ModelNotKnown, ServingGroup, Undecidable, known
from ..sizing import ReplicaSizing, size_replica, weight_precision

_LOCATION_PREFIX = re.compile(r"^\S+?:\d+: ")


#: Accelerators whose devices are not joined by NVLink and whose collectives do not run NCCL over EFA or
#: InfiniBand: Google TPUs (ICI), Intel Gaudi (on-chip RoCE), AWS Trainium/Inferentia (NeuronLink).
NOT_NCCL_VENDORS = frozenset({"google", "intel", "aws"})


def nccl_rules_apply(g: ServingGroup) -> bool:
    """Whether the NVIDIA fabric rules (NVLink, EFA, /dev/shm for NCCL) speak about this group's devices."""
    return g.accelerator not in NOT_NCCL_VENDORS


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
    if g.accelerator == "aws":  # tensor parallelism counts NeuronCores; the catalog gives memory per device
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
    if g.accelerator == "aws":
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


def sizing(g: ServingGroup, config: LintConfig) -> ReplicaSizing | None:
    """The group's replica sizing, or None when there is no GPU to size against.

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
        tp, pp = tp_pp(g)
        e = g.engine
        result = size_replica(
            model,
            mem,
            tp=tp,
            pp=pp,
            gpu_memory_utilization=float(known(e.gpu_memory_utilization, "gpu_memory_utilization")),
            max_model_len=known(e.max_model_len, "max_model_len"),
            max_num_seqs=known(e.max_num_seqs, "max_num_seqs"),
            max_num_batched_tokens=known(e.max_num_batched_tokens, "max_num_batched_tokens"),
            expected_context=expected_context(g, config),
            dtype=known(e.dtype, "dtype"),
            quantization=known(e.quantization, "quantization"),
            kv_cache_dtype=known(e.kv_cache_dtype, "kv_cache_dtype"),
            block_size=int(known(e.block_size, "block_size")),
            enforce_eager=bool(known(e.enforce_eager, "enforce_eager")),
        )
    g.__dict__[_CACHE_ATTR] = (key, result)
    return result


def fmt_gib(x: float) -> str:
    return f"{x:.1f} GiB"
