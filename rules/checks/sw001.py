"""SW001: a suppression that gives no reason, or names no rule."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine import Hit, InventoryObject, LintConfig, ObjectRule, RuleMeta, group_subject
from ..model import Inventory, ServingGroup
from .index import CODES


class SuppressionWithoutReason(ObjectRule[InventoryObject]):
    meta = RuleMeta(
        code="SW001",
        name="suppression-without-reason",
        enforcement="mandatory",
        severity="medium",
        summary="A rule is suppressed without a written reason, or a suppression names no rule.",
        why=(
            "A suppression hides a check from every later reader. Without the reason (a benchmark, a "
            "measured quality loss, an accepted risk) nobody can tell whether it still holds, so the "
            "exception outlives the facts it was based on. A suppression of a code that is no rule (`SW999`, "
            "a rule's code mistyped as another number) suppresses nothing and hides the typo from its reader."
        ),
        bad_example='metadata:\n  annotations:\n    shardwise.dev/ignore: "SW104"',
        good_example=(
            'metadata:\n  annotations:\n    shardwise.dev/ignore: "SW104: benchmarked TP2 TPOT p95 18 ms '
            'vs 31 ms at TP1"'
        ),
        remediation="Write the reason after the code and a colon, correct a code that is no rule (`shardwise rules` "
                    "lists them), or remove the suppression.",
        references=("https://github.com/shardwise/shardwise/blob/main/README.md#suppressions",),
        scope="resource",
    )

    def objects(self, inv: Inventory) -> Iterable[InventoryObject]:
        return [*inv.groups, *inv.pools, *inv.security_groups, *inv.subnets, *inv.launch_templates, *inv.services,
                *inv.ingresses, *inv.routers, *inv.autoscalers]

    def check_object(self, obj: InventoryObject, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        named: Any = obj
        for s in obj.suppressions:
            if s.code not in CODES:  # hostile9: was silent (the finding it meant stayed, with no word of the typo)
                message = (f"suppression of {s.code} on {named.name} names no shardwise rule, so it suppresses "
                           "nothing; correct the code (`shardwise rules` lists them) or remove it")
            elif s.reason.strip():
                continue
            else:
                message = (f"suppression of {s.code} on {named.name} gives no reason; "
                           f"write it as \"{s.code}: <reason>\"")
            if isinstance(obj, ServingGroup):
                where = s.location if s.location.file or s.location.urn else obj.location
                yield Hit(group_subject(obj), message, where)
            else:
                yield Hit(f"{type(obj).__name__} {named.name}", message, obj.location)
