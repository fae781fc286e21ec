"""The hostile-input sweep of ``benchmarks/hostile_sweep.py`` (hostile5): every class it builds (YAML bombs,
bytes that are not UTF-8, links, FIFOs and sockets, values of the wrong type, broken config files, odd
environments, ``plan`` options and ``--engine-arg`` garbage) ends with the exit status and the words recorded in
tests/fixtures/hostile/sweep.expected.json, never a hang, a traceback or a silent pass.

Regenerate the record after a deliberate change of wording, and read its diff::

    .venv/bin/python benchmarks/hostile_sweep.py --write tests/fixtures/hostile/sweep.expected.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from repo_paths import ROOT
from shardwise.rules.model.wall import wall_limit

RECORD = ROOT / "tests" / "fixtures" / "hostile" / "sweep.expected.json"


@pytest.mark.slow  # about 150 runs of the CLI as their own processes: a minute or two
def test_every_hostile_class_ends_as_recorded():
    # each case has its own load-scaled deadline (deadline_for); the whole sweep's 1800 s, fifteen times an idle
    # run, only catches the harness itself hung, and grows with the load per core as they do (loadlimits1)
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hostile_sweep.py"), "--check", str(RECORD)],
                       capture_output=True, text=True, timeout=wall_limit(1800), cwd=ROOT)
    totals = json.loads(r.stdout.splitlines()[-1])
    assert totals["failures"] == [], r.stdout
    assert r.returncode == 0
    # the record holds every case but those root skips (a file's mode binds no root); the chart and kustomize cases
    # skipped where helm or kustomize is not built are in it
    assert totals["cases"] == len(json.loads(RECORD.read_text(encoding="utf-8"))) + totals["skipped"] \
        - totals["skipped_no_tool"]
    if totals["skipped_no_tool"] and os.environ.get("SHARDWISE_REQUIRE_TOOLS") != "1":
        pytest.skip(f"{totals['skipped_no_tool']} chart and kustomize cases skipped: helm or kustomize not built "
                    "(scripts/build-tools.sh); the others end as recorded")


def test_the_record_holds_every_class_the_task_names():
    """The record is the sweep's: a class dropped from the script (or never written) fails here, not silently."""
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    for prefix in ("yaml-alias-bomb", "yaml-deep-", "yaml-huge-scalar", "bytes-binary", "bytes-invalid-utf8",
                   "bytes-utf16le-bom", "bytes-nul-", "bytes-crlf", "bytes-mixed-line-ends", "yaml-duplicate-key",
                   "yaml-merge-key", "yaml-python-tag", "yaml-custom-tag", "yaml-multidoc-junk", "json-manifest",
                   "helm-unrendered", "fs-symlink-loop", "fs-symlink-dangling", "fs-socket", "fs-fifo",
                   "fs-device-", "fs-dir-named-yaml", "fs-long-path", "type-image-float", "type-replicas-string",
                   "type-gpu-", "type-memory-", "plan-engine-arg-", "env-", "config-", "plan-version-newer",
                   "lint-image-tag-newer", "plan-model-control-char", "plan-model-not-utf8", "plan-option-newline",
                   "plan-base-model-unused",
                   # fuzz22: hostile repositories through lint PATH, lint - and diff
                   "fz22-char-device-node", "fz22-sparse-2gib", "fz22-file-growing-", "fz22-folder-chain-10000",
                   "fz22-kustomize-includes-", "fz22-shardwiseignore-odd-globs", "fz22-stdin-closed", "fz22-diff-",
                   # fuzz23: alias bombs where helm and kustomize read, a chart its own dependency, resources out of
                   # the repository, 50 MB values, a .git file pointing nowhere, 20,000 files in one folder, a stack
                   # export with a cycle or nested a million deep, a stack config not UTF-8, and the pack's cycles and
                   # deep properties
                   "fz23-values-file-alias-bomb", "fz23-kustomization-alias-bomb", "fz23-chart-depends-on-itself",
                   "fz23-kust-resources-dotdot", "fz23-values-file-50mb", "fz23-diff-git-file-nowhere",
                   "fz23-20000-files-one-folder", "fz23-stack-export-parent-cycle", "fz23-stack-export-lists-1e6-deep",
                   "fz23-stack-config-latin1-", "pack-fz23-parent-cycle", "pack-fz23-nested-4000",
                   # fuzz24: what helm and kustomize would read, read here first; a command of 100,000 here-documents
                   "fz24-kust-patch-alias-bomb", "fz24-kust-resource-sparse-2gib", "fz24-kust-resource-socket",
                   "fz24-chart-template-sparse-2gib", "fz24-heredoc-100k-operators-one-command",
                   # fuzz25: packed subcharts (a gzip bomb, nested 50 deep, entries out of the chart, links and FIFOs)
                   # and a subchart's broken values.yaml, placed at the subchart's own file or archive
                   "fz25-subchart-folder-values-broken", "fz25-packed-gzip-bomb-1gib", "fz25-packed-nested-50-deep",
                   "fz25-packed-entry-dotdot", "fz25-packed-symlink-entry-values", "fz25-packed-fifo-entry-values",
                   # fuzz25: kustomize selector patterns Python's re backtracks on (a long name, 30 optionals, a
                   # quantified group against a generated ConfigMap's name)
                   "fz25-kust-patch-target-", "fz25-kust-replacement-select-", "fz25-kust-not-built-generator-",
                   "fz25-kust-error-path-escapes-github", "fz25-configmap-over-1mib-once-aliases-expand",
                   # fuzz26: Go's other crash shapes at the memory limit, a kustomize path with line breaks, alias
                   # bombs at names helm cleans, 100,000 files in a chart, names over the API server's bound, a Secret
                   # merged, flow and JSON ConfigMaps over 1 MiB
                   "fz26-helm-crash-signal-in-runtime", "fz26-helm-crash-fatalsignal-bare",
                   "fz26-kust-error-path-newline-keeps-start", "fz26-packed-alias-bomb-dot-segment",
                   "fz26-packed-100k-entries", "fz26-chart-folder-12k-templates", "fz26-name-100k-deployment",
                   "fz26-name-64-service", "fz26-secret-data-and-stringdata-keys-apart",
                   "fz26-configmap-flow-2450000-keys", "fz26-configmap-json-1500000-keys"):
        assert any(case.startswith(prefix) for case in record), prefix
    # fuzz26: a signal crash in Go's runtime is said as the memory limit, as the out-of-memory crash is
    assert record["fz26-helm-crash-signal-in-runtime"]["said"].startswith(
        "badchart/Chart.yaml:None: helm template failed: out of memory: shardwise lets helm and kustomize use at most "
        "1024 MiB of memory | ")
    assert record["type-gpu-negative"]["rc"] == 2
    assert record["fz25-packed-gzip-bomb-1gib"]["said"].startswith(
        "badchart/charts/sub.tgz:None: helm template failed: Error: error unpacking subchart sub.tgz in badchart: ")
    assert record["fz25-subchart-folder-values-broken"]["said"].startswith("badchart/charts/sub/values.yaml:2: ")
    # newuser6: an integer field written as a string is refused as the API server refuses it
    assert record["type-replicas-string"]["rc"] == 2
    assert record["type-replicas-string"]["said"].startswith(
        'bad.yaml:8: spec.replicas: expected an integer, found a string ("2"); Kubernetes refuses the object as '
        "written: write the number without quotes (2) | ")
    # hostile6: a release newer than the table says what it is sized as; what was typed is echoed escaped
    assert record["plan-version-newer"]["rc"] == 0
    assert ("; vLLM 0.99.0, newer than the newest release the capacity model knows: sized as 0.34.0 (V1 engine)"
            in record["plan-version-newer"]["said"])
    assert record["plan-opt-12"] == {"rc": 2, "said": (
        "shardwise: error: --vllm-version '99999999999999999999.0.0' is not a vLLM release number (e.g. 0.11.0)")}
    assert record["plan-model-not-utf8"] == {"rc": 2, "said": (
        "shardwise: error: --model 'acme/x\\xffy' is no model id: it holds a byte that is not UTF-8")}
    # review17: a setup error with --format json also prints the JSON document, its input error without a line
    assert record["config-is-a-directory"] == {"rc": 2, "said": (
        "shardwise.toml:None: cannot read config file: it is a directory, not a regular file; shardwise reads only "
        "regular files | shardwise: error: shardwise.toml: cannot read config file: it is a directory, not a regular "
        "file; shardwise reads only regular files")}
    # hostile7: the policy pack's inputs over gRPC, the CLI's git, file names, sizes, counts, --config and
    # environment, and every numeric plan option
    for prefix in ("pack-unknown-string-", "pack-unknown-object-", "pack-unknown-secret-", "pack-unknown-bool-",
                   "pack-unknown-array-", "pack-unknown-number-", "pack-unknown-ciphertext-", "pack-secret-known-",
                   "pack-type-", "pack-null-", "pack-empty-", "pack-nan-", "pack-inf-", "pack-huge-",
                   "pack-duplicate-urn-", "diff-ref-missing", "diff-object-missing", "diff-shallow-clone",
                   "diff-file-deleted", "diff-file-renamed", "diff-submodule", "fs-name-not-utf8", "fs-name-newline",
                   "fs-50mb-file", "fs-one-10mb-line", "fs-20000-small-files", "config-opt-", "env7-", "plan7--"):
        assert any(case.startswith(prefix) for case in record), prefix
    assert record["pack-unknown-secret-privileged"] == {"rc": 1, "said": (
        "m SW309: cannot decide: securityContext.privileged of container `vllm` is not known (a computed value or an "
        "unresolved reference): lint the `pulumi up` state, or write the value as a literal")}
    assert record["pack-null-pod-spec"] == {"rc": 1, "said": (
        "m shardwise: cannot read kubernetes:apps/v1:Deployment `llama-8b`: spec.template.spec: written as null, but "
        "Kubernetes requires a value (the object is rejected); no rule checked it")}
    assert record["config-opt-empty-name"] == {"rc": 2, "said": (
        "shardwise lint: error: argument --config: an empty path names no file or folder")}
    assert record["env7-00-PYTHONIOENCODING"]["rc"] == 1
    assert (  # review17: the error's JSON document follows it (its "input_errors" line)
        "this is a shallow clone, which holds only the history it fetched: fetch the base (git fetch --unshallow, "
        "or actions/checkout with fetch-depth: 0)") in record["diff-shallow-clone"]["said"]
    assert record["plan7--kv-reserve-nan"] == {"rc": 2, "said": (
        "shardwise plan: error: argument --kv-reserve: must be a number from 1 to 10, got nan")}
    # hostile8: YAML as kubectl reads it, special files named directly, stdin, --jobs, the pack's odd numbers and types
    for prefix in ("h8-merge-", "h8-anchor-", "h8-alias-", "h8-recursive-alias", "h8-tag-", "h8-duplicate-",
                   "h8-dashes-in-block-scalar", "h8-bom-second-document", "h8-utf32le-bom", "h8-tab-", "h8-deep-json",
                   "h8-json-nan", "h8-100k-", "h8-key-", "h8-gpu-", "h8-replicas-", "h8-env-value-", "h8-path-",
                   "h8-symlink-", "h8-fifo-", "h8-socket-named", "h8-dev-", "h8-folder-of-50000", "h8-stdin-",
                   "h8-jobs-", "pack-h8-nan-", "pack-h8-inf-", "pack-h8-100k-", "pack-h8-type-", "pack-h8-stack-20000"):
        assert any(case.startswith(prefix) for case in record), prefix
    # a time or a date is text to kubectl (goyaml.v2): was an input error "found a number (750)"
    assert record["h8-env-value-time"]["rc"] == 0 and record["h8-arg-time"]["rc"] == 0
    assert record["h8-port-sexagesimal"]["said"].startswith(
        'bad.yaml:13: spec.template.spec.containers[0].ports[0].containerPort: expected an integer, found a string '
        '("2:13"); Kubernetes refuses the object as written | ')
    assert record["h8-bom-second-document"]["said"].startswith("shardwise: 2 files read, 3 workloads, ")
    assert record["h8-path-same-file-twice"]["said"].startswith("shardwise: 2 files read, 2 workloads, 1 mandatory finding")
    assert record["h8-stdin-endless"]["said"].startswith(
        "<stdin>:None: not read: the input is larger than 32 MiB, the most shardwise reads from one file | ")
    assert record["h8-jobs-zero"] == {"rc": 2, "said": (
        "shardwise lint: error: argument --jobs/-j: must be an integer from 1 to 256, got 0")}
    assert record["pack-h8-nan-replicas"] == {"rc": None, "said": (
        "RPC failed: UNKNOWN: Exception calling application: shardwise: cannot read kubernetes:apps/v1:Deployment "
        "`llama-8b`: spec.replicas is NaN: a number that is not finite, which JSON cannot hold and no Kubernetes or "
        "AWS field")}
    # hostile9: the readers the sweep covered least (charts, --values, kustomizations, Pulumi JSON, config files,
    # ignore annotations, baselines), text encodings, the CLI's outputs and the pack's policy config
    for prefix in ("h9-chart-", "h9-values-", "h9-template-", "h9-values-file-", "h9-kust-", "h9-preview-", "h9-state-",
                   "h9-config-", "h9-ignore-", "h9-baseline-", "h9-diff-baseline-", "h9-utf16", "h9-utf32",
                   "h9-latin1-", "h9-nul-", "h9-lone-surrogate-", "h9-surrogate-pair-json", "h9-10mb-",
                   "h9-million-", "h9-output-", "h9-stdout-closed", "h9-format-", "h9-ctrl-", "pack-h9-config-"):
        assert any(case.startswith(prefix) for case in record), prefix
    # a failing `required` names its template and line (was the chart's Chart.yaml, no line)
    assert record["h9-template-required"]["said"].startswith(
        "badchart/templates/deployment.yaml:8: helm template failed: Error: execution error at "
        "(badchart/templates/deployment.yaml:8:15): replicas is required")
    # an ignore annotation naming no rule is said (was silent); the finding it may have meant stays
    assert "bad.yaml:8: SW001: suppression of SW999 on bad names no shardwise rule" in (
        record["h9-ignore-unknown-code"]["said"])
    assert record["h9-baseline-deep"] == {"rc": 2, "said": (  # review17: the setup error's JSON document too
        "bad-baseline.json:None: --baseline: not a shardwise baseline: JSON nested too deeply; write it with "
        "`shardwise lint --create-baseline bad-baseline.json` | "
        "shardwise: error: bad-baseline.json: --baseline: not a shardwise baseline: JSON nested too deeply; write it "
        "with `shardwise lint --create-baseline bad-baseline.json`")}
    assert record["h9-stdout-closed"] == {"rc": 2, "said": (
        "shardwise: error: standard output is closed: the report cannot be written there (name a file with --output "
        "or --format FMT=FILE)")}
    assert record["h9-output-is-an-input"] == {"rc": 2, "said": (
        "shardwise: error: bad.yaml: not written: it is an input of this run, which the report would replace")}
    assert record["h9-diff-output-missing-folder"]["said"].startswith(
        "shardwise: error: nowhere/bad.json: No such file or directory | ")
    assert record["h9-preview-inputs-list"]["rc"] == 2 and record["h9-surrogate-pair-json"]["rc"] == 0
    # fuzz13: a JSON report on an ASCII or Latin-1 standard output, a Chart.yaml or kustomization file that is no
    # regular file, a FIFO a kustomization builds from (was a 120 s hang)
    for prefix in ("fz13-json-stdout-", "fz13-sarif-stdout-", "fz13-plan-json-stdout-", "fz13-chart-yaml-",
                   "fz13-kustomization-", "fz13-kustomize-base-fifo", "fz13-kustomize-resource-fifo",
                   "fz13-model-dir-config-", "fz13-crd-image-repository"):
        assert any(case.startswith(prefix) for case in record), prefix
    assert record["fz13-kustomize-resource-fifo"]["rc"] == 2
    assert record["fz13-kustomize-resource-fifo"]["said"].startswith(
        "badkust/base/deployment.yaml:None: the kustomization badkust/base/kustomization.yaml is not built: its "
        "resources entry 'deployment.yaml': cannot read: it is a FIFO (named pipe), not a regular file")
    assert record["pack-h9-config-production-string"] == {"rc": None, "said": (
        "Configure failed: UNKNOWN: Exception calling application: shardwise: the policy config cannot be taken: "
        "`vllm-pod-with-host-access`: production is the string 'false'; expected true or false")}


def test_a_progress_line_is_no_part_of_what_a_case_said(tmp_path, monkeypatch, capsys):
    """fuzz21: whether ``--progress`` writes a line depends on the clock (the first once the run is a second old):
    ``fz17-progress-json-on-stdout`` said one more line under load and failed the sweep (load 6), not alone. A slow
    machine is stood in for by the first line due at once: each line but the summary is one the sweep leaves out."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import hostile_sweep
    from shardwise.rules.app.cli import main
    from shardwise.rules.model import progress

    (tmp_path / "good.yaml").write_text(hostile_sweep.good("good"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "FIRST", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    assert main(["lint", "--progress", "--format", "json", "good.yaml"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) >= 2 and err[-1].startswith("shardwise: 1 file read, 1 workload, ")
    assert [line for line in err if not hostile_sweep.PROGRESS_LINE.fullmatch(line)] == err[-1:]
    assert not hostile_sweep.PROGRESS_LINE.fullmatch("shardwise: error: helm template did not finish in 120 s")


def test_the_hang_deadline_grows_with_the_load(monkeypatch):
    """A run that has the CPU a third of the time takes three times as long: judged hung only past the deadline times
    the load per core (a FIFO's hang, which uses no CPU, is still found)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import hostile_sweep

    monkeypatch.setattr(hostile_sweep.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(hostile_sweep.os, "getloadavg", lambda: (6.0, 0.0, 0.0))
    assert (hostile_sweep.deadline_for(0.0), hostile_sweep.deadline_for(30.0)) == (360.0, 1800.0)
    monkeypatch.setattr(hostile_sweep.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert (hostile_sweep.deadline_for(0.0), hostile_sweep.deadline_for(30.0)) == (120.0, 600.0)
