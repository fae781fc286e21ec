"""SARIF 2.1.0 for code scanning (GitHub ``upload-sarif`` and other SARIF consumers).

Every rule of the registry is a ``reportingDescriptor`` (id = code) so a result's ``ruleIndex``
points at its metadata; mandatory maps to ``error``, advisory to ``warning``, and a result that fails the run at its
``--fail-on`` (an advisory one under ``--fail-on advisory``) is an ``error`` whatever its rule's level, as the exit
status says. ``executionSuccessful`` is SARIF 2.1.0's "the tool's execution completed successfully" (the
invocation), not "nothing was found": it is false only where an input could not be read (exit 2), and a run whose
findings fail it keeps it true, its results at level ``error`` saying why it failed. File locations are
relative to ``%SRCROOT%`` (the working directory); a finding known only by its Pulumi URN carries a
``logicalLocation``; a suppressed finding is reported with its justification. Each input error is a
``toolExecutionNotification`` of the invocation (level ``error``, descriptor ``input-error``) with
the file and line; an invocation with input errors did not succeed and carries the exit code 2.
Compared with a baseline (``--baseline``), every result carries SARIF's ``baselineState``: ``new`` for the
findings the baseline does not hold, ``unchanged`` for those it does (after the new ones), so a consumer
can show or hide them; only the new ones fail the run.
Every result carries ``partialFingerprints`` (:data:`FINGERPRINT`): a hash of the rule, the object (kind,
namespace, name), what on it the finding is about (a container, a variable, a flag), the file relative to the
repository root with what it was read through, and the Pulumi URN (:mod:`.fingerprint`, what a baseline entry is
made of), never the line or the message's figures, with ``:N`` for the Nth result of one hash in the run: GitHub code
scanning keeps one alert across runs where lines move, and two objects of one template are two alerts.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from shardwise import __version__, repository_url

from ..engine import Finding, RuleMeta
from ..model.errors import InputError
from .fingerprint import digest, identity, repository_root
from .result import Report, pascal_case, source_file

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The key of a result's ``partialFingerprints``: versioned, so that a change in what it hashes is a new key
FINGERPRINT = "shardwiseFindingHash/v1"
LEVEL = {"mandatory": "error", "advisory": "warning"}
_CATEGORY = {"0": "meta", "1": "capacity", "2": "topology", "3": "security", "4": "reliability"}
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}


def category(code: str) -> str:
    return _CATEGORY.get(code[2:3], "other")


def artifact_uri(path: str, root: str | None = None) -> str:
    """``path`` as a URI reference relative to ``root`` (default: the working directory)."""
    root = os.path.abspath(root or os.getcwd())
    p = os.path.abspath(path) if os.path.isabs(path) else os.path.normpath(os.path.join(root, path))
    rel = os.path.relpath(p, root) if os.path.splitdrive(p)[0] == os.path.splitdrive(root)[0] else p
    return quote(os.fsencode(Path(rel).as_posix()), safe="/-._~")  # a name's bytes that are not UTF-8: %FF


def rule_descriptor(meta: RuleMeta) -> dict[str, Any]:
    tags = [category(meta.code), meta.severity, "vllm", "kubernetes"]  # category "security" for SW3xx
    props: dict[str, Any] = {"tags": tags, "precision": "high", "problem.severity": LEVEL[meta.enforcement]}
    if category(meta.code) == "security":
        props["security-severity"] = _SECURITY_SEVERITY[meta.severity]
    url = meta.doc_url
    docs = f"[Rule documentation]({url})" if url else f"Rule documentation: `{meta.doc_ref}`"
    help_md = f"{meta.remediation}\n\n**Why:** {meta.why}\n\n{docs}"
    out: dict[str, Any] = {
        "id": meta.code,
        "name": pascal_case(meta.name),
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": meta.why},
        "help": {"text": meta.remediation, "markdown": help_md},
    }
    if url:  # only under SHARDWISE_DOCS_URL: there is no public docs site to link to by default
        out["helpUri"] = url
    out.update({"defaultConfiguration": {"level": LEVEL[meta.enforcement]}, "properties": props})
    return out


def _fallback_descriptor(f: Finding) -> dict[str, Any]:
    return {
        "id": f.code,
        "name": pascal_case(f.name),
        "shortDescription": {"text": f.name.replace("-", " ")},
        "defaultConfiguration": {"level": LEVEL[f.level]},
        "properties": {"tags": [category(f.code)]},
    }


INPUT_ERROR = {
    "id": "input-error",
    "name": "InputError",
    "shortDescription": {"text": "A file, document or object shardwise could not read; the rest was linted."},
    "defaultConfiguration": {"level": "error"},
}


def _physical(file: str | None, line: int | None, column: int | None = None) -> dict[str, Any] | None:
    if not file or file == "-" or file.startswith("<"):  # not "<stdin>"
        return None
    # the file itself, not what it was read through (result.source_file): a code scanner places a result on a file
    # of the repository only
    phys: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(source_file(file)[0]), "uriBaseId": "%SRCROOT%"}}
    if line and line >= 1:
        phys["region"] = {"startLine": int(line)}
        if column and column >= 1:  # 1-based, in characters: SARIF's default columnKind (utf16CodeUnits) differs
            # only beyond the basic plane
            phys["region"]["startColumn"] = int(column)
    return phys


def _subject(f: Finding) -> str:
    through = source_file(f.location.file)[1] if f.location.file else ""
    return f"{f.subject}; {through}" if through else f.subject


def notification(e: InputError) -> dict[str, Any]:
    through = source_file(e.file)[1] if e.file else ""
    out: dict[str, Any] = {
        "level": "error",
        "message": {"text": (e.message + (f" ({through})" if through else "")) if _physical(e.file, e.line)
                    else str(e)},
        "descriptor": {"id": INPUT_ERROR["id"], "index": 0},
    }
    phys = _physical(e.file, e.line, e.column)
    if phys is not None:
        out["locations"] = [{"physicalLocation": phys}]
    return out


def invocation(report: Report) -> dict[str, Any]:
    inv: dict[str, Any] = {"executionSuccessful": not report.errors}
    if report.errors or report.report_only:
        inv["exitCode"] = report.exit_code
    if report.report_only:  # a report-only run says so: its results at level error fail nothing
        inv["exitCodeDescription"] = report.verdict()
        inv["properties"] = {"fail_on": report.fail_on}
    if report.errors:
        inv["toolExecutionNotifications"] = [notification(e) for e in report.errors]
    return inv


def _locations(f: Finding, report: Report) -> list[dict[str, Any]]:
    loc = f.location
    out: dict[str, Any] = {}
    file = loc.file
    if not file and not loc.urn and report.files:
        file = report.files[0]  # a finding about the whole input: point at the first file read
    phys = _physical(file, loc.line if loc.file else None)
    if phys is not None:
        out["physicalLocation"] = phys
    if loc.urn:
        out["logicalLocations"] = [{"fullyQualifiedName": loc.urn, "kind": "resource"}]
    return [out] if out else []


def as_object(report: Report) -> dict[str, Any]:
    rules: list[dict[str, Any]] = [rule_descriptor(m) for m in report.metas.values()]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results: list[dict[str, Any]] = []
    with_baseline = report.baseline_file is not None
    gating = not report.report_only
    root = repository_root()
    seen: dict[str, int] = {}  # how many results already had a fingerprint: the second is told apart by ":2"
    for n, f in enumerate([*report.findings, *report.baselined]):
        # a finding that fails the run (at or above --fail-on, not in the baseline) is an error whatever its level:
        # with --fail-on advisory an advisory finding fails it, and a code scanner fails its check on errors
        fails = gating and n < len(report.findings) and report.is_blocking(f)
        _, obj, field, file, urn = identity(f, root)
        # a merged "cannot decide" finding (engine.merge_undecided) gives one result per rule it is of, each
        # with that rule's id: a code scanner keys its alerts on the rule, and each keeps its own
        for code in f.codes:
            if code not in index:
                index[code] = len(rules)
                rules.append(_fallback_descriptor(f if code == f.code else replace(f, code=code)))
            result: dict[str, Any] = {
                "ruleId": code,
                "ruleIndex": index[code],
                "level": "error" if fails else LEVEL[f.level],
                "message": {"text": f"{f.message} ({_subject(f)})"},  # the code is the result's ruleId
                "locations": _locations(f, report),
                "properties": {"subject": f.subject, "severity": f.severity, "undecided": f.undecided},
            }
            key = digest((code, obj, field, file, urn))
            seen[key] = count = seen.get(key, 0) + 1
            result["partialFingerprints"] = {FINGERPRINT: f"{key}:{count}"}
            if f.held:
                result["properties"]["codes"] = list(f.codes)
            if f.suppressed:
                result["suppressions"] = [{"kind": "inSource", "justification": f.suppression_reason or ""}]
            if with_baseline:
                result["baselineState"] = "new" if n < len(report.findings) else "unchanged"
            results.append(result)
    base = Path(os.getcwd()).resolve().as_uri().rstrip("/") + "/"
    driver: dict[str, Any] = {"name": "shardwise", "version": __version__, "semanticVersion": __version__}
    repository = repository_url()
    if repository:
        driver["informationUri"] = repository
    driver.update({"rules": rules, "notifications": [INPUT_ERROR]})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base}},
                "invocations": [invocation(report)],
                "results": results,
            }
        ],
    }


def render(report: Report, color: bool = False) -> str:
    return json.dumps(as_object(report), indent=2, ensure_ascii=False) + "\n"
