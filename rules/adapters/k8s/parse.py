"""Manifest text -> Kubernetes objects with their lines, and finding a word's line in that text."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...model import UNKNOWN, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict, load_documents

#: file -> the lines of its text, for pointing at the line a word is written on.
Lines = Mapping[str, Sequence[str]]


def yaml_type(value: Any) -> str:
    """How YAML names the type of ``value``: a mapping, a list, a string, a number, a boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


def objects_from_documents(docs: Iterable[tuple[int | None, Any]], file: str,
                           errors: list[InputError]) -> list[tuple[LineDict, Location]]:
    """Every Kubernetes object in ``docs`` (:func:`~shardwise.rules.adapters.yamlsrc.load_documents`) with its
    location; ``kind: List`` items are flattened. Empty documents (a Helm ``# Source:`` comment alone)
    are skipped. A document that did not parse, is not a mapping, or lacks ``apiVersion`` or ``kind``
    is an :class:`InputError` with file and line, added to ``errors``; the other documents are read.
    """
    out: list[tuple[LineDict, Location]] = []
    for line, doc in docs:
        if doc is None:
            continue
        if isinstance(doc, InputError):
            errors.append(doc)
        elif not isinstance(doc, LineDict):
            errors.append(InputError(f"expected a Kubernetes object (a mapping), found {yaml_type(doc)}", file, line))
        else:
            try:
                _collect(doc, file, out)
            except InputError as e:
                errors.append(e)
    return out


def parse_manifests(text: str, file: str) -> list[tuple[LineDict, Location]]:
    """Every Kubernetes object in ``text`` with its location (see :func:`objects_from_documents`);
    the first input error is raised."""
    errors: list[InputError] = []
    objs = objects_from_documents(load_documents(text, file), file, errors)
    if errors:
        raise errors[0]
    return objs


def _collect(obj: LineDict, file: str, out: list[tuple[LineDict, Location]]) -> None:
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            if value is not None and value != "":  # written, as another type (`kind: !!binary ...`): at its line
                raise InputError(f"{key}: expected a string, found {yaml_type(value)}", file,
                                 obj.line_of(key) or obj.line)
            raise InputError(f"object has no {key}", file, obj.line)
    if obj["kind"] == "List" or (obj["kind"].endswith("List") and isinstance(obj.get("items"), list)):
        items = obj.get("items")
        if items is not None and not isinstance(items, list):
            raise InputError(f"items: expected a list of Kubernetes objects, found {yaml_type(items)}", file,
                             obj.line_of("items"))
        for item in items or ():
            if not isinstance(item, LineDict):
                raise InputError("List item is not a Kubernetes object (a mapping)", file, obj.line_of("items"))
            _collect(item, file, out)
        return
    meta = obj.get("metadata")
    if isinstance(meta, LineDict):  # the object's name and namespace name it in every finding: strings, or refused
        for key in ("name", "namespace"):
            value = meta.get(key)
            if value is not None and not isinstance(value, str) and value is not UNKNOWN:
                if type(value) is int and _read_by_kustomize(file):
                    # kustomize reads the scalar's text (kyaml's GetName), matches a patch by it and writes a
                    # string: `name: 0` in a patch of a base named "0" builds (corpus30: llm-d-router's
                    # kubernetes-base patch-statefulset.yaml); the API server never sees the number
                    meta[key] = str(value)
                    continue
                raise InputError(f"metadata.{key}: expected a string, found {yaml_type(value)}; Kubernetes refuses "
                                 "the object as written", file, meta.line_of(key) or obj.line)
    out.append((obj, location_at(file, obj.line)))


def _read_by_kustomize(file: str) -> bool:
    from .workloads import kustomize_file  # only for a name written as a number (rare)

    return kustomize_file(file)


def location_at(file: str | None, line: int | None) -> Location:
    """``Location(file, line)``: the locations the compiled readers make most (a container's key lines, the flags found
    in the command). The class is compiled too (:mod:`~shardwise.rules.model.location`), so this is a direct C call."""
    return Location(file, line)


class _Locate:
    """What :func:`make_locate` returns: a class, not a closure. Compiled by mypyc, a closure that rebinds a name of
    its maker (the joined block, made on first use) is held by the environment it holds: a reference cycle per call,
    which a run with the collector off (``shardwise lint``, the pack) never frees, and which kept each file's lines
    alive to the end of the run."""

    __slots__ = ("lines", "lo", "hi", "file", "block")

    def __init__(self, lines: Sequence[str], lo: int, hi: int, file: str | None) -> None:
        self.lines = lines
        self.lo = lo
        self.hi = hi
        self.file = file
        self.block: str | None = None

    def __call__(self, token: str) -> Location | None:
        if not token:
            return None
        if "\n" in token:  # a word of several lines is never found on one
            return None
        block = self.block
        if block is None:  # the lines joined once: one search in C per word instead of a loop over lines
            block = self.block = "\n".join(self.lines[self.lo:self.hi])
        n = len(token)
        pos = block.find(token)
        while pos >= 0:  # a line's start or end (a newline here) bounds a word as a blank does
            before = block[pos - 1] if pos > 0 else " "
            after = block[pos + n] if pos + n < len(block) else " "
            if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
                # its line: the newlines before it, counted in C (no table of where each line starts)
                return location_at(self.file, self.lo + 1 + block.count("\n", 0, pos))
            pos = block.find(token, pos + 1)
        return None


def make_locate(lines: Sequence[str] | None, start: int | None, end: int | None,
                file: str | None) -> Callable[[str], Location | None] | None:
    """A finder of the first line in ``start..end`` where a word is written (None without the text). ``lines`` are
    a text's lines as ``str.splitlines`` gives them: none holds a newline."""
    if not lines or start is None:
        return None
    lo = max(start - 1, 0)
    return _Locate(lines, lo, min(end if end is not None else lo + 400, len(lines)), file)


