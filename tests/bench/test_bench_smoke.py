"""A small run of each benchmark script, as the CI runs it: the scripts still run end to end and print
their figure lines, so that a change that doubles the cost shows in the log. A benchmark, not a timed
test: nothing here compares a time with a threshold."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from repo_paths import ROOT

pytestmark = pytest.mark.slow


def _run(args: list[str]) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    print(done.stdout)  # the figures, in the CI's log
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_bench_lint_prints_its_figures(tmp_path):
    out = _run(["benchmarks/bench_lint.py", "--n", "200", "--runs", "1", "--cold-runs", "1", "--skip-checkov",
                "--skip-kube-linter", "--out", str(tmp_path)])
    assert re.search(r"^  -> [0-9.]+ files/s \(best [0-9.]+ s\)$", out, re.M), out
    assert re.search(r"^  -> in-process [0-9.]+ files/s warm, [0-9.]+ files/s first call;", out, re.M), out
    # the floor (the YAML reader's parse alone) and how far above it the lint is; the profile's top lines
    assert re.search(r"^  floor: the compiled YAML reader's parse of the 200 files alone: [0-9.]+ s CPU .*; the whole "
                     r"lint \(new process, least CPU\) [0-9.]+ s is [0-9.]+x the floor, -?[0-9.]+ s above it", out, re.M), out
    assert re.search(r"^  by own time:\n +ncalls +tottime", out, re.M), out
    # the cold start in CPU time too (what a busy machine changes least)
    assert re.search(r"^  in CPU time \(user \+ system, medians\): [0-9.]+ s, -?[0-9.]+ s above `python -c pass` "
                     r"\([0-9.]+ s\)$", out, re.M), out
    assert re.search(r"^  by cumulative time:\n +ncalls +tottime", out, re.M), out
    assert (tmp_path / "bench_lint.json").is_file()


def test_bench_pack_prints_its_figures():
    out = _run(["benchmarks/bench_pack.py", "--resources", "200", "--runs", "1"])
    assert re.search(r"^AnalyzeStack over 200 resources, \d+ policies:$", out, re.M), out
    assert re.search(r"^  best [0-9.]+ s, median [0-9.]+ s of 1 \(goal < 0.5 s: (met|NOT met)\); the pack's CPU "
                     r"time: median [0-9.]+ s$", out, re.M), out
    assert re.search(r"^Analyze per resource: median [0-9.]+ ms, p95 [0-9.]+ ms, max [0-9.]+ ms", out, re.M), out
    # the profile's top lines, so that a regression shows its cause in the log
    assert re.search(r"^== cProfile of one AnalyzeStack in the pack \(top 12 by cumulative time\) ==$", out, re.M), out
    assert re.search(r"^== cProfile of Analyze over the 200 resources in the pack", out, re.M), out
    assert re.search(r"\d+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ policy\.py:\d+\(AnalyzeStack\)$", out, re.M), out


def test_bench_grpc_transport_prints_its_figures():
    out = _run(["benchmarks/bench_grpc_transport.py", "--calls", "100", "--runs", "1", "--variant", "generic",
                "--variant", "refused", "--variant", "aio-refused", "--variant", "h2-floor", "--variant", "own",
                "--variant", "own-refused",
                "--option", "grpc.http2.bdp_probe=0",
                "--pause", "1"])
    assert re.search(r"^grpcio [0-9.]+, 100 calls of 2000 bytes, 1 runs each, server environment as this one, server "
                     r"options beside pulumi-policy's: grpc\.http2\.bdp_probe=0; 1 ms between calls; load [0-9.]+$",
                     out, re.M), out
    for variant in ("generic", "refused", "aio-refused"):
        assert re.search(rf"^  {variant} +server CPU a call: min [0-9.]+ ms, median [0-9.]+ ms; voluntary context "
                         r"switches a call: median [0-9.]+; CPU a call by thread, medians: "
                         r"(?:[\w.-]+ [0-9.]+, )*event_engine [0-9.]+(?:, [\w.-]+ [0-9.]+)+ ms \(\d+ s\)$", out, re.M), out
    # the floor's server is one thread of the interpreter, which grpcio's core never serves from
    # so is the pack's own transport's (served and refused calls alike)
    for variant in ("h2-floor", "own", "own-refused"):
        assert re.search(rf"^  {variant} +server CPU a call: min [0-9.]+ ms, median [0-9.]+ ms; voluntary context "
                         r"switches a call: median [0-9.]+; CPU a call by thread, medians: [\w.-]+ [0-9.]+ ms \(\d+ s\)$",
                         out, re.M), out


def test_bench_grpc_transport_native_floor_and_a_resources_pair():
    """``native-floor`` (the floor's loop in Rust, ``benchmarks/h2_floor.rs``, built with ``rustc``: its process has
    one thread, named after the binary) where ``rustc`` is found, else said skipped; ``own-pair`` (a refused
    ``Remediate`` and a served ``Analyze`` a resource) on the pack's transport, one interpreter thread."""
    import shutil

    out = _run(["benchmarks/bench_grpc_transport.py", "--calls", "50", "--runs", "1", "--variant", "native-floor",
                "--variant", "own-pair", "--pause", "1"])
    line = r" +server CPU a call: min [0-9.]+ ms, median [0-9.]+ ms; voluntary context switches a call: median [0-9.]+; "
    if shutil.which("rustc") or (ROOT / "bench-out" / "h2_floor").exists():
        assert re.search(rf"^  native-floor{line}CPU a call by thread, medians: h2_floor [0-9.]+ ms \(\d+ s\)$",
                         out, re.M), out
    else:
        assert "native-floor skipped: rustc could not build" in out, out
    assert re.search(rf"^  own-pair{line}CPU a call by thread, medians: [\w.-]+ [0-9.]+ ms \(\d+ s\)$", out, re.M), out


def test_replay_pack_through_the_own_transport_answers_as_the_handlers(tmp_path):
    """``replay_pack.py --in-process --wire`` (the pack's own transport fed bytes as grpc-go frames them) reads back
    the answers the handlers give without it (``--in-process``): the same digest over a synthesized recording."""
    recording = tmp_path / "requests.jsonl"
    _run(["benchmarks/replay_pack.py", "--synthesize", str(recording), "--resources", "20"])
    digests = []
    for extra in ([], ["--wire"]):
        out = _run(["benchmarks/replay_pack.py", str(recording), "--in-process", *extra])
        assert re.search(r"^  Analyze: [0-9.]+ s CPU over 22 calls \([0-9.]+ ms a call\)$", out, re.M), out
        found = re.search(r"^  answers: sha256 ([0-9a-f]{64})$", out, re.M)
        assert found, out
        digests.append(found.group(1))
    assert "through its own transport over 22 resources" in out
    assert digests[0] == digests[1]


def test_replay_pack_started_as_the_launchers_start_it_answers_as_the_hosts_start(tmp_path):
    """``replay_pack.py`` starts the pack as the launchers do (``-m shardwise.rules.app.packstart``), ``--host-start``
    as the language host does (``-m pulumi.policy``): the same answers over a synthesized recording."""
    recording = tmp_path / "requests.jsonl"
    _run(["benchmarks/replay_pack.py", "--synthesize", str(recording), "--resources", "20"])
    digests = []
    for extra in ([], ["--host-start"]):
        out = _run(["benchmarks/replay_pack.py", str(recording), *extra])
        assert re.search(r"^the pack over 22 resources \(requests\.jsonl\): [0-9.]+ s CPU; start-up [0-9.]+ s", out,
                         re.M), out
        found = re.search(r"^  answers: sha256 ([0-9a-f]{64})$", out, re.M)
        assert found, out
        digests.append(found.group(1))
    assert digests[0] == digests[1]


def test_replay_pack_names_what_a_pack_that_does_not_exit_waits_in(monkeypatch):
    """``replay_pack.py``'s stop (``interrupt``): the CPU, status and seconds of a process that exits on ``SIGINT``;
    ``None`` for one that does not, whose threads ``_threads_state`` then names (name, state, wait channel)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import replay_pack

    ignoring = ("import signal, threading, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                "threading.Thread(target=time.sleep, args=(60,), daemon=True).start(); print(flush=True); "
                "time.sleep(60)")
    for code, exits in ((ignoring, False), ("import time; print(flush=True); time.sleep(60)", True)):
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert proc.stdout is not None
            proc.stdout.readline()  # started, the signal's disposition set
            stopped = replay_pack.interrupt(proc, timeout=1.0 if exits else 0.3)
            if exits:
                assert stopped is not None and stopped[1] == -2, stopped  # ended by SIGINT (an uncaught KeyboardInterrupt)
            else:
                assert stopped is None
                states = replay_pack._threads_state(proc.pid)
                assert len(states) == 2, states
                assert all(re.fullmatch(r"\S+ [RS] \S+", s) for s in states), states
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
