"""Rule metadata, findings, configuration and the runner.

A rule is a small class with one :class:`RuleMeta` and a ``check`` generator over an
:class:`~shardwise.rules.model.Inventory`; most check one thing at a time, a serving group
(:class:`GroupRule`) or another object of the inventory, such as a node pool or a Service
(:class:`ObjectRule`). The registry (:mod:`shardwise.rules.checks.registry`) lists them explicitly;
nothing registers itself by being imported.

The runner applies, in this order: enforcement overrides from the config (``disabled`` drops the
rule), the rule itself (an :class:`~shardwise.rules.model.Undecidable` becomes a "cannot decide"
finding, any other exception a mandatory diagnostic naming the rule and the object), then
suppressions (an annotation or config entry with a reason marks a finding suppressed; it is still
reported). A suppression without a reason is itself a finding (SW001).

The code lives in named modules; this face re-exports their public names (import from here):
:mod:`.meta` (what is published about a rule), :mod:`.findings` (hits, findings and the settings of a run),
:mod:`.rule` (the rule classes and how findings name objects) and :mod:`.runner` (running the rules). Not
re-exported, so that a small run does not load them: :mod:`.split` (the rules shared out over forked processes)
and :mod:`.forked` (work shared out over forked processes).
"""

from .findings import Finding, Hit, LintConfig, SuppressionEntry
from .meta import DOCS_URL_ENV, LEVEL_ORDER, Level, RuleMeta, Severity, rule_doc_url
from .rule import (
    OPERATOR_ADDS,
    TEMPLATE_CHECKS,
    GroupRule,
    InventoryObject,
    ObjectRule,
    Rule,
    group_subject,
    hit,
    internal_error,
    object_subject,
    subject_of,
)
from .runner import DECIDED_AT_UP, SPLIT_MIN_GROUPS, decided_by, merge_undecided, run_rule, run_rules, what_decides

__all__ = [
    "DECIDED_AT_UP",
    "DOCS_URL_ENV",
    "LEVEL_ORDER",
    "OPERATOR_ADDS",
    "SPLIT_MIN_GROUPS",
    "TEMPLATE_CHECKS",
    "Finding",
    "GroupRule",
    "Hit",
    "InventoryObject",
    "Level",
    "LintConfig",
    "ObjectRule",
    "Rule",
    "RuleMeta",
    "Severity",
    "SuppressionEntry",
    "decided_by",
    "group_subject",
    "hit",
    "internal_error",
    "merge_undecided",
    "object_subject",
    "rule_doc_url",
    "run_rule",
    "run_rules",
    "subject_of",
    "what_decides",
]
