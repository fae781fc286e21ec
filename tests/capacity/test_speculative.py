"""Speculative decoding's memory at start-up (rules/capacity/draft.py): the draft's weights on the last stage, the
MTP layers' KV cache in the same budget, nothing for CPU proposers, the error band for drafts not known.

The expected figures are worked out here from the published configs (DeepSeek-V3's and Qwen3.5-9B's config.json as
the catalog holds them), not read back from the code."""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity.sizing import GIB, Device, EngineSettings, size_deployment
from shardwise.rules.catalog.lookup import find_gpu, find_model


def _pair(model_id: str, gpu: str, version: str, method: str, **kw: object):
    model = find_model(model_id)
    device = Device.of(find_gpu(gpu))
    plain = size_deployment(model, device, EngineSettings(**kw), version)  # type: ignore[arg-type]
    spec = size_deployment(model, device, EngineSettings(speculative_method=method, **kw), version)  # type: ignore[arg-type]
    return model, plain, spec


def test_deepseek_v3_mtp_layer_weights_and_kv_on_tp8_h200():
    model, plain, spec = _pair("deepseek-ai/DeepSeek-V3", "H200", "0.11.0", "mtp", tp=8)
    # one MTP layer (num_nextn_predict_layers 1) at FP8, TP8: the 256 routed experts of one MoE layer
    # (3 × 7,168 × 2,048 each) split over 8 ranks, the layer's share of the other non-embedding parameters
    # ((671,026,419,200 − 2 × 129,280 × 7,168 − the routed experts of its 58 MoE layers, first_k_dense_replace 3)
    # ÷ 61 layers ÷ 8),
    # eh_proj 2 × 7,168² in 16 bits on every rank, its own shared_head LM head 129,280 × 7,168 × 2 bytes ÷ 8
    other = (671_026_419_200 - 2 * 129_280 * 7_168 - 58 * 256 * 3 * 7_168 * 2_048) / 61 / 8
    expected = other + 256 * 3 * 7_168 * 2_048 / 8 + 2 * 7_168 * 7_168 * 2 + 129_280 * 7_168 * 2 / 8
    assert (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB == pytest.approx(expected, abs=1.0)
    assert expected / GIB == pytest.approx(1.749, abs=0.001)
    # the budget loses what the draft weighs; the MLA cache now has 62 layers of 576 × 2 bytes a token
    assert spec.available_kv_gib == pytest.approx(plain.available_kv_gib - expected / GIB, abs=1e-9)
    per_block = 62 * 576 * 2 * spec.block_size
    assert spec.kv_cache_tokens == int(spec.available_kv_gib * GIB) // per_block * spec.block_size
    # both keep the 16-bit copy of the target's FP8 kv_b_proj (0.24 GiB; 676,096 and 638,848 before it); the MTP
    # layer's own copy is not counted
    assert (plain.kv_cache_tokens, spec.kv_cache_tokens) == (672_448, 635_264)
    assert spec.error_band_gib == plain.error_band_gib
    assert any("1 MTP layer (1.75 GiB per GPU, with its own LM head)" in n for n in spec.notes)


def test_qwen3_5_mtp_shares_the_lm_head_and_adds_one_full_attention_layer():
    model, plain, spec = _pair("Qwen/Qwen3.5-9B", "H100", "0.17.0", "mtp")
    # mtp_num_hidden_layers 1: one decoder layer of the text model ((9,409,813,744 − 456,010,480 vision −
    # 2 × 248,320 × 4,096) ÷ 32 in bf16) and fc 2 × 4,096² in bf16; Qwen3_5MTP's lm_head is the target's
    layer = (9_409_813_744 - 456_010_480 - 2 * 248_320 * 4_096) / 32 * 2
    expected = layer + 2 * 4_096 * 4_096 * 2
    assert (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB == pytest.approx(expected, abs=1.0)
    # 8 full-attention layers become 9 (the 24 Gated DeltaNet layers keep one state per request, in float32 as the
    # config's mamba_ssm_dtype asks: a larger state page, so the token counts are those of that page size; the
    # vision tower's dummy output and pixel values stay held through the sampler's warm-up, as from 0.11)
    assert (plain.kv_cache_tokens, spec.kv_cache_tokens) == (404_976, 356_400)
    assert any("1 MTP layer (" in n and "own LM head" not in n for n in spec.notes)


@pytest.mark.parametrize("method", ["ngram", "suffix"])
def test_cpu_proposers_cost_no_gpu_memory(method):
    _, plain, spec = _pair("meta-llama/Llama-3.1-8B-Instruct", "H100", "0.11.0", method)
    assert spec == plain


def test_an_unknown_draft_checkpoint_widens_the_band_not_the_estimate():
    _, plain, spec = _pair("meta-llama/Llama-3.1-8B-Instruct", "H100", "0.11.0", "eagle3")
    assert spec.weights_gib_per_gpu == plain.weights_gib_per_gpu
    assert spec.kv_cache_tokens == plain.kv_cache_tokens
    # an EAGLE head of Llama-3.1-8B's shape: one decoder layer ((8,030,261,248 − 2 × 128,256 × 4,096) ÷ 32 in
    # bf16), fc 3 × 4,096² and an LM head 128,256 × 4,096, both bf16
    bound = (8_030_261_248 - 2 * 128_256 * 4_096) / 32 * 2 + 3 * 4_096 * 4_096 * 2 + 128_256 * 4_096 * 2
    assert (spec.error_band_gib - plain.error_band_gib) * GIB == pytest.approx(bound, abs=1.0)
    assert any("does not know" in n for n in spec.notes)


def test_mtp_without_a_layer_count_is_not_guessed():
    model = find_model("deepseek-ai/DeepSeek-V3")
    config = {k: v for k, v in model.extra["config"].items() if k != "num_nextn_predict_layers"}
    bare = dataclasses.replace(model, extra={**model.extra, "config": config})
    device = Device.of(find_gpu("H200"))
    plain = size_deployment(bare, device, EngineSettings(tp=8), "0.11.0")
    spec = size_deployment(bare, device, EngineSettings(tp=8, speculative_method="mtp"), "0.11.0")
    assert (spec.weights_gib_per_gpu, spec.kv_cache_tokens) == (plain.weights_gib_per_gpu, plain.kv_cache_tokens)
    assert spec.error_band_gib > plain.error_band_gib
    assert any("names no MTP layer count" in n for n in spec.notes)


SPEC = '{"method": "mtp", "num_speculative_tokens": 1}'
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: r1, namespace: serving}
spec:
  selector: {matchLabels: {app: r1}}
  template:
    metadata: {labels: {app: r1}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: p5en.48xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["deepseek-ai/DeepSeek-R1", "--tensor-parallel-size", "8", "--max-model-len", "32768",
                 "--speculative-config", 'SPEC']
          resources:
            limits: {nvidia.com/gpu: 8}
""".replace("SPEC", SPEC)


def test_plan_and_lint_size_the_same_mtp_draft(tmp_path):
    """`plan --speculative-config` and a manifest's `--speculative-config` reach the same sizing."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.app.plan import PlanError, PlanRequest, make_plan
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "r1.yaml"
    path.write_text(MANIFEST)
    [g] = load_inputs([str(path)]).groups
    settings = engine_settings(g)
    assert settings.speculative_method == "mtp"
    linted = size_deployment(find_model("deepseek-ai/DeepSeek-R1"), Device.of(find_gpu("H200")), settings, "0.11.0")
    plan = make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", instance_type="p5en.48xlarge", tp=8,
                                 max_model_len=32768, vllm_version="0.11.0", speculative_config=SPEC))
    planned = plan.candidates[0].sizing
    assert (planned.weights_gib_per_gpu, planned.kv_cache_tokens, planned.kv_bytes_per_token_per_gpu) == (
        linted.weights_gib_per_gpu, linted.kv_cache_tokens, linted.kv_bytes_per_token_per_gpu)
    assert planned.kv_bytes_per_token_per_gpu == 62 * 576 * 2  # 61 MLA layers and the MTP layer, bf16
    with pytest.raises(PlanError, match="names no method"):
        make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", gpu="H200", tp=8, speculative_config='{"x": 1}'))


def test_a_config_with_no_mtp_layer_charges_nothing():
    # Kimi-K2's config.json: num_nextn_predict_layers 0
    _, plain, spec = _pair("moonshotai/Kimi-K2-Instruct", "H200", "0.11.0", "mtp", tp=8)
    assert (spec.weights_gib_per_gpu, spec.kv_cache_tokens, spec.error_band_gib) == (
        plain.weights_gib_per_gpu, plain.kv_cache_tokens, plain.error_band_gib)
    assert any("has no MTP layer" in n for n in spec.notes)
