"""Round catalog20: what vLLM allocates for an encoder-only embedder, the dtype it loads it in and the length it
derives (:mod:`shardwise.rules.capacity.encoder`; read in the 0.11.1, 0.18.0 and 0.29.0 wheels, and 0.21.0, 0.31.0
and 0.34.0 for BERT's and RoBERTa's embeddings).

The configs: the bge-m3 fine-tune's config.json of vllm#25865 (an ``XLMRobertaModel`` of BGE-M3's shape, vendored by
catalog19 in tests/catalog/data/catalog19 with its source); BERT base as transformers' ``BertConfig`` defaults
(huggingface/transformers 008f5c8c, ``src/transformers/models/bert/configuration_bert.py``: the
google-bert/bert-base-uncased architecture, which BERT-base embedders such as bge-base and e5-base build on; their own
config.json were not vendored); ModernBERT-base as transformers' ``ModernBertConfig`` defaults (001f85b3,
``src/transformers/models/modernbert/configuration_modernbert.py``: answerdotai/ModernBERT-base, which gte-modernbert
fine-tunes; its config.json was not vendored either). Every expected number is worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shardwise.rules.capacity import encoder

DATA = Path(__file__).resolve().parents[1] / "catalog" / "data" / "catalog19"


def _bge_m3() -> dict[str, Any]:
    cfg: dict[str, Any] = json.loads((DATA / "bge-m3-korean_config.json").read_text())
    return cfg


#: transformers' BertConfig defaults (bert-base-uncased), as a checkpoint's config.json names them
BERT_BASE: dict[str, Any] = {
    "architectures": ["BertModel"], "model_type": "bert", "vocab_size": 30522, "hidden_size": 768,
    "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
    "type_vocab_size": 2, "position_embedding_type": "absolute", "torch_dtype": "float32",
}
#: transformers' ModernBertConfig defaults (ModernBERT-base); its biases default to False and it names no
#: position_embedding_type
MODERNBERT_BASE: dict[str, Any] = {
    "architectures": ["ModernBertModel"], "model_type": "modernbert", "vocab_size": 50368, "hidden_size": 768,
    "intermediate_size": 1152, "num_hidden_layers": 22, "num_attention_heads": 12, "max_position_embeddings": 8192,
    "torch_dtype": "float32",
}


V0_29 = (0, 29, 0)


def test_bge_m3_weights_as_vllm_allocates_them() -> None:
    # 0.29.0 pads every embedding to 64 rows: 250,002 -> 250,048, 8,194 -> 8,256, 1 -> 64; 258,368 x 1,024 +
    #   LayerNorm 2,048 = 264,570,880; a layer: QKV 3 x 1,024^2 + 3,072, output 1,024^2 + 1,024, LayerNorm 2,048,
    #   intermediate 1,024 x 4,096 + 4,096, output 4,096 x 1,024 + 1,024, LayerNorm 2,048 = 12,596,224; x 24 =
    #   302,309,376
    cfg = _bge_m3()
    assert encoder.params(cfg, V0_29) == (566_880_256, 0)
    # the checkpoint's rows (258,197 x 1,024 + 2,048) without the pooler vLLM skips
    assert encoder.params(cfg, V0_29, padded=False) == (566_705_152, 0)
    # a float32 checkpoint under --dtype auto: the pooling model's float16
    assert encoder.dtype(cfg) == "float16"
    assert encoder.weights_bytes(cfg, V0_29) == 1_133_760_512  # 1.056 GiB
    assert encoder.weights_bytes(cfg, V0_29, "float32") == 2_267_521_024


@pytest.mark.parametrize("release", [(0, 11, 1), (0, 18, 0), (0, 21, 0)])
def test_roberta_positions_and_token_types_are_unpadded_before_0_29(release: tuple[int, int, int]) -> None:
    # nn.Embedding: 250,048 + 8,194 + 1 = 258,243 rows x 1,024 + 2,048 = 264,442,880; + 302,309,376
    assert encoder.params(_bge_m3(), release) == (566_752_256, 0)
    assert encoder.weights_bytes(_bge_m3(), release) == 1_133_504_512


def test_releases_not_read_say_so() -> None:
    with pytest.raises(encoder.EncoderShapeError, match=r"vLLM 0\.25\.0's RobertaEmbedding was not read"):
        encoder.params(_bge_m3(), (0, 25, 0))
    with pytest.raises(encoder.EncoderShapeError, match=r"vLLM 0\.10\.2's XLMRobertaModel was not read"):
        encoder.params(_bge_m3(), (0, 10, 2))
    with pytest.raises(encoder.EncoderShapeError, match=r"vLLM 0\.11\.1 has no BgeM3EmbeddingModel"):
        encoder.params(dict(_bge_m3(), architectures=["BgeM3EmbeddingModel"]), (0, 11, 1))


def test_bge_m3_embedding_model_adds_its_sparse_and_colbert_linears_in_float32() -> None:
    # --hf-overrides '{"architectures": ["BgeM3EmbeddingModel"]}': sparse_linear 1,024 + 1, colbert_linear
    # 1,024^2 + 1,024 = 1,050,625 parameters in the pooling head's float32
    cfg = dict(_bge_m3(), architectures=["BgeM3EmbeddingModel"])
    assert encoder.params(cfg, V0_29) == (566_880_256, 1_050_625)
    assert encoder.weights_bytes(cfg, V0_29) == 1_133_760_512 + 4 * 1_050_625
    assert encoder.params(cfg, (0, 18, 0)) == (566_752_256, 1_050_625)


def test_bge_m3_length_from_its_config_its_tokenizer_and_sentence_bert_config() -> None:
    cfg = _bge_m3()
    assert encoder.max_len(cfg) == 8194  # max_position_embeddings: no RoBERTa padding offset subtracted
    assert encoder.max_len(cfg, tokenizer_config={"model_max_length": 8192}) == 8192
    # sentence_bert_config.json replaces the derived length, up or down (vllm#25865's fine-tune: 512)
    assert encoder.max_len(cfg, {"max_seq_length": 512, "do_lower_case": False}) == 512
    assert encoder.max_len(cfg, {"max_seq_length": 8192, "do_lower_case": False},
                           {"model_max_length": 1_000_000_000_000_000_019_884_624_838_656}) == 8192
    # a sentence_bert_config.json without do_lower_case is not read (get_sentence_transformer_tokenizer_config)
    assert encoder.max_len(cfg, {"max_seq_length": 512}) == 8194


def test_bert_base_weights_dtype_and_length() -> None:
    # rows: 30,522 -> 30,528, 512, 2 -> 64: 31,104 x 768 + 1,536 = 23,889,408; a layer 4 x 768^2 + 2 x 768 x 3,072
    #   + 9 x 768 + 3,072 = 7,087,872; x 12 = 85,054,464
    for release in ((0, 11, 1), (0, 18, 0), V0_29, (0, 34, 0)):  # BertEmbedding pads all three on every release read
        assert encoder.params(BERT_BASE, release) == (108_943_872, 0)
    # bert-base-uncased's 109,482,240 less its pooler (768^2 + 768 = 590,592), unpadded
    assert encoder.params(BERT_BASE, V0_29, padded=False) == (108_891_648, 0)
    assert encoder.weights_bytes(BERT_BASE, V0_29) == 217_887_744
    assert encoder.weights_bytes(BERT_BASE, V0_29, "float") == 435_775_488
    assert encoder.max_len(BERT_BASE) == 512
    assert encoder.max_len(BERT_BASE, tokenizer_config={"model_max_length": 256}) == 256


def test_modernbert_base_weights_and_length() -> None:
    # 50,368 x 768 = 38,682,624 (already a multiple of 64); a layer 4 x 768^2 + 3 x 768 x 1,152 + two bias-free
    #   LayerNorms 1,536 = 5,015,040; x 22 = 110,330,880; the embeddings' and the final LayerNorm, less the first
    #   layer's attention LayerNorm (nn.Identity): + 768
    assert encoder.params(MODERNBERT_BASE, V0_29) == (149_014_272, 0)
    assert encoder.weights_bytes(MODERNBERT_BASE, V0_29) == 298_028_544
    # no position_embedding_type: tokenizer_config.json's model_max_length is not read
    assert encoder.max_len(MODERNBERT_BASE, tokenizer_config={"model_max_length": 512}) == 8192
    with_biases = dict(MODERNBERT_BASE, norm_bias=True, attention_bias=True, mlp_bias=True)
    # + 768 per LayerNorm (2 x 22 - 1 + 2 = 45), + 4 x 768 attention and 2 x 1,152 + 768 MLP biases a layer
    assert encoder.params(with_biases, V0_29)[0] == 149_014_272 + 45 * 768 + 22 * (4 * 768 + 2 * 1152 + 768)


@pytest.mark.parametrize(("stored", "flag", "loaded"), [
    ("float32", "auto", "float16"), (None, "auto", "float16"), ("bfloat16", "auto", "bfloat16"),
    ("float16", "auto", "float16"), ("float32", "bfloat16", "bfloat16"), ("bfloat16", "half", "float16"),
    ("float16", "float32", "float32"),
])
def test_the_dtype_vllm_loads_a_pooling_model_in(stored: str | None, flag: str, loaded: str) -> None:
    cfg = dict(BERT_BASE)
    if stored is None:
        del cfg["torch_dtype"]
    else:
        cfg["torch_dtype"] = stored
    assert encoder.dtype(cfg, flag) == loaded


def test_what_is_not_modelled_says_so() -> None:
    # NomicBertModel is counted from catalog22 (test_encoder_nomic_catalog22.py); gte's GteNewModel is not
    with pytest.raises(encoder.EncoderShapeError, match="GteNewModel is not an encoder whose weights"):
        encoder.params({"architectures": ["GteNewModel"], "hidden_size": 768}, V0_29)
    with pytest.raises(encoder.EncoderShapeError, match="no usable 'intermediate_size'"):
        encoder.params({k: v for k, v in BERT_BASE.items() if k != "intermediate_size"}, V0_29)
    with pytest.raises(encoder.EncoderShapeError, match="--dtype 'fp8' is not one vLLM takes"):
        encoder.dtype(BERT_BASE, "fp8")
    with pytest.raises(encoder.EncoderShapeError, match="no length key"):
        encoder.max_len({"architectures": ["BertModel"]})
