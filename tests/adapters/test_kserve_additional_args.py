"""KServe's LLMInferenceService passes vLLM flags through the ``main`` container's ``VLLM_ADDITIONAL_ARGS``
(adapters/k8s/kserve.py ``additional_args``): the controller's base config runs ``eval "exec vllm serve /mnt/models
... ${VLLM_ADDITIONAL_ARGS} $@"`` (kserve config/llmisvcconfig/config-llm-template.yaml, v0.18.0 to v0.20.0).
nirjhar17/synapxe-opencode-demo (corpus33) caps the context there (--max-model-len 32768, --kv-cache-dtype fp8);
read as vLLM's default context, SW102 blocked it. The fixture is tests/fixtures/rules/SW102/kserve-additional-args.yaml."""

from __future__ import annotations

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.adapters.k8s.kserve import additional_args
from shardwise.rules.model import UNKNOWN
from shardwise.rules.model.unknown import UNKNOWN_TOKEN

LLMISVC = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: qwen
spec:
  model:
    uri: hf://Qwen/Qwen2.5-7B-Instruct
  parallelism:
    tensor: 2
  template:
    containers:
    - name: main
@ARGS@      env:
      - name: VLLM_ADDITIONAL_ARGS
@VALUE@      resources:
        limits:
          nvidia.com/gpu: "2"
"""


def _engine(value: str, args: str = ""):
    [g] = load_kubernetes_text(LLMISVC.replace("@VALUE@", value).replace("@ARGS@", args), "llmisvc.yaml").groups
    return g.engine


@pytest.mark.parametrize(("env", "words"), [
    ([{"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len 8192 --kv-transfer-config "
       "'{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}'"}],
     ["--max-model-len", "8192", "--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}']),
    ([{"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len 1"},
      {"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len 2"}], ["--max-model-len", "2"]),  # the last wins
    ([{"name": "VLLM_ADDITIONAL_ARGS", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}], [UNKNOWN_TOKEN]),
    ([{"name": "VLLM_ADDITIONAL_ARGS", "value": ""}], None),
    ([{"name": "OTHER", "value": "--max-model-len 8192"}], None),
])
def test_the_variable_is_split_as_the_base_configs_eval_does(env, words):
    assert additional_args({"name": "main", "env": env}) == words


def test_a_container_with_its_own_command_runs_no_base_script():
    assert additional_args({"name": "main", "command": ["vllm", "serve", "/mnt/models"],
                            "env": [{"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len 8192"}]}) is None


def test_its_flags_are_read_after_the_resources_and_before_the_containers_args():
    e = _engine('        value: "--max-model-len 16384 --tensor-parallel-size 1 --max-num-seqs 8"\n',
                "      args: [--max-num-seqs, '16']\n")
    # --tensor-parallel-size 1 after the controller's spec.parallelism flag (2) wins; the container's args ($@) last
    assert (e.model, e.max_model_len, e.tensor_parallel_size, e.max_num_seqs) == (
        "Qwen/Qwen2.5-7B-Instruct", 16384, 1, 16)


def test_a_value_from_a_secret_leaves_what_it_could_set_unknown_but_not_the_model():
    e = _engine("        valueFrom:\n          secretKeyRef: {name: flags, key: args}\n")
    assert e.model == "Qwen/Qwen2.5-7B-Instruct"
    assert e.max_model_len is UNKNOWN and e.tensor_parallel_size is UNKNOWN
