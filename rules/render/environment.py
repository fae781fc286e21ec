"""ServingEnvironment (:mod:`shardwise.components.environment`): every Kubernetes object of one
environment, its namespaces, the prerequisites its cluster must run and the PriorityClasses its pods
name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.spec import EnvironmentSpec, VllmMultiNodeSpec, VllmServiceSpec
from .common import LABEL_MANAGED_BY
from .multinode import render_vllm_multinode
from .network import render_network_policies
from .nodepool import node_role_name, pool_efa, render_karpenter
from .router import ALB_READINESS_GATE_LABEL, render_router
from .vllm import render_vllm_service

#: Pod Security Admission's namespace labels (Kubernetes "Pod Security Standards").
PSA_ENFORCE, PSA_AUDIT = "pod-security.kubernetes.io/enforce", "pod-security.kubernetes.io/audit"


def pod_security_level(workloads: Sequence[VllmServiceSpec | VllmMultiNodeSpec]) -> str:
    """The strictest Pod Security level every one of ``workloads``' pods meets, which their namespace enforces.

    ``restricted`` when each runs as non-root (``run_as_non_root``: no escalation, no capabilities, RuntimeDefault
    seccomp) and mounts no hostPath; ``baseline`` (root, but no privileged container, host namespace, hostPath or
    added capability: GPUs and EFA devices come from device plugins, /dev/shm is an emptyDir) when none mounts a
    hostPath; else ``privileged``: a node-nvme cache or a ``pod.volumes`` host_path is a hostPath volume, which
    baseline forbids."""
    def host_path(w: VllmServiceSpec | VllmMultiNodeSpec) -> bool:
        return w.cache.kind == "node-nvme" or any(v.host_path for v in w.pod.volumes)

    if any(host_path(w) for w in workloads):
        return "privileged"
    return "restricted" if all(w.run_as_non_root for w in workloads) else "baseline"


def render_namespace(name: str, alb_readiness_gates: bool = False, pod_security: str = "restricted",
                     ) -> dict[str, Any]:
    """A namespace shardwise creates; with an ALB in front of its pods, labelled for readiness gates; enforcing
    ``pod_security`` (:func:`pod_security_level`) and auditing against ``restricted``."""
    labels = {LABEL_MANAGED_BY: "shardwise"}
    if alb_readiness_gates:
        labels[ALB_READINESS_GATE_LABEL] = "enabled"
    labels[PSA_ENFORCE] = pod_security
    labels[PSA_AUDIT] = "restricted"
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def environment_namespaces(env: EnvironmentSpec) -> list[dict[str, Any]]:
    """The namespaces of an environment's workloads and routers (readiness gates where an ALB routes), each
    enforcing the Pod Security level its pods meet."""
    workloads: list[VllmServiceSpec | VllmMultiNodeSpec] = [*env.services, *env.multi_node]
    wanted = {s.namespace for s in workloads} | {r.namespace for r in env.routers}
    backends = {b.name: b for b in workloads}
    gated = {backends[s].namespace for r in env.routers if r.kind == "alb-ingress" for s in r.services}
    return [render_namespace(ns, ns in gated, pod_security_level([w for w in workloads if w.namespace == ns]))
            for ns in sorted(wanted)]


def render_environment_objects(env: EnvironmentSpec) -> list[tuple[str, dict[str, Any]]]:
    """Every Kubernetes object the environment declares, with the spec path it comes from.

    Karpenter objects carry placeholder subnet and security-group ids: their real values exist
    only once the network is created.
    """
    pools = {p.name: p for p in env.pools}
    out: list[tuple[str, dict[str, Any]]] = []
    for i, p in enumerate(env.pools):
        if p.provisioner == "karpenter":
            role = node_role_name(env.node_role_arn or "")
            for obj in render_karpenter(p, role, ["<subnet>"], ["<security-group>"]):
                out.append((f"pools[{i}]", obj))
    for i, s in enumerate(env.services):
        out.extend((f"services[{i}]", o) for o in render_vllm_service(s, pools.get(s.pool)))
    for i, m in enumerate(env.multi_node):
        out.extend((f"multi_node[{i}]", o) for o in render_vllm_multinode(m, pools.get(m.pool)))
    for o in render_network_policies(env.network, env.services, env.multi_node, env.routers):
        out.append(("network", o))
    backends: list[VllmServiceSpec | VllmMultiNodeSpec] = [*env.services, *env.multi_node]
    for i, r in enumerate(env.routers):
        out.extend((f"routers[{i}]", o) for o in render_router(r, backends))
    return out


#: What an environment's objects need the cluster to run, by prerequisite name (the names of
#: ``cluster.installed``); each is installed by the chart of the same name when shardwise creates the
#: cluster (``prometheus-operator``: kube-prometheus-stack), else declared present by the stack.
PREREQUISITES: dict[str, str] = {
    "nvidia-device-plugin": "the NVIDIA device plugin (nvidia.com/gpu resources on the GPU nodes)",
    "aws-efa-k8s-device-plugin": "the EFA device plugin (vpc.amazonaws.com/efa resources on EFA pools)",
    "lws": "the LeaderWorkerSet controller and CRD (multi-node groups)",
    "keda": "KEDA and its ScaledObject CRD (KEDA autoscalers)",
    "prometheus-operator": "the Prometheus operator and its PodMonitor/ServiceMonitor CRDs, and a Prometheus that "
                           "selects the monitors (kube-prometheus-stack)",
    "aws-load-balancer-controller": "the AWS Load Balancer Controller with its IAM role (alb-ingress routers)",
    "cluster-autoscaler": "the Cluster Autoscaler for the managed node groups (pools that grow past min_size)",
    "karpenter": "Karpenter with its NodePool/EC2NodeClass CRDs (karpenter pools)",
    "gateway-api": "the Gateway API CRDs and a Gateway (gateway-api routers)",
    "dcgm-exporter": "NVIDIA's DCGM exporter on the GPU nodes, scraped with its pod and namespace labels kept: "
                     "an autoscaler on the `gpu` metric reads DCGM_FI_DEV_GPU_UTIL",
}
#: The prerequisite that installs the CRD of a kind (or serves it, for the ALB Ingress).
PREREQUISITE_OF_KIND: dict[str, str] = {
    "ScaledObject": "keda", "PodMonitor": "prometheus-operator", "ServiceMonitor": "prometheus-operator",
    "LeaderWorkerSet": "lws", "Ingress": "aws-load-balancer-controller", "NodePool": "karpenter",
    "EC2NodeClass": "karpenter", "HTTPRoute": "gateway-api", "ReferenceGrant": "gateway-api",
}


def environment_prerequisites(env: EnvironmentSpec) -> dict[str, str]:
    """The prerequisites (:data:`PREREQUISITES`) the environment's objects need → the first spec path that
    needs each, in the order of :data:`PREREQUISITES`."""
    needed: dict[str, str] = {}
    for i, p in enumerate(env.pools):
        needed.setdefault("nvidia-device-plugin", f"pools[{i}]")
        if pool_efa(p):
            needed.setdefault("aws-efa-k8s-device-plugin", f"pools[{i}]")
        if p.provisioner == "karpenter":
            needed.setdefault("karpenter", f"pools[{i}].provisioner")
        elif p.max_size > p.min_size:
            needed.setdefault("cluster-autoscaler", f"pools[{i}].max_size")
    for i, s in enumerate(env.services):
        if s.autoscaling is not None and s.autoscaling.metric == "gpu":
            needed.setdefault("dcgm-exporter", f"services[{i}].autoscaling.metric")
    for path, obj in render_environment_objects(env):
        name = PREREQUISITE_OF_KIND.get(obj["kind"])
        if name is not None:
            needed.setdefault(name, path)
    return {n: needed[n] for n in PREREQUISITES if n in needed}


def priority_classes(env: EnvironmentSpec) -> dict[str, str]:
    """The PriorityClass names the environment's pods use → the spec path of the first that names each."""
    out: dict[str, str] = {}
    for kind in ("services", "multi_node"):
        for i, w in enumerate(getattr(env, kind)):
            if w.pod.priority_class_name:
                out.setdefault(w.pod.priority_class_name, f"{kind}[{i}].pod.priority_class_name")
    return out
