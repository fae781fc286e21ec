"""DeepSeek-V4's start-up buffers and prefill workspace as vLLM 0.20.0 allocates them (``dsv4_startup``, dsv4).

The config is DeepSeek-V4-Flash's as tests/vllm/test_dsv4_weights.py restates it, with the keys these terms read:
``index_topk`` 512, ``qk_rope_head_dim`` 64, ``rope_theta`` 10,000, ``compress_rope_theta`` 160,000 and YaRN
``rope_scaling`` (factor 16 over 65,536 positions), as public ports of its config.json state them. Every figure is
worked by hand in the comments.
"""

from __future__ import annotations

import pytest
from shardwise.rules.vllm import dsv4_startup

FLASH = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096, "hc_mult": 4,
    "num_hidden_layers": 43, "head_dim": 512, "qk_rope_head_dim": 64, "index_topk": 512, "sliding_window": 128,
    "rope_theta": 10000, "compress_rope_theta": 160000,
    "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32,
                     "beta_slow": 1},
    "compress_ratios": [0, 0, *[4, 128] * 20, 4, 0],
}


def test_flash_buffers_at_8192_batched_tokens():
    b = dsv4_startup.buffers(FLASH, 8192)
    # topk indices: 8,192 x 512 int32; the MTP hidden buffer: 8,192 x 4 streams x 4,096 in bfloat16
    assert (b.topk_indices, b.mtp_hidden) == (8192 * 512 * 4, 8192 * 4 * 4096 * 2) == (16_777_216, 268_435_456)
    # two thetas (the two window-only layers' 10,000, the compressed layers' 160,000): two float32 caches of
    # 65,536 x 16 = 1,048,576 positions x 64
    assert b.rotary == (268_435_456, 268_435_456) and 1_048_576 * 64 * 4 == 268_435_456
    assert b.total == 822_083_584  # 784 MiB a rank, whatever the TP


def test_one_theta_when_every_layer_is_compressed():
    cfg = {**FLASH, "num_hidden_layers": 2, "compress_ratios": [4, 128, 0]}
    assert dsv4_startup.buffers(cfg, 2048).rotary == (268_435_456,)


def test_the_prefill_workspace_is_a_ratio_4_layers():
    # ratio 4 at 1,048,576 tokens: M = 262,144 + 128 + 8,192 = 270,464 rows; 4 x 270,464 x 512 bfloat16
    assert dsv4_startup.prefill_workspace(FLASH, 1_048_576, 8192) == 4 * 270_464 * 512 * 2 == 1_107_820_544
    # at 131,072: M = 32,768 + 128 + 8,192 = 41,088
    assert dsv4_startup.prefill_workspace(FLASH, 131_072, 8192) == 4 * 41_088 * 1024 == 168_296_448
    # a window-only model gathers only the window and the batch
    only = {**FLASH, "num_hidden_layers": 1, "compress_ratios": [0, 0]}
    assert dsv4_startup.prefill_workspace(only, 1_048_576, 8192) == 4 * (128 + 8192) * 1024


def test_a_config_without_yarn_is_refused():
    with pytest.raises(ValueError, match="YaRN"):
        dsv4_startup.buffers({**FLASH, "rope_scaling": None}, 8192)
    with pytest.raises(ValueError, match="compress_rope_theta"):
        dsv4_startup.buffers({k: v for k, v in FLASH.items() if k != "compress_rope_theta"}, 8192)


#: with the indexer's ``index_head_dim`` (128, as test_dsv4_cache.py restates Flash's config.json)
FLASH_IDX = {**FLASH, "index_head_dim": 128}


def test_the_indexer_reserves_forty_rows_a_token_over_its_ratio():
    # T = 1,048,576 x 40 // 4 = 10,485,760 rows: 128 FP8 bytes (1,342,177,280) and 4 scale bytes (41,943,040), both
    # multiples of 256 already, and the radix top-k's 1 MiB
    assert dsv4_startup.indexer_workspace(FLASH_IDX, 1_048_576) == 1_342_177_280 + 41_943_040 + 1_048_576 \
        == 1_385_168_896
    # at 131,072: 1,310,720 rows
    assert dsv4_startup.indexer_workspace(FLASH_IDX, 131_072) == 167_772_160 + 5_242_880 + 1_048_576 == 174_063_616
    # at 30,000 (vllm#44376's length): 300,000 rows; the scales' 1,200,000 bytes round up to 1,200,128
    assert dsv4_startup.indexer_workspace(FLASH_IDX, 30_000) == 38_400_000 + 1_200_128 + 1_048_576 == 40_648_704
    # the MXFP4 indexer cache: 64 value bytes and 128 / 32 = 4 scale bytes a row
    assert dsv4_startup.indexer_workspace(FLASH_IDX, 1_048_576, fp4_indexer_cache=True) \
        == 671_088_640 + 41_943_040 + 1_048_576 == 714_080_256


def test_the_workspace_floor_is_the_indexers_at_long_context():
    # 1,048,576 tokens, 8,192 batched: the indexer's 1,385,168,896 over the attention gather's 1,107,820,544
    assert dsv4_startup.workspace_floor(FLASH_IDX, 1_048_576, 8192) == 1_385_168_896
    assert dsv4_startup.workspace_floor(FLASH_IDX, 131_072, 8192) == 174_063_616  # over 168,296,448
    # the attention gather is the larger at vllm#44376's 30,000 tokens and the LLM class's 16,384 batched tokens:
    # 4 x (7,500 + 128 + 16,384) x 512 x 2
    assert dsv4_startup.workspace_floor(FLASH_IDX, 30_000, 16_384) == 4 * 24_012 * 1024 == 98_353_152
    # a model without a ratio-4 layer has no indexer
    no_idx = {**FLASH_IDX, "num_hidden_layers": 2, "compress_ratios": [0, 128, 0]}
    assert dsv4_startup.indexer_workspace(no_idx, 1_048_576) == 0
    assert dsv4_startup.workspace_floor(no_idx, 1_048_576, 8192) == 4 * (8192 + 128 + 8192) * 1024
