"""The finished methods of shardwise's dataclasses, kept in the dataclass store (rules/_dataclass_code.py): every
dataclass of the package made from the store is the class plain ``dataclasses`` makes (same fields, options and
methods: code, closure, defaults, annotations, names), and classes of every shape behave the same (init, repr, eq,
hash, order, frozen, slots, kw_only, InitVar, ClassVar, factories, inheritance)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from shardwise.rules import _dataclass_code

pytestmark = pytest.mark.skipif(not _dataclass_code._REPLAY_SUPPORTED,
                                reason="the methods are kept only on the release whose dataclasses is known (3.11)")

_DESCRIBE = textwrap.dedent('''
    import dataclasses, re, types

    _ADDRESS = re.compile(r" at 0x[0-9a-f]+")

    def value(v, cls):
        if v is cls:
            return "<the class>"
        if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType)):
            return f"{getattr(v, '__module__', '?')}.{v.__qualname__}"
        return _ADDRESS.sub("", repr(v))

    def code(c):
        return {"bytes": c.co_code.hex(), "names": c.co_names, "varnames": c.co_varnames, "freevars": c.co_freevars,
                "cellvars": c.co_cellvars, "args": [c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount],
                "flags": c.co_flags, "file": c.co_filename, "name": c.co_name, "qualname": c.co_qualname,
                "line": c.co_firstlineno, "lines": c.co_linetable.hex(), "exceptions": c.co_exceptiontable.hex(),
                "consts": [code(k) if isinstance(k, types.CodeType) else repr(k) for k in c.co_consts]}

    def function(fn, cls):
        if not isinstance(fn, types.FunctionType):
            return value(fn, cls)
        return {"name": fn.__name__, "qualname": fn.__qualname__, "module": fn.__module__, "doc": fn.__doc__,
                "globals": fn.__globals__.get("__name__"), "defaults": [value(v, cls) for v in fn.__defaults__ or ()],
                "kwdefaults": {k: value(v, cls) for k, v in (fn.__kwdefaults__ or {}).items()},
                "annotations": {k: value(v, cls) for k, v in fn.__annotations__.items()}, "code": code(fn.__code__),
                "closure": [function(c.cell_contents, cls) if isinstance(c.cell_contents, types.FunctionType)
                            else value(c.cell_contents, cls) for c in fn.__closure__ or ()],
                "wrapped": function(fn.__wrapped__, cls) if hasattr(fn, "__wrapped__") else None}

    METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__setattr__",
               "__delattr__", "__getstate__", "__setstate__", "__match_args__", "__slots__", "__doc__", "__weakref__")

    def describe(cls):
        fields = [[f.name, value(f.type, cls), value(f.default, cls), value(f.default_factory, cls), f.init, f.repr,
                   f.hash, f.compare, value(f.metadata, cls), value(f.kw_only, cls), f._field_type.name]
                  for f in cls.__dataclass_fields__.values()]
        return {"params": repr(cls.__dataclass_params__), "fields": fields, "mro": [value(b, cls) for b in cls.__mro__],
                "methods": {m: function(cls.__dict__[m], cls) for m in METHODS if m in cls.__dict__},
                "own": sorted(cls.__dict__)}
''')

_EVERY = _DESCRIBE + textwrap.dedent('''
    import importlib, json, os, pkgutil, sys
    plain = sys.argv[1] == "plain"
    if plain:  # dataclasses as it is: rules/_dataclass_code.py leaves it alone when exec is already stood in for
        import builtins
        dataclasses.exec = lambda *a: builtins.exec(*a)
    import shardwise.rules
    from shardwise.rules import _dataclass_code as d
    if not plain:
        d._codes.clear(); d._packed.clear(); d._methods.clear()
        d.load(sys.argv[2])
    root = os.path.dirname(shardwise.rules.__file__)
    for info in pkgutil.walk_packages([root], "shardwise.rules."):
        if not info.name.endswith("__main__"):
            try:
                importlib.import_module(info.name)
            except ImportError:
                pass
    classes, seen = {}, set()
    def walk(ns, module):
        for obj in list(ns.values()):
            if isinstance(obj, type) and obj.__module__ == module and id(obj) not in seen:
                seen.add(id(obj))
                if dataclasses.is_dataclass(obj):
                    classes[f"{module}:{obj.__qualname__}"] = describe(obj)
                walk(vars(obj), module)
    for name, module in sorted(sys.modules.items()):
        if name.startswith("shardwise.") and module is not None:
            walk(vars(module), name)
    def file(fn):
        return (fn["wrapped"] or fn)["code"]["file"] if isinstance(fn, dict) else None
    written = sum(1 for described in classes.values() for fn in described["methods"].values() if file(fn) == "<string>")
    # a class's own __init__, __repr__ or __eq__: dataclasses writes its method all the same, and does not set it
    own = sum(1 for described in classes.values() for m in ("__init__", "__repr__", "__eq__")
              if m in described["methods"] and file(described["methods"][m]) not in (None, "<string>"))
    print(json.dumps({"classes": classes, "stats": d.stats(), "replaced": d._init_fn is dataclasses._init_fn,
                      "written": written + own}))
''')


def _run(*args):
    proc = subprocess.run([sys.executable, "-B", "-c", *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_dataclass_made_from_the_store_is_the_one_dataclasses_makes(tmp_path):
    store = tmp_path / "dataclass-code.marshal"
    subprocess.run([sys.executable, "-B", "-c", "from shardwise.rules._dataclass_code import main; "
                    f"main({str(store)!r})"], capture_output=True, text=True, check=True)
    plain = _run(_EVERY, "plain")
    kept = _run(_EVERY, "kept", str(store))
    assert plain["replaced"] is False and kept["replaced"] is True
    assert kept["stats"]["misses"] == 0  # nothing compiled: every method came from the store
    # every method dataclasses writes (its code's file is "<string>") of every class was made from the store
    assert kept["stats"]["made"] == kept["written"] == plain["written"] > 3 * len(kept["classes"])
    assert len(plain["classes"]) >= 100  # every dataclass of the package, nested ones included
    assert sorted(kept["classes"]) == sorted(plain["classes"])
    for name, described in plain["classes"].items():
        assert kept["classes"][name] == described, name


_SHAPES = textwrap.dedent('''
    from __future__ import annotations
    import dataclasses
    from dataclasses import InitVar, KW_ONLY, dataclass, field
    from typing import ClassVar

    @dataclass
    class Plain:
        """plain"""
        a: int
        b: str = "x"
        c: list[int] = field(default_factory=list)
        d: int = field(default=3, repr=False, compare=False)
        e: ClassVar[int] = 7

    @dataclass(frozen=True, order=True)
    class Ordered:
        """frozen, ordered"""
        a: int
        b: tuple[int, ...] = ()
        c: str = field(default="k", hash=False)

    @dataclass(frozen=True)
    class Child(Ordered):
        """frozen child"""
        d: float = 1.5

    @dataclass(unsafe_hash=True)
    class Hashed:
        """unsafe_hash"""
        a: int
        b: dict = field(default_factory=dict, hash=False, compare=False)

    @dataclass(eq=False)
    class NoEq:
        """eq=False"""
        a: int = 0

    @dataclass
    class Post:
        """InitVar and __post_init__"""
        a: int
        scale: InitVar[int] = 2
        b: int = field(init=False, default=0)
        c: list = field(init=False, default_factory=list)
        def __post_init__(self, scale):
            self.b = self.a * scale

    @dataclass(kw_only=True)
    class Keywords:
        """kw_only"""
        a: int
        b: int = 1

    @dataclass
    class Marker:
        """KW_ONLY marker"""
        a: int
        _: KW_ONLY
        b: int = 2

    @dataclass
    class SelfField:
        """a field named self"""
        self: int
        other: int = 0

    @dataclass(frozen=True, slots=True)
    class Slotted:
        """frozen, slots"""
        a: int
        b: str = "s"

    @dataclass(slots=True)
    class SlottedInit:
        """slots, a field with a default not in __init__"""
        a: int
        b: int = field(init=False, default=5)

    @dataclass(frozen=True)
    class Empty:
        """no fields"""

    @dataclass
    class Explicit:
        """its own __repr__ and __eq__"""
        a: int
        def __repr__(self):
            return "own"
        def __eq__(self, other):
            return True
''')

_BEHAVE = _DESCRIBE + textwrap.dedent('''
    import copy, inspect, json, pickle, sys, types
    import shardwise.rules
    from shardwise.rules import _dataclass_code as d

    def module(name):
        m = types.ModuleType(name)
        sys.modules[name] = m
        exec(compile(sys.argv[1], name, "exec"), m.__dict__)
        return m

    def attempt(f):
        try:
            return ["ok", repr(f())]
        except Exception as e:
            return [type(e).__name__, str(e)]

    def behaviour(m):
        out = {}
        def probe(name, *args, **kw):
            cls = getattr(m, name)
            x, y = cls(*args, **kw), cls(*args, **kw)
            out[name] = {"repr": repr(x), "eq": x == y, "ne": x != y, "hash": attempt(lambda: hash(x) == hash(y)),
                         "lt": attempt(lambda: x < y), "ge": attempt(lambda: x >= y),
                         "set": attempt(lambda: setattr(x, "a", 9)), "del": attempt(lambda: delattr(x, "a")),
                         "after": attempt(lambda: repr(x)), "sig": str(inspect.signature(cls)), "match": getattr(cls, "__match_args__", None),
                         "copy": attempt(lambda: copy.deepcopy(y) == y), "hashable": cls.__hash__ is not None}
        probe("Plain", 1); probe("Ordered", 1, (2,)); probe("Child", 1, d=2.5); probe("Hashed", 3)
        probe("NoEq"); probe("Post", 4, 3); probe("Keywords", a=1); probe("Marker", 1, b=3); probe("SelfField", 1, 2)
        probe("Slotted", 1); probe("SlottedInit", 1); probe("Empty"); probe("Explicit", 1)
        out["order"] = [m.Ordered(1, (2,)) < m.Ordered(1, (3,)), m.Ordered(2) > m.Ordered(1, (9,)), m.Child(1) == m.Ordered(1)]
        out["mixed"] = attempt(lambda: m.Ordered(1) < m.Child(1))
        out["pickle"] = attempt(lambda: pickle.loads(pickle.dumps(m.Slotted(1))) == m.Slotted(1))
        out["errors"] = [attempt(lambda: m.Plain()), attempt(lambda: m.Keywords(1)), attempt(lambda: m.Ordered(1, 2, 3, 4))]
        out["slots"] = [m.Slotted.__slots__, m.SlottedInit.__slots__, hasattr(m.Slotted(1), "__dict__")]
        return out

    def shapes(m):
        return {n: describe(c) for n, c in vars(m).items()
                if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == m.__name__}

    def strip(described, name):  # the module's own name differs between the three; nothing else may
        return json.loads(json.dumps(described).replace(name, "<module>"))

    before = d.stats()["made"]
    first = module("shardwise._probe_shapes_first")    # compiled, and its methods kept
    first_shapes = strip(shapes(first), first.__name__)  # before behaviour (copy and pickle cache __slotnames__)
    first_behaviour = behaviour(first)  # before the second takes its name in sys.modules (pickle looks it up)
    recorded = d.stats()
    second = module("shardwise._probe_shapes_first")   # the same module again: made from what was kept
    made = d.stats()["made"] - recorded["made"]
    plain = module("probe_shapes_plain")               # not shardwise's: dataclasses as it is
    described = [first_shapes] + [strip(shapes(m), m.__name__) for m in (second, plain)]
    print(json.dumps({"made": made, "misses": d.stats()["misses"] - recorded["misses"], "first_made": recorded["made"] - before,
                      "shapes": described,
                      "behaviour": [first_behaviour, behaviour(second), behaviour(plain)]}))
''')


def test_classes_of_every_shape_made_from_kept_methods_behave_as_plain_ones():
    out = _run(_BEHAVE, _SHAPES)
    # the second definition made every method from the kept ones (compiled nothing): 13 __init__ and 13 __repr__
    # (Explicit's too: dataclasses writes them and then keeps the class's own), 12 __eq__ (not NoEq's), Ordered's
    # 4 ordering methods, the 4 frozen classes' __setattr__ and __delattr__, 5 __hash__ (the frozen ones, Hashed)
    assert out["misses"] == 0
    assert out["made"] == 13 + 13 + 12 + 4 + 2 * 4 + 5
    first, second, plain = out["shapes"]
    assert second == first
    assert second == plain
    assert out["behaviour"][1] == out["behaviour"][0] == out["behaviour"][2]
    b = out["behaviour"][1]
    assert b["Slotted"]["set"] == ["FrozenInstanceError", "cannot assign to field 'a'"]
    assert b["Post"]["repr"] == "Post(a=4, b=12, c=[])"
    assert b["order"] == [True, True, False] and b["mixed"][0] == "TypeError" and b["pickle"] == ["ok", "True"]
    assert b["Hashed"]["hash"] == ["ok", "True"] and b["Plain"]["hash"][0] == "TypeError"
    assert b["Keywords"]["sig"] == "(*, a: 'int', b: 'int' = 1) -> None"


def test_get_field_answers_as_dataclasses_does():
    # the Field of each annotation (kind, kw_only, default) and the errors, against dataclasses' own _get_field,
    # for annotations as text (with and without a module name, names that are not ClassVar/InitVar, texts the
    # split does not match) and as objects, with every kind of default
    import dataclasses
    import types
    import typing

    d = _dataclass_code
    if not d._GET_FIELD_SUPPORTED:
        pytest.skip("dataclasses' _get_field is stood in for on 3.11 only")
    assert dataclasses._get_field is d._get_field  # installed when shardwise.rules is imported
    mod = types.ModuleType("shardwise_probe_get_field")
    mod.ClassVar, mod.InitVar, mod.KW_ONLY = typing.ClassVar, dataclasses.InitVar, dataclasses.KW_ONLY
    mod.typing, mod.t, mod.dataclasses, mod.dc, mod.os = typing, typing, dataclasses, dataclasses, sys
    mod.CV, mod.IV = typing.ClassVar[int], dataclasses.InitVar(int)  # aliases: a ClassVar[...] and an InitVar(...)
    sys.modules[mod.__name__] = mod
    annotations = ["int", "ClassVar[int]", "typing.ClassVar[int]", " t . ClassVar", "ClassVar", "InitVar[int]",
                   "dataclasses.InitVar[str]", "dc.InitVar", "InitVar", "os.ClassVar[int]", "typing.InitVar",
                   "dataclasses.ClassVar", "Optional[ClassVar[int]]", "ClassVarX", "", "'ClassVar'", "list[int]",
                   "CV", "IV", "IV[int]", "t.CV",
                   int, typing.ClassVar[int], typing.ClassVar, dataclasses.InitVar[int], dataclasses.InitVar,
                   list[int], None]
    defaults = [lambda: "absent", lambda: 1, lambda: None, lambda: [], lambda: {}, lambda: (1,),
                lambda: dataclasses.field(default=2), lambda: dataclasses.field(default_factory=list),
                lambda: dataclasses.field(kw_only=True), lambda: dataclasses.field(kw_only=False, default=3),
                lambda: dataclasses.field(repr=False, hash=False, compare=False, init=False, metadata={"a": 1}),
                lambda: "slot"]

    def outcome(get_field, annotation, make_default, kw_only):
        default = make_default()
        ns = {"__module__": mod.__name__}
        if default == "slot":
            ns["__slots__"] = ("x",)
        elif default != "absent":
            ns["x"] = default
        cls = type("C", (), ns)
        try:
            f = get_field(cls, "x", annotation, kw_only)
        except Exception as e:  # the errors must be the same too
            return (type(e).__name__, str(e))
        return (f.name, repr(f.type), repr(f.default), repr(f.default_factory), f.init, f.repr, f.hash, f.compare,
                dict(f.metadata), repr(f.kw_only), f._field_type.name, f is default)

    try:
        seen = set()
        for annotation in annotations:
            for make_default in defaults:
                for kw_only in (False, True):
                    want = outcome(d._original_get_field, annotation, make_default, kw_only)
                    assert outcome(d._get_field, annotation, make_default, kw_only) == want, (annotation, want)
                    seen.add(want[-2] if len(want) > 2 else want[0])
        assert seen == {"_FIELD", "_FIELD_CLASSVAR", "_FIELD_INITVAR", "TypeError", "ValueError"}
        del mod.ClassVar  # a module that no longer has the name: the kept split is looked up again
        assert outcome(d._get_field, "ClassVar[int]", lambda: 1, False)[-2] == "_FIELD"
    finally:
        del sys.modules[mod.__name__]
