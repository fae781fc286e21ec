"""GpuNodePool: an EKS managed node group (or a Karpenter NodePool) for one GPU instance type."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_aws as aws
from shardwise.rules import render
from shardwise.rules.spec import NodePoolSpec

from ._k8s import declare, depends_on
from .validation import validate_pool


def _network_interfaces(plan: render.LaunchTemplatePlan,
                        security_group_ids: Sequence[pulumi.Input[str]]) -> list[Any]:
    nics: list[Any] = []
    for device, card, kind in plan.network_interfaces:
        nic: dict[str, Any] = {
            "device_index": device,
            "network_card_index": card,
            "security_groups": list(security_group_ids),
            "delete_on_termination": "true",
        }
        if kind != "interface":
            nic["interface_type"] = kind
        if device == 0 and card == 0:
            nic["associate_public_ip_address"] = "false"
        nics.append(nic)
    return nics


class GpuNodePool(pulumi.ComponentResource):
    """GPU nodes of one instance type, labelled with their GPU and NVLink topology and tainted.

    Managed node group: the ``AL2023_x86_64_NVIDIA`` AMI, the taint ``nvidia.com/gpu=true:NoSchedule``,
    the labels of :func:`shardwise.rules.render.node_labels`, a launch template with IMDSv2 required
    and hop limit 1, an encrypted root volume, no public IP, the GPU-node and cluster security groups,
    and for multi-node pools EFA interfaces, a cluster placement group and a single subnet. A
    Capacity Block pool's launch template targets the reservation and names the instance type (EKS
    requires it there for ``CAPACITY_BLOCK`` node groups, and the node group then names none).

    Karpenter (``provisioner: karpenter``): an EC2NodeClass and a NodePool with the same labels,
    taint and metadata options, applied through the Kubernetes provider given in ``opts``.
    """

    pool_name: str
    labels: dict[str, str]
    taints: list[dict[str, str]]
    node_group_name: pulumi.Output[str] | None
    launch_template_id: pulumi.Output[str] | None
    placement_group_name: pulumi.Output[str] | None

    def __init__(
        self,
        name: str,
        pool: NodePoolSpec,
        *,
        cluster_name: str,
        node_role_arn: str | None,
        subnet_ids: Sequence[pulumi.Input[str]],
        security_group_ids: Sequence[pulumi.Input[str]],
        validate: bool = True,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if validate:
            validate_pool(pool, node_role_arn)
        super().__init__("shardwise:nodepool:GpuNodePool", name, None, opts)
        self.pool_name = pool.name
        self.labels = render.node_labels(pool)
        self.taints = render.node_taints()
        self.node_group_name = self.launch_template_id = self.placement_group_name = None
        if pool.provisioner == "karpenter":
            self._karpenter(name, pool, node_role_arn or "", subnet_ids, security_group_ids, opts)
        else:
            self._managed(name, pool, cluster_name, node_role_arn or "", subnet_ids, security_group_ids)
        self.register_outputs({
            "pool_name": self.pool_name,
            "labels": self.labels,
            "taints": self.taints,
            "node_group_name": self.node_group_name,
            "launch_template_id": self.launch_template_id,
            "placement_group_name": self.placement_group_name,
        })

    def _managed(self, name: str, pool: NodePoolSpec, cluster_name: str, role_arn: str,
                 subnet_ids: Sequence[pulumi.Input[str]], security_group_ids: Sequence[pulumi.Input[str]]) -> None:
        child = pulumi.ResourceOptions(parent=self)
        plan = render.launch_template_plan(pool)
        tags = {"shardwise.dev/pool": pool.name}
        placement: Any = None
        market: Any = None
        reservation: Any = None
        if plan.placement_group:
            pg = aws.ec2.PlacementGroup(f"{name}-placement", strategy="cluster", tags=tags, opts=child)
            placement = {"group_name": pg.name}
            self.placement_group_name = pg.name
        if plan.market_type:
            market = {"market_type": plan.market_type}
            reservation = {"capacity_reservation_target": {"capacity_reservation_id": pool.capacity_reservation_id}}
        root_volume: Any = {
            "device_name": "/dev/xvda",
            "ebs": {"volume_size": plan.volume_size_gib, "volume_type": "gp3", "encrypted": "true",
                    "delete_on_termination": "true"},
        }
        instance_tags: Any = {"resource_type": "instance", "tags": {**tags, **plan.tags}}
        metadata: Any = {
            "http_endpoint": plan.http_endpoint,
            "http_tokens": plan.http_tokens,
            "http_put_response_hop_limit": plan.http_put_response_hop_limit,
        }
        lt = aws.ec2.LaunchTemplate(
            f"{name}-launch-template",
            description=f"shardwise GPU pool {pool.name} ({pool.instance_type})",
            metadata_options=metadata,
            block_device_mappings=[root_volume],
            network_interfaces=_network_interfaces(plan, security_group_ids),
            placement=placement,
            instance_type=plan.instance_type,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            tag_specifications=[instance_tags],
            update_default_version=True,
            tags=tags,
            opts=child,
        )
        ng = aws.eks.NodeGroup(
            f"{name}-node-group",
            cluster_name=cluster_name,
            node_role_arn=role_arn,
            subnet_ids=list(subnet_ids[:1]) if pool.multi_node else list(subnet_ids),
            # EKS: an instance type goes in the launch template or the node group, never both
            instance_types=None if plan.instance_type else [pool.instance_type],
            ami_type=render.EKS_AMI_TYPE,
            capacity_type=render.EKS_CAPACITY_TYPE[pool.capacity_type],
            scaling_config={"min_size": pool.min_size, "desired_size": pool.desired_size,
                            "max_size": pool.max_size},
            labels=self.labels,
            taints=render.eks_taints(),
            launch_template={"id": lt.id, "version": lt.latest_version.apply(str)},
            update_config={"max_unavailable": 1},
            tags=tags,
            opts=child,
        )
        self.node_group_name = ng.node_group_name
        self.launch_template_id = lt.id

    def _karpenter(self, name: str, pool: NodePoolSpec, role_arn: str, subnet_ids: Sequence[pulumi.Input[str]],
                   security_group_ids: Sequence[pulumi.Input[str]], opts: pulumi.ResourceOptions | None) -> None:
        child = pulumi.ResourceOptions(parent=self, depends_on=depends_on(opts))
        objs = render.render_karpenter(pool, render.node_role_name(role_arn), subnet_ids, security_group_ids)
        for obj in objs:
            declare(f"{name}-{obj['kind'].lower()}", obj, child)
