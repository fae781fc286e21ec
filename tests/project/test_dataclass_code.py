"""The compiled dataclass methods kept between runs (rules/_dataclass_code.py): a run that finds them compiles
none, the classes behave exactly as plain dataclasses, other packages' classes never use the store, and a store
from another Python release or a damaged file is ignored."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap

from shardwise.rules import _dataclass_code as d

#: the probes import the rules modules from their sources: a module compiled by mypyc (make setup) compiles
#: its own patterns and named tuples at import, so the stores hold only the other modules' (both work alike)
_SOURCES = {**os.environ, "SHARDWISE_MYPYC": "0"}

_PROBE = textwrap.dedent("""
    import json, sys
    from shardwise.rules import _dataclass_code as d
    d._codes.clear(); d._packed.clear(); d._methods.clear()
    held = d.load(sys.argv[1])
    from shardwise.rules.model.inventory import Taint, Toleration
    import dataclasses
    @dataclasses.dataclass(frozen=True)
    class Elsewhere:  # __main__'s own class: never looked up in the store
        a: int = 1
    loc = Toleration("gpu", "Exists")  # (Location is a compiled class of its own since lintspeed19, no dataclass)
    out = {"held": held, "stats": d.stats(), "repr": repr(loc), "eq": loc == Toleration("gpu", "Exists"),
           "hash": hash(loc) == hash(Toleration("gpu", "Exists")), "other": repr(Elsewhere()),
           "annotations": repr(Taint.__init__.__annotations__)}
    try:
        loc.key = "other"
    except dataclasses.FrozenInstanceError:
        out["frozen"] = True
    if len(sys.argv) > 2:
        out["saved"] = d.save(sys.argv[1])
    print(json.dumps(out))
""")


def _probe(store, *extra):
    # a fresh interpreter with the store at `store`; -B so that nothing is written at exit
    proc = subprocess.run([sys.executable, "-B", "-c", _PROBE, str(store), *extra],
                          capture_output=True, text=True, check=True, env=_SOURCES)
    return json.loads(proc.stdout)


def test_a_run_that_finds_the_store_compiles_nothing_and_the_classes_behave_the_same(tmp_path):
    store = tmp_path / "dataclass-code.marshal"
    first = _probe(store, "save")
    assert first["held"] == 0 and first["saved"] is True
    assert first["stats"]["misses"] > 0
    second = _probe(store)
    assert second["held"] > 0
    # every method written in the first run is made from the store in the second: nothing compiled
    assert second["stats"]["misses"] == 0
    assert second["stats"]["hits"] == first["stats"]["misses"] + first["stats"]["hits"]
    if d._REPLAY_SUPPORTED:  # and without exec: made from the kept __create_fn__ code
        assert second["stats"]["made"] == second["stats"]["hits"]
    for key in ("repr", "eq", "hash", "frozen", "other", "annotations"):
        assert second[key] == first[key]
    # the field types as the class has them (strings: rules/ uses __future__ annotations), not '_type_key'
    assert second["annotations"] == "{'key': 'Any', 'value': 'Any', 'effect': 'Any', 'return': None}"
    assert second["eq"] is True and second["hash"] is True and second["frozen"] is True
    assert second["other"] == "Elsewhere(a=1)"


def test_a_store_from_another_release_or_a_damaged_one_is_ignored(tmp_path):
    store = tmp_path / "dataclass-code.marshal"
    _probe(store, "save")
    header, codes, methods = marshal.loads(store.read_bytes())
    assert header == (sys.hexversion, 4)
    store.write_bytes(marshal.dumps(((sys.hexversion - 1, 4), codes, methods)))
    assert _probe(store)["held"] == 0
    store.write_bytes(marshal.dumps(((sys.hexversion, 3), codes, methods)))  # format 3: __create_fn__ code
    assert _probe(store)["held"] == 0
    store.write_bytes(marshal.dumps(((sys.hexversion, 2), codes)))  # format 2: texts only
    assert _probe(store)["held"] == 0
    store.write_bytes(marshal.dumps((sys.hexversion, codes)))  # format 1: its code kept __future__ flags
    assert _probe(store)["held"] == 0
    store.write_bytes(b"\x00not marshal")
    out = _probe(store)
    assert out["held"] == 0 and out["stats"]["hits"] == 0 and out["repr"] == "Toleration(key='gpu', operator='Exists', value=None, effect=None)"
    # one module's methods damaged: that module's classes are compiled as usual, and are the same
    store.write_bytes(marshal.dumps(((sys.hexversion, 4), codes,
                                     {**methods, "shardwise.rules.model.inventory": b"\x00not marshal"})))
    out = _probe(store)
    assert out["stats"]["misses"] > 0 and out["repr"] == "Toleration(key='gpu', operator='Exists', value=None, effect=None)"


def test_setup_writes_only_what_todays_sources_make(tmp_path):
    store = tmp_path / "dataclass-code.marshal"
    _probe(store, "save")
    header, codes, methods = marshal.loads(store.read_bytes())
    stale = "def __create_fn__():\n def __init__(self):\n  pass\n return __init__"  # a class since changed
    codes[stale] = compile(stale, "<string>", "exec")
    gone = "shardwise.rules.model.gone"  # a module since removed
    methods[gone] = marshal.dumps({("__repr__", ("a",)): ()})
    store.write_bytes(marshal.dumps((header, codes, methods)))
    proc = subprocess.run([sys.executable, "-B", "-c", "from shardwise.rules._dataclass_code import main; "
                           f"main({str(store)!r})"], capture_output=True, text=True, check=True, env=_SOURCES)
    _, written, kept = marshal.loads(store.read_bytes())
    entries = len(written) + sum(len(marshal.loads(packed)) for packed in kept.values())
    assert proc.stdout == f"dataclass code: {entries} method sets in {store}\n"
    assert stale not in written and gone not in kept
    assert set(methods) - {gone} <= set(kept)  # Toleration's methods and the rest are still there
    assert all(k.startswith(d._EVAL) for k in written) == d._REPLAY_SUPPORTED  # texts only for named tuples


def test_is_type_answers_as_dataclasses_does():
    # the split of each annotation text is kept; the look-ups in the class's module are made every time
    import dataclasses
    import types
    import typing

    from shardwise.rules import _dataclass_code as d

    if not d._IS_TYPE_SUPPORTED:
        return
    assert dataclasses._is_type is d._is_type  # installed with the store when shardwise.rules is imported
    mod = types.ModuleType("shardwise_probe_is_type")
    mod.ClassVar = typing.ClassVar
    mod.InitVar = dataclasses.InitVar
    mod.typing, mod.dataclasses, mod.t = typing, dataclasses, typing
    mod.KW_ONLY = dataclasses.KW_ONLY
    cls = type("C", (), {"__module__": mod.__name__})
    sys.modules[mod.__name__] = mod
    try:
        texts = ["ClassVar[int]", "typing.ClassVar[int]", " t . ClassVar", "InitVar[str]", "dataclasses.InitVar",
                 "KW_ONLY", "dataclasses.KW_ONLY", "str", "int | None", "tuple[str, ...]", "'ClassVar'", "",
                 "os.ClassVar[int]", "Optional[ClassVar[int]]", "ClassVarX"]
        checks = [(typing, typing.ClassVar, dataclasses._is_classvar),
                  (dataclasses, dataclasses.InitVar, dataclasses._is_initvar),
                  (dataclasses, dataclasses.KW_ONLY, dataclasses._is_kw_only)]
        answers = []
        for _ in range(2):  # the second round from the kept splits
            for text in texts:
                for a_module, a_type, pred in checks:
                    want = d._original_is_type(text, cls, a_module, a_type, pred)
                    assert d._is_type(text, cls, a_module, a_type, pred) is want, (text, a_type)
                    answers.append(want)
        assert answers.count(True) == 2 * 7
        del mod.ClassVar  # a module that no longer has the name: the kept split is looked up again
        assert d._is_type("ClassVar[int]", cls, typing, typing.ClassVar, dataclasses._is_classvar) is False
    finally:
        del sys.modules[mod.__name__]


_NT_PROBE = textwrap.dedent("""
    import json, sys, typing, collections
    from shardwise.rules import _dataclass_code as d
    d._codes.clear()
    held = d.load(sys.argv[1])
    from shardwise.rules.capacity import sizing
    class Elsewhere(typing.NamedTuple):  # __main__'s own: compiled, never stored
        a: "int"
        b: "str" = "x"
    Plain = collections.namedtuple("Plain", "p q")
    kept = sorted(k for k in d._codes if k.startswith(d._EVAL))
    stage = sizing._Stage
    out = {"held": held, "stats": d.stats(), "kept": kept, "fields": list(stage._fields),
           "annotations": {k: repr(v) for k, v in stage.__annotations__.items()},
           "new": stage.__new__.__name__ + stage.__new__.__doc__, "new_file": stage.__new__.__code__.co_filename,
           "elsewhere": repr(Elsewhere(1)), "elsewhere_ann": repr(Elsewhere.__annotations__),
           "plain": repr(Plain(1, 2)),
           "forward": typing.get_type_hints(Elsewhere) == {"a": int, "b": str}}
    if len(sys.argv) > 2:
        out["saved"] = d.save(sys.argv[1])
    print(json.dumps(out))
""")


def test_named_tuples_of_shardwise_compile_nothing_from_the_store_and_are_the_same(tmp_path):
    # typing.NamedTuple compiles each string annotation (ForwardRef) and namedtuple's __new__: kept for
    # shardwise's modules only, and the classes made from the kept code are those of a plain run
    store = tmp_path / "dataclass-code.marshal"

    def probe(*extra):
        proc = subprocess.run([sys.executable, "-B", "-c", _NT_PROBE, str(store), *extra],
                              capture_output=True, text=True, check=True, env=_SOURCES)
        return json.loads(proc.stdout)

    first = probe("save")
    second = probe()
    assert first["kept"] == second["kept"]
    assert any(k.startswith("<eval>\nlambda _cls, ") for k in first["kept"])
    assert "<eval>\nint" in first["kept"] or "<eval>\nfloat" in first["kept"]
    assert not any("_cls, a, b:" in k or "_cls, p, q:" in k for k in first["kept"])  # __main__'s are not kept
    assert second["stats"]["misses"] == 0
    for key in ("fields", "annotations", "new", "new_file", "elsewhere", "elsewhere_ann", "plain", "forward"):
        assert second[key] == first[key], key
    assert second["new_file"] == "<string>" and second["forward"] is True
    assert second["elsewhere"] == "Elsewhere(a=1, b='x')" and second["plain"] == "Plain(p=1, q=2)"
    assert all(v.startswith("ForwardRef(") for v in second["annotations"].values())


def test_dataclasses_imports_inspect_and_copy_only_when_it_asks_for_them():
    # a lint never asks dataclasses for a signature or a deep copy: inspect (ast, dis, tokenize) and copy (weakref,
    # Jython's org.python.core looked for along the path) are not imported; a class without a docstring still gets
    # the one dataclasses writes from inspect.signature, and asdict still copies what it does not know
    code = textwrap.dedent("""
        import json, sys
        import shardwise.rules
        import dataclasses
        before = sorted(m for m in ("inspect", "ast", "dis", "tokenize", "copy") if m in sys.modules)
        @dataclasses.dataclass(frozen=True)
        class NoDoc:
            a: int = 1
            b: "list[str]" = dataclasses.field(default_factory=list)
        real = sys.modules.get("inspect")
        inner = {"k": [1, 2]}
        @dataclasses.dataclass
        class Holder:
            \"\"\"holds a value asdict deep-copies\"\"\"
            v: object
        copied = dataclasses.asdict(Holder(frozenset({3})))
        print(json.dumps({"before": before, "doc": NoDoc.__doc__, "real": type(real).__name__,
                          "same": dataclasses.inspect is real, "signature": str(real.signature(NoDoc)),
                          "copy": dataclasses.copy is sys.modules.get("copy") and type(dataclasses.copy).__name__,
                          "copied": repr(copied), "deep": dataclasses.astuple(Holder(inner))[0] is not inner}))
    """)
    proc = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, check=True, env=_SOURCES)
    out = json.loads(proc.stdout)
    assert out == {"before": [], "doc": "NoDoc(a: int = 1, b: 'list[str]' = <factory>)", "real": "module",
                   "same": True, "signature": "(a: int = 1, b: 'list[str]' = <factory>) -> None", "copy": "module",
                   "copied": "{'v': frozenset({3})}", "deep": True}
