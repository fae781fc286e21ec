"""Benchmark the CrossGuard policy pack over gRPC on a large stack.

Run from the repository root::

    .venv/bin/python benchmarks/bench_pack.py [--resources 1000] [--runs 5]

What it does:

1. records what the real ``__main__.py`` registers for ``stacks/Pulumi.prod.yaml`` under Pulumi's
   mocks (a preview: computed outputs unknown; see ``tests/support/pulumi_mocks.py``) and copies those
   resources in URN order, renamed, until the stack has ``--resources`` of them (each copy keeps its own
   parents and property dependencies, and its Kubernetes objects their own names; the same stack on
   every run, which ``tests/app/test_pack_bench_stack.py`` checks the pack's findings on);
2. starts the pack as the language host does (``python -m pulumi.policy <engine> rules``, see
   ``tests/support/grpc_harness.py``) and calls ConfigureStack, GetAnalyzerInfo, then ``Analyze`` once per
   resource (the per-resource latency, goal: median < 2 ms) and ``AnalyzeStack`` with all of them
   ``--runs`` times (goal: < 0.5 s). The requests are made before the clock starts (what the engine
   marshals in Go is not the pack's time); each figure is the RPC's wall time, and beside it the CPU
   time the pack's process spent (``/proc``), steadier on a shared machine;
3. prints the figures (and writes them to ``bench-out/bench_pack.json``);
4. unless ``--no-profile``, starts the pack once more under a cProfile of its ``Analyze`` and
   ``AnalyzeStack`` handlers (the SDK serves requests on worker threads, which the profiler of
   ``python -m cProfile`` misses) and prints the top functions of one ``AnalyzeStack`` and of all the
   ``Analyze`` calls by cumulative time, so that a regression shows its cause.

The pack runs on pulumi-policy's own servicer, which reads every resource again for each policy; the
pack's wiring (``rules/__main__.py``, ``_Wiring``) has it read each resource once per request.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from grpc_harness import PackProcess, Resource  # noqa: E402
from pulumi_mocks import engine_config, load_stack_config, record  # noqa: E402

GOAL_STACK_S = 0.5
GOAL_RESOURCE_MS = 2.0


def _rename_k8s(props: dict, suffix: str) -> dict:
    meta = props.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("name"), str):
        meta["name"] = f"{meta['name']}{suffix}"
    return props


def big_stack(n: int) -> tuple[dict, list[Resource]]:
    stack_file = ROOT / "stacks" / "Pulumi.prod.yaml"
    config = load_stack_config(stack_file)
    # in URN order: the mocks record the resources in the order their registrations finish, which varies
    # from run to run, and the last copy is cut short: the same stack every time
    base = sorted(record(stack_file), key=lambda r: r.urn)
    out: list[Resource] = []
    copy_no = 0
    while len(out) < n:
        suffix = f"-c{copy_no}" if copy_no else ""

        def u(urn: str, suffix: str = suffix) -> str:
            return f"{urn}{suffix}" if urn else urn

        for r in base:
            if len(out) >= n:
                break
            props = copy.deepcopy(r.props)
            if r.type.startswith("kubernetes:") and suffix:
                props = _rename_k8s(props, suffix)
            out.append(Resource(r.type, r.name + suffix, u(r.urn), props, u(r.parent),
                                tuple(u(d) for d in r.dependencies),
                                {k: [u(x) for x in v] for k, v in r.property_dependencies.items()}))
        copy_no += 1
    return config, out


# The pack's entry point (``python -m pulumi.policy <engine> rules``) with the request handlers the gRPC server
# calls profiled (wrapped on the servicer when the SDK adds it to the server, after the pack's wiring has
# replaced the SDK's methods): each AnalyzeStack's profile replaces SHARDWISE_PACK_PROFILE, and one profile of
# the Analyze calls so far is written beside it (``.analyze`` appended).
_PROFILED_PACK = """
import cProfile, os, runpy, sys, threading
from pulumi.runtime.proto import analyzer_pb2_grpc
out = os.environ["SHARDWISE_PACK_PROFILE"]
analyze_prof, lock = cProfile.Profile(), threading.Lock()
add = analyzer_pb2_grpc.add_AnalyzerServicer_to_server
def add_profiled(servicer, server):
    analyze, analyze_stack = servicer.Analyze, servicer.AnalyzeStack
    def profiled_analyze(request, context):
        with lock:
            analyze_prof.enable()
            try:
                return analyze(request, context)
            finally:
                analyze_prof.disable()
    def profiled_analyze_stack(request, context):
        prof = cProfile.Profile()
        prof.enable()
        try:
            return analyze_stack(request, context)
        finally:
            prof.disable()
            prof.dump_stats(out)
            with lock:
                analyze_prof.dump_stats(out + ".analyze")
    servicer.Analyze, servicer.AnalyzeStack = profiled_analyze, profiled_analyze_stack
    return add(servicer, server)
analyzer_pb2_grpc.add_AnalyzerServicer_to_server = add_profiled
sys.argv = ["pulumi.policy", *sys.argv[1:]]
runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
"""


def _top(stats_file: Path, top: int) -> str:
    buf = io.StringIO()
    st = pstats.Stats(str(stats_file), stream=buf)
    st.strip_dirs().sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def profile_pack(config: dict, resources: list[Resource], top: int = 12) -> tuple[str, str]:
    """The top ``top`` functions by cumulative time of one ``AnalyzeStack`` (after a warm-up call) and of
    ``Analyze`` over every resource, in the pack's process."""
    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    stats_file = out / "bench_pack.prof"
    with PackProcess(stack="prod", config=engine_config(config),
                     extra_env={"SHARDWISE_PACK_PROFILE": str(stats_file)},
                     launcher=[sys.executable, "-c", _PROFILED_PACK]) as pack:
        pack.handshake()
        pack.configure_stack()
        requests = [pack.analyze_request(r) for r in resources]
        stack = pack.stack_request(resources)
        for req in requests:
            pack.analyze(req)
        pack.analyze_stack(stack)
        pack.analyze_stack(stack)
    return _top(stats_file, top), _top(Path(f"{stats_file}.analyze"), top)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--resources", type=int, default=1000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-profile", action="store_true",
                   help="skip the profile of the pack's Analyze and AnalyzeStack (top functions by cumulative time)")
    a = p.parse_args(argv)

    t0 = time.perf_counter()
    config, resources = big_stack(a.resources)
    record_s = time.perf_counter() - t0
    with PackProcess(stack="prod", config=engine_config(config)) as pack:
        start_s = pack.start_seconds
        start_cpu_s = pack.cpu_seconds()  # imports and building the policies, until the port is printed
        pack.handshake()
        pack.configure_stack()
        info = pack.info()
        requests = [pack.analyze_request(r) for r in resources]
        stack_request = pack.stack_request(resources)
        pack.analyze(requests[0])  # warm-up: the first request loads the catalogs
        per_resource: list[float] = []
        diagnostics = 0
        cpu0 = pack.cpu_seconds()
        for req in requests:
            t = time.perf_counter()
            diagnostics += len(pack.analyze(req))
            per_resource.append((time.perf_counter() - t) * 1000)
        analyze_cpu_s = pack.cpu_seconds() - cpu0
        stack_runs: list[float] = []
        stack_cpu: list[float] = []
        stack_diagnostics = 0
        for _ in range(a.runs):
            cpu0 = pack.cpu_seconds()
            t = time.perf_counter()
            stack_diagnostics = len(pack.analyze_stack(stack_request))
            stack_runs.append(time.perf_counter() - t)
            stack_cpu.append(pack.cpu_seconds() - cpu0)

    per_resource.sort()
    analyze_median_ms = round(statistics.median(per_resource), 3)
    stack_median_s = round(statistics.median(stack_runs), 3)
    figures: dict[str, int | float | str] = {
        "resources": len(resources),
        "policies": len(info.policies),
        "record_s": round(record_s, 2),
        "pack_start_s": round(start_s, 3),
        "pack_start_cpu_s": round(start_cpu_s, 3),
        "analyze_median_ms": analyze_median_ms,
        "analyze_p95_ms": round(per_resource[int(0.95 * (len(per_resource) - 1))], 3),
        "analyze_max_ms": round(per_resource[-1], 3),
        "analyze_total_s": round(sum(per_resource) / 1000, 3),
        "analyze_cpu_per_resource_ms": round(analyze_cpu_s / len(requests) * 1000, 3),
        "analyze_diagnostics": diagnostics,
        "analyze_stack_best_s": round(min(stack_runs), 3),
        "analyze_stack_median_s": stack_median_s,
        "analyze_stack_median_cpu_s": round(statistics.median(stack_cpu), 3),
        "analyze_stack_diagnostics": stack_diagnostics,
    }
    print(f"AnalyzeStack over {figures['resources']} resources, {figures['policies']} policies:")
    print(f"  best {figures['analyze_stack_best_s']:.3f} s, median {figures['analyze_stack_median_s']:.3f} s "
          f"of {a.runs} (goal < {GOAL_STACK_S:g} s: "
          f"{'met' if stack_median_s < GOAL_STACK_S else 'NOT met'}); the pack's CPU time: median "
          f"{figures['analyze_stack_median_cpu_s']:.3f} s")
    print(f"Analyze per resource: median {figures['analyze_median_ms']:.2f} ms, "
          f"p95 {figures['analyze_p95_ms']:.2f} ms, max {figures['analyze_max_ms']:.2f} ms "
          f"(goal median < {GOAL_RESOURCE_MS:.0f} ms: "
          f"{'met' if analyze_median_ms < GOAL_RESOURCE_MS else 'NOT met'}); the pack's CPU time: "
          f"{figures['analyze_cpu_per_resource_ms']:.2f} ms a resource")
    print(f"pack start-up {figures['pack_start_s']:.2f} s ({figures['pack_start_cpu_s']:.2f} s CPU); "
          f"recording the program {figures['record_s']:.1f} s; "
          f"diagnostics: {figures['analyze_diagnostics']} per-resource, {figures['analyze_stack_diagnostics']} stack")
    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    (out / "bench_pack.json").write_text(json.dumps(figures, indent=2) + "\n")
    if not a.no_profile:
        try:
            stack_top, analyze_top = profile_pack(config, resources)
        except Exception as e:  # noqa: BLE001 - the profile must never sink the figures
            print(f"\n  ! cannot profile the pack: {type(e).__name__}: {e}")
        else:
            print("\n== cProfile of one AnalyzeStack in the pack (top 12 by cumulative time) ==")
            print(stack_top)
            print(f"== cProfile of Analyze over the {len(resources)} resources in the pack "
                  "(top 12 by cumulative time) ==")
            print(analyze_top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
