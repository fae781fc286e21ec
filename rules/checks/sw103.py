"""SW103: the KV cache cannot hold the declared load (concurrent sequences × their p95 context)."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import context_parallel, declared_load, gpu_name, parallel, require_model, sizing
from ..capacity.layout import judge, plural
from ..capacity.sizing import LENGTH_BY_RELEASE, float32_assumed
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable
from ..model.vocab import ANN_P95
from ._capacity import ecc_off_sizing, layout_text, load_source
from ._unseen import held_back_hits, unseen


class KvBudgetBelowLoad(GroupRule):
    meta = RuleMeta(
        code="SW103",
        name="kv-budget-below-load",
        enforcement="advisory",
        mandatory_when=(
            "when the team declared the concurrency and the p95 context and that load does not fit beyond the "
            "estimate's error band"
        ),
        severity="high",
        summary="The KV cache of the replicas is smaller than the declared concurrency × the p95 context length.",
        why=(
            "Every running sequence keeps its keys and values for its whole context. When the concurrency "
            "the deployment must sustain (annotation shardwise.dev/target-concurrency, spread over its "
            "replicas), at the real p95 context, does not fit the KV cache of a replica, vLLM's scheduler "
            "queues and preempts sequences: latency spikes under exactly the load the deployment was sized "
            "for. --max-num-seqs is not a load: it caps the batch, and vLLM admits a sequence only when its "
            "KV blocks can be allocated. So the rule runs only on a declared concurrency; without a declared "
            "p95 context each sequence counts at max_model_len and the finding is advisory. A declared p95 "
            "context above max_model_len, with a declared concurrency or without one, is never judged at "
            "max_model_len instead: vLLM rejects a request whose "
            "prompt and max_tokens exceed max_model_len and stops any other there, so that load is not served at "
            "any number of replicas (blocks where both lengths are exact)."
        ),
        bad_example=(
            "annotations: {shardwise.dev/target-concurrency: '256', shardwise.dev/p95-context-tokens: '8192'}\n"
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4']   # one replica\n"
            "# 256 × 8,192 tokens need 160 GiB of KV cache per GPU, about 37.5 GiB available"
        ),
        good_example=(
            "replicas: 5\n"
            "annotations: {shardwise.dev/target-concurrency: '256', shardwise.dev/p95-context-tokens: '8192'}\n"
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4']   # 52 sequences per replica"
        ),
        remediation=(
            "Add replicas until each holds its share of the declared concurrency at the p95 context "
            "(`shardwise plan --concurrency N --p95-context L` prints how many), use an fp8 KV cache, or shard "
            "wider when one replica must hold more."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/optimization.html",
            "https://arxiv.org/abs/2309.06180",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("max_num_seqs", "max_model_len", "model")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        # a workload not known at preview whose load is declared (the stack's target_concurrency, written by the
        # components as the annotation on its metadata), or whose annotations are not known either: the load is
        # there to weigh, the KV cache is not (mend2; a workload known to declare none has nothing for SW103)
        loaded = [i for i in unseen(inv) if i.declares_load]
        if loaded:
            yield from held_back_hits(inv, config, "whether its KV cache holds the declared load", only=loaded)

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        load = declared_load(g, config)
        seqs = load.per_replica
        if seqs is None:
            # no load declared: max_num_seqs is vLLM's cap on the batch, not a load (the report shows how many
            # sequences a replica holds); but a p95 context declared alone above max_model_len is said all the
            # same (mend25): vLLM refuses or cuts those requests at any concurrency, never a silent clamp
            yield from _context_alone_beyond(g, config, load.context)
            return
        s = sizing(g, config)
        if s is not None and load.context is not None and load.context > s.max_model_len:
            yield _beyond_max_model_len(g, config, s.max_model_len, s.model_max_len, load.context,
                                        any(n.startswith(LENGTH_BY_RELEASE) for n in s.notes))
            return  # the declared context is not served at all: what its KV cache holds of it is moot
        if s is None or s.verdict != "starts":
            return  # SW101/SW102 speak for a server that may not start
        cp = context_parallel(g)  # review27: each GPU keeps 1/(DCP × PCP) of each sequence's KV cache
        judged = -(-seqs // cp)
        fit = judge(s, parallel(g), judged)
        if fit.load == "holds":
            return
        ctx_declared = load.context is not None
        ctx_how = "p95 context" if ctx_declared else "max_model_len"
        dp = fit.parallel.dp  # each data-parallel engine has its own KV cache and takes its share of the load
        fits = s.concurrency_at_expected_context * dp * cp
        over = (f" over {plural(load.replicas, 'replica')}: {seqs:,} per replica" if load.replicas > 1 else "")
        if dp > 1:
            over += f" over {dp} data-parallel engines: {fit.seqs:,} per engine"
        where = f"{s.model_id} at {layout_text(s)} on {gpu_name(g)} ({s.vllm_version_note})"
        msg = (
            f"the declared load of {plural(load.concurrency or 0, 'sequence')} "
            f"({load_source(g)}){over} × {s.expected_context:,} tokens ({ctx_how}) needs "
            f"{fit.need_gib:.1f} GiB of KV cache per GPU, but {where} holds about {s.kv_cache_gib_per_gpu:.1f} GiB "
            f"({s.kv_band_text}): {plural(fits, 'such sequence')} per replica"
        )
        if cp > 1:
            msg += (f" (DCP × PCP = {cp}: vLLM keeps 1/{cp} of each sequence's KV cache on each GPU, counted here as "
                    f"{judged:,} whole sequences; the sizing does not model how the split meets sliding-window or "
                    "state layers, so this does not block)")
        # what to change: the replicas that hold the declared load at this layout (the central estimate), an fp8 KV
        # cache where the cache is wider and not MLA's latent (fits_instead's rule), a wider layout
        total = load.concurrency or 0
        fp8 = (" an fp8 KV cache (--kv-cache-dtype fp8) or" if s.kv_cache_dtype_bytes > 1
               and require_model(g).mla is None else "")
        fix = ""
        if fits <= 0:
            fix = f"; no replica holds one such sequence: use{fp8} a wider layout"
        elif -(-total // fits) > load.replicas:
            fix = f"; run {plural(-(-total // fits), 'replica')} to hold it, or use{fp8} a wider layout"
        high = ecc_off_sizing(g, config) if fit.load != "may-not-hold" and ctx_declared else None
        if high is not None and judge(high, parallel(g), judged).load != "does-not-hold":
            yield hit(g, f"{msg} with ECC on ({s.gpu_memory_gib:.2f} GiB); with ECC off the GPU reports "
                         f"{high.gpu_memory_gib:.2f} GiB and holds about {high.kv_cache_gib_per_gpu:.1f} GiB "
                         f"({high.kv_band_text}), which may hold it: a manifest does not say which{fix}")
        elif fit.load == "may-not-hold":
            yield hit(g, f"{msg} (within the estimate's error band){fix}")
        elif ctx_declared and float32_assumed(s):  # sized in float32 on the assumed release alone (review44)
            yield hit(g, f"{msg}{fix}; not sure: {float32_assumed(s)}", level="advisory")
        elif ctx_declared:
            yield hit(g, msg + fix, level="mandatory" if cp == 1 else None)
        else:
            missing = ("the p95 context (--p95-context)" if g.kind == "plan" else
                       f"the p95 context (annotation {ANN_P95})")
            yield hit(g, f"{msg}{fix}; declare {missing} to make this finding sure")


def _context_alone_beyond(g: ServingGroup, config: LintConfig, context: int | None) -> Iterable[Hit]:
    """:func:`_beyond_max_model_len` for a p95 context declared without a concurrency (mend25): the length check
    needs no load, only the declared context and max_model_len. A sizing not known yet says nothing here: SW101
    and SW102 say "cannot decide" of it, and with no load declared SW103 has nothing else to weigh."""
    if context is None:
        return
    try:
        s = sizing(g, config)
    except Undecidable:
        return
    if s is not None and context > s.max_model_len:
        yield _beyond_max_model_len(g, config, s.max_model_len, s.model_max_len, context,
                                    any(n.startswith(LENGTH_BY_RELEASE) for n in s.notes))


def _beyond_max_model_len(g: ServingGroup, config: LintConfig, mml: int, limit: int, p95: int,
                          by_release: bool) -> Hit:
    """A declared p95 context (prompt and output) above the engine's max_model_len (plancases25): vLLM rejects a
    request whose prompt reaches max_model_len or whose prompt and ``max_tokens`` exceed it ("This model's maximum
    context length is N tokens", ``_validate_input`` in ``entrypoints/openai/engine/serving.py``, the 0.16.0 wheel)
    and stops any other at max_model_len, so more than 5 % of the declared load is refused or cut short at any
    replica count; never judged at max_model_len instead (a silent clamp).
    Mandatory where both lengths are exact: the declared context and a max_model_len as written, or the model's
    limit; advisory where vLLM fits the length to the KV cache (``auto``) or the limit depends on the release."""
    if g.p95_context:
        where = ("--p95-context" if g.kind == "plan" else "p95_context_tokens" if g.declared
                 else f"annotation {ANN_P95}")
    else:
        where = "--p95-context, the run's"
    auto = g.engine.max_model_len in ("auto", -1, "-1")
    what = ("fitted to the KV cache (--max-model-len auto)" if auto else
            "the model's limit" if mml == limit and g.engine.max_model_len is None else
            "as written" + (f"; the model allows {limit:,}" if limit > mml else ""))
    fix = (f"raise --max-model-len to at least {p95:,}" if p95 <= limit else
           f"serve a model whose limit is at least {p95:,} tokens, or declare the p95 context this one serves")
    msg = (f"the declared p95 context of {p95:,} tokens ({where}) is above max_model_len {mml:,} ({what}): vLLM "
           "rejects a request whose prompt and max_tokens exceed max_model_len and stops any other there, so the "
           f"longest part of the declared load is refused or cut short at any number of replicas; {fix}")
    return hit(g, msg, level=None if auto or by_release else "mandatory")
