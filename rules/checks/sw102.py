"""SW102: the KV cache cannot hold one max_model_len sequence, so vLLM refuses to start."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import gpu_name, sizing


class KvCapacityBelowMaxModelLen(GroupRule):
    meta = RuleMeta(
        code="SW102",
        name="kv-capacity-below-max-model-len",
        enforcement="mandatory",
        severity="critical",
        summary="The KV cache holds fewer tokens than max_model_len: vLLM will refuse to start.",
        why=(
            "At start-up vLLM measures the memory left after weights and activations and refuses to "
            "start when it cannot hold even one sequence of max_model_len tokens. Leaving "
            "max_model_len at the model's maximum (often 128k tokens) is the usual cause."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-8B-Instruct   # max_model_len defaults to 131072 on a 24 GB L4",
        good_example="vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
        remediation=(
            "Set --max-model-len to the longest context you serve, use an fp8 KV cache, raise "
            "--gpu-memory-utilization, or shard over more GPUs."
        ),
        references=("https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",),
        scope="stack",  # needs the node pool the workload lands on
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None or not s.weights_fit or s.kv_cache_tokens >= s.max_model_len:
            return
        yield hit(
            g,
            f"SW102: the KV cache of {s.model_id} at TP{s.tensor_parallel_size}×PP{s.pipeline_parallel_size} "
            f"on {gpu_name(g)} holds {s.kv_cache_tokens:,} tokens ({s.kv_cache_gib_per_gpu:.1f} GiB per GPU) "
            f"but max_model_len is {s.max_model_len:,}; vLLM will refuse to start",
        )
