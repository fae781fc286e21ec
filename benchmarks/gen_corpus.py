"""Generate a corpus of repositories in the shapes vLLM deployments really take, for ``bench_corpus.py``.

``gen_manifests.py`` writes one clean Deployment/StatefulSet/LeaderWorkerSet per file, for timing.
This corpus is for coverage: each repository mixes the ways people deploy vLLM and the files that
sit next to them, and the generator records, per file, how many vLLM workloads it holds, whether it
is deliberately broken and whether it is no input at all, so a script can count what the linter
recognised. The shapes (written for this project, in the forms the public docs describe):

- one platform per repository (EKS with managed node groups, EKS with Karpenter NodePools, GKE, an
  on-premises cluster), its workloads selecting GPUs by EKS instance type, Karpenter pool, GPU name or
  family, GKE accelerator (GPU and TPU), NVIDIA GPU Feature Discovery product, or a pinned hostname; a
  StatefulSet launching ``python3 -m vllm.entrypoints.openai.api_server``; a LeaderWorkerSet over
  two nodes started with ``sh -c``; args-only containers on ROCm and Gaudi images; ``vllm serve
  serve MODEL`` (the image's entrypoint already says ``vllm serve``);
- accelerators beyond NVIDIA, AMD and Gaudi (a platform of their own): Intel GPUs (gpu.intel.com/i915,
  xe), TPU7x (four chips, eight devices), AWS Neuron cores, Huawei Ascend, Rebellions ATOM, FuriosaAI
  RNGD, and a dynamic-resource-allocation ResourceClaimTemplate with the pod that names it;
- serving custom resources: KServe InferenceService (the Hugging Face runtime, and a vLLM
  ServingRuntime of the same file), KubeAI Model, KubeRay RayService (Ray Serve LLM
  ``llm_configs``) and RayCluster (``vllm serve`` on the head), Dynamo DynamoGraphDeployment;
- OME and kthena: an OME InferenceService with the ClusterServingRuntime and ClusterBaseModel it
  names (one workload, the runtime's pod with the service's replicas), a ClusterServingRuntime alone
  (a template, its ``runner``), a service whose runtime is in no input (SW005 names it); a kthena
  ModelServing whose role's entry pod and worker pod run one engine over two nodes (TP in a node,
  PP2 across), and one with prefill and decode roles (two workloads);
- operators no adapter knows, read by the generic reader (a RoleBasedGroup's roles) or, where the
  operator writes the command itself, named by SW005 (llmaz Playground, Kaito Workspace preset);
- ``helm template`` output with ``# Source:`` comments (ServiceAccount, ConfigMap, Service,
  Deployment, HorizontalPodAutoscaler), once with a Secret whose placeholder was never rendered and
  once with a ConfigMap that writes a key twice: one broken document each, the rest valid;
- a model given as a local path or an object-store URI (no catalog entry: the rules that need the
  model cannot decide), and an application Deployment that is not vLLM at all;
- files that are no input: a Helm chart (``Chart.yaml``, ``values.yaml``, an unrendered
  ``templates/deployment.yaml``), ``kustomization.yaml``, ``Pulumi.yaml``, another project's
  ``Pulumi.prod.yaml``, ``PulumiPolicy.yaml``, ``package.json``, ``docker-compose.yml``,
  ``.gitlab-ci.yml``.

The output is deterministic for a seed. The repositories go to ``OUT_DIR/repos``;
``OUT_DIR/corpus.json`` lists every file (relative to ``repos``) with ``shape``, ``workloads`` (vLLM
workloads it holds), ``broken`` (documents that are input errors), ``input`` (False for files
that are no input) and ``unread`` (workloads no command in the file describes, which SW005 names).

Usage::

    python benchmarks/gen_corpus.py OUT_DIR [--repos 60] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import textwrap
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import yaml

# Real Hugging Face ids (all in shardwise's catalog) and the GPUs each fits at TP1 in bf16 or as published.
SMALL = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "mistralai/Mistral-7B-Instruct-v0.3",
         "Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "meta-llama/Llama-3.2-3B-Instruct",
         "microsoft/Phi-4-mini-instruct", "openai/gpt-oss-20b", "facebook/opt-125m"]
LARGE = ["meta-llama/Llama-3.1-70B-Instruct", "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic",
         "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "google/gemma-3-27b-it",
         "Qwen/Qwen2.5-Coder-32B-Instruct", "openai/gpt-oss-120b", "Qwen/Qwen3-30B-A3B"]
EKS = {"g5.xlarge": 1, "g5.12xlarge": 4, "g6e.xlarge": 1, "g6e.12xlarge": 4, "p4d.24xlarge": 8, "p5.48xlarge": 8}
GKE_GPUS = {"nvidia-l4": 1, "nvidia-tesla-a100": 8, "nvidia-a100-80gb": 8, "nvidia-h100-80gb": 8}
GFD_PRODUCTS = {"NVIDIA-H100-80GB-HBM3": 8, "NVIDIA-A100-SXM4-80GB": 8, "NVIDIA-L40S": 4, "NVIDIA-A10G": 4}
KARPENTER_GPUS = {"l40s": "g6e", "a10g": "g5", "h100": "p5", "l4": "g6"}
IMAGE = "vllm/vllm-openai:v0.11.0"
NAMESPACES = ("serving", "llm", "inference", "ml-platform")


@dataclass
class Entry:
    """What one generated file is (the ground truth the benchmark compares against)."""

    file: str
    shape: str
    workloads: int  # vLLM workloads it holds
    broken: int = 0  # documents that are input errors
    input: bool = True  # False: not a Kubernetes manifest, Pulumi JSON or shardwise stack
    unread: int = 0  # of the workloads, those no command of which is in the file (SW005 names each)


def dump(*docs: dict[str, Any], sources: list[str] | None = None) -> str:
    """Documents as a multi-document YAML file, each after ``# Source:`` when ``sources`` are given."""
    parts = []
    for i, doc in enumerate(docs):
        head = f"---\n# Source: {sources[i]}\n" if sources else ("---\n" if i else "")
        parts.append(head + yaml.safe_dump(doc, sort_keys=False, width=120))
    return "".join(parts)


def container(model: str, tp: int, gpus: int, rng: random.Random, resource: str = "nvidia.com/gpu",
              image: str = IMAGE, style: str = "serve") -> dict[str, Any]:
    flags = [f"--tensor-parallel-size={tp}", f"--max-model-len={rng.choice([4096, 8192, 16384, 32768])}",
             f"--gpu-memory-utilization={rng.choice([0.85, 0.9, 0.92])}", "--port=8000"]
    if rng.random() < 0.5:
        flags.append(f"--max-num-seqs={rng.choice([16, 32, 64, 128])}")
    c: dict[str, Any] = {"name": "vllm", "image": image}
    if style == "serve":
        c["command"] = ["vllm", "serve", model]
        c["args"] = flags
    elif style == "api_server":
        c["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        c["args"] = [f"--model={model}", *flags]
    else:  # args only: the image's entrypoint starts the server
        c["args"] = ["--model", model, *flags]
    c["ports"] = [{"name": "http", "containerPort": 8000}]
    c["env"] = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}]
    c["resources"] = {"limits": {resource: gpus, "memory": "48Gi"}, "requests": {resource: gpus, "cpu": "4"}}
    c["startupProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 120, "periodSeconds": 10}
    c["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5}
    c["volumeMounts"] = [{"name": "shm", "mountPath": "/dev/shm"}]
    return c


def pod(c: dict[str, Any], selector: dict[str, str], app: str, toleration: str | None = "nvidia.com/gpu"
        ) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeSelector": selector, "containers": [c],
                            "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]}
    if toleration:
        spec["tolerations"] = [{"key": toleration, "operator": "Exists", "effect": "NoSchedule"}]
    return {"metadata": {"labels": {"app": app}}, "spec": spec}


def deployment(name: str, ns: str, template: dict[str, Any], replicas: int = 2, kind: str = "Deployment"
               ) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template}}


def service(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 8000, "targetPort": 8000}]}}


def _fit(rng: random.Random, per_node: int) -> tuple[str, int]:
    """A model and a TP that a node with ``per_node`` GPUs can hold."""
    if per_node >= 4 and rng.random() < 0.5:
        return rng.choice(LARGE), rng.choice([t for t in (2, 4, 8) if t <= per_node])
    return rng.choice(SMALL), 1


# --------------------------------------------------------------------------------------- the shapes


def eks(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    itype = rng.choice(list(EKS))
    model, tp = _fit(rng, EKS[itype])
    c = container(model, tp, tp, rng, style=rng.choice(["serve", "args"]))
    return dump(deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": itype}, name)),
                service(name, ns)), 1, 0


def gke(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    accel = rng.choice(list(GKE_GPUS))
    model, tp = _fit(rng, GKE_GPUS[accel])
    c = container(model, tp, tp, rng)
    sel = {"cloud.google.com/gke-accelerator": accel, "cloud.google.com/gke-accelerator-count": str(GKE_GPUS[accel])}
    return dump(deployment(name, ns, pod(c, sel, name))), 1, 0


def gke_tpu(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL[:4]), 8, 8, rng, resource="google.com/tpu", image="vllm/vllm-tpu:nightly")
    sel = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x4"}
    return dump(deployment(name, ns, pod(c, sel, name, toleration="google.com/tpu"), replicas=1)), 1, 0


def karpenter_pools(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """The repository's Karpenter NodePools, one per GPU family, and their EC2NodeClass."""
    pools = [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": f"gpu-{gpu}"},
              "spec": {"template": {
                  "metadata": {"labels": {"karpenter.k8s.aws/instance-gpu-name": gpu}},
                  "spec": {
                      "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                      "requirements": [
                          {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": [family]},
                          {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
                      "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}}}}
             for gpu, family in KARPENTER_GPUS.items()]
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                           "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1}}}
    return dump(*pools, node_class), 0, 0


def karpenter(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """A workload that one of the repository's NodePools places (by pool name, GPU name or family)."""
    gpu = rng.choice(list(KARPENTER_GPUS))
    c = container(rng.choice(SMALL), 1, 1, rng)
    sel = rng.choice([{"karpenter.sh/nodepool": f"gpu-{gpu}"}, {"karpenter.k8s.aws/instance-gpu-name": gpu},
                      {"karpenter.k8s.aws/instance-family": KARPENTER_GPUS[gpu]}])
    return dump(deployment(name, ns, pod(c, sel, name))), 1, 0


def gfd(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    product = rng.choice(list(GFD_PRODUCTS))
    model, tp = _fit(rng, GFD_PRODUCTS[product])
    c = container(model, tp, tp, rng)
    return dump(deployment(name, ns, pod(c, {"nvidia.com/gpu.product": product}, name))), 1, 0


def statefulset(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL), 1, 1, rng, style="api_server")
    sts = deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": "g6e.xlarge"}, name), kind="StatefulSet")
    sts["spec"]["serviceName"] = name
    return dump(sts), 1, 0


def lws(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = rng.choice(["meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen2.5-Coder-32B-Instruct"])
    sel = {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    leader = container(model, 8, 8, rng)
    leader.pop("command")
    leader["command"] = ["sh", "-c", f"ray start --head --port=6379 && vllm serve {model} --tensor-parallel-size 8 "
                                     "--pipeline-parallel-size 2 --distributed-executor-backend ray"]
    leader.pop("args")
    worker = {"name": "vllm-worker", "image": IMAGE,
              "command": ["sh", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"],
              "resources": {"limits": {"nvidia.com/gpu": 8}}}
    obj = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"replicas": 1, "leaderWorkerTemplate": {
               "size": 2, "restartPolicy": "RecreateGroupOnPodRestart",
               "leaderTemplate": pod(leader, sel, name), "workerTemplate": pod(worker, sel, name)}}}
    return dump(obj), 1, 0


def rocm(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL), 1, 1, rng, resource="amd.com/gpu", image="rocm/vllm:latest", style="args")
    return dump(deployment(name, ns, pod(c, {"amd.com/gpu.product-name": "AMD_Instinct_MI300X_OAM"}, name,
                                         toleration="amd.com/gpu"))), 1, 0


def gaudi(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL[:4]), 1, 1, rng, resource="habana.ai/gaudi", image="opea/vllm-gaudi:latest",
                  style="args")
    return dump(deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": "dl1.24xlarge"}, name,
                                         toleration="habana.ai/gaudi"))), 1, 0


def serve_serve(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL), 1, 1, rng, style="args")
    c["command"] = ["vllm", "serve"]
    c["args"] = ["serve", *c["args"][1:]]  # `vllm serve serve MODEL ...`
    return dump(deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": "g6e.xlarge"}, name))), 1, 0


def hostname(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    c = container(rng.choice(SMALL), 1, 1, rng)
    return dump(deployment(name, ns, pod(c, {"kubernetes.io/hostname": f"gpu-node-{rng.randint(1, 40):02d}"}, name),
                           replicas=1)), 1, 0


def local_model(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    where = rng.choice(["/models/llama-3.1-8b-instruct", "s3://acme-models/llama-3.1-8b-instruct",
                        "/mnt/cache/qwen2.5-7b-instruct-ft"])
    c = container(where, 1, 1, rng, style="args")
    return dump(deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": "g6e.xlarge"}, name))), 1, 0


def not_vllm(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    app = {"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}
    return dump(deployment(name, ns, {"metadata": {"labels": {"app": name}}, "spec": {"containers": [app]}}),
                service(name, ns)), 0, 0


def kserve_hf(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = rng.choice(SMALL[:5])
    isvc = {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"predictor": {
                "nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"},
                "model": {"modelFormat": {"name": "huggingface"},
                          "args": [f"--model_name={name}", f"--model_id={model}", "--max-model-len=8192"],
                          "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"},
                                        "requests": {"nvidia.com/gpu": "1", "cpu": "4"}}}}}}
    return dump(isvc), 1, 0


def kserve_runtime(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    runtime = {"apiVersion": "serving.kserve.io/v1alpha1", "kind": "ServingRuntime",
               "metadata": {"name": "vllm-runtime", "namespace": ns},
               "spec": {"supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
                        "containers": [{"name": "kserve-container", "image": IMAGE,
                                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                                        "args": ["--port=8080", "--model=/mnt/models", "--max-model-len=8192"],
                                        "ports": [{"containerPort": 8080, "protocol": "TCP"}]}]}}
    isvc = {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"predictor": {
                "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
                "model": {"modelFormat": {"name": "vLLM"}, "runtime": "vllm-runtime",
                          "storageUri": f"hf://{rng.choice(SMALL[:5])}",
                          "resources": {"limits": {"nvidia.com/gpu": "1"}}}}}}
    return dump(runtime, isvc), 1, 0


def kubeai(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = {"apiVersion": "kubeai.org/v1", "kind": "Model", "metadata": {"name": name, "namespace": ns},
             "spec": {"features": ["TextGeneration"], "url": f"hf://{rng.choice(SMALL[:6])}", "engine": "VLLM",
                      "resourceProfile": rng.choice(["nvidia-gpu-l4:1", "nvidia-gpu-h100:1", "nvidia-gpu-l40s:1"]),
                      "args": ["--max-model-len=8192", "--max-num-seqs=32"], "minReplicas": 1}}
    return dump(model), 1, 0


def rayservice(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = rng.choice(SMALL[:5])
    serve = textwrap.dedent(f"""\
        applications:
          - name: llm
            import_path: ray.serve.llm:build_openai_app
            route_prefix: /
            args:
              llm_configs:
                - model_loading_config:
                    model_id: {model}
                  accelerator_type: L4
                  deployment_config:
                    autoscaling_config: {{min_replicas: 1, max_replicas: 2}}
                  engine_kwargs:
                    tensor_parallel_size: 1
                    max_model_len: 8192
        """)
    head = {"name": "ray-head", "image": "rayproject/ray-llm:2.46.0-py311-cu124",
            "resources": {"limits": {"cpu": "4", "memory": "16Gi"}}}
    worker = {"name": "ray-worker", "image": "rayproject/ray-llm:2.46.0-py311-cu124",
              "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"}}}
    obj = {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": name, "namespace": ns},
           "spec": {"serveConfigV2": serve, "rayClusterConfig": {
               "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [head]}}},
               "workerGroupSpecs": [{"groupName": "gpu", "replicas": 1, "minReplicas": 1, "maxReplicas": 2,
                                     "rayStartParams": {}, "template": {"spec": {
                                         "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                                         "containers": [worker]}}}]}}}
    return dump(obj), 1, 0


def raycluster(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = rng.choice(SMALL[:5])
    head = {"name": "ray-head", "image": IMAGE,
            "command": ["/bin/bash", "-c", f"ray start --head --block & sleep 10 && vllm serve {model} "
                                           "--tensor-parallel-size 1 --max-model-len 8192"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    obj = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": name, "namespace": ns},
           "spec": {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": {
               "nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"}, "containers": [head]}}}}}
    return dump(obj), 1, 0


def dynamo(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    model = rng.choice(SMALL[:5])
    obj = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"services": {
               "Frontend": {"componentType": "frontend", "replicas": 1, "extraPodSpec": {"mainContainer": {
                   "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0",
                   "command": ["python3", "-m", "dynamo.frontend"]}}},
               "VllmDecodeWorker": {"componentType": "worker", "replicas": 1,
                                    "resources": {"limits": {"gpu": "1"}},
                                    "extraPodSpec": {
                                        "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
                                        "mainContainer": {
                                            "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0",
                                            "command": ["python3", "-m", "dynamo.vllm"],
                                            "args": ["--model", model, "--max-model-len", "8192"]}}}}}}
    return dump(obj), 1, 0


def ome_runtime(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """OME: a ClusterServingRuntime whose engine is one ``runner`` container (a ``bash -lc --`` script)."""
    model, tp = _fit(rng, 1)
    script = (f"python3 -m vllm.entrypoints.openai.api_server --port=8080 --model={model} "
              f"--tensor-parallel-size={tp} --max-model-len=16384")
    obj = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": name},
           "spec": {"supportedModelFormats": [{"modelFormat": {"name": "safetensors"}, "autoSelect": True}],
                    "engineConfig": {
                        "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
                        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                        "runner": {"name": "ome-container", "image": IMAGE, "command": ["/bin/bash", "-lc", "--"],
                                   "args": [script], "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                                   "resources": {"limits": {"nvidia.com/gpu": tp}}}}}}
    return dump(obj), 1, 0


def ome_service(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """OME: an InferenceService, the ClusterServingRuntime it runs on and the ClusterBaseModel it serves; the
    runtime's runner serves ``$(MODEL_PATH)``, the service sets the replicas and the GPU nodes."""
    model, tp = _fit(rng, 8)
    base = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": f"{name}-model"},
            "spec": {"modelFormat": {"name": "safetensors"}, "storage": {"storageUri": f"hf://{model}"}}}
    runtime = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": f"{name}-rt"},
               "spec": {"supportedModelFormats": [{"modelFormat": {"name": "safetensors"}, "autoSelect": True}],
                        "engineConfig": {
                            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                            "runner": {"name": "ome-container", "image": IMAGE, "command": ["vllm", "serve"],
                                       "args": ["$(MODEL_PATH)", f"--tensor-parallel-size={tp}",
                                                "--max-model-len=16384", "--port=8080"],
                                       "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                                       "resources": {"limits": {"nvidia.com/gpu": tp}}}}}}
    svc = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": {"name": name, "namespace": ns},
           "spec": {"model": {"name": f"{name}-model"}, "runtime": {"name": f"{name}-rt"},
                    "engine": {"minReplicas": rng.choice([1, 2]), "maxReplicas": 4,
                               "nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"}}}}
    return dump(base, runtime, svc), 1, 0


def ome_unknown_runtime(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """An OME InferenceService whose runtime is in no input: SW005 names the runtime."""
    svc = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": {"name": name, "namespace": ns},
           "spec": {"model": {"name": "llama-3-3-70b-instruct"}, "runtime": {"name": "vllm-llama-3-3-70b-instruct"},
                    "engine": {"minReplicas": 1, "maxReplicas": 3}}}
    return dump(svc), 1, 0


def kthena(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """kthena ModelServing: a role's entry pod runs the server (Ray head), its worker pod joins it: one engine,
    TP inside each node, PP2 across the two."""
    model, tp = _fit(rng, 8)
    entry = {"name": "leader", "image": IMAGE, "command": ["sh", "-c", f"ray start --head; vllm serve {model} "
                                                                      f"--tensor-parallel-size {tp} "
                                                                      "--pipeline-parallel-size 2 --port 8080"],
             "resources": {"limits": {"nvidia.com/gpu": tp}}}
    worker = {"name": "worker", "image": IMAGE, "command": ["sh", "-c", "ray start --address=$(ENTRY_ADDRESS) --block"],
              "resources": {"limits": {"nvidia.com/gpu": tp}}}
    selector = {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    obj = {"apiVersion": "workload.serving.volcano.sh/v1alpha1", "kind": "ModelServing",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"replicas": 1, "template": {"roles": [{
               "name": "decode", "replicas": 1,
               "entryTemplate": {"spec": {"nodeSelector": selector, "containers": [entry]}},
               "workerReplicas": 1, "workerTemplate": {"spec": {"nodeSelector": selector, "containers": [worker]}}}]}}}
    return dump(obj), 1, 0


def kthena_pd(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """kthena ModelServing with prefill and decode roles, each its own engine of one pod."""
    model = rng.choice(SMALL[:5])
    roles = []
    for role, replicas in (("prefill", 1), ("decode", rng.choice([1, 2, 3]))):
        c = container(model, 1, 1, rng)
        roles.append({"name": role, "replicas": replicas, "workerReplicas": 0,
                      "entryTemplate": pod(c, {"node.kubernetes.io/instance-type": "g6e.xlarge"}, name)})
    obj = {"apiVersion": "workload.serving.volcano.sh/v1alpha1", "kind": "ModelServing",
           "metadata": {"name": name, "namespace": ns}, "spec": {"replicas": 1, "template": {"roles": roles}}}
    return dump(obj), 2, 0


def rolebasedgroup(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """A RoleBasedGroup with a router role and prefill and decode roles that run vLLM."""
    model, tp = _fit(rng, 4)
    roles: list[dict[str, Any]] = [{"name": "router", "replicas": 1, "template": {"spec": {"containers": [
        {"name": "router", "image": "ghcr.io/example/router:1.2.0"}]}}}]
    for role in ("prefill", "decode"):
        roles.append({"name": role, "replicas": rng.choice([1, 2]),
                      "template": pod(container(model, tp, tp, rng), {"node.kubernetes.io/instance-type":
                                                                      "g6e.12xlarge"}, name)})
    obj = {"apiVersion": "workloads.x-k8s.io/v1alpha1", "kind": "RoleBasedGroup",
           "metadata": {"name": name, "namespace": ns}, "spec": {"roles": roles}}
    return dump(obj), 2, 0


def llmaz(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """llmaz OpenModel and Playground: the controller builds the pod; the Playground passes vLLM flags."""
    model = rng.choice(SMALL[:5])
    docs = [{"apiVersion": "llmaz.io/v1alpha1", "kind": "OpenModel", "metadata": {"name": name},
             "spec": {"familyName": "llm", "source": {"modelHub": {"modelID": model}},
                      "inferenceConfig": {"flavors": [{"name": "l4", "limits": {"nvidia.com/gpu": 1}}]}}},
            {"apiVersion": "inference.llmaz.io/v1alpha1", "kind": "Playground", "metadata": {"name": name,
                                                                                           "namespace": ns},
             "spec": {"replicas": 1, "modelClaim": {"modelName": name},
                      "backendRuntimeConfig": {"backendName": "vllm",
                                               "args": ["--tensor-parallel-size", "1", "--max-model-len", "8192"]}}}]
    return dump(*docs), 1, 0


def kaito(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """A Kaito Workspace with a preset: the operator writes the vLLM command."""
    obj = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "metadata": {"name": name, "namespace": ns},
           "resource": {"instanceType": rng.choice(["Standard_NC24ads_A100_v4", "Standard_NC96ads_A100_v4"]),
                        "labelSelector": {"matchLabels": {"apps": name}}},
           "inference": {"preset": {"name": rng.choice(["phi-4-mini-instruct", "llama-3.1-8b-instruct"])}}}
    return dump(obj), 1, 0


#: Shapes whose workloads no command in the file describes: SW005 names each (Entry.unread).
UNREAD = frozenset({"llmaz-playground", "kaito-workspace", "ome-unknown-runtime"})


def _helm_docs(rng: random.Random, name: str, ns: str) -> tuple[list[dict[str, Any]], list[str]]:
    chart = "llm-serving"
    model, tp = _fit(rng, 4)
    c = container(model, tp, tp, rng)
    deploy = deployment(name, ns, pod(c, {"node.kubernetes.io/instance-type": "g6e.12xlarge"}, name))
    deploy["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": f"{chart}-0.3.1"}
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                    "minReplicas": 2, "maxReplicas": 6,
                    "metrics": [{"type": "Pods", "pods": {"metric": {"name": "vllm:num_requests_waiting"},
                                                          "target": {"type": "AverageValue", "averageValue": "5"}}}]}}
    docs = [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-config", "namespace": ns},
             "data": {"chat-template.jinja": "{{ messages }}"}},
            service(name, ns), deploy, hpa]
    sources = [f"{chart}/templates/{t}.yaml" for t in ("serviceaccount", "configmap", "service", "deployment", "hpa")]
    return docs, sources


def helm(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    docs, sources = _helm_docs(rng, name, ns)
    return dump(*docs, sources=sources), 1, 0


def helm_broken_secret(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    docs, sources = _helm_docs(rng, name, ns)
    secret = (f"---\n# Source: llm-serving/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n"
              f"  name: {name}-hf\n  namespace: {ns}\nstringData:\n  token: {{{{ .Values.hf.token }}}}\n")
    return secret + dump(*docs, sources=sources), 1, 1


def helm_duplicate_key(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    docs, sources = _helm_docs(rng, name, ns)
    cm = (f"---\n# Source: llm-serving/templates/env.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
          f"  name: {name}-env\n  namespace: {ns}\ndata:\n  VLLM_LOGGING_LEVEL: INFO\n  VLLM_LOGGING_LEVEL: DEBUG\n")
    return dump(*docs, sources=sources) + cm, 1, 1


SHAPES: dict[str, Callable[[random.Random, str, str], tuple[str, int, int]]] = {
    "eks-instance-type": eks, "gke-accelerator": gke, "gke-tpu": gke_tpu, "karpenter": karpenter,
    "karpenter-nodepools": karpenter_pools,
    "gpu-feature-discovery": gfd, "statefulset-api-server": statefulset, "leaderworkerset": lws,
    "rocm-args-only": rocm, "gaudi-args-only": gaudi, "vllm-serve-serve": serve_serve, "hostname-pinned": hostname,
    "local-model-path": local_model, "not-vllm": not_vllm, "kserve-huggingface": kserve_hf,
    "kserve-servingruntime": kserve_runtime, "kubeai-model": kubeai, "rayservice-serve-llm": rayservice,
    "raycluster-vllm-serve": raycluster, "dynamo-graph": dynamo, "helm-output": helm,
    "helm-output-broken-secret": helm_broken_secret, "helm-output-duplicate-key": helm_duplicate_key,
    "ome-runtime": ome_runtime, "ome-inferenceservice": ome_service, "ome-unknown-runtime": ome_unknown_runtime,
    "kthena-modelserving": kthena, "kthena-prefill-decode": kthena_pd, "rolebasedgroup": rolebasedgroup,
    "llmaz-playground": llmaz, "kaito-workspace": kaito,
}

#: A repository deploys to one kind of platform; these are the shapes each holds (Helm output, a model
#: by path and an application everywhere; a broken Helm output in some).
COMMON = ["helm-output", "local-model-path", "not-vllm"]
BROKEN = ["helm-output-broken-secret", "helm-output-duplicate-key"]
PLATFORMS: dict[str, list[str]] = {
    "eks": ["eks-instance-type", "statefulset-api-server", "leaderworkerset", "vllm-serve-serve", *COMMON],
    "eks-karpenter": ["karpenter", "karpenter", "karpenter", *COMMON],
    "gke": ["gke-accelerator", "gke-tpu", "rayservice-serve-llm", "kubeai-model", *COMMON],
    "on-prem": ["gpu-feature-discovery", "hostname-pinned", "rocm-args-only", "gaudi-args-only", "dynamo-graph",
                "kserve-huggingface", "kserve-servingruntime", "raycluster-vllm-serve", *COMMON],
    # OME and kthena, and operators beyond the adapters' list: read by the generic reader, or named by SW005
    "operators": ["ome-runtime", "ome-inferenceservice", "ome-unknown-runtime", "kthena-modelserving",
                  "kthena-prefill-decode", "rolebasedgroup", "llmaz-playground", "kaito-workspace", *COMMON],
}

# ------------------------------------------------------------- accelerators beyond NVIDIA, AMD and Gaudi
# One repository platform of its own: each shape requests another family of the vendor table
# (rules/catalog/data/accelerators.json) in the shape its device plugin or DRA driver publishes.


def _accel(rng: random.Random, name: str, ns: str, resource: str, image: str, selector: dict[str, str],
           tp: int, units: int, model: str | None = None) -> dict[str, Any]:
    c = container(model or rng.choice(SMALL[:4]), tp, units, rng, resource=resource, image=image)
    return deployment(name, ns, pod(c, selector, name, toleration=resource), replicas=1)


def intel_xpu(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    res = rng.choice(["gpu.intel.com/i915", "gpu.intel.com/xe"])
    return dump(_accel(rng, name, ns, res, "intel/vllm:0.10.2-xpu", {"intel.feature.node.kubernetes.io/gpu": "true"},
                       1, 1)), 1, 0


def tpu_v7x(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """An Ironwood host: four chips, eight devices (TP 8 on google.com/tpu: 4)."""
    sel = {"cloud.google.com/gke-tpu-accelerator": "tpu7x", "cloud.google.com/gke-tpu-topology": "2x2x1"}
    return dump(_accel(rng, name, ns, "google.com/tpu", "vllm/vllm-tpu:nightly", sel, 8, 4,
                       model="meta-llama/Llama-3.1-70B-Instruct")), 1, 0


def neuron(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    return dump(_accel(rng, name, ns, "aws.amazon.com/neuroncore",
                       "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1",
                       {"node.kubernetes.io/instance-type": "inf2.8xlarge"}, 2, 2)), 1, 0


def ascend(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    return dump(_accel(rng, name, ns, "huawei.com/Ascend910", "quay.io/ascend/vllm-ascend:v0.10.0rc1",
                       {"accelerator": "huawei-Ascend910"}, 2, 2)), 1, 0


def rebellions(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """vllm-rbln: the compiler splits the model over the ATOMs, TP stays 1."""
    d = _accel(rng, name, ns, "rebellions.ai/ATOM", "rebellions/vllm-rbln:v0.9.2", {"rebellions.ai/npu": "atom"},
               1, 4)
    d["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "VLLM_RBLN_TP_SIZE", "value": "4"})
    return dump(d), 1, 0


def furiosa(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    return dump(_accel(rng, name, ns, "furiosa.ai/rngd", "furiosaai/furiosa-llm:2025.3.0",
                       {"furiosa.ai/npu.family": "rngd"}, 1, 1)), 1, 0


def dra_claim(rng: random.Random, name: str, ns: str) -> tuple[str, int, int]:
    """Dynamic resource allocation: a ResourceClaimTemplate of two GPUs and the pod that names it."""
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": f"{name}-gpus", "namespace": ns},
                "spec": {"spec": {"devices": {"requests": [
                    {"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}]}}}}
    c = container(rng.choice(SMALL[:4]), 2, 2, rng)
    c["resources"] = {"claims": [{"name": "gpus"}], "limits": {"memory": "48Gi"}}
    p = pod(c, {"node.kubernetes.io/instance-type": "g6e.12xlarge"}, name)
    p["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": f"{name}-gpus"}]
    return dump(template, deployment(name, ns, p, replicas=1)), 1, 0


ACCELERATOR_SHAPES: dict[str, Callable[[random.Random, str, str], tuple[str, int, int]]] = {
    "intel-xpu": intel_xpu, "tpu-v7x": tpu_v7x, "aws-neuron": neuron, "huawei-ascend": ascend,
    "rebellions-atom": rebellions, "furiosa-rngd": furiosa, "dra-resource-claim": dra_claim,
}
SHAPES.update(ACCELERATOR_SHAPES)
PLATFORMS["accelerators"] = [*ACCELERATOR_SHAPES, *COMMON]


# Files that are no input, as a repository holds them (path -> text).
NOT_INPUTS = {
    "charts/llm-serving/Chart.yaml": "apiVersion: v2\nname: llm-serving\nversion: 0.3.1\nappVersion: v0.11.0\n",
    "charts/llm-serving/values.yaml": "replicaCount: 2\nmodel: meta-llama/Llama-3.1-8B-Instruct\n"
                                      "resources:\n  limits: {nvidia.com/gpu: 1}\n",
    "charts/llm-serving/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                                    "  name: {{ include \"llm-serving.fullname\" . }}\nspec:\n"
                                                    "  replicas: {{ .Values.replicaCount }}\n",
    "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deploy/]\n",
    "Pulumi.yaml": "name: gpu-platform\nruntime: python\ndescription: GPU node pools\n",
    "Pulumi.prod.yaml": "config:\n  aws:region: us-east-1\n  gpu-platform:environment: production\n",
    "PulumiPolicy.yaml": "runtime: python\ndescription: organisation policies\n",
    "package.json": '{"name": "gpu-platform", "version": "1.0.0", "devDependencies": {"@pulumi/pulumi": "^3.130.0"}}\n',
    "docker-compose.yml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    ports: ['8000:8000']\n",
    ".gitlab-ci.yml": "stages: [lint]\nlint:\n  stage: lint\n  script: [shardwise lint deploy/]\n",
}


def generate(out_dir: str, repos: int = 60, seed: int = 0) -> list[Entry]:
    """Write ``repos`` repositories under ``out_dir/repos`` (emptied first) and ``out_dir/corpus.json``;
    return the entries."""
    rng = random.Random(seed)
    root = os.path.join(out_dir, "repos")
    if os.path.isdir(root):
        shutil.rmtree(root)
    entries: list[Entry] = []
    platforms = list(PLATFORMS)
    for r in range(repos):
        platform = platforms[r % len(platforms)]
        repo = f"repo-{r:03d}-{platform}"
        picks = [*PLATFORMS[platform], *rng.sample(PLATFORMS[platform], 2)]
        if platform == "eks-karpenter":
            picks.insert(0, "karpenter-nodepools")
        if rng.random() < 0.4:
            picks.append(rng.choice(BROKEN))
        for i, shape in enumerate(picks):
            name = f"{shape.split('-')[0]}-{r:03d}-{i:02d}"
            text, workloads, broken = SHAPES[shape](rng, name, rng.choice(NAMESPACES))
            rel = f"{repo}/deploy/{i:02d}-{shape}.yaml"
            _write(root, rel, text)
            entries.append(Entry(rel, shape, workloads, broken, unread=workloads if shape in UNREAD else 0))
        has_chart = rng.random() < 0.7  # a chart comes whole: Chart.yaml, values.yaml, templates/
        for rel, text in NOT_INPUTS.items():
            if rel.startswith("charts/") and has_chart or not rel.startswith("charts/") and rng.random() < 0.7:
                _write(root, f"{repo}/{rel}", text)
                entries.append(Entry(f"{repo}/{rel}", "not-an-input", 0, 0, input=False))
    with open(os.path.join(out_dir, "corpus.json"), "w", encoding="utf-8") as fh:
        json.dump([asdict(e) for e in entries], fh, indent=1)
    return entries


def _write(out_dir: str, rel: str, text: str) -> None:
    path = os.path.join(out_dir, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--repos", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    entries = generate(args.out_dir, args.repos, args.seed)
    print(f"wrote {len(entries)} files ({sum(e.workloads for e in entries)} vLLM workloads) to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
