"""Plain text: one line per input error, ``file:line: error: message``, one per finding,
``file:line: SW104 [mandatory] message (subject)``, then the summary.

What a repository wrote (a file name, a value quoted in a message) is shown through :func:`visible`: a
control character in it is written as an escape, so a file named ``x\n::error::…`` or ``x\n::stop-commands::…``
cannot start a line of its own (a GitHub Actions workflow command) nor send the terminal an escape sequence.
"""

from __future__ import annotations

import re

from ..engine import Finding
from ..model.errors import InputError
from .formats import utf8_text
from .result import Report

_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def visible(text: str) -> str:
    """``text`` with every control character but the tab (line breaks, ESC, DEL, C1, the Unicode line and
    paragraph separators) written as an escape: ``\\n``, ``\\r``, ``\\x1b``, ``\\u2028``."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def visible_lines(text: str) -> str:
    """``text`` of several lines (a plan, an error) as a terminal or a CI log may be given it: each line through
    :func:`visible`, and each byte of a command-line argument that is not UTF-8 (Python's lone surrogate
    ``\udcff``) written as the byte, ``\xff``, as the text report writes a file name's."""
    if text.isascii() and not _CONTROL.search(text.replace("\n", "")):
        return text
    return utf8_text("\n".join(visible(line) for line in text.split("\n")), "text")


_RESET = "\033[0m"
_STYLE = {"mandatory": "\033[1;31m", "advisory": "\033[33m", "suppressed": "\033[2m", "where": "\033[1m"}


def finding_line(f: Finding, color: bool = False) -> str:
    where = visible(str(f.location))
    level = f"[{f.level}]"
    msg = visible(f.message)  # the line shows the code before the level
    subject = visible(f.subject)
    tail = f" (suppressed: {visible(f.suppression_reason or '')})" if f.suppressed else ""
    if not color:
        return f"{where}: {f.code} {level} {msg} ({subject}){tail}"
    if f.suppressed:
        return f"{_STYLE['suppressed']}{where}: {f.code} {level} {msg} ({subject}){tail}{_RESET}"
    style = _STYLE[f.level]
    return f"{_STYLE['where']}{where}{_RESET}: {style}{f.code} {level}{_RESET} {msg} ({subject})"


def error_line(e: InputError, color: bool = False) -> str:
    where = visible(f"{e.file}:{e.position}" if e.file and e.line else (e.file or "(input)"))
    message = visible(e.message)
    if not color:
        return f"{where}: error: {message}"
    return f"{_STYLE['where']}{where}{_RESET}: {_STYLE['mandatory']}error:{_RESET} {message}"


def render(report: Report, color: bool = False) -> str:
    lines = [error_line(e, color) for e in report.errors]
    lines += [finding_line(f, color) for f in report.findings]
    lines.append(visible(report.summary_line()))  # the kinds of objects and files skipped are a repository's words
    return "\n".join(lines) + "\n"
