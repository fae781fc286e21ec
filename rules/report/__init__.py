"""Reports of one lint run: text, JSON, SARIF 2.1.0, GitHub annotations and a Markdown comment.

A :class:`Report` holds the findings, the inventory they came from and the settings of the run;
each format is a module with ``render(report, color=False) -> str`` and is imported only when used
(jinja2 only for Markdown), so the linter starts fast.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..adapters.config import Settings
from ..engine import LEVEL_ORDER, Finding, LintConfig, RuleMeta
from ..model import Inventory, ServingGroup, is_unknown
from ..model import int_or_none as _int
from ..model.errors import InputError

FORMATS = ("text", "json", "sarif", "github", "markdown")
_MODULES = {"text": "text", "json": "json_", "sarif": "sarif", "github": "github", "markdown": "markdown"}


def _plain(value: Any) -> Any:
    """A JSON-safe value: unknowns (computed at preview) become None."""
    if is_unknown(value):
        return None
    return value


def group_subject(g: ServingGroup) -> str:
    from ..engine import group_subject as subject

    return subject(g)


def workload_summary(g: ServingGroup, config: LintConfig) -> dict[str, Any]:
    """Per-group sizing summary: GPUs = replicas × TP × PP and one replica's memory per GPU.

    The numbers are the capacity rules' own sizing of the group (:func:`shardwise.rules.capacity.group.summary`,
    made once per group); when the group has no model, no GPU or an unknown input, ``note`` says what is missing
    and the sizing fields are None. ``cost`` is :func:`shardwise.rules.capacity.cost.workload_cost`: nodes,
    instance type and on-demand price.
    """
    from ..capacity.cost import workload_cost
    from ..capacity.group import summary

    e = g.engine
    tp, pp, replicas = _int(e.tensor_parallel_size), _int(e.pipeline_parallel_size), _int(g.replicas)
    dp = _int(e.data_parallel_size)
    sm = summary(g, config)
    p95 = g.p95_context or config.p95_context_tokens
    out: dict[str, Any] = {
        "subject": group_subject(g),
        "name": g.name,
        "kind": g.kind,
        "namespace": g.namespace,
        "file": g.location.file,
        "line": g.location.line,
        "urn": g.location.urn,
        "model": sm.model,
        "gpu": sm.gpu,
        "gpu_memory_gib": None,
        "replicas": replicas,
        "tensor_parallel_size": tp,
        "pipeline_parallel_size": pp,
        "data_parallel_size": dp,
        "gpus_per_replica": tp * pp if tp and pp else None,
        "gpus_total": replicas * tp * pp if tp and pp and replicas is not None else None,
        "max_model_len": _int(e.max_model_len),
        "max_num_seqs": _int(e.max_num_seqs),
        "p95_context": p95,
        "target_concurrency": g.target_concurrency,
        "weights_gib_per_gpu": None,
        "kv_cache_gib_per_gpu": None,
        "headroom_gib_per_gpu": None,
        "kv_cache_tokens": None,
        "max_concurrency": None,
        "concurrency_at_p95": None,
        "starts": None,
        "note": sm.note,
        "cost": workload_cost(g).as_dict(),
    }
    s = sm.sizing
    if s is None:
        return out
    out.update(
        gpu_memory_gib=sm.gpu_memory_gib,
        max_model_len=s.max_model_len,
        max_num_seqs=s.max_num_seqs,
        weights_gib_per_gpu=round(s.weights_gib_per_gpu, 2),
        kv_cache_gib_per_gpu=round(s.kv_cache_gib_per_gpu, 2),
        # KV left after each replica's share of the declared load (None without one: max_num_seqs is not a load)
        headroom_gib_per_gpu=(round(s.kv_cache_gib_per_gpu - -(-g.target_concurrency // max(1, replicas or 1))
                                    * s.context_kv_gib, 2) if g.target_concurrency else None),
        kv_cache_tokens=s.kv_cache_tokens,
        max_concurrency=int(s.max_concurrency),  # whole sequences of max_model_len
        concurrency_at_p95=s.concurrency_at_expected_context if p95 else None,
        starts=s.starts,
    )
    return out


@dataclass
class Report:
    """One lint run: what was read, what was found, with which settings."""

    findings: list[Finding]
    inventory: Inventory
    settings: Settings = field(default_factory=Settings)
    metas: dict[str, RuleMeta] = field(default_factory=dict)  # code -> metadata, registry order
    inputs: list[str] = field(default_factory=list)  # paths given on the command line
    #: :func:`workload_summary` of every group, when the run made them already (None: made when asked)
    workloads_made: list[dict[str, Any]] | None = field(default=None, repr=False)
    #: The baseline the run was compared with (``--baseline``, ``--create-baseline``), or None: then
    #: ``findings`` are the new ones, ``baselined`` those the baseline holds (reported apart, never blocking)
    #: and ``baseline_stale`` the baseline's entries that no finding matched.
    baseline_file: str | None = None
    baselined: list[Finding] = field(default_factory=list)
    baseline_stale: int = 0

    @property
    def fail_on(self) -> str:
        return self.settings.fail_on

    def is_blocking(self, f: Finding) -> bool:
        return not f.suppressed and LEVEL_ORDER[f.level] >= LEVEL_ORDER[self.fail_on]

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if self.is_blocking(f)]

    @property
    def errors(self) -> list[InputError]:
        """Input errors: what could not be read (everything else was)."""
        return self.inventory.errors

    @property
    def exit_code(self) -> int:
        """2 when an input could not be read, else 1 when a finding blocks, else 0."""
        return 2 if self.errors else 1 if self.blocking else 0

    def input_errors(self) -> list[dict[str, Any]]:
        return [{"file": e.file, "line": e.line, "message": e.message} for e in self.errors]

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
        unread = sum(1 for i in self.inventory.launch_issues if i.mentioned)
        if unread:
            return (f"no vLLM workload could be read, though {unread} "
                    f"{'objects mention' if unread != 1 else 'object mentions'} vLLM: see SW005")
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
        return [workload_summary(g, self.settings.lint) for g in self.inventory.groups]

    def meta_for(self, code: str) -> RuleMeta | None:
        return self.metas.get(code)

    def summary(self) -> dict[str, Any]:
        active = [f for f in self.findings if not f.suppressed]
        out: dict[str, Any] = {
            "files": len(self.files),
            "workloads": len(self.inventory.groups),
            "findings": {
                "mandatory": sum(1 for f in active if f.level == "mandatory"),
                "advisory": sum(1 for f in active if f.level == "advisory"),
            },
            "suppressed": sum(1 for f in self.findings if f.suppressed),
            "blocking": len(self.blocking),
            "fail_on": self.fail_on,
            "passed": not self.blocking and not self.errors,
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

    def verdict(self) -> str:
        """``passed``, or ``failed: …`` with the input errors and the blocking findings."""
        s = self.summary()
        why = []
        if s["input_errors"]:
            why.append(_count(s["input_errors"], "input error"))
        if s["blocking"]:
            why.append(f"{_count(s['blocking'], 'blocking finding')} at or above {self.fail_on}")
        return f"failed: {', '.join(why)}" if why else "passed"

    def summary_line(self) -> str:
        s = self.summary()
        workloads = _count(s["workloads"], "workload")
        if s["note"]:
            workloads += f" ({s['note']})"
        parts = [
            _count(s["files"], "file") + " read",
            workloads,
            f"{s['findings']['mandatory']} mandatory, {s['findings']['advisory']} advisory "
            f"finding{'' if s['findings']['mandatory'] + s['findings']['advisory'] == 1 else 's'}",
            f"{s['suppressed']} suppressed",
        ]
        line = "shardwise: " + ", ".join(parts)
        if s["skipped"]:
            n = sum(s["skipped"].values())
            kinds = ", ".join(f"{k}×{v}" for k, v in s["skipped"].items())
            line += f"; skipped {_count(n, 'object')} of unknown kinds: {kinds}"
        if s["skipped_files"]:
            n = sum(s["skipped_files"].values())
            kinds = ", ".join(f"{k}×{v}" for k, v in s["skipped_files"].items())
            line += f"; skipped {_count(n, 'file')} that {'is' if n == 1 else 'are'} not inputs: {kinds}"
        if s["excluded"]:
            line += f"; excluded {_count(s['excluded'], 'path')}"
        if "baseline" in s:
            line += "; " + self.baseline_line()
        return f"{line} — {self.verdict()}"


    def baseline_line(self) -> str:
        """``3 findings in the baseline``, and how many of its entries no finding matched."""
        text = f"{_count(len(self.baselined), 'finding')} in the baseline"
        if self.baseline_stale:
            n = self.baseline_stale
            text += (f" ({_count(n, 'baseline entry', 'baseline entries')} no longer {'matches' if n == 1 else 'match'}"
                     " a finding: refresh it with --create-baseline)")
        return text


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def pascal_case(name: str) -> str:
    """``tp-across-nodes`` → ``TpAcrossNodes`` (SARIF rule names)."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-") if part)


def render(report: Report, fmt: str, color: bool = False) -> str:
    """Render ``report`` in one of :data:`FORMATS`."""
    if fmt not in _MODULES:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{_MODULES[fmt]}")
    return module.render(report, color=color)


def parse_format(spec: str) -> tuple[str, str | None]:
    """``sarif=shardwise.sarif`` -> ``("sarif", "shardwise.sarif")``; ``github`` -> ``("github", None)``
    (standard output; so is ``=-``). ValueError for a format not in :data:`FORMATS`."""
    fmt, sep, path = spec.partition("=")
    fmt = fmt.strip()
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}, optionally =FILE")
    if sep and not path:
        raise ValueError(f"{spec!r} names no file; write {fmt}=FILE, or {fmt} for standard output")
    return fmt, (None if not sep or path == "-" else path)


def destinations(formats: list[tuple[str, str | None]] | None, output: str | None) -> list[tuple[str, str | None]]:
    """Where each report of a run goes: ``(format, file)``, None for standard output.

    ``output`` (``--output``) is the file of the one format given without its own; text is the
    format when none is given. ValueError when two reports would go to one place."""
    outs = list(formats or [("text", None)])
    bare = [fmt for fmt, path in outs if path is None]
    if output is not None:
        if not bare:
            raise ValueError("--output FILE is the file of the format given without =FILE, and every --format "
                             "names its own file")
        if len(bare) > 1:
            raise ValueError(f"--output FILE takes one report, but {' and '.join(bare)} have no file of their "
                             "own; write --format FMT=FILE")
        outs = [(fmt, output if path is None else path) for fmt, path in outs]
    elif len(bare) > 1:
        raise ValueError(f"only one report can go to standard output, not {' and '.join(bare)}; write the "
                         "others to files: --format FMT=FILE")
    seen: dict[str, str] = {}
    for fmt, path in outs:
        if path is not None:
            key = os.path.abspath(path)
            if key in seen:
                raise ValueError(f"the {seen[key]} and {fmt} reports would both be written to {path}")
            seen[key] = fmt
    return outs


def metas_of(rules: Iterable[Any]) -> dict[str, RuleMeta]:
    return {r.meta.code: r.meta for r in rules}


def fmt_num(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"
