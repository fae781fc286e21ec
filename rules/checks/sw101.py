"""SW101: the weights alone do not fit in the memory vLLM may use on each GPU."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import gpu_name, sizing


class WeightsDoNotFit(GroupRule):
    meta = RuleMeta(
        code="SW101",
        name="weights-exceed-gpu-memory",
        enforcement="mandatory",
        severity="critical",
        summary="The model's weights per GPU exceed gpu_memory_utilization × the GPU's memory.",
        why=(
            "vLLM loads the weights first. When one GPU's share of them is larger than the memory vLLM "
            "is allowed to use, the server fails with CUDA out-of-memory before it serves a request, "
            "and Kubernetes restarts it forever."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct   # 131 GiB of bf16 weights on one H100",
        good_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4",
        remediation=(
            "Shard the model over more GPUs of one node with --tensor-parallel-size, use a quantised "
            "checkpoint, or pick a GPU with more memory."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None or s.weights_fit:
            return
        yield hit(
            g,
            f"SW101: {s.model_id} in {s.weight_precision} needs {s.weights_gib_per_gpu:.1f} GiB of weights "
            f"per GPU at TP{s.tensor_parallel_size}×PP{s.pipeline_parallel_size}, but "
            f"gpu_memory_utilization {s.gpu_memory_utilization:g} × {s.gpu_memory_gib:.1f} GiB "
            f"({gpu_name(g)}) allows {s.usable_gib_per_gpu:.1f} GiB",
        )
