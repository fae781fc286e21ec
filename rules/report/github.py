"""GitHub Actions workflow commands: ``::error file=F,line=L,title=T::message`` per finding.

Escaping follows the runner's rules: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded;
in property values ``:`` and ``,`` are too. Mandatory findings are errors, advisory ones warnings;
suppressed findings are not annotated (they are in the other reports with their reasons).
"""

from __future__ import annotations

from ..engine import Finding
from . import Report


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding) -> str:
    command = "error" if f.level == "mandatory" else "warning"
    props = []
    if f.location.file and f.location.file != "-" and not f.location.file.startswith("<"):  # not "<stdin>"
        props.append(f"file={escape_property(f.location.file)}")
        if f.location.line:
            props.append(f"line={int(f.location.line)}")
    props.append(f"title={escape_property(f'{f.code} {f.name}')}")
    return f"::{command} {','.join(props)}::{escape_data(f'{f.message} ({f.subject})')}"


def render(report: Report, color: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in report.findings if not f.suppressed)
