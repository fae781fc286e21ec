"""GpuNodePool (:mod:`shardwise.components.nodepool`): the labels, taint and EFA devices of a GPU pool's
nodes, the launch template of a managed node group, and Karpenter's NodePool and EC2NodeClass."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..catalog import find_gpu
from ..catalog.hardware import catalog_instance, instance_nvlink_domain
from ..model.spec import NodePoolSpec
from ..model.vocab import (
    GPU_RESOURCE,
    LABEL_EFA,
    LABEL_GPU_COUNT,
    LABEL_GPU_MEMORY_GIB,
    LABEL_GPU_PRODUCT,
    LABEL_NVLINK,
    LABEL_NVLINK_DOMAIN_SIZE,
    LABEL_POOL,
)
from .common import LABEL_MANAGED_BY, fmt_gi, fmt_num, label_value

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def _instance(pool: NodePoolSpec):
    return catalog_instance(pool.instance_type)


def pool_efa(pool: NodePoolSpec) -> bool:
    """EFA interfaces on this pool: as set, else on for multi-node pools of EFA-capable instances."""
    if pool.efa is not None:
        return pool.efa
    return pool.multi_node and _instance(pool).efa


def efa_interface_count(pool: NodePoolSpec) -> int:
    """EFA devices a node of this pool offers (``vpc.amazonaws.com/efa``); 0 without EFA."""
    if not pool_efa(pool):
        return 0
    return max(1, _instance(pool).efa_interfaces)


def node_labels(pool: NodePoolSpec) -> dict[str, str]:
    """The labels every node of ``pool`` carries (read back by :func:`catalog.hardware.pool_from_labels`)."""
    inst = _instance(pool)
    gpu = find_gpu(inst.gpu)
    domain = instance_nvlink_domain(inst)
    return {
        LABEL_POOL: pool.name,
        LABEL_GPU_PRODUCT: label_value(gpu.name),
        LABEL_GPU_COUNT: str(inst.gpus),
        LABEL_GPU_MEMORY_GIB: fmt_num(gpu.memory_gib),
        LABEL_NVLINK: inst.interconnect,
        LABEL_NVLINK_DOMAIN_SIZE: str(domain),
        LABEL_EFA: "true" if pool_efa(pool) else "false",
    }


def node_taints() -> list[dict[str, str]]:
    """Kubernetes taints of every GPU node: ``nvidia.com/gpu=true:NoSchedule``."""
    return [dict(GPU_TAINT)]


def eks_taints() -> list[dict[str, str]]:
    """The same taint in the EKS node group API's spelling."""
    return [{"key": t["key"], "value": t["value"], "effect": "NO_SCHEDULE"} for t in node_taints()]


EKS_CAPACITY_TYPE = {"on-demand": "ON_DEMAND", "spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}
KARPENTER_CAPACITY_TYPE = {"on-demand": "on-demand", "spot": "spot", "capacity-block": "reserved"}
EKS_AMI_TYPE = "AL2023_x86_64_NVIDIA"


def node_role_name(role_arn: str) -> str:
    """``arn:aws:iam::1:role/path/name`` → ``name`` (Karpenter's EC2NodeClass wants the name)."""
    return role_arn.rsplit("/", 1)[-1]


def render_karpenter(pool: NodePoolSpec, role: str, subnet_ids: Sequence[Any],
                     security_group_ids: Sequence[Any]) -> list[dict[str, Any]]:
    """A Karpenter NodePool and EC2NodeClass with the managed node group's labels, taint and IMDS."""
    inst = _instance(pool)
    labels = node_labels(pool)
    nodeclass: dict[str, Any] = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": {
            "role": role,
            "amiSelectorTerms": [{"alias": pool.ami_alias}],
            "subnetSelectorTerms": [{"id": s} for s in subnet_ids],
            "securityGroupSelectorTerms": [{"id": s} for s in security_group_ids],
            "associatePublicIPAddress": False,
            "metadataOptions": {
                "httpEndpoint": "enabled",
                "httpProtocolIPv6": "disabled",
                "httpPutResponseHopLimit": 1,
                "httpTokens": "required",
            },
            "blockDeviceMappings": [{
                "deviceName": "/dev/xvda",
                "ebs": {"volumeSize": fmt_gi(pool.disk_size_gib), "volumeType": "gp3", "encrypted": True,
                        "deleteOnTermination": True, "throughput": pool.disk_throughput_mib_s,
                        "iops": max(3000, math.ceil(pool.disk_throughput_mib_s * 4))},
            }],
            "tags": {"shardwise.dev/pool": pool.name},
        },
    }
    if pool.instance_store == "raid0":
        nodeclass["spec"]["instanceStorePolicy"] = "RAID0"  # Karpenter: the same RAID-0 at /mnt/k8s-disks/0
    if pool.capacity_reservation_id:
        # Karpenter launches capacity-type `reserved` only into reservations the node class selects
        # (Capacity Blocks are modelled as capacity reservations; Karpenter >= 1.6, ReservedCapacity); an
        # on-demand pool with an ODCR uses the reservation first and plain on-demand beyond it
        nodeclass["spec"]["capacityReservationSelectorTerms"] = [{"id": pool.capacity_reservation_id}]
    nodepool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": pool.name, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": {
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
                    "taints": node_taints(),
                    "requirements": [
                        {"key": "node.kubernetes.io/instance-type", "operator": "In",
                         "values": [pool.instance_type]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In",
                         "values": ["reserved", "on-demand"] if pool.capacity_type == "on-demand" and
                         pool.capacity_reservation_id else [KARPENTER_CAPACITY_TYPE[pool.capacity_type]]},
                    ],
                    "expireAfter": "720h",
                },
            },
            # Model servers take minutes to load: only reclaim empty nodes.
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
            "limits": {GPU_RESOURCE: str(pool.max_size * inst.gpus)},
        },
    }
    return [nodeclass, nodepool]


@dataclass(frozen=True)
class LaunchTemplatePlan:
    """What the launch template of a managed node group sets."""

    http_tokens: str = "required"
    http_put_response_hop_limit: int = 1
    http_endpoint: str = "enabled"
    volume_size_gib: int = 500
    volume_throughput_mib_s: int = 125
    volume_iops: int = 3000
    # (device_index, network_card_index, interface_type) per network interface
    network_interfaces: tuple[tuple[int, int, str], ...] = ((0, 0, "interface"),)
    placement_group: bool = False
    market_type: str | None = None
    # the reservation the launch template targets (an On-Demand Capacity Reservation or a Capacity Block)
    capacity_reservation_id: str | None = None
    # set only for Capacity Blocks, which EKS requires in the launch template; the node group then
    # names no instance types (EKS rejects an instance type in both places)
    instance_type: str | None = None
    user_data: str | None = None  # MIME multi-part nodeadm configuration (not base64-encoded)
    tags: dict[str, str] = field(default_factory=dict)


#: nodeadm configuration that makes the instance-store NVMe disks one RAID-0 array at
#: /mnt/k8s-disks/0, with the kubelet and containerd directories on it (NodeConfig
#: ``spec.instance.localStorage.strategy``, amazon-eks-ami ``setup-local-disks raid0``). EKS merges it
#: with the cluster settings it adds to a managed node group's user data.
RAID0_USER_DATA = """\
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="SHARDWISE"

--SHARDWISE
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  instance:
    localStorage:
      strategy: RAID0

--SHARDWISE--
"""


def efa_interfaces(n: int) -> tuple[tuple[int, int, str], ...]:
    """(device index, network card index, type) of the network interfaces of a node with ``n`` EFA cards.

    The EC2 user guide's current layout ("Maximize network bandwidth on Amazon EC2 instances with
    multiple network cards", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html,
    which also holds its "EFA configuration for P5 and P5e instances"): the primary interface (card 0,
    device 0) is an ENA ``interface`` (an EFA-only interface cannot be primary); card 0 also gets an
    ``efa-only`` interface at device 1 where card 0 supports EFA (as on p5, p5e and p5en); every other card
    an ``efa-only`` interface at device 0 (device 1 is left for an optional ENA interface). EFA-only
    interfaces take no IP address. The guide's earlier text (EFA-with-ENA ``efa`` interfaces, device 1
    on cards 1-31, primary ``efa``) is superseded: it spent an IP address per card. A p5/p5e node gets 32
    EFA devices on 32 cards, a p5en node the catalog's 16. Checked against that guide's text, not on
    hardware.
    """
    if n <= 0:
        return ((0, 0, "interface"),)
    return ((0, 0, "interface"), (1, 0, "efa-only"), *((0, card, "efa-only") for card in range(1, n)))


def launch_template_plan(pool: NodePoolSpec) -> LaunchTemplatePlan:
    """IMDSv2 required with hop limit 1 (pods cannot reach the node's credentials), an encrypted gp3
    root volume at the pool's throughput, no public IP, EFA interfaces per :func:`efa_interfaces`,
    the instance store as RAID-0 when asked. A pool with ``capacity_reservation_id`` targets that
    reservation (``capacityReservationSpecification.capacityReservationTarget``): an On-Demand Capacity
    Reservation as it is, a Capacity Block also with market type ``capacity-block`` and the instance type
    named in the template, as EKS requires for node groups of capacity type ``CAPACITY_BLOCK``."""
    throughput = pool.disk_throughput_mib_s
    return LaunchTemplatePlan(
        volume_size_gib=pool.disk_size_gib,
        volume_throughput_mib_s=throughput,
        # gp3 allows at most 0.25 MiB/s per provisioned IOPS; 3000 IOPS are included
        volume_iops=max(3000, math.ceil(throughput * 4)),
        network_interfaces=efa_interfaces(efa_interface_count(pool)),
        placement_group=pool.multi_node,
        market_type="capacity-block" if pool.capacity_type == "capacity-block" else None,
        capacity_reservation_id=pool.capacity_reservation_id,
        instance_type=pool.instance_type if pool.capacity_type == "capacity-block" else None,
        user_data=RAID0_USER_DATA if pool.instance_store == "raid0" else None,
        tags={"shardwise.dev/pool": pool.name},
    )
