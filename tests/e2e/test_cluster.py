"""``pulumi up`` of each stack's Kubernetes layer against a real control plane (``tests/support/cluster_support.py``).

The real Pulumi CLI, Python language host and Kubernetes provider run the program (``__main__.py``) with
``shardwise:kubeconfig`` pointing at a local kube-apiserver; the AWS resources go to the stand-in AWS
provider (``tests/support/standin_provider.py``: the real one cannot be built here). Before each stack the test
gives the cluster what that stack's mode expects of it: the CRDs (KEDA, the Prometheus operator,
Karpenter, LeaderWorkerSet: their published definitions), the PriorityClasses
and storage class the stack names, a volume for each model-cache claim (as a CSI driver would provision
it), and the nodes of its GPU pools (kwok Nodes with the labels, taints and capacity the components give
that pool's nodes). Then:

* every Kubernetes object the stack declares is accepted by the API server (``up`` succeeds and each is
  there to read back);
* every vLLM pod is scheduled by the real scheduler onto a node of the instance type and GPU the linter
  sized the workload for;
* a multi-node group forms: the real LeaderWorkerSet controller (``sigs.k8s.io/lws``, with its webhooks) makes
  the leader and worker StatefulSets, each group's pods carry its size and indices, all are placed on the
  pool's GPU nodes, and the controller reports the set ``Available``, which the ``pulumi.com/waitFor`` of the
  LeaderWorkerSet waited for;
* a second ``up`` of the same program and config changes nothing (``--expect-no-changes``), Kubernetes
  objects through the real provider and AWS resources through the stand-in (which names and versions
  them as the AWS provider would);
* a stack the policy pack blocks creates nothing; ``pulumi destroy`` leaves nothing of the stack.

prod creates its cluster and installs its controllers from Helm charts, which this machine cannot fetch:
it runs here with ``cluster.helm_charts: false`` and what the charts would install listed as installed
(the CRDs above, and the LeaderWorkerSet controller, started from its own build rather than its chart),
so its serving objects meet the same API server. Pods are kwok's: they are Running and Ready once bound, and
no container, so no vLLM and no probe, ever runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster_support import ControlPlane, collection_path, require_cluster
from engine_support import ROOT, Project, load_stack_config, require_engine, require_k8s_provider
from shardwise.rules.catalog.hardware import catalog_instance
from shardwise.rules.model.spec import NodePoolSpec
from shardwise.rules.render.nodepool import efa_interface_count, node_labels, node_taints

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

SHARDWISE = str(ROOT / ".venv" / "bin" / "shardwise")
#: what an existing cluster lists in cluster.installed once these CRDs and the controllers they stand for are there
INSTALLED = ["nvidia-device-plugin", "aws-efa-k8s-device-plugin", "lws", "keda", "prometheus-operator",
             "cluster-autoscaler", "karpenter", "aws-load-balancer-controller"]


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory):
    bin_dir = require_cluster()
    with ControlPlane(bin_dir, tmp_path_factory.mktemp("control-plane")) as cp:
        cp.apply_crds()
        cp.start_lws_controller()
        yield cp


def stack_config(name: str) -> tuple[str, dict[str, Any]]:
    """The stack's own config; ``prod`` without its Helm charts (see the module docstring); the variant
    ``staging-kv-cache-under-budget`` declares a load its KV cache cannot hold (the pack blocks SW103)."""
    stack = name.split("-", 1)[0]
    config = load_stack_config(stack)
    env = config["shardwise:environment"]
    if stack == "prod":
        env["cluster"]["helm_charts"] = False
        env["cluster"]["installed"] = INSTALLED
    if name == "staging-kv-cache-under-budget":
        env["services"][0]["target_concurrency"] = 1024
    if name == "dev-scale-from-zero":
        env["services"][0]["replicas"] = 0
        env["services"][0]["autoscaling"]["min_replicas"] = 0
    return stack, config


def _capacity(pool: NodePoolSpec) -> dict[str, str]:
    inst = catalog_instance(pool.instance_type)
    cap = {"cpu": str(inst.vcpus), "memory": f"{int(inst.memory_gib)}Gi", "pods": "110",
           "ephemeral-storage": f"{pool.disk_size_gib or 100}Gi", "nvidia.com/gpu": str(inst.gpus),
           "hugepages-2Mi": "0"}
    efa = efa_interface_count(pool)
    if efa:
        cap["vpc.amazonaws.com/efa"] = str(efa)
        cap["hugepages-2Mi"] = "5120Mi"
    return cap


def register_nodes(plane: ControlPlane, env: dict[str, Any]) -> list[str]:
    """The nodes each GPU pool would have once it scaled to its desired size (Karpenter's or the managed
    node group's), as kwok Nodes; their names."""
    names = []
    for raw in env.get("pools", []):
        pool = NodePoolSpec.model_validate(raw)
        labels = {**node_labels(pool), "node.kubernetes.io/instance-type": pool.instance_type,
                  "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
                  "topology.kubernetes.io/zone": env["network"]["availability_zones"][0]}
        if pool.provisioner == "karpenter":
            labels.update({"karpenter.sh/nodepool": pool.name, "karpenter.sh/capacity-type": pool.capacity_type})
        else:
            labels["eks.amazonaws.com/nodegroup"] = pool.name
        for i in range(max(1, pool.desired_size or 0)):
            name = f"{env['name']}-{pool.name}-{i}"
            plane.add_node(name, labels, node_taints(), _capacity(pool))
            names.append(name)
    return names


def prepare(plane: ControlPlane, env: dict[str, Any]) -> list[str]:
    """What the stack's cluster must already have beyond the CRDs: its PriorityClasses and, for a
    model-cache claim, its storage class and a volume the claim binds to; the paths of the volumes
    (removed after the test: nothing deletes a released volume without its CSI driver)."""
    volumes = []
    for name in env.get("cluster", {}).get("priority_classes", []):
        if plane.api("GET", f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}") is None:
            plane.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                          "metadata": {"name": name}, "value": 1000})
    for svc in [*env.get("services", []), *env.get("multi_node", [])]:
        cache = svc.get("cache") or {}
        if cache.get("kind") != "pvc":
            continue
        sc = cache["storage_class"]
        if plane.api("GET", f"/apis/storage.k8s.io/v1/storageclasses/{sc}") is None:
            plane.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc},
                          "provisioner": "fsx.csi.aws.com", "volumeBindingMode": "Immediate"})
        volumes.append(f"/api/v1/persistentvolumes/{env['name']}-{svc['name']}-cache")
        plane.create({"apiVersion": "v1", "kind": "PersistentVolume",
                      "metadata": {"name": f"{env['name']}-{svc['name']}-cache"},
                      "spec": {"capacity": {"storage": f"{svc.get('model_cache_gib', 100)}Gi"},
                               "accessModes": [cache.get("access_mode", "ReadWriteOnce")],
                               "storageClassName": sc, "persistentVolumeReclaimPolicy": "Delete",
                               "csi": {"driver": "fsx.csi.aws.com", "volumeHandle": f"fs-{svc['name']}"}}})
    return volumes


def _k8s_resources(project: Project) -> list[dict[str, Any]]:
    """The stack's Kubernetes objects in its state: kind, name, namespace, apiVersion."""
    out = []
    for r in project.export()["deployment"].get("resources", []):
        if not r.get("custom") or not r["type"].startswith("kubernetes:"):
            continue
        outputs = r.get("outputs", {})
        meta = outputs.get("metadata") or {}
        if "kind" in outputs and meta.get("name"):
            out.append({"apiVersion": outputs["apiVersion"], "kind": outputs["kind"],
                        "name": meta["name"], "namespace": meta.get("namespace")})
    return out


def _object_path(obj: dict[str, Any]) -> str:
    return collection_path({"apiVersion": obj["apiVersion"], "kind": obj["kind"],
                            "metadata": {"namespace": obj["namespace"]}}) + f"/{obj['name']}"


def _lint_workloads(stack: str) -> dict[str, dict[str, Any]]:
    """What ``shardwise lint`` sized per workload of the stack file: name -> its JSON summary."""
    lint = subprocess.run([SHARDWISE, "lint", str(ROOT / "stacks" / f"Pulumi.{stack}.yaml"), "--format", "json"],
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, cwd=ROOT)
    assert lint.returncode in (0, 1), lint.stderr
    return {w["name"]: w for w in json.loads(lint.stdout)["workloads"]}


def _namespaces(env: dict[str, Any]) -> set[str]:
    return {w["namespace"] for w in [*env.get("services", []), *env.get("multi_node", []),
                                     *env.get("routers", [])]}


def _left_in(plane: ControlPlane, namespaces: set[str]) -> list[str]:
    """Objects the stack could have made still in its namespaces (the namespace itself, if not gone)."""
    kinds = {"deployments": "/apis/apps/v1", "services": "/api/v1", "pods": "/api/v1",
             "persistentvolumeclaims": "/api/v1", "networkpolicies": "/apis/networking.k8s.io/v1",
             "ingresses": "/apis/networking.k8s.io/v1", "poddisruptionbudgets": "/apis/policy/v1",
             "scaledobjects": "/apis/keda.sh/v1alpha1", "podmonitors": "/apis/monitoring.coreos.com/v1",
             "leaderworkersets": "/apis/leaderworkerset.x-k8s.io/v1"}
    left = []
    for ns in sorted(namespaces):
        for plural, base in kinds.items():
            left += [f"{plural}/{ns}/{o['metadata']['name']}" for o in plane.items(f"{base}/namespaces/{ns}/{plural}")]
    left += [f"nodepools/{o['metadata']['name']}" for o in plane.items("/apis/karpenter.sh/v1/nodepools")]
    return left


def _clean_up(plane: ControlPlane, nodes: list[str], volumes: list[str]) -> None:
    for path in [*(f"/api/v1/nodes/{n}" for n in nodes), *volumes]:
        plane.api("DELETE", path, missing_ok=True)


@pytest.mark.parametrize("name", ["dev", "staging", "prod"])
def test_up_on_a_real_api_server_schedules_every_pod_where_lint_sized_it(plane, tmp_path, name):
    stack, config = stack_config(name)
    env = config["shardwise:environment"]
    volumes = prepare(plane, env)
    nodes = register_nodes(plane, env)
    project = Project(tmp_path, require_engine(), stack, config, k8s_bin=require_k8s_provider())
    kube = {"shardwise:kubeconfig": str(plane.kubeconfig)}
    try:
        t0 = time.monotonic()
        up = project.operation("up", "--yes", config=kube)
        assert up.returncode == 0, up.stdout[-6000:] + up.stderr[-3000:]
        took = time.monotonic() - t0
        declared = _k8s_resources(project)
        assert {"Deployment", "Service", "NetworkPolicy"} <= {o["kind"] for o in declared}, declared
        missing = [o for o in declared if plane.api("GET", _object_path(o)) is None]
        assert missing == [], missing

        sized = _lint_workloads(stack)
        by_node = {n["metadata"]["name"]: n["metadata"]["labels"] for n in plane.items("/api/v1/nodes")}
        for svc in env.get("services", []):
            w = sized[svc["name"]]
            pods = plane.items(f"/api/v1/namespaces/{svc['namespace']}/pods?labelSelector="
                               f"app.kubernetes.io/name%3D{svc['name']}")
            assert len(pods) == w["replicas"], [p["metadata"]["name"] for p in pods]
            for pod in pods:
                node = pod["spec"].get("nodeName")
                assert node, (pod["metadata"]["name"], pod.get("status", {}).get("conditions"))
                labels = by_node[node]
                assert labels["node.kubernetes.io/instance-type"] == w["cost"]["instance_type"], (node, w["cost"])
                assert pod["status"].get("phase") == "Running", pod["status"]
        # each LeaderWorkerSet formed its groups on its pool's nodes, and up waited for them
        pools = {p["name"]: p for p in env.get("pools", [])}
        for group in env.get("multi_node", []):
            [lws] = [o for o in declared if o["kind"] == "LeaderWorkerSet" and o["name"] == group["name"]]
            got = plane.api("GET", _object_path(lws))
            assert "pulumi.com/waitFor" in got["metadata"]["annotations"], got["metadata"]
            assert_groups_formed(plane, got, by_node, pools[group["pool"]])
        # the router's Ingress waited for its address (written by cluster_support.IngressAddresses)
        for ing in (o for o in declared if o["kind"] == "Ingress"):
            got = plane.api("GET", _object_path(ing))
            assert got["status"]["loadBalancer"]["ingress"][0]["hostname"].endswith(".elb.amazonaws.com"), got
        print(f"{name}: up in {took:.0f} s, {len(declared)} Kubernetes objects")
        # a second up of the same program and config is a no-op: nothing updated or replaced (a perpetual diff
        # would roll the GPU pods on every deploy)
        again = project.operation("up", "--yes", "--expect-no-changes", config=kube)
        assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]

        down = project.run("destroy", "--yes", "--stack", stack, "--config", f"shardwise:kubeconfig={plane.kubeconfig}")
        assert down.returncode == 0, down.stdout[-6000:] + down.stderr[-3000:]

        def gone() -> bool:
            return _left_in(plane, _namespaces(env)) == []

        plane.wait_for("the destroyed stack's objects to go", gone, timeout=120)
    finally:
        _clean_up(plane, nodes, volumes)


def test_a_service_that_scales_from_zero_ends_up_with_a_replica_serving(plane, tmp_path):
    # KEDA at minReplicaCount 0 could scale a Deployment to zero while the provider awaits it, and the provider
    # counts 0 of 0 as done: the component declares one replica and the ScaledObject only once it is Ready
    stack, config = stack_config("dev-scale-from-zero")
    env = config["shardwise:environment"]
    volumes = prepare(plane, env)
    nodes = register_nodes(plane, env)
    project = Project(tmp_path, require_engine(), stack, config, k8s_bin=require_k8s_provider())
    try:
        up = project.operation("up", "--yes", config={"shardwise:kubeconfig": str(plane.kubeconfig)})
        assert up.returncode == 0, up.stdout[-6000:] + up.stderr[-3000:]
        dep = plane.api("GET", "/apis/apps/v1/namespaces/serving/deployments/llama-8b")
        assert (dep["spec"]["replicas"], dep["status"].get("readyReplicas")) == (1, 1), dep["status"]
        scaled = plane.api("GET", "/apis/keda.sh/v1alpha1/namespaces/serving/scaledobjects/llama-8b")
        assert scaled["spec"]["minReplicaCount"] == 0
        [pod] = plane.items("/api/v1/namespaces/serving/pods?labelSelector=app.kubernetes.io/name%3Dllama-8b")
        ready = next(c for c in pod["status"]["conditions"] if c["type"] == "Ready")
        assert ready["status"] == "True"
        # RFC 3339 timestamps of one clock, whole seconds: the ScaledObject was made once the pod was Ready
        assert scaled["metadata"]["creationTimestamp"] >= ready["lastTransitionTime"], (scaled["metadata"], ready)
        down = project.run("destroy", "--yes", "--stack", stack, "--config", f"shardwise:kubeconfig={plane.kubeconfig}")
        assert down.returncode == 0, down.stdout[-6000:] + down.stderr[-3000:]
        plane.wait_for("the destroyed stack's objects to go", lambda: _left_in(plane, _namespaces(env)) == [],
                       timeout=120)
    finally:
        _clean_up(plane, nodes, volumes)


LWS = "leaderworkerset.sigs.k8s.io"


def assert_groups_formed(plane: ControlPlane, lws: dict[str, Any], by_node: dict[str, dict[str, str]],
                         pool: dict[str, Any]) -> None:
    """What the LeaderWorkerSet controller makes of ``lws`` once its groups are ready: a leader StatefulSet of
    ``replicas`` pods and, per group, a worker StatefulSet of ``size - 1``; each pod labelled with its group and
    worker index and annotated with the group size; all Running on nodes of ``pool``; status Available."""
    name, ns = lws["metadata"]["name"], lws["metadata"]["namespace"]
    groups, size = int(lws["spec"]["replicas"]), int(lws["spec"]["leaderWorkerTemplate"]["size"])
    selector = f"labelSelector={LWS}/name%3D{name}"
    sets = {s["metadata"]["name"]: s["spec"]["replicas"]
            for s in plane.items(f"/apis/apps/v1/namespaces/{ns}/statefulsets?{selector}")}
    assert sets == {name: groups, **{f"{name}-{g}": size - 1 for g in range(groups) if size > 1}}, sets
    pods = plane.items(f"/api/v1/namespaces/{ns}/pods?{selector}")
    members = sorted((p["metadata"]["labels"][f"{LWS}/group-index"], p["metadata"]["labels"][f"{LWS}/worker-index"])
                     for p in pods)
    assert members == sorted((str(g), str(w)) for g in range(groups) for w in range(size)), members
    for pod in pods:
        assert pod["metadata"]["annotations"][f"{LWS}/size"] == str(size), pod["metadata"]
        env = {e["name"]: e.get("value") for c in pod["spec"]["containers"] for e in c.get("env", [])}
        assert env.get("LWS_GROUP_SIZE") == str(size), sorted(env)
        node = pod["spec"].get("nodeName")
        assert node, (pod["metadata"]["name"], pod.get("status", {}).get("conditions"))
        assert by_node[node].get("eks.amazonaws.com/nodegroup", by_node[node].get("karpenter.sh/nodepool")) == \
            pool["name"], (pod["metadata"]["name"], by_node[node])
        assert by_node[node]["node.kubernetes.io/instance-type"] == pool["instance_type"], by_node[node]
        assert pod["status"].get("phase") == "Running", pod["status"]
    status = lws.get("status", {})
    conditions = {c["type"]: c["status"] for c in status.get("conditions", [])}
    assert (status.get("readyReplicas"), conditions.get("Available")) == (groups, "True"), status
    print(f"{ns}/{name}: {groups} group(s) of {size} on {sorted({p['spec']['nodeName'] for p in pods})}")


def test_a_stack_the_pack_blocks_creates_nothing_on_the_api_server(plane, tmp_path):
    stack, config = stack_config("staging-kv-cache-under-budget")
    env = config["shardwise:environment"]
    volumes = prepare(plane, env)
    nodes = register_nodes(plane, env)
    project = Project(tmp_path, require_engine(), stack, config, k8s_bin=require_k8s_provider())
    try:
        # the components' own check would stop the program first; switched off, the pack is what blocks
        up = project.operation("up", "--yes", config={"shardwise:kubeconfig": str(plane.kubeconfig),
                                                      "shardwise:validate": "false"})
        assert up.returncode != 0, up.stdout[-4000:]
        assert re.search(r"\[mandatory\]", up.stdout) and "SW103" in up.stdout, up.stdout[-4000:]
        assert _left_in(plane, _namespaces(env)) == []
        assert plane.items("/api/v1/namespaces/serving/pods") == []
    finally:
        _clean_up(plane, nodes, volumes)


def test_the_control_plane_is_the_one_built(plane):
    version = plane.api("GET", "/version")
    script = (ROOT / "scripts" / "build-cluster.sh").read_text(encoding="utf-8")
    want = re.search(r'K8S_VERSION="\$\{K8S_VERSION:-(v[\d.]+)\}"', script)
    assert want and version["gitVersion"] == want.group(1), version
    assert Path(plane.kubeconfig).is_file()


def test_the_control_plane_runs_the_kubernetes_version_prod_creates(plane):
    """prod creates its EKS cluster at ``cluster.version``; the control plane the tests run is that minor version."""
    version = plane.api("GET", "/version")
    declared = load_stack_config("prod")["shardwise:environment"]["cluster"]["version"]
    assert f"{version['major']}.{version['minor']}" == declared, (version["gitVersion"], declared)


def test_the_scheduler_agrees_with_sw201_on_a_pod_wider_than_its_nodes(plane):
    """SW201's one-pod case, against the real scheduler: a pod asking for 2 GPUs on g6e.xlarge nodes (one L40S
    each) is placed nowhere, and the same pod at TP1 with 1 GPU runs."""

    fixture = ROOT / "tests" / "fixtures" / "rules" / "SW201" / "fail.yaml"
    docs = [d for d in yaml.safe_load_all(fixture.read_text(encoding="utf-8")) if d]
    (wide,) = [d for d in docs if d["kind"] == "Deployment"]
    lint = subprocess.run([SHARDWISE, "lint", str(fixture), "--format", "json"], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"}, cwd=ROOT)
    subjects = {f["subject"] for f in json.loads(lint.stdout)["findings"]
                if f["code"] == "SW201" and f["level"] == "mandatory"}
    assert f"Deployment serving/{wide['metadata']['name']}" in subjects
    pool = NodePoolSpec.model_validate({"name": "l40s", "instance_type": "g6e.xlarge"})
    labels = {**node_labels(pool), "node.kubernetes.io/instance-type": "g6e.xlarge"}
    node = "sw201-g6e-xlarge-0"
    plane.add_node(node, labels, node_taints(), _capacity(pool))
    narrow = json.loads(json.dumps(wide))
    narrow["metadata"]["name"] = "llama8b-one-gpu"
    narrow["spec"]["selector"]["matchLabels"]["app"] = narrow["spec"]["template"]["metadata"]["labels"]["app"] = \
        "llama8b-one-gpu"
    container = narrow["spec"]["template"]["spec"]["containers"][0]
    container["args"][container["args"].index("--tensor-parallel-size") + 1] = "1"
    container["resources"]["limits"]["nvidia.com/gpu"] = 1
    ns = wide["metadata"]["namespace"]
    try:
        if plane.api("GET", f"/api/v1/namespaces/{ns}") is None:
            plane.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        plane.create(wide)
        plane.create(narrow)

        def pods(app: str) -> list[dict[str, Any]]:
            return plane.items(f"/api/v1/namespaces/{ns}/pods?labelSelector=app%3D{app}")

        def settled() -> bool:
            w, n = pods("llama8b-two-gpus"), pods("llama8b-one-gpu")
            unschedulable = [c for p in w for c in p.get("status", {}).get("conditions", [])
                             if c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"]
            return bool(unschedulable) and bool(n) and n[0].get("status", {}).get("phase") == "Running"

        plane.wait_for("the scheduler's verdicts", settled, timeout=90)
        (p,) = pods("llama8b-two-gpus")
        (cond,) = [c for c in p["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert "Insufficient nvidia.com/gpu" in cond["message"] and not p["spec"].get("nodeName"), cond
        assert pods("llama8b-one-gpu")[0]["spec"]["nodeName"] == node
    finally:
        for name in ("llama8b-two-gpus-on-one-gpu-nodes", "llama8b-one-gpu"):
            plane.api("DELETE", f"/apis/apps/v1/namespaces/{ns}/deployments/{name}", missing_ok=True)
        plane.wait_for("the pods to go", lambda: not plane.items(f"/api/v1/namespaces/{ns}/pods"), timeout=90)
        _clean_up(plane, [node], [])
