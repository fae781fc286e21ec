"""Pulumi resources -> :class:`~shardwise.rules.model.Inventory`: the JSON files of ``pulumi preview --json`` and
``pulumi stack export`` read into resources, and resources read into the inventory (see the package docstring)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...model import (
    Inventory,
    LaunchTemplate,
    SecurityGroup,
)
from ...model.errors import InputError
from ..jsonsrc import parse_json
from ..k8s import resolve_pools
from ..yamlsrc import read_text
from . import aws
from .k8s import (
    CONFIG_FILES,
    HELM_RELEASE,
    SDK_RENDERERS,
    config_file_unread,
    helm_release_unread,
    kubernetes,
    kubernetes_api,
    sdk_renderer_unread,
)
from .resource import PulumiResource, merge_state, name_from_urn
from .values import UNKNOWN_SENTINELS, clean, holds_unknown, json_type, unmask_preview_secrets

IGNORE_TAG = aws.IGNORE_TAG
NODE_GROUP, LAUNCH_TEMPLATE, SECURITY_GROUP = aws.NODE_GROUP, aws.LAUNCH_TEMPLATE, aws.SECURITY_GROUP
SG_RULE, SG_INGRESS, SG_EGRESS = aws.SG_RULE, aws.SG_INGRESS, aws.SG_EGRESS
SUBNET, PLACEMENT_GROUP = aws.SUBNET, aws.PLACEMENT_GROUP

#: The types :func:`inventory_from_resources` reads into the inventory's collections with no other resource beside
#: them (a security group's rule alone makes its group); a placement group is read through the launch templates
#: that name it, and the Kubernetes objects by :func:`~.k8s.kubernetes_api`
_READ_ALONE = frozenset({SECURITY_GROUP, LAUNCH_TEMPLATE, SUBNET, SG_RULE, SG_INGRESS, SG_EGRESS, NODE_GROUP})


def read_alone(type_: str) -> bool:
    """Whether :func:`inventory_from_resources` of one resource of type ``type_`` may put anything in one of the
    inventory's collections: ``False`` for every type it only counts as skipped (an IAM role, a VPC, a Helm
    release, a component) and for a placement group, whatever the resource's properties, once they are cleaned
    without error (they are an object). A Helm release whose chart or values say it runs vLLM is SW005's record
    instead (:func:`~.k8s.helm_release_mention`, which the pack's ``reports_nothing`` asks)."""
    return type_ in _READ_ALONE or kubernetes_api(type_) is not None


#: The types whose readers take the :class:`aws.Index`: the security groups and their rules, the launch templates
#: and the node groups
_INDEXED = frozenset({SECURITY_GROUP, LAUNCH_TEMPLATE, SG_RULE, SG_INGRESS, SG_EGRESS, NODE_GROUP})

_URN_RE = re.compile(r'"urn"\s*:\s*"(urn:pulumi:[^"]+)"')


def inventory_from_resources(resources: Iterable[PulumiResource], *,
                             errors: list[tuple[PulumiResource, str]] | None = None,
                             resolve: bool = True,
                             clean_of: Callable[[PulumiResource], Any] | None = None,
                             kubernetes_of: Callable[[PulumiResource, Mapping[str, Any], tuple[str, str]], Inventory]
                             | None = None) -> Inventory:
    """Turn engine resources into one inventory.

    A resource that cannot be read raises :class:`InputError` naming its URN, or, when ``errors``
    is given, is recorded there as (resource, message) and left out. ``resolve`` matches
    workloads to node pools (:func:`~shardwise.rules.adapters.k8s.resolve_pools`). ``clean_of(res)``, where
    given, is what :func:`~.values.clean` makes of ``res.props`` (a memo of it: the policy pack's, which reads
    a resource in ``Analyze`` and again in ``AnalyzeStack``); it must equal ``clean(res.props)`` and raise what
    that raises. ``kubernetes_of(res, props, api)``, where given, is what
    :func:`~.k8s.kubernetes` reads of a Kubernetes object (the pack's memo: :meth:`~shardwise.rules.app.crossguard.
    AnalyzedInputs.kubernetes`); it must give what that gives and raise what that raises.
    """
    cleaned: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    inv = Inventory()

    def fail(res: PulumiResource, exc: Exception) -> None:
        if isinstance(exc, InputError):
            msg = exc.message
        elif isinstance(exc, RecursionError):
            msg = "properties nested too deeply"
        else:
            msg = f"{type(exc).__name__}: {exc}"
        if errors is None:
            raise InputError(f"{res.type} {res.urn}: {msg}", res.file, res.line) from exc
        errors.append((res, msg))

    at_line: dict[str, bool | None] = {}  # a finding placed at a resource's line but not its URN (its securityContext)
    parents: set[str] = set()  # the URNs of the resources that have a child among these (a component's objects)
    for res in resources:
        if res.parent:
            parents.add(res.parent)
        if res.masked is not None:
            inv.masked[res.urn] = res.masked
        if res.file and res.line:
            key = f"{res.file}:{res.line}"
            at_line[key] = None if key in at_line else res.masked  # two resources on one line: neither is said
        try:
            props = clean(res.props) if clean_of is None else clean_of(res)
            if not isinstance(props, Mapping):
                raise InputError(f"properties are a {type(props).__name__}, not an object")
        except Exception as exc:  # noqa: BLE001 - one bad resource must not hide the rest
            fail(res, exc)
            continue
        cleaned.append((res, props))
    inv.masked.update({key: only for key, only in at_line.items() if only is not None})
    # only the AWS readers below resolve references through the index: a request of none of their types (the pack's
    # Analyze of one Kubernetes object, a role...) does not index its resources (packspeed21)
    index = aws.Index(cleaned if any(res.type in _INDEXED for res, _ in cleaned) else ())

    sgs: dict[str, SecurityGroup] = {}
    templates: dict[str, tuple[LaunchTemplate, aws.LaunchExtras]] = {}
    rules: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    groups: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    for res, props in cleaned:
        try:
            if res.type == SECURITY_GROUP:
                sgs[res.urn] = aws.security_group(res, props, index)
                inv.security_groups.append(sgs[res.urn])
            elif res.type == LAUNCH_TEMPLATE:
                templates[res.urn] = aws.launch_template(res, props, index)
                inv.launch_templates.append(templates[res.urn][0])
            elif res.type == SUBNET:
                inv.subnets.append(aws.subnet(res, props))
            elif res.type in (SG_RULE, SG_INGRESS, SG_EGRESS):
                rules.append((res, props))
            elif res.type == NODE_GROUP:
                groups.append((res, props))
            elif res.type == PLACEMENT_GROUP:
                pass  # read through the launch templates that name it
            elif (api := kubernetes_api(res.type)) is not None:
                inv.extend(kubernetes(res, props, api) if kubernetes_of is None else kubernetes_of(res, props, api))
            elif res.type in CONFIG_FILES:
                if not config_file_unread(res, props, inv, res.urn in parents):  # its objects, when known, its children
                    inv.skipped[res.type] += 1
            elif res.type in SDK_RENDERERS:
                if not sdk_renderer_unread(res, inv, res.urn in parents):
                    inv.skipped[res.type] += 1
            elif res.type != HELM_RELEASE or not helm_release_unread(res, props, inv):
                inv.skipped[res.type] += 1
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
    for res, props in rules:
        try:
            target, rule, suppressions = aws.rule_resource(res, props, index)
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
            continue
        sg = sgs.get(target) if isinstance(target, str) else None
        if sg is None:  # a group not in the inputs (or not known yet): keep the rule visible
            key = target if isinstance(target, str) else f"{res.name} (security group unknown)"
            sg = sgs.get(key)
            if sg is None:
                sg = SecurityGroup(name=key, id=target if isinstance(target, str) else None,
                                   location=res.location)
                sgs[key] = sg
                inv.security_groups.append(sg)
        sg.rules.append(rule)
        sg.suppressions.extend(s for s in suppressions if s not in sg.suppressions)
    for res, props in groups:
        try:
            inv.pools.extend(aws.node_group(res, props, index, templates))
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
    if resolve:
        resolve_pools(inv)
    return inv


# ---------------------------------------------------------------------------------------------
# preview --json / stack export files
# ---------------------------------------------------------------------------------------------

_SKIP_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace",
                       "read-discard"})


def is_pulumi_json(data: Any) -> bool:
    """Whether parsed JSON is a ``pulumi preview --json`` or ``pulumi stack export`` document."""
    if not isinstance(data, Mapping):
        return False
    dep = data.get("deployment")
    if isinstance(dep, Mapping) and isinstance(dep.get("resources"), list):
        return True
    steps = data.get("steps")
    if isinstance(steps, list) and ("changeSummary" in data or any(
            isinstance(s, Mapping) and "op" in s for s in steps)):
        return True
    res = data.get("resources")
    return isinstance(res, list) and bool(res) and all(
        isinstance(r, Mapping) and "urn" in r and "type" in r for r in res)


def _urn_lines(text: str | None) -> dict[str, int]:
    if not text:
        return {}
    out: dict[str, int] = {}
    line, pos = 1, 0
    for m in _URN_RE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.setdefault(m.group(1), line)
    return out


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def _item_line(text: str | None, path: tuple[str, ...], index: int) -> int | None:
    """The line on which element ``index`` of the array at ``path`` (object keys from the root)
    starts in the JSON ``text``; None when there is no text or no such element. Used only for
    error messages, so it scans the text on demand."""
    if not text:
        return None
    # one frame per open container: [kind, its position in its parent, current key or index, expecting a key]
    frames: list[list[Any]] = []
    for m in _JSON_TOKEN.finditer(text):
        t = m.group()
        top = frames[-1] if frames else None
        if t == ",":
            if top is not None:
                if top[0] == "[":
                    top[2] += 1
                else:
                    top[3] = True
            continue
        if t == ":":
            if top is not None:
                top[3] = False
            continue
        if t in "}]":
            if frames:
                frames.pop()
            continue
        if top is not None and top[0] == "{" and top[3]:
            top[2] = t[1:-1] if t.startswith('"') else t  # an object key
            continue
        if (top is not None and top[0] == "[" and top[2] == index
                and tuple(f[1] for f in frames[1:]) == path):
            return text.count("\n", 0, m.start()) + 1
        if t in "{[":
            frames.append([t, top[2] if top is not None else None, 0 if t == "[" else None, t == "{"])
    return None


def _or_empty(value: Any, empty: Any) -> Any:
    return empty if value is None else value


def _state_resource(state: Mapping[str, Any], file: str, lines: Mapping[str, int], where: str,
                    line: int | None = None, preview: bool = False, op: str | None = None) -> PulumiResource | None:
    """One resource of a preview step (``preview``: its ``[secret]`` values are unknown, :func:`unmask_preview_secrets`)
    or of a state export; None for the stack, a provider or a resource being deleted."""
    urn = state.get("urn")
    rtype = state.get("type")
    if not isinstance(urn, str) or not isinstance(rtype, str):
        missing = "urn" if not isinstance(urn, str) else "type"
        raise InputError(f"{where}: a resource without a {missing} (a string)", file,
                         lines.get(urn, line) if isinstance(urn, str) else line)
    line = lines.get(urn, line)
    if rtype == "pulumi:pulumi:Stack" or rtype.startswith("pulumi:providers:") or state.get("delete"):
        return None
    # absent or null is none; any other value of another type is an input error (hostile9: ``inputs: []`` was read
    # as none, so a Deployment with its properties in a list was no workload, silently)
    inputs = _or_empty(state.get("inputs"), {})
    outputs = _or_empty(state.get("outputs"), {})
    if not isinstance(inputs, Mapping) or not isinstance(outputs, Mapping):
        bad, value = ("inputs", inputs) if not isinstance(inputs, Mapping) else ("outputs", outputs)
        raise InputError(f"{urn}: inputs and outputs must be objects ({bad} is {json_type(value)})", file, line)
    masked: bool | None = None
    if preview:
        raw = (inputs, outputs)
        inputs, outputs = unmask_preview_secrets(inputs), unmask_preview_secrets(outputs)
        if inputs is not raw[0] or outputs is not raw[1]:  # secrets masked: its only unknowns, or computed ones too
            masked = not (holds_unknown(raw[0]) or holds_unknown(raw[1]))
    deps = _or_empty(state.get("propertyDependencies"), {})
    if not isinstance(deps, Mapping):
        raise InputError(f"{urn}: propertyDependencies must be an object, got {json_type(deps)}", file, line)
    dependencies = _or_empty(state.get("dependencies"), [])
    if not isinstance(dependencies, list):
        raise InputError(f"{urn}: dependencies must be an array, got {json_type(dependencies)}", file, line)
    rid = state.get("id")
    return PulumiResource(
        type=rtype, name=name_from_urn(urn), urn=urn, props=merge_state(inputs, outputs),
        id=rid if isinstance(rid, str) and rid and rid not in UNKNOWN_SENTINELS else None,
        parent=state.get("parent") if isinstance(state.get("parent"), str) else None,
        dependencies=tuple(d for d in dependencies if isinstance(d, str)),
        property_dependencies={str(k): tuple(u for u in v if isinstance(u, str))
                               for k, v in deps.items() if isinstance(v, list)},
        file=file, line=line, masked=masked, op=op,
    )


def resources_from_json(data: Any, file: str, text: str | None = None) -> list[PulumiResource]:
    """The resources of a preview (``steps[].newState``) or state export (``deployment.resources``)."""
    if not is_pulumi_json(data):
        raise InputError("not a `pulumi preview --json` or `pulumi stack export` document", file)
    lines = _urn_lines(text)
    out: list[PulumiResource] = []
    dep = data.get("deployment")
    export = isinstance(dep, Mapping) and isinstance(dep.get("resources"), list)
    if not export and isinstance(data.get("steps"), list):
        for i, step in enumerate(data["steps"]):
            if not isinstance(step, Mapping):
                raise InputError(f"steps[{i}]: a step is not an object (found {json_type(step)})", file,
                                 _item_line(text, ("steps",), i))
            step_urn = step.get("urn")
            step_line = lines.get(step_urn) if isinstance(step_urn, str) else None
            if step_line is None:
                step_line = _item_line(text, ("steps",), i)
            op = step.get("op")
            if op is not None and not isinstance(op, str):
                raise InputError(f"steps[{i}].op: expected a string such as \"create\", got {json_type(op)}",
                                 file, step_line)
            if op in _SKIP_OPS:
                continue
            key = next((k for k in ("newState", "resource", "new") if step.get(k) is not None), "newState")
            state = step.get(key)
            if state is None:
                continue  # a step without a new state
            if not isinstance(state, Mapping):
                raise InputError(f"steps[{i}].{key}: expected a resource (an object), found {json_type(state)}",
                                 file, step_line)
            res = _state_resource(state, file, lines, f"steps[{i}].{key}", step_line, preview=True, op=op)
            if res is not None:
                out.append(res)
        return out
    if not export:  # a bare resource list
        dep = data
    path = ("deployment", "resources") if export else ("resources",)
    for i, state in enumerate(dep["resources"]):
        where = f"{'deployment.' if export else ''}resources[{i}]"
        if not isinstance(state, Mapping):
            raise InputError(f"{where}: a resource entry is not an object (found {json_type(state)})", file,
                             _item_line(text, path, i))
        urn = state.get("urn")
        line = lines.get(urn) if isinstance(urn, str) else None
        res = _state_resource(state, file, lines, where, line if line is not None else _item_line(text, path, i))
        if res is not None:
            out.append(res)
    return out


def inventory_from_pulumi_json(data: Any, file: str, text: str | None = None) -> Inventory:
    """A parsed preview/export document -> inventory (``text`` lets findings point at lines; without
    it the file is read again when it exists)."""
    if text is None and file and os.path.isfile(file):
        try:
            text = read_text(file)
        except InputError:
            text = None
    inv = inventory_from_resources(resources_from_json(data, file, text), resolve=False)
    inv.sources.append(file)
    return inv


def load_pulumi_json(path: str) -> Inventory:
    """Read a ``pulumi preview --json`` or ``pulumi stack export`` file (``-`` for stdin)."""
    text = read_text(path)
    file = "<stdin>" if path == "-" else path
    inv = inventory_from_pulumi_json(parse_json(text, file), file, text)
    resolve_pools(inv)
    return inv
