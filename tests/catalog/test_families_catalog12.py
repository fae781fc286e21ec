"""Qwen2-Audio in the catalog (issue 28, catalog12).

Qwen/Qwen2-Audio-7B-Instruct (``Qwen2AudioForConditionalGeneration``) is served by a public manifest of the wide
corpus (kubernetes-sigs/inference-perf's audio case) that was undecided for want of the model. Its config.json is
``Qwen2AudioConfig`` written sparse: an ``audio_config`` (``qwen2_audio_encoder``: d_model 1280, 20 heads, FFN 5120,
32 layers, 128 mel bins, 1,500 source positions) and a ``text_config`` that states only what differs from
transformers' ``Qwen2Config`` (FFN 11008, 8,192 positions, rope_theta 10000, vocabulary 156032), as third-party
reproductions quote it (a weak citation, labelled so in the record). vLLM (``model_executor/models/qwen2_audio.py``)
builds transformers' ``Qwen2AudioEncoder`` and an ``nn.Linear`` projector (1280 -> text hidden, with bias): plain
modules, whole on every tensor-parallel rank, never quantised.
"""

from __future__ import annotations

import pytest
from family_manifest import deployment, lint
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import transformers_tower_params, weights_bytes
from shardwise.rules.catalog import CatalogError, derive_params, find_model, shape_from_config
from shardwise.rules.catalog.hfconfig import derive_vision_params
from shardwise.rules.vllm import kv_layout

AUDIO = "Qwen/Qwen2-Audio-7B-Instruct"
H, V, D, F = 4096, 156_032, 1280, 5120

# the decoder: untied embeddings and head, 32 layers of q/k/v with biases and o, a gated MLP of 11,008, two norms
_DECODER = 2 * V * H + 32 * (3 * (H * H + H) + H * H + 3 * H * 11_008 + 2 * H) + H
# Whisper's encoder: two convolutions with biases, a learned 1,500 x d table, 32 layers, the final LayerNorm
_ENCODER = (128 * D * 3 + D + D * D * 3 + D) + 1500 * D + 32 * (4 * D * D + 3 * D + 4 * D + 2 * D * F + F + D) + 2 * D
_PROJECTOR = D * H + H


def _published_config() -> dict[str, object]:
    """Qwen2-Audio-7B-Instruct's config.json as written: only the keys that differ from the defaults."""
    return {
        "architectures": ["Qwen2AudioForConditionalGeneration"], "model_type": "qwen2_audio",
        "audio_token_index": 151_646, "vocab_size": V,
        "audio_config": {"model_type": "qwen2_audio_encoder", "num_mel_bins": 128, "encoder_layers": 32,
                         "encoder_attention_heads": 20, "encoder_ffn_dim": F, "d_model": D,
                         "activation_function": "gelu", "scale_embedding": False, "max_source_positions": 1500},
        "text_config": {"bos_token_id": 151_643, "eos_token_id": 151_645, "intermediate_size": 11_008,
                        "max_position_embeddings": 8192, "model_type": "qwen2", "rope_theta": 10_000,
                        "rms_norm_eps": 1e-5, "sliding_window": 32_768, "torch_dtype": "bfloat16",
                        "use_mrope": False, "vocab_size": V},
    }


def test_qwen2_audio_params_are_its_decoder_tower_and_projector():
    assert (_DECODER, _ENCODER, _PROJECTOR) == (7_754_878_976, 636_968_960, 5_246_976)
    m = find_model(AUDIO)
    assert (m.params, m.vision_params) == (_DECODER + _ENCODER + _PROJECTOR, _ENCODER + _PROJECTOR)
    assert (m.params, m.vision_params) == (8_397_094_912, 642_215_936)
    assert (m.num_hidden_layers, m.hidden_size, m.num_attention_heads, m.num_key_value_heads, m.head_dim,
            m.vocab_size, m.max_position_embeddings, m.tie_word_embeddings) == (32, H, 32, 32, 128, V, 8192, False)
    base = find_model("Qwen/Qwen2-Audio-7B")
    assert (base.params, base.vision_params, base.max_position_embeddings) == (8_397_094_912, 642_215_936, 8192)


def test_qwen2_audio_caches_32_kv_heads_on_32_layers():
    m = find_model(AUDIO)
    # 2 x 32 KV heads x 128 x 2 bytes a layer: 524,288 bytes a token at TP1, split by TP (32 heads go 32 ways)
    for tp, per_layer in ((1, 16_384), (2, 8192), (4, 4096), (8, 2048)):
        (full,) = kv_layout.layout(m, tp, 1, 2).types
        assert (full.kind, full.layers, full.bytes_per_token) == ("full", 32, per_layer)
    assert 32 * 16_384 == 524_288


def test_qwen2_audio_holds_its_tower_whole_on_every_rank():
    m = find_model(AUDIO)
    assert transformers_tower_params(m) == 642_215_936
    assert weights_bytes(m, "bf16", None) == 2 * 8_397_094_912
    rotary = 8192 * 128 * 2  # cos / sin cache of 8,192 positions, 16-bit
    one = sizing.size_replica(m, 79.19, tp=1, gpu_memory_utilization=0.9, max_model_len=8192, vllm_version="0.10.2")
    two = sizing.size_replica(m, 79.19, tp=2, gpu_memory_utilization=0.9, max_model_len=8192, vllm_version="0.10.2")
    assert one.weights_gib_per_gpu * 2**30 == pytest.approx(2 * 8_397_094_912 + rotary, rel=1e-12)
    # TP2 splits the decoder only: 7,754,878,976 bytes a rank and the 1,284,431,872-byte tower and projector whole
    assert two.weights_gib_per_gpu * 2**30 == pytest.approx(2 * _DECODER / 2 + 2 * 642_215_936 + rotary, rel=1e-12)
    assert (round(one.weights_gib_per_gpu, 2), round(two.weights_gib_per_gpu, 2)) == (15.64, 8.42)


def test_a_qwen2_audio_config_json_is_taught_as_the_record():
    config = _published_config()
    assert derive_vision_params(config) == 642_215_936
    assert derive_params(config) == 8_397_094_912
    taught, m = shape_from_config(config, model_id="acme/audio-support", source="config.json"), find_model(AUDIO)
    for field in ("params", "vision_params", "num_hidden_layers", "hidden_size", "num_attention_heads",
                  "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings",
                  "tie_word_embeddings", "precision"):
        assert getattr(taught, field) == getattr(m, field), field
    assert transformers_tower_params(taught) == 642_215_936
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(taught, 1, 1, 2).types] == [
        ("full", 32, 16_384)]


def test_a_sparse_text_config_without_the_composite_type_is_not_filled_in():
    # the Qwen2Config defaults fill a Qwen2-Audio text_config only: a bare qwen2 config.json missing its shape is
    # still an error, not a 7B read from defaults
    with pytest.raises(CatalogError):
        derive_params({"model_type": "qwen2", "intermediate_size": 11_008, "vocab_size": V})


def test_a_manifest_serving_qwen2_audio_is_decided(tmp_path):
    findings = lint(tmp_path, deployment(AUDIO, 1, instance="p5.4xlarge").replace('"32768"', '"8192"'))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], [f.message for f in mine]
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"]
