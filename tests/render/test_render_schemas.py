"""Every rules/render/ module's objects against the Kubernetes JSON schemas shipped with the
``kubernetes-validate`` package (offline, strict: unknown fields fail). Custom resources
(LeaderWorkerSet, KEDA ScaledObject, Karpenter NodePool/EC2NodeClass, Gateway API routes) have no
schema there and are skipped by design; the LeaderWorkerSet's leader and worker pod templates are
validated as Pods instead.
"""

from __future__ import annotations

import kubernetes_validate
import pytest
from kubernetes_validate.utils import SchemaNotFoundError
from render_support import ESCAPES, P5_EFA, multinode, service
from repo_paths import ROOT
from shardwise.rules.adapters.stack import load_stack_spec
from shardwise.rules.model.spec import AutoscalingSpec, RouterSpec
from shardwise.rules.render.environment import render_environment_objects, render_namespace
from shardwise.rules.render.multinode import render_leaderworkerset
from shardwise.rules.render.router import render_router
from shardwise.rules.render.vllm import render_autoscaler, render_deployment, render_vllm_service

K8S_VERSION = "1.33"


CRD_KINDS = {"LeaderWorkerSet", "ScaledObject", "NodePool", "EC2NodeClass", "HTTPRoute", "ReferenceGrant",
             "PodMonitor", "ServiceMonitor"}


def _validate(obj: dict) -> bool:
    """Validate one object strictly; False when it is a custom resource without a shipped schema."""
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except SchemaNotFoundError:
        assert obj["kind"] in CRD_KINDS
        return False
    return True


def _pods_of_lws(lws: dict) -> list[dict]:
    tpl = lws["spec"]["leaderWorkerTemplate"]
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{lws['metadata']['name']}-{role}",
                                                             **tpl[key]["metadata"]},
             "spec": tpl[key]["spec"]}
            for role, key in (("leader", "leaderTemplate"), ("worker", "workerTemplate"))]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_stack_objects_validate_against_kubernetes_schemas(env):
    spec, _ = load_stack_spec(str(ROOT / "stacks" / f"Pulumi.{env}.yaml"))
    skipped = set()
    for _, obj in render_environment_objects(spec):
        if not _validate(obj):
            skipped.add(obj["kind"])
        if obj["kind"] == "LeaderWorkerSet":
            for pod in _pods_of_lws(obj):
                assert _validate(pod)
    assert skipped == {"dev": {"NodePool", "EC2NodeClass", "ScaledObject", "PodMonitor"},
                       "staging": {"ScaledObject", "PodMonitor"},
                       "prod": {"ScaledObject", "LeaderWorkerSet", "PodMonitor"}}[env]


def test_variants_validate_against_kubernetes_schemas():
    objs = [
        render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa"))),
        render_autoscaler(service(autoscaling=AutoscalingSpec(kind="hpa", metric="cpu", threshold=80))),
        render_deployment(service(hf_token_secret=None, autoscaling=None)),
        *render_router(RouterSpec(name="r", namespace="serving", services=("a", "b"), domain="x.example"),
                              [service(name="a"), service(name="b")]),
        *_pods_of_lws(render_leaderworkerset(multinode(launcher="ray"), P5_EFA)),
        *render_vllm_service(service(name="c", cache={"kind": "pvc", "storage_class": "fsx",
                                                              "throughput_mib_s": 1000}, pod=ESCAPES))[:2],
        render_deployment(service(cache={"kind": "s3", "s3_uri": "s3://models/llama-70b",
                                                "throughput_mib_s": 3000})),
        render_namespace("serving", alb_readiness_gates=True),
    ]
    assert all(_validate(o) for o in objs)


def test_a_broken_object_fails_validation():
    dep = render_deployment(service())
    dep["spec"]["template"]["spec"]["containers"][0]["startupprobe"] = {}  # misspelt field
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dep, K8S_VERSION, strict=True)
