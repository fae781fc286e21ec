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
from shardwise.rules.engine.runner import DECIDED_BY_COMMAND, DECIDED_BY_CONFIGMAP, DECIDED_BY_VARIABLE

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
    # 65,536 where the YaRN dict counts, which vLLM refuses from 0.24 (transformers 5); 0.12 - 0.19 (transformers 4)
    # set it after the RoPE parameters are read and take the max_position_embeddings of 131,072; 0.20 - 0.23 take
    # either transformers, so there it is undecided (hfover19))
    text = configmap.read_text() + (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: qwen3-32b-overrides\ndata:\n"
        f"  hf-overrides: '{YARN}'\n")
    given = tmp_path / "given.yaml"
    given.write_text(text)
    assert _capacity(given) == []
    half = text.replace('"factor":4.0', '"factor":2.0')
    given.write_text(half)
    assert [(c, lv, m.startswith("cannot decide: ")) for c, lv, _, m in _capacity(given)
            if "65,536 or 131,072 tokens" in m] == [("SW102", "advisory", True)]
    given.write_text(half.replace("v0.23.0", "v0.24.0"))
    assert [(c, lv) for c, lv, _, m in _capacity(given) if "above the 65,536 tokens" in m] == [("SW102", "mandatory")]
    given.write_text(half.replace("v0.23.0", "v0.19.0"))
    assert _capacity(given) == []


def test_an_unread_override_leaves_even_a_short_length_undecided(tmp_path):
    """--max-model-len 32768 with the override unread: review16 judged it (within Qwen3-32B's own 40,960), but the
    override may lower the limit below it (``{"max_position_embeddings": 16384}``) or change what a token of KV cache
    costs (``{"num_key_value_heads": 16}``), so a pass was not sure either (hfover19): undecided, as with the length
    above the limit; the same manifest without the flag is judged."""
    text = (DATA / "qwen3-32b-yarn-configmap.yaml").read_text().replace("- '131072'", "- '32768'")
    assert "- '32768'" in text
    path = tmp_path / "short.yaml"
    path.write_text(text)
    assert _capacity(path) == _undecided(
        32, "write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed output)")
    path.write_text(text.replace("            - --hf-overrides\n            - $(HF_OVERRIDES)\n", ""))
    assert _capacity(path) == []


def test_an_override_read_from_a_file_or_variable_in_a_script_is_undecided():
    """`sh -c` scripts that read the override at start-up (`"$(cat FILE)"`, `$(cat FILE)`, `` `cat FILE` ``,
    `"$VAR"`, `"${VAR}"`, Kubernetes' `$(VAR)`), on 0.18.0 with --max-model-len 131072 and with none: never a pass,
    never a block, one "cannot decide" naming hf_overrides at the script's line."""
    import tempfile

    text = (DATA / "qwen3-32b-yarn-shell.yaml").read_text().replace("v0.20.0", "v0.18.0")
    written = ROPE_ONLY.join("''")
    assert written in text
    for value in ('"$(cat /etc/vllm/hf-overrides.json)"', "$(cat /etc/vllm/hf-overrides.json)",
                  '"`cat /etc/vllm/hf-overrides.json`"', '"$HF_OVERRIDES"', '"${HF_OVERRIDES}"', "$(HF_OVERRIDES)"):
        for length in ("--max-model-len 131072", "--max-model-len 32768", ""):
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "script.yaml"
                path.write_text(text.replace(written, value).replace("--max-model-len 131072", length))
                found = _capacity(path)
            assert [(c, lv, line, m.startswith("cannot decide: hf_overrides is not known")) for c, lv, line, m in found
                    ] == [("SW101", "advisory", 27, True)], (value, length)
            # what would decide it (tpu19): a command the shell runs is no ConfigMap's (hfover19 noticed that word)
            tail = (DECIDED_BY_COMMAND if "cat " in value else DECIDED_BY_VARIABLE if value.startswith('"$')
                    else DECIDED_BY_CONFIGMAP)
            assert found[0][3].endswith(f": {tail}"), (value, found[0][3])


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


ROPE_ONLY = '{"rope_scaling":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}}'


def _rope_limits(overrides: str) -> dict[str, tuple[int, ...]]:
    from shardwise.rules.capacity.sizing import possible_limits
    from shardwise.rules.vllm.versions import resolve

    model = with_hf_overrides(find_model_exact("Qwen/Qwen3-32B"), hf_overrides_of({"hf_overrides": overrides}))
    releases = ("0.11.2", "0.12.0", "0.19.1", "0.20.0", "0.23.1", "0.24.0", "0.29.0", "0.30.0")
    return {**{v: possible_limits(model, resolve(v)) for v in releases}, "?": possible_limits(model, resolve())}


def test_a_rope_scaling_override_reaches_the_limit_by_release():
    """vLLM 0.11.1 on sets a dict-valued override after ``get_config`` has run ``patch_rope_parameters``
    (``ModelConfig._apply_dict_overrides``): 0.12 - 0.19 pin transformers < 5, whose patch has copied the checkpoint's
    rope_scaling into the rope_parameters the limit reads, so the override's YaRN x4 is lost (40,960); 0.20 - 0.23
    allow transformers 4 or 5 (both); 0.24 on require 5, whose rope_scaling setter sets rope_parameters (131,072 up to
    0.29, 40,960 from 0.30, which leaves YaRN unscaled); 0.11.x read rope_scaling itself. Before (hfover19): 131,072
    on 0.12 - 0.29."""
    assert _rope_limits(ROPE_ONLY) == {
        "0.11.2": (131_072,), "0.12.0": (40_960,), "0.19.1": (40_960,), "0.20.0": (40_960, 131_072),
        "0.23.1": (40_960, 131_072), "0.24.0": (131_072,), "0.29.0": (131_072,), "0.30.0": (40_960,),
        "?": (40_960, 131_072)}
    # the same dict as rope_parameters is set after the patch on every release that reads it; 0.11.x do not
    as_parameters = ROPE_ONLY.replace("rope_scaling", "rope_parameters")
    assert _rope_limits(as_parameters) == {
        "0.11.2": (40_960,), "0.12.0": (131_072,), "0.19.1": (131_072,), "0.20.0": (131_072,),
        "0.23.1": (131_072,), "0.24.0": (131_072,), "0.29.0": (131_072,), "0.30.0": (40_960,), "?": (40_960, 131_072)}
    # in text_config: merged into the checkpoint's rope_scaling dict (the object rope_parameters holds) where it has
    # one; Qwen3-32B's config.json has none, so transformers 4 loses it there too
    assert _rope_limits('{"text_config":' + ROPE_ONLY + "}") == _rope_limits(ROPE_ONLY)
    # with max_position_embeddings (a flat value, set before the patch) every release takes 131,072: Dynamo's recipe
    assert set(_rope_limits(YARN).values()) == {(131_072,)}
    # the dotted form: vLLM's FlexibleArgumentParser json.loads the value and nests it under the key
    # (utils/argparse_utils.py, 0.14.1; utils/__init__.py, 0.11.0), so it is the same dict override
    from shardwise.rules.capacity.sizing import possible_limits
    from shardwise.rules.vllm.versions import resolve

    dotted = with_hf_overrides(find_model_exact("Qwen/Qwen3-32B"), hf_overrides_of(
        {"hf_overrides.rope_scaling": ROPE_ONLY[len('{"rope_scaling":'):-1]}))
    assert [possible_limits(dotted, resolve(v)) for v in ("0.18.0", "0.24.0")] == [(40_960,), (131_072,)]


def test_lint_judges_a_rope_scaling_override_by_release():
    """The override in the shapes manifests write it: a Deployment's args on 0.18.0 (vLLM refuses 131,072: a
    blocking SW102 that main missed), one `sh -c` script on 0.20.0 (transformers 4 or 5 by the image: undecided) and
    a production-stack HelmRelease's extraArgs with the tag `latest` (the release is not known: undecided)."""
    assert _capacity(DATA / "qwen3-32b-yarn-v018.yaml") == [(
        "SW102", "mandatory", 34,
        "Qwen/Qwen3-32B at TP1×PP1 on H200-141GB (vLLM 0.18.0 from the image tag): max_model_len 131,072 is above the "
        "40,960 tokens Qwen/Qwen3-32B allows (vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1): vLLM 0.18.0 "
        "(transformers 4) sets the rope_scaling of --hf-overrides after patch_rope_parameters has read the "
        "checkpoint's, so the override's 131,072 tokens do not count; write it as rope_parameters, or set "
        "max_position_embeddings with it; vLLM will refuse to start; set --max-model-len 40960 or less")]
    assert _capacity(DATA / "qwen3-32b-yarn-shell.yaml") == [(
        "SW102", "advisory", 27,
        "cannot decide: Qwen/Qwen3-32B at TP1×PP1 on H200-141GB (vLLM 0.20.0 from the image tag): vLLM 0.20.0 takes "
        "transformers 4 or 5 (its requirements allow both) and the limit Qwen/Qwen3-32B takes under its "
        "--hf-overrides rope_scaling depends on it: 40,960 or 131,072 tokens (under transformers 4 "
        "patch_rope_parameters has read the checkpoint's RoPE parameters before the override is set); write the "
        "override as rope_parameters or set max_position_embeddings with it")]
    assert _capacity(DATA / "qwen3-32b-yarn-prodstack.yaml") == [(
        "SW102", "advisory", 43,
        "cannot decide: Qwen/Qwen3-32B at TP1×PP1 on H200-141GB (vLLM 0.34.0, assumed: tag latest names no vLLM "
        "release; declare it with the annotation shardwise.dev/vllm-version): the limit Qwen/Qwen3-32B takes under "
        "its --hf-overrides RoPE dict depends on the release, which is not known: 40,960 or 131,072 tokens by release "
        "(0.12 - 0.19 set a rope_scaling override after they have read the RoPE parameters, 0.30 on leave a YaRN "
        "limit unscaled); pin the image to a release")]


def test_lint_takes_the_override_where_every_release_in_reach_does(tmp_path):
    """Written as rope_parameters, 0.18.0 takes the YaRN x4 (set after the patch): no finding; on 0.24.0 the
    rope_scaling form is read (transformers 5): no finding."""
    text = (DATA / "qwen3-32b-yarn-v018.yaml").read_text()
    path = tmp_path / "p.yaml"
    path.write_text(text.replace('{"rope_scaling":', '{"rope_parameters":'))
    assert _capacity(path) == []
    path.write_text(text.replace("v0.18.0", "v0.24.0"))
    assert _capacity(path) == []


def test_plan_judges_a_rope_scaling_override_by_release():
    req = dict(model="Qwen/Qwen3-32B", gpu="H200", tp=1, gpu_memory_utilization=0.9, max_model_len=131072,
               engine_args={"hf-overrides": ROPE_ONLY})
    with pytest.raises(PlanError, match="--max-model-len 131,072 is above the model's limit: Qwen/Qwen3-32B allows "
                                        "40,960 tokens"):
        make_plan(PlanRequest(**req, vllm_version="0.18.0"))
    plan = make_plan(PlanRequest(**req, vllm_version="0.24.0"))
    assert (plan.shown.sizing.max_model_len, plan.shown.starts) == (131_072, True)
    plan = make_plan(PlanRequest(**req, vllm_version="0.20.0"))
    assert plan.shown.sizing.max_model_len == 131_072
    assert [(f.code, f.level, f.message.startswith("cannot decide: ")) for f in plan.shown.findings
            if "40,960 or 131,072 tokens" in f.message] == [("SW102", "advisory", True)]
