"""Odd ``plan`` options fail closed or say what was made of them (hostile6): a release newer than the capacity
model knows says what it was sized as (so does lint's image tag), a number with a part of more than three digits is
no release; a control character or a byte that is not UTF-8 in an option is echoed escaped, as lint's reports write
a file name; a catalog ``--base-model`` beside a ``--model`` the catalog knows itself is refused as unused."""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.report.text import visible_lines
from shardwise.rules.vllm.versions import CURRENT_RELEASE, parse_version, resolve

BASE = ("plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S")
NEWER = "newer than the newest release the capacity model knows: sized as 0.34.0"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_newest_known_release_is_the_one_the_notes_name():
    assert CURRENT_RELEASE == "0.34.0"  # the words below name it; a new row of the table moves both


def test_a_release_newer_than_the_table_says_it_is_sized_as_the_newest():
    assert resolve("0.99.0").note == f"vLLM 0.99.0, {NEWER}"
    assert resolve(None, "vllm/vllm-openai:v0.99.0").note == f"vLLM 0.99.0 from the image tag, {NEWER}"
    assert resolve("0.34.1").note == f"vLLM 0.34.1, {NEWER}"
    assert resolve("0.34.0").note == "vLLM 0.34.0"  # the newest known itself: no note
    assert resolve("0.33.1").note == "vLLM 0.33.1"  # older than the newest known: sized as its own row
    assert resolve(None, "vllm/vllm-openai:v0.11.0").note == "vLLM 0.11.0 from the image tag"
    assert resolve("0.99.0").behaviour == resolve("0.34.0").behaviour


@pytest.mark.parametrize("text", ["99999999999999999999.0.0", "0.1234.0", "0.11.1000", "1000.0", "0.11.0.1234"])
def test_a_part_of_more_than_three_digits_is_no_release(text):
    assert parse_version(text) is None


@pytest.mark.parametrize(("text", "parts"), [("0.10.1.1", (0, 10, 1, 1)), ("v0.8.5.post1", (0, 8, 5)),
                                             ("0.11.1.dev123+gabc", (0, 11, 1)), ("999.999.999", (999, 999, 999))])
def test_release_numbers_of_up_to_three_digits_a_part_still_parse(text, parts):
    v = parse_version(text)
    assert v is not None and v.parts == parts


def test_plan_with_an_absurd_release_is_an_error(capsys):
    rc, out, err = run(capsys, *BASE, "--vllm-version", "99999999999999999999.0.0")
    assert (rc, out) == (2, "")
    assert err == ("shardwise: error: --vllm-version '99999999999999999999.0.0' is not a vLLM release number "
                   "(e.g. 0.11.0)\n")


def test_plan_of_a_newer_release_says_so_in_text_and_json(capsys):
    rc, out, _ = run(capsys, *BASE, "--vllm-version", "0.99.0")
    assert rc == 0
    assert ("meta-llama/Llama-3.1-8B-Instruct on L40S (44.3 GiB), TP1 × PP1 = 1 GPU per engine; vLLM 0.99.0, "
            f"{NEWER} (V1 engine)\n") in out
    rc, out, _ = run(capsys, *BASE, "--vllm-version", "0.99.0", "--format", "json")
    assert rc == 0
    assert f'"vllm_version_note": "vLLM 0.99.0, {NEWER}"' in out


def test_lint_of_a_newer_image_tag_says_so_in_the_finding(tmp_path, capsys):
    (tmp_path / "d.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, namespace: s}\nspec:\n  replicas: 1\n"
        "  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.99.0\n"
        "          args: [--model, meta-llama/Llama-3.1-70B-Instruct]\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n", encoding="utf-8")
    rc, out, _ = run(capsys, "lint", str(tmp_path / "d.yaml"))
    assert rc == 1
    [sw101] = [ln for ln in out.splitlines() if " SW101 " in ln]
    assert f"vLLM will fail at start-up (vLLM 0.99.0 from the image tag, {NEWER}); spread the weights" in sw101
    assert sw101.endswith("or use a GPU with more memory (Deployment s/x)")


@pytest.mark.parametrize(("argv", "said"), [
    (("--quantization", "\x01"), "unknown --quantization '\\x01'; expected one of"),
    (("--quantization", "a\n::error::x"), "unknown --quantization 'a\\n::error::x'; expected one of"),
    (("--engine-arg", "\udcff=1"), "--engine-arg \\xff: the capacity model does not read --\\xff; it reads"),
    (("--engine-arg", "block-size=16", "--engine-arg", "block-size=\udcff"),
     "--engine-arg block-size is given twice ('16' and '\\xff')"),
    (("--env", "VLLM_USE_V1=\x1b[31m"), "--env VLLM_USE_V1=\\x1b[31m: a switch, 0 or 1"),
    (("--env", "VLLM_USE_V1=1", "--env", "VLLM_USE_V1=\x1b[31m"), "--env VLLM_USE_V1 is given twice ('1' and '\\x1b[31m')"),
    (("--gpu", "L40S,,\udcff"), "an empty name in the list 'L40S,,\\xff': give names separated by commas"),
])
def test_an_odd_character_in_an_option_is_echoed_escaped(capsys, argv, said):
    base = BASE[:-2] if argv[0] == "--gpu" else BASE  # one --gpu (given twice is a usage error of its own, fuzz16)
    rc, out, err = run(capsys, *base, *argv)
    assert (rc, out) == (2, "")
    assert err.startswith(f"shardwise: error: {said}")
    assert err.count("\n") == 1 and err.isascii()


@pytest.mark.parametrize(("option", "name", "said"), [
    ("--model", "acme/x\x1b[31m", "--model 'acme/x\\x1b[31m' is no model id: it holds a control character"),
    ("--model", "acme/x\udcffy", "--model 'acme/x\\xffy' is no model id: it holds a byte that is not UTF-8"),
    ("--base-model", "x\x85y", "--base-model 'x\\x85y' is no model id: it holds a control character"),
])
def test_a_model_id_with_a_control_character_or_a_byte_not_utf8_is_an_error(capsys, option, name, said):
    """Such an id was planned as a copy of the base model, its raw bytes in the plan; ``--emit manifest`` of a byte
    that is not UTF-8 ended in an internal error."""
    argv = ["plan", "--model", "acme/custom", "--base-model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]
    argv[argv.index(option) + 1] = name
    rc, out, err = run(capsys, *argv)
    assert (rc, out, err) == (2, "", f"shardwise: error: {said}\n")


def test_visible_lines_keeps_the_line_breaks_and_escapes_the_rest():
    assert visible_lines("a\x1b[31m\nb\udcff\n") == "a\\x1b[31m\nb\\xff\n"
    assert visible_lines("plain × text\n") == "plain × text\n"


def test_a_catalog_base_model_beside_a_catalog_model_is_refused_as_unused(capsys):
    """Before hostile6 the base model was read by nothing and the plan was the model's own, without a word."""
    rc, out, err = run(capsys, *BASE, "--base-model", "Qwen/Qwen2.5-7B-Instruct")
    assert (rc, out) == (2, "")
    assert err == ("shardwise: error: --base-model 'Qwen/Qwen2.5-7B-Instruct' is unused: the catalog knows "
                   "'meta-llama/Llama-3.1-8B-Instruct' itself and sizes its own entry; leave --base-model out\n")


def test_a_base_model_beside_a_model_the_catalog_lacks_is_still_used(capsys):
    rc, out, _ = run(capsys, "plan", "--model", "acme/Llama-3.1-8B-custom", "--gpu", "L40S",
                     "--base-model", "meta-llama/Llama-3.1-8B-Instruct", "--format", "json")
    assert rc == 0
    assert '"base_model": "meta-llama/Llama-3.1-8B-Instruct"' in out




def test_the_rule_of_thumb_says_it_is_judged_at_its_own_utilisation(capsys):
    """Qwen3-235B-A22B-FP8 at TP4 and 32,768 tokens on MI300X (vLLM's Qwen3 recipe, plan case
    qwen3-235b-fp8-mi300x-tp4). At --gpu-memory-utilization 0.8 the sizing uses 0.8 × 191.98 = 153.58 GiB, and the
    weights × 1.4 line the seeds' gpus_needed at its own 0.9 (192 GB × 0.9 = 172.8 GB: 2 GPUs, where 0.8's 153.6 GB
    would give 4): the line says so. At the release's default 0.9 the two agree and the line adds nothing (and TP2
    keeps the reserve there, so SW104 blocks TP4: exit 1)."""
    argv = ("plan", "--model", "Qwen/Qwen3-235B-A22B-FP8", "--gpu", "MI300X", "--vllm-version", "0.14.1", "--tp", "4",
            "--max-model-len", "32768")
    rule = ("GPUs for weights × 1.4      2 GPUs: the weights × 1.4 (room for a KV cache) are 330.9 GB against 172.8 GB "
            "usable per GPU{}, rounded up to a power of two (a rule of thumb; the sizing above decides)")
    for extra, usable, said, code in (
            (("--gpu-memory-utilization", "0.8"), "153.58 GiB (0.8 × 191.98)",
             " (the rule's 0.9 of the GPU, not the 0.8 sized above)", 0),
            ((), "172.78 GiB (0.9 × 191.98)", "", 1)):
        rc, out, _ = run(capsys, *argv, *extra)
        lines = [line.strip() for line in out.splitlines()]
        assert rc == code
        assert [line for line in lines if line.startswith("usable per GPU")] == [f"usable per GPU              {usable}"]
        assert [line for line in lines if line.startswith("GPUs for weights")] == [rule.format(said)]
