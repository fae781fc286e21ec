"""GpuNodePool: an EKS managed node group (or a Karpenter NodePool) for one GPU instance type."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
from pydantic import ValidationError
from shardwise.rules.catalog.hardware import catalog_instance
from shardwise.rules.model.spec import EnvironmentSpec, NodePoolSpec
from shardwise.rules.render.nodepool import (
    EKS_AMI_TYPE,
    EKS_CAPACITY_TYPE,
    LaunchTemplatePlan,
    efa_interface_count,
    eks_taints,
    launch_template_plan,
    node_labels,
    node_role_name,
    node_taints,
    render_karpenter,
)

from ._k8s import KUBECONFIG_DOC, child_opts, declare, depends_on, doc, provider_for
from ._workload import log_notes, pydantic_findings
from .errors import ArgumentsError
from .inputs import Unknowns, is_output
from .validation import VALIDATE_DOC, Validation, as_validation, pool_findings


@dataclass(kw_only=True)
class GpuNodePoolArgs:
    """Arguments of :class:`GpuNodePool`.

    ``pool`` is the :class:`~shardwise.rules.model.spec.NodePoolSpec` (or a mapping of its fields) — the
    schema of a stack config's ``pools`` entry; the rest are the AWS things the nodes attach to, each a
    ``pulumi.Input`` (a cluster, role and network built in the same program, or a StackReference).
    """

    pool: NodePoolSpec | Mapping[str, Any] = field(metadata=doc("The pool: a NodePoolSpec or a mapping of its fields."))
    cluster_name: pulumi.Input[str] = field(metadata=doc("EKS cluster the nodes join."))
    node_role_arn: pulumi.Input[str] = field(metadata=doc("IAM role of the nodes (Karpenter: its name is used)."))
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]] = field(metadata=doc(
        "Private subnets; the node group takes those whose zone offers the instance type (a multi-node pool the "
        "first of them: one placement group, one AZ)."))
    security_group_ids: pulumi.Input[Sequence[pulumi.Input[str]]] = field(metadata=doc(
        "Security groups of every network interface: the GPU-node group and the cluster's."))
    subnet_zones: Sequence[str] | None = field(default=None, metadata=doc(
        "The zone of each subnet, in order, when known (a new VPC's); else each subnet is looked up "
        "(`aws.ec2.getSubnet`)."))
    validate: bool | Validation | Mapping[str, str] = field(default=True, metadata=doc(VALIDATE_DOC))
    k8s_provider: pulumi.ProviderResource | None = field(default=None, metadata=doc(
        "Karpenter pools: the provider their NodePool and EC2NodeClass go through."))
    kubeconfig: pulumi.Input[str] | None = field(default=None, metadata=doc(KUBECONFIG_DOC))


def _nics(plan: LaunchTemplatePlan, security_group_ids: Any) -> list[Any]:
    nics: list[Any] = []
    for device, card, kind in plan.network_interfaces:
        nic: dict[str, Any] = {"device_index": device, "network_card_index": card,
                               "security_groups": security_group_ids, "delete_on_termination": "true"}
        if kind != "interface":
            nic["interface_type"] = kind
        if device == 0 and card == 0:
            nic["associate_public_ip_address"] = "false"
        nics.append(nic)
    return nics


#: How EKS rolls a GPU node group when its launch template or AMI changes: one node at a time, and the
#: ``MINIMAL`` strategy, which terminates an old node before it launches the new one. EKS's ``DEFAULT`` strategy
#: launches the new instances first (up to two per Availability Zone, or ``maxUnavailable``), which for
#: p5/p4d needs GPU capacity beyond the pool's that is rarely there without a reservation: the update then
#: fails after EKS's wait. The cost: while a node is replaced the pool serves with one node fewer (a
#: multi-node group that has a member on it restarts).
GPU_UPDATE_CONFIG: dict[str, Any] = {"max_unavailable": 1, "update_strategy": "MINIMAL"}

#: The pattern the stack config's ``node_role_arn`` has.
ROLE_ARN: str = next(m.pattern for m in EnvironmentSpec.model_fields["node_role_arn"].metadata
                     if getattr(m, "pattern", None))


class GpuNodePool(pulumi.ComponentResource):
    """GPU nodes of one instance type, labelled with their GPU and NVLink topology and tainted.

    Managed node group: the ``AL2023_x86_64_NVIDIA`` AMI, the taint ``nvidia.com/gpu=true:NoSchedule``,
    the labels of :func:`shardwise.rules.render.nodepool.node_labels`, a launch template with IMDSv2 required and
    hop limit 1, an encrypted gp3 root volume at the pool's throughput, no public IP, the given security
    groups, the instance store as RAID-0 when asked, and for multi-node pools EFA interfaces in AWS's
    current layout (:func:`shardwise.rules.render.nodepool.efa_interfaces`), a cluster placement group and a single
    subnet. The node group's subnets are those whose zone offers the instance type
    (``ec2:DescribeInstanceTypeOfferings``) and, when the pool names one, is its ``availability_zone``; none left
    fails naming the zones (at preview when the zones are known). A pool with ``capacity_reservation_id``
    targets the reservation from its launch template (an On-Demand Capacity Reservation; a Capacity Block also
    with market type ``capacity-block`` and the instance type in the template).
    ``scalingConfig.desiredSize`` is left to the Cluster Autoscaler (``ignoreChanges``): it grows the group up
    to ``max_size`` when replicas are Pending. The node group waits for ``opts.depends_on`` (the node role's
    policy attachments). Updates (:data:`GPU_UPDATE_CONFIG`): one node at a time, old node first (EKS's
    ``MINIMAL`` strategy, no surge), and a replacement of the group deletes the old one first
    (``deleteBeforeReplace``): neither asks for GPU instances beyond the pool's.

    Karpenter (``provisioner: karpenter``): an EC2NodeClass and a NodePool with the same labels, taint,
    metadata options and instance-store policy.

    Outputs: ``node_group``, ``launch_template``, ``placement_group`` (managed), ``node_pool``,
    ``node_class`` (Karpenter) — resources or None; ``node_group_name``, ``launch_template_id``,
    ``placement_group_name``; ``pool_name``, ``labels``, ``taints``, ``gpus_per_node``, ``efa_interfaces``.
    The validated spec is in ``.spec``.
    """

    spec: NodePoolSpec
    node_group: aws.eks.NodeGroup | None
    launch_template: aws.ec2.LaunchTemplate | None
    placement_group: aws.ec2.PlacementGroup | None
    node_pool: pulumi.CustomResource | None
    node_class: pulumi.CustomResource | None
    pool_name: str
    labels: dict[str, str]
    taints: list[dict[str, str]]
    gpus_per_node: int
    efa_interfaces: int
    node_group_name: pulumi.Output[str] | None
    launch_template_id: pulumi.Output[str] | None
    placement_group_name: pulumi.Output[str] | None

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        unknowns = Unknowns()
        try:
            pool = args.pool if isinstance(args.pool, NodePoolSpec) else NodePoolSpec.model_validate(args.pool)
        except ValidationError as e:
            raise ArgumentsError("GpuNodePool", pydantic_findings(e, unknowns, "pool.")) from None
        role = unknowns.replace(args.node_role_arn, "node_role_arn")
        problems: list[tuple[str, str]] = []
        if not is_output(args.node_role_arn) and not re.match(ROLE_ARN, str(role)):
            problems.append(("node_role_arn", f"`{role}` is not an IAM role ARN"))
        validation = as_validation(args.validate)
        notes: list[str] = []
        if validation.enabled:
            found, notes = pool_findings(pool, validation)
            problems += [(f"pool.{p}" if p else "pool", m) for p, m in found]
        if problems:
            raise ArgumentsError("GpuNodePool", problems)
        unknowns.field_check("node_role_arn", EnvironmentSpec, "node_role_arn")
        unknowns.finish("GpuNodePool")
        super().__init__("shardwise:nodepool:GpuNodePool", name, None, opts)
        log_notes(self, notes)
        self.spec = pool
        self.pool_name = pool.name
        self.labels = node_labels(pool)
        self.taints = node_taints()
        self.gpus_per_node = catalog_instance(pool.instance_type).gpus
        self.efa_interfaces = efa_interface_count(pool)
        self.node_group = self.launch_template = self.placement_group = None
        self.node_pool = self.node_class = None
        self.node_group_name = self.launch_template_id = self.placement_group_name = None
        if pool.provisioner == "karpenter":
            self._karpenter(name, pool, unknowns.output(role), args, opts)
        else:
            self._managed(name, pool, args, depends_on(opts))
        self.register_outputs({
            "node_group": self.node_group, "launch_template": self.launch_template,
            "placement_group": self.placement_group, "node_pool": self.node_pool, "node_class": self.node_class,
            "pool_name": self.pool_name, "labels": self.labels, "taints": self.taints,
            "gpus_per_node": self.gpus_per_node, "efa_interfaces": self.efa_interfaces,
            "node_group_name": self.node_group_name, "launch_template_id": self.launch_template_id,
            "placement_group_name": self.placement_group_name,
        })

    def _managed(self, name: str, pool: NodePoolSpec, args: GpuNodePoolArgs, deps: list[pulumi.Resource]) -> None:
        child = pulumi.ResourceOptions(parent=self)
        subnet_ids = self._offered_subnets(pool, args)  # before any child: no subnet offering the type fails first
        plan = launch_template_plan(pool)
        tags = {"shardwise.dev/pool": pool.name}
        placement: Any = None
        market: Any = None
        reservation: Any = None
        if plan.placement_group:
            self.placement_group = aws.ec2.PlacementGroup(f"{name}-placement", strategy="cluster", tags=tags,
                                                          opts=child)
            placement = {"group_name": self.placement_group.name}
            self.placement_group_name = self.placement_group.name
        if plan.market_type:
            market = {"market_type": plan.market_type}
        if plan.capacity_reservation_id:
            reservation = {"capacity_reservation_target": {"capacity_reservation_id": plan.capacity_reservation_id}}
        root_volume: Any = {
            "device_name": "/dev/xvda",
            "ebs": {"volume_size": plan.volume_size_gib, "volume_type": "gp3", "encrypted": "true",
                    "throughput": plan.volume_throughput_mib_s, "iops": plan.volume_iops,
                    "delete_on_termination": "true"},
        }
        metadata: Any = {"http_endpoint": plan.http_endpoint, "http_tokens": plan.http_tokens,
                         "http_put_response_hop_limit": plan.http_put_response_hop_limit}
        user_data = base64.b64encode(plan.user_data.encode()).decode() if plan.user_data else None
        self.launch_template = aws.ec2.LaunchTemplate(
            f"{name}-launch-template",
            description=f"shardwise GPU pool {pool.name} ({pool.instance_type})",
            metadata_options=metadata,
            block_device_mappings=[root_volume],
            network_interfaces=_nics(plan, args.security_group_ids),
            placement=placement,
            instance_type=plan.instance_type,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            user_data=user_data,
            tag_specifications=[{"resource_type": "instance", "tags": {**tags, **plan.tags}}],
            update_default_version=True,
            tags=tags,
            opts=child,
        )
        update_config: Any = dict(GPU_UPDATE_CONFIG)
        self.node_group = aws.eks.NodeGroup(
            f"{name}-node-group",
            cluster_name=args.cluster_name,
            node_role_arn=args.node_role_arn,
            subnet_ids=subnet_ids,
            # EKS: an instance type goes in the launch template or the node group, never both
            instance_types=None if plan.instance_type else [pool.instance_type],
            ami_type=EKS_AMI_TYPE,
            capacity_type=EKS_CAPACITY_TYPE[pool.capacity_type],
            scaling_config={"min_size": pool.min_size, "desired_size": pool.desired_size,
                            "max_size": pool.max_size},
            labels=self.labels,
            taints=eks_taints(),
            launch_template={"id": self.launch_template.id,
                             "version": self.launch_template.latest_version.apply(str)},
            update_config=update_config,
            tags=tags,
            # the autoscaler owns the size between min and max; the node group waits for what it was told to
            # (the node role's policy attachments); a change EKS cannot make in place (subnets, instance types,
            # AMI type, capacity type, node role) deletes the old group before creating the new one: created
            # first, the new group would ask for a second set of GPU instances that rarely exists
            opts=pulumi.ResourceOptions(parent=self, depends_on=deps or None,
                                        ignore_changes=["scalingConfig.desiredSize"], delete_before_replace=True),
        )
        self.node_group_name = self.node_group.node_group_name
        self.launch_template_id = self.launch_template.id

    def _offered_subnets(self, pool: NodePoolSpec, args: GpuNodePoolArgs) -> Any:
        """:func:`offered_subnets` of the given subnets: the zones offering the instance type come from
        ``aws.ec2.getInstanceTypeOfferings`` (location type availability-zone), the subnets' zones from
        ``subnet_zones`` or ``aws.ec2.getSubnet``, through the component's AWS provider. When the zones can be
        known now (a new VPC's, or subnet ids given as strings) the lookups run now and the node group gets a
        list of the chosen ids, each as given (an id unknown at preview stays one element, so the policy pack
        still sees how many subnets a pool has); ids given as one Output are chosen when they resolve."""
        invoke = pulumi.InvokeOptions(parent=self)
        ids: Any = args.subnet_ids
        filters: Any = [{"name": "instance-type", "values": [pool.instance_type]}]
        if not is_output(ids) and (args.subnet_zones is not None or not any(is_output(i) for i in ids)):
            offered = aws.ec2.get_instance_type_offerings(location_type="availability-zone", filters=filters,
                                                          opts=invoke).locations or []
            zones = list(args.subnet_zones) if args.subnet_zones is not None else [
                aws.ec2.get_subnet(id=i, opts=invoke).availability_zone for i in ids]
            return offered_subnets(pool, list(ids), zones, offered)
        later = aws.ec2.get_instance_type_offerings_output(location_type="availability-zone", filters=filters,
                                                           opts=invoke).locations
        resolved = pulumi.Output.from_input(ids).apply(list)

        def lookup(found: list[str]) -> Any:
            return pulumi.Output.all(*[aws.ec2.get_subnet_output(id=i, opts=invoke).availability_zone for i in found])

        return pulumi.Output.all(resolved, resolved.apply(lookup), later).apply(
            lambda v: offered_subnets(pool, v[0], v[1], v[2] or []))

    def _karpenter(self, name: str, pool: NodePoolSpec, role_arn: pulumi.Input[str], args: GpuNodePoolArgs,
                   opts: pulumi.ResourceOptions | None) -> None:
        provider = provider_for(name, self, args.k8s_provider, args.kubeconfig)
        nodeclass, nodepool = render_karpenter(pool, "<role>", ["<subnet>"], ["<security-group>"])
        spec = nodeclass["spec"]
        spec["role"] = pulumi.Output.from_input(role_arn).apply(node_role_name)
        spec["subnetSelectorTerms"] = _terms(args.subnet_ids)
        spec["securityGroupSelectorTerms"] = _terms(args.security_group_ids)
        child = child_opts(self, provider, depends_on(opts))
        self.node_class = declare(f"{name}-ec2nodeclass", nodeclass, child)
        self.node_pool = declare(f"{name}-nodepool", nodepool, child_opts(self, provider,
                                                                          [*depends_on(opts), self.node_class]))


def offered_subnets(pool: NodePoolSpec, subnet_ids: Sequence[Any], zones: Sequence[str], offered: Sequence[str],
                    ) -> list[Any]:
    """The subnets a managed pool launches in: those whose zone offers its instance type (and is its
    ``availability_zone``, when named); the first of them for a multi-node pool (one placement group, one zone).
    Raises :class:`ArgumentsError` with the zones when none is left."""
    want = [z for z in zones if z in offered and (pool.availability_zone is None or z == pool.availability_zone)]
    chosen = [i for i, z in zip(subnet_ids, zones, strict=True) if z in want]
    if not chosen:
        where = f"the subnets are in {', '.join(zones) or 'no zone'}; {pool.instance_type} is offered in " \
                f"{', '.join(sorted(offered)) or 'no zone of the region'} (ec2:DescribeInstanceTypeOfferings)"
        if pool.availability_zone is not None and pool.availability_zone in offered:
            raise ArgumentsError("GpuNodePool", [("pool.availability_zone", (
                f"no subnet is in {pool.availability_zone}, the zone pool `{pool.name}` names: {where}"))],
                when="when the subnets' zones were known")
        raise ArgumentsError("GpuNodePool", [("subnet_ids", (
            f"no subnet's zone offers {pool.instance_type} for pool `{pool.name}`"
            + (f" in {pool.availability_zone}" if pool.availability_zone else "") + f": {where}"))],
            when="when the subnets' zones were known")
    return chosen[:1] if pool.multi_node else chosen


def _terms(ids: Any) -> Any:
    """Karpenter selector terms ``[{"id": …}]`` of a list or an Output list of ids."""
    if is_output(ids):
        return ids.apply(lambda v: [{"id": i} for i in v])
    return [{"id": i} for i in ids]
