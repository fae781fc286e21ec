"""``rope_parameters``: the RoPE scaling of a transformers-5 config.json (issue 28, catalog17).

transformers 5 writes ``rope_theta`` and ``rope_scaling`` as one ``rope_parameters`` dict (Ministral 3's, Mistral Small
4's and Devstral 2's config.json nest it in ``text_config``; Gemma's is keyed by layer type). vLLM derives the context
limit from it from 0.12.0 (``_get_and_verify_max_len``, ``vllm/config/model.py``: ``getattr(hf_config,
"rope_parameters")`` in the 0.12.0, 0.13.0, 0.14.1, 0.18.0 and 0.29.0 wheels, ``iter_rope_parameters`` in 0.34.0);
0.11.0 - 0.11.2 read ``rope_scaling`` alone. shardwise kept neither the key of a config.json nor the override: a
YaRN ``rope_parameters`` left Qwen3-32B at its 40,960 tokens where vLLM 0.12 - 0.29 derives 131,072.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shardwise.rules.app.plan import PlanError, PlanRequest, make_plan
from shardwise.rules.capacity.weights import derived_max_model_len, rope_parameter_sets
from shardwise.rules.catalog import find_model_exact
from shardwise.rules.catalog.hfconfig import hf_overrides_of, load_local_model, with_hf_overrides
from shardwise.rules.vllm.versions import behaviour

YARN4 = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768, "rope_theta": 1000000.0}
DATA = Path(__file__).with_name("data") / "hf_overrides"


def _limit(model, release: str) -> int:
    b = behaviour(release)
    return derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters)


def test_which_releases_read_rope_parameters():
    assert [behaviour(r).reads_rope_parameters for r in ("0.11.0", "0.11.2", "0.12.0", "0.29.0", "0.34.0")] == [
        False, False, True, True, True]


def test_a_yarn_rope_parameters_override_scales_the_limit_as_rope_scaling_does():
    model = find_model_exact("Qwen/Qwen3-32B")
    assert model.max_position_embeddings == 40_960
    v5 = with_hf_overrides(model, hf_overrides_of({"hf_overrides": json.dumps({"rope_parameters": YARN4})}))
    v4 = with_hf_overrides(model, hf_overrides_of({"hf_overrides": json.dumps({"rope_scaling": YARN4})}))
    # 0.12 - 0.29: original_max_position_embeddings x factor, 32,768 x 4; from 0.30 YaRN keeps the 40,960 written
    assert [_limit(v5, r) for r in ("0.11.2", "0.12.0", "0.29.0", "0.30.0", "0.34.0")] == [
        40_960, 131_072, 131_072, 40_960, 40_960]
    assert [_limit(v4, r) for r in ("0.11.2", "0.12.0", "0.29.0", "0.30.0", "0.34.0")] == [
        131_072, 131_072, 131_072, 40_960, 40_960]
    # a linear factor scales max_position_embeddings on every release that reads the key
    linear = with_hf_overrides(model, hf_overrides_of(
        {"hf_overrides": '{"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1000000.0}}'}))
    assert [_limit(linear, r) for r in ("0.11.2", "0.29.0", "0.34.0")] == [40_960, 81_920, 81_920]


def test_the_walk_of_rope_parameters_keyed_by_layer_type():
    # vLLM walks a dict keyed by layer types in order and keeps the last factor of a type it scales by
    nested = {"full_attention": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 16384,
                                 "rope_theta": 1000000.0},
              "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}
    assert rope_parameter_sets({"rope_parameters": nested}) == list(nested.values())
    assert rope_parameter_sets({"rope_parameters": nested}, rope_parameters=False) == []
    # a flat dict is one set; rope_scaling wins where both are written (patch_rope_parameters copies it over a
    # transformers-4 config's rope_parameters)
    assert rope_parameter_sets({"rope_parameters": YARN4}) == [YARN4]
    legacy = {"rope_type": "linear", "factor": 2.0}
    assert rope_parameter_sets({"rope_scaling": legacy, "rope_parameters": YARN4}) == [legacy]
    assert rope_parameter_sets({"rope_scaling": None, "rope_parameters": {}}) == []
    model = find_model_exact("Qwen/Qwen3-32B")
    gemma_like = with_hf_overrides(model, {"rope_parameters": nested, "max_position_embeddings": 32768})
    assert [_limit(gemma_like, r) for r in ("0.11.2", "0.29.0", "0.34.0")] == [32_768, 131_072, 32_768]


def _v5_config(tmp_path: Path) -> Path:
    """Qwen3-32B's text shape (the catalog record's, from its config.json) written the way transformers 5 saves a
    YaRN-extended config: ``rope_parameters`` in place of ``rope_theta`` and ``rope_scaling``."""
    m = find_model_exact("Qwen/Qwen3-32B")
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": m.hidden_size,
           "num_hidden_layers": m.num_hidden_layers, "num_attention_heads": m.num_attention_heads,
           "num_key_value_heads": m.num_key_value_heads, "head_dim": m.head_dim,
           "intermediate_size": m.intermediate_size, "vocab_size": m.vocab_size, "max_position_embeddings": 40960,
           "tie_word_embeddings": False, "dtype": "bfloat16", "rope_parameters": YARN4}
    d = tmp_path / "qwen3-32b-v5"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    return d


def test_a_local_transformers_5_config_keeps_its_rope_parameters(tmp_path):
    model = load_local_model(_v5_config(tmp_path))
    assert model.hf_config["rope_parameters"] == YARN4
    assert [_limit(model, r) for r in ("0.11.2", "0.29.0", "0.30.0")] == [40_960, 131_072, 40_960]


def test_plan_and_lint_take_the_limit_of_the_release(tmp_path):
    engine = {"hf-overrides": json.dumps({"rope_parameters": YARN4})}
    plan = make_plan(PlanRequest(model="Qwen/Qwen3-32B", gpu="H200", vllm_version="0.29.0", tp=1,
                                 max_model_len=131072, engine_args=engine))
    assert plan is not None
    with pytest.raises(PlanError, match="--max-model-len 131,072 is above the model's limit"):
        make_plan(PlanRequest(model="Qwen/Qwen3-32B", gpu="H200", vllm_version="0.11.2", tp=1, max_model_len=131072,
                              engine_args=engine))
    from shardwise.rules.app.run import LintOptions, lint_report

    text = (DATA / "qwen3-32b-yarn.yaml").read_text()
    v5 = text.replace('"rope_scaling":', '"rope_parameters":').replace(',"max_position_embeddings":131072}', "}")
    assert v5 != text and "rope_parameters" in v5
    path = tmp_path / "rope.yaml"
    for image, refused in (("v0.11.2", True), ("v0.29.0", False), ("v0.30.0", True)):
        path.write_text(v5.replace("v0.23.0", image))
        report = lint_report([str(path)], LintOptions(jobs=1))
        found = [(f.code, f.level) for f in report.findings if "above the 40,960 tokens" in f.message]
        assert found == ([("SW102", "mandatory")] if refused else []), image
