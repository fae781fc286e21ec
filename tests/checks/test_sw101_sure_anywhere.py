"""SW101 on an accelerator the capacity model sizes as if on a CUDA GPU (mend12 made its verdicts advisory there): the
weights alone above the device's whole memory keep blocking, on any family; a budget only CUDA's terms size does not
(mend15). The fixtures SW101/ascend-weights-exceed.yaml and ascend-budget-only.yaml hold the Ascend messages."""

from __future__ import annotations

import json

import pytest

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
  namespace: serving
  annotations: {{shardwise.dev/vllm-version: "0.9.1"}}
spec:
  selector: {{matchLabels: {{app: m}}}}
  template:
    metadata: {{labels: {{app: m}}}}
    spec:
      nodeSelector: {{shardwise.dev/gpu-memory-gib: "{memory}", shardwise.dev/gpu-count: "8"}}
      containers:
        - name: vllm
          image: {image}
          command: [vllm, serve]
          args: [{model}, --max-model-len, "8192", --max-num-seqs, "32"{extra}]
          resources:
            limits: {{{resource}: 1}}
"""


def _sw101(tmp_path, extra: str = "", **fields: str) -> tuple[str, str]:
    from shardwise.rules.app.cli import main

    (tmp_path / "g.yaml").write_text(DEPLOYMENT.format(extra=extra, **fields), encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "g.yaml"), "--format", "json", "--output", str(out)])
    [(level, message)] = [(f["level"], f["message"]) for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
                          if f["code"] == "SW101"]
    return level, message


@pytest.mark.parametrize(("resource", "image", "memory", "word"), [
    ("huawei.com/Ascend910", "quay.io/ascend/vllm-ascend:v0.9.1", "64", "NPU"),
    ("habana.ai/gaudi", "vault.habana.ai/gaudi-docker/1.21.0/ubuntu22.04/habanalabs/vllm-installer:latest", "96", "HPU"),
])
def test_weights_alone_above_the_device_block_on_any_family(tmp_path, resource: str, image: str, memory: str,
                                                             word: str) -> None:
    level, message = _sw101(tmp_path, resource=resource, image=image, memory=memory,
                            model="meta-llama/Llama-3.1-70B-Instruct")
    assert level == "mandatory"
    assert message.endswith(f"(sure on this accelerator too: the weights alone, at least 130.7 GiB per {word}, exceed "
                            f"its whole {float(memory):.1f} GiB, whatever its plugin's own memory terms)")


@pytest.mark.parametrize(("resource", "image", "memory", "extra"), [
    # 61.0 GiB of weights: below the device's whole memory, above gpu_memory_utilization × it (0.9 × 64; 0.5 × 96,
    # a Gaudi 2)
    ("huawei.com/Ascend910", "quay.io/ascend/vllm-ascend:v0.9.1", "64", ""),
    ("habana.ai/gaudi", "vault.habana.ai/gaudi-docker/1.21.0/ubuntu22.04/habanalabs/vllm-installer:latest", "96",
     ', --gpu-memory-utilization, "0.5"'),
])
def test_a_budget_only_cuda_s_terms_size_is_advisory(tmp_path, resource: str, image: str, memory: str,
                                                      extra: str) -> None:
    level, message = _sw101(tmp_path, extra, resource=resource, image=image, memory=memory,
                            model="Qwen/Qwen2.5-32B-Instruct")
    assert level == "advisory"
    assert "(advisory: sized as if on a CUDA GPU: vLLM runs on " in message
    assert "sure on this accelerator too" not in message
