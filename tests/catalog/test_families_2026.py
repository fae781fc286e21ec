"""Families served in 2026 added from published configurations (round 3): NVIDIA Nemotron Nano 9B v2 (a Mamba2
hybrid), Gemma 4 31B and 26B-A4B (global layers with their own head size, a MoE beside a dense MLP), Qwen3.5-35B-A3B,
SmolLM3-3B, Qwen3.5-9B, Qwen3-VL-8B-Instruct, Gemma 4 E2B and E4B (per-layer embeddings, KV-shared layers).

Each case rebuilds the config keys the record was taken from and checks the catalog's parameter count against what
:func:`derive_params` makes of them, then the weights per GPU, the KV layout vLLM builds per token and per request,
and a lint of a Deployment written the way public vLLM manifests are (``vllm serve`` with the model as the first
argument): the model is known, so its capacity rules are decided (no SW004).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, derive_vision_params, find_model, shape_from_config
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import behaviour

GIB = 1024**3

# nvidia/NVIDIA-Nemotron-Nano-9B-v2's config.json keys at 6533e8de2c68e4536bf7c411d7a3ce5734111476
NEMOTRON_NANO_9B_V2: dict[str, Any] = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "torch_dtype": "bfloat16",
    "vocab_size": 131072, "hidden_size": 4480, "intermediate_size": 15680, "num_hidden_layers": 56,
    "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
    "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
    "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
    "tie_word_embeddings": False,
}

# transformers' convert_gemma4_weights.py (_VARIANTS) at 0f3f0632a38798af2adf264adc752130ecc5fa66: the text configs
# it writes for gemma-4-31b and gemma-4-26b-a4b
_GEMMA4_TYPES = ["sliding_attention"] * 5 + ["full_attention"]
GEMMA4_31B: dict[str, Any] = {
    "architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4",
    "text_config": {
        "model_type": "gemma4_text", "hidden_size": 5376, "hidden_size_per_layer_input": 0,
        "intermediate_size": 4 * 5376, "num_hidden_layers": 60, "layer_types": _GEMMA4_TYPES * 10,
        "num_attention_heads": 32, "num_key_value_heads": 16, "num_global_key_value_heads": 4,
        "global_head_dim": 512, "attention_k_eq_v": True, "num_kv_shared_layers": 0, "sliding_window": 1024,
        "max_position_embeddings": 262_144, "use_bidirectional_attention": "vision",
    },
}
GEMMA4_26B_A4B: dict[str, Any] = {
    "architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4",
    "text_config": {
        "model_type": "gemma4_text", "hidden_size": 2816, "hidden_size_per_layer_input": 0,
        "intermediate_size": 2112, "num_hidden_layers": 30, "layer_types": _GEMMA4_TYPES * 5,
        "num_attention_heads": 16, "num_key_value_heads": 8, "num_global_key_value_heads": 2,
        "global_head_dim": 512, "attention_k_eq_v": True, "num_kv_shared_layers": 0, "enable_moe_block": True,
        "num_experts": 128, "moe_intermediate_size": 704, "top_k_experts": 8, "sliding_window": 1024,
        "max_position_embeddings": 262_144, "use_bidirectional_attention": "vision",
    },
}


def test_nemotron_nano_9b_v2_params_from_its_pattern():
    # 27 Mamba2 mixers: in_proj 4480 x (10240 + 12288 + 128), conv 12288 x 4 + bias, dt_bias / A_log / D, gated norm
    # 10240, out_proj 10240 x 4480; 4 attention layers 4480 x (40 + 2 x 8 + 40) x 128; 25 squared-ReLU MLPs
    # 2 x 4480 x 15680; one RMSNorm per layer and the final one; untied embeddings 2 x 131072 x 4480
    mamba = 4480 * (10240 + 12288 + 128) + 12288 * 4 + 12288 + 3 * 128 + 10240 + 10240 * 4480
    assert mamba == 147_446_144
    expected = 2 * 131072 * 4480 + 27 * mamba + 4 * 55_050_240 + 25 * 140_492_800 + 57 * 4480
    assert derive_params(NEMOTRON_NANO_9B_V2) == expected == 8_888_227_328
    record = find_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert record.params == expected
    taught = shape_from_config(NEMOTRON_NANO_9B_V2, model_id="nemotron", source="config.json")
    assert (taught.params, taught.num_hidden_layers, taught.max_position_embeddings) == (expected, 56, 131072)
    # a newer config that lists the layers instead (NemotronHConfig.layers_block_type) is the same model
    names = {"M": "linear_attention", "*": "full_attention", "-": "mlp"}
    listed = {k: v for k, v in NEMOTRON_NANO_9B_V2.items() if k not in ("hybrid_override_pattern", "num_hidden_layers")}
    listed["layers_block_type"] = [names[c] for c in NEMOTRON_NANO_9B_V2["hybrid_override_pattern"]]
    relisted = shape_from_config(listed, model_id="nemotron", source="config.json")
    assert (relisted.params, relisted.num_hidden_layers) == (expected, 56)
    assert [(t.kind, t.layers) for t in kv_layout.layout(relisted, 1, 1, 2).types] == [("full", 4), ("state", 27)]


def test_nemotron_nano_9b_v2_kv_cache():
    model = find_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    lay = kv_layout.layout(model, 1, 1, 2)
    # 4 attention layers of 2 x 8 x 128 bf16 per token; 27 Mamba2 states of 73,728 (conv, bf16) + 5,242,880 (SSM,
    # float32) bytes per request; the 25 MLP layers cache nothing
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 4, 4096, 0), ("state", 27, 0, 5_316_608)]
    sized = sizing.size_replica(model, 47.7, vllm_version="0.11.0", max_model_len=131_072, max_num_seqs=64)
    # the attention block becomes 1,312 tokens (16 x cdiv(5,316,608, 16 x 4,096)), one page 5,373,952 bytes
    assert sized.block_size == 1312 and sized.hybrid_kv
    assert round(sized.weights_gib_per_gpu, 2) == 16.59  # 8,888,227,328 x 2 bytes


def test_gemma4_params_are_the_model_cards_totals():
    # 31B: 50 sliding layers (q 32 x 256, k and v 16 x 256, o) + 10 global (q 32 x 512, k 4 x 512 serving as V, o),
    # q/k norms, GELU MLP 3 x 5376 x 21504, 4 norms per layer; tied embeddings 262144 x 5376: the card's 30.7B
    assert derive_params(GEMMA4_31B) == 30_697_345_280
    # 26B-A4B: every layer a dense MLP of 2112 beside 128 experts of 3 x 2816 x 704, a router 2816 x 128 with its
    # scale, a per-expert scale and 3 more norms: the card's 25.2B total
    assert derive_params(GEMMA4_26B_A4B) == 25_233_141_760
    g31, g26 = find_model("google/gemma-4-31B-it"), find_model("google/gemma-4-26B-A4B-it")
    # the records add the vision encoder's approximate 550M that the model card states
    assert (g31.params, g31.vision_params) == (30_697_345_280 + 550_000_000, 550_000_000)
    assert (g26.params, g26.vision_params) == (25_233_141_760 + 550_000_000, 550_000_000)
    assert g26.moe is not None and (g26.moe.num_experts, g26.moe.experts_per_token) == (128, 8)
    taught = shape_from_config(GEMMA4_26B_A4B, model_id="gemma4", source="config.json")
    assert taught.moe is not None and taught.moe.experts_per_token == 8  # top_k_experts
    assert find_model("google/gemma-4-31B") is g31


def test_gemma4_bidirectional_vision_attention_is_kept_from_a_config_json():
    # vLLM's Gemma4ModelArchConfigConvertor reads text_config.use_bidirectional_attention; with a vision tower a
    # "vision" model is a prefix-LM model whose default token budget holds its 2,496-token video item (0.22+)
    with_vision = {**GEMMA4_26B_A4B, "vision_config": {"model_type": "gemma4_vision", "default_output_length": 280}}
    taught = shape_from_config(with_vision, model_id="gemma4", source="config.json")
    assert taught.hf_config["use_bidirectional_attention"] == "vision"
    assert sizing.mm_prefix_lm_tokens(taught) == 2496
    assert sizing.mm_prefix_lm_tokens(shape_from_config(GEMMA4_26B_A4B, model_id="gemma4", source="config.json")) == 0


def test_gemma4_kv_layout_and_weights():
    g31 = find_model("google/gemma-4-31B-it")
    lay = kv_layout.layout(g31, 2, 1, 2)
    # TP2: sliding 8 KV heads of 256, global 2 KV heads of 512, K and V cached (k_eq_v loads K into both)
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in lay.types] == [
        ("full", 10, 2 * 2 * 512 * 2, None), ("sliding", 50, 2 * 8 * 256 * 2, 1024)]
    # a page is 16 sliding tokens (131,072 bytes): 32 global tokens
    plan = kv_layout.plan_kv_cache(lay, behaviour("0.20.0"), "v1", 30 * GIB, 32_768, 8192)
    assert (plan.page_bytes, plan.group_layers, len(plan.groups)) == (131_072, 10, 6)
    assert plan.num_blocks == 30 * GIB // 131_072 // 10 == 24_576
    # one 32,768-token request: 1,024 global blocks + 5 sliding groups x (cdiv(1023 + 8192, 16) + 1 = 577)
    assert plan.max_concurrency == pytest.approx(24_576 / (1024 + 5 * 577))
    sized = sizing.size_replica(g31, 79.19, tp=2, vllm_version="0.20.0", max_model_len=32_768)
    # the 550M-parameter vision tower whole on each GPU (transformers' AutoModel, gemma4_mm.py): 29.23 + 0.51; and
    # (toksingle10) the full-attention layers' 512-wide rotary cache, 0.25, and half of their V slots, 0.10
    assert round(sized.weights_gib_per_gpu, 2) == 30.09
    g26 = kv_layout.layout(find_model("google/gemma-4-26B-A4B-it"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in g26.types] == [("full", 5, 4096), ("sliding", 25, 8192)]


def test_qwen35_35b_a3b_is_the_qwen36_shape():
    q35, q36 = find_model("Qwen/Qwen3.5-35B-A3B"), find_model("Qwen/Qwen3.6-35B-A3B")
    fields = ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
              "vocab_size", "max_position_embeddings", "vision_params", "moe")
    assert {f: getattr(q35, f) for f in fields} == {f: getattr(q36, f) for f in fields}
    assert "configuration_qwen3_5_moe.py" in q35.source
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(q35, 1, 1, 2).types if t.kind == "full"] \
        == [("full", 10, 2048)]


@pytest.mark.parametrize("model_id", ["nvidia/NVIDIA-Nemotron-Nano-9B-v2", "google/gemma-4-31B-it",
                                      "google/gemma-4-26B-A4B-it", "Qwen/Qwen3.5-35B-A3B",
                                      "HuggingFaceTB/SmolLM3-3B", "Qwen/Qwen3.5-9B", "Qwen/Qwen3-VL-8B-Instruct",
                                      "google/gemma-4-E2B-it", "google/gemma-4-E4B-it"])
def test_plan_runs(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H100"]) == 0
    out, err = capsys.readouterr()
    assert model_id in out and "Traceback" not in err


# Deployments written the way public vLLM manifests are: `vllm serve <model>` with flags as args, an HF token from a
# Secret, a memory-backed /dev/shm, a readiness probe on /health, a GPU node selected by instance type.
GEMMA4_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
  namespace: llm
  labels:
    app: gemma-4-31b
spec:
  replicas: 2
  selector:
    matchLabels:
      app: gemma-4-31b
  template:
    metadata:
      labels:
        app: gemma-4-31b
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: p5.48xlarge
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.0
          command: ["vllm", "serve"]
          args:
            - google/gemma-4-31B-it
            - --tensor-parallel-size
            - "2"
            - --max-model-len
            - "32768"
            - --gpu-memory-utilization
            - "0.90"
          env:
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef:
                  name: hf-token
                  key: token
          ports:
            - containerPort: 8000
              name: http
          resources:
            limits:
              nvidia.com/gpu: "2"
          readinessProbe:
            httpGet:
              path: /health
              port: 8000
          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: 16Gi
"""
# NVIDIA's model card command (vllm serve ... --trust-remote-code --mamba_ssm_cache_dtype float32) on one L40S
NEMOTRON_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
  namespace: llm
spec:
  replicas: 1
  selector:
    matchLabels:
      app: nemotron-nano
  template:
    metadata:
      labels:
        app: nemotron-nano
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve"]
          args:
            - nvidia/NVIDIA-Nemotron-Nano-9B-v2
            - --trust-remote-code
            - --max-num-seqs
            - "64"
            - --mamba_ssm_cache_dtype
            - float32
          ports:
            - containerPort: 8000
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(("manifest", "codes"), [
    # TP2 with a 32k context on H100s: TP1 holds one 32k request only within the estimate's error band, so it does
    # not serve the model (capacity.layout.serves, the judgement plan makes: plan case gemma4-31b-h100 recommends
    # TP2) and SW104 is silent; SW106 names the 4-bit variant that would fit one GPU
    (GEMMA4_DEPLOYMENT, {"SW106"}),
    # one L40S holds it with room to spare: nothing to say
    (NEMOTRON_DEPLOYMENT, set()),
])
def test_a_manifest_serving_a_new_family_is_decided(tmp_path: Path, manifest, codes):
    path = tmp_path / "deploy.yaml"
    path.write_text(manifest)
    findings = run_rules(ALL_RULES, load_inputs([str(path)]))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided]  # the model is known: nothing undecided
    assert {f.code for f in mine if f.code.startswith(("SW1", "SW2"))} == codes
    assert all(f.level == "advisory" for f in mine if f.code.startswith("SW1"))


def test_smollm3_3b():
    config = {"architectures": ["SmolLM3ForCausalLM"], "model_type": "smollm3", "hidden_size": 2048,
              "num_hidden_layers": 36, "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 128,
              "intermediate_size": 11008, "vocab_size": 128256, "max_position_embeddings": 65536,
              "tie_word_embeddings": True, "no_rope_layers": [1, 1, 1, 0] * 9}
    # tied 128256 x 2048 + 36 x (q 2048 x 2048, k and v 2048 x 512, o, SwiGLU 3 x 2048 x 11008, 2 norms) + norm
    assert derive_params(config) == 128256 * 2048 + 36 * (2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 11008
                                                           + 2 * 2048) + 2048 == 3_075_098_624
    model = find_model("HuggingFaceTB/SmolLM3-3B")
    assert model.params == 3_075_098_624
    # NoPE layers are still full attention: 36 layers of 2 x 4 x 128 bf16
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(model, 1, 1, 2).types] == [
        ("full", 36, 2048)]
    assert sizing.derived_max_model_len(model) == 65_536


def test_qwen35_9b_text_is_what_llama_cpp_counts():
    model = find_model("Qwen/Qwen3.5-9B")
    # the decoder alone: llama.cpp logs 'model params = 8.95 B' for a GGUF of a Qwen3.5-9B fine-tune
    assert (model.params - model.vision_params, model.vision_params) == (8_953_803_264, 456_010_480)
    lay = kv_layout.layout(model, 1, 1, 2)
    # 8 gated-attention layers of 2 x 4 x 256 bf16; 24 Gated DeltaNet states: conv (2 x 16 x 128 + 32 x 128) x 3
    # bf16 + recurrent 32 x 128 x 128, float32 (config.json's mamba_ssm_dtype, applied by vLLM's Qwen3_5 config hook)
    assert [(t.kind, t.layers, t.bytes_per_token, t.state_bytes) for t in lay.types] == [
        ("full", 8, 4096, 0), ("state", 24, 0, (2 * 16 * 128 + 32 * 128) * 3 * 2 + 32 * 128 * 128 * 4)]
    assert sizing.derived_max_model_len(model) == 262_144


def test_qwen3_vl_8b_counts_its_deepstack_tower():
    model = find_model("Qwen/Qwen3-VL-8B-Instruct")
    assert model.params == find_model("Qwen/Qwen3-8B").params + 576_388_336 == 8_767_123_696
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(model, 1, 1, 2).types] == [
        ("full", 36, 2 * 8 * 128 * 2)]


# Qwen3-Omni-30B-A3B's layout (Qwen3OmniMoeThinkerConfig and its sub-configs in transformers, checkpoint
# Qwen/Qwen3-Omni-30B-A3B-Instruct): the thinker vLLM serves, beside a talker and code2wav it does not load. The audio
# and vision sub-configs at their defaults but for the width they project to; the decoder sized as keras-hub's
# Qwen3-Omni preset describes it (48 layers, 32 Q / 4 KV heads, 128 experts, 8 active, Qwen3-30B-A3B's 30.5B), the
# context at Qwen3OmniMoeTextConfig's default. No catalog record: the checkpoint's own config.json was not found.
QWEN3_OMNI: dict[str, Any] = {
    "architectures": ["Qwen3OmniMoeForConditionalGeneration"], "model_type": "qwen3_omni_moe",
    "thinker_config": {
        "model_type": "qwen3_omni_moe_thinker",
        "audio_config": {"model_type": "qwen3_omni_moe_audio_encoder", "output_dim": 2048},
        "vision_config": {"model_type": "qwen3_omni_moe_vision_encoder", "out_hidden_size": 2048},
        "text_config": {"model_type": "qwen3_omni_moe_text", "hidden_size": 2048, "num_hidden_layers": 48,
                        "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
                        "intermediate_size": 768, "moe_intermediate_size": 768, "num_experts": 128,
                        "num_experts_per_tok": 8, "max_position_embeddings": 32768},
    },
    "talker_config": {"model_type": "qwen3_omni_moe_talker"},
    "code2wav_config": {"model_type": "qwen3_omni_moe_code2wav"},
}


def test_qwen3_omni_audio_and_vision_towers_count():
    # audio (Qwen3OmniMoeAudioEncoder): three 3x3 stride-2 convs of 480 channels with biases, conv_out 480 x 16 x 1280
    # (128 mel bins halved three times), 32 layers of 4 biased 1280^2 projections, 2 LayerNorms and a 5120 GELU MLP,
    # ln_post, proj1 1280 x 1280 and proj2 1280 x 2048 with biases
    convs = (9 * 480 + 480) + 2 * (9 * 480 * 480 + 480) + 480 * 16 * 1280
    layer = 4 * 1280 * 1280 + 4 * 1280 + 4 * 1280 + 2 * 1280 * 5120 + 5120 + 1280
    audio = convs + 32 * layer + 2 * 1280 + 1280 * 1280 + 1280 + 1280 * 2048 + 2048
    assert audio == 647_927_168
    # vision: Qwen3-VL's tower (27 blocks of 1152, 3 deepstack mergers) projecting to 2048
    vision = 538_631_408
    assert derive_vision_params(QWEN3_OMNI) == audio + vision
    # 1.19B weights the thinker loads beside its decoder: 2.21 GiB in bf16
    assert round((audio + vision) * 2 / 2**30, 2) == 2.21
    taught = shape_from_config(QWEN3_OMNI, model_id="qwen3-omni", source="config.json")
    assert taught.vision_params == audio + vision and "talker_config" in str(taught.extra["params_note"])
    # the decoder is Qwen3-30B-A3B's shape (q/k norms, 128 experts of 768): 30,532,122,624 with its vocabulary
    assert taught.params - taught.vision_params == find_model("Qwen/Qwen3-30B-A3B").params


def test_a_granite_4_h_config_counts_its_mamba_layers_shared_mlp_and_experts():
    # a Granite 4.0-H-shaped config (GraniteMoeHybridConfig keys): 4 layers, one of them attention
    config = {"model_type": "granitemoehybrid", "hidden_size": 1536, "num_hidden_layers": 4, "num_attention_heads": 12,
              "num_key_value_heads": 4, "vocab_size": 100352, "intermediate_size": 512, "shared_intermediate_size": 1024,
              "num_local_experts": 64, "num_experts_per_tok": 6, "tie_word_embeddings": True,
              "max_position_embeddings": 131072, "layer_types": ["mamba", "mamba", "attention", "mamba"],
              "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
              "mamba_d_conv": 4, "mamba_expand": 2}
    inner, conv = 3072, 3072 + 2 * 128
    mamba = 1536 * (inner + conv + 48) + conv * 4 + conv + 3 * 48 + inner + inner * 1536
    attention = 1536 * 12 * 128 + 2 * 1536 * 4 * 128 + 12 * 128 * 1536
    mlp = 3 * 1536 * 1024 + 1536 * 64 + 64 * 3 * 1536 * 512
    expected = 100352 * 1536 + 1536 + 3 * mamba + attention + 4 * (mlp + 2 * 1536)
    assert derive_params(config) == expected
    taught = shape_from_config(config, model_id="granite", source="config.json")
    assert [(t.kind, t.layers) for t in kv_layout.layout(taught, 1, 1, 2).types] == [("full", 1), ("state", 3)]


def test_gemma4_e2b_and_e4b():
    # per-layer embeddings: the table 262144 x (35 x 256), the model projection 1536 x (35 x 256) and its norm, and per
    # layer a gate 1536 x 256, a projection 256 x 1536 and a norm; without them the decoder is the card's 2.3B
    # "effective" parameters
    e2b_text = {"model_type": "gemma4_text", "hidden_size": 1536, "intermediate_size": 6144, "num_hidden_layers": 35,
                "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7, "num_attention_heads": 8,
                "num_key_value_heads": 1, "global_head_dim": 512, "num_kv_shared_layers": 20,
                "use_double_wide_mlp": True, "vocab_size": 262144}
    assert derive_params({"model_type": "gemma4", "text_config": e2b_text}) == 2_257_297_920
    ple = 262144 * 35 * 256 + 1536 * 35 * 256 + 256 + 35 * (2 * 1536 * 256 + 1536)
    e2b = {"model_type": "gemma4", "text_config": {**e2b_text, "hidden_size_per_layer_input": 256}}
    assert derive_params(e2b) == 2_257_297_920 + ple == 4_647_449_856
    record = find_model("google/gemma-4-E2B-it")
    assert (record.params, record.extra["derived_params"]) == (5_100_000_000, 4_647_449_856)
    # the 20 KV-shared layers hold no cache: 3 global (1 KV head of 512) and 12 sliding (1 of 256, window 512)
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in kv_layout.layout(record, 1, 1, 2).types] == [
        ("full", 3, 2048, None), ("sliding", 12, 1024, 512)]
    e4b = find_model("google/gemma-4-E4B-it")
    assert (e4b.params, e4b.extra["derived_params"]) == (8_000_000_000, 7_518_068_992)
    assert [(t.kind, t.layers, t.bytes_per_token) for t in kv_layout.layout(e4b, 1, 1, 2).types] == [
        ("full", 4, 4096), ("sliding", 20, 2048)]
    assert sizing.derived_max_model_len(e4b) == 131_072
