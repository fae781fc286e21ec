"""The accelerator request of a group's pods, in vLLM devices (SW204, SW208)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..capacity.group import gpu_of
from ..catalog.accelerators import (
    DeviceAnnotation,
    device_annotations,
    devices_per_unit,
    family_known,
    layout_counts_devices,
)
from ..model import DeviceClaim, Inventory, ServingGroup, Undecidable, is_unknown, known
from ..model.vocab import GPU_RESOURCE


@dataclass(frozen=True)
class Request:
    """What the vLLM container requests: ``units`` of ``resource``, each ``lo`` to ``hi`` vLLM devices (the
    vendor table's range, narrowed by the node pool's accelerator where a resource has several families)."""

    units: int
    resource: str
    lo: int = 1
    hi: int = 1

    def text(self, word: str = "device") -> str:
        """``4 google.com/tpu``, with the vLLM devices they hold where a unit is not one device, each called ``word``
        (:func:`..catalog.accelerators.device_word` with ``rank``: ``24 to 96 NeuronCores`` for 12
        aws.amazon.com/neuron; mend30: it said "devices", which on Neuron are what the resource counts); "devices"
        for a GPU family's (an Intel GPU's tiles are vLLM's devices, not GPUs)."""
        word = "device" if word == "GPU" else word
        if self.lo == self.hi == 1:
            return f"{self.units} {self.resource}"
        if self.lo == self.hi:
            return f"{self.units} {self.resource} ({self.units * self.lo:,} {word}s)"
        return f"{self.units} {self.resource} ({self.units * self.lo:,} to {self.units * self.hi:,} {word}s)"


def gpu_request(g: ServingGroup) -> tuple[Request | None, str]:
    """(what the vLLM container requests, the resource it comes from); None when it requests none.

    Raises :class:`Undecidable` when the count is not known, when the resource is of a family the vendor
    table does not know, or when it comes from a resource claim whose device count was not read. Returns
    (None, resource) too for families whose layout flags do not count devices (see ``counts_layout``)."""
    c = g.main_container
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None) or GPU_RESOURCE
    if not family_known(resource):
        raise Undecidable(f"what {resource} holds",
                          "an extended resource of an accelerator family the vendor table has no record of: add "
                          "one to rules/catalog/data/accelerators.json")
    if c is not None and c.resource_claims and (g.gpus_per_pod is None or is_unknown(g.gpus_per_pod)):
        claims = ", ".join(f"`{n}`" for n in c.resource_claims)
        if g.gpus_per_pod is None and c.claims_unread:
            raise Undecidable(f"the device count of container `{c.name}`",
                              f"they come from the resource claim {claims} (dynamic resource allocation), and "
                              f"{c.claims_unread}")
        if g.gpus_per_pod is None:
            refs = [c.claim_refs.get(n) for n in c.resource_claims]
            named = ", ".join(f"{r[0]} `{r[1]}`" for r in refs if r is not None) or "the objects they name"
            raise Undecidable(f"the device count of container `{c.name}`",
                              f"they come from the resource claim {claims} (dynamic resource allocation), and "
                              f"{named} is not in the inputs; lint it together with the workload")
        raise Undecidable(f"the device count of container `{c.name}`",
                          f"the resource claim {claims} asks for every device of its class (allocationMode All) or "
                          "for a prioritized list, so the count depends on the node")
    if is_unknown(g.gpus_per_pod) and g.pool is not None and g.pool.kind == "resource-profile":
        raise Undecidable(f"the accelerator count of KubeAI's {g.pool.name}",
                          "the profile is not one of KubeAI's defaults: the operator gives the pod its limits × the "
                          "count, and those are in KubeAI's configuration (the Helm values' resourceProfiles), which "
                          "is not in the inputs")
    if is_unknown(g.gpus_per_pod) and g.gpus_undecided is not None:
        raise Undecidable(*g.gpus_undecided)
    gpus = known(g.gpus_per_pod, "the GPU request (nvidia.com/gpu limit)")
    if gpus is None:
        return None, resource
    gpu = gpu_of(g)
    span = devices_per_unit(resource, gpu.architecture if gpu is not None else None) or (1, 1)
    return Request(int(gpus), resource, *span), resource


def check_server_elsewhere(g: ServingGroup) -> None:
    """Raise :class:`Undecidable` when the container read as the vLLM server requests no accelerator but another
    container of its pod, which runs nothing shardwise reads as vLLM, does: that one may be the server (a custom
    image whose entrypoint shardwise cannot see) and the one read a client or helper of it (SW204, before it says
    the server requests no GPUs)."""
    c = g.main_container
    if c is None:
        return
    for other in g.containers:
        if other is c or other.runs_vllm or other.gpus is None or other.gpus == 0:
            continue
        what = other.accelerator_resource or GPU_RESOURCE
        count = "some" if is_unknown(other.gpus) else str(other.gpus)
        raise Undecidable("which container of the pod runs the vLLM server",
                          f"container `{c.name}` reads as vLLM and requests no accelerator, but container "
                          f"`{other.name}` requests {count} {what} and runs a command shardwise does not read; "
                          "if that one is the server, give it its `vllm serve` command or args")


def counts_layout(g: ServingGroup) -> bool:
    """Whether the group's accelerators are counted by vLLM's layout (not Rebellions ATOM or Furiosa RNGD,
    whose compilers split the model over devices themselves)."""
    resource = g.accelerator_resource
    return resource is None or not family_known(resource) or layout_counts_devices(resource)


_LEADING_INT = re.compile(r"^\s*(\d+)")


@dataclass(frozen=True)
class AnnotatedDevices:
    """Accelerators a pod asks for by an annotation that an admission webhook or a scheduler reads (the table's
    ``device_annotations``), not in its resources: ``count`` devices, None where the value gives no count."""

    record: DeviceAnnotation
    value: str
    count: int | None

    def text(self) -> str:
        return f"`{self.record.annotation}: {self.value}`"


def annotated_devices(g: ServingGroup) -> AnnotatedDevices | None:
    """The first device annotation of the group's pod (template) metadata, or None when it carries none."""
    ann = g.annotations if isinstance(g.annotations, dict) else {}
    for rec in device_annotations():
        value = ann.get(rec.annotation)
        if not isinstance(value, str) or not value.strip() or (rec.kinds and g.kind not in rec.kinds):
            continue
        if rec.counts == "profile" and g.hardware_profile is not None:
            continue  # the profile is in the inputs: what it gives is the group's request already
        count: int | None
        if rec.counts == "count":
            m = _LEADING_INT.match(value)
            count = int(m.group(1)) if m else None
        elif rec.counts == "profile":  # the count is the named object's, which the annotation does not hold
            count = None
        else:  # a share of one device, or of the devices its count annotation names
            n = ann.get(rec.count_annotation) if rec.count_annotation else None
            m = _LEADING_INT.match(n) if isinstance(n, str) else None
            count = int(m.group(1)) if m else (1 if n is None else None)
        return AnnotatedDevices(rec, value.strip(), count)
    return None


def device_claims(g: ServingGroup, inv: Inventory) -> list[DeviceClaim]:
    """The ResourceClaims and ResourceClaimTemplates of the inputs that give the vLLM container its devices (dynamic
    resource allocation): those its ``resources.claims`` name through the pod's ``spec.resourceClaims`` and that ask
    for devices; empty where the container names none, or the inputs hold none of them."""
    c = g.main_container
    if c is None or not c.resource_claims or not inv.device_claims:
        return []
    index = {(d.kind, d.namespace, d.name): d for d in inv.device_claims}
    out = []
    for name in c.resource_claims:
        kind, ref = c.claim_refs.get(name, ("", None))
        claim = index.get((kind, g.namespace, str(ref))) if ref is not None and not is_unknown(ref) else None
        if claim is not None and claim.count is not None:
            out.append(claim)
    return out


def unschedulable_reason(g: ServingGroup, inv: Inventory, unit: str | None = None) -> str:
    """What the scheduler says of a pod whose accelerators no node can give, for the request's resource model.
    Devices by dynamic resource allocation: kube-scheduler's DynamicResources filter fails the node with
    ``cannot allocate all claims`` (kubernetes/kubernetes, pkg/scheduler/framework/plugins/dynamicresources/
    dynamicresources.go, Filter); the pod requests no extended resource, so no ``Insufficient`` is said. An extended
    resource (a device plugin's ``nvidia.com/gpu``, ``nvidia.com/mig-3g.47gb``): the NodeResourcesFit filter's
    ``Insufficient <resource>`` (pkg/scheduler/framework/plugins/noderesources/fit.go)."""
    if device_claims(g, inv):
        return "cannot allocate all claims: no node has the devices its resource claims ask for"
    return f"Insufficient {unit or g.accelerator_resource or GPU_RESOURCE}"
