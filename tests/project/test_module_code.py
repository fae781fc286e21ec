"""The rules modules' bytecode in one file (rules/_module_code.py): a module read from it is the module the import
system makes (same code, file, cached path, package path), a module whose source changed since the store was
written is imported as usual, and a store from another release or a damaged one is ignored."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_PROBE = textwrap.dedent("""
    import json, marshal, sys
    from shardwise.rules import _module_code as m
    # as a fresh process that finds the store at argv[1]: the one installed from rules/__pycache__ taken out first
    if m._StoredFinder in sys.meta_path:
        sys.meta_path.remove(m._StoredFinder)
    m._index.clear()
    m._state.update(installed=False, fd=None, hits=0, stale=0, rewrite=False)
    if sys.argv[2] == "build":
        m.build(sys.argv[1])
    if sys.argv[2] == "stale":
        rel, pkg, mtime, size, off, length = marshal.loads(open(sys.argv[1], "rb").read()[8:])[1][sys.argv[3]]
    held = m.install(sys.argv[1])
    if sys.argv[2] == "stale":
        m._index[sys.argv[3]] = (rel, pkg, mtime + 1, size, off, length)  # as if the source changed since
    import importlib.util
    names = sys.argv[3:]
    out = {"held": held, "modules": {}}
    for name in names:
        mod = importlib.import_module(name)
        spec = importlib.util.find_spec(name)
        plain = importlib.machinery.PathFinder.find_spec(name, sys.modules[name.rpartition(".")[0]].__path__)
        code = plain.loader.get_code(name)
        out["modules"][name] = {
            "file": mod.__file__ == plain.origin, "cached": mod.__cached__ == plain.cached,
            "path": getattr(mod, "__path__", None) == plain.submodule_search_locations,
            "code": mod.__spec__.loader.get_code(name) == code,
            "source": mod.__spec__.loader.get_source(name) == plain.loader.get_source(name),
            "stored": type(mod.__spec__.loader).__name__ == "_StoredLoader"}
    out["stats"] = m.stats()
    print(json.dumps(out))
""")

_NAMES = ("shardwise.rules.checks", "shardwise.rules.checks.sw101", "shardwise.rules.report.text")


def _probe(store, mode, *names):
    # a fresh interpreter; -B so that nothing is written at exit
    proc = subprocess.run([sys.executable, "-B", "-c", _PROBE, str(store), mode, *names],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_modules_read_from_the_store_are_those_the_import_system_makes(tmp_path):
    store = tmp_path / "module-code.bin"
    out = _probe(store, "build", *_NAMES)
    assert out["held"] is True and out["stats"]["hits"] >= len(_NAMES) and out["stats"]["stale"] == 0
    for name, seen in out["modules"].items():
        assert all(seen.values()), (name, seen)


def test_a_module_changed_since_the_store_was_written_is_imported_as_usual(tmp_path):
    store = tmp_path / "module-code.bin"
    _probe(store, "build")
    out = _probe(store, "stale", "shardwise.rules.checks.sw101")
    seen = out["modules"]["shardwise.rules.checks.sw101"]
    assert out["stats"]["stale"] == 1 and seen["stored"] is False
    assert seen["file"] and seen["cached"] and seen["code"]


def test_a_store_from_another_release_or_a_damaged_one_is_ignored(tmp_path):
    import marshal

    store = tmp_path / "module-code.bin"
    _probe(store, "build")
    data = store.read_bytes()
    length = int.from_bytes(data[:8], "little")
    header, index = marshal.loads(data[8:8 + length])
    other = marshal.dumps(((header[0] - 1, *header[1:]), index))
    store.write_bytes(len(other).to_bytes(8, "little") + other + data[8 + length:])
    out = _probe(store, "use", "shardwise.rules.checks.sw101")
    assert out["held"] is False and out["stats"]["hits"] == 0
    assert all(v for k, v in out["modules"]["shardwise.rules.checks.sw101"].items() if k != "stored")
    store.write_bytes(b"\x00not marshal")
    out = _probe(store, "use", "shardwise.rules.checks.sw101")
    assert out["held"] is False and out["stats"]["hits"] == 0
