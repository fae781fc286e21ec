"""Pulumi resources -> Inventory: values (unknowns, secrets, numbers), each resource type, references
between resources (ids, names, property dependencies), Kubernetes objects handed to the Kubernetes
adapter, preview/export files, and what the real ``__main__.py`` registers for the prod stack."""

from __future__ import annotations

import json

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.pulumi import (
    PulumiResource,
    clean,
    inventory_from_resources,
    is_pulumi_json,
    kubernetes_api,
    load_pulumi_json,
    read_alone,
    resources_from_json,
)
from shardwise.rules.adapters.pulumi.values import ASSET
from shardwise.rules.model import UNKNOWN, UNKNOWN_NAMESPACE, Location, SgRule, Suppression, Taint
from shardwise.rules.model.errors import InputError

U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown string
SIG = "4dabf18193072939515e22adb298388d"


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::gpu::{type_}::{name}"


def res(type_: str, name: str, props: dict, **kw) -> PulumiResource:
    return PulumiResource(type=type_, name=name, urn=urn(type_, name), props=props, **kw)


SG_T = "aws:ec2/securityGroup:SecurityGroup"
LT_T = "aws:ec2/launchTemplate:LaunchTemplate"
NG_T = "aws:eks/nodeGroup:NodeGroup"
SUB_T = "aws:ec2/subnet:Subnet"
PG_T = "aws:ec2/placementGroup:PlacementGroup"
IN_T = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
RULE_T = "aws:ec2/securityGroupRule:SecurityGroupRule"


# --- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw,value", [
    (U, UNKNOWN),
    ("1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", UNKNOWN),
    ("6a19a0b0-7e62-4c92-b797-7f8e31da9cc2", UNKNOWN),
    (8000.0, 8000),
    (0.9, 0.9),
    ({SIG: "1b47061264138c4ac30d75fd1eb44270", "value": "hf_abc"}, "hf_abc"),
    ({SIG: "1b47061264138c4ac30d75fd1eb44270", "plaintext": '"hf_abc"'}, "hf_abc"),
    ({SIG: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "v1:AAAA"}, UNKNOWN),
    ({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value": 3.0}, 3),
    ({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "dependencies": ["urn:x"]}, UNKNOWN),
    ({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:x", "id": "sg-1"}, "sg-1"),
    ({SIG: "c44067f5952c0a294b673a41bacd8c17", "path": "a.txt"}, ASSET),  # no property read takes one
    ({"a": [1.0, {"b": U}]}, {"a": [1, {"b": UNKNOWN}]}),
])
def test_clean(raw, value):
    assert clean(raw) == value if value is not UNKNOWN else clean(raw) is UNKNOWN


def _step_doc(inputs: dict) -> dict:
    state = {"urn": urn(SUB_T, "a"), "type": SUB_T, "inputs": inputs, "outputs": {"tags": ["[secret]"]}}
    return {"steps": [{"op": "create", "urn": state["urn"], "newState": state}]}


def test_a_preview_s_masked_secret_is_unknown_wherever_it_stands():
    """`pulumi preview --json` writes each secret value as the text "[secret]" (pkg/backend/display/json.go,
    massagePropertyValue), of whatever type the value was: a preview never holds it."""
    inputs = {"cidrBlock": "[secret]", "tags": {"Name": "[secret]", "team": "ml"}, "ids": [1, ["[secret]"]],
              "note": "[secret] x", "keep": {"a": [1, 2]}}
    (res,) = resources_from_json(_step_doc(inputs), "p.json")
    assert res.props == {"cidrBlock": U, "tags": {"Name": U, "team": "ml"}, "ids": [1, [U]],
                         "note": "[secret] x", "keep": {"a": [1, 2]}}
    assert res.props["keep"] is inputs["keep"]  # a part holding none is not copied
    assert inputs["cidrBlock"] == "[secret]"  # the parsed document is left as it was
    assert clean(res.props)["cidrBlock"] is UNKNOWN


def test_a_state_export_s_text_secret_is_the_text():
    """`pulumi stack export` writes a secret as its ciphertext object: "[secret]" there is what the program wrote."""
    state = {"urn": urn(SUB_T, "a"), "type": SUB_T, "inputs": {"cidrBlock": "[secret]"}}
    (res,) = resources_from_json({"deployment": {"resources": [state]}}, "s.json")
    assert res.props == {"cidrBlock": "[secret]"}


def test_clean_rejects_an_unknown_signature():
    with pytest.raises(InputError, match="unrecognised Pulumi value signature"):
        clean({SIG: "nope"})


@pytest.mark.parametrize("token,api", [
    ("kubernetes:apps/v1:Deployment", ("apps/v1", "Deployment")),
    ("kubernetes:core/v1:Service", ("v1", "Service")),
    ("kubernetes:networking.k8s.io/v1:NetworkPolicy", ("networking.k8s.io/v1", "NetworkPolicy")),
    ("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")),
    ("kubernetes:keda.sh/v1alpha1:ScaledObject", ("keda.sh/v1alpha1", "ScaledObject")),
    ("kubernetes:karpenter.sh/v1:NodePool", ("karpenter.sh/v1", "NodePool")),
    ("kubernetes:apps/v1:DeploymentPatch", None),
    ("kubernetes:core/v1:ServiceList", None),
    ("kubernetes:yaml/v2:ConfigGroup", None),
    ("kubernetes:helm.sh/v4:Chart", None),
    ("pulumi:providers:kubernetes", None),
    ("aws:eks/nodeGroup:NodeGroup", None),
])
def test_kubernetes_api(token, api):
    assert kubernetes_api(token) == api


# --- AWS resources --------------------------------------------------------------------------------


def network(sg_props: dict | None = None, lt_props: dict | None = None, ng_props: dict | None = None,
            ng_deps: dict | None = None) -> list[PulumiResource]:
    return [
        res(SG_T, "gpu-nodes", sg_props or {"ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0,
                                                         "self": True}]}, id="sg-1"),
        res(SUB_T, "private-a", {"mapPublicIpOnLaunch": False, "availabilityZone": "us-east-1a"}, id="subnet-a"),
        res(PG_T, "cluster", {"strategy": "cluster", "name": "h100-cluster"}),
        res(LT_T, "gpu-lt", lt_props or {
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1.0},
            "networkInterfaces": [{"interfaceType": "efa", "securityGroups": ["sg-1", "sg-cluster"]}],
            "placement": {"groupName": "h100-cluster"},
        }, id="lt-1"),
        res(NG_T, "h100-ng", ng_props or {
            "instanceTypes": ["p5.48xlarge"],
            "capacityType": "ON_DEMAND",
            "labels": {"shardwise.dev/pool": "h100"},
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
            "subnetIds": ["subnet-a"],
            "launchTemplate": {"id": "lt-1", "version": "1"},
        }, property_dependencies=ng_deps or {}),
    ]


def test_node_group_becomes_a_pool_with_its_launch_template_network():
    inv = inventory_from_resources(network())
    [pool] = inv.pools
    assert (pool.name, pool.kind, pool.instance_type, pool.gpu.name, pool.gpus_per_node, pool.interconnect) == (
        "h100", "eks-nodegroup", "p5.48xlarge", "H100-SXM-80GB", 8, "nvswitch")
    assert pool.labels == {
        "shardwise.dev/pool": "h100", "eks.amazonaws.com/nodegroup": "h100",
        "eks.amazonaws.com/capacityType": "ON_DEMAND", "node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert pool.taints == [Taint("nvidia.com/gpu", "true", "NoSchedule")]
    assert pool.capacity_type == "on-demand"
    assert pool.subnets == [urn(SUB_T, "private-a")]
    assert pool.launch_template == urn(LT_T, "gpu-lt")
    assert pool.security_groups == [urn(SG_T, "gpu-nodes"), "sg-cluster"]  # the cluster SG is not in the inputs
    assert (pool.efa, pool.placement_group) == (True, "h100-cluster")
    assert pool.location == Location(urn=urn(NG_T, "h100-ng"))
    [lt] = inv.launch_templates
    assert (lt.name, lt.id, lt.http_tokens, lt.http_put_response_hop_limit) == ("gpu-lt", "lt-1", "required", 1)
    [subnet] = inv.subnets
    assert (subnet.name, subnet.id, subnet.map_public_ip_on_launch, subnet.availability_zone) == (
        "private-a", "subnet-a", False, "us-east-1a")


def test_references_unknown_at_preview_resolve_through_property_dependencies():
    ng = {"instanceTypes": ["p5.48xlarge"], "subnetIds": [U],
          "launchTemplate": {"id": U, "version": U}, "labels": {"shardwise.dev/pool": "h100"}}
    lt = {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1},
          "networkInterfaces": [{"interfaceType": "efa", "securityGroups": [U]},
                                {"interfaceType": "efa-only", "securityGroups": [U]}],
          "placement": {"groupName": U}}
    resources = network(lt_props=lt, ng_props=ng, ng_deps={
        "launchTemplate": [urn(LT_T, "gpu-lt")], "subnetIds": [urn(SUB_T, "private-a")]})
    resources[3] = PulumiResource(LT_T, "gpu-lt", urn(LT_T, "gpu-lt"), lt, property_dependencies={
        "networkInterfaces": [urn(SG_T, "gpu-nodes")], "placement": [urn(PG_T, "cluster")]})
    [pool] = inventory_from_resources(resources).pools
    assert pool.launch_template == urn(LT_T, "gpu-lt")
    assert pool.subnets == [urn(SUB_T, "private-a")]
    assert pool.security_groups == [urn(SG_T, "gpu-nodes")]
    assert (pool.efa, pool.placement_group) == (True, "h100-cluster")


def test_an_unknown_reference_to_a_resource_outside_the_inputs_stays_unknown():
    # subnetIds depends on three subnets; one of them is not in the inputs (or could not be read)
    subnets = [urn(SUB_T, f"private-{z}") for z in "abc"]
    ng = {"instanceTypes": ["p5.48xlarge"], "subnetIds": [U, U, U]}
    resources = [res(SUB_T, f"private-{z}", {"mapPublicIpOnLaunch": False}) for z in "ab"]
    [pool] = inventory_from_resources([*resources, res(NG_T, "ng", ng, property_dependencies={
        "subnetIds": subnets})]).pools
    assert pool.subnets == [subnets[0], subnets[1], UNKNOWN]
    [pool] = inventory_from_resources([*resources, res(NG_T, "ng", {**ng, "subnetIds": U}, property_dependencies={
        "subnetIds": subnets})]).pools
    assert pool.subnets is UNKNOWN


def test_references_without_dependencies_stay_unknown():
    ng = {"instanceTypes": [U], "subnetIds": [U], "launchTemplate": {"id": U, "version": "1"}}
    [pool] = inventory_from_resources([res(NG_T, "gpu", ng)]).pools
    assert pool.name == "gpu"
    assert pool.launch_template is UNKNOWN and pool.security_groups is UNKNOWN and pool.efa is UNKNOWN
    assert pool.subnets == [UNKNOWN]
    assert pool.instance_type is UNKNOWN and pool.gpus_per_node is UNKNOWN


def test_launch_template_by_name_and_a_template_outside_the_inputs():
    named = network(ng_props={"instanceTypes": ["p5.48xlarge"], "launchTemplate": {"name": "gpu-lt"}})
    assert inventory_from_resources(named).pools[0].launch_template == urn(LT_T, "gpu-lt")
    outside = [res(NG_T, "ng", {"instanceTypes": ["p5.48xlarge"], "launchTemplate": {"id": "lt-elsewhere"}})]
    [pool] = inventory_from_resources(outside).pools
    # nothing of a template outside the inputs is known: not its security groups, EFA or placement
    assert pool.launch_template == "lt-elsewhere"
    assert pool.security_groups is UNKNOWN and pool.efa is UNKNOWN and pool.placement_group is UNKNOWN
    bare = [res(NG_T, "ng", {"instanceTypes": ["p5.48xlarge"]})]
    [pool] = inventory_from_resources(bare).pools
    assert (pool.launch_template, pool.security_groups, pool.efa) == (None, [], False)


def test_several_instance_types_make_one_pool_each():
    r = res(NG_T, "mixed", {"instanceTypes": ["p4d.24xlarge", "p5.48xlarge"]})
    assert [(p.name, p.gpu.name) for p in inventory_from_resources([r]).pools] == [
        ("mixed/p4d.24xlarge", "A100-40GB"), ("mixed/p5.48xlarge", "H100-SXM-80GB")]


def test_security_group_rules_inline_and_as_resources():
    sg = res(SG_T, "gpu-nodes", {
        "ingress": [{"protocol": "TCP", "fromPort": 6379.0, "toPort": 6379.0, "cidrBlocks": ["0.0.0.0/0"],
                     "securityGroups": ["sg-peer"]}],
        "egress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
    }, id="sg-1")
    vpc_rule = res(IN_T, "from-self", {"securityGroupId": U, "ipProtocol": "-1", "referencedSecurityGroupId": U},
                   property_dependencies={"securityGroupId": [sg.urn], "referencedSecurityGroupId": [sg.urn]})
    ec2_rule = res(RULE_T, "dash", {"type": "ingress", "protocol": "tcp", "fromPort": 8265, "toPort": 8265,
                                    "securityGroupId": "sg-1", "sourceSecurityGroupId": "sg-other",
                                    "tags": {"shardwise.dev/ignore": "SW301: bastion for on-call"}})
    orphan = res(IN_T, "elsewhere", {"securityGroupId": "sg-external", "ipProtocol": "tcp", "fromPort": 443,
                                     "toPort": 443, "cidrIpv4": "10.0.0.0/8"})
    inv = inventory_from_resources([sg, vpc_rule, ec2_rule, orphan])
    by = {s.name: s for s in inv.security_groups}
    rules = [(r.direction, r.protocol, r.from_port, r.to_port, r.cidrs, r.source_security_group, r.self_ref)
             for r in by["gpu-nodes"].rules]
    assert rules == [
        ("ingress", "tcp", 6379, 6379, ["0.0.0.0/0"], None, False),
        ("ingress", "tcp", 6379, 6379, [], "sg-peer", False),
        ("egress", "-1", 0, 65535, [], sg.urn, True),
        ("ingress", "-1", 0, 65535, [], sg.urn, True),
        ("ingress", "tcp", 8265, 8265, [], "sg-other", False),
    ]
    assert by["gpu-nodes"].suppressions == [
        Suppression("SW301", "bastion for on-call", Location(urn=ec2_rule.urn))]
    assert [(r.from_port, r.cidrs) for r in by["sg-external"].rules] == [(443, ["10.0.0.0/8"])]


def test_unknown_rule_lists_and_sources_stay_unknown():
    sg = res(SG_T, "gpu-nodes", {"ingress": U, "egress": [U]})
    rule = res(IN_T, "r", {"securityGroupId": U, "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379,
                           "referencedSecurityGroupId": U})
    inv = inventory_from_resources([sg, rule])
    assert all(r.protocol is UNKNOWN for r in inv.security_groups[0].rules)
    [placeholder] = [s for s in inv.security_groups if s.name == "r (security group unknown)"]
    assert placeholder.rules == [SgRule("ingress", "tcp", 6379, 6379, source_security_group=UNKNOWN,
                                        location=Location(urn=rule.urn))]


def test_aws_tags_carry_suppressions():
    lt = res(LT_T, "lt", {"tags": {"shardwise.dev/ignore": "SW304: vendor AMI; SW999"}})
    [t] = inventory_from_resources([lt]).launch_templates
    loc = Location(urn=lt.urn)
    assert t.suppressions == [Suppression("SW304", "vendor AMI", loc), Suppression("SW999", "", loc)]


# --- Kubernetes resources -------------------------------------------------------------------------

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"namespace": "serving", "annotations": {"shardwise.dev/ignore": "SW307: pinned by digest in CD"}},
    "spec": {
        "replicas": 2.0,
        "selector": {"matchLabels": {"app": "llama"}},
        "template": {
            "metadata": {"labels": {"app": "llama"}},
            "spec": {
                "nodeSelector": {"shardwise.dev/pool": "h100"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [{
                    "name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "command": ["vllm", "serve"],
                    "args": ["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4"],
                    "ports": [{"containerPort": 8000.0}],
                    "env": [{"name": "HF_TOKEN", "value": {SIG: "1b47061264138c4ac30d75fd1eb44270",
                                                           "value": "hf_x"}}],
                    "resources": {"limits": {"nvidia.com/gpu": 4.0}},
                }],
            },
        },
    },
}


def test_kubernetes_resources_go_through_the_kubernetes_adapter():
    d = res("kubernetes:apps/v1:Deployment", "llama", DEPLOYMENT)
    inv = inventory_from_resources([d, *network()])
    [g] = inv.groups
    loc = Location(urn=d.urn)
    assert (g.kind, g.namespace, g.name, g.replicas, g.gpus_per_pod) == ("Deployment", "serving", "llama", 2, 4)
    assert (g.engine.tensor_parallel_size, g.model.id, g.pool.name) == (4, "meta-llama/Llama-3.1-70B-Instruct", "h100")
    assert g.containers[0].ports == [8000] and g.containers[0].env == {"HF_TOKEN": "hf_x"}
    assert g.location == loc and g.containers[0].location == loc
    assert all(v.urn == d.urn for v in g.engine.locations.values())
    assert g.suppressions == [Suppression("SW307", "pinned by digest in CD", loc)]


def test_unknown_values_inside_a_manifest():
    spec = json.loads(json.dumps(DEPLOYMENT))
    spec["metadata"]["namespace"] = U
    spec["spec"]["replicas"] = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
    c = spec["spec"]["template"]["spec"]["containers"][0]
    c["image"] = U
    c["args"][2] = U
    c["env"] = [{"name": "VLLM_SERVER_DEV_MODE", "value": U}]
    c["livenessProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": U}
    [g] = inventory_from_resources([res("kubernetes:apps/v1:Deployment", "llama", spec)]).groups
    assert g.namespace == UNKNOWN_NAMESPACE == "<unknown>"
    assert g.replicas is UNKNOWN and g.engine.tensor_parallel_size is UNKNOWN
    vllm = g.containers[0]
    assert vllm.image is UNKNOWN and vllm.env["VLLM_SERVER_DEV_MODE"] is UNKNOWN
    assert vllm.probes["liveness"].period_seconds is UNKNOWN


def test_a_network_policy_with_an_unknown_field_never_selects_every_pod():
    np = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"namespace": "serving"},
          "spec": {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": U}}
    [p] = inventory_from_resources([res("kubernetes:networking.k8s.io/v1:NetworkPolicy", "deny", np)]).network_policies
    assert p.name == "deny" and not p.default_deny_ingress


def test_other_types_are_counted_and_bad_resources_are_reported_or_collected():
    ok = res("aws:ec2/vpc:Vpc", "vpc", {"cidrBlock": "10.0.0.0/16"})
    bad = res(SUB_T, "weird", {"mapPublicIpOnLaunch": "perhaps"})
    with pytest.raises(InputError) as e:
        inventory_from_resources([ok, bad])
    assert str(e.value) == f"{SUB_T} {bad.urn}: mapPublicIpOnLaunch: expected true or false, found 'perhaps'"
    errors: list = []
    inv = inventory_from_resources([ok, bad], errors=errors)
    assert errors == [(bad, "mapPublicIpOnLaunch: expected true or false, found 'perhaps'")]
    assert dict(inv.skipped) == {"aws:ec2/vpc:Vpc": 1}


# --- files ----------------------------------------------------------------------------------------


def export_doc() -> dict:
    return {"version": 3, "deployment": {"resources": [
        {"urn": "urn:pulumi:dev::gpu::pulumi:pulumi:Stack::gpu-dev", "type": "pulumi:pulumi:Stack"},
        {"urn": "urn:pulumi:dev::gpu::pulumi:providers:aws::default", "type": "pulumi:providers:aws"},
        {"urn": urn(SUB_T, "gone"), "type": SUB_T, "delete": True, "inputs": {}},
        {"urn": urn(SUB_T, "a"), "type": SUB_T, "id": "subnet-a",
         "inputs": {"mapPublicIpOnLaunch": False}, "outputs": {"mapPublicIpOnLaunch": True, "arn": "arn:a"}},
    ]}}


def test_stack_export_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export_doc(), indent=2))
    inv = load_pulumi_json(str(path))
    [s] = inv.subnets
    assert (s.name, s.id, s.map_public_ip_on_launch) == ("a", "subnet-a", False)  # inputs win over outputs
    assert s.location == Location(str(path), 20, urn(SUB_T, "a"))
    assert inv.sources == [str(path)]


def test_preview_file_skips_deletes_and_reads_new_state():
    doc = {"steps": [
        {"op": "delete", "urn": urn(SUB_T, "old"), "oldState": {"urn": urn(SUB_T, "old"), "type": SUB_T}},
        {"op": "create", "urn": urn(SUB_T, "new"),
         "newState": {"urn": urn(SUB_T, "new"), "type": SUB_T, "inputs": {"mapPublicIpOnLaunch": U},
                      "propertyDependencies": {"vpcId": ["urn:vpc"]}, "parent": "urn:parent"}},
    ], "changeSummary": {"create": 1, "delete": 1}}
    [r] = resources_from_json(doc, "preview.json")
    assert (r.name, r.parent, dict(r.property_dependencies)) == ("new", "urn:parent", {"vpcId": ("urn:vpc",)})
    [s] = inventory_from_resources([r]).subnets
    assert s.map_public_ip_on_launch is UNKNOWN


@pytest.mark.parametrize("doc,ok", [
    ({"version": 3, "deployment": {"resources": []}}, True),
    ({"steps": [], "changeSummary": {}}, True),
    ({"steps": [{"op": "same"}]}, True),
    ({"resources": [{"urn": "u", "type": "t"}]}, True),
    ({"apiVersion": "v1", "kind": "List", "items": []}, False),
    ([1, 2], False),
])
def test_is_pulumi_json(doc, ok):
    assert is_pulumi_json(doc) is ok


def test_lint_dispatches_preview_json_to_this_adapter(tmp_path):
    path = tmp_path / "preview.json"
    path.write_text(json.dumps({"steps": [{"op": "create", "urn": urn(SUB_T, "a"), "newState": {
        "urn": urn(SUB_T, "a"), "type": SUB_T, "inputs": {"mapPublicIpOnLaunch": True}}}]}))
    inv = load_inputs([str(path)])
    assert [(s.name, s.map_public_ip_on_launch, s.location.line) for s in inv.subnets] == [("a", True, 1)]


def test_a_document_that_is_not_pulumi_is_an_input_error():
    with pytest.raises(InputError, match="not a `pulumi preview --json` or `pulumi stack export` document"):
        resources_from_json({"hello": 1}, "x.json")


# --- the real program -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def prod_resources():
    from pulumi_mocks import ROOT, record

    return record(ROOT / "stacks" / "Pulumi.prod.yaml")


@pytest.mark.slow
def test_what_the_program_registers_for_prod_reads_back_whole(prod_resources):
    inv = inventory_from_resources([r.as_pulumi_resource() for r in prod_resources])
    pools = {p.name: p for p in inv.pools}
    # prod creates its cluster: its CPU system node group is a pool too, without GPUs
    assert sorted(pools) == ["h100", "h100-efa", "prod-cluster-system"]
    assert (pools.pop("prod-cluster-system").gpus_per_node, len(pools)) == (None, 2)
    # (the mocks put only the parent's type in a URN, the engine the whole chain)
    sg = "urn:pulumi:prod::shardwise::shardwise:network:RuntimeNetwork$aws:ec2/securityGroup:SecurityGroup::" \
         "prod-network-gpu-nodes"
    for p in pools.values():
        assert p.security_groups == [sg]  # the created cluster's security group is not known at preview
        assert p.launch_template.endswith(f"aws:ec2/launchTemplate:LaunchTemplate::prod-{p.name}-launch-template")
    assert (pools["h100-efa"].efa, pools["h100-efa"].placement_group, len(pools["h100-efa"].subnets)) == (
        True, "prod-h100-efa-placement", 1)
    assert (pools["h100"].efa, len(pools["h100"].subnets)) == (False, 3)
    [gpu_sg] = [s for s in inv.security_groups if s.location.urn == sg]
    # rule resources register concurrently under the mocks, so their order is not fixed
    assert sorted((r.direction, r.protocol, r.self_ref) for r in gpu_sg.rules) == [
        ("egress", "-1", True), ("egress", "tcp", False), ("ingress", "-1", True)]
    assert {(g.kind, g.name, g.pool.name) for g in inv.groups} == {
        ("Deployment", "llama-70b", "h100"), ("LeaderWorkerSet", "llama-405b", "h100-efa")}


@pytest.mark.slow
def test_a_resource_alone_of_a_type_not_read_alone_is_only_counted(prod_resources):
    """packspeed21: the policy pack answers ``Analyze`` at once for a type :func:`read_alone` says no. Each resource of
    the prod stack of such a type, alone, makes an inventory that only counts it as skipped; the odd types too (a
    security group's rule alone makes its group; a placement group alone is not even counted)."""
    from collections import Counter

    from shardwise.rules.model import Inventory

    alone = {r.type: r.as_pulumi_resource() for r in prod_resources if not read_alone(r.type)}
    for type_, one in alone.items():
        counted = Inventory() if type_ == PG_T else Inventory(skipped=Counter({type_: 1}))
        assert inventory_from_resources([one], errors=[], resolve=False) == counted, type_
    assert len(alone) == 26 and {"aws:iam/role:Role", "kubernetes:helm.sh/v3:Release", "pulumi:providers:kubernetes",
                                 "shardwise:vllm:VllmService"} <= set(alone)
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "in", {"securityGroupId": "sg-1",
                                                                                    "ipProtocol": "-1"})
    assert read_alone(rule.type) and len(inventory_from_resources([rule]).security_groups) == 1
    assert PG_T in alone
    for token in ("kubernetes:yaml/v2:ConfigGroup", "kubernetes:apps/v1:DeploymentPatch", "aws:iam/role:Role"):
        assert not read_alone(token) and kubernetes_api(token) is None
    assert read_alone("kubernetes:apps/v1:Deployment") and read_alone(SUB_T) and read_alone(NG_T)


def test_an_unknown_node_selector_makes_sw206_undecided_not_a_definite_finding():
    from shardwise.rules.checks.registry import rule_by_code
    from shardwise.rules.engine import run_rules

    spec = json.loads(json.dumps(DEPLOYMENT))
    spec["spec"]["template"]["spec"]["nodeSelector"] = {"shardwise.dev/pool": U}
    inv = inventory_from_resources([res("kubernetes:apps/v1:Deployment", "llama", spec), *network()])
    [g] = inv.groups
    assert (g.node_selector, g.pool) == (UNKNOWN, None)
    [f] = run_rules([rule_by_code("SW206")], inv)
    assert (f.level, f.undecided, f.message) == (  # advisory for a single-node workload
        "advisory", True, "cannot decide: the nodeSelector is not known "
        "(a computed value or an unresolved reference): lint the `pulumi up` state, or write the value as a literal")


def test_a_model_unknown_at_preview_makes_the_capacity_rules_undecided():
    from shardwise.rules.checks.registry import rule_by_code
    from shardwise.rules.engine import run_rules

    spec = json.loads(json.dumps(DEPLOYMENT))
    spec["spec"]["template"]["spec"]["containers"][0]["args"][0] = U
    inv = inventory_from_resources([res("kubernetes:apps/v1:Deployment", "llama", spec), *network()])
    [g] = inv.groups
    assert (g.engine.model, g.model, g.model_error) == (UNKNOWN, None, None)
    [f] = run_rules([rule_by_code("SW104")], inv)
    assert (f.level, f.undecided, f.message) == (
        "advisory", True, "cannot decide: the model is not known (a computed value or an unresolved reference): "
        "lint the `pulumi up` state, or write the value as a literal")


def test_a_capacity_block_node_group_takes_its_instance_type_from_the_launch_template():
    lt = {"instanceType": "p5.48xlarge", "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1}}
    ng = {"capacityType": "CAPACITY_BLOCK", "launchTemplate": {"name": "gpu-lt"},
          "labels": {"shardwise.dev/pool": "h100"}}
    [pool] = inventory_from_resources(network(lt_props=lt, ng_props=ng)).pools
    assert (pool.instance_type, pool.gpu.name, pool.gpus_per_node, pool.capacity_type) == (
        "p5.48xlarge", "H100-SXM-80GB", 8, "capacity-block")


def test_a_node_group_label_that_is_a_huge_integer_is_read_as_its_text(tmp_path):
    """fuzz14 (seed 14016, case 496): a stack export whose node group label held an integer past a float's range was
    an input error in Python's words ("OverflowError: int too large to convert to float"), the resource left out. A
    number is a label's text however large (as for any number there): the pool is read with it."""
    from repo_paths import ROOT

    doc = json.loads((ROOT / "tests/fixtures/rules/SW304/fail.json").read_text())
    ng = next(r for r in doc["deployment"]["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup")
    ng["inputs"]["labels"]["shardwise.dev/pool"] = 10**400
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc, indent=2))
    inv = load_pulumi_json(str(path))
    assert inv.errors == []
    assert ["1" + "0" * 400 in p.labels.values() for p in inv.pools].count(True) == 1


def test_a_preview_s_computed_backendref_namespace_is_not_the_routes_own():
    """An HTTPRoute's backendRef whose namespace is a computed output at preview (``namespace=ns.metadata.name``)
    names a namespace not known yet: never dropped as if it named none, which reads as the route's own (mend16)."""
    t = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"
    route = {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
             "metadata": {"name": "r", "namespace": "llm-d"},
             "spec": {"rules": [{"backendRefs": [{"name": "vllm", "namespace": U, "port": 8000},
                                                 {"name": "local", "port": 8000}]}]}}
    state = {"urn": urn(t, "r"), "type": t, "inputs": route, "outputs": {}}
    (res,) = resources_from_json({"steps": [{"op": "create", "urn": state["urn"], "newState": state}]}, "p.json")
    [ing] = inventory_from_resources([res]).ingresses
    assert ing.services == ["local"]
    assert [(r.kind, r.namespace, r.name, r.outside) for r in ing.remote_refs] == [
        ("Service", UNKNOWN_NAMESPACE, "vllm", False)]
    assert ing.remote_refs[0].permitted == "the namespace its backendRef names is a computed value"
