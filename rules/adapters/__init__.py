"""Adapters: every input turned into one :class:`~shardwise.rules.model.Inventory`.

:func:`read_inputs` takes files, directories (recursively) and ``-`` (stdin), leaves out what the
exclusion patterns name and what is not an input (:mod:`.select`), and picks the adapter per file by
its parsed content (:mod:`.kinds`): a Pulumi stack config (``config:`` with
``<project>:environment``), a ``pulumi preview --json`` / ``pulumi stack export`` file, or
Kubernetes manifests. Nothing that cannot be read stops the run: a file, a document of a
multi-document file or an object that is an input error lands in ``Inventory.errors`` with its file
and line, and everything else is still read. :func:`load_inputs` is the strict form (the first
input error is raised). Adapters are imported only when a file needs them, so linting manifests
never imports pydantic.
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..model import Inventory
from ..model.errors import InputError
from .select import Excludes, select_inputs
from .yamlsrc import DuplicateKey, load_documents, read_text

if TYPE_CHECKING:
    from .charts import Renderer

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"  # a high half with no low half after it
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a low half with no high half before it
)


class _NotJson(Exception):
    """A JSON value Python's parser accepts but JSON does not (``NaN``), or a key written twice."""

    def __init__(self, what: str, key: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _NotJson("duplicate", k)
            seen.add(k)
    return d


def _no_constant(name: str) -> Any:
    raise _NotJson(name)


_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')
_WS = " \t\n\r"


def _duplicate_key_at(text: str, key: str) -> int | None:
    """Where the second ``key`` of one object starts (the slow pure-Python scanner, on the error path)."""
    decoder: Any = json.JSONDecoder()
    jd: Any = json.decoder
    found: list[int] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict, int]:
        s, pos = s_and_end
        seen: set[str] = set()
        while not found:
            while pos < len(s) and s[pos] in _WS:
                pos += 1
            if pos >= len(s) or s[pos] != '"':
                break
            start = pos
            k, pos = jd.scanstring(s, pos + 1)
            if k in seen and k == key:
                found.append(start)
                break
            seen.add(k)
            pos = s.index(":", pos) + 1
            while s[pos] in _WS:
                pos += 1
            _, pos = scan(s, pos)
            while pos < len(s) and s[pos] in _WS:
                pos += 1
            if pos >= len(s) or s[pos] != ",":
                break
            pos += 1
        return jd.JSONObject(s_and_end, *args)

    decoder.parse_object = parse_object
    scan = jd.scanner.py_make_scanner(decoder)
    decoder.scan_once = scan
    try:
        decoder.decode(text)
    except ValueError:
        pass
    return found[0] if found else None


def _line_at(text: str, pos: int | None) -> int | None:
    return None if pos is None else text.count("\n", 0, pos) + 1


def parse_json(text: str, file: str) -> Any:
    """``json.loads`` that raises :class:`InputError` for what is not JSON text: a syntax error (with
    its line), ``NaN`` and ``Infinity`` (Python's extension, not JSON), a key written twice in one
    object (the parser would keep the last), nesting too deep for the parser, and a string escape that
    is half a surrogate pair (``"\\ud800"``: JSON allows it, but it is no character and no report
    could write it)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"cannot parse JSON: {e.msg}", file, e.lineno) from None
    except RecursionError:
        raise InputError("cannot parse JSON: nesting too deep", file) from None
    except _NotJson as e:
        if e.key is not None:
            line = _line_at(text, _duplicate_key_at(text, e.key))
            raise InputError(f"cannot parse JSON: duplicate key {json.dumps(e.key)}: an object's keys must be "
                             "unique, keep one", file, line) from None
        m = next((m for m in _NON_FINITE.finditer(text) if m.group(1)), None)
        raise InputError(f"cannot parse JSON: {e.what} is not a JSON number (JSON has no NaN or infinity); "
                         "write a number, or null", file, _line_at(text, m.start() if m else None)) from None
    if _SURROGATE_ESCAPE.search(text) is not None:  # rare: check properly only then
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            m = _LONE_SURROGATE.search(text)
            line = text.count("\n", 0, m.start()) + 1 if m else None
            escape = f" {m.group(0)}" if m else ""
            raise InputError(f"cannot parse JSON: the escape{escape} is half of a UTF-16 surrogate pair, "
                             "not a character", file, line) from None
    return data


def load_text(text: str, file: str) -> Inventory:
    """One file's inventory, by its parsed content; its input errors are in ``errors``, and a file that
    is not an input is in ``skipped_files``."""
    inv = Inventory()
    try:
        return _load_text(text, file, inv)
    except InputError as e:  # an error about the whole file
        inv.errors.append(e)
    except RecursionError:
        inv.errors.append(InputError("nested too deeply to read", file))
    except Exception as e:  # noqa: BLE001 - a bug on one file must not hide the others; it fails the run
        if os.environ.get("SHARDWISE_DEBUG"):
            raise
        inv = Inventory(errors=[InputError(
            f"internal error while reading this file: {type(e).__name__}: {e} (set SHARDWISE_DEBUG=1 for the "
            "traceback; please report it)", file)])
    if file not in inv.sources:
        inv.sources.append(file)
    return inv


def _load_text(text: str, file: str, inv: Inventory) -> Inventory:
    from . import kinds

    stripped = text.lstrip()
    if not stripped:  # read, and nothing in it
        inv.sources.append(file)
        return inv
    if file.endswith(".json") or stripped[:1] in "{[":
        try:
            data = parse_json(text, file)
        except InputError:
            if file.endswith(".json"):
                raise
        else:
            kind = kinds.json_kind(data, file)
            if kind == kinds.PULUMI:
                from .pulumi import inventory_from_pulumi_json

                return inventory_from_pulumi_json(data, file, text)
            if kind != kinds.KUBERNETES:
                inv.skipped_files.append((file, kind))
                return inv
    docs = load_documents(text, file)
    kind = kinds.yaml_kind(docs, file)
    if kind == kinds.STACK:
        from .stack import load_stack_text

        return load_stack_text(text, file)
    if kind != kinds.KUBERNETES:
        duplicates = [d.unread() for _, d in docs if isinstance(d, DuplicateKey)]
        if duplicates:  # not an input, but its YAML is broken: an error as before, not a skip
            inv.errors.extend(duplicates)
            inv.sources.append(file)
            return inv
        inv.skipped_files.append((file, kind))
        return inv
    from .k8s import inventory_from_documents

    return inventory_from_documents(docs, text, file)


#: Below this many files one process reads them all; above it they are split over the CPUs.
PARALLEL_MIN_FILES = 200


def load_file(path: str) -> Inventory:
    """One file (``-`` for stdin) as :func:`load_text` reads it; a file that cannot be read is an input error."""
    name = "<stdin>" if path == "-" else path
    try:
        text = read_text(path)
    except InputError as e:
        inv = Inventory(sources=[name])
        inv.errors.append(e)
        return inv
    return load_text(text, name)


def _load_chunk(files: list[str]) -> Inventory:
    gc.disable()  # adapters allocate many small objects and free none: the cycle collector only costs
    inv = Inventory()
    for f in files:
        inv.extend(load_file(f))
    return inv


def _load_parallel(files: list[str], jobs: int) -> Inventory:
    """Read ``files`` as ``jobs`` contiguous shares of about equal size, this process reading the first
    and a forked process each other one (:mod:`..forked`); merged in input order."""
    from ..engine.forked import map_pieces, spans

    sizes = []
    for f in files:
        try:
            sizes.append(os.stat(f).st_size + 1024)  # a file costs something however short it is
        except OSError:
            sizes.append(1024)
    shares = spans(sizes, jobs, first=_OWN_SHARE)

    def share(i: int) -> Iterator[Inventory]:  # in pieces, so a child pickles one while it reads the next
        start, stop = shares[i]
        for at in range(start, stop, _PIECE_FILES):
            yield _load_chunk(files[at:min(at + _PIECE_FILES, stop)])

    inv = Inventory()
    for pieces in map_pieces(share, len(shares)):
        for piece in pieces:
            inv.extend(piece)
    return inv


#: Files per piece a reading process sends back (:func:`_load_parallel`).
_PIECE_FILES = 100
#: This process reads a larger share than each forked one: they also pickle what they read (about a
#: tenth of the time reading takes), and this process only starts to unpickle it when they are done.
_OWN_SHARE = 1.1


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def read_inputs(paths: Iterable[str], jobs: int | None = None, excludes: Excludes | None = None,
                render: Renderer | None = None) -> Inventory:
    """Read every input into one inventory and match workloads to the pools declared anywhere.

    What could not be read is in ``errors`` (input errors with file and line, in input order), what is
    not an input in ``skipped_files``, and what ``excludes`` left out in ``excluded``. Many files are
    read by ``jobs`` processes (default: the CPUs this process may use), on platforms that can fork;
    the result is the same as reading them one by one. Chart and kustomization directories among
    ``paths`` are rendered by ``render`` (default: helm/kustomize from PATH, no values; :mod:`.charts`).
    """
    sel = select_inputs(list(paths), excludes)
    files = sel.files
    jobs = default_jobs() if jobs is None else jobs
    enabled = gc.isenabled()
    gc.disable()
    try:
        if jobs > 1 and len(files) >= PARALLEL_MIN_FILES and "-" not in files and sys.platform == "linux":
            inv = _load_parallel(files, jobs)
        else:
            inv = _load_chunk(files)
    finally:
        if enabled:
            gc.enable()
    if sel.renders:
        from .charts import Renderer, render_kind

        renderer = render or Renderer()
        for directory in sel.renders:
            rendered = renderer.render(directory)
            if rendered.errors and render_kind(directory) == "kustomize":
                rendered = _kustomization_read_plainly(directory, rendered, excludes)
            inv.extend(rendered)
    inv.errors = sorted([*sel.errors, *inv.errors], key=lambda e: sel.place(e.file))  # stable: lines stay in order
    inv.skipped_files = sorted([*sel.skipped, *inv.skipped_files], key=lambda s: sel.place(s[0]))
    inv.excluded.extend(sel.excluded)
    from .k8s import resolve_pools

    resolve_pools(inv)
    return inv


def _kustomization_read_plainly(directory: str, failed: Inventory, excludes: Excludes | None) -> Inventory:
    """A kustomization that did not build (no kustomize on PATH, a resource it cannot resolve, a remote
    base): its error stays, and its files are read one by one as plain manifests, so that the
    workloads in them are still linted rather than left unread behind the error. Patches and
    generators are not applied to what is read that way; the error's message says so."""
    sel = select_inputs([directory], excludes, render=False)
    inv = _load_chunk(sel.files)
    inv.errors = [*failed.errors, *sel.errors, *inv.errors]
    if sel.files:
        first = inv.errors[0]
        n = len(sel.files)
        files = f"{n} YAML files were" if n != 1 else "1 YAML file was"
        inv.errors[0] = InputError(f"{first.message}; its {files} read one by one instead (patches, overlays and "
                                   "generators not applied)", first.file, first.line)
    inv.skipped_files.extend(sel.skipped)
    inv.excluded.extend(sel.excluded)
    return inv


def load_inputs(paths: Iterable[str], jobs: int | None = None, excludes: Excludes | None = None) -> Inventory:
    """:func:`read_inputs`, raising the first input error (for callers that need all inputs or none)."""
    inv = read_inputs(paths, jobs, excludes)
    if inv.errors:
        raise inv.errors[0]
    return inv
