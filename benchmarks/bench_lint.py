"""Benchmark ``shardwise lint`` against Checkov on generated vLLM manifests.

Run from the repository root (``make bench`` does)::

    .venv/bin/python benchmarks/bench_lint.py [--n 2000] [--skip-checkov] [--no-profile]

What it does, in one run:

1. writes ``--n`` manifests into ``bench-out/manifests`` (see ``gen_manifests.py``) and compiles the
   linter's bytecode where it is stale (as pip does when it installs a wheel; ``make setup`` too);
2. times ``shardwise lint bench-out/manifests --format json --output /dev/null`` as a subprocess
   (best of ``--runs``), and the same lint in-process through ``shardwise.rules.app.cli.main`` (so the
   interpreter's start-up and the imports are separated from the linting itself);
3. installs Checkov into ``bench-out/checkov-venv`` (once; skipped with ``--skip-checkov``) and times
   ``checkov -d bench-out/manifests --framework kubernetes --quiet --compact -o json`` once;
4. times ``kube-linter lint --add-all-built-in --exclude schema-validation --format json
   bench-out/manifests`` (best of ``--runs``; skipped with ``--skip-kube-linter``) with the binary
   ``scripts/build-tools.sh`` builds into ``~/.cache/shardwise-tools/bin`` (or one on PATH): every
   built-in check but ``schema-validation``, which downloads JSON schemas from raw.githubusercontent.com
   for each kind (offline it retries and then reports a download error for every object, about 5 s per
   object kind and file set). Without the binary it prints ``kube-linter: not available (<the reason>)``
   and no figure;
5. prints the floor, the compiled YAML reader's parse of the same files alone (CPU time), and how far above
   it the whole lint is; then the throughput ratios against the goals (shardwise >= 50x Checkov's files/s,
   >= 3x kube-linter's), each also by CPU time (user + system of all processes: on a loaded machine the
   wall time measures the load as much as the tool);
6. measures cold start: ``shardwise lint <one manifest>`` as a fresh process ``--cold-runs`` times
   (goal: with cached bytecode, median at most 0.05 s above ``python -c pass``), and lists the slowest imports
   of that path (``python -X importtime``);
7. profiles one lint in a fresh process (cProfile around ``main()``, ``--jobs 1``) and prints its top lines by own
   and by cumulative time, so that a regression shows its cause (``--no-profile`` skips it; the top 25 go to
   ``bench-out/profile.txt``);
8. prints a Markdown table for the README.

Figures go to stdout and to ``bench-out/bench_lint.json``. Only the standard library is used
(plus the project, and PyYAML through the generator). Nothing here fails because Checkov cannot be
installed or run, nor because kube-linter is not built: the shardwise figures are still printed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_manifests  # noqa: E402  (a sibling script, not a package)

GOAL_RATIO = 50.0  # shardwise files/s over Checkov's (issue 30)
GOAL_KUBE_LINTER_RATIO = 3.0  # over kube-linter's
#: Cold start of a one-file lint with cached bytecode, above the interpreter's own (`python -c pass`).
GOAL_COLD_ABOVE_S = 0.05
CHECKOV_VERSION = "3.3.30"  # the release the issue's figures compare with
CHECKOV_INSTALL_TIMEOUT_S = 1800
CHECKOV_RUN_TIMEOUT_S = 3600
LINT_TIMEOUT_S = 900
KUBE_LINTER_VERSION = "v0.8.3"  # scripts/build-tools.sh builds this release
KUBE_LINTER_RUN_TIMEOUT_S = 900
KUBE_LINTER_EXCLUDE = "schema-validation"  # fetches JSON schemas from the internet; see the docstring


def _rel(path: str) -> str:
    return os.path.relpath(path, ROOT)


def _say(msg: str = "") -> None:
    print(msg, flush=True)


def _shardwise_cmd() -> list[str]:
    """The ``shardwise`` console script next to this interpreter, else the one on PATH, else ``-c``."""
    beside = os.path.join(os.path.dirname(sys.executable), "shardwise")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return [beside]
    found = shutil.which("shardwise")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from shardwise.rules.app.cli import main; sys.exit(main())"]


_LAST_CPU_S = 0.0  # user + system CPU seconds of the last command _run ran (with its children)


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # not on POSIX
        return 0.0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], timeout: float, stdout: Any = subprocess.DEVNULL, cwd: str = ROOT) -> tuple[float, int, str]:
    """Run ``cmd`` from ``cwd`` (the repository root); return (wall seconds, exit code, stderr tail)."""
    global _LAST_CPU_S
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, timeout=timeout, check=False)
    dt = time.perf_counter() - t0
    _LAST_CPU_S = _children_cpu() - c0
    return dt, proc.returncode, proc.stderr.decode("utf-8", "replace")[-2000:]


def _machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu,
        "cores": cores,
        "memory_gib": mem_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


def _fps(files: int, seconds: float | None) -> float | None:
    return round(files / seconds, 1) if seconds else None


# ------------------------------------------------------------------------------------- shardwise


def _report_summary(path: str) -> dict[str, Any]:
    """Counts from a shardwise JSON report (findings by code and level); tolerant of its exact shape."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as e:
        return {"error": f"cannot read the report: {e}"}
    findings = data.get("findings") if isinstance(data, dict) else data
    if not isinstance(findings, list):
        return {"keys": sorted(data)[:20] if isinstance(data, dict) else type(data).__name__}
    by_code = Counter(str(f.get("code")) for f in findings if isinstance(f, dict))
    by_level = Counter(
        ("suppressed" if f.get("suppressed") else str(f.get("level"))) for f in findings if isinstance(f, dict)
    )
    out: dict[str, Any] = {"findings": len(findings), "by_code": dict(sorted(by_code.items())),
                           "by_level": dict(sorted(by_level.items()))}
    if isinstance(data, dict):
        for key in ("summary", "stats", "inputs_summary"):
            if isinstance(data.get(key), dict):
                out[key] = data[key]
    return out


def bench_shardwise_subprocess(manifests: str, n: int, runs: int, out_dir: str) -> dict[str, Any]:
    cmd = [*_shardwise_cmd(), "lint", manifests, "--format", "json", "--output", os.devnull]
    _say(f"$ {' '.join(_rel(c) if c.startswith(ROOT) else c for c in cmd)}   (best of {runs})")
    times, cpus = [], []
    rc = None
    err = ""
    for i in range(runs):
        dt, rc, err = _run(cmd, LINT_TIMEOUT_S)
        times.append(dt)
        cpus.append(_LAST_CPU_S)
        _say(f"  run {i + 1}: {dt:.3f} s wall, {_LAST_CPU_S:.3f} s CPU  exit {rc}")
    res: dict[str, Any] = {"command": " ".join(cmd), "runs_s": [round(t, 4) for t in times],
                           "runs_cpu_s": [round(c, 4) for c in cpus],
                           "best_s": round(min(times), 4), "files": n, "exit_code": rc,
                           "files_per_s": _fps(n, min(times))}
    if rc not in (0, 1):
        res["error"] = f"shardwise exited {rc}: {err.strip()[-600:]}"
        _say(f"  ! {res['error']}")
    elif err.strip():
        res["stderr_tail"] = err.strip().splitlines()[-1][:300]
        _say(f"  stderr: {res['stderr_tail']}")
    # One more (untimed) run that keeps the report, to show the files were really linted.
    report = os.path.join(out_dir, "shardwise-report.json")
    _run([*_shardwise_cmd(), "lint", manifests, "--format", "json", "--output", report], LINT_TIMEOUT_S)
    res["report"] = _rel(report)
    res["report_summary"] = _report_summary(report)
    return res


def bench_shardwise_inprocess(manifests: str, n: int, runs: int) -> dict[str, Any]:
    """Lint in this process: import time, first (cold-cache) call and best warm call."""
    t0 = time.perf_counter()
    try:
        from shardwise.rules.app.cli import main  # type: ignore[import-not-found]
    except Exception as e:  # noqa: BLE001 - report, do not crash
        return {"error": f"cannot import shardwise.rules.app.cli: {type(e).__name__}: {e}"}
    import_s = time.perf_counter() - t0
    argv = ["lint", manifests, "--format", "json", "--output", os.devnull]
    times, cpus = [], []
    rc = None
    for _ in range(runs):
        sink = io.StringIO()
        c0 = time.process_time() + _children_cpu()  # the forked processes' share too, once they are waited for
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() + _children_cpu() - c0)
    _say(f"  in-process: import {import_s * 1000:.0f} ms; main() runs "
         + ", ".join(f"{t:.3f}" for t in times) + " s wall, " + ", ".join(f"{c:.3f}" for c in cpus)
         + f" s CPU; exit {rc}")
    return {
        "import_s": round(import_s, 4),
        "runs_s": [round(t, 4) for t in times],
        "runs_cpu_s": [round(c, 4) for c in cpus],
        "best_cpu_s": round(min(cpus), 4),
        "first_s": round(times[0], 4),
        "best_s": round(min(times), 4),
        "files_per_s_first": _fps(n, times[0]),
        "files_per_s_best": _fps(n, min(times)),
        "exit_code": rc,
    }


def bench_floor(manifests: str, runs: int) -> dict[str, Any]:
    """The floor: the compiled YAML reader's parse of the same files alone (read and parsed as the lint reads
    them, :func:`shardwise.rules.adapters.yamlsrc.load_documents`), least CPU time of ``runs``."""
    try:
        from shardwise.rules.adapters import yamlsrc  # type: ignore[import-not-found]
    except Exception as e:  # noqa: BLE001 - report, do not crash
        return {"error": f"cannot import the YAML reader: {type(e).__name__}: {e}"}
    files = sorted(os.path.join(manifests, f) for f in os.listdir(manifests) if f.endswith((".yaml", ".yml")))
    cpus = []
    for _ in range(runs):
        c0 = time.process_time()
        for f in files:
            yamlsrc.load_documents(yamlsrc.read_text(f), f)
        cpus.append(time.process_time() - c0)
    return {"files": len(files), "compiled_reader": yamlsrc._fast is not None,
            "runs_cpu_s": [round(c, 4) for c in cpus], "best_cpu_s": round(min(cpus), 4)}


def _profile_lines(text: str, top: int) -> list[str]:
    """The header and the first ``top`` rows of one pstats listing."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), None)
    if at is None:
        return []
    return [lines[at], *[line for line in lines[at + 1:] if line.strip()][:top]]


def profile_inprocess(manifests: str, top: int = 25) -> tuple[str, str]:
    """cProfile of one lint in one fresh process (``--jobs 1``; the profiler on around ``main()`` only, after the
    CLI's import): the top ``top`` by own time and by cumulative time (for ``profile.txt``), and the top 12 by own
    time and by cumulative time (for the output, so that a regression shows its cause). A fresh process, as the
    timed runs are: in this one the memos of the earlier in-process runs (a sizing per distinct layout, about
    5,600 for 2,000 manifests, a third of the run) would all hit and hide their cost."""
    import pstats
    import tempfile

    argv = ["lint", manifests, "--format", "json", "--output", os.devnull, "--jobs", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lint.prof")
        code = ("import cProfile, sys\nfrom shardwise.rules.app.cli import main\nprof = cProfile.Profile()\n"
                f"prof.enable()\nmain({argv!r})\nprof.disable()\nprof.dump_stats({out!r})\n")
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=LINT_TIMEOUT_S, check=False)
        buf = io.StringIO()
        st = pstats.Stats(out, stream=buf)
        st.strip_dirs().sort_stats("tottime").print_stats(top)
        st.sort_stats("cumulative").print_stats(top)
        own, cum = io.StringIO(), io.StringIO()
        pstats.Stats(out, stream=own).strip_dirs().sort_stats("tottime").print_stats(12)
        pstats.Stats(out, stream=cum).strip_dirs().sort_stats("cumulative").print_stats(12)
    short = "\n".join(["  by own time:", *("    " + x for x in _profile_lines(own.getvalue(), 12)),
                        "  by cumulative time:", *("    " + x for x in _profile_lines(cum.getvalue(), 12))])
    return buf.getvalue(), short


# ----------------------------------------------------------------------------------------- cold start


def _cached_env(pycache: str) -> dict[str, str]:
    """The environment with bytecode caching on, into ``pycache`` (so no __pycache__ lands in the tree)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


_LAST_COLD_CPU: list[float] = []  # user + system CPU seconds of each run of the last _cold_series


def _cold_series(cmd: list[str], runs: int, env: dict[str, str] | None) -> tuple[list[float], set[int]]:
    times, codes = [], set()
    _LAST_COLD_CPU.clear()
    for _ in range(runs):
        c0 = _children_cpu()
        t0 = time.perf_counter()
        code = _wait_blocking(cmd, env, 120)
        times.append(time.perf_counter() - t0)
        _LAST_COLD_CPU.append(_children_cpu() - c0)
        codes.add(code)
    return times, codes


def _wait_blocking(cmd: list[str], env: dict[str, str] | None, timeout: float) -> int:
    """Run ``cmd`` with no pipes and wait for it in one blocking ``waitpid``; a timer kills it after ``timeout``.

    ``subprocess.run(..., timeout=)`` without pipes waits by polling with a back-off that grows to 50 ms (0.5, 1, 2,
    ... 32, then 50 ms sleeps), so a start of 65 ms was seen at 114 ms and one of 30 ms at 32 ms: a cold start's
    figure jumped by whole polling steps. A blocking wait sees the exit when it happens."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        return proc.wait()
    finally:
        timer.cancel()


def bench_cold(one_file: str, runs: int, out_dir: str) -> dict[str, Any]:
    """Fresh-process ``shardwise lint <file>``: as the environment is, and with cached bytecode.

    An environment with ``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__`` for the project compiles
    every shardwise module on every start; an installed wheel (or any normal environment) has the
    bytecode cached. Both are measured; the second uses ``PYTHONPYCACHEPREFIX`` under ``bench-out/``.
    """
    cmd = [*_shardwise_cmd(), "lint", one_file]
    _say(f"$ {' '.join(_rel(c) if c.startswith(ROOT) else c for c in cmd)}   (x{runs}, fresh process each)")
    times, codes = _cold_series(cmd, runs, None)
    env = _cached_env(os.path.join(out_dir, "pycache"))
    _cold_series(cmd, 2, env)  # warm-up: writes the bytecode cache
    ctimes, _ = _cold_series(cmd, runs, env)
    ccpu = list(_LAST_COLD_CPU)

    def floor(args: list[str], e: dict[str, str] | None = None) -> float:
        return min(_cold_series([sys.executable, *args], 5, e)[0])

    _cold_series([sys.executable, "-c", "pass"], runs, None)
    bare_cpu = statistics.median(_LAST_COLD_CPU)
    bare = floor(["-c", "pass"])
    bare_s = floor(["-S", "-c", "pass"])
    imp = floor(["-c", "import shardwise.rules.app.cli"], env)
    dontwrite = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    res = {
        "command": " ".join(cmd),
        "runs_s": [round(t, 4) for t in times],
        "median_s": round(statistics.median(times), 4),
        "min_s": round(min(times), 4),
        "exit_codes": sorted(codes),
        "env_PYTHONDONTWRITEBYTECODE": dontwrite,
        "cached_bytecode_runs_s": [round(t, 4) for t in ctimes],
        "cached_bytecode_median_s": round(statistics.median(ctimes), 4),
        "cached_bytecode_min_s": round(min(ctimes), 4),
        "python_pass_s": round(bare, 4),
        "python_S_pass_s": round(bare_s, 4),
        "python_import_cli_s": round(imp, 4),
        "above_python_s": round(statistics.median(ctimes) - bare, 4),
        # CPU time (user + system) is what a busy machine changes least: the same figure in it
        "cached_bytecode_cpu_median_s": round(statistics.median(ccpu), 4),
        "python_pass_cpu_median_s": round(bare_cpu, 4),
        "cpu_above_python_s": round(statistics.median(ccpu) - bare_cpu, 4),
        "goal_above_python_s": GOAL_COLD_ABOVE_S,
        "goal_met": statistics.median(ctimes) - bare <= GOAL_COLD_ABOVE_S,
    }
    _say(f"  as this environment is (PYTHONDONTWRITEBYTECODE={dontwrite or 'unset'}): "
         f"median {res['median_s']:.3f} s, min {res['min_s']:.3f} s "
         f"exit codes {res['exit_codes']}")
    _say(f"  with cached bytecode: median {res['cached_bytecode_median_s']:.3f} s, "
         f"min {res['cached_bytecode_min_s']:.3f} s: {res['above_python_s']:.3f} s above `python -c pass` "
         f"(goal <= {GOAL_COLD_ABOVE_S} s: {'met' if res['goal_met'] else 'NOT met'})")
    _say(f"  in CPU time (user + system, medians): {res['cached_bytecode_cpu_median_s']:.3f} s, "
         f"{res['cpu_above_python_s']:.3f} s above `python -c pass` ({bare_cpu:.3f} s)")
    _say(f"  floor: `python -c pass` {bare:.3f} s, `python -S -c pass` {bare_s:.3f} s, "
         f"`python -c 'import shardwise.rules.app.cli'` {imp:.3f} s (cached bytecode)")
    return res


def import_times(one_file: str, out_dir: str, top: int = 10) -> dict[str, Any]:
    """``python -X importtime`` of a full ``shardwise lint <file>`` (cached bytecode): slowest imports."""
    code = f"import sys; from shardwise.rules.app.cli import main; sys.exit(main(['lint', {one_file!r}]))"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=ROOT,
                          env=_cached_env(os.path.join(out_dir, "pycache")),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120, check=False)
    rows = []
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        try:
            _, rest = line.split(":", 1)
            self_us, cum_us, name = rest.split("|", 2)
            rows.append((int(self_us), int(cum_us), name.rstrip()))
        except ValueError:
            continue
    total_us = sum(r[0] for r in rows)
    by_self = sorted(rows, key=lambda r: -r[0])[:top]
    by_cum = sorted(rows, key=lambda r: -r[1])[:top]
    return {
        "modules": len(rows),
        "total_self_ms": round(total_us / 1000, 1),
        "top_self": [{"module": n.strip(), "self_ms": round(s / 1000, 1), "cumulative_ms": round(c / 1000, 1)}
                     for s, c, n in by_self],
        "top_cumulative": [{"module": n.strip(), "self_ms": round(s / 1000, 1), "cumulative_ms": round(c / 1000, 1)}
                           for s, c, n in by_cum],
    }


# -------------------------------------------------------------------------------------------- checkov


def _venv_bin(venv: str, name: str) -> str:
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", name)


def ensure_checkov(venv: str) -> tuple[str | None, str]:
    """Return (path to the checkov executable, version or the reason it is unavailable)."""
    exe = _venv_bin(venv, "checkov")
    if not os.path.isfile(exe):
        _say(f"installing Checkov into {_rel(venv)} (once; a few minutes) ...")
        t0 = time.perf_counter()
        try:
            if not os.path.isfile(_venv_bin(venv, "python")):
                subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            proc = subprocess.Popen(
                [_venv_bin(venv, "python"), "-m", "pip", "install", "--disable-pip-version-check",
                 "--progress-bar", "off", f"checkov=={CHECKOV_VERSION}"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            )
            tail: list[str] = []
            collected = 0
            assert proc.stdout is not None
            for line in proc.stdout:
                line = line.rstrip()
                tail = (tail + [line])[-15:]
                if line.startswith("Collecting"):
                    collected += 1
                    if collected % 10 == 1:
                        _say(f"  pip: {line[:100]}  ({collected} packages so far, "
                             f"{time.perf_counter() - t0:.0f} s)")
                elif line.startswith(("Installing", "Successfully", "ERROR", "error")):
                    _say(f"  pip: {line[:160]}")
                if time.perf_counter() - t0 > CHECKOV_INSTALL_TIMEOUT_S:
                    proc.kill()
                    return None, f"pip install checkov took over {CHECKOV_INSTALL_TIMEOUT_S} s"
            rc = proc.wait()
            if rc != 0 or not os.path.isfile(exe):
                return None, f"pip install checkov failed (exit {rc}): " + " / ".join(tail[-4:])
            _say(f"  installed in {time.perf_counter() - t0:.0f} s")
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"cannot create the Checkov venv: {type(e).__name__}: {e}"
    try:
        ran = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=300, check=False)
        version = ran.stdout.strip().splitlines()[-1] if ran.stdout.strip() else "?"
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"checkov does not start: {e}"
    return exe, version


def bench_checkov(exe: str, manifests: str, n: int, out_dir: str) -> dict[str, Any]:
    """Checkov over ``manifests``, run from the folder that holds it with ``-d <its name>``: Checkov skips every
    file whose path holds ``/.`` (``kubernetes_utils.should_include_path``: "inside a hidden directory"), so a
    path such as ``../../tmp/bench/manifests`` (``--out`` outside the repository) or one under ``~/.cache`` would
    leave it nothing to check."""
    report = os.path.join(out_dir, "checkov-report.json")
    where, name = os.path.split(os.path.abspath(manifests))
    cmd = [os.path.abspath(exe), "-d", name, "--framework", "kubernetes", "--quiet", "--compact", "-o", "json"]
    _say(f"$ (cd {_rel(where)} && {' '.join(_rel(c) if c.startswith(ROOT) else c for c in cmd)}) > {_rel(report)}"
         "   (once)")
    try:
        with open(report, "wb") as fh:
            dt, rc, err = _run(cmd, CHECKOV_RUN_TIMEOUT_S, stdout=fh, cwd=where)
    except subprocess.TimeoutExpired:
        _say(f"  ! checkov ran over {CHECKOV_RUN_TIMEOUT_S} s")
        return {"error": f"checkov ran over {CHECKOV_RUN_TIMEOUT_S} s"}
    except OSError as e:
        _say(f"  ! cannot run checkov: {e}")
        return {"error": f"cannot run checkov: {e}"}
    cpu = _LAST_CPU_S
    _say(f"  {dt:.2f} s wall, {cpu:.2f} s CPU (all its processes)  exit {rc} (1 = it found failed checks, expected)")
    res: dict[str, Any] = {"command": " ".join(cmd), "seconds": round(dt, 3), "cpu_s": round(cpu, 3),
                           "exit_code": rc, "files": n,
                           "files_per_s": _fps(n, dt), "report": _rel(report)}
    if rc not in (0, 1):
        res["error"] = f"checkov exited {rc}: {err.strip()[-600:]}"
        _say(f"  ! {res['error']}")
    try:
        with open(report, encoding="utf-8") as fh:
            data = json.load(fh)
        summaries = [d.get("summary", {}) for d in (data if isinstance(data, list) else [data])]
        res["summary"] = {k: sum(int(s.get(k, 0) or 0) for s in summaries)
                          for k in ("passed", "failed", "skipped", "parsing_errors", "resource_count")}
    except (OSError, ValueError, AttributeError, TypeError) as e:
        res["summary_error"] = str(e)[:200]
    if not res.get("error") and not (res.get("summary") or {}).get("resource_count"):
        # a run that checked nothing is no figure to compare with: it would flatter Checkov's speed
        res["error"] = f"checkov checked no resource in {n} files (see {_rel(report)})"
        _say(f"  ! {res['error']}")
    return res


# ---------------------------------------------------------------------------------------- kube-linter


def kube_linter_missing_reason(cache_bin: str) -> str:
    """Why there is no kube-linter binary, in words a reader can act on."""
    return (f"no kube-linter in {cache_bin} or on PATH; `bash scripts/build-tools.sh` builds {KUBE_LINTER_VERSION} "
            "from the github.com/stackrox/kube-linter module zip (`go install "
            f"golang.stackrox.io/kube-linter/cmd/kube-linter@{KUBE_LINTER_VERSION}` fails here: the Go module "
            "proxy answers 403 Forbidden for golang.stackrox.io/kube-linter)")


def find_kube_linter() -> tuple[str | None, str]:
    """Return (path to kube-linter, its version) or (None, the reason it is not available)."""
    cache = os.environ.get("SHARDWISE_TOOLS_CACHE") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                    "shardwise-tools")
    cache_bin = os.path.join(cache, "bin")
    built = os.path.join(cache_bin, "kube-linter")
    exe = built if os.access(built, os.X_OK) else shutil.which("kube-linter")
    if exe is None:
        return None, kube_linter_missing_reason(cache_bin)
    try:
        ran = subprocess.run([exe, "version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"{exe} does not start: {type(e).__name__}: {e}"
    if ran.returncode != 0:
        return None, f"`{exe} version` exited {ran.returncode}: {ran.stderr.strip()[-300:]}"
    return exe, ran.stdout.strip() or "?"


def bench_kube_linter(exe: str, manifests: str, n: int, runs: int, out_dir: str) -> dict[str, Any]:
    """``kube-linter lint`` with every built-in check but schema-validation (best of ``runs``), then its report."""
    report = os.path.join(out_dir, "kube-linter-report.json")
    cmd = [exe, "lint", "--add-all-built-in", "--exclude", KUBE_LINTER_EXCLUDE, "--format", "json", manifests]
    _say(f"$ {' '.join(_rel(c) if c.startswith(ROOT) else c for c in cmd)} > {_rel(report)}   (best of {runs})")
    times, cpus = [], []
    rc, err = None, ""
    for i in range(runs):
        try:
            with open(report, "wb") as fh:
                dt, rc, err = _run(cmd, KUBE_LINTER_RUN_TIMEOUT_S, stdout=fh)
        except subprocess.TimeoutExpired:
            return {"error": f"kube-linter ran over {KUBE_LINTER_RUN_TIMEOUT_S} s"}
        times.append(dt)
        cpus.append(_LAST_CPU_S)
        _say(f"  run {i + 1}: {dt:.3f} s wall, {_LAST_CPU_S:.3f} s CPU  exit {rc} (1 = it reported lint errors)")
    res: dict[str, Any] = {"command": " ".join(cmd), "runs_s": [round(t, 4) for t in times],
                           "runs_cpu_s": [round(c, 4) for c in cpus], "best_s": round(min(times), 4),
                           "exit_code": rc, "files": n, "files_per_s": _fps(n, min(times)), "report": _rel(report)}
    if rc not in (0, 1):
        res["error"] = f"kube-linter exited {rc}: {err.strip()[-600:]}"
        _say(f"  ! {res['error']}")
        return res
    try:
        with open(report, encoding="utf-8") as fh:
            data = json.load(fh)
        reports = data.get("Reports") or []
        res["reports"] = len(reports)
        res["by_check"] = dict(sorted(Counter(str(r.get("Check")) for r in reports).items()))
        res["objects"] = len({(r.get("Object", {}).get("Metadata", {}).get("FilePath"),
                               r.get("Object", {}).get("K8sObject", {}).get("Name")) for r in reports})
    except (OSError, ValueError, AttributeError, TypeError) as e:
        res["summary_error"] = str(e)[:200]
    return res


# ---------------------------------------------------------------------------------------------- main


def _previous_checkov(out_dir: str, n: int, seed: int) -> dict[str, Any] | None:
    """Checkov's figure from an earlier run on the same corpus (bench-out/bench_lint.json), if any."""
    try:
        with open(os.path.join(out_dir, "bench_lint.json"), encoding="utf-8") as fh:
            prev = json.load(fh)
    except (OSError, ValueError):
        return None
    ck = prev.get("checkov") or {}
    if prev.get("files") != n or prev.get("seed") != seed or not ck.get("files_per_s") or ck.get("error"):
        return None
    if not (ck.get("summary") or {}).get("resource_count"):  # a run that checked nothing (an --out path with "/.")
        return None
    return {**ck, "measured": ck.get("measured") or prev.get("date"), "reused": True}


def markdown(results: dict[str, Any]) -> str:
    n = results["files"]
    rows = ["| tool | files | seconds | files/s |", "|---|---:|---:|---:|"]
    sw = results.get("shardwise", {})
    if sw.get("best_s"):
        rows.append(f"| shardwise lint (new process, best of {len(sw['runs_s'])}) | {n} | {sw['best_s']:.2f} | "
                    f"{sw['files_per_s']:,.0f} |")
    ip = results.get("shardwise_inprocess", {})
    if ip.get("best_s"):
        rows.append(f"| shardwise lint (in-process `main()`, warm) | {n} | {ip['best_s']:.2f} | "
                    f"{ip['files_per_s_best']:,.0f} |")
    ck = results.get("checkov", {})
    if ck.get("seconds") and not ck.get("error"):
        reused = f" (measured {ck['measured']})" if ck.get("reused") else ""
        rows.append(f"| checkov {ck.get('version', '')} `--framework kubernetes`{reused} | {n} | {ck['seconds']:.2f} | "
                    f"{ck['files_per_s']:,.1f} |")
    kl = results.get("kube_linter", {})
    if kl.get("best_s") and not kl.get("error"):
        rows.append(f"| kube-linter {kl.get('version', '')} `lint --add-all-built-in --exclude {KUBE_LINTER_EXCLUDE}` "
                    f"(best of {len(kl['runs_s'])}) "
                    f"| {n} | {kl['best_s']:.2f} | {kl['files_per_s']:,.0f} |")
    elif kl.get("unavailable"):
        rows.append(f"| kube-linter: not available ({kl['unavailable']}) | {n} | – | – |")
    lines = rows + [""]
    if results.get("ratio_kube_linter"):
        lines.append(f"Throughput ratio shardwise / kube-linter: **{results['ratio_kube_linter']:.2f}x** "
                     f"(goal >= {GOAL_KUBE_LINTER_RATIO:g}x: "
                     f"{'met' if results['ratio_kube_linter'] >= GOAL_KUBE_LINTER_RATIO else 'not met'}; "
                     f"least CPU time of a run: shardwise {min(sw['runs_cpu_s']):.2f} s, "
                     f"kube-linter {min(kl['runs_cpu_s']):.2f} s).")
    if results.get("ratio"):
        lines.append(f"Throughput ratio shardwise / Checkov: **{results['ratio']:.1f}x** "
                     f"(goal >= {GOAL_RATIO:.0f}x: {'met' if results['ratio_goal_met'] else 'not met'}).")
    cold = results.get("cold_start", {})
    if cold.get("median_s"):
        lines.append(f"Cold start, `shardwise lint <one manifest>`: median **{cold['median_s']:.3f} s**, "
                     f"min {cold['min_s']:.3f} s over {len(cold['runs_s'])} runs; with cached bytecode median "
                     f"{cold['cached_bytecode_median_s']:.3f} s, {cold['above_python_s']:.3f} s above "
                     f"`python -c pass` ({cold['python_pass_s']:.3f} s; goal <= {GOAL_COLD_ABOVE_S} s above it: "
                     f"{'met' if cold['goal_met'] else 'not met'}).")
    m = results["machine"]
    lines.append(f"Machine: {m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB, {m['os']}, "
                 f"{m['implementation']} {m['python']}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark shardwise lint against Checkov and kube-linter.")
    ap.add_argument("--n", type=int, default=2000, help="manifest files to generate (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3, help="timed shardwise runs, best kept (default 3)")
    ap.add_argument("--cold-runs", type=int, default=10, help="cold-start runs (default 10)")
    ap.add_argument("--skip-checkov", action="store_true", help="do not install or run Checkov")
    ap.add_argument("--skip-kube-linter", action="store_true", help="do not run kube-linter")
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="do not print the cProfile of one in-process lint (its top lines by own and cumulative "
                    "time are printed by default, so that a regression shows its cause)")
    ap.add_argument("--profile", action="store_true", default=True, help=argparse.SUPPRESS)  # the default now
    ap.add_argument("--checkov-venv", default=None,
                    help=f"the virtual environment Checkov is in, or is installed into (checkov=={CHECKOV_VERSION}; "
                    "default bench-out/checkov-venv)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out"), help="output folder (default bench-out/)")
    args = ap.parse_args(argv)

    out_dir = os.path.abspath(args.out)
    manifests = os.path.join(out_dir, "manifests")
    os.makedirs(out_dir, exist_ok=True)
    results: dict[str, Any] = {"files": args.n, "seed": args.seed, "machine": _machine(),
                               "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}
    m = results["machine"]
    _say(f"machine: {m['cores']} cores, {m['cpu']}, {m['memory_gib']} GiB, {m['implementation']} {m['python']}")

    t0 = time.perf_counter()
    paths = gen_manifests.generate(manifests, args.n, args.seed)
    size = sum(os.path.getsize(p) for p in paths)
    results["generate"] = {"seconds": round(time.perf_counter() - t0, 3), "bytes": size, "dir": _rel(manifests),
                           **gen_manifests.summary(args.n, args.seed)}
    _say(f"generated {len(paths)} manifests ({size / 1e6:.1f} MB) in {_rel(manifests)} "
         f"in {results['generate']['seconds']:.1f} s")
    if not paths:
        _say("nothing to lint")
        return 1
    rel_manifests = _rel(manifests)

    # The linter as an installed package has it: with its bytecode (pip compiles a wheel's modules when
    # it installs them; an editable install does not, and `make setup` compiles them the same way).
    import compileall

    with contextlib.redirect_stdout(io.StringIO()):
        compiled = all(compileall.compile_dir(os.path.join(ROOT, d), quiet=1)
                       for d in ("rules", "components", "shardwise"))
    _say(f"bytecode of rules/, components/, shardwise/: {'up to date' if compiled else 'NOT compiled'}")

    _say("\n== shardwise (throughput) ==")
    results["shardwise"] = bench_shardwise_subprocess(rel_manifests, args.n, args.runs, out_dir)
    _say(f"  -> {results['shardwise']['files_per_s']} files/s (best {results['shardwise']['best_s']:.3f} s)")
    rs = results["shardwise"].get("report_summary", {})
    if "findings" in rs:
        _say(f"  report: {rs['findings']} findings; by level {rs.get('by_level')}; by code {rs.get('by_code')}")
    results["shardwise_inprocess"] = bench_shardwise_inprocess(rel_manifests, args.n, args.runs)
    ip = results["shardwise_inprocess"]
    if "error" in ip:
        _say(f"  ! {ip['error']}")
    else:
        overhead = results["shardwise"]["best_s"] - ip["best_s"]
        results["process_overhead_s"] = round(overhead, 4)
        _say(f"  -> in-process {ip['files_per_s_best']} files/s warm, {ip['files_per_s_first']} files/s first call; "
             f"process start-up + imports ~ {overhead:.3f} s of the subprocess time")
    results["floor"] = floor = bench_floor(manifests, args.runs)
    if "error" in floor:
        _say(f"  ! floor: {floor['error']}")
    else:
        sw_cpu = min(results["shardwise"].get("runs_cpu_s") or [0.0])
        reader = "compiled YAML reader" if floor["compiled_reader"] else "YAML reader (the compiled one is not built)"
        line = (f"  floor: the {reader}'s parse of the {floor['files']} files alone: {floor['best_cpu_s']:.3f} s CPU "
                f"(least of {args.runs})")
        if sw_cpu and floor["best_cpu_s"]:
            floor["lint_cpu_s"] = sw_cpu
            floor["above_s"] = round(sw_cpu - floor["best_cpu_s"], 4)
            floor["times"] = round(sw_cpu / floor["best_cpu_s"], 2)
            line += (f"; the whole lint (new process, least CPU) {sw_cpu:.3f} s is {floor['times']:.1f}x the floor, "
                     f"{floor['above_s']:.3f} s above it")
        if ip.get("best_cpu_s") and floor["best_cpu_s"]:
            floor["inprocess_times"] = round(ip["best_cpu_s"] / floor["best_cpu_s"], 2)
            line += f" (in-process lint {ip['best_cpu_s']:.3f} s CPU: {floor['inprocess_times']:.1f}x)"
        _say(line)

    if args.skip_checkov:
        prev = _previous_checkov(out_dir, args.n, args.seed)
        if prev:
            results["checkov"] = prev
            _say(f"\n== checkov ==\n  skipped (--skip-checkov); reusing the figure measured {prev['measured']}: "
                 f"{prev['files_per_s']} files/s")
        else:
            results["checkov"] = {"skipped": "--skip-checkov"}
    else:
        _say("\n== checkov ==")
        try:
            exe, version = ensure_checkov(args.checkov_venv or os.path.join(out_dir, "checkov-venv"))
            if exe is None:
                _say(f"  ! Checkov unavailable: {version}; continuing with shardwise figures only")
                results["checkov"] = {"error": version}
            else:
                _say(f"  checkov {version}")
                results["checkov"] = bench_checkov(exe, manifests, args.n, out_dir)
                results["checkov"]["version"] = version
                results["checkov"]["measured"] = results["date"]
                if "summary" in results["checkov"]:
                    _say(f"  report: {results['checkov']['summary']}")
                _say(f"  -> {results['checkov'].get('files_per_s')} files/s")
        except Exception as e:  # noqa: BLE001 - the Checkov half must never sink the benchmark
            results["checkov"] = {"error": f"{type(e).__name__}: {e}"}
            _say(f"  ! Checkov failed: {results['checkov']['error']}; continuing")

    sw_fps = results["shardwise"].get("files_per_s")
    ck_fps = results["checkov"].get("files_per_s")
    if sw_fps and ck_fps and not results["checkov"].get("error") and not results["shardwise"].get("error"):
        ratio = sw_fps / ck_fps
        results["ratio"] = round(ratio, 2)
        results["ratio_goal"] = GOAL_RATIO
        results["ratio_goal_met"] = ratio >= GOAL_RATIO
        _say(f"\n== ratio ==\n  shardwise {sw_fps} files/s / checkov {ck_fps} files/s = {ratio:.1f}x "
             f"(goal >= {GOAL_RATIO:.0f}x: {'MET' if ratio >= GOAL_RATIO else 'NOT MET'})")
        sw_cpu, ck_cpu = min(results["shardwise"].get("runs_cpu_s") or [0.0]), results["checkov"].get("cpu_s")
        if sw_cpu and ck_cpu:
            results["ratio_cpu"] = round(ck_cpu / sw_cpu, 2)
            _say(f"  by CPU time (user + system, all processes; the fairer figure on a loaded machine): checkov "
                 f"{ck_cpu:.2f} s / shardwise {sw_cpu:.2f} s = {ck_cpu / sw_cpu:.1f}x")

    _say("\n== kube-linter ==")
    if args.skip_kube_linter:
        results["kube_linter"] = {"skipped": "--skip-kube-linter"}
        _say("  skipped (--skip-kube-linter)")
    else:
        exe, version = find_kube_linter()
        if exe is None:
            results["kube_linter"] = {"unavailable": version}
            _say(f"kube-linter: not available ({version})")
        else:
            _say(f"  kube-linter {version} ({exe})")
            results["kube_linter"] = bench_kube_linter(exe, rel_manifests, args.n, args.runs, out_dir)
            results["kube_linter"]["version"] = version
            kl = results["kube_linter"]
            if "reports" in kl:
                _say(f"  report: {kl['reports']} reports on {kl['objects']} objects; "
                     f"most common checks {dict(Counter(kl['by_check']).most_common(12))}")
            kl_fps = kl.get("files_per_s")
            if sw_fps and kl_fps and not kl.get("error") and not results["shardwise"].get("error"):
                results["ratio_kube_linter"] = round(sw_fps / kl_fps, 2)
                _say(f"  -> {kl_fps} files/s (best {kl['best_s']:.3f} s)\n\n== ratio ==\n  shardwise {sw_fps} files/s "
                     f"/ kube-linter {kl_fps} files/s = {sw_fps / kl_fps:.2f}x "
                     f"(goal >= {GOAL_KUBE_LINTER_RATIO:g}x: "
                     f"{'MET' if sw_fps / kl_fps >= GOAL_KUBE_LINTER_RATIO else 'NOT MET'})")
                sw_cpu = min(results["shardwise"].get("runs_cpu_s") or [0.0])
                kl_cpu = min(kl.get("runs_cpu_s") or [0.0])
                if sw_cpu and kl_cpu:
                    results["ratio_kube_linter_cpu"] = round(kl_cpu / sw_cpu, 2)
                    _say(f"  by least CPU time of a run: kube-linter {kl_cpu:.2f} s / shardwise {sw_cpu:.2f} s = "
                         f"{kl_cpu / sw_cpu:.2f}x")

    _say("\n== cold start ==")
    one = _rel(paths[0])
    results["cold_start"] = bench_cold(one, args.cold_runs, out_dir)
    results["import_time"] = imports = import_times(one, out_dir)
    _say(f"  python -X importtime (cached bytecode): {imports['modules']} modules, {imports['total_self_ms']} ms "
         "in all (importtime inflates this); slowest by own time:")
    for r in imports["top_self"]:
        _say(f"    {r['self_ms']:7.1f} ms self {r['cumulative_ms']:8.1f} ms cumulative  {r['module']}")
    _say("  slowest by cumulative time:")
    for r in imports["top_cumulative"]:
        _say(f"    {r['cumulative_ms']:7.1f} ms cumulative {r['self_ms']:7.1f} ms self  {r['module']}")

    if args.profile:
        _say("\n== cProfile of one lint (a fresh process, --jobs 1; top 12 by own and by cumulative time) ==")
        try:
            text, short = profile_inprocess(rel_manifests)
            results["profile"] = os.path.join(_rel(out_dir), "profile.txt")
            with open(os.path.join(out_dir, "profile.txt"), "w", encoding="utf-8") as fh:
                fh.write(text)
            _say(short)
            _say(f"  (the top 25 of each: {results['profile']})")
        except Exception as e:  # noqa: BLE001
            _say(f"  ! cannot profile: {type(e).__name__}: {e}")

    md = markdown(results)
    results["markdown"] = md
    _say("\n== README snippet ==\n")
    _say(md)
    out_json = os.path.join(out_dir, "bench_lint.json")
    with open(out_json, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=2)
        fh.write("\n")
    _say(f"\nfigures written to {_rel(out_json)}")
    return 0 if not results["shardwise"].get("error") else 1


if __name__ == "__main__":
    sys.exit(main())
