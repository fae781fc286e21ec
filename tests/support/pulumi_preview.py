"""A small ``pulumi preview --json`` of a GPU serving stack, for the unknown-value suites.

:func:`stack_preview` returns the document: every resource type the Pulumi adapter reads (security
group, its three kinds of rule resources, subnet, placement group, launch template, EKS node group)
and the Kubernetes objects of one vLLM workload (Deployment, Service, NetworkPolicy, ConfigMap,
autoscaler), as a first ``pulumi preview`` sees them: resources being created, ids unknown,
references through property dependencies. It passes ``shardwise lint`` with no finding.
:func:`lint_document` lints a document in-process and returns the exit status, the error lines and
the findings.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from shardwise.rules.app.cli import main

U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown string
PREFIX = "urn:pulumi:dev::llm::"

SG_T = "aws:ec2/securityGroup:SecurityGroup"
RULE_T = "aws:ec2/securityGroupRule:SecurityGroupRule"
IN_T = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
OUT_T = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
SUB_T = "aws:ec2/subnet:Subnet"
PG_T = "aws:ec2/placementGroup:PlacementGroup"
LT_T = "aws:ec2/launchTemplate:LaunchTemplate"
NG_T = "aws:eks/nodeGroup:NodeGroup"
DEP_T = "kubernetes:apps/v1:Deployment"
SVC_T = "kubernetes:core/v1:Service"
NP_T = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
CM_T = "kubernetes:core/v1:ConfigMap"
HPA_T = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"


def urn(type_: str, name: str) -> str:
    return f"{PREFIX}{type_}::{name}"


def step(type_: str, name: str, inputs: dict[str, Any], deps: dict[str, list[str]] | None = None) -> dict[str, Any]:
    state: dict[str, Any] = {"urn": urn(type_, name), "type": type_, "inputs": inputs, "outputs": {}}
    if deps:
        state["propertyDependencies"] = deps
    return {"op": "create", "urn": urn(type_, name), "newState": state}


def stack_preview() -> dict[str, Any]:
    sg = [urn(SG_T, "gpu-nodes")]
    labels = {"app": "llama-8b"}
    return {"steps": [
        step(SG_T, "gpu-nodes", {
            "description": "GPU nodes", "tags": {"Name": "gpu-nodes"},
            "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
            "egress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
        }),
        step(RULE_T, "gpu-nodes-https", {
            "type": "ingress", "protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["10.0.0.0/8"],
            "securityGroupId": U,
        }, {"securityGroupId": sg}),
        step(IN_T, "gpu-nodes-api", {
            "securityGroupId": U, "ipProtocol": "tcp", "fromPort": 8000, "toPort": 8000, "cidrIpv4": "10.0.0.0/8",
        }, {"securityGroupId": sg}),
        step(OUT_T, "gpu-nodes-https-out", {
            "securityGroupId": U, "ipProtocol": "tcp", "fromPort": 443, "toPort": 443, "cidrIpv4": "0.0.0.0/0",
        }, {"securityGroupId": sg}),
        step(SUB_T, "private-a", {"vpcId": U, "cidrBlock": "10.0.0.0/20", "availabilityZone": "us-east-1a",
                                  "mapPublicIpOnLaunch": False}),
        step(PG_T, "cluster", {"strategy": "cluster", "name": "h100-cluster"}),
        step(LT_T, "gpu-lt", {
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1},
            "networkInterfaces": [{"deviceIndex": 0, "networkCardIndex": 0, "interfaceType": "efa",
                                   "securityGroups": [U]}],
            "placement": {"groupName": U},
        }, {"networkInterfaces": sg, "placement": [urn(PG_T, "cluster")]}),
        step(NG_T, "h100", {
            "clusterName": "llm", "nodeGroupName": "h100", "instanceTypes": ["p5.48xlarge"],
            "capacityType": "ON_DEMAND", "labels": {"shardwise.dev/pool": "h100"},
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
            "launchTemplate": {"id": U, "version": U}, "subnetIds": [U],
            "scalingConfig": {"minSize": 2, "desiredSize": 2, "maxSize": 4},
        }, {"launchTemplate": [urn(LT_T, "gpu-lt")], "subnetIds": [urn(SUB_T, "private-a")]}),
        step(DEP_T, "llama-8b", {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "llama-8b", "namespace": "serving"},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeSelector": {"shardwise.dev/pool": "h100"},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{
                        "name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "32"],
                        "env": [{"name": "VLLM_SERVER_DEV_MODE", "value": "0"}],
                        "envFrom": [{"configMapRef": {"name": "vllm-env"}}],
                        "ports": [{"name": "http", "containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "startupProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10,
                                         "failureThreshold": 120},
                        "livenessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10,
                                          "failureThreshold": 3},
                        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5},
                    }],
                },
            }},
        }),
        step(CM_T, "vllm-env", {"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "vllm-env", "namespace": "serving"},
                                "data": {"HF_HUB_OFFLINE": "1"}}),
        # the scheme annotation says what a LoadBalancer made of it would be (an EKS cluster's AWS Load Balancer
        # Controller or Auto Mode make one internal without it): a ClusterIP ignores it
        step(SVC_T, "llama-8b-svc", {
            "apiVersion": "v1", "kind": "Service", "metadata": {
                "name": "llama-8b", "namespace": "serving",
                "annotations": {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing"}},
            "spec": {"type": "ClusterIP", "selector": labels,
                     "ports": [{"name": "http", "port": 8000, "targetPort": "http"}]},
        }),
        step(NP_T, "default-deny", {
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "default-deny", "namespace": "serving"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
        }),
    ], "changeSummary": {"create": 12}}


def lint_document(tmp_path: Path, doc: dict[str, Any], name: str = "p.json"
                  ) -> tuple[int, str, list[dict[str, Any]]]:
    """(exit status, error lines with the file shown as ``name``, findings) of ``shardwise lint``."""
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    out = tmp_path / "report.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lint", str(path), "--format", "json", "--output", str(out)])
    errors = "".join(line for line in err.getvalue().replace(str(path), name).splitlines(keepends=True)
                     if line.startswith("shardwise: error: "))
    findings = json.loads(out.read_text(encoding="utf-8"))["findings"] if out.exists() and code in (0, 1) else []
    return code, errors, findings
