"""The console script (``cli.console_main``) ends the process without the interpreter's teardown: what it
prints, writes and exits with must be what :func:`main` gives, and the exit handlers must still run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repo_paths import FIXTURES

FAIL = FIXTURES / "rules" / "SW104" / "fail.yaml"
PASS = FIXTURES / "rules" / "SW104" / "pass.yaml"
PASSES = FIXTURES / "rules" / "SW105" / "pass.yaml"  # no blocking finding of any rule: exit 0


def _run(args: list[str], entry: str, cwd: str, extra: str = "") -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"from shardwise.rules.app.cli import {entry}\n"
        f"{extra}"
        f"sys.argv = ['shardwise', *{args!r}]\n"
        f"sys.exit({entry}())\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def test_console_main_prints_and_exits_as_main_does(tmp_path):
    for args in (["lint", str(FAIL)], ["lint", str(PASS)], ["lint", str(FAIL), "--format", "json"],
                 ["lint", str(tmp_path / "missing.yaml")], ["lint", "--no-such-flag"], ["--version"]):
        fast = _run(args, "console_main", str(tmp_path))
        slow = _run(args, "main", str(tmp_path))
        assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr), args
    assert _run(["lint", str(FAIL)], "console_main", str(tmp_path)).returncode == 1
    assert _run(["lint", str(tmp_path / "missing.yaml")], "console_main", str(tmp_path)).returncode == 2


def test_console_main_runs_the_exit_handlers_and_writes_whole_reports(tmp_path):
    report = tmp_path / "out.json"
    extra = "import atexit\natexit.register(lambda: print('handler ran', flush=True))\n"
    p = _run(["lint", str(FAIL), "--format", "json", "--output", str(report)], "console_main", str(tmp_path), extra)
    assert p.returncode == 1
    assert p.stdout == "handler ran\n"
    assert [f["code"] for f in json.loads(report.read_text(encoding="utf-8"))["findings"]].count("SW104") >= 1


def test_console_main_leaves_a_live_thread_to_the_interpreter(tmp_path):
    """A thread still running (none does in a lint; a caller's might) is joined by a normal exit, not cut off: this
    one waits for the main thread's end, which only the interpreter's own shutdown brings."""
    extra = ("import threading\n"
             "threading.Thread(target=lambda: (threading.main_thread().join(), print('thread done', flush=True)))"
             ".start()\n")
    p = _run(["lint", str(PASS)], "console_main", str(tmp_path), extra)
    assert (p.returncode, p.stdout.splitlines()[-1]) == (1, "thread done")


def test_console_main_keeps_the_report_to_the_end_and_main_does_not(tmp_path):
    """The console script keeps the lint's report alive until the process ends (it ends by ``os._exit``, so freeing
    the inventory object by object is work for nothing: about 0.03 s of CPU after 2,000 files); an in-process
    :func:`main` keeps nothing."""
    extra = ("import atexit\nimport shardwise.rules.app.cli as cli\n"
             "atexit.register(lambda: print([type(x).__name__ for x in cli._KEPT or ()], flush=True))\n")
    args = ["lint", str(FAIL), "--format", "json", "--output", str(tmp_path / "out.json")]
    p = _run(args, "console_main", str(tmp_path), extra)
    assert (p.returncode, p.stdout) == (1, "['Report']\n")
    p = _run(args, "main", str(tmp_path), extra)
    assert (p.returncode, p.stdout) == (1, "[]\n")


def _run_reader_gone(args: list[str], cwd: str) -> tuple[int, str]:
    """``shardwise ARGS | head -c0``: standard output a pipe whose reader has closed it before anything is written
    (every write is EPIPE; Python ignores SIGPIPE, so it is a BrokenPipeError)."""
    r, w = os.pipe()
    os.close(r)
    code = ("import sys\nfrom shardwise.rules.app.cli import console_main\n"
            f"sys.argv = ['shardwise', *{args!r}]\nsys.exit(console_main())\n")
    try:
        p = subprocess.run([sys.executable, "-c", code], cwd=cwd, stdout=w, stderr=subprocess.PIPE, text=True,
                           timeout=120, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    finally:
        os.close(w)
    return p.returncode, p.stderr


def test_a_reader_that_leaves_early_changes_no_exit_status_and_gets_no_traceback(tmp_path):
    """A closed pipe on standard output (``| head``) is the reader's choice, not the command's failure: the run stops
    writing there without a word and exits with the status it would have had (on main: 1 for each of these, so a
    passing lint piped into ``head`` under ``set -o pipefail`` read as blocking)."""
    cases = [
        (["lint", str(FAIL)], 1, ""),
        # a report other than text on standard output: the verdict goes to stderr, as it always does
        (["lint", str(FAIL), "--format", "json"], 1, "shardwise: 1 file read, 2 workloads, 4 mandatory findings"),
        (["lint", str(PASSES), "--format", "json"], 0, "shardwise: 1 file read, "),
        (["lint", str(PASSES)], 0, ""),
        (["rules"], 0, ""),
        (["rules", "--format", "json"], 0, ""),
        (["explain", "SW104"], 0, ""),
        (["plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"], 0, ""),
    ]
    for args, rc, said in cases:
        got_rc, stderr = _run_reader_gone(args, str(tmp_path))
        assert (got_rc, stderr[:len(said)]) == (rc, said), (args, stderr)
        assert "Traceback" not in stderr and "BrokenPipe" not in stderr and "Exception ignored" not in stderr, args
        if not said:
            assert stderr == "", (args, stderr)
