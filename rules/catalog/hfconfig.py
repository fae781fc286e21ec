"""Hugging Face ``config.json`` files: shapes, parameter counts and weight precision.

:func:`load_local_model` turns a ``config.json`` (and the ``model.safetensors.index.json`` beside
it) into a :class:`~shardwise.rules.model.shapes.ModelShape`; :func:`derive_params` counts the
parameters a config implies, vision tower included; :func:`weight_bytes_per_param` gives the bytes
a quantised checkpoint stores per weight, its scales and zero points included. Standard library
only: this module is on the lint path.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from ..model.errors import CatalogError, InputError
from ..model.files import read_file_bytes
from ..model.shapes import MlaShape, ModelShape, MoeShape, Precision
from ..vllm.nas import block_params, nas_blocks

# Defaults for keys a model family's config.json may leave out (the transformers config class
# defaults). Gemma 3 multimodal checkpoints omit most of their text_config.
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 131_072,
        "tie_word_embeddings": True,
    },
    "gemma3": {"tie_word_embeddings": True},
    # Gemma4TextConfig's defaults (transformers, checkpoint google/gemma-4-e2b-it)
    "gemma4_text": {
        "vocab_size": 262_144,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 30,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 131_072,
        "sliding_window": 512,
        "tie_word_embeddings": True,
    },
    "gemma4": {"tie_word_embeddings": True},
    "gemma2": {"tie_word_embeddings": True, "head_dim": 256},
    "gemma": {"tie_word_embeddings": True, "head_dim": 256},
    "falcon": {"tie_word_embeddings": True, "max_position_embeddings": 2048},
    "opt": {"tie_word_embeddings": True},
}

# Vision encoders' config defaults (transformers' SiglipVisionConfig, Qwen2_5_VLVisionConfig, ...).
_VISION_DEFAULTS: dict[str, dict[str, Any]] = {
    # KimiK25VisionConfig's defaults (vLLM's vllm/transformers_utils/configs/kimi_k25.py, 0.20.0): MoonViT
    "kimi_k25_vision": {
        "patch_size": 14, "init_pos_emb_height": 64, "init_pos_emb_width": 64, "num_hidden_layers": 27,
        "hidden_size": 1152, "intermediate_size": 4304, "merge_kernel_size": [2, 2],
    },
    "siglip_vision_model": {
        "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "num_channels": 3,
        "image_size": 224, "patch_size": 16,
    },
    "qwen2_5_vl": {
        "depth": 32, "hidden_size": 3584, "intermediate_size": 3420, "in_channels": 3, "patch_size": 14,
        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 3584,
    },
    "pixtral": {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24, "num_channels": 3,
                "patch_size": 16},
    "qwen3_vl": {
        "depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "in_channels": 3, "patch_size": 16,
        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 3584, "num_position_embeddings": 2304,
        "deepstack_visual_indexes": [8, 16, 24],
    },
    # Qwen3_5VisionConfig: Qwen3-VL's tower without the deepstack mergers
    "qwen3_5_vision": {
        "depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "in_channels": 3, "patch_size": 16,
        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 3584, "num_position_embeddings": 2304,
        "deepstack_visual_indexes": [],
    },
    # Glm4vMoeVisionConfig's defaults (transformers' configuration_glm4v_moe.py at 008e5743); GLM-4.5V's config.json
    # sets intermediate_size 10944 (its merger's width)
    "glm4v_vision": {
        "depth": 24, "hidden_size": 1536, "intermediate_size": 13696, "in_channels": 3, "image_size": 336,
        "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 4096,
    },
    "llama4_vision_model": {
        "hidden_size": 768, "intermediate_size": 5632, "num_hidden_layers": 34, "num_channels": 3,
        "image_size": 448, "patch_size": 14, "projector_input_dim": 4096, "projector_output_dim": 4096,
        "pixel_shuffle_ratio": 0.5, "vision_output_dim": 7680,
    },
}

# Families whose MLP is two matrices (up, down) with a GELU/ReLU between, not a gated three.
_UNGATED_MLP = frozenset({"phi", "opt", "falcon", "gpt2", "gpt_neox", "gpt_bigcode", "starcoder2", "gptj", "bloom"})
# Families whose norms are LayerNorm (weight and bias) instead of RMSNorm (weight only).
_LAYERNORM = frozenset({"phi", "opt", "falcon", "gpt2", "gpt_neox", "gpt_bigcode", "starcoder2", "gptj", "bloom"})
# Families with a learned weight per head dimension on q and k (QK-norm).
_QK_NORM = frozenset({"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text", "qwen3_5_text", "qwen3_5_moe_text",
                      "qwen3_vl_text", "qwen3_vl_moe_text", "qwen3_omni_moe_text"})
# GLM-4.5's MoE decoder, and GLM-4.5V's text tower, which is GLM-4.5-Air's (q/k/v biases without an o_proj bias, a
# score-correction bias on every router)
_GLM4_MOE = frozenset({"glm4_moe", "glm4v_moe_text"})
# Families whose layers are Gated DeltaNet linear attention except every ``full_attention_interval``-th
# (Qwen3-Next; Qwen3.5 and Qwen3.6, whose text config inherits Qwen3-Next's).
_HYBRID_LINEAR = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})
# Families whose QK-norm is one RMSNorm over all query heads and one over all key heads (not one head's width):
# OLMo 2 and OLMo 3 (vLLM's ``Olmo2Attention``, which builds both: ``q_norm`` of ``hidden_size``, ``k_norm`` of
# ``num_key_value_heads x head_dim``, ``model_executor/models/olmo2.py``)
_QK_NORM_ALL_HEADS = frozenset({"olmo2", "olmo3"})

DTYPE_PRECISION: dict[str, Precision] = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "float8_e4m3fn": "fp8",
}
_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, "float8_e4m3fn": 1}


#: config.json keys kept verbatim on :attr:`ModelShape.hf_config` (plus every ``linear_*`` key).
HF_CONFIG_KEYS = frozenset({
    "model_type", "architectures", "sliding_window", "layer_types", "sliding_window_pattern",
    "attention_chunk_size", "no_rope_layers", "use_sliding_window", "max_window_layers",
    "full_attention_interval", "rope_scaling", "rope_theta", "max_position_embeddings", "vision_config",
    # transformers 5's name for rope_theta and rope_scaling together, which vLLM reads from 0.12.0 (the context limit,
    # weights.derived_max_model_len; a multimodal RoPE's mrope_section, sizing.mrope; kv_layout.rotary_dim)
    "rope_parameters",
    "quantization_config", "interleaved_sliding_window", "attention_type", "mamba_d_state",
    "original_max_position_embeddings", "mm_tokens_per_image", "spatial_merge_size",
    # which layers are mixture-of-experts: expert parallelism spreads only those (capacity model)
    "first_k_dense_replace", "interleave_moe_layer_step", "decoder_sparse_step", "mlp_only_layers",
    "moe_layer_start_index",
    # attention layouts the KV model names as not modelled (kv_layout.unmodelled_reason)
    "compress_ratios", "global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "num_kv_shared_layers",
    "hybrid_override_pattern", "layers_block_type", "attn_type_list",
    # Gemma 4's bidirectional attention over images: vLLM's default token budget holds a whole item (sizing)
    "use_bidirectional_attention",
    # DeepSeek-V3.2-style sparse-attention indexer (its keys are cached beside the MLA latent)
    "index_head_dim", "index_n_heads", "index_topk",
    # Mamba2 mixers' state per request (kv_layout.mamba2_state_bytes): Nemotron-H's and Granite 4.0-H's spellings
    "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel", "expand",
    "mamba_ssm_cache_dtype", "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_num_groups",
    "mamba_d_conv", "mamba_expand",
    # Nemotron 3 Super / Ultra: LatentMoE's expert width (derive_params, expert parallelism, replicated projections)
    "moe_latent_size",
    # Granite 4.0: every layer's shared MLP beside the experts (derive_params)
    "shared_intermediate_size",
    # Jamba: where its attention and expert layers are, and its Mamba1 mixers
    "attn_layer_period", "attn_layer_offset", "expert_layer_period", "expert_layer_offset", "mamba_dt_rank",
    "mamba_conv_bias", "mamba_proj_bias",
    # Kimi Linear: which layers are KDA (linear attention) and their heads; Kimi-K3's LatentMoE width (expert
    # parallelism, replicated projections), its NoPE MLA (no rotary cache) and its q LoRA (replicated q_a_proj)
    "linear_attn_config", "routed_expert_hidden_size", "mla_use_nope", "q_lora_rank",
    # Llama-Nemotron (DeciLM, NAS): each layer's attention (or none) and MLP width
    "block_configs",
    # LFM2 / LFM2.5 (Liquid AI): the short-convolution layers' state per request (kv_layout.short_conv_state_bytes),
    # the first layers' dense MLP of the MoE variant
    "conv_L_cache", "conv_dim", "num_dense_layers",
    # and the keys its dense MLP width is computed from (the shape's intermediate_size is the width vLLM builds)
    "block_ff_dim", "block_auto_adjust_ff_dim", "block_ffn_dim_multiplier", "block_multiple_of",
})


def hf_config_of(config: dict[str, Any]) -> dict[str, Any]:
    """The keys of a config.json (``text_config`` merged over the top level) vLLM reads verbatim."""
    cfg = text_config(config)
    kept = {k: v for k, v in cfg.items() if k in HF_CONFIG_KEYS or k.startswith("linear_")}
    if isinstance(kept.get("vision_config"), dict):
        kept["vision_config"] = _vision_sizing_keys(kept["vision_config"])
    return kept


_VISION_SIZING_KEYS = frozenset({
    "model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "depth", "num_attention_heads",
    "num_heads", "image_size", "patch_size", "spatial_merge_size", "temporal_patch_size", "out_hidden_size",
    "window_size", "fullatt_block_indexes", "projector_input_dim", "projector_output_dim",
    "pixel_shuffle_ratio", "vision_output_dim", "num_channels", "in_channels", "in_chans", "head_dim",
    "mm_tokens_per_image", "vision_use_head", "num_position_embeddings", "deepstack_visual_indexes",
})


def _vision_sizing_keys(vision: dict[str, Any]) -> dict[str, Any]:
    """The vision_config keys that size the encoder (its weights and the tokens an image becomes)."""
    return {k: v for k, v in vision.items() if k in _VISION_SIZING_KEYS}


#: Sub-configs of an omni checkpoint that vLLM does not load (it serves the thinker only).
_OMNI_UNLOADED = ("talker_config", "token2wav_config", "code2wav_config")


def thinker_config(config: dict[str, Any]) -> dict[str, Any]:
    """The part of the config vLLM serves: an omni checkpoint's ``thinker_config`` (Qwen2.5-Omni, Qwen3-Omni:
    vLLM registers ``Qwen2_5OmniModel`` as ``Qwen2_5OmniThinkerForConditionalGeneration``) over the top level
    without the talker and the code-to-wave model; any other config as it is."""
    thinker = config.get("thinker_config")
    if not isinstance(thinker, dict):
        return config
    merged = {k: v for k, v in config.items() if k != "thinker_config" and k not in _OMNI_UNLOADED}
    merged.update(thinker)
    return merged


#: Defaults of the text config a multimodal checkpoint builds its decoder from, by the checkpoint's top-level
#: ``model_type``, where the published config.json writes only the keys that differ from them. Qwen2-Audio
#: (``Qwen2AudioConfig`` builds ``text_config`` as a ``Qwen2Config``): transformers' ``Qwen2Config`` defaults, the
#: 7B's shape (Qwen/Qwen2-Audio-7B(-Instruct)'s text_config states only vocabulary, FFN width, positions and rope).
_COMPOSITE_TEXT_DEFAULTS: dict[str, dict[str, Any]] = {
    "qwen2_audio": {
        "vocab_size": 151_936, "hidden_size": 4096, "intermediate_size": 22_016, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 32, "max_position_embeddings": 32_768,
        "tie_word_embeddings": False, "rope_theta": 10_000.0, "use_sliding_window": False, "sliding_window": 4096,
    },
}


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The decoder's config: ``text_config`` merged over the top level (multimodal checkpoints), an omni
    checkpoint's thinker's."""
    config = thinker_config(config)
    merged = dict(config)
    text = config.get("text_config")
    composite = _COMPOSITE_TEXT_DEFAULTS.get(str(config.get("model_type", ""))) if isinstance(text, dict) else None
    if isinstance(text, dict):
        merged.update({**(composite or {}), **text})
        merged.pop("text_config", None)
    model_type = str(merged.get("model_type", ""))
    for key, value in _FAMILY_DEFAULTS.get(model_type, {}).items():
        merged.setdefault(key, value)
    if "tie_word_embeddings" not in merged:
        merged["tie_word_embeddings"] = model_type.startswith("gemma")
    if model_type in _HUNYUAN:
        merged = _hunyuan(merged)
    if model_type in _LFM2:
        merged = _lfm2_config(merged)
    return merged


#: Liquid AI's LFM2 / LFM2.5 (``Lfm2ForCausalLM``) and LFM2-MoE (``Lfm2MoeForCausalLM``): short-convolution layers
#: between grouped-query attention layers.
_LFM2 = frozenset({"lfm2", "lfm2_moe"})


def _lfm2_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """An LFM2 config.json read the way transformers' ``Lfm2Config`` / ``Lfm2MoeConfig`` and vLLM's ``lfm2.py`` /
    ``lfm2_moe.py`` (0.34.0) read it.

    ``layer_types`` from ``full_attn_idxs`` where the config lists only those (the first LFM2 checkpoints):
    ``full_attention`` at the listed indices, ``conv`` elsewhere. vLLM ties the LM head to the embeddings whatever
    the config says (``lm_head.tie_weights``). The dense model's MLP width is ``block_ff_dim`` (else
    ``intermediate_size``) and, with ``block_auto_adjust_ff_dim`` (default true), vLLM's ``Lfm2MLP`` makes it
    ``int(2 w / 3)``, times ``block_ffn_dim_multiplier`` (default 1.0, ``int``), rounded up to ``block_multiple_of``
    (default 256): LFM2-1.2B's 12288 serves as 8192; the MoE model's dense MLP takes ``intermediate_size`` as it is.
    The width the config gives is kept as ``block_ff_dim`` (transformers reads that key first), so a config rebuilt
    from the shape's ``hf_config`` and its served ``intermediate_size`` is adjusted once, not twice.
    """
    out = dict(cfg)
    layers = _int(out, "num_hidden_layers")
    idxs = out.get("full_attn_idxs")
    if not isinstance(out.get("layer_types"), list) and layers:
        attn = set(idxs) if isinstance(idxs, list) else set(range(layers))
        out["layer_types"] = ["full_attention" if i in attn else "conv" for i in range(layers)]
    out["tie_word_embeddings"] = True
    out.setdefault("conv_L_cache", 3)
    out.setdefault("max_position_embeddings", 128_000)
    if out.get("model_type") == "lfm2":
        width = _int(out, "block_ff_dim", "intermediate_size")
        if width:
            out["block_ff_dim"] = width
            if out.get("block_auto_adjust_ff_dim", True):
                width = int(2 * width / 3)
                multiplier = out.get("block_ffn_dim_multiplier", 1.0)
                if isinstance(multiplier, (int, float)) and not isinstance(multiplier, bool):
                    width = int(multiplier * width)
                multiple = _int(out, "block_multiple_of") or 256
                width = multiple * ((width + multiple - 1) // multiple)
            out["intermediate_size"] = width
    return out


#: Hunyuan-A13B's config.json: ``model_type`` "hunyuan" in the release repository, "hunyuan_v1_moe" in transformers.
_HUNYUAN = frozenset({"hunyuan", "hunyuan_v1_moe"})


def _hunyuan(cfg: dict[str, Any]) -> dict[str, Any]:
    """Hunyuan-A13B's per-layer lists read the way vLLM's ``hunyuan_v1.py`` reads them: ``moe_topk``,
    ``moe_intermediate_size`` and ``num_shared_expert`` give one value per layer (one value for all when they are the
    same), the shared MLP is ``intermediate_size`` × ``num_shared_expert`` wide, ``attention_head_dim`` is the head
    width, and ``use_qk_norm`` puts an RMSNorm of one head's width on q and k. Lists that differ by layer are
    refused: the shape here has one expert width."""
    out = dict(cfg)
    for key, name in (("moe_topk", "num_experts_per_tok"), ("moe_intermediate_size", "moe_intermediate_size"),
                      ("num_shared_expert", "num_shared_expert")):
        value = cfg.get(key)
        if isinstance(value, list):
            if not value or any(v != value[0] for v in value):
                raise ValueError(f"{key} differs by layer ({value!r}); one value for every layer is modelled")
            value = value[0]
        if value is not None:
            out[name] = value
    shared = _int(out, "num_shared_expert") or 0
    intermediate = _int(out, "intermediate_size") or 0
    if shared and intermediate != _int(out, "moe_intermediate_size"):
        raise ValueError("a shared MLP narrower or wider than the experts is not modelled")
    out["n_shared_experts"] = shared
    if "head_dim" not in out and _int(out, "attention_head_dim"):
        out["head_dim"] = _int(out, "attention_head_dim")
    if cfg.get("use_cla"):
        raise ValueError("cross-layer attention (use_cla) is not modelled")
    return out


def _int(cfg: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if value is not None and not isinstance(value, bool):
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ValueError(f"{key} must be an integer, got {value!r}")
    return None


def moe_from_config(cfg: dict[str, Any]) -> MoeShape | None:
    experts = _int(cfg, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")  # ERNIE 4.5
    if not experts or experts <= 1:
        return None
    per_token = _int(cfg, "num_experts_per_tok", "experts_per_token", "num_experts_per_token", "top_k",
                     "top_k_experts", "moe_k") or 1  # top_k_experts: Gemma 4; moe_k: ERNIE 4.5
    shared = _int(cfg, "n_shared_experts", "moe_num_shared_experts", "num_shared_experts") or 0  # the last: Kimi Linear
    if not shared and (_int(cfg, "shared_expert_intermediate_size") or cfg.get("model_type") == "llama4_text"):
        shared = 1
    size = _int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size") or 0
    return MoeShape(num_experts=experts, experts_per_token=per_token, shared_experts=shared, moe_intermediate_size=size)


def _layer_pattern(cfg: dict[str, Any]) -> str | None:
    """Nemotron-H's layer pattern: ``hybrid_override_pattern``, or the one its ``layers_block_type`` list spells
    (``NemotronHConfig._list_to_pattern``: Mamba2 ``M``, attention ``*``, MLP ``-``, MoE ``E``)."""
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return pattern
    blocks = cfg.get("layers_block_type")
    letters = {"linear_attention": "M", "mamba": "M", "full_attention": "*", "attention": "*", "mlp": "-",
               "moe": "E"}
    if isinstance(blocks, list) and blocks and all(str(b) in letters for b in blocks):
        return "".join(letters[str(b)] for b in blocks)
    return None


def layer_pattern(cfg: dict[str, Any]) -> str | None:
    """Nemotron-H's layer pattern (:func:`_layer_pattern`), for the capacity model's expert count."""
    return _layer_pattern(cfg)


def required(cfg: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    missing = []
    if cfg.get("model_type") == "nemotron_h" and _int(cfg, "num_hidden_layers") is None:
        pattern = _layer_pattern(cfg)  # newer configs give the layer count only as the list's length
        if pattern:
            cfg = {**cfg, "num_hidden_layers": len(pattern)}
    aliases = {
        "hidden_size": ("hidden_size", "n_embd", "d_model"),
        "num_hidden_layers": ("num_hidden_layers", "n_layer"),
        "num_attention_heads": ("num_attention_heads", "n_head"),
        "vocab_size": ("vocab_size",),
    }
    for key, names in aliases.items():
        value = _int(cfg, *names)
        if value is None or value <= 0:
            missing.append(key)
        else:
            out[key] = value
    if missing:
        raise KeyError(", ".join(missing))
    return out


def kv_heads_of(cfg: dict[str, Any], heads: int) -> int:
    """KV heads: ``num_key_value_heads``, Falcon's multi-query / ``num_kv_heads``, Llama-Nemotron's first attention
    layer's (vLLM's ``ModelConfig.get_total_num_kv_heads`` for ``nemotron-nas``), else one per head."""
    blocks = nas_blocks(cfg)
    if blocks is not None:
        return next((b.kv_heads for b in blocks if b.kv_heads), heads)
    if cfg.get("model_type") == "falcon":
        if cfg.get("new_decoder_architecture"):
            return _int(cfg, "num_kv_heads") or heads
        return 1 if cfg.get("multi_query", True) else heads
    return _int(cfg, "num_key_value_heads") or heads


def derive_params(config: dict[str, Any]) -> int:
    """Total parameters implied by a Hugging Face ``config.json`` (all experts, vision tower included).

    embeddings = vocab x hidden, twice when the LM head is not tied (OPT adds its learned
    positions, Phi its LM-head bias); per layer: attention q = hidden x heads x head_dim (twice
    for the gated attention of Qwen3-Next and ``attn_output_gate`` configs), k and v = hidden x
    kv_heads x head_dim each, o = heads x
    head_dim x hidden, plus the biases a family has (Qwen2 q/k/v; ``attention_bias`` q/k/v/o,
    but q/k/v only for GLM-4.5; always for Phi and OPT), per-head q/k RMSNorm (Qwen3, Gemma 3,
    Qwen3-Next, Qwen3.5; over all heads for MiniMax-M2, OLMo 2 and OLMo 3), gpt-oss's attention sinks, the latent
    projections for MLA models and
    DeepSeek-V3.2's indexer; Qwen3-Next's and Qwen3.5's linear-attention layers (every layer that is not a
    ``full_attention_interval``-th one) are Gated DeltaNet projections, convolution and gates;
    MLP = 3 x hidden x intermediate (gate, up, down), or 2 x for the ungated GELU MLPs of Phi, OPT
    and Falcon (with biases where the family has them); MoE layers = experts x 3 x hidden x
    moe_intermediate (+ gpt-oss's expert biases) + shared experts + router (hidden x experts,
    + a bias for gpt-oss, + the score-correction bias for ``noaux_tc`` routers, GLM-4.5 and MiniMax-M2);
    dense layers are the first ``first_k_dense_replace`` ones, ``mlp_only_layers``, or those
    Llama 4's ``interleave_moe_layer_step`` skips (width ``intermediate_size_mlp``); norms =
    2 x hidden per layer (4 for Gemma 2/3; LayerNorm weight and bias for Phi, OPT and Falcon) +
    the final one. The vision tower and projector of Gemma 3 (SigLIP), Qwen2.5-VL, Mistral 3
    (Pixtral) and Llama 4 are added (:func:`derive_vision_params`). Rotary buffers and
    multi-token-prediction heads are not counted.
    """
    if not isinstance(config, dict):
        raise CatalogError("model config must be a JSON object")
    try:
        return _derive(text_config(config)) + (derive_vision_params(config) or 0)
    except KeyError as exc:
        raise CatalogError(f"missing required key(s) in model config: {exc.args[0]}") from None
    except (TypeError, ValueError) as exc:
        raise CatalogError(f"bad value in model config: {exc}") from None


def _attention(cfg: dict[str, Any], h: int, heads: int, kv_heads: int, head_dim: int, model_type: str) -> int:
    kv_lora = _int(cfg, "kv_lora_rank")
    if kv_lora:
        rope = _int(cfg, "qk_rope_head_dim") or 0
        nope = _int(cfg, "qk_nope_head_dim") or 0
        v_dim = _int(cfg, "v_head_dim") or nope
        q_lora = _int(cfg, "q_lora_rank")
        qk = nope + rope
        attn = (h * q_lora + q_lora + q_lora * heads * qk) if q_lora else h * heads * qk
        attn += h * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim) + heads * v_dim * h
        index_heads, index_dim = _int(cfg, "index_n_heads"), _int(cfg, "index_head_dim")
        if index_heads and index_dim:  # DeepSeek-V3.2 sparse-attention indexer
            attn += (q_lora or h) * index_heads * index_dim + h * index_dim + 2 * index_dim + h * index_heads
        return attn
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    if model_type == "falcon":  # fused query_key_value
        attn = h * (q_out + 2 * kv_out) + q_out * h
        return attn + ((q_out + 2 * kv_out + h) if cfg.get("bias") else 0)
    gated_q = 2 if model_type == "qwen3_next" or cfg.get("attn_output_gate") is True else 1
    attn = h * q_out * gated_q + 2 * h * kv_out + q_out * h
    if model_type.startswith("qwen2"):
        attn += q_out + 2 * kv_out
    elif model_type in ("phi", "opt"):
        attn += q_out + 2 * kv_out + h
    elif cfg.get("attention_bias"):
        # GLM-4.5 and Seed-OSS (attention_out_bias false) have no o_proj bias
        attn += q_out + 2 * kv_out + (0 if model_type in _GLM4_MOE or cfg.get("attention_out_bias") is False else h)
    if model_type in _QK_NORM or (model_type in (*_GLM4_MOE, *_HUNYUAN) and cfg.get("use_qk_norm")):
        attn += 2 * head_dim
    elif model_type == "minimax_m2" and cfg.get("use_qk_norm", True):
        attn += q_out + kv_out  # MiniMax-M2: one RMSNorm over all q heads and one over all k heads
    elif model_type in _QK_NORM_ALL_HEADS:
        attn += q_out + kv_out
    if model_type == "gpt_oss":
        attn += heads  # attention sinks
    return attn


def _shared_indexer_params(cfg: dict[str, Any], h: int, layers: int) -> int:
    """The sparse-attention indexers (as :func:`_attention` counts one) that the layers sharing top-k do not hold: a
    checkpoint whose config.json names IndexCache's ``index_topk_freq`` / ``index_topk_pattern`` (GLM-5.2: 21 of 78
    layers keep one; zai-org/GLM-5.2-FP8's ignore list names ``indexers_proj`` and ``indexer.k_norm`` on those only)
    ships indexers on its "full" layers alone, the ones vLLM builds one on from 0.24
    (:func:`..vllm.kv_layout.index_topk_layer_ids`). 0 without the indexer or the keys."""
    index_heads, index_dim = _int(cfg, "index_n_heads"), _int(cfg, "index_head_dim")
    if not (index_heads and index_dim and _int(cfg, "kv_lora_rank")):
        return 0
    if cfg.get("index_topk_freq") is None and cfg.get("index_topk_pattern") is None:
        return 0
    from ..vllm.kv_layout import index_topk_layer_ids  # only for such a checkpoint

    shared = layers - len(index_topk_layer_ids(cfg, layers))
    q_lora = _int(cfg, "q_lora_rank")
    return shared * ((q_lora or h) * index_heads * index_dim + h * index_dim + 2 * index_dim + h * index_heads)


def _linear_attention(cfg: dict[str, Any], h: int) -> int:
    """One Gated DeltaNet layer of Qwen3-Next: qkvz and ba projections, conv, dt/A, gated norm, out."""
    nk, dk = _int(cfg, "linear_num_key_heads") or 0, _int(cfg, "linear_key_head_dim") or 0
    nv, dv = _int(cfg, "linear_num_value_heads") or 0, _int(cfg, "linear_value_head_dim") or 0
    kernel = _int(cfg, "linear_conv_kernel_dim") or 4
    key_dim, value_dim = nk * dk, nv * dv
    return (h * (2 * key_dim + 2 * value_dim) + h * 2 * nv + (2 * key_dim + value_dim) * kernel + 2 * nv + dv
            + value_dim * h)


def _full_attention_layers(cfg: dict[str, Any], layers: int) -> int:
    """Layers with full attention (the rest are linear attention); all of them for most models."""
    types = cfg.get("layer_types")
    if cfg.get("model_type") in _HYBRID_LINEAR:
        if isinstance(types, list) and len(types) == layers:
            return sum(1 for t in types if t == "full_attention")
        interval = _int(cfg, "full_attention_interval") or 4
        return layers // interval
    return layers


def _mlp(cfg: dict[str, Any], h: int, layers: int, model_type: str) -> int:
    if model_type == "falcon":
        intermediate = _int(cfg, "ffn_hidden_size") or 4 * h
    elif model_type == "opt":
        intermediate = _int(cfg, "ffn_dim") or 4 * h
    else:
        intermediate = _int(cfg, "intermediate_size", "n_inner") or 4 * h
    if model_type in _UNGATED_MLP:
        dense_mlp = 2 * h * intermediate
        if model_type in ("phi", "opt") or cfg.get("bias"):
            dense_mlp += intermediate + h
    else:
        dense_mlp = 3 * h * intermediate
        if cfg.get("mlp_bias"):
            dense_mlp += 2 * intermediate + h
    moe = moe_from_config(cfg)
    if moe is None:
        return layers * dense_mlp
    width = moe.moe_intermediate_size
    moe_layer = moe.num_experts * 3 * h * width + h * moe.num_experts
    if model_type == "gpt_oss":  # expert biases (gate_up and down) and the router's bias
        moe_layer += moe.num_experts * (2 * width + h) + moe.num_experts
    shared_size = _int(cfg, "shared_expert_intermediate_size")
    if shared_size:
        moe_layer += 3 * h * shared_size + h  # Qwen2-MoE / Qwen3-Next shared expert and its gate
    elif moe.shared_experts:
        moe_layer += moe.shared_experts * 3 * h * width
    if cfg.get("topk_method") == "noaux_tc" or model_type in (*_GLM4_MOE, "ernie4_5_moe") or (
            model_type == "minimax_m2" and cfg.get("use_routing_bias", True)):
        moe_layer += moe.num_experts  # e_score_correction_bias
    step = _int(cfg, "interleave_moe_layer_step")
    if model_type == "llama4_text" and step and step > 1:
        moe_layers = layers // step
        dense_mlp = 3 * h * (_int(cfg, "intermediate_size_mlp") or width)
        return (layers - moe_layers) * dense_mlp + moe_layers * moe_layer
    dense_layers = (_int(cfg, "first_k_dense_replace", "moe_layer_start_index")  # moe_layer_start_index: ERNIE 4.5
                    or len(cfg.get("mlp_only_layers") or ()))
    dense_layers = min(dense_layers, layers)
    return dense_layers * dense_mlp + (layers - dense_layers) * moe_layer


def _nemotron_h(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Nemotron-H (``NemotronHForCausalLM``): one RMSNorm and one mixer per layer, as its pattern says.

    Mamba2 ``M``: in_proj h x (2 inner + 2 G N + H) (z, x, B, C, dt), depthwise conv (inner + 2 G N) x kernel with
    its bias (``use_conv_bias``, default true), dt_bias, A_log and D (H each), the gated RMSNorm (inner) and out_proj
    inner x h, inner = ``mamba_num_heads`` x ``mamba_head_dim``; attention ``*``: q, k, v, o without biases;
    MLP ``-``: up and down, squared ReLU, no gate; MoE ``E``: a router h x E with its score-correction bias, E ungated
    experts 2 h x ``moe_intermediate_size`` and the shared expert 2 h x ``moe_shared_expert_intermediate_size``.
    With ``moe_latent_size`` (Nemotron 3 Super and Ultra's LatentMoE, vLLM's ``NemotronHMoE``: ``use_latent_moe``)
    the routed experts work in the latent width (2 latent x ``moe_intermediate_size`` each) between
    ``fc1_latent_proj`` (h -> latent) and ``fc2_latent_proj`` (latent -> h); the router and the shared expert
    stay on h. Embeddings and the LM head are not tied.
    """
    h, vocab = req["hidden_size"], req["vocab_size"]
    pattern = _layer_pattern(cfg) or ""
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    head_dim = _int(cfg, "head_dim") or h // heads
    m_heads = _int(cfg, "mamba_num_heads") or 128
    inner = m_heads * (_int(cfg, "mamba_head_dim") or 64)
    xbc = inner + 2 * (_int(cfg, "n_groups") or 8) * (_int(cfg, "ssm_state_size") or 128)
    conv_bias = xbc if cfg.get("use_conv_bias", True) else 0
    mamba = h * (inner + xbc + m_heads) + xbc * (_int(cfg, "conv_kernel") or 4) + conv_bias + 3 * m_heads \
        + inner + inner * h
    attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    mlp = 2 * h * (_int(cfg, "intermediate_size") or 4 * h)
    experts = _int(cfg, "n_routed_experts") or 0
    latent = _int(cfg, "moe_latent_size") or 0
    moe = h * experts + experts + experts * 2 * (latent or h) * (_int(cfg, "moe_intermediate_size") or 0) \
        + 2 * h * (_int(cfg, "moe_shared_expert_intermediate_size") or 0) + 2 * h * latent
    per = {"M": mamba, "*": attention, "-": mlp, "E": moe}
    total = vocab * h * (1 if cfg.get("tie_word_embeddings") else 2)
    return total + sum(per.get(c, 0) + h for c in pattern) + h


def _gemma4_text(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Gemma 4's decoder as vLLM's ``Gemma4DecoderLayer`` holds it (``vllm/model_executor/models/gemma4.py``).

    Tied embeddings; per layer: q / k / v / o over the layer's head size (``global_head_dim`` on full-attention
    layers) and KV heads (``num_global_key_value_heads`` on full layers with ``attention_k_eq_v``, which store no
    v_proj: K serves as V), q and k norms of one head; a gated GELU MLP (twice as wide on KV-shared layers with
    ``use_double_wide_mlp``); four RMSNorms; with ``enable_moe_block`` a router (h x E and a scale of h), a
    per-expert scale (E), E experts of 3 h x ``moe_intermediate_size`` and three more RMSNorms. Per-layer
    embeddings (``hidden_size_per_layer_input`` d > 0, the E2B / E4B models): the table
    ``vocab_size_per_layer_input`` x (layers x d), the model projection h x (layers x d) and its norm d, and per
    layer a gate h x d, a projection d x h and its norm h.
    """
    h, layers, vocab = req["hidden_size"], req["num_hidden_layers"], req["vocab_size"]
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    head_dim = _int(cfg, "head_dim") or 256
    global_dim = _int(cfg, "global_head_dim") or head_dim
    k_eq_v = bool(cfg.get("attention_k_eq_v"))
    global_kv = (_int(cfg, "num_global_key_value_heads") or kv) if k_eq_v else kv
    types = cfg.get("layer_types")
    if not isinstance(types, list) or len(types) != layers:
        types = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)]
    shared_from = layers - (_int(cfg, "num_kv_shared_layers") or 0)
    inter = _int(cfg, "intermediate_size") or 4 * h
    experts = _int(cfg, "num_experts") or 0
    moe = 0
    if cfg.get("enable_moe_block") and experts:
        moe = h * experts + h + experts + experts * 3 * h * (_int(cfg, "moe_intermediate_size") or 0) + 3 * h
    total = vocab * h * (1 if cfg.get("tie_word_embeddings", True) else 2) + h
    ple = _int(cfg, "hidden_size_per_layer_input") or 0
    if ple:
        total += (_int(cfg, "vocab_size_per_layer_input") or vocab) * layers * ple + h * layers * ple + ple
        total += layers * (2 * h * ple + h)
    for i, kind in enumerate(types):
        full = kind == "full_attention"
        d, n_kv = (global_dim, global_kv) if full else (head_dim, kv)
        attn = h * heads * d + h * n_kv * d * (1 if full and k_eq_v else 2) + heads * d * h + 2 * d
        width = inter * (2 if cfg.get("use_double_wide_mlp") and i >= shared_from else 1)
        total += attn + 3 * h * width + 4 * h + moe
    return total


def _granite_hybrid(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Granite 4.0 (``GraniteMoeHybridForCausalLM``): per layer two RMSNorms, a mixer as ``layer_types`` says and
    the shared MLP (input_linear h -> 2 s, output_linear s -> h, s = ``shared_intermediate_size``) with, when
    ``num_local_experts`` > 0, a router h x E and E experts of 3 h x ``intermediate_size``. Mamba2 mixer: in_proj
    h x (inner + conv + heads), conv (inner + 2 G N) x ``mamba_d_conv`` with its bias (``mamba_conv_bias``), dt_bias,
    A_log and D, the gated norm (inner) and out_proj inner x h (biases with ``mamba_proj_bias``), inner =
    ``mamba_expand`` x h; attention q, k, v, o (biases with ``attention_bias``)."""
    h, layers, vocab = req["hidden_size"], req["num_hidden_layers"], req["vocab_size"]
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    head_dim = _int(cfg, "head_dim") or h // heads
    types = cfg.get("layer_types") or cfg.get("layers_block_type")
    if not isinstance(types, list) or len(types) != layers:
        types = ["mamba"] * layers  # GraniteMoeHybridConfig.layers_block_type when layer_types is unset
    inner = (_int(cfg, "mamba_expand") or 2) * h
    m_heads = _int(cfg, "mamba_n_heads") or 128
    conv = inner + 2 * (_int(cfg, "mamba_n_groups") or 1) * (_int(cfg, "mamba_d_state") or 256)
    mamba = h * (inner + conv + m_heads) + conv * (_int(cfg, "mamba_d_conv") or 4) + 3 * m_heads + inner + inner * h
    if cfg.get("mamba_conv_bias", True):
        mamba += conv
    if cfg.get("mamba_proj_bias"):
        mamba += inner + conv + m_heads + h
    attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    if cfg.get("attention_bias"):
        attention += heads * head_dim + 2 * kv * head_dim + h
    shared = _int(cfg, "shared_intermediate_size") or 0
    experts = _int(cfg, "num_local_experts") or 0
    mlp = 3 * h * shared + (h * experts + experts * 3 * h * (_int(cfg, "intermediate_size") or 0) if experts else 0)
    total = vocab * h * (1 if cfg.get("tie_word_embeddings") else 2) + h
    return total + sum((mamba if str(t) == "mamba" else attention) + mlp + 2 * h for t in types)


def _gemma3n_text(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Gemma 3n's decoder as vLLM's ``Gemma3nDecoderLayer`` holds it (``vllm/model_executor/models/gemma3n.py``).

    Tied embeddings h x vocab; per-layer embeddings ``vocab_size_per_layer_input`` x (layers x d), their model
    projection h x (layers x d) and its norm d (d = ``hidden_size_per_layer_input``); AltUp's
    ``altup_num_inputs`` - 1 projections and as many unembedding projections of h x h; the final norm. Per
    layer: q / k / v / o with q and k norms of one head (v's norm has no weight); a gated GELU MLP of the layer's
    ``intermediate_size`` (a list, one width per layer, in the published configs); four RMSNorms; AltUp
    (correction n x n, prediction n x n², router h x n, its norm h and the output scale h); LAuReL (h x r, r x h,
    its norm h, r = ``laurel_rank``); the per-layer input gate h x d, projection d x h and its norm h.
    """
    h, layers, vocab = req["hidden_size"], req["num_hidden_layers"], req["vocab_size"]
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    d_head = _int(cfg, "head_dim") or 256
    widths = cfg.get("intermediate_size")
    if not isinstance(widths, list):
        widths = [_int(cfg, "intermediate_size") or 16_384] * layers
    if len(widths) != layers or not all(isinstance(w, int) and not isinstance(w, bool) for w in widths):
        raise ValueError("intermediate_size must be one integer or one per layer")
    ple = _int(cfg, "hidden_size_per_layer_input") or 256
    n = _int(cfg, "altup_num_inputs") or 4
    rank = _int(cfg, "laurel_rank") or 64
    total = vocab * h + (_int(cfg, "vocab_size_per_layer_input") or 262_144) * layers * ple
    total += h * layers * ple + ple + 2 * (n - 1) * h * h + h
    attn = h * heads * d_head + 2 * h * kv * d_head + heads * d_head * h + 2 * d_head
    per_layer = attn + 4 * h + (n * n + n * n * n + h * n + 2 * h) + (2 * h * rank + h) + (2 * h * ple + h)
    return total + layers * per_layer + sum(3 * h * w for w in widths)


def _jamba(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Jamba (``JambaForCausalLM``, ``vllm/model_executor/models/jamba.py``): attention where ``i %
    attn_layer_period == attn_layer_offset`` (q, k, v, o without biases), a Mamba1 mixer elsewhere: in_proj h x 2
    inner (a bias with ``mamba_proj_bias``), a depthwise conv inner x ``mamba_d_conv`` with its bias
    (``mamba_conv_bias``), x_proj inner x (dt_rank + 2 N), dt_proj dt_rank x inner with its bias, A_log inner x N,
    D inner, out_proj inner x h, and the dt / B / C RMSNorms (dt_rank + 2 N), inner = ``mamba_expand`` x h, N =
    ``mamba_d_state``, dt_rank = ``mamba_dt_rank`` ("auto": ceil(h / 16)). The MLP is a mixture of experts where ``i %
    expert_layer_period == expert_layer_offset`` (a router h x E and E experts of 3 h x ``intermediate_size``), a
    gated MLP of that width elsewhere; two RMSNorms per layer, the final one, untied embeddings."""
    h, layers, vocab = req["hidden_size"], req["num_hidden_layers"], req["vocab_size"]
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    head_dim = _int(cfg, "head_dim") or h // heads
    inner = (_int(cfg, "mamba_expand") or 2) * h
    state = _int(cfg, "mamba_d_state") or 16
    rank = cfg.get("mamba_dt_rank", "auto")
    dt_rank = -(-h // 16) if rank == "auto" or rank is None else _int(cfg, "mamba_dt_rank") or -(-h // 16)
    mamba = h * 2 * inner + inner * (_int(cfg, "mamba_d_conv") or 4) + inner * (dt_rank + 2 * state)
    mamba += dt_rank * inner + inner + inner * state + inner + inner * h + dt_rank + 2 * state
    if cfg.get("mamba_conv_bias", True):
        mamba += inner
    if cfg.get("mamba_proj_bias"):
        mamba += 2 * inner + h
    attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    width = _int(cfg, "intermediate_size") or 4 * h
    experts = _int(cfg, "num_experts") or 1
    a_period, a_offset = _int(cfg, "attn_layer_period") or 8, _int(cfg, "attn_layer_offset") or 4
    e_period, e_offset = _int(cfg, "expert_layer_period") or 2, _int(cfg, "expert_layer_offset") or 1
    total = vocab * h * (1 if cfg.get("tie_word_embeddings") else 2) + h
    for i in range(layers):
        total += attention if i % a_period == a_offset else mamba
        moe = experts > 1 and i % e_period == e_offset
        total += (h * experts + experts * 3 * h * width) if moe else 3 * h * width
        total += 2 * h
    return total


def _kda_count(cfg: dict[str, Any], layers: int) -> int:
    """Kimi Linear's KDA layers: ``linear_attn_config.kda_layers``, else the layers ``full_attn_layers`` leaves."""
    lac = cfg.get("linear_attn_config")
    if not isinstance(lac, dict):
        raise KeyError("linear_attn_config")
    kda, full = lac.get("kda_layers"), lac.get("full_attn_layers")
    if isinstance(kda, list):
        return len(kda)
    if isinstance(full, list):
        return layers - len(full)
    raise KeyError("linear_attn_config.kda_layers")


def _kimi_linear(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Kimi Linear (``KimiLinearForCausalLM``): MLA on ``full_attn_layers``, Kimi Delta Attention elsewhere.

    One KDA layer as vLLM's ``vllm/model_executor/layers/kda.py`` builds it (P = ``num_heads`` × ``head_dim`` of
    ``linear_attn_config``): q, k and v projections h × P, the forget gate's low-rank pair h × head_dim and
    head_dim × P with its ``dt_bias`` (P), the beta projection h × heads, three short convolutions of
    ``short_conv_kernel_size`` × P without bias, ``A_log`` (heads), the output gate's low-rank pair, the gated
    RMSNorm (head_dim) and o_proj P × h. MLA layers as DeepSeek's (no q LoRA). The first ``first_k_dense_replace``
    layers are a dense MLP; the rest ``num_experts`` experts with ``num_shared_experts`` shared ones of the experts'
    width and a router with its score-correction bias. Two RMSNorms per layer, untied embeddings."""
    h, layers = req["hidden_size"], req["num_hidden_layers"]
    heads, vocab = req["num_attention_heads"], req["vocab_size"]
    lac = cfg["linear_attn_config"]
    k_heads, k_dim = int(lac["num_heads"]), int(lac["head_dim"])
    kernel = int(lac.get("short_conv_kernel_size") or 4)
    p = k_heads * k_dim
    if lac.get("use_full_rank_gate"):
        return _kimi_k3(cfg, req, k_heads, k_dim, kernel)
    kda = (3 * h * p + (h * k_dim + k_dim * p + p) + h * k_heads + 3 * kernel * p + k_heads
           + (h * k_dim + k_dim * p) + k_dim + p * h)
    n_kda = _kda_count(cfg, layers)
    mla = _attention(cfg, h, heads, heads, _int(cfg, "head_dim") or h // heads, "kimi_linear")
    shared = _int(cfg, "num_shared_experts", "n_shared_experts") or 0
    moe_cfg = {**cfg, "n_shared_experts": shared, "topk_method": "noaux_tc"}
    mlp = _mlp(moe_cfg, h, layers, "kimi_linear")
    total = vocab * h * (1 if cfg.get("tie_word_embeddings") else 2)
    return total + n_kda * kda + (layers - n_kda) * mla + mlp + layers * 2 * h + h


def _kimi_k3(cfg: dict[str, Any], req: dict[str, int], k_heads: int, k_dim: int, kernel: int) -> int:
    """Kimi-K3's language model (``use_full_rank_gate``), as its published safetensors hold it and vLLM's
    ``vllm/models/kimi_k3/nvidia/model.py`` builds it (006193b5). P = ``num_heads`` × ``head_dim`` of
    ``linear_attn_config``.

    * KDA layer: q, k, v h × P; the forget gate's ``f_a`` h × head_dim and ``f_b`` head_dim × P with ``dt_bias`` (P);
      beta h × heads; three short convolutions ``short_conv_kernel_size`` × P; ``A_log`` and the gated norm
      ``o_norm`` of head_dim each (the checkpoint's shapes); a full-rank output gate ``g_proj`` h × P; o_proj P × h.
    * MLA layer: DeepSeek's with q LoRA, plus the output gate ``g_proj`` h × heads × v (``mla_use_output_gate``).
    * MLP: a dense one of ``intermediate_size`` on the first ``first_k_dense_replace`` layers; then a router h × E
      with its bias, E experts of ``moe_intermediate_size`` working in ``routed_expert_hidden_size`` (LatentMoE:
      ``routed_expert_down_proj`` h × latent, ``routed_expert_up_proj`` latent × h, a norm of latent with
      ``latent_moe_use_norm``) and ``num_shared_experts`` shared experts of ``moe_intermediate_size`` in h.
    * Per layer two RMSNorms and, with ``attn_res_block_size``, the attention residuals' two norms and two 1 × h
      projections; after the last, the final norm and (attention residuals) one more norm and projection.
    """
    h, layers = req["hidden_size"], req["num_hidden_layers"]
    heads, vocab = req["num_attention_heads"], req["vocab_size"]
    p = k_heads * k_dim
    kda = 3 * h * p + h * k_dim + k_dim * p + p + h * k_heads + 3 * kernel * p + k_dim + h * p + k_dim + p * h
    n_kda = _kda_count(cfg, layers)
    mla = _attention(cfg, h, heads, heads, _int(cfg, "head_dim") or h // heads, "kimi_linear")
    if cfg.get("mla_use_output_gate"):
        mla += h * heads * (_int(cfg, "v_head_dim") or 0)
    dense = min(_int(cfg, "first_k_dense_replace") or 0, layers)
    experts, inter = _int(cfg, "num_experts", "n_routed_experts") or 0, _int(cfg, "moe_intermediate_size") or 0
    latent = _int(cfg, "routed_expert_hidden_size")
    width = latent or h
    moe = h * experts + experts + experts * 3 * width * inter
    if latent:
        moe += 2 * h * latent + (latent if cfg.get("latent_moe_use_norm") else 0)
    moe += 3 * h * inter * (_int(cfg, "num_shared_experts", "n_shared_experts") or 0)
    mlp = dense * 3 * h * (_int(cfg, "intermediate_size") or 0) + (layers - dense) * moe
    res = 4 * h if cfg.get("attn_res_block_size") else 0
    total = vocab * h * (1 if cfg.get("tie_word_embeddings") else 2)
    return total + n_kda * kda + (layers - n_kda) * mla + mlp + layers * (2 * h + res) + h + res // 2


def _nemotron_nas(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """Llama-Nemotron (``DeciLMForCausalLM``): each layer as its ``block_configs`` entry builds it
    (:func:`~shardwise.rules.vllm.nas.block_params`), the embeddings, the LM head unless tied, the final norm."""
    h, heads = req["hidden_size"], req["num_attention_heads"]
    if len(cfg["block_configs"]) != req["num_hidden_layers"]:
        raise ValueError(f"block_configs has {len(cfg['block_configs'])} entries for {req['num_hidden_layers']} layers")
    head_dim = _int(cfg, "head_dim") or h // heads
    bias = bool(cfg.get("attention_bias"))
    layers = sum(block_params(b, h, heads, head_dim, bias) for b in nas_blocks(cfg) or ())
    return req["vocab_size"] * h * (1 if cfg.get("tie_word_embeddings") else 2) + layers + h


def _lfm2(cfg: dict[str, Any], req: dict[str, int]) -> int:
    """LFM2 / LFM2.5 and LFM2-MoE as vLLM's ``lfm2.py`` and ``lfm2_moe.py`` (0.34.0) hold them.

    Tied embeddings and a final RMSNorm of h; per layer two RMSNorms of h and, as ``layer_types`` says, either
    attention (q, k, v, out without biases, q and k RMSNorms of one head) or a short convolution (``ShortConv``:
    ``in_proj`` h x 3 ``conv_dim``, a depthwise conv of ``conv_L_cache`` taps per channel and ``out_proj``
    ``conv_dim`` x h, biases only with ``conv_bias``); then a SwiGLU MLP 3 h x ``intermediate_size`` (the dense
    model's width as :func:`_lfm2_config` adjusts it), or in LFM2-MoE from layer ``num_dense_layers`` on, a router
    h x E, its ``e_score_correction_bias`` (E, with ``use_expert_bias``) and E SwiGLU experts of
    ``moe_intermediate_size``."""
    h, layers, vocab = req["hidden_size"], req["num_hidden_layers"], req["vocab_size"]
    heads, kv = req["num_attention_heads"], kv_heads_of(cfg, req["num_attention_heads"])
    head_dim = _int(cfg, "head_dim") or h // heads
    attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h + 2 * head_dim
    dim = _int(cfg, "conv_dim") or h
    bias = bool(cfg.get("conv_bias"))
    conv = h * 3 * dim + dim * (_int(cfg, "conv_L_cache") or 3) + dim * h + ((3 * dim + dim + h) if bias else 0)
    dense = 3 * h * (_int(cfg, "intermediate_size") or 0)
    dense_layers = layers
    moe_layer = 0
    if cfg.get("model_type") == "lfm2_moe":
        experts = _int(cfg, "num_experts") or 0
        dense_layers = min(_int(cfg, "num_dense_layers") or 0, layers)
        moe_layer = h * experts + experts * 3 * h * (_int(cfg, "moe_intermediate_size") or 0)
        moe_layer += experts if cfg.get("use_expert_bias", True) else 0
    types = cfg.get("layer_types")
    if not isinstance(types, list) or len(types) != layers:
        raise KeyError("layer_types")
    mixers = sum(attention if t == "full_attention" else conv for t in types)
    return vocab * h + mixers + dense_layers * dense + (layers - dense_layers) * moe_layer + layers * 2 * h + h


def _derive(cfg: dict[str, Any]) -> int:
    if cfg.get("model_type") in _LFM2:
        return _lfm2(cfg, required(cfg))
    if nas_blocks(cfg) is not None:
        return _nemotron_nas(cfg, required(cfg))
    if cfg.get("model_type") in ("kimi_linear", "kimi_k3"):
        return _kimi_linear(cfg, required(cfg))
    if cfg.get("model_type") == "jamba":
        return _jamba(cfg, required(cfg))
    if cfg.get("model_type") == "gemma3n_text":
        return _gemma3n_text(cfg, required(cfg))
    if cfg.get("model_type") == "granitemoehybrid":
        return _granite_hybrid(cfg, required(cfg))
    if cfg.get("model_type") == "gemma4_text":
        return _gemma4_text(cfg, required(cfg))
    if cfg.get("model_type") == "nemotron_h":
        if _layer_pattern(cfg) is None:
            raise KeyError("hybrid_override_pattern")
        return _nemotron_h(cfg, required(cfg))
    req = required(cfg)
    h, layers = req["hidden_size"], req["num_hidden_layers"]
    heads, vocab = req["num_attention_heads"], req["vocab_size"]
    kv_heads = kv_heads_of(cfg, heads)
    head_dim = _int(cfg, "head_dim") or h // heads
    model_type = str(cfg.get("model_type", ""))
    tied = bool(cfg.get("tie_word_embeddings"))
    total = vocab * h * (1 if tied else 2)
    if model_type == "phi":
        total += vocab  # lm_head bias
    if model_type == "opt":
        total += ((_int(cfg, "max_position_embeddings") or 2048) + 2) * h  # learned positions (offset 2)

    full = _full_attention_layers(cfg, layers)
    attn = full * _attention(cfg, h, heads, kv_heads, head_dim, model_type)
    attn += (layers - full) * _linear_attention(cfg, h)
    attn -= _shared_indexer_params(cfg, h, layers)
    mlp = _mlp(cfg, h, layers, model_type)

    if model_type in _LAYERNORM:
        one_norm = model_type == "phi" or (model_type == "falcon" and not cfg.get("new_decoder_architecture"))
        norms_per_layer = 2 if one_norm else 4  # LayerNorm: weight and bias
        final_norm = 2 * h
    else:
        norms_per_layer = 4 if model_type in ("gemma2", "gemma3", "gemma3_text") else 2
        final_norm = h
    return total + attn + mlp + layers * norms_per_layer * h + final_norm


def derive_vision_params(config: dict[str, Any]) -> int | None:
    """Parameters of the vision (and audio) encoders and their projectors a multimodal ``config.json`` implies.

    0 for a text-only config, None when the config has a tower of a kind not counted here (its
    parameters are then missing from :func:`derive_params`). An omni checkpoint's towers are its
    thinker's (``thinker_config.vision_config`` and ``audio_config``), which vLLM loads with the decoder.

    * SigLIP (Gemma 3): patch conv (3 x p^2 x H + H) + positions ((image/p)^2 x H) + layers x
      (two LayerNorms 4H + q/k/v/o with biases 4(H^2 + H) + fc1/fc2 with biases 2HI + I + H) +
      post-LayerNorm 2H; projector H x text_hidden + an RMSNorm H.
    * Qwen2.5-VL ViT: patch conv 3 x t x p^2 x H + depth x (2 RMSNorms 2H + fused qkv 3H^2 + 3H +
      proj H^2 + H + gated MLP 3HI + 2I + H); merger RMSNorm H + (4H)^2 + 4H + 4H x out + out.
    * Qwen3-VL and Qwen3.5 / Qwen3.6 ViT: patch conv with bias 3 x t x p^2 x H + H + learned positions
      ``num_position_embeddings`` x H + depth x (2 LayerNorms 4H + fused qkv 3H^2 + 3H + proj H^2 + H + GELU
      MLP with biases 2HI + I + H); merger LayerNorm 2H + (4H)^2 + 4H + 4H x out + out; one more merger, its
      LayerNorm over 4H, per ``deepstack_visual_indexes`` entry (none in Qwen3.5 / Qwen3.6).
    * Pixtral (Mistral 3): patch conv 3 x p^2 x H + RMSNorm H + layers x (2 RMSNorms 2H + q/k/v/o
      4H^2 + gated MLP 3HI); projector RMSNorm H + patch merger (s^2 H) x H + H x text_hidden +
      text_hidden^2 (biases when ``multimodal_projector_bias``).
    * Qwen2-Audio (an ``audio_config`` alone): Whisper's encoder with a learned position table and the projector to
      the text hidden size (:func:`_qwen2_audio`).
    * Llama 4: patch linear 3p^2 x H + class embedding H + positions ((image/p)^2 + 1) x H + two
      LayerNorms 4H + layers x (q/k/v/o with biases 4(H^2 + H) + fc1/fc2 with biases + two
      LayerNorms 4H) + pixel-shuffle MLP (I x projector_in + projector_out^2) + projector
      vision_output x text_hidden.
    """
    if not isinstance(config, dict):
        return 0
    top_type = str(config.get("model_type", ""))
    config = thinker_config(config)
    audio = config.get("audio_config")
    audio_params: int | None = 0
    if isinstance(audio, dict):
        audio_params = _audio_params(audio, str(config.get("model_type", "")),
                                     _int(text_config(config), "hidden_size") or 0)
    vision = config.get("vision_config")
    if not isinstance(vision, dict):
        return audio_params
    if audio_params is None:
        return None
    vision_params = _vision_params(config, vision, top_type)
    return None if vision_params is None else vision_params + audio_params


def _vision_params(config: dict[str, Any], vision: dict[str, Any], top_type: str) -> int | None:
    kind = str(vision.get("model_type") or "")
    if top_type.startswith("qwen2_5_omni") or kind == "qwen2_5_omni_vision_encoder":
        kind = "qwen2_5_vl"  # Qwen2_5OmniVisionEncoderConfig: the Qwen2.5-VL ViT
    if top_type in ("qwen2_5_vl", "qwen2_vl") or kind in ("qwen2_5_vl", "qwen2_vl"):
        kind = "qwen2_5_vl"
    if top_type == "llama4":
        kind = "llama4_vision_model"
    if top_type.startswith("qwen3_omni") or kind == "qwen3_omni_moe_vision_encoder":
        kind = "qwen3_vl"  # Qwen3OmniMoeVisionEncoderConfig: Qwen3-VL's tower with its deepstack mergers
    if top_type.startswith("qwen3_vl") or kind in ("qwen3_vl", "qwen3_vl_moe"):
        kind = "qwen3_vl"
    if top_type.startswith("qwen3_5") or kind in ("qwen3_5", "qwen3_5_moe", "qwen3_5_vision"):
        kind = "qwen3_5_vision"
    if top_type == "mistral3" and not kind:
        kind = "pixtral"
    if top_type in ("glm4v", "glm4v_moe") or kind in ("glm4v", "glm4v_moe", "glm4v_vision", "glm4v_moe_vision"):
        kind = "glm4v_vision"
    if top_type == "kimi_k3" and not kind:
        kind = "kimi_k3_vision"
    defaults = _VISION_DEFAULTS.get(kind, {} if kind == "kimi_k3_vision" else None)
    if defaults is None:
        return None
    v = {**defaults, **vision}
    text = text_config(config)
    text_h = _int(text, "hidden_size") or 0
    try:
        if kind == "siglip_vision_model":
            return _siglip(v, text_h)
        if kind == "qwen2_5_vl":
            return _qwen_vit(v)
        if kind in ("qwen3_vl", "qwen3_5_vision"):
            return _qwen3_vit(v)
        if kind == "pixtral":
            return _pixtral(v, config, text_h)
        if kind == "kimi_k25_vision":
            return _moonvit(v, text_h)
        if kind == "kimi_k3_vision":
            return _kimi_k3_vit(v, text_h)
        if kind == "glm4v_vision":
            return _glm4v_vit(v)
        return _llama4_vision(v, text_h)
    except (TypeError, ValueError):
        return None


#: Qwen2_5OmniAudioEncoderConfig's defaults (transformers, checkpoint Qwen/Qwen2.5-Omni-7B) and
#: Qwen3OmniMoeAudioEncoderConfig's (checkpoint Qwen/Qwen3-Omni-30B-A3B-Instruct).
_AUDIO_DEFAULTS: dict[str, dict[str, Any]] = {
    "qwen2_5_omni_audio_encoder": {
        "num_mel_bins": 128, "encoder_layers": 32, "encoder_ffn_dim": 5120, "d_model": 1280, "output_dim": 3584,
    },
    "qwen3_omni_moe_audio_encoder": {
        "num_mel_bins": 128, "encoder_layers": 32, "encoder_ffn_dim": 5120, "d_model": 1280, "output_dim": 3584,
        "downsample_hidden_size": 480,
    },
    # Qwen2AudioEncoderConfig's defaults (transformers' configuration_qwen2_audio.py, checkpoint Qwen/Qwen2-Audio-7B)
    "qwen2_audio_encoder": {
        "num_mel_bins": 128, "encoder_layers": 32, "encoder_ffn_dim": 5120, "d_model": 1280,
        "max_source_positions": 1500,
    },
}


def _audio_params(audio: dict[str, Any], thinker_type: str, text_h: int) -> int | None:
    """Parameters of an omni model's audio encoder, or None for one of a kind not counted here.

    Qwen2.5-Omni (``Qwen2_5OmniAudioEncoder``, Whisper-style): conv1 (mel bins -> d, kernel 3) and conv2 (d -> d,
    kernel 3) with biases; layers x (q, v, o with biases and k without: 4d^2 + 3d; two LayerNorms 4d; fc1 and fc2
    with biases 2 d f + f + d); the final LayerNorm 2d; the projection d -> output_dim with its bias; the audio
    begin/end embeddings 2 x output_dim. The sinusoidal positions are a buffer, not weights.
    """
    kind = str(audio.get("model_type") or "")
    if not kind and thinker_type.startswith("qwen2_5_omni"):
        kind = "qwen2_5_omni_audio_encoder"
    if not kind and thinker_type.startswith("qwen3_omni"):
        kind = "qwen3_omni_moe_audio_encoder"
    if not kind and thinker_type == "qwen2_audio":
        kind = "qwen2_audio_encoder"
    defaults = _AUDIO_DEFAULTS.get(kind)
    if defaults is None:
        return None
    a = {**defaults, **audio}
    if kind == "qwen3_omni_moe_audio_encoder":
        return _qwen3_omni_audio(a)
    if kind == "qwen2_audio_encoder":
        return _qwen2_audio(a, text_h)
    try:
        d, f, layers = int(a["d_model"]), int(a["encoder_ffn_dim"]), int(a["encoder_layers"])
        mel, out = int(a["num_mel_bins"]), int(a["output_dim"])
    except (TypeError, ValueError):
        return None
    convs = mel * d * 3 + d + d * d * 3 + d
    layer = 4 * d * d + 3 * d + 4 * d + 2 * d * f + f + d
    return convs + layers * layer + 2 * d + d * out + out + 2 * out


def _qwen2_audio(a: dict[str, Any], text_h: int) -> int | None:
    """Qwen2-Audio's audio tower and projector as vLLM builds them (``qwen2_audio.py``: transformers'
    ``Qwen2AudioEncoder``, Whisper's encoder, and ``Qwen2AudioMultiModalProjector``): conv1 (mel bins -> d, kernel 3)
    and conv2 (d -> d, kernel 3) with biases; a learned position table ``max_source_positions`` x d (an
    ``nn.Embedding``, held in the checkpoint); layers x (q, v, o with biases and k without: 4d^2 + 3d; two LayerNorms
    4d; fc1 and fc2 with biases 2 d f + f + d); the final LayerNorm 2d; the projector d -> text hidden with its bias.
    The average pooling has no weights."""
    try:
        d, f, layers = int(a["d_model"]), int(a["encoder_ffn_dim"]), int(a["encoder_layers"])
        mel, positions = int(a["num_mel_bins"]), int(a["max_source_positions"])
    except (TypeError, ValueError):
        return None
    convs = mel * d * 3 + d + d * d * 3 + d
    layer = 4 * d * d + 3 * d + 4 * d + 2 * d * f + f + d
    return convs + positions * d + layers * layer + 2 * d + d * text_h + text_h


def _qwen3_omni_audio(a: dict[str, Any]) -> int | None:
    """Qwen3-Omni's audio encoder (``Qwen3OmniMoeAudioEncoder``): Qwen2.5-Omni's layers with a biased k_proj
    (4d^2 + 4d; two LayerNorms 4d; fc1 and fc2 with biases 2 d f + f + d), three 3x3 stride-2 Conv2d with biases
    (1 -> c, c -> c, c -> c, c = ``downsample_hidden_size``), conv_out c x mel' -> d without bias (mel' = the mel bins
    halved three times, rounding up), ln_post 2d, proj1 d -> d and proj2 d -> output_dim with biases."""
    try:
        d, f, layers = int(a["d_model"]), int(a["encoder_ffn_dim"]), int(a["encoder_layers"])
        mel, out, c = int(a["num_mel_bins"]), int(a["output_dim"]), int(a["downsample_hidden_size"])
    except (TypeError, ValueError):
        return None
    freq = (((mel + 1) // 2 + 1) // 2 + 1) // 2
    convs = (9 * c + c) + 2 * (9 * c * c + c) + c * freq * d
    layer = 4 * d * d + 4 * d + 4 * d + 2 * d * f + f + d
    return convs + layers * layer + 2 * d + d * d + d + d * out + out


def _kimi_k3_vit(v: dict[str, Any], text_h: int) -> int:
    """Kimi-K3's vision tower and projector as its published safetensors hold them (``vt_*`` keys of its
    ``vision_config``; no biases: ``attn_bias``, ``linear_bias`` and ``patch_embed_proj_bias`` false): a patch
    convolution 3 × patch² × H, a learned ``init_pos_emb_height`` × ``init_pos_emb_width`` × H table; per block two
    RMSNorms H, ``wqkv`` H × 3 ``qkv_hidden_size``, ``wo`` ``qkv_hidden_size`` × H and an MLP H × I × 2; a final
    norm H; the projector (``patchmergerv2``) over ``mm_hidden_size`` × merge² inputs M: M × M, M × text hidden and a
    norm of the text hidden."""
    H, inter, blocks = int(v["vt_hidden_size"]), int(v["vt_intermediate_size"]), int(v["vt_num_hidden_layers"])
    qkv, p = int(v.get("qkv_hidden_size") or H), int(v["patch_size"])
    merge = v.get("merge_kernel_size") or [2, 2]
    m = int(v.get("mm_hidden_size") or H) * int(merge[0]) * int(merge[1])
    tower = 3 * p * p * H + int(v["init_pos_emb_height"]) * int(v["init_pos_emb_width"]) * H
    tower += blocks * (2 * H + H * 3 * qkv + qkv * H + 2 * H * inter) + H
    return tower + m * m + m * text_h + text_h


def _siglip(v: dict[str, Any], text_h: int) -> int:
    H, inter, layers = int(v["hidden_size"]), int(v["intermediate_size"]), int(v["num_hidden_layers"])
    p, image, ch = int(v["patch_size"]), int(v["image_size"]), int(v["num_channels"])
    embed = ch * p * p * H + H + (image // p) ** 2 * H
    layer = 4 * H + 4 * (H * H + H) + (H * inter + inter) + (inter * H + H)
    return embed + layers * layer + 2 * H + H * text_h + H


def _qwen_vit(v: dict[str, Any]) -> int:
    H, inter, depth = int(v["hidden_size"]), int(v["intermediate_size"]), int(v["depth"])
    p, t, ch = int(v["patch_size"]), int(v["temporal_patch_size"]), int(v.get("in_channels", v.get("in_chans", 3)))
    merge, out = int(v["spatial_merge_size"]), int(v["out_hidden_size"])
    block = 2 * H + (3 * H * H + 3 * H) + (H * H + H) + (3 * H * inter + 2 * inter + H)
    merged = H * merge * merge
    merger = H + merged * merged + merged + merged * out + out
    return ch * t * p * p * H + depth * block + merger


def _moonvit(v: dict[str, Any], text_h: int) -> int:
    """Kimi-K2.5's MoonViT as vLLM's ``kimi_k25_vit.py`` builds it: a patch convolution with bias, a learned
    height x width position table (its temporal table is a buffer), blocks of two LayerNorms, a fused QKV and an
    output projection with biases and a biased GELU MLP, a final LayerNorm; then the patch-merger projector: a
    LayerNorm, and merged-width x merged-width and merged-width x text-hidden linears with biases."""
    h, inter, depth, patch = (int(v["hidden_size"]), int(v["intermediate_size"]), int(v["num_hidden_layers"]),
                              int(v["patch_size"]))
    mh, mw = (int(x) for x in v["merge_kernel_size"])
    block = 4 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * inter + inter) + (inter * h + h)
    tower = (3 * patch * patch * h + h) + int(v["init_pos_emb_height"]) * int(v["init_pos_emb_width"]) * h
    tower += depth * block + 2 * h
    merged = h * mh * mw
    return tower + 2 * h + (merged * merged + merged) + (merged * text_h + text_h)


def _qwen3_vit(v: dict[str, Any]) -> int:
    H, inter, depth = int(v["hidden_size"]), int(v["intermediate_size"]), int(v["depth"])
    p, t, ch = int(v["patch_size"]), int(v["temporal_patch_size"]), int(v.get("in_channels", v.get("in_chans", 3)))
    merge, out, positions = int(v["spatial_merge_size"]), int(v["out_hidden_size"]), int(v["num_position_embeddings"])
    deepstack = v.get("deepstack_visual_indexes") or []
    embed = ch * t * p * p * H + H + positions * H
    block = 4 * H + (3 * H * H + 3 * H) + (H * H + H) + (H * inter + inter) + (inter * H + H)
    merged = H * merge * merge
    mlp = merged * merged + merged + merged * out + out
    return embed + depth * block + (2 * H + mlp) + len(deepstack) * (2 * merged + mlp)


def _glm4v_vit(v: dict[str, Any]) -> int:
    """GLM-4.1V / GLM-4.5V's vision tower as GLM-4.5V's checkpoint holds it (a public listing of its tensors, the
    modules of transformers' ``Glm4vMoeVisionModel``; vLLM loads them into ``glm4_1v.py``'s tower): positions
    (image/p)^2 x H; patch Conv3d c x t x p^2 x H with its bias; an RMSNorm after it; depth x (2 RMSNorms 2H + qkv
    3H^2 + proj H^2, no biases, + a gated MLP 3 x H x out); a final RMSNorm; the downsample Conv2d H x out x s^2 with
    its bias; the merger: proj out^2, a LayerNorm 2 out and a gated MLP 3 x out x I (out = ``out_hidden_size``,
    I = ``intermediate_size``)."""
    h, out, inter = _int(v, "hidden_size") or 0, _int(v, "out_hidden_size") or 0, _int(v, "intermediate_size") or 0
    p, t = _int(v, "patch_size") or 14, _int(v, "temporal_patch_size") or 2
    side = (_int(v, "image_size") or 336) // p
    merge = _int(v, "spatial_merge_size") or 2
    channels = _int(v, "in_channels", "num_channels") or 3
    blocks = (_int(v, "depth", "num_hidden_layers") or 0) * (2 * h + 4 * h * h + 3 * h * out)
    return (side * side * h + channels * t * p * p * h + h + h + blocks + h + h * out * merge * merge + out
            + out * out + 2 * out + 3 * out * inter)


def _pixtral(v: dict[str, Any], config: dict[str, Any], text_h: int) -> int:
    H, inter, layers = int(v["hidden_size"]), int(v["intermediate_size"]), int(v["num_hidden_layers"])
    p, ch = int(v["patch_size"]), int(v["num_channels"])
    merge = _int(config, "spatial_merge_size") or 2
    bias = bool(config.get("multimodal_projector_bias"))
    encoder = ch * p * p * H + H + layers * (2 * H + 4 * H * H + 3 * H * inter)
    projector = H + merge * merge * H * H + H * text_h + text_h * text_h + ((2 * text_h) if bias else 0)
    return encoder + projector


def _llama4_vision(v: dict[str, Any], text_h: int) -> int:
    H, inter, layers = int(v["hidden_size"]), int(v["intermediate_size"]), int(v["num_hidden_layers"])
    p, image, ch = int(v["patch_size"]), int(v["image_size"]), int(v["num_channels"])
    proj_in, proj_out = int(v["projector_input_dim"]), int(v["projector_output_dim"])
    embed = ch * p * p * H + H + ((image // p) ** 2 + 1) * H + 4 * H
    layer = 4 * (H * H + H) + (H * inter + inter) + (inter * H + H) + 4 * H
    adapter = inter * proj_in + proj_out * proj_out
    return embed + layers * layer + adapter + int(v["vision_output_dim"]) * text_h


def quant_from_config(q: Any) -> tuple[Precision, str] | None:
    """(precision, method) of a ``quantization_config``, or None when it states none known."""
    if not isinstance(q, dict):
        return None
    method = str(q.get("quant_method", "")).lower()
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        bits = q.get("bits", q.get("w_bit"))
        if bits not in (2, 3, 4, 8):
            return None  # vLLM's ``from_config`` requires the bits, and GPTQ takes only these
        # 2 and 3 bits take the "int4" precision's place; :func:`weight_bytes_per_param` sizes them from ``bits``
        return ("int8" if bits == 8 else "int4"), method.replace("_marlin", "")
    if method in ("fp8", "fbgemm_fp8"):
        return "fp8", method
    if method == "mxfp4":
        return "mxfp4", method
    if method == "bitsandbytes":
        return ("int8" if q.get("load_in_8bit") else "int4"), method
    if method == "modelopt":
        algo = str(q.get("quant_algo", "")).upper()
        return ("nvfp4" if "FP4" in algo else "fp8"), method
    if method == "compressed-tensors":
        if "nvfp4" in str(q.get("format", "")).lower():
            return "nvfp4", method
        if "mxfp4" in str(q.get("format", "")).lower():
            # ``mxfp4-pack-quantized`` (Kimi-K3): float 4-bit in groups of 32 with a uint8 (e8m0) scale each
            return "mxfp4", method
        groups = q.get("config_groups") or {}
        for group in groups.values() if isinstance(groups, dict) else ():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict):
                bits = weights.get("num_bits")
                kind = str(weights.get("type", "int")).lower()
                if kind == "float":
                    return ("nvfp4" if bits == 4 else "fp8"), method
                return ("int8" if bits == 8 else "int4"), method
        return "fp8", method
    return None


#: Bytes of one weight of each precision, before any per-group scales.
_ELEMENT_BYTES: dict[str, float] = {
    "fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "mxfp4": 0.5, "nvfp4": 0.5,
}


def weight_bytes_per_param(precision: Precision, quantization_config: Any = None) -> float:
    """Bytes a checkpoint stores per quantised weight, scales and zero points included.

    GPTQ/AWQ with ``bits`` b (2, 3, 4 or 8: ``GPTQConfig``; AWQ 4) and ``group_size`` g (default 128):
    b/8 + (2 + b/8) / g, what vLLM allocates per weight (``GPTQLinearMethod.create_weights``: ``qweight`` int32
    packing 32/b values, ``scales`` fp16 and ``qzeros`` int32 packing 32/b zero points per group per output column;
    AWQ likewise): Int4 0.5195, Int8 1.0234, Int3 0.3936, Int2 0.2676; g = -1 (one group per column) b/8. The
    ``g_idx`` int32 per input row (kept only with ``desc_act``) is 4 / out_features bytes a weight (0.2 % of a 4-bit
    weight at 4,096 columns) and left out; compressed-tensors integer weights: b/8 + 2/g for group strategies
    (+ b/8 / g with a zero point, ``symmetric: false``), + 2/in_features (taken as 0) per channel; FP8: 1 (one scale
    per tensor, channel or 128x128 block is negligible); MXFP4: 0.5 + 1/32 (an e8m0 scale per 32); NVFP4:
    0.5 + 1/16 (an fp8 scale per 16); bitsandbytes 4-bit: 0.5 + 4/64 (an fp32 absmax per 64, 8-bit
    double-quantised: 1/64 + tiny); unquantised precisions: their element size.
    """
    base = _ELEMENT_BYTES[precision]
    q = quantization_config if isinstance(quantization_config, dict) else {}
    method = str(q.get("quant_method", "")).lower()
    if precision == "mxfp4":
        return base + 1 / 32
    if precision == "nvfp4":
        return base + 1 / 16
    if method in ("gptq", "awq", "gptq_marlin", "awq_marlin") or (not method and precision in ("int4", "int8")):
        bits = q.get("bits", q.get("w_bit"))
        element = bits / 8 if isinstance(bits, int) and bits in (2, 3, 4, 8) else base
        group = q.get("group_size", q.get("q_group_size", 128))
        if group == -1:  # one group per output column: (2 + b/8) / in_features, under 0.1 % at any real width
            return element
        group = group if isinstance(group, int) and group > 0 else 128
        return element + (2 + element) / group
    if method == "bitsandbytes" and precision == "int4":
        double = q.get("bnb_4bit_use_double_quant", True)
        return base + (1 / 64 + 4 / (64 * 256) if double else 4 / 64)
    if method == "compressed-tensors" and precision in ("int4", "int8"):
        for group in (q.get("config_groups") or {}).values():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict) and weights.get("strategy") == "group":
                size = weights.get("group_size")
                size = size if isinstance(size, int) and size > 0 else 128
                # an asymmetric scheme adds a zero point per group, packed at the weights' width
                # (``CompressedTensorsWNA16.create_weights``: ``weight_zero_point`` when not symmetric)
                zero = base if weights.get("symmetric") is False else 0.0
                return base + (2 + zero) / size
        return base
    return base


def _read(path: str, what: str) -> bytes:
    """A model file's bytes: a regular file only, bounded (:mod:`..model.files`), else :class:`CatalogError`."""
    try:
        return read_file_bytes(path)
    except InputError as e:
        raise CatalogError(e.message.replace("cannot read: ", f"cannot read {what}: ", 1), file=path) from None


def load_local_model(path: str | os.PathLike[str]) -> ModelShape:
    """Read a Hugging Face ``config.json`` (or a directory holding one) into a :class:`ModelShape`.

    Parameters come from ``model.safetensors.index.json`` beside it when present
    (``metadata.total_parameters``, or ``metadata.total_size`` bytes / bytes per parameter of the
    unquantised ``torch_dtype``), otherwise from :func:`derive_params`; an omni checkpoint's always
    from :func:`derive_params` on its thinker (the index also holds the talker, which vLLM does not load).
    """
    target = os.fspath(path)
    # a folder named config.json is the file that is no regular file (fuzz13), not a model folder that lacks one
    is_model_dir = os.path.isdir(target) and os.path.basename(os.path.normpath(target)) != "config.json"
    config_path = os.path.join(target, "config.json") if is_model_dir else target
    if not os.path.lexists(config_path):
        raise CatalogError("config.json not found", file=config_path)
    try:
        raw = json.loads(_read(config_path, "model config").decode("utf-8"))
    except UnicodeDecodeError:
        raise CatalogError("model config is not UTF-8 text", file=config_path) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"invalid JSON: {exc.msg}", file=config_path, line=exc.lineno) from None
    except (ValueError, RecursionError):  # an integer longer than Python reads (4,300 digits), nesting too deep
        raise CatalogError("invalid JSON: a number of more than 4,300 digits or nesting too deep",
                           file=config_path) from None
    if not isinstance(raw, dict):
        raise CatalogError("model config must be a JSON object", file=config_path)
    model_id = os.path.basename(os.path.dirname(os.path.abspath(config_path))) or config_path
    shape = shape_from_config(raw, model_id=model_id, source=config_path, directory=os.path.dirname(config_path))
    return shape


def shape_from_config(raw: dict[str, Any], *, model_id: str, source: str, directory: str | None = None) -> ModelShape:
    """A :class:`ModelShape` from a parsed ``config.json`` (errors name ``source``)."""
    cfg = text_config(raw)
    if cfg.get("model_type") == "nemotron_h" and _int(cfg, "num_hidden_layers") is None and _layer_pattern(cfg):
        cfg = {**cfg, "num_hidden_layers": len(_layer_pattern(cfg) or "")}
    try:
        req = required(cfg)
        # vLLM's _get_and_verify_max_len reads these keys (Kimi Linear gives only model_max_length)
        max_pos = _int(cfg, "max_position_embeddings", "max_sequence_length", "seq_length", "n_positions",
                       "max_seq_len", "max_seq_length", "seq_len", "model_max_length")
        heads = req["num_attention_heads"]
        kv_heads = kv_heads_of(cfg, heads)
        moe = moe_from_config(cfg)
        widths = cfg.get("intermediate_size")
        if isinstance(widths, list) and widths and all(isinstance(w, int) and not isinstance(w, bool) for w in widths):
            cfg = {**cfg, "intermediate_size": max(widths)}  # one width per layer (Gemma 3n): the widest
        intermediate = _int(cfg, "intermediate_size", "ffn_dim", "ffn_hidden_size", "n_inner")
        blocks = nas_blocks(cfg)
        if intermediate is None and blocks:  # Llama-Nemotron: a width per layer, the widest sizes the activations
            intermediate = max(b.ffn_width for b in blocks) or None
        if intermediate is None and cfg.get("model_type") in ("falcon", "phi", "gpt2"):
            intermediate = 4 * req["hidden_size"]
        mla = None
        kv_lora = _int(cfg, "kv_lora_rank")
        if kv_lora:
            mla = MlaShape(kv_lora_rank=kv_lora, qk_rope_head_dim=_int(cfg, "qk_rope_head_dim") or 0)
            head_dim = (_int(cfg, "qk_nope_head_dim") or 0) + mla.qk_rope_head_dim
        else:
            head_dim = _int(cfg, "head_dim") or req["hidden_size"] // heads
    except KeyError as exc:
        raise CatalogError(f"missing required key(s) in model config: {exc.args[0]}", file=source) from None
    except ValueError as exc:
        raise CatalogError(str(exc), file=source) from None
    missing = [k for k, v in (("max_position_embeddings", max_pos),) if v is None]
    if intermediate is None and (moe is None or not moe.moe_intermediate_size):
        missing.append("intermediate_size")
    if missing:
        raise CatalogError(f"missing required key(s) in model config: {', '.join(missing)}", file=source)

    dtype = str(raw.get("torch_dtype") or raw.get("dtype") or cfg.get("torch_dtype") or cfg.get("dtype") or "")
    extra: dict[str, object] = {"model_type": cfg.get("model_type"), "config_path": source}
    if dtype not in DTYPE_PRECISION:
        dtype = "bfloat16"  # absent or unusual: assume the common case and say so
        extra["torch_dtype_assumed"] = True
    quant_cfg = raw.get("quantization_config") or cfg.get("quantization_config")
    quant = quant_from_config(quant_cfg)
    precision: Precision = quant[0] if quant else DTYPE_PRECISION.get(dtype, "bf16")
    if isinstance(quant_cfg, dict) and quant_cfg.get("quant_method"):
        extra["quant_method"] = quant_cfg.get("quant_method")
        if quant is None and str(quant_cfg["quant_method"]).lower() in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
            # a GPTQ/AWQ config without bits vLLM takes: quantised, at a width the config does not state
            precision = "int4"
            extra["quantization_bits_unstated"] = True

    vision = derive_vision_params(raw)
    if vision is None:
        extra["vision_params_note"] = ("the vision or audio encoder of this config is of a kind not counted; "
                                       "params lack it")
    params, params_source = (None, "derived")
    stored_head = False
    unloaded = [k for k in _OMNI_UNLOADED if isinstance(raw.get(k), dict)]
    if unloaded:  # the index's total_size also holds the talker and the code-to-wave model
        extra["params_note"] = f"the thinker's weights; vLLM does not load {', '.join(unloaded)}"
    elif directory is not None:
        params, params_source, stored_head = _params_from_index(directory, dtype, quant is not None)
    if (params is not None and stored_head and cfg.get("tie_word_embeddings")
            and params > 2 * req["vocab_size"] * req["hidden_size"]):  # a total that holds both tables
        # the index's total counts an lm_head.weight the tied config does not build: params is the tied model's, and
        # the stored head is distinct_lm_head (vLLM 0.29+ loads it untied, earlier releases skip it)
        params -= req["vocab_size"] * req["hidden_size"]
        extra["params_note"] = ("the safetensors index stores an lm_head.weight beside the tied embeddings: the "
                                "total less one vocab x hidden table (vLLM builds it untied from 0.29 only)")
    else:
        stored_head = False
    if params is None:
        try:
            params, params_source = derive_params(raw), "derived"
        except CatalogError as exc:
            raise CatalogError(exc.message, file=source) from None
    extra["params_source"] = params_source

    name_or_path = raw.get("_name_or_path")
    if isinstance(name_or_path, str) and name_or_path:
        extra["name_or_path"] = name_or_path
    outer = thinker_config(raw)
    text = outer.get("text_config")
    if isinstance(text, dict):
        extra[TEXT_ROPE_KEY] = {k: text[k] for k in _ROPE_KEYS if k in text}
        extra[COMPOSITE_TYPE_KEY] = outer.get("model_type")
    return ModelShape(
        id=model_id,
        params=params,
        num_hidden_layers=req["num_hidden_layers"],
        hidden_size=req["hidden_size"],
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate or 0,
        vocab_size=req["vocab_size"],
        max_position_embeddings=max_pos or 0,
        torch_dtype=dtype,
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings")),
        precision=precision,
        quantization=quant[1] if quant else (str(extra["quant_method"]).lower().replace("_marlin", "")
                                             if extra.get("quantization_bits_unstated") else None),
        moe=moe,
        mla=mla,
        source=source,
        extra=extra,
        hf_config=hf_config_of(raw),
        vision_params=vision or 0,
        distinct_lm_head=stored_head,
    )


def _stores_lm_head(index: object) -> bool:
    """Whether a safetensors index's ``weight_map`` names an LM head tensor: a name ending in ``lm_head.weight``,
    the test vLLM's ``checkpoint_has_lm_head`` makes of the checkpoint's tensor names (``transformers_utils/config.py``,
    read in the 0.29.0 wheel)."""
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    return isinstance(weight_map, dict) and any(
        isinstance(name, str) and name.endswith("lm_head.weight") for name in weight_map)


def _params_from_index(directory: str, dtype: str, quantized: bool) -> tuple[int | None, str, bool]:
    """Parameters from the index's totals (None where it gives none), where they came from, and whether its
    ``weight_map`` stores an LM head (:func:`_stores_lm_head`)."""
    index_path = os.path.join(directory, "model.safetensors.index.json")
    if not os.path.exists(index_path):
        return None, "derived", False
    try:
        index = json.loads(_read(index_path, "safetensors index").decode("utf-8"))
    except UnicodeDecodeError:
        raise CatalogError("cannot read safetensors index: not UTF-8 text", file=index_path) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"invalid JSON: {exc.msg}", file=index_path, line=exc.lineno) from None
    except (ValueError, RecursionError):  # an integer longer than Python reads (4,300 digits), nesting too deep
        raise CatalogError("invalid JSON: a number of more than 4,300 digits or nesting too deep",
                           file=index_path) from None
    head = _stores_lm_head(index)
    meta = index.get("metadata") if isinstance(index, dict) else None
    if not isinstance(meta, dict):
        return None, "derived", head
    total_params = meta.get("total_parameters")
    if isinstance(total_params, int) and not isinstance(total_params, bool) and total_params > 0:
        return total_params, "safetensors index: total_parameters", head
    total_size = meta.get("total_size")
    per = _DTYPE_BYTES.get(dtype)
    if not quantized and per and isinstance(total_size, int) and total_size > 0:
        return total_size // per, f"safetensors index: total_size / {per} bytes", head
    return None, "derived", head


# The per-layer pieces of the parameter count, for the weights of a quantised checkpoint whose ignore list keeps
# some layer kinds in 16 bits (capacity.weights): the same functions the count itself uses.
attention_params = _attention
full_attention_layers = _full_attention_layers
linear_attention_params = _linear_attention
config_int = _int


#: The ``config.json`` keys ``--hf-overrides`` may set that decide the context limit vLLM derives from the config
#: (``ModelConfig.get_and_verify_max_len``: ``max_position_embeddings``, scaled by ``rope_scaling`` or, from 0.12.0,
#: ``rope_parameters``, the name transformers 5 gives it): the ones the capacity model applies; the others stay as
#: the checkpoint has them.
HF_OVERRIDE_LENGTH_KEYS = ("max_position_embeddings", "rope_scaling", "rope_parameters")


def hf_overrides_of(extra: dict[str, Any]) -> dict[str, Any]:
    """The config overrides a workload's engine arguments give, as one dict: ``--hf-overrides`` as a JSON object,
    its dotted keys (``--hf-overrides.max_position_embeddings 65536``: vLLM's argument parser nests them), and
    ``--rope-scaling``, the ``rope_scaling`` override of releases before 0.11.1. A value that is not JSON (a
    variable, an unknown) overrides nothing."""
    out: dict[str, Any] = {}
    raw = extra.get("rope_scaling")
    rope = _json_value(raw)
    if isinstance(rope, dict):
        out["rope_scaling"] = rope
    whole = _json_value(extra.get("hf_overrides"))
    if isinstance(whole, dict):
        out.update(whole)
    for key, value in extra.items():
        if key.startswith("hf_overrides.") and len(key) > len("hf_overrides."):
            parsed = _json_value(value)
            if parsed is not None:
                out[key[len("hf_overrides."):]] = parsed
    return out


def _json_value(value: Any) -> Any:
    if isinstance(value, (dict, int, float)) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def with_hf_overrides(model: ModelShape, overrides: dict[str, Any]) -> ModelShape:
    """The model as vLLM configures it under ``--hf-overrides`` (``ModelConfig.__post_init__``,
    ``vllm/config/model.py``: a flat value goes through ``PretrainedConfig.update``, a dict value is set as the
    attribute, or merged into a nested config such as ``text_config``; the limit is derived afterwards), for
    :data:`HF_OVERRIDE_LENGTH_KEYS`, at the top level or in ``text_config`` (the shape merges it over the top
    level): a YaRN ``rope_scaling`` of factor 4 over 32,768 positions lets Qwen3-32B take 131,072 tokens. The same
    model where nothing it reads is overridden.

    Of a composite config.json (:data:`TEXT_ROPE_KEY`), vLLM reads the length from the text config, which a
    top-level override reaches only where transformers passes the attribute on: the shape returned is the one
    without the top-level length keys, and what the length reads with them is kept in :data:`OVERRIDE_TOP_KEY` for
    the releases whose transformers does (``weights.top_override_readings``)."""
    own = model.extra.get(TEXT_ROPE_KEY) if model.extra else None
    top = [k for k in HF_OVERRIDE_LENGTH_KEYS if k in overrides]
    if not isinstance(own, dict) or not top:
        return _with_overrides(model, overrides)
    reached = _with_overrides(model, overrides)
    shape = _with_overrides(model, {k: v for k, v in overrides.items() if k not in top})
    if (reached.max_position_embeddings, reached.extra) == (shape.max_position_embeddings, shape.extra):
        return shape  # nothing at the top level the length reads (ModelShape's equality leaves extra out)
    outer = str(model.extra.get(COMPOSITE_TYPE_KEY) or "")
    return dataclasses.replace(shape, extra={**shape.extra, OVERRIDE_TOP_KEY: {
        "keys": top, "forwards": outer in TOP_FORWARDING_TYPES,
        "max_position_embeddings": reached.max_position_embeddings,
        TEXT_ROPE_KEY: reached.extra.get(TEXT_ROPE_KEY),
        OVERRIDE_ROPE_KEY: reached.extra.get(OVERRIDE_ROPE_KEY),
    }})


#: ``ModelShape.extra``'s record of a top-level length override on a composite config (:func:`with_hf_overrides`):
#: ``keys`` (the top-level keys given), ``forwards`` (whether transformers 4.57's class of the checkpoint passes a
#: top-level attribute a text config holds on to it, :data:`TOP_FORWARDING_TYPES`), and what the length reads where
#: it does: ``max_position_embeddings``, :data:`TEXT_ROPE_KEY` and :data:`OVERRIDE_ROPE_KEY`.
OVERRIDE_TOP_KEY = "hf_override_top"
#: ``ModelShape.extra``'s record of a composite config.json's own top-level ``model_type`` (its ``hf_config`` holds
#: the text config's).
COMPOSITE_TYPE_KEY = "composite_model_type"
#: The composite configs whose transformers-4 class sets an attribute the text config holds on the text config:
#: ``Qwen2VLConfig.__setattr__`` and ``Qwen2_5_VLConfig.__setattr__`` in 4.57.0 (``key in text_config.__dict__``:
#: ``setattr(text_config, key, value)``); no other ``configuration_*.py`` of 4.57.0 defines ``__setattr__``, and
#: 5.5.3's ``PreTrainedConfig.__setattr__`` only maps ``attribute_map`` names (its ``rope_scaling`` setter sets the
#: outer ``rope_parameters``).
TOP_FORWARDING_TYPES = frozenset({"qwen2_vl", "qwen2_5_vl"})


def _with_overrides(model: ModelShape, overrides: dict[str, Any]) -> ModelShape:
    """:func:`with_hf_overrides` with every key taken as reaching the config the length reads."""
    keys: dict[str, Any] = {}
    nested = overrides.get("text_config")
    scaling_given = ""  # where a dict-valued rope_scaling override is written: "top" or "nested"
    for where, layer in (("top", overrides), ("nested", nested if isinstance(nested, dict) else {})):
        for key in HF_OVERRIDE_LENGTH_KEYS:
            if key in layer:
                keys[key] = layer[key]
                if key == "rope_scaling" and isinstance(layer[key], dict):
                    scaling_given = where
    positions = keys.get("max_position_embeddings")
    if positions is not None and (isinstance(positions, bool) or not isinstance(positions, int) or positions <= 0):
        del keys["max_position_embeddings"]
    for rope in ("rope_scaling", "rope_parameters"):
        if rope in keys and not (keys[rope] is None or isinstance(keys[rope], dict)):
            del keys[rope]
    if not keys:
        return model
    config = {**model.hf_config, **keys}
    extra = model.extra
    own = extra.get(TEXT_ROPE_KEY) if extra else None
    seen = own if isinstance(own, dict) else model.hf_config  # the RoPE keys the length reads (a composite's own)
    if isinstance(own, dict) and any(k in keys for k in _ROPE_KEYS):
        extra = {**extra, TEXT_ROPE_KEY: {**own, **{k: keys[k] for k in _ROPE_KEYS if k in keys}}}
    if scaling_given or isinstance(keys.get("rope_parameters"), dict):
        # what the releases that apply a dict after patch_rope_parameters read (weights.derived_max_model_len)
        extra = {**extra, OVERRIDE_ROPE_KEY: {
            "rope_scaling": scaling_given,
            "rope_parameters": isinstance(keys.get("rope_parameters"), dict),
            "checkpoint": {k: seen[k] for k in _ROPE_KEYS if k in seen},
        }}
    return dataclasses.replace(model, hf_config=config, extra=extra,
                               max_position_embeddings=keys.get("max_position_embeddings",
                                                                model.max_position_embeddings))


#: ``ModelShape.extra``'s record of a composite config.json (one that writes a ``text_config``): the RoPE keys
#: (``rope_scaling``, ``rope_parameters``) its ``text_config`` itself writes, which are all the length reads
#: (``weights.length_config``). vLLM derives the length from ``hf_text_config``, the text config object
#: (``transformers_utils/config.py`` ``get_hf_text_config``; ``config/model.py`` ``_get_and_verify_max_len``), and no
#: transformers release read builds it from a top-level RoPE key where the file writes a ``text_config``: 4.57's
#: ``Qwen2_5_VLConfig`` / ``Qwen2VLConfig`` set the top-level keys on the outer config (``super().__init__(**kwargs)``
#: before ``text_config`` exists) and the text config answers its own (``__getattribute__``), the other composite
#: classes (``LlavaConfig``, ``Gemma3Config``, ``Mistral3Config``) never pass them on; 5.5.3's ``Qwen2_5_VLConfig``
#: pops them into ``text_kwargs``, used only where ``text_config`` is absent. The shape's ``hf_config`` still merges
#: them (vLLM's ``uses_mrope`` reads the outer config's too).
TEXT_ROPE_KEY = "text_config_rope"
_ROPE_KEYS = ("rope_scaling", "rope_parameters")

#: ``ModelShape.extra``'s record of a dict-valued RoPE override (:func:`with_hf_overrides`): ``rope_scaling``, where
#: one is written ("top", "nested" in ``text_config``, "" for none), ``rope_parameters`` (whether one is written) and
#: ``checkpoint``, the checkpoint's own ``rope_scaling`` / ``rope_parameters``. vLLM 0.11.1 on applies a dict-valued
#: override after ``get_config`` has run ``patch_rope_parameters`` (``ModelConfig._apply_dict_overrides``), so where
#: the release reads ``rope_parameters`` under transformers 4 the override's ``rope_scaling`` never reaches it.
OVERRIDE_ROPE_KEY = "hf_override_rope"
