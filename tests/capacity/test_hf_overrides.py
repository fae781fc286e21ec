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


def _capacity(path: Path) -> list[tuple[str, str, int | None, str]]:
    from shardwise.rules.app.run import LintOptions, lint_report

    report = lint_report([str(path)], LintOptions(jobs=1))
    return [(f.code, f.level, f.location.line, f.message) for f in report.findings if f.code.startswith("SW1")]


def _undecided(line: int, decides: str) -> list[tuple[str, str, int | None, str]]:
    return [("SW101", "advisory", line,
             "cannot decide: hf_overrides is not known (a computed value or an unresolved reference); this holds back "
             f"SW101, SW102, which are checked once the value is known: {decides}")]


def test_an_override_the_inputs_do_not_give_leaves_the_length_undecided(tmp_path):
    """An override named but not readable (review16): main read it as no override and blocked Dynamo's flags with
    SW102 ("max_model_len 131,072 is above the 40,960 tokens ...; vLLM will refuse to start") where the ConfigMap
    may hold the YaRN scaling; and with --max-model-len unset it sized the checkpoint's 40,960 tokens, silently. The
    limit vLLM derives is the override's: undecided, at the flag's line (``- --hf-overrides``), once for the workload."""
    configmap = DATA / "qwen3-32b-yarn-configmap.yaml"
    assert _capacity(configmap) == _undecided(
        32, "write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed "
                   "output)")
    helm = DATA / "qwen3-32b-yarn-helm.yaml"
    assert _capacity(helm) == _undecided(
        31, "render the chart first (`helm template`) and lint what it writes, or write the value as a literal")
    # the ConfigMap in the inputs: its value is read, and what it says decides (factor 4: 131,072 serve; factor 2:
    # 65,536, which vLLM refuses)
    text = configmap.read_text() + (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: qwen3-32b-overrides\ndata:\n"
        f"  hf-overrides: '{YARN}'\n")
    given = tmp_path / "given.yaml"
    given.write_text(text)
    assert _capacity(given) == []
    given.write_text(text.replace('"factor":4.0', '"factor":2.0'))
    assert [(c, lv) for c, lv, _, m in _capacity(given) if "above the 65,536 tokens" in m] == [("SW102", "mandatory")]


def test_a_length_written_within_the_checkpoints_limit_is_decided(tmp_path):
    """--max-model-len 32768 with the override unread: the length is what is written and within Qwen3-32B's own
    40,960, so the capacity rules judge it (no "cannot decide"), as they do without the flag."""
    text = (DATA / "qwen3-32b-yarn-configmap.yaml").read_text().replace("- '131072'", "- '32768'")
    assert "- '32768'" in text
    path = tmp_path / "short.yaml"
    path.write_text(text)
    assert _capacity(path) == []
    path.write_text(text.replace("            - --hf-overrides\n            - $(HF_OVERRIDES)\n", ""))
    assert _capacity(path) == []


def test_plan_refuses_an_override_it_would_not_apply():
    """``--engine-arg hf-overrides`` with a key the capacity model does not apply is refused as a flag it does not
    read is (review16): plan sized Llama 3.1 8B's 32 layers under ``{"num_hidden_layers": "x"}`` (exit 0), an
    override on which vLLM's model cannot even be built; the hostile sweep's record still expected plan to refuse."""
    req = dict(model="Qwen/Qwen3-32B", gpu="H200", vllm_version="0.23.0", tp=1)
    for given, named in (('{"num_hidden_layers": "x"}', "num_hidden_layers"),
                         ('{"max_position_embeddings": 65536, "rope_theta": 1000000}', "rope_theta"),
                         ('{"text_config": {"max_position_embeddings": 65536, "num_key_value_heads": 4}}',
                          "text_config.num_key_value_heads")):
        with pytest.raises(PlanError) as err:
            make_plan(PlanRequest(**req, engine_args={"hf-overrides": given}))
        assert str(err.value) == (
            "--engine-arg hf-overrides: the capacity model applies only max_position_embeddings, rope_scaling and "
            f"rope_parameters (at the top level or in text_config), not {named}: the plan would size the checkpoint "
            "as it is")
    plan = make_plan(PlanRequest(**req, engine_args={"hf-overrides": '{"text_config": {"max_position_embeddings": '
                                                                     '65536}}'}, max_model_len=65536))
    assert plan.shown.sizing.max_model_len == 65_536


def test_which_unread_overrides_may_set_the_length():
    from shardwise.rules.capacity.group import _unread_override
    from shardwise.rules.model import UNKNOWN

    assert _unread_override({"hf_overrides": "$(HF_OVERRIDES)"}) == "hf_overrides"
    assert _unread_override({"hf_overrides": '{"max_position_embeddings": $(LEN)}'}) == "hf_overrides"
    assert _unread_override({"rope_scaling": "{{ .Values.rope | toJson }}"}) == "rope_scaling"
    assert _unread_override({"hf_overrides.rope_parameters": "${ROPE}"}) == "hf_overrides.rope_parameters"
    assert _unread_override({"hf_overrides.text_config": UNKNOWN}) == "hf_overrides.text_config"
    # a dotted key that cannot reach the length, and overrides written out, leave it decided
    assert _unread_override({"hf_overrides.rope_theta": "$(THETA)", "hf_overrides": YARN}) is None
    assert _unread_override({"max_model_len_note": "$(X)"}) is None


def test_from_030_a_yarn_override_needs_its_max_position_embeddings(tmp_path):
    """vLLM 0.30.0 stopped scaling a YaRN config's limit (vllm#56446; ``_get_and_verify_max_len`` in 0.28.0 and 0.29.0
    resets it to ``original_max_position_embeddings`` × ``factor``, in 0.30.0 - 0.33.0 it keeps
    ``max_position_embeddings``): the YaRN scaling alone leaves Qwen3-32B at 40,960 tokens there, and vLLM refuses
    --max-model-len 131072; Dynamo's override, which sets max_position_embeddings 131,072 too, starts on both."""
    model = find_model_exact("Qwen/Qwen3-32B")
    alone = hf_overrides_of({"hf_overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4.0,'
                                              '"original_max_position_embeddings":32768}}'})
    assert derived_max_model_len(with_hf_overrides(model, alone)) == 131_072
    assert derived_max_model_len(with_hf_overrides(model, alone), yarn_rescales=False) == 40_960
    both = with_hf_overrides(model, hf_overrides_of({"hf_overrides": YARN}))
    assert derived_max_model_len(both, yarn_rescales=False) == derived_max_model_len(both) == 131_072
    text = (DATA / "qwen3-32b-yarn.yaml").read_text()
    only_rope = text.replace(',"max_position_embeddings":131072}', "}")
    assert only_rope != text
    path = tmp_path / "rope.yaml"
    for image, refused in (("v0.29.0", False), ("v0.30.0", True), ("v0.33.0", True)):
        path.write_text(only_rope.replace("v0.23.0", image))
        found = [(c, lv) for c, lv, _, m in _capacity(path) if "above the 40,960 tokens" in m]
        assert found == ([("SW102", "mandatory")] if refused else []), image
        path.write_text(text.replace("v0.23.0", image))
        assert _capacity(path) == [], image
    with pytest.raises(PlanError, match="--max-model-len 131,072 is above the model's limit"):
        make_plan(PlanRequest(model="Qwen/Qwen3-32B", gpu="H200", vllm_version="0.30.0", tp=1, max_model_len=131072,
                              engine_args={"hf-overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4.0,'
                                                           '"original_max_position_embeddings":32768}}'}))
