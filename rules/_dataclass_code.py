"""The methods ``@dataclass`` writes for shardwise's classes, compiled once and kept between runs.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and, for frozen
classes, ``__setattr__``/``__delattr__`` as Python source and compiles it every time the class is defined.
Compiling is about nine tenths of what defining a dataclass costs, and a one-file lint defines about ninety
of them before it reads a byte: most of the start-up time above the interpreter's own.

The source ``dataclasses`` writes is a pure function of the class (its fields, options and the Python
release), so the compiled code can be kept like a ``.pyc``: in ``rules/__pycache__``, keyed by the exact
source text and the interpreter's version, and used only when both match. Nothing else changes: the methods
are made by the same ``exec`` from the same code, in the class's module, so behaviour, tracebacks
(``File "<string>"``) and reprs are those of plain ``dataclasses``.

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
from types import CodeType, FrameType, ModuleType
from typing import Any

from shardwise.rules._regex_code import dump_atomically


class _InspectOnUse(ModuleType):
    """What ``dataclasses`` binds as ``inspect`` when shardwise imports it first: the real module is imported on
    the first use of one of its names (``dataclasses`` asks it only for ``signature``, to write the docstring
    of a class that has none) and then stands in ``dataclasses`` for good. ``inspect`` imports ``ast``, ``dis``
    and ``tokenize``; a lint that never asks was paying for them at every start."""

    def __getattr__(self, name: str) -> Any:
        import inspect

        sys.modules["dataclasses"].inspect = inspect  # type: ignore[attr-defined]
        return getattr(inspect, name)


if "dataclasses" not in sys.modules and "inspect" not in sys.modules:
    _stand_in = sys.modules["inspect"] = _InspectOnUse("inspect")
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is _stand_in:
            del sys.modules["inspect"]  # any later `import inspect` imports the real one
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
#: the Python release and the store's format: 2 since its code is compiled without this module's __future__
#: flags (format 1 kept ``__init__`` annotations as strings)
_HEADER = (sys.hexversion, 2)
_builtin_compile = builtins.compile
_builtin_eval = builtins.eval
_EVAL = "<eval>\n"  # the key of an expression's code: dataclasses' texts start with "def "
_state = {"hits": 0, "misses": 0, "installed": False, "save_at_exit": False}


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` as ``dataclasses`` calls it: the source text of one class's methods, in its module's globals."""
    if type(source) is str and type(globals) is dict and str(globals.get("__name__", "")).startswith(_OWN):
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = _builtin_compile(source, "<string>", "exec", 0, True)
            _state["misses"] += 1
        else:
            _state["hits"] += 1
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
    return frame is not None and str(frame.f_globals.get("__name__", "")).startswith(_OWN)


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


def load(path: str = STORE) -> int:
    """Read the store at ``path`` into memory; how many entries it held (0 when absent, unreadable, or
    written by another Python release)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return 0
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == _HEADER and isinstance(data[1], dict)):
        return 0
    for text, code in data[1].items():
        if isinstance(text, str) and isinstance(code, CodeType):
            _codes.setdefault(text, code)
    return len(data[1])


def save(path: str = STORE) -> bool:
    """Write what is in memory to ``path`` (atomically: concurrent runs each leave a whole store)."""
    return dump_atomically(path, (_HEADER, dict(_codes)))


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
    typing = sys.modules.get("typing")
    if typing is not None and getattr(typing, "compile", builtins.compile) is builtins.compile:
        typing.compile = _typing_compile  # type: ignore[attr-defined]  # ForwardRef's compile, from its globals
    collections = sys.modules.get("collections")
    if collections is not None and getattr(collections, "eval", builtins.eval) is builtins.eval:
        collections.eval = _namedtuple_eval  # type: ignore[attr-defined]  # namedtuple's eval, from its globals
    atexit.register(_save_if_new)


def stats() -> dict[str, int]:
    """Entries held, and the classes' method sets found in the store or compiled in this process."""
    return {"entries": len(_codes), "hits": _state["hits"], "misses": _state["misses"]}


def main(path: str = STORE) -> int:
    """Import every module of shardwise's rules and write the store (``make setup``): only what today's sources
    make, so that entries of classes since changed do not pile up."""
    import importlib
    import pkgutil

    install()
    _codes.clear()
    for info in pkgutil.walk_packages([os.path.dirname(os.path.abspath(__file__))], "shardwise.rules."):
        if info.name.rsplit(".", 1)[-1] in {"__main__"}:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue  # an optional dependency absent (pulumi for the pack): its classes are compiled when used
    ok = save(path)
    print(f"dataclass code: {len(_codes)} method sets in {path}" if ok else
          f"dataclass code: could not write {path} (each run compiles them)")
    return 0
