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

Only classes of shardwise's own modules use the store; every other module's dataclasses are compiled as
usual. The store is written at exit when a run compiled something it did not hold, unless bytecode writing
is off (``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder is read-only; ``make setup`` writes it
(``python -c "from shardwise.rules._dataclass_code import main; main()"``).
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any

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
_state = {"hits": 0, "misses": 0, "installed": False, "save_at_exit": False}


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` as ``dataclasses`` calls it: the source text of one class's methods, in its module's globals."""
    if type(source) is str and type(globals) is dict and str(globals.get("__name__", "")).startswith(_OWN):
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = compile(source, "<string>", "exec")
            _state["misses"] += 1
        else:
            _state["hits"] += 1
        source = code
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


def load(path: str = STORE) -> int:
    """Read the store at ``path`` into memory; how many entries it held (0 when absent, unreadable, or
    written by another Python release)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return 0
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == sys.hexversion and isinstance(data[1], dict)):
        return 0
    for text, code in data[1].items():
        if isinstance(text, str) and isinstance(code, CodeType):
            _codes.setdefault(text, code)
    return len(data[1])


def save(path: str = STORE) -> bool:
    """Write what is in memory to ``path`` (atomically: concurrent runs each leave a whole store)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(marshal.dumps((sys.hexversion, dict(_codes))))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


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
