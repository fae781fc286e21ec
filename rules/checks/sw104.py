"""SW104: a model sharded over more GPUs than it needs — replicas on fewer GPUs start and hold the load."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.layout import Alternative, Parallel, alternative, judge, plural, smaller
from ..capacity.sizing import ReplicaSizing
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..model.vocab import ANN_TARGET_CONCURRENCY, ANN_TPOT_TARGET
from ._capacity import context_text, declared_seqs, gpu_name, parallel, require_model, sizer, sizing


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
            "declared concurrency. The finding blocks only when that is sure beyond the estimate's error band "
            "and the concurrency is declared (annotation shardwise.dev/target-concurrency or --max-num-seqs; "
            "without a p95 context every sequence counts at max_model_len). A per-token latency target declared "
            "with the annotation shardwise.dev/tpot-target-ms makes it advisory: the sharding may be there to "
            "meet it."
        ),
        bad_example=(
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --max-model-len 8192 "
            "--max-num-seqs 64   # on H100s"
        ),
        good_example=(
            "replicas: 2\n"
            "args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192', --max-num-seqs, '32']   # TP1, "
            "two independent copies"
        ),
        remediation=(
            "Run the replicas the message names on the same GPUs, each with the smaller --tensor-parallel-size "
            "(and --pipeline-parallel-size) and its share of --max-num-seqs, behind the router. If the sharding "
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
        seqs, how = declared_seqs(g)
        alt = alternative(sz, current, smaller(model, current), seqs, config.kv_reserve)
        if alt is None:
            return  # no smaller layout starts and holds its share: the sharding is needed
        text, sure = replicas_text(alt, current, s, seqs, how, context_text(g, config, alt.fit.sizing))
        where = f"{model.id} is sharded over {current.gpus} GPUs per replica ({current.text()}) on {gpu_name(g)}"
        message = (f"SW104: {where}, but {text}; replicate instead: {alt.replicas} replicas × "
                   f"{alt.fit.parallel.text()} on the same {current.gpus} GPUs ({s.vllm_version_note})")
        if sure and g.tpot_target_ms is not None:
            message += (f"; {ANN_TPOT_TARGET} declares a per-token latency target of {g.tpot_target_ms:g} ms, which "
                        "the sharding may be there to meet: benchmark the replicas against it")
            sure = False
        yield hit(g, message, level="mandatory" if sure else None)


def replicas_text(alt: Alternative, current: Parallel, s: ReplicaSizing, seqs: int | None, how: str,
                  context: str) -> tuple[str, bool]:
    """What the alternative's replicas hold against the load, and whether that is sure."""
    f = alt.fit
    a = f.sizing
    sized = (f"{f.parallel.text()} starts with {a.weights_gib_per_gpu:.1f} GiB of weights and "
             f"{a.kv_cache_gib_per_gpu:.1f} GiB (±{a.error_band_gib:.1f}) of KV cache per GPU")
    if seqs is None:
        return (f"{sized}: {alt.replicas} replicas hold {alt.replicas * f.holds:,} sequences of {context} where "
                f"{current.text()} holds {s.concurrency_at_expected_context:,}; the concurrency is vLLM's default, "
                f"so declare it (annotation {ANN_TARGET_CONCURRENCY} or --max-num-seqs) to make this finding "
                "sure"), False
    share = (f"where each of {alt.replicas} replicas needs {f.seqs:,} ({seqs:,} by {how} over {alt.replicas} "
             "replicas)")
    if f.sure:
        return f"{sized}, room for {plural(f.holds, 'sequence')} of {context} {share}", True
    return (f"{sized}, room for about {plural(f.holds, 'sequence')} of {context} {share}: within the estimate's error "
            "band, so the KV cache vLLM logs at start-up settles it"), False
