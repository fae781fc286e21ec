"""Model families people serve now (2025-2026), added from their published shapes, and what the KV model does with them.

Each case rebuilds the config.json keys the record was taken from (the model card's architecture list, the
technical report's table, config.json's vision_config at a revision) and checks that the catalog's parameter count is
what :func:`derive_params` makes of them, then the KV bytes vLLM caches per token at TP1 in bf16 and the context limit.
"""

from __future__ import annotations

from typing import Any

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, derive_vision_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

# Qwen/Qwen3.6-27B: the model card's language model (64 layers, 16 x (3 Gated DeltaNet + 1 gated attention),
# 24 Q / 4 KV heads of 256, linear attention 16 QK / 48 V heads of 128, FFN 17408, vocabulary 248320, 262,144
# tokens) and config.json's vision_config at 6a9e13bd6fc8f0983b9b99948120bc37f49c13e9.
QWEN36_27B: dict[str, Any] = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "tie_word_embeddings": False,
    "text_config": {
        "model_type": "qwen3_5_text", "attn_output_gate": True, "dtype": "bfloat16",
        "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 64, "num_attention_heads": 24,
        "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 248320, "max_position_embeddings": 262144,
        "full_attention_interval": 4,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48,
    },
    "vision_config": {
        "depth": 27, "hidden_size": 1152, "num_heads": 16, "intermediate_size": 4304, "patch_size": 16,
        "temporal_patch_size": 2, "spatial_merge_size": 2, "num_position_embeddings": 2304, "in_channels": 3,
        "hidden_act": "gelu_pytorch_tanh", "out_hidden_size": 5120, "deepstack_visual_indexes": [],
    },
}
# Qwen/Qwen3.6-35B-A3B: the model card (40 layers, 10 x (3 + 1), 16 Q / 2 KV heads of 256, 16 QK / 32 V linear
# heads of 128, 256 experts of 512, 8 routed + 1 shared); Qwen3.6-27B's vision tower projecting to 2048.
QWEN36_35B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "text_config": {
        **QWEN36_27B["text_config"], "model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40,
        "num_attention_heads": 16, "num_key_value_heads": 2, "linear_num_value_heads": 32,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10,
        "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
    },
    "vision_config": {**QWEN36_27B["vision_config"], "out_hidden_size": 2048},
}
# zai-org/GLM-5: the technical report's table and NVIDIA NeMo's GLM-5 page.
GLM5: dict[str, Any] = {
    "architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "torch_dtype": "bfloat16",
    "hidden_size": 6144, "num_hidden_layers": 78, "num_attention_heads": 64, "num_key_value_heads": 64,
    "q_lora_rank": 2048, "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
    "intermediate_size": 12288, "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
    "num_experts_per_tok": 8, "first_k_dense_replace": 3, "topk_method": "noaux_tc", "vocab_size": 154880,
    "index_n_heads": 32, "index_head_dim": 128, "index_topk": 2048, "tie_word_embeddings": False,
    "max_position_embeddings": 202752,
}

# MiniMaxAI/MiniMax-M2's config.json at fbd8a14b6d10042f57f4a06fa9a2d30035c8d072 (trimmed; FP8 blocks of 128)
MINIMAX_M2: dict[str, Any] = {
    "architectures": ["MiniMaxM2ForCausalLM"], "head_dim": 128, "hidden_act": "silu", "hidden_size": 3072,
    "intermediate_size": 1536, "max_position_embeddings": 196608, "model_type": "minimax_m2",
    "num_attention_heads": 48, "num_experts_per_tok": 8, "num_hidden_layers": 62, "num_key_value_heads": 8,
    "num_local_experts": 256, "tie_word_embeddings": False, "vocab_size": 200064,
    "quantization_config": {"activation_scheme": "dynamic", "dequantize": False,
                            "modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head"],
                            "quant_method": "fp8", "weight_block_size": [128, 128]},
    "rope_parameters": {"partial_rotary_factor": 0.5, "rope_theta": 5000000.0, "rope_type": "default"},
    "mtp_transformer_layers": 1, "num_mtp_modules": 3, "use_mtp": True,
}

NEW_IDS = ["Qwen/Qwen3.6-27B", "Qwen/Qwen3.6-35B-A3B", "zai-org/GLM-5", "zai-org/GLM-5.1", "MiniMaxAI/MiniMax-M2",
           "MiniMaxAI/MiniMax-M2.1", "MiniMaxAI/MiniMax-M2.5", "MiniMaxAI/MiniMax-M2.7", "zai-org/GLM-4.7",
           "zai-org/GLM-4.7-Flash"]


def test_qwen36_27b_counts_its_vision_tower_and_matches_the_published_checkpoint():
    # text: embeddings 2 x 248320 x 5120; 16 gated-attention layers (q doubled for the output gate, q/k norms);
    # 48 Gated DeltaNet layers; 64 SwiGLU MLPs of 17408; norms
    assert derive_vision_params(QWEN36_27B) == 460_730_096
    assert derive_params(QWEN36_27B) == 26_895_998_464 + 460_730_096
    model = find_model("Qwen/Qwen3.6-27B")
    assert (model.params, model.vision_params) == (27_356_728_560, 460_730_096)
    # with the 1-layer MTP head (424,699,392) the checkpoint holds 27,781,427,952 bf16 weights: 55.56 GB, the
    # total_size of its model.safetensors.index.json
    assert round((model.params + 424_699_392) * 2 / 1e9, 2) == 55.56


def test_qwen36_35b_a3b_and_glm5_params_are_what_their_shapes_imply():
    assert derive_vision_params(QWEN36_35B_A3B) == 446_571_248
    assert derive_params(QWEN36_35B_A3B) == find_model("Qwen/Qwen3.6-35B-A3B").params == 35_107_181_936
    assert derive_params(GLM5) == find_model("zai-org/GLM-5").params == 743_911_218_432  # the report's 744B
    assert find_model("zai-org/GLM-5.1").params == 743_911_218_432
    glm47_flash = {"model_type": "glm4_moe_lite", "hidden_size": 2048, "intermediate_size": 10240,
                   "moe_intermediate_size": 1536, "topk_method": "noaux_tc", "num_attention_heads": 20,
                   "n_routed_experts": 64, "n_shared_experts": 1, "num_experts_per_tok": 4, "first_k_dense_replace": 1,
                   "num_hidden_layers": 47, "num_key_value_heads": 20, "q_lora_rank": 768, "kv_lora_rank": 512,
                   "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256, "vocab_size": 154880,
                   "tie_word_embeddings": False, "attention_bias": False, "max_position_embeddings": 202752}
    assert derive_params(glm47_flash) == find_model("zai-org/GLM-4.7-Flash").params == 29_943_393_920
    assert find_model("zai-org/GLM-4.7").params == find_model("zai-org/GLM-4.6").params


def test_minimax_m2_from_its_config():
    # per layer: q 3072 x 6144, k and v 3072 x 1024, o 6144 x 3072, q/k RMSNorms over all heads (6144 + 1024),
    # 256 experts x 3 x 3072 x 1536 + router 3072 x 256 + its bias; embeddings and LM head 2 x 200064 x 3072
    assert derive_params(MINIMAX_M2) == 228_689_764_864
    taught = shape_from_config(MINIMAX_M2, model_id="MiniMaxAI/MiniMax-M2", source="config.json")
    record = find_model("MiniMaxAI/MiniMax-M2")
    assert (taught.params, taught.precision, taught.moe) == (record.params, "fp8", record.moe)
    assert find_model("MiniMaxAI/MiniMax-M2.7").params == record.params


def test_taught_qwen36_config_is_the_catalog_record():
    taught = shape_from_config(QWEN36_27B, model_id="Qwen/Qwen3.6-27B", source="config.json")
    record = find_model("Qwen/Qwen3.6-27B")
    fields = ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
              "intermediate_size", "vocab_size", "max_position_embeddings", "vision_params")
    assert {f: getattr(taught, f) for f in fields} == {f: getattr(record, f) for f in fields}
    kinds = {t.kind: t.layers for t in kv_layout.layout(taught, 1, 1, 2).types}
    assert kinds == {"full": 16, "state": 48}


def test_qwen36_attention_block_is_what_vllm_0_27_1_logs():
    """phivan3008/meeting-translator vllm_serve.log at 59159b20 (0.27.1, one H100, Qwen3.6-27B-FP8): 'Setting attention
    block size to 784 tokens to ensure that attention page size is >= mamba page size', 'Padding mamba page size by
    0.13%': 16 x cdiv(3,207,168, 16 x 4,096) = 784 with a float32 recurrent state (400 with a bf16 one)."""
    device = sizing.Device("H100", 79.18, "nvidia", "hopper")
    settings = sizing.EngineSettings(max_model_len=4096, gpu_memory_utilization=0.88, enforce_eager=True,
                                     max_num_batched_tokens=4096, max_num_seqs=32)
    sized = sizing.size_deployment(find_model("Qwen/Qwen3.6-27B-FP8"), device, settings, "0.27.1")
    assert sized.block_size == 784
    assert round((784 * 4096 - 3_207_168) / 3_207_168 * 100, 2) == 0.13


def test_kv_bytes_per_token_at_tp1_bf16():
    q27 = kv_layout.layout(find_model("Qwen/Qwen3.6-27B"), 1, 1, 2)
    # 16 full-attention layers of 2 x 4 KV heads x 256 x 2 bytes; 48 Gated DeltaNet layers hold a constant state
    # per request: conv (2 x 16 x 128 + 48 x 128) x 3 values of 2 bytes + recurrent 48 x 128 x 128 of 4 (config.json's
    # mamba_ssm_dtype float32, which vLLM's Qwen3_5 config hook applies; a 0.27.1 log's attention block of 784 shows it)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in q27.types] == [
        ("full", 16, 4096, 0), ("state", 48, 0, (2 * 16 * 128 + 48 * 128) * 3 * 2 + 48 * 128 * 128 * 4)]
    assert q27.types[1].state_bytes == 3_207_168
    q35 = kv_layout.layout(find_model("Qwen/Qwen3.6-35B-A3B"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in q35.types] == [
        ("full", 10, 2048, 0), ("state", 30, 0, (2 * 16 * 128 + 32 * 128) * 3 * 2 + 32 * 128 * 128 * 4)]
    glm5 = find_model("zai-org/GLM-5")
    lay = kv_layout.layout(glm5, 1, 1, 2)
    # DeepSeek-V3.2's layout (vLLM runs GlmMoeDsaForCausalLM as DeepseekV2 with the indexer): a 512 + 64 latent in
    # bf16 and 128 fp8 indexer keys + 4 bytes of scale per layer, block 64
    assert lay.mla and lay.modelled and [(t.layers, t.bytes_per_token) for t in lay.types] == [(78, 1284)]
    assert sizing.kv_bytes_per_token_per_gpu(glm5, 1, 1, 2) == 78 * 1284 == 100_152
    assert kv_layout.mla_block_size(glm5, (9, 0), "nvidia", (0, 11, 0), None) == 64
    # GLM-4.7-Flash: MLA without an indexer, 47 layers of a 512 + 64 latent in bf16
    flash = find_model("zai-org/GLM-4.7-Flash")
    assert sizing.kv_bytes_per_token_per_gpu(flash, 1, 1, 2) == 47 * 1152 == 54_144
    assert kv_layout.indexer_bytes(flash) == 0
    m2 = kv_layout.layout(find_model("MiniMaxAI/MiniMax-M2"), 1, 1, 2)
    assert m2.modelled and [(t.kind, t.layers, t.bytes_per_token) for t in m2.types] == [("full", 62, 4096)]
    assert sizing.kv_bytes_per_token_per_gpu(find_model("MiniMaxAI/MiniMax-M2"), 1, 1, 2) == 253_952


@pytest.mark.parametrize(("model_id", "limit"), [
    ("Qwen/Qwen3.6-27B", 262_144), ("Qwen/Qwen3.6-35B-A3B", 262_144), ("zai-org/GLM-5", 202_752),
    ("zai-org/GLM-5.1", 202_752), ("MiniMaxAI/MiniMax-M2", 196_608), ("MiniMaxAI/MiniMax-M2.7", 204_800),
    ("zai-org/GLM-4.7", 202_752), ("zai-org/GLM-4.7-Flash", 202_752)])
def test_max_model_len(model_id, limit):
    assert sizing.derived_max_model_len(find_model(model_id)) == limit


def test_quantised_reuploads_resolve_to_the_new_records():
    fp8 = find_model("zai-org/GLM-5-FP8")
    assert (fp8.base_model, fp8.precision) == ("zai-org/GLM-5", "fp8")
    awq = find_model("QuantTrio/Qwen3.6-27B-AWQ")
    assert (awq.base_model, awq.precision) == ("Qwen/Qwen3.6-27B", "int4")


@pytest.mark.parametrize("model_id", NEW_IDS)
def test_plan_runs_for_each_new_record(model_id, capsys):
    rc = main(["plan", "--model", model_id, "--gpu", "H100"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert model_id in out and "Traceback" not in err


# Qwen/Qwen2.5-Omni-7B's layout: the thinker (Qwen2_5OmniThinkerConfig; its text and audio sub-configs at the
# transformers defaults written for that checkpoint, the vision tower Qwen2.5-VL-7B's) beside a talker and token2wav
# that vLLM's Qwen2_5OmniThinkerForConditionalGeneration does not load.
QWEN25_OMNI_7B: dict[str, Any] = {
    "architectures": ["Qwen2_5OmniModel"],
    "model_type": "qwen2_5_omni",
    "thinker_config": {
        "model_type": "qwen2_5_omni_thinker",
        "torch_dtype": "bfloat16",
        "text_config": {
            "model_type": "qwen2_5_omni_text", "hidden_size": 3584, "intermediate_size": 18944,
            "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28, "vocab_size": 152064,
            "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        },
        "audio_config": {
            "model_type": "qwen2_5_omni_audio_encoder", "d_model": 1280, "encoder_attention_heads": 20,
            "encoder_ffn_dim": 5120, "encoder_layers": 32, "num_mel_bins": 128, "max_source_positions": 1500,
            "n_window": 100, "output_dim": 3584,
        },
        "vision_config": {
            "model_type": "qwen2_5_omni_vision_encoder", "depth": 32, "hidden_size": 1280, "intermediate_size": 3420,
            "num_heads": 16, "in_chans": 3, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
            "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31], "out_hidden_size": 3584,
        },
    },
    "talker_config": {"model_type": "qwen2_5_omni_talker", "hidden_size": 896, "num_hidden_layers": 24},
    "token2wav_config": {"model_type": "qwen2_5_omni_token2wav"},
}


def test_an_omni_models_audio_and_vision_towers_count():
    # audio: convs 128 x 1280 x 3 + 1280 + 1280 x 1280 x 3 + 1280; 32 layers x (4 x 1280^2 + 3 x 1280 + 4 x 1280 +
    # 2 x 1280 x 5120 + 5120 + 1280); ln_post 2 x 1280; proj 1280 x 3584 + 3584; begin/end 2 x 3584
    audio = 492_800 + 4_916_480 + 32 * 19_676_160 + 2_560 + 4_591_104 + 7_168
    assert audio == 639_647_232
    vision = 676_550_144  # the Qwen2.5-VL-7B tower, as the catalog counts it
    assert derive_vision_params(QWEN25_OMNI_7B) == vision + audio
    # 1,316,197,376 weights: 2.45 GiB in bf16, what the issue found missing
    assert round((vision + audio) * 2 / 2**30, 2) == 2.45
    text = 7_615_616_512  # Qwen2.5-7B's decoder (the catalog's Qwen/Qwen2.5-7B-Instruct)
    assert derive_params(QWEN25_OMNI_7B) == text + vision + audio


def test_a_taught_omni_config_counts_the_thinker_not_the_talker(tmp_path):
    import json

    from shardwise.rules.catalog import load_local_model

    (tmp_path / "config.json").write_text(json.dumps(QWEN25_OMNI_7B))
    # the index's total_size holds the talker and token2wav too: 10.7B params' worth, which vLLM does not load
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": 22_356_400_000}}))
    shape = load_local_model(tmp_path)
    assert (shape.params, shape.vision_params) == (7_615_616_512 + 1_316_197_376, 1_316_197_376)
    assert (shape.hidden_size, shape.num_hidden_layers, shape.vocab_size) == (3584, 28, 152064)
    assert shape.extra["params_source"] == "derived"
    assert "talker_config" in str(shape.extra["params_note"])
    assert shape.hf_config["vision_config"]["hidden_size"] == 1280


def test_an_unknown_audio_tower_is_said_not_counted():
    # an audio encoder of a kind not counted here (Qwen3-Omni's is counted: tests/catalog/test_families_2026.py)
    omni_like = {"model_type": "some_omni", "thinker_config": {
        **QWEN25_OMNI_7B["thinker_config"], "audio_config": {"model_type": "some_audio_encoder"}}}
    assert derive_vision_params(omni_like) is None
