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
