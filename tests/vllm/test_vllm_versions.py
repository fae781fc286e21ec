"""The vLLM release table: each range's defaults and accounting, pinned with the vLLM source they were read
from (the wheel on PyPI; the file inside ``vllm/``), and the release read from image tags.

The numbers are vLLM's; when a future release changes one, a new row goes into RANGES and a new case here.
"""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.vllm import versions as vv
from shardwise.rules.vllm.versions import CURRENT_RELEASE, batch_defaults, behaviour, parse_version, resolve


def test_release_numbers_parse_and_order():
    assert parse_version("v0.11.0") == parse_version("0.11") == vv.Version((0, 11, 0))
    assert parse_version("0.10.1.1") == vv.Version((0, 10, 1, 1))
    assert parse_version("0.8.5.post1") == vv.Version((0, 8, 5))
    assert parse_version("0.11.0rc2") == vv.Version((0, 11, 0))
    assert parse_version("latest") is None and parse_version("nightly-abc") is None
    assert parse_version("0.9.2") < parse_version("0.10.0") < parse_version("0.10.1.1") < parse_version("0.11.0")


def test_rows_are_in_release_order_and_cover_everything_from_0_4():
    versions = [r.version for r in vv.RANGES]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert behaviour("0.4.0") is vv.RANGES[0]
    assert behaviour("99.0.0") is vv.RANGES[-1]


# (release, engine, what non-torch memory vLLM counts, sampler profile, CUDA graphs in the KV budget on CUDA)
ACCOUNTING = [
    # worker/worker.py 0.5.5: peak = init free - free after profiling (NCCL included); CUDA graphs later
    ("0.5.5", "v0", "increase", "logits", False),
    # worker/worker.py 0.6.6.post1, 0.8.5.post1: memory_profiling non_torch_increase
    ("0.6.6", "v0", "increase", "logits", False),
    ("0.7.3", "v0", "increase", "logits", False),
    # v1/worker/gpu_worker.py 0.8.5.post1: allocated peak + every byte torch did not allocate (CUDA context too)
    ("0.8.5", "v1", "absolute", "flashinfer", False),
    # 0.9.2 / 0.10.1.1: MemorySnapshot() before init_worker_distributed_environment (NCCL buffers counted)
    ("0.9.2", "v1", "increase", "flashinfer", False),
    ("0.10.1.1", "v1", "increase", "flashinfer", False),
    # 0.11.0: the snapshot moves after the distributed init; FlashInfer sampler still the default
    ("0.11.0", "v1", "after-distributed", "flashinfer", False),
    # 0.12.0-0.20.2: topk_topp_sampler.py uses FlashInfer only with VLLM_USE_FLASHINFER_SAMPLER=1, so
    # apply_top_k_top_p runs: logits.sort up to 0.16.0, the in-place Triton kernel from 0.17.0
    ("0.13.0", "v1", "after-distributed", "sort", False),
    ("0.16.0", "v1", "after-distributed", "sort", False),
    ("0.17.0", "v1", "after-distributed", "triton", False),
    ("0.19.1", "v1", "after-distributed", "triton", False),
    # envs.py 0.20.0: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to "1" (was "0" in 0.18.1/0.19.1)
    ("0.20.0", "v1", "after-distributed", "triton", True),
    # envs.py 0.22.1: VLLM_USE_FLASHINFER_SAMPLER defaults to True
    ("0.22.1", "v1", "after-distributed", "flashinfer", True),
    ("0.33.0", "v1", "after-distributed", "flashinfer", True),
    ("0.34.0", "v1", "after-distributed", "flashinfer", True),
]


@pytest.mark.parametrize(("release", "engine", "nontorch", "sampler", "graphs"), ACCOUNTING)
def test_what_each_release_measures(release, engine, nontorch, sampler, graphs):
    b = behaviour(release)
    assert (b.engine, b.nontorch, b.sampler, b.cudagraphs_in_budget) == (engine, nontorch, sampler, graphs)


def test_rocm_graphs_join_the_budget_later_than_cuda():
    # gpu_worker.py 0.24.0 skips the estimate on ROCm ("Skip on ROCm/HIP/XPU"); 0.27.1 includes it (#44825)
    assert (behaviour("0.24.0").cudagraphs_in_budget, behaviour("0.24.0").cudagraphs_in_budget_rocm) == (True, False)
    assert behaviour("0.27.1").cudagraphs_in_budget_rocm is True


# (release, GPU memory GiB, device name, serve default max_num_batched_tokens, max_num_seqs)
BATCH_DEFAULTS = [
    # arg_utils.py 0.8.0 - 0.8.3: 8192 tokens where the device name holds "h100" or "h200", else 2048; 1,024
    # sequences on every GPU (default_max_num_seqs = 1024 whatever the device: vllm#17238's RTX 3090 pair profiles
    # 1,024 sampler rows)
    ("0.8.1", 23.7, "NVIDIA GeForce RTX 3090", 2048, 1024),
    ("0.8.1", 79.2, "NVIDIA A100-SXM4-80GB", 2048, 1024),
    ("0.8.3", 79.2, "NVIDIA H100 80GB HBM3", 8192, 1024),
    ("0.8.0", 93.1, "NVIDIA H100 NVL", 8192, 1024),
    # 0.8.4: the same names, 1,024 sequences on them and 256 elsewhere
    ("0.8.4", 23.7, "NVIDIA GeForce RTX 3090", 2048, 256),
    ("0.8.4", 79.2, "NVIDIA A100-SXM4-80GB", 2048, 256),
    ("0.8.4", 139.8, "NVIDIA H200", 8192, 1024),
    # arg_utils.py 0.8.5.post1: >= 70 GiB -> 8192 / 1024 for the OpenAI server, any name
    ("0.8.5", 79.2, "NVIDIA A100-SXM4-80GB", 8192, 1024),
    ("0.8.5", 44.3, "NVIDIA L40S", 2048, 256),
    # 0.9.2 onwards: A100s keep 2048 / 256 (PR #17885)
    ("0.9.2", 79.2, "NVIDIA A100-SXM4-80GB", 2048, 256),
    ("0.11.0", 79.2, "NVIDIA H100 80GB HBM3", 8192, 1024),
    ("0.11.0", 23.6, "NVIDIA GeForce RTX 4090", 2048, 256),
    # 0.28.0: >= 160 GiB -> 16384 (MI300X at 191.98 GiB included, vllm#53961)
    ("0.27.1", 178.4, "NVIDIA B200", 8192, 1024),
    ("0.28.0", 178.4, "NVIDIA B200", 16384, 1024),
    ("0.28.0", 191.98, "AMD Instinct MI300X", 16384, 1024),
    ("0.33.0", 139.8, "NVIDIA H200", 8192, 1024),
    # arg_utils.py get_batch_defaults is the same in 0.34.0 as in 0.33.0
    ("0.34.0", 178.4, "NVIDIA B200", 16384, 1024),
    ("0.34.0", 139.8, "NVIDIA H200", 8192, 1024),
    ("0.34.0", 79.2, "NVIDIA A100-SXM4-80GB", 2048, 256),
    ("0.34.0", 22.05, "NVIDIA L4", 2048, 256),
    # a GB10's NVML reports no memory ("Not Supported"): get_batch_defaults takes 0 GiB, whatever torch reports
    # (sostrowsk/dgx-spark-local-llm at 0.25.1: "Raising max_num_batched_tokens from 2048", compile range 2048)
    ("0.25.1", 121.63, "NVIDIA GB10", 2048, 256),
    ("0.28.0", 121.63, "GB10", 2048, 256),
]


@pytest.mark.parametrize(("release", "gib", "name", "tokens", "seqs"), BATCH_DEFAULTS)
def test_serve_batch_defaults_by_gpu(release, gib, name, tokens, seqs):
    tier = batch_defaults(behaviour(release), gib, name)
    assert (tier.max_num_batched_tokens, tier.max_num_seqs) == (tokens, seqs)


def test_v0_chunked_prefill_budget():
    # config.py SchedulerConfig: 512 with chunked prefill in 0.5.5/0.6.3.post1, 2048 in 0.6.6.post1
    assert behaviour("0.5.5").v0_chunked_tokens == 512
    assert behaviour("0.6.6").v0_chunked_tokens == 2048
    assert behaviour("0.6.6").default_max_num_seqs_v0 == 256


def test_kv_cache_manager_and_reporting_by_release():
    # kv_cache_utils.py 0.8.5.post1 turns sliding windows into full attention; groups from 0.9.2
    assert (behaviour("0.8.5").hybrid_kv, behaviour("0.9.2").hybrid_kv) == ("as-full", "groups")
    # VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE: "0" up to 0.13.0, "1" from 0.14.1
    assert (behaviour("0.13.0").chunked_local_hybrid, behaviour("0.14.1").chunked_local_hybrid) == (False, True)
    # "GPU KV cache size": blocks up to 0.19.1, max_concurrency × max_model_len from 0.20.0
    assert (behaviour("0.19.1").tokens_report, behaviour("0.20.0").tokens_report) == ("blocks", "concurrency")
    # --max-model-len auto: arg_utils.py 0.14.1 (absent in 0.13.0)
    assert (behaviour("0.13.0").max_model_len_auto, behaviour("0.14.1").max_model_len_auto) == (False, True)
    # --kv-cache-memory-bytes: arg_utils.py and gpu_worker.py 0.10.2 and 0.11.0, absent in 0.10.1.1
    assert [behaviour(r).kv_cache_memory_flag for r in ("0.10.1.1", "0.10.2", "0.11.0")] == [False, True, True]
    # MLA's compressed cache: config.py use_mla in 0.7.3, absent in 0.6.6.post1
    assert (behaviour("0.6.6").mla_cache, behaviour("0.7.3").mla_cache) == (False, True)
    # V1 falls back to V0 below compute capability 8.0 in 0.8-0.10 (arg_utils.py _is_v1_supported_oracle)
    assert [behaviour(v).v0_below_cc80 for v in ("0.8.5", "0.10.1.1", "0.11.0")] == [True, True, False]


def test_every_field_names_its_source():
    fields = {"engine", "nontorch", "sampler", "batch_tiers", "v0_chunked_tokens", "cudagraphs_in_budget",
              "hybrid_kv", "chunked_local_hybrid", "tokens_report", "max_model_len_auto", "concurrency_from_tokens",
              "mla_cache", "kv_cache_memory_flag"}
    assert fields <= set(vv.SOURCES)
    assert all(text.strip() for text in vv.SOURCES.values())


# ------------------------------------------------------------------------------------------- images

IMAGES = [
    ("vllm/vllm-openai:v0.11.0", "0.11.0"),
    ("vllm/vllm-openai:0.10.1.1", "0.10.1.1"),
    ("docker.io/vllm/vllm-openai:v0.9.2-cu128", "0.9.2"),
    ("vllm/vllm-openai:v0.8.5.post1", "0.8.5"),
    ("rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812", "0.10.0"),
    ("763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.10.2-gpu-py312-cu128-ubuntu22.04-ec2", "0.10.2"),
    ("registry.example.com/ml/vllm-openai:v0.13.0@sha256:" + "a" * 64, "0.13.0"),
    ("lmcache/vllm-openai:v0.3.3", None),  # LMCache's own version, not vLLM's
    ("lmcache/vllm-openai:v0.3.3-vllm0.10.1", "0.10.1"),
    ("nvcr.io/nvidia/vllm:25.09-py3", None),  # NGC's YY.MM: no release notes read for 25.09
    ("nvcr.io/nvidia/vllm:25.10-py3", "0.10.2"),  # NVIDIA's vLLM release notes, rel-25-10
    ("nvcr.io/nvidia/vllm:26.01-py3", "0.11.1"),
    ("nvcr.io/nvidia/vllm:26.03-py3", "0.17.1"),
    ("nvcr.io/nvidia/vllm:26.05-py3", "0.20.1"),
    ("nvcr.io/nvidia/vllm:26.10-py3", "0.31.0"),
    ("nvcr.io/nvidia/vllm:26.05.post1-py3", None),  # another build of the month: its notes not read
    ("registry.example.com/nvidia/vllm:26.05-py3", None),  # a mirror's YY.MM tag: not known to be NGC's
    ("vllm/vllm-openai:latest", None),
    ("vllm/vllm-openai:nightly", None),
    ("vllm/vllm-openai:nightly-2bb0e1a7999fd5c0ab4b6ae1e4faa4e0dba6f43a", None),  # a commit of main, no release
    ("vllm/vllm-openai@sha256:" + "b" * 64, None),
    ("vllm/vllm-openai", None),
    ("myorg/llm-server:1.2.3", None),
]


@pytest.mark.parametrize(("image", "release"), IMAGES)
def test_release_from_image_tag(image, release):
    v = vv.version_from_image(image)
    assert (str(v) if v else None) == release


def test_resolve_says_what_it_assumed():
    assert resolve("0.11.0").note == "vLLM 0.11.0"
    assert resolve(None, "vllm/vllm-openai:v0.10.1.1").note == "vLLM 0.10.1.1 from the image tag"
    assert resolve(None, "vllm/vllm-openai:latest").note == (
        f"vLLM {CURRENT_RELEASE}, assumed: tag latest names no vLLM release")
    assert resolve(None, "vllm/vllm-openai@sha256:" + "c" * 64).note == (
        f"vLLM {CURRENT_RELEASE}, assumed: image pinned by digest only")
    assert resolve(None, "nvcr.io/nvidia/vllm:26.03-py3").note == "vLLM 0.17.1 from the image tag"
    assert resolve(None, "nvcr.io/nvidia/vllm:25.09-py3").note == (
        f"vLLM {CURRENT_RELEASE}, assumed: tag 25.09-py3 is NGC's container 25.09, whose vLLM is not in the capacity "
        "model's table of NVIDIA's release notes (25.10, 26.01, 26.03, 26.05, 26.10)")
    assert resolve(None, None, missing="--vllm-version not given").note == (
        f"vLLM {CURRENT_RELEASE}, assumed: --vllm-version not given")
    with pytest.raises(ValueError, match="not a vLLM release number"):
        resolve("latest")


def test_offline_llm_class_defaults_differ_from_serve():
    # arg_utils.py: UsageContext.LLM_CLASS gets 16384 tokens on H100-class GPUs, 8192 below (serve: 8192 / 2048)
    h100 = batch_defaults(behaviour("0.11.0"), 79.2, "NVIDIA H100 80GB HBM3")
    l40s = batch_defaults(behaviour("0.11.0"), 44.3, "NVIDIA L40S")
    assert (h100.llm_max_num_batched_tokens, h100.llm_max_num_seqs) == (16384, 1024)
    assert (l40s.llm_max_num_batched_tokens, l40s.llm_max_num_seqs) == (8192, 256)


# (release, default gpu_memory_utilization, V1 honours --no-enable-chunked-prefill, default max_num_seqs
#  clamped to max_num_batched_tokens, default tokens capped at seqs × max_model_len, the start-up free-memory
#  check, the sampler warm-up after sizing, TP buffers counted as non-torch memory)
STARTUP = [
    # config.py 0.9.2: 0.9; arg_utils.py forces chunked prefill on and takes the default max_num_seqs as is
    ("0.9.2", 0.9, False, False, False, True, True, False),
    # arg_utils.py 0.10.1.1 / 0.11.0: max_num_seqs = min(default, max_num_batched_tokens)
    ("0.10.1.1", 0.9, False, True, False, True, True, False),
    ("0.11.0", 0.9, False, True, False, True, True, False),
    # 0.12.0: _set_default_chunked_prefill_and_prefix_caching_args keeps a user's False; min(seqs × len)
    ("0.12.0", 0.9, True, True, True, True, True, False),
    ("0.16.0", 0.9, True, True, True, True, True, False),
    ("0.19.1", 0.9, True, True, True, True, True, True),
    # config/cache.py 0.20.0: Field(default=0.92)
    ("0.20.0", 0.92, True, True, True, True, True, True),
    ("0.22.1", 0.92, True, True, True, True, True, True),
    # V0 and V1 0.8: no free-memory check and (V0) no sampler warm-up
    ("0.7.3", 0.9, False, False, False, False, False, False),
    ("0.8.5", 0.9, False, False, False, False, True, False),
]


@pytest.mark.parametrize(("release", "util", "chunked_off", "clamped", "capped", "free_check", "warmup", "tp"),
                         STARTUP)
def test_start_up_defaults_of_each_release(release, util, chunked_off, clamped, capped, free_check, warmup, tp):
    b = behaviour(release)
    assert (b.gpu_memory_utilization, b.chunked_prefill_optional, b.max_num_seqs_clamped, b.batched_capped_by_seqs,
            b.startup_free_check, b.sampler_warmup, b.tp_buffers_in_budget) == (
        util, chunked_off, clamped, capped, free_check, warmup, tp)


# (release, default capture sizes, full decode graphs captured too, gpt-oss's largest capture size)
CUDAGRAPHS = [
    # config.py 0.8.5: [1, 2, 4] + range(8, 513, 8); 0.9.2: cuda_graph_sizes default [512]
    ("0.8.5", "step8-512", False, 0),
    ("0.9.2", "step8-512", False, 0),
    # config/scheduler.py 0.10.1.1: [min(max_num_seqs * 2, 512)]; models/config.py GptOss: 1024
    ("0.10.1.1", "step8", False, 1024),
    # config/__init__.py 0.11.0: FULL_AND_PIECEWISE by default; models/config.py GptOss: 992
    ("0.11.0", "step8", True, 992),
    # config/vllm.py 0.12.0: range(8, 256, 8) + range(256, max + 1, 16); GptOss max_cudagraph_capture_size 1024
    ("0.12.0", "step16", True, 1024),
    ("0.14.1", "step16", True, 1024),
    ("0.20.0", "step16", True, 1024),
]


@pytest.mark.parametrize(("release", "sizes", "full", "gpt_oss"), CUDAGRAPHS)
def test_which_cuda_graphs_each_release_captures(release, sizes, full, gpt_oss):
    b = behaviour(release)
    assert (b.cudagraph_sizes, b.full_cudagraphs, b.gpt_oss_capture) == (sizes, full, gpt_oss)


def test_rows_are_written_as_what_changed():
    """Each row differs from the one before it in at least one field, and only in fields it names."""
    import dataclasses

    for prev, row in zip(vv.RANGES, vv.RANGES[1:], strict=False):
        changed = [f.name for f in dataclasses.fields(row)
                   if f.name != "since" and getattr(prev, f.name) != getattr(row, f.name)]
        assert changed, row.since
    assert [f for f in vv.SOURCES if not hasattr(vv.RANGES[0], f)] == []


@pytest.mark.parametrize(("release", "excluded"), [("0.8.5", ()), ("0.9.2", ("a100",)), ("0.20.0", ("a100",)),
                                                   ("0.28.0", ("a100",))])
def test_which_devices_get_the_large_batch_defaults(release, excluded):
    b = behaviour(release)
    a100_80 = batch_defaults(b, 79.15, "NVIDIA A100-SXM4-80GB")
    h100 = batch_defaults(b, 79.19, "NVIDIA H100 80GB HBM3")
    assert (h100.max_num_batched_tokens, h100.max_num_seqs) == (8192, 1024)
    assert (a100_80.max_num_batched_tokens, a100_80.max_num_seqs) == ((2048, 256) if excluded else (8192, 1024))


def test_image_capabilities_are_fields_of_the_release():
    # engine/arg_utils.py: --nnodes first in 0.11.1's sdist; runai_streamer installed from 0.11.0
    assert [(r, behaviour(r).native_multinode, behaviour(r).runai_streamer) for r in ("0.10.2", "0.11.0", "0.11.1")] == [
        ("0.10.2", False, False), ("0.11.0", False, True), ("0.11.1", True, True)]
    assert (vv.first_release("native_multinode"), vv.first_release("runai_streamer"),
            vv.first_release("kv_cache_memory_flag")) == ("0.11.1", "0.11.0", "0.10.2")


def test_how_each_release_counts_the_multimodal_items_it_profiles():
    # v1/worker/gpu_model_runner.py profile_run: cdiv(budget, tokens) in 0.8.3, 0.8.5.post1, 0.9.2; budget // tokens in
    # 0.10.0; MultiModalBudget (v1/worker/utils.py, multimodal/encoder_budget.py) from 0.10.1.1
    assert [behaviour(v).mm_items for v in ("0.8.3", "0.9.2", "0.10.0", "0.10.1.1", "0.14.1", "0.33.0")] == [
        "ceil", "ceil", "floor", "budget", "budget", "budget"]
    # config.py get_limit_per_prompt: 1 in 0.8.3; get_default_limit_per_prompt 999 (V1) in 0.8.4
    assert [behaviour(v).mm_default_limit for v in ("0.8.3", "0.8.4", "0.11.0", "0.33.0")] == [1, 999, 999, 999]
    # expanded_outputs: 0.11.0 and 0.12.0 only (absent in 0.10.2 and 0.13.0)
    assert [behaviour(v).mm_expand_outputs for v in ("0.10.2", "0.11.0", "0.12.0", "0.13.0", "0.14.1")] == [
        False, True, True, False, False]
    # qwen2_vl.py get_image_size_with_most_features: a huge square through smart_resize in 0.12.0, closest_factor_pair
    # from 0.13.0
    assert [behaviour(v).qwen_image for v in ("0.8.3", "0.12.0", "0.13.0", "0.33.0")] == [
        "square", "square", "factors", "factors"]
    # the processor's floating-point outputs cast to the model's dtype: call_hf_processor's maybe_cast_dtype in 0.9.1,
    # absent in 0.8.4, 0.8.5 and 0.9.0
    assert [behaviour(v).mm_inputs_model_dtype for v in ("0.8.4", "0.8.5", "0.9.0", "0.9.1", "0.9.2", "0.19.0")] == [
        False, False, False, True, True, True]
    # Qwen3_VisionTransformer.fast_pos_embed_interpolate: weighted copies in 0.11.0, in place in 0.17.1 and 0.19.0,
    # a Triton kernel in 0.22.0
    assert [behaviour(v).qwen3_vit_pos for v in ("0.11.0", "0.16.0", "0.17.1", "0.19.0", "0.22.0", "0.33.0")] == [
        "copies", "copies", "in-place", "in-place", "kernel", "kernel"]


def test_prefix_lm_token_budget_from_0_22():
    # engine/arg_utils.py _get_min_mm_batched_tokens: absent in the 0.20.0 and 0.21.0 wheels, present in 0.22.0
    assert [behaviour(v).mm_prefix_lm_batched for v in ("0.20.0", "0.21.0", "0.22.0", "0.25.1")] == [
        False, False, True, True]


@pytest.mark.parametrize(("release", "reads", "default"), [
    ("0.17.1", False, False), ("0.18.0", True, False), ("0.19.1", True, False), ("0.20.0", True, True),
    ("0.27.1", True, True)])
def test_which_releases_read_vllm_memory_profiler_estimate_cudagraphs(release, reads, default):
    # envs.py: absent in 0.17.0, os.getenv("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "0") in 0.18.0 and 0.19.1,
    # "1" in 0.20.0 and 0.27.1
    b = behaviour(release)
    assert (b.cudagraph_profiler_env, b.cudagraphs_in_budget) == (reads, default)
    assert "0.18.0" in vv.SOURCES["cudagraph_profiler_env"]


def test_each_release_row_is_the_object_its_init_makes():
    """The rows are copies of the row before with the changes set (start-up time): each must be what
    ``Behaviour.__init__`` makes from its attributes, with nothing more and in the fields' order."""
    names = [f.name for f in dataclasses.fields(vv.Behaviour)]
    assert len(names) == 96  # triton_moe_shared_cache (plancases28); deepgemm_moe_workspace_persists, deepgemm_blackwell_family (plancases27); auto_dtype, float16_refused (capacity5); online_fp8_layerwise (mend20); issue 28: sparse_indexer_workspace, shared_indexers_unbuilt, moe_workspace_persists (tokens39); eplb_world_counts_pcp, offload_uva_env (engine21); unties_distinct_lm_head (tokens36); hybrid_prefix_caching (hybrid13); gdn_ssm_dtype, nemotron_h_ssm_dtype (mamba56); qwen25_vit (plan10);
    # mxfp4_triton_frees_scales, unbuilt_towers (toksingle10); moe_chunk_tokens, hopper_block_fp8_ep_flashinfer
    # (tokmisc12); v2_profile_logits_copy (tokens14); v2_profile_warmup_sampler (tokens16); yarn_rescales_limit
    # (review16); reads_rope_parameters (catalog17); all2all_backend, all2all_env (dpep18); rope_scaling_override
    # (hfover19); eplb_min_redundant (verdicts19); eplb_needs_expert_parallel, longrope_default_original (engine20)
    # v2_skips_state_models (tokens41)
    for row in vv.RANGES:
        made = vv.Behaviour(**vars(row))
        assert made == row and hash(made) == hash(row)
        assert list(vars(row)) == names and vars(made) == vars(row)


def test_a_release_row_is_what_dataclasses_replace_makes():
    prev = vv.RANGES[-2]
    changes = {"sampler": "sort", "gpu_memory_utilization": 0.8, "v2_model_types": ("llama",)}
    row = vv._row(prev, "9.9.0", **changes)
    expected = dataclasses.replace(prev, since="9.9.0", **changes)
    assert row == expected and list(vars(row).items()) == list(vars(expected).items())
    assert (row.since, row.sampler, row.gpu_memory_utilization, row.engine) == ("9.9.0", "sort", 0.8, prev.engine)
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.sampler = "triton"  # type: ignore[misc]
    with pytest.raises(TypeError) as ours:
        vv._row(prev, "9.9.0", sampler="sort", no_such_field=1)
    with pytest.raises(TypeError) as theirs:
        dataclasses.replace(prev, since="9.9.0", sampler="sort", no_such_field=1)  # type: ignore[call-arg]
    assert str(ours.value) == str(theirs.value) == (
        "Behaviour.__init__() got an unexpected keyword argument 'no_such_field'")


@pytest.mark.parametrize(("release", "whole_model"), [
    ("0.13.0", False), ("0.14.0", True), ("0.14.1", True), ("0.16.0", True), ("0.17.0", False), ("0.19.0", False)])
def test_which_releases_check_one_request_against_every_pipeline_stage(release, whole_model):
    # v1/core/kv_cache_utils.py get_kv_cache_configs: per worker in 0.13.0, the specs of all workers merged into
    # global groups against min(available_memory) in 0.14.0, 0.14.1 and 0.16.0, per worker again in 0.17.0
    assert behaviour(release).pp_check_whole_model is whole_model
    assert "0.16.0" in vv.SOURCES["pp_check_whole_model"]


def test_0_34_starts_blocks_at_64_tokens_and_sizes_an_extensible_kv_cache():
    # config/cache.py: DEFAULT_BLOCK_SIZE 16 in 0.33.0, 64 in 0.34.0; enable_extensible_kv_cache new in 0.34.0
    rows = [(behaviour(v).default_block_size, behaviour(v).extensible_kv_cache, behaviour(v).gpu_memory_utilization)
            for v in ("0.33.0", "0.34.0", "0.99.0")]
    assert rows == [(16, False, 0.92), (64, True, 0.92), (64, True, 0.92)]
    assert CURRENT_RELEASE == "0.34.0"


@pytest.mark.parametrize(("release", "how"), [
    ("0.10.1.1", "generic"), ("0.11.0", "float32-rotary"), ("0.11.2", "float32-rotary"),
    ("0.12.0", "model-dtype-rotary"), ("0.14.1", "model-dtype-rotary"), ("0.26.0", "model-dtype-rotary")])
def test_qwen25_vl_tower_by_release(release, how):
    # model_executor/models/qwen2_5_vl.py: 0.11.0 rotates q and k through a float32 copy (apply_rotary_pos_emb_vision);
    # 0.12.0 and later in the model's dtype (dispatch_rotary_emb_function, then ApplyRotaryEmb); 0.8.5 not modelled
    assert behaviour(release).qwen25_vit == how
    assert "0.11.0" in vv.SOURCES["qwen25_vit"] and "0.12.0" in vv.SOURCES["qwen25_vit"]


def test_model_runner_v2_profile_sampler_copies_the_logits_by_release():
    """review14: V2's ``Sampler.apply_sampling_params`` copies the logits to float32 unconditionally in 0.22 - 0.27 and
    returns them untouched where no request needs processing from 0.28 (tokens14); from 0.33.0
    ``_dummy_sampler_run`` (v1/worker/gpu/model_runner.py, read in the 0.31.0 - 0.34.0 wheels) samples a second time
    with ``SamplingParams.for_sampler_warmup()`` on every dummy request, so the profile pays for the float32 copy
    again ("warmup_kernels ... pays for the fp32 logits pipeline, so the profiled peak must too"); 0.31 and 0.32
    have only the first pass."""
    assert [behaviour(r).v2_profile_logits_copy for r in ("0.27.1", "0.28.0", "0.30.0", "0.32.0", "0.33.0", "0.34.0")
            ] == [True, False, False, False, True, True]


# --- release37: which release an image holds, and when that is sure -------------------------------------------------

@pytest.mark.parametrize("image", [
    "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.11-gpu-py312",
    "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.11-gpu-py312-cu129-ubuntu22.04-sagemaker-v1",
    "public.ecr.aws/deep-learning-containers/vllm:0.11-gpu-py312-ec2",
    "111122223333.dkr.ecr.eu-west-1.amazonaws.com/ecr-public/deep-learning-containers/vllm:0.11-gpu-py312-ec2",
])
def test_a_dlc_floating_minor_tag_is_one_of_its_patches_not_a_sure_x_y_0(image: str) -> None:
    rv = resolve(None, image)
    assert (rv.source, str(rv.version), rv.line) == ("assumed", "0.11.2", (0, 11))
    assert "one of 0.11.x (the patches shardwise read: 0.11.0, 0.11.1 and 0.11.2), sized as 0.11.2" in rv.note
    # the rows the patches fall in: 0.11.0's and 0.11.1's (the native multi-node launch, the sort sampler)
    assert [r.since for r in vv.possible_rows(rv)] == ["0.11.0", "0.11.1"]
    assert vv.version_from_image(image) is None  # no one release: flags are not judged against 0.11.0


def test_a_dlc_full_tag_names_its_release_for_sure() -> None:
    rv = resolve(None, "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.11.0-gpu-py312-cu128-ubuntu22.04-ec2")
    assert (rv.source, str(rv.version), rv.line) == ("image-tag", "0.11.0", None)
    assert vv.possible_rows(rv) == (rv.behaviour,)


def test_a_floating_line_with_no_patch_read_is_sized_at_its_first() -> None:
    rv = resolve(None, "public.ecr.aws/deep-learning-containers/vllm:0.15-gpu-py312")
    assert (rv.source, str(rv.version)) == ("assumed", "0.15.0")
    assert "one of 0.15.x (none of whose patches shardwise read)" in rv.note
    assert [r.since for r in vv.possible_rows(rv)] == ["0.14.0"]


def test_any_release_may_run_where_the_tag_names_none() -> None:
    assert vv.possible_rows(resolve(None, "vllm/vllm-openai:latest")) == vv.RANGES


def test_a_floating_tag_keeps_its_line_through_the_manifest_note() -> None:
    """The manifest's note (declare the release by annotation) keeps the line (capacity/group.py)."""
    rv = resolve(None, "public.ecr.aws/deep-learning-containers/vllm:0.10-gpu-py312-ec2")
    again = dataclasses.replace(rv, detail=rv.detail + "; declare it")
    assert (again.line, [r.since for r in vv.possible_rows(again)]) == ((0, 10), ["0.10.0", "0.10.1", "0.10.2"])


@pytest.mark.parametrize(("image", "version", "source"), [
    ("vllm/vllm-openai-cpu:v0.19.0-x86_64", "0.19.0", "image-tag"),
    ("docker.io/vllm/vllm-openai-cpu:v0.23.0", "0.23.0", "image-tag"),
    ("public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.2", "0.10.2", "image-tag"),
    ("vllm/vllm-openai-cpu:latest-arm64", CURRENT_RELEASE, "assumed"),
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "0.8.5", "image-tag"),
    ("rocm/vllm:latest", CURRENT_RELEASE, "assumed"),
    # Red Hat's builds on quay.io/vllm: its midstream with its patches, the fourth number its own
    ("quay.io/vllm/vllm-cuda:0.11.0.0", "0.11.0.0", "assumed"),
    ("quay.io/vllm/vllm-tpu:0.11.0", "0.11.0", "assumed"),
    ("quay.io/vllm/vllm-cpu:0.10.1.1", "0.10.1.1", "assumed"),
    ("registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2", CURRENT_RELEASE, "assumed"),
    ("registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0", "0.8.4", "assumed"),
    ("registry.redhat.io/rhaiis/vllm-rocm-rhel9:3.0", "0.8.4", "assumed"),
])
def test_the_release_of_cpu_rocm_and_red_hat_images(image: str, version: str, source: str) -> None:
    rv = resolve(None, image)
    assert (str(rv.version), rv.source) == (version, source)


def test_red_hat_quay_builds_say_whose_build_they_are() -> None:
    assert resolve(None, "quay.io/vllm/vllm-cuda:0.11.0.0").detail == (
        "the tag of quay.io/vllm/vllm-cuda says 0.11.0.0, but it is Red Hat's build of vLLM (quay.io/vllm), made from "
        "Red Hat's midstream with its own patches over that release, which may change its flags and defaults")


def test_a_red_hat_ai_inference_server_tag_is_the_products_version() -> None:
    assert resolve(None, "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.4").detail == (
        "tag 3.2.4 is Red Hat AI Inference Server 3.2's version, not vLLM's, and its vLLM core is not in the capacity "
        "model's table of Red Hat's compatibility tables (3.0: 0.8.4)")
    assert resolve(None, "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0").detail == (
        "tag 3.0.0 is Red Hat AI Inference Server 3.0, whose vLLM core is 0.8.4 (Red Hat's compatibility table), built "
        "by Red Hat with its own patches")
