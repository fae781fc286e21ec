"""fuzz16 left open, fuzz17: 100,000 files took ``lint`` 16.3 s with nothing printed until the summary, which a CI
log shows as a silent wait. ``--progress`` (or standard error being a terminal) says on standard error how far the
read has gone; standard output, where a JSON or SARIF report goes, is untouched."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.model import progress

SUMMARY = ("shardwise: 5 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, "
           "0 advisory findings, 0 suppressed — passed")
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: b\n"


def _tree(tmp_path, n: int) -> str:
    d = tmp_path / "many"
    d.mkdir()
    for i in range(n):
        (d / f"c{i:04}.yaml").write_text(CM.format(i=i))
    return str(d)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_progress_goes_to_stderr_and_the_json_report_stays_whole(capsys, monkeypatch, tmp_path, jobs):
    """Serially and in two processes (300 files: past PARALLEL_MIN_FILES), each line says how many of the 300
    files are read; the clock is set so that every file is due."""
    monkeypatch.setattr(progress, "FIRST", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    folder = _tree(tmp_path, 300)
    rc = main(["lint", folder, "--progress", "--format", "json", "--jobs", jobs])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (rc, doc["summary"]["passed"], len(doc["input_errors"])) == (0, True, 0)
    lines = [line for line in err.splitlines() if line.startswith("shardwise: reading inputs:")]
    counts = [int(m.group(1).replace(",", "")) for line in lines
              if (m := re.fullmatch(r"shardwise: reading inputs: ([\d,]+) of 300 files read \(\d+ s\)", line))]
    assert len(counts) == len(lines) > 0
    assert counts == sorted(counts) and counts[-1] < 300
    if jobs == "1":
        assert counts == list(range(300))  # before each file, none skipped: every one is due
    assert progress._current is None  # stopped when the command returns


def test_no_progress_unless_asked_or_on_a_terminal(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(progress, "FIRST", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    rc = main(["lint", _tree(tmp_path, 5), "--format", "json", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert (rc, json.loads(out)["summary"]["passed"]) == (0, True)
    assert err.splitlines() == [SUMMARY]  # the verdict, as without progress


def test_a_short_run_prints_no_progress_and_a_long_one_names_its_steps(capsys, monkeypatch, tmp_path):
    """With the real clock a run under a second prints nothing; a step (a kustomization rendered) is named once the
    run is a second old, before it starts."""
    rc = main(["lint", _tree(tmp_path, 5), "--progress", "--format", "json", "--jobs", "1"])
    assert (rc, capsys.readouterr().err.splitlines()) == (0, [SUMMARY])
    monkeypatch.setattr(progress, "FIRST", 0.0)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "kustomization.yaml").write_text("resources: [c.yaml]\n")
    (tmp_path / "k" / "c.yaml").write_text(CM.format(i=0))
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")  # no kustomize: its error
    monkeypatch.chdir(tmp_path)
    main(["lint", "k", "--progress", "--format", "json", "--jobs", "1"])
    err = capsys.readouterr().err
    assert re.search(r"^shardwise: rendering k with kustomize \(\d+ s\)$", err, re.M), err


def test_progress_as_a_process_leaves_sarif_on_stdout_whole(tmp_path):
    """As a process with its standard streams pipes: the lines on stderr, the SARIF log alone on stdout."""
    code = ("import sys; from shardwise.rules.model import progress; progress.FIRST = progress.EVERY = 0.0; "
            "from shardwise.rules.app.cli import console_main; sys.exit(console_main())")
    proc = subprocess.run([sys.executable, "-c", code, "lint", _tree(tmp_path, 3), "--progress", "--format", "sarif",
                           "--jobs", "1"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["version"] == "2.1.0"
    assert re.findall(r"^shardwise: reading inputs: (\d) of 3 files read", proc.stderr, re.M) == ["0", "1", "2"]
