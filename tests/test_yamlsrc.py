"""The line-keeping YAML loader: the fast event path and PyYAML's constructor give the same documents."""

import pathlib

import pytest
import yaml
from shardwise.rules import yamlsrc
from shardwise.rules.errors import InputError

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (a.line, a.key_lines, list(a)) == (b.line, b.key_lines, list(b)) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _slow(text):
    return list(yaml.load_all(text, Loader=yamlsrc._LineLoader))


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
    assert doc["metadata"]["labels"] == {"a": "1", "b": True, "c": None, "d": 0.5, "e": 16,
                                         "f": __import__("datetime").date(2026, 11, 29)}
    assert fast[1:] == [None, {"just": "a scalar doc"}, "plain string"]


@pytest.mark.parametrize("text,falls_back", [
    ("base: &b {x: 1}\nuse: *b\n", True),                  # anchor and alias
    ("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", True),   # merge key
    ("a: 1\na: 2\n", True),                                # duplicate key: the last one wins, as in PyYAML
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
    assert str(err.value).startswith("bad.yaml:3: cannot parse YAML: ")


def test_unhashable_key_is_an_input_error():
    with pytest.raises(InputError) as err:
        list(yamlsrc.load_all("? [a, b]\n: 1\n", "k.yaml"))
    assert "unhashable mapping key at line 1" in str(err.value)


def test_reading_many_files_in_processes_gives_the_same_inventory(tmp_path):
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, load_inputs
    from shardwise.rules.engine import run_rules
    from shardwise.rules.registry import ALL_RULES

    sources = sorted((ROOT / "tests" / "fixtures" / "rules").glob("SW1*/*.yaml"))
    for i in range(PARALLEL_MIN_FILES):
        src = sources[i % len(sources)]
        (tmp_path / f"{i:04d}-{src.parent.name}-{src.name}").write_text(src.read_text(encoding="utf-8"))
    one, two = load_inputs([str(tmp_path)], jobs=1), load_inputs([str(tmp_path)], jobs=2)
    assert [g.name for g in one.groups] == [g.name for g in two.groups]
    assert len(one.groups) > PARALLEL_MIN_FILES
    assert run_rules(ALL_RULES, one) == run_rules(ALL_RULES, two)


def test_an_input_error_in_a_worker_keeps_its_file_and_line(tmp_path):
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, load_inputs

    good = (ROOT / "tests" / "fixtures" / "rules" / "SW104" / "pass.yaml").read_text(encoding="utf-8")
    for i in range(PARALLEL_MIN_FILES):
        (tmp_path / f"{i:04d}.yaml").write_text(good)
    (tmp_path / "0150.yaml").write_text("kind: [broken\n")
    with pytest.raises(InputError) as err:
        load_inputs([str(tmp_path)], jobs=2)
    assert (err.value.file, err.value.line) == (str(tmp_path / "0150.yaml"), 2)
