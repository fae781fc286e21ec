"""The front door to the capacity model: from one :class:`~shardwise.rules.model.ServingGroup` to what it sizes.

Every reader of a group's capacity comes in here — the rules, the report, ``plan``, the stack export and the
components' ``sizing`` output — so they read the same engine settings, device, vLLM release and parallel
layout, and agree by construction:

* :func:`engine_settings` — the group's vLLM flags as the capacity model reads them
  (:class:`~.sizing.EngineSettings`; an unknown flag raises :class:`~shardwise.rules.model.Undecidable`);
* :func:`device`, :func:`gpu_of`, :func:`gpu_memory_gib` — the GPU it lands on;
* :func:`vllm_version` — the release it runs;
* :func:`layout` and :func:`parallel` — its parallel layout (``TP × PP × DP``, pods per group);
* :func:`sizing` and :func:`sizer` — one engine of it sized, and the same inputs to size other layouts;
* :func:`summary` — one frozen record of all that, the one the report and the stack export print.

What a group yields is made once per group (:func:`per_group`) and kept beside it, not on it: a group does not
change while the rules run, and several rules ask for the same thing.

A new engine flag that sizing reads touches four files: ``model/__init__.py`` (a typed field of
:class:`~shardwise.rules.model.EngineArgs`), ``vllm/args.py`` (its parsing), this module's
:func:`engine_settings` (the field into :class:`~.sizing.EngineSettings`) and ``capacity/sizing.py`` (the
setting and what it changes).
"""

from __future__ import annotations

import re
from _weakref import ref as weak_ref  # weakref.ref itself: the weakref module (with _weakrefset) costs 2M instructions
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol, TypeVar

from ..catalog.accelerators import (
    HIDES_EVERY_DEVICE,
    MIG_DEVICE_CLASSES,
    group_vendor,
    mig_listed_gib,
    mig_memory_eighths,
    mig_profile_name,
    mig_profiles_of,
    single_strategy_profile,
    visible_devices_envs,
)
from ..catalog.accelerators import single_strategy_label as _single_strategy_label
from ..catalog.accelerators import single_strategy_unsure as _single_strategy_unsure
from ..catalog.partitions import ASSUMED_MODE
from ..model import ModelNotKnown, ServingGroup, Undecidable, is_unknown, known, layout_text, world_size
from ..model.shapes import GpuInfo, ModelShape, Precision
from ..model.unknown import holds_placeholder
from ..model.vocab import ANN_VLLM_VERSION, GPU_RESOURCE
from ..vllm.args import is_unresolved
from ..vllm.images import image_info
from ..vllm.mm_args import KWARGS_FLAG, LIMIT_FLAG
from ..vllm.support import (
    cudagraph_mode,
    json_object,
    legacy_speculative_config,
    speculative_draft_tp,
    speculative_method,
    speculative_model,
    speculative_tokens,
)
from ..vllm.versions import ResolvedVersion, command_script, dated_by_env, has_install, pip_pin, resolve
from .layout import Load, Parallel, Sizer, weight_load_refusals
from .sizing import (
    LENGTH_BY_RELEASE,
    Device,
    EngineSettings,
    ReplicaSizing,
    engine_run,
    engine_settings_of,
    exact_weights,
    float32_assumed,
    possible_limits,
    size_deployment,
    weight_precision,
)

T = TypeVar("T")


class Context(Protocol):
    """What sizing reads of a run's settings (:class:`shardwise.rules.engine.LintConfig` has it): the p95
    context for workloads that do not declare one."""

    @property
    def p95_context_tokens(self) -> int | None: ...


# --------------------------------------------------------------------------------------------------
# Made once per group
# --------------------------------------------------------------------------------------------------

#: What each live group yielded, by the group's identity: dropped when the group is (a weak reference's callback,
#: kept in the entry under :data:`_REF`; ``weakref.finalize`` cost three times as much per group). The reference is
#: ``weakref.ref`` taken from the built-in ``_weakref``, where ``weakref`` takes it: importing ``weakref`` and
#: ``_weakrefset`` was 2M instructions of a one-file lint's start-up, for this name only.
_MADE: dict[Any, dict[Any, Any]] = {}
_REF = object()


def _forget(key: int, _ref: Any) -> None:
    _MADE.pop(key, None)


def forget(g: ServingGroup) -> None:
    """Drop what :func:`per_group` kept for ``g`` (the policy pack's stack reading a group the one-resource rules
    read before, with the node pool it resolves since: ``crossguard.AnalyzedInputs.kubernetes_again``)."""
    _MADE.pop(id(g), None)


def per_group(g: ServingGroup, name: str, make: Callable[[ServingGroup], T]) -> T:
    """``make(g)``, made once per group and kept beside it (an Undecidable is raised again on each call)."""
    key = id(g)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = {_REF: weak_ref(g, partial(_forget, key))}
    if name in made:
        return made[name]  # type: ignore[no-any-return]
    value = make(g)
    made[name] = value
    return value


# --------------------------------------------------------------------------------------------------
# The model and the GPU
# --------------------------------------------------------------------------------------------------

_LOCATION_PREFIX = re.compile(r"^\S+?:\d+: ")


def require_model(g: ServingGroup) -> ModelShape:
    """The group's model shape (raises :class:`ModelNotKnown` or :class:`Undecidable` when there is none)."""
    if g.model is None:
        if g.model_unknown:  # SW004 reports it once for the workload
            raise ModelNotKnown(g.model_unknown)
        if g.model_error:  # its config.json cannot be read: an input error the run reports (exit 2)
            raise ModelNotKnown(_LOCATION_PREFIX.sub("", g.model_error, count=1))
        raise Undecidable("the model")
    g.model_reads += 1
    return g.model


def gpu_of(g: ServingGroup) -> GpuInfo | None:
    """The catalog GPU the group lands on: ``plan``'s, else its node pool's."""
    g.device_reads += 1
    if g.gpu_override is not None:
        return g.gpu_override
    if g.pool is not None:
        return g.pool.gpu
    return None


def single_strategy_label(g: ServingGroup) -> str | None:
    """:func:`..catalog.accelerators.single_strategy_label`, made once per group: :func:`_mig_slice` and SW201's and
    SW204's MIG reads (``checks._sharing.mig_devices``) asked it about four times a group, each walking the node
    selector's, the pool's and the affinity's labels again (issue 30)."""
    return per_group(g, "single_strategy_label", _single_strategy_label)


def single_strategy_unsure(g: ServingGroup) -> str | None:
    """:func:`..catalog.accelerators.single_strategy_unsure`, made once per group (as :func:`single_strategy_label`)."""
    return per_group(g, "single_strategy_unsure", _single_strategy_unsure)


def mig_slice(g: ServingGroup) -> tuple[GpuInfo, str, int] | None:
    """:func:`_mig_slice`, made once per group: the GPU's name and memory and the remedies ask it, about six times a
    group, and each read the placement labels again (an Undecidable is raised again on each call)."""
    return per_group(g, "mig_slice", _mig_slice)


def _mig_slice(g: ServingGroup) -> tuple[GpuInfo, str, int] | None:
    """(the GPU, the MIG profile, the eighths of the GPU's memory one slice holds) of a group whose pods run on MIG
    devices: a MIG resource (``nvidia.com/mig-3g.40gb``, the device plugin's mixed strategy), ``nvidia.com/gpu`` on
    nodes the pods are pinned to MIG's single strategy, whose GPU Feature Discovery product names the profile
    (``NVIDIA-A100-SXM4-80GB-MIG-3g.40gb``), or a resource claim of DeviceClass ``mig.nvidia.com`` (mig21). None
    where the pods do not run on MIG devices as far as the inputs say, or land on no GPU the inputs name. The slice is
    sized, not the GPU: its memory is the profile's share of the GPU's (NVIDIA MIG user guide, "Supported MIG
    Profiles"; accelerators.json ``mig_profiles``); the GPU's other properties (compute capability, the dtypes it
    runs) are the slice's too. Raises :class:`Undecidable` where the slice's size is not known: a profile the guide
    does not list for the GPU, a claim whose selectors name none, or ``nvidia.com/mig.strategy=single`` with no
    product label that says MIG or a whole GPU (GFD writes the strategy on MIG-disabled nodes too, review23)."""
    c = g.main_container
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None)
    profile = mig_profile_name(resource)
    label = None
    if profile is None and c is not None and c.resource_claims:
        if c.claim_class not in MIG_DEVICE_CLASSES:
            return None
        # mig21: a resource claim of MIG devices (NVIDIA's DRA driver) is one slice of the profile its selectors name
        label = f"a resource claim of DeviceClass {c.claim_class}"
        profile = c.claim_mig_profile
    elif profile is None:
        if resource not in (None, GPU_RESOURCE):
            return None
        label = single_strategy_label(g)
        if label is None:
            label = single_strategy_unsure(g)
            if label is None:
                return None
        profile = single_strategy_profile(g)
    gpu = g.gpu_override or (g.pool.gpu if g.pool is not None else None)
    if gpu is None:
        if g.pool is None:
            return None  # no GPU named at all: SW206 says so
        raise Undecidable(f"the memory of one MIG device ({resource if label is None else label})",
                          f"the GPU of node pool `{g.pool.name}` it is a slice of is not known")
    if profile is None and c is not None and c.resource_claims:
        claims = ", ".join(f"`{n}`" for n in c.resource_claims)
        raise Undecidable(f"the memory of one MIG device of the {gpu.name}",
                          f"the resource claim {claims} takes it from DeviceClass {c.claim_class}, and no selector of "
                          "its requests names the profile (NVIDIA's DRA driver publishes it as "
                          "device.attributes[\"gpu.nvidia.com\"].profile), so any slice may be allocated")
    if profile is None:
        raise Undecidable(f"the memory of one nvidia.com/gpu of the {gpu.name}",
                          f"its nodes carry {label}, which GPU Feature Discovery writes under the device plugin's "
                          "single strategy whether MIG is enabled or not, so one nvidia.com/gpu is a MIG device or a "
                          "whole GPU, and no label the pods require says which (GPU Feature Discovery's "
                          "nvidia.com/gpu.product ends in the MIG profile where it is one: ...-MIG-3g.40gb)")
    eighths = mig_memory_eighths(gpu.name, profile)
    if eighths is None:
        known_ = ", ".join(mig_profiles_of(gpu.name)) or "none"
        raise Undecidable(f"the memory of one MIG {profile} device of the {gpu.name}",
                          f"NVIDIA's MIG user guide (\"Supported MIG Profiles\") lists no {profile} profile for it "
                          f"(the table here knows: {known_})")
    return gpu, profile, eighths


def mig_slice_or_none(g: ServingGroup) -> tuple[GpuInfo, str, int] | None:
    """:func:`mig_slice`, None where it is not known (for a message or a remedy, which must not raise)."""
    try:
        return mig_slice(g)
    except Undecidable:
        return None


def gpu_name(g: ServingGroup) -> str:
    gpu = gpu_of(g)
    mig = mig_slice_or_none(g)
    if mig is not None:
        return f"{mig[0].name} MIG {mig[1]}"
    if gpu is not None:
        # amd17: one partition of an AMD Instinct GPU is named as one (``MI300X cpx_nps4 1/8``), not the whole GPU
        size = g.pool.labels.get(ASSUMED_MODE, "spx") if g.pool is not None and g.gpu_override is None else "spx"
        return gpu.name if size.startswith("spx") else f"{gpu.name} {size}"
    if g.gpu_memory_gib_override:
        return "custom GPU"
    mem = g.pool.gpu_memory_gib if g.pool is not None else None
    if isinstance(mem, int | float) and not isinstance(mem, bool) and mem > 0:
        # mend8: a GPU the catalog does not know, its memory read from the pool's labels (shardwise.dev/gpu-memory-gib,
        # nvidia.com/gpu.memory, amd.com/gpu.vram, Karpenter's: catalog.hardware._pool_from_labels, the one place a
        # pool gets a memory without a GPU) is named by what is known, not "unknown GPU"
        return f"GPU labelled {mem:g} GiB"
    return "unknown GPU"


def gpu_memory_gib(g: ServingGroup) -> float | None:
    """Memory per GPU as CUDA reports it, from the plan override, the pool, or its GPU."""
    g.device_reads += 1
    if g.gpu_memory_gib_override:
        return g.gpu_memory_gib_override
    if group_vendor(g) == "aws":  # tensor parallelism counts NeuronCores; the catalog gives memory per device
        raise Undecidable("memory per NeuronCore", "the catalog gives memory per Neuron device, which its "
                          "NeuronCores share in a proportion set by the logical core size")
    mig = mig_slice(g)
    if mig is not None:  # mig20: one MIG device, the profile's share of the GPU's memory (a label's is the GPU's)
        listed = mig_listed_gib(mig[0].name, mig[1])  # mig21: what nvidia-smi mig -lgip lists, where known
        return listed if listed is not None else round(mig[0].memory_gib * mig[2] / 8, 2)
    if g.pool is not None:
        if is_unknown(g.pool.gpu_memory_gib) and (g.pool.gpu_memory_why or g.pool.hardware_why):
            raise Undecidable(f"GPU memory of node pool `{g.pool.name}`", g.pool.gpu_memory_why or g.pool.hardware_why)
        mem = known(g.pool.gpu_memory_gib, f"GPU memory of node pool `{g.pool.name}`")
        if mem:
            return float(mem)
        if g.pool.gpu is not None:
            return g.pool.gpu.memory_gib
    if g.gpu_override is not None:
        return g.gpu_override.memory_gib
    return None


def gpu_memory_gb(g: ServingGroup) -> float | None:
    """Nominal decimal GB per GPU (``gpus_needed``'s ``gpu_gb``)."""
    if group_vendor(g) == "aws":
        gpu_memory_gib(g)  # raises: the memory per NeuronCore is not known
    mig = mig_slice(g)
    if mig is not None:
        return mig[0].memory_gb * mig[2] / 8
    gpu = gpu_of(g)
    if gpu is not None:
        return gpu.memory_gb
    mem = gpu_memory_gib(g)
    return mem * 1024**3 / 1e9 if mem else None


def tpu_of(g: ServingGroup) -> str | None:
    """The Google TPU a group runs on (the catalog's name, ``TPU-v5e``, else ``Google TPU``), or None where it does
    not: its pods request ``google.com/tpu`` or its pool's accelerator is a TPU.

    The capacity model follows the memory profile of vLLM's CUDA and ROCm workers. vLLM's TPU backend sizes its KV
    cache another way (the 0.11.0 wheel's vllm/v1/worker/tpu_worker.py ``determine_available_memory``: XLA's
    ``bytes_limit`` × gpu_memory_utilization less the memory in use after its profile run × 1.02, the KV cache cut
    by the head size padded to a multiple of 128), with no CUDA context, NCCL communicators or CUDA graphs, and it
    loads other weight formats (that wheel's vllm/platforms/tpu.py ``supported_quantization``: fp8, tpu_int8,
    compressed-tensors; no AWQ or GPTQ); from later releases the tpu_inference plugin runs it (0.34.0's
    vllm/platforms/tpu.py imports it). So a TPU is not sized: :func:`device` gives None, and SW101 says the capacity
    is not checked."""
    pool_gpu = g.pool.gpu if g.pool is not None else None
    if group_vendor(g) != "google" and (pool_gpu is None or pool_gpu.vendor != "google"):
        return None
    gpu = g.gpu_override or pool_gpu
    return gpu.name if gpu is not None and gpu.vendor == "google" else "Google TPU"


def device(g: ServingGroup) -> Device | None:
    """The GPU as the capacity model sizes it (None: no GPU memory to size against, or a TPU: :func:`tpu_of`)."""
    if tpu_of(g) is not None:
        return None
    mem = gpu_memory_gib(g)
    if not mem:
        return None
    link = domain = None
    if g.pool is not None:  # the node pool's own interconnect, where it says it (custom all-reduce reads it)
        p = g.pool
        link = None if is_unknown(p.interconnect) else p.interconnect
        domain = None if is_unknown(p.nvlink_domain_size) else p.nvlink_domain_size
        per_node = None if is_unknown(p.gpus_per_node) else p.gpus_per_node
        if domain and per_node:
            domain = min(int(domain), int(per_node))  # custom all-reduce stays within a node
    return Device.of(gpu_of(g), mem, link, domain)


# --------------------------------------------------------------------------------------------------
# The release, the engine settings, the layout
# --------------------------------------------------------------------------------------------------


def vllm_version(g: ServingGroup) -> ResolvedVersion:
    """The vLLM release the group runs: ``plan --vllm-version``, the stack's ``vllm_version`` (or the manifest's
    annotation), the release its command installs with pip (``pip install vllm==0.10.0``: :func:`.versions.pip_pin`),
    the image tag, or the current release."""
    return per_group(g, "vllm_version", _vllm_version)


def _vllm_version(g: ServingGroup) -> ResolvedVersion:
    if g.vllm_version:
        return resolve(g.vllm_version)
    # no release named: the engine's VLLM_ALL2ALL_BACKEND dates it (read by no release after 0.15.1)
    return dated_by_env(_release_named(g), engine_env(g))


def _release_named(g: ServingGroup) -> ResolvedVersion:
    if g.kind == "plan":
        return resolve(None, None, missing="--vllm-version not given")
    c = g.main_container
    image = c.image if c is not None else None
    pinned = pip_pin(_script(c), image if isinstance(image, str) and not is_unknown(image) else None) \
        if c is not None else None
    if pinned is not None:
        found = pinned  # vLLM installed at start-up replaces the image's
    elif is_unknown(image):
        return resolve(None, None, missing="the image is not known yet")
    else:
        found = resolve(None, image)
    # a manifest: say how to name it (a stack or component declares its vllm_version, newuser11)
    if found.source == "assumed" and c is not None and g.kind not in _STACK_KINDS and not g.declared:
        return replace(found, detail=f"{found.detail}; declare it with the annotation {ANN_VLLM_VERSION}")
    return found


#: Workloads a stack or a component declares: their release is the stack's ``vllm_version``, not an annotation.
_STACK_KINDS = frozenset({"VllmService", "VllmMultiNode"})


def tp_pp(g: ServingGroup) -> tuple[int, int]:
    tp = int(known(g.engine.tensor_parallel_size, "tensor_parallel_size"))
    pp = int(known(g.engine.pipeline_parallel_size, "pipeline_parallel_size"))
    return tp, pp


def precision(g: ServingGroup, model: ModelShape) -> Precision:
    """Precision of the weights vLLM will load for this group."""
    return weight_precision(model, known(g.engine.dtype, "dtype"), known(g.engine.quantization, "quantization"))


def engine_env(g: ServingGroup) -> Mapping[str, Any]:
    """The environment the engine runs with: its container's, else the one ``plan --env`` states for the group."""
    c = g.main_container
    return c.env if c is not None else g.engine_env


#: The engine's environment variables the capacity model reads (:func:`env_settings`); ``plan --env`` takes these.
SIZING_ENV = ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_USE_FLASHINFER_SAMPLER", "VLLM_USE_V1",
              "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "VLLM_FUSED_MOE_CHUNK_SIZE", "VLLM_ALL2ALL_BACKEND",
              "VLLM_DEEPEP_BUFFER_SIZE_MB", "VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE", "VLLM_MOE_DP_CHUNK_SIZE",
              "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM", "VLLM_USE_FLASHINFER_MOE_FP8", "VLLM_ROCM_USE_AITER",
              "VLLM_ROCM_USE_AITER_MOE")
#: The ones among them that take a count, not a switch (vLLM reads them as ``int(...)``).
COUNT_ENV = ("VLLM_FUSED_MOE_CHUNK_SIZE", "VLLM_DEEPEP_BUFFER_SIZE_MB", "VLLM_MOE_DP_CHUNK_SIZE")
#: The one among them that takes a word (a backend's name).
WORD_ENV = ("VLLM_ALL2ALL_BACKEND",)
#: The values of the switches among them the model reads as set (vLLM reads them as ``bool(int(...))``).
SWITCH_VALUES = ("0", "1", "true", "false")


def env_settings(env: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`EngineSettings` fields the engine's environment sets: ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``,
    ``VLLM_USE_FLASHINFER_SAMPLER`` (the sampler's warm-up, :func:`.sizing.sampler_kind`), ``VLLM_USE_V1`` and
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (whether the CUDA-graph estimate comes out of the KV budget,
    :func:`.sizing.cudagraph_estimate_applied`), ``VLLM_USE_DEEP_GEMM``, ``VLLM_MOE_USE_DEEP_GEMM`` and
    ``VLLM_USE_FLASHINFER_MOE_FP8`` (whether block-FP8 experts run on DeepGEMM, :func:`.sizing.deepgemm_moe_picked`),
    ``VLLM_ROCM_USE_AITER`` and ``VLLM_ROCM_USE_AITER_MOE`` (whether a ROCm engine's experts run AITER's kernel
    rather than the Triton one, :func:`.sizing.moe_row_bytes`) and ``VLLM_FUSED_MOE_CHUNK_SIZE`` (the tokens a
    fused-MoE layer routes at once where the release reads it, :func:`.sizing.moe_chunk_tokens`; a positive integer,
    as ``int(...)`` reads it: vLLM's loop divides by it), and
    for a data-parallel engine with expert parallelism ``VLLM_ALL2ALL_BACKEND``, ``VLLM_DEEPEP_BUFFER_SIZE_MB``,
    ``VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE`` and ``VLLM_MOE_DP_CHUNK_SIZE`` (its DeepEP buffers,
    :func:`.sizing.all2all_buffers_gib`)."""
    out: dict[str, Any] = {}
    value = env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes"):
        out["allow_long_max_model_len"] = True
    for name, key in (("VLLM_USE_FLASHINFER_SAMPLER", "flashinfer_sampler"), ("VLLM_USE_V1", "use_v1"),
                      ("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "cudagraph_profiling"),
                      ("VLLM_USE_DEEP_GEMM", "use_deep_gemm"), ("VLLM_MOE_USE_DEEP_GEMM", "moe_use_deep_gemm"),
                      ("VLLM_USE_FLASHINFER_MOE_FP8", "flashinfer_moe_fp8"), ("VLLM_ROCM_USE_AITER", "rocm_aiter"),
                      ("VLLM_ROCM_USE_AITER_MOE", "rocm_aiter_moe")):
        flag = env.get(name)
        if isinstance(flag, str) and flag.strip().lower() in SWITCH_VALUES:
            out[key] = flag.strip().lower() in ("1", "true")
    chunk = env.get("VLLM_FUSED_MOE_CHUNK_SIZE")
    if isinstance(chunk, str) and chunk.strip().isdecimal() and int(chunk) > 0:
        out["moe_chunk_size"] = int(chunk)
    backend = env.get("VLLM_ALL2ALL_BACKEND")
    if isinstance(backend, str) and backend.strip():
        out["all2all_backend_env"] = backend.strip().lower()
    for name, key in (("VLLM_DEEPEP_BUFFER_SIZE_MB", "deepep_buffer_mb"),
                      ("VLLM_MOE_DP_CHUNK_SIZE", "moe_dp_chunk_size")):
        count = env.get(name)
        if isinstance(count, str) and count.strip().isdecimal() and int(count) > 0:
            out[key] = int(count)
    intra = env.get("VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE")
    if isinstance(intra, str) and intra.strip().lower() in SWITCH_VALUES:
        out["deepep_force_intra_node"] = intra.strip().lower() in ("1", "true")
    return out


def utilization(value: Any) -> float | None:
    """The declared gpu_memory_utilization, or None for vLLM's default (the release decides it)."""
    v = known(value, "gpu_memory_utilization")
    return None if v is None else float(v)


def engine_settings(g: ServingGroup) -> EngineSettings:
    """The group's vLLM engine arguments as the capacity model reads them (unknown values: Undecidable)."""
    return per_group(g, "engine_settings", _engine_settings)


def _engine_settings(g: ServingGroup, unseen_pcp_as_one: bool = False, tp_as: int = 0) -> EngineSettings:
    """``unseen_pcp_as_one``: a ``--prefill-context-parallel-size`` not known yet taken as 1, the fewest GPUs and
    the least non-torch memory (:func:`weights_refused_whatever_pcp` only); else :func:`_known_pcp` decides.
    ``tp_as``: a ``--tensor-parallel-size`` not known yet taken as that value (:func:`weights_refused_whatever_tp`
    only); 0: the value written, or :class:`Undecidable`."""
    e = g.engine
    if tp_as > 0 and is_unknown(e.tensor_parallel_size):
        tp, pp = tp_as, int(known(e.pipeline_parallel_size, "pipeline_parallel_size"))
    else:
        tp, pp = tp_pp(g)
    mml = known(e.max_model_len, "max_model_len")
    _length_override_known(g, mml)
    chunked = known(e.enable_chunked_prefill, "enable_chunked_prefill")
    block = known(e.block_size, "block_size")
    # --speculative-config, else the flags of the releases before it (--speculative-model, ...)
    spec = e.extra.get("speculative_config") or legacy_speculative_config(e.extra)
    # made from a dict, not through the frozen class's __init__ (:func:`.sizing.engine_settings_of`): once per group
    return engine_settings_of({
        "tp": tp, "pp": pp,
        "dp": int(known(e.data_parallel_size, "data_parallel_size")),
        "expert_parallel": bool(known(e.enable_expert_parallel, "enable_expert_parallel")),
        "gpu_memory_utilization": utilization(e.gpu_memory_utilization),
        "max_model_len": mml if mml == "auto" or mml is None else int(mml),
        "max_num_seqs": known(e.max_num_seqs, "max_num_seqs"),
        "max_num_batched_tokens": known(e.max_num_batched_tokens, "max_num_batched_tokens"),
        "enable_chunked_prefill": None if chunked is None else bool(chunked),
        "dtype": known(e.dtype, "dtype"),
        "quantization": known(e.quantization, "quantization"),
        "kv_cache_dtype": known(e.kv_cache_dtype, "kv_cache_dtype"),
        "block_size": None if block is None else int(block),
        "enforce_eager": bool(known(e.enforce_eager, "enforce_eager")),
        "enable_prefix_caching": _prefix_caching(e.extra.get("enable_prefix_caching")),
        "mamba_cache_dtype": _mamba_dtype(e.extra.get("mamba_cache_dtype")),
        "mamba_ssm_cache_dtype": _mamba_dtype(e.extra.get("mamba_ssm_cache_dtype")),
        "kv_cache_memory_bytes": known(e.kv_cache_memory_bytes, "kv_cache_memory_bytes"),
        "speculative_method": speculative_method(spec),
        "speculative_tokens": speculative_tokens(spec),
        "speculative_model": speculative_model(spec),
        "speculative_draft_tp": speculative_draft_tp(spec),
        "cudagraph_mode": cudagraph_mode(e.extra.get("compilation_config")),
        "async_scheduling": _prefix_caching(e.extra.get("async_scheduling")),  # a bool as written, else the default
        "extensible_kv_cache": _extensible(e.extra),
        "pooling": pooling_runner(e.extra),
        "all2all_backend": _all2all_flag(e.extra.get("all2all_backend"), g),
        **({} if unseen_pcp_as_one and _unseen(e.extra.get("prefill_context_parallel_size")) else _known_pcp(g)),
        **_eplb(g),
        "cpu_offload_bytes": _offload_bytes(g),
        **_flashinfer(g),
        **_multimodal(g),
    })


#: The ``--hf-overrides`` keys, top level or dotted (``--hf-overrides.rope_scaling``), that may set the context limit
#: vLLM derives (``catalog.hfconfig.HF_OVERRIDE_LENGTH_KEYS``; ``rope_parameters``, the name transformers 5 gives
#: ``rope_scaling`` (its ``PreTrainedConfig.rope_scaling`` setter sets it); ``text_config``, which may hold them).
_LENGTH_OVERRIDES = ("max_position_embeddings", "rope_scaling", "rope_parameters", "text_config")


def _unread_override(extra: Mapping[str, Any]) -> str | None:
    """The engine flag (its ``EngineArgs.extra`` key) whose value may override the context limit vLLM derives and
    is not known: ``--hf-overrides`` (or ``--rope-scaling`` before 0.11.1) given as a ``$(VAR)`` the inputs do not
    resolve, a template placeholder (``{{ .Values.x }}``, ``${X}``) or an unknown at preview, whole or in its JSON;
    the dotted keys that reach :data:`_LENGTH_OVERRIDES`. None where every such value is written."""
    for key, value in extra.items():
        if key in ("hf_overrides", "rope_scaling"):
            pass
        elif key.startswith("hf_overrides."):
            if key[len("hf_overrides."):].split(".", 1)[0] not in _LENGTH_OVERRIDES:
                continue
        else:
            continue
        if is_unknown(value) or (isinstance(value, str) and (is_unresolved(value) or holds_placeholder(value))):
            return key
    return None


def _length_override_known(g: ServingGroup, mml: Any) -> None:
    """Raise :class:`Undecidable` naming the flag where an override the inputs name but shardwise cannot read
    (:func:`_unread_override`: a ``$(VAR)``, a shell's ``$(cat FILE)``, a template placeholder, an unknown at preview)
    is given. vLLM derives the model's limit after ``--hf-overrides`` (``ModelConfig.__post_init__``, then
    ``get_and_verify_max_len``), and the override may set any config key the sizing reads (the layers, the KV heads,
    ``max_position_embeddings``): with it unread neither the length nor the sizing is known, whatever
    ``--max-model-len`` says (review16 judged a length written within the checkpoint's limit, but an override may
    lower the limit below it or change the KV cache a token needs; hfover19). ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``
    takes a long length either way, not the sizing."""
    del mml  # the length written does not settle it (above)
    if not any(k == "rope_scaling" or k.startswith("hf_overrides") for k in g.engine.extra):
        return  # most workloads: no override at all
    flag = _unread_override(g.engine.extra)
    if flag is None or g.model is None:
        return
    raise Undecidable(flag)


def _all2all_flag(value: Any, g: ServingGroup) -> str | None:
    """``--all2all-backend`` as written, lower case; None where absent. A value the linter cannot see (an unknown at
    preview, a ``$(VAR)`` the inputs do not resolve, a template placeholder) is :class:`Undecidable` where it decides
    DeepEP's buffers (:func:`.sizing.all2all_buffers_gib`: data parallelism with expert parallelism), else not read."""
    if is_unknown(value) or (isinstance(value, str) and (is_unresolved(value) or holds_placeholder(value))):
        # the group's DP size and EP switch are known here (``_engine_settings`` read them first)
        if int(g.engine.data_parallel_size) > 1 and bool(g.engine.enable_expert_parallel):
            raise Undecidable("all2all_backend")
        return None
    return value.strip().lower() if isinstance(value, str) and value.strip() else None


def _unseen(value: Any) -> bool:
    """A value the linter cannot see: an unknown at preview, a ``$(VAR)`` the inputs do not resolve, a placeholder."""
    return is_unknown(value) or (isinstance(value, str) and (is_unresolved(value) or holds_placeholder(value)))


def _eplb(g: ServingGroup) -> dict[str, Any]:
    """``--enable-eplb`` and the redundant experts given (:func:`.sizing.redundant_experts`):
    ``--num-redundant-experts`` (0.11, which sets ``eplb_config.num_redundant_experts`` over the rest:
    ``engine/arg_utils.py`` 0.11.2), else ``--eplb-config.num_redundant_experts``, else ``--eplb-config``'s JSON. Read
    whatever the group's layout (``plan`` reads the flags on a TP1 group and sizes them on each layout); they decide
    the weights only with expert
    parallelism (:func:`.sizing.redundant_experts`), so only there is a value the linter cannot see
    :class:`Undecidable`. A count that is not a whole number is not read (vLLM's config refuses it)."""
    e = g.engine
    ep = bool(known(e.enable_expert_parallel, "enable_expert_parallel"))
    on = e.extra.get("enable_eplb")
    if _unseen(on):
        if ep:
            raise Undecidable("enable_eplb")
        return {}
    if on is not True:
        return {}
    if ep:
        _eplb_dp_env(g)
    pcp = _eplb_pcp(g, ep)
    out = {"enable_eplb": True, "prefill_context_parallel": pcp} if pcp != 1 else {"enable_eplb": True}
    raw = e.extra.get("eplb_config")
    given = (("num_redundant_experts", e.extra.get("num_redundant_experts")),
             ("eplb_config.num_redundant_experts", e.extra.get("eplb_config.num_redundant_experts")),
             ("eplb_config", raw if _unseen(raw) else (json_object(raw) or {}).get("num_redundant_experts")))
    for flag, value in given:
        if value is None:
            continue
        if _unseen(value):
            if ep:
                raise Undecidable(flag)
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return {**out, "num_redundant_experts": value}
        if isinstance(value, str) and value.strip().isdecimal():
            return {**out, "num_redundant_experts": int(value.strip())}
    return out


def _eplb_dp_env(g: ServingGroup) -> None:
    """Raise :class:`Undecidable` where EPLB's refusal at TP × DP of 1 (:func:`.sizing.eplb_refusal`) may not hold
    because the container sets ``VLLM_DP_SIZE`` (review23): where ``--data-parallel-size`` is 1, ParallelConfig's
    ``__post_init__`` takes the data-parallel size from that variable (its offline SPMD fallback:
    ``self.data_parallel_size = envs.VLLM_DP_SIZE``), and in 0.10.x that comes before the EPLB check of the same
    function (config.py), so a value above 1, or one the linter cannot see, may pass it. "1" (or a value vLLM's
    ``int()`` refuses, which fails earlier) decides nothing."""
    value = engine_env(g).get("VLLM_DP_SIZE")
    if value is None:
        return
    e = g.engine
    if int(known(e.tensor_parallel_size, "tensor_parallel_size")) * int(
            known(e.data_parallel_size, "data_parallel_size")) > 1:
        return
    if not _unseen(value) and isinstance(value, str):
        text = value.strip()
        if not text.isdecimal() or int(text) <= 1:
            return
    raise Undecidable("data_parallel_size", "--data-parallel-size is 1 here, but the container sets VLLM_DP_SIZE"
                      f"{'=' + value.strip() if isinstance(value, str) and not _unseen(value) else ''}, which vLLM's "
                      "ParallelConfig then reads as the data-parallel size (its offline fallback); --enable-eplb is "
                      "refused only where TP × DP is 1")


def _known_pcp(g: ServingGroup) -> dict[str, int]:
    """``--prefill-context-parallel-size`` as the sizing reads it: its ranks are GPUs of the engine, which the non-torch
    memory counts (:func:`.sizing._nontorch_gib`, its ``pcp`` group's communicators) and the result's GPU count is. A
    value not known yet is :class:`Undecidable` (an unknown is never read as vLLM's default of 1), but where
    ``--enable-eplb`` is refused whatever it is (:func:`_eplb_refused_whatever_pcp`): a replica that does not start has
    no memory to size, and the refusal is what the sizing says (engine25)."""
    raw = g.engine.extra.get("prefill_context_parallel_size")
    if raw is None:
        return {}
    if _unseen(raw):
        if _eplb_refused_whatever_pcp(g):
            return {}
        raise Undecidable("prefill_context_parallel_size")
    return {"prefill_context_parallel": prefill_context_parallel(g)}


def _eplb_refused_whatever_pcp(g: ServingGroup) -> bool:
    """Whether vLLM refuses the group's ``--enable-eplb`` at start-up for every ``--prefill-context-parallel-size``
    (:func:`.sizing.eplb_refusal`): written true with expert parallelism, TP × DP of 1, under a release known (not
    assumed) from 0.10.0 (``Behaviour.eplb_needs_expert_parallel``) that checks TP × DP only (0.10.0 - 0.25.x:
    ``config/parallel.py``'s "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1", which
    reads no PCP; 0.26+ counts it, ``Behaviour.eplb_world_counts_pcp``). VLLM_DP_SIZE, which may raise DP there, is
    :func:`_eplb_dp_env`'s, which :func:`_eplb` raises after this."""
    e = g.engine
    ep = e.enable_expert_parallel
    if e.extra.get("enable_eplb") is not True or is_unknown(ep) or not ep:
        return False
    tp, dp = e.tensor_parallel_size, e.data_parallel_size
    if not (isinstance(tp, int) and isinstance(dp, int)) or tp * dp != 1:
        return False
    rv = vllm_version(g)
    b = rv.behaviour
    return rv.source != "assumed" and b.eplb_needs_expert_parallel and not b.eplb_world_counts_pcp


def _eplb_pcp(g: ServingGroup, ep: bool) -> int:
    """``--prefill-context-parallel-size`` where it may decide EPLB's refusal (:func:`.sizing.eplb_refusal`): vLLM
    0.26+ refuses ``--enable-eplb`` with expert parallelism where TP × PCP × DP is 1 (0.10.0 - 0.25.x: TP × DP,
    whatever PCP). A value the linter cannot see is :class:`Undecidable` only where TP × DP is 1 and the release,
    known or assumed, counts PCP; elsewhere it decides nothing here and reads as 1."""
    value = g.engine.extra.get("prefill_context_parallel_size")
    if value is None:
        return 1
    if _unseen(value):
        e = g.engine
        if ep and int(known(e.tensor_parallel_size, "tensor_parallel_size")) * int(
                known(e.data_parallel_size, "data_parallel_size")) <= 1:
            rv = vllm_version(g)
            if rv.behaviour.eplb_world_counts_pcp or rv.source == "assumed":
                raise Undecidable("prefill_context_parallel_size")
        return 1
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdecimal() and int(value) > 0:
        return int(value)
    return 1


def _mamba_dtype(value: Any) -> str:
    """``--mamba-cache-dtype`` / ``--mamba-ssm-cache-dtype`` as written, lower case; "auto" where absent or not a word
    (a value read from a variable the linter cannot see counts as the default)."""
    return value.strip().lower() if isinstance(value, str) and value.strip() else "auto"


#: ``--task`` values (before ``--runner``, 0.10.2) and ``--convert`` values that serve a model with the pooling runner
_POOLING_TASKS = frozenset({"embed", "embedding", "classify", "score", "reward"})


def pooling_runner(extra: Mapping[str, Any]) -> bool:
    """Whether the engine runs the pooling runner: ``--runner pooling``, a ``--convert`` to a pooling model or a
    pooling ``--task``. ``--runner auto`` (the default) picks it from the checkpoint's architecture, which is not read
    here: the generating runner is assumed, whose sampler costs more."""
    values = {str(extra.get(k, "")).strip().lower() for k in ("task", "convert")}
    return str(extra.get("runner", "")).strip().lower() == "pooling" or bool(values & _POOLING_TASKS)


def _prefix_caching(value: Any) -> bool | None:
    """``--enable-prefix-caching`` / ``--no-enable-prefix-caching`` as written; a value not known here counts as
    vLLM's default, which lays out the KV cache the same (it only changes models with state layers, where it is off
    by default)."""
    return value if isinstance(value, bool) else None


def extensible_kv_cache_of(g: ServingGroup) -> bool:
    """Whether vLLM sizes the group's KV cache as an extensible one (0.34+ on NVIDIA and AMD GPUs, unless the
    manifest sizes the cache or turns it off: :func:`.sizing.extensible_kv_cache`); then an unset
    ``--gpu-memory-utilization`` is 1.0 and vLLM measures what it keeps free."""
    b = vllm_version(g).behaviour
    if not b.extensible_kv_cache or group_vendor(g) not in ("nvidia", "amd"):
        return False
    e = g.engine
    if not is_unknown(e.kv_cache_memory_bytes) and e.kv_cache_memory_bytes is not None:
        return False
    return _extensible(e.extra) is not False


def _extensible(extra: Mapping[str, Any]) -> bool | None:
    """``--enable-extensible-kv-cache`` / ``--no-enable-extensible-kv-cache`` as written (0.34+), and False where
    ``--num-gpu-blocks-override`` sizes the cache (vLLM then turns it off: ``config/vllm.py``
    ``_resolve_extensible_kv_cache``, 0.34.0); None: vLLM's default."""
    if extra.get("num_gpu_blocks_override") not in (None, False):
        return False
    return _prefix_caching(extra.get("enable_extensible_kv_cache"))


def _count(value: Any) -> int | None:
    if isinstance(value, dict):  # 0.11+: {"count": N, ...} with media options
        value = value.get("count")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def multimodal_settings(extra: Mapping[str, Any]) -> dict[str, Any]:
    """What ``--mm-processor-kwargs`` and ``--limit-mm-per-prompt`` set for the encoder's profile: the processor's
    ``max_pixels`` (or ``size.longest_edge``), and the items per prompt by modality. Both flags take JSON
    (``'{"max_pixels": 1003520}'``, ``'{"image": 1, "video": 0}'``, from 0.11 also ``{"image": {"count": 1}}``), vLLM's
    dotted form (``--mm-processor-kwargs.max_pixels 1003520``, ``--limit-mm-per-prompt.video 0``) and, for the limits,
    the older ``image=1,video=0``. A value that is not one of these (an unresolved ``$(VAR)``) is left to the
    defaults. ``--mm-encoder-tp-mode data`` keeps the encoder's weights whole on every tensor-parallel rank."""
    out: dict[str, Any] = {}
    kwargs = dict(json_object(extra.get("mm_processor_kwargs")) or {})
    for key, value in extra.items():
        if key.startswith("mm_processor_kwargs."):
            kwargs[key.split(".", 1)[1]] = value
    size = kwargs.get("size")
    pixels = _count(kwargs.get("max_pixels"))
    if pixels is None and isinstance(size, dict):
        pixels = _count(size.get("longest_edge"))
    if pixels is not None and pixels > 0:
        out["mm_max_pixels"] = pixels
    raw = extra.get("limit_mm_per_prompt")
    limits: dict[str, Any] = dict(json_object(raw) or {})
    if not limits and isinstance(raw, str) and "=" in raw:
        for part in raw.split(","):
            name, _, value = part.partition("=")
            limits[name.strip()] = value
    for key, value in extra.items():
        if key.startswith("limit_mm_per_prompt."):
            limits[key.split(".", 1)[1]] = value
    counted = tuple(sorted((str(m), n) for m, v in limits.items() if (n := _count(v)) is not None and n >= 0))
    if counted:
        out["mm_limits"] = counted
    written = tuple((flag, value) for flag, key in ((LIMIT_FLAG, "limit_mm_per_prompt"),
                                                    (KWARGS_FLAG, "mm_processor_kwargs"))
                    if isinstance(value := extra.get(key), str) and not is_unknown(value) and not is_unresolved(value))
    if written:
        out["mm_args"] = written  # as vLLM receives them: its parser may refuse them (sizing._mm_args_refusal)
    mode = extra.get("mm_encoder_tp_mode")  # --mm-encoder-tp-mode: "weights" (the default) or "data"
    if isinstance(mode, str) and mode.strip().lower() == "data":
        out["mm_encoder_tp_mode"] = "data"
    return out


#: ``pip install ... vllm`` in one shell command (a newline ends it too: ``pip install -U pip`` then
#: ``python -m vllm...`` on the next line installs no vLLM; :func:`_script` has joined continued lines)
_PIP_VLLM = re.compile(r"\b(?:pip3?|uv\s+pip)\s+install\b[^;&|\n]*\bvllm\b", re.I)
_FLASHINFER = re.compile(r"\bflashinfer", re.I)  # a module constant: the module is compiled by mypyc


def _multimodal(g: ServingGroup) -> dict[str, Any]:
    """:func:`multimodal_settings` of the group's engine, and whether its flags reach vLLM verbatim where it writes
    any (asked only then: a group without them keeps the default, and shares its sizings with its like)."""
    out = multimodal_settings(g.engine.extra)
    if "mm_args" in out:
        out["mm_args_verbatim"] = _args_verbatim(g)
    return out


def _args_verbatim(g: ServingGroup) -> bool:
    """Whether vLLM's parser gets the container's words as written: its command is given (vLLM itself, or a shell
    whose own quoting shardwise has read), or its image's entrypoint is vLLM's (``vllm/vllm-openai``). Args handed
    to another image's entrypoint may go through a shell script of its own, which removes quotes."""
    c = g.main_container
    if c is None or any(isinstance(w, str) and w for w in c.command):
        return True
    return isinstance(c.image, str) and not is_unknown(c.image) and image_info(c.image).family == "vllm-openai"


def _script(c: Any) -> str:
    """A container's command and args as one line (where a shell script installs vLLM), without the script's comment
    lines (``# pip install vllm  # or custom installation`` installs nothing), its continued lines joined."""
    return command_script((*c.command, *c.args))


def _flashinfer(g: ServingGroup) -> dict[str, Any]:
    """What the engine's environment sets (:func:`env_settings`: ``VLLM_USE_FLASHINFER_SAMPLER`` and the rest), and
    whether its command installs vLLM from PyPI (then FlashInfer is there only where the release's wheel brings it,
    or where the same command installs it), or where no container says it, whether ``plan --install pip`` was
    given. Otherwise the image is taken for the official one, which has it."""
    c = g.main_container
    out = env_settings(engine_env(g))
    if c is None:
        if g.pip_install:  # plan --install pip
            out["pip_install"] = True
        return out
    script = _script(c)
    if has_install(script) and _PIP_VLLM.search(script):  # (most command lines install nothing)
        out["pip_install"] = True
        if _FLASHINFER.search(script):
            out["flashinfer_installed"] = True
    return out


#: What an unknown number of pods per group is called in an undecided finding.
PODS_PER_GROUP = "pods per group (leaderWorkerTemplate.size, or the workers an operator adds)"


@dataclass(frozen=True)
class Layout:
    """The parallel layout of one serving group: how many GPUs vLLM starts workers on, per pod and per group.

    vLLM places its ranks data-parallel outermost, then pipeline, then prefill context parallel, then tensor
    parallel innermost: a group of ``TP × PP × PCP × DP`` GPUs (``ParallelConfig.world_size`` is ``PP × TP × PCP``
    wherever ``--prefill-context-parallel-size`` exists, 0.12.0 on: ``config/parallel.py`` of the 0.12.0, 0.25.1,
    0.26.0 and 0.28.0 wheels, "PCP expands the process world size"; ``--decode-context-parallel-size`` reuses the TP
    or PCP ranks and adds none, "DCP does not expand the process world size"). ``--data-parallel-size-local`` says
    how many DP ranks one vLLM process (one pod) runs; without it every DP rank is local, unless the group spans
    several pods, in which case the ranks are spread over them. On a multi-pod group (a LeaderWorkerSet) each pod is
    one node and holds ``world ÷ pods`` GPUs; the tensor-parallel group stays inside a node exactly when ``TP ≤`` GPUs
    per node.
    """

    tp: int
    pp: int
    dp: int
    dp_local: int | None  # --data-parallel-size-local, when given
    pods: int  # pods per group (1 for a single-pod replica)
    pcp: int = 1  # --prefill-context-parallel-size

    @property
    def engine(self) -> int:
        """GPUs one engine (one data-parallel rank) runs on: vLLM's ``world_size``, TP × PP × PCP."""
        return world_size(self.tp, self.pp, self.pcp)

    @property
    def world(self) -> int:
        """GPUs the whole group runs vLLM workers on."""
        return self.engine * self.dp

    @property
    def per_pod(self) -> int | None:
        """GPUs one pod must hold, when the layout fixes it (None: the ranks are spread over the pods)."""
        if self.dp_local is not None:
            return self.engine * self.dp_local
        if self.pods == 1:
            return self.world
        return None

    def text(self) -> str:
        """``"TP4×PP2"``, ``"TP1×PP1×PCP2"``, ``"TP1×PP1×DP8"`` (PCP and DP only when they are above 1)."""
        return layout_text(self.tp, self.pp, self.pcp, self.dp)


def _int_flag(value: object, prop: str) -> int:
    value = known(value, prop)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise Undecidable(prop, f"{value!r} is not a whole number")
    try:
        return int(value)
    except ValueError:
        raise Undecidable(prop) from None  # an unresolved reference kept as written


def layout(g: ServingGroup) -> Layout:
    """The group's layout; raises :class:`Undecidable` naming the first unknown setting."""
    return per_group(g, "layout", _layout)


def _layout(g: ServingGroup) -> Layout:
    e = g.engine
    tp = _int_flag(e.tensor_parallel_size, "tensor_parallel_size")
    pp = _int_flag(e.pipeline_parallel_size, "pipeline_parallel_size")
    dp = _int_flag(e.data_parallel_size, "data_parallel_size")
    raw_local = e.extra.get("data_parallel_size_local")
    dp_local = None if raw_local is None else _int_flag(raw_local, "data_parallel_size_local")
    pods = g.pods_per_group
    pods = 1 if pods is None else _int_flag(pods, PODS_PER_GROUP)
    return Layout(tp, pp, dp, dp_local, max(pods, 1), prefill_context_parallel(g))


def prefill_context_parallel(g: ServingGroup) -> int:
    """``--prefill-context-parallel-size`` (1 where not given): its ranks are workers of the engine (:class:`Layout`);
    a value not known is :class:`Undecidable`."""
    raw = g.engine.extra.get("prefill_context_parallel_size")
    return 1 if raw is None else max(_int_flag(raw, "prefill_context_parallel_size"), 1)


def context_parallel(g: ServingGroup) -> int:
    """``--decode-context-parallel-size`` × ``--prefill-context-parallel-size`` (1 where neither is given): the ranks
    one request's KV cache is split over. vLLM keeps ``1 / (DCP × PCP)`` of each request's tokens on each of them
    (``vllm/v1/kv_cache_interface.py``, ``AttentionSpec.max_memory_usage_bytes``: ``max_model_len = cdiv(max_model_len,
    dcp_world_size * pcp_world_size)``; ``single_type_kv_cache_manager.py``: ``block_size *= dcp_world_size *
    pcp_world_size``), which the sizing does not model (review27). A value not known is :class:`Undecidable`."""
    raw = g.engine.extra.get("decode_context_parallel_size")
    dcp = 1 if raw is None else max(_int_flag(raw, "decode_context_parallel_size"), 1)
    return dcp * prefill_context_parallel(g)


def parallel(g: ServingGroup) -> Parallel:
    """The group's layout as the layout search sees it (raises :class:`Undecidable` on an unknown flag)."""
    lay = layout(g)
    if lay.world == 1:
        return Parallel(1)  # expert parallelism changes nothing on one GPU
    return Parallel(lay.tp, lay.pp, lay.dp, bool(known(g.engine.enable_expert_parallel, "enable_expert_parallel")),
                    lay.pcp)


# --------------------------------------------------------------------------------------------------
# The sizing
# --------------------------------------------------------------------------------------------------


def expected_context(g: ServingGroup, config: Context) -> int | None:
    """The p95 context the group declares, else the run's (None: every sequence at max_model_len)."""
    return g.p95_context or config.p95_context_tokens


def sizing(g: ServingGroup, config: Context) -> ReplicaSizing | None:
    """The group's sizing (one engine, one data-parallel rank), or None when there is no GPU to size against.

    Made once per group and run setting (several rules read it); raises Undecidable for unknown inputs.
    """
    key = f"sizing:{config.p95_context_tokens}"
    g.device_reads += 1  # made once, read by each rule: every read is one (a GPU read from a name is advisory)
    made = per_group(g, key, lambda g: _sizing(g, config))
    if made is not None:  # sized on the model: each rule that reads the sizing reads the model (review25: SW102 read
        g.model_reads += 1  # the sizing SW101 made and blocked on a model matched by the name of its path only)
    return made


def offload_bytes(g: ServingGroup) -> int | None:
    """:func:`_offload_bytes`: what the engine settings' ``cpu_offload_bytes`` is where they are not at hand."""
    return _offload_bytes(g)


def _offload_bytes(g: ServingGroup) -> int | None:
    """``--cpu-offload-gb`` as the bytes vLLM counts to (``int(cpu_offload_gb * 1024**3)``:
    ``set_cpu_offload_max_bytes`` in v1/worker/gpu_model_runner.py 0.10.1.1 - 0.16.0, ``create_offloader`` in
    model_executor/offloader/base.py 0.17.0 - 0.34.0), or None where it is not a number above 0 (:func:`_offloaded`
    says whether the sizing may count it)."""
    value = g.engine.cpu_offload_gb
    if value is None or _unseen(value) or isinstance(value, bool):
        return None
    try:
        gib = float(value)
    except (TypeError, ValueError):
        return None
    return int(gib * 1024**3) if gib > 0 else None


def _offloaded(g: ServingGroup, model: ModelShape) -> None:
    """Raise Undecidable where ``--cpu-offload-gb`` is not known, or above 0 where the capacity model does not count
    what vLLM offloads. It counts (:func:`.sizing._stage_weights_of`) the UVA offload of a dense, unquantised
    checkpoint without towers: vLLM moves the decoder layers' parameters in order to pinned CPU memory up to the cap
    and reads them through CUDA views, so PyTorch's allocator, and vLLM's profile, no longer hold them. Not counted:
    an MoE model's experts and a quantised checkpoint (their process_weights_after_loading may build new tensors on
    the GPU from offloaded ones), a vision or audio tower or an MTP module (0.34's offloader can take towers), a
    drafter (it continues the count), ``--cpu-offload-params`` (a selection by name), the prefetch offloader
    (``--offload-backend prefetch``, or ``--offload-group-size`` above 0, which ``auto`` prefers: config/offload.py and
    offloader/base.py ``create_offloader``, 0.17.0+), ``VLLM_WEIGHT_OFFLOADING_DISABLE_UVA`` (each layer copied back
    to the GPU for its forward pass), and the V0 engine (the same, :func:`_offload_engine`). Before this, any amount
    above 0 was undecided; a sizing that charged the whole weights blocked a layout that starts (Llama-3.1-70B at
    TP4 on L4s with ``--cpu-offload-gb 24``, review20)."""
    value = g.engine.cpu_offload_gb
    if value is None:
        return
    offload = known(value, "cpu_offload_gb")
    if isinstance(offload, bool) or not isinstance(offload, (int, float)):
        raise Undecidable("the GPU's share of the weights", f"--cpu-offload-gb {offload} is not a number of GiB")
    if offload <= 0:
        return
    e = g.engine
    why = ""
    if model.moe is not None:
        why = "an MoE model's offloaded experts are not modelled"
    elif model.quantization is None and str(known(e.quantization, "quantization") or "").lower() == "fp8":
        # online FP8 (capacity5): Fp8LinearMethod.process_weights_after_loading quantises each layer with
        # ops.scaled_fp8_quant, whose output is made on the input's device, a CUDA view of the offloaded memory
        # (0.11.0 wheel: models/utils.py maybe_offload_to_cpu, _custom_ops.py): the FP8 copy lands on the GPU
        why = ("--quantization fp8 quantises the 16-bit checkpoint after loading, and vLLM writes each offloaded "
               "layer's FP8 copy to the GPU (0.11.0: process_weights_after_loading), so the offload does not hold "
               "after loading and the load peak depends on it; from 0.16.0 the weights load layer by layer from "
               "the meta device, which is not read with offloading: neither is modelled")
    elif model.quantization is not None or known(e.quantization, "quantization"):
        why = ("a quantised checkpoint's offloaded layers may be rebuilt on the GPU after loading "
               "(process_weights_after_loading), which is not modelled")
    elif not exact_weights(model, model.precision, False):
        why = "with a vision or audio tower, an MTP module or a parameter count read from config.json's shapes"
    elif e.extra.get("speculative_config") or legacy_speculative_config(e.extra):
        why = "a drafter's layers continue the offload count, which is not modelled"
    elif e.extra.get("cpu_offload_params") is not None:
        why = "--cpu-offload-params offloads only the parameters it names, which is not modelled"
    else:
        backend = e.extra.get("offload_backend")
        group = e.extra.get("offload_group_size")
        uva = isinstance(backend, str) and backend.strip().lower() == "uva"  # chosen whatever the group size says
        if _unseen(backend) or (isinstance(backend, str) and backend.strip().lower() not in ("auto", "uva")):
            why = f"--offload-backend {backend} is not the UVA offloader the capacity model counts"
        elif not uva and group is not None and (_unseen(group) or str(group).strip() not in ("0", "")):
            why = f"--offload-group-size {group} selects the prefetch offloader, which is not modelled"
        else:
            why = _uva_disabled(g)
    if why:
        raise Undecidable("the GPU's share of the weights", f"--cpu-offload-gb {offload:g} moves up to {offload:g} "
                          f"GiB of them to CPU memory; {why}")


def _uva_disabled(g: ServingGroup) -> str:
    """Why ``VLLM_WEIGHT_OFFLOADING_DISABLE_UVA`` turns, or may turn, the UVA offloader off, else "": read from
    0.17.0 (``Behaviour.offload_uva_env``) as ``bool(int(value))``, so "0" (or unset) keeps UVA; a value the linter
    cannot see, or one ``int`` does not read, is not known to keep it. Not read before 0.17.0 (V1 always offloads
    through UVA there)."""
    value = engine_env(g).get("VLLM_WEIGHT_OFFLOADING_DISABLE_UVA")
    if value is None:
        return ""
    rv = vllm_version(g)
    if not rv.behaviour.offload_uva_env and rv.source != "assumed":
        return ""
    off = ("each offloaded layer is then copied back to the GPU for its forward pass (UVAOffloader's fallback), "
           "which is not modelled")
    if _unseen(value) or not isinstance(value, str):
        return f"VLLM_WEIGHT_OFFLOADING_DISABLE_UVA from a value not known here may turn UVA off: {off}"
    try:
        return "" if int(value) == 0 else f"VLLM_WEIGHT_OFFLOADING_DISABLE_UVA={value.strip()} turns UVA off: {off}"
    except ValueError:
        return f"VLLM_WEIGHT_OFFLOADING_DISABLE_UVA={value.strip()} is not a number vLLM reads (int(value))"


def _offload_engine(g: ServingGroup, dev: Device) -> None:
    """Raise Undecidable where vLLM runs the V0 engine with ``--cpu-offload-gb`` above 0: V0 moves the offloaded
    parameters to plain CPU memory and copies each layer's back to the GPU for its forward pass
    (``maybe_offload_to_cpu``'s ``functional_call`` path where ``VLLM_USE_V1`` is off, 0.9.2 - 0.10.2), which the
    profile's peak would hold and the capacity model does not count."""
    if _offload_bytes(g) is None:
        return
    if engine_run(vllm_version(g), dev, engine_settings(g)) == "v0":
        amount = float(g.engine.cpu_offload_gb)
        raise Undecidable("the GPU's share of the weights", f"--cpu-offload-gb {amount:g} on the V0 "
                          "engine copies each offloaded layer back to the GPU for its forward pass, which is not "
                          "modelled")


def _sizing(g: ServingGroup, config: Context) -> ReplicaSizing | None:
    if tpu_of(g) is not None:
        return None  # not sized, whatever else is not known (its model, its layout)
    model = require_model(g)
    dev = device(g)
    if dev is None:
        return None
    settings = engine_settings(g)  # its unknowns first (the layout), then what the offload leaves undecided
    _offloaded(g, model)
    _offload_engine(g, dev)
    return size_deployment(model, dev, settings, vllm_version(g), expected_context=expected_context(g, config))


def weights_refused_whatever_pcp(g: ServingGroup, config: Context) -> ReplicaSizing | None:
    """The group's sizing at ``--prefill-context-parallel-size`` 1 where its value is not known yet and vLLM refuses
    the weights whatever it is: a dense model (no routed experts, which vLLM spreads over the PCP ranks too:
    :func:`.sizing.moe_ranks`) whose weights on one GPU surely exceed what it may use. Each PCP rank holds the same TP
    shard, so the weights a GPU holds do not move with PCP, and the non-torch memory only grows with it (a ``pcp``
    communicator). None where that is not so: the sizing stays undecided (:func:`_known_pcp`). review30: engine25
    left Llama-3.1-70B at TP2 on A10Gs with ``-pcp $(PCP)`` undecided (65.7 GiB a GPU against 20.3), a block lost."""
    if tpu_of(g) is not None:
        return None
    return _dense_weights_refused(g, config, True, 0)


def _dense_weights_refused(g: ServingGroup, config: Context, unseen_pcp_as_one: bool,
                           tp_as: int) -> ReplicaSizing | None:
    """The group's sizing with a value not known yet taken as :func:`_engine_settings` is told to
    (``unseen_pcp_as_one``, ``tp_as``), where its model is dense and vLLM surely refuses its weights there; None
    otherwise (no GPU to size on, routed experts, weights that may fit). The shared step of
    :func:`weights_refused_whatever_pcp` and :func:`weights_refused_whatever_tp`."""
    model = require_model(g)
    dev = device(g)
    if dev is None or model.moe is not None:
        return None
    settings = _engine_settings(g, unseen_pcp_as_one=unseen_pcp_as_one, tp_as=tp_as)
    _offloaded(g, model)
    _offload_engine(g, dev)
    least = size_deployment(model, dev, settings, vllm_version(g), expected_context=expected_context(g, config))
    if least.weights_fit_band != "refuses":
        return None
    g.model_reads += 1  # read on the model, as :func:`sizing` counts it (its GPU read it counted before it raised)
    return least


def most_tp_unseen(g: ServingGroup) -> int:
    """The largest ``--tensor-parallel-size`` the group's engine can have where it is not known yet (a guide's
    ``<TP_SIZE>``, a start script's ``${TP}``, a ConfigMap not in the inputs) but the GPUs of its pod bound it. vLLM
    starts one worker per GPU of its engine (TP × PP × PCP) and refuses a world larger than the GPUs it sees (vLLM
    ``config/parallel.py``: "World size (2) is larger than the number of available GPUs (1)"), and the device plugin
    shows a container only the whole GPUs it requests: SW204 blocks a single-pod replica whose layout needs more, so
    here TP is at most those GPUs ÷ (PP × PCP) (DP only adds engines). 0 where it is not so bounded: TP known, a
    replica over several pods, another resource than nvidia.com/gpu (a unit holding several devices, a resource
    claim, a MIG device), a container that may see more GPUs than it requests (:func:`unrequested_gpus_seen`)
    where :func:`gpus_seen` does not bound them, or a GPU count, PP or PCP not known as a whole number."""
    e = g.engine
    pods = g.pods_per_group
    c = g.main_container
    if (not is_unknown(e.tensor_parallel_size) or (pods is not None and pods != 1)
            or g.accelerator_resource not in (None, GPU_RESOURCE) or (c is not None and c.resource_claims)
            or mig_slice_or_none(g) is not None):
        return 0
    gpus: Any = g.gpus_per_pod
    if c is not None and unrequested_gpus_seen(c.security.privileged, c.env):
        gpus = gpus_seen(g)  # the GPUs its list names, or every GPU of its node; 0: not bounded
    sizes = [gpus, e.pipeline_parallel_size, e.extra.get("prefill_context_parallel_size", 1)]
    whole = [v for v in sizes if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    if len(whole) != len(sizes):
        return 0
    return whole[0] // (whole[1] * whole[2])


def unrequested_gpus_seen(privileged: Any, env: Mapping[str, Any]) -> str:
    """Why a container may see more GPUs than its nvidia.com/gpu request, in words, else "": privileged (or not known
    to be not), it has every device node of its node, and NVML and CUDA enumerate every GPU there; a visible-devices
    variable written in its env (NVIDIA_VISIBLE_DEVICES ``all`` or a list, or a value not known yet; not one that
    hides every GPU: ``void``, ``none``, empty), which the NVIDIA container toolkit's default setting
    (accept-nvidia-visible-devices-envvar-when-unprivileged) lets win over the device plugin's allocation (SW310).
    Its GPUs, and so its TP, are then bounded by its node's, not by the request (review38: `--tensor-parallel-size
    <TP_SIZE>` on a privileged pod requesting one of a node's four L40S blocked, though TP4 may start there)."""
    if privileged is True or is_unknown(privileged):
        return "privileged: true"
    for name in visible_devices_envs():
        if name in env:
            value = env[name]
            if not isinstance(value, str):
                return f"{name} set to a value not known yet"
            if value.strip().lower() not in HIDES_EVERY_DEVICE:
                return f"{name}={value.strip()}"
    return ""


#: One entry of a visible-devices list: a GPU's index or UUID, a MIG device's index pair or UUID (the NVIDIA container
#: toolkit's NVIDIA_VISIBLE_DEVICES: "a comma-separated list of GPU UUID(s) or index(es)", beside all, none and void;
#: NVIDIA/nvidia-container-runtime README, and enroot's nvidia hook hands the list to nvidia-container-cli --device).
_DEVICE_ENTRY = re.compile(r"\d+(?::\d+)?|(?:GPU|MIG)-[0-9A-Za-z/-]+")


def visible_devices_listed(env: Mapping[str, Any]) -> int:
    """How many devices the visible-devices variable of ``env`` lists (``0,1``, GPU or MIG UUIDs), 0 where it lists
    none: not set, ``all``, ``none``, ``void``, a value not known yet, or any other text (a placeholder such as
    ``${GPU_IDS}`` is no list: never counted as one device)."""
    for name in visible_devices_envs():
        if name in env:
            value = env[name]
            entries = [v.strip() for v in value.split(",")] if isinstance(value, str) else [""]
            if all(_DEVICE_ENTRY.fullmatch(v) for v in entries):
                return len(dict.fromkeys(entries))
            return 0
    return 0


def gpus_seen(g: ServingGroup) -> int:
    """The most GPUs the main container of a group may see where :func:`unrequested_gpus_seen` says it may see more
    than it requests, 0 where that is not known. Privileged (or not known to be not), or a visible-devices variable
    ``all`` or not known yet: every GPU of its node (:func:`node_gpus_seen`). A variable that lists devices: those it
    lists where the toolkit lets it win, else the ones it requests (the toolkit set to ignore it for unprivileged
    containers, accept-nvidia-visible-devices-envvar-when-unprivileged = false), so the larger, and no more than its
    node's where its pool says (review39: ``NVIDIA_VISIBLE_DEVICES=0,1`` on a pod requesting one of a node's four
    L40S sees at most two, not four)."""
    c = g.main_container
    # privileged or not known to be not: every device node of its node, whatever the variable lists
    listed = 0 if c is None or unrequested_gpus_seen(c.security.privileged, {}) else visible_devices_listed(c.env)
    node = node_gpus_seen(g)
    if not listed:
        return node
    request: Any = g.gpus_per_pod
    if not isinstance(request, int) or isinstance(request, bool) or request <= 0:
        return 0  # the toolkit ignoring the list shows it its request, which is not known
    most = max(request, listed)
    return min(most, node) if node else most


def node_gpus_seen(g: ServingGroup) -> int:
    """The GPUs of the node a group's pod lands on, where its pool says (a whole number above 0), else 0."""
    per_node: Any = g.pool.gpus_per_node if g.pool is not None else None
    if isinstance(per_node, int) and not isinstance(per_node, bool) and per_node > 0:
        return per_node
    return 0


def weights_refused_whatever_tp(g: ServingGroup, config: Context) -> tuple[ReplicaSizing, int] | None:
    """The group's sizing at the largest ``--tensor-parallel-size`` its GPUs allow (:func:`most_tp_unseen`) where TP
    is not known yet and vLLM refuses the weights whatever it is, with that TP: a dense model (no routed experts,
    whose spread over the ranks :func:`.sizing.moe_ranks` follows) whose weights surely exceed what one GPU may use
    even at the largest TP. A GPU's share of the weights only shrinks as TP grows, so a refusal there is a refusal at
    every TP that fits the GPUs, and a TP beyond them does not start at all. None where that is not so (some TP may
    start, or TP is not bounded): the sizing stays undecided. mend13: Llama-3.1-70B with ``--tensor-parallel-size
    <TP_SIZE>`` on one L40S was "cannot decide" and the lint passed, though every TP fails."""
    most = most_tp_unseen(g)
    if most < 1 or tpu_of(g) is not None:
        return None
    least = _dense_weights_refused(g, config, False, most)
    return None if least is None else (least, most)


@dataclass(frozen=True)
class TpRefusals:
    """Every ``--tensor-parallel-size`` a group's GPUs allow where TP is not known yet, each refused at start-up
    (:func:`refused_whatever_tp`)."""

    most: int  # the largest TP the pod's GPUs allow (:func:`most_tp_unseen`)
    split: tuple[int, ...]  # the TPs up to ``most`` whose split of the weights vLLM surely refuses (SW203)
    sized: tuple[tuple[int, ReplicaSizing], ...]  # the others, in order, each refused by its weights or its KV cache

    @property
    def top(self) -> tuple[int, ReplicaSizing]:
        """The largest TP sized, and its sizing: the layout whose refusal a remedy of more GPUs starts from."""
        return self.sized[-1]

    @property
    def kv_owns(self) -> bool:
        """Whether the weights may fit at the largest TP sized, so the refusal there is the KV cache's (SW102's);
        else the weights' (SW101's), as the rules divide a refusal at a TP written."""
        return self.top[1].weights_fit_band == "starts"


def refused_whatever_tp(g: ServingGroup, config: Context) -> TpRefusals | None:
    """Every TP the group's GPUs allow (:func:`most_tp_unseen`) where ``--tensor-parallel-size`` is not known yet,
    where vLLM surely refuses each at start-up: the weights do not split (the attention heads, the KV heads or a
    quantisation block: :func:`.layout.weight_load_refusals`, sure ones only), or the weights or the KV cache of one
    max_model_len request surely do not fit (``kv_verdict`` "refuses" beyond the estimate's error band: SW101's and
    SW102's blocks at a TP written), whatever TP is. None where some TP may start, or where that cannot be told: TP
    not bounded, a mixture of experts (:func:`.sizing.moe_ranks` spreads its experts its own way), a TPU, a KV cache
    split over context-parallel ranks (SW102 never blocks it), a pod of more GPUs than the model has attention heads,
    cpu offload on the V0 engine, a refusal of a setting vLLM rejects whatever the memory, a TP refused for its KV
    cache only at a max_model_len that depends on the release or the image's transformers (an ``--hf-overrides`` RoPE
    dict on 0.20 - 0.23 or an assumed release: SW102 leaves that undecided at a TP written, review40) unless the
    shortest of those lengths is refused too (:func:`_refused_at_shortest`, review42), or another value not known.
    mend17: Llama-3.1-70B with ``$(TENSOR_PARALLEL_SIZE)`` from a ConfigMap not in the inputs on four A100
    40GB, max_model_len at its default, was "cannot decide": TP1 and TP2 do not hold the weights, TP3 does not split
    its 64 heads, TP4 leaves the KV cache short of one request of 131,072 tokens."""
    most = most_tp_unseen(g)
    if most < 1 or tpu_of(g) is not None:
        return None
    model = require_model(g)  # a read of the model for each rule that asks (per_group keeps the sizings once)
    if device(g) is None or model.moe is not None:
        return None
    return per_group(g, f"refused_whatever_tp:{config.p95_context_tokens}",
                     lambda g: _refused_whatever_tp(g, config, most))


def _refused_whatever_tp(g: ServingGroup, config: Context, most: int) -> TpRefusals | None:
    model = require_model(g)
    dev = device(g)
    assert dev is not None
    if most > model.num_attention_heads:
        return None  # a pod of more GPUs than the model has heads: not a shape met, left undecided
    split: list[int] = []
    sized: list[tuple[int, ReplicaSizing]] = []
    try:
        if context_parallel(g) != 1:
            return None
        _offloaded(g, model)
        _offload_engine(g, dev)
        version = vllm_version(g)
        settings = _engine_settings(g, tp_as=most)  # TP alone differs from one TP to the next
        context = expected_context(g, config)
        # from the largest TP down: the layout most likely to start is sized first, and where it may start no
        # smaller one is sized at all (the answer is None wherever one TP may start, whichever is found first)
        for tp in range(most, 0, -1):
            if any(r.sure for r in weight_load_refusals(model, tp)):
                split.append(tp)
                continue
            s = size_deployment(model, dev, settings if tp == most else replace(settings, tp=tp), version,
                                expected_context=context)
            if s.certain or s.kv_verdict != "refuses" or float32_assumed(s):
                return None  # some TP may start, its refusal is a setting's, or float32 only on a release assumed
            if s.weights_fit_band != "refuses" and any(n.startswith(LENGTH_BY_RELEASE) for n in s.notes):
                # refused for a KV cache of a length that depends on what runs (review40): refused at every length
                # only where the shortest vLLM may take is refused too (review42), and said at that one
                shortest = _refused_at_shortest(g, config, tp)
                if shortest is None:
                    return None
                s = shortest
            sized.append((tp, s))
    except Undecidable:
        return None
    if not sized:
        return None
    return TpRefusals(most, tuple(reversed(split)), tuple(reversed(sized)))


def _refused_at_shortest(g: ServingGroup, config: Context, tp: int) -> ReplicaSizing | None:
    """The group's sizing at ``tp`` with max_model_len the shortest of the lengths vLLM may derive for its model
    (:func:`.sizing.possible_limits`: an ``--hf-overrides`` RoPE dict on 0.20 - 0.23, by the image's transformers, or
    an assumed release), where --max-model-len is not written and the KV cache of one request of that length is
    surely refused: a longer one needs more, so every length is. None otherwise (review40 left every such TP
    undecided: Qwen2.5-7B with its YaRN override at gpu_memory_utilization 0.6 on one L4 was "cannot decide" with TP
    not known, though 32,768 tokens do not fit either, and the same pod at TP1 written blocks)."""
    settings = _engine_settings(g, tp_as=tp)
    if settings.max_model_len is not None:
        return None  # written (or auto): the note is the limit's, against a length the flag fixes
    version = vllm_version(g)
    shortest = possible_limits(require_model(g), version)[0]
    dev = device(g)
    assert dev is not None
    s = size_deployment(require_model(g), dev, replace(settings, max_model_len=shortest), version,
                        expected_context=expected_context(g, config))
    if s.certain or s.kv_verdict != "refuses":
        return None
    return s


def sizer(g: ServingGroup, config: Context) -> Sizer | None:
    """The group's model, GPU, settings and release, to size other layouts of it (None: no GPU to size on).

    Made once per group and run setting, so the rules that search its smaller layouts share what it was told
    (:attr:`.layout.Sizer.told`); the model and the GPU are read on every call, as the rules count those reads."""
    if tpu_of(g) is not None:
        return None
    model = require_model(g)
    dev = device(g)
    if dev is None:
        return None
    engine_settings(g)  # its unknowns first (the layout), then what the offload leaves undecided
    _offloaded(g, model)
    _offload_engine(g, dev)
    return per_group(g, f"sizer:{config.p95_context_tokens}",
                     lambda g: Sizer(model, dev, engine_settings(g), vllm_version(g), expected_context(g, config)))


def declared_load(g: ServingGroup, config: Context) -> Load:
    """The load the team declared for the workload (docs/capacity-model.md, "Load"): the annotation
    ``shardwise.dev/target-concurrency`` (the stack's ``target_concurrency``) for the whole workload, spread
    over its replicas, at the declared p95 context. ``--max-num-seqs`` is vLLM's cap, never a load."""
    if g.target_concurrency is None:
        return Load(None, expected_context(g, config))
    replicas = known(g.replicas, "replicas")
    n = int(replicas) if isinstance(replicas, int) and replicas > 0 else 1
    return Load(g.target_concurrency, expected_context(g, config), n, g.output_tokens_per_second)


def round_max_model_len(n: int) -> int:
    """A --max-model-len people would write: down to a multiple of 1,024 (of 16 below that)."""
    return n // 1024 * 1024 if n >= 1024 else max(16, n // 16 * 16)


#: The shortest --max-model-len shardwise suggests: below it a request holds little more than a chat template and a
#: question (a system prompt alone often runs to several hundred tokens), and a multimodal model not one image of
#: the sizes its processor makes by default; a shorter length is no fix.
MIN_SUGGESTED_MAX_MODEL_LEN = 1024


def suggested_max_model_len(s: ReplicaSizing) -> tuple[int, bool]:
    """(the --max-model-len to suggest, whether it fits beyond the estimate's error band), rounded as people write it.

    The longest length that fits with the band taken off the KV budget where that is at least
    :data:`MIN_SUGGESTED_MAX_MODEL_LEN`; else the central estimate's (not sure: inside the band); else ``(0, False)``:
    no usable length fits even by the central estimate. A band edge that leaves nothing never becomes a
    suggestion of 16 tokens."""
    for fit, sure in ((s.max_model_len_fit_sure, True), (s.max_model_len_fit, False)):
        if fit >= MIN_SUGGESTED_MAX_MODEL_LEN:
            return round_max_model_len(fit), sure
    return 0, False


# --------------------------------------------------------------------------------------------------
# The summary
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """What one group's capacity comes to: the model, the GPU and one engine's sizing, or why there is none.

    The report (``workloads`` of every format), ``diff``, the stack export and the components' ``sizing``
    output all print this record, so they say the same of the same workload."""

    model: str | None  # the model's id (as written when the model is not known)
    gpu: str | None  # the catalog GPU's name, "custom" for a memory given alone, None when not known
    gpu_memory_gib: float | None
    sizing: ReplicaSizing | None
    note: str | None  # why there is no sizing: the model, an unknown input, no GPU

    @property
    def sized(self) -> bool:
        return self.sizing is not None


def summary(g: ServingGroup, config: Context) -> Summary:
    """The group's :class:`Summary` (made once per group and run setting)."""
    return per_group(g, f"summary:{config.p95_context_tokens}", lambda g: _summary(g, config))


def _summary(g: ServingGroup, config: Context) -> Summary:
    gpu = gpu_of(g)
    e = g.engine
    model = g.model.id if g.model is not None else (None if is_unknown(e.model) else e.model)
    name = gpu.name if gpu is not None else ("custom" if g.gpu_memory_gib_override else None)
    if g.model is None:
        return Summary(model, name, None, None, g.model_error or g.model_unknown or "model unknown")
    try:
        s = sizing(g, config)
        mem = gpu_memory_gib(g)
    except Undecidable as u:
        return Summary(model, name, None, None, f"unknown: {u.prop}")
    if s is None:
        note = "no GPU pool matches the workload" if g.pool is None else f"pool {g.pool.name} has no known GPU"
        return Summary(model, name, None, None, note)
    return Summary(model, name, mem, s, None)


# --------------------------------------------------------------------------------------------------
# An encoder-only embedder: weights only (round catalog21)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EncoderFit:
    """An encoder-only embedder judged on its weights alone: vLLM builds its attention as ``EncoderOnlyAttention``,
    whose ``get_kv_cache_spec`` returns None, so no KV budget or KV capacity bounds it. ``why`` says what kept the
    weights from being judged ("" where they were); ``usable_gib`` is None where the GPU is not known."""

    weights_gib: float | None
    dtype: str
    release: str
    usable_gib: float | None = None
    gpu_memory_gib: float | None = None
    utilization: float | None = None
    why: str = ""

    @property
    def refuses(self) -> bool:
        """The weights alone exceed the GPU's whole memory: the tensors counted are the ones vLLM allocates
        (:func:`.encoder.params`), so what it loads is at least this much, and loading them runs out of memory."""
        return (self.weights_gib is not None and self.gpu_memory_gib is not None
                and self.weights_gib > self.gpu_memory_gib)

    @property
    def over_budget(self) -> bool:
        """The weights exceed gpu_memory_utilization × the GPU's memory but not the whole of it. vLLM does not
        refuse that for a model without a KV cache: ``EngineCore._initialize_kv_caches`` profiles the memory only
        where some layer has a KV cache spec ("Attention free models don't need memory for kv cache",
        ``vllm/v1/engine/core.py`` in the 0.18.0, 0.20.0 and 0.34.0 wheels), so the budget is never compared with the
        weights; the server takes more of the GPU than it was given."""
        return (not self.refuses and self.weights_gib is not None and self.usable_gib is not None
                and self.weights_gib > self.usable_gib)

    def text(self, gpu: str) -> str:
        if self.why:
            return f"its weights were not judged: {self.why}"
        head = f"{self.weights_gib:.2f} GiB of weights in {self.dtype} on vLLM {self.release}, no KV cache"
        if self.usable_gib is None:
            return f"{head}; the GPU it lands on is not known"
        return (f"{head}, against the {self.usable_gib:.1f} GiB gpu_memory_utilization {self.utilization:g} × "
                f"{self.gpu_memory_gib:.1f} GiB ({gpu}) allows")


def encoder_fit(g: ServingGroup) -> EncoderFit | None:
    """The weights-only judgement of an encoder-only embedder whose config.json was read (``g.encoder_config``), or
    None for any other group. Raises Undecidable for an unknown value it reads."""
    cfg = g.encoder_config
    if cfg is None or g.model is not None:
        return None
    from . import encoder  # only an encoder's group needs it (start-up time)

    release = vllm_version(g)
    text = str(release.version)
    flag = known(g.engine.dtype, "dtype")
    flag = "auto" if flag is None else str(flag)
    try:
        dtype = encoder.dtype(cfg, flag)
    except encoder.EncoderShapeError as err:
        return EncoderFit(None, flag, text, why=str(err))
    tp, pp = tp_pp(g)
    if known(g.engine.quantization, "quantization"):
        return EncoderFit(None, dtype, text, why="a quantised encoder's weights are not modelled")
    quantised = cfg.get("quantization_config")
    if quantised is not None:  # a quantised checkpoint: vLLM loads it with its method, --quantization or not
        method = quantised.get("quant_method") if isinstance(quantised, dict) else None
        named = f", {method}" if isinstance(method, str) and method else ""
        return EncoderFit(None, dtype, text, why="a quantised encoder's weights are not modelled (config.json's "
                                                 f"quantization_config{named})")
    offload = known(g.engine.cpu_offload_gb, "cpu_offload_gb")
    if isinstance(offload, (int, float)) and not isinstance(offload, bool) and offload > 0:
        # vLLM moves up to that many GiB of each GPU's weights to CPU memory (models/utils.py maybe_offload_to_cpu)
        return EncoderFit(None, dtype, text, why=f"--cpu-offload-gb {offload:g} moves up to {offload:g} GiB of the "
                                                 "weights to CPU memory, which is not modelled")
    if tp * pp != 1:
        return EncoderFit(None, dtype, text, why=f"an encoder sharded over {tp * pp} GPUs is not modelled (TP {tp}, "
                                                 f"PP {pp})")
    try:
        major, minor, patch = (*release.version.parts, 0, 0, 0)[:3]
        weights = encoder.weights_bytes(cfg, (major, minor, patch), flag) / 1024**3
    except encoder.EncoderShapeError as err:
        return EncoderFit(None, dtype, text, why=str(err))
    mem = gpu_memory_gib(g)
    if not mem:
        return EncoderFit(weights, dtype, text)
    util = utilization(g.engine.gpu_memory_utilization)
    util = release.behaviour.gpu_memory_utilization if util is None else util
    return EncoderFit(weights, dtype, text, mem * util, mem, util)


def encoder_length(g: ServingGroup) -> tuple[int, str, str] | None:
    """The length vLLM derives for an encoder-only embedder whose config.json was read (:func:`.encoder.max_len`),
    what set it, and "" where every input that could raise it was read, else why it is not sure; None for any other
    group, or an encoder whose length is not read here (a release ``encoder.py`` did not read, ``--hf-overrides``)."""
    cfg = g.encoder_config
    if cfg is None or g.model is not None:
        return None
    from . import encoder  # only an encoder's group needs it (start-up time)

    parts = (*vllm_version(g).version.parts, 0, 0, 0)[:3]
    if not encoder.READ_FROM <= parts <= encoder.READ_TO:
        return None
    if any(k == "rope_scaling" or k.startswith("hf_overrides") for k in g.engine.extra):
        return None
    held = encoder.nomic_given_limit(cfg, (parts[0], parts[1], parts[2]))
    if held is not None:  # NomicBERT up to 0.21: a given --max-model-len is held to max_trained_positions
        return held, ("max_trained_positions, which NomicBertModelConfig holds a given --max-model-len to, whatever "
                      "sentence_bert_config.json says"), ""
    sentence = g.encoder_siblings.get("sentence_bert_config.json")
    tokenizer = g.encoder_siblings.get("tokenizer_config.json")
    try:
        length = encoder.max_len(cfg, sentence if isinstance(sentence, dict) else None,
                                 tokenizer if isinstance(tokenizer, dict) else None, (parts[0], parts[1], parts[2]))
    except encoder.EncoderShapeError:
        return None
    if isinstance(sentence, dict) and "do_lower_case" in sentence and isinstance(sentence.get("max_seq_length"), int):
        return length, "sentence_bert_config.json's max_seq_length", ""
    # sentence_bert_config.json replaces the length up or down: where it is absent or not read here, the checkpoint
    # vLLM loads may have one; tokenizer_config.json only lowers it, so its absence leaves an upper bound
    how = "config.json's length keys" + (", capped by tokenizer_config.json's model_max_length"
                                         if isinstance(tokenizer, dict) and "model_max_length" in tokenizer else "")
    if sentence is None:
        return length, how, ("there is no sentence_bert_config.json beside the config.json, and the checkpoint vLLM "
                             "loads may have one, whose max_seq_length replaces the length")
    if isinstance(sentence, str):
        return length, how, f"sentence_bert_config.json beside the config.json was not read: {sentence}"
    return length, how, ""
