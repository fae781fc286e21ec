"""A bitsandbytes checkpoint of a model type vLLM refuses float16 for, on a GPU below compute capability 8.0, from vLLM
0.9.1 (mend30, review44's leftover): --dtype auto leaves the model type float32 (bfloat16 needs 8.0), and the method
takes float32 activations (vLLM 0.9.1 wheel, model_executor/layers/quantization/bitsandbytes.py
``get_supported_act_dtypes``: ``[torch.float32, torch.float16, torch.bfloat16]``), so it starts in float32: four bytes
a KV cache element, not two. An AWQ checkpoint there is refused instead (review44); on 0.9.0 float16 is left."""

from __future__ import annotations

import json

import pytest

#: Gemma 2 9B's KV bytes a token at TP1: 42 layers × 8 KV heads × 256 head dims × K and V.
_GEMMA2_9B_ELEMENTS = 42 * 8 * 256 * 2


def _plan(capsys: pytest.CaptureFixture[str], model: str, release: str) -> dict:
    from shardwise.rules.app.cli import main

    capsys.readouterr()
    main(["plan", "--model", model, "--gpu", "T4", "--vllm-version", release, "--max-model-len", "4096", "--tp", "1",
          "--format", "json"])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_a_bitsandbytes_gemma2_on_a_t4_from_091_has_a_float32_kv_cache(capsys: pytest.CaptureFixture[str]) -> None:
    plan = _plan(capsys, "unsloth/gemma-2-9b-it-bnb-4bit", "0.9.1")
    assert plan["kv_cache_dtype_bytes"] == 4
    assert plan["kv_bytes_per_token_per_gpu"] == _GEMMA2_9B_ELEMENTS * 4 == 688_128
    assert plan["weight_precision"] == "int4"  # the quantised weights stay as they are
    assert any("bitsandbytes checkpoint takes float32 activations" in n for n in plan["notes"])


def test_the_same_checkpoint_on_090_keeps_16_bits(capsys: pytest.CaptureFixture[str]) -> None:
    plan = _plan(capsys, "unsloth/gemma-2-9b-it-bnb-4bit", "0.9.0")
    assert plan["kv_cache_dtype_bytes"] == 2
    assert plan["kv_bytes_per_token_per_gpu"] == _GEMMA2_9B_ELEMENTS * 2 == 344_064
