"""The line-keeping YAML loader: the fast event path and PyYAML's constructor give the same documents."""

import pytest
import yaml
from repo_paths import ROOT
from shardwise.rules.adapters import yamlpy, yamlsrc
from shardwise.rules.model.errors import InputError


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (a.line, a.key_lines, list(a)) == (b.line, b.key_lines, list(b)) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _slow(text):
    return list(yaml.load_all(text, Loader=yamlpy._LineLoader))


PLAIN = """\
# comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
  labels: {a: "1", b: yes, c: ~, d: 0.5, e: 0x10, f: 2026-11-29}
spec:
  replicas: 3
  args: [serve, "--tp", '4', --flag=a, -1.5e3, .inf, null, true, No]
  nested:
    - {k: v}
    - - inner
      - 2
---
---
just: a scalar doc
--- plain string
"""


def test_event_path_matches_the_constructor_on_plain_yaml():
    fast = yamlsrc._load_events(PLAIN)
    assert _same(fast, _slow(PLAIN))
    doc = fast[0]
    assert (doc.line, doc.key_lines["spec"], doc["spec"].line, doc["metadata"]["labels"].line) == (2, 7, 8, 6)
    # an unquoted date is text, as kubectl's goyaml.v2 keeps it (hostile8)
    assert doc["metadata"]["labels"] == {"a": "1", "b": True, "c": None, "d": 0.5, "e": 16, "f": "2026-11-29"}
    assert fast[1:] == [None, {"just": "a scalar doc"}, "plain string"]


#: Plain scalars the compiled reader asks Python to type: the words and numbers read without PyYAML and their
#: neighbours that only PyYAML's resolvers read (octal, sexagesimal, underscores, exponents, dates, .inf).
PLAIN_SCALARS = [
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
    "off", "Off", "OFF", "y", "n", "tRUE", "~", "null", "Null", "NULL", "nULL", "", "-1", "+1", "-0", "+0", "-07",
    "-08", "-5", "+12", "-123456789012345678", "1234567890123456789", "-1234567890123456789", "0.9", "00.5", "-0.0",
    "+0.25", "1.", ".5", "-.5", "1.5e3", "1.5e+3", "1_000", "1_0.5", "0x10", "0b11", "0o7", "017", "1:30",
    "1:30.5", ".inf", "-.inf", ".nan", "2026-11-29", "2026-11-29T12:00:00Z", "2024-13-45", "<<", "=", "1.2.3",
    "-", "+", "--tp", "-x", "9abc", "١٢", "1.٢", "name", "NoSchedule", "nvidia.com/gpu", "ON_DEMAND", "--port=8000",
    "--max-model-len=8192", "-x.5", "32Gi", "300Gi", "0.0.0.0", "1e5", "12abc", "8080/TCP", "10.0.0.0/16", "1.5Gi",
    "2026-11-29 12:00:00", "0.5 ", "-.5x", "9.9.9", "1__2", "0x1F", "0xZZ", "Z", "t", "T", "o", "x",
    "0O10", "0X1F", "0B1", "-0o7", "08", "1e400", "2E5",  # review27: goyaml.v2's ints and floats
]


@pytest.mark.parametrize("value", PLAIN_SCALARS)
def test_plain_scalars_read_without_pyyaml_are_what_pyyaml_reads(value):
    fast, slow = yamlsrc._plain_value(value), yamlpy.plain_value(value)
    assert (type(fast), fast) == (type(slow), slow) or (fast is slow is yamlsrc._NOT_HERE)


def test_a_plain_manifest_is_read_without_importing_pyyaml():
    """The compiled reader and the common plain scalars need no PyYAML (start-up time of a one-file lint)."""
    import subprocess
    import sys

    if yamlsrc._fast is None:
        pytest.skip("the compiled reader is not built")
    code = ("import sys\nfrom shardwise.rules.adapters.yamlsrc import load_documents\n"
            "docs = load_documents('a: true\\nb: [0.9, -3, null, x]\\n---\\nc: 8000\\n', 'f.yaml')\n"
            "print(docs, 'yaml' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[(1, {'a': True, 'b': [0.9, -3, None, 'x']}), (4, {'c': 8000})] False"


@pytest.mark.parametrize("text,falls_back", [
    ("base: &b {x: 1}\nuse: *b\n", False),                 # anchor and alias: built from events (hostile18)
    ("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", True),   # merge key
    ("n: !!str 12\nm: !!int '7'\n", False),                # explicit standard tags: built from events
    ("t: !custom 1\n", True),                               # an unknown tag: the constructor's error
])
def test_features_left_to_the_constructor_give_the_same_documents(text, falls_back):
    if falls_back:
        with pytest.raises(yamlsrc._Fallback):
            yamlsrc._load_events(text)
    try:
        slow = _slow(text)
    except yaml.YAMLError:
        with pytest.raises(InputError):
            list(yamlsrc.load_all(text, "f.yaml"))
        return
    assert _same(list(yamlsrc.load_all(text, "f.yaml")), slow)


def test_every_shipped_yaml_file_loads_the_same_both_ways():
    files = [*ROOT.glob("tests/fixtures/**/*.yaml"), *ROOT.glob("stacks/*.yaml"), *ROOT.glob("examples/*.yaml")]
    checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            slow = _slow(text)
        except yaml.YAMLError:
            continue  # the deliberately broken fixtures
        assert _same(list(yamlsrc.load_all(text, str(path))), slow), path
        checked += 1
    assert checked >= 50


def test_yaml_errors_name_the_file_and_line():
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all("a: 1\nb: [unclosed\nc: 3\n", "bad.yaml"))
    assert (err.value.file, err.value.line) == ("bad.yaml", 3)
    assert str(err.value).startswith("bad.yaml:3:2: cannot parse YAML: ")


# adopt18's reproducer: a quote inside a "…" shell command of surajssd__llm-k8s' lws.yaml (there on line 37); the
# reader stops at the word after the inner quote, column 34 here
QUOTE_IN_COMMAND = 'kind: Pod\nspec:\n  containers:\n  - command: ["sh", "-c", "echo "hi" && vllm serve m"]\n'


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_yaml_syntax_errors_give_line_and_column(monkeypatch, pure):
    """Both readers (the compiled one hands every error to the Python reader; SHARDWISE_PURE_YAML=1 reads with the
    Python reader alone) name the line and the column, 1-based as editors count them."""
    if pure:
        monkeypatch.setattr(yamlsrc, "_fast", None)
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all(QUOTE_IN_COMMAND, "lws.yaml"))
    assert (err.value.line, err.value.column) == (4, 34)
    assert str(err.value) == "lws.yaml:4:34: cannot parse YAML: did not find expected ',' or ']'"
    assert QUOTE_IN_COMMAND.splitlines()[3][33:35] == "hi"


def test_a_column_counts_characters_not_bytes():
    """A line with a character of several UTF-8 bytes before the error: the column counts it once (an editor's
    column), in a document parsed alone after a broken stream (its lines offset, its columns not)."""
    text = "a: 1\n---\nname: \"é\" x\n"
    docs = yamlsrc.load_documents(text, "u.yaml")
    errors = [d for _, d in docs if isinstance(d, InputError)]
    assert [(e.line, e.column, e.message) for e in errors] == [
        (3, 11, "cannot parse YAML: did not find expected key")]
    assert text.splitlines()[2][10] == "x"


def test_an_error_moved_to_its_documents_end_has_no_column():
    """An error the reader found at the next document's --- is named at the last line of its own document: the
    reader's column is not on that line, so none is given."""
    docs = yamlsrc.load_documents("a: [1,\n---\nb: 2\n", "d.yaml")
    assert [(d.line, d.column) for _, d in docs if isinstance(d, InputError)] == [(1, None)]


@pytest.mark.parametrize("text,line,message", [
    ("a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a' (first written on line 1)"),          # the event path
    ("x: &v 1\nm:\n  k: *v\n  k: 2\n", 4, "duplicate key 'k' (first written on line 3)"),  # the constructor
    ("m: {k: 1, k: 2}\n", 1, "duplicate key 'k' (first written on line 1)"),             # flow style
    ("---\na: 1\n---\nb: 1\nb: 2\n", 5, "duplicate key 'b' (first written on line 4)"),  # second document
    ("1: a\n1: b\n", 2, "duplicate key '1'"),                                         # not text: no first line
])
def test_duplicate_keys_are_an_error_at_the_second(text, line, message):
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all(text, "d.yaml"))
    assert (err.value.file, err.value.line) == ("d.yaml", line)
    assert err.value.message == f"cannot parse YAML: {message}: a mapping's keys must be unique, keep one"


@pytest.mark.parametrize("text,line,first,value", [
    ("a: 1\nb: 2\na: 3\n", 3, 1, {"a": 3, "b": 2}),                     # the event path
    ("x: &v 1\nm:\n  k: *v\n  k: 2\n", 4, 3, {"x": 1, "m": {"k": 2}}),   # the constructor
    ("m: {k: 1, k: 2}\n", 1, 1, {"m": {"k": 2}}),                         # flow style
])
def test_documents_with_a_duplicate_key_are_read_with_the_last_value(text, line, first, value):
    docs = yamlsrc.load_documents(text, "d.yaml")
    assert [(ln, type(d).__name__, d if isinstance(d, dict) else (d.file, d.line, d.message)) for ln, d in docs] == [
        (1, "LineDict", value),
        (line, "DuplicateKey", ("d.yaml", line, f"duplicate key {'k' if 'k' in text else 'a'!r} (first written on "
                                f"line {first}): a mapping's keys must be unique, keep one (the rest of the document "
                                "is still checked, with the last value)")),
    ]
    # the key's line is the last one written: a finding about the value points at it
    doc = docs[0][1]
    holder = doc["m"] if "m" in doc else doc
    assert holder.key_lines["k" if "k" in holder else "a"] == line


def test_a_merge_key_may_be_overridden_but_not_written_twice():
    base = "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  x: 3\n"
    [doc] = yamlsrc.load_all(base, "m.yaml")
    assert doc["use"] == {"x": 3, "y": 2}
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all(base + "  x: 4\n", "m.yaml"))
    assert err.value.line == 5


@pytest.mark.parametrize("text,message", [
    ("a: !!bool maybe\n", "'maybe' tagged !!bool is not a boolean (true or false)"),
    ("a: !!int 1.5\n", "'1.5' tagged !!int is not an integer"),
    ("a: !!float abc\n", "'abc' tagged !!float is not a number"),
    ("a: !!timestamp 2024-02-30\n", "'2024-02-30' tagged !!timestamp is not a date or a timestamp "
                                    "(2024-01-31, 2024-01-31T12:00:00Z)"),
    ("a: &x !!bool maybe\n", "'maybe' tagged !!bool is not a boolean (true or false)"),  # the constructor path
    ("a: !!bool\n  - x\n", "expected a scalar node, but found sequence"),
])
def test_a_scalar_its_tag_cannot_construct_is_a_yaml_error(text, message):
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all(text, "t.yaml"))
    assert (err.value.line, err.value.message) == (1, f"cannot parse YAML: {message}")


@pytest.mark.parametrize("char,what", [("\x01", "control character U+0001"), ("\x1b", "control character U+001B"),
                                       ("\x7f", "control character U+007F"), ("\ufffe", "character U+FFFE"),
                                       ("\x00", "control character U+0000")])
def test_a_control_character_is_named_with_its_line_and_column(char, what):
    text = f"a: 1\nb: 'x{char}'\n"
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all(text, "c.yaml"))
    code = ord(char)
    assert (err.value.line, err.value.message) == (2, (
        f"cannot parse YAML: {what} at column 6 is not allowed in YAML text; remove it, or write it as the "
        f'escape "\\u{code:04x}" inside a double-quoted string'))


@pytest.mark.parametrize("data,line,message", [
    (b"a: 1\nb: \xff\n", 2, "not UTF-8 text: byte 0xFF at column 4 is not UTF-8; save the file as UTF-8"),
    (b"a: caf\xe9\n", 1, "not UTF-8 text: byte 0xE9 at column 7 is not UTF-8; save the file as UTF-8"),
    (b"\xff\xfea\x00", 1, "not UTF-8 text: it is UTF-16LE (it starts with a UTF-16 byte order mark); save it as "
                         "UTF-8 (iconv -f UTF-16 -t UTF-8)"),
    # the other encodings YAML 1.2.2 detects (5.2): UTF-32 with its mark (read as UTF-16 before), and UTF-16 and
    # UTF-32 without one (a "control character U+0000" before)
    ("a: 1\n".encode("utf-32"), 1, "not UTF-8 text: it is UTF-32LE (it starts with a UTF-32 byte order mark); save "
                                   "it as UTF-8 (iconv -f UTF-32 -t UTF-8)"),
    ("a: 1\n".encode("utf-32-be"), 1, "not UTF-8 text: it is UTF-32BE (zero bytes before its first character); save "
                                      "it as UTF-8 (iconv -f UTF-32 -t UTF-8)"),
    ("a: 1\n".encode("utf-16-be"), 1, "not UTF-8 text: it is UTF-16BE (a zero byte before each of its first "
                                      "characters); save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"),
    ("a: 1\n".encode("utf-16-le"), 1, "not UTF-8 text: it is UTF-16LE (a zero byte after each of its first "
                                      "characters); save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"),
])
def test_bytes_that_are_not_utf8_name_their_line(tmp_path, data, line, message):
    (tmp_path / "e.yaml").write_bytes(data)
    with pytest.raises(InputError) as err:
        yamlsrc.read_text(str(tmp_path / "e.yaml"))
    assert (err.value.line, err.value.message) == (line, message)


def test_a_byte_order_mark_and_crlf_line_breaks_are_read(tmp_path):
    (tmp_path / "w.yaml").write_bytes(b"\xef\xbb\xbfa: 1\r\nb: 2\r\n")
    assert yamlsrc.read_text(str(tmp_path / "w.yaml")) == "a: 1\nb: 2\n"


HELM = """\
# Source: chart/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData:
  token: {{ .Values.token }}
---
# Source: chart/templates/svc.yaml
apiVersion: v1
kind: Service
metadata: {name: vllm}
...
%YAML 1.1
---
broken: [1,
---
last: {k: 1, k: 2}
--- |
  a block
---
"""


def test_documents_are_parsed_one_by_one_when_one_is_broken():
    docs = yamlsrc.load_documents(HELM, "h.yaml")
    assert [(line, str(d) if isinstance(d, InputError) else d) for line, d in docs] == [
        (1, "h.yaml:6: cannot parse YAML: a template placeholder {{ … }} is not YAML; render the template first "
            "(helm template …)"),
        (9, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "vllm"}}),
        (13, "h.yaml:15: cannot parse YAML: did not find expected node content"),  # the end of its document
        # a duplicate key: the document is read with the last value, and the key is an error at its line
        (17, {"last": {"k": 2}}),
        (17, "h.yaml:17: duplicate key 'k' (first written on line 17): a mapping's keys must be unique, keep one "
             "(the rest of the document is still checked, with the last value)"),
        (18, "a block\n"),
        (21, None),
    ]
    service = docs[1][1]
    assert (service.line, service.key_lines["kind"], service["metadata"].line) == (9, 10, 11)


def test_split_documents_keeps_directives_with_their_document():
    assert [(b, t.splitlines()[0]) for b, t in yamlsrc.split_documents(HELM)] == [
        (0, "# Source: chart/templates/secret.yaml"), (6, "---"), (12, "%YAML 1.1"), (15, "---"), (17, "--- |"),
        (19, "---"),
    ]


def test_a_stream_that_parses_is_not_split():
    assert yamlsrc.load_documents("a: 1\n---\n- x\n", "f.yaml") == [(1, {"a": 1}), (3, ["x"])]
    assert yamlsrc.load_documents("", "f.yaml") == []


def test_unhashable_key_is_an_input_error():
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all("? [a, b]\n: 1\n", "k.yaml"))
    assert "unhashable mapping key at line 1" in str(err.value)


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
def test_reading_many_files_in_processes_gives_the_same_inventory(tmp_path):
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, load_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    sources = sorted((ROOT / "tests" / "fixtures" / "rules").glob("SW1*/*.yaml"))
    for i in range(PARALLEL_MIN_FILES):
        src = sources[i % len(sources)]
        (tmp_path / f"{i:04d}-{src.parent.name}-{src.name}").write_text(src.read_text(encoding="utf-8"))
    one, two = load_inputs([str(tmp_path)], jobs=1), load_inputs([str(tmp_path)], jobs=2)
    assert [g.name for g in one.groups] == [g.name for g in two.groups]
    assert len(one.groups) > PARALLEL_MIN_FILES
    assert run_rules(ALL_RULES, one) == run_rules(ALL_RULES, two)


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
def test_an_input_error_in_a_worker_keeps_its_file_and_line(tmp_path):
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, load_inputs

    good = (ROOT / "tests" / "fixtures" / "rules" / "SW104" / "pass.yaml").read_text(encoding="utf-8")
    for i in range(PARALLEL_MIN_FILES):
        (tmp_path / f"{i:04d}.yaml").write_text(good)
    (tmp_path / "0150.yaml").write_text("kind: [broken\n")
    with pytest.raises(InputError) as err:
        load_inputs([str(tmp_path)], jobs=2)
    assert (err.value.file, err.value.line) == (str(tmp_path / "0150.yaml"), 2)


# ------------------------------------------------------------------ aliases: only what they add is bounded (aliases19)

@pytest.fixture(params=["compiled", "python"])
def reader(request, monkeypatch):
    """Both ways in: the compiled reader hands a text with an alias to the Python one; the pure reader alone."""
    if request.param == "python":
        monkeypatch.setattr(yamlsrc, "_fast", None)
    elif yamlsrc._fast is None:
        pytest.skip("the compiled reader is not built (make setup)")
    return request.param


def _refused(text):
    with pytest.raises(InputError) as e:
        yamlsrc._parse(text, "x.yaml")
    return str(e.value)


def test_one_alias_in_a_document_of_more_than_a_million_values_is_read(reader):
    # was: "x.yaml:1: cannot parse YAML: its aliases expand to more than 1,000,000 values": the whole document was
    # counted (a 31 MiB file of 3.2M keys with one anchor and one alias: 85.8 s, 2.3 GB, then refused)
    text = "a: &a x\nb: [" + "1," * 1_000_000 + "*a]\n"
    (doc,) = yamlsrc._parse(text, "x.yaml")
    assert (len(doc["b"]), doc["b"][0], doc["b"][-1]) == (1_000_001, 1, "x")


def test_aliases_that_add_exactly_the_bound_are_read_and_one_value_more_is_refused(reader):
    anchor = "a: &a [" + ",".join(["v"] * 999) + "]\n"  # the list and its 999 scalars: 1,000 values
    (doc,) = yamlsrc._parse(anchor + "b: [" + ",".join(["*a"] * 1000) + "]\n", "x.yaml")  # adds 1,000,000
    assert (len(doc["b"]), doc["b"][999] is doc["a"]) == (1000, True)
    assert _refused(anchor + "b: [" + ",".join(["*a"] * 1000) + ", *a]\n") == (  # adds 1,001,000
        "x.yaml:1: cannot parse YAML: its aliases expand to more than 1,000,000 values")


def test_aliases_that_add_exactly_the_text_bound_are_read_and_one_character_more_is_refused(reader):
    big = "x" * (1 << 20)
    (doc,) = yamlsrc._parse(f"a: &a {big}\nb: [" + ",".join(["*a"] * 32) + "]\n", "x.yaml")  # adds 32 MiB
    assert [len(s) for s in doc["b"]] == [1 << 20] * 32
    assert _refused(f"a: &a {big}y\nb: [" + ",".join(["*a"] * 32) + "]\n") == (
        "x.yaml:1: cannot parse YAML: its aliases expand to more than 33,554,432 characters of text "
        "(the most shardwise reads from one file, 32 MiB)")


def test_the_text_of_an_anchored_collection_counts_to_the_text_bound(reader):
    # lintspeed21: the compiled reader counts a scalar's characters (not its bytes: é is one) only inside an anchored
    # node or where the scalar has its own anchor; a scalar nested in a list of an anchored list still counts, the
    # text before the anchor does not, and one character past the bound is refused as before
    big = "x" * ((1 << 20) - 2)
    aliases = "b: [" + ",".join(["*a"] * 32) + "]\n"
    (doc,) = yamlsrc._parse(f"pre: {big}\na: &a [[{big}, é]]\n" + aliases, "x.yaml")
    assert [len(d[0][0]) + len(d[0][1]) for d in doc["b"]] == [(1 << 20) - 1] * 32
    (doc,) = yamlsrc._parse(f"a: &a [[{big}, yé]]\n" + aliases, "x.yaml")  # adds 32 MiB of text
    assert doc["b"][31] is doc["a"]
    assert _refused(f"a: &a [[{big}, yzé]]\n" + aliases) == (
        "x.yaml:1: cannot parse YAML: its aliases expand to more than 33,554,432 characters of text "
        "(the most shardwise reads from one file, 32 MiB)")


def test_a_billion_laughs_is_refused_at_its_document(reader):
    anchors = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    anchors += [f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
    assert _refused("---\nok: 1\n---\n" + "\n".join(anchors) + "\n") == (
        "x.yaml:4: cannot parse YAML: its aliases expand to more than 1,000,000 values")


def test_a_merge_key_adds_what_it_merges(reader):
    anchor = "a: &a {" + ", ".join(f"k{i}: v" for i in range(999)) + "}\n"  # 1 + 999 keys + 999 values
    assert _refused(anchor + "".join(f"m{i}: {{<<: *a}}\n" for i in range(501))) == (  # 501 x 1,999
        "x.yaml:1: cannot parse YAML: its aliases expand to more than 1,000,000 values")


@pytest.mark.parametrize(("text", "said"), [
    ("&x [*x]\n", "x.yaml:1: cannot parse YAML: its aliases make a list that contains itself"),
    ("ok: 1\n---\n&x [*x]\n", "x.yaml:3: cannot parse YAML: its aliases make a list that contains itself"),
    # PyYAML's own, with the column of its mark since adopt19
    ("&m {a: [b, *m]}\n", "x.yaml:1:1: cannot parse YAML: found unconstructable recursive node"),
])
def test_a_collection_that_contains_itself_is_refused(reader, text, said):
    assert _refused(text) == said


def test_a_merge_of_merges_is_read_and_a_merge_of_many_aliases_refused(reader):
    # a merged key is kept once (hostile8): each anchor merged once per mapping, so this grows with the keys
    text = "m0: &m0 {k0: v, k1: v}\n" + "".join(
        f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 10)}], n{i}: 1}}\n" for i in range(1, 12))
    (doc,) = yamlsrc._parse(text, "x.yaml")
    assert doc["m11"] == {"k0": "v", "k1": "v", **{f"n{i}": 1 for i in range(1, 12)}}
    # and each list of aliases beside the merge counted each time (the hostile sweep's h8-merge-key-bomb)
    text = "m0: &m0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v, k9: v}\n" + "".join(
        f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 10)}], n{i}: [{', '.join([f'*m{i - 1}'] * 10)}]}}\n"
        for i in range(1, 9))
    assert _refused(text) == "x.yaml:1: cannot parse YAML: its aliases expand to more than 1,000,000 values"


# ------------------------------------------------------------------ anchors and aliases built from events (hostile18)

#: Texts with anchors and aliases in the shapes real files use them (a shared block of labels, env or resources, a
#: list reused, an anchored scalar as a value and as a key, an empty anchored value, anchors again in a later
#: document, tags on anchored scalars): the event path builds them as PyYAML's constructor does.
ALIASED = [
    "base: &b {x: 1}\nuse: *b\n",
    "a: &a x\nb: [1, *a, {k: *a}]\n*a : 3\n",
    "k: &k key\nm:\n  *k : 1\n  other: *k\n",
    "l: &l [1, 2, {a: b}]\nm: *l\nn: [*l, *l]\n",
    "---\na: &a 1\nb: *a\n---\nc: &a 2\nd: *a\n",
    "x: &e\ny: *e\n",
    "a: &a !!str 12\nb: *a\nc: &c 0x10\nd: [*c]\n",
    "a: &a {b: &c [1, {d: e}]}\nd: *c\ne: *a\n",
    "spec:\n  template:\n    metadata:\n      labels: &labels\n        app: vllm\n        tier: serving\n"
    "  selector:\n    matchLabels: *labels\n",
]


@pytest.mark.parametrize("text", ALIASED)
def test_anchors_and_aliases_are_built_from_events_as_the_constructor_builds_them(reader, text, monkeypatch):
    slow = _slow(text)
    monkeypatch.setattr(yamlpy, "_LineLoader", None)  # PyYAML's composer and constructor are not used
    starts: list[int] = []
    assert _same(yamlsrc._parse(text, "x.yaml", 0, starts), slow)
    assert starts == [1] if text.count("---") < 2 else starts == [2, 5]


def test_an_alias_is_the_anchors_own_value_at_the_anchors_lines(reader):
    (doc,) = yamlsrc._parse("a: &a {x: 1}\nk: &k key\nb: *a\nm:\n  *k : 2\n", "x.yaml")
    assert doc["b"] is doc["a"]
    assert (doc["b"].line, doc["m"].key_lines) == (1, {"key": 2})  # the key's line: where its anchor wrote it


def test_a_duplicate_key_through_an_alias_names_the_anchors_line(reader):
    assert yamlsrc.load_documents("k: &k dup\nm: {*k : 1, dup: 2}\n", "x.yaml")[1][1].message == (
        "duplicate key 'dup' (first written on line 1): a mapping's keys must be unique, keep one (the rest of "
        "the document is still checked, with the last value)")


@pytest.mark.parametrize(("text", "said"), [
    ("a: *nowhere\n", "x.yaml:1:4: cannot parse YAML: found undefined alias"),
    ("b: [*a, &a x]\n", "x.yaml:1:5: cannot parse YAML: found undefined alias"),  # an alias before its anchor
])
def test_what_the_event_path_leaves_to_pyyaml_keeps_pyyamls_error(reader, text, said):
    with pytest.raises(yamlsrc._Fallback):
        yamlpy.load_events(text)
    assert _refused(text) == said


# corpus29: a GitOps tree's HelmRelease names each env var and its secret once per entry (`- name: &name X` then
# `key: *name`); YAML's alias names the latest node with its anchor (YAML 1.2.2 section 3.2.2.2), and kubectl's
# reader (goyaml.v2 decode.go, parser.anchor) sets the name again. PyYAML refused the second anchor.
HELMRELEASE_ENV = """\
env:
  - name: &name OVH_APPLICATION_KEY
    valueFrom:
      secretKeyRef:
        name: &secret external-dns-ovh-secret
        key: *name
  - name: &name OVH_APPLICATION_SECRET
    valueFrom:
      secretKeyRef:
        name: *secret
        key: *name
"""


@pytest.mark.parametrize("merge", ["", "merged: {<<: {a: 1}}\n"])  # the event path; PyYAML's (a merge key)
def test_an_anchor_written_again_names_the_latest_node(reader, merge):
    (doc,) = yamlsrc._parse(merge + HELMRELEASE_ENV, "x.yaml")
    assert [(e["name"], e["valueFrom"]["secretKeyRef"]["key"]) for e in doc["env"]] == [
        ("OVH_APPLICATION_KEY", "OVH_APPLICATION_KEY"), ("OVH_APPLICATION_SECRET", "OVH_APPLICATION_SECRET")]
    (doc,) = yamlsrc._parse(merge + "a: &a 1\nb: &a 2\nc: *a\nd: &m [1]\ne: [*m, &m x]\nf: *m\n", "x.yaml")
    assert (doc["a"], doc["b"], doc["c"], doc["e"], doc["f"]) == (1, 2, 2, [[1], "x"], "x")
    assert (doc["c"] is doc["b"], doc["e"][0] is doc["d"]) == (True, True)


@pytest.mark.parametrize("merge", ["", "merged: {<<: {a: 1}}\n"])
def test_an_anchor_written_again_on_a_collection_names_it_inside_itself(reader, merge):
    # goyaml.v2 sets the name at the collection's start: the alias inside is the collection itself
    assert _refused(merge + "a: &a [1]\nb: &a [2, *a]\n").endswith(
        "cannot parse YAML: found unconstructable recursive node")


def test_a_plain_equals_sign_is_text(reader):
    # corpus29: an AlertmanagerConfig's `matchType: =` (the home-ops template's); PyYAML resolves a plain = to YAML
    # 1.1's value key and has no constructor for it; goyaml.v2's resolve table has no entry for it: text
    text = "routes:\n  - matchers:\n      - name: alertname\n        value: InfoInhibitor\n        matchType: =\n"
    (doc,) = yamlsrc._parse(text + "=: [=, '=', !!str =]\n", "x.yaml")
    assert (doc["routes"][0]["matchers"][0]["matchType"], doc["="]) == ("=", ["=", "=", "="])
    assert yamlpy.plain_value("=") == "="


def test_the_event_path_falls_back_where_the_aliases_pass_the_bound():
    anchor = "a: &a [" + ",".join(["v"] * 999) + "]\n"  # 1,000 values
    assert len(yamlpy.load_events(anchor + "b: [" + ",".join(["*a"] * 1000) + "]\n")[0]["b"]) == 1000
    with pytest.raises(yamlsrc._Fallback):  # 1,001,000 added: _check_aliases refuses it with its message
        yamlpy.load_events(anchor + "b: [" + ",".join(["*a"] * 1000) + ", *a]\n")
    with pytest.raises(yamlsrc._Fallback):  # the bound counts the whole text, as _check_aliases does
        yamlpy.load_events(anchor + "b: [" + ",".join(["*a"] * 500) + "]\n---\n" + anchor + "b: ["
                           + ",".join(["*a"] * 501) + "]\n")


def _compiled():
    if yamlsrc._fast is None:
        pytest.skip("the compiled reader is not built (make setup)")
    return yamlsrc._fast


@pytest.mark.parametrize("text", ALIASED)
def test_the_compiled_reader_takes_anchors_and_aliases_itself(text):
    _compiled()
    starts: list[int] = []
    got = yamlsrc._load_fast(text, 0, starts)
    assert got is not None and _same(got, _slow(text))


def test_the_compiled_reader_holds_the_same_alias_bounds():
    fast = _compiled()
    assert (fast.MAX_EXPANDED_VALUES, fast.MAX_EXPANDED_CHARS) == (yamlsrc.MAX_EXPANDED_VALUES,
                                                                   yamlsrc.MAX_EXPANDED_CHARS)
    anchor = "a: &a [" + ",".join(["v"] * 999) + "]\n"  # 1,000 values
    assert len(yamlsrc._load_fast(anchor + "b: [" + ",".join(["*a"] * 1000) + "]\n", 0, None)[0]["b"]) == 1000
    big = "x" * (1 << 20)  # 32 MiB added exactly; characters, not bytes, are counted (é is two bytes)
    assert yamlsrc._load_fast(f"a: &a {big}\nb: [" + ",".join(["*a"] * 32) + "]\n", 0, None) is not None
    assert yamlsrc._load_fast(f"a: &a {big[:-1]}é\nb: [" + ",".join(["*a"] * 32) + "]\n", 0, None) is not None
    for text in (anchor + "b: [" + ",".join(["*a"] * 1000) + ", *a]\n",  # one value past: the Python reader's
                 f"a: &a {big}y\nb: [" + ",".join(["*a"] * 32) + "]\n",
                 anchor + "b: [" + ",".join(["*a"] * 500) + "]\n---\n" + anchor + "b: [" + ",".join(["*a"] * 501)
                 + "]\n",  # counted over the text
                 "a: &a 1\nb: &a 2\n", "a: *nowhere\n", "&x [*x]\n", "a: &a [1]\nb: [*a, &a x]\n",
                 "a: &m '<<'\nb: {*m : 1}\n"):  # a `<<` key through an alias
        assert yamlsrc._load_fast(text, 0, None) is None, text[:40]
