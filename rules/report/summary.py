"""The per-workload sizing summary a report shows (:func:`workload_summary`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..capacity.group import summary
from ..engine import LintConfig, group_subject
from ..model import ServingGroup, world_size
from ..model import int_or_none as _int


def workload_summary(g: ServingGroup, config: LintConfig) -> dict[str, Any]:
    """Per-group sizing summary: GPUs = replicas × TP × PP × DP and one replica's memory per GPU.

    The numbers are the capacity rules' own sizing of the group (:func:`shardwise.rules.capacity.group.summary`,
    made once per group); when the group has no model, no GPU or an unknown input, ``note`` says what is missing
    and the sizing fields are None. ``cost`` is :func:`shardwise.rules.capacity.cost.workload_cost`: nodes,
    instance type and on-demand price.
    """
    from ..capacity.cost import workload_cost  # start-up: the text report makes no summary, and needs no cost

    e = g.engine
    tp, pp, replicas = _int(e.tensor_parallel_size), _int(e.pipeline_parallel_size), _int(g.replicas)
    dp, pcp = _int(e.data_parallel_size), _int(g.prefill_context_parallel)
    per_replica = world_size(tp, pp, pcp) * dp if tp and pp and dp and pcp else None
    sm = summary(g, config)
    p95 = g.p95_context or config.p95_context_tokens
    out: dict[str, Any] = {
        "subject": group_subject(g),
        "name": g.name,
        "kind": g.kind,
        "namespace": g.namespace,
        "file": g.location.file,
        "line": g.location.line,
        "urn": g.location.urn,
        "model": sm.model,
        "gpu": sm.gpu,
        "gpu_memory_gib": None,
        "replicas": replicas,
        "tensor_parallel_size": tp,
        "pipeline_parallel_size": pp,
        "data_parallel_size": dp,
        # one replica is one engine set: TP × PP × DP GPUs (a DP8 Deployment of TP1 holds 8), as cost counts them
        "gpus_per_replica": per_replica,
        "gpus_total": replicas * per_replica if per_replica is not None and replicas is not None else None,
        "max_model_len": _int(e.max_model_len),
        "max_num_seqs": _int(e.max_num_seqs),
        "p95_context": p95,
        "target_concurrency": g.target_concurrency,
        "weights_gib_per_gpu": None,
        "kv_cache_gib_per_gpu": None,
        "headroom_gib_per_gpu": None,
        "kv_cache_tokens": None,
        "max_concurrency": None,
        "concurrency_at_p95": None,
        "starts": None,
        "note": sm.note,
        "cost": workload_cost(g).as_dict(),
    }
    s = sm.sizing
    if s is None:
        return out
    out.update(
        gpu_memory_gib=sm.gpu_memory_gib,
        max_model_len=s.max_model_len,
        max_num_seqs=s.max_num_seqs,
        weights_gib_per_gpu=round(s.weights_gib_per_gpu, 2),
        kv_cache_gib_per_gpu=round(s.kv_cache_gib_per_gpu, 2),
        # KV left after each replica's share of the declared load (None without one: max_num_seqs is not a load)
        headroom_gib_per_gpu=(round(s.kv_cache_gib_per_gpu - -(-g.target_concurrency // max(1, replicas or 1))
                                    * s.context_kv_gib, 2) if g.target_concurrency else None),
        kv_cache_tokens=s.kv_cache_tokens,
        max_concurrency=int(s.max_concurrency),  # whole sequences of max_model_len
        concurrency_at_p95=s.concurrency_at_expected_context if p95 else None,
        starts=s.starts,
    )
    return out



_ENCODE: list[Callable[[Any], str]] = []  # the JSON report's item encoder, made on the first summary text


def workload_summary_text(g: ServingGroup, config: LintConfig) -> str:
    """:func:`workload_summary` as the JSON report writes it on its line (:func:`.json_.item_encoder`'s text), for a
    run whose rules are shared out over processes (:func:`~shardwise.rules.engine.split.run_rules_split`): the
    process that checked the group and sized it encodes its summary, one string is pickled back instead of a dict of
    thirty values, and the process that writes the report joins the texts instead of encoding 2,000 summaries after
    every other process is done. :attr:`.result.Report.workloads` reads them back where a report needs the values
    (Markdown, ``shardwise diff``): a summary holds only JSON's own types, so they come back equal."""
    if not _ENCODE:
        from .json_ import item_encoder

        _ENCODE.append(item_encoder())
    return _ENCODE[0](workload_summary(g, config))
