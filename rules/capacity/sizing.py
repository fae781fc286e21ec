"""The capacity model: what vLLM does with each GPU's memory at start-up, for the release being deployed.

Every figure is per GPU unless its name says otherwise. GiB = 2**30 bytes, GB = 10**9 bytes.

vLLM sizes its KV cache once, at start-up (``determine_available_memory`` in V1,
``determine_num_available_blocks`` in V0)::

    available KV memory = total × gpu_memory_utilization − weights − activation peak
                          − non-torch memory [− CUDA graphs, V1 0.20+]

It measures the last three by running one dummy forward pass of ``max_num_batched_tokens`` tokens
(plus the multimodal encoder and a dummy sampler run); shardwise estimates them with the documented
coefficients of :class:`Estimates`, and the sum of those estimates' error is the **error band** a
blocking finding must clear. Which terms a release measures, its defaults (``max_num_seqs``,
``max_num_batched_tokens``, chunked prefill) and how it lays out and reports the KV cache come from
the table in :mod:`shardwise.rules.vllm.versions`; the layout (full, sliding-window, chunked, state layers, MLA)
from :mod:`shardwise.rules.vllm.kv_layout`.

What vLLM does not charge to the budget has to fit the rest, ``total × (1 − gpu_memory_utilization)``
(:func:`_margin`): the CUDA context and NCCL's communicators (V1 refuses when they leave less free than
the budget), and after sizing the CUDA graphs (before 0.20) and the sampler warm-up (V1 runs out of
memory). An unset ``gpu_memory_utilization`` is the release's default (0.9; 0.92 from 0.20).

From 0.34 vLLM sizes an **extensible KV cache** (on by default on CUDA and ROCm: :func:`extensible_kv_cache`)
after the warm-up and the CUDA graph capture, from the memory then in use (``v1/worker/extensible_kv_cache.py``
``measure_kv_cache_bytes``)::

    available KV memory = min(total × utilization − in use, free at start − in use − margin) − peak
    in use = weights + non-torch memory + CUDA graphs (+ Model Runner V2's kept buffers)
    peak   = the profile's activation peak + the CUDA graph estimate;  margin = max(1 GiB (3 on ROCm), 0.75 × peak)

with an unset utilization 1.0; nothing is allocated after it is sized, so nothing has to fit outside it.

Weights per GPU = embeddings ÷ TP (16-bit even in quantised checkpoints) + other parameters × bytes
per parameter ÷ TP, per pipeline stage; with ``--enable-expert-parallel`` the routed experts are
spread over TP × DP ranks instead of split by TP.

The one function the rules, ``plan`` and the report call is :func:`size_deployment` (through the front door,
:mod:`.group`); the rule-of-thumb functions are re-exported here unchanged, and so are the public names of its
parts: :mod:`.estimates` (the coefficients of what vLLM measures) and :mod:`.weights` (precision, weights, MXFP4
experts, KV bytes per token).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from dataclasses import fields as dataclass_fields
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from ..catalog.accelerators import unified_memory_product, vendor_of
from ..model.inventory import world_size
from ..model.records import python_class
from ..model.shapes import GpuInfo, ModelShape, Precision, Vendor
from ..vllm import flags, kv_dtypes, kv_layout, mm_args, model_dtype, nas, quant_capability
from ..vllm.support import MTP_METHODS, draft_pp_refusal, encoder_tp_data, pp_refusal
from ..vllm.versions import (
    RANGES,
    Behaviour,
    ResolvedVersion,
    Version,
    batch_defaults,
    cudagraph_estimate_in_budget,
    parse_version,
    possible_rows,
    resolve,
)
from .draft import NO_DRAFT, Draft, draft, mtp_layers
from .estimates import (  # noqa: F401  (capacity/sizing keeps its public names)
    DEFAULT_ESTIMATES,
    Estimates,
)
from .weights import (  # noqa: F401  (capacity/sizing keeps its public names)
    _MOE_LAYER_KEYS,
    BYTES_PER_PARAM,
    DTYPE_PRECISION,
    EXPERTS_ONLY_QUANTIZATION,
    GB,
    GIB,
    MXFP4_BACKENDS,
    QUANTIZATION_PRECISION,
    VLLM_QUANTIZATION_METHODS,
    Mxfp4Backend,
    QuantizationUnknown,
    _cfg_int,
    _checkpoint_expert_bias_params,
    _round_up,
    activation_dtype_bytes,
    attention_unquantised,
    bytes_per_param,
    derived_limits,
    derived_max_model_len,
    expert_padding,
    expert_params,
    kv_bytes_per_token_per_gpu,
    kv_dtype_bytes,
    mla_dequantised_bytes,
    moe_layers,
    mxfp4_backend,
    mxfp4_expert_bytes,
    overridden_rope_config,
    per_layer_embedding_params,
    quantization_precision,
    quantization_vendor_refusal,
    replicated_params,
    rope_parameter_sets,
    stage_share,
    top_override_readings,
    transformers_tower_params,
    unbuilt_indexer_params,
    unbuilt_tower_params,
    weight_precision,
    weights_bytes,
    weights_gb,
)

if TYPE_CHECKING:
    from .seeds import (  # noqa: F401  (public API: the rule-of-thumb functions)
        autoscale,
        concurrency,
        gpus_needed,
        kv_per_req,
        kv_per_req_gib,
        max_concurrent_requests,
        per_request_kv_gb,
        plan_cost,
        topology,
        tp_comm_gib_per_tok,
        tp_weight_gib,
        validate,
        validate_per_gpu,
    )

#: vLLM's default before 0.20.0 (0.92 from then: ``Behaviour.gpu_memory_utilization``).
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
DEFAULT_BLOCK_SIZE = 16  # before 0.34 (``Behaviour.default_block_size``)
#: vLLM 0.34's extensible KV cache keeps ``max(floor, fraction × peak)`` free beside the peak itself
#: (``v1/worker/extensible_kv_cache.py`` ``KV_CACHE_MARGIN_FLOOR_BYTES``: 1 GiB, 3 GiB on ROCm;
#: ``KV_CACHE_MARGIN_FRACTION`` 0.75)
EXTENSIBLE_MARGIN_FLOOR_GIB = {"nvidia": 1.0, "amd": 3.0}
EXTENSIBLE_MARGIN_FRACTION = 0.75
#: V0's ``max_num_seqs`` default (and V1's on GPUs under 70 GiB).
DEFAULT_MAX_NUM_SEQS = 256
#: ``tuple.__new__``: the sizing's named tuples made as their own ``__new__`` makes them (``collections.namedtuple``
#: writes ``def __new__(_cls, a, b=...): return _tuple_new(_cls, (a, b))``), every field given, defaults included.
#: Called as a class (``_Weights(...)``), a named tuple goes through ``type.__call__``, a look-up of ``__new__`` and a
#: Python frame for it: about 3,800 instructions each, and a fresh sizing makes about nineteen (2.6 % of a lint of
#: the generated manifests' instructions); the same tuple this way costs about a third of that.
_tuple_new: Final = tuple.__new__


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


#: The least compute capability of each NVIDIA architecture label whose parts share one major version (NVIDIA's CUDA
#: GPUs page): what :meth:`Device.capability` takes for a device that names only its label. ``blackwell`` is not one:
#: B200/GB200 are 10.0, B300/GB300 10.3, the RTX 50 and RTX PRO Blackwell cards 12.0, GB10 12.1.
_LABEL_CAPABILITY: dict[str, tuple[int, int]] = {"volta": (7, 0), "turing": (7, 5), "ampere": (8, 0), "ada": (8, 9),
                                                  "hopper": (9, 0)}


@dataclass(frozen=True)
class Device:
    """One GPU as the runtime reports it."""

    name: str
    memory_gib: float  # total, as torch.cuda.mem_get_info reports it
    vendor: Vendor = "nvidia"  # the vendor table's (catalog/data/accelerators.json)
    architecture: str = ""  # "turing"/"volta": compute capability below 8.0
    #: GPUs of one node that NVLink (AMD: XGMI) joins all-to-all: 1 on PCIe-only nodes, 2 for NVLink-bridged
    #: pairs, 8 on HGX boards. None: not known (sized as if they were all joined).
    nvlink_domain: int | None = None
    #: The most the runtime may report on this part where its memory is the catalog's and depends on a setting the
    #: manifest never shows (ECC on a GDDR card: :attr:`GpuInfo.memory_gib_ecc_off`); ``memory_gib`` is then the
    #: least. None: one figure.
    memory_gib_high: float | None = None
    #: The least it may report where ``memory_gib`` is the catalog's ECC-off figure (:attr:`GpuInfo.memory_gib_ecc_on`):
    #: what a finding that the model fits on fewer GPUs is judged at (SW104). None: one figure.
    memory_gib_low: float | None = None
    #: CUDA compute capability (major, minor), the catalog's (:attr:`GpuInfo.compute_capability`). None: not given
    #: (:meth:`capability` then reads it from the architecture where the label fixes it).
    compute_capability: tuple[int, int] | None = None

    def capability(self) -> tuple[int, int] | None:
        """The compute capability vLLM's ``has_device_capability`` / ``is_device_capability`` /
        ``is_device_capability_family`` test on this GPU: the one given, else the least of its architecture where the
        label holds one major version and no decision here falls between its parts (:data:`_LABEL_CAPABILITY`: A100
        8.0 and RTX 3090 8.6 are both below 8.9); None for another vendor and for a ``blackwell`` (10.0, 10.3, 12.0,
        12.1) or unnamed part without one: not known."""
        if self.vendor != "nvidia":
            return None
        if self.compute_capability is not None:
            return self.compute_capability
        return _LABEL_CAPABILITY.get(self.architecture)

    @classmethod
    def of(cls, gpu: GpuInfo | None, memory_gib: float | None = None, interconnect: str | None = None,
           nvlink_domain: int | None = None) -> Device:
        """The catalog GPU (or a GPU known only by its memory); ``interconnect`` and ``nvlink_domain`` are the
        node pool's where it says them, else the part's usual ones from the catalog."""
        if gpu is None:
            if not memory_gib:
                raise ValueError("a GPU or its memory is needed")
            domain = 1 if interconnect == "pcie" else nvlink_domain
            return cls("custom GPU", float(memory_gib), nvlink_domain=domain)
        # who makes it: the vendor table's family of the resource its device plugin advertises
        vendor = vendor_of(gpu.k8s_resource) or gpu.vendor
        link = interconnect or gpu.interconnect
        domain = 1 if link == "pcie" else (nvlink_domain or gpu.nvlink_domain_size or None)
        # the ECC-off and ECC-on figures, only where the memory is the catalog's own (not a label's, not measured)
        high, low = gpu.memory_gib_ecc_off, gpu.memory_gib_ecc_on
        if memory_gib and float(memory_gib) != gpu.memory_gib:
            high = low = None
        return cls(gpu.name, float(memory_gib or gpu.memory_gib), vendor, gpu.architecture,  # type: ignore[arg-type]
                   domain, high if high and high > gpu.memory_gib else None,
                   low if low and low < gpu.memory_gib else None, gpu.compute_capability)


@python_class
@dataclass(frozen=True)
class EngineSettings:
    """The vLLM engine arguments the capacity model reads; None means vLLM's default."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    expert_parallel: bool = False
    gpu_memory_utilization: float | None = None  # None: the release's default (0.9; 0.92 from 0.20; 1.0 extensible)
    max_model_len: int | str | None = None  # "auto": vLLM fits it to the KV cache (0.14+)
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    enable_chunked_prefill: bool | None = None
    dtype: str = "auto"
    quantization: str | None = None
    kv_cache_dtype: str = "auto"
    block_size: int | None = None
    enforce_eager: bool = False
    allow_long_max_model_len: bool = False  # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
    offline: bool = False  # the LLM class (vLLM's LLM_CLASS usage context), not `vllm serve`
    kv_cache_memory_bytes: int | None = None  # --kv-cache-memory-bytes: the KV cache, no budget (0.10.2+)
    #: Whether FlashInfer is installed: None for the official vllm/vllm-openai image (it is); False for a
    #: ``pip install vllm`` where the release's wheel does not bring it (``Behaviour.pip_flashinfer``).
    flashinfer_installed: bool | None = None
    pip_install: bool = False  # vLLM installed from PyPI in the container (not the official image)
    flashinfer_sampler: bool | None = None  # VLLM_USE_FLASHINFER_SAMPLER=1/0 (None: unset)
    #: VLLM_FUSED_MOE_CHUNK_SIZE (None: unset, the release's default): the tokens a fused-MoE layer routes at once,
    #: where the release reads it (:func:`moe_chunk_tokens`)
    moe_chunk_size: int | None = None
    #: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1/0 (None: unset, the release's default): whether the CUDA-graph
    #: estimate comes out of the KV budget, where the release reads the variable (``Behaviour.cudagraph_profiler_env``)
    cudagraph_profiling: bool | None = None
    #: the pooling runner (``--runner pooling``, ``--task embed`` and the like): V1 runs the pooler where it would
    #: run the sampler, in the profile and in the warm-up (:func:`.group.pooling_runner`)
    pooling: bool = False
    #: --enable-prefix-caching (None: vLLM's default, which for models with state layers is off before 0.28 and on
    #: from 0.28, :func:`prefix_caching_on`; on puts their states in a Mamba cache mode,
    #: ``kv_layout.with_mamba_cache_mode``)
    enable_prefix_caching: bool | None = None
    #: --mamba-cache-dtype and --mamba-ssm-cache-dtype as written ("auto": the default), the dtypes of a state layer's
    #: conv and recurrent state (:func:`.kv_layout.state_dtype_bytes`), which set its page and the Mamba cache blocks
    mamba_cache_dtype: str = "auto"
    mamba_ssm_cache_dtype: str = "auto"
    speculative_method: str | None = None  # --speculative-config's method ("mtp", "eagle", ...; None: none)
    #: --speculative-config's ``num_speculative_tokens`` (None: not given; an MTP method then drafts as many tokens as
    #: the model has MTP layers, :func:`speculative_token_count`)
    speculative_tokens: int | None = None
    #: --speculative-config's ``model``: the drafter checkpoint (an EAGLE head, a draft model, a Gemma 4 assistant);
    #: None where it names none (an MTP head of the target, a CPU proposer)
    speculative_model: str | None = None
    #: --speculative-config's ``draft_tensor_parallel_size`` (None: the target's TP): 1 puts the whole drafter on every
    #: GPU that runs it
    speculative_draft_tp: int | None = None
    #: --compilation-config's ``cudagraph_mode`` (None: the release's default; :func:`cudagraph_captures` reads
    #: ``PIECEWISE``, no full decode graphs, and ``NONE``, no graphs)
    cudagraph_mode: str | None = None
    #: --async-scheduling / --no-async-scheduling (None: the release's default, :func:`async_scheduling`)
    async_scheduling: bool | None = None
    use_v1: bool | None = None  # VLLM_USE_V1=1/0 (None: unset): 0 selects the V0 engine where it still exists
    #: ``--mm-processor-kwargs`` ``max_pixels`` (or ``size.longest_edge``): the largest image Qwen's processors make,
    #: which sizes the image vLLM profiles (None: the checkpoint's preprocessor default)
    mm_max_pixels: int | None = None
    #: ``--limit-mm-per-prompt`` as (modality, items) pairs; a modality it does not name keeps the release's default
    mm_limits: tuple[tuple[str, int], ...] = ()
    #: ``--limit-mm-per-prompt`` / ``--mm-processor-kwargs`` as written (flag, value): the release's parser may
    #: refuse them (:func:`_mm_args_refusal`)
    mm_args: tuple[tuple[str, str], ...] = ()
    #: Whether ``mm_args`` reach vLLM's parser as written: the container runs vLLM itself (its command names it, or
    #: the image's entrypoint is vLLM's). Where not (another image's entrypoint, which may run its args through a
    #: shell), a refusal caused only by shell quotes around a value is not certain (:func:`_mm_args_refusal`).
    mm_args_verbatim: bool = True
    #: ``--mm-encoder-tp-mode`` (None: vLLM's default, ``weights``): ``data`` keeps the multimodal encoder's weights
    #: whole on every tensor-parallel rank where the release and the model support it (:func:`.support.encoder_tp_data`)
    mm_encoder_tp_mode: str | None = None
    #: ``--enable-extensible-kv-cache`` / ``--no-enable-extensible-kv-cache`` (0.34+; None: vLLM's default, on for
    #: CUDA and ROCm); ``--num-gpu-blocks-override`` turns it off too (:func:`extensible_kv_cache`)
    extensible_kv_cache: bool | None = None
    #: vLLM's torch.compile cache at start-up: "cold" (the profile run compiles the model: a fresh pod, or a compile
    #: cache under ``VLLM_CACHE_ROOT`` / ``~/.cache/vllm`` that no earlier start on this release filled) or "warm" (the
    #: compiled graphs are loaded from it). A Kubernetes pod starts cold: a persisted cache volume is warm only after a
    #: first start has filled it, and that first start must fit too (:func:`cold_compile_gib`).
    compile_cache: Literal["cold", "warm"] = "cold"
    #: ``--all2all-backend`` as written (None: not given), the MoE dispatch backend of a DP engine with expert
    #: parallelism where the release has the flag (:func:`all2all_backend`)
    all2all_backend: str | None = None
    #: ``VLLM_ALL2ALL_BACKEND`` (None: unset), read as ``Behaviour.all2all_env`` says
    all2all_backend_env: str | None = None
    #: ``VLLM_DEEPEP_BUFFER_SIZE_MB`` (None: unset, 1,024): the MiB of each DeepEP buffer (:func:`all2all_buffers_gib`)
    deepep_buffer_mb: int | None = None
    #: ``VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE=1``: DeepEP high-throughput takes no RDMA buffer across nodes
    deepep_force_intra_node: bool = False
    #: ``VLLM_MOE_DP_CHUNK_SIZE`` (None: unset, 256): the tokens a DP rank dispatches at once, which sizes DeepEP
    #: low-latency's RDMA buffer (``FusedMoEConfig.max_num_tokens``)
    moe_dp_chunk_size: int | None = None
    #: ``VLLM_USE_DEEP_GEMM``, ``VLLM_MOE_USE_DEEP_GEMM`` and ``VLLM_USE_FLASHINFER_MOE_FP8`` as set (None: unset, the
    #: release's default): whether block-FP8 experts run on DeepGEMM (:func:`deepgemm_moe_picked`)
    use_deep_gemm: bool | None = None
    moe_use_deep_gemm: bool | None = None
    flashinfer_moe_fp8: bool | None = None
    #: ``VLLM_ROCM_USE_AITER`` and ``VLLM_ROCM_USE_AITER_MOE`` as set (None: unset, off and on by default): on ROCm
    #: both on run the experts on AITER (``is_rocm_aiter_moe_enabled``), not the Triton ``fused_experts_impl``
    rocm_aiter: bool | None = None
    rocm_aiter_moe: bool | None = None
    #: ``--enable-eplb``: vLLM's expert-parallel load balancer, whose redundant experts every EP rank holds beside its
    #: share of the routed ones (:func:`redundant_experts`)
    enable_eplb: bool = False
    #: the redundant experts given (``--eplb-config``'s ``num_redundant_experts``, its dotted form, or 0.11's
    #: ``--num-redundant-experts``); None: not given, the release's default (:func:`redundant_experts`)
    num_redundant_experts: int | None = None
    #: ``--prefill-context-parallel-size`` (``-pcp``): its ranks are GPUs of the engine (``world_size``), each holding
    #: the ``pcp`` group's communicator (:func:`device_communicators`); it decides EPLB's refusal at TP × DP of 1
    #: (:func:`eplb_refusal`; 0.26+ counts it in the EP world). 1 where absent, or where only EPLB reads it and a value
    #: not known decides nothing
    prefill_context_parallel: int = 1
    #: ``--cpu-offload-gb`` as the bytes vLLM counts to (``int(cpu_offload_gb * 1024**3)``; None: none): the decoder
    #: layers' parameters of each GPU it keeps in pinned CPU memory (:func:`_stage_weights_of`). The capacity front
    #: door sets it only where the offload is modelled (:func:`.group._offload`)
    cpu_offload_bytes: int | None = None


#: Every field of :class:`EngineSettings` with its default, in the class's order (:func:`engine_settings_of`).
_SETTINGS_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclass_fields(EngineSettings)}


def engine_settings_of(given: dict[str, Any]) -> EngineSettings:
    """``EngineSettings(**given)``, made without the frozen dataclass's ``__init__``, which sets its forty fields one
    ``object.__setattr__`` at a time after matching forty keyword arguments (about 60,000 instructions, 8.5 us, per
    serving group of a lint; a dict of the defaults updated with ``given`` about 1 us): ``given`` must name fields.
    The same object as ``EngineSettings(**given)``; tests/capacity/test_sizing.py holds the two equal."""
    assert given.keys() <= _SETTINGS_DEFAULTS.keys(), given
    d = dict(_SETTINGS_DEFAULTS)
    d.update(given)
    s = object.__new__(EngineSettings)
    object.__setattr__(s, "__dict__", d)
    return s


# --------------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------------

Verdict = Literal["starts", "may-refuse", "refuses"]


@python_class
@dataclass(frozen=True)
class ReplicaSizing:
    """One vLLM engine (TP × PP GPUs of one type) of one model: what vLLM will do at start-up."""

    model_id: str
    vllm_version: str
    vllm_version_note: str
    engine: str  # "v0" | "v1"
    tensor_parallel_size: int
    pipeline_parallel_size: int
    data_parallel_size: int
    expert_parallel: bool
    gpus: int  # per engine (vLLM's world_size, TP × PP × PCP)
    gpu_memory_gib: float
    gpu_memory_utilization: float
    weight_precision: str
    kv_cache_dtype_bytes: int
    weights_gb_total: float
    weights_gib_per_gpu: float
    activation_gib_per_gpu: float  # the torch peak increase vLLM measures (forward, encoder, sampler)
    sampler_gib_per_gpu: float
    encoder_gib_per_gpu: float
    non_torch_gib_per_gpu: float
    cudagraph_gib_per_gpu: float
    cudagraphs_in_budget: bool
    usable_gib_per_gpu: float  # total × gpu_memory_utilization
    available_kv_gib: float  # vLLM's "Available KV cache memory" (negative: nothing left)
    kv_cache_gib_per_gpu: float  # max(available, 0)
    error_band_gib: float  # how much LESS KV budget vLLM may find than estimated (its weights the band's high side)
    #: how much MORE it may find (the weights' low side, ``weights_error_below_gib``): where a refusal or a load
    #: that does not fit stops being sure
    error_band_above_gib: float
    kv_bytes_per_token_per_gpu: int  # attention layers vLLM caches, on the stage that caches most per token
    block_size: int
    kv_cache_tokens: int  # vLLM's "GPU KV cache size: N tokens"
    max_concurrency: float  # vLLM's "Maximum concurrency for max_model_len tokens per request: X"
    hybrid_kv: bool
    model_max_len: int  # what vLLM derives from config.json
    max_model_len: int
    max_model_len_fit: int  # the longest max_model_len one request fits (central estimate)
    max_num_seqs: int
    max_num_seqs_default: bool
    max_num_batched_tokens: int
    expected_context: int
    concurrency_at_expected_context: int
    context_kv_gib: float  # KV cache one sequence of the expected context occupies
    load_tokens: int  # max_num_seqs × expected context, block-rounded
    needed_kv_gib: float  # one max_model_len request, as vLLM checks it
    max_model_len_fit_sure: int  # ... with the error band taken off the KV budget
    weights_fit: bool  # central estimate
    weights_error_gib: float  # how much MORE vLLM may load than the estimate
    weights_error_below_gib: float  # how much LESS (narrow for an unquantised checkpoint: :func:`weights_band`)
    weights_fit_band: Verdict
    starts: bool  # central estimate
    verdict: Verdict  # with the error band: the KV cache and the margin outside the budget together
    kv_verdict: Verdict  # one max_model_len request in the KV budget, with the error band (SW102)
    margin_gib: float  # total × (1 − gpu_memory_utilization): what the budget leaves outside
    margin_need_gib: float  # what has to fit there: context, NCCL, graphs and sampler warm-up after sizing
    margin_verdict: Verdict  # whether it fits, with its own error band (SW101)
    margin_failure: str  # how vLLM fails when it does not ("" when it fits)
    margin_after_sizing: bool  # the failure is the after-sizing one (graphs, sampler warm-up): not certain
    refusal: str  # vLLM's reason when it refuses (central estimate or a certain error), else ""
    certain: bool  # the refusal does not depend on an estimate (a configuration vLLM rejects)
    headroom_gib_per_gpu: float  # KV budget left after the declared load
    #: the KV cache's blocks (vLLM's ``kv_cache_config.num_blocks``) where the release checks ``max_num_seqs`` against
    #: them (a model with state layers, full decode CUDA graphs: :func:`mamba_seqs_check`), else 0; central estimate
    mamba_blocks: int
    mamba_blocks_sure: int  # ... with the error band taken off the KV budget: the --max-num-seqs that surely starts
    mamba_verdict: Verdict  # max_num_seqs against those blocks, with the error band ("starts" where not checked)
    #: the batch vLLM compares with those blocks: max_num_seqs (0.20+) or the largest full decode graph (0.14-0.17)
    mamba_batch: int
    notes: tuple[str, ...] = field(default=())
    #: the KV cache's blocks at the central budget (vLLM's ``kv_cache_config.num_blocks``): with
    #: :attr:`max_concurrency`, the blocks a request of ``max_model_len`` takes (``num_blocks ÷ concurrency``)
    kv_blocks: int = 0

    @property
    def kv_band_text(self) -> str:
        """The KV budget's band as messages give it (:func:`band_text`)."""
        return band_text(self.error_band_gib, self.error_band_above_gib)

    @property
    def weights_band_text(self) -> str:
        """The weights' band as messages give it: how much fewer, how much more (:func:`band_text`)."""
        return band_text(self.weights_error_below_gib, self.weights_error_gib)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["notes"] = list(self.notes)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 3)
        return d


def _blocks(tokens: int, block: int) -> int:
    return -(-tokens // block)


# --------------------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------------------


#: Facts of one model that sizing reads again and again (its context limit, its rotary cache, its weights at a
#: precision, ...), by the model's identity: a model's shape does not change while it is alive, and the entry
#: holds the model, so its identity cannot be reused while the entry is there.
_FACTS: dict[int, tuple[ModelShape, dict[Any, Any]]] = {}


def _facts(model: ModelShape) -> dict[Any, Any]:
    """The memo of ``model``'s facts (:data:`_FACTS`)."""
    hit = _FACTS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    if len(_FACTS) >= 4096:
        _FACTS.clear()
    memo: dict[Any, Any] = {}
    _FACTS[id(model)] = (model, memo)
    return memo


def as_loaded(model: ModelShape, b: Behaviour) -> ModelShape:
    """``model`` as release ``b`` builds it. A checkpoint whose config.json ties the word embeddings but which stores
    an ``lm_head.weight`` of its own that differs from them (``ModelShape.distinct_lm_head``) is built untied from
    0.29 (``Behaviour.unties_distinct_lm_head``: ``ModelConfig.maybe_untie_word_embeddings`` sets
    ``tie_word_embeddings`` False at both config levels when ``checkpoint_has_lm_head``; ``maybe_retie_word_embeddings``
    re-ties only equal tables): the head is one more ``vocab × hidden`` table, loaded 16-bit. Before 0.29 the model
    ties it as the config says and its ``load_weights`` skips the tensor (Gemma 4's ``skip.append("lm_head.")``, read
    in 0.28.0). A checkpoint that shares the sparse-attention indexer's top-k across layers (IndexCache's
    ``index_topk_freq`` / ``index_topk_pattern``: GLM-5.2) builds an indexer on its "full" layers only from 0.24
    (``Behaviour.shared_indexers_unbuilt``, :func:`.kv_layout.indexer_layer_ids`; the catalog counts the checkpoint's
    parameters, which hold those only); before, on every layer, as if the config named no sharing, with the
    parameters of the indexers the checkpoint does not hold (:func:`.weights.unbuilt_indexer_params`). The same
    object for the same model and release, so the memos keyed by identity keep working."""
    if (not b.shared_indexers_unbuilt and model.mla is not None
            and any(k in model.hf_config for k in kv_layout.INDEX_CACHE_KEYS)):
        memo = _facts(model)
        every = memo.get("as_loaded_every_indexer")
        if every is None:
            every = memo["as_loaded_every_indexer"] = replace(
                model, params=model.params + unbuilt_indexer_params(model),
                hf_config={k: v for k, v in model.hf_config.items() if k not in kv_layout.INDEX_CACHE_KEYS})
        model = every
    if not (model.distinct_lm_head and model.tie_word_embeddings and b.unties_distinct_lm_head):
        return model
    memo = _facts(model)
    untied = memo.get("as_loaded_untied")
    if untied is None:
        untied = memo["as_loaded_untied"] = replace(
            model, tie_word_embeddings=False, params=model.params + model.vocab_size * model.hidden_size)
    return untied  # type: ignore[no-any-return]


def mrope(model: ModelShape) -> bool:
    """Whether vLLM builds the model's rotary embedding as ``MRotaryEmbedding`` (``get_rope``: an ``mrope_section``
    in ``rope_scaling``, or ``rope_parameters`` in newer configs; Qwen2-VL, Qwen2.5-VL, Qwen3-VL, the Omni
    thinkers), whose cos/sin cache is larger (:func:`rotary_cache_bytes`)."""
    cfg = model.hf_config
    text = cfg.get("text_config")
    for c in (cfg, text if isinstance(text, dict) else {}):
        for key in ("rope_scaling", "rope_parameters"):
            rope = c.get(key)
            if isinstance(rope, dict) and "mrope_section" in rope:
                return True
    return False


def rotary_cache_bytes(model: ModelShape, mrope_scale: int = 1) -> int:
    """vLLM's rotary cos/sin cache, a buffer every GPU holds: context limit × rotary dim × 2 bytes per RoPE
    (Gemma 3 has a local and a global one). It is part of what vLLM logs as the weights. A multimodal RoPE's
    cache holds ``mrope_scale`` times the context limit (4 from vLLM 0.7.2, ``versions.py`` ``mrope_cache_scale``:
    0.12 GiB for Qwen2.5-VL's 128,000 positions instead of 0.03). Kimi-K3's MLA layers are NoPE (``mla_use_nope``):
    its ``MultiHeadLatentAttention`` builds no rotary embedding for them (``vllm/models/kimi_k3/nvidia/mla.py``,
    ``use_rope`` False), so it holds none."""
    cfg = model.hf_config
    if model.mla is not None and cfg.get("mla_use_nope") is True and "linear_attn_config" in cfg:
        return 0
    if model.mla is not None:
        return derived_max_model_len(model) * model.mla.qk_rope_head_dim * 2
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    ropes = 2 if ("rope_local_base_freq" in model.hf_config or model_type.startswith("gemma3")) else 1
    positions = derived_max_model_len(model) * (mrope_scale if mrope(model) else 1)
    return positions * (model.head_dim * ropes + _global_rope_dim(model)) * 2


def _global_rope_dim(model: ModelShape) -> int:
    """The width of Gemma 4's second rotary cache, 0 for every other model. ``Gemma4Attention`` calls ``get_rope``
    with the layer's own head size and ``rope_parameters[layer_type]``, and ``get_rope`` keeps one instance a key
    (head size, rotary dim, positions, parameters, dtype): the sliding layers share one cache of ``head_dim`` values a
    position (``rope_theta`` 10,000), the full-attention layers another of ``global_head_dim`` (rope type
    ``proportional``, theta 1,000,000), which ``Gemma4RotaryEmbedding`` builds with ``rotary_dim = head_size``,
    zero-padding the frequencies ``partial_rotary_factor`` leaves out (``rotary_embedding/gemma4_rope.py``; both read
    in the 0.20.0, 0.25.1, 0.29.0 and 0.30.0 wheels; each cache ``cache.to(dtype)``, the model's dtype:
    ``rotary_embedding/base.py``). 512 values a position on every Gemma 4 model: 0.125 GiB at E2B's and E4B's 131,072
    positions, 0.25 at the 26B's and 31B's 262,144."""
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    types = model.hf_config.get("layer_types")
    if not model_type.startswith("gemma4") or not isinstance(types, list) or "full_attention" not in types:
        return 0
    g = model.hf_config.get("global_head_dim")
    return g if isinstance(g, int) and not isinstance(g, bool) and g > 0 else model.head_dim


def redundant_experts(b: Behaviour, model: ModelShape, s: EngineSettings) -> int:
    """The redundant experts vLLM's EPLB adds to every MoE layer (``FusedMoE``: ``global_num_experts = num_experts +
    num_redundant_experts``, all of them spread over the EP ranks as the routed ones are): 0 without ``--enable-eplb``,
    without expert parallelism (vLLM refuses EPLB without it, and a count without EPLB: ``config/parallel.py``) or
    for a dense model; the count given; else 0 before 0.34 (``EPLBConfig.num_redundant_experts`` defaults to 0) and
    from 0.34 the least that makes the experts divide over the TP × DP ranks
    (``ParallelConfig.compute_eplb_num_redundant_experts``; prefill context parallelism is not modelled)."""
    if model.moe is None or not s.enable_eplb or not s.expert_parallel:
        return 0
    if s.num_redundant_experts is not None:
        return s.num_redundant_experts
    if not b.eplb_min_redundant:
        return 0
    ranks, experts = moe_ranks(s), model.moe.num_experts
    return (ranks - experts % ranks) % ranks


def offload_overshoot_gib(model: ModelShape, s: EngineSettings, precision: Precision) -> float:
    """GiB by which vLLM may offload more than ``--cpu-offload-gb``: it checks the cap before each parameter and moves
    the whole parameter (``_CPU_OFFLOAD_BYTES >= _CPU_OFFLOAD_MAX_BYTES`` then ``break``), so it overshoots by less
    than the largest parameter of a decoder layer on one GPU, at most the fused gate-and-up projection or the fused
    QKV projection (a KV head shared by several ranks counted on each); 0 without the flag."""
    if not s.cpu_offload_bytes:
        return 0.0
    tp, h = s.tp, model.hidden_size
    qkv = (-(-model.num_attention_heads // tp) + 2 * -(-model.num_key_value_heads // tp)) * model.head_dim * h
    mlp = 2 * -(-model.intermediate_size // tp) * h
    return max(qkv, mlp) * BYTES_PER_PARAM[precision] / GIB


def eplb_refusal(s: EngineSettings, b: Behaviour, version: Version) -> str:
    """vLLM's refusal of ``--enable-eplb`` (``Behaviour.eplb_needs_expert_parallel``: ParallelConfig raises before a
    layer is built, whatever the model) without ``--enable-expert-parallel``, or with it where the EP world is one
    rank: TP × DP of 1 (0.10.0 - 0.25.x), TP × PCP × DP of 1 (``Behaviour.eplb_world_counts_pcp``, 0.26+); else ""."""
    if not (s.enable_eplb and b.eplb_needs_expert_parallel):
        return ""
    if not s.expert_parallel:
        return (f"--enable-eplb without --enable-expert-parallel is refused at start-up by vLLM {version}'s "
                "ParallelConfig (vLLM: enable_expert_parallel must be True to use EPLB.); add "
                "--enable-expert-parallel or drop --enable-eplb")
    world, said = _eplb_world(s, b)
    if world > 1:
        return ""
    return (f"--enable-eplb at {_eplb_ranks(b)} of 1 is refused at start-up by vLLM {version}'s ParallelConfig "
            f"(vLLM: {said}); spread the model over more than one GPU (--tensor-parallel-size or "
            "--data-parallel-size above 1) or drop --enable-eplb")


def _eplb_ranks(b: Behaviour) -> str:
    return "TP × PCP × DP" if b.eplb_world_counts_pcp else "TP × DP"


def _eplb_world(s: EngineSettings, b: Behaviour) -> tuple[int, str]:
    """The EP world ParallelConfig checks for EPLB and what it says where that is 1 (config/parallel.py)."""
    if b.eplb_world_counts_pcp:
        return (s.tp * s.prefill_context_parallel * s.dp,
                "EPLB requires tensor, prefill-context, or data parallelism, but got "
                f"TP={s.tp}, PCP={s.prefill_context_parallel}, DP={s.dp}.")
    return (s.tp * s.dp, "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got "
            f"TP={s.tp},DP={s.dp}.")


#: The prefix of the "cannot decide" note of an ``--enable-eplb`` refusal under a release that is only assumed
#: (:func:`eplb_assumed_note`; SW102 reports it)
EPLB_ASSUMED = "cannot decide: enable_eplb: "


def eplb_assumed_note(rv: ResolvedVersion, s: EngineSettings) -> str:
    """The note where ``--enable-eplb`` is refused by the release the sizing assumed but not by every release
    (0.9.x starts it without expert parallelism and at TP × DP of 1; ``Behaviour.eplb_needs_expert_parallel`` from
    0.10.0): an image tag that names no release may run either, so the refusal is not sure (the rule a multimodal
    flag follows, :func:`_mm_args_refusal`)."""
    if not s.expert_parallel:
        return (f"{EPLB_ASSUMED}--enable-eplb without --enable-expert-parallel is refused at start-up from vLLM "
                f"0.10.0 (ParallelConfig: enable_expert_parallel must be True to use EPLB.) and started by 0.9.x, "
                f"and vLLM {rv.version} is only assumed; add --enable-expert-parallel or drop --enable-eplb, or pin "
                "the image to a release")
    b = rv.behaviour
    return (f"{EPLB_ASSUMED}--enable-eplb at {_eplb_ranks(b)} of 1 is refused at start-up from vLLM 0.10.0 "
            f"(ParallelConfig: {_eplb_world(s, b)[1]}), which 0.9.x does not check, and vLLM {rv.version} is only "
            "assumed; "
            "spread the model over more than one GPU (--tensor-parallel-size or --data-parallel-size above 1) or "
            "drop --enable-eplb, or pin the image to a release")


def moe_ranks(s: EngineSettings) -> int:
    """The GPUs an engine's fused-MoE layers are spread over: TP × DP × PCP. vLLM flattens the tensor-parallel,
    data-parallel and prefill-context-parallel ranks into one MoE group (``FusedMoEParallelConfig.make``,
    ``flatten_tp_across_dp_and_pcp``: "There are actually dp_size * pcp_size * tp_size devices", the pcp size from
    ``get_pcp_group().world_size``; fused_moe/config.py and layer.py of the 0.12.0, 0.19.0, 0.26.0 and 0.29.0 wheels),
    its expert-parallel group when expert parallelism is on; a release without PCP has PCP 1 (review30: engine24's
    ``-pcp 2`` charged each GPU every routed expert)."""
    return s.tp * s.dp * s.prefill_context_parallel


def _stage_weights(model: ModelShape, total_bytes: float, precision: Precision, s: EngineSettings,
                   stage: int, buffers: bool = True, device: Device | None = None,
                   triton_kernels: bool = True, mrope_scale: int = 1, scales_freed: bool = False,
                   towers_built: bool = True, redundant: int = 0) -> float:
    """Bytes of weights on one GPU of pipeline stage ``stage`` (the rotary cache included, a multimodal RoPE's
    ``mrope_scale`` times longer); ``triton_kernels``: whether OpenAI's Triton kernels are installed, and
    ``scales_freed`` whether the release frees their loaded MXFP4 scales once swizzled (:func:`mxfp4_backend`);
    ``redundant``: EPLB's redundant experts (:func:`redundant_experts`)."""
    # the backend is the only thing of the device and the image it reads, with Marlin's FP8 scales
    backend = mxfp4_backend(device, triton_kernels, scales_freed) if precision == "mxfp4" else None
    marlin = marlin_fp8_group(model, s, precision, device)
    ep = s.expert_parallel
    # the caller has already dropped a ``data`` mode the release or the model does not keep (:func:`_encoder_mode`)
    whole = s.mm_encoder_tp_mode == "data"
    key = ("stage_weights", total_bytes, precision, s.tp, s.pp, s.dp, ep, stage, buffers, backend, mrope_scale,
           s.quantization, whole, towers_built, redundant, s.cpu_offload_bytes, s.prefill_context_parallel, marlin)
    memo = _facts(model)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _stage_weights_of(model, total_bytes, precision, s.tp, s.pp, s.dp, ep, stage, buffers,
                                             backend, mrope_scale, s.quantization, whole, towers_built, redundant,
                                             s.cpu_offload_bytes or 0, s.prefill_context_parallel, marlin)
    return hit  # type: ignore[no-any-return]


#: The compute capabilities at which vLLM runs an FP8 checkpoint's layers with Marlin, weight-only: from Marlin's FP8
#: kernel (``is_fp8_marlin_supported``: capability 75) to below FP8's 8.9 (``Fp8LinearMethod``,
#: ``get_fp8_moe_backend``: ``not has_device_capability(89)``), :func:`marlin_fp8_group`.
_MARLIN_FP8: Final = ((7, 5), (8, 9))


def marlin_fp8_group(model: ModelShape, s: EngineSettings, precision: Precision, device: Device | None) -> int:
    """The weights along K one 16-bit Marlin scale covers where vLLM runs a block-FP8 checkpoint on a GPU without FP8
    (:data:`_MARLIN_FP8`), else 0 (a GPU whose capability is not known: 0). ``prepare_fp8_layer_for_marlin`` (and
    ``prepare_fp8_moe_layer_for_marlin`` for the experts; ``quantization/utils/marlin_utils_fp8.py``, the 0.12.0 and
    0.19.0 wheels) turns the checkpoint's ``(K / block_k, N / block_n)`` float32 block scales into group scales of the
    model's dtype, repeated along N (``repeat_interleave(block_n)``) to ``(K / block_k, N)``: 2 / block_k bytes a
    quantised weight, where the block scales were 4 / (block_k × block_n), which the checkpoint's 1 byte a weight leaves
    out (:func:`..catalog.hfconfig.weight_bytes_per_param`). A checkpoint quantised per tensor or per channel keeps a
    scale a column (``(1, N)``), nothing to count."""
    # the precision first: most checkpoints are not FP8, and this is asked for each of the sizing's weight steps
    if precision != "fp8" or model.precision != "fp8" or (s.quantization or "fp8").lower() != "fp8":
        return 0
    cc = device.capability() if device is not None else None
    if cc is None or not _MARLIN_FP8[0] <= cc < _MARLIN_FP8[1]:
        return 0
    q = model.hf_config.get("quantization_config")
    if not isinstance(q, dict) or str(q.get("quant_method", "")).lower() != "fp8":
        return 0
    block = q.get("weight_block_size")
    if not isinstance(block, list) or len(block) != 2 or not isinstance(block[1], int) or block[1] <= 0:
        return 0
    return int(block[1])


def _stage_weights_of(model: ModelShape, total_bytes: float, precision: Precision, tp: int, pp: int, dp: int,
                      expert_parallel: bool, stage: int, buffers: bool, backend: Mxfp4Backend | None,
                      mrope_scale: int = 1, quantization: str | None = None, encoder_whole: bool = False,
                      towers_built: bool = True, redundant: int = 0, offload: int = 0, pcp: int = 1,
                      marlin: int = 0) -> float:
    """``marlin``: the weights one Marlin scale covers where the GPU runs a block-FP8 checkpoint with Marlin
    (:func:`marlin_fp8_group`), 0 elsewhere: each quantised weight then holds 2 / ``marlin`` bytes of scale more, taken
    on the linear layers' and experts' bytes (the norms and router gates in them, under 0.1 %, with them).
    ``pcp``: ``--prefill-context-parallel-size``, whose ranks hold a share of the routed experts (:func:`moe_ranks`).
    ``quantization``: the ``--quantization`` flag; ``experts_int8`` (:data:`EXPERTS_ONLY_QUANTIZATION`) quantises
    the routed experts alone, so every other layer, the ones each TP rank holds whole included, stays 16-bit.
    ``encoder_whole``: the vision encoder runs in ``--mm-encoder-tp-mode data``, whole on every rank.
    ``redundant``: EPLB's redundant experts, whole experts more spread over the EP ranks with the routed ones.
    ``offload``: ``--cpu-offload-gb`` in bytes. vLLM builds each decoder layer of the stage (``make_layers``) and moves
    its parameters, one at a time and in order, to pinned CPU memory while the bytes it has moved are below the cap,
    reading them through a CUDA view (UVA) from then on: ``maybe_offload_to_cpu`` in models/utils.py (0.9.2 - 0.16.0),
    ``UVAOffloader`` in model_executor/offloader/uva.py (0.17.0 - 0.34.0). The embeddings, the LM head, the final norm
    and the rotary cache are not built there and stay; so the GPU holds its layers less ``min(offload, layers)`` (the
    final norm's few KiB counted with the layers), and at most one parameter less again (:func:`offload_overshoot_gib`).
    Only a dense, unquantised checkpoint without towers reaches here with it (:func:`.group._offload`)."""
    experts_only = (quantization or "").lower() in EXPERTS_ONLY_QUANTIZATION
    embed_one = model.vocab_size * model.hidden_size * (2.0 if BYTES_PER_PARAM[precision] < 2 else
                                                        BYTES_PER_PARAM[precision])
    embed_total = embed_one * (1 if model.tie_word_embeddings else 2)
    embed_total = min(embed_total, total_bytes)
    body = total_bytes - embed_total
    bpp = bytes_per_param(model, precision, quantization)
    experts = expert_params(model) * bpp if model.params else 0.0
    experts = min(experts, body)
    # The routed experts are spread over the TP × DP × PCP ranks of the replica with or without expert parallelism
    # (vLLM's FusedMoEParallelConfig.make, ``flatten_tp_across_dp_and_pcp``): whole experts per rank with it, every
    # expert split TP × DP × PCP ways without it. The attention and dense layers stay split TP ways only.
    ep_ranks = tp * dp * pcp
    # EPLB's redundant experts: E + R experts over the EP ranks where there were E (``FusedMoE.global_num_experts``)
    spread = ((model.moe.num_experts + redundant) / model.moe.num_experts
              if redundant and expert_parallel and model.moe is not None else 1.0)
    share = stage_share(model, pp, stage)
    # vLLM's Mxfp4Config (gpt-oss) pads the experts per backend and always adds biases; compressed-tensors' MXFP4
    # (Kimi-K3's ``mxfp4-pack-quantized``) stores them as the checkpoint does, the rest of the layers as they are
    mxfp4_moe = not (precision == model.precision and (model.quantization or "") == "compressed-tensors")
    if precision == "mxfp4" and model.moe is not None and experts and buffers and mxfp4_moe:
        # the experts as vLLM's MXFP4 kernel pads and keeps them on this GPU; the rest is 16-bit
        bias = _checkpoint_expert_bias_params(model) * 2.0
        per_layer = (mxfp4_expert_bytes(model, tp, ep_ranks, backend) * spread if expert_parallel
                     else mxfp4_expert_bytes(model, ep_ranks, 1, backend))
        per_gpu = ((body - experts - bias) / tp + per_layer * moe_layers(model)) * share
    else:
        quantised, plain = replicated_params(model) if tp > 1 else (0, 0)
        kept = experts_only or (precision == model.precision and quantised and attention_unquantised(model))
        whole = quantised * (2.0 if kept else bpp) + plain * 2.0
        whole = min(whole, max(body - experts, 0.0))
        pad = expert_padding(model, tp)  # Kimi-K3 pads a narrow per-rank expert width (zeros, held all the same)
        held = (body - experts - whole) / tp + experts * pad * spread / ep_ranks
        if marlin:  # Marlin's 16-bit group scales on a block-FP8 checkpoint (:func:`marlin_fp8_group`)
            held += (held + (0.0 if kept else quantised * bpp)) * 2.0 / (marlin * bpp)
        per_gpu = (held + whole) * share
    if offload:
        per_gpu -= min(float(offload), per_gpu)  # the stage's layers on this GPU, less what vLLM moved to CPU memory
    # A tower built by transformers' AutoModel (Gemma 4, Gemma 3n) sits whole on every GPU of the replica, at the
    # model's dtype: out of the share TP and PP divide (as ``weights_bytes`` counted it), in again whole. So does any
    # vision encoder under ``--mm-encoder-tp-mode data`` at TP > 1 (its linears built with ``disable_tp``; the
    # model's class builds it on every pipeline stage)
    tower = transformers_tower_params(model) or (max(model.vision_params, 0) if encoder_whole and tp > 1 else 0)
    tower = tower if towers_built else 0  # a tower vLLM does not build is out of ``total_bytes`` already
    if tower and (tp > 1 or pp > 1):
        counted = tower * (2.0 if (BYTES_PER_PARAM[precision] >= 2.0 or precision == model.precision)
                           else bpp)
        counted = min(counted, max(body - experts, 0.0))
        per_gpu += tower * 2.0 - counted / tp * share
    if buffers:
        per_gpu += rotary_cache_bytes(model, mrope_scale)
        if not experts_only:  # experts_int8 leaves kv_b_proj unquantised: no 16-bit copy
            per_gpu += mla_dequantised_bytes(model, precision, tp) * share
    if pp == 1:
        per_gpu += embed_total / tp
    else:
        if stage == 0:
            per_gpu += embed_one / tp
        if stage == pp - 1:
            per_gpu += (embed_total - embed_one if not model.tie_word_embeddings else embed_one) / tp
    return per_gpu


def _mm_args_refusal(s: EngineSettings, b: Behaviour, rv: ResolvedVersion) -> tuple[str, bool]:
    """Why vLLM's argument parser exits on a multimodal flag as written (``vllm/mm_args.py``), else "", and whether
    that is certain. Where the release is only assumed (an image tag that names none), only a value no release reads
    is refused. A refusal caused only by shell quotes around a value that is read without them is certain only where
    the args reach vLLM's parser verbatim (``EngineSettings.mm_args_verbatim``)."""
    for flag, value in s.mm_args:
        how = b.mm_limit_parse if flag == mm_args.LIMIT_FLAG else b.mm_kwargs_parse
        why = mm_args.refusal(flag, value, how, str(rv.version))
        if why and rv.source != "assumed":
            return why, s.mm_args_verbatim or not mm_args.quotes_only(flag, value, how)
        if why and mm_args.refused_by_every_release(flag, value):
            why += mm_args.no_release_reads(flag, value)
            return why, s.mm_args_verbatim or not mm_args.quotes_only(flag, value, None)
    return "", False


def moe_chunk_tokens(b: Behaviour, s: EngineSettings) -> int:
    """The tokens a fused mixture-of-experts layer routes at once, 0 where the release routes the whole batch:
    ``VLLM_FUSED_MOE_CHUNK_SIZE`` where the engine's environment sets it and the release reads it, else the release's
    default (``Behaviour.moe_chunk_tokens``: 65,536 in 0.5.1 - 0.5.5, 32,768 from 0.6.0, 16,384 from 0.12.0; none
    before 0.5.1 nor from 0.18.0, where the variable is not read)."""
    if b.moe_chunk_tokens and s.moe_chunk_size is not None:
        return s.moe_chunk_size
    return b.moe_chunk_tokens


#: The dispatch backends whose kernels hold DeepEP buffers (:func:`all2all_buffers_gib`)
DEEPEP_BACKENDS = ("deepep_high_throughput", "deepep_low_latency")
#: vLLM's defaults of ``VLLM_DEEPEP_BUFFER_SIZE_MB`` and ``VLLM_MOE_DP_CHUNK_SIZE`` (``envs.py``, 0.11.0 - 0.30.0)
DEEPEP_BUFFER_MB = 1024
MOE_DP_CHUNK_TOKENS = 256
#: The most GPUs one node of the catalog holds: a wider expert-parallel group spans nodes (:func:`all2all_buffers_gib`)
NODE_GPUS_MAX = 8


def all2all_backend(b: Behaviour, s: EngineSettings) -> str:
    """The MoE dispatch backend the engine runs (``Behaviour.all2all_env``): before 0.11.1 ``VLLM_ALL2ALL_BACKEND``
    or the release's default; 0.11.1 - 0.13 ``--all2all-backend``, else the variable, else the default; 0.14 - 0.17
    the variable where set, else the flag, else the default; from 0.18 the flag, else the default."""
    flag, env = s.all2all_backend, s.all2all_backend_env
    if b.all2all_env == "only":
        return env or b.all2all_backend
    if b.all2all_env == "override":
        return env or flag or b.all2all_backend
    if b.all2all_env == "fallback":
        return flag or env or b.all2all_backend
    return flag or b.all2all_backend


def deepep_ll_rdma_bytes(tokens: int, hidden: int, experts: int) -> int:
    """The RDMA buffer DeepEP low-latency asks for (``get_low_latency_rdma_size_hint``, ``csrc/config.hpp``
    ``LowLatencyLayout`` as read at deepseek-ai/DeepEP 030cdf0; which DeepEP vLLM's images build is not read): two
    send buffers of the larger of one rank's dispatch messages (``tokens`` ×
    ``16 + max(2 × hidden, hidden + hidden ÷ 128 × 4)``) and its combine messages to every expert (``experts`` ×
    ``tokens`` × ``hidden ÷ 128 × 4 + 2 × hidden``), two receive buffers of every expert's messages of either kind,
    rounded up to 128 bytes past the total. Its two signalling buffers (a counter an expert, under 4 KiB at 256
    experts, whose width changed between DeepEP versions) are left out."""
    scales = hidden // 128
    dispatch_msg = 16 + max(hidden * 2, hidden + scales * 4)
    combine_msg = scales * 4 + hidden * 2
    send = max(tokens * dispatch_msg, experts * tokens * combine_msg)
    recv = experts * tokens * max(dispatch_msg, combine_msg)
    total = 2 * send + 2 * recv
    return (total + 128) // 128 * 128


def all2all_buffers_gib(b: Behaviour, model: ModelShape, s: EngineSettings) -> float:
    """GiB of DeepEP buffers each rank of a data-parallel engine with expert parallelism allocates (0 for every other
    backend, and where ``dp_size == 1`` or expert parallelism is off: ``use_all2all_kernels``). Allocated with
    ``cudaMalloc`` and NVSHMEM, outside PyTorch, when ``load_model`` runs ``prepare_communication_buffer_for_model``
    (``v1/worker/gpu_model_runner.py``), after the worker's memory snapshot and before ``determine_available_memory``:
    inside the non-torch increase, so out of the KV budget (``v1/worker/gpu_worker.py``, read in 0.18.0).

    ``distributed/device_communicators/all2all.py`` (the same sizes in 0.11.0, 0.11.1, 0.12.0, 0.15.0, 0.18.0, 0.20.0,
    0.25.1, 0.29.0 and 0.30.0): high-throughput (``DeepEPHTAll2AllManager``) an NVLink buffer of
    ``VLLM_DEEPEP_BUFFER_SIZE_MB`` MiB and, where the group spans nodes (wider than :data:`NODE_GPUS_MAX`) and
    ``VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE`` is not set, an RDMA buffer of as many; low-latency
    (``DeepEPLLAll2AllManager``) the same NVLink buffer and the RDMA buffer :func:`deepep_ll_rdma_bytes` sizes for
    ``VLLM_MOE_DP_CHUNK_SIZE`` tokens a rank (``FusedMoEConfig.max_num_tokens``), the hidden size and every routed
    expert. One buffer a rank, shared by every MoE layer (``handle_cache``). pplx, Mori, NIXL-EP and FlashInfer's
    NVLink backends also hold buffers; they are not read."""
    moe = model.moe
    if moe is None or not s.expert_parallel or s.dp < 2:
        return 0.0
    backend = all2all_backend(b, s)
    if backend not in DEEPEP_BACKENDS:
        return 0.0
    mib = (DEEPEP_BUFFER_MB if s.deepep_buffer_mb is None else s.deepep_buffer_mb) * 1024 * 1024
    if backend == "deepep_high_throughput":
        internode = moe_ranks(s) > NODE_GPUS_MAX and not s.deepep_force_intra_node
        return mib * (2 if internode else 1) / GIB
    tokens = MOE_DP_CHUNK_TOKENS if s.moe_dp_chunk_size is None else s.moe_dp_chunk_size
    return (mib + deepep_ll_rdma_bytes(tokens, model.hidden_size, moe.num_experts)) / GIB


class MoeRows(NamedTuple):
    """Bytes one routed row (a token for one of its top-k experts) holds in a fused mixture-of-experts layer:
    ``central`` in the experts kernel vLLM picks, ``least`` in the one of the kernels it may pick for the scheme, GPU
    and release that holds the least; ``read``: that choice was read in the source, so the rows' bytes are the
    kernel's own formula and carry that spread, not the activations' error (:func:`_error_band`)."""

    central: float
    least: float
    read: bool = False
    #: the rows the experts' caches hold whatever the batch (0: the batch's tokens × top-k): a batched dispatch's
    #: fixed per-expert slots (:func:`batched_dispatch_rows`)
    rows: int = 0


def _block_fp8_dynamic(model: ModelShape, s: EngineSettings, precision: Precision) -> bool:
    """The checkpoint's experts are block FP8 as ``oracle/fp8.py`` keys them: 128 × 128 weight blocks
    (``kFp8Static128BlockSym``) and dynamic activation scales a 128-wide group (``kFp8Dynamic128Sym``), loaded as
    the checkpoint says (no other ``--quantization``)."""
    q = model.hf_config.get("quantization_config")
    if precision != "fp8" or (s.quantization or "fp8").lower() != "fp8" or not isinstance(q, dict):
        return False
    return (str(q.get("quant_method", "")).lower() == "fp8" and q.get("weight_block_size") == [128, 128]
            and str(q.get("activation_scheme", "dynamic")).lower() == "dynamic")


#: The dispatch backends whose experts take the batched format (``FusedMoEActivationFormat.BatchedExperts``): one
#: slot block an expert, sized by the per-rank token cap, not by the batch (:func:`batched_dispatch_rows`)
BATCHED_BACKENDS = ("deepep_low_latency", "pplx")
#: The precisions whose batched experts are the Triton or DeepGEMM ones read (``BatchedTritonOrDeepGemmExperts``)
BATCHED_PRECISIONS = ("bf16", "fp16", "fp8")


def batched_dispatch_rows(model: ModelShape, s: EngineSettings, b: Behaviour, precision: Precision) -> int:
    """The routed rows a rank's experts hold in a data-parallel engine with expert parallelism on DeepEP
    low-latency or pplx (0 for every other engine): those backends dispatch in the batched format, so the experts'
    caches are one block an expert of ``max_num_tokens × num_dispatchers`` slots whatever the batch
    (``BatchedDeepGemmExperts`` / ``BatchedTritonExperts.workspace_shapes``: ``(local experts, max_num_tokens ×
    num_dp, max(K, N))`` and ``(…, N ÷ 2)``, the output sharing the first, ``fused_moe/batched_deep_gemm_moe.py`` at
    vllm-project/vllm 001ac2e; ``BatchedTritonExperts`` of ``fused_batched_moe.py`` the same in a 2026 tree), and the
    tokens received are a tensor of the same slots (DeepEP's ``low_latency_dispatch`` ``packed_recv_x``; pplx's
    ``expert_x``). ``max_num_tokens`` is the per-rank
    dispatch cap, ``FusedMoEConfig.max_num_tokens`` = ``VLLM_MOE_DP_CHUNK_SIZE`` (256), over which the layer runs the
    batch in chunks; ``num_dispatchers`` the DP ranks (the EP group over TP); the local experts EPLB's redundant ones
    included. The profile's dummy batch holds them whatever it routes (identical tokens, or
    ``VLLM_RANDOMIZE_DP_DUMMY_INPUTS``)."""
    moe = model.moe
    if moe is None or not s.expert_parallel or s.dp < 2 or precision not in BATCHED_PRECISIONS:
        return 0
    if all2all_backend(b, s) not in BATCHED_BACKENDS:
        return 0
    local = -(-(moe.num_experts + redundant_experts(b, model, s)) // moe_ranks(s))
    tokens = MOE_DP_CHUNK_TOKENS if s.moe_dp_chunk_size is None else s.moe_dp_chunk_size
    return local * tokens * s.dp


def moe_row_bytes(model: ModelShape, s: EngineSettings, b: Behaviour, device: Device, precision: Precision,
                  act: int, e: Estimates) -> MoeRows:
    """Bytes a routed row of a fused-MoE layer holds (:class:`MoeRows`). By default the Triton experts' caches
    (``fused_experts_impl``: the gate and up output, the activation's, the down output) of one rank's expert width,
    ``(mlp × width + hidden) × act``, with the activations' error.

    Block FP8 on Hopper with expert parallelism from 0.18.0 (``Behaviour.hopper_block_fp8_ep_flashinfer``) runs
    FlashInfer CUTLASS first, whose workspace is per routed row (``CutlassMoeFCRunner::getWorkspaceDeviceBufferSizes``
    for the DeepSeek block scale, ``csrc/fused_moe/cutlass_backend/cutlass_fused_moe_kernels.cuh``, and
    ``CutlassFp8BlockScaleGemmRunner::getWorkspaceSizeBase``, ``fp8_blockscale_gemm.cu``, flashinfer-python 0.6.6,
    which the 0.18.0 wheel pins): the permuted-row maps, selected experts and final scales (4 bytes each), the
    blocked row map (4 bytes × local experts a token, ``÷ top-k`` a row), the overlapped GEMM inputs
    (``max(hidden, width) × act``), the gated fc1 output (``2 × width × act``) and the block-scale GEMM's FP8 copy
    of its widest input with one fp32 scale a 128 (``max(hidden, width) + ⌈max ÷ 128⌉ × 4``). The kernels vLLM falls
    to (``VLLM_USE_FLASHINFER_MOE_FP8=0``, ``--moe-backend``, FlashInfer missing) hold less: DeepGEMM's two workspaces
    (``max(width, hidden) + max(2 × width, hidden)`` × act, ``TritonOrDeepGemmExperts``/``deep_gemm_moe.py``
    ``workspace_shapes``, before its per-expert alignment) and Triton's caches."""
    moe = model.moe
    h = model.hidden_size
    if moe is None:
        return _tuple_new(MoeRows, (0.0, 0.0, False, 0))
    batched = batched_dispatch_rows(model, s, b, precision)
    if batched:
        n = moe.moe_intermediate_size
        # the block-FP8 dispatch sends FP8 tokens with one fp32 scale a 128; the others the activations' dtype
        recv = h + math.ceil(h / 128) * 4 if _block_fp8_dynamic(model, s, precision) else h * act
        per_row = (max(h, 2 * n) + n) * act + recv
        return _tuple_new(MoeRows, (float(per_row), float(per_row), False, batched))
    ranks = moe_ranks(s)
    width = moe.moe_intermediate_size / (1 if s.expert_parallel else ranks)
    triton = (e.mlp * width + h) * act
    # on ROCm with AITER's experts (``rocm_aiter_fused_experts``, whose buffers are not read) the forward term stays
    aiter = device.vendor == "amd" and s.rocm_aiter is True and s.rocm_aiter_moe is not False
    if b.triton_moe_shared_cache and not aiter:
        # ``fused_experts_impl``: cache13 (max(2 × width, hidden)) and cache2 (width), and with FP8 activations
        # cache2's FP8 copy (``moe_kernel_quantize_input`` before the second GEMM), one fp32 scale a 128 for block FP8
        quantised = 0.0
        if precision == "fp8":
            quantised = width + (math.ceil(width / 128) * 4 if _block_fp8_dynamic(model, s, precision) else 0)
        triton = (max(2 * width, h) + width) * act + quantised
    if not (b.hopper_block_fp8_ep_flashinfer and s.expert_parallel and ranks > 1 and device.vendor == "nvidia"
            and device.capability() == (9, 0) and _block_fp8_dynamic(model, s, precision)):
        return _tuple_new(MoeRows, (triton, triton, False, 0))
    n = moe.moe_intermediate_size
    local = math.ceil(moe.num_experts / ranks)
    widest = max(h, n)
    flashinfer = (3 * 4 + local * 4 / moe.experts_per_token + widest * act + 2 * n * act
                  + widest + math.ceil(widest / 128) * 4)
    deepgemm = (max(n, h) + max(2 * n, h)) * act
    return _tuple_new(MoeRows, (flashinfer, min(flashinfer, deepgemm, triton), True, 0))


def _forward_parts(model: ModelShape, s: EngineSettings, tokens: int, act: int, e: Estimates,
                   moe_chunk: int = 0, rows: MoeRows | None = None) -> tuple[float, float, float]:
    """Peak of one dummy forward pass of ``tokens`` tokens on one GPU; a mixture of experts routes at most
    ``moe_chunk`` tokens at once (0: all of them, :func:`moe_chunk_tokens`), each of its rows holding ``rows``
    (:func:`moe_row_bytes`; the Triton caches where None). With it, where the routed rows decide the peak and their
    kernel was read (``rows.read``), their bytes and the most fewer bytes the other kernels hold; else 0, 0."""
    tp = s.tp
    h = model.hidden_size
    dense = tokens * (e.mlp * model.intermediate_size / tp + e.hidden * h) * act
    if model.moe is None or moe_layers(model) == 0:
        return dense, 0.0, 0.0
    moe = model.moe
    # the MoE layer of a DP replica gathers the tokens of every DP rank (expert parallel or not: the naive DP
    # dispatch, ``MoEPrepareAndFinalizeNaiveDPEPModular``) and splits each expert TP × DP ways without EP
    width = moe.moe_intermediate_size / (1 if s.expert_parallel else tp * s.dp)
    per_row = MoeRows((e.mlp * width + h) * act, (e.mlp * width + h) * act) if rows is None else rows
    routed_tokens = tokens * s.dp if moe_chunk <= 0 else min(tokens * s.dp, moe_chunk)
    # a batched dispatch holds its fixed slots (:func:`batched_dispatch_rows`), else every routed row
    routed_rows = per_row.rows if per_row.rows else routed_tokens * moe.experts_per_token
    moe_peak = routed_rows * per_row.central
    shared = tokens * (e.mlp * moe.shared_experts * moe.moe_intermediate_size / tp + e.hidden * h) * act
    has_dense = moe_layers(model) < model.num_hidden_layers
    routed = moe_peak + tokens * h * act * 2
    peak = max(routed, shared, dense if has_dense else 0.0)
    if per_row.read and peak == routed:
        return peak, moe_peak, routed_rows * (per_row.central - per_row.least)
    return peak, 0.0, 0.0


def _routed_bytes(model: ModelShape, s: EngineSettings, tokens: int, act: int, e: Estimates,
                  moe_chunk: int = 0, rows: MoeRows | None = None) -> float:
    """The routed rows' bytes of one dummy forward pass (:func:`_forward_parts`' ``moe_peak``, whether or not their
    kernel was read): the fused-MoE caches, which the modular kernels take from the shared workspace
    (``current_workspace_manager().get_simultaneous`` in ``fused_moe/modular_kernel.py``, 0.19.0 and 0.25.1); 0
    for a dense model."""
    if model.moe is None or moe_layers(model) == 0:
        return 0.0
    width = model.moe.moe_intermediate_size / (1 if s.expert_parallel else moe_ranks(s))
    per_row = (e.mlp * width + model.hidden_size) * act if rows is None else rows.central
    if rows is not None and rows.rows:
        return rows.rows * per_row
    routed_tokens = tokens * s.dp if moe_chunk <= 0 else min(tokens * s.dp, moe_chunk)
    return routed_tokens * model.moe.experts_per_token * per_row


#: The largest MoE tensor-parallel size at which vLLM 0.12 - 0.13 still picks DeepGEMM for block-FP8 experts unless
#: ``VLLM_MOE_USE_DEEP_GEMM`` is set (``get_fp8_moe_backend``: "DeepGEMM MoE is disabled by default when TP size is
#: >= 8", vllm-project/vllm pull request 29346)
DEEPGEMM_MOE_TP_BELOW = 8


def deepgemm_moe_picked(model: ModelShape, b: Behaviour, s: EngineSettings, device: Device,
                        precision: Precision) -> bool:
    """Whether vLLM 0.12 - 0.13 runs a block-FP8 mixture of experts on DeepGEMM, as ``get_fp8_moe_backend``
    (``quantization/fp8.py``, read in the 0.12.0 and 0.13.0 wheels) decides on the official image: not FlashInfer
    (``VLLM_USE_FLASHINFER_MOE_FP8``, off by default), not Marlin (below compute capability 8.9), then DeepGEMM where
    ``VLLM_USE_DEEP_GEMM`` and ``VLLM_MOE_USE_DEEP_GEMM`` are on (both default to 1), the MoE layer's TP size (TP ×
    DP × PCP flattened, 1 with expert parallelism: ``FusedMoEParallelConfig.make``) is below 8 unless
    ``VLLM_MOE_USE_DEEP_GEMM`` is set, the weights are block-quantised, ``deep_gemm`` imports and the GPU is 9.0 or
    10.0, from 0.13 9.0 or of the 10.x family (``is_deep_gemm_supported``, ``utils/deep_gemm.py``;
    ``Behaviour.deepgemm_blackwell_family``). At run time ``fused_experts`` takes it
    where DeepGEMM's E8M0 scales are used (``VLLM_USE_DEEP_GEMM_E8M0``, default 1, on those GPUs) or the shapes are
    aligned. ``deep_gemm`` is not among the wheel's requirements, so a ``pip install vllm`` (``pip_install``) runs
    Triton; the official image is taken to carry it (llm-compressor issue 2292: the official image at 0.12 - 0.14 on
    an H800 runs FP8 MoE on DeepGEMM until it is turned off), which shardwise cannot see in the image itself, so
    what this choice adds is in the error band (:func:`_error_band`). LoRA (Triton) is not read."""
    cap = device.capability()
    if model.moe is None or moe_layers(model) == 0 or cap is None or s.pip_install:
        return False
    blackwell = cap[0] == 10 if b.deepgemm_blackwell_family else cap == (10, 0)
    if not (cap == (9, 0) or blackwell) or s.flashinfer_moe_fp8 or s.use_deep_gemm is False:
        return False
    if s.moe_use_deep_gemm is False:
        return False
    moe_tp = 1 if (s.expert_parallel and moe_ranks(s) > 1) else moe_ranks(s)
    if s.moe_use_deep_gemm is None and moe_tp >= DEEPGEMM_MOE_TP_BELOW:
        return False
    return _block_fp8_dynamic(model, s, precision)


def moe_workspace_kept_by_image(model: ModelShape, b: Behaviour, s: EngineSettings, device: Device,
                                precision: Precision) -> bool:
    """Whether the routed rows' caches are kept only because the release runs the experts on DeepGEMM, which
    depends on the image (``Behaviour.deepgemm_moe_workspace_persists``, 0.12 - 0.13: :func:`deepgemm_moe_picked`),
    and not by every kernel of the release (``Behaviour.moe_workspace_persists``, 0.14+)."""
    return (b.deepgemm_moe_workspace_persists and not moe_workspace_kept(model, b, device, precision)
            and deepgemm_moe_picked(model, b, s, device, precision))


def moe_workspace_kept(model: ModelShape, b: Behaviour, device: Device, precision: Precision) -> bool:
    """Whether a mixture of experts' routed-row caches stay allocated after its forward pass, through the profile's
    sampler run (``Behaviour.moe_workspace_persists``, 0.14+): the modular kernel takes them from the shared
    ``WorkspaceManager`` buffer, which is grown to the largest request and never shrunk, so the buffer the dummy
    forward pass grew is still held when the sampler runs. Before 0.14 only DeepGEMM's block-FP8 experts keep them
    (0.12 - 0.13, :func:`moe_workspace_kept_by_image`). Not on ROCm (the AITER experts' path is not read) and not
    for MXFP4 experts, an open deviation from the source: on Hopper 0.29.0 prefers the monolithic OAI Triton experts,
    which allocate inside the kernel, but below compute capability 9.0 (and on 12.x) gpt-oss runs ``MarlinExperts``,
    whose caches are in the same buffer (``fused_moe/oracle/mxfp4.py``, ``experts/marlin_moe.py``, read in 0.29.0).
    Charged, at Triton's row bytes or Marlin's own shapes, set 12's four gpt-oss L4 rows split apart and the board
    falls (docs/capacity-model.md, "Read and not charged: MXFP4 experts on Marlin keep their workspace")."""
    return (b.moe_workspace_persists and model.moe is not None and moe_layers(model) > 0
            and device.vendor == "nvidia" and precision != "mxfp4")


def _forward_bytes(model: ModelShape, s: EngineSettings, tokens: int, act: int, e: Estimates,
                   moe_chunk: int = 0, rows: MoeRows | None = None) -> float:
    """Peak of one dummy forward pass of ``tokens`` tokens on one GPU (:func:`_forward_parts`)."""
    return _forward_parts(model, s, tokens, act, e, moe_chunk, rows)[0]


_QWEN_VL_MAX_PIXELS = 12_845_056  # Qwen2-VL / Qwen2.5-VL preprocessor default (16,384 tokens per image)
#: Model types (top level, or the vision config's own) whose images go through Qwen's ViT and its processor:
#: Qwen2-VL, Qwen2.5-VL, Qwen2.5-Omni's thinker (``Qwen2_5OmniThinkerProcessingInfo`` is a
#: ``Qwen2_5_VLProcessingInfo``), Qwen3-VL, Qwen3-Omni, Qwen3.5.
_QWEN_VIT_TYPES = ("qwen2_vl", "qwen2_5_vl", "qwen2_5_omni", "qwen3_vl", "qwen3_5", "qwen3_omni")
#: Qwen ViTs whose MLP is gated (SiLU: gate, up and down projections): Qwen2.5-VL's, and Qwen2.5-Omni's, which is it.
_QWEN_GATED_VIT_TYPES = ("qwen2_5_vl", "qwen2_5_omni")


#: Qwen3-VL's vision tower (``Qwen3_VisionTransformer``: Qwen3-VL and Qwen3.5/3.6 reuse it), whose image processor
#: caps an image at 16,777,216 pixels (``size.longest_edge``: 16,384 tokens of 32 × 32 pixels, which vLLM's
#: Qwen2-VL processing info reads as ``max_pixels``; the Qwen3.5-27B logs at 0.19.0 initialise the encoder cache with
#: "a budget of 16384 tokens" at 2,048 batched tokens) and whose peak is :func:`_qwen3_vit_patch_bytes`.
_QWEN3_VIT_TYPES = ("qwen3_vl", "qwen3_5")
_QWEN3_VL_MAX_PIXELS = 16_777_216
#: Qwen3-VL's video processor caps a video at 25,165,824 pixels over all its frames (``size.longest_edge`` of the
#: checkpoints' video_preprocessor_config.json: 49,152 patches of 16 × 16 × 2 frames, 12,288 tokens after the 2 × 2
#: merge; the 0.12.0 log of Qwen3-VL-30B-A3B on 2 × H100 initialises the encoder cache with "a budget of 153600
#: tokens" for "1 video items": 12,288 × 12.5), frames at most 24,576 a video (``_MAX_FRAMES_PER_VIDEO``)
_QWEN3_VL_VIDEO_MAX_PIXELS = 25_165_824
_QWEN3_VL_VIDEO_MIN_PIXELS = 4_096
_QWEN3_VL_MAX_FRAMES = 24_576


@lru_cache(maxsize=64)
def _qwen3_video_tokens(seq_len: int, side: int, patch: int, merge: int, temporal: int) -> int:
    """Vision tokens of the largest video vLLM 0.11-0.12 profiles for Qwen3-VL (``get_max_video_tokens`` before its
    12.5 × timestamps): frames from 2 up while the next count's tokens still fit ``seq_len`` (``_get_max_video_frames``,
    start 2), at most 24,576; each frame the largest image (``side`` pixels square) through transformers' video
    ``smart_resize`` (factor ``patch × merge``: above the video's pixel cap the sides shrink by √(frames × side² ÷
    cap), floored to the factor, at least one factor), then ``(frames rounded up to the temporal patch) ÷ temporal ×
    (h ÷ patch) × (w ÷ patch) ÷ merge²`` (``Qwen3VLProcessingInfo._get_vision_info``)."""
    factor = patch * merge

    def tokens(frames: int) -> int:
        h = round(side / factor) * factor
        t_bar = round(frames / temporal) * temporal
        if t_bar * h * h > _QWEN3_VL_VIDEO_MAX_PIXELS:
            beta = math.sqrt(frames * side * side / _QWEN3_VL_VIDEO_MAX_PIXELS)
            h = max(factor, math.floor(side / beta / factor) * factor)
        elif t_bar * h * h < _QWEN3_VL_VIDEO_MIN_PIXELS:
            beta = math.sqrt(_QWEN3_VL_VIDEO_MIN_PIXELS / (frames * side * side))
            h = math.ceil(side * beta / factor) * factor
        grid_t = max((frames + frames % temporal) // temporal, 1)
        return grid_t * (h // patch) * (h // patch) // (merge * merge)

    frames = 2
    while frames < _QWEN3_VL_MAX_FRAMES and tokens(frames + 1) <= seq_len:
        frames += 1
    return tokens(frames)


def _qwen3_vit_patch_bytes(pos: str, vh: float, vi: float, tp: int, act: int) -> float:
    """Bytes per patch of Qwen3-VL's vision tower at its peak, beyond the dummy batch's pixel values
    (``Qwen3_VisionTransformer.forward``, ``model_executor/models/qwen3_vl.py``): the larger of

    * the position embeddings' interpolation (``fast_pos_embed_interpolate``), run once the patch embedding's output
      (one row of ``vh``) is there: ``copies`` (0.11) holds the four neighbours' rows, a weighted copy of them, their
      sum, the permuted copy and ``torch.cat``'s, 11 rows; ``in-place`` (0.17) weights the four rows in place and
      frees the sum once permuted: 4 + 1 + 1 rows; ``kernel`` (0.22) writes one row and ``torch.cat`` copies it;
    * a block, with the interpolated embeddings (kept for the whole tower), the residual stream and the norm's output:
      attention adds q, k, v (``3 vh ÷ TP``), the rotated q and k (``2 vh ÷ TP``), the output (``vh ÷ TP``) and the
      projection's (``vh``); the MLP the activation (``vi ÷ TP``) and the second projection's output (``vh``).
    """
    rows = {"copies": 11.0, "in-place": 6.0, "kernel": 2.0}[pos]
    interpolation = (1.0 + rows) * vh
    attention = 4.0 * vh + 6.0 * vh / tp
    mlp = 4.0 * vh + vi / tp
    return max(interpolation, attention, mlp) * act


def _qwen25_vit_patch_bytes(how: str, vh: float, vi: float, tp: int, act: int) -> float:
    """Bytes per patch of Qwen2.5-VL's vision tower at its peak, beyond the dummy batch's pixel values
    (``Qwen2_5_VisionBlock``, ``model_executor/models/qwen2_5_vl.py``; Qwen2.5-Omni's thinker builds the same tower), in
    rows of ``vh`` (the tower's hidden size ``d``) at TP ``t``: the larger of

    * attention, with the block's input (the residual) and ``norm1``'s output (2 ``d``) held: ``float32-rotary`` (0.11)
      holds the qkv projection (3 ``d/t``), contiguous copies of q, k and v (3), ``torch.cat([q, k])`` (2), its
      float32 copy (4 rows' bytes of the model's dtype), the float32 rotated output (4) and its cast back (2):
      ``2 d + 18 d/t``; at TP > 1 first ``all_gather_interleave``'s gathered pieces and their interleaved copy (3 ``d``
      each, beside the local qkv): ``8 d + 3 d/t``. ``model-dtype-rotary`` (0.12+) holds qkv (3 ``d/t``), one
      contiguous copy of q and k (2), their rotated output (2), the attention's output (1) and the projection's row
      (``d``): ``3 d + 8 d/t``;
    * the gated MLP: ``norm2`` adds the attention's output to the residual and normalises in place (2 ``d`` held),
      then ``gate_up_proj`` (2 ``vi/t``), the SiLU-and-multiply (``vi/t``) and ``down_proj``'s row (``d``):
      ``3 d + 3 vi/t``.
    """
    d = vh
    if how == "float32-rotary":
        attention = max(2.0 * d + 18.0 * d / tp, 8.0 * d + 3.0 * d / tp if tp > 1 else 0.0)
    else:
        attention = 3.0 * d + 8.0 * d / tp
    mlp = 3.0 * d + 3.0 * vi / tp
    return max(attention, mlp) * act


#: Qwen towers whose largest image vLLM finds with Qwen2-VL's processing info under the processor's ``max_pixels``
#: (``Qwen2VLProcessingInfo.get_image_size_with_most_features``; Qwen2.5-Omni's thinker inherits it).
_QWEN_PIXELS_TYPES = ("qwen2_vl", "qwen2_5_vl", "qwen2_5_omni")


def _qwen_image_tokens(max_pixels: int, unit: int, how: str) -> int:
    """Tokens of the largest image Qwen2-VL's processing info profiles under ``max_pixels`` (``unit`` = patch ×
    merge pixels a side): up to 0.12 a huge square through ``smart_resize`` (``floor(√max_pixels ÷ unit)`` units a
    side), from 0.13 the most tokens up to ``max_pixels // unit²`` whose closest factor pair is at most 200 : 1
    (``versions.py`` ``qwen_image``). 12,845,056 pixels: 16,384 tokens both ways."""
    if how == "square":
        side = max(1, math.isqrt(max_pixels) // unit)
        return side * side
    for n in range(max(1, max_pixels // (unit * unit)), 0, -1):
        d = next(d for d in range(math.isqrt(n), 0, -1) if n % d == 0)
        if (n // d) / d <= 200:
            return n
    return 1


class _Encoder(NamedTuple):
    """The multimodal encoder's part of the profile run, in bytes per GPU."""

    peak: float  # the vision tower on the dummy batch, with the batch's pixel values
    cache: float  # the encoder outputs cached while the dummy forward pass runs
    inputs: float  # the dummy batch's float32 pixel values, still on the GPU during that forward pass
    note: str
    #: 0.11+ (``mm_held_through_sampler``): the outputs and the batch are still held while the dummy sampler runs
    through_sampler: bool = False


_NO_ENCODER = _Encoder(0.0, 0.0, 0.0, "")


def _mm_items(b: Behaviour, engine: str, s: EngineSettings, mml: int, batched: int, seqs: int,
              tokens: float, limit: int | None = None) -> tuple[int, float]:
    """(items of the largest size the profile runs, the encoder budget in tokens).

    V1 (``versions.py`` ``mm_items``): the budget is ``max(max_num_batched_tokens, tokens per item)``; 0.8-0.9 run
    ``min(ceil(budget ÷ tokens), max_num_seqs × limit)`` items, 0.10.0 ``max(1, min(budget // tokens, max_num_seqs ×
    limit))``, from 0.10.1 ``MultiModalBudget`` takes ``max(1, min(limit, max_model_len // tokens))`` items per
    prompt and, without chunked prefill, at most ``max_num_batched_tokens // tokens`` requests. ``limit`` is
    ``--limit-mm-per-prompt`` for the modality profiled, else its default (1 up to 0.8.3, 999 from 0.8.4). V0
    profiles ``max_num_batched_tokens //
    tokens`` sequences of one item each (``worker/model_runner.py`` ``profile_run``)."""
    per = max(tokens, 1.0)
    budget = max(float(batched), tokens)
    if engine != "v1":
        return max(1, min(seqs, int(budget // per))), budget
    limit = limit or b.mm_default_limit
    if b.mm_items == "ceil":
        return max(1, min(math.ceil(budget / per), seqs * limit)), budget
    if b.mm_items == "floor":
        return max(1, min(int(budget // per), seqs * limit)), budget
    per_prompt = max(1, min(limit, int(mml // per)))
    reqs = seqs
    if b.chunked_prefill_optional and s.enable_chunked_prefill is False:
        reqs = min(seqs, int(batched // per))
    return max(1, min(int(budget // per), reqs * per_prompt)), budget


def _encoder(model: ModelShape, s: EngineSettings, b: Behaviour, engine: str, mml: int, batched: int, seqs: int,
             act: int, e: Estimates) -> _Encoder:
    """The vision tower's part of the profile run (:class:`_Encoder`), by release.

    The items (:func:`_mm_items`) are the processor's largest image: Qwen's ViTs take ``max_pixels`` (12,845,056:
    a 3,584-pixel square, 65,536 patches of 14 pixels, 16,384 tokens after the 2 × 2 merge), the others their fixed
    image size. An omni model (Qwen2.5-Omni, Qwen3-Omni) profiles the same image: its audio items are far shorter
    (a 30-second clip, about 750 tokens) and V1 profiles only the modality with the most tokens per item.

    The peak is the tower's activations (``vit_hidden`` × its hidden size and the MLP per patch) and the batch's
    pixel values, which stay on the GPU while the tower runs: the image processor's float32 values (channels ×
    temporal patch × patch² per patch: 1,176 for Qwen's ViT, 588 for SigLIP) and their copy in the model's dtype
    (``Qwen2_5_VLForConditionalGeneration._process_image_input`` casts them to the tower's dtype). In V1 the dummy
    batch (``batched_dummy_mm_inputs`` in ``profile_run``, on the device as the processor made it) and the encoder
    outputs (``encoder_cache``) are both still held while the dummy forward pass of the language model runs; in
    0.11-0.12 every output shorter than the encoder budget is first copied into a zeroed tensor of the budget's
    length (``mm_expand_outputs``; 0.12 to the item's largest token count, ``mm_expand_to_item``), and from 0.11 both
    are still held while the dummy sampler runs (``mm_held_through_sampler``: ``encoder_cache`` is cleared after
    ``_dummy_sampler_run``). In 0.11-0.12 Qwen3-VL's largest video outweighs its largest image (its vision tokens
    count 12.5 times with their timestamps, ``qwen3_video_format``): V1 profiles one video of the video processor's
    pixel cap (:func:`_qwen3_video_tokens`) and pads its output to the formatted count. Qwen3-VL's outputs carry its
    deepstack features beside the embeddings (``out_hidden_size × (1 + levels)`` a token). V0 runs the tower inside
    its forward pass and keeps the budget's embeddings."""
    vc = model.hf_config.get("vision_config")
    if not isinstance(vc, dict):
        return _NO_ENCODER

    def num(key: str, default: float = 0.0) -> float:
        v = vc.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default

    vh = num("hidden_size") or num("embed_dim") or num("width")
    if not vh:
        return _NO_ENCODER
    vi = num("intermediate_size", 4 * vh)
    patch = num("patch_size", 14) or 14
    merge = num("spatial_merge_size", 1) or 1
    model_type = str(model.hf_config.get("model_type", "") or "")
    vision_type = str(vc.get("model_type", "") or "")
    qwen = (model_type.startswith(_QWEN_VIT_TYPES) or vision_type.startswith(_QWEN_VIT_TYPES)
            or bool(num("window_size")))
    limits = dict(s.mm_limits)
    if limits and not any(limits.get(m, 1) > 0 for m in (("image", "video") if qwen else ("image",))):
        return _NO_ENCODER  # every modality the tower takes is turned off: no encoder cache, no profile
    qwen3 = (model_type.startswith(_QWEN3_VIT_TYPES) or vision_type.startswith(_QWEN3_VIT_TYPES)) and engine == "v1"
    if qwen3 or (qwen and (s.mm_max_pixels is not None or model_type.startswith(_QWEN_PIXELS_TYPES)
                           or vision_type.startswith(_QWEN_PIXELS_TYPES))):
        unit = int(patch * merge)
        largest = _QWEN3_VL_MAX_PIXELS if qwen3 else _QWEN_VL_MAX_PIXELS
        tokens = float(_qwen_image_tokens(s.mm_max_pixels or largest, unit, b.qwen_image))
        patches = tokens * merge * merge
    elif qwen:
        patches = _QWEN_VL_MAX_PIXELS / (patch * patch)
        tokens = patches / (merge * merge)
    else:
        size = num("image_size", 336)
        patches = (size / patch) ** 2
        per_image = model.hf_config.get("mm_tokens_per_image")
        tokens = float(per_image) if isinstance(per_image, (int, float)) else patches / (merge * merge)
    profiled = "image" if limits.get("image", 1) > 0 else "video"  # Qwen: a one-frame video is the same item
    outputs = tokens  # the rows of one item's encoder output
    if qwen3 and b.qwen3_video_format and limits.get("video", 1) > 0:
        # 0.11-0.12: Qwen3-VL's largest video counts its timestamps, and V1 profiles the modality with the most tokens
        temporal = int(num("temporal_patch_size", 2) or 2)
        soft = _qwen3_video_tokens(mml, math.isqrt(_QWEN3_VL_MAX_PIXELS), int(patch), int(merge), temporal)
        formatted = float(int(soft * b.qwen3_video_format))
        if profiled == "video" or formatted > tokens:
            profiled, tokens, outputs, patches = "video", formatted, float(soft), soft * merge * merge
    limit = limits.get(profiled)
    items, budget = _mm_items(b, engine, s, mml, batched, seqs, tokens, limit)
    gated = (str(vc.get("hidden_act", "")) in ("silu", "swiglu") or model_type.startswith(_QWEN_GATED_VIT_TYPES)
             or vision_type.startswith(_QWEN_GATED_VIT_TYPES))
    pixels = num("in_chans", num("in_channels", num("num_channels", 3)) or 3) * patch * patch
    if qwen:
        pixels *= num("temporal_patch_size", 2) or 2
    # Qwen3-VL's tower is modelled from its source (:func:`_qwen3_vit_patch_bytes`), with the dummy batch's pixel
    # values in the model's dtype where the processor's outputs are cast (0.9.1+, every release with the tower);
    # the other towers keep the float32 values, their copy in the tower's dtype and ``vit_hidden`` rows per patch
    # (their blocks not read; docs/capacity-model.md)
    # Qwen2.5-VL's tower is modelled from its blocks where they were read (0.11+, ``versions.py`` ``qwen25_vit``)
    qwen25 = (engine == "v1" and b.qwen25_vit != "generic"
              and (model_type.startswith(_QWEN_GATED_VIT_TYPES) or vision_type.startswith(_QWEN_GATED_VIT_TYPES)))
    in_dtype = (qwen3 or qwen25) and b.mm_inputs_model_dtype
    if qwen3:
        per_patch = _qwen3_vit_patch_bytes(b.qwen3_vit_pos, vh, vi, s.tp, act)
    elif qwen25:
        per_patch = _qwen25_vit_patch_bytes(b.qwen25_vit, vh, vi, s.tp, act)
    else:
        per_patch = (e.vit_hidden * vh + (3 if gated else 2) * vi / s.tp) * act
    peak = items * patches * (per_patch + pixels * (act if in_dtype else 4 + act))
    # Qwen3-VL's tower returns its deepstack mergers' features beside its output: out_hidden_size × (1 + levels)
    # per token (``Qwen3_VisionTransformer``: ``torch.cat([hidden_states] + deepstack_feature_lists, dim=1)``)
    deepstack = vc.get("deepstack_visual_indexes")
    width = model.hidden_size * (1 + (len(deepstack) if qwen3 and isinstance(deepstack, list) else 0))
    if engine == "v1":
        target = tokens if b.mm_expand_to_item else budget  # 0.12 pads to the item's largest, 0.11 to the budget
        kept = target if (b.mm_expand_outputs and outputs < target) else outputs
        cache = items * kept * width * act
        inputs = items * patches * pixels * (act if in_dtype else 4)
    else:
        cache, inputs = budget * model.hidden_size * act, 0.0
    kind = "image" if outputs == tokens else "video"
    timestamps = f"; {int(tokens):,} with its timestamps" if kind == "video" else ""
    note = (f"vision encoder profiled with {items} {kind}{'s' if items != 1 else ''} of {int(outputs):,} tokens "
            f"({int(patches):,} patches each{timestamps})")
    return _Encoder(peak, cache, inputs, note, engine == "v1" and b.mm_held_through_sampler)


#: Tensor-parallel sizes vLLM's custom all-reduce supports (``CustomAllreduce._SUPPORTED_WORLD_SIZES``).
_CUSTOM_AR_SIZES = (2, 4, 6, 8)


def custom_all_reduce(device: Device, tp: int) -> bool:
    """Whether vLLM's custom all-reduce runs in a tensor-parallel group of ``tp`` GPUs of ``device``
    (``distributed/device_communicators/custom_all_reduce.py``, ``CustomAllreduce.__init__``): not at TP1 (a
    pipeline stage of one GPU has no tensor-parallel group), only at the supported sizes 2, 4, 6 and 8, on
    CUDA and ROCm GPUs, and with more than two GPUs only where they are fully connected ("Custom allreduce is
    disabled because it's not supported on more than two PCIe-only GPUs"). A domain not known counts as fully
    connected; the P2P test a PCIe pair must pass is assumed to pass."""
    if tp not in _CUSTOM_AR_SIZES or device.vendor not in ("nvidia", "amd"):
        return False
    return tp == 2 or device.nvlink_domain is None or device.nvlink_domain >= tp


def allreduce_fusion_capability(cc: tuple[int, int]) -> bool:
    """Whether vLLM 0.19+ fuses the tensor-parallel all-reduce with FlashInfer on a GPU of compute capability ``cc``
    (:func:`tp_buffers_counted`): ``config/vllm.py`` ``enable_allreduce_rms_fusion`` (0.19.0) asks
    ``is_device_capability(90) or is_device_capability_family(100)``: 9.0 and the 10.x family (B200/GB200 10.0,
    B300/GB300 10.3), not 12.x (RTX 5090, RTX PRO Blackwell) nor 12.1 (GB10)."""
    return cc == (9, 0) or cc[0] == 10


def tp_buffers_counted(device: Device, tp: int) -> bool:
    """Whether the 0.19+ communication-buffer term (``Estimates.tp_buffers_gib``) applies to a tensor-parallel group
    of ``tp`` GPUs of ``device``: where custom all-reduce runs (:func:`custom_all_reduce`) on GPUs joined by NVLink
    or a vendor fabric (a domain of at least ``tp``; not known: charged). The term was calibrated on NVLink-joined
    GPUs and is not custom all-reduce's own: its IPC buffer is ``max_size`` = 8 MiB per rank
    (``custom_all_reduce.py`` 0.22.0; at most 64 MiB in ``all_reduce_utils.CUSTOM_ALL_REDUCE_MAX_SIZES``), and the
    0.22.0 log of a PCIe pair of T4s that runs it ("Using ['CUSTOM', 'PYNCCL'] all-reduce backends") counts about
    0.2 GiB of non-torch memory at TP2, no 2 GiB (docs/capacity-model.md).

    Nor on NVIDIA parts of a compute capability other than 9.0 and the 10.x family
    (:func:`allreduce_fusion_capability`; not known: charged): what vLLM 0.19.0 sets up in the profile for a
    tensor-parallel group only there is FlashInfer's all-reduce fusion workspace, so not on sm_120 (RTX 5090, RTX PRO
    Blackwell) either, which the ``blackwell`` label put with B200.
    ``config/vllm.py`` ``enable_allreduce_rms_fusion`` turns ``fuse_allreduce_rms`` on by default (``-O2``) only at
    TP > 1 on CUDA capability 9.0 or the 10.x family, and ``compilation/passes/fusion/allreduce_rms_fusion.py``
    ``AllReduceFusionPass.__init__`` creates the workspaces (``get_fi_ar_workspace``, ``get_fi_ar_quant_workspace``)
    when ``torch.compile`` builds the pass in the profile run, inside the budget. The communicators' own buffers are
    set up before the snapshot, and torch symmetric memory's only at 9.0, 10.0 and 10.3 (``symm_mem.py``: "Device
    capability 8.0 not supported, communicator is not available"). An A100's logs print ``'fuse_allreduce_rms':
    False``; with the term, the five A100 starts of the start-up sets at TP2 and TP4 (0.19.0, 0.23.0, 0.27.1) kept
    1.35 - 1.81 GiB of cache more than sized (docs/capacity-model.md)."""
    cc = device.capability()
    if cc is not None and not allreduce_fusion_capability(cc):
        return False
    return custom_all_reduce(device, tp) and (device.nvlink_domain is None or device.nvlink_domain >= tp)


def device_communicators(s: EngineSettings, moe: bool) -> tuple[str, ...]:
    """The parallel groups in which one rank of an engine holds a device communicator (NCCL, RCCL), in vLLM's order
    of creation (``distributed/parallel_state.py`` ``initialize_model_parallel``, 0.10.1.1 - 0.14.1):
    ``GroupCoordinator`` builds a ``CudaCommunicator`` (and with it a pynccl communicator that warms up with a
    one-element all-reduce, which connects NCCL's rings) for every group of more than one rank: ``tp``, ``pp``,
    ``dp`` and ``ep`` (TP × DP ranks wide, with or without ``--enable-expert-parallel``; 0.14.1 builds it only for a
    mixture-of-experts model, 0.10.1.1 and 0.11.0 for every model: ``moe``). The world group has none
    (``init_world_group``: ``use_device_communicator=False``). So a data-parallel rank of a one-GPU engine holds
    communicators too, before vLLM's first snapshot from 0.11. From 0.12 a ``pcp`` group of the
    ``--prefill-context-parallel-size`` ranks is made the same way (``initialize_model_parallel``, ``group_name="pcp"``,
    0.12.0 and 0.26.0 wheels), after ``tp`` and before ``pp``: a TP1 engine with ``-pcp 2`` holds one. The ``dcp``
    group (``--decode-context-parallel-size``) is made of TP ranks, so it is more than one rank only where ``tp`` is
    and adds no group that decides anything here (one ``nccl_init_gib`` is charged whatever the number)."""
    groups = [name for name, size in (("tp", s.tp), ("pcp", s.prefill_context_parallel), ("pp", s.pp), ("dp", s.dp))
              if size > 1]
    if moe and moe_ranks(s) > 1:
        groups.append("ep")
    return tuple(groups)


def nccl_communicator_sizes(s: EngineSettings) -> tuple[int, ...]:
    """The ranks of every NCCL communicator one GPU of an engine holds by the end of vLLM 0.9 - 0.10's memory
    profile, in order: the pynccl communicator of each group :func:`device_communicators` lists (the ``ep`` group
    for every model: 0.9.2 and 0.10.1.1 build it whatever the model), and PyTorch's own communicator of the
    tensor-parallel group, which ``torch.distributed`` creates at its first collective: the logits'
    ``all_gather_into_tensor`` (``LogitsProcessor._gather_logits`` with ``use_all_gather`` under V1;
    ``CudaCommunicator`` does not override ``all_gather``, ``base_device_communicator.py``, 0.10.1.1) in the profile
    run."""
    width = {"tp": s.tp, "pp": s.pp, "dp": s.dp, "ep": moe_ranks(s)}
    sizes = [width[g] for g in device_communicators(s, moe=True)]
    if s.tp > 1:
        sizes.append(s.tp)
    return tuple(sizes)


def nccl_communicator_mib(ranks: int, channels: int, e: Estimates) -> float:
    """MiB of device buffers one rank of a ``ranks``-GPU NCCL communicator on NVSwitch Hopper holds once every
    channel is connected (NCCL 2.22 - 2.28 without runtime connect, ``initTransportsRank``: rings, trees, NVLS):
    ``channels`` ring channels of ``e.nccl_p2p_channel_mib`` (a send and a receive P2P connection); beyond two ranks
    as many tree channels again (the chain's reverse direction: a rank in its middle receives from and sends to
    both neighbours, the ring already holds one direction; at two ranks the tree reuses the ring's connections) and
    NVLink SHARP's buffer, ``nccl_nvls_channels × 2 × nccl_nvls_buffer_mib`` per rank of the communicator, with its
    credit granule (``ncclNvlsInit``: ``gpuCount <= 2`` has none; ``ncclNvlsBufferSetup``, ``transport/nvls.cc``)."""
    if ranks < 2:
        return 0.0
    ring = channels * e.nccl_p2p_channel_mib
    if ranks == 2:
        return ring
    nvls = e.nccl_nvls_channels * 2 * e.nccl_nvls_buffer_mib * ranks + e.nccl_nvls_credit_mib
    return 2 * ring + nvls


def nccl_buffers_at_init_gib(device: Device, s: EngineSettings, e: Estimates) -> float:
    """GiB of NCCL device buffers that vLLM 0.9 - 0.10 counts in its non-torch increase on NVSwitch Hopper GPUs
    (H100 SXM, H200, H800; docs/capacity-model.md, "NCCL's communicators, from source"). Those releases set
    ``NCCL_CUMEM_ENABLE=0`` unless it is set (``vllm/env_override.py``, 0.9.2 and 0.10.1.1; their PyTorch 2.7.0 /
    2.7.1 bring NCCL 2.26.2), so NCCL connects every ring and tree channel and sets the NVLS buffer up when a
    communicator is created, used or not, and every communicator is created after the worker's first snapshot
    (``init_device``): all of it is in the increase. Summed over :func:`nccl_communicator_sizes` by
    :func:`nccl_communicator_mib`; a group wider than the NVLink domain (8 where unknown) spans nodes, whose
    network buffers are not on NVLink and not charged. 0 elsewhere: PCIe GPUs hold at most two 12 MiB channels a
    communicator over P2P and none over shared memory (their buffers are in host memory), NVLink pairs have no
    NVSwitch, and other architectures' channel counts are not read."""
    if device.vendor != "nvidia" or device.architecture != "hopper":
        return 0.0
    domain = 8 if device.nvlink_domain is None else device.nvlink_domain
    if domain <= 2:
        return 0.0
    channels = e.nccl_channels(device.name)
    mib = sum(nccl_communicator_mib(n, channels, e) for n in nccl_communicator_sizes(s) if n <= domain)
    return mib / 1024


def torch_tp_communicator_gib(device: Device, s: EngineSettings, e: Estimates) -> float:
    """GiB of NCCL ring buffers PyTorch's own communicator of the tensor-parallel group holds on NVSwitch Hopper GPUs
    (H100 SXM, H200, H800) from vLLM 0.11, where the worker's first snapshot follows the distributed set-up: the
    group's ``device_group`` (``torch.distributed.new_group``, ``distributed/parallel_state.py``) gets its NCCL
    communicator at its first collective, the logits' ``all_gather_into_tensor`` in the profile's dummy sampler run
    (``LogitsProcessor._gather_logits`` with ``use_all_gather``, true on CUDA; ``CudaCommunicator`` does not override
    ``DeviceCommunicatorBase.all_gather``: read in 0.11.0, 0.14.1, 0.15.0 and 0.19.0), so inside the non-torch
    increase. With NCCL's lazy connect (vLLM no longer sets ``NCCL_CUMEM_ENABLE=0`` from 0.11) the all-gather
    connects only its ring: ``nccl_channels`` × ``nccl_p2p_channel_mib`` a rank, 288 MiB on H100 and H200 (nccl46's
    reading of NCCL 2.26.2). A group wider than the NVLink domain (8 where unknown) spans nodes and is not charged;
    NVLink pairs, PCIe GPUs and other architectures as :func:`nccl_buffers_at_init_gib`. Charged in 0.11 - 0.18
    (:func:`_nontorch_gib`): from 0.19 the calibrated ``tp_buffers_gib`` is charged where custom all-reduce runs on
    NVLink, and by 0.29 ``CudaCommunicator`` has its own ``all_gather`` (through pynccl). pynccl's communicator is
    created and warmed up before the snapshot; its NVLS buffer (connected lazily at the profile's first large
    all-reduce, 0.25 GiB at TP8) is not charged: which algorithm NCCL picks for it is not read."""
    if s.tp < 2 or device.vendor != "nvidia" or device.architecture != "hopper":
        return 0.0
    domain = 8 if device.nvlink_domain is None else device.nvlink_domain
    if domain <= 2 or s.tp > domain:
        return 0.0
    return e.nccl_channels(device.name) * e.nccl_p2p_channel_mib / 1024


#: Rows of DeepSeek-V3.2's sparse-attention indexer prefill K-gather workspace a ``max_model_len`` token
#: (``get_max_prefill_buffer_size``, ``v1/attention/backends/mla/indexer.py``, 0.13+), and of FlashMLA's sparse
#: prefill workspace (``get_prefill_workspace_size``, ``v1/attention/backends/mla/flashmla_sparse.py``)
INDEXER_WORKSPACE_ROWS = 40
FLASHMLA_SPARSE_WORKSPACE_ROWS = 5


def sparse_indexer_workspace_bytes(model: ModelShape, b: Behaviour, device: Device, max_model_len: int,
                                   kv_bytes: int, kv_dtype: str) -> int:
    """Bytes of the shared workspace a DeepSeek-V3.2-style sparse-attention model keeps on each GPU for the engine's
    life (``Behaviour.sparse_indexer_workspace``, 0.13+). The indexer's profile-run branch reserves its prefill
    K-gather buffer, ``40 × max_model_len`` keys of ``index_head_dim`` fp8 bytes and a 4-byte scale (132 bytes at
    128 dimensions: 4.92 GiB at 1,000,000 tokens), through ``current_workspace_manager().get_simultaneous``; the
    ``WorkspaceManager`` (``v1/worker/workspace.py``) holds one buffer a micro-batch, grown to the largest request
    (each view rounded up to 256 bytes) and never shrunk, so it is in use through the sampler run and is not a
    transient of the forward pass. FlashMLA's sparse backend, the one sparse MLA backend on Hopper (``platforms/
    cuda.py``, 0.19.0), takes the same buffer at init for an ``fp8_ds_mla`` cache: ``5 × max_model_len`` rows of
    ``kv_lora_rank + qk_rope_head_dim`` bf16 values (5,760 bytes a token of ``max_model_len``), which vLLM sized to
    hold the indexer's; the buffer is the larger of the two. Not charged: the fused-MoE kernels' caches, which share
    the buffer in 0.25.1 (``modular_kernel.py``) and are charged as the forward pass's (their buffer may be this one),
    the radix top-k's 1 MiB, FlashMLA's query buffer (``max_num_batched_tokens × heads ÷ TP × 576`` bf16, 0.19+: 72
    MiB at 8,192 tokens and 8 heads) and the indexer's 512 MiB logits stand-in of the profile's forward pass (0.19+,
    freed when the layer returns). 0 for other models and releases."""
    dim = kv_layout.indexer_head_dim(model)
    if not (b.sparse_indexer_workspace and dim and model.mla is not None and max_model_len > 0):
        return 0
    rows = INDEXER_WORKSPACE_ROWS * max_model_len
    indexer = -(-(rows * dim) // 256) * 256 + -(-(rows * 4) // 256) * 256  # the fp8 keys, then (rows, 4) scales
    flashmla = 0
    if kv_bytes == 1 and kv_dtype != "nvfp4_ds_mla" and device.capability() == (9, 0):
        latent = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
        flashmla = -(-(FLASHMLA_SPARSE_WORKSPACE_ROWS * max_model_len * latent * 2) // 256) * 256
    return max(indexer, flashmla)


#: Columns the indexer's decode logits are padded to: DeepGEMM's ``fp8_paged_mqa_logits`` allocates its fp32 output
#: ``(batch × next_n, align(max_context_len, 256))`` on Hopper (4 math warp groups × a 64-key block; later releases
#: align to ``split_kv`` 256 and a 1,024-byte row stride: 256 fp32 values either way; ``csrc/apis/attention.hpp``,
#: deepseek-ai/DeepGEMM at 1c9fa43e) and slices it to ``max_context_len``
INDEXER_LOGITS_ALIGN = 256


def sparse_indexer_decode_logits_bytes(model: ModelShape, vendor: str, rows: int, max_model_len: int) -> int:
    """Bytes of the fp32 scores a DeepSeek-V3.2-style sparse-attention indexer computes for a decode batch of ``rows``
    tokens on an NVIDIA GPU: ``sparse_attn_indexer``'s decode branch (``model_executor/layers/sparse_attn_indexer.py``,
    read in 0.17.0, 0.19.0, 0.20.0, 0.24.0, 0.25.1 and 0.29.0) calls ``fp8_paged_mqa_logits`` /
    ``fp8_fp4_paged_mqa_logits`` with ``max_model_len`` (``utils/deep_gemm.py``: "Logits tensor of shape [B * next_n,
    max_model_len], dtype torch.float32"), whatever the sequences' lengths, so the scores of one layer are ``rows ×
    max_model_len`` (padded to :data:`INDEXER_LOGITS_ALIGN`) × 4 bytes: 1.91 GiB for 512 decode tokens at 1,000,000.
    They live until the layer's top-k has read them; the next layer's take the same block. 0 for a model without the
    indexer and off NVIDIA (ROCm's AITER path, ``rocm_aiter_mla_sparse.py``, is not read)."""
    if vendor != "nvidia" or rows <= 0 or max_model_len <= 0 or not kv_layout.indexer_head_dim(model):
        return 0
    return rows * (-(-max_model_len // INDEXER_LOGITS_ALIGN) * INDEXER_LOGITS_ALIGN) * 4


#: The first release whose cold ``torch.compile`` is charged (:func:`cold_compile_gib`): 0.13.0's is the first public
#: log of it (an RTX 5080 out of memory "in the compile's autotuning", set 10); 0.11.0's ``CompilationConfig`` does
#: not turn on Inductor's kernel benchmarking, and 0.11.1 – 0.12 are not read.
COLD_COMPILE_SINCE = Version((0, 13, 0))


def cold_compile_gib(version: Version, engine: str, s: EngineSettings, e: Estimates, model: ModelShape,
                     act_bytes: float) -> float:
    """GiB the profile run's torch peak reaches at least while a cold ``torch.compile`` runs inside it, on every GPU
    of the first pipeline stage, which holds the embedding (each worker compiles its own graph; the later stages'
    compile is not charged): ``e.cold_compile_embedding_copies`` copies of one GPU's share of the input
    embedding (``vocab_size × hidden_size × activation bytes ÷ TP``), where the V1 engine compiles (not
    ``--enforce-eager``), its cache is cold (``EngineSettings.compile_cache``) and the release is 0.13 or later; 0
    otherwise. The peak is the larger of this and the forward pass or sampler (:func:`_profile`): the compile runs
    before the compiled graph does, its scratch is freed before the forward pass needs its own.

    Where it is: ``determine_available_memory`` (``v1/worker/gpu_worker.py``, read in 0.19.0, 0.25.1 and 0.33.0) runs
    ``profile_run`` inside ``memory_profiling``, after ``reset_peak_memory_stats``, and that first forward is the one
    that compiles ("still need a profile run which compiles the model for max_num_batched_tokens"); on a cold cache
    the Inductor compile of each piecewise graph (``compilation/backends.py``: "Compiling a graph for compile range
    ... takes ... s") runs there, benchmarking generated kernels on the GPU with inputs of their arguments' shapes
    (from torch 2.9 ``CompilationConfig`` turns on Inductor's ``combo_kernels`` and ``benchmark_combo_kernel``,
    ``config/compilation.py`` in 0.14.1, 0.19.0 and 0.33.0, not in 0.11.0), so whatever it allocates through PyTorch
    counts in the peak the budget keeps for activations. On a warm cache ("Directly load the compiled graph(s) ...
    from the cache") nothing is compiled or benchmarked. The size is read from public logs, not from the source
    (which kernel takes the embedding table is not read): the cold peak equals one copy of the embedding on every
    cold row that logs it — 0.13.0's autotuning asks for 1.02 GiB and runs out of memory with Qwen2.5-Coder-7B
    (152,064 × 3,584 × 2 B = 1.015 GiB), 0.26.0 logs 1.01 GiB of peak activation for Llama-3.1-8B and for its GPTQ
    w4a16 checkpoint alike (128,256 × 4,096 × 2 B = 0.98; the embedding stays 16-bit), a 0.27.1 note 1.18 cold against
    0.19 warm for Qwen3-8B (1.16), and a cold 0.27.1 Qwen2.5-0.5B run 0.31, its forward's peak above its 0.25 GiB
    embedding.

    Not where the profile's dummy run hands the compiled model embeddings instead of token ids: a multimodal model
    with any modality left on (``supports_mm_inputs``: ``MultiModalRegistry.supports_multimodal_inputs``, False once
    every modality the model takes is limited to 0, "text-only mode") gets ``input_ids=None`` and the runner's
    ``inputs_embeds`` buffer (V1 ``_dummy_run``, ``gpu_model_runner.py`` in the 0.11.0, 0.20.0 and 0.30.0 wheels,
    ``_prepare_mm_inputs`` from 0.20; Model Runner V2 ``uses_inputs_embeds``, ``v1/worker/gpu/model_runner.py``
    0.29.0 and 0.30.0), so the embedding table is not an input of the graph Inductor compiles and benchmarks
    (:func:`mm_inputs_embedded`). The Gemma 4 rows say the same: with their weights as vLLM builds them, the E4B
    cold start on an L4 keeps 94,919 tokens against 94,853 logged without the copy (71,814 with it), the 26B-A4B
    W4A16 repack on an L40S 141,858 against 141,961, while set 12's text-only FP8-dynamic 26B-A4B runs
    (``--language-model-only``) keep it."""
    if engine != "v1" or s.enforce_eager or s.compile_cache != "cold" or version.parts < COLD_COMPILE_SINCE.parts:
        return 0.0
    if mm_inputs_embedded(model, s):
        return 0.0
    return model.vocab_size * model.hidden_size * act_bytes / s.tp / GIB * e.cold_compile_embedding_copies


def mm_inputs_embedded(model: ModelShape, s: EngineSettings) -> bool:
    """Whether vLLM's runner embeds the tokens itself and hands the model ``inputs_embeds`` (:func:`cold_compile_gib`):
    a multimodal model (a ``vision_config`` or ``audio_config`` in config.json) with at least one of the modalities it
    takes above 0 in ``--limit-mm-per-prompt`` (a modality not named keeps the default, 999). The modalities: image,
    video for the Qwen ViTs and Gemma 4 (and audio for a model with an audio tower: ``audio_config``, or Gemma 4's
    E-series, whose per-layer inputs mark it), image for the others."""
    cfg = model.hf_config
    audio = isinstance(cfg.get("audio_config"), dict) or (
        str(cfg.get("model_type") or "").startswith("gemma4") and per_layer_embedding_params(model) > 0)
    if not isinstance(cfg.get("vision_config"), dict) and not audio:
        return False
    model_type = str(cfg.get("model_type") or "")
    video = model_type.startswith(("gemma4", *_QWEN_VIT_TYPES))
    taken = ("image", *(("video",) if video else ()), *(("audio",) if audio else ()))
    limits = dict(s.mm_limits)
    return any(limits.get(m, 1) > 0 for m in taken)


def _nontorch_gib(b: Behaviour, engine: str, device: Device, s: EngineSettings, e: Estimates,
                  model: ModelShape) -> float:
    """GiB of non-torch memory (CUDA context, cuBLAS workspaces, NCCL buffers) vLLM charges to the budget:
    what the release counts (V0 the increase while profiling; V1 as :data:`shardwise.rules.vllm.versions.NonTorch`
    says), more on several GPUs, ROCm's extra, and where the release counts them the communication
    buffers a tensor-parallel group sets up in the first forward pass (only on NVLink-joined GPUs where custom
    all-reduce runs: :func:`tp_buffers_counted`).

    V1 0.9 – 0.10 takes its snapshot before the distributed set-up and 0.11 after it, but on one GPU that set-up
    builds no device communicator (``GroupCoordinator`` makes one only for a group of more than one rank, and
    the pynccl warm-up all-reduce is the communicator's; ``distributed/parallel_state.py`` and
    ``device_communicators/pynccl.py`` 0.10.1.1), so a one-GPU V1 engine of 0.9 – 0.10 measures what 0.11 does:
    the ``after-distributed`` one-GPU term. On several GPUs the ``increase`` scope stays as it was (its NCCL
    communicators are set up after that snapshot). A data-parallel engine with expert parallelism on a DeepEP
    backend adds its buffers (:func:`all2all_buffers_gib`), which ``load_model`` allocates after the snapshot.

    "Several GPUs" is the engine's ``world_size``, TP × PP × PCP (:func:`shardwise.rules.model.world_size`): a
    ``pcp`` group's ``CudaCommunicator`` sets up NCCL as a ``tp`` group's does, and its profile run gathers the
    context-parallel ranks' keys and values over it. Custom all-reduce is the ``tp`` group's only
    (``CudaCommunicator.__init__``: ``if "tp" not in unique_name: use_custom_allreduce = False``, 0.12.0 and 0.26.0
    wheels), so :func:`tp_buffers_counted` stays a TP count. A data-parallel rank of a one-GPU engine is one GPU here:
    its profile synchronises the ranks' padding over NCCL only where ``disable_nccl_for_dp_synchronization`` is off
    (``v1/worker/dp_utils.py``; 0.26.0 turns it on with async scheduling), which is not read."""
    gpus = world_size(s.tp, s.pp, s.prefill_context_parallel)
    scope = "increase" if engine == "v0" else b.nontorch
    one, extra = e.nontorch(scope)
    if engine == "v1" and scope == "increase" and gpus == 1:
        one = e.nontorch("after-distributed")[0]
    gib = one + (extra if gpus > 1 else 0.0)
    if device.vendor == "amd":
        gib += e.rocm_extra_gib
    if engine == "v1" and b.tp_buffers_in_budget and tp_buffers_counted(device, s.tp):
        gib += e.tp_buffers_gib
    if engine == "v1" and scope == "increase":  # a data-parallel rank of one GPU holds communicators too
        gib += nccl_buffers_at_init_gib(device, s, e)
    if engine == "v1" and scope == "after-distributed" and not b.tp_buffers_in_budget:
        gib += torch_tp_communicator_gib(device, s, e)  # 0.11 - 0.18; from 0.19 the calibrated term is charged
    if engine == "v1":
        gib += all2all_buffers_gib(b, model, s)  # DeepEP's buffers, allocated at load_model
    return gib


class Margin(NamedTuple):
    """What must fit outside the KV budget, the ``1 − gpu_memory_utilization`` share of the GPU."""

    margin: float  # GiB
    need: float  # GiB: central estimate of the largest of the two checks
    band: float  # GiB
    verdict: Verdict
    fails: bool  # central estimate
    failure: str  # vLLM's failure, in words, when the central estimate fails (else the closest one)
    #: The deciding check is the one after sizing (CUDA graphs, the sampler warm-up): it rests on what vLLM's
    #: profiling left out, which varies by release and model, so it is never a certain refusal (SW101).
    after_sizing: bool = False


def _margin(b: Behaviour, engine: str, device: Device, s: EngineSettings, util: float, cg_in_budget: bool,
            cudagraph: float, rows: int, vocab: int, per_elem: float, last_stage: bool,
            e: Estimates, reserved: float = 0.0, v2: V2Terms | None = None, measured: bool = False) -> Margin:
    """The two start-up failures that happen outside the KV budget (V1); none for an extensible KV cache
    (``measured``, :func:`extensible_kv_cache`): vLLM skips the first snapshot's check and sizes the cache after the
    CUDA graphs and the warm-ups have run, keeping their peak free.

    * Before anything is profiled vLLM takes a snapshot and refuses when its free memory is below
      ``utilization × total``: what was allocated before it (the CUDA context where the release does
      not count it, and from 0.11 NCCL's communicators on several GPUs) must fit the margin.
    * After the KV cache has taken the budget, vLLM captures the CUDA graphs (where they were not
      estimated in the budget) and warms the sampler up again over ``min(max_num_seqs,
      max_num_batched_tokens)`` rows. The profile run ran that sampler already and the budget reserved its peak
      (``reserved``, GiB: the last stage's profiled torch peak, which ``memory_profiling`` hands back with
      ``empty_cache`` before the KV cache is allocated), so the warm-up reuses that room; what has to fit the
      margin is what the profile did not see: the graphs, the allocator's slack, and any part of the warm-up
      beyond the reserved peak. When it does not fit vLLM runs out of memory ("CUDA out of memory occurred when
      warming up sampler with N dummy requests"). Model Runner V2 (``v2``, :func:`v2_runner_terms`) warms up with
      its own prefill and decode after a greedy profile, and before 0.27 its penalty buffers are outside the budget.

    The first check that fails decides, else the one closest to failing.
    """
    total = device.memory_gib
    margin = total * (1.0 - util)
    if engine != "v1" or measured:
        return _tuple_new(Margin, (margin, 0.0, 0.0, "starts", False, "", False))
    before = _before_snapshot(b, device_communicators(s, moe=False), e, device.name)
    checks: list[_Check] = []
    if b.startup_free_check:
        checks.append(_first_snapshot_check(before, total, util))
    after = _after_sizing_check(before, b, s, margin, util, cg_in_budget, cudagraph, rows, vocab, per_elem,
                                last_stage, e, reserved, v2)
    if after is not None:
        checks.append(after)
    if not checks:
        return _tuple_new(Margin, (margin, before.gib, before.band, "starts", False, "", False))
    # one or two checks: the first that fails, else the first closest to failing (its band added)
    # (by position, not identity: compiled by mypyc, a tuple read from the list is a new object each time)
    at = 0
    for i in range(1, len(checks)):
        if checks[i][0] - margin + checks[i][1] > checks[at][0] - margin + checks[at][1]:
            at = i
    fails = False
    for i, c in enumerate(checks):
        if c[0] > margin:
            at, fails = i, True
            break
    need, band, text = checks[at]
    verdict: Verdict = "starts"  # refuses when one check fails beyond its band, starts when each fits beyond it
    for n, bd, _ in checks:
        if n - bd > margin:
            verdict = "refuses"
            break
        if n + bd > margin:
            verdict = "may-refuse"
    return _tuple_new(Margin, (margin, need, band, verdict, fails, text() if (fails or verdict != "starts") else "",
                               after is not None and at == len(checks) - 1))


#: One check of the margin: (GiB it must hold, their error band, vLLM's failure in words). The words are made
#: only for the check that decides, and only when it does not fit beyond its band (most sizings start).
_Check = tuple[float, float, Callable[[], str]]


class _Allocated(NamedTuple):
    """What is allocated before vLLM's first memory snapshot, outside the budget."""

    gib: float
    band: float
    nccl: float  # GiB of it NCCL's communicators hold


def _before_snapshot(b: Behaviour, groups: tuple[str, ...], e: Estimates, gpu: str = "") -> _Allocated:
    """The CUDA context on ``gpu`` (``Estimates.cuda_context``; where the release does not count it in the budget:
    0.8 does) and, where vLLM sets the distributed environment up before the snapshot (0.11+), NCCL's communicators
    where a rank holds any
    (``groups``, :func:`device_communicators`: a data-parallel rank of a one-GPU engine holds the ``dp`` one; the
    ``ep`` group is more than one rank only where TP or DP is, so it never decides). ``nccl_init_gib`` is charged once,
    whatever the number of communicators: what a further one adds is its ring buffers, 12 MiB a channel over NVLink
    or PCIe peer-to-peer and none on the GPU over shared memory (NCCL 2.27.3; docs/capacity-model.md, "NCCL's
    communicators, from source")."""
    context = 0.0 if b.nontorch == "absolute" else e.cuda_context(gpu)  # 0.8 counts the context in the budget
    nccl = e.nccl_init_gib if (groups and b.nontorch == "after-distributed") else 0.0
    band = e.context_error_gib + (e.nccl_init_error_gib if nccl else 0.0)
    return _tuple_new(_Allocated, (context + nccl, band, nccl))


def _first_snapshot_check(before: _Allocated, total: float, util: float) -> _Check:
    """vLLM's first snapshot (0.9+): it refuses when less than ``gpu_memory_utilization × total`` is free."""
    return before.gib, before.band, partial(_first_snapshot_text, before, total, util)


def _first_snapshot_text(before: _Allocated, total: float, util: float) -> str:
    free = total - before.gib
    return (f"about {free:.2f} of {total:.2f} GiB is free when vLLM takes its first snapshot "
            f"(after the CUDA context{' and NCCL' if before.nccl else ''}: {before.gib:.2f} GiB), less than "
            f"gpu_memory_utilization {util:g} × {total:.2f} = {total * util:.2f} GiB (vLLM: Free "
            f"memory on device ... on startup is less than desired GPU memory utilization)")


def _after_sizing_check(before: _Allocated, b: Behaviour, s: EngineSettings, margin: float, util: float,
                        cg_in_budget: bool, cudagraph: float, rows: int, vocab: int, per_elem: float,
                        last_stage: bool, e: Estimates, reserved: float = 0.0,
                        v2: V2Terms | None = None) -> _Check | None:
    """What vLLM does after the KV cache has taken the budget (``compile_or_warm_up_model``): it captures the CUDA
    graphs the budget did not hold (none with ``--enforce-eager``) and, on the last stage, warms the sampler up
    again. The warm-up allocates into the room of the profile run's peak (``reserved`` GiB, given back before the
    KV cache was allocated); the graphs' pools and the memory the driver keeps for them stay allocated, so they,
    the allocator's slack and what the warm-up needs beyond the reserved peak have to fit beside what was
    allocated before the snapshot. None when neither happens, or with ``--kv-cache-memory-bytes`` (no budget:
    what the given KV cache leaves is not the margin).

    Model Runner V2 (``v2``) captures its graphs after sizing too, then runs ``warmup_kernels`` (its prefill of
    ``warm_rows`` requests with every sampling feature, :class:`V2Terms`) on the last stage instead of V1's sampler
    warm-up; before 0.27 its penalty buffers, which no term of the budget counts, stay allocated beside them."""
    graphs = 0.0 if (cg_in_budget or s.enforce_eager) else cudagraph
    kept = 0.0
    if v2 is not None:
        warm = v2.warm / GIB if last_stage else 0.0
        rows = v2.warm_rows
        kept = 0.0 if (b.v2_persistent_in_budget or not last_stage) else v2.persistent / GIB
    else:
        warm = rows * vocab * per_elem / GIB if (b.sampler_warmup and last_stage) else 0.0
    if s.kv_cache_memory_bytes is not None and b.kv_cache_memory_flag:
        graphs = warm = kept = 0.0  # no budget: what is left after the given KV cache is not the margin
    if not (warm or graphs):
        return None
    # the graphs and the warm-up allocate into the room the profile's peak reserved; what is beyond it
    beyond = max(graphs + warm - reserved, 0.0)
    slack = e.allocator_slack_gib
    after = before.gib + slack + kept + beyond
    after_band = (before.band + e.allocator_slack_error_gib
                  + (max(e.cudagraph_error_gib, graphs * e.cudagraph_error) if graphs else 0.0)
                  + warm * e.warmup_error)
    return after, after_band, partial(_after_sizing_text, before, margin, util, graphs, warm, rows, vocab, reserved,
                                      beyond, slack, after, kept, v2 is not None)


def _after_sizing_text(before: _Allocated, margin: float, util: float, graphs: float, warm: float, rows: int,
                       vocab: int, reserved: float, beyond: float, slack: float, after: float, kept: float = 0.0,
                       v2: bool = False) -> str:
    nccl = " and NCCL" if before.nccl else ""
    parts = [f"the CUDA context{nccl} {before.gib:.2f} GiB", f"allocator slack {slack:.2f} GiB"]
    if kept:
        parts.append(f"Model Runner V2's penalty buffers {kept:.2f} GiB")
    used = []
    if graphs:
        used.append(f"CUDA graphs captured after sizing {graphs:.2f} GiB")
    if warm and v2:
        used.append(f"Model Runner V2's warm-up of {rows:,} requests (every sampling feature over {vocab:,} "
                    f"tokens) {warm:.2f} GiB")
    elif warm:
        used.append(f"the sampler warm-up over {rows:,} × {vocab:,} tokens {warm:.2f} GiB")
    parts.append(f"{' and '.join(used)} less the {reserved:.2f} GiB the profile run reserved: {beyond:.2f} GiB")
    if warm and v2:
        oom = "vLLM: CUDA out of memory in Model Runner V2's warmup_kernels"
    elif warm:
        oom = f"vLLM: CUDA out of memory occurred when warming up sampler with {rows} dummy requests"
    else:
        oom = "vLLM: CUDA out of memory while capturing CUDA graphs"
    return (f"the {margin:.2f} GiB outside the KV budget (1 − {util:g}) must hold {after:.2f} GiB: "
            f"{', '.join(parts)} ({oom})")


# --------------------------------------------------------------------------------------------------
# The sizing
# --------------------------------------------------------------------------------------------------


#: size_deployment's answers by the hash of their arguments (the model by identity: its config dict is not
#: hashable), each beside its arguments: ``hash -> (key, model, sizing)``. The hash is taken once per call (a
#: dict keyed by the arguments hashes the settings, the device and the release again to store a new answer:
#: about a fifth of a 2,000-workload lint's lookups). Two keys of one hash keep the last (the other is a miss).
#: A lint sizes the same layout for several rules (SW101-SW104, SW106, SW202); a ReplicaSizing is immutable.
_SIZED: dict[int, tuple[tuple[Any, ...], ModelShape, ReplicaSizing]] = {}
#: Entries the memo keeps before it starts again (a 2,000-workload lint asks for about 5,600 distinct
#: sizings; a sizing is about 2 KB).
_SIZED_MAX = 32768
_DEFAULT_KEY = object()  # DEFAULT_ESTIMATES in a memo key (an equal Estimates of its own is merely a miss)


def size_deployment(
    model: ModelShape,
    device: Device,
    settings: EngineSettings = EngineSettings(),
    version: ResolvedVersion | str | None = None,
    *,
    expected_context: int | None = None,
    weights_gib: float | None = None,
    estimates: Estimates = DEFAULT_ESTIMATES,
) -> ReplicaSizing:
    """What vLLM ``version`` does at start-up with ``model`` on ``device`` and ``settings``.

    ``weights_gib`` overrides the computed weights of the whole model (``plan --weights-gib``).
    """
    # the default estimates by identity: hashing their thirty fields on every call cost more than a sizing's lookup
    key = (id(model), device, settings, version, expected_context, weights_gib,
           _DEFAULT_KEY if estimates is DEFAULT_ESTIMATES else estimates)
    try:
        h = hash(key)
    except TypeError:  # an argument that cannot be hashed: size it without the memo
        return _size_range(model, device, settings, version, expected_context=expected_context,
                           weights_gib=weights_gib, estimates=estimates)
    hit = _SIZED.get(h)
    if hit is not None and hit[1] is model and hit[0] == key:
        return hit[2]
    sized = _size_range(model, device, settings, version, expected_context=expected_context,
                        weights_gib=weights_gib, estimates=estimates)
    if len(_SIZED) >= _SIZED_MAX:
        _SIZED.clear()
    _SIZED[h] = (key, model, sized)
    return sized


def _size_range(model: ModelShape, device: Device, settings: EngineSettings, version: ResolvedVersion | str | None,
                *, expected_context: int | None, weights_gib: float | None, estimates: Estimates) -> ReplicaSizing:
    """The sizing at the device's figure, its refusals confirmed at its higher one where it has one
    (:attr:`Device.memory_gib_high`: :func:`over_range`)."""
    sized = _size_deployment(model, device, settings, version, expected_context=expected_context,
                             weights_gib=weights_gib, estimates=estimates)
    if not device.memory_gib_high or all(getattr(sized, name) != "refuses" for name in RANGE_VERDICTS):
        return sized  # one figure, or nothing refused at the least: the higher figure changes no verdict
    high = size_deployment(model, replace(device, memory_gib=device.memory_gib_high, memory_gib_high=None,
                                          memory_gib_low=None), settings,
                           version, expected_context=expected_context, weights_gib=weights_gib, estimates=estimates)
    return over_range(sized, high, device.memory_gib_high)


#: How the note of :func:`over_range` ends (:func:`range_note` finds it).
RANGE_NOTE_TAIL = ": a manifest does not say which"


def range_note(s: ReplicaSizing) -> str:
    """The note :func:`over_range` added where a refusal at the catalog's figure is not sure for the GPU's ECC
    setting, else ""."""
    return next((n for n in s.notes if n.endswith(RANGE_NOTE_TAIL)), "")


#: The verdicts of a sizing that a refusal at the device's higher figure must confirm (:func:`over_range`).
RANGE_VERDICTS = ("weights_fit_band", "verdict", "kv_verdict", "margin_verdict", "mamba_verdict")


def over_range(low: ReplicaSizing, high: ReplicaSizing, high_gib: float) -> ReplicaSizing:
    """``low`` (sized at the device's catalog figure, the least it may report) with each verdict that refuses there
    but not at ``high_gib`` (the same GPU with ECC off: :attr:`Device.memory_gib_high`) made "may-refuse": the
    manifest does not say which figure the GPU reports, so a refusal is sure only where both refuse. Every figure
    stays ``low``'s (what plan prints; a suggestion to use fewer GPUs is judged there, the lower figure), and a note
    says where the ECC setting decides."""
    moved = {name: "may-refuse" for name in RANGE_VERDICTS
             if getattr(low, name) == "refuses" and getattr(high, name) != "refuses"}
    if not moved or high.weights_fit_band == "refuses":  # weights that surely do not fit at either figure
        return low
    starts = "starts" if high.verdict == "starts" and high.weights_fit_band == "starts" else "may start"
    note = (f"{low.gpu_memory_gib:.2f} GiB is the GPU's CUDA total with ECC on, which the sizing takes; with ECC off "
            f"it is {high_gib:.2f} GiB, where vLLM {starts}{RANGE_NOTE_TAIL}")
    fields = dict(low.__dict__)
    fields.update(moved)
    fields["notes"] = (*low.notes, note)
    return _replica_sizing(fields)


def _unbuilt_towers(model: ModelShape, s: EngineSettings, b: Behaviour, notes: list[str]) -> int:
    """Parameters of the towers release ``b`` does not build for these settings (``Behaviour.unbuilt_towers``:
    :func:`.weights.unbuilt_tower_params`), saying so."""
    unbuilt = unbuilt_tower_params(model, s.mm_limits) if b.unbuilt_towers else 0
    if unbuilt:
        notes.append(f"every modality of {model.id}'s towers is limited to 0: vLLM builds them on the meta device and "
                     f"loads none of their {unbuilt / 1e9:.2f} B parameters")
    return unbuilt


def _encoder_mode(model: ModelShape, s: EngineSettings, rv: ResolvedVersion, notes: list[str]) -> EngineSettings:
    """The settings with ``--mm-encoder-tp-mode`` as vLLM ``rv`` keeps it for ``model``: ``data`` stays only where the
    release and the model's class support it (:func:`.support.encoder_tp_data`); vLLM falls back to ``weights``
    (and says so) for any other model, so does the sizing."""
    if s.mm_encoder_tp_mode != "data" or encoder_tp_data(model, "data", rv.version):
        return s
    if model.vision_params > 0:
        notes.append(f"--mm-encoder-tp-mode data: vLLM {rv.version} falls back to weights for this model (its class "
                     "does not support data mode), so the encoder is split TP ways")
    return replace(s, mm_encoder_tp_mode=None)


def checkpoint_kv_dtype(model: ModelShape) -> str | None:
    """The KV cache dtype a ModelOpt checkpoint names for ``--kv-cache-dtype auto`` (vLLM's
    ``get_kv_cache_quant_algo_string``, ``utils/torch_utils.py`` v0.30.0): its quantization_config's
    ``kv_cache_scheme`` or ``kv_cache_quant_algo``, at the top level or under ``quantization``; FP8 (the string, or a
    static 8-bit float scheme) is ``fp8_e4m3``. None for any other checkpoint, and for a format this model does not
    size from the checkpoint (0.30's NVFP4 KV scheme)."""
    qc = model.hf_config.get("quantization_config")
    if not isinstance(qc, dict) or not str(qc.get("quant_method", "")).startswith("modelopt"):
        return None
    inner = qc.get("quantization", qc)
    inner = inner if isinstance(inner, dict) else qc
    algo = (inner.get("kv_cache_scheme") or qc.get("kv_cache_scheme") or inner.get("kv_cache_quant_algo")
            or qc.get("kv_cache_quant_algo"))
    if isinstance(algo, dict):
        fp8 = algo.get("dynamic") is False and algo.get("num_bits") == 8 and algo.get("type") == "float"
        algo = "fp8" if fp8 else None
    return "fp8_e4m3" if isinstance(algo, str) and algo.lower() == "fp8" else None


def _checkpoint_kv_mode(model: ModelShape, s: EngineSettings, rv: ResolvedVersion, notes: list[str]) -> EngineSettings:
    """The settings with ``--kv-cache-dtype auto`` resolved as vLLM ``rv`` resolves it
    (``Behaviour.kv_dtype_from_checkpoint``, 0.14.0+): a ModelOpt checkpoint's own FP8 KV cache format
    (:func:`checkpoint_kv_dtype`)."""
    if s.kv_cache_dtype not in ("", "auto") or not rv.behaviour.kv_dtype_from_checkpoint:
        return s
    resolved = checkpoint_kv_dtype(model)
    if resolved is None:
        return s
    notes.append(f"--kv-cache-dtype auto: vLLM {rv.version} takes the checkpoint's own KV cache format "
                 f"({resolved}: its quantization config's kv_cache_quant_algo), one byte an element")
    return replace(s, kv_cache_dtype=resolved)


class WeightsAlone(NamedTuple):
    """What a sizing of one pipeline stage says of the weights, told without the sizing (:func:`weights_alone`)."""

    weights_gib: float  # its ``weights_gib_per_gpu``, the same float
    usable_gib: float  # its ``usable_gib_per_gpu``
    refuses: bool  # its ``weights_fit_band == "refuses"``
    nontorch_gib: float = 0.0  # its ``non_torch_gib_per_gpu``: taken from the budget besides the weights


def weights_alone(
    model: ModelShape,
    device: Device,
    settings: EngineSettings,
    version: ResolvedVersion,
    *,
    weights_gib: float | None = None,
    estimates: Estimates = DEFAULT_ESTIMATES,
) -> WeightsAlone | None:
    """The weights of one GPU against the memory vLLM may use, as ``size_deployment`` with the same arguments
    finds them (the same steps: the checkpoint, the stage's weights, the draft's, the budget), without the rest
    of the sizing; None where only the sizing can tell (several pipeline stages: which is the worst depends on the
    whole profile; a release not resolved). With one stage and no ``--kv-cache-memory-bytes`` the KV cache the
    sizing finds is at most ``usable_gib - weights_gib - nontorch_gib``: the non-torch memory is the sizing's own
    term (:func:`_nontorch_gib`, the same float), and everything else the profile takes from the budget (the
    activation peak, CUDA graphs, the buffers Model Runner V2 keeps) is at least 0; an extensible KV cache (0.34+)
    takes them from the lesser of the budget and the free memory (:func:`_profile`). The layout search
    (:mod:`.layout`) reads these bounds before it sizes a smaller layout."""
    if settings.pp != 1 or settings.tp < 1 or settings.dp < 1 or not isinstance(version, ResolvedVersion):
        return None
    model = as_loaded(model, version.behaviour)
    st = _weight_steps(model, device, settings, version, weights_gib)
    w = _stage_weight_bytes(model, st, 0, weights_gib, device) / GIB
    refuses = _weights_fit(w, st.usable, st.exact, estimates, offload_overshoot_gib(model, st.s, st.ck.precision)
                           ).verdict == "refuses"
    return _tuple_new(WeightsAlone, (w, st.usable, refuses,
                                     _nontorch_gib(st.b, st.engine, device, st.s, estimates, model)))


def stages_alone(
    model: ModelShape,
    device: Device,
    settings: EngineSettings,
    version: ResolvedVersion,
    *,
    weights_gib: float | None = None,
    estimates: Estimates = DEFAULT_ESTIMATES,
) -> WeightsAlone | None:
    """For several pipeline stages, what :func:`weights_alone` tells of one: the weights of the lightest of the stages
    whose profile can differ (:func:`_distinct_stages`, the draft's on the last), the memory vLLM may use, whether
    every one of them surely refuses, and the non-torch memory; None for one stage (:func:`weights_alone` tells it)
    and for a release not resolved. The same steps as the sizing's (the engine, the checkpoint, the budget, each
    stage's weights), the same floats.

    The sizing judges the weights of the stage that leaves the least memory (:func:`_profile`), which only the whole
    profile tells, and sizes the KV cache of the stage with the fewest blocks (:func:`_cache_stage`); both are among
    these stages. So where every stage refuses, the sizing's ``weights_fit_band`` is ``"refuses"``; and its weights
    are at least the lightest stage's, its KV cache at most what the lightest stage's weights and the non-torch
    memory leave of the budget (:func:`.layout.no_room` reads the bounds). A third of the layouts a 2,000-file lint
    sized for SW104's search were multi-stage layouts whose weights refuse (TP4×PP2 of a 70B model on 40 GB GPUs,
    smaller than its TP8×PP2)."""
    if settings.pp <= 1 or settings.tp < 1 or settings.dp < 1 or not isinstance(version, ResolvedVersion):
        return None
    model = as_loaded(model, version.behaviour)
    st = _weight_steps(model, device, settings, version, weights_gib)
    lightest = math.inf
    refuses = True
    slack = offload_overshoot_gib(model, st.s, st.ck.precision)
    for stage in _distinct_stages(model, st.s.pp):
        w = _stage_weight_bytes(model, st, stage, weights_gib, device) / GIB
        lightest = min(lightest, w)
        refuses = refuses and _weights_fit(w, st.usable, st.exact, estimates, slack).verdict == "refuses"
    return _tuple_new(WeightsAlone, (lightest, st.usable, refuses,
                                     _nontorch_gib(st.b, st.engine, device, st.s, estimates, model)))


class _WeightSteps(NamedTuple):
    """The sizing's steps up to the weights (:func:`_size_deployment`'s, in its order, with no notes kept): what
    :func:`weights_alone` and :func:`stages_alone` read."""

    b: Behaviour
    s: EngineSettings  # the settings as the sizing resolves them (encoder mode, the checkpoint's KV cache format)
    engine: str
    unbuilt: int  # the parameters of towers vLLM does not build
    ck: _Checkpoint
    usable: float  # the memory vLLM may use, GiB a GPU
    exact: bool  # the weights are the checkpoint's own count, not an estimate


def _weight_steps(model: ModelShape, device: Device, settings: EngineSettings, version: ResolvedVersion,
                  weights_gib: float | None) -> _WeightSteps:
    b = version.behaviour
    s = _encoder_mode(model, settings, version, [])
    s = _checkpoint_kv_mode(model, s, version, [])
    engine = _engine(version, device, [], s)
    unbuilt = _unbuilt_towers(model, s, b, [])
    ck = _checkpoint(model, s, weights_gib, [], unbuilt)
    _, usable = _requested_memory(device, s, b, extensible_kv_cache(b, engine, device, s))
    return _tuple_new(_WeightSteps, (b, s, engine, unbuilt, ck, usable,
                                     exact_weights(model, ck.precision, weights_gib is not None)))


def _stage_weight_bytes(model: ModelShape, st: _WeightSteps, stage: int, weights_gib: float | None,
                        device: Device) -> float:
    """One GPU's weights on pipeline stage ``stage``, the drafter's with the last stage's, as the sizing counts them."""
    s, b, ck = st.s, st.b, st.ck
    w = _stage_weights(model, ck.total_bytes, ck.precision, s, stage, buffers=weights_gib is None, device=device,
                       triton_kernels=b.wheel_triton_kernels, mrope_scale=b.mrope_cache_scale,
                       scales_freed=b.mxfp4_triton_frees_scales, towers_built=not st.unbuilt,
                       redundant=redundant_experts(b, model, s))
    if stage == s.pp - 1:  # the drafter loads with the target, on the last stage (:func:`_profile`)
        w += draft(model, s.speculative_method, ck.precision, s.tp, s.tp * (s.dp if s.expert_parallel else 1),
                   s.speculative_model, s.speculative_draft_tp).weight_bytes
    return w


def _size_deployment(
    model: ModelShape,
    device: Device,
    settings: EngineSettings,
    version: ResolvedVersion | str | None,
    *,
    expected_context: int | None,
    weights_gib: float | None,
    estimates: Estimates,
) -> ReplicaSizing:
    """vLLM's start-up, step by step: the engine configuration, the memory profile of one GPU of the
    pipeline stage that leaves the least, the KV cache, then what has to fit outside the budget."""
    s, e = settings, estimates
    if s.tp < 1 or s.pp < 1 or s.dp < 1:
        raise ValueError("tensor, pipeline and data parallel sizes must be at least 1")
    rv = version if isinstance(version, ResolvedVersion) else resolve(version, missing="no release given")
    b = rv.behaviour
    model = as_loaded(model, b)
    notes: list[str] = []
    s = _encoder_mode(model, s, rv, notes)
    s = _checkpoint_kv_mode(model, s, rv, notes)
    served = _served_dtype(model, s, device, rv)
    s = _served_in_float32(model, s, device, rv, served, notes)
    dtype_varies = _dtype_by_release(model, s, device, rv, served, notes) or _dtype_unread(model, s, served, notes)
    no_float32 = _quantised_float32(model, s, device, rv, served, notes)

    # the engine configuration: engine, checkpoint, context limit, scheduler, block size
    engine = _engine(rv, device, notes, s)
    unbuilt = _unbuilt_towers(model, s, b, notes)
    ck = _checkpoint(model, s, weights_gib, notes, unbuilt)
    length = _max_model_len(model, s, rv, notes)
    first = kv_layout.layout(model, s.tp, s.pp, ck.kv_bytes, 0, b.mla_cache, speculative_token_count(model, s),
                             ck.kv_dtype, state_dtypes(s, b))
    batch = _scheduler_limits(model, s, b, engine, device, length.max_model_len, first)
    refusal, certain = length.refusal, length.certain
    if served.refusal and not served.by_worker and not dtype_varies:  # ModelConfig's check, before its length's
        refusal, certain = served.refusal, True
    # ParallelConfig is made after ModelConfig (the length) and before the scheduler's and the model's checks
    no_ep = eplb_refusal(s, b, rv.version)
    if no_ep and rv.source == "assumed":  # 0.9.x starts it: not sure where the release is not known (review21)
        notes.append(eplb_assumed_note(rv, s))
    elif no_ep and not refusal:
        refusal, certain = no_ep, True
    if batch.refusal and not refusal:
        refusal, certain = batch.refusal, True
    # vLLM checks the model class for SupportsPP before it builds a layer (and an MTP draft's class, which keeps the
    # target's PP); the KV-sharing targets when it does
    split = (pp_refusal(model, s.pp) or draft_pp_refusal(model, s.pp, s.speculative_method, rv.version)
             or kv_layout.kv_sharing_split(model, s.pp))
    if split and not refusal:
        refusal, certain = split, True
    wrong_vendor = quantization_vendor_refusal(s.quantization, device.vendor)
    if wrong_vendor and not refusal:
        refusal, certain = wrong_vendor, True
    # VllmConfig._get_quantization_config: the method's minimum compute capability, then its activation dtypes
    below_capability = quantization_capability_refusal(model, s, device, rv, notes)
    if below_capability and not refusal:
        refusal, certain = below_capability, True
    if no_float32 and not refusal:  # VllmConfig's quantisation check, before the GPU worker's
        refusal, certain = no_float32, True
    if served.refusal and not refusal and not dtype_varies:  # the GPU worker's bfloat16 check, once configured
        refusal, certain = served.refusal, True
    no_backend = kv_dtype_refusal(model, s, device, ck, rv) if engine == "v1" else ""
    if no_backend and not refusal:
        refusal, certain = no_backend, True
    bad_arg, arg_sure = _mm_args_refusal(s, b, rv)
    unsure_arg = bool(bad_arg) and not arg_sure and not refusal  # the image's entrypoint may strip the quotes
    if bad_arg and not refusal:
        refusal, certain = bad_arg, arg_sure
    block = _block_size(model, s, rv, engine, device, first)

    # the memory profile: the budget, what it must hold besides the KV cache, the stage that leaves least
    ext = extensible_kv_cache(b, engine, device, s)
    util, usable = _requested_memory(device, s, b, ext)
    nontorch = _nontorch_gib(b, engine, device, s, e, model)
    flat = False  # a state layer among the first stage's cache types (a loop: asked once a sizing)
    for t in first.types:
        if t.kind == "state":
            flat = True
            break
    v2 = engine == "v1" and model_runner_v2(model, b, ck.precision, s.pooling, state_layers=flat)
    graphs = _cuda_graphs(b, engine, device, s, e, model, batch, ck.act_bytes, flat=flat, v2=v2,
                          max_model_len=length.max_model_len)
    sampler = _sampler_run(model, b, engine, batch, e, s, device.vendor, v2_act=ck.act_bytes if v2 else 0)
    v2_terms = v2_runner_terms(model, b, s, batch.seqs, batch.batched, ck.act_bytes, e, device.vendor) if v2 else None
    # what V2 keeps from load_model on, where the budget counts it (0.27+): on the last stage, beside the weights
    kept = v2_terms.persistent if (v2_terms is not None and b.v2_persistent_in_budget) else 0.0
    dr = draft(model, s.speculative_method, ck.precision, s.tp, s.tp * (s.dp if s.expert_parallel else 1),
               s.speculative_model, s.speculative_draft_tp)
    if dr.note:
        notes.append(dr.note)
    triton_kernels = b.wheel_triton_kernels  # the wheel's, the official image's and a pip install's alike
    encoder = _encoder(model, s, b, engine, length.max_model_len, batch.batched, batch.seqs, ck.act_bytes, e)
    if v2 and encoder.note and not b.v2_encoder_profile:
        # Model Runner V2's profile_run runs no multimodal encoder before 0.27 (v1/worker/gpu/model_runner.py)
        encoder = _NO_ENCODER
        notes.append(f"vLLM {rv.version} runs {model.id} on Model Runner V2, whose profile runs no multimodal "
                     "encoder: the first image's encoder activations are not in the budget")
    measured = None
    if ext:
        before = _before_snapshot(b, device_communicators(s, moe=False), e, device.name)
        measured = _Measured(device.memory_gib - before.gib, EXTENSIBLE_MARGIN_FLOOR_GIB[device.vendor])
    compile_gib = cold_compile_gib(rv.version, engine, s, e, model, ck.act_bytes)
    workspace = sparse_indexer_workspace_bytes(model, b, device, length.max_model_len, ck.kv_bytes, ck.kv_dtype)
    if workspace:
        notes.append(f"the sparse-attention indexer's prefill workspace ({workspace / GIB:.2f} GiB at "
                     f"{length.max_model_len:,} tokens) is held beside the profile's peak")
    worst, stages = _profile(model, s, device, ck, batch, usable, nontorch, graphs, sampler, weights_gib is None, e,
                             notes, triton_kernels, encoder, b.mrope_cache_scale, dr, kept, measured, compile_gib,
                             b.mxfp4_triton_frees_scales, not unbuilt, moe_chunk_tokens(b, s),
                             moe_row_bytes(model, s, b, device, ck.precision, ck.act_bytes, e),
                             redundant_experts(b, model, s), workspace,
                             moe_workspace_kept(model, b, device, ck.precision),
                             moe_workspace_kept_by_image(model, b, s, device, ck.precision))
    given = engine == "v1" and b.kv_cache_memory_flag and s.kv_cache_memory_bytes is not None
    # what the KV cache plans with: a sliding window's blocks a request cover its span and the tokens in flight
    kv_batch = batch._replace(batched=kv_in_flight_tokens(b, s, batch.batched, v2))
    cache_stage = _cache_stage(model, s, ck, b, engine, stages, worst, length.max_model_len, kv_batch.batched, block,
                               dr)
    lay = _cached_layout(model, s, b, engine, _stage_layout(model, s, ck, b, cache_stage.stage, dr))
    available = _kv_budget(cache_stage, s, given, notes)
    exact = exact_weights(model, ck.precision, weights_gib is not None)
    below, above = _error_band(worst, device, s, b, engine, usable, graphs, given, exact, e, sampler.measured)
    slack = offload_overshoot_gib(model, s, ck.precision)  # vLLM may offload one parameter more: more KV cache
    above += 0.0 if given else slack
    draft_err = 0.0 if given else dr.unknown_bytes / GIB
    band, band_above = below + draft_err, above + draft_err

    # the KV cache and vLLM's checks of it
    check = _check_layout(model, s, ck, b, engine, lay, dr)
    check_avail = min(available, worst.avail) if check is not lay and not given else available
    kv = _kv_cache(model, s, lay, b, engine, available, band, length, kv_batch.batched, block, notes, check,
                   check_avail)
    mml = kv.max_model_len
    if not refusal:
        refusal = _kv_refusal(engine, check_avail, kv)
    weights = _weights_fit(worst.weights, usable, exact, e, slack)
    starts = not refusal
    verdict = _kv_verdict(certain or weights.verdict == "refuses", engine, check_avail, band, band_above, kv)

    # what has to fit outside the budget (the last stage's GPUs warm the sampler up)
    kv_verdict = verdict
    mamba = mamba_seqs_check(model, lay, b, engine, s, batch.seqs, batch.batched, available, band, band_above, mml,
                             kv_batch.batched, block)
    if mamba.verdict != "starts" and verdict != "refuses":
        verdict = mamba.verdict
    if mamba.refusal and not refusal:
        refusal = mamba.refusal
        starts = False
    outside = _margin(b, engine, device, s, util, graphs.in_budget, graphs.gib, sampler.rows, model.vocab_size,
                      sampler.per_elem, True, e, worst.last_peak, v2_terms, measured=ext)
    # A margin short beyond its error band refuses. Inside the band the verdict stays the KV cache's: the
    # band of the four terms together (about 0.85 GiB) is as large as an L4's whole margin, which would make
    # every layout on it "may refuse" although Llama-3.1-8B at PP2 starts there; SW101 reports the banded
    # margin as advisory (``margin_verdict``), and ``starts`` follows the central estimate.
    if not certain and outside.verdict == "refuses":
        verdict = "refuses"
    if not certain and outside.fails:
        if not refusal:
            refusal = outside.failure
        starts = False
    if unsure_arg and verdict == "starts":
        verdict = "may-refuse"
    host = unified_memory_note(device, util, ext)
    if host:  # the host can only take from the budget: a predicted refusal stands, a start is the host's to keep
        notes.append(host)

    load = _declared_load(lay, b, engine, kv, kv_batch, expected_context, available)
    if expected_context is not None and expected_context > mml:
        whose = f"the {mml:,} tokens {model.id} allows" if mml == length.model_limit else f"max_model_len {mml:,}"
        notes.append(f"the expected context of {expected_context:,} tokens is above {whose}: vLLM rejects longer "
                     f"requests, so the load is judged at {mml:,} tokens")
    return _replica_sizing({
        "model_id": model.id,
        "vllm_version": str(rv.version),
        "vllm_version_note": rv.note,
        "engine": engine,
        "tensor_parallel_size": s.tp,
        "pipeline_parallel_size": s.pp,
        "data_parallel_size": s.dp,
        "expert_parallel": s.expert_parallel,
        "gpus": world_size(s.tp, s.pp, s.prefill_context_parallel),
        "gpu_memory_gib": device.memory_gib,
        "gpu_memory_utilization": util,
        "weight_precision": ck.precision,
        "kv_cache_dtype_bytes": ck.kv_bytes,
        "weights_gb_total": ck.total_bytes / GB,
        "weights_gib_per_gpu": worst.weights,
        "activation_gib_per_gpu": worst.act,
        "sampler_gib_per_gpu": worst.sampler,
        "encoder_gib_per_gpu": worst.encoder,
        "non_torch_gib_per_gpu": nontorch,
        "cudagraph_gib_per_gpu": graphs.gib,
        "cudagraphs_in_budget": graphs.in_budget,
        "usable_gib_per_gpu": usable,
        "available_kv_gib": available,
        "kv_cache_gib_per_gpu": max(available, 0.0),
        "error_band_gib": band,
        "error_band_above_gib": band_above,
        "kv_bytes_per_token_per_gpu": max(kv_bytes_per_token_per_gpu(model, s.tp, s.pp, ck.kv_bytes, b.mla_cache,
                                                                     ck.kv_dtype),
                                          kv_layout.token_bytes(_stage_layout(model, s, ck, b, s.pp - 1, dr))),
        "block_size": kv.plan.block_size,
        "kv_cache_tokens": kv.plan.tokens,
        "max_concurrency": kv.plan.max_concurrency,
        "hybrid_kv": kv.plan.hybrid_manager,
        "model_max_len": length.model_limit,
        "max_model_len": mml,
        "max_model_len_fit": kv.fit_len,
        "max_model_len_fit_sure": kv.fit_sure,
        "max_num_seqs": batch.seqs,
        "max_num_seqs_default": s.max_num_seqs is None,
        "max_num_batched_tokens": batch.batched,
        "expected_context": load.context,
        "concurrency_at_expected_context": int(load.concurrency),
        "context_kv_gib": load.context_kv_gib,
        "load_tokens": load.tokens,
        "needed_kv_gib": kv.needed / GIB,
        "weights_fit": weights.fits,
        "weights_error_gib": weights.band,
        "weights_error_below_gib": weights.below,
        "weights_fit_band": weights.verdict,
        "starts": starts,
        "verdict": verdict,
        "kv_verdict": kv_verdict,
        "margin_gib": outside.margin,
        "margin_need_gib": outside.need,
        "margin_verdict": outside.verdict,
        "margin_failure": outside.failure,
        "margin_after_sizing": outside.after_sizing,
        "refusal": refusal,
        "certain": certain,
        "headroom_gib_per_gpu": load.headroom,
        "mamba_blocks": mamba.blocks,
        "mamba_blocks_sure": mamba.blocks_sure,
        "mamba_verdict": mamba.verdict,
        "mamba_batch": mamba.batch,
        "notes": tuple(notes),
        "kv_blocks": kv.plan.num_blocks,
    })


def _replica_sizing(fields: dict[str, Any]) -> ReplicaSizing:
    """The :class:`ReplicaSizing` of every one of its fields, by name, made without the frozen dataclass's
    ``__init__``, which sets its sixty fields one ``object.__setattr__`` at a time (a fifth of what a sizing
    took): ``fields`` becomes its ``__dict__`` (a dict display costs less than sixty keyword arguments and their
    copy). The same object as ``ReplicaSizing(**fields)``; tests/capacity/test_sizing.py holds the two equal."""
    r = object.__new__(ReplicaSizing)
    object.__setattr__(r, "__dict__", fields)
    return r


# --------------------------------------------------------------------------------------------------
# The steps of the start-up, in the order _size_deployment takes them
# --------------------------------------------------------------------------------------------------


def _engine(rv: ResolvedVersion, device: Device, notes: list[str], s: EngineSettings = EngineSettings()) -> str:
    """The engine the release runs: its own, except that the V1 releases before 0.11 still run V0 on GPUs
    below compute capability 8.0 (Turing, Volta): their engine arguments fall back to it there; and in those
    releases ``VLLM_USE_V1=0`` selects V0 (AMD's ``rocm/vllm`` images and benchmark scripts of the 0.8-0.10 line
    set it)."""
    b = rv.behaviour
    engine = b.engine
    if engine == "v1" and b.v0_by_env and s.use_v1 is False:
        notes.append(f"VLLM_USE_V1=0: vLLM {rv.version} runs the V0 engine")
        return "v0"
    cc = device.capability()
    if engine == "v1" and b.v0_below_cc80 and cc is not None and cc < (8, 0):
        engine = "v0"
        notes.append(f"vLLM {rv.version} runs the V0 engine on {device.name} (compute capability below 8.0)")
    return engine


def engine_run(rv: ResolvedVersion, device: Device, s: EngineSettings) -> str:
    """The engine (``"v0"`` or ``"v1"``) the release runs on ``device`` with ``s`` (:func:`_engine`)."""
    return _engine(rv, device, [], s)


class _Checkpoint(NamedTuple):
    """What vLLM loads, and the dtypes it computes and caches in."""

    precision: Precision  # of the linear layers
    act_bytes: int  # bytes per activation element
    kv_bytes: int  # bytes per KV cache element
    total_bytes: float  # the whole model's weights
    kv_dtype: str = ""  # a packed KV cache dtype (kv_dtypes.PACKED), sized by its slots; "" for an element size


def _checkpoint(model: ModelShape, s: EngineSettings, weights_gib: float | None, notes: list[str],
                unbuilt: int = 0) -> _Checkpoint:
    """The model configuration's dtypes: the linear layers' precision (``--quantization``, else the
    checkpoint's own, else ``--dtype``), the activation dtype, the KV cache dtype
    (``--kv-cache-dtype``), and the weights of the whole model (or ``plan --weights-gib``), less the ``unbuilt``
    tower parameters vLLM does not build (:func:`_unbuilt_towers`), which a 16-bit checkpoint and a quantised one
    alike keep at the model's dtype (:func:`weights_bytes`)."""
    if weights_gib is not None:
        notes.append(f"weights given as {weights_gib} GiB for the whole model")
    key = ("checkpoint", s.dtype, s.quantization, s.kv_cache_dtype, weights_gib, unbuilt)
    memo = _facts(model)
    hit = memo.get(key)
    if hit is None:
        precision = weight_precision(model, s.dtype, s.quantization)
        act = activation_dtype_bytes(model, s.dtype)
        kvb = kv_dtype_bytes(model, s.kv_cache_dtype, s.dtype)
        total_bytes = weights_gib * GIB if weights_gib is not None else weights_bytes(model, precision, s.quantization)
        if unbuilt and weights_gib is None:
            quantised = BYTES_PER_PARAM[precision] < 2 and precision != model.precision  # quantised at load time
            total_bytes -= unbuilt * (bytes_per_param(model, precision, s.quantization) if quantised
                                      else BYTES_PER_PARAM[precision] if BYTES_PER_PARAM[precision] >= 2 else 2.0)
        hit = memo[key] = _Checkpoint(precision, act, kvb, total_bytes, kv_dtypes.packed(s.kv_cache_dtype))
    return hit  # type: ignore[no-any-return]


class LoadPeak(NamedTuple):
    """What one GPU holds at its peak while vLLM loads a 16-bit checkpoint it quantises to FP8 online
    (:func:`online_fp8_load_peak`), in GiB."""

    whole_16bit: float  # before 0.16.0: the rank's weights at 16 bits, all allocated before any is quantised
    layerwise: float  # 0.16.0+: the other layers' FP8 weights, one layer at 16 bits and the FP8 copy made of it
    layerwise_release: bool  # the release sized quantises layer by layer (``Behaviour.online_fp8_layerwise``)

    @property
    def gib(self) -> float:
        """The peak on the release sized."""
        return self.layerwise if self.layerwise_release else self.whole_16bit


def quantised_online(model: ModelShape, s: EngineSettings) -> bool:
    """Whether vLLM quantises the checkpoint to FP8 while it loads it: ``--quantization fp8`` on a 16-bit checkpoint
    with no ``quantization_config``, without ``--cpu-offload-gb`` (:func:`online_fp8_load_peak`). Told from the
    settings and the model alone, before any layout is sized."""
    return ((s.quantization or "").lower() == "fp8" and not s.cpu_offload_bytes
            and model.precision in ("bf16", "fp16", "fp32")
            and not isinstance(model.hf_config.get("quantization_config"), dict))


def online_fp8_load_peak(model: ModelShape, device: Device, s: EngineSettings, rv: ResolvedVersion,
                         sized: ReplicaSizing) -> LoadPeak | None:
    """The load peak of ``--quantization fp8`` on a 16-bit checkpoint with no ``quantization_config`` (vLLM quantises
    it online), else None (a checkpoint already quantised, another method, ``--cpu-offload-gb``, which moves weights
    the load peak would count; docs/capacity-model.md, "Online quantisation's peak at load"). Before 0.16.0
    (``Behaviour.online_fp8_layerwise`` False) every weight is allocated at 16 bits and quantised after the whole
    load: the rank's weights at 16 bits, as the sizing without ``--quantization`` finds them (:func:`weights_alone`;
    with several stages the lightest stage's, :func:`stages_alone`, so a refusal it shows holds on every stage). From
    0.16.0 a layer is materialised at 16 bits and quantised once its last chunk is copied: the FP8 weights of the
    other layers, one decoder layer's quantised weights at 16 bits and the FP8 copy made of them (the FP8 weights
    plus two bytes a parameter of that layer). A layer's quantised parameters are the rank's 16-bit less its FP8
    bytes (one byte each) over the stage's layers."""
    if not quantised_online(model, s) or sized.weight_precision != "fp8":
        return None
    wide_settings = replace(s, quantization=None)
    wide = (weights_alone if s.pp == 1 else stages_alone)(model, device, wide_settings, rv)
    if wide is None:
        return None
    fp8_rank = sized.weights_gib_per_gpu
    layers = max(1, -(-model.num_hidden_layers // max(1, s.pp)))
    one_layer = max(0.0, wide.weights_gib - fp8_rank) / layers  # a layer's quantised parameters, one byte each, GiB
    return LoadPeak(wide.weights_gib, fp8_rank + 2.0 * one_layer, rv.behaviour.online_fp8_layerwise)


def first_release_taking(kv_dtype: str) -> str:
    """The first release whose row lists the packed KV cache dtype (``Behaviour.packed_kv_dtypes``)."""
    for r in RANGES:
        if kv_dtype in r.packed_kv_dtypes:
            return r.since
    return "no release read"


def _served_dtype(model: ModelShape, s: EngineSettings, device: Device, rv: ResolvedVersion) -> model_dtype.ServedDtype:
    """The dtype vLLM serves ``model`` in on ``device`` and its refusal (:func:`..vllm.model_dtype.served_dtype`):
    config.json's top-level model type, its ``torch_dtype`` ("" where the catalog or the config names none: vLLM
    then reads the safetensors or takes float32, which this does not decide). Kept in the model's facts by what it
    reads besides the model (the release's two fields of it, ``--dtype``, the GPU's vendor, capability and name):
    asked once per sizing (828 times in a lint of 400 generated files), a few distinct answers a run."""
    b = rv.behaviour
    capability = device.capability()
    key = ("served_dtype", s.dtype, device.vendor, capability, device.name, b.auto_dtype, b.float16_refused)
    memo = _facts(model)
    hit = memo.get(key)
    if hit is not None:
        return hit
    model_type = model_dtype.top_model_type(model.hf_config.get("architectures"), str(
        model.hf_config.get("model_type") or model.extra.get("model_type") or ""))
    stated = "" if model.extra.get("torch_dtype_assumed") else model.torch_dtype
    served = memo[key] = model_dtype.served_dtype(b, model_type, stated, s.dtype, device.vendor, capability,
                                                  device.name)
    return served


def _served_in_float32(model: ModelShape, s: EngineSettings, device: Device, rv: ResolvedVersion,
                       served: model_dtype.ServedDtype, notes: list[str]) -> EngineSettings:
    """``s`` with ``--dtype float32`` where ``--dtype auto`` serves a 16- or 32-bit checkpoint in float32 (a model type
    vLLM refuses float16 for, on a GPU below compute capability 8.0, from 0.9.1): four bytes a weight, an activation
    and a KV cache element. A quantised checkpoint (or ``--quantization``) of a method that takes float32 activations
    (:data:`_FLOAT32_QUANT`: bitsandbytes, GGUF) starts so too, its quantised weights as they are and its activations
    and KV cache at four bytes (mend30); one of another method is left as it is (AWQ and GPTQ are refused there,
    :func:`_quantised_float32`)."""
    if served.dtype != "float32" or (s.dtype or "auto").lower() != "auto":
        return s
    method = (s.quantization or model.quantization or "").lower()
    quantised = bool(s.quantization) or model.precision not in ("bf16", "fp16", "fp32")
    if quantised and method not in _FLOAT32_QUANT:
        return s
    notes.append(f"{FLOAT32_BY_AUTO}{rv.version} leaves it no dtype but float32 on {device.name}, where bfloat16 "
                 f"needs compute capability 8.0 and vLLM refuses float16 for model type '{served.model_type}'"
                 + (f", and its {_FLOAT32_QUANT[method]} checkpoint takes float32 activations: its activations "
                    "and KV cache are sized at 4 bytes an element (its unquantised layers, the embeddings among "
                    "them, are float32 too and still sized at 16 bits: a lower bound)" if quantised else ""))
    return replace(s, dtype="float32")


#: Quantisation methods whose ``get_supported_act_dtypes`` lists float32 (mend30; read in the vLLM 0.9.1 wheel,
#: ``model_executor/layers/quantization/bitsandbytes.py``: ``[torch.float32, torch.float16, torch.bfloat16]``, minimum
#: capability 70; ``gguf.py``: ``[torch.half, torch.bfloat16, torch.float32]``, minimum capability 60): where --dtype
#: auto leaves a model type float32 (Gemma 2 and 3 below compute capability 8.0, from 0.9.1), such a checkpoint
#: starts in float32, its activations and KV cache four bytes an element (review44 left them sized at 16 bits).
_FLOAT32_QUANT: dict[str, str] = {"bitsandbytes": "bitsandbytes", "gguf": "GGUF"}


#: The start of the note :func:`_served_in_float32` leaves (SW101 gives it where the weights are sized in fp32).
FLOAT32_BY_AUTO = "--dtype auto: vLLM "

#: The prefix of the note :func:`_dtype_by_release` leaves where the model dtype's refusal or its float32 sizing holds
#: on the release assumed but not on every release (SW102 reports a refusal's; SW101 makes its float32 sizing advisory)
DTYPE_ASSUMED = "cannot decide: dtype: "


def _dtype_unread(model: ModelShape, s: EngineSettings, served: model_dtype.ServedDtype, notes: list[str]) -> bool:
    """Whether the GPU worker's bfloat16 refusal of ``--dtype auto`` (before vLLM 0.9.0, below compute capability 8.0)
    rests on a config.json dtype not read (review44): a quantised re-upload resolved by its name to a catalog model
    (``...-AWQ``, ``...-GPTQ-Int4``) carries the base's ``torch_dtype``, but AWQ and GPTQ checkpoints are mostly
    saved in float16 (AutoAWQ's and AutoGPTQ's default; Qwen/Qwen2.5-7B-Instruct-AWQ's config.json says float16),
    which --dtype auto keeps and a T4 takes. Then a note says so, and the refusal is not sure."""
    auto = (s.dtype or "auto").lower() == "auto"
    variant = bool(model.extra.get("resolved_from")) and model.precision not in ("bf16", "fp16", "fp32")
    if not (served.refusal and served.by_worker and auto and variant):
        return False
    notes.append(f"{DTYPE_ASSUMED}{served.refusal}: refused at start-up where {model.id}'s config.json says "
                 f"bfloat16, started in float16 where it says float16 (as most AWQ and GPTQ checkpoints do), and "
                 f"shardwise read the dtype of {model.extra.get('resolved_from')} only; give the path of its "
                 "config.json, or set --dtype half")
    return True


#: Quantisation methods whose ``get_supported_act_dtypes`` lists no float32, and what vLLM prints of that list by
#: release: ``[torch.half]`` (``model_executor/layers/quantization/awq.py`` and ``gptq.py``, read in the 0.9.1,
#: 0.10.2, 0.13.0 and 0.14.1 wheels), ``[torch.half, torch.bfloat16]`` at 0.29.0 (``AutoAWQConfig`` and
#: ``AutoGPTQConfig``, ``auto_awq.py`` and ``auto_gptq.py``: no float32 either; review48); between them not read. The
#: Marlin kernels that take AWQ and GPTQ checkpoints over need compute capability 8.0, so below it the checkpoint keeps
#: these methods.
_HALF_ONLY_QUANT: dict[str, tuple[tuple[str, str], ...]] = {
    method: (("0.14.1", "[torch.float16]"), ("0.29.0", "[torch.float16, torch.bfloat16]"))
    for method in ("awq", "gptq")}


def _release(tag: str) -> Version:
    v = parse_version(tag)
    assert v is not None
    return v


def _half_only_text(method: str, version: Version) -> str:
    """vLLM ``version``'s words for its refusal of float32 activations under ``method``: with the supported list where a
    release read prints it (up to 0.14.1, and at 0.29.0), without it at the others."""
    upto, later = _HALF_ONLY_QUANT[method]
    listed = upto[1] if version <= _release(upto[0]) else later[1] if version == _release(later[0]) else ""
    said = f"torch.float32 is not supported for quantization method {method}."
    return f"\"{said} Supported dtypes: {listed}\"" if listed else f"\"{said}\", AWQ and GPTQ taking no float32"


def _quantised_float32(model: ModelShape, s: EngineSettings, device: Device, rv: ResolvedVersion,
                       served: model_dtype.ServedDtype, notes: list[str]) -> str:
    """vLLM's refusal of an AWQ or GPTQ checkpoint that ``--dtype auto`` serves in float32 (review44): from 0.9.1 a
    model type vLLM refuses float16 for (Gemma 2, Gemma 3) is left float32 below compute capability 8.0 whatever its
    config.json says, and ``VllmConfig._get_quantization_config`` then raises "torch.float32 is not supported for
    quantization method awq. Supported dtypes: [torch.float16]" (``config.py`` 0.9.1, ``config/vllm.py`` 0.13.0):
    float16 is refused for the type and bfloat16 by the GPU, so no dtype starts it there. "" where that is not so;
    where the release is only assumed and an earlier one serves it in 16 bits, "" and a note that says so."""
    method = (model.quantization or "").lower()  # the checkpoint's (a --quantization it lacks fails before: SW003)
    if served.dtype != "float32" or (s.dtype or "auto").lower() != "auto" or method not in _HALF_ONLY_QUANT \
            or (s.quantization or method).lower() != method:
        return ""
    refusal = (f"--dtype auto: vLLM {rv.version} leaves {model.id} no dtype but float32 on {device.name}, where "
               f"bfloat16 needs compute capability 8.0 and vLLM refuses float16 for model type '{served.model_type}', "
               f"and it refuses float32 for this {method.upper()} checkpoint ({_half_only_text(method, rv.version)}): "
               "no --dtype starts it on this GPU; serve it on a GPU of compute capability 8.0 or more")
    if rv.source != "assumed":
        return refusal
    stated = "" if model.extra.get("torch_dtype_assumed") else model.torch_dtype
    rows = possible_rows(rv)
    holds = [str(row.version) for row in rows if model_dtype.served_dtype(
        row, served.model_type, stated, "auto", device.vendor, device.capability(), device.name).dtype == "float32"]
    if len(holds) == len(rows):
        return refusal
    notes.append(f"{DTYPE_ASSUMED}{refusal}: refused at start-up from vLLM {holds[0] if holds else '?'} on, served "
                 f"in 16 bits or refused otherwise by earlier releases, and vLLM {rv.version} is only assumed; pin the "
                 "image to a release")
    return ""


#: The prefix of the note :func:`quantization_capability_refusal` leaves where vLLM's capability check of the
#: quantisation method is not decided: the release assumed or not read, or the method read from the checkpoint's name
#: only (SW102 reports it).
QUANT_CAPABILITY_UNSURE = "cannot decide: quantization: "

#: ``--quantization`` methods that quantise a checkpoint without a ``quantization_config`` at load: on such a checkpoint
#: the capability check is the first to judge them; any other method fails reading the config it lacks first (SW003).
_LOAD_TIME_METHODS: Final = frozenset({"fp8", "experts_int8", "bitsandbytes", "rtn"})


#: The methods of an FP8 checkpoint (its quantization_config's quant_method) whose name says only "FP8".
_FP8_CHECKPOINT_METHODS: Final = frozenset({"fp8", "modelopt", "fbgemm_fp8", "compressed-tensors"})


def served_quantization(model: ModelShape, s: EngineSettings) -> tuple[str, str]:
    """The method vLLM's quantisation capability check runs on (:mod:`..vllm.quant_capability`), and what names it:
    ``--quantization``, else the checkpoint's ``quantization_config`` (``modelopt`` by its algorithm: vLLM's
    ``ModelOptNvFp4Config`` takes the NVFP4 ones over). ("", "") where there is none, or where another refusal comes
    first: a ``--quantization`` other than the checkpoint's own, or one that reads a config the checkpoint lacks."""
    flag = (s.quantization or "").lower()
    own = (model.quantization or "").lower()
    if own == "modelopt":
        own = {"nvfp4": "modelopt_fp4", "fp8": "modelopt"}.get(model.precision, "")
        if not own:
            return "", ""
    if flag:
        if own == "fp8" and model.extra.get("quantization_config_assumed") and flag in _FP8_CHECKPOINT_METHODS:
            # "fp8" read from the name only: the flag names the FP8 format (a ModelOpt upload's modelopt); a
            # checkpoint in another one is refused for the mismatch, so the flag's method is the one to check
            return flag, f"--quantization {s.quantization}"
        if (own and flag != own) or (not own and flag not in _LOAD_TIME_METHODS):
            return "", ""
        return flag, f"--quantization {s.quantization}"
    if own:
        return own, f"{model.id}'s quantization_config ({own})"
    return "", ""


def quantization_capability_refusal(model: ModelShape, s: EngineSettings, device: Device, rv: ResolvedVersion,
                                    notes: list[str]) -> str:
    """vLLM's refusal of a quantisation method below its minimum compute capability (quantcap1;
    ``VllmConfig._get_quantization_config``: "The quantization method fp8 is not supported for the current GPU.
    Minimum capability: 80. Current capability: 75.", :mod:`..vllm.quant_capability`), or "". Sure only where the
    release is known and the releases read around it agree, and the method is the checkpoint's own config's or the
    flag's; otherwise "" and a note (:data:`QUANT_CAPABILITY_UNSURE`) that says what would decide it."""
    own = (model.quantization or "").lower()
    if (s.quantization or "") in flags.LOAD_TIME_ON_INT4 and own in flags.INT4_CHECKPOINT_METHODS \
            and model.extra.get("quantization_config_assumed"):
        # read48: a checkpoint known exactly SW003 judges (flags.checkpoint_quantization_refused); one whose method
        # is read from its name only may be stored otherwise (a -AWQ re-upload in compressed-tensors)
        notes.append(f"{QUANT_CAPABILITY_UNSURE}--quantization {s.quantization} on {model.id}, whose method "
                     f"shardwise read from its name only ({own}): if its quantization_config says {own}, no override "
                     f"method takes the flag and vLLM refuses to start "
                     f"({flags.quantization_mismatch_message(own, str(s.quantization))}, "
                     "ModelConfig._verify_quantization); drop --quantization, or give the path of its config.json")
        return ""
    method, named = served_quantization(model, s)
    cc = device.capability()
    if not method:
        return ""
    # a compressed-tensors checkpoint of FP8 weights: the scheme's minimum (W8A16Fp8 where 8.9 is missing) is above
    # the config's 7.0, and is what refuses it
    key = quant_capability.SCHEME_FP8 if method == "compressed-tensors" and model.precision == "fp8" else method
    if cc is None:
        _capability_not_named(key, named, device, rv, notes)
        return ""
    where = f"{named} on {device.name}, compute capability {cc[0]}.{cc[1]}"
    release = str(rv.version)  # the release a finding names
    line_check = _line_refusal(key, cc, rv) if rv.source == "assumed" and rv.line is not None else None
    if line_check is not None and rv.line is not None:  # mend37: a floating tag whose every patch refuses it
        release = f"{rv.line[0]}.{rv.line[1]} (every patch of the line AWS's floating tag holds)"
    elif rv.source == "assumed":
        refusing, taking = quant_capability.releases_refusing(key, cc)
        if not refusing:
            return ""
        took = (f", and takes it in {taking[0]}" if len(taking) == 1 else
                f", and takes it in the releases read {quant_capability.span(taking)}" if taking else "")
        notes.append(f"{QUANT_CAPABILITY_UNSURE}vLLM refuses {where} at start-up in the releases read "
                     f"{quant_capability.span(refusing)}{took}; vLLM {rv.version} is only assumed; pin the image to a "
                     "release")
        return ""
    c = line_check or quant_capability.check(key, cc, rv.version)
    name_only = bool(model.extra.get("quantization_config_assumed")) and not s.quantization
    if model.extra.get("quantization_config_assumed") and (s.quantization or "fp8") == "fp8" and method == "fp8" \
            and model.id.lower().startswith("nvidia/") and (c is None or not c.refused):
        # read49: NVIDIA's -FP8 uploads are ModelOpt checkpoints (hf_quant_config.json, quant_method modelopt), which
        # ModelOpt's override serves as modelopt whatever --quantization says; known by the name only, the format is
        # not sure, and as modelopt it may be refused where fp8 is taken (an A10G: 8.9 to 0.14.1)
        mo = quant_capability.check("modelopt", cc, rv.version)
        if mo is not None and (mo.refused or not mo.sure):
            notes.append(f"{QUANT_CAPABILITY_UNSURE}shardwise read {model.id}'s method from its name only: NVIDIA's "
                         f"-FP8 checkpoints are ModelOpt ones (hf_quant_config.json), which vLLM serves as modelopt "
                         f"whatever --quantization says, and vLLM {rv.version}'s ModelOpt FP8 config requires compute "
                         f"capability {quant_capability.capability_text(mo.minimum)}, where {device.name} has "
                         f"{cc[0]}.{cc[1]}{'' if mo.sure else ' (' + mo.why + ')'}; give the path of its config.json "
                         "and hf_quant_config.json")
            return ""
    if name_only and method == "fp8" and (c is None or not c.refused):
        # an FP8 upload known by its name may be compressed-tensors (RedHat's, Neural Magic's -FP8-dynamic), whose
        # weight-only FP8 scheme needs 8.0 where Fp8Config takes 7.5 (0.14.1 to 0.28). The name is not read as any
        # other format (mend36): "-FP8" is also Meta's fbgemm_fp8 (8.0), NVIDIA's ModelOpt (8.9 to 0.14.1) and Qwen's
        # and DeepSeek's block-wise fp8; a checkpoint whose format decides is a catalog entry with its own
        # quantization_config, or is given by the path of its config.json
        ct = quant_capability.check(quant_capability.SCHEME_FP8, cc, rv.version)
        if ct is not None:
            notes.append(f"{QUANT_CAPABILITY_UNSURE}shardwise read {model.id}'s method from its name only: as an fp8 "
                         f"checkpoint vLLM {rv.version} {'may refuse' if c is not None else 'takes'} it on "
                         f"{device.name}, compute capability {cc[0]}.{cc[1]}, but as a compressed-tensors one its "
                         f"weight-only FP8 scheme (W8A16Fp8) requires {quant_capability.capability_text(ct.minimum)}"
                         f"{'' if ct.sure else ' (' + ct.why + ')'}, and vLLM raises \"Quantization scheme is not "
                         "supported for the current GPU\" as it builds the layers; give the path of its config.json")
            return ""
    if c is None:
        return ""
    if not c.sure:
        notes.append(f"{QUANT_CAPABILITY_UNSURE}vLLM may refuse {where} at start-up: {c.why}; pin the image to a "
                     "release shardwise read, or check its quantization/ config's get_min_capability()")
        return ""
    said = (quant_capability.message(method, c.minimum, cc) if key == method else
            f"its FP8 layers run compressed-tensors' weight-only W8A16Fp8 scheme, and as they are built vLLM raises "
            f"RuntimeError \"Quantization scheme is not supported for the current GPU. Min capability: {c.minimum}. "
            f"Current capability: {cc[0] * 10 + cc[1]}.\"")
    if name_only:
        notes.append(f"{QUANT_CAPABILITY_UNSURE}vLLM {release} refuses {where} at start-up ({said}), but "
                     f"shardwise read the method from {model.id}'s name only; give the path of its config.json")
        return ""
    later = quant_capability.first_taking_after(key, cc, rv.version)
    fix = f"serve it on a GPU of compute capability {quant_capability.capability_text(c.minimum)} or more"
    if later:
        fix += f", or on vLLM {later} or later, which takes it on this GPU"
    what = f"the {method} method" if key == method else "its FP8 layers"
    return (f"{named}: vLLM {release} refuses {what} on {device.name}, compute capability {cc[0]}.{cc[1]} "
            f"({said}); {fix}")


def _line_refusal(key: str, cc: tuple[int, int], rv: ResolvedVersion) -> quant_capability.CapabilityCheck | None:
    """vLLM's sure refusal of ``key`` on a GPU of ``cc`` at every patch of the line an AWS floating tag holds
    (:attr:`..vllm.versions.ResolvedVersion.line`, :func:`..vllm.versions.floating_line`), else None: its first patch
    and the newest one shardwise read (``rv.version``, the one a pull today gets) are both refused for sure
    (:func:`..vllm.quant_capability.check`), and a method's minimum capability only came down from release to release
    (:data:`..vllm.quant_capability.MIN_CAPABILITY`), so every patch between them refuses it too. The check returned
    is the newest patch's."""
    if rv.line is None:
        return None
    first = quant_capability.check(key, cc, Version((rv.line[0], rv.line[1], 0)))
    newest = quant_capability.check(key, cc, rv.version)
    if first is None or newest is None or not (first.refused and first.sure and newest.refused and newest.sure):
        return None
    return newest


#: The least compute capability vLLM's CUDA build runs on ("GPU: compute capability 7.0 or higher (e.g., V100, T4,
#: RTX20xx, A100, L4, H100, etc.)", docs.vllm.ai getting_started/installation/gpu, v0.14.0 and every release before):
#: an NVIDIA GPU whose capability the inputs do not say may be any at or above it.
CUDA_LEAST_CAPABILITY: Final = (7, 0)


def _capability_not_named(key: str, named: str, device: Device, rv: ResolvedVersion, notes: list[str]) -> None:
    """Where ``device`` is an NVIDIA GPU the inputs name by its memory only (``nvidia.com/gpu.memory``, a custom GPU of
    ``plan --gpu-memory``), so its compute capability is not known: a note (:data:`QUANT_CAPABILITY_UNSURE`) where
    vLLM's check of the method refuses some GPU vLLM runs on (review48: ``--quantization fp8`` at 0.11.0 on a GPU
    labelled 15 GiB, a T4 by its memory, passed in silence). Nothing where the least capability vLLM's CUDA build takes
    (:data:`CUDA_LEAST_CAPABILITY`) passes the check, nor for another vendor (its capability is not read here)."""
    if device.vendor != "nvidia":
        return
    c = quant_capability.check(key, CUDA_LEAST_CAPABILITY, rv.version)
    if c is None:
        return
    notes.append(f"{QUANT_CAPABILITY_UNSURE}vLLM {rv.version} {'requires' if c.sure else 'may require'} compute "
                 f"capability {quant_capability.capability_text(c.minimum)} for {named}"
                 f"{'' if c.sure else ' (' + c.why + ')'} and refuses it below at start-up, but the inputs name "
                 "the GPU by its memory only, not its compute capability; name the GPU (nvidia.com/gpu.product, an "
                 "instance type)")


def variant_refusal(model: ModelShape, device: Device, settings: EngineSettings, version: ResolvedVersion,
                    methods: tuple[str, ...]) -> str:
    """Why vLLM refuses a checkpoint of ``model`` quantised with each of ``methods`` on ``device`` (the first's
    words), or "" where one of them passes these checks: a lower-precision variant a rule suggests (SW106, SW202:
    "a 4-bit AWQ/GPTQ variant", review44) must be one vLLM starts. The checks are the quantisation config's: the
    method's minimum compute capability (:func:`quantization_capability_refusal`; AWQ needs 7.5, GPTQ 6.0) and its
    activation dtypes (:func:`_quantised_float32`: AWQ and GPTQ take float16 only, and from 0.9.1 vLLM leaves Gemma 2
    and Gemma 3 float32 on a T4). Judged at the release sized for, assumed or not, as the variant's memory is."""
    rv = ResolvedVersion(version.version, "given") if version.source == "assumed" else version
    loaded = as_loaded(model, rv.behaviour)
    s = replace(settings, quantization=None)
    first = ""
    for q in methods:
        shaped = replace(loaded, quantization=q)
        why = quantization_capability_refusal(shaped, s, device, rv, []) or _quantised_float32(
            shaped, s, device, rv, _served_dtype(shaped, s, device, rv), [])
        if not why:
            return ""
        first = first or why
    return first


def float32_assumed(s: ReplicaSizing) -> str:
    """Why ``s``'s float32 sizing is not sure (:func:`_dtype_by_release`'s note, less its prefix): --dtype auto
    serves the model in float32 on the release assumed and in 16 bits on others (review44: a KV cache or a declared
    load refused only at four bytes an element blocked there); "" where the sizing's dtype does not hang on it."""
    return next((n.removeprefix(DTYPE_ASSUMED) for n in s.notes
                 if n.startswith(DTYPE_ASSUMED) and "refused at start-up" not in n), "")


def _dtype_by_release(model: ModelShape, s: EngineSettings, device: Device, rv: ResolvedVersion,
                      served: model_dtype.ServedDtype, notes: list[str]) -> bool:
    """Whether the model dtype's refusal or its float32 sizing (``served``, by release ``rv``) is not sure because the
    release is only assumed (an image tag that names none, mend26) and another release decides otherwise: --dtype half
    for gemma2 is refused from 0.9.1 and started before; --dtype auto on a T4 serves Gemma 3 in float32 from 0.9.1,
    float16 in 0.9.0 (:mod:`..vllm.model_dtype`). Then a note says which releases refuse it or serve it in float32.
    A refusal every release makes (bfloat16 below compute capability 8.0 asked for by --dtype) stays sure."""
    float32 = served.dtype == "float32" and any(n.startswith(FLOAT32_BY_AUTO) for n in notes)
    if rv.source != "assumed" or not (served.refusal or float32):
        return False
    model_type = served.model_type
    stated = "" if model.extra.get("torch_dtype_assumed") else model.torch_dtype
    given = "auto" if float32 else s.dtype
    holds: list[str] = []
    rows = possible_rows(rv)
    for row in rows:
        other = model_dtype.served_dtype(row, model_type, stated, given, device.vendor, device.capability(),
                                         device.name)
        if (other.dtype == "float32") if float32 else bool(other.refusal):
            holds.append(str(row.version))
    if len(holds) == len(rows):
        return False
    which = (f"from vLLM {holds[0]} on" if holds == [str(r.version) for r in rows[len(rows) - len(holds):]] else
             "in the release ranges from vLLM " + ", ".join(holds))
    if float32:
        notes.append(f"{DTYPE_ASSUMED}--dtype auto serves {model.id} in float32 on {device.name} {which}, and in 16 "
                     f"bits or not at all on other releases, and vLLM {rv.version} is only assumed; pin the image to a "
                     "release, or set --dtype")
    else:
        notes.append(f"{DTYPE_ASSUMED}{served.refusal}: refused at start-up {which}, started by other releases, and "
                     f"vLLM {rv.version} is only assumed; pin the image to a release or change --dtype")
    return True


def kv_dtype_refusal(model: ModelShape, s: EngineSettings, device: Device, ck: _Checkpoint,
                     rv: ResolvedVersion) -> str:
    """vLLM's refusal of a packed ``--kv-cache-dtype`` no attention backend takes on this GPU and model
    (:func:`shardwise.rules.vllm.kv_dtypes.refusal`: FlashInfer's NVFP4 by compute capability, ROCm's UltraQuant
    and Octave, FlashMLA's sparse ``nvfp4_ds_mla``), or ""."""
    if not ck.kv_dtype:
        return ""
    gated = ("nvfp4_ds_mla", "ultraquant_4bit", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact")
    if ck.kv_dtype in gated and ck.kv_dtype not in rv.behaviour.packed_kv_dtypes:
        return (f"vLLM {rv.version} does not take --kv-cache-dtype {ck.kv_dtype} (config/cache.py CacheDType; from "
                f"{first_release_taking(ck.kv_dtype)}): vLLM's argument parser exits")
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    # the model's dtype: --dtype, else config.json's (vLLM's ``auto``; a float32 checkpoint runs in bf16 on CUDA)
    given = s.dtype.lower()
    stated = str(model.hf_config.get("torch_dtype") or model.hf_config.get("dtype") or "").lower()
    bf16 = given in ("bfloat16", "bf16") or (given == "auto" and stated not in ("float16", "fp16", "half"))
    return kv_dtypes.refusal(ck.kv_dtype, device.vendor, device.architecture, device.name, head=model.head_dim,
                             rope=kv_layout.rotary_dim(model, model.head_dim), mla=model.mla is not None,
                             sparse_mla=kv_layout.indexer_bytes(model) > 0, bf16=bf16, sinks=model_type == "gpt_oss",
                             capability=device.capability())


class _Length(NamedTuple):
    """The context limit and the request length vLLM checks the KV cache against."""

    model_limit: int  # what vLLM derives from config.json
    max_model_len: int  # as given, else the model's limit (``auto``: before vLLM fits it to the cache)
    auto: bool  # --max-model-len auto
    refusal: str  # a configuration vLLM rejects ("" when none)
    certain: bool


def _max_model_len(model: ModelShape, s: EngineSettings, rv: ResolvedVersion, notes: list[str]) -> _Length:
    """The model configuration's ``max_model_len``: vLLM derives the limit from config.json (the RoPE
    scaling included) and rejects a longer ``--max-model-len`` unless ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``;
    ``auto`` exists from 0.14 and is settled once the KV cache is sized (:func:`_kv_cache`)."""
    b = rv.behaviour
    model_limit = derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters,
                                        b.rope_scaling_override != "ignored",
                                        b.rope_scaling_override != "image" and top_override_readings(model, b)[0])
    refusal, certain = "", False
    auto = s.max_model_len == "auto"
    if auto and not b.max_model_len_auto:
        refusal, certain = f"vLLM {rv.version} has no --max-model-len auto (added in 0.14)", True
    mml = model_limit if (s.max_model_len is None or auto) else int(s.max_model_len)
    if s.max_model_len is None and b.longrope_default_original:
        mml = longrope_default_len(model, b) or mml
    limits = possible_limits(model, rv)
    if not auto and s.max_model_len is not None and mml > limits[-1] and not s.allow_long_max_model_len:
        refusal, certain = (
            f"max_model_len {mml:,} is above the {model_limit:,} tokens {model.id} allows "
            f"(vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1){_unread_scaling(model, rv, model_limit)}", True)
    elif len(limits) > 1 and not s.allow_long_max_model_len and (
            s.max_model_len is None or auto or mml > limits[0]) and not refusal:
        notes.append(length_by_release_note(model, rv, limits))
    return _tuple_new(_Length, (model_limit, mml, auto, refusal, certain))


def longrope_default_len(model: ModelShape, b: Behaviour) -> int | None:
    """The length vLLM runs a LongRoPE model at when ``--max-model-len`` is not given (``longrope_default_original``,
    0.12.0 on): config.json's top-level ``original_max_position_embeddings`` (of the text config, as vLLM's
    ``hf_text_config``) where a RoPE parameter set's type is ``longrope`` or ``su`` (``patch_rope_parameters`` renames
    ``su``); None where the model is not LongRoPE or names no such length (vLLM then keeps the limit)."""
    cfg = overridden_rope_config(model, b.reads_rope_parameters, b.rope_scaling_override != "ignored")
    for rope in rope_parameter_sets(cfg, b.reads_rope_parameters):
        if str(rope.get("rope_type") or rope.get("type") or "") in ("longrope", "su"):
            original = model.hf_config.get("original_max_position_embeddings")
            if isinstance(original, (int, float)) and not isinstance(original, bool) and original > 0:
                return int(original)
            return None
    return None


def possible_limits(model: ModelShape, rv: ResolvedVersion) -> tuple[int, ...]:
    """The context limits vLLM may derive for ``model`` (:func:`.weights.derived_limits`), sorted: one where the
    release decides it; for an ``--hf-overrides`` RoPE dict (``catalog.hfconfig.OVERRIDE_ROPE_KEY``) on 0.20 - 0.23
    (transformers 4 or 5, by the image) both, and where the release is not known (assumed) every release's."""
    b = rv.behaviour
    if not model.extra or ("hf_override_rope" not in model.extra and "hf_override_top" not in model.extra):
        return (derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters),)
    return derived_limits(model, possible_rows(rv))


def _unread_scaling(model: ModelShape, rv: ResolvedVersion, limit: int) -> str:
    """Words for a refusal where the release sets an ``--hf-overrides`` ``rope_scaling`` dict after it has read the
    RoPE parameters (``Behaviour.rope_scaling_override`` ``ignored``) and that override would have changed the limit,
    else ""."""
    b = rv.behaviour
    if b.rope_scaling_override != "ignored" or not model.extra or "hf_override_rope" not in model.extra:
        return ""
    read = derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters, True,
                                 top_override_readings(model, b)[0])
    if read == limit:
        return ""
    return (f": vLLM {rv.version} (transformers 4) sets the rope_scaling of --hf-overrides after patch_rope_parameters "
            f"has read the checkpoint's, so the override's {read:,} tokens do not count; write it as "
            "rope_parameters, or set max_position_embeddings with it")


#: How :func:`length_by_release_note` begins: a sizing whose notes hold it has a max_model_len that depends on what
#: runs, so its KV verdict is one of several (SW102 leaves it undecided; :func:`.group.refused_whatever_tp` too).
LENGTH_BY_RELEASE = "cannot decide: max_model_len: "


def length_by_release_note(model: ModelShape, rv: ResolvedVersion, limits: tuple[int, ...]) -> str:
    """The "cannot decide" note of a length that depends on what runs (:func:`possible_limits`)."""
    shown = " or ".join(f"{n:,}" for n in limits)
    if model.extra and "hf_override_top" in model.extra and (
            rv.source == "assumed" or len(top_override_readings(model, rv.behaviour)) > 1):
        top = model.extra["hf_override_top"]
        keys = ", ".join(top.get("keys") or ()) if isinstance(top, dict) else "a length key"
        why = (f"{model.id} nests its text config, and vLLM derives the length from it: --hf-overrides sets {keys} "
               "at the top level, which transformers 4's "
               "Qwen2-VL / Qwen2.5-VL config passes on to the text config and transformers 5 does not (vLLM 0.24 on "
               f"runs 5), so the limit depends on the transformers the image runs: {shown} tokens; write the "
               "override under text_config")
        return f"{LENGTH_BY_RELEASE}{why}"
    if rv.source == "assumed":
        why = (f"the limit {model.id} takes under its --hf-overrides RoPE dict depends on the release, which is not "
               f"known: {shown} tokens by release (0.12 - 0.19 set a rope_scaling override after they have read the "
               "RoPE parameters, 0.30 on leave a YaRN limit unscaled); pin the image to a release")
    else:
        why = (f"vLLM {rv.version} takes transformers 4 or 5 (its requirements allow both) and the limit {model.id} "
               f"takes under its --hf-overrides rope_scaling depends on it: {shown} tokens (under transformers 4 "
               "patch_rope_parameters has read the checkpoint's RoPE parameters before the override is set); write "
               "the override as rope_parameters or set max_position_embeddings with it")
    return f"{LENGTH_BY_RELEASE}{why}"


class _Batch(NamedTuple):
    """The scheduler's limits: sequences and tokens per step."""

    seqs: int  # max_num_seqs
    batched: int  # max_num_batched_tokens
    refusal: str  # the scheduler configuration vLLM rejects ("" when none)
    chunked: bool = True  # V0: chunked prefill on (V1 always chunks generative models' prefills)


#: Gemma 4's largest video item: 32 frames (``_VIDEO_MAX_FRAMES``) of 70 soft tokens, their begin and end tokens and
#: about 6 timestamp tokens each (``Gemma4ProcessingInfo.get_mm_max_tokens_per_item``,
#: ``vllm/model_executor/models/gemma4_mm.py``, 0.22.0 and 0.25.1): 2,496 tokens.
GEMMA4_VIDEO_ITEM_TOKENS = 32 * (70 + 2 + 6)


def _prefix_lm_items(model: ModelShape) -> tuple[tuple[str, int], ...]:
    """(modality, tokens) of a prefix-LM model's largest items, or none. Modelled for Gemma 4 with a vision tower
    and ``use_bidirectional_attention`` ``vision`` (the 26B-A4B and 31B;
    ``Gemma4ModelArchConfigConvertor.is_mm_prefix_lm``): a video (:data:`GEMMA4_VIDEO_ITEM_TOKENS`) and an image
    (the vision tower's ``default_output_length``, 280). The other prefix-LM models vLLM lists (Gemma 3,
    PaliGemma, ...) have items below every default budget."""
    cfg = model.hf_config
    vision = cfg.get("vision_config")
    model_type = str(cfg.get("model_type") or model.extra.get("model_type") or "")
    if (not isinstance(vision, dict) or not model_type.startswith("gemma4")
            or cfg.get("use_bidirectional_attention") != "vision"):
        return ()
    image = vision.get("default_output_length", 280)
    return (("video", GEMMA4_VIDEO_ITEM_TOKENS), ("image", image if isinstance(image, int) else 280))


def mm_prefix_lm_tokens(model: ModelShape) -> int:
    """The largest multimodal item of a prefix-LM model (:func:`_prefix_lm_items`), which vLLM's default
    ``max_num_batched_tokens`` must hold from 0.22 (``Behaviour.mm_prefix_lm_batched``), or 0."""
    return max((tokens for _, tokens in _prefix_lm_items(model)), default=0)


def mm_prefix_lm_item(model: ModelShape, limits: tuple[tuple[str, int], ...] = ()) -> int:
    """The largest item vLLM's encoder budget counts for a prefix-LM model (:func:`_prefix_lm_items`), or 0:
    ``MultiModalBudget`` takes only the modalities ``--limit-mm-per-prompt`` leaves above 0
    (``vllm/multimodal/encoder_budget.py``, 0.21.0), so ``video=0`` leaves Gemma 4's image (280 tokens)."""
    limit = dict(limits)
    return max((tokens for modality, tokens in _prefix_lm_items(model) if limit.get(modality, 1) > 0), default=0)


def _scheduler_limits(model: ModelShape, s: EngineSettings, b: Behaviour, engine: str, device: Device, mml: int,
                      first: kv_layout.Layout) -> _Batch:
    """The scheduler configuration: ``max_num_seqs`` and ``max_num_batched_tokens`` as given, else the
    release's defaults. V1 takes them by usage context (``vllm serve`` or the LLM class) and GPU memory;
    where the release does, it widens the token budget to one max_model_len prompt when chunked prefill is
    off, raises it to a prefix-LM model's largest multimodal item (:func:`mm_prefix_lm_tokens`), caps it at
    ``max_num_seqs × max_model_len`` and clamps ``max_num_seqs`` to it; it rejects fewer
    tokens than sequences. V0 chunks prefills by default only above 32,768 tokens of context on NVIDIA GPUs
    (no sliding window, not multimodal), else takes one max_model_len prompt (at least 2048 tokens) per
    step; multimodal models at least 5120."""
    multimodal = isinstance(model.hf_config.get("vision_config"), dict)
    refusal = ""
    if engine == "v1":
        tier = batch_defaults(b, device.memory_gib, device.name)
        seqs = s.max_num_seqs or (tier.llm_max_num_seqs if s.offline else tier.max_num_seqs)
        batched = s.max_num_batched_tokens or (tier.llm_max_num_batched_tokens if s.offline
                                               else tier.max_num_batched_tokens)
        if s.max_num_batched_tokens is None:
            if b.chunked_prefill_optional and s.enable_chunked_prefill is False:
                batched = max(mml, batched)  # one prompt of max_model_len in one step
            if b.mm_prefix_lm_batched:
                batched = max(batched, mm_prefix_lm_tokens(model))  # one whole multimodal item in one step
            if b.batched_capped_by_seqs:
                batched = min(seqs * mml, batched)
        if s.max_num_seqs is None and b.max_num_seqs_clamped:
            seqs = min(seqs, batched)
        if seqs > batched:
            refusal = (f"max_num_batched_tokens ({batched}) must be greater than or equal to "
                       f"max_num_seqs ({seqs}) (vLLM's scheduler configuration)")
        # CUDA forces chunked multimodal input off for a prefix-LM model (CudaPlatform.check_and_update_config), and
        # the encoder budget then rejects an item larger than the token budget (compute_mm_encoder_budget): the
        # default budget of 0.20 - 0.21 on a 2,048-token GPU, or any release's explicit budget below the item
        item = mm_prefix_lm_item(model, s.mm_limits) if b.mm_prefix_lm_chunk_off and device.vendor == "nvidia" else 0
        if not refusal and item > batched:
            refusal = (f"Chunked MM input disabled but max_tokens_per_mm_item ({item}) is larger than "
                       f"max_num_batched_tokens ({batched}) (vLLM forces chunked multimodal input off for a "
                       "prefix-LM model; set --max-num-batched-tokens to at least the item)")
    else:
        seqs = s.max_num_seqs or b.default_max_num_seqs_v0
        chunked = s.enable_chunked_prefill
        if chunked is None:
            sliding = any(t.kind == "sliding" for t in first.types)
            chunked = mml > 32768 and device.vendor == "nvidia" and not sliding and not multimodal
        batched = s.max_num_batched_tokens or (b.v0_chunked_tokens if chunked else max(mml, 2048))
        if multimodal and not s.max_num_batched_tokens:
            batched = max(batched, 5120)
    return _tuple_new(_Batch, (seqs, batched, refusal, engine == "v1" or bool(chunked)))


def _block_size(model: ModelShape, s: EngineSettings, rv: ResolvedVersion, engine: str, device: Device,
                first: kv_layout.Layout) -> int:
    """The cache configuration's block size: ``--block-size``, else the release's default (16; 64 from 0.34,
    ``Behaviour.default_block_size``); V1 picks MLA models' block size by attention backend
    (:func:`shardwise.rules.vllm.kv_layout.mla_block_size`)."""
    if first.mla and engine == "v1":
        return kv_layout.mla_block_size(model, device.capability(), device.vendor,
                                        rv.version.parts, s.block_size)
    if not s.block_size and kv_dtypes.packed(s.kv_cache_dtype) in kv_dtypes.OWN_BLOCK:
        # the backend pins its block whatever the default (ultraquant_attn.py get_preferred_block_size: 64)
        return kv_dtypes.OWN_BLOCK[kv_dtypes.packed(s.kv_cache_dtype)]
    return s.block_size or rv.behaviour.default_block_size


def _requested_memory(device: Device, s: EngineSettings, b: Behaviour, measured: bool = False) -> tuple[float, float]:
    """(gpu_memory_utilization, GiB): the worker requests ``total × gpu_memory_utilization`` for the weights,
    the activation peak, non-torch memory and the KV cache (the release's default utilization when unset: 1.0 for
    an extensible KV cache, ``measured``: ``config/cache.py`` ``resolved_gpu_memory_utilization``, 0.34.0)."""
    default = 1.0 if measured else b.gpu_memory_utilization
    util = default if s.gpu_memory_utilization is None else s.gpu_memory_utilization
    return util, device.memory_gib * util


def extensible_kv_cache(b: Behaviour, engine: str, device: Device, s: EngineSettings) -> bool:
    """Whether vLLM sizes this engine's KV cache as an extensible one, from the memory in use after the warm-up and
    the CUDA graph capture (``Behaviour.extensible_kv_cache``, 0.34+): on CUDA and ROCm unless
    ``--kv-cache-memory-bytes`` or ``--num-gpu-blocks-override`` sizes the cache or
    ``--no-enable-extensible-kv-cache`` turns it off (``config/vllm.py`` ``_resolve_extensible_kv_cache``, 0.34.0;
    a KV connector that cannot export driver-mapped memory turns it off too, not modelled)."""
    return (b.extensible_kv_cache and engine == "v1" and device.vendor in ("nvidia", "amd")
            and s.kv_cache_memory_bytes is None and s.extensible_kv_cache is not False)


class _Measured(NamedTuple):
    """What an extensible KV cache's sizing reads beside the budget (:func:`extensible_kv_cache`), in GiB."""

    free: float  # free at the first snapshot: the total less the CUDA context (and NCCL's communicators)
    floor: float  # the margin's floor (EXTENSIBLE_MARGIN_FLOOR_GIB)


class _Graphs(NamedTuple):
    """The CUDA graphs' memory and whether vLLM takes it from the KV budget."""

    in_budget: bool
    gib: float
    captures: int = 0  # graphs captured after sizing (counted; 0 where the flat estimate is used)
    tokens: int = 0  # ... and their batch sizes added up


def cudagraph_captures(model: ModelShape, b: Behaviour, seqs: int, batched: int, mode: str | None = None
                       ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The batch sizes V1 captures CUDA graphs for: (piecewise sizes, full decode sizes).

    The sizes are ``1, 2, 4`` and multiples of 8 up to the largest (0.8-0.11), from 0.12 multiples of 16 from 256
    on; the largest is 512 (0.8-0.9) or ``min(2 × max_num_seqs, 512)``, 1,024 for gpt-oss (992 in 0.11), never
    above ``max_num_batched_tokens``. From 0.11 (``FULL_AND_PIECEWISE``) the sizes up to ``max_num_seqs`` are
    captured a second time as full decode graphs (``gpu_model_runner.py`` ``capture_model``). ``mode``, a
    ``--compilation-config`` ``cudagraph_mode``: ``PIECEWISE`` captures no full graphs and ``NONE`` none at all (the
    dispatcher's capture descriptors, which ``profile_cudagraph_memory`` and ``capture_model`` both walk:
    ``v1/worker/gpu_model_runner.py`` 0.25.1); the other modes are taken as the default."""
    if mode == "NONE":
        return (), ()
    largest = 512 if b.cudagraph_sizes == "step8-512" else min(2 * seqs, 512)
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    gpt_oss = bool(b.gpt_oss_capture) and model_type == "gpt_oss" and largest < b.gpt_oss_capture
    if gpt_oss:
        largest = b.gpt_oss_capture
    largest = min(largest, batched)
    if b.cudagraph_sizes == "step16" or gpt_oss:  # GptOssForCausalLMConfig's own list steps by 16 from 256
        candidates = [1, 2, 4, *range(8, 256, 8), *range(256, largest + 1, 16)]
    else:
        candidates = [1, 2, 4, *range(8, largest + 1, 8)]
    sizes = tuple(x for x in candidates if x <= largest)
    full = tuple(x for x in sizes if x <= seqs) if b.full_cudagraphs and mode != "PIECEWISE" else ()
    return sizes, full


def cudagraph_estimate_applied(b: Behaviour, s: EngineSettings, vendor: str = "nvidia") -> bool:
    """Whether V1's ``determine_available_memory`` takes its CUDA-graph estimate from the KV budget: the release's
    default, unless ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (``EngineSettings.cudagraph_profiling``) says
    otherwise where the release reads it (:func:`shardwise.rules.vllm.versions.cudagraph_estimate_in_budget`)."""
    return cudagraph_estimate_in_budget(b, s.cudagraph_profiling, vendor)


def _cuda_graphs(b: Behaviour, engine: str, device: Device, s: EngineSettings, e: Estimates,
                 model: ModelShape | None = None, batch: _Batch | None = None, act: int = 2,
                 flat: bool = False, v2: bool = False, max_model_len: int = 0) -> _Graphs:
    """CUDA graphs (none with ``--enforce-eager``): V1 from 0.20 (on ROCm from 0.27) estimates their memory
    while profiling and takes that estimate from the KV budget (:func:`profiled_cudagraph_gib`; ``flat``: the flat
    ``cudagraph_gib`` where the estimate is not modelled: models with state layers); Model Runner V2
    (:func:`model_runner_v2`, ``v2``) estimates none (its ``profile_cudagraph_memory`` returns 0 in 0.22.0 - 0.28.0)
    and captures ``cudagraph_v2_gib`` after sizing; from 0.29 it measures them into the budget (the flat
    ``cudagraph_gib``: ``Behaviour.v2_cudagraphs_in_budget``); otherwise they are captured after the
    KV cache is allocated and have to fit the margin outside the budget (:func:`_margin`). There V1 captures one
    graph per size of :func:`cudagraph_captures`, and each keeps about ``cudagraph_token_bytes`` × hidden size
    bytes per token of a piecewise graph (``cudagraph_token_bytes_moe`` for mixture-of-experts models;
    ``cudagraph_full_token_bytes`` for a full decode graph; :class:`Estimates`), on every GPU whatever the
    tensor-parallel size; from 0.13, where a warm-up forward runs before the capture and leaves its blocks in
    PyTorch's cache for the graphs, far less (``cudagraph_token_bytes_warm``). gpt-oss, whose capture goes up to
    1,024 tokens, needs several GiB before 0.14."""
    in_budget = engine == "v1" and not s.enforce_eager and cudagraph_estimate_applied(b, s, device.vendor)
    if s.enforce_eager:
        return _tuple_new(_Graphs, (in_budget, 0.0, 0, 0))
    if v2 and engine == "v1" and device.vendor in ("nvidia", "amd"):
        # 0.29+ measures them in the budget (every piecewise graph captured once): not modelled, the flat term
        # (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 gates it as it gates V1's: gpu_worker.py 0.27.1)
        v2_in = b.v2_cudagraphs_in_budget and s.cudagraph_profiling is not False
        return _tuple_new(_Graphs, (True, e.cudagraph_gib, 0, 0) if v2_in else (False, e.cudagraph_v2_gib, 0, 0))
    if in_budget or engine != "v1" or model is None or batch is None or device.vendor not in ("nvidia", "amd"):
        if in_budget and not flat and model is not None and batch is not None and device.vendor in ("nvidia", "amd"):
            gib = profiled_cudagraph_gib(model, b, s, batch.seqs, batch.batched, act, e, max_model_len, device.vendor)
            return _tuple_new(_Graphs, (True, gib, 0, 0))
        return _tuple_new(_Graphs, (in_budget, e.cudagraph_gib, 0, 0))  # (TPU, Gaudi, Neuron: no CUDA graphs captured)
    count, piecewise_tokens, full_tokens = _captured(model, b, batch.seqs, batch.batched, s.cudagraph_mode)
    # per GPU, whatever the TP: the public logs show no split (Qwen2-7B on A100s with 0.10.1.1 kept 0.50 GiB at TP1
    # and 0.65 at TP2); MoE layers keep their fused-MoE buffers in the graphs' pools too
    moe = model.moe is not None and moe_layers(model) > 0
    if b.warmup_before_capture:
        # the capture reuses what the warm-up forward left in PyTorch's cache: it adds little, for either kind
        piecewise = full_bytes = e.cudagraph_token_bytes_warm_moe if moe else e.cudagraph_token_bytes_warm
    else:
        piecewise = e.cudagraph_token_bytes_moe if moe else e.cudagraph_token_bytes
        full_bytes = e.cudagraph_full_token_bytes_moe if moe else e.cudagraph_full_token_bytes
    gib = (piecewise_tokens * piecewise + full_tokens * full_bytes) * model.hidden_size * act / GIB
    return _tuple_new(_Graphs, (False, gib, count, piecewise_tokens + full_tokens))


def _cached_layout(model: ModelShape, s: EngineSettings, b: Behaviour, engine: str,
                   lay: kv_layout.Layout) -> kv_layout.Layout:
    """The layout vLLM allocates: with ``--enable-prefix-caching`` (V1, from 0.17) state layers keep their states in a
    Mamba cache mode (``Behaviour.mamba_cache_modes``, :func:`kv_layout.with_mamba_cache_mode`); with a speculative
    method they hold a block more a request for each draft token in the releases that have those modes
    (:func:`kv_layout.with_speculative_blocks`; 0.17.0, 0.19.0 and 0.25.1 read, 0.14.1 holds one)."""
    if prefix_caching_on(s, b) and engine == "v1" and b.mamba_cache_modes:
        lay = kv_layout.with_mamba_cache_mode(lay, model, by_class=not b.hybrid_prefix_caching)
    if engine == "v1" and b.mamba_cache_modes:
        lay = kv_layout.with_speculative_blocks(lay, speculative_token_count(model, s))
    return lay


def prefix_caching_on(s: EngineSettings, b: Behaviour) -> bool:
    """Whether a model with state layers runs with prefix caching: as ``--enable-prefix-caching`` /
    ``--no-enable-prefix-caching`` say, else the release's default: off before 0.28 (``default_prefix_caching``
    excluded hybrid models, or ``is_prefix_caching_supported`` refused them), on from 0.28
    (``Behaviour.hybrid_prefix_caching``: ``engine/arg_utils.py`` takes ``is_prefix_caching_supported``, True for a
    generative hybrid model, in 0.28.0, 0.29.0 and 0.34.0; False for a pooling one, ``config/model.py``)."""
    if s.enable_prefix_caching is not None:
        return s.enable_prefix_caching
    return b.hybrid_prefix_caching and not s.pooling


def speculative_token_count(model: ModelShape, s: EngineSettings) -> int:
    """The tokens the speculative method drafts a step (vLLM's ``num_speculative_tokens``): as given, else for an MTP
    method the model's MTP layers (``n_predict``, ``config/speculative.py`` 0.25.1: "Default to max value defined in
    draft model config"; one where the config names none); 0 without a method, or for another method that does not
    give it (vLLM refuses that: "num_speculative_tokens must be provided")."""
    if s.speculative_method is None:
        return 0
    if s.speculative_tokens:
        return s.speculative_tokens
    if s.speculative_method in MTP_METHODS:
        return mtp_layers(model) or 1
    return 0


def model_runner_v2(model: ModelShape, b: Behaviour, precision: str, pooling: bool = False,
                    state_layers: bool = False) -> bool:
    """Whether the release runs ``model`` on Model Runner V2 by default (``Behaviour.v2_runner``; config/vllm.py
    ``_is_default_v2_model_runner_model``): its memory profile is not the V1 runner's (docs/capacity-model.md,
    "Model Runner V2"). Not the pooling runner: V2 is the default for generative models only (a 0.22.0 log of
    Qwen3-Embedding-8B with ``--runner pooling`` shows the V1 runner's CUDA graph estimate). A model with
    ``state_layers`` (a dense hybrid: Mamba or linear-attention layers beside attention; or attention-free) stays on V1
    in 0.25 - 0.28 (``Behaviour.v2_skips_state_models``: ``is_hybrid`` returns False before the dense rule,
    config/vllm.py in the 0.25.1 - 0.28.0 wheels; docs/capacity-model.md, "A hybrid runs the V1 runner in
    0.25 - 0.28")."""
    if b.v2_runner == "none" or pooling:
        return False
    if state_layers and b.v2_skips_state_models:
        return False
    moe = model.moe is not None and moe_layers(model) > 0
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    if model_type in b.v2_model_types:
        return not (b.v2_listed_dense_only and (moe or precision not in ("bf16", "fp16", "fp32")))
    return b.v2_runner == "dense" and not moe


#: ``--speculative-config`` methods async scheduling runs with (config/vllm.py: EAGLE and MTP, the ``dflash``,
#: ``draft_model``, ``ngram_gpu`` and ``dspark`` proposers, 0.26.0 - 0.29.0); any other method turns its default off.
ASYNC_SPEC_METHODS = frozenset({"eagle", "eagle3", "extract_hidden_states", "dflash", "draft_model", "ngram_gpu",
                                "dspark"}) | MTP_METHODS


def async_scheduling(s: EngineSettings) -> bool:
    """Whether the engine schedules asynchronously: the flag where given, else vLLM's default (config/vllm.py
    ``VllmConfig.__post_init__``: on unless the pooling runner or a speculative method it does not support; the
    releases that read it here, 0.26+, have that default)."""
    if s.async_scheduling is not None:
        return s.async_scheduling
    if s.pooling:
        return False
    return s.speculative_method is None or s.speculative_method in ASYNC_SPEC_METHODS


def kv_in_flight_tokens(b: Behaviour, s: EngineSettings, batched: int, v2: bool) -> int:
    """The tokens a sliding-window or chunked-local layer holds beyond its span for each request: from 0.26
    ``max_in_flight_tokens``, concurrent batches × ``max_num_batched_tokens`` (config/vllm.py
    ``max_concurrent_batches``: with async scheduling PP + 1 on Model Runner V2, 2 at PP1 on V1, else PP), before it
    one ``max_num_batched_tokens`` (``Behaviour.kv_in_flight``)."""
    if not b.kv_in_flight:
        return batched
    concurrent = s.pp
    if async_scheduling(s):
        if v2:
            concurrent = s.pp + 1
        elif s.pp <= 1:
            concurrent = 2
    return concurrent * batched


def profiled_cudagraph_gib(model: ModelShape, b: Behaviour, s: EngineSettings, seqs: int, batched: int, act: int,
                           e: Estimates = DEFAULT_ESTIMATES, max_model_len: int = 0, vendor: str = "nvidia") -> float:
    """GiB the V1 worker takes from the KV budget for the CUDA graphs it will capture (0.20 and later,
    ``v1/worker/gpu_model_runner.py`` ``profile_cudagraph_memory``, the same method in 0.20.0 - 0.28.0).

    For each mode (PIECEWISE over the sizes of :func:`cudagraph_captures`, FULL over the decode sizes) vLLM
    captures only the two largest sizes into a throw-away pool and reads the free memory before and after each:
    the first capture is the mode's shared part, the second every further graph's; the estimate is the larger
    shared part plus ``(graphs − 1) × per-graph`` of both modes. The first capture of the largest size holds a
    forward pass of that many tokens twice (the eager warm-up in PyTorch's cache, emptied just before, and the
    graph's own pool) over ``cudagraph_profile_base_gib`` (cuBLAS workspaces, allocator segments); every further
    graph costs about ``cudagraph_profile_layer_mib`` per layer of the stage (a piecewise graph is one CUDA graph
    per layer, a full graph holds every layer's kernels). Calibrated on the two public logs with a standard
    attention model (docs/capacity-model.md): Qwen2.5-7B, 0.22.0, 35 + 19 graphs up to 256 tokens: 0.37 GiB
    logged, 0.37 estimated; Qwen3-Coder-30B-A3B, 0.26.1rc1, 7 + 5 graphs up to 32 tokens: 0.15 logged and
    estimated.

    A sparse-attention model's first FULL capture holds the indexer's decode scores instead where they are larger
    (:func:`sparse_indexer_decode_logits_bytes`, ``max_model_len`` wide, for the largest full decode size): the FULL
    warm-up and capture build the decode metadata (``force_attention``, ``_warmup_and_capture``, 0.25.1), so the
    indexer runs its decode branch, not the profile stand-in, in both the warm-up (its block left in PyTorch's
    cache) and the graph's pool. They are freed before the layer's experts run, whose caches take the same block, so
    the larger of the two, not their sum."""
    chunk = moe_chunk_tokens(b, s)
    key = ("profiled-graphs", b.cudagraph_sizes, b.gpt_oss_capture, b.full_cudagraphs, seqs, batched, act,
           s.tp, s.pp, s.dp, s.expert_parallel, s.cudagraph_mode, chunk, e, max_model_len, vendor)
    memo = _facts(model)
    hit = memo.get(key)
    if hit is None:
        sizes, full = cudagraph_captures(model, b, seqs, batched, s.cudagraph_mode)
        if not sizes:
            hit = memo[key] = 0.0
            return 0.0
        first = max(_forward_bytes(model, s, max(sizes), act, e, chunk),
                    _forward_bytes(model, s, max(full), act, e, chunk) if full else 0.0,
                    float(sparse_indexer_decode_logits_bytes(model, vendor, max(full), max_model_len)) if full else 0.0)
        extra = len(sizes) - 1 + max(len(full) - 1, 0)
        layers = -(-model.num_hidden_layers // s.pp)
        hit = memo[key] = (e.cudagraph_profile_base_gib + 2 * first / GIB
                           + extra * layers * e.cudagraph_profile_layer_mib / 1024)
    return hit  # type: ignore[no-any-return]


def _captured(model: ModelShape, b: Behaviour, seqs: int, batched: int, mode: str | None = None
              ) -> tuple[int, int, int]:
    """(graphs, the piecewise graphs' batch sizes added up, the full graphs' added up) of
    :func:`cudagraph_captures`, by what it reads."""
    key = ("captured", b.cudagraph_sizes, b.gpt_oss_capture, b.full_cudagraphs, seqs, batched, mode)
    memo = _facts(model)
    hit = memo.get(key)
    if hit is None:
        sizes, full = cudagraph_captures(model, b, seqs, batched, mode)
        hit = memo[key] = (len(sizes) + len(full), sum(sizes), sum(full))
    return hit  # type: ignore[no-any-return]


class _Sampler(NamedTuple):
    """The dummy sampler run: its rows and its bytes per row × vocabulary entry."""

    rows: int
    per_elem: float
    bytes: float
    measured: bool = False  # PyTorch's sort on CUDA: its bytes a logit are measured (``Estimates.sort_error``)


def sampler_kind(b: Behaviour, s: EngineSettings, vendor: str) -> str:
    """The top-k/top-p sampler V1 runs: FlashInfer where it is installed (the official image; a pip install from
    0.11; never on ROCm) and the release uses it by default or ``VLLM_USE_FLASHINFER_SAMPLER=1`` asks for it,
    unless ``VLLM_USE_FLASHINFER_SAMPLER=0``; otherwise the PyTorch-native path (PyTorch's sort, Triton's
    kernel from 0.17)."""
    installed = s.flashinfer_installed
    if installed is None:
        installed = b.pip_flashinfer if s.pip_install else True
    if vendor != "nvidia":
        installed = False  # FlashInfer is CUDA-only
    wanted = b.flashinfer_sampler_default if s.flashinfer_sampler is None else s.flashinfer_sampler
    return "flashinfer" if (installed and wanted) else b.native_sampler


#: The config.json ``model_type`` of the families whose configuration sets ``final_logit_softcapping`` where a
#: checkpoint's config.json does not say (transformers: ``Gemma2Config`` and ``Gemma3nTextConfig`` default to 30.0;
#: ``Gemma4TextConfig`` defaults to None, but every Gemma 4 variant of ``convert_gemma4_weights.py`` ``_VARIANTS``
#: (E2B, E4B, 26B-A4B, 31B, huggingface/transformers at ca5ff0b0) sets 30.0; Gemma 3's is null).
_SOFT_CAPPED_TYPES = frozenset({"gemma2", "gemma3n", "gemma3n_text", "gemma4", "gemma4_text"})


def logits_soft_capped(model: ModelShape) -> bool:
    """Whether vLLM soft-caps the model's logits (``LogitsProcessor(soft_cap=config.final_logit_softcapping)``, Gemma 2,
    Gemma 3n and Gemma 4): the checkpoint's own ``final_logit_softcapping`` (or its ``text_config``'s) where
    config.json gives the key, else its family's (``_SOFT_CAPPED_TYPES``)."""
    cfg = model.hf_config or {}
    for c in (cfg, cfg.get("text_config")):
        if isinstance(c, dict) and "final_logit_softcapping" in c:
            return bool(c["final_logit_softcapping"])
    return str(cfg.get("model_type", "")) in _SOFT_CAPPED_TYPES


def _sampler_run(model: ModelShape, b: Behaviour, engine: str, batch: _Batch, e: Estimates,
                 s: EngineSettings = EngineSettings(), vendor: str = "nvidia", v2_act: int = 0) -> _Sampler:
    """The profile's dummy sampler run on the last stage: V1 samples ``min(max_num_seqs,
    max_num_batched_tokens)`` rows with the sampler the release and the image run (:func:`sampler_kind`; the
    Triton top-k/top-p kernel falls back to PyTorch's sort below 8 rows).

    V0's ``profile_run`` gives its ``max_num_seqs`` dummy prompts ``SamplingParams(top_p=0.99, top_k=vocab − 1)``
    "to reflect the accurate memory usage", and its sampler applies them with PyTorch's sort over the float32
    logits (``_apply_top_k_top_p``; FlashInfer only with ``VLLM_USE_FLASHINFER_SAMPLER=1``): the sort's bytes per
    logit on ``max_num_seqs`` rows, which show when the forward pass is small (vllm#13882: 1.42 GiB for Qwen2.5-7B-AWQ
    at 4,096 tokens). With chunked prefill on, the logs show only the logits in the model's dtype (vllm#10517 at
    35,000 tokens: 0.06 GiB over the weights; vllm#13061: 0.19 GiB), which is what is charged there.

    V1's pooling runner (``EngineSettings.pooling``) runs ``_dummy_pooler_run`` over the hidden states instead, in
    ``profile_run`` and in ``compile_or_warm_up_model`` (``v1/worker/gpu_model_runner.py``, ``gpu_worker.py``): no
    logits over the vocabulary are made, so nothing is charged for them.

    Model Runner V2 (``v2_act``: the logits' bytes, where the model runs it) samples the same rows greedily: its
    ``_dummy_sampler_run`` keeps the dummy requests' default states (temperature 0, no top-k/top-p), so its
    ``Sampler`` copies the logits to float32 (``apply_sampling_params``) and takes a Gumbel arg-max that allocates
    nothing more: ``v2_act`` + 4 bytes per logit (``v1/worker/gpu/sample/sampler.py`` 0.22.0 - 0.27.1). From 0.28
    ``apply_sampling_params`` returns the logits untouched when no request of the batch needs processing, which the
    dummy requests never do (``Behaviour.v2_profile_logits_copy``): what is left is ``compute_logits`` itself, the
    logits in the model's dtype, twice that for a model whose logits are soft-capped (:func:`logits_soft_capped`:
    ``LogitsProcessor.forward`` divides, takes tanh and multiplies out of place, each step holding its input and its
    output, ``model_executor/layers/logits_processor.py`` 0.28.0, 0.29.0 and 0.30.0); before 0.28 that moment sits
    under the float32 copy's 6 bytes. From 0.33 ``_dummy_sampler_run`` samples the same rows a second time with
    ``SamplingParams.for_sampler_warmup()`` on every dummy request (``Behaviour.v2_profile_warmup_sampler``), through
    the whole pipeline ``warmup_kernels`` runs after sizing: the float32 copy, the processors in place, FlashInfer's
    fused top-k/top-p where the image has it, else the top-k/top-p kernel and a Gumbel arg-max
    (``v1/worker/gpu/sample/sampler.py`` ``Sampler.sample``, 0.33.0 and 0.34.0): the warm-up sampler's bytes per logit
    (:func:`sampler_kind`, as :func:`v2_runner_terms` charges the warm-up), which hold the logits and their copy."""
    rows = min(batch.seqs, batch.batched) if engine == "v1" else batch.seqs
    if engine == "v1" and s.pooling:
        return _tuple_new(_Sampler, (rows, 0.0, 0.0, False))  # the pooler over the hidden states: nothing sampled
    if v2_act:
        per = float(v2_act + 4 if b.v2_profile_logits_copy else v2_act * (2 if logits_soft_capped(model) else 1))
        if b.v2_profile_warmup_sampler:
            kind = sampler_kind(b, s, vendor)
            warm = _sampler_per_elem(kind, rows, e)
            if warm > per:
                sorts = kind == "sort" or (kind == "triton" and rows < 8)
                return _tuple_new(_Sampler, (rows, warm, rows * model.vocab_size * warm, sorts and vendor == "nvidia"))
        return _tuple_new(_Sampler, (rows, per, rows * model.vocab_size * per, False))
    if engine == "v0":
        kind = "logits" if batch.chunked else ("flashinfer" if s.flashinfer_sampler else "sort")
    else:
        kind = sampler_kind(b, s, vendor)
    per_elem = _sampler_per_elem(kind, rows, e)
    sorts = kind == "sort" or (kind == "triton" and rows < 8)
    return _tuple_new(_Sampler, (rows, per_elem, rows * model.vocab_size * per_elem, sorts and vendor == "nvidia"))


def _sampler_per_elem(kind: str, rows: int, e: Estimates) -> float:
    """Bytes per logit of the top-k/top-p sampler ``kind`` over ``rows`` rows."""
    if kind == "triton" and rows < 8:
        kind = "sort"  # below 8 rows vLLM sorts with PyTorch instead
    # PyTorch's sort costs more from 2 to 127 rows (Estimates.sort_few_rows_bytes)
    return e.sort_bytes(rows) if kind == "sort" else e.sampler(kind)


class V2Terms(NamedTuple):
    """Model Runner V2's memory terms on the last pipeline stage, in bytes (:func:`v2_runner_terms`)."""

    persistent: float  # PenaltiesState's output_bin_counts and prompt_bin_mask, allocated once
    warm_rows: int  # requests warmup_kernels prefills, two tokens each
    warm_sampler: float  # its sampler over warm_rows rows with every sampling feature on
    warm_prompt_logprobs: float  # the prompt logprobs' logits over the 2 × warm_rows prompt tokens
    warm_hidden: float  # the prefill's hidden states, held while it samples

    @property
    def warm(self) -> float:
        """The warm-up's peak: the sampler and the prompt logprobs run one after the other (``sample_tokens``)."""
        return max(self.warm_sampler, self.warm_prompt_logprobs) + self.warm_hidden


def v2_runner_terms(model: ModelShape, b: Behaviour, s: EngineSettings, seqs: int, batched: int, act: int,
                    e: Estimates = DEFAULT_ESTIMATES, vendor: str = "nvidia") -> V2Terms:
    """What Model Runner V2 allocates on the last stage that its profile does not see (docs/capacity-model.md,
    "Model Runner V2"; ``v1/worker/gpu/`` read in 0.22.0, 0.24.0, 0.25.1 and 0.27.1).

    * ``PenaltiesState`` (``sample/penalties.py``): ``output_bin_counts`` (``max_num_seqs`` × vocabulary int32)
      and ``prompt_bin_mask`` (``max_num_seqs`` × ⌈vocabulary ÷ 32⌉ int32), allocated with the ``Sampler`` outside
      the weights' measurement. Whether the budget counts them is by release (``Behaviour.v2_persistent_in_budget``).
    * ``warmup_kernels`` (``gpu/warmup.py``), run by ``compile_or_warm_up_model`` after the CUDA graphs are
      captured: ``min(max_num_seqs, max_num_batched_tokens // 2)`` requests of two prompt tokens each, with
      ``SamplingParams.for_sampler_warmup()`` (top-k 50, top-p 0.9, min-p, penalties, logit bias, bad words,
      ``logprobs=5``, ``prompt_logprobs=1``). Its sampler copies the logits to float32 and runs the same top-k/top-p
      kernels as V1's (``v1/sample/ops/topk_topp_sampler.py``: FlashInfer where supported, else Triton, PyTorch's
      sort below 8 rows): :func:`sampler_kind`'s bytes per logit over those rows. Then the prompt logprobs
      (``sample/prompt_logprob.py``) compute the logits of every prompt token in one chunk (``CHUNK_SIZE`` 1,024)
      and read their log-softmax with a Triton kernel that materialises nothing more: the logits' bytes over
      ``2 × rows`` tokens (a soft-capped model's division makes a second copy for a moment: 4 bytes per logit,
      still below the sampler's 15.5 or 16 over half the rows). The prefill's hidden states stay held meanwhile."""
    vocab = model.vocab_size
    persistent = float(seqs * (vocab * 4 + -(-vocab // 32) * 4))
    rows = max(1, min(seqs, batched // 2))
    per = _sampler_per_elem(sampler_kind(b, s, vendor), rows, e)
    return V2Terms(persistent, rows, rows * vocab * per, 2 * rows * vocab * act,
                   2 * rows * model.hidden_size * act)


class _Stage(NamedTuple):
    """The memory profile of one GPU of one pipeline stage, in GiB."""

    stage: int
    weights: float  # what vLLM logs as "Model loading took"
    act: float  # the torch peak of the profile run (forward pass, encoder, sampler)
    sampler: float
    encoder: float
    avail: float  # what determine_available_memory leaves for the KV cache
    last_peak: float = 0.0  # the last stage's profiled torch peak: the room the sampler warm-up reuses
    forward: float = 0.0  # the forward pass's (or the encoder's) share of the peak, the sampler's aside
    #: the routed rows' bytes of a read experts kernel where they decide the peak (:func:`_forward_parts`), and the
    #: most fewer bytes the other kernels vLLM may pick hold: their error, not the activations' (:func:`_error_band`)
    moe_rows: float = 0.0
    moe_fewer: float = 0.0
    #: what the experts' caches kept through the sampler run add to the peak where the image decides whether they are
    #: kept (:func:`moe_workspace_kept_by_image`): above the budget in the error band (:func:`_error_band`)
    kept_spread: float = 0.0


def _distinct_stages(model: ModelShape, pp: int) -> tuple[int, ...]:
    """The pipeline stages whose memory profile can differ: the first, the last, and one middle stage of each layer
    count ``get_pp_indices`` gives the middle ones (``kv_layout._stage_slice``); middle stages of the same count hold
    the same weights and layers. A model whose layers differ in size (Llama-Nemotron, :func:`stage_share`) keeps
    every stage."""
    if pp == 1:
        return (0,)
    if nas.is_nas(model.hf_config):
        return tuple(range(pp))
    # the middle stages hold ``n // pp`` layers, and one more from stage ``pp - 1 - n % pp`` on: the first of each
    # count is stage 1 or the first with one more (asked of every middle stage, a --pipeline-parallel-size of a
    # million took seconds, fuzz21)
    seen: set[int] = set()
    middle = []
    for stage in sorted({1, max(1, pp - 1 - model.num_hidden_layers % pp)}):
        if stage < pp - 1:
            n = len(kv_layout._stage_slice(model.num_hidden_layers, pp, stage))
            if n not in seen:
                seen.add(n)
                middle.append(stage)
    return (0, *middle, pp - 1)


def _profile(model: ModelShape, s: EngineSettings, device: Device, ck: _Checkpoint, batch: _Batch, usable: float,
             nontorch: float, graphs: _Graphs, sampler: _Sampler, buffers: bool, e: Estimates,
             notes: list[str], triton_kernels: bool = True,
             encoder: _Encoder = _NO_ENCODER, mrope_scale: int = 1,
             dr: Draft = NO_DRAFT, kept: float = 0.0, measured: _Measured | None = None,
             compile_gib: float = 0.0, scales_freed: bool = False,
             towers_built: bool = True, moe_chunk: int = 0,
             moe_rows: MoeRows | None = None, redundant: int = 0,
             workspace: float = 0.0, moe_kept: bool = False,
             kept_by_image: bool = False) -> tuple[_Stage, tuple[_Stage, ...]]:
    """``load_model`` and ``determine_available_memory`` on every pipeline stage (each worker profiles its own,
    ``v1/worker/gpu_worker.py``): the stage that leaves the least memory, and every profiled stage
    (:func:`_cache_stage` picks the one whose cache is smallest). The stages differ: the first holds the embedding,
    the last the LM head and the sampler, and where the layers do not divide evenly ``get_pp_indices`` gives the
    one-layer surplus to the stages before the last from the second-to-last backwards, so from PP3 a middle stage
    can hold more layers (and more bytes of KV cache a token) than either end (Qwen3-235B-A22B's 94 layers at PP4:
    23, 24, 24, 23).

    The profile run is one dummy forward pass of ``max_num_batched_tokens`` tokens, on the first stage
    the multimodal encoder's dummy batch (``encoder``, :func:`_encoder`: the tower's peak, then the outputs and
    V1's dummy batch held through the forward pass), on the last the dummy sampler run; the torch peak it reaches,
    the non-torch memory and (where they are in the budget) the CUDA graphs come out of the budget after
    the weights, and on the last stage ``kept`` bytes the runner keeps allocated where the release counts them
    (Model Runner V2's penalty buffers from 0.27, :func:`v2_runner_terms`). A cold ``torch.compile`` raises the
    first stage's peak to at least ``compile_gib`` (:func:`cold_compile_gib`). ``workspace`` bytes of the shared
    workspace buffer, held from the first forward pass on (:func:`sparse_indexer_workspace_bytes`), raise the sampler
    run's peak and the compile's, and the forward pass's by what they exceed its routed rows' caches, which the
    modular MoE kernels take from the same buffer (:func:`_routed_bytes`). Where those kernels keep their caches in
    that buffer (``moe_kept``: :func:`moe_workspace_kept`), the routed rows' bytes are held through the sampler run
    and the compile too; where only the image decides that (``kept_by_image``: :func:`moe_workspace_kept_by_image`,
    DeepGEMM at 0.12 - 0.13), what they add to the peak is the stage's ``kept_spread``, above the budget in the error
    band.

    An extensible KV cache (``measured``, 0.34+) is sized after the warm-up and the capture: what is in use then
    (the weights, non-torch memory, the captured CUDA graphs, the kept buffers) comes out of both the budget and
    the memory free at the first snapshot less the margin, and the peak (the profile's, plus the CUDA graph
    estimate where it is taken: ``peak_activation_memory``) is kept free beside them.
    """
    enc_peak, enc_held = encoder.peak, encoder.cache + encoder.inputs
    if encoder.note:
        notes.append(encoder.note)
    fields: list[tuple[int, float, float, float, float, float, float, float, float, float]] = []
    last_peak = 0.0
    # the same on every stage
    fwd, rows_bytes, rows_fewer = _forward_parts(model, s, batch.batched, ck.act_bytes, e, moe_chunk, moe_rows)
    # the routed rows' caches in the shared buffer: FlashInfer CUTLASS (the kernel ``moe_rows.read`` names) keeps its
    # own workspace inside the kernel, asking the buffer for one (tokens, hidden) tensor only (``workspace_shapes``,
    # ``fused_moe/experts/flashinfer_cutlass_moe.py`` in 0.29.0)
    in_buffer = moe_rows is None or not moe_rows.read
    routed = (_routed_bytes(model, s, batch.batched, ck.act_bytes, e, moe_chunk, moe_rows)
              if (workspace or moe_kept or kept_by_image) and in_buffer else 0.0)
    if workspace:
        # the workspace buffer is in use from the first layer on; the routed rows' caches come out of it too, so the
        # forward pass holds only what the buffer has beyond them
        fwd += max(workspace - routed, 0.0)
    plain = workspace  # the buffer held through the sampler run where the experts keep no caches in it
    if moe_kept or kept_by_image:
        # ... and the buffer, the larger of the two, stays allocated through the sampler run
        workspace = max(workspace, routed)
    for stage in _distinct_stages(model, s.pp):
        w = _stage_weights(model, ck.total_bytes, ck.precision, s, stage, buffers=buffers, device=device,
                           triton_kernels=triton_kernels, mrope_scale=mrope_scale, scales_freed=scales_freed,
                           towers_built=towers_built, redundant=redundant)
        last = stage == s.pp - 1
        if last:
            w += dr.weight_bytes  # the drafter loads with the target, on the last stage
        samp = sampler.bytes + batch.batched * model.hidden_size * ck.act_bytes if last else 0.0
        # the encoder's outputs and dummy batch are freed only after the sampler run (0.11+, one stage)
        held = enc_held if (last and stage == 0 and enc_peak and encoder.through_sampler) else 0.0
        enc = max(enc_peak, fwd + enc_held) if (stage == 0 and enc_peak) else fwd
        # the workspace buffer stays allocated through the sampler run (and the cold compile's copy)
        peak = max(enc, samp + held + workspace, compile_gib * GIB + workspace if stage == 0 else 0.0)
        # what the caches the image's kernel keeps add to the peak (none where every kernel keeps them)
        spread = (peak - max(enc, samp + held + plain, compile_gib * GIB + plain if stage == 0 else 0.0)
                  if kept_by_image else 0.0)
        if last:
            last_peak = peak / GIB
        if measured is None:
            avail = (usable - w / GIB - peak / GIB - nontorch - (graphs.gib if graphs.in_budget else 0.0)
                     - (kept / GIB if last else 0.0))
        else:
            in_use = w / GIB + nontorch + graphs.gib + (kept / GIB if last else 0.0)
            transient = peak / GIB + (graphs.gib if graphs.in_budget else 0.0)
            margin = max(measured.floor, EXTENSIBLE_MARGIN_FRACTION * transient)
            avail = min(usable - in_use, measured.free - in_use - margin) - transient
        rows_decide = rows_bytes > 0 and peak == fwd  # the forward pass, and in it the routed rows, decide the peak
        fields.append((stage, w / GIB, peak / GIB, samp / GIB if last else 0.0, enc_peak / GIB if stage == 0 else 0.0,
                       avail, max(enc, compile_gib * GIB if stage == 0 else 0.0) / GIB,
                       rows_bytes / GIB if rows_decide else 0.0, rows_fewer / GIB if rows_decide else 0.0,
                       spread / GIB))
    # every row carries the last stage's peak, known once the last stage is profiled
    rows = tuple(_tuple_new(_Stage, (*f[:6], last_peak, *f[6:])) for f in fields)
    worst = rows[0]
    for row in rows[1:]:
        if row.avail < worst.avail:
            worst = row
    return worst, rows


def _cache_stage(model: ModelShape, s: EngineSettings, ck: _Checkpoint, b: Behaviour, engine: str,
                 stages: tuple[_Stage, ...], worst: _Stage, max_model_len: int, batched: int, block: int,
                 dr: Draft = NO_DRAFT) -> _Stage:
    """The profiled stage whose KV cache has the fewest blocks. Every worker sizes its cache from its own free
    memory and its own layers, and the engine gives every worker the smallest number of blocks (V1:
    ``unify_kv_cache_configs``, from 0.11 the end of ``get_kv_cache_configs`` in ``vllm/v1/core/kv_cache_utils.py``;
    V0: the executor's ``determine_num_available_blocks`` takes the minimum over workers). A stage none of
    whose layers caches (only KV-shared layers) sizes nothing and does not bound the others; with one stage, or
    every stage without a cache, the stage that leaves the least memory."""
    if len(stages) == 1:
        return worst  # one stage: it is the one whatever its blocks (worst is that stage)
    best: tuple[int, float, _Stage] | None = None
    for row in stages:
        lay = _cached_layout(model, s, b, engine, _stage_layout(model, s, ck, b, row.stage, dr))
        if not lay.types:
            continue
        avail = s.kv_cache_memory_bytes if (engine == "v1" and b.kv_cache_memory_flag
                                            and s.kv_cache_memory_bytes is not None) else row.avail * GIB
        blocks = kv_layout.plan_kv_cache(lay, b, engine, avail, max_model_len, batched, block).num_blocks
        key = (blocks, row.avail, row)
        if best is None or key[:2] < best[:2]:
            best = key
    return best[2] if best is not None else worst


def state_dtypes(s: EngineSettings, b: Behaviour) -> kv_layout.StateDtypes:
    """The Mamba cache dtypes of the engine: its two flags and what the release does with them."""
    if s.mamba_cache_dtype == "auto" and s.mamba_ssm_cache_dtype == "auto" and b.gdn_ssm_dtype \
            and b.nemotron_h_ssm_dtype == "float32":
        return kv_layout.AUTO_STATE
    return _tuple_new(kv_layout.StateDtypes, (s.mamba_cache_dtype, s.mamba_ssm_cache_dtype, b.gdn_ssm_dtype,
                                              b.nemotron_h_ssm_dtype))


def _stage_layout(model: ModelShape, s: EngineSettings, ck: _Checkpoint, b: Behaviour, stage: int,
                  dr: Draft = NO_DRAFT) -> kv_layout.Layout:
    """The KV layout of one GPU of pipeline stage ``stage``; on the last stage with the draft's attention layers
    (:mod:`.draft`: an MTP module's layers are full-attention layers of the target's kind, cached in the same
    budget and the same group as the target's full-attention layers)."""
    lay = kv_layout.layout(model, s.tp, s.pp, ck.kv_bytes, stage, b.mla_cache, speculative_token_count(model, s),
                           ck.kv_dtype, state_dtypes(s, b))
    if not dr.kv_layers or stage != s.pp - 1:
        return lay
    types = list(lay.types)
    for i, t in enumerate(types):
        if t.kind == "full":
            types[i] = replace(t, layers=t.layers + dr.kv_layers)
            return replace(lay, types=tuple(types))
    return lay


def _kv_budget(worst: _Stage, s: EngineSettings, given: bool, notes: list[str]) -> float:
    """GiB for the KV cache: what vLLM logs as "Available KV cache memory" (negative: nothing left), or with
    ``--kv-cache-memory-bytes`` (0.10.2+) the size given, without gpu_memory_utilization's budget."""
    if not given:
        return worst.avail
    assert s.kv_cache_memory_bytes is not None
    available = s.kv_cache_memory_bytes / GIB
    notes.append(f"--kv-cache-memory-bytes: vLLM takes {available:.2f} GiB for the KV cache as given, "
                 "without gpu_memory_utilization's budget")
    return available


def _error_band(worst: _Stage, device: Device, s: EngineSettings, b: Behaviour, engine: str, usable: float,
                graphs: _Graphs, given: bool, exact: bool, e: Estimates,
                sort_peak: bool = False) -> tuple[float, float]:
    """GiB the KV budget may be off by, below and above the estimate: the sum of the errors of the terms vLLM
    measures and shardwise estimates (:class:`Estimates`), at least 0.6 GiB and 4 % of the budget; none when the
    KV cache's size is given. The weights' error is asymmetric (:func:`weights_band`): weights heavier than the
    estimate leave less (``weights_error``), lighter ones more (``weights_error_below`` when they are ``exact``).

    The profile's peak carries the activations' error (35 % + 0.15 GiB) unless PyTorch's sort on CUDA decides it
    (``sort_peak``, the dummy sampler run at or above the forward pass): the sort's bytes a logit are measured, not
    fitted (38.0 - 38.2 on an H200 with torch 2.11, ``benchmarks/gpu/torch_terms-h200-torch2.11.json``; the twelve
    one-GPU sort-only logs of 1,024 rows, 0.10.1.1 - 0.14.1, imply 37.9 - 38.7 against the 38.2 charged), so it
    carries ``Estimates.sort_error`` of itself, or the forward pass's own error where the forward pass with it would
    pass the sort, + 0.15 GiB. The routed rows of an experts kernel whose choice was read (``worst.moe_rows``,
    :func:`moe_row_bytes`) are not in that 35 %: their bytes are the kernel's formula, and their error is the spread
    to the kernels vLLM may fall to, all of which hold fewer (``worst.moe_fewer``, above the budget only)."""
    # a read experts kernel's routed rows are its formula's: they carry the spread of the kernels vLLM may pick
    # (fewer bytes only: the one it picks first holds the most, :func:`moe_row_bytes`), not the activations' error
    act_err = max(worst.act - worst.encoder - worst.moe_rows, 0.0) * e.activation_error + e.activation_floor_gib
    if sort_peak and worst.sampler > 0 and worst.sampler >= worst.forward:
        # PyTorch's sort decides the peak: its bytes a logit are measured, not fitted; the forward pass keeps its error
        act_err = (max(worst.sampler * e.sort_error, worst.forward * (1 + e.activation_error) - worst.act, 0.0)
                   + e.activation_floor_gib)
    nontorch_err = e.rocm_error_gib if device.vendor == "amd" else e.nontorch_error_gib
    counted = b.tp_buffers_in_budget and tp_buffers_counted(device, s.tp)
    several = world_size(s.tp, s.pp, s.prefill_context_parallel) > 1
    if several and (engine == "v0" or b.nontorch != "after-distributed" or counted):
        nontorch_err = max(nontorch_err, e.nccl_error_gib)  # NCCL's buffers are counted: size unknown
    rest = (act_err + worst.encoder * e.encoder_error + nontorch_err
            + (e.cudagraph_error_gib if graphs.in_budget else 0.0))
    if given:
        return 0.0, 0.0  # vLLM uses the figure given; nothing is estimated
    floor = error_band_floor(usable)
    lighter = e.weights_error_below if exact else e.weights_error
    return (max(worst.weights * e.weights_error + rest, floor),
            max(worst.weights * lighter + rest + worst.moe_fewer + worst.kept_spread, floor))


def error_band_floor(usable: float) -> float:
    """The least the KV budget's error band is, below and above, where the budget is estimated (:func:`_error_band`):
    0.6 GiB, and 4 % of the ``usable`` GiB vLLM may use."""
    return max(0.6, 0.04 * usable)


class _KvCache(NamedTuple):
    """The KV cache vLLM builds from the budget, and the longest requests it holds."""

    max_model_len: int  # after ``auto`` fitted it
    plan: kv_layout.KvPlan
    needed: int  # bytes one max_model_len request needs, as vLLM checks it
    fit_len: int  # the longest max_model_len one request fits (central estimate)
    fit_sure: int  # ... with the error band taken off the budget


def _check_layout(model: ModelShape, s: EngineSettings, ck: _Checkpoint, b: Behaviour, engine: str,
                  lay: kv_layout.Layout, dr: Draft) -> kv_layout.Layout:
    """The layout vLLM's one-request check (and ``--max-model-len auto``'s fit) reads: the cached stage's own
    (``lay``), but in 0.14.0-0.16.x at PP > 1 every stage's layers (``Behaviour.pp_check_whole_model``:
    ``get_kv_cache_configs`` merges the KV cache specs of all workers into global groups and checks them against
    the smallest worker's budget, ``v1/core/kv_cache_utils.py``; vllm#32105)."""
    if engine != "v1" or s.pp == 1 or not b.pp_check_whole_model:
        return lay
    whole = replace(s, pp=1)
    return _cached_layout(model, whole, b, engine, _stage_layout(model, whole, ck, b, 0, dr))


def _kv_cache(model: ModelShape, s: EngineSettings, lay: kv_layout.Layout, b: Behaviour, engine: str,
              available: float, band: float, length: _Length, batched: int, block: int,
              notes: list[str], check: kv_layout.Layout | None = None,
              check_available: float | None = None) -> _KvCache:
    """The KV cache configuration: with ``--max-model-len auto`` vLLM lowers max_model_len to what the
    cache holds; it splits the budget into blocks by the layout's groups (what it logs as "GPU KV cache
    size" and "Maximum concurrency") and checks one max_model_len request against it. ``check`` is the layout
    that check reads (:func:`_check_layout`; the cache's own by default) against ``check_available`` GiB."""
    avail_bytes = available * GIB
    check = lay if check is None else check
    check_bytes = avail_bytes if check_available is None else check_available * GIB
    model_limit, mml = length.model_limit, length.max_model_len
    if length.auto and b.max_model_len_auto:
        fit = kv_layout.longest_fitting(check, b, engine, check_bytes, batched, model_limit, block)
        if fit:
            mml = min(fit, model_limit)
            if mml < model_limit:
                notes.append(f"--max-model-len auto: vLLM lowers max_model_len to about {mml:,} tokens")
    plan = kv_layout.plan_kv_cache(lay, b, engine, avail_bytes, mml, batched, block)
    needed = kv_layout.bytes_needed(check, b, engine, mml, batched, block)
    fit_len = kv_layout.longest_fitting(check, b, engine, check_bytes, batched, max(model_limit, mml), block)
    fit_sure = kv_layout.longest_fitting(check, b, engine, check_bytes - band * GIB, batched,
                                         max(model_limit, mml), block)
    if check is not lay:
        notes.append(f"vLLM checks one request of {mml:,} tokens against the KV cache of all {model.num_hidden_layers} "
                     f"layers at PP {s.pp} ({needed / GIB:.2f} GiB), not one stage's (0.14-0.16, vllm#32105)")
    if plan.note:
        notes.append(plan.note)
    if lay.note:
        notes.append(lay.note)
    if model.mla is None and model.num_key_value_heads < s.tp:
        notes.append(f"{model.num_key_value_heads} KV heads < TP {s.tp}: each rank keeps a replica of one KV head")
    return _tuple_new(_KvCache, (mml, plan, needed, fit_len, fit_sure))


class MambaSeqs(NamedTuple):
    """``max_num_seqs`` against the blocks of a KV cache with state layers (:func:`mamba_seqs_check`)."""

    blocks: int  # vLLM's kv_cache_config.num_blocks, central estimate (0: not checked)
    blocks_sure: int  # ... at the low side of the KV budget's error band
    verdict: Verdict
    refusal: str  # vLLM's error where the central estimate refuses, else ""
    batch: int  # what vLLM compares with the blocks: max_num_seqs, or the largest full decode graph (0.14-0.17)


_NO_MAMBA_CHECK = MambaSeqs(0, 0, "starts", "", 0)


def full_decode_graphs(b: Behaviour, engine: str, s: EngineSettings) -> bool:
    """Whether V1 captures full decode CUDA graphs (``cudagraph_mode.has_full_cudagraphs()``): the release's default
    mode has them (``FULL_AND_PIECEWISE``, ``Behaviour.full_cudagraphs``) unless ``--enforce-eager`` (mode ``NONE``) or
    a ``--compilation-config`` ``cudagraph_mode`` of ``PIECEWISE`` or ``NONE`` says otherwise."""
    mode = (s.cudagraph_mode or "").upper()
    return engine == "v1" and b.full_cudagraphs and not s.enforce_eager and mode not in ("PIECEWISE", "NONE")


def checks_conv_batch(model: ModelShape) -> bool:
    """Whether the model's state layers check the decode batch against their cache lines before 0.18: a Gated
    DeltaNet (Qwen3-Next, Qwen3.5, Qwen3.6: config.json's ``linear_num_key_heads``) or KDA layer (Kimi Linear:
    ``linear_attn_config``) calls ``causal_conv1d_update`` with ``validate_data=True``."""
    cfg = model.hf_config
    return "linear_num_key_heads" in cfg or isinstance(cfg.get("linear_attn_config"), dict)


def mamba_seqs_check(model: ModelShape, lay: kv_layout.Layout, b: Behaviour, engine: str, s: EngineSettings,
                     seqs: int, scheduled: int, available: float, band: float, band_above: float, mml: int,
                     batched: int, block: int) -> MambaSeqs:
    """vLLM's check that each decode sequence has a Mamba cache block (0.20+, vllm#38270,
    ``CompilationConfig.resolve_cudagraph_mode_and_sizes``): with a state layer in the KV cache
    (``kv_cache_config.has_mamba_layers``: Mamba, Gated DeltaNet, KDA, short convolutions) and full decode CUDA
    graphs (:func:`full_decode_graphs`), it raises "max_num_seqs (N) exceeds available Mamba cache blocks (M)"
    where ``max_num_seqs`` > ``num_blocks``, the blocks one KV cache group holds (``available // page //
    group_size``, :func:`~shardwise.rules.vllm.kv_layout.plan_kv_cache`; the pages are unified with the attention
    layers', so a state's bytes set them). The blocks are counted at the central estimate and at each side of the
    KV budget's error band: it refuses for sure beyond the band, may refuse inside it. 0.18-0.19 cut the capture
    sizes to the blocks instead (it starts). 0.14-0.17 capture the full decode graphs up to ``min(max_num_seqs, 2 ×
    max_num_seqs, 512, max_num_batched_tokens)`` (``scheduled``; :func:`cudagraph_captures`), and a Gated DeltaNet or
    KDA layer (:func:`checks_conv_batch`) fails an assert on the largest above the blocks (``Behaviour.mamba_seqs``)."""
    if (b.mamba_seqs not in ("refused", "asserts") or not full_decode_graphs(b, engine, s)
            or not any(t.kind == "state" for t in lay.types)):
        return _NO_MAMBA_CHECK
    if b.mamba_seqs == "asserts":
        if not checks_conv_batch(model):
            return _NO_MAMBA_CHECK  # a Mamba mixer's decode does not check (vllm#34094: it reads out of bounds)
        full = cudagraph_captures(model, b, seqs, scheduled, s.cudagraph_mode)[1]
        seqs = max(full, default=0)  # the largest full decode graph captured

    def blocks(gib: float) -> int:
        return kv_layout.plan_kv_cache(lay, b, engine, max(gib, 0.0) * GIB, mml, batched, block).num_blocks

    central = blocks(available)
    low = blocks(available - band) if band else central
    high = blocks(available + band_above) if band_above else central
    verdict: Verdict = "refuses" if seqs > high else "may-refuse" if seqs > low else "starts"
    refusal = ""
    if seqs > central and b.mamba_seqs == "asserts":
        refusal = (f"the full decode CUDA graph of {seqs:,} sequences exceeds the {central:,} Mamba cache blocks the "
                   "KV cache holds (vLLM: AssertionError, num_cache_lines >= batch in causal_conv1d_update)")
    elif seqs > central:
        refusal = (f"max_num_seqs ({seqs:,}) exceeds the {central:,} Mamba cache blocks the KV cache holds (vLLM: "
                   f"max_num_seqs ({seqs}) exceeds available Mamba cache blocks ({central}))")
    return MambaSeqs(central, low, verdict, refusal, seqs)


def _kv_refusal(engine: str, available: float, kv: _KvCache) -> str:
    """vLLM's refusal of the KV cache (central estimate), or "": no memory left for any block; V0: fewer
    tokens than max_model_len; V1: one max_model_len request needs more than the budget."""
    if available <= 0:
        return "no memory is left for the KV cache (vLLM: No available memory for the cache blocks)"
    mml = kv.max_model_len
    if engine == "v0" and kv.plan.tokens < mml:
        return (f"the KV cache holds {kv.plan.tokens:,} tokens, fewer than max_model_len {mml:,} "
                f"(vLLM: The model's max seq len is larger than the maximum number of tokens that can "
                f"be stored in KV cache)")
    if engine == "v1" and kv.needed > available * GIB:
        return (f"one request of max_model_len {mml:,} tokens needs {kv.needed / GIB:.2f} GiB of KV cache, "
                f"more than the {available:.2f} GiB available")
    return ""


def exact_weights(model: ModelShape, precision: Precision, given: bool) -> bool:
    """Whether vLLM loads (nearly) exactly the weights shardwise counts, never materially fewer: an unquantised
    checkpoint (its bytes are parameters × dtype bytes) whose parameter count is the catalog's or its index's (not
    derived from config.json's shapes, not ``plan --weights-gib``), with nothing vLLM may leave unloaded: no vision
    or audio tower, no MTP module (loaded only for an MTP draft). The start-up logs hold it: 27 such rows, CUDA and
    ROCm, none more than 0.004 GiB below the estimate (docs/capacity-model.md, "The weights' band")."""
    if precision not in ("bf16", "fp16", "fp32") or given:
        return False
    memo = _facts(model)  # what the model alone decides, asked of every sizing and layout search: once a model
    whole = memo.get("exact_weights")
    if whole is None:
        whole = memo["exact_weights"] = (
            model.quantization is None and model.extra.get("params_source") != "derived" and not model.vision_params
            and not isinstance(model.hf_config.get("vision_config"), dict)
            and not isinstance(model.hf_config.get("audio_config"), dict)
            and not mtp_layers(model))
    return bool(whole)


def weights_band(weights: float, exact: bool, e: Estimates = DEFAULT_ESTIMATES) -> tuple[float, float]:
    """GiB by which vLLM may load fewer and more weights per GPU than ``weights``: more by ``weights_error`` of
    them + ``weights_error_gib`` (the logs: a vision tower 5.2 %, ROCm 2.1 %); fewer by as much for a checkpoint
    that is not :func:`exact_weights`, else by ``weights_error_below`` + ``weights_error_below_gib``."""
    above = weights * e.weights_error + e.weights_error_gib
    below = weights * e.weights_error_below + e.weights_error_below_gib if exact else above
    return below, above


def band_text(below: float, above: float, digits: int = 1, sep: str = "") -> str:
    """An error band as messages give it: ``±5.1`` when its two sides read alike at ``digits``, else
    ``−0.7/+2.9`` (how much less, how much more)."""
    lo, hi = f"{below:.{digits}f}", f"{above:.{digits}f}"
    return f"±{sep}{lo}" if lo == hi else f"−{sep}{lo}/+{hi}"


class _Weights(NamedTuple):
    """Whether the weights of one GPU fit the budget at all."""

    band: float  # GiB vLLM may load more than the estimate
    below: float  # ... and fewer
    fits: bool  # central estimate
    verdict: Verdict


def _weights_fit(weights: float, usable: float, exact: bool, e: Estimates, slack: float = 0.0) -> _Weights:
    """The weights of one GPU against the budget, with their own asymmetric band (:func:`weights_band`): they fit
    for sure when the heaviest they may be fits, and surely not when even the lightest does not. ``slack``: GiB they
    may be lighter besides (:func:`offload_overshoot_gib`)."""
    below, above = weights_band(weights, exact, e)
    below += slack
    verdict: Verdict = ("starts" if weights + above < usable else
                        "refuses" if weights - below > usable else "may-refuse")
    return _tuple_new(_Weights, (above, below, weights < usable, verdict))


def unified_memory_note(device: Device, util: float, measured: bool = False) -> str:
    """What the start-up of a device whose memory is the host's (GB10 of a DGX Spark, Jetson:
    :func:`~shardwise.rules.catalog.accelerators.unified_memory_product`) depends on beyond the manifest, or "" for a
    GPU with its own memory.

    vLLM's ``MemorySnapshot.measure`` (``vllm/utils/mem_utils.py``, read at commit a6d5c390) takes the free memory of
    compute capability 8.7, 11.0 and 12.1 devices (Orin, Thor, Spark) from ``psutil.virtual_memory().available``;
    ``cudaMemGetInfo``, which it replaces, reports the system's free memory there too (the source's comment). Two
    things follow. The worker refuses at start when that free memory is below ``gpu_memory_utilization`` × total
    ("Free memory on device ... on startup is less than desired GPU memory utilization"), so the host's other
    processes decide it. And the profile's non-torch term is the fall in that free memory since the instance was
    created, less what torch reserved, so whatever the host allocates while vLLM loads and profiles is taken from the
    KV budget: the set 10 and 13 GB10 logs (0.25.1, 0.13.0) keep 1.75 to 3.6 GiB more beside weights and KV cache
    than shardwise's GPU terms. A cold torch.compile is part of it: it runs in the engine process inside the profile
    (``profile_run``'s first forward pass, ``v1/worker/gpu_worker.py``), and what the budget loses is the fall in
    that free memory from the instance's creation to the end of the profile (``memory_profiling``: 0.13.0's
    ``non_torch_increase`` less what torch reserved, 0.29.0's ``total_consumed``), so Inductor's and Triton's host
    memory counts as if the GPU held it (eugr/spark-vllm-docker#286 reports up to 30 GB on a Spark). 0.29.0's CUDA-graph
    estimate (``profile_cudagraph_memory``, V1 and V2 runners) takes raw ``cudaMemGetInfo`` deltas, which on unified
    memory also fall with the page cache the capture fills. The host only takes from the budget, so a refusal
    shardwise predicts stands; a start and the KV figures are estimates the manifest cannot settle, and no term is
    fitted to those logs.

    An extensible KV cache (``measured``, 0.34+) skips the start-up check and is sized from the free memory measured
    after the warm-up, keeping only its own peak free: what the host allocates afterwards is not provided for (vLLM's
    own advice is to set ``gpu_memory_utilization`` on a unified-memory device: ``config/cache.py``; the free memory
    from ``psutil`` on an integrated GPU: ``utils/mem_utils.py`` ``device_memory_info``, 0.34.0)."""
    if not unified_memory_product(device.name):
        return ""
    if measured:
        return (f"{device.name} shares its memory with the host: vLLM's extensible KV cache (0.34+) is sized from "
                "the host's available RAM after the warm-up (psutil) and keeps only its own peak free, so "
                "what the host allocates later is not provided for; vLLM advises setting --gpu-memory-utilization on a "
                "unified-memory device. The KV figures are an upper estimate that depends on the host's free RAM")
    need = util * device.memory_gib
    return (f"{device.name} shares its memory with the host: vLLM reads free memory there from the host's available "
            f"RAM (psutil), so it starts only if the host has {need:.2f} GiB ({util:g} × {device.memory_gib:g}) free "
            "when the engine starts, and the KV budget also loses whatever the host allocates while vLLM loads and "
            "profiles (other processes, the engine's CPU-side memory, a cold torch.compile's host memory): the KV "
            "figures are an upper estimate that depends on the host's free RAM")


def _kv_verdict(certain: bool, engine: str, available: float, band: float, band_above: float,
                kv: _KvCache) -> Verdict:
    """vLLM's KV cache check with the error band: a certain refusal (or weights that surely exceed the budget)
    refuses; V0 compares the tokens the cache holds, V1 the bytes one max_model_len request needs, each with
    ``band`` taken off (it starts for sure) and ``band_above`` added (it refuses for sure)."""
    if certain:
        return "refuses"
    plan, mml, needed, avail_bytes = kv.plan, kv.max_model_len, kv.needed, available * GIB
    if engine == "v0":
        per_token = plan.page_bytes / plan.block_size * plan.group_layers if plan.block_size else 0
        low_tokens = plan.tokens - (band * GIB / per_token if per_token else 0)
        high_tokens = plan.tokens + (band_above * GIB / per_token if per_token else 0)
        return ("refuses" if high_tokens < mml or available + band_above <= 0 else
                "starts" if low_tokens >= mml and available - band > 0 else "may-refuse")
    return ("refuses" if needed > avail_bytes + band_above * GIB or available + band_above <= 0 else
            "starts" if needed <= avail_bytes - band * GIB and available - band > 0 else "may-refuse")


class _Load(NamedTuple):
    """The declared load against the KV cache."""

    context: int  # the expected context, at most max_model_len
    concurrency: float  # sequences of that context the cache holds
    tokens: int  # max_num_seqs × the expected context, block-rounded
    context_kv_gib: float  # KV cache one sequence of the expected context occupies
    headroom: float  # GiB of the KV budget left after max_num_seqs such sequences


def _declared_load(lay: kv_layout.Layout, b: Behaviour, engine: str, kv: _KvCache, batch: _Batch,
                   expected_context: int | None, available: float) -> _Load:
    """Not a vLLM step: ``max_num_seqs`` sequences of the expected context (p95 prompt + output, else
    max_model_len) against the cache vLLM built."""
    mml, plan = kv.max_model_len, kv.plan
    ctx = min(expected_context or mml, mml)
    per_ctx = _blocks(ctx, plan.block_size) * plan.block_size
    conc_ctx = kv_layout.concurrency_at(plan, ctx, batch.batched)
    context_kv = needed_for(lay, b, engine, ctx, batch.batched, plan.block_size) / GIB
    load_gib = batch.seqs * context_kv
    return _tuple_new(_Load, (ctx, conc_ctx, batch.seqs * per_ctx, context_kv, max(available, 0.0) - load_gib))


def needed_for(lay: kv_layout.Layout, b: Behaviour, engine: str, length: int, batched: int, block: int) -> int:
    """KV bytes one request of ``length`` tokens occupies (block-rounded, per GPU)."""
    return kv_layout.bytes_needed(lay, b, engine, length, batched, block)


def size_replica(
    model: ModelShape,
    gpu_memory_gib: float,
    *,
    tp: int = 1,
    pp: int = 1,
    dp: int = 1,
    expert_parallel: bool = False,
    gpu_memory_utilization: float | None = None,
    max_model_len: int | str | None = None,
    max_num_seqs: int | None = None,
    max_num_batched_tokens: int | None = None,
    expected_context: int | None = None,
    dtype: str = "auto",
    quantization: str | None = None,
    kv_cache_dtype: str = "auto",
    block_size: int | None = None,
    enforce_eager: bool = False,
    enable_chunked_prefill: bool | None = None,
    kv_cache_memory_bytes: int | None = None,
    weights_gib: float | None = None,
    gpu: GpuInfo | None = None,
    vllm_version: ResolvedVersion | str | None = None,
    estimates: Estimates = DEFAULT_ESTIMATES,
) -> ReplicaSizing:
    """:func:`size_deployment` with keyword arguments (the GPU by its memory, or ``gpu`` from the catalog)."""
    device = Device.of(gpu, gpu_memory_gib)
    settings = EngineSettings(
        tp=tp, pp=pp, dp=dp, expert_parallel=expert_parallel, gpu_memory_utilization=gpu_memory_utilization,
        max_model_len=max_model_len, max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
        dtype=dtype, quantization=quantization, kv_cache_dtype=kv_cache_dtype, block_size=block_size,
        enforce_eager=enforce_eager, enable_chunked_prefill=enable_chunked_prefill,
        kv_cache_memory_bytes=kv_cache_memory_bytes,
    )
    return size_deployment(model, device, settings, vllm_version, expected_context=expected_context,
                           weights_gib=weights_gib, estimates=estimates)


def min_gpus(
    model: ModelShape,
    gpu_memory_gb: float,
    precision: Precision,
    kv_reserve: float = 1.4,
    usable: float = 0.90,
    weights_gib: float | None = None,
) -> dict:
    """``gpus_needed`` for this model's weights at ``precision`` on this GPU."""
    from .seeds import gpus_needed  # start-up: see _SEED_NAMES

    model_gb = weights_gib * GIB / GB if weights_gib is not None else weights_gb(model, precision)
    return gpus_needed(model_gb=model_gb, gpu_gb=gpu_memory_gb, kv_overhead=kv_reserve, usable=usable)


#: the rule-of-thumb functions of :mod:`.seeds`, public names of this module too, imported on first use
#: (:func:`__getattr__`): a lint never calls them, and its start-up paid for the module
_SEED_NAMES = frozenset({
    "autoscale",
    "concurrency",
    "gpus_needed",
    "kv_per_req",
    "kv_per_req_gib",
    "max_concurrent_requests",
    "per_request_kv_gb",
    "plan_cost",
    "topology",
    "tp_comm_gib_per_tok",
    "tp_weight_gib",
    "validate",
    "validate_per_gpu",
})


def _seed_attribute(name: str) -> Any:
    """The names of :data:`_SEED_NAMES`, from :mod:`.seeds` on first use (PEP 562); any other name is missing."""
    if name in _SEED_NAMES:
        # by name: inside a function the compiled module's ``from . import seeds`` gave None
        seeds = importlib.import_module("shardwise.rules.capacity.seeds")
        value = globals()[name] = getattr(seeds, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    def __getattr__(name: str) -> Any: ...
# set as the module's __getattr__ once its body has run, not defined as one: the module compiled by mypyc
# (scripts/build-mypyc.sh) calls a module-level __getattr__ while it is set up, before its globals exist
globals()["__getattr__"] = _seed_attribute
