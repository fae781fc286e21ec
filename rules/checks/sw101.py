"""SW101: the weights alone do not fit in the memory vLLM may use on each GPU."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import gpu_name, layout_text, sizing


class WeightsDoNotFit(GroupRule):
    meta = RuleMeta(
        code="SW101",
        name="weights-exceed-gpu-memory",
        enforcement="advisory",
        mandatory_when="when the weights exceed that memory by more than the estimate's error",
        severity="critical",
        summary="The model's weights per GPU exceed gpu_memory_utilization × the GPU's memory.",
        why=(
            "vLLM loads the weights first. When one GPU's share of them is larger than the memory vLLM "
            "is allowed to use, nothing is left for activations and the KV cache: the server fails at "
            "start-up (out of memory, or 'No available memory for the cache blocks') and Kubernetes "
            "restarts it forever. Weights per GPU are the checkpoint's parameters at the precision served "
            "÷ TP (÷ PP per stage); with --enable-expert-parallel the routed experts are spread over "
            "TP × DP ranks instead."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct   # 131 GiB of bf16 weights on one H100",
        good_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4",
        remediation=(
            "Shard the model over more GPUs of one node with --tensor-parallel-size (or spread a "
            "mixture-of-experts model's experts with --data-parallel-size and --enable-expert-parallel), "
            "use a quantised checkpoint, or pick a GPU with more memory."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "quantization", "model")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None or s.weights_fit_band == "starts":
            return
        sure = s.weights_fit_band == "refuses"
        head = (
            f"SW101: {s.model_id} in {s.weight_precision} needs {s.weights_gib_per_gpu:.1f} GiB "
            f"(±{s.weights_error_gib:.1f}) of weights per GPU at {layout_text(s)}, but gpu_memory_utilization "
            f"{s.gpu_memory_utilization:g} × {s.gpu_memory_gib:.1f} GiB ({gpu_name(g)}) allows "
            f"{s.usable_gib_per_gpu:.1f} GiB"
        )
        if sure:
            yield hit(g, f"{head}; vLLM will fail at start-up ({s.vllm_version_note})", level="mandatory")
        else:
            yield hit(g, f"{head}: within the estimate's error, so vLLM may fail at start-up ({s.vllm_version_note}); "
                         "the weights vLLM logs at start-up ('Model loading took') settle it")
