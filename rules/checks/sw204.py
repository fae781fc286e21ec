"""SW204: a pod requests fewer GPUs than its parallel layout starts workers on."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable, known
from ..model.vocab import ASCEND_CHIPS, GPU_RESOURCE, NEURON_DEVICE_RESOURCES
from ._layout import layout, runs_on_cpu


def gpu_request(g: ServingGroup) -> tuple[int | None, str]:
    """(GPUs the vLLM container requests, the resource they come from); None when it requests none."""
    gpus = known(g.gpus_per_pod, "the GPU request (nvidia.com/gpu limit)")
    c = g.main_container
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None) or GPU_RESOURCE
    if gpus is None and c is not None and c.resource_claims:
        raise Undecidable(f"the GPU count of container `{c.name}`",
                          f"they come from the resource claim {', '.join(c.resource_claims)} (dynamic resource "
                          "allocation), whose device count shardwise does not read")
    if gpus is not None and resource in NEURON_DEVICE_RESOURCES:
        raise Undecidable(f"the NeuronCores behind {resource}: {gpus}",
                          "it counts Neuron devices of several NeuronCores each; request "
                          "aws.amazon.com/neuroncore to compare with the layout")
    return (None if gpus is None else int(gpus)), resource


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
        if g.kind == "plan" or runs_on_cpu(g):  # vLLM's CPU backend needs no accelerator
            return
        lay = layout(g)
        gpus, resource = gpu_request(g)
        per_pod = lay.per_pod
        if gpus is None:
            need = per_pod if per_pod is not None else -(-lay.world // lay.pods)
            yield hit(g, f"SW204: the vLLM container requests no GPUs ({resource} or another accelerator) but "
                         f"{lay.text()} needs {need} GPUs per pod; the device plugin gives a container only the GPUs "
                         "it requests", location=g.at("resources"))
            return
        short = gpus < per_pod if per_pod is not None else lay.pods * gpus < lay.world
        if short and resource == ASCEND_CHIPS:
            raise Undecidable(f"the NPUs behind {resource}: {gpus}",
                              "an Atlas A3 chip holds two NPU dies, each a vLLM worker, and whether the device "
                              "plugin counts chips or dies depends on the server")
        if per_pod is not None and gpus < per_pod:
            pods = f" in each of its {lay.pods} pods" if lay.pods > 1 else ""
            yield hit(g, f"SW204: the pod requests {gpus} {resource} but {lay.text()} starts {per_pod} "
                         f"workers{pods}; vLLM cannot start with fewer GPUs than workers", location=g.at("resources"))
        elif per_pod is None and lay.pods * gpus < lay.world:
            yield hit(g, f"SW204: {lay.pods} pods × {gpus} {resource} = {lay.pods * gpus} GPUs per group, but "
                         f"{lay.text()} needs {lay.world}; vLLM cannot place all its workers",
                      location=g.at("resources"))
