"""The capacity model: weights, KV cache and headroom per GPU for one vLLM replica.

Every figure is per GPU unless its name says otherwise. GiB = 2**30 bytes, GB = 10**9 bytes.

Formulas (see DESIGN.md, "The capacity model"):

* weights per GPU = (embedding params × 2 B + other params × bytes per param) ÷ (TP × PP).
  Embeddings and the LM head stay in 16-bit when the linear layers are quantised; 4-bit AWQ/GPTQ
  carries a 16-bit scale and a 4-bit zero point per group of 128 weights (+2.5 B / 128 weights).
* KV bytes per token per GPU = 2 × ceil(layers ÷ PP) × max(1, ceil(kv_heads ÷ TP)) × head_dim ×
  KV-dtype bytes. Multi-head latent attention (DeepSeek-V2/V3/R1) stores one latent of
  ``kv_lora_rank + qk_rope_head_dim`` per layer and token, which TP does not split.
* KV budget per GPU = GPU memory × gpu_memory_utilization − weights − activation peak − non-torch
  memory − CUDA graphs.
* KV capacity in tokens = floor(budget ÷ (block_size × bytes per token)) × block_size.
* max concurrency at full context = capacity ÷ max_model_len; vLLM refuses to start when capacity
  is below max_model_len.

The activation peak and non-torch memory are *estimates* (vLLM measures them by profiling one
forward pass at start-up); their coefficients live in :class:`Assumptions` and are documented
there. The seed documents' functions are re-exported here unchanged.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .catalog.types import ModelShape, Precision
from .seeds import (  # noqa: F401  (public API: the seed functions)
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

GIB = 1024**3
GB = 10**9

#: vLLM's default for ``--max-num-seqs`` on GPUs.
DEFAULT_MAX_NUM_SEQS = 256
#: vLLM's default token budget per scheduler step with chunked prefill on data-centre GPUs.
DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
DEFAULT_BLOCK_SIZE = 16

#: Bytes per parameter of the (quantised) linear layers.
BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5 + 2.5 / 128,  # AWQ/GPTQ, group 128: fp16 scale + 4-bit zero point per group
    "mxfp4": 0.5 + 1 / 32,  # e8m0 scale per 32 weights
    "nvfp4": 0.5 + 1 / 16,  # fp8 scale per 16 weights
}

QUANTIZATION_PRECISION: dict[str, Precision] = {
    "awq": "int4",
    "awq_marlin": "int4",
    "gptq": "int4",
    "gptq_marlin": "int4",
    "bitsandbytes": "int4",
    "fp8": "fp8",
    "fbgemm_fp8": "fp8",
    "modelopt": "fp8",
    "int8": "int8",
    "w8a8": "int8",
    "mxfp4": "mxfp4",
    "nvfp4": "nvfp4",
}

DTYPE_PRECISION: dict[str, Precision] = {
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "fp16",
    "fp16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "fp32": "fp32",
}


@dataclass(frozen=True)
class Assumptions:
    """Documented estimates for what vLLM measures at start-up.

    * ``activation_*``: peak activation of one profiling forward pass ≈ batched tokens ×
      (4 × hidden + 2 × MLP width per rank) × 2 bytes, plus fp32 logits for ``max_num_seqs`` × vocab.
    * ``non_torch_*``: memory outside PyTorch's allocator (CUDA context, cuBLAS workspaces, NCCL
      and custom all-reduce buffers). It grows with the number of ranks the GPU talks to.
    * ``cuda_graph_gib``: captured CUDA graphs (0 with ``enforce_eager``).
    """

    non_torch_base_gib: float = 0.4
    non_torch_per_peer_gib: float = 0.15
    non_torch_pipeline_gib: float = 0.25
    cuda_graph_gib: float = 0.5
    activation_hidden_factor: int = 4
    activation_mlp_factor: int = 2
    activation_bytes: int = 2
    logits_bytes: int = 4


DEFAULT_ASSUMPTIONS = Assumptions()


def weight_precision(model: ModelShape, dtype: str = "auto", quantization: str | None = None) -> Precision:
    """Precision of the linear-layer weights vLLM will load.

    ``--quantization`` wins, then a quantised checkpoint's own precision, then ``--dtype``.
    """
    if quantization:
        q = quantization.lower()
        if q in QUANTIZATION_PRECISION:
            return QUANTIZATION_PRECISION[q]
    if model.precision not in ("bf16", "fp16", "fp32"):
        return model.precision
    if dtype and dtype != "auto":
        return DTYPE_PRECISION.get(dtype.lower(), model.precision)
    return model.precision


def activation_dtype_bytes(model: ModelShape, dtype: str = "auto") -> int:
    if dtype and dtype != "auto":
        return 4 if DTYPE_PRECISION.get(dtype.lower()) == "fp32" else 2
    return 4 if model.torch_dtype == "float32" else 2


def weights_bytes(model: ModelShape, precision: Precision) -> float:
    """Bytes of all weights of the model at ``precision``."""
    bpp = BYTES_PER_PARAM[precision]
    if bpp >= 2.0:
        return model.params * bpp
    embed = min(model.embedding_params, model.params)
    return embed * 2.0 + (model.params - embed) * bpp


def weights_gb(model: ModelShape, precision: Precision) -> float:
    """Weights of the whole model in decimal GB (the seeds' ``model_gb``)."""
    return weights_bytes(model, precision) / GB


def kv_bytes_per_token_per_gpu(model: ModelShape, tp: int = 1, pp: int = 1, kv_bytes: int = 2) -> int:
    """KV-cache bytes one token occupies on one GPU of a TP × PP replica."""
    layers = math.ceil(model.num_hidden_layers / pp)
    if model.mla is not None:
        return layers * (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * kv_bytes
    heads = max(1, math.ceil(model.num_key_value_heads / tp))
    return 2 * layers * heads * model.head_dim * kv_bytes


def kv_dtype_bytes(model: ModelShape, kv_cache_dtype: str = "auto", dtype: str = "auto") -> int:
    """fp8 KV caches store one byte per element; ``auto`` follows the activation dtype."""
    if kv_cache_dtype and kv_cache_dtype.lower().startswith("fp8"):
        return 1
    return activation_dtype_bytes(model, dtype)


def activation_peak_gib(
    model: ModelShape,
    tp: int,
    max_num_batched_tokens: int,
    max_num_seqs: int,
    a: Assumptions = DEFAULT_ASSUMPTIONS,
) -> float:
    """Estimated activation peak of vLLM's profiling pass, per GPU."""
    if model.moe is not None:
        mlp = model.moe.experts_per_token * model.moe.moe_intermediate_size
        mlp += model.moe.shared_experts * model.moe.moe_intermediate_size
        mlp = mlp or model.intermediate_size
    else:
        mlp = model.intermediate_size
    per_token = a.activation_hidden_factor * model.hidden_size + a.activation_mlp_factor * mlp / tp
    acts = max_num_batched_tokens * per_token * a.activation_bytes
    logits = max_num_seqs * model.vocab_size * a.logits_bytes
    return (acts + logits) / GIB


def non_torch_gib(tp: int, pp: int, enforce_eager: bool = False, a: Assumptions = DEFAULT_ASSUMPTIONS) -> float:
    """Estimated memory outside PyTorch per GPU, CUDA graphs included."""
    gib = a.non_torch_base_gib + a.non_torch_per_peer_gib * (tp - 1)
    if pp > 1:
        gib += a.non_torch_pipeline_gib
    if not enforce_eager:
        gib += a.cuda_graph_gib
    return gib


@dataclass(frozen=True)
class ReplicaSizing:
    """The sizing of one replica (TP × PP GPUs) of one model on one GPU type."""

    model_id: str
    tensor_parallel_size: int
    pipeline_parallel_size: int
    gpus: int
    gpu_memory_gib: float
    gpu_memory_utilization: float
    weight_precision: str
    kv_cache_dtype_bytes: int
    weights_gb_total: float
    weights_gib_per_gpu: float
    activation_gib_per_gpu: float
    non_torch_gib_per_gpu: float
    usable_gib_per_gpu: float
    kv_cache_gib_per_gpu: float
    kv_bytes_per_token_per_gpu: int
    block_size: int
    kv_cache_tokens: int
    max_model_len: int
    max_num_seqs: int
    expected_context: int
    max_concurrency: int  # at full max_model_len
    concurrency_at_expected_context: int
    load_tokens: int  # max_num_seqs × expected context, block-rounded
    weights_fit: bool
    starts: bool
    headroom_gib_per_gpu: float  # KV budget left after the declared load
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        d = asdict(self)
        d["notes"] = list(self.notes)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 3)
        return d


def _blocks(tokens: int, block: int) -> int:
    return -(-tokens // block)


def size_replica(
    model: ModelShape,
    gpu_memory_gib: float,
    *,
    tp: int = 1,
    pp: int = 1,
    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION,
    max_model_len: int | None = None,
    max_num_seqs: int | None = None,
    max_num_batched_tokens: int | None = None,
    expected_context: int | None = None,
    dtype: str = "auto",
    quantization: str | None = None,
    kv_cache_dtype: str = "auto",
    block_size: int = DEFAULT_BLOCK_SIZE,
    enforce_eager: bool = False,
    weights_gib: float | None = None,
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
) -> ReplicaSizing:
    """Size one replica. ``weights_gib`` overrides the computed weights of the whole model."""
    if tp < 1 or pp < 1:
        raise ValueError("tensor and pipeline parallel sizes must be at least 1")
    seqs = max_num_seqs or DEFAULT_MAX_NUM_SEQS
    mml = max_model_len or model.max_position_embeddings
    ctx = min(expected_context or mml, mml)
    batched = max_num_batched_tokens or max(DEFAULT_MAX_NUM_BATCHED_TOKENS, 0)
    precision = weight_precision(model, dtype, quantization)
    notes: list[str] = []
    if weights_gib is not None:
        total_bytes = weights_gib * GIB
        notes.append(f"weights given as {weights_gib} GiB for the whole model")
    else:
        total_bytes = weights_bytes(model, precision)
    w = total_bytes / (tp * pp) / GIB
    kvb = kv_dtype_bytes(model, kv_cache_dtype, dtype)
    per_tok = kv_bytes_per_token_per_gpu(model, tp, pp, kvb)
    act = activation_peak_gib(model, tp, batched, seqs, assumptions)
    nt = non_torch_gib(tp, pp, enforce_eager, assumptions)
    usable = gpu_memory_gib * gpu_memory_utilization
    kv_gib = usable - w - act - nt
    if kv_gib > 0:
        tokens = int((kv_gib * GIB) // (block_size * per_tok)) * block_size
    else:
        tokens = 0
    load_tokens = seqs * _blocks(ctx, block_size) * block_size
    per_seq_full = _blocks(mml, block_size) * block_size
    per_seq_ctx = _blocks(ctx, block_size) * block_size
    headroom = kv_gib - load_tokens * per_tok / GIB
    if model.mla is None and model.num_key_value_heads < tp:
        notes.append(
            f"{model.num_key_value_heads} KV heads < TP {tp}: each rank keeps a replica of one KV head"
        )
    return ReplicaSizing(
        model_id=model.id,
        tensor_parallel_size=tp,
        pipeline_parallel_size=pp,
        gpus=tp * pp,
        gpu_memory_gib=gpu_memory_gib,
        gpu_memory_utilization=gpu_memory_utilization,
        weight_precision=precision,
        kv_cache_dtype_bytes=kvb,
        weights_gb_total=total_bytes / GB,
        weights_gib_per_gpu=w,
        activation_gib_per_gpu=act,
        non_torch_gib_per_gpu=nt,
        usable_gib_per_gpu=usable,
        kv_cache_gib_per_gpu=max(kv_gib, 0.0),
        kv_bytes_per_token_per_gpu=per_tok,
        block_size=block_size,
        kv_cache_tokens=tokens,
        max_model_len=mml,
        max_num_seqs=seqs,
        expected_context=ctx,
        max_concurrency=tokens // per_seq_full if per_seq_full else 0,
        concurrency_at_expected_context=tokens // per_seq_ctx if per_seq_ctx else 0,
        load_tokens=load_tokens,
        weights_fit=w < usable,
        starts=w < usable and tokens >= mml,
        headroom_gib_per_gpu=headroom,
        notes=tuple(notes),
    )


def min_gpus(
    model: ModelShape,
    gpu_memory_gb: float,
    precision: Precision,
    kv_reserve: float = 1.4,
    usable: float = 0.90,
    weights_gib: float | None = None,
) -> dict:
    """The seeds' ``gpus_needed`` for this model's weights at ``precision`` on this GPU."""
    model_gb = weights_gib * GIB / GB if weights_gib is not None else weights_gb(model, precision)
    return gpus_needed(model_gb=model_gb, gpu_gb=gpu_memory_gb, kv_overhead=kv_reserve, usable=usable)
