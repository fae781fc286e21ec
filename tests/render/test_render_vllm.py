"""rules/render/vllm.py: the Deployment, Service, PodDisruptionBudget and autoscaler of a VllmService, exactly,
and the model cache it mounts (a restart finds the weights; the startup probe allows their load).
"""

from __future__ import annotations

import math

import pytest
from render_support import service
from shardwise.rules.capacity import cache
from shardwise.rules.model.spec import AutoscalingSpec, EngineArgsSpec, NodePoolSpec, SuppressionSpec
from shardwise.rules.render.vllm import render_autoscaler, render_deployment, render_vllm_service
from shardwise.rules.render.workload import object_meta


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
    # the rollout is not "ProgressDeadlineExceeded" while one replacement starts: its 131.42 GiB download at
    # 100 MiB/s (1,346 s), the 2,454 s budget and 600 s for a node and the image (Kubernetes' default is 600 s)
    assert dep["spec"]["progressDeadlineSeconds"] == 1346 + 2454 + 600
    assert dep["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "llama-70b",
                                                       "shardwise.dev/serving-group": "llama-70b"}}


def test_a_data_parallel_replica_requests_every_engines_gpus():
    """``--data-parallel-size 8 --enable-expert-parallel`` (vLLM's DeepSeek-R1 recipe on one 8-GPU node) starts
    TP × PP × DP = 8 workers in the pod: it requests 8 GPUs, not TP × PP = 1 (SW204 would block it)."""
    spec = service(name="deepseek-r1", engine=EngineArgsSpec(
        model="deepseek-ai/DeepSeek-R1", tensor_parallel_size=1, data_parallel_size=8, enable_expert_parallel=True,
        max_model_len=16384))
    (c,) = render_deployment(spec)["spec"]["template"]["spec"]["containers"]
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 8}, "limits": {"nvidia.com/gpu": 8}}
    assert c["args"][:6] == ["deepseek-ai/DeepSeek-R1", "--data-parallel-size", "8", "--enable-expert-parallel",
                             "--max-model-len", "16384"]


def test_no_hf_token_secret_means_no_token_env():
    dep = render_deployment(service(hf_token_secret=None))
    pod = dep["spec"]["template"]["spec"]
    assert [e["name"] for e in pod["containers"][0]["env"]] == ["HF_HOME", "HF_HUB_OFFLINE"]
    assert [e["name"] for e in pod["initContainers"][0]["env"]] == ["HF_HOME"]


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


def test_drain_before_sigterm():
    (c,) = render_deployment(service(drain_seconds=120))["spec"]["template"]["spec"]["containers"]
    hook = c["lifecycle"]["preStop"]["exec"]["command"]
    assert hook[:2] == ["python3", "-c"] and hook[3:] == ["8000", "120"]
    assert 'line.startswith(("vllm:num_requests_running", "vllm:num_requests_waiting"))' in hook[2]
    dep = render_deployment(service(drain_seconds=120))
    assert dep["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 150


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
