"""SW205: a serving group that spans nodes without a fast fabric."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known
from ._capacity import tp_pp

FAST_FABRICS = ("efa", "infiniband")


class MultiNodeWithoutFastFabric(GroupRule):
    meta = RuleMeta(
        code="SW205",
        name="multi-node-without-fast-fabric",
        enforcement="mandatory",
        severity="high",
        summary="A group spans nodes but its pool has no fast fabric (EFA/InfiniBand) or its pods do not use it.",
        why=(
            "Pipeline stages on different nodes exchange activations on every step, and NCCL falls back "
            "to TCP sockets without EFA or InfiniBand. On AWS the pods must also request "
            "vpc.amazonaws.com/efa devices, or the traffic never reaches the fabric."
        ),
        bad_example="kind: LeaderWorkerSet   # size 2 on g5.48xlarge (no EFA)",
        good_example=(
            "kind: LeaderWorkerSet   # size 2 on p5.48xlarge\n"
            "resources:\n  limits:\n    vpc.amazonaws.com/efa: 32"
        ),
        remediation=(
            "Run multi-node groups on an EFA-capable pool (p4d, p5, p5e, p5en, p6) with EFA interfaces, a "
            "cluster placement group and one subnet, and request vpc.amazonaws.com/efa in every pod."
        ),
        references=(
            "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
            "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",
        ),
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is None:
            return
        pods = int(known(g.pods_per_group, "group size (leaderWorkerTemplate.size)"))
        if pods <= 1:
            return
        pool = g.pool
        fabric = (pool.labels.get("shardwise.dev/fabric") or "").lower()
        if fabric == "infiniband":
            return
        tp, pp = tp_pp(g)
        if pool.clique and (pool.nvlink_domain_size or 0) >= tp * pp:
            return
        efa = known(pool.efa, f"EFA of pool `{pool.name}`")
        if not efa:
            yield hit(g, f"SW205: the group spans {pods} nodes of pool `{pool.name}`, which has no EFA or "
                         "InfiniBand; inter-node traffic would run over TCP")
            return
        if not any(c.efa > 0 for c in g.containers):
            yield hit(g, f"SW205: the group spans {pods} nodes of EFA pool `{pool.name}` but its pods request "
                         "no vpc.amazonaws.com/efa devices")
