"""GPUs that public recipes name and the catalog lacked (issue 28): the China-market Hopper and Ampere parts (H20 and
its 141 GB variant, H800, A800), the L20, and the GB300 of an NVL72 rack.

Each record is checked against the figures its sources give (see the entry's ``source`` and ``note`` in
``rules/catalog/data/gpus.json``), and the spellings a node label or a recipe uses resolve to it.
"""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.catalog import find_gpu
from shardwise.rules.catalog.speeds import speed_of


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # (memory_gb, memory_gib, architecture, fp8, interconnect, nvlink_domain_size)
        ("H20", (96, 95.12, "hopper", True, "nvswitch", 8)),
        ("H20-141GB", (141, 139.81, "hopper", True, "nvswitch", 8)),
        ("H800", (80, 79.19, "hopper", True, "nvswitch", 8)),
        ("A800-80GB", (80, 79.15, "ampere", False, "nvswitch", 8)),
        ("L20", (48, 44.31, "ada", True, "pcie", 1)),
        ("GB300", (288, 267.88, "blackwell", True, "nvswitch", 72)),
    ],
)
def test_records_hold_the_published_figures(name, expected):
    g = find_gpu(name)
    assert (g.memory_gb, g.memory_gib, g.architecture, g.fp8, g.interconnect, g.nvlink_domain_size) == expected
    assert (g.vendor, g.k8s_resource) == ("nvidia", "nvidia.com/gpu")


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("NVIDIA-H20", "H20"),  # GPU Feature Discovery's nvidia.com/gpu.product
        ("NVIDIA H20", "H20"),  # nvidia-smi's name
        ("H20-3e", "H20-141GB"),
        ("NVIDIA-H800", "H800"),
        ("NVIDIA H800 80GB HBM3", "H800"),
        ("NVIDIA-A800-SXM4-80GB", "A800-80GB"),
        ("A800", "A800-80GB"),
        ("NVIDIA-L20", "L20"),
        ("NVIDIA-GB300", "GB300"),
        ("nvidia-gb300", "GB300"),
    ],
)
def test_spellings_resolve(spelling, canonical):
    assert find_gpu(spelling).name == canonical


def test_the_node_memory_label_picks_the_h20_variant():
    # nvidia-smi totals: 97,871 MiB on the 96 GB part (public listings); 143,771 MiB on a 141 GB HBM3e part (H200's)
    assert find_gpu("h20", memory_mib=97871).name == "H20"
    assert find_gpu("h20", memory_mib=143771).name == "H20-141GB"
    # the H100 family is not the H800's: an H100 label never becomes an H800
    assert find_gpu("h100", memory_mib=81559).name == "H100-SXM-80GB"


def test_the_capped_nvlink_parts_send_less_per_direction():
    # H800 and A800 keep their siblings' memory and compute and halve or cut NVLink (400 GB/s both ways)
    h800, h100 = speed_of("H800"), speed_of("H100-SXM-80GB")
    assert h800 is not None and h100 is not None
    assert (h800.memory_bandwidth_gb_s, h800.dense_16bit_tflops, h800.link_gb_s) == (3350, 989.4, 200)
    assert (h100.memory_bandwidth_gb_s, h100.dense_16bit_tflops, h100.link_gb_s) == (3350, 989.4, 450)
    a800 = speed_of("A800-80GB")
    assert a800 is not None and (a800.memory_bandwidth_gb_s, a800.link_gb_s) == (2039, 200)
    h20 = speed_of("H20")
    assert h20 is not None and (h20.memory_bandwidth_gb_s, h20.dense_16bit_tflops, h20.link_gb_s) == (4000, 148, 450)
    h20e = speed_of("H20-141GB")
    assert h20e is not None and (h20e.memory_bandwidth_gb_s, h20e.link_gb_s) == (4917, 450)
    assert speed_of("L20") is None and speed_of("GB300") is None  # no datasheet figures read: no estimate


def test_plan_sizes_deepseek_r1_on_eight_h20(capsys):
    # at TP8 the FP8 checkpoint's 79.52 GiB of weights per GPU (with MLA's 16-bit kv_b_proj copy) leave too little
    # of 95.12 GiB (the current release, 0.34, sizes an extensible KV cache: utilization 1.0) for one request of the
    # full 163,840 tokens: exit 1 with SW102
    assert main(["plan", "--model", "deepseek-ai/DeepSeek-R1", "--gpu", "H20", "--tp", "8"]) == 1
    out, _ = capsys.readouterr()
    assert "on H20 (95.1 GiB), TP8 × PP1 = 8 GPUs per engine" in out
    assert "79.52 GiB per GPU" in out
    assert "95.12 GiB (1 × 95.12)" in out
    assert "SW102 [mandatory]" in out
