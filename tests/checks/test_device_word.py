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
