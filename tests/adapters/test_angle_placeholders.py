"""A tutorial's angle-bracket placeholders (``<TP_SIZE>``, ``"<gpu-count>"``, ``vllm serve <model-name>``) are values
its reader fills before applying the manifest: unknowns, never values read as written (corpus38).

AWS's and Red Hat's vLLM guides, and workshops that copy them, write ``--tensor-parallel-size=<TP_SIZE>`` and
``nvidia.com/gpu: "<gpu-count>"`` in manifests a user saves and lints as they are. Read as written, the GPU count
was an input error (the folder exited 2) and each flag's value was SW003's sure crash ("not an integer"): a block on
a placeholder. The fixture is tests/fixtures/rules/SW003/angle-placeholders.yaml (written in those guides' shape).
"""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.engine.runner import DECIDED_BY_FILLING, what_decides
from shardwise.rules.model import UNKNOWN, Location
from shardwise.rules.model.unknown import holds_placeholder, is_placeholder

FIXTURE = ROOT / "tests" / "fixtures" / "rules" / "SW003" / "angle-placeholders.yaml"


def test_angle_placeholders_are_unknowns_and_block_nothing():
    inv = load_inputs([str(FIXTURE)])
    engines = {g.name: g.engine for g in inv.groups}
    deployment, pod = engines["vllm-neuron"], engines["vllm-memory-probe"]
    assert (deployment.model, deployment.tensor_parallel_size, deployment.max_model_len, deployment.max_num_seqs) == (
        "/mnt/models/llama-3.1-8b", UNKNOWN, UNKNOWN, 4)  # a literal beside the placeholders is read as written
    assert (pod.model, pod.tensor_parallel_size, pod.max_model_len, pod.gpu_memory_utilization) == (
        UNKNOWN, UNKNOWN, UNKNOWN, 0.9)
    assert [c.gpus for g in inv.groups for c in g.containers] == [UNKNOWN, UNKNOWN]
    findings = run_rules(ALL_RULES, inv)
    assert [f for f in findings if f.level == "mandatory"] == []
    unknown_tp = ("cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference): "
                  + DECIDED_BY_FILLING)
    assert sorted((f.location.line, f.level, f.undecided, f.message) for f in findings if f.code == "SW204") == [
        (36, "advisory", True, unknown_tp), (57, "advisory", True, unknown_tp)]


def test_only_a_whole_angle_value_is_a_placeholder(tmp_path):
    for value in ("<GPU_COUNT>", "<gpu-count>", " <TP_SIZE> ", "<tokens for your longest transcript>"):
        assert is_placeholder(value) and holds_placeholder(value), value
    # text around the brackets, an HTML-like tag or a chat template's special token inside text: read as written
    for value in ("<4096", "len-<MAX>", "a<b>", "<|im_start|>", "</s>", "<>", "[INST] <s> x"):
        assert not is_placeholder(value), value
    lines = tmp_path / "lines.yaml"
    lines.write_text("- --max-model-len=<MAX_MODEL_LEN>\n  nvidia.com/gpu: \"<gpu-count>\"  # e.g. 2\n"
                     "args: [\"--model\", \"<MODEL_ID>\"]\n- --chat-template=<s>[INST]\n- --port=8000\n")
    decides = [what_decides(Location(str(lines), n)) for n in range(1, 6)]
    assert decides[:3] == [DECIDED_BY_FILLING] * 3
    assert DECIDED_BY_FILLING not in decides[3:]
