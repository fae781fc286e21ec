"""The methods ``@dataclass`` writes for shardwise's classes, compiled once and kept between runs (finished, on 3.11).

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and, for frozen
classes, ``__setattr__``/``__delattr__`` as Python source and compiles it every time the class is defined.
Compiling is about nine tenths of what defining a dataclass costs, and a one-file lint defines about ninety
of them before it reads a byte: most of the start-up time above the interpreter's own.

The source ``dataclasses`` writes is a pure function of the class (its fields, options and the Python
release), so the compiled code can be kept like a ``.pyc``: in ``rules/__pycache__``, keyed by the exact
source text and the interpreter's version, and used only when both match. Where the finished methods (below)
are not kept, nothing else changes: the methods are made by the same ``exec`` from the same code, in the
class's module, so behaviour, tracebacks (``File "<string>"``) and reprs are those of plain ``dataclasses``.

Defining a dataclass also asks, for each string annotation, whether it names ``ClassVar``, ``InitVar`` or
``KW_ONLY`` (``dataclasses._is_type``): a regular expression splits the text into an optional module name and
a name, which are then looked up in the class's module. That split is a pure function of the text and a lint
asks it about 2,100 times for about 120 texts, a third of what defining the classes cost; :func:`_is_type`
keeps the split of each text for the process and does the lookups as ``dataclasses`` does, so the answers are
the same (on the releases whose ``_is_type`` it repeats, 3.11 to 3.13).

``typing.NamedTuple`` classes compile too: each string annotation becomes a ``ForwardRef``, which compiles the
text as an expression, and ``collections.namedtuple`` compiles the ``__new__`` it writes with ``eval``. Those
are kept in the same store (under ``<eval>`` and the text) for the classes of shardwise's modules, and made
with the same ``compile`` arguments and flags as ``typing`` and ``collections`` use (neither module has a
``__future__`` import), so the ``ForwardRef`` and ``__new__`` are those of a plain run.

The methods themselves are kept too, so that defining a class makes them without writing or ``exec``-ing
any text. On 3.11, whose code-making functions this module knows (``_init_fn``, ``_repr_fn``, ``_cmp_fn``,
``_frozen_get_del_attr``, ``_hash_fn``), each is stood in for by one that looks its method up, per module, under
the exact inputs that decide the text ``dataclasses`` would write (field names and kinds, which fields have a
default or a factory, ``init``/``kw_only``, the class's options, ``__post_init__``, the name of ``self``): the
entry holds the code of the method that text compiles to, where each of the values ``__create_fn__`` would
pass it comes from (a field's type, default or factory, the class, a constant of ``dataclasses``) and which of
them are its defaults, keyword defaults, annotations and closure. The function made from them is the one
``exec`` would have made (same code, globals, closure, defaults, annotations, names);
``_process_class`` itself still runs as written (fields, checks, ``__match_args__``, hash action, slots), with
its ``_get_field`` stood in for by :func:`_get_field` (the two questions about a string annotation answered from
one split and one look-up each, not two ``_is_type`` and four predicate calls). An
input not found (a class changed since, another package's class) goes the usual way, and its method is
recorded for the store; a parameter whose value cannot be named so is never stored. Each module's methods are
unmarshalled the first time one of its classes is defined.

Only classes of shardwise's own modules use the store; every other module's dataclasses are compiled as
usual. The store is written at exit when a run compiled something it did not hold, unless bytecode writing
is off (``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder is read-only; ``make setup`` writes it
(``python -c "from shardwise.rules._dataclass_code import main; main()"``).
"""

# no ``from __future__ import annotations`` here: ``exec``, ``eval`` and ``compile`` called from this module
# would pass its flags on to the code they make (``__init__`` annotations as strings)

import atexit
import builtins
import marshal
import os
import sys
from types import CellType, CodeType, FrameType, FunctionType, MemberDescriptorType, ModuleType
from typing import Any

from shardwise.rules._regex_code import compiled_body, dump_atomically


class _OnUse(ModuleType):
    """What ``dataclasses`` binds as one of the modules it imports but a lint never uses, when shardwise imports it
    first: the real module is imported on the first use of one of its names and then stands in ``dataclasses``
    for good. ``inspect`` (asked only for ``signature``, to write the docstring of a class that has none) imports
    ``ast``, ``dis`` and ``tokenize``; ``copy`` (asked only for ``deepcopy`` by ``asdict`` and ``astuple``)
    imports ``weakref`` and looks for Jython's ``org.python.core`` along the whole path. A lint that never asks
    was paying for them at every start."""

    def __getattr__(self, name: str) -> Any:
        module = __import__(self.__name__)
        setattr(sys.modules["dataclasses"], self.__name__, module)
        return getattr(module, name)


#: the modules dataclasses imports that a lint does not use (the others it imports are the interpreter's own)
_DEFERRED = ("inspect", "copy")
if "dataclasses" not in sys.modules:
    _stand_ins = {name: _OnUse(name) for name in _DEFERRED if name not in sys.modules}
    sys.modules.update(_stand_ins)
    try:
        import dataclasses
    finally:
        for _name, _stand_in in _stand_ins.items():
            if sys.modules.get(_name) is _stand_in:
                del sys.modules[_name]  # any later `import inspect` or `import copy` imports the real one
else:
    import dataclasses

#: the folder of rules/'s bytecode, where the store sits beside the .pyc files
STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                     f"dataclass-code.{sys.implementation.cache_tag}.marshal")
_OWN = "shardwise."
_builtin_exec = builtins.exec
_original_is_type = getattr(dataclasses, "_is_type", None)
_identifier_re = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
#: the releases whose ``dataclasses._is_type`` is the function :func:`_is_type` repeats
_IS_TYPE_SUPPORTED = (sys.version_info[:2] in {(3, 11), (3, 12), (3, 13)} and _original_is_type is not None
                      and getattr(_identifier_re, "pattern", None) == r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")
#: annotation text -> (module name or None, name), or None where the expression does not match
_splits: dict[str, tuple[str | None, str] | None] = {}

_codes: dict[str, CodeType] = {}
#: module name -> {inputs of one code-making call: ((the method's code, ((parameter, source), ...), defaults,
#: keyword defaults, annotations, closure), ...)}: the last four name the ``__create_fn__`` parameter of each value
_methods: dict[str, dict[tuple[Any, ...], tuple[tuple[Any, ...], ...]]] = {}
#: module name -> its methods as the store holds them (marshalled), until a class of the module is defined
_packed: dict[str, bytes] = {}
#: the Python release and the store's format: 2 since its code is compiled without this module's __future__
#: flags (format 1 kept ``__init__`` annotations as strings), 4 since it holds each module's finished methods
_HEADER = (sys.hexversion, 4)
_builtin_compile = builtins.compile
_builtin_eval = builtins.eval
_EVAL = "<eval>\n"  # the key of an expression's code: dataclasses' texts start with "def "
_state: dict[str, Any] = {"hits": 0, "misses": 0, "installed": False, "save_at_exit": False, "made": 0,
                          "log": None, "last": None}


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` as ``dataclasses`` calls it: the source text of one class's methods, in its module's globals."""
    if type(source) is str and type(globals) is dict and str(globals.get("__name__", "")).startswith(_OWN):
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = _builtin_compile(source, "<string>", "exec", 0, True)
            _state["misses"] += 1
        else:
            _state["hits"] += 1
        _state["last"] = (source, code)
        source = code
    elif type(source) is str:  # compiled without this module's flags, as in dataclasses (which has none)
        source = _builtin_compile(source, "<string>", "exec", 0, True)
    _builtin_exec(source, globals, locals)


def _is_type(annotation: str, cls: type, a_module: Any, a_type: Any, is_type_predicate: Any) -> bool:
    """``dataclasses._is_type`` (does a string annotation name ``a_type`` of ``a_module``?) with the split of the
    text by ``_MODULE_IDENTIFIER_RE`` kept per text; the module look-ups are made each time, as there."""
    try:
        split = _splits[annotation]
    except KeyError:
        match = _identifier_re.match(annotation)  # type: ignore[union-attr]
        split = _splits[annotation] = (match.group(1), match.group(2)) if match else None
    if split is None:
        return False
    module_name, name = split
    ns = None
    if not module_name:
        ns = sys.modules.get(cls.__module__).__dict__  # type: ignore[union-attr]  # as dataclasses has it
    else:
        module = sys.modules.get(cls.__module__)
        if module and module.__dict__.get(module_name) is a_module:
            ns = sys.modules.get(a_type.__module__).__dict__  # type: ignore[union-attr]
    return bool(ns and is_type_predicate(ns.get(name), a_module))


_MAKERS = frozenset({"typing", "collections", __name__})


def _from_own_module(frame: FrameType | None) -> bool:
    """Whether the code that defines the named tuple (the first frame above ``typing``'s, ``collections``' and
    this module's own) runs in a shardwise module."""
    while frame is not None and frame.f_globals.get("__name__") in _MAKERS:
        frame = frame.f_back
    return frame is not None and (str(frame.f_globals.get("__name__", "")).startswith(_OWN)
                                  or compiled_body(frame).startswith(_OWN))  # a body compiled by mypyc


def _expression(source: str) -> CodeType:
    """``source`` compiled as ``typing`` and ``collections`` compile it (``'<string>'``, ``'eval'``, no
    inherited flags: neither has a ``__future__`` import); kept in the store when a shardwise module asked."""
    key = _EVAL + source
    code = _codes.get(key)
    if code is not None:
        _state["hits"] += 1
        return code
    code = _builtin_compile(source, "<string>", "eval", 0, True)
    if _from_own_module(sys._getframe(2)):
        _codes[key] = code
        _state["misses"] += 1
    return code


def _typing_compile(source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
    """``compile`` as ``typing.ForwardRef`` calls it: an annotation's text, as an expression."""
    if args or kwargs or type(source) is not str or filename != "<string>" or mode != "eval":
        return _builtin_compile(source, filename, mode, *args, **kwargs)
    return _expression(source)


def _namedtuple_eval(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
    """``eval`` as ``collections.namedtuple`` calls it: the ``__new__`` lambda, in the namespace it made."""
    if type(source) is not str or type(globals) is not dict:
        if globals is None:
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        return _builtin_eval(source, globals, locals)
    return _builtin_eval(_expression(source), globals, locals)


# ----------------------------------------------------------------------------------- the finished methods (3.11)

#: the code-making functions of ``dataclasses`` whose inputs and texts this module knows (3.11's)
_MAKERS_311 = ("_create_fn", "_init_fn", "_repr_fn", "_cmp_fn", "_frozen_get_del_attr", "_hash_fn",
               "_recursive_repr")
_REPLAY_SUPPORTED = sys.version_info[:2] == (3, 11) and all(
    isinstance(getattr(dataclasses, n, None), FunctionType) for n in _MAKERS_311)
_originals: dict[str, Any] = {n: getattr(dataclasses, n, None) for n in _MAKERS_311}
_original_get_field = getattr(dataclasses, "_get_field", None)
_MISSING = getattr(dataclasses, "MISSING", None)
#: the parameters of ``__create_fn__`` that are constants of ``dataclasses`` (``_return_type`` is None: only
#: ``__init__`` has one)
_CONSTANTS: dict[str, Any] = {"MISSING": _MISSING,
                              "_HAS_DEFAULT_FACTORY": getattr(dataclasses, "_HAS_DEFAULT_FACTORY", None),
                              "__dataclass_builtins_object__": object,
                              "FrozenInstanceError": getattr(dataclasses, "FrozenInstanceError", None),
                              "_return_type": None}


def _own_module(globals: Any) -> str | None:
    """The name of the shardwise module whose globals these are, else None."""
    name = globals.get("__name__") if type(globals) is dict else None
    return name if type(name) is str and name.startswith(_OWN) else None


def _table(module: str) -> dict[tuple[Any, ...], Any]:
    """The methods kept for ``module`` (unmarshalled on first use)."""
    table = _methods.get(module)
    if table is None:
        table = {}
        packed = _packed.pop(module, None)
        if packed is not None:
            try:
                loaded = marshal.loads(packed)
            except (EOFError, ValueError, TypeError):
                loaded = None
            if isinstance(loaded, dict):
                table = loaded
        _methods[module] = table
    return table


def _source(name: str, value: Any, fields: Any, cls: Any) -> tuple[Any, ...] | None:
    """Where a parameter of ``__create_fn__`` takes its value from, named so that the same source gives it for
    the next class with these inputs; None when it cannot be named (the method is then not kept)."""
    for i, f in enumerate(fields):
        if name == f"_type_{f.name}" and value is f.type:
            return ("type", i)
        if name == f"_dflt_{f.name}":
            if f.default_factory is not _MISSING and value is f.default_factory:
                return ("factory", i)
            if f.default_factory is _MISSING and value is f.default:
                return ("default", i)
            return None
    if name in _CONSTANTS and value is _CONSTANTS[name]:
        return ("constant", name)
    if name == "cls" and cls is not None and value is cls:
        return ("cls",)
    return None


def _value(source: tuple[Any, ...], fields: Any, cls: Any) -> Any:
    kind = source[0]
    if kind == "type":
        return fields[source[1]].type
    if kind == "default":
        return fields[source[1]].default
    if kind == "factory":
        return fields[source[1]].default_factory
    if kind == "constant":
        return _CONSTANTS[source[1]]
    return cls


def _made(key: tuple[Any, ...], globals: Any, fields: Any, cls: Any) -> list[Any] | None:
    """The functions kept under ``key`` for the module of ``globals``, made from their code as ``__create_fn__``
    makes them (the same defaults, keyword defaults, annotations and closure; no text, no compile, no exec);
    None when not kept."""
    module = _own_module(globals)
    if module is None:
        return None
    entry = _table(module).get(key)
    if entry is None:
        return None
    made = []
    for code, sources, defaults, kwdefaults, annotations, closure in entry:
        values = {name: _value(src, fields, cls) for name, src in sources}
        fn = FunctionType(code, globals, None, tuple([values[n] for n in defaults]) if defaults else None,
                          tuple([CellType(values[n]) for n in closure]) if closure else None)
        if kwdefaults:
            fn.__kwdefaults__ = {param: values[n] for param, n in kwdefaults}
        if annotations:
            fn.__annotations__ = {param: values[n] for param, n in annotations}
        made.append(fn)
    _state["hits"] += len(made)
    _state["made"] += len(made)
    return made


class _Marker:
    """A value of ``__create_fn__``'s parameter ``name``, to see where the function it makes keeps it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _layout(create: CodeType, globals: dict[str, Any], names: Any) -> tuple[Any, ...] | None:
    """The function ``create`` (a ``__create_fn__``) makes, as its code and the parameter that gives each of its
    defaults, keyword defaults, annotations and closure cells (found by calling it with a marker for each);
    None when one of them is not a parameter's value as given."""
    fn = FunctionType(create, globals)(**{name: _Marker(name) for name in names})
    if not isinstance(fn, FunctionType) or fn.__dict__:
        return None

    def named(value: Any) -> str | None:
        return value.name if type(value) is _Marker else None

    defaults = tuple(named(v) for v in fn.__defaults__ or ())
    kwdefaults = tuple((k, named(v)) for k, v in (fn.__kwdefaults__ or {}).items())
    annotations = tuple((k, named(v)) for k, v in fn.__annotations__.items())
    closure = tuple(named(c.cell_contents) for c in fn.__closure__ or ())
    if (None in defaults or None in closure or any(n is None for _, n in kwdefaults)
            or any(n is None for _, n in annotations) or len(closure) != len(fn.__code__.co_freevars)):
        return None
    return fn.__code__, defaults, kwdefaults, annotations, closure


def _create_fn(name: str, args: Any, body: Any, *, globals: Any = None, locals: Any = None,
               return_type: Any = _MISSING) -> Any:
    """``dataclasses._create_fn``, noting for the call being recorded the ``__create_fn__`` code and its
    parameters."""
    if locals is None:
        locals = {}
    _state["last"] = None
    fn = _originals["_create_fn"](name, args, body, globals=globals, locals=locals, return_type=return_type)
    log = _state["log"]
    if log is not None:
        last = _state["last"]
        log.append((last, dict(locals)))  # locals as _create_fn left it (with _return_type)
    return fn


def _recorded(key: tuple[Any, ...], globals: Any, fields: Any, cls: Any, maker: str, *args: Any) -> Any:
    """The original ``maker(*args)``; for a shardwise module, its methods kept under ``key`` when each parameter's
    value can be named."""
    module = _own_module(globals)
    if module is None:
        return _originals[maker](*args)
    outer = _state["log"]
    log: list[tuple[tuple[str, CodeType] | None, dict[str, Any]]] = []
    _state["log"] = log
    try:
        result = _originals[maker](*args)
    finally:
        _state["log"] = outer
    entry = []
    texts = []
    for last, locals in log:
        if last is None:
            return result
        create = next((c for c in last[1].co_consts if isinstance(c, CodeType) and c.co_name == "__create_fn__"),
                      None)
        sources = tuple((name, _source(name, value, fields, cls)) for name, value in locals.items())
        if create is None or any(src is None for _, src in sources):
            return result
        layout = _layout(create, globals, locals)
        if layout is None:
            return result
        entry.append((layout[0], sources, *layout[1:]))
        texts.append(last[0])
    if entry:
        _table(module)[key] = tuple(entry)
        for text in texts:
            _codes.pop(text, None)  # the text is not needed again: the finished method is kept
    return result


def _field_key(f: Any) -> tuple[Any, ...]:
    return (f.name, f._field_type.name, bool(f.init), bool(f.kw_only), f.default is _MISSING,
            f.default_factory is _MISSING)


def _init_fn(fields: Any, std_fields: Any, kw_only_fields: Any, frozen: Any, has_post_init: Any, self_name: Any,
             globals: Any, slots: Any) -> Any:
    """``dataclasses._init_fn``: the ``__init__`` kept for these inputs, else the original's (recorded)."""
    key = ("__init__", bool(frozen), bool(has_post_init), self_name, bool(slots),
           tuple([_field_key(f) for f in fields]), tuple([f.name for f in std_fields]),
           tuple([f.name for f in kw_only_fields]))
    made = _made(key, globals, fields, None)
    if made is not None:
        return made[0]
    return _recorded(key, globals, fields, None, "_init_fn", fields, std_fields, kw_only_fields, frozen,
                     has_post_init, self_name, globals, slots)


def _repr_fn(fields: Any, globals: Any) -> Any:
    """``dataclasses._repr_fn``: the ``__repr__`` kept for these fields, wrapped as there."""
    key = ("__repr__", tuple([f.name for f in fields]))
    made = _made(key, globals, fields, None)
    if made is not None:
        return _originals["_recursive_repr"](made[0])
    return _recorded(key, globals, fields, None, "_repr_fn", fields, globals)


def _cmp_fn(name: Any, op: Any, self_tuple: Any, other_tuple: Any, globals: Any) -> Any:
    """``dataclasses._cmp_fn``: ``__eq__`` or an ordering method kept for these inputs."""
    key = ("cmp", name, op, self_tuple, other_tuple)
    made = _made(key, globals, (), None)
    if made is not None:
        return made[0]
    return _recorded(key, globals, (), None, "_cmp_fn", name, op, self_tuple, other_tuple, globals)


def _frozen_get_del_attr(cls: Any, fields: Any, globals: Any) -> Any:
    """``dataclasses._frozen_get_del_attr``: the ``__setattr__`` and ``__delattr__`` kept for these fields."""
    key = ("frozen", tuple([f.name for f in fields]))
    made = _made(key, globals, fields, cls)
    if made is not None:
        return tuple(made)
    return _recorded(key, globals, fields, cls, "_frozen_get_del_attr", cls, fields, globals)


def _hash_fn(fields: Any, globals: Any) -> Any:
    """``dataclasses._hash_fn``: the ``__hash__`` kept for these fields."""
    key = ("__hash__", tuple([f.name for f in fields]))
    made = _made(key, globals, fields, None)
    if made is not None:
        return made[0]
    return _recorded(key, globals, fields, None, "_hash_fn", fields, globals)


_Field: Any = getattr(dataclasses, "Field", None)
_FIELD: Any = getattr(dataclasses, "_FIELD", None)
_FIELD_CLASSVAR: Any = getattr(dataclasses, "_FIELD_CLASSVAR", None)
_FIELD_INITVAR: Any = getattr(dataclasses, "_FIELD_INITVAR", None)
_InitVar: Any = getattr(dataclasses, "InitVar", None)
_GET_FIELD_SUPPORTED = (_REPLAY_SUPPORTED and _IS_TYPE_SUPPORTED
                        and isinstance(getattr(dataclasses, "_get_field", None), FunctionType))


def _get_field(cls: Any, a_name: str, a_type: Any, default_kw_only: Any) -> Any:
    """``dataclasses._get_field`` of 3.11 (the ``Field`` of one annotation of the class), with the two questions
    it asks of a string annotation (does it name ``ClassVar``? ``InitVar``?) answered from one split of the text
    (kept per text, as :func:`_is_type` keeps it) and one look-up in each module, instead of a call of
    ``_is_type`` and of a predicate for each. The same answers, the same checks, the same errors."""
    default = getattr(cls, a_name, _MISSING)
    if isinstance(default, _Field):
        f = default
    else:
        if isinstance(default, MemberDescriptorType):
            default = _MISSING  # a field in __slots__: no default
        f = _Field(default, _MISSING, True, True, None, True, None, _MISSING)  # what field(default=default) makes
    f.name = a_name
    f.type = a_type
    kind = _FIELD
    typing: Any = sys.modules.get("typing")
    if isinstance(a_type, str):
        # neither _is_classvar nor _is_initvar holds of a str itself: only its text can name them
        try:
            split = _splits[a_type]
        except KeyError:
            match = _identifier_re.match(a_type)  # type: ignore[union-attr]
            split = _splits[a_type] = (match.group(1), match.group(2)) if match else None
        if split is not None:
            module_name, name = split
            class_ns: Any
            initvar_ns: Any
            modules: Any = sys.modules
            if not module_name:
                class_ns = initvar_ns = modules.get(cls.__module__).__dict__  # as dataclasses has it
            else:
                module = modules.get(cls.__module__)
                named = module.__dict__.get(module_name) if module else None
                class_ns = (modules.get(typing.ClassVar.__module__).__dict__  # type: ignore[union-attr]
                            if typing and module and named is typing else None)
                initvar_ns = modules.get(_InitVar.__module__).__dict__ if module and named is dataclasses else None
            found: Any
            if typing and class_ns:
                found = class_ns.get(name)
                if found is typing.ClassVar or (type(found) is typing._GenericAlias
                                                and found.__origin__ is typing.ClassVar):
                    kind = _FIELD_CLASSVAR
            if kind is _FIELD and initvar_ns:
                found = initvar_ns.get(name)
                if found is _InitVar or type(found) is _InitVar:
                    kind = _FIELD_INITVAR
    else:
        if typing and dataclasses._is_classvar(a_type, typing):  # type: ignore[attr-defined]
            kind = _FIELD_CLASSVAR
        elif dataclasses._is_initvar(a_type, dataclasses):  # type: ignore[attr-defined]
            kind = _FIELD_INITVAR
    f._field_type = kind
    if kind is _FIELD_CLASSVAR or kind is _FIELD_INITVAR:
        if f.default_factory is not _MISSING:
            raise TypeError(f"field {f.name} cannot have a default factory")
    if kind is _FIELD or kind is _FIELD_INITVAR:
        if f.kw_only is _MISSING:
            f.kw_only = default_kw_only
    elif f.kw_only is not _MISSING:
        raise TypeError(f"field {f.name} is a ClassVar but specifies kw_only")
    if kind is _FIELD and f.default.__class__.__hash__ is None:
        raise ValueError(f"mutable default {type(f.default)} for field {f.name} is not allowed: use "
                         "default_factory")
    return f


_STAND_INS = {"_create_fn": _create_fn, "_init_fn": _init_fn, "_repr_fn": _repr_fn, "_cmp_fn": _cmp_fn,
              "_frozen_get_del_attr": _frozen_get_del_attr, "_hash_fn": _hash_fn}


def load(path: str = STORE) -> int:
    """Read the store at ``path`` into memory; how many entries it held (compiled texts and modules whose methods it
    keeps; 0 when absent, unreadable, or written by another Python release or format)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return 0
    if not (isinstance(data, tuple) and len(data) == 3 and data[0] == _HEADER and isinstance(data[1], dict)
            and isinstance(data[2], dict)):
        return 0
    for text, code in data[1].items():
        if isinstance(text, str) and isinstance(code, CodeType):
            _codes.setdefault(text, code)
    for module, packed in data[2].items():
        if isinstance(module, str) and isinstance(packed, bytes) and module not in _methods:
            _packed.setdefault(module, packed)
    return len(data[1]) + len(data[2])


def save(path: str = STORE) -> bool:
    """Write what is in memory to ``path`` (atomically: concurrent runs each leave a whole store)."""
    methods = dict(_packed)
    methods.update((module, marshal.dumps(table)) for module, table in _methods.items() if table)
    return dump_atomically(path, (_HEADER, dict(_codes), methods))


def _save_if_new() -> None:
    if _state["misses"] and not sys.dont_write_bytecode:
        save()


def install() -> None:
    """Use the store for the classes shardwise defines from now on (once per process)."""
    if _state["installed"]:
        return
    _state["installed"] = True
    if getattr(dataclasses, "exec", builtins.exec) is not builtins.exec:
        return  # someone else already stands in for exec there: leave dataclasses as it is
    load()
    if _IS_TYPE_SUPPORTED and getattr(dataclasses, "_is_type", None) is _original_is_type:
        dataclasses._is_type = _is_type  # type: ignore[attr-defined]  # looked up in dataclasses' globals
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # dataclasses looks exec up in its own globals first
    if _REPLAY_SUPPORTED and all(getattr(dataclasses, n) is _originals[n] for n in _STAND_INS):
        for name, stand_in in _STAND_INS.items():
            setattr(dataclasses, name, stand_in)  # looked up in dataclasses' globals by _process_class
    if _GET_FIELD_SUPPORTED and getattr(dataclasses, "_get_field", None) is _original_get_field:
        dataclasses._get_field = _get_field  # type: ignore[attr-defined]
    typing = sys.modules.get("typing")
    if typing is not None and getattr(typing, "compile", builtins.compile) is builtins.compile:
        typing.compile = _typing_compile  # type: ignore[attr-defined]  # ForwardRef's compile, from its globals
    collections = sys.modules.get("collections")
    if collections is not None and getattr(collections, "eval", builtins.eval) is builtins.eval:
        collections.eval = _namedtuple_eval  # type: ignore[attr-defined]  # namedtuple's eval, from its globals
    atexit.register(_save_if_new)


def stats() -> dict[str, int]:
    """Entries held (compiled texts, and method sets of the modules whose methods were read or made), the methods
    found in the store or compiled in this process, and those of them made from kept methods (no exec)."""
    return {"entries": len(_codes) + sum(len(t) for t in _methods.values()), "hits": _state["hits"],
            "misses": _state["misses"], "made": _state["made"]}


def main(path: str = STORE) -> int:
    """Import every module of shardwise's rules and write the store (``make setup``): only what today's sources
    make, so that entries of classes since changed do not pile up."""
    import importlib
    import pkgutil

    install()
    _codes.clear()
    _packed.clear()
    for table in _methods.values():
        table.clear()
    for info in pkgutil.walk_packages([os.path.dirname(os.path.abspath(__file__))], "shardwise.rules."):
        if info.name.rsplit(".", 1)[-1] in {"__main__"}:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue  # an optional dependency absent (pulumi for the pack): its classes are compiled when used
    ok = save(path)
    print(f"dataclass code: {stats()['entries']} method sets in {path}" if ok else
          f"dataclass code: could not write {path} (each run compiles them)")
    return 0
