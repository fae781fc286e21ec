"""SageMaker HyperPod ``InferenceEndpointConfig``: the operator runs ``spec.worker`` on nodes of ``spec.instanceType``.

The CRD (aws/sagemaker-hyperpod-cli, helm_chart/HyperPodHelmChart/charts/inference-operator/config/crd/
inference.sagemaker.aws.amazon.com_inferenceendpointconfigs.yaml at a5d2a08) describes ``instanceType`` as the
"Instance Type to deploy the model on", a SageMaker name (``^ml\\..*``); HyperPod's EKS nodes carry that name as their
``node.kubernetes.io/instance-type``. The fixture has the shape of the chart's samples and of
aws-samples/sagemaker-genai-hosting-examples' HyperPod deployments (a ``worker`` container with vLLM's args).
"""

from __future__ import annotations

import textwrap

from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.model import UNKNOWN

ENDPOINT = textwrap.dedent("""\
    apiVersion: inference.sagemaker.aws.amazon.com/v1
    kind: InferenceEndpointConfig
    metadata:
      name: qwen
      namespace: ns-team-a
    spec:
      modelName: qwen
      instanceType: {instance}
      invocationEndpoint: v1/chat/completions
      replicas: 1
      modelSourceConfig:
        modelSourceType: huggingface
        huggingFaceModel:
          modelId: Qwen/Qwen2.5-7B-Instruct
      worker:
        image: vllm/vllm-openai:v0.10.1
        modelInvocationPort:
          containerPort: 8000
          name: http
        resources:
          limits:
            nvidia.com/gpu: {gpus}
          requests:
            nvidia.com/gpu: {gpus}
        args:
          - "--model"
          - "Qwen/Qwen2.5-7B-Instruct"
          - "--tensor-parallel-size"
          - "{gpus}"
          - "--max-model-len"
          - "8192"
    """)


def _group(instance: str, gpus: int = 1):
    inv = load_kubernetes_text(ENDPOINT.format(instance=instance, gpus=gpus), "endpoint.yaml")
    assert [g.name for g in inv.groups] == ["qwen"]
    return inv.groups[0]


def test_the_worker_lands_on_the_instance_type_it_names():
    g = _group("ml.g5.8xlarge")
    assert g.node_selector == {"node.kubernetes.io/instance-type": "ml.g5.8xlarge"}
    assert g.gpus_per_pod == 1
    # ml.g5.8xlarge is g5.8xlarge: one A10G (AWS's g5 table; SageMaker's ml.g5.8xlarge lists 1 GPU, 24 GB)
    assert (g.pool.instance_type, g.pool.gpu.name, g.pool.gpus_per_node, g.pool.gpu_memory_gib) == (
        "ml.g5.8xlarge", "A10G", 1, 22.06)


def test_eight_b300_of_a_p6_b300():
    g = _group("ml.p6-b300.48xlarge", gpus=8)
    assert (g.pool.gpu.name, g.pool.gpus_per_node, g.pool.interconnect) == ("B300", 8, "nvswitch")
    assert g.engine.tensor_parallel_size == 8


def test_an_instance_type_the_catalog_does_not_hold_names_no_gpu_and_a_placeholder_is_unknown():
    g = _group("ml.p9.48xlarge")
    assert g.node_selector == {"node.kubernetes.io/instance-type": "ml.p9.48xlarge"}
    assert g.pool is None
    g = _group("${HYPERPOD_INSTANCE_TYPE}")
    assert g.node_selector is UNKNOWN


def test_the_replicas_beside_the_worker_are_read_unless_it_autoscales():
    # the CRD's scale subresource reads .spec.replicas (specReplicasPath, a5d2a08); the worker sits beside it
    src = ENDPOINT.replace("replicas: 1", "replicas: 3").format(instance="ml.g5.12xlarge", gpus=4)
    (g,) = load_kubernetes_text(src, "endpoint.yaml").groups
    assert (g.replicas, g.gpus_per_pod, g.pool.gpus_per_node) == (3, 4, 4)
    # an autoScalingSpec (KEDA between minReplicaCount and maxReplicaCount) leaves the count unknown
    scaled = src.replace("  replicas: 3\n", "  replicas: 3\n  autoScalingSpec:\n    minReplicaCount: 1\n"
                         "    maxReplicaCount: 4\n")
    assert "autoScalingSpec" in scaled
    (g,) = load_kubernetes_text(scaled, "endpoint.yaml").groups
    assert g.replicas is UNKNOWN
    assert g.replicas_why == ("spec.autoScalingSpec is set: the operator's KEDA ScaledObject moves spec.replicas "
                              "between its minReplicaCount and maxReplicaCount")
    (g,) = load_kubernetes_text(src, "endpoint.yaml").groups
    assert g.replicas_why is None
