"""The policy pack skips a rule where the inventory it analyzes holds nothing the rule ``reads``
(``rules/checks/index.py``): ``Analysis.run`` returns at once, and the ``Analyze`` loop does not call a policy
:meth:`~shardwise.rules.app.crossguard.Analysis.idle` says would report nothing. review25 found rules reading
collections they did not name (SW206, SW305, SW306, SW312, SW404, SW406); packspeed22 checks that no preview loses a
finding by the skip: each resource of every preview fixture alone (a NetworkPolicy, an Ingress, a Service, an
autoscaler in a one-resource inventory, as ``Analyze`` reads it) and each whole preview (``AnalyzeStack``) give every
rule's policy the same violations, notes and internal errors with the skip and with every rule run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import stack_preview
from repo_paths import FIXTURES
from shardwise.rules.adapters.pulumi import resources_from_json
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


def _documents() -> list[tuple[str, dict[str, Any]]]:
    return [*((str(p.relative_to(FIXTURES)), json.loads(p.read_text(encoding="utf-8"))) for p in PREVIEWS),
            ("pulumi_preview.stack_preview", stack_preview())]


def _answers(resources: list[Any]) -> list[tuple[str, str, list[Any], list[Any], list[Any]]]:
    context = crossguard.StackContext()
    out = []
    for where, analysis in [("stack", lambda: crossguard.stack_analysis(resources, context)),
                            *((r.urn, lambda r=r: crossguard.resource_analysis(r, context)) for r in resources)]:
        for rule in ALL_RULES:
            a = analysis()  # a fresh analysis for each rule: its notes and internal errors are its own
            out.append((where, rule.meta.code, a.check(rule, None, context), a.notes, a.internal))
    return out


def test_the_previews_are_there():
    assert len(PREVIEWS) >= 24
    assert {p.parent.name for p in PREVIEWS} >= {"SW305", "SW306", "SW406", "SW404"}


@pytest.mark.parametrize(("name", "doc"), _documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_preview_loses_a_finding_by_the_pack_skipping_a_rule(name, doc, monkeypatch):
    resources = resources_from_json(doc, name)
    skipped = _answers(resources)
    context = crossguard.StackContext()
    idle = [(r.urn, rule.meta.code) for r in resources for rule in ALL_RULES
            if (reads := crossguard.rule_reads(rule)) is not None
            and crossguard.resource_analysis(r, context).idle(reads, context)]
    monkeypatch.setattr(crossguard, "_reads", lambda cls: None)  # every rule runs whatever the inventory holds
    assert crossguard.rule_reads(ALL_RULES[0]) is None
    every = _answers(resources)
    assert skipped == every
    # what Analyze does not call (Analysis.idle) reports nothing when called
    quiet = {(where, code) for where, code, out, notes, internal in every if not (out or notes or internal)}
    assert [i for i in idle if i not in quiet] == []
