"""The GPUs a pod requests, as the scheduler counts them: native sidecars and init containers too (readers19).

Kubernetes sums the app containers' requests, adds every native sidecar's (an init container with ``restartPolicy:
Always``, which runs for the pod's life: Kubernetes 1.28 alpha, 1.29 beta), and takes the larger of that and the
peak of the init phase, where each init container runs beside the sidecars started before it (KEP-753, "Resources
calculation for scheduling and pod admission"; kubernetes staging/src/k8s.io/component-helpers/resource/helpers.go,
``AggregateContainerRequests``). The scheduler's NodeResourcesFit filter places the pod only where that much is
allocatable. Before, shardwise read only the vLLM container's count: a pod with a GPU-requesting sidecar was judged
to fit a node it never schedules on. The vLLM server still sees only its own GPUs (``gpus_per_pod``).
"""

from __future__ import annotations

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text


def deployment(inits: list[tuple[str, bool, str]], server: str = "1", others: str = "") -> str:
    """A vLLM Deployment on g6.xlarge nodes whose pod has ``inits`` (name, native sidecar, GPU count) before the
    server's container (``server`` GPUs) and ``others`` (more app containers, as YAML lines)."""
    lines = ["apiVersion: apps/v1", "kind: Deployment", "metadata: {name: qwen, namespace: serving}", "spec:",
             "  replicas: 1", "  selector: {matchLabels: {app: qwen}}", "  template:",
             "    metadata: {labels: {app: qwen}}", "    spec:", "      initContainers:" if inits else ""]
    for name, sidecar, count in inits:
        lines += [f"        - name: {name}", "          image: busybox:1.36",
                  *(["          restartPolicy: Always"] if sidecar else []),
                  f"          resources: {{limits: {{nvidia.com/gpu: {count}}}}}"]
    lines += ["      containers:", "        - name: vllm", "          image: vllm/vllm-openai:v0.11.0",
              '          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--max-model-len", "8192"]',
              f"          resources: {{limits: {{nvidia.com/gpu: {server}}}}}", others]
    return "\n".join(line for line in lines if line) + "\n"


@pytest.mark.parametrize("inits,server,scheduled,named", [
    ([], "1", 1, ()),
    ([("embedder", True, "1")], "1", 2, ("native sidecar `embedder` (1)",)),
    ([("embedder", True, "1"), ("proxy", True, "0")], "2", 3, ("native sidecar `embedder` (1)",)),
    ([("check-gpu", False, "1")], "1", 1, ()),  # an init container runs before the server: not beside it
    ([("build-engine", False, "2")], "1", 2, ("init container `build-engine` (2)",)),  # its run is the peak
    # a sidecar started before an init container runs beside it: 1 + 3 while the init container runs, 1 + 1 after
    ([("embedder", True, "1"), ("build-engine", False, "3")], "1", 4,
     ("native sidecar `embedder` (1)", "init container `build-engine` (3)")),
    # started after it: the init container runs alone (3), then the sidecar beside the server (2)
    ([("build-engine", False, "3"), ("embedder", True, "1")], "1", 3, ("init container `build-engine` (3)",)),
    ([("embedder", True, "1"), ("build-engine", False, "2")], "1", 3,
     ("native sidecar `embedder` (1)", "init container `build-engine` (2)")),
    ([("embedder", True, "1"), ("build-engine", False, "1")], "1", 2, ("native sidecar `embedder` (1)",)),
])
def test_the_pods_request_follows_kep_753(inits, server, scheduled, named):
    [g] = load_kubernetes_text(deployment(inits, server), "t.yaml").groups
    assert (g.gpus_per_pod, g.scheduled_gpus, g.pod_gpus_from) == (int(server), scheduled, named)


def test_another_app_containers_gpus_count_for_the_pod_not_for_the_server():
    other = ("        - name: reranker\n          image: ghcr.io/huggingface/text-embeddings-inference:1.5\n"
             "          resources: {limits: {nvidia.com/gpu: 1}}")
    [g] = load_kubernetes_text(deployment([], "1", other), "t.yaml").groups
    assert (g.gpus_per_pod, g.scheduled_gpus, g.pod_gpus_from) == (1, 2, ("container `reranker` (1)",))


def test_a_sidecar_count_not_known_yet_leaves_the_pods_request_unknown():
    from shardwise.rules.model import UNKNOWN

    [g] = load_kubernetes_text(deployment([("embedder", True, "\"${EMBED_GPUS}\"")], "1"), "t.yaml").groups
    assert (g.gpus_per_pod, g.pod_gpus is UNKNOWN, g.pod_gpus_from) == (1, True, ())


NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{node.kubernetes.io/instance-type: {kind}, nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "{n}"}}
status:
  capacity: {{nvidia.com/gpu: "{n}"}}
  allocatable: {{nvidia.com/gpu: "{n}"}}
---
"""


def test_the_pool_is_one_whose_nodes_hold_the_pods_whole_request():
    """Two kinds of L4 node: g6.xlarge (1 GPU) first, g6.12xlarge (4). A pod whose server requests 1 GPU and whose
    native sidecar 1 more only fits the second; before, it was placed on the first (and SW201 said nothing)."""
    nodes = NODES.format(name="small", kind="g6.xlarge", n=1) + NODES.format(name="big", kind="g6.12xlarge", n=4)
    pod = deployment([("embedder", True, "1")]).replace("    spec:\n", "    spec:\n      nodeSelector: "
                                                                        "{nvidia.com/gpu.product: NVIDIA-L4}\n", 1)
    [g] = load_kubernetes_text(nodes + pod, "t.yaml").groups
    assert g.pool is not None and (g.pool.name, g.pool.gpus_per_node) == ("big", 4)
    [alone] = load_kubernetes_text(nodes + deployment([]).replace(
        "    spec:\n", "    spec:\n      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n", 1), "t.yaml").groups
    assert alone.pool is not None and alone.pool.name == "small"


SERVER_AS_SIDECAR = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: agent, namespace: serving}
spec:
  replicas: 1
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      initContainers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          restartPolicy: Always
          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--max-model-len", "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
      containers:
        - name: agent
          image: python:3.11
          command: ["python", "-m", "agent"]
          resources:
            limits: {nvidia.com/gpu: %s}
"""


@pytest.mark.parametrize("agent,scheduled,named", [("0", 1, ()), ("1", 2, ("container `agent` (1)",))])
def test_a_vllm_server_run_as_a_native_sidecar_is_the_pods_server(agent, scheduled, named):
    """The vLLM server as a native sidecar in front of an agent: it runs for the pod's life, so it is the workload
    (before: SW005, 'not read', and no workload). Its GPUs are the server's; the agent's count for the pod only."""
    inv = load_kubernetes_text(SERVER_AS_SIDECAR % agent, "t.yaml")
    [g] = inv.groups
    assert (g.vllm_container, g.engine.model, g.gpus_per_pod) == ("vllm", "Qwen/Qwen2.5-1.5B-Instruct", 1)
    assert (g.scheduled_gpus, g.pod_gpus_from) == (scheduled, named)
    assert [c.name for c in g.containers] == ["agent", "vllm"]
    assert g.engine.locations["model"].line == 14


def test_a_native_sidecar_that_runs_no_vllm_server_is_not_one_of_the_groups_containers():
    [g] = load_kubernetes_text(deployment([("embedder", True, "1")]), "t.yaml").groups
    assert [c.name for c in g.containers] == ["vllm"]
