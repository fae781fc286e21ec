"""Models people serve now that the catalog lacked (issue 28, round 10): NVIDIA Nemotron 3 Super and Ultra (LatentMoE),
GLM-5.2, Kimi-K2.6, Qwen3-Embedding-4B and -8B, Qwen3.5-0.8B and -4B, Qwen3-Coder-Next, and the quantised uploads of
the Nemotron 3 family.

Each record is checked against the config keys it was taken from (``derive_params`` of them gives its count, within
1 % of the published size), then the KV bytes per token vLLM caches and the weights per GPU of a layout. A manifest
serving each is decided.
"""

from __future__ import annotations

from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import expert_params, moe_layers, replicated_params
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

# NVIDIA-Nemotron-3-Super-120B-A12B's config.json keys as public projects restate them (attention at 7, 16, 25, 36,
# 47, 58, 69, 78; 40 Mamba2 and 40 LatentMoE layers)
SUPER_PATTERN = "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME"
SUPER: dict[str, Any] = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 4096,
    "num_hidden_layers": 88, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
    "vocab_size": 131072, "max_position_embeddings": 262144, "hybrid_override_pattern": SUPER_PATTERN,
    "n_routed_experts": 512, "num_experts_per_tok": 22, "n_shared_experts": 1, "moe_intermediate_size": 2688,
    "moe_latent_size": 1024, "moe_shared_expert_intermediate_size": 5376, "mamba_num_heads": 128, "mamba_head_dim": 64,
    "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4, "intermediate_size": 2688, "tie_word_embeddings": False,
}

# Ultra gives its layers as a 108-entry layers_block_type (num_hidden_layers null): attention at these indices, mamba
# and moe alternating through the rest
ULTRA_ATTENTION = (7, 14, 23, 32, 39, 48, 57, 64, 73, 82, 89, 98)


def _ultra_blocks() -> list[str]:
    blocks, k = [], 0
    for i in range(108):
        if i in ULTRA_ATTENTION:
            blocks.append("attention")
        else:
            blocks.append(("mamba", "moe")[k % 2])
            k += 1
    return blocks


ULTRA: dict[str, Any] = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 8192,
    "num_hidden_layers": None, "layers_block_type": _ultra_blocks(), "num_attention_heads": 64,
    "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 262144,
    "n_routed_experts": 512, "num_experts_per_tok": 22, "n_shared_experts": 1, "moe_intermediate_size": 5120,
    "moe_latent_size": 2048, "moe_shared_expert_intermediate_size": 10240, "mamba_num_heads": 256,
    "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4, "intermediate_size": 5120,
    "tie_word_embeddings": False,
}


def _mamba2(h: int, heads: int) -> int:
    inner, xbc = heads * 64, heads * 64 + 2 * 8 * 128
    return h * (inner + xbc + heads) + xbc * 4 + xbc + 3 * heads + inner + inner * h


def test_nemotron3_super_counts_its_latent_experts():
    h = 4096
    moe = h * 512 + 512 + 512 * 2 * 1024 * 2688 + 2 * h * 5376 + 2 * h * 1024  # router+bias, experts, shared, latent
    attention = h * 32 * 128 + 2 * h * 2 * 128 + 32 * 128 * h
    assert SUPER_PATTERN.count("M") == SUPER_PATTERN.count("E") == 40 and SUPER_PATTERN.count("*") == 8
    expected = 2 * 131072 * h + 40 * _mamba2(h, 128) + 8 * attention + 40 * moe + 88 * h + h
    assert derive_params(SUPER) == expected == 120_668_707_840  # the card's 120B total (0.56 % above)
    m = find_model("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16")
    assert (m.params, m.num_hidden_layers, m.moe.num_experts, m.moe.experts_per_token) == (120_668_707_840, 88, 512, 22)
    taught = shape_from_config(SUPER, model_id="super", source="config.json")
    assert taught.params == m.params
    # what expert parallelism spreads: 40 layers x 512 experts x up and down in the latent width
    assert moe_layers(m) == 40 and expert_params(m) == 40 * 512 * 2 * 1024 * 2688 == 112_742_891_520
    # fc1/fc2_latent_proj and the router are ReplicatedLinear: whole on every tensor-parallel rank
    assert replicated_params(m) == (40 * 2 * 4096 * 1024, 40 * 512 * 4096)
    # 8 attention layers cache 2 KV heads of 128 (one per GPU from TP2 on); the Mamba2 state is apart
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 8 * 2 * 128 * 2 * 2 == 8192
    sized = sizing.size_replica(m, 79.19, vllm_version="0.20.0", max_model_len=32_768, tp=4)
    assert (round(sized.weights_gib_per_gpu, 2), sized.kv_bytes_per_token_per_gpu, sized.starts) == (56.84, 4096, True)
    # BF16 on two H100s does not fit (112.83 GiB of weights per GPU)
    assert not sizing.size_replica(m, 79.19, vllm_version="0.20.0", max_model_len=32_768, tp=2).starts


def test_nemotron3_ultra_counts_its_108_blocks():
    h = 8192
    moe = h * 512 + 512 + 512 * 2 * 2048 * 5120 + 2 * h * 10240 + 2 * h * 2048
    attention = h * 64 * 128 + 2 * h * 2 * 128 + 64 * 128 * h
    expected = 2 * 131072 * h + 48 * _mamba2(h, 256) + 12 * attention + 48 * moe + 108 * h + h
    assert derive_params(ULTRA) == expected == 549_308_993_536  # the card's 550B total
    m = find_model("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16")
    assert (m.params, m.num_hidden_layers, m.hidden_size) == (549_308_993_536, 108, 8192)
    blocks = _ultra_blocks()
    assert blocks[:20] == ["mamba", "moe", "mamba", "moe", "mamba", "moe", "mamba", "attention", "moe", "mamba", "moe",
                           "mamba", "moe", "mamba", "attention", "moe", "mamba", "moe", "mamba", "moe"]
    taught = shape_from_config(ULTRA, model_id="ultra", source="config.json")
    assert (taught.params, taught.num_hidden_layers) == (m.params, 108)
    assert expert_params(m) == 48 * 512 * 2 * 2048 * 5120
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 12 * 2 * 128 * 2 * 2 == 12_288
    fp8 = find_model("RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block")
    assert (fp8.base_model, fp8.precision) == (m.id, "fp8")
    sized = sizing.size_replica(fp8, 139.8, vllm_version="0.20.0", max_model_len=32_768, tp=8)
    assert (round(sized.weights_gib_per_gpu, 2), sized.kv_bytes_per_token_per_gpu, sized.starts) == (65.9, 6144, True)
    assert not sizing.size_replica(m, 139.8, vllm_version="0.20.0", max_model_len=32_768, tp=8).starts  # BF16: 130.91


@pytest.mark.parametrize(("model_id", "base", "precision"), [
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "nvfp4"),
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "fp8"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "fp8"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvfp4"),
    ("RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block", "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", "fp8"),
    ("zai-org/GLM-5.2-FP8", "zai-org/GLM-5.2", "fp8"),
])
def test_quantised_uploads_of_a_record_that_names_its_dtype_resolve(model_id, base, precision):
    # the record's id ends in -BF16; a quantised upload names the model without it
    m = find_model(model_id)
    assert (m.base_model, m.precision) == (base, precision)


def test_glm52_is_glm5_at_a_million_tokens():
    m, glm5 = find_model("zai-org/GLM-5.2"), find_model("zai-org/GLM-5")
    # GLM-5's shape, less the indexers of the 57 layers that share top-k (tokens39: 9,371,904 parameters each)
    assert (m.params, m.num_hidden_layers, m.hidden_size, m.vocab_size) == (
        glm5.params - 57 * 9_371_904, 78, 6144, 154_880)
    assert m.max_position_embeddings == m.hf_config["max_position_embeddings"] == 1_048_576
    # MLA latent 512 + 64 at 2 bytes on all 78 layers, the indexer's 128 fp8 keys + a fp32 scale on the 21 that keep
    # one (78 x 1,152 + 21 x 132 = 92,628, one page a layer rounded up: 78 x 1,188); 78 x (576 x 2 + 132) before
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 78 * 1_188 == 92_664
    sized = sizing.size_replica(find_model("zai-org/GLM-5.2-FP8"), 139.8, vllm_version="0.20.0", max_model_len=32_768,
                                tp=8)
    # with the 16-bit copy MLA keeps of the FP8 kv_b_proj (78 x 512 x 8 heads x 448 x 2 bytes, 0.27 GiB; 88.77 before)
    # and, since catalog47 reads the checkpoint's own config.json, its 75 routers (256 x 6144) 16-bit: 89.04 before;
    # since catalog48 the indexer's weights_proj (78 x 6144 x 32, whole on every GPU) 16-bit in the total too: 89.05.
    # 0.20.0 builds an indexer on every layer (tokens39), as before
    assert (round(sized.weights_gib_per_gpu, 2), sized.kv_bytes_per_token_per_gpu, sized.starts) == (
        89.06, 100_152, True)
    # 0.24+ builds none on the 57 sharing layers: their wq_b, wk and k_norm (FP8, 9,175,296 a layer) and weights_proj
    # (16-bit, 6144 x 32), whole on every GPU: 0.51 GiB less
    later = sizing.size_replica(find_model("zai-org/GLM-5.2-FP8"), 139.8, vllm_version="0.25.1", max_model_len=32_768,
                                tp=8)
    assert (round(later.weights_gib_per_gpu, 2), later.kv_bytes_per_token_per_gpu) == (88.55, 92_664)


def test_kimi_k26_is_kimi_k25s_shape():
    m, k25 = find_model("moonshotai/Kimi-K2.6"), find_model("moonshotai/Kimi-K2.5")
    assert (m.params, m.vision_params, m.precision, m.quantization) == (
        k25.params, k25.vision_params, "int4", "compressed-tensors")
    assert m.params == 1_026_879_376_368 and m.max_position_embeddings == 262_144
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 61 * 576 * 2 == 70_272


def test_qwen3_embedding_4b_and_8b():
    e4 = find_model("Qwen/Qwen3-Embedding-4B")
    # Qwen3-4B's decoder (tied) with 267 rows fewer: 4,022,468,096 - 267 x 2560
    assert e4.params == find_model("Qwen/Qwen3-4B").params - 267 * 2560 == 4_021_784_576
    e8 = find_model("Qwen/Qwen3-Embedding-8B")
    # the pooling runner holds Qwen3-8B's decoder with 151,665 rows and no output head
    assert e8.params == find_model("Qwen/Qwen3-8B").params - 151_936 * 4096 - 271 * 4096 == 7_567_295_488
    assert e8.extra["derived_params"] == e8.params + 151_665 * 4096
    for m in (e4, e8):
        assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 36 * 8 * 128 * 2 * 2 == 147_456
    assert round(sizing.size_replica(e4, 22.0, vllm_version="0.20.0", max_model_len=32_768).weights_gib_per_gpu,
                 2) == 7.5
    sized = sizing.size_replica(e8, 22.0, vllm_version="0.20.0", max_model_len=32_768)
    # a first start (a cold compile cache: the profile peaks at one copy of the 151,665 x 4,096 embedding, 1.16 GiB)
    # leaves 4.20 GiB for the 4.50 a 32k request needs; with a warm cache 4.78: inside the band either way
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts, sized.verdict, round(sized.available_kv_gib, 2)) == (
        14.1, False, "may-refuse", 4.2)
    warm = sizing.size_deployment(e8, sizing.Device.of(None, 22.0),
                                  sizing.EngineSettings(max_model_len=32_768, compile_cache="warm"), "0.20.0")
    assert (round(warm.weights_gib_per_gpu, 2), warm.starts, warm.verdict, round(warm.available_kv_gib, 2)) == (
        14.1, True, "may-refuse", 4.78)


def _qwen35(h: int, ffn: int, layers: int, heads: int, kv: int, v_heads: int, vision: dict[str, Any]) -> dict[str, Any]:
    """A Qwen3.5 config.json in its published nesting (text_config, vision_config), tied, 3 linear : 1 full."""
    return {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "tie_word_embeddings": True,
            "text_config": {
                "model_type": "qwen3_5_text", "vocab_size": 248320, "hidden_size": h, "intermediate_size": ffn,
                "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": 256,
                "attn_output_gate": True, "linear_num_key_heads": 16, "linear_num_value_heads": v_heads,
                "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
                "full_attention_interval": 4, "max_position_embeddings": 262144, "tie_word_embeddings": True,
                "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * (layers // 4),
                "rope_parameters": {"mrope_interleaved": True, "mrope_section": [11, 11, 10], "rope_theta": 10000000,
                                    "partial_rotary_factor": 0.25}},
            "vision_config": {"model_type": "qwen3_5", "in_channels": 3, "patch_size": 16, "temporal_patch_size": 2,
                              "spatial_merge_size": 2, "num_position_embeddings": 2304, "deepstack_visual_indexes": [],
                              **vision}}


QWEN35_08B = _qwen35(1024, 3584, 24, 8, 2, 16, {"depth": 12, "hidden_size": 768, "num_heads": 12,
                                                "intermediate_size": 3072, "out_hidden_size": 1024})
QWEN35_4B = _qwen35(2560, 9216, 32, 16, 4, 32, {"depth": 24, "hidden_size": 1024, "num_heads": 16,
                                                "intermediate_size": 4096, "out_hidden_size": 2560})


def test_qwen35_08b_counts_its_hybrid_decoder_and_tower():
    h = 1024
    full = h * 8 * 256 * 2 + 2 * h * 2 * 256 + 8 * 256 * h + 2 * 256  # gated q, k, v, o, q/k norms
    linear = h * (2 * 16 * 128 + 2 * 16 * 128) + h * 2 * 16 + (2 * 2048 + 2048) * 4 + 16 + 16 + 128 + 2048 * h
    text = 248320 * h + 6 * full + 18 * linear + 24 * 3 * h * 3584 + 24 * 2 * h + h
    assert text == 752_393_024
    taught = shape_from_config(QWEN35_08B, model_id="q", source="config.json")
    m = find_model("Qwen/Qwen3.5-0.8B")
    assert (taught.params, taught.vision_params) == (m.params, m.vision_params) == (852_985_920, 100_592_896)
    assert m.params - m.vision_params == text
    # 6 full-attention layers of 2 KV heads x 256 cache; the 18 Gated DeltaNet layers keep a fixed state
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 6 * 2 * 256 * 2 * 2 == 12_288
    sized = sizing.size_replica(m, 22.0, vllm_version="0.20.0", max_model_len=32_768)
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (1.71, True)


def test_qwen35_4b_counts_its_hybrid_decoder_and_tower():
    taught = shape_from_config(QWEN35_4B, model_id="q", source="config.json")
    m = find_model("Qwen/Qwen3.5-4B")
    assert (taught.params, taught.vision_params) == (m.params, m.vision_params) == (4_539_265_536, 333_514_240)
    assert (m.num_hidden_layers, m.hidden_size, m.tie_word_embeddings, m.max_position_embeddings) == (
        32, 2560, True, 262_144)
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 8 * 4 * 256 * 2 * 2 == 32_768
    sized = sizing.size_replica(m, 22.0, vllm_version="0.20.0", max_model_len=32_768)
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (8.58, True)
    # the wide corpus serves a third party's build named -AWQ-INT8-INT4: the 4B's shape at 4 bits
    awq = find_model("cyankiwi/Qwen3.5-4B-AWQ-INT8-INT4")
    assert (awq.base_model, awq.precision) == (m.id, "int4")


def test_qwen3_coder_next_is_qwen3_next_80b_a3b():
    m, base = find_model("Qwen/Qwen3-Coder-Next"), find_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    # the card's every key: 2048 hidden, 48 layers, 16 / 2 heads of 256, 512 experts of 512, 10 active, 1 shared
    assert (m.params, m.hidden_size, m.num_hidden_layers, m.num_key_value_heads, m.head_dim, m.moe) == (
        base.params, 2048, 48, 2, 256, base.moe)
    assert (m.moe.num_experts, m.moe.experts_per_token, m.moe.moe_intermediate_size, m.max_position_embeddings) == (
        512, 10, 512, 262_144)
    assert find_model("Qwen/Qwen3-Coder-Next-FP8").base_model == m.id
    # 12 gated-attention layers of 2 KV heads x 256 cache; the 36 Gated DeltaNet layers keep a fixed state
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 12 * 2 * 256 * 2 * 2 == 24_576


# each at the tensor parallelism its weights need on an 8 x H200 node (NVFP4 Super fits one H200: 64.71 GiB)
LAYOUTS = {"nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4": 1, "RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block": 8,
           "zai-org/GLM-5.2-FP8": 8, "moonshotai/Kimi-K2.6": 8, "Qwen/Qwen3-Embedding-4B": 1,
           "Qwen/Qwen3-Embedding-8B": 1, "Qwen/Qwen3.5-0.8B": 1, "Qwen/Qwen3.5-4B": 1,
           "Qwen/Qwen3-Coder-Next": 2}  # the card's vllm serve --tensor-parallel-size 2
NEW = list(LAYOUTS)


@pytest.mark.parametrize("model_id", NEW)
def test_a_manifest_serving_a_new_record_is_decided(tmp_path, model_id):
    extra = ", --runner, pooling" if "Embedding" in model_id else ""
    tp = LAYOUTS[model_id]
    mine = [f for f in lint(tmp_path, deployment(model_id, tp, extra=extra, instance="p5en.48xlarge"))
            if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


@pytest.mark.parametrize("model_id", NEW)
def test_plan_runs_for_each_new_record(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H200"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and find_model(model_id).id in out
