"""The accelerator request of a group's pods, in vLLM devices (SW204, SW208)."""

from __future__ import annotations

from dataclasses import dataclass

from ..capacity.group import gpu_of
from ..catalog.accelerators import devices_per_unit, family_known, layout_counts_devices
from ..model import ServingGroup, Undecidable, is_unknown, known
from ..model.vocab import GPU_RESOURCE


@dataclass(frozen=True)
class Request:
    """What the vLLM container requests: ``units`` of ``resource``, each ``lo`` to ``hi`` vLLM devices (the
    vendor table's range, narrowed by the node pool's accelerator where a resource has several families)."""

    units: int
    resource: str
    lo: int = 1
    hi: int = 1

    def text(self) -> str:
        """``4 google.com/tpu``, with the devices they hold where a unit is not one device."""
        if self.lo == self.hi == 1:
            return f"{self.units} {self.resource}"
        if self.lo == self.hi:
            return f"{self.units} {self.resource} ({self.units * self.lo} devices)"
        return f"{self.units} {self.resource} ({self.units * self.lo} to {self.units * self.hi} devices)"


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
        if g.gpus_per_pod is None:
            refs = [c.claim_refs.get(n) for n in c.resource_claims]
            named = ", ".join(f"{r[0]} `{r[1]}`" for r in refs if r is not None) or "the objects they name"
            raise Undecidable(f"the device count of container `{c.name}`",
                              f"they come from the resource claim {claims} (dynamic resource allocation), and "
                              f"{named} is not in the inputs; lint it together with the workload")
        raise Undecidable(f"the device count of container `{c.name}`",
                          f"the resource claim {claims} asks for every device of its class (allocationMode All) or "
                          "for a prioritized list, so the count depends on the node")
    gpus = known(g.gpus_per_pod, "the GPU request (nvidia.com/gpu limit)")
    if gpus is None:
        return None, resource
    gpu = gpu_of(g)
    span = devices_per_unit(resource, gpu.architecture if gpu is not None else None) or (1, 1)
    return Request(int(gpus), resource, *span), resource


def counts_layout(g: ServingGroup) -> bool:
    """Whether the group's accelerators are counted by vLLM's layout (not Rebellions ATOM or Furiosa RNGD,
    whose compilers split the model over devices themselves)."""
    resource = g.accelerator_resource
    return resource is None or not family_known(resource) or layout_counts_devices(resource)
