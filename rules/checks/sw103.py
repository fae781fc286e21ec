"""SW103: the KV cache cannot hold the declared load (concurrent sequences × their p95 context)."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..model.vocab import ANN_P95, ANN_TARGET_CONCURRENCY
from ._capacity import gpu_name, layout_text, sizing


class KvBudgetBelowLoad(GroupRule):
    meta = RuleMeta(
        code="SW103",
        name="kv-budget-below-load",
        enforcement="advisory",
        mandatory_when=(
            "when the team declared both the context and the concurrency and that load does not fit beyond "
            "the estimate's error band"
        ),
        severity="high",
        summary="The KV cache per replica is smaller than the declared concurrency × the p95 context length.",
        why=(
            "Every running sequence keeps its keys and values for its whole context. When the concurrency "
            "a replica must sustain, at the real p95 context, does not fit the KV cache, vLLM's scheduler "
            "queues and preempts sequences: latency spikes under exactly the load the deployment was sized "
            "for. vLLM's own defaults (max_num_seqs 256 or 1,024, every request at max_model_len) are not a "
            "load anybody declared, so they only make the finding advisory."
        ),
        bad_example=(
            "annotations: {shardwise.dev/p95-context-tokens: '8192'}\n"
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4', --max-num-seqs, '256']\n"
            "# 256 × 8,192 tokens need 2.1M tokens of KV cache, 0.47M available"
        ),
        good_example=(
            "annotations: {shardwise.dev/p95-context-tokens: '8192'}\n"
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4', --max-num-seqs, '48']"
        ),
        remediation=(
            "Declare the load (annotations shardwise.dev/p95-context-tokens and "
            "shardwise.dev/target-concurrency, or --max-num-seqs), then lower --max-num-seqs to what the KV "
            "cache holds at that context, use an fp8 KV cache, or add replicas instead of batch width."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/optimization.html",
            "https://arxiv.org/abs/2309.06180",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("max_num_seqs", "max_model_len", "model")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None or s.verdict != "starts":
            return  # SW101/SW102 speak for a server that may not start
        if g.target_concurrency is not None:
            seqs, seqs_how, seqs_declared = g.target_concurrency, f"{ANN_TARGET_CONCURRENCY}", True
        elif not s.max_num_seqs_default:
            seqs, seqs_how, seqs_declared = s.max_num_seqs, "--max-num-seqs", True
        else:
            seqs, seqs_how, seqs_declared = s.max_num_seqs, "vLLM default", False
        ctx_declared = bool(g.p95_context or config.p95_context_tokens)
        ctx_how = "p95 context" if ctx_declared else "max_model_len; no p95 context declared"
        fits = s.concurrency_at_expected_context
        if seqs <= fits:
            return
        need_gib = seqs * s.context_kv_gib
        where = f"{s.model_id} at {layout_text(s)} on {gpu_name(g)} ({s.vllm_version_note})"
        msg = (
            f"SW103: {seqs:,} sequences ({seqs_how}) × {s.expected_context:,} tokens ({ctx_how}) need "
            f"{need_gib:.1f} GiB of KV cache per GPU, but {where} holds about {s.kv_cache_gib_per_gpu:.1f} GiB "
            f"(±{s.error_band_gib:.1f}): {fits:,} such sequences; vLLM queues and preempts beyond that"
        )
        if seqs_declared and ctx_declared:
            if need_gib > s.kv_cache_gib_per_gpu + s.error_band_gib:
                yield hit(g, msg, level="mandatory")
            else:
                yield hit(g, f"{msg} (within the estimate's error band)")
            return
        plan = g.kind == "plan"
        missing = []
        if not ctx_declared:
            missing.append("the p95 context (--p95-context)" if plan else f"the p95 context (annotation {ANN_P95})")
        if not seqs_declared:
            missing.append("the concurrency (--max-num-seqs)" if plan else
                           f"the concurrency (annotation {ANN_TARGET_CONCURRENCY} or --max-num-seqs)")
        yield hit(g, f"{msg}; declare {' and '.join(missing)} to make this finding sure")
