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
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from ..model import (
    UNKNOWN_AT,
    Autoscaler,
    Ingress,
    Inventory,
    LaunchIssue,
    Location,
    ModelNotKnown,
    NetworkPolicy,
    ServingGroup,
    Suppression,
    Undecidable,
)
from ..model.vocab import ANN_BASE_MODEL

T = TypeVar("T")
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


@dataclass(frozen=True)
class Finding:
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
    #: Namespaces (globs) whose default-deny ingress policy lives outside the linted inputs (SW305).
    default_deny_namespaces: tuple[str, ...] = ()
    #: One share of a run split over processes (:func:`run_rules_split`): group rules check only
    #: ``inv.groups[start:stop]``, and the other rules run only in the share that starts at 0.
    share: tuple[int, int] | None = None


class Rule:
    """Base class: subclasses set ``meta`` and implement ``check``."""

    meta: ClassVar[RuleMeta]

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:  # pragma: no cover
        raise NotImplementedError

    def applies_to(self, g: ServingGroup) -> bool:
        """Whether the rule checks serving group ``g``: a plan only when its metadata says it applies to plans."""
        return self.meta.applies_to_plans or g.kind != "plan"

    def groups(self, inv: Inventory) -> Iterator[ServingGroup]:
        """The serving groups of ``inv`` the rule checks (:meth:`applies_to`), in input order."""
        return (g for g in inv.groups if self.applies_to(g))


class InventoryObject(Protocol):
    """What a finding about one object of the inventory needs of it: where it is written and its suppressions."""

    @property
    def location(self) -> Location: ...

    @property
    def suppressions(self) -> Sequence[Suppression]: ...


#: The objects whose ``kind`` is their Kubernetes kind (a node pool's says where it was read from).
_KINDED = (Ingress, Autoscaler, NetworkPolicy)


def object_subject(kind: str, name: str, namespace: str | None = None) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def group_subject(g: ServingGroup) -> str:
    return object_subject(g.kind, g.name, g.namespace)


def subject_of(obj: InventoryObject) -> str:
    """How findings name an object of the inventory: ``Deployment serving/llama``, ``NodePool gpu``,
    ``SecurityGroup gpu-nodes``, ``Service serving/llama``, ``HTTPRoute serving/chat``."""
    if isinstance(obj, ServingGroup):
        return group_subject(obj)
    if isinstance(obj, LaunchIssue):
        return obj.subject
    named: Any = obj
    kind = named.kind if isinstance(obj, _KINDED) else type(obj).__name__
    return object_subject(kind, named.name, getattr(named, "namespace", None))


def hit(
    obj: InventoryObject,
    message: str,
    location: Location | None = None,
    level: Literal["advisory", "mandatory"] | None = None,
) -> Hit:
    """A hit on one object of the inventory (a serving group, a node pool, a Service ...), carrying its
    suppressions."""
    return Hit(subject_of(obj), message, location or obj.location, tuple(obj.suppressions), level=level)


def _level_for(meta: RuleMeta, config: LintConfig) -> Level:
    return config.enforcement.get(meta.code, meta.enforcement)


def _apply_suppression(f: Finding, h: Hit, config: LintConfig) -> Finding:
    for s in h.suppressions:
        if s.code == f.code and s.reason:
            return replace(f, suppressed=True, suppression_reason=s.reason)
    for e in config.suppressions:
        if e.code == f.code and e.reason and fnmatch.fnmatchcase(f.subject, e.subject):
            return replace(f, suppressed=True, suppression_reason=e.reason)
    return f


#: How the message of an undecided finding starts.
_CANNOT = "cannot decide: "


def _undecided_level(meta: RuleMeta, config: LintConfig, level: Literal["advisory", "mandatory"],
                     hit_level: Literal["advisory", "mandatory"] | None = None) -> Literal["advisory", "mandatory"]:
    """The level of a "cannot decide" finding of ``meta`` whose rule runs at ``level``.

    ``unknown = "warn"`` makes it advisory, ``unknown = "fail"`` the highest level the rule can give
    (unless the configuration set the rule's level). Unset: capacity and topology rules are advisory
    unless the rule itself escalated the hit (``hit_level``, e.g. SW206 for a multi-node group);
    other rules keep their level (security fails closed).
    """
    if meta.safe_to_skip_unknown or not config.unknown_is_failure:
        return "advisory"
    if config.unknown_configured:
        return level if meta.code in config.enforcement else meta.highest_enforcement
    if meta.decides_capacity_or_topology:
        return hit_level or "advisory"
    return hit_level or level


def run_rule(rule: Rule, inv: Inventory, config: LintConfig) -> Iterator[Finding]:
    """Run one rule with its enforcement level, unknown handling, crash containment and suppressions."""
    meta = rule.meta
    level = _level_for(meta, config)
    if level == "disabled":
        return
    try:
        hits = list(rule.check(inv, config))
    except Undecidable as u:
        yield Finding(
            meta.code, meta.name, _undecided_level(meta, config, level), meta.severity,
            f"{_CANNOT}{u.text}; the rule is re-checked when the value is known",
            Location(), "(inventory)", undecided=True,
        )
        return
    except Exception as exc:  # noqa: BLE001 - a crash in one rule must not hide the others
        yield Finding(
            meta.code, meta.name, "mandatory", "high", internal_error(meta, exc), Location(), "(inventory)",
            internal=True,
        )
        return
    for h in hits:
        if h.internal:
            yield Finding(meta.code, meta.name, "mandatory", "high", h.message, h.location, h.subject, internal=True)
            continue
        lvl: Literal["advisory", "mandatory"] = level
        if h.level and meta.code not in config.enforcement:  # a configured level wins over escalation
            lvl = h.level
        if h.undecided:
            lvl = _undecided_level(meta, config, level, h.level if meta.code not in config.enforcement else None)
        f = Finding(meta.code, meta.name, lvl, meta.severity, h.message, h.location, h.subject,
                    undecided=h.undecided)
        yield _apply_suppression(f, h, config)


def internal_error(meta: RuleMeta, exc: Exception) -> str:
    return f"internal error in rule {meta.name}: {type(exc).__name__}: {exc}"


def _finding_order(f: Finding) -> tuple[str, int, str, str]:
    return (f.location.file or "", f.location.line or 0, f.code, f.subject)


def run_rules(rules: Iterable[Rule], inv: Inventory, config: LintConfig | None = None) -> list[Finding]:
    config = config or LintConfig()
    out: list[Finding] = []
    for rule in rules:
        if config.share is not None and config.share[0] > 0 and not isinstance(rule, GroupRule):
            continue
        out.extend(run_rule(rule, inv, config))
    out.sort(key=_finding_order)
    return out


def merge_undecided(findings: list[Finding]) -> list[Finding]:
    """One "cannot decide" finding per workload and unknown value, not one per rule it holds back.

    The unsuppressed advisory undecided findings of one subject that name the same unknown
    (``tensor_parallel_size is not known …``) become one: the lowest code's, naming the codes of all
    and what would make them decidable, at its location (the unknown value's line where it is written).
    Suppressed ones stay as they are (each names its reason), and so do blocking ones (a rule that fails
    closed on the unknown is addressed, configured and suppressed by its own code). The lint report
    shows these; each rule (CrossGuard's policies, :func:`run_rules`) still yields its own."""
    keyed: dict[tuple[str, str], list[Finding]] = {}
    out: list[Finding] = []
    for f in findings:
        if (f.undecided and f.level == "advisory" and not f.suppressed and not f.internal
                and f.message.startswith(_CANNOT)):
            keyed.setdefault((f.subject, f.message[len(_CANNOT):]), []).append(f)
        else:
            out.append(f)
    for (_, text), same in keyed.items():
        if len(same) == 1:
            out.append(same[0])
            continue
        first = min(same, key=lambda f: f.code)
        codes = ", ".join(sorted({f.code for f in same}))
        reason = text.removesuffix("; the rule is re-checked when the value is known")
        out.append(replace(first, message=(
            f"{_CANNOT}{reason}; this holds back {codes}, which are checked once the value "
            "is known: write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a "
            "computed output)")))
    out.sort(key=_finding_order)
    return out


#: Below this many serving groups the rules run in this process only.
SPLIT_MIN_GROUPS = 200
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
    from .forked import map_parts, spans

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


#: Rules about what an operator may add to the pod it builds (the GPU request, /dev/shm, probes): on a group
#: the generic reader read (``ServingGroup.unknown_operator``) their blocking findings are advisory.
OPERATOR_ADDS = frozenset({"SW204", "SW401", "SW402"})


#: The rules that run on a serving runtime read alone (``ServingGroup.template``): those about its own container.
TEMPLATE_CHECKS = frozenset({"SW003", "SW105", "SW307", "SW309", "SW310", "SW401", "SW402", "SW407", "SW408"})


class GroupRule(Rule):
    """A rule that looks at one serving group at a time.

    An unknown value makes *this group* undecided (not the whole inventory): the finding names the
    group and the unknown property. A crash on one group is a mandatory internal-error finding on
    that group; the rule still checks the others. Plans are skipped unless the rule applies to them
    (``RuleMeta.applies_to_plans``).

    ``fields`` names the fields a finding of the rule asks to change (engine flags such as
    ``"tensor_parallel_size"``, or ``ServingGroup.locations`` keys such as ``"resources"``): a hit
    at the group's own location points at the first of them that is written (an undecided one at the
    unknown property first), so the finding's line is the line to change.
    """

    fields: ClassVar[tuple[str, ...]] = ()

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        groups = inv.groups if config.share is None else inv.groups[config.share[0]:config.share[1]]
        for g in groups:
            if not self.applies_to(g):
                continue
            if g.template and self.meta.code not in TEMPLATE_CHECKS:
                continue  # the services that run on the template set what this rule reads
            reads = g.model_reads
            try:
                hits = list(self.check_group(g, inv, config))
                if g.model_assumed and g.model_reads > reads:
                    hits = [self._on_assumed_model(h, g, config) for h in hits]
                if g.unknown_operator and self.meta.code in OPERATOR_ADDS:
                    hits = [self._on_unknown_operator(h, g, config) for h in hits]
            except ModelNotKnown:
                continue  # SW004 reports the unknown model once for the workload, naming this rule
            except Undecidable as u:
                yield Hit(
                    group_subject(g),
                    f"{_CANNOT}{u.text}",
                    g.at(u.prop, UNKNOWN_AT, *self.fields),
                    tuple(g.suppressions),
                    undecided=True,
                )
            except Exception as exc:  # noqa: BLE001 - one bad group must not hide the others
                yield Hit(group_subject(g), internal_error(self.meta, exc), g.location, internal=True)
            else:
                for h in hits:
                    yield replace(h, location=g.at(*self.fields)) if self.fields and h.location == g.location else h

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        raise NotImplementedError  # pragma: no cover

    def _on_unknown_operator(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit about what an unknown operator may add to the pod is advisory (a level set in the
        configuration wins): the object is not the whole pod."""
        if self.meta.code in config.enforcement or (h.level or _level_for(self.meta, config)) != "mandatory":
            return h
        return replace(h, level="advisory", message=(
            f"{h.message} (advisory: the operator of this {g.kind} builds the pod and may add it; lint the pod it "
            "renders to make this finding blocking)"))

    def _on_assumed_model(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit that rests on a model matched only by the name of its path is advisory: the
        directory may hold another model (SW004 names the entry). A level set in the configuration wins."""
        code = self.meta.code
        if code in config.enforcement or (h.level or _level_for(self.meta, config)) != "mandatory":
            return h
        return replace(h, level="advisory", message=(
            f"{h.message} (advisory: the model was matched to {g.model_assumed} by the name of its path; "
            f"the annotation {ANN_BASE_MODEL}: {g.model_assumed} makes this finding blocking)"))


Obj = TypeVar("Obj", bound=InventoryObject)


class ObjectRule(Rule, Generic[Obj]):
    """A rule that looks at one object of the inventory at a time: node pools, security groups, Services,
    Ingresses, autoscalers, ConfigMaps, launch issues, serving groups.

    :meth:`objects` names the objects it checks, in the order it checks them; :meth:`check_object` checks
    one. An unknown value met while checking an object makes *that object* undecided: one "cannot decide"
    finding on it (its subject, its location, its suppressions). A crash on one object is a mandatory
    internal-error finding naming the rule, on that object; the rule still checks the others.
    """

    def objects(self, inv: Inventory) -> Iterable[Obj]:
        raise NotImplementedError  # pragma: no cover

    def check_object(self, obj: Obj, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        raise NotImplementedError  # pragma: no cover

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        for obj in self.objects(inv):
            try:
                hits = list(self.check_object(obj, inv, config))
            except Undecidable as u:
                yield Hit(subject_of(obj), f"{_CANNOT}{u.text}", obj.location,
                          tuple(obj.suppressions), undecided=True)
            except Exception as exc:  # noqa: BLE001 - one bad object must not hide the others
                yield Hit(subject_of(obj), internal_error(self.meta, exc), obj.location, internal=True)
            else:
                yield from hits
