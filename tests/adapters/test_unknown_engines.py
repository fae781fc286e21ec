"""readers18: a model server on accelerators whose command and image name no engine shardwise knew gets a word
(SW005); vLLM started through a wrapper that names it is read as vLLM. The fixture in the public files' shapes is
tests/fixtures/rules/SW005/unknown-engines.yaml; these cases vary one signal at a time."""

from __future__ import annotations

from shardwise.rules.adapters import load_text


def _deployment(container: str) -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: srv}\nspec:\n  selector: {matchLabels: {a: b}}\n"
            "  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n" + container)


def _said(container: str) -> list[tuple[str, str]]:
    inv = load_text(_deployment(container), "srv.yaml")
    assert not inv.groups
    out = []
    for i in inv.launch_issues:  # what said so: the parenthesis after "own server" or "on accelerators"
        mark = "vLLM's own server (" if "vLLM's own server (" in i.reason else "on accelerators ("
        out.append((i.other_engine, i.reason.split(mark, 1)[1].rsplit("): shardwise" if mark.startswith("vLLM")
                                                                      else "), but", 1)[0]))
    return out


_GPU = "        resources: {limits: {nvidia.com/gpu: 1}}\n"


def test_a_model_named_in_the_environment_or_a_flag_says_a_server_serves_it():
    port = "        ports: [{containerPort: 8000}]\n"
    assert _said("      - name: s\n        image: acme/llm:1\n        command: [python, serve.py]\n"
                 "        env: [{name: HF_MODEL_ID, value: Qwen/Qwen2.5-7B-Instruct}]\n" + port + _GPU) == [
        ("an engine not recognised", "HF_MODEL_ID names the model Qwen/Qwen2.5-7B-Instruct")]
    assert _said("      - name: s\n        image: acme/llm:1\n        args: [--model-id, mistralai/Mistral-7B-v0.3]\n"
                 + port + _GPU) == [
        ("an engine not recognised", "its command names the model (`--model-id mistralai/Mistral-7B-v0.3`)")]
    # liveness on /health, TGI's and vLLM's spelling
    assert _said("      - name: s\n        image: acme/llm:1\n        livenessProbe: {httpGet: {path: /health, port: 80}}\n"
                 + _GPU) == [("an engine not recognised", "its liveness probe asks /health")]


def test_no_word_without_an_accelerator_a_port_or_a_model():
    # the same server on CPUs; a GPU job that serves on no port (a fine-tune); a notebook; a model variable that names
    # no Hugging Face id (a size)
    assert _said("      - name: s\n        image: acme/llm:1\n        ports: [{containerPort: 8000}]\n"
                 "        readinessProbe: {httpGet: {path: /v1/models, port: 8000}}\n") == []
    assert _said("      - name: s\n        image: acme/train:1\n        env: [{name: MODEL_ID, value: org/model}]\n"
                 + _GPU) == []
    assert _said("      - name: s\n        image: jupyter/pytorch-notebook:cuda12\n        ports: [{containerPort: 8888}]\n"
                 "        readinessProbe: {httpGet: {path: /api, port: 8888}}\n" + _GPU) == []
    assert _said("      - name: s\n        image: acme/llm:1\n        ports: [{containerPort: 8000}]\n"
                 "        env: [{name: MODEL_NAME, value: large}]\n" + _GPU) == []


def test_triton_is_named_with_the_backend_its_tag_carries_and_localai_on_gpus_only():
    assert _said("      - name: t\n        image: nvcr.io/nvidia/tritonserver:25.01-trtllm-python-py3\n"
                 "        args: [tritonserver, --model-repository=/models]\n" + _GPU) == [
        ("Triton Inference Server (its TensorRT-LLM backend)", "its command runs `tritonserver`")]
    assert _said("      - name: t\n        image: nvcr.io/nvidia/tritonserver:24.12-py3\n"
                 "        args: [tritonserver, --model-store=/models]\n" + _GPU) == [
        ("Triton Inference Server", "its command runs `tritonserver`")]
    # Triton's image runs what it is given: a GPU test pod on it that sleeps serves with no engine (its tag's `vllm`
    # is a mention of vLLM, said as before)
    inv = load_text(_deployment("      - name: t\n        image: nvcr.io/nvidia/tritonserver:25.08-vllm-python-py3\n"
                                "        command: [/bin/bash]\n        args: [-c, 'trap : TERM INT; sleep infinity & "
                                "wait']\n" + _GPU), "srv.yaml")
    assert [(i.mentioned, i.other_engine) for i in inv.launch_issues] == [(True, "")]
    assert _said("      - name: l\n        image: quay.io/go-skynet/local-ai:v2.20.1\n" + _GPU) == [
        ("LocalAI", "its image is quay.io/go-skynet/local-ai:v2.20.1")]
    assert _said("      - name: l\n        image: quay.io/go-skynet/local-ai:v2.20.1\n") == []


def test_vllm_through_a_wrapper_that_names_it_is_read_as_vllm():
    for run in ('command: [/usr/bin/tini, --, /app/entrypoint.sh]\n        args: [python3, -m, '
                'vllm.entrypoints.openai.api_server, --model, Qwen/Qwen2.5-7B-Instruct]\n',
                'command: [/app/run.sh, vllm, serve, Qwen/Qwen2.5-7B-Instruct]\n',
                'command: [bash, -c, "pip install vllm && exec vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000"]\n'):
        inv = load_text(_deployment(f"      - name: s\n        image: python:3.12-slim\n        {run}" + _GPU),
                        "srv.yaml")
        assert [(g.name, g.engine.model) for g in inv.groups] == [("srv", "Qwen/Qwen2.5-7B-Instruct")], run
        assert inv.launch_issues == []


def test_an_object_that_mentions_vllm_keeps_that_word():
    """An object that mentions vLLM already said why it gave no workload (what of vLLM it names): that word stays,
    not the weaker simulator's or not-recognised one (ai-dynamo/modelexpress's streamer client names
    VLLM_RPC_TIMEOUT; blind, the wide corpus lost eight such mentions to the new words)."""
    sim = ("      - name: vllm-sim\n        image: ghcr.io/llm-d/llm-d-inference-sim:latest\n"
           "        args: [--model, Qwen/Qwen3-8B, --port, '8000']\n        ports: [{containerPort: 8000}]\n")
    assert [i.other_engine for i in load_text(_deployment(sim), "srv.yaml").launch_issues] == ["a simulator"]
    inv = load_text(_deployment(sim + "        env: [{name: VLLM_RPC_TIMEOUT, value: '600000'}]\n"), "srv.yaml")
    assert [(i.mentioned, i.other_engine, i.reason.split(" but ")[0]) for i in inv.launch_issues] == [
        (True, "", "it mentions vLLM (vLLM's environment variable VLLM_RPC_TIMEOUT)")]
