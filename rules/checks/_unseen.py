"""Workloads of which a part is not known yet at preview (a pod template, a container, a command line).

The Pulumi adapter reports such a workload as a :class:`~shardwise.rules.model.LaunchIssue` whose
``unknown_part`` says what is not known (SW002 notes it). A security rule that reads that part cannot
decide, and fails closed: :func:`unseen_hits` gives its "cannot decide" finding, once per workload.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from ..engine import DECIDED_AT_UP, Hit, LintConfig
from ..model import Inventory, LaunchIssue


def unseen(inv: Inventory) -> list[LaunchIssue]:
    """The workloads with a part that is not known yet, in input order."""
    return [i for i in inv.launch_issues if i.unknown_part and not i.crash]


def unseen_hits(inv: Inventory, what: str, level: Literal["advisory", "mandatory"] | None = None,
                only: list[LaunchIssue] | None = None) -> Iterator[Hit]:
    """One undecided hit per workload of :func:`unseen` (or ``only``): ``what`` the rule would read in it
    ("whether it sets VLLM_SERVER_DEV_MODE") cannot be decided while its unknown part is not known."""
    for issue in unseen(inv) if only is None else only:
        yield Hit(issue.subject, f"cannot decide: {what}: {issue.unknown_part} is not known (a computed value at "
                  f"preview; {DECIDED_AT_UP})", issue.location,
                  tuple(issue.suppressions), undecided=True, level=level)


def held_back_hits(inv: Inventory, config: LintConfig, what: str,
                   only: list[LaunchIssue] | None = None) -> Iterator[Hit]:
    """The "cannot decide" notes of a launch, capacity, topology or reliability rule that reads the pod (SW003, SW101,
    SW102, SW104-SW106, SW2xx, SW401, SW402, SW407, SW408; SW103 on those that declare a load) on the workloads of
    :func:`unseen` (or ``only``): no serving group is
    read from such a workload, so the rule has nothing to judge, and would say nothing. Advisory (DESIGN.md, "Unknown,
    and what is not": an undecided capacity or topology finding is; the security rules that read the same part fail
    closed beside it); the runner merges them into one finding per workload and level, which names each rule it
    holds back. Once, not in every share of a split run."""
    if config.share is None or config.share[0] == 0:
        yield from unseen_hits(inv, what, level="advisory", only=only)
