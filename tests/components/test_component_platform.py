"""What an EKS practitioner expects a created environment to bring, under Pulumi mocks through the stacks'
``__main__.py``: GPU telemetry (NVIDIA's DCGM exporter on the GPU nodes, its series keeping the pod and
namespace the ``gpu`` autoscaler selects on), a model store (an S3 bucket the serving pods stream from),
an ECR pull-through cache for the vLLM image, and public subnets for an internet-facing router. The AWS
provider is a stand-in here: these are the resources declared, never created (docs/status.md)."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest
from component_mocks import failing_program, run_program
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


HUB_SECRET = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ecr-pullthroughcache/docker-hub-AbCdEf"
REGISTRY = "123456789012.dkr.ecr.us-east-1.amazonaws.com"


def _image_cache(env: dict[str, Any]) -> None:
    env["image_cache"] = {"docker_hub_credential_arn": HUB_SECRET}


def test_the_image_cache_pulls_the_vllm_images_through_ecr_and_the_nodes_may_import_them():
    run = run_program(broken("prod", _image_cache), stack="prod")
    rules = {r.name: r.inputs for r in run.of_type("aws:ecr/pullThroughCacheRule:PullThroughCacheRule")}
    assert rules == {
        # llama-70b's vllm/vllm-openai: Docker Hub, with its credential
        "prod-image-cache-docker-hub": {"ecrRepositoryPrefix": "docker-hub",
                                        "upstreamRegistryUrl": "registry-1.docker.io", "credentialArn": HUB_SECRET},
        # llama-405b's AWS DLC: ECR Public, which needs none
        "prod-image-cache-ecr-public": {"ecrRepositoryPrefix": "ecr-public", "upstreamRegistryUrl": "public.ecr.aws"}}
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    assert {c["name"]: c["image"] for c in dep["spec"]["template"]["spec"]["containers"]} == {
        "vllm": f"{REGISTRY}/docker-hub/vllm/vllm-openai:v0.13.0"}
    for tpl in ("leaderTemplate", "workerTemplate"):
        (c,) = lws["spec"]["leaderWorkerTemplate"][tpl]["spec"]["containers"]
        assert c["image"] == f"{REGISTRY}/ecr-public/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2"
        # the launch the upstream image decided: vLLM 0.13.0's native multi-node, not Ray
        assert "--nnodes" in " ".join(c.get("args", []) + c.get("command", []))
    # the model-download init containers run the same image
    assert {c["image"] for c in dep["spec"]["template"]["spec"].get("initContainers", [])} <= {
        f"{REGISTRY}/docker-hub/vllm/vllm-openai:v0.13.0"}
    # the created node role: the first pull through a rule imports the image and creates its repository
    policy = run.one("aws:iam/rolePolicy:RolePolicy", "prod-image-cache-pull-through").inputs
    assert policy["role"] == "prod-cluster-nodes"
    assert json.loads(policy["policy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": ["ecr:BatchImportUpstreamImage", "ecr:CreateRepository"],
        "Resource": ["arn:aws:ecr:us-east-1:123456789012:repository/docker-hub/*",
                     "arn:aws:ecr:us-east-1:123456789012:repository/ecr-public/*"]}]}


def test_an_image_the_program_gives_or_no_rule_mirrors_is_left_as_it_is():
    def edit(env: dict[str, Any]) -> None:
        _image_cache(env)
        env["multi_node"][0]["image"] = "nvcr.io/nvidia/vllm:25.09-py3"
        env["multi_node"][0].update(vllm_version="0.10.1", image_efa=True)

    run = run_program(broken("prod", edit), stack="prod")
    assert run.names("aws:ecr/pullThroughCacheRule:PullThroughCacheRule") == ["prod-image-cache-docker-hub"]
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    assert lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["image"] == \
        "nvcr.io/nvidia/vllm:25.09-py3"


def test_a_docker_hub_rule_without_its_credential_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["image_cache"] = {}

    err, _ = refused(broken("prod", edit))
    assert err.errors == [{"property_path": "image_cache.docker_hub_credential_arn", "reason": (
        "`vllm/vllm-openai:v0.13.0` of `llama-70b` is on Docker Hub, and ECR creates a Docker Hub pull-through cache "
        "rule only with a credential: store a Docker Hub username and access token (keys username and accessToken) "
        "in a Secrets Manager secret named ecr-pullthroughcache/…, in this account and region, and give its ARN")}]


def test_a_credential_in_another_region_or_without_the_prefix_fails_at_preview():
    def elsewhere(env: dict[str, Any]) -> None:
        env["image_cache"] = {"docker_hub_credential_arn": HUB_SECRET.replace("us-east-1", "us-west-2")}

    err, _ = refused(broken("prod", elsewhere))
    assert err.errors == [{"property_path": "image_cache.docker_hub_credential_arn", "reason": (
        "the secret is in us-west-2, the pull-through cache rule in us-east-1: ECR reads the credential only from "
        "the rule's own account and region")}]

    def unprefixed(env: dict[str, Any]) -> None:
        env["image_cache"] = {"docker_hub_credential_arn": HUB_SECRET.replace("ecr-pullthroughcache/", "dockerhub/")}

    # the stack config is refused as it is read, before any resource
    failed, run = failing_program(broken("prod", unprefixed), error=pulumi.RunError)
    assert run.resources == []
    assert str(failed) == (
        "stack config shardwise:environment: image_cache.docker_hub_credential_arn: String should match pattern "
        r"'^arn:aws(-\w+)*:secretsmanager:[a-z0-9-]+:\d{12}:secret:ecr-pullthroughcache/[A-Za-z0-9/_+=.@-]+$'")


def test_a_cache_copy_is_read_as_its_upstream_image():
    from shardwise.rules.vllm import images
    from shardwise.rules.vllm.imageref import through_cache, upstream

    assert through_cache("ubuntu:24.04", REGISTRY) == f"{REGISTRY}/docker-hub/library/ubuntu:24.04"
    assert through_cache("nvcr.io/nvidia/vllm:25.09-py3", REGISTRY) is None
    dlc = through_cache("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", REGISTRY)
    assert upstream(dlc) == "public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2"
    info = images.image_info(dlc)
    assert (info.family, info.vllm_version, info.efa) == ("aws-dlc", (0, 13, 0), True)
    assert upstream(f"{REGISTRY}/docker-hub/library/ubuntu:24.04") == "ubuntu:24.04"
    assert upstream(f"{REGISTRY}/team/vllm:1") == f"{REGISTRY}/team/vllm:1"  # not a cache prefix


def test_an_existing_clusters_node_role_gets_the_import_permissions_by_its_name():
    run = run_program(broken("dev", _image_cache), stack="dev")
    policy = run.one("aws:iam/rolePolicy:RolePolicy", "dev-image-cache-pull-through").inputs
    assert policy["role"] == "llm-dev-gpu-node"
    assert json.loads(policy["policy"])["Statement"][0]["Resource"] == [
        "arn:aws:ecr:us-east-1:123456789012:repository/docker-hub/*"]
    dep = run.one("kubernetes:apps/v1:Deployment", "dev-llama-8b-deployment").inputs
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == f"{REGISTRY}/docker-hub/vllm/vllm-openai:v0.11.0"


def test_an_image_cache_without_a_node_role_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        _image_cache(env)
        del env["node_role_arn"]

    err, _ = refused(broken("dev", edit))
    assert {"property_path": "node_role_arn", "reason": (
        "image_cache: the nodes' IAM role gets the permission to import images through the cache, and its account "
        "names the registry: give node_role_arn")} in err.errors


STORE_URI = "s3://acme-llm-weights/meta-llama/Llama-3.1-70B-Instruct"


def _model_store(env: dict[str, Any]) -> None:
    env["model_store"] = {"bucket": "acme-llm-weights"}
    env["services"][0]["cache"] = {"kind": "s3", "s3_uri": STORE_URI, "throughput_mib_s": 1500}


def test_the_model_store_is_a_private_encrypted_bucket_the_serving_pods_stream_from():
    run = run_program(broken("prod", _model_store), stack="prod")
    bucket = run.one("aws:s3/bucket:Bucket", "prod-model-store-bucket").inputs
    assert (bucket["bucket"], bucket["forceDestroy"]) == ("acme-llm-weights", False)
    assert "versioning" not in bucket and run.of_type("aws:s3/bucketVersioning:BucketVersioning") == []
    block = run.one("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "prod-model-store-public-access").inputs
    assert {k: block[k] for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls",
                                  "restrictPublicBuckets")} == dict.fromkeys(
        ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"), True)
    assert run.one("aws:s3/bucketOwnershipControls:BucketOwnershipControls", "prod-model-store-ownership").inputs[
        "rule"] == {"objectOwnership": "BucketOwnerEnforced"}
    assert run.one("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                   "prod-model-store-encryption").inputs["rules"] == [
        {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}]
    assert json.loads(run.one("aws:s3/bucketPolicy:BucketPolicy", "prod-model-store-tls-only").inputs["policy"]) == {
        "Version": "2012-10-17", "Statement": [{
            "Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
            "Resource": ["arn:aws:s3:::acme-llm-weights", "arn:aws:s3:::acme-llm-weights/*"],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}
    # the readers' role: Pod Identity, list and get on this bucket only
    role = run.one("aws:iam/role:Role", "prod-model-store-reader").inputs
    assert json.loads(role["assumeRolePolicy"])["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert json.loads(run.one("aws:iam/rolePolicy:RolePolicy", "prod-model-store-read").inputs["policy"]) == {
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::acme-llm-weights"]},
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::acme-llm-weights/*"]}]}
    # llama-70b streams from it with a service account of its own that gets the role
    sa = run.one("kubernetes:core/v1:ServiceAccount", "prod-llama-70b-serviceaccount").inputs["metadata"]
    assert (sa["name"], sa["namespace"]) == ("llama-70b", "serving")
    assoc = [r.inputs for r in run.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
             if r.inputs.get("serviceAccount") == "llama-70b"]
    assert [(a["namespace"], a["roleArn"], a["clusterName"]) for a in assoc] == [
        ("serving", "arn:aws:iam::123456789012:role/prod-model-store-reader", "llm-prod")]
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    pod = dep["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "llama-70b"
    (c,) = pod["containers"]
    assert c["args"][0] == STORE_URI and c["args"][c["args"].index("--load-format") + 1] == "runai_streamer"
    assert "initContainers" not in pod  # nothing downloads from the Hub
    # the default-deny egress lets the pods reach the Pod Identity agent for their credentials
    agent = run.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "prod-network-serving-allow-pod-identity-agent")
    assert agent.inputs["spec"]["egress"] == [{"to": [{"ipBlock": {"cidr": "169.254.170.23/32"}}],
                                               "ports": [{"protocol": "TCP", "port": 80}]}]
    # and S3 is reached through the new VPC's gateway endpoint, not the NAT gateway
    s3 = run.one("aws:ec2/vpcEndpoint:VpcEndpoint", "prod-network-s3").inputs
    assert (s3["serviceName"], s3["vpcEndpointType"]) == ("com.amazonaws.us-east-1.s3", "Gateway")


def test_a_workloads_own_role_is_kept_and_another_bucket_is_not_the_stores():
    def edit(env: dict[str, Any]) -> None:
        _model_store(env)
        env["services"][0]["pod"] = {"service_account": {
            "name": "weights-reader", "role_arn": "arn:aws:iam::123456789012:role/team-weights"}}
        env["multi_node"][0]["cache"] = {"kind": "s3", "s3_uri": "s3://other-bucket/405b", "throughput_mib_s": 1500}
        env["multi_node"][0]["pod"] = {"service_account": {
            "name": "other-reader", "role_arn": "arn:aws:iam::123456789012:role/other"}}

    run = run_program(broken("prod", edit), stack="prod")
    assert sorted((r.inputs["serviceAccount"], r.inputs["roleArn"])
                  for r in run.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
                  if r.inputs["namespace"] == "serving") == [
        ("other-reader", "arn:aws:iam::123456789012:role/other"),
        ("weights-reader", "arn:aws:iam::123456789012:role/team-weights")]


def test_a_store_reader_through_irsa_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        _model_store(env)
        env["services"][0]["pod"] = {"service_account": {"name": "weights-reader", "mode": "irsa"}}

    err, _ = refused(broken("prod", edit))
    assert err.errors == [{"property_path": "services[0].pod.service_account.mode", "reason": (
        "`llama-70b` reads the model store through the role this environment creates, which EKS Pod Identity gives "
        "to pods (the cluster has no IAM OIDC provider shardwise makes): use mode pod-identity, or a role_arn of "
        "your own that trusts your OIDC provider")}]


def test_an_s3_cache_outside_the_store_without_credentials_still_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        _model_store(env)
        env["services"][0]["cache"]["s3_uri"] = "s3://other-bucket/70b"

    err, _ = refused(broken("prod", edit))
    assert [e["property_path"] for e in err.errors] == ["services[0].pod.service_account"]


def test_a_created_cluster_installs_no_karpenter_and_a_karpenter_pool_there_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["pools"][0]["provisioner"] = "karpenter"

    err, _ = refused(broken("prod", edit))
    assert {"property_path": "pools[0].provisioner", "reason": (
        "needs karpenter on cluster `llm-prod` (Karpenter with its NodePool/EC2NodeClass CRDs (karpenter pools)): "
        "its charts do not install it; install it and list it in cluster.installed")} in err.errors


@pytest.mark.parametrize(("cidr", "reason"), [
    # a /24's last /27 holds two /28s, not the NAT subnet and one load-balancer subnet for each of three zones:
    # the program failed with IndexError inside subnet_plan
    ("10.42.0.0/24", "10.42.0.0/24 is too small for 3 availability zones (a private /28 or larger per zone, and in "
                     "the last block a /28 per zone for load balancers and one for NAT); use a larger block such as "
                     "10.40.0.0/16"),
    # EC2's CreateVpc refuses it at `up`
    ("10.32.0.0/12", "10.32.0.0/12 is a /12: AWS creates VPCs of /16 (65,536 addresses) to /28 (16); use a block "
                     "such as 10.40.0.0/16"),
])
def test_a_vpc_cidr_the_subnets_cannot_be_carved_from_fails_at_preview(cidr, reason):
    def edit(env: dict[str, Any]) -> None:
        env["network"]["cidr"] = cidr

    err, _ = refused(broken("prod", edit))
    assert {"property_path": "network.cidr", "reason": reason} in err.errors
