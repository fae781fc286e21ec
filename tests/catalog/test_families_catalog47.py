"""OLMo 3 and the quantised checkpoints NVIDIA and Z.ai publish of models the catalog knows (issue 28, catalog47).

OLMo 3 (``Olmo3ForCausalLM``, which vLLM builds as ``Olmo2ForCausalLM``, ``model_executor/models/olmo2.py``): a dense
decoder whose QK-norm is one RMSNorm over all query heads and one over all key heads, three sliding-window layers of
4,096 tokens for each full one, and YaRN on the full layers. Its records come from the config keys a public port
states and loads the published safetensors into (rasbt/LLMs-from-scratch at 12658fee,
``ch05/13_olmo3/standalone-olmo3.ipynb``), the model card's layer, width and head counts agreeing.

The quantised checkpoints (``nvidia/...-NVFP4``, ``zai-org/GLM-5*-FP8``) were resolved by name as their originals
wholly at the stated precision; their config.json (as ai-dynamo/aiconfigurator caches them at 095f58a) leaves
attention, shared experts, routers or vision towers 16-bit, so each is now an entry with its own
``quantization_config``. Each record is checked for its parameters, its KV bytes per token and its weights, and a
manifest naming it (positionally, with ``--model``, or under a re-upload's name) is decided.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import checkpoint_precision, derived_max_model_len, ignored_params, weights_bytes
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

_TYPES = ["full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(64)]
_ROPE = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192,
         "attention_factor": 1.2079441541679836}

# OLMO3_CONFIG_7B and OLMO3_CONFIG_32B of the port, written as config.json keys
OLMO3_7B: dict[str, Any] = {
    "architectures": ["Olmo3ForCausalLM"], "model_type": "olmo3", "vocab_size": 100278, "hidden_size": 4096,
    "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
    "max_position_embeddings": 65536, "attention_bias": False, "sliding_window": 4096, "layer_types": _TYPES[:32],
    "rope_theta": 500000.0, "rope_scaling": _ROPE, "rms_norm_eps": 1e-06, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
OLMO3_32B: dict[str, Any] = {
    **OLMO3_7B, "hidden_size": 5120, "intermediate_size": 27648, "num_hidden_layers": 64, "num_attention_heads": 40,
    "num_key_value_heads": 8, "layer_types": _TYPES,
}


def _olmo_params(vocab: int, h: int, layers: int, heads: int, kv: int, inter: int) -> int:
    q, kv_out = heads * 128, kv * 128
    layer = h * q + 2 * h * kv_out + q * h + (q + kv_out) + 3 * h * inter + 2 * h
    return 2 * vocab * h + layers * layer + h


def test_olmo3_counts_its_full_width_qk_norms():
    # q_norm over all 32 (40) query heads and k_norm over all 32 (8) key heads, as vLLM's Olmo2Attention builds them
    assert derive_params(OLMO3_7B) == _olmo_params(100278, 4096, 32, 32, 32, 11008) == 7_298_011_136
    assert derive_params(OLMO3_32B) == _olmo_params(100278, 5120, 64, 40, 8, 27648) == 32_233_522_176
    # one head's width (the Qwen3 QK-norm) would be 2 x 128 a layer, not 4096 + 4096
    assert derive_params(OLMo2 := {**OLMO3_7B, "model_type": "olmo2"}) == derive_params(OLMO3_7B)
    assert derive_params({**OLMo2, "model_type": "llama"}) == 7_298_011_136 - 32 * (4096 + 4096)


@pytest.mark.parametrize(("model_id", "config", "params"), [
    ("allenai/Olmo-3-1025-7B", OLMO3_7B, 7_298_011_136), ("allenai/Olmo-3-1125-32B", OLMO3_32B, 32_233_522_176)])
def test_olmo3_records_are_their_configs(model_id, config, params):
    m = find_model(model_id)
    taught = shape_from_config(config, model_id=model_id, source="config.json")
    for field in ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                  "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "tie_word_embeddings"):
        assert getattr(m, field) == getattr(taught, field), field
    assert (m.params, m.precision, m.head_dim) == (params, "bf16", 128)
    assert m.hf_config["layer_types"] == config["layer_types"]
    # YaRN over 8,192 original positions x 8: vLLM derives the 65,536 of config.json
    assert derived_max_model_len(m) == 65_536


@pytest.mark.parametrize(("alias", "model_id"), [
    ("allenai/Olmo-3-7B-Instruct", "allenai/Olmo-3-1025-7B"), ("allenai/Olmo-3-7B-Think", "allenai/Olmo-3-1025-7B"),
    ("allenai/OLMo-3-7B-Instruct", "allenai/Olmo-3-1025-7B"), ("allenai/Olmo-3-32B-Think", "allenai/Olmo-3-1125-32B"),
    ("allenai/Olmo-3.1-32B-Instruct", "allenai/Olmo-3-1125-32B"),
    ("allenai/Olmo-3.1-32B-Think", "allenai/Olmo-3-1125-32B")])
def test_olmo3_checkpoints_resolve_to_their_size(alias, model_id):
    assert find_model(alias) is find_model(model_id)


def test_olmo3_caches_a_window_on_three_layers_of_four():
    m7, m32 = find_model("allenai/Olmo-3-7B-Instruct"), find_model("allenai/Olmo-3.1-32B-Instruct")
    assert kv_layout.unmodelled_reason(m7) == kv_layout.unmodelled_reason(m32) == ""
    # 7B: 32 KV heads (multi-head attention) x 128 x 2 (K and V) x 2 bytes = 16,384 a layer; 8 full, 24 sliding
    assert kv_layout.replica_token_bytes(m7, 1, 1, 2) == 32 * 32 * 128 * 2 * 2 == 524_288
    full, sliding = kv_layout.layout(m7, 1, 1, 2).types
    assert (full.kind, full.layers, full.bytes_per_token) == ("full", 8, 16_384)
    assert (sliding.kind, sliding.layers, sliding.bytes_per_token, sliding.span) == ("sliding", 24, 16_384, 4096)
    # 32B at TP2: 8 KV heads split 4 a GPU, 64 layers: 16 full and 48 sliding
    assert kv_layout.replica_token_bytes(m32, 2, 1, 2) == 64 * 4 * 128 * 2 * 2 == 131_072
    full, sliding = kv_layout.layout(m32, 2, 1, 2).types
    assert (full.layers, sliding.layers, full.bytes_per_token, sliding.span) == (16, 48, 2048, 4096)


@pytest.mark.parametrize(("model_id", "tp", "weights_gib"), [
    ("allenai/Olmo-3-7B-Instruct", 1, 13.61), ("allenai/Olmo-3.1-32B-Instruct", 2, 30.04),
    ("allenai/Olmo-3.1-32B-Instruct", 1, 60.06)])
def test_olmo3_weights_on_an_h100(model_id, tp, weights_gib):
    m = find_model(model_id)
    sized = sizing.size_replica(m, 79.1, tp=tp, vllm_version="0.18.1", max_model_len=32_768)
    # BF16 weights split TP ways plus the rotary cos/sin cache every GPU keeps: 65,536 positions x 128 x 2 bytes
    assert sized.weights_gib_per_gpu * 2**30 == m.params * 2 / tp + 65_536 * 128 * 2
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (weights_gib, True)


@pytest.mark.parametrize(("model_id", "base", "ignored", "weights_gib", "before_gib"), [
    # the indexer's weights_proj (78 x 6144 x 32) is counted apart since catalog48 (17,113,373,184 with it), and is
    # 16-bit in the name-alone figure too (392.26 before)
    ("nvidia/GLM-5.1-NVFP4", "zai-org/GLM-5.1", 17_098_037_760, 415.17, 392.28),
    # GLM-5.2's 57 layers that share top-k hold no indexer (tokens39: its config.json's index_topk_freq 4 and
    # index_skip_topk_offset 3), so their ignored self_attn lacks wq_b, wk and k_norm: 57 x 9,175,296 fewer than
    # GLM-5.1's, and the model 57 x 9,371,904 parameters smaller (415.17 and 392.28 GiB before)
    ("nvidia/GLM-5.2-NVFP4", "zai-org/GLM-5.2", 17_098_037_760 - 57 * 9_175_296, 414.18, 391.99),
    # the global layers' attention at its 512-wide heads (toksingle10: weights.gemma4_global_attention; 5 x 2,816 x
    # 5,120 and 10 x 5,376 x 10,240 more than the uniform 256-wide count, 1,584,168,960 and 7,927,234,560 before) and
    # the V slots vLLM allocates for them (17.35 and 29.61 GiB before)
    ("nvidia/Gemma-4-26B-A4B-NVFP4", "google/gemma-4-26B-A4B-it", 1_656_258_560, 17.48, 15.24),
    ("nvidia/Gemma-4-31B-IT-NVFP4", "google/gemma-4-31B-it", 8_477_736_960, 30.55, 19.05),
    ("nvidia/Kimi-K2.5-NVFP4", "moonshotai/Kimi-K2.5", 6_168_569_856, 549.98, 541.73),
    ("nvidia/MiniMax-M2.5-NVFP4", "MiniMaxAI/MiniMax-M2.5", 2_779_695_104, 125.17, 121.45),
    ("nvidia/Qwen3.5-122B-A10B-NVFP4", "Qwen/Qwen3.5-122B-A10B", 4_583_537_664, 72.99, 66.85),
])
def test_nvidias_nvfp4_checkpoints_keep_their_ignore_lists(model_id, base, ignored, weights_gib, before_gib):
    from shardwise.rules.catalog import lookup

    shape, original = find_model(model_id), find_model(base)
    assert (shape.precision, shape.quantization, shape.base_model) == ("nvfp4", "modelopt", base)
    assert "aiconfigurator/blob/095f58a51c4ca8e61b66ec108d86f223f8d559ce" in shape.source
    assert (shape.params, shape.max_position_embeddings) == (original.params, original.max_position_embeddings)
    assert shape.hf_config["quantization_config"]["quant_algo"] == "NVFP4"
    assert ignored_params(shape) == ignored
    assert round(weights_bytes(shape, checkpoint_precision(shape)) / 2**30, 2) == weights_gib
    # what the name alone gave: the original wholly 4-bit
    by_name = lookup._as_variant(original, model_id, lookup.resolve_precision_from_name(model_id))
    assert round(weights_bytes(by_name, checkpoint_precision(by_name)) / 2**30, 2) == before_gib


def test_kimi_k27_code_nvfp4_is_kimi_k26_nvfp4s_shape_and_list():
    """nvidia/Kimi-K2.7-Code-NVFP4's config.json (aiconfigurator 095f58a) is Kimi-K2.6's key for key; its ignore list
    adds the embeddings, which are 16-bit anyway. Kimi-K2.7-Code itself is not in the catalog: no base model."""
    from shardwise.rules.catalog import CatalogError

    code, k26 = find_model("nvidia/Kimi-K2.7-Code-NVFP4"), find_model("nvidia/Kimi-K2.6-NVFP4")
    assert (code.params, code.vision_params, code.max_position_embeddings) == (
        k26.params, k26.vision_params, 262_144)
    assert (code.precision, code.quantization, code.base_model) == ("nvfp4", "modelopt", None)
    assert ignored_params(code) == ignored_params(k26) == 9_207_343_104
    assert round(weights_bytes(code, checkpoint_precision(code)) / 2**30, 2) == 554.05
    with pytest.raises(CatalogError):
        find_model("moonshotai/Kimi-K2.7-Code")


@pytest.mark.parametrize(("model_id", "weights_gib"), [
    ("zai-org/GLM-5-FP8", 694.72), ("zai-org/GLM-5.1-FP8", 694.72),
    # 57 x 9,371,904 parameters fewer (tokens39: the layers that share top-k hold no indexer), 57 x 6144 x 32 of
    # them the 16-bit weights_proj: 694.72 before
    ("zai-org/GLM-5.2-FP8", 694.21)])
def test_zais_fp8_checkpoints_state_their_blocks_and_routers(model_id, weights_gib):
    shape = find_model(model_id)
    qc = shape.hf_config["quantization_config"]
    assert (shape.precision, qc["quant_method"], qc["weight_block_size"]) == ("fp8", "fp8", [128, 128])
    # the 75 MoE layers' routers (256 x 6144) stay 16-bit; 694.59 GiB when they were counted at one byte, and (since
    # catalog48) the indexer's weights_proj, 78 x 6144 x 32, which vLLM never quantises: 694.70 before
    assert ignored_params(shape) == 75 * 256 * 6144 == 117_964_800
    assert round(weights_bytes(shape, checkpoint_precision(shape)) / 2**30, 2) == weights_gib


def test_nemotron_h_56b_is_its_config():
    """nvidia/Nemotron-H-56B-Base-8K's config.json as aiconfigurator caches it at 095f58a: 54 Mamba2 layers, 10
    attention layers and 54 squared-ReLU MLPs in its hybrid_override_pattern."""
    m = find_model("nvidia/Nemotron-H-56B-Base-8K")
    pattern = m.hf_config["hybrid_override_pattern"]
    assert (len(pattern), pattern.count("M"), pattern.count("*"), pattern.count("-")) == (118, 54, 10, 54)
    mamba = (8192 * (2 * 16384 + 2 * 8 * 256 + 256)  # in_proj: z and x (256 heads x 64), B and C (8 groups x 256), dt
             + (16384 + 2 * 8 * 256) * 5  # depthwise conv of 4 taps with its bias over x, B and C
             + 3 * 256 + 16384  # dt bias, A, D; the gated RMSNorm
             + 16384 * 8192)  # out_proj
    attention = 8192 * 8192 * 2 + 8192 * 1024 * 2
    mlp = 2 * 8192 * 32768  # up and down (squared ReLU, no gate)
    assert m.params == 2 * 131072 * 8192 + 54 * mamba + 10 * attention + 54 * mlp + 118 * 8192 + 8192
    assert m.params == 56_324_350_464
    # keys and values on the 10 attention layers (8 KV heads x 128 x 2 x 2 bytes); a state per request on the others
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 10 * 8 * 128 * 2 * 2 == 40_960
    full, state = kv_layout.layout(m, 2, 1, 2).types
    assert (full.kind, full.layers, full.bytes_per_token) == ("full", 10, 2048)
    # TP2: a conv state of 3 x (16384 + 4096) / 2 bf16 values, a float32 SSM state of 128 heads x 64 x 256
    assert (state.kind, state.layers, state.state_bytes) == ("state", 54, 3 * 10240 * 2 + 128 * 64 * 256 * 4)
    sized = sizing.size_replica(m, 79.1, tp=2, vllm_version="0.18.1", max_model_len=8192)
    assert sized.weights_gib_per_gpu * 2**30 == m.params + 8192 * 128 * 2
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (52.46, True)


_MODEL_FLAG = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
  namespace: llm
spec:
  replicas: 1
  selector:
    matchLabels:
      app: llm
  template:
    metadata:
      labels:
        app: llm
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: {instance}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.18.1
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: ["--model", "{model}", "--tensor-parallel-size", "{tp}", "--max-model-len", "32768"]
          resources:
            limits:
              nvidia.com/gpu: {tp}
"""


def _decided(tmp_path: Path, text: str) -> list[str]:
    mine = [f for f in lint(tmp_path, text) if f.subject == "Deployment llm/server"]
    assert not [f.code for f in mine if f.code == "SW004" or f.undecided], [f.message for f in mine]
    return [f.code for f in mine if f.code.startswith("SW1") and f.level == "mandatory"]


@pytest.mark.parametrize(("model_id", "tp", "instance"), [
    ("allenai/Olmo-3-7B-Instruct", 1, "p5.48xlarge"),
    ("allenai/Olmo-3.1-32B-Think", 2, "p5.48xlarge"),
    ("nvidia/Gemma-4-31B-IT-NVFP4", 1, "p6-b200.48xlarge"),
    ("nvidia/MiniMax-M2.5-NVFP4", 2, "p6-b200.48xlarge"),
    ("nvidia/Qwen3.5-122B-A10B-NVFP4", 1, "p6-b200.48xlarge"),
    ("zai-org/GLM-5-FP8", 8, "p5en.48xlarge"),
])
def test_a_manifest_naming_the_model_positionally_is_decided(tmp_path, model_id, tp, instance):
    assert _decided(tmp_path, deployment(model_id, tp, instance=instance)) == []


def test_nemotron_h_56b_is_held_to_its_8k_limit(tmp_path):
    # the manifest asks for 32,768 tokens, which the model's 8,192 (config.json, no RoPE scaling) refuses. Its cap of
    # 128 sequences sits below the about 199 Mamba cache blocks of TP2 on H100 at 0.20.0: at vLLM's default 1,024
    # the hybrid is refused for those too (SW102, mamba55)
    manifest = deployment("nvidia/Nemotron-H-56B-Base-8K", 2, extra=', --max-num-seqs, "128"')
    assert _decided(tmp_path, manifest) == ["SW102"]
    assert _decided(tmp_path, manifest.replace('"32768"', '"8192"')) == []
    assert _decided(tmp_path, deployment("nvidia/Nemotron-H-56B-Base-8K", 2).replace('"32768"', '"8192"')) == ["SW102"]


@pytest.mark.parametrize(("model_id", "tp"), [("allenai/Olmo-3.1-32B-Instruct", 2), ("allenai/Olmo-3-7B-Think", 1)])
def test_a_manifest_naming_the_model_with_the_model_flag_is_decided(tmp_path, model_id, tp):
    assert _decided(tmp_path, _MODEL_FLAG.format(model=model_id, tp=tp, instance="p5.48xlarge")) == []


@pytest.mark.parametrize(("name", "base", "precision"), [
    # a third party's re-upload, named as quantisers name theirs: found by its name without the suffix
    ("someone/Olmo-3-7B-Instruct-AWQ", "allenai/Olmo-3-1025-7B", "int4"),
    ("someone/Olmo-3.1-32B-Instruct-FP8-dynamic", "allenai/Olmo-3-1125-32B", "fp8"),
])
def test_a_manifest_naming_a_re_upload_is_decided(tmp_path, name, base, precision):
    shape = find_model(name)
    assert (shape.base_model, shape.precision) == (base, precision)
    assert _decided(tmp_path, deployment(name, 1)) == []
