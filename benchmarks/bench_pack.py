"""Benchmark the CrossGuard policy pack over gRPC on a large stack.

Run from the repository root::

    .venv/bin/python benchmarks/bench_pack.py [--resources 1000] [--runs 5]

What it does:

1. records what the real ``__main__.py`` registers for ``stacks/Pulumi.prod.yaml`` under Pulumi's
   mocks (a preview: computed outputs unknown; see ``tests/support/pulumi_mocks.py``) and copies those
   resources, renamed, until the stack has ``--resources`` of them (each copy keeps its own
   parents and property dependencies, and its Kubernetes objects their own names);
2. starts the pack as the language host does (``python -m pulumi.policy <engine> rules``, see
   ``tests/support/grpc_harness.py``) and calls ConfigureStack, GetAnalyzerInfo, then ``Analyze`` once per
   resource (the per-resource latency, goal: median < 2 ms) and ``AnalyzeStack`` with all of them
   ``--runs`` times (goal: < 0.5 s);
3. prints the figures (and writes them to ``bench-out/bench_pack.json``);
4. with ``--profile``, starts the pack once more under a cProfile of its ``AnalyzeStack`` handler
   (the SDK serves requests on worker threads, which the profiler of ``python -m cProfile`` misses)
   and prints the top functions of one call by cumulative time, so that a regression shows its cause.

The pack runs on pulumi-policy's own servicer (the pack uses only the SDK's public API), which
deserializes every resource once per policy.
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
    base = record(stack_file)
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


# The pack's entry point (``python -m pulumi.policy <engine> rules``) with its AnalyzeStack handler
# profiled: each call's profile replaces the file named by SHARDWISE_PACK_PROFILE.
_PROFILED_PACK = """
import cProfile, os, runpy, sys
from pulumi_policy import policy as sdk
original = sdk._PolicyAnalyzerServicer.AnalyzeStack
def analyze_stack(self, request, context):
    prof = cProfile.Profile()
    prof.enable()
    try:
        return original(self, request, context)
    finally:
        prof.disable()
        prof.dump_stats(os.environ["SHARDWISE_PACK_PROFILE"])
sdk._PolicyAnalyzerServicer.AnalyzeStack = analyze_stack
sys.argv = ["pulumi.policy", *sys.argv[1:]]
runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
"""


def profile_analyze_stack(config: dict, resources: list[Resource], top: int = 10) -> str:
    """The top ``top`` functions by cumulative time of one ``AnalyzeStack`` (after a warm-up call)."""
    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    stats_file = out / "bench_pack.prof"
    with PackProcess(stack="prod", config=engine_config(config),
                     extra_env={"SHARDWISE_PACK_PROFILE": str(stats_file)},
                     launcher=[sys.executable, "-c", _PROFILED_PACK]) as pack:
        pack.handshake()
        pack.configure_stack()
        pack.analyze_stack(resources)
        pack.analyze_stack(resources)
    buf = io.StringIO()
    st = pstats.Stats(str(stats_file), stream=buf)
    st.strip_dirs().sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--resources", type=int, default=1000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--profile", action="store_true",
                   help="also print the top functions (cumulative time) of one AnalyzeStack in the pack")
    a = p.parse_args(argv)

    t0 = time.perf_counter()
    config, resources = big_stack(a.resources)
    record_s = time.perf_counter() - t0
    with PackProcess(stack="prod", config=engine_config(config)) as pack:
        start_s = pack.start_seconds
        pack.handshake()
        pack.configure_stack()
        info = pack.info()
        pack.analyze(resources[0])  # warm-up: the first request loads the catalogs
        per_resource: list[float] = []
        diagnostics = 0
        for r in resources:
            t = time.perf_counter()
            diagnostics += len(pack.analyze(r))
            per_resource.append((time.perf_counter() - t) * 1000)
        stack_runs: list[float] = []
        stack_diagnostics = 0
        for _ in range(a.runs):
            t = time.perf_counter()
            stack_diagnostics = len(pack.analyze_stack(resources))
            stack_runs.append(time.perf_counter() - t)

    per_resource.sort()
    analyze_median_ms = round(statistics.median(per_resource), 3)
    stack_median_s = round(statistics.median(stack_runs), 3)
    figures: dict[str, int | float | str] = {
        "resources": len(resources),
        "policies": len(info.policies),
        "record_s": round(record_s, 2),
        "pack_start_s": round(start_s, 3),
        "analyze_median_ms": analyze_median_ms,
        "analyze_p95_ms": round(per_resource[int(0.95 * (len(per_resource) - 1))], 3),
        "analyze_max_ms": round(per_resource[-1], 3),
        "analyze_total_s": round(sum(per_resource) / 1000, 3),
        "analyze_diagnostics": diagnostics,
        "analyze_stack_best_s": round(min(stack_runs), 3),
        "analyze_stack_median_s": stack_median_s,
        "analyze_stack_diagnostics": stack_diagnostics,
    }
    print(f"AnalyzeStack over {figures['resources']} resources, {figures['policies']} policies:")
    print(f"  best {figures['analyze_stack_best_s']:.3f} s, median {figures['analyze_stack_median_s']:.3f} s "
          f"of {a.runs} (goal < {GOAL_STACK_S:g} s: "
          f"{'met' if stack_median_s < GOAL_STACK_S else 'NOT met'})")
    print(f"Analyze per resource: median {figures['analyze_median_ms']:.2f} ms, "
          f"p95 {figures['analyze_p95_ms']:.2f} ms, max {figures['analyze_max_ms']:.2f} ms "
          f"(goal median < {GOAL_RESOURCE_MS:.0f} ms: "
          f"{'met' if analyze_median_ms < GOAL_RESOURCE_MS else 'NOT met'})")
    print(f"pack start-up {figures['pack_start_s']:.2f} s; recording the program {figures['record_s']:.1f} s; "
          f"diagnostics: {figures['analyze_diagnostics']} per-resource, {figures['analyze_stack_diagnostics']} stack")
    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    (out / "bench_pack.json").write_text(json.dumps(figures, indent=2) + "\n")
    if a.profile:
        print("\n== cProfile of one AnalyzeStack in the pack (top 10 by cumulative time) ==")
        try:
            print(profile_analyze_stack(config, resources))
        except Exception as e:  # noqa: BLE001 - the profile must never sink the figures
            print(f"  ! cannot profile: {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
