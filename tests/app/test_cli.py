"""The ``shardwise`` command: lint exit codes and messages, plan numbers, rules/explain, docs."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from repo_paths import FIXTURES, ROOT, SCHEMAS
from shardwise.rules.app.cli import main
from shardwise.rules.catalog import find_gpu, find_instance
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.vllm.versions import CURRENT_RELEASE

SCHEMA = json.loads((SCHEMAS / "sarif-2.1.0-trimmed.json").read_text())
GIB = 2**30


def deployment(name: str, args: str, gpus: int, extra_meta: str = "", replicas: int = 2) -> str:
    """A Deployment in the shape the examples use: a vLLM container on a p5.48xlarge (8 × H100) with
    /dev/shm in memory, and a default-deny NetworkPolicy for its namespace (so only capacity rules fire)."""
    return textwrap.dedent(
        f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {name}
          namespace: serving{extra_meta.replace(chr(10), chr(10) + " " * 8)}
        spec:
          replicas: {replicas}
          selector: {{matchLabels: {{app: {name}}}}}
          template:
            metadata: {{labels: {{app: {name}}}}}
            spec:
              nodeSelector:
                node.kubernetes.io/instance-type: p5.48xlarge
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [{args}]
                  resources:
                    limits: {{nvidia.com/gpu: {gpus}}}
                  volumeMounts:
                    - {{name: shm, mountPath: /dev/shm}}
              volumes:
                - name: shm
                  emptyDir: {{medium: Memory, sizeLimit: 16Gi}}
        ---
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {{name: default-deny-{name}, namespace: serving}}
        spec: {{podSelector: {{}}, policyTypes: [Ingress]}}
        """
    )


# the declared load: 128 sequences over the 2 replicas (64 each), and 64 over 2 (32 each)
LOAD_128 = '\n  annotations: {shardwise.dev/target-concurrency: "128"}'
LOAD_64 = '\n  annotations: {shardwise.dev/target-concurrency: "64"}'
TP2_8B = deployment(
    "llama8b-tp2", 'meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "2", --max-model-len, "8192", '
    '--max-num-seqs, "64"', 2, LOAD_128,
)
TP4_70B = deployment(
    "llama70b-tp4", 'meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4", --max-model-len, "8192", '
    '--max-num-seqs, "32"', 4, LOAD_64,
)
TP1_8B = deployment(
    "llama8b", 'meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --max-num-seqs, "32"', 1,
)

TP2_32B_DEFAULT_BATCH = deployment(
    "qwen32b-tp2", 'Qwen/Qwen2.5-32B-Instruct, --tensor-parallel-size, "2", --max-model-len, "8192"', 2,
)

SW104_TP2 = (
    "SW104 [mandatory] meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on "
    "H100-SXM-80GB, but 2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens (max_model_len) "
    "together: enough for the 64 a replica must hold (128 by annotation "
    "shardwise.dev/target-concurrency over 2 replicas); run them instead: replicas 2 → 4, --tensor-parallel-size "
    "2 → 1, nvidia.com/gpu limit 2 → 1 (vLLM 0.11.0 from the image tag) (Deployment serving/llama8b-tp2)"
)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """An empty working directory (no config file is discovered from the repository)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def write(path: Path, text: str) -> str:
    path.write_text(textwrap.dedent(text))
    return path.name


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def codes(text: str) -> list[tuple[str, str]]:
    """(code, level) of each finding line of the text format."""
    out = []
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) > 2 and parts[1].startswith("SW") and parts[2].startswith("["):
            out.append((parts[1], parts[2].strip("[]")))
    return out


# ------------------------------------------------------------------------------------ lint: exit codes


def test_lint_blocking_finding_exits_1(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, err = run(capsys, "lint", f)
    assert rc == 1
    assert out.splitlines()[0] == f"tp2.yaml:18: {SW104_TP2}"
    assert codes(out) == [("SW104", "mandatory")]  # no SW106: one GPU holds it at the precision served
    assert out.splitlines()[-1] == (
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 0 advisory findings, 0 suppressed — failed: 1 blocking "
        "finding at or above mandatory"
    )
    assert err == ""


def test_lint_clean_exits_0(work, capsys):
    f = write(work / "ok.yaml", TP1_8B)
    rc, out, err = run(capsys, "lint", f)
    assert (rc, codes(out)) == (0, [])
    assert out == (
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, 0 suppressed — passed\n"
    )


def test_fail_on_advisory(work, capsys):
    f = write(work / "tp4.yaml", TP4_70B)
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, codes(out)) == (0, [("SW106", "advisory")])
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "advisory")
    assert rc == 1
    assert out.splitlines()[-1].endswith("— failed: 1 blocking finding at or above advisory")


def test_fail_on_none_reports_without_failing(work, capsys):
    """adopt18: `--fail-on none` was an argparse error, so a report-only phase needed `|| true`, which hid exit 2
    too. Findings never fail the run; every format says the run is report only and what would fail at mandatory."""
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, err = run(capsys, "lint", f)
    assert (rc, codes(out)) == (1, [("SW104", "mandatory")])
    rc, out, err = run(capsys, "lint", f, "--fail-on", "none")
    assert (rc, codes(out), err) == (0, [("SW104", "mandatory")], "")
    assert out.splitlines()[-1] == (
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 0 advisory findings, 0 suppressed — "
        "report only (fail-on none): 1 blocking finding would fail at mandatory")
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "none", "--format", "json")
    summary = json.loads(out)["summary"]
    assert rc == 0
    assert {k: summary[k] for k in ("findings", "blocking", "fail_on", "passed", "input_errors")} == {
        "findings": {"mandatory": 1, "advisory": 0}, "blocking": 1, "fail_on": "none", "passed": True,
        "input_errors": 0}
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "none", "--format", "sarif")
    sarif = json.loads(out)
    jsonschema.validate(sarif, SCHEMA)
    assert rc == 0
    assert sarif["runs"][0]["invocations"] == [{
        "executionSuccessful": True, "exitCode": 0,
        "exitCodeDescription": "report only (fail-on none): 1 blocking finding would fail at mandatory",
        "properties": {"fail_on": "none"}}]
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error"]
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "none", "--format", "markdown")
    assert rc == 0
    assert out.splitlines()[3] == (
        "**📝 Report only** (`fail-on none`) — 1 blocking finding would fail at `mandatory`; findings do not fail "
        "this run.")
    # every report in a file: the verdict on stderr says so too
    rc, out, err = run(capsys, "lint", f, "--fail-on", "none", "--format", "json=r.json")
    assert (rc, out) == (0, "")
    assert err.splitlines()[-1].endswith("— report only (fail-on none): 1 blocking finding would fail at mandatory")


def test_fail_on_none_with_nothing_to_report(work, capsys):
    f = write(work / "tp4.yaml", TP4_70B)
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "none")
    assert (rc, codes(out)) == (0, [("SW106", "advisory")])
    assert out.splitlines()[-1] == (
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 1 advisory finding, 0 suppressed — "
        "report only (fail-on none): nothing would fail at mandatory")
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "none", "--format", "markdown")
    assert out.splitlines()[3] == (
        "**📝 Report only** (`fail-on none`) — nothing would fail at `mandatory`; findings do not fail this run.")


def test_fail_on_none_still_exits_2_on_an_unreadable_input(work, capsys):
    """What `|| true` hid: an input that cannot be read fails a report-only run (exit 2), after the rest is reported."""
    f = write(work / "tp2.yaml", TP2_8B)
    (work / "broken.yaml").write_text("kind: Deployment\nmetadata: {name: [\n")
    rc, out, _ = run(capsys, "lint", f, "broken.yaml", "--fail-on", "none")
    assert (rc, codes(out)) == (2, [("SW104", "mandatory")])
    assert out.splitlines()[-1] == (
        "shardwise: 2 files read, 1 workload, 1 mandatory finding, 0 advisory findings, 0 suppressed — "
        "failed: 1 input error; report only (fail-on none): 1 blocking finding would fail at mandatory")
    rc, out, _ = run(capsys, "lint", f, "broken.yaml", "--fail-on", "none", "--format", "json")
    summary = json.loads(out)["summary"]
    assert (rc, summary["fail_on"], summary["passed"], summary["blocking"], summary["input_errors"]) == (
        2, "none", False, 1, 1)
    rc, out, _ = run(capsys, "lint", f, "broken.yaml", "--fail-on", "none", "--format", "sarif")
    (invocation,) = json.loads(out)["runs"][0]["invocations"]
    assert rc == 2
    assert {k: v for k, v in invocation.items() if k != "toolExecutionNotifications"} == {
        "executionSuccessful": False, "exitCode": 2,
        "exitCodeDescription": "failed: 1 input error; report only (fail-on none): 1 blocking finding would fail at "
                               "mandatory",
        "properties": {"fail_on": "none"}}
    rc, out, _ = run(capsys, "lint", f, "broken.yaml", "--fail-on", "none", "--format", "markdown")
    assert out.splitlines()[3] == (
        "**❌ Failed** — 1 input error (everything else was read and linted); report only (`fail-on none`): 1 blocking "
        "finding would fail at `mandatory`.")


def test_config_file_fail_on_none_and_the_flag_over_it(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    write(work / ".shardwise.yaml", "fail_on: none\n")
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, codes(out)) == (0, [("SW104", "mandatory")])
    assert out.splitlines()[-1].endswith("— report only (fail-on none): 1 blocking finding would fail at mandatory")
    rc, out, _ = run(capsys, "lint", f, "--fail-on", "mandatory")
    assert rc == 1
    assert out.splitlines()[-1].endswith("— failed: 1 blocking finding at or above mandatory")


def test_precedence_flag_over_config_over_default(work, capsys):
    f = write(work / "tp2.yaml", TP2_32B_DEFAULT_BATCH)
    write(work / "shardwise.toml", 'fail_on = "advisory"\nkv_reserve = 1.0\n')
    # config: fail on advisory, and with a KV reserve of 1.0 the doctrine's reserve for an undeclared load lets
    # one H100 carry the 32B (61.0 GiB of weights, 71.3 usable) beyond the error band, so TP2 is SW104, mandatory
    rc, out, _ = run(capsys, "lint", f)
    # (no SW103: no load is declared; SW106 defers to SW104)
    assert (rc, codes(out)) == (1, [("SW104", "mandatory")])
    # flags win over the file: × 1.4 one H100 has no room for the 32B's KV cache (the KV left beyond the band is under
    # a quarter of the reserve: capacity.layout.serves, the judgement plan makes, which recommends TP2), so no SW104
    rc, out, _ = run(capsys, "lint", f, "--kv-reserve", "1.4", "--fail-on", "mandatory")
    assert (rc, codes(out)) == (0, [("SW106", "advisory")])


def test_config_enforcement_and_suppression(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    write(work / ".shardwise.yaml", """\
        enforcement:
          SW106: disabled
        suppress:
          - code: SW104
            subject: "Deployment serving/llama8b-*"
            reason: "benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1"
        """)
    rc, out, _ = run(capsys, "lint", f)
    assert rc == 0
    assert out.splitlines() == [
        f"tp2.yaml:18: {SW104_TP2} (suppressed: benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1)",
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, 1 suppressed — passed",
    ]


def test_explicit_config_flag(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    write(work / "ci.toml", '[enforcement]\nSW104 = "advisory"\n')
    rc, out, _ = run(capsys, "lint", f, "--config", "ci.toml")
    assert (rc, codes(out)) == (0, [("SW104", "advisory")])


def test_p95_context_flag_decides_the_load_rule(work, capsys):
    f = write(work / "wide.yaml", deployment(
        "llama70b-wide", 'meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4", --max-model-len, "8192", '
        '--max-num-seqs, "256"', 4, '\n  annotations: {shardwise.dev/target-concurrency: "512"}'))  # 256 a replica
    rc, out, _ = run(capsys, "lint", f)  # 256 seqs × max_model_len do not fit, but no context is declared
    assert (rc, codes(out)) == (0, [("SW103", "advisory")])
    rc, out, _ = run(capsys, "lint", f, "--p95-context", "8192")  # declared: 256 × 8192 do not fit
    assert (rc, codes(out)) == (1, [("SW103", "mandatory")])
    rc, out, _ = run(capsys, "lint", f, "--p95-context", "1024")  # 256 × 1024 do; a 4-bit TP1 holds 64 of them
    assert (rc, codes(out)) == (0, [("SW106", "advisory")])


# ------------------------------------------------------------------------------ lint: input errors (2)


def test_config_suppression_without_reason_exits_2(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    write(work / "shardwise.toml", '[[suppress]]\ncode = "SW104"\n')
    rc, out, err = run(capsys, "lint", f)
    assert (rc, out) == (2, "")
    assert err == (
        "shardwise: error: shardwise.toml:1: suppress entry 1 suppresses SW104 without a reason; write down why "
        'the rule does not apply (reason = "...")\n'
    )


def test_config_unknown_key_and_unknown_rule_exit_2(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    write(work / "shardwise.toml", "kv_reserve = 1.4\nfailon = 'advisory'\n")
    rc, _, err = run(capsys, "lint", f)
    assert rc == 2
    assert err.startswith("shardwise: error: shardwise.toml:2: unknown key 'failon' (expected one of: ")
    write(work / "shardwise.toml", '[enforcement]\nSW998 = "disabled"\n')
    rc, _, err = run(capsys, "lint", f)
    assert (rc, err) == (2, "shardwise: error: shardwise.toml:2: enforcement names rule SW998, which does not exist\n")


def test_yaml_error_exits_2_with_file_and_line(work, capsys):
    f = write(work / "bad.yaml", "a: [\nb: 1\n")
    rc, out, err = run(capsys, "lint", f)
    assert (rc, err) == (2, "")  # the text report on stdout carries the error
    assert out == (
        "bad.yaml:3:1: error: cannot parse YAML: did not find expected ',' or ']'\n"
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — failed: 1 input error\n"
    )


def test_yaml_error_goes_to_stderr_when_the_report_does_not(work, capsys):
    f = write(work / "bad.yaml", "a: [\nb: 1\n")
    rc, out, err = run(capsys, "lint", f, "--format", "json")
    assert (rc, json.loads(out)["input_errors"]) == (2, [
        {"file": "bad.yaml", "line": 3, "column": 1,
         "message": "cannot parse YAML: did not find expected ',' or ']'"}])
    assert err == (
        "shardwise: error: bad.yaml:3:1: cannot parse YAML: did not find expected ',' or ']'\n"
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — failed: 1 input error\n"
    )


def test_missing_file_exits_2_after_linting_the_others(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, err = run(capsys, "lint", "nope.yaml", f)
    assert (rc, err) == (2, "")
    lines = out.splitlines()
    assert lines[0] == "nope.yaml: error: no such file or directory"
    assert lines[1] == f"tp2.yaml:18: {SW104_TP2}"
    assert lines[-1] == (
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 0 advisory findings, 0 suppressed — failed: 1 input "
        "error, 1 blocking finding at or above mandatory"
    )


def test_no_vllm_workload_is_a_note_not_an_error(work, capsys):
    f = write(work / "cm.yaml", """\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: a}
        ---
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: b}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: c}
        """)
    assert run(capsys, "lint", f) == (0, (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; skipped 1 object of unknown kinds: ServiceAccount×1 — passed\n"
    ), "")


def test_empty_file_and_empty_directory_count_exactly(work, capsys):
    f = write(work / "empty.yaml", "")
    (work / "nothing").mkdir()
    assert run(capsys, "lint", f) == (0, (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — passed\n"), "")
    assert run(capsys, "lint", "nothing") == (0, (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — passed\n"), "")


def test_unknown_model_is_one_advisory_finding_naming_the_line(work, capsys):
    # was: exit 2 ("unk.yaml:17: unknown model 'acme/secret-model-13b'") and nothing else linted
    f = write(work / "unk.yaml", deployment("mystery", 'acme/secret-model-13b, --max-model-len, "8192"', 1))
    rc, out, err = run(capsys, "lint", f)
    assert (rc, err) == (0, "")
    assert out == (
        "unk.yaml:17: SW004 [advisory] shardwise does not know the model: 'acme/secret-model-13b' is not in the "
        "catalog; SW101, SW102, SW104, SW106, SW203 could not run on it (Deployment serving/mystery)\n"
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 1 advisory finding, 0 suppressed — passed\n"
    )


def test_unknown_model_blocks_with_unknown_fail_in_the_config(work, capsys):
    f = write(work / "unk.yaml", deployment("mystery", 'acme/secret-model-13b, --max-model-len, "8192"', 1))
    write(work / "shardwise.toml", 'unknown = "fail"\n')
    rc, out, _ = run(capsys, "lint", f)
    assert rc == 1
    assert out.splitlines()[0].startswith("unk.yaml:17: SW004 [mandatory] shardwise does not know the model: ")
    write(work / "shardwise.toml", 'unknown = "warn"\n')
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, out.splitlines()[0][:30]) == (0, "unk.yaml:17: SW004 [advisory] ")


def test_bad_flag_value_exits_2(work, capsys):
    rc, _, err = run(capsys, "lint", "x.yaml", "--kv-reserve", "0.5")
    assert rc == 2
    assert err.splitlines()[-1] == (
        "shardwise lint: error: argument --kv-reserve: must be a number from 1 to 10, got 0.5")


def test_lint_help_ends_with_the_exit_codes(work, capsys):
    """A CI user reads `shardwise lint --help`, not the top-level help, for what the step's status means."""
    rc, out, _ = run(capsys, "lint", "--help")
    out = " ".join(out.split())
    assert rc == 0
    assert out.endswith(
        "Exit codes: 0 nothing blocks (with --fail-on none, whatever the findings); 1 findings at or above --fail-on "
        "(or the config file's fail_on; default mandatory; with --baseline, new ones only); 2 an input that cannot be read (after everything readable was "
        "linted and the reports written; 2 wins over 1) or a usage error (nothing is linted).")


def test_stdin(work, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(TP2_8B))
    rc, out, _ = run(capsys, "lint", "-")
    assert rc == 1
    assert out.splitlines()[0] == f"<stdin>:18: {SW104_TP2}"


@pytest.mark.parametrize("given", ["", "\n", "  \n\t\n"])
def test_empty_stdin_is_an_input_error(work, capsys, monkeypatch, given):
    """`helm template … | shardwise lint -` where helm failed: without pipefail the step sees only shardwise's
    status, so reading nothing fails (exit 2) instead of passing the gate."""
    monkeypatch.setattr("sys.stdin", io.StringIO(given))
    rc, out, err = run(capsys, "lint", "-")
    assert (rc, out.splitlines()[0]) == (2, "<stdin>: error: standard input is empty: nothing was linted (did the "
                                            "command before the pipe fail? run the pipe under set -o pipefail)")
    # a document that is only a separator or a comment was written by a tool that ran: read as before
    monkeypatch.setattr("sys.stdin", io.StringIO("---\n# Source: chart/templates/none.yaml\n"))
    assert run(capsys, "lint", "-")[0] == 0


def test_unwritable_output_exits_2(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    assert run(capsys, "lint", f, "--format", "sarif", "--output", "no/such/dir/x.sarif") == (
        2, "", "shardwise: error: no/such/dir/x.sarif: No such file or directory\n")
    rc, out, err = run(capsys, "lint", f, "--format", "sarif=no/such/dir/x.sarif", "--format", "json=r.json")
    assert (rc, out, err) == (2, "", "shardwise: error: no/such/dir/x.sarif: No such file or directory\n")
    assert json.loads((work / "r.json").read_text())["summary"]["blocking"] == 1  # the other report is written


def test_internal_error_fails_with_one_line(work, capsys, monkeypatch):
    import shardwise.rules.adapters as adapters

    def boom(paths, jobs=None, excludes=None, render=None, gitops_revision=None, meanwhile=None, build_found=None,
             require_build=False):
        raise RuntimeError("adapter bug")

    monkeypatch.setattr(adapters, "read_inputs", boom)
    monkeypatch.delenv("SHARDWISE_DEBUG", raising=False)
    assert run(capsys, "lint", "x.yaml") == (2, "", (
        "shardwise: error: internal error: RuntimeError: adapter bug (set SHARDWISE_DEBUG=1 for the traceback; "
        "please report it)\n"))


def test_skipped_kinds_in_summary(work, capsys):
    f = write(work / "mixed.yaml", TP1_8B + "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\n")
    rc, out, _ = run(capsys, "lint", f)
    assert rc == 0
    assert out.splitlines()[-1] == (
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, 0 suppressed; skipped 1 object of "
        "unknown kinds: ServiceAccount×1 — passed"
    )


# ------------------------------------------------------------------------------------- lint: formats


def test_sarif_output_file(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, err = run(capsys, "lint", f, "--format", "sarif", "--output", "out.sarif")
    assert (rc, out) == (1, "")
    # every report in a file: stderr has what blocks, as the text report writes it, then the verdict
    text_rc, text, _ = run(capsys, "lint", f)
    assert text_rc == 1 and err == text
    assert err.splitlines()[0].startswith("tp2.yaml:18: SW104 [mandatory] meta-llama/Llama-3.1-8B-Instruct is sharded")
    assert err.splitlines()[1].startswith("shardwise: 1 file read, 1 workload, 1 mandatory")
    doc = json.loads((work / "out.sarif").read_text())
    jsonschema.validate(doc, SCHEMA)
    run0 = doc["runs"][0]
    assert [r["id"] for r in run0["tool"]["driver"]["rules"]] == [r.meta.code for r in ALL_RULES]
    res = run0["results"][0]
    assert (res["ruleId"], res["level"], run0["tool"]["driver"]["rules"][res["ruleIndex"]]["id"]) == (
        "SW104", "error", "SW104")
    assert res["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "tp2.yaml", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 18}}


def test_json_format(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, err = run(capsys, "lint", f, "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    assert [(x["code"], x["level"], x["line"]) for x in doc["findings"]] == [
        ("SW104", "mandatory", 18)]
    w = doc["workloads"][0]
    assert (w["subject"], w["gpus_total"], w["gpu"], w["weights_gib_per_gpu"]) == (
        "Deployment serving/llama8b-tp2", 4, "H100-SXM-80GB",
        round((8_030_261_248 * 2 / 2 + 131072 * 128 * 2) / GIB, 2))  # + the rotary cache every GPU keeps
    assert doc["summary"]["findings"] == {"mandatory": 1, "advisory": 0}
    # JSON on stdout holds the findings: stderr has the verdict alone (the findings go there only when every report
    # is in a file)
    assert err.startswith("shardwise: 1 file read") and len(err.splitlines()) == 1


def test_github_format(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    rc, out, _ = run(capsys, "lint", f, "--format", "github")
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=tp2.yaml,line=18,title=sharded-model-that-fits::SW104: meta-llama/Llama-3.1-8B-Instruct")
    assert lines[1:] == []


def test_github_annotations_name_the_file_as_the_repository_does(work, capsys, monkeypatch):
    """GitHub puts an annotation on a pull request's file only when ``file=`` is the path in the repository:
    ``./deploy/tp2.yaml`` (a run over ``.``, the Action's default) or an absolute path never reaches the file."""
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    (work / "deploy").mkdir()
    write(work / "deploy" / "tp2.yaml", TP2_8B)
    expected = "::error file=deploy/tp2.yaml,line=18,title=sharded-model-that-fits::"
    for given in (".", "./deploy/", "./deploy/tp2.yaml", str(work / "deploy"), "deploy//../deploy/tp2.yaml"):
        rc, out, _ = run(capsys, "lint", given, "--format", "github")
        assert (rc, out.splitlines()[0][: len(expected)]) == (1, expected), given
    # run from a folder of the checkout ($GITHUB_WORKSPACE is the checkout on a runner): the repository's path
    monkeypatch.setenv("GITHUB_WORKSPACE", str(work))
    monkeypatch.chdir(work / "deploy")
    rc, out, _ = run(capsys, "lint", "./tp2.yaml", "--format", "github")
    assert (rc, out.splitlines()[0][: len(expected)]) == (1, expected)
    # a file outside the checkout keeps the path it was given, normalised
    monkeypatch.setenv("GITHUB_WORKSPACE", str(work / "deploy"))
    monkeypatch.chdir(work)
    outside = work.parent / "elsewhere.yaml"
    outside.write_text(textwrap.dedent(TP2_8B))
    rc, out, _ = run(capsys, "lint", str(outside), "--format", "github")
    assert out.splitlines()[0].startswith(f"::error file={str(outside).replace(':', '%3A')},line=18,")


def test_text_and_json_name_a_searched_file_as_given_without_dot_slash(work, capsys):
    """`shardwise lint .` (the Action's and pre-commit's default) names `deploy/tp2.yaml`, as ruff, yamllint and
    kube-linter do, in every report: never `./deploy/tp2.yaml`, which the text report printed before."""
    (work / "deploy").mkdir()
    write(work / "deploy" / "tp2.yaml", TP2_8B)
    for given in (["."], ["./"], ["./deploy"], ["./deploy/"], [".//deploy"]):
        rc, out, _ = run(capsys, "lint", *given)
        lines = out.splitlines()
        assert (rc, lines[0].split(": SW")[0]) == (1, "deploy/tp2.yaml:18"), given
        assert lines[-1] == ("shardwise: 1 file read, 1 workload, 1 mandatory finding, 0 advisory findings, "
                             "0 suppressed — failed: 1 blocking finding at or above mandatory"), given
        rc, out, _ = run(capsys, "lint", *given, "--format", "json")
        assert sorted({f["file"] for f in json.loads(out)["findings"]}) == ["deploy/tp2.yaml"], given


def test_a_workload_declares_the_vllm_release_its_image_tag_does_not_name(work, capsys):
    """newuser7: an image built in-house (`…/ml/vllm-serving:build-4512`) names no vLLM release, so the capacity
    rules assumed the current one and nothing in a manifest could say otherwise; the annotation
    shardwise.dev/vllm-version names it, and a value that is no release is an input error at its line."""
    custom = "123456789012.dkr.ecr.us-east-1.amazonaws.com/ml/vllm-serving:build-4512"
    f = write(work / "tp2.yaml", TP2_8B.replace("vllm/vllm-openai:v0.11.0", custom))
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, out.splitlines()[0].split(": ", 1)[1].rsplit(" (vLLM ", 1)[1]) == (
        1, f"{CURRENT_RELEASE}, assumed: tag build-4512 names no vLLM release; declare it with the annotation "
           "shardwise.dev/vllm-version) (Deployment serving/llama8b-tp2)")
    declared = TP2_8B.replace("vllm/vllm-openai:v0.11.0", custom).replace(
        '{shardwise.dev/target-concurrency: "128"}',
        '{shardwise.dev/target-concurrency: "128", shardwise.dev/vllm-version: "v0.11.0"}')
    f = write(work / "tp2.yaml", declared)
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, out.splitlines()[0]) == (1, "tp2.yaml:18: " + SW104_TP2.replace(" from the image tag", ""))
    f = write(work / "tp2.yaml", declared.replace('"v0.11.0"', '"eleven"'))
    rc, out, _ = run(capsys, "lint", f)
    assert (rc, out.splitlines()[0]) == (
        2, "tp2.yaml:6: error: shardwise.dev/vllm-version: expected a vLLM release number (e.g. 0.11.0), got 'eleven'")


def test_a_file_named_twice_is_read_once(work, capsys):
    """Overlapping paths (`lint . deploy/`, `lint deploy/tp2.yaml ./deploy/tp2.yaml`) read each file once: the
    same findings once, the file counted once, as with one path."""
    (work / "deploy").mkdir()
    write(work / "deploy" / "tp2.yaml", TP2_8B)
    rc, once, _ = run(capsys, "lint", "deploy/")
    for given in ([".", "deploy"], ["deploy/", "./deploy/tp2.yaml"], ["deploy/tp2.yaml", "deploy//tp2.yaml", "."]):
        rc, out, _ = run(capsys, "lint", *given)
        assert (rc, out) == (1, once), given
    assert once.splitlines()[-1].startswith("shardwise: 1 file read, 1 workload, 1 mandatory finding, ")


def test_markdown_format_has_the_workload_row(work, capsys):
    f = write(work / "tp4.yaml", TP4_70B)
    rc, out, _ = run(capsys, "lint", f, "--format", "markdown", "--p95-context", "2048")
    assert rc == 0
    row = next(line for line in out.splitlines() if line.startswith("| Deployment serving/llama70b-tp4 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:5] == ["Deployment serving/llama70b-tp4", "meta-llama/Llama-3.1-70B-Instruct", "8 = 2 × 4 × 1",
                         "H100-SXM-80GB", "32.9"]
    tokens = int(cells[7].replace(",", ""))
    assert cells[8] == f"{tokens // 8192:,} @ 8,192"
    assert cells[9] == f"{tokens // 2048:,} @ 2,048"


def test_no_colour_when_not_a_tty(work, capsys):
    f = write(work / "tp2.yaml", TP2_8B)
    _, out, _ = run(capsys, "lint", f)
    assert "\033[" not in out


# -------------------------------------------------------------------------------------- rules/explain


def test_rules_lists_every_rule(capsys):
    rc, out, _ = run(capsys, "rules")
    assert rc == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == [r.meta.code for r in ALL_RULES]
    summaries = {r.meta.code: r.meta.summary for r in ALL_RULES}
    # SW104 is advisory but blocks in the case its mandatory_when names: the star says so, and the last
    # line says what the star means; SW001 is mandatory outright and SW307 advisory outright.
    assert [next(line for line in lines if line.startswith(code)).split(None, 3) for code in ("SW001", "SW104", "SW307")] == [
        ["SW001", "suppression-without-reason", "mandatory", summaries["SW001"]],
        ["SW104", "sharded-model-that-fits", "advisory*", summaries["SW104"]],
        ["SW307", "image-unpinned", "advisory", summaries["SW307"]],
    ]
    assert lines[-1] == ("* advisory, but mandatory (blocking, exit 1) in the case the rule names: "
                         "shardwise explain CODE says when")


def test_rules_json_and_markdown(capsys):
    rc, out, _ = run(capsys, "rules", "--format", "json")
    doc = json.loads(out)
    assert rc == 0
    assert [d["code"] for d in doc] == [r.meta.code for r in ALL_RULES]
    assert (doc[0]["doc_url"], doc[0]["doc_ref"]) == (None, f"shardwise explain {doc[0]['code']}")
    rc, out, _ = run(capsys, "rules", "--format", "markdown")
    assert out.splitlines()[0] == "| Code | Name | Enforcement | Severity | Summary |"


def test_explain(capsys):
    rc, out, _ = run(capsys, "explain", "sw104")
    meta = next(r.meta for r in ALL_RULES if r.meta.code == "SW104")
    assert rc == 0
    assert out.splitlines()[0] == (
        "SW104 sharded-model-that-fits (advisory (mandatory when replicas on fewer GPUs start and hold the declared "
        "concurrency beyond the estimate's error band, or, with no load declared, start at max_model_len and keep the "
        "KV reserve beyond it; never with a per-token latency target declared), severity high, scope stack)")
    flat = " ".join(out.split())
    for text in (meta.summary, meta.why, meta.remediation, *meta.references):
        assert " ".join(text.split()) in flat
    assert "    " + meta.bad_example.splitlines()[0] in out.splitlines()
    # the copy of the page installed with the package (this checkout's, in the editable install)
    assert out.splitlines()[-1] == f"Docs: {ROOT / 'rules' / 'docs' / 'SW104.md'}"
    rc2, out2, _ = run(capsys, "explain", "sharded-model-that-fits")
    assert (rc2, out2) == (0, out)


def test_explain_unknown_code(capsys):
    assert run(capsys, "explain", "SW10") == (
        2, "", "shardwise: error: unknown rule 'SW10'; did you mean SW101, SW102, SW103, SW104, SW105?\n")
    assert run(capsys, "explain", "shardd-model-that-fits") == (
        2, "", "shardwise: error: unknown rule 'shardd-model-that-fits'; did you mean sharded-model-that-fits, "
        "sharding-avoidable-by-quantization?\n")
    # a word of a rule's name names the rules whose name holds it; a word no name holds, the list
    assert run(capsys, "explain", "shm") == (
        2, "", "shardwise: error: unknown rule 'shm'; did you mean SW401 (parallel-without-shm)?\n")
    assert run(capsys, "explain", "Probe") == (
        2, "", "shardwise: error: unknown rule 'Probe'; did you mean SW402 (liveness-without-startup-probe), "
        "SW407 (vllm-service-without-readiness-probe)?\n")
    assert run(capsys, "explain", "xyz") == (
        2, "", "shardwise: error: unknown rule 'xyz'; `shardwise rules` lists them\n")


# ------------------------------------------------------------------------------------------------ plan

# Llama-3.1-70B-Instruct's published config.json and safetensors index
P70, LAYERS, KV_HEADS, HEAD_DIM, HIDDEN, INTER, VOCAB, MAX_POS = (
    70_553_706_496, 80, 8, 128, 8192, 28672, 128256, 131072)


def test_plan_70b_tp4_numbers_from_first_principles(capsys):
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100", "--tp", "4",
                       "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    mem = find_gpu("H100").memory_gib  # memory as CUDA reports it, from the catalog
    tp = 4
    weights = (P70 * 2 / tp + MAX_POS * HEAD_DIM * 2) / GIB  # bf16 split over TP, + the rotary cache
    kv_per_token = 2 * LAYERS * max(1, KV_HEADS // tp) * HEAD_DIM * 2  # K and V, 2 KV heads per GPU
    # vLLM 0.11 `vllm serve` on an H100 (>= 70 GiB, not an A100): 8,192 batched tokens, 1,024 sequences;
    # the profile's peak is the larger of the forward pass and the FlashInfer sampler run (1,024 rows × vocab)
    forward = 8192 * (3 * INTER / tp + 3 * HIDDEN) * 2
    sampler = 1024 * VOCAB * 16 + 8192 * HIDDEN * 2
    activation = max(forward, sampler) / GIB
    # measured after NCCL is set up (0.11+): cuBLAS workspaces and the like, and the NCCL rings of PyTorch's own TP
    # communicator, created by the profile's logits all-gather (24 channels of 12 MiB on NVSwitch Hopper)
    non_torch = 0.12 + 0.10 + 24 * 12 / 1024
    usable = mem * 0.9
    kv = usable - weights - activation - non_torch  # CUDA graphs come from the margin before 0.20
    tokens = math.floor(kv * GIB / (16 * kv_per_token)) * 16
    assert kv_per_token == 81_920
    assert {k: d[k] for k in (
        "model", "gpu", "vllm_version", "engine", "tensor_parallel_size", "pipeline_parallel_size", "gpus",
        "weight_precision", "weights_gb_total", "weights_gib_per_gpu", "activation_gib_per_gpu",
        "non_torch_gib_per_gpu", "cudagraphs_in_budget", "usable_gib_per_gpu", "kv_cache_gib_per_gpu",
        "kv_bytes_per_token_per_gpu", "kv_cache_tokens", "max_model_len", "max_num_seqs", "max_num_seqs_default",
        "max_num_batched_tokens", "max_concurrency", "sequences_per_replica", "starts", "verdict", "weights_fit",
    )} == {
        "model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "H100-SXM-80GB", "vllm_version": "0.11.0",
        "engine": "v1", "tensor_parallel_size": 4, "pipeline_parallel_size": 1, "gpus": 4, "weight_precision": "bf16",
        "weights_gb_total": round(P70 * 2 / 1e9, 3), "weights_gib_per_gpu": round(weights, 3),
        "activation_gib_per_gpu": round(activation, 3), "non_torch_gib_per_gpu": round(non_torch, 3),
        "cudagraphs_in_budget": False, "usable_gib_per_gpu": round(usable, 3), "kv_cache_gib_per_gpu": round(kv, 3),
        "kv_bytes_per_token_per_gpu": kv_per_token, "kv_cache_tokens": tokens, "max_model_len": MAX_POS,
        "max_num_seqs": 1024, "max_num_seqs_default": True, "max_num_batched_tokens": 8192,
        "max_concurrency": round(tokens / MAX_POS, 3),
        # whole sequences of 131,072 tokens with the error band (4% of the usable memory) taken off the KV cache
        "sequences_per_replica": int((kv - 0.04 * usable) * GIB / (MAX_POS * kv_per_token)),
        "starts": True, "verdict": "starts", "weights_fit": True,
    }
    assert d["weights_gib_per_gpu"] == 32.885
    # GPUs for the weights with a 1.4 KV reserve: 141.1 GB × 1.4 on 80 GB × 0.9
    assert d["gpus_needed"] == {"need_gb": 197.6, "per_gpu_gb": 72.0, "raw_gpus": 3, "tensor_parallel_size": 4}
    assert d["sequences_per_replica"] == 3
    # vLLM's default max_num_seqs of 1,024 is a cap, not a load: no SW103 (and no load_tokens figure built on it)
    # no SW106: a 4-bit 70B on one H100 leaves 32 GiB of KV cache, less than one 131,072-token request needs
    assert d["findings"] == [] and "load_tokens" not in d
    assert d["load"] == {"concurrency": None, "context": MAX_POS, "context_declared": False,
                         "output_tokens_per_second": None}
    assert d["recommended"] is None and "candidates" not in d
    assert rc == 0 and err == ""


def test_plan_says_which_vllm_release_it_sized_for(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1",
                     "--max-model-len", "8192", "--max-num-seqs", "32")
    assert rc == 0
    assert out.splitlines()[0] == (
        "meta-llama/Llama-3.1-8B-Instruct on H100-SXM-80GB (79.2 GiB), TP1 × PP1 = 1 GPU per engine; "
        f"vLLM {CURRENT_RELEASE}, assumed: --vllm-version not given (V1 engine)")
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1",
                     "--max-model-len", "8192", "--max-num-seqs", "32", "--vllm-version", "0.6.6")
    assert out.splitlines()[0].endswith("; vLLM 0.6.6 (V0 engine)")
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--vllm-version", "latest")
    assert (rc, err) == (2, "shardwise: error: --vllm-version 'latest' is not a vLLM release number (e.g. 0.11.0)\n")


def test_plan_without_tp_recommends_tp1_for_8b(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--max-model-len", "8192", "--max-num-seqs", "32")
    text = ("recommended: TP1; one replica holds 57 sequences of 8,192 tokens; TP1 × 8 replicas per 8-GPU node; as "
            "many replicas as the load needs (--concurrency C sizes them)")
    assert rc == 0
    assert text in out.splitlines()
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--json",
                     "--max-model-len", "8192", "--max-num-seqs", "32")
    d = json.loads(out)
    assert d["recommended"] == {
        "tensor_parallel_size": 1, "pipeline_parallel_size": 1, "data_parallel_size": 1,
        "enable_expert_parallel": False, "replicas_per_node": 8, "nodes_per_replica": 1, "gpus_per_node": 8,
        "max_num_seqs": 32, "max_num_seqs_default": False, "max_num_seqs_lowered": False, "max_model_len": 8192,
        "max_model_len_lowered": False, "sequences_per_replica": 57, "load": None, "text": text,
    }
    assert (d["tensor_parallel_size"], d["findings"]) == (1, [])
    # --max-num-seqs is a setting, not a load; without one the doctrine's reserve judges: one H100 starts the 8B
    # with the KV reserve, so every wider layout shards a model that fits (SW104)
    assert [(c["tensor_parallel_size"], c["sequences_per_replica"], c["mandatory"]) for c in d["candidates"]] == [
        (1, 57, []), (2, 126, ["SW104"]), (4, 268, ["SW104"]), (8, 552, ["SW104"])]  # 0.34.0: the extensible cache


def test_plan_keeps_vllms_batch_cap_and_recommends_one_gpu_for_8b(capsys):
    """The issue's command: 8B on H100 with a p95 context of 4,096 tokens is TP1 (it was TP8), and vLLM's
    max_num_seqs default stays (it was lowered to 3, the sequences of 131,072 tokens the KV cache holds)."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--vllm-version",
                     "0.11.0", "--p95-context", "4096", "--json")
    d = json.loads(out)
    assert rc == 0
    rec = d["recommended"]
    assert (rec["tensor_parallel_size"], rec["pipeline_parallel_size"], rec["max_num_seqs"],
            rec["max_num_seqs_default"], rec["max_model_len"], rec["sequences_per_replica"]) == (
        1, 1, 1024, True, 131072, 102)
    assert rec["text"] == (
        "recommended: TP1; one replica holds 3 sequences of 131,072 tokens (max_model_len), 102 of 4,096 (the p95 "
        "context); TP1 × 8 replicas per 8-GPU node; as many replicas as the load needs (--concurrency C sizes them)")
    assert d["findings"] == [] and d["load"]["concurrency"] is None
    assert "--max-num-seqs" not in out


def test_plan_70b_on_h100_is_tp4_the_fewest_gpus_that_load_it_with_room(capsys):
    """TP2 loads the weights (65.7 GiB per GPU) but leaves 3.2 GiB of KV cache, less than one 131,072-token
    sequence needs (10 GiB per GPU at TP2), and 65.7 × 1.4 exceeds the 71.3 GiB usable: TP4 is the smallest
    layout with room. Never TP8 × PP4."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100",
                     "--vllm-version", "0.11.0", "--p95-context", "4096", "--json")
    d = json.loads(out)
    assert rc == 0
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["verdict"], c["sequences_per_replica"],
             c["roomy"], c["mandatory"]) for c in d["candidates"]] == [
        (1, 1, "refuses", 0, False, ["SW101"]), (2, 1, "refuses", 0, False, ["SW102"]),
        (4, 1, "starts", 105, True, []), (8, 1, "starts", 316, False, ["SW104"])]  # TP4 holds it with the reserve
    assert d["recommended"]["text"] == (
        "recommended: TP4; one replica holds 3 sequences of 131,072 tokens (max_model_len), 105 of 4,096 (the p95 "
        "context); TP4 × 2 replicas per 8-GPU node; as many replicas as the load needs (--concurrency C sizes them)")


def test_plan_sizes_replicas_for_a_declared_concurrency(capsys):
    """64 sequences of 8,192 tokens: TP4 holds 52 beyond the error band, so 2 replicas hold the load, 62 % full: no
    headroom replica (one is added above 80 %): 8 GPUs on one p5.48xlarge (the smallest instance type with 4 H100s),
    priced as the whole instance it is billed as (55.04 USD/hour). TP8 would hold it with
    one replica, but 2 TP4 replicas on its 8 GPUs hold their share: SW104 blocks it, and plan does not recommend it.
    TP2 may not start at vLLM's default of 1,024 sequences (the sampler's 2 GiB), nor at the 512 plan tries next
    (maxseqs53) once PyTorch's tp communicator (0.28 GiB at 0.11 on H100) is charged: no TP2 row is priced, and its
    candidate keeps the default."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100",
                     "--max-model-len", "8192", "--concurrency", "64", "--output-tokens-per-second", "1500",
                     "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert rc == 0
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["verdict"], c["sequences_per_replica"],
             c["mandatory"]) for c in d["candidates"]] == [
        (1, 1, "refuses", 0, ["SW101"]), (2, 1, "may-refuse", 0, []), (4, 1, "starts", 52, []),
        (8, 1, "starts", 158, ["SW104"]), (8, 2, "starts", 368, ["SW104"]), (8, 4, "starts", 788, ["SW104"])]
    price = find_instance("p5.48xlarge").price_per_hour_usd
    hourly = round(price, 2)
    assert hourly == 55.04
    row = {"layout": "TP4", "gpus_per_replica": 4, "concurrency": 64, "context": 8192, "sequences_per_replica": 52,
           "replicas_needed": 2, "replicas": 2, "headroom_replicas": 0, "gpus": 8, "nodes": 1,
           "instance_type": "p5.48xlarge",
           "billed_as": "the smallest priced instance type with the GPU that holds one replica", "usd_per_hour": hourly,
           # the hour's cost over 2 replicas × 1,500 output tokens/s × 3,600 s, per million tokens
           "usd_per_million_output_tokens": round(round(hourly / (2 * 1500 * 3600 / 1000), 5) * 1000, 2),
           "output_tokens_per_second": 1500.0, "output_tokens_per_second_estimated": False, "no_price": None}
    assert d["for_the_load"][0] == row
    assert [(r["layout"], r["replicas"], r["gpus"], r["nodes"], r["usd_per_hour"]) for r in d["for_the_load"][1:]] == []
    assert [(c["tensor_parallel_size"], c["max_num_seqs"], c["max_num_seqs_lowered"]) for c in d["candidates"][:3]] == [
        (1, 1024, False), (2, 1024, False), (4, 1024, False)]
    assert d["recommended"]["load"] == {k: v for k, v in row.items() if k not in ("layout", "gpus_per_replica")}
    assert d["recommended"]["text"] == (
        "recommended: 2 replicas of TP4 for 64 sequences of 8,192 tokens (2 for the load, each holding 52, no headroom "
        "replica: the load fills 62% of the 104 they hold, not above the 80% at which one is added) = 8 GPUs on 1 node "
        "(p5.48xlarge); TP4 × 2 replicas per 8-GPU node")
    assert d["load"] == {"concurrency": 64, "context": 8192, "context_declared": False,
                         "output_tokens_per_second": 1500.0}


def test_plan_text_says_which_figure_of_what_a_replica_holds_is_which(capsys):
    """README's plan: the table and the recommendation give what a TP4 replica holds beyond the error band (52);
    SW106 in the same output compares central estimates (57 against the variant's 48), and says so with the 52."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100",
                     "--max-model-len", "8192", "--concurrency", "64", "--vllm-version", "0.11.0")
    assert rc == 0
    assert "(2 for the load, each holding 52, no headroom replica" in out
    [sw106] = [line for line in out.splitlines() if "SW106" in line]
    assert sw106 == (
        "  SW106 [advisory] meta-llama/Llama-3.1-70B-Instruct takes 4 GPUs a replica (TP4×PP1, bf16); a 4-bit AWQ/GPTQ "
        "variant (39.8 GB of weights) fits on one H100-SXM-80GB, so those 4 GPUs could run 4 one-GPU replicas holding "
        "48 sequences of 8,192 tokens (max_model_len) together: enough for the 32 a replica must hold (64 by "
        "--concurrency over 2 replicas); the TP4×PP1 replica holds 57 (both central estimates; 52 beyond its error "
        "band) (vLLM 0.11.0)")


def test_plan_compares_layouts_by_what_they_hold_together(capsys):
    """A 4-bit 70B at 16,384 tokens for 16 sequences: one TP1 replica holds 5, so TP1 needs 4 replicas, 80 % full (no
    headroom replica: 4 GPUs); one TP2 replica holds 18, 89 % full, so 1 + 1 (4 GPUs): the narrower engine is
    recommended, and the table shows both side by side."""
    rc, out, _ = run(capsys, "plan", "--model", "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "--gpu",
                     "H100", "--max-model-len", "16384", "--concurrency", "16", "--vllm-version", "0.11.0")
    assert rc == 0
    lines = out.splitlines()
    i = lines.index("for 16 sequences of 16,384 tokens at once (max_model_len; no --p95-context):")
    # 'replicas': those the load needs; 'with headroom': all of them, the headroom replica included (the column was
    # '+ headroom', read as a count of headroom replicas: TP1's 4 looked like 4 spare replicas)
    # priced as billed: TP2's replicas on one whole p5.48xlarge, TP1's each on a 1-GPU p5.4xlarge; per million output
    # tokens from the decode estimate of each replica at its share of the load (TP1: 163 tokens/s at 4 sequences,
    # 27.52 / (4 × 163.3 × 3,600) × 10^6)
    assert lines[i + 1:i + 5] == [
        "  layout  GPUs/replica  seqs/replica  replicas  with headroom  GPUs  nodes     instance  $/hour  $/M output "
        "tokens",
        "     TP1             1             5         4              4     4      4   p5.4xlarge  $27.52  $11.70 (est.)",
        "     TP2             2            18         1              2     4      1  p5.48xlarge  $55.04  $17.62 (est.)",
        "  priced as whole instances at their on-demand price: p5.4xlarge $6.88/hour for 1 GPU, p5.48xlarge "
        "$55.04/hour for 8 GPUs (https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/pricing/"
        "zz_generated.pricing_aws.go, 2026-07-20); $/M output tokens (est.) from the decode estimate of each replica "
        "at its share of the load (docs/capacity-model.md; --output-tokens-per-second R for a measured rate)",
    ]
    assert ("recommended: 4 replicas of TP1 for 16 sequences of 16,384 tokens (4 for the load, each holding 5, no "
            "headroom replica: the load fills 80% of the 20 they hold, not above the 80% at which one is added) = 4 GPUs "
            "on 4 nodes (p5.4xlarge); TP1 × 1 replica per 1-GPU node") in lines


def test_plan_json_says_a_layout_vllm_refuses_does_not_start(capsys):
    """Qwen2.5-7B has 28 attention heads: vLLM refuses TP8 (SW203), so the layout does not start, whatever the
    memory says."""
    rc, out, _ = run(capsys, "plan", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--tp", "8",
                     "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert rc == 1
    assert (d["starts"], d["verdict"], d["weights_fit"]) == (False, "refuses", True)
    # (and one H100 holds the 7B with the KV reserve: SW104 blocks the sharding too)
    assert [(f["code"], f["level"]) for f in d["findings"] if f["level"] == "mandatory"] == [
        ("SW104", "mandatory"), ("SW203", "mandatory")]
    rc, out, _ = run(capsys, "plan", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--tp", "8",
                     "--vllm-version", "0.11.0")
    assert ("  starts                      no: vLLM refuses the layout (SW203: Qwen/Qwen2.5-7B-Instruct has 28 attention "
            "heads, not divisible by tensor_parallel_size 8; the weights split at tensor_parallel_size 2 or 4)"
            ) in out.splitlines()


def test_plan_70b_recommends_tp4_two_replicas(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100",
                     "--max-model-len", "8192", "--max-num-seqs", "32")
    assert rc == 0
    assert ("recommended: TP4; one replica holds 60 sequences of 8,192 tokens; TP4 × 2 replicas per 8-GPU node; as "
            "many replicas as the load needs (--concurrency C sizes them)") in out.splitlines()
    table = out.splitlines()[:5]
    assert table[0].split()[:4] == ["TP", "PP", "DP", "GPUs"]
    assert [row.split()[0] for row in table[1:]] == ["1", "2", "4", "8"]
    assert table[1].split()[-1] == "SW101"  # 131 GiB of weights on one GPU


def test_plan_deepseek_r1_dp8_expert_parallel_on_h200(capsys):
    """Eight data-parallel ranks with expert parallelism: each H200 holds 1/8 of the routed experts."""
    rc, out, _ = run(capsys, "plan", "--model", "deepseek-ai/DeepSeek-R1", "--gpu", "H200", "--tp", "1", "--dp", "8",
                     "--enable-expert-parallel", "--max-model-len", "32768", "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert (rc, d["data_parallel_size"], d["expert_parallel"], d["verdict"]) == (0, 8, True, "starts")
    assert 85 < d["weights_gib_per_gpu"] < 100  # not 671B / 1 GPU
    assert [f["code"] for f in d["findings"] if f["level"] == "mandatory"] == []


def test_plan_custom_gpu_memory(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory-gib", "44.5",
                     "--tp", "1", "--max-model-len", "8192", "--max-num-seqs", "16", "--json")
    d = json.loads(out)
    # no --vllm-version: the current release, whose default utilization is 1.0 with the extensible KV cache (0.34+;
    # 0.92 from vLLM 0.20, 0.9 before)
    assert (rc, d["gpu"], d["gpu_memory_gib"], d["usable_gib_per_gpu"]) == (0, "custom", 44.5, 44.5)
    assert d["gpus_needed"]["per_gpu_gb"] == round(44.5 * GIB / 1e9 * 0.9, 1)


def test_plan_local_config(tmp_path, capsys):
    cfg = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
        "intermediate_size": 8192, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 16,
        "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
        "tie_word_embeddings": True, "head_dim": 64,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    rc, out, err = run(capsys, "plan", "--model", str(tmp_path), "--gpu", "L4", "--tp", "1", "--max-num-seqs", "32",
                       "--json")
    d = json.loads(out)
    assert (rc, err) == (0, "")
    assert d["kv_bytes_per_token_per_gpu"] == 2 * 16 * 8 * 64 * 2
    assert d["max_model_len"] == 8192


def test_plan_weights_override(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1",
                     "--weights-gib", "20", "--max-model-len", "8192", "--max-num-seqs", "16", "--json")
    d = json.loads(out)
    assert (d["weights_gib_per_gpu"], d["notes"]) == (20.0, ["weights given as 20.0 GiB for the whole model"])
    assert d["gpus_needed"]["need_gb"] == round(20 * GIB / 1e9 * 1.4, 1)


@pytest.mark.parametrize(("argv", "message"), [
    (["--gpu", "H1000"], "shardwise: error: unknown GPU 'H1000'; did you mean: H100-SXM-80GB"),
    ([], "shardwise: error: plan needs --gpu NAME (e.g. H100), --instance-type TYPE (e.g. p5.48xlarge) or "
         "--gpu-memory-gib GIB (memory of one GPU as CUDA reports it)"),
    (["--gpu", "H100", "--quantization", "int3"], "shardwise: error: unknown --quantization 'int3'; expected one "
                                                  "of vLLM's methods: aqlm, auto-round, awq, awq_marlin"),
    # quant49: vLLM raises "Cannot find the config file for awq" on a checkpoint without quantization_config
    (["--gpu", "L4", "--quantization", "awq"], "shardwise: error: vLLM refuses it: `--quantization awq` loads an AWQ "
                                               "checkpoint, and meta-llama/Llama-3.1-8B-Instruct has bf16 weights and "
                                               "no quantization_config: vLLM raises \"Cannot find the config file for "
                                               "awq\" while loading it"),
    # quantcap1: Fp8Config requires compute capability 8.0 up to 0.13.0; no layout escapes it (was "no layout of
    # TP1×PP1 ... TP1×PP16 is free of mandatory findings; try a GPU with more memory, --quantization ...")
    (["--gpu", "T4", "--quantization", "fp8", "--vllm-version", "0.11.0"],
     "shardwise: error: vLLM refuses it at every layout: --quantization fp8: vLLM 0.11.0 refuses the fp8 method on T4, "
     "compute capability 7.5 (\"The quantization method fp8 is not supported for the current GPU. Minimum capability: "
     "80. Current capability: 75.\"); serve it on a GPU of compute capability 8.0 or more, or on vLLM 0.14.1 or later, "
     "which takes it on this GPU\n"),
])
def test_plan_input_errors(capsys, argv, message):
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", *argv)
    assert (rc, out) == (2, "")
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_plan_quantisation_taken_from_a_later_release(capsys):
    """quantcap1: 0.14.1's Fp8Config takes a T4 (7.5, FP8 Marlin's Turing kernels): plan sizes it."""
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "T4", "--quantization",
                       "fp8", "--vllm-version", "0.14.1", "--max-model-len", "4096")
    assert (rc, err) == (0, "")
    assert "refuses the fp8 method" not in out


def test_plan_unknown_model(capsys):
    rc, out, err = run(capsys, "plan", "--model", "acme/nonexistent-13b", "--gpu", "H100")
    assert (rc, out) == (2, "")
    assert err.startswith("shardwise: error: unknown model 'acme/nonexistent-13b'")
    rc, _, err = run(capsys, "plan", "--model", "./missing/config.json", "--gpu", "H100")
    assert (rc, err) == (2, "shardwise: error: ./missing/config.json: no such file or directory\n")


def test_plan_model_link_that_leads_nowhere(capsys, tmp_path, monkeypatch):
    """review17: a model folder linked into the working directory whose target is gone (``qwen -> /mnt/models/qwen``
    after the volume is unmounted) or a loop of links was read as a model id: "unknown model 'qwen'"."""
    monkeypatch.chdir(tmp_path)
    os.symlink("/nonexistent/models/qwen3-32b", "qwen3-32b")
    os.symlink("b", "a")
    os.symlink("a", "b")
    (tmp_path / "models").mkdir()
    os.symlink("../gone", tmp_path / "models" / "llama")
    gone = "a symbolic link to {}, which does not exist"
    loop = "a loop of symbolic links (each names another, and none a file)"
    for link, why in (("qwen3-32b", gone.format("/nonexistent/models/qwen3-32b")), ("a", loop),
                      ("models/llama", gone.format("../gone")), (str(tmp_path / "b"), loop)):
        rc, out, err = run(capsys, "plan", "--model", link, "--gpu", "H100")
        assert (rc, out, err) == (2, "", f"shardwise: error: {link}: cannot read model config: {why}\n")
        rc, out, err = run(capsys, "plan", "--model", link, "--gpu", "H100", "--format", "json")
        assert (rc, json.loads(out), err) == (2, {"version": "0.1.0", "input_errors": [
            {"file": link, "line": None, "message": f"cannot read model config: {why}"}]},
            f"shardwise: error: {link}: cannot read model config: {why}\n")


def _stopped(error: dict) -> dict:
    """The JSON report of a lint that stopped before reading its inputs (review17)."""
    return {"version": "0.1.0", "findings": [], "input_errors": [error], "workloads": [], "skipped_files": [],
            "excluded": [], "summary": {
                "files": 0, "workloads": 0, "findings": {"mandatory": 0, "advisory": 0}, "suppressed": 0,
                "blocking": 0, "fail_on": "mandatory", "passed": False, "skipped": {}, "skipped_files": {},
                "excluded": 0, "input_errors": 1,
                "note": "the run stopped before reading its inputs: nothing was linted"}}


#: what a --baseline FILE that does not exist yet adds: how to write it (newuser9)
GONE = ("; create it once with `shardwise lint PATH… --create-baseline gone.json` over the paths the run lints, and "
        "commit it")


def test_setup_errors_write_a_json_document(capsys, tmp_path, monkeypatch):
    """review17: a --config, --baseline or --model-dir that cannot be read stops the run before it reads its inputs;
    with --format json it printed nothing on stdout (a CI step that parses the report failed on empty input). It
    prints the report with the error under input_errors, as the report names an input error; exit 2 as before."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy.yaml").write_text((FIXTURES / "rules" / "SW003" / "pass.yaml").read_text())
    (tmp_path / "bad.toml").write_text("fail_on = 'mandatory'\n: [\n")
    (tmp_path / "models").write_text("not a folder")
    cases = [
        (["--config", "bad.toml"], "bad.toml:2: cannot parse TOML: Invalid statement",
         {"file": "bad.toml", "line": 2, "message": "cannot parse TOML: Invalid statement"}),
        (["--baseline", "gone.json"], f"gone.json: --baseline: cannot read: No such file or directory{GONE}",
         {"file": "gone.json", "line": None, "message": f"--baseline: cannot read: No such file or directory{GONE}"}),
        (["--model-dir", "models"], "--model-dir models: not a directory",
         {"file": None, "line": None, "message": "--model-dir models: not a directory"}),
    ]
    for options, said, error in cases:
        rc, out, err = run(capsys, "lint", *options, "--format", "json", "deploy.yaml")
        assert (rc, json.loads(out), err) == (2, _stopped(error), f"shardwise: error: {said}\n")
        rc, out, err = run(capsys, "lint", *options, "deploy.yaml")  # text: stderr alone, as before
        assert (rc, out, err) == (2, "", f"shardwise: error: {said}\n")
    # a JSON report asked for in a file is not written: the run read nothing
    rc, out, err = run(capsys, "lint", "--baseline", "gone.json", "--format", "json=report.json", "deploy.yaml")
    assert (rc, out, os.path.exists("report.json")) == (2, "", False)


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--tp", "0", "argument --tp: must be an integer from 1 to 64, got 0"),
    ("--gpu-memory-utilization", "1.5", "argument --gpu-memory-utilization: must be a number greater than 0 up to 1, "
                                        "got 1.5"),
    ("--gpu-memory-utilization", "nan", "argument --gpu-memory-utilization: must be a number greater than 0 up to 1, "
                                        "got nan"),
    ("--max-model-len", "0", "argument --max-model-len: must be an integer from 16 to 10,000,000, got 0"),
    ("--max-model-len", "20M", "argument --max-model-len: must be an integer from 16 to 10,000,000, got 20971520"),
    ("--max-model-len", "1.5M", "argument --max-model-len: must be an integer from 16 to 10,000,000 (as vLLM reads "
                                "it: 32768, 32k = 32,000, 32K = 32,768) or auto, got '1.5M'"),
    ("--gpu-memory-gib", "-80", "argument --gpu-memory-gib: must be a number greater than 0 up to 4096, got -80"),
    ("--max-num-seqs", "many", "argument --max-num-seqs: must be an integer from 1 to 65,536, got 'many'"),
])
def test_plan_absurd_numbers(capsys, flag, value, message):
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", flag, value)
    assert (rc, out) == (2, "")
    assert err.splitlines()[-1] == f"shardwise plan: error: {message}"


@pytest.mark.parametrize(("argv", "last"), [
    (["lint", ".", "--fail-on", "warning"],
     "shardwise lint: error: argument --fail-on: invalid choice 'warning'; expected one of advisory, mandatory, none"),
    (["lnt", "."], "shardwise: error: argument COMMAND: invalid choice 'lnt'; expected one of lint, diff, plan, rules, "
                   "explain, policy-pack-dir, docs"),
    (["plan", "--model", "m", "--dtype", "it's"],
     "shardwise plan: error: argument --dtype: invalid choice 'it's'; expected one of auto, bfloat16, float16, float32"),
    (["plan", "--model", "m", "--kv-cache-dtype", "a\x1bb\nc"],
     "shardwise plan: error: argument --kv-cache-dtype: invalid choice 'a\\x1bb\\nc'; expected one of auto, fp8"),
    (["lint", ".", "--jobs", "x\udcff"],
     "shardwise lint: error: argument --jobs/-j: must be an integer from 1 to 256, got 'x\\xff'"),
    (["rules", "--format", "\udcff"],
     "shardwise rules: error: argument --format: invalid choice '\\xff'; expected one of text, json, markdown"),
    (["lint", "--fail-on"], "shardwise lint: error: argument --fail-on: expected one argument"),
])
def test_usage_errors_quote_what_was_typed_plainly(capsys, argv, last):
    """argparse's own errors (a choice, a command) quoted the value with Python's repr (``invalid choice: 'x'
    (choose from 'advisory', 'mandatory')``, ``"it's"``, ``'\\udcff'``) and wrote a control character raw; they now
    read as shardwise's own: the value in plain quotes, the choices as a list, escapes as the reports write them."""
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, "")
    assert err.startswith("usage: shardwise")
    assert err.splitlines()[-1] == last


@pytest.mark.parametrize(("value", "tokens"), [("32k", 32000), ("32K", 32768), ("25.6k", 25600), ("32768", 32768)])
def test_plan_reads_max_model_len_as_vllm_does(capsys, value, tokens):
    """vLLM reads --max-model-len with human_readable_int (32k, 32K) and so does lint: plan takes what both take."""
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                       "--max-model-len", value, "--format", "json")
    assert (rc, err) == (0, "")
    assert json.loads(out)["max_model_len"] == tokens


# ------------------------------------------------------------------------------------------------ docs


@pytest.mark.slow  # writes and checks every rule page (make test runs `shardwise docs --check` too): not in the edit loop
def test_docs_write_and_check(tmp_path, capsys):
    out = tmp_path / "docs"
    rc, stdout, _ = run(capsys, "docs", "--out", str(out))
    assert rc == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{r.meta.code}.md" for r in ALL_RULES] + ["README.md"])
    page = (out / "SW104.md").read_text()
    for heading in ("# SW104: sharded-model-that-fits", "## What it does", "## Why is this bad?", "## Example",
                    "## Use instead", "## Remediation", "## References", "## Enforcement and suppression"):
        assert heading in page.splitlines()
    assert run(capsys, "docs", "--out", str(out), "--check")[0] == 0
    (out / "SW104.md").write_text(page.replace("## Remediation", "## Fix"))
    (out / "SW990.md").write_text("old rule\n")
    rc, _, err = run(capsys, "docs", "--out", str(out), "--check")
    assert rc == 1
    assert err.splitlines() == [f"stale: {out / 'SW104.md'}", f"stale: {out / 'SW990.md'}",
                                f"2 rule page(s) out of date; run `shardwise docs --out {out}`"]
    run(capsys, "docs", "--out", str(out))
    assert not (out / "SW990.md").exists()
    assert run(capsys, "docs", "--out", str(out), "--check")[0] == 0


def test_shipped_rule_docs_are_fresh(capsys):
    rc, _, err = run(capsys, "docs", "--check")
    assert (rc, err) == (0, "")


def test_readme_block(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- rules:start -->\nOLD-TABLE\n<!-- rules:end -->\n\nafter\n")
    assert run(capsys, "docs", "--readme", str(readme), "--check")[0] == 1
    assert run(capsys, "docs", "--readme", str(readme))[:2] == (0, f"updated {readme}\n")
    text = readme.read_text()
    assert "| [SW104](rules/docs/SW104.md) | `sharded-model-that-fits` | advisory (mandatory when replicas on fewer GPUs start and hold the declared concurrency beyond the estimate's error band, or, with no load declared, start at max_model_len and keep the KV reserve beyond it; never with a per-token latency target declared) | high |" in text
    assert text.endswith("<!-- rules:end -->\n\nafter\n") and "OLD-TABLE" not in text
    assert run(capsys, "docs", "--readme", str(readme), "--check") == (0, "", "")
    readme.write_text("no markers\n")
    assert run(capsys, "docs", "--readme", str(readme)) == (
        2, "", f"shardwise: error: {readme}: no '<!-- rules:start -->' … '<!-- rules:end -->' block to update\n")


# ------------------------------------------------------------------------------- the installed command


def _script() -> str:
    exe = Path(sys.executable).parent / "shardwise"
    if not exe.exists():
        pytest.fail(f"console script missing at {exe}; run `pip install -e . --no-deps`")
    return str(exe)


@pytest.mark.slow
def test_console_script_input_error_has_no_traceback(tmp_path):
    (tmp_path / "bad.yaml").write_text("kind: Deployment\nspec: [\n")
    p = subprocess.run([_script(), "lint", "bad.yaml", "--format", "json"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert json.loads(p.stdout)["input_errors"] == [
        {"file": "bad.yaml", "line": 3, "column": 1,
         "message": "cannot parse YAML: did not find expected node content"}]
    assert "Traceback" not in p.stderr
    assert p.stderr.splitlines() == [
        "shardwise: error: bad.yaml:3:1: cannot parse YAML: did not find expected node content",
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — failed: 1 input error",
    ]


@pytest.mark.slow
def test_lint_imports_stay_light(tmp_path):
    """`shardwise lint` on manifests never imports jinja2, pydantic or pulumi (start-up time)."""
    (tmp_path / "ok.yaml").write_text(TP1_8B)
    code = (
        "import sys\n"
        "from shardwise.rules.app.cli import main\n"
        "rc = main(['lint', 'ok.yaml'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'pydantic', 'pulumi', 'jsonschema'})\n"
        "print(rc, heavy)\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env=env)
    assert p.stdout.splitlines()[-1] == "0 []", p.stderr


def test_lint_jobs_must_be_positive(capsys):
    assert main(["lint", "--jobs", "0", "examples"]) == 2
    assert "argument --jobs/-j: must be an integer from 1 to 256, got 0" in capsys.readouterr().err


def test_unknown_model_in_a_manifest_names_the_args_line_once(work, capsys):
    # was: exit 2 with the same message as an input error; now one SW004 finding, every other rule still runs
    fixture = FIXTURES / "rules" / "SW104" / "fail.yaml"
    text = fixture.read_text(encoding="utf-8").replace("Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instrukt")
    (work / "typo.yaml").write_text(text)
    assert main(["lint", "typo.yaml", "--format", "json"]) == 1  # the file's other workload is still linted
    findings = json.loads(capsys.readouterr().out)["findings"]
    [sw004] = [f for f in findings if f["code"] == "SW004"]
    assert (sw004["file"], sw004["line"], sw004["level"]) == ("typo.yaml", 21, "advisory")
    assert sw004["message"] == (
        "SW004: shardwise does not know the model: 'meta-llama/Llama-3.1-8B-Instrukt' is not in the catalog; "
        "did you mean: meta-llama/Llama-3.1-8B-Instruct, meta-llama/Llama-3.2-1B-Instruct, "
        "meta-llama/Meta-Llama-3-8B-Instruct?; SW101, SW102, SW103, SW104, SW106, SW203 could not run on it"
    )
    mine = [f["code"] for f in findings if f["subject"] == sw004["subject"]]
    assert not {"SW101", "SW102", "SW103", "SW104", "SW106", "SW203"} & set(mine), mine
    assert {f["subject"] for f in findings if f["code"] == "SW104"} == {"StatefulSet serving/llama70b-tp4-pp2"}


def test_plan_prices_the_smallest_instance_that_holds_a_replica(capsys):
    """An 8B on L4 for 32 sequences of 2,048 tokens: one-GPU replicas are billed as g6.xlarge (0.8048 USD/hour), not
    an eighth of a g6.48xlarge (1.67 USD per GPU-hour); TP1 × PP2 on a 4-GPU g6.12xlarge (4.6016). The four g6.xlarge
    (3.22 an hour) are recommended: the bill ranks the layouts that hold the load, not the GPUs alone."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--concurrency",
                     "32", "--p95-context", "2048", "--max-model-len", "8192", "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert rc == 0
    assert [(r["layout"], r["replicas"], r["nodes"], r["instance_type"], r["usd_per_hour"], r["no_price"])
            for r in d["for_the_load"]] == [
        ("TP1", 4, 4, "g6.xlarge", 3.22, None), ("TP1 × PP2", 1, 1, "g6.12xlarge", 4.6, None)]
    assert d["recommended"]["tensor_parallel_size"] == 1 and d["recommended"]["pipeline_parallel_size"] == 1


@pytest.mark.parametrize("gpu,why,tokens", [
    # nothing is priced, so nothing is said of the cost per token
    ("MI300X", "the catalog has no instance type with MI300X GPUs (none is sold on-demand on AWS)", ""),
    ("GB200", "p6e-gb200.36xlarge has no public us-east-1 on-demand price in the catalog", ""),
])
def test_plan_says_why_a_layout_has_no_price(capsys, gpu, why, tokens):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", gpu, "--concurrency",
                     "32", "--p95-context", "2048", "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert rc == 0
    assert [(r["usd_per_hour"], r["no_price"]) for r in d["for_the_load"]] == [(None, why)] * len(d["for_the_load"])
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", gpu, "--concurrency",
                     "32", "--p95-context", "2048", "--vllm-version", "0.11.0")
    assert f"  no price: {why}{tokens}" in out.splitlines()


def test_plan_blames_the_models_limit_for_an_impossible_length(capsys):
    """Llama-3.1-8B allows 131,072 tokens (max_position_embeddings): a longer --max-model-len is refused by vLLM on any
    GPU, and a longer p95 context is rejected per request: plan says the model's limit, not 'a GPU with more memory'."""
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--max-model-len",
                     "200000", "--vllm-version", "0.11.0")
    assert rc == 2
    assert ("--max-model-len 200,000 is above the model's limit: meta-llama/Llama-3.1-8B-Instruct allows 131,072 tokens "
            "(max_position_embeddings 131,072 in its config.json); vLLM refuses it on any GPU unless "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set") in err
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--p95-context",
                     "200000", "--vllm-version", "0.11.0")
    assert rc == 2
    assert "--p95-context 200,000 is above the model's limit: meta-llama/Llama-3.1-8B-Instruct allows 131,072" in err
    # a p95 context above a shorter --max-model-len is refused too (plancases25: it was judged at max_model_len with
    # a note, and lint's SW103 blocks the manifest plan would emit)
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1",
                       "--p95-context", "20000", "--max-model-len", "8192", "--vllm-version", "0.11.0")
    assert (rc, out) == (2, "")
    assert "--p95-context 20,000 is above --max-model-len 8,192: vLLM rejects or cuts short longer requests" in err


def test_plan_says_the_weights_do_not_fit_before_the_kv_cache(capsys):
    """DeepSeek-R1 in FP8 on one H100: 628.59 GiB of weights (with the 16-bit kv_b_proj copy MLA keeps, 1.91), more than
    the whole GPU; the weights are the checkpoint's bytes, so the plan says so (and SW101 blocks), not only that no memory is left for the KV cache."""
    rc, out, _ = run(capsys, "plan", "--model", "deepseek-ai/DeepSeek-R1", "--gpu", "H100", "--tp", "1",
                     "--vllm-version", "0.11.0")
    assert rc == 1
    assert ("  starts                      no: weights 628.59 GiB per GPU > 71.27 GiB usable (0.9 × 79.19), more than "
            "the GPU's whole 79.19 GiB") in out.splitlines()
    assert "  SW101 [mandatory] deepseek-ai/DeepSeek-R1 in fp8 needs 628.6 GiB (±12.9) of weights per GPU" in out


def test_plan_searches_the_lowered_length_where_the_profile_batch_follows_max_model_len(capsys):
    """vLLM 0.7.0 (V0) turns chunked prefill on only above 32,768 tokens; below, max_num_batched_tokens is
    max_model_len and the profile run grows with it. DeepSeek-R1-Distill-Llama-8B on one A10G (the ai-on-eks blueprint
    runs it there at 8,192 tokens, plan case eks-r1-distill-llama8b-a10g-p95): sized at its 131,072 tokens (a 2,048-token
    profile) 29,328 fit, but at 28,672 the profile takes 2.5 GiB more and nothing fits, so TP1 × PP2 was recommended.
    The length is bisected between the p95 context and that first try: 14,336 fits one 8k sequence beyond the band."""
    rc, out, _ = run(capsys, "plan", "--model", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "--gpu", "A10G",
                     "--p95-context", "8192", "--vllm-version", "0.7.0", "--json")
    d = json.loads(out)
    rec = d["recommended"]
    assert (rc, rec["tensor_parallel_size"], rec["pipeline_parallel_size"], rec["max_model_len"],
            rec["max_model_len_lowered"], rec["sequences_per_replica"]) == (0, 1, 1, 14336, True, 1)
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["max_model_len"], c["sequences_per_replica"],
             c["mandatory"]) for c in d["candidates"]][:2] == [(1, 1, 14336, 1, []), (1, 2, 131072, 20, [])]


def test_plan_lowers_max_model_len_on_one_gpu_before_sharding_for_a_declared_p95_context(capsys):
    """Llama-3.1-8B on one L4 (22 GiB): its 15.0 GiB of weights × 1.4 exceed the 20.2 GiB vLLM may use, so the rule
    of thumb says two GPUs; but with a p95 context of 2,048 tokens declared, one L4 at a --max-model-len of what its
    KV cache holds serves 13 such sequences beyond the error band: the doctrine lowers the length before it shards
    (TP1 × PP2 was recommended). Without a p95 context the KV actually left judges too (6.0 GiB × ¼ beyond the
    band is room): one L4 at the same lowered length, holding one sequence of it (TP1 × PP2 was recommended)."""
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--p95-context",
                     "2048", "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    assert rc == 0
    rec = d["recommended"]
    assert (rec["tensor_parallel_size"], rec["pipeline_parallel_size"], rec["max_model_len"],
            rec["max_model_len_lowered"], rec["sequences_per_replica"]) == (1, 1, 26624, True, 13)
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["sequences_per_replica"], c["roomy"],
             c["mandatory"]) for c in d["candidates"]] == [
        (1, 1, 13, True, []), (1, 2, 86, True, []), (1, 4, 224, False, ["SW104"]), (1, 8, 500, False, ["SW104"])]
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                     "--vllm-version", "0.11.0", "--json")
    d = json.loads(out)
    rec = d["recommended"]
    assert (rc, rec["tensor_parallel_size"], rec["pipeline_parallel_size"], rec["max_model_len"],
            rec["max_model_len_lowered"], rec["sequences_per_replica"]) == (0, 1, 1, 26624, True, 1)


def test_plan_lowers_max_model_len_for_room_where_the_profile_batch_follows_it(capsys):
    """Plan case sky-qwen25-7b-a10g-p95-1k (SkyPilot's Qwen2.5-7B task on one A10G at 1,024 tokens, vLLM 0.6.1.post2):
    in V0 the profile run's batch is max_model_len, so the longest length that starts (20,480: 2.83 GiB of KV, 1.19 GiB
    beyond the error band against a quarter-reserve of 1.42) leaves no room for a KV cache while a shorter one does; plan recommended TP1 × PP2. Without
    a declared load the lowering now looks for the longest length with room (capacity.layout.serves): 18,432 tokens,
    28 sequences of the p95 context beyond the band, on one GPU."""
    rc, out, _ = run(capsys, "plan", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A10G", "--p95-context", "1024",
                     "--vllm-version", "0.6.1.post2", "--json")
    d = json.loads(out)
    rec = d["recommended"]
    assert (rc, rec["tensor_parallel_size"], rec["pipeline_parallel_size"], rec["max_model_len"],
            rec["max_model_len_lowered"], rec["sequences_per_replica"]) == (0, 1, 1, 18432, True, 28)
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["max_model_len"], c["sequences_per_replica"],
             c["roomy"], c["mandatory"]) for c in d["candidates"]] == [
        (1, 1, 18432, 28, True, []), (1, 2, 32768, 200, True, []), (1, 4, 32768, 628, False, ["SW104"]),
        (1, 8, 32768, 1400, False, ["SW104"])]
    # with a declared load the layouts are ranked on what they hold of it, as before: the longest length that starts
    rc, out, _ = run(capsys, "plan", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A10G", "--p95-context", "1024",
                     "--concurrency", "20", "--vllm-version", "0.6.1.post2", "--json")
    d = json.loads(out)
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["max_model_len"])
            for c in d["candidates"]][:1] == [(1, 1, 20480)]


# --- `lint PATH...` without options: read without argparse ----------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["lint", "deploy.yaml"],
    ["lint", "-"],
    ["lint", "a.yaml", "manifests/", "-", "name with spaces.yaml", "lint", "x=y", "@file"],
    ["lint", "--format", "json", "a.yaml"],
    ["lint", "a.yaml", "-o", "out"],
    ["lint", "a.yaml", "--no-color"],
    ["lint", "m/", "--format", "json", "--output", "/dev/null"],
    ["lint", "--format=sarif=out.sarif", "--format", "github", "--format", "text=-", "a.yaml", "b.yaml"],
    ["lint", "--jobs", "2", "-j", " 3 ", "--fail-on", "advisory", "--fail-on=mandatory", "a", "--jobs=1"],
    ["lint", "--output", "a.yaml", "b.yaml", "--output=c", "--no-color", "--no-color"],
])
def test_a_plain_lint_line_reads_as_the_parser_reads_it(argv):
    from shardwise.rules.app.cli import _plain_lint, build_parser

    plain = _plain_lint(argv)
    parsed = build_parser("lint").parse_args(argv)
    assert plain is not None and vars(plain) == vars(parsed)
    assert list(vars(plain)) == list(vars(parsed))  # every option, none more, in the parser's order
    again = _plain_lint(argv)
    assert again.exclude is not plain.exclude and again.model_dir is not plain.model_dir  # fresh lists


@pytest.mark.parametrize("argv", [
    [], ["lint"], ["lint", "--", "-a.yaml"], ["lint", "-x"], ["lint", "--help"], ["plan", "a"], ["--version"],
    ["lin", "a.yaml"], ["lint", "a.yaml", "-1"], ["lint", "--format", "json"], ["lint", "--no-color"],
    # paths on both sides of an option (argparse: unrecognized arguments)
    ["lint", "a.yaml", "--format", "json", "b.yaml"], ["lint", "a.yaml", "--no-color", "b.yaml"],
    # abbreviations, attached values, options the fast path does not read
    ["lint", "--form", "json", "a"], ["lint", "a", "-ojson"], ["lint", "a", "-o=x"], ["lint", "a", "-j2"],
    ["lint", "a", "--exclude", "b"], ["lint", "a", "--baseline", "b"], ["lint", "a", "--config", "c"],
    ["lint", "a", "--no-color=yes"], ["lint", "a", "--NO-COLOR"],
    # values argparse refuses or reads otherwise
    ["lint", "a", "--format", "nope"], ["lint", "a", "--format", "json="], ["lint", "a", "--format="],
    ["lint", "a", "--format"], ["lint", "a", "--format", "-"], ["lint", "a", "--format", "--no-color"],
    ["lint", "a", "-o", "-"], ["lint", "a", "--output", ""], ["lint", "a", "--output="],
    ["lint", "a", "--jobs", "0"], ["lint", "a", "--jobs", "257"], ["lint", "a", "--jobs", "two"],
    ["lint", "a", "-j", "-1"], ["lint", "a", "--fail-on", "info"], ["lint", "a", "--fail-on"],
    # an empty path: argparse's usage error (hostile7)
    ["lint", "a.yaml", ""], ["lint", ""],
])
def test_any_other_line_goes_to_the_parser(argv):
    from shardwise.rules.app.cli import _plain_lint

    assert _plain_lint(argv) is None


def test_every_short_lint_line_the_fast_path_reads_reads_as_the_parser_reads_it():
    """Every line of up to four words after ``lint`` from a vocabulary of paths, options and values: where
    :func:`_plain_lint` reads the line, argparse reads it to the same namespace (and does not refuse it)."""
    import contextlib
    import io
    import itertools

    from shardwise.rules.app.cli import _plain_lint, build_parser

    parser = build_parser("lint")
    words = ["a", "-", "--format", "json", "sarif=s", "--no-color", "-o", "-j", "2", "0", "--fail-on", "advisory",
             "--output=o", "--format=github", "--", "--form"]
    read = 0
    for n in range(1, 5):
        for rest in itertools.product(words, repeat=n):
            argv = ["lint", *rest]
            plain = _plain_lint(argv)
            if plain is None:
                continue
            read += 1
            with contextlib.redirect_stderr(io.StringIO()):
                try:
                    parsed = parser.parse_args(argv)
                except SystemExit:
                    parsed = None
            assert parsed is not None and vars(plain) == vars(parsed), argv
    assert read == 9842


def test_a_plain_lint_imports_no_argparse(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text((FIXTURES / "rules" / "SW104" / "fail.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    code = ("import sys\nfrom shardwise.rules.app.cli import main\n"
            f"rc = main(['lint', {str(one)!r}])\n"
            "print(rc, sorted(m for m in ('argparse', 'gettext', 'locale') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.splitlines()[-1] == "1 []"


# --- abbreviations (adopt19) ----------------------------------------------------------------------------------------


def test_every_parser_and_subparser_refuses_abbreviations():
    """argparse's prefix matching is off in the top-level parser and in every command's (they are made of its
    class), so a prefix that is whole today cannot name another option tomorrow."""
    import argparse

    from shardwise.rules.app.cli import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert parser.allow_abbrev is False
    assert sorted(name for name, p in sub.choices.items() if p.allow_abbrev is not False) == []
    assert len(sub.choices) >= 6  # lint, diff, plan, rules, explain, docs, policy-pack-dir


@pytest.mark.parametrize(("argv", "said"), [
    # adopt19: `diff main --base ''` ran as `--baseline ''` (argparse read the prefix), and --baseline '' then read
    # the current directory as the baseline file
    (["diff", "HEAD", "--base", ""], "unrecognized arguments: --base ; --base is not an option (shardwise takes no "
                                     "abbreviations): write --baseline"),
    (["lint", "a.yaml", "--fail", "none"], "unrecognized arguments: --fail none; --fail is not an option (shardwise "
                                           "takes no abbreviations): write --fail-on"),
    (["lint", "a.yaml", "--form=json"], "unrecognized arguments: --form=json; --form is not an option (shardwise "
                                        "takes no abbreviations): write --format"),
    (["lint", "a.yaml", "--create", "b.json"], "unrecognized arguments: --create b.json; --create is not an option "
                                               "(shardwise takes no abbreviations): write --create-baseline"),
    # another error first: the abbreviation is still named
    (["plan", "--mod", "x"], "the following arguments are required: --model; --mod is not an option (shardwise "
                             "takes no abbreviations): write --model"),
    # a word that begins no option is left as argparse says it, and so is one that begins every option (the hostile
    # sweep's plan-engine-arg-16; argparse's prefix matching called it "ambiguous option: --=1 could match --help,
    # --version")
    (["lint", "a.yaml", "--bogus"], "unrecognized arguments: --bogus"),
    (["plan", "--model", "x", "--engine-arg", "--=1"], "argument --engine-arg: expected one argument"),
    # newuser9: nothing named at all says what to name, not argparse's "the following arguments are required"
    ([], "no command given; name one of lint, diff, plan, rules, explain, policy-pack-dir, docs (`shardwise --help` "
         "says what each does; `shardwise lint .` lints this folder)"),
    (["lint"], "no PATH given; name what to lint: files or folders (`shardwise lint .` for this folder), or - for "
               "standard input"),
    (["lint", "--fail-on", "none"], "no PATH given; name what to lint: files or folders (`shardwise lint .` for this "
                                    "folder), or - for standard input"),
    (["diff"], "no BASE_REF given; name the git ref to compare the working tree with (`shardwise diff main deploy/`)"),
])
def test_an_abbreviated_option_is_a_usage_error_that_names_the_option(work, capsys, argv, said):
    write(work / "a.yaml", "a: 1\n")
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, "")
    assert err.splitlines()[-1].endswith(f"error: {said}")


def test_full_option_names_still_parse(work, capsys):
    write(work / "a.yaml", "a: 1\n")
    rc, out, _ = run(capsys, "lint", "a.yaml", "--fail-on", "none", "--format=json")
    assert rc == 0
    assert json.loads(out)["summary"]["fail_on"] == "none"
