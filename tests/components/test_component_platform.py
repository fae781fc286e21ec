"""What an EKS practitioner expects a created environment to bring, under Pulumi mocks through the stacks'
``__main__.py``: GPU telemetry (NVIDIA's DCGM exporter on the GPU nodes, its series keeping the pod and
namespace the ``gpu`` autoscaler selects on), a model store (an S3 bucket the serving pods stream from),
an ECR pull-through cache for the vLLM image, and public subnets for an internet-facing router. The AWS
provider is a stand-in here: these are the resources declared, never created (docs/status.md)."""

from __future__ import annotations

from typing import Any

from component_mocks import run_program
from test_components import broken, refused, stack_run

RELEASE = "kubernetes:helm.sh/v3:Release"


def test_a_created_cluster_runs_the_dcgm_exporter_on_the_gpu_nodes_only():
    run = stack_run("prod")
    dcgm = run.one(RELEASE, "prod-cluster-dcgm-exporter")
    assert {k: dcgm.inputs[k] for k in ("name", "chart", "version", "namespace", "timeout")} == {
        "name": "dcgm-exporter", "chart": "dcgm-exporter", "version": "4.8.2", "namespace": "monitoring",
        "timeout": 600}
    assert dcgm.inputs["repositoryOpts"] == {"repo": "https://nvidia.github.io/dcgm-exporter/helm-charts"}
    assert dcgm.inputs["values"] == {
        # the nodes every GPU pool labels, and their taint (nvidia.com/gpu=true:NoSchedule) tolerated, nothing else
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "shardwise.dev/gpu-count", "operator": "Exists"}]}]}}},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        # the chart's ServiceMonitor, keeping the exporter's pod/namespace labels (else exported_pod/…)
        "serviceMonitor": {"enabled": True, "honorLabels": True, "interval": "15s"}}
    # the ServiceMonitor's CRD comes with kube-prometheus-stack
    assert f"{RELEASE}::prod-cluster-kube-prometheus-stack" in run.depends_on(RELEASE, "prod-cluster-dcgm-exporter")


def test_the_gpu_autoscaler_reads_a_metric_the_exporter_exports_with_the_labels_it_selects_on():
    from shardwise.components.cluster import DCGM_METRICS, dcgm_exporter_values

    def edit(env: dict[str, Any]) -> None:
        env["services"][0]["autoscaling"].update(metric="gpu", threshold=80)

    run = run_program(broken("prod", edit), stack="prod")
    query = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "prod-llama-70b-scaledobject").inputs[
        "spec"]["triggers"][0]["metadata"]["query"]
    assert query == 'avg(DCGM_FI_DEV_GPU_UTIL{namespace="serving",pod=~"llama-70b-[a-z0-9]+-[a-z0-9]+"})'
    assert query.split("(", 1)[1].split("{", 1)[0] in DCGM_METRICS
    assert dcgm_exporter_values(True)["serviceMonitor"]["honorLabels"] is True
    # without Prometheus there is nothing to select the monitor: none is made (its CRD would be missing)
    assert dcgm_exporter_values(False)["serviceMonitor"]["enabled"] is False


def test_gpu_autoscaling_without_the_exporter_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["cluster"]["gpu_telemetry"] = False
        env["services"][0]["autoscaling"].update(metric="gpu", threshold=80)

    err, _ = refused(broken("prod", edit))
    assert err.errors == [{"property_path": "services[0].autoscaling.metric", "reason": (
        "needs dcgm-exporter on cluster `llm-prod` (NVIDIA's DCGM exporter on the GPU nodes, scraped with its pod "
        "and namespace labels kept: an autoscaler on the `gpu` metric reads DCGM_FI_DEV_GPU_UTIL): its charts do "
        "not install it; install it and list it in cluster.installed")}]


def test_gpu_telemetry_off_installs_no_exporter():
    def edit(env: dict[str, Any]) -> None:
        env["cluster"]["gpu_telemetry"] = False

    run = run_program(broken("prod", edit), stack="prod")
    assert "dcgm-exporter" not in {r.inputs["name"] for r in run.of_type(RELEASE)}


def _internet_facing(env: dict[str, Any]) -> None:
    env["routers"][0]["internal"] = False
    env["routers"][0]["inbound_cidrs"] = ["0.0.0.0/0"]


def test_an_internet_facing_router_in_a_new_vpc_gets_public_subnets_and_the_api_port_admits_only_them():
    run = run_program(broken("prod", _internet_facing), stack="prod")
    subnets = {r.name: r.inputs for r in run.of_type("aws:ec2/subnet:Subnet")}
    public = {n: (s["cidrBlock"], s["availabilityZone"], s["mapPublicIpOnLaunch"], s["tags"].get(
        "kubernetes.io/role/elb"), "kubernetes.io/role/internal-elb" in s["tags"])
        for n, s in subnets.items() if "-public-" in n}
    # the second-last /19 of 10.42.0.0/16, in /22s: tagged for internet-facing load balancers, no public IPs
    assert public == {
        "prod-network-public-us-east-1a": ("10.42.192.0/22", "us-east-1a", False, "1", False),
        "prod-network-public-us-east-1b": ("10.42.196.0/22", "us-east-1b", False, "1", False),
        "prod-network-public-us-east-1c": ("10.42.200.0/22", "us-east-1c", False, "1", False)}
    # routed to the internet gateway, through the NAT subnet's table (one internet gateway)
    tables = {r.name: r.inputs["routeTableId"] for r in run.of_type(
        "aws:ec2/routeTableAssociation:RouteTableAssociation")}
    nat_table = tables["prod-network-nat-rt"]
    assert [tables[f"prod-network-public-{az}-rt"] for az in ("us-east-1a", "us-east-1b", "us-east-1c")] == \
        [nat_table] * 3
    assert len(run.of_type("aws:ec2/internetGateway:InternetGateway")) == 1
    ann = run.one("kubernetes:networking.k8s.io/v1:Ingress", "prod-llm-ingress-llm").inputs["metadata"]["annotations"]
    assert ann["alb.ingress.kubernetes.io/scheme"] == "internet-facing"
    # the ALB reaches pod IPs from its public subnets: those, not the internal load balancers' subnets
    api = run.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "prod-network-serving-llama-70b-api").inputs
    assert [p for p in api["spec"]["ingress"][0]["from"] if "ipBlock" in p] == [
        {"ipBlock": {"cidr": c}} for c in ("10.42.192.0/22", "10.42.196.0/22", "10.42.200.0/22")]


def test_an_internal_router_gets_no_public_subnet():
    run = stack_run("prod")
    assert [r.name for r in run.of_type("aws:ec2/subnet:Subnet") if "-public-" in r.name] == []
    assert [r.inputs["tags"].get("kubernetes.io/role/elb") for r in run.of_type("aws:ec2/subnet:Subnet")] == [None] * 7


def test_an_internet_facing_router_without_nat_still_gets_its_internet_gateway():
    def edit(env: dict[str, Any]) -> None:
        _internet_facing(env)
        env["network"]["nat_gateway"] = False

    run = run_program(broken("prod", edit), stack="prod")
    assert [r.name for r in run.of_type("aws:ec2/internetGateway:InternetGateway")] == ["prod-network-igw"]
    assert run.of_type("aws:ec2/natGateway:NatGateway") == []
    assert sorted(r.name for r in run.of_type("aws:ec2/subnet:Subnet") if "-public-" in r.name) == [
        "prod-network-public-us-east-1a", "prod-network-public-us-east-1b", "prod-network-public-us-east-1c"]


def test_public_subnets_in_more_zones_than_the_vpc_has_room_for_fail_at_preview():
    def edit(env: dict[str, Any]) -> None:
        _internet_facing(env)
        env["network"]["availability_zones"] = [f"us-east-1{z}" for z in "abcdef"] + ["us-east-1g"]

    err, _ = refused(broken("prod", edit))
    assert {"property_path": "network.availability_zones", "reason": (
        "an internet-facing ALB router needs a public subnet per zone, and the new VPC has room for them in 6 "
        "zones, not 7: list fewer zones (an ALB needs two)")} in err.errors


def test_an_internet_facing_router_in_an_existing_vpc_admits_the_ranges_the_stack_names():
    run = run_program(broken("dev", _internet_facing), stack="dev")
    assert run.of_type("aws:ec2/subnet:Subnet") == []
    api = run.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "dev-network-serving-llama-8b-api").inputs
    assert [p for p in api["spec"]["ingress"][0]["from"] if "ipBlock" in p] == [
        {"ipBlock": {"cidr": "10.40.240.0/24"}}, {"ipBlock": {"cidr": "10.40.241.0/24"}}]
