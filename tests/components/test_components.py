"""The components under Pulumi mocks, through the real ``__main__.py`` of each stack.

The program runs the way the engine runs it (tests/support/component_mocks.py): the stack's config is set as
the engine passes it, ``__main__.py`` is executed with ``runpy``, and every resource registration is
recorded. Assertions name the resources and their inputs. Broken specs must raise one
``pulumi.InputPropertyError`` listing every problem before any child resource is declared.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pulumi
import pytest
import yaml
from component_mocks import ROOT, Run, failing_program, run_program
from pulumi_mocks import STACK_SECRETS

STACKS = ("dev", "staging", "prod")


def stack_config(env: str) -> dict[str, Any]:
    """The stack file's config and the secret config a user sets beside it (pulumi_mocks.STACK_SECRETS)."""
    return {**yaml.safe_load((ROOT / "stacks" / f"Pulumi.{env}.yaml").read_text())["config"],
            **STACK_SECRETS.get(env, {})}


_RUNS: dict[str, Run] = {}


def stack_run(env: str) -> Run:
    if env not in _RUNS:
        _RUNS[env] = run_program(stack_config(env), stack=env)
    return _RUNS[env]


def container(obj_inputs: dict[str, Any], template: str | None = None) -> dict[str, Any]:
    spec = obj_inputs["spec"]
    tpl = spec["leaderWorkerTemplate"][template] if template else spec["template"]
    (c,) = tpl["spec"]["containers"]
    return c


def pod(obj_inputs: dict[str, Any], template: str | None = None) -> dict[str, Any]:
    spec = obj_inputs["spec"]
    return (spec["leaderWorkerTemplate"][template] if template else spec["template"])["spec"]


def env_of(c: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in c["env"]}


# --- every stack ------------------------------------------------------------------------------

COMPONENT_TYPES = {
    "shardwise:environment:ServingEnvironment",
    "shardwise:network:RuntimeNetwork",
    "shardwise:nodepool:GpuNodePool",
    "shardwise:vllm:VllmService",
    "shardwise:router:InferenceRouter",
}


@pytest.mark.parametrize("env", STACKS)
def test_every_stack_builds_its_environment(env):
    run = stack_run(env)
    assert COMPONENT_TYPES <= {r.type for r in run.resources}
    (provider,) = run.of_type("pulumi:providers:kubernetes")
    raw = provider.inputs["kubeconfig"]
    kubeconfig = json.loads(raw["value"] if isinstance(raw, dict) else raw)  # a created cluster's is a secret
    assert kubeconfig["users"][0]["user"]["exec"]["args"][:4] == ["eks", "get-token", "--cluster-name", f"llm-{env}"]
    # created cluster (prod): the provider is the cluster's own; existing ones: the program's
    assert provider.name == ("prod-cluster-k8s" if env == "prod" else f"{env}-eks")
    # the ALB routes to the serving namespace: its pods get readiness gates
    (ns,) = run.of_type("kubernetes:core/v1:Namespace")
    assert (ns.name, ns.inputs["metadata"]) == (f"{env}-namespace-serving", {"name": "serving", "labels": {
        "app.kubernetes.io/managed-by": "shardwise", "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled",
        # dev and prod keep weights on the node's NVMe (a hostPath: not even baseline); staging's pods run as root
        "pod-security.kubernetes.io/enforce": "baseline" if env == "staging" else "privileged",
        "pod-security.kubernetes.io/audit": "restricted"}})
    # the GPU-node security group: all traffic to and from itself, HTTPS out, nothing else
    sg = f"{env}-network-gpu-nodes"
    vpc = {"dev": "vpc-0d1e2f3a4b5c6d7e8", "staging": "vpc-0a1b2c3d4e5f60718", "prod": "prod-network-vpc-id"}[env]
    assert run.one("aws:ec2/securityGroup:SecurityGroup", sg).inputs["vpcId"] == vpc
    ingress = run.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    egress = run.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")
    assert {r.name: {k: v for k, v in r.inputs.items() if k != "description"} for r in ingress + egress} == {
        f"{sg}-ingress-self": {"securityGroupId": f"{sg}-id", "ipProtocol": "-1", "referencedSecurityGroupId": f"{sg}-id"},
        f"{sg}-egress-self": {"securityGroupId": f"{sg}-id", "ipProtocol": "-1", "referencedSecurityGroupId": f"{sg}-id"},
        f"{sg}-egress-tcp443": {"securityGroupId": f"{sg}-id", "ipProtocol": "tcp", "fromPort": 443, "toPort": 443,
                                "cidrIpv4": "0.0.0.0/0"},
        # the endpoints only in the VPC prod creates: an existing VPC usually has its own (a second conflicts)
        **({f"{env}-network-endpoints-ingress-tcp443": {
            "securityGroupId": f"{env}-network-endpoints-id", "ipProtocol": "tcp", "fromPort": 443, "toPort": 443,
            "cidrIpv4": stack_config(env)["shardwise:environment"]["network"]["cidr"]}} if env == "prod" else {}),
    }
    endpoints = {r.name: r.inputs for r in run.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")}
    assert {n: (e["serviceName"], e["vpcEndpointType"], e.get("privateDnsEnabled")) for n, e in endpoints.items()} == ({
        f"{env}-network-s3": ("com.amazonaws.us-east-1.s3", "Gateway", None),
        f"{env}-network-ecr-api": ("com.amazonaws.us-east-1.ecr.api", "Interface", True),
        f"{env}-network-ecr-dkr": ("com.amazonaws.us-east-1.ecr.dkr", "Interface", True),
    } if env == "prod" else {})
    assert set(run.exports) == {"endpoints", "pools", "sizing"}
    assert run.exports["pools"] == [p["name"] for p in stack_config(env)["shardwise:environment"]["pools"]]


@pytest.mark.parametrize("env", ["dev", "staging"])
def test_existing_vpc_mode_uses_the_clusters_subnets(env):
    run = stack_run(env)
    net = stack_config(env)["shardwise:environment"]["network"]
    assert run.of_type("aws:ec2/vpc:Vpc") == [] and run.of_type("aws:ec2/subnet:Subnet") == []
    assert run.of_type("aws:ec2/vpcEndpoint:VpcEndpoint") == []  # endpoints are opt-in in an existing VPC
    # no endpoint, no route-table lookup; the cluster's own lookup (the program's and the environment's); the
    # managed pool (staging) looks up where its instance type is offered and its subnets' zones (Karpenter chooses
    # its own: dev)
    offered = [("aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings", {
        "locationType": "availability-zone", "filters": [{"name": "instance-type", "values": ["p5.4xlarge"]}]})]
    subnets = [("aws:ec2/getSubnet:getSubnet", {"id": i}) for i in net["private_subnet_ids"]]
    assert sorted(run.calls, key=json.dumps) == sorted(
        [("aws:eks/getCluster:getCluster", {"name": f"llm-{env}"})] * 2 + (offered + subnets if env == "staging"
                                                                           else []), key=json.dumps)
    assert net["vpc_id"] == run.one("aws:ec2/securityGroup:SecurityGroup", f"{env}-network-gpu-nodes").inputs["vpcId"]


def test_prod_creates_the_cluster_in_its_new_vpc():
    run = stack_run("prod")
    subnets = ["prod-network-private-us-east-1a-id", "prod-network-private-us-east-1b-id",
               "prod-network-private-us-east-1c-id"]
    assert all(s.inputs["mapPublicIpOnLaunch"] is False for s in run.of_type("aws:ec2/subnet:Subnet"))
    cluster = run.one("aws:eks/cluster:Cluster", "prod-cluster-cluster").inputs
    assert cluster["name"] == "llm-prod" and cluster["version"] == "1.35"
    assert cluster["roleArn"] == "arn:aws:iam::123456789012:role/prod-cluster-cluster"
    assert cluster["accessConfig"] == {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": True}
    assert cluster["vpcConfig"] == {"subnetIds": subnets, "endpointPrivateAccess": True, "endpointPublicAccess": True,
                                    "publicAccessCidrs": ["203.0.113.0/24"]}
    entry = run.one("aws:eks/accessEntry:AccessEntry", "prod-cluster-admin-0").inputs
    assert entry == {"clusterName": "llm-prod", "principalArn": "arn:aws:iam::123456789012:role/platform-admin",
                     "type": "STANDARD"}
    policy = run.one("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "prod-cluster-admin-0").inputs
    assert policy["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert {a.inputs["addonName"]: a.inputs.get("configurationValues") for a in run.of_type("aws:eks/addon:Addon")} == {
        "coredns": None, "eks-pod-identity-agent": None, "kube-proxy": None,
        "vpc-cni": '{"enableNetworkPolicy": "true"}'}  # NetworkPolicies are enforced
    system = run.one("aws:eks/nodeGroup:NodeGroup", "prod-cluster-system").inputs
    assert (system["instanceTypes"], system["amiType"], system["scalingConfig"]) == (
        ["m6i.large"], "AL2023_x86_64_STANDARD", {"minSize": 2, "desiredSize": 2, "maxSize": 3})
    assert run.one("aws:ec2/launchTemplate:LaunchTemplate", "prod-cluster-system").inputs["metadataOptions"] == {
        "httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}
    node_policies = sorted(a.inputs["policyArn"].rsplit("/", 1)[1]
                           for a in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment"))
    assert node_policies == ["AWSLoadBalancerControllerIAMPolicy", "AmazonEC2ContainerRegistryReadOnly",
                             "AmazonEKSClusterPolicy", "AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy"]
    releases = {r.inputs["name"]: (r.inputs["chart"], r.inputs["version"], r.inputs["namespace"])
                for r in run.of_type("kubernetes:helm.sh/v3:Release")}
    assert releases == {
        "nvidia-device-plugin": ("nvidia-device-plugin", "0.17.1", "kube-system"),
        "aws-efa-k8s-device-plugin": ("aws-efa-k8s-device-plugin", "0.5.10", "kube-system"),
        "lws": ("oci://registry.k8s.io/lws/charts/lws", "0.7.0", "lws-system"),
        "keda": ("keda", "2.18.3", "keda"),
        "kube-prometheus-stack": ("kube-prometheus-stack", "78.3.0", "monitoring"),
        "aws-load-balancer-controller": ("aws-load-balancer-controller", "1.13.4", "kube-system"),
        "cluster-autoscaler": ("cluster-autoscaler", "9.46.6", "kube-system"),
        "dcgm-exporter": ("dcgm-exporter", "4.8.2", "monitoring"),
    }
    # the GPU node groups join the created cluster with the role it created, in its security group
    for ng in ("prod-h100-node-group", "prod-h100-efa-node-group"):
        inputs = run.one("aws:eks/nodeGroup:NodeGroup", ng).inputs
        assert (inputs["clusterName"], inputs["nodeRoleArn"]) == ("llm-prod", "arn:aws:iam::123456789012:role/prod-cluster-nodes")
    nics = run.one("aws:ec2/launchTemplate:LaunchTemplate", "prod-h100-launch-template").inputs["networkInterfaces"]
    assert nics[0]["securityGroups"] == ["prod-network-gpu-nodes-id", "sg-0c1a55e0c1a55e0c1"]


@pytest.mark.parametrize("env", STACKS)
def test_network_policies(env):
    run = stack_run(env)
    pols = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in run.of_type("kubernetes:networking.k8s.io/v1:NetworkPolicy")}
    cfg = stack_config(env)["shardwise:environment"]
    workloads = [s["name"] for s in cfg.get("services", [])] + [s["name"] for s in cfg.get("multi_node", [])]
    assert sorted(pols) == sorted(["default-deny", "allow-dns", "allow-https-egress"]
                                  + [f"{s}-{k}" for s in workloads for k in ("intra-group", "api")])
    assert pols["default-deny"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    for s in workloads:
        api = pols[f"{s}-api"]
        assert api["policyTypes"] == ["Ingress"]
        assert api["ingress"][0]["ports"] == [{"protocol": "TCP", "port": 8000}]
        assert api["ingress"][0]["from"][0] == {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}


def test_dev_karpenter_pool_and_node_local_cache():
    run = stack_run("dev")
    labels = {
        "shardwise.dev/pool": "l40s", "shardwise.dev/gpu-product": "L40S", "shardwise.dev/gpu-count": "1",
        "shardwise.dev/gpu-memory-gib": "44.31", "shardwise.dev/nvlink": "pcie",
        "shardwise.dev/nvlink-domain-size": "1", "shardwise.dev/efa": "false",
    }
    nodepool = run.one("kubernetes:karpenter.sh/v1:NodePool", "dev-l40s-nodepool").inputs["spec"]
    assert nodepool["template"]["metadata"]["labels"] == labels
    assert nodepool["template"]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert nodepool["template"]["spec"]["requirements"][1] == {"key": "karpenter.sh/capacity-type", "operator": "In",
                                                               "values": ["spot"]}
    nodeclass = run.one("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "dev-l40s-ec2nodeclass").inputs["spec"]
    assert nodeclass["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                            "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    assert nodeclass["role"] == "llm-dev-gpu-node"
    assert nodeclass["instanceStorePolicy"] == "RAID0"
    assert nodeclass["subnetSelectorTerms"] == [{"id": "subnet-0d1e2f3a4b5c60001"}, {"id": "subnet-0d1e2f3a4b5c60002"}]
    assert nodeclass["securityGroupSelectorTerms"] == [{"id": "dev-network-gpu-nodes-id"}, {"id": "sg-0d1e2f3a4b5c6d7e8"}]
    assert run.of_type("aws:eks/nodeGroup:NodeGroup") == []

    dep = run.one("kubernetes:apps/v1:Deployment", "dev-llama-8b-deployment").inputs
    c = container(dep)
    assert c["command"] == ["vllm", "serve"]
    # the stack's gpu_memory_utilization 0.9 is written as set (a release from 0.20 would otherwise take 0.92)
    assert c["args"] == ["meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama-3.1-8b-instruct",
                         "--gpu-memory-utilization", "0.9", "--max-model-len", "16384", "--max-num-seqs", "32",
                         "--enable-prefix-caching", "--host", "0.0.0.0"]
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}}
    spec = pod(dep)
    assert spec["nodeSelector"] == {"shardwise.dev/pool": "l40s"}
    # the weights stay on the node's NVMe RAID-0: a restarted pod finds them; the probe allows their load
    assert spec["volumes"] == [
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}},
        {"name": "model-cache", "hostPath": {"path": "/mnt/k8s-disks/0/shardwise-model-cache", "type": "DirectoryOrCreate"}},
    ]
    (init,) = spec["initContainers"]
    assert (init["name"], init["args"], init["volumeMounts"]) == (
        "model-download", ["meta-llama/Llama-3.1-8B-Instruct", ""],
        [{"name": "model-cache", "mountPath": "/root/.cache/huggingface"}])
    assert env_of(c)["HF_HUB_OFFLINE"] == "1" and env_of(c)["HF_HOME"] == "/root/.cache/huggingface"
    assert (c["startupProbe"]["periodSeconds"], c["startupProbe"]["failureThreshold"]) == (10, 34)
    assert c["lifecycle"]["preStop"]["exec"]["command"][3:] == ["8000", "30"]
    assert spec["terminationGracePeriodSeconds"] == 60
    assert dep["metadata"]["annotations"] == {"shardwise.dev/p95-context-tokens": "4096", "shardwise.dev/target-concurrency": "32"}

    so = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "dev-llama-8b-scaledobject").inputs["spec"]
    (trigger,) = so["triggers"]
    assert trigger["metadata"]["query"] == 'sum(vllm:num_requests_waiting{namespace="serving",pod=~"llama-8b-[a-z0-9]+-[a-z0-9]+"})'
    assert (trigger["metadata"]["threshold"], so["minReplicaCount"], so["maxReplicaCount"]) == ("5", 1, 2)
    monitor = run.one("kubernetes:monitoring.coreos.com/v1:PodMonitor", "dev-llama-8b-podmonitor").inputs
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert monitor["spec"] == {"selector": {"matchLabels": {"app.kubernetes.io/name": "llama-8b",
                                                            "shardwise.dev/serving-group": "llama-8b"}},
                               "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}]}
    ingress = run.one("kubernetes:networking.k8s.io/v1:Ingress", "dev-llm-ingress-llm").inputs
    assert ingress["metadata"]["annotations"]["alb.ingress.kubernetes.io/target-group-attributes"] == (
        "load_balancing.algorithm.type=least_outstanding_requests,deregistration_delay.timeout_seconds=30")
    assert run.exports["endpoints"]["llama-8b"] == "http://llama-8b.serving.svc.cluster.local:8000"
    assert run.exports["sizing"]["llama-8b"]["kv_cache_tokens"] == 201184
    assert run.exports["sizing"]["llama-8b"]["startup_budget_seconds"] == 332


def test_staging_managed_node_group_and_shared_cache():
    run = stack_run("staging")
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "staging-h100-single-launch-template").inputs
    assert lt["metadataOptions"] == {"httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}
    assert lt["networkInterfaces"] == [{
        "deviceIndex": 0, "networkCardIndex": 0, "associatePublicIpAddress": "false", "deleteOnTermination": "true",
        "securityGroups": ["staging-network-gpu-nodes-id", "sg-0a1b2c3d4e5f60718"]}]
    assert lt["blockDeviceMappings"] == [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": 300, "volumeType": "gp3", "encrypted": "true", "throughput": 125, "iops": 3000,
        "deleteOnTermination": "true"}}]
    assert "placement" not in lt and "instanceType" not in lt and "userData" not in lt
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "staging-h100-single-node-group").inputs
    assert (ng["amiType"], ng["capacityType"], ng["instanceTypes"]) == ("AL2023_x86_64_NVIDIA", "ON_DEMAND", ["p5.4xlarge"])
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
    assert ng["subnetIds"] == ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]
    assert ng["nodeRoleArn"] == "arn:aws:iam::123456789012:role/llm-staging-gpu-node"
    claim = run.one("kubernetes:core/v1:PersistentVolumeClaim", "staging-llama-70b-awq-persistentvolumeclaim").inputs
    assert (claim["metadata"]["name"], claim["spec"]) == ("llama-70b-awq-model-cache", {
        "accessModes": ["ReadWriteMany"], "storageClassName": "fsx-lustre", "resources": {"requests": {"storage": "80Gi"}}})
    dep = run.one("kubernetes:apps/v1:Deployment", "staging-llama-70b-awq-deployment").inputs
    c = container(dep)
    assert pod(dep)["volumes"][1] == {"name": "model-cache", "persistentVolumeClaim": {"claimName": "llama-70b-awq-model-cache"}}
    assert c["args"][-5:] == ["--enable-auto-tool-choice", "--tool-call-parser", "llama3_json", "--host", "0.0.0.0"]
    assert env_of(c)["VLLM_LOGGING_LEVEL"] == "INFO"
    assert pod(dep)["priorityClassName"] == "inference-high"
    assert c["startupProbe"]["failureThreshold"] == 38  # 374 s: SW402's floor over 300 + 2 x 34 s at 1144 MiB/s
    assert run.exports["sizing"]["llama-70b-awq"]["weight_precision"] == "int4"


def test_prod_replicas_multinode_and_efa():
    run = stack_run("prod")
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    c = container(dep)
    assert dep["spec"]["replicas"] == 4
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 4}, "limits": {"nvidia.com/gpu": 4}}
    assert c["args"][c["args"].index("--tensor-parallel-size") + 1] == "4"
    assert pod(dep)["volumes"][0]["emptyDir"] == {"medium": "Memory", "sizeLimit": "8Gi"}
    assert c["startupProbe"]["failureThreshold"] == 57  # 562 s
    assert dep["metadata"]["annotations"]["shardwise.dev/ignore"].startswith("SW106: bf16 is the evaluated")

    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    tpl = lws["spec"]["leaderWorkerTemplate"]
    assert (tpl["size"], tpl["restartPolicy"], lws["spec"]["replicas"]) == (2, "RecreateGroupOnPodRestart", 1)
    # exclusive topology is opt-in: a pool without the topology label would leave the group Pending
    assert "leaderworkerset.sigs.k8s.io/exclusive-topology" not in lws["metadata"]["annotations"]
    leader, worker = container(lws, "leaderTemplate"), container(lws, "workerTemplate")
    for ct in (leader, worker):
        # in the form the API server stores them once the LWS webhook has re-encoded the object (5120Mi is 5Gi)
        assert ct["resources"] == {
            "requests": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "5Gi", "memory": "32000Mi"},
            "limits": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "5Gi"},
        }
        env = env_of(ct)
        assert (env["FI_PROVIDER"], env["FI_EFA_USE_DEVICE_RDMA"]) == ("efa", "1")
        assert env["NCCL_SOCKET_IFNAME"] == env["GLOO_SOCKET_IFNAME"] == "eth0"
        assert env["VLLM_HOST_IP"] == {"fieldRef": {"fieldPath": "status.podIP"}}
        # libfabric and aws-ofi-nccl are in the AWS DLC image; vLLM 0.13.0 has the native launch
        assert ct["image"] == "public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2"
    assert leader["args"][-8:] == ["--distributed-executor-backend", "mp", "--nnodes", "$(LWS_GROUP_SIZE)",
                                   "--node-rank", "$(LWS_WORKER_INDEX)", "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    assert worker["args"][-1] == "--headless"
    # the 405B weights (~760 GB) stay on the nodes: a group restart reads them from NVMe, not the Hub
    for template in ("leaderTemplate", "workerTemplate"):
        assert pod(lws, template)["volumes"][1] == {
            "name": "model-cache", "hostPath": {"path": "/mnt/k8s-disks/0/shardwise-model-cache", "type": "DirectoryOrCreate"}}
    assert leader["startupProbe"]["failureThreshold"] == 106  # 1055 s
    assert run.one("kubernetes:core/v1:Service", "prod-llama-405b-service").inputs["spec"]["selector"]["role"] == "leader"

    assert run.one("aws:ec2/placementGroup:PlacementGroup", "prod-h100-efa-placement").inputs["strategy"] == "cluster"
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "prod-h100-efa-launch-template").inputs
    nics = lt["networkInterfaces"]
    # AWS's current layout: ENA primary, EFA-only on card 0 (device 1) and on every other card (device 0)
    assert [(n["networkCardIndex"], n["deviceIndex"], n.get("interfaceType", "interface")) for n in nics] == (
        [(0, 0, "interface"), (0, 1, "efa-only")] + [(card, 0, "efa-only") for card in range(1, 32)])
    assert lt["placement"] == {"groupName": "prod-h100-efa-placement"}
    user_data = base64.b64decode(lt["userData"]).decode()
    assert "kind: NodeConfig" in user_data and "strategy: RAID0" in user_data
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "prod-h100-efa-node-group").inputs
    assert ng["subnetIds"] == ["prod-network-private-us-east-1a-id"]
    assert (ng["labels"]["shardwise.dev/efa"], ng["labels"]["shardwise.dev/nvlink"]) == ("true", "nvswitch")
    assert len(run.one("aws:eks/nodeGroup:NodeGroup", "prod-h100-node-group").inputs["subnetIds"]) == 3
    ingress = run.one("kubernetes:networking.k8s.io/v1:Ingress", "prod-llm-ingress-llm").inputs
    assert [r["host"] for r in ingress["spec"]["rules"]] == ["llama-70b.llm.internal.example.com",
                                                             "llama-405b.llm.internal.example.com"]
    assert run.exports["sizing"]["llama-405b"]["gpus"] == 16


def test_the_stacks_lint_clean(monkeypatch, capsys):
    from shardwise.rules.app.cli import main

    monkeypatch.chdir(ROOT)
    rc = main(["lint", "stacks/"])
    lines = capsys.readouterr().out.splitlines()
    prod = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().splitlines()

    def line(text: str) -> int:
        return next(i for i, t in enumerate(prod, 1) if t.strip() == text)

    # the only findings are prod's two suppressions, each with its reason; nothing blocks
    assert rc == 0
    assert [(t.split(" (suppressed: ")[0].split(" ")[:3], "(suppressed: " in t) for t in lines[:-1]] == [
        ([f"stacks/Pulumi.prod.yaml:{line('- name: llama-70b')}:", "SW106", "[advisory]"], True),
        ([f"stacks/Pulumi.prod.yaml:{line('- name: llama-405b')}:", "SW404", "[advisory]"], True),
    ]
    assert lines[-1] == ("shardwise: 3 files read, 4 workloads, 0 mandatory findings, 0 advisory findings, 2 suppressed; "
                         "skipped 5 objects of unknown kinds: PodMonitor×4, PersistentVolumeClaim×1 — passed")


# --- broken specs are refused before anything is declared -------------------------------------


def broken(env: str, edit) -> dict[str, Any]:
    config = copy.deepcopy(stack_config(env))
    edit(config["shardwise:environment"])
    return config


def refused(config: dict[str, Any]) -> tuple[pulumi.InputPropertyError, Run]:
    err, run = failing_program(config)
    # at most the program's Kubernetes provider exists: no component, no child resource
    assert [r.type for r in run.resources] in ([], ["pulumi:providers:kubernetes"])
    assert isinstance(err, pulumi.InputPropertyError)
    return err, run


def _tp16_on_8_gpu_pool(env):
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=16, max_num_seqs=16)
    env["services"][0].update(suppress=[], model_cache_gib=1000)


def _tp2_on_pcie_pool(env):
    env["pools"][0]["instance_type"] = "g6e.12xlarge"
    # an 8B model one L40S holds with the declared load: TP2 over PCIe was avoidable (SW104 blocks; SW202 where SW104
    # is disabled)
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=2)


def _small_model_sharded(env):
    env["pools"][0]["instance_type"] = "p5.48xlarge"
    env["services"][0]["engine"]["tensor_parallel_size"] = 2


def _kv_under_budget(env):
    env["services"][0]["engine"]["max_num_seqs"] = 256
    env["services"][0]["p95_context_tokens"] = 16384


@pytest.mark.parametrize("env,edit,path,code", [
    ("prod", _tp16_on_8_gpu_pool, "services[0].engine.tensor_parallel_size", "SW201"),
    ("dev", _small_model_sharded, "services[0].engine.tensor_parallel_size", "SW104"),
    ("dev", _kv_under_budget, "services[0].engine.max_num_seqs", "SW103"),
])
def test_broken_specs_raise_input_property_error_naming_the_rule(env, edit, path, code):
    err, _ = refused(broken(env, edit))
    # the rule's error at the field it asks to change (an avoidable TP2 over PCIe is also SW104's, found first)
    assert [e["property_path"] for e in err.errors if e["reason"].startswith(f"{code}: ")] == [path]


def test_an_avoidable_tp_over_pcie_is_refused_by_sw104_and_by_sw202_where_sw104_is_disabled():
    """remedy1: one cause, one blocking finding. An 8B model at TP2 on g6e.12xlarge's PCIe-only L40S, whose TP1
    replicas hold the declared load, is refused by SW104 (the model needs fewer GPUs), with SW202's finding advisory
    beside it; with SW104 disabled by its reason, SW202 refuses it at the same field."""
    config = broken("staging", _tp2_on_pcie_pool)
    err, _ = refused(config)
    assert [(e["reason"][:5], e["property_path"]) for e in err.errors if e["reason"][:5] in ("SW104", "SW202")] == [
        ("SW104", "services[0].engine.tensor_parallel_size")]
    err, _ = refused({**config, "shardwise:validate": json.dumps({"SW104": "benchmarked TPOT at TP2"})})
    assert [(e["reason"][:5], e["property_path"]) for e in err.errors if e["reason"][:5] in ("SW104", "SW202")] == [
        ("SW202", "services[0].engine.tensor_parallel_size")]


def test_the_stack_config_validate_turns_the_components_check_off_or_disables_named_rules():
    """``shardwise:validate`` is the program's switch for the components' own check: ``false`` declares a
    broken spec's resources (for the policy pack to stop), a ``{code: reason}`` disables that rule only."""
    config = broken("dev", _small_model_sharded)
    deployments = [r.name for r in run_program({**config, "shardwise:validate": "false"}).resources
                   if r.type == "kubernetes:apps/v1:Deployment"]
    assert deployments == ["dev-llama-8b-deployment"]
    off = run_program({**config, "shardwise:validate": json.dumps({"SW104": "benchmarked"})})
    assert [r.name for r in off.resources if r.type == "kubernetes:apps/v1:Deployment"] == deployments
    err, _ = refused({**config, "shardwise:validate": json.dumps({"SW202": "not the one that fires"})})
    assert [e["property_path"] for e in err.errors if e["reason"].startswith("SW104: ")] == [
        "services[0].engine.tensor_parallel_size"]


def test_every_problem_is_reported_at_once():
    def edit(env):
        env["services"][0]["image"] = "vllm/vllm-openai:latest"
        env["services"][0]["cache"] = {"kind": "pvc", "storage_class": "gp3", "access_mode": "ReadWriteOnce"}
        env["services"][0]["metrics"] = {"monitor": "none"}
        env["services"][0]["engine"]["extra_args"] = ["--max-model-len", "8192", "--trust-remote-code"]
        env["services"][0]["pod"] = {"node_selector": {"shardwise.dev/pool": "other"}}

    err, _ = refused(broken("dev", edit))
    assert str(err) == (
        "ServingEnvironment: 6 invalid arguments (at construction)\n"
        "  services[0].cache.throughput_mib_s: a pvc cache needs its read throughput to size the startup probe "
        "(MiB/s one pod reads; e.g. FSx for Lustre 1000 MB/s/TiB × 4.8 TiB ≈ 4500, an EBS gp3 claim its "
        "`throughput` parameter, an NVMe RAID-0 its measured sequential read)\n"
        "  services[0].cache.access_mode: a ReadWriteOnce claim attaches to one node, but up to 2 replicas mount it; "
        "use ReadWriteMany (FSx for Lustre) or node-nvme\n"
        "  services[0].pod.node_selector: `shardwise.dev/pool` selects the GPU pool: set `pool`\n"
        "  services[0].engine.extra_args: --max-model-len is read by the rules: set engine.max_model_len\n"
        "  services[0].metrics.monitor: the autoscaler reads vllm:num_requests_waiting from Prometheus, and nothing "
        "scrapes it (metrics.monitor: none); use pod-monitor, or external when something else scrapes\n"
        "  services[0].image: SW307: image `vllm/vllm-openai:latest` uses the tag `latest`, which changes under a "
        "running deployment; pin a version tag or a digest")
    # the engine sees the first problem as the InputPropertyError's own path and reason
    assert (err.property_path, err.reason) == (err.errors[0]["property_path"], err.errors[0]["reason"])
    assert [e["property_path"] for e in err.errors] == [
        "services[0].cache.throughput_mib_s", "services[0].cache.access_mode", "services[0].pod.node_selector",
        "services[0].engine.extra_args", "services[0].metrics.monitor", "services[0].image"]


def test_structural_problems_name_their_property():
    def karpenter_multinode(env):
        env["pools"][1]["provisioner"] = "karpenter"

    err, _ = refused(broken("prod", karpenter_multinode))
    assert err.property_path == "pools[1].provisioner"

    def router_in_other_namespace(env):
        env["routers"][0]["namespace"] = "gateway"

    err, _ = refused(broken("dev", router_in_other_namespace))
    assert err.property_path == "routers[0].namespace"
    assert err.reason.startswith("an Ingress routes only to Services in its own namespace")


def test_a_new_vpc_for_an_existing_cluster_is_refused():
    def new_vpc(env):
        del env["network"]["vpc_id"], env["network"]["private_subnet_ids"]

    err, _ = refused(broken("dev", new_vpc))
    assert (err.property_path, err.reason) == (
        "network.vpc_id", "the existing cluster `llm-dev` cannot be in the VPC this environment creates: nodes in "
        "another VPC never join it; set network.vpc_id and private_subnet_ids to the cluster's VPC, or "
        "cluster.create to create the cluster in the new VPC")


def test_an_existing_cluster_in_another_vpc_fails_when_it_is_looked_up():
    def other_vpc(env):
        env["network"]["vpc_id"] = "vpc-0bad0bad0bad0bad0"

    err, _ = failing_program(broken("staging", other_vpc), preview=False)
    assert str(err) == ("ServingEnvironment: 1 invalid argument (when the cluster was looked up)\n"
                        "  network.vpc_id: cluster `llm-staging` is in vpc-0a1b2c3d4e5f60718, not in "
                        "vpc-0bad0bad0bad0bad0: its nodes would never join it")


def test_the_multinode_group_needs_a_cache_that_outlives_its_pods_and_an_efa_image():
    def edit(env):
        env["multi_node"][0]["cache"] = {"kind": "empty-dir"}
        env["multi_node"][0]["image"] = "vllm/vllm-openai:v0.11.0"
        env["multi_node"][0]["launcher"] = "native"

    err, _ = refused(broken("prod", edit))
    assert err.errors == [
        {"property_path": "multi_node[0].cache.kind", "reason": (
            "`llama-405b` restarts as a whole group (RecreateGroupOnPodRestart), and an empty-dir cache dies with "
            "its pod: every restart would download the checkpoint again; use pvc (ReadWriteMany), node-nvme or s3")},
        {"property_path": "multi_node[0].launcher", "reason": (
            "vLLM 0.11.0 in `vllm/vllm-openai:v0.11.0` has no --nnodes/--node-rank/--master-addr (they came in "
            "0.11.1); use launcher ray or a newer image")},
        {"property_path": "multi_node[0].image", "reason": (
            "`vllm/vllm-openai:v0.11.0` has no libfabric or aws-ofi-nccl: NCCL would not use pool `h100-efa`'s EFA; "
            "use public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2 (or another AWS DLC vLLM image), "
            "or declare image_efa: true for an image that has them")},
        # the rules read the pods it would render: vLLM 0.11.0 exits on --nnodes (the same fact, as SW003 says it)
        {"property_path": "multi_node[0]", "reason": (
            "SW003: container 'vllm-leader': `--nnodes` is not a flag of vLLM 0.11.0 (the release the image names): "
            "it first appears in 0.11.1 (vLLM's own multi-node launch): use an image of vLLM 0.11.1 or later, or "
            "remove it; vLLM's argument parser defines no option that is or begins with `--nnodes` there, so it "
            "exits at start-up (\"unrecognized arguments\") and the pod crash-loops")},
    ]


def test_bad_stack_config_is_a_run_error():
    def edit(env):
        env["services"][0]["engine"]["tensor_parallel_size"] = 0

    err, _ = failing_program(broken("dev", edit), error=pulumi.RunError)
    assert "services[0].engine.tensor_parallel_size" in str(err)


def _dp16_over_two_nodes(env):
    group = env["multi_node"][0]
    group["engine"] = {"model": "deepseek-ai/DeepSeek-R1", "tensor_parallel_size": 1, "pipeline_parallel_size": 1,
                       "data_parallel_size": 16, "enable_expert_parallel": True, "max_model_len": 16384}
    group["suppress"] = [{"code": "SW404", "reason": "one group in this test"}]


def test_a_multinode_group_of_data_parallel_engines_is_vllms_data_parallel_launch():
    """DeepSeek-R1 as 16 data-parallel engines with the experts spread over them, on the prod pool of p5.48xlarge
    (8 GPUs): a group of two pods of 8 engines each (--data-parallel-size-local 8), the leader's front end serving the
    API, the worker --headless from rank LWS_WORKER_INDEX × 8 (vLLM's docs/serving/data_parallel_deployment.md)."""
    run = run_program(broken("prod", _dp16_over_two_nodes), stack="prod")
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 2
    leader, worker = container(lws, "leaderTemplate"), container(lws, "workerTemplate")
    for ct in (leader, worker):
        assert ct["resources"]["limits"]["nvidia.com/gpu"] == "8"
    dp = ["--data-parallel-size-local", "8", "--data-parallel-address", "$(LWS_LEADER_ADDRESS)",
          "--data-parallel-rpc-port", "13345"]
    assert (leader["command"], leader["args"][-6:]) == (["vllm", "serve"], dp)
    assert "--nnodes" not in leader["args"]
    assert worker["command"] == ["/bin/sh", "-c"]
    (script,) = worker["args"]
    assert script.startswith("exec vllm serve deepseek-ai/DeepSeek-R1 ")
    assert script.endswith(" --data-parallel-size-local 8 --data-parallel-address '$(LWS_LEADER_ADDRESS)' "
                           "--data-parallel-rpc-port 13345 --headless --data-parallel-start-rank "
                           '"$((LWS_WORKER_INDEX * 8))"')
