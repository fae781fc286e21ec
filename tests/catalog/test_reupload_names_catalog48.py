"""Re-upload names whose precision sits under an ``-MTP`` ending, llm-compressor's ``-NVFP4A16``, and the sparse-attention
indexer's ``weights_proj`` that GLM-5's FP8 ignore lists name ``indexers_proj`` (catalog48).

The names are those public manifests and notes serve (``find_string`` over the stored public corpus, 2026-12-05):
shawnw3i/Qwen3.6-27B-AWQ-MTP, shawnw3i/Qwen3.8-27B-AWQ-MTP (the wide corpus), twolven/Qwen3.8-27B-abliterated-AWQ-MTP,
huginnfork/Qwen3.8-27B-NVFP4A16, bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4A16, and a local copy named
``Qwen3.6-27B-...-MTP-NVFP4A16`` (the decoration before the precision). ``-MTP`` says the re-upload keeps the
multi-token-prediction layers a quantiser drops; it states nothing of the precision. ``NVFP4A16`` is the preset of
compressed-tensors (``quantization/quant_scheme.py``: float 4-bit weights, ``tensor_group`` strategy, groups of 16,
no activation quantisation) and the output name llm-compressor's examples give. Intel's ``-int4-mixed-AutoRound``
checkpoints keep some layers at 8 or 16 bits, which one precision cannot state: they stay unknown by name.

vLLM builds the indexer's ``weights_proj`` (hidden -> ``index_n_heads``) with ``quant_config=None`` (``Indexer`` in
``vllm/model_executor/models/deepseek_v2.py``, which GLM-5 reuses), so it is 16-bit in every checkpoint.
"""

from __future__ import annotations

import pytest
from shardwise.rules.capacity.weights import (
    _ignore_matcher,
    checkpoint_precision,
    indexer_weights_params,
    weights_bytes,
)
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
     16_362_911_232),  # toksingle10: + the 5 global layers' V slots at NVFP4, 5 x 2,816 x 1,024 x 0.5625 bytes
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


# --------------------------------------------------------------------------------------------------
# The sparse-attention indexer's weights_proj: 16-bit in every checkpoint, whatever the ignore list says
# --------------------------------------------------------------------------------------------------


def test_glm5_fp8_lists_the_indexer_by_a_name_no_vllm_layer_has():
    """Z.ai's GLM-5 FP8 config.json keeps ``model.layers.N.self_attn.indexers_proj`` (transformers' name) out of FP8;
    vLLM's layer is ``self_attn.indexer.weights_proj``, which FP8's ``is_layer_skipped`` (an exact name) does not
    match, and which vLLM builds with ``quant_config=None`` anyway. The reader matches names as vLLM does."""
    shape = find_model("zai-org/GLM-5-FP8")
    ignored = _ignore_matcher(shape)
    assert ignored("model.layers.0.self_attn.indexers_proj") is True
    assert ignored("model.layers.0.self_attn.indexer.weights_proj") is False
    # hidden 6144 x 32 index heads on each of the 78 layers
    assert indexer_weights_params(shape) == 78 * 6144 * 32 == 15_335_424


@pytest.mark.parametrize(("model_id", "precision", "quantization", "weights", "before"), [
    # the checkpoint's own FP8: the routers (ignore list) and the indexer's weights_proj 16-bit
    ("zai-org/GLM-5-FP8", "fp8", None, 745_947_684_096, 745_932_348_672),
    # DeepSeek-V3.2's FP8 config.json names no module: its weights_proj (61 x 7168 x 64) is 16-bit all the same
    ("deepseek-ai/DeepSeek-V3.2", "fp8", None, 673_759_286_016, 673_731_302_144),
    # a 16-bit checkpoint quantised at load time: vLLM still builds weights_proj unquantised
    ("zai-org/GLM-5", "fp8", "fp8", 745_829_719_296, 745_814_383_872),
    # ModelOpt's GLM-5.1 NVFP4 keeps the whole attention 16-bit: the indexer once, not twice
    ("nvidia/GLM-5.1-NVFP4", "nvfp4", None, 445_786_334_640, 445_786_334_640),
])
def test_the_indexer_weights_proj_is_16_bit(model_id, precision, quantization, weights, before):
    shape = find_model(model_id)
    index = indexer_weights_params(shape)
    assert weights_bytes(shape, precision, quantization) == weights
    # what it was when weights_proj took the checkpoint's bytes: + (2 - bytes a parameter) for each of its parameters
    assert weights - before == (0 if model_id.startswith("nvidia/") else index)


def test_a_model_without_the_indexer_counts_none():
    assert indexer_weights_params(find_model("deepseek-ai/DeepSeek-R1")) == 0
    assert indexer_weights_params(find_model("Qwen/Qwen3.6-27B")) == 0
