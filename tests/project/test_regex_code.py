"""The compiled regular expressions kept between runs (rules/_regex_code.py): a run that finds them compiles
none of them, the patterns built from the store equal those ``re`` builds, patterns made from a run's input are
never stored, and a store from another Python release or a damaged file is ignored."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap

#: the probes import the rules modules from their sources: a module compiled by mypyc (make setup) compiles
#: its own patterns and named tuples at import, so the stores hold only the other modules' (both work alike)
_SOURCES = {**os.environ, "SHARDWISE_MYPYC": "0"}

_PROBE = textwrap.dedent("""
    import json, re, sys
    from shardwise.rules import _regex_code as r
    r._entries.clear(); r._used.clear(); r._state.update(hits=0, misses=0)
    held = r.load(sys.argv[1])
    re.purge()
    from shardwise.rules.vllm import args  # module constants: recorded, or found in the store
    LITERAL = re.compile(r"(?P<name>[a-z]+)-([0-9]+)$", re.IGNORECASE)  # a module body here too
    def from_input(text):
        return re.compile(re.escape(text) + "$")  # built from what a run reads: never stored
    from_input("user-glob*")
    def from_table(marker):
        return r.kept(re.escape(marker) + "(?![a-z])")  # built from shipped data: stored
    from_table("rocm")
    stored = {k: v for k, v in r._entries.items()}
    same = all(r._sre.compile(p, *r._unpacked(a)) == r._original(p, f) for (p, f), a in stored.items())
    out = {"held": held, "stats": r.stats(), "same": same,
           "input_stored": any(k[0] == re.escape("user-glob*") + "$" for k in stored),
           "table_stored": ("rocm(?![a-z])", 0) in stored,
           "literal": [LITERAL.pattern, LITERAL.flags, LITERAL.groups, dict(LITERAL.groupindex)],
           "match": LITERAL.match("Abc-12").groups()}
    if len(sys.argv) > 2:
        out["saved"] = r.save(sys.argv[1])
    print(json.dumps(out))
""")


def _probe(store, *extra):
    # a fresh interpreter with the store at `store`; -B so that nothing is written at exit
    proc = subprocess.run([sys.executable, "-B", "-c", _PROBE, str(store), *extra],
                          capture_output=True, text=True, check=True, env=_SOURCES)
    return json.loads(proc.stdout)


def test_a_run_that_finds_the_store_compiles_nothing_and_the_patterns_are_the_same(tmp_path):
    store = tmp_path / "regex-code.marshal"
    first = _probe(store, "save")
    assert first["held"] == 0 and first["saved"] is True
    assert first["stats"]["hits"] == 0 and first["stats"]["misses"] > 10
    assert first["same"] is True and first["input_stored"] is False and first["table_stored"] is True
    second = _probe(store)
    assert second["held"] == first["stats"]["entries"]
    assert second["stats"]["misses"] == 0 and second["stats"]["hits"] >= first["stats"]["misses"]
    assert second["same"] is True and second["input_stored"] is False
    assert second["literal"] == first["literal"] == ["(?P<name>[a-z]+)-([0-9]+)$", 34, 2, {"name": 1}]
    assert second["match"] == first["match"] == ["Abc", "12"]


def test_a_store_from_another_release_or_a_damaged_one_is_ignored(tmp_path):
    store = tmp_path / "regex-code.marshal"
    _probe(store, "save")
    entries = marshal.loads(store.read_bytes())[1]
    store.write_bytes(marshal.dumps(((sys.hexversion - 1, 2), entries)))
    assert _probe(store)["held"] == 0
    store.write_bytes(marshal.dumps((sys.hexversion, entries)))  # format 1: the code as a list of integers
    assert _probe(store)["held"] == 0
    store.write_bytes(b"\x00not marshal")
    out = _probe(store)
    assert out["held"] == 0 and out["stats"]["hits"] == 0 and out["same"] is True and out["match"] == ["Abc", "12"]


def test_setup_writes_only_what_todays_sources_make(tmp_path):
    store = tmp_path / "regex-code.marshal"
    _probe(store, "save")
    entries = marshal.loads(store.read_bytes())[1]
    stale = ("a pattern since changed", 0)
    entries[stale] = (32, (1).to_bytes(4, sys.byteorder), 0, {}, (None,))
    store.write_bytes(marshal.dumps(((sys.hexversion, 2), entries)))
    code = ("import shardwise.rules._regex_code as r; "
            f"r._entries.clear(); r._used.clear(); r.load({str(store)!r}); r.main({str(store)!r})")
    proc = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, check=True, env=_SOURCES)
    written = marshal.loads(store.read_bytes())[1]
    assert proc.stdout == f"regex code: {len(written)} patterns in {store}\n"
    assert stale not in written
    assert any(k[0].startswith("^(\\d+(?:\\.\\d+)?)") for k in written)  # vllm/args.py's constants are there


def test_importing_the_rules_leaves_the_collector_as_it_found_it():
    # the stores are read with the cyclic collector paused (rules/__init__.py); it is on again after, or still off
    code = ("import gc, sys\nif sys.argv[1] == 'off':\n    gc.disable()\nimport shardwise.rules\n"
            "print(gc.isenabled())\n")
    for state, expected in (("on", "True"), ("off", "False")):
        out = subprocess.run([sys.executable, "-c", code, state], capture_output=True, text=True, check=True, env=_SOURCES)
        assert out.stdout.strip() == expected, state


def test_the_body_of_a_module_compiled_by_mypyc_counts_as_a_module_body():
    # a compiled module runs its body as C: the frame above its re.compile (or its named tuple) is the import
    # system's _call_with_frames_removed, whose first argument is the spec (create_dynamic) or the module
    import importlib._bootstrap as bootstrap
    from importlib.machinery import ModuleSpec

    from shardwise.rules import _regex_code as r

    seen = []

    def body(what):
        seen.append(r.compiled_body(sys._getframe(1)))

    bootstrap._call_with_frames_removed(body, ModuleSpec("shardwise.rules.capacity.sizing", None))
    bootstrap._call_with_frames_removed(body, sys.modules["json"])
    bootstrap._call_with_frames_removed(body, "not a spec")
    assert seen == ["shardwise.rules.capacity.sizing", "json", ""]
    assert r.compiled_body(sys._getframe()) == ""  # a Python frame: its own code says


def test_the_compiled_modules_patterns_are_kept(tmp_path):
    # with the mypyc build in use (make setup), vllm/args.py's module constants are recorded as a source module's
    # are: they were compiled again at every start
    probe = ("import json, sys\nfrom shardwise.rules import _module_code as m\n"
             "print(json.dumps(bool(m._compiled) and all(m._compiled.values())))\n")
    compiled = json.loads(subprocess.run([sys.executable, "-B", "-c", probe], capture_output=True, text=True,
                                         check=True).stdout)
    if not compiled:
        import pytest

        pytest.skip("no current mypyc build (SHARDWISE_MYPYC=0 make setup, or sources edited since the build)")
    code = _PROBE.replace("print(json.dumps(out))", (
        "made = {v.pattern for v in vars(args).values() if isinstance(v, re.Pattern)}\n"
        "out['args'] = [len(made), len(made & {k[0] for k in stored})]\n"
        "out['args_module'] = type(args.__loader__).__name__\nprint(json.dumps(out))"))
    proc = subprocess.run([sys.executable, "-B", "-c", code, str(tmp_path / "store")], capture_output=True,
                          text=True, check=True)
    out = json.loads(proc.stdout)
    assert out["args_module"] == "ExtensionFileLoader" and out["same"] is True
    assert out["args"][0] > 10 and out["args"][1] == out["args"][0]
