"""Qwen3-VL from its published config.json: the catalog's record is what :func:`derive_params` makes of it."""

from __future__ import annotations

from typing import Any

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, derive_vision_params, find_model, shape_from_config

# Qwen/Qwen3-VL-4B-Instruct's config.json, as kohya-ss/musubi-tuner vendors it verbatim
# (src/musubi_tuner/krea2/krea2_encoder.py, QWEN3_VL_4B_INSTRUCT_CONFIG, Apache-2.0); the keys sizing reads.
QWEN3_VL_4B: dict[str, Any] = {
    "architectures": ["Qwen3VLForConditionalGeneration"],
    "model_type": "qwen3_vl",
    "tie_word_embeddings": True,
    "text_config": {
        "attention_bias": False, "dtype": "bfloat16", "head_dim": 128, "hidden_act": "silu", "hidden_size": 2560,
        "intermediate_size": 9728, "max_position_embeddings": 262144, "model_type": "qwen3_vl_text",
        "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
        "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"},
        "rope_theta": 5000000, "tie_word_embeddings": True, "vocab_size": 151936,
    },
    "vision_config": {
        "deepstack_visual_indexes": [5, 11, 17], "depth": 24, "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1024,
        "in_channels": 3, "intermediate_size": 4096, "model_type": "qwen3_vl", "num_heads": 16,
        "num_position_embeddings": 2304, "out_hidden_size": 2560, "patch_size": 16, "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    },
}


def test_the_catalog_record_is_what_the_config_gives():
    m = find_model("Qwen/Qwen3-VL-4B-Instruct")
    assert (derive_params(QWEN3_VL_4B), derive_vision_params(QWEN3_VL_4B)) == (4_437_815_808, 415_347_712)
    assert (m.params, m.vision_params) == (4_437_815_808, 415_347_712)
    taught = shape_from_config(QWEN3_VL_4B, model_id="Qwen/Qwen3-VL-4B-Instruct", source="config.json")
    assert (taught.params, taught.num_hidden_layers, taught.hidden_size, taught.num_key_value_heads,
            taught.vocab_size, taught.max_position_embeddings, taught.tie_word_embeddings) == (
        m.params, m.num_hidden_layers, m.hidden_size, m.num_key_value_heads, m.vocab_size,
        m.max_position_embeddings, m.tie_word_embeddings)
    assert taught.hf_config["vision_config"] == m.hf_config["vision_config"]


def test_qwen3_vl_4b_on_one_l4():
    # 36 layers × 8 KV heads × 128 × K and V × 2 bytes = 147,456 bytes per token; the vision tower is profiled
    s = sizing.size_deployment(find_model("Qwen/Qwen3-VL-4B-Instruct"), sizing.Device("L4", 22.05, "nvidia", "ada", 1),
                               sizing.EngineSettings(max_model_len=32768), "0.14.1")
    assert s.kv_bytes_per_token_per_gpu == 147_456
    assert (s.starts, s.verdict) == (True, "starts")
    assert s.notes[0].startswith("vision encoder profiled with 1 image")
