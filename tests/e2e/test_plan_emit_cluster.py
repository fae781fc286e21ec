"""What ``shardwise plan --emit manifest`` writes, against a real control plane (``tests/support/cluster_support.py``):
the API server accepts every object, and the real scheduler places each replica's pod on a node of the instance type
the plan priced (kwok Nodes with the labels and capacity an EKS node of that type has). A LeaderWorkerSet is accepted
(its controller is not built here, so its pods are not made: tests/e2e/test_cluster.py says why)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from cluster_support import ControlPlane, collection_path, require_cluster
from shardwise.rules.app.emit import manifest_objects
from shardwise.rules.app.plan import PlanRequest, make_plan
from shardwise.rules.catalog.hardware import catalog_instance
from shardwise.rules.model.spec import NodePoolSpec
from shardwise.rules.render.nodepool import efa_interface_count, node_labels, node_taints

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory):
    bin_dir = require_cluster()
    with ControlPlane(bin_dir, tmp_path_factory.mktemp("control-plane")) as cp:
        cp.apply_crds()
        yield cp


def _node(plane: ControlPlane, name: str, instance_type: str) -> None:
    """A node as EKS makes one of ``instance_type``: the well-known instance-type label, GPU labels, the GPU taint,
    the instance's GPUs (and EFA devices and huge pages where it has EFA) as capacity."""
    pool = NodePoolSpec.model_validate({"name": "gpu", "instance_type": instance_type, "multi_node": True})
    inst = catalog_instance(instance_type)
    capacity = {"cpu": str(inst.vcpus), "memory": f"{int(inst.memory_gib)}Gi", "pods": "110",
                "ephemeral-storage": "1000Gi", "nvidia.com/gpu": str(inst.gpus), "hugepages-2Mi": "0"}
    efa = efa_interface_count(pool)
    if efa:
        capacity.update({"vpc.amazonaws.com/efa": str(efa), "hugepages-2Mi": "5120Mi"})
    labels = {**node_labels(pool), "node.kubernetes.io/instance-type": instance_type, "kubernetes.io/os": "linux"}
    plane.add_node(name, labels, node_taints(), capacity)


def _apply(plane: ControlPlane, objs: list[dict[str, Any]]) -> None:
    if plane.api("GET", "/api/v1/namespaces/serving") is None:
        plane.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "serving"}})
    for obj in objs:
        path = f"{collection_path(obj)}/{obj['metadata']['name']}"
        if obj["kind"] == "NetworkPolicy" and plane.api("GET", path) is not None:
            continue  # the namespace's policies, the same in every emitted manifest: kubectl apply leaves them
        plane.create(yaml.safe_load(yaml.safe_dump(obj)))  # as kubectl would send the YAML
        assert plane.api("GET", path) is not None, obj["kind"]


def test_the_emitted_deployment_schedules_on_the_instance_type_it_was_priced_on(plane):
    """70B for 64 sequences of 8,192 tokens: 2 TP4 replicas on one p5.48xlarge (8 GPUs); both pods run there."""
    plan = make_plan(PlanRequest(model="meta-llama/Llama-3.1-70B-Instruct", gpu="H100", max_model_len=8192,
                                 concurrency=64, vllm_version="0.11.0"))
    objs = manifest_objects(plan)
    _node(plane, "p5-0", "p5.48xlarge")
    _apply(plane, objs)

    def pods() -> list[dict[str, Any]]:
        return plane.items("/api/v1/namespaces/serving/pods?labelSelector=app.kubernetes.io%2Fname%3D"
                           "llama-3-1-70b-instruct")

    plane.wait_for("two running pods", lambda: len(pods()) == 2 and all(
        p.get("status", {}).get("phase") == "Running" for p in pods()), timeout=120)
    assert sorted(p["spec"]["nodeName"] for p in pods()) == ["p5-0", "p5-0"]


def test_the_emitted_leaderworkerset_is_accepted(plane):
    """405B for 32 sequences of 16,384 tokens: a LeaderWorkerSet of 2 groups of 2 pods over p5.48xlarge with EFA."""
    plan = make_plan(PlanRequest(model="meta-llama/Llama-3.1-405B-Instruct", gpu="H100", max_model_len=16384,
                                 concurrency=32, vllm_version="0.13.0"))
    objs = manifest_objects(plan)
    assert objs[0]["kind"] == "LeaderWorkerSet"
    _apply(plane, objs)
    got = plane.api("GET", "/apis/leaderworkerset.x-k8s.io/v1/namespaces/serving/leaderworkersets/"
                           "llama-3-1-405b-instruct")
    assert got["spec"]["replicas"] == 2 and got["spec"]["leaderWorkerTemplate"]["size"] == 2
