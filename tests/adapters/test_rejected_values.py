"""Values Kubernetes rejects are input errors on that object, never read as safe (issue 29).

A NetworkPolicy ``spec: 7`` is not an empty podSelector (which would select every pod and read as
default-deny), ``targetPort: true`` is not an absent targetPort, and a workload written with ``spec: null``
or ``containers: null`` does not vanish behind a LoadBalancer. Each is an error at its line (or its URN in
a preview), the run exits 2, and the other objects' findings are still reported.
"""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import NP_T, SVC_T, lint_document, step
from shardwise.rules.app.cli import main

#: A Service that publishes torch.distributed's store, its port named so: SW301 blocks it in every file below (the finding that is kept).
RUNTIME_LB = """
apiVersion: v1
kind: Service
metadata: {name: dist-master, namespace: serving}
spec:
  type: LoadBalancer
  selector: {app: trainer}
  ports: [{name: dist, port: 29500, targetPort: 29500}]
"""
KEPT = ("SW301", "Service `serving/dist-master` of type LoadBalancer exposes port 29500 (torch.distributed / "
        "vLLM data-parallel master) "
        "outside the cluster; make the Service type ClusterIP (the group's pods still reach it inside the cluster; reach a "
        "dashboard with kubectl port-forward), or take this port off it and leave only the API port")


def lint(tmp_path: Path, text: str) -> tuple[int, list[str], list[tuple[str, str]]]:
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(text).lstrip() + "---" + RUNTIME_LB, encoding="utf-8")
    out, err = tmp_path / "r.json", io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lint", str(path), "--format", "json", "--output", str(out)])
    errors = [line.replace(str(path), "m.yaml") for line in err.getvalue().splitlines() if "error:" in line]
    findings = [(f["code"], f["message"].split(": ", 1)[1]) for f in json.loads(out.read_text())["findings"]
                if f["level"] == "mandatory"] if out.exists() else []
    return code, errors, findings


@pytest.mark.parametrize(("text", "error"), [
    ("""
     apiVersion: networking.k8s.io/v1
     kind: NetworkPolicy
     metadata: {name: default-deny, namespace: serving}
     spec: 7
     """, "shardwise: error: m.yaml:4: spec: expected a mapping, found a number"),
    ("""
     apiVersion: networking.k8s.io/v1
     kind: NetworkPolicy
     metadata: {name: default-deny, namespace: serving}
     spec:
       podSelector: []
     """, "shardwise: error: m.yaml:5: spec.podSelector: expected a mapping, found a list"),
    ("""
     apiVersion: networking.k8s.io/v1
     kind: NetworkPolicy
     metadata: {name: default-deny, namespace: serving}
     spec:
       podSelector: {}
       policyTypes: [ingress]
     """, "shardwise: error: m.yaml:6: spec.policyTypes: 'ingress' is not a policy type Kubernetes accepts (Ingress, Egress)"),
    ("""
     apiVersion: v1
     kind: Service
     metadata: {name: llama, namespace: serving}
     spec:
       type: LoadBalancer
       selector: {app: llama}
       ports:
         - {port: 80, targetPort: true}
     """, "shardwise: error: m.yaml:8: spec.ports[0].targetPort: expected a port number (1-65535) or a port name, found a "
          "boolean"),
    ("""
     apiVersion: v1
     kind: Service
     metadata: {name: llama, namespace: serving}
     spec:
       ports:
         - {port: 70000}
     """, "shardwise: error: m.yaml:6: spec.ports[0].port: expected a port number (1-65535), found 70000"),
    ("""
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: llama, namespace: serving}
     spec: null
     """, "shardwise: error: m.yaml:4: spec: written as null, but Kubernetes requires a value (the object is rejected)"),
    ("""
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: llama, namespace: serving}
     spec:
       selector: {matchLabels: {app: llama}}
       template:
         metadata: {labels: {app: llama}}
         spec:
           containers: null
     """, "shardwise: error: m.yaml:9: spec.template.spec.containers: written as null, but Kubernetes requires at least one "
          "container (the object is rejected)"),
    ("""
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: llama, namespace: serving}
     spec:
       selector: {matchLabels: {app: llama}}
       template:
         metadata: {labels: {app: llama}}
         spec:
           containers:
             - - name: vllm
                 image: vllm/vllm-openai:v0.11.0
     """, "shardwise: error: m.yaml:9: spec.template.spec.containers[0]: expected a mapping, found a list"),
    # hostile7: the pod spec, a CronJob's job template and an LWS's worker template written as null were read as no
    # workload (the object vanished from the run); the API server rejects each
    ("""
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: llama, namespace: serving}
     spec:
       selector: {matchLabels: {app: llama}}
       template:
         metadata: {labels: {app: llama}}
         spec: null
     """, "shardwise: error: m.yaml:8: spec.template.spec: written as null, but Kubernetes requires a value (the object "
          "is rejected)"),
    ("""
     apiVersion: batch/v1
     kind: CronJob
     metadata: {name: llama, namespace: serving}
     spec:
       schedule: "0 * * * *"
       jobTemplate:
         spec: null
     """, "shardwise: error: m.yaml:7: spec.jobTemplate.spec: written as null, but Kubernetes requires a value (the "
          "object is rejected)"),
    ("""
     apiVersion: leaderworkerset.x-k8s.io/v1
     kind: LeaderWorkerSet
     metadata: {name: llama, namespace: serving}
     spec:
       leaderWorkerTemplate:
         size: 2
         workerTemplate:
           spec: null
     """, "shardwise: error: m.yaml:8: spec.leaderWorkerTemplate.workerTemplate.spec: written as null, but Kubernetes "
          "requires a value (the object is rejected)"),
    ("""
     apiVersion: leaderworkerset.x-k8s.io/v1
     kind: LeaderWorkerSet
     metadata: {name: llama, namespace: serving}
     spec:
       leaderWorkerTemplate: null
     """, "shardwise: error: m.yaml:5: spec.leaderWorkerTemplate: written as null, but Kubernetes requires a value (the "
          "object is rejected)"),
    # fuzz16: a nodeSelector value of another type was read as its Python text (pool={'x': 'h100'}: SW206, no pool)
    ("""
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: llama, namespace: serving}
     spec:
       selector: {matchLabels: {app: llama}}
       template:
         metadata: {labels: {app: llama}}
         spec:
           nodeSelector:
             shardwise.dev/pool: {x: h100}
           containers:
             - name: vllm
               image: vllm/vllm-openai:v0.11.0
               args: [meta-llama/Llama-3.1-8B-Instruct]
     """, "shardwise: error: m.yaml:10: nodeSelector.shardwise.dev/pool: expected a string, found a mapping; Kubernetes "
          "refuses the object as written"),
], ids=["np-spec-number", "np-selector-list", "np-policy-type", "target-port-bool", "port-out-of-range",
        "workload-spec-null", "containers-null", "container-nested", "pod-spec-null", "cronjob-job-spec-null",
        "lws-worker-spec-null", "lws-template-null", "node-selector-value-mapping"])
def test_a_value_kubernetes_rejects_is_an_input_error_and_the_rest_is_linted(tmp_path, text, error):
    code, errors, findings = lint(tmp_path, text)
    assert (code, errors, findings) == (2, [error], [KEPT])


def test_a_network_policy_of_the_wrong_type_at_preview_names_its_urn(tmp_path):
    doc: dict[str, Any] = {"steps": [
        step(NP_T, "default-deny", {"metadata": {"name": "default-deny", "namespace": "serving"}, "spec": 7}),
        step(SVC_T, "ray", {"metadata": {"name": "ray-dashboard", "namespace": "serving"}, "spec": {
            "type": "LoadBalancer", "selector": {"app": "ray"}, "ports": [{"port": 8265, "targetPort": 8265}]}}),
    ]}
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (2, f"shardwise: error: p.json:5: {NP_T} urn:pulumi:dev::llm::{NP_T}::default-deny: "
                                 "spec: expected a mapping, found a number\n")


#: A vLLM Deployment whose container's `image` key is missing (the fuzzer renamed it `inputs:`, seed 14014): the API
#: server refuses it (k8s.io/kubernetes pkg/apis/core/validation, validateContainerCommon: `image` Required).
NO_IMAGE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama, namespace: serving}
spec:
  selector: {matchLabels: {app: llama}}
  template:
    metadata: {labels: {app: llama}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: proxy
          image: quay.io/oauth2-proxy/oauth2-proxy:v7.6.0
        - name: vllm
          inputs: vllm/vllm-openai:v0.10.1
          command: [python, -m, vllm.entrypoints.openai.api_server]
          args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
"""


@pytest.mark.parametrize(("text", "error"), [
    (NO_IMAGE, "shardwise: error: m.yaml:13: Deployment `llama`: container `vllm` has no image (containers[1].image: "
               "Required value): Kubernetes refuses a container without one, so the object is never applied as "
               "written"),
    (NO_IMAGE.replace("          image: quay.io/oauth2-proxy/oauth2-proxy:v7.6.0\n", "")
     .replace("inputs:", "image:").replace("kind: Deployment", "kind: StatefulSet"),
     "shardwise: error: m.yaml:11: StatefulSet `llama`: container `proxy` has no image (containers[0].image: Required "
     "value): Kubernetes refuses a container without one, so the object is never applied as written"),
    (NO_IMAGE.replace("inputs: vllm/vllm-openai:v0.10.1", 'image: ""'),
     "shardwise: error: m.yaml:13: Deployment `llama`: container `vllm` has no image (containers[1].image: "
     "Required value): Kubernetes refuses a container without one, so the object is never applied as written"),
], ids=["vllm-image-renamed", "sidecar-without-image", "image-empty"])
def test_a_container_without_an_image_in_what_is_applied_is_an_input_error(tmp_path, text, error):
    code, errors, findings = lint(tmp_path, text)
    assert (code, errors, findings) == (2, [error], [KEPT])


@pytest.mark.parametrize("where", ["kustomization", "patch-name"])
def test_a_kustomize_patch_without_an_image_stays_a_fragment(tmp_path, where):
    """A strategic-merge patch leaves the image to its base: no input error (patch_fragment reads it)."""
    if where == "kustomization":
        (tmp_path / "kustomization.yaml").write_text("resources: [base.yaml]\npatches: [{path: m.yaml}]\n")
        path = tmp_path / "m.yaml"
    else:
        path = tmp_path / "deployment-patch.yaml"
    path.write_text(NO_IMAGE.lstrip(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lint", str(path), "--format", "json", "--output", str(tmp_path / "r.json")])
    assert [line for line in err.getvalue().splitlines() if "error:" in line] == []
    assert code in (0, 1)
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["workloads"] == 1


#: fuzz15: env values that double at each step (Kubernetes expands each over the ones before it), and an argument
#: that repeats a long variable: the expansion grew without end (2**40 characters; the linter held until killed)
_DOUBLING = "".join(f'        - {{name: E{i}, value: "$(E{i - 1})$(E{i - 1})"}}\n' for i in range(1, 41))
_VLLM = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: serving}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "MML"]
        env:
        - {name: E0, value: xxxxxxxx}
ENV"""
_LIMIT = ("its $(VAR) references expand to more than 131,072 characters, the most one argument or environment string "
          "may hold on Linux (MAX_ARG_STRLEN): the container could not start")


@pytest.mark.parametrize(("mml", "env", "error"), [
    ("8192", _DOUBLING, f"m.yaml:27: spec.template.spec.containers[0].env[15].value (E15): {_LIMIT}"),
    ("$(E13)" * 3, _DOUBLING.split("        - {name: E14")[0], f"m.yaml:10: spec.template.spec.containers[0].args[3]: "
                                                              f"{_LIMIT}"),
], ids=["env doubling", "args repeating"])
def test_an_expansion_past_what_linux_lets_a_container_start_with_is_an_input_error(tmp_path, mml, env, error):
    """E14 (131,072 characters, the limit) is read; E15 and an argument of three E13s are past it: input errors at
    their lines, found before the text is built; the other object's finding is kept."""
    code, errors, findings = lint(tmp_path, _VLLM.replace("MML", mml).replace("ENV", env))
    assert (code, errors, findings) == (2, [f"shardwise: error: {error}"], [KEPT])


def test_an_expansion_up_to_the_linux_limit_is_read():
    from shardwise.rules.vllm.args import expand_k8s

    env = {"A": "a" * 65536}
    assert expand_k8s("$(A)$(A)", env) == "a" * 131072
    with pytest.raises(Exception, match="more than 131,072 characters"):
        expand_k8s("$(A)$(A)x", env)
