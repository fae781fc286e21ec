"""A GPU sold as the compute trays of an NVLink rack (GB200 and GB300 NVL72: trays of 4, 72 GPUs in one NVLink
domain): plan's node is the tray and its replica runs in the rack's domain (issue 28, plancases15).

vLLM's recipe for Kimi-K3 runs TP8 on 'at least 8x GB300', two trays of one NVL72 rack. Plan took GB300, which has
no instance type in the catalog, as 8-GPU nodes (one node per replica); and ``--gpus-per-node 4`` made each tray its
own 4-GPU NVLink island, so a TP8 group got SW201/SW205 as if it crossed TCP."""

from __future__ import annotations

from shardwise.rules.app.plan import PlanRequest, make_plan, resolve_node
from shardwise.rules.capacity.layout import Node


def _node(**kw: object) -> tuple[Node, str | None, str]:
    _, info = resolve_node(PlanRequest(model="moonshotai/Kimi-K3", **kw))  # type: ignore[arg-type]
    assert info.pool is not None
    return info.node, info.pool.clique, info.source


def test_a_rack_gpu_without_an_instance_type_is_a_tray_of_the_rack():
    node, clique, source = _node(gpu="GB300")
    assert (node, clique) == (Node(4, 72), "one NVLink domain")
    assert source.startswith("a compute tray of 4 GB300")


def test_gpus_per_node_on_a_rack_gpu_keeps_the_racks_domain():
    assert _node(gpu="GB200", gpus_per_node=4)[:2] == (Node(4, 72), "one NVLink domain")
    assert _node(gpu="GB200")[:2] == (Node(4, 72), "one NVLink domain")  # p6e-gb200.36xlarge, as before
    # an HGX board's domain is the board: four B200 of a node are not in another node's domain
    assert _node(gpu="B200", gpus_per_node=4)[:2] == (Node(4, 4), None)
    assert _node(gpu="H100-NVL-94GB", gpus_per_node=4)[:2] == (Node(4, 2), None)  # NVLink bridges join pairs


def test_kimi_k3_tp8_on_two_gb300_trays_stays_in_the_rack():
    plan = make_plan(PlanRequest(model="moonshotai/Kimi-K3", gpu="GB300", vllm_version="0.27.1", tp=8,
                                 gpu_memory_utilization=0.95, max_model_len=1048576, kv_cache_dtype="fp8"))
    assert -(-plan.shown.parallel.world // plan.node.node.gpus) == 2
    assert plan.shown.starts is True
    assert sorted({f.code for f in plan.shown.findings} & {"SW201", "SW202", "SW205"}) == []


def _emitted(tmp_path, **kw: object) -> str:
    from shardwise.rules.app.emit import emit_manifest

    plan = make_plan(PlanRequest(model="moonshotai/Kimi-K3", vllm_version="0.27.1", gpu_memory_utilization=0.9,
                                 max_model_len=1048576, kv_cache_dtype="fp8", **kw))  # type: ignore[arg-type]
    return emit_manifest(plan)


def _layout_findings(tmp_path, text: str) -> list[tuple[str, str]]:
    from shardwise.rules.app.run import LintOptions, lint_report

    path = tmp_path / "plan.yaml"
    path.write_text(text)
    report = lint_report([str(path)], LintOptions(jobs=1))
    return sorted({(f.code, f.level) for f in report.findings if f.code.startswith("SW2")})


def test_lint_keeps_a_tp_group_on_two_trays_of_one_rack_in_its_domain(tmp_path):
    """The manifest plan writes for TP8 on GB300 (a LeaderWorkerSet of two 4-GPU pods, each group kept in one
    ``nvidia.com/gpu.clique``): the node labels give only the tray's GPU product and count, and the clique is the
    rack's NVLink domain, so no SW201/SW205; the same manifest on B200 (HGX boards: a clique label never marks them)
    crosses two nodes' NVLink islands, and SW201/SW205 say so."""
    text = _emitted(tmp_path, gpu="GB300", tp=8)
    assert "exclusive-topology: nvidia.com/gpu.clique" in text and "nvidia.com/gpu.count: '4'" in text
    assert _layout_findings(tmp_path, text) == []
    assert _layout_findings(tmp_path, text.replace("NVIDIA-GB300", "NVIDIA-B200")) == [
        ("SW201", "advisory"), ("SW205", "advisory")]


def test_gpus_per_node_that_names_an_instance_size_is_that_instance_type():
    """``--gpus-per-node 8`` on B200 is p6-b200.48xlarge, the node the emitted manifest names: its EFA is known, so the
    TP8 x PP2 over two nodes gets no SW205 ('does not say whether it has EFA') that lint of the manifest does not
    give."""
    _, info = resolve_node(PlanRequest(model="moonshotai/Kimi-K3", gpu="B200", gpus_per_node=8))
    assert info.instance is not None and info.instance.name == "p6-b200.48xlarge"
    assert info.pool is not None and info.pool.efa is True
    plan = make_plan(PlanRequest(model="moonshotai/Kimi-K3", gpu="B200", gpus_per_node=8, vllm_version="0.27.1",
                                 tp=8, pp=2, gpu_memory_utilization=0.9, max_model_len=1048576, kv_cache_dtype="fp8"))
    assert "SW205" not in {f.code for f in plan.shown.findings}
