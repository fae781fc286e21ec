"""The MoE dispatch backend of a data-parallel engine with expert parallelism, and the DeepEP buffers it allocates
(issue 28): sizes from vLLM's ``distributed/device_communicators/all2all.py`` and DeepEP's ``csrc/config.hpp``."""

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.group import env_settings
from shardwise.rules.model.shapes import MlaShape, ModelShape, MoeShape
from shardwise.rules.vllm.versions import behaviour

GIB = 1024**3
DEEPSEEK = ModelShape(
    id="deepseek-ai/DeepSeek-V3", params=671_026_419_200, num_hidden_layers=61, hidden_size=7168,
    num_attention_heads=128, num_key_value_heads=128, head_dim=192, intermediate_size=18432,
    vocab_size=129280, max_position_embeddings=163840, precision="fp8",
    moe=MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048),
    mla=MlaShape(kv_lora_rank=512, qk_rope_head_dim=64),
)
DENSE = dataclasses.replace(DEEPSEEK, moe=None)
EP8 = sizing.EngineSettings(dp=8, expert_parallel=True)


def _backend(release: str, **kw: object) -> str:
    return sizing.all2all_backend(behaviour(release), dataclasses.replace(EP8, **kw))


def test_the_backend_by_release_flag_and_variable():
    # 0.10.2: the variable alone, default naive; 0.11.0: default allgather_reducescatter, no flag yet
    assert _backend("0.10.2") == "naive"
    assert _backend("0.10.2", all2all_backend_env="deepep_low_latency") == "deepep_low_latency"
    assert _backend("0.11.0") == "allgather_reducescatter"
    # 0.11.1 - 0.13: the flag, the variable only where the flag is not given
    assert _backend("0.12.0", all2all_backend="deepep_high_throughput",
                    all2all_backend_env="deepep_low_latency") == "deepep_high_throughput"
    assert _backend("0.12.0", all2all_backend_env="deepep_low_latency") == "deepep_low_latency"
    # 0.14 - 0.15: a set variable replaces the flag (with a deprecation warning)
    assert _backend("0.15.0", all2all_backend="deepep_high_throughput",
                    all2all_backend_env="deepep_low_latency") == "deepep_low_latency"
    assert _backend("0.15.1", all2all_backend_env="pplx") == "pplx"
    # 0.16 on: the variable is not read (the 0.16.0 wheel's envs.py has no VLLM_ALL2ALL_BACKEND, vllm#33535)
    assert _backend("0.16.0", all2all_backend_env="deepep_low_latency") == "allgather_reducescatter"
    assert _backend("0.17.1", all2all_backend="pplx", all2all_backend_env="deepep_low_latency") == "pplx"
    assert _backend("0.18.0", all2all_backend_env="deepep_low_latency") == "allgather_reducescatter"
    assert _backend("0.30.0", all2all_backend="deepep_low_latency") == "deepep_low_latency"


def test_deepep_low_latency_rdma_size_hint():
    # DeepSeek-V3 (hidden 7,168, 256 experts) at VLLM_MOE_DP_CHUNK_SIZE's 256 tokens: dispatch messages of
    # 16 + max(14,336, 7,168 + 56 x 4) = 14,352 bytes, combine messages of 56 x 4 + 14,336 = 14,560 bytes; send
    # max(256 x 14,352, 256 x 256 x 14,560) and receive 256 x 256 x 14,560, each twice
    assert sizing.deepep_ll_rdma_bytes(256, 7168, 256) == (4 * 256 * 256 * 14560 + 128) // 128 * 128
    assert sizing.deepep_ll_rdma_bytes(256, 7168, 256) == 3_816_816_768
    # a small model: the dispatch send buffer is never the larger one (experts x tokens x combine message)
    assert sizing.deepep_ll_rdma_bytes(128, 2048, 128) == (4 * 128 * 128 * (16 * 4 + 4096) + 128) // 128 * 128


def test_deepep_buffers_per_rank():
    b = behaviour("0.18.0")
    ht = dataclasses.replace(EP8, all2all_backend="deepep_high_throughput")
    ll = dataclasses.replace(EP8, all2all_backend="deepep_low_latency")
    # the default backend, no expert parallelism, one DP rank, a dense model: no DeepEP buffer
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, EP8) == 0.0
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ht, expert_parallel=False)) == 0.0
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ht, dp=1, tp=8)) == 0.0
    assert sizing.all2all_buffers_gib(b, DENSE, ht) == 0.0
    # high throughput: one NVLink buffer of VLLM_DEEPEP_BUFFER_SIZE_MB (1,024) on one node, an RDMA buffer as large
    # across nodes unless VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE is set
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, ht) == 1.0
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ht, dp=16)) == 2.0
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ht, dp=16, deepep_force_intra_node=True)) == 1.0
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ht, deepep_buffer_mb=2048)) == 2.0
    # low latency: the NVLink buffer and the RDMA size hint for 256 tokens a rank (VLLM_MOE_DP_CHUNK_SIZE)
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, ll) == (GIB + 3_816_816_768) / GIB
    assert sizing.all2all_buffers_gib(b, DEEPSEEK, dataclasses.replace(ll, moe_dp_chunk_size=128)) == (
        GIB + sizing.deepep_ll_rdma_bytes(128, 7168, 256)) / GIB


def test_deepep_buffers_come_out_of_the_kv_budget():
    h200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")
    moe = dataclasses.replace(DEEPSEEK, hf_config={"first_k_dense_replace": 3})
    base = dataclasses.replace(EP8, max_model_len=8192, max_num_batched_tokens=2048)
    ag = sizing.size_deployment(moe, h200, base, "0.15.0")
    ht = sizing.size_deployment(moe, h200, dataclasses.replace(base, all2all_backend="deepep_high_throughput"),
                                "0.15.0")
    # allocated at load_model, after the worker's snapshot: the non-torch increase, so the KV budget, holds them
    assert ht.non_torch_gib_per_gpu - ag.non_torch_gib_per_gpu == pytest.approx(1.0)
    assert ag.kv_cache_gib_per_gpu - ht.kv_cache_gib_per_gpu == pytest.approx(1.0, abs=0.01)


def test_the_environment_names_the_backend_and_its_buffers():
    assert env_settings({"VLLM_ALL2ALL_BACKEND": " DeepEP_Low_Latency ", "VLLM_DEEPEP_BUFFER_SIZE_MB": "512",
                         "VLLM_MOE_DP_CHUNK_SIZE": "128", "VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE": "1"}) == {
        "all2all_backend_env": "deepep_low_latency", "deepep_buffer_mb": 512, "moe_dp_chunk_size": 128,
        "deepep_force_intra_node": True}
    # counts that are not positive integers are not read (vLLM's int() would refuse them)
    assert env_settings({"VLLM_DEEPEP_BUFFER_SIZE_MB": "0", "VLLM_MOE_DP_CHUNK_SIZE": "x", "VLLM_ALL2ALL_BACKEND": ""}) \
        == {}


def _deployment(dp: int, backend: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ds, namespace: llm}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: ds}}}}
  template:
    metadata: {{labels: {{app: ds}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H200}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.15.0
        args: [--model, deepseek-ai/DeepSeek-V3, --data-parallel-size, "{dp}", --enable-expert-parallel,
               --max-model-len, "32768", --all2all-backend, "{backend}"]
        resources: {{limits: {{nvidia.com/gpu: {dp}}}}}
"""


def test_a_backend_the_linter_cannot_see_is_undecided_where_it_decides_the_buffers():
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings
    from shardwise.rules.model import Undecidable

    (g,) = load_kubernetes_text(_deployment(8, "deepep_high_throughput"), "ds.yaml").groups
    assert engine_settings(g).all2all_backend == "deepep_high_throughput"
    (g,) = load_kubernetes_text(_deployment(8, "$(A2A)"), "ds.yaml").groups
    with pytest.raises(Undecidable) as e:
        engine_settings(g)
    assert e.value.args[0] == "all2all_backend"
    # one DP rank: the backend is not used (use_all2all_kernels), so an unseen value is not read
    (g,) = load_kubernetes_text(_deployment(1, "$(A2A)"), "ds.yaml").groups
    assert engine_settings(g).all2all_backend is None


def test_a_batched_dispatch_holds_its_fixed_slots_whatever_the_batch():
    """DeepEP low-latency and pplx dispatch in the batched format (``FusedMoEActivationFormat.BatchedExperts``): the
    experts' caches are ``(local experts, max_num_tokens × num_dispatchers, max(K, N))`` and ``(…, N ÷ 2)``, the
    output sharing the first (``BatchedDeepGemmExperts`` / ``BatchedTritonExperts.workspace_shapes``), and the
    received tokens a tensor of the same slots; ``max_num_tokens`` is ``VLLM_MOE_DP_CHUNK_SIZE`` (256), the
    dispatchers the DP ranks. DeepSeek-V3 over DP8 + EP: 32 experts a rank × 256 × 8 = 65,536 slots of
    (7,168 + 2,048) × 2 bytes of caches and 7,168 × 2 received (this shape's experts are not block FP8: BF16
    dispatch) = 32,768 bytes, whatever the profile's 8,192 tokens route; the naive dispatch's rows were
    8,192 × 8 ranks × top-8 = 524,288."""
    b = behaviour("0.12.0")
    ll = dataclasses.replace(EP8, all2all_backend="deepep_low_latency")
    assert sizing.batched_dispatch_rows(DEEPSEEK, ll, b, "fp8") == 32 * 256 * 8 == 65_536
    assert sizing.batched_dispatch_rows(DEEPSEEK, dataclasses.replace(ll, all2all_backend="pplx"), b, "fp8") == 65_536
    # VLLM_MOE_DP_CHUNK_SIZE sizes the slots; EPLB's 32 redundant experts are 36 a rank
    assert sizing.batched_dispatch_rows(DEEPSEEK, dataclasses.replace(ll, moe_dp_chunk_size=384), b, "fp8") == 98_304
    eplb = dataclasses.replace(ll, enable_eplb=True, num_redundant_experts=32)
    assert sizing.batched_dispatch_rows(DEEPSEEK, eplb, b, "fp8") == 36 * 256 * 8 == 73_728
    # not batched: high-throughput (the standard format), the default backend, one DP rank, no EP, a dense model,
    # experts the batched kernels do not take (MXFP4)
    assert sizing.batched_dispatch_rows(DEEPSEEK, dataclasses.replace(ll, all2all_backend="deepep_high_throughput"),
                                        b, "fp8") == 0
    assert sizing.batched_dispatch_rows(DEEPSEEK, EP8, b, "fp8") == 0
    assert sizing.batched_dispatch_rows(DEEPSEEK, dataclasses.replace(ll, dp=1), b, "fp8") == 0
    assert sizing.batched_dispatch_rows(DEEPSEEK, dataclasses.replace(ll, expert_parallel=False), b, "fp8") == 0
    assert sizing.batched_dispatch_rows(DENSE, ll, b, "fp8") == 0
    assert sizing.batched_dispatch_rows(DEEPSEEK, ll, b, "mxfp4") == 0
    h200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")
    e = sizing.DEFAULT_ESTIMATES
    rows = sizing.moe_row_bytes(DEEPSEEK, ll, b, h200, "fp8", 2, e)
    assert rows == ((7168 + 2048) * 2 + 7168 * 2, (7168 + 2048) * 2 + 7168 * 2, False, 65_536)
    assert rows.central == 32_768
    fwd, _, _ = sizing._forward_parts(DEEPSEEK, ll, 8192, 2, e, 0, rows)
    assert fwd == 65_536 * 32_768 + 8192 * 7168 * 2 * 2
    assert sizing._routed_bytes(DEEPSEEK, ll, 8192, 2, e, 0, rows) == 65_536 * 32_768 == 2 * GIB


def test_dynamo_dsr1_8gpu_decode_worker_profiles_deepep_low_latency_s_slots():
    """Set 24's dynamo-dsr1-8gpu-decode-h200-dp8-ep-ll-eplb-v011 (NVIDIA Dynamo recipes/deepseek-r1/vllm/disagg/
    deploy.yaml at 409bade: DeepSeek-R1 DP8 + EP, VLLM_ALL2ALL_BACKEND=deepep_low_latency, EPLB with 32 redundant
    experts, 2,560 tokens, vLLM 0.11.0 on H200): 36 experts a rank × 256 slots × 8 dispatchers = 73,728 slots of
    (7,168 + 2,048) × 2 bytes of caches and 7,168 + 56 × 4 of block-FP8 tokens received = 25,824 bytes, 1.77 GiB,
    where the naive dispatch's 8,192 tokens × 8 ranks × top-8 rows were charged before (activation 6.72 GiB, the
    cache 140,544 tokens a GPU)."""
    from shardwise.rules.app.plan import PlanRequest, make_plan

    eplb = '{"window_size":"1000","step_interval":"3000","num_redundant_experts":"32","log_balancedness":"False"}'
    req = dict(model="deepseek-ai/DeepSeek-R1", gpu="H200", vllm_version="0.11.0", tp=1, dp=8,
               enable_expert_parallel=True, max_model_len=2560, env=(("VLLM_ALL2ALL_BACKEND", "deepep_low_latency"),),
               engine_args=(("async-scheduling", "true"), ("enable-eplb", "true"), ("eplb-config", eplb),
                            ("compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLY"}')))
    shown = make_plan(PlanRequest(**req)).shown
    assert shown.starts
    assert round(shown.sizing.activation_gib_per_gpu, 2) == 2.08
    assert shown.sizing.kv_cache_tokens == 211_392
    from shardwise.rules.catalog import find_model

    r1 = find_model("deepseek-ai/DeepSeek-R1")
    s = sizing.EngineSettings(dp=8, expert_parallel=True, all2all_backend_env="deepep_low_latency", enable_eplb=True,
                              num_redundant_experts=32)
    h200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")
    rows = sizing.moe_row_bytes(r1, s, behaviour("0.11.0"), h200, "fp8", 2, sizing.DEFAULT_ESTIMATES)
    assert rows == (25_824, 25_824, False, 73_728)
    assert rows.rows * rows.central == 1_903_951_872


def test_a_release_not_named_is_dated_by_vllm_all2all_backend():
    """A deployment that names no release but sets VLLM_ALL2ALL_BACKEND was written for a release that reads it: sized
    at 0.15.1, the newest (0.16.0 removed the variable), still assumed, and the note says why; a release named (given,
    an image tag) is kept, and an empty variable dates nothing."""
    from shardwise.rules.vllm.versions import CURRENT_RELEASE, dated_by_env, resolve

    assumed = resolve(None, None, missing="--vllm-version not given")
    dated = dated_by_env(assumed, {"VLLM_ALL2ALL_BACKEND": "pplx"})
    assert (str(dated.version), dated.source) == ("0.15.1", "assumed")
    assert dated.note == ("vLLM 0.15.1, assumed: --vllm-version not given; its VLLM_ALL2ALL_BACKEND is read by no "
                          "release after 0.15.1 (0.16.0 removed it), so the newest release that reads it is taken")
    assert dated_by_env(assumed, {"VLLM_ALL2ALL_BACKEND": " "}) is assumed
    assert str(dated_by_env(assumed, {}).version) == CURRENT_RELEASE
    for named in (resolve("0.18.0"), resolve(None, "vllm/vllm-openai:v0.20.0")):
        assert dated_by_env(named, {"VLLM_ALL2ALL_BACKEND": "pplx"}) is named


LLMD_PREFILL = dict(model="deepseek-ai/DeepSeek-R1-0528", gpu="H200", tp=1, dp=8, enable_expert_parallel=True,
                    env=(("VLLM_ALL2ALL_BACKEND", "deepep_high_throughput"),))


def test_plan_sizes_a_recipe_s_all2all_variable_at_a_release_that_reads_it():
    """Set 24's llmd-wideep-base-prefill-dsr1-0528-h200-dp8-ep-ht (llm-d's wide-EP prefill: DeepSeek-R1-0528 DP8 + EP
    on one H200 node, VLLM_ALL2ALL_BACKEND=deepep_high_throughput, no release named). At the assumed 0.34.0 the
    variable is not read and the default allgather_reducescatter routes every rank's 8,192 tokens x top-8 on each
    rank (activation 14.84 GiB, 'may refuse'); sized at 0.15.1, DeepEP high-throughput sends a token only to its
    experts' ranks: activation 8.07 GiB and 319,616 tokens a GPU, and the full 163,840-token context starts."""
    from shardwise.rules.app.plan import PlanRequest, make_plan

    shown = make_plan(PlanRequest(**LLMD_PREFILL)).shown  # type: ignore[arg-type]
    assert shown.sizing.vllm_version == "0.15.1"
    assert shown.starts
    assert round(shown.sizing.activation_gib_per_gpu, 2) == 8.07
    assert shown.sizing.kv_cache_tokens == 319_616
    assert shown.sizing.max_model_len == 163_840
    assert [f.code for f in shown.findings if f.level == "mandatory"] == []
    named = make_plan(PlanRequest(**LLMD_PREFILL, vllm_version="0.34.0")).shown  # type: ignore[arg-type]
    assert round(named.sizing.activation_gib_per_gpu, 2) == 14.84
    assert not named.starts


def test_lint_dates_a_manifest_s_release_as_plan_does(tmp_path):
    """The same engine as a manifest whose image names no release (``:latest``): lint takes 0.15.1 as plan does, and
    says why in its findings (SW105's at 0.99 quoted); the same manifest on a v0.18.0 image keeps 0.18.0 (the variable
    ignored there)."""
    from shardwise.rules.app.run import LintOptions, lint_report

    def manifest(image: str) -> str:
        return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: wide-ep-prefill
spec:
  replicas: 1
  selector:
    matchLabels: {{app: prefill}}
  template:
    metadata:
      labels: {{app: prefill}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H200
      containers:
      - name: vllm
        image: {image}
        args: ["vllm", "serve", "deepseek-ai/DeepSeek-R1-0528", "--data-parallel-size", "8",
               "--enable-expert-parallel", "--gpu-memory-utilization", "0.99"]
        env:
        - name: VLLM_ALL2ALL_BACKEND
          value: deepep_high_throughput
        resources:
          limits:
            nvidia.com/gpu: 8
"""

    said = {}
    for image in ("vllm/vllm-openai:latest", "vllm/vllm-openai:v0.18.0"):
        path = tmp_path / f"{image.rsplit(':', 1)[1]}.yaml"
        path.write_text(manifest(image))
        report = lint_report([str(path)], LintOptions(jobs=1))
        said[image] = [f.message for f in report.findings if f.code == "SW105"]
    head = ("gpu_memory_utilization is 0.99, above 0.95: no headroom for the CUDA context, NCCL buffers, CUDA graphs, "
            "the sampler warm-up and fragmentation ")
    assert said == {
        "vllm/vllm-openai:latest": [
            head + "(the default is 0.9 in vLLM 0.15.1, assumed: tag latest names no vLLM release; declare it with the "
            "annotation shardwise.dev/vllm-version; its VLLM_ALL2ALL_BACKEND is read by no release after 0.15.1 "
            "(0.16.0 removed it), so the newest release that reads it is taken)"],
        "vllm/vllm-openai:v0.18.0": [head + "(vLLM 0.18.0's default is 0.9)"],
    }
