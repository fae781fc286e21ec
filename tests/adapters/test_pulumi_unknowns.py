"""Unknown and wrongly typed values at every property the Pulumi adapter reads.

The stack of :mod:`pulumi_preview` passes. For each property the adapter reads (found by recording
the reads, not by listing them: :func:`census`), a :class:`Case` says what makes it decisive: an
optional edit of the stack that still passes (``context``), a concrete value of the property that
blocks (``bad``, with the rule code it blocks with), or that no value of it blocks in this stack.
Then, for every case:

- the property set to the engine's unknown: the lint never crashes, and where a concrete value
  blocks, the unknown is reported by the same rule: a mandatory finding ("cannot decide" or worse)
  for the network, security and reliability rules, a "cannot decide" one for the capacity and
  topology rules (advisory unless `unknown = "fail"`, as the design says);
  a reference drops its property dependencies for the unknown run (what an engine that sent none
  would leave);
- the same inputs through the policy pack's analysis never produce an internal error;
- an AWS property of the wrong JSON type is an input error naming the file, line, URN and path.

Everything is derandomized and runs in-process; the gRPC test sends every unknown variant to one
pack process.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import (
    CM_T,
    DEP_T,
    HPA_T,
    IN_T,
    LT_T,
    NG_T,
    NP_T,
    OUT_T,
    PG_T,
    RULE_T,
    SG_T,
    SUB_T,
    SVC_T,
    U,
    lint_document,
    stack_preview,
    step,
    urn,
)
from shardwise.rules.adapters import pulumi as adapter
from shardwise.rules.adapters.pulumi import aws as pulumi_aws
from shardwise.rules.adapters.pulumi import inventory as pulumi_inventory
from shardwise.rules.adapters.pulumi import k8s as pulumi_k8s
from shardwise.rules.adapters.pulumi import resources_from_json
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES

SG, RULE, API, OUT, SUBNET, PG, LT, NG, DEP, CM, SVC, NP = range(12)
TYPES = [SG_T, RULE_T, IN_T, OUT_T, SUB_T, PG_T, LT_T, NG_T, DEP_T, CM_T, SVC_T, NP_T]
POD = ("spec", "template", "spec")
C0 = (*POD, "containers", 0)
Path_ = tuple[Any, ...]
NO_BAD = object()

Edit = Callable[[list[dict[str, Any]]], object]  # edits the steps' inputs


@dataclass(frozen=True)
class Case:
    res: int
    path: Path_
    bad: Any = NO_BAD  # a value of the property that blocks ...
    code: str | None = None  # ... with a mandatory finding of this rule
    context: Edit | None = None  # an edit of the stack that passes and makes the property decisive
    undeps: bool = False  # a reference: the unknown run drops the property's dependencies
    noted: str | None = None  # no value blocks, but an unknown is reported by this rule (any level)
    why: str = ""  # why no value of it blocks (bad is NO_BAD)
    tags: tuple[str, ...] = field(default=())

    @property
    def id(self) -> str:
        return f"{TYPES[self.res].rsplit(':', 1)[-1]}:{_dotted(self.path)}"


def _dotted(path: Path_) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def inputs(steps: list[dict[str, Any]], i: int) -> dict[str, Any]:
    value: dict[str, Any] = steps[i]["newState"]["inputs"]
    return value


def _set(steps: list[dict[str, Any]], i: int, path: Path_, value: Any) -> None:
    node: Any = inputs(steps, i)
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _ctx(i: int, path: Path_, value: Any) -> Edit:
    return lambda steps: _set(steps, i, path, copy.deepcopy(value))


def _both(*edits: Edit) -> Edit:
    def edit(steps: list[dict[str, Any]]) -> None:
        for e in edits:
            e(steps)
    return edit


def _append(i: int, path: Path_, value: Any) -> Edit:
    def edit(steps: list[dict[str, Any]]) -> None:
        node: Any = inputs(steps, i)
        for key in path:
            node = node[key]
        node.append(copy.deepcopy(value))
    return edit


def _no_template(i: int) -> Edit:
    def edit(steps: list[dict[str, Any]]) -> None:
        inputs(steps, i).pop("launchTemplate", None)
        steps[i]["newState"].get("propertyDependencies", {}).pop("launchTemplate", None)
    return edit


def _undeps(i: int, prop: str) -> Edit:
    return lambda steps: steps[i]["newState"].get("propertyDependencies", {}).pop(prop, None)


RAY = {"protocol": "tcp", "fromPort": 6379, "toPort": 6379}
SELF_ON_RAY = {**RAY, "self": True}
NEVER_EGRESS = "egress destinations and ports are no rule's concern; only the all-traffic self rule is"
NAME_ONLY = "a name or a description: no rule reads it"
DEPS = "resolved through its property dependencies, as the engine sends them"
ADVISORY_PLACEMENT = "it decides which pool the workload lands on: SW206 reports a miss as advisory"
LB = _ctx(SVC, ("spec", "type"), "LoadBalancer")

CASES: list[Case] = [
    # --- security group, inline rules ------------------------------------------------------------------
    Case(SG, ("ingress",), [{**RAY, "cidrBlocks": ["0.0.0.0/0"]}], "SW301"),
    Case(SG, ("ingress", 1, "protocol"), "tcp", "SW301",
         _append(SG, ("ingress",), {**RAY, "protocol": "udp", "cidrBlocks": ["10.1.0.0/16"]})),
    Case(SG, ("ingress", 1, "fromPort"), 6379, "SW301",
         _append(SG, ("ingress",), {"protocol": "tcp", "fromPort": 7000, "toPort": 7000, "cidrBlocks": ["10.1.0.0/16"]})),
    Case(SG, ("ingress", 1, "toPort"), 6379, "SW301",
         _append(SG, ("ingress",), {"protocol": "tcp", "fromPort": 6000, "toPort": 6000, "cidrBlocks": ["10.1.0.0/16"]})),
    Case(SG, ("ingress", 1, "cidrBlocks"), ["10.1.0.0/16"], "SW301", _append(SG, ("ingress",), SELF_ON_RAY)),
    Case(SG, ("ingress", 1, "ipv6CidrBlocks"), ["::/0"], "SW301", _append(SG, ("ingress",), SELF_ON_RAY)),
    Case(SG, ("ingress", 1, "prefixListIds"), ["pl-0a1b2c3d"], "SW301", _append(SG, ("ingress",), SELF_ON_RAY)),
    Case(SG, ("ingress", 1, "securityGroups"), ["sg-0other"], "SW301", _append(SG, ("ingress",), SELF_ON_RAY)),
    Case(SG, ("ingress", 0, "self"), False, "SW302"),
    Case(SG, ("egress",), [], "SW302"),
    Case(SG, ("egress", 0, "protocol"), "tcp", "SW302"),
    Case(SG, ("egress", 0, "self"), False, "SW302"),
    *(Case(SG, ("egress", 0, key), why=NEVER_EGRESS) for key in (
        "fromPort", "toPort", "cidrBlocks", "ipv6CidrBlocks", "prefixListIds", "securityGroups")),
    Case(SG, ("id",), why=NAME_ONLY),
    Case(SG, ("tags",), why="tags only suppress findings: an unknown one suppresses nothing"),
    # --- the classic rule resource ----------------------------------------------------------------------
    Case(RULE, ("type",), "ingress", "SW301", _both(*(_ctx(RULE, (k,), v) for k, v in {
        "type": "egress", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["10.1.0.0/16"]}.items()))),
    Case(RULE, ("protocol",), "tcp", "SW301", _both(*(_ctx(RULE, (k,), v) for k, v in {
        "protocol": "udp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["10.1.0.0/16"]}.items()))),
    Case(RULE, ("fromPort",), 6379, "SW301", _both(_ctx(RULE, ("fromPort",), 7000), _ctx(RULE, ("toPort",), 7000))),
    Case(RULE, ("toPort",), 6379, "SW301", _both(_ctx(RULE, ("fromPort",), 6000), _ctx(RULE, ("toPort",), 6000))),
    *(Case(RULE, (key,), value, "SW301", _both(*(_ctx(RULE, (k,), v) for k, v in {
        "fromPort": 6379, "toPort": 6379, "cidrBlocks": None, "self": True}.items())))
      for key, value in (("cidrBlocks", ["10.1.0.0/16"]), ("ipv6CidrBlocks", ["::/0"]),
                         ("prefixListIds", ["pl-0a1b2c3d"]))),
    Case(RULE, ("self",), why="a rule without any source opens nothing; an unknown self is undecided"),
    Case(RULE, ("sourceSecurityGroupId",), "sg-0other", "SW301", _both(*(_ctx(RULE, (k,), v) for k, v in {
        "fromPort": 6379, "toPort": 6379, "cidrBlocks": None}.items()))),
    Case(RULE, ("securityGroupId",), why=DEPS),
    Case(RULE, ("tags",), why="tags only suppress findings"),
    # --- the VPC rule resources -------------------------------------------------------------------------
    Case(API, ("ipProtocol",), "tcp", "SW301", _both(_ctx(API, ("ipProtocol",), "udp"), _ctx(API, ("fromPort",), 6379),
                                                     _ctx(API, ("toPort",), 6379))),
    Case(API, ("fromPort",), 6379, "SW301", _both(_ctx(API, ("fromPort",), 7000), _ctx(API, ("toPort",), 7000))),
    Case(API, ("toPort",), 6379, "SW301", _both(_ctx(API, ("fromPort",), 6000), _ctx(API, ("toPort",), 6000))),
    *(Case(API, (key,), value, "SW301", _both(_ctx(API, ("fromPort",), 6379), _ctx(API, ("toPort",), 6379),
                                              _ctx(API, ("cidrIpv4",), None)))
      for key, value in (("cidrIpv4", "10.1.0.0/16"), ("cidrIpv6", "::/0"), ("prefixListId", "pl-0a1b2c3d"),
                         ("referencedSecurityGroupId", "sg-0other"))),
    Case(API, ("securityGroupId",), why=DEPS),
    Case(API, ("tags",), why="tags only suppress findings"),
    *(Case(OUT, (key,), why=NEVER_EGRESS) for key in (
        "ipProtocol", "fromPort", "toPort", "cidrIpv4", "cidrIpv6", "prefixListId", "securityGroupId", "tags")),
    # --- subnet, placement group ------------------------------------------------------------------------
    Case(SUBNET, ("mapPublicIpOnLaunch",), True, "SW303"),
    Case(SUBNET, ("availabilityZone",), why="no rule reads the zone"),
    Case(SUBNET, ("id",), why=NAME_ONLY),
    Case(SUBNET, ("tags",), why="tags only suppress findings"),
    # --- launch template --------------------------------------------------------------------------------
    Case(LT, ("metadataOptions",), {"httpTokens": "optional"}, "SW304"),
    Case(LT, ("metadataOptions", "httpTokens"), "optional", "SW304"),
    Case(LT, ("metadataOptions", "httpPutResponseHopLimit"), 2, "SW304"),
    # an EFA interface on the stack's group once it lacks the self egress (one that names no group gets EKS's cluster
    # security group, whose rules may be added elsewhere: advisory)
    Case(LT, ("networkInterfaces",), [{"deviceIndex": 0, "interfaceType": "efa", "securityGroups": [U]}], "SW302",
         _both(_ctx(LT, ("networkInterfaces", 0, "interfaceType"), "interface"), _ctx(SG, ("egress",), []))),
    Case(LT, ("networkInterfaces", 0, "interfaceType"), "efa", "SW302",
         _both(_ctx(LT, ("networkInterfaces", 0, "interfaceType"), "interface"), _ctx(SG, ("egress",), []))),
    Case(LT, ("networkInterfaces", 0, "securityGroups"), ["sg-0other"], "SW302", undeps=True),
    Case(LT, ("vpcSecurityGroupIds",), why="the EFA interface names the groups"),
    Case(LT, ("placement",), why="no rule of a single-node workload reads the placement group"),
    Case(LT, ("placement", "groupName"), why="no rule of a single-node workload reads the placement group"),
    Case(LT, ("instanceType",), why="the node group names its instance types"),
    Case(LT, ("id",), why=NAME_ONLY),
    Case(LT, ("tags",), why="tags only suppress findings"),
    # --- node group -------------------------------------------------------------------------------------
    Case(NG, ("instanceTypes",), ["g4dn.xlarge"], "SW101"),
    Case(NG, ("launchTemplate",), {"id": "lt-0elsewhere", "version": "1"}, "SW304", undeps=True),
    Case(NG, ("launchTemplate", "id"), "lt-0elsewhere", "SW304", undeps=True),
    Case(NG, ("launchTemplate", "name"), why="read only when the id is not given"),
    Case(NG, ("subnetIds",), [urn(SUB_T, "private-a")], "SW303", _both(
        _ctx(SUBNET, ("mapPublicIpOnLaunch",), True), _ctx(NG, ("subnetIds",), ["subnet-0elsewhere"]),
        _undeps(NG, "subnetIds")), undeps=True),
    Case(NG, ("labels",), why=ADVISORY_PLACEMENT, noted="SW206"),
    Case(NG, ("labels", "shardwise.dev/pool"), why=ADVISORY_PLACEMENT, noted="SW206"),
    Case(NG, ("taints",), why=ADVISORY_PLACEMENT, noted="SW206"),
    *(Case(NG, ("taints", 0, key), why=ADVISORY_PLACEMENT, noted="SW206") for key in ("key", "effect")),
    Case(NG, ("taints", 0, "value"), why="the workload tolerates the key with any value (operator Exists)"),
    Case(NG, ("capacityType",), why="no rule reads the capacity type"),
    # with no launch template the AMI family decides SW304: Amazon Linux 2 allows IMDSv1 (blocks), AL2023 does not
    Case(NG, ("amiType",), "AL2_x86_64_GPU", "SW304", _both(_no_template(NG), _ctx(NG, ("amiType",),
                                                                                   "AL2023_x86_64_NVIDIA"))),
    Case(NG, ("nodeGroupName",), why=NAME_ONLY),
    Case(NG, ("tags",), why="tags only suppress findings"),
]


# --- Kubernetes objects ------------------------------------------------------------------------------

LB_OTHER = _both(_ctx(SVC, ("spec", "type"), "LoadBalancer"), _ctx(SVC, ("spec", "selector"), {"app": "grafana"}),
                 _ctx(SVC, ("spec", "ports"), [{"name": "http", "port": 8000, "targetPort": 8000}]))
#: As LB_OTHER, on torch.distributed's default port 29500 (advisory: the pods it selects are not in the inputs)
LB_29500 = _both(_ctx(SVC, ("spec", "type"), "LoadBalancer"), _ctx(SVC, ("spec", "selector"), {"app": "grafana"}),
                 _ctx(SVC, ("spec", "ports"), [{"port": 29500, "targetPort": 29500}]))
#: As LB_OTHER, its port named as torch.distributed's: on 29500 it blocks though the pods are not in the inputs (mend5)
LB_DIST = _both(_ctx(SVC, ("spec", "type"), "LoadBalancer"), _ctx(SVC, ("spec", "selector"), {"app": "grafana"}),
                _ctx(SVC, ("spec", "ports"), [{"name": "torch-dist", "port": 8000, "targetPort": 8000}]))
DEV_MODE = "VLLM_SERVER_DEV_MODE"
NO_ENV = _ctx(DEP, (*C0, "env"), [])  # VLLM_SERVER_DEV_MODE comes from envFrom only (env wins over envFrom)
PROBE_TIMING = "probe timings decide SW402 (advisory) only"
#: The ConfigMap of the inputs turns dev mode on, and env does not set it: envFrom decides.
DEV_CM = _both(NO_ENV, _ctx(CM, ("data",), {DEV_MODE: "1"}))
#: ... and the container takes its environment from a ConfigMap kept elsewhere instead (not guessed: it passes).
ELSEWHERE = _both(DEV_CM, _ctx(DEP, (*C0, "envFrom"), [{"configMapRef": {"name": "elsewhere"}}]))
#: The stack's pod with dev mode on (SW306 blocks it).
DEV_POD: dict[str, Any] = {"metadata": {"labels": {"app": "llama-8b"}}, "spec": {"containers": [{
    "name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["meta-llama/Llama-3.1-8B-Instruct"],
    "env": [{"name": DEV_MODE, "value": "1"}], "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}

K8S_CASES: list[Case] = [
    # the Deployment
    # a workload part that is not known may run vLLM in dev mode: SW306 fails closed (SW002 notes it)
    Case(DEP, ("spec",), {"selector": {"matchLabels": {"app": "llama-8b"}}, "template": DEV_POD}, "SW306",
         noted="SW002"),
    Case(DEP, ("spec", "template"), DEV_POD, "SW306", noted="SW002"),
    Case(DEP, ("spec", "template", "spec"), DEV_POD["spec"], "SW306", noted="SW002"),
    Case(DEP, (*POD, "containers"), DEV_POD["spec"]["containers"], "SW306", noted="SW002"),
    # readers18: only a native sidecar's named ports are read from it, for a Service's named targetPort
    Case(DEP, (*POD, "initContainers"), why="the stack's Services target port numbers, not a sidecar's port name"),
    Case(DEP, C0, DEV_POD["spec"]["containers"][0], "SW306", noted="SW002"),
    Case(DEP, (*C0, "name"), why=NAME_ONLY),
    Case(DEP, (*C0, "image"), why="the image decides nothing the command line does not"),
    Case(DEP, (*C0, "command"), why="no command: the image's entrypoint"),
    Case(DEP, (*C0, "args"), ["meta-llama/Llama-3.1-405B-Instruct"], "SW101"),
    Case(DEP, (*C0, "args", 0), "meta-llama/Llama-3.1-405B-Instruct", "SW101"),
    Case(DEP, (*C0, "args", 1), "--tensor-parallel-size", "SW204"),
    Case(DEP, (*C0, "args", 2), "16", "SW204", _ctx(DEP, (*C0, "args"), [
        "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "1", "--max-model-len", "8192",
        "--max-num-seqs", "32"])),
    Case(DEP, (*C0, "args", 3), "--tensor-parallel-size", "SW204", _ctx(DEP, (*C0, "args", 4), "16")),
    Case(DEP, (*C0, "args", 4), why="no load is declared: SW103 has nothing to judge; SW102 reports the unknown",
         noted="SW102"),
    Case(DEP, (*C0, "env"), [{"name": DEV_MODE, "value": "1"}], "SW306"),
    Case(DEP, (*C0, "env", 0), {"name": DEV_MODE, "value": "1"}, "SW306"),
    Case(DEP, (*C0, "env", 0, "name"), DEV_MODE, "SW306", _ctx(DEP, (*C0, "env", 0), {"name": "OTHER", "value": "1"})),
    Case(DEP, (*C0, "env", 0, "value"), "1", "SW306"),
    # envFrom: a ConfigMap of the inputs is read; what a Secret or a ConfigMap kept elsewhere holds is not guessed
    Case(DEP, (*C0, "envFrom"), [{"configMapRef": {"name": "vllm-env"}}], "SW306",
         _both(DEV_CM, _ctx(DEP, (*C0, "envFrom"), [{"secretRef": {"name": "vllm-secrets"}}]))),
    Case(DEP, (*C0, "envFrom", 0), {"configMapRef": {"name": "vllm-env"}}, "SW306", ELSEWHERE),
    Case(DEP, (*C0, "envFrom", 0, "configMapRef"), {"name": "vllm-env"}, "SW306", ELSEWHERE),
    Case(DEP, (*C0, "envFrom", 0, "configMapRef", "name"), "vllm-env", "SW306", ELSEWHERE),
    Case(DEP, (*C0, "envFrom", 0, "prefix"), "VLLM_SERVER_", "SW306", _both(NO_ENV, _ctx(CM, ("data",), {"DEV_MODE": "1"}))),
    Case(DEP, (*C0, "envFrom", 0, "secretRef"), why="what a Secret holds is not guessed (it is not in the inputs)",
         context=_both(DEV_CM, _ctx(DEP, (*C0, "envFrom"), [{"secretRef": {"name": "vllm-secrets"}}]))),
    Case(DEP, (*POD, "resources"), why="a pod's own resources take only cpu, memory and huge pages: a GPU there is "
         "refused, never the pod's (readers20)"),
    Case(DEP, (*C0, "resources"), {"limits": {"nvidia.com/gpu": 1}}, None, why="the same"),
    Case(DEP, (*C0, "resources", "limits"), why="one GPU for TP1 either way"),
    Case(DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), 0, "SW204"),
    Case(DEP, (*POD, "runtimeClassName"), why="the container requests its GPU: a runtime class decides only for "
         "one that requests none (SW204 is undecided then)"),
    Case(DEP, (*C0, "ports"), why="no Service sends outside traffic to this pod's ports"),
    Case(DEP, (*C0, "ports", 0, "containerPort"), why="no Service sends outside traffic to this pod's ports"),
    Case(DEP, (*C0, "ports", 0, "name"), why="no Service sends outside traffic to this pod's ports"),
    *(Case(DEP, (*C0, probe), why=PROBE_TIMING) for probe in ("startupProbe", "livenessProbe", "readinessProbe")),
    *(Case(DEP, (*C0, probe, key), why=PROBE_TIMING) for probe in ("startupProbe", "livenessProbe", "readinessProbe")
      for key in ("periodSeconds", "failureThreshold", "httpGet")),
    Case(DEP, (*POD, "nodeSelector"), why=ADVISORY_PLACEMENT, noted="SW206"),
    Case(DEP, (*POD, "nodeSelector", "shardwise.dev/pool"), why=ADVISORY_PLACEMENT, noted="SW206"),
    Case(DEP, (*POD, "tolerations"), why=ADVISORY_PLACEMENT, noted="SW206"),
    *(Case(DEP, (*POD, "tolerations", 0, key), why=ADVISORY_PLACEMENT, noted="SW206")
      for key in ("key", "operator", "effect")),
    Case(DEP, (*POD, "hostNetwork"), True, "SW309"),
    Case(DEP, (*POD, "hostIPC"), why="SW309 reports hostIPC as advisory", noted="SW309"),
    Case(DEP, (*POD, "hostPID"), True, "SW309"),
    Case(DEP, ("spec", "template", "metadata"), why="labels and annotations: no Service exposes these pods"),
    Case(DEP, ("spec", "template", "metadata", "labels"), {"app": "grafana"}, "SW306", LB_OTHER),
    Case(DEP, ("spec", "template", "metadata", "labels", "app"), "grafana", "SW306", LB_OTHER),
    Case(DEP, ("spec", "replicas"), why="no rule blocks on a replica count outside production"),
    # read only by the walk that looks for ${VAR} placeholders outside shell fields (corpus23's template evidence),
    # where an unknown holds none; a Service selects the pod template's labels, not the Deployment's selector
    *(Case(DEP, path, why="only the ${VAR} placeholder walk reads it, and an unknown holds no placeholder")
      for path in (("spec", "selector"), ("spec", "selector", "matchLabels"), ("spec", "selector", "matchLabels", "app"))),
    Case(DEP, ("metadata",), why="the namespace decides SW305 (advisory for a single-node group)", noted="SW305"),
    Case(DEP, ("metadata", "namespace"), why="the namespace decides SW305 (advisory for a single-node group)",
         noted="SW305"),
    Case(DEP, ("metadata", "name"), why=NAME_ONLY),
    Case(DEP, ("apiVersion",), why="the resource's type token gives it"),
    Case(DEP, ("kind",), why="the resource's type token gives it"),
    Case(DEP, ("metadata", "annotations"), why="annotations only suppress findings here"),
    Case(DEP, ("spec", "template", "metadata", "annotations"), why="annotations only suppress findings here"),
    Case(DEP, (*POD, "affinity"), why=ADVISORY_PLACEMENT, noted="SW206"),
    Case(DEP, (*POD, "tolerations", 0, "value"), why=ADVISORY_PLACEMENT),
    Case(DEP, (*POD, "nodeName"), why=ADVISORY_PLACEMENT),  # mend37: a pin to a Node; no Node is in this stack
    *(Case(DEP, (*C0, probe, key), why=PROBE_TIMING) for probe in ("startupProbe", "livenessProbe", "readinessProbe")
      for key in ("grpc", "tcpSocket", "initialDelaySeconds", "timeoutSeconds")),
    *(Case(DEP, (*C0, probe, "httpGet", key), why=PROBE_TIMING)
      for probe in ("startupProbe", "livenessProbe", "readinessProbe") for key in ("path", "port")),
    Case(DEP, (*C0, "resources", "limits", "vpc.amazonaws.com/efa"), why="EFA requests matter to multi-node groups"),
    Case(DEP, (*C0, "resources", "requests"), why="the limits give the GPUs"),
    Case(DEP, (*C0, "resources", "claims"), why="the limits give the GPUs; claims count when they do not"),
    Case(DEP, (*POD, "resourceClaims"), why="the limits give the GPUs; the claims a container names count when "
         "they do not"),
    Case(DEP, ("spec", "leaderWorkerTemplate"), why="a Deployment has no leader/worker template"),
    Case(DEP, (*C0, "securityContext"), {"privileged": True}, "SW309"),
    Case(DEP, (*POD, "securityContext"), why="seccomp is advisory", noted="SW309"),
    Case(DEP, (*C0, "volumeMounts"), why="/dev/shm matters to TP > 1 only"),
    Case(DEP, (*POD, "volumes"), why="/dev/shm matters to TP > 1 only"),
    # the Service
    Case(SVC, ("spec",), "LoadBalancer-ish", None, why="an unknown spec is an unknown type", noted="SW306"),
    Case(SVC, ("spec", "type"), "LoadBalancer", "SW306"),
    # the AWS Load Balancer Controller's class makes the NLB internal (advisory); another class may be public
    Case(SVC, ("spec", "loadBalancerClass"), "example.com/lb", "SW306", _both(
        _ctx(SVC, ("spec", "type"), "LoadBalancer"), _ctx(SVC, ("spec", "loadBalancerClass"), "service.k8s.aws/nlb"),
        _ctx(SVC, ("metadata", "annotations"), {}))),
    # the scheme decides whether an NLB of the AWS Load Balancer Controller is public: unknown, it blocks
    Case(SVC, ("metadata", "annotations", "service.beta.kubernetes.io/aws-load-balancer-scheme"), "internet-facing",
         "SW306", _both(_ctx(SVC, ("spec", "type"), "LoadBalancer"),
                        _ctx(SVC, ("spec", "loadBalancerClass"), "service.k8s.aws/nlb"),
                        _ctx(SVC, ("metadata", "annotations"), {"service.beta.kubernetes.io/aws-load-balancer-scheme":
                                                                "internal"}))),
    Case(SVC, ("spec", "selector"), {"app": "llama-8b"}, "SW306", LB_OTHER),
    Case(SVC, ("spec", "selector", "app"), "llama-8b", "SW306", LB_OTHER),
    # a runtime's default port on pods not in the inputs (grafana's) is advisory (mend3, mend5); named as
    # torch.distributed's (torch-dist) it blocks
    Case(SVC, ("spec", "ports"), [{"name": "torch-dist", "port": 29500, "targetPort": 29500}], "SW301", LB_OTHER),
    Case(SVC, ("spec", "ports", 0), {"name": "torch-dist", "port": 29500, "targetPort": 29500}, "SW301", LB_OTHER),
    Case(SVC, ("spec", "ports", 0, "port"), 29500, "SW301", LB_DIST),
    Case(SVC, ("spec", "ports", 0, "targetPort"), 29500, "SW301", LB_DIST),
    # a selector not known yet may select a process group's pods: 29500 there blocks (fail closed), as it does on a
    # PyTorchJob's (mend5); on the one-GPU vLLM server llama-8b it would not (review31: it opens no 29500)
    Case(SVC, ("spec", "selector"), {"training.kubeflow.org/job-name": "bert"}, "SW301", LB_29500),
    Case(SVC, ("spec", "ports", 0, "name"), why=NAME_ONLY),
    Case(SVC, ("metadata", "namespace"), why="a ClusterIP Service exposes nothing"),
    Case(SVC, ("metadata", "name"), why=NAME_ONLY),
    Case(SVC, ("metadata",), why="a ClusterIP Service exposes nothing"),
    Case(SVC, ("metadata", "annotations"), why="annotations only suppress findings here"),
    *(Case(t, (key,), why="the resource's type token gives it") for t in (SVC, NP, CM) for key in ("apiVersion", "kind")),
    # the NetworkPolicy and the ConfigMap
    Case(NP, ("spec",), why="SW305 is advisory for a single-node group", noted="SW305"),
    Case(NP, ("spec", "podSelector"), why="SW305 is advisory for a single-node group", noted="SW305"),
    Case(NP, ("spec", "policyTypes"), why="SW305 is advisory for a single-node group", noted="SW305"),
    Case(NP, ("metadata", "namespace"), why="SW305 is advisory for a single-node group", noted="SW305"),
    *(Case(NP, path, why="SW305 is advisory for a single-node group", noted="SW305") for path in (
        ("spec", "egress"), ("spec", "ingress"), ("spec", "podSelector", "matchExpressions"),
        ("spec", "podSelector", "matchLabels"), ("spec", "policyTypes", 0), ("metadata",))),
    Case(NP, ("metadata", "name"), why=NAME_ONLY),
    Case(CM, ("metadata", "name"), "vllm-env", "SW306", _both(DEV_CM, _ctx(CM, ("metadata", "name"), "other"))),
    Case(CM, ("metadata",), {"name": "vllm-env", "namespace": "serving"}, "SW306",
         _both(DEV_CM, _ctx(CM, ("metadata", "name"), "other"))),
    Case(CM, ("metadata", "annotations"), why="annotations only suppress findings here"),
    Case(CM, ("spec",), why="a ConfigMap has no spec: only the search for an operator's vLLM mentions looks there"),
    Case(CM, ("data",), {DEV_MODE: "1"}, "SW306", NO_ENV),
    Case(CM, ("data", "HF_HUB_OFFLINE"), "1", None, NO_ENV, why="no rule reads it"),
    Case(CM, ("metadata", "namespace"), "serving", "SW306", _both(DEV_CM, _ctx(CM, ("metadata", "namespace"),
                                                                                "elsewhere"))),
]
CASES += K8S_CASES


def _steps(edit: Edit | None = None) -> list[dict[str, Any]]:
    doc = stack_preview()
    if edit is not None:
        edit(doc["steps"])
    steps: list[dict[str, Any]] = doc["steps"]
    return steps


def _doc(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"steps": steps, "changeSummary": {"create": len(steps)}}


def _mandatory(findings: list[dict[str, Any]]) -> set[str]:
    """The rules that block: each finding's ``codes`` (a merged "cannot decide" finding is of every rule it holds
    back, engine.merge_undecided)."""
    return {c for f in findings if f["level"] == "mandatory" and not f["suppressed"] for c in f["codes"]}


def _variant(case: Case, value: Any) -> list[dict[str, Any]]:
    steps = _steps(case.context)
    _set(steps, case.res, case.path, copy.deepcopy(value))
    if value is U and case.undeps:
        steps[case.res]["newState"].get("propertyDependencies", {}).pop(case.path[0], None)
    return steps


@pytest.mark.slow  # a sweep over every case: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_an_unknown_never_passes_where_a_value_blocks(tmp_path: Path, case: Case) -> None:
    if case.context is not None:
        code, errors, findings = lint_document(tmp_path, _doc(_steps(case.context)))
        assert (code, errors, _mandatory(findings)) == (0, "", set()), "the context alone must pass"
    if case.bad is not NO_BAD and case.code is not None:
        code, errors, findings = lint_document(tmp_path, _doc(_variant(case, case.bad)))
        assert (code, errors) == (1, "") and case.code in _mandatory(findings), (findings, errors)
    code, errors, findings = lint_document(tmp_path, _doc(_variant(case, U)))
    assert code in (0, 1) and errors == "", errors
    assert [f for f in findings if f["internal"]] == []
    if case.bad is not NO_BAD and case.code is not None:
        if case.code.startswith(("SW1", "SW2")):  # an undecided capacity or topology finding is advisory
            assert case.code in _undecided_codes(findings), findings
        else:  # security and reliability rules fail closed
            assert code == 1 and case.code in _mandatory(findings), findings
    if case.noted:
        assert case.noted in {f["code"] for f in findings} | _undecided_codes(findings), findings


def _undecided_codes(findings: list[dict]) -> set[str]:
    """The codes of the undecided findings, with those one of them holds back (the report merges the
    ones about the same unknown value at the same level: engine.merge_undecided), which its message names."""
    out = set()
    for f in findings:
        if f["undecided"]:
            out.update(f["codes"])
            m = re.search(r"this holds back (.*), which (?:block|are checked)", f["message"])
            named = re.findall(r"(SW\d{3})(?: \(whether [^)]*\))?(?:, |$)", m.group(1)) if m else [f["code"]]
            assert named == f["codes"], f
    return out


# --- every property read has a case --------------------------------------------------------------------


def _normal(path: Path_) -> Path_:
    return tuple("*" if isinstance(p, int) else p for p in path)


def census(monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, Path_]]:
    """(resource type, property path) of every typed read the AWS readers make on the stack."""
    seen: set[tuple[str, Path_]] = set()
    current = [""]

    def record(fn: Callable[..., Any]) -> Callable[..., Any]:
        def read(value: Any, path: str, *args: Any, **kwargs: Any) -> Any:
            head, _, label = path.partition(".") if path.startswith("labels.") else (path, "", "")
            parts = tuple(int(p) if p.isdigit() else p for p in re.split(r"\.|\[(\d+)\]", head) if p)
            parts += (label,) if label else ()
            seen.add((current[0], parts))
            return fn(value, path, *args, **kwargs)
        return read

    def reader(fn: Callable[..., Any]) -> Callable[..., Any]:
        def read(res: Any, *args: Any, **kwargs: Any) -> Any:
            current[0] = res.type
            return fn(res, *args, **kwargs)
        return read

    for name in ("obj", "objs", "text", "texts", "whole", "flag"):
        monkeypatch.setattr(pulumi_aws, name, record(getattr(pulumi_aws, name)))
    for name in ("security_group", "rule_resource", "launch_template", "subnet", "node_group"):
        monkeypatch.setattr(pulumi_aws, name, reader(getattr(pulumi_aws, name)))
    adapter.inventory_from_resources(resources_from_json(stack_preview(), "p.json"))
    return seen


def test_every_aws_property_the_adapter_reads_has_a_case(monkeypatch: pytest.MonkeyPatch) -> None:
    read = {(t, _normal(p)) for t, p in census(monkeypatch)}
    cases = {(TYPES[c.res], _normal(c.path)) for c in CASES}
    assert sorted(read - cases, key=str) == []


class _Reads(dict):  # type: ignore[type-arg]
    """A manifest that records the path of every key the Kubernetes readers look up."""

    def __init__(self, data: dict[str, Any], path: Path_, seen: set[Path_]) -> None:
        super().__init__({k: _recording(v, (*path, k), seen) for k, v in data.items()})
        self._path, self._seen = path, seen

    def _read(self, key: Any) -> None:
        self._seen.add((*self._path, key))
        value = dict.get(self, key)
        if isinstance(value, list):  # the words of args, the entries of policyTypes...
            self._seen.update((*self._path, key, i) for i, v in enumerate(value) if not isinstance(v, dict))

    def get(self, key: Any, default: Any = None) -> Any:
        self._read(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._read(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._read(key)
        return super().__contains__(key)

    def items(self):  # type: ignore[override]
        for key in list(self.keys()):
            self._read(key)
        return super().items()


def _recording(value: Any, path: Path_, seen: set[Path_]) -> Any:
    if isinstance(value, dict):
        return _Reads(value, path, seen)
    if isinstance(value, list):
        return [_recording(v, (*path, i), seen) for i, v in enumerate(value)]
    return value


def kubernetes_census(monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, Path_]]:
    """(resource type, property path) of every key the Kubernetes readers look up in the stack's objects."""
    seen: dict[str, set[Path_]] = {}
    prepare = pulumi_k8s.prepare_manifest
    current = [""]

    def recorded(props: Any) -> Any:
        manifest, unknown = prepare(props)
        return _Reads(manifest, (), seen.setdefault(current[0], set())), unknown

    read = pulumi_k8s.kubernetes

    def kubernetes(res: Any, props: Any, api: Any) -> Any:
        current[0] = res.type
        return read(res, props, api)

    monkeypatch.setattr(pulumi_k8s, "prepare_manifest", recorded)
    monkeypatch.setattr(pulumi_inventory, "kubernetes", kubernetes)  # where inventory_from_resources calls it
    adapter.inventory_from_resources(resources_from_json(stack_preview(), "p.json"))
    return {(t, p) for t, paths in seen.items() for p in paths}


#: What the Kubernetes readers look up but no case sets: the object's identity and fields whose every
#: value passes in this stack (a probe's handler, other probe timings, volumes of a TP1 workload...).
#: Each still gets the unknown run, through :data:`CASES` built from it below.
def test_every_kubernetes_property_the_adapter_reads_has_a_case(monkeypatch: pytest.MonkeyPatch) -> None:
    read = {(t, _normal(p)) for t, p in kubernetes_census(monkeypatch)}
    cases = {(TYPES[c.res], _normal(c.path)) for c in CASES}
    assert sorted(read - cases, key=str) == []


# --- a value of the wrong type ------------------------------------------------------------------------

AWS_CASES = [c for c in CASES if TYPES[c.res].startswith("aws:")]


#: Properties whose value is an array or an object (the others are scalars).
CONTAINERS = {"ingress", "egress", "cidrBlocks", "ipv6CidrBlocks", "prefixListIds", "securityGroups",
              "vpcSecurityGroupIds", "networkInterfaces", "subnetIds", "instanceTypes", "taints", "tags",
              "metadataOptions", "placement", "launchTemplate", "labels"}


def _wrong_type(path: Path_) -> Any:
    """A value of another JSON type than the property's: a string for an array or an object, else an array."""
    return "x" if path and path[-1] in CONTAINERS else ["x"]


def _line_of_urn(text: str, res_urn: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if f'"urn": "{res_urn}"' in line)


@pytest.mark.slow  # a sweep over every case: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize("case", AWS_CASES, ids=lambda c: c.id)
def test_a_wrongly_typed_aws_property_is_an_input_error_naming_it(tmp_path: Path, case: Case) -> None:
    steps = _steps(case.context)
    wrong = _wrong_type(case.path)
    _set(steps, case.res, case.path, wrong)
    doc = _doc(steps)
    code, errors, _ = lint_document(tmp_path, doc)
    res_urn = steps[case.res]["urn"]
    line = _line_of_urn((tmp_path / "p.json").read_text(encoding="utf-8"), res_urn)
    found = "a string" if wrong == "x" else "an array"
    assert (code, errors) == (2, f"shardwise: error: p.json:{line}: {TYPES[case.res]} {res_urn}: "
                                 f"{_message_path(case.path)}: expected {_expected(case, errors)}, found {found}\n")


def _message_path(path: Path_) -> str:
    return f"labels.{path[1]}" if path[0] == "labels" and len(path) == 2 else _dotted(path)


def _expected(case: Case, errors: str) -> str:
    """The type the reader expects, as its message words it (checked against the table below)."""
    m = re.search(r": expected (.+), found", errors)
    word = m.group(1) if m else "?"
    assert word in ("a string", "an array of strings", "an object", "an array of objects", "a whole number",
                    "true or false"), errors
    return word


# --- the policy pack ---------------------------------------------------------------------------------------


def _pulumi_resources(steps: list[dict[str, Any]]) -> list[Any]:
    return resources_from_json(_doc(steps), "p.json")


@pytest.mark.slow  # a sweep over every case: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_pack_reads_every_unknown_without_an_internal_error(case: Case) -> None:
    resources = _pulumi_resources(_variant(case, U))
    context = crossguard.StackContext()
    analyses = [crossguard.stack_analysis(resources, context),
                *(crossguard.resource_analysis(r, context) for r in resources)]
    blocked: set[str] = set()
    for analysis in analyses:
        reports = [r for rule in ALL_RULES for r in analysis.check(rule, None, context)]
        assert analysis.internal == [], analysis.internal
        assert all(r.message.startswith(("SW", "shardwise")) for r in reports)
        # the policy's own violations (not its notes), where the pack runs the policy
        blocked.update(r.message[:5] for rule in ALL_RULES if rule.meta.scope == analysis.scope
                       for r in analysis.check(rule, None, context))
    if case.bad is not NO_BAD and case.code is not None and not case.code.startswith(("SW1", "SW2")):
        # a security or reliability rule that blocks the value fails closed on its unknown in the pack too
        assert case.code in blocked, (case.id, blocked)


@pytest.mark.slow
@pytest.mark.usefixtures("pack_transport")
def test_no_pack_rpc_fails_on_an_unknown_or_a_wrong_type() -> None:
    from grpc_harness import PackProcess, Resource

    def engine_resources(steps: list[dict[str, Any]]) -> list[Resource]:
        return [Resource(s["newState"]["type"], s["urn"].rsplit("::", 1)[-1], s["urn"], s["newState"]["inputs"],
                         property_dependencies=s["newState"].get("propertyDependencies"))
                for s in steps]

    with PackProcess(stack="dev") as pack:
        pack.handshake()
        pack.configure_stack()
        pack.info()
        for case in CASES:
            # (a value signature the SDK does not know fails the RPC itself, before any policy: test_pack_grpc's
            # test_a_value_the_sdk_cannot_read_fails_the_request)
            for value in (U, _wrong_type(case.path)):
                resources = engine_resources(_variant(case, value))
                diagnostics = [*pack.analyze(resources[case.res]), *pack.analyze_stack(resources)]
                crashes = [d.message for d in diagnostics if "internal error" in d.message]
                assert crashes == [], (case.id, value, crashes)
        assert pack.proc.poll() is None


# --- what an unknown inside a Kubernetes object reads as, exactly -------------------------------

NOT_KNOWN = "is not known (a computed value or an unresolved reference)"
#: What decides a preview's unknown output (engine.what_decides: the resource has a URN)
AT_UP = "lint the `pulumi up` state, or write the value as a literal"
UNDECIDED = f"{NOT_KNOWN}: {AT_UP}"
AT_PREVIEW = "is not known (a computed value at preview; lint the `pulumi up` state, or write the value as a literal)"
NOT_CHECKED = ("is not known until the preview's unknown values are (a computed value); lint the `pulumi up` "
               "state, or pass the value as a literal")


def _finding(f: dict[str, Any]) -> tuple[str, str, str]:
    return f["code"], f["level"], f["message"]


@pytest.mark.parametrize(("path", "context", "expected"), [
    ((SVC, ("spec", "selector")), LB_OTHER, [
        ("SW306", "mandatory", f"SW306: cannot decide: the selector of Service `llama-8b` {UNDECIDED}")]),
    ((DEP, ("spec", "template", "metadata", "labels")), LB_OTHER, [
        ("SW306", "mandatory", "SW306: cannot decide: the label set of the pods of Deployment `llama-8b` "
                               f"{UNDECIDED}")]),
    ((SVC, ("spec", "ports")), LB_OTHER, [
        ("SW301", "mandatory", f"SW301: cannot decide: a port of Service `llama-8b` {UNDECIDED}")]),
    ((SVC, ("spec", "ports", 0, "port")), LB_OTHER, [
        ("SW301", "mandatory", f"SW301: cannot decide: a port of Service `llama-8b` {UNDECIDED}")]),
    ((SVC, ("spec", "ports", 0, "targetPort")), LB_OTHER, [
        ("SW301", "mandatory", f"SW301: cannot decide: a targetPort of Service `llama-8b` {UNDECIDED}")]),
    ((DEP, (*C0, "env")), None, [
        ("SW306", "mandatory", f"SW306: cannot decide: VLLM_SERVER_DEV_MODE of container `vllm` {UNDECIDED}")]),
    # fuzz19 (seed 7405): an entry not known yet after `VLLM_SERVER_DEV_MODE: "0"` may set it again (the last entry
    # of a name wins); before, the known "0" was read and SW306 passed
    *(((DEP, (*C0, "env", 1, *tail)), _ctx(DEP, (*C0, "env"), [{"name": DEV_MODE, "value": "0"},
                                                            {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}]), [
        ("SW306", "mandatory", f"SW306: cannot decide: VLLM_SERVER_DEV_MODE of container `vllm` {UNDECIDED}")])
      for tail in ((), ("name",))),
    ((DEP, ("metadata", "namespace")), None, [
        ("SW305", "advisory", f"SW305: cannot decide: the namespace {UNDECIDED}")]),
    # hostile7: a policy not known yet was said to "select only some pods or allow ingress"
    *(((NP, path), None, [
        ("SW305", "advisory", f"SW305: cannot decide: {'.'.join(path)} of NetworkPolicy `default-deny` {UNDECIDED}")])
      for path in (("spec",), ("spec", "policyTypes"), ("spec", "podSelector"))),
    *(((DEP, (*C0, *where)), None, [  # not "requests no GPUs"
        ("SW204", "advisory", f"SW204: cannot decide: the GPU request (nvidia.com/gpu limit) {NOT_KNOWN}; this holds "
                              f"back SW204, SW208, which are checked once the value is known: {AT_UP}")])
      for where in (("resources",), ("resources", "limits"))),
    ((DEP, (*C0, "image")), None, [
        ("SW307", "advisory", f"SW307: cannot decide: image of container `vllm` {UNDECIDED}")]),
    *(((DEP, path), None, [
        ("SW002", "advisory", f"SW002: cannot check this workload: {part} {NOT_CHECKED}"),
        # one blocking finding for the one unknown part, naming each rule it holds back (engine.merge_undecided)
        ("SW306", "mandatory", f"SW306: cannot decide: {part} {AT_PREVIEW}; this holds back SW306 (whether its "
                               "containers set VLLM_SERVER_DEV_MODE), SW308 (whether its containers write a "
                               "credential into the manifest), SW309 (whether its pods share the node's namespaces "
                               "or run privileged containers), SW310 (whether its containers set "
                               "NVIDIA_VISIBLE_DEVICES), which block until the value is known")])
      for path, part in (
          (("spec", "template"), "its pod template (spec.template)"),
          (("spec", "template", "spec"), "its pod spec (spec.template.spec)"),
          ((*POD, "containers"), "its container list (spec.template.spec.containers)"),
          (C0, "one of its containers (spec.template.spec.containers[0])"),
      )),
], ids=lambda v: _dotted(v[1]) if isinstance(v, tuple) and len(v) == 2 else None)
def test_an_unknown_in_a_kubernetes_object_is_never_read_as_absent(tmp_path: Path, path: tuple[int, Path_],
                                                                   context: Edit | None, expected: list[Any]) -> None:
    res, where = path
    steps = _steps(context)
    _set(steps, res, where, U)
    code, errors, findings = lint_document(tmp_path, _doc(steps))
    relevant = {e[0] for e in expected}
    assert (code, errors) == (1 if any(e[1] == "mandatory" for e in expected) else 0, "")
    assert sorted(_finding(f) for f in findings if set(f["codes"]) & relevant) == sorted(expected)


@pytest.mark.parametrize(("target", "expected"), [
    ("llama-8b", []),  # the HPA keeps 3 warm: nothing to say
    (U, [("SW404", "advisory", "SW404: cannot decide: which workload HorizontalPodAutoscaler `llama` scales (its "
                               "scaleTargetRef), and so how many replicas it keeps warm is not known (a computed value "
                               "or an unresolved reference): lint the `pulumi up` state, or write the value as a "
                               "literal")]),
    ("other", [("SW404", "advisory", "SW404: 1 warm replica in production (replicas is 1), where at least 2 are "
                                     "required; production: shardwise.toml sets `production`")]),
])
def test_sw404_an_autoscaler_whose_target_is_not_known_may_keep_replicas_warm(tmp_path, monkeypatch, target,
                                                                             expected):
    """review27: an HPA's scaleTargetRef not known at preview was read as scaling nothing, so SW404 said a production
    Deployment of replicas 1 keeps 1 warm where the HPA (minReplicas 3) may be its own."""
    doc = stack_preview()
    dep = next(s for s in doc["steps"] if s["newState"]["type"] == DEP_T)
    dep["newState"]["inputs"]["spec"]["replicas"] = 1
    doc["steps"].append(step(HPA_T, "llama", {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "llama", "namespace": "serving"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
                 "minReplicas": 3, "maxReplicas": 4,
                 "metrics": [{"type": "Pods", "pods": {"metric": {"name": "vllm:num_requests_waiting"},
                                                       "target": {"type": "AverageValue", "averageValue": "5"}}}]}}))
    (tmp_path / "shardwise.toml").write_text("production = true\n")
    monkeypatch.chdir(tmp_path)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["code"], f["level"], f["message"]) for f in findings] == expected


@pytest.mark.parametrize("key", ["nodePort", "protocol", "appProtocol"])
@pytest.mark.parametrize(("context", "expected"), [
    # Grafana's pods behind a LoadBalancer on 8000: nothing to say (before, the entry read as unknown and SW301 blocked
    # on "a port of Service `llama-8b`", or behind an Ingress "a targetPort", though both are literals)
    (LB_OTHER, []),
    # vLLM's pods behind it: the known port is judged, and no `<unknown>` is printed among the ports
    (_both(LB, _ctx(SVC, ("spec", "ports"), [{"name": "http", "port": 8000, "targetPort": "http",
                                              "nodePort": 30080, "protocol": "TCP", "appProtocol": "http"}])),
     [("SW306", "mandatory", "SW306: Service `serving/llama-8b` of type LoadBalancer exposes Deployment "
                             "serving/llama-8b directly on port 8000, with no gateway that authenticates clients; make "
                             "it `type: ClusterIP` and publish vLLM only through a gateway or Ingress that does")]),
], ids=["grafana", "vllm"])
def test_an_unknown_service_port_key_no_rule_reads_is_not_an_unknown_port(tmp_path: Path, key: str,
                                                                         context: Edit, expected: list[Any]) -> None:
    """review34: a Service port's nodePort (or protocol) not known at preview made the whole entry unknown, so SW301
    blocked naming "a targetPort" or "a port" that the program wrote as a literal. No rule reads those keys."""
    steps = _steps(context)
    _set(steps, SVC, ("spec", "ports", 0, key), U)
    code, errors, findings = lint_document(tmp_path, _doc(steps))
    assert (code, errors) == (1 if expected else 0, "")
    assert sorted(_finding(f) for f in findings if set(f["codes"]) & {"SW301", "SW306"}) == expected


def test_sw306_a_service_port_not_known_is_named_so(tmp_path: Path) -> None:
    """mend12: a Service whose second port is not known at preview printed the model's `<unknown>` among its ports."""
    steps = _steps(_both(LB, _ctx(SVC, ("spec", "ports"), [{"name": "http", "port": 8000, "targetPort": "http"},
                                                           {"name": "metrics", "port": 9090}])))
    _set(steps, SVC, ("spec", "ports", 1, "port"), U)
    code, errors, findings = lint_document(tmp_path, _doc(steps))
    assert (code, errors) == (1, "")
    assert [_finding(f)[2] for f in findings if f["code"] == "SW306"] == [
        "SW306: Service `serving/llama-8b` of type LoadBalancer exposes Deployment serving/llama-8b directly on port "
        "8000 and a port not known yet, with no gateway that authenticates clients; make it `type: ClusterIP` and "
        "publish vLLM only through a gateway or Ingress that does"]
