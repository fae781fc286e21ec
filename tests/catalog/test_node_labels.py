"""Accelerators and the node-label families people select them by, through the real Kubernetes adapter:
GKE (GPU and TPU), Karpenter and EKS Auto Mode, NVIDIA GPU Feature Discovery, the AMD GPU operator, Azure
instance types, pods pinned to one node by hostname; and the accelerator resources beyond nvidia.com/gpu.
"""

from __future__ import annotations

import os
import textwrap

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text
from shardwise.rules.catalog.accelerators import group_vendor
from shardwise.rules.catalog.hardware import pool_from_labels
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, Location

FAMILIES = os.path.join(FIXTURES, "k8s", "labels", "families.yaml")


def show(v):
    return "UNKNOWN" if v is UNKNOWN else v


def pool_summary(p):
    return (p.name, p.gpu.name if p.gpu else None, show(p.gpus_per_node), show(p.gpu_memory_gib), p.interconnect,
            show(p.efa), p.fabric, p.accelerator)


def test_each_label_family_names_the_accelerator():
    inv = load_kubernetes_file(FAMILIES)
    got = [(g.name, g.accelerator_resource, group_vendor(g), pool_summary(g.pool) if g.pool else None)
           for g in inv.groups]
    assert got == [
        ("gke-l4", "nvidia.com/gpu", "nvidia",
         ("gke-accelerator=nvidia-l4,gke-accelerator-count=2", "L4", 2, 21.99, "pcie", None, None, "nvidia")),
        ("gke-a3-mega", "nvidia.com/gpu", "nvidia",
         ("gke-accelerator=nvidia-h100-mega-80gb", "H100-SXM-80GB", None, 79.19, None, None, None, "nvidia")),
        ("gke-tpu-v6e", "google.com/tpu", "google",
         ("gke-tpu-accelerator=tpu-v6e-slice", "TPU-v6e", None, 31.25, None, None, None, "google")),
        ("karpenter-family", "nvidia.com/gpu", "nvidia",
         ("instance-family=g6e", "L40S", None, 44.31, "pcie", None, None, "nvidia")),
        # p + 4 is p4d (A100 40 GB) or p4de (A100 80 GB): 8 GPUs either way, their memory unknown
        ("karpenter-gen", "nvidia.com/gpu", "nvidia",
         ("instance-category=p,instance-generation=4", None, 8, "UNKNOWN", "nvswitch", True, "efa", None)),
        ("eks-auto", "nvidia.com/gpu", "nvidia",
         ("instance-gpu-name=l40s,instance-gpu-count=4", "L40S", 4, 44.31, "pcie", None, None, "nvidia")),
        ("aks-nd-h100", "nvidia.com/gpu", "nvidia",
         ("instance-type=Standard_ND96isr_H100_v5", "H100-SXM-80GB", 8, 79.19, "nvswitch", None, "infiniband",
          "nvidia")),
        # amd17: no partition mode named, so the whole GPU first, then the smallest partition (a pool option)
        ("amd-mi300x", "amd.com/gpu", "amd",
         ("gpu.product-name=AMD_Instinct_MI300X_OAM/spx", "MI300X", None, 191.98, None, None, None, "amd")),
        ("gaudi-dl1", "habana.ai/gaudi", "intel",
         ("instance-type=dl1.24xlarge", "Gaudi", 8, 32.0, "fabric", True, "efa", "intel")),
        ("trn1-neuron", "aws.amazon.com/neuroncore", "aws",
         ("instance-family=trn1", "Trainium", None, 32.0, "fabric", None, None, "aws")),
        # a GPU the catalog does not know: memory unknown (capacity undecided), not absent
        ("gpu-unknown", "nvidia.com/gpu", "nvidia",
         ("gpu.product=NVIDIA-A16", None, None, "UNKNOWN", None, None, None, "nvidia")),
        # pinned to one node by name: what it carries is unknown
        ("pinned", "nvidia.com/gpu", "nvidia",
         ("hostname=gpu-node-07", None, "UNKNOWN", "UNKNOWN", None, "UNKNOWN", None, None)),
    ]


def findings_by_group(path):
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for f in run_rules(ALL_RULES, load_inputs([path])):
        if f.code != "SW305":
            out.setdefault(f.subject.split("/", 1)[1], []).append((f.code, f.level, f.undecided))
    return {k: sorted(v) for k, v in out.items()}


def test_nvidia_fabric_rules_do_not_fire_on_tpu_gaudi_or_neuron():
    got = findings_by_group(FAMILIES)
    # TPU v6e TP8: no TP-over-node (ICI spans hosts), NVLink, EFA or /dev/shm rule; since tpu19 no GPU
    # arithmetic either (vLLM's TPU worker sizes its KV cache from XLA's limit): SW101's one "capacity not checked"
    assert got["gke-tpu-v6e"] == [("SW101", "advisory", False)]
    # Gaudi TP2 on dl1: capacity runs with the Gaudi's memory, nothing about NVLink or /dev/shm
    # (SW104 advisory: one Gaudi holds the model at bf16 with the KV reserve, but the capacity model's estimates
    # follow CUDA and ROCm, not vLLM's Gaudi plugin; SW106 defers to it; no load declared: no SW103)
    assert got["gaudi-dl1"] == [("SW104", "advisory", False)]
    # Neuron: tensor parallelism counts NeuronCores, the catalog gives memory per device: undecided
    assert got["trn1-neuron"] == [(c, lvl, True) for c, lvl in (
        ("SW101", "advisory"), ("SW102", "advisory"), ("SW104", "advisory"),
        ("SW106", "advisory"), ("SW206", "advisory"))]
    # the same TP2 on L4s behind GKE labels gets the PCIe and /dev/shm rules (and SW104, advisory: one L4 starts
    # the 8B at max_model_len, but its KV reserve is thin). No SW101: the piecewise CUDA graphs vLLM 0.10.1
    # captures after sizing cost 5 B per token and hidden unit on each GPU (not split by TP), which fits in the
    # 2.20 GiB outside the budget. No SW106 either: one L4 serves the 8B in bf16 as plan judges it (serves(): 4.2 GiB
    # of KV cache left beyond the band), so a 4-bit copy on one GPU is no better answer than SW104's
    assert [c for c, _, _ in got["gke-l4"]] == ["SW104", "SW202", "SW401"]


def test_unknown_accelerators_make_rules_undecided_never_silent():
    got = findings_by_group(FAMILIES)
    # (no load declared: SW103 has nothing to judge, so it needs no GPU memory)
    capacity = [("SW101", "advisory", True), ("SW102", "advisory", True)]
    sharded = [("SW104", "advisory", True), ("SW106", "advisory", True)]
    # a product the catalog lacks: SW206 names it; at TP1 there is no sharding for SW104/SW106 to judge
    assert got["gpu-unknown"] == [*capacity, ("SW206", "advisory", True)]
    assert got["karpenter-gen"] == [*capacity, *sharded, ("SW206", "advisory", True), ("SW401", "mandatory", False)]
    # hostname-pinned: undecided, never blocking on the pool; TP1 needs no node size
    assert got["pinned"] == [*capacity, ("SW206", "advisory", True)]


def test_undecided_message_names_the_pool():
    inv = load_inputs([FAMILIES])
    msgs = {f.message for f in run_rules(ALL_RULES, inv) if f.subject == "Deployment accel/pinned"}
    # corpus16: it says what the pool is (a node named by hostname) and what would decide it, not "a computed value
    # or an unresolved reference"
    assert ("cannot decide: GPU memory of node pool `hostname=gpu-node-07` is not known (the pod is pinned to node "
            "`gpu-node-07` by its kubernetes.io/hostname label, and no input describes that node's GPUs: lint the "
            "node's manifest with the rest (`kubectl get node gpu-node-07 -o yaml`: GPU Feature Discovery's "
            "nvidia.com/gpu.product and gpu.count labels), or select the node by a GPU label)") in msgs


def test_a_custom_label_whose_value_names_a_gpu_is_not_read_as_that_gpu():
    """corpus15 left it: ``accelerator: nvidia-h100`` (Goli-CLI) is a key only that cluster uses. shardwise reads no
    GPU from it (no pool, nothing sized on an H100), so nothing blocks on it; SW206 names the selector and says what
    would decide it."""
    inv = load_inputs([os.path.join(FIXTURES, "k8s", "labels", "custom-accelerator-label.yaml")])
    (g,) = inv.groups
    assert g.pool is None
    found = run_rules(ALL_RULES, inv)
    assert [f.code for f in found if f.level == "mandatory" and not f.suppressed] == []
    (sw206,) = [f for f in found if f.code == "SW206"]
    assert (sw206.level, sw206.undecided) == ("advisory", True)
    assert sw206.message.startswith("the selector (accelerator=nvidia-h100) matches no GPU pool (pools: none "
                                    "declared) and names no GPU type, so the capacity rules cannot size this workload")



@pytest.mark.parametrize("labels,expected", [
    ({"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
     ("p", "A100-40GB", None, 39.39, None, None, None, "nvidia")),
    ({"cloud.google.com/gke-accelerator": "nvidia-a100-80gb", "cloud.google.com/gke-accelerator-count": "2"},
     ("p", "A100-80GB", 2, 79.15, "nvswitch", None, None, "nvidia")),
    ({"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x2"},
     ("p", "TPU-v5e", 4, 15.75, "fabric", None, None, "google")),
    # a multi-host slice: how many chips one host has is GKE's choice
    ({"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "4x4"},
     ("p", "TPU-v5e", None, 15.75, None, None, None, "google")),
    # every size of a family that joins GPUs joins them alike (p5.4xlarge's one GPU joins none), and all have EFA
    ({"karpenter.k8s.aws/instance-family": "p5"},
     ("p", "H100-SXM-80GB", None, 79.19, "nvswitch", True, "efa", "nvidia")),
    ({"karpenter.k8s.aws/instance-family": "trn2"}, ("p", "Trainium2", 16, 96.0, "fabric", True, "efa", "aws")),
    # p5, p5e and p5en carry H100 or H200 (p5.4xlarge one, the others eight)
    ({"karpenter.k8s.aws/instance-category": "p", "karpenter.k8s.aws/instance-generation": "5"},
     ("p", None, None, "UNKNOWN", "nvswitch", True, "efa", None)),
    ({"karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia", "karpenter.k8s.aws/instance-gpu-name": "b999"},
     ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    ({"eks.amazonaws.com/instance-family": "inf2"}, ("p", "Inferentia2", None, 32.0, "fabric", False, None, "aws")),
    # a part without NVLink joins its GPUs over PCIe on a node of any size (a Karpenter NodePool by GPU name)
    ({"karpenter.k8s.aws/instance-gpu-name": "l40s"}, ("p", "L40S", None, 44.31, "pcie", None, None, "nvidia")),
    ({"karpenter.k8s.aws/instance-family": "g6"}, ("p", "L4", None, 21.99, "pcie", None, None, "nvidia")),
    # EC2's bare GPU names (Karpenter's instance-gpu-name): a100 is p4d's A100 40 GB or p4de's 80 GB, v100 p3's 16 GB
    # or p3dn's 32 GB: no size without an instance type, family or memory label; h100 is only p5's H100 SXM 80 GB.
    # Every size is NVIDIA's, so the maker is known (place16: it was None)
    ({"karpenter.k8s.aws/instance-gpu-name": "a100"}, ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    ({"eks.amazonaws.com/instance-gpu-name": "v100"}, ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    ({"karpenter.k8s.aws/instance-gpu-name": "a100", "karpenter.k8s.aws/instance-family": "p4de"},
     ("p", "A100-80GB", None, 79.15, "nvswitch", True, "efa", "nvidia")),
    ({"karpenter.k8s.aws/instance-gpu-name": "a100", "node.kubernetes.io/instance-type": "p4de.24xlarge"},
     ("p", "A100-80GB", 8, 79.15, "nvswitch", True, "efa", "nvidia")),
    ({"karpenter.k8s.aws/instance-gpu-name": "v100", "karpenter.k8s.aws/instance-family": "p3dn"},
     ("p", "V100-32GB", None, 31.75, "nvlink", True, "efa", "nvidia")),
    ({"karpenter.k8s.aws/instance-gpu-name": "a100", "karpenter.k8s.aws/instance-gpu-memory": "81920"},
     ("p", "A100-80GB", None, 79.15, None, None, None, "nvidia")),
    ({"karpenter.k8s.aws/instance-gpu-name": "h100"}, ("p", "H100-SXM-80GB", None, 79.19, None, None, None, "nvidia")),
    # GKE's names are specific: nvidia-tesla-a100 is the A2 highgpu machines' A100 40 GB, nvidia-a100-80gb the
    # ultragpu's 80 GB (cloud.google.com/kubernetes-engine/docs/how-to/gpus); GPU Feature Discovery writes NVML's name
    ({"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
     ("p", "A100-40GB", None, 39.39, None, None, None, "nvidia")),
    ({"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"},
     ("p", "A100-80GB", None, 79.15, None, None, None, "nvidia")),
    ({"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, ("p", "A100-80GB", None, 79.15, None, None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "Standard_NC24ads_A100_v4"},
     ("p", "A100-PCIe-80GB", 1, 79.15, "pcie", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "Standard_NC80adis_H100_v5"},
     ("p", "H100-NVL-94GB", 2, 93.58, "nvlink", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "Standard_ND96isr_MI300X_v5"},
     ("p", "MI300X", 8, 191.98, "fabric", None, "infiniband", "amd")),
    # an Azure size not in the table: nothing guessed
    ({"node.kubernetes.io/instance-type": "Standard_NV36ads_A10_v5"},
     ("p", None, None, None, None, None, None, None)),
    # OCI GPU shapes, which OKE writes as the instance type (Oracle's Compute Shapes reference): A10 on PCIe, HGX
    # boards on NVSwitch; the shape alone puts no node in an RDMA cluster network (no fabric)
    ({"node.kubernetes.io/instance-type": "BM.GPU.A10.4"}, ("p", "A10", 4, 22.06, "pcie", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "VM.GPU.A10.1"}, ("p", "A10", 1, 22.06, "pcie", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "BM.GPU.H100.8"},
     ("p", "H100-SXM-80GB", 8, 79.19, "nvswitch", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "BM.GPU.A100-v2.8"},
     ("p", "A100-80GB", 8, 79.15, "nvswitch", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "BM.GPU4.8"}, ("p", "A100-40GB", 8, 39.39, "nvswitch", None, None, "nvidia")),
    ({"node.kubernetes.io/instance-type": "VM.GPU3.2"}, ("p", "V100-16GB", 2, 15.78, "nvlink", None, None, "nvidia")),
    # place16 (review15 found it missing): four L40S 48 GB, no NVLink on the part
    ({"node.kubernetes.io/instance-type": "BM.GPU.L40S.4"}, ("p", "L40S", 4, 44.31, "pcie", None, None, "nvidia")),
    # an OCI shape not in the table (a CPU shape or one not added): nothing guessed
    ({"node.kubernetes.io/instance-type": "BM.GPU.GB200.4"}, ("p", None, None, None, None, None, None, None)),
    ({"node.kubernetes.io/instance-type": "VM.Standard.E4.Flex"}, ("p", None, None, None, None, None, None, None)),
    # CoreWeave's GPU class under either key, with its count (docs.coreweave.com label selectors; llm-d's
    # ms-wide-ep values select gpu.nvidia.com/model=H200)
    ({"gpu.nvidia.com/model": "H100_NVLINK_80GB", "gpu.nvidia.com/count": "8"},
     ("p", "H100-SXM-80GB", 8, 79.19, "nvswitch", None, None, "nvidia")),
    ({"gpu.nvidia.com/class": "A100_PCIE_80GB"}, ("p", "A100-PCIe-80GB", None, 79.15, "pcie", None, None, "nvidia")),
    ({"gpu.nvidia.com/class": "A100_NVLINK"}, ("p", "A100-40GB", None, 39.39, None, None, None, "nvidia")),
    ({"gpu.nvidia.com/model": "H200"}, ("p", "H200-141GB", None, 139.81, None, None, None, "nvidia")),
    # a CoreWeave class the catalog does not hold: the GPU is unknown, not absent
    ({"gpu.nvidia.com/model": "RTX_A4000"}, ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    # catalog23: the RTX A6000 is a catalog GPU now (a PCIe card: PCIe joins them on a node of any size)
    ({"gpu.nvidia.com/model": "RTX_A6000"}, ("p", "RTX-A6000", None, 47.5, "pcie", None, None, "nvidia")),
    # Volcengine VKE's GPU name (vllm-project/aibrix's samples); a bare family name names no size
    ({"machine.cluster.vke.volcengine.com/gpu-name": "NVIDIA-L20"},
     ("p", "L20", None, 44.31, "pcie", None, None, "nvidia")),
    ({"machine.cluster.vke.volcengine.com/gpu-name": "Tesla-V100"},
     ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    # corpus36: Alibaba Cloud ACK's GPU name (AliyunContainerService/gpushare-device-plugin cmd/inspect/main.go,
    # cardNameKey): NVML's name with dashes; a bare family name names no size, a GPU the catalog lacks no memory
    ({"aliyun.accelerator/nvidia_name": "NVIDIA-A10"}, ("p", "A10", None, 22.06, "pcie", None, None, "nvidia")),
    ({"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
     ("p", "V100-16GB", None, 15.78, None, None, None, "nvidia")),
    ({"aliyun.accelerator/nvidia_name": "Tesla-V100"}, ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    ({"aliyun.accelerator/nvidia_name": "Tesla-P100-PCIE-16GB"},
     ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    # a hand-written GPU Feature Discovery product without a size (NVML writes NVIDIA-A100-SXM4-40GB): no size either
    # (place16: it was the A100 40 GB); NVIDIA-H20 is NVML's own name for the 96 GB part and keeps it
    ({"nvidia.com/gpu.product": "NVIDIA-A100"}, ("p", None, None, "UNKNOWN", None, None, None, "nvidia")),
    ({"nvidia.com/gpu.product": "NVIDIA-A100", "nvidia.com/gpu.memory": "81920"},
     ("p", "A100-80GB", None, 79.15, None, None, None, "nvidia")),
    ({"nvidia.com/gpu.product": "NVIDIA-H20"}, ("p", "H20", None, 95.12, None, None, None, "nvidia")),
    # GFD family and memory without the product: the memory is the node's, the GPU unnamed
    ({"nvidia.com/gpu.family": "hopper", "nvidia.com/gpu.memory": "81559"},
     ("p", None, None, 79.65, None, None, None, "nvidia")),
    # Cloud Run's GPU selector (a Knative Service): GKE's accelerator names, one GPU per instance
    ({"run.googleapis.com/accelerator": "nvidia-l4"}, ("p", "L4", 1, 21.99, None, None, None, "nvidia")),
    ({"run.googleapis.com/accelerator": "nvidia-rtx-pro-6000"},
     ("p", "RTX-PRO-6000-Blackwell", 1, 94.97, None, None, None, "nvidia")),
])
def test_label_families(labels, expected):
    assert pool_summary(pool_from_labels("p", labels, Location("f", 1))) == expected


@pytest.mark.parametrize(("hyperpod", "ec2", "expected"), [
    ("ml.g6e.xlarge", "g6e.xlarge", ("p", "L40S", 1, 44.31, "pcie", False, None, "nvidia")),
    ("ML.P5.48XLARGE", "p5.48xlarge", ("p", "H100-SXM-80GB", 8, 79.19, "nvswitch", True, "efa", "nvidia")),
])
def test_sagemaker_hyperpod_nodes_name_the_ec2_instance_with_ml_before_it(hyperpod, ec2, expected):
    """HyperPod's EKS nodes carry SageMaker's name of the instance type (``ml.g6e.xlarge``, the selector of
    aws-samples/sagemaker-genai-hosting-examples' HyperPod gpt-oss Deployment): the same machine as the EC2
    type, read as it; the pool keeps the label's name (no EC2 price is put on it)."""
    key = "node.kubernetes.io/instance-type"
    pool = pool_from_labels("p", {key: hyperpod}, Location("f", 1))
    assert pool_summary(pool) == pool_summary(pool_from_labels("p", {key: ec2}, Location("f", 1))) == expected
    assert pool.instance_type == hyperpod
    assert pool_summary(pool_from_labels("p", {key: "mlx.g6e.xlarge"}, Location("f", 1)))[1:] == (
        None, None, None, None, None, None, None)

def test_gfd_clique_takes_the_gpus_multi_node_nvlink_domain():
    p = pool_from_labels("p", {"nvidia.com/gpu.product": "NVIDIA-GB200", "nvidia.com/gpu.count": "4",
                               "nvidia.com/gpu.clique": "cluster-a.1"}, Location("f", 1))
    assert (p.gpu.name, p.gpus_per_node, p.clique, p.nvlink_domain_size) == ("GB200", 4, "cluster-a.1", 72)


def test_nodes_advertising_other_accelerators():
    inv = load_kubernetes_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata:
          name: mi300x-node-1
          labels: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM}
        status:
          capacity: {amd.com/gpu: "8", cpu: "192"}
        ---
        apiVersion: v1
        kind: Node
        metadata:
          name: tpu-host-1
          labels: {cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice, cloud.google.com/gke-tpu-topology: 2x4}
        status:
          capacity: {google.com/tpu: "8"}
        """), "nodes.yaml")
    # amd17: eight amd.com/gpu may be eight whole MI300X (SPX) or eight partitions (CPX: one XCD's share of one GPU);
    # no label says which, so the node is both kinds, and partitions are assumed no fabric between them
    assert [pool_summary(p) for p in inv.pools] == [
        ("mi300x-node-1/spx", "MI300X", 8, 191.98, "fabric", None, None, "amd"),
        ("mi300x-node-1/cpx 1/8", "MI300X", 8, 24.0, UNKNOWN, None, None, "amd"),
        ("tpu-host-1", "TPU-v6e", 8, 31.25, "fabric", None, None, "google"),
    ]


def test_karpenter_nodepool_with_several_instance_families_is_one_pool_per_family():
    inv = load_kubernetes_text(textwrap.dedent("""\
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: gpu}
        spec:
          template:
            spec:
              requirements:
                - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e, p5]}
              taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
        """), "np.yaml")
    assert [(p.name, p.gpu.name, p.accelerator) for p in inv.pools] == [
        ("gpu/g6e", "L40S", "nvidia"), ("gpu/p5", "H100-SXM-80GB", "nvidia")]


@pytest.mark.parametrize("devices,tp,messages", [
    (2, 8, [("SW204", "advisory", True, "cannot decide: how many vLLM devices 2 aws.amazon.com/neuron hold is not "
          "known (one holds 2 to 8: aws.amazon.com/neuron counts Neuron devices of 2 (Inferentia2, Trainium1) to 8 "
          "(Trainium2) NeuronCores, and tensor parallelism counts NeuronCores; request aws.amazon.com/neuroncore "
          "to compare with the layout)")]),
    (1, 16, [("SW204", "mandatory", False, "the pod requests 1 aws.amazon.com/neuron (2 to 8 NeuronCores) but "
              "TP16×PP1 starts 16 workers; vLLM cannot start with fewer NeuronCores than workers; write "
              "aws.amazon.com/neuron: 8 under the vLLM container's resources.limits")]),  # 8 devices of at least 2 cores hold 16
])
def test_neuron_devices_are_compared_with_the_cores_they_hold(devices, tp, messages):
    """aws.amazon.com/neuron counts devices of 2 to 8 NeuronCores: TP8 on 2 devices may or may not fit (the
    generation decides), TP16 on 1 device cannot (8 cores at most)."""
    inv = load_inputs([FAMILIES])
    g = next(g for g in inv.groups if g.name == "trn1-neuron")
    g.accelerator_resource = g.main_container.accelerator_resource = "aws.amazon.com/neuron"
    g.gpus_per_pod, g.engine.tensor_parallel_size = devices, tp
    found = [f for f in run_rules(ALL_RULES, inv) if f.code in ("SW204", "SW208") and f.subject.endswith("trn1-neuron")]
    # undecided topology findings are advisory unless the config says unknown = "fail"
    assert [(f.code, f.level, f.undecided, f.message) for f in found] == messages


def test_gpu_request_message_names_the_resource():
    inv = load_inputs([FAMILIES])
    g = next(g for g in inv.groups if g.name == "amd-mi300x")
    g.gpus_per_pod = 1
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW204"]
    assert f.message == ("the pod requests 1 amd.com/gpu but TP2×PP1 starts 2 workers; vLLM cannot start with fewer "
                         "GPUs than workers; write amd.com/gpu: 2 under the vLLM container's resources.limits")


def _ascend(npus: int) -> str:
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: qwen-ascend, namespace: npu}}
        spec:
          selector: {{matchLabels: {{app: qwen-ascend}}}}
          template:
            metadata: {{labels: {{app: qwen-ascend}}}}
            spec:
              containers:
                - name: vllm
                  image: quay.io/ascend/vllm-ascend:v0.11.0rc1
                  args: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, "2"]
                  resources:
                    limits: {{huawei.com/Ascend910: "{npus}"}}
        """)


@pytest.mark.parametrize("npus,messages", [
    (1, [("advisory", "cannot decide: how many vLLM devices 1 huawei.com/Ascend910 hold is not known (one "
                      "holds 1 to 2: an Atlas A2 server's Ascend910 is one NPU, an Atlas A3 chip holds two NPU dies, "
                      "each a vLLM worker)")]),
    (2, []),
])
def test_ascend_npus_are_accelerators_and_not_nccl(tmp_path, npus, messages):
    """vllm-ascend on Huawei Ascend NPUs: huawei.com/Ascend910 is an accelerator request; fewer than the
    layout's workers cannot be judged (chips or dies), enough passes; the NVIDIA-only rules (NCCL's
    /dev/shm, NVLink, EFA) stay silent."""
    path = tmp_path / "ascend.yaml"
    path.write_text(_ascend(npus), encoding="utf-8")
    inv = load_inputs([str(path)])
    [g] = inv.groups
    assert (group_vendor(g), g.accelerator_resource, g.gpus_per_pod) == ("huawei", "huawei.com/Ascend910", npus)
    found = run_rules(ALL_RULES, inv)
    assert [(f.level, f.message) for f in found if f.code == "SW204"] == messages
    assert [f.code for f in found if f.code in ("SW201", "SW202", "SW203", "SW205", "SW401")] == []


def test_cloud_run_services_are_sized_on_the_gpu_their_selector_attaches():
    """A Knative Service as Cloud Run takes it (tests/fixtures/rules/SW101/cloud-run-knative.yaml): the selector
    run.googleapis.com/accelerator names the GPU, so neither service is left to SW206; gemma-2-27b's weights block
    on the L4 and not on the RTX PRO 6000."""
    inv = load_inputs([str(FIXTURES / "rules" / "SW101" / "cloud-run-knative.yaml")])
    got = sorted((f.code, f.subject, f.level) for f in run_rules(ALL_RULES, inv) if f.code in ("SW101", "SW206"))
    assert got == [("SW101", "Knative Service default/gemma-27b-l4", "mandatory")]
    pools = {g.name: (g.pool.gpu.name, g.pool.gpus_per_node) for g in inv.groups if g.pool is not None}
    assert pools == {"gemma-27b-l4": ("L4", 1), "gemma-27b-rtx-pro": ("RTX-PRO-6000-Blackwell", 1)}


def test_a_bare_family_name_says_why_its_memory_is_unknown():
    """Volcengine's ``Tesla-V100`` (vllm-project/aibrix's autoscaling sample) is a V100 of 16 or 32 GB: the capacity
    rules say which is missing instead of "a computed value"."""
    from shardwise.rules.capacity.group import gpu_memory_gib
    from shardwise.rules.model import ServingGroup, Undecidable

    pool = pool_from_labels("gpu-name=Tesla-V100", {"machine.cluster.vke.volcengine.com/gpu-name": "Tesla-V100"},
                            Location("f", 1))
    assert pool.gpu_memory_why == ("the label names 'Tesla-V100', a GPU the catalog holds in several memory sizes, "
                                   "and no label says which")
    with pytest.raises(Undecidable) as err:
        gpu_memory_gib(ServingGroup(name="g", kind="Deployment", location=Location("f", 1), pool=pool))
    assert err.value.text == ("GPU memory of node pool `gpu-name=Tesla-V100` is not known (the label names "
                              "'Tesla-V100', a GPU the catalog holds in several memory sizes, and no label says which)")
    # a memory label picks the size, as GPU Feature Discovery's does for Karpenter's bare names
    sized = pool_from_labels("p", {"machine.cluster.vke.volcengine.com/gpu-name": "Tesla-V100",
                                   "nvidia.com/gpu.memory": "32768"}, Location("f", 1))
    assert (sized.gpu.name, sized.gpu_memory_gib, sized.gpu_memory_why) == ("V100-32GB", 31.75, "")


def test_an_ec2_bare_gpu_name_says_what_would_pick_its_size():
    """A node labelled only ``karpenter.k8s.aws/instance-gpu-name=a100`` may be a p4d (A100 40 GB) or a p4de (80 GB):
    its memory is unknown, with what would pick it, not the A100's first size."""
    pool = pool_from_labels("p", {"karpenter.k8s.aws/instance-gpu-name": "a100"}, Location("f", 1))
    assert (pool.gpu, pool.gpu_memory_gib) == (None, UNKNOWN)
    assert pool.gpu_memory_why == ("the label names 'a100', EC2's name for a GPU that AWS instance types carry in "
                                   "several memory sizes, and no instance type, instance family or GPU memory label "
                                   "says which")


def test_a_deployment_selecting_an_ec2_bare_gpu_name_alone_is_judged_on_each_size():
    """Qwen3-32B (61 GiB of bf16 weights) selecting ``instance-gpu-name: a100`` with no NodePool in the input: the node
    may be a p4d (A100 40 GB: it does not load) or a p4de (80 GB: it loads), so SW101 does not block. Before bare15 it
    was judged on the A100 40 GB and blocked; bare15 made it "cannot decide"; place16 judges each kind, as bare15 does
    for a NodePool of that name (SW101/karpenter-bare-gpu-name.yaml), and says where it holds."""
    inv = load_kubernetes_text(textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: qwen32b, namespace: serving}
        spec:
          selector: {matchLabels: {app: qwen32b}}
          template:
            metadata: {labels: {app: qwen32b}}
            spec:
              nodeSelector: {karpenter.k8s.aws/instance-gpu-name: a100}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [Qwen/Qwen3-32B, --max-model-len, "32768"]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """), "qwen32b.yaml")
    got = [(f.code, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW101"]
    assert got == [("SW101", "advisory", (
        "Qwen/Qwen3-32B in bf16 needs 61.0 GiB (−0.4/+1.5) of weights per GPU at TP1×PP1, but gpu_memory_utilization "
        "0.9 × 39.4 GiB (A100-40GB) allows 35.5 GiB; vLLM will fail at start-up (vLLM 0.11.0 from the image tag); "
        "--tensor-parallel-size 4 starts (15.3 GiB of weights per GPU), with 4 nvidia.com/gpu requested per pod "
        "(advisory: the selector (instance-gpu-name=a100) names a GPU by a bare family name that may be p4d "
        "(A100-40GB) or p4de (A100-80GB), and this holds on p4d (A100-40GB) only; name one size (the GPU's full name, "
        "as GPU Feature Discovery writes it: `NVIDIA-A100-SXM4-80GB`; an instance type or family; or a GPU memory "
        "label) to have it judged on that one)"))]


def test_a_gpu_memory_floor_keeps_the_80_gb_kind_of_a_bare_a100():
    """A NodePool of ``instance-gpu-name In [a100, h100]`` and ``instance-gpu-memory Gt 50000`` launches p4de (A100
    80 GB) and p5 (H100), not p4d (A100 40 GB): a pod that selects ``a100`` or ``v100`` lands on p4de. Before, ``a100``
    was read as the 40 GB part only, the floor ruled it out, and SW206 said the pod matched no pool."""
    inv = load_kubernetes_text(textwrap.dedent("""\
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: gpu}
        spec:
          template:
            spec:
              requirements:
                - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: ["a100", "h100"]}
                - {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ["50000"]}
              nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: q, namespace: serving}
        spec:
          selector: {matchLabels: {app: q}}
          template:
            metadata: {labels: {app: q}}
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions:
                          - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [v100, a100]}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [Qwen/Qwen3-32B, --max-model-len, "16384"]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """), "gpu.yaml")
    assert [(p.name, p.gpu.name if p.gpu else None) for p in inv.pools] == [
        ("gpu/a100/p4de", "A100-80GB"), ("gpu/h100", "H100-SXM-80GB")]
    assert [(g.name, g.pool.name if g.pool else None) for g in inv.groups] == [("q", "gpu/a100/p4de")]
    assert [f.code for f in run_rules(ALL_RULES, inv) if f.code.startswith(("SW1", "SW2"))] == []


def test_a_node_with_a_bare_gfd_product_is_judged_on_each_size():
    """A hand-written Node labelled ``nvidia.com/gpu.product: NVIDIA-A100`` (NVML writes the full name, so no size is
    said) is each A100 of the catalog: Qwen3-32B does not load on the 40 GB ones only, so SW101 does not block (place16:
    it was judged on the A100 40 GB, mandatory); 70B at TP1 fits none, mandatory."""
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata:
          name: gpu-1
          labels: {nvidia.com/gpu.product: NVIDIA-A100, nvidia.com/gpu.count: "8", kubernetes.io/hostname: gpu-1}
        status:
          capacity: {nvidia.com/gpu: "8"}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: MODEL, namespace: serving}
        spec:
          selector: {matchLabels: {app: MODEL}}
          template:
            metadata: {labels: {app: MODEL}}
            spec:
              nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [REPO, --max-model-len, "8192"]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """)
    levels = {}
    for name, repo in (("qwen32b", "Qwen/Qwen3-32B"), ("llama70b", "meta-llama/Llama-3.1-70B-Instruct")):
        inv = load_kubernetes_text(text.replace("MODEL", name).replace("REPO", repo), "node.yaml")
        levels[name] = [(f.level, f.message.split(" (advisory: ")[-1][:100]) for f in run_rules(ALL_RULES, inv)
                        if f.code == "SW101"]
    assert levels == {
        "qwen32b": [("advisory", "Node `gpu-1` names a GPU by a bare family name that may be A100-40GB, A100-80GB, "
                                 "A100-PCIe-40GB or A")],
        "llama70b": [("mandatory", "meta-llama/Llama-3.1-70B-Instruct in bf16 needs 131.4 GiB (−0.7/+2.9) of weights "
                                   "per GPU at TP1×PP1,")],
    }
