"""``shardwise plan`` on plan cases built from public recipes (``data/plan_cases.json``, read by ``plan_cases.py``).

Each case is a recipe's model, GPU or node, release, load and layout, given to ``plan``; the test holds plan to the
plan a reviewer accepts: the recommended layout (or none), whether it starts, max_model_len, the exact mandatory
findings, findings that must and must not appear, and for a declared load the replicas, nodes, instance type billed
and its price (or why there is none). Where a case says ``lint``, the recommended layout emitted as a manifest with
the load declared lints without a mandatory finding: plan and lint agree. A case plan gets wrong is an open miss,
with why, and expected to fail (strict xfail). ``benchmarks/bench_plan_cases.py`` prints the same cases as a
scoreboard.
"""

from __future__ import annotations

import plan_cases
import pytest

CASES = plan_cases.load()


def test_the_set_covers_the_kinds_and_every_case_is_cited():
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    kinds = {c.kind for c in CASES}
    assert kinds >= {"1-gpu", "dense", "moe", "multi-node", "gb200", "mi300x", "vl", "hybrid", "limits", "price"}
    for c in CASES:
        assert c.source.startswith("https://") and c.recipe and c.why, c.id
        assert c.expect, c.id


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.open_miss)] if c.open_miss else [])
    for c in CASES])
def test_plan_case(case):
    assert plan_cases.misses(case, plan_cases.outcome(case)) == []


def test_lint_takes_vllms_deepseek_r1_dp8_recipe_as_plan_does():
    """The recipe written by hand as a Deployment (not what plan emits): eight engines, each with its own KV cache,
    hold the declared 16 sequences of 9,000 tokens; no SW103 (issue 28: one engine's KV cache was compared with the
    whole replica's load), nothing blocks, as in plan case deepseek-r1-h200-dp8-ep."""
    from pathlib import Path

    from shardwise.rules.app.run import LintOptions, lint_report

    path = Path(__file__).with_name("data") / "deepseek-r1-dp8-recipe.yaml"
    report = lint_report([str(path)], LintOptions(jobs=1))
    assert sorted((f.code, f.level) for f in report.findings) == [("SW305", "advisory")]
    (case,) = [c for c in CASES if c.id == "deepseek-r1-h200-dp8-ep"]
    assert plan_cases.outcome(case)["mandatory"] == []
