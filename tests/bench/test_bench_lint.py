"""benchmarks/bench_lint.py's kube-linter half (how it says kube-linter is missing, and the rows it prints) and how it
runs Checkov."""

from __future__ import annotations

import json
import os
import sys

import pytest
from repo_paths import ROOT
from tools_support import find_tool

sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_lint  # noqa: E402  (a script beside the benchmarks, not a package)

MACHINE = {"cores": 2, "cpu": "AMD EPYC", "memory_gib": 23.5, "os": "Linux 6.18", "implementation": "CPython",
           "python": "3.11.7"}


def test_without_kube_linter_the_benchmark_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("SHARDWISE_TOOLS_CACHE", str(tmp_path / "tools"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert bench_lint.find_kube_linter() == (None, (
        f"no kube-linter in {tmp_path / 'tools' / 'bin'} or on PATH; `bash scripts/build-tools.sh` builds v0.8.3 "
        "from the github.com/stackrox/kube-linter module zip (`go install "
        "golang.stackrox.io/kube-linter/cmd/kube-linter@v0.8.3` fails here: the Go module proxy answers 403 "
        "Forbidden for golang.stackrox.io/kube-linter)"))
    md = bench_lint.markdown({"files": 2000, "machine": MACHINE, "kube_linter": {"unavailable": "no binary"}})
    assert md.splitlines()[2] == "| kube-linter: not available (no binary) | 2000 | – | – |"


def test_the_kube_linter_rows_and_ratio():
    results = {
        "files": 2000, "machine": MACHINE, "ratio_kube_linter": 1.46,
        "shardwise": {"best_s": 3.611, "runs_s": [3.704, 3.611, 3.876], "runs_cpu_s": [3.936, 3.861, 3.831],
                      "files_per_s": 553.9},
        "kube_linter": {"best_s": 5.28, "runs_s": [6.543, 5.68, 5.28], "runs_cpu_s": [5.387, 5.562, 5.175],
                        "files_per_s": 378.8, "version": "0.8.3"},
    }
    assert bench_lint.markdown(results).splitlines() == [
        "| tool | files | seconds | files/s |",
        "|---|---:|---:|---:|",
        "| shardwise lint (new process, best of 3) | 2000 | 3.61 | 554 |",
        "| kube-linter 0.8.3 `lint --add-all-built-in --exclude schema-validation` (best of 3) | 2000 | 5.28 | 379 |",
        "",
        "Throughput ratio shardwise / kube-linter: **1.46x** (goal >= 3x: not met; least CPU time of a run: "
        "shardwise 3.83 s, kube-linter 5.17 s).",
        "Machine: 2 cores (AMD EPYC), 23.5 GiB, Linux 6.18, CPython 3.11.7.",
    ]


def test_the_built_kube_linter_reports_a_manifest(tmp_path):
    if find_tool("kube-linter") is None:  # benchmarks only: scripts/build-tools.sh does not require it
        pytest.skip("kube-linter is not built (bash scripts/build-tools.sh)")
    manifest = tmp_path / "m" / "pod.yaml"
    manifest.parent.mkdir()
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
                        "    - name: c\n      image: vllm/vllm-openai:latest\n", encoding="utf-8")
    exe, version = bench_lint.find_kube_linter()
    assert (exe is not None, version) == (True, "0.8.3")
    res = bench_lint.bench_kube_linter(str(exe), str(manifest.parent), 1, 1, str(tmp_path))
    assert (res["exit_code"], res["objects"], res["reports"]) == (1, 1, 16)
    assert sorted(res["by_check"]) == [
        "default-service-account", "dnsconfig-options", "latest-tag", "no-liveness-probe", "no-node-affinity",
        "no-read-only-root-fs", "no-readiness-probe", "non-isolated-pod", "required-annotation-email",
        "required-label-owner", "restart-policy", "run-as-non-root", "sorted-keys", "unset-cpu-requirements",
        "unset-memory-requirements", "use-namespace"]


#: A stand-in for Checkov 3.3.30's directory walk over Kubernetes files: it skips every file whose path holds
#: "/." (checkov/kubernetes/kubernetes_utils.py, should_include_path: "inside a hidden directory"), which a
#: relative path such as ../../tmp/bench/manifests does; it reports one resource per file it kept.
FAKE_CHECKOV = """#!/bin/sh
d="$2"
n=0
for f in "$d"/*.yaml; do case "$f" in */.*) ;; *) n=$((n+1)) ;; esac; done
printf '{"summary": {"passed": %d, "failed": 0, "skipped": 0, "parsing_errors": 0, "resource_count": %d}}' "$n" "$n"
"""


def _fake_checkov(tmp_path):
    exe = tmp_path / "bin" / "checkov"
    exe.parent.mkdir()
    exe.write_text(FAKE_CHECKOV)
    exe.chmod(0o755)
    return str(exe)


def test_checkov_checks_the_manifests_of_an_output_folder_outside_the_repository(tmp_path):
    out = tmp_path / "bench"
    (out / "manifests").mkdir(parents=True)
    for i in range(3):
        (out / "manifests" / f"m{i}.yaml").write_text("kind: Pod\n")
    assert os.path.relpath(out / "manifests", ROOT).startswith("..")  # what the benchmark used to hand Checkov
    exe = os.path.relpath(_fake_checkov(tmp_path))  # as --checkov-venv gives it: relative to where the run started
    res = bench_lint.bench_checkov(exe, str(out / "manifests"), 3, str(out))
    assert "error" not in res
    assert res["summary"]["resource_count"] == 3
    assert res["command"].split()[1:3] == ["-d", "manifests"]
    assert json.loads((out / "checkov-report.json").read_text())["summary"]["resource_count"] == 3


def test_a_checkov_run_that_checked_nothing_is_no_figure(tmp_path):
    out = tmp_path / "bench"
    (out / "manifests").mkdir(parents=True)
    (out / "manifests" / "m0.yaml").write_text("kind: Pod\n")
    exe = _fake_checkov(tmp_path)
    with open(exe, "w") as fh:
        fh.write('#!/bin/sh\necho \'{"summary": {"resource_count": 0}}\'\n')
    res = bench_lint.bench_checkov(exe, str(out / "manifests"), 1, str(out))
    assert res["error"] == "checkov checked no resource in 1 files (see " + os.path.relpath(
        out / "checkov-report.json", ROOT) + ")"
