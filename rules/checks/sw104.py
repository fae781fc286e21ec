"""SW104: a model sharded over more GPUs than it needs — replicas on fewer GPUs start and hold the load."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.layout import judge, replication, smaller
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..model.vocab import ANN_TPOT_TARGET
from ._capacity import (
    context_text,
    declared_seqs,
    gpu_name,
    load_source,
    parallel,
    replicas_text,
    require_model,
    sizer,
    sizing,
)


class ShardedModelThatFits(GroupRule):
    meta = RuleMeta(
        code="SW104",
        name="sharded-model-that-fits",
        enforcement="advisory",
        mandatory_when=(
            "when replicas on fewer GPUs start and hold the declared concurrency beyond the estimate's error "
            "band, and no per-token latency target is declared"
        ),
        severity="high",
        summary=(
            "The model is sharded (TP × PP) over more GPUs than it needs: replicas on fewer GPUs start and "
            "hold the load."
        ),
        why=(
            "Sharding buys the memory to load a model and hold its KV cache; it does not buy throughput. Every "
            "layer of a tensor-parallel group ends in an all-reduce across its GPUs, on every token, and pipeline "
            "stages wait on each other. When replicas on fewer GPUs start and hold their share of the load, "
            "they serve more requests per GPU on the same hardware (the seeds' plan A: 8 × TP1 serve 48 "
            "requests/s where 2 × TP4 serve 18).\n\n"
            "Sharding does grow the KV cache faster than the GPU count (each GPU's share of the weights "
            "shrinks) and it shortens the time per output token of one request. So shardwise sizes the "
            "replicated layout with the whole model (weights, activations and KV cache per GPU, for the vLLM "
            "release) and stays silent when the replicas would not start or would not hold their share of the "
            "declared concurrency. It recommends replicating only when the replicas hold at least the same load "
            "on no more GPUs: the declared concurrency (annotation shardwise.dev/target-concurrency, spread over "
            "the workload's replicas; without a p95 context every sequence counts at max_model_len), or, without "
            "a declared load, what the sharded layout holds itself; the message gives both numbers. Otherwise it "
            "states the trade-off (what the replicas would hold against what the sharded layout holds) without a "
            "recommendation; --max-num-seqs is vLLM's cap, never a load. The finding blocks only when the "
            "declared load is held beyond the estimate's error band. A per-token latency target declared with "
            "the annotation shardwise.dev/tpot-target-ms makes it advisory: the sharding may be there to "
            "meet it."
        ),
        bad_example=(
            "annotations: {shardwise.dev/target-concurrency: '64'}\n"
            "args: [meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, '2', --max-model-len, '8192']   # H100s"
        ),
        good_example=(
            "replicas: 2\n"
            "annotations: {shardwise.dev/target-concurrency: '64'}\n"
            "args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192']   # TP1, two independent copies"
        ),
        remediation=(
            "Run the replicas the message names on the same GPUs, each with the smaller --tensor-parallel-size "
            "(and --pipeline-parallel-size), behind the router. If the sharding "
            "is there for per-token latency, declare the target with the annotation "
            "shardwise.dev/tpot-target-ms, or suppress the rule with the benchmark as the reason."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://github.com/shardwise/shardwise/blob/main/docs/capacity-model.md",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "pipeline_parallel_size")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        current = parallel(g)
        if current.gpus <= 1:
            return
        sz = sizer(g, config)
        s = sizing(g, config)
        if sz is None or s is None or judge(s, current, None).starts != "starts":
            return  # no GPU to size on, or SW101/SW102 speak for a layout that may not start
        seqs, how = declared_seqs(g, config)
        r = replication(sz, current, s.concurrency_at_expected_context, smaller(model, current), seqs,
                        config.kv_reserve)
        if r is None:
            return  # no smaller layout starts and holds its share: the sharding is needed
        text, sure = replicas_text(r, current, how, context_text(g, config, r.alt.fit.sizing), load_source(g))
        where = f"{model.id} is sharded over {current.world} GPUs per replica ({current.text()}) on {gpu_name(g)}"
        if not r.suggest:
            yield hit(g, f"{where}; {text} ({s.vllm_version_note})")
            return
        alt = r.alt
        message = (f"{where}, but {text}; replicate instead: {alt.replicas} replicas × "
                   f"{alt.fit.parallel.text()} on the same {current.world} GPUs ({s.vllm_version_note})")
        if sure and g.tpot_target_ms is not None:
            message += (f"; {ANN_TPOT_TARGET} declares a per-token latency target of {g.tpot_target_ms:g} ms, which "
                        "the sharding may be there to meet: benchmark the replicas against it")
            sure = False
        yield hit(g, message, level="mandatory" if sure else None)
