"""One lint run's :class:`Report`: the findings, the inventory they came from and the settings of the run."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..adapters.config import Settings
from ..engine import LEVEL_ORDER, Finding, RuleMeta
from ..model import Inventory
from ..model.errors import InputError


@dataclass
class Report:
    """One lint run: what was read, what was found, with which settings."""

    findings: list[Finding]
    inventory: Inventory
    settings: Settings = field(default_factory=Settings)
    metas: Mapping[str, RuleMeta] = field(default_factory=dict)  # code -> metadata, registry order
    inputs: list[str] = field(default_factory=list)  # paths given on the command line
    #: :func:`workload_summary` of every group, when the run made them already (None: made when asked)
    workloads_made: list[dict[str, Any]] | None = field(default=None, repr=False)
    #: the same summaries as the JSON report writes them, where processes that shared out the rules encoded them
    #: (:func:`.summary.workload_summary_text`; None: not made so)
    workloads_text: list[str] | None = field(default=None, repr=False)
    #: The baseline the run was compared with (``--baseline``, ``--create-baseline``), or None: then
    #: ``findings`` are the new ones, ``baselined`` those the baseline holds (reported apart, never blocking)
    #: and ``baseline_stale`` the baseline's entries that no finding matched.
    baseline_file: str | None = None
    baselined: list[Finding] = field(default_factory=list)
    baseline_stale: int = 0
    #: The run wrote ``baseline_file`` (``--create-baseline``): the summary says so and names it.
    baseline_written: bool = False

    @property
    def fail_on(self) -> str:
        """``mandatory``, ``advisory`` or ``none`` (a report-only run: findings never fail it)."""
        return self.settings.fail_on

    @property
    def report_only(self) -> bool:
        """``--fail-on none`` (or the config file's ``fail_on: none``): findings never fail the run, input errors
        still do (exit 2)."""
        return self.fail_on == "none"

    @property
    def gate(self) -> str:
        """The level the findings are sorted at: ``fail_on``, or in a report-only run ``mandatory`` (the default
        gate, so the report shows what would fail once the run gates)."""
        return "mandatory" if self.report_only else self.fail_on

    def is_blocking(self, f: Finding) -> bool:
        """At or above :attr:`gate`; in a report-only run such a finding would block at mandatory, and fails nothing."""
        return not f.suppressed and LEVEL_ORDER[f.level] >= LEVEL_ORDER[self.gate]

    @property
    def blocking(self) -> list[Finding]:
        """The findings :meth:`is_blocking` holds, with the level's order looked up once, not per finding (a report
        asks for them several times: its summary, its exit status, the lines on stderr)."""
        if not self.findings:
            return []
        order, threshold = LEVEL_ORDER, LEVEL_ORDER[self.gate]
        return [f for f in self.findings if not f.suppressed and order[f.level] >= threshold]

    @property
    def errors(self) -> list[InputError]:
        """Input errors: what could not be read (everything else was)."""
        return self.inventory.errors

    @property
    def exit_code(self) -> int:
        """2 when an input could not be read, else 1 when a finding blocks (never in a report-only run), else 0."""
        return 2 if self.errors else 1 if self.blocking and not self.report_only else 0

    def input_errors(self) -> list[dict[str, Any]]:
        """``file``, ``line`` and ``message`` of each input error, and ``column`` where the reader gave one (a YAML
        syntax error)."""
        return [error_object(e) for e in self.errors]

    def skipped_files(self) -> dict[str, int]:
        """Files that are not inputs, by reason, most first."""
        counts: dict[str, int] = {}
        for _, reason in self.inventory.skipped_files:
            counts[reason] = counts.get(reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def note(self) -> str | None:
        """What a reader needs to know when the run found nothing to size."""
        if self.inventory.groups:
            return None
        issues = self.inventory.launch_issues
        unread = sum(1 for i in issues if i.mentioned and not i.source_unread)
        # a GitOps object that names no vLLM but deploys a source that was not read: no mention of vLLM (corpus28)
        sources = sum(1 for i in issues if i.source_unread)
        # a vLLM image whose command is no launch shardwise reads (SW002): a vLLM server, not "no vLLM" (newuser6)
        unparsed = sum(1 for i in issues if not i.mentioned and not i.crash and not i.other_engine)
        others = sorted({i.other_engine for i in issues if i.other_engine})
        other = sum(1 for i in issues if i.other_engine)
        why = []
        if unparsed:
            why.append(f"{unparsed} {'containers run' if unparsed != 1 else 'container runs'} a vLLM image with a "
                       "command shardwise cannot read: see SW002")
        if unread:
            why.append(f"{unread} {'objects mention' if unread != 1 else 'object mentions'} vLLM: see SW005")
        elsewhere = (f"{other} {'workloads serve' if other != 1 else 'workload serves'} a model with another "
                     f"engine ({', '.join(others)}), not vLLM: see SW005") if other else ""
        unfetched = (f"{sources} {'objects deploy' if sources != 1 else 'object deploys'} a source that was not "
                     "read: see SW005") if sources else ""
        after = [x for x in (elsewhere, unfetched) if x]
        if why:
            return f"no vLLM workload could be read, though {'; '.join([*why, *after])}"
        if after:
            return f"no vLLM workload found in the inputs; {'; '.join(after)}"
        return "no vLLM workload found in the inputs"

    def ordered(self) -> list[Finding]:
        """Blocking first, then the other unsuppressed findings, then suppressed ones."""
        return (
            self.blocking
            + [f for f in self.findings if not f.suppressed and not self.is_blocking(f)]
            + [f for f in self.findings if f.suppressed]
        )

    @property
    def files(self) -> list[str]:
        """The files read (once each, in order): not those skipped or excluded."""
        return list(dict.fromkeys(self.inventory.sources))

    @cached_property
    def workloads(self) -> list[dict[str, Any]]:
        if self.workloads_made is not None:
            return self.workloads_made
        if self.workloads_text is not None:  # made as JSON text by the processes that sized the groups
            import json

            return [json.loads(t) for t in self.workloads_text]
        from .summary import workload_summary  # start-up: only a report that shows the summaries

        return [workload_summary(g, self.settings.lint) for g in self.inventory.groups]

    def meta_for(self, code: str) -> RuleMeta | None:
        return self.metas.get(code)

    def summary(self) -> dict[str, Any]:
        active = [f for f in self.findings if not f.suppressed]
        blocking = len(self.blocking)  # once: "blocking" and "passed"
        out: dict[str, Any] = {
            "files": len(self.files),
            "workloads": len(self.inventory.groups),
            "findings": {
                "mandatory": sum(1 for f in active if f.level == "mandatory"),
                "advisory": sum(1 for f in active if f.level == "advisory"),
            },
            "suppressed": sum(1 for f in self.findings if f.suppressed),
            "blocking": blocking,
            "fail_on": self.fail_on,
            "passed": (self.report_only or not blocking) and not self.errors,
            "skipped": dict(sorted(self.inventory.skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
            "skipped_files": self.skipped_files(),
            "excluded": len(self.inventory.excluded),
            "input_errors": len(self.errors),
            "note": self.note,
        }
        if self.baseline_file is not None:
            out["baseline"] = {"file": self.baseline_file, "baselined": len(self.baselined),
                               "stale": self.baseline_stale}
        return out

    def verdict(self, summary: dict[str, Any] | None = None) -> str:
        """``passed``, or ``failed: …`` with the input errors and the blocking findings; in a report-only run
        ``report only (fail-on none): …`` with what would fail at mandatory (after ``failed: N input errors; ``);
        ``summary`` is :meth:`summary`'s, where the caller made it already."""
        s = self.summary() if summary is None else summary
        why = []
        if s["input_errors"]:
            why.append(_count(s["input_errors"], "input error"))
        if self.report_only:
            would = (f"{_count(s['blocking'], 'blocking finding')} would fail at {self.gate}" if s["blocking"]
                     else f"nothing would fail at {self.gate}")
            only = f"{REPORT_ONLY}: {would}"
            return f"failed: {why[0]}; {only}" if why else only
        if s["blocking"]:
            why.append(f"{_count(s['blocking'], 'blocking finding')} at or above {self.fail_on}")
        return f"failed: {', '.join(why)}" if why else "passed"

    def summary_line(self) -> str:
        s = self.summary()
        workloads = _count(s["workloads"], "workload")
        if s["note"]:
            workloads += f" ({s['note']})"
        parts = [_count(s["files"], "file") + " read", workloads]
        if not self.baseline_written:  # --create-baseline: the findings it wrote are counted in baseline_line
            parts += [
                _count(s["findings"]["mandatory"], "mandatory finding"),
                _count(s["findings"]["advisory"], "advisory finding"),
                f"{s['suppressed']:,} suppressed",
            ]
        line = "shardwise: " + ", ".join(parts)
        if s["skipped"]:
            n = sum(s["skipped"].values())
            kinds = ", ".join(f"{k}×{v:,}" for k, v in s["skipped"].items())
            line += f"; skipped {_count(n, 'object')} of unknown kinds: {kinds}"
        if s["skipped_files"]:
            n = sum(s["skipped_files"].values())
            kinds = ", ".join(f"{k}×{v:,}" for k, v in s["skipped_files"].items())
            line += f"; skipped {_count(n, 'file')} that {'is not an input' if n == 1 else 'are not inputs'}: {kinds}"
            if any(k in _UNRENDERED_KINDS for k in s["skipped_files"]):
                line += (" (charts and kustomizations found by searching a folder and not built (no tool, a"
                         " failed build, --no-build-found) are not rendered: name their folder, or pipe helm"
                         " template or kustomize build to shardwise lint -)")
        if s["excluded"]:
            line += f"; excluded {_count(s['excluded'], 'path')}"
        if "baseline" in s:
            line += "; " + self.baseline_line()
        return f"{line} — {self.verdict(s)}"


    def baseline_line(self) -> str:
        """``3 findings in the baseline``, and how many of its entries no finding matched; for ``--create-baseline``
        what it wrote: ``15 findings written to the baseline FILE (10 mandatory, 5 advisory); 1 suppressed, not
        written`` (adopt17, adopt18: it said "0 mandatory findings" beside "34 findings written"), and the findings
        it could not write (internal errors, which always block)."""
        if self.baseline_written:
            by_level = [sum(1 for f in self.baselined if f.level == level) for level in ("mandatory", "advisory")]
            text = (f"{_count(len(self.baselined), 'finding')} written to the baseline {self.baseline_file} "
                    f"({by_level[0]:,} mandatory, {by_level[1]:,} advisory)")
            left = [f for f in self.findings if not f.suppressed]
            if left:
                text += f"; {_count(len(left), 'finding')} not written (a rule crashed: internal errors always block)"
            suppressed = sum(1 for f in self.findings if f.suppressed)
            if suppressed:
                text += f"; {suppressed:,} suppressed, not written"
            return text
        text = f"{_count(len(self.baselined), 'finding')} in the baseline"
        if self.baseline_stale:
            n = self.baseline_stale
            text += (f" ({_count(n, 'baseline entry', 'baseline entries')} no longer {'matches' if n == 1 else 'match'}"
                     " a finding: refresh it with --create-baseline)")
        return text


#: How every report names a report-only run (``--fail-on none``, or the config file's ``fail_on: none``).
REPORT_ONLY = "report only (fail-on none)"


#: Skipped files of a chart or a kustomization found by searching a folder (or `.` itself, never rendered):
#: naming the chart's or the overlay's folder renders it (docs/cli.md, "Helm charts and Kustomize").
_UNRENDERED_KINDS = frozenset({"Helm chart template (not rendered)", "Helm chart file (not rendered)",
                               "Kustomize file"})


def error_object(e: InputError) -> dict[str, Any]:
    """An input error as the JSON report writes it: ``column`` only where the reader gave one."""
    if e.column is None:
        return {"file": e.file, "line": e.line, "message": e.message}
    return {"file": e.file, "line": e.line, "column": e.column, "message": e.message}


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


#: What a location's file carries after the real file's path where its object was read through a render: the GitOps
#: object or the overlay it came through (`` (via Application argocd/chat-prod)``, `` (via overlays/prod/
#: kustomization.yaml)``: an overlay's object, read unbuilt or built and placed at its origin's line), a kustomization's
#: build output where no origin was found (`` (kustomize build)``), a chart's output that no template claims
#: (`` (helm template)``) or one whose template could not be read (`` (rendered)``).
_THROUGH = re.compile(r" \((?:via [^()]*|rendered|kustomize build|helm template)\)$")


def source_file(file: str) -> tuple[str, str]:
    """The path of the file a location's ``file`` names, and what it was read through (the suffixes, without their
    parentheses, ``; ``-joined; empty for a file read as written). The text report shows ``file`` whole; the GitHub
    annotations and SARIF name the path, which is all a pull request's files or a code scanner can place
    (newuser12: ``charts/vllm/templates/deployment.yaml (via Application argocd/chat-prod)`` named no file of the
    repository, so the finding that failed the check showed on no line), and say the rest in the message."""
    through: list[str] = []
    while (m := _THROUGH.search(file)) is not None:
        through.insert(0, m.group()[2:-1])
        file = file[:m.start()]
    return file, "; ".join(through)


def pascal_case(name: str) -> str:
    """``tp-across-nodes`` → ``TpAcrossNodes`` (SARIF rule names)."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-") if part)


def metas_of(rules: Iterable[Any]) -> dict[str, RuleMeta]:
    return {r.meta.code: r.meta for r in rules}

