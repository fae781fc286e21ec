"""``--compilation-config`` ``cudagraph_mode`` in the CUDA graph terms (issue 28, tokens30).

vLLM's capture descriptors follow the mode: ``PIECEWISE`` captures no full decode graphs, ``NONE`` no graphs at all;
``profile_cudagraph_memory`` (0.20+, the estimate in the KV budget) and ``capture_model`` (after sizing, before 0.20)
walk the same descriptors (``v1/worker/gpu_model_runner.py`` 0.25.1). The row that shows it: genn888/MASS_delivery's
MiniMax-M2.7 FP8 at TP4 on four A100-SXM4-80GB (0.22.1rc1), ``--compilation-config '{"cudagraph_mode":"PIECEWISE"}'``.
"""

from __future__ import annotations

import dataclasses

import pytest
from manifest_settings import engine_settings_for
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.estimates import DEFAULT_ESTIMATES
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm.support import cudagraph_mode
from shardwise.rules.vllm.versions import resolve

QWEN7B = find_model("Qwen/Qwen2.5-7B-Instruct")
A10G = sizing.Device("A10G", 22.07, "nvidia", "ampere")
#: a warm compile cache, so that only the graphs differ (a cold one adds sizing.cold_compile_gib to every mode alike)
RUN = sizing.EngineSettings(max_model_len=32768, compile_cache="warm")


def test_the_mode_decides_which_graphs_are_captured():
    b = resolve("0.22.0").behaviour
    default, full = sizing.cudagraph_captures(QWEN7B, b, 256, 2048)
    assert (len(default), default[-1], len(full), full[-1]) == (51, 512, 35, 256)
    assert sizing.cudagraph_captures(QWEN7B, b, 256, 2048, "PIECEWISE") == (default, ())
    assert sizing.cudagraph_captures(QWEN7B, b, 256, 2048, "NONE") == ((), ())
    # the other modes are taken as the default (not modelled)
    assert sizing.cudagraph_captures(QWEN7B, b, 256, 2048, "FULL_DECODE_ONLY") == (default, full)


def test_piecewise_leaves_the_full_graphs_out_of_the_estimate_in_the_budget():
    sized = {mode: sizing.size_deployment(QWEN7B, A10G, dataclasses.replace(RUN, cudagraph_mode=mode), "0.22.0")
             for mode in (None, "PIECEWISE", "NONE")}
    assert all(s.cudagraphs_in_budget for s in sized.values())
    # 34 full graphs beyond the first, each about cudagraph_profile_layer_mib a layer of Qwen2.5-7B's 28
    dropped = 34 * 28 * DEFAULT_ESTIMATES.cudagraph_profile_layer_mib / 1024
    assert round(sized[None].cudagraph_gib_per_gpu - sized["PIECEWISE"].cudagraph_gib_per_gpu, 9) == round(dropped, 9)
    assert sized["NONE"].cudagraph_gib_per_gpu == 0.0
    assert [sized[m].kv_cache_tokens for m in (None, "PIECEWISE", "NONE")] == [90112, 93072, 101056]


def test_before_0_20_the_graphs_after_sizing_follow_the_mode_and_the_budget_does_not():
    sized = {mode: sizing.size_deployment(QWEN7B, A10G, dataclasses.replace(RUN, cudagraph_mode=mode), "0.11.0")
             for mode in (None, "PIECEWISE", "NONE")}
    assert [round(sized[m].cudagraph_gib_per_gpu, 4) for m in (None, "PIECEWISE", "NONE")] == [0.8099, 0.5557, 0.0]
    assert not any(s.cudagraphs_in_budget for s in sized.values())
    assert {s.kv_cache_tokens for s in sized.values()} == {92800}


@pytest.mark.parametrize(("config", "expected"), [
    ('{"cudagraph_mode":"PIECEWISE"}', "PIECEWISE"),
    ({"cudagraph_mode": "none"}, "NONE"),
    ('{"level": 3}', None),
    ("3", None),
    ("not json", None),
    (None, None),
])
def test_the_mode_is_read_from_the_compilation_config(config, expected):
    assert cudagraph_mode(config) == expected


def test_a_manifest_flag_reaches_the_engine_settings(tmp_path):
    def settings(flags: str):
        return engine_settings_for(tmp_path, 'v0.22.0', '"--model", "Qwen/Qwen2.5-7B-Instruct"', flags)

    assert settings(', "--compilation-config", "{\\"cudagraph_mode\\":\\"PIECEWISE\\"}"').cudagraph_mode == "PIECEWISE"
    assert settings(', "-O3"').cudagraph_mode is None
    assert settings("").cudagraph_mode is None
