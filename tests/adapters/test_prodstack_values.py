"""The vLLM production-stack chart's values inside a Flux HelmRelease: a ``vllmConfig`` value the chart cannot write
as a word of vLLM's command (a ``!!binary`` scalar's bytes, a map) is an input error at that key's own line in the
HelmRelease's file, not at the command's (found by the explicit-tags sweep, tests/adapters/test_robustness.py)."""

from __future__ import annotations

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.model.errors import InputError

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: vllm, namespace: llm}
spec:
  chart:
    spec:
      chart: vllm-stack
      version: 0.1.12
      sourceRef: {kind: HelmRepository, name: vllm-production-stack, namespace: llm}
  values:
    servingEngineSpec:
      modelSpec:
        - name: qwen
          repository: vllm/vllm-openai
          tag: v0.11.0
          modelURL: Qwen/Qwen2.5-7B-Instruct
          replicaCount: 1
          requestCPU: 6
          requestMemory: 24Gi
          requestGPU: 1
          vllmConfig:
            dtype: bfloat16
            maxModelLen: {value}
"""


@pytest.mark.parametrize(("value", "found"), [("!!binary 8192", "binary data (a !!binary tag)"),
                                              ("{tokens: 8192}", "a mapping"), ("[8192]", "a list")])
def test_a_value_the_chart_cannot_write_is_an_input_error_at_its_line(tmp_path, value, found):
    path = tmp_path / "release.yaml"
    path.write_text(RELEASE.replace("{value}", value), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_inputs([str(path)])
    assert (err.value.file, err.value.line, err.value.message) == (
        str(path), 23, f"vllmConfig.maxModelLen: expected a number or text, found {found}")


def test_a_number_is_read_as_the_flag():
    from shardwise.rules.adapters.k8s.prodstack import _flags

    assert _flags({"vllmConfig": {"maxModelLen": 8192.0, "dtype": "bfloat16"}}, 12)[:6] == [
        "--no-enable-prefix-caching", "--max-model-len", "8192", "--dtype", "bfloat16"][:6]
