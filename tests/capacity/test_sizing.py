"""The general capacity model: formulas checked term by term, plus properties (hypothesis)."""

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import ROOT
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.group import env_settings
from shardwise.rules.catalog import find_model
from shardwise.rules.model.shapes import MlaShape, ModelShape, MoeShape
from shardwise.rules.vllm.versions import behaviour

GIB = 1024**3
H100_GIB = 79.1875  # 85,029,158,912 bytes as torch reports an H100 80GB HBM3

LLAMA70 = ModelShape(
    id="meta-llama/Llama-3.1-70B-Instruct", params=70_553_706_496, num_hidden_layers=80, hidden_size=8192,
    num_attention_heads=64, num_key_value_heads=8, head_dim=128, intermediate_size=28672,
    vocab_size=128256, max_position_embeddings=131072,
)
DEEPSEEK = ModelShape(
    id="deepseek-ai/DeepSeek-V3", params=671_026_419_200, num_hidden_layers=61, hidden_size=7168,
    num_attention_heads=128, num_key_value_heads=128, head_dim=192, intermediate_size=18432,
    vocab_size=129280, max_position_embeddings=163840, precision="fp8",
    moe=MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048),
    mla=MlaShape(kv_lora_rank=512, qk_rope_head_dim=64),
)


def test_weights_bf16_and_quantised():
    assert sizing.weights_bytes(LLAMA70, "bf16") == 70_553_706_496 * 2
    embed = 2 * 128256 * 8192  # untied input embeddings + LM head stay 16-bit
    assert sizing.weights_bytes(LLAMA70, "fp8") == embed * 2 + (70_553_706_496 - embed) * 1.0
    assert sizing.weights_bytes(LLAMA70, "int4") == pytest.approx(
        embed * 2 + (70_553_706_496 - embed) * (0.5 + 2.5 / 128)
    )
    assert round(sizing.weights_gb(LLAMA70, "int4"), 1) == 39.8



def test_a_quantised_multimodal_checkpoint_keeps_its_encoder_16_bit():
    # Qwen/Qwen2.5-VL-3B-Instruct-AWQ: 3,754,622,976 parameters, 668,684,288 of them the vision tower (which AutoAWQ
    # leaves unconverted and vLLM loads unquantised), tied embeddings 151,936 x 2,048; vLLM 0.23.0 logged
    # "Model loading took 3.32 GiB" on an RTX 3050 (Kartikeya2046/Invoice-Processor_VLM, set 10)
    awq = find_model("Qwen/Qwen2.5-VL-3B-Instruct-AWQ")
    kept = 151_936 * 2_048 + 668_684_288
    assert sizing.weights_bytes(awq, "int4") == pytest.approx(kept * 2 + (3_754_622_976 - kept) * (0.5 + 2.5 / 128))
    assert round(sizing.weights_bytes(awq, "int4") / GIB, 2) == 3.17  # the whole model; 3.29 a GPU with its buffers
    # a 16-bit checkpoint quantised at load time (--quantization fp8) is counted as before: the encoder with the rest
    bf16 = find_model("Qwen/Qwen2.5-VL-3B-Instruct")
    embed = 151_936 * 2_048
    assert sizing.weights_bytes(bf16, "fp8") == embed * 2 + (3_754_622_976 - embed) * 1.0
    # a text-only checkpoint has no encoder to keep
    assert sizing.weights_bytes(dataclasses.replace(LLAMA70, precision="int4"), "int4") == pytest.approx(
        sizing.weights_bytes(LLAMA70, "int4"))

def test_kv_per_token_splits_heads_and_layers():
    # 2 × 80 layers × (8 KV heads / TP4 = 2) × 128 × 2 bytes
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=4) == 2 * 80 * 2 * 128 * 2 == 81920
    # TP16 > 8 KV heads: each rank keeps one replicated KV head
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=16) == 2 * 80 * 1 * 128 * 2
    # PP2 halves the layers per GPU; fp8 KV halves the bytes
    assert sizing.kv_bytes_per_token_per_gpu(LLAMA70, tp=8, pp=2, kv_bytes=1) == 2 * 40 * 1 * 128 * 1


def test_kv_per_token_mla_is_not_split_by_tp():
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=8) == 61 * (512 + 64) * 2
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=1) == 61 * (512 + 64) * 2
    assert sizing.kv_bytes_per_token_per_gpu(DEEPSEEK, tp=8, pp=2) == 31 * (512 + 64) * 2


def _llama70_tp4(release: str, **kw) -> sizing.ReplicaSizing:
    h100 = sizing.Device("H100-SXM-80GB", H100_GIB, "nvidia", "hopper")
    return sizing.size_deployment(LLAMA70, h100, sizing.EngineSettings(tp=4, max_model_len=8192, **kw), release)


ROTARY = 131072 * 128 * 2  # vLLM's rotary cos/sin cache: a bf16 buffer of context limit × head dim, per GPU


def test_size_llama70_tp4_on_h100_v1_0_11_term_by_term():
    s = _llama70_tp4("0.11.0", max_num_seqs=64)
    w = (70_553_706_496 * 2 / 4 + ROTARY) / GIB
    # profile: 8,192 batched tokens (serve default >= 70 GiB); sampler over min(64, 8192) rows × vocab (FlashInfer)
    forward = 8192 * (3 * 28672 / 4 + 3 * 8192) * 2
    sampler = 64 * 128256 * 16 + 8192 * 8192 * 2
    act = max(forward, sampler) / GIB
    # 0.11+: measured after NCCL is set up; one GPU + a multi-GPU extra + PyTorch's TP communicator's 24 rings of 12 MiB
    nt = 0.12 + 0.10 + 24 * 12 / 1024
    kv = H100_GIB * 0.9 - w - act - nt  # CUDA graphs come from the margin before 0.20
    num_blocks = int(kv * GIB) // (16 * 2 * 2 * 128 * 2) // 80
    assert s.weights_gib_per_gpu == pytest.approx(w)
    assert s.activation_gib_per_gpu == pytest.approx(act)
    assert (s.non_torch_gib_per_gpu, s.cudagraphs_in_budget) == (pytest.approx(nt), False)
    assert s.available_kv_gib == pytest.approx(kv)
    assert s.kv_cache_tokens == num_blocks * 16
    assert s.max_concurrency == num_blocks / 512  # blocks per 8,192-token request
    assert s.load_tokens == 64 * 8192
    assert (s.engine, s.max_num_batched_tokens, s.max_num_seqs, s.max_num_seqs_default) == ("v1", 8192, 64, False)
    assert (s.starts, s.verdict, s.weights_fit) == (True, "starts", True)
    assert (round(w, 2), s.kv_cache_tokens, int(s.max_concurrency)) == (32.89, 487312, 59)


def test_cuda_graphs_join_the_budget_from_0_20():
    # utilization pinned: 0.20.0 also raises its default to 0.92
    before = _llama70_tp4("0.19.1", max_num_seqs=64, gpu_memory_utilization=0.9)
    after = _llama70_tp4("0.20.0", max_num_seqs=64, gpu_memory_utilization=0.9)
    assert (before.cudagraphs_in_budget, after.cudagraphs_in_budget) == (False, True)
    # vLLM's profiled estimate (profile_cudagraph_memory): 19 piecewise sizes up to 128 and 11 full decode sizes
    # up to 64; the first capture holds two forward passes of 128 tokens, each further graph 0.17 MiB per layer
    forward = 128 * (3 * 28672 / 4 + 3 * 8192) * 2
    graphs = 0.065 + 2 * forward / GIB + (18 + 10) * 80 * 0.17 / 1024
    assert after.cudagraph_gib_per_gpu == pytest.approx(graphs)
    assert round(graphs, 3) == 0.459
    assert before.available_kv_gib - after.available_kv_gib == pytest.approx(graphs)
    eager = _llama70_tp4("0.20.0", max_num_seqs=64, enforce_eager=True, gpu_memory_utilization=0.9)
    assert (eager.cudagraph_gib_per_gpu, eager.available_kv_gib) == (0.0, pytest.approx(before.available_kv_gib))


def test_vllm_memory_profiler_estimate_cudagraphs_overrides_the_release_default_from_0_18():
    """VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS (envs.py: absent in 0.17.0, default '0' in 0.18.0 - 0.19.1, '1' from
    0.20.0): determine_available_memory takes the CUDA-graph estimate from the budget only where it is on."""
    on, off = sizing.EngineSettings(cudagraph_profiling=True), sizing.EngineSettings(cudagraph_profiling=False)
    unset = sizing.EngineSettings()
    b = behaviour
    got = [(r, sizing.cudagraph_estimate_applied(b(r), x))
           for r in ("0.17.1", "0.18.0", "0.19.1", "0.20.0", "0.27.1") for x in (unset, on, off)]
    assert got == [("0.17.1", False), ("0.17.1", False), ("0.17.1", False),  # not read before 0.18
                   ("0.18.0", False), ("0.18.0", True), ("0.18.0", False),
                   ("0.19.1", False), ("0.19.1", True), ("0.19.1", False),
                   ("0.20.0", True), ("0.20.0", True), ("0.20.0", False),
                   ("0.27.1", True), ("0.27.1", True), ("0.27.1", False)]
    # ROCm: 0.18 - 0.26 skip the estimate ('not current_platform.is_rocm()') whatever the variable says
    assert [sizing.cudagraph_estimate_applied(b(r), on, "amd") for r in ("0.19.1", "0.24.0", "0.27.1")] == [
        False, False, True]
    assert sizing.cudagraph_estimate_applied(b("0.27.1"), off, "amd") is False
    # through the sizing: 0.19.1 with it on charges 0.20's estimate; 0.20.0 with it off captures the graphs after
    # sizing as 0.19 does (in the margin), so the budget is 0.19's
    before = _llama70_tp4("0.19.1", max_num_seqs=64, gpu_memory_utilization=0.9)
    opted = _llama70_tp4("0.19.1", max_num_seqs=64, gpu_memory_utilization=0.9, cudagraph_profiling=True)
    after = _llama70_tp4("0.20.0", max_num_seqs=64, gpu_memory_utilization=0.9)
    opted_out = _llama70_tp4("0.20.0", max_num_seqs=64, gpu_memory_utilization=0.9, cudagraph_profiling=False)
    assert (opted.cudagraphs_in_budget, round(opted.cudagraph_gib_per_gpu, 3)) == (True, 0.459)
    assert opted.available_kv_gib == pytest.approx(after.available_kv_gib)
    assert (opted_out.cudagraphs_in_budget, opted_out.available_kv_gib) == (
        False, pytest.approx(before.available_kv_gib))
    assert opted_out.cudagraph_gib_per_gpu == pytest.approx(before.cudagraph_gib_per_gpu)
    assert round(before.available_kv_gib - after.available_kv_gib, 3) == 0.459
    # a pod's env sets it as vLLM reads it (bool(int(...)))
    assert env_settings({"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0"}) == {"cudagraph_profiling": False}
    assert env_settings({"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "1"}) == {"cudagraph_profiling": True}
    assert env_settings({"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "maybe"}) == {}


def test_a_nightly_build_with_the_cuda_graph_estimate_on_gemma_4_e4b_on_an_a100_40gb():
    # HienHoang3011/translate-pipeline vllm_server.log: vLLM 0.19.2rc1.dev206 (a build of main after 0.19.1) logs
    # "CUDA graph memory profiling is enabled", Estimated CUDA graph memory 0.79 GiB, Available KV cache memory
    # 16.45 GiB, GPU KV cache size 179,632 tokens (0.19's report: num_blocks // groups x block)
    e4b = find_model("google/gemma-4-E4B-it")
    a100 = sizing.Device("A100-40GB", 39.39, "nvidia", "ampere", 1)
    s = sizing.EngineSettings(gpu_memory_utilization=0.85, max_model_len=16384)
    default = sizing.size_deployment(e4b, a100, s, "0.19.2rc1.dev206")
    on = sizing.size_deployment(e4b, a100, dataclasses.replace(s, cudagraph_profiling=True), "0.19.2rc1.dev206")
    assert (default.cudagraphs_in_budget, round(default.available_kv_gib, 2), default.kv_cache_tokens) == (
        False, 17.28, 188752)
    assert (on.cudagraphs_in_budget, round(on.cudagraph_gib_per_gpu, 2)) == (True, 0.72)
    # a cold compile cache (a pod's first start; the default) was charged one copy of the 262,144 x 2,560 embedding
    # (1.25 GiB: 16.42 GiB and 179,392 tokens) until toksingle10; the run has image, video and audio on, so the profile
    # hands the compiled graph embeddings (sizing.mm_inputs_embedded) and the forward's 0.99 is the peak, cold or warm.
    # With Gemma 4's second rotary cache (0.125 GiB) in the weights: 16.56 GiB, 180,832 tokens (+0.7 %)
    assert round(on.activation_gib_per_gpu, 3) == 0.992
    assert (round(on.available_kv_gib, 2), on.kv_cache_tokens) == (16.56, 180832)
    warm = sizing.size_deployment(e4b, a100, dataclasses.replace(s, compile_cache="warm"), "0.19.2rc1.dev206")
    assert (round(warm.activation_gib_per_gpu, 3), round(warm.available_kv_gib, 2)) == (0.992, 17.28)


def test_the_sampler_profile_follows_the_release_and_the_batch_width():
    # 0.12-0.16 sort the logits (38.2 bytes per element from 128 rows), 0.17-0.20 mask them in place with Triton (15.5);
    # FlashInfer before and after (16)
    sort, flash = _llama70_tp4("0.13.0"), _llama70_tp4("0.11.0")
    assert (sort.max_num_seqs, sort.sampler_gib_per_gpu) == (1024, pytest.approx((1024 * 128256 * 38.2 + 8192 * 8192 * 2) / GIB))
    assert flash.sampler_gib_per_gpu == pytest.approx((1024 * 128256 * 16 + 8192 * 8192 * 2) / GIB)
    triton, later = _llama70_tp4("0.17.0"), _llama70_tp4("0.22.1")
    assert triton.sampler_gib_per_gpu == pytest.approx((1024 * 128256 * 15.5 + 8192 * 8192 * 2) / GIB)
    assert later.sampler_gib_per_gpu == pytest.approx((1024 * 128256 * 16 + 8192 * 8192 * 2) / GIB)
    # below 8 rows the Triton kernel is skipped and PyTorch sorts, below 128 rows by its full-sort path (51.1 bytes)
    few = _llama70_tp4("0.19.1", max_num_seqs=4)
    assert few.sampler_gib_per_gpu == pytest.approx((4 * 128256 * 51.1 + 8192 * 8192 * 2) / GIB)
    # V0 samples its max_num_seqs dummy prompts with top-k/top-p, which PyTorch sorts (38.2 bytes per element)
    v0 = _llama70_tp4("0.6.6")
    assert (v0.engine, v0.max_num_seqs, v0.sampler_gib_per_gpu) == (
        "v0", 256, pytest.approx((256 * 128256 * 38.2 + 8192 * 8192 * 2) / GIB))


def test_pytorchs_sort_costs_by_its_path_for_the_number_of_rows():
    # aten's launch_stable_sort_kernel: CUB's segmented radix sort from 128 rows (38.2 bytes per logit with the
    # logits and their float32 copy), below it one full radix sort and a sort by segment (int2 index/segment pairs
    # twice, a key copy: 51.1), one row alone (38.3: an int64 initial index and CUB's alternates, as from 128 rows);
    # the largest peaks measured with PyTorch 2.11 on an H200 (benchmarks/gpu/torch_terms-h200-torch2.11.json);
    # vLLM 0.13 samples min(max_num_seqs, max_num_batched_tokens) rows
    rows = {n: _llama70_tp4("0.13.0", max_num_seqs=n).sampler_gib_per_gpu for n in (1, 2, 127, 128, 256)}
    hidden = 8192 * 8192 * 2
    assert rows == {1: pytest.approx((1 * 128256 * 38.3 + hidden) / GIB),
                    2: pytest.approx((2 * 128256 * 51.1 + hidden) / GIB),
                    127: pytest.approx((127 * 128256 * 51.1 + hidden) / GIB),
                    128: pytest.approx((128 * 128256 * 38.2 + hidden) / GIB),
                    256: pytest.approx((256 * 128256 * 38.2 + hidden) / GIB)}
    # FlashInfer and the Triton kernel do not sort: the same bytes per logit at any width from 8 rows
    assert _llama70_tp4("0.17.0", max_num_seqs=64).sampler_gib_per_gpu == pytest.approx(
        (64 * 128256 * 15.5 + hidden) / GIB)


def test_v0_with_chunked_prefill_profiles_the_logits_only():
    # above 32,768 tokens of context V0 chunks prefills (2,048 tokens from 0.6.5): the logs show only the logits of
    # the max_num_seqs rows in the model's dtype (vllm#10517 at 35,000 tokens, vllm#13061)
    h100 = sizing.Device("H100-SXM-80GB", H100_GIB, "nvidia", "hopper")
    long_ctx = sizing.size_deployment(LLAMA70, h100, sizing.EngineSettings(tp=4), "0.6.6")
    assert (long_ctx.max_num_batched_tokens, long_ctx.sampler_gib_per_gpu) == (
        2048, pytest.approx((256 * 128256 * 2 + 2048 * 8192 * 2) / GIB))
    # VLLM_USE_FLASHINFER_SAMPLER=1 samples with FlashInfer instead of the sort
    flash = _llama70_tp4("0.6.6", flashinfer_sampler=True)
    assert flash.sampler_gib_per_gpu == pytest.approx((256 * 128256 * 16 + 8192 * 8192 * 2) / GIB)


def test_the_v0_sort_sampler_sets_the_activation_peak_when_the_forward_pass_is_small():
    # vllm#13882 (0.7.3, Qwen2.5-7B-AWQ at 4,096 tokens on an 8 GiB RTX 4060): "PyTorch activation peak memory takes
    # 1.42GiB" - the sort over 256 × 152,064 logits and the hidden states beside it, above the 4,096-token forward
    qwen = find_model("Qwen/Qwen2.5-7B-Instruct-AWQ")
    rtx = sizing.Device("RTX 4060", 8.0, "nvidia", "ada", 1)
    s = sizing.size_deployment(qwen, rtx, sizing.EngineSettings(gpu_memory_utilization=0.7, max_model_len=4096), "0.7.3")
    assert s.engine == "v0" and s.max_num_batched_tokens == 4096
    assert s.activation_gib_per_gpu * GIB == pytest.approx(256 * 152064 * 38.2 + 4096 * 3584 * 2)
    assert round(s.activation_gib_per_gpu, 2) == 1.41


@pytest.mark.parametrize(("release", "use_v1", "engine", "noted"), [
    ("0.9.2", False, "v0", True),  # AMD's rocm/vllm images and benchmark scripts of the 0.8-0.10 line set VLLM_USE_V1=0
    ("0.10.1.1", False, "v0", True),
    ("0.8.5", False, "v0", True),
    ("0.9.2", None, "v1", False),
    ("0.9.2", True, "v1", False),
    ("0.11.0", False, "v1", False),  # V0 is gone from 0.11
    ("0.7.3", None, "v0", False),  # V0 is the release's own engine
])
def test_vllm_use_v1_0_selects_the_v0_engine_where_it_still_exists(release, use_v1, engine, noted):
    s = _llama70_tp4(release, use_v1=use_v1)
    assert s.engine == engine
    assert (f"VLLM_USE_V1=0: vLLM {release} runs the V0 engine" in s.notes) == noted


def test_the_manifest_tells_vllm_use_v1(tmp_path):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "deploy.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama}
spec:
  selector: {matchLabels: {app: llama}}
  template:
    metadata: {labels: {app: llama}}
    spec:
      containers:
        - name: vllm
          image: rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715
          args: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072"]
          env:
            - {name: VLLM_USE_V1, value: "0"}
          resources:
            limits: {amd.com/gpu: 1}
""")
    [g] = load_inputs([str(path)]).groups
    assert engine_settings(g).use_v1 is False


def test_v0_profiles_max_model_len_tokens_without_chunked_prefill():
    v0 = _llama70_tp4("0.6.6")  # 8,192 <= 32,768: no chunked prefill, max(max_model_len, 2048) tokens
    assert v0.max_num_batched_tokens == 8192
    long_ctx = sizing.size_deployment(LLAMA70, sizing.Device("H100", H100_GIB), sizing.EngineSettings(tp=4), "0.6.6")
    assert long_ctx.max_num_batched_tokens == 2048  # > 32,768 tokens: chunked prefill, 2,048 (512 before 0.6.5)
    old = sizing.size_deployment(LLAMA70, sizing.Device("H100", H100_GIB), sizing.EngineSettings(tp=4), "0.6.3")
    assert old.max_num_batched_tokens == 512


def test_size_replica_refuses_to_start_at_full_context_on_one_gpu():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=1, vllm_version="0.11.0")
    assert not s.weights_fit and not s.starts and s.kv_cache_tokens == 0
    assert (s.weights_fit_band, s.verdict) == ("refuses", "refuses")
    assert s.refusal == "no memory is left for the KV cache (vLLM: No available memory for the cache blocks)"
    assert s.max_model_len == 131072 and s.max_num_seqs == 1024  # vLLM's default for >= 70 GiB GPUs


def test_max_model_len_above_the_models_limit_is_a_certain_refusal():
    s = _llama70_tp4("0.11.0", max_num_seqs=64)
    assert s.model_max_len == 131072
    above = sizing.size_deployment(LLAMA70, sizing.Device("H100", H100_GIB),
                                   sizing.EngineSettings(tp=4, max_model_len=200_000), "0.11.0")
    assert (above.starts, above.verdict, above.certain) == (False, "refuses", True)
    assert above.refusal.startswith("max_model_len 200,000 is above the 131,072 tokens")
    allowed = sizing.size_deployment(LLAMA70, sizing.Device("H100", H100_GIB),
                                     sizing.EngineSettings(tp=4, max_model_len=200_000,
                                                           allow_long_max_model_len=True), "0.11.0")
    assert not allowed.certain


def test_rope_scaling_sets_the_context_limit():
    yarn = dataclasses.replace(LLAMA70, max_position_embeddings=32768, hf_config={
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})
    assert sizing.derived_max_model_len(yarn) == 131072
    llama3 = dataclasses.replace(LLAMA70, hf_config={"rope_scaling": {"rope_type": "llama3", "factor": 8.0}})
    assert sizing.derived_max_model_len(llama3) == 131072  # already the long limit
    linear = dataclasses.replace(LLAMA70, max_position_embeddings=4096,
                                 hf_config={"rope_scaling": {"type": "linear", "factor": 2.0}})
    assert sizing.derived_max_model_len(linear) == 8192


def test_max_model_len_auto_fits_the_kv_cache_from_0_14():
    h100 = sizing.Device("H100", H100_GIB)
    auto = sizing.size_deployment(LLAMA70, h100, sizing.EngineSettings(tp=2, max_model_len="auto"), "0.14.1")
    assert auto.starts and auto.max_model_len < 131072 and auto.max_model_len == auto.max_model_len_fit
    old = sizing.size_deployment(LLAMA70, h100, sizing.EngineSettings(tp=2, max_model_len="auto"), "0.13.0")
    assert (old.certain, old.refusal) == (True, "vLLM 0.13.0 has no --max-model-len auto (added in 0.14)")


def test_expert_parallel_spreads_only_the_experts():
    moe = dataclasses.replace(DEEPSEEK, hf_config={"first_k_dense_replace": 3})
    assert sizing.moe_layers(moe) == 58
    experts = 58 * 256 * 3 * 7168 * 2048
    assert sizing.expert_params(moe) == experts
    h200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")
    ep = sizing.size_deployment(moe, h200, sizing.EngineSettings(dp=8, expert_parallel=True), "0.11.0")
    tp = sizing.size_deployment(moe, h200, sizing.EngineSettings(tp=8), "0.11.0")
    embed = 2 * 129280 * 7168 * 2  # 16-bit embeddings and LM head
    rest = (671_026_419_200 - 2 * 129280 * 7168 - experts) * 1.0  # fp8 attention, dense and shared layers
    rotary = 163840 * 64 * 2
    assert ep.weights_gib_per_gpu == pytest.approx((embed + rest + experts / 8 + rotary) / GIB)
    # kv_a_proj_with_mqa (fp8, this shape states no q_lora_rank) and the bf16 routers stay whole on every TP rank
    whole = 61 * 7168 * (512 + 64) * 1.0 + 58 * 256 * 7168 * 2.0
    assert tp.weights_gib_per_gpu == pytest.approx(((embed + rest + experts - whole) / 8 + whole + rotary) / GIB)
    assert ep.verdict == "starts" and ep.block_size == 64  # FlashMLA forces 64-token blocks


def test_data_parallel_spreads_the_experts_with_or_without_expert_parallelism():
    # vLLM's FusedMoEParallelConfig.make flattens TP across DP (``flatten_tp_across_dp_and_pcp``, 0.25.1 - 0.29.0):
    # without --enable-expert-parallel each expert is split TP x DP ways, with it each rank holds whole experts; the
    # memory on a GPU is the same. gpt-oss-20b at DP4 on four L4s (held-out set 12, 0.29.0) logs 438,932 tokens an
    # engine, which only a quarter of the experts on each GPU leaves room for.
    moe = dataclasses.replace(DEEPSEEK, hf_config={"first_k_dense_replace": 3})
    experts = 58 * 256 * 3 * 7168 * 2048
    h200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")
    dp = sizing.size_deployment(moe, h200, sizing.EngineSettings(dp=8), "0.29.0")
    ep = sizing.size_deployment(moe, h200, sizing.EngineSettings(dp=8, expert_parallel=True), "0.29.0")
    one = sizing.size_deployment(moe, h200, sizing.EngineSettings(), "0.29.0")
    assert dp.weights_gib_per_gpu == pytest.approx(ep.weights_gib_per_gpu)
    assert one.weights_gib_per_gpu - dp.weights_gib_per_gpu == pytest.approx(experts * 7 / 8 / GIB)


def test_the_error_band_is_never_below_the_calibration_tolerance():
    s = _llama70_tp4("0.11.0", max_num_seqs=64)
    assert s.error_band_gib == pytest.approx(max(0.6, 0.04 * H100_GIB * 0.9,
                                                 s.weights_gib_per_gpu * 0.02 + s.activation_gib_per_gpu * 0.35
                                                 + 0.15 + 0.3))


def test_the_weights_band_is_narrow_below_only_for_a_checkpoint_vllm_loads_whole():
    # docs/capacity-model.md, "The weights' band": 27 unquantised rows without a tower or an MTP module, none more
    # than 0.004 GiB below the estimate; the quantised, multimodal, MTP-carrying or derived keep 2 % + 0.3 GiB below
    llama = find_model("meta-llama/Llama-3.1-70B-Instruct")
    assert sizing.exact_weights(llama, "bf16", False) and sizing.exact_weights(llama, "fp16", False)
    assert not sizing.exact_weights(llama, "fp8", False)  # --quantization fp8: online quantisation
    assert not sizing.exact_weights(llama, "bf16", True)  # plan --weights-gib: a size given, not counted
    assert not sizing.exact_weights(dataclasses.replace(llama, extra={"params_source": "derived"}), "bf16", False)
    assert not sizing.exact_weights(find_model("google/gemma-3-4b-it"), "bf16", False)  # its SigLIP tower
    assert not sizing.exact_weights(find_model("zai-org/GLM-4.5-Air"), "bf16", False)  # its MTP layer
    fp8 = find_model("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic")
    assert not sizing.exact_weights(fp8, fp8.precision, False)
    assert sizing.weights_band(100.0, True) == pytest.approx((0.55, 2.3))  # 0.5 % + 0.05 below, 2 % + 0.3 above
    assert sizing.weights_band(100.0, False) == pytest.approx((2.3, 2.3))
    assert (sizing.band_text(0.7072, 2.929), sizing.band_text(5.14, 5.14), sizing.band_text(5.14, 5.14, 2, " ")) == (
        "−0.7/+2.9", "±5.1", "± 5.14")


H200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")


@pytest.mark.parametrize("util, over, verdict", [
    (0.92, 2.823, "refuses"),  # kubernetes.recipes' one-H200 request (plan case k8srecipes-llama31-70b-h200-tp1)
    (0.935, 0.725, "refuses"),  # inside the old symmetric 2.93 GiB, beyond the low side's 0.71
    (0.937, 0.446, "may-refuse"),  # inside the low side: were they 0.71 GiB lighter they would fit
])
def test_weights_over_the_budget_by_more_than_their_low_side_refuse(util, over, verdict):
    s = sizing.size_deployment(find_model("meta-llama/Llama-3.1-70B-Instruct"), H200,
                               sizing.EngineSettings(gpu_memory_utilization=util, max_model_len=8192), "0.11.0")
    assert round(s.weights_gib_per_gpu - s.usable_gib_per_gpu, 3) == over
    assert (round(s.weights_error_below_gib, 3), round(s.weights_error_gib, 3)) == (0.707, 2.929)
    # the weights alone surely leave no KV cache: the KV verdict says so too, whatever the KV band's floor (5.2 GiB)
    assert (s.weights_fit_band, s.kv_verdict, s.verdict, s.starts) == (verdict, verdict, verdict, False)


def test_the_kv_band_takes_the_weights_low_side_above_the_estimate():
    # Qwen2.5-7B in fp16 on one V100 (0.8.5, V0) at 64 sequences: 14.19 GiB of weights, 1.03 GiB of forward pass (the
    # sort over 64 rows, 0.52 GiB, stays below it). Below: 2 % of the weights + 35 % of the activations + 0.15 + 0.3
    # non-torch = 1.09 GiB; above, the weights' 0.5 %: 0.88 GiB
    v100 = sizing.Device("V100-16GB", 15.78, "nvidia", "volta")
    s = sizing.size_deployment(find_model("Qwen/Qwen2.5-7B-Instruct"), v100,
                               sizing.EngineSettings(dtype="float16", max_model_len=8192, max_num_seqs=64), "0.8.5")
    assert (round(s.activation_gib_per_gpu, 4), round(s.sampler_gib_per_gpu, 4)) == (1.0312, 0.5178)
    rest = s.activation_gib_per_gpu * 0.35 + 0.15 + 0.3
    assert s.error_band_gib == pytest.approx(s.weights_gib_per_gpu * 0.02 + rest)
    assert s.error_band_above_gib == pytest.approx(s.weights_gib_per_gpu * 0.005 + rest)
    assert (round(s.error_band_gib, 2), round(s.error_band_above_gib, 2), s.kv_band_text) == (1.09, 0.88, "−1.1/+0.9")
    # a quantised checkpoint keeps the weights' 2 % on both sides
    fp8 = sizing.size_deployment(find_model("Qwen/Qwen2.5-7B-Instruct"), v100,
                                 sizing.EngineSettings(quantization="fp8", max_model_len=8192, max_num_seqs=64),
                                 "0.8.5")
    assert fp8.error_band_above_gib == fp8.error_band_gib


def test_where_pytorchs_sort_decides_the_peak_the_band_holds_its_measured_error_not_the_activations():
    # The sort's bytes a logit are measured (38.0 - 38.2 on an H200, torch 2.11; the twelve one-GPU sort-only logs of
    # 1,024 rows imply 37.9 - 38.7 against the 38.2 charged): where it is the profile's peak the band holds 3 % of it
    # (Estimates.sort_error), or the forward pass with its 35 % where that would pass the sort, not 35 % of the sort.
    # Qwen2.5-7B in fp16 on one V100 (0.8.5, V0) at 256 sequences: the sort over 256 rows (1.44 GiB) is the peak, the
    # forward pass 1.03 (x 1.35 = 1.39, below it). Below: 2 % of 14.19 GiB + 3 % of 1.44 + 0.15 + 0.3 = 0.78 GiB (1.24
    # with 35 % of the sort); above: the weights' 0.5 % gives 0.56, under the 0.6 GiB floor.
    v100 = sizing.Device("V100-16GB", 15.78, "nvidia", "volta")
    s = sizing.size_deployment(find_model("Qwen/Qwen2.5-7B-Instruct"), v100,
                               sizing.EngineSettings(dtype="float16", max_model_len=8192), "0.8.5")
    assert round(s.sampler_gib_per_gpu, 4) == round(s.activation_gib_per_gpu, 4) == 1.4396
    assert s.error_band_gib == pytest.approx(s.weights_gib_per_gpu * 0.02 + s.sampler_gib_per_gpu * 0.03 + 0.15 + 0.3)
    assert (round(s.error_band_gib, 2), s.error_band_above_gib, s.kv_band_text) == (0.78, 0.6, "−0.8/+0.6")
    assert (round(s.available_kv_gib, 2), s.verdict) == (-1.68, "refuses")
    # Llama-4-Scout at TP4 on H100 (0.12.0, the recipe's four GPUs, 131,072 tokens): the sort over 1,024 rows of 202,048
    # logits (7.44 GiB) decides the peak. 35 % of it made a 4.20 GiB band, a "may refuse" at 10.15 GiB of cache against
    # the 6.0 one request needs; the band is now the floor, 4 % of the 71.27 GiB usable
    h100 = sizing.Device("H100", 79.19, "nvidia", "hopper", 8)
    scout = sizing.size_deployment(find_model("meta-llama/Llama-4-Scout-17B-16E-Instruct"), h100,
                                   sizing.EngineSettings(tp=4, max_model_len=131072), "0.12.0")
    assert (round(scout.sampler_gib_per_gpu, 2), scout.max_num_seqs) == (7.44, 1024)
    assert scout.error_band_gib == pytest.approx(0.04 * scout.usable_gib_per_gpu)
    assert (round(scout.error_band_gib, 2), scout.needed_kv_gib, scout.verdict) == (2.85, 6.0, "starts")
    # FlashInfer's sampler (not measured) keeps the activations' 35 %: Qwen2.5-7B on one L4 at 0.10.1.1, the official
    # image (0.59 GiB at 16 B a logit over 256 rows) against a pip install (PyTorch's sort, 1.40 GiB): 0.94 and 0.79 GiB
    # (the floor, 4 % of 19.83 GiB usable; 35 % of the sort made it 1.22)
    l4 = sizing.Device("L4", 22.03, "nvidia", "ada", 1)
    qwen = find_model("Qwen/Qwen2.5-7B-Instruct")
    fi = sizing.size_deployment(qwen, l4, sizing.EngineSettings(max_model_len=8192), "0.10.1.1")
    pip = sizing.size_deployment(qwen, l4, sizing.EngineSettings(max_model_len=8192, pip_install=True), "0.10.1.1")
    assert (round(fi.sampler_gib_per_gpu, 2), round(pip.sampler_gib_per_gpu, 2)) == (0.59, 1.40)
    assert fi.error_band_gib == pytest.approx(fi.weights_gib_per_gpu * 0.02 + fi.activation_gib_per_gpu * 0.35 + 0.45)
    assert (round(fi.error_band_gib, 2), round(pip.error_band_gib, 2)) == (0.94, 0.79)
    assert pip.error_band_gib == pytest.approx(0.04 * pip.usable_gib_per_gpu)


def test_expected_context_and_block_rounding():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=4, max_model_len=8192, max_num_seqs=10, expected_context=1000,
                            vllm_version="0.11.0")
    assert s.expected_context == 1000
    assert s.load_tokens == 10 * 1008  # 63 blocks of 16
    assert s.concurrency_at_expected_context == s.kv_cache_tokens // 1008
    assert s.context_kv_gib == pytest.approx(1008 * 81920 / GIB)


def test_weights_override_and_fp8_kv():
    s = sizing.size_replica(LLAMA70, H100_GIB, tp=2, weights_gib=40.0, kv_cache_dtype="fp8", max_model_len=4096)
    assert s.weights_gib_per_gpu == 20.0
    assert s.kv_bytes_per_token_per_gpu == 2 * 80 * 4 * 128 * 1


def test_quantization_flag_wins_over_checkpoint_precision():
    assert sizing.weight_precision(LLAMA70, "auto", "awq") == "int4"
    assert sizing.weight_precision(LLAMA70, "float16", None) == "fp16"
    assert sizing.weight_precision(DEEPSEEK, "auto", None) == "fp8"


def test_min_gpus_is_the_seed_formula():
    assert sizing.min_gpus(LLAMA70, 80, "bf16") == sizing.gpus_needed(70_553_706_496 * 2 / 1e9, 80)
    assert sizing.min_gpus(LLAMA70, 80, "bf16")["tensor_parallel_size"] == 4
    assert sizing.min_gpus(LLAMA70, 80, "int4")["tensor_parallel_size"] == 1


def test_bad_parallel_sizes_raise():
    with pytest.raises(ValueError):
        sizing.size_replica(LLAMA70, H100_GIB, tp=0)


@given(tp=st.sampled_from([1, 2, 4, 8]), seqs=st.integers(1, 512), mml=st.integers(256, 131072))
def test_more_memory_never_lowers_capacity(tp, seqs, mml):
    a = sizing.size_replica(LLAMA70, 79.19, tp=tp, max_model_len=mml, max_num_seqs=seqs, vllm_version="0.11.0")
    b = sizing.size_replica(LLAMA70, 139.8, tp=tp, max_model_len=mml, max_num_seqs=seqs, vllm_version="0.11.0")
    assert b.kv_cache_tokens >= a.kv_cache_tokens
    assert a.kv_cache_tokens % 16 == 0  # whole blocks up to 0.19


@given(tp=st.sampled_from([1, 2, 4]), util=st.floats(0.5, 0.95))
def test_more_tp_means_fewer_weights_per_gpu(tp, util):
    a = sizing.size_replica(LLAMA70, 79.19, tp=tp, gpu_memory_utilization=util, max_model_len=4096)
    b = sizing.size_replica(LLAMA70, 79.19, tp=tp * 2, gpu_memory_utilization=util, max_model_len=4096)
    rotary = sizing.rotary_cache_bytes(LLAMA70) / GIB  # every GPU keeps the whole rotary cache
    assert b.weights_gib_per_gpu - rotary == pytest.approx((a.weights_gib_per_gpu - rotary) / 2)
    assert b.kv_cache_tokens >= a.kv_cache_tokens


@given(seq=st.integers(1, 200_000))
def test_units_kv_gb_vs_gib(seq):
    gb = sizing.per_request_kv_gb(80, 8, 128, seq)
    gib = sizing.kv_per_req_gib(80, 8, 128, seq)
    assert math.isclose(gb * 1e9, gib * GIB)


def test_the_docs_example_is_what_plan_prints():

    doc = (ROOT / "docs" / "capacity-model.md").read_text(encoding="utf-8")
    h100 = sizing.Device("H100-SXM-80GB", 79.19, "nvidia", "hopper")  # the catalog's H100, as plan uses it
    s = sizing.size_deployment(LLAMA70, h100, sizing.EngineSettings(tp=4, max_model_len=8192, max_num_seqs=64),
                               "0.11.0")
    example = " ".join(doc.split("## An example, as `plan` prints it", 1)[1].split("##", 1)[0].split())
    for figure in (f"{s.weights_gib_per_gpu:.2f} GiB of weights", f"{s.activation_gib_per_gpu:.2f} GiB of activations",
                   f"{s.non_torch_gib_per_gpu:.2f} GiB of non-torch", f"**{s.available_kv_gib:.2f} GiB** of KV",
                   f"± {s.error_band_gib:.2f}", f"**{s.kv_cache_tokens:,} tokens**", f"{s.max_concurrency:.2f} requests"):
        assert figure in example, figure


def test_kv_cache_memory_bytes_replaces_the_budget_from_0_10_2():
    # gpu_worker.py 0.10.2 and 0.11.0: with kv_cache_memory_bytes set, determine_available_memory returns it as given
    given = sizing.EngineSettings(tp=4, max_model_len=8192, max_num_seqs=64, kv_cache_memory_bytes=20 * GIB)
    h100 = sizing.Device("H100-SXM-80GB", H100_GIB, "nvidia", "hopper")
    s = sizing.size_deployment(LLAMA70, h100, given, "0.11.0")
    assert (s.available_kv_gib, s.error_band_gib, s.verdict) == (20.0, 0.0, "starts")
    assert s.kv_cache_tokens == 20 * GIB // (16 * 81920) * 16
    too_small = dataclasses.replace(given, kv_cache_memory_bytes=GIB // 2)  # 8,192 tokens need 0.625 GiB
    assert sizing.size_deployment(LLAMA70, h100, too_small, "0.11.0").verdict == "refuses"
    assert (sizing.size_deployment(LLAMA70, h100, given, "0.10.2").available_kv_gib,
            sizing.size_deployment(LLAMA70, h100, given, "0.10.2").error_band_gib) == (20.0, 0.0)
    # 0.10.1.1 has no such flag (behaviour table): the budget is estimated as usual
    assert sizing.size_deployment(LLAMA70, h100, given, "0.10.1.1").available_kv_gib != 20.0


# --------------------------------------------------------------------------------------------------
# Start-up as each release behaves (defaults, batch clamps, the margin outside the budget)
# --------------------------------------------------------------------------------------------------

def _h100(model_id: str, release: str, **kw) -> sizing.ReplicaSizing:
    from shardwise.rules.catalog import find_gpu

    return sizing.size_replica(find_model(model_id), 0, gpu=find_gpu("H100"), vllm_version=release, **kw)


def test_the_default_utilization_follows_the_release():
    assert _h100("meta-llama/Llama-3.1-8B-Instruct", "0.19.1", max_model_len=8192).gpu_memory_utilization == 0.9
    s = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.20.0", max_model_len=8192)
    assert (s.gpu_memory_utilization, s.usable_gib_per_gpu) == (0.92, pytest.approx(79.19 * 0.92))


def test_v1_batch_defaults_by_release():
    # chunked prefill off: V1 ignores it before 0.12, from 0.12 profiles max(max_model_len, 8192) tokens
    off = {v: _h100("meta-llama/Llama-3.1-8B-Instruct", v, max_model_len=32768, enable_chunked_prefill=False)
           for v in ("0.11.0", "0.14.1")}
    assert [(s.max_num_batched_tokens, s.max_num_seqs) for s in off.values()] == [(8192, 1024), (32768, 1024)]
    # an explicit token budget below the default batch: 0.9.2 keeps 1,024 sequences and refuses; 0.10+ clamps
    old = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.9.2", max_model_len=8192, max_num_batched_tokens=512)
    assert (old.max_num_seqs, old.certain, old.verdict, old.refusal) == (
        1024, True, "refuses", "max_num_batched_tokens (512) must be greater than or equal to max_num_seqs (1024) "
                               "(vLLM's scheduler configuration)")
    new = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.14.1", max_model_len=8192, max_num_batched_tokens=512)
    assert (new.max_num_seqs, new.certain) == (512, False)


@pytest.mark.parametrize(("release", "gpu", "batched", "seqs"), [
    # Gemma-4-26B-A4B is a prefix-LM model (use_bidirectional_attention "vision"): from 0.22 a default budget below
    # its largest item, a 2,496-token video (32 frames of 70 + 2 + 6 tokens), is raised to it; 0.21 keeps 2,048
    ("0.21.0", "L40S", 2048, 256),
    ("0.22.0", "L40S", 2496, 256),
    ("0.25.1", "H100", 8192, 1024),
])
def test_gemma4_token_budget_holds_a_video_item(release, gpu, batched, seqs):
    from shardwise.rules.catalog import find_gpu

    s = sizing.size_replica(find_model("google/gemma-4-26B-A4B-it"), 0, gpu=find_gpu(gpu), vllm_version=release,
                            max_model_len=32768)
    assert (s.max_num_batched_tokens, s.max_num_seqs) == (batched, seqs)


def _gemma(model: str, release: str, gpu: str = "L40S", **kw) -> sizing.ReplicaSizing:
    from shardwise.rules.catalog import find_gpu

    device = sizing.Device.of(find_gpu(gpu), 0)
    return sizing.size_deployment(find_model(model), device, sizing.EngineSettings(tp=2, max_model_len=32768, **kw),
                                  release)


_CHUNK_OFF = ("Chunked MM input disabled but max_tokens_per_mm_item ({item}) is larger than max_num_batched_tokens "
              "({batched}) (vLLM forces chunked multimodal input off for a prefix-LM model; set "
              "--max-num-batched-tokens to at least the item)")


def test_gemma4_refuses_a_budget_below_its_video_item():
    # 0.20 - 0.21 force chunked multimodal input off for Gemma 4's 26B-A4B on CUDA and keep the L40S's 2,048-token
    # default: compute_mm_encoder_budget raises (vllm-project/recipes#441 logs the same 2496 > 2048)
    for release in ("0.20.0", "0.21.0"):
        s = _gemma("google/gemma-4-26B-A4B-it", release)
        assert (s.verdict, s.certain, s.refusal) == ("refuses", True, _CHUNK_OFF.format(item=2496, batched=2048))
    # a budget that holds the video, or no video (--limit-mm-per-prompt video=0 leaves the 280-token image)
    assert _gemma("google/gemma-4-26B-A4B-it", "0.21.0", max_num_batched_tokens=4096).refusal == ""
    assert _gemma("google/gemma-4-26B-A4B-it", "0.21.0", mm_limits=(("video", 0),)).refusal == ""
    # 0.22 raises the default to the item; an explicit budget below it still refuses
    assert _gemma("google/gemma-4-26B-A4B-it", "0.22.0").refusal == ""
    assert _gemma("google/gemma-4-26B-A4B-it", "0.22.0", max_num_batched_tokens=2048).refusal == _CHUNK_OFF.format(
        item=2496, batched=2048)
    # 0.19.0 does not treat Gemma 4 as prefix-LM; Gemma 3's 256-token image fits; the E4B is no prefix-LM
    assert _gemma("google/gemma-4-26B-A4B-it", "0.19.0").refusal == ""
    assert _gemma("google/gemma-3-27b-it", "0.21.0").refusal == ""
    assert _gemma("google/gemma-4-E4B-it", "0.21.0").refusal == ""
    assert _gemma("google/gemma-4-31B-it", "0.21.0").refusal == _CHUNK_OFF.format(item=2496, batched=2048)


def test_prefix_lm_item_tokens_by_model():
    # the 26B-A4B and 31B set use_bidirectional_attention "vision" (transformers' convert_gemma4_weights.py
    # _VARIANTS); E2B/E4B leave it None, Gemma 3's items (256 tokens) are below every default budget
    tokens = [sizing.mm_prefix_lm_tokens(find_model(m)) for m in (
        "google/gemma-4-26B-A4B-it", "google/gemma-4-31B-it", "google/gemma-4-E4B-it", "google/gemma-3-27b-it")]
    assert tokens == [2496, 2496, 0, 0]


def test_communication_buffers_count_at_tp2_from_0_19():
    before = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.17.0", tp=2, max_model_len=8192)
    after = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.19.1", tp=2, max_model_len=8192)
    one = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.19.1", max_model_len=8192)
    # 0.17: 0.22 and PyTorch's TP communicator's rings (0.28 GiB on NVSwitch Hopper), inside 0.19's calibrated 2.0
    assert (before.non_torch_gib_per_gpu, after.non_torch_gib_per_gpu, one.non_torch_gib_per_gpu) == (
        pytest.approx(0.22 + 288 / 1024), pytest.approx(2.22), pytest.approx(0.12))


def test_one_gpu_v1_measures_the_same_non_torch_memory_before_and_after_0_11():
    # 0.9 - 0.10 snapshot before the distributed set-up, 0.11 after it; a one-GPU group builds no communicator, so
    # V1 charges one GPU the same 0.12 GiB either side (V0, 0.7.3 here, keeps its own 0.25); on two GPUs 0.10's snapshot still
    # sees NCCL's communicators set up (0.25 + 0.15, and on NVSwitch H100s the ring channels of the tp, ep and torch
    # tp communicators, every channel connected at init: 3 x 24 x 12 MiB = 0.84 GiB, nccl46) where 0.11's does not
    # (0.12 + 0.10, and PyTorch's tp communicator created by the profile's logits all-gather: its 24 rings, 0.28 GiB)
    def nontorch(release: str, tp: int = 1, **kw) -> float:
        return round(_h100("meta-llama/Llama-3.1-8B-Instruct", release, tp=tp, max_model_len=8192,
                           **kw).non_torch_gib_per_gpu, 6)

    assert [nontorch("0.9.2"), nontorch("0.10.1.1"), nontorch("0.11.0"), nontorch("0.7.3")] == [
        0.12, 0.12, 0.12, 0.25]
    assert [nontorch("0.10.1.1", tp=2), nontorch("0.11.0", tp=2)] == [0.4 + 864 / 1024, 0.22 + 288 / 1024]


def test_cuda_graph_captures_by_release_and_model():
    from shardwise.rules.vllm.versions import behaviour

    def counted(model_id, release, seqs=1024, batched=8192):
        sizes, full = sizing.cudagraph_captures(find_model(model_id), behaviour(release), seqs, batched)
        return len(sizes), sum(sizes), len(full), max(sizes)

    llama, oss = "meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-20b"
    # 0.9: 1, 2, 4, 8 ... 512 whatever the batch; piecewise only
    assert counted(llama, "0.9.2", seqs=256) == (67, 16647, 0, 512)
    # 0.10: up to min(2 × max_num_seqs, 512); gpt-oss raises it to 1,024 in steps of 16 from 256
    # (GptOssForCausalLMConfig; the 83 sizes dennislee22/vLLM-benchmarking's gpt-oss-120b log lists)
    assert counted(llama, "0.10.1.1", seqs=128) == (35, 4231, 0, 256)
    assert counted(oss, "0.10.1.1") == (83, 35335, 0, 1024)
    # 0.11: FULL_AND_PIECEWISE captures the decode sizes (up to max_num_seqs) a second time; gpt-oss up to 992
    assert counted(llama, "0.11.0") == (67, 16647, 67, 512)
    assert counted(oss, "0.11.0") == (81, 33303, 81, 992)
    # 0.12: steps of 16 from 256; gpt-oss 1,024 again; never above max_num_batched_tokens
    assert counted(llama, "0.14.1") == (51, 10503, 51, 512)
    assert counted(llama, "0.14.1", seqs=256, batched=2048) == (51, 10503, 35, 512)
    assert counted(oss, "0.14.1") == (83, 35335, 83, 1024)
    assert counted(oss, "0.14.1", batched=512) == (51, 10503, 51, 512)


def test_at_0_95_on_one_h100_gpt_oss_20b_fails_after_sizing_and_llama_qwen_gemma_start():
    # The profile run already sampled 1,024 rows and the budget reserved that peak; memory_profiling gives it back
    # before the KV cache is allocated, so the warm-up after sizing reuses it. What the profile did not see has to
    # fit the 3.96 GiB outside the budget: the context, the allocator's slack and the CUDA graphs, which gpt-oss
    # captures up to 1,024 tokens (992 on 0.11, twice from 0.11: piecewise and full) where others stop at 512.
    oss11 = _h100("openai/gpt-oss-20b", "0.11.0", gpu_memory_utilization=0.95)
    assert (oss11.starts, oss11.verdict, oss11.kv_verdict, oss11.margin_verdict) == (False, "starts", "starts",
                                                                                     "may-refuse")
    # 33,303 piecewise tokens × 10 (MoE) + 33,303 full-graph tokens × 10.5 (MoE), × 2,880 × 2 B; the slack is the
    # 27 MiB measured over the sampler's sequence from an empty cache (benchmarks/gpu/torch_terms-h200-torch2.11.json)
    assert round(oss11.cudagraph_gib_per_gpu, 2) == 3.66
    assert oss11.refusal == (
        "the 3.96 GiB outside the KV budget (1 − 0.95) must hold 4.14 GiB: the CUDA context 0.50 GiB, allocator "
        "slack 0.03 GiB, CUDA graphs captured after sizing 3.66 GiB and the sampler warm-up over 1,024 × 201,088 "
        "tokens 3.07 GiB less the 3.11 GiB the profile run reserved: 3.62 GiB (vLLM: CUDA out of memory occurred "
        "when warming up sampler with 1024 dummy requests)")
    # from 0.14 a warm-up forward runs before the capture and the graphs reuse its cached blocks: 1.14 GiB of graphs
    # (3 B per token), as vLLM's own "CUDAGraph memory" for gpt-oss on one H100 (0.39 GiB for 20b, 1.03 for 120b,
    # which started at 0.95: tests/capacity/data/startup_logs.json)
    oss14 = _h100("openai/gpt-oss-20b", "0.14.1", gpu_memory_utilization=0.95)
    assert (oss14.starts, oss14.verdict, oss14.margin_verdict, round(oss14.margin_need_gib, 2)) == (
        True, "starts", "starts", 1.62)  # 0.50 + 0.026 + 1.14 of graphs + 7.48 of warm-up − 7.52 reserved
    # 0.20 estimates the graphs inside the budget: only the context and the slack are left outside
    later = _h100("openai/gpt-oss-20b", "0.20.0", gpu_memory_utilization=0.95)
    assert (later.starts, later.margin_verdict, round(later.margin_need_gib, 2)) == (True, "starts", 0.53)
    assert _h100("openai/gpt-oss-20b", "0.14.1").margin_verdict == "starts"  # 7.92 GiB at the default 0.9
    # the same check lets the dense models start at 0.95, where charging the whole warm-up refused them
    started = {(m, r): _h100(m, r, gpu_memory_utilization=0.95) for m, r in (
        ("meta-llama/Llama-3.1-8B-Instruct", "0.14.1"), ("meta-llama/Llama-3.1-8B-Instruct", "0.11.0"),
        ("Qwen/Qwen2.5-7B-Instruct", "0.14.1"), ("google/gemma-3-12b-it", "0.11.0"))}
    assert {k: (s.starts, round(s.margin_need_gib, 2)) for k, s in started.items()} == {
        ("meta-llama/Llama-3.1-8B-Instruct", "0.14.1"): (True, 0.62),
        ("meta-llama/Llama-3.1-8B-Instruct", "0.11.0"): (True, 2.24),
        ("Qwen/Qwen2.5-7B-Instruct", "0.14.1"): (True, 0.61),
        # the vision encoder's profile peak (above the sampler's) leaves room the graphs reuse
        ("google/gemma-3-12b-it", "0.11.0"): (True, 0.53),
    }


def test_no_graph_term_separates_llm_d_787_from_dynamos_tp2_prefill_worker_at_0_11_0():
    # Both are TP2 on H100 at 0.95 with 1,024 sequences on 0.11.0 (docs/capacity-model.md, margin16). llm-d#787's
    # Qwen3-32B ran out of memory warming the sampler up; Dynamo's Llama-3.3-70B-FP8 prefill worker is taken to start.
    # Outside the graphs the two need 0.70 and 0.65 GiB of the 3.96, and the 70B captures more graphs, each of a
    # larger hidden size: any graph term that refuses the first refuses the second.
    from shardwise.rules.vllm.versions import behaviour

    qwen = _h100("Qwen/Qwen3-32B", "0.11.0", tp=2, gpu_memory_utilization=0.95)
    llama = _h100("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "0.11.0", tp=2, gpu_memory_utilization=0.95)
    assert [(round(s.cudagraph_gib_per_gpu, 2), round(s.margin_need_gib, 2), s.margin_verdict, s.starts)
            for s in (qwen, llama)] == [(2.22, 2.92, "may-refuse", True), (3.56, 4.21, "may-refuse", False)]
    assert [round(s.margin_need_gib - s.cudagraph_gib_per_gpu, 2) for s in (qwen, llama)] == [0.70, 0.65]
    graphs = []
    for model_id in ("Qwen/Qwen3-32B", "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"):
        m = find_model(model_id)
        sizes, full = sizing.cudagraph_captures(m, behaviour("0.11.0"), 1024, 8192)
        graphs.append((len(sizes) * (m.num_hidden_layers + 1) + len(full), m.hidden_size))
    assert graphs == [(4422, 5120), (5494, 8192)]


def test_too_little_free_memory_at_the_first_snapshot_is_refused():
    # 4 × H100 at 0.998: the CUDA context (0.50) and NCCL's communicators (0.25) leave 78.44 GiB free
    s = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.20.0", tp=4, gpu_memory_utilization=0.998, max_model_len=8192,
              enforce_eager=True, max_num_seqs=8)
    assert (s.starts, s.verdict, s.kv_verdict) == (False, "refuses", "starts")
    assert s.refusal == (
        "about 78.44 of 79.19 GiB is free when vLLM takes its first snapshot (after the CUDA context and NCCL: "
        "0.75 GiB), less than gpu_memory_utilization 0.998 × 79.19 = 79.03 GiB (vLLM: Free memory on device ... on "
        "startup is less than desired GPU memory utilization)")
    # at 0.99 the snapshot passes (0.79 GiB margin) but the graphs and the warm-up do not fit after sizing
    late = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.11.0", tp=2, gpu_memory_utilization=0.99, max_model_len=8192)
    assert late.refusal == (
        "the 0.79 GiB outside the KV budget (1 − 0.99) must hold 2.49 GiB: the CUDA context and NCCL 0.75 GiB, "
        "allocator slack 0.03 GiB, CUDA graphs captured after sizing 1.78 GiB and the sampler warm-up over 1,024 × "
        "128,256 tokens 1.96 GiB less the 2.02 GiB the profile run reserved: 1.72 GiB (vLLM: CUDA out of memory "
        "occurred when warming up sampler with 1024 dummy requests)")  # at TP2 the graphs are TP1's (no split)
    # V0 has neither check
    assert _h100("meta-llama/Llama-3.1-8B-Instruct", "0.6.6", tp=2, gpu_memory_utilization=0.99,
                 max_model_len=8192).margin_verdict == "starts"


# MXFP4 (gpt-oss): 16-bit attention and embeddings, experts padded by the kernel vLLM picks per GPU
# --------------------------------------------------------------------------------------------------

H100 = sizing.Device("H100-SXM-80GB", H100_GIB, "nvidia", "hopper")
A100 = sizing.Device("A100-80GB", 79.25, "nvidia", "ampere")
B200 = sizing.Device("B200", 178.36, "nvidia", "blackwell", compute_capability=(10, 0))
RTX5090 = sizing.Device("RTX-5090", 31.36, "nvidia", "blackwell", compute_capability=(12, 0))
MI300X = sizing.Device("MI300X", 191.98, "amd", "cdna3")
MI355X = sizing.Device("MI355X", 287.98, "amd", "cdna4")


def _oss(model_id: str):
    from shardwise.rules.catalog import find_model

    return find_model(model_id)


def test_vllm_quantises_only_the_experts_of_an_mxfp4_checkpoint():
    oss = _oss("openai/gpt-oss-20b")
    experts = 24 * 32 * 3 * 2880 * 2880  # 24 MoE layers × 32 experts × (w13 2I×H + w2 H×I)
    assert sizing.expert_params(oss) == experts == 19_110_297_600
    # everything else (embeddings, LM head, attention, router, norms, expert biases) stays bf16
    assert sizing.weights_bytes(oss, "mxfp4") == (20_914_757_184 - experts) * 2 + experts * (0.5 + 1 / 32)
    assert round(sizing.weights_bytes(oss, "mxfp4") / GIB, 3) == 12.816
    big = _oss("openai/gpt-oss-120b")
    assert sizing.expert_params(big) == 36 * 128 * 3 * 2880 * 2880  # not cut short by the 3 % cap


def test_the_mxfp4_backend_follows_the_gpu():
    assert [sizing.mxfp4_backend(d).name for d in (H100, A100, B200, RTX5090, MI300X, MI355X)] == [  # type: ignore[union-attr]
        "Triton (SM90)", "Marlin", "FlashInfer TRTLLM (SM100)", "Marlin", "Triton (ROCm)", "Triton (ROCm gfx950)"]
    assert sizing.mxfp4_backend(sizing.Device("T4", 14.58, "nvidia", "turing")) is None


def test_mxfp4_expert_bytes_per_layer_by_backend():
    oss = _oss("openai/gpt-oss-20b")
    # Marlin: intermediate 2880 -> 2944 (128), hidden 2880 -> 3072 (256); values, e8m0 scales, bf16 biases
    marlin = sizing.MXFP4_BACKENDS["marlin"]
    assert sizing.mxfp4_expert_bytes(oss, 1, 1, marlin) == 32 * (
        3 * 2944 * 3072 / 2 + 3 * 2944 * 3072 / 32 + (2 * 2944 + 3072) * 2)
    # Triton on Hopper: no padding at 2880 (a multiple of 64), a second copy of the scales with rows
    # padded to 256 (w13: 5760 -> 5888, w2: 2880 -> 3072), fp32 biases
    triton = sizing.MXFP4_BACKENDS["triton"]
    assert sizing.mxfp4_expert_bytes(oss, 1, 1, triton) == 32 * (
        3 * 2880 * 2880 / 2 + 3 * 2880 * 2880 / 32 + 5888 * 90 + 3072 * 90 + (2 * 2880 + 2880) * 4)
    # 0.25+: the Triton path frees the scales as loaded once swizzled; only the padded copy stays
    freed = sizing.mxfp4_backend(H100, True, scales_freed=True)
    assert freed is not None and not freed.loaded_scales and freed.name == "Triton (SM90)"
    assert sizing.mxfp4_expert_bytes(oss, 1, 1, freed) == 32 * (
        3 * 2880 * 2880 / 2 + 5888 * 90 + 3072 * 90 + (2 * 2880 + 2880) * 4)
    assert sizing.mxfp4_backend(A100, True, scales_freed=True) == marlin  # Marlin keeps its own layout
    # TP4: 720 columns per rank -> 768 on every backend; with EP over 4 ranks: 8 whole experts each
    assert sizing.mxfp4_expert_bytes(oss, 4, 1, marlin) == 32 * (
        3 * 768 * 3072 / 2 + 3 * 768 * 3072 / 32 + (2 * 768 + 3072) * 2)
    assert sizing.mxfp4_expert_bytes(oss, 1, 4, marlin) == 8 * (
        3 * 2944 * 3072 / 2 + 3 * 2944 * 3072 / 32 + (2 * 2944 + 3072) * 2)


@pytest.mark.parametrize(("model_id", "device", "tp", "expected"), [
    # "Model loading took 13.72 GiB" on A100 (Marlin, myoceane.fr A100 log; 13.7164 GiB in a KServe log)
    ("openai/gpt-oss-20b", A100, 1, 13.687),
    # 13.47-13.64 GiB on H100 in public logs (Triton)
    ("openai/gpt-oss-20b", H100, 1, 13.421),
    ("openai/gpt-oss-20b", B200, 1, 14.149),
    ("openai/gpt-oss-20b", H100, 2, 6.838),
    # vllm#33155, vLLM 0.14.1 on one H100, "Using Triton backend": "Model loading took 64.38 GiB"
    ("openai/gpt-oss-120b", H100, 1, 64.318),
    ("openai/gpt-oss-120b", H100, 4, 17.12),
    ("openai/gpt-oss-120b", A100, 1, 65.913),
    ("openai/gpt-oss-120b", MI300X, 1, 63.41),
])
def test_gpt_oss_weights_per_gpu_as_vllm_loads_them(model_id, device, tp, expected):
    # 0.14.1: the wheel and the image carry OpenAI's Triton kernels, so Hopper runs Triton (0.10-0.11: Marlin, below)
    s = sizing.size_deployment(_oss(model_id), device, sizing.EngineSettings(tp=tp, max_model_len=8192), "0.14.1")
    assert round(s.weights_gib_per_gpu, 3) == expected


def test_gpt_oss_on_hopper_from_0_25_keeps_one_copy_of_the_scales():
    # 0.25.0 deletes the loaded w13/w2 scales after the swizzle (fused_moe/oracle/mxfp4.py), 0.24.0 keeps them;
    # gpt-oss-120b at 0.27.1 on one H100: 61.1 GiB of weights (aihpi/litellm-k8s deployment comment)
    for release, expected in (("0.24.0", (64.318, 13.421, 17.12)), ("0.25.0", (60.981, 12.865, 16.23)),
                              ("0.27.1", (60.981, 12.865, 16.23))):
        got = tuple(round(sizing.size_deployment(_oss(m), H100, sizing.EngineSettings(tp=tp, max_model_len=8192),
                                                 release).weights_gib_per_gpu, 3)
                    for m, tp in (("openai/gpt-oss-120b", 1), ("openai/gpt-oss-20b", 1), ("openai/gpt-oss-120b", 4)))
        assert got == expected, release


def test_gpt_oss_on_hopper_in_0_11_is_laid_out_for_marlin():
    # no triton_kernels in 0.11.0's wheel or image: an H100 pads as the A100 does (Marlin), at every TP
    for model_id, tp, expected in (("openai/gpt-oss-20b", 1, 13.687), ("openai/gpt-oss-120b", 1, 65.913),
                                   ("openai/gpt-oss-120b", 4, 17.183)):
        s = sizing.size_deployment(_oss(model_id), H100, sizing.EngineSettings(tp=tp, max_model_len=8192), "0.11.0")
        assert round(s.weights_gib_per_gpu, 3) == expected, model_id


def test_gpt_oss_weights_match_the_public_logs_within_one_percent():
    for model_id, device, logged in (("openai/gpt-oss-20b", A100, 13.72), ("openai/gpt-oss-20b", H100, 13.47),
                                     ("openai/gpt-oss-120b", H100, 64.38)):
        s = sizing.size_deployment(_oss(model_id), device, sizing.EngineSettings(max_model_len=8192), "0.14.1")
        assert abs(s.weights_gib_per_gpu - logged) <= 0.01 * logged, (model_id, device.name, s.weights_gib_per_gpu)


def test_mla_down_projections_and_router_are_whole_on_every_rank():
    from shardwise.rules.catalog import find_model

    r1 = find_model("deepseek-ai/DeepSeek-R1")
    # 61 layers × 7168 × (q_lora 1536 + kv_lora 512 + rope 64); router 58 MoE layers × 256 experts × 7168
    assert sizing.replicated_params(r1) == (61 * 7168 * 2112, 58 * 256 * 7168)
    v32 = find_model("deepseek-ai/DeepSeek-V3.2")  # + the indexer: wq_b, wk (fp8) and weights_proj (bf16)
    assert sizing.replicated_params(v32) == (61 * (7168 * 2112 + 1536 * 64 * 128 + 7168 * 128),
                                             58 * 256 * 7168 + 61 * 7168 * 64)
    lite = find_model("deepseek-ai/DeepSeek-V2-Lite")  # no query LoRA: q_proj is split by TP
    assert sizing.replicated_params(lite) == (27 * 2048 * 576, 26 * 64 * 2048)
    assert sizing.replicated_params(LLAMA70) == (0, 0)
    h200 = sizing.Device("H200-141GB", 139.8, "nvidia", "hopper")
    tp8 = sizing.size_deployment(r1, h200, sizing.EngineSettings(tp=8, max_model_len=8192), "0.11.0")
    tp1 = sizing.size_deployment(r1, h200, sizing.EngineSettings(tp=1, max_model_len=8192), "0.11.0")
    # at TP8 each rank keeps 7/8 of the fp8 down projections and the bf16 routers it would otherwise shed
    whole = (61 * 7168 * 2112 * 1.0 + 58 * 256 * 7168 * 2.0) / GIB
    assert round(tp8.weights_gib_per_gpu - (tp1.weights_gib_per_gpu - sizing.rotary_cache_bytes(r1) / GIB) / 8
                 - sizing.rotary_cache_bytes(r1) / GIB, 4) == round(whole * 7 / 8, 4)
    # + the 16-bit copy of the FP8 kv_b_proj (61 x 512 x 16 heads x 256 x 2 bytes, 0.24 GiB; 79.28 before it)
    assert round(tp8.weights_gib_per_gpu, 2) == 79.52  # 79.41 GiB per device in HabanaAI/vllm-fork#809 (TP8)


# --------------------------------------------------------------------------------------------------
# Custom all-reduce: its 2.0 GiB from 0.19 only where vLLM runs it
# --------------------------------------------------------------------------------------------------


def test_the_catalog_gpu_gives_the_domain_custom_all_reduce_reads():
    from shardwise.rules.catalog import find_gpu

    assert sizing.Device.of(find_gpu("L4")).nvlink_domain == 1
    assert sizing.Device.of(find_gpu("H100-SXM-80GB")).nvlink_domain == 8
    assert sizing.Device.of(find_gpu("H100-NVL-94GB")).nvlink_domain == 2
    assert sizing.Device.of(find_gpu("H100-SXM-80GB"), interconnect="pcie").nvlink_domain == 1  # the pool's
    assert sizing.Device.of(None, 80.0).nvlink_domain is None


@pytest.mark.parametrize(("domain", "tp", "runs"), [
    (1, 1, False),  # one GPU: no tensor-parallel group
    (1, 2, True),  # a PCIe pair: custom all-reduce runs
    (1, 4, False),  # "not supported on more than two PCIe-only GPUs"
    (2, 4, False),  # NVLink-bridged pairs (H100 NVL) are not fully connected at TP4
    (8, 4, True), (8, 8, True),
    (8, 3, False),  # unsupported world size
    (None, 4, True),  # not known: as if fully connected
])
def test_custom_all_reduce_runs_where_vllm_enables_it(domain, tp, runs):
    assert sizing.custom_all_reduce(sizing.Device("GPU", 44.0, "nvidia", "ada", domain), tp) is runs


@pytest.mark.parametrize(("domain", "tp", "counted"), [
    (1, 2, False),  # a PCIe pair: custom all-reduce runs, its 8 MiB buffer is no 2 GiB (the 0.22.0 2 x T4 log)
    (2, 2, True),  # an NVLink-bridged pair
    (8, 4, True), (8, 8, True),
    (1, 4, False), (8, 3, False), (8, 1, False),  # custom all-reduce does not run
    (None, 2, True), (None, 4, True),  # not known: as if fully connected
])
def test_the_tp_buffers_are_counted_on_nvlink_joined_gpus_where_custom_all_reduce_runs(domain, tp, counted):
    assert sizing.tp_buffers_counted(sizing.Device("GPU", 80.0, "nvidia", "hopper", domain), tp) is counted


@pytest.mark.parametrize(("arch", "counted"), [
    ("hopper", True), ("blackwell", True),
    # below compute capability 9.0 vLLM 0.19+ builds no FlashInfer all-reduce fusion workspace
    # (config/vllm.py enable_allreduce_rms_fusion, 0.19.0): NVSwitch or not, no term
    ("ampere", False), ("ada", False), ("turing", False), ("volta", False),
])
def test_the_tp_buffers_are_counted_only_where_vllm_fuses_the_all_reduce(arch, counted):
    assert sizing.tp_buffers_counted(sizing.Device("GPU", 80.0, "nvidia", arch, 8), 4) is counted


def test_the_0_19_0_a100_pair_counts_no_tp_buffers():
    # kuuroooo/MindSafe logs/vllm_server.log at 0083e2df (set 30): Llama 3.1 70B AWQ at TP2 on two A100-SXM4-40GB of
    # an HGX node, fp16, 8,192 tokens, 0.9, a warm compile cache, vLLM 0.19.0 from pip; the log prints
    # 'fuse_allreduce_rms': False; logged: 18.58 GiB of weights, 15.96 GiB of KV cache, 104,608 tokens (with the 2 GiB
    # term 14.27 GiB and 93,488 tokens, -10.6 %)
    a100 = sizing.Device("A100-SXM4-40GB", 39.49, "nvidia", "ampere", 8)
    settings = sizing.EngineSettings(tp=2, max_model_len=8192, dtype="float16", quantization="awq", pip_install=True,
                                     compile_cache="warm")
    s = sizing.size_deployment(find_model("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"), a100, settings,
                               "0.19.0")
    assert (round(s.non_torch_gib_per_gpu, 6), round(s.available_kv_gib, 4), s.kv_cache_tokens) == (
        0.22, 16.2671, 106608)


def test_the_two_t4_run_of_0_22_0_counts_no_tp_buffers():
    # trietnguyeminh/Submission---EXACT--IJCNN v12-inference.ipynb: Qwen3-8B in fp16 at TP2 on two PCIe T4s, 0.85,
    # 8,192 tokens, eager, Model Runner V2; custom all-reduce runs ("Using ['CUSTOM', 'PYNCCL'] all-reduce
    # backends"); logged: 7.64 GiB of weights, 4.11 GiB of KV cache, 59,856 tokens
    t4 = sizing.Device("T4", 14.58, "nvidia", "turing", 1)
    settings = sizing.EngineSettings(tp=2, max_model_len=8192, gpu_memory_utilization=0.85, dtype="float16",
                                     enforce_eager=True, offline=True, pip_install=True)
    s = sizing.size_deployment(find_model("Qwen/Qwen3-8B"), t4, settings, "0.22.0")
    assert (round(s.non_torch_gib_per_gpu, 6), round(s.available_kv_gib, 4), s.kv_cache_tokens) == (
        0.22, 4.0663, 59216)


def test_the_tp_buffers_are_charged_only_where_custom_all_reduce_runs():
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    l40s = sizing.Device("L40S", 44.52, "nvidia", "ada", 1)
    h100 = sizing.Device("H100-SXM-80GB", H100_GIB, "nvidia", "hopper", 8)

    def nontorch(device, tp=1, pp=1, release="0.19.0"):
        s = sizing.size_deployment(llama, device, sizing.EngineSettings(tp=tp, pp=pp, max_model_len=8192), release)
        return round(s.non_torch_gib_per_gpu, 6)

    # after-distributed: 0.12 on one GPU, + 0.10 on several; + 2.0 where custom all-reduce runs on NVLink
    assert nontorch(l40s, tp=4) == 0.22  # PCIe-only, TP4: disabled
    assert nontorch(l40s, tp=2) == 0.22  # PCIe pair: custom all-reduce runs, the 2.0 GiB is not its (2 x T4, 0.22.0)
    assert nontorch(l40s, pp=2) == 0.22  # pipeline stages of TP1: no all-reduce
    assert nontorch(h100, tp=4) == 2.22  # NVSwitch
    # before 0.19 no calibrated term; PyTorch's TP communicator's rings on NVSwitch Hopper (torch_tp_communicator_gib)
    assert nontorch(h100, tp=4, release="0.18.0") == 0.22 + 288 / 1024


# --------------------------------------------------------------------------------------------------
# The sampler by release and image: FlashInfer where it is installed and used, else PyTorch's own
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("release", "settings", "vendor", "kind"), [
    ("0.10.1", {}, "nvidia", "flashinfer"),  # the official image installs FlashInfer
    ("0.10.1", {"pip_install": True}, "nvidia", "sort"),  # "FlashInfer is not available. Falling back ..."
    ("0.10.1", {"pip_install": True, "flashinfer_installed": True}, "nvidia", "flashinfer"),
    ("0.11.0", {"pip_install": True}, "nvidia", "sort"),  # requirements/cuda.txt has no flashinfer-python yet
    ("0.11.1", {}, "nvidia", "sort"),  # "Users must opt in explicitly via VLLM_USE_FLASHINFER_SAMPLER=1" from 0.11.1
    ("0.11.2", {"flashinfer_sampler": True}, "nvidia", "flashinfer"),
    ("0.12.0", {"pip_install": True, "flashinfer_sampler": True}, "nvidia", "flashinfer"),  # it pins 0.5.3
    ("0.10.1", {"flashinfer_sampler": False}, "nvidia", "sort"),  # VLLM_USE_FLASHINFER_SAMPLER=0
    ("0.14.1", {}, "nvidia", "sort"),  # opt-in only in 0.12-0.20
    ("0.14.1", {"flashinfer_sampler": True}, "nvidia", "flashinfer"),
    ("0.18.0", {}, "nvidia", "triton"),
    ("0.22.0", {}, "nvidia", "flashinfer"),
    ("0.22.0", {"flashinfer_sampler": False}, "nvidia", "triton"),
    ("0.10.1", {}, "amd", "sort"),  # FlashInfer is CUDA-only
])
def test_the_sampler_follows_the_release_and_the_image(release, settings, vendor, kind):
    from shardwise.rules.vllm.versions import behaviour

    assert sizing.sampler_kind(behaviour(release), sizing.EngineSettings(**settings), vendor) == kind


def test_a_pip_install_of_0_10_samples_at_the_sorts_38_2_bytes_per_logit():
    qwen = find_model("Qwen/Qwen2.5-7B-Instruct")
    l4 = sizing.Device("L4", 22.05, "nvidia", "ada", 1)
    image = sizing.size_deployment(qwen, l4, sizing.EngineSettings(max_model_len=8192), "0.10.1")
    pip = sizing.size_deployment(qwen, l4, sizing.EngineSettings(max_model_len=8192, pip_install=True), "0.10.1")
    rows = 256 * 152064  # min(256 seqs, 2048 tokens) × Qwen2.5's vocabulary
    hidden = 2048 * 3584 * 2  # the last forward's hidden states beside it
    assert round(image.sampler_gib_per_gpu * GIB) == rows * 16 + hidden
    assert pip.sampler_gib_per_gpu * GIB == pytest.approx(rows * 38.2 + hidden)


def test_the_manifest_tells_the_sampler_env_and_a_pip_install(tmp_path):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "deploy.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  selector: {matchLabels: {app: qwen}}
  template:
    metadata: {labels: {app: qwen}}
    spec:
      containers:
        - name: vllm
          image: pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime
          command: [sh, -c]
          args: ["pip install vllm==0.10.1.1 && vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192"]
          env:
            - {name: VLLM_USE_FLASHINFER_SAMPLER, value: "0"}
          resources:
            limits: {nvidia.com/gpu: 1}
""")
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.pip_install, s.flashinfer_installed, s.flashinfer_sampler) == (True, None, False)


def test_a_72b_vision_language_model_on_four_a100_40gb_at_0_95_and_4096_tokens():
    # V1 profiles one dummy image of the processor's largest size (16,384 tokens, 65,536 patches) through the
    # vision tower: its activations and the pixel values it keeps (1,176 per patch). The weights hold
    # MRotaryEmbedding's cos/sin cache for 4 × 128,000 positions from 0.7.2 (0.122 GiB, not 0.031): per GPU (34.30
    # here; vllm#16570 logs 34.43 at 0.8.3, where the user's run refused). Before 0.11 the tower is the generic
    # estimate (2.62 GiB, float32 pixels) and the central estimate refuses; from 0.11 it is modelled from its blocks
    # (plan10: 0.11's qkv gather at TP4, 1.51 GiB; 0.12+ the gated MLP, 0.93), and the central estimate starts, inside
    # the error band (no log of 0.11 or later for this layout; it used to read "vLLM 0.11 and 0.14 refuse", uncited)
    vl = find_model("Qwen/Qwen2.5-VL-72B-Instruct")
    a100 = sizing.Device("A100-40GB", 39.38, "nvidia", "ampere", 1)
    settings = sizing.EngineSettings(tp=4, gpu_memory_utilization=0.95, max_model_len=4096)
    got = {v: sizing.size_deployment(vl, a100, settings, v) for v in ("0.9.2", "0.11.0", "0.14.0", "0.20.0")}
    assert {v: (s.starts, round(s.weights_gib_per_gpu, 2), round(s.encoder_gib_per_gpu, 2),
                round(s.available_kv_gib, 2), round(s.needed_kv_gib, 2)) for v, s in got.items()} == {
        "0.9.2": (False, 34.3, 2.62, 0.09, 0.31),  # one 4,096-token request does not fit
        "0.11.0": (True, 34.3, 1.51, 1.38, 0.31),  # NCCL outside the budget from 0.11, the tower from its blocks
        "0.14.0": (True, 34.3, 0.93, 1.08, 0.31),  # the PyTorch sort of 256 rows (1.81 GiB with what is held) peaks
        "0.20.0": (True, 34.3, 0.93, 0.63, 0.31),  # the graphs' estimate (1.27 GiB: 80 layers) leaves the budget
    }
    assert {s.verdict for s in got.values()} == {"may-refuse"}
    assert got["0.9.2"].notes[0] == "vision encoder profiled with 1 image of 16,384 tokens (65,536 patches each)"


def test_the_multimodal_rotary_cache_holds_four_times_the_positions_from_0_7_2():
    # MRotaryEmbedding (rope_scaling with an mrope_section) enlarges its cos/sin cache to 4 × max_position_embeddings
    # from vLLM 0.7.2; 0.7.1 and plain RoPE models keep 1 ×
    vl = find_model("Qwen/Qwen2.5-VL-7B-Instruct")
    text = find_model("Qwen/Qwen2.5-7B-Instruct")
    assert (sizing.mrope(vl), sizing.mrope(text)) == (True, False)
    assert sizing.rotary_cache_bytes(vl, 4) == 4 * 128_000 * 128 * 2
    assert sizing.rotary_cache_bytes(text, 4) == sizing.rotary_cache_bytes(text) == 32_768 * 128 * 2
    l4 = sizing.Device("L4", 22.05, "nvidia", "ada", 1)
    w = {v: sizing.size_deployment(vl, l4, sizing.EngineSettings(max_model_len=8192), v).weights_gib_per_gpu
         for v in ("0.7.1", "0.7.2", "0.11.0")}
    assert round((w["0.7.2"] - w["0.7.1"]) * GIB) == 3 * 128_000 * 128 * 2
    assert w["0.11.0"] == w["0.7.2"]


def test_mxfp4_experts_fall_back_to_marlin_on_hopper_without_openais_triton_kernels():
    # 0.10 and 0.11 wheels carry no triton_kernels, and the official image of those releases installs only that wheel
    # and requirements/cuda.txt (docker/Dockerfile at v0.10.1.1, v0.11.0, v0.11.2): on an H100 the experts run on
    # Marlin (vllm#23278, a pip install: "Model loading took 65.9651 GiB"), from the image as from pip; every wheel from
    # 0.12 builds them in and runs Triton (64.38 GiB logged at 0.14.1, vllm#33155)
    model = find_model("openai/gpt-oss-120b")
    h100 = sizing.Device("H100", 79.19, "nvidia", "hopper")

    def weights(release: str, pip: bool) -> float:
        s = sizing.size_deployment(model, h100, sizing.EngineSettings(pip_install=pip), release)
        return round(s.weights_gib_per_gpu, 2)

    assert [weights("0.10.1.1", True), weights("0.10.1.1", False), weights("0.11.0", True), weights("0.11.0", False),
            weights("0.11.2", False), weights("0.12.0", False), weights("0.14.1", True)] == [
        65.91, 65.91, 65.91, 65.91, 65.91, 64.32, 64.32]
    # the H200 is SM90 too: the same Marlin layout from the 0.11.0 image
    h200 = sizing.Device("H200", 139.8, "nvidia", "hopper")
    assert round(sizing.size_deployment(model, h200, sizing.EngineSettings(), "0.11.0").weights_gib_per_gpu, 2) == 65.91


def test_from_0_13_the_graphs_reuse_the_warm_up_forward():
    from shardwise.rules.vllm.versions import behaviour

    # 0.13.0's compile_or_warm_up_model (compile ranges up to max_num_batched_tokens) is 0.14.1's code; 0.12.0 has
    # no compile ranges
    assert [behaviour(v).warmup_before_capture for v in ("0.12.0", "0.13.0", "0.14.1", "0.19.1")] == [
        False, True, True, True]
    # the same 51 + 51 graphs of Llama-3.1-8B on one H100: 10,503 tokens each × 4,096 × 2 B × 5 (piecewise) and 9
    # (full) in 0.12, × 1 from 0.13
    twelve = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.12.0", max_model_len=8192)
    thirteen = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.13.0", max_model_len=8192)
    fourteen = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.14.1", max_model_len=8192)
    assert (round(twelve.cudagraph_gib_per_gpu, 3), round(thirteen.cudagraph_gib_per_gpu, 3),
            round(fourteen.cudagraph_gib_per_gpu, 3)) == (1.122, 0.16, 0.16)

def test_a_sizing_is_the_dataclass_its_fields_make():
    # _size_deployment builds its ReplicaSizing without the dataclass's __init__ (speed): it must be the same
    # object, every field set, as ReplicaSizing(**fields) makes, and hash, compare and copy as one
    s = _llama70_tp4("0.11.0", max_num_seqs=64)
    fields = {f.name: getattr(s, f.name) for f in dataclasses.fields(sizing.ReplicaSizing)}
    assert set(vars(s)) == set(fields)
    made = sizing.ReplicaSizing(**fields)
    assert made == s and hash(made) == hash(s) and repr(made) == repr(s)
    assert dataclasses.replace(s, max_num_seqs=32).max_num_seqs == 32 and s.max_num_seqs == 64
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_num_seqs = 1  # type: ignore[misc]


def test_the_profiled_cuda_graph_estimate_of_0_2x_reproduces_the_logged_ones():
    from shardwise.rules.vllm.versions import behaviour

    # "Estimated CUDA graph memory: X GiB total" (v1/worker/gpu_model_runner.py profile_cudagraph_memory): the larger
    # first capture of the two modes + (graphs - 1) x the second capture, per mode
    qwen7 = find_model("Qwen/Qwen2.5-7B-Instruct")  # 0.22.0, 35 + 19 graphs up to 256 tokens: 0.37 GiB logged
    got = sizing.profiled_cudagraph_gib(qwen7, behaviour("0.22.0"), sizing.EngineSettings(), 128, 2048, 2)
    assert got == pytest.approx(0.065 + 2 * 256 * (3 * 18944 + 3 * 3584) * 2 / GIB + 52 * 28 * 0.17 / 1024)
    assert round(got, 2) == 0.37
    coder = find_model("Qwen/Qwen3-Coder-30B-A3B-Instruct")  # 0.26.1rc1, 7 + 5 graphs up to 32 tokens: 0.15 GiB
    got = sizing.profiled_cudagraph_gib(coder, behaviour("0.26.1"), sizing.EngineSettings(), 16, 2048, 2)
    assert round(got, 2) == 0.15
    # Model Runner V2 (dense models from 0.25, Qwen3 dense and unquantized from 0.22) estimates nothing: its graphs are
    # captured after sizing (cudagraph_v2_gib, outside the budget); MoE models run the V1 runner, whose estimate is
    # charged
    a10g = sizing.Device("A10G", 22.06, "nvidia", "ampere", 1)
    settings = sizing.EngineSettings(max_model_len=8192)
    v2 = sizing.size_deployment(qwen7, a10g, settings, "0.27.1")
    assert (v2.cudagraph_gib_per_gpu, v2.cudagraphs_in_budget) == (0.06, False)
    assert round(sizing.size_deployment(qwen7, a10g, settings, "0.24.0").cudagraph_gib_per_gpu, 2) == 0.58
    assert sizing.model_runner_v2(find_model("Qwen/Qwen3-8B"), behaviour("0.22.0"), "bf16") is True
    assert sizing.model_runner_v2(find_model("Qwen/Qwen3-8B"), behaviour("0.22.0"), "fp8") is False
    assert sizing.model_runner_v2(coder, behaviour("0.27.1"), "bf16") is False


def test_model_runner_v2s_terms_are_those_of_its_source():
    from shardwise.rules.vllm.versions import behaviour

    # google/gemma-4-E2B-it (vocabulary 262,144, hidden 1,536) with KAITO's VLLM_USE_FLASHINFER_SAMPLER=0 on 0.25.1:
    # PenaltiesState keeps 256 x 262,144 int32 counts and 256 x 8,192 int32 mask words; warmup_kernels prefills
    # min(256, 2,048 // 2) requests of 2 tokens, samples them with Triton's top-k/top-p (15.5 B a logit) and reads
    # the prompt logprobs of 512 tokens from their bf16 logits, the prefill's hidden states held
    gemma = find_model("google/gemma-4-E2B-it")
    s = sizing.EngineSettings(flashinfer_sampler=False)
    t = sizing.v2_runner_terms(gemma, behaviour("0.25.1"), s, 256, 2048, 2)
    assert t == (256 * (262144 * 4 + 8192 * 4), 256, 256 * 262144 * 15.5, 512 * 262144 * 2, 512 * 1536 * 2)
    assert t.persistent == 276_824_064
    assert t.warm == 256 * 262144 * 15.5 + 512 * 1536 * 2  # the sampler, not the prompt logprobs, is the peak
    # the official image's FlashInfer (16 B) over min(max_num_seqs, batched // 2) rows: 1,024 // 2 = 512 > 256
    t = sizing.v2_runner_terms(gemma, behaviour("0.25.1"), sizing.EngineSettings(), 1024, 1024, 2)
    assert (t.warm_rows, t.warm_sampler) == (512, 512 * 262144 * 16)
    # below 8 rows the Triton kernel gives way to PyTorch's sort (one row: 38.3 B)
    t = sizing.v2_runner_terms(gemma, behaviour("0.25.1"), s, 1, 2048, 2)
    assert (t.warm_rows, t.warm_sampler, t.warm_prompt_logprobs) == (1, 262144 * 38.3, 2 * 262144 * 2)


def test_model_runner_v2s_profile_samples_greedily_and_estimates_no_graphs():
    # Qwen2.5-0.5B on an RTX 4090 with 0.27.1's LLM defaults (8,192 tokens, 256 sequences): vLLM logged 0.31 GiB of
    # peak activation, 1.23 GiB consumed for 0.93 of weights and 0.0 GiB of CUDA graph memory, 20.52 GiB of KV cache
    qwen = find_model("Qwen/Qwen2.5-0.5B")
    rtx = sizing.Device("RTX 4090", 23.99, "nvidia", "ada", 1)
    s = sizing.EngineSettings(max_num_batched_tokens=8192, max_num_seqs=256)
    got = sizing.size_deployment(qwen, rtx, s, "0.27.1")
    # the dummy sampler copies 256 x 151,936 bf16 logits to float32 (6 B a logit); the forward of 8,192 tokens is larger
    assert got.sampler_gib_per_gpu == pytest.approx((256 * 151936 * 6 + 8192 * 896 * 2) / GIB)
    assert got.activation_gib_per_gpu == pytest.approx(8192 * (3 * 4864 + 3 * 896) * 2 / GIB)
    assert (got.cudagraph_gib_per_gpu, got.cudagraphs_in_budget) == (0.06, False)
    penalties = 256 * (151936 * 4 + 4748 * 4) / GIB
    assert got.available_kv_gib == pytest.approx(
        23.99 * 0.92 - got.weights_gib_per_gpu - got.activation_gib_per_gpu - 0.12 - penalties)
    assert round(got.available_kv_gib, 2) == 20.61
    # 0.25.1 counts no penalty buffers in the budget (memory_profiling's torch peak increase): they move to the margin
    older = sizing.size_deployment(qwen, rtx, s, "0.25.1")
    assert older.available_kv_gib - got.available_kv_gib == pytest.approx(penalties)
    assert older.margin_need_gib - got.margin_need_gib == pytest.approx(penalties)
    # the V1 runner (a MoE model) keeps its own profile: FlashInfer's 16 B a logit and the graphs' estimate in the budget
    coder = sizing.size_deployment(find_model("Qwen/Qwen3-Coder-30B-A3B-Instruct"), rtx, s, "0.27.1")
    assert coder.cudagraphs_in_budget is True


def test_model_runner_v2s_profile_keeps_only_the_logits_from_0_28():
    # tokens14: 0.28.0's and 0.29.0's Sampler.apply_sampling_params returns the logits untouched where no request of
    # the batch has needs_logits_processing, which only add_request sets: the profile's dummy requests never do, so
    # the float32 copy of 0.22 - 0.27 is gone and the greedy profile holds the logits (and the held hidden states)
    l4 = sizing.Device("L4", 21.96, "nvidia", "ada", 1)
    s = sizing.EngineSettings(gpu_memory_utilization=0.9, max_model_len=8192)
    qwen = find_model("Qwen/Qwen3-4B-Instruct-2507")
    hidden = 2048 * 2560 * 2  # the 2,048-token batch's hidden states, held while the 256 rows are sampled
    got = {v: sizing.size_deployment(qwen, l4, s, v).sampler_gib_per_gpu * GIB for v in ("0.27.1", "0.28.0")}
    assert got == {"0.27.1": 256 * 151936 * 6 + hidden, "0.28.0": 256 * 151936 * 2 + hidden}
    # Gemma 4 soft-caps its logits (final_logit_softcapping 30.0 in every variant transformers converts):
    # LogitsProcessor.forward divides, takes tanh and multiplies out of place, two copies at a time: 4 B a logit
    gemma = find_model("google/gemma-4-E4B-it")
    assert (sizing.logits_soft_capped(gemma), sizing.logits_soft_capped(qwen)) == (True, False)
    got = {v: sizing.size_deployment(gemma, l4, s, v).sampler_gib_per_gpu * GIB for v in ("0.27.1", "0.28.0")}
    assert got == {"0.27.1": 256 * 262144 * 6 + hidden, "0.28.0": 256 * 262144 * 4 + hidden}
    # Gemma 3's config.json sets it to null: no cap, whatever the family; a config.json that says so is read first
    assert sizing.logits_soft_capped(find_model("google/gemma-3-4b-it")) is False
    uncapped = dataclasses.replace(gemma, hf_config={**gemma.hf_config, "final_logit_softcapping": None})
    assert sizing.logits_soft_capped(uncapped) is False


def test_model_runner_v2s_profile_samples_with_the_warm_up_parameters_from_0_33():
    # tokens16: 0.33.0's and 0.34.0's _dummy_sampler_run samples the dummy rows a second time with
    # SamplingParams.for_sampler_warmup() on every request ("warmup_kernels ... pays for the fp32 logits pipeline, so
    # the profiled peak must too"): Sampler.sample copies the logits to float32 and, no row being greedy, runs
    # FlashInfer's fused top-k/top-p where the image has it, else the top-k/top-p kernel and a Gumbel arg-max: the
    # warm-up sampler's bytes a logit (16 FlashInfer, 15.5 Triton), where 0.31 - 0.32 keep the logits alone
    l4 = sizing.Device("L4", 21.96, "nvidia", "ada", 1)
    s = sizing.EngineSettings(gpu_memory_utilization=0.9, max_model_len=8192)
    qwen = find_model("Qwen/Qwen3-4B-Instruct-2507")
    hidden = 2048 * 2560 * 2  # the 2,048-token batch's hidden states, held while the 256 rows are sampled
    got = {v: sizing.size_deployment(qwen, l4, s, v).sampler_gib_per_gpu * GIB for v in ("0.32.0", "0.33.0", "0.34.0")}
    assert got == {"0.32.0": 256 * 151936 * 2 + hidden, "0.33.0": 256 * 151936 * 16 + hidden,
                   "0.34.0": 256 * 151936 * 16 + hidden}
    # without FlashInfer (VLLM_USE_FLASHINFER_SAMPLER=0) the Triton top-k/top-p kernel's 15.5 B; ROCm the same
    native = dataclasses.replace(s, flashinfer_sampler=False)
    assert sizing.size_deployment(qwen, l4, native, "0.33.0").sampler_gib_per_gpu * GIB == 256 * 151936 * 15.5 + hidden
    mi300x = sizing.Device("MI300X", 191.98, "amd", "cdna3", 8)
    at_256 = dataclasses.replace(s, max_num_seqs=256, max_num_batched_tokens=2048)  # a 192 GB GPU: 1,024 and 16,384
    assert sizing.size_deployment(qwen, mi300x, at_256, "0.33.0").sampler_gib_per_gpu * GIB == (
        256 * 151936 * 15.5 + hidden)
    assert [behaviour(v).v2_profile_warmup_sampler for v in ("0.32.0", "0.33.0", "0.34.0")] == [False, True, True]


def test_the_cuda_context_is_charged_by_the_gpu_where_a_public_log_reads_it():
    # verdicts29: what vLLM's first snapshot finds used on one GPU before any weight, 0.19 GiB on an L4 (21.84/22.03,
    # v0.29.0-cu129) and 0.23 on an A10 (21.83/22.06; the A10G's 8 SMs more: 0.24); other parts keep H100's 0.50
    e = sizing.DEFAULT_ESTIMATES
    assert [e.cuda_context(g) for g in ("L4", "A10G", "H100", "L40S", "custom GPU")] == [0.19, 0.24, 0.5, 0.5, 0.5]
    # GKE's gcsfuse sample (plan case gke-gcsfuse-llama31-8b-l4-8k): Llama-3.1-8B on one L4 at 0.95, vLLM 0.10.2, 8,192
    # tokens: the 1.10 GiB outside the budget hold the context, the slack, 0.64 GiB of graphs and the warm-up beyond
    # the profile's peak; with H100's context it was 0.05 GiB short (vLLM runs it)
    l4 = sizing.Device("L4", 21.99, "nvidia", "ada", 1)
    s = sizing.EngineSettings(gpu_memory_utilization=0.95, max_model_len=8192)
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    got = sizing.size_deployment(llama, l4, s, "0.10.2")
    as_h100 = sizing.size_deployment(llama, l4, s, "0.10.2",
                                     estimates=dataclasses.replace(e, cuda_context_by_gpu=()))
    assert [(round(x.margin_gib, 2), round(x.margin_need_gib, 2), x.margin_verdict, x.starts) for x in (got, as_h100)] == [
        (1.1, 0.84, "may-refuse", True), (1.1, 1.15, "may-refuse", False)]


def test_model_runner_v2s_warm_up_after_sizing_has_to_fit_the_margin():
    # KAITO's gemma-4-E2B-it on a 24 GB A10 at 0.84, vLLM 0.25.1, VLLM_USE_FLASHINFER_SAMPLER=0: the CUDA context, the
    # allocator's slack, the penalty buffers (outside 0.25's budget) and what the warm-up and the graphs captured after
    # sizing need beyond the greedy profile's peak (the sampler's 6 B a logit over 256 rows and its hidden states)
    gemma = find_model("google/gemma-4-E2B-it")
    a10 = sizing.Device("A10G", 22.06, "nvidia", "ampere", 1)
    s = sizing.EngineSettings(gpu_memory_utilization=0.84, flashinfer_sampler=False, max_model_len=8192,
                              compile_cache="warm")
    got = sizing.size_deployment(gemma, a10, s, "0.25.1")
    reserved = (256 * 262144 * 6 + 2048 * 1536 * 2) / GIB
    warm = (256 * 262144 * 15.5 + 512 * 1536 * 2) / GIB
    # the A10G's context is 0.24 GiB (verdicts29: 0.23 logged on an A10, the GA102's 8 SMs more), not H100's 0.50
    assert got.margin_need_gib == pytest.approx(0.24 + 0.026 + 276_824_064 / GIB + 0.06 + warm - reserved)
    assert round(got.margin_need_gib, 2) == 1.17
    assert (got.margin_verdict, got.starts) == ("starts", True)
    # the words name V2's warm-up and its buffers
    tight = sizing.size_deployment(gemma, a10, dataclasses.replace(s, gpu_memory_utilization=0.95), "0.25.1")
    assert tight.margin_failure == (
        "the 1.10 GiB outside the KV budget (1 − 0.95) must hold 1.17 GiB: the CUDA context 0.24 GiB, allocator slack "
        "0.03 GiB, Model Runner V2's penalty buffers 0.26 GiB, CUDA graphs captured after sizing 0.06 GiB and Model "
        "Runner V2's warm-up of 256 requests (every sampling feature over 262,144 tokens) 0.97 GiB less the 0.38 GiB "
        "the profile run reserved: 0.65 GiB (vLLM: CUDA out of memory in Model Runner V2's warmup_kernels)")


def test_model_runner_v2_profiles_no_multimodal_encoder_before_0_27():
    # Gemma 3 27B (dense, multimodal) runs the V1 runner in 0.24 and V2 from 0.25: 0.25.1's V2 profile_run is the
    # language model's forward and the sampler only; 0.27.1's profiles the encoder first (profile_encoder_cache)
    gemma = find_model("google/gemma-3-27b-it")
    h100 = sizing.Device("H100", H100_GIB, "nvidia", "hopper", 8)
    s = sizing.EngineSettings(max_model_len=8192)
    got = {v: sizing.size_deployment(gemma, h100, s, v) for v in ("0.24.0", "0.25.1", "0.27.1")}
    assert got["0.24.0"].encoder_gib_per_gpu == got["0.27.1"].encoder_gib_per_gpu == pytest.approx(5.9072265625)
    assert got["0.25.1"].encoder_gib_per_gpu == 0.0
    assert ("vLLM 0.25.1 runs google/gemma-3-27b-it on Model Runner V2, whose profile runs no multimodal encoder: the "
            "first image's encoder activations are not in the budget") in got["0.25.1"].notes


def test_model_runner_v2_measures_its_graphs_into_the_budget_from_0_29():
    # 0.22.0-0.28.0: profile_cudagraph_memory returns 0 (graphs captured after sizing); 0.29.0, 0.30.0 and 0.33.0
    # call cudagraph_utils.profile_cudagraph_memory, capturing them into a throw-away pool before sizing, and
    # determine_available_memory takes it from the budget: the flat term in the budget, the measurement not modelled
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    h100 = sizing.Device("H100", H100_GIB, "nvidia", "hopper", 8)
    s = sizing.EngineSettings(max_model_len=8192)
    got = [(g.cudagraph_gib_per_gpu, g.cudagraphs_in_budget)
           for g in (sizing.size_deployment(llama, h100, s, v) for v in ("0.28.0", "0.29.0", "0.30.0", "0.33.0"))]
    assert got == [(0.06, False), (0.4, True), (0.4, True), (0.4, True)]
    # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 keeps them out at 0.29.0 as it does V1's (gpu_worker.py)
    off = sizing.size_deployment(llama, h100, sizing.EngineSettings(max_model_len=8192, cudagraph_profiling=False),
                                 "0.29.0")
    assert (off.cudagraph_gib_per_gpu, off.cudagraphs_in_budget) == (0.06, False)
    # the budget holding them is the flat 0.4 GiB smaller than 0.28.0's, whose graphs sit in the margin instead
    budgets = [sizing.size_deployment(llama, h100, s, v).available_kv_gib for v in ("0.28.0", "0.29.0")]
    assert budgets[0] - budgets[1] == pytest.approx(0.4)


@pytest.mark.xfail(strict=True, reason=(
    "open finding (tokens28, docs/capacity-model.md '0.29: mixtures of experts on Model Runner V2'): 0.29.0's "
    "use_v2_model_runner puts every generative model on V2 (config/vllm.py, 0.29.0 - 0.33.0) and the 0.29.0 logs ran "
    "it ('Using V2 Model Runner'; the TP2/DP2 OOM in gpu/warmup.py warmup_kernels), but switching the runner alone "
    "moves four of the ten 0.29.0 rows away from their logs, so shardwise keeps 0.25's rule for a mixture of experts"))
def test_0_29_runs_mixtures_of_experts_on_model_runner_v2():
    from shardwise.rules.vllm.versions import behaviour

    moe = [find_model(m) for m in ("openai/gpt-oss-20b", "google/gemma-4-26B-A4B-it")]
    assert [sizing.model_runner_v2(m, behaviour("0.28.0"), "bf16") for m in moe] == [False, False]
    assert [sizing.model_runner_v2(m, behaviour("0.29.0"), "bf16") for m in moe] == [True, True]


def test_0_25_to_0_28_run_a_dense_hybrid_on_the_v1_runner():
    h100 = sizing.Device("H100", H100_GIB, "nvidia", "hopper", 1)
    qwen = find_model("Qwen/Qwen3.6-27B")  # 16 attention and 48 Gated DeltaNet layers, vocabulary 248,320
    s = sizing.EngineSettings(max_model_len=32768)  # an H100's defaults: 1,024 sequences, 8,192 batched tokens
    hidden = 8192 * 5120 * 2  # the batch's hidden states, held while the 1,024 rows are sampled
    # V1 samples the 1,024 dummy rows with FlashInfer's top-k / top-p (16 B a logit, the image's sampler); V2's greedy
    # profile holds the logits and their float32 copy (6 B, 0.27) or the logits alone (2 B, 0.28)
    got = {v: sizing.size_deployment(qwen, h100, s, v).sampler_gib_per_gpu * GIB for v in ("0.27.1", "0.28.0")}
    assert got == {"0.27.1": 1024 * 248320 * 16 + hidden, "0.28.0": 1024 * 248320 * 16 + hidden}
    # tokens41: the state layers decide it in 0.25 - 0.28 only (Behaviour.v2_skips_state_models); 0.29.0 runs every
    # generative model on V2, and the same dense model without state layers is on V2 from 0.25
    releases = ("0.24.0", "0.25.0", "0.26.0", "0.27.1", "0.28.0", "0.29.0")
    assert [sizing.model_runner_v2(qwen, behaviour(v), "bf16", state_layers=True) for v in releases] == [
        False, False, False, False, False, True]
    assert [sizing.model_runner_v2(qwen, behaviour(v), "bf16") for v in releases] == [
        False, True, True, True, True, True]


def test_a_manifest_turns_async_scheduling_off_and_the_sliding_window_holds_one_batch(tmp_path):
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings
    from shardwise.rules.vllm.versions import behaviour

    path = tmp_path / "gemma.yaml"
    path.write_text("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: gemma}
spec:
  selector: {matchLabels: {app: gemma}}
  template:
    metadata: {labels: {app: gemma}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.29.0
          args: ["vllm", "serve", "google/gemma-4-26B-A4B-it", "--max-model-len", "4096", "--no-async-scheduling"]
          resources:
            limits: {nvidia.com/gpu: 1}
""")
    [g] = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert s.async_scheduling is False
    assert sizing.kv_in_flight_tokens(behaviour("0.29.0"), s, 2048, v2=False) == 2048
    assert sizing.kv_in_flight_tokens(behaviour("0.29.0"), dataclasses.replace(s, async_scheduling=None), 2048,
                                      v2=False) == 4096


def test_a_data_parallel_rank_holds_nccl_communicators_before_the_first_snapshot():
    # vLLM builds a device communicator (pynccl, warmed up with an all-reduce) for every group of more than one rank,
    # tp, pp, dp and a MoE model's ep group (TP × DP wide); the world group has none (parallel_state.py 0.14.1)
    groups = [sizing.device_communicators(sizing.EngineSettings(**kw), moe) for kw, moe in (
        ({}, False), ({}, True), ({"dp": 2}, False), ({"dp": 2}, True), ({"tp": 2, "dp": 2}, True),
        ({"tp": 4, "pp": 2}, False), ({"tp": 4, "pp": 2}, True))]
    assert groups == [(), (), ("dp",), ("dp", "ep"), ("tp", "dp", "ep"), ("tp", "pp"),
                                     ("tp", "pp", "ep")]
    # so a TP1 engine of a DP2 deployment (0.11+) has NCCL's communicators before its snapshot, as a TP2 one does
    kw = {"gpu_memory_utilization": 0.998, "max_model_len": 8192, "enforce_eager": True, "max_num_seqs": 8}
    one, dp2 = (_h100("meta-llama/Llama-3.1-8B-Instruct", "0.20.0", dp=dp, **kw) for dp in (1, 2))
    assert (round(one.margin_need_gib, 2), round(dp2.margin_need_gib, 2)) == (0.50, 0.75)
    assert dp2.refusal == (
        "about 78.44 of 79.19 GiB is free when vLLM takes its first snapshot (after the CUDA context and NCCL: "
        "0.75 GiB), less than gpu_memory_utilization 0.998 × 79.19 = 79.03 GiB (vLLM: Free memory on device ... on "
        "startup is less than desired GPU memory utilization)")
    # 1.11 GiB outside the budget (0.986): after sizing the context and the allocator's slack (0.53 ± 0.25) fit
    # beyond their band; with NCCL's communicators (0.78 ± 0.50) they may not
    kw["gpu_memory_utilization"] = 0.986
    after = [_h100("meta-llama/Llama-3.1-8B-Instruct", "0.20.0", dp=dp, **kw) for dp in (1, 2)]
    assert [(s.margin_verdict, round(s.margin_need_gib, 2)) for s in after] == [
        ("starts", 0.53), ("may-refuse", 0.78)]
    # V1 0.9 – 0.10 takes its snapshot before the distributed set-up: the context and the slack, nothing of NCCL's
    old = _h100("meta-llama/Llama-3.1-8B-Instruct", "0.10.1.1", dp=2, **kw)
    assert (old.margin_verdict, round(old.margin_need_gib, 2)) == ("starts", 0.53)


def test_a_prefill_context_parallel_rank_is_one_gpu_of_several(tmp_path):
    # vLLM 0.12+ makes a pcp group of the -pcp ranks with its own CudaCommunicator (parallel_state.py
    # initialize_model_parallel, group_name="pcp", 0.12.0 and 0.26.0 wheels), after tp and before pp; custom
    # all-reduce is the tp group's only ('if "tp" not in unique_name: use_custom_allreduce = False')
    groups = [sizing.device_communicators(sizing.EngineSettings(**kw), False) for kw in (
        {"prefill_context_parallel": 2}, {"tp": 2, "prefill_context_parallel": 2, "pp": 2})]
    assert groups == [("pcp",), ("tp", "pcp", "pp")]
    # so a TP1 engine with -pcp 2 is an engine of two GPUs: the multi-GPU non-torch term (0.12 + 0.10 GiB after the
    # distributed set-up, 0.26.0) and no custom all-reduce buffers (TP1); it was charged as one GPU (0.12)
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings
    from shardwise.rules.catalog import find_gpu

    h100 = sizing.Device.of(find_gpu("H100"))
    one, pcp2, tp2 = (sizing.size_deployment(find_model("meta-llama/Llama-3.1-8B-Instruct"), h100,
                                             sizing.EngineSettings(max_model_len=8192, **kw), "0.26.0")
                      for kw in ({}, {"prefill_context_parallel": 2}, {"tp": 2}))
    assert [(s.gpus, round(s.non_torch_gib_per_gpu, 6)) for s in (one, pcp2, tp2)] == [
        (1, 0.12), (2, 0.22), (2, 2.22)]
    # the front door reads -pcp from the flags whether or not EPLB is on
    path = tmp_path / "pcp.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-pcp}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.26.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "1",
                 "--prefill-context-parallel-size", "2", "--max-model-len", "8192"]
          resources:
            limits: {nvidia.com/gpu: 2}
""")
    [g] = load_inputs([str(path)]).groups
    assert engine_settings(g).prefill_context_parallel == 2


def test_nccl_connects_every_channel_at_init_in_0_9_to_0_10_and_its_buffers_are_counted_on_nvswitch_hopper():
    # nccl46: one rank of a communicator on NVSwitch Hopper (NCCL 2.26.2, every channel connected at init): 24 ring
    # channels of 12 MiB (2 MiB send + 10 MiB receive, transport/p2p.cc), as many tree channels beyond two ranks, and
    # the NVLS buffer beyond two GPUs (16 channels x 2 x 1 MiB per GPU of the communicator, and a 2 MiB granule)
    e = sizing.DEFAULT_ESTIMATES
    assert [sizing.nccl_communicator_mib(n, 24, e) for n in (1, 2, 4, 8)] == [0.0, 288.0, 706.0, 834.0]
    assert sizing.nccl_communicator_mib(8, 16, e) == 642.0  # H800: 16 channels (nccl#892)
    # which communicators one GPU holds by the end of the profile: the pynccl ones (ep for every model in 0.9 - 0.10)
    # and torch's own for the tensor-parallel group, created by the logits' all-gather
    sizes = [sizing.nccl_communicator_sizes(sizing.EngineSettings(**kw)) for kw in (
        {}, {"tp": 2}, {"tp": 8}, {"dp": 8}, {"tp": 4, "pp": 2}, {"tp": 2, "dp": 2})]
    assert sizes == [(), (2, 2, 2), (8, 8, 8), (8, 8), (4, 2, 4, 4), (2, 2, 4, 2)]
    tp8 = sizing.EngineSettings(tp=8)
    hopper = [sizing.Device(name, 79.19, "nvidia", "hopper", domain)
              for name, domain in (("H100", None), ("H100", 8), ("H800", 8), ("H100-NVL", 2), ("H100-PCIe", 1))]
    assert [sizing.nccl_buffers_at_init_gib(d, tp8, e) for d in hopper] == [
        2502 / 1024, 2502 / 1024, 1926 / 1024, 0.0, 0.0]
    # a DP8 rank of one H20 holds the dp and ep communicators; other architectures and PCIe cards: not charged
    assert sizing.nccl_buffers_at_init_gib(sizing.Device("H20", 95.0, "nvidia", "hopper", 8),
                                           sizing.EngineSettings(dp=8), e) == 1668 / 1024
    assert [sizing.nccl_buffers_at_init_gib(sizing.Device(n, 79.0, "nvidia", a, d), tp8, e)
            for n, a, d in (("A100-80GB", "ampere", 8), ("L40S", "ada", 1), ("B200", "blackwell", 8))] == [0.0] * 3
    # in the budget where 0.9 - 0.10 count it (a snapshot before the distributed set-up), not from 0.11 (after it)
    kw = {"tp": 8, "max_model_len": 8192}
    old, new = (_h100("Qwen/Qwen3-32B", release, **kw) for release in ("0.10.1.1", "0.11.0"))
    # (0.11's is 0.22 and PyTorch's tp communicator's rings alone, connected lazily: torch_tp_communicator_gib)
    assert (round(old.non_torch_gib_per_gpu, 2), round(new.non_torch_gib_per_gpu, 2)) == (2.84, 0.5)


def test_pytorchs_tp_communicator_holds_its_rings_inside_the_profile_from_0_11_on_nvswitch_hopper():
    # tokens35: from 0.11 the snapshot follows the distributed set-up, and the TP group's torch.distributed
    # communicator is created at its first collective, the logits' all_gather_into_tensor in the dummy sampler run
    # (DeviceCommunicatorBase.all_gather; CudaCommunicator does not override it: 0.11.0, 0.14.1, 0.15.0, 0.19.0); NCCL's
    # lazy connect sets up the all-gather's ring only: 24 channels x 12 MiB on H100 / H200, 16 on H800
    e = sizing.DEFAULT_ESTIMATES
    tp = [sizing.EngineSettings(tp=n) for n in (1, 2, 4, 8, 16)]
    h100 = sizing.Device("H100", 79.19, "nvidia", "hopper", 8)
    assert [sizing.torch_tp_communicator_gib(h100, s, e) for s in tp] == [0.0, 0.28125, 0.28125, 0.28125, 0.0]
    assert sizing.torch_tp_communicator_gib(sizing.Device("H800", 79.19, "nvidia", "hopper", 8), tp[3], e) == 0.1875
    # an NVLink pair, PCIe cards and other architectures (channel counts not read): none
    assert [sizing.torch_tp_communicator_gib(sizing.Device(n, 79.0, "nvidia", a, d), tp[1], e)
            for n, a, d in (("H100-NVL", "hopper", 2), ("H100-PCIe", "hopper", 1), ("A100-80GB", "ampere", 8),
                            ("B200", "blackwell", 8))] == [0.0] * 4
    assert sizing.torch_tp_communicator_gib(sizing.Device("H100", 79.19, "nvidia", "hopper", None), tp[3], e) == 0.28125
    # charged from 0.11 to 0.18; 0.9 - 0.10 count every channel at init (nccl_buffers_at_init_gib), 0.19+ the
    # calibrated 2.0 GiB holds it where custom all-reduce runs on NVLink
    by_release = [round(_h100("Qwen/Qwen3-32B", r, tp=2, max_model_len=8192).non_torch_gib_per_gpu, 5)
                  for r in ("0.10.1.1", "0.11.0", "0.14.1", "0.18.0", "0.19.0")]
    assert by_release == [round(0.4 + 864 / 1024, 5), 0.50125, 0.50125, 0.50125, 2.22]
    # the H100 TP2 logs of 0.11 - 0.14 it moves (Qwen3-32B at 0.11.0 and 0.14.1, Llama-3.3-70B FP8 at 0.14.1): the
    # budget residual +0.22 / +0.42 / +0.38 GiB -> -0.06 / +0.14 / +0.10 (test_calibration holds the rows)


def test_every_pipeline_stage_is_profiled_and_a_middle_stage_can_bound_the_cache():
    # vLLM's get_pp_indices gives Qwen3-235B-A22B's 94 layers at PP4 as 23, 24, 24, 23: the middle stages hold one
    # more layer than the ends and neither the embedding nor the LM head. Each worker sizes its own cache and the
    # engine keeps the fewest blocks of any (kubesimplify/website's 0.27.1 PP4 run: 55.70 GiB of weights on the
    # worker it quotes, a middle stage's)
    model = find_model("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8")
    assert sizing._distinct_stages(model, 4) == (0, 1, 3)
    assert sizing._distinct_stages(model, 8) == (0, 1, 7)  # 11, then six stages of 12, then 11
    assert sizing._distinct_stages(model, 2) == (0, 1)
    assert sizing._distinct_stages(model, 1) == (0,)
    card = sizing.Device("RTX PRO 6000 Blackwell", 95.01, "nvidia", "blackwell", 1, compute_capability=(12, 0))
    settings = sizing.EngineSettings(pp=4, gpu_memory_utilization=0.9, max_model_len=32768, max_num_seqs=32)
    s = sizing.size_deployment(model, card, settings, "0.27.1")
    total = sizing._checkpoint(model, settings, None, []).total_bytes
    ends, middle = (sizing._stage_weights(model, total, "fp8", settings, stage) / GIB for stage in (0, 1))
    assert (round(ends, 2), round(middle, 2)) == (54.51, 55.67)
    assert round(s.weights_gib_per_gpu, 2) == 55.67  # the heaviest stage, the one that leaves the least
    # 24 layers × 4 KV heads × 128 × 2 (K, V) × 2 bytes a token, in 16-token blocks: the middle stage's
    assert s.kv_bytes_per_token_per_gpu == 49152
    assert s.kv_cache_tokens == 617_904  # the first stage alone would give 671,168


def test_the_sizing_memo_answers_what_a_fresh_sizing_does():
    """size_deployment keeps its answers for the run (``_SIZED``, issue 30: a 2,000-file lint asks for 5,624 sizings
    of 4,600 distinct arguments, 4,006 once the layout search passes over layouts without room). A hit must be the answer a fresh sizing gives those arguments: the same object on
    the second call, equal to :func:`sizing._size_deployment` of the same arguments; arguments that differ in one
    thing a sizing reads (each setting the generated corpus varies, the device, the release, the expected context,
    the weights given, the model) are sized afresh, each equal to its own fresh sizing; and an entry of another key
    under the same hash is a miss, never an answer."""
    from shardwise.rules.catalog import find_gpu

    sizing._SIZED.clear()
    h100 = sizing.Device.of(find_gpu("H100"), find_gpu("H100").memory_gib)
    a10g = sizing.Device.of(find_gpu("A10G"), find_gpu("A10G").memory_gib)
    qwen = find_model("Qwen/Qwen2.5-7B-Instruct")
    base = sizing.EngineSettings(tp=4, max_model_len=8192)
    cases: list[tuple[ModelShape, sizing.Device, sizing.EngineSettings, str, int | None, float | None]] = [
        (LLAMA70, h100, base, "0.11.0", None, None)]
    for change in ({"tp": 8}, {"tp": 2, "pp": 2}, {"gpu_memory_utilization": 0.95}, {"max_model_len": 32768},
                   {"max_num_seqs": 64}, {"quantization": "fp8"}, {"kv_cache_dtype": "fp8"},
                   {"enable_prefix_caching": True}):
        cases.append((LLAMA70, h100, dataclasses.replace(base, **change), "0.11.0", None, None))
    cases += [(LLAMA70, h100, base, "0.9.2", None, None), (LLAMA70, h100, base, "0.10.2", None, None),
              (LLAMA70, h100, base, "0.11.0", 2048, None), (LLAMA70, h100, base, "0.11.0", None, 120.0),
              (qwen, h100, base, "0.11.0", None, None), (qwen, a10g, dataclasses.replace(base, tp=1), "0.11.0", None,
                                                         None)]
    answers = []
    for model, dev, s, release, ctx, weights in cases:
        first = sizing.size_deployment(model, dev, s, release, expected_context=ctx, weights_gib=weights)
        again = sizing.size_deployment(model, dev, s, release, expected_context=ctx, weights_gib=weights)
        fresh = sizing._size_deployment(model, dev, s, release, expected_context=ctx, weights_gib=weights,
                                        estimates=sizing.DEFAULT_ESTIMATES)
        assert again is first
        assert first == fresh and first is not fresh
        answers.append(first)
    # every case is its own sizing (each change is read), but for --enable-prefix-caching (case 8), which before
    # 0.17 (Behaviour.mamba_cache_modes) changes nothing: a key of its own, the same answer
    assert answers[8] == answers[0] and answers[8] is not answers[0]
    assert len({repr(a) for a in answers}) == len(cases) - 1
    # an entry of another key under the same hash is not taken for this one's answer
    key = (id(qwen), h100, base, "0.11.0", None, None, sizing._DEFAULT_KEY)
    sizing._SIZED[hash(key)] = ((id(LLAMA70), *key[1:]), LLAMA70, answers[0])
    assert sizing.size_deployment(qwen, h100, base, "0.11.0") == answers[-2]
    assert sizing.size_deployment(qwen, h100, base, "0.11.0").model_id == "Qwen/Qwen2.5-7B-Instruct"
    sizing._SIZED.clear()


def test_what_is_made_per_group_goes_with_the_group():
    from shardwise.rules.capacity import group as capacity_group

    class Group:  # any object a weak reference can name; sizing passes ServingGroups
        pass

    g, calls = Group(), []

    def make(x: Group) -> int:
        calls.append(x)
        return 7

    assert capacity_group.per_group(g, "answer", make) == 7
    assert capacity_group.per_group(g, "answer", make) == 7
    assert calls == [g]
    key = id(g)
    assert set(capacity_group._MADE[key]) == {capacity_group._REF, "answer"}
    del g, calls[:]  # the last references: the weak reference's callback drops the entry
    assert key not in capacity_group._MADE


def test_0_34_sizes_an_extensible_kv_cache_from_what_is_in_use_after_the_warm_up():
    # v1/worker/extensible_kv_cache.py measure_kv_cache_bytes (0.34.0): min(requested - in use, free at start + 0
    # committed - max(1 GiB, 0.75 x peak)) - peak; config/cache.py resolved_gpu_memory_utilization: 1.0 when unset.
    # Llama-3.1-8B on one H100 (Model Runner V2: its penalty buffers, 1,024 x 128,256 x 4 + the mask, are in use too;
    # from 0.33 its profile samples the 1,024 dummy rows with the warm-up's parameters too, FlashInfer's 16 B a logit:
    # a 2.0195 GiB peak, 0.8438 before tokens16)
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    h100 = sizing.Device("H100", H100_GIB, "nvidia", "hopper", 8)
    # a warm compile cache: the profile's own peak, without a first start's compile peak (test_compile_cache.py)
    s = sizing.EngineSettings(max_model_len=8192, compile_cache="warm")
    old, new = (sizing.size_deployment(llama, h100, s, v) for v in ("0.33.0", "0.34.0"))
    assert (old.gpu_memory_utilization, old.block_size, round(old.available_kv_gib, 4), old.kv_cache_tokens) == (
        0.92, 16, 54.8196, 449072)
    assert (new.gpu_memory_utilization, new.block_size, round(new.available_kv_gib, 4), new.kv_cache_tokens) == (
        1.0, 64, 58.44, 478720)
    # the peak: FlashInfer's 16 B over 1,024 x 128,256 logits and the 8,192 x 4,096 hidden states it samples from
    assert round(new.activation_gib_per_gpu, 4) == round((1024 * 128256 * 16 + 8192 * 4096 * 2) / 2**30, 4) == 2.0195
    # by hand: 79.1875 - 0.5 (CUDA context) - 14.9888 (weights) - 0.12 (non-torch) - 0.4 (graphs) - 0.4893 (penalty
    # buffers) - max(1, 0.75 x 2.4195) - 2.4195 (peak 2.0195 + the 0.4 graph estimate): the device bound decides
    kept = 1024 * (128256 * 4 + 4008 * 4) / 2**30
    peak = new.activation_gib_per_gpu + 0.4
    by_hand = H100_GIB - 0.5 - new.weights_gib_per_gpu - 0.12 - 0.4 - kept - max(1.0, 0.75 * peak) - peak
    assert new.available_kv_gib == pytest.approx(by_hand, abs=1e-9)
    # an explicit 0.9 is the cap instead: the graphs are in use and in the peak (0.4 less than 0.33.0 at 0.9)
    at = [sizing.size_deployment(llama, h100, dataclasses.replace(s, gpu_memory_utilization=0.9), v).available_kv_gib
          for v in ("0.33.0", "0.34.0")]
    assert [round(x, 4) for x in at] == [53.2359, 52.8359]


def test_0_34_extensible_kv_cache_leaves_nothing_to_fit_outside_the_budget():
    # 0.32.0 at 0.99 on an L4: the sampler warm-up after sizing may not fit 1 % of 22 GiB (refused on the central
    # estimate: 0.50 GiB to hold in 0.22); 0.33.0 profiles the warm-up's sampler inside the budget (tokens16), so only
    # the CUDA context and the allocator's slack are left outside (0.216 GiB: starts, within the band); 0.34.0
    # measures them before it sizes the cache and skips the first snapshot's check
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    l4 = sizing.Device("L4", 22.05, "nvidia", "ada", 8)
    # a warm compile cache: a cold compile's larger profile peak would hold the sampler warm-up inside the budget
    s = sizing.EngineSettings(max_model_len=8192, gpu_memory_utilization=0.99, compile_cache="warm")
    old, mid, new = (sizing.size_deployment(llama, l4, s, v) for v in ("0.32.0", "0.33.0", "0.34.0"))
    assert (old.starts, old.margin_verdict, round(old.margin_need_gib, 4)) == (False, "may-refuse", 0.4982)
    assert (mid.starts, mid.margin_verdict, round(mid.margin_need_gib, 4)) == (True, "may-refuse", 0.216)
    assert (new.starts, new.margin_verdict, new.margin_need_gib, round(new.available_kv_gib, 4)) == (
        True, "starts", 0.0, 4.3202)


@pytest.mark.parametrize(("settings", "util", "kv"), [
    ({}, 1.0, 169.0458),  # ROCm: the margin's floor is 3 GiB (KV_CACHE_MARGIN_FLOOR_BYTES)
    ({"extensible_kv_cache": False}, 0.92, 157.5874),  # --no-enable-extensible-kv-cache: 0.33.0's sizing
    ({"kv_cache_memory_bytes": 10 * 2**30}, 0.92, 10.0),  # --kv-cache-memory-bytes turns it off
])
def test_0_34_extensible_kv_cache_on_rocm_and_where_it_is_off(settings, util, kv):
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    mi300x = sizing.Device("MI300X", 191.98, "amd", "cdna3", 8)
    g = sizing.size_deployment(llama, mi300x, sizing.EngineSettings(max_model_len=8192, **settings), "0.34.0")
    assert (g.gpu_memory_utilization, round(g.available_kv_gib, 4)) == (util, kv)


def test_a_manifest_turns_the_extensible_kv_cache_off(tmp_path):
    # config/vllm.py _resolve_extensible_kv_cache (0.34.0): --no-enable-extensible-kv-cache, or a cache sized by
    # --num-gpu-blocks-override, keeps the estimate-based sizing; the flag given on is vLLM's default
    from manifest_settings import engine_settings_for

    def settings(flags: str):
        return engine_settings_for(tmp_path, "v0.34.0", '"--model", "meta-llama/Llama-3.1-8B-Instruct"', flags)

    assert settings(', "--no-enable-extensible-kv-cache"').extensible_kv_cache is False
    assert settings(', "--num-gpu-blocks-override", "2000"').extensible_kv_cache is False
    assert settings(', "--enable-extensible-kv-cache"').extensible_kv_cache is True
    assert settings("").extensible_kv_cache is None


QWEN3_MOE = ModelShape(
    id="Qwen/Qwen3-30B-A3B", params=30_532_122_624, num_hidden_layers=48, hidden_size=2048,
    num_attention_heads=32, num_key_value_heads=4, head_dim=128, intermediate_size=6144,
    vocab_size=151936, max_position_embeddings=40960,
    moe=MoeShape(num_experts=128, experts_per_token=8, shared_experts=0, moe_intermediate_size=768),
)


def test_the_fused_moe_chunk_is_the_release_s_default_or_the_env_s_where_the_release_reads_it():
    """VLLM_FUSED_MOE_CHUNK_SIZE, read in each wheel's envs.py and fused_moe/fused_moe.py ``fused_experts_impl``:
    absent in 0.4.3 and 0.5.0 (no chunking), '65536' in 0.5.1 - 0.5.5, '32768' in 0.6.0 - 0.11.2, 16 * 1024 in
    0.12.0 - 0.17.1, gone in 0.18.0 (the whole batch at once). A set variable replaces the default only where it is
    read."""
    unset, env = sizing.EngineSettings(), sizing.EngineSettings(moe_chunk_size=4096)
    got = [(r, sizing.moe_chunk_tokens(behaviour(r), unset), sizing.moe_chunk_tokens(behaviour(r), env))
           for r in ("0.4.3", "0.5.0", "0.5.1", "0.5.5", "0.6.0", "0.10.1.1", "0.11.2", "0.12.0", "0.14.1", "0.17.1",
                     "0.18.0", "0.19.0", "0.29.0")]
    assert got == [("0.4.3", 0, 0), ("0.5.0", 0, 0), ("0.5.1", 65536, 4096), ("0.5.5", 65536, 4096),
                   ("0.6.0", 32768, 4096), ("0.10.1.1", 32768, 4096), ("0.11.2", 32768, 4096),
                   ("0.12.0", 16384, 4096), ("0.14.1", 16384, 4096), ("0.17.1", 16384, 4096),
                   ("0.18.0", 0, 0), ("0.19.0", 0, 0), ("0.29.0", 0, 0)]
    # the forward pass's MoE term: routed tokens x top-k x (3 x expert width + hidden) x 2 bytes, beside the batch's
    # hidden states twice; 0 routes the whole batch
    s = sizing.EngineSettings(max_num_batched_tokens=65536)
    per_routed = 8 * (3 * 768 + 2048) * 2
    rest = 65536 * 2048 * 2 * 2
    for chunk, routed in ((65536, 65536), (32768, 32768), (16384, 16384), (0, 65536), (131072, 65536)):
        assert sizing._forward_bytes(QWEN3_MOE, s, 65536, 2, sizing.DEFAULT_ESTIMATES, chunk) == (
            routed * per_routed + rest)
    # through the sizing: one H200, 65,536 batched tokens, 16 sequences (the forward is the profile's peak)
    h200 = sizing.Device("H200", 139.8, "nvidia", "hopper")

    def act(release: str, **kw) -> float:
        settings = sizing.EngineSettings(max_model_len=32768, max_num_batched_tokens=65536, max_num_seqs=16, **kw)
        return sizing.size_deployment(QWEN3_MOE, h200, settings, release).activation_gib_per_gpu

    # 0.19.0's forward pass is 4.75 GiB (4.25 of routed rows); from 0.14 the modular kernel keeps those caches in the
    # shared workspace buffer through the sampler run (tokens39, Behaviour.moe_workspace_persists), whose 0.5796 GiB
    # (the batch's hidden states and 16 sequences' logits) then sits on top of them: 4.25 + 0.5796 = 4.8296
    assert [act(r) for r in ("0.11.2", "0.12.0", "0.19.0")] == [2.625, 1.5625, 4.82958984375]
    assert (act("0.12.0", moe_chunk_size=32768), act("0.19.0", moe_chunk_size=8192)) == (2.625, 4.82958984375)
    # a pod's env sets it as vLLM reads it (int(...)); a count vLLM's loop cannot divide by is not read
    assert env_settings({"VLLM_FUSED_MOE_CHUNK_SIZE": "8192"}) == {"moe_chunk_size": 8192}
    assert [env_settings({"VLLM_FUSED_MOE_CHUNK_SIZE": v}) for v in ("0", "-1", "16k", "")] == [{}, {}, {}, {}]


def test_dp_ep_moe_on_0_18_routes_every_dp_rank_s_profile_tokens_at_once():
    """vLLM 0.18.0 (wheel from PyPI), DP + EP on the default settings: ``ParallelConfig.all2all_backend`` is
    ``"allgather_reducescatter"`` (config/parallel.py), whose naive prepare-finalize all-gathers every DP rank's tokens
    (fused_moe/prepare_finalize/naive_dp_ep.py, distributed/device_communicators/all2all.py ``AgRsAll2AllManager``);
    ``use_dp_chunking`` (fused_moe/runner/default_moe_runner.py) is for the DeepEP low-latency, MORI, FlashInfer
    NVLink two-sided and NIXL kernels only; ``profile_run`` runs ``_dummy_run(max_num_tokens)`` on every rank; and
    the modular kernel allocates for ``M_full`` (modular_kernel.py). So a DP8 + EP engine profiling 8,192 tokens
    routes 65,536 at once on 0.18.0, where 0.17.1 routed 16,384 at a time (VLLM_FUSED_MOE_CHUNK_SIZE)."""
    s = sizing.EngineSettings(max_num_batched_tokens=8192, dp=8, expert_parallel=True)
    per_routed = 8 * (3 * 768 + 2048) * 2  # EP: each expert whole on its rank
    rest = 8192 * 2048 * 2 * 2
    got = {r: sizing._forward_bytes(QWEN3_MOE, s, 8192, 2, sizing.DEFAULT_ESTIMATES,
                                    sizing.moe_chunk_tokens(behaviour(r), s))
           for r in ("0.17.1", "0.18.0")}
    assert got == {"0.17.1": 16_384 * per_routed + rest, "0.18.0": 65_536 * per_routed + rest}
    assert got["0.18.0"] == 4_630_511_616


def test_block_fp8_dp_ep_on_hopper_from_0_18_sizes_the_routed_rows_by_flashinfer_cutlass_s_workspace():
    """0.18.0 ``fused_moe/oracle/fp8.py``: block FP8 on compute capability 9.0 with ``ep_size > 1`` runs FlashInfer
    CUTLASS first (Triton first without EP). Its workspace a routed row for DeepSeek-V3.2 (hidden 7,168, expert
    width 2,048, 256 experts over 8 ranks, top-8; flashinfer-python 0.6.6 ``getWorkspaceDeviceBufferSizes`` and
    ``CutlassFp8BlockScaleGemmRunner::getWorkspaceSizeBase``): maps 3 × 4 + 32 × 4 ÷ 8, GEMM inputs 7,168 × 2, fc1
    output 2 × 2,048 × 2, FP8 copy and scales 7,168 + 56 × 4 = 29,948 bytes; the kernels it may fall to hold fewer
    (DeepGEMM (7,168 + 7,168) × 2 = 28,672, Triton (3 × 2,048 + 7,168) × 2 = 26,624), so the rows' error is
    29,948 − 26,624 a row above the budget, none below, and not 35 % of them."""
    v32 = find_model("deepseek-ai/DeepSeek-V3.2")
    dp_ep = sizing.EngineSettings(dp=8, expert_parallel=True, max_model_len=163840)
    e = sizing.DEFAULT_ESTIMATES
    flashinfer = 3 * 4 + 32 * 4 / 8 + 7168 * 2 + 2 * 2048 * 2 + 7168 + 56 * 4
    assert flashinfer == 29_948
    assert sizing.moe_row_bytes(v32, dp_ep, behaviour("0.18.0"), H200, "fp8", 2, e) == (29_948, 26_624, True, 0)
    # not read: before 0.18.0, without EP (Triton first, each expert split 8 ways), off Hopper
    assert sizing.moe_row_bytes(v32, dp_ep, behaviour("0.17.1"), H200, "fp8", 2, e) == (26_624, 26_624, False, 0)
    tp8 = sizing.EngineSettings(tp=8)
    assert sizing.moe_row_bytes(v32, tp8, behaviour("0.18.0"), H200, "fp8", 2, e) == (15_872, 15_872, False, 0)
    a100 = sizing.Device("A100-SXM-80GB", 79.15, "nvidia", "ampere")
    assert sizing.moe_row_bytes(v32, dp_ep, behaviour("0.18.0"), a100, "fp8", 2, e) == (26_624, 26_624, False, 0)
    rows = 65_536 * 8
    fwd, routed, fewer = sizing._forward_parts(v32, dp_ep, 8192, 2, e, 0,
                                               sizing.moe_row_bytes(v32, dp_ep, behaviour("0.18.0"), H200, "fp8", 2, e))
    assert (fwd, routed, fewer) == (rows * 29_948 + 8192 * 7168 * 2 * 2, rows * 29_948, rows * (29_948 - 26_624))
    r = sizing.size_deployment(v32, H200, dp_ep, "0.18.0")
    # activation 13.22 -> 14.84 GiB; the band is the 4 % floor (weights 1.93 + the rest of the activation 0.23 +
    # non-torch 0.30 below, + the kernels' spread 1.62 above: 4.08), where 35 % of the rows gave 7.58. tokens39: the
    # sparse indexer's prefill workspace (40 x 163,840 keys of 132 bytes, 0.81 GiB) is in the shared buffer beside
    # FlashInfer CUTLASS's rows, which that kernel allocates itself (its workspace_shapes ask the buffer for one
    # (tokens, hidden) tensor): 14.84 -> 15.65 GiB
    assert (round(r.activation_gib_per_gpu, 4), round(r.available_kv_gib, 4)) == (15.6475, 13.5235)
    assert (round(r.error_band_gib, 4), round(r.error_band_above_gib, 4)) == (5.0332, 5.0332)
    assert round(sizing.error_band_floor(0.9 * 139.81), 4) == 5.0332


@pytest.mark.parametrize("given", [
    {},
    {"tp": 4, "pp": 2, "gpu_memory_utilization": 0.92, "max_model_len": 16384, "kv_cache_dtype": "fp8"},
    {"max_model_len": "auto", "mm_limits": (("image", 0),), "mm_args": (("--limit-mm-per-prompt", "{}"),),
     "flashinfer_sampler": False, "moe_chunk_size": 32768, "compile_cache": "warm"},
])
def test_engine_settings_of_makes_the_object_the_class_s_init_makes(given):
    made, init = sizing.engine_settings_of(dict(given)), sizing.EngineSettings(**given)
    assert type(made) is sizing.EngineSettings
    assert made == init and hash(made) == hash(init) and repr(made) == repr(init)
    assert made.__dict__ == init.__dict__ and list(made.__dict__) == list(init.__dict__)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.tp = 2  # type: ignore[misc]


def test_engine_settings_of_refuses_a_name_that_is_no_field():
    with pytest.raises(AssertionError):
        sizing.engine_settings_of({"tensor_parallel_size": 2})


def test_cpu_offload_takes_the_decoder_layers_vllm_moves_to_cpu_memory():
    # --cpu-offload-gb N: vLLM moves each GPU's decoder-layer parameters, in order, to pinned CPU memory until it has
    # moved N GiB (models/utils.py maybe_offload_to_cpu, 0.11.0), reading them through UVA views the allocator does not
    # hold; the embeddings, the LM head and the rotary cache stay
    l4 = sizing.Device("L4", 21.99, "nvidia", "ada", 1)
    base = sizing.EngineSettings(tp=4, max_model_len=8192)

    def size(offload_gib: int | None) -> sizing.ReplicaSizing:
        return sizing.size_deployment(LLAMA70, l4, dataclasses.replace(
            base, cpu_offload_bytes=None if offload_gib is None else offload_gib * GIB), "0.11.0")

    whole, off24, off40 = size(None), size(24), size(40)
    assert whole.weights_gib_per_gpu == pytest.approx(32.885379791259766)
    assert whole.weights_fit_band == "refuses"
    assert off24.weights_gib_per_gpu == pytest.approx(8.885379791259766)  # 24 GiB fewer
    assert off24.weights_fit_band == "starts"
    assert off24.kv_cache_gib_per_gpu == pytest.approx(10.165112396240234)
    # 40 GiB is more than the 31.9 GiB of layers a GPU holds: the embedding and LM head shards and the rotary cache
    embed = 2 * 128256 * 8192 * 2 / 4 / GIB
    assert off40.weights_gib_per_gpu == pytest.approx(embed + sizing.rotary_cache_bytes(LLAMA70) / GIB)
    assert off40.weights_gib_per_gpu == pytest.approx(1.009765625)
    # vLLM checks the cap before each parameter and moves it whole, so it may move up to one parameter more: the
    # fused gate-and-up projection of one of 4 GPUs, 2 × 28,672 / 4 × 8,192 × 2 bytes, widens the lighter side
    settings = dataclasses.replace(base, cpu_offload_bytes=24 * GIB)
    assert sizing.offload_overshoot_gib(LLAMA70, settings, "bf16") == 0.21875
    assert sizing.offload_overshoot_gib(LLAMA70, base, "bf16") == 0.0
    exact_below = 8.885379791259766 * 0.005 + 0.05  # weights_band for an unquantised checkpoint's figure
    assert off24.weights_error_below_gib == pytest.approx(exact_below + 0.21875)
    assert sizing.size_deployment(LLAMA70, l4, settings, "0.11.0").weights_error_gib == off24.weights_error_gib


def _offload_group(image: str, args: str, env: str = ""):
    from shardwise.rules.adapters.k8s import load_kubernetes_text

    text = f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama70b}}
spec:
  selector: {{matchLabels: {{app: llama70b}}}}
  template:
    metadata: {{labels: {{app: llama70b}}}}
    spec:
      nodeSelector: {{node.kubernetes.io/instance-type: g6.12xlarge}}
      containers:
      - name: vllm
        image: {image}
        args: [--model, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4", --max-model-len, "8192", {args}]
        env: [{env}]
        resources: {{limits: {{nvidia.com/gpu: 4}}}}
"""
    (g,) = load_kubernetes_text(text, "offload.yaml").groups
    return g


@pytest.mark.parametrize(("image", "args", "env", "weights"), [
    # engine21: every route vLLM takes --cpu-offload-gb by reaches the same term (32.885 GiB a GPU less 24)
    ("vllm/vllm-openai:v0.11.0", '--cpu-offload-gb, "24"', "", 8.885),
    ("vllm/vllm-openai:v0.11.0", '--cpu_offload_gb, "24"', "", 8.885),  # FlexibleArgumentParser's underscores
    ("vllm/vllm-openai:v0.11.0", '"--cpu-offload-gb=24"', "", 8.885),
    # VLLM_WEIGHT_OFFLOADING_DISABLE_UVA, read from 0.17.0 as bool(int(value)): "0" keeps UVA
    ("vllm/vllm-openai:v0.18.0", '--cpu-offload-gb, "24"', '{name: VLLM_WEIGHT_OFFLOADING_DISABLE_UVA, value: "0"}',
     8.885),
    ("vllm/vllm-openai:v0.18.0", '--cpu-offload-gb, "24"', '{name: VLLM_WEIGHT_OFFLOADING_DISABLE_UVA, value: "1"}',
     None),
    # 0.16.0 has no such variable: V1 offloads through UVA whatever it says
    ("vllm/vllm-openai:v0.16.0", '--cpu-offload-gb, "24"', '{name: VLLM_WEIGHT_OFFLOADING_DISABLE_UVA, value: "1"}',
     8.885),
    # create_offloader (0.17.0 - 0.34.0) reads --offload-group-size only under --offload-backend auto
    ("vllm/vllm-openai:v0.18.0", '--cpu-offload-gb, "24", --offload-backend, uva, --offload-group-size, "8"', "",
     8.885),
    ("vllm/vllm-openai:v0.18.0", '--cpu-offload-gb, "24", --offload-group-size, "8"', "", None),
    ("vllm/vllm-openai:v0.18.0", '--cpu-offload-gb, "24", --offload-backend, prefetch', "", None),
])
def test_cpu_offload_reaches_the_sizing_by_every_route_vllm_takes(image: str, args: str, env: str,
                                                                  weights: float | None):
    from shardwise.rules.capacity.group import sizing as group_sizing
    from shardwise.rules.engine import LintConfig
    from shardwise.rules.model import Undecidable

    g = _offload_group(image, args, env)
    if weights is None:
        with pytest.raises(Undecidable) as e:
            group_sizing(g, LintConfig())
        assert e.value.args[0] == "the GPU's share of the weights"
        return
    assert round(group_sizing(g, LintConfig()).weights_gib_per_gpu, 3) == weights


def test_a_longrope_model_without_max_model_len_runs_at_its_original_length_from_0_12():
    # vLLM 0.12.0 on (config/model.py _get_and_verify_max_len, "For LongRoPE, default to
    # original_max_position_embeddings"): with no --max-model-len a LongRoPE config runs at its top-level
    # original_max_position_embeddings; 0.11.0 runs at the limit. Phi-3.5-mini: 4,096 of 131,072
    from shardwise.rules.catalog import find_gpu, find_model

    phi = find_model("microsoft/Phi-3.5-mini-instruct")
    assert phi.max_position_embeddings == 131072 and phi.hf_config["original_max_position_embeddings"] == 4096
    l4 = sizing.Device.of(find_gpu("L4"))
    old = sizing.size_deployment(phi, l4, sizing.EngineSettings(), "0.11.0")
    new = sizing.size_deployment(phi, l4, sizing.EngineSettings(), "0.12.0")
    assert (old.max_model_len, old.verdict) == (131072, "refuses")
    assert (new.max_model_len, new.verdict) == (4096, "starts")
    assert sizing.size_deployment(phi, l4, sizing.EngineSettings(max_model_len=8192), "0.12.0").max_model_len == 8192
    # "su", the legacy name, is renamed to longrope (patch_rope_parameters); without the top-level length the limit
    su = dataclasses.replace(phi, hf_config={**phi.hf_config, "rope_scaling": {**phi.hf_config["rope_scaling"],
                                                                               "type": "su"}})
    assert sizing.longrope_default_len(su, behaviour("0.12.0")) == 4096
    bare = dataclasses.replace(phi, hf_config={k: v for k, v in phi.hf_config.items()
                                               if k != "original_max_position_embeddings"})
    assert sizing.longrope_default_len(bare, behaviour("0.12.0")) is None
    assert sizing.longrope_default_len(LLAMA70, behaviour("0.12.0")) is None


def test_triton_experts_share_one_buffer_for_both_gemm_outputs_from_0_8_4_to_0_10_2():
    """``fused_experts_impl`` (``fused_moe/fused_moe.py``, read in the 0.8.4 - 0.10.2 wheels) keeps the first GEMM's
    output and the second's in one ``cache13`` of ``M × top-k × max(N, K)`` (vllm-project/vllm pull request 13625)
    beside ``intermediate_cache2`` (``N ÷ 2``) and, with FP8 activations, cache2's FP8 copy and its scales a 128. For
    DeepSeek-R1 at TP4 with expert parallelism (hidden 7,168, expert width 2,048, block FP8): (max(4,096, 7,168) +
    2,048) × 2 + 2,048 + 16 × 4 = 20,544 bytes a routed row, where separate caches are (3 × 2,048 + 7,168) × 2 =
    26,624 (0.11.0, not read here, keeps them). On ROCm with ``VLLM_ROCM_USE_AITER=1`` the experts run AITER's
    kernel (``rocm_aiter_fused_experts``, ``is_rocm_aiter_moe_enabled``), whose buffers are not read: the forward
    term stays; ``VLLM_ROCM_USE_AITER_MOE=0`` turns AITER's experts off again."""
    r1 = find_model("deepseek-ai/DeepSeek-R1-0528")
    e = sizing.DEFAULT_ESTIMATES
    tp4 = sizing.EngineSettings(tp=4, expert_parallel=True)
    shared = (max(2 * 2048, 7168) + 2048) * 2 + 2048 + 16 * 4
    assert shared == 20_544
    for release in ("0.8.4", "0.9.2", "0.10.0", "0.10.2"):
        assert sizing.moe_row_bytes(r1, tp4, behaviour(release), B200, "fp8", 2, e) == (20_544, 20_544, False, 0)
    for release in ("0.8.0", "0.11.0"):
        assert sizing.moe_row_bytes(r1, tp4, behaviour(release), B200, "fp8", 2, e) == (26_624, 26_624, False, 0)
    # bf16 experts: no FP8 copy
    assert sizing.moe_row_bytes(r1, tp4, behaviour("0.10.0"), B200, "bf16", 2, e) == (18_432, 18_432, False, 0)
    aiter = sizing.EngineSettings(tp=4, expert_parallel=True, rocm_aiter=True)
    assert sizing.moe_row_bytes(r1, aiter, behaviour("0.10.0"), MI300X, "fp8", 2, e) == (26_624, 26_624, False, 0)
    assert sizing.moe_row_bytes(r1, aiter, behaviour("0.10.0"), B200, "fp8", 2, e) == (20_544, 20_544, False, 0)
    triton_on_rocm = sizing.EngineSettings(tp=4, expert_parallel=True, rocm_aiter=True, rocm_aiter_moe=False)
    assert sizing.moe_row_bytes(r1, triton_on_rocm, behaviour("0.10.0"), MI300X, "fp8", 2, e) == (
        20_544, 20_544, False, 0)


def test_the_rocm_aiter_switches_are_read_from_the_engine_s_environment():
    from shardwise.rules.capacity.group import env_settings

    assert env_settings({"VLLM_ROCM_USE_AITER": "1"}) == {"rocm_aiter": True}
    assert env_settings({"VLLM_ROCM_USE_AITER": "true", "VLLM_ROCM_USE_AITER_MOE": "0"}) == {
        "rocm_aiter": True, "rocm_aiter_moe": False}
    assert env_settings({"VLLM_ROCM_USE_AITER": "yes"}) == {}
