"""How much of a corpus in the real shapes ``shardwise lint`` recognises, lints and reports.

Run from the repository root::

    .venv/bin/python benchmarks/bench_corpus.py [--repos 60] [--seed 0] [--out bench-out]

It writes the corpus of ``gen_corpus.py`` (repositories mixing plain workloads with GKE, EKS,
Karpenter and GPU Feature Discovery placement, serving custom resources, Helm output with one broken
document, and files that are no input), then lints it two ways, in-process through
``shardwise.rules.app.cli.main``:

1. **each file alone**, ``shardwise lint FILE --format json --output R``, as a user trying the tool
   on one manifest would: a run *produced a report* when ``R`` was written and is a JSON report,
   whatever the exit status (2 for an input error is right for a broken file, as long as the report
   is there);
2. **each repository in one run**, as CI would: the same figures, with the files of a repository
   seen together (node pools declared in one file place the workloads of another);
3. **the whole corpus at once**, every repository in one run: one report, its exit status and its
   time (a stress run: unrelated repositories share their node pools here).

For every shape and in total it prints, against the generator's ground truth (``corpus.json``):

- *files*, *workloads*: files of the shape and vLLM workloads they hold;
- *recognised*: workloads the report lists (per file at most as many as the file holds; more is
  counted apart as *extra*);
- *sized*: recognised workloads the capacity model sized (a KV-cache figure in the report's workload
  row: model, GPU and layout all known);
- *undecided*: recognised workloads with at least one finding that says it cannot decide;
- *not read*: SW005 findings (an object that mentions vLLM but gave no workload), against the
  workloads no command in their file describes (*expected not read*);
- *input errors*: reported against the broken documents the generator wrote (*expected*);
- *skipped*: files that are no input and were skipped as such (not read, not an error);
- *reports*: per-file runs that produced a report.

Figures go to stdout and to ``OUT/bench_corpus.json``.

``--wide`` measures the project's wide corpus of public files instead (``tests/corpus/wide``, see
``corpus_wide.py``): each repository folder linted in one run, held to ``TRIAGE.yaml``. It prints
files and repositories, workloads *recognised*, *linted* (sized by the capacity model), *undecided*,
files not read that say why, *silent* passes (files judged to run vLLM with no workload and no word
why, and untriaged files that look so), crashes, and the blocking precision, true ÷ (true + false),
with the debatable and untriaged blocking findings shown apart. Figures to ``OUT/bench_corpus_wide.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from collections import Counter, defaultdict
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_corpus  # noqa: E402  (a sibling script, not a package)

COLUMNS = ("files", "workloads", "recognised", "extra", "sized", "undecided", "not read", "expected not read",
           "errors", "expected errors", "skipped", "reports")


def lint_json(paths: list[str], report: str) -> tuple[int, dict[str, Any] | None, str]:
    """(exit status, the JSON report or None when none was written, stderr) of one in-process lint."""
    from shardwise.rules.app.cli import main

    if os.path.exists(report):
        os.remove(report)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lint", *paths, "--format", "json", "--output", report, "--jobs", "1"])
    try:
        with open(report, encoding="utf-8") as fh:
            return code, json.load(fh), err.getvalue()
    except (OSError, ValueError):
        return code, None, err.getvalue()


def tally(entry: dict[str, Any], doc: dict[str, Any] | None, path: str) -> dict[str, int]:
    """One file's figures (see the module docstring) from its own report."""
    row = dict.fromkeys(COLUMNS, 0)
    row["files"] = 1
    row["workloads"] = entry["workloads"]
    row["expected errors"] = entry["broken"]
    row["expected not read"] = entry.get("unread", 0)
    if doc is None:
        return row
    row["reports"] = 1
    workloads = [w for w in doc["workloads"] if w["file"] == path]
    found = len(workloads)
    row["recognised"] = min(found, entry["workloads"])
    row["extra"] = max(0, found - entry["workloads"])
    row["sized"] = min(row["recognised"], sum(1 for w in workloads if w["kv_cache_tokens"] is not None))
    undecided = {f["subject"] for f in doc["findings"] if f["undecided"] and not f["suppressed"]}
    row["undecided"] = min(row["recognised"], sum(1 for w in workloads if w["subject"] in undecided))
    row["not read"] = sum(1 for f in doc["findings"] if f["code"] == "SW005" and f["file"] == path)
    row["errors"] = len(doc["input_errors"])
    row["skipped"] = int(any(s["file"] == path for s in doc["skipped_files"]))
    return row


def table(rows: dict[str, dict[str, int]]) -> str:
    head = ["shape", *COLUMNS]
    body = [[shape, *(str(r[c]) for c in COLUMNS)] for shape, r in rows.items()]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join(fmt.format(*x) for x in [head, *body])


def markdown(rows: dict[str, dict[str, int]]) -> str:
    lines = ["| shape | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    lines += [f"| {shape} | " + " | ".join(str(r[c]) for c in COLUMNS) + " |" for shape, r in rows.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out"))
    ap.add_argument("--wide", action="store_true", help="the wide corpus of public files (tests/corpus/wide)")
    args = ap.parse_args(argv)
    if args.wide:
        return wide(args.out)

    out = os.path.join(args.out, "corpus")
    entries = [e.__dict__ for e in gen_corpus.generate(out, args.repos, args.seed)]
    repos = os.path.join(out, "repos")
    report = os.path.join(args.out, "corpus-report.json")
    print(f"corpus: {len(entries)} files, {sum(e['workloads'] for e in entries)} vLLM workloads, "
          f"{sum(e['broken'] for e in entries)} broken documents, {sum(not e['input'] for e in entries)} files "
          f"that are no input, in {args.repos} repositories under {os.path.relpath(repos, ROOT)}")

    # 1. each file alone
    rows: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    exits: Counter[int] = Counter()
    no_report: Counter[str] = Counter()
    t0 = time.perf_counter()
    for e in entries:
        path = os.path.join(repos, e["file"])
        code, doc, err = lint_json([path], report)
        exits[code] += 1
        if doc is None:
            no_report[err.splitlines()[0].split(": ", 3)[-1][:90] if err else "(no message)"] += 1
        for k, v in tally(e, doc, path).items():
            rows[e["shape"]][k] += v
    per_file_s = time.perf_counter() - t0
    total = {c: sum(r[c] for r in rows.values()) for c in COLUMNS}
    rows = dict(sorted(rows.items()))
    rows["total"] = total
    print()
    print("== each file alone ==")
    print(table(rows))
    print(f"exit statuses: {dict(sorted(exits.items()))}; {total['reports']} of {total['files']} runs produced a "
          f"report ({per_file_s:.1f} s for {len(entries)} runs)")
    for why, n in no_report.most_common():
        print(f"  no report ×{n}: {why}")

    # 2. each repository in one run
    repo_rows: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    repo_exits: Counter[int] = Counter()
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_repo[e["file"].split("/", 1)[0]].append(e)
    t0 = time.perf_counter()
    for name, files in sorted(by_repo.items()):
        code, doc, _ = lint_json([os.path.join(repos, name)], report)
        repo_exits[code] += 1
        for e in files:
            row = tally(e, doc, os.path.join(repos, e["file"]))
            row["errors"] = sum(1 for x in (doc or {}).get("input_errors", ())
                                if x["file"] == os.path.join(repos, e["file"]))
            row["reports"] = int(doc is not None)
            for k, v in row.items():
                repo_rows[e["shape"]][k] += v
    per_repo_s = time.perf_counter() - t0
    repo_total = {c: sum(r[c] for r in repo_rows.values()) for c in COLUMNS}
    repo_rows = dict(sorted(repo_rows.items()))
    repo_rows["total"] = repo_total
    print()
    print("== each repository in one run ==")
    print(table(repo_rows))
    print(f"exit statuses: {dict(sorted(repo_exits.items()))}; {sum(repo_exits.values())} runs, "
          f"{per_repo_s:.1f} s; files whose repository's run produced a report: {repo_total['reports']}")

    # 3. the whole corpus at once
    t0 = time.perf_counter()
    code, doc, err = lint_json([repos], report)
    whole_s = time.perf_counter() - t0
    print()
    print("== the whole corpus in one run ==")
    if doc is None:
        first = err.splitlines()[0] if err else "(no message)"
        print(f"exit {code}, NO report ({whole_s:.2f} s); stderr: {len(err.splitlines())} lines, first: {first}")
        whole = {"exit": code, "report": False, "seconds": round(whole_s, 3)}
    else:
        s = doc["summary"]
        undecided = {f["subject"] for f in doc["findings"] if f["undecided"] and not f["suppressed"]}
        whole = {"exit": code, "report": True, "seconds": round(whole_s, 3), "files_read": s["files"],
                 "workloads": s["workloads"], "sized": sum(1 for w in doc["workloads"] if w["kv_cache_tokens"]),
                 "undecided": sum(1 for w in doc["workloads"] if w["subject"] in undecided),
                 "input_errors": s["input_errors"], "skipped_files": sum(s["skipped_files"].values()),
                 "findings": s["findings"]}
        print(f"exit {code}, report written ({whole_s:.2f} s): {s['files']} files read, {s['workloads']} workloads "
              f"({whole['sized']} sized, {whole['undecided']} undecided), {s['input_errors']} input errors, "
              f"{whole['skipped_files']} files skipped, {s['findings']['mandatory']} mandatory and "
              f"{s['findings']['advisory']} advisory findings")

    print()
    print(markdown(rows))
    with open(os.path.join(args.out, "bench_corpus.json"), "w", encoding="utf-8") as fh:
        json.dump({"per_file": rows, "exits": dict(exits), "no_report": dict(no_report),
                   "per_repo": repo_rows,
                   "repo_exits": dict(repo_exits), "whole": whole,
                   "repos": args.repos, "seed": args.seed}, fh, indent=1)
    print(f"\nfigures written to {os.path.relpath(os.path.join(args.out, 'bench_corpus.json'), ROOT)}")
    return 0


def wide(out_dir: str) -> int:
    """The wide corpus of public files against its triage (see the module docstring)."""
    import corpus_wide

    run = corpus_wide.lint_corpus()
    a = corpus_wide.assess(run, corpus_wide.load_triage())
    s = corpus_wide.summary(run, a)
    precision = "n/a" if s["blocking_precision"] is None else f"{100 * s['blocking_precision']:.1f} %"
    print(f"wide corpus: {s['files']} files from {s['repositories']} repositories, {s['files_serving']} that look "
          f"like they run vLLM; {s['seconds']} s for one run per repository (exit statuses {s['exits']})")
    print(f"recognised {s['recognised']} workloads in {s['files_with_workload']} files; linted (sized) "
          f"{s['linted']}; undecided {s['undecided']}; not read, saying why: {s['not_read_said_why']} files; "
          f"silent: {s['silent']} files; crashes: {s['crashes']}; internal errors: {s['internal_errors']}")
    print(f"blocking: {s['blocking']} findings in {s['blocked_files']} files; true {s['blocking_true']}, false "
          f"{s['blocking_false']} -> precision {precision}; debatable {s['blocking_debatable']} and untriaged "
          f"{s['blocking_untriaged']} apart; advisory {s['advisory']}")
    print(f"blocked files: {s['blocked_files']}, of which {s['blocked_files_no_true_finding']} by no finding a "
          "reviewer accepts")
    for name in a.silent:
        print(f"  silent: {name}")
    for f in a.untriaged:
        print(f"  untriaged blocking: {corpus_wide.describe(f)}")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "bench_corpus_wide.json"), "w", encoding="utf-8") as fh:
        json.dump(s, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
