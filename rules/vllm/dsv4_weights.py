"""DeepSeek-V4's parameters and weight bytes on one GPU, as vLLM 0.20.0 builds the model.

Read in the vLLM 0.20.0 wheel (``vllm/model_executor/models/deepseek_v4.py``, ``layers/deepseek_v4_attention.py``,
``layers/deepseek_compressor.py``, ``layers/quantization/fp8.py`` and ``mxfp4.py``,
``layers/fused_moe/router/gate_linear.py``, ``layers/layernorm.py``). A checkpoint whose ``quantization_config`` is
``fp8`` is loaded as ``deepseek_v4_fp8`` (``DeepseekV4ForCausalLMConfig``): every linear layer built with the
quantisation config is FP8 in 128 x 128 blocks with one e8m0 scale byte a block (``DeepseekV4FP8Config``,
``is_scale_e8m0``), the routed experts MXFP4 (``Mxfp4MoEMethod``: two values a byte and a uint8 scale per 32).
What each decoder layer builds, ``r`` its ``max(1, compress_ratios[i])``:

* attention: ``fused_wqa_wkv`` (hidden -> q_lora_rank + head_dim, FP8, replicated: ``disable_tp``), ``q_norm``,
  ``kv_norm``, ``wq_b`` (q_lora_rank -> heads x head_dim, FP8, split by TP), ``wo_a`` (heads x head_dim / o_groups ->
  o_groups x o_lora_rank, FP8, split), ``wo_b`` (o_groups x o_lora_rank -> hidden, FP8, split), an attention sink
  of ``max(heads / TP, 64)`` float32 values a rank;
* r > 1: a compressor (``ape`` r x coff x head_dim float32, ``fused_wkv_wgate`` hidden -> 2 x coff x head_dim
  16-bit and replicated, ``norm``; coff 2 at r = 4, else 1);
* r = 4: an indexer (``wq_b`` q_lora_rank -> index heads x index_head_dim, FP8, replicated; ``weights_proj`` hidden ->
  index heads, 16-bit; ``k_norm``, a LayerNorm with weight and bias in float32) with its own compressor at
  index_head_dim;
* the MoE: a ``GateLinear`` router (experts x hidden, 16-bit, replicated), a float32 correction bias (``noaux_tc``)
  or, on the first ``num_hash_layers`` layers, an int32 vocabulary x top-k ``tid2eid`` table; the shared expert
  (FP8, split); the routed experts (MXFP4, split by TP);
* two norms and the hyper-connection mixers (``hc_attn_fn`` / ``hc_ffn_fn`` of (2 + hc_mult) x hc_mult rows of
  hc_mult x hidden, their bases and three scales each, float32).

Around them: the embedding and the untied LM head (16-bit, split by TP), the final norm and ``hc_head_*`` (float32).
The MTP layer is not loaded without a speculative MTP draft (its weights are skipped). 16-bit is the checkpoint's
``torch_dtype`` (bfloat16); norms are built at it except the LayerNorm.

Not modelled: expert parallelism and the MegaMoE experts (``--enable-expert-parallel`` with ``deep_gemm_mega_moe``),
backends that pad the MXFP4 experts, TP sizes that do not divide the heads, groups or expert width (vLLM asserts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .dsv4_cache import layer_ratios

FP8_BLOCK = 128
MXFP4_GROUP = 32


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _fp8_bytes(out_features: int, in_features: int) -> int:
    """An FP8 block-quantised linear layer's weight and its e8m0 scale byte per 128 x 128 block."""
    return out_features * in_features + _cdiv(out_features, FP8_BLOCK) * _cdiv(in_features, FP8_BLOCK)


def _cfg_int(cfg: dict[str, Any], key: str) -> int:
    v = cfg.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"a DeepSeek-V4 config.json needs an integer {key}")
    return v


@dataclass(frozen=True)
class Dsv4Weights:
    """Parameters (as vLLM builds them, the integer routing tables apart) and bytes on one GPU."""

    params: int
    expert_params: int
    bytes_per_gpu: int


def weights(cfg: dict[str, Any], tp: int = 1) -> Dsv4Weights:
    """DeepSeek-V4's weights at tensor-parallel size ``tp`` (no expert or data parallelism)."""
    h = _cfg_int(cfg, "hidden_size")
    heads, head = _cfg_int(cfg, "num_attention_heads"), _cfg_int(cfg, "head_dim")
    q_lora, o_lora, groups = _cfg_int(cfg, "q_lora_rank"), _cfg_int(cfg, "o_lora_rank"), _cfg_int(cfg, "o_groups")
    vocab, experts = _cfg_int(cfg, "vocab_size"), _cfg_int(cfg, "n_routed_experts")
    width, top_k = _cfg_int(cfg, "moe_intermediate_size"), _cfg_int(cfg, "num_experts_per_tok")
    shared = width * _cfg_int(cfg, "n_shared_experts")
    hc = _cfg_int(cfg, "hc_mult")
    index_heads, index_head = _cfg_int(cfg, "index_n_heads"), _cfg_int(cfg, "index_head_dim")
    hash_layers = _cfg_int(cfg, "num_hash_layers")
    if cfg.get("tie_word_embeddings"):
        raise ValueError("DeepSeek-V4's LM head is its own (ParallelLMHead); a tied config is not one vLLM builds")
    for name, value in (("heads", heads), ("o_groups", groups), ("experts' width", width), ("vocabulary", vocab)):
        if value % tp:
            raise ValueError(f"TP {tp} does not divide the {name} ({value})")
    noaux = cfg.get("topk_method") == "noaux_tc"
    mix, hc_dim = (2 + hc) * hc, hc * h
    params = expert_params = 0
    b16 = b32 = fp8 = 0  # bytes on one rank by kind
    b_int = 0
    for i, r in enumerate(layer_ratios(cfg)):
        # attention
        params += h * (q_lora + head) + q_lora + head + q_lora * heads * head + heads * head * o_lora + \
            groups * o_lora * h + heads
        fp8 += _fp8_bytes(q_lora + head, h) + _fp8_bytes(heads * head // tp, q_lora) + \
            _fp8_bytes(groups * o_lora // tp, heads * head // groups) + _fp8_bytes(h, groups * o_lora // tp)
        b16 += 2 * (q_lora + head)
        b32 += 4 * max(heads // tp, 64)
        if r > 1:
            coff = 2 if r == 4 else 1
            params += r * coff * head + h * 2 * coff * head + head
            b32 += 4 * r * coff * head
            b16 += 2 * (h * 2 * coff * head + head)
        if r == 4:
            params += q_lora * index_heads * index_head + h * index_heads + 2 * index_head
            params += 4 * 2 * index_head + h * 2 * 2 * index_head + index_head
            fp8 += _fp8_bytes(index_heads * index_head, q_lora)
            b16 += 2 * (h * index_heads + h * 2 * 2 * index_head + index_head)
            b32 += 4 * (2 * index_head + 4 * 2 * index_head)
        # MoE
        params += experts * h + 3 * h * shared
        b16 += 2 * experts * h
        fp8 += _fp8_bytes(2 * shared // tp, h) + _fp8_bytes(h, shared // tp)
        if i < hash_layers:
            b_int += 4 * vocab * top_k
        elif noaux:
            params += experts
            b32 += 4 * experts
        expert_params += experts * 3 * h * width
        # norms and hyper-connections
        params += 2 * h + 2 * (mix * hc_dim + mix + 3)
        b16 += 2 * 2 * h
        b32 += 4 * 2 * (mix * hc_dim + mix + 3)
    params += expert_params + 2 * vocab * h + h + hc * hc_dim + hc + 1
    b16 += 2 * (2 * vocab * h // tp + h)
    b32 += 4 * (hc * hc_dim + hc + 1)
    # every decoder layer is a MoE layer (no first_k_dense_replace); each rank holds every expert's 1 / TP
    per_rank_width = width // tp
    mxfp4 = len(layer_ratios(cfg)) * experts * (2 * per_rank_width * (h // 2 + h // MXFP4_GROUP) +
                                                h * (per_rank_width // 2 + per_rank_width // MXFP4_GROUP))
    return Dsv4Weights(params, expert_params, b16 + b32 + fp8 + b_int + mxfp4)
