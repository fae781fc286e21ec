"""``--hf-overrides``: the config keys vLLM derives the context limit from (issue 28, plancases15).

vLLM applies ``--hf-overrides`` to the checkpoint's config before it derives ``max_model_len``
(``ModelConfig.__post_init__`` then ``get_and_verify_max_len``, ``vllm/config/model.py``): NVIDIA Dynamo's Qwen3-32B
recipes run ``--hf-overrides`` with a YaRN ``rope_scaling`` (factor 4 over 32,768 positions) and ``--max-model-len
131072``, which vLLM accepts. Lint read the model's own 40,960 and gave a blocking SW102 ("vLLM will refuse to
start"); plan refused the flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from shardwise.rules.app.plan import PlanError, PlanRequest, make_plan
from shardwise.rules.capacity.weights import derived_max_model_len
from shardwise.rules.catalog import find_model_exact
from shardwise.rules.catalog.hfconfig import hf_overrides_of, with_hf_overrides

YARN = ('{"rope_scaling":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768},'
        '"max_position_embeddings":131072}')
DATA = Path(__file__).with_name("data") / "hf_overrides"


def _limit(extra: dict[str, object]) -> int:
    model = find_model_exact("Qwen/Qwen3-32B")
    return derived_max_model_len(with_hf_overrides(model, hf_overrides_of(extra)))


def test_the_overrides_change_the_limit_vllm_derives():
    assert _limit({}) == 40_960
    assert _limit({"hf_overrides": YARN}) == 131_072  # 32,768 x 4
    # the YaRN scaling alone: vLLM scales original_max_position_embeddings, whatever max_position_embeddings says
    assert _limit({"hf_overrides": '{"rope_scaling":{"rope_type":"yarn","factor":2.0,'
                                   '"original_max_position_embeddings":32768}}'}) == 65_536
    assert _limit({"hf_overrides.max_position_embeddings": "65536"}) == 65_536  # the dotted form
    assert _limit({"rope_scaling": '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'}) \
        == 131_072  # --rope-scaling, before 0.11.1
    assert _limit({"hf_overrides": '{"text_config":{"max_position_embeddings":81920}}'}) == 81_920


def test_what_overrides_nothing_the_capacity_model_reads_leaves_the_model():
    model = find_model_exact("Qwen/Qwen3-32B")
    for extra in ({"hf_overrides": "$(OVERRIDES)"}, {"hf_overrides": '{"rope_theta": 1000000}'},
                  {"hf_overrides": '{"max_position_embeddings": "long"}'}, {"hf_overrides": "[1, 2]"}):
        assert with_hf_overrides(model, hf_overrides_of(extra)) is model, extra


def test_lint_takes_the_override_as_vllm_does(tmp_path):
    """Dynamo's flags on one H200: no SW102 (the length is the overridden config's); the same manifest without the
    override is refused, as vLLM refuses it."""
    from shardwise.rules.app.run import LintOptions, lint_report

    path = DATA / "qwen3-32b-yarn.yaml"
    report = lint_report([str(path)], LintOptions(jobs=1))
    assert [(f.code, f.level) for f in report.findings if f.code.startswith("SW1")] == []
    without = path.read_text().replace("            - --hf-overrides\n", "").replace(f"            - '{YARN}'\n", "")
    assert "- --hf-overrides" not in without and "- --max-model-len" in without
    other = tmp_path / "without.yaml"
    other.write_text(without)
    report = lint_report([str(other)], LintOptions(jobs=1))
    assert [(f.code, f.level) for f in report.findings if f.code.startswith("SW1")] == [("SW102", "mandatory")]


def test_plan_takes_the_override_as_an_engine_argument():
    req = dict(model="Qwen/Qwen3-32B", gpu="H200", vllm_version="0.23.0", tp=1, gpu_memory_utilization=0.9,
               max_model_len=131072)
    plan = make_plan(PlanRequest(**req, engine_args={"hf-overrides": YARN}))
    assert plan.shown.sizing.max_model_len == 131_072
    assert plan.shown.starts is True
    assert [f.code for f in plan.shown.findings if f.level == "mandatory"] == []
    with pytest.raises(PlanError, match="--max-model-len 131,072 is above the model's limit"):
        make_plan(PlanRequest(**req))
