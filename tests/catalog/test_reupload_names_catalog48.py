"""Re-upload names whose precision sits under an ``-MTP`` ending, and llm-compressor's ``-NVFP4A16`` (catalog48).

The names are those public manifests and notes serve (``find_string`` over the stored public corpus, 2026-12-05):
shawnw3i/Qwen3.6-27B-AWQ-MTP, shawnw3i/Qwen3.8-27B-AWQ-MTP (the wide corpus), twolven/Qwen3.8-27B-abliterated-AWQ-MTP,
huginnfork/Qwen3.8-27B-NVFP4A16, bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4A16, and a local copy named
``Qwen3.6-27B-...-MTP-NVFP4A16`` (the decoration before the precision). ``-MTP`` says the re-upload keeps the
multi-token-prediction layers a quantiser drops; it states nothing of the precision. ``NVFP4A16`` is the preset of
compressed-tensors (``quantization/quant_scheme.py``: float 4-bit weights, ``tensor_group`` strategy, groups of 16,
no activation quantisation) and the output name llm-compressor's examples give. Intel's ``-int4-mixed-AutoRound``
checkpoints keep some layers at 8 or 16 bits, which one precision cannot state: they stay unknown by name.
"""

from __future__ import annotations

import pytest
from shardwise.rules.capacity.weights import checkpoint_precision, weights_bytes
from shardwise.rules.catalog import CatalogError, find_model
from shardwise.rules.catalog.hfconfig import quant_from_config
from shardwise.rules.catalog.lookup import resolve_precision_from_name, states_no_width


@pytest.mark.parametrize(("model_id", "expected"), [
    ("shawnw3i/Qwen3.8-27B-AWQ-MTP", ("int4", "awq")),
    ("twolven/Qwen3.8-27B-abliterated-AWQ-MTP", ("int4", "awq")),
    ("huginnfork/Qwen3.8-27B-NVFP4A16", ("nvfp4", "compressed-tensors")),
    ("Qwen3.6-27B-Fable-Fusion-711-Uncensored-Heretic-NM-DAU-MTP-NVFP4A16", ("nvfp4", "compressed-tensors")),
    ("nvidia/Llama-3.3-70B-Instruct-NVFP4", ("nvfp4", "modelopt")),  # unchanged: ModelOpt's own name
    # an -MTP ending with no precision under it states none; nor does a mixed-width AutoRound checkpoint's name
    ("Qwen/Qwen3.6-27B-MTP", None),
    ("Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound", None),
    ("MTP", None),
    ("AWQ-MTP", None),
])
def test_the_precision_under_an_mtp_ending(model_id, expected):
    assert resolve_precision_from_name(model_id) == expected


@pytest.mark.parametrize(("model_id", "base", "precision", "method", "weights"), [
    # the 4-bit AWQ defaults (group 128 with zero points: 0.5195 bytes a weight), as the AWQ name alone gave
    ("shawnw3i/Qwen3.8-27B-AWQ-MTP", "Qwen/Qwen3.8-27B", "int4", "awq", 18_659_303_094),
    ("shawnw3i/Qwen3.6-27B-AWQ-MTP", "Qwen/Qwen3.6-27B", "int4", "awq", 18_659_303_094),
    # NVFP4 weights (0.5 + 1/16 bytes), the embeddings and vision tower 16-bit
    ("huginnfork/Qwen3.8-27B-NVFP4A16", "Qwen/Qwen3.8-27B", "nvfp4", "compressed-tensors", 19_705_729_728),
    ("bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4A16", "google/gemma-4-26B-A4B-it", "nvfp4", "compressed-tensors",
     16_354_801_152),
])
def test_the_re_upload_resolves_to_its_base_at_the_stated_precision(model_id, base, precision, method, weights):
    shape = find_model(model_id)
    original = find_model(base)
    assert (shape.id, shape.base_model, shape.precision, shape.quantization) == (model_id, base, precision, method)
    assert (shape.params, shape.num_hidden_layers) == (original.params, original.num_hidden_layers)
    # the assumed quantization_config states the same precision the name does, so the weights are decided
    assert quant_from_config(shape.hf_config["quantization_config"]) == (precision, method)
    assert shape.extra["quantization_config_assumed"] is True
    assert not states_no_width(model_id)
    assert weights_bytes(shape, checkpoint_precision(shape), shape.quantization) == weights


def test_an_mtp_ending_alone_does_not_resolve():
    with pytest.raises(CatalogError):
        find_model("Qwen/Qwen3.6-27B-MTP")
