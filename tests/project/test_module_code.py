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


def _manifest(path, entries, fmt=1, version=None):
    import marshal

    path.write_bytes(marshal.dumps((fmt, sys.hexversion if version is None else version, entries)))
    return str(path)


def _recorded(*modules):
    """{module: (size, mtime)} of the sources as they are, as scripts/mypyc_build.py records them."""
    import os

    from shardwise.rules import _module_code as m

    out = {}
    for name in modules:
        st = os.stat(os.path.join(os.path.dirname(m.__file__), *name.split(".")[2:]) + ".py")
        out[name] = (st.st_size & 0xFFFFFFFF, int(st.st_mtime) & 0xFFFFFFFF)
    return out


_COMPILED = ("shardwise.rules.capacity.layout", "shardwise.rules.vllm.kv_layout")


def test_modules_compiled_by_mypyc_are_left_to_their_extension_only_while_every_source_is_as_built(tmp_path,
                                                                                                   monkeypatch):
    """scripts/build-mypyc.sh's manifest: while each compiled module's source has the size and modification time
    recorded at the build, the finder answers None for them (the path finder imports the extension beside the
    source first); one source changed retires every module of the build (they call each other in C), and each is
    then imported from its source, as is every module with ``SHARDWISE_MYPYC=0``, a manifest of another Python
    release or a damaged one."""
    from shardwise.rules import _module_code as m

    monkeypatch.delenv("SHARDWISE_MYPYC", raising=False)
    recorded = _recorded(*_COMPILED)

    def answers(manifest):
        monkeypatch.setattr(m, "_compiled", {})
        m._read_compiled(manifest)
        specs = {name: m._StoredFinder.find_spec(name) for name in _COMPILED}
        return dict(m._compiled), specs

    compiled, specs = answers(_manifest(tmp_path / "current", recorded))
    assert compiled == dict.fromkeys(_COMPILED, True)
    assert specs == dict.fromkeys(_COMPILED, None)

    changed = dict(recorded)
    size, mtime = changed[_COMPILED[1]]
    changed[_COMPILED[1]] = (size, mtime + 1)  # kv_layout.py edited since the build
    for manifest, env in ((_manifest(tmp_path / "changed", changed), None),
                          (_manifest(tmp_path / "other-python", recorded, version=sys.hexversion + 1), None),
                          (_manifest(tmp_path / "off", recorded), "0")):
        if env is not None:
            monkeypatch.setenv("SHARDWISE_MYPYC", env)
        compiled, specs = answers(manifest)
        assert compiled == dict.fromkeys(_COMPILED, False), manifest
        for name, spec in specs.items():
            assert spec is not None and spec.origin.endswith(name.split(".")[-1] + ".py"), (manifest, spec)
            assert type(spec.loader).__name__ in ("_StoredLoader", "SourceFileLoader")
    monkeypatch.delenv("SHARDWISE_MYPYC")

    (tmp_path / "damaged").write_bytes(b"\x00garbage")
    compiled, specs = answers(str(tmp_path / "damaged"))
    assert compiled == {}
    assert answers(str(tmp_path / "missing"))[0] == {}


def test_a_retired_compiled_module_not_in_the_store_is_imported_from_its_source(tmp_path, monkeypatch):
    """Retired and without a store entry (the store missing, or its entry stale): the spec of the ``.py``, not None,
    which would let the path finder import the stale extension."""
    from shardwise.rules import _module_code as m

    monkeypatch.setattr(m, "_compiled", {_COMPILED[0]: False})
    monkeypatch.setattr(m, "_index", {})
    spec = m._StoredFinder.find_spec(_COMPILED[0])
    assert spec is not None and type(spec.loader).__name__ == "SourceFileLoader"
    assert spec.origin.endswith("/capacity/layout.py") and spec.has_location
    assert m._StoredFinder.find_spec("shardwise.rules.capacity.sizing") is None  # neither compiled nor stored
