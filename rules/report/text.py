"""Plain text: one line per input error, ``file:line: error: message``, one per finding,
``file:line: SW104 [mandatory] message (subject)``, then the summary."""

from __future__ import annotations

from ..engine import Finding
from ..model.errors import InputError
from .result import Report

_RESET = "\033[0m"
_STYLE = {"mandatory": "\033[1;31m", "advisory": "\033[33m", "suppressed": "\033[2m", "where": "\033[1m"}


def finding_line(f: Finding, color: bool = False) -> str:
    where = str(f.location)
    level = f"[{f.level}]"
    msg = f.message  # the line shows the code before the level
    tail = f" (suppressed: {f.suppression_reason})" if f.suppressed else ""
    if not color:
        return f"{where}: {f.code} {level} {msg} ({f.subject}){tail}"
    if f.suppressed:
        return f"{_STYLE['suppressed']}{where}: {f.code} {level} {msg} ({f.subject}){tail}{_RESET}"
    style = _STYLE[f.level]
    return f"{_STYLE['where']}{where}{_RESET}: {style}{f.code} {level}{_RESET} {msg} ({f.subject})"


def error_line(e: InputError, color: bool = False) -> str:
    where = f"{e.file}:{e.line}" if e.file and e.line else (e.file or "(input)")
    if not color:
        return f"{where}: error: {e.message}"
    return f"{_STYLE['where']}{where}{_RESET}: {_STYLE['mandatory']}error:{_RESET} {e.message}"


def render(report: Report, color: bool = False) -> str:
    lines = [error_line(e, color) for e in report.errors]
    lines += [finding_line(f, color) for f in report.findings]
    lines.append(report.summary_line())
    return "\n".join(lines) + "\n"
