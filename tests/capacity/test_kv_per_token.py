"""KV bytes per token per GPU and the KV a decode step reads, as vLLM lays the cache out
(:func:`kv_layout.replica_token_bytes`, :func:`kv_layout.replica_decode_read_bytes`): attention layers only, per
pipeline stage, a sliding layer read up to its window; and the pipeline stage whose cache bounds the replica."""

from __future__ import annotations

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.throughput import MEMORY_EFFICIENCY, estimate_decode
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import behaviour

NEMOTRON = "nvidia/NVIDIA-Nemotron-Nano-9B-v2"
# Nemotron-Nano-9B-v2's Mamba2 state per layer and request at TP1: conv 3 x (128 x 80 + 2 x 8 x 128) bf16 +
# SSM 128 x 80 x 128 float32
MAMBA_STATE = 73_728 + 5_242_880


@pytest.mark.parametrize(("model_id", "tp", "pp", "per_token", "read_8k"), [
    # 4 attention layers of 8 KV heads of 128 (the 27 Mamba2 and 25 MLP layers cache no tokens): 16,384, not
    # 56 x 4,096 = 229,376; a step at 8,192 tokens reads 4 x 4,096 x 8,192 and 27 Mamba states
    (NEMOTRON, 1, 1, 4 * 4096, 4 * 4096 * 8192 + 27 * MAMBA_STATE),
    # PP2: layers 0-27 hold 2 attention and 14 Mamba2 layers, 28-55 2 and 13
    (NEMOTRON, 1, 2, 2 * 4096, 2 * 4096 * 8192 + 14 * MAMBA_STATE),
    # gemma-4-31B TP2: 50 sliding layers of 8 KV heads of 256 (16,384 at TP1, 8,192 at TP2) with a 1,024 window,
    # 10 full layers of 2 global KV heads of 512 (8,192 at TP1, 4,096 at TP2)
    ("google/gemma-4-31B-it", 2, 1, 50 * 8192 + 10 * 4096, 10 * 4096 * 8192 + 50 * 8192 * 1024),
    # gpt-oss-20b: 12 sliding (window 128) and 12 full layers of 8 KV heads of 64: 24 x 2,048 stored per token
    ("openai/gpt-oss-20b", 1, 1, 24 * 2048, 12 * 2048 * 8192 + 12 * 2048 * 128),
    # Qwen3-Next TP4: 12 full-attention layers of 1 KV head of 256 (2 heads over TP4), 36 Gated DeltaNet states
    # of (2 x 16 x 128 + 32 x 128) / 4 x 3 + 8 x 128 x 128 bf16 values
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", 4, 1, 12 * 1024,
     12 * 1024 * 8192 + 36 * ((2 * 16 * 128 + 32 * 128) // 4 * 3 + 8 * 128 * 128) * 2),
    # Llama-3.1-8B: every layer full attention, as before
    ("meta-llama/Llama-3.1-8B-Instruct", 1, 1, 32 * 4096, 32 * 4096 * 8192),
])
def test_bytes_per_token_and_decode_read(model_id, tp, pp, per_token, read_8k):
    model = find_model(model_id)
    assert kv_layout.replica_token_bytes(model, tp, pp, 2) == per_token
    assert sizing.kv_bytes_per_token_per_gpu(model, tp, pp, 2) == per_token
    assert kv_layout.replica_decode_read_bytes(model, tp, pp, 2, 8192) == read_8k


def test_short_context_reads_every_token_of_a_sliding_layer():
    gpt = find_model("openai/gpt-oss-20b")
    assert kv_layout.replica_decode_read_bytes(gpt, 1, 1, 2, 100) == 24 * 2048 * 100


def test_sizing_reports_what_vllm_stores():
    s = sizing.size_replica(find_model(NEMOTRON), 79.19, tp=1, max_model_len=8192, vllm_version="0.11.0")
    assert s.kv_bytes_per_token_per_gpu == 16_384


def test_decode_estimate_reads_the_layers_read():
    model = find_model(NEMOTRON)
    read = kv_layout.replica_decode_read_bytes(model, 1, 1, 2, 8192)
    e = estimate_decode(model, "H100-SXM-80GB", weights_bytes_per_gpu=18e9, kv_bytes_per_token_per_gpu=16_384,
                        tp=1, pp=1, dp=1, batch=8, context=8192, kv_read_bytes_per_sequence=read)
    assert e is not None
    assert e.memory_ms == pytest.approx((18e9 + 8 * 277_766_144) / (3350e9 * MEMORY_EFFICIENCY) * 1e3)


def test_kv_shared_layers_on_a_later_stage_than_their_target_refuse():
    # gemma-4-E2B: 35 layers, the last 20 read layers 13 (sliding) and 14 (full). PP2 puts layers 18-34 on stage 1,
    # whose attention layers find no target there: vLLM's validate_kv_sharing_target raises at model construction
    e2b = find_model("google/gemma-4-E2B-it")
    reason = kv_layout.kv_sharing_split(e2b, 2)
    assert reason.startswith("pipeline stage 1 holds KV-shared layers 18-34 whose target layer 13")
    s = sizing.size_replica(e2b, 22.0, tp=1, pp=2, max_model_len=8192, vllm_version="0.20.0")
    assert (s.starts, s.certain, s.verdict, s.refusal) == (False, True, "refuses", reason)
    # the tokens come from stage 0, the stage that caches (stage 1 caches nothing)
    assert s.kv_cache_tokens > 0 and s.kv_bytes_per_token_per_gpu == 3 * 2048 + 12 * 1024
    assert kv_layout.kv_sharing_split(e2b, 1) == ""
    # PP16: stage 7 holds layer 15 alone
    assert kv_layout.kv_sharing_split(e2b, 16).startswith("pipeline stage 7 holds KV-shared layer 15 whose target")
    # gemma-4-E4B: 42 layers, 18 shared from layer 24, targets 22 and 23: PP2 (layers 21-41 on stage 1) keeps them
    # together; PP3 (28-41 on stage 2) does not
    e4b = find_model("google/gemma-4-E4B-it")
    assert kv_layout.kv_sharing_split(e4b, 2) == ""
    assert kv_layout.kv_sharing_split(e4b, 3).startswith("pipeline stage 2 holds KV-shared layers 28-41 whose "
                                                         "target layer 22")


def test_the_stage_with_the_fewest_blocks_sizes_the_cache():
    # gemma-4-E4B PP2: stage 0 (3 full and 18 sliding layers) has fewer blocks than stage 1 (1 full, 2 sliding)
    # although stage 1, which holds the LM head and runs the sampler, leaves less memory: every worker takes the
    # smallest num_blocks (get_kv_cache_configs)
    e4b = find_model("google/gemma-4-E4B-it")
    s = sizing.size_replica(e4b, 22.0, tp=1, pp=2, max_model_len=8192, vllm_version="0.20.0")
    assert s.starts
    lay0 = kv_layout.layout(e4b, 1, 2, 2, 0)
    b = sizing.resolve("0.20.0").behaviour
    plan0 = kv_layout.plan_kv_cache(lay0, b, "v1", s.available_kv_gib * sizing.GIB, 8192, s.max_num_batched_tokens,
                                    s.block_size)
    assert s.kv_cache_tokens == plan0.tokens
    # stage 1 would hold more blocks even in the memory stage 0 leaves (and it leaves less than stage 0 does)
    lay1 = kv_layout.layout(e4b, 1, 2, 2, 1)
    plan1 = kv_layout.plan_kv_cache(lay1, b, "v1", s.available_kv_gib * sizing.GIB, 8192, s.max_num_batched_tokens,
                                    s.block_size)
    assert plan1.num_blocks > plan0.num_blocks


@pytest.mark.parametrize(("available_gib", "tokens", "concurrency"), [
    # vLLM 0.25.1 on a DGX Spark (GB10), Gemma-4-26B-A4B at 262,144 tokens, max_num_batched_tokens raised to 2,496
    # (sostrowsk/dgx-spark-local-llm gemma4-nvfp4.log and gemma4-int4.log): 3,912,140 and 3,875,400 tokens, 14.92x
    # and 14.78x. 25 sliding layers of 8 KV heads of 256 (8,192 bytes a token) and 5 full layers of 2 K=V heads of
    # 512, both K and V cached (4,096): groups of 5 layers, one page of 16 sliding tokens (131,072 bytes) holds 32
    # full tokens. A request holds 262,144 / 32 = 8,192 full blocks and 5 x (ceil((1,023 + 2,496) / 16) + 1) = 1,105
    # sliding blocks; the logged GiB are rounded to 0.01, hence the few hundred tokens either way.
    (84.68, 3_911_971, 14.92),
    (83.89, 3_875_484, 14.78),
])
def test_gemma4_hybrid_tokens_as_vllm_0_25_logs_them(available_gib, tokens, concurrency):
    model = find_model("google/gemma-4-26B-A4B-it")
    lay = kv_layout.layout(model, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in lay.types] == [("full", 5, 4096), ("sliding", 25, 8192)]
    assert kv_layout.token_bytes(lay) == 5 * 4096 + 25 * 8192
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.25.1"), "v1", available_gib * 2**30, 262144, 2496)
    assert (plan.group_layers, len(plan.groups), plan.block_size, plan.page_bytes) == (5, 6, 16, 131072)
    assert plan.num_blocks == int(available_gib * 2**30) // 131072 // 5
    assert plan.tokens == tokens
    assert round(plan.max_concurrency, 2) == concurrency
    # with the 8,192-token budget of a GPU whose NVML reports its memory, each sliding layer would hold 9,232
    # tokens, not 3,536: 12.52x, 16 % fewer tokens than vLLM logged
    wide = kv_layout.plan_kv_cache(lay, behaviour("0.25.1"), "v1", 84.68 * 2**30, 262144, 8192)
    assert round(wide.max_concurrency, 2) == 12.52


@pytest.mark.parametrize(("available_gib", "kv_dtype_bytes", "batched", "tokens", "concurrency", "logged"), [
    # vLLM 0.29.0 on an L40S, RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic at 4,096 tokens, async scheduling on (held-out
    # set 12, akamaslabs/vllm-benchmark studies/30 probe B-default and E-memory): a sliding layer holds its window and
    # the tokens of two batches in flight, min(1,023 + 2 x 2,048, 4,096) = 4,096, so 5 x 257 + 128 = 1,413 blocks a
    # request; logged 63,988 tokens (15.62x) and, with the FP8 cache and 2 x 16,384 in flight, 126,210 (30.81x). The
    # logged GiB are rounded to 0.01, hence the few tokens either way.
    (13.47, 2, 2 * 2048, 63_973, 15.62, 63_988),
    (13.29, 1, 2 * 16384, 126_236, 30.82, 126_210),
])
def test_gemma4_sliding_layers_hold_the_tokens_in_flight_from_0_26(available_gib, kv_dtype_bytes, batched, tokens,
                                                                    concurrency, logged):
    model = find_model("google/gemma-4-26B-A4B-it")
    lay = kv_layout.layout(model, 1, 1, kv_dtype_bytes)
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.29.0"), "v1", available_gib * 2**30, 4096, batched)
    assert plan.num_blocks == int(available_gib * 2**30) // (131072 * kv_dtype_bytes // 2) // 5
    assert (plan.tokens, round(plan.max_concurrency, 2)) == (tokens, concurrency)
    assert abs(plan.tokens - logged) < 30
    # one batch in flight (vLLM up to 0.25.1) would give 1,093 blocks a request and 29 % more tokens than logged
    one = kv_layout.plan_kv_cache(kv_layout.layout(model, 1, 1, 2), behaviour("0.29.0"), "v1", 13.47 * 2**30, 4096,
                                  2048)
    assert one.tokens == 82_703


def test_tokens_in_flight_by_release_scheduling_and_runner():
    # config/vllm.py max_in_flight_tokens = max_concurrent_batches x max_num_batched_tokens (0.26.0 - 0.29.0)
    new, old = behaviour("0.29.0"), behaviour("0.25.1")
    on, off = sizing.EngineSettings(), sizing.EngineSettings(async_scheduling=False)
    assert sizing.kv_in_flight_tokens(new, on, 2048, v2=False) == 4096  # async at PP1: two batches
    assert sizing.kv_in_flight_tokens(new, off, 2048, v2=False) == 2048
    assert sizing.kv_in_flight_tokens(new, sizing.EngineSettings(pp=2), 2048, v2=True) == 3 * 2048  # V2: PP + 1
    assert sizing.kv_in_flight_tokens(new, sizing.EngineSettings(pp=2), 2048, v2=False) == 2 * 2048  # V1: PP
    assert sizing.kv_in_flight_tokens(old, on, 2048, v2=False) == 2048  # 0.25.1: one batch
    # async scheduling's default: off for the pooling runner and for a speculative method it does not run with
    assert not sizing.async_scheduling(sizing.EngineSettings(pooling=True))
    assert not sizing.async_scheduling(sizing.EngineSettings(speculative_method="ngram"))
    assert sizing.async_scheduling(sizing.EngineSettings(speculative_method="mtp"))


def test_the_sizing_plans_the_kv_cache_with_the_tokens_in_flight():
    model = find_model("google/gemma-4-26B-A4B-it")
    l40s = sizing.Device("L40S", 44.42, "nvidia", "ada")
    text = (("image", 0), ("video", 0), ("audio", 0))
    for async_on, in_flight in ((None, 4096), (False, 2048)):
        s = sizing.size_deployment(model, l40s, sizing.EngineSettings(
            max_model_len=4096, gpu_memory_utilization=0.92, max_num_seqs=256, max_num_batched_tokens=2048,
            mm_limits=text, async_scheduling=async_on), "0.29.0")
        plan = kv_layout.plan_kv_cache(kv_layout.layout(model, 1, 1, 2), behaviour("0.29.0"), "v1",
                                       s.available_kv_gib * sizing.GIB, 4096, in_flight)
        assert s.kv_cache_tokens == plan.tokens
