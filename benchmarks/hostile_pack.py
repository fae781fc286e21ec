"""The hostile sweep's policy-pack cases (hostile7): property maps the engine could send the pack, over gRPC.

One pack process (``tests/support/grpc_harness.PackProcess``, started as the Python language host starts it)
gets, for each case, the stack of ``tests/support/pulumi_preview.stack_preview`` with one edit: ``Analyze`` of
every resource (its inputs) and ``AnalyzeStack`` of all of them (their outputs at preview), as the engine sends
them. The edits are the shapes an outside fuzz reaches: the engine's unknowns of every kind (the typed sentinels,
a secret around an unknown, a secret with only its ciphertext) at every depth of a Deployment, pod spec,
container, env, args, resources, securityContext, Service, NetworkPolicy, launch template, subnet, security group
and node group; secrets around known values; values of the wrong type; nulls; empty lists; NaN and infinity;
huge strings; resources of types or versions the pack does not know; two resources with one URN.

A case fails when an RPC fails, the pack dies, a diagnostic is an internal error, or the case reads as safe:

- ``bad``: the same spot with a concrete value that blocks. Every rule that blocks the concrete value (a mandatory
  diagnostic the unedited stack lacks) must block the hostile variant too, or an input error must block it
  (a value Kubernetes or AWS would reject is an input error on its object, never read as safe); for the capacity
  and topology rules (SW1xx, SW2xx) a diagnostic of the same rule at any level ("cannot decide") is enough;
- ``named``: words a diagnostic of the hostile variant must hold;
- ``quiet``: a valid variant (a secret around the same value, a null optional field) must give the diagnostics
  of the unedited stack, no more and no fewer.
"""
# ruff: noqa: E501
from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "support")]

import pulumi_preview as pp  # noqa: E402

U = pp.U
U_BOOL = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"
U_NUM = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
U_ARR = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"
U_OBJ = "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"
SIG = "4dabf18193072939515e22adb298388d"
SECRET = "1b47061264138c4ac30d75fd1eb44270"

SG, RULE, API, OUT, SUBNET, PG, LT, NG, DEP, CM, SVC, NP = range(12)
POD = ("spec", "template", "spec")
C0 = (*POD, "containers", 0)
Steps = list[dict[str, Any]]
Edit = Callable[[Steps], object]


#: what the SDK says of a secret without its value (the engine sends the plaintext; a ciphertext only is not its shape)
CIPHER = "Invalid secret encountered when unmarshaling resource property"
NOT_FINITE = "a number that is not finite"  # hostile8: named (was the SDK's "Fail to serialize")


def secret(value: Any) -> dict[str, Any]:
    return {SIG: SECRET, "value": value}


def cipher() -> dict[str, Any]:
    return {SIG: SECRET, "ciphertext": "v1:abcd:efgh"}


def at(res: int, path: tuple[Any, ...], value: Any) -> Edit:
    """Set ``path`` of resource ``res``'s inputs to ``value`` (made where absent)."""
    def edit(steps: Steps) -> None:
        node = steps[res]["newState"]["inputs"]
        for k in path[:-1]:
            node = node.setdefault(k, {}) if isinstance(k, str) and isinstance(node, dict) else node[k]
        node[path[-1]] = copy.deepcopy(value)
    return edit


def both(*edits: Edit) -> Edit:
    def edit(steps: Steps) -> None:
        for e in edits:
            e(steps)
    return edit


LB = both(at(SVC, ("spec", "type"), "LoadBalancer"))


@dataclass
class PackCase:
    name: str
    edit: Edit
    bad: Edit | None = None     # the concrete value that blocks, at the same spot
    named: str | None = None    # words a diagnostic must hold
    quiet: bool = False         # a valid variant: the unedited stack's diagnostics
    refused: str | None = None  # the SDK cannot read the request: it fails (the engine stops), with these words
    extra: Callable[[Steps], Steps] | None = None  # makes the steps list itself (added or duplicated resources)
    measure: bool = False       # print the wall time and the pack's peak memory (hostile8's 20,000 resources)
    policy_config: dict[str, dict[str, Any]] | None = None  # hostile9: ``Configure`` first (policy name -> its config, a raw level int allowed)
    deep: int = 0               # fuzz23: ``Analyze`` of the Deployment with a property lists this deep, sent as raw bytes


def _copy_step(src: int, name: str, type_: str | None = None, same_urn: bool = False) -> Callable[[Steps], Steps]:
    def make(steps: Steps) -> Steps:
        s = copy.deepcopy(steps[src])
        t = type_ or s["newState"]["type"]
        u = s["urn"] if same_urn else pp.urn(t, name)
        s["urn"] = s["newState"]["urn"] = u
        s["newState"]["type"] = t
        if not same_urn:
            s["newState"]["inputs"]["metadata"]["name"] = name
        return [*steps, s]
    return make


PRIV = {"privileged": True}


def cases() -> list[PackCase]:
    out: list[PackCase] = []
    # ------------------------------------------------ unknowns of every kind, at every depth of the workload
    for tag, u in (("string", U), ("object", U_OBJ), ("secret", secret(U)), ("ciphertext", cipher())):
        out.append(PackCase(f"pack-unknown-{tag}-container-securityContext", at(DEP, (*C0, "securityContext"), u), at(DEP, (*C0, "securityContext"), PRIV)))
        out.append(PackCase(f"pack-unknown-{tag}-service-spec", at(SVC, ("spec",), u), at(SVC, ("spec", "type"), "LoadBalancer")))
        # SW305 is advisory (mandatory for multi-node groups): a concrete value blocks nothing here, the unknown is said
        # SW305 is advisory (mandatory for multi-node groups): a concrete value blocks nothing here; the unknown is said
        # (hostile7: it was read as a policy that "selects only some pods or allows ingress")
        out.append(PackCase(f"pack-unknown-{tag}-networkpolicy-spec", at(NP, ("spec",), u), named="SW305: cannot decide: spec of NetworkPolicy `default-deny`"))
        out.append(PackCase(f"pack-unknown-{tag}-launchtemplate-metadataOptions", at(LT, ("metadataOptions",), u), at(LT, ("metadataOptions",), {"httpTokens": "optional"})))
    for tag, u in (("bool", U_BOOL), ("secret", secret(U)), ("ciphertext", cipher())):
        out.append(PackCase(f"pack-unknown-{tag}-privileged", at(DEP, (*C0, "securityContext", "privileged"), u), at(DEP, (*C0, "securityContext", "privileged"), True)))
        out.append(PackCase(f"pack-unknown-{tag}-hostNetwork", at(DEP, (*POD, "hostNetwork"), u), at(DEP, (*POD, "hostNetwork"), True)))
        out.append(PackCase(f"pack-unknown-{tag}-hostPID", at(DEP, (*POD, "hostPID"), u), at(DEP, (*POD, "hostPID"), True)))
        out.append(PackCase(f"pack-unknown-{tag}-subnet-mapPublicIpOnLaunch", at(SUBNET, ("mapPublicIpOnLaunch",), u), at(SUBNET, ("mapPublicIpOnLaunch",), True)))
    for tag, u in (("array", U_ARR), ("secret", secret(U))):
        out.append(PackCase(f"pack-unknown-{tag}-capabilities-add", at(DEP, (*C0, "securityContext", "capabilities", "add"), u), at(DEP, (*C0, "securityContext", "capabilities", "add"), ["SYS_ADMIN"])))
        out.append(PackCase(f"pack-unknown-{tag}-env", at(DEP, (*C0, "env"), u), at(DEP, (*C0, "env"), [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}])))
        out.append(PackCase(f"pack-unknown-{tag}-args", at(DEP, (*C0, "args"), u), at(DEP, (*C0, "args"), ["meta-llama/Llama-3.1-8B-Instruct", "--api-key", "sk-live-0123456789abcdef"])))
        out.append(PackCase(f"pack-unknown-{tag}-command", at(DEP, (*C0, "command"), u), at(DEP, (*C0, "command"), ["vllm", "serve", "--api-key", "sk-live-0123456789abcdef"])))
        out.append(PackCase(f"pack-unknown-{tag}-networkpolicy-policyTypes", at(NP, ("spec", "policyTypes"), u), named="SW305: cannot decide: spec.policyTypes of NetworkPolicy"))
        out.append(PackCase(f"pack-unknown-{tag}-sg-ingress", at(SG, ("ingress",), u), at(SG, ("ingress",), [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["0.0.0.0/0"]}])))
    out.append(PackCase("pack-unknown-secret-env-value", at(DEP, (*C0, "env", 0, "value"), secret(U)), at(DEP, (*C0, "env", 0, "value"), "1")))
    out.append(PackCase("pack-unknown-object-env-entry", at(DEP, (*C0, "env", 0), U_OBJ), at(DEP, (*C0, "env", 0), {"name": "VLLM_SERVER_DEV_MODE", "value": "1"})))
    out.append(PackCase("pack-unknown-secret-env-name", at(DEP, (*C0, "env", 0, "name"), secret(U)), at(DEP, (*C0, "env", 0, "name"), "NVIDIA_VISIBLE_DEVICES")))
    out.append(PackCase("pack-unknown-number-service-port", both(LB, at(SVC, ("spec", "ports", 0, "port"), U_NUM)), both(LB, at(SVC, ("spec", "ports", 0, "port"), 6379))))
    out.append(PackCase("pack-unknown-secret-service-type", at(SVC, ("spec", "type"), secret(U)), at(SVC, ("spec", "type"), "LoadBalancer")))
    out.append(PackCase("pack-unknown-secret-lb-scheme", both(LB, at(SVC, ("metadata", "annotations", "service.beta.kubernetes.io/aws-load-balancer-scheme"), secret(U))), LB))
    out.append(PackCase("pack-unknown-string-httpTokens", at(LT, ("metadataOptions", "httpTokens"), secret(U)), at(LT, ("metadataOptions", "httpTokens"), "optional")))
    out.append(PackCase("pack-unknown-number-hop-limit", at(LT, ("metadataOptions", "httpPutResponseHopLimit"), U_NUM), at(LT, ("metadataOptions", "httpPutResponseHopLimit"), 3)))
    out.append(PackCase("pack-unknown-secret-sg-cidr", at(SG, ("ingress",), [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": [secret(U)]}]), at(SG, ("ingress",), [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["0.0.0.0/0"]}])))
    out.append(PackCase("pack-unknown-secret-container", at(DEP, (*C0,), secret(U)), at(DEP, (*C0, "securityContext"), PRIV)))
    # the seccomp profile is SW309's advisory part (a pod's host namespaces are pod spec fields, not its securityContext)
    out.append(PackCase("pack-unknown-object-pod-securityContext", at(DEP, (*POD, "securityContext"), U_OBJ), named="SW309: cannot decide: the seccomp profile"))
    out.append(PackCase("pack-unknown-secret-gpu-limit", at(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), secret(U)), named="SW204: cannot decide: the GPU request"))
    out.append(PackCase("pack-unknown-number-gpu-limit", at(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), U_NUM), named="SW204: cannot decide: the GPU request"))
    out.append(PackCase("pack-unknown-secret-tp-arg", at(DEP, (*C0, "args"), ["meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", secret(U)]), at(DEP, (*C0, "args"), ["meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "16"])))
    out.append(PackCase("pack-unknown-secret-nodeSelector", at(DEP, (*POD, "nodeSelector"), secret(U)), named="SW206: cannot decide: the nodeSelector"))
    out.append(PackCase("pack-unknown-array-instanceTypes", at(NG, ("instanceTypes",), U_ARR), named="SW101: cannot decide: GPU memory of node pool `h100`"))
    # ------------------------------------------------ secrets around known values: read as the value
    out.append(PackCase("pack-secret-known-privileged", at(DEP, (*C0, "securityContext"), secret(PRIV)), at(DEP, (*C0, "securityContext"), PRIV), named="SW309"))
    out.append(PackCase("pack-secret-known-service-type", at(SVC, ("spec", "type"), secret("LoadBalancer")), LB, named="SW306"))
    out.append(PackCase("pack-secret-known-env-value-safe", at(DEP, (*C0, "env", 0, "value"), secret("0")), quiet=True))
    out.append(PackCase("pack-secret-nested-in-secret", at(DEP, (*C0, "securityContext"), secret(secret({"privileged": secret(True)}))), at(DEP, (*C0, "securityContext"), PRIV), named="SW309"))
    # ------------------------------------------------ wrong types: input errors, never safe
    out.append(PackCase("pack-type-privileged-string", at(DEP, (*C0, "securityContext", "privileged"), "true"), at(DEP, (*C0, "securityContext", "privileged"), True)))
    out.append(PackCase("pack-type-hostNetwork-number", at(DEP, (*POD, "hostNetwork"), 1), at(DEP, (*POD, "hostNetwork"), True)))
    out.append(PackCase("pack-type-service-type-number", at(SVC, ("spec", "type"), 7), LB))
    out.append(PackCase("pack-type-service-type-case", at(SVC, ("spec", "type"), "loadbalancer"), LB))
    out.append(PackCase("pack-type-service-ports-object", both(LB, at(SVC, ("spec", "ports"), {"port": 6379})), both(LB, at(SVC, ("spec", "ports", 0, "port"), 6379))))
    out.append(PackCase("pack-type-env-object", at(DEP, (*C0, "env"), {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}), at(DEP, (*C0, "env"), [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}])))
    out.append(PackCase("pack-type-containers-object", at(DEP, (*POD, "containers"), {"name": "vllm"}), at(DEP, (*C0, "securityContext"), PRIV)))
    out.append(PackCase("pack-type-policyTypes-string", at(NP, ("spec", "policyTypes"), "Egress"), named="spec.policyTypes: expected a list, found a string"))
    out.append(PackCase("pack-type-httpTokens-bool", at(LT, ("metadataOptions", "httpTokens"), False), at(LT, ("metadataOptions", "httpTokens"), "optional")))
    out.append(PackCase("pack-type-mapPublicIp-string", at(SUBNET, ("mapPublicIpOnLaunch",), "true"), at(SUBNET, ("mapPublicIpOnLaunch",), True)))
    out.append(PackCase("pack-type-spec-number", at(DEP, ("spec",), 7), at(DEP, (*C0, "securityContext"), PRIV)))
    # ------------------------------------------------ nulls and empty lists
    out.append(PackCase("pack-null-securityContext", at(DEP, (*C0, "securityContext"), None), quiet=True))
    # a null entry is an EnvVar without a name to the API server (rejected): an input error, not a skipped entry
    out.append(PackCase("pack-null-env-entry", at(DEP, (*C0, "env"), [None, {"name": "VLLM_SERVER_DEV_MODE", "value": "1"}]), named="env[0]: expected a mapping, found null"))
    out.append(PackCase("pack-null-service-spec", at(SVC, ("spec",), None)))
    out.append(PackCase("pack-null-pod-spec", at(DEP, (*POD,), None), named="spec.template.spec: written as null"))
    out.append(PackCase("pack-empty-containers", at(DEP, (*POD, "containers"), []), named="containers"))
    out.append(PackCase("pack-empty-ports", at(SVC, ("spec", "ports"), [])))
    # left as is (hostile7): a Deployment whose spec leaves the template out is read as no workload; a manifest patch
    # leaves it out too, and the API server's refusal comes at `pulumi up`
    out.append(PackCase("pack-empty-spec", at(DEP, ("spec",), {})))
    out.append(PackCase("pack-empty-policyTypes", at(NP, ("spec", "policyTypes"), [])))
    # ------------------------------------------------ numbers the JSON of a file cannot hold
    # the SDK's reading (MessageToDict) refuses a number that is not finite: the request fails (the preview stops),
    # since hostile8 in words naming the resource and the property
    out.append(PackCase("pack-nan-service-port", both(LB, at(SVC, ("spec", "ports", 0, "port"), float("nan"))), refused=NOT_FINITE))
    out.append(PackCase("pack-inf-replicas", at(DEP, ("spec", "replicas"), float("inf")), refused=NOT_FINITE))
    out.append(PackCase("pack-nan-gpu-limit", at(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), float("nan")), refused=NOT_FINITE))
    out.append(PackCase("pack-huge-hop-limit", at(LT, ("metadataOptions", "httpPutResponseHopLimit"), 1e300), at(LT, ("metadataOptions", "httpPutResponseHopLimit"), 3)))
    # ------------------------------------------------ huge strings
    out.append(PackCase("pack-huge-annotation", at(DEP, ("metadata", "annotations"), {"x": "y" * 3_000_000}), quiet=True))
    out.append(PackCase("pack-huge-image", both(at(DEP, (*C0, "image"), "vllm/vllm-openai:" + "v" * 1_000_000), at(DEP, (*C0, "securityContext"), PRIV)), named="SW309"))
    out.append(PackCase("pack-huge-env-list", both(at(DEP, (*C0, "env"), [{"name": f"X{i}", "value": "1"} for i in range(20_000)] + [{"name": "VLLM_SERVER_DEV_MODE", "value": "1"}])), named="SW306"))
    # ------------------------------------------------ types and versions the pack does not know, duplicate URNs
    out.append(PackCase("pack-type-old-apiversion-privileged", at(DEP, (*C0, "securityContext"), PRIV), extra=_retype(DEP, "kubernetes:apps/v1beta2:Deployment", "apps/v1beta2"), named="SW309"))
    out.append(PackCase("pack-type-future-apiversion-privileged", at(DEP, (*C0, "securityContext"), PRIV), extra=_retype(DEP, "kubernetes:apps/v2:Deployment", "apps/v2"), named="SW309: container `vllm` is privileged"))
    out.append(PackCase("pack-type-lws-privileged", lambda s: None, extra=_lws(privileged=True), named="SW309"))
    out.append(PackCase("pack-type-unknown-crd-with-pod", lambda s: None, extra=_crd(), named="vllm"))
    out.append(PackCase("pack-type-unknown-aws-type", lambda s: None, extra=_add("aws:ec2/instance:Instance", "gpu-box", {"instanceType": "p5.48xlarge", "associatePublicIpAddress": True, "metadataOptions": {"httpTokens": "optional"}})))
    out.append(PackCase("pack-duplicate-urn-second-bad", at(DEP, (*C0, "securityContext"), None), extra=_dup_bad(second=True), named="SW309"))
    out.append(PackCase("pack-duplicate-urn-first-bad", at(DEP, (*C0, "securityContext"), None), extra=_dup_bad(second=False), named="SW309"))
    out += h8_cases()
    for c in out:
        if "-ciphertext-" in c.name:  # the SDK refuses a secret without its value before any policy runs
            c.bad, c.named, c.refused = None, None, CIPHER
    return out


def h8_cases() -> list[PackCase]:
    """hostile8: a number that is not finite names its resource and property; a property map of 100,000 keys;
    type tokens of odd casing and unknown providers; a stack of 20,000 resources (its time and the pack's memory
    printed, not asserted)."""
    out: list[PackCase] = []
    nan, inf = float("nan"), float("inf")
    # the request still fails (the preview stops: fail closed), now naming the resource and the property (blind: these
    # were written as diagnostics; the refusal kept, as hostile7 recorded it, with the words the brief asks for)
    out.append(PackCase("pack-h8-nan-replicas", at(DEP, ("spec", "replicas"), nan), refused="cannot read kubernetes:apps/v1:Deployment `llama-8b`: spec.replicas is NaN"))
    out.append(PackCase("pack-h8-inf-gpu-limit", at(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), inf), refused="`llama-8b`: spec.template.spec.containers[0].resources.limits.nvidia.com/gpu is Infinity"))
    out.append(PackCase("pack-h8-minus-inf-service-port", both(LB, at(SVC, ("spec", "ports", 0, "port"), -inf)), refused="`llama-8b-svc`: spec.ports[0].port is -Infinity"))
    out.append(PackCase("pack-h8-nan-hop-limit", at(LT, ("metadataOptions", "httpPutResponseHopLimit"), nan), refused="`gpu-lt`: metadataOptions.httpPutResponseHopLimit is NaN"))
    out.append(PackCase("pack-h8-nan-in-secret", at(DEP, ("spec", "replicas"), secret(nan)), refused="`llama-8b`: spec.replicas is NaN"))
    out.append(PackCase("pack-h8-nan-beside-privileged", both(at(SVC, ("spec", "ports", 0, "port"), nan), at(DEP, (*C0, "securityContext"), PRIV)), refused="`llama-8b-svc`: spec.ports[0].port is NaN"))
    out.append(PackCase("pack-h8-huge-replicas", at(DEP, ("spec", "replicas"), 1e300), named="spec.replicas"))
    out.append(PackCase("pack-h8-huge-gpu-limit", at(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), 2.0 ** 63), named="nvidia.com/gpu"))
    out.append(PackCase("pack-h8-100k-annotations", at(DEP, ("metadata", "annotations"), {f"k{i}": "v" for i in range(100_000)}), quiet=True))
    out.append(PackCase("pack-h8-100k-labels-privileged", both(at(DEP, ("spec", "template", "metadata", "labels"), {f"k{i}": "v" for i in range(100_000)}), at(DEP, (*C0, "securityContext"), PRIV)), named="SW309"))
    for tag, type_ in (("lower-kind", "kubernetes:apps/v1:deployment"), ("upper-provider", "Kubernetes:apps/v1:Deployment"),
                       ("upper-group", "kubernetes:Apps/V1:Deployment"), ("unknown-provider", "acme:apps/v1:Deployment"),
                       ("no-module", "kubernetes:Deployment"), ("empty", "")):
        # a Kubernetes type token with other casing is read as the kind it names; a type of no provider the pack reads
        # (another package's, a component's: its children carry what is deployed) is not read, as any such type
        # (blind: expected SW309 for all six, wrongly for the four the engine cannot send as a Kubernetes resource)
        read = tag in ("lower-kind", "upper-group")
        out.append(PackCase(f"pack-h8-type-{tag}-privileged", at(DEP, (*C0, "securityContext"), PRIV), extra=_retype_only(DEP, type_), named="SW309" if read else None))
    out.append(PackCase("pack-h8-stack-20000", lambda s: None, extra=_many(20_000), measure=True))
    return out


def h9_cases() -> list[PackCase]:
    """hostile9: the policy config the engine's ``Configure`` carries, of levels that do not exist and properties of
    the wrong type, out of their bounds, or unknown to the schema. The engine validates a ``--policy-pack-config``
    file against each policy's schema, but another client (or a schema gap: names the schema does not list pass it)
    reaches the pack as is: a config the pack cannot take is refused, naming the policy and the property, never
    read as another value (a typo'd ``kv_reserv`` silently ignored, ``production: "false"`` read as true), never an
    internal error on every later request."""
    priv = at(DEP, (*C0, "securityContext"), PRIV)
    sw309 = "vllm-pod-with-host-access"
    sw101 = "weights-exceed-gpu-memory"
    out: list[PackCase] = []
    out.append(PackCase("pack-h9-config-level-unknown-int", priv, policy_config={sw309: {"enforcementLevel": 7}}, refused="enforcement level"))
    out.append(PackCase("pack-h9-config-level-negative-int", priv, policy_config={sw309: {"enforcementLevel": -1}}, refused="enforcement level"))
    for tag, props, word in (("kv-reserve-string", {"kv_reserve": "x"}, "kv_reserve"), ("kv-reserve-below-1", {"kv_reserve": 0.5}, "kv_reserve"),
                             ("kv-reserve-list", {"kv_reserve": [1.4]}, "kv_reserve"), ("kv-reserve-deep", {"kv_reserve": [[[[[[1.4]]]]]]}, "kv_reserve"),
                             ("usable-fraction-5", {"usable_fraction": 5}, "usable_fraction"), ("p95-float", {"p95_context_tokens": 1.5}, "p95_context_tokens"),
                             ("p95-negative", {"p95_context_tokens": -4096}, "p95_context_tokens"), ("production-string", {"production": "false"}, "production"),
                             ("unknown-is-failure-number", {"unknown_is_failure": 0}, "unknown_is_failure"), ("unknown-property", {"kv_reserv": 1.2}, "kv_reserv"),
                             ("namespaces-string", {"default_deny_namespaces": "serving"}, "default_deny_namespaces"),
                             ("suppressions-string", {"suppressions": "SW309"}, "suppressions"), ("suppression-no-reason", {"suppressions": [{"subject": "*"}]}, "suppressions[0] has no reason"),
                             ("suppression-unknown-key", {"suppressions": [{"subject": "*", "reason": "x", "code": "SW309"}]}, "code"),
                             ("huge-string", {"kv_reserve": "9" * 1_000_000}, "kv_reserve")):
        policy = sw101 if tag.startswith(("kv-reserve", "usable", "p95")) else sw309
        out.append(PackCase(f"pack-h9-config-{tag}", priv, policy_config={policy: props}, refused=word))
    out.append(PackCase("pack-h9-config-unknown-policy", priv, policy_config={"no-such-policy": {"enforcementLevel": "disabled"}}, refused="no-such-policy"))
    # valid configs, the controls: a level given by name, a suppression with its reason
    out.append(PackCase("pack-h9-config-valid-advisory", priv, policy_config={sw309: {"enforcementLevel": "advisory"}}, named="SW309"))
    return out


def _linked(pairs: tuple[tuple[int, int], ...], parent: bool = True, deps: bool = True, prop: str = "") -> Edit:
    """Each (a, b): resource a's parent, dependency and ``prop``'s dependency is resource b (a cycle where b's is a)."""
    def edit(steps: Steps) -> None:
        for a, b in pairs:
            state, urn = steps[a]["newState"], steps[b]["urn"]
            if parent:
                state["parent"] = urn
            if deps:
                state["dependencies"] = [urn]
            if prop:
                state["propertyDependencies"] = {prop: [urn]}
    return edit


def fuzz23_cases() -> list[PackCase]:
    """fuzz23: a stack whose resources form a cycle (each the other's parent and dependency: the engine refuses one,
    another client may send it) and properties nested deeper than the pack's reading recurses. A cycle is read as
    the stack without it (the pack walks no parent nor dependency chain); a property nested 600 or 4,000 lists deep
    (protobuf-go, in the engine, reads up to 10,000 message levels: about 5,000 of lists) is a refusal naming the
    resource (was Python's RecursionError, naming nothing, its thousand-frame traceback on the pack's stderr)."""
    deep = "`llama-8b`: its properties nest deeper than shardwise reads"
    return [
        PackCase("pack-fz23-parent-cycle", _linked(((DEP, SVC), (SVC, DEP))), quiet=True),
        PackCase("pack-fz23-parent-is-itself", _linked(((DEP, DEP), (SVC, SVC))), quiet=True),
        PackCase("pack-fz23-dependency-cycle-3", _linked(((DEP, SVC), (SVC, CM), (CM, DEP)), parent=False, prop="spec"), quiet=True),
        PackCase("pack-fz23-nested-200", lambda steps: None, deep=200, quiet=True),  # the control: read as the stack is
        PackCase("pack-fz23-nested-600", lambda steps: None, deep=600, refused=deep),
        PackCase("pack-fz23-nested-600-beside-privileged", at(DEP, (*C0, "securityContext"), PRIV), deep=600, refused=deep),
        PackCase("pack-fz23-nested-4000", lambda steps: None, deep=4000, refused=deep),
    ]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def deep_request(steps: Steps, depth: int) -> bytes:
    """``Analyze`` of the Deployment, its properties given a key ``deep`` holding lists ``depth`` deep, as the
    request's bytes: written from the inside out (the SDK's ``Struct.update`` recurses in Python past 1,000), the
    outer prefixes first (a Value's ``list_value`` = 6, a ListValue's ``values`` = 1), then a null."""
    from grpc_harness import analyzer_pb2, struct
    r = _resources(steps)[DEP]
    req = analyzer_pb2.AnalyzeRequest(type=r.type, name=r.name, urn=r.urn,
                                      options=analyzer_pb2.AnalyzerResourceOptions(parent=r.parent))
    req.properties.CopyFrom(struct(r.props))
    inner, size, prefixes = b"\x08\x00", 2, []
    for _ in range(depth):
        values = b"\x0a" + _varint(size)
        size += len(values)
        value = b"\x32" + _varint(size)
        size += len(value)
        prefixes.append(value + values)
    nested = b"".join(reversed(prefixes)) + inner
    entry = b"\x0a\x04deep\x12" + _varint(len(nested)) + nested  # Struct.fields' entry: key, value
    more = b"\x0a" + _varint(len(entry)) + entry
    number = analyzer_pb2.AnalyzeRequest.DESCRIPTOR.fields_by_name["properties"].number
    return req.SerializeToString() + _varint(number << 3 | 2) + _varint(len(more)) + more  # merged into properties


def send_deep(pack: Any, steps: Steps, depth: int) -> Said:
    import grpc
    from grpc_harness import analyzer_pb2
    call = pack.channel.unary_unary("/pulumirpc.Analyzer/Analyze", request_serializer=lambda b: b,
                                    response_deserializer=analyzer_pb2.AnalyzeResponse.FromString)
    try:
        resp = call(deep_request(steps, depth), timeout=120)
    except grpc.RpcError as e:
        return Said([], f"RPC failed: {e.code().name}: {str(e.details())[:300]}")
    if pack.proc.poll() is not None:
        return Said([], f"the pack exited ({pack.proc.returncode})")
    return Said(sorted({(str(d.enforcementLevel), d.message) for d in resp.diagnostics}), None)


def configure(pack: Any, config: dict[str, dict[str, Any]] | None) -> str | None:
    """``Configure`` as the engine sends it: every policy at its level, ``config``'s policies with theirs (a level as a
    name, or a raw enum number the engine would not send) and their properties. None when taken, else the error."""
    import grpc
    from grpc_harness import LEVEL_VALUES, analyzer_pb2
    info = pack.info()
    req = analyzer_pb2.ConfigureAnalyzerRequest()
    config = dict(config or {})
    for p in info.policies:
        req.policyConfig[p.name].CopyFrom(analyzer_pb2.PolicyConfig(enforcementLevel=p.enforcementLevel))
    for name, c in config.items():
        c = dict(c)
        level = c.pop("enforcementLevel", None)
        cfg = analyzer_pb2.PolicyConfig()
        raw: int = (LEVEL_VALUES[level] if isinstance(level, str) else level) if level is not None else (
            req.policyConfig[name].enforcementLevel if name in req.policyConfig else 0)
        cfg.enforcementLevel = raw  # type: ignore[assignment]  # a raw number the engine would not send
        if c:
            cfg.properties.update(c)
        req.policyConfig[name].CopyFrom(cfg)
    try:
        pack.stub.Configure(req)
    except grpc.RpcError as e:
        return f"Configure failed: {e.code().name}: {str(e.details())[:200]}"
    return None


def _retype_only(res: int, type_: str) -> Callable[[Steps], Steps]:
    def make(steps: Steps) -> Steps:
        s = steps[res]
        s["newState"]["type"] = type_
        s["urn"] = s["newState"]["urn"] = pp.urn(type_, s["urn"].rsplit("::", 1)[-1])
        return steps
    return make


def _many(n: int) -> Callable[[Steps], Steps]:
    def make(steps: Steps) -> Steps:
        more = [pp.step("kubernetes:core/v1:ConfigMap", f"cm-{i}", {"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": f"cm-{i}", "namespace": "serving"}, "data": {"k": "v"}}) for i in range(n)]
        return [*steps, *more]
    return make


def _retype(res: int, type_: str, api: str) -> Callable[[Steps], Steps]:
    def make(steps: Steps) -> Steps:
        s = steps[res]
        s["newState"]["type"] = type_
        s["urn"] = s["newState"]["urn"] = pp.urn(type_, s["urn"].rsplit("::", 1)[-1])
        s["newState"]["inputs"]["apiVersion"] = api
        return steps
    return make


def _add(type_: str, name: str, inputs: dict[str, Any]) -> Callable[[Steps], Steps]:
    return lambda steps: [*steps, pp.step(type_, name, inputs)]


def _pod(privileged: bool) -> dict[str, Any]:
    pod = copy.deepcopy(pp.stack_preview()["steps"][DEP]["newState"]["inputs"]["spec"]["template"])
    if privileged:
        pod["spec"]["containers"][0]["securityContext"] = dict(PRIV)
    return pod


def _lws(privileged: bool) -> Callable[[Steps], Steps]:
    t = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
    return _add(t, "llama-lws", {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                                 "metadata": {"name": "llama-lws", "namespace": "serving"},
                                 "spec": {"replicas": 1, "leaderWorkerTemplate": {
                                     "size": 1, "restartPolicy": "RecreateGroupOnPodRestart",
                                     "workerTemplate": _pod(privileged)}}})


def _crd() -> Callable[[Steps], Steps]:
    t = "kubernetes:serving.example.com/v1alpha1:VllmServer"
    return _add(t, "llama-crd", {"apiVersion": "serving.example.com/v1alpha1", "kind": "VllmServer",
                                 "metadata": {"name": "llama-crd", "namespace": "serving"},
                                 "spec": {"template": _pod(True)}})


def _dup_bad(second: bool) -> Callable[[Steps], Steps]:
    def make(steps: Steps) -> Steps:
        s = copy.deepcopy(steps[DEP])
        s["newState"]["inputs"]["spec"]["template"]["spec"]["containers"][0]["securityContext"] = dict(PRIV)
        return [*steps, s] if second else [*steps[:DEP], s, *steps[DEP:]]
    return make


# ---------------------------------------------------------------------------------------------- running


@dataclass
class Said:
    diags: list[tuple[str, str]]  # (level, message) of every diagnostic, sorted
    error: str | None             # an RPC that failed, or the pack that died


def _resources(steps: Steps) -> list[Any]:
    from grpc_harness import Resource
    return [Resource(s["newState"]["type"], s["urn"].rsplit("::", 1)[-1], s["urn"], s["newState"]["inputs"],
                     parent=s["newState"].get("parent", ""), dependencies=tuple(s["newState"].get("dependencies", ())),
                     property_dependencies=s["newState"].get("propertyDependencies")) for s in steps]


def send(pack: Any, steps: Steps) -> Said:
    import grpc
    from grpc_harness import engine_extras
    resources = _resources(steps)
    everything = [*engine_extras(resources, pack.stack, pack.project), *resources]
    diags = []
    try:
        for r in everything:
            diags += pack.analyze(r)
        diags += pack.analyze_stack(everything)
    except grpc.RpcError as e:
        return Said([], f"RPC failed: {e.code().name}: {str(e.details())[:200]}")
    except (ValueError, TypeError) as e:  # the request could not be built (protobuf)
        return Said([], f"request not built: {type(e).__name__}: {str(e)[:200]}")
    if pack.proc.poll() is not None:
        return Said([], f"the pack exited ({pack.proc.returncode})")
    return Said(sorted({(d.level, d.message) for d in diags}), None)


def _codes(said: Said, level: str | None = "mandatory") -> set[str]:
    return {m[:5] for lv, m in said.diags if m.startswith("SW") and (level is None or lv == level)}


def _ANY_LEVEL() -> set[str]:  # noqa: N802
    """The rules whose "cannot decide" is advisory by design: capacity and topology (SW1xx, SW2xx), and the rules
    marked safe to skip an unknown (SW401: TP unknown with no /dev/shm mounted)."""
    from shardwise.rules.checks.registry import ALL_RULES
    return {r.meta.code for r in ALL_RULES if r.meta.code.startswith(("SW1", "SW2")) or r.meta.safe_to_skip_unknown}


def _input_error(said: Said) -> bool:
    return any(lv == "mandatory" and not m.startswith("SW") for lv, m in said.diags)


def _short(m: str) -> str:
    return m if len(m) <= 220 else f"{m[:150]} … {m[-60:]}"


def judge(case: PackCase, pack: Any, base: Said) -> tuple[str, int | None, str, float]:
    steps = pp.stack_preview()["steps"]
    t0 = time.monotonic()
    hostile = copy.deepcopy(steps)
    case.edit(hostile)
    if case.extra:
        hostile = case.extra(hostile)
    refusal = configure(pack, case.policy_config) if case.policy_config is not None else None
    try:
        got = Said([], refusal) if refusal else send_deep(pack, hostile, case.deep) if case.deep else send(pack, hostile)
    finally:
        if case.policy_config is not None:
            configure(pack, {})  # every policy back at its own level, no properties
    dt = time.monotonic() - t0
    if case.measure:
        print(f"{case.name}: {len(hostile)} resources analysed in {dt:.1f} s of wall time; the pack's peak memory "
              f"{_peak_mib(pack.proc.pid)}", file=sys.stderr, flush=True)
    new = [d for d in got.diags if d not in base.diags]
    said = " | ".join(f"{lv[0]} {_short(m)}" for lv, m in new) if got.error is None else got.error
    rc = None if got.error else int(any(lv == "mandatory" for lv, _ in got.diags))
    if case.refused:
        if got.error is None or case.refused not in got.error:
            return f"FAIL: not refused ({case.refused})", rc, said, dt
        return ("ok" if pack.proc.poll() is None else "FAIL: the pack died"), rc, said, dt
    if got.error:
        return f"FAIL: {got.error[:60]}", rc, said, dt
    if any("internal error" in m for _, m in got.diags):
        return "FAIL: internal error", rc, said, dt
    if case.quiet and got.diags != base.diags:
        return "FAIL: a valid variant read differently", rc, said, dt
    if case.named and not any(case.named in m for _, m in new):
        return f"FAIL: nothing new names {case.named}", rc, said, dt
    if case.bad is not None:
        b = copy.deepcopy(steps)
        case.bad(b)
        bad = send(pack, b)
        opened = _codes(bad) - _codes(base)
        if not opened:
            return "FAIL: the bad value blocks nothing (a wrong case)", rc, said, dt
        if not _input_error(got):
            missed = {c for c in opened if c not in (_codes(got, None) if c in _ANY_LEVEL() else _codes(got))}
            if missed:
                return f"FAIL: read as safe ({', '.join(sorted(missed))} blocks the value)", rc, said, dt
    return "ok", rc, said, dt


def _peak_mib(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return f"{int(line.split()[1]) / 1024:.0f} MiB (VmHWM)"
    except OSError:
        pass
    return "not known"


def run(only: str) -> list[tuple[str, str, int | None, float, str]]:
    """(case, verdict, rc, seconds, said) of every pack case whose name holds ``only``."""
    chosen = [c for c in cases() + h9_cases() + fuzz23_cases() if only in c.name]
    if not chosen:
        return []
    from grpc_harness import PackProcess
    out = []
    with PackProcess(stack="dev", config_in_env=True) as pack:
        pack.handshake()
        pack.configure_stack()
        pack.info()
        base = send(pack, pp.stack_preview()["steps"])
        assert base.error is None and not any("internal error" in m for _, m in base.diags), base
        for c in chosen:
            verdict, rc, said, dt = judge(c, pack, base)
            out.append((c.name, verdict, rc, dt, said))
            if pack.proc.poll() is not None:  # a dead pack: the rest cannot run
                break
    return out
