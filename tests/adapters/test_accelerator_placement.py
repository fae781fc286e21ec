"""A pod that requests an accelerator's extended resource lands only on nodes that advertise that resource.

kube-scheduler's NodeResourcesFit filter binds a pod only to a node whose allocatable holds every resource it
requests, and Karpenter launches only an instance type whose resources hold them; each device plugin advertises its
own maker's devices (nvidia.com/gpu, amd.com/gpu, habana.ai/gaudi, aws.amazon.com/neuron*, google.com/tpu, ...). So
a pool whose accelerators are another maker's never holds the pod, whatever its labels and taints say: linting
several repositories in one run, another repository's Inferentia2 NodePool is no pool of a Gaudi workload
(tests/fixtures/rules/SW102/accelerator-of-another-maker/ for the findings).
"""

from __future__ import annotations

import textwrap

from shardwise.rules.adapters.k8s import load_kubernetes_text

INF2 = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: neuron-inf2}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: neuron}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [inf2]}
"""

GFD_NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: h100-0
  labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
status:
  capacity: {nvidia.com/gpu: "8"}
"""

GAUDI_NODE = """\
apiVersion: v1
kind: Node
metadata: {name: gaudi-0}
status:
  capacity: {habana.ai/gaudi: "8", cpu: "160"}
"""


def _deployment(resource: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: llm, namespace: serving}}
        spec:
          selector: {{matchLabels: {{app: llm}}}}
          template:
            metadata: {{labels: {{app: llm}}}}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [meta-llama/Llama-3.1-8B-Instruct]
                  resources: {{limits: {{{resource}: 1}}}}
        """)


def _pool_of(*docs: str) -> str | None:
    inv = load_kubernetes_text("---\n".join(docs), "all.yaml")
    [g] = inv.groups
    return g.pool.name if g.pool is not None else None


def test_a_pool_of_another_maker_never_holds_the_pod():
    """habana.ai/gaudi and amd.com/gpu pods have no pool beside an Inferentia2 NodePool and an H100 node (before,
    the first pool that admitted them by labels and taints: the NodePool); nvidia.com/gpu lands on the H100 node,
    aws.amazon.com/neuron on the inf2 NodePool, whichever comes first."""
    assert _pool_of(INF2, GFD_NODE, _deployment("habana.ai/gaudi")) is None
    assert _pool_of(INF2, GFD_NODE, _deployment("amd.com/gpu")) is None
    assert _pool_of(INF2, GFD_NODE, _deployment("nvidia.com/gpu")) == "h100-0"
    assert _pool_of(GFD_NODE, INF2, _deployment("aws.amazon.com/neuron")) == "neuron-inf2"


def test_the_pool_of_the_resource_s_maker_is_found_behind_another():
    """A Node that advertises habana.ai/gaudi (its status.capacity) is the Gaudi pod's pool though the Inferentia2
    NodePool comes first; a pod requesting none of these has the first pool, as before."""
    assert _pool_of(INF2, GAUDI_NODE, _deployment("habana.ai/gaudi")) == "gaudi-0"
    assert _pool_of(INF2, GAUDI_NODE, _deployment("cpu")) == "neuron-inf2"
