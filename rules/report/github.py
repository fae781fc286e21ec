"""GitHub Actions workflow commands: ``::error file=F,line=L,title=T::message`` per input error and
per finding.

Escaping follows the runner's rules: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded;
in property values ``:`` and ``,`` are too. Mandatory findings are errors, advisory ones warnings;
suppressed findings are not annotated (they are in the other reports with their reasons).
"""

from __future__ import annotations

from ..engine import Finding
from ..model.errors import InputError
from .result import Report


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _where(file: str | None, line: int | None) -> list[str]:
    props = []
    if file and file != "-" and not file.startswith("<"):  # not "<stdin>"
        props.append(f"file={escape_property(file)}")
        if line:
            props.append(f"line={int(line)}")
    return props


def annotation(f: Finding) -> str:
    command = "error" if f.level == "mandatory" else "warning"
    props = _where(f.location.file, f.location.line)
    props.append(f"title={escape_property(f'{f.code} {f.name}')}")
    return f"::{command} {','.join(props)}::{escape_data(f'{f.coded_message} ({f.subject})')}"


def error_annotation(e: InputError) -> str:
    props = [*_where(e.file, e.line), f"title={escape_property('shardwise input error')}"]
    message = e.message if e.file and not e.file.startswith("<") else str(e)
    return f"::error {','.join(props)}::{escape_data(message)}"


def render(report: Report, color: bool = False) -> str:
    return "".join([*(error_annotation(e) + "\n" for e in report.errors),
                    *(annotation(f) + "\n" for f in report.findings if not f.suppressed)])
