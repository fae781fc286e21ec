"""readers16: vLLM production-stack's operator (``production-stack.vllm.ai/v1alpha1`` VLLMRuntime and VLLMRouter)
read as the Deployments its controllers create at vllm-stack-0.1.12 (rules/adapters/k8s/psoperator.py)."""

from __future__ import annotations

import os

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text
from shardwise.rules.adapters.k8s.psoperator import router_deployment, runtime_deployment
from shardwise.rules.adapters.yamlsrc import load_documents
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import Inventory, Location
from shardwise.rules.model.errors import InputError

FIX = os.path.join(FIXTURES, "k8s", "psoperator")
RUNTIME = os.path.join(FIX, "production-stack_v1alpha1_vllmruntime.yaml")
ROUTER = os.path.join(FIX, "production-stack_v1alpha1_vllmrouter.yaml")
AUTOSCALED = os.path.join(FIX, "production-stack_v1alpha1_vllmruntime_autoscaling.yaml")


def sw406(inv: Inventory) -> list[tuple[str, str, int | None, str]]:
    return [(f.subject, f.message, f.location.line, f.level) for f in run_rules(ALL_RULES, inv) if f.code == "SW406"]


def _first(text: str) -> dict:
    return load_documents(text, "f.yaml")[0][1]


def test_vllm_runtime_sample_is_the_deployment_the_controller_creates():
    """The operator's own sample (vendored verbatim): ``deploymentForVLLMRuntime`` runs ``/opt/venv/bin/vllm serve
    <modelURL>`` with the flags in the controller's order, the GPU request as request and limit, 2 replicas, the
    runtime class ``nvidia`` by default, pods labelled ``app: <name>`` and the object's labels."""
    with open(RUNTIME, encoding="utf-8") as fh:
        obj = load_documents(fh.read(), RUNTIME)[0][1]
    dep = runtime_deployment(obj, Location(RUNTIME, 1))
    c = dep["spec"]["template"]["spec"]["containers"][0]
    assert (c["image"], c["command"]) == ("docker.io/lmcache/vllm-openai:2025-05-27-v1", ["/opt/venv/bin/vllm", "serve"])
    assert c["args"] == [
        "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0", "--port", "8000", "--enable-lora",
        "--no-enable-chunked-prefill", "--no-enable-prefix-caching", "--max-model-len", "4096", "--dtype", "bfloat16",
        "--tensor-parallel-size", "1", "--max-num-seqs", "32", "--gpu_memory_utilization", "0.8", "--max_loras", "4",
        "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    assert [(e["name"], e["value"]) for e in c["env"]] == [
        ("VLLM_USE_V1", "1"), ("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True"), ("HF_HOME", "/data")]
    assert c["resources"] == {"requests": {"cpu": "5", "memory": "32Gi", "nvidia.com/gpu": "1"},
                              "limits": {"cpu": "5", "memory": "32Gi", "nvidia.com/gpu": "1"}}
    assert c["startupProbe"]["initialDelaySeconds"] == 120 and c["startupProbe"]["failureThreshold"] == 100
    assert dep["spec"]["template"]["spec"]["runtimeClassName"] == "nvidia"
    inv = load_kubernetes_file(RUNTIME)
    [g] = inv.groups
    assert (g.kind, g.namespace, g.name, g.engine.model, g.engine.tensor_parallel_size, g.engine.max_model_len,
            g.gpus_per_pod, g.accelerator_resource, g.replicas) == (
        "VLLMRuntime", "default", "vllmruntime-sample", "meta-llama/Llama-3.1-8B-Instruct", 1, 4096, 1,
        "nvidia.com/gpu", 2)
    assert g.pod_labels == {"app": "vllmruntime-sample", "app.kubernetes.io/name": "production-stack",
                            "app.kubernetes.io/managed-by": "kustomize", "model": "Llama-3.1-8B-Instruct"}
    assert g.containers[0].location.line == 11  # spec.model


def test_vllm_router_sample_judged_by_sw406_over_the_runtime_it_selects():
    """The router sample selects ``app=vllmruntime-sample``, the runtime sample's pods (2 replicas), with
    ``roundrobin``: SW406 as for the chart's router, at ``routingLogic``'s line. Alone it finds no engine: no
    finding, as for any router whose selector matches no engine of the inputs."""
    alone = load_kubernetes_file(ROUTER)
    [r] = alone.routers
    assert (r.kind, r.name, r.namespace, r.logic, r.discovery, r.watch_namespace, r.selector, r.location.line) == (
        "VLLMRouter", "vllmrouter-sample", "default", "roundrobin", "k8s", "default", {"app": "vllmruntime-sample"},
        22)
    assert sw406(alone) == []
    with open(RUNTIME, encoding="utf-8") as a, open(ROUTER, encoding="utf-8") as b:
        inv = load_kubernetes_text(a.read() + "---\n" + b.read(), ROUTER)
    assert sw406(inv) == [("VLLMRouter default/vllmrouter-sample", "vllm-router balances VLLMRuntime "
                           "default/vllmruntime-sample with --routing-logic roundrobin, which ignores each replica's "
                           "load", 88 + 1 + 22, "advisory")]


_ROUTER = """\
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRouter
metadata:
  name: r
  namespace: ai
spec:
  k8sLabelSelector: "app=rt"
  image: {registry: docker.io, name: lmcache/lmstack-router:latest}
  resources: {cpu: "1"}
---
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata:
  name: rt
  namespace: ai
spec:
  model: {modelURL: Qwen/Qwen2.5-7B-Instruct}
  vllmConfig: {tensorParallelSize: 2}
  deploymentConfig:
    replicas: 3
    resources: {gpu: "2"}
    image: {registry: docker.io, name: lmcache/vllm-openai:latest}
"""


def test_vllm_router_defaults_and_other_logics():
    """The CRD's defaults (``serviceDiscovery: k8s``, ``routingLogic: roundrobin``, port 80, 1 replica) written by the
    API server; session/prefixaware/kvaware pass; ``extraArgs`` come last and win (argparse keeps the last);
    static discovery balances the backends of one model."""
    obj = _first(_ROUTER)
    assert router_deployment(obj, Location("f.yaml", 1))["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--host", "0.0.0.0", "--port", "80", "--service-discovery", "k8s", "--k8s-namespace", "ai",
        "--k8s-label-selector", "app=rt", "--routing-logic", "roundrobin"]
    inv = load_kubernetes_text(_ROUTER, "f.yaml")
    assert sw406(inv) == [("VLLMRouter ai/r", "vllm-router balances VLLMRuntime ai/rt with --routing-logic "
                           "roundrobin, which ignores each replica's load", 1, "advisory")]
    for logic in ("session", "prefixaware", "kvaware"):
        text = _ROUTER.replace('k8sLabelSelector: "app=rt"', f'k8sLabelSelector: "app=rt"\n  routingLogic: {logic}')
        assert sw406(load_kubernetes_text(text, "f.yaml")) == []
    text = _ROUTER.replace('k8sLabelSelector: "app=rt"',
                           'k8sLabelSelector: "app=rt"\n  routingLogic: session\n  extraArgs: [--routing-logic, '
                           'roundrobin]')
    assert [m for _, m, *_ in sw406(load_kubernetes_text(text, "f.yaml"))] == [
        "vllm-router balances VLLMRuntime ai/rt with --routing-logic roundrobin, which ignores each replica's load"]
    text = _ROUTER.replace('k8sLabelSelector: "app=rt"',
                           "serviceDiscovery: static\n  staticBackends: http://a:8000,http://b:8000\n"
                           "  staticModels: m,m")
    assert [m for _, m, *_ in sw406(load_kubernetes_text(text, "f.yaml"))] == [
        "vllm-router balances 2 static backends (http://a:8000, http://b:8000) with --routing-logic roundrobin, "
        "which ignores each engine's load"]
    # an image of another name (a mirror): the VLLMRouter is the router whatever its image
    text = _ROUTER.replace("name: lmcache/lmstack-router:latest", "name: acme/router:1.0")
    assert [(r.name, r.logic) for r in load_kubernetes_text(text, "f.yaml").routers] == [("r", "roundrobin")]
    g = load_kubernetes_text(_ROUTER, "f.yaml").groups[0]
    assert (g.engine.tensor_parallel_size, g.gpus_per_pod, g.replicas) == (2, 2, 3)


def test_vllm_runtime_autoscaled_is_read_with_the_operator_s_scaled_object():
    """``autoscalingConfig.enabled``: the controller creates the KEDA ScaledObject ``<name>-scaledobject``
    (``reconcileScaledObject``, vllm-stack-0.1.12) that scales the VLLMRuntime's scale subresource
    (``.spec.deploymentConfig.replicas``) between minReplicas (default 1) and maxReplicas, scale-down window 300 s by
    default, on four vLLM metrics; it is read as any ScaledObject of the inputs, and the runtime's replicas are the
    count written (readers17; readers16 left them unknown and rendered no ScaledObject). The operator's own samples."""
    inv = load_kubernetes_file(AUTOSCALED)
    assert [(g.name, g.replicas, g.engine.max_model_len) for g in inv.groups] == [
        ("vllmruntime-autoscaling-minimal", 1, None),
        ("vllmruntime-autoscaling-scale-to-zero", 1, None),
        ("vllmruntime-autoscaling-sample", 1, 4096)]
    metrics = ["vllm:num_incoming_requests_total", "vllm:num_requests_running", "vllm:generation_tokens_total",
               "vllm:prompt_tokens_total"]
    assert [(a.name, a.kind, a.target_kind, a.target_name, a.min_replicas, a.max_replicas,
             a.scale_down_window_seconds, a.metrics, a.location.line) for a in inv.autoscalers] == [
        ("vllmruntime-autoscaling-minimal-scaledobject", "ScaledObject", "VLLMRuntime",
         "vllmruntime-autoscaling-minimal", 1, 2, 300, metrics, 25),
        ("vllmruntime-autoscaling-scale-to-zero-scaledobject", "ScaledObject", "VLLMRuntime",
         "vllmruntime-autoscaling-scale-to-zero", 0, 2, 300, metrics, 54),
        ("vllmruntime-autoscaling-sample-scaledobject", "ScaledObject", "VLLMRuntime",
         "vllmruntime-autoscaling-sample", 1, 4, 300, metrics, 104)]


def test_vllm_runtime_autoscaled_in_production_keeps_the_scaled_object_s_minimum():
    """SW404 judges an autoscaled runtime by its ScaledObject's minimum, as any KEDA target: minReplicas 1 is one warm
    replica in production, though the runtime writes 2 (before, the replicas were not known and it could
    not decide); a runtime without autoscaling keeps
    its count. A runtime whose autoscaling names no maxReplicas is refused by the CRD: an input error at its line."""
    text = _AUTOSCALED_PROD
    inv = load_kubernetes_text(text, "f.yaml")
    found = [(f.subject, f.level, f.message) for f in run_rules(ALL_RULES, inv, LintConfig(production=True))
             if f.code == "SW404"]
    assert found == [("VLLMRuntime llm/qwen", "advisory", "1 warm replica in production (ScaledObject "
                      "`qwen-scaledobject` keeps a minimum of 1), where at least 2 are required; production: the "
                      "run's `production` setting")]
    with pytest.raises(InputError) as e:
        load_kubernetes_text(text.replace("    maxReplicas: 4\n", ""), "f.yaml")
    assert (e.value.message, e.value.line) == (
        "spec.autoscalingConfig.maxReplicas: required when autoscaling is enabled (the VLLMRuntime CRD's validation)",
        18)


_AUTOSCALED_PROD = """\
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata:
  name: qwen
  namespace: llm
spec:
  model: {modelURL: Qwen/Qwen2.5-7B-Instruct, maxModelLen: 8192}
  vllmConfig: {tensorParallelSize: 1, port: 8000}
  deploymentConfig:
    replicas: 2
    resources: {gpu: "1"}
    image: {registry: docker.io, name: "vllm/vllm-openai:v0.11.0"}
    nodeSelectorTerms:
      - matchExpressions:
          - key: nvidia.com/gpu.product
            operator: In
            values: [NVIDIA-L4]
  autoscalingConfig:
    enabled: true
    maxReplicas: 4
"""


def test_vllm_runtime_values_the_api_server_refuses_are_input_errors():
    """The CRD types ``resources.gpu`` as a string and ``replicas`` as an integer: a number or a quoted number
    the other way round is refused, an input error at its line, never read."""
    text = _ROUTER.replace('resources: {gpu: "2"}', "resources: {gpu: 2}")
    with pytest.raises(InputError) as e:
        load_kubernetes_text(text, "f.yaml")
    assert (e.value.message, e.value.line) == (
        "spec.deploymentConfig.resources.gpu: expected a string, found int (2); the CRD types it as a string, so "
        "Kubernetes refuses the object as written", 21)


def test_vllm_runtime_shm_size_mounts_dev_shm_as_the_operator_on_main_does():
    """vllm-stack-0.1.12's controller mounts nothing at /dev/shm, so a runtime of tensor 2 gets SW401 (blocking, as
    for any pod); the operator on main since 217fadb (#994) mounts an emptyDir of medium Memory there when
    ``deploymentConfig.shmSize`` is written, and SW401 then passes."""
    def sw401(text: str) -> list[tuple[str, str]]:
        return [(f.level, f.message) for f in run_rules(ALL_RULES, load_kubernetes_text(text, "f.yaml"))
                if f.code == "SW401"]

    assert sw401(_ROUTER) == [("mandatory", "container `vllm` runs tensor_parallel_size 2 but mounts nothing at "
                                            "/dev/shm (the container runtime's default is 64 MiB); mount an emptyDir "
                                            "with medium: Memory there")]
    text = _ROUTER.replace("    replicas: 3\n", "    replicas: 3\n    shmSize: 16Gi\n")
    assert text != _ROUTER
    dep = runtime_deployment(load_documents(text, "f.yaml")[1][1], Location("f.yaml", 11))
    assert dep["spec"]["template"]["spec"]["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory",
                                                                                          "sizeLimit": "16Gi"}}]
    assert sw401(text) == []
