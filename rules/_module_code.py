"""The bytecode of shardwise's rules modules in one file, found and read without the path finder's work.

A one-file lint imports about 110 modules of this package. For each, the import system asks every finder on
``sys.meta_path``, lists and searches the package folder, builds the ``.pyc`` path, stats the source, opens,
reads and validates the ``.pyc``: 17M instructions of a one-file lint (about 6 ms), beside the unmarshalling
itself. This store holds each module's code as its ``.pyc`` holds it (``marshal``), with the source's size and
modification time as the ``.pyc`` header has them, in ``rules/__pycache__`` beside the other stores; a finder
first on ``sys.meta_path`` answers for the modules it holds with the spec the path finder would give (same
origin, ``__file__``, ``__cached__``, ``__path__``, a :class:`~importlib.machinery.SourceFileLoader` for
``get_source`` and resources), and the loader reads the code from the store with one ``pread``.

It is the ``.pyc`` check, made from one file: an entry is used only when the source's size and modification
time are those recorded (one ``stat``, as the ``.pyc`` check makes), and the store only when it was written by
this Python release with the same optimisation level. Anything else (a module edited since the store was
written, a new module, a store missing or unreadable) is imported as usual, and the store is written again at
exit, unless bytecode writing is off (``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder is read-only, as the
other stores are; ``make setup`` writes it (``python -c "from shardwise.rules._module_code import main; main()"``).
"""

# Only what the interpreter has loaded before any import of ours (this module is imported first): no typing.
from __future__ import annotations

import _imp
import atexit
import marshal
import os
import sys
from importlib.machinery import ModuleSpec, SourceFileLoader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = "shardwise.rules"
STORE = os.path.join(_HERE, "__pycache__", f"module-code.{sys.implementation.cache_tag}.bin")
#: the Python release, the optimisation level (``-O`` strips asserts and docstrings) and the store's format
_HEADER = (sys.hexversion, sys.flags.optimize, 1)
_LENGTH = 8  # the first bytes of the file: the length of the marshalled index that follows them

#: module name -> (path relative to rules/, is a package, source mtime as the .pyc has it, source size, offset,
#: length of its marshalled code); filled by :func:`install`
_index: dict[str, tuple[str, bool, int, int, int, int]] = {}
_state: dict[str, Any] = {"fd": None, "base": 0, "installed": False, "hits": 0, "stale": 0, "rewrite": False}

#: the modules compiled by mypyc (scripts/build-mypyc.sh, scripts/mypyc_build.py), as its manifest
#: ``rules/_mc_sources.marshal`` lists them -> whether their extensions are used: True while every compiled
#: module's source has the size and modification time recorded when it was compiled, else False for all (the
#: modules of a group call each other in C: one edited source retires the group), and then the sources are
#: imported, from the store or as usual; filled by :func:`install`
_compiled: dict[str, bool] = {}
COMPILED_MANIFEST = os.path.join(_HERE, "_mc_sources.marshal")


class _StoredLoader(SourceFileLoader):
    """The path finder's loader for a source file, whose code comes from the store when the source is the one
    recorded (else the ``.pyc`` or the source, as usual)."""

    def get_code(self, fullname: str) -> Any:
        entry = _index.get(fullname)
        fd = _state["fd"]
        if entry is not None and fd is not None and fullname == self.name:
            try:
                data = os.pread(fd, entry[5], _state["base"] + entry[4])
                code = marshal.loads(data) if len(data) == entry[5] else None
            except (OSError, EOFError, ValueError, TypeError):
                code = None
            if code is not None:
                _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]  # as the .pyc loader does
                _state["hits"] += 1
                return code
        return super().get_code(fullname)


class _StoredFinder:
    """First on ``sys.meta_path``: the spec of a module the store holds and whose source is unchanged, else None
    (the other finders look as before)."""

    @staticmethod
    def find_spec(fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        compiled = _compiled.get(fullname)
        if compiled:
            return None  # its extension, current: the path finder imports it before the source
        spec = _StoredFinder.stored_spec(fullname)
        if spec is None and compiled is not None:
            # a compiled module retired (a source edited since the build): its source, as if no extension were
            # there (the path finder would import the extension first)
            origin = os.path.join(_HERE, *fullname.split(".")[2:]) + ".py"
            spec = ModuleSpec(fullname, SourceFileLoader(fullname, origin), origin=origin)
            spec.has_location = True
        return spec

    @staticmethod
    def stored_spec(fullname: str) -> ModuleSpec | None:
        entry = _index.get(fullname)
        if entry is None:
            return None
        relpath, is_package, mtime, size = entry[:4]
        origin = os.path.join(_HERE, relpath)
        try:
            st = os.stat(origin)
        except OSError:
            return None
        if (int(st.st_mtime) & 0xFFFFFFFF) != mtime or (st.st_size & 0xFFFFFFFF) != size:
            _state["stale"] += 1
            _state["rewrite"] = True
            return None
        spec = ModuleSpec(fullname, _StoredLoader(fullname, origin), origin=origin, is_package=is_package)
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        return spec


def _read_index(fd: int) -> tuple[dict[str, tuple[str, bool, int, int, int, int]], int] | None:
    head = os.pread(fd, _LENGTH, 0)
    if len(head) != _LENGTH:
        return None
    length = int.from_bytes(head, "little")
    if length > os.fstat(fd).st_size - _LENGTH:
        return None
    data = marshal.loads(os.pread(fd, length, _LENGTH))
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == _HEADER and isinstance(data[1], dict)):
        return None
    return data[1], _LENGTH + length


def install(path: str = STORE) -> bool:
    """Serve this package's modules from the store at ``path`` from now on (once per process); False when there
    is no usable store (then nothing changes)."""
    if _state["installed"]:
        return _state["fd"] is not None
    _state["installed"] = True
    atexit.register(_rewrite_if_stale, path)
    _read_compiled(COMPILED_MANIFEST)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        _state["rewrite"] = True
        if _compiled:
            sys.meta_path.insert(0, _StoredFinder)  # type: ignore[arg-type]  # retired extensions kept out
        return False
    try:
        read = _read_index(fd)
    except (OSError, EOFError, ValueError, TypeError):
        read = None
    if read is None:
        os.close(fd)
        _state["rewrite"] = True
        if _compiled:
            sys.meta_path.insert(0, _StoredFinder)  # type: ignore[arg-type]  # retired extensions kept out
        return False
    _index.update(read[0])
    _state["fd"], _state["base"] = fd, read[1]
    sys.meta_path.insert(0, _StoredFinder)  # type: ignore[arg-type]
    return True


def _read_compiled(path: str) -> None:
    """Fill :data:`_compiled` from the mypyc build's manifest at ``path``, if there is one: each compiled module,
    True for all when every source is as recorded and the manifest was written by this Python release, else
    False for all (and with ``SHARDWISE_MYPYC=0`` in the environment: the sources, to compare)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    entries = data[2] if isinstance(data, tuple) and len(data) == 3 and isinstance(data[2], dict) else {}
    current = bool(entries) and data[:2] == (1, sys.hexversion) and os.environ.get("SHARDWISE_MYPYC") != "0"
    for module, (size, mtime) in entries.items():
        if current:
            try:
                st = os.stat(os.path.join(_HERE, *module.split(".")[2:]) + ".py")
            except OSError:
                current = False
            else:
                current = (st.st_size & 0xFFFFFFFF) == size and (int(st.st_mtime) & 0xFFFFFFFF) == mtime
    for module in entries:
        _compiled[module] = current


def rewrite_now(path: str | None = None) -> None:
    """Write the store now where the exit would write it (:func:`_rewrite_if_stale`), and leave the exit nothing to
    write: for a process stopped with a deadline. The engine stops the policy pack with ``SIGINT`` and kills it 5 s
    later (pulumi v3.276.0 ``sdk/go/common/resource/plugin/plugin.go``); a store rewritten at its exit compiled or
    read every module then (0.47 s of CPU, 1.8 s at load 16), and a pack killed before it was written would find
    the store stale again at its next start. ``path``: the store's (default :data:`STORE`)."""
    if not _state["rewrite"]:
        return
    _rewrite_if_stale(STORE if path is None else path)
    _state["rewrite"] = False
    _state["written"] = True  # a module found changed later (a lazy import) is in the store just written


def _rewrite_if_stale(path: str) -> None:
    """At exit: write the store again when it was missing, unusable or held a changed module, and bytecode may be
    written there (checked before compiling anything: a read-only installation pays nothing)."""
    if not _state["rewrite"] or _state.get("written") or sys.dont_write_bytecode:
        return
    folder = os.path.dirname(path)
    if not os.access(folder if os.path.isdir(folder) else os.path.dirname(folder), os.W_OK):
        return
    try:
        build(path)
    except (OSError, SyntaxError, ValueError, ImportError):
        pass  # a source that does not compile: its import says so; the store is written once it does


def stats() -> dict[str, int]:
    """Modules held, and those read from the store or found changed since it was written, in this process."""
    return {"entries": len(_index), "hits": _state["hits"], "stale": _state["stale"]}


def _modules() -> list[tuple[str, str, bool]]:
    """(module name, path relative to rules/, is a package) of every module under rules/ but the policy pack's
    entry point (``__main__``)."""
    found = []
    for folder, dirs, files in os.walk(_HERE):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(folder, d, "__init__.py")))
        rel = os.path.relpath(folder, _HERE)
        parts = [] if rel == "." else rel.split(os.sep)
        for name in sorted(files):
            if not name.endswith(".py") or name == "__main__.py":
                continue
            is_package = name == "__init__.py"
            module = ".".join([_PACKAGE, *parts] if is_package else [_PACKAGE, *parts, name[:-3]])
            found.append((module, os.path.join(*parts, name) if parts else name, is_package))
    return found


def build(path: str = STORE) -> int:
    """Write the store at ``path`` from the sources as they are (compiled as the import system compiles them:
    their ``.pyc`` when it is current); how many modules it holds."""
    index: dict[str, tuple[str, bool, int, int, int, int]] = {}
    blobs: list[bytes] = []
    offset = 0
    for module, relpath, is_package in _modules():
        origin = os.path.join(_HERE, relpath)
        st = os.stat(origin)
        code = SourceFileLoader(module, origin).get_code(module)
        blob = marshal.dumps(code)
        index[module] = (relpath, is_package, int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF, offset,
                         len(blob))
        blobs.append(blob)
        offset += len(blob)
    head = marshal.dumps((_HEADER, index))
    tmp = f"{path}.{os.getpid()}.tmp"  # through a file of this process: concurrent writers each leave a whole store
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(b"".join([len(head).to_bytes(_LENGTH, "little"), head, *blobs]))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return len(index)


def main(path: str = STORE) -> int:
    """Write the store (``make setup``)."""
    try:
        n = build(path)
    except OSError as e:
        print(f"module code: could not write {path} ({e.strerror or e}): modules are imported as usual")
        return 0
    print(f"module code: {n} modules in {path}")
    return 0
