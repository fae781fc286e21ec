"""The compiled YAML reader (native/, built by ``make setup`` where cargo is installed) against the
Python reader it stands in for: where it builds documents they are the Python reader's, value for
value and line for line; everything else it leaves to the Python reader (None), never an answer of
its own. Without the built library these tests are skipped and say how to build it; with
``SHARDWISE_REQUIRE_NATIVE=1`` (what ``.ci/run`` sets) they fail instead."""

from __future__ import annotations

import os
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings
from repo_paths import ROOT
from shardwise.rules.adapters import yamlsrc
from shardwise.rules.adapters.yamlsrc import LineDict

HOW = "build it with `make setup` (needs cargo) or `bash scripts/build-native.sh .venv/bin/python`"


@pytest.fixture(autouse=True)
def _built() -> None:
    if yamlsrc._fast is None:
        if os.environ.get("SHARDWISE_REQUIRE_NATIVE", "") not in ("", "0"):
            pytest.fail(f"SHARDWISE_REQUIRE_NATIVE is set but the compiled YAML reader is not built: {HOW}",
                        pytrace=False)
        pytest.skip(f"the compiled YAML reader is not built: {HOW}")


def fast(text: str, base: int = 0) -> tuple[list[Any], list[int]] | None:
    """The compiled reader as :func:`~shardwise.rules.adapters.yamlsrc._load_fast` calls it (with the plain scalars'
    memo)."""
    got = yamlsrc._fast.load(text, base, LineDict, yamlsrc._plain_value, yamlsrc._NOT_HERE, yamlsrc._PLAIN_SEEN)
    return None if got is None else (got[0], list(got[1]))


def python(text: str, base: int = 0) -> tuple[list[Any], list[int]]:
    """The Python reader alone (raises what it raises)."""
    saved, yamlsrc._fast = yamlsrc._fast, None
    try:
        starts: list[int] = []
        return yamlsrc._load_events(text, base, starts), starts
    finally:
        yamlsrc._fast = saved


def same(a: Any, b: Any, path: str = "$") -> str | None:
    """None when ``a`` and ``b`` are the same documents: types, values, order, and every mapping's
    line and key lines; else where they differ."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, LineDict):
        if (a.line, a.key_lines, list(a)) != (b.line, b.key_lines, list(b)):
            return f"{path}: line {a.line}/{b.line}, key lines {a.key_lines}/{b.key_lines}, keys {list(a)}/{list(b)}"
        return next((d for k in a if (d := same(a[k], b[k], f"{path}.{k}"))), None)
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        return next((d for i, (x, y) in enumerate(zip(a, b, strict=True)) if (d := same(x, y, f"{path}[{i}]"))), None)
    if a != b and not (a != a and b != b):  # NaN is itself
        return f"{path}: {a!r} != {b!r}"
    return None


def agree(text: str, base: int = 0) -> bool:
    """Assert the property; True when the compiled reader built the documents itself."""
    got = fast(text, base)
    if got is None:
        return False
    ref_docs, ref_starts = python(text, base)  # it must not raise where the compiled reader succeeded
    assert same(got[0], ref_docs) is None, same(got[0], ref_docs)
    assert got[1] == ref_starts
    return True


@pytest.mark.slow  # reads every YAML file of the repository twice: in make test, not in the edit loop
def test_every_yaml_file_of_the_repository_reads_the_same():
    """Each file the Python reader reads, the compiled reader builds the same (it may leave a file to the
    Python reader only for an anchor, alias, tag or merge key); each file the Python reader refuses, it
    leaves alone."""
    files = sorted({*ROOT.glob("tests/**/*.yaml"), *ROOT.glob("tests/**/*.yml"), *ROOT.glob("examples/**/*.yaml"),
                    *ROOT.glob("stacks/**/*.yaml"), *ROOT.glob(".github/**/*.yml"), *ROOT.glob("rules/*.yaml")})
    refused = 0
    for f in files:
        text = f.read_text(encoding="utf-8", errors="surrogateescape")
        try:
            python(text)
        except Exception:  # noqa: BLE001 - broken on purpose (fixtures of input errors): never built
            assert fast(text) is None, f
            refused += 1
            continue
        assert agree(text, base=3) or any(mark in text for mark in ("&", "*", "!", "<<")), f
    assert len(files) > 100 and refused >= 1  # the glob found the fixtures, the broken ones among them


def test_values_lines_and_documents():
    text = (
        "a: 1\n"  # 1
        "b: [x, 'y', 2.5, true, yes, off, ~, 2024-01-02, 0, 007, 0x1f, 1_000, -5, +3, .inf, '', \"8080\"]\n"
        "c:\n"  # 3
        "  d: e\n"  # 4
        "  f:\n"  # 5
        "    - {g: h}\n"  # 6
        "empty:\n"
        "---\n"  # 8
        "- 1\n"
        "---\n"
        "...\n"
        "--- plain\n"
    )
    assert agree(text, base=10)
    docs, starts = fast(text, base=10)  # type: ignore[misc]
    first = docs[0]
    assert first["b"] == ["x", "y", 2.5, True, True, False, None, "2024-01-02", 0, 7, 31, 1000, -5, 3,
                          float("inf"), "", "8080"]
    assert (first.line, first.key_lines) == (11, {"a": 11, "b": 12, "c": 13, "empty": 17})
    assert (first["c"].line, first["c"].key_lines, first["c"]["f"][0].line) == (14, {"d": 14, "f": 15}, 16)
    assert first["empty"] is None
    assert docs[1:] == [[1], None, "plain"] and starts == [11, 19, 21, 22]  # the empty document starts at `...`


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: &x 2\n",  # an anchor written twice (hostile18: anchors and aliases are its own now)
    "a: *x\n",  # an alias to no anchor
    "base: &b {x: 1}\nc:\n  <<: *b\n",  # a merge key
    "a: 1\na: 2\n",  # a duplicate key (the Python reader reports it at its line)
    "1: a\n1.0: b\n",  # equal keys of two types are duplicates too
    "a: 1\nb: 2\na:\n  c: [3]\n",  # a duplicate key whose value is a collection (found once the value is set)
    "x:\n  - {k: 1, k: 2}\n",  # a duplicate key of a nested mapping
    '"<<": 1\n',
    "a: !!int '5'\n",  # an explicit tag
    "a: !custom x\n",
    "? [a, b]\n: 1\n",  # a collection as a key
    "'<<': 1\n",
    "a: !!timestamp 2024-13-45\n",  # tagged a date but is none: the Python reader's error
    "a: [1, 2\n",  # a syntax error
    "a: b\n c: d\n",
    "!!set {a, b}\n",
])
def test_what_only_the_python_reader_handles_is_left_to_it(text):
    assert fast(text) is None


def test_a_str_tag_and_quoted_text_stay_text():
    assert agree("a: !!str 5\nb: '5'\nc: \"true\"\n")
    assert fast("a: !!str 5\nb: '5'\nc: \"true\"\n")[0] == [{"a": "5", "b": "5", "c": "true"}]  # type: ignore[index]


def test_the_reader_is_used_and_can_be_switched_off(monkeypatch):
    calls = []
    real = yamlsrc._fast

    class Spy:
        @staticmethod
        def load(*args: Any) -> Any:
            calls.append(args[0])
            return real.load(*args)

    monkeypatch.setattr(yamlsrc, "_fast", Spy)
    assert list(yamlsrc.load_all("a: 1\n", "f.yaml")) == [{"a": 1}]
    assert calls == ["a: 1\n"]
    monkeypatch.setenv("SHARDWISE_PURE_YAML", "1")
    assert yamlsrc._fast_module() is None


def test_a_plain_scalar_the_memo_holds_takes_its_answer_without_the_call():
    """``seen`` is ``plain``'s memo (yamlsrc._PLAIN_SEEN): a plain scalar it holds takes the memo's value and
    ``plain`` is not called for it; the others are asked of ``plain`` as before, and without a memo all are."""
    asked: list[str] = []

    def plain(value: str) -> Any:
        asked.append(value)
        return yamlsrc._plain_value(value)

    text = "name: vllm\nenabled: true\ntp: -2\nport: 8000\n"
    seen = {"name": "name", "true": True}
    got = yamlsrc._fast.load(text, 0, LineDict, plain, yamlsrc._NOT_HERE, seen)
    assert got[0] == [{"name": "vllm", "enabled": True, "tp": -2, "port": 8000}]
    assert asked == ["tp", "-2"]  # "vllm", "enabled" and "port" are surely text and 8000 an int: never asked
    asked.clear()
    assert yamlsrc._fast.load(text, 0, LineDict, plain, yamlsrc._NOT_HERE)[0] == got[0]
    assert asked == ["name", "true", "tp", "-2"]


def test_text_it_cannot_take_goes_to_the_python_reader():
    text = "a: '\udcff'\n"  # a lone surrogate (from a file read with errors="surrogateescape")
    with pytest.raises(UnicodeEncodeError):
        fast(text)
    starts: list[int] = []
    assert yamlsrc._load_events("a: b\n", 0, starts) == [{"a": "b"}] and starts == [1]
    with pytest.raises(Exception) as err:  # noqa: PT011 - whatever the Python reader raises, as without the library
        yamlsrc._load_events(text)
    saved, yamlsrc._fast = yamlsrc._fast, None
    try:
        with pytest.raises(type(err.value)):
            yamlsrc._load_events(text)
    finally:
        yamlsrc._fast = saved


_WORDS = st.sampled_from(["a", "b", "key", "name", "1", "0", "07", "-2", "2.5", "true", "no", "~", "null", "x y",
                          "2024-01-02", "<<", "=", "vllm", "--tp=2", ":", "#", "'q'", '"d"', "[1, 2]", "{a: 1}", "-",
                          "&a", "*a", "!t", "|", ">", "? k", "", " ", "\t", "é", "0x1", "1_0", ".nan", "@"])


@st.composite
def yamlish(draw: Any) -> str:
    """Lines of YAML-like text: keys, values, list items, flow collections, comments, document markers,
    at random indentation (most are valid YAML, many are not)."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        indent = " " * draw(st.sampled_from([0, 0, 2, 4, 1, 3]))
        shape = draw(st.integers(0, 7))
        w1, w2 = draw(_WORDS), draw(_WORDS)
        lines.append(indent + (
            f"{w1}: {w2}" if shape < 3 else f"- {w1}" if shape == 3 else f"- {w1}: {w2}" if shape == 4 else
            "---" if shape == 5 else f"{w1}:" if shape == 6 else f"{w1} # {w2}"))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n...\n"]))


@pytest.mark.slow  # fuzzes hundreds of inputs: in make test, not in the edit loop (make test-fast)
@settings(max_examples=1500, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yamlish(), st.integers(0, 50))
def test_random_yaml_reads_the_same_or_is_left_to_the_python_reader(text, base):
    got = fast(text, base)
    if got is None:
        return
    ref_docs, ref_starts = python(text, base)
    assert same(got[0], ref_docs) is None, (text, same(got[0], ref_docs))
    assert got[1] == ref_starts


_SCALARS = st.one_of(
    st.integers(-10**6, 10**20), st.floats(allow_nan=False, width=64), st.booleans(), st.none(),
    st.dates(), st.text(max_size=12),
    st.sampled_from(["yes", "No", "on", "0o17", "012", "1e3", "1:20", "2024-01-02T03:04:05Z", "<<", "~", "-",
                     "a: b", "x #y", "line\nbreak", "  lead", "trail ", "€uro", "tab\there", "null"]),
)
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text("abcxyz-_.", min_size=1, max_size=6) | st.integers(0, 9), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow  # fuzzes hundreds of inputs: in make test, not in the edit loop (make test-fast)
@settings(max_examples=600, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_DATA, min_size=1, max_size=3), st.sampled_from([None, False, True]), st.sampled_from([2, 4]),
       st.sampled_from([None, "'", '"', "|"]), st.integers(0, 50))
def test_valid_yaml_in_every_style_reads_the_same(docs, flow, indent, style, base):
    """Documents PyYAML writes (block and flow collections, plain, quoted and block scalars): the
    compiled reader builds nearly all of them itself, the same as the Python reader."""
    import yaml

    try:
        text = yaml.safe_dump_all(docs, default_flow_style=flow, indent=indent, default_style=style,
                                  allow_unicode=True, explicit_start=len(docs) > 1)
    except yaml.YAMLError:
        return
    got = fast(text, base)
    ref_docs, ref_starts = python(text, base)
    if got is None:  # only a merge-looking key or a tag sends valid YAML to the Python reader
        assert "<<" in text or "!!" in text, text
        return
    assert same(got[0], ref_docs) is None, (text, same(got[0], ref_docs))
    assert got[1] == ref_starts


@pytest.mark.parametrize("depth", [200, 499, 500, 501, 1000, 1001, 5000])
def test_deep_nesting_is_left_to_the_python_reader_past_500_levels(depth):
    """PyYAML's libyaml refuses nesting past 1,000 levels (an input error); the parser built here has
    no such limit, so it hands anything deeper than 500 to the Python reader."""
    flow = "[" * depth + "]" * depth
    block = "".join("  " * i + "a:\n" for i in range(depth))
    for text in (flow, block):
        if depth <= 200:
            assert agree(text)  # (deeper ones would exceed the comparison's own recursion limit)
        elif depth <= 500:
            assert fast(text) is not None
        else:
            assert fast(text) is None


@pytest.mark.parametrize("text", [
    "a: 1\n...\n%YAML 1.1\n---\nb: 2\n", "%YAML 1.2\n---\na: 1\n", "%TAG !e! tag:x,2000:\n---\na: 1\n",
    "a: 1\n%YAML 1.1\n---\nb: 2\n", "--- a\n--- b\n", "---\n...\n---\n", "a: |\n  x\n  y\nb: >-\n  p\n  q\n",
    "a: 'it''s'\nb: \"\\u00e9\\t\"\n", "- ? a\n  : b\n", "{a: 1, b: [2, 3]}\n", "a: b # c\n# d\n", "\ufeffa: 1\n",
    "\ufeff---\na: 1\n---\nb: 2\n",
    "a:\n- 1\n- 2\n", "a: 1\r\nb: 2\r\n", "- - - x\n",
])
def test_directives_document_markers_and_scalar_styles_read_the_same(text):
    """Corners where libyaml releases differ (directives after a document end, %YAML 1.2) and every
    scalar style: the compiled reader builds these itself, as the Python reader does."""
    assert agree(text)


def test_a_key_that_is_text_is_the_interned_str_and_a_key_a_resolver_may_claim_is_still_its_value():
    """Keys that are text by construction (quoted, or plain and claimed by no resolver) are the interned str of their
    text, the same object in every mapping and file (lintspeed23: the rules' own keys find them by identity); a plain
    key that a resolver may claim is ``plain``'s answer, before and after the same word quoted, and a key of over 64
    bytes is its text."""
    import sys

    long = "k" * 65
    for _ in range(2):  # the second time from the reader's cache
        for text in ("'yes': 1\nyes: 2\n'null': 3\nnull: 4\nname: 5\nkind: 6\n", "yes: 2\n'yes': 1\nkind: 5\n",
                     f"{long}: 7\n'{long}x': 8\n", '"name": 1\nimage: 2\n'):
            got = fast(text)
            assert got is not None and agree(text)
            interned = [k for k in got[0][0] if isinstance(k, str) and len(k) <= 64 and k is sys.intern(k)]
            assert interned == [k for k, line in got[0][0].key_lines.items()
                                if len(k) <= 64 and (k[0] not in "yYnNtTfFoO" or text.split("\n")[line - 1][0] in "'\"")]
        docs = fast("'yes': 1\nyes: 2\n'null': 3\nnull: 4\n")
        assert docs is not None and list(docs[0][0]) == ["yes", True, "null", None]
    a, b = fast("apiVersion: v1\nmetadata: {name: a}\n"), fast("metadata:\n  name: b\napiVersion: v2\n")
    assert a is not None and b is not None
    assert [id(k) for k in a[0][0]] == [id(k) for k in reversed(list(b[0][0]))]


_ODD = [*map(chr, range(0x100)), "\ud7ff", "\ue000", "\u2028", "\ufeff", "\ufffd", "\ufffe", "\uffff",
        "\U00010000", "\U0010ffff"]


@pytest.mark.parametrize("head", ["a: 1\n", "é: 1\n"])
def test_a_character_libyaml_does_not_read_sends_the_text_to_the_python_reader_wherever_it_stands(head):
    """The compiled reader hands libyaml a text whole where each of its characters is one libyaml's reader takes,
    looking at eight bytes at a time (lintspeed23); a character it does not take (PyYAML's ``NON_PRINTABLE``, the
    same set as libyaml's) sends the text to the Python reader, which refuses it, at any place in a word of eight
    bytes or past the last, in an ASCII text and in one with other characters."""
    import yaml.reader

    refused = 0
    for char in _ODD:
        for pad in range(17):
            text = f"{head}# {'x' * pad}{char}\n"
            if yaml.reader.Reader.NON_PRINTABLE.search(char):
                assert fast(text) is None, (char, pad)
                with pytest.raises(yaml.reader.ReaderError):
                    python(text)
                refused += 1
            else:
                assert agree(text), (char, pad)
    assert refused == 17 * (32 - 3 + 1 + 32 - 1 + 2)  # C0 less tab, LF, CR; DEL; C1 less NEL; U+FFFE, U+FFFF


@pytest.mark.parametrize("text", ["key: [a, b]: c\n", "a: -\n", "a: b\n c: d\n", "- a\nb: c\n"])
def test_yaml_the_python_reader_refuses_is_never_built(text):
    with pytest.raises(Exception):  # noqa: B017, PT011 - the Python reader's own parse error
        python(text)
    assert fast(text) is None


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",
    "labels: &l {app: vllm}\nselector: {matchLabels: *l}\nlist: &q [1, 2]\nagain: *q\n",
    "---\na: &a [1, {b: c}]\nd: [*a, *a]\n---\ne: &a x\nf: *a\n",
    "k: &k key\nm:\n  *k : 1\n",
])
def test_anchors_and_aliases_are_built_by_the_compiled_reader_as_the_python_one_builds_them(text):
    assert agree(text)


def _both(text: str) -> tuple[Any, Any]:
    """``load_documents`` of ``text`` with the compiled reader and without it: each document as (line, value), an
    input error as (line, its message)."""
    from shardwise.rules.model.errors import InputError

    def run() -> Any:
        return [(line, (type(v).__name__, v.line, v.message) if isinstance(v, InputError) else v)
                for line, v in yamlsrc.load_documents(text, "f.yaml")]

    with_fast = run()
    saved, yamlsrc._fast = yamlsrc._fast, None
    try:
        return with_fast, run()
    finally:
        yamlsrc._fast = saved


def _pure(text: str) -> Any:
    """The documents of ``text`` as PyYAML's pure-Python reader builds them, with shardwise's resolvers (no
    libyaml anywhere), mappings as plain dicts; the exception's type where it refuses the text."""
    import yaml
    from shardwise.rules.adapters import yamlpy

    class Pure(yaml.SafeLoader):
        pass

    Pure.yaml_implicit_resolvers = yamlpy._kube_resolvers(yaml.SafeLoader)
    try:
        return list(yaml.load_all(text, Loader=Pure))  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as e:
        return type(e).__name__


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


_BIG = "x" * 16380  # a comment that brings what follows to libyaml's raw-buffer boundary (16 KiB)


@pytest.mark.parametrize(("data", "expected"), [
    # bytes that are not UTF-8 never reach a YAML reader: decode_text refuses them with their line
    (b"a: 1\nb: \xff\n", "not UTF-8 text: byte 0xFF at column 4 is not UTF-8; save the file as UTF-8@2"),
    (b"a: \xc0\xaf\n", "not UTF-8 text: byte 0xC0 at column 4 is not UTF-8; save the file as UTF-8@1"),  # overlong /
    (b"a: \xed\xa0\x80\n", "not UTF-8 text: byte 0xED at column 4 is not UTF-8; save the file as UTF-8@1"),  # U+D800
    (b"a: \xf4\x90\x80\x80\n", "not UTF-8 text: byte 0xF4 at column 4 is not UTF-8; save the file as UTF-8@1"),
    (b"a: \xe2\x82", "not UTF-8 text: byte 0xE2 at column 4 is not UTF-8; save the file as UTF-8@1"),  # cut short
    ("\ufeffa: 1\n".encode("utf-16-le"),
     "not UTF-8 text: it is UTF-16LE (it starts with a UTF-16 byte order mark); save it as UTF-8 (iconv -f UTF-16 -t "
     "UTF-8)@1"),
    ("a: 1\n".encode("utf-16-be"),
     "not UTF-8 text: it is UTF-16BE (a zero byte before each of its first characters); save it as UTF-8 (iconv -f "
     "UTF-16 -t UTF-8)@1"),
])
def test_bytes_that_are_not_utf8_are_refused_before_either_reader(data, expected):
    from shardwise.rules.model.errors import InputError

    with pytest.raises(InputError) as e:
        yamlsrc.decode_text(data, "f.yaml")
    assert f"{e.value.message}@{e.value.line}" == expected


@pytest.mark.parametrize(("text", "expected"), [
    # characters libyaml's reader refuses, near the start, past its 16 KiB raw buffer and past its 48 KiB working
    # buffer (where it would have read them in a later pass): the same input error either way
    ("a: 1\nb: x\x00y\n", ("InputError", 2, "control character U+0000 at column 5")),
    ("a: '\x1b[0m'\n", ("InputError", 1, "control character U+001B at column 5")),
    ("a: \x85\x86\n", ("InputError", 1, "control character U+0086 at column 5")),  # NEL is read, U+0086 is not
    ("a: \x9f\n", ("InputError", 1, "control character U+009F at column 4")),
    ("a: \x7f\n", ("InputError", 1, "control character U+007F at column 4")),
    ("a: \ufffe\n", ("InputError", 1, "character U+FFFE at column 4")),
    (f"# {_BIG}\na: é\x01\n", ("InputError", 2, "control character U+0001 at column 5")),
    (f"# {_BIG * 3}\na: 1\nb: \x00\n", ("InputError", 3, "control character U+0000 at column 4")),
    # \u escapes of a lone surrogate or past U+10FFFF: libyaml (and kubectl's goyaml, its port) refuse them; PyYAML's
    # pure reader would give a str holding a lone surrogate
    ('a: "\\ud800"\n', ("InputError", 1, "found invalid Unicode character escape code")),
    ('a: "\\ud83d\\ude00"\n', ("InputError", 1, "found invalid Unicode character escape code")),
    ('a: "\\U00110000"\n', ("InputError", 1, "found invalid Unicode character escape code")),
])
def test_a_character_or_escape_libyaml_refuses_is_the_same_input_error_with_either_reader(text, expected):
    """The compiled reader leaves such a text to the Python reader, whose error it is: the documents (here one
    error each) are the same with and without the compiled reader, wherever the character stands."""
    assert fast(text) is None
    got, ref = _both(text)
    assert got == ref
    [(line, (kind, at, message))] = got
    assert (kind, at) == expected[:2] and expected[2] in message, message


#: Where PyYAML's pure reader reads a text otherwise than libyaml (both of shardwise's readers): a byte order mark that
#: opens a line in the middle is skipped by libyaml's scanner, which then counts it a column, so the line's key stands
#: one column right of its siblings (an error; goyaml, kubectl's reader, is libyaml's port), where the pure reader
#: reads a key that starts with it.
_PURE_READS = {"a: 1\n\ufeffb: 2\n": [{"a": 1, "\ufeffb": 2}]}


@pytest.mark.parametrize(("text", "docs"), [
    # a byte order mark in the middle: an error where it opens a line (_PURE_READS), a character of the text
    # elsewhere, nothing after a "---" line (decode_text drops it there: files joined, as kubectl reads them)
    ("a: 1\n\ufeffb: 2\n", ("InputError", 2, "did not find expected key")),
    ("- x\n\ufeff- y\n", ("InputError", 2, "did not find expected '-' indicator")),
    ("a: 1\n\ufeff---\nb: 2\n", ("InputError", 2, "did not find expected key")),
    ("a: \ufeffx\n", [{"a": "\ufeffx"}]),
    ("a: '\ufeff'\nb: \"x\ufeff\"\n", [{"a": "\ufeff", "b": "x\ufeff"}]),
    (yamlsrc.decode_text("a: 1\n---\n\ufeffb: 2\n".encode(), "f"), [{"a": 1}, {"b": 2}]),
    # NEL, LS and PS are line breaks to libyaml and PyYAML alike
    ("a: x\x85  y\nb: 1\n", [{"a": "x y", "b": 1}]),
    ("a: |\n  x\u2028  y\n", [{"a": "x\u2028y\n"}]),
    ("a: 'p\u2029  q'\n", [{"a": "p\u2029q"}]),
    # characters the reader takes, and multi-byte ones across its 16 KiB raw buffer and 48 KiB working buffer
    ("\U0010ffff: \ud7ff\ue000\ufffd\U00010000\n", [{"\U0010ffff": "\ud7ff\ue000\ufffd\U00010000"}]),
    (f"# {_BIG}\na: é€😀\n", [{"a": "é€😀"}]),
    (f"# {_BIG}é\na: 😀\n", [{"a": "😀"}]),
    ("a: '" + "é€" * 20000 + "'\n", [{"a": "é€" * 20000}]),
    # the text's last characters, next to the NUL libyaml's reader puts after them (the scanner looks ahead)
    ("", []), ("---", [None]), ("--", ["--"]), ("...", ("InputError", 1, "did not find expected node content")),
    ("a", ["a"]), ("a:", [{"a": None}]), ("- ", [[None]]), ("? ", [{None: None}]), ("a: |", [{"a": ""}]),
    ("a: >-\n ", [{"a": ""}]), ("a: \r", [{"a": None}]),
    ("[a", ("InputError", 2, "did not find expected ',' or ']'")), ("'a", ("InputError", 1, "found unexpected end")),
    ('"a\\', ("InputError", 1, "found unknown escape character")), ("&", ("InputError", 1, "did not find expected alphabetic")),
    ("%", ("InputError", 1, "could not find expected directive name")), ("a: @", ("InputError", 1, "cannot start any token")),
])
def test_edge_texts_read_the_same_with_either_reader_and_as_pyyaml_reads_them(text, docs):
    """Each text reads the same with the compiled reader (libyaml handed the text whole where its reader would take
    every character, lintspeed23) and without it, and as PyYAML's pure reader reads it but where libyaml itself
    reads otherwise (_PURE_READS)."""
    got, ref = _both(text)
    assert got == ref
    pure = _pure(text)
    if isinstance(docs, tuple):
        [(_, (kind, line, message))] = got
        assert (kind, line) == docs[:2] and docs[2] in message, message
        assert pure == _PURE_READS.get(text, pure if pure in ("ParserError", "ScannerError") else "an error")
        return
    assert [_plain(v) for _, v in got] == docs
    assert pure == _PURE_READS.get(text, docs)
    assert fast(text) is not None  # built by the compiled reader
