"""One lint run as a function: settings from the config file and the command line, the inputs read,
the rules run, a :class:`~shardwise.rules.report.Report` returned. ``shardwise lint`` prints it;
``shardwise diff`` makes two (the base tree and the working tree) and compares them.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..adapters.charts import Renderer
    from ..model import Inventory
    from ..report import Report
    from .baseline import Entry


@dataclass
class LintOptions:
    """What the command line says about a run (None: the config file's value, else the default)."""

    config: str | None = None
    fail_on: str | None = None
    kv_reserve: float | None = None
    p95_context: int | None = None
    exclude: list[str] = field(default_factory=list)
    model_dirs: list[str] = field(default_factory=list)
    jobs: int | None = None
    fetch_configs: bool = False
    #: helm/kustomize settings for chart and kustomization directories given as paths
    values: list[str] = field(default_factory=list)
    set_values: list[str] = field(default_factory=list)
    remote_bases: bool = False  # let kustomize fetch remote bases (--fetch-remote-bases)
    gitops_revision: str | None = None  # the branch this checkout stands for (--gitops-revision)
    #: build the kustomizations and charts met while searching (None: the config file's build_found, else True)
    build_found: bool | None = None
    require_build: bool = False  # one met that was not built fails the run (--require-build)
    baseline: str | None = None  # report only the findings this baseline file does not hold (--baseline)
    create_baseline: str | None = None  # write the run's findings to this baseline file (--create-baseline)


def lint_report(paths: Sequence[str], options: LintOptions) -> Report:
    """Lint ``paths`` (relative to the current directory, where the config and ignore files are looked
    for) and return the report. Raises :class:`~shardwise.rules.model.errors.ShardwiseError` for a usage
    problem (an unreadable config file, a ``--model-dir`` that is no directory)."""
    from ..adapters import default_jobs, read_inputs
    from ..adapters.config import load_config
    from ..adapters.select import IGNORE_FILE, Excludes, read_ignore_file
    from ..catalog import resolve
    from ..checks.index import CODES, Metas, rules_for
    from ..engine import SPLIT_MIN_GROUPS, merge_undecided, run_rules
    from ..model.errors import InputError, ShardwiseError
    from ..report import Report

    baseline = None
    if options.baseline:  # a bad baseline fails before the run
        from .baseline import load as load_baseline

        baseline = load_baseline(options.baseline)
    settings = load_config(options.config, known_codes=set(CODES))
    if options.fail_on:
        settings.fail_on = options.fail_on
    if options.kv_reserve is not None:
        settings.lint.kv_reserve = options.kv_reserve
    if options.p95_context is not None:
        settings.lint.p95_context_tokens = options.p95_context
    if options.require_build:
        settings.lint.require_build = True
    for d in options.model_dirs:
        if not os.path.isdir(d):
            raise ShardwiseError(f"--model-dir {d}: not a directory")
    if options.values or options.set_values:
        from ..adapters.renderkind import render_kind, to_render

        if not any((chart := to_render(p)) is not None and render_kind(chart) == "helm" for p in paths):
            raise ShardwiseError("--values/--set: no PATH is a Helm chart directory (one with a Chart.yaml, other than "
                                 "the current directory), so no chart would read them; name the chart's directory")
    resolve.configure(model_dirs=[*settings.model_dirs, *(os.path.abspath(d) for d in options.model_dirs)])
    excludes = Excludes()  # a pattern or an ignore file that cannot be read is an input error; the rest is read
    try:
        excludes.extend(read_ignore_file(), IGNORE_FILE, numbered=True)
    except InputError as e:
        excludes.errors.append(e)
    excludes.extend(settings.exclude, settings.source)
    excludes.extend(options.exclude, "--exclude")
    revision = ((options.gitops_revision, "--gitops-revision") if options.gitops_revision else
                (settings.gitops_revision, f"gitops_revision in {settings.source}") if settings.gitops_revision else
                None)
    inv = read_inputs(list(paths), jobs=options.jobs, excludes=excludes,
                      render=_renderer(options), gitops_revision=revision, meanwhile=_import_for,
                      build_found=settings.build_found if options.build_found is None else options.build_found,
                      require_build=settings.lint.require_build)
    if options.fetch_configs:
        for model_id, outcome in resolve.fetch_unknown(inv.groups).items():
            print(f"shardwise: --fetch-configs: {model_id}: {outcome}", file=sys.stderr)
    inv.errors.extend(resolve.model_input_errors(inv.groups))  # unreadable config.json files: exit 2 after linting
    lint = settings.lint
    rules = rules_for(inv)  # only the rules whose objects the inputs hold: the others are not even imported
    jobs = default_jobs() if options.jobs is None else options.jobs
    if jobs > 1 and len(inv.groups) >= SPLIT_MIN_GROUPS:
        from ..engine.split import run_rules_split  # forked processes (pickle, tempfile): only a large run
        from ..report.summary import workload_summary_text

        # each summary made, and encoded as the JSON report writes it, by the process that sized its group
        findings, texts = run_rules_split(rules, inv, lint, jobs, lambda g: workload_summary_text(g, lint))
    else:
        findings, texts = run_rules(rules, inv, lint), None
    report = Report(findings, inv, settings, Metas(), list(paths), workloads_text=texts)
    if options.create_baseline:  # a baseline holds each rule's own findings, written and matched before the merge
        baseline = _create_baseline(report, options.create_baseline)
    if baseline is not None:
        _compare(report, baseline, options.create_baseline or options.baseline or "")
        report.baseline_written = bool(options.create_baseline)
        report.baselined = merge_undecided(report.baselined)
    report.findings = merge_undecided(report.findings)  # one "cannot decide" per workload, unknown and level
    return report


def _import_for(piece: Inventory) -> None:
    """What this process will import after a parallel reading for what ``piece`` (a batch of files it read) holds,
    imported between its batches instead (:func:`~..adapters.read_inputs`' ``meanwhile``): the rules
    :func:`~..checks.index.rules_for` makes for it (and the capacity model and helpers they import), the summaries
    and the rules' split of a run with serving groups, the deployable units of one with pools or network objects.
    On the 2,000 generated files these are 56 modules (benchmarks/README.md, "The serial part of a parallel lint"),
    imported on one core while the other waited; now while the other process still reads. Nothing is made or
    changed: a module imported here and not needed costs its import only."""
    from ..checks.index import import_rules_for

    import_rules_for(piece)
    if piece.groups:
        from ..engine import split  # noqa: F401 - imported for the rules' step (run_rules_split)
        from ..report import summary  # noqa: F401 - the summaries' texts the split makes

        if piece.pools or piece.services or piece.ingresses or piece.network_policies or piece.routers:
            from ..adapters import units  # noqa: F401 - read_inputs' assign_units


def _create_baseline(report: Report, path: str) -> dict[Entry, int]:
    """Write the baseline of ``report`` to ``path`` and return it. Inputs that could not be read still fail the
    run (exit 2); their findings, unknown today, are new once they are read."""
    from ..model.errors import InputError
    from .baseline import create, dumps
    from .output import write_atomically

    entries = create(report.findings)
    try:
        write_atomically(path, dumps(entries))
    except OSError as e:
        raise InputError(f"--create-baseline: cannot write: {e.strerror or e}", path) from None
    return entries


def _compare(report: Report, baseline: dict[Entry, int], name: str) -> None:
    from .baseline import match

    m = match(report.findings, baseline, linted=report.inputs)
    report.findings, report.baselined, report.baseline_stale = m.new, m.baselined, m.stale
    report.baseline_file = name


#: The module of ``shardwise.rules.report`` that writes each format (its ``FORMATS``, in the same order).
REPORT_MODULES = {"text": "text", "json": "json_", "sarif": "sarif", "github": "github", "markdown": "markdown"}


def render(report: Report, fmt: str, color: bool = False) -> str:
    """Render ``report`` in one of the report formats, importing only that format's module (start-up time:
    a run imports neither the formats it was not asked for nor jinja2 without Markdown)."""
    from ..report.formats import utf8_text  # loaded with report's face already (the formats and destinations)

    return utf8_text(_rendered(report, fmt, color), fmt)


def render_bytes(report: Report, fmt: str) -> bytes:
    """:func:`render`'s report (no colour) as the UTF-8 bytes a report file holds, encoded once
    (:func:`..report.formats.utf8_bytes`)."""
    from ..report.formats import utf8_bytes

    return utf8_bytes(_rendered(report, fmt, False), fmt)


def _rendered(report: Report, fmt: str, color: bool) -> str:
    if fmt not in REPORT_MODULES:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(REPORT_MODULES)}")
    module = importlib.import_module(f"shardwise.rules.report.{REPORT_MODULES[fmt]}")
    return module.render(report, color=color)  # type: ignore[no-any-return]


def _renderer(options: LintOptions) -> Renderer | None:
    """The chart renderer the options ask for, or None for the default one (then :mod:`..adapters.charts`, with
    its subprocesses, is imported only when a chart or kustomization directory is named)."""
    if not (options.values or options.set_values or options.remote_bases):
        return None
    from ..adapters.charts import Renderer

    return Renderer(values=list(options.values), set_values=list(options.set_values), remote_bases=options.remote_bases)
