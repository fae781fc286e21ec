"""The generic reader (rules/adapters/k8s/generic.py) and SW005: vLLM found in objects of any kind, and
never a silent pass for an object that mentions vLLM but gave no workload.

The fixtures under fixtures/k8s/generic/ are written in the shapes each project documents (OME
ClusterServingRuntime, RoleBasedGroup, llmaz OpenModel and
Playground, Kaito Workspace) and one in-house CRD; each test asserts every group or record exactly.
"""

from __future__ import annotations

import os

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import UNKNOWN, Inventory
from shardwise.rules.model.errors import InputError

FIX = os.path.join(FIXTURES, "k8s", "generic")


def load(name: str) -> Inventory:
    return load_kubernetes_file(os.path.join(FIX, name))


def show(v):
    return "UNKNOWN" if v is UNKNOWN else v


def groups(inv: Inventory) -> list[tuple]:
    """(kind, namespace, name, line, model, TP, PP, max_model_len, GPUs per pod, replicas, pods per group,
    nodeSelector, containers, image line)"""
    return [(g.kind, g.namespace, g.name, g.location.line, g.engine.model, g.engine.tensor_parallel_size,
             g.engine.pipeline_parallel_size, g.engine.max_model_len, show(g.gpus_per_pod), show(g.replicas),
             show(g.pods_per_group), g.node_selector, [c.name for c in g.containers], g.at("image").line)
            for g in inv.groups]


def unread(inv: Inventory) -> list[tuple]:
    return [(i.subject, i.reason, i.location.line, i.mentioned) for i in inv.launch_issues]


def codes(inv: Inventory) -> list[tuple[str, int | None, str]]:
    return sorted((f.code, f.location.line, f.level) for f in run_rules(ALL_RULES, inv, LintConfig()))


def test_ome_runtime_single_runner_container_is_linted():
    inv = load("ome-runtime.yaml")
    # engineConfig is the pod spec (its tolerations and volumes), runner its one container; `bash -lc --`
    # runs the script; a runtime says no replicas (its InferenceServices do): not known
    assert groups(inv) == [
        ("ClusterServingRuntime", "default", "vllm-qwen2-5-7b", 18, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 32768, 1,
         "UNKNOWN", 1, {}, ["ome-container"], 28)]
    assert inv.groups[0].tolerations[0].key == "nvidia.com/gpu"
    assert [(v.name, v.medium) for v in inv.groups[0].volumes] == [("dshm", "Memory")]
    assert (inv.launch_issues, dict(inv.skipped)) == ([], {})


def test_role_based_group_and_an_in_house_crd_with_pod_spec():
    inv = load("rbg-and-podspec.yaml")
    assert groups(inv) == [
        # each role that runs vLLM is a group named by its role, at the role's line; the router is no vLLM pod
        ("RoleBasedGroup", "llm", "qwen-pd/prefill", 17, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 16384, 1, 2, 1,
         {"node.kubernetes.io/instance-type": "g6e.xlarge"}, ["vllm"], 25),
        ("RoleBasedGroup", "llm", "qwen-pd/decode", 31, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 16384, 1, 3, 1,
         {"node.kubernetes.io/instance-type": "g6e.xlarge"}, ["vllm"], 39),
        # args only on a vLLM image (its entrypoint runs the server); minReplicas on the way to the pod
        ("LlmEndpoint", "apps", "chat", 55, "meta-llama/Llama-3.1-8B-Instruct", 1, 1, 8192, 1, 2, 1, {},
         ["engine"], 57),
    ]
    assert (inv.launch_issues, dict(inv.skipped)) == ([], {})


def test_serving_crds_of_other_projects_are_read_by_their_pod_specs():
    """JobSet, a Volcano Job (kind `Job` of batch.volcano.sh: no batch/v1 Job, which has no `tasks`; before, it was
    read as one and only SW005 spoke), a SeldonDeployment, and an in-house CRD that patches a base template."""
    inv = load("crd-shapes.yaml")
    assert groups(inv) == [
        ("JobSet", "llm", "vllm-multihost", 24, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 8192, 1, 1, 1,
         {"cloud.google.com/gke-accelerator": "nvidia-l4"}, ["vllm"], 27),
        ("Job", "llm", "vllm-vc", 42, "Qwen/Qwen2.5-7B-Instruct", 1, 1, None, 1, 2, 1, {}, ["vllm"], 44),
        ("SeldonDeployment", "llm", "vllm-seldon", 58, "Qwen/Qwen2.5-7B-Instruct", 1, 1, None, 1, 2, 1, {}, ["llm"],
         60),
        # the patch's container takes the base's image (line 82) and its 2 GPUs; the base is no pod of its own
        ("InferenceStack", "ai", "chat", 90, "Qwen/Qwen2.5-7B-Instruct", 2, 1, None, 2, 3, 1, {}, ["vllm"], 82),
    ]
    assert all(g.unknown_operator for g in inv.groups)
    # the Rollout that points at a Deployment holds no pod and mentions no vLLM: nothing to say
    assert (inv.launch_issues, dict(inv.skipped)) == ([], {})


def test_a_ray_service_that_starts_vllm_from_python_is_not_silent():
    """KubeRay's own TPU sample, verbatim: the Serve app imports vLLM in Python and the image is a placeholder;
    before, nothing in it read as vLLM and the file passed without a word. vLLM's own environment variable says so."""
    inv = load("ray-service.vllm-tpu-v6e-singlehost.yaml")
    assert inv.groups == []
    assert unread(inv) == [(
        "RayService default/vllm-tpu", "it mentions vLLM (vLLM's environment variable VLLM_XLA_CACHE_PATH) but none "
        "of its pod specs starts a vLLM server shardwise can read: the server is started elsewhere (a script, a "
        "job's entrypoint, the operator's own command)", 45, True)]


def test_client_variables_named_like_vllm_are_no_mention():
    """VLLM_API_KEY and VLLM_PORT are set by clients (and VLLM_PORT by Kubernetes for a Service named vllm)."""
    inv = load_kubernetes_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ui}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: ui\n          image: ghcr.io/open-webui/open-webui:v0.6.5\n"
        "          env:\n            - {name: VLLM_API_KEY, value: x}\n            - {name: VLLM_PORT, value: '8000'}\n",
        "ui.yaml")
    assert (inv.groups, inv.launch_issues) == ([], [])


def test_llmaz_playground_mentions_vllm_and_is_not_silent():
    inv = load("llmaz-playground.yaml")
    assert inv.groups == []
    assert unread(inv) == [(
        "Playground default/qwen2-0--5b",
        "it mentions vLLM (`--tensor-parallel-size`) but shardwise found no pod spec in it whose container starts "
        "a vLLM server it can read (no `containers` list or container with image and command at any depth); the "
        "operator builds the pod from fields shardwise does not know", 28, True)]
    # the OpenModel mentions no vLLM: it is only counted
    assert dict(inv.skipped) == {"OpenModel": 1, "Playground": 1}
    assert codes(inv) == [("SW005", 28, "advisory")]


def test_kaito_workspace_preset_says_what_is_known():
    inv = load("kaito-workspace.yaml")
    assert inv.groups == []
    assert unread(inv) == [(
        "Workspace default/workspace-phi-4-mini",
        "Kaito runs the preset 'phi-4-mini-instruct' with vLLM on 1 × Standard_NC24ads_A100_v4 and writes the vLLM "
        "command (model, tensor parallel size from the instance type's GPUs, max model length) itself, so no "
        "command is in the object; lint the pod it renders (kubectl get pod -o yaml) to check the layout", 15, True)]


def test_kaito_transformers_runtime_is_not_vllm():
    inv = load_kubernetes_text(
        "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n  annotations:\n"
        "    kaito.sh/runtime: transformers\nresource: {instanceType: Standard_NC6s_v3}\n"
        "inference:\n  preset: {name: phi-3-mini-4k-instruct}\n", "w.yaml")
    assert (inv.groups, inv.launch_issues, dict(inv.skipped)) == ([], [], {})


def test_kaito_workspace_under_spec_is_an_input_error_and_only_then():
    """corpus44: a Workspace whose fields sit under a `spec:` the kind lacks is refused (kubectl's strict validation,
    then KAITO's webhook: neither inference nor tuning); one with its fields at the top level is read as before, a
    stray `spec` beside them included (its inference is there to serve), and so is a tuning Workspace."""
    head = "apiVersion: kaito.sh/v1alpha1\nkind: Workspace\nmetadata:\n  name: w\n"
    with pytest.raises(InputError) as refused:
        load_kubernetes_text(head + "spec:\n  inference:\n    preset: {name: phi-3-mini-4k-instruct}\n", "w.yaml")
    assert (refused.value.line, refused.value.message.split(";")[0]) == (
        5, "spec: a KAITO Workspace has no spec: its inference belongs at the object's top level, beside metadata")
    ok = load_kubernetes_text(head + "spec: {}\nresource: {instanceType: Standard_NC6s_v3}\n"
                              "inference:\n  preset: {name: phi-3-mini-4k-instruct}\n", "w.yaml")
    assert (ok.errors, [i.subject for i in ok.launch_issues]) == ([], ["Workspace default/w"])
    tuning = load_kubernetes_text(head + "spec: {note: x}\ntuning:\n  preset: {name: phi-3-mini-4k-instruct}\n",
                                  "w.yaml")
    assert tuning.errors == []


_CM = """apiVersion: v1
kind: ConfigMap
metadata: {name: start, namespace: llm}
data:
  start.sh: |
    pip install vllm==0.10.1
    exec vllm serve Qwen/Qwen2.5-7B-Instruct
"""
_DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          command: [sh, /scripts/start.sh]
"""


def test_a_launch_script_in_a_config_map_alone_is_not_silent():
    inv = load_kubernetes_text(_CM, "cm.yaml")
    assert unread(inv) == [(
        "ConfigMap llm/start", "it mentions vLLM (`pip install vllm`) but it holds data a workload reads, and no "
        "workload in this file was read: lint it together with the workload that mounts it", 5, True)]


def test_a_config_map_beside_its_workload_is_not_reported_twice():
    inv = load_kubernetes_text(_CM + "---\n" + _DEPLOY, "both.yaml")
    # the Deployment runs the script file: SW002 says it cannot be read; the ConfigMap adds nothing
    assert [(i.subject, i.mentioned) for i in inv.launch_issues] == [("Deployment llm/qwen", False)]


def test_nothing_that_mentions_vllm_stays_quiet():
    inv = load_kubernetes_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: vllm}\nspec:\n  selector: {app: vllm}\n"
        "  ports: [{port: 8000}]\n---\n"
        "apiVersion: networking.serving.volcano.sh/v1alpha1\nkind: ModelServer\nmetadata: {name: m}\n"
        "spec:\n  inferenceEngine: vLLM\n  model: Qwen/Qwen2.5-7B-Instruct\n---\n"
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  image: nginx:1.27\n", "x.yaml")
    assert (inv.groups, inv.launch_issues) == ([], [])


def test_an_unknown_crd_with_a_vllm_image_but_no_pod_spec():
    inv = load_kubernetes_text(
        "apiVersion: example.com/v1\nkind: LLMServer\nmetadata: {name: chat, namespace: ai}\nspec:\n"
        "  engineImage: vllm/vllm-openai:v0.10.1\n  engineFlags: \"--max-model-len 8192\"\n", "x.yaml")
    assert unread(inv) == [(
        "LLMServer ai/chat", "it mentions vLLM (the vLLM image vllm/vllm-openai:v0.10.1) but shardwise found no pod "
        "spec in it whose container starts a vLLM server it can read (no `containers` list or container with image "
        "and command at any depth); the operator builds the pod from fields shardwise does not know", 5, True)]


def test_sw005_is_suppressible_on_the_object():
    inv = load_kubernetes_text(
        "apiVersion: example.com/v1\nkind: LLMServer\nmetadata:\n  name: chat\n  annotations:\n"
        "    shardwise.dev/ignore: \"SW005: a test double, no server\"\nspec:\n  image: vllm/vllm-openai:v0.10.1\n",
        "x.yaml")
    [f] = run_rules(ALL_RULES, inv, LintConfig())
    assert (f.code, f.suppressed) == ("SW005", True)


# --- one undecided finding per workload and unknown, at the unknown value ---------------------------------

_EXTRA_ARGS = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: llm}
spec:
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          command: [sh, -c]
          args:
            - vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 $EXTRA_ARGS
          env:
            - name: EXTRA_ARGS
              valueFrom: {configMapKeyRef: {name: vllm, key: args}}
          resources: {limits: {nvidia.com/gpu: "4"}}
"""

#: what decides a value its container's shell expands from a variable of a ConfigMap not in the inputs
_SHELL = ("run `envsubst` first if it is a template's placeholder; if the container's shell expands it, add the "
          "ConfigMap its variable is read from to the inputs, or set the variable or the value literally")
_HELD = f"which are checked once the value is known: {_SHELL}"


def test_flags_from_a_config_map_give_one_undecided_finding_per_unknown_at_its_line(tmp_path, monkeypatch):
    from shardwise.rules.app.run import LintOptions, lint_report

    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.yaml").write_text(_EXTRA_ARGS, encoding="utf-8")
    report = lint_report(["d.yaml"], LintOptions(jobs=1))
    got = [(f.code, f.location.line, f.level, f.message) for f in report.findings if f.undecided]
    assert got == [
        ("SW101", 13, "advisory", "cannot decide: tensor_parallel_size is not known (a computed value or an "
         "unresolved reference); this holds back SW101, SW102, SW104, SW106, SW201, SW202, SW203, SW204, "
         f"SW208, SW401, {_HELD}"),
        ("SW105", 13, "advisory", "cannot decide: gpu_memory_utilization is not known (a computed value or an "
         f"unresolved reference): {_SHELL}"),
        ("SW207", 13, "advisory", "cannot decide: enable_expert_parallel is not known (a computed value or an "
         f"unresolved reference): {_SHELL}"),
    ]


def test_args_not_known_at_all_are_never_read_as_vllm_defaults():
    """A Pulumi preview's unknown output for the whole args list: not "no flags" (TP1×PP1 on a 4-GPU pod
    would make SW208 say 3 GPUs idle), but a word that may carry any flag."""
    from shardwise.rules.adapters.k8s import inventory_from_objects, resolve_pools
    from shardwise.rules.model import Location

    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "q", "namespace": "llm"},
           "spec": {"template": {"spec": {
               "nodeSelector": {"node.kubernetes.io/instance-type": "g6.12xlarge"},
               "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1",
                               "command": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"], "args": UNKNOWN,
                               "resources": {"limits": {"nvidia.com/gpu": "4"}}}]}}}}
    inv = inventory_from_objects([(obj, Location("index.ts", None))])
    resolve_pools(inv)
    [g] = inv.groups
    assert (g.engine.model, show(g.engine.tensor_parallel_size), show(g.engine.max_model_len)) == (
        "Qwen/Qwen2.5-7B-Instruct", "UNKNOWN", "UNKNOWN")
    sw208 = [(f.message, f.undecided) for f in run_rules(ALL_RULES, inv, LintConfig()) if f.code == "SW208"]
    # at a location with no URN and no line (an object as a program gives it): the wording for any computed value
    assert sw208 == [("cannot decide: tensor_parallel_size is not known (a computed value or an unresolved "
                      "reference): write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a "
                      "computed output)", True)]


def test_a_ray_job_whose_script_starts_vllm_is_not_silent():
    inv = load("rayjob-script.yaml")
    assert inv.groups == []
    assert unread(inv) == [(
        "RayJob ray/serve-llm", "it mentions vLLM (the package requirement `vllm==0.10.1`) but none of its pod specs "
        "starts a vLLM server shardwise can read: the server is started elsewhere (a script, a job's entrypoint, the "
        "operator's own command)", 8, True)]


def test_what_an_unknown_operator_may_add_is_advisory():
    """An operator shardwise does not know builds the pod and may mount /dev/shm itself: SW401 at TP8 is advisory
    on what the generic reader read; on the same container in a Deployment it blocks."""
    inv = load("in-house-llm-server.yaml")
    [f] = [f for f in run_rules(ALL_RULES, inv, LintConfig()) if f.code == "SW401"]
    assert (f.level, f.location.line, f.message) == ("advisory", 11, (
        "container `leader` runs tensor_parallel_size 8 but mounts nothing at "
        "/dev/shm (the container runtime's default is 64 MiB); mount an emptyDir with medium: Memory there "
        "(advisory: the operator of this LlmServer builds the pod and may add it; lint the pod it renders to "
        "make this finding blocking)"))
    inv.groups[0].unknown_operator = False
    [f] = [f for f in run_rules(ALL_RULES, inv, LintConfig()) if f.code == "SW401"]
    assert f.level == "mandatory"


_RUNTIME = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-tp2
spec:
  supportedModelFormats:
    - {name: vLLM, autoSelect: true}
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:latest
      command: [python3, -m, vllm.entrypoints.openai.api_server]
      args: [--port=8080, --model=/mnt/models, "--served-model-name={{.Name}}", --tensor-parallel-size=2]
      livenessProbe:
        httpGet: {path: /health, port: 8080}
"""


def test_a_serving_runtime_alone_gets_the_checks_of_its_own_container():
    """No InferenceService of the inputs runs on it: its image pin, /dev/shm and probes are checked; the model,
    GPUs, placement and namespace come from the services that will use it, so no rule asks for them."""
    inv = load_kubernetes_text(_RUNTIME, "rt.yaml")
    [g] = inv.groups
    assert (g.kind, g.name, g.template, g.unknown_operator, show(g.replicas)) == (
        "ServingRuntime", "vllm-tp2", True, True, "UNKNOWN")
    assert codes(inv) == [("SW307", 10, "advisory"), ("SW401", 9, "advisory"), ("SW402", 13, "advisory")]


_BESIDE = """\
apiVersion: example.com/v1
kind: LLMServer
metadata:
  name: qwen
  namespace: prod
  annotations:
    shardwise.dev/production: "true"
spec:
  replicas: 1
  server:
    image: vllm/vllm-openai:v0.10.1
    command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
    resources:
      limits: {nvidia.com/gpu: 1}
"""


def test_replicas_beside_the_containers_of_a_crd_not_read_are_named_not_guessed():
    """readers16: a custom resource whose ``replicas`` sits in the mapping that holds its container (HyperPod's
    shape), not on the way down to it: what it counts is the CRD's schema's to say, and an unknown CRD's is not read
    here, so the replicas stay unknown and SW404 names what is written instead of a general reason."""
    (g,) = load_kubernetes_text(_BESIDE, "server.yaml").groups
    assert (g.kind, g.replicas) == ("LLMServer", UNKNOWN)
    assert [(f.code, f.message, f.location.line) for f in run_rules(ALL_RULES, load_kubernetes_text(
        _BESIDE, "server.yaml")) if f.code == "SW404"] == [(
            "SW404", "cannot decide: replicas is not known (`spec.replicas: 1` is written beside the pod's containers, "
            "but LLMServer's schema is not read here, so which pods it counts is not known: lint the pods its "
            "operator creates)", 9)]
    # the same beside a `containers` list (a pod spec with its own replicas key), and minReplicas
    listed = _BESIDE.replace("  replicas: 1\n  server:\n    image", "  minReplicas: 2\n  containers:\n  - image")
    listed = listed.replace("\n    command", "\n    name: server\n    command").replace("\n    resources", "\n    resources")
    (g,) = load_kubernetes_text(listed, "server.yaml").groups
    assert (g.replicas, g.replicas_why) == (UNKNOWN, "`spec.minReplicas: 2` is written beside the pod's containers, "
                                            "but LLMServer's schema is not read here, so which pods it counts is not "
                                            "known: lint the pods its operator creates")
    # replicas on the way down (spec.replicas over spec.template.spec) stay read as before
    (g,) = load_kubernetes_text(_BESIDE.replace("  replicas: 1\n  server:", "  replicas: 2\n  worker:\n    server:")
                                .replace("\n    image", "\n      image").replace("\n    command", "\n      command")
                                .replace("\n    resources:\n      limits", "\n      resources:\n        limits"),
                                "server.yaml").groups
    assert g.replicas == 2 and g.replicas_why is None


def test_container_run_of_a_vllm_image_is_a_mention() -> None:
    """corpus41: a `docker run` (podman's, nerdctl's) of a vLLM image in a script an object carries is said; its
    paths, a flag's `=` value, a pull and another image's run are not."""
    from shardwise.rules.adapters.k8s.generic import container_run_image

    assert container_run_image("docker run -d --gpus all -p 8000:8000 \\\n  -v /c:/c \\\n  vllm/vllm-openai:latest "
                               "--model m") == ("docker", "vllm/vllm-openai:latest")
    assert container_run_image("- podman container run --rm quay.io/x/vllm-openai-ubi9:1.0") == (
        "podman", "quay.io/x/vllm-openai-ubi9:1.0")
    assert container_run_image("docker run -d -v /srv/vllm:/data -e IMAGE=vllm/vllm-openai nginx:1.27") is None
    assert container_run_image("docker pull vllm/vllm-openai:latest") is None
    assert container_run_image("docker run nginx; echo vllm/vllm-openai") is None
    assert container_run_image("docker run -d $VLLM_IMAGE") is None
