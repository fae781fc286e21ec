"""The runner: one rule with its enforcement level, unknown handling, crash containment and suppressions
(:func:`run_rule`), all of them over an inventory (:func:`run_rules`), and one "cannot decide" finding per workload
and unknown (:func:`merge_undecided`). Shared out over forked processes: :mod:`.split` (imported by the front end
only when a run is large enough to be shared, so a small run never loads :mod:`pickle` and :mod:`tempfile`)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from typing import Literal

from ..model import Inventory, Location, Undecidable
from ..model.records import evolve
from .findings import Finding, Hit, LintConfig
from .meta import RuleMeta
from .rule import CANNOT, GroupRule, Rule, internal_error, level_for


def _apply_suppression(f: Finding, h: Hit, config: LintConfig) -> Finding:
    for s in h.suppressions:
        if s.code == f.code and s.reason:
            return evolve(f, suppressed=True, suppression_reason=s.reason)
    for e in config.suppressions:
        if e.code == f.code and e.reason and fnmatch.fnmatchcase(f.subject, e.subject):
            return evolve(f, suppressed=True, suppression_reason=e.reason)
    return f


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
    level = level_for(meta, config)
    if level == "disabled":
        return
    try:
        hits = list(rule.check(inv, config))
    except Undecidable as u:
        yield Finding(
            meta.code, meta.name, _undecided_level(meta, config, level), meta.severity,
            f"{CANNOT}{u.text}; the rule is re-checked when the value is known",
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


#: The rule of a vLLM command that exits at start-up as written (a flag its release does not define, a
#: ``$(VAR)`` the pod's env does not define): the capacity and topology rules of that workload are held
#: back by it, not undecided (:func:`merge_undecided`).
CRASH_CODE = "SW003"
#: What a merged "cannot decide" finding says would decide it.
DECIDE_IT = ("write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed "
             "output)")
_RECHECKED = "; the rule is re-checked when the value is known"


def _question(message: str) -> str | None:
    """What an undecided finding's rule would read, where its message asks it (``cannot decide: whether its
    containers set VLLM_SERVER_DEV_MODE: its pod template (spec.template) is not known …``), else None."""
    rest = message[len(CANNOT):]
    if rest.startswith("whether ") and ": " in rest:
        return rest.split(": ", 1)[0]
    return None


def _unknown_of(message: str) -> str:
    """The unknown an undecided finding's message names, without the question its rule asks and without the
    runner's "re-checked" tail: what the findings merged into one share."""
    rest = message[len(CANNOT):]
    question = _question(message)
    if question is not None:
        rest = rest[len(question) + 2:]
    return rest.removesuffix(_RECHECKED)


def _merged(same: list[Finding], message: str, location: Location | None = None) -> Finding:
    first = min(same, key=lambda f: f.code)
    held = tuple(sorted({f.code for f in same} - {first.code}))
    return evolve(first, message=message, held=held, location=location or first.location)


def merge_undecided(findings: list[Finding]) -> list[Finding]:
    """One "cannot decide" finding per workload, unknown value and level, not one per rule it holds back.

    The unsuppressed undecided findings of one subject that name the same unknown
    (``tensor_parallel_size is not known …``) at the same level become one: the lowest code's, naming the
    codes of all (its ``held`` the others) and what would decide them, at its location (the unknown value's
    line where it is written). A blocking one stays blocking and an advisory one advisory, so the exit status
    does not move. Suppressed ones stay as they are (each names its reason), so suppressing one rule takes
    its code out of the list and hides no other; a rule whose configured level differs joins the finding of
    that level.

    A workload whose vLLM command exits at start-up as written (a blocking :data:`CRASH_CODE` finding) has no
    unknown its capacity and topology rules wait for: its value is the text vLLM refuses. Their undecided
    findings, and those of any rule about the same unknowns (SW401 on ``tensor_parallel_size``), become one
    advisory finding at that finding's line, saying they are held back by it. The exit status does not move:
    the crash blocks.

    Each rule (CrossGuard's policies, :func:`run_rules`) still yields its own, and a baseline is written
    and matched on those (before this merge); the reports carry every code (JSON ``codes``, one SARIF
    result per code)."""
    crashed = {f.subject: f for f in findings
               if f.code == CRASH_CODE and f.blocking and not f.undecided and not f.internal}
    undecided = [f for f in findings
                 if f.undecided and not f.suppressed and not f.internal and f.message.startswith(CANNOT)]
    # the unknowns of a crashing workload that its capacity and topology rules wait for: any rule waiting
    # for one of them waits for the command to start
    waits = {(f.subject, f.message) for f in undecided if f.subject in crashed and f.code.startswith(("SW1", "SW2"))}
    keyed: dict[tuple[str, str, str], list[Finding]] = {}
    held_back: dict[str, list[Finding]] = {}
    out = [f for f in findings
           if not (f.undecided and not f.suppressed and not f.internal and f.message.startswith(CANNOT))]
    for f in undecided:
        if (f.subject, f.message) in waits:
            held_back.setdefault(f.subject, []).append(f)
        else:
            keyed.setdefault((f.subject, _unknown_of(f.message), f.level), []).append(f)
    for (_, reason, level), same in keyed.items():
        if len(same) == 1:
            out.append(same[0])
            continue
        asked = {f.code: _question(f.message) for f in same}
        codes = ", ".join(f"{c} ({asked[c]})" if asked[c] else c for c in sorted(asked))
        until = ("which are checked once the value is known" if level == "advisory"
                 else "which block until the value is known")
        fix = "" if "as a literal" in reason else f": {DECIDE_IT}"  # the reason may say what decides it itself
        out.append(_merged(same, f"{CANNOT}{reason}; this holds back {codes}, {until}{fix}"))
    for subject, same in held_back.items():
        crash = crashed[subject]
        codes = ", ".join(sorted({f.code for f in same}))
        verb = "is" if len(same) == 1 else "are"
        out.append(evolve(_merged(same, (
            f"held back by the {CRASH_CODE} error: vLLM exits at start-up as written, so {codes} {verb} checked "
            f"once the command starts: fix the {CRASH_CODE} finding"), crash.location), level="advisory"))
    out.sort(key=_finding_order)
    return out


#: Below this many serving groups the rules run in this process only (:mod:`.split`).
SPLIT_MIN_GROUPS = 200
