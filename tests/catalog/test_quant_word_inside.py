"""A re-upload whose name states its quantisation before words shardwise does not read (review22).

Google's Gemma 4 QAT exports are named ``google/gemma-4-E4B-it-qat-w4a16-ct``: compressed-tensors W4A16 (``-w4a16``),
then ``-ct``, which no suffix or decoration of :mod:`shardwise.rules.catalog.lookup` reads. Named with its base model
(the annotation ``shardwise.dev/base-model``, ``plan --base-model``, a stack's ``base_model``) it took the base model's
bf16: 15.1 GiB of weights where the E4B export loads 9.81 GiB on an L4 at vLLM 0.28.0 (floSa/data-analyst-agent, set 26
of tests/capacity/startup_logs.py), and SW101 blocked the start that log records. A quantisation the name states where
it is not read is neither that quantisation nor the base model's precision: the weights are not known, and the rules
that need them say so (tests/fixtures/rules/SW101/quant-word-before-unread-words.yaml)."""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity.weights import QuantizationUnknown, weight_precision
from shardwise.rules.catalog import find_model
from shardwise.rules.catalog.lookup import quantisation_word_inside, resolve_precision_from_name


@pytest.mark.parametrize(("model_id", "word"), [
    ("google/gemma-4-E4B-it-qat-w4a16-ct", "w4a16"),
    ("google/gemma-4-E2B-it-qat-w4a16-ct", "w4a16"),
    ("xbill9/gemma-4-26B-A4B-it-qat-q4_0-w4a16-ct", "w4a16"),
    ("Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound", "int4"),  # mixed widths: no one precision (catalog48)
    ("acme/Llama-3.1-8B-Instruct-AWQ-calibrated-v2", "AWQ"),
    # the end states it: read there, nothing inside
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", None),
    ("RedHatAI/Llama-3.1-8B-Instruct-quantized.w4a16", None),
    ("shawnw3i/Qwen3.8-27B-AWQ-MTP", None),
    # no quantisation in the name, or a 16-bit one (an unquantised re-upload)
    ("acme/gemma-4-E4B-it-support-sft", None),
    ("unsloth/gpt-oss-20b-BF16-custom", None),
    ("AWQ-notes", None),  # a name that starts with the word states nothing
])
def test_the_quantisation_a_name_states_before_unread_words(model_id, word):
    assert quantisation_word_inside(model_id) == word
    if word is not None:
        assert resolve_precision_from_name(model_id) is None  # the reason it matters: the end states nothing


def test_named_with_its_base_model_it_is_sized_at_neither_precision():
    qat = find_model("google/gemma-4-E4B-it-qat-w4a16-ct", "google/gemma-4-E4B-it")
    assert (qat.base_model, qat.precision, qat.extra["quantisation_word_unread"]) == (
        "google/gemma-4-E4B-it", "bf16", "w4a16")
    with pytest.raises(QuantizationUnknown) as err:
        weight_precision(qat)
    assert err.value.text == (
        "the weights' size is not known (google/gemma-4-E4B-it-qat-w4a16-ct's name says `w4a16` before words shardwise "
        "does not read, so it is sized neither at that quantisation nor at google/gemma-4-E4B-it's bf16; give its "
        "config.json instead, whose quantization_config states the bits (the annotation shardwise.dev/base-model, or "
        "plan's --model, takes its path))")
    # a copy whose name states nothing is its base model's, as before; one whose end states it, at that precision
    sft = find_model("acme/gemma-4-E4B-it-support-sft", "google/gemma-4-E4B-it")
    assert "quantisation_word_unread" not in sft.extra and weight_precision(sft) == "bf16"
    awq = find_model("acme/gemma-4-E4B-it-AWQ", "google/gemma-4-E4B-it")
    assert "quantisation_word_unread" not in awq.extra and weight_precision(awq) == "int4"


@pytest.mark.parametrize(("argv", "why"), [
    (("--model", "google/gemma-4-E4B-it-qat-w4a16-ct", "--base-model", "google/gemma-4-E4B-it"),
     "google/gemma-4-E4B-it-qat-w4a16-ct's name says `w4a16` before words shardwise does not read"),
    # the same class: a bare -GPTQ states no width (it ended in an internal error before review22)
    (("--model", "TheBloke/Llama-2-7B-Chat-GPTQ"),
     "TheBloke/Llama-2-7B-Chat-GPTQ is a gptq checkpoint whose bits neither its name nor the catalog states"),
])
def test_plan_says_it_cannot_decide_the_weights(capsys, argv, why):
    rc = main(["plan", *argv, "--gpu", "L4", "--vllm-version", "0.28.0"])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert err.startswith(f"shardwise: error: cannot decide: the weights' size is not known ({why}")
