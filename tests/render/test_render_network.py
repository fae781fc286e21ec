"""rules/render/network.py: NetworkPolicies, the GPU nodes' security group rules and the subnet plan."""

from __future__ import annotations

import ipaddress

from render_support import multinode, service
from shardwise.rules.model.spec import NetworkSpec, RouterSpec
from shardwise.rules.render.network import (
    gpu_node_sg_rules,
    load_balancer_cidrs,
    render_network_policies,
    subnet_plan,
)


def test_network_policies():
    net = NetworkSpec(cidr="10.42.0.0/16")
    router = RouterSpec(name="llm", namespace="serving", services=("llama-70b",))
    pols = render_network_policies(net, [service()], [multinode()], [router])
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pols] == [
        ("serving", "default-deny"), ("serving", "allow-dns"), ("serving", "allow-https-egress"),
        ("serving", "llama-70b-intra-group"), ("serving", "llama-70b-api"),
        ("serving", "llama-405b-intra-group"), ("serving", "llama-405b-api"),
    ]
    by_name = {p["metadata"]["name"]: p["spec"] for p in pols}
    assert by_name["default-deny"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    assert by_name["allow-dns"]["egress"] == [{
        "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
    }]
    group = {"podSelector": {"matchLabels": {"shardwise.dev/serving-group": "llama-405b"}}}
    assert by_name["llama-405b-intra-group"] == {
        "podSelector": {"matchLabels": {"shardwise.dev/serving-group": "llama-405b"}},
        "policyTypes": ["Ingress", "Egress"], "ingress": [{"from": [group]}], "egress": [{"to": [group]}]}
    gateway = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}
    monitoring = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    assert by_name["llama-70b-api"]["ingress"] == [{
        # the ALB's own subnets (the last /19's /22s after the NAT's), not the VPC: pods have VPC addresses too
        "from": [gateway, monitoring, {"ipBlock": {"cidr": "10.42.228.0/22"}}, {"ipBlock": {"cidr": "10.42.232.0/22"}}],
        "ports": [{"protocol": "TCP", "port": 8000}]}]
    assert by_name["llama-405b-api"]["ingress"] == [{"from": [gateway, monitoring],
                                                     "ports": [{"protocol": "TCP", "port": 8000}]}]


def test_security_group_rules_open_no_runtime_port_to_the_world():
    rules = gpu_node_sg_rules()
    assert [(r.direction, r.protocol, r.self_ref, r.cidr) for r in rules] == [
        ("ingress", "-1", True, None), ("egress", "-1", True, None), ("egress", "tcp", False, "0.0.0.0/0")]
    assert [(r.from_port, r.to_port) for r in rules if r.cidr] == [(443, 443)]
    assert all(r.direction == "egress" for r in rules if r.cidr)


def test_subnet_plan_is_private_and_inside_the_vpc():
    net = NetworkSpec(cidr="10.42.0.0/16", availability_zones=("us-east-1a", "us-east-1b", "us-east-1c"))
    plans = subnet_plan(net, "prod")
    vpc = ipaddress.ip_network(net.cidr)
    nets = [ipaddress.ip_network(p.cidr) for p in plans]
    assert all(n.subnet_of(vpc) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1:])
    assert [(p.name, p.cidr, p.load_balancer) for p in plans] == [
        ("prod-private-us-east-1a", "10.42.0.0/19", False), ("prod-private-us-east-1b", "10.42.32.0/19", False),
        ("prod-private-us-east-1c", "10.42.64.0/19", False),
        ("prod-lb-us-east-1a", "10.42.228.0/22", True), ("prod-lb-us-east-1b", "10.42.232.0/22", True),
        ("prod-lb-us-east-1c", "10.42.236.0/22", True), ("prod-nat-us-east-1a", "10.42.224.0/22", False)]
    assert [p.map_public_ip_on_launch for p in plans] == [False] * 7
    assert load_balancer_cidrs(net) == ["10.42.228.0/22", "10.42.232.0/22", "10.42.236.0/22"]
    assert subnet_plan(NetworkSpec(vpc_id="vpc-1", private_subnet_ids=("subnet-1",)), "x") == []


def test_an_existing_vpc_admits_the_load_balancer_ranges_it_names():
    net = NetworkSpec(vpc_id="vpc-1", private_subnet_ids=("subnet-1",), cidr="10.40.0.0/16",
                      load_balancer_cidrs=("10.40.240.0/24", "10.40.241.0/24"))
    router = RouterSpec(name="llm", namespace="serving", services=("llama-70b",))
    api = {p["metadata"]["name"]: p["spec"] for p in render_network_policies(net, [service()], [], [router])}
    assert api["llama-70b-api"]["ingress"][0]["from"][2:] == [
        {"ipBlock": {"cidr": "10.40.240.0/24"}}, {"ipBlock": {"cidr": "10.40.241.0/24"}}]
    # the VPC given apart from the spec (a component's vpc_id) is an existing one too
    assert load_balancer_cidrs(NetworkSpec(cidr="10.50.0.0/16", load_balancer_cidrs=("10.50.9.0/24",)),
                               existing_vpc=True) == ["10.50.9.0/24"]
