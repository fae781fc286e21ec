"""GitHub Actions workflow commands: ``::error file=F,line=L,title=T::message`` per input error and
per finding.

A finding that fails the run at its ``--fail-on`` level is an error, any other a warning: with the default gate
mandatory findings are errors and advisory ones warnings, and with ``--fail-on advisory`` an advisory finding fails
the run (exit 1) and is an error too, as the exit status says (adopt20: it was a warning on a failed run). In a
report-only run (``--fail-on none``) every finding is a warning: an error annotation paints the pull request's
files red, and such a run fails nothing (an input error, which still fails it with exit 2, stays an error).
Escaping follows the runner's rules: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded; in property
values ``:`` and ``,`` are too. Any other control character is written as an escape (``\\x1b``).
Suppressed findings are not annotated (they are in the other reports with their reasons).

The ``file`` of an annotation is relative to the repository's checkout (``$GITHUB_WORKSPACE``, else the
working directory), normalised and with ``/``: GitHub places an annotation on a pull request's changed
lines only when its path is written as the repository's (``deploy/a.yaml``); ``./deploy/a.yaml``, which a
run over ``.`` (the Action's default ``paths``) names, or an absolute path, is shown on the run but never on
the file (crate-ci/typos#1496 found and fixed the same for its action).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..engine import Finding
from ..model.errors import InputError
from .result import Report, source_file
from .text import visible


def escape_data(s: str) -> str:
    """``s`` as a workflow command's data: ``%``, ``\\r`` and ``\\n`` percent-encoded as the runner decodes them, and
    every other control character written as an escape (``\\x1b``), as the text report writes it (fuzz25: a
    kustomize error naming a resource path with ESC and BEL, ``evil\\x1b[31m…\\x07``, reached the log raw, where
    GitHub's log viewer renders the colour and a terminal the title)."""
    return visible(s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def annotation_path(file: str) -> str:
    """``file`` as GitHub names it: relative to ``$GITHUB_WORKSPACE`` (else the working directory), normalised,
    with ``/``; a file outside that folder keeps the path given, normalised."""
    cwd = os.getcwd()
    root = os.environ.get("GITHUB_WORKSPACE") or cwd
    path = os.path.normpath(os.path.join(cwd, file))
    try:
        rel = os.path.relpath(path, os.path.abspath(root))
    except ValueError:  # another drive (Windows)
        rel = os.pardir
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        rel = os.path.normpath(file)
    return Path(rel).as_posix()


def _where(file: str | None, line: int | None, column: int | None = None) -> list[str]:
    props = []
    if file and file != "-" and not file.startswith("<"):  # not "<stdin>"
        props.append(f"file={escape_property(annotation_path(source_file(file)[0]))}")
        if line:
            props.append(f"line={int(line)}")
            if column:
                props.append(f"col={int(column)}")
    return props


def annotation(f: Finding, report_only: bool = False, blocking: bool | None = None) -> str:
    """``::error`` for a finding that fails the run (``blocking``: at or above ``--fail-on``; where not given, a
    mandatory finding), ``::warning`` for any other, and for every finding of a report-only run (``report_only``).
    The title is the rule's name and the message starts with its code, so the code shows once on the annotation
    and still leads the line in the run's log, which shows the message without the title."""
    fails = (f.level == "mandatory") if blocking is None else blocking
    command = "error" if fails and not report_only else "warning"
    props = _where(f.location.file, f.location.line)
    props.append(f"title={escape_property(f.name)}")
    return f"::{command} {','.join(props)}::{escape_data(f'{f.coded_message} ({_subject(f)})')}"


def _subject(f: Finding) -> str:
    """The finding's subject, and what its object was read through where the annotation's file cannot say it
    (:func:`.result.source_file`): ``Deployment chat/chat-prod-vllm; via Application argocd/chat-prod``."""
    through = source_file(f.location.file)[1] if f.location.file else ""
    return f"{f.subject}; {through}" if through else f.subject


def error_annotation(e: InputError) -> str:
    props = [*_where(e.file, e.line, e.column), f"title={escape_property('shardwise input error')}"]
    message = e.message if e.file and not e.file.startswith("<") else str(e)
    through = source_file(e.file)[1] if e.file else ""
    if through:
        message = f"{message} ({through})"
    return f"::error {','.join(props)}::{escape_data(message)}"


def render(report: Report, color: bool = False) -> str:
    return "".join([*(error_annotation(e) + "\n" for e in report.errors),
                    *(annotation(f, report.report_only, report.is_blocking(f)) + "\n"
                             for f in report.findings if not f.suppressed)])
