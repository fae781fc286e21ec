"""The rule-of-thumb sizing functions, with the names, signatures and printed outputs they were first published
with in this project (docs/capacity-model.md, "Where the rules differ from the rule-of-thumb functions").

They stay as written so that their printed figures come out exactly; the rules use the general per-GPU model
in :mod:`shardwise.rules.capacity.sizing` instead. Where one of them compares the KV cache of the *whole*
model with *one* GPU's budget (``validate``, ``concurrency``, ``topology``), the rules make the
per-GPU comparison: with tensor parallelism each GPU holds only ``kv_heads / TP`` of the heads, so
these functions overstate the KV need per GPU by a factor of TP. :func:`validate_per_gpu` is the corrected
form of ``validate``.
"""

from __future__ import annotations

import math


def gpus_needed(model_gb: float, gpu_gb: float, kv_overhead: float = 1.4, usable: float = 0.90) -> dict:
    """GPUs to hold weights plus KV cache and activations, rounded up to a power of two.

    need_gb = model_gb × kv_overhead; per_gpu_gb = gpu_gb × usable;
    raw_gpus = ceil(need_gb / per_gpu_gb); tensor_parallel_size = next power of two ≥ raw_gpus.
    """
    need_gb = model_gb * kv_overhead
    per_gpu = gpu_gb * usable
    raw = -(-need_gb // per_gpu)
    g = 1
    while g < raw:
        g *= 2
    return {
        "need_gb": round(need_gb, 1),
        "per_gpu_gb": round(per_gpu, 1),
        "raw_gpus": int(raw),
        "tensor_parallel_size": g,
    }


def per_request_kv_gb(layers: int, kv_heads: int, head_dim: int, seq_len: int, bytes_per: int = 2) -> float:
    """KV bytes of one request = 2 (K and V) × layers × kv_heads × head_dim × seq_len × dtype bytes, in GB."""
    kv_bytes = 2 * layers * kv_heads * head_dim * seq_len * bytes_per
    return kv_bytes / 1e9


def max_concurrent_requests(kv_cache_budget_gb: float, per_request_kv_gb: float) -> int:
    """Concurrency ceiling = floor(KV budget / per-request KV footprint)."""
    return int(kv_cache_budget_gb // per_request_kv_gb)


def plan_cost(
    name: str,
    replicas: int,
    gpus_per_replica: int,
    rps_per_replica: float,
    gpu_hourly: float,
    target_rps: float,
) -> dict:
    """Cost of a replicas × GPUs-per-replica plan, assuming ~300 tokens per response."""
    total_gpus = replicas * gpus_per_replica
    capacity_rps = replicas * rps_per_replica
    cost_hr = total_gpus * gpu_hourly
    tokens_hr = capacity_rps * 3600 * 300
    cost_per_1k = cost_hr / (tokens_hr / 1000) if tokens_hr else float("inf")
    return {
        "plan": name,
        "gpus": total_gpus,
        "cap_rps": capacity_rps,
        "meets_target": capacity_rps >= target_rps,
        "cost/hr": round(cost_hr, 2),
        "cost/1k_tok": round(cost_per_1k, 5),
    }


def tp_weight_gib(params_b: float, tp: int, bytes_per: int = 2) -> float:
    """Weights per GPU in GiB = params × bytes ÷ TP."""
    return params_b * 1e9 * bytes_per / tp / (1024**3)


def tp_comm_gib_per_tok(n_layers: int, hidden: int, tp: int, bytes_per: int = 2) -> float:
    """All-reduce volume per token in GiB: one all-reduce per layer of ~2(tp−1)/tp × hidden × bytes."""
    per = 2 * (tp - 1) / tp * hidden * bytes_per
    return n_layers * per / (1024**3)


def kv_per_req_gib(
    n_layers: int = 80, n_kv_heads: int = 8, head_dim: int = 128, seq: int = 4096, bytes_per: int = 2
) -> float:
    """KV of one request in GiB for the whole model (all KV heads)."""
    return 2 * n_layers * n_kv_heads * head_dim * seq * bytes_per / (1024**3)


def concurrency(
    card_gib: float = 80, weight_gib: float = 32.6, headroom: float = 0.10, seq: int = 4096
) -> tuple[int, float]:
    """Rule of thumb: (requests that fit, KV per request); compares whole-model KV with one card's budget."""
    budget = card_gib * (1 - headroom) - weight_gib
    per = kv_per_req_gib(seq=seq)
    return max(0, int(budget // per)), per


def validate(
    tp: int,
    max_model_len: int,
    gpu_mem_util: float,
    max_num_seqs: int,
    params_b: float = 70,
    card_gib: float = 80,
    bytes_per: int = 2,
) -> str:
    """Rule of thumb: whole-model KV need for max_num_seqs × max_model_len against one GPU's budget."""
    weight = params_b * 1e9 * bytes_per / tp / (1024**3)
    budget = card_gib * gpu_mem_util - weight
    kv_per = 2 * 80 * 8 * 128 * max_model_len * bytes_per / (1024**3)
    need = kv_per * max_num_seqs
    ok = need <= budget
    return (
        f"tp={tp} len={max_model_len} util={gpu_mem_util} seqs={max_num_seqs}: "
        f"KV need={need:.1f} / budget={budget:.1f} GiB -> "
        f"{'OK' if ok else 'WILL OOM -- lower max_num_seqs or max_model_len'}"
    )


def validate_per_gpu(
    tp: int,
    max_model_len: int,
    gpu_mem_util: float,
    max_num_seqs: int,
    params_b: float = 70,
    card_gib: float = 80,
    bytes_per: int = 2,
) -> str:
    """Corrected ``validate``: each GPU holds ``max(1, 8 / tp)`` of the 8 KV heads, so the KV need
    per GPU is the whole-model need ÷ TP (for TP ≤ 8)."""
    weight = params_b * 1e9 * bytes_per / tp / (1024**3)
    budget = card_gib * gpu_mem_util - weight
    kv_heads_per_gpu = max(1, math.ceil(8 / tp))
    kv_per = 2 * 80 * kv_heads_per_gpu * 128 * max_model_len * bytes_per / (1024**3)
    need = kv_per * max_num_seqs
    ok = need <= budget
    return (
        f"tp={tp} len={max_model_len} util={gpu_mem_util} seqs={max_num_seqs}: "
        f"KV need per GPU={need:.1f} / budget={budget:.1f} GiB -> "
        f"{'OK' if ok else 'WILL OOM -- lower max_num_seqs or max_model_len'}"
    )


def autoscale(
    replicas: int, kv_util: float, queue: int, up: float = 0.80, down: float = 0.40, max_r: int = 20
) -> tuple[int, str]:
    """Rule-of-thumb autoscaler: scale up on high KV use or a queue over 5, down when idle."""
    if kv_util > up or queue > 5:
        return min(max_r, replicas + 1), "scale UP (KV/queue high)"
    if kv_util < down and queue == 0 and replicas > 1:
        return replicas - 1, "scale DOWN (idle)"
    return replicas, "hold"


def kv_per_req(seq: int = 8192) -> float:
    """Whole-model KV of one Llama-70B-shaped request in GiB (fp16)."""
    return 2 * 80 * 8 * 128 * seq * 2 / (1024**3)


def topology(
    users: int, params_b: float = 70, card_gib: float = 80, tp: int = 4, gpu_hr: float = 2.0, seq: int = 8192
) -> str:
    """Rule of thumb: replicas and monthly cost to serve ``users`` concurrent users."""
    weight = params_b * 1e9 * 2 / tp / (1024**3)
    budget = card_gib * 0.9 - weight
    per_replica_users = max(1, int(budget // kv_per_req(seq)))
    replicas = math.ceil(users / per_replica_users)
    gpus = replicas * tp
    monthly = gpus * gpu_hr * 24 * 30
    return f"tp={tp} x {replicas} replicas = {gpus} GPUs; {per_replica_users} users/replica; ~${monthly:,.0f}/mo"
