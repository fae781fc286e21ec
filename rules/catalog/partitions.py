"""AMD Instinct GPU partitions: what the ROCm device plugin and node labeller advertise, and the memory one holds.

MI300X, MI325X and MI355X split into compute partitions (SPX 1, DPX 2, QPX 4, CPX one per XCD: 8) and memory
partitions (NPS1 whole, NPS2 halves, NPS4 quarters: "NPS4 mode ... creates four memory partitions of 48GB each" on
an MI300X, instinct.docs.amd.com, "Quick Start Guide to Partitioning MI300X GPUs"; 8 XCDs per MI300X, the same
site's "MI300X GPU Partitioning Overview"; SPX/DPX/QPX/CPX giving 1/2/4/8 logical GPUs on MI325X and MI355X,
aac.amd.com, "GPU Partitioning Modes").

What Kubernetes sees (github.com/ROCm/k8s-device-plugin at v1.31.0.10, commit dea1db13):

- the device plugin's ``-resource_naming_strategy`` is ``single`` by default: every GPU *or partition* of a node is
  one ``amd.com/gpu`` ("A node which has 8 GPUs where all GPUs are partitioned using CPX-NPS4 style will report
  its resources as amd.com/gpu: 64", docs/user-guide/configuration.md); ``mixed`` advertises each partition under
  its mode, ``amd.com/<compute>_<memory>`` lower-cased (``amd.com/cpx_nps4``, ``amd.com/spx_nps1``;
  cmd/k8s-device-plugin/main.go ``getResourceList``, internal/pkg/amdgpu/amdgpu.go ``UniquePartitionConfigCount``,
  which joins sysfs ``current_compute_partition`` and ``current_memory_partition``);
- the node labeller, only when started with ``compute-memory-partition``, labels a node whose GPUs share one mode
  ``amd.com/gpu.compute-memory-partition=<mode>`` (cmd/k8s-node-labeller/main.go, ``createLabelPrefix``); the docs
  and the AMD GPU operator (ROCm/gpu-operator v1.5.0, internal/utils.go ``partitionTypeLabel``) spell it
  ``amd.com/compute-memory-partition``: both are read.

So ``amd.com/gpu`` on one of these GPUs is a whole GPU or a partition, and nothing in a pod says which unless the
labeller's label or a mode's resource does. The memory one partition holds: with as many compute as memory
partitions or fewer, its own share (1/compute of the GPU: DPX-NPS2 96 GB on an MI300X); with more (CPX-NPS4: two
XCDs on each 48 GB quarter; any mode over NPS1), the partitions of one memory partition share it, so one holds
between its even share (1/compute) and the whole memory partition (1/memory). Which of those the runtime reports
as the device's total (what ``gpu_memory_utilization`` is a fraction of) the sources read do not settle: such a
partition is judged on both ends (a finding blocks only where it holds on each).
"""

from __future__ import annotations

import re

from ..model.shapes import GpuInfo

#: The node labeller's label (as its code writes it) and the spelling of its docs and of the GPU operator.
PARTITION_LABELS: tuple[str, ...] = ("amd.com/gpu.compute-memory-partition", "amd.com/compute-memory-partition")
#: Set by this reader on each kind of node a partitionable GPU of unknown mode may be: ``spx`` or ``cpx``.
ASSUMED_MODE = "shardwise.dev/amd-partition"

#: XCDs (so CPX partitions) per GPU of the catalog GPUs that partition (sources above).
_XCDS = {"MI300X": 8, "MI325X": 8, "MI355X": 8}
_COMPUTE = {"spx": 1, "dpx": 2, "tpx": 3, "qpx": 4}
_MEMORY = {"nps1": 1, "nps2": 2, "nps4": 4}
_MODE = re.compile(r"^(spx|dpx|tpx|qpx|cpx)_(nps1|nps2|nps4)$")
_RESOURCE = re.compile(r"^amd\.com/((?:spx|dpx|tpx|qpx|cpx)_nps[124])$")


def partitionable(gpu: GpuInfo | None) -> bool:
    """Whether ``gpu`` is a catalog GPU that may run partitioned."""
    return gpu is not None and gpu.name in _XCDS


def mode_of(value: str | None) -> str | None:
    """A partition mode as the device plugin writes it (``cpx_nps4``), from a label value or a mode's resource
    (``amd.com/cpx_nps4``); None when ``value`` is neither."""
    if not isinstance(value, str):
        return None
    v = value.strip().lower()
    m = _RESOURCE.match(v)
    if m:
        return m.group(1)
    return v if _MODE.match(v) else None


def label_mode(labels: dict[str, str]) -> str | None:
    """The partition mode a node's labels (or a pod's selector) name, None when none does."""
    for key in PARTITION_LABELS:
        mode = mode_of(labels.get(key))
        if mode:
            return mode
    return None


def partitions(gpu: GpuInfo, mode: str) -> tuple[int, int]:
    """(compute partitions, memory partitions) of one ``gpu`` in ``mode``."""
    compute, memory = mode.split("_", 1)
    return (_XCDS[gpu.name] if compute == "cpx" else _COMPUTE[compute]), _MEMORY[memory]


def partition_sizes(gpu: GpuInfo, mode: str | None) -> list[tuple[str, float]]:
    """The sizes (a name, the memory in GiB as the runtime reports it) one ``amd.com`` device of ``gpu`` may be.

    A known mode: one size where a partition owns its memory, else its even share and its whole memory partition.
    No mode known: the whole GPU (SPX) and the smallest partition (CPX's even share), the ends every mode lies
    between. A GPU that does not partition, or SPX: the whole GPU alone."""
    whole = gpu.memory_gib
    if not partitionable(gpu):
        return [("whole", whole)]
    if mode is None:
        xcds = _XCDS[gpu.name]
        return [("spx", whole), (f"cpx 1/{xcds}", round(whole / xcds, 2))]
    compute, memory = partitions(gpu, mode)
    if compute == 1:
        return [(mode, whole)]
    share = (f"{mode} 1/{compute}", round(whole / compute, 2))
    if compute <= memory:
        return [share]
    return [share, (f"{mode} 1/{memory}", round(whole / memory, 2))]
