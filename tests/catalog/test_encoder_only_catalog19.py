"""Encoder-only embedders and cross-encoders are recognised and not sized as decoders (issue 28, catalog19).

vLLM runs BERT / RoBERTa / XLM-R / gte / nomic-bert / ModernBERT checkpoints with the pooling runner and builds their
attention as ``EncoderOnlyAttention``, whose ``get_kv_cache_spec`` returns None (read in the 0.11.1, 0.18.0 and
0.29.0 wheels): no KV cache, so no KV budget or capacity bounds them. Before this round a config.json of theirs given by
path was sized as a decoder: the bge-m3 fine-tune of vllm#25865 (tests/catalog/data/catalog19/README.md) was charged
196,608 KV bytes a token on an L4, "one replica holds 9 sequences of 8,194 tokens", and ``plan`` blocked PP2 with
SW104. The capacity model has no shape without a KV cache yet, so such a workload is undecided (SW004) with that
reason and ``plan`` refuses it; a decoder-based embedder (Qwen3-Embedding, e5-mistral, gte-Qwen2) is not this family.
What is lost with the sizing: the manifest below (``--max-model-len 32768``) was blocked by SW102 for asking more than
the config's 8,194 positions, which vLLM refuses too; that length check is withheld with the rest (left open).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.plan import PlanError, load_model
from shardwise.rules.catalog import unsized

DATA = Path(__file__).parent / "data" / "catalog19"
WHY = ("is an encoder-only model (BERT / RoBERTa / XLM-R / gte / nomic-bert / ModernBERT), which shardwise does not "
       "size yet: vLLM runs it with the pooling runner and builds its attention as EncoderOnlyAttention, whose "
       "get_kv_cache_spec returns None (vllm/attention/layers/encoder_only_attention.py, 0.11.1; "
       "model_executor/layers/attention/, 0.18.0 and 0.29.0): it keeps no KV cache, so no KV budget or KV capacity "
       "bounds it, and its length is sentence_bert_config.json's max_seq_length where the checkpoint has one "
       "(_get_and_verify_max_len's encoder_config), not max_position_embeddings; the capacity model has no shape "
       "without a KV cache yet, and sized as a decoder it would charge one")
HELD = "SW101, SW102, SW104, SW106, SW203 could not run on it"


def _with_config(tmp_path: Path) -> Path:
    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(DATA / "bge-m3-korean_config.json", folder / "config.json")
    return folder / "config.json"


def _sw_codes(findings):
    return sorted({f.code for f in findings if f.code.startswith(("SW0", "SW1", "SW2"))})


def test_a_config_json_is_not_sized_as_a_decoder(tmp_path: Path):
    _with_config(tmp_path)
    text = deployment("BAAI/bge-m3", 1, extra=", --runner, pooling").replace(
        "  namespace: llm\n", "  namespace: llm\n  annotations:\n    shardwise.dev/base-model: m/config.json\n")
    found = lint(tmp_path, text)
    assert _sw_codes(found) == ["SW004"]
    (f,) = [f for f in found if f.code == "SW004"]
    assert (f.level, f.undecided) == ("advisory", True)
    assert f.message == f"shardwise does not know the model: 'm/config.json' {WHY}; {HELD}"


@pytest.mark.parametrize("model", ["./models/bge-m3", "models/bge-m3/config.json"])
def test_a_model_path_in_the_repository_is_not_sized_either(tmp_path: Path, model: str):
    folder = tmp_path / "models" / "bge-m3"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "bge-m3-korean_config.json", folder / "config.json")
    found = lint(tmp_path, deployment(model, 1))
    assert _sw_codes(found) == ["SW004"]
    (f,) = [f for f in found if f.code == "SW004"]
    assert f.message == f"shardwise does not know the model: {model!r} {WHY}; {HELD}"


def test_plan_refuses_it(tmp_path: Path):
    config = _with_config(tmp_path)
    with pytest.raises(PlanError) as e:
        load_model(str(config), None, "0.29.0")
    assert str(e.value) == f"cannot size it: {str(config)!r} {WHY}"
    with pytest.raises(PlanError) as e:
        load_model(str(config.parent), None, None)
    assert str(e.value) == f"cannot size it: {str(config.parent)!r} {WHY}"


@pytest.mark.parametrize("arch", sorted(unsized.ENCODER_ONLY_ARCHITECTURES))
def test_every_encoder_architecture_of_the_registry(arch: str):
    assert unsized.family_of_config({"architectures": [arch]}) == (unsized.ENCODER_ONLY, unsized._ENCODER_ONLY_WHY)


def test_decoders_and_decoder_embedders_are_not_this_family():
    of = unsized.family_of_config
    # Qwen3-Embedding and gte-Qwen2 are Qwen decoders; e5-mistral-7b-instruct is a MistralModel; their attention keeps
    # a KV cache under the pooling runner, and the catalog sizes them
    assert of({"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]}) is None
    assert of({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}) is None
    assert of({"model_type": "mistral", "architectures": ["MistralModel"]}) is None
    assert of({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}) is None
    # the model_type is read only where a config names no architecture
    assert of({"model_type": "xlm-roberta"}) == (unsized.ENCODER_ONLY, unsized._ENCODER_ONLY_WHY)
    assert of({"model_type": "bert", "architectures": ["SomethingElse"]}) is None


def test_its_reason_names_no_missing_config_and_no_release_note():
    why = unsized.family_reason("m/config.json", {"architectures": ["BertModel"]})
    assert why == f"'m/config.json' {WHY}"
    assert "no published config.json" not in why
    assert unsized.is_reason(why) is False
