"""The runner: one rule with its enforcement level, unknown handling, crash containment and suppressions
(:func:`run_rule`), all of them over an inventory (:func:`run_rules`), and one "cannot decide" finding per workload
and unknown (:func:`merge_undecided`). Shared out over forked processes: :mod:`.split` (imported by the front end
only when a run is large enough to be shared, so a small run never loads :mod:`pickle` and :mod:`tempfile`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Literal

from ..model import Inventory, Location, Undecidable
from ..model.files import MAX_FILE_BYTES
from ..model.records import evolve
from ..model.unknown import FROM_VALUE_SOURCE, UNRESOLVED, holds_placeholder
from .findings import Finding, Hit, LintConfig, suppressed_by
from .meta import RuleMeta
from .rule import CANNOT, GroupRule, Rule, internal_error, level_for


def _apply_suppression(f: Finding, h: Hit, config: LintConfig) -> Finding:
    reason = suppressed_by(f.code, h, config)
    return f if reason is None else evolve(f, suppressed=True, suppression_reason=reason)


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
            decided_by(f"{CANNOT}{u.text}; the rule is re-checked when the value is known", Location()),
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
        message = decided_by(h.message, h.location, inv.config_deciders.get(h.subject)) if h.undecided else h.message
        if inv.masked:
            loc = h.location
            only = inv.masked.get(loc.urn or (f"{loc.file}:{loc.line}" if loc.file and loc.line else ""))
            if only is not None:
                message = secret_advice(message, only)
        f = Finding(meta.code, meta.name, lvl, meta.severity, message, h.location, h.subject,
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
#: What decides a value that is not known, by where it comes from: one wording per kind, which every
#: "cannot decide" finding ends with (:func:`decided_by`), single or merged (:func:`merge_undecided`).
#: A Pulumi preview's computed output (its location has a URN): known once ``pulumi up`` has run.
DECIDED_AT_UP = "lint the `pulumi up` state, or write the value as a literal"
#: A value of a preview's resource whose only unknowns are the secrets the preview masks (``[secret]``, pulumi/pulumi
#: pkg/backend/display/json.go): ``pulumi up`` decides nothing, since the state keeps a secret encrypted and no
#: output shardwise reads shows it (mend10: the advice of :data:`DECIDED_AT_UP` was given).
DECIDED_NEVER_SECRET = ("a secret's value is never shown (the `pulumi up` state keeps it encrypted) and shardwise "
                        "never reads one: write the value as a literal if it need not be secret, else suppress the "
                        "finding with the reason it is safe")
#: What such a value is, in place of "a computed value" (:func:`secret_advice`).
SECRET_VALUE = "a secret the preview writes as `[secret]`"
#: A resource whose preview masks secrets and holds computed values too: the unknown may be either.
DECIDED_AT_UP_OR_SECRET = (f"{DECIDED_AT_UP}; if it is one of the values the preview masks as `[secret]`, no state "
                           "shows it: write it as a literal if it need not be secret, else suppress the finding with "
                           "the reason it is safe")
#: A Helm/Go template (``{{ .Values.tp }}`` on the value's line, or anywhere in its file): the chart fills it.
DECIDED_BY_RENDERING = ("render the chart first (`helm template`) and lint what it writes, or write the value as a "
                        "literal")
#: A CNDI template's ``{{ $cndi.get_prompt_response(…) }}`` (or a ``$cndi_on_ow.…(…)`` value) on the value's line, or
#: in its file: ``cndi create`` fills it from the answers to the template's prompts and writes cndi_config.yaml
#: (polyseam/cndi v3.1.1 README.md, "create"), whose cluster_manifests shardwise reads (corpus45).
DECIDED_BY_CNDI = ("run `cndi create` first (its prompts fill the template's `$cndi` placeholders) and lint the "
                   "cndi_config.yaml it writes, or write the value as a literal")
#: A ``${VAR}`` or ``$VAR`` on the value's line of a file with no Go template: envsubst fills it in a template, the
#: container's shell from its env in a command (shardwise reads an env value written literally or from a ConfigMap of
#: the inputs).
DECIDED_BY_VARIABLE = ("run `envsubst` first if it is a template's placeholder; if the container's shell expands it, "
                       "add the ConfigMap its variable is read from to the inputs, or set the variable or the value "
                       "literally")
#: A Kubernetes ``$(VAR)`` on the value's line whose variable comes from a ConfigMap that is not in the inputs,
#: from a Secret (the reader never reads a Secret's value), or from nowhere in the file (a kustomize base).
DECIDED_BY_CONFIGMAP = ("add the ConfigMap its variable is read from to the inputs, or set the variable or the value "
                        "literally (a Secret's value is never read)")
#: A shell command substitution on the value's line (``--hf-overrides "$(cat /etc/vllm/overrides.json)"``, backquotes):
#: the container's shell runs the command at start-up, and what it prints (a file of the image or of a volume) is in
#: no input (hfover19 noticed the ConfigMap wording given for it, where no ConfigMap is involved).
DECIDED_BY_COMMAND = ("the container's shell runs a command for it at start-up (`$(…)` or backquotes), which shardwise "
                      "does not run: write the value literally, or set an env variable to it (a literal or a "
                      "ConfigMap of the inputs) and pass the variable instead of the command")
#: A Kubernetes ``$(VAR)`` reference, as the kubelet expands it in a command or args (a C identifier in ``$( )``).
_K8S_REF = re.compile(r"\$\([A-Za-z_][A-Za-z0-9_]*\)")
#: A command substitution: ``$(`` not opening an arithmetic ``$((`` nor a Kubernetes reference, or a backquoted command.
_COMMAND_SUBSTITUTION = re.compile(r"\$\((?!\()(?![A-Za-z_][A-Za-z0-9_]*\))|`[^`]+`")
#: A ``$(VAR)`` whose ConfigMap the inputs hold twice in one namespace with different data (each file named, by
#: ``adapters.k8s.configjoin.ambiguous_decider``): both are inputs, and the one the cluster holds decides.
AMBIGUOUS_CONFIGMAP = "the inputs hold ConfigMap"
#: Any other unknown (a computed value, an unresolved reference the line does not show).
DECIDE_IT = ("write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed "
             "output)")
#: A template's angle-bracket placeholder on the value's line (``--tensor-parallel-size=<TP_SIZE>``,
#: :func:`..model.unknown.is_angle_placeholder`): the file is a tutorial's template its reader fills (corpus38).
DECIDED_BY_FILLING = "fill the template's <…> placeholder with the value (or write the value literally) and lint that"
_DECIDERS = (DECIDED_AT_UP_OR_SECRET, DECIDED_NEVER_SECRET, DECIDED_AT_UP, DECIDED_BY_RENDERING, DECIDED_BY_VARIABLE,
             DECIDED_BY_CONFIGMAP, DECIDED_BY_COMMAND, DECIDED_BY_CNDI,
             DECIDE_IT, DECIDED_BY_FILLING)
#: Why a value the inputs write is not known, as a "cannot decide" message gives it: the findings that get what
#: decides it. Other reasons name what the inputs or the catalog lack (a ResourceClaimTemplate, KubeAI's
#: configuration, a vendor table entry) and what to do about it themselves.
_UNREAD = (f"({UNRESOLVED}", f"({FROM_VALUE_SOURCE}", "whose name or prefix is not known)",
           "whose name or namespace is not known)")
#: An angle-bracket placeholder as a line writes it: a whole YAML value or list item (block or flow, quoted or not: a
#: flow mapping's last value ends at its ``}``, review36), or a flag's ``=`` value; never one inside a word or text
#: (``<s>`` of a chat template).
_ANGLED_ON_LINE = re.compile(r"(?:^|(?<=[\s=\[,\"']))<[A-Za-z][A-Za-z0-9_.:/-]*(?: [A-Za-z0-9_.:/-]+)*>"
                             r"(?=[\"']?(?:[\s,\]}#]|$))")


@lru_cache(maxsize=32)
def _read_lines(path: str, stamp: tuple[int, int]) -> tuple[str, ...]:
    """The lines of file ``path`` as it is at ``stamp`` (its modification time and size)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_FILE_BYTES + 1)
    except OSError:
        return ()
    # the lines as the YAML reader numbers them (only "\r\n", "\r" and "\n" end one): str.splitlines also splits
    # at a form feed or U+2028 in a comment, which would shift every later line by one
    return tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def _lines(file: str) -> tuple[str, ...]:
    """The lines of ``file`` as it is now (none for standard input, a file gone or not a file); a file is read
    once while it does not change."""
    try:
        st = os.stat(file)
    except (OSError, ValueError):
        return ()
    if not os.path.isfile(file):
        return ()
    return _read_lines(os.path.abspath(file), (st.st_mtime_ns, st.st_size))


def what_decides(location: Location) -> str:
    """What would decide an unknown value written at ``location``: :data:`DECIDED_AT_UP` for a Pulumi resource,
    else by what its line holds: a Go template (:data:`DECIDED_BY_RENDERING`), a shell command substitution and no
    Kubernetes ``$(VAR)`` (:data:`DECIDED_BY_COMMAND`), a Kubernetes ``$(VAR)`` (:data:`DECIDED_BY_CONFIGMAP`), a
    ``${VAR}`` (:data:`DECIDED_BY_RENDERING` in a file with a Go template, else :data:`DECIDED_BY_VARIABLE`); any
    other line: :data:`DECIDED_BY_RENDERING` in such a file, else :data:`DECIDE_IT`, as for no line. Read only
    when a "cannot decide" finding is made (the file's lines are read once, then cached)."""
    if location.urn:
        return DECIDED_AT_UP
    at = location.line or 0
    lines = _lines(location.file) if location.file and at > 0 else ()
    if not 0 < at <= len(lines):
        return DECIDE_IT
    text = lines[at - 1]
    if "$cndi" in text:
        return DECIDED_BY_CNDI
    if "{{" in text:
        return DECIDED_BY_RENDERING
    if ("$(" in text or "`" in text) and _K8S_REF.search(text) is None and _COMMAND_SUBSTITUTION.search(text):
        return DECIDED_BY_COMMAND
    if "$(" in text:
        return DECIDED_BY_CONFIGMAP
    if any("{{" in line for line in lines):
        return DECIDED_BY_CNDI if any("{{ $cndi." in line for line in lines) else DECIDED_BY_RENDERING
    if holds_placeholder(text):
        return DECIDED_BY_VARIABLE
    return DECIDED_BY_FILLING if "<" in text and _ANGLED_ON_LINE.search(text) else DECIDE_IT


#: The wordings of :data:`DECIDED_AT_UP` a message may end with or hold: the runner's tail, and the rules' own.
_AT_UP_WORDINGS = (f": {DECIDED_AT_UP}", f"; {DECIDED_AT_UP})",
                   "; lint the `pulumi up` state, or pass the value as a literal")


def secret_advice(message: str, only: bool) -> str:
    """``message``, of a preview's resource that masks secrets (``Inventory.masked``), with what decides a value not
    known said for a secret: :data:`DECIDED_NEVER_SECRET` where the secrets are the resource's only unknowns
    (``only``), else :data:`DECIDED_AT_UP_OR_SECRET`, in place of :data:`DECIDED_AT_UP` (and, where the secrets are
    its only unknowns, of :data:`DECIDE_IT`, which a finding at the resource's line without its URN was given: a
    masked securityContext's)."""
    advice = DECIDED_NEVER_SECRET if only else DECIDED_AT_UP_OR_SECRET
    if advice in message:
        return message
    if only:  # what the value is: a secret, not a computed value
        message = message.replace(f"({UNRESOLVED})", f"({SECRET_VALUE})").replace(
            "(a computed value at preview; ", f"({SECRET_VALUE}; ").replace(
            " until the preview's unknown values are (a computed value); ", f" ({SECRET_VALUE}); ")
    for wording in (*_AT_UP_WORDINGS, f": {DECIDE_IT}") if only else _AT_UP_WORDINGS:
        at = message.find(wording)
        if at >= 0:
            end = ")" if wording == f"; {DECIDED_AT_UP})" else ""  # DECIDE_IT's own ")" closes its words
            return f"{message[:at + 2]}{advice}{end}{message[at + len(wording):]}"
    return message


def _says_what_decides(message: str) -> bool:
    """Whether an undecided message says itself what would decide it (the security rules' preview findings:
    ``… lint the `pulumi up` state, or write the value as a literal)``; a ConfigMap not in the inputs: ``…; lint
    it together with the workload``)."""
    return ("as a literal" in message or "lint it together with the workload" in message
            or any(message.endswith(f": {d}") for d in _DECIDERS) or f": {AMBIGUOUS_CONFIGMAP} " in message)


def decided_by(message: str, location: Location, decider: str | None = None) -> str:
    """A "cannot decide" ``message`` about a value the inputs write (:data:`_UNREAD`) ending with what would
    decide it (:func:`what_decides` at ``location``), unless it says so itself; any other message as it is. A
    variable set from a Secret or the downward API (:data:`FROM_VALUE_SOURCE`; one from a ConfigMap not in the
    inputs says so itself) is known to neither a file nor a Pulumi state: :data:`DECIDE_IT` wherever it is."""
    if decider in (DECIDED_NEVER_SECRET, DECIDED_AT_UP_OR_SECRET) and message.startswith(CANNOT):
        return message if _says_what_decides(message) else f"{message}: {decider}"  # secret_advice's, merged
    if not message.startswith(CANNOT) or _says_what_decides(message) or not any(r in message for r in _UNREAD):
        return message
    if decider is not None and what_decides(location) in (DECIDED_BY_CONFIGMAP, DECIDE_IT):
        return f"{message}: {decider}"  # the workload's ConfigMap is in the inputs twice (Inventory.config_deciders)
    return f"{message}: {DECIDE_IT if f'({FROM_VALUE_SOURCE}' in message else what_decides(location)}"


def _bare(message: str) -> str:
    """``message`` without the :func:`decided_by` tail it was given."""
    for d in _DECIDERS:
        if message.endswith(f": {d}"):
            return message[:-len(d) - 2]
    at = message.find(f": {AMBIGUOUS_CONFIGMAP} ")
    return message[:at] if at >= 0 else message


def _decider(message: str) -> str | None:
    """The :data:`AMBIGUOUS_CONFIGMAP` tail :func:`decided_by` gave ``message``, or the secret's advice
    (:func:`secret_advice`) it ends with, else None."""
    for advice in (DECIDED_NEVER_SECRET, DECIDED_AT_UP_OR_SECRET):
        if message.endswith(f": {advice}"):
            return advice
    at = message.find(f": {AMBIGUOUS_CONFIGMAP} ")
    return message[at + 2:] if at >= 0 else None


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
    rest = _bare(message)[len(CANNOT):]
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
    waits = {(f.subject, _bare(f.message)) for f in undecided
             if f.subject in crashed and f.code.startswith(("SW1", "SW2"))}
    keyed: dict[tuple[str, str, str], list[Finding]] = {}
    held_back: dict[str, list[Finding]] = {}
    out = [f for f in findings
           if not (f.undecided and not f.suppressed and not f.internal and f.message.startswith(CANNOT))]
    for f in undecided:
        if (f.subject, _bare(f.message)) in waits:
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
        first = min(same, key=lambda f: f.code)  # the merged finding is at its location
        out.append(_merged(same, decided_by(f"{CANNOT}{reason}; this holds back {codes}, {until}", first.location,
                                            _decider(first.message))))
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
