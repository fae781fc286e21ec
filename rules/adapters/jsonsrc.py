"""JSON text read strictly: what Python's parser accepts but JSON does not is an input error with its line.

The bottom of :mod:`..adapters` beside :mod:`.yamlsrc`: the Pulumi and stack adapters parse JSON with
:func:`parse_json`, and :func:`..adapters.load.load_text` picks the adapter of a file by its parsed content.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from ..model.errors import InputError

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"  # a high half with no low half after it
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a low half with no high half before it
)


class _NotJson(Exception):
    """A JSON value Python's parser accepts but JSON does not (``NaN``), or a key written twice."""

    def __init__(self, what: str, key: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _NotJson("duplicate", k)
            seen.add(k)
    return d


def _no_constant(name: str) -> Any:
    raise _NotJson(name)


_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')
_WS = " \t\n\r"


def _duplicate_key_at(text: str, key: str) -> int | None:
    """Where the second ``key`` of one object starts (the slow pure-Python scanner, on the error path)."""
    decoder: Any = json.JSONDecoder()
    jd: Any = json.decoder
    found: list[int] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict, int]:
        s, pos = s_and_end
        seen: set[str] = set()
        while not found:
            while pos < len(s) and s[pos] in _WS:
                pos += 1
            if pos >= len(s) or s[pos] != '"':
                break
            start = pos
            k, pos = jd.scanstring(s, pos + 1)
            if k in seen and k == key:
                found.append(start)
                break
            seen.add(k)
            pos = s.index(":", pos) + 1
            while s[pos] in _WS:
                pos += 1
            _, pos = scan(s, pos)
            while pos < len(s) and s[pos] in _WS:
                pos += 1
            if pos >= len(s) or s[pos] != ",":
                break
            pos += 1
        return jd.JSONObject(s_and_end, *args)

    decoder.parse_object = parse_object
    scan = jd.scanner.py_make_scanner(decoder)
    decoder.scan_once = scan
    try:
        decoder.decode(text)
    except ValueError:
        pass
    return found[0] if found else None


def _line_at(text: str, pos: int | None) -> int | None:
    return None if pos is None else text.count("\n", 0, pos) + 1


_LONG_INT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?[0-9]{' + str(sys.get_int_max_str_digits() + 1) + ",})")


def too_many_digits(text: str, file: str) -> InputError:
    """The error for an integer longer than Python reads (``sys.get_int_max_str_digits()``, 4,300 digits),
    at its line."""
    limit = sys.get_int_max_str_digits()
    m = next((m for m in _LONG_INT.finditer(text) if m.group(1)), None)
    digits = f"{len(m.group(1).lstrip('-')):,} digits" if m else f"more than {limit:,} digits"
    return InputError(f"cannot parse JSON: a number of {digits}; shardwise reads integers of at most {limit:,} "
                      "digits", file, _line_at(text, m.start() if m else None))


_PAIR_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)


def _as_yaml_escape(m: re.Match[str]) -> str:
    code = 0x10000 + ((int(m.group(2), 16) - 0xD800) << 10) + (int(m.group(3), 16) - 0xDC00)
    return f"{m.group(1)}\\U{code:08x}"


def yaml_readable(text: str) -> str:
    """JSON ``text`` as the YAML reader (which gives the lines) reads it: a character beyond the BMP written as a
    UTF-16 surrogate pair (``"\\ud83d\\ude00"``, as Python's ``json.dumps`` writes every such character) becomes
    YAML's ``\\U0001f600``, on the same line. YAML has no surrogate pairs: a valid JSON manifest was the input
    error "found invalid Unicode character escape code" (hostile9). Text without such an escape is returned as is."""
    if _SURROGATE_ESCAPE.search(text) is None:
        return text
    return _PAIR_ESCAPE.sub(_as_yaml_escape, text)


class JsonSyntaxError(InputError):
    """JSON text that breaks the grammar (a comment, a trailing comma, a missing quote), as :func:`json.loads` says;
    not the other ways a text is refused here (NaN, a key written twice, nesting, digits, a lone surrogate)."""


class JsonDuplicateKey(InputError):
    """JSON text with a key written twice in one object: JSON's RFC 8259 says names SHOULD be unique, and kubectl's
    strict field validation refuses a manifest that repeats one; Python's and Go's parsers keep the last value."""


class JsonNonFinite(InputError):
    """JSON text holding ``NaN``, ``Infinity`` or ``-Infinity``: Python's ``json.dumps`` writes them (its default
    ``allow_nan=True``) for a float that is not finite, so a data file a Python program saved holds them, but they are
    no JSON number (RFC 8259, section 6) and kubectl refuses them."""


def json_values(text: str) -> list[Any] | None:
    """The JSON values of ``text`` when it holds two or more, one after another with only white space between them,
    and each parses as :func:`parse_json` would take it (no ``NaN``, no key written twice); else ``None``.

    That is JSON Lines, and the stream kubectl decodes (apimachinery's ``YAMLOrJSONDecoder`` reads JSON values from
    a ``json.Decoder`` until the end): a file vLLM's serving benchmark wrote with ``--save-result --append-result``
    (``vllm bench serve``, vllm-project/vllm vllm/benchmarks/serve.py: it opens the ``.json`` result file in
    append mode, writes a newline and ``json.dump``s the next run's result) is such a file, one value a line."""
    spans = json_value_spans(text)
    return None if spans is None else [value for _, _, value in spans]


def json_value_spans(text: str) -> list[tuple[int, int, Any]] | None:
    """``(start, end, value)`` of each value :func:`json_values` reads (offsets into ``text``), or ``None``."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    spans: list[tuple[int, int, Any]] = []
    at, end = 0, len(text)
    try:
        while True:
            while at < end and text[at] in _WS:
                at += 1
            if at == end:
                break
            start = at
            value, at = decoder.raw_decode(text, at)
            spans.append((start, at, value))
    except (ValueError, RecursionError, _NotJson):  # JSONDecodeError is a ValueError; so is Python's digits limit
        return None
    return spans if len(spans) > 1 else None


def parse_json(text: str, file: str) -> Any:
    """``json.loads`` that raises :class:`InputError` for what is not JSON text: a syntax error (with
    its line), ``NaN`` and ``Infinity`` (Python's extension, not JSON), a key written twice in one
    object (the parser would keep the last), nesting too deep for the parser, an integer of more digits
    than Python reads (4,300), and a string escape that
    is half a surrogate pair (``"\\ud800"``: JSON allows it, but it is no character and no report
    could write it)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise JsonSyntaxError(f"cannot parse JSON: {e.msg}", file, e.lineno) from None
    except RecursionError:
        raise InputError("cannot parse JSON: nesting too deep", file) from None
    except ValueError as e:  # Python's int limit: "Exceeds the limit (4300 digits) for integer string conversion"
        raise too_many_digits(text, file) from e
    except _NotJson as e:
        if e.key is not None:
            line = _line_at(text, _duplicate_key_at(text, e.key))
            raise JsonDuplicateKey(f"cannot parse JSON: duplicate key {json.dumps(e.key)}: an object's keys must be "
                                   "unique, keep one", file, line) from None
        m = next((m for m in _NON_FINITE.finditer(text) if m.group(1)), None)
        raise JsonNonFinite(f"cannot parse JSON: {e.what} is not a JSON number (JSON has no NaN or infinity); "
                         "write a number, or null", file, _line_at(text, m.start() if m else None)) from None
    if _SURROGATE_ESCAPE.search(text) is not None:  # rare: check properly only then
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            m = _LONE_SURROGATE.search(text)
            line = text.count("\n", 0, m.start()) + 1 if m else None
            escape = f" {m.group(0)}" if m else ""
            raise InputError(f"cannot parse JSON: the escape{escape} is half of a UTF-16 surrogate pair, "
                             "not a character", file, line) from None
    return data
