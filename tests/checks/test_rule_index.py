"""The registry as data (``rules/checks/index.py``): a lint run imports only the rules whose objects its inventory
holds. The index names every rule of the registry, in its order, with its module and class; what each rule
``reads`` is honest (with those collections empty the rule says nothing, on every rule fixture, example and stack);
and a run over the rules :func:`rules_for` picks finds exactly what the whole registry finds."""

from __future__ import annotations

import dataclasses
import functools
import subprocess
import sys
from typing import Any

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs
from shardwise.rules.checks import index
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import GroupRule, LintConfig, ObjectRule, run_rule, run_rules
from shardwise.rules.model import Inventory

INPUTS = sorted(
    [*(p for p in (ROOT / "tests" / "fixtures" / "rules").glob("SW*/*") if p.suffix in (".yaml", ".json")),
     *(ROOT / "examples").glob("*.yaml"), *(ROOT / "stacks").glob("Pulumi.*.yaml")])
COLLECTIONS = {f.name for f in dataclasses.fields(Inventory) if f.type.startswith("list[")}


def _inventory(path) -> Inventory:
    return read_inputs([str(path)], jobs=1)


def test_the_index_is_the_registry():
    assert [(code, f"shardwise.rules.checks.{module}", cls) for code, module, cls, _ in index.RULES] == [
        (r.meta.code, type(r).__module__, type(r).__name__) for r in ALL_RULES]
    assert list(index.CODES) == [r.meta.code for r in ALL_RULES]
    assert dict(index.Metas()) == {r.meta.code: r.meta for r in ALL_RULES}
    assert len(index.Metas()) == len(ALL_RULES)


def test_every_rule_reads_collections_of_the_inventory():
    assert [(code, sorted(set(reads) - COLLECTIONS)) for code, _, _, reads in index.RULES
            if not reads or set(reads) - COLLECTIONS] == []


def test_the_inputs_give_every_collection_a_rule_reads():
    """The checks below mean something: each collection some rule reads is non-empty in some input."""
    read = {name for *_, reads in index.RULES for name in reads}
    seen = {name for p in INPUTS for name in read if getattr(_inventory(p), name)}
    assert sorted(read - seen) == []


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_rule_says_nothing_when_what_it_reads_is_empty(path):
    inv = _inventory(path)
    config = LintConfig()
    loud = []
    for rule, (code, _, _, reads) in zip(ALL_RULES, index.RULES, strict=True):
        emptied = dataclasses.replace(inv, **{name: [] for name in reads}, index={})
        found = list(run_rule(rule, emptied, config))
        if found:
            loud.append((code, [f.message for f in found]))
    assert loud == []


def test_what_a_rule_also_reads_is_of_the_inventory_and_not_its_reads():
    assert set(index.ALSO_READS) <= set(index.CODES)
    assert [(code, also) for code, _, _, reads in index.RULES for also in index.ALSO_READS.get(code, ())
            if also not in COLLECTIONS or also in reads] == []


_READ: set[str] = set()


class _Recording(Inventory):
    """An inventory that notes every collection read of it (into ``_READ``)."""

    def __getattribute__(self, name: str) -> Any:
        if name in COLLECTIONS:
            _READ.add(name)
        return object.__getattribute__(self, name)


def _recording(inv: Inventory) -> Inventory:
    rec = object.__new__(_Recording)
    for f in dataclasses.fields(Inventory):
        object.__setattr__(rec, f.name, getattr(inv, f.name))
    object.__setattr__(rec, "index", {})
    return rec


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_rule_reads_no_collection_the_index_does_not_name(path):
    """review25/packspeed22: every collection a rule reads on an input is one of its ``reads`` or its ``ALSO_READS``,
    so that one read anew is declared where the index (and the policy pack's skip) can be checked for it."""
    inv = _inventory(path)
    unnamed = []
    for rule, (code, _, _, reads) in zip(ALL_RULES, index.RULES, strict=True):
        _READ.clear()
        list(run_rule(rule, _recording(inv), LintConfig()))
        named = {*reads, *index.ALSO_READS.get(code, ())}
        if _READ - named:
            unnamed.append((code, sorted(_READ - named)))
    assert unnamed == []


@functools.cache
def _every_input() -> Inventory:
    """One inventory of every input's collections at once (one deployable unit): each collection a rule does not read
    holds every shape of object the inputs give it."""
    every = Inventory()
    for path in INPUTS:
        inv = _inventory(path)
        for name in COLLECTIONS:
            getattr(every, name).extend(getattr(inv, name))
    return every


def test_with_what_it_reads_empty_a_rule_says_nothing_whatever_the_rest_holds():
    """packspeed22: the policy pack skips a rule where the one-resource (or stack) inventory holds nothing it
    ``reads``, whatever the other collections hold (a NetworkPolicy, an Ingress or an autoscaler alone in a resource's
    inventory); the inputs' objects of every other collection at once, with the rule's ``reads`` empty, give none of
    the rules a finding."""
    every = _every_input()
    read = {name for code, _, _, reads in index.RULES for name in (*reads, *index.ALSO_READS.get(code, ()))}
    assert [name for name in sorted(read) if not getattr(every, name)] == []  # every collection a rule reads is full
    loud = []
    for rule, (code, _, _, reads) in zip(ALL_RULES, index.RULES, strict=True):
        found = list(run_rule(rule, dataclasses.replace(every, **{name: [] for name in reads}, index={}),
                              LintConfig()))
        if found:
            loud.append((code, [f.message for f in found][:3]))
    assert loud == []


def test_a_rule_takes_its_objects_only_from_what_it_reads():
    """A group rule's groups and an object rule's objects come from its ``reads`` only: with every other collection
    full (the inputs' objects at once) and its ``reads`` empty it has none (SW306 took Ingresses and did not read
    them, packspeed22)."""
    every = _every_input()
    taken = []
    for rule, (code, _, _, reads) in zip(ALL_RULES, index.RULES, strict=True):
        for name in sorted(COLLECTIONS - set(reads)):
            alone = dataclasses.replace(Inventory(), **{name: getattr(every, name)})
            objects: list[object] = (list(rule.objects(alone)) if isinstance(rule, ObjectRule) else
                                     list(rule.groups(alone)) if isinstance(rule, GroupRule) else [])
            if objects:
                taken.append((code, name))
    assert taken == []


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_rules_a_run_picks_find_what_the_registry_finds(path):
    inv = _inventory(path)
    picked = index.rules_for(inv)
    assert [r.meta.code for r in picked] == [code for code, _, _, reads in index.RULES
                                              if any(getattr(inv, name) for name in reads)]
    assert run_rules(picked, inv) == run_rules(ALL_RULES, dataclasses.replace(inv, index={}))


def test_a_one_file_lint_imports_only_the_rules_it_runs():
    """A Deployment with a Service and no Ingress, launch issue or ConfigMap: the rules of launch issues (SW002,
    SW003, SW005) and of Ingresses (SW406) are not imported, nor the registry."""
    code = (
        "import sys\n"
        "from shardwise.rules.app.cli import main\n"
        "rc = main(['lint', 'tests/fixtures/rules/SW104/fail.yaml', '--format', 'json', '--output', '/dev/null'])\n"
        "print(rc, sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('shardwise.rules.checks.')"
        " and m.rsplit('.', 1)[1] in ('registry', 'sw002', 'sw003', 'sw005', 'sw406', 'sw101', 'sw305')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "1 ['sw101', 'sw305']"


def test_import_rules_for_imports_the_modules_rules_for_makes_and_makes_none():
    """lintspeed17: a parallel lint imports its rules while it still reads (``import_rules_for`` on each batch the
    parent read); rules_for then imports nothing more. A Deployment with a Service: the same modules as the lint
    above, and no rule object made by the import."""
    code = (
        "import sys\n"
        "from shardwise.rules.adapters import read_inputs\n"
        "from shardwise.rules.checks import index\n"
        "inv = read_inputs(['tests/fixtures/rules/SW104/fail.yaml'], jobs=1)\n"
        "def rules_imported():\n"
        "    return sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('shardwise.rules.checks.sw'))\n"
        "before = rules_imported()\n"
        "index.import_rules_for(inv)\n"
        "imported = rules_imported()\n"
        "made = sorted(type(r).__module__.rsplit('.', 1)[1] for r in index.rules_for(inv))\n"
        "print(before, imported == made, rules_imported() == imported, 'sw101' in made, 'sw406' in made)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[] True True True False"
