"""SW204: a pod requests fewer GPUs than its parallel layout starts workers on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..catalog.accelerators import devices_per_unit, families_of, family_known, layout_counts_devices
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable, is_unknown, known
from ..model.vocab import GPU_RESOURCE
from ._capacity import gpu_of
from ._layout import layout, runs_on_cpu


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


def _ambiguous(req: Request) -> Undecidable:
    why = "; ".join(a.devices_why for a in families_of(req.resource) if a.devices_why)
    return Undecidable(f"how many vLLM devices {req.units} {req.resource} hold",
                       f"one holds {req.lo} to {req.hi}: {why}" if why else f"one holds {req.lo} to {req.hi}")


class GpuRequestNotTp(GroupRule):
    meta = RuleMeta(
        code="SW204",
        name="gpu-request-not-tp",
        enforcement="mandatory",
        severity="high",
        summary="A pod requests fewer GPUs than its layout (TP × PP × local DP ranks) starts vLLM workers on.",
        why=(
            "vLLM starts one worker per GPU of its layout: tensor_parallel_size × pipeline_parallel_size × "
            "the data-parallel ranks the pod runs (--data-parallel-size-local, else every rank of "
            "--data-parallel-size). The device plugin shows a container only the GPUs it requests, so with "
            "fewer the server cannot start; with none the container sees no GPU, or (with "
            "NVIDIA_VISIBLE_DEVICES=all in the image) every GPU of the node without the scheduler knowing. In "
            "a multi-node group the pods together must hold the whole layout. Requesting more than the layout "
            "uses is SW208."
        ),
        bad_example="resources:\n  limits:\n    nvidia.com/gpu: 2\nargs: [..., --tensor-parallel-size, '4']",
        good_example="resources:\n  limits:\n    nvidia.com/gpu: 4\nargs: [..., --tensor-parallel-size, '4']",
        remediation=(
            "Request tensor_parallel_size × pipeline_parallel_size × the pod's data-parallel ranks GPUs in the "
            "vLLM container, and in a LeaderWorkerSet make size × GPUs per pod equal the whole layout."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html",
            "https://lws.sigs.k8s.io/docs/",
        ),
        scope="resource",
    )
    fields = ("resources",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.kind == "plan" or runs_on_cpu(g) or not counts_layout(g):  # the CPU backend needs no accelerator
            return
        lay = layout(g)
        req, resource = gpu_request(g)
        per_pod = lay.per_pod
        if req is None:
            need = per_pod if per_pod is not None else -(-lay.world // lay.pods)
            yield hit(g, f"SW204: the vLLM container requests no GPUs ({resource} or another accelerator) but "
                         f"{lay.text()} needs {need} GPUs per pod; the device plugin gives a container only the GPUs "
                         "it requests", location=g.at("resources"))
            return
        pods = lay.pods if per_pod is None else 1
        need = lay.world if per_pod is None else per_pod
        most, fewest = pods * req.units * req.hi, pods * req.units * req.lo
        if fewest < need <= most:
            raise _ambiguous(req)
        if most >= need:
            return
        if per_pod is not None:
            in_pods = f" in each of its {lay.pods} pods" if lay.pods > 1 else ""
            yield hit(g, f"SW204: the pod requests {req.text()} but {lay.text()} starts {per_pod} "
                         f"workers{in_pods}; vLLM cannot start with fewer GPUs than workers",
                      location=g.at("resources"))
        else:
            yield hit(g, f"SW204: {lay.pods} pods × {req.text()} = {most} GPUs per group, but "
                         f"{lay.text()} needs {lay.world}; vLLM cannot place all its workers",
                      location=g.at("resources"))
