"""SW106: a supported lower-precision variant would run on one GPU and hold the load."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.layout import VARIANTS, Parallel, alternative, plural, precision_variant
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import context_text, declared_seqs, gpu_name, gpu_of, parallel, require_model, sizer, sizing


class ShardingAvoidableByQuantization(GroupRule):
    meta = RuleMeta(
        code="SW106",
        name="sharding-avoidable-by-quantization",
        enforcement="advisory",
        severity="low",
        summary="A supported lower-precision variant of the model would run on one GPU and hold the load.",
        why=(
            "FP8 (on Ada, Hopper and Blackwell GPUs and MI300) and 4-bit AWQ/GPTQ checkpoints halve or quarter the "
            "weights. When that lets one GPU per replica start and hold its share of the load, each replica "
            "needs no all-reduce per layer and the same GPUs serve more replicas — often with a quality loss small "
            "enough to accept, which only an evaluation can confirm, so the finding never blocks. shardwise sizes "
            "the variant on one GPU the way it sizes any layout (weights, activations and KV cache per GPU for "
            "the vLLM release) and says nothing when it would not start or would not hold the declared "
            "concurrency; without a declared concurrency the weights × the KV reserve (1.4) must fit."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --max-num-seqs 8",
        good_example="vllm serve hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4 --max-num-seqs 2   # one H100",
        remediation=(
            "Evaluate the quantised variant on your own prompts; if its quality is acceptable serve it "
            "with one GPU per replica, otherwise suppress the rule with the evaluation as the reason."
        ),
        references=("https://docs.vllm.ai/en/latest/features/quantization/index.html",),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "model")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        current = parallel(g)
        if current.gpus <= 1:
            return
        sz = sizer(g, config)
        s = sizing(g, config)
        if sz is None or s is None:
            return
        seqs, how = declared_seqs(g)
        one = [Parallel(1, 1, current.dp, current.expert_parallel)]
        if alternative(sz, current, one, seqs, config.kv_reserve) is not None:
            return  # one GPU holds it at the precision served: SW104 says so
        alt = precision_variant(sz, current, gpu_of(g), seqs, config.kv_reserve, one)
        if alt is None:
            return
        a = alt.fit.sizing
        label = VARIANTS[alt.precision][1]
        text = (f"SW106: {model.id} is sharded over {current.gpus} GPUs in {s.weight_precision}; "
                f"{'an' if label[0] in 'AEFHILMNORSX' else 'a'} {label} variant ({a.weights_gb_total:.1f} GB of "
                f"weights) would run on one {gpu_name(g)}: it starts with {a.weights_gib_per_gpu:.1f} GiB of weights "
                f"and {a.kv_cache_gib_per_gpu:.1f} GiB (±{a.error_band_gib:.1f}) of KV cache, room for "
                f"{'' if alt.sure or seqs is None else 'about '}{plural(alt.fit.holds, 'sequence')} of "
                f"{context_text(g, config, a)}")
        if seqs is not None:
            text += (f" where each of {alt.replicas} replicas needs {alt.fit.seqs:,} ({seqs:,} by {how} over "
                     f"{alt.replicas} replicas)")
            if not alt.sure:
                text += ", within the estimate's error band"
        yield hit(g, f"{text} ({s.vllm_version_note})")
