"""The pack's store of stack-config verdicts (:mod:`shardwise.rules.app.stack_verdicts`): what reading a stack's
environment config concluded, used again only while the package, pydantic and Python are those it was made with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from grpc_harness import PYTHON, ROOT
from pulumi_mocks import engine_config, load_stack_config
from shardwise.rules.app import crossguard, stack_verdicts


def _environ(stack: str, edit=None) -> dict[str, str]:
    cfg = engine_config(load_stack_config(ROOT / "stacks" / f"Pulumi.{stack}.yaml"))
    if edit is not None:
        value = json.loads(cfg["shardwise:environment"])
        edit(value)
        cfg["shardwise:environment"] = json.dumps(value)
    return {"PULUMI_CONFIG": json.dumps(cfg)}


def _drop_pools(value: dict) -> None:
    value["pools"] = []


def _bad_name(value: dict) -> None:
    value["name"] = "Not A DNS Label"


CASES = {  # stack configs, two of them valid with what stack_context concludes (the others: the test below)
    "prod": (_environ("prod"), crossguard.StackContext(production=True)),
    "dev": (_environ("dev"), crossguard.StackContext(production=False)),
    "no-pools": (_environ("prod", _drop_pools), None),
    "bad-name": (_environ("dev", _bad_name), None),
}


@pytest.fixture
def store(tmp_path, monkeypatch) -> stack_verdicts.Store:
    kept = stack_verdicts.Store(str(tmp_path / "stack-verdicts.marshal"))
    monkeypatch.setattr(stack_verdicts, "STORE_OF_PACK", kept)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return kept


def _read_without_store(environ: dict[str, str], monkeypatch) -> crossguard.StackContext:
    with monkeypatch.context() as m:
        m.setattr(stack_verdicts, "STORE_OF_PACK", stack_verdicts.Store("/nonexistent/stack-verdicts.marshal"))
        m.setattr(sys, "dont_write_bytecode", True)
        return crossguard.stack_context(environ)


def test_errors_of_invalid_configs_are_what_pydantic_says(monkeypatch):
    # the key twice: stack_context prefixes it to the InputError, which names the key as its file
    assert _read_without_store(CASES["no-pools"][0], monkeypatch) == crossguard.StackContext(
        error="shardwise:environment: shardwise:environment: pools: Tuple should have at least 1 item after "
              "validation, not 0")
    assert _read_without_store(CASES["bad-name"][0], monkeypatch) == crossguard.StackContext(
        error="shardwise:environment: shardwise:environment: name: String should match pattern "
              "'^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'")
    assert _read_without_store(CASES["prod"][0], monkeypatch) == CASES["prod"][1]
    assert _read_without_store(CASES["dev"][0], monkeypatch) == CASES["dev"][1]


def test_a_kept_verdict_is_what_reading_the_config_concludes(store, monkeypatch):
    expected = {name: _read_without_store(environ, monkeypatch) for name, (environ, _) in CASES.items()}
    assert not os.path.exists(store.path)
    first = {name: crossguard.stack_context(environ) for name, (environ, _) in CASES.items()}
    assert first == expected
    assert os.path.exists(store.path)
    again = stack_verdicts.Store(store.path)  # a later process reads the file
    monkeypatch.setattr(stack_verdicts, "STORE_OF_PACK", again)
    monkeypatch.setattr(crossguard, "_read_environment", _must_not_read)
    assert {name: crossguard.stack_context(environ) for name, (environ, _) in CASES.items()} == expected


def _must_not_read(key, value):
    raise AssertionError(f"{key} read again although its verdict is kept")


_CHILD = """
import json, sys
from shardwise.rules.app import crossguard, stack_verdicts
stack_verdicts.STORE_OF_PACK = stack_verdicts.Store(sys.argv[1])
ctx = crossguard.stack_context({"PULUMI_CONFIG": sys.argv[2]})
print(json.dumps([ctx.production, ctx.error, sorted(m for m in sys.modules if m.split(".")[0] == "pydantic")]))
"""


@pytest.mark.slow
def test_a_later_process_does_not_import_pydantic_for_a_kept_config(store):
    config = CASES["prod"][0]["PULUMI_CONFIG"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def child() -> list:
        out = subprocess.run([PYTHON, "-c", _CHILD, store.path, config], cwd=ROOT, env=env, capture_output=True,
                             text=True, check=True)
        return json.loads(out.stdout)

    first = child()
    assert first[:2] == [True, None] and "pydantic" in first[2]
    assert child() == [True, None, []]


def test_a_changed_file_of_the_package_or_release_drops_the_verdicts(tmp_path, monkeypatch):
    root = tmp_path / "rules"
    (root / "model").mkdir(parents=True)
    spec = root / "model" / "spec.py"
    spec.write_text("A = 1\n", encoding="utf-8")
    (root / "notes.txt").write_text("not source\n", encoding="utf-8")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = str(tmp_path / "store.marshal")
    key = stack_verdicts.digest("shardwise:environment", '{"name": "x"}')
    assert stack_verdicts.Store(path, str(root)).put(key, (True, None))
    assert stack_verdicts.Store(path, str(root)).get(key) == (True, None)
    (root / "notes.txt").write_text("still not source, longer\n", encoding="utf-8")  # not a source file
    assert stack_verdicts.Store(path, str(root)).get(key) == (True, None)
    spec.write_text("A = 22\n", encoding="utf-8")  # another size
    assert stack_verdicts.Store(path, str(root)).get(key) is None
    assert stack_verdicts.Store(path, str(root)).put(key, (False, None))
    os.utime(spec, ns=(1, 1))  # same size, another mtime
    assert stack_verdicts.Store(path, str(root)).get(key) is None
    assert stack_verdicts.Store(path, str(root)).put(key, (False, None))
    monkeypatch.setattr(sys, "hexversion", sys.hexversion + 1)
    assert stack_verdicts.Store(path, str(root)).get(key) is None


def test_nothing_is_written_when_bytecode_writing_is_off(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    kept = stack_verdicts.Store(str(tmp_path / "store.marshal"))
    assert not kept.put(stack_verdicts.digest("shardwise:environment", "{}"), (None, "x"))
    assert not (tmp_path / "store.marshal").exists()


def test_the_key_tells_a_json_string_from_the_value_and_keys_apart():
    value = {"name": "x", "production": True}
    digests = {
        stack_verdicts.digest("shardwise:environment", value),
        stack_verdicts.digest("shardwise:environment", json.dumps(value)),
        stack_verdicts.digest("other:environment", value),
        stack_verdicts.digest("shardwise:environment", {"production": True, "name": "x"}),  # order: other errors
    }
    assert len(digests) == 4 and None not in digests


def test_the_store_keeps_the_latest_configs_only(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = str(tmp_path / "store.marshal")
    keys = [stack_verdicts.digest("shardwise:environment", str(i)) for i in range(stack_verdicts.LIMIT + 3)]
    for k in keys:
        stack_verdicts.Store(path).put(k, (True, None))
    kept = stack_verdicts.Store(path)
    assert [kept.get(k) for k in keys] == [None] * 3 + [(True, None)] * stack_verdicts.LIMIT


def test_the_stamp_covers_the_spec_and_the_store_is_beside_the_bytecode():
    stamp = stack_verdicts.stamp()
    assert stamp is not None
    files = {f[0] for f in stamp[2]}
    assert {os.path.join("model", "spec.py"), os.path.join("adapters", "stack.py"),
            os.path.join("app", "crossguard.py")} <= files
    assert not any("__pycache__" in f for f in files)
    assert Path(stack_verdicts.STORE).parent == ROOT / "rules" / "__pycache__"
