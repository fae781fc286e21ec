"""Mamba cache modes under ``--enable-prefix-caching`` (issue 28; ``versions.py`` ``mamba_cache_modes``).

vLLM 0.17+ (``MambaModelConfig.verify_and_update_config``) keeps the states of a model with state layers in mode
``all`` (a state page per block of tokens) where the model class declares ``SupportsMambaPrefixCaching``, in
``align`` (two pages a request) otherwise (``MambaSpec.max_memory_usage_bytes``); without prefix caching, one page.
"""

from __future__ import annotations

import dataclasses

from manifest_settings import engine_settings_for
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import resolve

H100 = sizing.Device("H100", 79.18, "nvidia", "hopper")
# phivan3008/meeting-translator vllm_serve.log at 59159b20: vLLM 0.27.1, one H100, Qwen3.6-27B-FP8
RUN = sizing.EngineSettings(max_model_len=4096, gpu_memory_utilization=0.88, enforce_eager=True,
                            max_num_batched_tokens=4096, max_num_seqs=32, pip_install=True, flashinfer_installed=True)


def test_qwen36_under_prefix_caching_holds_two_state_blocks_a_request_per_group():
    model = find_model("Qwen/Qwen3.6-27B-FP8")
    off = sizing.size_deployment(model, H100, RUN, "0.27.1")
    on = sizing.size_deployment(model, H100, dataclasses.replace(RUN, enable_prefix_caching=True),
                                "0.27.1")
    assert off.available_kv_gib == on.available_kv_gib and off.block_size == on.block_size == 784
    # 16 attention + 48 state layers: 4 groups of 16; a page of 784 tokens x 4,096 bytes; the log's 71.42x is
    # 857 blocks / (6 + 3 x 2) = 71.42 (the same division by 6 + 3 x 1 without prefix caching)
    blocks = int(on.available_kv_gib * 1024**3) // (784 * 4096) // 16
    assert round(on.max_concurrency, 4) == round(blocks / 12, 4)
    assert round(off.max_concurrency, 4) == round(blocks / 9, 4)
    assert on.kv_cache_tokens == int(blocks / 12 * 4096)


def test_mamba2_models_keep_a_state_block_per_block_of_tokens():
    model = find_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    lay = kv_layout.layout(model, 1, 1, 2)
    on = kv_layout.with_mamba_cache_mode(lay, model)
    assert [(t.kind, t.state_blocks) for t in on.types] == [("full", "one"), ("state", "all")]
    b = resolve("0.27.1").behaviour
    # 4 attention layers of 4,096 bytes a token; the block is 1,312 tokens, a page 5,373,952 bytes (one per state)
    page = 1312 * 4096
    assert kv_layout.bytes_needed(lay, b, "v1", 8192, 2048) == 4 * 7 * page + 27 * page
    assert kv_layout.bytes_needed(on, b, "v1", 8192, 2048) == 4 * 7 * page + 27 * 7 * page


def test_gated_deltanet_models_align_and_full_attention_models_are_unchanged():
    qwen = find_model("Qwen/Qwen3.5-9B")
    lay = kv_layout.with_mamba_cache_mode(kv_layout.layout(qwen, 1, 1, 2), qwen)
    assert [(t.kind, t.state_blocks) for t in lay.types] == [("full", "one"), ("state", "align")]
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    plain = kv_layout.layout(llama, 1, 1, 2)
    assert kv_layout.with_mamba_cache_mode(plain, llama) is plain


def test_releases_before_the_cache_modes_and_the_default_keep_one_block():
    model = find_model("Qwen/Qwen3.6-27B-FP8")
    on = dataclasses.replace(RUN, enable_prefix_caching=True)
    assert resolve("0.14.1").behaviour.mamba_cache_modes is False
    assert resolve("0.17.0").behaviour.mamba_cache_modes is True
    default = sizing.size_deployment(model, H100, RUN, "0.27.1")
    unset = sizing.size_deployment(model, H100, dataclasses.replace(RUN, enable_prefix_caching=False),
                                   "0.27.1")
    assert default.kv_cache_tokens == unset.kv_cache_tokens
    assert sizing.size_deployment(model, H100, on, "0.27.1").kv_cache_tokens < default.kv_cache_tokens


def test_a_manifest_flag_reaches_the_engine_settings(tmp_path):
    def settings(flags: str):
        return engine_settings_for(tmp_path, 'v0.27.1', '"--model", "Qwen/Qwen3.6-27B-FP8", "--max-model-len", "4096"', flags)

    assert settings(', "--enable-prefix-caching"').enable_prefix_caching is True
    assert settings(', "--no-enable-prefix-caching"').enable_prefix_caching is False
    assert settings("").enable_prefix_caching is None
