"""What a message calls a group's accelerators: the word of the family its pods request (mend2, mend6)."""

from __future__ import annotations

import pytest
from shardwise.rules.catalog.accelerators import device_word
from shardwise.rules.model import EngineArgs, ServingGroup


@pytest.mark.parametrize(("resource", "request_word", "rank_word"), [
    ("nvidia.com/gpu", "GPU", "GPU"),
    ("amd.com/gpu", "GPU", "GPU"),
    ("huawei.com/Ascend910", "NPU", "NPU"),
    ("habana.ai/gaudi", "HPU", "HPU"),
    ("google.com/tpu", "TPU", "TPU"),
    # the device plugin hands out Neuron devices; vLLM's tensor parallelism counts NeuronCores
    ("aws.amazon.com/neuron", "Neuron device", "NeuronCore"),
    ("aws.amazon.com/neuroncore", "Neuron device", "NeuronCore"),
])
def test_the_word_is_the_family_s(resource: str, request_word: str, rank_word: str) -> None:
    g = ServingGroup(name="m", kind="Deployment", namespace="serving", engine=EngineArgs(model="m"),
                     accelerator_resource=resource)
    assert (device_word(g), device_word(g, rank=True)) == (request_word, rank_word)


#: Gemma 3 27B at TP2 on an Ascend pool sized by its labels (80 GiB a device), vLLM 0.11.1, no load declared: the one
#: smaller layout serves it only at a lower --max-num-seqs (the shape of SW104/max-num-seqs-default.yaml's first case)
ASCEND_CAPPED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gemma3-27b-npu
  namespace: serving
  annotations: {shardwise.dev/vllm-version: "0.11.1"}
spec:
  replicas: 1
  selector: {matchLabels: {app: gemma3-27b-npu}}
  template:
    metadata: {labels: {app: gemma3-27b-npu}}
    spec:
      nodeSelector: {shardwise.dev/gpu-memory-gib: "80", shardwise.dev/gpu-count: "8"}
      containers:
        - name: vllm
          image: quay.io/ascend/vllm-ascend:v0.11.0rc1
          command: ["vllm", "serve"]
          args: [google/gemma-3-27b-it, --tensor-parallel-size=2, --max-model-len=32768, --port=8000]
          resources:
            limits: {huawei.com/Ascend910: "2"}
"""


def test_sw104_s_capped_layout_counts_npus_too(tmp_path) -> None:
    """review34: mend6 counted SW104's devices in the accelerator's word, but the branch where the smaller layout
    serves only at a lower --max-num-seqs still said "on the same GPUs" and "KV cache per GPU" after "sharded over 2
    NPUs"."""
    import json

    from shardwise.rules.app.cli import main

    (tmp_path / "g.yaml").write_text(ASCEND_CAPPED, encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "g.yaml"), "--format", "json", "--output", str(out)])
    [message] = [f["message"] for f in json.loads(out.read_text(encoding="utf-8"))["findings"] if f["code"] == "SW104"]
    assert message == (
        "SW104: google/gemma-3-27b-it is sharded over 2 NPUs per replica (TP2×PP1) on NPU labelled 80 GiB, and 2 "
        "replicas × TP1×PP1 would serve it on the same NPUs with --max-num-seqs 512 (vLLM's default here is 1,024, "
        "and what follows it, the profile's sampler over the vocabulary above all, leaves too little KV cache): each "
        "starts at max_model_len 32,768 with 13.0 GiB (±5.1) of KV cache per NPU; set the cap and run them, or "
        "declare the load (annotation shardwise.dev/target-concurrency) to have it judged (vLLM 0.11.1)")


def test_a_gaudi_pool_whose_pods_request_no_device_is_of_hpus() -> None:
    """mend24: a privileged container on a Gaudi node requests no habana.ai/gaudi (it sees the node's devices); the
    word comes from the pool's family, as a Node's status.capacity lists it, and stays "GPU" on a pool of another."""
    from shardwise.rules.model import NodePool

    def on(families: tuple[str, ...] | None, accelerator: str) -> str:
        pool = NodePool(name="p", accelerator=accelerator, accelerator_families=families)
        g = ServingGroup(name="m", kind="Deployment", namespace="serving", engine=EngineArgs(model="m"), pool=pool)
        return device_word(g)

    assert (on(("intel-gaudi",), "intel"), on(None, "huawei"), on(None, "nvidia")) == ("HPU", "NPU", "GPU")


@pytest.mark.parametrize(("noun", "said"), [
    ("GPU", "a GPU"), ("NPU", "an NPU"), ("HPU", "an HPU"), ("TPU", "a TPU"), ("Neuron device", "a Neuron device"),
    ("NeuronCore", "a NeuronCore"),
])
def test_the_article_is_as_the_noun_is_said(noun: str, said: str) -> None:
    from shardwise.rules.checks._words import an

    assert an(noun) == said
