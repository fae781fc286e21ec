"""The general capacity model: formulas checked term by term, plus properties (hypothesis)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shardwise.rules import sizing
from shardwise.rules.catalog.types import MlaShape, ModelShape, MoeShape

GIB = 1024**3
H100_GIB = 79.1875  # 85,029,158,912 bytes as torch reports an H100 80GB HBM3

LLAMA70 = ModelShape(
    id="meta-llama/Llama-3.1-70B-Instruct", params=70_553_706_496, num_hidden_layers=80, hidden_size=8192,
    num_attention_heads=64, num_key_value_heads=8, head_dim=128, intermediate_size=28672,
    vocab_size=128256, max_position_embeddings=131072,
)
DEEPSEEK = ModelShape(
    id="deepseek-ai/DeepSeek-V3", params=671_026_419_200, num_hidden_layers=61, hidden_size=7168,
    num_attention_heads=128, num_key_value_heads=128, head_dim=192, intermediate_size=18432,
    vocab_size=129280, max_position_embeddings=163840, precision="fp8",
    moe=MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048),
    mla=MlaShape(kv_lora_rank=512, qk_rope_head_dim=64),
)


def test_weights_bf16_and_quantised():
    assert sizing.weights_bytes(LLAMA70, "bf16") == 70_553_706_496 * 2
    embed = 2 * 128256 * 8192  # untied input embeddings + LM head stay 16-bit
    assert sizing.weights_bytes(LLAMA70, "fp8") == embed * 2 + (70_553_706_496 - embed) * 1.0
    assert sizing.weights_bytes(LLAMA70, "int4") == pytest.approx(
        embed * 2 + (70_553_706_496 - embed) * (0.5 + 2.5 / 128)
    )
    assert round(sizing.weights_gb(LLAMA70, "int4"), 1) == 39.8


def test_kv_per_token_splits_heads_and_layers():
    # 2 × 80 layers × (8 KV heads / TP4 = 2) × 128 × 2 bytes
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=4) == 2 * 80 * 2 * 128 * 2 == 81920
    # TP16 > 8 KV heads: each rank keeps one replicated KV head
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=16) == 2 * 80 * 1 * 128 * 2
    # PP2 halves the layers per GPU; fp8 KV halves the bytes
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=8, pp=2, kv_bytes=1) == 2 * 40 * 1 * 128 * 1


def test_kv_per_token_mla_is_not_split_by_tp():
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=8) == 61 * (512 + 64) * 2
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=1) == 61 * (512 + 64) * 2
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=8, pp=2) == 31 * (512 + 64) * 2


def test_size_replica_llama70_tp4_on_h100_term_by_term():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=4, max_model_len=8192, max_num_seqs=64)
    w = 70_553_706_496 * 2 / 4 / GIB
    act = (8192 * (4 * 8192 + 2 * 28672 / 4) * 2 + 64 * 128256 * 4) / GIB
    nt = 0.4 + 0.15 * 3 + 0.5
    kv = H100_GIB * 0.9 - w - act - nt
    tokens = int(kv * GIB // (16 * 81920)) * 16
    assert s.weights_gib_per_gpu == pytest.approx(w)
    assert s.activation_gib_per_gpu == pytest.approx(act)
    assert s.non_torch_gib_per_gpu == pytest.approx(nt)
    assert s.kv_cache_gib_per_gpu == pytest.approx(kv)
    assert s.kv_cache_tokens == tokens
    assert s.max_concurrency == tokens // 8192
    assert s.load_tokens == 64 * 8192
    assert s.starts and s.weights_fit
    assert (round(w, 2), tokens, s.max_concurrency) == (32.85, 475_984, 58)


def test_size_replica_refuses_to_start_at_full_context_on_one_gpu():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=1)
    assert not s.weights_fit and not s.starts and s.kv_cache_tokens == 0
    assert s.max_model_len == 131072 and s.max_num_seqs == 256


def test_expected_context_and_block_rounding():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=4, max_model_len=8192, max_num_seqs=10, expected_context=1000)
    assert s.expected_context == 1000
    assert s.load_tokens == 10 * 1008  # 63 blocks of 16
    assert s.concurrency_at_expected_context == s.kv_cache_tokens // 1008


def test_weights_override_and_fp8_kv():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=2, weights_gib=40.0, kv_cache_dtype="fp8", max_model_len=4096)
    assert s.weights_gib_per_gpu == 20.0
    assert s.kv_bytes_per_token_per_gpu == 2 * 80 * 4 * 128 * 1


def test_quantization_flag_wins_over_checkpoint_precision():
    assert sizing.weight_precision(LLAMA70, "auto", "awq") == "int4"
    assert sizing.weight_precision(LLAMA70, "float16", None) == "fp16"
    assert sizing.weight_precision(DEEPSEEK, "auto", None) == "fp8"


def test_min_gpus_is_the_seed_formula():
    assert sizing.min_gpus(LLAMA70, 80, "bf16") == sizing.gpus_needed(70_553_706_496 * 2 / 1e9, 80)
    assert sizing.min_gpus(LLAMA70, 80, "bf16")["tensor_parallel_size"] == 4
    assert sizing.min_gpus(LLAMA70, 80, "int4")["tensor_parallel_size"] == 1


def test_bad_parallel_sizes_raise():
    with pytest.raises(ValueError):
        sizing.size_replica(LLAMA70, H100_GIB, tp=0)


@given(tp=st.sampled_from([1, 2, 4, 8]), seqs=st.integers(1, 512), mml=st.integers(256, 131072))
def test_more_memory_never_lowers_capacity(tp, seqs, mml):
    a = sizing.size_replica(LLAMA70, 79.19, tp=tp, max_model_len=mml, max_num_seqs=seqs)
    b = sizing.size_replica(LLAMA70, 139.8, tp=tp, max_model_len=mml, max_num_seqs=seqs)
    assert b.kv_cache_tokens >= a.kv_cache_tokens
    assert a.kv_cache_tokens % 16 == 0


@given(tp=st.sampled_from([1, 2, 4]), util=st.floats(0.5, 0.95))
def test_more_tp_means_fewer_weights_per_gpu(tp, util):
    a = sizing.size_replica(LLAMA70, 79.19, tp=tp, gpu_memory_utilization=util, max_model_len=4096)
    b = sizing.size_replica(LLAMA70, 79.19, tp=tp * 2, gpu_memory_utilization=util, max_model_len=4096)
    assert b.weights_gib_per_gpu == pytest.approx(a.weights_gib_per_gpu / 2)
    assert b.kv_cache_tokens >= a.kv_cache_tokens


@given(seq=st.integers(1, 200_000))
def test_units_kv_gb_vs_gib(seq):
    gb = sizing.per_request_kv_gb(80, 8, 128, seq)
    gib = sizing.kv_per_req_gib(80, 8, 128, seq)
    assert math.isclose(gb * 1e9, gib * GIB)
