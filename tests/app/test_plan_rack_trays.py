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
