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
from pulumi_mocks import STACK_SECRETS
from test_component_api import program
from test_components import broken, stack_config, stack_run

REL = "kubernetes:helm.sh/v3:Release::prod-cluster-"
NS = "kubernetes:core/v1:Namespace::prod-namespace-serving"
KEY = "kubernetes:core/v1:Secret::prod-api-key-serving-vllm-api-key"


def test_custom_resources_wait_for_the_releases_that_install_their_crds():
    run = stack_run("prod")
    # ... and the ScaledObject for its Deployment too: it takes over the replicas once they serve
    assert run.depends_on("kubernetes:keda.sh/v1alpha1:ScaledObject", "prod-llama-70b-scaledobject") == [
        "kubernetes:apps/v1:Deployment::prod-llama-70b-deployment", NS, f"{REL}keda"]
    for monitor in ("prod-llama-70b-podmonitor", "prod-llama-405b-podmonitor"):
        assert run.depends_on("kubernetes:monitoring.coreos.com/v1:PodMonitor", monitor) == [
            NS, f"{REL}kube-prometheus-stack"]
    assert run.depends_on("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
                          "prod-llama-405b-leaderworkerset") == [
        NS, KEY, "kubernetes:core/v1:Secret::prod-hf-token-serving-hf-token", f"{REL}lws"]
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
        # an update replaces the replicas one after another (maxSurge 0), up to the autoscaler's 8: node-nvme
        # keeps the weights, so each restarts within its 562 s budget, 8 × 562 s -> 75 min, and 10
        ("Deployment", "prod-llama-70b-deployment"): {"create": "42m", "update": "85m"},
        ("Service", "prod-llama-70b-service"): {"create": "42m", "update": "42m"},
        ("LeaderWorkerSet", "prod-llama-405b-leaderworkerset"): {"create": "157m", "update": "157m"},
        ("Service", "prod-llama-405b-service"): {"create": "157m", "update": "157m"},
        # the slowest backend's rollout and 10 minutes for the ALB
        ("Ingress", "prod-llm-ingress-llm"): {"create": "167m", "update": "167m"},
        ("Deployment", "dev-llama-8b-deployment"): {"create": "19m", "update": "22m"},  # 2 × 332 s -> 12 min
        ("Service", "dev-llama-8b-service"): {"create": "19m", "update": "19m"},
        ("Ingress", "dev-llm-ingress-llm"): {"create": "29m", "update": "29m"},
    }
    assert prod.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").ignore_changes == ["spec.replicas"]
    # one replacement's first start (1,346 s of download, the 562 s budget) and 600 s for a node and the image:
    # the controller does not call the rollout stalled within the create timeout (42 min = 2,520 s)
    spec = prod.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs["spec"]
    assert spec["progressDeadlineSeconds"] == 1346 + 562 + 600


def test_up_waits_until_the_multinode_group_is_formed_and_serving():
    run = stack_run("prod")
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset")
    # a custom resource is ready once accepted unless it says what ready is: every group updated and ready
    # (the controller's Available) and as many ready groups as the spec asks for, within its 157-minute timeout
    assert lws.inputs["spec"]["replicas"] == 1
    assert json.loads(lws.inputs["metadata"]["annotations"]["pulumi.com/waitFor"]) == [
        "condition=Available", "jsonpath={.status.readyReplicas}=1"]
    assert "pulumi.com/skipAwait" not in lws.inputs["metadata"]["annotations"]
    assert "pulumi.com/timeoutSeconds" not in lws.inputs["metadata"]["annotations"]  # the custom timeouts rule
    assert lws.custom_timeouts == {"create": "157m", "update": "157m"}
    # built-in kinds keep the provider's own await logic (a Deployment waits for its available replicas)
    for r in run.resources:
        if r.type.startswith("kubernetes:") and r.type != lws.type and isinstance(r.inputs.get("metadata"), dict):
            assert "pulumi.com/waitFor" not in r.inputs["metadata"].get("annotations", {}), r.name


def test_a_group_of_several_replicas_waits_for_all_of_them():
    config = copy.deepcopy(stack_config("prod"))
    env = config["shardwise:environment"]
    env["multi_node"][0]["groups"] = 2
    env["pools"][1]["max_size"] = env["pools"][1]["desired_size"] = 4
    env["pools"][1]["min_size"] = 4
    run = run_program(config, stack="prod")
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    assert (lws["spec"]["replicas"], json.loads(lws["metadata"]["annotations"]["pulumi.com/waitFor"])) == (
        2, ["condition=Available", "jsonpath={.status.readyReplicas}=2"])
    # an update replaces the 2 groups one after another, each within its 1,055 s budget (node-nvme keeps the
    # 756 GiB checkpoint): 2 × 1,055 s -> 36 min and 10, below the first start's 157 (it downloads them)
    assert run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
                   "prod-llama-405b-leaderworkerset").custom_timeouts == {"create": "157m", "update": "157m"}


def test_the_cache_claim_is_not_awaited_and_the_deployment_waits_for_it():
    run = stack_run("staging")
    claim = run.one("kubernetes:core/v1:PersistentVolumeClaim", "staging-llama-70b-awq-persistentvolumeclaim")
    # WaitForFirstConsumer binds only once a pod uses it: waiting for Bound before the pods would never end
    assert claim.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    assert run.depends_on("kubernetes:apps/v1:Deployment", "staging-llama-70b-awq-deployment") == [
        "kubernetes:core/v1:Namespace::staging-namespace-serving",
        "kubernetes:core/v1:PersistentVolumeClaim::staging-llama-70b-awq-persistentvolumeclaim",
        "kubernetes:core/v1:Secret::staging-api-key-serving-vllm-api-key"]


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
ServingEnvironment("env", ServingEnvironmentArgs(spec=spec, kubeconfig="{{}}", hf_token_secret_exists=True,
                                                 api_key_secret_exists=True),
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
            "keda, prometheus-operator, aws-load-balancer-controller, cluster-autoscaler, karpenter, gateway-api, "
            "dcgm-exporter)")},
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


# --- the Hugging Face token: required for a gated model, made into the Secret the pods read ---------------


def test_prod_without_its_token_fails_at_preview_naming_the_gated_models():
    config = {k: v for k, v in stack_config("prod").items() if k != "shardwise:hfToken"}
    err, run = failing_program(config)
    assert run.resources == []  # before anything is declared
    why = ("is gated: Meta's Llama repositories ask every account to accept the Llama Community License before "
           "download (https://huggingface.co/meta-llama); without a token the pods crash-loop on the download until "
           "the rollout times out. Nothing creates the Secret `hf-token`: give hf_token (a Pulumi secret, e.g. "
           "`pulumi config set --secret shardwise:hfToken …`), or set hf_token_secret_exists when the Secret is made "
           "outside this program")
    assert err.errors == [  # type: ignore[attr-defined]
        {"property_path": "hf_token", "reason": f"`meta-llama/Llama-3.1-70B-Instruct` (at services[0].engine.model) {why}"},
        {"property_path": "hf_token",
         "reason": f"`meta-llama/Llama-3.1-405B-Instruct` (at multi_node[0].engine.model) {why}"},
    ]


def test_prod_makes_one_secret_from_the_token_and_its_workloads_wait_for_it():
    run = stack_run("prod")
    (secret,) = [s for s in run.of_type("kubernetes:core/v1:Secret") if "hf-token" in s.name]
    assert secret.name == "prod-hf-token-serving-hf-token"
    assert secret.inputs["metadata"] == {"name": "hf-token", "namespace": "serving",
                                         "labels": {"app.kubernetes.io/managed-by": "shardwise"}}
    assert secret.inputs["type"] == "Opaque"
    assert list(secret.inputs["stringData"]["value"]) == ["HF_TOKEN"]  # a secret (next test)
    assert run.depends_on("kubernetes:core/v1:Secret", secret.name) == [NS]
    token = f"kubernetes:core/v1:Secret::{secret.name}"
    # the pods wait for it; the workloads' other objects do not
    assert run.depends_on("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment") == [NS, KEY, token]
    assert run.depends_on("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
                          "prod-llama-405b-leaderworkerset") == [NS, KEY, token, f"{REL}lws"]
    assert run.depends_on("kubernetes:core/v1:Service", "prod-llama-70b-service") == [NS]
    # the pods read it under the key the Secret has
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    (c,) = dep["spec"]["template"]["spec"]["containers"]
    assert [e["valueFrom"] for e in c["env"] if e["name"] == "HF_TOKEN"] == [
        {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN", "optional": True}}]


def test_a_secret_made_elsewhere_is_named_not_made():
    # shardwise:hfTokenSecretExists and apiKeySecretExists: External Secrets makes hf-token and vllm-api-key
    run = stack_run("dev")
    assert run.of_type("kubernetes:core/v1:Secret") == []


def test_the_token_is_kept_secret_in_the_state():
    from pulumi.runtime import rpc

    run = stack_run("prod")
    secret, key = run.one("kubernetes:core/v1:Secret", "prod-hf-token-serving-hf-token"), run.one(
        "kubernetes:core/v1:Secret", "prod-api-key-serving-vllm-api-key")
    assert key.inputs["stringData"] == {rpc._special_sig_key: rpc._special_secret_sig,
                                        "value": {"api-key": STACK_SECRETS["prod"]["shardwise:apiKey"]}}
    value = secret.inputs["stringData"]
    # the mocks see the secret's wire form: the engine encrypts it in the state
    assert value == {rpc._special_sig_key: rpc._special_secret_sig,
                     "value": {"HF_TOKEN": STACK_SECRETS["prod"]["shardwise:hfToken"]}}


def test_a_gated_model_with_no_secret_name_says_which_field(tmp_path: pathlib.Path):
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent('''
        from shardwise.components import VllmService, VllmServiceArgs

        VllmService("gemma", VllmServiceArgs(
            name="gemma", pool={"name": "l40s", "instance_type": "g6e.xlarge"}, hf_token_secret=None,
            engine={"model": "google/gemma-2-9b-it", "max_model_len": 8192, "max_num_seqs": 16}, validate=False))
    '''))
    err, run = failing_program({}, program=program)
    assert run.resources == []
    assert err.errors == [{"property_path": "hf_token_secret", "reason": (  # type: ignore[attr-defined]
        "`google/gemma-2-9b-it` is gated: Google's Gemma repositories ask every account to agree to Google's usage "
        "license before download (https://huggingface.co/google/gemma-2-9b-it); without a token the pods "
        "crash-loop on the download: name the Secret (key HF_TOKEN) and give hf_token")}]


def test_an_ungated_model_needs_no_token():
    from shardwise.components.hf_token import gated

    assert [m for m in ("meta-llama/Llama-3.1-8B-Instruct", "google/gemma-3-27b-it", "google/codegemma-7b",
                        "Qwen/Qwen3-8B", "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
                        "mistralai/Mistral-7B-Instruct-v0.3", "/models/llama") if gated(m)] == [
        "meta-llama/Llama-3.1-8B-Instruct", "google/gemma-3-27b-it", "google/codegemma-7b"]


def test_every_helm_release_waits_longer_than_helms_default():
    run = stack_run("prod")
    # Helm's 300 s default is tight for a first install that pulls every image cold onto two small nodes
    assert {r.name.removeprefix("prod-cluster-"): r.inputs["timeout"]
            for r in run.of_type("kubernetes:helm.sh/v3:Release")} == {
        "kube-prometheus-stack": 1200, "nvidia-device-plugin": 600, "aws-efa-k8s-device-plugin": 600, "lws": 600,
        "keda": 600, "aws-load-balancer-controller": 600, "cluster-autoscaler": 600,
        "dcgm-exporter": 600}


def test_gpu_node_groups_update_without_asking_for_more_gpus():
    run = stack_run("prod")
    by_name = {r.name: r for r in run.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert sorted(by_name) == ["prod-cluster-system", "prod-h100-efa-node-group", "prod-h100-node-group"]
    for ng in ("prod-h100-node-group", "prod-h100-efa-node-group"):
        r = by_name[ng]
        # a launch-template change rolls one node at a time, the old one terminated first (no surge)
        assert r.inputs["updateConfig"] == {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}, ng
        # an immutable change deletes the old group first: no second set of p5 instances
        assert (r.delete_before_replace, r.ignore_changes) == (True, ["scalingConfig.desiredSize"]), ng
    # the CPU system nodes keep EKS's default (new nodes first: m6i capacity is there)
    system = by_name["prod-cluster-system"]
    assert ("updateConfig" not in system.inputs, system.delete_before_replace) == (True, False)


def test_a_public_api_endpoint_needs_the_cidrs_that_may_reach_it():
    config = copy.deepcopy(stack_config("prod"))
    del config["shardwise:environment"]["cluster"]["public_access_cidrs"]
    err, run = failing_program(config)
    assert run.resources == []  # before anything is declared
    assert err.errors == [{"property_path": "cluster.public_access_cidrs", "reason": (  # type: ignore[attr-defined]
        "the API endpoint is public (endpoint_public_access) but no CIDR may reach it is given, and EKS would open "
        "it to 0.0.0.0/0: list the networks that may (your office, VPN or CI egress), or set "
        "endpoint_public_access: false and reach it from the VPC")}]
    # a private endpoint needs none
    config["shardwise:environment"]["cluster"]["endpoint_public_access"] = False
    cluster = run_program(config, stack="prod").one("aws:eks/cluster:Cluster", "prod-cluster-cluster").inputs
    assert (cluster["vpcConfig"]["endpointPublicAccess"], "publicAccessCidrs" in cluster["vpcConfig"]) == (False, False)


def test_an_update_waits_for_every_replica_replaced_one_after_another(tmp_path: pathlib.Path):
    # maxSurge 0, maxUnavailable 1: the Deployment replaces the next replica once the last is ready, so an update
    # takes as many start-ups as the most replicas it may run (the autoscaler's max_replicas); a first create
    # starts them side by side
    path = program(tmp_path, '''
        for cache, n in (({"kind": "empty-dir"}, 3), ({"kind": "node-nvme", "throughput_mib_s": 1000}, 1)):
            svc = VllmService(f"llama-{n}", VllmServiceArgs(
                name=f"llama-{n}", hf_token=hf, pool={"name": "l40s", "instance_type": "g6e.xlarge",
                                                      "instance_store": "raid0"},
                engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16},
                cache=cache, replicas=1, autoscaling={"kind": "hpa", "min_replicas": 1, "max_replicas": n}))
            pulumi.export(f"budget-{n}", svc.startup_budget)
    ''')
    run = run_program({}, program=path)
    # empty-dir: each new pod downloads 14.96 GiB again (154 s at 100 MiB/s) and loads within its 546 s budget
    # (123 s to read at the root volume's 125 MiB/s, 300 + 2 × 123): 700 s a replacement, 3 × 700 s = 35 min,
    # and 10 for node launch and image pull; a first create starts the 3 side by side: 700 s -> 12 min, and 10
    assert run.exports["budget-3"]["budget_seconds"] == 546
    assert run.one("kubernetes:apps/v1:Deployment", "llama-3-deployment").custom_timeouts == {
        "create": "22m", "update": "45m"}
    # node-nvme keeps the weights on the node: one replacement within the 332 s budget (6 min, and 10), never
    # below a first start (332 s and the 154 s download: 9 min, and 10)
    assert run.exports["budget-1"]["budget_seconds"] == 332
    assert run.one("kubernetes:apps/v1:Deployment", "llama-1-deployment").custom_timeouts == {
        "create": "19m", "update": "19m"}
    # the Service and the autoscaler: the Service waits for ready endpoints as long as a first start; the HPA
    # only once the Deployment serves
    assert run.one("kubernetes:core/v1:Service", "llama-3-service").custom_timeouts == {
        "create": "22m", "update": "22m"}
    assert run.depends_on("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "llama-3-horizontalpodautoscaler") == [
        "kubernetes:apps/v1:Deployment::llama-3-deployment"]


def test_scale_to_zero_serves_once_before_keda_takes_the_replicas(tmp_path: pathlib.Path,
                                                                  monkeypatch: Any):
    warnings: list[str] = []
    monkeypatch.setattr("pulumi.log.warn", lambda msg, *a, **k: warnings.append(msg))
    path = program(tmp_path, '''
        VllmService("zero", VllmServiceArgs(
            name="zero", hf_token=hf, pool=pool, metrics={"monitor": "pod-monitor"},
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16},
            replicas=0, autoscaling={"kind": "keda", "min_replicas": 0, "max_replicas": 2}))
        VllmService("parked", VllmServiceArgs(
            name="parked", hf_token=hf, pool=pool, autoscaling=None,
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16},
            replicas=0))
    ''')
    run = run_program({}, program=path)
    # a Deployment declared at 0 replicas passes the provider's await at once (0 of 0 ready) with nothing serving:
    # `up` starts one and waits for it to be Ready; the ScaledObject comes after it and may then scale to zero
    assert run.one("kubernetes:apps/v1:Deployment", "zero-deployment").inputs["spec"]["replicas"] == 1
    scaled = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "zero-scaledobject")
    assert scaled.inputs["spec"]["minReplicaCount"] == 0
    assert run.depends_on("kubernetes:keda.sh/v1alpha1:ScaledObject", "zero-scaledobject") == [
        "kubernetes:apps/v1:Deployment::zero-deployment"]
    # replicas 0 without an autoscaler is the user's word: declared as asked, and `up` says it serves nothing
    assert run.one("kubernetes:apps/v1:Deployment", "parked-deployment").inputs["spec"]["replicas"] == 0
    assert warnings == ["VllmService `parked` has replicas 0 and no autoscaling: `pulumi up` succeeds with no pod "
                        "serving, and its endpoint answers only once replicas is raised."]


def _more_replicas_than_the_pool_holds(env: dict[str, Any]) -> None:
    env["services"][0]["replicas"] = 3


def _two_services_that_fit_one_at_a_time(env: dict[str, Any]) -> None:
    second = copy.deepcopy(env["services"][0])
    second["name"] = "llama-8b-batch"
    env["services"].append(second)
    env["services"][0]["replicas"] = 2


def test_pods_up_would_wait_for_beyond_the_pools_nodes_fail_at_preview():
    # dev's pool is at most 2 × g6e.xlarge (one L40S each): a third replica would stay Pending until the 19-minute
    # rollout timeout; counted exactly, it is refused before anything is declared
    err, run = failing_program(broken("dev", _more_replicas_than_the_pool_holds))
    assert not [r for r in run.resources if r.type.startswith("kubernetes:apps")]
    assert err.errors == [{"property_path": "services[0].replicas", "reason": (
        "`llama-8b`: `pulumi up` waits for 3 pods of 1 GPU, which need 3 nodes of g6e.xlarge (1 such pod a node), "
        "but pool `l40s` has at most 2 (max_size): the rest would stay Pending until the rollout times out; raise "
        "max_size to 3 or ask for fewer")}]
    # each fits alone, not both: the pool's max_size is what to change
    err, _ = failing_program(broken("dev", _two_services_that_fit_one_at_a_time))
    assert err.errors == [{"property_path": "pools[0].max_size", "reason": (
        "pool `l40s` holds at most 2 × g6e.xlarge = 2 GPUs, but `pulumi up` waits for pods of 3 GPUs on it "
        "(`llama-8b` 2 × 1, `llama-8b-batch` 1 × 1): some would stay Pending until the rollout times out; raise "
        "max_size to at least 3")}]
