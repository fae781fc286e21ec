"""Families served in 2026 added from published configurations (round 6): Llama-Nemotron's NAS models
(Llama-3.3-Nemotron-Super-49B-v1, Llama-3.1-Nemotron-Ultra-253B-v1: ``DeciLMForCausalLM``, one ``block_configs`` entry
per layer, layers without attention or without an MLP) gpt-oss-safeguard (fine-tunes of gpt-oss) and GLM-4.5V (GLM-4.5-Air's decoder with the GLM-4.1V vision tower).

Each case rebuilds the config keys the record was taken from and checks the catalog's parameter count against what
:func:`derive_params` makes of them, then the KV layout vLLM builds, and that a Deployment serving it is decided.
"""

from __future__ import annotations

from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.cli import main
from shardwise.rules.capacity.weights import stage_share
from shardwise.rules.catalog import CatalogError, derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout


def _blocks(runs: list[tuple[int | None, float | None, int]]) -> list[dict[str, Any]]:
    """block_configs from runs of (n_heads_in_group or None for a no-op attention, ffn_mult or None for a no-op
    FFN, how many layers in a row), in the shape config.json gives them."""
    out = []
    for group, mult, count in runs:
        block = {
            "attention": {"n_heads_in_group": group, "no_op": group is None, "replace_with_linear": False,
                          "num_sink_tokens": None, "sparsify": None, "window_length": None},
            "ffn": {"ffn_mult": mult, "no_op": mult is None, "replace_with_linear": False, "sparsify": None},
        }
        out += [block] * count
    return out


# nvidia/Llama-3_3-Nemotron-Super-49B-v1: config.json as Megatron-Bridge vendors it (llama_nemotron_config.py at
# 00341cdb), block_configs written as runs of equal layers
SUPER_RUNS: list[tuple[int | None, float | None, int]] = [
    (8, 2.625, 1), (8, 5.25, 5), (None, 2.625, 2), (8, 5.25, 3), (None, 3.28125, 1), (8, 5.25, 30),
    (None, 1.3125, 1), (None, 2.625, 2), (None, 1.3125, 1), (None, 5.25, 1), (None, 1.3125, 1), (None, 2.625, 1),
    (None, 1.3125, 3), (8, 5.25, 1), (None, 1.3125, 1), (None, 1.0, 2), (None, 1.3125, 1), (None, 1.0, 3),
    (None, 1.3125, 2), (None, 0.5, 2), (None, 1.0, 2), (None, 0.5, 2), (None, 1.0, 1), (None, 0.5, 2), (8, 5.25, 9),
]
SUPER: dict[str, Any] = {
    "architectures": ["DeciLMForCausalLM"], "model_type": "nemotron-nas", "torch_dtype": "bfloat16",
    "attention_bias": False, "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": None,
    "max_position_embeddings": 131072, "mlp_bias": False, "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": None, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False,
    "vocab_size": 128256, "block_configs": _blocks(SUPER_RUNS),
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}

# nvidia/Llama-3_1-Nemotron-Ultra-253B-v1: the same source, LLAMA_31_NEMOTRON_ULTRA_253B_HETEROGENEOUS_CONFIG
ULTRA_RUNS: list[tuple[int | None, float | None, int]] = [
    (16, 0.4875, 1), (16, 0.975, 1), (16, 1.4625, 6), (16, 1.95, 1), (None, None, 4), (16, 1.95, 3), (16, 4.875, 2),
    (None, None, 6), (16, 4.875, 3), (None, None, 5), (16, 4.875, 3), (16, 2.4375, 1), (None, None, 3),
    (16, 1.95, 3), (None, 1.95, 1), (16, 4.875, 1), (None, 4.875, 1), (None, None, 5), (16, 4.875, 4),
    (None, None, 5), (16, 4.875, 4), (None, None, 5), (16, 4.875, 4), (None, None, 5), (16, 4.875, 4),
    (None, None, 5), (16, 4.875, 1), (16, 3.4125, 3), (None, None, 2), (16, 2.925, 1), (16, 2.4375, 3),
    (None, 2.4375, 2), (16, 2.4375, 1), (None, None, 1), (None, 2.4375, 7), (16, 2.4375, 1), (None, None, 5),
    (16, 2.925, 1), (16, 4.875, 1), (None, 4.875, 1), (16, 4.875, 1), (None, None, 8), (None, 36.5625, 1),
    (None, None, 8), (None, 39.0, 1), (None, None, 8), (None, 31.40625, 1), (None, None, 5), (None, 27.5625, 1),
    (None, 1.95, 1), (16, 1.95, 1), (16, 2.4375, 1), (None, None, 1), (16, 2.4375, 2), (16, 3.4125, 1),
    (16, 4.875, 4), (16, 2.4375, 1),
]
ULTRA: dict[str, Any] = {
    **SUPER, "hidden_size": 16384, "num_attention_heads": 128, "num_hidden_layers": 162,
    "block_configs": _blocks(ULTRA_RUNS),
    "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}


def _mlp(h: int, width: int) -> int:
    return 3 * h * width + h  # gate, up, down and the post-attention RMSNorm


def test_nemotron_super_49b_params():
    # 49 attention layers: q and o 8192 x 8192, k and v 8192 x 1024 (64 // 8 = 8 KV heads of 128), the input norm;
    # MLPs of int(2 x ffn_mult x 8192 / 3) rounded up to 256: 5.25 -> 28672 (49 layers), 2.625 -> 14336 (6),
    # 3.28125 -> 17920 (1), 1.3125 -> 7168 (10), 1.0 -> 5632 (8), 0.5 -> 2816 (6); untied embeddings, final norm
    h = 8192
    attention = 2 * h * h + 2 * h * 1024 + h
    expected = (2 * 128_256 * h + h + 49 * attention + 49 * _mlp(h, 28_672) + 6 * _mlp(h, 14_336)
                + _mlp(h, 17_920) + 10 * _mlp(h, 7168) + 8 * _mlp(h, 5632) + 6 * _mlp(h, 2816))
    assert derive_params(SUPER) == expected == 49_867_145_216  # the card's 49B
    model = find_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1")
    assert (model.params, model.num_key_value_heads, model.intermediate_size) == (expected, 8, 28_672)
    assert model.max_position_embeddings == 131_072


def test_nemotron_ultra_253b_params():
    # 64 attention layers (128 // 16 = 8 KV heads of 128); 81 MLPs: 53248 (34), 26624 (19), 21504 (10), 16128 (6),
    # 37376 (4), 32000 (2), 5376, 10752, and four MLP-only layers of 301056, 343040, 399360 and 425984; 81 layers
    # are empty (both no-ops)
    h = 16384
    attention = 2 * h * h + 2 * h * 1024 + h
    mlps = (34 * _mlp(h, 53_248) + 19 * _mlp(h, 26_624) + 10 * _mlp(h, 21_504) + 6 * _mlp(h, 16_128)
            + 4 * _mlp(h, 37_376) + 2 * _mlp(h, 32_000) + _mlp(h, 5376) + _mlp(h, 10_752)
            + _mlp(h, 301_056) + _mlp(h, 343_040) + _mlp(h, 399_360) + _mlp(h, 425_984))
    expected = 2 * 128_256 * h + h + 64 * attention + mlps
    assert derive_params(ULTRA) == expected == 253_401_268_224  # the card's 253B
    model = find_model("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1")
    # the widest MLP stands for config.json's null intermediate_size (it sizes the activation peak)
    assert (model.params, model.num_key_value_heads, model.intermediate_size) == (expected, 8, 425_984)


def test_nemotron_nas_kv_layout_skips_layers_without_attention():
    # vLLM builds no Attention module for a no-op attention, so only the attention layers cache: Super-49B at TP1
    # 49 x 2 x 8 x 128 x 2 = 200,704 bytes per token (Llama-3.3-70B, its parent: 80 layers, 327,680)
    super_49b = find_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1")
    ultra = find_model("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1")
    taught = shape_from_config(SUPER, model_id="super", source="config.json")
    for model in (super_49b, taught):
        lay = kv_layout.layout(model, 1, 1, 2)
        assert [(t.kind, t.layers, t.bytes_per_token) for t in lay.types] == [("full", 49, 4096)]
        assert lay.modelled and kv_layout.replica_token_bytes(model, 1, 1, 2) == 200_704
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(ultra, 8, 1, 2).types] == [
        ("full", 64, 512)]
    # PP2 splits the 80 layers 40 / 40: layers 0-39 hold 37 attention layers (6, 7 and 11 have none), layers 40-79
    # hold 12 (40, 41, 52 and the last nine); the stage that caches the most per token sets the replica's figure
    stages = [kv_layout.layout(super_49b, 4, 2, 2, stage).types for stage in (0, 1)]
    assert [[(t.kind, t.layers) for t in types] for types in stages] == [[("full", 37)], [("full", 12)]]
    assert kv_layout.replica_token_bytes(super_49b, 4, 2, 2) == 37 * 1024


def test_nemotron_nas_pipeline_stages_hold_their_own_layers_weights():
    # stage 0 of Super-49B at PP2: 37 attention layers and the MLPs of layers 0-39 (14336 x 3, 28672 x 36, 17920);
    # its layers are 68 % of the decoder's weights, not half
    super_49b = find_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1")
    h = 8192
    attention = 2 * h * h + 2 * h * 1024 + h
    stage0 = 37 * attention + 3 * _mlp(h, 14_336) + 36 * _mlp(h, 28_672) + _mlp(h, 17_920)
    layers = super_49b.params - 2 * 128_256 * h - h
    assert stage_share(super_49b, 2, 0) == pytest.approx(stage0 / layers, rel=1e-12)
    assert round(stage_share(super_49b, 2, 0), 3) == 0.679
    assert stage_share(super_49b, 2, 0) + stage_share(super_49b, 2, 1) == pytest.approx(1.0, rel=1e-12)


def test_nemotron_nas_shapes_not_modelled():
    # a linear replacement vLLM's DeciLMDecoderLayer does not build: the count is refused
    linear = _blocks([(8, 5.25, 80)])
    linear[3] = {**linear[3], "attention": {**linear[3]["attention"], "replace_with_linear": True}}
    with pytest.raises(CatalogError, match="replace_with_linear"):
        derive_params({**SUPER, "block_configs": linear})
    with pytest.raises(CatalogError, match="79 entries for 80 layers"):
        derive_params({**SUPER, "block_configs": _blocks([(8, 5.25, 79)])})
    # attention layers with different KV heads: counted, but the KV layout says it is not modelled
    mixed = {**SUPER, "block_configs": _blocks([(8, 5.25, 40), (16, 5.25, 40)])}
    taught = shape_from_config(mixed, model_id="mixed", source="config.json")
    assert taught.num_key_value_heads == 8  # vLLM's get_total_num_kv_heads: the first attention layer's
    lay = kv_layout.layout(taught, 1, 1, 2)
    assert not lay.modelled and "different KV heads (4, 8; block_configs)" in lay.note


# zai-org/GLM-4.5V: config.json as a public model-information report of the checkpoint prints it
GLM_45V: dict[str, Any] = {
    "architectures": ["Glm4vMoeForConditionalGeneration"], "model_type": "glm4v_moe", "tie_word_embeddings": False,
    "text_config": {
        "model_type": "glm4v_moe_text", "attention_bias": True, "first_k_dense_replace": 1, "head_dim": 128,
        "hidden_size": 4096, "intermediate_size": 10944, "max_position_embeddings": 65536,
        "moe_intermediate_size": 1408, "n_group": 1, "n_routed_experts": 128, "n_shared_experts": 1,
        "norm_topk_prob": True, "num_attention_heads": 96, "num_experts_per_tok": 8, "num_hidden_layers": 46,
        "num_key_value_heads": 8, "partial_rotary_factor": 0.5, "tie_word_embeddings": False, "topk_group": 1,
        "use_qk_norm": False, "vocab_size": 151552, "dtype": "bfloat16",
    },
    "vision_config": {
        "model_type": "glm4v_moe_vision", "attention_bias": False, "depth": 24, "hidden_size": 1536,
        "image_size": 336, "in_channels": 3, "intermediate_size": 10944, "num_heads": 12, "out_hidden_size": 4096,
        "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
    },
}


def test_glm_45v_params_match_its_checkpoint():
    # vision: 576 x 1536 positions; Conv3d 3 x 2 x 14 x 14 -> 1536 with bias; 24 blocks of 2 RMSNorms, qkv 1536 x 4608
    # and proj 1536 x 1536 without biases, a gated MLP 1536 -> 4096; the post-conv and final RMSNorms; the 2 x 2
    # downsample Conv2d 1536 -> 4096 with bias; the merger: proj 4096 x 4096, a LayerNorm, a gated MLP 4096 -> 10944
    block = 2 * 1536 + 3 * 1536 * 1536 + 1536 * 1536 + 3 * 1536 * 4096
    vision = (576 * 1536 + (3 * 2 * 14 * 14 * 1536 + 1536) + 1536 + 24 * block + 1536 + (1536 * 4096 * 4 + 4096)
              + 4096 * 4096 + 2 * 4096 + 3 * 4096 * 10944)
    assert vision == 858_681_856
    air = find_model("zai-org/GLM-4.5-Air")  # the text tower is GLM-4.5-Air's shape
    assert derive_params(GLM_45V) == air.params + vision == 107_710_933_120  # the checkpoint's tensor total
    glm = find_model("zai-org/GLM-4.5V")
    assert (glm.params, glm.vision_params, glm.max_position_embeddings) == (107_710_933_120, vision, 65_536)
    assert glm.moe == air.moe
    taught = shape_from_config(GLM_45V, model_id="glm-4.5v", source="config.json")
    assert (taught.params, taught.vision_params, taught.num_key_value_heads) == (107_710_933_120, vision, 8)
    # full attention on all 46 layers, 8 KV heads of 128: 4,096 bytes per layer and token at TP1
    for model in (glm, taught):
        assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(model, 1, 1, 2).types] == [
            ("full", 46, 4096)]


@pytest.mark.parametrize("size", ["20b", "120b"])
def test_gpt_oss_safeguard_is_gpt_oss(size):
    # the model cards: base_model openai/gpt-oss-<size>, base_model_relation finetune, the same 21B / 117B totals
    safeguard, base = find_model(f"openai/gpt-oss-safeguard-{size}"), find_model(f"openai/gpt-oss-{size}")
    assert (safeguard.params, safeguard.precision, safeguard.hf_config) == (base.params, "mxfp4", base.hf_config)
    assert kv_layout.layout(safeguard, 1, 1, 2) == kv_layout.layout(base, 1, 1, 2)


def test_present_families_agree_with_their_checkpoints_tensor_totals():
    # public model-information reports list every tensor of a checkpoint and print the total; the catalog counts
    # what vLLM loads, so what it leaves out is named here
    # GLM-5.1 (GLM-5's shape): 753,864,139,008 with layer 78, the multi-token-prediction layer (a MoE layer with its
    # DSA indexer, eh_proj 6144 x 12288, enorm, hnorm and the shared head's norm)
    h = 6144
    attention = (h * 2048 + 2048 + 2048 * 16_384 + h * 576 + 512 + 512 * 28_672 + 16_384 * h
                 + 2048 * 4096 + h * 128 + 2 * 128 + h * 32)
    moe = 256 * 3 * h * 2048 + 256 * h + 256 + 3 * h * 2048
    mtp = attention + moe + 2 * h + h * 12_288 + 3 * h
    assert find_model("zai-org/GLM-5.1").params + mtp == 753_864_139_008
    # MiniMax-M2.7 (MiniMax-M2's shape), FP8: 228,703,644,928 with the block scales (weight_scale_inv) of the experts,
    # 3 x 12 x 24 per expert, and of q/k/v/o, 8 x 24 + 48 x 24 + 24 x 48 + 8 x 24 per layer, on 62 layers
    scales = 62 * 256 * 3 * 12 * 24 + 62 * (8 * 24 + 48 * 24 + 24 * 48 + 8 * 24)
    assert find_model("MiniMaxAI/MiniMax-M2.7").params + scales == 228_703_644_928
    # a bf16 copy of gpt-oss-20b and Kimi-Linear-48B-A3B: the totals themselves
    assert find_model("openai/gpt-oss-20b").params == 20_914_757_184
    assert find_model("moonshotai/Kimi-Linear-48B-A3B-Instruct").params == 49_122_681_728


NEW_FAMILIES = {"nvidia/Llama-3_3-Nemotron-Super-49B-v1": ("p5.48xlarge", 2),
                "nvidia/Llama-3_1-Nemotron-Ultra-253B-v1": ("p5en.48xlarge", 8),
                "openai/gpt-oss-safeguard-20b": ("p5.48xlarge", 1),
                "openai/gpt-oss-safeguard-120b": ("p5.48xlarge", 1),
                "zai-org/GLM-4.5V": ("p5.48xlarge", 4)}



@pytest.mark.parametrize("model_id", sorted(NEW_FAMILIES))
def test_a_manifest_serving_a_new_family_is_decided(tmp_path, model_id):
    instance, tp = NEW_FAMILIES[model_id]
    findings = lint(tmp_path, deployment(model_id, tp, replicas=2, instance=instance))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


@pytest.mark.parametrize("model_id", sorted(NEW_FAMILIES))
def test_plan_runs(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H200"]) == 0
    out, err = capsys.readouterr()
    assert model_id in out and "Traceback" not in err
