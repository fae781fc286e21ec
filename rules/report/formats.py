"""The report formats, and where each report of a run goes. Each format is a module of this package with
``render(report, color=False) -> str``; the front ends import only the one asked for
(:func:`shardwise.rules.app.run.render`)."""

from __future__ import annotations

import codecs
import os
import re

FORMATS = ("text", "json", "sarif", "github", "markdown")

#: A lone surrogate: how Python holds a byte of a file name that is not UTF-8 (``surrogateescape``: ``\xff``
#: becomes U+DCFF), or a JSON input's lone ``\ud800``. No UTF-8 text can hold one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def _byte_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def utf8_text(text: str, fmt: str) -> str:
    """``text``, a rendered report, as text UTF-8 can hold: a file name that is not UTF-8 (``b"\\xff.yaml"``)
    made every report that named it unwritable (SARIF raised, JSON and text failed in a file or under a strict
    locale). In JSON and SARIF each lone surrogate becomes the JSON escape ``\\udcff`` (a JSON reader gets the
    same string back, and ``os.fsencode`` the bytes); in the other formats the byte ``\\xff`` it stands for."""
    if text.isascii():  # most reports; else encoding is the cheapest test (a quarter of a regular expression's)
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    return _SURROGATE.sub(_json_escape if fmt in ("json", "sarif") else _byte_escape, text)


def utf8_bytes(text: str, fmt: str) -> bytes:
    """:func:`utf8_text` of ``text`` as UTF-8 bytes, encoded once: a report written to a file (``--output``) was
    encoded to test it for lone surrogates and again by the file it was written to (about 9M instructions, 0.35 %,
    of a lint of 400 generated files: issue 30)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return utf8_text(text, fmt).encode("utf-8")


#: A character that is not ASCII: in a JSON or SARIF report for a stream that cannot encode it, a JSON escape.
_NON_ASCII = re.compile("[^\x00-\x7f]")


def _json_char_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code > 0xFFFF:  # JSON escapes a character beyond the basic plane as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def stream_holds(text: str, stream: object) -> bool:
    """Whether ``stream`` (standard output) can encode ``text`` as it is (UTF-8 always; ``PYTHONIOENCODING=ascii`` or
    a Latin-1 locale not every character)."""
    if text.isascii():
        return True
    encoding = str(getattr(stream, "encoding", None) or "utf-8")
    try:
        if codecs.lookup(encoding).name == "utf-8":
            return True
        text.encode(encoding)
    except (LookupError, UnicodeError):
        return False
    return True


#: What a character of a comment becomes where the stream holds ASCII only: the nearest ASCII (else ``?``)
_ASCII_NEAR = {"\u00d7": "x", "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2264": "<=", "\u2265": ">=",
               "\u2192": "->", "\u2026": "...", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
               "\u00b7": ".", "\u2248": "~", "\u00b5": "u", "\u00a0": " ", "\u2009": " ", "\u202f": " "}


def ascii_near(text: str) -> str:
    """``text`` (a comment, for people) in ASCII: ``TP1\u00d7PP1`` -> ``TP1xPP1``; a character with no near ASCII
    (:data:`_ASCII_NEAR`, else its compatibility decomposition's ASCII part, ``\u00e9`` -> ``e``) is ``?``."""
    import unicodedata

    def near(m: re.Match[str]) -> str:
        ch = m.group()
        return _ASCII_NEAR.get(ch) or unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"

    return text if text.isascii() else _NON_ASCII.sub(near, text)


def for_stream(text: str, fmt: str, stream: object) -> str:
    """``text``, a rendered report, as ``stream`` (standard output) can hold it. Under ``PYTHONIOENCODING=ascii`` or
    a Latin-1 locale, standard output writes what it cannot encode as a backslash escape (``\\xd7``), which in a
    JSON or SARIF report is no JSON escape: the report was not JSON (fuzz13). There, each character that is not
    ASCII becomes its JSON escape (``\\u00d7``), which every JSON reader reads back as the character; the other
    formats are for people and keep the stream's escapes."""
    if fmt not in ("json", "sarif") or stream_holds(text, stream):
        return text
    return _NON_ASCII.sub(_json_char_escape, text)


def parse_format(spec: str) -> tuple[str, str | None]:
    """``sarif=shardwise.sarif`` -> ``("sarif", "shardwise.sarif")``; ``github`` -> ``("github", None)``
    (standard output; so is ``=-``). ValueError for a format not in :data:`FORMATS`."""
    fmt, sep, path = spec.partition("=")
    fmt = fmt.strip()
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}'; expected one of {', '.join(FORMATS)}, optionally =FILE")
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

