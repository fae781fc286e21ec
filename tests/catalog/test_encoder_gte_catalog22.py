"""Alibaba-NLP's remote-code gte encoders are encoder-only, not decoders (issue 28, round catalog22).

gte-base-en-v1.5, gte-large-en-v1.5, gte-multilingual-base and gte-multilingual-reranker-base publish a config.json of
``model_type`` ``new`` (Alibaba-NLP/new-impl's ``NewConfig``) naming ``NewModel`` / ``NewForSequenceClassification``,
which vLLM's registry does not map: vLLM's own tests serve them as ``GteNewModel`` / ``GteNewForSequenceClassification``
with ``hf_overrides={"architectures": ["GteNewModel"]}`` and ``attn_type="encoder_only"``
(tests/models/language/pooling_mteb_test/test_gte.py), and without the override the Transformers backend runs the
remote code with ``EncoderOnlyAttention`` for its non-causal layers (model_executor/models/transformers/base.py,
0.29.0). An encoder either way: no KV cache. Before, such a config.json was sized as a decoder: ``plan`` charged
gte-multilingual-base 36,864 KV bytes a token and 516,288 KV tokens on an L4 at a 65,536-token length (its
``rope_scaling`` ntk x 8 over 8,192 read as a decoder's), and lint blocked a ``--max-model-len`` 131,072 with SW102
(mandatory) on that derived limit, which is not what vLLM derives for it (not read). Now it is the encoder-only
family: SW004 (undecided, its weights not judged: ``GteNewModel`` is not counted, its bias comes from a remote-code
class that was not read) and ``plan`` refuses it. The config.json is gte-multilingual-base's as public code restates
it (data/catalog22/README.md; the published file was not found as text).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.plan import PlanError, load_model
from shardwise.rules.catalog import unsized

DATA = Path(__file__).parent / "data" / "catalog22"
WHY = ("is an encoder-only model (BERT / RoBERTa / XLM-R / gte / nomic-bert / ModernBERT), which shardwise does not "
       "size yet: vLLM runs it with the pooling runner and builds its attention as EncoderOnlyAttention, whose "
       "get_kv_cache_spec returns None (vllm/attention/layers/encoder_only_attention.py, 0.11.1; "
       "model_executor/layers/attention/, 0.18.0 and 0.29.0): it keeps no KV cache, so no KV budget or KV capacity "
       "bounds it, and its length is sentence_bert_config.json's max_seq_length where the checkpoint has one "
       "(_get_and_verify_max_len's encoder_config), not max_position_embeddings; the capacity model has no shape "
       "without a KV cache yet, and sized as a decoder it would charge one")
NOT_JUDGED = ("its weights were not judged: NewModel is not an encoder whose weights are modelled (BertModel, "
              "RobertaModel, XLMRobertaModel, BgeM3EmbeddingModel, ModernBertModel, NomicBertModel)")
PEAK = ("the pooling runner's profile peak (a dummy run over max_num_batched_tokens, then the pooler once per task) is "
        "not modelled")


def _repo(tmp_path: Path) -> Path:
    folder = tmp_path / "models" / "gte-multilingual-base"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "gte-multilingual-base_config.json", folder / "config.json")
    return folder / "config.json"


def _sw(found):
    return sorted((f.code, f.level) for f in found if f.code.startswith(("SW0", "SW1", "SW2")))


def test_a_gte_new_model_is_an_encoder_not_a_decoder(tmp_path: Path):
    _repo(tmp_path)
    found = lint(tmp_path, deployment("./models/gte-multilingual-base", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling, --max-model-len, '131072'"))
    # before: SW102 mandatory, "max_model_len 131,072 is above the 65,536 tokens gte-multilingual-base allows"
    assert _sw(found) == [("SW004", "advisory")]
    (f,) = [f for f in found if f.code == "SW004"]
    assert f.undecided
    assert f.message == (f"shardwise does not know the model: './models/gte-multilingual-base' {WHY}; {NOT_JUDGED}; "
                         f"{PEAK}, so whether it starts is not decided; SW104, SW106, SW203 could not run on it")


def test_plan_refuses_it(tmp_path: Path):
    config = _repo(tmp_path)
    with pytest.raises(PlanError) as e:
        load_model(str(config), None, "0.29.0")
    assert str(e.value) == f"cannot size it: {str(config)!r} {WHY}; {NOT_JUDGED}; {PEAK}, so plan gives no layout"


@pytest.mark.parametrize("arch", [["NewModel"], ["NewForSequenceClassification"], []])
def test_the_new_model_type_is_the_encoder_family_whatever_it_names(arch: list[str]):
    cfg = {"model_type": "new", "architectures": arch} if arch else {"model_type": "new"}
    assert unsized.family_of_config(cfg) == (unsized.ENCODER_ONLY, unsized._ENCODER_ONLY_WHY)
    # another unmapped architecture of a known transformers model_type is still not read as an encoder
    assert unsized.family_of_config({"model_type": "bert", "architectures": ["SomethingElse"]}) is None
