"""DeepSeek-V3.2-style sparse attention (GLM-5, GLM-5.2): which layers build the indexer, and the workspace it
reserves (tokens39, issue 28).

* ``DeepseekV2MLAAttention.__init__`` (``model_executor/models/deepseek_v2.py``, 0.24.0, 0.25.1, 0.26.0, 0.29.0) builds
  an ``Indexer``, with its ``DeepseekV32IndexerCache`` and weights, only on a layer that computes its own top-k
  (``index_topk_freq`` / ``index_skip_topk_offset`` / ``index_topk_pattern``); 0.23.0 builds one on every layer,
  0.21.0 - 0.22.0 read the keys under ``use_index_cache`` only, 0.20.0 not at all. GLM-5.2's config.json sets
  ``index_topk_freq`` 4 and ``index_skip_topk_offset`` 3 (0.25.1's ``vllm/models/deepseek_v32/nvidia/attention.py``:
  "GLM-5.2 uses index_topk_freq=4 so only layers [0,1,2,6,10,...] (+ MTP) carry one").
* The indexer's profile-run branch reserves ``40 × max_model_len`` keys of 128 fp8 bytes and 4 scale bytes in the
  shared ``WorkspaceManager`` buffer (0.13.0+; ``get_max_prefill_buffer_size``), which FlashMLA's sparse backend
  takes at init for an ``fp8_ds_mla`` cache at ``5 × max_model_len`` rows of 576 bf16 values.

Set 23's GLM-5.2-FP8 serving guide on 8 × H200 at 0.95 (aws-samples/sample-claude-code-multi-model) says what decides
the layout: at 1,000,000 tokens "Needs ~86 GiB KV cache per GPU, only 26.5 GiB free", and 307,840 tokens as vLLM's
estimate for that budget: 92,628 bytes a token (78 × 1,152 + 21 × 132), where every layer's keys give 100,152 and
93.27 GiB.
"""

from __future__ import annotations

import startup_logs
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import indexer_layer_params, unbuilt_indexer_params
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import behaviour

GIB = 2**30
H200 = sizing.Device("H200", 139.81, "nvidia", "hopper", 8)
H100 = sizing.Device("H100", 79.18, "nvidia", "hopper", 8)
FULL = (0, 1, 2, *range(6, 78, 4))


def test_glm52_builds_the_indexer_on_its_21_full_layers():
    glm52, glm5 = find_model("zai-org/GLM-5.2-FP8"), find_model("zai-org/GLM-5.1-FP8")
    assert FULL == (0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50, 54, 58, 62, 66, 70, 74)
    assert kv_layout.indexer_layer_ids(glm52) == FULL
    # the layers zai-org/GLM-5.2-FP8's ignore list keeps indexers_proj on (its MTP layer, 78, aside)
    kept = sorted(int(name.split(".")[2]) for name in glm52.hf_config["quantization_config"]["modules_to_not_convert"]
                  if name.endswith("self_attn.indexers_proj"))
    assert tuple(kept) == (*FULL, 78)
    # GLM-5.1 and DeepSeek-V3.2 name no sharing: every layer
    assert kv_layout.indexer_layer_ids(glm5) == tuple(range(78))
    assert kv_layout.indexer_layer_ids(find_model("deepseek-ai/DeepSeek-V3.2")) == tuple(range(61))
    assert kv_layout.indexer_layer_ids(find_model("Qwen/Qwen3-8B")) == ()
    # one indexer: wq_b 2048 -> 32 x 128, wk 6144 -> 128, k_norm's weight and bias, weights_proj 6144 -> 32
    assert indexer_layer_params(glm52) == 2048 * 32 * 128 + 6144 * 128 + 2 * 128 + 6144 * 32 == 9_371_904
    assert unbuilt_indexer_params(glm52) == 57 * 9_371_904 and unbuilt_indexer_params(glm5) == 0


def test_a_pattern_decides_layer_by_layer_and_a_layer_past_it_keeps_its_indexer():
    assert kv_layout.index_topk_layer_ids({"index_topk_pattern": "FFSFS"}, 7) == (0, 1, 3, 5, 6)
    assert kv_layout.index_topk_layer_ids({"index_topk_freq": 2}, 6) == (0, 1, 3, 5)  # offset 2 by default
    assert kv_layout.index_topk_layer_ids({}, 4) == (0, 1, 2, 3)


def test_the_releases_that_build_no_indexer_on_a_sharing_layer_and_reserve_the_workspace():
    assert [behaviour(v).shared_indexers_unbuilt for v in ("0.20.0", "0.23.0", "0.24.0", "0.25.1", "0.29.0")] == [
        False, False, True, True, True]
    assert [behaviour(v).sparse_indexer_workspace for v in ("0.12.0", "0.13.0", "0.19.0", "0.25.1")] == [
        False, True, True, True]


def test_the_workspace_is_40_keys_a_token_or_flashmlas_fp8_prefill_buffer():
    glm52, glm51 = find_model("zai-org/GLM-5.2-FP8"), find_model("zai-org/GLM-5.1")
    b = behaviour("0.25.1")
    # 40 x 300,000 keys of 128 fp8 bytes, then their (rows, 4) scales: 1.48 GiB; 4.92 GiB at 1,000,000 tokens
    assert sizing.sparse_indexer_workspace_bytes(glm52, b, H200, 300_000, 2, "") == 40 * 300_000 * 132 == 1_584_000_000
    assert sizing.sparse_indexer_workspace_bytes(glm52, b, H200, 1_000_000, 2, "") == 5_280_000_000
    assert sizing.sparse_indexer_workspace_bytes(glm52, behaviour("0.12.0"), H200, 300_000, 2, "") == 0
    assert sizing.sparse_indexer_workspace_bytes(find_model("Qwen/Qwen3-8B"), b, H200, 300_000, 2, "") == 0
    # an fp8_ds_mla cache on Hopper: FlashMLA's 5 x 202,752 rows of 576 bf16 values, more than the indexer's
    # 40 x 202,752 x 132 = 1,070,530,560
    assert sizing.sparse_indexer_workspace_bytes(glm51, behaviour("0.19.0"), H100, 202_752, 1, "") == (
        5 * 202_752 * 576 * 2) == 1_167_851_520


def test_set_23s_glm52_rows_read_with_21_indexer_layers_and_the_workspace():
    rows = {log.settings.max_model_len: log for log in startup_logs.load() if log.model.id == "zai-org/GLM-5.2-FP8"}
    at_1m, at_300k = startup_logs.size(rows[1_000_000]), startup_logs.size(rows[300_000])
    # the guide's "~86 GiB" for one 1,000,000-token request: 15,625 blocks of 64 tokens at 92,664 bytes (93.27 before)
    assert at_1m.kv_bytes_per_token_per_gpu == at_300k.kv_bytes_per_token_per_gpu == 92_664
    assert round(at_1m.needed_kv_gib, 2) == 86.30
    # the 300K start: 425,234 tokens against the ~413,000 logged, +3.0 % (403,796, -2.2 %, before)
    assert (at_300k.kv_cache_tokens, round(at_300k.available_kv_gib, 2)) == (425_234, 36.70)
    assert abs(at_300k.kv_cache_tokens - 413_000) / 413_000 < 0.05
    # the 1M start: 33.26 GiB against vLLM's 26.5 (37.67 before): 6.76 GiB still unread (the KV tolerance is 5.31)
    assert (round(at_1m.available_kv_gib, 2), at_1m.starts) == (33.26, False)
    # at 0.23.0 every layer keeps its indexer, its keys and its weights
    early = sizing.size_deployment(rows[300_000].model, H200, rows[300_000].settings, "0.23.0")
    assert early.kv_bytes_per_token_per_gpu == 100_152
    assert round(early.weights_gib_per_gpu - at_300k.weights_gib_per_gpu, 2) == 0.51
