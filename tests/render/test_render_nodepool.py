"""rules/render/nodepool.py: node labels and taints, launch templates (EFA layout, IMDSv2, Capacity Blocks,
instance store) and Karpenter's NodePool and EC2NodeClass.
"""

from __future__ import annotations

import pytest
from render_support import P5_EFA
from shardwise.rules.model.spec import NodePoolSpec
from shardwise.rules.render.nodepool import (
    efa_interface_count,
    efa_interfaces,
    eks_taints,
    launch_template_plan,
    node_labels,
    node_role_name,
    node_taints,
    render_karpenter,
)


def test_node_labels_and_taints():
    assert node_labels(P5_EFA) == {
        "shardwise.dev/pool": "h100-efa",
        "shardwise.dev/gpu-product": "H100-SXM-80GB",
        "shardwise.dev/gpu-count": "8",
        "shardwise.dev/gpu-memory-gib": "79.19",
        "shardwise.dev/nvlink": "nvswitch",
        "shardwise.dev/nvlink-domain-size": "8",
        "shardwise.dev/efa": "true",
    }
    l40s = NodePoolSpec(name="l40s", instance_type="g6e.12xlarge")
    labels = node_labels(l40s)
    assert (labels["shardwise.dev/nvlink"], labels["shardwise.dev/nvlink-domain-size"],
            labels["shardwise.dev/efa"], labels["shardwise.dev/gpu-count"]) == ("pcie", "1", "false", "4")
    assert node_taints() == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert eks_taints() == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]


@pytest.mark.parametrize("instance_type,cards", [("p5.48xlarge", 32), ("p5e.48xlarge", 32), ("p5en.48xlarge", 16)])
def test_efa_layout_of_the_p5_family_follows_the_ec2_guide(instance_type, cards):
    # efa-acc-inst-types.html: ENA primary at card 0 device 0, EFA-only at card 0 device 1, EFA-only at
    # device 0 of every other card; (device index, network card index, type)
    plan = launch_template_plan(NodePoolSpec(name="gpu", instance_type=instance_type, multi_node=True))
    assert plan.network_interfaces == ((0, 0, "interface"), (1, 0, "efa-only"),
                                       *((0, card, "efa-only") for card in range(1, cards)))
    # every EFA device the node offers is one the pods may request
    assert efa_interface_count(NodePoolSpec(name="gpu", instance_type=instance_type, multi_node=True)) == cards


def test_launch_template_plans():
    efa = launch_template_plan(P5_EFA)
    assert (efa.http_tokens, efa.http_put_response_hop_limit, efa.placement_group) == ("required", 1, True)
    # (device index, network card index, type): the EC2 user guide's current multi-card EFA layout
    assert efa.network_interfaces[:3] == ((0, 0, "interface"), (1, 0, "efa-only"), (0, 1, "efa-only"))
    assert efa.network_interfaces[2:] == tuple((0, card, "efa-only") for card in range(1, 32))
    assert efa_interfaces(1) == ((0, 0, "interface"), (1, 0, "efa-only"))  # p5.4xlarge: one card
    assert efa_interfaces(0) == ((0, 0, "interface"),)
    assert (efa.volume_throughput_mib_s, efa.volume_iops, efa.user_data) == (125, 3000, None)
    assert (efa.market_type, efa.instance_type) == (None, None)
    single = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge"))
    assert single.network_interfaces == ((0, 0, "interface"),)
    assert (single.http_tokens, single.http_put_response_hop_limit, single.placement_group) == ("required", 1, False)
    # Capacity Blocks: EKS requires the market type, the reservation and the instance type in the template
    block = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge",
                                                     capacity_type="capacity-block",
                                                     capacity_reservation_id="cr-0123456789abcdef0"))
    assert (block.market_type, block.instance_type) == ("capacity-block", "p5.48xlarge")
    # a faster root volume (gp3: 0.25 MiB/s per IOPS) and the instance store as RAID-0
    fast = launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge", instance_store="raid0",
                                                    disk_throughput_mib_s=1000))
    assert (fast.volume_throughput_mib_s, fast.volume_iops) == (1000, 4000)
    assert fast.user_data is not None and "kind: NodeConfig" in fast.user_data
    assert "    localStorage:\n      strategy: RAID0\n" in fast.user_data


def test_karpenter_objects():
    pool = NodePoolSpec(name="l40s", instance_type="g6e.xlarge", provisioner="karpenter", capacity_type="spot",
                        max_size=3)
    nodeclass, nodepool = render_karpenter(pool, "gpu-node", ["subnet-a"], ["sg-1"])
    assert nodeclass["spec"]["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                                    "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    assert nodeclass["spec"]["role"] == "gpu-node"
    assert nodeclass["spec"]["associatePublicIPAddress"] is False
    tpl = nodepool["spec"]["template"]
    assert tpl["metadata"]["labels"] == node_labels(pool)
    assert tpl["spec"]["taints"] == node_taints()
    assert tpl["spec"]["requirements"] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.xlarge"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
    ]
    assert nodepool["spec"]["limits"] == {"nvidia.com/gpu": "3"}
    assert "capacityReservationSelectorTerms" not in nodeclass["spec"]
    assert node_role_name("arn:aws:iam::123456789012:role/path/gpu-node") == "gpu-node"


def test_karpenter_capacity_block_selects_its_reservation():
    pool = NodePoolSpec(name="h100", instance_type="p5.48xlarge", provisioner="karpenter",
                        capacity_type="capacity-block", capacity_reservation_id="cr-0123456789abcdef0")
    nodeclass, nodepool = render_karpenter(pool, "gpu-node", ["subnet-a"], ["sg-1"])
    assert nodeclass["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert nodepool["spec"]["template"]["spec"]["requirements"][1] == {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}


def test_an_on_demand_capacity_reservation_is_targeted_without_a_market_type():
    odcr = NodePoolSpec(name="h100", instance_type="p5.48xlarge", capacity_reservation_id="cr-0a1b2c3d4e5f60718",
                        availability_zone="us-east-1a")
    plan = launch_template_plan(odcr)
    # targeted from the launch template; the market type and the template's instance type are Capacity Blocks' only
    assert (plan.capacity_reservation_id, plan.market_type, plan.instance_type) == (
        "cr-0a1b2c3d4e5f60718", None, None)
    assert launch_template_plan(NodePoolSpec(name="h100", instance_type="p5.48xlarge")).capacity_reservation_id is None
    # Karpenter: the reservation first, plain on-demand beyond it
    nodeclass, nodepool = render_karpenter(odcr.model_copy(update={"provisioner": "karpenter"}), "role", ["s"], ["g"])
    assert nodeclass["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0a1b2c3d4e5f60718"}]
    assert nodepool["spec"]["template"]["spec"]["requirements"][1] == {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved", "on-demand"]}
