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


@pytest.mark.parametrize(("resource", "image", "memory", "word", "tp", "weights"), [
    # TP2: 65.7 GiB, at least 65.3, above 64: TP4 is the first the weights alone may fit
    ("huawei.com/Ascend910", "quay.io/ascend/vllm-ascend:v0.9.1", "64", "NPU", 4, "32.9 GiB (−0.2/+1.0)"),
    ("habana.ai/gaudi", "vault.habana.ai/gaudi-docker/1.21.0/ubuntu22.04/habanalabs/vllm-installer:latest", "96", "HPU",
     2, "65.7 GiB (−0.4/+1.6)"),
])
def test_weights_alone_above_the_device_block_on_any_family(tmp_path, resource: str, image: str, memory: str,
                                                             word: str, tp: int, weights: str) -> None:
    """mend17: the message names the device by its own word, and its remedy is sized from the weights alone (it was
    "--tensor-parallel-size 4 starts (32.9 GiB of weights per GPU)", a layout sized with CUDA's terms)."""
    level, message = _sw101(tmp_path, resource=resource, image=image, memory=memory,
                            model="meta-llama/Llama-3.1-70B-Instruct")
    assert level == "mandatory"
    whole = f"{float(memory):.1f}"
    assert message == (
        f"SW101: meta-llama/Llama-3.1-70B-Instruct in bf16 needs 131.4 GiB (−0.7/+2.9) of weights per {word} at TP1×PP1, but "
        f"gpu_memory_utilization 0.9 × {whole} GiB ({word} labelled {memory} GiB) allows {0.9 * float(memory):.1f} "
        f"GiB; vLLM will fail at start-up (vLLM 0.9.1); spread the weights over more {word}s: at "
        f"--tensor-parallel-size {tp} they come to about {weights} per {word}, below its whole {whole} GiB, with {tp} "
        f"{resource} requested per pod (sized from the weights alone, a lower bound: its plugin's own graph, "
        "collective and activation memory and the KV cache come on top, which shardwise does not size on this "
        "accelerator); or serve an FP8 or 4-bit quantised checkpoint "
        f"(sure on this accelerator too: the weights alone, at least 130.7 GiB per {word}, exceed "
        f"its whole {whole} GiB, whatever its plugin's own memory terms)")


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
    word = "NPU" if "Ascend" in resource else "HPU"
    assert message.startswith(f"SW101: Qwen/Qwen2.5-32B-Instruct in bf16 needs 61.0 GiB (−0.4/+1.5) of weights per {word} "
                              f"at TP1×PP1, but gpu_memory_utilization ")
    assert f"({word} labelled {memory} GiB)" in message and "per GPU" not in message
