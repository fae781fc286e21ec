"""SW208: a pod requests more GPUs than its parallel layout uses."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import layout
from ..catalog.accelerators import device_word, family_known
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, is_unknown
from ._request import counts_layout, gpu_request
from ._sharing import Sharing, gpu_sharing
from ._unseen import held_back_hits


class GpusRequestedButUnused(GroupRule):
    meta = RuleMeta(
        code="SW208",
        name="gpus-requested-but-unused",
        enforcement="advisory",
        severity="medium",
        summary="A pod requests more GPUs than its layout (TP × PP × local DP ranks) starts vLLM workers on.",
        why=(
            "vLLM uses exactly tensor_parallel_size × pipeline_parallel_size × the pod's data-parallel ranks "
            "GPUs. The rest of the request is reserved for the pod, so it stays idle, is paid for, and no "
            "other pod can be scheduled on it. Requesting a whole node on purpose (to keep neighbours off its "
            "NVLink or PCIe switches) is a choice worth writing down as a suppression. With time-slicing, the "
            "units are shares of one GPU's time: more of them give a pod no more of it (NVIDIA's device plugin "
            "documentation), they only keep other pods off the GPU."
        ),
        bad_example="resources:\n  limits:\n    nvidia.com/gpu: 8\nargs: [..., --tensor-parallel-size, '4']",
        good_example="resources:\n  limits:\n    nvidia.com/gpu: 4\nargs: [..., --tensor-parallel-size, '4']",
        remediation=(
            "Request exactly the GPUs the layout uses, or raise the layout to use them: a larger "
            "--tensor-parallel-size, or --data-parallel-size for more ranks in the same pod."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html",
            "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/",
        ),
        scope="resource",
        applies_to_plans=False,
    )
    fields = ("resources",)  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its pods request more GPUs than its layout uses")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not counts_layout(g) or (g.accelerator_resource and not family_known(g.accelerator_resource)):
            return  # an accelerator family the vendor table does not know: SW204 says it cannot decide
        c = g.main_container
        if c is not None and c.resource_claims and (g.gpus_per_pod is None or is_unknown(g.gpus_per_pod)):
            return  # devices from resource claims that could not be counted: SW204 says it cannot decide
        lay = layout(g)
        req, resource = gpu_request(g)
        if req is None:
            return
        per_pod = lay.per_pod
        pods = lay.pods if per_pod is None else 1
        need = lay.world if per_pod is None else per_pod
        fewest = pods * req.units * req.lo
        if fewest <= need:  # where a unit may hold more devices than the layout uses, no claim of waste
            return
        sharing = gpu_sharing(g, inv)
        word = device_word(g, rank=True)  # mend30: what the layout counts, NeuronCores on Neuron, NPUs on Ascend
        if per_pod is not None:
            each = f" in each of its {lay.pods} pods" if lay.pods > 1 else ""
            uses = f"{per_pod}" if word == "GPU" else f"{per_pod} {word}{'s' if per_pod != 1 else ''}"
            yield hit(g, f"the pod requests {req.text(word)} but {lay.text()} uses {uses}{each}; "
                         f"{_idle(fewest - per_pod, 'pod', sharing, word)}", location=g.at("resources"))
        else:
            yield hit(g, f"{lay.pods} pods × {req.text(word)} = {fewest} {word}s per group, but "
                         f"{lay.text()} uses {lay.world}; {_idle(fewest - lay.world, 'group', sharing, word)}",
                      location=g.at("resources"))


def _idle(n: int, per: str, sharing: Sharing | None = None, word: str = "GPU") -> str:
    """What the units the layout does not use cost, per pod or group: whole devices (``word``: GPUs, or the
    family's own, NeuronCores, NPUs, HPUs), MIG slices, or time-sliced shares (which give a pod no more of the GPU's
    time, only keep other pods off it)."""
    if sharing is not None and sharing.kind == "time-slicing":
        return (f"{n} time-sliced {'share stays' if n == 1 else 'shares stay'} reserved per {per}, keeping other "
                "pods off the GPU without giving this one more of its time")
    unit = "MIG slice" if sharing is not None and sharing.kind == "mig" else word
    return (f"1 {unit} stays" if n == 1 else f"{n} {unit}s stay") + f" reserved and idle per {per}"
