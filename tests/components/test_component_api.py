"""The component API as another Pulumi program uses it: typed ``…Args``, ``pulumi.Input`` values from
other resources, children and outputs, every problem at once, checks when values resolve.

``tests/programs/composed.py`` builds IAM roles, an ECR repository, a VPC, an EKS cluster and a
namespace of its own and wires their outputs into every component; it runs under Pulumi's mocks
(tests/support/component_mocks.py), which answer like the AWS provider for the outputs programs read.
"""

from __future__ import annotations

import dataclasses
import pathlib
import textwrap
from typing import Any

import pulumi
import pytest
from component_mocks import ROOT, Run, failing_program, run_program
from shardwise.components import (
    ArgumentsError,
    GpuNodePoolArgs,
    InferenceRouterArgs,
    RuntimeNetworkArgs,
    VllmMultiNodeArgs,
    VllmServiceArgs,
    _docs,
)
from shardwise.rules.model.spec import NodePoolSpec, RouterSpec, VllmMultiNodeSpec, VllmServiceSpec

COMPOSED = ROOT / "tests" / "programs" / "composed.py"
ECR = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm"
ROLE = "arn:aws:iam::123456789012:role"
_RUN: list[Run] = []


#: component class name -> the output names each of its instances registered (register_outputs)
REGISTERED_OUTPUTS: dict[str, list[list[str]]] = {}


def composed() -> Run:
    if not _RUN:
        original = pulumi.ComponentResource.register_outputs

        def record(self: pulumi.ComponentResource, outputs: Any) -> None:
            REGISTERED_OUTPUTS.setdefault(type(self).__name__, []).append(sorted(outputs))
            original(self, outputs)

        pulumi.ComponentResource.register_outputs = record  # type: ignore[method-assign]
        try:
            _RUN.append(run_program({}, program=COMPOSED))
        finally:
            pulumi.ComponentResource.register_outputs = original  # type: ignore[method-assign]
    return _RUN[0]


def container(inputs, template=None):
    spec = inputs["spec"]
    tpl = spec["leaderWorkerTemplate"][template] if template else spec["template"]
    return tpl["spec"]["containers"][0], tpl["spec"]


def urn(parent: str, typ: str, name: str) -> str:
    return f"urn:pulumi:test::shardwise::{parent}${typ}::{name}"


def test_gpu_node_pool_takes_the_programs_cluster_role_and_network():
    run = composed()
    out = run.exports["pool"]
    pool = "shardwise:nodepool:GpuNodePool"
    assert out["children"] == {
        "node_group": urn(pool, "aws:eks/nodeGroup:NodeGroup", "h100-node-group"),
        "launch_template": urn(pool, "aws:ec2/launchTemplate:LaunchTemplate", "h100-launch-template"),
        "placement_group": None,
    }
    assert out["efa_children"] == {"placement_group": urn(pool, "aws:ec2/placementGroup:PlacementGroup", "h100-efa-placement")}
    assert (out["gpus_per_node"], out["efa_interfaces"], out["node_group_name"]) == (8, 32, "h100-node-group")
    assert out["labels"] == {
        "shardwise.dev/pool": "h100", "shardwise.dev/gpu-product": "H100-SXM-80GB", "shardwise.dev/gpu-count": "8",
        "shardwise.dev/gpu-memory-gib": "79.19", "shardwise.dev/nvlink": "nvswitch",
        "shardwise.dev/nvlink-domain-size": "8", "shardwise.dev/efa": "false"}
    ng = run.one("aws:eks/nodeGroup:NodeGroup", "h100-node-group").inputs
    assert (ng["clusterName"], ng["nodeRoleArn"], ng["subnetIds"]) == ("composed", f"{ROLE}/gpu-nodes",
                                                                       ["private-a-id", "private-b-id"])
    assert run.one("aws:eks/nodeGroup:NodeGroup", "h100-efa-node-group").inputs["subnetIds"] == ["private-a-id"]
    lt = run.one("aws:ec2/launchTemplate:LaunchTemplate", "h100-launch-template").inputs
    assert lt["networkInterfaces"][0]["securityGroups"] == ["net-gpu-nodes-id", "sg-0c1a55e0c1a55e0c1"]
    assert "userData" in lt  # instance_store raid0


def test_runtime_network_in_the_programs_vpc():
    run = composed()
    out = run.exports["network"]
    net = "shardwise:network:RuntimeNetwork"
    assert out["children"] == {
        "security_group": urn(net, "aws:ec2/securityGroup:SecurityGroup", "net-gpu-nodes"),
        "endpoint_security_group": urn(net, "aws:ec2/securityGroup:SecurityGroup", "net-endpoints"),
    }
    assert (out["vpc_id"], out["private_subnet_ids"], out["security_group_id"]) == (
        "vpc-id", ["private-a-id", "private-b-id"], "net-gpu-nodes-id")
    # endpoints opted in; private-b has no explicit association (the mocks): the VPC's main table routes it
    assert run.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3").inputs["routeTableIds"] == ["rtb-main-vpc-id",
                                                                                             "rtb-private-a-id"]
    # the namespace is an Output of the program's Namespace: resource names number it, objects carry its value
    assert [u.rsplit("::", 1)[1] for u in out["policies"]] == [
        "net-namespace1-default-deny", "net-namespace1-allow-dns", "net-namespace1-allow-https-egress",
        "net-namespace1-allow-pod-identity-agent",  # the service account of llama-70b uses Pod Identity
        "net-namespace1-llama-70b-intra-group", "net-namespace1-llama-70b-api", "net-namespace1-llama-405b-intra-group",
        "net-namespace1-llama-405b-api"]
    policy = run.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "net-namespace1-llama-70b-api").inputs
    assert policy["metadata"]["namespace"] == "inference"
    # the ALB's targets: its subnets' ranges (the program's VPC: the ones its network spec names), not the VPC
    assert policy["spec"]["ingress"][0]["from"][2:] == [{"ipBlock": {"cidr": "10.50.240.0/24"}},
                                                        {"ipBlock": {"cidr": "10.50.241.0/24"}}]


def test_vllm_service_children_outputs_and_escape_hatches():
    run = composed()
    out = run.exports["service"]
    svc = "shardwise:vllm:VllmService"
    assert out["children"] == {
        "deployment": urn(svc, "kubernetes:apps/v1:Deployment", "llama-70b-deployment"),
        "service": urn(svc, "kubernetes:core/v1:Service", "llama-70b-service"),
        "pdb": urn(svc, "kubernetes:policy/v1:PodDisruptionBudget", "llama-70b-poddisruptionbudget"),
        "autoscaler": urn(svc, "kubernetes:keda.sh/v1alpha1:ScaledObject", "llama-70b-scaledobject"),
        "monitor": urn(svc, "kubernetes:monitoring.coreos.com/v1:PodMonitor", "llama-70b-podmonitor"),
        "service_account": urn(svc, "kubernetes:core/v1:ServiceAccount", "llama-70b-serviceaccount"),
        "pod_identity": urn(svc, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "llama-70b-pod-identity"),
        "claim": None,
    }
    assert (out["endpoint"], out["namespace"], out["deployment_name"], out["gpus_per_replica"]) == (
        "http://llama-70b.inference.svc.cluster.local:8000", "inference", "llama-70b", 4)
    assert out["startup_budget"] == {"weights_gib_per_pod": 131.42, "throughput_mib_s": 2000.0, "load_seconds": 68,
                                     "budget_seconds": 562, "floor_seconds": 562}
    assert (out["sizing"]["kv_cache_tokens"], out["sizing"]["startup_budget_seconds"]) == (487328, 562)
    assert out["validation"] == {"checked_when_resolved": ["image", "namespace", "pod.service_account.role_arn"],
                                 "suppressed": []}
    dep = run.one("kubernetes:apps/v1:Deployment", "llama-70b-deployment").inputs
    c, pod = container(dep)
    assert (dep["metadata"]["namespace"], c["image"]) == ("inference", f"{ECR}:v0.13.0")
    # a restarted pod finds the weights on the node's NVMe; the probe allows the 562 s budget
    assert pod["volumes"][1] == {"name": "model-cache", "hostPath": {
        "path": "/mnt/k8s-disks/0/shardwise-model-cache", "type": "DirectoryOrCreate"}}
    assert (c["startupProbe"]["periodSeconds"], c["startupProbe"]["failureThreshold"]) == (10, 57)
    assert c["args"][-5:] == ["--enable-auto-tool-choice", "--tool-call-parser", "llama3_json", "--host", "0.0.0.0"]
    assert c["env"][1] == {"name": "VLLM_API_KEY",
                           "valueFrom": {"secretKeyRef": {"name": "vllm-api", "key": "key", "optional": False}}}
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 4, "cpu": "16"}, "limits": {"nvidia.com/gpu": 4}}
    assert (pod["serviceAccountName"], pod["priorityClassName"], pod["imagePullSecrets"]) == (
        "model-reader", "inference-high", [{"name": "ecr-pull"}])
    sa = run.one("kubernetes:core/v1:ServiceAccount", "llama-70b-serviceaccount").inputs
    assert sa["metadata"]["name"] == "model-reader" and "annotations" not in sa["metadata"]  # pod identity, not IRSA
    assoc = run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "llama-70b-pod-identity").inputs
    assert assoc == {"clusterName": "composed", "namespace": "inference", "serviceAccount": "model-reader",
                     "roleArn": f"{ROLE}/model-reader"}
    monitor = run.one("kubernetes:monitoring.coreos.com/v1:PodMonitor", "llama-70b-podmonitor").inputs
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    query = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "llama-70b-scaledobject").inputs["spec"]["triggers"][0]
    assert query["metadata"]["query"] == 'sum(vllm:num_requests_waiting{namespace="inference",pod=~"llama-70b-[a-z0-9]+-[a-z0-9]+"})'


def test_vllm_multinode_children_outputs_and_shared_cache():
    run = composed()
    out = run.exports["group"]
    mn = "shardwise:multinode:VllmMultiNode"
    assert out["children"] == {
        "leader_worker_set": urn(mn, "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "llama-405b-leaderworkerset"),
        "service": urn(mn, "kubernetes:core/v1:Service", "llama-405b-service"),
        "monitor": urn(mn, "kubernetes:monitoring.coreos.com/v1:PodMonitor", "llama-405b-podmonitor"),
        "claim": urn(mn, "kubernetes:core/v1:PersistentVolumeClaim", "llama-405b-persistentvolumeclaim"),
    }
    assert out["launcher"] == {"launcher": "native", "why": "vLLM 0.13.0 has the native multi-node launch (>= 0.11.1)"}
    assert (out["group_size"], out["gpus_per_group"], out["endpoint"]) == (
        2, 16, "http://llama-405b.inference.svc.cluster.local:8000")
    # 378 GiB per pod at 4500 MiB/s is 87 s; SW402's floor (300 s + 2 s/GiB) is the larger
    assert out["startup_budget"] == {"weights_gib_per_pod": 377.98, "throughput_mib_s": 4500.0, "load_seconds": 87,
                                     "budget_seconds": 1055, "floor_seconds": 1055}
    claim = run.one("kubernetes:core/v1:PersistentVolumeClaim", "llama-405b-persistentvolumeclaim").inputs
    assert claim["metadata"]["namespace"] == "inference" and claim["spec"]["storageClassName"] == "fsx-lustre"
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "llama-405b-leaderworkerset").inputs
    for template in ("leaderTemplate", "workerTemplate"):
        c, pod = container(lws, template)
        assert c["image"] == f"{ECR}:v0.13.0"
        assert pod["volumes"][1] == {"name": "model-cache", "persistentVolumeClaim": {"claimName": "llama-405b-model-cache"}}
    # the leader serves the API: its probe allows the 1055 s budget
    leader, _ = container(lws, "leaderTemplate")
    assert (leader["startupProbe"]["periodSeconds"], leader["startupProbe"]["failureThreshold"]) == (10, 106)
    # a Kubernetes provider made from the kubeconfig the program built
    assert "llama-405b-k8s" in run.names("pulumi:providers:kubernetes")


@pytest.mark.parametrize("component", [c for _, _, _, c in _docs.COMPONENTS], ids=lambda c: c.__name__)
def test_every_instance_registers_exactly_the_outputs_its_class_documents(component):
    composed()
    documented = sorted(_docs.output_names(component))
    built = REGISTERED_OUTPUTS[component.__name__]
    assert built and built == [documented] * len(built)  # at least one instance; each registers them all


def test_inference_router_over_the_components():
    run = composed()
    # hostname: the ALB's DNS name, which the load balancer controller writes into the status (none under mocks)
    assert run.exports["router"] == {"children": {"ingress": urn("shardwise:router:InferenceRouter",
                                                                 "kubernetes:networking.k8s.io/v1:Ingress", "llm-ingress-llm")},
                                     "route_names": ["llm"], "hostname": None}
    ingress = run.one("kubernetes:networking.k8s.io/v1:Ingress", "llm-ingress-llm").inputs
    assert ingress["metadata"]["namespace"] == "inference"
    assert [(r["host"], r["http"]["paths"][0]["backend"]["service"]["name"]) for r in ingress["spec"]["rules"]] == [
        ("llama-70b.llm.example.com", "llama-70b"), ("llama-405b.llm.example.com", "llama-405b")]


def test_eks_cluster_component():
    run = composed()
    out = run.exports["cluster"]
    assert out["addons"] == ["coredns", "eks-pod-identity-agent", "kube-proxy", "vpc-cni"]
    assert out["releases"] == ["aws-efa-k8s-device-plugin", "lws", "nvidia-device-plugin"]
    assert (out["endpoint"], out["security_group"]) == ("https://made.gr7.us-east-1.eks.amazonaws.com", "sg-0c1a55e0c1a55e0c1")
    # the load-balancer controller is installed when an ALB router asks for it (EksClusterArgs), not listed
    assert out["prerequisites"] == ["the CSI driver of a pvc model cache (add-on and IAM role)"]
    # the program's node role (no role created) and a Kubernetes provider for the new cluster
    assert (out["name"], out["node_role_arn"], out["provider"]) == (
        "made", f"{ROLE}/gpu-nodes", urn("shardwise:cluster:EksCluster", "pulumi:providers:kubernetes", "made-k8s"))
    cluster = run.one("aws:eks/cluster:Cluster", "made-cluster").inputs
    assert cluster["roleArn"] == f"{ROLE}/control-plane"  # given: no role created
    assert not [r for r in run.of_type("aws:iam/role:Role") if r.name.startswith("made-")]
    assert run.one("aws:eks/nodeGroup:NodeGroup", "made-system").inputs["nodeRoleArn"] == f"{ROLE}/gpu-nodes"


def test_serving_environment_with_outputs_from_the_program():
    run = composed()
    out = run.exports["environment"]
    env = "shardwise:environment:ServingEnvironment"
    assert out["children"] == {
        "network": urn(env, "shardwise:network:RuntimeNetwork", "env-network"),
        "pool": urn(env, "shardwise:nodepool:GpuNodePool", "env-l40s"),
        "service": urn(env, "shardwise:vllm:VllmService", "env-llama-8b"),
        "namespace": urn(env, "kubernetes:core/v1:Namespace", "env-namespace-serving"),
    }
    # an existing cluster: the program's VPC, no EksCluster
    assert (out["endpoints"], out["vpc_id"], out["cluster"]) == (
        {"llama-8b": "http://llama-8b.serving.svc.cluster.local:8000"}, "vpc-id", None)
    c, _ = container(run.one("kubernetes:apps/v1:Deployment", "env-llama-8b-deployment").inputs)
    assert c["image"] == f"{ECR}:v0.13.0"
    nodeclass = run.one("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "env-l40s-ec2nodeclass").inputs["spec"]
    # the EC2NodeClass wants the role's name: taken from the Role's ARN when it resolves
    assert nodeclass["role"] == "gpu-nodes"
    assert nodeclass["subnetSelectorTerms"] == [{"id": "private-a-id"}, {"id": "private-b-id"}]
    assert nodeclass["securityGroupSelectorTerms"] == [{"id": "env-network-gpu-nodes-id"}, {"id": "sg-0c1a55e0c1a55e0c1"}]
    assert run.exports["environment"]["validation"] == {
        "suppressed": [], "checked_when_resolved": ["cluster_security_group_id", "images.llama-8b", "node_role_arn",
                                                    "private_subnet_ids[0]", "private_subnet_ids[1]", "vpc_id"],
        "left_to_policy_pack": ["public IP mapping of existing subnets (SW303)"]}


# --- problems: all at once, relative to the component's arguments, or when a value resolves ----------

PROGRAM = '''
import pulumi
import pulumi_aws as aws
from shardwise.components import GpuNodePool, GpuNodePoolArgs, VllmService, VllmServiceArgs

repo = aws.ecr.Repository("vllm")
tag = pulumi.Config("t").get("tag") or "v0.13.0"
hf = pulumi.Output.secret("hf_test_token")  # meta-llama is gated: the component makes the Secret with it
pool = {{"name": "l40s", "instance_type": "g6e.xlarge"}}
{body}
'''


def program(tmp_path: pathlib.Path, body: str) -> pathlib.Path:
    path = tmp_path / "program.py"
    path.write_text(PROGRAM.format(body=textwrap.dedent(body)))
    return path


def test_standalone_problems_are_relative_to_the_arguments(tmp_path):
    path = program(tmp_path, '''
        VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192,
                                             "max_num_seqs": 16, "extra_args": ["--load-format", "dummy", "--api-key", "x"]},
            cache={"kind": "node-nvme", "throughput_mib_s": 900},
            pod={"labels": {"app.kubernetes.io/name": "other"}, "requests": {"nvidia.com/gpu": "2"},
                 "volume_mounts": [{"name": "scratch", "mount_path": "/dev/shm/x"}]}))
    ''')
    err, run = failing_program({}, program=path)
    assert isinstance(err, ArgumentsError)
    assert str(err) == (
        "VllmService: 8 invalid arguments (at construction)\n"
        "  cache.kind: a node-nvme cache needs pool `l40s` to set instance_store: raid0 (its 250 GB of NVMe mounted "
        "at /mnt/k8s-disks/0)\n"
        "  pod.labels: `app.kubernetes.io/name` is set by shardwise (suppressions: `suppress`)\n"
        "  pod.requests: `nvidia.com/gpu` comes from engine.tensor_parallel_size\n"
        "  pod.volume_mounts[0].name: no volume `scratch` in pod.volumes\n"
        "  pod.volume_mounts[0].mount_path: /dev/shm/x is shardwise's (/dev/shm, the model cache)\n"
        "  engine.extra_args: --load-format is set by `cache` (kind s3 streams with runai_streamer)\n"
        "  engine.extra_args: --api-key would show the key in the pod spec: name its Secret in api_key_secret\n"
        # the rendered pod as Kubernetes validates it (readers19): the same request, at the field the API server names
        "  environment: spec.template.spec.containers[0].resources.requests.nvidia.com/gpu: 2, but "
        "limits.nvidia.com/gpu is 1; Kubernetes refuses the pod (\"must be equal to nvidia.com/gpu limit\": "
        "nvidia.com/gpu is never overcommitted, so a container's request must equal its limit) and runs neither count: "
        "write the count once, under limits (the request defaults to it)")
    assert [r.type for r in run.resources] == ["aws:ecr/repository:Repository"]  # nothing of the component


def test_pool_problems_name_the_pool_argument(tmp_path):
    path = program(tmp_path, '''
        GpuNodePool("gpu", GpuNodePoolArgs(pool={"name": "h100", "instance_type": "p9.huge", "min_size": 3,
                                                "max_size": 2},
                                          cluster_name="c", node_role_arn="role", subnet_ids=["subnet-1"],
                                          security_group_ids=["sg-1"]))
    ''')
    err, _ = failing_program({}, program=path)
    assert err.errors == [{"property_path": "pool", "reason": "need min_size <= desired_size <= max_size, got 3, 1, 2"}]
    path = program(tmp_path, '''
        GpuNodePool("gpu", GpuNodePoolArgs(pool={"name": "h100", "instance_type": "p9.huge"}, cluster_name="c",
                                          node_role_arn="role", subnet_ids=["subnet-1"], security_group_ids=["sg-1"]))
    ''')
    err, _ = failing_program({}, program=path)
    assert [e["property_path"] for e in err.errors] == ["node_role_arn", "pool.instance_type"]
    assert err.errors[0]["reason"] == "`role` is not an IAM role ARN"
    assert err.errors[1]["reason"].startswith("unknown instance type 'p9.huge'")


def test_an_image_that_resolves_to_latest_fails_then(tmp_path):
    path = program(tmp_path, '''
        VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, image=repo.repository_url.apply(lambda u: f"{u}:{tag}"),
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16}))
    ''')
    assert run_program({"t:tag": "v0.13.0"}, program=path).of_type("kubernetes:apps/v1:Deployment")
    err, _ = failing_program({"t:tag": "latest"}, program=path, preview=False)
    assert str(err) == (
        f"VllmService: 1 invalid argument (when `image` resolved to '{ECR}:latest')\n"
        f"  image: SW307: image `{ECR}:latest` uses the tag `latest`, which changes under a running deployment; pin a "
        "version tag or a digest")


def test_a_value_that_must_be_known_cannot_be_an_output(tmp_path):
    path = program(tmp_path, '''
        VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, replicas=repo.name.apply(len),
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16}))
    ''')
    err, _ = failing_program({}, program=path)
    assert err.errors == [{"property_path": "replicas",
                           "reason": "must be known when the component is created (a pulumi.Output was given)"}]


def test_validate_disables_a_rule_with_its_reason(tmp_path):
    body = '''
        svc = VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool={{"name": "h100", "instance_type": "p5.48xlarge"}}, autoscaling=None,
            engine={{"model": "meta-llama/Llama-3.1-8B-Instruct", "tensor_parallel_size": 2, "max_model_len": 8192,
                    "max_num_seqs": 16}}, target_concurrency=16, validate={validate}))
        pulumi.export("validation", svc.validation)
    '''
    sw104 = ("SW104: meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, "
             "but 2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens (max_model_len) "
             "together: enough for the 16 a replica must hold (16 by target_concurrency); "  # newuser11: its argument
             "run them instead: replicas 1 → 2, tensor_parallel_size 2 → 1 (vLLM 0.11.0 from the image tag)")
    run = run_program({}, program=program(tmp_path, body.format(validate='{"SW104": "benchmarked: TPOT p95 18 ms vs 31 ms"}')))
    assert run.exports["validation"] == {
        "checked_when_resolved": [], "suppressed": [f"{sw104} (suppressed: benchmarked: TPOT p95 18 ms vs 31 ms)"]}
    # only the named rule is off: the same service without the entry is refused by SW104
    err, _ = failing_program({}, program=program(tmp_path, body.format(validate="True")))
    assert err.errors == [{"property_path": "engine.tensor_parallel_size", "reason": sw104}]
    err, _ = failing_program({}, program=program(tmp_path, body.format(validate='{"SW104": " ", "SW999": "x"}')))
    assert str(err) == (
        "VllmService: 3 invalid arguments (at construction)\n"
        "  validate.disable.SW104: a disabled rule needs the reason it does not apply\n"
        "  validate.disable.SW999: `SW999` is not a rule code (shardwise rules)\n"
        f"  engine.tensor_parallel_size: {sw104}")


def test_extra_args_refuses_the_flags_the_rules_read_naming_the_typed_field(tmp_path):
    path = program(tmp_path, '''
        VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, autoscaling=None,
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16,
                    "extra_args": ["--trust-remote-code", "--tokenizer-mode", "mistral", "--enable-lora", "--lora-modules",
                                   "sql=/loras/sql", "chat=/loras/chat", "--enable-chunked-prefill",
                                   "--kv-cache-memory-bytes", "8G", "-tp", "1", "--config", "serve.yaml"]}))
    ''')
    err, _ = failing_program({}, program=path)
    # --trust-remote-code, --tokenizer-mode and LoRA modules (nargs +) pass through; the rest would change what the rules size (-tp 1 too:
    # after the typed --tensor-parallel-size it would win), in the order written
    assert str(err) == (
        "VllmService: 4 invalid arguments (at construction)\n"
        "  engine.extra_args: --enable-chunked-prefill is read by the rules: set engine.enable_chunked_prefill\n"
        "  engine.extra_args: --kv-cache-memory-bytes is read by the rules: set engine.kv_cache_memory_bytes\n"
        "  engine.extra_args: --tensor-parallel-size is read by the rules: set engine.tensor_parallel_size\n"
        "  engine.extra_args: --config would hide the flags in its file from the rules: set them in engine's "
        "fields or extra_args")


def test_the_typed_kv_cache_size_reaches_the_pod_and_the_sizing(tmp_path):
    body = '''
        svc = VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, autoscaling=None, image="vllm/vllm-openai:{tag}",
            engine={{"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16,
                    "enable_chunked_prefill": False, "kv_cache_memory_bytes": 16 * 2**30}}))
        pulumi.export("sizing", svc.sizing)
    '''
    run = run_program({}, program=program(tmp_path, body.format(tag="v0.13.0")))
    c, _ = container(run.one("kubernetes:apps/v1:Deployment", "llama-deployment").inputs)
    assert c["args"] == ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "16",
                         "--no-enable-chunked-prefill", "--kv-cache-memory-bytes", "17179869184", "--host", "0.0.0.0"]
    # 16 GiB ÷ 128 KiB per token (32 layers × 8 KV heads × 128 × 2 × bf16) = 131072 tokens = 16 × 8192
    sizing = run.exports["sizing"]
    assert (sizing["kv_cache_gib_per_gpu"], sizing["kv_cache_tokens"], sizing["max_concurrency"]) == (16.0, 131072, 16.0)
    err, _ = failing_program({}, program=program(tmp_path, body.format(tag="v0.10.1")))
    assert err.errors == [
        {"property_path": "engine.kv_cache_memory_bytes", "reason": (
            "vLLM 0.10.1 has no --kv-cache-memory-bytes (it came in 0.10.2) and would not start; use "
            "gpu_memory_utilization or a newer image")},
        {"property_path": "spec", "reason": (
            "SW003: container 'vllm': `--kv-cache-memory-bytes` is not a flag of vLLM 0.10.1 (the release the image "
            "names): it first appears in 0.10.2: use an image of vLLM 0.10.2 or later, or remove it; vLLM's argument "
            "parser defines no option that is or begins with `--kv-cache-memory-bytes` there, so it exits at start-up "
            "(\"unrecognized arguments\") and the pod crash-loops")}]
    # 0.10.2 has the flag (engine/arg_utils.py, v1/worker/gpu_worker.py of its source distribution)
    run = run_program({}, program=program(tmp_path, body.format(tag="v0.10.2")))
    assert run.exports["sizing"]["kv_cache_gib_per_gpu"] == 16.0


def test_the_typed_cpu_offload_reaches_the_pod_and_the_sizing(tmp_path):
    # engine21: --cpu-offload-gb as a typed field (the stack file's and the components' route to vLLM's flag); the
    # sizing counts it as it does from a manifest's command line (capacity.group._offload_bytes)
    body = '''
        svc = VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, autoscaling=None, image="vllm/vllm-openai:v0.11.0",
            engine={{"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16,
                    {offload}}}))
        pulumi.export("sizing", svc.sizing)
    '''
    run = run_program({}, program=program(tmp_path, body.format(offload='"cpu_offload_gb": 8')))
    c, _ = container(run.one("kubernetes:apps/v1:Deployment", "llama-deployment").inputs)
    assert c["args"] == ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "16",
                         "--cpu-offload-gb", "8.0", "--host", "0.0.0.0"]
    offloaded = run.exports["sizing"]["weights_gib_per_gpu"]
    run = run_program({}, program=program(tmp_path, body.format(offload="")))
    # 8 GiB of Llama-3.1-8B's decoder layers stay in CPU memory: 14.99 GiB on the L40S (the rotary cache included)
    # less 8
    assert (run.exports["sizing"]["weights_gib_per_gpu"], offloaded) == (14.989, 6.989)
    # the flag in extra_args is refused: the typed field owns it
    err, _ = failing_program({}, program=program(tmp_path, body.format(
        offload='"extra_args": ["--cpu-offload-gb", "8"]')))
    assert str(err) == ("VllmService: 1 invalid argument (at construction)\n"
                        "  engine.extra_args: --cpu-offload-gb is read by the rules: set engine.cpu_offload_gb")


def test_a_restarted_pod_keeps_its_cache_and_the_probe_budget_follows_the_caches_throughput(tmp_path):
    body = '''
        svc = VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, replicas=1, autoscaling=None, image="vllm/vllm-openai:v0.13.0",
            engine={{"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16}},
            model_cache_gib=40, cache={{"kind": "pvc", "storage_class": "gp3", "access_mode": "ReadWriteOnce",
                                       "throughput_mib_s": {throughput}}}))
        pulumi.export("startup_budget", svc.startup_budget)
    '''
    budgets = {}
    for throughput in (250, 1000):
        run = run_program({}, program=program(tmp_path, body.format(throughput=throughput)))
        budgets[throughput] = run.exports["startup_budget"]
        dep = run.one("kubernetes:apps/v1:Deployment", "llama-deployment").inputs
        c, pod = container(dep)
        # the weights live on a claim, not in the pod: a recreated pod mounts the same files, the download
        # init container skips what is complete, and vLLM reads them offline
        assert pod["volumes"][1] == {"name": "model-cache", "persistentVolumeClaim": {"claimName": "llama-model-cache"}}
        claim = run.one("kubernetes:core/v1:PersistentVolumeClaim", "llama-persistentvolumeclaim").inputs
        assert (claim["metadata"]["name"], claim["spec"]) == ("llama-model-cache", {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "resources": {"requests": {"storage": "40Gi"}}})
        (init,) = pod["initContainers"]
        assert (init["name"], init["volumeMounts"]) == (
            "model-download", [{"name": "model-cache", "mountPath": "/root/.cache/huggingface"}])
        assert {"name": "HF_HUB_OFFLINE", "value": "1"} in c["env"]
        # one node attaches a ReadWriteOnce volume: the old pod goes before the new one starts
        assert dep["spec"]["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
        probe = c["startupProbe"]
        assert probe["periodSeconds"] * probe["failureThreshold"] >= budgets[throughput]["budget_seconds"]
        budgets[throughput]["failureThreshold"] = probe["failureThreshold"]
    # 14.96 GiB at 250 MiB/s: 62 s to read, 300 + 2 × 62 = 424 s, above SW402's floor (300 + 2 × 14.96 = 329 s);
    # at 1000 MiB/s: 16 s, 332 s
    assert budgets == {
        250: {"weights_gib_per_pod": 14.96, "throughput_mib_s": 250.0, "load_seconds": 62, "budget_seconds": 424,
              "floor_seconds": 329, "failureThreshold": 43},
        1000: {"weights_gib_per_pod": 14.96, "throughput_mib_s": 1000.0, "load_seconds": 16, "budget_seconds": 332,
               "floor_seconds": 329, "failureThreshold": 34},
    }


# --- the Args are the specs' fields ----------------------------------------------------------------


@pytest.mark.parametrize("args_cls,spec_cls,own", [
    (VllmServiceArgs, VllmServiceSpec, {"production", "validate", "cluster_name", "installs", "k8s_provider",
                                        "kubeconfig", "hf_token", "hf_token_secret_exists", "api_key_secret_exists"}),
    (VllmMultiNodeArgs, VllmMultiNodeSpec, {"production", "validate", "cluster_name", "installs", "k8s_provider",
                                            "kubeconfig", "hf_token", "hf_token_secret_exists",
                                            "api_key_secret_exists"}),
    (InferenceRouterArgs, RouterSpec, {"backends", "validate", "installs", "k8s_provider", "kubeconfig"}),
])
def test_args_map_onto_the_spec_fields_with_the_same_defaults(args_cls, spec_cls, own):
    fields = {f.name: f for f in dataclasses.fields(args_cls)}
    assert set(fields) - own == set(spec_cls.model_fields)
    for name, info in spec_cls.model_fields.items():
        if info.is_required():
            continue
        f = fields[name]
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if name == "services":  # a router routes to all its backends by default
            assert default is None
            continue
        assert default == info.default, name


def test_pool_and_network_args_take_the_specs():
    assert {f.name for f in dataclasses.fields(GpuNodePoolArgs)} >= {"pool", "cluster_name", "node_role_arn"}
    assert dataclasses.fields(GpuNodePoolArgs)[0].type == "NodePoolSpec | Mapping[str, Any]"
    assert {f.name for f in dataclasses.fields(RuntimeNetworkArgs)} >= {"network", "vpc_id", "private_subnet_ids"}
    assert NodePoolSpec.model_fields["instance_store"].default == "none"


def test_the_error_is_an_input_property_error():
    err = ArgumentsError("VllmService", [("image", "a"), ("engine.model", "b"), ("image", "a")])
    assert isinstance(err, pulumi.InputPropertyError)
    assert (err.property_path, err.reason, len(err.errors)) == ("image", "a", 2)
    assert str(err) == "VllmService: 2 invalid arguments (at construction)\n  image: a\n  engine.model: b"


# --- the documented examples (docs/pulumi.md, docs/ci.md) ----------------------------------------------


def _doc_block(section: str, lang: str, page: str) -> str:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return text.split(f"## {section}\n", 1)[1].split(f"```{lang}\n", 1)[1].split("```", 1)[0]


def test_the_documented_component_example_runs(tmp_path):
    path = tmp_path / "readme_example.py"
    path.write_text(_doc_block("Components", "python", "pulumi.md"))
    run = run_program({"shardwise:hfToken": "hf_test_token"}, program=path)
    assert run.exports == {"endpoint": "http://llama-70b.serving.svc.cluster.local:8000",
                           "startup_budget_seconds": 562}
    dep = run.one("kubernetes:apps/v1:Deployment", "llama-70b-deployment").inputs
    c, pod = container(dep)
    assert c["image"] == f"{ECR}:v0.13.0"
    assert pod["volumes"][1]["hostPath"]["path"] == "/mnt/k8s-disks/0/shardwise-model-cache"
    assert run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "llama-70b-pod-identity").inputs[
        "roleArn"] == f"{ROLE}/model-reader"


def test_the_documented_policy_config_names_real_policies_and_properties():
    import json

    from shardwise.rules.app.crossguard import CONFIG_SCHEMA
    from shardwise.rules.checks.registry import ALL_RULES

    config = json.loads(_doc_block("Policy pack", "json", "ci.md"))
    names = {r.meta.name for r in ALL_RULES}
    assert set(config) <= names
    for props in config.values():
        assert set(props) <= set(CONFIG_SCHEMA) | {"enforcementLevel"}


def test_an_image_for_a_workload_the_environment_has_not(tmp_path):
    path = program(tmp_path, '''
        from shardwise.components import ServingEnvironment, ServingEnvironmentArgs

        ServingEnvironment("env", ServingEnvironmentArgs(
            spec={"name": "env", "cluster_name": "c", "node_role_arn": "arn:aws:iam::123456789012:role/n",
                  "network": {"vpc_id": "vpc-0123456789abcdef0", "private_subnet_ids": ["subnet-0123456789abcdef0"]},
                  "pools": [pool]},
            images={"llama": repo.repository_url}))
    ''')
    err, _ = failing_program({}, program=path)
    assert str(err) == ("ServingEnvironment: 1 invalid argument (at construction)\n"
                        "  images.llama: no service or multi-node group is named `llama`")


def test_one_output_in_fields_of_two_kinds_gets_a_stand_in_each_accepts():
    from shardwise.components.inputs import TOKEN_PREFIX, Unknowns

    value = pulumi.Output.from_input("llama")
    u = Unknowns()
    first = u.replace({"name": value, "image": value, "namespace": value})
    # the name and the namespace share a DNS-label stand-in; the image gets an image reference (a name's
    # stand-in there read as an unpinned image: SW307 printed the placeholder)
    assert first["name"] == first["namespace"] != first["image"]
    assert first["name"].startswith(TOKEN_PREFIX) and ":" not in first["name"]
    assert first["image"].startswith(TOKEN_PREFIX) and first["image"].endswith(":unknown")
    # another component's arguments with the same Output get the same stand-ins
    assert Unknowns().replace({"image": value, "name": value}) == {"image": first["image"], "name": first["name"]}


def test_the_declared_vllm_version_sizes_a_workload_whose_image_is_an_output():
    from shardwise.components.validation import _standalone_env
    from shardwise.rules.adapters.stack import inventory_from_spec
    from shardwise.rules.capacity.group import vllm_version

    pool = NodePoolSpec(name="l40s", instance_type="g6e.xlarge")
    spec = VllmServiceSpec(name="x", pool="l40s", image="shardwise-unknown-00000099:unknown", vllm_version="0.6.0",
                           engine={"model": "meta-llama/Llama-3.1-8B-Instruct"}, autoscaling=None)
    (group,) = inventory_from_spec(_standalone_env("x", [pool], None, services=[spec]), "<x>").groups
    # the checks at construction size for 0.6.0, as the component's own sizing output does, not the newest release
    assert (str(vllm_version(group).version), vllm_version(group).source) == ("0.6.0", "given")


def test_one_output_in_two_arguments_is_checked_against_both(tmp_path):
    # `models.cache` is a valid Secret name (a DNS subdomain) but not a namespace (a DNS label): the
    # namespace's check must run although the same Output also fills hf_token_secret
    path = program(tmp_path, '''
        name = pulumi.Output.from_input("models").apply(lambda n: f"{n}.cache")
        VllmService("llama", VllmServiceArgs(
            name="llama", hf_token=hf, pool=pool, namespace=name, hf_token_secret=name,
            engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192, "max_num_seqs": 16}))
    ''')
    err, _ = failing_program({}, program=path, preview=False)
    assert [e["property_path"] for e in err.errors] == ["namespace"]
    assert str(err).startswith("VllmService: 1 invalid argument (when `namespace` resolved to 'models.cache')")


def test_the_canonical_oversharding_fails_a_vllm_services_validation():
    """Issue 27's canonical case through the components' validation (the same rules as lint and the pack):
    Llama-3.1-8B at TP2 on a p5.48xlarge pool, no load declared. One H100 starts it at max_model_len with the KV
    reserve beyond the error band, so SW104 is a blocking finding at the engine's path; with a per-token latency
    target declared it is not."""
    from shardwise.components.validation import service_findings

    pool = NodePoolSpec(name="h100", instance_type="p5.48xlarge")
    spec = VllmServiceSpec(name="llama-8b", pool="h100", image="vllm/vllm-openai:v0.11.0",
                           engine={"model": "meta-llama/Llama-3.1-8B-Instruct", "tensor_parallel_size": 2})
    found, _ = service_findings(spec, pool)
    assert [(path, reason.split(" ", 1)[0]) for path, reason in found if "SW104" in reason] == [
        ("engine.tensor_parallel_size", "SW104:")]
    relaxed, _ = service_findings(spec.model_copy(update={"tpot_target_ms": 20.0}), pool)
    assert [r for _, r in relaxed if "SW104" in r] == []
