"""Compiled regular expressions kept between runs, as ``.pyc`` files keep compiled modules.

``re`` parses and compiles every pattern in Python the first time a process uses it: a one-file lint compiles
about ninety (shardwise's module constants, the standard library's json, argparse and glob), 7 to 9 ms of CPU.
What the compiler hands ``_sre.compile`` (the final flags, the code as a list of integers, the groups and
their names) is a pure function of the pattern text, its flags and the Python release, so it is kept in
``rules/__pycache__`` keyed by those, and a later run builds the pattern object from it with ``_sre.compile``
directly. Patterns built so are equal (``==`` compares the code) to those ``re`` builds: an entry is recorded
only after checking that, and a store written by another Python release is ignored. Each pattern's code is kept as
the bytes of its 32-bit words and made a list only when the pattern is used: a one-file lint uses about 70 of the
store's 300 patterns, and unmarshalling every code list as Python integers was 3M instructions of its start.

Only patterns written in the source are kept: those compiled in a module or class body, written as a
literal in the function that compiles them, or built from shipped data and compiled with :func:`kept` (the
accelerator table's image markers). Patterns a run builds from its input (globs, configuration keys) are
compiled as usual and never stored, so the store does not grow with what users lint. The store is written
at exit when a run compiled a storable pattern it did not hold, unless bytecode writing is off
(``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder is read-only; ``make setup`` writes it.
"""

from __future__ import annotations

import _sre
import atexit
import marshal
import os
import re
import sys
from types import FrameType
from typing import Any

#: beside the .pyc files of rules/
STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                     f"regex-code.{sys.implementation.cache_tag}.marshal")

_compiler = getattr(re, "_compiler", None)
_parser = getattr(re, "_parser", None)
_original = getattr(_compiler, "compile", None)
#: the releases whose ``re._compiler.compile`` is the three steps :func:`_build` repeats
_SUPPORTED = sys.version_info[:2] in {(3, 11), (3, 12), (3, 13)} and _original is not None

#: (pattern, flags) -> the arguments of ``_sre.compile`` after the pattern, the code as bytes (:func:`_packed`)
_entries: dict[tuple[str | bytes, int], tuple[object, ...]] = {}
#: the Python release and the store's format: 2 since the code is kept as bytes (format 1: a list of integers)
_HEADER = (sys.hexversion, 2)
_used: set[tuple[str | bytes, int]] = set()  # the keys this process found or recorded
_state = {"hits": 0, "misses": 0, "installed": False, "vouched": False}
_RE_MODULES = frozenset({"re", "re._compiler", "re._parser", "sre_compile"})
#: the frozen import system's module, as a frame's globals name it
_IMPORT_SYSTEM = frozenset({"importlib._bootstrap", "_frozen_importlib"})
_OWN = "shardwise."  # the modules whose compiled bodies' patterns are kept


def _build(pattern: str | bytes, flags: int) -> tuple[object, ...]:
    """What ``re._compiler.compile`` passes ``_sre.compile`` after the pattern (3.11 to 3.13)."""
    assert _parser is not None and _compiler is not None
    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # plain ints (the opcodes are an int subclass)
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return int(flags | parsed.state.flags), code, parsed.state.groups - 1, dict(groupindex), tuple(indexgroup)


def _packed(args: tuple[object, ...]) -> tuple[object, ...]:
    """:func:`_build`'s arguments as the store keeps them: the code words (SRE_CODE, 32 bits) as native bytes."""
    final, code, *rest = args
    return (final, b"".join(word.to_bytes(4, sys.byteorder) for word in code), *rest)  # type: ignore[attr-defined]


def _unpacked(args: tuple[object, ...]) -> tuple[object, ...]:
    """What ``_sre.compile`` takes after the pattern, from a stored entry (a fresh list and dict each time)."""
    final, code, groups, groupindex, indexgroup = args
    return final, memoryview(code).cast("I").tolist(), groups, dict(groupindex), indexgroup  # type: ignore


def kept(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile``, and the pattern may be stored although the caller built it: only for patterns made from
    shipped data (a table of the package), never from what a run reads."""
    _state["vouched"] = True
    try:
        return re.compile(pattern, flags)
    finally:
        _state["vouched"] = False


def _written_in_source(pattern: str | bytes) -> bool:
    """Whether the code that asked ``re`` for ``pattern`` has it in its source (a module or class body, or a
    literal of the calling function), or vouched for it with :func:`kept`."""
    if _state["vouched"]:
        return True
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in _RE_MODULES:
        frame = frame.f_back
    if frame is None:
        return False
    code = frame.f_code
    return code.co_name == "<module>" or pattern in code.co_consts or compiled_body(frame).startswith(_OWN)


def compiled_body(frame: FrameType) -> str:
    """The module whose body the import system runs in ``frame`` where that body has no frame of its own (a module
    compiled by mypyc, scripts/build-mypyc.sh, runs its body as C: the call above its ``re.compile`` or its named
    tuple is the import system's), else "". What such a body compiles is a module constant as a source module's
    ``<module>`` is; without this the compiled modules compiled their 46 patterns again at every start."""
    if frame.f_code.co_name != "_call_with_frames_removed" or frame.f_globals.get("__name__") not in _IMPORT_SYSTEM:
        return ""
    args = frame.f_locals.get("args")
    first = args[0] if isinstance(args, tuple) and args else None
    name = getattr(first, "name", None) or getattr(first, "__name__", None)  # a spec (create_dynamic) or a module
    return name if isinstance(name, str) else ""


def _compile(pattern: str | bytes, flags: int = 0) -> re.Pattern[str] | re.Pattern[bytes]:
    """``re._compiler.compile`` with the store in front of it."""
    kind = type(pattern)
    if kind is str or kind is bytes:
        args = _entries.get((pattern, flags))
        if args is not None:
            _state["hits"] += 1
            _used.add((pattern, flags))
            return _sre.compile(pattern, *_unpacked(args))  # type: ignore[no-any-return]
    compiled = _original(pattern, flags)  # type: ignore[misc]
    if (kind is str or kind is bytes) and not flags & re.DEBUG and _written_in_source(pattern):
        try:
            built = _build(pattern, flags)
            same = _sre.compile(pattern, *built) == compiled
        except Exception:  # noqa: BLE001 - a release whose internals differ: nothing is stored
            same = False
        if same:
            _entries[(pattern, flags)] = _packed(built)
            _used.add((pattern, flags))
            _state["misses"] += 1
    return compiled


def load(path: str = STORE) -> int:
    """Read the store at ``path``; how many entries it held (0 when absent, unreadable, or of another release)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return 0
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == _HEADER and isinstance(data[1], dict)):
        return 0
    for key, args in data[1].items():
        if isinstance(key, tuple) and isinstance(args, tuple) and len(args) == 5 and type(args[1]) is bytes:
            _entries.setdefault(key, args)
    return len(data[1])


def dump_atomically(path: str, data: Any) -> bool:
    """Write ``data`` marshalled to ``path`` through a temporary file of this process, so that concurrent runs each
    leave a whole file; False (and nothing left behind) when the folder is not writable or ``data`` not marshallable.
    The stores beside the bytecode (this one, the dataclass code, the catalog's indexes) all write through it."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(marshal.dumps(data))
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def save(path: str = STORE) -> bool:
    """Write what is in memory to ``path`` (atomically: concurrent runs each leave a whole store)."""
    return dump_atomically(path, (_HEADER, dict(_entries)))


def _save_if_new() -> None:
    if _state["misses"] and not sys.dont_write_bytecode:
        save()


def install() -> None:
    """Put the store in front of ``re``'s compiler (once per process; not on releases it does not know)."""
    if _state["installed"] or not _SUPPORTED:
        return
    _state["installed"] = True
    if _compiler.compile is not _original:  # type: ignore[union-attr]
        return  # someone else already stands in for it: leave re as it is
    load()
    _compiler.compile = _compile  # type: ignore[union-attr]  # re._compile looks it up at every cache miss
    atexit.register(_save_if_new)


def stats() -> dict[str, int]:
    """Entries held, and the patterns found in the store or compiled and recorded in this process."""
    return {"entries": len(_entries), "hits": _state["hits"], "misses": _state["misses"]}


def main(path: str = STORE) -> int:
    """Import every module of shardwise's rules and write the store (``make setup``) with only the patterns
    today's sources compile at import; those compiled in functions are added by the first runs that use them
    with bytecode writing on (``make setup`` makes one: a lint of the example)."""
    import importlib
    import pkgutil

    install()
    re.purge()
    for info in pkgutil.walk_packages([os.path.dirname(os.path.abspath(__file__))], "shardwise.rules."):
        if info.name.rsplit(".", 1)[-1] in {"__main__"}:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    for key in set(_entries) - _used:  # entries of patterns since changed
        del _entries[key]
    ok = save(path)
    print(f"regex code: {len(_entries)} patterns in {path}" if ok else
          f"regex code: could not write {path} (each run compiles them)")
    return 0
