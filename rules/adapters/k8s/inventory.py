"""Kubernetes objects -> :class:`Inventory`: every object read by its extractor, each file's text lines
kept for pointing at the line a word is written on, and the never-silent record of what was not read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...model import CrossRef, Inventory, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict, load_documents, read_text
from .configfile import config_maps_of, pods_of
from .configjoin import CONFIG_REF
from .dispatch import Context, Later, add_object, helm_hook, holds_data, not_workload
from .engines import WEAK_ENGINES
from .groups import RUNTIME_KINDS
from .nodes import resolve_pools
from .parse import Lines, objects_from_documents
from .workloads import template_files

# imported with the first input that needs them (start-up time): KServe's runtimes, and the search of an object that
# was not read for a vLLM pod (generic.py's pod finder)
_runtimes_used = Later("kserve", "runtimes_used")
_note_unread = Later("unread", "note_unread")


def inventory_from_objects(objs: Iterable[tuple[Mapping[str, Any], Location]],
                           lines: Lines | None = None, errors: list[InputError] | None = None, *,
                           join_config_maps: bool = False, may_envsubst: bool = True) -> Inventory:
    """Turn Kubernetes objects into an inventory (pools are not resolved: see :func:`resolve_pools`).

    ``lines`` (file -> its text's lines) lets engine flags point at the line they are written on.
    With ``errors``, an object that is an input error adds the error there and nothing else (the other
    objects are still read); without, the error is raised.

    With ``join_config_maps`` (manifest files: :func:`inventory_from_documents`), a workload that reads a ConfigMap
    these objects do not hold is kept to be read again once every input is (:mod:`.configjoin`); the Pulumi and
    stack readers, which finish the workloads they read themselves, do not ask for it.

    ``may_envsubst`` False says no string of the objects holds ``${`` (:func:`may_hold_envsubst` of the text they
    were read from): their walk for a template tool's ``${VAR}`` (:func:`.workloads.template_files`) is skipped.
    """
    objs = list(objs)
    # a vLLM --config file mounted from a ConfigMap of the input is read (configfile.py); a file evidently a template
    # makes a ${VAR} in vLLM's args its placeholder (workloads.py)
    templates = template_files(objs if may_envsubst else ())
    with config_maps_of(objs), templates:
        inv = _read_objects(objs, lines, errors, join_config_maps)
    inv.template_vars.extend(sorted(set().union(*templates.names.values())))
    return inv


def _read_objects(objs: list[tuple[Mapping[str, Any], Location]], lines: Lines | None,
                  errors: list[InputError] | None, join_config_maps: bool) -> Inventory:
    runtimes = [obj for obj, _ in objs if obj.get("kind") in RUNTIME_KINDS
                and str(obj.get("apiVersion", "")).startswith("serving.kserve.io/")]
    ctx = Context(lines, runtimes)
    if runtimes:
        ctx.used_runtimes = _runtimes_used([obj for obj, _ in objs if obj.get("kind") == "InferenceService"
                                           and str(obj.get("apiVersion", "")).startswith("serving.kserve.io/")],
                                          runtimes)
    inv = Inventory()
    lists = [getattr(inv, name) for name in _LISTS]
    data: list[tuple[Mapping[str, Any], Location]] = []  # ConfigMaps and Secrets
    read_files: set[str | None] = set()  # files of which a workload (or an unread vLLM pod) was recorded
    for i, (obj, loc) in enumerate(objs):
        file = loc.file
        if lines is not None and file is not None and file in lines:  # words are looked up in their object only
            nxt = objs[i + 1][1] if i + 1 < len(objs) else None
            end = nxt.line - 1 if nxt is not None and nxt.file == file and nxt.line else None
            ctx.lines = {file: Upto(lines[file], end)} if end is not None else lines
        marks = [len(x) for x in lists]
        if errors is None:
            with pods_of(obj) as missed:  # its pods read ConfigMaps of its namespace only (configfile.py)
                add_object(obj, loc, inv, ctx)
        else:
            try:
                with pods_of(obj) as missed:
                    add_object(obj, loc, inv, ctx)
            except InputError as e:
                errors.append(e)
                for x, mark in zip(lists, marks, strict=True):  # nothing of the object stays
                    del x[mark:]
                read_files.add(loc.file)  # reported: not silent
                continue
        if join_config_maps and missed and len(inv.cross_refs) == marks[_REFS] and (
                len(inv.groups) > marks[0] or len(inv.launch_issues) > marks[_ISSUES]
                or len(inv.routers) > marks[_ROUTERS]):
            # a workload whose ConfigMap is not in this input: read again once every input is (configjoin.py)
            inv.cross_refs.append(CrossRef(CONFIG_REF, obj, loc, ctx.lines, names=tuple(sorted(missed))))
        weak = len(inv.groups) == marks[0] and len(inv.launch_issues) > marks[_ISSUES] and all(
            i.other_engine in WEAK_ENGINES for i in inv.launch_issues[marks[_ISSUES]:])
        if weak and _note_unread(str(obj.get("kind", "")), obj, loc, inv, errors):
            # readers18: an object that mentions vLLM keeps that word (what of vLLM it names) in place of the weaker
            # "not recognised" or "a simulator" one, which is for objects that would otherwise pass in silence
            n = len(inv.launch_issues) - 1
            inv.launch_issues[marks[_ISSUES]:] = inv.launch_issues[n:]
            read_files.add(loc.file)
        elif len(inv.groups) > marks[0] or len(inv.launch_issues) > marks[_ISSUES] or id(obj) in ctx.used_runtimes:
            read_files.add(loc.file)
        else:
            kind = str(obj.get("kind", ""))
            if holds_data(obj):
                data.append((obj, loc))
            elif not not_workload(obj) and helm_hook(obj) is None and _note_unread(kind, obj, loc, inv, errors):
                read_files.add(loc.file)
        for ref in inv.cross_refs[marks[_REFS]:]:  # what was read from it alone goes when it is joined
            ref.groups, ref.issues = inv.groups[marks[0]:], inv.launch_issues[marks[_ISSUES]:]
            ref.routers = inv.routers[marks[_ROUTERS]:]
    for obj, loc in data:
        if loc.file not in read_files:
            _note_unread(str(obj.get("kind", "")), obj, loc, inv, errors)
    return inv


class Upto(Sequence[str]):
    """The first ``end`` lines of a file's lines, without copying them."""

    __slots__ = ("_lines", "_end")

    def __init__(self, lines: Sequence[str], end: int) -> None:
        self._lines, self._end = lines, min(end, len(lines))

    def __reduce__(self) -> tuple[type[Upto], tuple[Sequence[str], int]]:
        # pickled with a CrossRef (a forked reader's inventory): compiled by mypyc (a native class, no
        # ``__dict__``), pickle's default would call Upto() without its arguments
        return Upto, (self._lines, self._end)

    def __len__(self) -> int:
        return self._end

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._end)
            if step > 0:  # the common case, sliced in C
                return list(self._lines[start:stop:step])
            return [self._lines[j] for j in range(start, stop, step)]
        if not -self._end <= i < self._end:
            raise IndexError(i)
        return self._lines[i % self._end]


#: The inventory's lists an object's extractor may add to.
_LISTS = ("groups", "pools", "security_groups", "subnets", "launch_templates", "services", "ingresses", "routers",
          "network_policies", "autoscalers", "launch_issues", "config_maps", "pod_ports", "device_claims",
          "cross_refs")
_ISSUES = _LISTS.index("launch_issues")
_REFS = _LISTS.index("cross_refs")
_ROUTERS = _LISTS.index("routers")


def inventory_from_documents(docs: Iterable[tuple[int | None, Any]], text: str, file: str) -> Inventory:
    """The documents of one manifest file (:func:`~shardwise.rules.adapters.yamlsrc.load_documents`) as a
    pool-resolved inventory; each document or object that is an input error is in ``errors`` (by
    line) and the others are read."""
    errors: list[InputError] = []
    objs = objects_from_documents(docs, file, errors)
    inv = inventory_from_objects(objs, {file: text.splitlines()}, errors, join_config_maps=True,
                                 may_envsubst=may_hold_envsubst(text))
    inv.errors.extend(sorted(errors, key=lambda e: e.line or 0))
    inv.sources.append(file)
    resolve_pools(inv)
    return inv


def may_hold_envsubst(text: str) -> bool:
    r"""Whether a string read from the YAML or JSON ``text`` may hold ``${``: only where the text writes ``${``, or a
    backslash (an escape of a double-quoted or JSON string, ``\x24{`` or ``\u0024{``, or an escaped line break
    between ``$`` and ``{``, which joins them); any other line a scalar runs over is folded to a space or kept as a
    line break, and single quotes escape only themselves. Most manifests write neither (none of the generated
    manifests, 1,530 of the wide corpus's 1,815 files), and their objects' walk for ``${VAR}`` (every node, about
    4 % of a lint of the generated manifests: lintspeed23) finds nothing there."""
    return "${" in text or "\\" in text


def inventory_from_rendered(objs: list[LineDict], text: str, file: str) -> Inventory:
    """The objects a chart renders from the values file ``file`` (each at the line its values are written on), as
    a pool-resolved inventory, read like :func:`inventory_from_documents`' objects."""
    errors: list[InputError] = []
    inv = inventory_from_objects([(o, Location(file, o.line)) for o in objs], {file: text.splitlines()}, errors,
                                 join_config_maps=True)
    inv.errors.extend(sorted(errors, key=lambda e: e.line or 0))
    inv.sources.append(file)
    resolve_pools(inv)
    return inv


def load_kubernetes_text(text: str, file: str) -> Inventory:
    """Parse manifests from ``text`` (named ``file`` in messages) into a pool-resolved inventory; the
    first input error is raised."""
    inv = inventory_from_documents(load_documents(text, file), text, file)
    if inv.errors:
        raise inv.errors[0]
    return inv


def load_kubernetes_file(path: str) -> Inventory:
    """Read a manifest file (``-`` for stdin) into a pool-resolved inventory."""
    return load_kubernetes_text(read_text(path), path)
