"""A speculative method's draft tokens in the state layers' KV cache (issue 28, tokens30).

vLLM widens a Gated DeltaNet layer's conv state by ``num_speculative_tokens`` columns
(``MambaStateShapeCalculator.gated_delta_net_state_shape``: ``conv_kernel_size - 1 + num_spec``; 0.11.0, 0.14.1,
0.25.1), which moves the attention block the pages are aligned to, and from 0.17 ``MambaSpec.max_memory_usage_bytes``
charges a request ``1 + num_speculative_blocks`` state pages (``2 +`` in the ``align`` mode), which moves "Maximum
concurrency" and, from 0.20, "GPU KV cache size". The row: sostrowsk/dgx-spark-local-llm ``qwen36.log`` at 4b546648,
vLLM 0.25.1, RedHatAI/Qwen3.6-35B-A3B-NVFP4 on a GB10 with ``--speculative-config '{"method": "mtp",
"num_speculative_tokens": 3}'``: attention block 1,072 tokens, 'Add 3 padding layers', 74.22 GiB, 3,366,051 tokens,
12.84x at 262,144 tokens.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.support import speculative_tokens
from shardwise.rules.vllm.versions import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "capacity"))
import startup_logs  # noqa: E402
from manifest_settings import engine_settings_for

GIB = 1024**3
GB10 = sizing.Device("GB10", 121.63, "nvidia", "blackwell", 1, compute_capability=(12, 1))
#: the logged run's flags (its config line: prefix caching off, bfloat16)
RUN = sizing.EngineSettings(gpu_memory_utilization=0.85, max_model_len=262144, max_num_seqs=32,
                            speculative_method="mtp", speculative_tokens=3, pip_install=True,
                            flashinfer_installed=True)


def _qwen36():
    return startup_logs.QWEN36_35B_A3B_NVFP4


def test_the_conv_state_is_wider_by_the_draft_tokens():
    assert kv_layout.gdn_conv_columns(4, 0) == 3
    assert kv_layout.gdn_conv_columns(4, 3) == 6
    model = find_model("Qwen/Qwen3.6-35B-A3B")
    states = {n: [t.state_bytes for t in kv_layout.layout(model, 1, 1, 2, spec_tokens=n).types if t.kind == "state"]
              for n in (0, 3)}
    # conv: (2 x 16 x 128 + 32 x 128) = 8,192 channels x columns x 2 bytes; recurrent: 32 x 128 x 128 float32
    assert states[0] == [8192 * 3 * 2 + 32 * 128 * 128 * 4] == [2_146_304]
    assert states[3] == [8192 * 6 * 2 + 32 * 128 * 128 * 4] == [2_195_456]


def test_the_attention_block_follows_the_wider_state_as_the_log_aligns_it():
    model = _qwen36()
    assert sizing.size_deployment(model, GB10, RUN, "0.25.1").block_size == 1072  # 16 x cdiv(2,195,456, 16 x 2,048)
    one = dataclasses.replace(RUN, speculative_tokens=None)  # MTP's default: its one MTP layer
    assert sizing.speculative_token_count(model, one) == 1
    assert sizing.size_deployment(model, GB10, one, "0.25.1").block_size == 1056
    none = dataclasses.replace(RUN, speculative_method=None, speculative_tokens=None)
    assert sizing.speculative_token_count(model, none) == 0
    assert sizing.size_deployment(model, GB10, none, "0.25.1").block_size == 1056


def test_the_logged_cache_gives_the_logged_concurrency_and_tokens():
    model = _qwen36()
    at_logged = dataclasses.replace(RUN, kv_cache_memory_bytes=int(74.22 * GIB))
    s = sizing.size_deployment(model, GB10, at_logged, "0.25.1")
    # 11 attention layers (10 and the MTP layer) and 30 Gated DeltaNet layers: groups of 11, 3 padding layers;
    # 74.22 GiB // (1,072 x 2,048) // 11 = 3,299 blocks; a request needs cdiv(262,144, 1,072) = 245 attention
    # blocks and 1 + 3 state blocks in each of the 3 state groups: 257
    assert s.block_size == 1072
    assert round(s.max_concurrency, 6) == round(3299 / 257, 6)
    assert s.kv_cache_tokens == int(3299 / 257 * 262144) == 3_365_031  # logged 3,366,051 (12.84x)


def test_the_row_is_within_five_percent_of_its_token_count():
    [log] = [lg for lg in startup_logs.load() if lg.url.endswith("qwen36.log")]
    sc = startup_logs.score(log)
    assert sc.sized.kv_cache_tokens == 3_529_253  # logged 3,366,051: +4.85 %, the rest is the budget (KV 77.83)
    assert sc.tokens_within_5pct is True


def test_state_blocks_a_request_by_release_and_mode():
    model = find_model("Qwen/Qwen3.6-35B-A3B")
    lay = kv_layout.layout(model, 1, 1, 2, spec_tokens=3)
    spec = kv_layout.with_speculative_blocks(lay, 3)
    assert [(t.kind, t.spec_blocks) for t in spec.types] == [("full", 0), ("state", 3)]
    assert kv_layout.with_speculative_blocks(lay, 0) is lay
    b = resolve("0.25.1").behaviour
    block, page = 1072, 1072 * 2048
    attention = 10 * 8 * page  # 10 full layers, cdiv(8,192, 1,072) = 8 blocks each
    assert kv_layout.bytes_needed(lay, b, "v1", 8192, 2048) == attention + 30 * 1 * page
    assert kv_layout.bytes_needed(spec, b, "v1", 8192, 2048) == attention + 30 * 4 * page
    aligned = kv_layout.with_speculative_blocks(kv_layout.with_mamba_cache_mode(lay, model), 3)
    assert kv_layout.bytes_needed(aligned, b, "v1", 8192, 2048) == attention + 30 * 5 * page
    assert block == kv_layout.plan_kv_cache(spec, b, "v1", 100 * GIB, 8192, 2048).block_size


def test_before_the_cache_modes_a_request_holds_one_state_page_whatever_the_draft():
    # Qwen3-Next (in vLLM from before 0.14) at TP4 on H100s with MTP and 3 draft tokens: 12 attention layers of
    # 1,024 bytes a token, 36 Gated DeltaNet layers of 2,048 x 6 x 2 + 8 x 128 x 128 x 2 = 286,720 bytes: block 288
    model = find_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    h100 = sizing.Device("H100", 79.18, "nvidia", "hopper", 8)
    run = sizing.EngineSettings(tp=4, max_model_len=32768, speculative_method="mtp", speculative_tokens=3)
    assert resolve("0.14.1").behaviour.mamba_cache_modes is False
    for release, per_request in (("0.14.1", 114 + 3 * 1), ("0.25.1", 114 + 3 * 4)):
        s = sizing.size_deployment(model, h100, run, release)
        blocks = int(s.available_kv_gib * GIB) // (288 * 1024) // 12
        assert s.block_size == 288
        assert round(s.max_concurrency, 6) == round(blocks / per_request, 6)


@pytest.mark.parametrize(("config", "expected"), [
    ('{"method": "mtp", "num_speculative_tokens": 3}', 3),
    ({"method": "mtp", "num_speculative_tokens": 2}, 2),
    ('{"method": "mtp"}', None),
    ('{"method": "mtp", "num_speculative_tokens": true}', None),
    ('{"method": "mtp", "num_speculative_tokens": 0}', None),
    ("not json", None),
    (None, None),
])
def test_num_speculative_tokens_is_read_from_the_speculative_config(config, expected):
    assert speculative_tokens(config) == expected


def test_a_manifest_flag_reaches_the_engine_settings(tmp_path):
    def settings(flags: str):
        return engine_settings_for(tmp_path, 'v0.25.1', '"--model", "Qwen/Qwen3.6-35B-A3B", "--max-model-len", "8192"', flags)

    spec = settings(', "--speculative-config", "{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 3}"')
    assert (spec.speculative_method, spec.speculative_tokens) == ("mtp", 3)
    assert settings("").speculative_tokens is None
