"""What reading a stack's environment config concluded, kept between runs as ``.pyc`` files keep compiled modules.

The policy pack reads ``<project>:environment`` from the stack config at every start (``PULUMI_CONFIG``, or the
engine's ``ConfigureStack``) only to know whether the stack is production, or why its config cannot be read:
validating it against :class:`~shardwise.rules.model.spec.EnvironmentSpec` imports pydantic and builds the spec's
models, about 0.15 s of CPU in a pack that spends under 2 s in a whole 1,000-resource preview. What it concludes,
``(production, error)``, is a pure function of the config key, the config value, the code of ``shardwise.rules``
(the spec's models and validators, which read nothing else, and how an error is pointed at) and pydantic's release.

So it is kept in ``rules/__pycache__`` by a digest of the key and the value, and used only while every file of
the ``rules`` package (its ``.py``, ``.json`` and ``.yaml`` files, each by size and modification time, as a
``.pyc`` checks its source), pydantic's ``version.py``, pydantic-core's ``__init__.py`` and the Python release are what
they were when it was written; any other state reads the config as before. The store is written when a run
read a config it did not hold, unless bytecode writing is off (``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder
is read-only, through the atomic writer of the other stores beside the bytecode; it keeps the last
:data:`LIMIT` configs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import sys
from typing import Any

from .._regex_code import dump_atomically

_RULES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: beside the .pyc files of rules/
STORE = os.path.join(_RULES, "__pycache__", f"stack-verdicts.{sys.implementation.cache_tag}.marshal")
LIMIT = 32
_SUFFIXES = (".py", ".json", ".yaml")

Verdict = tuple[bool | None, str | None]  # (production, error)


def _module_stamp(package: str, file: str) -> tuple[Any, ...]:
    """The size and mtime of ``file`` in an installed top-level ``package`` (``None`` where it is not installed),
    found without importing the package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return (package, None)
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:
        return (package, None)
    st = os.stat(os.path.join(folders[0], file))
    return (package, st.st_size, st.st_mtime_ns)


def stamp(root: str = _RULES) -> tuple[Any, ...] | None:
    """What a verdict must have been made with: the Python release, pydantic's and pydantic-core's module files,
    and every source and data file of the package under ``root`` (relative path, size, mtime); None if unreadable."""
    files: list[tuple[str, int, int]] = []
    try:
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(_SUFFIXES):
                    path = os.path.join(folder, name)
                    st = os.stat(path)
                    files.append((os.path.relpath(path, root), st.st_size, st.st_mtime_ns))
        modules = (_module_stamp("pydantic", "version.py"), _module_stamp("pydantic_core", "__init__.py"))
    except OSError:
        return None
    return (sys.hexversion, modules, tuple(files))


def digest(key: str, value: Any) -> str | None:
    """The store's key for a config value as the engine gave it (a JSON string, or the value it decodes to)."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(f"{key}\0{type(value).__name__}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


class Store:
    """The verdicts of one store file, read when first asked."""

    def __init__(self, path: str = STORE, root: str = _RULES) -> None:
        self.path = path
        self.root = root
        self._stamp: tuple[Any, ...] | None = None
        self._entries: dict[str, Verdict] | None = None

    def _load(self) -> dict[str, Verdict]:
        if self._entries is None:
            self._stamp = stamp(self.root)
            self._entries = {}
            try:
                with open(self.path, "rb") as f:
                    data = marshal.loads(f.read())
            except (OSError, EOFError, ValueError, TypeError):
                return self._entries
            if (self._stamp is not None and isinstance(data, tuple) and len(data) == 2 and data[0] == self._stamp
                    and isinstance(data[1], dict)):
                self._entries = {k: v for k, v in data[1].items()
                                 if isinstance(k, str) and isinstance(v, tuple) and len(v) == 2}
        return self._entries

    def get(self, key: str | None) -> Verdict | None:
        if key is None:
            return None
        return self._load().get(key)

    def put(self, key: str | None, verdict: Verdict) -> bool:
        """Keep ``verdict`` and write the store (unless bytecode writing is off); whether it was written."""
        if key is None or sys.dont_write_bytecode:
            return False
        entries = self._load()
        if self._stamp is None or entries.get(key) == verdict:
            return False
        entries.pop(key, None)
        entries[key] = verdict
        while len(entries) > LIMIT:
            del entries[next(iter(entries))]
        return dump_atomically(self.path, (self._stamp, dict(entries)))


#: the store the pack reads (:func:`shardwise.rules.app.crossguard.stack_context`)
STORE_OF_PACK = Store()
