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

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import resolve

RTX5090 = sizing.Device("RTX 5090", 31.36, "nvidia", "blackwell", 1)


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
