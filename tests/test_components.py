"""The components under Pulumi mocks, through the real ``__main__.py`` of each stack.

The program runs the way the engine runs it: the stack's config is set as the engine passes it
(every value a string, objects as JSON), ``__main__.py`` is executed with ``runpy``, and every
resource registration is recorded by the mocks. Assertions name the resources and their inputs.
Broken specs must raise ``pulumi.InputPropertyError`` naming the rule before any child resource is
declared.
"""

from __future__ import annotations

import copy
import json
import pathlib
import runpy
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.runtime.settings import ROOT as ROOT_RESOURCE
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAIN = ROOT / "__main__.py"


@dataclass
class Registered:
    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool


@dataclass
class Run:
    resources: list[Registered] = field(default_factory=list)
    calls: list[tuple[str, dict]] = field(default_factory=list)
    exports: dict[str, Any] = field(default_factory=dict)

    def of_type(self, type_: str) -> list[Registered]:
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str) -> Registered:
        found = [r for r in self.resources if r.type == type_ and r.name == name]
        assert len(found) == 1, f"{type_} {name}: {[(r.type, r.name) for r in self.resources]}"
        return found[0]

    def names(self, type_: str) -> list[str]:
        return sorted(r.name for r in self.of_type(type_))


class RecordingMocks(pulumi.runtime.Mocks):
    """Records every registration; answers the two data sources the program reads."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        self.run.resources.append(Registered(args.typ, args.name, dict(args.inputs), bool(args.custom)))
        state = dict(args.inputs)
        if args.typ.startswith("aws:"):
            state.setdefault("name", args.name)  # what auto-naming computes, without its random suffix
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list[tuple[str, str]] | None]:
        self.run.calls.append((args.token, dict(args.args)))
        if args.token == "aws:eks/getCluster:getCluster":
            return {
                "name": args.args["name"],
                "endpoint": "https://0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com",
                "certificateAuthorities": [{"data": "LS0tLS1CRUdJTg=="}],
                "vpcConfig": {"clusterSecurityGroupId": "sg-0feedface0000000"},
            }, []
        if args.token == "aws:ec2/getRouteTable:getRouteTable":
            return {"routeTableId": f"rtb-{args.args['subnetId']}"}, []
        return {}, []


def engine_config(config: dict[str, Any]) -> dict[str, str]:
    """Config as the engine hands it to a program: each value a string, objects as JSON."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}


def stack_config(env: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{env}.yaml").read_text())["config"]


def execute(program: pathlib.Path = MAIN) -> None:
    """Run a Pulumi program file the way the Python language host does, and wait for its resources."""
    def main() -> None:
        runpy.run_path(str(program), run_name="__main__")

    _sync_await(run_pulumi_func(main))


def run_program(config: dict[str, Any], stack: str = "test", program: pathlib.Path = MAIN) -> Run:
    """Run ``program`` under mocks with ``config``; return what it registered and exported."""
    run = Run()
    ROOT_RESOURCE.set(None)
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    pulumi.runtime.set_mocks(RecordingMocks(run), project="shardwise", stack=stack, preview=False)
    pulumi.runtime.set_all_config(engine_config(config))
    execute(program)
    root: Any = pulumi.runtime.get_root_resource()
    run.exports = _sync_await(pulumi.Output.from_input(root.outputs).future())  # type: ignore[arg-type]
    return run


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


# --- every stack ------------------------------------------------------------------------------

COMPONENT_TYPES = {
    "shardwise:environment:ServingEnvironment",
    "shardwise:network:RuntimeNetwork",
    "shardwise:nodepool:GpuNodePool",
    "shardwise:vllm:VllmService",
    "shardwise:router:InferenceRouter",
}


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_stack_builds_its_environment(env):
    run = stack_run(env)
    types = {r.type for r in run.resources}
    assert COMPONENT_TYPES <= types
    (provider,) = run.of_type("pulumi:providers:kubernetes")
    kubeconfig = json.loads(provider.inputs["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["exec"]["args"][:4] == ["eks", "get-token", "--cluster-name",
                                                                  f"llm-{env}"]
    assert run.names("kubernetes:core/v1:Namespace") == [f"{env}-namespace-serving"]
    # the GPU-node security group: all traffic to and from itself, HTTPS out, nothing else
    sg = f"{env}-network-gpu-nodes"
    assert run.one("aws:ec2/securityGroup:SecurityGroup", sg).inputs["vpcId"] == f"{env}-network-vpc-id"
    ingress = run.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    egress = run.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")
    assert {r.name: {k: v for k, v in r.inputs.items() if k != "description"} for r in ingress + egress} == {
        f"{sg}-ingress-self": {"securityGroupId": f"{sg}-id", "ipProtocol": "-1",
                               "referencedSecurityGroupId": f"{sg}-id"},
        f"{sg}-egress-self": {"securityGroupId": f"{sg}-id", "ipProtocol": "-1",
                              "referencedSecurityGroupId": f"{sg}-id"},
        f"{sg}-egress-tcp443": {"securityGroupId": f"{sg}-id", "ipProtocol": "tcp", "fromPort": 443,
                                "toPort": 443, "cidrIpv4": "0.0.0.0/0"},
        f"{env}-network-endpoints-ingress-tcp443": {
            "securityGroupId": f"{env}-network-endpoints-id", "ipProtocol": "tcp", "fromPort": 443,
            "toPort": 443, "cidrIpv4": stack_config(env)["shardwise:environment"]["network"]["cidr"]},
    }
    # no subnet maps public IPs; private ones are tagged for internal load balancers
    subnets = run.of_type("aws:ec2/subnet:Subnet")
    assert subnets and all(s.inputs["mapPublicIpOnLaunch"] is False for s in subnets)
    private = [s for s in subnets if "-private-" in s.name]
    assert all(s.inputs["tags"]["kubernetes.io/role/internal-elb"] == "1" for s in private)
    endpoints = {r.name: r.inputs for r in run.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")}
    assert {n: (e["serviceName"], e["vpcEndpointType"], e.get("privateDnsEnabled")) for n, e in endpoints.items()} == {
        f"{env}-network-s3": ("com.amazonaws.us-east-1.s3", "Gateway", None),
        f"{env}-network-ecr-api": ("com.amazonaws.us-east-1.ecr.api", "Interface", True),
        f"{env}-network-ecr-dkr": ("com.amazonaws.us-east-1.ecr.dkr", "Interface", True),
    }
    # exports
    assert set(run.exports) == {"endpoints", "pools", "sizing"}
    assert run.exports["pools"] == [p["name"] for p in stack_config(env)["shardwise:environment"]["pools"]]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_network_policies(env):
    run = stack_run(env)
    pols = {r.inputs["metadata"]["name"]: r.inputs["spec"]
            for r in run.of_type("kubernetes:networking.k8s.io/v1:NetworkPolicy")}
    services = [s["name"] for s in stack_config(env)["shardwise:environment"].get("services", [])]
    services += [s["name"] for s in stack_config(env)["shardwise:environment"].get("multi_node", [])]
    assert sorted(pols) == sorted(["default-deny", "allow-dns", "allow-https-egress"]
                                  + [f"{s}-{k}" for s in services for k in ("intra-group", "api")])
    assert pols["default-deny"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    for s in services:
        api = pols[f"{s}-api"]
        assert api["policyTypes"] == ["Ingress"]
        assert api["ingress"][0]["ports"] == [{"protocol": "TCP", "port": 8000}]
        assert api["ingress"][0]["from"][0] == {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}


def test_dev_karpenter_pool_and_service():
    run = stack_run("dev")
    labels = {
        "shardwise.dev/pool": "l40s", "shardwise.dev/gpu-product": "L40S", "shardwise.dev/gpu-count": "1",
        "shardwise.dev/gpu-memory-gib": "44.31", "shardwise.dev/nvlink": "pcie",
        "shardwise.dev/nvlink-domain-size": "1", "shardwise.dev/efa": "false",
    }
    nodepool = run.one("kubernetes:karpenter.sh/v1:NodePool", "dev-l40s-nodepool").inputs["spec"]
    assert nodepool["template"]["metadata"]["labels"] == labels
    assert nodepool["template"]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "true",
                                                       "effect": "NoSchedule"}]
    assert nodepool["template"]["spec"]["requirements"][1] == {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}
    nodeclass = run.one("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "dev-l40s-ec2nodeclass").inputs["spec"]
    assert nodeclass["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                            "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    assert nodeclass["role"] == "llm-dev-gpu-node"
    assert nodeclass["subnetSelectorTerms"] == [{"id": "dev-network-private-us-east-1a-id"},
                                                {"id": "dev-network-private-us-east-1b-id"}]
    assert nodeclass["securityGroupSelectorTerms"] == [{"id": "dev-network-gpu-nodes-id"},
                                                       {"id": "sg-0d1e2f3a4b5c6d7e8"}]
    assert run.of_type("aws:eks/nodeGroup:NodeGroup") == []

    dep = run.one("kubernetes:apps/v1:Deployment", "dev-llama-8b-deployment").inputs
    c = container(dep)
    assert c["command"] == ["vllm", "serve"]
    assert c["args"] == ["meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama-3.1-8b-instruct",
                         "--max-model-len", "16384", "--max-num-seqs", "32", "--enable-prefix-caching",
                         "--host", "0.0.0.0"]
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}}
    pod = dep["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"shardwise.dev/pool": "l40s"}
    assert pod["volumes"][0] == {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}}
    assert c["startupProbe"]["periodSeconds"] * c["startupProbe"]["failureThreshold"] >= 600
    assert dep["metadata"]["annotations"] == {"shardwise.dev/p95-context-tokens": "4096"}

    so = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "dev-llama-8b-scaledobject").inputs["spec"]
    (trigger,) = so["triggers"]
    assert trigger["type"] == "prometheus"
    assert trigger["metadata"]["query"].startswith("sum(vllm:num_requests_waiting{")
    assert (trigger["metadata"]["threshold"], so["minReplicaCount"], so["maxReplicaCount"]) == ("5", 1, 2)
    assert so["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 300}
    assert run.one("kubernetes:policy/v1:PodDisruptionBudget",
                   "dev-llama-8b-poddisruptionbudget").inputs["spec"]["maxUnavailable"] == 1
    ingress = run.one("kubernetes:networking.k8s.io/v1:Ingress", "dev-llm-ingress-llm").inputs
    assert ingress["metadata"]["annotations"]["alb.ingress.kubernetes.io/target-group-attributes"] == (
        "load_balancing.algorithm.type=least_outstanding_requests")
    assert ingress["metadata"]["annotations"]["alb.ingress.kubernetes.io/scheme"] == "internal"
    assert run.exports["endpoints"]["llama-8b"] == "http://llama-8b.serving.svc.cluster.local:8000"
    assert run.exports["sizing"]["llama-8b"]["kv_cache_tokens"] == 201184


def test_staging_managed_node_group():
    run = stack_run("staging")
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "staging-h100-single-launch-template").inputs
    assert lt["metadataOptions"] == {"httpEndpoint": "enabled", "httpTokens": "required",
                                     "httpPutResponseHopLimit": 1}
    assert lt["networkInterfaces"] == [{
        "deviceIndex": 0, "networkCardIndex": 0, "associatePublicIpAddress": "false",
        "deleteOnTermination": "true", "securityGroups": ["staging-network-gpu-nodes-id", "sg-0a1b2c3d4e5f60718"],
    }]
    assert lt["blockDeviceMappings"] == [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": 300, "volumeType": "gp3", "encrypted": "true", "deleteOnTermination": "true"}}]
    assert "placement" not in lt
    assert "instanceType" not in lt  # named by the node group (EKS: one place only)
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "staging-h100-single-node-group").inputs
    assert ng["amiType"] == "AL2023_x86_64_NVIDIA"
    assert ng["capacityType"] == "ON_DEMAND"
    assert ng["instanceTypes"] == ["p5.4xlarge"]
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
    assert ng["labels"] == {
        "shardwise.dev/pool": "h100-single", "shardwise.dev/gpu-product": "H100-SXM-80GB",
        "shardwise.dev/gpu-count": "1", "shardwise.dev/gpu-memory-gib": "79.19", "shardwise.dev/nvlink": "pcie",
        "shardwise.dev/nvlink-domain-size": "1", "shardwise.dev/efa": "false",
    }
    assert ng["scalingConfig"] == {"minSize": 1, "desiredSize": 1, "maxSize": 2}
    assert ng["subnetIds"] == ["staging-network-private-us-east-1a-id", "staging-network-private-us-east-1b-id"]
    assert ng["nodeRoleArn"] == "arn:aws:iam::123456789012:role/llm-staging-gpu-node"
    assert ng["launchTemplate"]["id"] == "staging-h100-single-launch-template-id"
    c = container(run.one("kubernetes:apps/v1:Deployment", "staging-llama-70b-awq-deployment").inputs)
    assert c["args"][0] == "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"
    assert c["resources"]["limits"] == {"nvidia.com/gpu": 1}
    assert run.exports["sizing"]["llama-70b-awq"]["weight_precision"] == "int4"


def test_prod_replicas_multinode_and_efa():
    run = stack_run("prod")
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    c = container(dep)
    assert dep["spec"]["replicas"] == 4
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 4}, "limits": {"nvidia.com/gpu": 4}}
    assert "--tensor-parallel-size" in c["args"] and c["args"][c["args"].index("--tensor-parallel-size") + 1] == "4"
    assert dep["spec"]["template"]["spec"]["volumes"][0]["emptyDir"] == {"medium": "Memory", "sizeLimit": "8Gi"}
    assert c["startupProbe"]["failureThreshold"] == 120
    assert dep["metadata"]["annotations"]["shardwise.dev/ignore"].startswith("SW106: bf16 is the evaluated")

    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    tpl = lws["spec"]["leaderWorkerTemplate"]
    assert (tpl["size"], tpl["restartPolicy"], lws["spec"]["replicas"]) == (2, "RecreateGroupOnPodRestart", 1)
    assert lws["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/exclusive-topology"] == (
        "topology.k8s.aws/network-node-layer-3")
    leader, worker = container(lws, "leaderTemplate"), container(lws, "workerTemplate")
    for ct in (leader, worker):
        assert ct["resources"] == {
            "requests": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi",
                         "memory": "32000Mi"},
            "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"},
        }
        env = {e["name"]: e.get("value", e.get("valueFrom")) for e in ct["env"]}
        assert env["FI_PROVIDER"] == "efa"
        assert env["NCCL_SOCKET_IFNAME"] == env["GLOO_SOCKET_IFNAME"] == "eth0"
        assert env["VLLM_HOST_IP"] == {"fieldRef": {"fieldPath": "status.podIP"}}
        assert ct["image"] == "vllm/vllm-openai:v0.13.0"
    assert leader["args"][-8:] == ["--distributed-executor-backend", "mp", "--nnodes", "$(LWS_GROUP_SIZE)",
                                   "--node-rank", "$(LWS_WORKER_INDEX)", "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    assert worker["args"][-1] == "--headless"
    svc = run.one("kubernetes:core/v1:Service", "prod-llama-405b-service").inputs
    assert svc["spec"]["selector"]["role"] == "leader"

    pg = run.one("aws:ec2/placementGroup:PlacementGroup", "prod-h100-efa-placement").inputs
    assert pg["strategy"] == "cluster"
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "prod-h100-efa-launch-template").inputs
    nics = lt["networkInterfaces"]
    assert len(nics) == 32
    assert (nics[0]["interfaceType"], nics[0]["deviceIndex"], nics[0]["networkCardIndex"]) == ("efa", 0, 0)
    assert {(n["interfaceType"], n["deviceIndex"]) for n in nics[1:]} == {("efa-only", 1)}
    assert [n["networkCardIndex"] for n in nics] == list(range(32))
    assert lt["placement"] == {"groupName": "prod-h100-efa-placement"}
    assert lt["metadataOptions"]["httpTokens"] == "required"
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "prod-h100-efa-node-group").inputs
    assert ng["subnetIds"] == ["prod-network-private-us-east-1a-id"]
    assert ng["labels"]["shardwise.dev/efa"] == "true"
    assert ng["labels"]["shardwise.dev/nvlink"] == "nvswitch"
    assert len(run.one("aws:eks/nodeGroup:NodeGroup", "prod-h100-node-group").inputs["subnetIds"]) == 3
    ingress = run.one("kubernetes:networking.k8s.io/v1:Ingress", "prod-llm-ingress-llm").inputs
    assert [r["host"] for r in ingress["spec"]["rules"]] == ["llama-70b.llm.internal.example.com",
                                                             "llama-405b.llm.internal.example.com"]
    assert run.exports["sizing"]["llama-405b"]["gpus"] == 16


# --- broken specs are refused before anything is declared -------------------------------------


def broken(env: str, edit) -> dict[str, Any]:
    config = copy.deepcopy(stack_config(env))
    edit(config["shardwise:environment"])
    return config


def refused(config: dict[str, Any]) -> tuple[pulumi.InputPropertyError, Run]:
    run = Run()
    ROOT_RESOURCE.set(None)
    pulumi.runtime.set_mocks(RecordingMocks(run), project="shardwise", stack="broken", preview=True)
    pulumi.runtime.set_all_config(engine_config(config))
    with pytest.raises(pulumi.InputPropertyError) as e:
        execute()
    # only the program's Kubernetes provider exists: no component, no child resource
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]
    return e.value, run


def _tp16_on_8_gpu_pool(env):
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=16,
                                        max_num_seqs=16)
    env["services"][0].update(suppress=[], model_load_seconds=2400)


def _tp2_on_pcie_pool(env):
    env["pools"][0]["instance_type"] = "g6e.12xlarge"
    env["services"][0]["engine"]["tensor_parallel_size"] = 2


def _small_model_sharded(env):
    env["pools"][0]["instance_type"] = "p5.48xlarge"
    env["services"][0]["engine"]["tensor_parallel_size"] = 2


def _kv_under_budget(env):
    env["services"][0]["engine"]["max_num_seqs"] = 256
    env["services"][0]["p95_context_tokens"] = 16384


@pytest.mark.parametrize("env,edit,path,code", [
    ("prod", _tp16_on_8_gpu_pool, "services[0].engine.tensor_parallel_size", "SW201"),
    ("staging", _tp2_on_pcie_pool, "services[0].engine.tensor_parallel_size", "SW202"),
    ("dev", _small_model_sharded, "services[0].engine.tensor_parallel_size", "SW104"),
    ("dev", _kv_under_budget, "services[0].engine.max_num_seqs", "SW103"),
])
def test_broken_specs_raise_input_property_error_naming_the_rule(env, edit, path, code):
    err, _ = refused(broken(env, edit))
    assert err.property_path == path
    assert err.reason.startswith(f"{code}: ")


def test_an_unpinned_image_is_refused():
    def edit(env):
        env["services"][0]["image"] = "vllm/vllm-openai:latest"

    err, _ = refused(broken("dev", edit))
    assert err.property_path == "services[0].image"
    assert err.reason.startswith("SW307: image `vllm/vllm-openai:latest` uses the tag `latest`")


def test_structural_problems_name_their_property():
    def karpenter_multinode(env):
        env["pools"][1]["provisioner"] = "karpenter"

    err, _ = refused(broken("prod", karpenter_multinode))
    assert err.property_path == "pools[1].provisioner"

    def router_in_other_namespace(env):
        env["routers"][0]["namespace"] = "gateway"

    err, _ = refused(broken("dev", router_in_other_namespace))
    assert err.property_path == "routers[0].namespace"
    assert "an Ingress routes only to Services in its own namespace" in err.reason


def test_bad_stack_config_is_a_run_error():
    def edit(env):
        env["services"][0]["engine"]["tensor_parallel_size"] = 0

    ROOT_RESOURCE.set(None)
    pulumi.runtime.set_mocks(RecordingMocks(Run()), project="shardwise", stack="broken", preview=True)
    pulumi.runtime.set_all_config(engine_config(broken("dev", edit)))
    with pytest.raises(pulumi.RunError, match=r"services\[0\]\.engine\.tensor_parallel_size"):
        execute()


# --- components used on their own --------------------------------------------------------------

STANDALONE = '''
import pulumi
from shardwise.components import VllmService, GpuNodePool
from shardwise.rules.spec import EngineArgsSpec, NodePoolSpec, VllmServiceSpec

cfg = pulumi.Config("test")
pool = NodePoolSpec(name="h100", instance_type="p5.48xlarge")
spec = VllmServiceSpec(name="llama", pool="h100", autoscaling=None, replicas=2,
                       engine=EngineArgsSpec(model="meta-llama/Llama-3.1-8B-Instruct",
                                             tensor_parallel_size=cfg.get_int("tp") or 1, max_model_len=8192,
                                             max_num_seqs=32))
GpuNodePool("gpu", pool, cluster_name="c", node_role_arn="arn:aws:iam::123456789012:role/gpu",
            subnet_ids=["subnet-1"], security_group_ids=["sg-1"])
VllmService("llama", spec, pool)
'''


def test_standalone_components(tmp_path):
    program = tmp_path / "standalone.py"
    program.write_text(STANDALONE)
    run = run_program({}, program=program)
    assert run.names("shardwise:vllm:VllmService") == ["llama"]
    dep = run.one("kubernetes:apps/v1:Deployment", "llama-deployment").inputs
    assert dep["spec"]["replicas"] == 2
    assert run.of_type("kubernetes:keda.sh/v1alpha1:ScaledObject") == []
    assert run.one("aws:eks/nodeGroup:NodeGroup", "gpu-node-group").inputs["subnetIds"] == ["subnet-1"]

    # validation paths are relative to the component's own arguments
    ROOT_RESOURCE.set(None)
    rec = Run()
    pulumi.runtime.set_mocks(RecordingMocks(rec), project="shardwise", stack="t", preview=True)
    pulumi.runtime.set_all_config({"test:tp": "2"})
    with pytest.raises(pulumi.InputPropertyError) as e:
        execute(program)
    assert e.value.property_path == "engine.tensor_parallel_size"
    assert e.value.reason.startswith("SW104: ")
    assert "shardwise:vllm:VllmService" not in {r.type for r in rec.resources}


VARIANTS = '''
from shardwise.components import GpuNodePool, InferenceRouter, RuntimeNetwork, VllmMultiNode, VllmService
from shardwise.rules.spec import (AutoscalingSpec, EngineArgsSpec, NetworkSpec, NodePoolSpec, RouterSpec,
                                  VllmMultiNodeSpec, VllmServiceSpec)

ROLE = "arn:aws:iam::123456789012:role/gpu"
efa = NodePoolSpec(name="h100-efa", instance_type="p5.48xlarge", multi_node=True, capacity_type="capacity-block",
                   capacity_reservation_id="cr-0123456789abcdef0", min_size=2, desired_size=2, max_size=2)
single = NodePoolSpec(name="l40s", instance_type="g6e.xlarge")
svc = VllmServiceSpec(name="llama", pool="l40s", autoscaling=AutoscalingSpec(kind="hpa"), p95_context_tokens=2048,
                      engine=EngineArgsSpec(model="meta-llama/Llama-3.1-8B-Instruct", max_model_len=8192,
                                            max_num_seqs=32))
big = VllmMultiNodeSpec(name="llama-405b", pool="h100-efa", launcher="ray", image="vllm/vllm-openai:v0.13.0",
                        engine=EngineArgsSpec(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=8,
                                              pipeline_parallel_size=2, max_model_len=16384, max_num_seqs=16))
net = NetworkSpec(vpc_id="vpc-0abc", private_subnet_ids=("subnet-a", "subnet-b"))
network = RuntimeNetwork("net", net, region="us-west-2", cluster_name="c", services=[svc], multi_node=[big])
GpuNodePool("efa", efa, cluster_name="c", node_role_arn=ROLE, subnet_ids=network.private_subnet_ids,
            security_group_ids=[network.security_group_id])
VllmService("llama", svc, single)
VllmMultiNode("llama-405b", big, efa)
InferenceRouter("gw", RouterSpec(name="gw", kind="gateway-api", services=("llama",)), [svc])
'''


def test_component_variants(tmp_path):
    program = tmp_path / "variants.py"
    program.write_text(VARIANTS)
    run = run_program({}, program=program)
    # existing-VPC mode: no VPC or subnets, the S3 endpoint uses the subnets' route tables
    assert run.of_type("aws:ec2/vpc:Vpc") == [] and run.of_type("aws:ec2/subnet:Subnet") == []
    s3 = run.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3").inputs
    assert (s3["vpcId"], s3["serviceName"], s3["routeTableIds"]) == (
        "vpc-0abc", "com.amazonaws.us-west-2.s3", ["rtb-subnet-a", "rtb-subnet-b"])
    assert run.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-ecr-api").inputs["subnetIds"] == ["subnet-a", "subnet-b"]
    # capacity block: the launch template targets the reservation; one subnet for the multi-node pool
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "efa-launch-template").inputs
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "efa-node-group").inputs
    assert (ng["capacityType"], ng["subnetIds"]) == ("CAPACITY_BLOCK", ["subnet-a"])
    # EKS requires the instance type in a Capacity Block template, and then none in the node group
    assert lt["instanceType"] == "p5.48xlarge"
    assert "instanceTypes" not in ng
    # HPA on queue depth
    hpa = run.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "llama-horizontalpodautoscaler").inputs
    assert hpa["spec"]["metrics"][0]["pods"]["metric"] == {"name": "vllm:num_requests_waiting"}
    # Ray launcher
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "llama-405b-leaderworkerset").inputs
    assert container(lws, "leaderTemplate")["command"] == ["/bin/sh", "-c"]
    assert "--distributed-executor-backend ray" in container(lws, "leaderTemplate")["args"][0]
    # Gateway API: a route in the gateway namespace and a grant in the serving namespace
    route = run.one("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "gw-httproute-gw").inputs
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "llama", "namespace": "serving", "port": 8000}]
    grant = run.one("kubernetes:gateway.networking.k8s.io/v1beta1:ReferenceGrant", "gw-referencegrant-gw-from-gateway")
    assert grant.inputs["metadata"]["namespace"] == "serving"
