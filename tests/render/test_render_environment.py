"""rules/render/environment.py: the namespaces of an environment and what its stacks need the cluster to run."""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters.stack import load_stack_spec
from shardwise.rules.render.environment import (
    environment_namespaces,
    environment_prerequisites,
    pod_security_level,
    priority_classes,
    render_namespace,
)


def test_namespaces_behind_an_alb_get_readiness_gates():
    spec, _ = load_stack_spec(str(ROOT / "stacks" / "Pulumi.prod.yaml"))
    # prod's node-nvme caches are hostPath volumes, which the baseline level forbids: enforce privileged, audit
    # against restricted
    assert environment_namespaces(spec) == [{"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "serving", "labels": {"app.kubernetes.io/managed-by": "shardwise",
                                      "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled",
                                      "pod-security.kubernetes.io/enforce": "privileged",
                                      "pod-security.kubernetes.io/audit": "restricted"}}}]
    assert render_namespace("batch")["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "shardwise", "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/audit": "restricted"}


def test_the_pod_security_level_is_the_strictest_the_pods_meet():
    from render_support import multinode, service

    root_pvc = service(cache={"kind": "pvc", "storage_class": "gp3"})
    non_root = service(cache={"kind": "pvc", "storage_class": "gp3"}, run_as_non_root=True)
    assert pod_security_level([root_pvc]) == "baseline"
    assert pod_security_level([non_root]) == "restricted"
    assert pod_security_level([non_root, root_pvc]) == "baseline"
    assert pod_security_level([non_root, multinode(cache={"kind": "node-nvme"})]) == "privileged"
    assert pod_security_level([service(cache={"kind": "pvc", "storage_class": "gp3"}, run_as_non_root=True,
                                       pod={"volumes": [{"name": "x", "host_path": "/opt/x"}]})]) == "privileged"
    assert pod_security_level([]) == "restricted"  # a router's namespace: no pods


def test_what_each_stack_needs_the_cluster_to_run():
    import yaml
    from shardwise.rules.adapters.stack import spec_from_value

    def needs(env: str) -> tuple[dict[str, str], dict[str, str]]:
        cfg = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{env}.yaml").read_text())["config"]
        spec = spec_from_value(cfg["shardwise:environment"], env)
        return environment_prerequisites(spec), priority_classes(spec)

    common = {"keda": "services[0]", "prometheus-operator": "services[0]", "aws-load-balancer-controller": "routers[0]"}
    assert needs("dev") == ({"nvidia-device-plugin": "pools[0]", **common, "karpenter": "pools[0].provisioner"}, {})
    assert needs("staging") == ({"nvidia-device-plugin": "pools[0]", **common, "cluster-autoscaler": "pools[0].max_size"},
                                {"inference-high": "services[0].pod.priority_class_name"})
    assert needs("prod") == ({"nvidia-device-plugin": "pools[0]", "aws-efa-k8s-device-plugin": "pools[1]",
                              "lws": "multi_node[0]", **common, "cluster-autoscaler": "pools[0].max_size"}, {})
