"""Weights sized by the checkpoint's ``quantization_config``, never by the ``--quantization`` method's name: an 8-bit
GPTQ checkpoint served with ``--quantization gptq`` was sized 4-bit (half its weights: a model that does not fit
passed), and ``experts_int8`` counted the attention every TP rank holds whole at one byte a weight instead of two."""

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import (
    QuantizationUnknown,
    bytes_per_param,
    expert_params,
    weight_precision,
    weights_bytes,
)
from shardwise.rules.catalog import find_model
from shardwise.rules.catalog.hfconfig import quant_from_config, weight_bytes_per_param
from shardwise.rules.model import Undecidable

GIB = 1024**3

#: Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8, config.json's quantization_config (the keys vLLM's GPTQConfig reads).
QWEN25_7B_GPTQ_INT8 = {"bits": 8, "desc_act": False, "group_size": 128, "quant_method": "gptq", "sym": True}
#: hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4, config.json's quantization_config.
LLAMA31_70B_AWQ = {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
                   "version": "gemm", "zero_point": True}
#: Qwen2.5-7B: 7,615,616,512 parameters, of which 2 × 152,064 × 3,584 = 1,089,994,752 in the untied embeddings.
QWEN7_PARAMS, QWEN7_EMBED = 7_615_616_512, 1_089_994_752


@pytest.mark.parametrize(("precision", "config", "expected"), [
    # GPTQLinearMethod.create_weights (gptq.py, 0.14.1): qweight int32 packing 32/b values, scales fp16 and qzeros
    # int32 packing 32/b zero points, one of each per group per output column
    ("int8", QWEN25_7B_GPTQ_INT8, 1 + (2 + 1) / 128),
    ("int4", {**QWEN25_7B_GPTQ_INT8, "bits": 4}, 0.5 + (2 + 0.5) / 128),
    ("int4", {**QWEN25_7B_GPTQ_INT8, "bits": 3}, 3 / 8 + (2 + 3 / 8) / 128),  # 3 and 2 bits: GPTQConfig takes them
    ("int4", {**QWEN25_7B_GPTQ_INT8, "bits": 2}, 2 / 8 + (2 + 2 / 8) / 128),
    ("int8", {**QWEN25_7B_GPTQ_INT8, "group_size": -1}, 1.0),  # one group per column: 3 bytes per column, left out
    ("int4", LLAMA31_70B_AWQ, 0.5 + 2.5 / 128),
    ("int4", {**LLAMA31_70B_AWQ, "group_size": 64}, 0.5 + 2.5 / 64),
    # compressed-tensors W4A16 without symmetry: a packed 4-bit zero point per group beside the bf16 scale
    ("int4", {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": False}}}}, 0.5 + 2.5 / 128),
    ("int4", {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": True}}}}, 0.5 + 2 / 128),
    ("int8", {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {
        "num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True}}}}, 1.0),  # W8A8 / W8A16 per channel
    ("fp8", {"quant_method": "fp8", "weight_block_size": [128, 128]}, 1.0),
    ("int8", {"quant_method": "bitsandbytes", "load_in_8bit": True}, 1.0),
])
def test_bytes_per_weight_from_the_config(precision, config, expected):
    assert weight_bytes_per_param(precision, config) == expected


@pytest.mark.parametrize(("config", "expected"), [
    (QWEN25_7B_GPTQ_INT8, ("int8", "gptq")),
    ({**QWEN25_7B_GPTQ_INT8, "bits": 3}, ("int4", "gptq")),  # sized from bits (test above); int4 names the class
    ({**QWEN25_7B_GPTQ_INT8, "quant_method": "gptq_marlin"}, ("int8", "gptq")),
    ({"quant_method": "awq", "w_bit": 4, "q_group_size": 128}, ("int4", "awq")),
    ({"quant_method": "gptq", "group_size": 128}, None),  # no bits: GPTQConfig.from_config raises, no guess
    ({"quant_method": "gptq", "bits": 5}, None),  # not a width vLLM's GPTQ takes
    ({"quant_method": "bitsandbytes", "load_in_8bit": True}, ("int8", "bitsandbytes")),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True}, ("int4", "bitsandbytes")),
])
def test_precision_from_the_config(config, expected):
    assert quant_from_config(config) == expected


@pytest.mark.parametrize(("model", "quantization", "precision", "total"), [
    # the checkpoint's 8 bits, whatever the flag's kernel: 1,089,994,752 × 2 + 6,525,621,760 × (1 + 3/128)
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "gptq", "int8", QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * 1.0234375),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "gptq_marlin", "int8",
     QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * 1.0234375),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", None, "int8", QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * 1.0234375),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "gptq", "int4",
     QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * 0.51953125),
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "awq", "int4", QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * 0.51953125),
    # in-flight bitsandbytes on a 16-bit checkpoint: vLLM's default 4 bits, absmax double-quantised
    ("Qwen/Qwen2.5-7B-Instruct", "bitsandbytes", "int4",
     QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED) * (0.5 + 1 / 64 + 4 / (64 * 256))),
    ("unsloth/Qwen2.5-7B-Instruct-bnb-8bit", "bitsandbytes", "int8", QWEN7_EMBED * 2 + (QWEN7_PARAMS - QWEN7_EMBED)),
])
def test_weights_at_the_checkpoints_bits(model, quantization, precision, total):
    m = find_model(model)
    assert (m.params, m.embedding_params) == (QWEN7_PARAMS, QWEN7_EMBED)
    p = weight_precision(m, quantization=quantization)
    assert p == precision
    assert weights_bytes(m, p, quantization) == total


def test_an_8_bit_gptq_checkpoint_is_twice_the_4_bit_one():
    """The defect: ``--quantization gptq`` was int4 whatever the checkpoint (8,858,555,524 bytes sized 5,570,253,934)."""
    m = find_model("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8")
    assert weights_bytes(m, weight_precision(m, quantization="gptq"), "gptq") == 8_858_555_524
    four = find_model("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4")
    assert weights_bytes(four, weight_precision(four, quantization="gptq"), "gptq") == 5_570_253_934


@pytest.mark.parametrize(("model", "quantization", "text"), [
    ("TheBloke/Llama-2-7B-GPTQ", "gptq",
     "the weights' size is not known (TheBloke/Llama-2-7B-GPTQ is a gptq checkpoint whose bits neither its name nor "
     "the catalog states, and the method admits several widths)"),
    ("TheBloke/Llama-2-7B-GPTQ", None,
     "the weights' size is not known (TheBloke/Llama-2-7B-GPTQ is a gptq checkpoint whose bits neither its name nor "
     "the catalog states, and the method admits several widths)"),
    ("meta-llama/Llama-3.1-8B-Instruct", "gptq",
     "the weights' size at --quantization gptq is not known (the method reads the bits from the checkpoint's "
     "quantization_config, and meta-llama/Llama-3.1-8B-Instruct is a bf16 checkpoint without one)"),
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "bitsandbytes",
     "the weights' size at --quantization bitsandbytes is not known (the method reads the bits from the checkpoint's "
     "quantization_config, and Qwen/Qwen2.5-7B-Instruct-AWQ's quantization_config names 'awq')"),
])
def test_a_method_of_several_widths_without_the_width_cannot_be_decided(model, quantization, text):
    with pytest.raises(QuantizationUnknown) as e:
        weight_precision(find_model(model), quantization=quantization)
    assert isinstance(e.value, Undecidable)
    assert e.value.text == text


def test_a_width_in_the_name_is_no_bare_gptq():
    assert not find_model("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8").extra.get("quantization_bits_unstated")
    assert find_model("TheBloke/Llama-2-7B-GPTQ").extra["quantization_bits_unstated"] is True


def test_experts_int8_keeps_what_every_rank_holds_whole_16_bit():
    """DeepSeek-V2-Chat at TP8: q_a_proj and kv_a_proj_with_mqa (648,806,400 parameters, ReplicatedLinear) sit whole
    on every rank, and ExpertsInt8Config leaves them UnquantizedLinearMethod: against the bf16 checkpoint served
    plain, a GPU saves exactly its eighth of the routed experts' second byte, nothing more."""
    ds = find_model("deepseek-ai/DeepSeek-V2-Chat")
    assert sizing.replicated_params(ds)[0] == 648_806_400
    h200 = sizing.Device("H200", 139.8, "nvidia", "hopper", 8)

    def per_gpu(quantization):
        settings = sizing.EngineSettings(tp=8, quantization=quantization)
        return sizing.size_deployment(ds, h200, settings, "0.11.0").weights_gib_per_gpu * GIB

    assert bytes_per_param(ds, "int8", "experts_int8") == 1.0
    assert per_gpu(None) - per_gpu("experts_int8") == pytest.approx(expert_params(ds) * (2 - 1) / 8, rel=1e-9)
