"""SW106: a supported lower-precision variant would run on one GPU and hold the load."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import gpu_of, parallel, require_model, sizer, sizing, tpu_of
from ..capacity.layout import VARIANTS, Parallel, lower_precisions, most_holds, plural, replication, sure_holds
from ..catalog.accelerators import device_word
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import context_text, declared_seqs, device_name, load_source, not_starting, quantization_refused
from ._unseen import held_back_hits


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
            "the vLLM release) and suggests it only when its replicas on the same GPUs hold at least the same "
            "load: the declared concurrency (annotation shardwise.dev/target-concurrency), or, without one, what "
            "the sharded layout holds (nothing, when the sharded layout does not start: the finding then says why it "
            "does not); otherwise it states the trade-off without a recommendation, and it says "
            "nothing when the variant would not start or would not hold the declared load."
        ),
        bad_example=("annotations: {shardwise.dev/target-concurrency: '8'}\n"
                     "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4', --max-model-len, '8192']"),
        good_example=("replicas: 4\n"
                      "args: [hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4, --max-model-len, '8192']  # 1 H100"),
        remediation=(
            "Evaluate the quantised variant on your own prompts; if its quality is acceptable serve it "
            "with one GPU per replica, otherwise suppress the rule with the evaluation as the reason."
        ),
        references=("https://docs.vllm.ai/en/latest/features/quantization/index.html",),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "model")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether a lower-precision variant of its model would run on one GPU")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if tpu_of(g) is not None:
            return  # not sized (SW101 says so)
        model = require_model(g)
        if quantization_refused(g, inv):
            return  # vLLM exits on the --quantization as written (SW003): no layout of it runs
        current = parallel(g)
        if current.gpus <= 1 or current.pcp > 1:
            return  # (prefill context parallelism is a latency choice: its GPUs add no memory, no search weighs it)
        sz = sizer(g, config)
        s = sizing(g, config)
        if sz is None or s is None:
            return
        seqs, how = declared_seqs(g, config)
        one = [Parallel(1, 1, current.dp, current.expert_parallel)]
        # a layout that does not start holds nothing: what its KV cache would hold is no yardstick, and the
        # variant is compared with the declared load alone, or proposed because it starts at all
        down = not_starting(s, current)
        holds = 0 if down else s.concurrency_at_expected_context
        same = replication(sz, current, holds, one, seqs, config.kv_reserve)
        if same is not None:
            return  # one GPU has room at the precision served: SW104 says what its replicas hold
        r = None
        for p in lower_precisions(sz.model, gpu_of(g), sz.precision, sz):
            r = replication(sz, current, holds, one, seqs, config.kv_reserve, quantization=VARIANTS[p][0])
            if r is not None and r.suggest:
                break
        if r is None:
            return
        alt = r.alt
        a = alt.fit.sizing
        label = VARIANTS[alt.precision][1]
        # with a declared load the variant either surely holds it or is within the estimate's error band, where
        # its central figure may be on either side of the load: the band is given, not a word that one end
        # contradicts ("about 28 ...: enough for the 32", mend8)
        held = plural(r.together, "sequence")
        band = seqs is not None and not alt.sure
        if band:
            per = alt.replicas * alt.fit.parallel.dp
            low, high = per * sure_holds(a), per * most_holds(a)
            held = f"{low:,} to {high:,} sequences" if low != high else held
        # both figures (the variant's replicas together, the sharded replica) are central estimates; plan's table
        # gives what a replica holds beyond the error band, so where that differs the finding says which is which
        sure = sure_holds(s) * current.dp
        which = (f" (both central estimates; {sure:,} beyond its error band)"
                 if not down and sure != r.current_holds else "")
        article = "an" if label[0] in "AEFHILMNORSX" else "a"
        word = device_word(g, rank=True)  # an Ascend pool's are NPUs (mend6)
        text = (f"{model.id} takes {current.world:,} {word}s a replica ({current.text()}, {s.weight_precision}); "
                f"{article} {label} variant ({a.weights_gb_total:.1f} GB of weights) fits on one {device_name(g)}, "
                f"so those {current.world:,} {word}s could run {plural(alt.replicas, f'one-{word} replica')} holding "
                f"{held} of {context_text(g, config, a)} together")
        if seqs is not None:
            verdict = " within the estimate's error band: may not hold" if band else ": enough for"
            text += f"{verdict} the {seqs:,} a replica must hold ({how})"
            if band and which:
                which = f" (central estimate; {sure:,} beyond its error band)"
            text += f", where {down}" if down else f"; the {current.text()} replica holds {r.current_holds:,}"
            if which:
                text += which
        elif down:
            text += f" (no load is declared), where {down}"
        elif r.suggest:
            text += f": at least the {r.current_holds:,} {current.text()} holds{which} (no load is declared)"
        else:
            text = (f"{text}, where {current.text()} holds {r.current_holds:,}{which}; declare the load "
                    f"({load_source(g)}) to have it judged")
        yield hit(g, f"{text} ({s.vllm_version_note})")
