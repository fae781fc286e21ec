"""Shared helpers for the rules that read a container's environment (SW306, SW308, SW310, SW408)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..engine import Hit, group_subject
from ..model import (
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    Container,
    Inventory,
    Location,
    ServingGroup,
    Undecidable,
    UnknownEnv,
    is_unknown,
)


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
    None when no source of the inputs sets it.

    A ConfigMap in the inputs is read; what a Secret (envFrom reads none) or a ConfigMap that is not in the inputs
    could hold is not an unknown: the rules judge what the manifests set (DESIGN.md, "Unknown, and what is
    not"). A source whose name or prefix is not known yet (a preview's computed value) is: it is
    :class:`Undecidable` when a ConfigMap of the inputs in the namespace could give the variable through it.
    Later sources win over earlier ones, and ``env`` over both, as in Kubernetes.
    """
    found: tuple[Any, str, Location] | None = None
    # envFrom configMapRef reads ConfigMaps only: a committed Secret of the same name is another object
    maps = [m for m in inv.config_maps if m.namespace in (namespace, UNKNOWN_NAMESPACE) and m.kind == "ConfigMap"]
    for src in c.env_from:
        if src.kind != "configMap":
            continue
        if is_unknown(src.prefix) or src.name is UNKNOWN:
            if any(_may_give(m.data, src.prefix, name) for m in maps):
                raise Undecidable(f"{name} of container `{c.name}`", "it may come from an envFrom ConfigMap "
                                  "whose name or prefix is not known")
            continue
        if not name.startswith(src.prefix):
            continue
        key = name[len(src.prefix):]
        cm = next((m for m in maps if m.name == src.name and m.namespace == namespace), None)
        if cm is not None and key in cm.data:
            found = (cm.data[key], f"envFrom ConfigMap `{cm.name}`", cm.key_locations.get(key, cm.location))
        elif cm is None and any(_may_give(m.data, src.prefix, name) for m in maps if _may_be(m, src.name)):
            raise Undecidable(f"{name} of container `{c.name}`", f"envFrom ConfigMap `{src.name}` may be the "
                              "ConfigMap of the inputs whose name or namespace is not known")
    return found


def _may_be(cm: Any, name: str) -> bool:
    """Whether a ConfigMap whose name or namespace is not known yet may be the one named ``name``."""
    return UNKNOWN_NAMESPACE in (cm.name, cm.namespace) and cm.name in (name, UNKNOWN_NAMESPACE)


def _may_give(data: Any, prefix: Any, name: str) -> bool:
    """Whether ConfigMap ``data`` may set variable ``name`` through an envFrom source of prefix ``prefix``
    (UNKNOWN: any)."""
    if isinstance(data, UnknownEnv):
        return True
    if prefix is UNKNOWN:
        return any(isinstance(k, str) and name.endswith(k) for k in data)
    return name.startswith(prefix) and name[len(prefix):] in data


def env_value(inv: Inventory, g: ServingGroup, c: Container, name: str,
              read_env_from: bool) -> tuple[Any, str, Location] | None:
    """(value, ``" (from envFrom ConfigMap `x`)"`` or ``""``, where it is set) of variable ``name`` in
    container ``c``: its ``env`` entry, else (when ``read_env_from``) what its ``envFrom`` sources give it;
    None when neither sets it. Raises :class:`Undecidable` when an envFrom source that may set it cannot
    be read (see :func:`env_from_value`)."""
    if name in c.env:
        value, via = c.env[name], ""
        if value is UNKNOWN and name in c.env_refs:  # valueFrom.configMapKeyRef: Kubernetes reads the ConfigMap
            cm_name, key = c.env_refs[name]
            cm = next((m for m in inv.config_maps if m.name == cm_name and m.namespace == g.namespace
                       and m.kind == "ConfigMap"), None)
            if cm is None:
                raise Undecidable(f"{name} of container `{c.name}`", f"it is set from key `{key}` of ConfigMap "
                                  f"`{cm_name}`, which is not in the inputs; lint it together with the workload")
            if key not in cm.data:  # a missing key: the container does not start (unless optional)
                return None
            value, via = cm.data[key], f" (from ConfigMap `{cm_name}`)"
            return value, via, cm.key_locations.get(key, cm.location)
        return value, via, env_location(g, c, name)
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
    envFrom source whose name is not known yet is left to SW306, which blocks it."""
    for c in vllm_containers(g):
        for name in names:
            try:
                found = env_value(inv, g, c, name, read_env_from=True)
            except Undecidable as err:
                if name in c.env:  # set from a ConfigMap key that is not in the inputs: say so at its line
                    because = err.reason if unknown_reason is None else f"{err.reason}; {unknown_reason}"
                    text = Undecidable(err.prop, because).text
                    yield Hit(group_subject(g), f"cannot decide: {text}", env_location(g, c, name),
                              tuple(g.suppressions), undecided=True)
                continue  # an envFrom source not known yet: SW306 blocks it
            if found is None:
                continue
            value, via, where = found
            if value is UNKNOWN:
                # where the env list itself is not known (at preview), the variable may not be set at all: the rule's
                # reason for a value that comes from a Secret or ConfigMap is not this one's (review34)
                unlisted = isinstance(c.env, UnknownEnv) and name not in c.env.keys()
                why = () if unknown_reason is None or unlisted else (unknown_reason,)
                u = Undecidable(f"{name} of container `{c.name}`", *why)
                yield Hit(group_subject(g), f"cannot decide: {u.text}", where, tuple(g.suppressions),
                          undecided=True)
                continue
            said = judge(name, str(value), via)
            if said is not None:
                yield Hit(group_subject(g), f"container `{c.name}` {said}", where,
                          tuple(g.suppressions))
