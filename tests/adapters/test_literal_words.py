"""An undefined ``$(VAR)`` in vLLM's command line blocks (SW003) only where the object read is the pod that runs.

Kubernetes expands ``$(VAR)`` in command and args from the container's env and leaves an undefined one as
written, so vLLM receives ``$(TP)`` and exits (rules/vllm/args.py). That is sure for a workload Kubernetes' own
controllers (or LeaderWorkerSet's) create pods from as written, read from a manifest that is applied as it is;
not for a file of a kustomization read plainly (a base an overlay may patch, or a patch: kubernetes-sigs/
wg-serving's serving-catalog/core/deployment/vllm/base/deployment.patch.yaml, whose MODEL_ID and
TENSOR_PARALLEL_SIZE the gemma-2b overlays set), nor an operator's template (tests/fixtures/rules/SW003/
operators.yaml). There it stays an unknown: a cannot-decide.
"""

from __future__ import annotations

import os

import pytest
from shardwise.rules.adapters import read_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from tools_support import find_tool, require_tool

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-deployment-blueprint
spec:
  selector:
    matchLabels: {app: vllm-server}
  template:
    metadata:
      labels: {app: vllm-server}
    spec:
      containers:
      - name: inference-server
        image: vllm/vllm-openai:v0.11.0
        command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        args:
        - --model=meta-llama/Llama-3.1-8B-Instruct
        - --tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)
        env:
        - name: HUGGING_FACE_HUB_TOKEN
          valueFrom:
            secretKeyRef: {name: hf-secret, key: hf_api_token}
        resources:
          limits: {nvidia.com/gpu: 1}
"""
KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- deployment.yaml
"""
CRASH = ("container 'inference-server': --tensor-parallel-size refers to $(TENSOR_PARALLEL_SIZE), which the "
         "container's env does not define: Kubernetes leaves an undefined $(VAR) as written, so vLLM receives it "
         "as written ('--tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)') and cannot read it as a value of the flag, "
         "and exits at start-up")


def lint(*paths: str) -> list[tuple[str, str, str]]:
    inv = read_inputs(list(paths), jobs=1)
    assert inv.errors == []
    return [(f.code, f.level, f.message) for f in run_rules(ALL_RULES, inv)
            if f.code == "SW003" or (f.code == "SW204" and f.undecided)]


UNKNOWN_TP = "cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)"
#: What decides it where the file's line shows the `$(VAR)` (engine.what_decides): an overlay or a pod that sets it
DEFINE_IT = ("add the ConfigMap its variable is read from to the inputs, or set the variable or the value literally (a "
             "Secret's value is never read)")
UNDECIDED = ("SW204", "advisory", f"{UNKNOWN_TP}: {DEFINE_IT}")
#: The deployment is broken, and what TP was meant to be stays unknown (no rule builds on a guess).
BLOCKED = [("SW003", "mandatory", CRASH), UNDECIDED]
#: From standard input, or as kustomize writes it, no line of a file shows the value: the wording for any value
AS_READ = [("SW003", "mandatory", CRASH), ("SW204", "advisory", f"{UNKNOWN_TP}: write it literally in the inputs "
                                                                "(not a reference to a ConfigMap or Secret, nor a "
                                                                "computed output)")]


def undecided(found: list[tuple[str, str, str]]) -> bool:
    return found == [UNDECIDED]


def write(path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_manifest_applied_as_it_is_blocks(tmp_path):
    found = lint(write(tmp_path / "deploy" / "deployment.yaml", DEPLOYMENT))
    assert found == BLOCKED


def test_from_stdin_it_blocks(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DEPLOYMENT.encode())))
    assert lint("-") == AS_READ


def test_a_file_of_a_kustomization_read_plainly_is_undecided(tmp_path, monkeypatch):
    """A kustomization's base an overlay may patch: the file named, or met while searching a tree (the
    kustomization a folder above it, within the tree linted)."""
    base = tmp_path / "serving-catalog" / "base"
    write(base / "kustomization.yaml", KUSTOMIZATION)
    named = write(base / "deployment.yaml", DEPLOYMENT)
    assert undecided(lint(named))
    write(tmp_path / "app" / "kustomization.yaml", "resources: [manifests/deployment.yaml]\n")
    deeper = write(tmp_path / "app" / "manifests" / "deployment.yaml", DEPLOYMENT)
    monkeypatch.chdir(tmp_path)
    assert undecided(lint(os.path.relpath(deeper, tmp_path)))
    assert undecided(lint("serving-catalog"))


def test_a_file_named_as_a_patch_is_undecided(tmp_path):
    """wg-serving's deployment.patch.yaml as published, without the kustomization that names it."""
    for name in ("deployment.patch.yaml", "patch-tp.yaml", "deployment-patch.yml", "patches/deployment.yaml"):
        assert undecided(lint(write(tmp_path / name, DEPLOYMENT))), name


def test_variables_something_else_puts_into_the_env_are_not_undefined(tmp_path):
    """GKE's webhook and LeaderWorkerSet give a pod requesting TPUs its TPU_* variables."""
    text = DEPLOYMENT.replace("--tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)",
                              "--tensor-parallel-size=1\n        - --data-parallel-rank=$(TPU_WORKER_ID)")
    assert lint(write(tmp_path / "tpu.yaml", text)) == []


OVERLAY_PATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-deployment-blueprint
spec:
  template:
    spec:
      containers:
      - name: inference-server
        env:
        - name: TENSOR_PARALLEL_SIZE
          value: "1"
"""


@pytest.mark.tools
def test_the_kustomize_build_is_what_runs(tmp_path, monkeypatch):
    """Built, the overlay that sets the variable passes, and the one that does not blocks."""
    require_tool("kustomize")
    monkeypatch.setenv("PATH", os.path.dirname(find_tool("kustomize")) + os.pathsep + os.environ["PATH"])
    write(tmp_path / "base" / "kustomization.yaml", KUSTOMIZATION)
    write(tmp_path / "base" / "deployment.yaml", DEPLOYMENT)
    write(tmp_path / "set" / "kustomization.yaml", "resources: [../base]\npatches:\n- path: tp.patch.yaml\n")
    write(tmp_path / "set" / "tp.patch.yaml", OVERLAY_PATCH)
    write(tmp_path / "unset" / "kustomization.yaml", "resources: [../base]\nnamespace: serving\n")
    monkeypatch.chdir(tmp_path)  # the repository: kustomize builds nothing from outside it
    assert lint("set") == []
    assert lint("unset") == AS_READ


FLAGS_AS_COMMAND = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-deployment
spec:
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        command: [
          "--model", "mistralai/Mistral-7B-Instruct-v0.1",
          "--host", "0.0.0.0",
          "--port", "8000"
        ]
        resources:
          limits: {nvidia.com/gpu: 1}
"""


def launch_codes(*paths: str) -> list[tuple[str, str]]:
    inv = read_inputs(list(paths), jobs=1)
    assert inv.errors == []
    return [(f.code, f.level) for f in run_rules(ALL_RULES, inv) if f.code in ("SW002", "SW003")]


def test_engine_flags_as_the_command_block_only_where_the_pod_runs_as_written(tmp_path):
    """corpus17 (AI-Cloud-Tech-Inc/Autonomous-Agentic-Spiritual-AI k8s/vllm-deployment.yaml): `command` replaces the
    image's entrypoint, so the runtime execs `--model` and the container never starts (SW003). A base of a
    kustomization or a file named as a patch may have its command replaced before it runs: SW002 says it is not
    read, and nothing blocks."""
    assert launch_codes(write(tmp_path / "k8s" / "vllm-deployment.yaml", FLAGS_AS_COMMAND)) == [("SW003", "mandatory")]
    base = tmp_path / "base"
    write(base / "kustomization.yaml", KUSTOMIZATION)
    assert launch_codes(write(base / "deployment.yaml", FLAGS_AS_COMMAND)) == [("SW002", "advisory")]
    assert launch_codes(write(tmp_path / "vllm.patch.yaml", FLAGS_AS_COMMAND)) == [("SW002", "advisory")]
