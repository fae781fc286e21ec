"""RuntimeNetwork: private networking for GPU nodes and NetworkPolicies for the serving namespaces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
from pydantic import ValidationError
from shardwise.rules.model.spec import NetworkSpec, RouterSpec, VllmMultiNodeSpec, VllmServiceSpec
from shardwise.rules.render.network import (
    MAX_PUBLIC_SUBNET_ZONES,
    SgRulePlan,
    carve_problem,
    endpoint_sg_rules,
    gateway_endpoint_services,
    gpu_node_sg_rules,
    interface_endpoint_services,
    load_balancer_cidrs,
    render_network_policies,
    subnet_plan,
    wants_endpoints,
    wants_public_subnets,
)

from ._k8s import KUBECONFIG_DOC, PROVIDER_DOC, child_opts, declare, depends_on, doc, provider_for
from ._workload import pydantic_findings
from .errors import ArgumentsError
from .inputs import Unknowns


@dataclass(kw_only=True)
class RuntimeNetworkArgs:
    """Arguments of :class:`RuntimeNetwork`.

    ``network`` is the :class:`~shardwise.rules.model.spec.NetworkSpec` (a stack config's ``network``);
    ``vpc_id`` and ``private_subnet_ids``, when given, select existing-VPC mode with values that may be
    Outputs (a VPC built in the same program, a StackReference). ``workloads`` and ``routers`` (the
    components or their specs) decide the NetworkPolicies.
    """

    region: str = field(metadata=doc("AWS region (the VPC endpoints' service names)."))
    cluster_name: pulumi.Input[str] = field(metadata=doc("EKS cluster the subnets are tagged for."))
    network: NetworkSpec | Mapping[str, Any] = field(default=NetworkSpec(), metadata=doc(
        "The network spec: a NetworkSpec or a mapping of its fields."))
    vpc_id: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "Existing-VPC mode with a VPC of the program (overrides network.vpc_id)."))
    private_subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]] | None = field(default=None, metadata=doc(
        "The existing VPC's private subnets (with vpc_id)."))
    workloads: Sequence[Any] = field(default=(), metadata=doc(
        "VllmService / VllmMultiNode components or specs whose NetworkPolicies to declare."))
    routers: Sequence[Any] = field(default=(), metadata=doc(
        "InferenceRouter components or RouterSpecs in front of them."))
    network_policies: bool = field(default=True, metadata=doc(
        "Declare the NetworkPolicies of `workloads` now (else later with `declare_policies`)."))
    internet_facing: bool | None = field(default=None, metadata=doc(
        "A new VPC gets public subnets (internet gateway route, tagged kubernetes.io/role/elb) for an "
        "internet-facing ALB; None: when one of `routers` is an internet-facing alb-ingress."))
    k8s_provider: pulumi.ProviderResource | None = field(default=None, metadata=doc(PROVIDER_DOC))
    kubeconfig: pulumi.Input[str] | None = field(default=None, metadata=doc(KUBECONFIG_DOC))


def public_subnet_findings(network: NetworkSpec, internet_facing: bool, existing_vpc: bool = False,
                           ) -> list[tuple[str, str]]:
    """A new VPC's subnets can be carved from its CIDR (:func:`carve_problem`); with public load-balancer subnets
    they have room in :data:`MAX_PUBLIC_SUBNET_ZONES` zones. ``existing_vpc``: the VPC is given apart from the
    spec (a component's ``vpc_id``), so nothing is carved."""
    if existing_vpc or network.vpc_id is not None:
        return []
    zones = len(network.availability_zones)
    if internet_facing and zones > MAX_PUBLIC_SUBNET_ZONES:
        return [("network.availability_zones", (
            f"an internet-facing ALB router needs a public subnet per zone, and the new VPC has room for them in "
            f"{MAX_PUBLIC_SUBNET_ZONES} zones, not {zones}: list fewer zones (an ALB needs two)"))]
    problem = carve_problem(network, internet_facing)
    return [problem] if problem is not None else []


def _rule_name(rule: SgRulePlan) -> str:
    what = "self" if rule.self_ref else f"{rule.protocol}{rule.from_port or ''}"
    return f"{rule.direction}-{what}"


def _sg_rule(name: str, sg: aws.ec2.SecurityGroup, rule: SgRulePlan,
             opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    args: dict[str, Any] = {"security_group_id": sg.id, "ip_protocol": rule.protocol, "description": rule.description}
    if rule.protocol != "-1":
        args["from_port"] = rule.from_port
        args["to_port"] = rule.to_port
    if rule.self_ref:
        args["referenced_security_group_id"] = sg.id
    if rule.cidr:
        args["cidr_ipv4"] = rule.cidr
    cls = aws.vpc.SecurityGroupIngressRule if rule.direction == "ingress" else aws.vpc.SecurityGroupEgressRule
    return cls(f"{name}-{_rule_name(rule)}", opts=opts, **args)


def _spec_of(item: Any) -> Any:
    return getattr(item, "spec", item)


class RuntimeNetwork(pulumi.ComponentResource):
    """VPC pieces for GPU nodes and the Kubernetes NetworkPolicies of the serving namespaces.

    * New-VPC mode (no ``vpc_id``): a VPC, one private subnet per AZ for the nodes and one small
      load-balancer subnet per AZ (no public IP mapping; only the load-balancer subnets are tagged for
      internal load balancers, so the ALB is placed there and the API port admits their ranges alone), and
      with ``nat_gateway`` a NAT gateway in a small subnet of its own for HTTPS egress. With
      ``internet_facing`` (an internet-facing ALB router) one public subnet per AZ too, routed to the internet
      gateway and tagged ``kubernetes.io/role/elb``, where the controller places that ALB (without them it
      finds no subnet for it). Existing-VPC mode: the given private subnets (an internet-facing ALB needs the
      VPC's public subnets tagged ``kubernetes.io/role/elb``, their ranges in ``network.load_balancer_cidrs``).
    * A GPU-node security group from :func:`shardwise.rules.render.network.gpu_node_sg_rules`: all traffic to and
      from itself (EFA needs both directions) and HTTPS out. The nodes also carry the EKS cluster security
      group, which admits everything from every node and pod of the cluster: the NCCL/Ray/torch.distributed
      TCP ports are confined by the serving groups' NetworkPolicies (the VPC CNI network policy agent), not by
      security groups; EFA traffic can only come from EFA interfaces.
    * With ``endpoints`` (default: in a new VPC only): an S3 gateway endpoint on the subnets' route tables
      (an existing subnet without an explicit association uses the VPC's main table) and ECR ``api``/``dkr``
      interface endpoints with private DNS, so images and weights are pulled without public egress.
    * NetworkPolicies from :func:`shardwise.rules.render.network.render_network_policies`.

    Outputs: ``vpc`` (None in existing-VPC mode), ``subnets``, ``load_balancer_subnets`` (the public ones
    too), ``security_group``,
    ``endpoint_security_group``, ``endpoints``, ``network_policies`` (resources); ``vpc_id``,
    ``private_subnet_ids`` (a list of ids, or the Output list given), ``private_subnet_zones`` (their zones in
    a new VPC, else None), ``security_group_id``,
    ``endpoint_ids``. Whether existing subnets map public IPs is not visible here: the policy pack checks
    it (SW303). Method ``declare_policies(workloads, routers)`` declares NetworkPolicies for workloads
    built after the network.
    """

    vpc: aws.ec2.Vpc | None
    subnets: list[aws.ec2.Subnet]
    load_balancer_subnets: list[aws.ec2.Subnet]
    security_group: aws.ec2.SecurityGroup
    endpoint_security_group: aws.ec2.SecurityGroup | None
    endpoints: list[aws.ec2.VpcEndpoint]
    network_policies: list[pulumi.CustomResource]
    vpc_id: pulumi.Output[str]
    private_subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    private_subnet_zones: list[str] | None
    security_group_id: pulumi.Output[str]
    endpoint_ids: list[pulumi.Output[str]]

    def __init__(self, name: str, args: RuntimeNetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        unknowns = Unknowns()
        try:
            network = args.network if isinstance(args.network, NetworkSpec) else NetworkSpec.model_validate(
                args.network)
        except ValidationError as e:
            raise ArgumentsError("RuntimeNetwork", pydantic_findings(e, unknowns, "network.")) from None
        if (args.vpc_id is None) != (args.private_subnet_ids is None):
            raise ArgumentsError("RuntimeNetwork", [("vpc_id" if args.vpc_id is None else "private_subnet_ids",
                                                     "vpc_id and private_subnet_ids go together")])
        internet_facing = args.internet_facing if args.internet_facing is not None else \
            wants_public_subnets([_spec_of(r) for r in args.routers])
        problems = public_subnet_findings(network, internet_facing, existing_vpc=args.vpc_id is not None)
        if problems:
            raise ArgumentsError("RuntimeNetwork", problems)
        super().__init__("shardwise:network:RuntimeNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {"shardwise.dev/network": name}
        self.vpc, self.subnets, self.endpoints, self.load_balancer_subnets = None, [], [], []
        self.endpoint_security_group = None
        vpc_id: pulumi.Input[str] | None = args.vpc_id if args.vpc_id is not None else network.vpc_id
        subnet_ids: Any
        if vpc_id is None:
            subnet_ids, route_table_ids, vpc_id = self._new_vpc(name, network, args.cluster_name, tags, child,
                                                                internet_facing)
        else:
            subnet_ids = args.private_subnet_ids if args.private_subnet_ids is not None else \
                list(network.private_subnet_ids)
            route_table_ids = None  # looked up only for an S3 gateway endpoint

        self.security_group = aws.ec2.SecurityGroup(
            f"{name}-gpu-nodes", vpc_id=vpc_id,
            description="GPU nodes: distributed runtime traffic only from this group",
            tags={**tags, "Name": f"{name}-gpu-nodes"}, opts=child)
        for rule in gpu_node_sg_rules():
            _sg_rule(f"{name}-gpu-nodes", self.security_group, rule, child)
        if wants_endpoints(network, existing_vpc=self.vpc is None):
            self._endpoints(name, network, args.region, vpc_id, subnet_ids, route_table_ids, tags, child)

        self._name, self._network, self._existing = name, network, self.vpc is None
        self.internet_facing = internet_facing
        self._provider = provider_for(name, self, args.k8s_provider, args.kubeconfig)
        self.network_policies = []
        if args.network_policies:
            self.declare_policies(args.workloads, args.routers, depends_on(opts))

        self.vpc_id = pulumi.Output.from_input(vpc_id)
        # a list of ids (each an Output or a value) when known to be a list, so the subnets a multi-node pool
        # takes are chosen here; an Output list only when one was given
        self.private_subnet_ids = list(subnet_ids) if isinstance(subnet_ids, (list, tuple)) else subnet_ids
        # a new VPC's subnets are in known zones (the GPU pools choose by instance-type offering at preview)
        self.private_subnet_zones = None if self._existing else [
            p.availability_zone for p in subnet_plan(network, name) if not p.public and not p.load_balancer]
        self.security_group_id = self.security_group.id
        self.endpoint_ids = [e.id for e in self.endpoints]
        self.register_outputs({
            "vpc": self.vpc, "subnets": self.subnets, "load_balancer_subnets": self.load_balancer_subnets,
            "security_group": self.security_group,
            "endpoint_security_group": self.endpoint_security_group, "endpoints": self.endpoints,
            "network_policies": self.network_policies, "vpc_id": self.vpc_id,
            "private_subnet_ids": self.private_subnet_ids, "private_subnet_zones": self.private_subnet_zones,
            "security_group_id": self.security_group_id,
            "endpoint_ids": self.endpoint_ids,
        })

    def declare_policies(self, workloads: Sequence[Any], routers: Sequence[Any] = (),
                         deps: Sequence[pulumi.Resource] = ()) -> list[pulumi.CustomResource]:
        """Declare the NetworkPolicies of ``workloads`` (components or specs) behind ``routers``, as children
        of this network: for programs that build the workloads after the network their nodes need."""
        made = declare_network_policies(self._name, self, self._network, workloads, routers, self._provider, deps,
                                        existing_vpc=self._existing, public_subnets=self.internet_facing)
        self.network_policies.extend(made)
        return made

    def _new_vpc(self, name: str, network: NetworkSpec, cluster_name: pulumi.Input[str], tags: dict[str, str],
                 child: pulumi.ResourceOptions, internet_facing: bool,
                 ) -> tuple[list[pulumi.Output[str]], Any, pulumi.Output[str]]:
        self.vpc = aws.ec2.Vpc(f"{name}-vpc", cidr_block=network.cidr, enable_dns_hostnames=True,
                               enable_dns_support=True, tags={**tags, "Name": name}, opts=child)
        private_rt = aws.ec2.RouteTable(f"{name}-private", vpc_id=self.vpc.id, tags=tags, opts=child)
        subnet_ids: list[pulumi.Output[str]] = []
        public_rt: aws.ec2.RouteTable | None = None
        for plan in subnet_plan(network, name, internet_facing):
            extra = {"Name": plan.name}
            if plan.load_balancer:
                extra["kubernetes.io/role/elb" if plan.internet_facing else "kubernetes.io/role/internal-elb"] = "1"
            subnet_tags: Any = pulumi.Output.from_input(cluster_name).apply(_cluster_tags(tags, extra))
            subnet = aws.ec2.Subnet(plan.name, vpc_id=self.vpc.id, cidr_block=plan.cidr,
                                    availability_zone=plan.availability_zone,
                                    map_public_ip_on_launch=plan.map_public_ip_on_launch, tags=subnet_tags, opts=child)
            if plan.public:
                public_rt = public_rt or self._internet_gateway(name, self.vpc, tags, child)
            if plan.internet_facing and public_rt is not None:  # the internet-facing ALB's: to the internet gateway
                self.load_balancer_subnets.append(subnet)
                aws.ec2.RouteTableAssociation(f"{plan.name}-rt", subnet_id=subnet.id, route_table_id=public_rt.id,
                                              opts=child)
            elif plan.public and public_rt is not None:
                self._nat(name, subnet, public_rt, private_rt, tags, child)
            elif plan.load_balancer:  # the VPC's main table: an internal load balancer needs only the local route
                self.load_balancer_subnets.append(subnet)
            else:
                self.subnets.append(subnet)
                aws.ec2.RouteTableAssociation(f"{plan.name}-rt", subnet_id=subnet.id,
                                              route_table_id=private_rt.id, opts=child)
                subnet_ids.append(subnet.id)
        return subnet_ids, pulumi.Output.all(private_rt.id).apply(list), self.vpc.id

    def _endpoints(self, name: str, network: NetworkSpec, region: str, vpc_id: pulumi.Input[str], subnet_ids: Any,
                   route_table_ids: Any, tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        self.endpoint_security_group = aws.ec2.SecurityGroup(
            f"{name}-endpoints", vpc_id=vpc_id, description="VPC interface endpoints: HTTPS from the VPC",
            tags={**tags, "Name": f"{name}-endpoints"}, opts=child)
        for rule in endpoint_sg_rules(network.cidr):
            _sg_rule(f"{name}-endpoints", self.endpoint_security_group, rule, child)
        if route_table_ids is None:
            route_table_ids = _route_tables(self, vpc_id, subnet_ids)
        for svc in gateway_endpoint_services(region):
            self.endpoints.append(aws.ec2.VpcEndpoint(
                f"{name}-{svc.rsplit('.', 1)[-1]}", vpc_id=vpc_id, service_name=svc, vpc_endpoint_type="Gateway",
                route_table_ids=route_table_ids, tags=tags, opts=child))
        for svc in interface_endpoint_services(region):
            short = "-".join(svc.split(".")[-2:])
            self.endpoints.append(aws.ec2.VpcEndpoint(
                f"{name}-{short}", vpc_id=vpc_id, service_name=svc, vpc_endpoint_type="Interface",
                private_dns_enabled=True, subnet_ids=subnet_ids, security_group_ids=[self.endpoint_security_group.id],
                tags=tags, opts=child))

    def _internet_gateway(self, name: str, vpc: aws.ec2.Vpc, tags: dict[str, str],
                          child: pulumi.ResourceOptions) -> aws.ec2.RouteTable:
        """The internet gateway and the public subnets' route table, whose default route goes to it (the names
        are the NAT's of earlier versions: its subnet was the only public one)."""
        self._igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=tags, opts=child)
        public_rt = aws.ec2.RouteTable(f"{name}-nat", vpc_id=vpc.id, tags=tags, opts=child)
        aws.ec2.Route(f"{name}-nat-default", route_table_id=public_rt.id, destination_cidr_block="0.0.0.0/0",
                      gateway_id=self._igw.id, opts=child)
        return public_rt

    def _nat(self, name: str, subnet: aws.ec2.Subnet, public_rt: aws.ec2.RouteTable, private_rt: aws.ec2.RouteTable,
             tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        """The NAT subnet's route to the internet gateway, a NAT gateway and the private default route."""
        aws.ec2.RouteTableAssociation(f"{name}-nat-rt", subnet_id=subnet.id, route_table_id=public_rt.id, opts=child)
        eip = aws.ec2.Eip(f"{name}-nat-ip", domain="vpc", tags=tags, opts=child)
        nat = aws.ec2.NatGateway(f"{name}-nat", subnet_id=subnet.id, allocation_id=eip.id, tags=tags,
                                 opts=pulumi.ResourceOptions(parent=self, depends_on=[self._igw]))
        aws.ec2.Route(f"{name}-private-default", route_table_id=private_rt.id, destination_cidr_block="0.0.0.0/0",
                      nat_gateway_id=nat.id, opts=child)


def _cluster_tags(tags: dict[str, str], extra: dict[str, str]) -> Any:
    """A subnet's tags once the cluster's name is known (``kubernetes.io/cluster/<name>: shared``)."""
    def tag(cluster: str) -> dict[str, str]:
        return {**tags, **extra, f"kubernetes.io/cluster/{cluster}": "shared"}

    return tag


def _route_tables(parent: pulumi.Resource, vpc_id: pulumi.Input[str], subnet_ids: Any) -> pulumi.Output[list[str]]:
    """The route tables of existing subnets (for the S3 gateway endpoint): each subnet's explicitly associated
    table, else the VPC's main table (a subnet without an association uses it, and a lookup by subnet finds
    nothing). The lookups go through the component's AWS provider (``parent``)."""
    invoke = pulumi.InvokeOptions(parent=parent)
    main = aws.ec2.get_route_table_output(vpc_id=vpc_id, filters=[{"name": "association.main", "values": ["true"]}],
                                          opts=invoke).route_table_id

    def lookup(ids: Sequence[str]) -> pulumi.Output[list[str]]:
        explicit = [aws.ec2.get_route_tables_output(
            vpc_id=vpc_id, filters=[{"name": "association.subnet-id", "values": [s]}], opts=invoke).ids
            for s in ids]
        return pulumi.Output.all(main, *explicit).apply(
            lambda found: sorted({tables[0] if tables else found[0] for tables in found[1:]}))

    return pulumi.Output.from_input(subnet_ids).apply(lookup)


def declare_network_policies(name: str, parent: pulumi.Resource, network: NetworkSpec, workloads: Sequence[Any],
                             routers: Sequence[Any], provider: pulumi.ProviderResource | None,
                             deps: Sequence[pulumi.Resource], existing_vpc: bool | None = None,
                             public_subnets: bool = True) -> list[pulumi.CustomResource]:
    """The NetworkPolicies of the workloads' namespaces
    (:func:`shardwise.rules.render.network.render_network_policies`).

    ``workloads`` and ``routers`` are components or specs; Outputs in the components' arguments are put
    back into the policies. In an existing VPC a workload behind an ALB router needs
    ``network.load_balancer_cidrs`` (else nothing could reach its API port from the load balancer). In a new VPC
    made without ``public_subnets``, an internet-facing ALB router has no subnet to be placed in."""
    unknowns = Unknowns()
    for item in (*workloads, *routers):
        if hasattr(item, "unknowns"):
            unknowns.merge(item.unknowns)
    specs = [_spec_of(w) for w in workloads]
    services = [w for w in specs if isinstance(w, VllmServiceSpec)]
    groups = [w for w in specs if isinstance(w, VllmMultiNodeSpec)]
    router_specs: list[RouterSpec] = [_spec_of(r) for r in routers]
    alb = next((r for r in router_specs if r.kind == "alb-ingress"), None)
    if alb is not None and not load_balancer_cidrs(network, existing_vpc):
        raise ArgumentsError("RuntimeNetwork", [("network.load_balancer_cidrs", (
            f"router `{alb.name}` is an ALB whose targets are pod IPs, in an existing VPC: name the CIDRs of the "
            "subnets the load balancer is placed in (tagged kubernetes.io/role/internal-elb); the API port's "
            "NetworkPolicy admits those only"))])
    public = next((r for r in router_specs if wants_public_subnets([r])), None)
    if public is not None and not public_subnets and not (network.vpc_id is not None or existing_vpc):
        raise ArgumentsError("RuntimeNetwork", [("internet_facing", (
            f"router `{public.name}` is an internet-facing ALB, but this network was made without public subnets: "
            "the AWS Load Balancer Controller would find no subnet tagged kubernetes.io/role/elb to place it in; "
            "give the network the router (routers) or internet_facing"))])
    out: list[pulumi.CustomResource] = []
    labels: dict[str, str] = {}  # a namespace given as an Output is named by its order in resource names
    for obj in render_network_policies(network, services, groups, router_specs, existing_vpc):
        meta = obj["metadata"]
        ns = meta["namespace"]
        label = ns if not unknowns.is_token(ns) else labels.setdefault(ns, f"namespace{len(labels) + 1}")
        policy = meta["name"]
        for token in unknowns.tokens_in(policy):
            policy = policy.replace(token, labels.setdefault(token, f"workload{len(labels) + 1}"))
        out.append(declare(f"{name}-{label}-{policy}", unknowns.substitute(obj), child_opts(parent, provider, deps)))
    return out
