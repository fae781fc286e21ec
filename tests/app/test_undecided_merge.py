"""One "cannot decide" finding per workload, unknown and level (DESIGN "Unknown, and what is not"), blocking
ones included (decide45): what each report says, and that suppression, enforcement, baselines and the exit
status still work rule by rule. A workload whose vLLM command exits at start-up as written (SW003) has no
unknown: its capacity and topology rules are held back by that error, once, advisory.

The manifests are a Deployment in the shape teams write them: ``--tensor-parallel-size $(TP)`` with ``TP``
from a ConfigMap (an unknown: the ConfigMap is not in the inputs), or with ``TP`` defined nowhere (Kubernetes
passes ``$(TP)`` as written and vLLM exits).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shardwise.rules.app.cli import main

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: serving
spec:
  replicas: 2
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "$(TP)", "--max-model-len", "8192"]
%s        resources:
          limits:
            nvidia.com/gpu: 2
"""
FROM_CONFIGMAP = """\
        env:
        - name: TP
          valueFrom: {configMapKeyRef: {name: serving-config, key: tp}}
"""
NAMESPACE = ("d.yaml:1: SW305 [advisory] namespace `serving` (Deployment serving/llm) has no default-deny ingress "
             "policy (no network policy at all); every pod in the cluster can reach vLLM without the gateway "
             "(Namespace serving)")
UNKNOWN = "cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)"
#: what decides a `$(TP)` from a ConfigMap that is not in the inputs (engine.what_decides)
LITERALLY = ("add the ConfigMap its variable is read from to the inputs, or set the variable or the value literally (a "
             "Secret's value is never read)")
BLOCKING = f"{UNKNOWN}; this holds back SW101, SW102, SW104, SW201, SW202, SW203, SW204, which block until the " \
           f"value is known: {LITERALLY}"
ADVISORY = f"{UNKNOWN}; this holds back SW106, SW208, SW401, which are checked once the value is known: {LITERALLY}"
SUBJECT = "(Deployment serving/llm)"


def lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], config: str,
         *argv: str, env: str = FROM_CONFIGMAP) -> tuple[int, str]:
    (tmp_path / ".git").mkdir(exist_ok=True)  # the repository root: baseline paths are relative to it
    (tmp_path / "d.yaml").write_text(DEPLOYMENT % env, encoding="utf-8")
    (tmp_path / "shardwise.toml").write_text(config, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc = main(["lint", "d.yaml", *argv])
    out, err = capsys.readouterr()
    if "--format" in argv:  # the report on stdout, the summary on stderr
        assert err.startswith("shardwise: 1 file read, 1 workload, ") and err.count("\n") == 1, err
    else:
        assert err == ""
    return rc, out


def test_unknown_fail_gives_one_blocking_finding_per_unknown_naming_the_rules(tmp_path, monkeypatch, capsys):
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n')
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE,
        f"d.yaml:19: SW101 [mandatory] {BLOCKING} {SUBJECT}",
        f"d.yaml:19: SW106 [advisory] {ADVISORY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 2 advisory findings, 0 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


def test_unset_the_capacity_rules_stay_advisory_and_merge_as_before(tmp_path, monkeypatch, capsys):
    rc, out = lint(tmp_path, monkeypatch, capsys, "")
    every = ("SW101, SW102, SW104, SW106, SW201, SW202, SW203, SW204, SW208, SW401, which are checked once the value "
             "is known")
    assert (rc, out.splitlines()) == (0, [
        NAMESPACE,
        f"d.yaml:19: SW101 [advisory] {UNKNOWN}; this holds back {every}: {LITERALLY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 2 advisory findings, 0 suppressed — passed",
    ])


def test_suppressing_one_rule_takes_it_out_of_the_list_and_hides_no_other(tmp_path, monkeypatch, capsys):
    config = 'unknown = "fail"\n[[suppress]]\ncode = "SW101"\nreason = "sized by hand"\n'
    rc, out = lint(tmp_path, monkeypatch, capsys, config)
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE,
        f"d.yaml:19: SW101 [mandatory] {UNKNOWN}: {LITERALLY} {SUBJECT} (suppressed: sized by hand)",
        f"d.yaml:19: SW102 [mandatory] {BLOCKING.replace('SW101, ', '')} {SUBJECT}",
        f"d.yaml:19: SW106 [advisory] {ADVISORY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 2 advisory findings, 1 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


def test_a_rule_set_advisory_joins_the_advisory_finding(tmp_path, monkeypatch, capsys):
    config = 'unknown = "fail"\n[enforcement]\nSW104 = "advisory"\n'
    rc, out = lint(tmp_path, monkeypatch, capsys, config)
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE,
        f"d.yaml:19: SW101 [mandatory] {BLOCKING.replace('SW104, ', '')} {SUBJECT}",
        f"d.yaml:19: SW104 [advisory] {ADVISORY.replace('SW106,', 'SW104, SW106,')} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 2 advisory findings, 0 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


def test_every_blocking_rule_set_advisory_passes(tmp_path, monkeypatch, capsys):
    codes = ("SW101", "SW102", "SW104", "SW201", "SW202", "SW203", "SW204")
    config = 'unknown = "fail"\n[enforcement]\n' + "".join(f'{c} = "advisory"\n' for c in codes)
    rc, out = lint(tmp_path, monkeypatch, capsys, config)
    assert rc == 0 and out.splitlines()[-1] == ("shardwise: 1 file read, 1 workload, 0 mandatory findings, 2 advisory "
                                                "findings, 0 suppressed — passed")


def test_json_carries_every_code_of_a_merged_finding(tmp_path, monkeypatch, capsys):
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    assert [(f["code"], f["codes"], f["level"], f["line"], f["message"]) for f in doc["findings"]] == [
        ("SW305", ["SW305"], "advisory", 1, "SW305: namespace `serving` (Deployment serving/llm) has no default-deny "
         "ingress policy (no network policy at all); every pod in the cluster can reach vLLM without the gateway"),
        ("SW101", ["SW101", "SW102", "SW104", "SW201", "SW202", "SW203", "SW204"], "mandatory", 19,
         f"SW101: {BLOCKING}"),
        ("SW106", ["SW106", "SW208", "SW401"], "advisory", 19, f"SW106: {ADVISORY}"),
    ]
    assert (doc["summary"]["findings"], doc["summary"]["blocking"]) == ({"mandatory": 1, "advisory": 2}, 1)


def test_sarif_gives_one_result_per_rule_of_a_merged_finding(tmp_path, monkeypatch, capsys):
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    blocking = ["SW101", "SW102", "SW104", "SW201", "SW202", "SW203", "SW204"]
    assert rc == 1
    assert [(r["ruleId"], r["level"], r["message"]["text"], r["properties"].get("codes"),
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        ("SW305", "warning", NAMESPACE.split(' [advisory] ')[1], None, 1),
        *((c, "error", f"{BLOCKING} {SUBJECT}", blocking, 19) for c in blocking),  # the code is the ruleId alone
        *((c, "warning", f"{ADVISORY} {SUBJECT}", ["SW106", "SW208", "SW401"], 19)
          for c in ("SW106", "SW208", "SW401")),
    ]


def test_a_baseline_holds_each_rule_and_one_rule_left_out_is_new_alone(tmp_path, monkeypatch, capsys):
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', "--create-baseline", "b.json")
    entries = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["findings"]
    assert rc == 0 and [(e["code"], e["field"]) for e in entries] == [
        ("SW101", "tensor_parallel_size"), ("SW102", "tensor_parallel_size"), ("SW104", "tensor_parallel_size"),
        ("SW106", "tensor_parallel_size"), ("SW201", "tensor_parallel_size"), ("SW202", "tensor_parallel_size"),
        ("SW203", "tensor_parallel_size"), ("SW204", "tensor_parallel_size"), ("SW208", "tensor_parallel_size"),
        ("SW305", ""), ("SW401", "tensor_parallel_size"),
    ]
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', "--baseline", "b.json")
    assert (rc, out) == (0, "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, "
                            "0 suppressed; 3 findings in the baseline — passed\n")
    doc = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    doc["findings"] = [e for e in doc["findings"] if e["code"] not in ("SW104", "SW202")]
    (tmp_path / "b.json").write_text(json.dumps(doc), encoding="utf-8")
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', "--baseline", "b.json")
    assert (rc, out.splitlines()) == (1, [
        f"d.yaml:19: SW104 [mandatory] {UNKNOWN}; this holds back SW104, SW202, which block until the value is known: "
        f"{LITERALLY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 0 advisory findings, 0 suppressed; 3 findings in "
        "the baseline — failed: 1 blocking finding at or above mandatory",
    ])


SW003 = ("d.yaml:19: SW003 [mandatory] container 'vllm': --tensor-parallel-size refers to $(TP), which the "
         "container's env does not define: Kubernetes leaves an undefined $(VAR) as written, so vLLM receives it as "
         "written ('$(TP)') and cannot read it as a value of the flag, and exits at start-up (Deployment serving/llm)")
HELD_BACK = ("d.yaml:19: SW101 [advisory] held back by the SW003 error: vLLM exits at start-up as written, so SW101, "
             "SW102, SW104, SW106, SW201, SW202, SW203, SW204, SW208, SW401 are checked once the command starts: fix "
             f"the SW003 finding {SUBJECT}")


@pytest.mark.parametrize("config", ['unknown = "fail"\n', ""], ids=["fail", "unset"])
def test_an_undefined_variable_is_no_unknown_the_crash_holds_the_rules_back(tmp_path, monkeypatch, capsys, config):
    rc, out = lint(tmp_path, monkeypatch, capsys, config, env="")
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE, SW003, HELD_BACK,
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 2 advisory findings, 0 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


def test_the_crash_set_advisory_leaves_the_unknowns_as_they_were(tmp_path, monkeypatch, capsys):
    """Held back only by a crash that blocks: otherwise the exit status would move."""
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n[enforcement]\nSW003 = "advisory"\n', env="")
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE, SW003.replace("[mandatory]", "[advisory]"),
        f"d.yaml:19: SW101 [mandatory] {BLOCKING} {SUBJECT}",
        f"d.yaml:19: SW106 [advisory] {ADVISORY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 3 advisory findings, 0 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


def test_an_undefined_variable_in_a_kustomize_base_stays_an_unknown(tmp_path, monkeypatch, capsys):
    """A base an overlay may patch: the overlay may define TP, so the value is an unknown, not a crash."""
    (tmp_path / "kustomization.yaml").write_text("resources: [d.yaml]\n", encoding="utf-8")
    rc, out = lint(tmp_path, monkeypatch, capsys, 'unknown = "fail"\n', env="")
    assert (rc, out.splitlines()) == (1, [
        NAMESPACE,
        f"d.yaml:19: SW101 [mandatory] {BLOCKING} {SUBJECT}",
        f"d.yaml:19: SW106 [advisory] {ADVISORY} {SUBJECT}",
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 2 advisory findings, 0 suppressed — failed: "
        "1 blocking finding at or above mandatory",
    ])


# --- what decides it, by the kind of unknown (decide46): one wording per kind, single or merged ------------------

SHELL_WORDING = ("run `envsubst` first if it is a template's placeholder; if the container's shell expands it, add "
                 "the ConfigMap its variable is read from to the inputs, or set the variable or the value literally")
HELM_WORDING = "render the chart first (`helm template`) and lint what it writes, or write the value as a literal"
ANY_WORDING = "write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed output)"
FILL_WORDING = "fill the template's <…> placeholder with the value (or write the value literally) and lint that"
COMMAND_WORDING = ("the container's shell runs a command for it at start-up (`$(…)` or backquotes), which shardwise "
                   "does not run: write the value literally, or set an env variable to it (a literal or a ConfigMap "
                   "of the inputs) and pass the variable instead of the command")


@pytest.mark.parametrize(("line", "expected"), [
    ('        args: ["--tensor-parallel-size", "$(TP)"]', LITERALLY),  # Kubernetes' own reference
    ("          --tensor-parallel-size ${TP} \\", SHELL_WORDING),  # a shell script, or an envsubst template
    ("          --tensor-parallel-size $TP \\", SHELL_WORDING),
    ('        args: ["--tensor-parallel-size", "{{ .Values.tp }}"]', HELM_WORDING),
    ("        args: [--tensor-parallel-size]", ANY_WORDING),  # nothing on the line shows where it comes from
    # tpu19: a command substitution is no ConfigMap's value (hfover19 noticed the ConfigMap hint given for it)
    ('          --hf-overrides "$(cat /etc/vllm/hf.json)" \\', COMMAND_WORDING),
    ("          --max-model-len `cat /etc/vllm/len` \\", COMMAND_WORDING),
    ('          --max-model-len "$(cat $(LEN_FILE))"', LITERALLY),  # a Kubernetes reference on the line: its ConfigMap
    ("          --tensor-parallel-size $(( NODES * 8 ))", LITERALLY),  # arithmetic: no command (wording unchanged)
    # corpus38: a tutorial's <…> placeholder, as a flag's value, a block value, and (review36) a flow mapping's value,
    # which was given ANY_WORDING ("write it literally"): the placeholder before a `}` was not read as one
    ('        args: ["--tensor-parallel-size=<TP_SIZE>"]', FILL_WORDING),
    ('              nvidia.com/gpu: "<gpu-count>"', FILL_WORDING),
    ('            limits: {nvidia.com/gpu: "<gpu-count>"}', FILL_WORDING),
    ("            limits: {nvidia.com/gpu: <gpu-count>}", FILL_WORDING),
    ("        args: [--chat-template, <s>{{ x }}</s>]", HELM_WORDING),  # text around brackets: no placeholder
])
def test_what_decides_a_value_is_read_from_its_line(tmp_path, line, expected):
    from shardwise.rules.engine import what_decides
    from shardwise.rules.model import Location

    path = tmp_path / "d.yaml"
    path.write_text(f"kind: Deployment\n{line}\n", encoding="utf-8")
    assert what_decides(Location(str(path), 2)) == expected
    assert what_decides(Location(str(path), 2, "urn:pulumi:dev::app::kubernetes:apps/v1:Deployment::llm")) == (
        "lint the `pulumi up` state, or write the value as a literal")  # a preview's output, whatever the line


def test_the_line_is_counted_as_the_yaml_reader_counts_it(tmp_path):
    """A form feed or U+2028 in a comment ends no line for the YAML reader; the hint reads the finding's own line."""
    from shardwise.rules.engine import what_decides
    from shardwise.rules.model import Location

    path = tmp_path / "d.yaml"
    path.write_text('# a\x0cb \u2028 c\r\nkind: Deployment\r\n        args: ["--tensor-parallel-size", "$(TP)"]\n',
                    encoding="utf-8")
    assert what_decides(Location(str(path), 3)) == LITERALLY


def test_a_file_with_a_go_template_is_rendered_first_whatever_the_line(tmp_path):
    from shardwise.rules.engine import what_decides
    from shardwise.rules.model import Location

    path = tmp_path / "deployment.yaml"
    path.write_text("replicas: {{ .Values.replicas }}\nargs:\n- --tensor-parallel-size ${TP}\n", encoding="utf-8")
    assert [what_decides(Location(str(path), n)) for n in (2, 3)] == [HELM_WORDING, HELM_WORDING]
    # no file to read (standard input), no line, a line past the end
    assert [what_decides(loc) for loc in (Location("-", 3), Location(str(path)), Location(str(path), 9))] == [
        ANY_WORDING, ANY_WORDING, ANY_WORDING]


def test_a_changed_file_is_read_again(tmp_path):
    from shardwise.rules.engine import what_decides
    from shardwise.rules.model import Location

    path = tmp_path / "d.yaml"
    path.write_text('args: ["$(TP)"]\n', encoding="utf-8")
    assert what_decides(Location(str(path), 1)) == LITERALLY
    path.write_text("args: [${TP}, x]\n", encoding="utf-8")  # same name, another text (and size)
    assert what_decides(Location(str(path), 1)) == SHELL_WORDING


def test_a_single_finding_says_what_decides_it_and_a_reason_that_says_it_itself_is_kept(tmp_path):
    from shardwise.rules.engine import decided_by
    from shardwise.rules.model import Location

    path = tmp_path / "d.yaml"
    path.write_text('args: ["$(TP)"]\n', encoding="utf-8")
    at = Location(str(path), 1)
    unknown = "cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)"
    assert decided_by(unknown, at) == f"{unknown}: {LITERALLY}"
    assert decided_by(f"{unknown}: {LITERALLY}", at) == f"{unknown}: {LITERALLY}"  # said once
    secret = ("cannot decide: VLLM_ALLOW_RUNTIME_LORA_UPDATING of container `vllm` is not known (it comes from a "
              "Secret, a ConfigMap or the downward API; whether runtime LoRA loading is on decides whether the API "
              "needs a key)")
    assert decided_by(secret, at) == f"{secret}: {ANY_WORDING}"  # a Secret's value: no file or state holds it
    said = ("cannot decide: the device count of container `app` is not known (they come from the resource claim "
            "`x` (dynamic resource allocation), and ResourceClaimTemplate `x` is not in the inputs; lint it "
            "together with the workload)")
    catalog = ("cannot decide: what huawei.com/ascend-1980 holds is not known (an extended resource of an "
               "accelerator family the vendor table has no record of: add one to rules/catalog/data/accelerators.json)")
    assert [decided_by(m, at) for m in (said, catalog, "held back by the SW003 error")] == [
        said, catalog, "held back by the SW003 error"]
