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
