"""Every security-relevant path of a preview, made unknown, still blocks with the rule that decides on it.

A ``pulumi preview --json`` of a serving namespace (a vLLM Deployment, its ClusterIP Service and Ingress, a
default-deny NetworkPolicy, a multi-node LeaderWorkerSet, a Karpenter NodePool with its EC2NodeClass, and an
EC2NodeClass that allows IMDSv1 which no NodePool uses) and of the AWS side of an EKS node group
(:func:`pulumi_preview.stack_preview`'s security group, its rules, subnet, placement group, EFA launch template
and node group) gives no blocking finding of the rules below. For each
:class:`Case` a value at one path makes a security rule block; then that path *and every path above it* (the
container, the pod spec, the whole ``spec``...) set to the engine's unknown sentinel must make the same rule
block (mandatory: "cannot decide" or the finding itself) — in ``shardwise lint`` of the preview file and in the
policy pack's analysis of the same resources. At preview a whole unknown part of a workload is exactly when the
gate matters (DESIGN.md, "Unknown, and what is not").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import DEP_T, LT_T, NG_T, NP_T, PG_T, SG_T, SUB_T, SVC_T, U, lint_document, stack_preview, step
from shardwise.rules.adapters.pulumi import resources_from_json
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES

LWS_T = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
ING_T = "kubernetes:networking.k8s.io/v1:Ingress"
NODEPOOL_T = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS_T = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
DEV_MODE = "VLLM_SERVER_DEV_MODE"
SECURITY = ("SW301", "SW302", "SW303", "SW304", "SW305", "SW306", "SW308", "SW309", "SW310")
#: The security rules safe to skip on an unknown: they still say they cannot decide (advisory), never nothing.
NOTED = ("SW307", "SW311", "SW312")
#: The AWS resources of stack_preview, in its order.
AWS_TYPES = (SG_T, SUB_T, PG_T, LT_T, NG_T)

DEP, SVC, ING, NP, LWS, NODEPOOL, NODECLASS, LEGACY, SG, SUBNET, PG, LT, NG = range(13)
NAMES = ["Deployment", "Service", "Ingress", "NetworkPolicy", "LeaderWorkerSet", "NodePool", "EC2NodeClass",
         "EC2NodeClass(legacy)", "SecurityGroup", "Subnet", "PlacementGroup", "LaunchTemplate", "NodeGroup"]


def _container(args: list[str], **more: Any) -> dict[str, Any]:
    return {"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": args,
            "env": [{"name": DEV_MODE, "value": "0"}, {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}],
            "ports": [{"name": "http", "containerPort": 8000}], **more}


def _pod(labels: dict[str, str], container: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"labels": labels}, "spec": {
        "nodeSelector": {"karpenter.sh/nodepool": "gpu"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [container]}}


def preview() -> dict[str, Any]:
    meta = {"namespace": "serving"}
    leader = _container(["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4",
                         "--pipeline-parallel-size", "2", "--distributed-executor-backend", "ray"],
                        resources={"limits": {"nvidia.com/gpu": 4}})
    worker = {"name": "ray", "image": "vllm/vllm-openai:v0.11.0",
              "command": ["/bin/sh", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"],
              "resources": {"limits": {"nvidia.com/gpu": 4}}}
    steps = [
        step(DEP_T, "llama", {"metadata": {"name": "llama", **meta}, "spec": {
            "replicas": 2, "selector": {"matchLabels": {"app": "llama"}},
            "template": _pod({"app": "llama"}, _container(
                ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"],
                resources={"limits": {"nvidia.com/gpu": 1}}))}}),
        # on this EKS stack a LoadBalancer is public only when its scheme says so (a ClusterIP ignores it)
        step(SVC_T, "llama", {"metadata": {"name": "llama", **meta, "annotations": {
            "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing"}}, "spec": {
            "type": "ClusterIP", "selector": {"app": "llama"},
            "ports": [{"name": "http", "port": 8000, "targetPort": "http"}]}}),
        step(ING_T, "llama", {"metadata": {"name": "llama", **meta}, "spec": {
            "ingressClassName": "internal-gateway",
            "rules": [{"http": {"paths": [{"path": "/v1", "pathType": "Prefix", "backend": {
                "service": {"name": "llama", "port": {"number": 8000}}}}]}}]}}),
        step(NP_T, "default-deny", {"metadata": {"name": "default-deny", **meta},
                                    "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}}),
        step(LWS_T, "big", {"metadata": {"name": "big", **meta}, "spec": {
            "replicas": 1, "leaderWorkerTemplate": {
                "size": 2, "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": _pod({"app": "big"}, leader),
                "workerTemplate": _pod({"app": "big"}, worker)}}}),
        step(NODEPOOL_T, "gpu", {"metadata": {"name": "gpu"}, "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                              "values": ["p4d.24xlarge"]}],
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}}}}),
        step(NODECLASS_T, "gpu", {"metadata": {"name": "gpu"}, "spec": {
            "amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole-llm",
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1}}}),
        step(NODECLASS_T, "legacy", {"metadata": {"name": "legacy"}, "spec": {
            "amiSelectorTerms": [{"alias": "al2@latest"}], "role": "KarpenterNodeRole-llm",
            "metadataOptions": {"httpTokens": "optional"}}}),
        *(s for s in stack_preview()["steps"] if s["newState"]["type"] in AWS_TYPES),
    ]
    return {"steps": steps, "changeSummary": {"create": len(steps)}}


Path_ = tuple[Any, ...]
C0 = ("spec", "template", "spec", "containers", 0)
LEADER_C0 = ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec", "containers", 0)
BACKEND = ("spec", "rules", 0, "http", "paths", 0, "backend", "service", "port", "number")


@dataclass(frozen=True)
class Case:
    res: int
    path: Path_
    bad: Any  # a value at path that makes `code` block
    code: str
    top: int = 1  # the shortest path above it that is still checked (1: from spec down)

    @property
    def paths(self) -> list[Path_]:
        return [self.path[:n] for n in range(len(self.path), self.top - 1, -1)]


CASES = [
    Case(DEP, (*C0, "env", 0, "value"), "1", "SW306"),
    Case(DEP, (*C0, "env", 1), {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}, "SW310"),
    Case(SVC, ("spec", "type"), "LoadBalancer", "SW306"),
    # the Ingress routes to the Service's port 8000: an unknown port entry may send it on to Ray's dashboard
    Case(SVC, ("spec", "ports", 0, "targetPort"), 8265, "SW301"),
    Case(ING, BACKEND, 8265, "SW301"),
    # the Service's targetPort `http` names this port: unknown, the Ingress may route to Ray's dashboard
    Case(DEP, (*C0, "ports", 0, "containerPort"), 8265, "SW301"),
    # an ALB's scheme, or the whole annotations map, not known may be internet-facing (read as absent before: an
    # internal ALB, advisory)
    Case(ING, ("metadata", "annotations"), {"alb.ingress.kubernetes.io/scheme": "internet-facing"}, "SW306", top=2),
    Case(ING, ("metadata", "annotations", "alb.ingress.kubernetes.io/scheme"), "internet-facing", "SW306", top=3),
    Case(NP, ("spec", "podSelector"), {"matchLabels": {"app": "llama"}}, "SW305"),
    Case(NP, ("spec", "policyTypes"), ["Egress"], "SW305"),
    Case(LWS, (*LEADER_C0, "env", 0, "value"), "1", "SW306"),
    Case(LWS, (*LEADER_C0, "env", 1), {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}, "SW310"),
    Case(NODECLASS, ("spec", "metadataOptions", "httpTokens"), "optional", "SW304"),
    Case(NODECLASS, ("spec", "metadataOptions", "httpPutResponseHopLimit"), 2, "SW304"),
    Case(NODEPOOL, ("spec", "template", "spec", "nodeClassRef", "name"), "legacy", "SW304"),
    Case(DEP, ("spec", "template", "spec", "hostNetwork"), True, "SW309"),
    Case(DEP, (*C0, "securityContext", "privileged"), True, "SW309"),
    Case(LWS, (*LEADER_C0, "securityContext", "capabilities", "add"), ["SYS_ADMIN"], "SW309"),
    # the AWS side: the node group's security group, subnet and launch template
    Case(SG, ("ingress", 0, "cidrBlocks"), ["0.0.0.0/0"], "SW301"),
    Case(SG, ("ingress", 0, "self"), False, "SW302"),
    Case(SG, ("egress", 0, "self"), False, "SW302"),
    Case(SUBNET, ("mapPublicIpOnLaunch",), True, "SW303"),
    Case(LT, ("metadataOptions", "httpTokens"), "optional", "SW304"),
    Case(LT, ("metadataOptions", "httpPutResponseHopLimit"), 2, "SW304"),
    Case(LT, ("networkInterfaces", 0, "associatePublicIpAddress"), "true", "SW303"),
    # a credential written in the env or on the command line: an env list, an entry or a word of the command line
    # not known may be one (silent before, from the entry up to the whole pod template)
    Case(DEP, (*C0, "env", 1), {"name": "HF_TOKEN", "value": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"}, "SW308"),
    Case(DEP, (*C0, "args", 1), "--api-key=sk-serving-key-1234", "SW308"),
    Case(LWS, (*LEADER_C0, "env", 1), {"name": "VLLM_API_KEY", "value": "serving-key-1234"}, "SW308"),
]
#: Values that make a rule of :data:`NOTED` report (advisory): the same paths made unknown must make it say it cannot
#: decide (silent before from the container up: a whole container, the pod spec, the template).
NOTED_CASES = [
    Case(DEP, (*C0, "image"), "vllm/vllm-openai:latest", "SW307"),
    Case(LWS, (*LEADER_C0, "image"), "vllm/vllm-openai", "SW307"),
    Case(DEP, (*C0, "env", 1), {"name": "PYTHONHTTPSVERIFY", "value": "0"}, "SW311"),
    Case(LWS, (*LEADER_C0, "env", 1), {"name": "CURL_CA_BUNDLE", "value": ""}, "SW311"),
    Case(LWS, (*LEADER_C0, "env", 1), {"name": "VLLM_ALLOW_RUNTIME_LORA_UPDATING", "value": "True"}, "SW312"),
]
NOTED_SWEEP = [(c, p) for c in NOTED_CASES for p in c.paths]
SWEEP = [(c, p) for c in CASES for p in c.paths]


def _with(res: int, path: Path_, value: Any) -> dict[str, Any]:
    doc = preview()
    node: Any = doc["steps"][res]["newState"]["inputs"]
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]  # a securityContext to add
    node[path[-1]] = copy.deepcopy(value)
    return doc


def _blocking(findings: list[dict[str, Any]]) -> set[str]:
    """The rules that block: each finding's ``codes`` (a merged "cannot decide" finding is of every rule it holds
    back, engine.merge_undecided)."""
    return {c for f in findings if f["level"] == "mandatory" and not f["suppressed"] for c in f["codes"]}


def _pack_blocking(doc: dict[str, Any]) -> set[str]:
    """The codes whose policy reports a violation (not a note) in the pack's stack and resource analyses."""
    resources = resources_from_json(doc, "p.json")
    context = crossguard.StackContext()
    out: set[str] = set()
    for analysis in [crossguard.stack_analysis(resources, context),
                     *(crossguard.resource_analysis(r, context) for r in resources)]:
        for rule in ALL_RULES:  # each policy runs where the pack runs it: on one resource, or on the stack
            if rule.meta.code in SECURITY and rule.meta.scope == analysis.scope:
                out.update(r.message[:5] for r in analysis.check(rule, None, context))
        assert analysis.internal == [], analysis.internal
    return out


def _pack_reported(doc: dict[str, Any], codes: tuple[str, ...]) -> set[str]:
    """The codes of ``codes`` whose policy reports anything (a violation or an advisory note) in the pack."""
    resources = resources_from_json(doc, "p.json")
    context = crossguard.StackContext()
    out: set[str] = set()
    for analysis in [crossguard.stack_analysis(resources, context),
                     *(crossguard.resource_analysis(r, context) for r in resources)]:
        for rule in ALL_RULES:
            if rule.meta.code in codes and rule.meta.scope == analysis.scope:
                out.update(r.message[:5] for r in analysis.check(rule, None, context))
    return out


def test_the_baseline_blocks_on_none_of_the_security_rules(tmp_path: Path) -> None:
    code, errors, findings = lint_document(tmp_path, preview())
    assert errors == ""
    assert _blocking(findings) & set(SECURITY) == set(), findings
    assert _pack_blocking(preview()) == set()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{NAMES[c.res]}:{c.code}:{'.'.join(map(str, c.path))}")
def test_the_value_blocks(tmp_path: Path, case: Case) -> None:
    doc = _with(case.res, case.path, case.bad)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, "") and case.code in _blocking(findings), findings
    assert case.code in _pack_blocking(doc)


@pytest.mark.slow  # a sweep over every case: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize(("case", "path"), SWEEP,
                         ids=[f"{NAMES[c.res]}:{c.code}:{'.'.join(map(str, p))}" for c, p in SWEEP])
def test_the_unknown_blocks_with_the_same_rule(tmp_path: Path, case: Case, path: Path_) -> None:
    doc = _with(case.res, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, ""), (errors, findings)
    assert case.code in _blocking(findings), [f["message"] for f in findings if case.code in f["codes"]]
    assert case.code in _pack_blocking(doc)


#: What ``pulumi preview --json`` writes in place of every secret value, of any type (pulumi/pulumi
#: pkg/backend/display/json.go, ``massagePropertyValue``): a program that builds a container, its env list or a port
#: from a secret Output (``pulumi.Config().require_secret``, ``Output.secret``) previews as this text
MASKED = "[secret]"


@pytest.mark.parametrize(("case", "path"), [
    (CASES[0], (*C0, "env", 0, "value")),  # the text "[secret]" is no "1": read as safe before
    (CASES[2], ("spec", "type")),  # "'[secret]' is not a Service type": an input error on a valid preview before
    (CASES[4], BACKEND[:-2]),  # the Ingress backend's service: no route read, silent before
    (CASES[-2], (*C0, "args", 1)),  # a word of the command line: no credential read, silent before
], ids=["env-value", "service-type", "ingress-backend", "args-word"])
def test_a_secret_the_preview_masks_blocks_with_the_same_rule(tmp_path: Path, case: Case, path: Path_) -> None:
    doc = _with(case.res, path, MASKED)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, ""), (errors, findings)
    assert case.code in _blocking(findings), [f["message"] for f in findings if case.code in f["codes"]]


#: What decides a masked secret (engine.runner.DECIDED_NEVER_SECRET): not the `pulumi up` state, which keeps it
#: encrypted (mend10: "lint the `pulumi up` state" was the advice).
NEVER_SHOWN = ("a secret's value is never shown (the `pulumi up` state keeps it encrypted) and shardwise never reads "
               "one: write the value as a literal if it need not be secret, else suppress the finding with the reason "
               "it is safe")


def test_a_masked_secret_gets_a_secret_s_advice_not_the_state_s(tmp_path: Path) -> None:
    """mend10: a value the preview masks as "[secret]" said "lint the `pulumi up` state", which masks it too. Where
    the resource's only unknowns are its secrets, the finding says what the rule needed, that the value is a secret,
    and that it is never shown; where the resource holds a computed value as well, the unknown may be either, and
    the advice says both."""
    svc = CASES[2]
    code, errors, findings = lint_document(tmp_path, _with(svc.res, ("spec", "type"), MASKED))
    assert (code, errors) == (1, "")
    assert [(f["codes"], f["level"], f["message"]) for f in findings if "SW301" in f["codes"]] == [
        (["SW301", "SW306"], "mandatory", "SW301: cannot decide: type of Service `llama` is not known (a secret the "
         "preview writes as `[secret]`); this holds back SW301, SW306, which block until the value is known: "
         + NEVER_SHOWN)]
    doc = _with(svc.res, ("spec", "type"), MASKED)
    doc["steps"][svc.res]["newState"]["inputs"]["metadata"]["annotations"] = {"owner": U}  # a computed value too
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, "")
    assert [(f["codes"], f["level"], f["message"]) for f in findings if "SW301" in f["codes"]] == [
        (["SW301", "SW306"], "mandatory", "SW301: cannot decide: type of Service `llama` is not known (a computed "
         "value or an unresolved reference); this holds back SW301, SW306, which block until the value is known: "
         "lint the `pulumi up` state, or write the value as a literal; if it is one of the values the preview masks "
         "as `[secret]`, no state shows it: write it as a literal if it need not be secret, else suppress the finding "
         "with the reason it is safe")]
    arg = CASES[-2]
    code, errors, findings = lint_document(tmp_path, _with(arg.res, (*C0, "args", 1), MASKED))
    assert (code, errors) == (1, "")
    assert [f["message"] for f in findings if f["codes"] == ["SW308"]] == [
        "SW308: cannot decide: whether container `vllm` passes --api-key or --hf-token a literal value: a word of its "
        f"command line is not known (a secret the preview writes as `[secret]`; {NEVER_SHOWN})"]
    # a whole securityContext masked: SW309's findings are at the Deployment's line but carry no URN (they said
    # "write it literally in the inputs ..., nor a computed output"); the line is the masked resource's alone
    code, errors, findings = lint_document(tmp_path, _with(CASES[0].res, (*C0, "securityContext"), MASKED))
    assert (code, errors) == (1, "")
    assert [(f["level"], f["message"]) for f in findings if f["codes"] == ["SW309"]] == [
        (level, f"SW309: cannot decide: {what} is not known (a secret the preview writes as `[secret]`): {NEVER_SHOWN}")
        for level, what in [("mandatory", "securityContext.privileged of container `vllm`"),
                            ("mandatory", "the capabilities container `vllm` adds"),
                            ("advisory", "the seccomp profile of container `vllm`")]]


def test_a_state_export_s_secret_text_is_no_masked_secret() -> None:
    """`pulumi stack export` writes a secret as its ciphertext object: "[secret]" there is what the program wrote, and
    the resource masks nothing (Inventory.masked is the preview's)."""
    doc = {"version": 3, "deployment": {"resources": [
        {"urn": "urn:pulumi:dev::p::kubernetes:core/v1:Service::llama", "type": "kubernetes:core/v1:Service",
         "inputs": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "llama"},
                    "spec": {"type": "[secret]"}}}]}}
    assert [r.masked for r in resources_from_json(doc, "s.json")] == [None]
    masked = _with(CASES[2].res, ("spec", "type"), MASKED)
    assert {r.name: r.masked for r in resources_from_json(masked, "p.json") if r.masked is not None} == {"llama": True}


@pytest.mark.slow
@pytest.mark.parametrize(("case", "path"), SWEEP,
                         ids=[f"{NAMES[c.res]}:{c.code}:{'.'.join(map(str, p))}" for c, p in SWEEP])
def test_every_masked_secret_blocks_as_the_unknown_does(tmp_path: Path, case: Case, path: Path_) -> None:
    doc = _with(case.res, path, MASKED)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, ""), (errors, findings)
    assert case.code in _blocking(findings), [f["message"] for f in findings if case.code in f["codes"]]


# --- a workload part that hides whether it runs vLLM at all ----------------------------------------------------

AT_PREVIEW = "is not known (a computed value at preview; lint the `pulumi up` state, or write the value as a literal)"


#: The launch, capacity and topology rules a workload not read holds back (advisory), as the merged note names them
LAUNCH = ["SW101", "SW102", "SW104", "SW105", "SW106", "SW201", "SW202", "SW203", "SW204", "SW205", "SW206", "SW207",
          "SW208", "SW209"]
RELIABILITY = ["SW401", "SW402", "SW407", "SW408"]
HELD_LAUNCH = (
    "SW003 (whether vLLM accepts its command line), SW101 (whether its model's weights fit its GPUs' memory), SW102 "
    "(whether its KV cache holds one request of max_model_len tokens), SW104 (whether it is sharded over more GPUs "
    "than its model needs), SW105 (whether its gpu_memory_utilization leaves vLLM headroom), SW106 (whether a "
    "lower-precision variant of its model would run on one GPU), SW201 (whether its tensor-parallel group fits one "
    "node), SW202 (whether its tensor-parallel group spans GPUs only PCIe joins), SW203 (whether its model's heads "
    "split over its tensor-parallel ranks), SW204 (whether its pods request the GPUs its layout starts workers on), "
    "SW205 (whether it spans nodes without a fast fabric), SW206 (whether a GPU pool of the inputs runs its pods), "
    "SW207 (whether it enables expert parallelism for a model without experts), SW208 (whether its pods request more "
    "GPUs than its layout uses), SW209 (whether its image is built for the accelerator it requests)")
HELD_RELIABILITY = (
    "SW401 (whether it mounts a memory-backed /dev/shm), SW402 (whether its probes give the model time to load), "
    "SW407 (whether a Service sends it traffic before its model loads), SW408 (whether it serves with a debugging "
    "switch on)")


def _codes(findings: list[dict[str, Any]], level: str = "mandatory") -> list[tuple[str, str]]:
    """(code, message) of each security rule's findings at ``level``: a merged "cannot decide" finding under each
    code it is of."""
    return sorted((c, f["message"]) for f in findings if f["level"] == level for c in f["codes"] if c in SECURITY)


def test_an_unknown_image_with_an_unknown_command_does_not_hide_the_container(tmp_path: Path) -> None:
    doc = preview()
    c = doc["steps"][DEP]["newState"]["inputs"]["spec"]["template"]["spec"]["containers"][0]
    c.update(image=U, command=U, args=U)
    code, errors, findings = lint_document(tmp_path, doc)
    part = "the image and command of container `vllm` (spec.template.spec.containers[0])"
    assert (code, errors) == (1, "")
    # one finding per level for the one unknown part, naming each rule it holds back and what it would read
    blocking = (f"SW306: cannot decide: {part} {AT_PREVIEW}; this holds back SW306 (whether its containers set "
                f"{DEV_MODE}), SW308 (whether its containers write a credential into the manifest), SW310 (whether "
                "its containers set NVIDIA_VISIBLE_DEVICES), which block until the value is known")
    assert [(f["codes"], f["level"], f["message"]) for f in findings if set(f["codes"]) & {*SECURITY, *NOTED}] == [
        (["SW003", *LAUNCH, "SW307", "SW311", "SW312", *RELIABILITY], "advisory",
         f"SW003: cannot decide: {part} {AT_PREVIEW}; this holds back {HELD_LAUNCH}, SW307 (whether its images are "
         "pinned to a release), SW311 (whether its containers switch TLS certificate verification off), SW312 "
         f"(whether its containers allow runtime LoRA loading without an API key), {HELD_RELIABILITY}, which are "
         "checked once the value is known"),
        (["SW306", "SW308", "SW310"], "mandatory", blocking),
    ]
    # the pack reports each policy's own (Pulumi judges each policy at its own level)
    assert _pack_blocking(doc) == {"SW306", "SW308", "SW310"}


def test_an_lws_whose_vllm_command_is_not_known_fails_closed_in_a_namespace_without_default_deny(
        tmp_path: Path) -> None:
    """The LeaderWorkerSet's leader runs Ray's head and its workers run vLLM: with the workers' command not known
    the group is not read at all, and its runtime ports are open to the namespace (no default-deny policy; the
    stack holds policies, so the gap is its own — with no policy in the input at all it would be advisory)."""
    doc = preview()
    lwt = doc["steps"][LWS]["newState"]["inputs"]["spec"]["leaderWorkerTemplate"]
    lwt["leaderTemplate"]["spec"]["containers"][0].update(
        args=None, command=["/bin/sh", "-c", "ray start --head --port=6379 --block"])
    lwt["workerTemplate"]["spec"]["containers"][0]["command"] = U
    # the stack keeps its policies, but the one of the namespace now selects only the Deployment's pods
    doc["steps"][NP]["newState"]["inputs"]["spec"]["podSelector"] = {"matchLabels": {"app": "llama"}}
    code, errors, findings = lint_document(tmp_path, doc)
    part = ("the command line of a container "
            "(spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].command)")
    assert (code, errors) == (1, "")
    assert [m for c, m in _codes(findings) if c == "SW305"] == [
        f"SW305: cannot decide: {part} {AT_PREVIEW}; this holds back SW305 (whether its namespace's pods can reach its "
        f"runtime ports), SW306 (whether its containers set {DEV_MODE}), SW308 (whether its containers write a "
        "credential into the manifest), SW310 (whether its containers set NVIDIA_VISIBLE_DEVICES), which block until "
        "the value is known"]
    # a stack that holds no network policy at all does not say the cluster has none: the same note, advisory
    del doc["steps"][NP]
    code, errors, findings = lint_document(tmp_path, doc)
    assert [m for c, m in _codes(findings) if c == "SW305"] == []
    assert [m for c, m in _codes(findings, "advisory") if c == "SW305" and "cannot decide" in m] == [
        f"SW003: cannot decide: {part} {AT_PREVIEW}; this holds back {HELD_LAUNCH}, SW305 (whether its namespace's "
        "pods can reach its runtime ports), SW307 (whether its images are pinned to a release), SW311 (whether its "
        "containers switch TLS certificate verification off), SW312 (whether its containers allow runtime LoRA "
        f"loading without an API key), {HELD_RELIABILITY}, which are checked once the value is known"]


# --- a value AWS rejects is an input error on that resource, in lint and in the pack (issue 29) ---------------


@pytest.mark.parametrize("interfaces", [[None], [{"deviceIndex": 0, "interfaceType": "efa", "securityGroups": [U]},
                                                 None]], ids=["only", "second"])
def test_a_null_network_interface_is_an_input_error_not_one_interface_fewer(tmp_path: Path,
                                                                             interfaces: list[Any]) -> None:
    """``networkInterfaces: [null]`` in a launch template: AWS rejects the template (an interface needs a device
    index). It was dropped, and the template read as having no interface (no EFA, no security group of its own)."""
    doc = stack_preview()
    [lt] = [s for s in doc["steps"] if s["newState"]["type"] == LT_T]
    lt["newState"]["inputs"]["networkInterfaces"] = interfaces
    code, errors, _ = lint_document(tmp_path, doc)
    at = len(interfaces) - 1
    assert code == 2 and errors.startswith("shardwise: error: p.json:") and errors.endswith(
        f": {LT_T} {lt['urn']}: networkInterfaces[{at}]: expected an object, found null\n"), errors
    resources = resources_from_json(doc, "p.json")
    context = crossguard.StackContext()
    [res] = [r for r in resources if r.type == LT_T]
    for analysis in (crossguard.resource_analysis(res, context), crossguard.stack_analysis(resources, context)):
        assert [(r.policy, r.urn) for r in analysis.internal] == [(analysis.errors_policy, res.urn)]
        assert f"networkInterfaces[{at}]: expected an object, found null" in analysis.internal[0].message


def test_the_baseline_notes_none_of_the_rules_safe_to_skip(tmp_path: Path) -> None:
    code, errors, findings = lint_document(tmp_path, preview())
    assert errors == ""
    assert {f["code"] for f in findings} & set(NOTED) == set(), findings
    assert _pack_reported(preview(), NOTED) == set()


@pytest.mark.parametrize("case", NOTED_CASES, ids=lambda c: f"{NAMES[c.res]}:{c.code}:{'.'.join(map(str, c.path))}")
def test_the_value_is_reported_by_a_rule_safe_to_skip(tmp_path: Path, case: Case) -> None:
    doc = _with(case.res, case.path, case.bad)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    assert [(f["level"], f["message"].startswith(f"{case.code}: cannot decide")) for f in findings
            if f["code"] == case.code] == [("advisory", False)]
    assert _pack_reported(doc, NOTED) == {case.code}


@pytest.mark.slow
@pytest.mark.parametrize(("case", "path"), NOTED_SWEEP,
                         ids=[f"{NAMES[c.res]}:{c.code}:{'.'.join(map(str, p))}" for c, p in NOTED_SWEEP])
def test_the_unknown_is_noted_by_the_same_rule_safe_to_skip(tmp_path: Path, case: Case, path: Path_) -> None:
    """Advisory (the rule is safe to skip on an unknown), but said: "cannot decide", at least once."""
    doc = _with(case.res, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    said = [f for f in findings if case.code in f["codes"]]
    assert said and {f["level"] for f in said} == {"advisory"}, findings
    assert any(f["message"].startswith(f"{f['code']}: cannot decide") for f in said) or path == case.path, said
    assert case.code in _pack_reported(doc, NOTED)


# --- serving resources whose pod spec is written inline (review34) --------------------------------------------

ISVC_T = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
LLMISVC_T = "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService"
#: An InferenceService whose predictor's model runs KServe's Hugging Face server as vLLM (KServe's docs,
#: "Deploy the Llama3 model with Hugging Face LLM Serving Runtime"), and an LLMInferenceService whose decode and prefill
#: workloads are pod specs (`spec.template`, `spec.prefill.template`), each in the `serving` namespace of preview()
ISVC_MODEL = {"modelFormat": {"name": "huggingface"},
              "args": ["--model_name=llama3", "--model_id=meta-llama/Meta-Llama-3-8B-Instruct"],
              "resources": {"limits": {"nvidia.com/gpu": 1}}}


def _inline_preview() -> dict[str, Any]:
    doc = preview()
    main = _container(["--max-model-len", "8192"], resources={"limits": {"nvidia.com/gpu": 1}})
    main["name"] = "main"
    meta = {"namespace": "serving"}
    doc["steps"] = [s for i, s in enumerate(doc["steps"]) if i not in (DEP, SVC, ING)] + [
        step(ISVC_T, "llama3", {"metadata": {"name": "llama3", **meta, "labels": {
            "networking.knative.dev/visibility": "cluster-local"}}, "spec": {"predictor": {
                "model": copy.deepcopy(ISVC_MODEL),
                "containers": None}}}),
        step(LLMISVC_T, "llama", {"metadata": {"name": "llama", **meta}, "spec": {
            "model": {"uri": "hf://meta-llama/Llama-3.1-8B-Instruct", "name": "llama"},
            "template": {"containers": [copy.deepcopy(main)]},
            "prefill": {"template": {"containers": [copy.deepcopy(main)]}}}}),
    ]
    del doc["steps"][-2]["newState"]["inputs"]["spec"]["predictor"]["containers"]
    return doc


ISVC_AT, LLMISVC_AT = -2, -1
PREDICTOR = ("spec", "predictor")
INLINE_CASES = [
    # a part of the pod spec KServe builds from the predictor, and the rule it decides
    (ISVC_AT, (*PREDICTOR, "model"), ["SW306", "SW308", "SW309", "SW310"]),
    (ISVC_AT, (*PREDICTOR, "model", "env"), ["SW306", "SW308", "SW310"]),
    (ISVC_AT, (*PREDICTOR, "model", "securityContext"), ["SW309"]),
    (ISVC_AT, (*PREDICTOR, "hostNetwork"), ["SW309"]),
    (ISVC_AT, (*PREDICTOR, "hostPID"), ["SW309"]),
    (LLMISVC_AT, ("spec", "template", "containers", 0), ["SW306", "SW308", "SW309", "SW310"]),
    (LLMISVC_AT, ("spec", "template", "containers", 0, "securityContext"), ["SW309"]),
    (LLMISVC_AT, ("spec", "template", "hostNetwork"), ["SW309"]),
    (LLMISVC_AT, ("spec", "prefill", "template", "containers"), ["SW306", "SW308", "SW309", "SW310"]),
    (LLMISVC_AT, ("spec", "prefill", "template", "hostNetwork"), ["SW309"]),
]


def _inline_with(at: int, path: Path_, value: Any) -> dict[str, Any]:
    doc = _inline_preview()
    node: Any = doc["steps"][at]["newState"]["inputs"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def test_the_inline_pod_specs_block_on_none_of_the_security_rules(tmp_path: Path) -> None:
    code, errors, findings = lint_document(tmp_path, _inline_preview())
    assert errors == "" and _blocking(findings) & set(SECURITY) == set(), findings
    assert {f["subject"] for f in findings} >= {"InferenceService serving/llama3", "LLMInferenceService serving/llama",
                                                "LLMInferenceService serving/llama/prefill"}
    assert _pack_blocking(_inline_preview()) == set()


@pytest.mark.parametrize("masked", [U, MASKED], ids=["unknown", "secret"])
@pytest.mark.parametrize(("at", "path", "codes"), INLINE_CASES, ids=[".".join(map(str, p)) for _, p, _ in INLINE_CASES])
def test_an_unknown_part_of_an_inline_pod_spec_blocks(tmp_path: Path, at: int, path: Path_, codes: list[str],
                                                      masked: str) -> None:
    """An InferenceService's predictor and an LLMInferenceService's template are pod specs: a container, its env or
    securityContext, or the pod's hostNetwork/hostPID not known at preview (or a secret the preview masks) was
    dropped, and the workload passed every security rule silently (only the Kubernetes workloads' PodTemplateSpecs
    were read so)."""
    doc = _inline_with(at, path, masked)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, "")
    assert sorted(_blocking(findings) & set(SECURITY)) == codes, findings
    assert sorted(_pack_blocking(doc)) == codes


def test_an_inline_pod_specs_unknown_host_network_is_said_at_its_workload(tmp_path: Path) -> None:
    doc = _inline_with(LLMISVC_AT, ("spec", "prefill", "template", "hostNetwork"), U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert [(f["subject"], f["level"], f["message"]) for f in findings if f["code"] == "SW309"] == [
        ("LLMInferenceService serving/llama/prefill", "mandatory",
         "SW309: cannot decide: hostNetwork of LLMInferenceService serving/llama/prefill is not known (a computed "
         "value or an unresolved reference): lint the `pulumi up` state, or write the value as a literal")]
    doc = _inline_with(ISVC_AT, (*PREDICTOR, "model"), U)
    code, errors, findings = lint_document(tmp_path, doc)
    part = "one of its containers (spec.predictor.model)"
    assert [(f["codes"], f["level"], f["message"]) for f in findings
            if f["level"] == "mandatory" and set(f["codes"]) & set(SECURITY)] == [
        (["SW306", "SW308", "SW309", "SW310"], "mandatory",
         f"SW306: cannot decide: {part} {AT_PREVIEW}; this holds back SW306 (whether its containers set {DEV_MODE}), "
         "SW308 (whether its containers write a credential into the manifest), SW309 (whether its pods share the "
         "node's namespaces or run privileged containers), SW310 (whether its containers set NVIDIA_VISIBLE_DEVICES), "
         "which block until the value is known")]


# --- a Helm release: its pods are not in the preview (review34) -----------------------------------------------

RELEASE_T = "kubernetes:helm.sh/v3:Release"


def _release(chart: str, repo: str, values: Any, namespace: str = "serving") -> dict[str, Any]:
    """A ``kubernetes.helm.v3.Release`` step as the provider's Check leaves its inputs in a preview."""
    return step(RELEASE_T, "vllm", {"chart": chart, "version": "0.1.7", "repositoryOpts": {"repo": repo},
                                   "namespace": namespace, "name": "vllm-5d1c2a9e", "values": values,
                                   "atomic": False, "timeout": 300, "createNamespace": False})


PRODSTACK_REPO = "https://vllm-project.github.io/production-stack"
#: vLLM production-stack's values (its tutorials' shape), serving with VLLM_SERVER_DEV_MODE=1: what SW306 would block
PRODSTACK_VALUES = {"servingEngineSpec": {"modelSpec": [{
    "name": "llama3", "repository": "vllm/vllm-openai", "tag": "v0.11.0", "modelURL": "meta-llama/Llama-3.1-8B-Instruct",
    "replicaCount": 1, "requestCPU": 6, "requestMemory": "16Gi", "requestGPU": 1,
    "env": [{"name": DEV_MODE, "value": "1"}]}]}}
RELEASE_WHY = ("but the Pulumi Kubernetes provider renders the Helm chart it names at `pulumi up`, so its pods are not "
               "in the preview: lint the chart rendered with these values (helm template, with the values set here) "
               "together with the preview")


@pytest.mark.parametrize(("values", "what"), [
    (PRODSTACK_VALUES, "the vLLM image vllm/vllm-openai in its Helm values"),
    (U, "the Helm chart `vllm-stack`"),  # values computed by the program: the chart says it runs vLLM
    (MASKED, "the Helm chart `vllm-stack`"),  # a secret the preview masks
], ids=["values", "unknown", "secret"])
def test_a_helm_release_of_a_vllm_chart_says_it_was_not_read(tmp_path: Path, values: Any, what: str) -> None:
    """A Helm Release's chart is rendered by the provider at ``pulumi up``: the preview holds no pod of it. It was
    only counted among the skipped objects ("passed"), where the same release as a Flux HelmRelease is read or says
    why (SW005)."""
    doc = {"steps": [_release("vllm-stack", PRODSTACK_REPO, values)], "changeSummary": {"create": 1}}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["code"], f["level"], f["subject"], f["message"]) for f in findings] == [
        ("SW005", "advisory", "Release serving/vllm", f"SW005: not read: it mentions vLLM ({what}) {RELEASE_WHY}")]
    assert _pack_reported(doc, ("SW005",)) == {"SW005"}


def test_a_helm_release_of_another_chart_is_only_counted(tmp_path: Path) -> None:
    keda = _release("keda", "https://kedacore.github.io/charts", {"image": {"keda": {"repository":
                                                                                    "ghcr.io/kedacore/keda"}}}, "keda")
    doc = {"steps": [keda], "changeSummary": {"create": 1}}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors, findings) == (0, "", [])
    assert _pack_reported(doc, ("SW005",)) == set()


# --- a YAML ConfigFile or ConfigGroup whose files are not known: its objects are not in the preview (review34) ------
# review37: any input the provider's component awaits (pulumi-kubernetes yaml/v2 configfile.go and configgroup.go,
# kustomize/v2 directory.go, helm/v4 chart.go: ``pulumi.All`` of every input) leaves it without children; a secret the
# preview masks does not (the provider knows it).

CONFIG_WHY = ("not known at preview (a computed value), so the objects it applies, which may run vLLM, are not in the "
              "preview and none was checked: lint the `pulumi up` state, or write the value as a literal")
CHART_T, KUSTOMIZE_T = "kubernetes:helm.sh/v4:Chart", "kubernetes:kustomize/v2:Directory"
#: mend10's advice where a resource masks a secret beside a computed value (engine/runner.DECIDED_AT_UP_OR_SECRET)
SECRET_TOO = ("; if it is one of the values the preview masks as `[secret]`, no state shows it: write it as a literal "
              "if it need not be secret, else suppress the finding with the reason it is safe")


@pytest.mark.parametrize(("type_", "inputs", "said"), [
    ("kubernetes:yaml/v2:ConfigFile", {"file": U}, ("ConfigFile vllm", "its `file` is")),
    ("kubernetes:yaml:ConfigFile", {"file": U}, ("ConfigFile vllm", "its `file` is")),
    ("kubernetes:yaml/v2:ConfigGroup", {"files": [U, "manifests/service.yaml"]}, ("ConfigGroup vllm", "its `files` is")),
    ("kubernetes:yaml:ConfigGroup", {"files": U, "yaml": [U]}, ("ConfigGroup vllm", "its `files` and `yaml` are")),
    ("kubernetes:yaml/v2:ConfigFile", {"file": "manifests/vllm.yaml"}, None),  # its objects are its children
    # review37: the prefix is awaited with the file (a stack name from another stack's output, say)
    ("kubernetes:yaml/v2:ConfigFile", {"file": "manifests/vllm.yaml", "resourcePrefix": U},
     ("ConfigFile vllm", "its `resourcePrefix` is")),
    ("kubernetes:yaml/v2:ConfigGroup", {"files": ["manifests/*.yaml"], "skipAwait": U},
     ("ConfigGroup vllm", "its `skipAwait` is")),
    (KUSTOMIZE_T, {"directory": U}, ("Directory vllm", "its `directory` is")),
    (KUSTOMIZE_T, {"directory": "overlays/prod", "namespace": U}, ("Directory vllm", "its `namespace` is")),
    (KUSTOMIZE_T, {"directory": "overlays/prod", "namespace": "serving"}, None),
    (CHART_T, {"chart": "oci://ghcr.io/example/charts/vllm", "values": {"image": {"tag": U}}},
     ("Chart vllm", "its `values` is")),
    (CHART_T, {"chart": "vllm", "version": U, "namespace": U}, ("Chart vllm", "its `namespace` and `version` are")),
    (CHART_T, {"chart": "vllm", "values": {"replicaCount": 2}}, None),
    # a secret beside a computed value: the preview does not say which unknown is which (the secret-only components:
    # test_a_component_whose_only_unknowns_are_secrets_is_judged_by_its_children)
    ("kubernetes:yaml/v2:ConfigGroup", {"objs": [{"kind": "Secret", "stringData": {"token": MASKED}}],
                                        "resourcePrefix": U}, ("ConfigGroup vllm", "its `objs` and `resourcePrefix` are",
                                                               SECRET_TOO)),
], ids=["v2-file", "v1-file", "v2-group-one", "v1-group-both", "known", "v2-file-prefix", "v2-group-skip-await",
        "kustomize-directory", "kustomize-namespace", "kustomize-known", "chart-values", "chart-two", "chart-known",
        "group-secret-and-prefix"])
def test_a_config_file_whose_files_are_not_known_says_none_was_checked(tmp_path: Path, type_: str,
                                                                       inputs: dict[str, Any],
                                                                       said: tuple[str, ...] | None) -> None:
    """A ConfigFile whose ``file`` the program computes (a path joined from an output) has no children at preview: it
    was only counted among the skipped objects and the run passed, though the file may hold a vLLM Deployment. So
    too a kustomize Directory and a Helm v4 Chart, and any input of theirs (review37). Where the secrets are the only
    unknowns, the objects are in the preview: nothing to say. With a computed value beside a secret, the masked input
    is named too (the preview does not say which unknown is which)."""
    doc = {"steps": [step(type_, "vllm", inputs)], "changeSummary": {"create": 1}}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["code"], f["level"], f["subject"], f["message"]) for f in findings] == ([] if said is None else [
        ("SW005", "advisory", said[0], f"SW005: not read: {said[1]} {CONFIG_WHY}{''.join(said[2:])}")])


#: review42: a component whose only unknowns are masked secrets and none of whose objects is in the preview
SECRET_ONLY_WHY = ("a secret the preview writes as `[secret]` and none of the objects it applies is in the preview: "
                   "the provider renders them only once every input is known, so a secret computed at preview (a "
                   "password or key that a resource of this preview creates) leaves them out, and none of them, which "
                   "may run vLLM, was checked: lint the state `pulumi up` writes, where they are its children")


@pytest.mark.parametrize(("type_", "inputs", "said"), [
    (CHART_T, {"chart": "vllm", "values": {"hfToken": MASKED}}, ("Chart vllm", "its `values` holds")),
    ("kubernetes:yaml/v2:ConfigGroup", {"objs": [{"kind": "Secret", "stringData": {"token": MASKED}}]},
     ("ConfigGroup vllm", "its `objs` holds")),
    (KUSTOMIZE_T, {"directory": "overlays/prod", "namespace": MASKED, "resourcePrefix": MASKED},
     ("Directory vllm", "its `namespace` and `resourcePrefix` hold")),
], ids=["chart", "group", "kustomize-two"])
@pytest.mark.parametrize("shape", ["created", "created-with-child", "updated"])
def test_a_component_whose_only_unknowns_are_secrets_is_judged_by_its_children(
        tmp_path: Path, type_: str, inputs: dict[str, Any], said: tuple[str, str], shape: str) -> None:
    """review37 read a secret the preview masks as one the provider knows, so a component whose only unknowns were
    secrets got no record. But the preview writes any secret as ``[secret]``, a computed one too (pulumi/pulumi
    pkg/backend/display/json.go ``massagePropertyValue``): a Chart's ``values`` holding ``Output.secret`` of a
    RandomPassword this preview creates, or a ``requireSecret`` config the provider knows, look the same. The provider
    registers the objects as the component's children only when every input is known (helm/v4 chart.go,
    kustomize/v2 directory.go, yaml/v2 configgroup.go): a component created with a child in the preview had its
    secret known and its objects are linted; created with none, they were not rendered and none was checked (silent
    before). A component the preview updates may have unchanged children, which the preview leaves out (``same``
    steps are shown only with --show-sames): nothing is said of it, as before."""
    steps = [step(type_, "vllm", inputs)]
    if shape == "updated":
        steps[0]["op"] = "update"
    if shape == "created-with-child":  # the component's object, as the provider registers it: its parent is it
        child_t = "kubernetes:core/v1:ServiceAccount"
        child = step(child_t, "vllm", {"apiVersion": "v1", "kind": "ServiceAccount",
                                       "metadata": {"name": "vllm", "namespace": "serving"}})
        child["urn"] = child["newState"]["urn"] = f"urn:pulumi:dev::llm::{type_}${child_t}::serving/vllm"
        child["newState"]["parent"] = steps[0]["urn"]
        steps.append(child)
    doc = {"steps": steps, "changeSummary": {steps[0]["op"]: 1, "create": len(steps) - 1}}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["code"], f["level"], f["subject"], f["message"]) for f in findings] == ([] if shape != "created" else [
        ("SW005", "advisory", said[0], f"SW005: not read: {said[1]} {SECRET_ONLY_WHY}")])


#: review42: an SDK component that renders its objects in the program, created with none of them in the preview
SDK_WHY = ("none of the objects it applies is in the preview: the SDK's component renders them in the program only "
           "once its values are known, so a value computed at preview leaves them all out, and none of them, which "
           "may run vLLM, was checked: lint the `pulumi up` state, or write the values as literals")


@pytest.mark.parametrize("type_", ["kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v2:Chart",
                                   "kubernetes:kustomize:Directory"], ids=["chart-v3", "chart-v2", "kustomize-v1"])
@pytest.mark.parametrize("shape", ["created", "created-with-child", "updated"])
def test_an_sdk_component_created_without_children_says_none_was_checked(tmp_path: Path, type_: str,
                                                                          shape: str) -> None:
    """A Helm v3 Chart (pulumi-kubernetes' SDK component: ``helm template`` in an apply of its values) registers no
    input, and at preview its apply does not run while a value is computed (``values={"image": {"tag":
    image.repo_digest}}``): the preview holds the Chart and none of its objects, and the run counted it among the
    skipped objects and passed. Created with a child in the preview, its objects are linted: nothing to say; one the
    preview updates may have unchanged children it does not show: nothing either."""
    steps = [step(type_, "vllm", {})]
    if shape == "updated":
        steps[0]["op"] = "update"
    if shape == "created-with-child":
        child_t = "kubernetes:core/v1:ServiceAccount"
        child = step(child_t, "vllm", {"apiVersion": "v1", "kind": "ServiceAccount",
                                       "metadata": {"name": "vllm", "namespace": "serving"}})
        child["urn"] = child["newState"]["urn"] = f"urn:pulumi:dev::llm::{type_}${child_t}::serving/vllm"
        child["newState"]["parent"] = steps[0]["urn"]
        steps.append(child)
    doc = {"steps": steps, "changeSummary": {steps[0]["op"]: 1, "create": len(steps) - 1}}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    kind = {"kubernetes:kustomize:Directory": "Directory"}.get(type_, "Chart")
    assert [(f["code"], f["level"], f["subject"], f["message"]) for f in findings] == ([] if shape != "created" else [
        ("SW005", "advisory", f"{kind} vllm", f"SW005: not read: {SDK_WHY}")])


# --- an env list not known: the variables may be unset, they do not come from a Secret (review34) ---------------

AT_UP = "lint the `pulumi up` state, or write the value as a literal"


@pytest.mark.parametrize("masked", [U, MASKED], ids=["unknown", "secret"])
def test_an_env_list_not_known_is_undecided_not_set_from_a_secret(tmp_path: Path, masked: str) -> None:
    """A container's whole env computed by the program, or a secret the preview masks: SW310 said "sets
    NVIDIA_VISIBLE_DEVICES to a value from a Secret, ConfigMap or the downward API" (a decided block) and four
    advisories "sets CUDA_VISIBLE_DEVICES from a Secret…", SW311 and SW312 "it comes from a Secret, a ConfigMap or
    the downward API": none of it is in the input. The same levels, saying what is not known."""
    doc = _with(DEP, (*C0, "env"), masked)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1, "")
    said = sorted((f["level"], f["message"]) for f in findings if f["code"] in ("SW310", "SW311", "SW312"))
    # what is not known, and the advice: a computed value's (the `pulumi up` state), or a secret's (mend10: never shown)
    if masked == U:
        env_why, word_why, advice = "a computed value at preview", "a computed value or an unresolved reference", AT_UP
    else:
        env_why = word_why = "a secret the preview writes as `[secret]`"
        advice = NEVER_SHOWN
    assert said == sorted([
        ("mandatory", "SW310: cannot decide: whether container `vllm` sets NVIDIA_VISIBLE_DEVICES: its env is not "
                      f"known ({env_why}; {advice})"),
        ("advisory", "SW310: cannot decide: whether container `vllm` sets CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, "
                     f"ROCR_VISIBLE_DEVICES or HABANA_VISIBLE_DEVICES: its env is not known ({env_why}; {advice})"),
        *(("advisory", f"SW311: cannot decide: {name} of container `vllm` is not known ({word_why}): {advice}")
          for name in ("PYTHONHTTPSVERIFY", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE")),
        ("advisory", f"SW312: cannot decide: VLLM_ALLOW_RUNTIME_LORA_UPDATING of container `vllm` is not known "
                     f"({word_why}): {advice}"),
    ])
    assert {"SW306", "SW308", "SW310"} <= _pack_blocking(doc)
