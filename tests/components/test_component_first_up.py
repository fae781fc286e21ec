"""What a first ``pulumi up`` needs from the components, under Pulumi's mocks (tests/support/component_mocks.py):
the order of resources (custom resources after the releases that install their CRDs, node groups and the
cluster after their IAM policy attachments), the waits (timeouts from the startup budget, no await where
waiting proves nothing), the controllers a created cluster installs with their IAM, the node groups'
autoscaling, the Pod Identity agent's egress, existing-VPC endpoints, lookups through the component's
provider and the prerequisites an existing cluster must declare. Only the Kubernetes layer also meets a real
control plane (tests/e2e/test_cluster.py: every object accepted, every vLLM pod scheduled); the AWS side, the
Helm releases and the controllers they install are checked only here (docs/status.md)."""

from __future__ import annotations

import copy
import json
import pathlib
import textwrap
from typing import Any

from component_mocks import failing_program, run_program
from test_components import broken, stack_config, stack_run

REL = "kubernetes:helm.sh/v3:Release::prod-cluster-"
NS = "kubernetes:core/v1:Namespace::prod-namespace-serving"


def test_custom_resources_wait_for_the_releases_that_install_their_crds():
    run = stack_run("prod")
    assert run.depends_on("kubernetes:keda.sh/v1alpha1:ScaledObject", "prod-llama-70b-scaledobject") == [
        NS, f"{REL}keda"]
    for monitor in ("prod-llama-70b-podmonitor", "prod-llama-405b-podmonitor"):
        assert run.depends_on("kubernetes:monitoring.coreos.com/v1:PodMonitor", monitor) == [
            NS, f"{REL}kube-prometheus-stack"]
    assert run.depends_on("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
                          "prod-llama-405b-leaderworkerset") == [NS, f"{REL}lws"]
    # the Ingress waits for the controller that gives it an address (and whose webhook gates the pods)
    assert run.depends_on("kubernetes:networking.k8s.io/v1:Ingress", "prod-llm-ingress-llm") == [
        NS, f"{REL}aws-load-balancer-controller"]
    # built-in kinds wait only for the namespace
    assert run.depends_on("kubernetes:policy/v1:PodDisruptionBudget", "prod-llama-70b-poddisruptionbudget") == [NS]


def test_waits_follow_the_startup_budget():
    prod, dev = stack_run("prod"), stack_run("dev")
    # minutes = ceil(first-start budget / 60) + 10; the Service waits for ready endpoints as long as the pods
    timeouts = {(r.type.rsplit(":", 1)[1], r.name): r.custom_timeouts for run in (prod, dev) for r in run.resources
                if r.custom_timeouts}
    assert timeouts == {
        ("Deployment", "prod-llama-70b-deployment"): {"create": "42m", "update": "42m"},
        ("Service", "prod-llama-70b-service"): {"create": "42m", "update": "42m"},
        ("LeaderWorkerSet", "prod-llama-405b-leaderworkerset"): {"create": "157m", "update": "157m"},
        ("Service", "prod-llama-405b-service"): {"create": "157m", "update": "157m"},
        # the slowest backend's rollout and 10 minutes for the ALB
        ("Ingress", "prod-llm-ingress-llm"): {"create": "167m", "update": "167m"},
        ("Deployment", "dev-llama-8b-deployment"): {"create": "19m", "update": "19m"},
        ("Service", "dev-llama-8b-service"): {"create": "19m", "update": "19m"},
        ("Ingress", "dev-llm-ingress-llm"): {"create": "29m", "update": "29m"},
    }
    assert prod.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").ignore_changes == ["spec.replicas"]


def test_the_cache_claim_is_not_awaited_and_the_deployment_waits_for_it():
    run = stack_run("staging")
    claim = run.one("kubernetes:core/v1:PersistentVolumeClaim", "staging-llama-70b-awq-persistentvolumeclaim")
    # WaitForFirstConsumer binds only once a pod uses it: waiting for Bound before the pods would never end
    assert claim.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    assert run.depends_on("kubernetes:apps/v1:Deployment", "staging-llama-70b-awq-deployment") == [
        "kubernetes:core/v1:Namespace::staging-namespace-serving",
        "kubernetes:core/v1:PersistentVolumeClaim::staging-llama-70b-awq-persistentvolumeclaim"]


def test_the_created_cluster_installs_the_load_balancer_controller_and_the_autoscaler_with_their_iam():
    run = stack_run("prod")
    trust = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
        "Action": ["sts:AssumeRole", "sts:TagSession"]}]})
    for controller in ("aws-load-balancer-controller", "cluster-autoscaler"):
        assert run.one("aws:iam/role:Role", f"prod-cluster-{controller}").inputs == {"assumeRolePolicy": trust}
        assert run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", f"prod-cluster-{controller}").inputs == {
            "clusterName": "llm-prod", "namespace": "kube-system", "serviceAccount": controller,
            "roleArn": f"arn:aws:iam::123456789012:role/prod-cluster-{controller}"}
        # the release waits for the association: its pods get their credentials when they start
        assert (f"aws:eks/podIdentityAssociation:PodIdentityAssociation::prod-cluster-{controller}"
                in run.depends_on("kubernetes:helm.sh/v3:Release", f"prod-cluster-{controller}"))
    assert run.one("aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                   "prod-cluster-aws-load-balancer-controller").inputs == {
        "role": "prod-cluster-aws-load-balancer-controller",
        "policyArn": "arn:aws:iam::123456789012:policy/AWSLoadBalancerControllerIAMPolicy"}
    lbc = run.one("kubernetes:helm.sh/v3:Release", "prod-cluster-aws-load-balancer-controller").inputs
    assert lbc["values"] == {"clusterName": "llm-prod", "region": "us-east-1", "vpcId": "prod-network-vpc-id",
                             "nodeSelector": {"shardwise.dev/role": "system"},
                             "serviceAccount": {"name": "aws-load-balancer-controller"}}
    ca = run.one("kubernetes:helm.sh/v3:Release", "prod-cluster-cluster-autoscaler").inputs
    assert ca["values"] == {"cloudProvider": "aws", "awsRegion": "us-east-1", "nodeSelector": {"shardwise.dev/role": "system"},
                            "autoDiscovery": {"clusterName": "llm-prod"},
                            "rbac": {"serviceAccount": {"name": "cluster-autoscaler"}},
                            "extraArgs": {"balance-similar-node-groups": True}}
    policy = json.loads(run.one("aws:iam/rolePolicy:RolePolicy", "prod-cluster-cluster-autoscaler").inputs["policy"])
    read, scale = policy["Statement"]
    assert "eks:DescribeNodegroup" in read["Action"] and read["Resource"] == "*"  # scale-up from zero reads labels
    assert scale == {"Effect": "Allow", "Resource": "*",
                     "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
                     "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/llm-prod": "owned"}}}


def test_the_cluster_and_node_groups_wait_for_their_policy_attachments_and_leave_the_size_to_the_autoscaler():
    run = stack_run("prod")
    attach = "aws:iam/rolePolicyAttachment:RolePolicyAttachment::prod-cluster-"
    node_attachments = [f"{attach}nodes-{p}" for p in ("AmazonEC2ContainerRegistryReadOnly",
                                                         "AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy")]
    assert f"{attach}cluster-policy" in run.depends_on("aws:eks/cluster:Cluster", "prod-cluster-cluster")
    for ng in ("prod-cluster-system", "prod-h100-node-group", "prod-h100-efa-node-group"):
        deps = run.depends_on("aws:eks/nodeGroup:NodeGroup", ng)
        assert [d for d in deps if d.startswith(attach)] == node_attachments, ng
        assert run.one("aws:eks/nodeGroup:NodeGroup", ng).ignore_changes == ["scalingConfig.desiredSize"]


def _pod_identity(env: dict[str, Any]) -> None:
    env["services"][0]["pod"] = {"service_account": {
        "name": "llama-8b", "role_arn": "arn:aws:iam::123456789012:role/llama-8b-weights", "mode": "pod-identity"}}


def test_pod_identity_workloads_may_reach_the_agent_through_the_default_deny():
    run = run_program(broken("dev", _pod_identity), stack="dev")
    policy = run.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "dev-network-serving-allow-pod-identity-agent")
    assert policy.inputs["spec"] == {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{
        "to": [{"ipBlock": {"cidr": "169.254.170.23/32"}}], "ports": [{"protocol": "TCP", "port": 80}]}]}
    assert run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "dev-llama-8b-pod-identity").inputs == {
        "clusterName": "llm-dev", "namespace": "serving", "serviceAccount": "llama-8b",
        "roleArn": "arn:aws:iam::123456789012:role/llama-8b-weights"}
    # new pods get the association's credentials: the Deployment comes after it
    assert "aws:eks/podIdentityAssociation:PodIdentityAssociation::dev-llama-8b-pod-identity" in run.depends_on(
        "kubernetes:apps/v1:Deployment", "dev-llama-8b-deployment")
    # without Pod Identity there is no such policy (the stacks)
    assert [r.name for r in stack_run("dev").of_type("kubernetes:networking.k8s.io/v1:NetworkPolicy")
            if "pod-identity" in r.name] == []


def test_existing_vpc_endpoints_are_opt_in_and_use_the_main_route_table_where_a_subnet_has_no_other():
    def opt_in(env):
        env["network"]["endpoints"] = True

    run = run_program(broken("dev", opt_in), stack="dev")
    s3 = run.one("aws:ec2/vpcEndpoint:VpcEndpoint", "dev-network-s3").inputs
    # subnet ...0002 has no explicit association (the mocks): it routes through the VPC's main table
    assert s3["routeTableIds"] == ["rtb-main-vpc-0d1e2f3a4b5c6d7e8", "rtb-subnet-0d1e2f3a4b5c60001"]
    lookups = sorted((c for c in run.calls if c[0] != "aws:eks/getCluster:getCluster"), key=json.dumps)
    assert lookups == [
        ("aws:ec2/getRouteTable:getRouteTable", {"vpcId": "vpc-0d1e2f3a4b5c6d7e8",
                                                 "filters": [{"name": "association.main", "values": ["true"]}]}),
        *[("aws:ec2/getRouteTables:getRouteTables", {"vpcId": "vpc-0d1e2f3a4b5c6d7e8", "filters": [
            {"name": "association.subnet-id", "values": [s]}]}) for s in ("subnet-0d1e2f3a4b5c60001",
                                                                          "subnet-0d1e2f3a4b5c60002")]]


_PROVIDER_PROGRAM = '''
import pulumi
import pulumi_aws as aws
from shardwise.components import ServingEnvironment, ServingEnvironmentArgs
from shardwise.rules.adapters.stack import spec_from_value

spec = spec_from_value(pulumi.Config("shardwise").require_object("environment"), "shardwise:environment")
other = aws.Provider("other-account", region="eu-west-1")
ServingEnvironment("env", ServingEnvironmentArgs(spec=spec, kubeconfig="{{}}"),
                   opts=pulumi.ResourceOptions(providers=[other]))
'''


def test_every_lookup_goes_through_the_components_aws_provider(tmp_path: pathlib.Path):
    def opt_in(env):
        env["network"]["endpoints"] = True

    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(_PROVIDER_PROGRAM))
    run = run_program(broken("dev", opt_in), program=path)
    assert sorted(c[0] for c in run.calls) == [
        "aws:ec2/getRouteTable:getRouteTable", "aws:ec2/getRouteTables:getRouteTables",
        "aws:ec2/getRouteTables:getRouteTables", "aws:eks/getCluster:getCluster"]
    provider = "urn:pulumi:test::shardwise::pulumi:pulumi:Stack$pulumi:providers:aws::other-account::other-account-id"
    assert run.call_providers == [provider] * 4


def _config_with(env: str, **cluster: Any) -> dict[str, Any]:
    config = copy.deepcopy(stack_config(env))
    config["shardwise:environment"].setdefault("cluster", {}).update(cluster)
    return config


def test_an_existing_cluster_must_declare_what_the_environment_needs():
    config = _config_with("dev", installed=["nvidia-device-plugin", "karpenter", "prometheus-operator", "kedaa"])
    err, run = failing_program(config)
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]
    assert err.errors == [
        {"property_path": "cluster.installed[3]", "reason": (
            "`kedaa` is not a prerequisite shardwise knows (nvidia-device-plugin, aws-efa-k8s-device-plugin, lws, "
            "keda, prometheus-operator, aws-load-balancer-controller, cluster-autoscaler, karpenter, gateway-api)")},
        {"property_path": "services[0]", "reason": (
            "needs keda on cluster `llm-dev` (KEDA and its ScaledObject CRD (KEDA autoscalers)): not listed in "
            "cluster.installed; install it and list it in cluster.installed")},
        {"property_path": "routers[0]", "reason": (
            "needs aws-load-balancer-controller on cluster `llm-dev` (the AWS Load Balancer Controller with its IAM "
            "role (alb-ingress routers)): not listed in cluster.installed; install it and list it in "
            "cluster.installed")},
    ]


def test_an_existing_cluster_must_declare_the_priority_classes_its_pods_name():
    err, _ = failing_program(_config_with("staging", priority_classes=[]))
    assert err.errors == [{"property_path": "services[0].pod.priority_class_name", "reason": (
        "PriorityClass `inference-high` is not listed in cluster.priority_classes: the API server refuses pods that "
        "name a PriorityClass cluster `llm-staging` lacks; create it and list it there")}]


def test_a_created_cluster_with_an_alb_router_needs_the_controllers_policy():
    config = copy.deepcopy(stack_config("prod"))
    del config["shardwise:environment"]["cluster"]["load_balancer_controller_policy_arn"]
    err, run = failing_program(config)
    assert run.resources == []
    assert err.errors == [{"property_path": "cluster.load_balancer_controller_policy_arn", "reason": (
        "routers[0] is an ALB Ingress: the AWS Load Balancer Controller that serves it needs an IAM policy shardwise "
        "does not write; set this to the policy made from the iam_policy.json of the controller's release (or "
        "install the controller and list aws-load-balancer-controller in cluster.installed)")}]
