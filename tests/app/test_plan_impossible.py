"""``shardwise plan`` with a request no hardware can meet says what is impossible: a ``--max-model-len`` above the
model's context limit is the model's limit, not "a GPU with more memory"; a model too large for the GPUs keeps
that advice."""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_max_model_len_above_the_models_context_limit_names_the_limit(capsys):
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                       "--max-model-len", "1000000", "--vllm-version", "0.11.0")
    assert (rc, out) == (2, "")
    assert err == (
        "shardwise: error: --max-model-len 1,000,000 is above the model's limit: meta-llama/Llama-3.1-8B-Instruct "
        "allows 131,072 tokens (max_position_embeddings 131,072 in its config.json); vLLM refuses it on any GPU "
        "unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set (--env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)\n")
    assert "more memory" not in err


def test_with_vllms_allow_long_switch_the_length_is_planned_as_vllm_would_take_it(capsys):
    """``--env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``: vLLM takes the longer --max-model-len (it warns), so plan sizes it
    and the manifest it emits carries the switch, which lint reads."""
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1",
                       "--max-model-len", "262144", "--vllm-version", "0.11.0",
                       "--env", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    assert (rc, err) == (0, "")
    assert "  max_model_len               262,144 (the model allows 131,072)" in out.splitlines()


def test_a_p95_context_above_the_models_context_limit_names_the_limit(capsys):
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                       "--vllm-version", "0.11.0", "--p95-context", "500000")
    assert (rc, out) == (2, "")
    assert err == (
        "shardwise: error: --p95-context 500,000 is above the model's limit: meta-llama/Llama-3.1-8B-Instruct "
        "allows 131,072 tokens (max_position_embeddings 131,072 in its config.json); vLLM rejects longer requests, "
        "so no layout serves that context\n")


def test_a_p95_context_above_the_max_model_len_given_is_refused_never_clamped(capsys):
    """plancases25: --p95-context 16,000 with --max-model-len 8,192 was planned as 8,192-token sequences (the load
    clamped, with a note only), and the manifest plan emitted linted clean; vLLM rejects or cuts short the longer
    requests, so plan refuses it as lint's SW103 now blocks that manifest, and at the length given the plan is made."""
    rc, out, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                       "--vllm-version", "0.11.0", "--max-model-len", "8192", "--p95-context", "16000",
                       "--concurrency", "8")
    assert (rc, out) == (2, "")
    assert err == (
        "shardwise: error: --p95-context 16,000 is above --max-model-len 8,192: vLLM rejects or cuts short longer "
        "requests, so no layout serves that context; raise --max-model-len to at least 16,000 or leave it out "
        "(meta-llama/Llama-3.1-8B-Instruct allows 131,072 tokens (max_position_embeddings 131,072 in its "
        "config.json))\n")
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--vllm-version", "0.11.0", "--max-model-len", "8192", "--p95-context", "8192",
                     "--concurrency", "8")
    assert (rc, err) == (0, "")


def test_at_the_limit_the_plan_is_made(capsys):
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--max-model-len", "131072", "--vllm-version", "0.11.0")
    assert (rc, err) == (0, "")


def test_a_model_too_large_for_the_gpus_still_asks_for_more_memory(capsys):
    rc, _, err = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-405B-Instruct", "--gpu", "L4",
                     "--vllm-version", "0.11.0")
    assert rc == 1
    assert err == ("shardwise: no layout of TP1×PP1, TP1×PP2, TP1×PP4, TP1×PP8, TP1×PP16, TP1×PP32 is free of "
                   "mandatory findings; try a GPU with more memory, --quantization or a shorter --max-model-len\n")


def test_a_p95_context_within_max_model_len_has_no_note(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--vllm-version", "0.11.0", "--p95-context", "8192")
    assert rc == 0 and "expected context" not in out


@pytest.mark.parametrize("model", ["meta-llama/Llama-3.1-8B-Instruct", "acme/Llama-3.1-8B-custom"])
def test_a_base_model_the_catalog_lacks_is_an_error_even_when_the_model_is_known(capsys, model):
    """Before hostile5 ``--base-model /dev/zero`` beside a catalog model was dropped without a word (the model's own
    shape used) and the plan printed as if it had been read."""
    rc, out, err = run(capsys, "plan", "--model", model, "--gpu", "L40S", "--base-model", "/dev/zero")
    assert (rc, out) == (2, "")
    assert err.strip() == (f"shardwise: error: --base-model '/dev/zero' is not a model of the catalog: give the "
                           f"catalog id of the model {model!r} is a copy of, or leave --base-model out")


def test_a_catalog_base_model_beside_a_catalog_model_plans_as_the_model_alone(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S",
                     "--base-model", "meta-llama/Llama-3.1-8B-Instruct")
    rc_alone, out_alone, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S")
    assert (rc, out) == (rc_alone, out_alone)
