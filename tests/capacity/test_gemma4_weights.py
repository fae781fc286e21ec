"""Gemma 4's weights as vLLM builds them (toksingle10, issue 28): the full-attention layers' own rotary cache, their
512-wide attention and the V slots of ``attention_k_eq_v``, the towers ``--limit-mm-per-prompt`` leaves unbuilt, and
no cold-compile copy of the embedding where the profile hands the compiled graph embeddings (a multimodal run)."""

from __future__ import annotations

import dataclasses

from shardwise.rules.capacity import sizing
from shardwise.rules.capacity import weights as w
from shardwise.rules.catalog import find_model
from startup_logs import GEMMA4_26B_A4B_FP8, GEMMA4_31B_NVFP4_MODELOPT

GIB = 1024**3
G31, G26, E2B = (find_model(m) for m in ("google/gemma-4-31B-it", "google/gemma-4-26B-A4B-it", "google/gemma-4-E2B-it"))
L40S = sizing.Device("L40S", 44.42, "nvidia", "ada", 1)
TEXT_ONLY = (("image", 0), ("video", 0), ("audio", 0))


def test_the_full_attention_layers_keep_a_rotary_cache_of_their_own():
    # get_rope keys on the head size and the parameters: the sliding layers' cache (256 wide, theta 10,000) and the
    # full layers' Gemma4RotaryEmbedding over the whole 512-wide head (rotary_dim = head_size), each positions x width
    # x 2 bytes (the model's dtype)
    assert sizing.rotary_cache_bytes(G31) == 262_144 * (256 + 512) * 2 == 402_653_184
    assert sizing.rotary_cache_bytes(E2B) == 131_072 * (256 + 512) * 2 == 201_326_592
    assert sizing.rotary_cache_bytes(find_model("meta-llama/Llama-3.1-8B-Instruct")) == 131_072 * 128 * 2
    no_types = dataclasses.replace(G31, hf_config={k: v for k, v in G31.hf_config.items() if k != "layer_types"})
    assert sizing.rotary_cache_bytes(no_types) == 262_144 * 256 * 2  # no full-attention layers named: one cache


def test_the_global_layers_are_512_wide_and_k_eq_v_allocates_a_v_slot():
    layers, per_layer, slot = w.gemma4_global_attention(G31)  # type: ignore[misc]
    assert layers == [5, 11, 17, 23, 29, 35, 41, 47, 53, 59]
    # q 32 x 512, k 4 x 512 (no v_proj in the checkpoint), o 16,384 -> 5,376; the V slot 5,376 x 2,048
    assert (per_layer, slot) == (5376 * 16384 + 5376 * 2048 + 16384 * 5376, 5376 * 2048) == (187_170_816, 11_010_048)
    assert w.allocated_beyond_checkpoint(G31) == 110_100_480
    # E2B: attention_k_eq_v unset, one KV head of 512 with its own v_proj, no slot
    layers, per_layer, slot = w.gemma4_global_attention(E2B)  # type: ignore[misc]
    assert (layers, per_layer, slot) == ([4, 9, 14, 19, 24, 29, 34], 1536 * 4096 * 2 + 1536 * 512 * 2, 0)
    assert w.gemma4_global_attention(find_model("meta-llama/Llama-3.1-8B-Instruct")) is None


def test_an_nvfp4_checkpoint_that_excludes_attention_keeps_the_global_layers_at_their_width():
    # nvidia/Gemma-4-31B-IT-NVFP4 excludes *self_attn*: 50 sliding layers of 5,376 x 24,576 and 10 global ones of
    # 5,376 x 34,816 (q, k, o) stay 16-bit; 8,477,736,960 where the uniform 256-wide count gave 7,927,234,560
    assert w.ignored_params(GEMMA4_31B_NVFP4_MODELOPT) == 50 * 5376 * 24576 + 10 * 187_170_816 == 8_477_736_960
    s = sizing.size_deployment(GEMMA4_31B_NVFP4_MODELOPT, L40S, sizing.EngineSettings(max_model_len=8192), "0.30.0")
    assert round(s.weights_gib_per_gpu, 2) == 30.92  # 31.18 logged (xbill9/sagemaker-gemma, 0.30.0); 29.73 before


def test_a_tower_whose_modalities_are_all_off_is_not_built_from_0_19():
    assert w.unbuilt_tower_params(G26, (("image", 0), ("video", 0))) == 550_000_000
    assert w.unbuilt_tower_params(G26, (("image", 0),)) == 0  # video keeps its default: the tower is built
    assert w.unbuilt_tower_params(G26, ()) == 0
    # the E-series' catalog count holds the audio tower too: it is out only with audio at 0 as well
    assert w.unbuilt_tower_params(E2B, (("image", 0), ("video", 0))) == 0
    assert w.unbuilt_tower_params(E2B, TEXT_ONLY) == 452_550_144
    # Qwen's ViT towers are marked for image and video (qwen2_5_vl.py, qwen3_vl.py, qwen3_5.py, 0.19.0 and 0.29.0)
    qwen25vl, qwen36 = find_model("Qwen/Qwen2.5-VL-7B-Instruct"), find_model("Qwen/Qwen3.6-27B")
    assert w.unbuilt_tower_params(qwen25vl, (("image", 0), ("video", 0))) == qwen25vl.vision_params > 0
    assert w.unbuilt_tower_params(qwen36, (("image", 0),)) == 0
    assert w.unbuilt_tower_params(qwen36, (("image", 0), ("video", 0))) == 460_730_096
    assert w.unbuilt_tower_params(find_model("meta-llama/Llama-3.1-8B-Instruct"), TEXT_ONLY) == 0
    run = sizing.EngineSettings(max_model_len=4096, mm_limits=TEXT_ONLY)
    weights = {r: round(sizing.size_deployment(GEMMA4_26B_A4B_FP8, L40S, run, r).weights_gib_per_gpu, 2)
               for r in ("0.18.0", "0.19.0", "0.29.0")}
    # RedHatAI's FP8-dynamic 26B-A4B under --language-model-only: 24.72 GiB logged at 0.29.0 (akamaslabs study 30)
    assert weights == {"0.18.0": 25.6, "0.19.0": 24.58, "0.29.0": 24.58}
    assert round(sizing.size_deployment(GEMMA4_26B_A4B_FP8, L40S, sizing.EngineSettings(max_model_len=4096),
                                        "0.29.0").weights_gib_per_gpu, 2) == 25.6


def test_a_multimodal_run_compiles_no_copy_of_the_embedding():
    on, off = sizing.EngineSettings(), sizing.EngineSettings(mm_limits=TEXT_ONLY)
    assert (sizing.mm_inputs_embedded(G31, on), sizing.mm_inputs_embedded(G31, off)) == (True, False)
    assert sizing.mm_inputs_embedded(G31, sizing.EngineSettings(mm_limits=(("image", 0), ("video", 0)))) is False
    assert sizing.mm_inputs_embedded(E2B, sizing.EngineSettings(mm_limits=(("image", 0), ("video", 0)))) is True
    qwen36 = find_model("Qwen/Qwen3.6-27B")
    assert sizing.mm_inputs_embedded(qwen36, sizing.EngineSettings(mm_limits=(("image", 0), ("video", 0)))) is False
    assert sizing.mm_inputs_embedded(find_model("meta-llama/Llama-3.1-8B-Instruct"), on) is False
    e = sizing.DEFAULT_ESTIMATES
    v = sizing.Version((0, 30, 0))
    assert sizing.cold_compile_gib(v, "v1", on, e, G31, 2) == 0.0
    assert sizing.cold_compile_gib(v, "v1", off, e, G31, 2) == 262_144 * 5_376 * 2 / GIB  # text-only: one copy
