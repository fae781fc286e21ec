"""The pack serves with the garbage collector off (``rules/__main__.py``'s ``serve_without_collections``): no
request may leave a reference cycle, which only the collector frees. Every Pulumi preview among the rule
fixtures (Kubernetes objects and AWS resources, values not known at preview among them) and the preview of
``pulumi_preview.stack_preview``: each resource's one-resource analysis and the stack's analysis, every rule
checked on each, with the collector off; a full collection afterwards finds nothing unreachable. (The Kubernetes
reader's walk was a closure calling itself, a cycle at every object holding an unknown: packspeed23.)"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import DEP_T, stack_preview, step
from repo_paths import FIXTURES, ROOT
from shardwise.rules.adapters.pulumi import UNKNOWN_SENTINELS, resources_from_json
from shardwise.rules.adapters.pulumi.inventory import is_pulumi_json
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES


def _is_preview(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return False  # a malformed input's fixture
    return isinstance(data, dict) and is_pulumi_json(data)


PREVIEWS = sorted(p for p in (FIXTURES / "rules").glob("SW*/*.json") if _is_preview(p))


def _refused_values() -> dict[str, Any]:
    """A preview whose vLLM servers start with values vLLM refuses (SW003's crashes): the reader keeps the first
    refusal of each as a value, past the handler that caught it (review29: its traceback held the frames that held
    it, a cycle per refused value)."""
    def server(name: str, args: list[str]) -> dict[str, Any]:
        pod = {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": args,
                               "resources": {"limits": {"nvidia.com/gpu": 1}}}]}
        return step(DEP_T, name, {"metadata": {"name": name, "namespace": "serving"}, "spec": {
            "selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}}})
    return {"steps": [
        server("tp-word", ["--model", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "two"]),
        server("switch-valued", ["--model", "Qwen/Qwen2.5-7B-Instruct", "--enforce-eager=true"]),
        server("fraction-above-one", ["--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "1.5",
                                      "--max-model-len", "many"]),
    ]}


def _documents() -> list[tuple[str, dict[str, Any]]]:
    return [*((str(p.relative_to(FIXTURES)), json.loads(p.read_text(encoding="utf-8"))) for p in PREVIEWS),
            ("pulumi_preview.stack_preview", stack_preview()), ("refused values", _refused_values())]


def _serve(resources: list[Any]) -> None:
    context = crossguard.StackContext()
    for r in resources:
        a = crossguard.resource_analysis(r, context)
        for rule in ALL_RULES:
            a.check(rule, None, context)
    a = crossguard.stack_analysis(resources, context)
    for rule in ALL_RULES:
        a.check(rule, None, context)


def test_the_previews_hold_kubernetes_objects_with_values_not_known():
    unknown = 0
    for name, doc in _documents():
        for r in resources_from_json(doc, name):
            if r.type.startswith("kubernetes:") and any(s in json.dumps(r.props, default=repr) for s in UNKNOWN_SENTINELS):
                unknown += 1
    assert unknown >= 17  # 17 when this test was written (packspeed23)


@pytest.mark.parametrize(("name", "doc"), _documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_request_leaves_a_reference_cycle(name, doc):
    resources = resources_from_json(doc, name)
    _serve(resources)  # once first: what is made once per process (caches, lazily imported modules) is made
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        _serve(resources)
        found = gc.collect()
        left = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert (found, left) == (0, Counter())


# the pack's main() up to its server: whether the collector is on, and whether the start was frozen
_SERVING = """
import gc, runpy
import pulumi_policy

class Served(BaseException):
    pass

def serve(**_):
    print(gc.isenabled(), gc.get_freeze_count() > 0, flush=True)
    raise Served

pulumi_policy.PolicyPack = serve  # what the pack serves with (it imports the name when it runs)
try:
    runpy.run_path("rules/__main__.py", run_name="__main__")
except Served:
    pass
"""


def test_the_pack_serves_with_the_collector_off_and_its_start_frozen():
    out = subprocess.run([sys.executable, "-c", _SERVING], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert (out.returncode, out.stdout, out.stderr) == (0, "False True\n", "")
