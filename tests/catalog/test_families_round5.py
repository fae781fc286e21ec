"""Families served in 2026 added from published configurations (round 5): ERNIE-4.5-300B-A47B, granite-4.0-h-tiny,
Hunyuan-A13B (its per-layer lists read as vLLM's hunyuan_v1.py reads them), Kimi-K2.5 (Kimi-K2's decoder with the
MoonViT vision tower), Nemotron-3-Nano-30B-A3B (a Mamba2 / attention / MoE hybrid) and Kimi Linear (Kimi Delta
Attention between MLA layers).

Each case rebuilds the config keys the record was taken from and checks the catalog's parameter count against what
:func:`derive_params` makes of them, then the KV layout vLLM builds, and that a Deployment serving it is decided.
"""

from __future__ import annotations

from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import expert_params
from shardwise.rules.catalog import CatalogError, derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

# baidu/ERNIE-4.5-300B-A47B-PT: the 300B config keys MindIE-LLM's ERNIE MoE router test quotes, and the card's table
ERNIE_300B: dict[str, Any] = {
    "architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "torch_dtype": "bfloat16",
    "hidden_size": 8192, "intermediate_size": 28672, "max_position_embeddings": 131072, "num_attention_heads": 64,
    "num_key_value_heads": 8, "num_hidden_layers": 54, "vocab_size": 103424, "moe_num_experts": 64,
    "moe_num_shared_experts": 0, "moe_layer_start_index": 3, "moe_layer_end_index": 53,
    "moe_intermediate_size": 3584, "moe_k": 8, "moe_layer_interval": 1, "tie_word_embeddings": True,
}

_TINY_TYPES = (["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"]
               + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4)
# ibm-granite/granite-4.0-h-tiny: config.json as a public simulator's test quotes it
GRANITE_H_TINY: dict[str, Any] = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "torch_dtype": "bfloat16",
    "hidden_size": 1536, "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 4,
    "intermediate_size": 512, "shared_intermediate_size": 1024, "num_local_experts": 64, "num_experts_per_tok": 6,
    "vocab_size": 100352, "tie_word_embeddings": True, "mamba_d_state": 128, "mamba_n_groups": 1,
    "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_expand": 2, "mamba_d_conv": 4, "max_position_embeddings": 131072,
    "layer_types": _TINY_TYPES,
}

# tencent/Hunyuan-A13B: models/config.json of the release repository (the keys the counter and vLLM read)
HUNYUAN_A13B: dict[str, Any] = {
    "architectures": ["HunYuanMoEV1ForCausalLM"], "model_type": "hunyuan", "torch_dtype": "bfloat16",
    "attention_bias": False, "attention_head_dim": 128, "cla_share_factor": 2, "hidden_size": 4096,
    "intermediate_size": 3072, "max_position_embeddings": 32768, "mlp_bias": False,
    "moe_intermediate_size": [3072] * 32, "moe_topk": [8] * 32, "num_attention_heads": 32, "num_experts": 64,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "num_shared_expert": [1] * 32, "tie_word_embeddings": True,
    "use_cla": False, "use_mixed_mlp_moe": True, "use_qk_norm": True, "vocab_size": 128167,
}


def test_ernie_300b_params():
    # layers 0-2 a dense MLP of 28672; 51 MoE layers of 64 experts of 3584, a router and its score-correction bias;
    # tied embeddings: 298.6B (the card's 300B), 47.1B active with 8 of 64 experts
    attention = 2 * 8192 * 8192 + 2 * 8192 * 1024
    moe_layer = 64 * 3 * 8192 * 3584 + 8192 * 64 + 64
    expected = 103_424 * 8192 + 54 * (attention + 2 * 8192) + 3 * 3 * 8192 * 28_672 + 51 * moe_layer + 8192
    assert derive_params(ERNIE_300B) == expected == 298_636_913_856
    ernie = find_model("baidu/ERNIE-4.5-300B-A47B-PT")
    assert ernie.params == expected and sizing.moe_layers(ernie) == 51
    assert round((expected - 51 * 56 * 3 * 8192 * 3584) / 1e9, 1) == 47.1
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(ernie, 1, 1, 2).types] == [
        ("full", 54, 2 * 8 * 128 * 2)]


def test_granite_h_tiny_params_and_state():
    # 36 Mamba2 mixers (in_proj 1536 x (6144 + 3328 + 48), conv 3328 x 4 + bias, dt/A/D, norm, out_proj), 4 attention
    # layers, every layer 64 experts of 512, a router and a shared MLP of 1024: 6.94B, the card's 7B
    assert derive_params(GRANITE_H_TINY) == find_model("ibm-granite/granite-4.0-h-tiny").params == 6_939_037_248
    tiny = find_model("ibm-granite/granite-4.0-h-tiny")
    assert tiny.moe is not None and (tiny.moe.num_experts, tiny.moe.experts_per_token) == (64, 6)
    # 4 attention layers of 4 KV heads of 128; 36 Mamba2 states: conv 3 x (3072 + 2 x 128), SSM 48 heads x 64 x 128
    lay = kv_layout.layout(tiny, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 4, 2 * 4 * 128 * 2, 0), ("state", 36, 0, 3 * 3328 * 2 + 48 * 64 * 128 * 2)]
    assert find_model("ibm-granite/granite-4.0-h-tiny-base") is tiny


def test_hunyuan_a13b_params():
    # every layer: attention with q/k RMSNorm of one head (2 x 128), 64 experts of 3 x 4096 x 3072, a router, and the
    # shared MLP of intermediate_size x num_shared_expert = 3072; tied 128167 x 4096 embeddings: 80.39B (the card's 80B)
    attention = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 128
    layer = attention + 64 * 3 * 4096 * 3072 + 4096 * 64 + 3 * 4096 * 3072 + 2 * 4096
    expected = 128_167 * 4096 + 32 * layer + 4096
    assert derive_params(HUNYUAN_A13B) == expected == 80_393_183_232
    hy = find_model("tencent/Hunyuan-A13B-Instruct")
    assert (hy.params, hy.max_position_embeddings, hy.head_dim) == (expected, 32_768, 128)
    # 8 of 64 routed experts and the shared one: 12.7B with the tied embeddings once (the card's 13B active)
    assert round((expected - 32 * 56 * 3 * 4096 * 3072) / 1e9, 1) == 12.7
    taught = shape_from_config(HUNYUAN_A13B, model_id="hunyuan", source="config.json")
    assert taught.moe is not None and (taught.moe.num_experts, taught.moe.experts_per_token,
                                       taught.moe.shared_experts, taught.moe.moe_intermediate_size) == (64, 8, 1, 3072)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(hy, 1, 1, 2).types] == [
        ("full", 32, 2 * 8 * 128 * 2)]
    assert find_model("tencent/Hunyuan-A13B-Pretrain") is hy


@pytest.mark.parametrize(("change", "words"), [
    ({"moe_topk": [8] * 31 + [4]}, "moe_topk differs by layer"),
    ({"use_cla": True}, "cross-layer attention"),
    ({"intermediate_size": 6144}, "a shared MLP narrower or wider"),
])
def test_hunyuan_shapes_not_modelled_are_refused(change, words):
    with pytest.raises(CatalogError, match=words):
        derive_params({**HUNYUAN_A13B, **change})


def test_kimi_k25_is_kimi_k2_with_moonvit():
    # MoonViT: patch conv 3 x 14 x 14 x 1152 + bias; a 64 x 64 x 1152 position table; 27 blocks of 2 LayerNorms,
    # wqkv 1152 x 3456 and wo 1152 x 1152 with biases, MLP 1152 -> 4304 -> 1152 with biases; a final LayerNorm; the
    # patch-merger projector: LayerNorm 1152, 4608 x 4608 and 4608 x 7168 with biases
    block = 2 * 2 * 1152 + (1152 * 3456 + 3456) + (1152 * 1152 + 1152) + (1152 * 4304 + 4304) + (4304 * 1152 + 1152)
    tower = (3 * 14 * 14 * 1152 + 1152) + 64 * 64 * 1152 + 27 * block + 2 * 1152
    projector = 2 * 1152 + (4608 * 4608 + 4608) + (4608 * 7168 + 7168)
    assert tower + projector == 471_143_920
    k25, k2 = find_model("moonshotai/Kimi-K2.5"), find_model("moonshotai/Kimi-K2-Instruct")
    assert (k25.params, k25.vision_params) == (k2.params + 471_143_920, 471_143_920)
    assert (k25.precision, k25.max_position_embeddings, k25.mla) == ("int4", 262_144, k2.mla)
    assert k25.hf_config["architectures"] == ["KimiK25ForConditionalGeneration"]


# nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: config.json as public projects vendor it
NEMOTRON3_NANO: dict[str, Any] = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "torch_dtype": "bfloat16",
    "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME", "hidden_size": 2688,
    "num_hidden_layers": 52, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
    "intermediate_size": 1856, "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712,
    "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 6, "mamba_num_heads": 64,
    "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4, "use_conv_bias": True,
    "mamba_ssm_cache_dtype": "float32", "vocab_size": 131072, "tie_word_embeddings": False,
    "max_position_embeddings": 262144,
}


def test_nemotron3_nano_params_experts_and_state():
    # Mamba2: in_proj 2688 x (4096 + 6144 + 64), conv 6144 x 4 + bias, dt_bias/A_log/D, gated norm 4096, out_proj;
    # attention q/k/v/o; MoE: router 2688 x 128 + score-correction bias, 128 ungated experts 2 x 2688 x 1856, a shared
    # expert 2 x 2688 x 3712; one RMSNorm per layer; untied embeddings: 31.58B, the card's 31.6B
    mamba = 2688 * (4096 + 6144 + 64) + 6144 * 4 + 6144 + 3 * 64 + 4096 + 4096 * 2688
    attention = 2688 * 4096 + 2 * 2688 * 256 + 4096 * 2688
    moe = 2688 * 128 + 128 + 128 * 2 * 2688 * 1856 + 2 * 2688 * 3712
    expected = 2 * 131_072 * 2688 + 23 * mamba + 6 * attention + 23 * moe + 52 * 2688 + 2688
    assert derive_params(NEMOTRON3_NANO) == expected == 31_577_940_288
    nano = find_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert nano.params == expected
    # the experts sit on the 23 "E" layers only, ungated: what expert parallelism spreads
    assert (sizing.moe_layers(nano), expert_params(nano)) == (23, 23 * 128 * 2 * 2688 * 1856)
    # 6 attention layers of 2 KV heads of 128; 23 Mamba2 states: conv 3 x (4096 + 2 x 8 x 128) in bf16 and the SSM
    # state 64 heads x 64 x 128 in float32 (mamba_ssm_cache_dtype)
    lay = kv_layout.layout(nano, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 6, 2 * 2 * 128 * 2, 0), ("state", 23, 0, 3 * 6144 * 2 + 64 * 64 * 128 * 4)]


_KDA = [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26]
# moonshotai/Kimi-Linear-48B-A3B-Instruct: config.json as public projects quote it
KIMI_LINEAR: dict[str, Any] = {
    "architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "torch_dtype": "bfloat16",
    "vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 27,
    "num_attention_heads": 32, "num_key_value_heads": 32, "tie_word_embeddings": False, "first_k_dense_replace": 1,
    "moe_intermediate_size": 1024, "moe_layer_freq": 1, "num_experts": 256, "num_experts_per_token": 8,
    "num_shared_experts": 1, "q_lora_rank": None, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "mla_use_nope": True, "model_max_length": 1048576,
    "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 27], "head_dim": 128, "kda_layers": _KDA,
                           "num_heads": 32, "short_conv_kernel_size": 4},
}


def test_kimi_linear_params_and_layout():
    # KDA (P = 32 x 128 = 4096): q/k/v 3 x 2304 x P, forget gate 2304 x 128 + 128 x P + dt_bias P, beta 2304 x 32,
    # three short convs 3 x 4 x P, A_log 32, output gate 2304 x 128 + 128 x P, gated norm 128, o_proj P x 2304
    p = 4096
    kda = 3 * 2304 * p + (2304 * 128 + 128 * p + p) + 2304 * 32 + 3 * 4 * p + 32 + (2304 * 128 + 128 * p) + 128 \
        + p * 2304
    # MLA without q LoRA: q 2304 x 32 x 192, kv_a 2304 x (512 + 64), its norm 512, kv_b 512 x 32 x 256, o 32 x 128 x 2304
    mla = 2304 * 32 * 192 + 2304 * 576 + 512 + 512 * 32 * 256 + 32 * 128 * 2304
    moe = 256 * 3 * 2304 * 1024 + 2304 * 256 + 3 * 2304 * 1024 + 256
    expected = 2 * 163_840 * 2304 + 20 * kda + 7 * mla + 3 * 2304 * 9216 + 26 * moe + 27 * 2 * 2304 + 2304
    assert derive_params(KIMI_LINEAR) == expected == 49_122_681_728
    kimi = find_model("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert (kimi.params, kimi.max_position_embeddings, sizing.moe_layers(kimi)) == (expected, 1_048_576, 26)
    taught = shape_from_config(KIMI_LINEAR, model_id="kimi-linear", source="config.json")
    assert taught.max_position_embeddings == 1_048_576  # from model_max_length, as vLLM reads it
    assert taught.moe is not None and taught.moe.shared_experts == 1
    # 7 MLA layers cache one latent of 512 + 64; 20 KDA layers hold a constant state per request
    for shape in (kimi, taught):
        assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(shape, 1, 1, 2).types] == [
            ("full", 7, 576 * 2), ("state", 20, 0)]


NEW_FAMILIES = ["baidu/ERNIE-4.5-300B-A47B-PT", "ibm-granite/granite-4.0-h-tiny", "tencent/Hunyuan-A13B-Instruct",
                "moonshotai/Kimi-K2.5", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
                "moonshotai/Kimi-Linear-48B-A3B-Instruct"]
TP = {"baidu/ERNIE-4.5-300B-A47B-PT": 8, "ibm-granite/granite-4.0-h-tiny": 1, "tencent/Hunyuan-A13B-Instruct": 4,
      "moonshotai/Kimi-K2.5": 8, "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": 1,
      "moonshotai/Kimi-Linear-48B-A3B-Instruct": 2}



@pytest.mark.parametrize("model_id", NEW_FAMILIES)
def test_a_manifest_serving_a_new_family_is_decided(tmp_path, model_id):
    # the public shape: `vllm serve <model>` on H100s (H200s for the 1T Kimi-K2.5); the model is known, so nothing is
    # undecided for lack of it
    instance = "p5en.48xlarge" if model_id == "moonshotai/Kimi-K2.5" else "p5.48xlarge"
    findings = lint(tmp_path, deployment(model_id, TP[model_id], replicas=2, instance=instance))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


@pytest.mark.parametrize("model_id", NEW_FAMILIES)
def test_plan_runs(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H200"]) == 0
    out, err = capsys.readouterr()
    assert model_id in out and "Traceback" not in err
