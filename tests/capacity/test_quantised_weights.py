"""What a quantised checkpoint keeps 16-bit: its ``quantization_config`` ignore list, read the way vLLM reads it
(issue 28: the GB10 rows of set 10 whose weights came out 2.3 and 2.5 GiB low)."""

import dataclasses

import pytest
from shardwise.rules.capacity import draft, sizing
from shardwise.rules.capacity.weights import ignored_params, mtp_unquantised, weights_bytes
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.catalog.hfconfig import weight_bytes_per_param
from startup_logs import GEMMA4_26B_A4B_AWQ, GIB, QWEN36_35B_A3B_NVFP4, QWEN38_27B_AWQ_BF16_INT4, load, score

LLAMA8 = find_model("meta-llama/Llama-3.1-8B-Instruct")
#: One Llama-3.1-8B layer's attention: q and o 4,096 x 4,096, k and v 4,096 x 1,024, no biases.
LLAMA8_ATTENTION = 2 * 4096 * 4096 + 2 * 4096 * 1024


def _with(model, **quantization_config):
    return dataclasses.replace(model, hf_config={**model.hf_config, "quantization_config": quantization_config})


def test_gemma4_awq_keeps_its_dense_mlp_and_router_16_bit():
    # cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4: the dense MLP beside the experts (30 x 3 x 2,816 x 2,112) and the
    # router (30 x 128 x 2,816) are ignored; embeddings (262,144 x 2,816, tied) and the vision tower (550 M) as before
    assert ignored_params(GEMMA4_26B_A4B_AWQ) == 30 * 3 * 2816 * 2112 + 30 * 128 * 2816 == 546_078_720
    kept = 262_144 * 2_816 + 550_000_000 + 546_078_720
    # toksingle10: plus the V slots vLLM's QKVParallelLinear allocates in the 5 k_eq_v global layers (2 KV heads of 512,
    # loaded from k_proj), at the attention's 4 bits: 5 x 2,816 x 1,024 parameters
    slots = 5 * 2_816 * 2 * 512
    assert weights_bytes(GEMMA4_26B_A4B_AWQ, "int4") == pytest.approx(
        kept * 2 + (25_783_141_760 - kept + slots) * (0.5 + 2 / 32))  # compressed-tensors int4, group 32: bf16 scales
    assert round(weights_bytes(GEMMA4_26B_A4B_AWQ, "int4") / GIB, 2) == 15.97


def test_qwen36_nvfp4_keeps_linear_attention_routers_and_mtp_16_bit():
    # RedHatAI/Qwen3.6-35B-A3B-NVFP4 (llm-compressor's recipe): 30 Gated DeltaNet layers of 33,718,464 parameters
    # (in_proj_qkv + in_proj_z 2,048 x 12,288, in_proj_b/a 2,048 x 64, conv 8,192 x 4, dt and A 64, norm 128,
    # out_proj 4,096 x 2,048) and 40 routers of 256 x 2,048; the 10 gated-attention layers and the experts are NVFP4
    per_linear = 2048 * 12288 + 2048 * 64 + 8192 * 4 + 64 + 128 + 4096 * 2048
    assert per_linear == 33_718_464
    assert ignored_params(QWEN36_35B_A3B_NVFP4) == 30 * per_linear + 40 * 256 * 2048 == 1_032_525_440
    assert mtp_unquantised(QWEN36_35B_A3B_NVFP4)
    # the MTP layer (one decoder layer and its 2h -> h fc) is loaded 16-bit: 1.58 GiB, not 0.46 at NVFP4's bytes
    nvfp4 = draft.draft(QWEN36_35B_A3B_NVFP4, "mtp", "nvfp4", 1, 1)
    plain = draft.draft(dataclasses.replace(QWEN36_35B_A3B_NVFP4, hf_config={
        k: v for k, v in QWEN36_35B_A3B_NVFP4.hf_config.items() if k != "quantization_config"}), "mtp", "nvfp4", 1, 1)
    layer = draft.decoder_layer_bytes(find_model("Qwen/Qwen3.6-35B-A3B"), "bf16", 1, 1)
    assert nvfp4.weight_bytes == layer + 2 * 2048 * 2048 * 2
    assert (round(nvfp4.weight_bytes / GIB, 2), round(plain.weight_bytes / GIB, 2)) == (1.58, 0.46)


def test_an_fp8_dynamic_reupload_of_a_gated_deltanet_model_keeps_its_linear_attention_16_bit():
    # llm-compressor's FP8_DYNAMIC recipes for Qwen3.5 and Qwen3-Next (examples/quantization_w8a8_fp8/qwen3_5_example.py
    # at 16802c1b, qwen3_5_moe_example.py at 68d59afa, qwen3_next_example.py at 1e9253b2) ignore ``re:.*linear_attn.*``:
    # a RedHatAI ...-FP8-dynamic name resolved from the catalog carries that list. Qwen3.5-4B: 24 Gated DeltaNet layers of
    # 42,139,840 parameters (in_proj_qkv 2,560 x 8,192, in_proj_z 2,560 x 4,096, in_proj_b/a 2,560 x 32, conv 8,192 x 4,
    # dt and A 32, norm 128, out_proj 4,096 x 2,560)
    per_linear = 2560 * 8192 + 2560 * 4096 + 2 * 2560 * 32 + 8192 * 4 + 2 * 32 + 128 + 4096 * 2560
    assert per_linear == 42_139_840
    fp8 = find_model("RedHatAI/Qwen3.5-4B-FP8-dynamic")
    assert fp8.hf_config["quantization_config"]["ignore"][-1] == "re:.*linear_attn.*"
    assert ignored_params(fp8) == 24 * per_linear == 1_011_356_160
    # Qwen3.6-35B-A3B: the same list also keeps its 40 routers (mlp.gate) 16-bit, as the NVFP4 recipe's does
    assert ignored_params(find_model("RedHatAI/Qwen3.6-35B-A3B-FP8-dynamic")) == 1_032_525_440
    # Qwen's own -FP8 releases (block-wise, linear attention quantised) and a model without Gated DeltaNet layers keep
    # the plain assumption
    assert "ignore" not in find_model("Qwen/Qwen3.8-27B-FP8").hf_config["quantization_config"]
    assert "ignore" not in find_model("RedHatAI/Phi-4-mini-instruct-FP8-dynamic").hf_config["quantization_config"]
    # set 23's pair on one RTX 5090 at 0.29.0 (ai-infra-lab): 5.26 -> 6.20 GiB of weights, tokens +7.45 % -> +2.75 % at
    # 32K and 128K, as the BF16 checkpoint's rows on the same card (+2.75 %, +2.84 %)
    rows = {(lg.model.id, lg.settings.max_model_len): score(lg) for lg in load() if lg.gpu == "RTX 5090"
            and lg.model.id in ("RedHatAI/Qwen3.5-4B-FP8-dynamic", "Qwen/Qwen3.5-4B")
            and lg.settings.kv_cache_dtype == "auto"}  # set 29's fp8-cache start of the same pair: sm120-cold-nontorch
    got = {k: (round(sc.sized.weights_gib_per_gpu, 2), sc.sized.kv_cache_tokens, sc.log.tokens)
           for k, sc in rows.items()}
    assert got == {("RedHatAI/Qwen3.5-4B-FP8-dynamic", 32768): (6.2, 602_646, 586_499),
                   ("RedHatAI/Qwen3.5-4B-FP8-dynamic", 131072): (6.2, 652_275, 634_799),
                   ("Qwen/Qwen3.5-4B", 32768): (8.58, 532_361, 518_114),
                   ("Qwen/Qwen3.5-4B", 131072): (8.58, 576_202, 560_268)}
    assert all(sc.tokens_within_5pct for sc in rows.values())


def test_the_gb10_rows_weights_are_what_vllm_loaded():
    # set 10 at 0.25.1: "Model loading took 16.63 GiB" and "23.45 GiB" (14.38 and 20.93 before the ignore lists; the
    # Gemma 4 AWQ 16.09 before toksingle10 counted its second rotary cache, 0.25 GiB, and its V slots)
    rows = {lg.model.id: score(lg) for lg in load() if lg.gpu == "GB10" and lg.release == "0.25.1"}
    awq, qwen = rows["cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4"], rows["RedHatAI/Qwen3.6-35B-A3B-NVFP4"]
    assert round(awq.sized.weights_gib_per_gpu, 2) == 16.35 and awq.weights_within
    assert round(qwen.sized.weights_gib_per_gpu, 2) == 23.44 and qwen.weights_within


def test_plain_entries_are_exact_names_except_for_awq():
    # vLLM: compressed-tensors' should_ignore_layer and FP8's is_layer_skipped match a plain entry to the whole name;
    # AWQ's is_layer_skipped_awq takes it as a substring (``module_name in prefix``)
    int4 = dataclasses.replace(LLAMA8, precision="int4")
    assert ignored_params(_with(int4, quant_method="awq", modules_to_not_convert=["self_attn"])) == 32 * LLAMA8_ATTENTION
    assert ignored_params(_with(int4, quant_method="compressed-tensors", ignore=["self_attn"])) == 0
    assert ignored_params(_with(int4, quant_method="compressed-tensors",
                                ignore=["model.layers.0.self_attn.q_proj", "lm_head"])) == LLAMA8_ATTENTION
    assert ignored_params(_with(int4, quant_method="compressed-tensors", ignore=["re:.*self_attn.*"])) == (
        32 * LLAMA8_ATTENTION)
    # ModelOpt's shell patterns
    assert ignored_params(_with(int4, quant_method="modelopt", exclude_modules=["model.layers.1*.mlp*"])) == (
        11 * 3 * 4096 * 14336)  # layers 1 and 10-19
    # no list, or one naming only lm_head: nothing beyond the embeddings
    assert ignored_params(int4) == 0
    assert ignored_params(_with(int4, quant_method="compressed-tensors", ignore=["lm_head"])) == 0


def test_kimi_k2_thinking_keeps_attention_shared_experts_and_dense_mlp_16_bit():
    # moonshotai/Kimi-K2-Thinking's config.json: ignore lm_head, re:.*self_attn.*, re:.*shared_experts.*,
    # re:.*mlp\.(gate|up|gate_up|down)_proj.* (the routed experts alone are int4, group 32). MLA attention a layer:
    # q_a 7,168 x 1,536 (+ its norm), q_b 1,536 x 64 x 192, kv_a 7,168 x 576 (+ norm 512), kv_b 512 x 64 x 256,
    # o 64 x 128 x 7,168; one shared expert of 3 x 7,168 x 2,048 in each of 60 MoE layers; one dense MLP of 18,432
    kimi = find_model("moonshotai/Kimi-K2-Thinking")
    attention = 7168 * 1536 + 1536 + 1536 * 64 * 192 + 7168 * 576 + 512 + 512 * 64 * 256 + 64 * 128 * 7168
    assert ignored_params(kimi) == 61 * attention + 60 * 3 * 7168 * 2048 + 3 * 7168 * 18432 == 9_207_343_104
    # 593.97 GB (580.7 GB when everything but the embeddings was counted int4)
    assert round(weights_bytes(kimi, "int4") / 1e9, 2) == 593.97


def test_load_time_quantisation_keeps_nothing_beyond_the_embeddings():
    # --quantization fp8 on a 16-bit checkpoint quantises every linear layer: no ignore list applies
    qwen = find_model("Qwen/Qwen3.6-35B-A3B")
    embed = 2 * 248_320 * 2_048
    assert sizing.weights_bytes(qwen, "fp8") == embed * 2 + (qwen.params - embed) * 1.0


def test_an_mla_checkpoint_that_keeps_attention_16_bit_replicates_its_down_projections_16_bit():
    # at TP8 every rank holds q_a_proj and kv_a_proj_with_mqa whole (ReplicatedLinear, deepseek_v2.py); with Kimi's
    # re:.*self_attn.* they are BF16, so a GPU holds them at 2 bytes, not at int4's 0.5625
    kimi = find_model("moonshotai/Kimi-K2-Thinking")
    listed = kimi.hf_config["quantization_config"]
    no_attention = _with(kimi, **{**listed, "ignore": [e for e in listed["ignore"] if "self_attn" not in e]})
    h100 = sizing.Device("H100", 79.19, "nvidia", "hopper", 8)

    def per_gpu(model):
        return sizing.size_deployment(model, h100, sizing.EngineSettings(tp=8), "0.19.1").weights_gib_per_gpu * GIB

    attention = 7168 * 1536 + 1536 + 1536 * 64 * 192 + 7168 * 576 + 512 + 512 * 64 * 256 + 64 * 128 * 7168
    whole = 61 * 7168 * (1536 + 512 + 64)  # q_a and kv_a (+ rope) of every layer
    assert sizing.replicated_params(kimi)[0] == whole
    b = 0.5 + 2 / 32
    # quantised, kv_b_proj also leaves a 16-bit copy on every GPU (61 x 512 x 64/8 heads x (128 + 128) x 2 bytes)
    copy = 61 * 512 * 8 * 256 * 2
    assert per_gpu(kimi) - per_gpu(no_attention) == pytest.approx(
        (61 * attention - whole) * (2 - b) / 8 + whole * (2 - b) - copy, rel=1e-9)
    assert round(per_gpu(kimi) / GIB, 2) == 70.95  # against 71.27 usable at 0.9 of an H100: inside SW101's band


def test_vllms_modelopt_fp4_is_nvfp4():
    """``--quantization modelopt_fp4`` is vLLM's name for ModelOpt's NVFP4 checkpoints (``QuantizationMethods``,
    ``vllm/model_executor/layers/quantization/__init__.py``: "modelopt_fp4" → ModelOptNvFp4Config). vLLM's recipe for
    DeepSeek-R1 on B200 passes it with nvidia/DeepSeek-R1-FP4 (plan case dsr1-fp4-b200-dp4-ep-2k); plan refused it as
    unknown. It names the checkpoint's own precision: the plan is the one given without the flag."""
    from shardwise.rules.app.plan import PlanRequest, make_plan
    from shardwise.rules.capacity.weights import weight_precision

    assert weight_precision(find_model("deepseek-ai/DeepSeek-R1"), quantization="modelopt_fp4") == "nvfp4"
    asked = dict(model="nvidia/DeepSeek-R1-FP4", base_model="deepseek-ai/DeepSeek-R1", gpu="B200",
                 vllm_version="0.11.0", tp=1, dp=4, enable_expert_parallel=True, max_model_len=2048)
    flagged = make_plan(PlanRequest(**asked, quantization="modelopt_fp4")).shown.sizing
    plain = make_plan(PlanRequest(**asked)).shown.sizing
    assert flagged.weight_precision == plain.weight_precision == "nvfp4"
    assert flagged.weights_gib_per_gpu == plain.weights_gib_per_gpu
    assert flagged.kv_cache_tokens == plain.kv_cache_tokens


def test_the_engine_args_model_takes_vllms_modelopt_fp4():
    """The typed engine arguments (stack config, and the manifest ``plan --emit`` writes) take vLLM's
    ``modelopt_fp4``: the emitted DP4 layout of nvidia/DeepSeek-R1-FP4 (plan case dsr1-fp4-b200-dp4-ep-2k) failed
    validation with it."""
    import pydantic
    from shardwise.rules.model.spec import EngineArgsSpec

    assert EngineArgsSpec(model="nvidia/DeepSeek-R1-FP4", quantization="modelopt_fp4").quantization == "modelopt_fp4"
    with pytest.raises(pydantic.ValidationError):
        EngineArgsSpec(model="nvidia/DeepSeek-R1-FP4", quantization="nvfp4")  # shardwise's precision name, not a vLLM method


# --------------------------------------------------------------------------------------------------
# vLLM's other --quantization names (issue 28, plancases11)
# --------------------------------------------------------------------------------------------------


def test_every_vllm_quantization_name_is_read():
    """The names vLLM's ``QUANTIZATION_METHODS`` held in the releases read (0.6.6.post1, 0.9.2, 0.10.1.1, 0.11.0,
    0.14.1): the engine-args model takes each, and ``plan`` sizes or says it cannot decide, never "unknown"."""
    import typing

    from shardwise.rules.capacity.weights import VLLM_QUANTIZATION_METHODS
    from shardwise.rules.model.spec import EngineArgsSpec

    literal = typing.get_args(EngineArgsSpec.model_fields["quantization"].annotation)[0]
    assert set(typing.get_args(literal)) == VLLM_QUANTIZATION_METHODS
    assert {"ptpc_fp8", "quark", "compressed-tensors", "experts_int8", "moe_wna16", "auto-round",
            "fbgemm_fp8"} <= VLLM_QUANTIZATION_METHODS
    assert EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", quantization="ptpc_fp8").quantization == "ptpc_fp8"


@pytest.mark.parametrize(("model", "quantization", "precision"), [
    ("meta-llama/Llama-3.1-8B-Instruct", "ptpc_fp8", "fp8"),  # a 16-bit checkpoint quantised at load, ROCm
    ("meta-llama/Llama-3.1-8B-Instruct", "fbgemm_fp8", "fp8"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "experts_int8", "int8"),  # the experts only (weights_bytes)
    ("meta-llama/Llama-3.1-8B-Instruct", "experts_int8", "bf16"),  # no experts: every linear layer unquantised
    ("zai-org/GLM-4.5-Air-FP8", "compressed-tensors", "fp8"),  # the checkpoint's own config states the bits
    ("Qwen/Qwen3-30B-A3B-GPTQ-Int4", "moe_wna16", "int4"),  # MoeWNA16Config takes a GPTQ checkpoint's bits
])
def test_quantization_precision_per_method(model, quantization, precision):
    from shardwise.rules.capacity.weights import quantization_precision, weight_precision

    m = find_model(model)
    assert quantization_precision(m, quantization) == precision
    assert weight_precision(m, quantization=quantization) == precision


@pytest.mark.parametrize(("model", "quantization", "text"), [
    ("meta-llama/Llama-3.1-8B-Instruct", "compressed-tensors",
     "the weights' size at --quantization compressed-tensors is not known (the method reads the bits from the "
     "checkpoint's quantization_config, and meta-llama/Llama-3.1-8B-Instruct is a bf16 checkpoint without one)"),
    ("Qwen/Qwen3-30B-A3B-GPTQ-Int4", "quark",
     "the weights' size at --quantization quark is not known (the method reads the bits from the checkpoint's "
     "quantization_config, and Qwen/Qwen3-30B-A3B-GPTQ-Int4's quantization_config names 'gptq')"),
    ("meta-llama/Llama-3.1-8B-Instruct", "gguf",
     "the weights' size at --quantization gguf is not known (shardwise does not size this method's weights)"),
    ("meta-llama/Llama-3.1-8B-Instruct", "int3",
     "the weights' size at --quantization int3 is not known ('int3' is not a method vLLM knows)"),
])
def test_quantization_whose_bits_are_not_known_cannot_be_decided(model, quantization, text):
    """A method that reads its bits from a checkpoint that states none is undecided (an Undecidable: the capacity
    rules say they cannot decide), never sized as the 16-bit checkpoint."""
    from shardwise.rules.capacity.weights import QuantizationUnknown, weight_precision
    from shardwise.rules.model import Undecidable

    with pytest.raises(QuantizationUnknown) as e:
        weight_precision(find_model(model), quantization=quantization)
    assert isinstance(e.value, Undecidable)
    assert e.value.text == text


def test_experts_int8_quantises_only_the_experts():
    """``ExpertsInt8Config``: FusedMoE layers get int8 experts, every linear layer stays 16-bit. Mixtral-8x7B has
    32 layers × 8 experts × 3 × 4,096 × 14,336 = 45,097,156,608 expert weights of 46,702,792,704."""
    mixtral = find_model("mistralai/Mixtral-8x7B-Instruct-v0.1")
    assert weights_bytes(mixtral, "int8", "experts_int8") == (46_702_792_704 - 45_097_156_608) * 2 + 45_097_156_608
    assert weights_bytes(mixtral, "int8", "experts_int8") == 48_308_428_800
    assert weights_bytes(mixtral, "int8") < 48_308_428_800  # all of it int8: what experts_int8 is not


def test_plan_takes_vllms_quantization_names():
    """``plan --quantization`` refused ptpc_fp8, quark, compressed-tensors, experts_int8, moe_wna16 and auto-round as
    unknown: it sizes those whose bits it knows and says it cannot decide for the others."""
    from shardwise.rules.app.plan import PlanError, PlanRequest, make_plan

    llama = dict(model="meta-llama/Llama-3.1-8B-Instruct", gpu="MI300X", vllm_version="0.7.3", tp=1)
    ptpc = make_plan(PlanRequest(**llama, quantization="ptpc_fp8")).shown.sizing
    fp8 = make_plan(PlanRequest(**llama, quantization="fp8")).shown.sizing
    assert (ptpc.weight_precision, ptpc.weights_gib_per_gpu) == ("fp8", fp8.weights_gib_per_gpu)
    with pytest.raises(PlanError) as e:
        make_plan(PlanRequest(**llama, quantization="auto-round"))
    assert str(e.value) == (
        "cannot decide: the weights' size at --quantization auto-round is not known (the method reads the bits from "
        "the checkpoint's quantization_config, and meta-llama/Llama-3.1-8B-Instruct is a bf16 checkpoint without one)")


def test_ptpc_fp8_is_refused_off_rocm():
    """``PTPCFp8Config`` raises "ptpc_fp8 quantization is supported only on ROCm." on any other platform
    (ptpc_fp8.py, 0.9.2 to 0.14.1): the vLLM blog's PTPC-FP8 setup on an MI300X starts, the same flags on an H100
    do not, and that is certain (a configuration vLLM rejects, not an estimate)."""
    from shardwise.rules.app.plan import PlanRequest, make_plan

    asked = dict(model="meta-llama/Llama-3.1-70B-Instruct", vllm_version="0.7.3", tp=1, quantization="ptpc_fp8")
    assert make_plan(PlanRequest(**asked, gpu="MI300X")).shown.starts is True
    h100 = make_plan(PlanRequest(**asked, gpu="H100")).shown
    assert h100.starts is False
    assert [(f.code, f.level) for f in h100.findings if f.code == "SW102"] == [("SW102", "mandatory")]
    assert "ptpc_fp8 quantization is supported only on ROCm; vLLM will refuse to start" in next(
        f.message for f in h100.findings if f.code == "SW102")


def test_a_quantised_mla_kv_b_proj_keeps_a_16_bit_copy_on_every_gpu():
    # MLA's process_weights_after_loading keeps W_UK_T and W_UV as views of get_and_maybe_dequant_weights(kv_b_proj):
    # a new 16-bit tensor when kv_b_proj is quantised, the layer's own weight when it is not (vLLM 0.9.2 - 0.25.1)
    from shardwise.rules.capacity.weights import mla_dequantised_bytes

    r1, glm, k2, k25 = (find_model(m) for m in ("deepseek-ai/DeepSeek-R1", "zai-org/GLM-5.1",
                                                 "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2.5"))
    # DeepSeek-R1 (FP8 blocks): 61 layers x kv_lora_rank 512 x 128/8 heads x (128 nope + 128 v) x 2 bytes
    assert mla_dequantised_bytes(r1, "fp8", 8) == 61 * 512 * 16 * 256 * 2 == 255_852_544
    assert mla_dequantised_bytes(k2, "fp8", 8) == 61 * 512 * 8 * 256 * 2
    # GLM-5.1 quantised online (--quantization fp8): 78 layers, 64/8 heads of 192 nope + 256 v; bf16 as published: none
    assert mla_dequantised_bytes(glm, "fp8", 8) == 78 * 512 * 8 * 448 * 2 == 286_261_248
    assert mla_dequantised_bytes(glm, "bf16", 8) == 0
    # Kimi-K2.5's ignore list keeps self_attn 16-bit: kv_b_proj is unquantised, W_UK_T / W_UV are views of it
    assert mla_dequantised_bytes(k25, "int4", 8) == 0


def test_the_sizing_adds_the_mla_copy_to_each_pipeline_stage_share():
    # GLM-5.1 --quantization fp8 at TP8 x PP2 (set 16's MG-Cafe row): each stage holds 39 of the 78 layers' copies
    glm = find_model("zai-org/GLM-5.1")
    config = {k: v for k, v in glm.extra["config"].items() if k != "v_head_dim"}
    without = dataclasses.replace(glm, extra={**glm.extra, "config": config})  # no head sizes: no copy counted
    device = sizing.Device("H100", 79.19, "nvidia", "hopper", 8)
    settings = sizing.EngineSettings(tp=8, pp=2, quantization="fp8", max_model_len=8192)
    got = [sizing.size_deployment(m, device, settings, "0.19.0").weights_gib_per_gpu * GIB for m in (glm, without)]
    assert got[0] - got[1] == pytest.approx(39 * 512 * 8 * 448 * 2, abs=1)


def test_gemma4_e_series_per_layer_embeddings_stay_16_bit_in_a_quantised_checkpoint():
    # gemma-4-E2B: 35 layers x 256 x 262,144 rows of per-layer embeddings (a VocabParallelEmbedding in vLLM's
    # gemma4.py), kept 16-bit beside the 262,144 x 1,536 tied input embeddings and the 452,550,144 tower parameters
    from shardwise.rules.capacity.weights import per_layer_embedding_params
    from startup_logs import GEMMA4_E2B_QAT, GEMMA4_E4B_QAT
    assert per_layer_embedding_params(GEMMA4_E2B_QAT) == 35 * 256 * 262_144 == 2_348_810_240
    assert per_layer_embedding_params(GEMMA4_E4B_QAT) == 42 * 256 * 262_144
    assert per_layer_embedding_params(LLAMA8) == 0
    # as its config ties them: one 262,144 x 1,536 table (the export's own LM head is added where a release loads it,
    # test_a_checkpoints_own_lm_head_is_loaded_untied_from_0_29)
    kept = 262_144 * 1_536 + 2_348_810_240 + 452_550_144
    assert weights_bytes(GEMMA4_E2B_QAT, "int4") == pytest.approx(kept * 2 + (5_100_000_000 - kept) * (0.5 + 2 / 32))
    assert round(weights_bytes(GEMMA4_E2B_QAT, "int4") / GIB, 2) == 6.96
    # a 16-bit E2B is its parameters at 2 bytes, as before
    assert weights_bytes(find_model("google/gemma-4-E2B-it"), "bf16") == 5_100_000_000 * 2


def test_a_checkpoints_own_lm_head_is_loaded_untied_from_0_29():
    # tokens36: Google's E-series QAT exports keep Gemma 4's tied config but store an lm_head.weight that differs from
    # the embeddings. 0.28.0 ties it and its gemma4.py load_weights skips "lm_head."; 0.29.0 and 0.30.0 untie where the
    # safetensors hold an lm_head (ModelConfig.maybe_untie_word_embeddings) and re-tie only equal tables
    # (model_loader/weight_tying.py): one more 262,144 x 2,560 table, 16-bit, for E4B
    from shardwise.rules.vllm.versions import resolve
    from startup_logs import GEMMA4_31B_QAT, GEMMA4_E4B_QAT
    assert GEMMA4_E4B_QAT.tie_word_embeddings and GEMMA4_E4B_QAT.distinct_lm_head
    old, new = (sizing.as_loaded(GEMMA4_E4B_QAT, resolve(r).behaviour) for r in ("0.28.0", "0.29.0"))
    assert old is GEMMA4_E4B_QAT
    assert not new.tie_word_embeddings and new.params == 8_000_000_000 + 262_144 * 2_560
    assert sizing.as_loaded(GEMMA4_E4B_QAT, resolve("0.30.0").behaviour) is new  # one object: the memos hold
    assert weights_bytes(new, "int4") - weights_bytes(old, "int4") == 262_144 * 2_560 * 2
    # the sizing, against what the starts logged on an L4: 0.28.0 9.81 GiB (floSa/data-analyst-agent), 0.30.0 11.04
    # (xbill9/sagemaker-gemma); 10.59 for both before (an untied head taken out of the 4-bit body)
    device = sizing.Device("L4", 21.96, "nvidia", "ada", 1)
    settings = sizing.EngineSettings(gpu_memory_utilization=0.9, max_model_len=8192)
    got = [round(sizing.size_deployment(GEMMA4_E4B_QAT, device, settings, r).weights_gib_per_gpu, 2)
           for r in ("0.28.0", "0.30.0")]
    assert got == [9.70, 10.95]
    # a checkpoint without its own head is as its config says at every release
    assert sizing.as_loaded(GEMMA4_31B_QAT, resolve("0.30.0").behaviour) is GEMMA4_31B_QAT


def test_auto_kv_cache_dtype_takes_a_modelopt_checkpoints_fp8_from_0_14():
    # nvidia/Gemma-4-31B-IT-NVFP4 names kv_cache_quant_algo FP8: from 0.14.0 `--kv-cache-dtype auto` resolves to
    # fp8_e4m3 (resolve_kv_cache_dtype_string), halving a token's bytes; 0.13 kept the model's dtype
    from startup_logs import GEMMA4_31B_NVFP4_MODELOPT
    device = sizing.Device("L40S", 44.42, "nvidia", "ada", 1)
    settings = sizing.EngineSettings(gpu_memory_utilization=0.9, max_model_len=8192)
    assert sizing.checkpoint_kv_dtype(GEMMA4_31B_NVFP4_MODELOPT) == "fp8_e4m3"
    assert sizing.checkpoint_kv_dtype(GEMMA4_26B_A4B_AWQ) is None  # compressed-tensors: not read for it
    new = sizing.size_deployment(GEMMA4_31B_NVFP4_MODELOPT, device, settings, "0.30.0")
    old = sizing.size_deployment(GEMMA4_31B_NVFP4_MODELOPT, device, settings, "0.13.0")
    assert new.kv_cache_dtype_bytes == 1 and old.kv_cache_dtype_bytes == 2
    assert any("kv_cache_quant_algo" in n for n in new.notes)
    # an explicit --kv-cache-dtype is kept
    explicit = sizing.size_deployment(GEMMA4_31B_NVFP4_MODELOPT, device,
                                      dataclasses.replace(settings, kv_cache_dtype="bfloat16"), "0.30.0")
    assert explicit.kv_cache_dtype_bytes == 2


def test_set22_nvfp4_gemma4_31b_on_an_l40s_caches_fp8_by_its_checkpoint():
    # xbill9/sagemaker-gemma: vLLM 0.30.0, 0.9, 8,192 tokens, KV auto: 21,870 tokens logged; 10,724 at 2 bytes
    row = next(r for r in load() if r.model.id == "nvidia/Gemma-4-31B-IT-NVFP4" and r.gpu == "L40S")
    assert row.tokens == 21870
    # 21,453 until toksingle10, with the weights 1.19 GiB short (29.73 against 31.18) and the cold compile's copy of the
    # embedding charged (2.62 GiB), which a multimodal run does not make; with both as vLLM has them (30.92 GiB, the
    # global layers' attention excluded from NVFP4 at 512 wide, the V slots, the second rotary cache) 24,602, +12.5 %:
    # the quantised Gemma 4 weights' residual (startup_logs.MISS_CAUSES "gemma4-quantised-weights"); 24,679 (+12.8 %) from
    # tokens14, V2's greedy profile holding the soft-capped logits (4 B) from 0.28, not a float32 copy (6 B)
    assert score(row).sized.kv_cache_tokens == 24679
    assert not score(row).tokens_within_5pct and score(row).weights_within


def test_meta_fbgemm_fp8_405b_keeps_attention_and_the_first_and_last_mlp_bf16():
    # issue 28 (vLLM issue 6746): meta-llama/Llama-3.1-405B-Instruct-FP8 lists every attention projection and the MLP
    # of layers 0 and 125 in modules_to_not_convert (exact names, FBGEMMFp8Config's is_layer_skipped); only the MLP of
    # layers 1-124 is FP8. One layer's attention: q and o 16,384 x 16,384, k and v 16,384 x 1,024; its MLP 3 x 16,384
    # x 53,248. Embeddings and lm_head (2 x 128,256 x 16,384) are 16-bit as before.
    m = find_model("meta-llama/Llama-3.1-405B-Instruct-FP8")
    assert (m.precision, m.quantization, m.params) == ("fp8", "fbgemm_fp8", 405_853_388_800)
    attention, mlp = 2 * 16384 * 16384 + 2 * 16384 * 1024, 3 * 16384 * 53248
    assert ignored_params(m) == 126 * attention + 2 * mlp == 77_108_084_736
    kept = 77_108_084_736 + 2 * 128256 * 16384
    assert weights_bytes(m, "fp8", "fbgemm_fp8") == kept * 2 + (405_853_388_800 - kept) == 487_164_166_144
    h100 = sizing.Device.of(find_gpu("H100"))
    tp8 = sizing.size_deployment(m, h100, sizing.EngineSettings(tp=8), "0.5.3.post1")
    # vLLM 0.5.3.post1 logged 57.75 GiB a GPU; all-FP8 linear layers gave 47.77
    assert round(tp8.weights_gib_per_gpu, 2) == 56.74


def test_inferact_qwen38_nvfp4_keeps_only_the_gated_deltanet_input_projections_bf16():
    # issue 28 (plan case recipe-qwen38-27b-nvfp4-rtx5090-no-len): vLLM's recipe (vllm-project/recipes at 8959cf6,
    # models/Qwen/Qwen3.8-27B.yaml) gives Inferact's ModelOpt NVFP4 build as 26,381,249,312 B and 12.02 GiB a GPU at TP2;
    # its exclude list is inferred from that size (the catalog entry's note). One Gated DeltaNet layer (hidden 5,120, 16
    # key heads and 48 value heads of 128): in_proj_qkv 5,120 x 10,240, in_proj_z 5,120 x 6,144, in_proj_b/a 5,120 x 48
    # each, conv 10,240 x 4, dt and A 48, norm 128 stay bf16; out_proj 6,144 x 5,120 is NVFP4 with the rest.
    m = find_model("Inferact/Qwen3.8-27B-NVFP4")
    assert (m.precision, m.quantization, m.params) == ("nvfp4", "modelopt", 27_356_728_560)
    per_in, out_proj = 5120 * 16384 + 5120 * 96 + 10240 * 4 + 2 * 48 + 128, 6144 * 5120
    assert per_in + out_proj == 115_876_064  # the whole layer, as llm-compressor's re:.*linear_attn.* keeps it
    assert ignored_params(m) == 48 * per_in == 4_052_101_632
    kept = 4_052_101_632 + 2 * 248_320 * 5120 + 460_730_096  # plus embeddings, LM head and the vision tower
    assert weights_bytes(m, "nvfp4") == kept * 2 + (27_356_728_560 - kept) * (0.5 + 1 / 16) == 25_530_625_824
    # with the MTP module (27,781,427,952 - 27,356,728,560 parameters) at 16 bits: the recipe's bytes, 1.2 MB over
    assert 26_381_249_312 - (25_530_625_824 + 2 * 424_699_392) == 1_224_704
    out_only = _with(m, quant_method="modelopt", exclude_modules=["model.language_model.layers.*.linear_attn.out_proj"])
    assert ignored_params(out_only) == 48 * out_proj == 1_509_949_440
    rtx5090 = sizing.Device.of(find_gpu("RTX-5090"))
    tp1, tp2 = (sizing.size_deployment(m, rtx5090, sizing.EngineSettings(tp=tp, kv_cache_dtype="fp8"), "0.26.0")
                for tp in (1, 2))
    # 18.48 GiB on one card as wholly NVFP4 before; the recipe logs 12.02 a GPU at TP2
    assert (round(tp1.weights_gib_per_gpu, 2), round(tp2.weights_gib_per_gpu, 2)) == (23.90, 12.01)


def test_cyankiwi_qwen38_awq_int4_is_compressed_tensors_at_group_32_with_zero_points():
    # issue 28 (tokens43, qwen38-awq-3090): a census of the checkpoint's config.json and safetensors index
    # (cadamcat/dual-radeon-vllm at f4fab4b5, benchmarks/w4a16-symmetry/ckpt-layer-census.json) reads compressed-tensors
    # pack-quantized, 4-bit, group 32, symmetric false, and 399 packed linear layers: all but layer 0's linear-attention
    # out_proj (6,144 x 5,120). The name alone gave AutoAWQ at group 128 (0.5 + 2.5/128 = 0.5195 B a weight); vLLM
    # 0.29.0 allocates weight_packed, a 16-bit scale and a packed zero point per group of 32
    # (CompressedTensorsWNA16.create_weights): 0.5 + 2/32 + 0.5/32 = 0.578125 B
    m = find_model("cyankiwi/Qwen3.8-27B-AWQ-INT4")
    assert (m.precision, m.quantization, m.params) == ("int4", "compressed-tensors", 27_356_728_560)
    assert weight_bytes_per_param("int4", m.hf_config["quantization_config"]) == 0.578125
    assert ignored_params(m) == 6144 * 5120 == 31_457_280
    kept = 31_457_280 + 2 * 248_320 * 5120 + 460_730_096  # plus embeddings, LM head and the vision tower
    assert weights_bytes(m, "int4") == kept * 2 + (27_356_728_560 - kept) * 0.578125 == 20_130_976_824
    # with the MTP module at 16 bits, 20.98 GB: the "21 GB" SuperSumanov/aira-dojo-noise-robust's LOCAL_VLLM_SERVER.md
    # gives the export (19.51 GB as AutoAWQ at group 128)
    assert round((20_130_976_824 + 2 * 424_699_392) / 1e9, 2) == 20.98
    # set 22's one-GPU start (0.29.0, RTX 3090, 0.97, eager, fp8_e5m2 pages, text only): weights 16.64 -> 18.02 GiB
    # against 18.37 logged, the budget 5.85 -> 4.48 GiB against 4.05 (within its 0.91 GiB tolerance), 174,899 ->
    # 133,324 tokens against 120,422 (+45.2 -> +10.7 %, still qwen38-awq-3090); its AWQ-BF16-INT4 sibling's TP2 rows
    # are read in the same format from tokens45 (test_cyankiwi_qwen38_awq_bf16_int4_packs_only_mlp_and_full_attention)
    rows = {(lg.model.id, lg.settings.tp, lg.tokens): score(lg) for lg in load()
            if lg.model.id.startswith("cyankiwi/Qwen3.8-27B-AWQ")}
    one = rows[("cyankiwi/Qwen3.8-27B-AWQ-INT4", 1, 120_422)]
    assert (round(one.sized.weights_gib_per_gpu, 2), round(one.sized.available_kv_gib, 2), one.sized.kv_cache_tokens,
            one.weights_within, one.kv_within, one.tokens_within_5pct) == (18.02, 4.48, 133_324, True, True, False)
    assert sorted((tp, tokens, round(sc.sized.weights_gib_per_gpu, 2), sc.sized.kv_cache_tokens)
                  for (_, tp, tokens), sc in rows.items() if tp == 2) == [
        (2, 541_764, 12.73, 477_684), (2, 560_445, 12.73, 494_156)]


def test_cyankiwi_qwen38_awq_bf16_int4_packs_only_mlp_and_full_attention():
    # tokens45: a census of the checkpoint's config.json and safetensors index (ro99/moxie docs/tasks/0027 at 19073a1a)
    # reads compressed-tensors pack-quantized, 4-bit, group 32, asymmetric (its AWQ-INT4 sibling's format) and 1,967
    # tensors, 256 packed linears x 4 (weight_packed, weight_scale, weight_zero_point, weight_shape) + 943 others.
    # Qwen3.8-27B has 64 MLPs and 16 full-attention layers of its 64: 64 x 3 + 16 x 4 = 256, so the 48 Gated DeltaNet
    # blocks are 16-bit whole, beside the tower, the LM head and the MTP module
    m = QWEN38_27B_AWQ_BF16_INT4
    qcfg = m.hf_config["quantization_config"]
    assert (m.quantization, qcfg["config_groups"]["group_0"]["weights"]["group_size"],
            qcfg["config_groups"]["group_0"]["weights"]["symmetric"]) == ("compressed-tensors", 32, False)
    assert (m.num_hidden_layers, m.hf_config["full_attention_interval"]) == (64, 4)  # 16 full-attention layers
    assert 64 * 3 + 16 * 4 == 256
    assert weight_bytes_per_param("int4", qcfg) == 0.578125
    linear_attn = ignored_params(m)
    assert linear_attn == 5_562_051_072  # the 48 linear-attention blocks, all 16-bit
    kept = linear_attn + 2 * 248_320 * 5120 + 460_730_096  # plus embeddings, LM head and the vision tower
    assert weights_bytes(m, "int4") == kept * 2 + (27_356_728_560 - kept) * 0.578125 == 27_994_789_872
    # as AutoAWQ at group 128 (0.5195 B a weight), the assumption until tokens45: 26.89 GB
    # set 22's TP2 starts (0.29.0, 2 x RTX 3090 over PCIe, 0.95, fp8_e5m2, text only; the tower not built): 12.73 GiB a
    # GPU against the logged 12.9 (12.22 before, outside the weights' band), the budget 7.86 against 8.91 (8.37 before)
    rows = [score(lg) for lg in load() if lg.model.id == m.id]
    assert sorted((sc.log.tokens, round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.available_kv_gib, 2),
                   sc.weights_within, sc.kv_within, sc.tokens_within_5pct) for sc in rows) == [
        (541_764, 12.73, 7.86, True, False, False), (560_445, 12.73, 7.86, True, False, False)]


def test_marlin_turns_block_fp8_scales_into_16_bit_group_scales_on_ampere():
    # quantization/utils/marlin_utils_fp8.py prepare_fp8_layer_for_marlin / prepare_fp8_moe_layer_for_marlin (0.12.0,
    # 0.19.0): below compute capability 8.9 a 128 x 128 block scale becomes one 16-bit scale per 128 weights of a row,
    # 2/128 B a quantised weight beside its byte. genn888/MASS_delivery (set 15): MiniMax-M2.7 at TP4 on A100-80GB,
    # 0.22.1, 0.9, 131,072 tokens, piecewise graphs, pip; logged 244,576 tokens
    m = find_model("MiniMaxAI/MiniMax-M2.7")
    assert m.hf_config["quantization_config"]["weight_block_size"] == [128, 128]
    settings = sizing.EngineSettings(tp=4, gpu_memory_utilization=0.9, max_model_len=131072, pip_install=True,
                                     cudagraph_mode="PIECEWISE")
    a100 = sizing.Device("A100-SXM4-80GB", 79.15, "nvidia", "ampere", 4)
    h100 = sizing.Device("H100-SXM-80GB", 79.19, "nvidia", "hopper", 8)
    l40s = sizing.Device("L40S", 44.52, "nvidia", "ada", 1)
    assert [sizing.marlin_fp8_group(m, settings, "fp8", d) for d in (a100, h100, l40s)] == [128, 0, 0]
    on_a100 = sizing.size_deployment(m, a100, settings, "0.22.1")
    on_h100 = sizing.size_deployment(m, h100, settings, "0.22.1")
    # 53.58 GiB a GPU with the checkpoint's 1 byte a weight (Hopper runs it in FP8); 54.41 with Marlin's scales, and
    # the count 254,480 (+4.0 %; 234,640, -4.1 %, without the scales and with the 2 GiB of the 0.19+ TP term)
    assert (round(on_h100.weights_gib_per_gpu, 4), round(on_a100.weights_gib_per_gpu, 4)) == (53.581, 54.4085)
    assert on_a100.kv_cache_tokens == 254480
    # a checkpoint quantised per channel keeps one scale a column, and an FP8 quantisation at load is not block-wise
    assert sizing.marlin_fp8_group(find_model("Qwen/Qwen3-8B-FP8"), sizing.EngineSettings(), "fp8", a100) == 0
    fp8_flag = sizing.EngineSettings(quantization="fp8")
    assert sizing.marlin_fp8_group(find_model("Qwen/Qwen3-8B"), fp8_flag, "fp8", a100) == 0
