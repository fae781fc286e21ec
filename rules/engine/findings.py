"""What a rule yields (:class:`Hit`), what a run reports (:class:`Finding`) and the settings of one run
(:class:`LintConfig`, with the configuration's suppressions)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Literal

from ..model import Location, Suppression
from .meta import Level, Severity


@dataclass(frozen=True)
class Finding:
    """One finding of one rule on one object."""

    code: str
    name: str
    level: Literal["advisory", "mandatory"]
    severity: Severity
    message: str  # what is wrong, without the code: reports that show the code apart put it where they want
    location: Location
    subject: str  # the object the finding is about, e.g. "Deployment default/llama"
    suppressed: bool = False
    suppression_reason: str | None = None
    undecided: bool = False  # the rule could not decide because an input was unknown
    internal: bool = False  # the rule crashed: always mandatory, never suppressed
    #: The other rules this "cannot decide" finding stands for (:func:`~.runner.merge_undecided`): their
    #: findings about the same unknown on the same object, at the same level, merged into this one.
    held: tuple[str, ...] = ()

    @property
    def codes(self) -> tuple[str, ...]:
        """The rules this finding is of: its own code, then those it holds back (``held``)."""
        return (self.code, *self.held)

    @property
    def blocking(self) -> bool:
        return self.level == "mandatory" and not self.suppressed

    @property
    def coded_message(self) -> str:
        """The message after its code, as the reports that show it in one string do: ``SW104: …``."""
        return f"{self.code}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "codes": list(self.codes),
            "name": self.name,
            "level": self.level,
            "severity": self.severity,
            "message": self.coded_message,
            "subject": self.subject,
            "file": self.location.file,
            "line": self.location.line,
            "urn": self.location.urn,
            "suppressed": self.suppressed,
            "suppression_reason": self.suppression_reason,
            "undecided": self.undecided,
            "internal": self.internal,
        }


@dataclass(frozen=True)
class Hit:
    """What a rule yields: a message about one object (without the rule's code: the finding carries it)."""

    subject: str
    message: str
    location: Location
    suppressions: tuple[Suppression, ...] = ()
    undecided: bool = False
    level: Literal["advisory", "mandatory"] | None = None  # escalation (RuleMeta.mandatory_when)
    internal: bool = False  # the rule crashed on this object
    #: why the hit is sure on any accelerator, in words (SW101: the weights alone exceed the device's whole memory),
    #: else "": a blocking hit with it keeps blocking on an accelerator the capacity model sizes as if it were a CUDA
    #: GPU (``GroupRule._on_sized_as_cuda``, mend15)
    sure_anywhere: str = ""


@dataclass
class SuppressionEntry:
    """A config-file suppression: a rule code, a glob over finding subjects, and the reason."""

    code: str
    reason: str
    subject: str = "*"


@dataclass
class LintConfig:
    """Settings for one run (from ``shardwise.toml``/``.shardwise.yaml``, CLI flags or policy config)."""

    enforcement: dict[str, Level] = field(default_factory=dict)
    suppressions: list[SuppressionEntry] = field(default_factory=list)
    kv_reserve: float = 1.4
    usable_fraction: float = 0.90
    p95_context_tokens: int | None = None
    unknown_is_failure: bool = True
    #: The configuration set ``unknown`` itself. Unset, an undecided capacity or topology finding
    #: (SW1xx, SW2xx) is advisory and an undecided security finding keeps its rule's level (fail
    #: closed); ``unknown = "fail"`` keeps every rule's level, ``unknown = "warn"`` makes all advisory.
    unknown_configured: bool = False
    production: bool | None = None
    #: What set :attr:`production`, as SW404's finding names it (``shardwise.toml sets `production```); empty: the
    #: run's settings.
    production_from: str = ""
    #: Namespaces (globs) whose default-deny ingress policy lives outside the linted inputs (SW305).
    default_deny_namespaces: tuple[str, ...] = ()
    #: A kustomization or chart met while searching that was not built makes SW005 block (``require_build``).
    require_build: bool = False
    #: One share of a run split over processes (:func:`run_rules_split`): group rules check only
    #: ``inv.groups[start:stop]``, and the other rules run only in the share that starts at 0.
    share: tuple[int, int] | None = None



def suppressed_by(code: str, h: Hit, config: LintConfig) -> str | None:
    """The reason a finding of rule ``code`` made of ``h`` is suppressed for: a reasoned suppression of the object
    (annotation or comment), then one of the configuration whose glob matches the subject; None where none is."""
    for s in h.suppressions:
        if s.code == code and s.reason:
            return s.reason
    for e in config.suppressions:
        if e.code == code and e.reason and fnmatch.fnmatchcase(h.subject, e.subject):
            return e.reason
    return None
