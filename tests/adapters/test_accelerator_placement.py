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


DL1 = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gaudi}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [dl1.24xlarge]}
"""

HABANA = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: habana}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [habana]}
"""

INTEL_GPU_NODE = """\
apiVersion: v1
kind: Node
metadata: {name: xe-0}
status:
  capacity: {gpu.intel.com/xe: "4", cpu: "64"}
"""

CPU_NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
"""

CPU_NODE = """\
apiVersion: v1
kind: Node
metadata: {name: m6i-0}
status:
  capacity: {cpu: "8", memory: 32386520Ki, pods: "58"}
"""


def test_intel_gaudi_and_intel_gpus_are_different_device_plugins():
    """Intel makes both, but Gaudi's plugin advertises habana.ai/gaudi and the GPU plugin gpu.intel.com/i915 or
    gpu.intel.com/xe (by kernel driver): an i915 or xe pod has no pool on a dl1 NodePool or one whose manufacturer
    is habana (before: the first, by maker), a Gaudi pod has no pool on an xe Node; each lands on its own."""
    assert _pool_of(DL1, _deployment("gpu.intel.com/i915")) is None
    assert _pool_of(HABANA, _deployment("gpu.intel.com/xe")) is None
    assert _pool_of(INTEL_GPU_NODE, _deployment("habana.ai/gaudi")) is None
    assert _pool_of(INTEL_GPU_NODE, DL1, _deployment("habana.ai/gaudi")) == "gaudi"
    assert _pool_of(DL1, INTEL_GPU_NODE, _deployment("gpu.intel.com/xe")) == "xe-0"


def test_a_node_holds_only_the_resources_its_capacity_lists():
    """A Node's status.capacity is what its device plugins advertise: an xe node never binds an i915 pod, and an
    AMD pod has no pool on it (before: Intel's maker read alone admitted the first)."""
    assert _pool_of(INTEL_GPU_NODE, _deployment("gpu.intel.com/i915")) is None
    assert _pool_of(INTEL_GPU_NODE, _deployment("amd.com/gpu")) is None


def test_a_pool_known_to_have_no_accelerator_holds_no_accelerator_pod():
    """A NodePool of instance categories with no accelerator (c, m, r) and a Node whose capacity lists none are no
    pool of a pod that requests a GPU (before: the first pool, sized as an unknown GPU), and still one of a pod that
    requests none."""
    assert _pool_of(CPU_NODEPOOL, _deployment("nvidia.com/gpu")) is None
    assert _pool_of(CPU_NODE, _deployment("nvidia.com/gpu")) is None
    assert _pool_of(CPU_NODEPOOL, GFD_NODE, _deployment("nvidia.com/gpu")) == "h100-0"
    assert _pool_of(CPU_NODEPOOL, _deployment("cpu")) == "general"


def _pinned_amd_pod(pool: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: llm-{pool}, namespace: serving}}
        spec:
          template:
            spec:
              nodeSelector: {{karpenter.sh/nodepool: {pool}}}
              containers:
                - name: vllm
                  image: rocm/vllm:rocm6.4.1_vllm_0.10.1
                  args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
                  resources: {{limits: {{amd.com/gpu: 1}}}}
        """)


def test_a_pool_listed_from_the_catalog_for_a_category_is_not_sure_to_lack_a_maker():
    """review14: a NodePool of ``instance-category In [g]`` was listed as the catalog's g families (all NVIDIA) and an
    ``amd.com/gpu`` pod pinned to it blocked on SW206 ("never advertise amd.com/gpu"), but EC2's category g also holds
    g4ad (AMD Radeon Pro V520; docs.aws.amazon.com/ec2/latest/instancetypes/ac.html), which the catalog does not list:
    what the catalog lists for a category is not every type Karpenter may launch, so the pin is advisory. A NodePool
    that names the maker (``instance-gpu-manufacturer In [nvidia]``) or only categories without an accelerator stays
    sure."""
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    def sw206(requirements: str) -> list[str]:
        text = textwrap.dedent("""\
            apiVersion: karpenter.sh/v1
            kind: NodePool
            metadata: {name: gpu}
            spec:
              template:
                spec:
                  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
                  requirements:
            """) + requirements + "\n---\n" + _pinned_amd_pod("gpu")
        return [f.level for f in run_rules(ALL_RULES, load_kubernetes_text(text, "f.yaml"))
                if f.code == "SW206"]

    assert sw206("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [g]}") == ["advisory"]
    assert sw206("        - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ['0']}") == ["advisory"]
    assert sw206("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [g]}\n"
                 "        - {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [nvidia]}"
                 ) == ["mandatory"]
    assert sw206("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}") == [
        "mandatory"]


def test_only_an_ec2_instance_type_is_read_by_ec2s_category_scheme():
    """sched19: EC2's category scheme (leading letters, then the generation) read GCE's ``a3-highgpu-8g`` (eight H100s)
    and ``a2-highgpu-1g`` (an A100) as category ``a``, Graviton's a1, and so as nodes with no accelerator: a GPU pod
    selecting them would have been said never to schedule. Compute Engine names machine types ``series-kind-size``;
    only an EC2 type (``family.size``) is read by EC2's scheme, and another cloud's type the catalog does not hold is
    not known (None), never "no accelerator" (``()``)."""
    from shardwise.rules.adapters.k8s.nodes import pool_families
    from shardwise.rules.catalog.hardware import pool_from_labels
    from shardwise.rules.model import Location

    def families(instance_type: str):
        pool = pool_from_labels("p", {"node.kubernetes.io/instance-type": instance_type}, Location(), kind="selector")
        return pool_families(pool)

    assert [families(t) for t in ("a2-highgpu-1g", "a3-highgpu-8g", "a4-highgpu-8g", "c3-standard-8")] == [None] * 4
    assert [families(t) for t in ("m5.2xlarge", "c7i.4xlarge", "a1.large")] == [(), (), ()]
    assert families("g4dn.xlarge") == ("nvidia-gpu",)


def test_a_stack_service_on_a_stack_pool_without_its_accelerator_never_schedules(tmp_path):
    """sched19: a shardwise stack's service is pinned to its pool by ``shardwise.dev/pool``, a label only the nodes of
    the pool the stack makes carry (rules/render/nodepool.py). The dev stack with its pool's instance type changed to
    inf2.xlarge (Inferentia2, which advertises aws.amazon.com/neuron*) got only SW206's advisory "matches no GPU pool
    (pools: `l40s`)"; the pool is the stack's and its nodes never advertise nvidia.com/gpu: mandatory, Pending."""
    from repo_paths import ROOT
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    assert "instance_type: g6e.xlarge" in text
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text.replace("instance_type: g6e.xlarge", "instance_type: inf2.xlarge"), encoding="utf-8")
    found = [(f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW206"]
    assert found == [("mandatory",
                      "the selector (shardwise.dev/pool=l40s) confines the pods to pool `l40s` (Inferentia2), whose nodes "
                      "never advertise nvidia.com/gpu, so the pods stay Pending (Insufficient nvidia.com/gpu: no node the "
                      "scheduler may bind them to has one); select a pool whose nodes have that accelerator, or request "
                      "the one the pool has")]


def test_a_selector_on_other_hardware_is_judged_for_each_resource_it_is_asked_for():
    """lintspeed21: what a selector's nodes rule out is kept by (resource, label, values); an inf2.xlarge selector rules
    out nvidia.com/gpu and amd.com/gpu pods, and not an aws.amazon.com/neuron pod, in whatever order they are read."""
    def unplaceable(resource: str) -> str | None:
        doc = _deployment(resource).replace(
            "      containers:", "      nodeSelector: {node.kubernetes.io/instance-type: inf2.xlarge}\n      containers:")
        [g] = load_kubernetes_text(doc, "all.yaml").groups
        return g.unplaceable

    gpu = ("the nodeSelector (node.kubernetes.io/instance-type=inf2.xlarge) places the pods on nodes of Inferentia2, "
           "which never advertise nvidia.com/gpu")
    for _ in range(2):
        assert unplaceable("nvidia.com/gpu") == gpu
        assert unplaceable("aws.amazon.com/neuron") is None
        assert unplaceable("amd.com/gpu") == gpu.replace("nvidia.com/gpu", "amd.com/gpu")
