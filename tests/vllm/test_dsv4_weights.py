"""DeepSeek-V4's parameters and weight bytes as vLLM 0.20.0 builds them (``shardwise.rules.vllm.dsv4_weights``).

V4-Flash's config.json as public ports restate it (rtp-llm's ``deepseek_v4`` test quotes Flash-Base's whole; the
instruct checkpoint has the same shape). The published checkpoint's ``model.safetensors.index.json`` ``total_size``,
159,609,485,896 bytes, as a public write-up quotes it (search index file 54921172515), checks the count: it is these
weights plus the MTP layer vLLM does not load without an MTP draft, to 9.3 MB.
"""

from __future__ import annotations

import pytest
from shardwise.rules.vllm import dsv4_weights

FLASH = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
    "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "q_lora_rank": 1024, "o_lora_rank": 1024,
    "o_groups": 8, "vocab_size": 129_280, "n_routed_experts": 256, "moe_intermediate_size": 2048,
    "num_experts_per_tok": 6, "n_shared_experts": 1, "hc_mult": 4, "index_n_heads": 64, "index_head_dim": 128,
    "num_hash_layers": 3, "topk_method": "noaux_tc", "tie_word_embeddings": False, "num_hidden_layers": 43,
    "sliding_window": 128, "compress_ratios": [0, 0, *[4, 128] * 20, 4, 0],
}
H, E, W, V = 4096, 256, 2048, 129_280

# per layer: attention (fused_wqa_wkv 4096 x 1536, q/kv norms, wq_b 1024 x 32768, wo_a 4096 x 8192, wo_b 8192 x 4096,
# 64 sinks), the router 256 x 4096, the shared expert 3 x 4096 x 2048, two norms, the hyper-connection mixers
# (2 x (24 x 16384 + 24 + 3))
_LAYER = (H * 1536 + 1024 + 512 + 1024 * 32_768 + 4096 * 8192 + 8192 * H + 64 + E * H + 3 * H * W + 2 * H
          + 2 * (24 * 16_384 + 24 + 3))
_C4 = (4 * 1024 + H * 2048 + 512) + (1024 * 8192 + H * 64 + 2 * 128 + 4 * 256 + H * 512 + 128)  # compressor, indexer
_C128 = 128 * 512 + H * 1024 + 512
_EXPERTS = 43 * E * 3 * H * W


def test_flash_has_284b_parameters_as_vllm_builds_it():
    w = dsv4_weights.weights(FLASH)
    # 40 routed-bias vectors (the three hash layers route by table), embeddings and head, norm, hc_head
    total = 43 * _LAYER + 21 * _C4 + 20 * _C128 + 40 * E + _EXPERTS + 2 * V * H + H + 4 * 16_384 + 4 + 1
    assert (w.params, w.expert_params) == (total, _EXPERTS) == (284_332_245_847, 277_025_390_592)
    assert (_C4, _C128) == (19_142_528, 4_260_352)


def test_flash_weighs_its_fp8_mxfp4_16_and_32_bit_parts():
    w = dsv4_weights.weights(FLASH)
    assert w.bytes_per_gpu == 156_006_411_484
    # the experts alone: 0.5 + 1/32 bytes a weight
    assert _EXPERTS * 17 // 32 == 147_169_738_752
    # the published index's total_size less these weights is the MTP layer (a window-only decoder layer, e_proj and
    # h_proj in FP8, two norms, its hc_head) to 9,294,848 bytes
    mtp = dsv4_weights.weights({**FLASH, "num_hidden_layers": 44}).bytes_per_gpu - w.bytes_per_gpu
    mtp += 2 * (H * H + 32 * 32) + 2 * 2 * H + 4 * (4 * 16_384 + 4 + 1)
    assert 159_609_485_896 - w.bytes_per_gpu - mtp == 9_294_848


@pytest.mark.parametrize(("tp", "size", "gib"), [
    (1, 156_006_411_484, 145.29), (2, 78_656_989_148, 73.26), (4, 39_982_277_980, 37.24), (8, 20_644_922_396, 19.23)])
def test_tp_splits_the_experts_heads_and_vocabulary(tp, size, gib):
    w = dsv4_weights.weights(FLASH, tp)
    assert (w.bytes_per_gpu, round(w.bytes_per_gpu / 2**30, 2)) == (size, gib)


def test_the_replicated_parts_are_whole_on_every_rank():
    # fused_wqa_wkv is replicated (disable_tp): 8 more bytes a weight of its 4096 x 1536 on 43 layers would add the
    # same bytes on every rank, while an expert's width is split (a 2048-wide expert is 256 wide a rank at TP8)
    wide = {**FLASH, "q_lora_rank": 1024 + 128}
    grown1 = dsv4_weights.weights(wide, 1).bytes_per_gpu - dsv4_weights.weights(FLASH, 1).bytes_per_gpu
    grown8 = dsv4_weights.weights(wide, 8).bytes_per_gpu - dsv4_weights.weights(FLASH, 8).bytes_per_gpu
    # per layer: fused_wqa_wkv +128 x 4096 (+32 scale bytes), q_norm +128 x 2, the indexer's wq_b input +128 rows on
    # its 21 layers (replicated), wq_b's input (split by TP: its 32,768 outputs / TP)
    whole = 43 * (128 * H + 32 + 2 * 128) + 21 * (128 * 8192 + 64)
    assert grown1 - whole == 43 * (32_768 * 128 + 256)
    assert grown8 - whole == 43 * (32_768 * 128 // 8 + 32)


def test_what_vllm_would_refuse_is_refused():
    with pytest.raises(ValueError, match="TP 3 does not divide the heads"):
        dsv4_weights.weights(FLASH, 3)
    with pytest.raises(ValueError, match="tied"):
        dsv4_weights.weights({**FLASH, "tie_word_embeddings": True})
    with pytest.raises(ValueError, match="integer q_lora_rank"):
        dsv4_weights.weights({**FLASH, "q_lora_rank": None})
