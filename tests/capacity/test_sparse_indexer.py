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
* The first FULL capture of ``profile_cudagraph_memory`` (0.20+, in the budget) runs the indexer's decode branch, whose
  fp32 scores are ``max_model_len`` wide for every decode token (``fp8_paged_mqa_logits``), in the warm-up and in the
  graph's pool (kvtol1).

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
    # the 300K start: 413,459 tokens against the ~413,000 logged, +0.1 % (425,234, +3.0 %, before kvtol1's decode
    # scores in the graphs' estimate; 403,796, -2.2 %, before tokens39)
    assert (at_300k.kv_cache_tokens, round(at_300k.available_kv_gib, 2)) == (413_459, 35.69)
    assert abs(at_300k.kv_cache_tokens - 413_000) / 413_000 < 0.002
    # the 1M start: 29.57 GiB against vLLM's 26.5 (33.26 before kvtol1, 37.67 before tokens39): +3.07 GiB, inside
    # the KV tolerance of max(0.6, 4 % of the 132.82 GiB usable) = 5.31 GiB
    assert (round(at_1m.available_kv_gib, 2), at_1m.starts) == (29.57, False)
    assert abs(at_1m.available_kv_gib - 26.5) <= 0.04 * at_1m.usable_gib_per_gpu
    assert not rows[1_000_000].open_miss
    # at 0.23.0 every layer keeps its indexer, its keys and its weights
    early = sizing.size_deployment(rows[300_000].model, H200, rows[300_000].settings, "0.23.0")
    assert early.kv_bytes_per_token_per_gpu == 100_152
    assert round(early.weights_gib_per_gpu - at_300k.weights_gib_per_gpu, 2) == 0.51


def test_the_first_full_capture_holds_the_indexers_decode_scores_max_model_len_wide():
    """``profile_cudagraph_memory`` (0.25.1) warms up and captures the largest FULL decode size with its attention
    metadata built, so the indexer's decode branch runs: DeepGEMM's ``fp8_paged_mqa_logits`` returns fp32 scores of
    ``(decode tokens, max_model_len)``, its columns padded to 256, once in PyTorch's cache (the warm-up) and once in
    the graph's pool. GLM-5.2 at TP8 on an H200 (1,024 sequences by default, 8,192 batched tokens): full decode
    graphs up to 512 tokens, whose scores outgrow the 512-token forward pass charged before."""
    glm52 = find_model("zai-org/GLM-5.2-FP8")
    assert sizing.sparse_indexer_decode_logits_bytes(glm52, "nvidia", 512, 1_000_000) == 512 * 1_000_192 * 4
    assert sizing.sparse_indexer_decode_logits_bytes(glm52, "nvidia", 512, 1_000_000) == 2_048_393_216  # 1.91 GiB
    assert sizing.sparse_indexer_decode_logits_bytes(glm52, "nvidia", 512, 300_000) == 512 * 300_032 * 4 == 614_465_536
    assert sizing.sparse_indexer_decode_logits_bytes(glm52, "amd", 512, 1_000_000) == 0  # AITER's path: not read
    assert sizing.sparse_indexer_decode_logits_bytes(glm52, "nvidia", 0, 1_000_000) == 0
    assert sizing.sparse_indexer_decode_logits_bytes(find_model("Qwen/Qwen3-8B"), "nvidia", 512, 1_000_000) == 0

    b, s = behaviour("0.25.1"), sizing.EngineSettings(tp=8)
    assert sizing.cudagraph_captures(glm52, b, 1024, 8192)[1][-2:] == (496, 512)

    def graphs(max_model_len: int, vendor: str = "nvidia") -> float:
        return round(sizing.profiled_cudagraph_gib(glm52, b, s, 1024, 8192, 2, max_model_len=max_model_len,
                                                   vendor=vendor), 4)

    # 0.065 GiB + 2 x the larger of the 512-token forward pass and the scores + 0.17 MiB a layer a further graph:
    # the scores add 2 x (0.5723 - 0.0645) GiB at 300,000 tokens and 2 x (1.9077 - 0.0645) at 1,000,000
    assert graphs(0) == 1.4888
    assert graphs(300_000) == 2.5045
    assert graphs(1_000_000) == 5.1754
    assert graphs(1_000_000, "amd") == 1.4888
