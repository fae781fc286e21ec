"""ConfigMaps of other inputs joined to the workloads that read them (DESIGN: rules resolve ``$(VAR)`` and
ConfigMap values that are in the input, whichever of the inputs' files holds them).

A kustomization keeps a vLLM Deployment's ConfigMap in a file of its own (``configmap.yaml`` beside
``deployment.yaml``); each file is read alone (in any of the reading processes), so the Deployment's ``$(VAR)``
flags from an ``envFrom``/``configMapKeyRef`` ConfigMap, or its mounted ``--config`` file, are not known when it is
read. Only a workload that looked up a ConfigMap its input does not hold is kept for the join (a
:class:`~shardwise.rules.model.CrossRef` of kind :data:`CONFIG_REF` naming those ConfigMaps); once every input is
read, :func:`link_config_maps` reads each of them again with every ConfigMap of the inputs known, when one it
missed is there exactly once in its namespace (an unset namespace is ``default``; two of one name in one namespace
with different data stay ambiguous, the value unknown; copies with the same data are one), and its workloads
read alone give way to those read again. The join runs on the whole inventory, after the processes' shares are
merged in input order: ``--jobs 1`` and ``--jobs 2`` give the same reports.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ...engine.rule import group_subject
from ...engine.runner import AMBIGUOUS_CONFIGMAP
from ...model import Inventory, Location
from ...model.errors import InputError
from .configfile import joined_config_maps, namespace_of

#: CrossRef kind: a workload that looked up ConfigMaps its own input does not hold.
CONFIG_REF = "configmap reader"


def link_config_maps(inv: Inventory) -> None:
    """Read again each workload whose ConfigMap is in another input of ``inv``, on every ConfigMap of the inputs."""
    refs = [r for r in inv.cross_refs if r.kind == CONFIG_REF and not r.done]
    if not refs:
        return
    from .inventory import inventory_from_objects  # it imports this module (CONFIG_REF)

    scoped = any(m.seen_by is not None for m in inv.config_maps)
    every = _maps_for(inv, None)
    for ref in refs:
        # a generated ConfigMap with kustomize's hash suffix is met only by the files its kustomization reaches
        maps, where = _maps_for(inv, os.path.abspath(ref.location.file or "")) if scoped else every
        namespace = namespace_of(ref.obj)
        if not any(len(maps.get((namespace, name), ())) == 1 for name in ref.names):
            # none of what it missed is in the inputs once: reading it again would read the same
            twice = [name for name in ref.names if len(maps.get((namespace, name), ())) > 1]
            if twice:
                decider = ambiguous_decider(namespace, twice[0], where[(namespace, twice[0])], ref.location.file)
                _read_again_on_ambiguous(inv, ref, maps)  # mend25: what it says of them is "twice", not "absent"
                for g in ref.groups:
                    inv.config_deciders[group_subject(g)] = decider
            continue
        errors: list[InputError] = []
        with joined_config_maps(maps):
            joined = inventory_from_objects([(ref.obj, ref.location)], ref.lines, errors)
        if errors:  # it read without an error alone (else it would hold no workload): keep that reading
            continue
        ref.done = True
        # a ConfigMap a joined workload read was linted with it: its own SW005 ("no workload in this file was read:
        # lint it together with the workload that mounts it") is not true of these inputs (corpus33: a script that
        # starts vLLM, in a ConfigMap of a file beside the workload that mounts and runs it)
        read = {f"ConfigMap {namespace}/{name}" for name in ref.names if len(maps.get((namespace, name), ())) == 1}
        inv.launch_issues[:] = [i for i in inv.launch_issues
                                if not (i.mentioned and not i.source_unread and i.subject in read)]
        inv.groups[:] = _replaced(inv.groups, ref.groups, joined.groups)
        inv.launch_issues[:] = _replaced(inv.launch_issues, ref.issues, joined.launch_issues)
        inv.routers[:] = _replaced(inv.routers, ref.routers, joined.routers)
        ref.groups, ref.issues, ref.routers = joined.groups, joined.launch_issues, joined.routers


def _read_again_on_ambiguous(inv: Inventory, ref: Any,
                             maps: dict[tuple[str, str], list[Mapping[str, Any]]]) -> None:
    """Read ``ref``'s workload again where what it missed is in the inputs only more than once with different data
    (mend25): it reads the same values (none of those ConfigMaps is read), but what it says of one it could not read
    (:func:`~.configfile.config_map_unread`: a ModelService's base, a KAITO workspace's inference config) is that the
    inputs hold it twice, which the cluster holds being not known, never that it is not in the inputs."""
    from .inventory import inventory_from_objects  # it imports this module (CONFIG_REF)

    errors: list[InputError] = []
    with joined_config_maps(maps):
        joined = inventory_from_objects([(ref.obj, ref.location)], ref.lines, errors)
    if errors:  # it read without an error alone: keep that reading
        return
    inv.groups[:] = _replaced(inv.groups, ref.groups, joined.groups)
    inv.launch_issues[:] = _replaced(inv.launch_issues, ref.issues, joined.launch_issues)
    inv.routers[:] = _replaced(inv.routers, ref.routers, joined.routers)
    ref.groups, ref.issues, ref.routers = joined.groups, joined.launch_issues, joined.routers


def _maps_for(inv: Inventory, reader: str | None
              ) -> tuple[dict[tuple[str, str], list[Mapping[str, Any]]], dict[tuple[str, str], list[Location]]]:
    """The data of each ConfigMap of ``inv`` by (namespace, name), and where each is written, as a workload of the
    file ``reader`` meets them (None: those every workload of their namespace meets, ``ConfigMap.seen_by``)."""
    maps: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    where: dict[tuple[str, str], list[Location]] = {}
    for m in inv.config_maps:
        if m.kind == "ConfigMap" and (m.seen_by is None or (reader is not None and reader in m.seen_by)):
            held = maps.setdefault((m.namespace, m.name), [])
            if m.data not in held:  # a base and its committed rendered copy hold the same data: one value, not two
                held.append(m.data)
                where.setdefault((m.namespace, m.name), []).append(m.location)
    return maps, where


def ambiguous_decider(namespace: str, name: str, places: list[Location], own: str | None = None) -> str:
    """What decides a value read from ConfigMap ``namespace/name`` that the inputs hold at ``places`` (two or more)
    with different data: not a ConfigMap to add (both are inputs), but which of them the cluster holds. Each is
    named by file and line; when all are in the workload's own file ``own``, by line of that file."""
    if all(p.file == own and p.line for p in places):
        shown, tail = [str(p.line) for p in places], " of the workload's file"
        head = "lines "
    else:
        shown = [f"{p.file or '<stdin>'}:{p.line}" if p.line else (p.file or "<stdin>") for p in places]
        head, tail = "", ""
    files = head + (" and ".join(shown) if len(shown) == 2 else f"{', '.join(shown[:-1])} and {shown[-1]}") + tail
    times = "twice" if len(places) == 2 else f"{len(places)} times"
    return (f"{AMBIGUOUS_CONFIGMAP} {namespace}/{name} {times} with different data ({files}); the one the cluster "
            "holds decides: lint that one with the workload and leave the other out, or set the variable or the value "
            "literally")


def _replaced(items: list[Any], old: list[Any], new: list[Any]) -> list[Any]:
    """``items`` with those of ``old`` (by identity) gone and ``new`` where the first of them was (at the end when
    none was there): the workloads keep their order in the inputs."""
    gone = {id(x) for x in old}
    out: list[Any] = []
    placed = False
    for x in items:
        if id(x) not in gone:
            out.append(x)
        elif not placed:
            out.extend(new)
            placed = True
    return out if placed else [*out, *new]
