"""EPLB's redundant experts in the weights (issue 28, verdicts19): ``--enable-eplb`` with expert parallelism spreads
``num_experts + num_redundant_experts`` routed experts over the EP ranks (``FusedMoE.global_num_experts``; vLLM
``config/parallel.py`` ``EPLBConfig``, default 0 in 0.11.0 - 0.33.0; 0.34.0 ``compute_eplb_num_redundant_experts``)."""

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
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
EP8 = sizing.EngineSettings(dp=8, expert_parallel=True)
H200 = sizing.Device("H200-141GB", 139.81, "nvidia", "hopper")


def _redundant(release: str, model: ModelShape = DEEPSEEK, **kw: object) -> int:
    return sizing.redundant_experts(behaviour(release), model, dataclasses.replace(EP8, **kw))


def test_the_redundant_experts_by_flag_and_release():
    # no --enable-eplb, or EPLB without expert parallelism (vLLM refuses it), or a dense model: none
    assert _redundant("0.11.0", num_redundant_experts=32) == 0
    assert _redundant("0.11.0", enable_eplb=True, num_redundant_experts=32, expert_parallel=False) == 0
    assert _redundant("0.11.0", dataclasses.replace(DEEPSEEK, moe=None), enable_eplb=True,
                      num_redundant_experts=32) == 0
    # the count given, on every release
    assert _redundant("0.11.0", enable_eplb=True, num_redundant_experts=32) == 32
    assert _redundant("0.34.0", enable_eplb=True, num_redundant_experts=32) == 32
    # none given: 0 before 0.34 (EPLBConfig's default), from 0.34 the least that divides the experts over TP x DP
    assert _redundant("0.33.0", enable_eplb=True, dp=6) == 0
    assert _redundant("0.34.0", enable_eplb=True) == 0  # 256 experts over 8 ranks
    assert _redundant("0.34.0", enable_eplb=True, dp=6) == 2  # 258 over 6
    assert _redundant("0.34.0", enable_eplb=True, tp=2, dp=5) == 4  # 260 over 10
    assert _redundant("0.34.0", enable_eplb=True, dp=6, num_redundant_experts=0) == 0


def test_the_redundant_experts_load_with_the_routed_ones():
    # DeepSeek-V3's routed experts at FP8 (1 byte a parameter): 32 more of 256 over 8 ranks are an eighth of the
    # experts' bytes over 8 more on every rank, out of the KV budget
    base = dataclasses.replace(EP8, max_model_len=8192, max_num_batched_tokens=2048)
    plain = sizing.size_deployment(DEEPSEEK, H200, base, "0.11.0")
    eplb = sizing.size_deployment(DEEPSEEK, H200, dataclasses.replace(base, enable_eplb=True,
                                                                      num_redundant_experts=32), "0.11.0")
    experts = sizing.expert_params(DEEPSEEK) * 1.0
    assert eplb.weights_gib_per_gpu - plain.weights_gib_per_gpu == pytest.approx(experts * 32 / 256 / 8 / GIB)
    assert sizing.expert_params(DEEPSEEK) == 649_097_869_286  # this shape's routed experts (no dense layer named)
    assert experts * 32 / 256 / 8 / GIB == pytest.approx(9.4456, abs=1e-4)
    assert plain.kv_cache_gib_per_gpu - eplb.kv_cache_gib_per_gpu == pytest.approx(experts * 32 / 256 / 8 / GIB,
                                                                                  abs=0.01)
    # --enable-eplb alone at 0.11.0: no redundant expert, the same weights
    alone = sizing.size_deployment(DEEPSEEK, H200, dataclasses.replace(base, enable_eplb=True), "0.11.0")
    assert alone.weights_gib_per_gpu == plain.weights_gib_per_gpu


def _deployment(args: str, ep: bool = True) -> str:
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
        image: vllm/vllm-openai:v0.11.0
        args: [--model, deepseek-ai/DeepSeek-V3, --data-parallel-size, "8",{" --enable-expert-parallel," if ep else ""}
               --max-model-len, "8192", {args}]
        resources: {{limits: {{nvidia.com/gpu: 8}}}}
"""


@pytest.mark.parametrize(("args", "enabled", "count"), [
    ('--enable-eplb, --eplb-config, \'{"num_redundant_experts": 32}\'', True, 32),
    ("--enable-eplb, --eplb-config.num_redundant_experts, \"16\"", True, 16),
    # 0.11's deprecated flag sets eplb_config.num_redundant_experts over the JSON's (engine/arg_utils.py 0.11.2)
    ('--enable-eplb, --num-redundant-experts, "8", --eplb-config, \'{"num_redundant_experts": 32}\'', True, 8),
    ("--enable-eplb", True, None),
    ('--eplb-config, \'{"num_redundant_experts": 32}\'', False, None),  # no --enable-eplb: not read
    ('--enable-eplb, --eplb-config, \'{"window_size": 1000}\'', True, None),
])
def test_lint_reads_the_eplb_flags(args: str, enabled: bool, count: int | None):
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings

    (g,) = load_kubernetes_text(_deployment(args), "ds.yaml").groups
    s = engine_settings(g)
    assert (s.enable_eplb, s.num_redundant_experts) == (enabled, count)


def test_a_count_the_linter_cannot_see_is_undecided_with_expert_parallelism():
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings
    from shardwise.rules.model import Undecidable

    (g,) = load_kubernetes_text(_deployment("--enable-eplb, --eplb-config.num_redundant_experts, $(R)"),
                                "ds.yaml").groups
    with pytest.raises(Undecidable) as e:
        engine_settings(g)
    assert e.value.args[0] == "eplb_config.num_redundant_experts"
    # without expert parallelism the count decides nothing: not read
    (g,) = load_kubernetes_text(_deployment("--enable-eplb, --eplb-config.num_redundant_experts, $(R)", ep=False),
                                "ds.yaml").groups
    assert engine_settings(g).num_redundant_experts is None


def test_plan_and_lint_size_the_redundant_experts_alike():
    from shardwise.rules.app.emit import emit_manifest
    from shardwise.rules.app.plan import PlanRequest, make_plan

    def plan(*engine_args: tuple[str, str]):
        return make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", gpu="H200", vllm_version="0.11.0", tp=1, dp=8,
                                     enable_expert_parallel=True, max_model_len=2560, engine_args=engine_args))

    plain = plan()
    eplb = plan(("enable-eplb", "true"), ("eplb-config", '{"num_redundant_experts": 32}'))
    # DeepSeek-R1's 653,908,770,816 routed-expert parameters at FP8: 32 of 256 experts more over 8 ranks
    assert eplb.shown.sizing.weights_gib_per_gpu - plain.shown.sizing.weights_gib_per_gpu == pytest.approx(
        653_908_770_816 * 32 / 256 / 8 / GIB)
    assert 653_908_770_816 * 32 / 256 / 8 / GIB == pytest.approx(9.515625)
    assert eplb.shown.starts
    # the manifest plan emits carries the flags, and lint reads them back
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings

    groups = load_kubernetes_text(emit_manifest(eplb), "plan.yaml").groups
    assert [(engine_settings(g).enable_eplb, engine_settings(g).num_redundant_experts) for g in groups] == [(True, 32)]


def test_eplb_without_expert_parallel_is_refused_from_0_10():
    # ParallelConfig raises "enable_expert_parallel must be True to use EPLB." from 0.10.0 (0.9.2 checks only the
    # platform and the redundant-expert count), before a layer is built: a refusal whatever the model or the memory
    base = dataclasses.replace(EP8, max_model_len=8192, expert_parallel=False, enable_eplb=True)
    assert sizing.eplb_refusal(base, behaviour("0.9.2"), behaviour("0.9.2").version) == ""
    assert sizing.eplb_refusal(dataclasses.replace(base, expert_parallel=True), behaviour("0.11.0"),
                               behaviour("0.11.0").version) == ""
    refused = sizing.size_deployment(DEEPSEEK, H200, base, "0.11.0")
    assert refused.certain and refused.verdict == "refuses"
    assert refused.refusal == ("--enable-eplb without --enable-expert-parallel is refused at start-up by vLLM 0.11.0's "
                               "ParallelConfig (vLLM: enable_expert_parallel must be True to use EPLB.); add "
                               "--enable-expert-parallel or drop --enable-eplb")
    assert sizing.size_deployment(DEEPSEEK, H200, base, "0.34.0").certain
    assert not sizing.size_deployment(DEEPSEEK, H200, base, "0.9.2").certain


def test_eplb_without_expert_parallel_under_an_assumed_release_is_not_sure():
    # an image tag that names no release (`latest`): the sizing assumes the newest, which refuses, but 0.9.x starts it,
    # so the refusal is not certain; a note says why SW102 cannot decide (review21)
    from shardwise.rules.vllm.versions import ResolvedVersion

    base = dataclasses.replace(EP8, max_model_len=8192, expert_parallel=False, enable_eplb=True)
    assumed = ResolvedVersion(behaviour("0.34.0").version, "assumed", "tag latest names no vLLM release")
    sized = sizing.size_deployment(DEEPSEEK, H200, base, assumed)
    assert not sized.certain and "enable_expert_parallel" not in sized.refusal
    assert [n for n in sized.notes if n.startswith(sizing.EPLB_ASSUMED)] == [
        "cannot decide: enable_eplb: --enable-eplb without --enable-expert-parallel is refused at start-up from vLLM "
        "0.10.0 (ParallelConfig: enable_expert_parallel must be True to use EPLB.) and started by 0.9.x, and vLLM "
        "0.34.0 is only assumed; add --enable-expert-parallel or drop --enable-eplb, or pin the image to a release"]


@pytest.mark.parametrize(("release", "tp", "pcp", "dp", "refusal"), [
    # ParallelConfig (config/parallel.py) from 0.10.0 (vllm-project/vllm#21102, with the switch's check): TP x DP of 1
    ("0.11.0", 1, 1, 1, "--enable-eplb at TP × DP of 1 is refused at start-up by vLLM 0.11.0's ParallelConfig (vLLM: "
                        "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got "
                        "TP=1,DP=1.); spread the model over more than one GPU (--tensor-parallel-size or "
                        "--data-parallel-size above 1) or drop --enable-eplb"),
    ("0.25.1", 1, 2, 1, "--enable-eplb at TP × DP of 1 is refused at start-up by vLLM 0.25.1's ParallelConfig (vLLM: "
                        "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got "
                        "TP=1,DP=1.); spread the model over more than one GPU (--tensor-parallel-size or "
                        "--data-parallel-size above 1) or drop --enable-eplb"),
    # from 0.26.0 prefill context parallelism counts: TP x PCP x DP
    ("0.26.0", 1, 1, 1, "--enable-eplb at TP × PCP × DP of 1 is refused at start-up by vLLM 0.26.0's ParallelConfig "
                        "(vLLM: EPLB requires tensor, prefill-context, or data parallelism, but got TP=1, PCP=1, "
                        "DP=1.); spread the model over more than one GPU (--tensor-parallel-size or "
                        "--data-parallel-size above 1) or drop --enable-eplb"),
    ("0.34.0", 1, 2, 1, ""),
    ("0.11.0", 2, 1, 1, ""),
    ("0.11.0", 1, 1, 2, ""),
    ("0.9.2", 1, 1, 1, ""),  # 0.9.2's ParallelConfig checks only the platform and the count
])
def test_eplb_on_one_expert_parallel_rank_is_refused_from_0_10(release: str, tp: int, pcp: int, dp: int,
                                                                refusal: str):
    s = dataclasses.replace(EP8, tp=tp, dp=dp, prefill_context_parallel=pcp, enable_eplb=True)
    assert bool(sizing.eplb_refusal(s, behaviour(release), behaviour(release).version)) == bool(refusal)
    sized = sizing.size_deployment(DEEPSEEK, H200, dataclasses.replace(s, max_model_len=8192), release)
    assert sized.certain == bool(refusal)
    if refusal:
        assert sized.refusal == refusal


def test_eplb_on_one_rank_under_an_assumed_release_is_not_sure():
    from shardwise.rules.vllm.versions import ResolvedVersion

    s = dataclasses.replace(EP8, dp=1, enable_eplb=True, max_model_len=8192)
    assumed = ResolvedVersion(behaviour("0.34.0").version, "assumed", "tag latest names no vLLM release")
    sized = sizing.size_deployment(DEEPSEEK, H200, s, assumed)
    assert not sized.certain and "EPLB requires" not in sized.refusal
    assert [n for n in sized.notes if n.startswith(sizing.EPLB_ASSUMED)] == [
        "cannot decide: enable_eplb: --enable-eplb at TP × PCP × DP of 1 is refused at start-up from vLLM 0.10.0 "
        "(ParallelConfig: EPLB requires tensor, prefill-context, or data parallelism, but got TP=1, PCP=1, DP=1.), "
        "which 0.9.x does not check, and vLLM 0.34.0 is only assumed; spread the model over more than one GPU "
        "(--tensor-parallel-size or --data-parallel-size above 1) or drop --enable-eplb, or pin the image to a "
        "release"]


@pytest.mark.parametrize(("args", "pcp"), [
    ("--enable-eplb, -pcp, \"2\"", 2),
    ("--enable-eplb, --prefill-context-parallel-size=3", 3),
    ("--enable-eplb", 1),
    ("-pcp, \"2\"", 2),  # no --enable-eplb: its ranks are GPUs the non-torch memory counts (engine24, df2d50b1)
])
def test_lint_reads_pcp_where_it_decides_eplb(args: str, pcp: int):
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings

    (g,) = load_kubernetes_text(_deployment(args), "ds.yaml").groups
    assert engine_settings(g).prefill_context_parallel == pcp


@pytest.mark.parametrize(("dp", "image", "eplb", "decided"), [
    ("8", "v0.11.0", "--enable-eplb, ", False),  # EPLB starts at DP8: PCP's GPUs weigh in the non-torch memory
    ("8", "v0.11.0", "", False),  # no EPLB: the same
    ("1", "v0.11.0", "--enable-eplb, ", True),  # refused at TP x DP of 1 whatever PCP (0.10 - 0.25 read no PCP)
    ("1", "v0.34.0", "--enable-eplb, ", False),  # 0.26+ counts PCP: it decides the refusal
    ("1", "latest", "--enable-eplb, ", False),  # an assumed release may be either
])
def test_a_pcp_the_linter_cannot_see_is_never_read_as_1(dp: str, image: str, eplb: str, decided: bool):
    """engine25: an unseen --prefill-context-parallel-size was read as vLLM's default of 1 by the non-torch term
    wherever it did not decide EPLB's refusal; now the sizing is undecided, but where EPLB is refused whatever it is."""
    from shardwise.rules.adapters.k8s import load_kubernetes_text
    from shardwise.rules.capacity.group import engine_settings
    from shardwise.rules.model import Undecidable

    text = _deployment(f"{eplb}-pcp, $(PCP)").replace('--data-parallel-size, "8"', f'--data-parallel-size, "{dp}"')
    (g,) = load_kubernetes_text(text.replace("v0.11.0", image), "ds.yaml").groups
    if decided:
        assert engine_settings(g).prefill_context_parallel == 1
        return
    with pytest.raises(Undecidable) as e:
        engine_settings(g)
    assert e.value.args[0] == "prefill_context_parallel_size"


def test_sw104_offers_no_layout_vllm_refuses_for_eplb(tmp_path):
    # engine21: Qwen3-30B-A3B-FP8 at TP2 with --enable-expert-parallel --enable-eplb on H100s: SW104 blocked it with
    # "2 replicas x TP1xPP1 EP fit the same GPUs", a layout whose EP world is one rank, which vLLM 0.10+ refuses
    # with EPLB on; no narrower layout starts, so SW104 says nothing (tests/fixtures/rules/SW102/
    # eplb-without-expert-parallel.yaml's second Deployment)
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    path = tmp_path / "qwen3.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen3-moe-eplb-ep, namespace: serving}
spec:
  selector: {matchLabels: {app: q}}
  template:
    metadata: {labels: {app: q}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [Qwen/Qwen3-30B-A3B-FP8, --tensor-parallel-size, "2", --enable-expert-parallel, {eplb}
                 --max-model-len, "32768"]
          resources: {limits: {nvidia.com/gpu: 2}}
""".replace("{eplb}", "--enable-eplb,"))
    assert [f.code for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW104"] == []
    # without EPLB the one-GPU layout starts, and SW104 still offers it
    path.write_text(path.read_text().replace("--enable-eplb,", ""))
    assert [f.code for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW104"] == ["SW104"]


def test_the_routed_experts_are_spread_over_the_pcp_ranks_too():
    """review30: vLLM flattens TP × DP × PCP into one fused-MoE group (FusedMoEParallelConfig.make,
    flatten_tp_across_dp_and_pcp; its EP group, parallel_state.py, is DP × PCP × TP: 0.26.0 wheel), so with -pcp 2
    each GPU holds half the routed experts it holds at PCP 1; engine24 charged it all of them (Qwen3-30B-A3B at TP1
    -pcp 2 on two L40S: 56.9 GiB of weights a GPU, a false SW101)."""
    base = sizing.EngineSettings(tp=8, max_model_len=8192, max_num_batched_tokens=2048)
    one = sizing.size_deployment(DEEPSEEK, H200, base, "0.28.0")
    two = sizing.size_deployment(DEEPSEEK, H200, dataclasses.replace(base, prefill_context_parallel=2), "0.28.0")
    experts = sizing.expert_params(DEEPSEEK) * 1.0  # FP8: a byte a parameter
    assert one.weights_gib_per_gpu - two.weights_gib_per_gpu == pytest.approx(experts / 16 / GIB)
    assert experts / 16 / GIB == pytest.approx(37.7825, abs=1e-4)
    # with expert parallelism too: whole experts over the 16 ranks
    ep = dataclasses.replace(base, expert_parallel=True)
    assert (sizing.size_deployment(DEEPSEEK, H200, ep, "0.28.0").weights_gib_per_gpu
            - sizing.size_deployment(DEEPSEEK, H200, dataclasses.replace(ep, prefill_context_parallel=2),
                                     "0.28.0").weights_gib_per_gpu) == pytest.approx(experts / 16 / GIB)
    # EPLB's least redundant experts (0.34.0) divide the experts over the EP group's TP × DP × PCP ranks
    assert _redundant("0.34.0", enable_eplb=True, dp=7, prefill_context_parallel=2) == 10  # 266 over 14
    assert _redundant("0.34.0", enable_eplb=True, dp=7) == 3  # 259 over 7
    # a TP1 DP1 engine with -pcp 2 holds an ep communicator (its MoE group is the two PCP ranks)
    assert sizing.device_communicators(sizing.EngineSettings(prefill_context_parallel=2), moe=True) == ("pcp", "ep")


_UNSEEN_PCP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x, namespace: serving}
spec:
  replicas: 1
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: INSTANCE}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.28.0
          args: ["--model", "MODEL", "--tensor-parallel-size", "TP", "--prefill-context-parallel-size", "$(PCP)",
                 "--max-model-len", "8192"]
          env:
            - name: PCP
              valueFrom: {configMapKeyRef: {name: vllm-settings, key: pcp}}
          resources: {limits: {nvidia.com/gpu: 4}}
          volumeMounts: [{name: dshm, mountPath: /dev/shm}]
      volumes: [{name: dshm, emptyDir: {medium: Memory}}]
"""


@pytest.mark.parametrize(("model", "tp", "instance", "level"), [
    # dense, 65.7 GiB a GPU at TP2 against 20.3 on an A10G: refused whatever PCP (each rank holds the TP shard)
    ("meta-llama/Llama-3.1-70B-Instruct", "2", "g5.12xlarge", "mandatory"),
    # dense and fits at PCP 1: what PCP changes (its KV split, its communicator) decides the rest: undecided
    ("meta-llama/Llama-3.1-8B-Instruct", "2", "g5.12xlarge", "advisory"),
    # MoE: 56.9 GiB a GPU at TP1 PCP 1 on an L40S, but PCP spreads the routed experts: undecided
    ("Qwen/Qwen3-30B-A3B", "1", "g6e.12xlarge", "advisory"),
])
def test_an_unseen_pcp_is_undecided_but_where_the_weights_are_refused_whatever_it_is(tmp_path, model, tp, instance,
                                                                                       level):
    """review30: engine25 made every sizing with a -pcp the linter cannot see undecided, SW101's sure refusal of a
    dense model's weights too, which no PCP value changes."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    path = tmp_path / "x.yaml"
    path.write_text(_UNSEEN_PCP.replace("MODEL", model).replace("TP", tp).replace("INSTANCE", instance))
    [sw101] = [f for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW101"]
    assert (sw101.level, sw101.undecided) == (level, level == "advisory")
    if level == "mandatory":
        assert sw101.message == (
            "meta-llama/Llama-3.1-70B-Instruct in bf16 needs 65.7 GiB (−0.4/+1.6) of weights per GPU at TP2×PP1 "
            "(whatever its --prefill-context-parallel-size, not known yet: each PCP rank holds them), but "
            "gpu_memory_utilization 0.92 × 22.1 GiB (A10G) allows 20.3 GiB; vLLM will fail at start-up (vLLM 0.28.0 "
            "from the image tag); spread the weights over more GPUs with a wider --tensor-parallel-size or more "
            "pipeline stages (each prefill context-parallel rank holds the same shard, and multiplies the GPUs a "
            "replica requests), serve an FP8 or 4-bit quantised checkpoint, or use a GPU with more memory")
    else:
        assert "prefill_context_parallel_size is not known" in sw101.message
