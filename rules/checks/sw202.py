"""SW202: tensor parallelism across GPUs that only PCIe joins."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import gpu_of, layout, parallel, require_model, sizer, sizing
from ..capacity.layout import (
    VARIANTS,
    Fit,
    Node,
    Parallel,
    has_room,
    layouts_for,
    plural,
    precision_variant,
    replication,
    smaller,
)
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..vllm.support import pp_refusal
from ._capacity import (
    context_text,
    declared_seqs,
    ecc_on_sizer,
    ecc_on_text,
    latency_escape,
    load_source,
    nccl_rules_apply,
    not_starting,
    replicas_text,
)
from ._layout import nvlink_domain
from ._unseen import held_back_hits


class TensorParallelOverPcie(GroupRule):
    meta = RuleMeta(
        code="SW202",
        name="tensor-parallel-over-pcie",
        enforcement="advisory",
        mandatory_when=(
            "when replicas whose TP stays inside the NVLink domain start and hold the declared concurrency at "
            "the precision served, beyond the estimate's error band (the sharding over PCIe was avoidable), and no "
            "per-token latency target is declared; advisory where SW104 blocks on the same workload and the change it "
            "names keeps the TP group inside the NVLink domain (the model needs fewer GPUs per replica: one cause, "
            "SW104's finding)"
        ),
        severity="high",
        summary="The tensor-parallel group spans GPUs that only PCIe joins.",
        why=(
            "Every layer of a tensor-parallel group ends in an all-reduce across its GPUs, on every token. "
            "Where no NVLink joins them it runs over PCIe (through the CPU between sockets), at a fraction of "
            "NVLink's bandwidth, and the group serves fewer requests per GPU than replicas would. H100 NVL "
            "cards are joined by NVLink bridges in pairs only: TP2 stays on the bridge, TP4 crosses PCIe.\n\n"
            "Tensor parallelism over PCIe works, and when the model needs that many GPUs of the pool it may be "
            "the way to serve it there, so the finding blocks only when the sharding was avoidable: replicas "
            "whose TP stays inside the NVLink domain start and hold the declared concurrency at the precision "
            "served, sized like any layout (weights, activations and KV cache per GPU for the vLLM release), "
            "beyond the estimate's error band. Otherwise it is advisory and names the alternatives: pipeline "
            "parallelism (only activations cross PCIe, as vLLM's parallelism guide advises for GPUs without "
            "NVLink), a pool whose GPUs share NVLink, or an FP8 or 4-bit checkpoint that fits fewer GPUs; each "
            "layout it names is sized the same way and named only when it starts (vLLM builds some models without "
            "pipeline parallelism, and splits others' KV-shared layers from their targets), and when pipeline "
            "stages would not start the finding says why. A layout under review that does not start itself holds "
            "nothing to compare replicas with: the finding then says why it does not start. A "
            "lower precision alone never makes it block: whether its quality is acceptable takes an evaluation "
            "(SW106). A per-token latency target declared with the annotation shardwise.dev/tpot-target-ms (the "
            "stack's tpot_target_ms) makes it advisory too: the sharding may be there to meet it. Where SW104 blocks "
            "on the same workload, the avoidable sharding is its finding, which names the change to make, and this "
            "one is advisory beside it (one root cause, one blocking finding), where that change keeps the TP group "
            "inside the NVLink domain. Of the layouts of the fewest GPUs that hold the load SW104 names one whose TP "
            "stays inside the domain (TP2×PP2 on NVLink pairs before TP4×PP1, TP1×PP2 on PCIe-only GPUs before "
            "TP2); where only a layout over PCIe does, the PCIe is a cause of its own and this one keeps its level. A "
            "suppression of SW104 accepts its finding, not the PCIe, so this one blocks again."
        ),
        bad_example="--tensor-parallel-size 2 --max-num-seqs 4   # Llama-3.1-8B on g5.12xlarge: one A10G holds it",
        good_example=(
            "--tensor-parallel-size 1 --pipeline-parallel-size 2   # a model that needs two A10Gs\n"
            "--tensor-parallel-size 4   # p4d/p5: 8 GPUs on NVSwitch"
        ),
        remediation=(
            "Run the replicas the message names when the sharding was avoidable; otherwise use pipeline "
            "parallelism across the PCIe link, move the workload to a pool with NVLink or NVSwitch, or serve a "
            "checkpoint small enough for the NVLink domain, and suppress the rule with the reason when tensor "
            "parallelism over PCIe is what you measured to be best."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
        ),
    )
    fields = ("tensor_parallel_size",)  # the line a finding points at
    reads_pool = True  # GPUs per node and NVLink domain: judged on every kind a NodePool may launch

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its tensor-parallel group spans GPUs only PCIe joins")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is None or not nccl_rules_apply(g):
            return
        pool = g.pool
        domain = nvlink_domain(pool)
        lay = layout(g)
        if lay.tp <= 1 or domain is None or lay.tp <= domain:
            return
        model = require_model(g)
        current = parallel(g)
        if current.pcp > 1:
            return  # (the search of narrower TP groups does not weigh prefill context parallelism)
        gpu = pool.gpu.name if pool.gpu else "GPUs"
        link = ("joined only by PCIe" if domain == 1 else
                f"NVLink joins them in groups of {domain} only, PCIe between the groups")
        head = (f"tensor_parallel_size {lay.tp} on pool `{pool.name}` ({gpu}, {link}) runs every layer's "
                "all-reduce over PCIe")
        sz = sizer(g, config)
        s = sizing(g, config)
        if sz is None or s is None:
            yield hit(g, f"{head}; shardwise cannot size the model on this pool (its GPU memory is not known), so it "
                         "cannot tell whether fewer GPUs would do")
            return
        seqs, how = declared_seqs(g, config)
        inside = [p for p in smaller(model, current, max_tp=domain) if p.pp == current.pp]
        down = not_starting(s, current)  # a layout that does not start holds nothing to compare with
        holds = 0 if down else s.concurrency_at_expected_context
        r = replication(sz, current, holds, inside, seqs, config.kv_reserve)
        if r is not None and r.suggest:
            alt = r.alt
            text, sure = replicas_text(r, current, how, context_text(g, config, alt.fit.sizing), load_source(g), down)
            ecc_on = ecc_on_sizer(sz) if sure else None
            if ecc_on is not None:  # ecc1: the catalog's figure is the GPU's with ECC off; it must serve with ECC on
                at_low, s_low = ecc_on
                r_low = replication(at_low, current, 0 if not_starting(s_low, current) else
                                    s_low.concurrency_at_expected_context, inside, seqs, config.kv_reserve)
                if r_low is None or not r_low.suggest or not replicas_text(
                        r_low, current, how, context_text(g, config, r_low.alt.fit.sizing), load_source(g), down)[1]:
                    sure, text = False, text + ecc_on_text(sz)
            message, sure = latency_escape(
                g, f"{head}, and the sharding {'is' if sure else 'may be'} avoidable: {text}", sure)
            yield hit(g, f"{message} ({s.vllm_version_note})", level="mandatory" if sure else None)
            return
        others, no_pp = _alternatives(g, config, current, domain, seqs, inside)
        tail = f"; alternatives: {others}" if others else ""
        if no_pp:
            tail += f"; pipeline stages are no alternative: {no_pp}"
        if down:  # nothing on fewer GPUs holds more than a layout that does not start: say why it does not
            yield hit(g, f"{head}, and {down}{tail} ({s.vllm_version_note})")
            return
        if r is not None:
            why = replicas_text(r, current, how, context_text(g, config, r.alt.fit.sizing),
                                load_source(g), down)[0]
        else:
            share = None if seqs is None or not inside else -(-seqs // (current.gpus // inside[-1].gpus))
            why = _why_not(sz.fit(inside[-1], share), current, seqs, config.kv_reserve,
                           context_text(g, config, s)) if inside else (
                f"no TP of {domain} or fewer divides the model's {model.num_attention_heads} attention heads")
        yield hit(g, f"{head}, and the sharding is not avoidable on this pool: {why}{tail} ({s.vllm_version_note})")


def _why_not(fit: Fit, current: Parallel, seqs: int | None, kv_reserve: float, context: str) -> str:
    """Why the largest layout inside the NVLink domain is no replacement, in the terms the rules use."""
    s = fit.sizing
    at = f"at {fit.parallel.text()} {s.model_id} in {s.weight_precision}"
    if fit.starts == "refuses":
        return f"{at} would not start: {s.refusal or 'its weights exceed the memory vLLM may use'}"
    if fit.starts == "may-refuse":
        return f"{at} may not start (within the estimate's error band)"
    if seqs is not None:
        k = current.gpus // fit.parallel.gpus
        return (f"{at} holds about {plural(fit.holds, 'sequence')} of {context} where each of {k} replicas needs "
                f"{fit.seqs:,}")
    if not has_room(s, kv_reserve):  # the judgement plan makes (capacity.layout.serves)
        left = max(s.kv_cache_gib_per_gpu - s.error_band_gib, 0.0)
        return (f"{at} leaves too little room for a KV cache ({s.weights_gib_per_gpu:.1f} GiB of weights × "
                f"{kv_reserve:g} is more than the {s.usable_gib_per_gpu:.1f} GiB vLLM may use, and the "
                f"{left:.1f} GiB of KV cache left beyond the error band are less than a quarter of that reserve)")
    return f"{at} holds no sequence of {context} beyond the estimate's error band"


def _alternatives(g: ServingGroup, config: LintConfig, current: Parallel, domain: int, seqs: int | None,
                  inside: list[Parallel]) -> tuple[str, str]:
    """The alternatives to name (pipeline stages across PCIe, a lower precision), and why pipeline stages are none
    when the layout with them was sized and does not start ("" otherwise)."""
    model = require_model(g)
    sz = sizer(g, config)
    assert sz is not None
    out = []
    # the same GPUs with TP inside the NVLink domain and pipeline stages across PCIe, sized like the layout under
    # review: proposed only when it starts (a model vLLM builds without SupportsPP, KV-shared layers split from their
    # targets, a first or last stage that the embedding and LM head leave without a KV cache all refuse)
    refused, piped = "", False
    for p in layouts_for(model, current.gpus, Node(current.gpus, domain), expert_parallel=current.expert_parallel):
        if p.tp >= current.tp or p.dp != 1:
            continue
        fit = sz.fit(p, seqs)
        if fit.starts == "starts":
            out.append(f"--tensor-parallel-size {p.tp} --pipeline-parallel-size {p.pp}")
            piped = True
            break
        refused = refused or (f"{p.text()} {'would' if fit.starts == 'refuses' else 'may'} not start"
                              + (f": {fit.sizing.refusal}" if fit.sizing.refusal else ""))
    variant = precision_variant(sz, current, gpu_of(g), seqs, config.kv_reserve, inside)
    if variant is not None:
        out.append(f"{'an' if variant.precision == 'fp8' else 'a'} {VARIANTS[variant.precision][1]} checkpoint "
                   f"at {variant.fit.parallel.text()}")
    if not piped and not refused and current.expert_parallel and model.moe is not None:
        # vLLM's expert-parallel group is a pipeline stage's TP × DP ranks (FusedMoEParallelConfig.make): stages
        # across PCIe in place of the TP would leave every stage all its experts (capacity.layout.layouts_for)
        refused = "they would spread no expert (vLLM's EP group is a stage's TP × DP ranks)"
    if not piped and not refused and domain < current.gpus:
        refused = pp_refusal(model, current.gpus // domain)  # the search left pipeline stages out for this model
    return ", or ".join(out), "" if piped else refused
