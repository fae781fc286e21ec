"""SW103: the KV cache cannot hold the declared load (max_num_seqs × expected context)."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import gpu_name, sizing


class KvBudgetBelowLoad(GroupRule):
    meta = RuleMeta(
        code="SW103",
        name="kv-budget-below-load",
        enforcement="mandatory",
        severity="high",
        summary="The KV cache per replica is smaller than max_num_seqs × the expected context length.",
        why=(
            "Every running sequence keeps its keys and values for its whole context. When the batch vLLM "
            "is allowed to admit (max_num_seqs) at the real p95 context does not fit the KV cache, the "
            "scheduler preempts and recomputes sequences: latency spikes under exactly the load the "
            "settings promise to handle."
        ),
        bad_example=(
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4', --max-num-seqs, '256']\n"
            "# p95 context 8192 tokens: 2.1M tokens of KV needed, 0.47M available"
        ),
        good_example=(
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4', --max-num-seqs, '48']"
        ),
        remediation=(
            "Lower --max-num-seqs to what the KV cache holds at the p95 context, declare the real p95 "
            "context with the annotation shardwise.dev/p95-context-tokens, use an fp8 KV cache, or add "
            "replicas instead of batch width."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/optimization.html",
            "https://arxiv.org/abs/2309.06180",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None or not s.starts or s.load_tokens <= s.kv_cache_tokens:
            return
        basis = "p95 context" if s.expected_context < s.max_model_len or g.p95_context else "max_model_len"
        yield hit(
            g,
            f"SW103: max_num_seqs {s.max_num_seqs} × {s.expected_context:,} tokens ({basis}) needs "
            f"{s.load_tokens:,} tokens of KV cache per replica, but {s.model_id} at "
            f"TP{s.tensor_parallel_size}×PP{s.pipeline_parallel_size} on {gpu_name(g)} holds "
            f"{s.kv_cache_tokens:,} ({s.kv_cache_gib_per_gpu:.1f} GiB per GPU); at most "
            f"{s.concurrency_at_expected_context} sequences fit",
        )
