"""The kinds of node a Karpenter or EKS Auto Mode NodePool may launch for a pod, read from its requirements.

A NodePool whose requirement lists several instance types, GPU names or instance families (``In``) launches, for
each pod, one instance type its requirements and the pod's own selector both admit (karpenter.sh, Concepts >
NodePools and Scheduling); EKS Auto Mode reads the same requirements under ``eks.amazonaws.com/``. Each kind is one
pool; a pod that does not pick one lands on the cheapest that holds it and is judged on every one
(tests/fixtures/rules/SW101/karpenter-family-list.yaml for the findings).
"""

from __future__ import annotations

import textwrap

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.adapters.k8s.nodes import resolve_pools
from shardwise.rules.model.errors import InputError

WIDE = ROOT / "tests" / "corpus" / "wide"


def kinds(inv):
    return [(p.name, p.gpu.name if p.gpu else None, p.variant_of) for p in inv.pools]


def test_auto_mode_family_list_is_one_pool_per_family():
    """aws-samples/sample-llm-inference-on-eks k8s-manifest/infra/nodepool.yaml (vendored verbatim in the wide
    corpus, PROVENANCE.json): an EKS Auto Mode NodePool on eks.amazonaws.com/instance-family [g5, g6, g6e, p4, p4d,
    p5, p5en]. Before, the list was read as no family at all and its pods had no GPU. EC2 has no family ``p4``
    (p4d, p4de): that kind names no GPU."""
    inv = load_inputs([str(WIDE / "aws-samples__sample-llm-inference-on-eks" / "k8s-manifest__infra__nodepool.yaml")])
    assert kinds(inv) == [
        ("gpu-nodepool/g5", "A10G", "gpu-nodepool"), ("gpu-nodepool/g6", "L4", "gpu-nodepool"),
        ("gpu-nodepool/g6e", "L40S", "gpu-nodepool"), ("gpu-nodepool/p4", None, "gpu-nodepool"),
        ("gpu-nodepool/p4d", "A100-40GB", "gpu-nodepool"), ("gpu-nodepool/p5", "H100-SXM-80GB", "gpu-nodepool"),
        ("gpu-nodepool/p5en", "H200-141GB", "gpu-nodepool")]


def test_pod_without_a_choice_lands_on_the_heaviest_nodepool_and_its_cheapest_kind():
    """tungsheng/gpu-inference-lab (wide corpus): NodePools gpu-serving-ondemand (weight 10) and gpu-serving-spot
    (weight 50), both on karpenter.k8s.aws/instance-family [g4dn, g5], size xlarge; its vLLM Deployment asks for one
    GPU and picks neither. Karpenter uses the NodePool of the highest weight (the spot one, though its file comes
    second), and of its kinds g4dn.xlarge (T4, $0.526 an hour in the catalog) before g5.xlarge (A10G, $1.006)."""
    inv = load_inputs([str(WIDE / "tungsheng__gpu-inference-lab")])
    assert [(p.name, p.weight) for p in inv.pools] == [
        ("gpu-serving-ondemand/g4dn", 10), ("gpu-serving-ondemand/g5", 10),
        ("gpu-serving-spot/g4dn", 50), ("gpu-serving-spot/g5", 50)]
    [g] = inv.groups
    assert (g.pool.name, [p.name for p in g.pool_options]) == ("gpu-serving-spot/g4dn", ["gpu-serving-spot/g5"])


def _pool(requirements: str, selector: str = "{}") -> str:
    return textwrap.dedent("""\
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: gpu}
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
              requirements:
        %s
              taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: llm, namespace: serving}
        spec:
          selector: {matchLabels: {app: llm}}
          template:
            metadata: {labels: {app: llm}}
            spec:
              nodeSelector: %s
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [Qwen/Qwen2.5-7B-Instruct]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """) % (textwrap.indent(textwrap.dedent(requirements), " " * 8), selector)


def test_gpu_name_list_is_preferred_to_the_family_list_and_other_operators_narrow_it():
    """Both lists: the GPU names are the kinds (the families add none; minValues keeps values open and admits no
    other); NotIn on a GPU name and Gt on the GPU count rule out the kinds whose figures they contradict (the L4 by
    name; g6.xlarge's one GPU)."""
    inv = load_kubernetes_text(_pool("""\
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6, g6e]}
        - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a10g, l4, l40s], minValues: 2}
        - {key: karpenter.k8s.aws/instance-gpu-name, operator: NotIn, values: [l4]}
        """), "np.yaml")
    assert kinds(inv) == [("gpu/a10g", "A10G", "gpu"), ("gpu/l40s", "L40S", "gpu")]
    inv = load_kubernetes_text(_pool("""\
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge, g6.12xlarge, g6.48xlarge]}
        - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["1"]}
        """), "np.yaml")
    assert kinds(inv) == [("gpu/g6.12xlarge", "L4", "gpu"), ("gpu/g6.48xlarge", "L4", "gpu")]


def test_pod_selector_on_gpu_name_or_family_picks_one_kind():
    """A pod's nodeSelector on karpenter.k8s.aws/instance-gpu-name (or EKS Auto Mode's, or the family) narrows the
    NodePool to that kind: no other is left to judge it on. Before, a family-list NodePool matched no such pod."""
    reqs = "- {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6e]}\n"
    for selector, pool in [("{karpenter.k8s.aws/instance-gpu-name: l40s}", "gpu/g6e"),
                           ("{karpenter.k8s.aws/instance-family: g5}", "gpu/g5"),
                           ("{}", "gpu/g5")]:
        inv = load_kubernetes_text(_pool(reqs, selector), "np.yaml")
        resolve_pools(inv)
        [g] = inv.groups
        assert (g.pool.name, [p.name for p in g.pool_options]) == (pool, [] if selector != "{}" else ["gpu/g6e"])


def test_the_kind_listed_first_is_not_the_one_billed():
    """[g6e, g5]: g5.xlarge (A10G, $1.006 an hour in the catalog) is cheaper than g6e.xlarge (L40S, $1.861): the pod is
    billed on g5 and g6e is the other kind it is judged on."""
    inv = load_kubernetes_text(_pool("- {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e, g5]}\n"),
                               "np.yaml")
    resolve_pools(inv)
    [g] = inv.groups
    assert (g.pool.name, [p.name for p in g.pool_options]) == ("gpu/g5", ["gpu/g6e"])


def test_gpu_memory_is_compared_on_ec2s_figure_for_one_gpu():
    """Karpenter labels an instance type instance-gpu-memory with EC2's GpuInfo MemoryInfo.SizeInMiB of one GPU
    (karpenter-provider-aws pkg/providers/instancetype/types.go; its generated instance-types reference lists 22888
    for g5 and g6, 45776 for g6e, 81920 for p5, 144384 for p5en, 8 GPUs on the 48xlarge each): not the node's
    total and not what CUDA reports. Gt, Lt, In and NotIn (and EKS Auto Mode's eks.amazonaws.com/ label) drop the
    kinds whose figure they contradict. Before, none of them was compared and every kind stayed."""
    families = "- {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6, g6e, p5, p5en]}\n"
    cases = [
        ("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ['22888']}",
         ["gpu/g6e", "gpu/p5", "gpu/p5en"]),
        ("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: Lt, values: ['81920']}",
         ["gpu/g5", "gpu/g6", "gpu/g6e"]),
        ("- {key: eks.amazonaws.com/instance-gpu-memory, operator: Gt, values: ['81919']}", ["gpu/p5", "gpu/p5en"]),
        ("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: In, values: ['45776', '144384']}",
         ["gpu/g6e", "gpu/p5en"]),
        ("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: NotIn, values: ['22888']}",
         ["gpu/g6e", "gpu/p5", "gpu/p5en"]),
        # (a total for the node, 8 x 81920 = 655360 MiB, rules out every kind: then all are read, as before)
        ("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ['655359']}",
         ["gpu/g5", "gpu/g6", "gpu/g6e", "gpu/p5", "gpu/p5en"]),
    ]
    for requirement, expected in cases:
        inv = load_kubernetes_text(_pool(families + requirement + "\n"), "np.yaml")
        assert [p.name for p in inv.pools] == expected, requirement
    inv = load_kubernetes_text(_pool("""\
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge, g6e.12xlarge, p5.48xlarge]}
        - {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ["40000"]}
        - {key: karpenter.k8s.aws/instance-gpu-memory, operator: Lt, values: ["80000"]}
        """), "np.yaml")
    assert kinds(inv) == [("gpu/g6e.12xlarge", "L40S", None)]


def test_instance_category_is_one_kind_per_family_of_the_category():
    """chrismld/ai-on-eks-demos demos/vllm-autoscaling/kubernetes/karpenter/gpu-nodepool.yaml (wide corpus):
    karpenter.k8s.aws/instance-category In [g, p] and nothing that names a family. Karpenter's category is the
    leading letters of the instance type (types.go, instanceTypeScheme): every g and p family the catalog knows is a
    kind, in the catalog's order. Before, the NodePool was read as no GPU at all."""
    inv = load_inputs([str(WIDE / "chrismld__ai-on-eks-demos" /
                            "demos__vllm-autoscaling__kubernetes__karpenter__gpu-nodepool.yaml")])
    assert kinds(inv) == [(f"gpu-inference/{f}", gpu, "gpu-inference") for f, gpu in [
        ("g4dn", "T4"), ("g5", "A10G"), ("g6", "L4"), ("g6e", "L40S"), ("p3", "V100-16GB"), ("p3dn", "V100-32GB"),
        ("p4d", "A100-40GB"), ("p4de", "A100-80GB"), ("p5", "H100-SXM-80GB"), ("p5e", "H200-141GB"),
        ("p5en", "H200-141GB"), ("p6-b200", "B200"), ("p6-b300", "B300"), ("p6e-gb200", "GB200"),
        ("g7e", "RTX-PRO-6000-Blackwell")]]


def test_instance_generation_and_category_operators_narrow_the_kinds():
    """aws-samples/awsome-inference 2.projects/nims-inference/.../scaling/karpenter-config.yaml (wide corpus):
    category In [p] and instance-generation Gt 4: p5 and after (p6-b200's generation is 6: the digits after the
    letters). NotIn on the category drops a family list's kinds of that category; a category that the catalog has no
    GPU family of (c, m, r: souhailsegni/Deepseek_R1_VLLM-EKS's default-nodepool.yaml, a NodePool named
    neuron-nodepool) stays one pool with no GPU."""
    inv = load_inputs([str(WIDE / "aws-samples__awsome-inference" / (
        "2.projects__nims-inference__nim-deploy__helm__scaling-lb-monitoring__scaling__karpenter-config.yaml"))])
    assert [p.name for p in inv.pools] == [
        "default/p5", "default/p5e", "default/p5en", "default/p6-b200", "default/p6-b300", "default/p6e-gb200"]
    inv = load_kubernetes_text(_pool("""\
        - {key: eks.amazonaws.com/instance-category, operator: In, values: [g, p]}
        - {key: eks.amazonaws.com/instance-generation, operator: In, values: ["5"]}
        - {key: eks.amazonaws.com/instance-category, operator: NotIn, values: [p]}
        """), "np.yaml")
    assert kinds(inv) == [("gpu/g5", "A10G", None)]  # g5 alone: one kind left, named as a list's kinds are
    inv = load_kubernetes_text(_pool("""\
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e, p5]}
        - {key: karpenter.k8s.aws/instance-category, operator: NotIn, values: [g]}
        """), "np.yaml")
    assert [p.name for p in inv.pools] == ["gpu/p5"]
    inv = load_inputs([str(WIDE / "souhailsegni__Deepseek_R1_VLLM-EKS" /
                            "eks__modules__eks__karpenter__default-nodepool.yaml")])
    assert [(p.name, p.gpu, p.variant_of) for p in inv.pools] == [("neuron-nodepool", None, None)]


def _with_affinity(text: str, expressions: str) -> str:
    """``text`` (of :func:`_pool`) with the pod's required node affinity: one term of ``expressions``."""
    return text.replace("      tolerations:", "      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                        f"{{nodeSelectorTerms: [{{matchExpressions: {expressions}}}]}}}}}}\n      tolerations:", 1)


def test_pod_selector_on_category_generation_or_gpu_memory_narrows_the_kinds():
    """A pod's own nodeSelector or required node affinity on karpenter.k8s.aws/instance-category, -generation or
    -gpu-memory (or EKS Auto Mode's eks.amazonaws.com/ ones) narrows a NodePool's kinds as the NodePool's own
    requirement on it would (Karpenter launches a type that meets both: karpenter.sh, Concepts > Scheduling). Before,
    a kind whose labels did not carry the key admitted no such pod (Gt, Lt, In) or every such pod (NotIn)."""
    reqs = "- {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6e, p5]}\n"
    cases = [
        (_pool(reqs, "{karpenter.k8s.aws/instance-category: p}"), ("gpu/p5", [])),
        (_pool(reqs, "{karpenter.k8s.aws/instance-generation: '6'}"), ("gpu/g6e", [])),
        (_with_affinity(_pool(reqs), "[{key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ['40000']}]"),
         ("gpu/g6e", ["gpu/p5"])),
        (_with_affinity(_pool(reqs), "[{key: karpenter.k8s.aws/instance-category, operator: In, values: [g]}, "
                                     "{key: karpenter.k8s.aws/instance-gpu-memory, operator: Lt, values: ['30000']}]"),
         ("gpu/g5", [])),
        (_with_affinity(_pool(reqs), "[{key: karpenter.k8s.aws/instance-category, operator: NotIn, values: [g]}]"),
         ("gpu/p5", [])),
        # NotIn on a GPU name the kinds do not carry as a label: each kind's GPU (before, it ruled out none)
        (_with_affinity(_pool(reqs), "[{key: karpenter.k8s.aws/instance-gpu-name, operator: NotIn, values: [a10g]}]"),
         ("gpu/g6e", ["gpu/p5"])),
        # NotIn on the family the kinds are named by: read against each kind's own label, as before
        (_with_affinity(_pool(reqs), "[{key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [g5]}]"),
         ("gpu/g6e", ["gpu/p5"])),
        (_with_affinity(_pool(reqs.replace("karpenter.k8s.aws/", "eks.amazonaws.com/")),
                        "[{key: eks.amazonaws.com/instance-gpu-memory, operator: In, values: ['45776', '81920']}]"),
         ("gpu/g6e", ["gpu/p5"])),
    ]
    for text, (pool, others) in cases:
        inv = load_kubernetes_text(text, "np.yaml")
        resolve_pools(inv)
        [g] = inv.groups
        assert (g.pool.name if g.pool else None, [p.name for p in g.pool_options]) == (pool, others), text
    # a value no kind meets: the NodePool admits the pod on none of them
    inv = load_kubernetes_text(_pool(reqs, "{karpenter.k8s.aws/instance-category: inf}"), "np.yaml")
    resolve_pools(inv)
    assert inv.groups[0].pool is None


def test_gpu_memory_floor_alone_is_one_kind_per_gpu_family_that_meets_it():
    """A NodePool whose only instance requirement is a floor on instance-gpu-memory launches any instance type whose
    GPU meets it (Karpenter gives a type with no GPU the requirement DoesNotExist on that label, which Gt does not
    admit): every family the catalog holds EC2's figure for and the floor admits, in the catalog's order. Over 80000
    MiB: A100-80GB and H100 (81920), H200 (144384), B200, B300, RTX PRO 6000 (98304); p6e-gb200 is not offered (EC2's
    figure for GB200 is not in the catalog). Before, it was one pool with no GPU."""
    inv = load_kubernetes_text(_pool("- {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ['80000']}\n"),
                               "np.yaml")
    assert kinds(inv) == [(f"gpu/{f}", gpu, "gpu") for f, gpu in [
        ("p4de", "A100-80GB"), ("p5", "H100-SXM-80GB"), ("p5e", "H200-141GB"), ("p5en", "H200-141GB"),
        ("p6-b200", "B200"), ("p6-b300", "B300"), ("g7e", "RTX-PRO-6000-Blackwell")]]
    inv = load_kubernetes_text(_pool("- {key: eks.amazonaws.com/instance-gpu-memory, operator: Lt, values: ['20000']}\n",
                                     "{eks.amazonaws.com/instance-category: g}"), "np.yaml")
    assert kinds(inv) == [("gpu/g4dn", "T4", "gpu"), ("gpu/p3", "V100-16GB", "gpu")]
    resolve_pools(inv)
    assert (inv.groups[0].pool.name, inv.groups[0].pool_options) == ("gpu/g4dn", [])


_GPU_FAMILIES = [("g4dn", "T4"), ("g5", "A10G"), ("g6", "L4"), ("g6e", "L40S"), ("p3", "V100-16GB"),
                 ("p3dn", "V100-32GB"), ("p4d", "A100-40GB"), ("p4de", "A100-80GB"), ("p5", "H100-SXM-80GB"),
                 ("p5e", "H200-141GB"), ("p5en", "H200-141GB"), ("p6-b200", "B200"), ("p6-b300", "B300"),
                 ("p6e-gb200", "GB200"), ("g7e", "RTX-PRO-6000-Blackwell"), ("dl1", "Gaudi")]


@pytest.mark.parametrize("requirement", [
    "- {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ['0']}",
    "- {key: eks.amazonaws.com/instance-gpu-count, operator: Exists}",
])
def test_gpu_count_alone_is_every_gpu_family_the_catalog_holds(requirement):
    """A NodePool whose only GPU requirement is instance-gpu-count Gt 0 (or Exists) launches any instance type EC2
    describes a GPU for: Karpenter labels the count from GpuInfo and gives every other type DoesNotExist
    (karpenter-provider-aws pkg/providers/instancetype/types.go). That is every GPU family of the catalog, dl1's Gaudi
    included (instance-gpu-count 8, manufacturer habana, in Karpenter's generated instance-types reference), and not
    Inferentia or Trainium (NeuronInfo: instance-accelerator-count). Before, it was one pool with no GPU. A pod asking
    one nvidia.com/gpu lands on the cheapest kind that holds it (g4dn, $0.526 an hour) and is judged on the others;
    dl1's nodes advertise habana.ai/gaudi, not nvidia.com/gpu, so it is none of them (nor is p5en: H200 × 8, as p5e)."""
    inv = load_kubernetes_text(_pool(requirement + "\n"), "np.yaml")
    assert kinds(inv) == [(f"gpu/{f}", gpu, "gpu") for f, gpu in _GPU_FAMILIES]
    resolve_pools(inv)
    g = inv.groups[0]
    assert (g.pool.name, [p.name for p in g.pool_options]) == ("gpu/g4dn", [
        "gpu/g6", "gpu/g5", "gpu/g6e", "gpu/p3", "gpu/g7e", "gpu/p5", "gpu/p4d", "gpu/p4de", "gpu/p3dn",
        "gpu/p6-b200", "gpu/p6-b300", "gpu/p5e", "gpu/p6e-gb200"])


def test_gpu_count_in_gt_or_lt_keeps_the_families_with_such_a_type():
    """In, Gt and Lt on instance-gpu-count keep the families of which the catalog holds an instance type with a count
    the requirement admits: 4 GPUs are g4dn.12xlarge, g5/g6/g6e.12xlarge and .24xlarge, p3.8xlarge, p6e-gb200 and
    g7e.24xlarge; fewer than 2 are the one-GPU sizes (p5.4xlarge among them); more than 4 drops p6e-gb200 (4 a node)."""
    inv = load_kubernetes_text(_pool("- {key: eks.amazonaws.com/instance-gpu-count, operator: In, values: ['4']}\n"),
                               "np.yaml")
    assert [(n, g, p.gpus_per_node) for (n, g, _), p in zip(kinds(inv), inv.pools, strict=True)] == [
        (f"gpu/{f}", gpu, 4) for f, gpu in [("g4dn", "T4"), ("g5", "A10G"), ("g6", "L4"), ("g6e", "L40S"),
                                            ("p3", "V100-16GB"), ("p6e-gb200", "GB200"),
                                            ("g7e", "RTX-PRO-6000-Blackwell")]]
    inv = load_kubernetes_text(_pool("- {key: karpenter.k8s.aws/instance-gpu-count, operator: Lt, values: ['2']}\n"),
                               "np.yaml")
    assert [n for n, _, _ in kinds(inv)] == [f"gpu/{f}" for f in ("g4dn", "g5", "g6", "g6e", "p3", "p5", "g7e")]
    inv = load_kubernetes_text(_pool("- {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ['4']}\n"),
                               "np.yaml")
    assert [n for n, _, _ in kinds(inv)] == [f"gpu/{f}" for f, _ in _GPU_FAMILIES if f != "p6e-gb200"]


def test_gpu_count_beside_a_manufacturer_keeps_that_makers_families():
    """review13: instance-gpu-manufacturer narrows the families a GPU count (or category, or GPU memory) stands for.
    Karpenter labels it from EC2's GpuInfo manufacturer (nvidia, amd, habana) and gives a type with no GPU
    DoesNotExist (karpenter-provider-aws pkg/providers/instancetype/types.go). Before, In [habana] beside a count was
    read as every NVIDIA family too, and a pod asking nvidia.com/gpu was judged on a T4 the NodePool never launches;
    In [amd], of which the catalog holds no AWS family, leaves one pool of AMD accelerators, which holds no NVIDIA
    pod."""
    count = "- {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ['0']}\n"
    inv = load_kubernetes_text(_pool(count + "- {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, "
                                     "values: [habana]}\n"), "np.yaml")
    assert kinds(inv) == [("gpu", "Gaudi", None)]
    inv = load_kubernetes_text(_pool(count + "- {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: NotIn, "
                                     "values: [habana]}\n"), "np.yaml")
    assert kinds(inv) == [(f"gpu/{f}", gpu, "gpu") for f, gpu in _GPU_FAMILIES if f != "dl1"]
    inv = load_kubernetes_text(_pool(count + "- {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, "
                                     "values: [amd]}\n"), "np.yaml")
    assert [(p.name, p.gpu, p.accelerator) for p in inv.pools] == [("gpu", None, "amd")]
    resolve_pools(inv)
    assert inv.groups[0].pool is None


def test_a_weight_the_api_server_refuses_is_an_input_error():
    """The NodePool CRD types spec.weight as an integer: "50" is refused, never read as 50."""
    text = _pool("- {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}\n").replace(
        "spec:\n  template:", 'spec:\n  weight: "50"\n  template:', 1)
    with pytest.raises(InputError, match=r"spec.weight: expected an integer"):
        load_kubernetes_text(text, "np.yaml")
