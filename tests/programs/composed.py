"""A Pulumi program of its own that uses every shardwise component with outputs of other resources.

It builds IAM roles, an ECR repository, a VPC and an EKS cluster as plain ``pulumi_aws`` resources and
a namespace with ``pulumi_kubernetes``, and wires their outputs into GpuNodePool, RuntimeNetwork,
VllmService, VllmMultiNode, InferenceRouter, ServingEnvironment and EksCluster. The exports name each
component's children and outputs; tests/components/test_component_api.py runs it under Pulumi's mocks. The stack
config ``composed:image_tag`` picks the image tag, so a test can make the resolved image a bad one.
"""

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from shardwise.components import (
    EksCluster,
    EksClusterArgs,
    GpuNodePool,
    GpuNodePoolArgs,
    InferenceRouter,
    InferenceRouterArgs,
    RuntimeNetwork,
    RuntimeNetworkArgs,
    ServingEnvironment,
    ServingEnvironmentArgs,
    VllmMultiNode,
    VllmMultiNodeArgs,
    VllmService,
    VllmServiceArgs,
)
from shardwise.components.cluster import kubeconfig
from shardwise.rules.model.spec import EngineArgsSpec, NodePoolSpec

tag = pulumi.Config("composed").get("image_tag") or "v0.13.0"


def trust(service: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]})


# --- resources of the program's own ----------------------------------------------------------------
node_role = aws.iam.Role("gpu-nodes", assume_role_policy=trust("ec2.amazonaws.com"))
cluster_role = aws.iam.Role("control-plane", assume_role_policy=trust("eks.amazonaws.com"))
reader_role = aws.iam.Role("model-reader", assume_role_policy=trust("pods.eks.amazonaws.com"))
repo = aws.ecr.Repository("vllm")
image = repo.repository_url.apply(lambda url: f"{url}:{tag}")
vpc = aws.ec2.Vpc("vpc", cidr_block="10.50.0.0/16")
subnet_ids = [aws.ec2.Subnet(f"private-{az}", vpc_id=vpc.id, cidr_block=cidr, availability_zone=f"us-east-1{az}").id
              for az, cidr in (("a", "10.50.0.0/19"), ("b", "10.50.32.0/19"))]
cluster = aws.eks.Cluster("cluster", name="composed", role_arn=cluster_role.arn, vpc_config={"subnet_ids": subnet_ids})
kube = pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authority.data).apply(
    lambda v: kubeconfig(v[0], "us-east-1", v[1], v[2]))
provider = k8s.Provider("composed", kubeconfig=kube)
namespace = k8s.core.v1.Namespace("inference", metadata={"name": "inference"},
                                  opts=pulumi.ResourceOptions(provider=provider))
namespace_name = namespace.metadata.name

# --- every component, fed with those outputs -----------------------------------------------------------
network = RuntimeNetwork("net", RuntimeNetworkArgs(
    region="us-east-1", cluster_name=cluster.name, network={"cidr": "10.50.0.0/16", "endpoints": True,
                                               "load_balancer_cidrs": ["10.50.240.0/24", "10.50.241.0/24"]},
    vpc_id=vpc.id,
    private_subnet_ids=subnet_ids, network_policies=False, k8s_provider=provider))
node_sgs = [network.security_group_id, cluster.vpc_config.cluster_security_group_id]
h100 = GpuNodePool("h100", GpuNodePoolArgs(
    pool=NodePoolSpec(name="h100", instance_type="p5.48xlarge", instance_store="raid0", max_size=2),
    cluster_name=cluster.name, node_role_arn=node_role.arn, subnet_ids=network.private_subnet_ids,
    security_group_ids=node_sgs))
efa = GpuNodePool("h100-efa", GpuNodePoolArgs(
    pool={"name": "h100-efa", "instance_type": "p5.48xlarge", "multi_node": True, "min_size": 2,
          "desired_size": 2, "max_size": 2},
    cluster_name=cluster.name, node_role_arn=node_role.arn, subnet_ids=network.private_subnet_ids,
    security_group_ids=node_sgs))
# meta-llama is gated: the token, a secret (in a real program `pulumi.Config().require_secret("hfToken")`)
hf_token = pulumi.Output.secret("hf_composed_test_token")
service = VllmService("llama-70b", VllmServiceArgs(
    name="llama-70b", namespace=namespace_name, pool=h100, image=image, vllm_version="0.13.0",
    engine=EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4, max_model_len=32768,
                          max_num_seqs=64, extra_args=("--enable-auto-tool-choice", "--tool-call-parser", "llama3_json")),
    p95_context_tokens=6144, cache={"kind": "node-nvme", "throughput_mib_s": 2000},
    api_key_secret={"name": "vllm-api", "key": "key"},
    pod={"service_account": {"name": "model-reader", "role_arn": reader_role.arn},
         "requests": {"cpu": "16"}, "priority_class_name": "inference-high", "image_pull_secrets": ["ecr-pull"]},
    metrics={"labels": {"release": "kube-prometheus-stack"}}, validate={"SW106": "bf16 is the evaluated baseline"},
    cluster_name=cluster.name, k8s_provider=provider, hf_token=hf_token))
group = VllmMultiNode("llama-405b", VllmMultiNodeArgs(
    name="llama-405b", namespace=namespace_name, pool=efa, image=image, vllm_version="0.13.0", image_efa=True,
    engine={"model": "meta-llama/Llama-3.1-405B-Instruct", "tensor_parallel_size": 8, "pipeline_parallel_size": 2,
            "max_model_len": 16384, "max_num_seqs": 16},
    model_cache_gib=900, cache={"kind": "pvc", "storage_class": "fsx-lustre", "throughput_mib_s": 4500},
    api_key_secret={"name": "vllm-api", "key": "key"}, kubeconfig=kube, hf_token_secret_exists=service.token_secret))  # the service makes hf-token in this namespace
router = InferenceRouter("llm", InferenceRouterArgs(
    name="llm", namespace=namespace_name, backends=[service, group], domain="llm.example.com",
    certificate_arn="arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    inbound_cidrs=["10.50.0.0/16", "192.0.2.0/24"], k8s_provider=provider))
policies = network.declare_policies([service, group], [router])
made = EksCluster("made", EksClusterArgs(
    name="made", region="us-east-1", subnet_ids=subnet_ids, role_arn=cluster_role.arn, node_role_arn=node_role.arn,
    cluster={"create": True, "admin_principal_arns": ["arn:aws:iam::123456789012:role/platform-admin"],
             "public_access_cidrs": ["198.51.100.0/24"]},
    efa=True, leader_worker_set=True))
environment = ServingEnvironment("env", ServingEnvironmentArgs(
    spec={"name": "env", "cluster_name": "composed", "network": {"cidr": "10.50.0.0/16"},
          "cluster": {"installed": ["nvidia-device-plugin", "karpenter", "keda", "prometheus-operator"]},
          "pools": [{"name": "l40s", "instance_type": "g6e.xlarge", "provisioner": "karpenter"}],
          "services": [{"name": "llama-8b", "pool": "l40s", "vllm_version": "0.13.0",
                        "engine": {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192,
                                   "max_num_seqs": 16}}]},
    node_role_arn=node_role.arn, vpc_id=vpc.id, private_subnet_ids=subnet_ids,
    cluster_security_group_id=cluster.vpc_config.cluster_security_group_id, images={"llama-8b": image},
    k8s_provider=provider, hf_token=hf_token))


def urns(**resources: pulumi.Resource | None) -> dict[str, pulumi.Output[str] | None]:
    return {k: (r.urn if r is not None else None) for k, r in resources.items()}


pulumi.export("pool", {"children": urns(node_group=h100.node_group, launch_template=h100.launch_template,
                                        placement_group=h100.placement_group),
                       "efa_children": urns(placement_group=efa.placement_group),
                       "node_group_name": h100.node_group_name, "labels": h100.labels,
                       "gpus_per_node": h100.gpus_per_node, "efa_interfaces": efa.efa_interfaces})
pulumi.export("network", {"children": urns(security_group=network.security_group,
                                           endpoint_security_group=network.endpoint_security_group),
                          "vpc_id": network.vpc_id, "private_subnet_ids": network.private_subnet_ids,
                          "security_group_id": network.security_group_id,
                          "policies": [p.urn for p in policies]})
pulumi.export("service", {"children": urns(
    deployment=service.deployment, service=service.service, pdb=service.pod_disruption_budget,
    autoscaler=service.autoscaler, monitor=service.monitor, service_account=service.service_account,
    pod_identity=service.pod_identity_association, claim=service.cache_claim),
    "endpoint": service.endpoint, "namespace": service.namespace, "deployment_name": service.deployment_name,
    "gpus_per_replica": service.gpus_per_replica, "sizing": service.sizing,
    "startup_budget": service.startup_budget, "validation": service.validation})
pulumi.export("group", {"children": urns(
    leader_worker_set=group.leader_worker_set, service=group.service, monitor=group.monitor, claim=group.cache_claim),
    "endpoint": group.endpoint, "launcher": group.launcher, "group_size": group.group_size,
    "gpus_per_group": group.gpus_per_group, "startup_budget": group.startup_budget})
pulumi.export("router", {"children": urns(ingress=router.ingress), "route_names": router.route_names,
                         "hostname": router.hostname})
pulumi.export("cluster", {"children": urns(cluster=made.cluster, system_node_group=made.system_node_group),
                          "addons": sorted(made.addons), "releases": sorted(made.releases),
                          "endpoint": made.endpoint, "security_group": made.cluster_security_group_id,
                          "prerequisites": made.prerequisites, "provider": made.provider.urn,
                          "node_role_arn": made.node_role_arn, "name": made.name})
pulumi.export("environment", {"endpoints": environment.endpoints, "pools": environment.pool_names,
                              "validation": environment.validation, "vpc_id": environment.network.vpc_id,
                              "children": urns(network=environment.network, pool=environment.pools["l40s"],
                                               service=environment.services["llama-8b"],
                                               namespace=environment.namespaces[0] if environment.namespaces else None),
                              "cluster": environment.cluster})
