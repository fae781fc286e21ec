"""A mixture of experts' fused-MoE caches outlive the forward pass (tokens39, issue 28).

The modular fused-MoE kernel takes ``workspace13`` and ``workspace2`` from the shared ``WorkspaceManager`` buffer
(``fused_moe/modular_kernel.py`` ``_allocate_buffers``, read in 0.13.0, 0.17.0, 0.19.0, 0.25.1 and 0.29.0), which is
never shrunk (``v1/worker/workspace.py``); the unquantised method runs its experts through that kernel from 0.14.0
(``self.kernel``; 0.13.0 calls ``fused_experts()``, whose caches are freed with the layer). So the caches are still
allocated in the profile's sampler run and in the cold compile, not only in the forward pass.
"""

from __future__ import annotations

import startup_logs
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm.versions import behaviour

L4 = sizing.Device("L4", 22.05, "nvidia", "ada")


def test_the_caches_are_kept_from_0_14_on_nvidia_for_experts_that_take_them_from_the_buffer():
    qwen = find_model("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8")
    assert [sizing.moe_workspace_kept(qwen, behaviour(v), L4, "fp8") for v in ("0.13.0", "0.14.0", "0.29.0")] == [
        False, True, True]
    assert [behaviour(v).moe_workspace_persists for v in ("0.12.0", "0.13.0", "0.14.0", "0.19.0")] == [
        False, False, True, True]
    # not read: ROCm's AITER experts, and MXFP4 experts (the OAI Triton kernels ask the buffer for nothing); a dense
    # model has none
    mi300x = sizing.Device("MI300X", 191.5, "amd", "cdna3")
    assert not sizing.moe_workspace_kept(qwen, behaviour("0.29.0"), mi300x, "fp8")
    assert not sizing.moe_workspace_kept(find_model("openai/gpt-oss-20b"), behaviour("0.29.0"), L4, "mxfp4")
    assert not sizing.moe_workspace_kept(find_model("Qwen/Qwen3-8B"), behaviour("0.29.0"), L4, "bf16")


def test_the_cold_gemma4_l40s_start_peaks_at_the_compile_copy_with_the_routed_rows_beside_it():
    """akamaslabs/vllm-benchmark's cold 0.29.0 RedHatAI gemma-4-26B-A4B FP8-dynamic start on an L40S (2,048 batched
    tokens, text only): the cold compile's copy of the 262,144 x 2,816 embedding (1,476,395,008 bytes) is the peak, and
    the routed rows' caches, 2,048 tokens x 8 experts x (3 x 704 + 2,816) x 2 bytes = 161,480,704, sit beside it: 1.53
    GiB of activation, 1.38 before; 178,474 tokens against the 170,836 logged (+4.5 %, +5.6 % before)."""
    log = next(lg for lg in startup_logs.load() if lg.url.endswith("smoke/results/apply_config.log"))
    s = startup_logs.size(log)
    routed = 2048 * 8 * (3 * 704 + 2816) * 2
    assert routed == 161_480_704
    assert sizing._routed_bytes(log.model, log.settings, 2048, 2, sizing.DEFAULT_ESTIMATES) == routed
    assert s.activation_gib_per_gpu * 2**30 == 262_144 * 2816 * 2 + routed == 1_637_875_712
    assert (s.kv_cache_tokens, log.tokens) == (178_474, 170_836)
    assert abs(s.kv_cache_tokens - log.tokens) / log.tokens < 0.05


H200 = sizing.Device("H200", 139.8, "nvidia", "hopper")


def test_deepgemm_block_fp8_experts_keep_their_caches_at_0_12_and_0_13_where_vllm_picks_deepgemm():
    """vLLM 0.12.0 and 0.13.0 (read in their wheels) run block-FP8 experts on DeepGEMM through
    ``deep_gemm_moe_fp8``'s ``FusedMoEModularKernel``, whose caches outlive the layer (0.12.0's class-level
    ``SharedResizableBuffer``s, 0.13.0's ``WorkspaceManager``), where ``get_fp8_moe_backend`` picks DeepGEMM: a 9.0 or
    10.x GPU, both DeepGEMM switches on, a MoE TP size below 8 (expert parallelism makes it 1) unless
    ``VLLM_MOE_USE_DEEP_GEMM`` is set, no FlashInfer FP8 MoE, and ``deep_gemm`` installed (the official image; not a
    ``pip install vllm``, whose wheel does not require it)."""
    m = find_model("MiniMaxAI/MiniMax-M2")  # block FP8 [128, 128], 256 experts of 1,536, top-8, hidden 3,072
    es = sizing.EngineSettings
    picked = {
        "image": es(tp=4, max_model_len=32768),
        "TP8 with VLLM_MOE_USE_DEEP_GEMM=1": es(tp=8, max_model_len=32768, moe_use_deep_gemm=True),
        "TP8 with expert parallelism": es(tp=8, expert_parallel=True, max_model_len=32768),
    }
    not_picked = {
        "pip": es(tp=4, max_model_len=32768, pip_install=True),
        "VLLM_USE_DEEP_GEMM=0": es(tp=4, max_model_len=32768, use_deep_gemm=False),
        "VLLM_MOE_USE_DEEP_GEMM=0": es(tp=4, max_model_len=32768, moe_use_deep_gemm=False),
        "VLLM_USE_FLASHINFER_MOE_FP8=1": es(tp=4, max_model_len=32768, flashinfer_moe_fp8=True),
        "TP8": es(tp=8, max_model_len=32768),
    }
    for v in ("0.12.0", "0.13.0"):
        b = behaviour(v)
        assert b.deepgemm_moe_workspace_persists
        assert {k: sizing.moe_workspace_kept_by_image(m, b, s, H200, "fp8") for k, s in picked.items()} == dict.fromkeys(
            picked, True)
        assert {k: sizing.moe_workspace_kept_by_image(m, b, s, H200, "fp8")
                for k, s in not_picked.items()} == dict.fromkeys(not_picked, False)
    # not an FP8 GPU DeepGEMM supports (Ampere), nor before 0.12 (0.11 not read), nor at 0.14+, where every kernel
    # keeps its caches (moe_workspace_persists) and the image no longer decides it
    a100 = sizing.Device("A100-SXM-80GB", 79.1875, "nvidia", "ampere")
    assert not sizing.moe_workspace_kept_by_image(m, behaviour("0.13.0"), picked["image"], a100, "fp8")
    assert not sizing.moe_workspace_kept_by_image(m, behaviour("0.11.0"), picked["image"], H200, "fp8")
    assert not sizing.moe_workspace_kept_by_image(m, behaviour("0.14.0"), picked["image"], H200, "fp8")
    # Blackwell: 0.12.0 asks for 10.0 exactly (B200), 0.13.0 for the 10.x family (B300's 10.3 too)
    b200 = sizing.Device("B200", 178.35, "nvidia", "blackwell", compute_capability=(10, 0))
    b300 = sizing.Device("B300", 268.0, "nvidia", "blackwell", compute_capability=(10, 3))
    assert [sizing.moe_workspace_kept_by_image(m, behaviour(v), picked["image"], gpu, "fp8")
            for v in ("0.12.0", "0.13.0") for gpu in (b200, b300)] == [True, False, True, True]
    # the routed rows' caches held through the sampler run: 8,192 tokens x 8 experts x (3 x 384 + 3,072) x 2 bytes
    kept = 8192 * 8 * (3 * 384 + 3072) * 2
    assert kept == 553_648_128
    for v in ("0.12.0", "0.13.0"):
        image = sizing.size_deployment(m, H200, picked["image"], v)
        pip = sizing.size_deployment(m, H200, not_picked["pip"], v)
        assert round((image.activation_gib_per_gpu - pip.activation_gib_per_gpu) * 2**30) == kept
        assert (image.kv_cache_tokens, pip.kv_cache_tokens) == (1_080_512, 1_089_232)


def test_what_the_image_decides_at_0_13_is_in_the_error_band_above_the_budget():
    """DeepSeek-V3.2 as GPUStack's performance lab runs it at vLLM 0.13.0 (DP8 with expert parallelism on 8 x H200,
    81,920 tokens; plan_cases_26): the official image runs its block-FP8 experts on DeepGEMM, whose caches for
    16,384 routed tokens (``VLLM_FUSED_MOE_CHUNK_SIZE``) stay in the shared workspace through the sampler run, 2.85
    GiB more peak than a ``pip install vllm`` (no ``deep_gemm``: Triton, caches freed). Whether ``deep_gemm`` is in the
    image is not read from the image, so that difference is in the band above the budget: a refusal it alone makes is
    advisory (DESIGN.md, "When a finding blocks")."""
    m = find_model("deepseek-ai/DeepSeek-V3.2")
    image = sizing.size_deployment(m, H200, sizing.EngineSettings(tp=1, dp=8, expert_parallel=True,
                                                                  max_model_len=81920), "0.13.0")
    pip = sizing.size_deployment(m, H200, sizing.EngineSettings(tp=1, dp=8, expert_parallel=True, max_model_len=81920,
                                                                pip_install=True), "0.13.0")
    assert round((image.activation_gib_per_gpu - pip.activation_gib_per_gpu) * 2**30) == 3_057_123_328
    assert (image.kv_cache_tokens, pip.kv_cache_tokens) == (289_152, 328_192)
    # below: the 4 % floor of 125.82 GiB either way; above: the floor without it, the terms' errors with it
    assert (round(image.error_band_gib, 4), round(image.error_band_above_gib, 4)) == (5.0328, 5.3725)
    assert (round(pip.error_band_gib, 4), round(pip.error_band_above_gib, 4)) == (5.0328, 5.0328)
