"""The dtype vLLM serves a model in, by release, model type and GPU (``rules/vllm/model_dtype.py``), pinned to what
the wheels on PyPI do (``config.py`` ``_get_and_verify_dtype`` / ``_resolve_auto_dtype``, ``platforms/cuda.py``
``supported_dtypes``, the GPU worker's bfloat16 check; 0.8.4 to 0.19.0)."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm.model_dtype import ServedDtype, served_dtype, top_model_type
from shardwise.rules.vllm.versions import behaviour

T4, V100, A10G = (7, 5), (7, 0), (8, 6)
BF16_T4 = ("bfloat16 is only supported on GPUs with compute capability of at least 8.0, and T4 has 7.5 (the GPU "
           "worker's check; --dtype half serves it in float16)")
GEMMA2_FP16 = ("--dtype half: the model type 'gemma2' does not support float16 (_FLOAT16_NOT_SUPPORTED_MODELS: "
               "\"Numerical instability. Please use bfloat16 or float32 instead.\")")


def served(version: str, model_type: str, config: str, given: str, cc: tuple[int, int] | None = T4,
           vendor: str = "nvidia") -> ServedDtype:
    return served_dtype(behaviour(version), model_type, config, given, vendor, cc, "T4")


def test_auto_by_release_on_a_t4():
    # before 0.9.0: config.json's dtype, refused by the worker when it is bfloat16; float32 is served as float16
    assert served("0.8.5", "gemma3", "bfloat16", "auto") == ServedDtype(
        "bfloat16", f"--dtype auto takes config.json's bfloat16: {BF16_T4}", True, "gemma3")
    assert served("0.8.4", "llama", "bfloat16", "auto").refusal.startswith("--dtype auto takes config.json's bfloat16")
    assert served("0.8.5", "gemma2", "float32", "auto") == ServedDtype("float16", "", model_type="gemma2")
    # 0.9.0 falls back to float16 for every model; 0.9.1 on, float32 for the model types float16 is refused for
    assert served("0.9.0", "gemma3", "bfloat16", "auto") == ServedDtype("float16", "", model_type="gemma3")
    assert served("0.9.1", "gemma3", "bfloat16", "auto") == ServedDtype("float32", "", model_type="gemma3")
    assert served("0.9.1", "llama", "bfloat16", "auto").dtype == "float16"
    # gemma3_text (Gemma 3 1B) joins the list in 0.10.2
    assert served("0.10.1", "gemma3_text", "bfloat16", "auto").dtype == "float16"
    assert served("0.10.2", "gemma3_text", "bfloat16", "auto").dtype == "float32"
    assert served("0.19.0", "gemma2", "float32", "auto").dtype == "float32"


def test_auto_keeps_bfloat16_from_ampere():
    assert served("0.11.0", "gemma3", "bfloat16", "auto", A10G) == ServedDtype("bfloat16", "", model_type="gemma3")
    # a float32 checkpoint is downcast to the platform's first dtype, bfloat16 from 8.0
    assert served("0.11.0", "gemma2", "float32", "auto", A10G).dtype == "bfloat16"
    assert served("0.8.5", "gemma2", "float32", "auto", A10G).dtype == "float16"


def test_plamo2_on_0_9_0_falls_back_after_its_own_cast():
    assert served("0.9.0", "plamo2", "float32", "auto", A10G).dtype == "bfloat16"
    assert served("0.9.0", "plamo2", "float32", "auto", V100).dtype == "float16"


def test_float16_refused_by_model_type_and_release_on_any_gpu():
    assert served("0.11.0", "gemma2", "bfloat16", "half", A10G) == ServedDtype(
        "float16", GEMMA2_FP16, model_type="gemma2")
    assert served("0.11.0", "gemma2", "bfloat16", "half", None, "amd").refusal == GEMMA2_FP16
    assert served("0.9.0", "gemma2", "bfloat16", "half", A10G).refusal == ""
    assert served("0.11.0", "llama", "bfloat16", "float16", A10G).refusal == ""
    assert served("0.10.1", "gemma3_text", "bfloat16", "float16", A10G).refusal == ""
    assert served("0.10.2", "gemma3_text", "bfloat16", "float16", A10G).refusal.startswith(
        "--dtype float16: the model type 'gemma3_text' does not support float16")


def test_bfloat16_written_out_below_ampere():
    assert served("0.19.0", "llama", "bfloat16", "bfloat16", V100).refusal.startswith(
        "--dtype bfloat16: bfloat16 is only supported on GPUs with compute capability of at least 8.0")
    # the remedy for a model type float16 is refused for is float32
    assert served("0.19.0", "gemma2", "bfloat16", "bfloat16").refusal.endswith(
        "(the GPU worker's check; --dtype float32 serves it in float32)")
    assert served("0.19.0", "llama", "bfloat16", "bfloat16", A10G).refusal == ""


@pytest.mark.parametrize("cc, vendor", [(None, "nvidia"), (None, "amd")])
def test_no_capability_no_bfloat16_refusal(cc: tuple[int, int] | None, vendor: str):
    assert served("0.8.5", "gemma3", "bfloat16", "auto", cc, vendor) == ServedDtype("bfloat16", "",
                                                                                  model_type="gemma3")


def test_top_model_type_by_architecture():
    assert top_model_type(["Gemma3ForConditionalGeneration"], "gemma3_text") == "gemma3"
    assert top_model_type(["Gemma3ForCausalLM"], "gemma3_text") == "gemma3_text"
    assert top_model_type(["LlamaForCausalLM"], "llama") == "llama"
    assert top_model_type(None, "gemma2") == "gemma2"


def test_sizing_keeps_each_answer_by_what_it_reads():
    """The sizing keeps the served dtype in the model's facts (lintspeed29): one model object asked in turn on GPUs,
    releases and --dtype words that change the answer, each ask twice, is answered as a fresh reading answers."""
    from shardwise.rules.capacity import sizing
    from shardwise.rules.catalog import find_gpu, find_model
    from shardwise.rules.vllm.versions import resolve

    model = find_model("google/gemma-2-9b-it")
    model_type = top_model_type(model.hf_config.get("architectures"), str(model.hf_config.get("model_type") or ""))
    assert model_type == "gemma2"
    answers = set()
    for _ in range(2):
        for gpu in ("T4", "A10G", "V100"):
            device = sizing.Device.of(find_gpu(gpu))
            for version in ("0.8.5", "0.9.0", "0.9.1", "0.11.0"):
                rv = resolve(version)
                for dtype in ("auto", "half", "bfloat16"):
                    got = sizing._served_dtype(model, sizing.EngineSettings(dtype=dtype), device, rv)
                    assert got == served_dtype(rv.behaviour, model_type, model.torch_dtype, dtype, device.vendor,
                                               device.capability(), device.name), (gpu, version, dtype)
                    answers.add(got)
    assert len(answers) >= 8  # the answers differ by GPU, release and --dtype: a key missing one of them fails
