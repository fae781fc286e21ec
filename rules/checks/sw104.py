"""SW104: a model sharded over more GPUs than it needs — replicas on fewer GPUs start and hold the load."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..capacity.group import parallel, refused_whatever_tp, require_model, sizer, sizing, tpu_of
from ..capacity.layout import (
    Parallel,
    Sizer,
    capped_alternative,
    fewer_stages,
    judge,
    replication,
    reserve_alternative,
    smaller,
)
from ..capacity.sizing import ReplicaSizing, quantised_online
from ..catalog.accelerators import device_word
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable
from ._capacity import (
    capped_text,
    change_text,
    command_crashes,
    context_text,
    declared_seqs,
    device_name,
    ecc_on_sizer,
    ecc_on_text,
    latency_escape,
    load_source,
    quantization_refused,
    refused_at_load,
    replicas_text,
    reserve_text,
)
from ._layout import nvlink_domain
from ._unseen import held_back_hits


class ShardedModelThatFits(GroupRule):
    meta = RuleMeta(
        code="SW104",
        name="sharded-model-that-fits",
        enforcement="advisory",
        mandatory_when=(
            "when replicas on fewer GPUs start and hold the declared concurrency beyond the estimate's error "
            "band, or, with no load declared, start at max_model_len and keep the KV reserve beyond it; never "
            "with a per-token latency target declared"
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
            "they serve more requests per GPU on the same hardware; vLLM's parallelism guide says a model "
            "that fits one GPU needs no distributed inference.\n\n"
            "Sharding does grow the KV cache faster than the GPU count (each GPU's share of the weights "
            "shrinks) and it shortens the time per output token of one request. So shardwise sizes the "
            "replicated layout with the whole model (weights, activations and KV cache per GPU, for the vLLM "
            "release) and stays silent when the replicas would not start or would not hold their share of the "
            "declared concurrency (annotation shardwise.dev/target-concurrency, spread over the workload's "
            "replicas; without a p95 context every sequence counts at max_model_len); --max-num-seqs is vLLM's "
            "cap, never a load. Without a declared load the capacity model's reserve judges, never what the "
            "sharded layout holds itself (sharding always holds more, since it splits the weights): a smaller "
            "layout that starts at max_model_len and keeps the KV reserve (its weights × 1.4, --kv-reserve, fit "
            "the memory vLLM may use) serves the model. The finding blocks only beyond the estimate's error "
            "band; where the reserve is thin but the KV cache left beyond the band is at least a quarter of it, it "
            "is advisory and asks for the load. A smaller layout that only may start, or has no room for a KV "
            "cache, is not named: it is the judgement `shardwise plan` makes, so a layout plan recommends without a "
            "load never gets this finding. Where the smaller layout serves only at a --max-num-seqs below vLLM's "
            "default, which the manifest leaves unset (the profile's sampler warms up over the default's rows of "
            "the vocabulary: 9.6 GiB for Gemma 3's 262k logits at 1,024), the finding names that cap and is "
            "advisory: the layout as written is not what the smaller one would run, and the cap the team may "
            "want for other reasons is theirs to choose; `shardwise plan` recommends the smaller layout with that "
            "cap. A pipeline stage the model does not need is the same waste where no layout splits the engine's GPUs "
            "evenly: TP1 × PP3 on three GPUs, where one TP1 × PP2 engine on two of them serves, is judged the same "
            "way (the same TP with fewer stages, on a power of two of GPUs, the engines `shardwise plan` tries). "
            "A per-token "
            "latency target declared with the annotation shardwise.dev/tpot-target-ms (the stack's "
            "tpot_target_ms) makes it advisory: the sharding may be there to meet it."
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
            "(and --pipeline-parallel-size), behind the router; where the message names one engine on part of "
            "the GPUs, lower --pipeline-parallel-size to its stages and give the GPUs left over back. If the sharding "
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

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether it is sharded over more GPUs than its model needs")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if tpu_of(g) is not None:
            return  # not sized (SW101 says so)
        model = require_model(g)
        if quantization_refused(g, inv):
            return  # vLLM exits on the --quantization as written (SW003): no layout of it runs
        try:
            current = parallel(g)
        except Undecidable as u:  # TP not known yet: decided where every TP the pod's GPUs allow is refused (mend17)
            if (u.prop == "tensor_parallel_size" and not command_crashes(g, inv)
                    and refused_whatever_tp(g, config) is not None):
                return  # no layout starts, so none shards a model that fits (SW101 or SW102 blocks)
            raise
        if current.gpus <= 1 or current.pcp > 1:
            return  # (prefill context parallelism is a latency choice: its GPUs add no memory, no search weighs it)
        sz = sizer(g, config)
        s = sizing(g, config)
        if sz is None or s is None or judge(s, current, None).starts != "starts":
            return  # no GPU to size on, or SW101/SW102 speak for a layout that may not start
        word = device_word(g, rank=True)
        where = (f"{model.id} is sharded over {current.world:,} {word}s per replica ({current.text()}) on "
                 f"{device_name(g)}")
        found = _judge(g, config, sz, s, current, where)
        if found is None:
            return
        message, sure, capped, _ = found
        if capped:  # it serves only with a --max-num-seqs the manifest does not set: advisory, never blocking
            yield hit(g, f"{message} ({s.vllm_version_note})")
            return
        ecc_on = ecc_on_sizer(sz) if sure else None
        if ecc_on is not None:  # ecc1: the catalog's figure is the GPU's with ECC off; it must serve with ECC on too
            again = _judge(g, config, *ecc_on, current, where)
            if again is None or not again[1] or again[2]:
                sure = False
                message += ecc_on_text(sz)
        message, sure = latency_escape(g, message, sure)
        yield hit(g, f"{message} ({s.vllm_version_note})", level="mandatory" if sure else None)


def change_layout(g: ServingGroup, config: LintConfig) -> Parallel | None:
    """The layout SW104's finding on the group tells the team to run (its smaller replicas' TP × PP), None where it
    names none (no finding, or one that cannot be decided)."""
    if tpu_of(g) is not None:
        return None
    current = parallel(g)
    sz, s = sizer(g, config), sizing(g, config)
    if current.gpus <= 1 or current.pcp > 1 or sz is None or s is None or judge(s, current, None).starts != "starts":
        return None
    found = _judge(g, config, sz, s, current, "")
    return None if found is None else found[3]


def sharded_beyond_need(g: ServingGroup, inv: Inventory, config: LintConfig | None = None) -> list[Hit]:
    """SW104's blocking findings on the group: replicas on fewer GPUs per replica surely start and hold its load.
    The engine asks it of SW202 (remedy1, newuser12: both blocked at the same line for one cause): where SW104
    blocks, the TP group over PCIe is avoidable because the model needs fewer GPUs, and the change SW104 names
    (fewest GPUs first: with one pipeline stage, a TP within the NVLink domain whenever SW202's own replicas hold
    the load) is the one to make; SW202 judges the layout it makes. Empty where that is not so or not known.
    Judged with the run's ``config`` (its --kv-reserve and --p95-context), as SW104's own finding in the run is
    (review30: at the default configuration, a run with --p95-context 2048 got SW104 and SW202 both blocking for one
    cause, and one whose settings make SW104 advisory could have had SW202 made advisory beside nothing). Only where
    the change SW104 names keeps the TP group inside the NVLink domain (review30): with more than one pipeline stage
    its fewest GPUs may be TP4×PP1 over PCIe (Llama-3.1-70B at TP4×PP2 on eight H100 NVL, 48 sequences declared),
    while SW202's 2 × TP2×PP2 on the bridged pairs hold the load: the PCIe is then a cause of its own, which SW104's
    change leaves, and SW202 keeps its level. (mend10: SW104 now names, of the layouts of the fewest GPUs, one whose
    TP stays inside the domain where one holds the load (:func:`in_domain_first`): that case names 2 × TP2×PP2 and
    folds; SW202 keeps its level only where no such layout of that count holds the load.)"""
    try:
        run = config or LintConfig()
        hits = [h for h in ShardedModelThatFits().check_group(g, inv, run) if h.level == "mandatory"]
        if not hits or g.pool is None:
            return hits
        domain = nvlink_domain(g.pool)
        alt = change_layout(g, run)
        return hits if domain is None or alt is None or alt.tp <= domain else []
    except Undecidable:
        return []


def in_domain_first(candidates: list[Parallel], g: ServingGroup) -> list[Parallel]:
    """``candidates`` (fewest GPUs first, then the larger TP: :func:`~..capacity.layout.smaller`) with, at each count
    of GPUs, the layouts whose TP stays inside the pool's NVLink domain before those whose TP crosses PCIe (mend10).
    Two layouts of one count hold the same memory, and SW202 blocks a TP group over PCIe that the same GPUs would
    serve with pipeline stages instead: 8B at TP4×PP2 with 48 sequences on g5.48xlarge (eight A10G, PCIe only) was
    told to run 4 × TP2×PP1 by SW104 and 4 × TP1×PP2 by SW202, both blocking. Now SW104 names TP1×PP2, which keeps
    TP in the domain, and SW202 defers to it (:func:`sharded_beyond_need`). A layout of fewer GPUs still comes
    first whatever its TP: where only one over PCIe holds the load at the fewest GPUs, both findings stand (the
    model needs fewer GPUs, and the TP over PCIe is a cause of its own). Unchanged where the domain is not known or
    holds every GPU of the node."""
    domain = nvlink_domain(g.pool) if g.pool is not None else None
    if domain is None:
        return candidates
    return sorted(candidates, key=lambda p: (p.gpus, p.tp > domain))  # stable: the larger TP first within each


def _judge(g: ServingGroup, config: LintConfig, sz: Sizer, s: ReplicaSizing, current: Parallel,
           where: str) -> tuple[str, bool, bool, Parallel | None] | None:
    """The smaller layout that serves the model on the same GPUs, as ``(message, sure, capped, its layout)``: capped
    where it serves only at a --max-num-seqs the manifest does not set (never sure; no layout named). None: the
    sharding is needed."""
    model = sz.model
    seqs, how = declared_seqs(g, config)
    # a layout whose weights vLLM fails to load (online FP8 before 0.16.0: the 16-bit weights) serves nothing
    candidates = [c for c in in_domain_first(smaller(model, current), g) if not _fails_at_load(g, sz, c)]
    if seqs is None:  # no load declared: the doctrine's reserve judges, not what the sharding holds itself
        res = reserve_alternative(sz, current, candidates, config.kv_reserve)
        if res is None:
            capped = capped_alternative(sz, current, candidates, config.kv_reserve)
            if capped is not None:
                return (f"{where}, and {capped_text(capped, load_source(g), device_word(g, rank=True))}", False, True,
                        None)
            # no layout splitting the GPUs evenly serves it: a pipeline stage it does not need may still be held
            res = reserve_alternative(sz, current, [c for c in fewer_stages(current) if not _fails_at_load(g, sz, c)],
                                      config.kv_reserve)
            if res is None:
                return None  # no smaller layout starts at max_model_len: the sharding is needed
        text, sure = reserve_text(res, load_source(g), current,
                                  change_text(g, current, res.fit.parallel, res.replicas), device_word(g, rank=True))
        return f"{where}, {'but' if sure else 'and'} {text}", sure, False, res.fit.parallel
    r = replication(sz, current, s.concurrency_at_expected_context, candidates, seqs, config.kv_reserve)
    if r is None:
        r = replication(sz, current, s.concurrency_at_expected_context,
                        [c for c in fewer_stages(current) if not _fails_at_load(g, sz, c)], seqs,
                        config.kv_reserve)
    if r is None:
        return None  # no smaller layout starts and holds its share: the sharding is needed
    text, sure = replicas_text(r, current, how, context_text(g, config, r.alt.fit.sizing), load_source(g),
                               change=change_text(g, current, r.alt.fit.parallel, r.alt.replicas),
                               word=device_word(g, rank=True))
    return f"{where}, but {text}", sure, False, r.alt.fit.parallel


def _fails_at_load(g: ServingGroup, sz: Sizer, p: Parallel) -> bool:
    """Whether vLLM surely fails loading the weights at the layout ``p`` (:func:`.sw101.refused_at_load`): online
    FP8 quantisation of a 16-bit checkpoint before 0.16.0 holds the rank's 16-bit weights at load (mend20)."""
    if not quantised_online(sz.model, sz.settings):
        return False  # told before the layout is sized: its TP and PP change neither the flag nor the checkpoint
    settings = replace(sz.settings, tp=p.tp, pp=p.pp, dp=p.dp, expert_parallel=p.expert_parallel)
    try:
        return refused_at_load(g, sz.size(p), settings)
    except Undecidable:
        return False
