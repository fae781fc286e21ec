"""Wall time of ``pulumi preview`` of a ~1,000-resource stack, without and with ``--policy-pack rules``.

Run from the repository root, after ``scripts/build-pulumi.sh``::

    .venv/bin/python benchmarks/bench_engine.py [--services 138] [--runs 3] [--grpc-defaults-too] [--grpcio-too]
    .venv/bin/python benchmarks/bench_engine.py --runs 0 --profile-cli   # where the CLI's own CPU goes (go tool pprof)

What it does:

1. writes a stack config from ``stacks/Pulumi.dev.yaml`` with ``--services`` copies of its vLLM
   service (each one an 8B model on one L40S: Deployment, Service, PodDisruptionBudget,
   ScaledObject and NetworkPolicies; one router over all of them): 138 copies make the real
   ``__main__.py`` declare 1,121 resources;
2. sets up a throw-away project on a ``file://`` backend with the real CLI and Python language
   host, as the engine tests do (``tests/support/engine_support.py``): the real Kubernetes provider where
   ``scripts/build-k8s-provider.sh`` built it (else the stand-in), the AWS provider stood in for by
   ``tests/support/standin_provider.py`` (it cannot be built here);
3. runs ``pulumi preview`` once untimed (warm-up, with the pack), then ``--runs`` times each, alternating, without
   the pack and with it (``--policy-pack DIR/pack``, ``engine_support.pack_dir``), timing the whole
   command (host, program, engine, providers, and with the pack its start and every Analyze and
   the AnalyzeStack call); the launcher sets grpcio's settings as ``shardwise policy-pack-dir``'s does
   (``crossguard.pack_grpc_environment``), and ``--grpc-defaults-too`` adds to each run a preview with the
   pack on grpcio's defaults (``GRPC_EXPERIMENTS`` set empty, which the launcher keeps), and ``--grpcio-too``
   one with the pack served through pulumi-policy's grpcio server (``SHARDWISE_PACK_TRANSPORT=grpcio``) instead
   of its own transport (``rules/app/grpc_h2.py``);
4. prints every run and the medians of wall time and of CPU time (all the processes involved:
   the CLI, the host, the plugins, the pack and the program; steadier than wall time on a shared
   machine), the CPU time of the pack's own process and of the CLI's own process (:class:`PackWatch`),
   the pack's overhead (difference of the medians, in seconds and per cent, beside the goal: at most
   2 %), the same from the two processes' own CPU time (the pack's, and what the CLI spent more with
   it; steadier still, since the previews' total CPU varies by more than the pack costs on a shared
   machine), and writes them to ``bench-out/bench_engine.json``.

Every Python process reads its modules' bytecode from ``bench-out/pycache`` (``PYTHONPYCACHEPREFIX``;
``PYTHONDONTWRITEBYTECODE`` dropped), written by the warm-up: as an installed package, or a checkout in an
environment that does not set ``PYTHONDONTWRITEBYTECODE``, runs. ``--compile-each-start`` keeps the
environment's setting (this development environment sets it: every start compiles every module).

The dev stack talks to an existing cluster through a kubeconfig from ``aws.eks.get_cluster``
(answered by the AWS stand-in), which no cluster serves. With the real Kubernetes provider the
previews go to the local control plane of the cluster tests where ``scripts/build-cluster.sh`` built
it (``shardwise:kubeconfig``; the CRDs installed, so the provider's discovery and dry-runs are real),
else to the provider's YAML rendering mode; with the stand-in provider nothing is asked of a cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from cluster_support import ControlPlane, cluster_bin  # noqa: E402
from engine_support import HOW, Project, engine_bin, k8s_provider_bin, load_stack_config, pack_dir  # noqa: E402
from shardwise.rules.app import pack_cpu  # noqa: E402


def bench_config(services: int) -> dict[str, Any]:
    """The dev stack with ``services`` copies of its service, the pool and router sized for them."""
    cfg = load_stack_config("dev")
    env = cfg["shardwise:environment"]
    base = env["services"][0]
    env["pools"][0]["max_size"] = services * base["autoscaling"]["max_replicas"] + 1
    env["services"] = []
    for i in range(services):
        s = copy.deepcopy(base)
        s["name"] = f"llama-8b-{i:03d}"
        s["engine"]["served_model_name"] = f"llama-3.1-8b-{i:03d}"
        env["services"].append(s)
    for router in env.get("routers") or []:
        router["services"] = [s["name"] for s in env["services"]]
        router["domain"] = "llm.dev.example.com"
    return cfg


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


#: where the pack writes its CPU time's split in each preview with it (``rules/app/pack_cpu.py``); set by main()
CPU_LOG: Path | None = None
GOAL_OVERHEAD = 0.02  # the pack adds at most 2 % to a preview (issue 30)
_TICK = os.sysconf("SC_CLK_TCK")


class PackWatch:
    """The CPU time of the pack's own process during a preview, read from ``/proc`` every 20 ms (the
    engine kills the pack at the end, so its last 20 ms may be missed), and how long after the command
    started the pack's process appeared (the engine starts analyzers before the program); with ``cli``, the
    CPU time of the CLI's own process too (the engine: its threads, not its plugins and host), with or without
    the pack, where the engine's share of the pack's cost shows (it marshals each resource for Remediate and
    Analyze and reads the answers)."""

    def __init__(self, marker: str | None, cli: Path | None = None, launcher: Path | None = None) -> None:
        self.marker = marker.encode() if marker is not None else None
        #: the pack's launcher (a shell script that execs the pack): a process seen running it is looked at again
        self.launcher = str(launcher).encode() if launcher is not None else None
        self.cli = str(cli).encode() + b"\0" if cli is not None else None
        self.cpu: dict[int, float] = {}
        #: the CPU time of the pack's main thread (its start: imports, the policies, the server's start; then it
        #: sleeps), the rest of the pack's being its serving threads (grpcio's poll, the C core's, the workers)
        self.main_cpu: dict[int, float] = {}
        self.cli_cpu: dict[int, float] = {}
        self.first_seen: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.t0 = time.perf_counter()

    def __enter__(self) -> PackWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _is_pack(self, cmd: bytes) -> bool:
        return self.marker is not None and (b"pulumi.policy" in cmd or b"shardwise.rules.app.packstart" in cmd) \
            and self.marker in cmd

    def _is_cli(self, cmd: bytes) -> bool:
        return self.cli is not None and cmd.startswith(self.cli) and b"\0preview\0" in cmd

    def _run(self) -> None:
        seen: set[int] = set()  # pids whose command line was read: the engine starts one pack per preview
        me = os.getpid()
        pack: int | None = None
        cli: int | None = None
        while not self._stop.is_set():
            found = pack is not None and (cli is not None or self.cli is None)
            pids = [p for p in (pack, cli) if p is not None] if found else \
                [int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]
            for pid in pids:
                try:
                    if pid not in seen:
                        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                        mine = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == me
                        if self._is_pack(cmd):
                            pack = pid
                            self.first_seen = time.perf_counter() - self.t0
                        elif self._is_cli(cmd) and mine:
                            cli = pid
                        elif mine or self._is_cli(cmd) or (self.launcher is not None and self.launcher in cmd):
                            # a child forked but not yet started (this process's or the CLI's), or the pack's
                            # launcher before it execs the pack in the same process: looked at again
                            continue
                        seen.add(pid)
                    if pid not in (pack, cli):
                        continue
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    main = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split() \
                        if pid == pack else None
                except OSError:
                    if pid == pack:  # it has exited: look for another
                        pack = None
                    elif pid == cli:
                        cli = None
                    continue
                (self.cpu if pid == pack else self.cli_cpu)[pid] = (int(fields[11]) + int(fields[12])) / _TICK
                if main is not None:
                    self.main_cpu[pid] = (int(main[11]) + int(main[12])) / _TICK
            self._stop.wait(0.02)

    @property
    def seconds(self) -> float:
        return sum(self.cpu.values())

    @property
    def start_seconds(self) -> float:
        return sum(self.main_cpu.values())

    @property
    def cli_seconds(self) -> float:
        return sum(self.cli_cpu.values())


def timed_preview(project: Project, *, pack: bool, config: dict[str, str],
                  env: dict[str, str] | None = None) -> tuple[float, float, str, float, float, float]:
    """Wall seconds of the command, CPU seconds of everything it ran (CLI, host, program, plugins), output,
    the CPU seconds of the pack's own process (0 without the pack) and of the CLI's own process, and of the
    pack's main thread (its start-up; 0 without the pack). ``env`` is added to the CLI's environment."""
    if pack and CPU_LOG is not None:
        CPU_LOG.unlink(missing_ok=True)
        env = {**(env or {}), pack_cpu.ENV: str(CPU_LOG)}
    cpu0 = _children_cpu()
    with PackWatch(str(ROOT / "rules") if pack else None, cli=Path(project.pulumi), launcher=project.pack) as watch:
        t0 = time.perf_counter()
        proc = project.operation("preview", pack=pack, config=config, env=env)
        seconds = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"pulumi preview (pack: {pack}) failed:\n{proc.stdout}\n{proc.stderr}")
    return seconds, cpu, proc.stdout, watch.seconds, watch.cli_seconds, watch.start_seconds


#: the parts of the pack's CPU time in a preview (:func:`cpu_split`), in the order printed
SPLIT = ("interpreter and Pulumi SDK", "pulumi-policy and shardwise modules", "policies", "main thread's rest",
         "Remediate", "Analyze", "AnalyzeStack", "other calls", "transport and wake-ups", "shutdown")


def cpu_split(log: dict[str, Any] | None, total: float, main_thread: float) -> dict[str, float] | None:
    """Where the pack's process spent its CPU in one preview: its start (the main thread) from the marks it wrote
    (``rules/app/pack_cpu.py``: the interpreter with the Pulumi SDK until the pack's entry runs, the pack's and
    pulumi-policy's modules, making the policies, and the main thread after them as :class:`PackWatch` last read
    it: the SDK's servicer and the server's start, about 6 ms under cProfile, then its exit when the engine stops
    the pack, which the shutdown counts too), its handlers by method (the serving thread's CPU in each), the
    serving threads' CPU outside them (the transport, waking up) until the end of ``AnalyzeStack``, and what the
    process spent after it until the engine stopped it (``total``: the process's CPU as :class:`PackWatch` last
    read it, in 10 ms ticks; a small negative shutdown is that rounding). ``None`` where the pack wrote no log."""
    if not log:
        return None
    marks, methods = log["marks"], log["methods"]
    handlers = {m: c for m, (_, c) in methods.items()}
    named = {m: handlers.get(m, 0.0) for m in ("Remediate", "Analyze", "AnalyzeStack")}
    others = sum(c for m, c in handlers.items() if m not in named)
    return {
        "interpreter and Pulumi SDK": marks["entry"],
        "pulumi-policy and shardwise modules": marks["imported"] - marks["entry"],
        "policies": marks["policies"] - marks["imported"],
        "main thread's rest": main_thread - marks["policies"],
        **named,
        "other calls": others,
        "transport and wake-ups": log["process_cpu"] - main_thread - sum(handlers.values()),
        "shutdown": total - log["process_cpu"],
    }


def seen_at_exit(log: dict[str, Any] | None, total: float, main_thread: float) -> tuple[float, float]:
    """The pack's process CPU and its main thread's: as :class:`PackWatch` last read them, or as the pack wrote them
    at its exit (``pack_cpu.CpuLog.write_exit``) where that is more: the watcher reads ``/proc`` every 20 ms and
    misses the end of a pack that exits as soon as the engine's ``SIGINT`` comes (packspeed17)."""
    at_exit = (log or {}).get("exit") or {}
    return max(total, at_exit.get("process_cpu", 0.0)), max(main_thread, at_exit.get("main_thread_cpu", 0.0))


def _read_cpu_log() -> dict[str, Any] | None:
    try:
        return json.loads(CPU_LOG.read_text(encoding="utf-8")) if CPU_LOG is not None else None
    except (OSError, ValueError):
        return None


def _split_text(split: dict[str, float] | None) -> str:
    if split is None:
        return "the pack wrote no CPU log"
    return ", ".join(f"{k} {v:.3f}" for k, v in split.items())


#: where the CLI's own CPU and allocations go (``--profile-cli``): each sample of the CLI's Go profiles (``pulumi
#: --profiling``) goes to the first part one of whose patterns a frame of its stack matches: the engine's analyzer
#: client (pulumi v3.276.0 pkg/resource/plugin/analyzer_plugin.go; it filters and marshals each resource's properties
#: and its provider's to a protobuf Struct for ``Remediate`` and again for ``Analyze``), its callers
#: (pkg/resource/deploy/step_generator.go, analyze_snapshot.go), the policy events pkg/engine and pkg/backend/display
#: handle, and the in-memory snapshot the diy backend's ``SnapshotManager`` serialises whole at each step's mutation
#: even at preview (pkg/backend/diy/backend.go: a ``DiscardPersister``; pkg/backend/snapshot.go ``saveSnapshot``)
CLI_SPLIT: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Remediate per resource (marshal, call, answer)", (r"plugin\.\(\*analyzer\)\.Remediate$",)),
    ("Analyze per resource (marshal, call, answer)", (r"plugin\.\(\*analyzer\)\.Analyze$",)),
    ("AnalyzeStack (collect, marshal, call)", (
        r"\(\*analyzer\)\.AnalyzeStack$", r"\(\*stepGenerator\)\.AnalyzeResources$")),
    ("the pack's start, handshake, info and config", (
        r"NewPolicyAnalyzer$", r"\(\*defaultHost\)\.PolicyAnalyzer$", r"LoadLocalPolicyPackAnalyzers$",
        r"\(\*analyzer\)\.(GetAnalyzerInfo|GetPluginInfo|Configure|Close|Cancel)$", r"loadPolicyAnalyzer$")),
    ("policy events (summaries, violations: engine, display)", (
        r"[Pp]olicy(Analyze|Remediate)?(Summary|Violation|Remediation)", r"OnPolicy")),
    ("the in-memory snapshot's saves (serialised whole at each mutation)", (r"\(\*SnapshotManager\)\.saveSnapshot$",)),
    ("the garbage collector's background work", (r"^runtime\.gcBgMarkWorker$",)),
    ("gRPC and HTTP/2 outside the calls above (all plugins)", (
        r"^google\.golang\.org/grpc", r"golang\.org/x/net/http2")),
    ("everything else (program, providers, steps, display, runtime)", (r"",)),
)
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0,
          "B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def profile_split(traces: str) -> dict[str, float]:
    """The samples of a ``go tool pprof -traces`` listing (CPU seconds, or bytes of an allocation profile's
    ``-sample_index=alloc_space``) summed by :data:`CLI_SPLIT`'s parts: each sample's stack (its frames, one a line
    from its value's line on; label lines such as ``bytes: 72kB`` skipped) to the first part a frame matches."""
    patterns = [(name, [re.compile(p) for p in pats]) for name, pats in CLI_SPLIT]
    split = dict.fromkeys((name for name, _ in CLI_SPLIT), 0.0)
    for block in traces.split("-----------+")[1:]:
        lines = [ln.split() for ln in block.splitlines()[1:] if ln.strip() and not ln.split()[0].endswith(":")]
        m = re.fullmatch(r"([\d.]+)([a-zµA-Z]+)", lines[0][0]) if lines and len(lines[0]) > 1 else None
        if m is None or m.group(2) not in _UNITS:
            continue
        value = float(m.group(1)) * _UNITS[m.group(2)]
        frames = [lines[0][1], *(ln[0] for ln in lines[1:])]
        for name, compiled in patterns:
            if any(c.search(f) for c in compiled for f in frames):
                split[name] += value
                break
    return split


#: the previews of ``--profile-cli``: without the pack, with it, with it, without it (alternating, so that a drift of
#: the machine's load falls on both sides)
PROFILE_ORDER = (False, True, True, False)


def cli_profile(project: Project, config: dict[str, str], where: Path,
                order: tuple[bool, ...] = PROFILE_ORDER) -> dict[str, dict[str, list[dict[str, float]]]] | str:
    """Previews without the pack and with it (in ``order``), each with the CLI's Go profiles (``--profiling``): its
    CPU seconds and the bytes it allocated, split by :func:`profile_split` (``{"cpu": {"without": [split, ...],
    "with": [...]}, "alloc": ...}``); a string saying why not where ``go tool pprof`` is not at hand."""
    where.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict[str, list[dict[str, float]]]] = {"cpu": {"without": [], "with": []},
                                                         "alloc": {"without": [], "with": []}}
    for i, pack in enumerate(order):
        label = "with" if pack else "without"
        prefix = where / f"cli-{label}-{i}"
        proc = project.operation("preview", "--profiling", str(prefix), pack=pack, config=config)
        if proc.returncode != 0:
            raise SystemExit(f"pulumi preview --profiling (pack: {pack}) failed:\n{proc.stdout}\n{proc.stderr}")
        # the CLI writes PREFIX.PID.{cpu,mem,trace} for its own process; the plugins it starts are other processes
        for kind, suffix, index in (("cpu", "cpu", []), ("alloc", "mem", ["-sample_index=alloc_space"])):
            found = sorted(where.glob(f"cli-{label}-{i}.*.{suffix}"))
            if not found:
                return f"the CLI wrote no {suffix} profile under {where}"
            try:
                traces = subprocess.run(["go", "tool", "pprof", *index, "-traces", project.pulumi, str(found[0])],
                                        capture_output=True, text=True, check=True, timeout=300).stdout
            except (OSError, subprocess.SubprocessError) as exc:
                return f"go tool pprof is not at hand ({exc})"
            out[kind][label].append(profile_split(traces))
    return out


def _mean(splits: list[dict[str, float]], part: str | None = None) -> float:
    """The mean over previews of one part of their splits, or of their totals."""
    return statistics.mean(sum(s.values()) if part is None else s[part] for s in splits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--services", type=int, default=138)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench-out"))
    ap.add_argument("--compile-each-start", action="store_true",
                    help="keep the environment's PYTHONDONTWRITEBYTECODE: every Python process compiles the "
                         "checkout's modules at each start (the default caches bytecode in OUT/pycache)")
    ap.add_argument("--grpc-defaults-too", action="store_true",
                    help="in each run, a third preview with the pack started with grpcio's default settings "
                         "(GRPC_EXPERIMENTS set empty, which the launcher keeps), to compare with its own")
    ap.add_argument("--host-start-too", action="store_true",
                    help="in each run, a preview with the pack started as the language host starts it (python -m "
                         "pulumi.policy), to compare with its launcher's start (shardwise.rules.app.packstart)")
    ap.add_argument("--grpcio-too", action="store_true",
                    help="in each run, a preview with the pack served through pulumi-policy's grpcio server "
                         "(SHARDWISE_PACK_TRANSPORT=grpcio), to compare with its own transport")
    ap.add_argument("--profile-cli", action="store_true",
                    help="after the warm-up, one preview without the pack and one with it under the CLI's Go CPU "
                         "profile (pulumi --profiling; needs go tool pprof), and where the CLI's own CPU went in "
                         "each (Remediate, Analyze, AnalyzeStack, the pack's start, policy events, ...); with "
                         "--runs 0 only that")
    args = ap.parse_args(argv)
    if not args.compile_each_start:
        # what an installed package or a checkout without PYTHONDONTWRITEBYTECODE does: the program and the pack
        # read their modules' bytecode, written once (by the untimed warm-up preview), not compiled at each start
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(args.out).resolve() / "pycache")
    global CPU_LOG
    bin_dir = engine_bin()
    if bin_dir is None:
        print(f"bench_engine: the Pulumi CLI is not built: {HOW}", file=sys.stderr)
        return 2
    k8s_bin = k8s_provider_bin()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        project = Project(Path(tmp), bin_dir, "bench", bench_config(args.services), k8s_bin=k8s_bin)
        CPU_LOG = Path(tmp) / "pack-cpu.json"
        launcher_pack = project.pack
        (Path(tmp) / "host-start").mkdir()
        host_pack = pack_dir(Path(tmp) / "host-start", host_start=True)
        version = project.run("version", check=True).stdout.strip()
        # where the real Kubernetes provider runs it needs a cluster to preview against (the stand-in
        # cluster's kubeconfig holds no real certificate): the local control plane where it is built,
        # else the provider's YAML rendering mode
        config: dict[str, str] = {}
        target = "stand-in Kubernetes provider"
        if k8s_bin is not None:
            plane_bin = cluster_bin()
            if plane_bin is not None:
                plane = stack.enter_context(ControlPlane(plane_bin, Path(tmp) / "control-plane"))
                plane.apply_crds()
                config = {"shardwise:kubeconfig": str(plane.kubeconfig)}
                target = f"real Kubernetes provider, local kube-apiserver {plane.api('GET', '/version')['gitVersion']}"
            else:
                config = {"kubernetes:renderYamlToDirectory": str(Path(tmp) / "rendered")}
                target = "real Kubernetes provider, rendering YAML (no control plane built)"
        # the warm-up runs the pack too: what the first timed preview with it would otherwise pay alone, the pack's
        # bytecode and the store of what reading the stack's environment config concluded (app/stack_verdicts.py,
        # 0.1 s of CPU in ConfigureStack when it misses), is written there
        _, _, out, _, _, _ = timed_preview(project, pack=True, config=config)
        if not args.compile_each_start:  # the pack's own modules' bytecode (the warm-up wrote the program's)
            subprocess.run([sys.executable, "-c", "import shardwise.rules.__main__"], cwd=ROOT, check=True)
        m = re.search(r"(\d[\d,]*) to create", out)
        resources = int(m.group(1).replace(",", "")) if m else -1
        print(f"pulumi {version}: preview of {resources} resources to create "
              f"({args.services} services; {target}; the AWS provider is a stand-in), {args.runs} runs each")
        profile: dict[str, dict[str, list[dict[str, float]]]] | str | None = None
        if args.profile_cli:
            profile = cli_profile(project, config, Path(args.out).resolve() / "cli-profile")
            if isinstance(profile, str):
                print(f"  where the CLI's own CPU went: not profiled ({profile})")
            else:
                for kind, unit, scale, what in (("cpu", "s", 1.0, "CPU"), ("alloc", "GB", 1e-9, "allocations")):
                    got = profile[kind]
                    a_all, b_all = _mean(got["without"]) * scale, _mean(got["with"]) * scale
                    print(f"  where the CLI's own {what} went (its Go profile, mean of {len(got['with'])} previews "
                          f"each, alternating; {unit}): without the pack {a_all:.2f}, with it {b_all:.2f} "
                          f"({b_all - a_all:+.2f}, {(b_all - a_all) / a_all * 100:+.1f}%; each: "
                          + ", ".join(f"{sum(v.values()) * scale:.2f}" for label in ("without", "with")
                                      for v in got[label]) + ")")
                    for name, _ in CLI_SPLIT:
                        a_s, b_s = _mean(got["without"], name) * scale, _mean(got["with"], name) * scale
                        print(f"    {name}: {a_s:.3f} -> {b_s:.3f} ({b_s - a_s:+.3f})")
        if args.runs < 1:
            out_dir = Path(args.out)
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "bench_engine.json").write_text(json.dumps({
                "pulumi": version, "resources": resources, "services": args.services, "kubernetes": target,
                "cli_profile_s": profile}, indent=2), encoding="utf-8")
            return 0
        runs: dict[str, list[tuple[float, float]]] = {"without": [], "with": []}
        pack_cpu: list[float] = []
        pack_start_cpu: list[float] = []
        cli_cpu: dict[str, list[float]] = {"without": [], "with": []}
        defaults_cpu: list[tuple[float, float, float]] = []  # --grpc-defaults-too: preview, pack, pack's start
        grpcio_cpu: list[tuple[float, float, float]] = []  # --grpcio-too: the same
        host_cpu: list[tuple[float, float, float]] = []  # --host-start-too: the same
        splits: list[dict[str, float]] = []  # where the pack's CPU went in each preview with it (cpu_split)
        host_splits: list[dict[str, float]] = []  # the same, started as the language host starts it
        for i in range(args.runs):
            w0, c0, _, _, e0, _ = timed_preview(project, pack=False, config=config)
            if args.grpc_defaults_too:
                _, cd, _, pd, _, sd = timed_preview(project, pack=True, config=config, env={"GRPC_EXPERIMENTS": ""})
                defaults_cpu.append((cd, pd, sd))
                print(f"  run {i + 1}: with the pack on grpcio's defaults {cd:.2f} s CPU, the pack's own process "
                      f"{pd:.2f} s (its start {sd:.2f} s, serving {pd - sd:.2f} s)")
            if args.grpcio_too:
                _, cg, _, pg, _, sg = timed_preview(project, pack=True, config=config,
                                                    env={"SHARDWISE_PACK_TRANSPORT": "grpcio"})
                grpcio_cpu.append((cg, pg, sg))
                print(f"  run {i + 1}: with the pack served through grpcio {cg:.2f} s CPU, the pack's own process "
                      f"{pg:.2f} s (its start {sg:.2f} s, serving {pg - sg:.2f} s)")
            if args.host_start_too:
                project.pack = host_pack
                try:
                    _, ch, _, ph, _, sh = timed_preview(project, pack=True, config=config)
                finally:
                    project.pack = launcher_pack
                log = _read_cpu_log()
                ph, sh = seen_at_exit(log, ph, sh)
                host_cpu.append((ch, ph, sh))
                split = cpu_split(log, ph, sh)
                if split is not None:
                    host_splits.append(split)
                print(f"  run {i + 1}: with the pack started as the host starts it (python -m pulumi.policy) "
                      f"{ch:.2f} s CPU, the pack's own process {ph:.2f} s (its start {sh:.2f} s, "
                      f"serving {ph - sh:.2f} s)\n"
                      f"    its CPU: {_split_text(split)}")
            w1, c1, _, p1, e1, s1 = timed_preview(project, pack=True, config=config)
            log = _read_cpu_log()
            p1, s1 = seen_at_exit(log, p1, s1)
            split = cpu_split(log, p1, s1)
            if split is not None:
                splits.append(split)
            runs["without"].append((w0, c0))
            runs["with"].append((w1, c1))
            pack_cpu.append(p1)
            pack_start_cpu.append(s1)
            cli_cpu["without"].append(e0)
            cli_cpu["with"].append(e1)
            print(f"  run {i + 1}: without the pack {w0:.2f} s wall ({c0:.2f} s CPU, the CLI's own {e0:.2f} s), "
                  f"with the pack {w1:.2f} s wall ({c1:.2f} s CPU, the CLI's own {e1:.2f} s, "
                  f"the pack's own process {p1:.2f} s: its start {s1:.2f} s, serving {p1 - s1:.2f} s)\n"
                  f"    its CPU: {_split_text(split)}")
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    (a, ca), (b, cb) = med["without"], med["with"]
    pack_s = statistics.median(pack_cpu)
    start_s = statistics.median(pack_start_cpu)
    serving_s = statistics.median(p - s for p, s in zip(pack_cpu, pack_start_cpu, strict=True))
    cli_a, cli_b = statistics.median(cli_cpu["without"]), statistics.median(cli_cpu["with"])
    overhead = (b - a) / a
    # the steadier reading on a shared machine: the CPU the pack's process spent and the CPU the CLI spent more
    # with the pack (each process read from /proc), against the CPU of the preview without the pack
    own = pack_s + max(cli_b - cli_a, 0.0)
    print(f"pulumi preview, {resources} resources, median of {args.runs}: without the pack {a:.2f} s wall "
          f"({ca:.2f} s CPU), with it {b:.2f} s wall ({cb:.2f} s CPU)")
    print(f"  the pack adds {b - a:.2f} s wall ({overhead * 100:.1f}%; goal <= {GOAL_OVERHEAD * 100:g}%: "
          f"{'met' if overhead <= GOAL_OVERHEAD else 'NOT met'}) and {cb - ca:.2f} s CPU "
          f"({(cb - ca) / ca * 100:.1f}%), of which the pack's own process {pack_s:.2f} s "
          f"(its start, the main thread: {start_s:.2f} s; serving Remediate and Analyze per resource and "
          f"AnalyzeStack, every other thread: {serving_s:.2f} s)")
    print(f"  the pack's process and the CLI's extra CPU ({cli_a:.2f} -> {cli_b:.2f} s): {own:.2f} s, "
          f"{own / ca * 100:.1f}% of the preview's CPU without the pack (goal <= {GOAL_OVERHEAD * 100:g}%: "
          f"{'met' if own / ca <= GOAL_OVERHEAD else 'NOT met'}); bytecode "
          f"{'compiled at each start' if args.compile_each_start else 'cached'}")
    for name, kept in (("", splits), (" started as the host starts it", host_splits)):
        if kept:
            print(f"  where the pack's process spent its CPU{name}, median of {len(kept)} (s): "
                  + ", ".join(f"{k} {statistics.median(s[k] for s in kept):.3f}" for k in SPLIT))
    if host_cpu:
        ph_s = statistics.median(p for _, p, _ in host_cpu)
        sh_s = statistics.median(s for _, _, s in host_cpu)
        print(f"  the pack's own process started as the host starts it (python -m pulumi.policy): median {ph_s:.2f} s "
              f"({ph_s / ca * 100:.1f}%, its start {sh_s:.2f} s), through its launcher (shardwise.rules.app.packstart) "
              f"{pack_s:.2f} s ({pack_s / ca * 100:.1f}%, its start {start_s:.2f} s)")
    if defaults_cpu:
        pd_s = statistics.median(p for _, p, _ in defaults_cpu)
        print(f"  the pack's own process on grpcio's defaults (GRPC_EXPERIMENTS empty): median {pd_s:.2f} s "
              f"({pd_s / ca * 100:.1f}%), with the launcher's settings {pack_s:.2f} s ({pack_s / ca * 100:.1f}%)")
    if grpcio_cpu:
        pg_s = statistics.median(p for _, p, _ in grpcio_cpu)
        print(f"  the pack's own process served through grpcio (SHARDWISE_PACK_TRANSPORT=grpcio): median {pg_s:.2f} s "
              f"({pg_s / ca * 100:.1f}%), through its own transport {pack_s:.2f} s ({pack_s / ca * 100:.1f}%)")
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench_engine.json").write_text(json.dumps({
        "pulumi": version, "resources": resources, "services": args.services, "kubernetes": target,
        "runs_wall_cpu_s": runs, "median_without_s": a, "median_with_s": b, "overhead_s": b - a,
        "median_cpu_without_s": ca, "median_cpu_with_s": cb, "pack_process_cpu_s": pack_cpu,
        "pack_start_cpu_s": pack_start_cpu,
        "overhead_pct": overhead * 100, "goal_pct": GOAL_OVERHEAD * 100,
        "cli_process_cpu_s": cli_cpu, "pack_and_cli_extra_cpu_s": own, "pack_and_cli_extra_cpu_pct": own / ca * 100,
        "bytecode_cached": not args.compile_each_start,
        "grpc_defaults_preview_pack_start_cpu_s": defaults_cpu,
        "grpcio_transport_preview_pack_start_cpu_s": grpcio_cpu,
        "host_start_preview_pack_start_cpu_s": host_cpu,
        "pack_cpu_split_s": splits, "host_start_pack_cpu_split_s": host_splits, "cli_profile_s": profile,
    }, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
