"""YAML loading that keeps line numbers, fast (libyaml's parser when present).

Mappings load as :class:`LineDict`, a ``dict`` that also knows the line of itself and of each key,
so adapters can point findings and input errors at ``file:line``. Lines are 1-based.

What YAML allows but a deployment must not rely on is an input error with its line: a key written
twice in one mapping (YAML requires unique keys; PyYAML would keep the last), a scalar its tag
cannot construct (``!!bool maybe``, an unquoted ``2024-13-45``), a control character, a byte that is
not UTF-8. :func:`load_documents` parses a multi-document file document by document when one of
them is broken, so the others are still read.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from ..model.errors import InputError
from ..model.files import MAX_FILE_BYTES, read_file_bytes, read_stream_bytes, size_text


class LineDict(dict):
    """A mapping that remembers where it and each of its keys were written."""

    __slots__ = ("line", "key_lines")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line: int | None = None
        self.key_lines: dict[str, int] = {}

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key, self.line)


_WHAT = {
    "bool": "a boolean (true or false)",
    "int": "an integer",
    "float": "a number",
    "timestamp": "a date or a timestamp (2024-01-31, 2024-01-31T12:00:00Z)",
    "binary": "base64 data",
}


def _short(value: str, limit: int = 60) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "…")


class YamlTooCostly(InputError):
    """A text refused for what reading it would cost, not for its syntax: aliases that expand past
    :data:`MAX_EXPANDED_VALUES` or :data:`MAX_EXPANDED_CHARS`, nesting deeper than the parser goes. Any tool
    handed the text pays that cost too: kustomize grew to its 1 GiB bound on a resource this refuses (fuzz24), so
    a file helm or kustomize would read is checked with this reader first (:mod:`.charts`)."""


class DuplicateKey(InputError):
    """A key written twice in one mapping of a document that was still read, with the last value (the
    one lenient YAML readers keep): an input error at the second key, beside the document's value."""


    def unread(self) -> InputError:
        """The error as it reads where the document is not read after all (a file that is not an input)."""
        return InputError("cannot parse YAML: " + self.message.removesuffix(_STILL_READ), self.file, self.line)


_STILL_READ = " (the rest of the document is still checked, with the last value)"


def _duplicate_error(key: Any, first: int | None, line: int, file: str) -> DuplicateKey:
    also = f" (first written on line {first})" if first else ""
    return DuplicateKey(f"duplicate key {_short(str(key))}{also}: a mapping's keys must be unique, keep one"
                        + _STILL_READ, file, line)


class _Fallback(Exception):
    """The text uses a feature the event loader leaves to PyYAML's constructor (anchors, tags, merges)."""


_STR_TAG = "tag:yaml.org,2002:str"
#: Tags whose constructor turns a scalar into a value (the others build collections, lazily).
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "binary", "timestamp"))
_INT_TAG = "tag:yaml.org,2002:int"
_MAP_TAGS = (None, "tag:yaml.org,2002:map")
_SEQ_TAGS = (None, "tag:yaml.org,2002:seq")
_NOT_HERE = object()

#: The plain scalars whose value PyYAML's resolvers and constructors give without doubt (YAML 1.1's booleans
#: and nulls): the compiled reader's commonest questions, answered without importing PyYAML.
_PLAIN_WORDS: dict[str, Any] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), None),
}


#: Every character a plain scalar that starts with a digit may hold and still be a YAML 1.1 int, float or
#: timestamp (PyYAML's implicit resolvers): one outside these is text (``32Gi``, ``8080/TCP``).
_NUMBER_CHARS = frozenset("0123456789_.:+-eEbxabcdfABCDEFTtZ \toOXB")  # 0o10, 0X10, 0B10: ints (review27)


def _plain_value(value: str) -> Any:
    """A plain scalar the compiled reader could not type alone (it asks for every one whose first character a
    YAML 1.1 resolver may claim), as PyYAML builds it, or :data:`_NOT_HERE` when only the Python reader can
    say (a merge key, a tag without a constructor, a value its tag cannot construct). What is surely text, a
    boolean, a null or a plain decimal number is read here; every other form (an octal, a sexagesimal,
    ``.inf``, a date, ``1_000``) goes to PyYAML's resolvers (:mod:`.yamlpy`). What is read here is kept
    (:data:`_PLAIN_SEEN`): manifests repeat the same flags, ports and versions file after file."""
    word = _PLAIN_SEEN.get(value, _NOT_HERE)
    if word is not _NOT_HERE:
        return word
    word = _plain_text_or_number(value)
    if word is _NOT_HERE:
        return _python_reader().plain_value(value)
    if len(_PLAIN_SEEN) < _PLAIN_SEEN_MAX:
        _PLAIN_SEEN[value] = word
    return word


#: :func:`_plain_value`'s answers that are text, a boolean, a null or a plain decimal number (immutable), by the
#: scalar as written; at most :data:`_PLAIN_SEEN_MAX` of them.
_PLAIN_SEEN: dict[str, Any] = dict(_PLAIN_WORDS)
_PLAIN_SEEN_MAX = 65536


def _plain_text_or_number(value: str) -> Any:
    """A plain scalar that is surely text or a plain decimal number, as PyYAML builds it, else :data:`_NOT_HERE`
    (only PyYAML's resolvers can say)."""
    first = value[0]
    if first.isascii() and first.isalpha():  # only the boolean and null words start with a letter
        return value
    digits = value
    if first in ("-", "+"):
        digits = value[1:]
        if not digits[:1].isdigit() and digits[:1] != ".":  # a sign before no digit nor dot (``--tp``): text
            return value
    if digits[:1].isdigit() and digits.isascii():
        if digits.isdigit() and digits[0] != "0" and len(digits) <= 18:  # YAML 1.1 int, not octal
            return int(value)
        whole, dot, fraction = digits.partition(".")
        if dot and whole.isdigit() and fraction.isdigit():  # YAML 1.1 float: digits, a dot, digits
            return float(value)
        if not _NUMBER_CHARS.issuperset(digits):
            return value
    return _NOT_HERE


def _python_reader() -> ModuleType:
    """:mod:`.yamlpy`, the Python reader over PyYAML: imported only for a text the compiled reader leaves to it
    (or where that reader is not built), so a run over plain manifests never imports PyYAML (start-up time)."""
    from . import yamlpy

    return yamlpy


def _fast_module() -> Any:
    """The compiled reader (``native/``, built by ``make setup`` where cargo is installed), or None:
    not built, or ``SHARDWISE_PURE_YAML=1``."""
    if os.environ.get("SHARDWISE_PURE_YAML"):
        return None
    try:
        from .. import _yamlfast  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _yamlfast


_fast = _fast_module()


def _load_fast(text: str, base: int, starts: list[int] | None) -> list[Any] | None:
    """The documents of ``text`` as the compiled reader builds them (``base`` added to every line, each
    document's first line into ``starts``), or None: not built, or a text it leaves to the Python reader
    (anchors, aliases, tags, merge keys, a duplicate key, every error)."""
    if _fast is None:
        return None
    try:
        # _PLAIN_SEEN: a plain scalar _plain_value has answered takes its answer there, without the call
        got = _fast.load(text, base, LineDict, _plain_value, _NOT_HERE, _PLAIN_SEEN)
    except Exception:  # noqa: BLE001 - text it cannot take (a lone surrogate): the Python reader's
        return None
    if got is None:
        return None
    built, first_lines = got
    if starts is not None:
        starts.extend(first_lines)
    return built  # type: ignore[no-any-return]


def _load_events(text: str, base: int = 0, starts: list[int] | None = None,
                 dups: list[tuple[Any, int | None, int]] | None = None) -> list[Any]:
    """Build the documents straight from libyaml's events: the compiled reader's when it takes the text,
    else :func:`.yamlpy.load_events` (which raises :class:`_Fallback` for what only PyYAML's constructor
    reads)."""
    built = _load_fast(text, base, starts)
    if built is not None:
        return built
    return _python_reader().load_events(text, base, starts, dups)  # type: ignore[no-any-return]


class LocalTagError(InputError):
    """A YAML text PyYAML refused for a local tag (``!env_var``), one only its application reads."""


def load_untagged(text: str, file: str) -> tuple[list[Any], list[str]]:
    """The documents of ``text`` with its local tags read as kubectl reads them (a scalar as its text), and the
    tags met; :class:`InputError` for any other error (:func:`.yamlpy.parse`)."""
    tags: list[str] = []
    return _python_reader().parse(text, file, 0, None, [], tags), tags


def _parse(text: str, file: str, base: int = 0, starts: list[int] | None = None,
           dups: list[tuple[Any, int | None, int]] | None = None) -> list[Any]:
    """Every document of ``text`` (lines shifted by ``base``), or :class:`InputError` for the first error.
    ``starts`` receives the first line of each document; ``dups``, when given, the duplicate keys, which
    are then no error (the last value is kept). The compiled reader first; the Python reader for the rest."""
    built = _load_fast(text, base, starts)
    if built is not None:
        return built
    return _python_reader().parse(text, file, base, starts, dups)  # type: ignore[no-any-return]


#: A document whose aliases add more values than this is refused (a "billion laughs": a few lines of
#: anchors that expand to billions of values, which every reader of the document would then walk). Only what
#: the aliases add counts (each alias: the node its anchor names, expanded), never the document itself.
MAX_EXPANDED_VALUES = 1_000_000
#: Nor may its aliases add more text than this (keys and scalars counted each time an alias repeats
#: them): one 1 MiB scalar aliased 20,000 times is 20 GiB of text to every rule that joins or scans it. The
#: bound is the most a file may hold (:data:`~shardwise.rules.model.files.MAX_FILE_BYTES`), so a document
#: never holds more than twice the text of the largest file without aliases.
MAX_EXPANDED_CHARS = MAX_FILE_BYTES


def parse_documents(text: str, file: str, base: int, starts: list[int]) -> list[Any]:
    """Every document of ``text``, its lines shifted by ``base`` (the lines before it in its file), the first line of
    each appended to ``starts``; :class:`InputError` for the first error. For a part of a file read alone (a JSON
    stream's values, adapters.load)."""
    return _parse(text, file, base, starts)


def load_all(text: str, file: str) -> Iterator[Any]:
    """Yield each document of ``text``; raise :class:`InputError` with file and line on a YAML error
    (before the first document: a file is read whole or not at all; see :func:`load_documents`).

    Plain documents are built from libyaml's events (fast); a text with anchors, aliases, tags or
    merge keys goes through PyYAML's constructor with the same result.
    """
    yield from _parse(text, file)


#: A line that starts or ends a YAML document: ``---`` or ``...`` at the start of a line, followed by
#: a space, a tab or the end of the line. YAML forbids both in any content at column 0 (block scalars
#: and quoted text included), so they split a stream exactly where the parser would.
_DOC_MARKER = re.compile(r"^(---|\.\.\.)(?=[ \t]|$)", re.MULTILINE)


def split_documents(text: str) -> list[tuple[int, str]]:
    """The documents of a YAML stream as ``(line offset, text)``: the text of each from its ``---``
    (or its directives, ``%YAML``/``%TAG``) up to the next document, its ``...`` included."""
    starts = [0]
    for m in _DOC_MARKER.finditer(text):
        if m.group(1) == "...":
            end = text.find("\n", m.end())
            cut = len(text) if end < 0 else end + 1
        else:
            cut = m.start()
            back = cut
            while back > 0:  # directives right before the marker belong to its document
                prev = text.rfind("\n", 0, back - 1) + 1
                before = text[prev:back]
                if before.startswith("%"):
                    cut = prev
                elif before.strip() and not before.lstrip().startswith("#"):
                    break
                back = prev
        if cut > starts[-1]:
            starts.append(cut)
    starts.append(len(text))
    out: list[tuple[int, str]] = []
    line = 0
    for a, b in zip(starts, starts[1:], strict=False):
        if b > a:
            out.append((line, text[a:b]))
            line += text.count("\n", a, b)
    return out


def load_documents(text: str, file: str) -> list[tuple[int | None, Any]]:
    """``(first line, value)`` of each document of ``text``, an :class:`InputError` as the value of each
    document that cannot be parsed: one broken document (a Helm placeholder left in a Secret) does not
    hide the others.

    A key written twice in one mapping is a :class:`DuplicateKey` error (with its line, after the
    documents) and its document is still read with the last value, so one repeated key does not hide
    the document's other findings.

    The whole text is parsed at once; only when that fails is it split at its document markers and
    each document parsed alone (anchors never cross documents, so the values are the same).
    """
    starts: list[int] = []
    dups: list[tuple[Any, int | None, int]] = []
    try:
        docs = _parse(text, file, 0, starts, dups)
        return [*zip(starts, docs, strict=True), *_duplicates(dups, file)]
    except InputError as whole:
        parts = split_documents(text)
        if len(parts) <= 1:
            return [(whole.line, whole)]
    out: list[tuple[int | None, Any]] = []
    for base, part in parts:
        starts = []
        dups = []
        try:
            out.extend(zip(starts, _parse(part, file, base, starts, dups), strict=True))
            out.extend(_duplicates(dups, file))
        except InputError as e:
            last = base + part.count("\n") + (0 if part.endswith("\n") else 1)
            if e.line is not None and e.line > last:  # "found the next document's ---": the end of this one
                e = InputError(e.message, e.file, last)
            out.append((base + 1, e))
    return out


def _duplicates(dups: list[tuple[Any, int | None, int]], file: str) -> list[tuple[int | None, Any]]:
    return [(line, _duplicate_error(key, first, line, file)) for key, first, line in dups]


#: What YAML accepts as text: tab, line breaks and printable Unicode (YAML 1.1, section 5.1). Compiled when a text
#: is refused (:func:`_bad_character`), not at import: its ranges take re about 9 ms of CPU to compile (here, loaded),
#: a fifth of the start-up budget of a one-file lint.
_NOT_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _bad_character(text: str, file: str, base: int) -> InputError:
    """The first character YAML does not accept (a control character, U+FFFE), with its line and column."""
    m = re.search(_NOT_PRINTABLE, text)
    if m is None:  # not expected: the reader rejected something this pattern accepts
        return InputError("cannot parse YAML: it holds a character YAML does not accept", file)
    pos = m.start()
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    code = ord(m.group())
    what = "control character" if code < 0x20 or 0x7F <= code <= 0x9F else "character"
    return InputError(
        f"cannot parse YAML: {what} U+{code:04X} at column {column} is not allowed in YAML text; remove it, "
        f"or write it as the escape \"\\u{code:04x}\" inside a double-quoted string", file, line + base)


#: What the report says when a parse error comes from a Helm/Go template action (``{{ .Values.x }}``): the
#: parser's own complaint (an unhashable key, a flow mapping not closed, a missing ``:``) would only mislead.
TEMPLATE_PROBLEM = "a template placeholder {{ … }} is not YAML; render the template first (helm template …)"


#: What the report says when a parse error comes from a Terraform template directive (``%{ for a in args ~}``,
#: ``%{ if x }``) in a file Terraform's ``templatefile`` renders (corpus38: cloud samples keep manifests so, named
#: ``.yaml``); PyYAML's own complaint ("could not find expected directive name": a ``%`` opens a YAML directive)
#: would only mislead.
TERRAFORM_DIRECTIVE_PROBLEM = ("a Terraform template directive %{ … } is not YAML; render the template first "
                               "(Terraform's templatefile) and lint what it writes")
_TF_DIRECTIVE = re.compile(r"%\{~?[ \t]*(?:if|else|endif|for|endfor)\b")


def _directive_line(text: str, lines: tuple[int | None, ...], base: int) -> int | None:
    """The first of ``lines`` (file lines, ``text`` starting at line ``base`` + 1) that holds a Terraform template
    directive (:data:`_TF_DIRECTIVE`), or None."""
    if "%{" not in text:
        return None
    rows = text.split("\n")
    for line in lines:
        if line is not None and 0 < line - base <= len(rows) and _TF_DIRECTIVE.search(rows[line - base - 1]):
            return line
    return None


def _template_line(text: str, lines: tuple[int | None, ...], base: int) -> int | None:
    """The first of ``lines`` (file lines, ``text`` starting at line ``base`` + 1) that holds a template action
    ``{{``, or None. The parser names two: where it failed and where the construct it was reading began (its
    context: "while scanning a simple key", "while parsing a flow mapping"); a ``{{- include … }}`` line or a
    ``{{/* comment */}}`` makes it fail a line or more later, on a line that is plain YAML itself."""
    rows = text.split("\n")
    for line in lines:
        if line is not None and 0 < line - base <= len(rows) and "{{" in rows[line - base - 1]:
            return line
    return None


def _wide_encoding(head: bytes) -> str | None:
    """The UTF-16 or UTF-32 encoding the first four bytes of a file show, as YAML 1.2.2 detects them (5.2,
    "Character Encodings": a byte order mark, or the zero bytes around the first ASCII character), or None. Without
    a mark, UTF-16 needs its zero bytes around the first two characters: one stray NUL at the start of a UTF-8 file
    stays the control character it is."""
    if head.startswith((b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00")):
        return f"UTF-32{'BE' if head[0] == 0 else 'LE'} (it starts with a UTF-32 byte order mark)"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return f"UTF-16{'LE' if head[0] == 0xFF else 'BE'} (it starts with a UTF-16 byte order mark)"
    if len(head) == 4 and head[:3] == b"\x00\x00\x00" and head[3]:
        return "UTF-32BE (zero bytes before its first character)"
    if len(head) == 4 and head[0] and head[1:] == b"\x00\x00\x00":
        return "UTF-32LE (zero bytes after its first character)"
    if len(head) == 4 and head[0] == head[2] == 0 and head[1] and head[3]:
        return "UTF-16BE (a zero byte before each of its first characters)"
    if len(head) == 4 and head[1] == head[3] == 0 and head[0] and head[2]:
        return "UTF-16LE (a zero byte after each of its first characters)"
    return None


#: A byte order mark that opens a document after a ``---`` line: kubectl splits a stream at those lines and reads each
#: part as a stream of its own, where a leading mark is allowed (hostile8).
_LATER_BOM = re.compile("^(---[ \t]*(?:#[^\n]*)?\n)\ufeff", re.M)


def decode_text(data: bytes, name: str) -> str:
    """Bytes of a file as text: UTF-8 (a leading byte order mark dropped), line breaks as ``\\n``; an
    :class:`InputError` naming the line of the first byte that is not UTF-8."""
    if data[:1] in (b"\xff", b"\xfe", b"\x00") or data[1:2] == b"\x00":
        encoding = _wide_encoding(data[:4])
        if encoding is not None:
            raise InputError(f"not UTF-8 text: it is {encoding}; save it as UTF-8 (iconv -f {encoding[:6]} -t "
                             "UTF-8)", name, 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(f"not UTF-8 text: byte 0x{data[e.start]:02X} at column {column} is not UTF-8; save the "
                         "file as UTF-8", name, line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\ufeff" in text:  # files joined (cat a.yaml b.yaml): kubectl reads each document as a stream of its own
        text = _LATER_BOM.sub(r"\1", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str) -> str:
    """Read a file (``-`` for stdin) as UTF-8 text, or raise :class:`InputError`: only a regular file, and at
    most :data:`~shardwise.rules.model.files.MAX_FILE_BYTES` (:mod:`..model.files`)."""
    name = "<stdin>" if path == "-" else path
    if path != "-":
        return decode_text(read_file_bytes(path, name), name)
    if sys.stdin is None:  # ``shardwise lint - <&-``: Python sets no stdin where descriptor 0 is closed (fuzz22)
        raise InputError("cannot read: standard input is closed (the command was run with <&- or no stdin at all); "
                         "pipe the manifests to shardwise lint -, or name their files", name)
    try:
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a replaced stdin: text already, but it may still hold lone surrogates
            text = sys.stdin.read(MAX_FILE_BYTES + 1)
            if len(text) > MAX_FILE_BYTES:
                raise InputError(f"not read: the input is larger than {size_text(MAX_FILE_BYTES)}, the most "
                                 "shardwise reads from one file", name)
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raise InputError("not UTF-8 text", name, text.count("\n", 0, e.start) + 1) from None
            return text
        data = read_stream_bytes(buffer, name)  # not sys.stdin's own decoding: it may be surrogateescape
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", name) from None
    return decode_text(data, name)
