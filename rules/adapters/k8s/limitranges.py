"""LimitRanges (core v1), and what the LimitRanger admission plugin writes into, or refuses of, the pods of a namespace.

Kubernetes v1.35.4:

- The API server stores a ``type: Container`` item with its defaults filled in: a ``max`` without a ``default`` of
  that resource becomes the default limit, a ``default`` without a ``defaultRequest`` the default request
  (pkg/apis/core/v1/defaults.go, ``SetDefaults_LimitRangeItem``).
- On every Pod created in the namespace (Pods only: ``SupportsAttributes``; so also the pods a Deployment,
  StatefulSet, Job, LeaderWorkerSet or an operator creates), the plugin gives each container, and each init
  container, the default limit and request of a resource it does not write (plugin/pkg/admission/limitranger/
  admission.go, ``defaultContainerResourceRequirements``, ``mergeContainerResources``): a vLLM container that writes
  no GPU gets the namespace's default GPUs.
- It then refuses (403 Forbidden) a Pod whose container's limit is above a Container item's ``max``, or whose
  containers' limits sum above a Pod item's ``max`` (``PodValidateLimitFunc``, ``maxConstraint``: "maximum
  nvidia.com/gpu usage per Container is 1, but limit is 2"). A controller's pods are never created. A container that
  writes a GPU request above the max and no limit gets the default limit first (at most the max), so its request is
  not its limit: the API server's validation, which runs between the mutating and the validating admission, refuses
  the pod ("must be equal to nvidia.com/gpu limit", pkg/apis/core/validation/validation.go), and the LimitRanger's
  own check would say "maximum nvidia.com/gpu usage per Container is 1, but request is 2" (``maxConstraint``
  checks the limit, then the request).
- Every LimitRange of the namespace is applied in turn; which default wins where two give one resource different
  defaults is not deterministic (kubernetes.io, "Limit Ranges": "If there are two or more LimitRange objects in a
  namespace, it is not deterministic which default value will be applied"): the count is then unknown.

Only accelerator resources (``nvidia.com/gpu``, ``amd.com/gpu``: an extended resource the pod reader takes for one,
``catalog.accelerators.is_extended_resource``) are read: the rules size nothing else, and a default of an EFA or RDMA
device (``vpc.amazonaws.com/efa``, ``rdma/hca_shared_devices_a``) is no GPU count. A value not known yet (a
preview's computed value, a template placeholder) makes what it decides unknown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...catalog.accelerators import is_extended_resource
from ...model import UNKNOWN, Inventory, LimitRange, Location, ServingGroup
from ...model.errors import InputError
from ...model.unknown import is_placeholder
from .fields import as_list, as_map, line_of, whole_quantity


def _accelerator(resource: str) -> bool:
    """Whether a resource name may be an accelerator (``nvidia.com/gpu``), as the pod reader takes a container's
    request for one: not cpu, memory or a ``kubernetes.io/`` name, nor a network, storage or security device the
    accelerator table lists (``vpc.amazonaws.com/efa``, ``rdma/``), whose default is no GPU count."""
    return is_extended_resource(resource)


def _count(value: Any) -> Any:
    if value is UNKNOWN or is_placeholder(value):
        return UNKNOWN
    n = whole_quantity(value)
    return UNKNOWN if n is None else n


def add_limit_range(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta = as_map(obj.get("metadata"))
    spec = obj.get("spec")
    lr = LimitRange(name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
                    location=loc)
    if spec is UNKNOWN:  # a preview's computed spec: any default, any max
        lr.default["*"] = UNKNOWN
        inv.limit_ranges.append(lr)
        return
    limits = as_map(spec).get("limits")
    items = [UNKNOWN] if limits is UNKNOWN else as_list(limits)
    for item in items:
        if item is UNKNOWN:
            lr.default["*"] = UNKNOWN
            continue
        item = as_map(item)
        kind = item.get("type")
        if kind is UNKNOWN:
            lr.default["*"] = UNKNOWN
            continue
        for part in ("default", "max"):
            section = item.get(part)
            if section is UNKNOWN:
                lr.default["*"] = UNKNOWN
                continue
            for name, value in as_map(section).items():
                name = str(name)
                if not _accelerator(name):
                    continue
                at = Location(loc.file, line_of(section, name) or loc.line)
                if kind == "Container":
                    target = lr.default if part == "default" else lr.max
                    target[name] = _count(value)
                    lr.locations[f"{part}:{name}"] = at
                elif kind == "Pod" and part == "max":
                    lr.pod_max[name] = _count(value)
                    lr.locations[f"pod:{name}"] = at
    for name, value in lr.max.items():  # SetDefaults_LimitRangeItem: a max without a default is the default
        if name not in lr.default:
            lr.default[name] = value
            lr.locations[f"default:{name}"] = lr.locations[f"max:{name}"]
    inv.limit_ranges.append(lr)


def _default(ranges: list[LimitRange], resource: str | None) -> tuple[str, Any, LimitRange] | None:
    """(resource, count, the LimitRange that gives it) of the default limit a container that writes no accelerator
    gets from ``ranges``; the count is UNKNOWN where a value is not known yet or two LimitRanges give different
    ones. None where none gives one."""
    found: list[tuple[str, Any, LimitRange]] = []
    for lr in ranges:
        if "*" in lr.default:
            found.append((resource or "*", UNKNOWN, lr))
        for name, value in lr.default.items():
            if name != "*" and resource in (None, name):
                found.append((name, value, lr))
    if not found:
        return None
    names = {name for name, _, _ in found if name != "*"}
    values = {id(v) if v is UNKNOWN else v for _, v, _ in found}
    first = next((f for f in found if f[0] != "*"), found[0])
    if len(names) > 1 or len(values) > 1 or first[1] is UNKNOWN:
        return first[0], UNKNOWN, first[2]
    return first


def _refusal(g: ServingGroup, ranges: list[LimitRange]) -> InputError | None:
    """Why the LimitRanger refuses the group's pods (a limit above a ``max`` of ``ranges``), or None."""
    resource, own, pod = g.accelerator_resource, g.gpus_per_pod, g.scheduled_gpus
    if resource is None:
        return None
    subject = f"{g.kind} {g.namespace}/{g.name}"
    for lr in ranges:
        for part, most, asked in (("Container", lr.max.get(resource), own), ("Pod", lr.pod_max.get(resource), pod)):
            if not isinstance(most, int) or not isinstance(asked, int) or asked <= most:
                continue
            key = f"{'max' if part == 'Container' else 'pod'}:{resource}"
            where = lr.locations.get(key, lr.location)
            what = "a pod" if g.kind == "Pod" else "its pods"
            server = g.main_container
            default = lr.default.get(resource)
            if (part == "Container" and server is not None and server.gpus_request_only and server.gpus == asked
                    and isinstance(default, int)):
                # the container writes a request and no limit: the LimitRanger's defaults give it the default limit
                # (the max where no default is written), at most the max, so the request is above its limit, and
                # the API server's validation refuses the pod before the LimitRanger's own max check runs
                return InputError(
                    f"{subject}: {asked} {resource} requested per container without a limit, but LimitRange "
                    f"{lr.namespace}/{lr.name} ({where.file}:{where.line}) allows at most {most} per Container; "
                    f"Kubernetes' LimitRanger gives the container its default limit, {default}, and the API server "
                    f"refuses {what} (\"must be equal to {resource} limit\"; the LimitRanger's own check would say "
                    f"\"maximum {resource} usage per {part} is {most}, but request is {asked}\") and none runs: lower "
                    f"the count to {most} or raise the LimitRange's max",
                    g.at("resources").file, g.at("resources").line)
            return InputError(
                f"{subject}: {asked} {resource} per {part.lower()}, but LimitRange {lr.namespace}/{lr.name} "
                f"({where.file}:{where.line}) allows at most {most} per {part}; Kubernetes' LimitRanger refuses "
                f"{what} (\"maximum {resource} usage per {part} is {most}, but limit is {asked}\") and none runs: "
                f"lower the count to {most} or raise the LimitRange's max",
                g.at("resources").file, g.at("resources").line)
    return _request_not_default(g, ranges)


def _request_not_default(g: ServingGroup, ranges: list[LimitRange]) -> InputError | None:
    """Why the API server refuses the pods of a group whose vLLM container writes its GPUs as a request without a limit
    where the namespace's LimitRanges give it a default limit of another count: the LimitRanger writes that limit at
    admission (``mergeContainerResources``), and the validation that follows refuses an extended resource's request
    that is not its limit (pkg/apis/core/validation/validation.go: "must be equal to nvidia.com/gpu limit"). None
    where no LimitRange gives a default, the default is the request, or it is not known (two LimitRanges with other
    defaults: which one applies is not deterministic)."""
    server, resource, asked = g.main_container, g.accelerator_resource, g.gpus_per_pod
    if server is None or not server.gpus_request_only or resource is None or not isinstance(asked, int):
        return None
    found = _default(ranges, resource)
    if found is None or not isinstance(found[1], int) or found[1] == asked:
        return None
    _, default, lr = found
    where = lr.locations.get(f"default:{resource}", lr.location)
    what = "a pod" if g.kind == "Pod" else "its pods"
    return InputError(
        f"{g.kind} {g.namespace}/{g.name}: {asked} {resource} requested per container without a limit, and LimitRange "
        f"{lr.namespace}/{lr.name} ({where.file}:{where.line}) gives the container a default limit of {default}; "
        f"Kubernetes' LimitRanger writes that limit at admission and the API server refuses {what} (\"must be equal to "
        f"{resource} limit\": {resource} is never overcommitted, so a container's request must equal its limit) and "
        f"none runs: write the count under limits (the request defaults to it)",
        g.at("resources").file, g.at("resources").line)


def apply_limit_ranges(inv: Inventory) -> None:
    """Give each group of ``inv`` what the LimitRanges of its namespace and deployable unit write into its pods at
    admission, and make an input error of a group whose pods they refuse (the group is then not sized)."""
    keep: list[ServingGroup] = []
    for g in inv.groups:
        if g.template or not g.placement_known or g.fragment is not None or g.unknown_operator:
            # a runtime read alone, a plan: no namespace of its own; a patch or an unknown operator's object: the
            # base or the operator may write the pod's GPUs
            keep.append(g)
            continue
        ranges = [lr for lr in inv.limit_ranges
                  if lr.namespace == g.namespace and inv.same_unit(lr.location.file, g.location.file)]
        if not ranges:
            keep.append(g)
            continue
        if g.gpus_per_pod is None or g.limit_range is not None:
            _give_default(g, ranges)
        else:
            _give_others_default(g, ranges)
        error = _refusal(g, ranges)
        if error is not None:
            inv.errors.append(error)
            continue
        keep.append(g)
    inv.groups[:] = keep


def _give_default(g: ServingGroup, ranges: list[LimitRange]) -> None:
    """The default GPUs of ``ranges`` on a group whose server container writes none (again on a second pass, where
    the inputs now hold more LimitRanges)."""
    found = _default(ranges, g.accelerator_resource if g.limit_range is None else None)
    if found is None:
        return
    resource, count, lr = found
    if resource == "*":  # a LimitRange not known yet, no resource named: what it gives is not known
        resource = g.accelerator_resource or "nvidia.com/gpu"
    g.gpus_per_pod, g.accelerator_resource = count, resource
    g.limit_range = f"{lr.namespace}/{lr.name}"
    g.locations["resources"] = lr.locations.get(f"default:{resource}", lr.location)
    server = g.main_container
    total = count
    others = False
    for c in g.containers:
        if c is server:
            c.gpus, c.accelerator_resource = count, resource
            continue
        if c.gpus is None or c.accelerator_resource not in (None, resource):  # the default is its count too
            n = count
        else:
            n = c.gpus
        if n is UNKNOWN or total is UNKNOWN:
            total = UNKNOWN
        elif isinstance(n, int) and isinstance(total, int):
            total += n
        others = others or bool(n)
    g.pod_gpus = total if others else None


_GIVEN = "the default of LimitRange"


def _give_others_default(g: ServingGroup, ranges: list[LimitRange]) -> None:
    """The default GPUs of ``ranges`` on the other containers of a group whose server container writes its own: the
    LimitRanger gives every container that writes none of the resource the default (``mergeContainerResources``), a
    proxy or log sidecar beside vLLM included, and the scheduler counts the pod's containers together (KEP-753), so
    the pod requests the server's count and the default once for each of them (:attr:`ServingGroup.pod_gpus`; a
    default not known yet: UNKNOWN). Where the pod's count is the peak of an init container, the containers' sum is
    not kept: the larger of that peak and the server's count with the defaults is taken (the fewest it may be)."""
    resource = g.accelerator_resource
    if resource is None or any(_GIVEN in f for f in g.pod_gpus_from):
        return  # (given on the first pass: resolve_pools may run again)
    server = g.main_container
    bare = [c for c in g.containers if c is not server and c.gpus is None]
    found = _default(ranges, resource) if bare else None
    if found is None:
        return
    _, count, lr = found
    if count is not UNKNOWN and (not isinstance(count, int) or count <= 0):
        return
    given = tuple(f"container `{c.name}` ({'a count not known yet' if count is UNKNOWN else count}, {_GIVEN} "
                  f"{lr.namespace}/{lr.name}, which {resource}: 0 in its limits declines)" for c in bare)
    total, own = g.scheduled_gpus, g.gpus_per_pod
    if count is UNKNOWN or total is UNKNOWN or not isinstance(total, int) or not isinstance(own, int):
        g.pod_gpus = UNKNOWN
    elif g.pod_gpus_from and g.pod_gpus_from[-1].startswith("init container `"):
        g.pod_gpus = max(total, own + count * len(bare))
    else:
        g.pod_gpus = total + count * len(bare)
    g.pod_gpus_from = (*g.pod_gpus_from, *given)
