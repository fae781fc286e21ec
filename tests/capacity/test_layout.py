"""rules/capacity/layout.py: the layout search that `shardwise plan`, SW104, SW106 and SW202 share, and the promise it
keeps: a layout plan recommends is one `shardwise lint` does not block, and a layout plan marks with a mandatory
finding is one lint blocks with the same code."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import main
from shardwise.rules.app.plan import PlanRequest, make_plan
from shardwise.rules.capacity.layout import (
    Node,
    Parallel,
    Sizer,
    gpu_counts,
    judge,
    layouts_for,
    plural,
    serves,
    smaller,
    tp_allowed,
    weight_load_refusals,
)
from shardwise.rules.capacity.sizing import Device, EngineSettings
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.vllm.versions import resolve

LLAMA_70B = find_model("meta-llama/Llama-3.1-70B-Instruct", None)  # 64 attention heads, 80 layers
DEEPSEEK_R1 = find_model("deepseek-ai/DeepSeek-R1", None)


def test_parallel_text_and_gpu_counts():
    assert (Parallel(4, 2).text(), Parallel(4, 2).gpus, Parallel(4, 2).world) == ("TP4×PP2", 8, 8)
    assert (Parallel(1, 1, 8, True).text(), Parallel(1, 1, 8, True).gpus, Parallel(1, 1, 8, True).world) == (
        "TP1×PP1×DP8 EP", 1, 8)
    assert (plural(1, "sequence"), plural(2, "sequence"), plural(1024, "GPU")) == (
        "1 sequence", "2 sequences", "1,024 GPUs")


def test_smaller_layouts_split_one_engine_evenly_fewest_gpus_first():
    assert smaller(LLAMA_70B, Parallel(4, 2)) == [
        Parallel(1, 1), Parallel(2, 1), Parallel(1, 2), Parallel(4, 1), Parallel(2, 2), Parallel(1, 4)]
    # any TP × PP that divides the engine's GPUs, not only divisors of its TP and PP: two TP1 × PP2 replicas split
    # one TP4 engine's GPUs as evenly as two TP2 do
    assert smaller(LLAMA_70B, Parallel(4)) == [Parallel(1), Parallel(2), Parallel(1, 2)]
    # SW202 asks only for TPs inside the NVLink domain (1: PCIe only), and keeps the asked PP itself
    assert smaller(LLAMA_70B, Parallel(4, 1), max_tp=1) == [Parallel(1, 1), Parallel(1, 2)]
    assert smaller(LLAMA_70B, Parallel(1, 1)) == []


def test_smaller_layouts_of_an_absurd_engine_are_sought_up_to_the_most_gpus():
    """fuzz21: the search tried every count up to the engine's GPUs (TP 2,147,483,646 × PP 2,147,483,647: 4.6e18)."""
    from shardwise.rules.capacity.layout import MOST_GPUS, _divisors

    assert _divisors(12, MOST_GPUS) == [1, 2, 3, 4, 6, 12]
    assert _divisors(2**62, MOST_GPUS) == [2**k for k in range(17)]
    engine = Parallel(2**31 - 2, 2**31 - 1)
    found = smaller(LLAMA_70B, engine)
    assert found[:3] == [Parallel(1, 1), Parallel(2, 1), Parallel(1, 2)] and max(p.gpus for p in found) <= MOST_GPUS


@pytest.mark.parametrize("stages", ["32768", "2147483647"])
def test_a_pipeline_of_more_stages_than_layers_is_judged_without_a_layout_per_stage(tmp_path, capsys, stages):
    """fuzz_campaign lint seed 8110 input 750: SW106's refusing-layout fixture with the word "32768" pushed into
    its first Deployment's ``--pipeline-parallel-size`` took 99 s of CPU (a layout per stage, each stage's layers
    found from a list of every stage); ``2147483647`` held it longer than anyone waits. What blocks is unchanged."""
    text = (ROOT / "tests/fixtures/rules/SW106/refusing-layout.yaml").read_text(encoding="utf-8").replace(
        '--pipeline-parallel-size, "2", --max', f'--pipeline-parallel-size, "{stages}", "2", --max', 1)
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    assert main(["lint", str(tmp_path / "m.yaml"), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    first = sorted(f["code"] for f in findings if f["subject"].endswith("/gemma3n-pp2-no-load"))
    assert first == ["SW102", "SW203", "SW204", "SW401"]
    assert f"pipeline_parallel_size {stages} exceeds the 35 layers" in " ".join(f["message"] for f in findings)


def test_layouts_for_keep_tp_inside_the_nvlink_domain_and_pipeline_beyond_it():
    # 8 GPUs of 4-GPU PCIe nodes (g6e.12xlarge): no TP over PCIe, 8 pipeline stages
    assert layouts_for(LLAMA_70B, 8, Node(4, 1)) == [Parallel(1, 8)]
    # H100 NVL pairs: TP2 on the bridge, PP2 across the pairs
    assert layouts_for(LLAMA_70B, 4, Node(4, 2)) == [Parallel(2, 2)]
    # NVSwitch nodes of 8: TP8 inside a node, PP2 across two nodes; a fixed --pp takes the rest as TP
    assert layouts_for(LLAMA_70B, 16, Node(8, 8)) == [Parallel(8, 2)]
    assert layouts_for(LLAMA_70B, 8, Node(8, 8), pp=2) == [Parallel(4, 2)]
    # a mixture-of-experts model also gets the same GPUs as data-parallel engines with the experts spread
    assert layouts_for(DEEPSEEK_R1, 8, Node(8, 8)) == [Parallel(8, 1), Parallel(1, 1, 8, True)]
    # ... inside the NVLink domain, as tensor parallelism: not across 8-GPU nodes joined by EFA, but across the trays
    # of a GB200 NVL72 rack (4 GPUs a tray, 72 in the domain), as NVIDIA Dynamo's DP8 and DP16 + EP recipes run them
    assert layouts_for(DEEPSEEK_R1, 16, Node(8, 8)) == [Parallel(8, 2)]
    assert layouts_for(DEEPSEEK_R1, 8, Node(4, 72)) == [Parallel(8, 1), Parallel(1, 1, 8, True)]
    assert layouts_for(DEEPSEEK_R1, 16, Node(4, 72)) == [Parallel(16, 1), Parallel(1, 1, 16, True)]
    assert layouts_for(DEEPSEEK_R1, 8, Node(4, 1)) == [Parallel(1, 8)]  # PCIe nodes: the node bounds it
    assert gpu_counts(Node(4, 1)) == ([1, 2, 4], [8, 16])
    assert gpu_counts(Node(8, 8)) == ([1, 2, 4, 8], [16, 32])


def test_layouts_for_with_the_experts_spread_keep_an_expert_parallel_group_on_pcie_nodes():
    """--enable-expert-parallel on a node without NVLink (plan case pr29240-glm46-fp8-rtxpro6000-search-32k: GLM-4.6-FP8
    on 8 x RTX PRO 6000, planned TP1 x PP8 "with expert parallelism"). vLLM's EP group is a pipeline stage's TP x DP
    ranks (FusedMoEParallelConfig.make: use_ep = dp_size x tp_size > 1 and enable_expert_parallel), so stages alone
    spread no expert: the TP spans the node's GPUs, as the PR's author ran TP8 + EP."""
    assert layouts_for(DEEPSEEK_R1, 8, Node(8, 1), expert_parallel=True) == [Parallel(8, 1), Parallel(1, 1, 8, True)]
    assert layouts_for(DEEPSEEK_R1, 4, Node(8, 1), expert_parallel=True) == [Parallel(4, 1), Parallel(1, 1, 4, True)]
    # over two 4-GPU PCIe nodes: the node's four GPUs a stage, two stages across the nodes
    assert layouts_for(DEEPSEEK_R1, 8, Node(4, 1), expert_parallel=True) == [Parallel(4, 2)]
    # without the experts asked spread, and for a dense model, the PCIe rule stands: pipeline stages
    assert layouts_for(DEEPSEEK_R1, 8, Node(8, 1)) == [Parallel(1, 8), Parallel(1, 1, 8, True)]
    assert layouts_for(LLAMA_70B, 8, Node(8, 1), expert_parallel=True) == [Parallel(1, 8)]
    assert layouts_for(DEEPSEEK_R1, 1, Node(8, 1), expert_parallel=True) == [Parallel(1, 1)]


def test_plan_spreads_data_parallel_engines_over_the_trays_of_an_nvlink_rack():
    """DeepSeek-R1 (FP8, MLA) on GB200 trays (p6e-gb200.36xlarge: 4 GPUs, one NVLink domain of 72) at a p95 context
    of 9,000 (vLLM 0.12.0): no 4-GPU layout has room, and of the 8-GPU ones, eight data-parallel engines with the
    experts spread each keep their own KV cache (MLA's latent is not split by TP, so TP8 keeps one GPU's worth for the
    whole engine): they hold 744 sequences of 9,000 tokens beyond the error band where TP8 holds 125. Before, data
    parallelism stopped at the tray's 4 GPUs (issue 28: "bound the search by what a node and its NVLink domain
    hold"). The recommendation counts the replica's sequences of max_model_len over its 8 engines (5 each), not
    one engine's."""
    from shardwise.rules.app.plan import engine_text, plan_text

    plan = make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", instance_type="p6e-gb200.36xlarge",
                                 vllm_version="0.12.0", p95_context=9000))
    eight = {engine_text(c.parallel): c.holds for c in plan.candidates if c.parallel.world == 8}
    # 0.12.0 routes the 8 engines' 65,536 gathered profile tokens 16,384 at a time (envs.py VLLM_FUSED_MOE_CHUNK_SIZE,
    # tokmisc12; 760 sequences, 40 of max_model_len and 967,552 tokens while 32,768 were charged): the sampler is the peak
    # plancases27: on a GB200 (10.0) at 0.12.0 the block-FP8 experts run on DeepGEMM and keep its working buffers
    # through the sampler run: 784 -> 744 sequences, 48 -> 40 of max_model_len
    assert eight == {"TP8": 125, "TP1 × DP8 with expert parallelism": 744}
    assert plan.chosen is not None and engine_text(plan.chosen.parallel) == "TP1 × DP8 with expert parallelism"
    assert [f.code for f in plan.chosen.findings if f.level == "mandatory"] == []
    (rec,) = [line for line in plan_text(plan).splitlines() if line.startswith("recommended: ")]
    assert rec.startswith("recommended: TP1 × DP8 with expert parallelism; one replica holds 40 sequences of 163,840 "
                          "tokens (max_model_len), 744 of 9,000 (the p95 context); TP1 × DP8 with expert parallelism "
                          "= 8 GPUs: one replica spans 2 4-GPU nodes;")
    rows = [line.strip() for line in plan_text(plan).splitlines()]
    assert [r for r in rows if r.startswith(("KV cache tokens", "max concurrency"))] == [
        "KV cache tokens             946,944 ('GPU KV cache size') in each of the 8 data-parallel engines",
        "max concurrency             5.78x at 163,840 tokens in each of the 8 data-parallel engines"]


def plan_json(capsys, *argv: str) -> dict:
    assert main(["plan", *argv, "--vllm-version", "0.11.0", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_refuses_tells_without_sizing_what_the_sizing_says_of_weights_that_do_not_fit():
    """The layout search skips a smaller layout whose weights alone surely do not fit before sizing it (issue 30: a
    quarter of a 2,000-file lint's sizings). Llama-3.1-70B on L4s (19.79 GiB usable at 0.9): 131.45 GiB at TP1,
    65.74 at TP2, 32.89 at TP4 refuse; 16.46 at TP8 starts; FP8 halves the weights and 4-bit AWQ quarters them.
    With several pipeline stages the stage the sizing judges depends on the whole profile, so the layout refuses
    unsized only where every stage's weights do (TP1×PP2 65.74, TP2×PP2 32.89, TP1×PP4 33.86 GiB on the worst
    stage); TP4×PP2 (16.46), TP2×PP4 (16.95) and TP1×PP8 (17.93) start, and the sizing decides them."""
    sz = Sizer(LLAMA_70B, Device.of(find_gpu("L4"), find_gpu("L4").memory_gib),
               EngineSettings(gpu_memory_utilization=0.9), resolve("0.11.0"))
    told = {(q, p.text()): sz.refuses(p, quantization=q)
            for q in (None, "fp8", "awq") for p in (Parallel(1), Parallel(2), Parallel(4), Parallel(8))}
    assert [k for k, v in told.items() if v] == [
        (None, "TP1×PP1"), (None, "TP2×PP1"), (None, "TP4×PP1"), ("fp8", "TP1×PP1"), ("fp8", "TP2×PP1"),
        ("awq", "TP1×PP1")]
    for (q, _), p in zip(told, [Parallel(1), Parallel(2), Parallel(4), Parallel(8)] * 3, strict=True):
        s = sz.size(p, quantization=q)
        assert told[(q, p.text())] == (s.weights_fit_band == "refuses")
        if told[(q, p.text())]:
            assert judge(s, p, None).starts == "refuses"
    stages = [Parallel(1, 2), Parallel(2, 2), Parallel(1, 4), Parallel(4, 2), Parallel(2, 4), Parallel(1, 8)]
    assert [(p.text(), sz.refuses(p), sz.size(p).weights_fit_band) for p in stages] == [
        ("TP1×PP2", True, "refuses"), ("TP2×PP2", True, "refuses"), ("TP1×PP4", True, "refuses"),
        ("TP4×PP2", False, "starts"), ("TP2×PP4", False, "starts"), ("TP1×PP8", False, "starts")]
    for p in stages[:3]:
        assert judge(sz.size(p), p, None).starts == "refuses" and sz.passes_over(p, None)


def test_passes_over_only_layouts_whose_sizing_would_not_serve_the_model():
    """A search that asks whether a smaller layout serves the model (no declared load: SW104's reserve, SW106's and
    SW202's replicas) passes over a layout whose weights alone leave no room for a KV cache, before sizing it
    (issue 30). Llama-3.1-70B at max_model_len 8192, 0.9 of the GPU: besides the layouts whose weights refuse, TP4 on
    40 GB A100s (32.89 GiB of weights in 35.45 usable: 2.56 GiB left, a tenth of the weights is 3.29), FP8 at TP2
    there (33.86), 4-bit AWQ at TP2 on 24 GB L4s and A10Gs (18.55 of 19.79 and 19.85) and at TP1 on an L40S (37.07
    of 39.88). Every layout passed over is one whose sizing does not serve the model; weights_alone gives the
    sizing's own weights and usable memory, float for float."""
    passed, refused = [], []
    for gpu in ("A100-40GB", "L4", "A10G", "L40S"):
        g = find_gpu(gpu)
        sz = Sizer(LLAMA_70B, Device.of(g, g.memory_gib), EngineSettings(gpu_memory_utilization=0.9,
                                                                          max_model_len=8192), resolve("0.11.0"))
        for q in (None, "fp8", "awq"):
            for p in (Parallel(1), Parallel(2), Parallel(4), Parallel(8)):
                alone = sz.alone(p, quantization=q)
                s = sz.size(p, quantization=q)
                assert alone is not None
                assert (alone.weights_gib, alone.usable_gib, alone.refuses, alone.nontorch_gib) == (
                    s.weights_gib_per_gpu, s.usable_gib_per_gpu, s.weights_fit_band == "refuses",
                    s.non_torch_gib_per_gpu)
                if sz.passes_over(p, 1.4, quantization=q):
                    assert not serves(judge(s, p, None), 1.4)
                    (refused if alone.refuses else passed).append((gpu, q, p.text()))
    assert passed == [("A100-40GB", None, "TP4×PP1"), ("A100-40GB", "fp8", "TP2×PP1"), ("L4", "awq", "TP2×PP1"),
                      ("A10G", "awq", "TP2×PP1"), ("L40S", "awq", "TP1×PP1")]
    assert len(refused) == 19  # A100-40GB 4, L4 6, A10G 6, L40S 3
    # with a declared load (no kv_reserve) only the weights that refuse are passed over; with the KV cache's size
    # given (--kv-cache-memory-bytes, no budget) the room is not bounded by the weights, nor with several stages
    a100 = Device.of(find_gpu("A100-40GB"), find_gpu("A100-40GB").memory_gib)
    sz = Sizer(LLAMA_70B, a100, EngineSettings(gpu_memory_utilization=0.9, max_model_len=8192), resolve("0.11.0"))
    assert (sz.passes_over(Parallel(4), None), sz.passes_over(Parallel(4), 1.4)) == (False, True)
    given = replace(sz, settings=replace(sz.settings, kv_cache_memory_bytes=8 * 1024**3))
    assert given.passes_over(Parallel(4), 1.4) is False
    # several stages (lintspeed10): alone() tells one stage only; the search bounds every stage by the lightest one's
    # weights (TP1×PP4: 31.91 GiB on its lightest stage, 33.86 on the one the sizing judges; TP2×PP2 32.89 on each),
    # which leave no room in 35.45 GiB; TP4×PP2 (16.46) and TP2×PP4 (15.97 lightest) are sized, and serve the model
    assert (sz.alone(Parallel(2, 2)), sz.alone(Parallel(1, 4))) == (None, None)
    stages = [Parallel(2, 2), Parallel(1, 4), Parallel(4, 2), Parallel(2, 4)]
    assert [(p.text(), sz.passes_over(p, 1.4), sz.passes_over(p, None)) for p in stages] == [
        ("TP2×PP2", True, False), ("TP1×PP4", True, False), ("TP4×PP2", False, False), ("TP2×PP4", False, False)]
    assert [(round(sz.size(p).weights_gib_per_gpu, 2), serves(judge(sz.size(p), p, None), 1.4)) for p in stages] == [
        (32.89, False), (33.86, False), (16.46, True), (16.95, True)]
    # the bound takes the sizing's non-torch memory and the least error band off what the weights leave (lintspeed10):
    # at 0.92 of the A100, TP4 leaves 36.24 - 32.89 = 3.35 GiB, more than a quarter of the reserve (3.29), but less
    # 0.22 GiB of non-torch memory and the band's floor (4 % of 36.24: 1.45) it is 1.68; the sizing's KV cache is 2.61
    # GiB, 1.16 beyond its band: no room, and the search passes over it unsized
    at92 = replace(sz, settings=replace(sz.settings, gpu_memory_utilization=0.92))
    alone, s = at92.alone(Parallel(4)), at92.size(Parallel(4))
    assert alone is not None and not alone.refuses and alone.usable_gib - alone.weights_gib >= 0.1 * alone.weights_gib
    assert (round(s.kv_cache_gib_per_gpu, 2), round(s.error_band_gib, 2), s.non_torch_gib_per_gpu) == (2.61, 1.45, 0.22)
    assert at92.passes_over(Parallel(4), 1.4) and not serves(judge(s, Parallel(4), None), 1.4)


def test_plan_takes_the_node_from_the_instance_type(capsys):
    """4 L40S joined by PCIe: no TP over PCIe; 70B in bf16 needs pipeline stages. For 16 sequences of 8,192 tokens,
    PP4 holds 5 (4 replicas, 80 % full: 16 GPUs) and PP8, over 2 nodes, 62 (1 replica, 26 % full: 8 GPUs on 2 nodes,
    no headroom replica doubling them): PP8 is recommended. PP16 is blocked by SW104: two PP8 replicas on its GPUs
    hold the load."""
    d = plan_json(capsys, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--instance-type", "g6e.12xlarge",
                  "--max-model-len", "8192", "--concurrency", "16")
    assert d["node"] == {"gpus": 4, "nvlink_domain": 1, "interconnect": "pcie", "source": "g6e.12xlarge",
                         "instance_type": "g6e.12xlarge"}
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["sequences_per_replica"], c["mandatory"])
            for c in d["candidates"]] == [
        (1, 1, 0, ["SW101"]), (1, 2, 0, ["SW101"]), (1, 4, 5, []), (1, 8, 62, []), (1, 16, 176, ["SW104"])]
    assert [(r["layout"], r["replicas"], r["gpus"], r["nodes"]) for r in d["for_the_load"]] == [
        ("TP1 × PP8", 1, 8, 2), ("TP1 × PP4", 4, 16, 4)]
    assert d["recommended"]["text"] == (
        "recommended: 1 replica of TP1 × PP8 for 16 sequences of 8,192 tokens (1 for the load, each holding 62, no "
        "headroom replica: the load fills 26% of the 62 they hold, not above the 80% at which one is added) = 8 GPUs "
        "on 2 nodes (g6e.12xlarge); TP1 × PP8 = 8 GPUs: one replica spans 2 4-GPU nodes")
    assert (d["recommended"]["nodes_per_replica"], d["recommended"]["replicas_per_node"]) == (2, None)


def test_plan_keeps_tp_on_the_nvlink_bridge_of_h100_nvl_pairs(capsys):
    d = plan_json(capsys, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100-NVL", "--gpus-per-node",
                  "4", "--max-model-len", "8192", "--concurrency", "16")
    assert d["node"] == {"gpus": 4, "nvlink_domain": 2, "interconnect": "nvlink", "source": "--gpus-per-node",
                         "instance_type": None}
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["sequences_per_replica"], c["mandatory"])
            for c in d["candidates"]] == [
        (1, 1, 0, ["SW101"]), (2, 1, 10, []), (2, 2, 73, ["SW104"]), (2, 4, 197, ["SW104"]), (2, 8, 445, ["SW104"])]
    assert d["recommended"]["text"] == (
        "recommended: 2 replicas of TP2 for 16 sequences of 8,192 tokens (2 for the load, each holding 10, no "
        "headroom replica: the load fills 80% of the 20 they hold, not above the 80% at which one is added) = 4 GPUs "
        "on 1 node; TP2 × 2 replicas per 4-GPU node")
    assert d["for_the_load"][0]["usd_per_hour"] is None  # no instance type in the catalog has 4 H100 NVL
    assert d["for_the_load"][0]["no_price"] == "the catalog has no instance type with 4 H100-NVL-94GB GPUs"


MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: planned
  namespace: serving
  annotations: {{shardwise.dev/target-concurrency: "{load}"}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: planned}}}}
  template:
    metadata: {{labels: {{app: planned}}}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: {instance}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, {model}, --tensor-parallel-size, "{tp}", --pipeline-parallel-size, "{pp}",
                 --max-model-len, "8192"]
          resources:
            limits: {{nvidia.com/gpu: {gpus}}}
          volumeMounts:
            - {{name: shm, mountPath: /dev/shm}}
      volumes:
        - name: shm
          emptyDir: {{medium: Memory, sizeLimit: 16Gi}}
"""


def lint_layout(tmp_path, capsys, model: str, instance: str, c: dict, load: int) -> tuple[int, list]:
    tp, pp = c["tensor_parallel_size"], c["pipeline_parallel_size"]
    path = tmp_path / f"tp{tp}pp{pp}.yaml"
    path.write_text(MANIFEST.format(instance=instance, model=model, tp=tp, pp=pp, gpus=tp * pp, load=load,
                                    replicas=c["load"]["replicas_needed"]))
    rc = main(["lint", str(path), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    return rc, sorted({f["code"] for f in doc["findings"] if f["level"] == "mandatory"})


@pytest.mark.parametrize("model,instance,load", [
    ("meta-llama/Llama-3.1-70B-Instruct", "p5.48xlarge", 64),
    ("meta-llama/Llama-3.1-8B-Instruct", "g6e.12xlarge", 32),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "p5.48xlarge", 16),
])
def test_plan_and_lint_agree_on_every_single_node_layout(tmp_path, capsys, model, instance, load):
    """Each layout plan sized for the load, written as a manifest with that load declared and the replicas plan
    says hold it, has the mandatory findings plan gave it; the recommended one lints clean."""
    d = plan_json(capsys, "--model", model, "--instance-type", instance, "--max-model-len", "8192",
                  "--concurrency", str(load))
    rc, blocking = lint_layout(tmp_path, capsys, model, instance, d["recommended"], load)
    assert (rc, blocking) == (0, [])  # the layout plan recommends, written as a manifest, lints clean
    checked = 0
    for c in d["candidates"]:
        if c["gpus"] > d["node"]["gpus"] or c["load"] is None:
            continue  # multi-node groups need a LeaderWorkerSet; a layout holding no sequence has no replica count
        _, blocking = lint_layout(tmp_path, capsys, model, instance, c, load)
        assert blocking == sorted(c["mandatory"]), (c["tensor_parallel_size"], c["pipeline_parallel_size"])
        checked += 1
    assert checked >= 2


# --- shard only as much as you must ----------------------------------------------------------------


PLAN_MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct",  # dense
    "Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-Instruct-v0.1",  # mixture of experts
    "deepseek-ai/DeepSeek-R1",  # MLA + experts
    "google/gemma-3-27b-it",  # hybrid: sliding-window layers
)
PLAN_GPUS = ("H100", "L4", "A100-40GB", "MI300X")


def _sure(s) -> int:
    """Sequences of the expected context one engine holds with the error band taken off its KV cache."""
    if s.context_kv_gib <= 0 or s.kv_cache_gib_per_gpu <= s.error_band_gib:
        return 0
    return int((s.kv_cache_gib_per_gpu - s.error_band_gib) / s.context_kv_gib)


def _smallest_with_room(plan) -> tuple[Parallel, int] | None:
    """The fewest GPUs per replica at which the model starts beyond the error band with one sequence of its own
    max_model_len, its weights × the KV reserve (1.4) fitting the memory vLLM may use; sized here directly."""
    sz = Sizer(plan.model, Device.of(plan.gpu, plan.memory_gib), EngineSettings(gpu_memory_utilization=0.9),
               resolve("0.11.0"), 4096)
    inside, across = gpu_counts(plan.node.node)
    for gpus in inside + across:
        for p in layouts_for(plan.model, gpus, plan.node.node):
            s = sz.size(p)
            if judge(s, p, None).starts == "starts" and s.weights_gib_per_gpu * 1.4 <= s.usable_gib_per_gpu:
                return p, _sure(s) * p.dp
    return None


@pytest.mark.parametrize("load", [None, 64])
@pytest.mark.parametrize("gpu", PLAN_GPUS)
@pytest.mark.parametrize("model", PLAN_MODELS)
def test_plan_never_shards_wider_than_the_smallest_layout_with_room(model, gpu, load):
    """plan never recommends more GPUs per replica than the smallest layout that loads the model with room for
    one full sequence (and the KV reserve), unless a declared load is held at the same GPU count only by the
    wider engine: the smaller layout's replicas (with their headroom) would need more GPUs."""
    plan = make_plan(PlanRequest(model=model, gpu=gpu, vllm_version="0.11.0", p95_context=4096, concurrency=load))
    small = _smallest_with_room(plan)
    if small is None:
        # no layout starts beyond the band (Llama-3.1-70B on L4 with 0.11: the CUDA graphs captured after sizing
        # do not fit the 2.2 GiB outside the budget at any TP × PP): plan recommends none
        assert plan.chosen is None
        return
    assert plan.chosen is not None
    smallest, holds = small
    chosen = plan.chosen
    if chosen.parallel.world <= smallest.world:
        return
    assert load is not None, (chosen.parallel, smallest)
    assert chosen.load is not None
    needed = -(-load // holds) if holds else None
    if needed is not None and load > 0.8 * needed * holds:
        needed += 1  # the headroom replica where the load fills the replicas beyond 80 %
    assert needed is None or needed * smallest.world > chosen.load.gpus, (chosen.parallel, smallest, holds)


@pytest.mark.parametrize("model,gpu,load,layout,replicas,cap", [
    # dense: one GPU holds an 8B with room on every GPU; on the 24 GB L4 at a lowered --max-model-len (26,624), its
    # KV cache beyond the error band a quarter of the reserve and more (6 sequences of the p95 context)
    ("meta-llama/Llama-3.1-8B-Instruct", "H100", None, Parallel(1), None, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", None, Parallel(1), None, None),
    ("meta-llama/Llama-3.1-8B-Instruct", "A100-40GB", 64, Parallel(1), 3, None),  # 36 a replica: 2 (89 % full) + 1 headroom
    # 70B: TP4 on H100 (TP2 leaves no room for one 131,072-token sequence), TP8 on A100-40GB; on MI300X's 192 GB
    # TP1 without a load (35 GiB of KV beside 131 GiB of weights: 22 sequences of the p95 context); for 64 sequences one TP2 replica holds 154 (42 % full: no headroom replica), 2 GPUs, where
    # TP1 holds 24 (3 replicas, 89 % full, + 1 headroom: 4 GPUs)
    ("meta-llama/Llama-3.1-70B-Instruct", "H100", None, Parallel(4), None, None),
    ("meta-llama/Llama-3.1-70B-Instruct", "MI300X", None, Parallel(1), None, None),
    ("meta-llama/Llama-3.1-70B-Instruct", "MI300X", 64, Parallel(2), 1, None),
    ("meta-llama/Llama-3.1-70B-Instruct", "A100-40GB", None, Parallel(8), None, None),
    # MoE: Qwen3-30B-A3B on H100 is TP1 without a load (24 sequences of the p95 context; the weights × 1.4 rule of
    # thumb asked for TP2), and TP1 for 64 sequences too: one TP2 replica holds 197 on 2 GPUs, but no H100 instance
    # has 2 GPUs, so it is billed a p5.48xlarge (55.04 USD an hour), where TP1 runs on 1-GPU p5.4xlarge: the bill
    # ranks the layouts that hold the load. At vLLM's default cap of 1,024 a TP1 replica holds 24 (3 + 1 headroom =
    # 4 GPUs); at half the cap (512) the sampler's smaller warm-up leaves room for 27, and 3 replicas hold the 64
    # (79 % full, no headroom replica) on 3 GPUs (20.64 USD an hour): the plan takes the lowered cap
    ("Qwen/Qwen3-30B-A3B", "H100", None, Parallel(1), None, None),
    ("Qwen/Qwen3-30B-A3B", "H100", 64, Parallel(1), 3, 512),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "MI300X", None, Parallel(1), None, None),
    # MLA + experts: DeepSeek-R1 in FP8 needs two H100 nodes; on MI300X eight data-parallel ranks with the experts
    # spread hold the most sequences of the 8-GPU layouts
    ("deepseek-ai/DeepSeek-R1", "H100", None, Parallel(8, 2), None, None),
    ("deepseek-ai/DeepSeek-R1", "MI300X", None, Parallel(1, 1, 8, True), None, None),
    # hybrid (sliding-window layers): Gemma 3 27B on L4 takes four pipeline stages (PCIe only; 6 sequences of the
    # p95 context), one MI300X
    ("google/gemma-3-27b-it", "L4", None, Parallel(1, 4), None, None),
    ("google/gemma-3-27b-it", "MI300X", 64, Parallel(1), 2, None),  # 55 a replica: 2, 58 % full, no headroom
])
def test_plan_recommends_these_layouts(model, gpu, load, layout, replicas, cap):
    plan = make_plan(PlanRequest(model=model, gpu=gpu, vllm_version="0.11.0", p95_context=4096, concurrency=load))
    assert plan.chosen is not None
    got = (plan.chosen.parallel, plan.chosen.load.replicas if plan.chosen.load else None)
    assert got == (layout, replicas)
    # cap: the --max-num-seqs the plan writes, None where vLLM's default batch cap is kept
    assert plan.chosen.sizing.max_num_seqs_default == (cap is None)
    assert cap is None or plan.chosen.sizing.max_num_seqs == cap


# --------------------------------------------------------------------------------------------------
# Weights vLLM refuses to build or load at a tensor-parallel size (SW203; plan never proposes them)
# --------------------------------------------------------------------------------------------------

QWEN3_235B_FP8 = find_model("Qwen/Qwen3-235B-A22B-FP8", None)  # 128x128 blocks, moe_intermediate_size 1536
QWEN3_30B_FP8 = find_model("Qwen/Qwen3-30B-A3B-FP8", None)  # moe_intermediate_size 768


def _messages(model, tp, **kw):
    return [(r.sure, r.experts, r.message) for r in weight_load_refusals(model, tp, **kw)]


def test_block_fp8_experts_must_keep_whole_blocks_per_rank():
    assert _messages(QWEN3_235B_FP8, 4) == []  # 384 = 3 blocks
    assert _messages(QWEN3_235B_FP8, 8) == [(True, True, (
        "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of "
        "Qwen/Qwen3-235B-A22B-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load "
        "the weights"))]
    assert _messages(QWEN3_235B_FP8, 8, expert_parallel=True) == []  # whole experts per rank
    assert [tp for tp in (1, 2, 4, 8, 16) if not tp_allowed(QWEN3_30B_FP8, tp)] == [4, 8, 16]
    # the bf16 original has no blocks to keep whole
    assert [tp for tp in (1, 2, 4, 8, 16) if not tp_allowed(find_model("Qwen/Qwen3-30B-A3B", None), tp)] == []


def test_the_shared_expert_splits_over_the_tp_ranks_with_expert_parallelism_too():
    """Qwen3.6-35B-A3B-FP8 (set 21's recipes-qwen36-35b-a3b-fp8-h200-tp8-mtp, vLLM's Qwen3.6 guide): a 512-wide
    shared expert beside 256 routed experts of 512, in 128 x 128 FP8 blocks. vLLM builds the shared expert first, as
    Qwen2MoeMLP with no disable_tp (0.19.0 wheel, models/qwen3_next.py), so at TP8 its down projection holds 64
    input columns a rank, half a block_k, with or without --enable-expert-parallel (whole routed experts): vLLM pull
    request 52915 quotes "Weight input_size_per_partition = 64 is not divisible by weight quantization block_k =
    128" at TP8. Before, plan named the routed experts at TP8 and offered expert parallelism, which it said starts."""
    qwen36 = find_model("Qwen/Qwen3.6-35B-A3B-FP8", None)
    refusal = (True, False, (
        "at tensor_parallel_size 8 each rank holds 64 input columns of the shared expert's down projection of "
        "Qwen/Qwen3.6-35B-A3B-FP8, not a multiple of block_k 128 (128x128 FP8 blocks); vLLM refuses to load the "
        "weights"))
    assert _messages(qwen36, 8) == _messages(qwen36, 8, expert_parallel=True) == [refusal]
    assert _messages(qwen36, 4) == _messages(qwen36, 4, expert_parallel=True) == []  # 128: one whole block
    assert [tp for tp in (1, 2, 4, 8) if not tp_allowed(qwen36, tp, expert_parallel=True)] == [8]
    # review26: with DP beside EP (sequence-parallel MoE) vLLM#39181 builds the shared expert whole on each rank;
    # without EP the flag changes nothing (vLLM's sequence-parallel MoE needs expert parallelism)
    assert _messages(qwen36, 8, expert_parallel=True, sequence_parallel_moe=True) == []
    assert _messages(qwen36, 8, sequence_parallel_moe=True) == [refusal]
    # the same line: Qwen3-Next's 512-wide shared expert; Qwen3.5-397B's 1,024 keeps a block at TP8
    assert not tp_allowed(find_model("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", None), 8, expert_parallel=True)
    assert tp_allowed(find_model("Qwen/Qwen3.5-397B-A17B-FP8", None), 8, expert_parallel=True)
    # the BF16 original has no blocks; DeepSeek's shared experts are not counted (disable_tp with sequence-parallel MoE)
    assert tp_allowed(find_model("Qwen/Qwen3.6-35B-A3B", None), 8, expert_parallel=True)
    plan = make_plan(PlanRequest(model="Qwen/Qwen3.6-35B-A3B-FP8", gpu="H200", vllm_version="0.19.0", tp=8,
                                 enable_expert_parallel=True))
    assert not plan.shown.starts
    assert sorted(f.code for f in plan.shown.findings if f.level == "mandatory") == ["SW104", "SW203"]
    assert plan.chosen is None


def test_sw104_tries_pipeline_stages_where_the_asked_layout_has_none():
    """GLM-4.5V-FP8 at TP4 with expert parallelism on H100 (plan case glm45v-fp8-h100-tp4-ep, vLLM's GLM-V recipe):
    TP2 is dropped for an FP8 block only assumed to split (10,944 dense-MLP columns), but TP1 × PP2 keeps every
    block whole and serves it on two GPUs: SW104's smaller layouts searched only TP and PP divisors of TP4 × PP1,
    so never found it, where plan's own search does."""
    glm = find_model("zai-org/GLM-4.5V-FP8")
    asked = Parallel(4, expert_parallel=True)
    assert smaller(glm, asked) == [Parallel(1, expert_parallel=True), Parallel(1, 2, expert_parallel=True)]


def test_kv_heads_divide_or_replicate_evenly():
    qwen7b = find_model("Qwen/Qwen2.5-7B-Instruct", None)  # 28 heads, 4 KV heads
    assert _messages(qwen7b, 7) == [(True, False, (
        "Qwen/Qwen2.5-7B-Instruct has 4 KV heads; tensor_parallel_size 7 neither divides them nor is a "
        "multiple of them"))]
    assert _messages(qwen7b, 2) == _messages(qwen7b, 4) == []  # 2 per rank; 1 per rank
    llama8b = find_model("meta-llama/Llama-3.1-8B-Instruct", None)  # 32 heads, 8 KV heads
    assert _messages(llama8b, 16) == []  # each KV head replicated on 2 ranks
    assert _messages(llama8b, 3) == [(True, False, (
        "meta-llama/Llama-3.1-8B-Instruct has 32 attention heads, not divisible by tensor_parallel_size 3"))]
    assert _messages(DEEPSEEK_R1, 16) == []  # MLA: one latent, no KV heads to split


def test_dense_block_fp8_and_awq_groups():
    base = find_model("meta-llama/Llama-3.1-8B-Instruct", None)  # intermediate 14336 = 112 x 128
    block = replace(base, id="acme/llama-fp8-block", precision="fp8", quantization="fp8", hf_config={
        "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})
    assert _messages(block, 16) == []  # 896 = 7 blocks
    assert _messages(block, 32) == [(True, False, (
        "at tensor_parallel_size 32 each rank holds 448 columns of the MLP's gate/up projection of "
        "acme/llama-fp8-block, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load the weights"))]
    # compressed-tensors states its blocks under config_groups
    ct = replace(block, hf_config={"quantization_config": {"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128]}}}}})
    assert [r.message for r in weight_load_refusals(ct, 32)] == [m for _, _, m in _messages(block, 32)]
    # AWQ groups of 128 run along the input of the row-parallel layers: 14336 / 16 = 896 = 7 groups
    awq = replace(base, id="acme/llama-awq", precision="int4", quantization="awq", hf_config={
        "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}})
    assert _messages(awq, 16) == []
    awq_g = replace(awq, hf_config={"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 256}})
    assert _messages(awq_g, 16) == [(True, False, (
        "at tensor_parallel_size 16 each rank holds 896 input columns of the MLP's down projection of "
        "acme/llama-awq, not a multiple of group_size 256 (groups of 256 weights); vLLM refuses to load the weights"))]
    # per-channel scales (group_size -1) and per-tensor FP8 have nothing to keep whole
    per_channel = replace(awq, hf_config={"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": -1}})
    per_tensor = replace(block, hf_config={"quantization_config": {"quant_method": "fp8"}})
    assert _messages(per_channel, 32) == _messages(per_tensor, 32) == []


def test_a_block_size_read_from_the_name_only_is_not_sure():
    named = find_model("acme/Qwen3-235B-A22B-Instruct-2507-FP8", None)
    assert named.extra.get("quantization_config_assumed") is True
    assert _messages(named, 8) == [(False, True, (
        "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of "
        "acme/Qwen3-235B-A22B-Instruct-2507-FP8, not a multiple of block_n 128; vLLM refuses to load the weights "
        "if the checkpoint stores 128x128 FP8 blocks (its quantization_config would say)"))]
    # Qwen's own FP8 releases the catalog does not hold: every one of their model cards states "fine-grained fp8
    # quantization with block size of 128", and vLLM's Qwen3 FP8 SageMaker guide quotes the refusal at TP4
    own = find_model("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", None)
    assert own.extra.get("quantization_config_assumed") is True
    assert _messages(own, 4) == [(True, True, (
        "at tensor_parallel_size 4 each rank holds 192 columns of each expert's gate/up projection of "
        "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to "
        "load the weights"))]
    assert _messages(own, 4, expert_parallel=True) == _messages(own, 2) == []
    # Red Hat's FP8-dynamic copies scale per channel
    assert _messages(find_model("RedHatAI/gpt-oss-120b-FP8-dynamic", None), 8) == []
    # NVIDIA's own FP8 releases (Model Optimizer, one scale per tensor): Nemotron 3 Super FP8 at TP4 keeps 672 expert
    # columns per rank, which 128 x 128 blocks would refuse; NVIDIA Dynamo's recipe runs it there (vLLM 0.16.0)
    nemotron = find_model("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", None)
    assert nemotron.extra.get("quantization_config_assumed") is True
    assert _messages(nemotron, 4) == _messages(nemotron, 2) == []
    # ... while another publisher's copy of the same name, its configuration unknown, may store blocks
    assert _messages(find_model("acme/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", None), 4) == [(False, True, (
        "at tensor_parallel_size 4 each rank holds 672 columns of each expert's gate/up projection of "
        "acme/NVIDIA-Nemotron-3-Super-120B-A12B-FP8, not a multiple of block_n 128; vLLM refuses to load the weights "
        "if the checkpoint stores 128x128 FP8 blocks (its quantization_config would say)"))]


def test_the_layout_search_skips_tps_vllm_refuses():
    node = Node(8, 8)
    assert layouts_for(QWEN3_235B_FP8, 8, node) == [Parallel(4, 2), Parallel(1, 1, 8, True)]
    assert layouts_for(QWEN3_30B_FP8, 4, node) == [Parallel(2, 2), Parallel(1, 1, 4, True)]


def test_expert_parallelism_keeps_the_tps_it_makes_loadable():
    """With the experts spread (--enable-expert-parallel) each rank holds whole experts, so a TP that splits an
    expert's 128 x 128 FP8 blocks loads (vLLM's Qwen3 FP8 SageMaker guide: TP4 without it fails with "output_size of
    gate's and up's weight = 192 is not divisible by weight quantization block_n = 128"; "Ensure expert parallel is
    enabled"). The smaller layouts SW104 and SW202 weigh keep the current layout's expert parallelism, and so must
    the TPs they may use: TP8 with EP of Qwen3-30B-A3B-FP8 splits into TP4 with EP, which SW104 named nowhere."""
    assert smaller(QWEN3_30B_FP8, Parallel(8, expert_parallel=True)) == [
        Parallel(1, 1, 1, True), Parallel(2, 1, 1, True), Parallel(1, 2, 1, True), Parallel(4, 1, 1, True),
        Parallel(2, 2, 1, True), Parallel(1, 4, 1, True)]
    # without it TP4 splits the 768-wide experts into 192 columns a rank, not whole 128-blocks: pipeline stages instead
    assert smaller(QWEN3_30B_FP8, Parallel(8)) == [Parallel(1), Parallel(2), Parallel(1, 2), Parallel(2, 2),
                                                   Parallel(1, 4)]
    node = Node(8, 8)
    assert layouts_for(QWEN3_30B_FP8, 4, node, expert_parallel=True) == [Parallel(4, 1), Parallel(1, 1, 4, True)]
    assert layouts_for(QWEN3_30B_FP8, 4, node, pp=1, expert_parallel=True) == [Parallel(4, 1)]
    assert layouts_for(QWEN3_30B_FP8, 4, node, pp=1) == []


# --- data parallelism: one KV cache per engine (issue 28) -------------------------------------------


def test_judge_splits_a_replicas_load_over_its_data_parallel_engines():
    """vLLM's DeepSeek-R1 recipe (DP8 + expert parallel, TP1, one 8 x H200 node): each engine has its own KV cache
    (23.27 GiB ± 5.03 at 0.11.0; its first 3 layers are dense, so 58 MoE layers' experts spread over the 8 ranks; at
    TP1 each rank keeps the 16-bit copy of all 128 heads' FP8 kv_b_proj, 1.91 GiB, weights.mla_dequantised_bytes)
    and takes 1/8 of the requests. 192 sequences of 8,192 tokens are 24 per engine,
    12.87 GiB: it holds; 512 are 64 per engine, 34.3 GiB: it does not. The whole replica's 192 against one engine's
    cache (102.9 GiB) was the false blocking SW103."""
    sz = Sizer(DEEPSEEK_R1, Device.of(find_gpu("H200"), find_gpu("H200").memory_gib), EngineSettings(),
               resolve("0.11.0"), 8192)
    p = Parallel(1, 1, 8, True)
    s = sz.size(p)
    assert (round(s.kv_cache_gib_per_gpu, 2), round(s.error_band_gib, 2)) == (23.27, 5.03)
    fit = judge(s, p, 192)
    assert (fit.seqs, round(fit.need_gib, 2), fit.load) == (24, 12.87, "holds")
    fit = judge(s, p, 512)
    assert (fit.seqs, round(fit.need_gib, 2), fit.load) == (64, 34.31, "does-not-hold")
    # one engine (DP1) is judged against the whole load, as before
    assert judge(s, Parallel(1), 24).seqs == 24


def test_plan_with_dp_keeps_a_single_node_replica_in_its_node():
    """`plan --dp 8 --enable-expert-parallel` without --tp: GPUs per replica are DP × TP × PP, so on 8-GPU H200
    nodes TP1 × DP8 fills one node and TP2/TP4 × DP8 span 2 and 4 nodes; never 128 GPUs on 16 nodes."""
    plan = make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", gpu="H200", dp=8, enable_expert_parallel=True,
                                 vllm_version="0.11.0", p95_context=8192, concurrency=192))
    assert [(c.parallel.text(), c.parallel.world) for c in plan.candidates] == [
        ("TP1×PP1×DP8 EP", 8), ("TP2×PP1×DP8 EP", 16), ("TP4×PP1×DP8 EP", 32)]
    chosen = plan.chosen
    assert chosen is not None and chosen.parallel == Parallel(1, 1, 8, True)
    assert [f.code for f in chosen.findings if f.level == "mandatory"] == []


# --- NVLink domains wider than a node (issue 28) ----------------------------------------------------


def test_gb200_nvl72_tensor_parallelism_spans_trays_inside_the_nvlink_domain():
    """A p6e-gb200.36xlarge is one tray of 4 GB200s of an NVL72 UltraServer (72 GPUs in one NVLink domain,
    nvidia.com/en-us/data-center/gb200-nvl72): TP may span trays inside the domain. Llama-3.1-405B in BF16 takes
    8 GPUs: TP8 over two trays, not TP4 × PP2."""
    from shardwise.rules.catalog.hardware import instance_pool, node_links
    from shardwise.rules.model import Location

    assert node_links(instance_pool("p6e-gb200.36xlarge", Location("test"))) == (4, 72)
    assert node_links(instance_pool("p5.48xlarge", Location("test"))) == (8, 8)
    assert Node(4, 72).tp_limit == 72 and Node(8, 8).tp_limit == 8 and Node(4, 2).tp_limit == 2
    assert layouts_for(LLAMA_70B, 8, Node(4, 72)) == [Parallel(8, 1)]
    plan = make_plan(PlanRequest(model="meta-llama/Llama-3.1-405B-Instruct", instance_type="p6e-gb200.36xlarge",
                                 vllm_version="0.11.0"))
    assert [(c.parallel.text(), [f.code for f in c.findings if f.level == "mandatory"]) for c in plan.candidates] == [
        ("TP1×PP1", ["SW101"]), ("TP2×PP1", ["SW101"]), ("TP4×PP1", ["SW101"]), ("TP8×PP1", []),
        ("TP16×PP1", ["SW104"])]  # two TP8 replicas on its GPUs have the KV reserve
    assert plan.chosen is not None and plan.chosen.parallel == Parallel(8, 1)
    assert plan.node.text("GB200") == (
        "4 × GB200 per node (p6e-gb200.36xlarge; NVSwitch; one NVLink domain joins 72 GPUs across nodes: keep a "
        "replica's pods in one nvidia.com/gpu.clique)")


def test_sw104_counts_every_data_parallel_engine_on_both_sides():
    """TP2 × DP8 of DeepSeek-R1 on 16 H200s against 2 replicas of TP1 × DP8 on the same GPUs: each side counts its
    8 engines (TP1: 43 an engine, 2 × 8 × 43 = 688, with the 16-bit kv_b_proj copy each TP1 rank keeps), not one
    engine's 92."""
    plan = make_plan(PlanRequest(model="deepseek-ai/DeepSeek-R1", gpu="H200", tp=2, dp=8, enable_expert_parallel=True,
                                 vllm_version="0.11.0", p95_context=8192, concurrency=192))
    (sw104,) = [f for f in plan.candidates[0].findings if f.code == "SW104"]
    assert sw104.level == "mandatory"
    assert sw104.message == (
        "deepseek-ai/DeepSeek-R1 is sharded over 16 GPUs per replica (TP2×PP1×DP8 EP) on H200-141GB, but 2 replicas × "
        "TP1×PP1×DP8 EP on the same 16 GPUs hold 688 sequences of 8,192 tokens (p95 context) together: enough for the "
        "192 a replica must hold (192 by --concurrency); run them instead: replicas 1 → 2, tensor_parallel_size 2 → 1 "
        "(vLLM 0.11.0)")


def test_a_layout_is_written_the_same_way_everywhere():
    # one writer (rules.model.layout_text) for the search's Parallel, the group's Layout and the sized engine the
    # SW101 - SW103 findings name: prefill context-parallel ranks are GPUs of the engine, so they are written
    from shardwise.rules.capacity.group import Layout
    from shardwise.rules.model import layout_text

    assert [layout_text(*a) for a in ((4, 2), (1, 1, 2), (2, 1, 2, 4, True))] == [
        "TP4×PP2", "TP1×PP1×PCP2", "TP2×PP1×PCP2×DP4 EP"]
    assert Parallel(1, 1, 1, False, 2).text() == "TP1×PP1×PCP2"
    assert Layout(2, 1, 4, None, 1, 2).text() == "TP2×PP1×PCP2×DP4"
