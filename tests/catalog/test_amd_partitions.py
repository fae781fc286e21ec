"""AMD Instinct partitions (amd17): what the ROCm device plugin and node labeller advertise, and the memory one
``amd.com`` device holds per mode (rules/catalog/partitions.py gives the sources)."""

from __future__ import annotations

import textwrap

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.catalog import find_gpu
from shardwise.rules.catalog.accelerators import devices_per_unit, family_known, vendor_of
from shardwise.rules.catalog.partitions import label_mode, mode_of, partition_sizes
from shardwise.rules.model import UNKNOWN


@pytest.mark.parametrize(("gpu", "mode", "sizes"), [
    ("MI300X", None, [("spx", 191.98), ("cpx 1/8", 24.0)]),  # no mode known: the whole GPU and the smallest
    ("MI300X", "spx_nps1", [("spx_nps1", 191.98)]),
    ("MI300X", "dpx_nps2", [("dpx_nps2 1/2", 95.99)]),  # each DPX partition owns an NPS2 half
    ("MI300X", "cpx_nps4", [("cpx_nps4 1/8", 24.0), ("cpx_nps4 1/4", 47.99)]),  # two XCDs share a 48 GB quarter
    ("MI300X", "cpx_nps1", [("cpx_nps1 1/8", 24.0), ("cpx_nps1 1/1", 191.98)]),  # eight share the whole HBM
    ("MI325X", None, [("spx", 255.98), ("cpx 1/8", 32.0)]),
    ("MI355X", "cpx_nps4", [("cpx_nps4 1/8", 36.0), ("cpx_nps4 1/4", 72.0)]),
    ("MI250X", None, [("whole", 63.98)]),  # does not partition this way: one GCD is one amd.com/gpu
    ("H100-SXM-80GB", "cpx_nps4", [("whole", 79.19)]),
])
def test_partition_sizes(gpu, mode, sizes):
    assert partition_sizes(find_gpu(gpu), mode) == sizes


def test_modes_as_the_device_plugin_and_labeller_write_them():
    assert mode_of("amd.com/cpx_nps4") == "cpx_nps4"  # the mixed strategy's resource
    assert mode_of("CPX_NPS4") == "cpx_nps4"  # sysfs writes CPX and NPS4; the plugin lower-cases them
    assert mode_of("amd.com/gpu") is None and mode_of("cpx") is None and mode_of(None) is None
    assert label_mode({"amd.com/gpu.compute-memory-partition": "cpx_nps4"}) == "cpx_nps4"  # the labeller's code
    assert label_mode({"amd.com/compute-memory-partition": "dpx_nps2"}) == "dpx_nps2"  # its docs, the operator
    assert label_mode({"amd.com/compute-partitioning-supported": "true"}) is None


def test_a_modes_resource_is_one_amd_device():
    for resource in ("amd.com/cpx_nps4", "amd.com/spx_nps1", "amd.com/dpx_nps2", "amd.com/qpx_nps1"):
        assert (family_known(resource), vendor_of(resource), devices_per_unit(resource)) == (True, "amd", (1, 1))
    assert not family_known("amd.com/gpu.product-name")


def _pools(text):
    inv = load_kubernetes_text(textwrap.dedent(text), "nodes.yaml")
    return [(p.name, p.gpu.name, p.gpu_memory_gib, p.interconnect, p.nvlink_domain_size) for p in inv.pools]


def test_nodes_by_partition_label_and_mixed_resources():
    assert _pools("""\
        apiVersion: v1
        kind: Node
        metadata:
          name: mixed-cpx
          labels: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM}
        status:
          capacity: {amd.com/cpx_nps4: "64", cpu: "192"}
        ---
        apiVersion: v1
        kind: Node
        metadata:
          name: labelled-dpx
          labels: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM, amd.com/compute-memory-partition: dpx_nps2}
        status:
          capacity: {amd.com/gpu: "16"}
        ---
        apiVersion: v1
        kind: Node
        metadata:
          name: labelled-spx
          labels: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM, amd.com/gpu.compute-memory-partition: spx_nps1}
        status:
          capacity: {amd.com/gpu: "8"}
        """) == [
        ("mixed-cpx/cpx_nps4 1/8", "MI300X", 24.0, UNKNOWN, UNKNOWN),
        ("mixed-cpx/cpx_nps4 1/4", "MI300X", 47.99, UNKNOWN, UNKNOWN),
        ("labelled-dpx", "MI300X", 95.99, UNKNOWN, UNKNOWN),
        ("labelled-spx", "MI300X", 191.98, "fabric", None),  # as before amd17
    ]
