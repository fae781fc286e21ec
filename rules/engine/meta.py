"""What is published about a rule: its :class:`RuleMeta` (docs, SARIF and CrossGuard policies are made from it),
the enforcement levels and severities, and where a rule's page is."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

Level = Literal["advisory", "mandatory", "disabled"]
Severity = Literal["low", "medium", "high", "critical"]
LEVEL_ORDER = {"disabled": 0, "advisory": 1, "mandatory": 2}


@dataclass(frozen=True)
class RuleMeta:
    """Everything published about one rule; docs, SARIF and CrossGuard policies are made from it."""

    code: str  # SWnnn, stable, never reused
    name: str  # kebab-case name of the bad pattern
    enforcement: Literal["advisory", "mandatory"]
    severity: Severity
    summary: str  # one line
    why: str  # why it matters
    bad_example: str
    good_example: str
    remediation: str  # full sentences, ending in a period
    references: tuple[str, ...] = ()
    scope: Literal["resource", "stack"] = "stack"
    safe_to_skip_unknown: bool = False  # an unknown input may be skipped with an advisory note
    mandatory_when: str | None = None  # an advisory rule whose hits are mandatory in this case
    #: Whether the rule checks ``shardwise plan``'s sized replica (a serving group of kind ``"plan"``: a
    #: model, a GPU and engine arguments, no manifest, pod or container). The runner skips plans for the
    #: rules that read what only a manifest has (env, probes, the pod's host access, the GPU request).
    applies_to_plans: bool = True

    @property
    def enforcement_text(self) -> str:
        """The default enforcement as people read it, e.g. "advisory (mandatory for multi-node groups)"."""
        return f"{self.enforcement} (mandatory {self.mandatory_when})" if self.mandatory_when else self.enforcement

    @property
    def highest_enforcement(self) -> Literal["advisory", "mandatory"]:
        return "mandatory" if self.mandatory_when else self.enforcement

    @property
    def decides_capacity_or_topology(self) -> bool:
        """SW1xx (capacity) and SW2xx (topology and placement): an undecided finding is advisory by
        default, because blocking a sound layout on a value the tool could not read gets the gate
        removed; security and other rules fail closed."""
        return self.code.startswith(("SW1", "SW2"))

    @property
    def doc_url(self) -> str | None:
        """The rule's page under the one configurable base URL (``SHARDWISE_DOCS_URL``, e.g. where a team
        hosts ``shardwise docs --out``), or None: the project has no public docs site yet, so reports link
        nowhere by default and name the docs that ship with the package (:attr:`doc_ref`)."""
        return rule_doc_url(self.code)

    @property
    def doc_ref(self) -> str:
        """Where to read the rule's documentation: its page under ``SHARDWISE_DOCS_URL``, else the command
        that prints the copy installed with the package."""
        return self.doc_url or f"shardwise explain {self.code}"


#: The environment variable that holds the base URL of the rule pages (``<base>/SW104.md``).
DOCS_URL_ENV = "SHARDWISE_DOCS_URL"


def rule_doc_url(code: str) -> str | None:
    base = os.environ.get(DOCS_URL_ENV, "").strip()
    return f"{base.rstrip('/')}/{code}.md" if base else None

