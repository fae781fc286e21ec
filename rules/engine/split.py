"""The rules over an inventory shared out over forked processes (:mod:`.forked`): the same findings, in the
same order, as :func:`~.runner.run_rules` in one process. The front end imports this module only for a run of
at least :data:`~.runner.SPLIT_MIN_GROUPS` serving groups (start-up time: :mod:`.forked` loads :mod:`pickle`,
:mod:`tempfile` and :mod:`signal`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from ..model import Inventory, ServingGroup
from .findings import Finding, LintConfig
from .forked import map_parts, spans
from .rule import Rule
from .runner import SPLIT_MIN_GROUPS, _finding_order, run_rules

T = TypeVar("T")

#: This process checks fewer groups than each forked one: it also runs the rules that look at the
#: whole inventory (about a tenth of the time), and collects the others' findings.
_OWN_SHARE = 0.9


def run_rules_split(rules: Sequence[Rule], inv: Inventory, config: LintConfig, jobs: int,
                    per_group: Callable[[ServingGroup], T]) -> tuple[list[Finding], list[T] | None]:
    """:func:`run_rules` with the serving groups shared out over ``jobs`` processes (this one and forked
    ones, :mod:`.forked`), and ``per_group`` of every group, made where the group's rules ran (the
    report's summaries read the sizings the rules cached there). The findings are the same, in the
    same order, as one process finds them. With one job or few groups everything runs here and
    ``per_group`` is not called (None): the caller makes what it needs when it needs it."""
    groups = inv.groups
    if jobs <= 1 or len(groups) < SPLIT_MIN_GROUPS:
        return run_rules(rules, inv, config), None
    shares = spans([1] * len(groups), jobs, first=_OWN_SHARE)

    def share(i: int) -> tuple[list[Finding], list[T]]:
        start, stop = shares[i]
        found = run_rules(rules, inv, replace(config, share=(start, stop)))
        return found, [per_group(g) for g in groups[start:stop]]

    findings: list[Finding] = []
    done: list[T] = []
    for found, results in map_parts(share, len(shares)):
        findings.extend(found)
        done.extend(results)
    findings.sort(key=_finding_order)  # stable: ties keep the order of one process (shares are contiguous)
    return findings, done

