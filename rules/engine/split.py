"""The rules over an inventory shared out over forked processes (:mod:`.forked`): the same findings, in the
same order, as :func:`~.runner.run_rules` in one process. The front end imports this module only for a run of
at least :data:`~.runner.SPLIT_MIN_GROUPS` serving groups (start-up time: :mod:`.forked` loads :mod:`pickle`,
:mod:`tempfile` and :mod:`signal`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TypeVar

from ..model import Inventory, ServingGroup
from .findings import Finding, LintConfig
from .forked import Tickets, batches, map_pieces
from .rule import Rule
from .runner import SPLIT_MIN_GROUPS, _finding_order, run_rules

T = TypeVar("T")

#: Serving groups per batch a process takes (:func:`run_rules_split`): each batch runs every rule once over its
#: groups, so a batch is large enough that this costs little beside checking the groups; and the fewest in the
#: smaller batches at the end (:func:`~.forked.batches`), where a process that is done waits for the others' last.
_BATCH_GROUPS = 50
_LEAST_GROUPS = 8


def run_rules_split(rules: Sequence[Rule], inv: Inventory, config: LintConfig, jobs: int,
                    per_group: Callable[[ServingGroup], T]) -> tuple[list[Finding], list[T] | None]:
    """:func:`run_rules` with the serving groups shared out over ``jobs`` processes (this one and forked
    ones, :mod:`.forked`), and ``per_group`` of every group, made where the group's rules ran (the
    report's summaries read the sizings the rules cached there). The findings are the same, in the
    same order, as one process finds them. With one job or few groups everything runs here and
    ``per_group`` is not called (None): the caller makes what it needs when it needs it.

    The groups are cut into batches of :data:`_BATCH_GROUPS`, smaller towards the end (:func:`~.forked.batches`),
    and each process takes the next batch when it is done with one (:class:`~.forked.Tickets`): a process the
    machine gives less CPU checks fewer groups rather than holding up the others with a fixed share. The rules
    that look at the whole inventory run with the batch that starts at the first group, once. A batch whose
    process failed is checked here."""
    groups = inv.groups
    if jobs <= 1 or len(groups) < SPLIT_MIN_GROUPS:
        return run_rules(rules, inv, config), None
    bounds = batches(len(groups), jobs, _BATCH_GROUPS, _LEAST_GROUPS)

    def batch(k: int) -> tuple[list[Finding], list[T]]:
        start, stop = bounds[k]
        found = run_rules(rules, inv, replace(config, share=(start, stop)))
        return found, [per_group(g) for g in groups[start:stop]]

    with Tickets(len(bounds)) as tickets:

        def share(_: int) -> Iterator[tuple[int, tuple[list[Finding], list[T]]]]:
            for k in tickets:
                yield k, batch(k)

        done = {k: result for pieces in map_pieces(share, jobs) for k, result in pieces}
    findings: list[Finding] = []
    made: list[T] = []
    for k in range(len(bounds)):
        found, results = done[k] if k in done else batch(k)
        findings.extend(found)
        made.extend(results)
    findings.sort(key=_finding_order)  # stable: ties keep the order of one process (batches are in order)
    return findings, made
