"""rules/render/pod.py: the pod escape hatches, merged into the pod, and refused where the rules or shardwise own
the field.
"""

from __future__ import annotations

from render_support import ESCAPES, service
from shardwise.rules.model.spec import EngineArgsSpec
from shardwise.rules.render.pod import extra_args_problems, pod_problems
from shardwise.rules.render.vllm import render_vllm_service
from shardwise.rules.render.workload import group_labels


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
    assert c["env"][-2:] == [{"name": "WANDB_API_KEY", "valueFrom": {"secretKeyRef": {"name": "wandb", "key": "key"}}},
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



def test_prefill_context_parallelism_is_a_typed_field_and_the_pod_requests_its_ranks():
    """engine22: -pcp multiplies vLLM's world size (TP × PP × PCP); in extra_args it is refused as the typed field's
    (planpcp1: engine.prefill_context_parallel_size, which the pod's GPU request counts); DCP adds none."""
    engine = EngineArgsSpec(model="m", extra_args=("-pcp", "2", "--decode-context-parallel-size", "2"))
    assert extra_args_problems(engine) == [
        ("engine.extra_args", "--prefill-context-parallel-size is read by the rules: set "
                              "engine.prefill_context_parallel_size"),
    ]
    spec = service(engine={"model": "m", "tensor_parallel_size": 2, "prefill_context_parallel_size": 2})
    assert spec.engine.to_args() == ["m", "--tensor-parallel-size", "2", "--prefill-context-parallel-size", "2"]
    dep = next(o for o in render_vllm_service(spec) if o["kind"] == "Deployment")
    (container,) = dep["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 4


def test_a_non_root_pod_meets_the_restricted_level_with_its_caches_under_home():
    spec = service(cache={"kind": "pvc", "storage_class": "gp3"}, run_as_non_root=True)
    dep = next(o for o in render_vllm_service(spec) if o["kind"] == "Deployment")
    pod = dep["spec"]["template"]["spec"]
    assert pod["securityContext"] == {"runAsNonRoot": True, "runAsUser": 2000, "runAsGroup": 0, "fsGroup": 2000,
                                      "seccompProfile": {"type": "RuntimeDefault"}}
    assert pod["volumes"][-1] == {"name": "home", "emptyDir": {}}
    (init,) = pod["initContainers"]
    (c,) = pod["containers"]
    for container in (init, c):
        assert container["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
        env = {e["name"]: e.get("value") for e in container["env"]}
        # /root is closed to UID 2000: HOME and the Hugging Face cache live under /home/vllm
        assert (env["HOME"], env["USER"], env["HF_HOME"]) == ("/home/vllm", "vllm", "/home/vllm/.cache/huggingface")
        assert [(m["name"], m["mountPath"]) for m in container["volumeMounts"] if m["name"] in ("home", "model-cache")] \
            == [("home", "/home/vllm"), ("model-cache", "/home/vllm/.cache/huggingface")]
    # a root pod is as before: no securityContext, the cache under /root
    root = next(o for o in render_vllm_service(service(cache={"kind": "pvc", "storage_class": "gp3"}))
                if o["kind"] == "Deployment")["spec"]["template"]["spec"]
    assert "securityContext" not in root and "securityContext" not in root["containers"][0]
    assert {"name": "model-cache", "mountPath": "/root/.cache/huggingface"} in root["containers"][0]["volumeMounts"]


def test_non_root_refuses_the_root_owned_node_nvme_cache():
    spec = service(cache={"kind": "node-nvme"}, run_as_non_root=True)
    assert pod_problems(spec) == [("run_as_non_root", (
        "a node-nvme cache is a hostPath directory the kubelet creates owned by root: UID 2000 could not write the "
        "download there; use a pvc or s3 cache, or run as root"))]
