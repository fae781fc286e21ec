"""GPUs public manifests and start-up logs name that the catalog lacked (issue 28, catalog23): the A30, A40, L40,
RTX A6000, RTX 4000 Ada, the GH200 in its 96 GB and 144 GB forms, and the RTX PRO 5000 and 4500 Blackwell; and the MIG
tables of the A30 and the GH200.

Each record is checked against the figures its sources give (the entry's ``source``, ``memory_gib_source`` and
``note`` in ``rules/catalog/data/gpus.json``: a measured CUDA total where one was found, else nvidia-smi's total less
the gap a sibling board shows, said in the note); the spellings a node label, nvidia-smi or a recipe uses resolve to
it; and a MIG slice of them is sized from its profile's share (NVIDIA's MIG user guide for the A30, mig-parted's
default configuration for the GH200s).
"""

from __future__ import annotations

import pytest
from shardwise.rules.catalog import find_gpu
from shardwise.rules.catalog.accelerators import mig_memory_eighths, mig_profiles_of


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # (memory_gb, memory_gib, architecture, fp8, interconnect, nvlink_domain_size)
        ("A30", (24, 23.53, "ampere", False, "pcie", 1)),
        ("A40", (48, 44.43, "ampere", False, "pcie", 1)),
        ("L40", (48, 44.31, "ada", True, "pcie", 1)),
        ("RTX-A6000", (48, 47.5, "ampere", False, "pcie", 1)),
        ("RTX-4000-Ada", (20, 19.54, "ada", True, "pcie", 1)),
        ("GH200", (96, 95.12, "hopper", True, "nvlink", 4)),
        ("GH200-144GB", (144, 142.8, "hopper", True, "nvlink", 4)),
        ("RTX-PRO-5000-Blackwell", (48, 47.32, "blackwell", True, "pcie", 1)),
        ("RTX-PRO-4500-Blackwell", (32, 31.39, "blackwell", True, "pcie", 1)),
    ],
)
def test_records_hold_the_published_figures(name, expected):
    g = find_gpu(name)
    assert (g.memory_gb, g.memory_gib, g.architecture, g.fp8, g.interconnect, g.nvlink_domain_size) == expected
    assert (g.vendor, g.k8s_resource) == ("nvidia", "nvidia.com/gpu")


def test_the_cuda_totals_follow_from_what_the_sources_measured():
    # A30: PyTorch's "total capacity of 23.53 GiB"; RTX 4000 Ada: 20,982,726,656 bytes through torch; A40: vLLM
    # 0.26.0's "Free memory on device (44.17/44.43 GiB)" (held-out set 20, whose rows give the same 44.43)
    assert round(20_982_726_656 / 2**30, 2) == find_gpu("RTX-4000-Ada").memory_gib
    assert find_gpu("A40").memory_gib == 44.43
    # not measured: nvidia-smi's total less the gap of a board with the same total or memory (the notes say which)
    gap = round(32607 / 1024 - 31.37, 2)  # RTX 5090: nvidia-smi 32607 MiB, CUDA 31.37 GiB
    assert gap == 0.47
    assert round(48935 / 1024 - gap, 2) == find_gpu("RTX-PRO-5000-Blackwell").memory_gib
    assert round(32623 / 1024 - gap, 2) == find_gpu("RTX-PRO-4500-Blackwell").memory_gib
    h200_gap = round(143771 / 1024 - 139.81, 2)  # H200: nvidia-smi 143771 MiB, CUDA 139.81 GiB
    assert round(146831 / 1024 - h200_gap, 2) == find_gpu("GH200-144GB").memory_gib
    # the same nvidia-smi totals as a measured sibling: L40 as L40S (46068 MiB, the A40's too), GH200 as H20 (97871
    # MiB), RTX A6000 as RTX 6000 Ada (49140 MiB)
    assert find_gpu("L40").memory_gib == find_gpu("L40S").memory_gib
    assert find_gpu("GH200").memory_gib == find_gpu("H20").memory_gib
    assert find_gpu("RTX-A6000").memory_gib == find_gpu("RTX-6000-Ada").memory_gib


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("NVIDIA-A30", "A30"),  # GPU Feature Discovery's nvidia.com/gpu.product
        ("NVIDIA A30", "A30"),  # nvidia-smi's name
        ("NVIDIA-A40", "A40"),
        ("NVIDIA-L40", "L40"),
        ("NVIDIA-L40S", "L40S"),  # unchanged: L40 is not L40S
        ("NVIDIA-RTX-A6000", "RTX-A6000"),
        ("NVIDIA RTX A6000", "RTX-A6000"),
        ("NVIDIA-RTX-6000-Ada-Generation", "RTX-6000-Ada"),  # unchanged: not the Ampere A6000
        ("NVIDIA-RTX-4000-Ada-Generation", "RTX-4000-Ada"),
        ("NVIDIA-GH200-480GB", "GH200"),
        ("NVIDIA GH200 480GB", "GH200"),
        ("NVIDIA-GH200-144G-HBM3e", "GH200-144GB"),
        ("NVIDIA-RTX-PRO-5000-Blackwell", "RTX-PRO-5000-Blackwell"),
        ("NVIDIA-RTX-PRO-4500-Blackwell", "RTX-PRO-4500-Blackwell"),
        ("NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition", "RTX-PRO-6000-Blackwell"),  # unchanged
    ],
)
def test_spellings_resolve(spelling, canonical):
    assert find_gpu(spelling).name == canonical


def test_the_node_memory_label_picks_the_gh200_variant():
    # nvidia-smi totals: 97,871 MiB ('NVIDIA GH200 480GB'), 146,831 MiB ('NVIDIA GH200 144G HBM3e')
    assert find_gpu("gh200", memory_mib=97871).name == "GH200"
    assert find_gpu("gh200", memory_mib=146831).name == "GH200-144GB"


def test_mig_tables_of_the_a30_and_the_gh200s():
    # the A30's slices are quarters (MIG user guide, "A30 MIG Profiles": 1g.6gb 1/4, 2g.12gb 2/4, 4g.24gb Full)
    assert mig_profiles_of("A30") == ("1g.6gb", "2g.12gb", "4g.24gb")
    assert [round(23.53 * mig_memory_eighths("A30", p) / 8, 2) for p in mig_profiles_of("A30")] == [5.88, 11.77, 23.53]
    # the GH200s: mig-parted's default configuration (counts 7, 3, 2, 1, 1 -> 1/8, 2/8, 4/8, 4/8, whole)
    assert [mig_memory_eighths("GH200", p) for p in ("1g.12gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb")] == [
        1, 2, 4, 4, 8]
    assert mig_memory_eighths("GH200", "1g.24gb") is None  # mig-parted's all-1g.24gb names other device ids
    assert [mig_memory_eighths("GH200-144GB", p) for p in (
        "1g.18gb", "1g.36gb", "2g.36gb", "3g.72gb", "4g.72gb", "7g.144gb")] == [1, 2, 2, 4, 4, 8]
    assert round(142.8 * mig_memory_eighths("GH200-144GB", "3g.72gb") / 8, 2) == 71.4
    # the RTX PRO 4500's 1g.16gb is half the card: vLLM 0.29.0 read one such slice as 15.66 GiB (held-out set 21)
    assert mig_profiles_of("RTX-PRO-4500-Blackwell") == ("1g.16gb",)
    assert round(31.39 * mig_memory_eighths("RTX-PRO-4500-Blackwell", "1g.16gb") / 8, 2) == 15.7
    # a profile of another GPU, and the RTX PRO 5000 (its table not read), have no size
    assert mig_memory_eighths("A30", "1g.10gb") is None
    assert mig_profiles_of("RTX-PRO-5000-Blackwell") == ()
