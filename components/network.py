"""RuntimeNetwork: private networking for GPU nodes and NetworkPolicies for the serving namespaces."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws
from shardwise.rules import render
from shardwise.rules.spec import NetworkSpec, RouterSpec, VllmMultiNodeSpec, VllmServiceSpec

from ._k8s import declare, depends_on


def _rule_name(rule: render.SgRulePlan) -> str:
    what = "self" if rule.self_ref else f"{rule.protocol}{rule.from_port or ''}"
    return f"{rule.direction}-{what}"


def _sg_rule(name: str, sg: aws.ec2.SecurityGroup, rule: render.SgRulePlan,
             opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    args: dict = {
        "security_group_id": sg.id,
        "ip_protocol": rule.protocol,
        "description": rule.description,
    }
    if rule.protocol != "-1":
        args["from_port"] = rule.from_port
        args["to_port"] = rule.to_port
    if rule.self_ref:
        args["referenced_security_group_id"] = sg.id
    if rule.cidr:
        args["cidr_ipv4"] = rule.cidr
    cls = aws.vpc.SecurityGroupIngressRule if rule.direction == "ingress" else aws.vpc.SecurityGroupEgressRule
    return cls(f"{name}-{_rule_name(rule)}", opts=opts, **args)


class RuntimeNetwork(pulumi.ComponentResource):
    """VPC pieces for GPU nodes and the Kubernetes NetworkPolicies of the serving namespaces.

    * New-VPC mode (``vpc_id`` unset): a VPC, one private subnet per AZ (no public IP mapping,
      tagged for internal load balancers), and with ``nat_gateway`` a NAT gateway in a small subnet
      of its own for HTTPS egress. Existing-VPC mode: the given private subnets.
    * A GPU-node security group from :func:`shardwise.rules.render.gpu_node_sg_rules`: all traffic
      to and from itself only (NCCL, EFA, Ray, torch.distributed — EFA needs both directions) and
      HTTPS out; no runtime port is reachable from anywhere else.
    * With ``endpoints``: an S3 gateway endpoint and ECR ``api``/``dkr`` interface endpoints with
      private DNS, so images and weights are pulled without public egress.
    * NetworkPolicies from :func:`shardwise.rules.render.render_network_policies`.
    """

    vpc_id: pulumi.Output[str]
    private_subnet_ids: list[pulumi.Output[str]]
    security_group_id: pulumi.Output[str]
    endpoint_ids: list[pulumi.Output[str]]
    network_policies: list[str]

    def __init__(
        self,
        name: str,
        network: NetworkSpec,
        *,
        region: str,
        cluster_name: str,
        services: Sequence[VllmServiceSpec] = (),
        multi_node: Sequence[VllmMultiNodeSpec] = (),
        routers: Sequence[RouterSpec] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("shardwise:network:RuntimeNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {"shardwise.dev/network": name}
        route_table_ids: pulumi.Input[list[str]]
        if network.vpc_id is None:
            vpc = aws.ec2.Vpc(f"{name}-vpc", cidr_block=network.cidr, enable_dns_hostnames=True,
                              enable_dns_support=True, tags={**tags, "Name": name}, opts=child)
            vpc_id: pulumi.Input[str] = vpc.id
            private_rt = aws.ec2.RouteTable(f"{name}-private", vpc_id=vpc.id, tags=tags, opts=child)
            subnet_ids: list[pulumi.Output[str]] = []
            for plan in render.subnet_plan(network, name):
                subnet_tags = {**tags, "Name": plan.name, f"kubernetes.io/cluster/{cluster_name}": "shared"}
                if not plan.public:
                    subnet_tags["kubernetes.io/role/internal-elb"] = "1"
                subnet = aws.ec2.Subnet(plan.name, vpc_id=vpc.id, cidr_block=plan.cidr,
                                        availability_zone=plan.availability_zone,
                                        map_public_ip_on_launch=plan.map_public_ip_on_launch,
                                        tags=subnet_tags, opts=child)
                if plan.public:
                    self._nat(name, vpc, subnet, private_rt, tags, child)
                else:
                    aws.ec2.RouteTableAssociation(f"{plan.name}-rt", subnet_id=subnet.id,
                                                  route_table_id=private_rt.id, opts=child)
                    subnet_ids.append(subnet.id)
            route_table_ids = pulumi.Output.all(private_rt.id).apply(list)
        else:
            vpc_id = network.vpc_id
            subnet_ids = [pulumi.Output.from_input(s) for s in network.private_subnet_ids]
            tables = [aws.ec2.get_route_table_output(subnet_id=s).route_table_id
                      for s in network.private_subnet_ids]
            route_table_ids = pulumi.Output.all(*tables).apply(lambda ids: sorted(set(ids)))

        sg = aws.ec2.SecurityGroup(f"{name}-gpu-nodes", vpc_id=vpc_id,
                                   description="GPU nodes: distributed runtime traffic only from this group",
                                   tags={**tags, "Name": f"{name}-gpu-nodes"}, opts=child)
        for rule in render.gpu_node_sg_rules():
            _sg_rule(f"{name}-gpu-nodes", sg, rule, child)

        self.endpoint_ids = []
        if network.endpoints:
            ep_sg = aws.ec2.SecurityGroup(f"{name}-endpoints", vpc_id=vpc_id,
                                          description="VPC interface endpoints: HTTPS from the VPC",
                                          tags={**tags, "Name": f"{name}-endpoints"}, opts=child)
            for rule in render.endpoint_sg_rules(network.cidr):
                _sg_rule(f"{name}-endpoints", ep_sg, rule, child)
            for svc in render.gateway_endpoint_services(region):
                ep = aws.ec2.VpcEndpoint(f"{name}-{svc.rsplit('.', 1)[-1]}", vpc_id=vpc_id, service_name=svc,
                                         vpc_endpoint_type="Gateway", route_table_ids=route_table_ids,
                                         tags=tags, opts=child)
                self.endpoint_ids.append(ep.id)
            for svc in render.interface_endpoint_services(region):
                short = "-".join(svc.split(".")[-2:])
                ep = aws.ec2.VpcEndpoint(f"{name}-{short}", vpc_id=vpc_id, service_name=svc,
                                         vpc_endpoint_type="Interface", private_dns_enabled=True,
                                         subnet_ids=subnet_ids, security_group_ids=[ep_sg.id],
                                         tags=tags, opts=child)
                self.endpoint_ids.append(ep.id)

        k8s_child = pulumi.ResourceOptions(parent=self, depends_on=depends_on(opts))
        self.network_policies = []
        for obj in render.render_network_policies(network, services, multi_node, routers):
            meta = obj["metadata"]
            declare(f"{name}-{meta['namespace']}-{meta['name']}", obj, k8s_child)
            self.network_policies.append(f"{meta['namespace']}/{meta['name']}")

        self.vpc_id = pulumi.Output.from_input(vpc_id)
        self.private_subnet_ids = subnet_ids
        self.security_group_id = sg.id
        self.register_outputs({
            "vpc_id": self.vpc_id,
            "private_subnet_ids": self.private_subnet_ids,
            "security_group_id": self.security_group_id,
            "endpoint_ids": self.endpoint_ids,
            "network_policies": self.network_policies,
        })

    def _nat(self, name: str, vpc: aws.ec2.Vpc, subnet: aws.ec2.Subnet, private_rt: aws.ec2.RouteTable,
             tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        """Internet gateway, the NAT subnet's route to it, a NAT gateway and the private default route."""
        igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=tags, opts=child)
        public_rt = aws.ec2.RouteTable(f"{name}-nat", vpc_id=vpc.id, tags=tags, opts=child)
        aws.ec2.Route(f"{name}-nat-default", route_table_id=public_rt.id, destination_cidr_block="0.0.0.0/0",
                      gateway_id=igw.id, opts=child)
        aws.ec2.RouteTableAssociation(f"{name}-nat-rt", subnet_id=subnet.id, route_table_id=public_rt.id,
                                      opts=child)
        eip = aws.ec2.Eip(f"{name}-nat-ip", domain="vpc", tags=tags, opts=child)
        nat = aws.ec2.NatGateway(f"{name}-nat", subnet_id=subnet.id, allocation_id=eip.id, tags=tags,
                                 opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]))
        aws.ec2.Route(f"{name}-private-default", route_table_id=private_rt.id,
                      destination_cidr_block="0.0.0.0/0", nat_gateway_id=nat.id, opts=child)
