"""Every NVIDIA GPU of the catalog carries its CUDA compute capability (issue 28, tokens42).

NVIDIA's CUDA GPUs page (https://developer.nvidia.com/cuda-gpus) and the CUDA C++ Programming Guide's
compute-capability table: what vLLM's ``has_device_capability`` / ``is_device_capability`` /
``is_device_capability_family`` test. The ``blackwell`` label holds three of them (10.0, 10.3, 12.0), so it decides
nothing by itself.
"""

from __future__ import annotations

from shardwise.rules.catalog import gpus


def test_every_nvidia_gpu_has_its_compute_capability_and_no_other_vendor_has_one():
    got = {g.name: g.compute_capability for g in gpus().values()}
    assert {name: cc for name, cc in got.items() if cc is not None} == {
        "V100-16GB": (7, 0), "V100-32GB": (7, 0), "T4": (7, 5),
        "A100-40GB": (8, 0), "A100-80GB": (8, 0), "A100-PCIe-40GB": (8, 0), "A100-PCIe-80GB": (8, 0),
        "A800-80GB": (8, 0), "A30": (8, 0),
        "A10G": (8, 6), "A10": (8, 6), "A40": (8, 6), "RTX-A5000": (8, 6), "RTX-A6000": (8, 6), "RTX-3090": (8, 6),
        "L4": (8, 9), "L40S": (8, 9), "L40": (8, 9), "L20": (8, 9), "RTX-4090": (8, 9), "RTX-6000-Ada": (8, 9),
        "RTX-4000-Ada": (8, 9),
        "H100-SXM-80GB": (9, 0), "H100-PCIe-80GB": (9, 0), "H100-NVL-94GB": (9, 0), "H800": (9, 0),
        "H200-141GB": (9, 0), "H20": (9, 0), "H20-141GB": (9, 0), "GH200": (9, 0), "GH200-144GB": (9, 0),
        "B200": (10, 0), "GB200": (10, 0), "B300": (10, 3), "GB300": (10, 3),
        "RTX-5090": (12, 0), "RTX-PRO-6000-Blackwell": (12, 0), "RTX-PRO-5000-Blackwell": (12, 0),
        "RTX-PRO-4500-Blackwell": (12, 0),
    }
    assert all((g.compute_capability is not None) == (g.vendor == "nvidia") for g in gpus().values())


def test_the_blackwell_label_holds_the_10x_family_and_sm_120():
    blackwell = {g.name: g.compute_capability for g in gpus().values() if g.architecture == "blackwell"}
    assert sorted(set(blackwell.values())) == [(10, 0), (10, 3), (12, 0)]
