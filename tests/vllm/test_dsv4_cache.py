"""DeepSeek-V4's KV cache groups as vLLM 0.20.0 builds them (``shardwise.rules.vllm.dsv4_cache``, catalog13).

The config is DeepSeek-V4-Flash's as public ports restate the published config.json (rtp-llm's
``deepseek_v4`` test quotes Flash-Base's whole: 43 layers, ``head_dim`` 512, ``index_head_dim`` 128,
``sliding_window`` 128, ``compress_ratios`` 0, 0 then 4 / 128 alternating and a trailing 0 for the MTP layer, 44
entries). Every figure below is worked from vLLM 0.20.0's formulas by hand, in the comments.
"""

from __future__ import annotations

import pytest
from shardwise.rules.vllm import dsv4_cache

FLASH = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "num_hidden_layers": 43,
    "head_dim": 512, "index_head_dim": 128, "index_n_heads": 64, "sliding_window": 128,
    "compress_ratios": [0, 0, *[4, 128] * 20, 4, 0],
}


def test_flash_has_21_ratio_4_and_20_ratio_128_layers():
    ratios = dsv4_cache.layer_ratios(FLASH)
    assert len(FLASH["compress_ratios"]) == 44  # the 44th entry is the MTP layer's, not a decoder layer's
    assert (len(ratios), ratios.count(1), ratios.count(4), ratios.count(128)) == (43, 2, 21, 20)


def test_every_page_is_padded_to_576_bytes():
    lay = dsv4_cache.layout(FLASH)
    # at --block-size 256: a ratio-4 block stores 64 rows of 584 bytes (37,376 -> 37,440), a ratio-128 block 2 rows
    # (1,168 -> 1,728), the indexer 64 rows of 128 FP8 bytes and one float32 scale (8,448 -> 8,640)
    assert (lay.block_size, lay.tuple_pages, lay.tuple_bytes) == (256, (1728, 8640, 37_440), 47_808)
    assert 64 * 584 == 37_376 and 65 * 576 == 37_440 and 3 * 576 == 1728 and 15 * 576 == 8640


def test_flash_makes_five_groups_of_22_tuples():
    lay = dsv4_cache.layout(FLASH)
    # tuples per group: compressed 21 (21 ratio-4 rows, 21 indexer rows, 20 ratio-128 rows), SWA 43, ratio-4 states
    # 21, ratio-128 states 20; the count from 21 up that pads least is 22 (1 + 1 + 1 + 2), so the 43 SWA caches are
    # split into groups of 22 and 21
    assert lay.tuples == 22
    assert [(g.block, g.window, len(g.pages), g.page_sum) for g in lay.groups] == [
        (256, None, 62, 21 * 37_440 + 21 * 8640 + 20 * 1728),
        (64, 128, 22, 22 * 37_440),  # the SWA cache, 64 x 584 bytes
        (64, 128, 21, 21 * 37_440),
        # the ratio-4 states: 4 tokens x 2 x 2 x 512 float32 (32,768 -> 32,832, padded to 37,440) and the indexer's
        # 4 x 2 x 2 x 128 float32 (8,192 -> 8,640)
        (4, 8, 42, 21 * 37_440 + 21 * 8640),
        (8, 128, 20, 20 * 37_440),  # the ratio-128 states: 8 x 2 x 512 float32, padded to 37,440
    ]


def test_the_pool_and_what_vllm_logs():
    lay = dsv4_cache.layout(FLASH)
    available = 100 * 2**30
    blocks = lay.num_blocks(available)
    assert blocks == available // (47_808 * 22) == 102_088
    # "GPU KV cache size": blocks // 5 groups x 4, the ratio-4 states' block: a count of blocks, not of context
    assert lay.logged_tokens(blocks) == 102_088 // 5 * 4 == 81_668
    # one request of 1,048,576 tokens with 8,192 batched: 4,096 compressed blocks, 2 x 131 SWA blocks
    # (cdiv(127 + 8192, 64) + 1), 2,051 ratio-4 state blocks (cdiv(7 + 8192, 4) + 1), 1,041 ratio-128 ones
    assert [g.blocks_per_request(1_048_576, 8192) for g in lay.groups] == [4096, 131, 131, 2051, 1041]
    assert lay.concurrency_at(blocks, 1_048_576, 8192) == pytest.approx(102_088 / 7450)
    # get_max_concurrency_for_kv_cache_config weighs each group's blocks by its layers' pages: 7,065 blocks of the
    # compressed group's 1,002,240 bytes
    per = 4096 * 1_002_240 + 131 * 823_680 + 131 * 786_240 + 2051 * 967_680 + 1041 * 748_800
    assert -(-per // 1_002_240) == 7065
    assert lay.logged_concurrency(blocks, 1_048_576, 8192) == pytest.approx(102_088 / 7065)


def test_the_start_up_check_charges_every_group_at_22_tuples():
    lay = dsv4_cache.layout(FLASH)
    # 7,450 pages x 22 tuples x 47,808 bytes: 7.30 GiB for one request of 1,048,576 tokens
    assert lay.request_bytes(1_048_576, 8192) == 7450 * 22 * 47_808 == 7_835_731_200
    # the sliding groups cost what the batched tokens make them, whatever the context: 131,072 tokens need 512
    # compressed blocks and the same 3,354 sliding ones
    assert lay.request_bytes(131_072, 8192) == (512 + 3354) * 22 * 47_808 == 4_066_166_016
    assert lay.request_bytes(1_048_576, 2048) == (4096 + 35 + 35 + 515 + 273) * 22 * 47_808


def test_a_block_size_whose_pages_vllm_cannot_unify_is_refused():
    # at --block-size 128 a SWA page (37,440) is larger than every compressed page (19,008 at most): vLLM's
    # _get_kv_cache_groups_uniform_groups asserts, and so does this
    with pytest.raises(ValueError, match="larger than every compressed page"):
        dsv4_cache.layout(FLASH, 128)
    with pytest.raises(ValueError, match="one entry per decoder layer"):
        dsv4_cache.layout({**FLASH, "compress_ratios": [0, 4]})
    with pytest.raises(ValueError, match="other than 4 and 128"):
        dsv4_cache.layout({**FLASH, "compress_ratios": [8] * 44})


def test_a_public_start_up_refusal_agrees_with_these_formulas():
    """vllm-project/vllm issue #44376 (simonwalo, 2026-06-03): DeepSeek-V4-Flash with the ``LLM`` class on two GH200
    (TP2, expert parallel, ``--block-size 256``, fp8 cache, ``max_model_len`` 30,000) on vLLM "v0.22" refused to start:
    "(6.66 GiB KV cache is needed, which is larger than the available KV cache memory (5.44 GiB). Based on the
    available memory, the estimated maximum model length is 13528." The ``LLM`` class batches 16,384 tokens on a GPU
    of 70 GiB or more (``EngineArgs._set_default_args``, 0.20.0). 0.22's V4 grouping was not read: this checks 0.20.0's
    formulas against that release's figures, it does not model 0.22."""
    lay = dsv4_cache.layout(FLASH)
    # 118 compressed blocks (cdiv(30,000, 256)), 2 x 259 SWA (cdiv(127 + 16,384, 64) + 1), 4,099 ratio-4 state
    # (cdiv(7 + 16,384, 4) + 1) and 2,065 ratio-128 state blocks (cdiv(127 + 16,384, 8) + 1)
    assert [g.blocks_per_request(30_000, 16_384) for g in lay.groups] == [118, 259, 259, 4099, 2065]
    needed = lay.request_bytes(30_000, 16_384)
    assert needed == 6800 * 22 * 47_808 == 7_152_076_800 and f"{needed / 2**30:.2f}" == "6.66"
    # estimate_max_model_len's binary search gives 13,528 for an available memory in [need(13,528), need(13,529)),
    # 5.4404 to 5.4423 GiB: the 5.44 logged
    low, high = lay.request_bytes(13_528, 16_384), lay.request_bytes(13_529, 16_384)
    assert (low, high) == (5_841_563_904, 5_843_667_456)
    assert f"{low / 2**30:.2f}" == f"{(high - 1) / 2**30:.2f}" == "5.44"


def test_0_23_divides_the_pool_by_page_size_slots():
    """Round dsv4b: 0.23.0 to 0.25.1 keep 0.20.0's groups but size the pool by ``_bucket_layers_by_page_size``: each
    page size times the most layers of that size in one group."""
    lay = dsv4_cache.layout(FLASH)
    # 37,440: 22 (the larger SWA group); 8,640: 21 (indexer caches, indexer states); 1,728: 20 (the ratio-128 rows)
    assert lay.slot_bytes == 22 * 37_440 + 21 * 8640 + 20 * 1728 == 1_039_680
    assert lay.tuple_bytes * lay.tuples == 1_051_776  # 0.20.0 to 0.22.1: 47,808 x 22
    # 100 GiB: 102,088 blocks at 0.20.0, 103,276 from 0.23.0 (1.2 % more)
    assert (lay.num_blocks(100 * 2**30), lay.num_blocks_sliced(100 * 2**30)) == (102_088, 103_276)
