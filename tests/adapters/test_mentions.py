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


def test_a_kaito_multiroleinference_says_kaito_runs_its_roles_with_vllm():
    """corpus24: kaito-project/kaito's MultiRoleInference of DeepSeek-V3 (a prefill and a decode role, each on one
    Standard_NC24ads_A100_v4) gave no workload and no word: KAITO runs both roles with vLLM (its only runtime for
    prefill/decode disaggregation) and writes their commands, so SW005 says so; one that names no model says nothing."""
    inv = load_inputs([os.path.join(FIXTURES, "k8s", "mentions", "kaito-multirole.yaml")])
    assert inv.groups == []
    got = [(f.subject, f.location.line, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    assert got == [
        ("MultiRoleInference serving/qwen-pd", 14, "advisory",
         "not read: it mentions vLLM (KAITO's prefill/decode roles of 'Qwen/Qwen2.5-7B-Instruct' (KAITO runs them "
         "with vLLM only)) but KAITO's MultiRoleInference controller creates an InferenceSet per role (prefill, "
         "decode) and KAITO writes each role's vLLM command (tensor parallel size from the role's instance type, the "
         "NIXL KV transfer between them) itself, so no command is in the object; lint the pods it renders (kubectl "
         "get pod -o yaml) to check each role's layout"),
    ]


def test_args_given_to_an_image_placeholder_say_the_entrypoint_is_not_known_yet():
    """corpus13: a container that gives only args to ``image: ${VLLM_IMAGE}`` runs what the image's entrypoint runs,
    which the template's tool fills in (llm-d's coordinator deploys vLLM or llm-d-inference-sim, which takes the same
    flags, from one template): SW005 says that, not that a script or an operator starts the server; a container
    with a command of its own keeps the general reason."""
    inv = load_inputs([os.path.join(FIXTURES, "k8s", "mentions", "placeholder-image.yaml")])
    assert inv.groups == []
    got = [(f.subject, f.location.line, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    assert got == [
        ("Deployment default/vllm-d", 23, "advisory",
         "not read: it mentions vLLM (the image placeholder `${VLLM_IMAGE}`) but its container 'vllm' gives only "
         "args, so the entrypoint of its image decides what runs, and that image is a template's placeholder, not "
         "known until the template is rendered (vLLM, or a simulator or another server that takes the same flags): "
         "render it first (envsubst, helm template) and lint the output"),
        ("Deployment default/vllm-scripted", 51, "advisory",
         "not read: it mentions vLLM (the image placeholder `${VLLM_IMAGE}`) but none of its pod specs starts a "
         "vLLM server shardwise can read: the server is started elsewhere (a script, a job's entrypoint, the "
         "operator's own command)"),
    ]


def test_objects_of_an_operator_named_for_vllm_that_ask_for_accelerators_say_why():
    """corpus15: an operator's object whose API group or kind is named for vLLM (``llm.vllm-operator.io`` ``LLM``,
    ``VLLMModel``) and that asks for accelerators serves a model with them, so it says why it gives no workload; an
    object of such a group that asks for none (production-stack's VLLMRouter) runs no engine and says nothing. An
    installer that names vLLM's own chart (``chart: {name: vllm}``) says why too; a chart named for a router is not
    said to mention vLLM, but as a Flux HelmRelease of a HelmRepository it says what it deploys was not read
    (readers17: every GitOps object not rendered says why)."""
    inv = load_inputs([os.path.join(FIXTURES, "k8s", "mentions", "named-operators.yaml")])
    assert inv.groups == []
    why = ("it is an operator's object (its API is named for vLLM) that asks for accelerators, and shardwise does not "
           "read that operator's fields: the operator writes the vLLM command (model, layout, engine settings) into a "
           "pod spec that is not in the inputs; lint the pod it renders (kubectl get pod -o yaml) to check the layout")
    got = [(f.subject, f.location.line, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    assert got == [
        ("LLM default/qwen-prod", 14, "advisory",
         f"not read: it mentions vLLM (the LLM of llm.vllm-operator.io, which asks for 1 nvidia.com/gpu) but {why}"),
        ("VLLMModel default/mistral-7b-prod", 31, "advisory",
         f"not read: it mentions vLLM (the VLLMModel of infra.phenixforge.io, which asks for 1 nvidia.com/gpu) "
         f"but {why}"),
        ("AppEntry default/vllm", 58, "advisory",
         "not read: it mentions vLLM (the Helm chart `vllm`) but it installs the Helm chart `vllm` in the cluster, so "
         "the pods that chart runs are not in the inputs: lint the chart rendered with its values (helm template, "
         "with the values it names)"),
        ("HelmRelease default/semantic-router", 66, "advisory",
         "not read: what it deploys was not read: its source is the HelmRepository vllm, not a GitRepository of this "
         "checkout: not fetched; it names no cluster (Flux applies it to the cluster Flux runs in, or to the one its "
         "spec.kubeConfig Secret names), so that cluster's GPU nodes, node pools and network policies are known only "
         "where the inputs hold them; lint that source (a checkout of it, or what it renders) with the rest, or "
         "suppress SW005 on it with the reason it deploys no vLLM server"),
    ]


def test_simulators_that_take_vllms_flags_are_not_engines():
    """corpus16: llm-d's inference simulator takes vLLM's flag names (``--max-model-len``, ``--max-num-seqs``) and
    needs no GPU; nginx-gateway-fabric's guardrails example was read as a vLLM engine and blocked by SW204 for
    requesting none. A simulator or mock image (llm-d-inference-sim, its first name vllm-sim, AIBrix's
    vllm-simulator) gives no workload and no finding; vLLM's own image with the same arguments is an engine, and
    its missing GPU still blocks."""
    inv = load_inputs([os.path.join(FIXTURES, "k8s", "mentions", "simulators.yaml")])
    # review17: the simulator's word counts in the image's own name only, not in a registry folder or organisation
    # (`registry.example.com/mock/vllm-openai`, `ghcr.io/sim-lab/vllm-openai`: vLLM's image, no workload before)
    assert [g.name for g in inv.groups] == ["real-vllm", "mirrored-vllm", "sim-lab-vllm"]
    got = [(f.subject, f.code, f.level) for f in run_rules(ALL_RULES, inv) if f.code in ("SW002", "SW005", "SW204")]
    # readers18: each simulator is said to be recognised as one and not checked (advisory), where it passed silently
    assert got == [("Deployment default/vllm-qwen3-32b", "SW005", "advisory"),
                   ("Deployment default/old-sim", "SW005", "advisory"),
                   ("Deployment default/aibrix-mock", "SW005", "advisory"),
                   ("Deployment default/real-vllm", "SW204", "mandatory"),
                   ("Deployment default/mirrored-vllm", "SW204", "mandatory"),
                   ("Deployment default/sim-lab-vllm", "SW204", "mandatory")]
