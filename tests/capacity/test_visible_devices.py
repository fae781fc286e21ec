"""The devices a container's NVIDIA_VISIBLE_DEVICES lists (capacity/group.visible_devices_listed), which bound a
--tensor-parallel-size not known yet where the variable lists them (review39). The NVIDIA container toolkit reads
the variable as ``all``, ``none``, ``void`` (or empty) or "a comma-separated list of GPU UUID(s) or index(es)"
(NVIDIA/nvidia-container-runtime README, NVIDIA_VISIBLE_DEVICES)."""

from __future__ import annotations

import pytest
from shardwise.rules.capacity.group import visible_devices_listed
from shardwise.rules.model import UNKNOWN


@pytest.mark.parametrize(("env", "listed"), [
    ({"NVIDIA_VISIBLE_DEVICES": "0"}, 1),
    ({"NVIDIA_VISIBLE_DEVICES": "0,1"}, 2),
    ({"NVIDIA_VISIBLE_DEVICES": " 0, 1 ,2,3"}, 4),
    ({"NVIDIA_VISIBLE_DEVICES": "0,0"}, 1),  # one device named twice
    ({"NVIDIA_VISIBLE_DEVICES": "GPU-8f1d3c2a-5b6e-4f7a-9c0d-1e2f3a4b5c6d,GPU-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"}, 2),
    ({"NVIDIA_VISIBLE_DEVICES": "0:0,0:1"}, 2),  # MIG devices by GPU and instance index
    ({"NVIDIA_VISIBLE_DEVICES": "MIG-1c2d3e4f-5a6b-7c8d-9e0f-1a2b3c4d5e6f"}, 1),
    ({"NVIDIA_VISIBLE_DEVICES": "all"}, 0),
    ({"NVIDIA_VISIBLE_DEVICES": "none"}, 0),
    ({"NVIDIA_VISIBLE_DEVICES": "void"}, 0),
    ({"NVIDIA_VISIBLE_DEVICES": ""}, 0),
    ({"NVIDIA_VISIBLE_DEVICES": "${GPU_IDS}"}, 0),  # a template fills it: never one device
    ({"NVIDIA_VISIBLE_DEVICES": "0,<MORE>"}, 0),
    ({"NVIDIA_VISIBLE_DEVICES": UNKNOWN}, 0),
    ({"CUDA_VISIBLE_DEVICES": "0,1"}, 0),  # CUDA's own variable only narrows what the container has
    ({}, 0),
])
def test_the_devices_a_visible_devices_list_names(env, listed):
    assert visible_devices_listed(env) == listed
