"""AMD's node labeller's ``amd.com/gpu.vram`` is read, and MI300A is in the catalog (readers17).

ROCm/k8s-device-plugin v1.31.0.10 (dea1db13), ``cmd/k8s-node-labeller/main.go``: the ``vram`` labeller reads each
GPU's KFD memory bank (``mem_banks/0/properties`` ``size_in_bytes``), rounds it to whole GiB and writes ``<n>G``;
``createLabels`` writes ``amd.com/gpu.vram=<n>G`` (and ``beta.amd.com/gpu.vram=<n>G``) where the node's GPUs are all
one size. A pod that selects it (nodeSelector, or a node-affinity ``In`` of one value) is sized on that memory, as one
that selects ``nvidia.com/gpu.memory``; with ``amd.com/gpu.product-name`` it picks the product's size. A value not
in that form is named in an advisory "cannot decide", never read as a size. MI300A: AMD's data sheet and product page
(128 GB HBM3 unified memory shared by 24 Zen 4 cores and 228 CDNA 3 compute units).
"""

from __future__ import annotations

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.catalog import find_gpu
from shardwise.rules.catalog.hardware import pool_from_labels
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, Location


@pytest.mark.parametrize(("labels", "gpu", "memory"), [
    ({"amd.com/gpu.vram": "192G"}, None, 192.0),
    ({"beta.amd.com/gpu.vram": "128G"}, None, 128.0),
    ({"amd.com/gpu.product-name": "AMD_Instinct_MI300X_OAM", "amd.com/gpu.vram": "192G"}, "MI300X", 191.98),
    ({"amd.com/gpu.product-name": "AMD_Instinct_MI300A"}, "MI300A", 127.98),
])
def test_the_labeller_s_vram_is_the_gpu_memory(labels, gpu, memory):
    pool = pool_from_labels("amd", labels, Location("nodes.yaml", 1))
    assert (pool.gpu.name if pool.gpu else None, pool.gpu_memory_gib) == (gpu, memory)


def test_a_vram_value_not_in_the_labeller_s_form_is_unknown_and_named():
    pool = pool_from_labels("amd", {"amd.com/gpu.vram": "192GB"}, Location("nodes.yaml", 1))
    assert pool.gpu_memory_gib is UNKNOWN
    assert pool.gpu_memory_why == ("the label amd.com/gpu.vram is '192GB', not the AMD node labeller's form (the GPUs' "
                                   "memory in whole GiB then G, as `192G`)")


def test_mi300a_is_in_the_catalog_with_its_source():
    gpu = find_gpu("AMD Instinct MI300A")
    assert (gpu.name, gpu.memory_gb, gpu.memory_gib, gpu.vendor, gpu.interconnect) == (
        "MI300A", 128, 127.98, "amd", "fabric")
    assert gpu.source == "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300a.html"


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-70b, namespace: serving}
spec:
  replicas: 2
  selector: {matchLabels: {app: llama-70b}}
  template:
    metadata: {labels: {app: llama-70b}}
    spec:
      nodeSelector:
        amd.com/gpu.vram: VRAM
      containers:
        - name: vllm
          image: rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812
          args: ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192"]
          resources:
            limits: {amd.com/gpu: 1}
"""


def _sw101(vram: str) -> list[tuple[str, str]]:
    inv = load_kubernetes_text(DEPLOYMENT.replace("VRAM", vram), "llama.yaml")
    return [(f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW101"]


def test_a_pod_selecting_the_vram_label_is_sized_on_it():
    """Before, the label was not read: the pod had no pool to be sized on."""
    assert _sw101("128G") == [("mandatory", (
        "meta-llama/Llama-3.1-70B-Instruct in bf16 needs 131.4 GiB (−0.7/+2.9) of weights per GPU at TP1×PP1, but "
        "gpu_memory_utilization 0.9 × 128.0 GiB (GPU labelled 128 GiB) allows 115.2 GiB; vLLM will fail at start-up (vLLM 0.10.0 "
        "from the image tag); --tensor-parallel-size 2 starts (65.7 GiB of weights per GPU), with 2 amd.com/gpu "
        "requested per pod"))]
    assert _sw101("192G") == []
    [(level, message)] = _sw101("128GB")
    assert level == "advisory"
    assert message.startswith("cannot decide: GPU memory of node pool `gpu.vram=128GB` is not known (the label "
                              "amd.com/gpu.vram is '128GB', not the AMD node labeller's form")


def test_a_vram_under_the_whole_gpu_s_is_one_partition():
    """amd17 judged an MI300X device on each size it may be (the whole GPU, a CPX partition's share) where no label
    names the mode; the labeller's vram is the memory of the device it sees, so ``48G`` on an MI300X node is one
    partition of 48 GiB, judged on that size, with no fabric assumed. ``192G`` does not say the GPU is whole (CPX
    partitions of one memory partition each see it all): both sizes, as before."""
    from shardwise.rules.adapters.k8s.nodes import pool_from_selector

    text = DEPLOYMENT.replace("amd.com/gpu.vram: VRAM", "amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM\n"
                              "        amd.com/gpu.vram: VRAM")
    [g] = load_kubernetes_text(text.replace("VRAM", "48G"), "llama.yaml").groups
    pool = pool_from_selector(g)
    assert not isinstance(pool, list) and pool is not None
    assert (pool.gpu.name, pool.gpu_memory_gib, pool.interconnect) == ("MI300X", 48.0, UNKNOWN)
    [g] = load_kubernetes_text(text.replace("VRAM", "192G"), "llama.yaml").groups
    kinds = pool_from_selector(g)
    assert isinstance(kinds, list) and sorted(k.gpu_memory_gib for k in kinds) == [24.0, 191.98]
