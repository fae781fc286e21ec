"""A Triton Inference Server vLLM backend's model.json (the engine arguments Triton hands vLLM's AsyncLLMEngine, beside
a config.pbtxt of ``backend: "vllm"``: triton-inference-server/vllm_backend README.md) is skipped with a reason that
says a vLLM server is configured there and not linted; it was "JSON that is not a Kubernetes object" (corpus45:
redhat-na-ssa/llm-test's Llama-3-8B at tensor_parallel_size 4, selectel/inference-platform-tutorials' samples).
"""

from __future__ import annotations

import json

import pytest
from shardwise.rules.adapters.kinds import TRITON_VLLM
from shardwise.rules.adapters.load import load_text

GENERIC = "JSON that is not a Kubernetes object nor a Pulumi preview or state file"


@pytest.mark.parametrize("data", [
    {"model": "meta-llama/Meta-Llama-3-8B-Instruct", "disable_log_requests": True, "tensor_parallel_size": 4,
     "gpu_memory_utilization": 0.95, "max_model_len": 8192},  # redhat-na-ssa/llm-test's shape
    {"model": "gpt2", "disable_log_requests": True, "gpu_memory_utilization": 0.5, "enforce_eager": True},
    {"model": "meta-llama/Llama-2-7b-hf", "trust_remote_code": True, "download_dir": "/opt/hf",
     "disable_log_requests": "true", "gpu_memory_utilization": 0.5},
])
def test_a_vllm_backend_model_json_says_it_configures_a_vllm_server(data):
    inv = load_text(json.dumps(data, indent=4), "model.json")
    assert inv.groups == [] and inv.errors == [] and inv.skipped_files == [("model.json", TRITON_VLLM)]


@pytest.mark.parametrize("data", [
    {"model": "gpt-4o"},  # a client's settings: a model alone names no engine
    {"model": "gpt-4o", "temperature": 0.2, "maxTokens": 512},  # camelCase: an application's, not AsyncEngineArgs
    {"model": "x", "max_model_len": 4096, "tools": {"a": 1}, "Name": "y"},  # a key vLLM's fields never are
    {"name": "web", "version": "1.0.0", "dependencies": {}},
])
def test_other_json_with_a_model_stays_a_json_that_is_no_input(data):
    inv = load_text(json.dumps(data), "settings.json")
    assert inv.skipped_files == [("settings.json", GENERIC)]


def test_a_model_json_of_a_vllm_backend_model_folder_is_named_by_its_config_pbtxt(tmp_path):
    # triton-inference-server/tutorials' speculative decoding base_model: `model` alone, named by the config.pbtxt of
    # its model folder (backend: "vllm"); the same file beside a config.pbtxt of another backend stays generic JSON
    for name, backend in (("base_model", '"vllm"'), ("onnx_model", '"onnxruntime"')):
        version = tmp_path / name / "1"
        version.mkdir(parents=True)
        (tmp_path / name / "config.pbtxt").write_text(f"# a model\nbackend: {backend}\ninstance_group [{{ kind: KIND_MODEL }}]\n")
        (version / "model.json").write_text('{\n    "model": "/hf-models/Meta-Llama-3-8B-Instruct"\n}\n')
    from shardwise.rules.adapters import load_inputs

    inv = load_inputs([str(tmp_path)])
    assert sorted((f.rsplit("/", 3)[-3], why) for f, why in inv.skipped_files) == [
        ("base_model", TRITON_VLLM), ("onnx_model", GENERIC)]
