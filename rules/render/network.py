"""RuntimeNetwork (:mod:`shardwise.components.network`): the AWS network plans (private subnets, the GPU
nodes' and the endpoints' security groups, the S3 and ECR endpoints) and the NetworkPolicies of the
serving namespaces."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.spec import NetworkSpec, RouterSpec, VllmMultiNodeSpec, VllmServiceSpec
from .common import LABEL_GROUP, LABEL_MANAGED_BY


@dataclass(frozen=True)
class SubnetPlan:
    name: str
    cidr: str
    availability_zone: str
    public: bool = False  # routes to an internet gateway (the NAT gateway's subnet, the internet-facing ALB's)
    load_balancer: bool = False  # holds load balancers: internal ones (kubernetes.io/role/internal-elb), or with
    internet_facing: bool = False  # internet-facing ones (kubernetes.io/role/elb)
    map_public_ip_on_launch: bool = False


@dataclass(frozen=True)
class SgRulePlan:
    direction: str  # ingress | egress
    protocol: str  # "-1" | "tcp" | "udp"
    from_port: int | None = None
    to_port: int | None = None
    cidr: str | None = None
    self_ref: bool = False
    description: str = ""


#: Zones a new VPC may have public load-balancer subnets in: they take the second-last of the VPC's eight blocks
#: (:func:`subnet_plan`), which the private subnets leave free up to six zones (no AWS region has more).
MAX_PUBLIC_SUBNET_ZONES = 6

#: The IPv4 block sizes EC2's CreateVpc accepts: the largest VPC is a /16 (65,536 addresses), the smallest a /28
#: (16). A subnet is at least a /28 too.
VPC_PREFIXES = (16, 28)
_SUBNET_BITS = 3  # each of a VPC's eight blocks, and each of a block's eight small subnets: prefix + 3 bits


class CarveError(ValueError):
    """:func:`subnet_plan` was asked to carve subnets from a VPC CIDR it cannot (:func:`carve_problem` says why)."""


def _carved(prefixlen: int) -> int:
    """The prefix of the blocks :func:`subnet_plan` carves from a block of ``prefixlen``: 3 bits longer, at most /28."""
    return min(prefixlen + _SUBNET_BITS, VPC_PREFIXES[1])


def carve_problem(network: NetworkSpec, internet_facing: bool = False) -> tuple[str, str] | None:
    """Why :func:`subnet_plan` cannot carve a new VPC's subnets from ``network``, as (field, message); None when
    it can (or the VPC exists). The plan takes the first blocks for the private subnets, one per zone; the last
    block for the load-balancer subnets (one per zone) and the NAT subnet before them; with ``internet_facing`` the
    second-last block for the public subnets. So no two subnets overlap (EC2 refuses a subnet that overlaps
    another) and each fits its block."""
    if network.vpc_id is not None:
        return None
    try:
        vpc = ipaddress.IPv4Network(network.cidr)
    except ValueError as e:  # AddressValueError, NetmaskValueError, "has host bits set"
        return "network.cidr", f"{network.cidr!r} is not an IPv4 CIDR block such as 10.40.0.0/16 ({e})"
    lo, hi = VPC_PREFIXES
    if not lo <= vpc.prefixlen <= hi:
        return "network.cidr", (f"{vpc} is a /{vpc.prefixlen}: AWS creates VPCs of /{lo} (65,536 addresses) to "
                                f"/{hi} (16); use a block such as 10.40.0.0/16")
    zones = len(network.availability_zones)
    blocks = 2 ** (_carved(vpc.prefixlen) - vpc.prefixlen)
    small = 2 ** (_carved(_carved(vpc.prefixlen)) - _carved(vpc.prefixlen))
    reserved = 2 if internet_facing else 1  # the last block (load balancers, NAT), the public one before it
    if zones + reserved <= blocks and zones + 1 <= small:
        return None
    holds = "load-balancer and NAT subnets" + (", the one before it the public subnets" if internet_facing else "")
    if blocks == 2 ** _SUBNET_BITS and small == 2 ** _SUBNET_BITS:  # large enough: more zones than blocks
        return "network.availability_zones", (
            f"at most {blocks - reserved} zones (one /{_carved(vpc.prefixlen)} of {vpc} each; the last holds the "
            f"{holds}), got {zones}")
    return "network.cidr", (
        f"{vpc} is too small for {zones} availability zones (a private /28 or larger per zone, and in the last "
        f"block a /28 per zone for load balancers and one for NAT); use a larger block such as 10.40.0.0/16")


def wants_public_subnets(routers: Sequence[RouterSpec]) -> bool:
    """Whether a new VPC needs public subnets for load balancers: an ALB router is internet-facing."""
    return any(r.kind == "alb-ingress" and not r.internal for r in routers)


def subnet_plan(network: NetworkSpec, prefix: str, internet_facing: bool = False) -> list[SubnetPlan]:
    """Private subnets, one per AZ, carved from the VPC CIDR (/16 → /19 each); from the last block
    (/16 → /22 each), one load-balancer subnet per AZ and with a NAT gateway one subnet for it in the
    first AZ. Only the load-balancer subnets are tagged for internal load balancers, so the AWS Load
    Balancer Controller places an internal ALB there and nowhere else: the NetworkPolicy of the API port
    then admits their ranges (:func:`load_balancer_cidrs`), not the nodes' and pods' subnets. No subnet
    maps public IPs at launch.

    With ``internet_facing`` (:func:`wants_public_subnets`), one public subnet per AZ from the second-last block
    (/16 → /22 each), routed to the internet gateway and tagged for internet-facing load balancers
    (``kubernetes.io/role/elb``), where the controller places an internet-facing ALB: it needs a subnet in at
    least two zones whose route table reaches an internet gateway, and finds none in a VPC of private subnets.
    An ALB needs no public IP on its subnet's instances, so these too map none."""
    if network.vpc_id is not None:
        return []
    problem = carve_problem(network, internet_facing)
    if problem is not None:
        raise CarveError(f"{problem[0]}: {problem[1]}")
    vpc = ipaddress.IPv4Network(network.cidr)
    blocks = list(vpc.subnets(new_prefix=_carved(vpc.prefixlen)))
    plans = [SubnetPlan(f"{prefix}-private-{az}", str(blocks[i]), az)
             for i, az in enumerate(network.availability_zones)]
    last = blocks[-1]
    small = list(last.subnets(new_prefix=_carved(last.prefixlen)))
    plans += [SubnetPlan(f"{prefix}-lb-{az}", str(small[1 + i]), az, load_balancer=True)
              for i, az in enumerate(network.availability_zones)]
    if network.nat_gateway:
        plans.append(SubnetPlan(f"{prefix}-nat-{network.availability_zones[0]}", str(small[0]),
                                network.availability_zones[0], public=True))
    if internet_facing:
        block = blocks[-2]
        public = list(block.subnets(new_prefix=_carved(block.prefixlen)))
        plans += [SubnetPlan(f"{prefix}-public-{az}", str(public[i]), az, public=True, load_balancer=True,
                             internet_facing=True) for i, az in enumerate(network.availability_zones)]
    return plans


def load_balancer_cidrs(network: NetworkSpec, existing_vpc: bool | None = None, internet_facing: bool = False,
                        ) -> list[str]:
    """Where an ALB's connections to pod IPs come from: a new VPC's load-balancer subnets (the internal ones, or
    with ``internet_facing`` the public ones), or the ranges an existing VPC's spec names
    (``network.load_balancer_cidrs``). ``existing_vpc``: the mode, when the VPC is given apart from the spec (a
    component's ``vpc_id``); default: ``network.vpc_id`` is set."""
    if network.vpc_id is not None or existing_vpc:
        return list(network.load_balancer_cidrs)
    return [p.cidr for p in subnet_plan(network, "", internet_facing)
            if p.load_balancer and p.internet_facing == internet_facing]


def gpu_node_sg_rules() -> list[SgRulePlan]:
    """Rules of the GPU-node security group.

    All traffic to and from the group itself (NCCL, EFA, Ray, torch.distributed; EFA requires the
    self-reference in both directions), and HTTPS out (Hugging Face Hub, ECR and S3 through the
    endpoints, the EKS API). Kubelet and control-plane traffic use the EKS cluster security group the
    launch template also attaches.

    What this does not confine: the cluster security group admits all traffic from every node and pod that
    carries it (every node of the cluster: pods on the VPC CNI share their node's groups), and a packet is
    admitted when any group of the interface admits it. So at the security-group layer the NCCL, Gloo, Ray
    and torch.distributed TCP ports of a GPU pod are open to the whole cluster; they cannot be closed there
    without closing what every pod needs from every node (CoreDNS answers, Prometheus scrapes, the ALB's
    health checks, kubelet probes). They are confined per pod by the serving group's NetworkPolicies
    (:func:`render_network_policies`: a group's pods accept other ports only from the group), which the VPC
    CNI's network policy agent enforces; a cluster without it enforces nothing of that. EFA's own traffic
    (SRD, outside the kernel's IP stack, so outside NetworkPolicy) needs the self-rule here and can only
    come from another EFA interface: the cluster's CPU nodes have none.
    """
    return [
        SgRulePlan("ingress", "-1", self_ref=True, description="all traffic from the GPU nodes themselves"),
        SgRulePlan("egress", "-1", self_ref=True, description="all traffic to the GPU nodes themselves"),
        SgRulePlan("egress", "tcp", 443, 443, cidr="0.0.0.0/0", description="HTTPS: model hub, ECR, S3, EKS API"),
    ]


def endpoint_sg_rules(vpc_cidr: str) -> list[SgRulePlan]:
    """Interface endpoints accept HTTPS from inside the VPC only."""
    return [SgRulePlan("ingress", "tcp", 443, 443, cidr=vpc_cidr, description="HTTPS from the VPC")]


def interface_endpoint_services(region: str) -> list[str]:
    return [f"com.amazonaws.{region}.ecr.api", f"com.amazonaws.{region}.ecr.dkr"]


def gateway_endpoint_services(region: str) -> list[str]:
    return [f"com.amazonaws.{region}.s3"]


def wants_endpoints(network: NetworkSpec, existing_vpc: bool) -> bool:
    """Whether to create the S3/ECR endpoints: as set, else only in a VPC shardwise creates (an existing
    VPC usually has them, and a second S3 gateway or an ECR endpoint with private DNS conflicts)."""
    return network.endpoints if network.endpoints is not None else not existing_vpc


def _policy(name: str, namespace: str, selector: dict[str, str], types: list[str],
            ingress: list[dict[str, Any]] | None = None,
            egress: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"podSelector": {"matchLabels": selector} if selector else {}, "policyTypes": types}
    if ingress is not None:
        spec["ingress"] = ingress
    if egress is not None:
        spec["egress"] = egress
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": spec,
    }


def _ns_peer(namespace: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}


#: The EKS Pod Identity agent: the SDKs of pods whose service account has a Pod Identity association get
#: their credentials from it (``AWS_CONTAINER_CREDENTIALS_FULL_URI``), on the node's link-local address.
POD_IDENTITY_AGENT = ("169.254.170.23/32", 80)


def uses_pod_identity(spec: VllmServiceSpec | VllmMultiNodeSpec) -> bool:
    sa = spec.pod.service_account
    return sa is not None and bool(sa.role_arn) and sa.mode == "pod-identity"


def render_network_policies(
    network: NetworkSpec,
    services: Sequence[VllmServiceSpec] = (),
    multi_node: Sequence[VllmMultiNodeSpec] = (),
    routers: Sequence[RouterSpec] = (),
    existing_vpc: bool | None = None,
) -> list[dict[str, Any]]:
    """NetworkPolicies for every serving namespace.

    Per namespace: deny all ingress and egress by default; allow DNS to kube-system (UDP and TCP
    53); allow HTTPS egress (Hugging Face Hub downloads, the Kubernetes API); where a workload's service
    account uses Pod Identity, allow the EKS Pod Identity agent (:data:`POD_IDENTITY_AGENT`, TCP 80: the
    default deny would block the pods' AWS credentials). Per serving group:
    allow all traffic between the group's own pods (NCCL, Gloo, Ray, torch.distributed use
    ephemeral ports that cannot be listed); allow the API port only from the gateway namespace and
    the monitoring namespace (Prometheus scrapes ``/metrics`` on the API port for the queue-depth
    autoscaler); and, for groups behind an ALB Ingress (target type ``ip``: the load balancer
    connects to pod IPs from its own subnets), from the load balancer's subnets only
    (:func:`load_balancer_cidrs`; an internet-facing ALB's are the public ones): the pods of every node
    have VPC addresses too, and admitting the VPC range would let any of them call the model directly.
    """
    groups: list[VllmServiceSpec | VllmMultiNodeSpec] = [*services, *multi_node]
    alb_routed: dict[str, list[str]] = {}  # workload → the subnets its ALBs connect from, in router order
    for r in routers:
        if r.kind == "alb-ingress":
            for s in r.services:
                cidrs = alb_routed.setdefault(s, [])
                cidrs += [c for c in load_balancer_cidrs(network, existing_vpc, not r.internal) if c not in cidrs]
    out: list[dict[str, Any]] = []
    for ns in sorted({g.namespace for g in groups}):
        out.append(_policy("default-deny", ns, {}, ["Ingress", "Egress"]))
        dns_peer = {**_ns_peer("kube-system"), "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}
        out.append(_policy("allow-dns", ns, {}, ["Egress"], egress=[{
            "to": [dns_peer],
            "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
        }]))
        out.append(_policy("allow-https-egress", ns, {}, ["Egress"], egress=[{
            "to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
            "ports": [{"protocol": "TCP", "port": 443}],
        }]))
        if any(uses_pod_identity(g) for g in groups if g.namespace == ns):
            cidr, port = POD_IDENTITY_AGENT
            out.append(_policy("allow-pod-identity-agent", ns, {}, ["Egress"], egress=[{
                "to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"protocol": "TCP", "port": port}],
            }]))
    for g in groups:
        sel = {LABEL_GROUP: g.name}
        peer = {"podSelector": {"matchLabels": sel}}
        out.append(_policy(f"{g.name}-intra-group", g.namespace, sel, ["Ingress", "Egress"],
                           ingress=[{"from": [peer]}], egress=[{"to": [peer]}]))
        sources = [_ns_peer(network.gateway_namespace)]
        if network.monitoring_namespace:
            sources.append(_ns_peer(network.monitoring_namespace))
        sources += [{"ipBlock": {"cidr": cidr}} for cidr in alb_routed.get(g.name, [])]
        out.append(_policy(f"{g.name}-api", g.namespace, sel, ["Ingress"], ingress=[{
            "from": sources,
            "ports": [{"protocol": "TCP", "port": g.engine.port}],
        }]))
    return out
