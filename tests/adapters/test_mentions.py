"""Operators' objects that run vLLM from fields (no pod spec in them) give no workload and say why (SW005):
a runtime or backend named for vLLM, a field named for it, an image tag naming its vLLM build, a Ray Serve
application importing a vLLM module, kinds whose operator runs vLLM by default. The fixture is written in the
shapes of the public files that passed silently (tests/corpus/wide: KServe, llmaz, KAITO, nebari, arcadia,
KubeRay); a NIMCache, which only downloads a model, says nothing.
"""

from __future__ import annotations

import os

from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

FIX = os.path.join(FIXTURES, "k8s", "mentions", "operators.yaml")
GENERAL = ("shardwise found no pod spec in it whose container starts a vLLM server it can read (no `containers` "
           "list or container with image and command at any depth); the operator builds the pod from fields "
           "shardwise does not know")


def test_operator_objects_that_name_vllm_say_why_they_give_no_workload():
    inv = load_inputs([FIX])
    assert inv.groups == []
    got = [(f.subject, f.location.line, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    assert got == [
        ("InferenceService ml-prod/demo-llm", 13, "advisory",
         "not read: it mentions vLLM (`runtime: vllm`) but it runs on the serving runtime `vllm`, which is not in "
         "its file, so what it runs (the vLLM command, its layout, GPUs and image) is not known: lint it together "
         "with that ServingRuntime or ClusterServingRuntime, in one file"),
        ("Playground default/qwen3-0--6b", 28, "advisory", f"not read: it mentions vLLM (`backendName: vllm`) but {GENERAL}"),
        ("Playground default/vllm-speculator", 36, "advisory",
         f"not read: it mentions vLLM (an llmaz Playground (its backend defaults to vLLM)) but {GENERAL}"),
        ("InferenceSet default/llama-3-1-8b", 52, "advisory",
         "not read: it mentions vLLM (the KAITO preset 'llama-3.1-8b-instruct' (vLLM is KAITO's default runtime)) "
         "but KAITO's InferenceSet controller creates Workspaces from its template and KAITO writes the vLLM command "
         "(model, tensor parallel size from the instance type's GPUs, max model length) itself, so no command is in "
         "the object; lint the pod it renders (kubectl get pod -o yaml) to check the layout"),
        ("LLMModel default/advanced-scheduling", 62, "advisory", f"not read: it mentions vLLM (the field `vllm`) but {GENERAL}"),
        ("Worker default/qwen-7b-chat", 75, "advisory",
         f"not read: it mentions vLLM (the vLLM image kubeagi/arcadia-fastchat-worker:vllm-v0.4.0-hotfix) but {GENERAL}"),
        ("RayService default/vllm-tpu", 82, "advisory",
         "not read: it mentions vLLM (the Ray Serve application `ray-operator.config.samples.vllm.serve_tpu:model`) "
         "but none of its pod specs starts a vLLM server shardwise can read: the server is started elsewhere (a "
         "script, a job's entrypoint, the operator's own command)"),
    ]
