"""SW001: a suppression that gives no reason."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine import Hit, LintConfig, Rule, RuleMeta, group_subject
from ..model import Inventory


class SuppressionWithoutReason(Rule):
    meta = RuleMeta(
        code="SW001",
        name="suppression-without-reason",
        enforcement="mandatory",
        severity="medium",
        summary="A rule is suppressed without a written reason.",
        why=(
            "A suppression hides a check from every later reader. Without the reason (a benchmark, a "
            "measured quality loss, an accepted risk) nobody can tell whether it still holds, so the "
            "exception outlives the facts it was based on."
        ),
        bad_example='metadata:\n  annotations:\n    shardwise.dev/ignore: "SW104"',
        good_example=(
            'metadata:\n  annotations:\n    shardwise.dev/ignore: "SW104: benchmarked TP2 TPOT p95 18 ms '
            'vs 31 ms at TP1"'
        ),
        remediation="Write the reason after the code and a colon, or remove the suppression.",
        references=("https://github.com/shardwise/shardwise/blob/main/README.md#suppressions",),
        scope="resource",
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        for g in inv.groups:
            for s in g.suppressions:
                if not s.reason.strip():
                    yield Hit(
                        group_subject(g),
                        f"SW001: suppression of {s.code} on {g.name} gives no reason; "
                        f"write it as \"{s.code}: <reason>\"",
                        s.location if s.location.file or s.location.urn else g.location,
                    )
        others: list[Any] = [*inv.pools, *inv.security_groups, *inv.subnets, *inv.launch_templates,
                             *inv.services, *inv.ingresses, *inv.autoscalers]
        for obj in others:
            for s in getattr(obj, "suppressions", ()):
                if not s.reason.strip():
                    yield Hit(
                        f"{type(obj).__name__} {obj.name}",
                        f"SW001: suppression of {s.code} on {obj.name} gives no reason; "
                        f"write it as \"{s.code}: <reason>\"",
                        obj.location,
                    )
