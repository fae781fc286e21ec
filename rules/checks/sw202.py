"""SW202: tensor parallelism over GPUs joined only by PCIe."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import nccl_rules_apply, tp_pp


class TensorParallelOverPcie(GroupRule):
    meta = RuleMeta(
        code="SW202",
        name="tensor-parallel-over-pcie",
        enforcement="mandatory",
        severity="high",
        summary="tensor_parallel_size > 1 on GPUs joined only by PCIe.",
        why=(
            "Without NVLink the per-layer all-reduce of tensor parallelism runs over PCIe at a small "
            "fraction of NVLink's bandwidth and competes with host traffic; the group is slower than "
            "independent replicas on the same GPUs."
        ),
        bad_example="--tensor-parallel-size 4   # g5.12xlarge: 4 A10G on PCIe",
        good_example="--tensor-parallel-size 4   # p4d/p5: 8 GPUs on NVSwitch",
        remediation=(
            "Run one replica per GPU with a model that fits (quantise it if needed), or move the workload "
            "to a pool with NVLink/NVSwitch."
        ),
        references=("https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",),
    )
    fields = ("tensor_parallel_size",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is None or not nccl_rules_apply(g):
            return
        tp, _ = tp_pp(g)
        if tp <= 1 or g.pool.interconnect != "pcie":
            return
        gpu = g.pool.gpu.name if g.pool.gpu else "GPUs"
        yield hit(
            g,
            f"SW202: tensor_parallel_size is {tp} but pool `{g.pool.name}` ({gpu}) joins its GPUs only by "
            "PCIe; TP needs NVLink or NVSwitch",
        )
