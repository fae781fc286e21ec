"""Families served in 2026 added from published configurations (round 4), and the facts vLLM's model files give
about them: Gemma 3n (per-layer embeddings, AltUp, LAuReL, KV-shared layers; no pipeline parallelism), Granite 4.0
(Mamba2 hybrids with experts on every layer, and the dense micro), Seed-OSS-36B, ERNIE-4.5-21B-A3B, and Mistral Small's
derivatives Devstral Small and Magistral Small.

Each case rebuilds the config keys the record was taken from and checks the catalog's parameter count against what
:func:`derive_params` makes of them, then the KV layout vLLM builds and what a layout of it does at start-up.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.support import NO_PIPELINE_PARALLEL, pp_refusal


def _gemma3n_types(n: int) -> list[str]:
    return ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]


# transformers' Gemma3nTextConfig defaults at 018548097621d331be9d60ab6cafdd71cfa67a43 ("gemma3n_text-E4B style"),
# intermediate_size given per layer as the published config.json files give it
GEMMA3N_E4B: dict[str, Any] = {
    "architectures": ["Gemma3nForConditionalGeneration"], "model_type": "gemma3n",
    "text_config": {
        "model_type": "gemma3n_text", "vocab_size": 262_400, "vocab_size_per_layer_input": 262_144,
        "hidden_size": 2048, "hidden_size_per_layer_input": 256, "intermediate_size": [16_384] * 35,
        "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
        "max_position_embeddings": 32_768, "sliding_window": 512, "layer_types": _gemma3n_types(35),
        "num_kv_shared_layers": 15, "altup_num_inputs": 4, "laurel_rank": 64, "tie_word_embeddings": True,
    },
}
# the E2B nested in E4B: 30 layers of FFN 8192, the last 10 KV-shared
GEMMA3N_E2B: dict[str, Any] = {
    **GEMMA3N_E4B,
    "text_config": {**GEMMA3N_E4B["text_config"], "num_hidden_layers": 30, "intermediate_size": [8192] * 30,
                    "layer_types": _gemma3n_types(30), "num_kv_shared_layers": 10},
}


def test_gemma3n_decoder_params():
    # embeddings 262400 x 2048 (tied) + per-layer table 262144 x (35 x 256) + its projection 2048 x 8960 and norm
    # 256 + AltUp's 3 projections and 3 unembeddings of 2048 x 2048 + the final norm; per layer: attention
    # 10,485,760 + q/k norms 512, MLP 3 x 2048 x 16384, 4 norms, AltUp 16 + 64 + 8192 + 2 x 2048, LAuReL 2 x 2048 x
    # 64 + 2048, per-layer input gate and projection 2 x 2048 x 256 + 2048
    layer = (10_485_760 + 512) + 3 * 2048 * 16_384 + 4 * 2048 + (16 + 64 + 8192 + 4096) + (262_144 + 2048) \
        + (1_048_576 + 2048)
    top = 262_400 * 2048 + 262_144 * 35 * 256 + 2048 * 35 * 256 + 256 + 6 * 2048 * 2048 + 2048
    assert derive_params(GEMMA3N_E4B) == top + 35 * layer == 6_866_696_688  # LM Studio's "6.9B" text model
    # E2B: 4.46B, as a public ExecuTorch export of its text decoder states
    assert derive_params(GEMMA3N_E2B) == 4_456_156_768
    e4b, e2b = find_model("google/gemma-3n-E4B-it"), find_model("google/gemma-3n-E2B-it")
    assert (e4b.extra["derived_params"], e2b.extra["derived_params"]) == (6_866_696_688, 4_456_156_768)
    # the records are the Hub's safetensors totals; the encoders are the rest (the same towers in both)
    assert (e4b.params, e4b.vision_params) == (7_850_000_000, 983_303_312)
    assert (e2b.params, e2b.vision_params) == (5_440_000_000, 983_843_232)
    taught = shape_from_config(GEMMA3N_E4B, model_id="gemma3n", source="config.json")
    assert (taught.intermediate_size, taught.num_hidden_layers, taught.max_position_embeddings) == (16_384, 35, 32_768)
    assert find_model("google/gemma-3n-E4B") is e4b


def test_gemma3n_kv_layout():
    # 20 of E4B's 35 layers cache (4 full, 16 sliding of 512); the last 15 read layers 18 (sliding) and 19 (full)
    e4b = kv_layout.layout(find_model("google/gemma-3n-E4B-it"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in e4b.types] == [
        ("full", 4, 2 * 2 * 256 * 2, None), ("sliding", 16, 2048, 512)]
    e2b = kv_layout.layout(find_model("google/gemma-3n-E2B-it"), 1, 1, 2)
    assert [(t.kind, t.layers) for t in e2b.types] == [("full", 4), ("sliding", 16)]


def test_no_pipeline_parallelism_is_a_certain_refusal():
    e4b = find_model("google/gemma-3n-E4B-it")
    reason = pp_refusal(e4b, 2)
    assert reason == ("vLLM's Gemma3nForConditionalGeneration (vllm/model_executor/models/gemma3n_mm.py) does not "
                      "implement SupportsPP, so pipeline_parallel_size 2 is refused at start-up (vLLM: Pipeline "
                      "parallelism is not supported for this model); use tensor parallelism or replicas")
    s = sizing.size_replica(e4b, 22.0, tp=1, pp=2, max_model_len=8192, vllm_version="0.20.0")
    assert (s.starts, s.certain, s.verdict, s.refusal) == (False, True, "refuses", reason)
    one = sizing.size_replica(e4b, 22.0, tp=1, pp=1, max_model_len=8192, vllm_version="0.20.0")
    assert one.starts and one.refusal == "" and pp_refusal(e4b, 1) == ""
    # TP is fine: 8 heads, 2 KV heads replicated at TP4
    assert sizing.size_replica(e4b, 22.0, tp=4, max_model_len=8192, vllm_version="0.20.0").starts


@pytest.mark.parametrize("arch", sorted(NO_PIPELINE_PARALLEL))
def test_every_listed_architecture_refuses_pp(arch):
    # the fact is the architecture's, not the model's: any config naming it is refused at PP > 1
    model = find_model("microsoft/Phi-4-mini-instruct")
    named = dataclasses.replace(model, hf_config={**model.hf_config, "architectures": [arch]})
    assert pp_refusal(named, 2).startswith(f"vLLM's {arch} ({NO_PIPELINE_PARALLEL[arch]}) does not implement")
    assert pp_refusal(model, 2) == ""  # Phi3ForCausalLM implements SupportsPP


def test_plan_never_proposes_pipeline_stages_for_gemma3n(capsys):
    # on PCIe-only L4 nodes the search would otherwise go to PP2...PP32; only TP1 is left
    assert main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "L4"]) in (0, 1)
    out, err = capsys.readouterr()
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert [(r[0], r[1]) for r in rows] == [("1", "1")] and "Traceback" not in err
    assert main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "H100"]) == 0
    out, _ = capsys.readouterr()
    assert "recommended: TP1;" in out
    # asked for, PP2 is a certain refusal with vLLM's words
    main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "L4", "--pp", "2"])
    out, _ = capsys.readouterr()
    assert "does not implement SupportsPP, so pipeline_parallel_size 2 is refused at start-up" in out


# ibm-granite/granite-4.0-h-small, -h-micro and -micro: config.json keys as public projects quote them
_GRANITE_TYPES = (["mamba"] * 5 + ["attention"] + ["mamba"] * 4) * 4
GRANITE_H_MICRO: dict[str, Any] = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "torch_dtype": "bfloat16",
    "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
    "layer_types": _GRANITE_TYPES, "mamba_n_heads": 64, "mamba_d_head": 64, "mamba_d_state": 128,
    "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2, "num_local_experts": 0,
    "shared_intermediate_size": 8192, "intermediate_size": 8192, "vocab_size": 100352,
    "max_position_embeddings": 131072, "tie_word_embeddings": True,
}
GRANITE_H_SMALL: dict[str, Any] = {
    **GRANITE_H_MICRO, "hidden_size": 4096, "mamba_n_heads": 128, "num_local_experts": 72, "num_experts_per_tok": 10,
    "intermediate_size": 768, "shared_intermediate_size": 1536,
}
GRANITE_MICRO: dict[str, Any] = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "torch_dtype": "bfloat16",
    "hidden_size": 2560, "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 8,
    "layer_types": ["attention"] * 40, "num_local_experts": 0, "shared_intermediate_size": 8192,
    "intermediate_size": 8192, "vocab_size": 100352, "max_position_embeddings": 131072, "tie_word_embeddings": True,
}
# ByteDance-Seed/Seed-OSS-36B-Instruct: config.json's shape (a public test vendors it); SeedOssConfig's biases
SEED_OSS: dict[str, Any] = {
    "architectures": ["SeedOssForCausalLM"], "model_type": "seed_oss", "torch_dtype": "bfloat16",
    "hidden_size": 5120, "num_hidden_layers": 64, "intermediate_size": 27648, "num_attention_heads": 80,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 155136, "max_position_embeddings": 524288,
    "tie_word_embeddings": False, "attention_bias": True, "attention_out_bias": False,
}
# baidu/ERNIE-4.5-21B-A3B-PT: Ernie4_5_MoeConfig's defaults (transformers at 001f85b3)
ERNIE_21B: dict[str, Any] = {
    "architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "torch_dtype": "bfloat16",
    "vocab_size": 103424, "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 28,
    "num_attention_heads": 20, "num_key_value_heads": 4, "max_position_embeddings": 131072,
    "tie_word_embeddings": True, "moe_intermediate_size": 1536, "moe_k": 6, "moe_num_experts": 64,
    "moe_num_shared_experts": 2, "moe_layer_start_index": 1,
}


def test_granite4_params_are_the_cards():
    # h-small: 36 Mamba2 mixers (in_proj 4096 x (8192 + 8448 + 128), conv 8448 x 4 + bias, dt/A/D, norm, out_proj),
    # 4 attention layers, every layer 72 experts of 3 x 4096 x 768, a router and a shared MLP of 1536: 32.2B
    assert derive_params(GRANITE_H_SMALL) == find_model("ibm-granite/granite-4.0-h-small").params == 32_207_337_984
    assert derive_params(GRANITE_H_MICRO) == find_model("ibm-granite/granite-4.0-h-micro").params == 3_191_396_096
    assert derive_params(GRANITE_MICRO) == find_model("ibm-granite/granite-4.0-micro").params == 3_402_836_480
    small = find_model("ibm-granite/granite-4.0-h-small")
    assert small.moe is not None and (small.moe.num_experts, small.moe.experts_per_token) == (72, 10)
    assert find_model("ibm-granite/granite-4.0-h-small-base") is small


def test_granite4_kv_layout():
    # h-small: 4 attention layers of 8 KV heads of 128; 36 Mamba2 states of conv (3 x (8192 + 2 x 128)) and SSM
    # (128 heads x 64 x 128) in bf16
    lay = kv_layout.layout(find_model("ibm-granite/granite-4.0-h-small"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 4, 4096, 0), ("state", 36, 0, 3 * 8448 * 2 + 128 * 64 * 128 * 2)]
    micro = kv_layout.layout(find_model("ibm-granite/granite-4.0-micro"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in micro.types] == [("full", 40, 2 * 8 * 64 * 2)]


def test_seed_oss_ernie_params():
    # Seed-OSS: q/k/v biases without an o_proj bias, untied 155136 x 5120 embeddings: 36.15B
    attention = 5120 * 80 * 128 * 2 + 2 * 5120 * 8 * 128 + (80 + 16) * 128
    layer = attention + 3 * 5120 * 27_648 + 2 * 5120
    assert derive_params(SEED_OSS) == 2 * 155_136 * 5120 + 64 * layer + 5120 == 36_151_104_512
    seed = find_model("ByteDance-Seed/Seed-OSS-36B-Instruct")
    assert (seed.params, seed.max_position_embeddings) == (36_151_104_512, 524_288)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(seed, 1, 1, 2).types] == [
        ("full", 64, 2 * 8 * 128 * 2)]
    # ERNIE-4.5-21B-A3B: layer 0 a dense MLP of 12288; 27 MoE layers of 64 experts, 2 shared experts, a router and its
    # score-correction bias; tied embeddings: 21.83B
    moe_layer = 64 * 3 * 2560 * 1536 + 2560 * 64 + 2 * 3 * 2560 * 1536 + 64
    attention = 2 * 2560 * 2560 + 2 * 2560 * 512
    expected = 103_424 * 2560 + 28 * (attention + 2 * 2560) + 3 * 2560 * 12_288 + 27 * moe_layer + 2560
    assert derive_params(ERNIE_21B) == expected == 21_825_437_888
    ernie = find_model("baidu/ERNIE-4.5-21B-A3B-PT")
    assert ernie.params == expected and sizing.moe_layers(ernie) == 27
    taught = shape_from_config(ERNIE_21B, model_id="ernie", source="config.json")
    assert taught.moe is not None and (taught.moe.num_experts, taught.moe.experts_per_token,
                                       taught.moe.shared_experts) == (64, 6, 2)


def test_mistral_small_derivatives():
    # Devstral Small and Magistral Small 2506/2507: Mistral Small 24B's text decoder at 131,072 tokens; Magistral Small
    # 2509 (1.2) keeps Mistral Small 3.1/3.2's vision encoder
    text = find_model("mistralai/Mistral-Small-24B-Instruct-2501")
    for mid in ("mistralai/Devstral-Small-2505", "mistralai/Devstral-Small-2507", "mistralai/Magistral-Small-2506",
                "mistralai/Magistral-Small-2507"):
        m = find_model(mid)
        assert (m.params, m.vision_params, m.max_position_embeddings) == (text.params, 0, 131_072), mid
    m = find_model("mistralai/Magistral-Small-2509")
    assert (m.params, m.vision_params) == (24_011_361_280, 438_958_080)


NEW_FAMILIES = ["google/gemma-3n-E4B-it", "google/gemma-3n-E2B-it", "ibm-granite/granite-4.0-h-small",
                "ai21labs/AI21-Jamba-Mini-1.7",
                "ibm-granite/granite-4.0-h-micro", "ibm-granite/granite-4.0-micro",
                "ByteDance-Seed/Seed-OSS-36B-Instruct", "baidu/ERNIE-4.5-21B-A3B-PT", "mistralai/Devstral-Small-2505",
                "mistralai/Magistral-Small-2506", "mistralai/Magistral-Small-2509", "Qwen/Qwen3-VL-30B-A3B-Instruct"]



@pytest.mark.parametrize("model_id", NEW_FAMILIES)
def test_a_manifest_serving_a_new_family_is_decided(tmp_path, model_id):
    # the public shape: `vllm serve <model>` on H100s; the model is known, so nothing is undecided for lack of it
    tp = 2 if model_id in ("ByteDance-Seed/Seed-OSS-36B-Instruct", "ibm-granite/granite-4.0-h-small",
                           "ai21labs/AI21-Jamba-Mini-1.7") else 1
    findings = lint(tmp_path, deployment(model_id, tp, replicas=2))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


@pytest.mark.parametrize("model_id", NEW_FAMILIES)
def test_plan_runs(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H100"]) == 0
    out, err = capsys.readouterr()
    assert model_id in out and "Traceback" not in err


# ai21labs Jamba: JambaConfig's defaults (transformers at 008f5c8c; Jamba-v0.1 and the 1.5-1.7 Mini) and the Large width
JAMBA_MINI: dict[str, Any] = {
    "architectures": ["JambaForCausalLM"], "model_type": "jamba", "torch_dtype": "bfloat16", "vocab_size": 65536,
    "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_experts": 16, "num_experts_per_tok": 2, "expert_layer_period": 2,
    "expert_layer_offset": 1, "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4,
    "mamba_expand": 2, "mamba_dt_rank": "auto", "mamba_conv_bias": True, "mamba_proj_bias": False,
    "max_position_embeddings": 262144, "tie_word_embeddings": False,
}


def test_jamba_params():
    # Mamba1 mixer: in_proj 4096 x 16384, conv 8192 x 4 + bias, x_proj 8192 x (256 + 32), dt_proj 256 x 8192 + bias,
    # A_log 8192 x 16, D, out_proj 8192 x 4096, dt/B/C norms 256 + 16 + 16 (dt_rank "auto" = 4096 / 16)
    mamba = 4096 * 16384 + 8192 * 4 + 8192 + 8192 * 288 + 256 * 8192 + 8192 + 8192 * 16 + 8192 + 8192 * 4096 + 288
    attention = 2 * 4096 * 4096 + 2 * 4096 * 1024
    experts = 4096 * 16 + 16 * 3 * 4096 * 14336
    dense = 3 * 4096 * 14336
    expected = 2 * 65536 * 4096 + 4096 + 28 * mamba + 4 * attention + 16 * experts + 16 * dense + 32 * 2 * 4096
    assert derive_params(JAMBA_MINI) == expected == 51_570_323_328  # the card's 52B
    mini, large = find_model("ai21labs/AI21-Jamba-Mini-1.7"), find_model("ai21labs/AI21-Jamba-Large-1.7")
    assert mini.params == expected and large.params == 398_555_145_696  # the card's 398B
    assert find_model("ai21labs/AI21-Jamba-1.5-Mini") is mini
    assert sizing.moe_layers(mini) == 16 and sizing.moe_layers(large) == 36
    # 2 of 16 experts on the expert layers: the cards' 12B and 94B active
    active = mini.params - 16 * 16 * 3 * 4096 * 14336 * 14 // 16
    assert round(active / 1e9, 1) == 12.1
    assert round((large.params - 36 * 16 * 3 * 8192 * 24576 * 14 // 16) / 1e9, 1) == 94.1


def test_jamba_mamba1_layers_are_a_state_per_request():
    # attention at layers 4, 12, 20, 28; 28 Mamba1 layers, each a conv state of 8192 x 3 and an SSM state of
    # 8192 x 16 per request in bf16 (MambaStateShapeCalculator.mamba1_state_shape), split over TP
    mini = find_model("ai21labs/AI21-Jamba-Mini-1.7")
    assert kv_layout.unmodelled_reason(mini) == ""
    lay = kv_layout.layout(mini, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 4, 2 * 8 * 128 * 2, 0), ("state", 28, 0, 8192 * (3 + 16) * 2)]
    assert kv_layout.mamba1_state_bytes(mini, 2) == 4096 * 19 * 2
    # the attention block grows until its page holds a state: 16 × cdiv(311,296, 16 × 4,096) = 80 tokens
    s = sizing.size_replica(mini, 79.19, tp=1, max_model_len=32_768, vllm_version="0.11.0")
    assert s.block_size == 80 and s.hybrid_kv
    # PP2 splits 16 layers a stage: attention 4 and 12 on stage 0, 20 and 28 on stage 1
    assert [(t.kind, t.layers) for t in kv_layout.layout(mini, 1, 2, 2, 1).types] == [("full", 2), ("state", 14)]
    # decode compute: 4 attention layers over the context, 28 state updates
    assert kv_layout.mixer_flops(mini, 1, 1, 8192) == 4 * 4 * 8192 * 32 * 128 + 28 * 2 * 311_296


def test_qwen35_sizes():
    # the model cards' shapes over Qwen3.6-35B-A3B's keys: 397B-A17B (60 layers, 512 experts of 1024, 10 routed) and
    # 122B-A10B (48 layers, 256 experts of 1024, 8 routed), both 32 Q / 2 KV heads of 256 and 64 linear V heads
    big, mid = find_model("Qwen/Qwen3.5-397B-A17B"), find_model("Qwen/Qwen3.5-122B-A10B")
    assert (big.params, big.vision_params) == (396_802_360_816, 456_010_480)  # the name's 397B
    assert (mid.params, mid.vision_params) == (122_562_817_776, 451_290_864)  # 122B
    routed = 60 * 512 * 3 * 4096 * 1024
    assert round((big.params - routed + routed * 10 // 512) / 1e9, 1) == 17.8  # A17B, embeddings and vision included
    routed = 48 * 256 * 3 * 3072 * 1024
    assert round((mid.params - routed + routed * 8 // 256) / 1e9, 1) == 10.2  # A10B
    # 15 (12) gated-attention layers of 2 KV heads of 256; 45 (36) Gated DeltaNet states of conv 3 x (2 x 16 + 64) x
    # 128, bf16, and recurrent 64 x 128 x 128, float32 (config.json's mamba_ssm_dtype, applied by vLLM's Qwen3_5 hook)
    state = (2 * 16 * 128 + 64 * 128) * 3 * 2 + 64 * 128 * 128 * 4
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in kv_layout.layout(big, 1, 1, 2).types] == [
        ("full", 15, 2048, 0), ("state", 45, 0, state)]
    assert state == 4_268_032
    q27 = find_model("Qwen/Qwen3.5-27B")
    assert q27.params == find_model("Qwen/Qwen3.6-27B").params == 27_356_728_560


def test_qwen3_vl_moe_sizes_are_the_qwen3_moe_decoders_with_the_vision_tower():
    # the decoders are Qwen3-30B-A3B's and Qwen3-235B-A22B's; Qwen3-VL-8B's tower (deepstack mergers included)
    # projects to their widths: 31.07B and 235.67B, the Hub's 31.1B and 236B
    for vl, text, total, vision in (("Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen/Qwen3-30B-A3B", 31_070_754_032,
                                     538_631_408),
                                    ("Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen/Qwen3-235B-A22B", 235_670_022_896,
                                     576_388_336)):
        m, t = find_model(vl), find_model(text)
        assert (m.params, m.vision_params, m.params - m.vision_params) == (total, vision, t.params)
        assert m.moe == t.moe and m.max_position_embeddings == 262_144
        assert sizing.moe_layers(m) == m.num_hidden_layers
    assert find_model("Qwen/Qwen3-VL-235B-A22B-Thinking") is find_model("Qwen/Qwen3-VL-235B-A22B-Instruct")
