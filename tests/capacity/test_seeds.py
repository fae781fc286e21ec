"""The seed documents' printed outputs, reproduced exactly (shared/seeds)."""

from shardwise.rules.capacity import sizing


def test_gpus_needed_prints_the_seed_dicts():
    assert sizing.gpus_needed(model_gb=140, gpu_gb=80) == {
        "need_gb": 196.0, "per_gpu_gb": 72.0, "raw_gpus": 3, "tensor_parallel_size": 4,
    }
    assert sizing.gpus_needed(model_gb=40, gpu_gb=80) == {
        "need_gb": 56.0, "per_gpu_gb": 72.0, "raw_gpus": 1, "tensor_parallel_size": 1,
    }


def test_per_request_kv_and_concurrency():
    one = sizing.per_request_kv_gb(layers=80, kv_heads=8, head_dim=128, seq_len=8192)
    assert f"{one:.2f}" == "2.68"
    assert sizing.max_concurrent_requests(kv_cache_budget_gb=116, per_request_kv_gb=one) == 43
    half = sizing.per_request_kv_gb(layers=80, kv_heads=8, head_dim=128, seq_len=4096)
    assert sizing.max_concurrent_requests(116, half) == 86


def test_plan_cost_prints_both_plans():
    assert sizing.plan_cost("A: 8x TP1", replicas=8, gpus_per_replica=1, rps_per_replica=6,
                            gpu_hourly=4.0, target_rps=40) == {
        "plan": "A: 8x TP1", "gpus": 8, "cap_rps": 48, "meets_target": True,
        "cost/hr": 32.0, "cost/1k_tok": 0.00062,
    }
    assert sizing.plan_cost("B: 2x TP4", replicas=2, gpus_per_replica=4, rps_per_replica=9,
                            gpu_hourly=4.0, target_rps=40) == {
        "plan": "B: 2x TP4", "gpus": 8, "cap_rps": 18, "meets_target": False,
        "cost/hr": 32.0, "cost/1k_tok": 0.00165,
    }


def test_plan_cost_with_no_capacity_is_infinite():
    assert sizing.plan_cost("idle", 0, 4, 9, 4.0, 1)["cost/1k_tok"] == float("inf")


def test_tp_weight_and_comm_table():
    lines = [
        f"tp={tp}: weights/GPU={sizing.tp_weight_gib(70, tp):6.1f} GiB, "
        f"comms={sizing.tp_comm_gib_per_tok(80, 8192, tp) * 1e6:6.2f} KiB/token"
        for tp in (1, 2, 4, 8)
    ]
    assert lines == [
        "tp=1: weights/GPU= 130.4 GiB, comms=  0.00 KiB/token",
        "tp=2: weights/GPU=  65.2 GiB, comms=1220.70 KiB/token",
        "tp=4: weights/GPU=  32.6 GiB, comms=1831.05 KiB/token",
        "tp=8: weights/GPU=  16.3 GiB, comms=2136.23 KiB/token",
    ]


def test_concurrency_table():
    out = []
    for seq in (2048, 4096, 8192):
        n, per = sizing.concurrency(seq=seq)
        out.append(f"ctx={seq:>5}: KV/req={per:.2f} GiB -> ~{n} concurrent requests")
    assert out == [
        "ctx= 2048: KV/req=0.62 GiB -> ~63 concurrent requests",
        "ctx= 4096: KV/req=1.25 GiB -> ~31 concurrent requests",
        "ctx= 8192: KV/req=2.50 GiB -> ~15 concurrent requests",
    ]
    assert sizing.kv_per_req_gib(seq=4096) == 1.25


def test_validate_seed_and_corrected_forms():
    assert sizing.validate(tp=4, max_model_len=8192, gpu_mem_util=0.90, max_num_seqs=64) == (
        "tp=4 len=8192 util=0.9 seqs=64: KV need=160.0 / budget=39.4 GiB -> "
        "WILL OOM -- lower max_num_seqs or max_model_len"
    )
    assert sizing.validate(tp=4, max_model_len=8192, gpu_mem_util=0.90, max_num_seqs=8) == (
        "tp=4 len=8192 util=0.9 seqs=8: KV need=20.0 / budget=39.4 GiB -> OK"
    )
    # The seed compares whole-model KV with one GPU; per GPU each TP4 rank holds 2 of the 8 KV heads.
    assert sizing.validate_per_gpu(tp=4, max_model_len=8192, gpu_mem_util=0.90, max_num_seqs=64) == (
        "tp=4 len=8192 util=0.9 seqs=64: KV need per GPU=40.0 / budget=39.4 GiB -> "
        "WILL OOM -- lower max_num_seqs or max_model_len"
    )
    assert sizing.validate_per_gpu(tp=4, max_model_len=8192, gpu_mem_util=0.90, max_num_seqs=56).endswith(
        "KV need per GPU=35.0 / budget=39.4 GiB -> OK"
    )


def test_autoscale_sequence():
    r, out = 2, []
    for kv, q in [(0.85, 2), (0.9, 8), (0.5, 0), (0.3, 0)]:
        r, why = sizing.autoscale(r, kv, q)
        out.append(f"kv={kv} queue={q} -> replicas={r} ({why})")
    assert out == [
        "kv=0.85 queue=2 -> replicas=3 (scale UP (KV/queue high))",
        "kv=0.9 queue=8 -> replicas=4 (scale UP (KV/queue high))",
        "kv=0.5 queue=0 -> replicas=4 (hold)",
        "kv=0.3 queue=0 -> replicas=3 (scale DOWN (idle))",
    ]
    assert sizing.autoscale(20, 0.95, 9) == (20, "scale UP (KV/queue high)")
    assert sizing.autoscale(1, 0.1, 0) == (1, "hold")


def test_topology_line():
    assert sizing.topology(200) == "tp=4 x 14 replicas = 56 GPUs; 15 users/replica; ~$80,640/mo"
    assert sizing.kv_per_req(8192) == 2.5
