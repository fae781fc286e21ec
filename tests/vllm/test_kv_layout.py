"""The KV cache as vLLM lays it out for attention that is not plain full attention.

Layer layouts are read from config.json keys (``ModelShape.hf_config``); the grouping, blocks, tokens and
concurrency follow ``vllm/v1/core/kv_cache_utils.py`` and ``vllm/v1/kv_cache_interface.py`` of the
release (0.8.5.post1: sliding windows become full attention; 0.9.2-0.19.1: groups of equal size,
``num_blocks // groups × block_size`` tokens; 0.20.0+: tokens = concurrency × max_model_len).
"""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.model.shapes import MlaShape, ModelShape, MoeShape
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import behaviour

GIB = 1024**3


def shape(**kw) -> ModelShape:
    base = dict(id="test/model", params=1_000_000_000, num_hidden_layers=32, hidden_size=4096,
                num_attention_heads=32, num_key_value_heads=8, head_dim=128, intermediate_size=14336,
                vocab_size=128256, max_position_embeddings=131072)
    base.update(kw)
    return ModelShape(**base)  # type: ignore[arg-type]


GEMMA3_27B = shape(id="google/gemma-3-27b-it", num_hidden_layers=62, hidden_size=5376, num_attention_heads=32,
                   num_key_value_heads=16, head_dim=128, vocab_size=262208,
                   hf_config={"model_type": "gemma3_text", "sliding_window": 1024, "sliding_window_pattern": 6})
GPT_OSS = shape(id="openai/gpt-oss-120b", num_hidden_layers=36, num_key_value_heads=8, head_dim=64,
                hf_config={"model_type": "gpt_oss", "sliding_window": 128,
                           "layer_types": ["sliding_attention", "full_attention"] * 18})
LLAMA4 = shape(id="meta-llama/Llama-4-Scout-17B-16E-Instruct", num_hidden_layers=48, num_key_value_heads=8,
               head_dim=128, max_position_embeddings=10_485_760,
               hf_config={"model_type": "llama4_text", "attention_chunk_size": 8192,
                          "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(48)]})
QWEN3_NEXT = shape(id="Qwen/Qwen3-Next-80B-A3B-Instruct", num_hidden_layers=48, num_key_value_heads=2, head_dim=256,
                   hf_config={"model_type": "qwen3_next", "full_attention_interval": 4, "linear_num_key_heads": 16,
                              "linear_num_value_heads": 32, "linear_key_head_dim": 128,
                              "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4})
DEEPSEEK = shape(id="deepseek-ai/DeepSeek-V3", num_hidden_layers=61, num_attention_heads=128,
                 num_key_value_heads=128, head_dim=192, mla=MlaShape(kv_lora_rank=512, qk_rope_head_dim=64),
                 moe=MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048))
MISTRAL_V01 = shape(id="mistralai/Mistral-7B-v0.1", num_hidden_layers=32, max_position_embeddings=32768,
                    hf_config={"model_type": "mistral", "sliding_window": 4096})


def test_layer_kinds_from_config():
    kinds = {t.kind: t.layers for t in kv_layout.layout(GEMMA3_27B, 1, 1, 2).types}
    assert kinds == {"full": 10, "sliding": 52}  # every 6th layer is global
    assert {t.kind: t.layers for t in kv_layout.layout(GPT_OSS, 1, 1, 2).types} == {"full": 18, "sliding": 18}
    assert {t.kind: t.layers for t in kv_layout.layout(LLAMA4, 1, 1, 2).types} == {"full": 12, "chunked": 36}
    assert {t.kind: t.layers for t in kv_layout.layout(QWEN3_NEXT, 1, 1, 2).types} == {"full": 12, "state": 36}
    assert {t.kind: t.layers for t in kv_layout.layout(MISTRAL_V01, 1, 1, 2).types} == {"sliding": 32}
    plain = kv_layout.layout(shape(), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in plain.types] == [("full", 32, 2 * 8 * 128 * 2)]


def test_mla_caches_one_latent_not_split_by_tp_and_full_heads_before_0_7():
    lay = kv_layout.layout(DEEPSEEK, 8, 1, 2)
    assert lay.mla and [(t.layers, t.bytes_per_token) for t in lay.types] == [(61, (512 + 64) * 2)]
    old = kv_layout.layout(DEEPSEEK, 8, 1, 2, mla_cache=False)  # 0.6.x: 128 heads / TP8, head size padded to 256
    assert [(t.layers, t.bytes_per_token) for t in old.types] == [(61, 2 * 16 * 256 * 2)]


def test_gemma3_groups_and_tokens_as_vllm_0_11_reports_them():
    b = behaviour("0.11.0")
    lay = kv_layout.layout(GEMMA3_27B, 1, 1, 2)
    avail = 40 * GIB
    plan = kv_layout.plan_kv_cache(lay, b, "v1", avail, 131072, 8192)
    page = 16 * 2 * 16 * 128 * 2  # one block of one layer
    # group size = the smaller type count (10 full layers): 6 sliding groups (8 padding layers) + 1 full
    assert (plan.hybrid_manager, plan.group_layers, len(plan.groups), plan.page_bytes) == (True, 10, 7, page)
    num_blocks = avail // page // 10
    assert plan.num_blocks == num_blocks
    assert plan.tokens == num_blocks // 7 * 16
    # a 131,072-token request: 8,192 blocks in the full group, cdiv(1023 + 8192, 16) + 1 in each sliding group
    assert plan.max_concurrency == num_blocks / (8192 + 6 * (576 + 1))
    assert plan.note == "8 padding layers in the KV cache groups"


def test_gemma3_without_the_hybrid_manager_holds_full_context_everywhere():
    lay = kv_layout.layout(GEMMA3_27B, 1, 1, 2)
    avail = 40 * GIB
    old = kv_layout.plan_kv_cache(lay, behaviour("0.8.5"), "v1", avail, 131072, 8192)
    assert (old.hybrid_manager, old.group_layers) == (False, 62)
    assert old.tokens == avail // old.page_bytes // 62 * 16
    new = kv_layout.plan_kv_cache(lay, behaviour("0.11.0"), "v1", avail, 131072, 8192)
    assert new.max_concurrency > 4 * old.max_concurrency  # windows of 1,024 tokens instead of 131,072


def test_tokens_reported_as_concurrency_times_length_from_0_20():
    lay = kv_layout.layout(GEMMA3_27B, 1, 1, 2)
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.20.0"), "v1", 40 * GIB, 131072, 8192)
    assert plan.tokens == int(plan.max_concurrency * 131072)


def test_llama4_chunked_attention_uses_the_hybrid_manager_only_from_0_14():
    lay = kv_layout.layout(LLAMA4, 8, 1, 2)
    before = kv_layout.plan_kv_cache(lay, behaviour("0.13.0"), "v1", 20 * GIB, 1_048_576, 8192)
    after = kv_layout.plan_kv_cache(lay, behaviour("0.14.1"), "v1", 20 * GIB, 1_048_576, 8192)
    assert (before.hybrid_manager, after.hybrid_manager) == (False, True)
    # chunked layers hold chunk + batched tokens: cdiv(8192 + 8192, 16) blocks per request
    chunked = [g for g in after.groups if g.kind == "chunked"]
    assert len(chunked) == 3 and all(g.span == 8192 for g in chunked)
    assert after.max_concurrency == after.num_blocks / (65536 + 3 * 1024)


def test_state_layers_align_the_attention_block_to_the_state_page():
    lay = kv_layout.layout(QWEN3_NEXT, 1, 1, 2)
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.13.0"), "v1", 30 * GIB, 262144, 8192)
    state = next(t for t in lay.types if t.kind == "state").state_bytes
    per_token = 2 * 2 * 256 * 2
    assert state == ((2 * 16 * 128 + 32 * 128) * 3 + 32 * 128 * 128) * 2  # conv + recurrent state, bf16
    assert plan.block_size % 16 == 0 and plan.page_bytes == plan.block_size * per_token >= state
    # one request: cdiv(len, block) blocks in the full group, one block in each of the 3 state groups
    assert plan.max_concurrency == plan.num_blocks / (-(-262144 // plan.block_size) + 3)


def test_one_request_check_and_longest_fitting_length():
    b = behaviour("0.11.0")
    lay = kv_layout.layout(shape(), 1, 1, 2)
    per_token = 32 * 2 * 8 * 128 * 2
    assert kv_layout.bytes_needed(lay, b, "v1", 8192, 8192) == 8192 * per_token
    assert kv_layout.bytes_needed(lay, b, "v1", 8193, 8192) == 8208 * per_token  # whole blocks
    assert kv_layout.longest_fitting(lay, b, "v1", 8192 * per_token, 8192, 131072) == 8192
    sw = kv_layout.layout(GEMMA3_27B, 1, 1, 2)
    # sliding layers need only their window: far less than 62 full layers
    assert kv_layout.bytes_needed(sw, b, "v1", 131072, 8192) < 62 * 131072 * 2 * 16 * 128 * 2 / 4


def _listed_slice(n: int, pp: int, stage: int) -> range:
    """get_pp_indices as a list of every stage's size (the reading before fuzz21, quadratic in ``pp``)."""
    per, extra = divmod(n, pp)
    sizes = [per + (1 if pp - 1 - extra <= i < pp - 1 else 0) for i in range(pp)]
    return range(sum(sizes[:stage]), sum(sizes[:stage + 1]))


def test_a_stage_s_layers_are_counted_as_every_stage_s_list_gives_them():
    assert all(kv_layout._stage_slice(n, pp, s) == _listed_slice(n, pp, s)
               for n in range(0, 70) for pp in range(1, 40) for s in range(pp))
    assert [kv_layout._stage_slice(35, 2**31 - 1, s) for s in (2**31 - 3, 2**31 - 2)] == [range(34, 35), range(35, 35)]


def test_the_differing_stages_hold_every_slice_any_stage_holds():
    """fuzz_campaign lint seed 8110: ``--pipeline-parallel-size 32768`` over 35 layers built a layout per stage."""
    for n in range(0, 40):
        for pp in [*range(1, 60), 1000, 2**31 - 1]:
            asked = kv_layout.differing_stages(n, pp)
            every = range(pp) if pp < 1000 else asked
            assert {0, pp - 1} <= set(asked)
            assert {kv_layout._stage_slice(n, pp, s) for s in asked} >= {kv_layout._stage_slice(n, pp, s) for s in every
                                                                         if len(kv_layout._stage_slice(n, pp, s))}
            assert len(asked) <= n + 3
    assert kv_layout.differing_stages(3, 32768) == (0, 1, 32764, 32765, 32766, 32767)


def test_pipeline_stage_slices_layers_like_vllm():
    # vllm/distributed/utils.py get_pp_indices: the layers left over go one each to the stages before the
    # last, from the second-to-last backwards (vLLM's docs: 61 layers at PP2 [31, 30], at PP4 [15, 15, 16, 15])
    assert [len(kv_layout._stage_slice(61, 2, s)) for s in (0, 1)] == [31, 30]
    assert [len(kv_layout._stage_slice(61, 4, s)) for s in range(4)] == [15, 15, 16, 15]
    assert [kv_layout._stage_slice(126, 32, s) for s in (0, 1, 31)] == [range(0, 3), range(3, 7), range(123, 126)]
    lay = kv_layout.layout(dataclasses.replace(GEMMA3_27B), 1, 2, 2, stage=1)
    assert sum(t.layers for t in lay.types) == 31


def _bisected(lay, b, engine, available, batched, upper, block=16) -> int:
    """vLLM's binary search for the longest length whose one request fits, as a reference."""
    lo, hi, best = 1, max(upper, 1), 0
    if kv_layout.bytes_needed(lay, b, engine, 1, batched, block) > available:
        return 0
    while lo <= hi:
        mid = (lo + hi) // 2
        if kv_layout.bytes_needed(lay, b, engine, mid, batched, block) <= available:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def test_longest_fitting_length_worked_out_directly_equals_the_binary_search():
    """Uniform layouts (every layer's blocks grow with the length) are worked out without a search:
    the answer must be the search's on every model kind, release, engine and budget, including the
    edges (exactly one block, one byte short of it, a budget past the upper bound)."""
    models = (shape(), GEMMA3_27B, GPT_OSS, LLAMA4, QWEN3_NEXT, DEEPSEEK, MISTRAL_V01)
    checked = direct = 0
    for model in models:
        for version in ("0.6.0", "0.9.2", "0.11.0", "0.14.0"):
            b = behaviour(version)
            for engine in ("v0", "v1"):
                for tp, kvb, block in ((1, 2, 16), (4, 1, 16), (2, 2, 64)):
                    lay = kv_layout.layout(model, tp, 1, kvb)
                    one = kv_layout.bytes_needed(lay, b, engine, 1, 8192, block)
                    direct += kv_layout._linear_request_bytes(lay, b, engine, block) is not None
                    budgets = (0, one - 1, one, one + 1, 3.5 * one, 2 * GIB + 0.75, 40 * GIB, 10**15, -5.0)
                    for available in budgets:
                        for upper in (1, 4096, 131072):
                            got = kv_layout.longest_fitting(lay, b, engine, available, 8192, upper, block)
                            assert got == _bisected(lay, b, engine, available, 8192, upper, block), (
                                model.id, version, engine, tp, kvb, block, available, upper)
                            checked += 1
    assert checked == 7 * 4 * 2 * 3 * 9 * 3
    assert 0 < direct < 7 * 4 * 2 * 3  # both ways were taken


def test_deepseek_v32_caches_the_indexer_keys_and_an_fp8_ds_mla_latent():
    from shardwise.rules.catalog import find_model

    v32, r1 = find_model("deepseek-ai/DeepSeek-V3.2"), find_model("deepseek-ai/DeepSeek-R1")
    assert kv_layout.indexer_bytes(v32) == 128 + 4 and kv_layout.indexer_bytes(r1) == 0
    # bf16: the 576-wide latent + 132 bytes of indexer keys per layer; fp8: 656 (fp8_ds_mla) + 132
    assert [t.bytes_per_token for t in kv_layout.layout(v32, 8, 1, 2).types] == [576 * 2 + 132]
    assert [t.bytes_per_token for t in kv_layout.layout(v32, 8, 1, 1).types] == [512 + 16 + 128 + 132]
    assert [t.bytes_per_token for t in kv_layout.layout(r1, 8, 1, 1).types] == [576]
    assert sizing.kv_bytes_per_token_per_gpu(v32, 8, 1, 1) == 61 * 788


@pytest.mark.parametrize(("name", "vendor", "version", "requested", "expected"), [
    ("H200-141GB", "nvidia", (0, 11, 0), None, 64),  # FlashMLA (9.0)
    ("H100-SXM-80GB", "nvidia", (0, 11, 0), 16, 64),  # forced whatever was asked
    ("B200", "nvidia", (0, 10, 0), None, 16),  # Triton MLA before vllm#21626
    ("B200", "nvidia", (0, 11, 0), None, 128),  # CUTLASS MLA (10.0)
    ("GB200", "nvidia", (0, 13, 0), 64, 128),
    ("B200", "nvidia", (0, 14, 0), None, 64),  # FlashInfer MLA (vllm#32339)
    ("B300", "nvidia", (0, 15, 1), 32, 32),  # 10.3: the 10.x family
    ("RTX-PRO-6000-Blackwell", "nvidia", (0, 11, 0), None, 16),  # 12.0 (the same "blackwell" label): Triton MLA
    ("RTX-5090", "nvidia", (0, 14, 0), None, 16),
    ("A100-80GB", "nvidia", (0, 11, 0), None, 16),
    ("MI300X", "amd", (0, 11, 0), 32, 32),
])
def test_mla_block_size_follows_the_backend_vllm_picks(name, vendor, version, requested, expected):
    from shardwise.rules.catalog import find_gpu, find_model

    cc = find_gpu(name).compute_capability  # the catalog's, which decides: not the architecture label
    assert kv_layout.mla_block_size(find_model("deepseek-ai/DeepSeek-R1"), cc, vendor, version,
                                    requested) == expected
    # DeepSeek-V3.2's sparse FlashMLA takes 64-token blocks everywhere
    assert kv_layout.mla_block_size(find_model("deepseek-ai/DeepSeek-V3.2"), cc, vendor, version,
                                    requested) == 64


def test_mla_block_size_of_a_gpu_whose_capability_is_not_known_is_the_one_asked():
    from shardwise.rules.catalog import find_model

    r1 = find_model("deepseek-ai/DeepSeek-R1")
    assert kv_layout.mla_block_size(r1, None, "nvidia", (0, 14, 0), None) == 16
    assert kv_layout.mla_block_size(r1, None, "nvidia", (0, 14, 0), 32) == 32
    assert kv_layout.mla_block_size(r1, (12, 1), "nvidia", (0, 14, 0), None) == 16  # GB10
    assert kv_layout.mla_block_size(r1, (10, 3), "nvidia", (0, 14, 0), None) == 64


def test_near_equal_layer_types_share_one_group_size_from_0_12():
    # 12 sliding + 11 full layers (a Gemma 2 27B pipeline stage of PP2): before 0.12 the group size is the
    # smaller count, 11, so the 12 sliding layers take two groups (10 padding layers); from 0.12 (vllm#29303)
    # the larger count, 12, one group per type (1 padding layer)
    types = (kv_layout.LayerType("full", 11, 2048), kv_layout.LayerType("sliding", 12, 2048, 4096))
    assert kv_layout.kv_group_size(types, behaviour("0.11.0")) == 11
    assert kv_layout.kv_group_size(types, behaviour("0.12.0")) == 12
    lay = kv_layout.Layout(types)
    old = kv_layout.plan_kv_cache(lay, behaviour("0.11.0"), "v1", 2**30, 8192, 2048)
    new = kv_layout.plan_kv_cache(lay, behaviour("0.12.0"), "v1", 2**30, 8192, 2048)
    assert (old.group_layers, len(old.groups), old.note) == (11, 3, "10 padding layers in the KV cache groups")
    assert (new.group_layers, len(new.groups), new.note) == (12, 2, "1 padding layer in the KV cache groups")
    # 5:1 (Gemma 3) keeps the smaller count: 1.25 × 10 < 52
    gemma3 = (kv_layout.LayerType("full", 10, 2048), kv_layout.LayerType("sliding", 52, 2048, 1024))
    assert kv_layout.kv_group_size(gemma3, behaviour("0.12.0")) == 10


# Layouts vLLM has and the KV model does not: the key names of the published configs that carry them.
@pytest.mark.parametrize(("extra_cfg", "says"), [
    ({"model_type": "deepseek_v4", "compress_ratios": [0, 0, 4, 128] * 8}, "compress_ratios"),
    ({"model_type": "deepseek_v4", "layer_types": ["sliding_attention", "compressed_sparse_attention"] * 16},
     "compressed_sparse_attention"),
    # a Mamba pattern that does not cover num_hidden_layers (32) says where the Mamba layers are
    ({"model_type": "nemotron_h", "mamba_num_heads": 128, "hybrid_override_pattern": "M-M-M*-" * 5 + "M-"},
     "positions the config does not list"),
    ({"model_type": "jamba", "mamba_d_state": 16, "mamba_expand": 2, "attn_layer_period": 8}, "Mamba1"),
    ({"model_type": "minimax_m1", "attn_type_list": [0] * 7 + [1]}, "lightning"),
    ({"model_type": "x", "layer_types": ["qwen_sparse_attention", "full_attention"] * 16}, "qwen_sparse_attention"),
])
def test_a_layout_not_modelled_says_so_and_is_not_a_plain_dense_one(extra_cfg, says):
    model = shape(hf_config=extra_cfg)
    assert says in kv_layout.unmodelled_reason(model)
    lay = kv_layout.layout(model, 2, 1, 2)
    assert not lay.modelled and lay.note.startswith("KV layout not modelled: ") and says in lay.note
    # the figures it still gives: every layer full attention over the config's KV heads (8 / TP2 × 128 × K and V)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in lay.types] == [("full", 32, 2 * 4 * 128 * 2)]
    # the note reaches the sizing's notes, so plan and lint say the KV figures are not vLLM's
    sized = sizing.size_replica(model, 80.0, vllm_version="0.11.0")
    assert any(n.startswith("KV layout not modelled") for n in sized.notes)


def test_known_layouts_are_modelled():
    minimax_m2 = shape(hf_config={"model_type": "minimax_m2", "attn_type_list": [1] * 32})  # softmax on every layer
    for model in (GEMMA3_27B, GPT_OSS, LLAMA4, QWEN3_NEXT, DEEPSEEK, MISTRAL_V01, shape(), minimax_m2):
        assert kv_layout.unmodelled_reason(model) == "" and kv_layout.layout(model, 1, 1, 2).modelled


# NVIDIA-Nemotron-Nano-9B-v2's config.json keys (56 layers: 27 Mamba2, 4 attention, 25 MLP)
NEMOTRON_NANO_9B = shape(
    id="nvidia/NVIDIA-Nemotron-Nano-9B-v2", num_hidden_layers=56, hidden_size=4480, num_attention_heads=40,
    num_key_value_heads=8, head_dim=128,
    hf_config={"model_type": "nemotron_h",
               "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
               "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4})


def test_mamba2_hybrid_caches_only_its_attention_layers_and_a_state_per_mamba_layer():
    lay = kv_layout.layout(NEMOTRON_NANO_9B, 1, 1, 2)
    assert lay.modelled and kv_layout.unmodelled_reason(NEMOTRON_NANO_9B) == ""
    # vLLM's mamba2_state_shape: conv (4 - 1) x (128 x 80 + 2 x 8 x 128) bf16 = 73,728 bytes; SSM 128 x 80 x 128
    # float32 (NemotronHForCausalLMConfig's default mamba_ssm_cache_dtype) = 5,242,880 bytes
    assert kv_layout.mamba2_state_bytes(NEMOTRON_NANO_9B, 1) == 73_728 + 5_242_880
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 4, 2 * 8 * 128 * 2, 0), ("state", 27, 0, 5_316_608)]
    # TP2: 4 KV heads; conv and SSM split by 2 (8 groups divide)
    tp2 = kv_layout.layout(NEMOTRON_NANO_9B, 2, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in tp2.types] == [
        ("full", 4, 2048, 0), ("state", 27, 0, 36_864 + 2_621_440)]
    # a checkpoint that asks for a bf16 SSM cache gets one
    bf16 = dataclasses.replace(NEMOTRON_NANO_9B, hf_config={**NEMOTRON_NANO_9B.hf_config,
                                                            "mamba_ssm_cache_dtype": "bfloat16"})
    assert kv_layout.mamba2_state_bytes(bf16, 1) == 73_728 + 2_621_440
    # HybridAttentionMambaModelConfig: the attention block grows to 16 x cdiv(5,316,608, 16 x 4,096) = 1,312 tokens
    # so one attention page (5,373,952 bytes) holds a Mamba state; each Mamba layer takes one page per request
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.11.0"), "v1", 10 * GIB, 131_072, 8192)
    assert (plan.block_size, plan.page_bytes) == (1312, 5_373_952)
    # groups of 4 layers: 1 attention group and 7 state groups (27 -> 28, 1 padding layer)
    assert (plan.group_layers, len(plan.groups)) == (4, 8)
    assert plan.num_blocks == 10 * GIB // 5_373_952 // 4 == 499
    # a 131,072-token request: 100 attention blocks + one block in each of 7 state groups
    assert plan.max_concurrency == pytest.approx(499 / 107)


def test_granite_4_h_layer_types_and_mamba_keys():
    # Granite 4.0-H spells the Mamba2 keys mamba_n_heads / mamba_d_head / mamba_n_groups / mamba_d_state /
    # mamba_d_conv; vLLM keeps its SSM state in the model dtype
    granite = shape(id="ibm-granite/x", num_hidden_layers=8, hidden_size=1536, num_key_value_heads=4,
                    head_dim=128, hf_config={"model_type": "granitemoehybrid",
                                             "layer_types": ["mamba"] * 3 + ["attention"] + ["mamba"] * 4,
                                             "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_n_groups": 1,
                                             "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2})
    lay = kv_layout.layout(granite, 2, 1, 2)
    # conv (3072 + 2 x 2 x 128) / 2 x 3 x 2 bytes (1 group raised to TP 2); SSM 24 x 64 x 128 x 2 bytes
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 1, 2 * 2 * 128 * 2, 0), ("state", 7, 0, 10_752 + 393_216)]
    assert (3072 + 2 * 2 * 128) // 2 * 3 * 2 == 10_752 and 24 * 64 * 128 * 2 == 393_216


# google/gemma-4-31B as transformers' convert_gemma4_weights.py builds its config: 60 layers, 5 sliding (16 KV
# heads of 256, window 1024) to 1 full (attention_k_eq_v: 4 global KV heads of 512)
GEMMA4_31B = shape(
    id="google/gemma-4-31B-it", num_hidden_layers=60, hidden_size=5376, num_key_value_heads=16, head_dim=256,
    max_position_embeddings=262_144,
    hf_config={"model_type": "gemma4_text", "sliding_window": 1024, "global_head_dim": 512,
               "num_global_key_value_heads": 4, "attention_k_eq_v": True,
               "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10})


def test_gemma4_full_layers_cache_their_own_head_size_and_a_page_holds_more_of_their_tokens():
    lay = kv_layout.layout(GEMMA4_31B, 1, 1, 2)
    assert lay.modelled
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in lay.types] == [
        ("full", 10, 2 * 4 * 512 * 2, None), ("sliding", 50, 2 * 16 * 256 * 2, 1024)]
    # pages are the sliding layers' 16 x 16,384 bytes; a full-attention page holds 32 tokens
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.12.0"), "v1", 10 * GIB, 8192, 2048)
    assert (plan.block_size, plan.page_bytes, plan.group_layers, len(plan.groups)) == (16, 262_144, 10, 6)
    assert kv_layout.type_block(lay.types[0], 16, 262_144) == 32
    assert plan.num_blocks == 10 * GIB // 262_144 // 10 == 4096
    # one 8,192-token request: 256 full blocks of 32 + 5 sliding groups x (cdiv(1023 + 2048, 16) + 1 = 193)
    assert plan.max_concurrency == pytest.approx(4096 / (256 + 5 * 193))
    assert kv_layout.bytes_needed(lay, behaviour("0.12.0"), "v1", 8192, 2048) == (10 * 256 + 50 * 193) * 262_144
    # TP8: 2 sliding KV heads, the 4 global KV heads split to 1 (no replication below 1)
    tp8 = kv_layout.layout(GEMMA4_31B, 8, 1, 2)
    assert [(t.kind, t.bytes_per_token) for t in tp8.types] == [("full", 2 * 1 * 512 * 2), ("sliding", 2 * 2 * 256 * 2)]


# google/gemma-4-26B-A4B: 30 layers, 5 sliding (8 KV heads of 256, window 1024) to 1 full (2 global KV heads of 512)
GEMMA4_26B_A4B = shape(
    id="google/gemma-4-26B-A4B-it", num_hidden_layers=30, hidden_size=2816, num_key_value_heads=8, head_dim=256,
    max_position_embeddings=262_144,
    hf_config={"model_type": "gemma4_text", "sliding_window": 1024, "global_head_dim": 512,
               "num_global_key_value_heads": 2, "attention_k_eq_v": True,
               "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 5})


def test_from_025_sliding_layers_keep_the_kernel_block_and_an_uneven_page_is_padded():
    # akamaslabs/vllm-benchmark study 30, vLLM 0.29.0, one L40S (TRITON_ATTN: kernel blocks MultipleOf(16)).
    # Attention.get_kv_cache_spec gives the sliding layers a 16-token block whatever --block-size says.
    lay = kv_layout.layout(GEMMA4_26B_A4B, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in lay.types] == [("full", 5, 4096), ("sliding", 25, 8192)]
    b29 = behaviour("0.29.0")
    # E-o3.log, --block-size 48: full pages 48 x 4,096 = 196,608 bytes are the largest; a sliding page of
    # 16 x 8,192 = 131,072 does not divide it and is padded to 196,608, its block staying 16. Six groups of five
    # layers: 983,040 bytes a block. A 4,096-token request: 5 sliding groups x (cdiv(4,096, 16) + 1) + cdiv(4,096, 48)
    # = 1,285 + 86 = 1,371 blocks; 9,354 blocks (8.5639 GiB, logged 8.56) give 6.8228x and 27,946 tokens, as logged
    o3 = kv_layout.plan_kv_cache(lay, b29, "v1", 9354 * 983_040, 4096, 4096, block=48)
    assert (o3.block_size, o3.page_bytes, o3.group_layers, len(o3.groups), o3.num_blocks) == (48, 196_608, 5, 6, 9354)
    assert [kv_layout.type_block(t, 48, 196_608) for t in o3.groups] == [48] + [16] * 5
    assert (o3.tokens, round(o3.max_concurrency, 2)) == (27_946, 6.82)
    # E-eager.log, --block-size 128, 512 tokens in flight (no async scheduling): full pages 524,288 bytes, the
    # sliding 131,072 raised to a 64-token block (ratio 4); 5 x (cdiv(1,023 + 512, 64) + 1) + cdiv(4,096, 128) = 157
    # blocks; 6,406 blocks of 5 x 524,288 (15.64 GiB, as logged) give 40.80x and 167,127 tokens, as logged
    eager = kv_layout.plan_kv_cache(lay, b29, "v1", 6406 * 5 * 524_288, 4096, 512, block=128)
    assert (eager.page_bytes, eager.num_blocks) == (524_288, 6406)
    assert [kv_layout.type_block(t, 128, 524_288) for t in eager.groups] == [128] + [64] * 5
    assert (eager.tokens, round(eager.max_concurrency, 2)) == (167_127, 40.80)
    # at block 16 (B-default.log) the two rules agree: sliding pages set the page, full blocks of 32
    default = kv_layout.plan_kv_cache(lay, b29, "v1", 22_074 * 5 * 131_072, 4096, 4096, block=16)
    assert (default.page_bytes, default.tokens, round(default.max_concurrency, 2)) == (131_072, 63_988, 15.62)
    # 0.24.0 gave the sliding layers the engine's block: at 48 the sliding page sets it, full blocks of 96
    old = kv_layout.plan_kv_cache(lay, behaviour("0.24.0"), "v1", 9354 * 983_040, 4096, 2048, block=48)
    assert (old.page_bytes, [kv_layout.type_block(t, 48, 393_216) for t in old.groups]) == (393_216, [96] + [48] * 5)
    # bytes_needed follows the same pages: 1,371 blocks of 983,040 bytes for one request at 0.29
    assert kv_layout.bytes_needed(lay, b29, "v1", 4096, 4096, block=48) == 1371 * 983_040


def test_shared_kv_layers_hold_no_cache():
    # Gemma 3n / Gemma 4 E2B: the last num_kv_shared_layers read an earlier layer's cache
    # (kv_sharing_target_layer_name), so only the first 15 of 35 layers are laid out
    e2b = shape(id="google/gemma-4-E2B-it", num_hidden_layers=35, num_key_value_heads=1, head_dim=256,
                hf_config={"model_type": "gemma4_text", "sliding_window": 512, "num_kv_shared_layers": 20,
                           "global_head_dim": 512,
                           "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7})
    lay = kv_layout.layout(e2b, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in lay.types] == [("full", 3, 2048), ("sliding", 12, 1024)]


def test_kimi_linear_mla_layers_between_kda_states():
    # Kimi Linear: linear_attn_config lists the KDA layers (1-based, vLLM's is_kda_layer); the others are MLA
    kimi = shape(id="moonshotai/x", num_hidden_layers=8, num_attention_heads=32, num_key_value_heads=32,
                 head_dim=192, mla=MlaShape(kv_lora_rank=512, qk_rope_head_dim=64),
                 hf_config={"model_type": "kimi_linear",
                            "linear_attn_config": {"kda_layers": [1, 2, 3, 5, 6, 7], "full_attn_layers": [4, 8],
                                                   "num_heads": 32, "head_dim": 128, "short_conv_kernel_size": 4}})
    lay = kv_layout.layout(kimi, 2, 1, 2)
    # MLA: a 512 + 64 latent in bf16 per layer and token, not split by TP; KDA (kda_state_shape): conv
    # 3 x 32 x 128 / 2 x 3 bf16 + recurrent 16 x 128 x 128 float32
    assert lay.mla and [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 2, 1152, 0), ("state", 6, 0, 36_864 + 1_048_576)]
    # the attention block grows until a page of 1,152-byte tokens holds a state: 16 x cdiv(1,085,440, 16 x 1,152)
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.11.0"), "v1", GIB, 4096, 2048)
    assert plan.block_size == 16 * -(-1_085_440 // (16 * 1152)) == 944


def test_a_window_beyond_the_context_still_makes_every_layer_sliding():
    # Phi-3/3.5/4-mini (config.json sliding_window 262,144 above max_position_embeddings 131,072, no layer_types):
    # vLLM sets CacheConfig.sliding_window from config.json's window whatever its size (engine/arg_utils.py
    # create_engine_config, ModelConfig.get_sliding_window: read in 0.14.1 and 0.29.0), every Attention layer falls
    # back to it, and SlidingWindowSpec admits cdiv(min(window - 1 + in flight, max_model_len), 16) + 1 blocks a
    # request: one block more than full attention. set 23's Phi-4-mini starts on an RTX 5090 at 0.29.0 logged
    # 151,973 tokens at 32,768 and 152,029 at 131,072 (its FP8-dynamic twin 176,489 and 176,554): 9,503 (11,036) whole
    # blocks over 2,049 and 8,193 blocks a request, counts no block total gives over 2,048 and 8,192
    from shardwise.rules.catalog import find_model
    phi = find_model("microsoft/Phi-4-mini-instruct")
    lay = kv_layout.layout(phi, 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in lay.types] == [("sliding", 32, 4096, 262144)]
    b29 = behaviour("0.29.0")
    page = 16 * 4096  # one 16-token block of one layer: K and V of 8 heads of 128 in 16 bits a token
    for blocks, length, tokens in ((9503, 32768, 151_973), (9503, 131072, 152_029), (11036, 32768, 176_489),
                                   (11036, 131072, 176_554)):
        plan = kv_layout.plan_kv_cache(lay, b29, "v1", blocks * page * 32, length, 4096)
        assert (plan.num_blocks, plan.tokens) == (blocks, tokens)
        assert not any(int(n * length / (length // 16)) == tokens for n in range(blocks - 600, blocks + 600))
    # a window that config.json turns off stays full attention (Qwen2.5's use_sliding_window false, window 131,072)
    qwen = find_model("Qwen/Qwen2.5-7B-Instruct")
    assert [t.kind for t in kv_layout.layout(qwen, 1, 1, 2).types] == ["full"]


def test_a_v0_start_of_a_model_with_a_window_beyond_its_context_does_not_default_to_chunked_prefill():
    # V0 turns chunked prefill on by default above 32K tokens only where ModelConfig.get_sliding_window() is None
    # (engine/arg_utils.py, read in 0.8.4: "use_sliding_window = (model_config.get_sliding_window() is not None)"),
    # and get_hf_config_sliding_window returns config.json's window whatever its size (config.py, 0.8.4): Phi-3.5-mini
    # (262,144) at 65,536 tokens on 0.6.4 batches the whole context, as the same shape without a window does not
    import dataclasses

    from shardwise.rules.catalog import find_model
    phi = find_model("microsoft/Phi-3.5-mini-instruct")
    device = sizing.Device("A100-80GB", 79.15, "nvidia", "ampere", 8)
    settings = sizing.EngineSettings(max_model_len=65536)
    with_window = sizing.size_deployment(phi, device, settings, "0.6.4")
    no_window = sizing.size_deployment(
        dataclasses.replace(phi, hf_config={**phi.hf_config, "sliding_window": None}), device, settings, "0.6.4")
    assert (with_window.engine, with_window.max_num_batched_tokens) == ("v0", 65536)
    assert (no_window.engine, no_window.max_num_batched_tokens) == ("v0", 512)
