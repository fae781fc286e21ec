"""The wide corpus: public files vendored verbatim under ``tests/corpus/wide``, linted and held to a triage.

``tests/corpus/wide/<owner>__<repo>/<path with / replaced by __>`` are the files, ``PROVENANCE.json``
says where each came from (repository, path, commit, licence) and ``TRIAGE.yaml`` holds a reviewer's
verdict on every blocking finding and on every file that yields no workload. This module lints the
corpus (each repository's folder in one run, as that repository's CI would) and compares the reports
with the triage; ``tests/project/test_corpus_wide.py`` asserts on it and ``bench_corpus.py --wide`` prints it.

A finding's identity is its file, rule code, subject and a stable part of its message (``match``),
never its line: the triage survives a rule's rewording as long as ``match`` is still in the message.

Verdicts: ``true`` (a reviewer of that repository would accept the finding; for a file: right that
no workload is read), ``false`` (wrong; for a file: a vLLM server shardwise neither reads nor says
why it cannot, a silent pass), ``debatable``. A ``false`` entry carries ``status: open`` while the
rule still does it and ``status: fixed`` once it does not: a fixed one may never come back.
"""

from __future__ import annotations

import gc
import json
import os
import re
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus", "wide")
TRIAGE = os.path.join(CORPUS, "TRIAGE.yaml")
PROVENANCE = os.path.join(CORPUS, "PROVENANCE.json")
#: licences whose terms let the files be redistributed here (with the licence text, under LICENSES/); UPL-1.0 (the
#: Universal Permissive License, OSI-approved) grants the right to copy and distribute with the notice kept;
#: CC0-1.0 (Creative Commons' public-domain dedication, corpus16) waives every right, copying included
LICENCES = {"Apache-2.0", "MIT", "MIT-0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MPL-2.0", "CC", "CC0-1.0", "UPL-1.0"}
#: what a file that runs a vLLM server says somewhere (its image, its command, its engine arguments); `/vllm:` is an
#: image's last path segment (`quay.io/modh/vllm:tag`), never a URL's host (`http://vllm:8000/v1`, a client's setting);
#: `vllm-openai` counts in an image's path (`quay.io/rh-aiservices-bu/vllm-openai-ubi9`) or after `image:` /
#: `repository:`, never as a Service, label or ConfigMap name (`app.kubernetes.io/name: vllm-openai`) or a URL's host;
#: DJL Serving's LMI container runs vLLM when OPTION_ROLLING_BATCH or OPTION_ENTRYPOINT names it (the value on the
#: same line or the next: `- name: OPTION_ROLLING_BATCH` / `value: vllm`); Dynamo 0.1-0.3's `dynamo serve x:VllmWorker`
SERVES = re.compile(r"vllm serve|vllm\.entrypoints|vllm/vllm-openai|vllm-tpu|(?<!/)/[\w.-]*vllm-openai"
                    r"|(?:image|repository):\s*[\"']?[\w.-]*vllm-openai|(?<!/)/vllm:"
                    r"|--tensor-parallel-size|--max-model-len|engineArgs|engine_kwargs|llm_configs"
                    r"|OPTION_(?:ROLLING_BATCH|ENTRYPOINT)\b[^\n]*(?:\n[^\n]*)?\bvllm"
                    r"|\bdynamo\s+serve\s+[\w./-]+:Vllm", re.I)
VERDICTS = ("true", "false", "debatable")


@dataclass
class FileResult:
    """What the lint of a file's repository said about the file."""

    file: str  # relative to CORPUS
    workloads: list[dict[str, Any]] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: str | None = None
    serves: bool = False  # the text looks like it runs a vLLM server

    @property
    def says_why(self) -> bool:
        """No workload, but the report says why: SW005 (mentions vLLM, nothing read), SW002 (a vLLM image whose
        command starts no server shardwise can read), an input error or a skip with its reason."""
        return bool(self.errors or self.skipped or any(f["code"] in ("SW002", "SW005") for f in self.findings))

    @property
    def silent(self) -> bool:
        return self.serves and not self.workloads and not self.says_why


@dataclass
class CorpusRun:
    files: dict[str, FileResult]
    crashes: dict[str, str]  # repository folder -> traceback
    exits: dict[str, int]
    seconds: float


def repositories() -> list[str]:
    return sorted(d for d in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, d)) and "__" in d)


def provenance() -> list[dict[str, Any]]:
    with open(PROVENANCE, encoding="utf-8") as fh:
        return list(json.load(fh))


def lint_corpus() -> CorpusRun:
    """Lint each repository folder of the corpus in-process, one run each (cwd: the repository root, so
    no config file of this project's applies; paths relative to it as a user would give them)."""
    from shardwise.rules.app.run import LintOptions, lint_report, render

    files = {p["file"]: FileResult(p["file"]) for p in provenance()}
    for r in files.values():
        with open(os.path.join(CORPUS, r.file), encoding="utf-8", errors="replace") as fh:
            r.serves = bool(SERVES.search(fh.read()))
    crashes: dict[str, str] = {}
    exits: dict[str, int] = {}
    cwd = os.getcwd()
    t0 = time.perf_counter()
    os.chdir(CORPUS)
    enabled = gc.isenabled()
    gc.disable()  # as the CLI does: a lint builds many objects and almost no cycles
    try:
        for repo in repositories():
            try:
                report = lint_report([repo], LintOptions(jobs=1))
                doc = json.loads(render(report, "json"))
            except Exception:  # noqa: BLE001  (a crash is what the corpus looks for)
                crashes[repo] = traceback.format_exc()
                continue
            exits[repo] = report.exit_code
            for w in doc["workloads"]:
                if w["file"] in files:
                    files[w["file"]].workloads.append(w)
            for f in doc["findings"]:
                if f["file"] in files:
                    files[f["file"]].findings.append(f)
            for e in doc["input_errors"]:
                if e["file"] in files:
                    files[e["file"]].errors.append(e["message"])
            for s in doc["skipped_files"]:
                if s["file"] in files:
                    files[s["file"]].skipped = s.get("reason") or "skipped"
    finally:
        os.chdir(cwd)
        if enabled:
            gc.enable()
    return CorpusRun(files, crashes, exits, time.perf_counter() - t0)


def load_triage(path: str = TRIAGE) -> dict[str, list[dict[str, Any]]]:
    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh) or {}
    return {"findings": list(doc.get("findings") or []), "files": list(doc.get("files") or [])}


def blocking(run: CorpusRun) -> list[dict[str, Any]]:
    return [f for r in run.files.values() for f in r.findings if f["level"] == "mandatory" and not f["suppressed"]]


def matches(entry: dict[str, Any], finding: dict[str, Any]) -> bool:
    return (entry["file"] == finding["file"] and entry["code"] == finding["code"]
            and entry["subject"] == finding["subject"] and entry["match"] in finding["message"])


def entry_for(finding: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((e for e in entries if matches(e, finding)), None)


def describe(f: dict[str, Any]) -> str:
    return f"{f['file']}:{f['line']} {f['code']} {f['subject']}: {f['message'][:160]}"


@dataclass
class Assessment:
    """The corpus run held against the triage (what the test asserts and the benchmark prints)."""

    untriaged: list[dict[str, Any]]  # blocking findings no entry matches
    blocked_not_true: list[str]  # blocked files none of whose blocking findings a reviewer accepts
    verdicts: Counter[str]  # verdicts of the blocking findings of this run
    true_lost: list[dict[str, Any]]  # entries judged true that no blocking finding matches now
    false_back: list[dict[str, Any]]  # fixed false entries that block again
    false_fixed: list[dict[str, Any]]  # open false entries that no longer block
    files_untriaged: list[str]  # files without a workload and without an entry
    files_stale: list[str]  # entries for files that now yield a workload
    silent: list[str]  # silent passes: files triaged false (status open), and untriaged files that look silent
    silent_untriaged: list[str]  # files that look like they run vLLM, give no workload, no word why, no verdict


def assess(run: CorpusRun, triage: dict[str, list[dict[str, Any]]]) -> Assessment:
    entries = triage["findings"]
    blocks = blocking(run)
    verdicts: Counter[str] = Counter()
    untriaged = []
    for f in blocks:
        e = entry_for(f, entries)
        if e is None:
            untriaged.append(f)
        else:
            verdicts[str(e["verdict"]).lower()] += 1
    accepted: dict[str, bool] = {}
    for f in blocks:
        e = entry_for(f, entries)
        accepted[f["file"]] = accepted.get(f["file"], False) or (e is not None and str(e["verdict"]).lower() == "true")
    blocked_not_true = sorted(k for k, ok in accepted.items() if not ok)
    hit = [any(matches(e, f) for f in blocks) for e in entries]
    true_lost = [e for e, h in zip(entries, hit, strict=True) if str(e["verdict"]).lower() == "true" and not h]
    false_back = [e for e, h in zip(entries, hit, strict=True)
                  if str(e["verdict"]).lower() == "false" and e.get("status") == "fixed" and h]
    false_fixed = [e for e, h in zip(entries, hit, strict=True)
                   if str(e["verdict"]).lower() == "false" and e.get("status") != "fixed" and not h]
    by_file = {e["file"]: e for e in triage["files"]}
    no_workload = sorted(k for k, r in run.files.items() if not r.workloads)
    files_untriaged = [k for k in no_workload if k not in by_file]
    files_stale = sorted(k for k in by_file if k in run.files and run.files[k].workloads)
    silent_untriaged = sorted(k for k, r in run.files.items() if r.silent and k not in by_file)
    known = [k for k, e in by_file.items() if str(e["verdict"]).lower() == "false" and e.get("status") != "fixed"
             and k in run.files and not run.files[k].workloads and not run.files[k].says_why]
    return Assessment(untriaged, blocked_not_true, verdicts, true_lost, false_back, false_fixed, files_untriaged,
                      files_stale, sorted({*known, *silent_untriaged}), silent_untriaged)


def summary(run: CorpusRun, a: Assessment) -> dict[str, Any]:
    """recognised / linted / undecided / silent and the blocking precision, as the benchmark prints them."""
    workloads = [w for r in run.files.values() for w in r.workloads]
    undecided = {(f["file"], f["subject"]) for r in run.files.values() for f in r.findings
                 if f["undecided"] and not f["suppressed"]}
    t, fa = a.verdicts["true"], a.verdicts["false"]
    return {
        "repositories": len(repositories()), "files": len(run.files),
        "files_serving": sum(r.serves for r in run.files.values()),
        "files_with_workload": sum(bool(r.workloads) for r in run.files.values()),
        "recognised": len(workloads),
        "linted": sum(1 for w in workloads if w["kv_cache_tokens"] is not None),
        "undecided": sum(1 for w in workloads if (w["file"], w["subject"]) in undecided),
        "not_read_said_why": sum(1 for r in run.files.values() if not r.workloads and r.says_why),
        "silent": len(a.silent),
        "crashes": len(run.crashes),
        "internal_errors": sum(1 for r in run.files.values() for f in r.findings if f.get("internal")),
        "blocking": sum(a.verdicts.values()) + len(a.untriaged),
        "blocking_true": t, "blocking_false": fa, "blocking_debatable": a.verdicts["debatable"],
        "blocking_untriaged": len(a.untriaged),
        "blocking_precision": round(t / (t + fa), 4) if t + fa else None,
        "blocked_files": len({f["file"] for f in blocking(run)}),
        "blocked_files_no_true_finding": len(a.blocked_not_true),
        "advisory": sum(1 for r in run.files.values() for f in r.findings
                        if f["level"] == "advisory" and not f["suppressed"]),
        "exits": dict(Counter(run.exits.values())),
        "seconds": round(run.seconds, 2),
    }
