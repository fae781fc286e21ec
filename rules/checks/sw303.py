"""SW303: GPU nodes launched into subnets that map public IP addresses."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, subject_of
from ..model import Inventory, NodePool, known
from ._net import find_launch_template, find_subnet


class GpuNodesInPublicSubnet(ObjectRule[NodePool]):
    meta = RuleMeta(
        code="SW303",
        name="gpu-nodes-in-public-subnet",
        enforcement="mandatory",
        severity="high",
        summary="A GPU node pool launches nodes into a subnet that maps public IP addresses on launch.",
        why=(
            "A node with a public IP is one security-group mistake away from exposing the kubelet, NodePorts "
            "and the unauthenticated distributed-runtime ports (Ray, torch.distributed, NCCL) to the "
            "internet. GPU nodes need no inbound internet path: model weights and images come through NAT "
            "or VPC endpoints. A launch template whose network interface sets associatePublicIpAddress = true "
            "gives the node a public IPv4 in any subnet, private or not."
        ),
        bad_example=(
            "resources:\n"
            "  public-a:\n"
            "    type: aws:ec2:Subnet\n"
            "    properties:\n"
            "      mapPublicIpOnLaunch: true\n"
            "  h100:\n"
            "    type: aws:eks:NodeGroup\n"
            "    properties:\n"
            "      subnetIds: ['${public-a.id}']"
        ),
        good_example=(
            "resources:\n"
            "  private-a:\n"
            "    type: aws:ec2:Subnet\n"
            "    properties:\n"
            "      mapPublicIpOnLaunch: false\n"
            "  h100:\n"
            "    type: aws:eks:NodeGroup\n"
            "    properties:\n"
            "      subnetIds: ['${private-a.id}']"
        ),
        remediation=(
            "Launch GPU node groups only into private subnets (map_public_ip_on_launch false) that reach "
            "the internet through a NAT gateway or VPC endpoints."
        ),
        references=(
            "https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html",
            "https://docs.aws.amazon.com/eks/latest/best-practices/subnets.html",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[NodePool]:
        return inv.pools

    def check_object(self, pool: NodePool, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        refs = known(pool.subnets, f"the subnet list of node pool `{pool.name}`")
        for ref in refs:
            ref = known(ref, f"a subnet of node pool `{pool.name}`")
            subnet = find_subnet(inv, ref)
            if subnet is None:
                continue  # a subnet managed elsewhere: not in the inputs
            public = known(subnet.map_public_ip_on_launch,
                           f"map_public_ip_on_launch of subnet `{subnet.name}`")
            if public:
                yield Hit(
                    subject_of(pool),
                    f"node pool `{pool.name}` launches GPU nodes into subnet `{subnet.name}`, which "
                    "maps public IPs on launch (map_public_ip_on_launch = true); launch them into private subnets "
                    "(map_public_ip_on_launch = false, egress through a NAT gateway)",
                    pool.location,
                    (*pool.suppressions, *subnet.suppressions),
                )
        # an interface that asks for a public IPv4 gets one in any subnet (EC2 RunInstances)
        lt = find_launch_template(inv, pool.launch_template) if pool.public_ip is not None else None
        name = lt.name if lt is not None else pool.launch_template
        if known(pool.public_ip, f"associatePublicIpAddress of launch template `{name}` of node pool "
                                 f"`{pool.name}`") is True:
            yield Hit(
                subject_of(pool),
                f"node pool `{pool.name}` launches GPU nodes with a public IP: a network interface of its launch "
                f"template `{name}` sets associatePublicIpAddress = true, which gives the node a public address "
                "in any subnet; GPU nodes must have private addresses only",
                lt.location if lt is not None else pool.location,
                (*pool.suppressions, *(lt.suppressions if lt is not None else ())),
            )
