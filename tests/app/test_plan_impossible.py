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
    assert rc == 1
    assert "max_model_len 1,000,000 is above the 131,072 tokens meta-llama/Llama-3.1-8B-Instruct allows" in out
    assert err == (
        "shardwise: no layout of TP1×PP1, TP2×PP1, TP4×PP1, TP8×PP1, TP8×PP2, TP8×PP4 starts: --max-model-len "
        "1,000,000 is above the 131,072 tokens meta-llama/Llama-3.1-8B-Instruct allows (its context limit, from its "
        "config.json), and no GPU, layout or quantization raises that; ask for at most 131,072 (vLLM starts above it "
        "only with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which its own warning says may give incorrect outputs)\n")
    assert "more memory" not in err


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


@pytest.mark.parametrize(("argv", "note"), [
    (["--p95-context", "500000"],
     "  note: --p95-context 500,000 is above the 131,072 tokens meta-llama/Llama-3.1-8B-Instruct allows (its context "
     "limit, from its config.json): no sequence is longer, so the load is sized at 131,072"),
    (["--p95-context", "16000", "--max-model-len", "8192"],
     "  note: --p95-context 16,000 is above max_model_len 8,192: vLLM refuses a longer sequence, so the load is sized "
     "at 8,192 (the model allows 131,072)"),
])
def test_a_p95_context_longer_than_a_sequence_can_be_is_said(capsys, argv, note):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--vllm-version", "0.11.0", *argv)
    assert rc == 0
    assert [line for line in out.splitlines() if "--p95-context" in line] == [note]


def test_a_p95_context_within_max_model_len_has_no_note(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                     "--vllm-version", "0.11.0", "--p95-context", "8192")
    assert rc == 0 and "--p95-context" not in out
