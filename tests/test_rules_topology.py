"""Topology rules that judge the parallel layout against the pods and the fabric (SW204, SW205, SW206,
SW208): each fixture, through the real adapters, fires exactly the findings written beside it — line, level,
subject, message and suppression reason (``SW205/fail.yaml.expected``, test_rule_fixtures.py). Their levels follow the blocking rule of DESIGN.md: mandatory only
when the tool is sure (fewer GPUs than workers; tensor-parallel or expert traffic over TCP; a multi-node group whose GPU
is unknown), advisory otherwise, saying what would make it sure.
"""

from __future__ import annotations

import pathlib

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "rules"
CODES = ("SW204", "SW205", "SW206", "SW208", "SW209")



def inputs(code: str, kind: str) -> list[str]:
    """The names of ``code``'s fixtures of one kind (``unknown.yaml``, ``unknown.json``)."""
    return sorted(p.name for p in (FIXTURES / code).glob(f"{kind}.*") if p.suffix in (".yaml", ".json"))


def findings(code: str, name: str):
    inv = load_inputs([str(FIXTURES / code / name)])
    return [f for f in run_rules(ALL_RULES, inv) if f.code == code]


@pytest.mark.parametrize("code,name", [(c, n) for c in CODES for n in inputs(c, "unknown")])
def test_unknown_fixtures_say_cannot_decide(code, name):
    assert [f.undecided for f in findings(code, name)] == [True]


def test_the_cpu_backend_needs_no_gpu_and_no_gpu_pool():
    """vLLM's CPU backend (a CPU image, VLLM_TARGET_DEVICE=cpu, CPU-only settings, KubeAI's cpu profile):
    no GPU request is missing (SW204), no GPU pool is wanted (SW206), and cpu:6 is no GPU count (SW208)."""
    from shardwise.rules.checks._layout import runs_on_cpu

    inv = load_inputs([str(FIXTURES / "SW204" / "pass.yaml")])
    cpu = {g.name for g in inv.groups if runs_on_cpu(g)}
    assert cpu == {"opt-125m-cpu", "qwen-cpu-target", "qwen-cpu-release-image", "llama-3.1-8b-instruct-cpu"}
    kubeai = next(g for g in inv.groups if g.name == "llama-3.1-8b-instruct-cpu")
    assert (kubeai.gpus_per_pod, kubeai.cpu_backend, kubeai.pool) == (None, True, None)
    found = [(f.code, f.subject) for f in run_rules(ALL_RULES, inv) if f.code in ("SW204", "SW206", "SW208")
             and any(f.subject.endswith("/" + name) for name in cpu)]
    assert found == []
