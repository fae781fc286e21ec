"""A scalar of the wrong type in a container field the adapter reads is an input error at its line (hostile5).

Kubernetes types a container's ``name``, ``image``, each ``args``/``command`` word and each ``env`` name and
value as strings, and ``ports[].containerPort`` as an integer: the API server refuses ``image: 1.0``,
``args: [--max-model-len, 8192]`` or ``containerPort: "8000"`` (``cannot unmarshal number into Go struct field
Container.args of type string``), and reads null as the empty string. Before, such a value was read as the
text it would have had quoted (a workload Kubernetes never admits, linted and passed), an env entry whose
name was no string was dropped, and a containerPort of another type read as no port.
"""

from __future__ import annotations

import textwrap

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text, parse_manifests
from shardwise.rules.model.errors import InputError


def pod(container: str) -> str:
    """A Pod whose one container has the YAML mapping ``container`` (lines 6 on)."""
    return textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
        """) + textwrap.indent(textwrap.dedent(container), "    ")


BASE = """\
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
      resources: {limits: {nvidia.com/gpu: 1}}
"""
C = "spec.containers[0]"
QUOTE = "Kubernetes refuses the object as written: quote it"


@pytest.mark.parametrize("old,new,message", [
    ("image: vllm/vllm-openai:v0.11.0", "image: 1.0",
     f"t.yaml:7: {C}.image: expected a string, found a number (1.0); {QUOTE} (\"1.0\")"),
    ("- name: vllm", "- name: 7", f"t.yaml:6: {C}.name: expected a string, found a number (7); {QUOTE} (\"7\")"),
    ('"8192"', "8192",
     f"t.yaml:8: container 'vllm': args[3]: expected a string, found a number (8192); {QUOTE} (\"8192\")"),
    ('"8192"]', '"8192", --enable-prefix-caching, true]',
     f"t.yaml:8: container 'vllm': args[5]: expected a string, found a boolean (true); {QUOTE} (\"true\")"),
    ('"8192"]', '"8192", [--x]]', "t.yaml:8: container 'vllm': args[4]: expected a string, found a list"),
    ("resources:", "env: [{name: VLLM_PORT, value: 8000}]\n      resources:",
     f"t.yaml:9: {C}.env[0].value (VLLM_PORT): expected a string, found a number (8000); {QUOTE} (\"8000\")"),
    ("resources:", "env: [{name: 5, value: x}]\n      resources:",
     f"t.yaml:9: {C}.env[0].name: expected a string, found a number (5); {QUOTE} (\"5\")"),
    ("resources:", "ports:\n        - containerPort: \"8000\"\n      resources:",
     f"t.yaml:10: {C}.ports[0].containerPort: expected an integer, found a string (\"8000\"); Kubernetes refuses the "
     "object as written: write the number without quotes (8000)"),
    ("resources:", "ports: [{containerPort: true}]\n      resources:",
     f"t.yaml:9: {C}.ports[0].containerPort: expected an integer, found a boolean (true); Kubernetes refuses the "
     "object as written"),
])
def test_a_scalar_kubernetes_refuses_is_an_input_error_at_its_line(old, new, message):
    assert old in BASE
    with pytest.raises(InputError) as err:
        load_kubernetes_text(pod(BASE.replace(old, new, 1)), "t.yaml")
    assert str(err.value) == message


@pytest.mark.parametrize("old,new,args,ports", [
    ("resources:", "ports: [{containerPort: 8000}]\n      resources:", None, [8000]),
    ("resources:", "ports: [{containerPort: \"${PORT}\"}]\n      resources:", None, []),  # a template's, filled later
    ('"8192"]', '"8192", null]', ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", ""], []),
])
def test_what_kubernetes_admits_is_read_as_it_reads_it(old, new, args, ports):
    [group] = load_kubernetes_text(pod(BASE.replace(old, new, 1)), "t.yaml").groups
    [container] = group.containers
    assert container.ports == ports
    assert container.args == (args or ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"])


@pytest.mark.parametrize("meta,message", [
    ("{name: [p]}", "t.yaml:3: metadata.name: expected a string, found a list; Kubernetes refuses the object as written"),
    ("{name: p, namespace: 2024}",
     "t.yaml:3: metadata.namespace: expected a string, found a number; Kubernetes refuses the object as written"),
    ("\n  name: p\n  namespace: {a: 1}",
     "t.yaml:5: metadata.namespace: expected a string, found a mapping; Kubernetes refuses the object as written"),
])
def test_an_object_name_or_namespace_that_is_no_string_is_an_input_error(meta, message):
    text = pod(BASE).replace("metadata: {name: p}", f"metadata: {meta}")
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text, "t.yaml")
    assert str(err.value) == message


#: A kustomization's StatefulSet patch whose name is written as a number, matched to its base named "0" (quoted
#: there): the shape of llm-d-router's kubernetes-base/common/patch-statefulset.yaml (corpus30), built with
#: `kubectl kustomize ... | envsubst | kubectl apply -f -`. kustomize reads the scalar's text and writes a string.
PATCH_NAMED_0 = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: 0
spec:
  serviceName: ${PROJECT_NAME}-service
  template:
    spec:
      containers:
        - name: cmd
          image: ${EPP_IMAGE}
"""


@pytest.mark.parametrize("layout", ["kustomization", "named as a patch"])
def test_a_number_written_as_the_name_of_a_kustomization_s_file_is_read_as_its_text(layout, tmp_path, monkeypatch):
    """kustomize, not the API server, reads a file of a kustomization: `name: 0` is the name "0" there. The same
    object applied as written (no kustomization, standard input) stays the input error above."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k/common").mkdir(parents=True)
    if layout == "kustomization":
        (tmp_path / "k/kustomization.yaml").write_text("resources: [common/statefulset.yaml]\n"
                                                       "patches: [{path: common/statefulset-overrides.yaml}]\n")
        name = "k/common/statefulset-overrides.yaml"
    else:
        name = "k/common/patch-statefulset.yaml"
    (tmp_path / name).write_text(PATCH_NAMED_0)
    assert [o["metadata"]["name"] for o, _ in parse_manifests(PATCH_NAMED_0, name)] == ["0"]
    assert load_kubernetes_file(name).sources == [name]  # read, no error
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone/statefulset.yaml").write_text(PATCH_NAMED_0)
    with pytest.raises(InputError, match=r"^alone/statefulset.yaml:4: metadata.name: expected a string, found a "
                                         r"number; Kubernetes refuses the object as written$"):
        parse_manifests(PATCH_NAMED_0, "alone/statefulset.yaml")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: serving}
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, meta-llama/Llama-3.1-8B-Instruct]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l, namespace: serving}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            args: [--model, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "8", --pipeline-parallel-size, "2"]
            resources: {limits: {nvidia.com/gpu: 8}}
"""
HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h, namespace: serving}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  minReplicas: 1
  maxReplicas: 4
"""
NUMBER = "Kubernetes refuses the object as written: write the number without quotes"


@pytest.mark.parametrize("text,old,new,message", [
    (DEPLOYMENT, "replicas: 2", 'replicas: "2"',
     f't.yaml:5: spec.replicas: expected an integer, found a string ("2"); {NUMBER} (2)'),
    (DEPLOYMENT, "replicas: 2", "replicas: ' 3'",
     f't.yaml:5: spec.replicas: expected an integer, found a string (" 3"); {NUMBER} (3)'),
    (DEPLOYMENT, "replicas: 2", "replicas: two", "t.yaml:5: spec.replicas: expected an integer, got 'two'"),
    (DEPLOYMENT, "replicas: 2", "replicas: true", "t.yaml:5: spec.replicas: expected an integer, got True"),
    (LWS, "size: 2", 'size: "2"',
     f't.yaml:7: spec.leaderWorkerTemplate.size: expected an integer, found a string ("2"); {NUMBER} (2)'),
    (LWS, "replicas: 1", "replicas: '1'",
     f't.yaml:5: spec.replicas: expected an integer, found a string ("1"); {NUMBER} (1)'),
    (DEPLOYMENT + "---\n" + HPA, "minReplicas: 1", 'minReplicas: "1"',
     f't.yaml:21: spec.minReplicas: expected an integer, found a string ("1"); {NUMBER} (1)'),
])
def test_an_integer_field_written_as_a_string_is_an_input_error(text, old, new, message):
    """``replicas: "2"`` (a Helm value piped through ``quote``) is refused by the API server (``cannot unmarshal
    string into Go struct field DeploymentSpec.spec.replicas of type int32``); it was read as 2 and linted (newuser6).
    """
    assert old in text
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text.replace(old, new, 1), "t.yaml")
    assert str(err.value) == message


@pytest.mark.parametrize("replicas,expected", [("2", 2), ("'${REPLICAS}'", None), ("null", 1)])
def test_an_integer_field_kubernetes_admits_is_read(replicas, expected):
    [group] = load_kubernetes_text(DEPLOYMENT.replace("replicas: 2", f"replicas: {replicas}", 1), "t.yaml").groups
    if expected is None:
        from shardwise.rules.model import UNKNOWN

        assert group.replicas is UNKNOWN
    else:
        assert group.replicas == expected
