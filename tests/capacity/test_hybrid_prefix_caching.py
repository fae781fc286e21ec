"""Prefix caching by default for hybrid models from vLLM 0.28 (issue 28, hybrid13; ``Behaviour.hybrid_prefix_caching``).

0.28.0 sets ``default_prefix_caching = model_config.is_prefix_caching_supported`` (``engine/arg_utils.py``; 0.26.0
still excluded ``model_config.is_hybrid``), and ``is_prefix_caching_supported`` is True for a generative hybrid model
(``config/model.py``). ``MambaModelConfig.verify_and_update_config`` then sets Mamba cache mode ``align`` wherever it
is ``none`` (0.28.0, 0.29.0, 0.34.0; 0.25.1 and 0.26.0 chose ``all`` for a class declaring
``SupportsMambaPrefixCaching``), and ``MambaSpec.max_memory_usage_bytes`` charges ``align`` two pages a request. So
``get_max_concurrency_for_kv_cache_config`` divides the blocks by ``cdiv(max_model_len, block)`` plus two pages for
each state group, not one, and "GPU KV cache size" is that concurrency times ``max_model_len`` (0.20+).

The rows are set 23's (Xecutive-Development-LLC/ai-infra-lab ``docs/MODEL_COMPARISON_RESULTS.md`` @40931a9 and
``docs/MODEL_COMPARISON_ROUND2_RESULTS.md`` @4584f8e: one RTX 5090, vLLM 0.29.0 from PyPI, every flag but
``--max-model-len`` at its default).
"""

from __future__ import annotations

import dataclasses

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import resolve
from startup_logs import DATA, load, score, size

RTX5090 = sizing.Device("RTX 5090", 31.36, "nvidia", "blackwell", 1, compute_capability=(12, 0))


def _start(model_id: str, max_model_len: int, release: str = "0.29.0", **settings: object) -> sizing.ReplicaSizing:
    s = sizing.EngineSettings(max_model_len=max_model_len, pip_install=True, **settings)  # type: ignore[arg-type]
    return sizing.size_deployment(find_model(model_id), RTX5090, s, release)


def test_the_release_default_turns_prefix_caching_on_for_hybrids_from_0_28():
    assert [resolve(r).behaviour.hybrid_prefix_caching for r in ("0.26.0", "0.27.1", "0.28.0", "0.29.0", "0.34.0")] \
        == [False, False, True, True, True]
    unset, off, on = (sizing.EngineSettings(enable_prefix_caching=v) for v in (None, False, True))
    old, new = resolve("0.27.1").behaviour, resolve("0.28.0").behaviour
    assert [sizing.prefix_caching_on(s, old) for s in (unset, off, on)] == [False, False, True]
    assert [sizing.prefix_caching_on(s, new) for s in (unset, off, on)] == [True, False, True]
    # a pooling runner: is_prefix_caching_supported is False for a hybrid pooling model
    assert sizing.prefix_caching_on(sizing.EngineSettings(pooling=True), new) is False


def test_from_0_28_every_model_aligns_its_states_the_mamba2_classes_included():
    granite = find_model("ibm-granite/granite-4.0-h-micro")
    lay = kv_layout.layout(granite, 1, 1, 2)
    by_class = kv_layout.with_mamba_cache_mode(lay, granite)
    aligned = kv_layout.with_mamba_cache_mode(lay, granite, by_class=False)
    assert [(t.kind, t.state_blocks) for t in by_class.types] == [("full", "one"), ("state", "all")]
    assert [(t.kind, t.state_blocks) for t in aligned.types] == [("full", "one"), ("state", "align")]


def test_qwen35_4b_at_0_29_counts_two_state_pages_a_request_per_group():
    short, long = _start("Qwen/Qwen3.5-4B", 32_768), _start("Qwen/Qwen3.5-4B", 131_072)
    # 8 attention + 24 Gated DeltaNet layers: one attention group and three state groups of 8; a 528-token block
    assert (short.block_size, short.mamba_blocks) == (long.block_size, long.mamba_blocks) == (528, 1121)
    # blocks / (cdiv(L, 528) + 3 x 2) x L: logged 518,114 and 560,268 (+2.7 %, +2.8 %); one page a group gave
    # 556,559 and 583,062 (+7.4 %, +4.1 %)
    assert short.kv_cache_tokens == int(1121 / (63 + 6) * 32_768) == 532_361
    assert long.kv_cache_tokens == int(1121 / (249 + 6) * 131_072) == 576_202
    # the count grows by 8.24 % from 32K to 128K, logged 8.14 % (4.76 % with one page a group)
    assert round(long.kv_cache_tokens / short.kv_cache_tokens, 4) == 1.0824
    assert round(560_268 / 518_114, 4) == 1.0814


def test_granite_4_h_micro_at_0_29_aligns_where_0_27_would_have_kept_a_page_per_block():
    short, long = _start("ibm-granite/granite-4.0-h-micro", 32_768), _start("ibm-granite/granite-4.0-h-micro", 131_072)
    # 4 attention + 36 Mamba2 layers: one attention group and nine state groups of 4
    assert (short.block_size, short.mamba_blocks) == (long.block_size, long.mamba_blocks) == (528, 5433)
    assert short.kv_cache_tokens == int(5433 / (63 + 18) * 32_768) == 2_197_883  # logged 2,143,269 (+2.5 %)
    assert long.kv_cache_tokens == int(5433 / (249 + 18) * 131_072) == 2_667_094  # logged 2,600,821 (+2.5 %)
    assert round(long.kv_cache_tokens / short.kv_cache_tokens, 4) == round(2_600_821 / 2_143_269, 4) == 1.2135
    # --no-enable-prefix-caching: one page a group, as before 0.28
    off = _start("ibm-granite/granite-4.0-h-micro", 32_768, enable_prefix_caching=False)
    assert off.kv_cache_tokens == int(5433 / (63 + 9) * 32_768) == 2_472_618


def test_releases_before_0_28_keep_the_default_layout():
    at_0271 = _start("Qwen/Qwen3.5-4B", 32_768, release="0.27.1")
    off = _start("Qwen/Qwen3.5-4B", 32_768, release="0.27.1", enable_prefix_caching=False)
    assert at_0271.kv_cache_tokens == off.kv_cache_tokens
    on = _start("Qwen/Qwen3.5-4B", 32_768, release="0.27.1", enable_prefix_caching=True)
    assert on.kv_cache_tokens == int(on.mamba_blocks / (63 + 6) * 32_768) < at_0271.kv_cache_tokens


def _whole_block_counts(tokens: int, per_request: int, max_model_len: int = 32_768) -> list[int]:
    """The block counts vLLM's "GPU KV cache size" line could have come from at ``per_request`` blocks a request:
    ``int(num_blocks / per_request * max_model_len)`` (``get_kv_cache_capacity``, ``v1/core/kv_cache_utils.py``)."""
    return [n for n in range(1, 400) if int(n / per_request * max_model_len) == tokens]


def test_the_qwen38_nvfp4_recipes_pre_release_counts_are_whole_blocks_over_align_modes_blocks_a_request():
    # tokens38: vllm-project/recipes models/Qwen/Qwen3.8-27B.yaml, one RTX 5090, eager, 32,768 tokens, on the recipe's
    # image ('a fork build in the 0.27 range', 0.26.1rc1.dev608); set 23's rows, sized at 0.26.1
    rows = {lg.tokens: lg for lg in load(DATA.with_name("startup_logs_23.json"))
            if lg.model.id == "Inferact/Qwen3.8-27B-NVFP4" and lg.tokens}
    tower, text, text8, text_bf16 = rows[91_022], rows[135_926], rows[152_917], rows[76_458]
    sized = {t: size(lg) for t, lg in rows.items()}
    # 16 attention layers of 4 KV heads x 256 beside 48 Gated DeltaNet layers in three state groups of 16: the
    # attention block covers the 3,207,168-byte state page, 1,568 tokens at 2,048 B a token (fp8), 784 at 4,096 (bf16),
    # one 3,211,264-byte page either way
    assert [sized[t].block_size for t in (91_022, 135_926, 152_917, 76_458)] == [1568, 1568, 1568, 784]
    assert 1568 * 2048 == 784 * 4096 == 3_211_264
    # a request: cdiv(32,768, block) attention blocks plus, per state group, two pages under Mamba cache mode align
    # (prefix caching on) or one without
    fp8_on, fp8_off, bf16_on, bf16_off = 21 + 3 * 2, 21 + 3, 42 + 3 * 2, 42 + 3
    # the fp8 counts are whole blocks over align's 27 and not over 24: prefix caching was on in that build
    assert _whole_block_counts(135_926, fp8_on) == [112] and _whole_block_counts(135_926, fp8_off) == []
    assert _whole_block_counts(91_022, fp8_on) == [75] and _whole_block_counts(91_022, fp8_off) == []
    assert _whole_block_counts(152_917, fp8_on) == [126]
    # the bf16 count is the language-model-only start's 112 blocks over bf16's 48 (the same page, so the same blocks
    # where only the cache dtype changes); the tower start's 75 or the 8-sequence start's 126 would give other counts
    assert _whole_block_counts(76_458, bf16_on) == [112]
    assert [int(n / bf16_on * 32_768) for n in (75, 126)] == [51_200, 86_016]
    assert _whole_block_counts(76_458, bf16_off) == [105]  # 7 blocks fewer than its fp8 twin: not this layout
    assert all(lg.settings.enable_prefix_caching for lg in rows.values())
    assert text_bf16.settings.mm_limits == text.settings.mm_limits == (("image", 0), ("video", 0))
    # shardwise's counts at align: blocks over 27 and 48 a request
    blocks = [int(sized[t].available_kv_gib * 2**30 // (16 * 3_211_264)) for t in (91_022, 135_926, 152_917, 76_458)]
    assert blocks == [67, 98, 113, 98]
    assert [sized[t].kv_cache_tokens for t in (91_022, 135_926, 152_917, 76_458)] == [
        int(67 / fp8_on * 32_768), int(98 / fp8_on * 32_768), int(113 / fp8_on * 32_768),
        int(98 / bf16_on * 32_768)] == [81_313, 118_935, 137_140, 66_901]
    # tokens41: 0.26 runs this dense hybrid on the V1 runner (Behaviour.v2_skips_state_models): its profile samples 256
    # rows of 248,320 logits with FlashInfer (0.97 GiB where V2's greedy sampler took 0.37) and profiles the vision
    # encoder where V2 did not before 0.27 (1.59 GiB, the tower start's peak). The blocks were [93, 111, 113, 111] on
    # V2: the language-model-only pair within 0.9 %, the tower start 18 blocks over. On V1 every start is under, by 8
    # (the tower), 14, 13 and 14 blocks (0.39 - 0.67 GiB of budget): the cap of 8's start is unchanged (8 rows of sampler on
    # either runner), so the 256-sequence starts now sit beside it, all about as much under as shardwise's inferred
    # weights of the build may be over (MISS_CAUSES "nvfp4-prerelease-weights")
    assert [score(lg).tokens_within_5pct for lg in (tower, text, text8, text_bf16)] == [
        False, False, False, False]
    # without prefix caching (the 0.26 release's default) the fp8 language-model-only start was +11.5 % on V2; on V1 it
    # would be 133,802 (-1.6 %), but 135,926 is no whole number of blocks over 24 a request (above): the count, not the
    # figure, says prefix caching was on
    off = sizing.size_deployment(text.model, RTX5090,
                                 dataclasses.replace(text.settings, enable_prefix_caching=False), "0.26.1")
    assert off.kv_cache_tokens == int(98 / fp8_off * 32_768) == 133_802
