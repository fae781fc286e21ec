"""rules/render/: the Kubernetes objects and AWS plans the components declare, exactly.

Rendered objects are also validated against the Kubernetes JSON schemas shipped with the
``kubernetes-validate`` package (offline, strict: unknown fields fail). Custom resources
(LeaderWorkerSet, KEDA ScaledObject, Karpenter NodePool/EC2NodeClass, Gateway API routes) have no
schema there and are skipped by design; the LeaderWorkerSet's leader and worker pod templates are
validated as Pods instead.
"""

from __future__ import annotations

import ipaddress
import math
import pathlib

import kubernetes_validate
import pytest
from kubernetes_validate.utils import SchemaNotFoundError
from shardwise.rules.adapters.stack import load_stack_spec
from shardwise.rules.capacity import cache
from shardwise.rules.model.spec import (
    AutoscalingSpec,
    EngineArgsSpec,
    NetworkSpec,
    NodePoolSpec,
    RouterSpec,
    SuppressionSpec,
    VllmMultiNodeSpec,
    VllmServiceSpec,
)
from shardwise.rules.render.environment import (
    environment_namespaces,
    environment_prerequisites,
    priority_classes,
    render_environment_objects,
    render_namespace,
)
from shardwise.rules.render.multinode import render_leaderworkerset, render_vllm_multinode
from shardwise.rules.render.network import gpu_node_sg_rules, render_network_policies, subnet_plan
from shardwise.rules.render.nodepool import (
    efa_interface_count,
    efa_interfaces,
    eks_taints,
    launch_template_plan,
    node_labels,
    node_role_name,
    node_taints,
    render_karpenter,
)
from shardwise.rules.render.pod import extra_args_problems, pod_problems
from shardwise.rules.render.router import render_router
from shardwise.rules.render.vllm import render_autoscaler, render_deployment, render_vllm_service
from shardwise.rules.render.workload import (
    PROBE_PERIOD_SECONDS,
    group_labels,
    object_meta,
    render_monitor,
    selector_labels,
    shm_size_gib,
    startup_failure_threshold,
    unpinned_image_reason,
)
from shardwise.rules.vllm import images

ROOT = pathlib.Path(__file__).resolve().parents[1]
K8S_VERSION = "1.33"


def service(**kw) -> VllmServiceSpec:
    base = dict(
        name="llama-70b",
        pool="h100",
        engine=EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4,
                              max_model_len=32768, max_num_seqs=64),
        replicas=2,
        p95_context_tokens=6144,
        model_load_seconds=1200,
        model_cache_gib=200,
    )
    base.update(kw)
    return VllmServiceSpec(**base)


def multinode(**kw) -> VllmMultiNodeSpec:
    base = dict(
        name="llama-405b",
        pool="h100-efa",
        engine=EngineArgsSpec(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=8,
                              pipeline_parallel_size=2, max_model_len=32768, max_num_seqs=32),
        image="vllm/vllm-openai:v0.13.0",
        model_load_seconds=2700,
        model_cache_gib=900,
    )
    base.update(kw)
    return VllmMultiNodeSpec(**base)


P5_EFA = NodePoolSpec(name="h100-efa", instance_type="p5.48xlarge", multi_node=True, min_size=2,
                      desired_size=2, max_size=2)


#: Every escape hatch, as a real service would set them.
ESCAPES = {
    "labels": {"team": "inference"}, "annotations": {"example.com/owner": "ml-platform"},
    "env": [{"name": "VLLM_API_KEY", "secret_key_ref": {"name": "vllm-api", "key": "key"}},
            {"name": "POD_NAME", "field_path": "metadata.name"}],
    "env_from": [{"config_map": "vllm-tuning", "prefix": "VLLM_"}],
    "volumes": [{"name": "templates", "config_map": "chat-templates"}],
    "volume_mounts": [{"name": "templates", "mount_path": "/templates", "read_only": True}],
    "requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"memory": "96Gi"},
    "service_account": {"name": "model-reader", "role_arn": "arn:aws:iam::123456789012:role/reader", "mode": "irsa"},
    "node_selector": {"topology.kubernetes.io/zone": "us-east-1a"},
    "node_affinity": [{"key": "topology.k8s.aws/network-node-layer-3", "operator": "In", "values": ["nn-0a1"]}],
    "tolerations": [{"key": "dedicated", "value": "inference", "effect": "NoSchedule"}],
    "priority_class_name": "inference-high", "image_pull_secrets": ["ecr-pull"],
}


# --- VllmService ------------------------------------------------------------------------------


def test_deployment_container_is_rendered_from_the_engine_spec():
    spec = service(suppress=(SuppressionSpec(code="SW106", reason="bf16 baseline; AWQ in staging"),),
                   base_model="meta-llama/Llama-3.1-70B-Instruct")
    dep = render_deployment(spec)
    assert dep["metadata"] == {
        "name": "llama-70b",
        "namespace": "serving",
        "labels": {"app.kubernetes.io/name": "llama-70b", "shardwise.dev/serving-group": "llama-70b",
                   "app.kubernetes.io/managed-by": "shardwise"},
        "annotations": {"shardwise.dev/p95-context-tokens": "6144",
                        "shardwise.dev/base-model": "meta-llama/Llama-3.1-70B-Instruct",
                        "shardwise.dev/ignore": "SW106: bf16 baseline, AWQ in staging"},
    }
    pod = dep["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    assert c["command"] == ["vllm", "serve"]
    assert c["args"] == spec.engine.to_args() + ["--host", "0.0.0.0"]
    assert c["args"] == ["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4",
                         "--max-model-len", "32768", "--max-num-seqs", "64", "--host", "0.0.0.0"]
    assert c["image"] == "vllm/vllm-openai:v0.11.0"
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 4}, "limits": {"nvidia.com/gpu": 4}}
    assert c["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]
    assert c["env"] == [
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN", "optional": True}}},
        {"name": "HF_HOME", "value": "/root/.cache/huggingface"},
        {"name": "HF_HUB_OFFLINE", "value": "1"},  # the init container has downloaded the checkpoint
    ]
    (init,) = pod["initContainers"]
    assert (init["name"], init["image"], init["command"][:2], init["args"]) == (
        "model-download", "vllm/vllm-openai:v0.11.0", ["python3", "-c"], ["meta-llama/Llama-3.1-70B-Instruct", ""])
    assert "snapshot_download(repo, revision=revision, allow_patterns=weights + small, ignore_patterns=[\"original/*\"])" \
        in init["command"][2]
    assert pod["terminationGracePeriodSeconds"] == 60  # drain 30 s + 30 s to shut down
    assert pod["nodeSelector"] == {"shardwise.dev/pool": "h100"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["volumes"] == [
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        {"name": "model-cache", "emptyDir": {"sizeLimit": "200Gi"}},
    ]
    assert c["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"},
                                 {"name": "model-cache", "mountPath": "/root/.cache/huggingface"}]
    # 1200 s declared is more than the empty-dir's 300 s + 2 x 1077 s (131 GiB at 125 MiB/s)? no: 2454 s wins
    assert c["startupProbe"] == {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10,
                                 "failureThreshold": 246, "timeoutSeconds": 5}
    assert c["readinessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert dep["spec"]["replicas"] == 2
    assert dep["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "llama-70b",
                                                       "shardwise.dev/serving-group": "llama-70b"}}


def test_no_hf_token_secret_means_no_token_env():
    dep = render_deployment(service(hf_token_secret=None))
    pod = dep["spec"]["template"]["spec"]
    assert [e["name"] for e in pod["containers"][0]["env"]] == ["HF_HOME", "HF_HUB_OFFLINE"]
    assert [e["name"] for e in pod["initContainers"][0]["env"]] == ["HF_HOME"]


@pytest.mark.parametrize("gpus,gib", [(1, 4), (2, 4), (4, 8), (8, 16)])
def test_shm_size_rule(gpus, gib):
    assert shm_size_gib(gpus) == gib


@pytest.mark.parametrize("load", [30, 61, 600, 900, 1201, 2700, 7200])
def test_startup_probe_covers_the_model_load_and_no_more_than_one_period(load):
    t = startup_failure_threshold(load)
    assert t * PROBE_PERIOD_SECONDS >= load
    assert (t - 1) * PROBE_PERIOD_SECONDS < load


@pytest.mark.parametrize("image,pinned", [
    ("vllm/vllm-openai:v0.11.0", True),
    ("vllm/vllm-openai@sha256:" + "a" * 64, True),
    ("registry.example.com:5000/vllm:v1", True),
    ("vllm/vllm-openai", False),
    ("vllm/vllm-openai:latest", False),
    ("registry.example.com:5000/vllm", False),
])
def test_unpinned_images(image, pinned):
    reason = unpinned_image_reason(image)
    assert (reason is None) == pinned
    if not pinned:
        assert image in reason


def test_keda_scaled_object_on_queue_depth():
    so = render_autoscaler(service(autoscaling=AutoscalingSpec(min_replicas=2, max_replicas=6)))
    assert so == {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": object_meta("llama-70b", "serving"),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llama-70b"},
            "minReplicaCount": 2,
            "maxReplicaCount": 6,
            "pollingInterval": 15,
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {
                "scaleDown": {"stabilizationWindowSeconds": 300}}}},
            "triggers": [{"type": "prometheus", "metadata": {
                "serverAddress": "http://prometheus-operated.monitoring.svc:9090",
                "query": 'sum(vllm:num_requests_waiting{namespace="serving",pod=~"llama-70b-[a-z0-9]+-[a-z0-9]+"})',
                "threshold": "5",
            }}],
        },
    }
    # the Deployment starts with at least the warm minimum
    assert render_deployment(service(replicas=1, autoscaling=AutoscalingSpec(min_replicas=2)))[
        "spec"]["replicas"] == 2


def test_hpa_variants():
    hpa = render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa", threshold=3)))
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["metrics"] == [{"type": "Pods", "pods": {
        "metric": {"name": "vllm:num_requests_waiting"}, "target": {"type": "AverageValue", "averageValue": "3"}}}]
    assert hpa["spec"]["behavior"] == {"scaleDown": {"stabilizationWindowSeconds": 300}}
    cpu = render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa", metric="cpu", threshold=70)))
    assert cpu["spec"]["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]
    assert render_autoscaler(service(autoscaling=None)) is None
    kinds = [o["kind"] for o in render_vllm_service(service(autoscaling=None))]
    assert kinds == ["Deployment", "Service", "PodDisruptionBudget", "PodMonitor"]
    kinds = [o["kind"] for o in render_vllm_service(service(autoscaling=None, metrics={"monitor": "external"}))]
    assert kinds == ["Deployment", "Service", "PodDisruptionBudget"]


def test_service_and_pdb():
    svc, pdb = render_vllm_service(service())[1:3]
    assert svc["spec"] == {"type": "ClusterIP",
                           "selector": {"app.kubernetes.io/name": "llama-70b",
                                        "shardwise.dev/serving-group": "llama-70b"},
                           "ports": [{"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}]}
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": {
        "app.kubernetes.io/name": "llama-70b", "shardwise.dev/serving-group": "llama-70b"}}}


def test_escape_hatches_are_merged_into_the_pod():
    spec = service(pod=ESCAPES, engine=EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4,
                                                      extra_args=("--trust-remote-code", "--chat-template",
                                                                  "/templates/llama.jinja")))
    sa, dep = render_vllm_service(spec)[:2]
    assert sa == {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {
        "name": "model-reader", "namespace": "serving", "labels": group_labels("llama-70b"),
        "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/reader"}}}
    tpl = dep["spec"]["template"]
    pod = tpl["spec"]
    (c,) = pod["containers"]
    assert tpl["metadata"] == {"labels": {"team": "inference", **group_labels("llama-70b")},
                               "annotations": {"example.com/owner": "ml-platform"}}
    assert c["args"][-5:] == ["--trust-remote-code", "--chat-template", "/templates/llama.jinja", "--host", "0.0.0.0"]
    assert c["env"][-2:] == [{"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "vllm-api", "key": "key"}}},
                             {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
    assert c["envFrom"] == [{"configMapRef": {"name": "vllm-tuning"}, "prefix": "VLLM_"}]
    assert c["volumeMounts"][-1] == {"name": "templates", "mountPath": "/templates", "readOnly": True}
    assert pod["volumes"][-1] == {"name": "templates", "configMap": {"name": "chat-templates"}}
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 4, "cpu": "8", "memory": "64Gi"},
                              "limits": {"nvidia.com/gpu": 4, "memory": "96Gi"}}
    assert pod["nodeSelector"] == {"topology.kubernetes.io/zone": "us-east-1a", "shardwise.dev/pool": "h100"}
    assert pod["affinity"] == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "topology.k8s.aws/network-node-layer-3", "operator": "In", "values": ["nn-0a1"]}]}]}}}
    assert pod["tolerations"][1:] == [{"key": "dedicated", "operator": "Equal", "value": "inference",
                                       "effect": "NoSchedule"}]
    assert (pod["serviceAccountName"], pod["priorityClassName"], pod["imagePullSecrets"]) == (
        "model-reader", "inference-high", [{"name": "ecr-pull"}])
    assert pod_problems(spec) == [] and extra_args_problems(spec.engine) == []


def test_escape_hatches_refuse_what_the_rules_or_shardwise_own():
    spec = service(pod={
        "labels": {"shardwise.dev/serving-group": "x", "role": "leader"},
        "annotations": {"shardwise.dev/ignore": "SW104: no"},
        "node_selector": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
        "node_affinity": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["A100"]}, {"key": "x"}],
        "limits": {"vpc.amazonaws.com/efa": "4", "nvidia.com/gpu": "8"},
        "env": [{"name": "HF_HUB_OFFLINE", "value": "0"}],
        "volumes": [{"name": "model-cache", "empty_dir_gib": 10}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
    })
    assert pod_problems(spec) == [
        ("pod.labels", "`shardwise.dev/serving-group` is set by shardwise (suppressions: `suppress`)"),
        ("pod.labels", "`role` is set by shardwise (suppressions: `suppress`)"),
        ("pod.annotations", "`shardwise.dev/ignore` is set by shardwise (suppressions: `suppress`)"),
        ("pod.node_selector", "`node.kubernetes.io/instance-type` selects the GPU pool: set `pool`"),
        ("pod.node_affinity[0]", "`nvidia.com/gpu.product` selects the GPU pool: set `pool`"),
        ("pod.node_affinity[1]", "each entry is a {key, operator, values} match expression"),
        ("pod.limits", "`vpc.amazonaws.com/efa` comes from the pool's EFA interfaces"),
        ("pod.limits", "`nvidia.com/gpu` comes from engine.tensor_parallel_size"),
        ("pod.env[0].name", "`HF_HUB_OFFLINE` is set by shardwise"),
        ("pod.volumes[0].name", "`model-cache` is shardwise's own volume"),
        ("pod.tolerations[0]", "the GPU taint is tolerated already"),
    ]
    engine = EngineArgsSpec(model="m", extra_args=("--tensor-parallel-size=2", "--nnodes", "2", "--host", "::",
                                                   "--gpu-memory-utilization", "0.5", "--enforce-eager", "x.jinja"))
    assert extra_args_problems(engine) == [
        ("engine.extra_args", "--tensor-parallel-size is read by the rules: set engine.tensor_parallel_size"),
        ("engine.extra_args", "--nnodes is set by the multi-node launcher (`launcher`)"),
        ("engine.extra_args", "--host is set by shardwise (it serves on 0.0.0.0 behind the Service)"),
        ("engine.extra_args", "--gpu-memory-utilization is read by the rules: set engine.gpu_memory_utilization"),
        ("engine.extra_args", "--enforce-eager is read by the rules: set engine.enforce_eager"),
        ("engine.extra_args", "`x.jinja` is not a flag (a positional argument would be taken as the model)"),
    ]


def test_drain_before_sigterm():
    (c,) = render_deployment(service(drain_seconds=120))["spec"]["template"]["spec"]["containers"]
    hook = c["lifecycle"]["preStop"]["exec"]["command"]
    assert hook[:2] == ["python3", "-c"] and hook[3:] == ["8000", "120"]
    assert 'line.startswith(("vllm:num_requests_running", "vllm:num_requests_waiting"))' in hook[2]
    dep = render_deployment(service(drain_seconds=120))
    assert dep["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 150


def test_monitors_for_the_autoscalers_query():
    pm = render_monitor(service(metrics={"labels": {"release": "kps"}, "interval_seconds": 30}))
    assert pm == {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": {
        "name": "llama-70b", "namespace": "serving", "labels": {"release": "kps", **group_labels("llama-70b")}},
        "spec": {"selector": {"matchLabels": selector_labels("llama-70b")},
                 "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "30s"}]}}
    sm = render_monitor(service(metrics={"monitor": "service-monitor"}))
    assert (sm["kind"], sm["spec"]["endpoints"]) == ("ServiceMonitor", [{"port": "http", "path": "/metrics",
                                                                          "interval": "15s"}])
    assert render_monitor(service(metrics={"monitor": "none"})) is None


def test_namespaces_behind_an_alb_get_readiness_gates():
    spec, _ = load_stack_spec(str(ROOT / "stacks" / "Pulumi.prod.yaml"))
    assert environment_namespaces(spec) == [{"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "serving", "labels": {"app.kubernetes.io/managed-by": "shardwise",
                                      "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled"}}}]
    assert render_namespace("batch")["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "shardwise"}


# --- model cache: a restart finds the weights; the probe allows their load --------------------------


H100 = NodePoolSpec(name="h100", instance_type="p5.48xlarge", instance_store="raid0")


@pytest.mark.parametrize("cache_spec,volume,budget", [
    # empty-dir: lives with the pod; reads at the pool's gp3 root volume (125 MiB/s): 131.42 GiB -> 1077 s
    ({}, {"name": "model-cache", "emptyDir": {"sizeLimit": "200Gi"}}, (125.0, 1077, 2454)),
    # node-nvme: a hostPath on the instance-store RAID-0 that a restarted pod finds again
    ({"kind": "node-nvme", "throughput_mib_s": 2000},
     {"name": "model-cache", "hostPath": {"path": "/mnt/k8s-disks/0/shardwise-model-cache", "type": "DirectoryOrCreate"}},
     (2000.0, 68, 562)),
    # pvc on FSx for Lustre, shared by every replica; SW402's floor (300 + 2 x 131.42) wins over 300 + 2 x 135
    ({"kind": "pvc", "storage_class": "fsx-lustre", "throughput_mib_s": 1000},
     {"name": "model-cache", "persistentVolumeClaim": {"claimName": "llama-70b-model-cache"}}, (1000.0, 135, 570)),
    # an existing claim
    ({"kind": "pvc", "claim_name": "weights", "throughput_mib_s": 500},
     {"name": "model-cache", "persistentVolumeClaim": {"claimName": "weights"}}, (500.0, 270, 840)),
])
def test_model_cache_volume_and_startup_budget(cache_spec, volume, budget):
    spec = service(cache=cache_spec, model_load_seconds=None)
    pod = render_deployment(spec, H100)["spec"]["template"]["spec"]
    assert pod["volumes"][1] == volume
    b = cache.startup_budget(spec, H100.model_copy(update={"instance_store": "none"}) if not cache_spec else H100)
    assert (b.weights_gib_per_pod, b.throughput_mib_s, b.load_seconds, b.budget_seconds) == (131.42, *budget)
    assert pod["containers"][0]["startupProbe"]["failureThreshold"] == math.ceil(budget[2] / 10)
    # the weights are downloaded once, by the init container, into the cache the restarted pod mounts again
    assert pod["initContainers"][0]["volumeMounts"] == [{"name": "model-cache", "mountPath": "/root/.cache/huggingface"}]
    assert {"name": "HF_HUB_OFFLINE", "value": "1"} in pod["containers"][0]["env"]


def test_a_declared_load_time_longer_than_the_estimate_wins():
    b = cache.startup_budget(service(cache={"kind": "node-nvme", "throughput_mib_s": 2000}, model_load_seconds=1200), H100)
    assert (b.load_seconds, b.floor_seconds, b.budget_seconds) == (68, 562, 1200)
    assert cache.startup_budget(service(weights_gib=20.0, model_load_seconds=None,
                                        cache={"kind": "node-nvme", "throughput_mib_s": 1024}),
                                H100).as_dict() == {"weights_gib_per_pod": 20.0, "throughput_mib_s": 1024,
                                                    "load_seconds": 20, "budget_seconds": 340, "floor_seconds": 340}


def test_s3_streaming_loads_with_runai_streamer_and_no_local_copy():
    spec = service(cache={"kind": "s3", "s3_uri": "s3://models/llama-3.1-70b", "throughput_mib_s": 3000},
                   model_load_seconds=None,
                   engine=EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4))
    dep = render_deployment(spec, H100)
    pod = dep["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    assert c["args"] == ["s3://models/llama-3.1-70b", "--tensor-parallel-size", "4", "--load-format", "runai_streamer",
                         "--served-model-name", "meta-llama/Llama-3.1-70B-Instruct", "--host", "0.0.0.0"]
    assert [v["name"] for v in pod["volumes"]] == ["dshm"] and "initContainers" not in pod
    assert [e["name"] for e in c["env"]] == ["HF_TOKEN"]
    # the rules read the model's shape from the annotation, the container loads s3://...
    assert dep["metadata"]["annotations"]["shardwise.dev/base-model"] == "meta-llama/Llama-3.1-70B-Instruct"
    assert cache.startup_budget(spec, H100).budget_seconds == 562  # 90 s at 3000 MiB/s; SW402's floor


def test_cache_problems():
    rwo = service(cache={"kind": "pvc", "storage_class": "gp3", "access_mode": "ReadWriteOnce", "throughput_mib_s": 1000})
    assert cache.cache_problems(rwo, H100, multi_node=False, max_replicas=4) == [
        ("cache.access_mode", "a ReadWriteOnce claim attaches to one node, but up to 4 replicas mount it; use "
                              "ReadWriteMany (FSx for Lustre) or node-nvme")]
    assert cache.cache_problems(rwo, H100, multi_node=False, max_replicas=1) == []
    nvme = service(cache={"kind": "node-nvme", "throughput_mib_s": 2000, "host_path": "/var/models"}, model_cache_gib=4000)
    assert cache.cache_problems(nvme, NodePoolSpec(name="p3", instance_type="p3.16xlarge"), False) == [
        ("cache.kind", "p3.16xlarge has no NVMe instance storage; use pvc or s3"),
        ("cache.host_path", "`/var/models` is not on the instance-store RAID-0 (/mnt/k8s-disks/0/...)")]
    small = NodePoolSpec(name="h100", instance_type="p5.4xlarge", instance_store="raid0")
    assert cache.cache_problems(nvme, small, False)[0] == (
        "model_cache_gib", "4000 GiB does not fit the 3840 GB of NVMe instance storage of p5.4xlarge")
    s3 = service(cache={"kind": "s3", "s3_uri": "s3://models/x", "throughput_mib_s": 3000})
    assert cache.cache_problems(s3, H100, False) == [(
        "pod.service_account", "streaming from s3://models/x needs AWS credentials in the pod: set pod.service_account "
        "with a role_arn that may read it (IMDSv2 with hop limit 1 keeps the node's role from pods)")]


# --- VllmMultiNode ----------------------------------------------------------------------------


@pytest.mark.parametrize("image,version,launcher,why", [
    ("vllm/vllm-openai:v0.11.0", None, "ray", "vLLM 0.11.0 predates the native multi-node launch (>= 0.11.1)"),
    ("vllm/vllm-openai:v0.11.1", None, "native", "vLLM 0.11.1 has the native multi-node launch (>= 0.11.1)"),
    ("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", None, "native",
     "vLLM 0.13.0 has the native multi-node launch (>= 0.11.1)"),
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01", None, "ray",
     "the vLLM version of `123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01` is not known (set vllm_version); "
     "Ray works with every version"),
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01", "0.12.0", "native",
     "vLLM 0.12.0 has the native multi-node launch (>= 0.11.1)"),
])
def test_the_launcher_default_matches_the_images_vllm(image, version, launcher, why):
    assert images.choose_launcher("auto", image, version) == (launcher, why)
    lws = render_leaderworkerset(multinode(image=image, vllm_version=version), P5_EFA)
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert leader["command"] == (["vllm", "serve"] if launcher == "native" else ["/bin/sh", "-c"])


@pytest.mark.parametrize("image,efa", [
    ("vllm/vllm-openai:v0.13.0", False),
    ("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", True),
    ("763104351884.dkr.ecr.us-west-2.amazonaws.com/vllm:0.11.0-gpu-py312-cu128-ubuntu22.04-ec2", True),
    ("registry.example.com/vllm-efa:1", None),
])
def test_which_images_carry_libfabric_and_aws_ofi_nccl(image, efa):
    assert images.image_has_efa(image, None) is efa
    assert images.image_has_efa(image, True) is True




def test_leaderworkerset_native_launch():
    spec = multinode()
    lws, svc, monitor = render_vllm_multinode(spec, P5_EFA)
    assert lws["apiVersion"] == "leaderworkerset.x-k8s.io/v1"
    assert "annotations" not in lws["metadata"]  # exclusive topology is opt-in
    assert monitor["spec"]["selector"]["matchLabels"]["role"] == "leader"  # workers serve no /metrics
    tpl = lws["spec"]["leaderWorkerTemplate"]
    assert tpl["size"] == 2
    assert tpl["restartPolicy"] == "RecreateGroupOnPodRestart"
    assert lws["spec"]["replicas"] == 1
    leader = tpl["leaderTemplate"]["spec"]["containers"][0]
    worker = tpl["workerTemplate"]["spec"]["containers"][0]
    engine = spec.engine.to_args() + ["--host", "0.0.0.0"]
    native = ["--distributed-executor-backend", "mp", "--nnodes", "$(LWS_GROUP_SIZE)",
              "--node-rank", "$(LWS_WORKER_INDEX)", "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    assert leader["command"] == worker["command"] == ["vllm", "serve"]
    assert leader["args"] == engine + native
    assert worker["args"] == engine + native + ["--headless"]
    for c in (leader, worker):
        # the AWS EKS EFA guide's pod: every EFA device, 5120Mi of 2 MiB huge pages (request = limit)
        # and a memory request, without which Kubernetes refuses a huge-page request
        assert c["resources"] == {
            "requests": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi",
                         "memory": "32000Mi"},
            "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"},
        }
        assert c["env"][3:] == [
            {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
            {"name": "GLOO_SOCKET_IFNAME", "value": "eth0"},
            {"name": "VLLM_HOST_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "FI_PROVIDER", "value": "efa"},
            {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"},  # GPUDirect RDMA on p5
        ]
    assert "ports" in leader and "ports" not in worker
    assert leader["startupProbe"]["failureThreshold"] * leader["startupProbe"]["periodSeconds"] >= 2700
    assert "livenessProbe" not in worker
    assert tpl["leaderTemplate"]["metadata"]["labels"]["role"] == "leader"
    assert tpl["leaderTemplate"]["spec"]["volumes"][0] == {
        "name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}
    assert svc["spec"]["selector"] == {"app.kubernetes.io/name": "llama-405b",
                                       "shardwise.dev/serving-group": "llama-405b", "role": "leader"}


def test_leaderworkerset_without_efa_and_with_an_exclusive_topology():
    no_efa = P5_EFA.model_copy(update={"efa": False})
    lws = render_leaderworkerset(multinode(exclusive_topology="topology.k8s.aws/network-node-layer-3"), no_efa)
    c = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 8}, "limits": {"nvidia.com/gpu": 8}}
    assert "FI_PROVIDER" not in [e["name"] for e in c["env"]]
    assert lws["metadata"]["annotations"] == {
        "leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.k8s.aws/network-node-layer-3"}


def test_leaderworkerset_ray_launch():
    lws = render_leaderworkerset(multinode(launcher="ray"), P5_EFA)
    tpl = lws["spec"]["leaderWorkerTemplate"]
    leader = tpl["leaderTemplate"]["spec"]["containers"][0]
    worker = tpl["workerTemplate"]["spec"]["containers"][0]
    assert leader["command"] == worker["command"] == ["/bin/sh", "-c"]
    (script,) = leader["args"]
    assert script.startswith('ray start --head --port=6379 --node-ip-address="$VLLM_HOST_IP" && ')
    assert "-ge 16 ]" in script  # waits for all TP x PP GPUs to join
    assert script.endswith(
        "exec vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2 --max-model-len 32768 --max-num-seqs 32 --host 0.0.0.0 "
        "--distributed-executor-backend ray")
    assert worker["args"] == [
        'ray start --address="$LWS_LEADER_ADDRESS:6379" --node-ip-address="$VLLM_HOST_IP" --block']


# --- NetworkPolicies and routers --------------------------------------------------------------


def test_network_policies():
    net = NetworkSpec(cidr="10.42.0.0/16")
    router = RouterSpec(name="llm", namespace="serving", services=("llama-70b",))
    pols = render_network_policies(net, [service()], [multinode()], [router])
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pols] == [
        ("serving", "default-deny"), ("serving", "allow-dns"), ("serving", "allow-https-egress"),
        ("serving", "llama-70b-intra-group"), ("serving", "llama-70b-api"),
        ("serving", "llama-405b-intra-group"), ("serving", "llama-405b-api"),
    ]
    by_name = {p["metadata"]["name"]: p["spec"] for p in pols}
    assert by_name["default-deny"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    assert by_name["allow-dns"]["egress"] == [{
        "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
    }]
    group = {"podSelector": {"matchLabels": {"shardwise.dev/serving-group": "llama-405b"}}}
    assert by_name["llama-405b-intra-group"] == {
        "podSelector": {"matchLabels": {"shardwise.dev/serving-group": "llama-405b"}},
        "policyTypes": ["Ingress", "Egress"], "ingress": [{"from": [group]}], "egress": [{"to": [group]}]}
    gateway = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}
    monitoring = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    assert by_name["llama-70b-api"]["ingress"] == [{
        "from": [gateway, monitoring, {"ipBlock": {"cidr": "10.42.0.0/16"}}],
        "ports": [{"protocol": "TCP", "port": 8000}]}]
    assert by_name["llama-405b-api"]["ingress"] == [{"from": [gateway, monitoring],
                                                     "ports": [{"protocol": "TCP", "port": 8000}]}]


def test_alb_router():
    (ing,) = render_router(RouterSpec(name="llm", namespace="serving", services=("llama-70b",)),
                                  [service()])
    assert ing["metadata"]["annotations"] == {
        "alb.ingress.kubernetes.io/scheme": "internal",
        "alb.ingress.kubernetes.io/target-type": "ip",
        # in-flight requests of a pod that leaves finish during its drain (drain_seconds)
        "alb.ingress.kubernetes.io/target-group-attributes":
            "load_balancing.algorithm.type=least_outstanding_requests,deregistration_delay.timeout_seconds=30",
        "alb.ingress.kubernetes.io/healthcheck-path": "/health",
        "alb.ingress.kubernetes.io/backend-protocol": "HTTP",
        "alb.ingress.kubernetes.io/load-balancer-attributes": "idle_timeout.timeout_seconds=600",
    }
    backend = {"service": {"name": "llama-70b", "port": {"number": 8000}}}
    assert ing["spec"] == {"ingressClassName": "alb", "defaultBackend": backend, "rules": [
        {"http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}}]}
    two = RouterSpec(name="llm", namespace="serving", services=("llama-70b", "llama-405b"), domain="llm.example.com")
    (ing2,) = render_router(two, [service(), multinode()])
    assert [r["host"] for r in ing2["spec"]["rules"]] == ["llama-70b.llm.example.com", "llama-405b.llm.example.com"]
    assert "defaultBackend" not in ing2["spec"]


def test_gateway_api_router_grants_cross_namespace_access():
    r = RouterSpec(name="llm", kind="gateway-api", services=("llama-70b",))
    route, grant = render_router(r, [service()])
    assert route["kind"] == "HTTPRoute" and route["metadata"]["namespace"] == "gateway"
    assert route["spec"]["parentRefs"] == [{"name": "inference-gateway", "namespace": "gateway"}]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "llama-70b", "namespace": "serving", "port": 8000}]
    assert grant["kind"] == "ReferenceGrant" and grant["metadata"]["namespace"] == "serving"
    assert grant["spec"]["from"] == [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                                      "namespace": "gateway"}]


# --- node pools and AWS plans -----------------------------------------------------------------


def test_node_labels_and_taints():
    assert node_labels(P5_EFA) == {
        "shardwise.dev/pool": "h100-efa",
        "shardwise.dev/gpu-product": "H100-SXM-80GB",
        "shardwise.dev/gpu-count": "8",
        "shardwise.dev/gpu-memory-gib": "79.19",
        "shardwise.dev/nvlink": "nvswitch",
        "shardwise.dev/nvlink-domain-size": "8",
        "shardwise.dev/efa": "true",
    }
    l40s = NodePoolSpec(name="l40s", instance_type="g6e.12xlarge")
    labels = node_labels(l40s)
    assert (labels["shardwise.dev/nvlink"], labels["shardwise.dev/nvlink-domain-size"],
            labels["shardwise.dev/efa"], labels["shardwise.dev/gpu-count"]) == ("pcie", "1", "false", "4")
    assert node_taints() == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert eks_taints() == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]


@pytest.mark.parametrize("instance_type,cards", [("p5.48xlarge", 32), ("p5e.48xlarge", 32), ("p5en.48xlarge", 16)])
def test_efa_layout_of_the_p5_family_follows_the_ec2_guide(instance_type, cards):
    # efa-acc-inst-types.html: ENA primary at card 0 device 0, EFA-only at card 0 device 1, EFA-only at
    # device 0 of every other card; (device index, network card index, type)
    plan = launch_template_plan(NodePoolSpec(name="gpu", instance_type=instance_type, multi_node=True))
    assert plan.network_interfaces == ((0, 0, "interface"), (1, 0, "efa-only"),
                                       *((0, card, "efa-only") for card in range(1, cards)))
    # every EFA device the node offers is one the pods may request
    assert efa_interface_count(NodePoolSpec(name="gpu", instance_type=instance_type, multi_node=True)) == cards


def test_launch_template_plans():
    efa = launch_template_plan(P5_EFA)
    assert (efa.http_tokens, efa.http_put_response_hop_limit, efa.placement_group) == ("required", 1, True)
    # (device index, network card index, type): the EC2 user guide's current multi-card EFA layout
    assert efa.network_interfaces[:3] == ((0, 0, "interface"), (1, 0, "efa-only"), (0, 1, "efa-only"))
    assert efa.network_interfaces[2:] == tuple((0, card, "efa-only") for card in range(1, 32))
    assert efa_interfaces(1) == ((0, 0, "interface"), (1, 0, "efa-only"))  # p5.4xlarge: one card
    assert efa_interfaces(0) == ((0, 0, "interface"),)
    assert (efa.volume_throughput_mib_s, efa.volume_iops, efa.user_data) == (125, 3000, None)
    assert (efa.market_type, efa.instance_type) == (None, None)
    single = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge"))
    assert single.network_interfaces == ((0, 0, "interface"),)
    assert (single.http_tokens, single.http_put_response_hop_limit, single.placement_group) == ("required", 1, False)
    # Capacity Blocks: EKS requires the market type, the reservation and the instance type in the template
    block = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge",
                                                     capacity_type="capacity-block",
                                                     capacity_reservation_id="cr-0123456789abcdef0"))
    assert (block.market_type, block.instance_type) == ("capacity-block", "p5.48xlarge")
    # a faster root volume (gp3: 0.25 MiB/s per IOPS) and the instance store as RAID-0
    fast = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge", instance_store="raid0",
                                                    disk_throughput_mib_s=1000))
    assert (fast.volume_throughput_mib_s, fast.volume_iops) == (1000, 4000)
    assert fast.user_data is not None and "kind: NodeConfig" in fast.user_data
    assert "    localStorage:\n      strategy: RAID0\n" in fast.user_data


def test_security_group_rules_open_no_runtime_port_to_the_world():
    rules = gpu_node_sg_rules()
    assert [(r.direction, r.protocol, r.self_ref, r.cidr) for r in rules] == [
        ("ingress", "-1", True, None), ("egress", "-1", True, None), ("egress", "tcp", False, "0.0.0.0/0")]
    assert [(r.from_port, r.to_port) for r in rules if r.cidr] == [(443, 443)]
    assert all(r.direction == "egress" for r in rules if r.cidr)


def test_subnet_plan_is_private_and_inside_the_vpc():
    net = NetworkSpec(cidr="10.42.0.0/16", availability_zones=("us-east-1a", "us-east-1b", "us-east-1c"))
    plans = subnet_plan(net, "prod")
    vpc = ipaddress.ip_network(net.cidr)
    nets = [ipaddress.ip_network(p.cidr) for p in plans]
    assert all(n.subnet_of(vpc) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1:])
    assert [p.name for p in plans] == ["prod-private-us-east-1a", "prod-private-us-east-1b",
                                       "prod-private-us-east-1c", "prod-nat-us-east-1a"]
    assert [p.map_public_ip_on_launch for p in plans] == [False] * 4
    assert subnet_plan(NetworkSpec(vpc_id="vpc-1", private_subnet_ids=("subnet-1",)), "x") == []


def test_karpenter_objects():
    pool = NodePoolSpec(name="l40s", instance_type="g6e.xlarge", provisioner="karpenter", capacity_type="spot",
                        max_size=3)
    nodeclass, nodepool = render_karpenter(pool, "gpu-node", ["subnet-a"], ["sg-1"])
    assert nodeclass["spec"]["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                                    "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    assert nodeclass["spec"]["role"] == "gpu-node"
    assert nodeclass["spec"]["associatePublicIPAddress"] is False
    tpl = nodepool["spec"]["template"]
    assert tpl["metadata"]["labels"] == node_labels(pool)
    assert tpl["spec"]["taints"] == node_taints()
    assert tpl["spec"]["requirements"] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.xlarge"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
    ]
    assert nodepool["spec"]["limits"] == {"nvidia.com/gpu": "3"}
    assert "capacityReservationSelectorTerms" not in nodeclass["spec"]
    assert node_role_name("arn:aws:iam::123456789012:role/path/gpu-node") == "gpu-node"


def test_karpenter_capacity_block_selects_its_reservation():
    pool = NodePoolSpec(name="h100", instance_type="p5.48xlarge", provisioner="karpenter",
                        capacity_type="capacity-block", capacity_reservation_id="cr-0123456789abcdef0")
    nodeclass, nodepool = render_karpenter(pool, "gpu-node", ["subnet-a"], ["sg-1"])
    assert nodeclass["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert nodepool["spec"]["template"]["spec"]["requirements"][1] == {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}


# --- schema validation ------------------------------------------------------------------------

CRD_KINDS = {"LeaderWorkerSet", "ScaledObject", "NodePool", "EC2NodeClass", "HTTPRoute", "ReferenceGrant",
             "PodMonitor", "ServiceMonitor"}


def _validate(obj: dict) -> bool:
    """Validate one object strictly; False when it is a custom resource without a shipped schema."""
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except SchemaNotFoundError:
        assert obj["kind"] in CRD_KINDS
        return False
    return True


def _pods_of_lws(lws: dict) -> list[dict]:
    tpl = lws["spec"]["leaderWorkerTemplate"]
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{lws['metadata']['name']}-{role}",
                                                             **tpl[key]["metadata"]},
             "spec": tpl[key]["spec"]}
            for role, key in (("leader", "leaderTemplate"), ("worker", "workerTemplate"))]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_stack_objects_validate_against_kubernetes_schemas(env):
    spec, _ = load_stack_spec(str(ROOT / "stacks" / f"Pulumi.{env}.yaml"))
    skipped = set()
    for _, obj in render_environment_objects(spec):
        if not _validate(obj):
            skipped.add(obj["kind"])
        if obj["kind"] == "LeaderWorkerSet":
            for pod in _pods_of_lws(obj):
                assert _validate(pod)
    assert skipped == {"dev": {"NodePool", "EC2NodeClass", "ScaledObject", "PodMonitor"},
                       "staging": {"ScaledObject", "PodMonitor"},
                       "prod": {"ScaledObject", "LeaderWorkerSet", "PodMonitor"}}[env]


def test_variants_validate_against_kubernetes_schemas():
    objs = [
        render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa"))),
        render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa", metric="cpu", threshold=80))),
        render_deployment(service(hf_token_secret=None, autoscaling=None)),
        *render_router(RouterSpec(name="r", namespace="serving", services=("a", "b"), domain="x.example"),
                              [service(name="a"), service(name="b")]),
        *_pods_of_lws(render_leaderworkerset(multinode(launcher="ray"), P5_EFA)),
        *render_vllm_service(service(name="c", cache={"kind": "pvc", "storage_class": "fsx",
                                                              "throughput_mib_s": 1000}, pod=ESCAPES))[:2],
        render_deployment(service(cache={"kind": "s3", "s3_uri": "s3://models/llama-70b",
                                                "throughput_mib_s": 3000})),
        render_namespace("serving", alb_readiness_gates=True),
    ]
    assert all(_validate(o) for o in objs)


def test_a_broken_object_fails_validation():
    dep = render_deployment(service())
    dep["spec"]["template"]["spec"]["containers"][0]["startupprobe"] = {}  # misspelt field
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dep, K8S_VERSION, strict=True)


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
