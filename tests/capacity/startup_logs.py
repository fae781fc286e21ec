"""The public vLLM start-up logs of ``data/startup_logs.json`` and the held-out sets after it
(``data/startup_logs_<n>.json``), and how the capacity model scores against them.

One place reads the cases and scores them: ``test_calibration.py`` holds the model to each one, and
``benchmarks/startup_logs.py`` prints the scoreboard an outside evaluation would (verdicts right, KV budgets within
tolerance, token counts within 5 %, weights within their asymmetric band), by release line.

Models the catalog lacks are explicit shapes here, each from its published config.json.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import CatalogError, find_gpu, find_model
from shardwise.rules.model.shapes import ModelShape

GIB = 1024**3
DATA = Path(__file__).with_name("data") / "startup_logs.json"
#: Every held-out set: the first file and the sets added after it (``startup_logs_<n>.json``), in that order.
SETS = (DATA, *sorted(DATA.parent.glob("startup_logs_*.json")))

#: Qwen/Qwen2.5-VL-72B-Instruct config.json (vision tower of 32 layers, 1,280 wide, window attention).
QWEN25_VL_72B = ModelShape(
    id="Qwen/Qwen2.5-VL-72B-Instruct", params=73_410_000_000, num_hidden_layers=80, hidden_size=8192,
    num_attention_heads=64, num_key_value_heads=8, head_dim=128, intermediate_size=29568, vocab_size=152064,
    max_position_embeddings=128000,
    hf_config={"model_type": "qwen2_5_vl", "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
               "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3456, "patch_size": 14,
                                 "spatial_merge_size": 2, "window_size": 112, "hidden_act": "silu"}},
)
#: google/gemma-3-4b-it config.json (SigLIP tower, 256 tokens per image, every 6th layer global).
GEMMA3_4B = dataclasses.replace(
    find_model("google/gemma-3-4b-it"),
    hf_config={"model_type": "gemma3", "sliding_window": 1024, "sliding_window_pattern": 6,
               "mm_tokens_per_image": 256,
               "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "image_size": 896,
                                 "patch_size": 14, "hidden_act": "gelu_pytorch_tanh"}},
)
#: deepseek-ai/DeepSeek-R1-Distill-Qwen-14B config.json: Qwen2.5-14B's shape, max_position_embeddings 131,072.
R1_DISTILL_14B = dataclasses.replace(find_model("Qwen/Qwen2.5-14B-Instruct"),
                                     id="deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", max_position_embeddings=131072)
#: Qwen/Qwen2-7B-Instruct config.json: Qwen2.5-7B's shape (28 layers, hidden 3,584, 28 heads, 4 KV heads, MLP 18,944,
#: vocabulary 152,064, untied embeddings, max_position_embeddings 32,768, use_sliding_window false).
QWEN2_7B = dataclasses.replace(find_model("Qwen/Qwen2.5-7B-Instruct"), id="Qwen/Qwen2-7B-Instruct")

#: A DeepSeek-R1-Distill-Qwen-32B FP8 re-upload: the distill's shape (catalog), its linear layers stored as FP8; the
#: log's config line gives quantization=compressed-tensors (one scale per output channel, llm-compressor's FP8 scheme).
R1_DISTILL_32B_FP8 = dataclasses.replace(
    find_model("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"), id="DeepSeek-R1-Distill-Qwen-32B-FP8", precision="fp8",
    quantization="compressed-tensors", base_model="deepseek-ai/DeepSeek-R1-Distill-Qwen-32B")
#: cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit: Qwen3-30B-A3B-Thinking-2507's shape (catalog), its weights 4-bit;
#: the log's config line gives quantization=compressed-tensors (an AWQ-calibrated W4A16 checkpoint).
QWEN3_30B_A3B_AWQ = dataclasses.replace(
    find_model("Qwen/Qwen3-30B-A3B-Thinking-2507"), id="cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit",
    precision="int4", quantization="compressed-tensors", base_model="Qwen/Qwen3-30B-A3B-Thinking-2507")

#: Quantised re-uploads of catalog models logged on a DGX Spark (set 10): the catalog's shape, its linear layers
#: stored as the log's config line says (quantization=compressed-tensors for all three).
#: cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4: Gemma 4 26B-A4B (catalog), 4-bit AWQ weights. Its quantization_config (the
#: checkpoint's config.json was not reachable here; what public copies of it at revision 18a3c72 say): compressed-tensors
#: ``pack-quantized``, int4, ``group_size`` 32, symmetric (a pinned-contract note of a V100 benchmark repository), and
#: an ignore list naming the dense MLP beside the experts, the router and ``lm_head`` (a meta-device load test of the
#: checkpoint: "only the dense mlp, the router and lm_head are in the checkpoint's ignore list"; its text-only loader
#: does not build the vision tower, whose 16 bits the checkpoint's 17.2 GB on the Hub imply: 17.14 GB with the tower
#: 16-bit, 16.35 GB with it 4-bit). The entries are spelt as regular expressions over those modules, not verbatim.
_GEMMA4_AWQ_QUANT = {
    "quant_method": "compressed-tensors", "format": "pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": True}}},
    "ignore": ["lm_head", "re:.*router.*", "re:.*mlp\\.(gate|up|down)_proj$", "re:.*vision_tower.*",
               "re:.*embed_vision.*"],
}
_GEMMA4 = find_model("google/gemma-4-26B-A4B-it")
GEMMA4_26B_A4B_AWQ = dataclasses.replace(
    _GEMMA4, id="cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4", precision="int4",
    quantization="compressed-tensors", base_model="google/gemma-4-26B-A4B-it",
    hf_config={**_GEMMA4.hf_config, "quantization_config": _GEMMA4_AWQ_QUANT})
#: RedHatAI/gemma-4-26B-A4B-it-NVFP4: Gemma 4 26B-A4B (catalog), NVFP4 weights. Its quantization_config (the checkpoint's
#: config.json was not reachable here) as llm-compressor's recipe for this model writes it
#: (vllm-project/llm-compressor ``examples/quantization_w4a4_fp4/gemma4_example.py`` at 0babc01e: scheme NVFP4, ignore
#: ``lm_head``, the embeddings, the routers and the vision tower; the dense MLP beside the experts is quantised).
_GEMMA4_NVFP4_QUANT = {
    "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True}}},
    "ignore": ["lm_head", "re:.*embed.*", "re:.*router", "re:.*vision_tower.*"],
}
GEMMA4_26B_A4B_NVFP4 = dataclasses.replace(
    _GEMMA4, id="RedHatAI/gemma-4-26B-A4B-it-NVFP4", precision="nvfp4",
    quantization="compressed-tensors", base_model="google/gemma-4-26B-A4B-it",
    hf_config={**_GEMMA4.hf_config, "quantization_config": _GEMMA4_NVFP4_QUANT})
#: RedHatAI/Qwen3.6-35B-A3B-NVFP4: Qwen3.6-35B-A3B (catalog), NVFP4 weights. Its quantization_config (the checkpoint's
#: config.json was not reachable here) as llm-compressor's own recipe for this model writes it
#: (vllm-project/llm-compressor ``examples/quantization_w4a4_fp4/qwen3_6_example.py`` at 009e5b91: scheme NVFP4, group
#: 16, ignore ``lm_head``, the vision tower, the routers ``mlp.gate``, ``embed_tokens``, ``shared_expert_gate`` and
#: Gated DeltaNet's ``linear_attn``), plus the MTP module: the recipe does not load the MTP layers ("No need to ignore
#: mtp layers as they are not loaded"), so a checkpoint vLLM runs with ``--speculative-config mtp`` (this log) ships the
#: base model's 16-bit MTP weights, which vLLM loads unquantised only when the ignore list names them.
_QWEN36_NVFP4_QUANT = {
    "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True}}},
    "ignore": ["re:.*lm_head", "re:visual.*", "re:model.visual.*", "re:.*mlp.gate$", "re:.*embed_tokens$",
               "re:.*shared_expert_gate$", "re:.*linear_attn.*", "re:.*mtp.*"],
}
_QWEN36 = find_model("Qwen/Qwen3.6-35B-A3B")
QWEN36_35B_A3B_NVFP4 = dataclasses.replace(
    _QWEN36, id="RedHatAI/Qwen3.6-35B-A3B-NVFP4", precision="nvfp4",
    quantization="compressed-tensors", base_model="Qwen/Qwen3.6-35B-A3B",
    hf_config={**_QWEN36.hf_config, "quantization_config": _QWEN36_NVFP4_QUANT})

#: RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic (set 12): Gemma 4 26B-A4B (catalog), its linear layers stored as FP8; the
#: log's config line gives quantization=compressed-tensors (CompressedTensorsW8A8Fp8, dynamic per-token activations).
GEMMA4_26B_A4B_FP8 = dataclasses.replace(
    find_model("google/gemma-4-26B-A4B-it"), id="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", precision="fp8",
    quantization="compressed-tensors", base_model="google/gemma-4-26B-A4B-it")

#: huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2 (set 13): an abliterated fine-tune of gpt-oss-20b (catalog) with its
#: shape and weight format; the log's config line gives quantization=mxfp4.
GPT_OSS_20B_ABLITERATED = dataclasses.replace(
    find_model("openai/gpt-oss-20b"), id="huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2",
    base_model="openai/gpt-oss-20b")

#: nvidia/Llama-3.3-70B-Instruct-FP8 (set 16): Llama-3.3-70B-Instruct's shape (catalog), its linear layers stored as FP8
#: by NVIDIA's ModelOpt (hf_quant_config quant_algo FP8, lm_head excluded), which vLLM loads as ``modelopt``.
LLAMA33_70B_FP8_MODELOPT = dataclasses.replace(
    find_model("meta-llama/Llama-3.3-70B-Instruct"), id="nvidia/Llama-3.3-70B-Instruct-FP8", precision="fp8",
    quantization="modelopt", base_model="meta-llama/Llama-3.3-70B-Instruct")

#: nvidia/Gemma-4-31B-IT-NVFP4 (set 17): Gemma 4 31B-IT's shape (catalog), quantised by NVIDIA's Model Optimizer
#: (modelopt v0.37.0) to NVFP4, which vLLM loads as ``modelopt_fp4``. Its quantization_config (the checkpoint's
#: config.json was not reachable here) as kenrollins/gemma-forge quotes it (docs/journal/gotchas/nvfp4-vram-math.md at
#: 2982efb: "Quantized (FP4): MLP/FFN layers only (weights AND activations, group_size=16)"; "NOT quantized (stays bf16):
#: ALL 60 self-attention layers, the LM head, and the vision encoder"; its KV cache FP8, context-window-edge.md). The
#: exclusions are spelt as ModelOpt's ``exclude_modules`` patterns over those modules, not verbatim. The catalog's copy of
#: the checkpoint's config.json (catalog47, ai-dynamo/aiconfigurator 095f58a) has the same list: ``lm_head``,
#: ``model.embed_vision*``, ``model.vision_tower*`` and every layer's ``self_attn*`` (toksingle10 checked).
_GEMMA4_31B = find_model("google/gemma-4-31B-it")
GEMMA4_31B_NVFP4_MODELOPT = dataclasses.replace(
    _GEMMA4_31B, id="nvidia/Gemma-4-31B-IT-NVFP4", precision="nvfp4", quantization="modelopt_fp4",
    base_model="google/gemma-4-31B-it",
    hf_config={**_GEMMA4_31B.hf_config, "quantization_config": {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": "FP8",
        "exclude_modules": ["lm_head", "*self_attn*", "*vision_tower*", "*embed_vision*"]}})

#: zai-org/GLM-4.7-FP8 (set 19): GLM-4.7's shape (catalog; its note: the same 92 layers, 160 experts and 202,752 tokens
#: in GLM-4.7-FP8's config.json), its linear layers stored as FP8. The checkpoint's quantization_config was not read here;
#: it is taken as the catalog's zai-org/GLM-4.5-FP8 (compressed-tensors FP8, one scale per output channel), the format
#: of zai-org's earlier FP8 release of the same architecture.
_GLM47 = find_model("zai-org/GLM-4.7")
GLM47_FP8 = dataclasses.replace(
    _GLM47, id="zai-org/GLM-4.7-FP8", precision="fp8", quantization="compressed-tensors",
    base_model="zai-org/GLM-4.7",
    hf_config={**_GLM47.hf_config,
               "quantization_config": find_model("zai-org/GLM-4.5-FP8").hf_config["quantization_config"]})
#: Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8 (set 19): Qwen3-Coder-480B-A35B-Instruct's shape (catalog), its linear layers
#: stored as FP8 in 128 x 128 blocks, Qwen's FP8 format (the catalog's Qwen/Qwen3-235B-A22B-FP8 quantization_config:
#: quant_method fp8, e4m3, dynamic activations, weight_block_size [128, 128]).
_QWEN3_CODER_480B = find_model("Qwen/Qwen3-Coder-480B-A35B-Instruct")
QWEN3_CODER_480B_FP8 = dataclasses.replace(
    _QWEN3_CODER_480B, id="Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", precision="fp8", quantization="fp8",
    base_model="Qwen/Qwen3-Coder-480B-A35B-Instruct",
    hf_config={**_QWEN3_CODER_480B.hf_config,
               "quantization_config": find_model("Qwen/Qwen3-235B-A22B-FP8").hf_config["quantization_config"]})

#: Google's quantisation-aware-trained Gemma 4 exports in compressed-tensors W4A16 (set 22), which vLLM loads with
#: ``CompressedTensorsWNA16`` (MarlinLinearKernel): int4 symmetric, group 32 (xbill9/gemma4-dev
#: ``gpu-vllm-t4-2b/benchmarks/runs/2026-09-18-qat-vs-bf16-t4/REPORT.md`` at 5f0fa566: "int4 symmetric, group 32,
#: MarlinLinearKernel"; its ``QUANTIZATION.md``: group size 32 measured on the shards). Only the transformer body is
#: 4-bit: the E2B export's safetensors header (xbill9/sagemaker-gemma ``docs/articles/evidence/qat-safetensors-header.txt``
#: as its QAT article tabulates it) stores the per-layer embedding, the vocabulary embedding and the audio and vision
#: towers in BF16, and the 31B export keeps ``embed_tokens`` and the norms in BF16 (gemma4-dev ``QUANTIZATION.md``,
#: bit-identical to the unquantised release). The checkpoints' config.json were not read; the ignore list is spelt as
#: regular expressions over those modules, not verbatim. The E4B and 31B exports are taken to share the E2B's format.
_GEMMA4_QAT_W4A16_QUANT = {
    "quant_method": "compressed-tensors", "format": "pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": True}}},
    "ignore": ["lm_head", "re:.*embed.*", "re:.*vision_tower.*", "re:.*audio_tower.*"],
}


def _gemma4_qat(base: str, repo: str, distinct_lm_head: bool = False) -> ModelShape:
    shape = find_model(base)
    return dataclasses.replace(
        shape, id=repo, precision="int4", quantization="compressed-tensors", base_model=base,
        distinct_lm_head=distinct_lm_head, hf_config={**shape.hf_config, "quantization_config": _GEMMA4_QAT_W4A16_QUANT})


#: The E-series exports store an LM head of their own, read from the E2B export's header (added after set 22 was
#: scored): its "Vocabulary embedding" is 1.611 GB BF16, 2 x 262,144 x 1,536 x 2 bytes, two tables where the tied
#: release has one (xbill9/sagemaker-gemma's QAT article). Their config keeps Gemma 4's tied embeddings (tokens36):
#: vLLM 0.28.0 ties and skips the head (floSa/data-analyst-agent's E4B start loads 9.81 GiB, the tied count) and
#: 0.29+ loads it untied, the two tables differing (set 22's 0.30.0 starts: E2B 8.01 - 8.02 GiB, E4B 11.04, one 16-bit
#: head, 0.75 and 1.25 GiB, above it): ``ModelShape.distinct_lm_head``. The 31B export is tied: its 19.78 GiB logged
#: at 0.30.0 leaves no room for a second 2.62 GiB table (gemma4-dev QUANTIZATION.md: embed_tokens alone, bit-identical).
GEMMA4_E2B_QAT = _gemma4_qat("google/gemma-4-E2B-it", "google/gemma-4-E2B-it-qat-w4a16-ct", distinct_lm_head=True)
GEMMA4_E4B_QAT = _gemma4_qat("google/gemma-4-E4B-it", "google/gemma-4-E4B-it-qat-w4a16-ct", distinct_lm_head=True)
GEMMA4_31B_QAT = _gemma4_qat("google/gemma-4-31B-it", "google/gemma-4-31B-it-qat-w4a16-ct")
#: xbill9/gemma-4-26B-A4B-it-qat-q4_0-w4a16-ct (set 22): a local repack of Google's 26B-A4B ``-qat-q4_0-unquantized``
#: release (whose values already sit on a 4-bit grid in groups of 32, gemma4-dev ``QUANTIZATION.md``) into the same
#: compressed-tensors W4A16 format; the log names ``compressed-tensors``. Its ignore list is not published; taken as the
#: Google exports' (embeddings and vision tower in BF16) plus the routers, which vLLM's fused-MoE path reads unquantised.
_GEMMA4_26B_REPACK = find_model("google/gemma-4-26B-A4B-it")
GEMMA4_26B_A4B_W4A16_REPACK = dataclasses.replace(
    _GEMMA4_26B_REPACK, id="xbill9/gemma-4-26B-A4B-it-qat-q4_0-w4a16-ct", precision="int4",
    quantization="compressed-tensors", base_model="google/gemma-4-26B-A4B-it",
    hf_config={**_GEMMA4_26B_REPACK.hf_config, "quantization_config": {
        **_GEMMA4_QAT_W4A16_QUANT, "ignore": [*_GEMMA4_QAT_W4A16_QUANT["ignore"], "re:.*router.*"]}})

#: cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4 (set 22, second batch): Qwen3.8-27B (catalog) in 4-bit with "the unquantised
#: part kept in bf16" (SuperSumanov/aira-dojo-noise-robust ``LOCAL_VLLM_SERVER.md``). Its format is read from a census of
#: the checkpoint's config.json and model.safetensors.index.json (tokens45: ro99/moxie
#: ``docs/tasks/0027-m3-generated-plans-and-automatic-budgets.md`` at 19073a1a, "Coverage matrix, measured read-only"):
#: compressed-tensors pack-quantized, 4-bit, group 32, asymmetric, as its AWQ-INT4 sibling (the catalog's entry), and
#: 1,967 index tensors, "256 x 4 + 943 others": 256 packed linears, the 64 MLPs' gate, up and down (192) and the 16
#: full-attention layers' q, k, v and o (64). Everything else is 16-bit: the 48 Gated DeltaNet ``linear_attn`` blocks
#: whole, the vision tower, the LM head and the MTP module (vLLM 0.29's ``Qwen3_5Model.load_weights`` skips ``mtp.``
#: names without a speculative config). The ignore list is spelt from that census, not copied from the config.json.
#: Until tokens45 the format was AutoAWQ's (4 bits, group 128: 0.520 B a weight against 0.578 with zero points).
_QWEN38 = find_model("Qwen/Qwen3.8-27B")
QWEN38_27B_AWQ_BF16_INT4 = dataclasses.replace(
    _QWEN38, id="cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", precision="int4", quantization="compressed-tensors", aliases=(),
    base_model=_QWEN38.id, extra={**_QWEN38.extra, "resolved_from": _QWEN38.id},
    hf_config={**_QWEN38.hf_config, "quantization_config": {
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": False}}},
        "ignore": ["lm_head", "re:.*visual.*", "re:mtp.*", "re:.*linear_attn.*"]}})

#: cssnoeasy/a100-vllm-benchmark-blog's self-built Qwen3-32B W4A16 GPTQ (set 24): Qwen3-32B's shape (catalog), quantised
#: by llm-compressor 0.12.0.1's GPTQModifier as the post states its recipe (docs/reports/a100-quantization-capacity.md at
#: 5b67cd24: "INT4 权重、group size 128、symmetric、group strategy、static actorder，目标模块为 `Linear`，忽略 `lm_head`";
#: the artefact's config: quant_method=compressed-tensors, format=pack-quantized). The quantization_config is spelt from
#: that recipe, not copied from the checkpoint's config.json (not published).
_QWEN3_32B = find_model("Qwen/Qwen3-32B")
QWEN3_32B_W4A16_GPTQ_SELF = dataclasses.replace(
    _QWEN3_32B, id="Qwen3-32B-W4A16-GPTQ-wikitext2", precision="int4", quantization="compressed-tensors",
    base_model="Qwen/Qwen3-32B",
    hf_config={**_QWEN3_32B.hf_config, "quantization_config": {
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": True,
            "actorder": "static"}}},
        "ignore": ["lm_head"]}})

#: cyankiwi/MiniMax-M2.7-AWQ-4bit (set 25): MiniMax-M2.7's shape (catalog), its weights 4-bit. The checkpoint's config.json
#: was not read here: taken as the format of cyankiwi's other AWQ-4bit uploads in these sets (compressed-tensors, 4-bit
#: weights, 16-bit activations: QWEN3_30B_A3B_AWQ, GEMMA4_26B_A4B_AWQ), the base model's FP8 quantization_config dropped.
_MINIMAX_M27 = find_model("MiniMaxAI/MiniMax-M2.7")
MINIMAX_M27_AWQ_CYANKIWI = dataclasses.replace(
    _MINIMAX_M27, id="cyankiwi/MiniMax-M2.7-AWQ-4bit", precision="int4", quantization="compressed-tensors",
    base_model="MiniMaxAI/MiniMax-M2.7",
    hf_config={k: v for k, v in _MINIMAX_M27.hf_config.items() if k != "quantization_config"})
#: A Qwen2.5-32B-Instruct INT8 W8A16 checkpoint (set 25, vllm#17238, a local directory named
#: ``Qwen2.5-32B-Instruct-INT8-W8A16``): the catalog's Qwen2.5-32B-Instruct shape, its linear layers stored as 8-bit
#: integers with 16-bit activations (compressed-tensors W8A16, the scheme its name gives; its config.json is not published).
QWEN25_32B_W8A16 = dataclasses.replace(
    find_model("Qwen/Qwen2.5-32B-Instruct"), id="Qwen2.5-32B-Instruct-INT8-W8A16", precision="int8",
    quantization="compressed-tensors", base_model="Qwen/Qwen2.5-32B-Instruct")

SHAPES: dict[str, ModelShape] = {
    "QWEN25_VL_72B": QWEN25_VL_72B, "GEMMA3_4B": GEMMA3_4B, "R1_DISTILL_14B": R1_DISTILL_14B, "QWEN2_7B": QWEN2_7B,
    "R1_DISTILL_32B_FP8": R1_DISTILL_32B_FP8, "QWEN3_30B_A3B_AWQ": QWEN3_30B_A3B_AWQ,
    "GEMMA4_26B_A4B_AWQ": GEMMA4_26B_A4B_AWQ, "GEMMA4_26B_A4B_NVFP4": GEMMA4_26B_A4B_NVFP4,
    "QWEN36_35B_A3B_NVFP4": QWEN36_35B_A3B_NVFP4, "GEMMA4_26B_A4B_FP8": GEMMA4_26B_A4B_FP8,
    "GPT_OSS_20B_ABLITERATED": GPT_OSS_20B_ABLITERATED, "LLAMA33_70B_FP8_MODELOPT": LLAMA33_70B_FP8_MODELOPT,
    "GEMMA4_31B_NVFP4_MODELOPT": GEMMA4_31B_NVFP4_MODELOPT, "GLM47_FP8": GLM47_FP8,
    "QWEN3_CODER_480B_FP8": QWEN3_CODER_480B_FP8,
    "GEMMA4_E2B_QAT": GEMMA4_E2B_QAT, "GEMMA4_E4B_QAT": GEMMA4_E4B_QAT, "GEMMA4_31B_QAT": GEMMA4_31B_QAT,
    "GEMMA4_26B_A4B_W4A16_REPACK": GEMMA4_26B_A4B_W4A16_REPACK, "QWEN38_27B_AWQ_BF16_INT4": QWEN38_27B_AWQ_BF16_INT4,
    "QWEN3_32B_W4A16_GPTQ_SELF": QWEN3_32B_W4A16_GPTQ_SELF,
    "MINIMAX_M27_AWQ_CYANKIWI": MINIMAX_M27_AWQ_CYANKIWI, "QWEN25_32B_W8A16": QWEN25_32B_W8A16,
}


@dataclasses.dataclass(frozen=True)
class Log:
    """One start-up log: the run's release, model, GPU and settings, and what vLLM logged."""

    url: str
    release: str
    model: ModelShape
    gpu: str
    gpu_gib: float  # total memory as the runtime reported it
    settings: sizing.EngineSettings
    started: bool
    weights_gib: float | None = None
    kv_gib: float | None = None
    tokens: int | None = None
    arch: str = "ampere"
    vendor: str = "nvidia"
    nvlink_domain: int | None = None
    central: bool = True  # False: the failure is inside the error band; only the banded verdict is held to it
    logged: str = ""
    #: A known miss the model does not explain yet, and why: the test expects it to fail (strictly, so a fix shows),
    #: the scoreboard counts it as a miss.
    open_miss: str = ""
    #: The compile cache's state as the source shows it ("cold": it compiled, "warm": it loaded the compiled graphs
    #: from the cache), with ``compile_source`` quoting where; "" where the source was not read for it (``compile_state``
    #: then derives eager or unknown).
    compile: str = ""
    compile_source: str = ""

    @property
    def line(self) -> str:
        """The release line it belongs to on the scoreboard: 0.6, 0.7, ..., 0.11, 0.2x."""
        major, minor = (int(p) for p in self.release.split(".")[:2])
        return f"{major}.2x" if (major == 0 and minor >= 20) else f"{major}.{minor}"


def _model(ref: str) -> ModelShape:
    return SHAPES[ref.removeprefix("shape:")] if ref.startswith("shape:") else find_model(ref)


def load(*paths: Path) -> list[Log]:
    """The cases of the data files (every set, ``SETS``, when none is named), in their order."""
    cases = [c for path in (paths or SETS) for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    logs = []
    for c in cases:
        settings = dict(c.get("settings", {}))
        if "mm_limits" in settings:  # JSON holds the (modality, items) pairs as lists
            settings["mm_limits"] = tuple((str(m), int(n)) for m, n in settings["mm_limits"])
        if c.get("compile") == "warm":  # the source shows it loaded the compiled graphs; else a start is cold
            settings["compile_cache"] = "warm"
        logs.append(Log(
            url=c["url"], release=c["release"], model=_model(c["model"]), gpu=c["gpu"], gpu_gib=float(c["gpu_gib"]),
            settings=sizing.EngineSettings(**settings), started=bool(c["started"]),
            weights_gib=c.get("weights_gib"), kv_gib=c.get("kv_gib"), tokens=c.get("tokens"),
            arch=c.get("arch", "ampere"), vendor=c.get("vendor", "nvidia"), nvlink_domain=c.get("nvlink_domain"),
            central=c.get("central", True), logged=c.get("logged", ""), open_miss=c.get("open_miss", ""),
            compile=c.get("compile", ""), compile_source=c.get("compile_source", ""),
        ))
    return logs


def nvlink_domain(log: Log) -> int | None:
    """The row's NVLink domain: what its source says (``Log.nvlink_domain``), else the catalog's for its GPU, as
    ``lint`` and ``plan`` take it for a manifest (``catalog/lookup.py``: a PCIe-only card is alone, an HGX board joins
    8), else unknown (None, which ``sizing.tp_buffers_counted`` charges as NVLink-joined). Without the catalog's
    domain a row that leaves the field out got the 0.19+ NVLink communication buffers on a PCIe pair of GeForce cards
    (set 21: two RTX 4090s at TP2 on 0.28.0, 1.77 GiB below the logged budget)."""
    if log.nvlink_domain is not None:
        return log.nvlink_domain
    try:
        return find_gpu(log.gpu).nvlink_domain_size
    except CatalogError:
        return None


#: The compute capability of the rows' NVIDIA GPUs that the catalog does not hold (NVIDIA's CUDA GPUs page,
#: https://developer.nvidia.com/cuda-gpus): the GeForce RTX 50 cards and an RTX PRO 4500 Blackwell's MIG slice 12.0, the
#: DGX Spark's GB10 12.1. The ``blackwell`` label alone does not say it (B200 10.0, B300 10.3).
CAPABILITY_NOT_IN_CATALOG = {"GB10": (12, 1), "RTX 5060 Ti": (12, 0), "RTX 5080": (12, 0),
                             "RTX PRO 4500 1g.16gb": (12, 0)}


def capability(log: Log) -> tuple[int, int] | None:
    """The row's GPU's compute capability: the catalog's for its GPU, else :data:`CAPABILITY_NOT_IN_CATALOG`'s, else
    None (``sizing.Device.capability`` then reads it from the architecture where the label fixes it)."""
    if log.vendor != "nvidia":
        return None
    try:
        return find_gpu(log.gpu).compute_capability
    except CatalogError:
        return CAPABILITY_NOT_IN_CATALOG.get(log.gpu)


def size(log: Log) -> sizing.ReplicaSizing:
    device = sizing.Device(log.gpu, log.gpu_gib, log.vendor, log.arch, nvlink_domain(log),  # type: ignore[arg-type]
                           compute_capability=capability(log))
    return sizing.size_deployment(log.model, device, log.settings, log.release)


@dataclasses.dataclass(frozen=True)
class Score:
    """How the model did on one log (None: vLLM logged no such figure)."""

    log: Log
    sized: sizing.ReplicaSizing
    verdict_right: bool  # the central verdict (where the log holds it to one) and never the opposite beyond the band
    kv_within: bool | None  # within max(0.6 GiB, 4 % of the usable memory)
    tokens_within_5pct: bool | None
    tokens_within_band: bool | None  # within the KV tolerance, in tokens
    #: within the weights' band: at most ``weights_error_gib`` below what vLLM loaded, at most
    #: ``weights_error_below_gib`` above it (sizing.weights_band)
    weights_within: bool | None
    #: the token count shardwise's cache layout gives for the budget vLLM logged (its tokens per GiB times the logged
    #: GiB), where the log gives both a budget and a token count: a token miss whose count from the logged budget is
    #: right is a budget error (weights, activation, non-torch memory, graphs), one whose count is wrong a layout error
    #: (bytes a token, block size, groups, what a request holds)
    tokens_from_logged_kv: int | None = None

    @property
    def logged_budget_gives_logged_tokens(self) -> bool | None:
        """Whether the token count shardwise's layout makes of the logged budget is the logged count: within 0.5 %, or
        within what the budget's rounding to 0.01 GiB allows where that is more (0.005 GiB of a budget under 1 GiB:
        1.0 % of set 28's 0.49 GiB, whose 9,088 tokens at 57,344 bytes are 0.4854 GiB). None where the log gives no
        budget or no count."""
        if self.tokens_from_logged_kv is None or self.log.tokens is None or self.log.kv_gib is None:
            return None
        rel = max(0.005, 0.005 / abs(self.log.kv_gib)) if self.log.kv_gib else 0.005
        return abs(self.tokens_from_logged_kv - self.log.tokens) <= rel * self.log.tokens

    @property
    def logged_blocks(self) -> int | None:
        """Of a row that logs a token count but no budget, the whole number of KV blocks that gives the logged count
        under shardwise's layout (tokens44): vLLM's "GPU KV cache size" is ``int(num_blocks ÷ blocks a request ×
        max_model_len)`` from 0.20 (``get_kv_cache_capacity``, ``v1/core/kv_cache_utils.py``), the blocks a request
        being shardwise's ``kv_blocks ÷ max_concurrency``, or ``num_blocks × block_size`` where one full-attention
        group reports blocks. 0 where no block count gives it: the layout (blocks a request, groups, block size)
        differs from vLLM's at the row's flags, whatever the budget. None where the row logs a budget (the budget
        splits it: :attr:`miss_class`), logs no count, or shardwise's plan is empty or of neither form."""
        s, lg = self.sized, self.log
        if lg.tokens is None or lg.kv_gib is not None or s.kv_blocks <= 0 or s.max_concurrency <= 0:
            return None
        length = s.max_model_len
        per_request = round(s.kv_blocks / s.max_concurrency)
        if s.kv_cache_tokens == int(s.kv_blocks / per_request * length):
            guess = lg.tokens * per_request // length
            return next((n for n in range(max(guess - 2, 1), guess + 3)
                         if int(n / per_request * length) == lg.tokens), 0)
        if s.kv_cache_tokens == s.kv_blocks * s.block_size:
            return lg.tokens // s.block_size if lg.tokens % s.block_size == 0 else 0
        return None

    @property
    def miss_class(self) -> str:
        """Of a token count outside 5 %: "budget" where the logged budget gives the logged count within 0.5 % or its
        rounding (:attr:`logged_budget_gives_logged_tokens`: the layout is right), "layout" where it does not on one
        GPU, "stage" where it does not at PP > 1 (a log quotes one stage's budget; the count is the binding stage's),
        "rank" where it does not at TP > 1 on one stage (each worker logs its own "Available KV cache memory", and the
        engine keeps the fewest blocks of all workers: ``unify_kv_cache_configs``, ``v1/core/kv_cache_utils.py``, read
        in 0.9.2, where each worker's "GPU KV cache size" is logged too, before the minimum is taken), "unsplit" where
        the log gives no budget; "" otherwise."""
        if self.tokens_within_5pct is not False:
            return ""
        if self.tokens_from_logged_kv is None or self.log.tokens is None:
            return "unsplit"
        if self.logged_budget_gives_logged_tokens:
            return "budget"
        if self.log.settings.pp > 1:
            return "stage"
        return "rank" if self.log.settings.tp > 1 else "layout"


def score(log: Log) -> Score:
    s = size(log)
    tolerance = max(0.6, 0.04 * s.usable_gib_per_gpu)
    banded = next((v for v in ("refuses", "may-refuse") if v in (s.verdict, s.margin_verdict)), "starts")
    right = banded != ("refuses" if log.started else "starts")
    if log.central:
        right = right and s.starts == log.started
    kv = None if log.kv_gib is None else abs(s.available_kv_gib - log.kv_gib) <= tolerance
    weights = None if log.weights_gib is None else (
        -s.weights_error_gib <= s.weights_gib_per_gpu - log.weights_gib <= s.weights_error_below_gib)
    tokens_5 = tokens_band = None
    from_logged = None
    if log.tokens is not None:
        tokens_5 = abs(s.kv_cache_tokens - log.tokens) <= 0.05 * log.tokens
        per_token = s.needed_kv_gib * GIB / s.max_model_len
        tokens_band = abs(s.kv_cache_tokens - log.tokens) <= tolerance * GIB / per_token
        if log.kv_gib is not None and s.available_kv_gib > 0 and s.kv_cache_tokens > 0:
            from_logged = round(s.kv_cache_tokens * log.kv_gib / s.available_kv_gib)
    return Score(log, s, right, kv, tokens_5, tokens_band, weights, from_logged)


#: A start's torch.compile state: "cold" (it compiled: "Compiling a graph for compile range ... takes X s", "torch.compile
#: takes X s in total" with X in seconds), "warm" ("Directly load the compiled graph(s) ... from the cache"), "eager" (no
#: torch.compile: ``--enforce-eager``, or the V0 engine, whose compilation level defaults to 0), "unknown".
COMPILE_STATES = ("cold", "warm", "eager", "unknown")


def compile_state(log: Log, sized: sizing.ReplicaSizing | None = None) -> str:
    """The row's compile state: what its source says (``Log.compile``), else eager where the engine arguments or the
    engine rule torch.compile out, else unknown (a V1 start whose log excerpt does not say whether it compiled)."""
    if log.compile:
        return log.compile
    if log.settings.enforce_eager or (sized or size(log)).engine == "v0":
        return "eager"
    return "unknown"


def _median(values: list[float]) -> float:
    vals = sorted(values)
    mid = len(vals) // 2
    return vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2


def compile_rows(logs: list[Log]) -> list[tuple[str, str, str, float]]:
    """(compile state, release line, GPU, budget residual) of every row that logs its KV budget: the residual is
    shardwise's available KV cache less the logged one, in GiB (positive: vLLM kept that much more beside the cache
    than the model charges)."""
    rows = []
    for lg in logs:
        if lg.kv_gib is None:
            continue
        s = size(lg)
        rows.append((compile_state(lg, s), lg.line, lg.gpu, round(s.available_kv_gib - lg.kv_gib, 2)))
    return rows


def compile_table(logs: list[Log]) -> str:
    """The budget residual by compile state, then by state and release line, then by state and GPU: rows, median and
    range of the residual (GiB), and how many sit more than 0.3 GiB over (the model charges too little)."""
    rows = compile_rows(logs)
    out = [f"{'compile':<8} {'release':<8} {'GPU':<22} {'rows':>4} {'median':>7} {'min':>6} {'max':>6} {'> +0.3':>6}"]

    def line(state: str, rel: str, gpu: str, vals: list[float]) -> str:
        over = sum(v > 0.3 for v in vals)
        return (f"{state:<8} {rel:<8} {gpu:<22} {len(vals):>4} {_median(vals):>+7.2f} {min(vals):>+6.2f} "
                f"{max(vals):>+6.2f} {over:>6}")

    for state in COMPILE_STATES:
        mine = [r for r in rows if r[0] == state]
        if not mine:
            continue
        out.append(line(state, "all", "all", [r[3] for r in mine]))
        for rel in sorted({r[1] for r in mine}, key=lambda x: [int(p) if p.isdigit() else 99
                                                              for p in x.replace("x", "").split(".")]):
            out.append(line(state, rel, "", [r[3] for r in mine if r[1] == rel]))
        for gpu in sorted({r[2] for r in mine}):
            out.append(line(state, "", gpu, [r[3] for r in mine if r[2] == gpu]))
    return "\n".join(out)


#: Why a token count is outside 5 % (tokens34, issue 28): each class with what its rows' own lines and vLLM's source
#: show, and what evidence would decide it (docs/capacity-model.md, "Token counts outside 5 %, by class"). A class
#: names a cause, never one row: the same term would move every row of it.
MISS_CAUSES: dict[str, tuple[str, str]] = {
    "wsl2-cold-compile": (
        "a cold torch.compile on a WSL2 host: the profile peak (one copy of the embedding) is charged from tokens33, "
        "the cold start's non-torch memory (0.95 GiB logged cold against 0.25 warm by 0.30.0's breakdown) is not",
        "a cold start's breakdown lines on Linux for the same card; a manifest cannot say WSL2"),
    "wsl2-profile-transient": (
        "one lab's RTX 4090 under WSL2 at 0.27.1: its sibling runs of the same shapes differ by 0.94 GiB, and what the "
        "budget lost was not held while serving (a transient of the profile); the compile state is not in the excerpts",
        "each start's compile lines ('Compiling a graph' or 'Directly load the compiled graph')"),
    "v2-moe-0.29": (
        "0.29.0 runs every generative model on Model Runner V2 (config/vllm.py use_v2_model_runner, read in 0.29.0); "
        "shardwise keeps 0.25's rule (V1's terms) for mixtures of experts, because V2's terms (a greedy profile sampler, "
        "the flat graph term) leave 0.7 - 1.2 GiB unexplained on these rows (tokens 90 -> 89 with them, tokens34; "
        "94 -> 94 and KV 113 -> 112, the residuals spread -0.91 to +1.22 GiB, tokens35). Four of set 12's and 21's "
        "text-only RedHatAI gemma-4-26B-A4B FP8-dynamic starts on an L40S joined in toksingle10 (+5.6 to +7.9 %, "
        "0.76 - 1.04 GiB more cache than logged; the block-48 one left it): with their weights as vLLM loads them (the "
        "tower --language-model-only leaves unbuilt out, 1.02 GiB; 24.58 GiB against 24.72 logged) their compiled "
        "runs keep about 0.8 - 1.0 GiB beside the cache that no term gives, the eager one 0.37 (within 5 %). tokmoe12 read "
        "what a mixture of experts allocates on 0.29.0's V2 runner: the fused-MoE workspaces are taken in the profile "
        "run and kept (counted; 0.04 - 1.38 GiB, of the size already charged), no MoE chunking is left, the dummy run "
        "gathers every DP rank's tokens as charged: none is the missing term. tokens14: from 0.28 V2's greedy profile "
        "holds the logits alone (no float32 copy), so V2's terms would charge these rows less still; the graphs are "
        "measured after memory_profiling's snapshot; gpt-oss TP1's DCGM reading (18,604 MiB serving, 0.56 GiB under the "
        "request) fits the cold-compile peak charged and leaves its +0.74 GiB to the unquoted consumed part. V2's "
        "penalty buffers alone (certain by source) bring six rows of the class in (tokens 114 -> 118) but take "
        "gpt-oss TP2 + EP and a 0.30.0 Gemma 4 26B-A4B QAT L4 row out, because V1's 16 B sampler stands in for about "
        "0.4 GiB that V2's terms leave unexplained: not charged until that term is found. tokens16: V2's whole 0.29 "
        "profile for every generative model (use_v2_model_runner) moves the rows apart, not in: gpt-oss-20b TP1 +31.0 -> "
        "+36.3 %, its FP8-cache row +13.2 -> +35.0 %, TP2 + EP -4.1 -> +4.0 %, the eager DP4 engines -6.7 -> -7.3 %, "
        "Qwen3-30B-A3B-FP8 TP4 +6.5 -> +14.1 %, the Gemma 4 26B-A4B FP8 rows +5.6 / +7.8 -> +4.9 / +11.1 %: the compiled "
        "gpt-oss TP1 starts keep 0.8 - 0.9 GiB more beside the cache than V2's terms give and the eager DP4 engines 0.9 "
        "less, so no one term of 0.29.0's profile_run, _dummy_run, _dummy_sampler_run or determine_available_memory "
        "(read again) is the missing one. tokens39: the modular fused-MoE kernel takes its caches from the shared "
        "WorkspaceManager buffer, which is never shrunk, so they are still held in the sampler run (charged from 0.14, "
        "Behaviour.moe_workspace_persists): the four text-only Gemma 4 26B-A4B FP8-dynamic rows left the class "
        "(+5.6 / +7.8 / +5.9 / +5.6 -> +4.5 / -1.3 / +4.8 / +4.5 %), Qwen3-30B-A3B-FP8 TP4 +6.5 -> +5.0 %; "
        "gpt-oss's MXFP4 experts are not charged it: on the L4 0.29.0 runs them on MarlinExperts, whose caches are in "
        "that buffer (logs27, read in the wheel), but charged at Marlin's own shapes the four gpt-oss rows split "
        "(+31.0 / +13.2 / -4.1 / -6.7 -> +19.9 / -10.2 / -9.6 / -12.3 %; with V2's terms too, Qwen3-30B-A3B-FP8 TP4 "
        "+5.0 -> +12.7 %)",
        "a 0.29+ start of a mixture of experts with V2's breakdown ('Actual usage ... peak activation ... CUDAGraph "
        "memory'), cold and warm; for the gpt-oss smoke rows their 'Model loading took' and 'Available KV cache "
        "memory' lines"),
    "large-tp-communicators": (
        "TP8 x PP2 on two NVLink nodes joined by GPUDirect-TCPXO (0.19.0) and TP8 on XGMI (V0 on ROCm): vLLM keeps 2.9 "
        "and 9 GiB a GPU more than modelled; NCCL on NVLink explains at most 0.5 GiB of the 0.19.0 row, RCCL's rings and "
        "trees at NCCL_MIN_NCHANNELS=112 3.5 of the MI300X row's 9 (nccl46; 0.9 - 0.10 on NVSwitch Hopper are charged). "
        "No TP8 NVSwitch term is missing at 0.12.0: the same command's probes on 8 x H200 log 66-67x where the row's "
        "61.44x was read, and shardwise is within +1.3 - +2.8 % of them (tokmulti10)",
        "NCCL_DEBUG=INFO channel and buffer lines, or a breakdown log, of a TP8 start"),
    "pip-sort": (
        "PyTorch's sort (a pip install without FlashInfer): vLLM kept 1.33 GiB beside the weights and the cache, less "
        "than the bare sort over 256 x 151,936 logits at the 38.2 B a logit measured on torch 2.11. logs16 (set 26): "
        "a pip install of 0.11.0 (an Ansible role's 'pip install vllm') on an RTX 5060 Ti, Qwen2.5-7B-Instruct-AWQ at "
        "32,768 tokens and 0.85: vLLM kept 1.85 GiB beside the modelled weights and the logged 6.47 GiB of cache, "
        "where the sort over 256 x 152,064 logits (1.40 GiB) and 0.12 of non-torch memory are charged: +0.33 GiB, "
        "+5.2 % tokens",
        "the sort measured on the release's torch (2.7.1, 2.8.0 for 0.11.0) on a GPU"),
    "install-unknown": (
        "an LMCache connector beside vLLM 0.9.2 / 0.10.2, installed by a path the thread does not give: as a pip install "
        "(PyTorch's sort) 0.10.2 is -1.5 %, 0.9.2 +28 %; at 0.27.1 the connector leaves the count unchanged (29,248 "
        "tokens with and without it, enginrect/llmso Lab 2); at TP4 the quoted budget may be another worker's",
        "the install (a traceback's paths, pip freeze, the image) and, for TP4, every worker's budget line"),
    "weights-format": (
        "the weights vLLM loads differ from the checkpoint's shape estimate (an FP8 compressed-tensors re-upload of "
        "DeepSeek-R1-Distill-Qwen-32B, 0.20 GiB under; the activation 0.12 under); with the logged weights the count "
        "is within 2 % (the Gemma 4 NVFP4 TP2 row of this class came within 5 % with Gemma 4's weights, toksingle10)",
        "the checkpoint's quantization_config and safetensors index (the log names only a local directory)"),
    "unified-memory": (
        "GB10's unified memory: the host's allocations land in the non-torch term, which has no GPU term. Set 25's two "
        "DGX Sparks joined by Ray at TP2 (cyankiwi's MiniMax-M2.7 AWQ, 0.29.1rc1) keep 16.4 GiB more beside the cache "
        "than modelled at 0.85 as at 0.80, with the layout right (vLLM's 23.25 GiB for 196,608 tokens); their "
        "CUDA-graph note ('0.80 effectively 0.758') puts about 5.1 GiB on graphs where 1.02 are charged, a device-wide "
        "delta that on unified memory also holds the host's allocations. logs29 read the 0.29.0 wheel: the budget is "
        "requested - total_consumed - transient peak, total_consumed the fall in psutil's available RAM from the "
        "instance's creation to the profile's end (utils/mem_utils.py memory_profiling; is_integrated_gpu from the "
        "device's properties), and the profile's first forward pass is where a cold torch.compile runs, so "
        "Inductor's and Triton's host memory is in it (eugr/spark-vllm-docker#286, the MiniMax rows' own repository: "
        "up to 30 GB on a Spark, released after start-up); profile_cudagraph_memory (V1 gpu_model_runner.py, V2 "
        "gpu/cudagraph_utils.py) takes raw cudaMemGetInfo deltas, not psutil's, which on unified memory also fall "
        "with the page cache the capture fills; release_device_memory_under_pressure acts only below 20 % available "
        "RAM, which a Spark at 0.80 - 0.85 does not reach. No term: the host's and the compiler's memory is not in "
        "the manifest",
        "the host's memory use during the profile (a MemorySnapshot debug line) and the start's compile state; for "
        "a GB10 pair, each worker's 'Model loading took' and breakdown lines"),
    "pp-rtx-pro-6000": (
        "0.27.1 pipeline stages on RTX PRO 6000 over PCIe, cold compile caches (fresh containers): at PP2 the log's "
        "Worker_PP0 budget (6.92 GiB) is the binding one and keeps 1.36 GiB more beside the cache than shardwise's "
        "first stage (8.28; its last stage 7.73, 0.81 over); the PP4 post quotes a stage that is not the binding one; "
        "the same post's TP2 run is within 0.10, and its TP4 breakdown logs 1.70 GiB of non-torch memory where 0.22 "
        "are charged and 0.33 less peak than modelled (tokmulti10): not one term. The PP2 excess is about one copy of "
        "the embedding (151,936 x 5,120 x 2 B = 1.45 GiB), as if the cold compile's copy came on top of the forward "
        "pass (1.41) instead of being the larger of the two; the one-GPU cold logs rule the sum out (0.26.0 "
        "Llama-3.1-8B on an A40: 1.01 logged, the larger 0.98, the sum with the sampler's 0.49 1.47; 0.27.1 Qwen3-8B: "
        "1.18 cold, 0.19 warm, the sum 1.35): no term (tokmisc12). tokens17: charged as a sum on sm_120 it closes the "
        "PP2 row (-0.04 GiB) only because the forward pass there (1.41) is about the copy, and it takes the same "
        "post's TP2 row out of 5 % (-7.6 %) and leaves every one-GPU cold sm_120 row of 0.28 - 0.30 0.43 - 1.42 GiB "
        "over: not charged",
        "every stage's budget line"),
    "profile-peak-0.15": (
        "0.15.1's profile at 8,192 tokens (8 sequences): 0.33 GiB beyond weights, forward, cold-compile peak and "
        "non-torch memory; the 0.14.1 FP8 run of the same shape is within 0.06",
        "the 0.15.1 start's compile lines and peak activation"),
    "source-ambiguous": (
        "the thread names two models and an H20 that is either the 96 or the 141 GB part",
        "the model and GPU of the logged run"),
    "hybrid-fp8-unread": (
        "a hybrid (Gated DeltaNet + attention) FP8 checkpoint with a vision tower at TP2 on PCIe GeForce cards keeps "
        "0.65 GiB less cache than modelled (5.64 GiB against 4.99, within the KV tolerance; +13.0 % in tokens); the "
        "log gives no memory breakdown, and the checkpoint's unquantised share is assumed, not read. Sized on the V1 "
        "runner from tokens41, as vLLM 0.25 - 0.28 runs a dense hybrid (Behaviour.v2_skips_state_models; 6.04 GiB and "
        "+21.2 % on V2). Set 23's RedHatAI Qwen3.5-4B FP8-dynamic pair on the same card at 0.29.0 "
        "left the class in tokens18 (+7.4 % -> +2.75 % at 32K and 128K, as the BF16 checkpoint's rows, +2.75 / "
        "+2.84 %): an -FP8-dynamic re-upload of a Gated DeltaNet model is sized with llm-compressor's FP8_DYNAMIC "
        "ignore list (re:.*linear_attn.*: 1,011,356,160 parameters 16-bit, 0.94 GiB), catalog.lookup "
        "_FP8_DYNAMIC_GDN_IGNORE; set 23's Qwen3.8 NVFP4 pre-release starts left it in tokens41 "
        "(nvfp4-prerelease-weights). Marlin's block-FP8 group scales on Ampere (2/128 B a weight, marlin_utils_fp8.py), "
        "charged from logs26 where the checkpoint's config gives its block, would take the row to +9.6 % with the "
        "checkpoint's block-128 scales (vllm-project/recipes Qwen3.8-27B.yaml), which the catalog entry lacks",
        "the checkpoint's quantization_config (the modules left unquantised) and the start's memory breakdown, "
        "'Setting attention block size' and mamba page lines"),
    "nvfp4-prerelease-weights": (
        "set 23's four starts of Inferact's Qwen3.8-27B NVFP4 on one RTX 5090 (vllm-project/recipes' Qwen3.8 page, a "
        "fork build 'in the 0.27 range', 0.26.1rc1.dev608, eager, 32K, prefix caching on: each count is whole blocks "
        "over align mode's 27 blocks a request in fp8, 48 in bf16) all keep more cache than modelled on the V1 runner, "
        "which vLLM 0.25 - 0.28 runs a dense hybrid on (tokens41): 75, 112, 126 and 112 blocks logged against 67, 98, "
        "113 and 98 (the tower start, the language-model-only one, its --max-num-seqs 8 twin, the bf16 one; -10.3 to "
        "-12.5 %), 0.39 - 0.67 GiB under. The 8-sequence start cannot fit the weights shardwise infers at any runner "
        "(23.04 GiB, 0.12 non-torch and the 0.26 forward pass beside 6.03 of cache: 0.60 over the 28.85 GiB that 0.92 "
        "of 31.36 allows); the build's exclude list and so its weights are inferred from the checkpoint's byte count "
        "(plan12), not read, and the build's usable memory is not logged. On Model Runner V2 the two "
        "language-model-only starts were within 0.9 % only by charging 0.59 GiB less sampler than the runner vLLM "
        "picks (tokens40)",
        "the build's 'Model loading took' and 'Available KV cache memory' lines (or the checkpoint's config.json), and "
        "whether its log says 'Using V2 Model Runner' (a fork may differ from the release)"),
    "spec-drafter": (
        "a separate drafter (the speculative config's `model`, a Gemma 4 assistant): its weights are charged (0.78 GiB, "
        "from its config.json; the log's 25.5 against 24.72 without it), its CUDA graphs are not: 0.29's Model Runner "
        "V2 measures the speculator's graphs into the budget (the log's 'equivalent to' line: 0.93 GiB against 0.50 "
        "in B-default, the same start without the drafter, +0.43), and 0.99 GiB more is not attributed (0.24 while the "
        "unbuilt 1.02 GiB tower was counted in the target's weights, before toksingle10: the class of v2-moe-0.29's "
        "text-only Gemma 4 rows)",
        "the drafter's graph memory read from logs with and without a drafter at other capture sizes and draft "
        "lengths (one pair cannot tell a term from a fit)"),
    "sm120-cold-nontorch": (
        "cold starts on sm_120 cards on Linux keep about one more copy of the input embedding beside the cache than "
        "modelled: the 1g.16gb MIG slice of an RTX PRO 4500 Blackwell logs 1.28 GiB of non-torch memory against the "
        "0.12 charged (Qwen3-8B-FP8's embedding: 1.16 GiB); set 23's RTX 5090 at 0.29.0 (each (model, max_model_len) "
        "a compile of its own: 0.29.0 hashes max_model_len into the compile cache, config/model.py "
        "ModelConfig.compute_hash) keeps 0.94 - 1.27 GiB more on its dense rows (Qwen3-4B's embedding 0.72 GiB, "
        "Phi-4-mini's 1.15); the RTX 5060 Ti's warm start is within 0.03. Weights, layout and the cold-compile peak "
        "are right; no vLLM source term found. tokens16: every 0.29 - 0.30 compiled text-only start on an sm_120 card "
        "keeps 1.00 - 1.42 x one GPU's input embedding beside the cache than modelled (the RTX 5090's Qwen3-4B, "
        "Phi-4-mini, granite-4.0-h-micro and Qwen3.5-4B-FP8 rows, the MIG slice's pair, and the RTX 5060 Ti's cold pair "
        "of wsl2-cold-compile, also sm_120: 1.00, where its warm start is 0.07), where the 0.26 - 0.28 cold starts on "
        "Ampere and Ada keep none (A40 0.00, the cold Qwen3-14B-AWQ L4 run of compile-state-by-run). A second copy in "
        "the non-torch memory of a cold compile on sm_120 from 0.29, computed and not committed (no source names the "
        "mechanism, and its scope, sm_120 and 0.29+, is read from these rows): tokens 124 -> 131/169, KV 131 -> "
        "135/143, verdicts and weights unchanged, no set loses a row (set 20 tokens 4 -> 6/6, 21 1 -> 2/7, 23 13 -> "
        "17/22); the MIG slice's K-fi-fp8 row (+16.8 %) and the Qwen3.5-4B-FP8 pair stay out. logs16 (set 26): the "
        "pattern is the card's, not 0.29's. Drolsey/syslab-server's RTX 5090 on the pinned 0.28.0 image logs the "
        "breakdown: Qwen3-32B-AWQ at 0.70 (0.33 GiB of peak activation, a warm profile) holds 18.62 GiB of weights and "
        "non-torch memory, the same model cold at 0.85 (1.46 GiB of peak, the cold compile's copy of the 1.45 GiB "
        "embedding) 20.04, +1.42 GiB: one more copy of the embedding, and +1.77 GiB beside the cache than modelled; "
        "Qwen3-14B-AWQ cold at 0.70 (1.46 GiB of peak) holds 11.22 GiB against 9.30 of weights modelled, +1.66 GiB; "
        "the same set's 0.28.0 cold starts on an L4 (sm_89, fresh containers) keep none (+0.13, +0.14). A 0.28 term "
        "would still rest on rows, not on a source line. tokens17, every sm_120 row: the copy on top of the forward "
        "pass is ruled out (the 18 one-GPU cold rows of 0.28 - 0.30 keep 0.43 - 1.42 GiB over, the 0.27.1 TP2 "
        "Qwen3-32B row goes to -7.6 %); a second copy beside the peak fits those 18 (+0.01 - +0.33 GiB) but takes the "
        "0.27.1 TP2 row to -9.2 % and the 0.28.0 Qwen3-32B-AWQ 0.70 start (compile state not stated) to a refusal: "
        "neither is charged. tokens40: the 0.28.0 wheel read whole has no sm_120 branch on a BF16 or AWQ dense path "
        "(b12x, DeepGEMM's block FP8, FlashInfer's fp8-cache XQA decode, Marlin W4A8, FA4 and sparse MLA only); where "
        "a breakdown is logged the excess is in the consumed memory (free memory, the device's), not the peak",
        "what allocates it: a cold and a warm start of one model on an sm_120 card with the breakdown line and "
        "'Model loading took', read beside a profile of the device's allocations outside PyTorch during the cold "
        "compile (Inductor's kernels, their local memory, worker processes); a 0.29+ cold dense start on a card that "
        "is not sm_120 with the breakdown line (the one found, a 0.31.0 A100 Llama-3.1-8B start, logs 0.26 GiB of "
        "non-torch memory, but its repository is not named); tokens37: the same cold start with "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, where empty_cache unmaps a free block's pages, which tells a "
        "reserved segment that 0.27+'s total_consumed counts beside the copy's peak (0.24.0 counts the copy once) from "
        "memory outside PyTorch; logs25 (set 29): the --kv-cache-dtype fp8 start of the same card's Qwen3.5-4B-FP8 at "
        "128K (1,205,662 tokens, +5.3 %) logs no budget; its auto-dtype twins (set 23, +2.75 % at 32K and 128K) give "
        "one pool of about 1,235 pages of 8 x 2,162,688 B (attention block 528; fp8's is 1,056, the same page) at 6 "
        "state pages a request, as modelled, so the fp8 start held about 30 pages fewer (1,205 at 131 pages a "
        "request): 0.48 GiB more beside the cache than its twin, beyond the class's own; what the fp8 cache adds on "
        "sm_120 (an attention backend of its own, FlashInfer's xqa decode, and its workspace) was not read at the "
        "tag, so nothing is charged: the fp8 start's attention-backend line and its 'Available KV cache memory'. "
        "logs30 read what could differ on sm_120 at 0.28.0 and 0.29.0 (platforms/cuda.py _get_backend_priorities, "
        "v1/attention/backends/fa_utils.py, v1/sample/ops/topk_topp_sampler.py): a dense model's attention is "
        "FLASH_ATTN with FA2 on capability 12 as on 8.x (FA3 only on major 9, FA4 on major 10), the sampler "
        "FlashInfer's (supports_compute_capability >= 8.0) as on Ampere and Ada, and the snapshot follows the "
        "distributed set-up; none differs on sm_120"),
    "gemma4-cold-peak": (
        "one cold start of gemma-4-E2B on a T4 at 0.28.0 keeps 0.3 GiB less cache than modelled; the cold compile's "
        "copy of the embedding is not charged to a multimodal run (its compiled graph takes embeddings, "
        "sizing.mm_inputs_embedded; charged, the row was -9.2 %, and the E4B, 31B QAT and NVFP4 rows of 0.30.0 that "
        "this class held came within 5 % or moved to gemma4-quantised-weights), and the same image's L4 start is "
        "within 1 %",
        "the start's breakdown line ('Actual usage is ... peak activation ... non-torch ... CUDAGraph memory', 0.26+)"),
    "gemma4-quantised-weights": (
        "quantised Gemma 4 checkpoints load 0.25 - 0.35 GiB more than their parameters at their formats where the bf16 "
        "ones are within 0.1 (31B QAT 19.43 against 19.78, the 31B NVFP4 30.92 against 31.18, the 26B-A4B AWQ, NVFP4 "
        "and W4A16 repack 0.25 - 0.29 under): with the logged weights the QAT rows' counts are within 2 - 3 %, the "
        "NVFP4 row's +9 %. tokens36: the E4B QAT export's 1.23 GiB swing between 0.28.0 (9.81 GiB, "
        "floSa/data-analyst-agent) and 0.30.0 (11.04) is its own LM head, tied by 0.28.0 and loaded untied from 0.29 "
        "(ModelShape.distinct_lm_head): 9.70 and 10.95 GiB modelled, the 0.30.0 row within 5 %; the 0.28.0 pair is "
        "+7.0 % each, +0.22 GiB of budget, 0.12 of it the weights. tokens40: its breakdown's 10.29 GiB consumed "
        "against 10.08 modelled (weights 9.70, non-torch 0.12, V2's penalty state 0.26), peak 0.27 against 0.273; "
        "Marlin's repack keeps the 31B rows' scale sizes (groups of 16 and 32, no padding at their widths), so their "
        "0.25 - 0.35 GiB is not Marlin's. tokens45: the 4-bit loads of 0.25 - 0.30 all keep more than their formats' "
        "bytes, with no one ratio: 0.011 - 0.013 B a quantised weight on the one-GPU 26B-A4B and 31B exports, 0.016 "
        "(0.35 GiB) on cyankiwi's Qwen3.8-27B-AWQ-INT4, whose packed modules are read from a census (so its excess is "
        "not an ignore list's), 0.025 - 0.069 on the E-series (0.09 - 0.12 GiB): the Gemma rows' excess is no evidence "
        "about their ignore lists, and no allocation of CompressedTensorsWNA16 or Marlin's repack read gives it; a "
        "constant fitted to these rows would be tuned to them, so nothing is charged",
        "the checkpoints' config.json (ignore list) and safetensors index, or the vLLM module listing of a quantised "
        "Gemma 4 load; for the 0.28.0 pair its torch.compile and CUDA graph lines beside the breakdown it quotes"),
    "qwen38-awq-3090": (
        "cyankiwi's Qwen3.8-27B-AWQ-INT4 at 0.29.0 on one RTX 3090 (eager, fp8_e5m2 KV, text only): from tokens43 the "
        "catalog holds the checkpoint's read format (compressed-tensors W4A16, group 32, asymmetric, 399 packed "
        "linears: cadamcat/dual-radeon-vllm's census of its config.json and safetensors index), its weights 18.02 GiB "
        "against 18.37 logged (16.64 as AutoAWQ at group 128 before) and its budget 4.48 GiB against 4.05, both within "
        "their tolerances; the logged budget gives the logged count within 0.2 %, and the count is +10.7 % (0.43 GiB "
        "of budget over, inside the row's 0.91 GiB tolerance). Its AWQ-BF16-INT4 sibling's TP2 rows "
        "(fp8_e5m2, 4 and 6 sequences) are read in the same format from tokens45 (ro99/moxie's census of the "
        "checkpoint's config.json and index: compressed-tensors, group 32, asymmetric, 256 packed linears, the 64 MLPs "
        "and the 16 full-attention layers, so the Gated DeltaNet blocks are 16-bit whole): their weights 12.73 GiB a GPU "
        "against 12.9 logged (12.22 as AutoAWQ at group 128 before), the logged 8.91 GiB give the logged counts within "
        "0.06 %, and the budget is 7.86 GiB (-11.8 %; 8.37 and -6.2 % before). Beside weights and cache vLLM kept 0.59 "
        "GiB of the 22.40 where 1.81 are charged: the cold compile's copy of the vocabulary-parallel embedding is 1.02 "
        "of it (activation 1.18 against 0.16 warm), and sized warm the rows are -0.3 % (8.89 GiB against 8.91). Both "
        "starts spent minutes before serving ('the rest torch.compile / CUDA graph capture', 4.5 and 6 minutes), but "
        "neither quotes a compile line, and the guide keeps VLLM_CACHE_ROOT on a persistent /research path: the "
        "compile state is what decides these rows, not the weights; their load keeps 0.019 B a quantised weight more "
        "than the format's bytes (0.17 GiB a GPU), the 4-bit loads' excess of gemma4-quantised-weights",
        "the one-GPU start's memory breakdown (0.26+: 'Actual usage is ... peak activation ... CUDAGraph memory'); the "
        "AWQ-BF16-INT4 checkpoint's config.json (quant scheme, group size, zero points, ignore list) and the TP2 "
        "starts' breakdown"),
    "text-only-warm-restart": (
        "a marginal 31B QAT start on an L4 at 0.97 whose count is the container's warm second start after a cold one "
        "refused (-0.29 GiB), with every modality limit 0; from toksingle10 the tower vLLM 0.19+ does not build is "
        "not charged (1.02 GiB): the cold start's budget is modelled -0.25 GiB against the -0.29 logged, and the "
        "warm second start, whose count this is, would be 2,610 tokens against 2,555",
        "a text-only start's breakdown (whether the tower's weights are loaded) and the compile state per start"),
    "compile-state-by-run": (
        "one lab's L4 at 0.28.0 (set 24): the same Qwen3-14B-AWQ start with every flag default logged 9.10 GiB on one "
        "run and 10.33 on another ('회차에 따라', by run; servers started one after the other). shardwise charges every "
        "start a cold compile's profile peak (one copy of the 151,936 x 5,120 embedding, sizing.cold_compile_gib) and "
        "gives 9.21 GiB and 60,368 tokens, the 9.10 run's figures; sized warm, as a later start of the same "
        "configuration that loads the first one's compile cache would be (the cache is keyed by the configuration's "
        "hash), it gives 10.40 GiB and 68,176 tokens against 10.33 and 67,696. logs16 (set 26): Drolsey/syslab-"
        "server's Qwen3-32B-AWQ at 0.70 on an RTX 5090 at 0.28.0 logs 0.33 GiB of peak activation, a warm profile, "
        "where a cold compile's 1.54 GiB (the embedding's copy and the sampler) are charged: -0.77 GiB (-25.7 %) "
        "sized cold, +0.32 GiB (+10.8 %) sized warm, its weights and non-torch memory (18.62 GiB) 0.5 over the "
        "weights modelled and the 0.12 charged. logs23 (set 27): kthxo/distserving's RTX 4090 runs the same "
        "0.24.0 command (Qwen3-8B, 0.92, 32,768 tokens, pip, PyTorch sampler) to 36,992 tokens in one log and 43,888 "
        "in a later one, 6,896 tokens (0.95 GiB) apart, the gap its RTX 5090 logs between a first start (89,040) and "
        "a restart its author puts down to the compile cache (95,936); shardwise gives 37,280 cold and 44,016 warm, "
        "the 5090 pair 89,600 and 96,352",
        "each start's compile lines ('Compiling a graph' or 'Directly load the compiled graph')"),
    "small-budget-by-run": (
        "a KV budget under half a GiB, where 5 % of the count is 0.025 GiB: logs24 (set 28), TheBuccaneer/vllm-offload-"
        "profiles' RTX 3090 at 0.17.1 (pip), Qwen2.5-7B-Instruct at 8,192 tokens and 0.65, warm by the excerpt's "
        "timestamps, logged 0.49 GiB and 9,088 tokens at 16:19 and 0.41 GiB (refused: 0.44 needed) at 16:23 from the same "
        "command; shardwise gives 0.41 GiB and 7,712 tokens (-15.1 %, within the KV band), the refused run's budget to the "
        "hundredth. The lab's ten warm rows are -0.09 to +0.01 GiB, so no term is off by more than its spread; the two runs "
        "differ by 0.08 GiB, three times what 5 % of this count allows",
        "the same command's budget over several starts (the spread run to run), or a budget large enough that 5 % of it "
        "is above that spread"),
}

#: The rows of each class: (URL, release, model, TP, PP, DP, the logged token count) -> class. ``test_every_token_count_outside_5_percent_has_one_cause`` holds it to the scoreboard's misses.
_ENGINRECT = "https://github.com/enginrect/llmso/blob/06bc0e58/labs/"
_FRESHAIR = "https://github.com/Freshair129/Private-Runtime-Platform/blob/"
_AKAMAS = "https://github.com/akamaslabs/vllm-benchmark/blob/"
_GPT_OSS_SMOKE = (_AKAMAS + "9fae1f67922a8a20129104f2b99fdc9d6da655b6/studies/10-gpt-oss-20b-goodput-per-gpu/results/"
                  "smoke_test_2026-09-15.log")
_KUBESIMPLIFY = "https://github.com/kubesimplify/website/blob/"
_GEMMA_FORGE = "https://github.com/kenrollins/gemma-forge/blob/2982efbd0117a0da9eccd9161bee8ff5801baa4a/docs/journal/"
_XBILL_DEV = "https://github.com/xbill9/gemma4-dev/blob/"
_XBILL_SM = "https://github.com/xbill9/sagemaker-gemma/blob/"
_AIRA = "https://github.com/SuperSumanov/aira-dojo-noise-robust/blob/"
_XL = "https://github.com/Xecutive-Development-LLC/ai-infra-lab/blob/"
_XL_MC = _XL + "40931a9786dd16eaf11b1441bc14dfc95c39b9a9/docs/MODEL_COMPARISON_RESULTS.md"
_XL_R2 = _XL + "4584f8ef124670e64317f91b328b52e09e2ad6ac/docs/MODEL_COMPARISON_ROUND2_RESULTS.md"
_FLOSA = "https://github.com/floSa/data-analyst-agent/blob/"
_DROLSEY = "https://github.com/Drolsey/syslab-server/blob/"
_DDIIWOONG = ("https://github.com/ddiiwoong/newblog/blob/ca0977f4aaed493717b06da7547f92729ab5fa55/blog/"
              "2026-09-06-llm-optimization-capstone.md")
_KTHXO = "https://github.com/kthxo/distserving/blob/"
_Q38 = "https://github.com/vllm-project/recipes/blob/62a146b6003c124e03b71eb8d1d84917b2d570b4/models/Qwen/Qwen3.8-27B.yaml"
_BUCCANEER = ("https://github.com/TheBuccaneer/vllm-offload-profiles/blob/1e3f023eae1617eb45b94f676d1f5314f866d730/data/"
              "provenance/gpu_memory_configuration/")
MISS_ROWS: dict[tuple[str, str, str, int, int, int, int | None], str] = {
    (_FRESHAIR + "f52b9b99f2c0495fb32899ed7e4411c60a90341c/docs/evidence/wp24/WP24-2026-09-20-run1/B/EV02/"
     "vllm-startup-success.log", "0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 1, 1, 10_576): "wsl2-cold-compile",
    (_FRESHAIR + "96fc81b91fa7c18f534df54d84e0d96f1d13f908/docs/evidence/wp24/WP24-2026-09-24-run2/A/artifacts/"
     "run-default-utilization.json", "0.30.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 1, 1, 33_728):
        "wsl2-cold-compile",
    (_ENGINRECT + "serving-bottlenecks-and-optimization.md", "0.27.1", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, 102_544):
        "wsl2-profile-transient",
    (_ENGINRECT + "advanced-optimization-and-serving-frameworks.md", "0.27.1", "Qwen/Qwen3-8B-FP8", 1, 1, 1, 90_080):
        "wsl2-profile-transient",
    (_GPT_OSS_SMOKE, "0.29.0", "openai/gpt-oss-20b", 1, 1, 1, 82_819): "v2-moe-0.29",
    (_GPT_OSS_SMOKE, "0.29.0", "openai/gpt-oss-20b", 1, 1, 1, 130_986): "v2-moe-0.29",
    (_GPT_OSS_SMOKE, "0.29.0", "openai/gpt-oss-20b", 1, 1, 4, 438_932): "v2-moe-0.29",
    (_AKAMAS + "6b9e573ae77908c59c30ffc8331e3ad844b9ede6/studies/16-qwen3-30b-a3b-parallelism-goodput-per-gpu-rerun/"
     "README.md", "0.29.0", "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", 4, 1, 1, 401_776): "v2-moe-0.29",
    ("https://github.com/AUGMXNT/MI300-testing/blob/032bd4da1080662667b9d5f77bacd6a579128c5f/"
     "inference-vllm-vs-vllm-rocm.ipynb", "0.6.4.dev5", "meta-llama/Llama-3.1-8B-Instruct", 8, 1, 1, 10_510_272):
        "large-tp-communicators",
    ("https://github.com/MG-Cafe/TCPXO-Enabled-A3-Mega-H100-Benchmarks/blob/f0bb7621692d82fd3926376f844bda7cfebd0bcf/"
     "README.md", "0.19.0", "zai-org/GLM-5.1", 8, 2, 1, 858_048): "large-tp-communicators",
    ("https://github.com/ljg6861/anton_new/blob/ea8b5ea1a52667c4c34e5b607179a7c67189a96c/vllm_server.log", "0.10.0",
     "cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit", 1, 1, 1, 20_960): "pip-sort",
    ("https://github.com/vllm-project/vllm/issues/21348", "0.9.2", "Qwen/Qwen3-235B-A22B-FP8", 4, 1, 1, 178_880):
        "install-unknown",
    ("https://github.com/LMCache/LMCache/issues/1739", "0.10.2", "Qwen/Qwen3-14B", 1, 1, 1, 42_656):
        "install-unknown",
    ("https://github.com/dawn-boy/elloraa/blob/3df1f5be0a63789a67193b6d26b8182305eca338/vllm_server.log", "0.11.0",
     "DeepSeek-R1-Distill-Qwen-32B-FP8", 1, 1, 1, 24_736): "weights-format",
    ("https://github.com/TW-10519/VLLM-ROUTER/blob/43179adf4b1f340d0bb9dad4628f9919bf97753d/logs/vllm.log", "0.13.0",
     "huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", 1, 1, 1, 282_624): "unified-memory",
    ("https://github.com/eugr/spark-vllm-docker/issues/396", "0.29.1rc1.dev17", "cyankiwi/MiniMax-M2.7-AWQ-4bit", 2, 1,
     1, 240_816): "unified-memory",
    (_KUBESIMPLIFY + "8b1d2a5c3e94d3fad7aebfef7cecfa10b6bcc21b/content/blog/running-a-single-llm-across-two-gpus-with-"
     "vllm.md", "0.27.1", "Qwen/Qwen3-32B", 1, 2, 1, 56_640): "pp-rtx-pro-6000",
    (_KUBESIMPLIFY + "00b7452215ee797ddc20c5ed57144396d7cc301b/content/blog/running-a-big-llm-across-multiple-gpus-"
     "with-vllm.md", "0.27.1", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", 1, 4, 1, 555_680): "pp-rtx-pro-6000",
    ("https://github.com/aihpi/litellm-k8s/blob/a0a80777692c40d762b5a4d67c350d7a878170c9/docs/adding-models.md",
     "0.15.1", "nvidia/Llama-3.3-70B-Instruct-FP8", 1, 1, 1, 33_504): "profile-peak-0.15",
    ("https://github.com/vllm-project/vllm/issues/40691", "0.19.0", "Qwen/Qwen3.5-27B", 1, 1, 1, 290_864):
        "source-ambiguous",
    ("https://github.com/mitchross/talos-argocd-proxmox/pull/1995", "0.27.1", "Qwen/Qwen3.8-27B-FP8", 2, 1, 1,
     302_921): "hybrid-fp8-unread",
    (_AKAMAS + "026d8a5800d50f9fa95eef63c9f071713cb9dd7a/studies/30-l40s-gemma4-26b-tps/probe/results/M-mtp2.log",
     "0.29.0", "RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", 1, 1, 1, 57_065): "spec-drafter",
    (_AKAMAS + "852352464bac17e242e6e33d133e3c22f75a3f24/studies/28-g7-4500-mig-min-cost-fixed-load/kernel-probe/"
     "results/A-auto.log", "0.29.0", "Qwen/Qwen3-8B-FP8", 1, 1, 1, 16_288): "sm120-cold-nontorch",
    (_AKAMAS + "852352464bac17e242e6e33d133e3c22f75a3f24/studies/28-g7-4500-mig-min-cost-fixed-load/kernel-probe/"
     "results/K-fi-fp8.log", "0.29.0", "Qwen/Qwen3-8B-FP8", 1, 1, 1, 28_784): "sm120-cold-nontorch",
    (_XBILL_DEV + "c03de961eca9f6b803e404bdb755cda321ac0cf3/gpu-vllm-g4dn-2b/benchmarks/runs/2026-08-30-first-serve-g4dn/"
     "engine-startup.log", "0.28.0", "google/gemma-4-E2B-it", 1, 1, 1, 329_579): "gemma4-cold-peak",
    (_XBILL_SM + "3747ac8f3e085105fb6d81c350c2a942888ab6ea/docs/runs/2026-09-28-31b-26b-l40s/NOTES.md", "0.30.0",
     "google/gemma-4-31B-it-qat-w4a16-ct", 1, 1, 1, 28_846): "gemma4-quantised-weights",
    (_XBILL_SM + "3747ac8f3e085105fb6d81c350c2a942888ab6ea/docs/runs/2026-09-28-31b-26b-l40s/NOTES.md", "0.30.0",
     "nvidia/Gemma-4-31B-IT-NVFP4", 1, 1, 1, 21_870): "gemma4-quantised-weights",
    (_XBILL_SM + "216f88e343679aec8e17ddbc4ed8e6a518116794/docs/runs/2026-09-28-l4-26b-31b/NOTES.md", "0.30.0",
     "google/gemma-4-31B-it-qat-w4a16-ct", 1, 1, 1, 2_555): "text-only-warm-restart",
    (_AIRA + "113e25e7fa2570cb5f60401d051a1de3cce307c2/src/mle_critic/docs/evaluation/LOCAL_VLLM_SERVER.md", "0.29.0",
     "cyankiwi/Qwen3.8-27B-AWQ-INT4", 1, 1, 1, 120_422): "qwen38-awq-3090",
    (_Q38, "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 1, 1, 91_022): "nvfp4-prerelease-weights",
    (_Q38, "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 1, 1, 152_917): "nvfp4-prerelease-weights",
    (_Q38, "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 1, 1, 135_926): "nvfp4-prerelease-weights",
    (_Q38, "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 1, 1, 76_458): "nvfp4-prerelease-weights",
    (_XL_MC, "0.29.0", "microsoft/Phi-4-mini-instruct", 1, 1, 1, 151_973): "sm120-cold-nontorch",
    (_XL_MC, "0.29.0", "microsoft/Phi-4-mini-instruct", 1, 1, 1, 152_029): "sm120-cold-nontorch",
    (_XL_MC, "0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, 1, 1, 176_489): "sm120-cold-nontorch",
    (_XL_MC, "0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, 1, 1, 176_554): "sm120-cold-nontorch",
    (_AIRA + "113e25e7fa2570cb5f60401d051a1de3cce307c2/src/mle_critic/docs/evaluation/LOCAL_VLLM_SERVER.md", "0.29.0",
     "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", 2, 1, 1, 560_445): "qwen38-awq-3090",
    (_AIRA + "782d767fdbf897a9037213fa165f4eefc2cc02e0/src/mle_critic/docs/evaluation/LOCAL_VLLM_TWO_NODE_SETUP.md",
     "0.29.0", "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", 2, 1, 1, 541_764): "qwen38-awq-3090",
    (_DDIIWOONG, "0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 1, 1, 67_696): "compile-state-by-run",
    (_FLOSA + "430a10cc5a96818a0a00b6f03c6d3132c0f0a8d9/docs/VLLM.md", "0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct",
     1, 1, 1, 150_167): "gemma4-quantised-weights",
    (_FLOSA + "430a10cc5a96818a0a00b6f03c6d3132c0f0a8d9/docs/VLLM.md", "0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct",
     1, 1, 1, 186_796): "gemma4-quantised-weights",
    (_DROLSEY + "837e22e5f0a07d4614542e83cde7f43246a92d47/docs/models.md", "0.28.0", "Qwen/Qwen3-32B-AWQ", 1, 1, 1,
     12_272): "compile-state-by-run",
    (_DROLSEY + "main/docs/models.md", "0.28.0", "Qwen/Qwen3-32B-AWQ", 1, 1, 1, 21_120): "sm120-cold-nontorch",
    (_DROLSEY + "main/docs/models.md", "0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 1, 1, 60_768): "sm120-cold-nontorch",
    ("https://github.com/josemendozaorg/homelab-android19/blob/4b5d89eecc5edb34f761a8a3a91e22275323925d/specs/"
     "gpu-passthrough-vm-llm-workloads/vllm-performance-analysis.md", "0.11.0", "Qwen/Qwen2.5-7B-Instruct-AWQ", 1, 1, 1,
     121_072): "pip-sort",
    (_KTHXO + "02b7f6e44396623834ee58e72e9e4d88973345aa/EXPERIMENT_LOG_hetero_yunuikang.md", "0.24.0", "Qwen/Qwen3-8B",
     1, 1, 1, 43_888): "compile-state-by-run",
    (_BUCCANEER + "kv_vram_qwen_gmem065_offload0.log", "0.17.1", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, 9_088):
        "small-budget-by-run",
    (_XL + "main/docs/MODEL_COMPARISON_ROUND2_RESULTS.md", "0.29.0", "RedHatAI/Qwen3.5-4B-FP8-dynamic", 1, 1, 1,
     1_205_662): "sm120-cold-nontorch",
}


#: Why a start/refuse verdict is wrong or a KV budget is outside its tolerance (logs28, issue 28): the class each such row
#: belongs to, as its ``open_miss``, :data:`MISS_CAUSES` and docs/capacity-model.md ("Verdict and KV misses by class")
#: write it up. A class of :data:`MISS_CAUSES` keeps its name and text there; the classes below are the ones no token
#: miss shares (what the rows show, what would decide it). No class here is charged: each is open.
VERDICT_KV_CAUSES: dict[str, tuple[str, str]] = {
    "post-snapshot-communicators": (
        "multi-GPU layouts that keep 0.95 - 1.03 GiB a GPU more than modelled: Kimi-K2.5 at TP8 on an NVSwitch H100 node "
        "(0.15.0, 0.64 GiB of cache logged at 0.95 against 1.58 modelled, 1.07 needed) and Qwen3-30B-A3B-FP8 at TP2 x DP2 "
        "with expert parallelism on PCIe L4s (0.29.0, out of memory in the sampler warm-up with about 0.95 GiB of the "
        "2.72 held outside the budget not attributed). verdicts29 read the 0.15.0 wheel: the logits all-gather goes "
        "through torch.distributed on the group's device communicator, so PyTorch's own NCCL communicator is created "
        "at the first collective, after the snapshot (inside the profile at TP8, its buffers in the non-torch "
        "increase); its size at 8 ranks on NVSwitch (NVLS) and over PCIe is not sized from source. logs30: 0.15.0's "
        "init_device builds every vLLM communicator (pynccl, warmed with a one-element all-reduce; custom all-reduce; "
        "symmetric memory) before the snapshot, and NCCL 2.29.3 (the Kimi log's pin) sets NVLS up lazily at the first "
        "NVLS collective with 16 x 2 x 1 MiB x 8 heads + 2 MiB (258 MiB a rank, src/transport/nvls.cc, src/init.cc "
        "runtimeConn), as 2.22 - 2.28: short of the 0.79 GiB that would flip the row; 0.29.0 routes the logits' "
        "all-gather through pynccl (CudaCommunicator.all_gather), and a PCIe L4 has no NVLS",
        "NCCL_DEBUG=INFO buffer lines, or the non-torch figure of a breakdown, of a TP8 NVSwitch start and of a "
        "TP2 x DP2 + EP PCIe start"),
    "margin-after-sizing-0.14": (
        "gpt-oss-120b on one H100 at 0.14.1 and 0.97 with one sequence (vllm#33155) ran out of memory where shardwise "
        "charges 0.83 of the 2.38 GiB outside the budget; verdicts29 read 0.14.1's compile_or_warm_up_model, "
        "kernel_warmup and the capture sizes and found nothing that needs more; where the run failed is not quoted. "
        "logs30: the issue's log loads the compiled graph from the cache ('Directly load the compiled graph(s) for "
        "compile range (1, 5120)'), a warm start: no cold compile runs in or after the profile",
        "the traceback of the failure (profile, KV allocation, graph capture or sampler warm-up)"),
    "mamba-blocks-unread": (
        "Qwen3-Coder-Next at TP4 on PCIe L40S (0.24.0, pip, FlashInfer sampler off) counted 134 Mamba cache blocks "
        "where shardwise counts 472 at its central budget (0 at the band's low edge): about 1.1 GiB a GPU beside the "
        "37.2 GiB of weights is unread; the guide quotes no 'Available KV cache memory' line. logs29 (the 0.24.0 "
        "wheel): the check is config/compilation.py's (FULL graphs, Mamba layers, max_num_seqs > num_blocks), as "
        "modelled; the 134 blocks are 0.42 GiB at 3.19 MiB a block, 1.05 GiB below the central budget, and the same "
        "1.05 GiB off the 128-sequence run leaves about 225 blocks (>= 128: it started, as logged), so the layout "
        "holds and the miss is one budget term; the modelled graph estimate instead of the flat 0.40 GiB would give "
        "0.39 of it and moves other state-layer rows both ways (not charged)",
        "the start's 'Model loading took' and 'Available KV cache memory' lines"),
    "no-memory-line-0.8": (
        "a Qwen2.5-32B INT8 W8A16 directory at TP2 on two RTX 3090s (0.8.1) refused ('No available memory for the "
        "cache blocks') where shardwise leaves 3.84 GiB; the thread gives no memory line. 0.8's "
        "determine_available_memory counts every process on the card in its non-torch term; the sampler's PyTorch "
        "sort (a pip install) explains at most 0.79 GiB; the checkpoint's format is not read. logs30: 0.8.0 - 0.8.3 "
        "default max_num_seqs to 1,024 on every GPU (engine/arg_utils.py, read in their wheels), so the profile "
        "samples 1,024 rows: 2.10 GiB of cache with the image's FlashInfer 0.2.1.post2 sampler (may refuse), -1.12 "
        "with a pip install's sort (refused); the refusal is check_enough_kv_cache_memory's (available <= 0), and "
        "AllSpark's process-wide W8A16 workspace (0.26 GiB at TP2) is read, not charged",
        "the start's install (the official image or pip), its memory lines and nvidia-smi before it"),
    "other-tenant": (
        "an RTX 3090 desktop at 0.17.1 (Llama-3.1-8B, 0.90) ran out of memory in the sampler warm-up because 1.68 GiB "
        "of the card belonged to other processes (the OOM line lists two and leaves 1.47 GiB to the display stack); "
        "the same command started on the same card in April. Memory no manifest or engine argument names",
        "nothing a manifest can give: the row is held to the banded verdict, which says it starts"),
    "settings-not-in-source": (
        "Qwen3-VL-30B-A3B on one A800 (0.11.0, vllm#26612) logged 13.69 GiB of cache, more than 0.9 x 79.15 GiB "
        "leaves beside its 58.6 GiB of weights: the run set a utilisation or context the excerpt does not quote",
        "the command of the logged run"),
    "v2-dense-0.27": (
        "Qwen3-32B on one RTX PRO 6000 Blackwell (sm_120) at 0.27.1 and 0.426 keeps 3.86 GiB beside weights and cache "
        "where 2.12 are charged (logs14); the same post's TP2 run is within 0.10 and its PP2 first stage within "
        "tolerance. Written up as Model Runner V2 on a dense BF16 checkpoint keeping more than V2's terms (the class "
        "of the 0.27.1 RTX 4090 rows of wsl2-profile-transient); a fresh container, so also a cold start on an sm_120 "
        "card (sm120-cold-nontorch's signature, 1.2 x the 1.45 GiB embedding), compile state not quoted",
        "the start's compile lines and memory breakdown"),
}

_AKAMAS_16 = (_AKAMAS + "6b9e573ae77908c59c30ffc8331e3ad844b9ede6/studies/16-qwen3-30b-a3b-parallelism-goodput-per-gpu-"
              "rerun/README.md")
_AKAMAS_28 = _AKAMAS + "852352464bac17e242e6e33d133e3c22f75a3f24/studies/28-g7-4500-mig-min-cost-fixed-load/kernel-probe/results/"
_SPARK = "https://github.com/eugr/spark-vllm-docker/issues/396"
#: The rows of each class: :func:`verdict_key` -> class (``test_every_verdict_and_kv_miss_has_one_cause`` holds it to
#: the scoreboard's verdict and KV misses).
VERDICT_KV_ROWS: dict[tuple[str, str, str, int, int, int, float | None, int | str | None, float | None, bool], str] = {
    (_AKAMAS_16, "0.29.0", "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", 2, 1, 2, 0.88, 8192, None, False):
        "post-snapshot-communicators",
    ("https://github.com/t0mdicks0n/llm-self-hosting/blob/a58fa25d6d1d7dbdf1166e111160154742ba04b8/notes/"
     "kimi-k2.5-setup-log.md", "0.15.0", "moonshotai/Kimi-K2.5", 8, 1, 1, 0.95, 16384, 0.64, False):
        "post-snapshot-communicators",
    ("https://github.com/vllm-project/vllm/issues/33155", "0.14.1", "openai/gpt-oss-120b", 1, 1, 1, 0.97, 5120, None,
     False): "margin-after-sizing-0.14",
    ("https://github.com/aws-samples/sample-claude-code-multi-model/blob/45807e4a8c6f54c38d5d4f06f56b8d773a2449cf/"
     "self-hosted/vllm/models/qwen3-coder-next.md", "0.24.0", "Qwen/Qwen3-Coder-Next", 4, 1, 1, 0.9, 16384, None,
     False): "mamba-blocks-unread",
    ("https://github.com/vllm-project/vllm/issues/17238", "0.8.1", "Qwen2.5-32B-Instruct-INT8-W8A16", 2, 1, 1, 0.9, 4096,
     None, False): "no-memory-line-0.8",
    (_BUCCANEER + "fixd_llama_gmem090_offload0_failed.log", "0.17.1", "meta-llama/Llama-3.1-8B-Instruct", 1, 1, 1,
     None, 8192, 5.61, False): "other-tenant",
    (_SPARK, "0.29.1rc1.dev17", "cyankiwi/MiniMax-M2.7-AWQ-4bit", 2, 1, 1, 0.8, 196608, 22.5, False):
        "unified-memory",
    (_SPARK, "0.29.1rc1.dev17", "cyankiwi/MiniMax-M2.7-AWQ-4bit", 2, 1, 1, 0.85, 196608, 28.74, True):
        "unified-memory",
    ("https://github.com/TW-10519/VLLM-ROUTER/blob/43179adf4b1f340d0bb9dad4628f9919bf97753d/logs/vllm.log", "0.13.0",
     "huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", 1, 1, 1, 0.25, 8192, 12.94, True): "unified-memory",
    (_KUBESIMPLIFY + "8b1d2a5c3e94d3fad7aebfef7cecfa10b6bcc21b/content/blog/running-a-single-llm-across-two-gpus-with-"
     "vllm.md", "0.27.1", "Qwen/Qwen3-32B", 1, 1, 1, 0.426, 32768, -24.42, False): "v2-dense-0.27",
    ("https://github.com/vllm-project/vllm/issues/26612", "0.11.0", "Qwen/Qwen3-VL-30B-A3B-Instruct", 1, 1, 1, None,
     None, 13.69, False): "settings-not-in-source",
    ("https://github.com/vllm-project/vllm/issues/21348", "0.9.2", "Qwen/Qwen3-235B-A22B-FP8", 4, 1, 1, None, None,
     8.11, True): "install-unknown",
    (_FRESHAIR + "f52b9b99f2c0495fb32899ed7e4411c60a90341c/docs/evidence/wp24/WP24-2026-09-20-run1/B/EV02/"
     "vllm-startup-success.log", "0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 1, 1, 0.7, 8192, 1.45, True):
        "wsl2-cold-compile",
    (_FRESHAIR + "96fc81b91fa7c18f534df54d84e0d96f1d13f908/docs/evidence/wp24/WP24-2026-09-24-run2/A/artifacts/"
     "run-default-utilization.json", "0.30.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 1, 1, 0.9, 8192, 4.63, True):
        "wsl2-cold-compile",
    (_AKAMAS_28 + "A-auto.log", "0.29.0", "Qwen/Qwen3-8B-FP8", 1, 1, 1, 0.9, 4096, 2.24, True): "sm120-cold-nontorch",
    (_AKAMAS_28 + "K-fi-fp8.log", "0.29.0", "Qwen/Qwen3-8B-FP8", 1, 1, 1, 0.9, 4096, 1.98, True): "sm120-cold-nontorch",
    (_DROLSEY + "main/docs/models.md", "0.28.0", "Qwen/Qwen3-32B-AWQ", 1, 1, 1, 0.85, 8192, 5.16, True):
        "sm120-cold-nontorch",
    (_DROLSEY + "main/docs/models.md", "0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 1, 1, 0.7, 16384, 9.27, True):
        "sm120-cold-nontorch",
    (_DROLSEY + "main/docs/models.md", "0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 1, 1, 0.7, 32768, 9.27, True):
        "sm120-cold-nontorch",
    (_DDIIWOONG, "0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 1, 1, None, None, 10.33, True): "compile-state-by-run",
    # tokens45: with the checkpoint's read format their weights are right and the budget 1.05 GiB under (qwen38-awq-3090)
    (_AIRA + "113e25e7fa2570cb5f60401d051a1de3cce307c2/src/mle_critic/docs/evaluation/LOCAL_VLLM_SERVER.md", "0.29.0",
     "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", 2, 1, 1, 0.95, 262144, 8.91, True): "qwen38-awq-3090",
    (_AIRA + "782d767fdbf897a9037213fa165f4eefc2cc02e0/src/mle_critic/docs/evaluation/LOCAL_VLLM_TWO_NODE_SETUP.md",
     "0.29.0", "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", 2, 1, 1, 0.95, 131072, 8.91, True): "qwen38-awq-3090",
}


def verdict_key(log: Log) -> tuple[str, str, str, int, int, int, float | None, int | str | None, float | None, bool]:
    """The key of a row in :data:`VERDICT_KV_ROWS`: URL, release, model, TP, PP, DP, the utilisation and context the
    row sets, the KV budget it logged and whether it started (a post's runs differ in those)."""
    s = log.settings
    return (log.url, log.release, log.model.id, s.tp, s.pp, s.dp, s.gpu_memory_utilization, s.max_model_len,
            log.kv_gib, log.started)


def verdict_kv_cause(log: Log) -> str:
    """The class of a row whose verdict is wrong or whose KV budget is outside its tolerance (:data:`VERDICT_KV_ROWS`),
    "" for any other row."""
    return VERDICT_KV_ROWS.get(verdict_key(log), "")


def verdict_kv_table(logs: list[Log]) -> str:
    """The verdict and KV misses by cause: rows, wrong verdicts, KV budgets outside tolerance and the KV residual's
    range (shardwise less logged, GiB), so a term's effect on each class shows as a before/after of this table."""
    by: dict[str, list[Score]] = {}
    for lg in logs:
        name = verdict_kv_cause(lg)
        if name:
            by.setdefault(name, []).append(score(lg))
    out = [f"{'cause':<28} {'rows':>4} {'verdict':>7} {'KV':>4} {'GiB min':>8} {'max':>7}"]
    for name in (*MISS_CAUSES, *VERDICT_KV_CAUSES):
        scs = by.get(name, [])
        if not scs:
            continue
        res = [sc.sized.available_kv_gib - sc.log.kv_gib for sc in scs if sc.log.kv_gib is not None]
        span = f"{min(res):>+8.2f} {max(res):>+7.2f}" if res else f"{'-':>8} {'-':>7}"
        out.append(f"{name:<28} {len(scs):>4} {sum(not sc.verdict_right for sc in scs):>7} "
                   f"{sum(sc.kv_within is False for sc in scs):>4} {span}")
    return "\n".join(out)


def row_key(log: Log) -> tuple[str, str, str, int, int, int, int | None]:
    """The key of a row in :data:`MISS_ROWS`: URL, release, model, TP, PP, DP and the token count it logged."""
    s = log.settings
    return (log.url, log.release, log.model.id, s.tp, s.pp, s.dp, log.tokens)


def miss_cause(log: Log) -> str:
    """The class of a row whose token count is outside 5 % (:data:`MISS_CAUSES`), "" for any other row."""
    return MISS_ROWS.get(row_key(log), "")


def cause_table(logs: list[Log]) -> str:
    """The token misses by cause (:data:`MISS_CAUSES`): rows, the token error's range (shardwise less logged, % of the
    logged count) and the budget residual's range (shardwise's KV budget less the one the logged count implies at
    shardwise's bytes a token, GiB), so a term's effect on each class shows as a before/after of this table."""
    by: dict[str, list[tuple[float, float]]] = {}
    for lg in logs:
        name = miss_cause(lg)
        if not name:
            continue
        s = size(lg)
        assert lg.tokens is not None  # a classed row logs its token count
        implied = lg.tokens * s.available_kv_gib / s.kv_cache_tokens if s.kv_cache_tokens else 0.0
        by.setdefault(name, []).append((100 * (s.kv_cache_tokens / lg.tokens - 1), s.available_kv_gib - implied))
    out = [f"{'cause':<24} {'rows':>4} {'tokens % min':>12} {'max':>7} {'GiB min':>8} {'max':>7}"]
    for name in MISS_CAUSES:
        vals = by.get(name, [])
        if vals:
            out.append(f"{name:<24} {len(vals):>4} {min(v[0] for v in vals):>+12.1f} {max(v[0] for v in vals):>+7.1f} "
                       f"{min(v[1] for v in vals):>+8.2f} {max(v[1] for v in vals):>+7.2f}")
    return "\n".join(out)


def _ratio(values: Iterable[bool | None]) -> str:
    vals = [v for v in values if v is not None]
    return f"{sum(vals)}/{len(vals)}" if vals else "-"


def scoreboard(logs: list[Log]) -> str:
    """The table an outside evaluation prints: per release line and in all, per GPU, then every row that misses."""
    scores = [score(lg) for lg in logs]
    lines = sorted({sc.log.line for sc in scores}, key=lambda x: [int(p) if p.isdigit() else 99
                                                                   for p in x.replace("x", "").split(".")])
    out = [f"{'release':<8} {'logs':>4}  {'verdict':>7}  {'KV':>7}  {'tokens 5%':>9}  {'weights':>7}"]

    def row(name: str, group: list[Score]) -> str:
        return (f"{name:<8} {len(group):>4}  {_ratio(g.verdict_right for g in group):>7}  "
                f"{_ratio(g.kv_within for g in group):>7}  {_ratio(g.tokens_within_5pct for g in group):>9}  "
                f"{_ratio(g.weights_within for g in group):>7}")

    for line in lines:
        out.append(row(line, [sc for sc in scores if sc.log.line == line]))
    out.append(row("all", scores))
    out.append("")
    out.append(f"{'GPU':<15} {'logs':>4}  {'verdict':>7}  {'KV':>7}  {'tokens 5%':>9}  {'weights':>7}")
    for gpu in sorted({sc.log.gpu for sc in scores}):
        out.append(row(f"{gpu:<15}", [sc for sc in scores if sc.log.gpu == gpu]))
    classes = [sc.miss_class for sc in scores if sc.miss_class]
    if classes:
        out.append("")
        out.append("token counts outside 5 %, by where the error is: " + ", ".join(
            f"{name} {classes.count(name)}" for name in ("budget", "layout", "stage", "rank", "unsplit")))
        unsplit = [sc.logged_blocks for sc in scores if sc.miss_class == "unsplit"]
        out.append("unsplit token counts, by whether they are whole KV blocks of shardwise's layout: "
                   f"whole blocks {sum(1 for n in unsplit if n)}, no block count {unsplit.count(0)}, "
                   f"undecided {unsplit.count(None)}")
        causes = [miss_cause(sc.log) or "unclassed" for sc in scores if sc.miss_class]
        out.append("token counts outside 5 %, by cause: " + ", ".join(
            f"{name} {causes.count(name)}" for name in (*MISS_CAUSES, "unclassed") if causes.count(name)))
    wrong = [verdict_kv_cause(sc.log) or "unclassed" for sc in scores if not sc.verdict_right or sc.kv_within is False]
    if wrong:
        out.append("wrong verdicts and KV budgets outside tolerance, by cause: " + ", ".join(
            f"{name} {wrong.count(name)}" for name in (*MISS_CAUSES, *VERDICT_KV_CAUSES, "unclassed")
            if wrong.count(name)))
    misses = [sc for sc in scores if not sc.verdict_right or sc.kv_within is False or sc.tokens_within_5pct is False
              or sc.weights_within is False]
    if misses:
        out.append("")
        out.append("misses:")
    for sc in misses:
        s, lg = sc.sized, sc.log
        what = []
        if not sc.verdict_right:
            what.append(f"verdict {'starts' if s.starts else 'refuses'} ({s.verdict}), logged "
                        f"{'started' if lg.started else 'refused'}")
        if sc.kv_within is False:
            what.append(f"KV {s.available_kv_gib:.2f} GiB, logged {lg.kv_gib}")
        if sc.tokens_within_5pct is False:
            split = ("" if sc.tokens_from_logged_kv is None else
                     f", {sc.tokens_from_logged_kv:,} from the logged budget")
            cause = miss_cause(lg) or "unclassed"
            if sc.logged_blocks is not None:
                split = (f", {sc.logged_blocks:,} blocks against {s.kv_blocks:,}" if sc.logged_blocks else
                         ", no whole block count of shardwise's layout")
            what.append(f"tokens {s.kv_cache_tokens:,}, logged {lg.tokens:,} ({sc.miss_class}{split}; {cause})")
        if not sc.verdict_right or sc.kv_within is False:
            what[len(what) - 1 - (sc.tokens_within_5pct is False)] += f" ({verdict_kv_cause(lg) or 'unclassed'})"
        if sc.weights_within is False:
            what.append(f"weights {s.weights_gib_per_gpu:.2f} GiB, logged {lg.weights_gib}")
        out.append(f"  {lg.release} {lg.model.id} {lg.gpu} TP{lg.settings.tp}: {'; '.join(what)}  {lg.url}")
    return "\n".join(out)
