"""Issue 9, the Pulumi half: unknown and wrongly typed values in a preview fail closed.

Each test edits one property of a small ``pulumi preview --json`` document (a GPU node group, its
launch template and security group, a rule resource and a vLLM Deployment) the way the engine or a
hand-written program would write it, lints it with the CLI in-process and asserts the exact result:
exit status, and the findings (code, level, line, message) or the one error line (file:line, URN
and property path). The baseline document passes.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import DEP_T, IN_T, LT_T, NG_T, NP_T, RULE_T, SG_T, U, urn
from pulumi_preview import step as _step
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.pulumi import PulumiResource, inventory_from_resources
from shardwise.rules.app.cli import main
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import UNKNOWN

NOT_KNOWN = "is not known (a computed value or an unresolved reference)"
#: What decides a preview's unknown output (engine.what_decides: the resource has a URN)
AT_UP = "lint the `pulumi up` state, or write the value as a literal"
UNDECIDED = f"{NOT_KNOWN}: {AT_UP}"


def preview() -> dict[str, Any]:
    """The baseline preview: resources being created, ids unknown, references through dependencies."""
    sg = urn(SG_T, "gpu-nodes")
    return {"steps": [
        _step(SG_T, "gpu-nodes", {
            "description": "GPU nodes",
            "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
            "egress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
        }),
        _step(RULE_T, "gpu-nodes-https", {
            "type": "ingress", "protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["10.0.0.0/8"],
            "securityGroupId": U,
        }, {"securityGroupId": [sg]}),
        _step(LT_T, "gpu-lt", {
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1},
            "vpcSecurityGroupIds": [U],
        }, {"vpcSecurityGroupIds": [sg]}),
        _step(NG_T, "h100", {
            "clusterName": "llm", "instanceTypes": ["p5.48xlarge"], "labels": {"shardwise.dev/pool": "h100"},
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
            "launchTemplate": {"id": U, "version": U}, "subnetIds": ["subnet-0abc"],
            "scalingConfig": {"minSize": 1, "desiredSize": 2, "maxSize": 2},
        }, {"launchTemplate": [urn(LT_T, "gpu-lt")]}),
        _step(DEP_T, "llama-8b", {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "llama-8b", "namespace": "serving"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "llama-8b"}}, "template": {
                "metadata": {"labels": {"app": "llama-8b"}},
                "spec": {
                    "nodeSelector": {"shardwise.dev/pool": "h100"},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{
                        "name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "32"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }],
                },
            }},
        }),
        _step(NP_T, "default-deny", {
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "default-deny", "namespace": "serving"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
        }),
    ], "changeSummary": {"create": 6}}


SG, RULE, LT, NG, DEP = range(5)
#: Lines of each resource's "urn" in the baseline document as written by :func:`lint` (an error
#: names the line of the resource it is about, which an edit of that resource does not move).
LINE = {SG: 5, RULE: 33, LT: 57, NG: 80, DEP: 122}
#: How :func:`lint` names the line of a finding: by its resource.
AT = {SG: "gpu-nodes", RULE: "gpu-nodes-https", LT: "gpu-lt", NG: "h100", DEP: "llama-8b"}


def inputs(doc: dict[str, Any], i: int) -> dict[str, Any]:
    props: dict[str, Any] = doc["steps"][i]["newState"]["inputs"]
    return props


def lint(tmp_path: Path, edit: Callable[[dict[str, Any]], object] | None = None
         ) -> tuple[int, str, list[tuple[str, str, Any, str]]]:
    """(exit status, error lines with the file written as ``p.json``, findings as (code, level, where,
    message)), where ``where`` names the resource whose URN is on the finding's line (its line number
    when none is)."""
    doc = preview()
    if edit is not None:
        edit(doc)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    out = tmp_path / "report.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lint", str(path), "--format", "json", "--output", str(out)])
    text = path.read_text(encoding="utf-8").splitlines()
    # a finding's line, named by the resource whose "urn" is written on it (the step's, first)
    names: dict[int, str] = {}
    for n, line in reversed(list(enumerate(text, 1))):
        if line.strip().startswith('"urn": "urn:pulumi:'):
            names[n] = line.rsplit("::", 1)[-1].rstrip('",')
    findings = []
    if code in (0, 1):
        for f in json.loads(out.read_text(encoding="utf-8"))["findings"]:
            assert not f["internal"], f
            findings.append((f["code"], f["level"], names.get(f["line"], f["line"]), f["message"]))
    lines = err.getvalue().replace(str(path), "p.json").splitlines(keepends=True)
    # the input errors alone: not the summary, nor the blocking findings stderr repeats when the report is in a file
    errors = "".join(line for line in lines if line.startswith("shardwise: error: "))
    return code, errors, sorted(findings)


def error(tmp_path: Path, edit: Callable[[dict[str, Any]], object]) -> str:
    code, err, _ = lint(tmp_path, edit)
    assert code == 2, err
    return err


def test_the_baseline_preview_passes(tmp_path):
    assert lint(tmp_path) == (0, "", [])


# --- 2: an unknown inline cidrBlocks or rule type is "cannot decide", never a TypeError ----------------


def test_unknown_inline_cidr_blocks_on_a_runtime_port_cannot_be_decided(tmp_path):
    rule = {"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": U}
    assert lint(tmp_path, lambda d: inputs(d, SG)["ingress"].append(rule)) == (1, "", [
        ("SW301", "mandatory", AT[SG], f"SW301: cannot decide: cidr_blocks of a security group rule {UNDECIDED}"),
        ])


@pytest.mark.parametrize("key", ["cidrBlocks", "ipv6CidrBlocks", "prefixListIds"])
def test_unknown_inline_sources_off_the_runtime_ports_do_not_matter(tmp_path, key):
    rule = {"protocol": "tcp", "fromPort": 443, "toPort": 443, key: U}
    assert lint(tmp_path, lambda d: inputs(d, SG)["ingress"].append(rule)) == (0, "", [])


def test_an_unknown_entry_of_the_inline_cidr_list_cannot_be_decided(tmp_path):
    rule = {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["10.0.0.0/8", U]}
    assert lint(tmp_path, lambda d: inputs(d, SG)["ingress"].append(rule))[2][0] == (
        "SW301", "mandatory", AT[SG], f"SW301: cannot decide: a CIDR block of a security group rule {UNDECIDED}")


def test_unknown_rule_type_cannot_be_decided(tmp_path):
    def edit(d):
        inputs(d, RULE).update(type=U, fromPort=6379, toPort=6379, cidrBlocks=["0.0.0.0/0"])
    assert lint(tmp_path, edit) == (1, "", [
        ("SW301", "mandatory", AT[SG], "SW301: cannot decide: type (ingress or egress) of a rule of security "
                                         f"group `gpu-nodes` {UNDECIDED}"),
        ])


def test_unknown_rule_type_that_could_only_be_harmless_passes(tmp_path):
    assert lint(tmp_path, lambda d: inputs(d, RULE).update(type=U)) == (0, "", [])


def _efa_resources(self_rules: list[dict[str, Any]]) -> list[PulumiResource]:
    sg = urn(SG_T, "efa")
    return [
        PulumiResource(SG_T, "efa", sg, {"egress": []}),
        *(PulumiResource(RULE_T, f"efa-{i}", urn(RULE_T, f"efa-{i}"),
                         {"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True, "securityGroupId": U, **r},
                         property_dependencies={"securityGroupId": (sg,)}) for i, r in enumerate(self_rules)),
        PulumiResource(LT_T, "efa-lt", urn(LT_T, "efa-lt"), {
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1},
            "networkInterfaces": [{"deviceIndex": 0, "interfaceType": "efa", "securityGroups": [U]}]},
            property_dependencies={"networkInterfaces": (sg,)}),
        PulumiResource(NG_T, "p5", urn(NG_T, "p5"), {
            "instanceTypes": ["p5.48xlarge"], "subnetIds": ["subnet-0abc"], "launchTemplate": {"id": U}},
            property_dependencies={"launchTemplate": (urn(LT_T, "efa-lt"),)}),
    ]


@pytest.mark.parametrize(("self_rules", "messages"), [
    ([{"type": "ingress"}, {"type": "egress"}], []),
    ([{"type": "ingress"}, {"type": U}], [
        f"cannot decide: type (ingress or egress) of a self-referencing rule of security group `efa` "
        f"{UNDECIDED}"]),
    ([{"type": "ingress"}, {"type": "egress"}, {"type": U}], []),  # both directions are there anyway
    ([{"type": "ingress"}], [
        "node pool `p5` has EFA interfaces but security group `efa` has no all-traffic self-referencing "
        "egress rule; EFA needs all traffic allowed from and to the group itself, inbound and outbound: add to `efa` "
        "an egress rule of protocol -1 (all traffic, ports 0 to 0) whose peer is the group itself (self: true)"]),
])
def test_efa_self_rule_of_unknown_type(self_rules, messages):
    inv = inventory_from_resources(_efa_resources(self_rules))
    found = [f.message for f in run_rules(ALL_RULES, inv, LintConfig()) if f.code == "SW302"]
    assert found == messages


# --- 3: unknown instance types with a GPU workload ------------------------------------------------------


def test_unknown_instance_types_with_a_gpu_workload_cannot_be_decided(tmp_path):
    memory = f"GPU memory of node pool `h100` {NOT_KNOWN}"
    # undecided capacity findings are advisory by default: reported, the run does not block; the report gives
    # one finding for the one unknown, naming the rules it holds back
    # (no SW103: no load is declared; no SW104/SW106: a TP1 replica is not sharded; no SW201: it fits any node, whatever its GPU count;
    # every capacity verdict is undecided and advisory, nothing blocks on what is not known)
    assert lint(tmp_path, lambda d: inputs(d, NG).update(instanceTypes=U)) == (0, "", [
        ("SW101", "advisory", AT[DEP], f"SW101: cannot decide: {memory}; this holds back SW101, SW102, SW206, "
         f"which are checked once the value is known: {AT_UP}"),
        ])


def test_an_unknown_instance_type_among_known_ones_is_its_own_pool(tmp_path):
    doc = preview()
    inputs(doc, NG)["instanceTypes"] = ["p5.48xlarge", U]
    pools = inventory_from_resources([PulumiResource(NG_T, "h100", urn(NG_T, "h100"), inputs(doc, NG))]).pools
    assert [(p.name, p.instance_type, p.gpus_per_node) for p in pools] == [
        ("h100/p5.48xlarge", "p5.48xlarge", 8), ("h100/<unknown>", UNKNOWN, UNKNOWN)]


# --- 6: a resource without a urn, or an entry that is not an object, names its line ---------------------


def test_a_preview_resource_without_urn_names_its_line(tmp_path):
    assert error(tmp_path, lambda d: d["steps"][LT]["newState"].pop("urn")) == (
        f"shardwise: error: p.json:{LINE[LT]}: steps[2].newState: a resource without a urn (a string)\n")


def test_a_preview_resource_whose_urn_is_not_a_string_names_its_line(tmp_path):
    def edit(d):
        d["steps"][LT]["urn"] = 7
        d["steps"][LT]["newState"]["urn"] = 7
    assert error(tmp_path, edit) == "shardwise: error: p.json:55: steps[2].newState: a resource without a urn (a string)\n"


@pytest.mark.parametrize(("value", "found"), [(5, "a number"), ([], "an array"), ("create", "a string")])
def test_a_step_that_is_not_an_object_names_its_line(tmp_path, value, found):
    def edit(d):
        d["steps"][RULE] = value
    assert error(tmp_path, edit) == (
        f"shardwise: error: p.json:31: steps[1]: a step is not an object (found {found})\n")


def test_a_new_state_that_is_not_an_object_names_its_line(tmp_path):
    def edit(d):
        d["steps"][RULE]["newState"] = ["x"]
    assert error(tmp_path, edit) == (
        "shardwise: error: p.json:33: steps[1].newState: expected a resource (an object), found an array\n")


def _export(tmp_path: Path, edit: Callable[[list[Any]], object]) -> str:
    doc = preview()
    resources = [{"urn": s["urn"], "custom": True, "type": s["newState"]["type"], "inputs": s["newState"]["inputs"],
                  "outputs": {}} for s in doc["steps"]]
    edit(resources)
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}, "resources": resources}}, indent=2))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["lint", str(path), "--format", "json", "--output", str(tmp_path / "r.json")]) == 2
    errors = [line for line in err.getvalue().splitlines(keepends=True) if line.startswith("shardwise: error: ")]
    return "".join(errors).replace(str(path), "state.json")  # the summary line after them left out


def test_a_state_entry_that_is_not_an_object_names_its_line(tmp_path):
    def edit(resources):
        resources[2] = "urn:pulumi:dev::llm::x"
    assert _export(tmp_path, edit) == (
        "shardwise: error: state.json:47: deployment.resources[2]: a resource entry is not an object "
        "(found a string)\n")


def test_a_state_entry_without_urn_names_its_line(tmp_path):
    def edit(resources):
        del resources[3]["urn"]
    assert _export(tmp_path, edit) == (
        "shardwise: error: state.json:62: deployment.resources[3]: a resource without a urn (a string)\n")


# --- 9: a managed prefix list is a source --------------------------------------------------------------

RAY_FROM = ("SW301: security group `gpu-nodes` allows tcp 6379 (Ray GCS) from {}, not only from itself; make the "
            "rule's source the group itself (a self-referencing rule: self = true, or source_security_group_id its "
            "own id)")


def _vpc_rule(d: dict[str, Any], **source: Any) -> None:
    d["steps"].append(_step(IN_T, "gpu-nodes-ray", {
        "securityGroupId": U, "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379, **source},
        {"securityGroupId": [urn(SG_T, "gpu-nodes")]}))


@pytest.mark.parametrize(("edit", "where", "source"), [
    (lambda d: inputs(d, RULE).update(fromPort=6379, toPort=6379, cidrBlocks=["10.1.0.0/16"]), AT[RULE],
     "10.1.0.0/16"),
    (lambda d: inputs(d, SG)["ingress"].append(
        {"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "prefixListIds": ["pl-0a1b2c3d"]}), AT[SG],
     "prefix list `pl-0a1b2c3d`"),
    (lambda d: inputs(d, RULE).update(fromPort=6379, toPort=6379, cidrBlocks=None, prefixListIds=["pl-0a1b2c3d"]),
     AT[RULE], "prefix list `pl-0a1b2c3d`"),
    (lambda d: _vpc_rule(d, prefixListId="pl-0a1b2c3d"), "gpu-nodes-ray", "prefix list `pl-0a1b2c3d`"),
    (lambda d: _vpc_rule(d, cidrIpv4="10.1.0.0/16"), "gpu-nodes-ray", "10.1.0.0/16"),
], ids=["cidr", "inline-prefix-list", "rule-prefix-lists", "vpc-rule-prefix-list", "vpc-rule-cidr"])
def test_a_prefix_list_source_is_blocked_like_a_cidr(tmp_path, edit, where, source):
    assert lint(tmp_path, edit) == (1, "", [
        ("SW301", "mandatory", where, RAY_FROM.format(source))])


def test_an_unknown_prefix_list_cannot_be_decided(tmp_path):
    def edit(d):
        inputs(d, RULE).update(fromPort=6379, toPort=6379, cidrBlocks=None, prefixListIds=[U])
    assert lint(tmp_path, edit) == (1, "", [
        ("SW301", "mandatory", AT[SG], f"SW301: cannot decide: a prefix list of a security group rule {UNDECIDED}"),
        ])


# --- 12: a value of the wrong type is an input error naming the property ---------------------------------


def _ingress(**entry: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d):
        inputs(d, SG)["ingress"].append({"protocol": "tcp", "fromPort": 6379, "toPort": 6379, **entry})
    return edit


SG_ERR = f"shardwise: error: p.json:{LINE[SG]}: {SG_T} {urn(SG_T, 'gpu-nodes')}: "
LT_ERR = f"shardwise: error: p.json:{LINE[LT]}: {LT_T} {urn(LT_T, 'gpu-lt')}: "
NG_ERR = f"shardwise: error: p.json:{LINE[NG]}: {NG_T} {urn(NG_T, 'h100')}: "
RULE_ERR = f"shardwise: error: p.json:{LINE[RULE]}: {RULE_T} {urn(RULE_T, 'gpu-nodes-https')}: "


@pytest.mark.parametrize(("edit", "message"), [
    (_ingress(cidrBlocks="0.0.0.0/0"), SG_ERR + "ingress[1].cidrBlocks: expected an array of strings, found a string"),
    (_ingress(cidrBlocks=[["0.0.0.0/0"]]), SG_ERR + "ingress[1].cidrBlocks[0]: expected a string, found an array"),
    (_ingress(protocol=["tcp"], cidrBlocks=["0.0.0.0/0"]),
     SG_ERR + "ingress[1].protocol: expected a string, found an array"),
    (_ingress(fromPort="6379-ish", cidrBlocks=["0.0.0.0/0"]),
     SG_ERR + "ingress[1].fromPort: expected a whole number, found '6379-ish'"),
    (_ingress(toPort=70000, cidrBlocks=["0.0.0.0/0"]),
     SG_ERR + "ingress[1].toPort: 70000 is out of range (expected -1 to 65535)"),
    (_ingress(self="sometimes"), SG_ERR + "ingress[1].self: expected true or false, found 'sometimes'"),
    (_ingress(securityGroups="sg-1"), SG_ERR + "ingress[1].securityGroups: expected an array of strings, found a string"),
    (lambda d: inputs(d, SG).update(ingress={"protocol": "-1"}),
     SG_ERR + "ingress: expected an array of objects, found an object"),
    (lambda d: inputs(d, SG).update(egress=["all"]), SG_ERR + "egress[0]: expected an object, found a string"),
    (lambda d: inputs(d, SG).update(tags=["shardwise.dev/ignore"]), SG_ERR + "tags: expected an object, found an array"),
    (lambda d: inputs(d, RULE).update(cidrBlocks="10.0.0.0/8"),
     RULE_ERR + "cidrBlocks: expected an array of strings, found a string"),
    (lambda d: inputs(d, RULE).update(type="inbound"), RULE_ERR + "type: expected \"ingress\" or \"egress\", found 'inbound'"),
    (lambda d: inputs(d, RULE).update(securityGroupId=["sg-1"]),
     RULE_ERR + "securityGroupId: expected a string, found an array"),
    (lambda d: inputs(d, NG).update(subnetIds="subnet-0abc"),
     NG_ERR + "subnetIds: expected an array of strings, found a string"),
    (lambda d: inputs(d, NG).update(instanceTypes="p5.48xlarge"),
     NG_ERR + "instanceTypes: expected an array of strings, found a string"),
    (lambda d: inputs(d, NG).update(labels=["shardwise.dev/pool=h100"]), NG_ERR + "labels: expected an object, found an array"),
    (lambda d: inputs(d, NG).update(taints={"key": "nvidia.com/gpu"}),
     NG_ERR + "taints: expected an array of objects, found an object"),
    (lambda d: inputs(d, NG)["taints"][0].update(effect="NoScheduleAtAll"),
     NG_ERR + "taints[0].effect: expected NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE, found 'NoScheduleAtAll'"),
    (lambda d: inputs(d, NG)["taints"][0].pop("key"), NG_ERR + "taints[0].key: a taint needs a key"),
    (lambda d: inputs(d, NG).update(launchTemplate="lt-1"), NG_ERR + "launchTemplate: expected an object, found a string"),
    (lambda d: inputs(d, LT).update(networkInterfaces={"interfaceType": "efa"}),
     LT_ERR + "networkInterfaces: expected an array of objects, found an object"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[{"interfaceType": ["efa"]}]),
     LT_ERR + "networkInterfaces[0].interfaceType: expected a string, found an array"),
    (lambda d: inputs(d, LT).update(vpcSecurityGroupIds="sg-1"),
     LT_ERR + "vpcSecurityGroupIds: expected an array of strings, found a string"),
    (lambda d: inputs(d, LT).update(metadataOptions=[{"httpTokens": "required"}]),
     LT_ERR + "metadataOptions: expected an object, found an array"),
    (lambda d: inputs(d, LT)["metadataOptions"].update(httpTokens=True),
     LT_ERR + "metadataOptions.httpTokens: expected a string, found a boolean"),
    # values AWS rejects are input errors, never read as safe (issue 29): a null subnet, an asset for an interface
    (lambda d: inputs(d, NG).update(subnetIds=[None]), NG_ERR + "subnetIds[0]: expected a string, found null"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[
        {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17", "path": "eni.json"}]),
     LT_ERR + "networkInterfaces[0]: expected an object, found an asset or archive"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[None]), LT_ERR + "networkInterfaces[0]: expected an object, "
                                                                         "found null"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[{"deviceIndex": 0, "interfaceType": "efa"}, None]),
     LT_ERR + "networkInterfaces[1]: expected an object, found null"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[{"deviceIndex": 0, "associatePublicIpAddress": "yes"}]),
     LT_ERR + "networkInterfaces[0].associatePublicIpAddress: expected \"true\" or \"false\", found 'yes'"),
    (lambda d: inputs(d, LT).update(networkInterfaces=[{"deviceIndex": 0, "associatePublicIpAddress": 1}]),
     LT_ERR + "networkInterfaces[0].associatePublicIpAddress: expected \"true\" or \"false\", found a number"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None)
def test_a_wrongly_typed_value_is_an_input_error_naming_the_property(tmp_path, edit, message):
    assert error(tmp_path, edit) == message + "\n"


# --- 15: a launch template outside the inputs leaves the pool's security groups unknown -------------------


def test_a_launch_template_outside_the_inputs_cannot_be_decided(tmp_path):
    def edit(d):
        inputs(d, NG)["launchTemplate"] = {"id": "lt-0elsewhere", "version": "1"}
        del d["steps"][NG]["newState"]["propertyDependencies"]
    assert lint(tmp_path, edit) == (1, "", [
        ("SW301", "mandatory", AT[NG], f"SW301: cannot decide: the security-group list of node pool `h100` {UNDECIDED}"),
        ("SW302", "mandatory", AT[NG], "SW302: cannot decide: whether node pool `h100` has EFA interfaces "
                                         f"{UNDECIDED}"),
        ("SW304", "mandatory", AT[NG], "SW304: cannot decide: node pool `h100` uses launch template `lt-0elsewhere`, "
                                         "which is not in the inputs"),
        ])


# --- 19: a taint whose key is unknown is kept -------------------------------------------------------------


def _pool_of_the_workload(tmp_path: Path, edit: Callable[[dict[str, Any]], object]) -> str | None:
    doc = preview()
    edit(doc)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    [group] = load_inputs([str(path)], jobs=1).groups
    return group.pool.name if group.pool is not None else None


@pytest.mark.parametrize(("field", "tolerations", "pool"), [
    ("key", [], None),
    ("effect", [], None),
    ("value", [], None),
    ("key", [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], None),  # may be another key
    ("key", [{"operator": "Exists"}], "h100"),  # tolerates every taint
    ("effect", [{"key": "nvidia.com/gpu", "operator": "Exists"}], "h100"),  # any effect of that key
    ("value", [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], "h100"),  # any value
    ("value", [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}], None),
])
def test_an_unknown_taint_is_tolerated_only_by_a_toleration_that_takes_any_value_of_it(
        tmp_path, field, tolerations, pool):
    def edit(d):
        inputs(d, NG)["taints"][0][field] = U
        inputs(d, DEP)["spec"]["template"]["spec"]["tolerations"] = tolerations
    assert _pool_of_the_workload(tmp_path, edit) == pool


@pytest.mark.parametrize(("tolerations", "pool"), [([], None), ([{"operator": "Exists"}], "h100")])
def test_an_unknown_taint_list_is_tolerated_only_by_tolerating_everything(tmp_path, tolerations, pool):
    def edit(d):
        inputs(d, NG)["taints"] = U
        inputs(d, DEP)["spec"]["template"]["spec"]["tolerations"] = tolerations
    assert _pool_of_the_workload(tmp_path, edit) == pool


# --- 22: values AWS rejects ---------------------------------------------------------------------------------


@pytest.mark.parametrize("hops", [0, -1, 65])
def test_a_hop_limit_aws_rejects_is_an_input_error(tmp_path, hops):
    assert error(tmp_path, lambda d: inputs(d, LT)["metadataOptions"].update(httpPutResponseHopLimit=hops)) == (
        f"{LT_ERR}metadataOptions.httpPutResponseHopLimit: {hops} is out of range (AWS accepts 1 to 64)\n")


@pytest.mark.parametrize("hops", [1, 64, U])
def test_a_hop_limit_aws_accepts_is_read(tmp_path, hops):
    code, err, findings = lint(tmp_path, lambda d: inputs(d, LT)["metadataOptions"].update(httpPutResponseHopLimit=hops))
    expected = {
        1: [],
        64: [("SW304", "mandatory", AT[LT], "SW304: launch template `gpu-lt` of node pool `h100` sets "
                                              "http_put_response_hop_limit = 64, so pods can take the node's IAM "
                                              "credentials; set http_put_response_hop_limit = 1")],
        U: [("SW304", "mandatory", AT[LT], "SW304: cannot decide: http_put_response_hop_limit of launch template "
                                             f"`gpu-lt` {UNDECIDED}")],
    }[hops]
    assert (code, err, findings) == (1 if expected else 0, "", sorted(expected))


def test_the_baseline_document_is_the_one_the_line_table_describes():
    text = json.dumps(preview(), indent=2).splitlines()
    for i, line in LINE.items():
        assert text[line - 1].strip().startswith('"urn": "') and copy.deepcopy(preview())["steps"][i]["urn"] in text[line - 1]


# --- a launch template's interface that asks for a public IP (SW303) ---------------------------------------


@pytest.mark.parametrize(("value", "found"), [
    ("true", [("SW303", "mandatory", AT[LT], "SW303: node pool `h100` launches GPU nodes with a public IP: a network "
                                              "interface of its launch template `gpu-lt` sets associatePublicIpAddress "
                                              "= true, which gives the node a public address in any subnet; GPU nodes "
                                              "must have private addresses only")]),
    (True, [("SW303", "mandatory", AT[LT], "SW303: node pool `h100` launches GPU nodes with a public IP: a network "
                                            "interface of its launch template `gpu-lt` sets associatePublicIpAddress "
                                            "= true, which gives the node a public address in any subnet; GPU nodes "
                                            "must have private addresses only")]),
    (U, [("SW303", "mandatory", AT[NG], "SW303: cannot decide: associatePublicIpAddress of launch template `gpu-lt` "
                                         f"of node pool `h100` {UNDECIDED}")]),
    ("false", []),
], ids=["true", "boolean", "unknown", "false"])
def test_an_interface_that_asks_for_a_public_ip_blocks_in_any_subnet(tmp_path, value, found):
    """EC2 gives an interface with associatePublicIpAddress a public IPv4 whatever its subnet maps on launch: the
    node group's subnet here is one outside the inputs, which SW303 cannot see."""
    def edit(d):
        inputs(d, LT)["networkInterfaces"] = [{"deviceIndex": 0, "associatePublicIpAddress": value,
                                               "securityGroups": [U]}]
        d["steps"][LT]["newState"]["propertyDependencies"]["networkInterfaces"] = [urn(SG_T, "gpu-nodes")]
    code, errors, findings = lint(tmp_path, edit)
    assert (code, errors, [f for f in findings if f[0] == "SW303"]) == (1 if found else 0, "", found)


# --- fuzz16: the pack's inputs with a Kubernetes object's name, namespace, metadata or selector of another type ------

DEP_ERR = f"shardwise: error: p.json:{LINE[DEP]}: {DEP_T} {urn(DEP_T, 'llama-8b')}: "
REFUSED = "; Kubernetes refuses the object as written"


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: inputs(d, DEP)["metadata"].update(name={"x": "llama-8b"}),
     "metadata.name: expected a string, found an object"),
    (lambda d: inputs(d, DEP)["metadata"].update(namespace=["serving"]),
     "metadata.namespace: expected a string, found an array"),
    (lambda d: inputs(d, DEP)["metadata"].update(name=8), "metadata.name: expected a string, found a number"),
    (lambda d: inputs(d, DEP).update(metadata=[{"name": "llama-8b"}]), "metadata: expected an object, found an array"),
    (lambda d: inputs(d, DEP)["spec"]["template"]["spec"]["nodeSelector"].update({"shardwise.dev/pool": {"x": "h100"}}),
     "nodeSelector.shardwise.dev/pool: expected a string, found a mapping"),
], ids=["name-object", "namespace-array", "name-number", "metadata-array", "selector-value-object"])
def test_a_kubernetes_object_named_by_another_type_is_an_input_error(tmp_path, edit, message):
    """fuzz16 (the pack-input probe): a Deployment's ``metadata.name`` or ``namespace`` of another type was read as its
    Python text (findings on ``Deployment serving/{'x': 'llama-8b'}``, a namespace ``{'x': 'serving'}`` without a
    default-deny policy), a ``metadata`` array as an empty one, and a nodeSelector value that is an object as the
    label value ``{'x': 'h100'}`` (SW206, no pool matched). The Kubernetes provider refuses each, as the YAML reader
    does: an input error naming the URN and the property, nothing read from the object."""
    assert error(tmp_path, edit) == DEP_ERR + message + REFUSED + "\n"
