"""Serving operators' resources that start vLLM, read through the real Kubernetes adapter: KServe
(InferenceService, ServingRuntime, LLMInferenceService), KubeAI Model, KubeRay (RayCluster, RayService
with Ray Serve LLM), NVIDIA Dynamo, AIBrix (StormService, RayClusterFleet), llm-d ModelService and Knative
Serving (Service, Configuration, Revision).

The fixtures under fixtures/k8s/serving/ are written in the shapes each project documents; each test
asserts every serving group exactly: what it is, the engine settings, the GPUs, the pool, and the line
of each field a finding points at.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, Inventory, Location
from shardwise.rules.model.errors import InputError

FIX = os.path.join(FIXTURES, "k8s", "serving")


def load(name: str) -> Inventory:
    return load_kubernetes_file(os.path.join(FIX, name))


def show(v):
    return "UNKNOWN" if v is UNKNOWN else v


def groups(inv: Inventory) -> list[tuple]:
    """(kind, namespace, name, line, model, TP, PP, DP, max_model_len, GPUs per pod, resource, replicas,
    pods per group, (pool, its GPU))"""
    out = []
    for g in inv.groups:
        e, p = g.engine, g.pool
        out.append((g.kind, g.namespace, g.name, g.location.line, e.model, e.tensor_parallel_size,
                    e.pipeline_parallel_size, e.data_parallel_size, e.max_model_len, show(g.gpus_per_pod),
                    g.accelerator_resource, show(g.replicas), show(g.pods_per_group),
                    (p.name, p.gpu.name if p.gpu else None) if p else None))
    return out


def lines(inv: Inventory) -> list[tuple[dict, dict]]:
    """Per group: the line of each engine flag, and of each other field a finding may point at."""
    return [({k: v.line for k, v in g.engine.locations.items()},
             {k: v.line for k, v in g.locations.items() if k not in ("container", "podSpec")}) for g in inv.groups]


# --- KServe -------------------------------------------------------------------------------------------


def test_kserve_inference_services():
    inv = load("kserve-huggingface.yaml")
    assert groups(inv) == [
        # Hugging Face runtime: --model_id names the model, vLLM flags pass through, GKE accelerator label
        ("InferenceService", "models", "llama-8b", 2, "meta-llama/Llama-3.1-8B-Instruct", 2, 1, 1, 8192, 2,
         "nvidia.com/gpu", 2, 1, ("gke-accelerator=nvidia-l4", "L4")),
        # the model from storageUri hf://...; underscore flag spelling
        ("InferenceService", "models", "qwen-7b", 30, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, 16384, 1,
         "nvidia.com/gpu", 1, 1, None),
        # (bert-classifier: --backend=huggingface is not vLLM, no group)
        # the ServingRuntime of the file: its command and args, the model's args appended
        ("InferenceService", "models", "mistral-7b", 69, "mistralai/Mistral-7B-Instruct-v0.3", 1, 1, 1, 16384, 1,
         "nvidia.com/gpu", 1, 1, None),
        # a custom predictor container
        ("InferenceService", "models", "llama-70b-custom", 85, "meta-llama/Llama-3.1-70B-Instruct", 8, 1, 1, None,
         8, "nvidia.com/gpu", 1, 1, ("instance-type=p4d.24xlarge", "A100-40GB")),
        # multi-node: workerSpec's tensorParallelSize and pipelineParallelSize, one pod per stage
        ("InferenceService", "models", "llama-405b", 106, "meta-llama/Llama-3.1-405B-Instruct", 8, 2, 1, 32768, 8,
         "nvidia.com/gpu", 1, 2, None),
    ]
    # no labels and no annotations: KServe's default mode (Serverless) publishes each; SW306 points at the object
    assert lines(inv) == [
        ({"model": 20, "max_model_len": 21, "tensor_parallel_size": 22},
         {"resources": 26, "env": 23, "nodeSelector": 11, "tolerations": 13, "published": 2}),
        ({"model": 39, "max_model_len": 40}, {"resources": 41, "published": 30}),
        # the runtime's own args and image (the ServingRuntime of the same file) at the runtime's lines, the
        # InferenceService's at its own
        ({"port": 67, "model": 80, "served_model_name": 67, "max_model_len": 81, "gpu_memory_utilization": 81},
         {"resources": 82, "image": 65, "published": 69}),
        ({"model": 98, "tensor_parallel_size": 99, "port": 101}, {"resources": 103, "image": 96, "nodeSelector": 92,
                                                                 "published": 85}),
        ({"model": 115, "max_model_len": 116, "tensor_parallel_size": 120, "pipeline_parallel_size": 121},
         {"resources": 117, "published": 106}),
    ]
    assert (inv.groups[2].engine.port, inv.groups[2].engine.gpu_memory_utilization) == (8080, 0.92)
    # the vLLM container's own line (a finding about the container as a whole points there)
    assert [g.at("container").line for g in inv.groups] == [15, 37, 77, 95, 113]
    assert (dict(inv.skipped), inv.launch_issues) == ({}, [])


def test_kserve_runtime_alone_deploys_nothing_and_is_not_silent():
    """A runtime whose container gives no launch (its services give the args) is no workload by itself;
    it mentions vLLM, so SW005 says why it was not read, at its image."""
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1alpha1\nkind: ClusterServingRuntime\nmetadata: {name: vllm}\n"
        "spec:\n  containers:\n    - name: kserve-container\n      image: vllm/vllm-openai:v0.10.1\n", "rt.yaml")
    assert (inv.groups, dict(inv.skipped)) == ([], {})
    assert [(i.subject, i.reason, i.location.line, i.mentioned) for i in inv.launch_issues] == [
        ("ClusterServingRuntime default/vllm", "it mentions vLLM (the vLLM image vllm/vllm-openai:v0.10.1) but it is "
         "a template its services merge, and none in the inputs uses it: lint it together with the services that "
         "run on it", 7, True)]


def test_kserve_vllm_format_on_a_runtime_outside_the_file_reads_the_model_args():
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: x}\n"
        "spec:\n  predictor:\n    model:\n      modelFormat: {name: vLLM}\n      runtime: team-vllm\n"
        "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n      args: [--max-model-len=4096]\n", "isvc.yaml")
    [g] = inv.groups
    assert (g.engine.model, g.engine.max_model_len, g.at("model").line, g.at("max_model_len").line) == (
        "Qwen/Qwen2.5-7B-Instruct", 4096, 9, 10)


def test_kserve_predictor_pod_takes_the_runtime_pod_fields_under_its_own():
    """KServe's MergePodSpec puts the ServingRuntime's nodeSelector, affinity, tolerations, volumes and
    imagePullSecrets under the predictor's (a strategic merge whose patch is the predictor): volumes by name, the
    node selector key by key, the predictor's own tolerations replacing the runtime's (corpus22)."""
    runtime = (
        "apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: rt}\nspec:\n"
        "  containers:\n    - name: kserve-container\n      image: vllm/vllm-openai:v0.10.1\n"
        "      args: [--model=/mnt/models]\n"
        "      volumeMounts: [{name: shm, mountPath: /dev/shm}, {name: cache, mountPath: /cache}]\n"
        "  nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4, pool: gpu}\n"
        "  tolerations: [{key: dedicated, operator: Exists}]\n"
        "  volumes: [{name: shm, emptyDir: {medium: Memory}}, {name: cache, emptyDir: {}}]\n---\n")
    service = (
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: {name}}\nspec:\n"
        "  predictor:\n{extra}    model:\n      modelFormat: {name: vLLM}\n      runtime: rt\n"
        "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n      resources: {limits: {nvidia.com/gpu: 1}}\n---\n")
    own = ("    nodeSelector: {pool: serving}\n    tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"
           "    volumes: [{name: cache, persistentVolumeClaim: {claimName: models}}]\n")
    inv = load_kubernetes_text(runtime + service.replace("{extra}", "").replace("{name}", "bare", 1)
                               + service.replace("{extra}", own).replace("{name}", "own", 1), "isvc.yaml")
    got = {g.name: (g.node_selector, [t.key for t in g.tolerations],
                    [(v.name, v.kind, v.medium) for v in g.volumes])
           for g in inv.groups}
    assert got == {
        "bare": ({"nvidia.com/gpu.product": "NVIDIA-L4", "pool": "gpu"}, ["dedicated"],
                 [("shm", "emptyDir", "Memory"), ("cache", "emptyDir", None)]),
        "own": ({"nvidia.com/gpu.product": "NVIDIA-L4", "pool": "serving"}, ["nvidia.com/gpu"],
                [("shm", "emptyDir", "Memory"), ("cache", "persistentVolumeClaim", None)]),
    }


def test_kserve_model_format_that_is_not_an_llm_server_is_no_group():
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: x}\n"
        "spec:\n  predictor:\n    model:\n      modelFormat: {name: sklearn}\n"
        "      storageUri: gs://kfserving-examples/models/sklearn/1.0/model\n", "isvc.yaml")
    assert (inv.groups, dict(inv.skipped), inv.launch_issues) == ([], {}, [])


def test_llm_inference_service_decode_prefill_and_multi_node():
    inv = load("llminferenceservice.yaml")
    assert groups(inv) == [
        ("LLMInferenceService", "llm", "qwen3-8b", 2, "Qwen/Qwen3-8B", 2, 1, 1, 16384, 2, "nvidia.com/gpu", 2, 1,
         ("gpu.product=NVIDIA-L40S", "L40S")),
        ("LLMInferenceService", "llm", "qwen3-8b/prefill", 26, "Qwen/Qwen3-8B", 1, 1, 1, None, 1, "nvidia.com/gpu",
         1, 1, ("gpu.product=NVIDIA-L40S", "L40S")),
        # data 16 over dataLocal 8 per pod: two pods (template + worker) per group
        ("LLMInferenceService", "llm", "deepseek-r1", 38, "deepseek-ai/DeepSeek-R1", 1, 1, 16, None, 8,
         "nvidia.com/gpu", 1, 2, ("instance-type=p5en.48xlarge", "H200-141GB")),
    ]
    assert lines(inv) == [
        ({"max_model_len": 23, "gpu_memory_utilization": 23, "model": 9, "tensor_parallel_size": 13},
         {"resources": 24, "nodeSelector": 19, "replicas": 11, "published": 15}),  # its `router.route`
        ({"model": 9, "tensor_parallel_size": 29}, {"resources": 35, "nodeSelector": 31, "replicas": 27}),
        ({"model": 45, "data_parallel_size": 48, "data_parallel_size_local": 49, "enable_expert_parallel": 50},
         {"resources": 56, "vpc.amazonaws.com/efa": 57, "nodeSelector": 52, "replicas": 46}),
    ]
    deepseek = inv.groups[2].engine
    assert (deepseek.enable_expert_parallel, deepseek.extra) == (True, {"data_parallel_size_local": 8})


def test_llm_inference_service_without_template_takes_gpus_from_base_configs():
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: q, namespace: llm}\n"
        "spec:\n  model: {uri: 'hf://Qwen/Qwen2.5-7B-Instruct'}\n  baseRefs:\n    - name: team-h100-config\n",
        "l.yaml")
    [g] = inv.groups
    assert (g.engine.model, show(g.gpus_per_pod), g.at("resources").line, g.vllm_container) == (
        "Qwen/Qwen2.5-7B-Instruct", "UNKNOWN", 6, "main")


def test_llm_inference_service_router_not_known_yet_is_undecided_not_private():
    # a preview's computed `spec.router` (or its `route`): whether KServe publishes the service is not known, and
    # SW306 says so at the router's line, advisory, as for an InferenceService's unknown label
    from shardwise.rules.adapters.k8s.kserve import router_published

    for router in (UNKNOWN, {"route": UNKNOWN}):
        obj = {"metadata": {"name": "q", "namespace": "llm"}, "spec": {"router": router}}
        assert router_published(obj) == (UNKNOWN, "", None)
    assert router_published({"metadata": {"name": "q"}, "spec": {"router": {"scheduler": {}}}}) == (None, "", None)
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata: {name: q, namespace: llm}\n"
        "spec:\n  model: {uri: 'hf://Qwen/Qwen3-0.6B'}\n  router:\n    route: {}\n  template:\n    containers:\n"
        "      - name: main\n        resources: {limits: {nvidia.com/gpu: '1'}}\n", "l.yaml")
    [g] = inv.groups
    assert (g.published_advisory != "", g.at("published").line) == (True, 7)  # its `route`
    g.published = UNKNOWN
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW306"]
    assert (f.level, f.location.line, f.message) == (
        "advisory", 7, "cannot decide whether LLMInferenceService llm/q is published outside the cluster: its "
        "`spec.router` or the `security.opendatahub.io/enable-auth` annotation is not known yet (advisory: a route's "
        "reach is the cluster's ingress configuration)")


def test_inference_service_on_a_named_runtime_outside_its_file_is_built_by_an_unknown_operator():
    # redhat-na-ssa/demo-ai-gitops-catalog: the InferenceService (format vLLM) names a ServingRuntime kept in
    # another file (there a vLLM CPU build): the runtime writes image, command and resources, so what the pod
    # holds is not known and SW204 cannot block it
    inv = load_kubernetes_text(
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: granite\nspec:\n"
        "  predictor:\n    model:\n      args:\n        - '--max-model-len=8192'\n      modelFormat:\n"
        "        name: vLLM\n      resources:\n        limits: {cpu: '2', memory: 12Gi}\n"
        "      runtime: granite-vision-model\n      storageUri: oci://registry.example/modelcars/granite:3.3-2b\n",
        "isvc.yaml")
    [g] = inv.groups
    assert (g.unknown_operator, g.main_container.image, show(g.gpus_per_pod)) == (True, None, None)
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW204"]
    assert (f.level, f.message.endswith("(advisory: the operator of this InferenceService builds the pod and may "
                                        "add it; lint the pod it renders to make this finding blocking)")) == (
        "advisory", True)


_RUNTIME_FILE = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
  namespace: {namespace}
  annotations:
    openshift.io/display-name: vLLM ServingRuntime for KServe
  labels:
    opendatahub.io/dashboard: "true"
spec:
  multiModel: false
  supportedModelFormats:
    - autoSelect: true
      name: vLLM
  containers:
    - name: kserve-container
      image: quay.io/modh/vllm:rhoai-2.20-cuda
      command: [python, -m, vllm.entrypoints.openai.api_server]
      args: ["--port=8080", "--model=/mnt/models", "--served-model-name={{{{.Name}}}}"]
      ports:
        - containerPort: 8080
          protocol: TCP
"""
_ISVC_FILE = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: granite
  namespace: llm
  annotations:
    serving.kserve.io/deploymentMode: RawDeployment
spec:
  predictor:
    model:
      modelFormat:
        name: vLLM
      runtime: vllm-runtime
      storageUri: hf://ibm-granite/granite-3.1-8b-instruct
      args: ["--max-model-len=8192"]
      resources:
        limits:
          nvidia.com/gpu: "1"
"""


@pytest.mark.parametrize(("namespace", "joined"), [("llm", True), ("other", False)])
def test_a_kserve_runtime_in_another_file_is_read_through_its_service_once(tmp_path, namespace, joined):
    """corpus12: a repository keeps the ServingRuntime and its InferenceService in two files (belonghim/
    vllm-optimizer's openshift/base/vllm-runtime.yaml and vllm-inferenceservice.yaml, the RHOAI dashboard's
    export). The service is read on the runtime (its image, its command, the service's args appended), and the
    runtime is not linted alone as a template beside it: one workload, not two. A ServingRuntime of another
    namespace is not the one the service names (KServe looks in the service's namespace, then for a
    ClusterServingRuntime): the service stays built by an operator shardwise does not see, the runtime a template."""
    (tmp_path / "vllm-runtime.yaml").write_text(_RUNTIME_FILE.format(namespace=namespace), encoding="utf-8")
    (tmp_path / "vllm-inferenceservice.yaml").write_text(_ISVC_FILE, encoding="utf-8")
    inv = load_inputs([str(tmp_path / "vllm-inferenceservice.yaml"), str(tmp_path / "vllm-runtime.yaml")])
    got = [(g.kind, g.name, g.template, g.unknown_operator, g.main_container.image, g.engine.model,
            g.engine.max_model_len, os.path.basename(g.location.file or "")) for g in inv.groups]
    service = ("InferenceService", "granite", False, not joined, "quay.io/modh/vllm:rhoai-2.20-cuda" if joined else None,
               "ibm-granite/granite-3.1-8b-instruct", 8192, "vllm-inferenceservice.yaml")
    runtime = ("ServingRuntime", "vllm-runtime", True, True, "quay.io/modh/vllm:rhoai-2.20-cuda", "/mnt/models", None,
               "vllm-runtime.yaml")
    assert got == ([service] if joined else [service, runtime])
    if joined:
        [g] = inv.groups
        # review50: KServe fills the runtime's {{.Name}} with the service's name before it makes the pod
        assert (g.engine.port, g.engine.extra.get("served_model_name")) == (8080, ["granite"])


# --- KubeAI ---------------------------------------------------------------------------------------------


def test_kubeai_models():
    inv = load("kubeai.yaml")
    assert groups(inv) == [
        ("Model", "kubeai", "llama-3.1-8b-instruct-l4", 2, "meta-llama/Llama-3.1-8B-Instruct", 1, 1, 1, 32768, 1,
         "nvidia.com/gpu", 1, 1, ("resourceProfile nvidia-gpu-l4", "L4")),
        # amd-gpu-mi300x:8 -> 8 amd.com/gpu of MI300X; minReplicas 0 (scale to zero) sized as one replica
        ("Model", "kubeai", "llama-3.3-70b-mi300x", 22, "meta-llama/Llama-3.3-70B-Instruct", 8, 1, 1, 131072, 8,
         "amd.com/gpu", 1, 1, ("resourceProfile amd-gpu-mi300x", "MI300X")),
        # a profile named for a GPU the catalog does not know: the pool's memory is unknown, not absent
        ("Model", "kubeai", "qwen-7b-a16", 35, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, None, 1, "nvidia.com/gpu", 1,
         1, ("resourceProfile nvidia-gpu-a16", None)),
        # (gemma2-2b-cpu: engine OLlama, recognised, no group)
    ]
    assert lines(inv) == [
        ({"max_model_len": 12, "max_num_batched_tokens": 13, "gpu_memory_utilization": 14,
          "enable_prefix_caching": 15, "model": 9}, {"env": 16, "resources": 18}),
        ({"tensor_parallel_size": 31, "max_model_len": 31, "model": 29}, {"resources": 32}),
        ({"model": 42}, {"resources": 44}),
    ]
    assert [(g.pool.accelerator, show(g.pool.gpu_memory_gib)) for g in inv.groups] == [
        ("nvidia", 21.99), ("amd", 191.98), ("nvidia", "UNKNOWN")]
    assert inv.groups[0].main_container.env == {"VLLM_ATTENTION_BACKEND": "FLASHINFER"}
    assert (dict(inv.skipped), inv.launch_issues) == ({}, [])


def test_kubeai_unknown_gpu_profile_makes_capacity_rules_undecided():
    inv = load_inputs([os.path.join(FIX, "kubeai.yaml")])
    got = sorted({(f.code, f.message) for f in run_rules(ALL_RULES, inv)
                  if f.subject == "Model kubeai/qwen-7b-a16" and f.undecided})
    assert got == [
        (code, "cannot decide: GPU memory of node pool `resourceProfile nvidia-gpu-a16` is not known "
               "(a computed value or an unresolved reference): write it literally in the inputs (not a reference "
               "to a ConfigMap or Secret, nor a computed output)")
        for code in ("SW101", "SW102", "SW206")  # one GPU: no sharding for SW104/SW106; no load for SW103
    ]


def test_kubeai_custom_profile_gives_an_unknown_accelerator_count_never_none():
    # OPEA's GenAIInfra Models name a profile of their own KubeAI values (gaudi-for-text-generation:2): the
    # operator writes the profile's limits × 2, which are not in the inputs; the profile's name says Gaudi
    inv = load_kubernetes_text(
        "apiVersion: kubeai.org/v1\nkind: Model\nmetadata:\n  name: r1-70b-gaudi\nspec:\n"
        "  features: [TextGeneration]\n  url: hf://deepseek-ai/DeepSeek-R1-Distill-Llama-70B\n  engine: VLLM\n"
        "  args:\n    - --tensor-parallel-size=2\n  minReplicas: 1\n"
        "  resourceProfile: gaudi-for-text-generation:2\n", "m.yaml")
    [g] = inv.groups
    assert (show(g.gpus_per_pod), g.accelerator_resource, g.pool.name, g.pool.kind, g.pool.accelerator) == (
        "UNKNOWN", "habana.ai/gaudi", "resourceProfile gaudi-for-text-generation", "resource-profile", "intel")
    sw204 = [(f.level, f.location.line, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW204"]
    assert sw204 == [("advisory", 12, "cannot decide: the accelerator count of KubeAI's resourceProfile "
                      "gaudi-for-text-generation is not known (the profile is not one of KubeAI's defaults: the "
                      "operator gives the pod its limits × the count, and those are in KubeAI's configuration (the "
                      "Helm values' resourceProfiles), which is not in the inputs)")]


def test_arks_applications_as_the_operator_runs_them():
    """corpus16: scitix/arks' ArksApplication was not read (SW005 said so, and its sample's TP2 on one 1-GPU pod went
    unjudged). The operator's LeaderWorkerSet: spec.size pods per group, each with instanceSpec's resources and
    placement; the leader runs the API server with the model from /models, --tensor-parallel-size from
    spec.tensorParallelSize and each runtimeCommonArgs string split as bash splits it; the runtime image defaults
    to the operator's v0.8.2 and replicas to 0 (Go's zero: the operator scales the set to none)."""
    inv = load("arks.yaml")
    assert groups(inv) == [
        ("ArksApplication", "llm", "qwen-tp2-two-nodes", 16, "Qwen/Qwen2.5-7B-Instruct", 2, 1, 1, 32768, 1,
         "nvidia.com/gpu", 2, 2, ("gpu.product=NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB")),
        ("ArksApplication", "default", "qwen-defaults", 46, "Qwen/Qwen2.5-0.5B-Instruct", 1, 1, 1, None, 1,
         "nvidia.com/gpu", 0, 1, None),
        # (qwen-sglang, qwen-dynamo: other runtimes, recognised, no group)
    ]
    assert lines(inv) == [
        ({"port": 22, "model": 9, "served_model_name": 22, "max_model_len": 28, "gpu_memory_utilization": 29,
          "tensor_parallel_size": 24},
         {"resources": 35, "volumeMounts": 42, "image": 26, "nodeSelector": 33, "volumes": 38, "replicas": 22}),
        ({"port": 51, "model": 64, "served_model_name": 51}, {"resources": 55}),
    ]
    assert [(g.main_container.image, g.main_container.command, g.main_container.args[-2:],
             g.main_container.volume_mounts) for g in inv.groups] == [
        ("vllm/vllm-openai:v0.10.1", ["python3", "-m", "vllm.entrypoints.openai.api_server"],
         ["32768", "--gpu-memory-utilization=0.9"], {"dshm": "/dev/shm"}),
        ("vllm/vllm-openai:v0.8.2", ["python3", "-m", "vllm.entrypoints.openai.api_server"],
         ["--served-model-name", "qwen"], {}),
    ]
    assert (dict(inv.skipped), inv.launch_issues) == ({}, [])


def test_nebari_llm_models_as_the_operator_runs_them():
    """corpus21: nebari-dev/llm-serving-pack's LLMModel was skipped as an object of an unknown kind (with a word only
    when a field was named for vLLM). Its operator's Deployment (modelservice.go at 50253626): the API server with
    --served-model-name, --tensor-parallel-size from spec.serving.tensorParallelism else spec.resources.gpu.count,
    --data-parallel-size, then spec.serving.vllmArgs and spec.advanced.vllm.extraArgs; gpu.count nvidia.com/gpu;
    a memory /dev/shm; spec.serving.replicas (default 1); placement from spec.advanced.vllm. The model is
    spec.model.name (the operator's --model is its local copy). A command of its own that is not vLLM's (the mock
    server of the operator's dev loop) is no vLLM group; since readers18 its image names a simulator, and SW005's
    word says it was recognised as one (nothing to check, nothing blocks)."""
    inv = load("nebari.yaml")
    assert groups(inv) == [
        ("LLMModel", "nebari-llm-serving-system", "qwen3-32b-awq", 5, "Qwen/Qwen3-32B-AWQ", 2, 1, 1, 32768, 2,
         "nvidia.com/gpu", 2, 1, ("gpu.product=NVIDIA-L40S", "L40S")),
        ("LLMModel", "nebari-llm-serving-system", "devstral", 38, "mistralai/Devstral-Small-2505", 1, 1, 1, None, 1,
         "nvidia.com/gpu", 1, 1, None),
    ]
    assert lines(inv) == [
        ({"served_model_name": 25, "tensor_parallel_size": 25, "data_parallel_size": 25, "max_model_len": 27,
          "gpu_memory_utilization": 34, "model": 12}, {"nodeSelector": 31, "resources": 19}),
        ({"served_model_name": 38, "tensor_parallel_size": 38, "data_parallel_size": 38, "model": 45},
         {"resources": 49}),
    ]
    assert [(g.main_container.image, g.main_container.command, g.main_container.args,
             g.main_container.volume_mounts) for g in inv.groups] == [
        ("ghcr.io/llm-d/llm-d-cuda:v0.7.0", ["python3", "-m", "vllm.entrypoints.openai.api_server"],
         ["--served-model-name", "Qwen/Qwen3-32B-AWQ", "--tensor-parallel-size", "2", "--data-parallel-size", "1",
          "--max-model-len", "32768", "--gpu-memory-utilization", "0.92"], {"shm": "/dev/shm"}),
        ("ghcr.io/llm-d/llm-d-cuda:v0.7.0", ["python3", "-m", "vllm.entrypoints.openai.api_server"],
         ["--served-model-name", "mistralai/Devstral-Small-2505", "--tensor-parallel-size", "1",
          "--data-parallel-size", "1"], {"shm": "/dev/shm"}),
    ]
    assert dict(inv.skipped) == {}
    assert [(i.subject, i.container, i.location.line, i.other_engine, i.advisory, i.reason)
            for i in inv.launch_issues] == [
        ("LLMModel llm-operator-system/test-model", "vllm", 67, "a simulator", False,
         "container 'vllm' runs a simulator of an LLM server (its image is mock-vllm:dev), recognised as one: it loads "
         "no model and uses no accelerator, so no capacity, topology or reliability rule has a server to check here"),
    ]


def test_arks_application_serves_the_model_of_its_arks_model_in_its_namespace(tmp_path):
    """The ArksModel of the application's spec.model.name in its namespace, in any input, names the model (at
    its spec.model line); one of another namespace does not."""
    inv = load_inputs([os.path.join(FIX, "arks.yaml")])
    assert [(g.name, g.engine.model, g.engine.locations["model"].line, g.model is not None) for g in inv.groups] == [
        ("qwen-tp2-two-nodes", "Qwen/Qwen2.5-7B-Instruct", 9, True),
        ("qwen-defaults", "Qwen/Qwen2.5-0.5B-Instruct", 64, True),
    ]
    app = tmp_path / "app.yaml"
    app.write_text("apiVersion: arks.ai/v1\nkind: ArksApplication\nmetadata: {name: a, namespace: team}\nspec:\n"
                   "  replicas: 1\n  model: {name: qwen-7b}\n  instanceSpec:\n"
                   "    resources: {limits: {nvidia.com/gpu: '1'}}\n", encoding="utf-8")
    model = tmp_path / "model.yaml"
    model.write_text("apiVersion: arks.ai/v1\nkind: ArksModel\nmetadata: {name: qwen-7b, namespace: team}\n"
                     "spec:\n  model: Qwen/Qwen2.5-7B-Instruct\n", encoding="utf-8")
    [g] = load_inputs([str(app), str(model)]).groups
    assert (g.engine.model, g.engine.locations["model"]) == ("Qwen/Qwen2.5-7B-Instruct", Location(str(model), 5))
    [g] = load_inputs([str(app)]).groups
    assert g.engine.model == "/models/models/team/qwen-7b"


def test_a_wrong_typed_arks_runtime_image_is_an_input_error_at_its_line(tmp_path):
    """The fuzz of explicit tags (test_robustness.test_fuzz_explicit_tags) met `runtimeImage: !!binary ...`: the
    input error pointed at the spec's first line, not the runtimeImage line, since the synthetic container kept the
    lines of an `image` key only."""
    app = tmp_path / "app.yaml"
    app.write_text("apiVersion: arks.ai/v1\nkind: ArksApplication\nmetadata: {name: a, namespace: team}\nspec:\n"
                   "  replicas: 1\n  runtimeImage: !!binary dkxMTQ==\n  model: {name: qwen-7b}\n  instanceSpec:\n"
                   "    resources: {limits: {nvidia.com/gpu: '1'}}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_inputs([str(app)])
    assert str(err.value).startswith(f"{app}:6: spec.containers[0].image: expected a string, found a bytes (b'vLLM')")


# --- KubeRay and Ray Serve LLM --------------------------------------------------------------------------


def test_ray_service_llm_configs_and_ray_cluster_running_vllm():
    inv = load("ray.yaml")
    assert groups(inv) == [
        # Ray Serve LLM: engine_kwargs, accelerator_type L4, TP × PP GPUs per replica, min_replicas
        ("RayService", "ray", "qwen-serve/qwen-14b", 15, "Qwen/Qwen2.5-14B-Instruct", 2, 1, 1, 16384, 2,
         "nvidia.com/gpu", 2, 1, ("accelerator_type=L4", "L4")),
        # vllm serve on the head with the Ray executor: TP8×PP2 over the head and one worker
        ("RayCluster", "ray", "llama-405b-ray", 53, "meta-llama/Llama-3.1-405B-Instruct", 8, 2, 1, 32768, 8,
         "nvidia.com/gpu", 1, 2, ("instance-type=p5.48xlarge", "H100-SXM-80GB")),
    ]
    # lines inside the serveConfigV2 block point at the file's lines
    assert lines(inv) == [
        ({"model": 17, "tensor_parallel_size": 19, "max_model_len": 20, "enable_prefix_caching": 21},
         {"resources": 19, "image": 49, "nodeSelector": 45}),
        ({"model": 72, "tensor_parallel_size": 73, "pipeline_parallel_size": 73, "distributed_executor_backend": 74,
          "max_model_len": 74}, {"resources": 75, "image": 67, "vpc.amazonaws.com/efa": 76,
                                 "nodeSelector": 63}),
    ]
    assert (dict(inv.skipped), inv.launch_issues) == ({}, [])


def test_ray_serve_config_reads_a_replica_count_written_as_text(tmp_path):
    """Ray Serve's config is no Kubernetes object: Ray reads it with pydantic, which takes ``min_replicas: "3"`` as 3;
    the integer fields of Kubernetes objects refuse such a string (fields.int_field, newuser6), this one does not."""
    with open(os.path.join(FIX, "ray.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    assert "min_replicas: 2\n" in text
    path = tmp_path / "ray.yaml"
    path.write_text(text.replace("min_replicas: 2\n", "min_replicas: \"3\"\n", 1), encoding="utf-8")
    inv = load_inputs([str(path)])
    assert [(g.name, g.replicas) for g in inv.groups] == [("qwen-serve/qwen-14b", 3), ("llama-405b-ray", 1)]


@pytest.mark.parametrize(("written", "gpus"), [
    ("", 2),  # TP2 × PP1 bundles of one GPU (VLLMEngineConfig.num_devices), whatever PCP is
    ("                prefill_context_parallel_size: 2\n", 2),
    ("              placement_group_config: {bundles: [{GPU: 1, CPU: 4}, {GPU: 1}, {GPU: 0, CPU: 1}, {GPU: 1}]}\n", 3),
    ("              placement_group_config: {bundles: [{CPU: 4}, {}]}\n", 2),  # BundleConfig.GPU defaults to 1.0
    ("              placement_group_config: {bundles: [{GPU: 0.5}, {GPU: 0.5}]}\n", UNKNOWN),
    ("              placement_group_config: {bundles: [{GPU: 2}]}\n", UNKNOWN),
    ("              placement_group_config: {strategy: PACK}\n", UNKNOWN),
])
def test_ray_serve_llm_replica_holds_its_placement_group_gpu_bundles(tmp_path, written, gpus):
    """A Ray Serve LLM replica holds the GPU bundles of its placement group: the LLMConfig's placement_group_config
    where given, else TP × PP (ray vllm_models.py placement_bundles); vLLM's world size TP × PP × PCP is SW204's."""
    with open(os.path.join(FIX, "ray.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    where = "                enable_prefix_caching: true\n" if "prefill" in written else "              accelerator_type: L4\n"
    assert where in text
    path = tmp_path / "ray.yaml"
    path.write_text(text.replace(where, where + written, 1), encoding="utf-8")
    group = load_inputs([str(path)]).groups[0]
    assert (group.name, group.gpus_per_pod) == ("qwen-serve/qwen-14b", gpus)


def test_ray_service_llm_config_from_a_file_in_the_image_is_a_launch_issue():
    inv = load_kubernetes_text(
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: s, namespace: ray}\nspec:\n"
        "  serveConfigV2: |\n    applications:\n      - import_path: ray.serve.llm:build_openai_app\n"
        "        args:\n          llm_configs:\n            - ./configs/llama.yaml\n"
        "  rayClusterConfig: {headGroupSpec: {template: {spec: {containers: [{name: h, image: rayproject/ray}]}}}}\n",
        "s.yaml")
    [issue] = inv.launch_issues
    assert (inv.groups, issue.subject, issue.location.line, issue.crash, issue.reason) == (
        [], "RayService ray/s", 9, False,
        "llm_configs entry './configs/llama.yaml' is a file inside the image, which shardwise cannot read; "
        "write the LLMConfig inline in serveConfigV2")


# jagrutsharma/multinode-llm-serving 04-vllm/ray-service-sample.yaml (MIT), its shape: the Serve application is the
# repository's own module (serve_vllm:app) inside an image named for vLLM, the containers carry no command
RAY_SERVE_APP = (
    "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: rayservice-vllm}\nspec:\n"
    "  serveConfigV2: |\n    applications:\n      - name: llm_app\n        import_path: serve_vllm:app\n"
    "        route_prefix: /\n  rayClusterConfig:\n    headGroupSpec:\n      rayStartParams: {num-cpus: '0'}\n"
    "      template: {spec: {containers: [{name: ray-head, image: 'example.com/llm/ray-qwen-vllm:latest'}]}}\n"
    "    workerGroupSpecs:\n      - groupName: gpu-group\n        replicas: 1\n        template:\n"
    "          spec:\n            containers:\n              - name: ray-worker\n"
    "                image: example.com/llm/ray-qwen-vllm:latest\n"
    "                resources: {limits: {nvidia.com/gpu: '1'}}\n")


def test_ray_service_whose_serve_application_is_its_own_code_says_where_vllm_runs():
    """KubeRay writes a Ray pod's command (`ray start`) and Serve runs the application's replicas: the SW002 of a
    RayService whose application is its own module names that application, where "the image entrypoint, no args"
    alone read as if the image's entrypoint were the server (corpus23). A RayCluster, which has no Serve
    application, keeps the general reason."""
    inv = load_kubernetes_text(RAY_SERVE_APP, "s.yaml")
    [issue] = inv.launch_issues
    assert (inv.groups, issue.subject, issue.container, issue.mentioned, issue.reason) == (
        [], "RayService default/rayservice-vllm", "ray-head", False,
        "container 'ray-head' runs example.com/llm/ray-qwen-vllm:latest, an image named for vLLM, but its command "
        "(the image entrypoint, no args) is not where vLLM starts: KubeRay runs `ray start` in a Ray pod's container, and vLLM "
        "runs inside the RayService's Ray Serve application `serve_vllm:app` (serveConfigV2), Python code of its "
        "own (in the image, or a file mounted into the pods) that shardwise does not read, so the model, layout and "
        "context length are not in the object; Ray Serve LLM's `ray.serve.llm:build_openai_app` with inline "
        "`llm_configs` is read")
    cluster = RAY_SERVE_APP.replace("kind: RayService", "kind: RayCluster").replace(
        "  rayClusterConfig:\n    headGroupSpec", "  headGroupSpec").replace("\n    workerGroupSpecs", "\n  workerGroupSpecs")
    cluster = cluster.split("  serveConfigV2")[0] + "  headGroupSpec" + cluster.split("  headGroupSpec", 1)[1]
    [issue] = load_kubernetes_text(cluster, "c.yaml").launch_issues
    assert issue.reason.endswith("but its command (the image entrypoint, no args) does not start a vLLM server "
                                 "shardwise can read")


def test_ray_service_bad_serve_config_is_an_input_error_at_its_line():
    text = ("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: s}\nspec:\n  serveConfigV2: |\n"
            "    applications:\n      - name: [unclosed\n")
    with pytest.raises(InputError) as e:
        load_kubernetes_text(text, "s.yaml")
    assert (e.value.file, e.value.line, e.value.message.split(":")[0]) == ("s.yaml", 8, "serveConfigV2")



def test_kserve_storage_path_names_the_model_a_mount_stands_for(tmp_path):
    """``storage: {key, path}`` (KServe's data-connection form, rh-aiservices-bu/models-aas): the storage
    initializer copies <path> of the connection's bucket to /mnt/models, and the path names the model as its
    files were uploaded; a storageUri, when there is one, wins, and a blank path names nothing."""
    text = (
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "metadata: {name: mistral-7b-instruct}\n"
        "spec:\n"
        "  predictor:\n"
        "    containers:\n"
        "    - name: kserve-container\n"
        "      image: quay.io/modh/vllm:rhoai-2.20-cuda\n"
        "      command: [python, -m, vllm.entrypoints.openai.api_server]\n"
        "      args: [--port=8080, --model=/mnt/models, --served-model-name=mistral-7b-instruct]\n"
        "      resources: {limits: {nvidia.com/gpu: '1'}}\n"
        "    model:\n"
        "      modelFormat: {name: vLLM}\n"
        "      storage:\n"
        "        key: aws-connection-models\n"
        "        path: mistralai/Mistral-7B-Instruct-v0.3/\n"
    )
    path = tmp_path / "isvc.yaml"
    path.write_text(text, encoding="utf-8")
    [g] = load_inputs([str(path)]).groups
    assert (g.engine.model, g.engine.locations["model"].line) == ("mistralai/Mistral-7B-Instruct-v0.3", 16)
    path.write_text(text.replace("        path: mistralai/Mistral-7B-Instruct-v0.3/\n", "        path: ' / '\n"),
                    encoding="utf-8")
    [g] = load_inputs([str(path)]).groups
    assert g.engine.model == "/mnt/models"
    path.write_text(text.replace("      storage:\n", "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n      storage:\n"),
                    encoding="utf-8")
    [g] = load_inputs([str(path)]).groups
    assert g.engine.model == "Qwen/Qwen2.5-7B-Instruct"

# --- Dynamo, AIBrix, llm-d ------------------------------------------------------------------------------


def test_dynamo_graph_workers():
    inv = load("dynamo.yaml")
    assert groups(inv) == [
        ("DynamoGraphDeployment", "dynamo", "llama-disagg/VllmDecodeWorker", 17, "meta-llama/Llama-3.3-70B-Instruct",
         2, 1, 1, 16384, 2, "nvidia.com/gpu", 2, 1, ("gpu.product=NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB")),
        # args only: the operator runs them through sh -c
        ("DynamoGraphDeployment", "dynamo", "llama-disagg/VllmPrefillWorker", 32,
         "meta-llama/Llama-3.3-70B-Instruct", 1, 1, 1, None, 1, "nvidia.com/gpu", 1, 1,
         ("gpu.product=NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB")),
    ]
    assert lines(inv) == [
        ({"model": 31, "tensor_parallel_size": 31, "max_model_len": 31},
         {"image": 27, "nodeSelector": 24, "resources": 21}),
        ({"model": 44, "is_prefill_worker": 44}, {"image": 42, "nodeSelector": 39, "resources": 36}),
    ]
    # the frontend runs no engine: neither a group nor an unreadable launch
    assert (dict(inv.skipped), inv.launch_issues) == ({}, [])


def test_aibrix_and_llm_d():
    inv = load("aibrix-llmd.yaml")
    assert groups(inv) == [
        # StormService roles; Karpenter's instance-family g6e -> L40S
        ("StormService", "aibrix", "qwen-1p1d/prefill", 17, "Qwen/Qwen2.5-32B-Instruct", 2, 1, 1, 8192, 2,
         "nvidia.com/gpu", 2, 1, ("instance-family=g6e", "L40S")),
        ("StormService", "aibrix", "qwen-1p1d/decode", 31, "Qwen/Qwen2.5-32B-Instruct", 2, 1, 1, 8192, 2,
         "nvidia.com/gpu", 1, 1, ("instance-family=g6e", "L40S")),
        # a Ray cluster fleet; EKS Auto Mode's instance-family p4de -> A100-80GB
        ("RayClusterFleet", "aibrix", "mixtral-fleet", 46, "mistralai/Mixtral-8x7B-Instruct-v0.1", 8, 1, 1, None, 8,
         "nvidia.com/gpu", 2, 1, ("instance-family=p4de", "A100-80GB")),
        # llm-d ModelService: modelArtifacts.uri, parallelism.tensor, acceleratorTypes as node affinity
        ("ModelService", "llm-d", "llama-8b/decode", 85, "meta-llama/Llama-3.1-8B-Instruct", 1, 1, 1, 65536, 1,
         "nvidia.com/gpu", 2, 1, ("gpu.product=NVIDIA-L4", "L4")),
        ("ModelService", "llm-d", "llama-8b/prefill", 97, "meta-llama/Llama-3.1-8B-Instruct", 1, 1, 1, 65536, 1,
         "nvidia.com/gpu", 1, 1, ("gpu.product=NVIDIA-L4", "L4")),
    ]
    assert lines(inv)[3] == ({"max_model_len": 94, "gpu_memory_utilization": 94, "model": 82,
                              "tensor_parallel_size": 88}, {"resources": 95, "affinity": 89})


def test_every_serving_fixture_lints_without_input_errors():
    inv = load_inputs([FIX])
    assert len(inv.groups) == 25  # arks.yaml (corpus16): 2 vLLM applications of 4; nebari.yaml (corpus21): 2 of 3
    assert not [g.name for g in inv.groups if g.model is None]


# --- findings point at the field to change ----------------------------------------------------------------


def test_findings_on_serving_resources_point_at_the_field_to_change():
    inv = load_inputs([os.path.join(FIX, "llminferenceservice.yaml"), os.path.join(FIX, "kubeai.yaml")])
    got = sorted((f.location.file.rsplit("/", 1)[1], f.location.line, f.code, f.subject)
                 for f in run_rules(ALL_RULES, inv) if f.code in ("SW102", "SW104", "SW401") and not f.undecided)
    assert got == [
        # KubeAI: --max-model-len=32768 (args line 12) does not fit the L4's KV cache
        ("kubeai.yaml", 12, "SW102", "Model kubeai/llama-3.1-8b-instruct-l4"),
        # TP8 from args (line 31); no SW401: KubeAI's controller mounts a memory /dev/shm in the server
        ("kubeai.yaml", 31, "SW104", "Model kubeai/llama-3.3-70b-mi300x"),
        # parallelism.tensor: 2 (line 13); no SW401: KServe's controller mounts a memory /dev/shm in `main`
        ("llminferenceservice.yaml", 13, "SW104", "LLMInferenceService llm/qwen3-8b"),
    ]


def test_sarif_and_github_annotations_carry_the_field_line(tmp_path, capsys, monkeypatch):
    from shardwise.rules.app.cli import main

    path = os.path.join(FIX, "llminferenceservice.yaml")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(FIX)  # annotations name files relative to the checkout (here the working directory)
    assert main(["lint", path, "--format", "github"]) == 1
    out = capsys.readouterr().out.splitlines()
    # SW104 blocks here (no load declared: fewer GPUs start the model with the KV reserve): an error at the TP line
    assert any(line.startswith("::error file=llminferenceservice.yaml,line=13,title=sharded-model-that-fits::") for line in out)
    sarif = tmp_path / "r.sarif"
    assert main(["lint", path, "--format", "sarif", "--output", str(sarif)]) == 1
    import json

    results = json.loads(sarif.read_text())["runs"][0]["results"]
    [sw104] = [r for r in results if r["ruleId"] == "SW104"]
    assert sw104["locations"][0]["physicalLocation"]["region"] == {"startLine": 13}


def test_a_parallelism_field_that_is_no_number_is_an_input_error_at_its_line():
    text = ("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: x}\nspec:\n"
            "  predictor:\n    model:\n      modelFormat: {name: huggingface}\n"
            "      storageUri: hf://meta-llama/Llama-3.1-405B-Instruct\n"
            "    workerSpec:\n      tensorParallelSize: 8\n      pipelineParallelSize: two\n")
    with pytest.raises(InputError) as e:
        load_kubernetes_text(text, "isvc.yaml")
    assert (e.value.line, e.value.message) == (
        11, "spec.predictor.workerSpec.pipelineParallelSize: expected an integer, got 'two'")


_LLMISVC = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: llama-8b
  namespace: llm
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-8B-Instruct
  replicas: 1
  parallelism:
    tensor: 2
  template:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-L40S
    containers:
      - name: main
        args: [--max-model-len, "8192"]
        resources:
          limits: {nvidia.com/gpu: "2"}
"""


def test_kserve_controller_gives_main_its_shm_and_probes(tmp_path):
    """KServe merges an LLMInferenceService's template over its base config: `main` gets a memory-backed
    /dev/shm and startup (60 × 10 s), liveness and readiness probes on /health, so SW401, SW402 and SW407
    have nothing to say about a template that writes none of them."""
    path = tmp_path / "llmisvc.yaml"
    path.write_text(_LLMISVC, encoding="utf-8")
    inv = load_inputs([str(path)])
    [g] = inv.groups
    main = g.main_container
    assert main is not None
    assert {k: (p.initial_delay_seconds, p.period_seconds, p.failure_threshold) for k, p in main.probes.items()} == {
        "startup": (0, 10, 60), "liveness": (0, 10, 10), "readiness": (0, 1, 2)}
    assert [(v.name, v.kind, v.medium) for v in g.volumes if v.name == "dshm"] == [("dshm", "emptyDir", "Memory")]
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code in ("SW401", "SW402", "SW407")] == []


def test_a_probe_or_shm_the_template_writes_wins_field_by_field(tmp_path):
    text = _LLMISVC.replace(
        "        resources:\n",
        "        livenessProbe:\n"
        "          httpGet: {path: /health, port: 8000}\n"
        "          initialDelaySeconds: 120\n"
        "          periodSeconds: 30\n"
        "        volumeMounts: [{name: scratch, mountPath: /dev/shm}]\n"
        "        resources:\n",
    ).replace("  template:\n", "  template:\n    volumes: [{name: scratch, emptyDir: {}}]\n")
    path = tmp_path / "llmisvc.yaml"
    path.write_text(text, encoding="utf-8")
    inv = load_inputs([str(path)])
    [g] = inv.groups
    liveness = g.main_container.probes["liveness"]  # type: ignore[union-attr]
    # its own delay and period, the base config's failureThreshold; the base startup probe stays
    assert (liveness.initial_delay_seconds, liveness.period_seconds, liveness.failure_threshold) == (120, 30, 10)
    assert g.main_container.probes["startup"].budget_seconds == 600  # type: ignore[union-attr]
    found = [(f.code, f.message) for f in run_rules(ALL_RULES, inv) if f.code in ("SW401", "SW402")]
    assert found == [("SW401", "container `main` runs tensor_parallel_size 2 "
                                "with emptyDir `scratch` without medium: Memory (node disk) at /dev/shm, not an "
                                "emptyDir with medium: Memory; set medium: Memory on emptyDir `scratch`")]


def test_kubeai_gives_its_vllm_server_probes_and_shm():
    """KubeAI's model controller starts vLLM with a three-hour startup probe, readiness and liveness on
    /health and a memory-backed /dev/shm; a Model cannot set them, so they are read as the pod has them."""
    inv = load("kubeai.yaml")
    g = next(g for g in inv.groups if g.name == "llama-3.3-70b-mi300x")
    main = g.main_container
    assert main is not None
    assert {k: p.budget_seconds for k, p in main.probes.items()} == {
        "startup": 10800, "readiness": 30, "liveness": 90}
    assert [(v.name, v.medium) for v in g.volumes] == [("dshm", "Memory")]
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code in ("SW401", "SW402", "SW407")] == []


def test_kuberay_mounts_the_object_store_shm_unless_told_otherwise(tmp_path):
    """KubeRay mounts a memory-backed /dev/shm in each Ray pod's first container, except when
    rayStartParams names a plasma-directory: then a TP8 × PP2 group has the runtime's 64 MiB."""
    with open(os.path.join(FIX, "ray.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    inv = load_inputs([os.path.join(FIX, "ray.yaml")])
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code == "SW401"] == []
    cluster = next(g for g in inv.groups if g.name == "llama-405b-ray")
    assert [(v.name, v.medium) for v in cluster.volumes if v.name == "shared-mem"] == [("shared-mem", "Memory")]
    plasma = text.replace("  headGroupSpec:\n    rayStartParams: {}\n",
                          "  headGroupSpec:\n    rayStartParams: {plasma-directory: /tmp/plasma}\n")
    assert plasma != text
    path = tmp_path / "ray.yaml"
    path.write_text(plasma, encoding="utf-8")
    found = [(f.location.line, f.message) for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW401"]
    assert found == [(66, "container `ray-head` runs a multi-node group of 2 "
                          "pods (TP8×PP2) but mounts nothing at /dev/shm (the container runtime's default is 64 MiB); "
                          "mount an emptyDir with medium: Memory there")]


def test_dynamo_workers_get_the_operators_shm_and_startup_probe(tmp_path):
    """The Dynamo operator gives every worker an 8Gi memory /dev/shm (unless sharedMemory.disabled) and a
    startup probe of 720 × 10 s; a TP4 worker without them in the file is not SW401 or SW402."""
    text = (
        "apiVersion: nvidia.com/v1alpha1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: qwen, namespace: dynamo}\n"
        "spec:\n"
        "  services:\n"
        "    VllmDecodeWorker:\n"
        "      componentType: worker\n"
        "      replicas: 1\n"
        "      resources: {limits: {gpu: '4'}}\n"
        "      extraPodSpec:\n"
        "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
        "        mainContainer:\n"
        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0\n"
        "          command: [/bin/sh, -c]\n"
        "          args: ['python3 -m dynamo.vllm --model Qwen/Qwen3-32B --tensor-parallel-size 4']\n"
        "          livenessProbe: {httpGet: {path: /live, port: 9090}, periodSeconds: 5, failureThreshold: 1}\n"
    )
    path = tmp_path / "dgd.yaml"
    path.write_text(text, encoding="utf-8")
    inv = load_inputs([str(path)])
    [g] = inv.groups
    assert g.main_container.probes["startup"].budget_seconds == 7200  # type: ignore[union-attr]
    assert [(v.name, v.medium) for v in g.volumes] == [("shared-memory", "Memory")]
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code in ("SW401", "SW402")] == []
    path.write_text(text.replace("      replicas: 1\n", "      replicas: 1\n      sharedMemory: {disabled: true}\n"),
                    encoding="utf-8")
    assert [f.code for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW401"] == ["SW401"]



def test_dynamo_v1beta1_components_are_workers_with_their_own_pod_templates(tmp_path):
    """``nvidia.com/v1beta1`` lists ``spec.components`` (ai-dynamo/dynamo's examples/backends/*/deploy/v1beta1):
    each has a ``type``, ``replicas``, ``multinode.nodeCount`` and a whole ``podTemplate`` whose container
    ``main`` runs the engine with its GPUs in its own resources. One pod per group unless ``multinode`` says
    more (never unknown), and the operator's /dev/shm and startup probe as in v1alpha1."""
    text = (
        "apiVersion: nvidia.com/v1beta1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: qwen, namespace: dynamo}\n"
        "spec:\n"
        "  components:\n"
        "  - name: Frontend\n"
        "    podTemplate:\n"
        "      spec:\n"
        "        containers:\n"
        "        - {image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1', name: main}\n"
        "    replicas: 1\n"
        "    type: frontend\n"
        "  - name: VllmDecodeWorker\n"
        "    podTemplate:\n"
        "      spec:\n"
        "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
        "        containers:\n"
        "        - {name: log-shipper, image: 'fluent/fluent-bit:3.1'}\n"
        "        - args: [--model, Qwen/Qwen3-32B, --tensor-parallel-size, '8']\n"
        "          command: [python3, -m, dynamo.vllm]\n"
        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1\n"
        "          name: main\n"
        "          resources: {limits: {nvidia.com/gpu: '8'}}\n"
        "    replicas: 2\n"
        "    type: worker\n"
        "  - multinode: {nodeCount: 2}\n"
        "    name: prefill\n"
        "    podTemplate:\n"
        "      spec:\n"
        "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
        "        containers:\n"
        "        - args: [--model, Qwen/Qwen3-32B, --is-prefill-worker, --tensor-parallel-size, '8']\n"
        "          command: [python3, -m, dynamo.vllm]\n"
        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1\n"
        "          name: main\n"
        "          resources: {limits: {nvidia.com/gpu: '4'}}\n"
        "    replicas: 1\n"
        "    type: prefill\n"
    )
    path = tmp_path / "dgd.yaml"
    path.write_text(text, encoding="utf-8")
    inv = load_inputs([str(path)])
    assert [(g.name, g.location.line, g.engine.model, g.engine.tensor_parallel_size, show(g.gpus_per_pod),
             show(g.replicas), show(g.pods_per_group), g.main_container.name) for g in inv.groups] == [
        ("qwen/VllmDecodeWorker", 13, "Qwen/Qwen3-32B", 8, 8, 2, 1, "main"),
        ("qwen/prefill", 26, "Qwen/Qwen3-32B", 8, 4, 1, 2, "main"),
    ]
    for g in inv.groups:
        assert g.main_container.probes["startup"].budget_seconds == 7200  # type: ignore[union-attr]
        assert [(v.name, v.medium) for v in g.volumes] == [("shared-memory", "Memory")]
    assert inv.launch_issues == []

# --- Knative Serving: a (group, kind), never a kind alone ----------------------------------------------------


def test_a_knative_service_is_a_workload_not_a_core_service():
    """serving.knative.dev Service: its template's pod is read (before, it was taken for a core Service and its
    vLLM pod never seen); replicas from min-scale; Knative's own pod labels, which a core Service selects."""
    inv = load("knative-vllm.yaml")
    assert groups(inv) == [
        ("Knative Service", "llm", "llama3", 5, "meta-llama/Llama-3.1-70B-Instruct", 4, 1, 1, 8192, 4,
         "nvidia.com/gpu", 2, 1, ("instance-type=g6e.12xlarge", "L40S"))]
    [g] = inv.groups
    assert g.pod_labels == {"app": "llama3", "serving.knative.dev/configuration": "llama3",
                            "serving.knative.dev/service": "llama3"}
    assert g.locations["replicas"].line == 16  # the min-scale annotation
    # Knative's default readiness probe (TCP on the container's port), which its queue-proxy runs
    probe = g.containers[0].probes["readiness"]
    assert (probe.port, probe.path) == (8000, None)
    assert [(s.name, s.type, s.selector) for s in inv.services] == [
        ("llama3-public", "LoadBalancer", {"serving.knative.dev/service": "llama3"})]
    got = sorted((f.code, f.location.line, f.level, f.subject) for f in run_rules(ALL_RULES, inv))
    assert got == [
        ("SW202", 27, "advisory", "Knative Service llm/llama3"),
        ("SW305", 5, "advisory", "Namespace llm"),
        # no cluster-local label: a route on the ingress gateway, whose reach the cluster's domain and gateway decide
        ("SW306", 8, "advisory", "Knative Service llm/llama3"),
        ("SW306", 47, "mandatory", "Service llm/llama3-public"),
    ]


_KNATIVE = """apiVersion: serving.knative.dev/v1
kind: {kind}
metadata:
  name: qwen
  namespace: llm
spec:
{body}"""
_KNATIVE_POD = """      containers:
        - image: vllm/vllm-openai:v0.10.1
          args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_knative_configuration_and_revision_and_their_scale():
    conf = load_kubernetes_text(_KNATIVE.format(kind="Configuration", body=(
        "  template:\n    metadata:\n      annotations:\n        autoscaling.knative.dev/minScale: \"0\"\n"
        "        autoscaling.knative.dev/initialScale: \"3\"\n    spec:\n" + _KNATIVE_POD)), "c.yaml")
    rev = load_kubernetes_text(_KNATIVE.format(kind="Revision", body="\n".join(
        line[4:] for line in _KNATIVE_POD.splitlines())), "r.yaml")
    bare = load_kubernetes_text(_KNATIVE.format(kind="Service", body="  template:\n    spec:\n" + _KNATIVE_POD),
                                "s.yaml")
    # min-scale 0 scales to zero when idle: the replicas that serve are the initial scale (Knative's default 1)
    assert [(g.kind, g.name, g.replicas, g.engine.model) for inv in (conf, rev, bare) for g in inv.groups] == [
        ("Knative Configuration", "qwen", 3, "Qwen/Qwen2.5-7B-Instruct"),
        ("Knative Revision", "qwen", 1, "Qwen/Qwen2.5-7B-Instruct"),
        ("Knative Service", "qwen", 1, "Qwen/Qwen2.5-7B-Instruct")]
    assert conf.groups[0].pod_labels == {"serving.knative.dev/configuration": "qwen"}
    # with no port the probe is on Knative's PORT, 8080
    assert bare.groups[0].containers[0].probes["readiness"].port == 8080


def test_knative_names_unnamed_containers_as_its_webhook_does():
    """Knative's defaulting webhook names an unnamed container ``user-container``, or with several containers
    ``user-container-0``, ``-1``, … skipping names in use (revision_defaults.go, applyDefaultContainerNames): findings
    name the container the cluster shows, not a placeholder."""
    one = load_kubernetes_text(_KNATIVE.format(kind="Service", body="  template:\n    spec:\n" + _KNATIVE_POD),
                               "s.yaml")
    assert [c.name for c in one.groups[0].containers] == ["user-container"]
    two = load_kubernetes_text(_KNATIVE.format(kind="Service", body=(
        "  template:\n    spec:\n      initContainers:\n        - {name: user-container-0, image: busybox}\n"
        + _KNATIVE_POD + "        - image: ghcr.io/example/sidecar:1.0\n"
        "        - {name: user-container-1, image: ghcr.io/example/proxy:1.0}\n")), "s.yaml")
    pod = two.groups[0]
    assert [c.name for c in pod.containers] == ["user-container-2", "user-container-3", "user-container-1"]


def test_a_knative_scale_that_is_no_number_is_an_input_error_at_its_line():
    with pytest.raises(InputError) as e:
        load_kubernetes_text(_KNATIVE.format(kind="Service", body=(
            "  template:\n    metadata:\n      annotations:\n        autoscaling.knative.dev/min-scale: two\n"
            "    spec:\n" + _KNATIVE_POD)), "s.yaml")
    assert (e.value.line, e.value.message) == (
        10, "autoscaling.knative.dev/min-scale: expected a whole number of pods, got 'two'")


# --- the labels operators put on the pods they create, which Services select --------------------------------


_HF_RUNTIME_WRITTEN_OUT = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: llm-runtime
  namespace: agents
spec:
  supportedModelFormats:
    - {{name: huggingface, version: "1", autoSelect: true}}
  containers:
    - name: kserve-container
      image: docker.io/kserve/huggingfaceserver:v0.18.0-gpu
      command: {command}
      resources:
        limits: {{nvidia.com/gpu: "1"}}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen-llm
  namespace: agents
spec:
  predictor:
    nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
    model:
      modelFormat: {{name: huggingface}}
      runtime: llm-runtime
      args:
        - --model_name=qwen2.5-7B
        - --model_id=Qwen/Qwen2.5-7B-Instruct
        - --backend={backend}
        - --max-model-len=16384
      resources:
        limits: {{nvidia.com/gpu: "1"}}
"""


@pytest.mark.parametrize("command", ['["python", "-m", "huggingfaceserver"]', "[python3, -u, -m, huggingfaceserver]",
                                     "[/usr/bin/python3, -m, huggingfaceserver]"])
def test_kserve_hf_runtime_writing_out_its_entrypoint_is_read_as_vllm(command):
    """corpus42 (kubeflow/docs-agent): a ServingRuntime of KServe's Hugging Face server image whose container writes
    the image's ENTRYPOINT out (``python3 -m huggingfaceserver``) runs, with ``--backend=vllm``, what an args-only
    runtime runs: the group is read (it was no workload and no word, a silent pass)."""
    inv = load_kubernetes_text(_HF_RUNTIME_WRITTEN_OUT.format(command=command, backend="vllm"), "isvc.yaml")
    assert groups(inv) == [("InferenceService", "agents", "qwen-llm", 16, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, 16384,
                            1, "nvidia.com/gpu", 1, 1, ("gke-accelerator=nvidia-l4", "L4"))]


@pytest.mark.parametrize(("command", "backend"), [
    ('["python", "-m", "huggingfaceserver"]', "huggingface"),  # the Transformers backend: not vLLM
    ('["python", "-m", "my_server"]', "vllm"),  # another module: the command is the runtime's own, not read as vLLM
    ('["/bin/sh", "-c", "python -m huggingfaceserver"]', "vllm"),  # a shell: not the entrypoint written out
])
def test_kserve_hf_runtime_with_another_command_or_backend_is_not_read_as_vllm(command, backend):
    inv = load_kubernetes_text(_HF_RUNTIME_WRITTEN_OUT.format(command=command, backend=backend), "isvc.yaml")
    assert groups(inv) == []


_HF_RUNTIME_BACKEND = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: kserve-huggingfaceserver
  namespace: llm
spec:
  annotations:
    prometheus.kserve.io/port: "8080"
  supportedModelFormats:
    - {{name: huggingface, version: "1", autoSelect: true, priority: 1}}
  protocolVersions: [v2, v1]
  containers:
    - name: kserve-container
      image: kserve/huggingfaceserver:v0.15.2-gpu
      args:
        - --model_name={{{{.Name}}}}
        - --backend={runtime}
      resources:
        limits: {{cpu: "1", memory: 2Gi}}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama3-8b
  namespace: llm
spec:
  predictor:
    model:
      modelFormat:
        name: huggingface
      args:
        - --backend
        - {isvc}
        - --max-model-len=8192
      storageUri: hf://meta-llama/Meta-Llama-3-8B-Instruct
      resources:
        limits: {{cpu: "6", memory: 24Gi, nvidia.com/gpu: "1"}}
"""


@pytest.mark.parametrize(("runtime", "isvc", "read"), [
    ("huggingface", "vllm", True),  # the InferenceService's flag comes last: vLLM (was read first-wins: no group)
    ("vllm", "huggingface", False),  # the Transformers backend, the InferenceService's
    ("vllm", "auto", True),
    ("huggingface", "huggingface", False),
])
def test_kserve_hf_server_backend_is_the_last_one_written(runtime, isvc, read):
    """review43: KServe appends the InferenceService's args to its runtime's (MergeRuntimeContainers) and the Hugging
    Face server parses them with argparse, so the last ``--backend`` is the one the server runs: a runtime's
    ``--backend=huggingface`` under an InferenceService's ``--backend vllm`` serves with vLLM."""
    inv = load_kubernetes_text(_HF_RUNTIME_BACKEND.format(runtime=runtime, isvc=isvc), "isvc.yaml")
    want = [("InferenceService", "llm", "llama3-8b", 21, "meta-llama/Meta-Llama-3-8B-Instruct", 1, 1, 1, 8192, 1,
             "nvidia.com/gpu", 1, 1, None)]
    assert groups(inv) == (want if read else [])



@pytest.mark.parametrize(("runtime", "isvc", "image", "level"), [
    ("VLLM", "vllm", "kserve/huggingfaceserver:v0.15.2-gpu", "mandatory"),  # each one converted: a later one is late
    ("vllm", "vLLM", "kserve/huggingfaceserver:v0.15.2-gpu", "mandatory"),
    ("vllm", "Huggingface", "docker.io/kserve/huggingfaceserver:v0.20.0", "mandatory"),
    ("vllm", "VLLM", "kserve/huggingfaceserver:v0.12.1", "advisory"),  # no --backend yet: it ignores the flag
    ("vllm", "VLLM", "kserve/huggingfaceserver:v0.21.0-gpu", "advisory"),  # a release not read
    ("vllm", "VLLM", "kserve/huggingfaceserver:latest", "advisory"),
    ("vllm", "VLLM", "registry.example.com/mirror/kserve/huggingfaceserver:v0.15.0", "advisory"),  # a mirror: not read
])
def test_kserve_hf_server_backend_it_refuses_is_a_start_up_exit_by_release(runtime, isvc, image, level):
    """mend29: ``Backend[t]`` looks each ``--backend`` up by member name as written; any other raises KeyError, which
    argparse does not catch, and the server exits at import. No group (nothing serves), and SW003 says so: sure on a
    KServe release read from v0.13.0 to v0.20.0, advisory on another image; at the service's --backend, or at its
    model format where the runtime it auto-selects wrote the value."""
    text = _HF_RUNTIME_BACKEND.format(runtime=runtime, isvc=isvc).replace("kserve/huggingfaceserver:v0.15.2-gpu", image)
    inv = load_kubernetes_text(text, "isvc.yaml")
    assert groups(inv) == []
    [issue] = inv.launch_issues
    bad = runtime if runtime != "vllm" else isvc
    assert (issue.subject, issue.crash, issue.advisory, issue.location.line) == (
        "InferenceService llm/llama3-8b", True, level == "advisory", 32 if bad == isvc else 29)
    assert issue.reason.startswith(f"container 'kserve-container': KServe's Hugging Face server refuses `--backend "
                                   f"{bad}` and exits at start-up")


_HF_RUNTIME_ENV_ARGS = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: kserve-huggingfaceruntimev1
  namespace: llm
spec:
  supportedModelFormats:
    - name: huggingface
      version: "1"
      autoSelect: true
  containers:
    - name: kserve-container
      image: kserve/huggingfaceserver:v0.15.2-gpu
      args:
        - --model_name={{{{.Name}}}}
        - --model_id=$(MODEL_NAME)
        - --backend=$(BACKEND)
      env:
        - name: MODEL_NAME
          value: "$(MODEL_NAME)"
        - name: BACKEND
          value: {backend}
        - name: HF_HUB_CACHE
          value: /tmp/hf_cache
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama3-8b
  namespace: llm
spec:
  predictor:
    model:
      modelFormat:
        name: huggingface
      env:
        - name: MODEL_NAME
          value: meta-llama/Meta-Llama-3-8B-Instruct
      args: [--max-model-len=8192]
      resources:
        limits: {{nvidia.com/gpu: "1"}}
"""


@pytest.mark.parametrize(("backend", "read"), [("vllm", True), ("auto", True), ("huggingface", False)])
def test_kserve_hf_server_args_are_read_as_the_kubelet_expands_them(backend, read):
    """review43: the kubelet expands ``$(VAR)`` in the args from the container's env (the runtime's, then the
    InferenceService's, merged by name) before the Hugging Face server reads them: ``--backend=$(BACKEND)`` with
    ``BACKEND: vllm`` serves with vLLM (it was no workload, a silent pass) and ``--model_id=$(MODEL_NAME)`` names the
    InferenceService's MODEL_NAME (the runtime's own ``MODEL_NAME: $(MODEL_NAME)`` is the shape of a public guide)."""
    inv = load_kubernetes_text(_HF_RUNTIME_ENV_ARGS.format(backend=backend), "isvc.yaml")
    want = [("InferenceService", "llm", "llama3-8b", 26, "meta-llama/Meta-Llama-3-8B-Instruct", 1, 1, 1, 8192, 1,
             "nvidia.com/gpu", 1, 1, None)]
    assert groups(inv) == (want if read else [])


def test_kserve_and_kuberay_pods_carry_their_controllers_labels():
    """KServe (predictor.go buildObjectMeta) and KubeRay (common/pod.go labelPod) label the pods they create; a
    Service selecting those labels selects the group."""
    kserve = load("kserve-huggingface.yaml")
    assert kserve.groups[0].pod_labels == {"serving.kserve.io/inferenceservice": "llama-8b", "component": "predictor"}
    ray = load("ray.yaml")
    head = {"ray.io/is-ray-node": "yes", "app.kubernetes.io/name": "kuberay",
            "app.kubernetes.io/created-by": "kuberay-operator", "ray.io/node-type": "head", "ray.io/group": "headgroup"}
    assert [(g.name, g.pod_labels) for g in ray.groups] == [
        # Ray Serve LLM: the Serve proxy on the head answers; the RayService's cluster name is generated
        ("qwen-serve/qwen-14b", {**head, "ray.io/serve": "true"}),
        ("llama-405b-ray", {**head, "ray.io/identifier": "llama-405b-ray-head", "ray.io/cluster": "llama-405b-ray"}),
    ]


_ISVC_MODE = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen
  namespace: llm
  labels: {team: search}
  annotations:
    serving.kserve.io/deploymentMode: {mode}
spec:
  predictor:
    labels: {tier: gpu}
    containers:
      - name: kserve-container
        image: vllm/vllm-openai:v0.10.1
        args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
---
apiVersion: v1
kind: Service
metadata:
  name: qwen-public
  namespace: llm
  annotations: {{service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing}}
spec:
  type: LoadBalancer
  selector: {selector}
  ports: [{{port: 80, targetPort: 8080}}]
"""


@pytest.mark.parametrize(("mode", "selector", "label", "own"), [
    ("RawDeployment", "{app: isvc.qwen-predictor}", {"app": "isvc.qwen-predictor"}, "advisory"),
    ("Standard", "{app: isvc.qwen-predictor}", {"app": "isvc.qwen-predictor"}, "advisory"),
    ("Serverless", "{serving.knative.dev/service: qwen-predictor}",
     {"serving.knative.dev/service": "qwen-predictor", "serving.knative.dev/configuration": "qwen-predictor"},
     "advisory"),
])
def test_a_service_selecting_kserve_predictor_pods_by_their_mode_label_is_sw306(mode, selector, label, own):
    inv = load_kubernetes_text(_ISVC_MODE.replace("{mode}", mode).replace("{selector}", selector)
                               .replace("{{", "{").replace("}}", "}"), "i.yaml")
    [g] = inv.groups
    assert g.pod_labels == {"team": "search", "tier": "gpu", "serving.kserve.io/inferenceservice": "qwen",
                            "component": "predictor", **label}
    # the InferenceService has no visibility label: KServe's own route too, advisory in every mode (Serverless: the
    # cluster's domain and gateway decide its reach; RawDeployment/Standard: its ingress config whether one is made);
    # the LoadBalancer in front of the pods blocks
    assert sorted((f.code, f.level, f.subject) for f in run_rules(ALL_RULES, inv) if f.code == "SW306") == [
        ("SW306", own, "InferenceService llm/qwen"), ("SW306", "mandatory", "Service llm/qwen-public")]


# --- RoleBasedGroup: a role's pod is its template with the patches applied --------------------------------------

RBG = os.path.join(FIXTURES, "k8s", "rbg")


def test_rbg_roles_that_patch_a_shared_template_keep_its_image():
    """sgl-project/rbg's own vLLM example, verbatim: each role names `roleTemplates[vllm-base]` (the image) and
    patches it (the command). Before, the patch was read alone: no image (SW307 silent on `latest`), the group
    named `…/prefill/standalonePattern/templateRef/patch`, and its pods per group unknown."""
    inv = load_kubernetes_file(os.path.join(RBG, "vllm-pd-disagg-with-mooncake-te.yaml"))
    got = [(g.name, g.location.line, g.engine.model, show(g.replicas), show(g.pods_per_group), g.gpus_per_pod,
            g.main_container.image, g.at("image").line, g.unknown_operator) for g in inv.groups]
    assert got == [
        ("vllm-pd-with-mooncake-te/prefill", 114, "Qwen/Qwen3-0.6B", 1, 1, 1, "vllm/vllm-openai:latest", 59, False),
        ("vllm-pd-with-mooncake-te/decode", 172, "Qwen/Qwen3-0.6B", 1, 1, 1, "vllm/vllm-openai:latest", 59, False)]
    assert inv.groups[0].pod_labels == {"app": "vllm-inference",
                                        "rbg.workloads.x-k8s.io/group-name": "vllm-pd-with-mooncake-te",
                                        "rbg.workloads.x-k8s.io/role-name": "prefill"}
    assert (inv.launch_issues, dict(inv.skipped)) == ([], {})
    assert sorted((f.code, f.location.line, f.subject) for f in run_rules(ALL_RULES, inv) if f.code == "SW307") == [
        ("SW307", 59, "RoleBasedGroup default/vllm-pd-with-mooncake-te/decode"),
        ("SW307", 59, "RoleBasedGroup default/vllm-pd-with-mooncake-te/prefill")]


def test_rbg_leader_worker_roles_span_their_size_in_pods():
    inv = load_kubernetes_file(os.path.join(RBG, "leader-worker.yaml"))
    assert groups(inv) == [
        # v1alpha2: the leader's command from leaderTemplatePatch, over the template's image and GPUs
        ("RoleBasedGroup", "llm", "llama-70b/backend", 11, "meta-llama/Llama-3.1-70B-Instruct", 4, 2, 1, 8192, 4,
         "nvidia.com/gpu", 2, 2, ("instance-type=g6e.12xlarge", "L40S")),
        # v1alpha1: patchLeaderTemplate over the role's template
        ("RoleBasedGroup", "llm", "qwen-32b/lws", 54, "Qwen/Qwen2.5-32B-Instruct", 2, 1, 1, None, 1,
         "nvidia.com/gpu", 1, 2, ("instance-type=g6e.xlarge", "L40S")),
    ]
    assert [g.pod_labels["role"] for g in inv.groups] == ["leader", "leader"]
    assert (inv.launch_issues, dict(inv.skipped)) == ([], {})


# --- a model reference of the wrong type (the explicit-tag sweep, test_robustness) ------------------------

_BYTES = "!!binary dkxMTQ=="  # b'vLLM'


@pytest.mark.parametrize(("text", "line", "field"), [
    ("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: x}\nspec:\n  predictor:\n"
     "    model:\n      modelFormat: {name: vLLM}\n      storageUri: BYTES\n", 8, "spec.predictor.model.storageUri"),
    ("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: x}\nspec:\n  predictor:\n"
     "    storageUri: BYTES\n    containers:\n      - name: kserve-container\n        image: vllm/vllm-openai:v0.10.1\n",
     6, "spec.predictor.storageUri"),
    ("apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: q}\nspec:\n  model:\n"
     "    uri: BYTES\n", 6, "spec.model.uri"),
    ("apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec:\n  engine: VLLM\n  url: BYTES\n"
     "  resourceProfile: nvidia-gpu-l4:1\n", 6, "spec.url"),
    ("apiVersion: arks.ai/v1\nkind: ArksApplication\nmetadata: {name: a}\nspec:\n  replicas: 1\n  model:\n"
     "    name: BYTES\n  instanceSpec:\n    resources: {limits: {nvidia.com/gpu: '1'}}\n", 7, "spec.model.name"),
    ("apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nmetadata: {name: m}\nspec:\n  modelArtifacts:\n"
     "    uri: BYTES\n  decode:\n    containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.1\n", 6,
     "spec.modelArtifacts.uri"),
    ("apiVersion: workload.serving.volcano.sh/v1alpha1\nkind: ModelBooster\nmetadata: {name: k}\nspec:\n"
     "  backend:\n    name: main\n    type: vLLM\n    modelURI: BYTES\n    workers:\n      - type: server\n"
     "        image: vllm/vllm-openai:v0.10.1\n", 8, "spec.backend.modelURI"),
])
def test_a_wrong_typed_model_reference_is_an_input_error_at_its_line(text, line, field):
    """The API server refuses a non-string model reference: an input error at the field's own line, not a
    container that "names no model" at the consumer's line (what the sweep of explicit tags found)."""
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text.replace("BYTES", _BYTES), "m.yaml")
    assert err.value.line == line
    assert str(err.value).startswith(f"m.yaml:{line}: {field}: expected a string, found a bytes (b'vLLM'); ")


def test_a_wrong_typed_runtime_field_is_an_error_at_the_runtimes_line():
    """A ServingRuntime's container merged into an InferenceService's pod keeps its fields' lines: a wrong-typed
    image is an error at the runtime's image line, not at the service's."""
    text = _RUNTIME_FILE.format(namespace="llm").replace("image: quay", f"image: {_BYTES} #quay") + "---\n" + \
        _ISVC_FILE
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text, "r.yaml")
    assert (err.value.line, str(err.value).split(";")[0]) == (
        17, "r.yaml:17: spec.containers[0].image: expected a string, found a bytes (b'vLLM')")


def test_a_wrong_typed_kubeai_env_value_is_an_error_at_its_line():
    """KubeAI's `env` is a mapping: each value, made an env entry of the container, keeps its own line."""
    with pytest.raises(InputError) as err:
        load_kubernetes_text("apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec:\n  engine: VLLM\n"
                             "  url: hf://Qwen/Qwen2.5-7B-Instruct\n  resourceProfile: nvidia-gpu-l4:1\n  env:\n"
                             "    A: ok\n    VLLM_CPU_KVCACHE_SPACE: !!float 4\n", "m.yaml")
    assert (err.value.line, str(err.value).split(";")[0]) == (
        10, "m.yaml:10: spec.containers[0].env[1].value (VLLM_CPU_KVCACHE_SPACE): expected a string, found a number (4.0)")


def test_a_wrong_typed_ome_base_model_storage_uri_is_an_input_error_at_its_line():
    """OME's base model names the weights in spec.storage.storageUri: a non-string there is refused at its line,
    not read as a base model with no storage (an SW004 "not in the inputs" beside the service)."""
    with open(os.path.join(FIXTURES, "k8s", "ome", "llama-8b-on-l4.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    assert text.splitlines()[18].strip().startswith("storageUri: hf://")
    lines = text.splitlines(keepends=True)
    lines[18] = "    storageUri: !!binary dkxMTQ==\n"
    with pytest.raises(InputError) as err:
        load_kubernetes_text("".join(lines), "ome.yaml")
    assert str(err.value).startswith(
        "ome.yaml:19: spec.storage.storageUri: expected a string, found a bytes (b'vLLM'); ")


# --- llm-d ModelService: the base ConfigMap it merges into (corpus14) ---------------------------------------------

MSVC = os.path.join(FIXTURES, "k8s", "modelservice")


def _msvc_findings(paths: list[str]) -> list[tuple]:
    inv = load_inputs(paths)
    return sorted((f.code, f.subject, f.level, f.message) for f in run_rules(ALL_RULES, inv)
                  if f.code in ("SW003", "SW204", "SW401") and not f.undecided)


def test_model_service_merges_into_its_base_config_map_as_the_controller_does():
    inv = load_inputs([MSVC])
    assert groups(inv) == [
        # {{ .HFModelName }} rendered from modelArtifacts.uri; 1 GPU, the image and `vllm serve` from the base's template
        ("ModelService", "default", "qwen-small/decode", 19, "Qwen/Qwen2.5-1.5B-Instruct", 1, 1, 1, 8192, 1,
         "nvidia.com/gpu", 2, 1, ("gpu.product=NVIDIA-L4", "L4")),
        ("ModelService", "default", "qwen-tp4/decode", 48, "Qwen/Qwen2.5-32B-Instruct", 4, 1, 1, None, 1,
         "nvidia.com/gpu", 1, 1, ("gpu.product=NVIDIA-L4", "L4")),
    ]
    small = inv.groups[0]
    assert small.main_container is not None and small.main_container.image == "ghcr.io/llm-d/llm-d:0.0.8"
    # the base's `--port {{ "app_port" | getPort }}` rendered from routing.ports
    assert small.engine.port == 8000
    # what the base gives is merged: it holds no /dev/shm, so the TP4 role's pods have none; its 1 GPU per pod
    # does not start TP4 (the controller sizes no resource from parallelism)
    assert _msvc_findings([MSVC]) == [
        ("SW204", "ModelService default/qwen-tp4/decode", "mandatory",
         "the pod requests 1 nvidia.com/gpu but TP4×PP1 starts 4 workers; vLLM cannot start with fewer GPUs than "
         "workers; write nvidia.com/gpu: 4 under the vLLM container's resources.limits"),
        ("SW401", "ModelService default/qwen-tp4/decode", "mandatory",
         "container `vllm` runs tensor_parallel_size 4 but mounts nothing at /dev/shm (the container runtime's default "
         "is 64 MiB); mount an emptyDir with medium: Memory there"),
    ]


def test_model_service_whose_base_config_map_is_held_twice_says_so_not_that_it_is_absent(tmp_path: Path):
    """mend25: two ConfigMaps of the base's name with different data (a staging copy beside the production one, one
    template changed) leave the base not read, as an absent one does; the finding says which it is, and its fix is
    to keep the one the cluster holds, not to lint a ConfigMap that is already there."""
    with open(os.path.join(MSVC, "base-config.yaml"), encoding="utf-8") as fh:
        base = fh.read()
    assert "value: /cache" in base
    other = tmp_path / "base-config-staging.yaml"
    other.write_text(base.replace("value: /cache", "value: /cache-staging", 1), encoding="utf-8")
    got = _msvc_findings([MSVC, str(other)])
    tail = ("(advisory: the ModelService controller merges this role into the Deployment template of ConfigMap "
            "`simple-base-config` (spec.baseConfigMapRef), in the inputs twice with different data, of which the "
            "cluster holds one, which may set it; keep in the inputs only the ConfigMap `simple-base-config` the "
            "cluster holds, to make this finding blocking)")
    assert [(code, subject, level) for code, subject, level, _ in got] == [
        ("SW204", "ModelService default/qwen-small/decode", "advisory"),
        ("SW204", "ModelService default/qwen-tp4/decode", "advisory"),
        ("SW401", "ModelService default/qwen-tp4/decode", "advisory"),
    ]
    assert all(message.endswith(tail) for *_, message in got)
    # the same base held once (the same data twice is one ConfigMap): read, and nothing said of it
    same = tmp_path / "base-config-copy.yaml"
    same.write_text(base, encoding="utf-8")
    other.unlink()
    assert [f[0] for f in _msvc_findings([MSVC, str(same)])] == ["SW204", "SW401"]


def test_model_service_without_its_base_config_map_does_not_block_on_what_the_base_may_hold():
    """corpus14: llm-d/llm-d-model-service samples linted without their base ConfigMap blocked on "requests no
    GPUs" and on the controller's {{ .HFModelName }} read as a Helm placeholder vLLM would exit on."""
    got = _msvc_findings([os.path.join(MSVC, "msvc.yaml")])
    tail = ("(advisory: the ModelService controller merges this role into the Deployment template of ConfigMap "
            "`simple-base-config` (spec.baseConfigMapRef), not in the inputs, which may set it; lint ConfigMap "
            "`simple-base-config` with it, to make this finding blocking)")
    assert got == [
        ("SW204", "ModelService default/qwen-small/decode", "advisory",
         "the vLLM container requests no GPUs (nvidia.com/gpu or another accelerator) but TP1×PP1 needs 1 GPU per "
         f"pod; the device plugin gives a container only the GPUs it requests; write nvidia.com/gpu: 1 under the vLLM container's resources.limits {tail}"),
        ("SW204", "ModelService default/qwen-tp4/decode", "advisory",
         "the vLLM container requests no GPUs (nvidia.com/gpu or another accelerator) but TP4×PP1 needs 4 GPUs per "
         f"pod; the device plugin gives a container only the GPUs it requests; write nvidia.com/gpu: 4 under the vLLM container's resources.limits {tail}"),
        ("SW401", "ModelService default/qwen-tp4/decode", "advisory",
         "container `vllm` runs tensor_parallel_size 4 but mounts nothing at /dev/shm (the container runtime's default "
         f"is 64 MiB); mount an emptyDir with medium: Memory there {tail}"),
    ]
    # the model is the controller's rendering of {{ .HFModelName }}, never the placeholder (no SW003)
    inv = load_inputs([os.path.join(MSVC, "msvc.yaml")])
    assert [g.engine.model for g in inv.groups] == ["Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-32B-Instruct"]


def test_model_service_base_template_that_is_no_yaml_once_rendered_holds_back_what_it_may_set(tmp_path):
    # the controller renders the base with every TemplateVars field and function; an action this object does not
    # decide ({{ .EPPServiceName }} in a flow mapping) leaves text that is not YAML: what the base gives is not known
    base = (Path(MSVC) / "base-config.yaml").read_text().replace(
        "              image: ghcr.io/llm-d/llm-d:0.0.8\n",
        "              image: ghcr.io/llm-d/llm-d:0.0.8\n              labels: {{ .EPPServiceName }\n", 1)
    (tmp_path / "base-config.yaml").write_text(base)
    (tmp_path / "msvc.yaml").write_text((Path(MSVC) / "msvc.yaml").read_text())
    got = _msvc_findings([str(tmp_path)])
    assert [(code, subject, level) for code, subject, level, _ in got] == [
        ("SW204", "ModelService default/qwen-small/decode", "advisory"),
        ("SW204", "ModelService default/qwen-tp4/decode", "advisory"),
        ("SW401", "ModelService default/qwen-tp4/decode", "advisory"),
    ]
    assert all("ConfigMap `simple-base-config` (spec.baseConfigMapRef), whose `decodeDeployment` is not YAML once "
               "rendered with what this object decides, which may set it" in message for *_, message in got)


def test_model_service_container_merges_command_args_and_env_as_the_controllers_transformers(tmp_path):
    """review14: the controller merges a role's container into the base's of the same name with its own
    transformers (llm-d/llm-d-model-service internal/controller/merge_transformers.go containerSliceTransformer, since
    "Prepend args" #84): the role's command replaces the base's, the role's args are prepended to the base's
    (stringSlicePrependTransformer), env merges by name. vLLM's parser keeps a flag's last value, so a
    --max-model-len both give is the base's; the corpus14 reader appended the role's args after the base's (the
    role's value won) and concatenated the two commands."""
    base = (Path(MSVC) / "base-config.yaml").read_text().replace(
        '                - "{{ "app_port" | getPort }}"\n',
        '                - "{{ "app_port" | getPort }}"\n                - "--max-model-len"\n                - "4096"\n',
        1)
    role = (Path(MSVC) / "msvc.yaml").read_text().split("---\n")[0].replace(
        '    - name: "vllm"\n      args:\n',
        '    - name: "vllm"\n      command: ["vllm", "serve"]\n      env:\n      - {name: HF_HOME, value: /models}\n'
        '      - {name: VLLM_LOGGING_LEVEL, value: DEBUG}\n      args:\n', 1)
    (tmp_path / "base-config.yaml").write_text(base)
    (tmp_path / "msvc.yaml").write_text(role)
    inv = load_inputs([str(tmp_path)])
    g = inv.groups[0]
    assert (g.name, g.engine.model, g.engine.max_model_len, g.engine.port) == (
        "qwen-small/decode", "Qwen/Qwen2.5-1.5B-Instruct", 4096, 8000)
    c = g.main_container
    assert c is not None and c.command == ["vllm", "serve"]
    assert c.args == ["Qwen/Qwen2.5-1.5B-Instruct", "--max-model-len", "8192", "--port", "8000", "--max-model-len",
                      "4096"]
    assert c.env == {"HF_HOME": "/models", "VLLM_LOGGING_LEVEL": "DEBUG"}


def test_model_service_base_config_map_of_another_namespace(tmp_path):
    """review14: the controller reads the base ConfigMap in ``baseConfigMapRef.namespace`` when it is set, the
    ModelService's own namespace only when it is blank (llm-d/llm-d-model-service internal/controller/
    child_resources.go getChildResourcesFromConfigMap). A base shared from another namespace was looked up in the
    ModelService's: "not in the inputs" although it is, and a ConfigMap of the same name there would have been
    merged in its place."""
    base = (Path(MSVC) / "base-config.yaml").read_text().replace(
        "  name: simple-base-config\n", "  name: simple-base-config\n  namespace: llm-d-shared\n", 1)
    # a ConfigMap of the same name in the ModelService's namespace, which the controller does not read: 8 GPUs a pod
    decoy = (Path(MSVC) / "base-config.yaml").read_text().replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 8")
    role = (Path(MSVC) / "msvc.yaml").read_text().replace(
        "    name: simple-base-config\n", "    name: simple-base-config\n    namespace: llm-d-shared\n")
    (tmp_path / "base-config.yaml").write_text(base)
    (tmp_path / "decoy.yaml").write_text(decoy)
    (tmp_path / "msvc.yaml").write_text(role)
    inv = load_inputs([str(tmp_path)])
    assert [(g.name, g.gpus_per_pod, g.fragment) for g in inv.groups] == [
        ("qwen-small/decode", 1, None), ("qwen-tp4/decode", 1, None)]
    assert [(code, subject, level) for code, subject, level, _ in _msvc_findings([str(tmp_path)])] == [
        ("SW204", "ModelService default/qwen-tp4/decode", "mandatory"),
        ("SW401", "ModelService default/qwen-tp4/decode", "mandatory")]


def test_model_service_without_its_base_holds_back_capacity_findings_the_base_args_may_change(tmp_path):
    """review14: the base ConfigMap's args follow the role's (the controller's stringSlicePrependTransformer) and its
    template gives the image, so without it in the inputs every engine flag the role leaves out, or gives, may be
    another: SW102 judged the model's 131,072-token default context on an L4 (an unknown read as vLLM's default) and
    blocked. It is advisory, saying to lint the ConfigMap with it; with the base in the inputs it blocks."""
    role = (Path(MSVC) / "msvc.yaml").read_text().split("---\n")[0].replace(
        "Qwen/Qwen2.5-1.5B-Instruct", "meta-llama/Llama-3.1-8B-Instruct").replace(
        '        - "--max-model-len"\n        - "8192"\n', "")
    (tmp_path / "msvc.yaml").write_text(role)

    def levels(paths: list[str]) -> list[tuple[str, str]]:
        return sorted((f.code, f.level) for f in run_rules(ALL_RULES, load_inputs(paths))
                      if f.code in ("SW102", "SW204") and not f.undecided)

    assert levels([str(tmp_path / "msvc.yaml")]) == [("SW102", "advisory"), ("SW204", "advisory")]
    (tmp_path / "base-config.yaml").write_text((Path(MSVC) / "base-config.yaml").read_text())
    assert levels([str(tmp_path)]) == [("SW102", "mandatory")]


def test_model_service_role_without_replicas_keeps_the_base_templates(tmp_path):
    """review14: the controller sets the Deployment's replicas from the role's (a pointer, nil when not written) and
    merges it over the base template with mergo.WithOverride, which leaves the base's value where the role's is nil
    (child_resources.go mergePDDeployment): a role without ``replicas`` runs the base template's, not 1."""
    base = (Path(MSVC) / "base-config.yaml").read_text().replace(
        "    kind: Deployment\n    spec:\n", "    kind: Deployment\n    spec:\n      replicas: 3\n", 1)
    role = (Path(MSVC) / "msvc.yaml").read_text().replace("    replicas: 1\n", "", 1)
    (tmp_path / "base-config.yaml").write_text(base)
    (tmp_path / "msvc.yaml").write_text(role)
    inv = load_inputs([str(tmp_path)])
    assert [(g.name, g.replicas) for g in inv.groups] == [("qwen-small/decode", 2), ("qwen-tp4/decode", 3)]


def test_model_service_init_containers_merge_by_name_as_containers(tmp_path, monkeypatch):
    """small16: the controller renders a role's ``initContainers`` as its containers and its Deployment merge's
    containerSliceTransformer applies to every ``[]corev1.Container`` field, so an init container of the base's name
    is merged into it, not added beside it (llm-d/llm-d-model-service internal/controller/child_resources.go
    interpolateContainerArgsForPDSpec and mergePDDeployment, merge_transformers.go). No rule reads init containers
    yet: the test looks at the pod spec the adapter gives the group reader."""
    from shardwise.rules.adapters.k8s import operators

    base = (Path(MSVC) / "base-config.yaml").read_text().replace(
        "          containers:\n            - name: vllm\n",
        "          initContainers:\n            - name: fetch\n              image: busybox:1.36\n"
        "              command: [sh, -c]\n              args: [\"cp -r /src /cache\"]\n"
        "              env: [{name: A, value: base}, {name: B, value: base}]\n"
        "            - name: warm\n              image: busybox:1.36\n"
        "          containers:\n            - name: vllm\n", 1)
    role = (Path(MSVC) / "msvc.yaml").read_text().split("---\n")[0].replace(
        "    containers:\n",
        "    initContainers:\n    - name: fetch\n      args: [\"--model={{ .HFModelName }}\"]\n"
        "      env: [{name: B, value: role}, {name: C, value: role}]\n    - name: extra\n      image: alpine:3\n"
        "    containers:\n", 1)
    assert "initContainers" in role
    (tmp_path / "base-config.yaml").write_text(base)
    (tmp_path / "msvc.yaml").write_text(role)
    seen: list = []
    real = operators.crd_group

    def spy(*args, **kwargs):
        seen.append(kwargs["pod_spec"])
        return real(*args, **kwargs)

    monkeypatch.setattr(operators, "crd_group", spy)
    load_inputs([str(tmp_path)])
    pod = seen[-1]  # the reading with the base ConfigMap joined
    init = [(c["name"], c.get("image"), c.get("args"), [(e["name"], e["value"]) for e in c.get("env", [])])
            for c in pod["initContainers"]]
    assert init == [
        # the role's args before the base's, rendered; env by name, the role's value over the base's
        ("fetch", "busybox:1.36", ["--model=Qwen/Qwen2.5-1.5B-Instruct", "cp -r /src /cache"],
         [("A", "base"), ("B", "role"), ("C", "role")]),
        ("warm", "busybox:1.36", None, []),
        ("extra", "alpine:3", None, []),
    ]


_APART = os.path.join(FIXTURES, "k8s", "runtime-apart")


def test_a_runtime_that_names_no_model_is_a_template_whose_service_gives_it():
    """corpus16 (rh-aiservices-bu/parasol-insurance): a ServingRuntime whose container starts vLLM's API server with
    no args leaves the model to the InferenceService (KServe appends its args, mounts its storageUri at
    /mnt/models). Linted alone it is a template with an unknown model that says so, not an input error (two such
    runtimes made the repository's lint exit 2)."""
    inv = load_inputs([os.path.join(_APART, "servingruntime.yaml")])
    [g] = inv.groups
    assert (g.kind, g.name, g.template, g.engine.model) == ("ServingRuntime", "vllm-cpu", True, UNKNOWN)
    assert g.model_unknown == ("the serving runtime names none: the InferenceService that uses it gives the model "
                               "(its args, its storageUri); lint the runtime with that InferenceService")


def test_a_runtime_that_names_no_namespace_is_the_one_its_service_names():
    """corpus16: the runtime names no namespace (parasol-insurance's kustomization puts every object in
    ic-shared-llm with a namespace transformer), its InferenceService names ic-shared-llm and the runtime by name:
    the service is read on that runtime (vLLM's CPU build, no GPU asked: no SW204), and the runtime is not linted
    alone beside it."""
    inv = load_inputs([_APART])
    got = [(g.kind, g.name, g.template, g.unknown_operator, g.main_container.image, g.engine.max_model_len)
           for g in inv.groups]
    assert got == [("InferenceService", "qwen", False, False,
                    "quay.io/rh-aiservices-bu/rhoai-lab-insurance-claim-vllm-cpu:v0.9.1", 4096)]
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code == "SW204"] == []


#: A Dynamo v1alpha1 graph kept as a template its deploy workflow fills with envsubst (corpus27): the worker's GPU
#: count is a placeholder.
DYNAMO_TEMPLATE = """apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: agg}
spec:
  services:
    VllmDecodeWorker:
      dynamoNamespace: agg
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: ${DECODE_GPUS}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0
          command: [/bin/sh, -c]
          args: ["python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B"]
"""


@pytest.mark.parametrize("count,gpus", [("${DECODE_GPUS}", "UNKNOWN"), ("'{{ .Values.gpus }}'", "UNKNOWN"),
                                        ('"2"', 2)])
def test_dynamo_gpu_count_written_as_a_placeholder_is_unknown_not_an_input_error(count, gpus):
    inv = load_kubernetes_text(DYNAMO_TEMPLATE.replace("${DECODE_GPUS}", count), "agg.yaml")
    assert [(g.name, show(g.gpus_per_pod)) for g in inv.groups] == [("agg/VllmDecodeWorker", gpus)]


def test_dynamo_gpu_count_that_is_no_number_nor_placeholder_stays_an_input_error():
    with pytest.raises(InputError, match=r"spec.services.VllmDecodeWorker.resources.limits.gpu: expected a whole "
                                         r"number, got 'two'"):
        load_kubernetes_text(DYNAMO_TEMPLATE.replace("${DECODE_GPUS}", "two"), "agg.yaml")


_DP_APP = """\
apiVersion: ray.io/v1
kind: RayService
metadata: {{name: dsv2-dp, namespace: ray}}
spec:
  serveConfigV2: |
    applications:
      - name: dp
        import_path: ray.serve.llm:build_dp_openai_app
        route_prefix: /
        args:
          llm_config:
            model_loading_config:
              model_id: dsv2-lite
              model_source: deepseek-ai/DeepSeek-V2-Lite-Chat
            engine_kwargs:
              tensor_parallel_size: 2
              data_parallel_size: {dp}
              enable_expert_parallel: true
{extra}            accelerator_type: H100
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {{}}
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray-llm:2.52.0-py311-cu128
    workerGroupSpecs:
      - groupName: gpu
        replicas: 1
        rayStartParams: {{}}
        template:
          spec:
            containers:
              - name: llm
                image: rayproject/ray-llm:2.52.0-py311-cu128
                resources:
                  limits: {{nvidia.com/gpu: "8"}}
"""


@pytest.mark.parametrize(("dp", "extra", "gpus", "replicas"), [
    ("4", "", 8, 1),  # four DP ranks of TP2 bundles: one DP group of 8 GPUs
    ("2", "            deployment_config: {num_replicas: 3}\n", 4, 3),  # num_replicas counts DP groups
    ("2", "            deployment_config: {autoscaling_config: {min_replicas: 2, max_replicas: 4}}\n", 4, 2),
    ("2", "            placement_group_config: {bundles: [{GPU: 1}, {GPU: 1}, {GPU: 1}]}\n", 6, 1),
    ("${DP}", "", UNKNOWN, 1),
])
def test_ray_serve_llm_data_parallel_app_holds_each_rank_bundles(dp, extra, gpus, replicas):
    """build_dp_openai_app (one LLMConfig under ``llm_config``) runs data_parallel_size Serve replicas, one a DP rank,
    each with its placement bundles; its num_replicas / autoscaling replicas are DP groups (ray
    serving_patterns/data_parallel/dp_server.py, DPServer.get_deployment_options). It was not read at all."""
    inv = load_kubernetes_text(_DP_APP.format(dp=dp, extra=extra), "dp.yaml")
    assert [(g.name, show(g.gpus_per_pod), g.replicas) for g in inv.groups] == [
        ("dsv2-dp/dsv2-lite", show(gpus), replicas)]


_PLAIN_APP = """\
apiVersion: ray.io/v1
kind: RayService
metadata: {{name: qwen, namespace: ray}}
spec:
  serveConfigV2: |
    applications:
      - name: llms
        import_path: ray.serve.llm:build_openai_app
        route_prefix: /
        args:
          llm_configs:
            - model_loading_config:
                model_id: qwen3-30b-a3b
                model_source: Qwen/Qwen3-30B-A3B
              engine_kwargs:
                tensor_parallel_size: 2
{dp}              accelerator_type: H100
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {{}}
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray-llm:2.52.0-py311-cu128
    workerGroupSpecs:
      - groupName: gpu
        replicas: 1
        rayStartParams: {{}}
        template:
          spec:
            containers:
              - name: llm
                image: rayproject/ray-llm:2.52.0-py311-cu128
                resources:
                  limits: {{nvidia.com/gpu: "8"}}
"""


@pytest.mark.parametrize(("dp", "gpus", "why"), [
    ("", 2, None),  # no data parallelism: TP × PP bundles
    ("                data_parallel_size: 1\n", 2, None),
    ("                data_parallel_size: 2\n", UNKNOWN, "with data_parallel_size 2"),
    ("                data_parallel_size: ${DP}\n", UNKNOWN, "with a data_parallel_size not known yet"),
])
def test_ray_serve_llm_plain_app_leaves_vllm_data_parallel_gpus_undecided(dp, gpus, why):
    """The plain app (build_openai_app, LLMServer) reserves TP × PP bundles and passes data_parallel_size to vLLM
    unchecked (ray engines/vllm/vllm_models.py, VLLMEngineConfig.from_llm_config, placement_bundles): vLLM starts the
    other DP ranks outside the bundles, so the replica's GPUs are undecided, with why, not TP × PP (engine24 counted
    2 against TP2 × DP2's four workers and SW204 blocked)."""
    inv = load_kubernetes_text(_PLAIN_APP.format(dp=dp), "plain.yaml")
    [g] = inv.groups
    assert show(g.gpus_per_pod) == show(gpus)
    if why is None:
        assert g.gpus_undecided is None
    else:
        assert g.gpus_undecided is not None and g.gpus_undecided[0] == (
            f"the GPUs a replica of the plain Ray Serve LLM app (build_openai_app) holds {why}")
        assert "outside those bundles" in g.gpus_undecided[1]


_BACKEND_SETTINGS = """---
apiVersion: v1
kind: ConfigMap
metadata: {{name: hf-settings, namespace: llm}}
data: {{backend: {backend}}}
"""


@pytest.mark.parametrize(("settings", "read"), [
    ("vllm", True),  # the ConfigMap of the inputs gives the value: vLLM, judged
    ("huggingface", False),  # the Transformers backend: no group, and nothing to say
    (None, None),  # the ConfigMap is not in the inputs: no group, and SW005 says which variable and where from
])
def test_kserve_hf_server_backend_from_a_configmap(settings, read):
    """mend35: ``--backend=$(BACKEND)`` with BACKEND a ``configMapKeyRef``: the ConfigMap of the inputs decides it;
    without it the backend is not known, and that is said (advisory, SW005), never a silent pass."""
    text = _HF_RUNTIME_BACKEND.format(runtime="vllm", isvc="$(BACKEND)").replace(
        "      storageUri:", "      env: [{name: BACKEND, valueFrom: {configMapKeyRef: {name: hf-settings, "
        "key: backend}}}]\n      storageUri:")
    if settings is not None:
        text += _BACKEND_SETTINGS.format(backend=settings)
    inv = load_kubernetes_text(text, "isvc.yaml")
    want = [("InferenceService", "llm", "llama3-8b", 21, "meta-llama/Meta-Llama-3-8B-Instruct", 1, 1, 1, 8192, 1,
             "nvidia.com/gpu", 1, 1, None)]
    assert groups(inv) == (want if read else [])
    if settings is not None:
        assert inv.launch_issues == []
        return
    [issue] = inv.launch_issues
    assert (issue.subject, issue.mentioned, issue.crash, issue.location.line) == (
        "InferenceService llm/llama3-8b", True, False, 32)
    assert issue.reason.startswith("container 'kserve-container': KServe's Hugging Face server is given `--backend "
                                   "$(BACKEND)` and `BACKEND` is key `backend` of the ConfigMap `hf-settings`, which "
                                   "is not in the inputs; ")
    [hit] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    assert (hit.level, hit.location.line) == ("advisory", 32)


def test_kserve_fills_its_placeholders_in_the_runtime_env_values():
    """KServe's ReplacePlaceholders executes the JSON of the whole merged container over the InferenceService's
    metadata, env values included (mend38): a label the service holds fills its env value, and an args' $(VAR) then
    expands to it; one it does not hold stays written, for SW003 to name."""
    runtime = (
        "apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: rt}\nspec:\n"
        "  containers:\n    - name: kserve-container\n      image: vllm/vllm-openai:v0.10.1\n"
        "      env: [{name: TP, value: '{{.Labels.tp}}'}, {name: NAME, value: 'svc-{{.Name}}'},\n"
        "            {name: MAX_LEN, value: '{{index .Annotations \"max-len\"}}'}]\n"
        "      args: [--model=/mnt/models, --tensor-parallel-size=$(TP), --max-model-len=$(MAX_LEN)]\n---\n")
    service = (
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\n"
        "metadata: {name: NAME, labels: {tp: '2'}, annotations: {max-len: '4096'}}\nspec:\n"
        "  predictor:\n    model:\n      modelFormat: {name: vLLM}\n      runtime: rt\n"
        "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n      resources: {limits: {nvidia.com/gpu: 2}}\n---\n")
    inv = load_kubernetes_text(runtime + service.replace("NAME", "filled", 1)
                               + service.replace("NAME", "bare", 1).replace(", labels: {tp: '2'}", ""), "isvc.yaml")
    got = {g.name: ({k: v for k, v in g.containers[0].env.items() if k in ("TP", "NAME", "MAX_LEN")},
                    g.engine.tensor_parallel_size, g.engine.max_model_len) for g in inv.groups}
    assert got["filled"] == ({"TP": "2", "NAME": "svc-filled", "MAX_LEN": "4096"}, 2, 4096)
    assert got["bare"][0] == {"TP": "{{.Labels.tp}}", "NAME": "svc-bare", "MAX_LEN": "4096"}
    assert got["bare"][2] == 4096
