"""SW204: GPUs requested per pod do not match the parallel layout."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known
from ._capacity import tp_pp


class GpuRequestNotTp(GroupRule):
    meta = RuleMeta(
        code="SW204",
        name="gpu-request-not-tp",
        enforcement="mandatory",
        severity="high",
        summary="GPUs requested per pod differ from tensor_parallel_size (or group size from PP nodes).",
        why=(
            "vLLM starts one worker per GPU of the replica. Requesting fewer GPUs than TP × PP in one pod "
            "makes the server fail to start; requesting more leaves paid GPUs idle and lets nothing else "
            "use them. In a multi-node group each pod is one pipeline stage with TP GPUs."
        ),
        bad_example="resources:\n  limits:\n    nvidia.com/gpu: 8\nargs: [..., --tensor-parallel-size, '4']",
        good_example="resources:\n  limits:\n    nvidia.com/gpu: 4\nargs: [..., --tensor-parallel-size, '4']",
        remediation=(
            "Request exactly tensor_parallel_size GPUs per pod (× pipeline_parallel_size for a single-pod "
            "pipeline) and make a LeaderWorkerSet's size equal pipeline_parallel_size."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://lws.sigs.k8s.io/docs/",
        ),
        scope="resource",
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.kind == "plan":
            return
        tp, pp = tp_pp(g)
        pods = int(known(g.pods_per_group, "group size (leaderWorkerTemplate.size)"))
        gpus = known(g.gpus_per_pod, "nvidia.com/gpu limit")
        if gpus is None:
            yield hit(g, f"SW204: the vLLM container requests no nvidia.com/gpu but the layout needs "
                         f"{tp if pods > 1 else tp * pp} GPUs per pod (TP{tp}×PP{pp})")
            return
        gpus = int(gpus)
        if pods > 1:
            if pods * gpus != tp * pp:
                yield hit(g, f"SW204: {pods} pods × {gpus} GPUs = {pods * gpus} GPUs per group, but "
                             f"TP{tp}×PP{pp} needs {tp * pp}")
            elif pods != pp and gpus != tp:
                yield hit(g, f"SW204: group size is {pods} but pipeline_parallel_size is {pp}; each pod "
                             f"should be one stage of {tp} GPUs")
        elif gpus != tp * pp:
            want = f"tensor_parallel_size {tp}" if pp == 1 else f"TP{tp}×PP{pp} = {tp * pp}"
            yield hit(g, f"SW204: the pod requests {gpus} nvidia.com/gpu but {want} GPUs are needed")
