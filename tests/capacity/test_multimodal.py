"""The multimodal encoder's part of vLLM's profile run, by release: how many dummy items V1 runs through the tower,
what it keeps while the language model's dummy forward pass runs, and which towers take Qwen's largest image.

What each release does was read in its wheel (``rules/vllm/versions.py`` ``SOURCES``: ``mm_items``,
``mm_default_limit``, ``mm_expand_outputs``); the figures are shardwise's, term by term."""

import dataclasses
import json

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model, load_local_model, models

GIB = 1024**3
L4 = sizing.Device("L4", 22.05, "nvidia", "ada")
H100 = sizing.Device("H100", 79.19, "nvidia", "hopper")
A100_40 = sizing.Device("A100-PCIE-40GB", 39.38, "nvidia", "ampere", 1)


def _size(model_id: str, device: sizing.Device, release: str, **kw: object) -> sizing.ReplicaSizing:
    return sizing.size_deployment(find_model(model_id), device, sizing.EngineSettings(**kw), release)  # type: ignore[arg-type]


def _vision_note(s: sizing.ReplicaSizing) -> str:
    [note] = [n for n in s.notes if n.startswith("vision encoder")]
    return note


def test_the_default_item_limit_bounds_the_batch_only_up_to_0_8_3():
    # Gemma 3's images are 256 tokens; the encoder budget is max(2,048 batched tokens, 256) = 2,048: eight images.
    # 0.8.3 allows one image per request by default and two requests: two images. From 0.8.4 the default limit is
    # 999: eight (0.8.4's get_default_limit_per_prompt; 0.9.2's cdiv, 0.10.0's floor and 0.10.1's MultiModalBudget
    # agree here)
    got = {v: _size("google/gemma-3-4b-it", L4, v, max_num_seqs=2, max_model_len=8192)
           for v in ("0.8.3", "0.8.5", "0.9.2", "0.10.0", "0.11.0", "0.20.0")}
    assert {v: (_vision_note(s), round(s.encoder_gib_per_gpu, 3)) for v, s in got.items()} == {
        "0.8.3": ("vision encoder profiled with 2 images of 256 tokens (4,096 patches each)", 0.369),
        **{v: ("vision encoder profiled with 8 images of 256 tokens (4,096 patches each)", 1.477)
           for v in ("0.8.5", "0.9.2", "0.10.0", "0.11.0", "0.20.0")},
    }


def test_0_8_and_0_9_round_the_encoder_budget_up_to_whole_images():
    # 20,000 batched tokens over 16,384-token images: cdiv gives 2 (0.9.2), floor 1 (0.10.0 and later); 0.11's tower is
    # modelled from its blocks (test_qwen25_vit_peak_per_patch_by_release): 65,536 × (20 × 1,280 × 2 + 1,176 × 2)
    got = {v: _size("Qwen/Qwen2.5-VL-7B-Instruct", H100, v, max_num_batched_tokens=20000, max_model_len=32768)
           for v in ("0.9.2", "0.10.0", "0.11.0")}
    assert {v: (_vision_note(s), round(s.encoder_gib_per_gpu, 3)) for v, s in got.items()} == {
        "0.9.2": ("vision encoder profiled with 2 images of 16,384 tokens (65,536 patches each)", 7.116),
        "0.10.0": ("vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)", 3.558),
        "0.11.0": ("vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)", 3.269),
    }


def test_from_0_10_1_a_request_holds_only_the_items_its_max_model_len_fits():
    # One request, max_model_len 1,024, 16,384 batched tokens: 0.10.0 profiles 64 Gemma 3 images (16,384 // 256,
    # the decoder bound being 1 request × 999), and leaves nothing for the KV cache on an L4. MultiModalBudget
    # (0.10.1.1) takes 1,024 // 256 = 4 images per request: 4.
    got = {v: _size("google/gemma-3-4b-it", L4, v, max_num_seqs=1, max_model_len=1024, max_num_batched_tokens=16384)
           for v in ("0.10.0", "0.10.1.1")}
    assert [_vision_note(s) for s in got.values()] == [
        "vision encoder profiled with 64 images of 256 tokens (4,096 patches each)",
        "vision encoder profiled with 4 images of 256 tokens (4,096 patches each)"]
    assert [(round(s.encoder_gib_per_gpu, 3), round(s.available_kv_gib, 3), s.starts) for s in got.values()] == [
        (11.814, -0.224, False), (0.738, 10.378, True)]


def test_0_11_pads_each_dummy_output_to_the_encoder_budget_and_0_12_to_the_items_largest():
    # 0.11.0 copies the four 256-token outputs into zeroed 16,384-token tensors (gpu_model_runner.py
    # "expanded_outputs", new_zeros((encoder_budget, ...))): 4 × 16,384 × 2,560 × 2 B = 0.3125 GiB held through the
    # forward pass of 16,384 tokens (1.17 GiB), with the batch's float32 pixel values (4 × 4,096 × 588 × 4 B),
    # instead of 4 × 256 × 2,560 × 2 B. 0.12.0 pads only an output shorter than its modality's largest item
    # (max_mm_tokens_per_item: 256 for Gemma 3's images), so nothing here; 0.13.0 pads nothing. A warm compile cache:
    # a cold one would raise 0.13.0's peak to its 1.25 GiB floor (sizing.cold_compile_gib), not the term tested here
    got = {v: _size("google/gemma-3-4b-it", L4, v, max_num_seqs=1, max_model_len=1024, max_num_batched_tokens=16384,
                    compile_cache="warm")
           for v in ("0.10.1.1", "0.11.0", "0.12.0", "0.13.0")}
    forward = 16384 * (3 * 10240 + 3 * 2560) * 2
    pixels = 4 * 4096 * 588 * 4
    assert {v: round(s.activation_gib_per_gpu * GIB) for v, s in got.items()} == {
        "0.10.1.1": round(forward + 4 * 256 * 2560 * 2 + pixels),
        "0.11.0": round(forward + 4 * 16384 * 2560 * 2 + pixels),
        "0.12.0": round(forward + 4 * 256 * 2560 * 2 + pixels),
        "0.13.0": round(forward + 4 * 256 * 2560 * 2 + pixels),
    }


def test_the_72b_vision_language_model_profiles_one_image_on_every_release():
    # Qwen2.5-VL-72B on 4 × A100-40GB at 0.95 and 4,096 tokens: one 16,384-token image in every release (its tokens
    # exceed the 2,048-token batch and the 4,096-token context, so the budget is one item). Before 0.11 the generic
    # tower estimate (2.62 GiB) is the peak, above the forward pass of 2,048 tokens with the image's embeddings and
    # pixel values held; from 0.11 the tower is modelled from its blocks: at TP4 0.11's qkv gather (8 × 1,280 + 3 × 320
    # values a patch, 1.51 GiB with the bf16 pixels), from 0.12 the gated MLP (3 × 1,280 + 3 × 855, 0.93 GiB), below
    # 0.12 - 0.16's PyTorch sort of 256 rows and 0.20's sampler with what is held; 0.33's Model Runner V2 profiles the
    # warm-up's sampler (FlashInfer's 16 B over 256 rows, tokens16), above the tower
    got = {}
    for release in ("0.8.3", "0.9.2", "0.10.0", "0.10.1.1", "0.11.0", "0.12.0", "0.14.1", "0.20.0", "0.33.0"):
        s = sizing.size_deployment(find_model("Qwen/Qwen2.5-VL-72B-Instruct"), A100_40,
                                   sizing.EngineSettings(tp=4, gpu_memory_utilization=0.95, max_model_len=4096),
                                   release)
        assert _vision_note(s) == "vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)"
        got[release] = (round(s.encoder_gib_per_gpu, 2), round(s.activation_gib_per_gpu, 2))
    assert got == {"0.8.3": (2.62, 2.62), "0.9.2": (2.62, 2.62), "0.10.0": (2.62, 2.62), "0.10.1.1": (2.62, 2.62),
                   "0.11.0": (1.51, 1.51), "0.12.0": (0.93, 1.81), "0.14.1": (0.93, 1.81), "0.20.0": (0.93, 0.99),
                   "0.33.0": (0.93, 1.0)}


#: Qwen/Qwen2.5-Omni-7B config.json: the thinker vLLM serves (Qwen2_5OmniThinkerForConditionalGeneration), its
#: Qwen2.5-VL vision encoder and its Whisper-style audio encoder; the talker is not loaded.
QWEN25_OMNI_7B = {
    "architectures": ["Qwen2_5OmniModel"], "model_type": "qwen2_5_omni",
    "thinker_config": {
        "model_type": "qwen2_5_omni_thinker", "torch_dtype": "bfloat16",
        "text_config": {
            "model_type": "qwen2_5_omni_text", "hidden_size": 3584, "intermediate_size": 18944,
            "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28, "vocab_size": 152064,
            "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        },
        "audio_config": {
            "model_type": "qwen2_5_omni_audio_encoder", "d_model": 1280, "encoder_attention_heads": 20,
            "encoder_ffn_dim": 5120, "encoder_layers": 32, "num_mel_bins": 128, "max_source_positions": 1500,
            "n_window": 100, "output_dim": 3584,
        },
        "vision_config": {
            "model_type": "qwen2_5_omni_vision_encoder", "depth": 32, "hidden_size": 1280, "intermediate_size": 3420,
            "num_heads": 16, "in_chans": 3, "patch_size": 14, "spatial_merge_size": 2,
            "temporal_patch_size": 2, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
            "out_hidden_size": 3584,
        },
    },
    "talker_config": {"model_type": "qwen2_5_omni_talker", "hidden_size": 896, "num_hidden_layers": 24},
    "token2wav_config": {"model_type": "qwen2_5_omni_token2wav"},
}


def test_an_omni_model_profiles_its_largest_image_through_the_gated_qwen_vit(tmp_path):
    # Qwen2_5OmniThinkerProcessingInfo is a Qwen2_5_VLProcessingInfo: its largest image is 16,384 tokens, far more
    # than a 30-second audio clip (about 750), so V1 profiles one image through the vision tower, whose MLP is
    # Qwen2.5-VL's gated SiLU (gate, up, down): the same term as Qwen2.5-VL-7B's tower, which it is. The audio tower
    # is in the weights (tests/catalog/test_current_families.py), not in the profile.
    (tmp_path / "config.json").write_text(json.dumps(QWEN25_OMNI_7B))
    omni = load_local_model(tmp_path)
    settings = sizing.EngineSettings(max_model_len=8192)
    got = sizing.size_deployment(omni, H100, settings, "0.11.0")
    vl = sizing.size_deployment(find_model("Qwen/Qwen2.5-VL-7B-Instruct"), H100, settings, "0.11.0")
    assert _vision_note(got) == "vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)"
    # 65,536 patches × (20 × 1,280 × 2 + 1,176 × 2) bytes: 0.11's float32 rotary in attention, the bf16 pixel values
    assert got.encoder_gib_per_gpu * GIB == 65536 * (20 * 1280 * 2 + 1176 * 2)
    assert got.encoder_gib_per_gpu == vl.encoder_gib_per_gpu


def test_max_pixels_sizes_the_profiled_image_by_release():
    # --mm-processor-kwargs '{"max_pixels": 1048576}' (vllm#16570's 0.8.4 run): the processor vLLM builds takes it,
    # and Qwen2VLProcessingInfo finds the largest image under it. Up to 0.12 a huge square through smart_resize:
    # floor(1,024 / 28) = 36 units a side, 1,296 tokens (5,184 patches); from 0.13 the most tokens up to
    # 1,048,576 // 28² = 1,337 with a factor pair within 200 : 1 (7 × 191): 1,337 tokens (5,348 patches)
    settings = sizing.EngineSettings(tp=4, gpu_memory_utilization=0.95, max_model_len=4096, max_num_seqs=2,
                                     mm_max_pixels=1048576)
    vl = find_model("Qwen/Qwen2.5-VL-72B-Instruct")
    got = {v: sizing.size_deployment(vl, A100_40, settings, v) for v in ("0.8.3", "0.12.0", "0.13.0")}
    assert {v: _vision_note(s) for v, s in got.items()} == {
        # 0.8.3: cdiv(2,048 batched tokens, 1,296) = 2 images, within 2 requests × 1 image
        "0.8.3": "vision encoder profiled with 2 images of 1,296 tokens (5,184 patches each)",
        "0.12.0": "vision encoder profiled with 1 image of 1,296 tokens (5,184 patches each)",
        "0.13.0": "vision encoder profiled with 1 image of 1,337 tokens (5,348 patches each)",
    }
    # 0.8.3: the generic estimate, float32 pixel values and their copy; 0.12+: the tower's blocks at TP4 (the gated
    # MLP, 3 × 1,280 + 3 × 3,420 ÷ 4 values a patch) and bf16 pixel values
    generic, blocks = (12 * 1280 + 3 * 3420 / 4) * 2 + 1176 * 6, (3 * 1280 + 3 * 3420 / 4) * 2 + 1176 * 2
    assert {v: round(s.encoder_gib_per_gpu * GIB) for v, s in got.items()} == {
        "0.8.3": round(2 * 5184 * generic), "0.12.0": round(5184 * blocks), "0.13.0": round(5348 * blocks)}


def test_the_default_processor_gives_16384_tokens_both_ways():
    from shardwise.rules.capacity.sizing import _qwen_image_tokens

    assert [_qwen_image_tokens(12_845_056, 28, how) for how in ("square", "factors")] == [16384, 16384]
    # the Qwen2.5-VL card's max_pixels = 1280 × 28 × 28: 35² = 1,225 tokens up to 0.12, 1,280 (32 × 40) from 0.13
    assert [_qwen_image_tokens(1280 * 28 * 28, 28, how) for how in ("square", "factors")] == [1225, 1280]


def test_limit_mm_per_prompt_bounds_the_items_and_zero_turns_the_profile_off():
    gemma = find_model("google/gemma-3-4b-it")
    one = sizing.size_deployment(gemma, L4, sizing.EngineSettings(max_num_seqs=2, max_model_len=8192,
                                                                  mm_limits=(("image", 1),)), "0.11.0")
    # two requests × one image, against eight without the flag (test_the_default_item_limit_...)
    assert _vision_note(one) == "vision encoder profiled with 2 images of 256 tokens (4,096 patches each)"
    # every modality the tower takes at 0: "Encoder cache will not be initialized", no tower in the profile
    vl = find_model("Qwen/Qwen2.5-VL-72B-Instruct")
    off = sizing.size_deployment(vl, A100_40, sizing.EngineSettings(
        tp=4, gpu_memory_utilization=0.95, max_model_len=4096, mm_limits=(("image", 0), ("video", 0))), "0.14.1")
    assert (off.encoder_gib_per_gpu, [n for n in off.notes if n.startswith("vision")]) == (0.0, [])
    # video only: Qwen's one-frame video is the image's item (the same 65,536 patches at 4,096 tokens of context)
    video = sizing.size_deployment(vl, A100_40, sizing.EngineSettings(
        tp=4, gpu_memory_utilization=0.95, max_model_len=4096, mm_limits=(("image", 0), ("video", 1))), "0.14.1")
    assert round(video.encoder_gib_per_gpu, 2) == 0.93


def test_the_manifest_flags_reach_the_profile(tmp_path):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings, multimodal_settings

    path = tmp_path / "deploy.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-vl}
spec:
  selector: {matchLabels: {app: qwen-vl}}
  template:
    metadata: {labels: {app: qwen-vl}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.4
          args: ["Qwen/Qwen2.5-VL-72B-Instruct", "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.95",
                 "--max-num-seqs", "2", "--max-model-len", "4096", "--limit-mm-per-prompt", "image=1,video=0",
                 "--mm_processor_kwargs", '{"max_pixels":1048576}']
          resources:
            limits: {nvidia.com/gpu: 4}
""")
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.mm_max_pixels, s.mm_limits) == (1048576, (("image", 1), ("video", 0)))
    # the JSON and dotted spellings, 0.11's {"count": N}, the processor's size.longest_edge; an unresolved value
    assert s.mm_args == (("--limit-mm-per-prompt", "image=1,video=0"),
                         ("--mm-processor-kwargs", '{"max_pixels":1048576}'))  # as written: 0.8.4 reads both
    assert multimodal_settings({"limit_mm_per_prompt": '{"image": {"count": 2}, "video": 0}',
                                "mm_processor_kwargs.max_pixels": "460800"}) == {
        "mm_max_pixels": 460800, "mm_limits": (("image", 2), ("video", 0)),
        "mm_args": (("--limit-mm-per-prompt", '{"image": {"count": 2}, "video": 0}'),)}
    assert multimodal_settings({"mm_processor_kwargs": '{"size": {"longest_edge": 1003520}}',
                                "limit_mm_per_prompt.video": "0"}) == {
        "mm_max_pixels": 1003520, "mm_limits": (("video", 0),),
        "mm_args": (("--mm-processor-kwargs", '{"size": {"longest_edge": 1003520}}'),)}
    assert multimodal_settings({"mm_processor_kwargs": "$(PIXELS)"}) == {}  # unresolved: not judged


def test_qwen3_vit_peak_per_patch_by_release():
    # Qwen3.5-27B's tower: hidden 1,152, MLP 4,304, at TP4 in bf16. In 0.17-0.21 the position interpolation holds the
    # patch embedding's row, the four neighbours' rows, the permuted copy and torch.cat's (7 rows of 1,152); in 0.11
    # also a weighted copy of the four and their sum (12 rows); from 0.22 a kernel writes one row, and a block is the
    # peak: the interpolated rows, the residual, the norm and attention's q, k, v, rotated q, k and output at TP4
    assert sizing._qwen3_vit_patch_bytes("in-place", 1152, 4304, 4, 2) == 7 * 1152 * 2 == 16_128
    assert sizing._qwen3_vit_patch_bytes("copies", 1152, 4304, 4, 2) == 12 * 1152 * 2 == 27_648
    assert sizing._qwen3_vit_patch_bytes("kernel", 1152, 4304, 4, 2) == (4 * 1152 + 6 * 288) * 2 == 12_672
    # on one GPU the MLP's activation (4,304) is the larger block term: 4 × 1,152 + 4,304 = 8,912 > 6 × 1,152 + ...
    assert sizing._qwen3_vit_patch_bytes("kernel", 1152, 4304, 1, 2) == max(3 * 1152, 10 * 1152, 4 * 1152 + 4304) * 2


def test_qwen3_5_profiles_the_processors_16384_token_image_in_the_model_dtype():
    # vLLM 0.19.0 on 4 × RTX 3090 (leadawon/LAMBO, logs/vllm_serve_v4.log): "Encoder cache will be initialized with a
    # budget of 16384 tokens, and profiled with 1 image items": 16,777,216 pixels, 65,536 patches of 16 × 16 pixels,
    # whose values (3 × 2 × 16² = 1,536 a patch) reach the GPU in bf16 from 0.9.1. Peak: 65,536 × (16,128 + 1,536 × 2)
    s = _size("Qwen/Qwen3.5-27B", sizing.Device("RTX 3090", 23.58, "nvidia", "ampere", 1), "0.19.0", tp=4,
              max_model_len=32768, gpu_memory_utilization=0.92, enforce_eager=True, pip_install=True)
    assert _vision_note(s) == "vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)"
    assert s.encoder_gib_per_gpu * GIB == 65_536 * (16_128 + 1_536 * 2) == 1_258_291_200
    # the 16,384-token output (5,120 wide: Qwen3.5's tower has no deepstack levels) and the bf16 pixel values stay
    # held while the dummy sampler runs (from 0.11): 0.16 + 0.19 GiB on top of the warm-up of 256 rows of 248,320
    # logits through Triton's top-k/top-p (15.5 B each) and the 2,048 batched tokens' hidden states, the larger peak
    held = 16_384 * 5_120 * 2 + 65_536 * 1_536 * 2
    assert s.sampler_gib_per_gpu * GIB == 256 * 248_320 * 15.5 + 2_048 * 5_120 * 2 == 1_006_305_280
    assert s.activation_gib_per_gpu * GIB == 1_006_305_280 + held == 1_375_404_032
    # what vLLM logged: 7.47 GiB, 122,304 tokens
    assert (round(s.available_kv_gib, 2), s.kv_cache_tokens) == (7.33, 119_952)


def test_qwen25_vit_peak_per_patch_by_release():
    # Qwen2.5-VL's tower (hidden 1,280, gated MLP 3,420, the 3B's, 7B's and 72B's alike) in bf16, read from
    # Qwen2_5_VisionBlock (plan10). 0.11 at TP1: the residual and norm1's output, qkv (3 rows), contiguous q, k, v (3),
    # cat([q, k]) (2), its float32 copy (4), the float32 rotated output (4) and the cast back (2): 20 rows
    assert sizing._qwen25_vit_patch_bytes("float32-rotary", 1280, 3420, 1, 2) == 20 * 1280 * 2 == 51_200
    # at TP4 all_gather_interleave's pieces and their interleaved copy (3 rows each) beside the local qkv: 8.75 rows
    assert sizing._qwen25_vit_patch_bytes("float32-rotary", 1280, 3420, 4, 2) == (8 * 1280 + 3 * 320) * 2 == 22_400
    # 0.12+: attention holds 3 + 8 rows at TP1 (11 × 1,280 = 14,080), the gated MLP 3 × 1,280 + 3 × 3,420 = 14,100
    assert sizing._qwen25_vit_patch_bytes("model-dtype-rotary", 1280, 3420, 1, 2) == 14_100 * 2
    assert sizing._qwen25_vit_patch_bytes("model-dtype-rotary", 1280, 3420, 4, 2) == (3 * 1280 + 3 * 855) * 2


def test_qwen25_vl_profiles_its_tower_by_release_with_bf16_pixels():
    # one 16,384-token image (65,536 patches) on one GPU: the generic estimate before 0.11 (12 rows of 1,280 and the
    # gated MLP, float32 pixel values and the tower's bf16 copy), then the blocks with the pixel values in bf16
    # (call_hf_processor casts them from 0.9.1, so the tower's x.to(dtype) copies nothing)
    got = {v: _size("Qwen/Qwen2.5-VL-7B-Instruct", sizing.Device("A10G", 22.06, "nvidia", "ampere", 1), v,
                    max_model_len=16384).encoder_gib_per_gpu * GIB for v in ("0.10.1.1", "0.11.0", "0.14.1", "0.23.0")}
    assert got == {"0.10.1.1": 65_536 * ((12 * 1280 + 3 * 3420) * 2 + 1176 * 6),
                   "0.11.0": 65_536 * (51_200 + 1176 * 2), "0.14.1": 65_536 * (28_200 + 1176 * 2),
                   "0.23.0": 65_536 * (28_200 + 1176 * 2)}
    assert [round(g / GIB, 2) for g in got.values()] == [3.56, 3.27, 1.86, 1.86]


def test_qwen3_vl_largest_video_counts_its_frames_as_vllm_0_11_and_0_12_do():
    # frames from 2 up while the next count's tokens fit the sequence (at most 24,576), each frame the largest image
    # (4,096 pixels square) shrunk under the video processor's 25,165,824-pixel cap: 2 frames give 3,520-pixel sides,
    # 1 × 110 × 110 = 12,100 tokens; 3 frames (padded to 4) 2,880-pixel sides, 2 × 90 × 90 = 16,200; 24,576 frames
    # 32-pixel sides, 12,288 × 2 × 2 ÷ 4 = 12,288
    assert sizing._qwen3_video_tokens(65_536, 4096, 16, 2, 2) == 12_288
    assert sizing._qwen3_video_tokens(8_192, 4096, 16, 2, 2) == 12_100  # 2 frames even where they do not fit
    assert sizing._qwen3_video_tokens(13_000, 4096, 16, 2, 2) == 12_100  # the loop stops before 3 frames' 16,200


#: The Qwen vision-language architectures vLLM runs with multimodal RoPE positions: their config.json's rope_scaling
#: (text_config's from Qwen3-VL) holds an ``mrope_section``, which makes vLLM's ``get_rope`` build MRotaryEmbedding
#: (``rotary_embedding/__init__.py``, 0.11.0) with a cos/sin cache of four times the context limit (``mrope.py``).
QWEN_MROPE_ARCHITECTURES = frozenset({"Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
                                      "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"})


def test_every_qwen_vision_language_model_of_the_catalog_has_the_multimodal_rope_vllm_builds():
    # The catalog's Qwen3-VL mixtures of experts lacked the rope_scaling their dense siblings had, so their rotary
    # cache was charged at a quarter (0.06 GiB where vLLM keeps 0.25 on every GPU)
    found = {mid: sizing.mrope(m) for mid, m in models().items()
             if QWEN_MROPE_ARCHITECTURES & set(m.hf_config.get("architectures", ()))}
    assert {"Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen/Qwen3-VL-8B-Instruct",
            "Qwen/Qwen2.5-VL-7B-Instruct"} <= set(found)
    assert [mid for mid, ok in found.items() if not ok] == []
    assert sizing.rotary_cache_bytes(find_model("Qwen/Qwen3-VL-235B-A22B-Instruct"), 4) == 4 * 262_144 * 128 * 2


def test_qwen3_vl_profiles_one_video_in_0_11_and_0_12_held_through_the_sampler():
    # vLLM 0.12.0 on 2 × H100 (Zzsf11/VideoCuttingAgent, vllm_serve.log and output/Qwen3VL_vllm-server.out): "Encoder
    # cache will be initialized with a budget of 153600 tokens, and profiled with 1 video items": 12,288 vision tokens
    # × 12.5 with their timestamps. The tower runs 49,152 patches; its output (2,048 × 4 wide with the three
    # deepstack levels) is padded to 153,600 rows and held, with the bf16 pixel values (1,536 a patch), until the
    # dummy sampler has run over 256 (or 64) rows of 151,936 logits through PyTorch's sort (38.2 B, 51.1 below 128 rows)
    got = {(v, n): _size("Qwen/Qwen3-VL-30B-A3B-Instruct", H100, v, tp=2, max_model_len=65536, max_num_seqs=n)
           for v in ("0.11.0", "0.12.0", "0.13.0") for n in (256, 64)}
    video = "vision encoder profiled with 1 video of 12,288 tokens (49,152 patches each; 153,600 with its timestamps)"
    image = "vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)"
    assert {k: _vision_note(s) for k, s in got.items()} == {
        **{(v, n): video for v in ("0.11.0", "0.12.0") for n in (256, 64)}, ("0.13.0", 256): image,
        ("0.13.0", 64): image}
    held = 153_600 * 8_192 * 2 + 49_152 * 1_536 * 2
    hidden = 8_192 * 2_048 * 2  # the 8,192 batched tokens' hidden states
    assert got["0.12.0", 256].activation_gib_per_gpu * GIB == pytest.approx(256 * 151_936 * 38.2 + hidden + held)
    assert got["0.12.0", 64].activation_gib_per_gpu * GIB == pytest.approx(64 * 151_936 * 51.1 + hidden + held)
    # what vLLM logged: 37.23 GiB and 813,152 tokens at 256 sequences, 38.15 GiB and 833,344 at 64 (0.92 GiB apart:
    # the sampler's two warm-ups on top of the same held outputs, 0.95 here); 0.28 GiB of it PyTorch's TP
    # communicator's NCCL rings (tokens35: 37.96 GiB and 829,344 tokens, 38.89 and 849,456 without them)
    assert [(round(got["0.12.0", n].available_kv_gib, 2), got["0.12.0", n].kv_cache_tokens) for n in (256, 64)] == [
        (37.68, 823_200), (38.6, 843_312)]


_QUOTED_VL = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: qwen-vl}}
spec:
  selector: {{matchLabels: {{app: qwen-vl}}}}
  template:
    metadata: {{labels: {{app: qwen-vl}}}}
    spec:
      nodeSelector: {{node.kubernetes.io/instance-type: g6e.xlarge}}
      containers:
        - name: vllm
          image: {image}
{command}          args: {args}
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("image, command, args, verbatim", [
    # GKE Model Garden's shape: args to an image's own entrypoint, which may run them through a shell
    ("us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250312_0916_RC01", "",
     "[python, -m, vllm.entrypoints.api_server, --model=Qwen/Qwen2.5-VL-7B-Instruct, \"--limit_mm_per_prompt='image=5'\"]",
     False),
    # the command runs vLLM itself: the quotes reach its parser
    ("registry.example.com/ml/vllm-server:2024-11", "          command: [python3, -m, vllm.entrypoints.openai.api_server]\n",
     "[--model=Qwen/Qwen2.5-VL-7B-Instruct, \"--limit-mm-per-prompt='image=5'\"]", True),
    # vllm/vllm-openai's entrypoint is `vllm serve`
    ("vllm/vllm-openai:v0.8.4", "", "[Qwen/Qwen2.5-VL-7B-Instruct, \"--limit-mm-per-prompt='image=5'\"]", True),
])
def test_quotes_refuse_for_sure_only_where_the_args_reach_vllm_verbatim(tmp_path, image, command, args, verbatim):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "vl.yaml"
    path.write_text(_QUOTED_VL.format(image=image, command=command, args=args))
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert s.mm_args == (("--limit-mm-per-prompt", "'image=5'"),)
    assert s.mm_args_verbatim is verbatim
    # 0.8.4 reads image=5 without the quotes
    r = sizing.size_deployment(find_model("Qwen/Qwen2.5-VL-7B-Instruct"), H100, s, "0.8.4")
    assert r.refusal.startswith("--limit-mm-per-prompt \"'image=5'\" is not what vLLM 0.8.4 reads there")
    assert (r.certain, r.starts, r.verdict) == ((True, False, "refuses") if verbatim else (False, False, "may-refuse"))


def test_gemma4s_transformers_built_vision_tower_sits_whole_on_every_gpu_of_the_replica():
    # vLLM builds Gemma 4's vision tower with transformers' AutoModel.from_config (gemma4_mm.py, 0.19.0 - 0.25.1):
    # plain nn.Linear layers no tensor-parallel rank splits. Against the same shape with a tower vLLM splits (a model
    # type outside TRANSFORMERS_TOWER_TYPES), each GPU holds the other (tp - 1) / tp of the tower's 550,000,000
    # bf16 parameters: 0.77 GiB at TP4, 0.51 at TP2; on one GPU nothing changes
    gemma4 = find_model("google/gemma-4-31B-it")
    assert sizing.transformers_tower_params(gemma4) == 550_000_000
    split = dataclasses.replace(gemma4, hf_config={**gemma4.hf_config, "model_type": "parallel_tower_text"})
    assert sizing.transformers_tower_params(split) == 0
    assert sizing.transformers_tower_params(find_model("Qwen/Qwen2.5-VL-7B-Instruct")) == 0

    def weights(model, tp):
        return sizing.size_deployment(model, L4, sizing.EngineSettings(tp=tp, max_model_len=4096),
                                      "0.19.0").weights_gib_per_gpu

    # (toksingle10: the renamed model type also drops Gemma 4's second rotary cache, 262,144 x 512 x 2 bytes on every
    # GPU, and the V slots of its ten k_eq_v global layers, 10 x 5,376 x 4 x 512 x 2 bytes split TP ways)
    rope, slots = 262_144 * 512 * 2, 10 * 5_376 * 4 * 512 * 2
    assert {tp: round((weights(gemma4, tp) - weights(split, tp)) * GIB) for tp in (1, 2, 4)} == {
        1: rope + slots, 2: 550_000_000 + rope + slots // 2, 4: 825_000_000 + rope + slots // 4}


def test_encoder_tp_mode_data_keeps_the_vision_tower_whole_on_every_rank():
    # --mm-encoder-tp-mode data: vLLM 0.15.0's KimiK25ForConditionalGeneration (supports_encoder_tp_data = True) builds
    # MoonViT's linears with disable_tp and keeps the projector replicated, so each of the 8 ranks holds the whole
    # 471,143,920-parameter encoder in bf16 where the default splits it 8 ways: 7/8 x 2 bytes a parameter more, the
    # 0.77 GiB of the 0.96 by which the t0mdicks0n/llm-self-hosting log (72.02 GiB a GPU) exceeded the split figure
    kimi = find_model("moonshotai/Kimi-K2.5")
    assert kimi.vision_params == 471_143_920

    def weights(release: str, **kw: object) -> float:
        s = _size("moonshotai/Kimi-K2.5", H100, release, tp=8, gpu_memory_utilization=0.95, max_model_len=8192,
                  max_num_seqs=64, **kw)
        return s.weights_gib_per_gpu * GIB

    split = weights("0.15.0")
    assert weights("0.15.0", mm_encoder_tp_mode="data") - split == pytest.approx(471_143_920 * 2 * 7 / 8, abs=1)
    assert weights("0.15.0", mm_encoder_tp_mode="weights") == split
    # 0.14.1 has no supports_encoder_tp_data on the class (it has no kimi_k25.py): vLLM falls back to weights
    before = _size("moonshotai/Kimi-K2.5", H100, "0.14.1", tp=8, gpu_memory_utilization=0.95, max_model_len=8192,
                   max_num_seqs=64, mm_encoder_tp_mode="data")
    assert before.weights_gib_per_gpu * GIB == weights("0.14.1")
    assert ("--mm-encoder-tp-mode data: vLLM 0.14.1 falls back to weights for this model (its class does not "
            "support data mode), so the encoder is split TP ways") in before.notes


def test_encoder_tp_mode_data_changes_nothing_at_tp1_or_for_a_class_without_it():
    # one rank holds the whole tower anyway; Gemma 3's class (gemma3_mm.py) has no supports_encoder_tp_data
    for model_id, tp in (("Qwen/Qwen2.5-VL-72B-Instruct", 1), ("google/gemma-3-27b-it", 2)):
        plain = _size(model_id, H100, "0.19.0", tp=tp, max_model_len=8192)
        data = _size(model_id, H100, "0.19.0", tp=tp, max_model_len=8192, mm_encoder_tp_mode="data")
        assert data.weights_gib_per_gpu == plain.weights_gib_per_gpu
        assert data.available_kv_gib == plain.available_kv_gib


@pytest.mark.parametrize(("mode", "expected"), [("data", "data"), ("weights", None)])
def test_a_manifest_sets_the_encoder_tp_mode(tmp_path, mode, expected):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "kimi.yaml"
    path.write_text(f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: kimi}}
spec:
  selector: {{matchLabels: {{app: kimi}}}}
  template:
    metadata: {{labels: {{app: kimi}}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.15.0
          args: ["vllm", "serve", "moonshotai/Kimi-K2.5", "-tp", "8", "--mm-encoder-tp-mode", "{mode}",
                 "--trust-remote-code", "--gpu-memory-utilization", "0.95", "--max-model-len", "8192"]
          resources:
            limits: {{nvidia.com/gpu: 8}}
""")
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.tp, s.mm_encoder_tp_mode) == (8, expected)
