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
from shardwise.rules.app.plan import PlanRequest, make_plan

CASES = plan_cases.load()


def test_the_set_covers_the_kinds_and_every_case_is_cited():
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    kinds = {c.kind for c in CASES}
    assert kinds >= {"1-gpu", "dense", "moe", "multi-node", "gb200", "mi300x", "vl", "hybrid", "limits", "price"}
    for c in CASES:
        assert c.source.startswith("https://") and c.recipe and c.why, c.id
        assert c.expect, c.id


def test_the_second_set_asks_what_the_first_does_not():
    """plan_cases_2.json: 30+ cases, none of them a request of plan_cases.json, most from sources it does not cite
    (GKE tutorials, production-stack, llm-d); four vLLM guides are shared, with other models, GPUs or layouts."""
    import json

    first, second = plan_cases.load(plan_cases.DATA), plan_cases.load(plan_cases.DATA_2)
    assert len(second) >= 30
    asked = {json.dumps(c.request, sort_keys=True) for c in first}
    assert not [c.id for c in second if json.dumps(c.request, sort_keys=True) in asked]
    cited = {c.source for c in first}
    assert len([c for c in second if c.source not in cited]) >= 30
    assert {c.kind for c in second} >= {"1-gpu", "dense", "moe", "multi-node", "gb200", "mi300x", "vl", "hybrid",
                                         "limits", "price"}


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


def test_the_text_and_the_json_agree_on_whether_the_layout_starts():
    """gpt-oss-20b on one A10G (vLLM 0.11.0): the margin outside the KV budget (2.21 GiB) is short of what it must hold
    (2.73 GiB) on the central estimate, inside the error band: SW101 says vLLM may fail at start-up, the JSON's
    ``starts`` is false, and the text says "maybe", not "yes"."""
    from shardwise.rules.app.plan import plan_json, plan_text

    plan = make_plan(PlanRequest(model="openai/gpt-oss-20b", gpu="A10G", vllm_version="0.11.0", p95_context=8192))
    assert plan_json(plan)["starts"] is False
    (line,) = [line for line in plan_text(plan).splitlines() if line.startswith("  starts ")]
    assert line.split()[1:3] == ["maybe:", "within"]
    assert [f.level for f in plan.shown.findings if f.code == "SW101"] == ["advisory"]


def test_the_vendored_manifests_are_the_recipes_files():
    """Every file under data/recipes is named in PROVENANCE.json with its repository, path, commit, licence and
    sha256, and every case's ``manifest`` is one of them."""
    import hashlib
    import json

    prov = json.loads((plan_cases.RECIPES / "PROVENANCE.json").read_text())
    files = sorted(p.name for p in plan_cases.RECIPES.iterdir() if p.name != "PROVENANCE.json")
    assert sorted(e["file"] for e in prov) == files
    for e in prov:
        assert e["repository"] and e["path"] and len(e["commit"]) == 40 and e["licence"], e["file"]
        assert (plan_cases.ROOT / e["licence_file"]).is_file(), e["file"]
        assert hashlib.sha256((plan_cases.RECIPES / e["file"]).read_bytes()).hexdigest() == e["sha256"], e["file"]
    assert {c.manifest for c in CASES if c.manifest} <= set(files)
