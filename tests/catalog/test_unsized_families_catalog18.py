"""MiniMax-M3, MiMo-V2 and Step-3.5 / 3.7 are recognised and not sized (issue 28, catalog18).

No published config.json was found for them (ai-dynamo/aiconfigurator's copies are flattened or curated: see
tests/catalog/data/catalog18/README.md), and vLLM builds attention whose KV cache the capacity model does not hold.
Before this round a config.json of theirs given by path was sized from its shapes: MiniMax-M3's (425,440,794,624
parameters derived) was blocked by SW101 at TP8 on p5.48xlarge ("needs 99.3 GiB (±2.3) of weights per GPU"), MiMo-V2-
Flash's 48 layers were laid out as 12 full and 36 chunked ones of 3,072 bytes a token (its ``attention_chunk_size``
read as Llama 4's; vLLM builds 9 full layers of 4 KV heads and 39 sliding ones of 8, K 192 and V 128) and passed, and
Step-3.7-Flash's passed with its sliding layers at the full layers' heads; by name, MiniMax-M3's SW004 said "did you
mean: MiniMaxAI/MiniMax-M2". Each is now undecided with what vLLM builds and what is missing, and ``plan`` refuses it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.plan import PlanError, load_model
from shardwise.rules.catalog import unsized

DATA = Path(__file__).parent / "data" / "catalog18"
MISSING = "no published config.json or parameter count was found in a source shardwise can cite"
M3 = ("is MiniMax-M3, which shardwise does not size yet: MiniMax Sparse Attention: vLLM (vllm/models/minimax_m3, "
      "0.29.0 - 0.34.0) caches an indexer key on each sparse layer beside the GQA K/V (an MLAAttentionSpec of one "
      f"head), a layout the capacity model does not hold; and {MISSING}")
MIMO = ("is MiMo-V2, which shardwise does not size yet: vLLM builds its full-attention layers with num_key_value_heads "
        "and its sliding-window layers (hybrid_layer_pattern) with swa_num_key_value_heads, K heads of head_dim and V "
        "heads of v_head_dim (mimo_v2_flash.py, 0.14.1; mimo_v2.py, 0.29.0): per-type KV heads and head sizes the "
        f"capacity model does not hold; and {MISSING}")
STEP = ("is Step-3.5 / Step-3.7, which shardwise does not size yet: vLLM (step3p5.py, 0.18.0 on) builds the layers of "
        "attention_other_setting's attention_type with that setting's heads, KV groups and head size and the others "
        f"with num_attention_groups: per-type KV heads the capacity model does not hold; and {MISSING}")
HELD = "SW101, SW102, SW104, SW106, SW203 could not run on it"
CASES = [
    ("MiniMaxAI/MiniMax-M3", "MiniMaxAI--MiniMax-M3", M3),
    ("XiaomiMiMo/MiMo-V2-Flash", "XiaomiMiMo--MiMo-V2-Flash", MIMO),
    ("stepfun-ai/Step-3.7-Flash", "stepfun-ai--Step-3.7-Flash", STEP),
]


def _sw_codes(findings):
    return sorted({f.code for f in findings if f.code.startswith(("SW0", "SW1", "SW2"))})


def _sw004(findings):
    (f,) = [f for f in findings if f.code == "SW004"]
    assert (f.level, f.undecided) == ("advisory", True)
    return f.message


def _with_config(tmp_path: Path, stem: str) -> Path:
    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(DATA / f"{stem}_config.json", folder / "config.json")
    return folder / "config.json"


@pytest.mark.parametrize(("name", "stem", "why"), CASES)
def test_by_name_is_undecided_with_the_reason_not_did_you_mean(tmp_path: Path, name: str, stem: str, why: str):
    found = lint(tmp_path, deployment(name, 8))
    assert _sw_codes(found) == ["SW004"]
    assert _sw004(found) == f"shardwise does not know the model: {name!r} {why}; {HELD}"


@pytest.mark.parametrize(("name", "stem", "why"), CASES)
def test_a_config_json_is_not_sized_from_its_shapes(tmp_path: Path, name: str, stem: str, why: str):
    # the regression: MiniMax-M3's was blocked by SW101 (99.3 GiB of derived weights a GPU at TP8), the others passed
    _with_config(tmp_path, stem)
    text = deployment(name, 8).replace(
        "  namespace: llm\n", "  namespace: llm\n  annotations:\n    shardwise.dev/base-model: m/config.json\n")
    found = lint(tmp_path, text)
    assert _sw_codes(found) == ["SW004"]
    assert not [f for f in found if f.level == "mandatory" and f.code.startswith("SW1")]
    assert _sw004(found) == f"shardwise does not know the model: {name!r} {why}; {HELD}"


@pytest.mark.parametrize(("name", "stem", "why"), CASES)
def test_plan_refuses_with_the_reason(tmp_path: Path, name: str, stem: str, why: str):
    with pytest.raises(PlanError) as e:
        load_model(name, None, "0.31.0")
    assert str(e.value) == f"cannot size it: {name!r} {why}"
    config = _with_config(tmp_path, stem)
    with pytest.raises(PlanError) as e:
        load_model(str(config), None, "0.31.0")
    assert str(e.value) == f"cannot size it: {str(config)!r} {why}"


@pytest.mark.parametrize(("name", "family"), [
    ("MiniMaxAI/MiniMax-M3", "MiniMax-M3"), ("nvidia/MiniMax-M3-NVFP4", "MiniMax-M3"),
    ("/models/MiniMax-M3/", "MiniMax-M3"), ("XiaomiMiMo/MiMo-V2-Flash", "MiMo-V2"),
    ("XiaomiMiMo/MiMo-V2.5-Pro", "MiMo-V2"), ("stepfun-ai/Step-3.7-Flash", "Step-3.5 / Step-3.7"),
    ("stepfun-ai/Step-3.5-Flash", "Step-3.5 / Step-3.7"), ("/models/Step-3.7-Flash-FP8", "Step-3.5 / Step-3.7"),
    # not these families: the catalog's MiniMax-M2.x, MiMo-7B (Qwen2-like), Step-3 (step3_text), a later M3.x whose
    # architecture is not sourced, a distilled student
    ("MiniMaxAI/MiniMax-M2.7", None), ("MiniMaxAI/MiniMax-M3.1", None), ("XiaomiMiMo/MiMo-7B-RL", None),
    ("stepfun-ai/step3", None), ("stepfun-ai/Step-3", None), ("acme/Qwen3-8B-distilled-from-MiMo-V2-Flash", None),
    ("acme/MiMo-V2-Flash-Distill-7B", None),
])
def test_names(name: str, family: str | None):
    found = unsized.family_of_name(name)
    assert (found[0] if found else None) == family


def test_configs_by_model_type_and_architecture():
    of = unsized.family_of_config
    assert of({"model_type": "minimax_m3_vl", "architectures": ["MiniMaxM3SparseForConditionalGeneration"]})[0] == (
        "MiniMax-M3")
    assert of({"architectures": ["MiMoV2ForCausalLM"]})[0] == "MiMo-V2"
    assert of({"model_type": "step3p7", "architectures": ["Step3p7ForConditionalGeneration"]})[0] == (
        "Step-3.5 / Step-3.7")
    assert of({"model_type": "minimax_m2", "architectures": ["MiniMaxM2ForCausalLM"]}) is None
    assert of({"model_type": "mimo", "architectures": ["MiMoForCausalLM"]}) is None
    assert of({"model_type": "step3_text", "architectures": ["Step3TextForCausalLM"]}) is None
    # no DeepSeek-V4 release note is added to these reasons: they do not depend on the release
    assert unsized.is_reason(unsized.family_reason("MiniMaxAI/MiniMax-M3")) is False
    assert unsized.family_reason("Qwen/Qwen3-8B") == ""
