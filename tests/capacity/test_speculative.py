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
    # layer's own copy is not counted; PyTorch's TP communicator's rings take 0.28 GiB (672,448 and 635,264 before)
    assert (plain.kv_cache_tokens, spec.kv_cache_tokens) == (668_160, 631_040)
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


def _sized(model_id: str, gpu: str, version: str, **kw: object):
    return size_deployment(find_model(model_id), Device.of(find_gpu(gpu)), EngineSettings(**kw), version)  # type: ignore[arg-type]


def test_a_gemma4_assistant_drafter_charges_its_weights_and_no_kv():
    """The set-21 M-mtp2 shape: RedHatAI gemma-4-26B-A4B FP8 on one L40S at 0.29.0 with
    google/gemma-4-26B-A4B-it-assistant (method mtp, a separate checkpoint, not MTP layers of the target)."""
    kw: dict[str, object] = dict(gpu_memory_utilization=0.92, max_model_len=4096, max_num_seqs=256,
                                 max_num_batched_tokens=2048, block_size=16, enable_prefix_caching=False)
    plain = _sized("RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", "L40S", "0.29.0", **kw)
    spec = _sized("RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", "L40S", "0.29.0", speculative_method="mtp",
                  speculative_tokens=2, speculative_model="google/gemma-4-26B-A4B-it-assistant", **kw)
    # the assistant's config.json: tied embedding 262,144 × 1,024; pre_projection 2 × 2,816 → 1,024 and
    # post_projection 1,024 → 2,816; three sliding layers (q_proj and o_proj 1,024 × 16 × 256 each, no K/V: KV-shared)
    # and one full-attention layer (16 × 512), each with a gated MLP 3 × 1,024 × 8,192; all bf16
    params = (262_144 * 1_024 + 3 * 2_816 * 1_024 + 3 * (2 * 1_024 * 16 * 256 + 3 * 1_024 * 8_192)
              + (2 * 1_024 * 16 * 512 + 3 * 1_024 * 8_192))
    assert params == 419_692_544
    assert (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB == pytest.approx(params * 2, abs=1.0)
    assert spec.available_kv_gib == pytest.approx(plain.available_kv_gib - params * 2 / GIB, abs=1e-9)
    # its layers read the target's cache: the bytes a token do not change; a known drafter is decided
    assert spec.kv_bytes_per_token_per_gpu == plain.kv_bytes_per_token_per_gpu
    assert not any(n.startswith("cannot decide") for n in spec.notes)
    assert any("google/gemma-4-26B-A4B-it-assistant (0.78 GiB per GPU" in n for n in spec.notes)


def test_a_draft_model_from_the_catalog_charges_its_weights_and_its_kv_layers():
    """--speculative-model meta-llama/Llama-3.1-8B-Instruct for Llama-3.1-70B at TP4: the draft model split by the
    target's TP, its 32 layers of the target's KV shape (8 KV heads of 128) cached beside the target's 80."""
    plain = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4)
    spec = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4, speculative_method="draft_model",
                  speculative_tokens=5, speculative_model="meta-llama/Llama-3.1-8B-Instruct")
    assert (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB == pytest.approx(8_030_261_248 * 2 / 4,
                                                                                         abs=1.0)
    assert plain.kv_bytes_per_token_per_gpu == 80 * 2 * 2 * 128 * 2  # 80 layers, K and V, 2 heads a GPU, bf16
    assert spec.kv_bytes_per_token_per_gpu == 112 * 2 * 2 * 128 * 2
    assert spec.error_band_gib == plain.error_band_gib


def test_an_unknown_draft_model_is_undecided_with_the_targets_weights_in_the_band():
    plain = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4)
    spec = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4, speculative_method="draft_model",
                  speculative_tokens=5, speculative_model="acme/llama-draft-1b")
    assert (spec.weights_gib_per_gpu, spec.kv_cache_tokens) == (plain.weights_gib_per_gpu, plain.kv_cache_tokens)
    # a draft model is smaller than the target it drafts for: the target's 70,553,706,496 parameters in bf16 ÷ 4
    assert (spec.error_band_gib - plain.error_band_gib) * GIB == pytest.approx(70_553_706_496 * 2 / 4, abs=1.0)
    [note] = [n for n in spec.notes if "acme/llama-draft-1b" in n]
    assert note.startswith("cannot decide: the speculative method draft_model loads the drafter acme/llama-draft-1b")


@pytest.mark.parametrize(("config", "method", "drafter"), [
    ('{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}', "eagle3",
     "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"),
    ('{"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B", "num_speculative_tokens": 3}', "eagle",
     "yuhuili/EAGLE-LLaMA3-Instruct-8B"),
    ('{"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 5}', "draft_model",
     "meta-llama/Llama-3.2-1B-Instruct"),
    ('{"model": "[ngram]", "num_speculative_tokens": 5}', "ngram", None),
    ('{"method": "mtp", "model": "google/gemma-4-31B-it-assistant"}', "mtp", "google/gemma-4-31B-it-assistant"),
    ('{"method": "mtp", "num_speculative_tokens": 1}', "mtp", None),
    ('{"num_speculative_tokens": 1}', None, None),
])
def test_the_method_is_inferred_from_the_drafter_as_vllm_does(config, method, drafter):
    """``SpeculativeConfig.__post_init__`` (vllm/config/speculative.py, 0.29.0): no method means ngram for the model
    "ngram", else draft_model, renamed eagle / eagle3 by the drafter's name."""
    from shardwise.rules.vllm.support import speculative_method, speculative_model

    assert (speculative_method(config), speculative_model(config)) == (method, drafter)


LEGACY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: l70, namespace: serving}
spec:
  selector: {matchLabels: {app: l70}}
  template:
    metadata: {labels: {app: l70}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.6.post1
          args: ["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4", "--speculative-model",
                 "meta-llama/Llama-3.1-8B-Instruct", "--num-speculative-tokens", "5"]
          resources:
            limits: {nvidia.com/gpu: 4}
"""


def test_the_flags_before_speculative_config_are_read(tmp_path):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "l70.yaml"
    path.write_text(LEGACY)
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.speculative_method, s.speculative_model, s.speculative_tokens) == (
        "draft_model", "meta-llama/Llama-3.1-8B-Instruct", 5)


def test_a_drafter_the_catalog_lacks_is_read_from_its_config_json(tmp_path):
    """An EAGLE-3 head in the run's model directories (``--model-dir``): its config.json gives its weights and its one
    layer of the target's KV shape. The config below is Llama-3.1-8B's shape with one layer, a tied 128,256 × 4,096
    embedding (vLLM shares the target's with it: 'Sharing target model embedding weights'), as derive_params reads
    it: embedding 525,336,576, the layer's attention 4,096 × (4,096 + 2 × 1,024 + 4,096) = 41,943,040 and MLP
    3 × 4,096 × 14,336 = 176,160,768, and two 4,096 norms."""
    import json

    from shardwise.rules.catalog.resolve import configure, sources

    head = tmp_path / "acme" / "llama-eagle3-head"
    head.mkdir(parents=True)
    (head / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 1, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 128256, "tie_word_embeddings": True, "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"}))
    before = sources()
    configure(model_dirs=[str(tmp_path)])
    try:
        plain = _sized("meta-llama/Llama-3.1-8B-Instruct", "H100", "0.11.0")
        spec = _sized("meta-llama/Llama-3.1-8B-Instruct", "H100", "0.11.0", speculative_method="eagle3",
                      speculative_tokens=3, speculative_model="acme/llama-eagle3-head")
    finally:
        configure(before.model_dirs, before.hf_cache, before.repo_root)
    [note] = [n for n in spec.notes if "acme/llama-eagle3-head" in n]
    assert "from its config.json" in note and not note.startswith("cannot decide")
    added = (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB
    assert added == pytest.approx(2 * (525_336_576 + 41_943_040 + 176_160_768 + 2 * 4_096 + 4_096), abs=1.0)
    assert spec.kv_bytes_per_token_per_gpu == plain.kv_bytes_per_token_per_gpu * 33 // 32  # 32 + 1 layers
    assert spec.error_band_gib == plain.error_band_gib


def test_a_draft_tp_of_one_puts_the_whole_drafter_on_each_gpu():
    """``"draft_tensor_parallel_size": 1`` (vLLM takes 1 or the target's TP): Llama-3.1-8B as the draft model of
    Llama-3.1-70B at TP4 weighs 8,030,261,248 × 2 bytes on each GPU instead of a quarter of it."""
    from shardwise.rules.vllm.support import speculative_draft_tp

    config = '{"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 5, "draft_tensor_parallel_size": 1}'
    assert speculative_draft_tp(config) == 1
    plain = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4)
    spec = _sized("meta-llama/Llama-3.1-70B-Instruct", "H100", "0.11.0", tp=4, speculative_method="draft_model",
                  speculative_model="meta-llama/Llama-3.1-8B-Instruct", speculative_tokens=5, speculative_draft_tp=1)
    assert (spec.weights_gib_per_gpu - plain.weights_gib_per_gpu) * GIB == pytest.approx(8_030_261_248 * 2, abs=1.0)
