"""SW206: a vLLM workload that no GPU pool can take."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known


class WorkloadWithoutGpuPool(GroupRule):
    meta = RuleMeta(
        code="SW206",
        name="workload-without-gpu-pool",
        enforcement="mandatory",
        severity="high",
        summary="A vLLM workload's node selectors match no GPU pool, or it has no selector at all.",
        why=(
            "Without a selector the scheduler may put the pod on any node that has free GPUs — a PCIe "
            "card when the layout assumed NVSwitch, a 24 GB GPU when the sizing assumed 80 GB — and no "
            "check can tell what memory or interconnect the replica will get."
        ),
        bad_example="spec:\n  containers: [...]   # no nodeSelector, no affinity",
        good_example="spec:\n  nodeSelector:\n    node.kubernetes.io/instance-type: p5.48xlarge",
        remediation=(
            "Select the GPU pool with a nodeSelector or required node affinity on its labels (shardwise.dev/pool, "
            "node.kubernetes.io/instance-type, nvidia.com/gpu.product) and tolerate its GPU taint."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/",
            "https://github.com/NVIDIA/k8s-device-plugin#gpu-feature-discovery",
        ),
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is not None:
            return
        if not known(g.node_selector, "the nodeSelector") and not g.affinity:
            yield hit(g, "SW206: the vLLM workload has no nodeSelector or node affinity; its GPU type, count "
                         "and interconnect are unknown")
            return
        wanted = ", ".join(f"{k}={v}" for k, v in g.node_selector.items())
        for term in g.affinity:
            wanted += ("; " if wanted else "") + " and ".join(
                f"{e.key} {e.operator} {list(e.values)}" if e.values else f"{e.key} {e.operator}" for e in term
            )
        known_pools = ", ".join(f"`{p.name}`" for p in inv.pools) or "none declared"
        yield hit(g, f"SW206: the selector ({wanted}) matches no GPU pool (pools: {known_pools}) and names "
                     "no GPU type")
