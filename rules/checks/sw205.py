"""SW205: a serving group that spans nodes without a fast fabric."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import PODS_PER_GROUP, layout, require_model
from ..capacity.layout import plural
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable, known
from ._capacity import nccl_rules_apply
from ._layout import gpus_per_node, in_one_nvlink_domain, requests_efa
from ._unseen import held_back_hits

FAST_FABRICS = ("efa", "infiniband")


class MultiNodeWithoutFastFabric(GroupRule):
    meta = RuleMeta(
        code="SW205",
        name="multi-node-without-fast-fabric",
        enforcement="advisory",
        severity="high",
        summary=(
            "A group spans nodes but its pool has no fast fabric (EFA/InfiniBand) or its pods do not use it "
            "(mandatory when tensor-parallel or expert traffic crosses the node boundary)."
        ),
        why=(
            "NCCL falls back to TCP sockets between nodes without EFA or InfiniBand; on AWS the pods must "
            "also request vpc.amazonaws.com/efa devices, or the traffic never reaches the fabric. When the "
            "tensor-parallel group (or a Mixture-of-Experts layer's expert group) crosses the node boundary, "
            "every layer of every step waits for an all-reduce or all-to-all over TCP, which makes the "
            "replica many times slower than one node. When only pipeline stages cross nodes (TP inside a "
            "node, PP across), one activation tensor per stage and step crosses: slower, but it works."
        ),
        bad_example=(
            "kind: LeaderWorkerSet   # size 2 on g5.48xlarge (no EFA), 8 GPUs per pod\n"
            "args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '16']"
        ),
        good_example=(
            "kind: LeaderWorkerSet   # size 2 on p5.48xlarge\n"
            "args: [meta-llama/Llama-3.1-405B-Instruct, --tensor-parallel-size, '8', "
            "--pipeline-parallel-size, '2']\n"
            "resources:\n  limits:\n    vpc.amazonaws.com/efa: 32"
        ),
        remediation=(
            "Run multi-node groups on an EFA-capable pool (p4d, p5, p5e, p5en, p6) with EFA interfaces, a "
            "cluster placement group and one subnet, and request vpc.amazonaws.com/efa in every pod. Keep "
            "the tensor-parallel group inside one node (TP at most the GPUs per node) and span nodes with "
            "pipeline parallelism. Where a pool does not say whether it has EFA, name its instance type or label "
            "it shardwise.dev/efa."
        ),
        references=(
            "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
            "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
        ),
        mandatory_when="when the tensor-parallel or expert group crosses the node boundary",
    )
    fields = ("nodeSelector", "affinity")  # the line a finding points at
    reads_pool = True  # GPUs per node and EFA: judged on every kind a NodePool may launch

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether it spans nodes without a fast fabric")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is None or not nccl_rules_apply(g):
            return
        pods = int(known(g.pods_per_group, PODS_PER_GROUP))
        if pods <= 1:
            return
        pool = g.pool
        fabric = (pool.labels.get("shardwise.dev/fabric") or pool.fabric or "").lower()
        if fabric == "infiniband":
            return
        lay = layout(g)
        if in_one_nvlink_domain(g, lay.world):
            return
        efa = known(pool.efa, f"EFA of pool `{pool.name}`")
        sure = efa is not None
        if efa is None:
            lacking = f"pool `{pool.name}`, which does not say whether it has EFA"
        elif not efa:
            lacking = f"pool `{pool.name}`, which has no EFA or InfiniBand"
        elif g.kind != "plan" and not requests_efa(g):
            # (a plan's group has no pods yet: the LeaderWorkerSet plan --emit writes requests the pool's EFA devices)
            lacking = f"EFA pool `{pool.name}`, but its pods request no vpc.amazonaws.com/efa devices"
        else:
            return
        # the line to change: the pods' EFA request, or the selector that picked a pool without EFA
        where = g.at("resources") if efa else g.at("nodeSelector", "affinity")
        start = f"the group spans {pods:,} nodes of {lacking}"
        tcp = "over TCP" if sure else "over TCP unless the nodes have EFA or InfiniBand"
        per_node = gpus_per_node(g)
        if per_node is None:
            yield hit(g, f"{start}; whether its tensor-parallel group (TP{lay.tp}) crosses the node boundary is "
                         "not known (no nvidia.com/gpu request and no GPU count for the pool); request the GPUs "
                         "per pod to decide", where)
            return
        # what to change: the pods' EFA request where the pool has EFA, else a pool that has it
        fix = ("request the pool's vpc.amazonaws.com/efa devices in each pod's resources" if efa
               else "run it on a pool with EFA (p4d, p5) or InfiniBand" if sure else "")
        if lay.tp > per_node:
            inside = (f"keep each tensor-parallel group inside a node (--tensor-parallel-size {per_node} "
                      f"--pipeline-parallel-size {lay.tp * lay.pp // per_node})"
                      if lay.tp % per_node == 0 and (lay.tp * lay.pp) % per_node == 0 else "")
            remedy = " or ".join(r for r in (inside, fix) if r)
            yield hit(g, f"{start}, and its tensor-parallel group (TP{lay.tp}) crosses the node boundary "
                         f"({plural(per_node, 'GPU')} per node): every layer's all-reduce would run {tcp}"
                         f"{'; ' + remedy if remedy else ''}", where, level="mandatory" if sure else None)
            return
        if lay.tp * lay.pcp > per_node:
            # vLLM's ranks run TP innermost, then PCP, then PP (capacity.group.Layout): a node holds whole TP groups
            # but not the TP × PCP block, so the prefill context-parallel ranks talk across the boundary
            yield hit(g, f"{start}, and its prefill context-parallel group (TP{lay.tp}×PCP{lay.pcp}) crosses the node "
                         f"boundary ({plural(per_node, 'GPU')} per node): every layer of each prefill exchanges its "
                         f"keys and values between the PCP ranks {tcp}{'; ' + fix if fix else ''}", where)
            return
        if lay.engine > per_node:  # vLLM's world size, TP × PP × PCP (model.world_size)
            inside = f"TP{lay.tp}" + (f"×PCP{lay.pcp}" if lay.pcp > 1 else "")
            yield hit(g, f"{start}; only pipeline stages cross nodes ({inside} inside a node of "
                         f"{plural(per_node, 'GPU')}, PP{lay.pp} across), so activations between stages go "
                         f"{tcp}: it works, with more latency per step{'; for less, ' + fix if fix else ''}", where)
            return
        if lay.dp > 1:
            model = require_model(g)
            if model.moe is not None:
                yield hit(g, f"{start}, and the expert layers of {model.id} span the {lay.text()} data-parallel "
                             f"group across nodes ({plural(per_node, 'GPU')} per node): every MoE layer's all-to-all "
                             f"would run {tcp}{'; ' + fix if fix else ''}", where, level="mandatory" if sure else None)


def tcp_between_nodes(g: ServingGroup, inv: Inventory, config: LintConfig | None = None) -> list[Hit]:
    """SW205's blocking findings on the group: its tensor-parallel (or expert) traffic crosses the node boundary where
    the nodes are known to have no fabric the pods use, so it runs over TCP. Empty where that is not so or not known.
    The engine asks it of SW201 (fold22): SW201's finding that the TP group spans nodes without an RDMA fabric is the
    same root cause, and SW205, the rule about the fabric between nodes, owns the blocking finding."""
    try:
        return [h for h in MultiNodeWithoutFastFabric().check_group(g, inv, config or LintConfig())
                if h.level == "mandatory"]
    except Undecidable:
        return []
