"""Round catalog22: NomicBERT's weights as vLLM allocates them (``bert_with_rope.py``'s ``NomicBertModel``, with the
keys ``NomicBertModelConfig`` maps: ``n_embd``, ``n_inner``, ``n_layer``, one bias flag, ``swiglu`` gated or ``gelu``
plain, ``NomicMoE`` on every ``moe_every_n_layers``-th layer; read in the 0.11.1, 0.18.0, 0.29.0 and 0.34.0 wheels).

The configs: nomic-ai/nomic-embed-text-v1.5 and nomic-ai/nomic-embed-text-v2-moe as public code restates their
config.json (their own files were not found as text: the GPT-2 style keys, 768 wide, 12 layers, 3,072 inner; v1.5
``swiglu`` without biases, 30,528 tokens, two token types; v2-moe ``gelu`` with biases, 250,048 tokens, one token
type, 8 experts on every second layer). The check is the Hub's safetensors parameter count, which public files quote
for both (136,731,648 F32 for v1.5; 475,292,928 for v2-moe): the checkpoint's tensors, which ``padded=False`` counts,
match it to the parameter. Every other number is worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shardwise.rules.capacity import encoder

DATA = Path(__file__).resolve().parents[1] / "catalog" / "data" / "catalog22"

#: nomic-embed-text-v1.5's config.json as public code restates it (tests/catalog/data/catalog22/README.md)
NOMIC_V15: dict[str, Any] = json.loads((DATA / "nomic-embed-text-v1.5_config.json").read_text())
NOMIC_V2_MOE: dict[str, Any] = {
    **NOMIC_V15, "vocab_size": 250048, "n_positions": 2048, "type_vocab_size": 1, "activation_function": "gelu",
    "qkv_proj_bias": True, "mlp_fc1_bias": True, "mlp_fc2_bias": True, "num_experts": 8, "moe_top_k": 2,
    "moe_every_n_layers": 2, "rotary_emb_base": 10000, "layer_norm_epsilon": 1e-5,
}
RELEASES = [(0, 11, 1), (0, 18, 0), (0, 29, 0), (0, 34, 0)]


@pytest.mark.parametrize("release", RELEASES)
def test_nomic_embed_text_v1_5(release: tuple[int, int, int]) -> None:
    # the checkpoint: words 30,528 x 768 = 23,445,504; token types 2 x 768 = 1,536; embedding LayerNorm 1,536;
    #   a layer: QKV 768 x 2,304 = 1,769,472, output 589,824, fc11 + fc12 (gated) 2 x 3,072 x 768 = 4,718,592,
    #   fc2 2,359,296, two LayerNorms 3,072 = 9,440,256; x 12 = 113,283,072: 136,731,648, the Hub's F32 count
    assert encoder.params(NOMIC_V15, release, padded=False) == (136_731_648, 0)
    # vLLM pads the token types to 64 rows: + 62 x 768 = 47,616
    assert encoder.params(NOMIC_V15, release) == (136_779_264, 0)
    # float32 checkpoint, --dtype auto: float16, 273,558,528 bytes (0.25 GiB)
    assert encoder.weights_bytes(NOMIC_V15, release) == 273_558_528


def test_nomic_embed_text_v2_moe_puts_experts_on_the_odd_layers() -> None:
    # words 250,048 x 768 = 192,036,864; one token type 768; LayerNorm 1,536: 192,039,168
    # every layer: QKV and output with biases 4 x 768^2 + 4 x 768 = 2,362,368, LayerNorms 3,072: x 12 = 28,385,280
    # layers 0, 2, ..., 10 (plain gelu MLP with biases): 2 x 768 x 3,072 + 3,072 + 768 = 4,722,432; x 6 = 28,334,592
    # layers 1, 3, ..., 11 (NomicMoE): router 768 x 8 = 6,144, w1 and w2 2 x 8 x 3,072 x 768 = 37,748,736, bias 768
    #   = 37,755,648; x 6 = 226,533,888. Sum 475,292,928: the Hub's count
    assert encoder.params(NOMIC_V2_MOE, (0, 29, 0), padded=False) == (475_292_928, 0)
    # the token type padded to 64 rows: + 63 x 768 = 48,384
    assert encoder.params(NOMIC_V2_MOE, (0, 29, 0)) == (475_341_312, 0)
    assert encoder.weights_bytes(NOMIC_V2_MOE, (0, 29, 0)) == 950_682_624  # 0.89 GiB in float16
    # every layer dense (no experts named): 12 x (2,365,440 + 4,722,432) + 192,039,168
    dense = {k: v for k, v in NOMIC_V2_MOE.items() if k not in ("num_experts", "moe_every_n_layers", "moe_top_k")}
    assert encoder.params(dense, (0, 29, 0), padded=False) == (277_093_632, 0)


def test_what_vllm_asserts_or_a_missing_key_is_not_counted() -> None:
    with pytest.raises(encoder.EncoderShapeError, match="qkv_proj_bias, mlp_fc1_bias and mlp_fc2_bias differ"):
        encoder.params({**NOMIC_V15, "mlp_fc2_bias": True}, (0, 29, 0))
    with pytest.raises(encoder.EncoderShapeError, match="activation_function 'geglu' is not one vLLM builds"):
        encoder.params({**NOMIC_V15, "activation_function": "geglu"}, (0, 29, 0))
    # a remote-code class's default is not read: the key must be in the config.json
    for key in ("n_inner", "qkv_proj_bias", "type_vocab_size"):
        with pytest.raises(encoder.EncoderShapeError, match=f"no usable '{key}'"):
            encoder.params({k: v for k, v in NOMIC_V15.items() if k != key}, (0, 29, 0))
    with pytest.raises(encoder.EncoderShapeError, match="names num_experts but no moe_every_n_layers"):
        encoder.params({k: v for k, v in NOMIC_V2_MOE.items() if k != "moe_every_n_layers"}, (0, 29, 0))
    # the transformers-native layout (hidden_size, ...) is not what NomicBertModelConfig reads
    native = {k: v for k, v in NOMIC_V15.items() if k not in ("n_embd", "n_inner", "n_layer")}
    with pytest.raises(encoder.EncoderShapeError, match="no usable 'n_embd'"):
        encoder.params({**native, "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12}, (0, 29, 0))


@pytest.mark.parametrize("arch", ["NomicBertModel", "GteModel", "GteNewModel", "GteNewForSequenceClassification"])
def test_the_length_of_a_rotary_encoder_is_not_read(arch: str) -> None:
    # 0.11.1 and 0.18.0 reset NomicBERT's length to max_trained_positions (2,048) where none was given, 0.29.0 does
    # not; BERT's rule (the smallest length key: n_positions 8,192 here) is not vLLM's for it
    with pytest.raises(encoder.EncoderShapeError, match=f"the length vLLM derives for {arch} is not read"):
        encoder.max_len({**NOMIC_V15, "architectures": [arch]})


def test_gte_weights_are_not_counted() -> None:
    gte = {"architectures": ["GteNewModel"], "model_type": "new", "hidden_size": 768, "intermediate_size": 3072,
           "num_hidden_layers": 12, "vocab_size": 30528, "type_vocab_size": 0, "hidden_act": "gelu"}
    with pytest.raises(encoder.EncoderShapeError, match="GteNewModel is not an encoder whose weights are modelled"):
        encoder.params(gte, (0, 29, 0))


@pytest.mark.parametrize(("release", "limit"), [((0, 11, 1), 2048), ((0, 15, 0), 2048), ((0, 18, 0), 2048),
                                                 ((0, 21, 0), 2048), ((0, 22, 0), None), ((0, 29, 0), None)])
def test_the_length_a_given_max_model_len_is_held_to(release: tuple[int, int, int], limit: int | None) -> None:
    # 0.11.1: max_position_embeddings := max_trained_positions, then the smallest length key (n_positions 8,192,
    # 2,048): 2,048; 0.18.0 - 0.21.0: max_trained_positions itself; 0.12 - 0.17 (not read): where both agree
    assert encoder.nomic_given_limit(NOMIC_V15, release) == limit


def test_the_held_length_where_the_rules_differ_or_a_key_is_missing() -> None:
    short = {**NOMIC_V15, "n_positions": 1024}  # the smallest key below max_trained_positions
    assert encoder.nomic_given_limit(short, (0, 11, 1)) == 1024
    assert encoder.nomic_given_limit(short, (0, 18, 0)) == 2048
    assert encoder.nomic_given_limit(short, (0, 15, 0)) is None
    # no max_trained_positions in the config.json (the remote class's default is not read), a RoPE factor, gte
    assert encoder.nomic_given_limit({k: v for k, v in NOMIC_V15.items() if k != "max_trained_positions"},
                                     (0, 20, 0)) is None
    assert encoder.nomic_given_limit({**NOMIC_V15, "rope_parameters": {"rope_type": "dynamic", "factor": 2.0}},
                                     (0, 20, 0)) is None
    assert encoder.nomic_given_limit({**NOMIC_V15, "rope_parameters": {"rope_type": "default", "rope_theta": 1000.0}},
                                     (0, 20, 0)) == 2048
    assert encoder.nomic_given_limit({**NOMIC_V15, "architectures": ["GteNewModel"]}, (0, 20, 0)) is None
