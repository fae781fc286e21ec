"""DeepSeek-V4 is recognised and not sized: undecided with what is not modelled, never sized as a guess (issue 28, dsv4).

catalog13 modelled V4's KV groups and weights as vLLM 0.20.0 builds them but not its start-up terms, read no later
release's V4 layout and found no V4-Pro config.json. Before this round a V4-Flash config.json given by path was sized
from its shapes as if its layers were full attention and its parameters derived (69.0 GiB of weights a GPU at TP4,
where vLLM 0.20.0 builds 37.24 GiB) and SW102 blocked it ("vLLM will refuse to start"); by name, V4-Pro's SW004 said
"did you mean: deepseek-ai/DeepSeek-V3". The config below is V4-Flash's as tests/vllm/test_dsv4_weights.py restates it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.plan import PlanError, load_model
from shardwise.rules.catalog import unsized
from shardwise.rules.vllm.versions import parse_version

FLASH_CONFIG = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
    "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "qk_rope_head_dim": 64, "q_lora_rank": 1024,
    "o_lora_rank": 1024, "o_groups": 8, "vocab_size": 129_280, "n_routed_experts": 256, "moe_intermediate_size": 2048,
    "num_experts_per_tok": 6, "n_shared_experts": 1, "hc_mult": 4, "index_n_heads": 64, "index_head_dim": 128,
    "num_hash_layers": 3, "topk_method": "noaux_tc", "tie_word_embeddings": False, "num_hidden_layers": 43,
    "sliding_window": 128, "max_position_embeddings": 1_048_576, "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128], "fmt": "e4m3",
                            "activation_scheme": "dynamic", "scale_fmt": "ue8m0"},
    "compress_ratios": [0, 0, *[4, 128] * 20, 4, 0],
}

FAMILY = ("is DeepSeek-V4 (compressed sparse attention over a sliding window, per-layer compress_ratios), which "
          "shardwise does not size yet")
STARTUP = ("its KV groups, weights and start-up buffers are modelled but the sizing does not use them yet: the profile "
           "run's activation peak (four hyper-connection streams, the sparse indexer) is not modelled and no public "
           "0.20.0 start-up log checks the sum")
AT_0_20 = f"for vLLM 0.20.0 from the image tag, {STARTUP}"
#: catalog18: was "its config.json was not found in a source shardwise can cite", which catalog17 found in NVIDIA's
#: aiconfigurator (the published text: DeepseekV4ForCausalLM, transformers 4.57.1, per-layer compress_ratios)
PRO = ("'deepseek-ai/DeepSeek-V4-Pro' is DeepSeek-V4-Pro, whose config.json (ai-dynamo/aiconfigurator 095f58a5, "
       "aic-core/src/aiconfigurator_core/model_configs/deepseek-ai--DeepSeek-V4-Pro_config.json: 61 layers, width "
       "7,168, 128 heads, 384 experts, 62 compress_ratios) is not in the catalog; and it is DeepSeek-V4 (compressed "
       "sparse attention over a sliding window, per-layer compress_ratios), which shardwise does not size yet")
HELD = "SW101, SW102, SW104, SW106, SW203 could not run on it"
#: what SW004 adds for a release whose V4 layout was not read (0.26.0 and later)
NOT_READ = ("its DeepSeek-V4 layout was not read (read: 0.20.0, and 0.20.1 to 0.25.1 compared with it; 0.26.0 "
            "charges a sliding group for the tokens in flight, 0.27.0 overlays the groups in a packed block planner, "
            "0.33.0 plans the cache in v1/core/kv_cache_planning.py)")


def _codes(findings):
    return sorted({f.code for f in findings if f.code.startswith(("SW0", "SW1", "SW2"))})


def _sw004(findings):
    (f,) = [f for f in findings if f.code == "SW004"]
    assert (f.level, f.undecided) == ("advisory", True)
    return f.message


def test_flash_by_name_is_undecided_saying_what_0_20_lacks(tmp_path: Path):
    found = lint(tmp_path, deployment("deepseek-ai/DeepSeek-V4-Flash", 4))
    assert _codes(found) == ["SW004"]
    assert _sw004(found) == (f"shardwise does not know the model: 'deepseek-ai/DeepSeek-V4-Flash' {FAMILY}; {AT_0_20}; "
                             f"{HELD}")


def test_a_flash_config_json_is_not_sized_from_its_shapes(tmp_path: Path):
    # the regression: this config by path was sized (69.0 GiB of weights a GPU at TP4) and SW102 blocked it
    (tmp_path / "v4").mkdir()
    (tmp_path / "v4" / "config.json").write_text(json.dumps(FLASH_CONFIG))
    text = deployment("deepseek-ai/DeepSeek-V4-Flash", 4).replace(
        "  namespace: llm\n", "  namespace: llm\n  annotations:\n    shardwise.dev/base-model: v4/config.json\n")
    found = lint(tmp_path, text)
    assert _codes(found) == ["SW004"]
    assert not [f for f in found if f.level == "mandatory" and f.code.startswith("SW1")]
    assert _sw004(found) == (f"shardwise does not know the model: 'deepseek-ai/DeepSeek-V4-Flash' {FAMILY}; {AT_0_20}; "
                             f"{HELD}")


def test_pro_says_where_its_config_is_not_did_you_mean(tmp_path: Path):
    found = lint(tmp_path, deployment("deepseek-ai/DeepSeek-V4-Pro", 8).replace("v0.20.0", "v0.27.1"))
    message = _sw004(found)
    assert "did you mean" not in message
    assert message == f"shardwise does not know the model: {PRO}; for vLLM 0.27.1 from the image tag, {NOT_READ}; {HELD}"


def test_a_release_before_0_20_has_no_deepseek_v4(tmp_path: Path):
    found = lint(tmp_path, deployment("deepseek-ai/DeepSeek-V4-Flash", 4).replace("v0.20.0", "v0.19.1"))
    assert _sw004(found) == (f"shardwise does not know the model: 'deepseek-ai/DeepSeek-V4-Flash' {FAMILY}; vLLM 0.19.1 "
                             "from the image tag builds no DeepSeek-V4 (the architecture came in 0.20.0; 0.19.1's wheel "
                             f"has no models/deepseek_v4.py); {HELD}")


def test_a_path_named_for_v4_is_undecided_with_the_reason(tmp_path: Path):
    found = lint(tmp_path, deployment("/models/DeepSeek-V4-Flash-FP8", 8))
    assert _sw004(found).startswith(f"shardwise does not know the model: '/models/DeepSeek-V4-Flash-FP8' {FAMILY}; ")


@pytest.mark.parametrize(("name", "v4"), [
    ("deepseek-ai/DeepSeek-V4-Flash", True), ("deepseek-ai/DeepSeek-V4-Flash-Base", True),
    ("deepseek-ai/DeepSeek-V4-Pro", True), ("/models/deepseek_v4_pro", True), ("sgl-project/DeepSeek-V4-Flash-FP8", True),
    ("deepseek-ai/DeepSeek-V3", False), ("deepseek-ai/DeepSeek-V3.2-Exp", False), ("acme/deepseek-v40", False),
    # tiny13: a later V4 release is the family (its own reason below); the name that says what the checkpoint is, is
    # the last component or a Hugging Face cache folder's, and it must start with the family: a model that merely
    # mentions V4 (a distilled student) is not V4
    ("deepseek-ai/DeepSeek-V4.1", True), ("deepseek-ai/DeepSeek-V4.1-Flash", True),
    ("/root/.cache/huggingface/hub/models--deepseek-ai--DeepSeek-V4-Flash/snapshots/0123abcd", True),
    ("/models/DeepSeek-V4-Flash/", True), ("/models/DeepSeek-V4-Flash/config.json", True),
    ("acme/Qwen3-8B-distilled-from-DeepSeek-V4", False), ("acme/DeepSeek-V4-Distill-Qwen-7B", False),
    ("/models/llama-3-8b-deepseek-v4-style", False), ("DeepSeek-V4-Flash/../qwen3-8b", False),
    ("/root/.cache/huggingface/hub/models--acme--Qwen3-8B-distilled-from-DeepSeek-V4/snapshots/0123abcd", False),
])
def test_names(name: str, v4: bool):
    assert unsized.is_dsv4_name(name) is v4


LATER = ("'deepseek-ai/DeepSeek-V4.1' is DeepSeek-V4.1, a later DeepSeek-V4 release: the family is known, but its "
         "config.json was not found in a source shardwise can cite, so whether vLLM builds it as DeepSeek-V4 "
         "(DeepseekV4ForCausalLM) is not known, and shardwise does not size it")


def test_v4_1_by_name_says_the_family_is_known_and_its_config_unpublished(tmp_path: Path):
    """Was "did you mean" (dsv4); its architecture in vLLM is not sourced, so no V4 release's note is added."""
    found = lint(tmp_path, deployment("deepseek-ai/DeepSeek-V4.1", 8))
    assert _sw004(found) == f"shardwise does not know the model: {LATER}; {HELD}"
    assert unsized.is_reason(unsized.reason("deepseek-ai/DeepSeek-V4.1")) is False
    with pytest.raises(PlanError) as e:
        load_model("deepseek-ai/DeepSeek-V4.1", None, "0.20.0")
    assert str(e.value) == f"cannot size it: {LATER}"


def test_v4_1_with_a_v4_config_json_is_v4(tmp_path: Path):
    """Where its config.json says DeepseekV4ForCausalLM, the architecture is sourced: V4's reason and release note."""
    folder = tmp_path / "DeepSeek-V4.1"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(FLASH_CONFIG))
    with pytest.raises(PlanError) as e:
        load_model(str(folder / "config.json"), None, "0.20.0")
    assert str(e.value) == f"cannot size it: '{folder / 'config.json'}' {FAMILY}; for vLLM 0.20.0, {STARTUP}"


def test_a_distilled_student_naming_v4_is_not_v4(tmp_path: Path):
    """dsv4 matched V4 anywhere in the name: a student distilled from V4 was given V4's reason."""
    found = lint(tmp_path, deployment("acme/Qwen3-8B-distilled-from-DeepSeek-V4", 1))
    assert _sw004(found) == ("shardwise does not know the model: 'acme/Qwen3-8B-distilled-from-DeepSeek-V4' is not in "
                             f"the catalog; {HELD}")


def test_release_notes():
    note = unsized.release_note
    assert note(parse_version("0.20.0"), "vLLM 0.20.0").startswith("for vLLM 0.20.0, its KV groups, weights and start-up buffers")
    same = ("its DeepSeek-V4 KV groups and start-up check are 0.20.0's (the same functions, for the fp8_ds_mla cache), "
            "with {pool}, but it builds the model otherwise than 0.20.0 (the weights and start-up buffers read there "
            "are not checked against it) and the profile run's activation peak is not modelled")
    # 0.20.1 to 0.22.1: _get_kv_cache_config_deepseek_v4, the grouping and the start-up check are 0.20.0's, byte for byte
    for v in ("0.20.1", "0.20.2", "0.21.0", "0.22.1"):
        assert note(parse_version(v), f"vLLM {v}") == f"for vLLM {v}, " + same.format(pool="0.20.0's pool")
    # 0.23.0 to 0.25.1: the pool is sum(page size x slots) (_bucket_layers_by_page_size)
    for v in ("0.23.0", "0.24.0", "0.25.1"):
        assert note(parse_version(v), f"vLLM {v}") == f"for vLLM {v}, " + same.format(
            pool="a pool divided by each page size times its slots, not 0.20.0's layer tuples")
    # 0.26.0 on: SlidingWindowSpec charges max_in_flight_tokens; later the grouping itself changes
    for v in ("0.26.0", "0.27.1", "0.29.0", "0.34.0"):
        assert note(parse_version(v), f"vLLM {v}") == f"for vLLM {v}, {NOT_READ}"
    # a release with a fourth part is not taken for its three-part release
    assert note(parse_version("0.22.1.1"), "vLLM 0.22.1.1") == f"for vLLM 0.22.1.1, {NOT_READ}"
    assert note(parse_version("0.19.1"), "vLLM 0.19.1").startswith("vLLM 0.19.1 builds no DeepSeek-V4")


def test_plan_refuses_v4_with_the_reason(tmp_path: Path):
    with pytest.raises(PlanError) as e:
        load_model("deepseek-ai/DeepSeek-V4-Flash", None, "0.20.0")
    assert str(e.value) == f"cannot size it: 'deepseek-ai/DeepSeek-V4-Flash' {FAMILY}; for vLLM 0.20.0, {STARTUP}"
    config = tmp_path / "config.json"
    config.write_text(json.dumps(FLASH_CONFIG))
    with pytest.raises(PlanError) as e:
        load_model(str(config), None, "0.27.1")
    assert str(e.value).endswith(f"; for vLLM 0.27.1, {NOT_READ}")
    with pytest.raises(PlanError) as e:
        load_model("deepseek-ai/DeepSeek-V4-Pro", None, "0.20.0")
    assert str(e.value).startswith(f"cannot size it: {PRO}; for vLLM 0.20.0, ")
