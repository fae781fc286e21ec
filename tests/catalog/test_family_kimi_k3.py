"""Kimi-K3 in the catalog (issue 28, catalog10).

moonshotai/Kimi-K3 (``KimiK3ForConditionalGeneration``, text ``KimiLinearForCausalLM``): 93 layers, Kimi Delta
Attention with a full-rank forget gate on 69 and gated MLA on 24, a LatentMoE of 896 experts of 3,072 working in a
3,584-wide latent (16 a token, 2 shared), natively MXFP4 (compressed-tensors ``mxfp4-pack-quantized``, group 32,
uint8 scales) on the routed experts only. The record is the published config.json and the safetensors' tensor list
as a public model-information report reproduces them; the layouts are vLLM's ``vllm/models/kimi_k3`` (at 006193b5):
``mla.py``'s ``MLAAttentionSpec`` of ``kv_lora_rank + qk_rope_head_dim``, ``kda.py``'s ``kda_state_shape``,
``model.py``'s ``KimiMoE`` (latent projections replicated and unquantised, a narrow per-rank expert width padded to
256). Every figure below is exact, from those shapes.
"""

from __future__ import annotations

import pytest
from family_manifest import deployment, lint
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import (
    checkpoint_precision,
    expert_padding,
    expert_params,
    replicated_params,
    weights_bytes,
)
from shardwise.rules.catalog import find_model
from shardwise.rules.catalog.hfconfig import quant_from_config
from shardwise.rules.vllm import kv_layout

K3 = "moonshotai/Kimi-K3"
H, V, KDA, MLA, MOE = 7168, 163_840, 69, 24, 92

# the safetensors' tensors, as listed: every KDA layer, every MLA layer, what all 93 layers have, one MoE layer
_KDA_LAYER = 3 * 12_288 * H + 128 * H + 12_288 * 128 + 96 * H + 3 * 12_288 * 4 + 128 + 12_288 + 128
_MLA_LAYER = 1536 * H + 1536 + 18_432 * 1536 + 576 * H + 512 + 24_576 * 512
_EVERY_LAYER = 2 * 12_288 * H + 6 * H  # g_proj and o_proj; two layer norms and the attention-residual norms and projections
_MOE_LAYER = 896 * H + 896 + 2 * 3584 * H + 3584 + 3 * 6144 * H  # router, latent down / up and norm, 2 shared experts
_EXPERTS = MOE * 896 * 3 * 3584 * 3072
_TOWER = 27 * (2 * 4096 * 1024 + 2 * 1024 + 1024 * 1536 + 4608 * 1024) + 1024 + 64 * 64 * 1024 + 1024 * 3 * 14 * 14 \
    + H + 4096 * 4096 + H * 4096  # 27 blocks, final norm, position table, patch conv; the projector


def test_kimi_k3_params_are_its_tensor_list():
    text = 2 * V * H + KDA * _KDA_LAYER + MLA * _MLA_LAYER + 93 * _EVERY_LAYER + 3 * 33_792 * H + MOE * _MOE_LAYER + 3 * H
    assert text == 56_743_648_000
    assert _TOWER == 447_358_976
    m = find_model(K3)
    assert (m.params, m.vision_params) == (text + _EXPERTS + _TOWER, _TOWER) == (2_779_931_837_184, 447_358_976)
    # the experts work in the 3,584-wide latent (routed_expert_hidden_size), not in hidden_size
    assert expert_params(m) == _EXPERTS == 2_722_740_830_208
    assert (m.max_position_embeddings, sizing.moe_layers(m)) == (1_048_576, MOE)


def test_kimi_k3_is_mxfp4_on_its_experts_only():
    m = find_model(K3)
    assert quant_from_config(m.hf_config["quantization_config"]) == ("mxfp4", "compressed-tensors")
    assert (checkpoint_precision(m), m.quantization) == ("mxfp4", "compressed-tensors")
    # 4-bit values and a uint8 scale per 32 on the experts (the stored 1,446,456,066,048 bytes), 16-bit elsewhere;
    # the checkpoint's 1,560,860,324,864 tensor bytes hold 11,122,432 float32 values (KDA's A_log, dt_bias and
    # short convs, the routers' bias) that this counts at 2 bytes
    assert _EXPERTS * 17 // 32 == 1_446_456_066_048
    assert weights_bytes(m, "mxfp4", m.quantization) == (m.params - _EXPERTS) * 2 + _EXPERTS * 17 / 32
    assert weights_bytes(m, "mxfp4", m.quantization) == 1_560_860_324_864 - 2 * 11_122_432 == 1_560_838_080_000


def test_kimi_k3_caches_one_latent_on_its_24_mla_layers_and_a_kda_state_on_69():
    m = find_model(K3)
    for tp in (1, 8, 16):
        full, state = kv_layout.layout(m, tp, 1, 2).types
        # MLA: one latent of 512 + 64 per token and layer, the same on every rank
        assert (full.kind, full.layers, full.bytes_per_token) == ("full", MLA, (512 + 64) * 2)
        # KDA: conv states (4 - 1) x 3 x 96 x 128 / TP in bf16, a 96 / TP x 128 x 128 float32 recurrent state
        assert (state.kind, state.layers, state.state_bytes) == ("state", KDA,
                                                                 3 * 3 * 96 * 128 // tp * 2 + 96 // tp * 128 * 128 * 4)
    assert kv_layout.layout(m, 16, 1, 2).types[1].state_bytes == 407_040


def test_kimi_k3_replicates_its_latent_projections_and_mla_down_projections_only_on_mla_layers():
    m = find_model(K3)
    quantised, plain = replicated_params(m)
    # q_a + kv_a on the 24 MLA layers and KDA's f_a (hidden -> 128) on the 69 KDA layers, at the attention's precision
    assert quantised == MLA * H * (1536 + 576) + KDA * H * 128 == 426_639_360
    # the routers and the latent down / up projections (ReplicatedLinear, quant_config=None) in the 92 MoE layers
    assert plain == MOE * (896 * H + 2 * H * 3584) == 5_317_853_184
    # Kimi Linear keeps its MLA down projections on its 7 MLA layers only (27 before)
    kimi_linear = find_model("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert replicated_params(kimi_linear) == (7 * 2304 * 576, 26 * 256 * 2304)


@pytest.mark.parametrize(("tp", "pad"), [(1, 1.0), (8, 1.0), (12, 1.0), (16, 4096 / 3072), (32, 8192 / 3072)])
def test_kimi_k3_pads_a_narrow_per_rank_expert_width(tp, pad):
    # min_moe_intermediate_per_partition 256: 3,072 / 16 = 192 is built as 256 a rank
    assert expert_padding(find_model(K3), tp) == pad
    assert expert_padding(find_model("moonshotai/Kimi-K2.6"), tp) == 1.0


def test_the_public_tp16_h200_deployment_loads_what_it_logged():
    # aws-samples/sample-llm-inference-on-eks k8s-manifest/lws/lws-kimi-k3-tp16-p5en.yaml (wide corpus): vLLM's
    # Kimi-K3 recipe's H200 profile at TP16 over two p5en.48xlarge, measured "weights alone are 129.75 GiB/GPU" and
    # 0.82 GiB of KV cache at 0.97, where 32,768 tokens need 0.88 GiB (vLLM's refusal, quoted)
    m = find_model(K3)
    sized = sizing.size_replica(m, 139.81, tp=16, gpu_memory_utilization=0.97, max_model_len=29_696, max_num_seqs=5,
                                max_num_batched_tokens=4096, vllm_version="0.34.0")
    quantised, plain = replicated_params(m)
    rest = weights_bytes(m, "mxfp4", m.quantization) - _EXPERTS * 17 / 32 - V * H * 2 * 2
    per_gpu = ((rest - 2 * (quantised + plain)) / 16 + 2 * (quantised + plain) + _EXPERTS * 17 / 32 * 4096 / 3072 / 16
               + 2 * V * H * 2 / 16)
    # no rotary cache: the MLA layers are NoPE and the KDA layers have none
    assert sized.weights_gib_per_gpu * 2**30 == pytest.approx(per_gpu, rel=1e-12)
    assert round(sized.weights_gib_per_gpu, 2) == 128.95  # logged 129.75 (-0.6 %); unpadded it would be 100.88
    # one sequence of 32,768 tokens: 24 latents a token and one KDA state per layer, vLLM's 0.88 GiB
    assert round((32_768 * MLA * 576 * 2 + KDA * 407_040) / 2**30, 2) == 0.87


def test_a_manifest_serving_kimi_k3_is_decided(tmp_path):
    # 8 x B300 (p6-b300.48xlarge), as the public b300 manifest serves it
    findings = lint(tmp_path, deployment(K3, 8, instance="p6-b300.48xlarge"))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], [f.message for f in mine]
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"]


def _published_config() -> dict:
    """moonshotai/Kimi-K3's config.json as published: KimiK3ForConditionalGeneration over a kimi_linear text_config
    (whose quantization_config it carries) and a vt_* vision_config; the sizing keys only."""
    hc = find_model(K3).hf_config
    text = {k: v for k, v in hc.items() if k not in ("architectures", "vision_config", "model_type")}
    text.update({"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "hidden_size": H,
                 "intermediate_size": 33_792, "num_hidden_layers": 93, "num_attention_heads": 96,
                 "num_key_value_heads": 96, "vocab_size": V, "num_experts": 896, "num_experts_per_token": 16,
                 "num_shared_experts": 2, "moe_intermediate_size": 3072, "tie_word_embeddings": False,
                 "dtype": "bfloat16"})
    return {"architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3", "dtype": "bfloat16",
            "text_config": text, "vision_config": hc["vision_config"], "tie_word_embeddings": False}


def test_a_kimi_k3_config_json_is_taught_as_the_record():
    from shardwise.rules.catalog import derive_params, shape_from_config

    config = _published_config()
    assert derive_params(config) == 2_779_931_837_184
    taught, m = shape_from_config(config, model_id="acme/k3-support", source="config.json"), find_model(K3)
    for field in ("params", "vision_params", "num_hidden_layers", "hidden_size", "head_dim", "precision",
                  "quantization", "max_position_embeddings", "moe", "mla"):
        assert getattr(taught, field) == getattr(m, field), field
    assert weights_bytes(taught, "mxfp4", taught.quantization) == 1_560_838_080_000
    assert (expert_params(taught), replicated_params(taught)) == (_EXPERTS, (426_639_360, 5_317_853_184))
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(taught, 8, 1, 2).types] == [
        ("full", MLA, 1152), ("state", KDA, 0)]
    assert sizing.rotary_cache_bytes(taught) == 0
