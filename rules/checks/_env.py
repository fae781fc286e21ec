"""Shared helpers for the rules that read a container's environment (SW306, SW308, SW310, SW408)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..engine import Hit, group_subject
from ..model import UNKNOWN, Container, Inventory, Location, ServingGroup, Undecidable


def vllm_containers(g: ServingGroup) -> list[Container]:
    """The containers of the group's pods that run a vLLM server (the main one when none is marked)."""
    marked = [c for c in g.containers if c.runs_vllm]
    if marked:
        return marked
    main = g.main_container
    return [main] if main is not None else []


def env_location(g: ServingGroup, c: Container, name: str) -> Location:
    """Where variable ``name`` is set in container ``c`` (the container, or the object, when not known)."""
    where = c.env_locations.get(name)
    if where is not None:
        return where
    return c.location if (c.location.file or c.location.urn) else g.location


def env_from_value(inv: Inventory, namespace: str, c: Container, name: str) -> tuple[Any, str, Location] | None:
    """(value, "envFrom ConfigMap `x`", where) for variable ``name`` that ``envFrom`` gives container ``c``;
    None when no source sets it.

    A ConfigMap in the inputs is read; a Secret, a ConfigMap that is not in the inputs or a source whose
    name is not known could set any variable, so the value is unknown: :class:`Undecidable`, naming the
    source. Later sources win over earlier ones, and ``env`` over both, as in Kubernetes.
    """
    found: tuple[Any, str, Location] | None = None
    for src in c.env_from:
        if src.prefix is UNKNOWN or src.name is UNKNOWN:
            raise Undecidable(f"{name} of container `{c.name}`", "it may come from an envFrom source whose name "
                              "or prefix is not known")
        if not name.startswith(src.prefix):
            continue
        key = name[len(src.prefix):]
        cm = next((m for m in inv.config_maps if m.name == src.name and m.namespace == namespace
                   and m.kind == "ConfigMap"), None)
        if src.kind == "configMap" and cm is not None:
            if key in cm.data:
                found = (cm.data[key], f"envFrom ConfigMap `{cm.name}`", cm.key_locations.get(key, cm.location))
            continue
        if src.kind == "secret":
            why = (f"it may be set by envFrom Secret `{src.name}`, which shardwise does not read; set {name} in env "
                   "(env wins over envFrom)")
        else:
            why = (f"it may be set by envFrom ConfigMap `{src.name}`, which is not in the inputs; lint it together "
                   f"with the workload, or set {name} in env (env wins over envFrom)")
        raise Undecidable(f"{name} of container `{c.name}`", why)
    return found


def env_value(inv: Inventory, g: ServingGroup, c: Container, name: str,
              read_env_from: bool) -> tuple[Any, str, Location] | None:
    """(value, ``" (from envFrom ConfigMap `x`)"`` or ``""``, where it is set) of variable ``name`` in
    container ``c``: its ``env`` entry, else (when ``read_env_from``) what its ``envFrom`` sources give it;
    None when neither sets it. Raises :class:`Undecidable` when an envFrom source that may set it cannot
    be read (see :func:`env_from_value`)."""
    if name in c.env:
        return c.env[name], "", env_location(g, c, name)
    if not (read_env_from and c.env_from):
        return None
    found = env_from_value(inv, g.namespace, c, name)
    if found is None:
        return None
    value, source, where = found
    return value, f" (from {source})", where


def switch_hits(inv: Inventory, g: ServingGroup, names: Iterable[str],
                judge: Callable[[str, str, str], str | None], unknown_reason: str | None = None) -> Iterator[Hit]:
    """The findings of a rule about environment switches in the group's vLLM containers.

    For each variable of ``names`` set in ``env`` or a readable ``envFrom`` source, ``judge(name, value,
    via)`` gives what the finding says after the container's name (``via``: where an envFrom value came
    from; None: no finding). A value that cannot be read is an undecided finding at its line; an
    unreadable envFrom source is left to SW306, which blocks it."""
    for c in vllm_containers(g):
        for name in names:
            try:
                found = env_value(inv, g, c, name, read_env_from=True)
            except Undecidable:
                continue
            if found is None:
                continue
            value, via, where = found
            if value is UNKNOWN:
                why = () if unknown_reason is None else (unknown_reason,)
                u = Undecidable(f"{name} of container `{c.name}`", *why)
                yield Hit(group_subject(g), f"cannot decide: {u.text}", where, tuple(g.suppressions),
                          undecided=True)
                continue
            said = judge(name, str(value), via)
            if said is not None:
                yield Hit(group_subject(g), f"container `{c.name}` of {group_subject(g)} {said}", where,
                          tuple(g.suppressions))
