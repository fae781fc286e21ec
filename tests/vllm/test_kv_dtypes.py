"""The packed KV cache dtypes of vLLM 0.30-0.34 (``rules/vllm/kv_dtypes.py``): their bytes per token and layer as the
attention backends lay them out, and where no backend takes them (read in the 0.33.0 and 0.34.0 sdists)."""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.vllm import kv_dtypes


@pytest.mark.parametrize(("kind", "head", "rope", "slot"), [
    # utils/torch_utils.py nvfp4_kv_cache_full_dim: head // 2 + head // 16, for K and for V
    ("nvfp4", 128, 128, 2 * (64 + 8)),
    ("nvfp4_4over6", 256, 256, 2 * (128 + 16)),
    ("nvfp4", 64, 64, 2 * (32 + 4)),
    # ultraquant/format.py slot_size: head // 2 codes and head // 32 UE8M0 scales, for K and for V
    ("ultraquant_4bit", 128, 128, 2 * (64 + 4)),
    ("ultraquant_4bit", 256, 256, 2 * (128 + 8)),
    # rocm_octave.py OctaveFormat.slot_bytes: rotary K dims at 4 bits, the rest at 3, V at 4 (k3v4) or 3 bits, one
    # fp16 scale per 64 K dims and one for V, padded to 8 bytes (compact: 3-bit K, one K scale, padded to 4)
    ("octave_k3v4", 256, 64, 248),  # 32 + 72 + 128 + 10 = 242 -> 248
    ("octave_k3v4", 256, 256, 272),  # 128 + 0 + 128 + 10 = 266 -> 272
    ("octave_k3v3", 256, 64, 216),  # 32 + 72 + 96 + 10 = 210 -> 216
    ("octave_k3v3_compact", 256, 64, 196),  # 96 + 96 + 4 = 196
])
def test_a_packed_slot_holds_k_and_v_of_one_head(kind, head, rope, slot):
    assert kv_dtypes.head_slot_bytes(kind, head, rope) == slot


def _size(model_id: str, gpu: str, kv: str, release: str = "0.34.0", model=None):
    model = model or find_model(model_id)
    return sizing.size_deployment(model, sizing.Device.of(find_gpu(gpu)),
                                  sizing.EngineSettings(max_model_len=8192, kv_cache_dtype=kv), release)


def test_llama_8b_caches_a_quarter_of_its_bf16_bytes_in_nvfp4():
    # 32 layers x 8 KV heads: 512 bytes a head in bf16, 256 in fp8, 144 in nvfp4 (before: sized as bf16, 131,072)
    got = [_size("meta-llama/Llama-3.1-8B-Instruct", "H100", kv).kv_bytes_per_token_per_gpu
           for kv in ("auto", "fp8", "nvfp4")]
    assert got == [131072, 65536, 36864]
    on = _size("meta-llama/Llama-3.1-8B-Instruct", "H100", "nvfp4")
    # 0.34's extensible cache: the profile's peak is the warm-up's sampler over 1,024 rows (2.02 GiB, tokens16), above
    # a first start's cold compile (one 128,256 x 4,096 bf16 embedding, 0.98)
    assert (on.starts, on.kv_cache_tokens, on.block_size) == (True, 1702208, 64)


def test_octave_on_a_head_of_256_and_its_rotary_dimensions():
    # gemma-2-9b: 42 layers x 8 KV heads of 256, whole-head rotary: 272 bytes a slot on an MI300X (CDNA3)
    g = _size("google/gemma-2-9b-it", "MI300X", "octave_k3v4")
    assert (g.starts, g.kv_bytes_per_token_per_gpu) == (True, 42 * 8 * 272)
    # a config.json with partial_rotary_factor 0.25 (Qwen3-Next's): 64 rotary dims, 248 bytes; 12 full-attention
    # layers of 2 KV heads cache per token
    qwen = find_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    taught = dataclasses.replace(qwen, hf_config={**qwen.hf_config, "partial_rotary_factor": 0.25})
    assert _size("", "MI300X", "octave_k3v4", model=taught).kv_bytes_per_token_per_gpu == 12 * 2 * 248


def test_nvfp4_ds_mla_is_deepseek_v32s_352_byte_record_on_sm100():
    # mla_attention.py: {"nvfp4_ds_mla": 352}, plus the indexer's 132 bytes, on 61 layers (fp8_ds_mla: 656 + 132)
    fp8, nvfp4 = (_size("deepseek-ai/DeepSeek-V3.2", "B200", kv) for kv in ("fp8", "nvfp4_ds_mla"))
    assert (fp8.kv_bytes_per_token_per_gpu, nvfp4.kv_bytes_per_token_per_gpu) == (61 * 788, 61 * 484)
    h100 = _size("deepseek-ai/DeepSeek-V3.2", "H100", "nvfp4_ds_mla")
    assert (h100.starts, h100.certain) == (False, True)
    assert h100.refusal == ("--kv-cache-dtype nvfp4_ds_mla: FlashMLA's sparse backend takes it on compute capability "
                            "10.x (B200, B300, GB200) only")


@pytest.mark.parametrize(("model", "gpu", "kv", "refusal"), [
    ("meta-llama/Llama-3.1-8B-Instruct", "B200", "nvfp4_4over6", ""),
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", "nvfp4", ""),  # FlashAttention 2's path on 8.x
    ("meta-llama/Llama-3.1-8B-Instruct", "RTX 5090", "nvfp4_4over6",
     "--kv-cache-dtype nvfp4_4over6: FlashInfer takes it on compute capability 10.x only (B200, B300, GB200); on "
     "RTX-5090 only nvfp4"),
    ("meta-llama/Llama-3.1-8B-Instruct", "MI300X", "nvfp4",
     "--kv-cache-dtype nvfp4: only FlashInfer takes it, on NVIDIA GPUs of compute capability 8.0 and later"),
    ("meta-llama/Llama-3.2-1B-Instruct", "H100", "nvfp4",  # head size 64 on FlashAttention 2's path
     "--kv-cache-dtype nvfp4: FlashInfer's FlashAttention 2 prefill on H100-SXM-80GB misreads an NVFP4 cache at head "
     "size 64"),
    ("openai/gpt-oss-20b", "B200", "nvfp4", ""),  # sinks and head 64 go through TRT-LLM on 10.x
    ("meta-llama/Llama-3.1-8B-Instruct", "MI355X", "ultraquant_4bit", ""),
    ("meta-llama/Llama-3.1-8B-Instruct", "H100", "ultraquant_4bit",
     "--kv-cache-dtype ultraquant_4bit: only the ROCm UltraQuant backend takes it"),
    ("openai/gpt-oss-20b", "MI300X", "ultraquant_4bit",
     "--kv-cache-dtype ultraquant_4bit: the UltraQuant backend takes no attention sinks (supports_sink)"),
    ("meta-llama/Llama-3.1-8B-Instruct", "MI300X", "octave_k3v3",
     "--kv-cache-dtype octave_k3v3: the Octave backend takes head size 256 only, not 128"),
    ("google/gemma-2-9b-it", "MI355X", "octave_k3v3_compact",
     "--kv-cache-dtype octave_k3v3_compact: only the ROCm Octave backend takes it, on RDNA3 and CDNA3 GPUs (MI300X, "
     "MI325X)"),
    ("deepseek-ai/DeepSeek-V3.2", "B200", "nvfp4", "--kv-cache-dtype nvfp4: no MLA attention backend of vLLM takes it"),
])
def test_where_no_attention_backend_takes_a_packed_dtype(model, gpu, kv, refusal):
    g = _size(model, gpu, kv)
    assert g.refusal == refusal
    if refusal:
        assert (g.starts, g.certain, g.verdict) == (False, True, "refuses")


@pytest.mark.parametrize(("kv", "release", "refusal"), [
    ("octave_k3v4", "0.32.0", "vLLM 0.32.0 does not take --kv-cache-dtype octave_k3v4 (config/cache.py CacheDType; "
                              "from 0.33.0): vLLM's argument parser exits"),
    ("octave_k3v4", "0.33.0", ""),
    ("ultraquant_4bit", "0.31.0", "vLLM 0.31.0 does not take --kv-cache-dtype ultraquant_4bit (config/cache.py "
                                  "CacheDType; from 0.32.0): vLLM's argument parser exits"),
    ("ultraquant_4bit", "0.32.0", ""),
])
def test_a_release_before_the_dtype_refuses_it(kv, release, refusal):
    # CacheDType read in 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0 and 0.34.0
    assert _size("google/gemma-2-9b-it", "MI300X", kv, release).refusal == refusal


def test_ultraquant_keeps_a_dense_models_first_and_last_two_layers_in_bf16():
    # engine/arg_utils.py (0.32.0-0.34.0): ultraquant_4bit adds TurboQuantConfig.get_boundary_skip_layers (layers 0,
    # 1, 30, 31 of Llama-3.1-8B's 32) to kv_cache_dtype_skip_layers; all full attention of one block size, one group
    # whose pages add up: 28 x 8 x 136 + 4 x 8 x 512 = 46,848 bytes a token (34,816 without the boundary layers)
    g = _size("meta-llama/Llama-3.1-8B-Instruct", "MI355X", "ultraquant_4bit")
    assert (g.starts, g.kv_bytes_per_token_per_gpu) == (True, 28 * 8 * 136 + 4 * 8 * 512)
    # at PP2 each stage holds two of them: 14 x 1,088 + 2 x 4,096 per token on either stage
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    pp2 = sizing.size_deployment(llama, sizing.Device.of(find_gpu("MI355X")),
                                 sizing.EngineSettings(max_model_len=8192, kv_cache_dtype="ultraquant_4bit", pp=2),
                                 "0.34.0")
    assert pp2.kv_bytes_per_token_per_gpu == 14 * 1088 + 2 * 4096


def test_ultraquant_pins_64_token_blocks_where_the_default_is_16():
    # ultraquant_attn.py get_preferred_block_size returns 64 (0.33.0 and 0.34.0); 0.33.0's default block is 16
    got = [(_size("meta-llama/Llama-3.1-8B-Instruct", "MI355X", kv, "0.33.0").block_size)
           for kv in ("auto", "ultraquant_4bit")]
    assert got == [16, 64]
