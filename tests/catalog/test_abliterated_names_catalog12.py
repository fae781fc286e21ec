"""Abliterated re-uploads find their base model (issue 28, catalog12).

Abliteration subtracts a refusal direction from the weights that write to the residual stream (W - r rᵀ W): every
tensor keeps its shape and dtype, so ``...-abliterated`` (``-v2`` for a later pass) is its base model's shape, at the
precision the name states or else the base's. The public start-up log of
huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2 (held-out set 13, ``tests/capacity/data/startup_logs_13.json``)
loads gpt-oss-20b's 13.72 GiB. Names as public manifests and notes write them (round catalog48 read the precision of
twolven/Qwen3.8-27B-abliterated-AWQ-MTP, not its base).
"""

from __future__ import annotations

import pytest
from shardwise.rules.capacity.weights import weights_bytes
from shardwise.rules.catalog import CatalogError, find_model
from shardwise.rules.catalog.lookup import resolve_precision_from_name


@pytest.mark.parametrize(("model_id", "base", "precision", "method"), [
    # the precision under the edit, and the MTP decoration after it (round catalog48 read the precision only)
    ("twolven/Qwen3.8-27B-abliterated-AWQ-MTP", "Qwen/Qwen3.8-27B", "int4", "awq"),
    # the edit after the precision, a later pass's -v2, and the re-uploader's own name in front
    ("huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", "openai/gpt-oss-20b", "mxfp4", "mxfp4"),
    # no precision stated: the base's
    ("huihui-ai/Qwen3-8B-abliterated", "Qwen/Qwen3-8B", "bf16", None),
    ("mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated", "meta-llama/Llama-3.1-8B-Instruct", "bf16", None),
    ("huihui-ai/Huihui-Qwen3-8B-abliterated-v2", "Qwen/Qwen3-8B", "bf16", None),
])
def test_an_abliterated_re_upload_is_its_base_model(model_id, base, precision, method):
    shape, original = find_model(model_id), find_model(base)
    assert (shape.id, shape.base_model, shape.precision, shape.quantization) == (model_id, base, precision, method)
    assert (shape.params, shape.num_hidden_layers, shape.hidden_size) == (
        original.params, original.num_hidden_layers, original.hidden_size)


def test_the_abliterated_gpt_oss_weighs_what_gpt_oss_does():
    shape, original = find_model("huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2"), find_model("openai/gpt-oss-20b")
    assert shape.hf_config == original.hf_config
    assert weights_bytes(shape, shape.precision, shape.quantization) == weights_bytes(
        original, original.precision, original.quantization)


@pytest.mark.parametrize(("model_id", "expected"), [
    ("huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", ("mxfp4", "mxfp4")),
    ("twolven/Qwen3.8-27B-abliterated-AWQ-MTP", ("int4", "awq")),
    ("huihui-ai/Qwen3-8B-abliterated", None),
])
def test_the_edit_states_no_precision(model_id, expected):
    assert resolve_precision_from_name(model_id) == expected


@pytest.mark.parametrize("model_id", [
    "acme/abliterated",  # the edit alone names no model
    "Qwen/Qwen3.6-27B-MTP",  # unchanged: a decoration with no precision under it states nothing
    "huihui-ai/Huihui-unknown-7b-abliterated",  # the uploader's name taken off, nothing left that the catalog has
])
def test_names_that_stay_unknown(model_id):
    with pytest.raises(CatalogError):
        find_model(model_id)
