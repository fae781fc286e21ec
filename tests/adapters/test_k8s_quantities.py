"""Accelerator counts are read as the Kubernetes API server reads a resource quantity (hostile5).

A count of ``nvidia.com/gpu`` (or any extended resource) is a quantity: a YAML number or a string with a
decimal, binary or exponent suffix (k8s.io/apimachinery/pkg/api/resource/quantity.go). The API server admits
``1.0``, ``"1e3"``, ``"2000m"`` and ``"1k"`` as whole numbers and refuses a negative, fractional or malformed
count for an extended resource; before, ``1.0`` and ``"1e3"`` were input errors and ``-1`` was read as a
request of -1 GPUs (a mandatory SW204 on an object Kubernetes never admits).
"""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.adapters.k8s.fields import quantity, whole_quantity
from shardwise.rules.model.errors import InputError


@pytest.mark.parametrize("value,parsed", [
    (2, Fraction(2)), (1.0, Fraction(1)), (1.5, Fraction(3, 2)), ("1e3", Fraction(1000)), ("1E0", Fraction(1)),
    ("2000m", Fraction(2)), ("1k", Fraction(1000)), ("1Ki", Fraction(1024)), ("+2", Fraction(2)), (".5", Fraction(1, 2)),
    ("5.", Fraction(5)), (" 2 ", Fraction(2)), ("-1", Fraction(-1)), ("250u", Fraction(1, 4000)),
    ("one", None), (True, None), ([1], None), ("1 k", None), ("e3", None), ("1e99999", None), ("2 GPUs", None),
    (float("nan"), None), (float("inf"), None), (None, None),
    # fuzz17 (seed 17002 case 528, `nvidia.com/gpu: 1Ei`): the exa and exbi suffixes were taken for an exponent
    ("1Ei", Fraction(2**60)), ("1E", Fraction(10**18)), ("2Ei", Fraction(2**61)), ("1.5E", Fraction(15 * 10**17)),
])
def test_quantity_is_read_as_the_api_server_reads_it(value, parsed):
    assert quantity(value) == parsed


@pytest.mark.parametrize("value,count", [
    (1.0, 1), ("1e3", 1000), ("2000m", 2), ("0", 0), (2**63 - 1, 2**63 - 1),
    ("-1", None), (1.5, None), ("1500m", None), (2**63, None), ("one", None),
])
def test_a_whole_quantity_is_a_count_from_0_to_2_63_minus_1(value, count):
    assert whole_quantity(value) == count


def pod(count: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: p}}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai
              args: [org/m]
              resources: {{limits: {{nvidia.com/gpu: {count}}}}}
        """)


@pytest.mark.parametrize("count,gpus", [("1.0", 1), ('"1e3"', 1000), ('"2000m"', 2), ("2", 2), ('"1k"', 1000),
                                        ("1Ei", 2**60), ("1E", 10**18)])
def test_a_gpu_count_written_as_any_quantity_is_read(count, gpus):
    [group] = load_kubernetes_text(pod(count), "t.yaml").groups
    assert group.gpus_per_pod == gpus


@pytest.mark.parametrize("count,message", [
    ("-1", "expected a whole number, got -1 (Kubernetes refuses a negative quantity)"),
    ("1.5", "expected a whole number, got 1.5 (Kubernetes takes only whole numbers of an extended resource)"),
    ('"1500m"', "expected a whole number, got '1500m' (Kubernetes takes only whole numbers of an extended resource)"),
    ("true", "expected a whole number, got true (not a Kubernetes quantity)"),
    ('"2 GPUs"', "expected a whole number, got '2 GPUs' (not a Kubernetes quantity)"),
    ('"1e30"', "expected a whole number, got '1e30' (more than the 2^63-1 a Kubernetes quantity holds)"),
    ("8Ei", "expected a whole number, got '8Ei' (more than the 2^63-1 a Kubernetes quantity holds)"),
])
def test_a_gpu_count_kubernetes_refuses_is_an_input_error_at_its_line(count, message):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(pod(count), "t.yaml")
    assert str(err.value) == f"t.yaml:9: resources.limits.nvidia.com/gpu: {message}"


@pytest.mark.parametrize("capacity,gpus", [('"8"', 8), ("8.0", 8), ('"8k"', 8000), ('"-8"', None), ('"eight"', None)])
def test_a_node_capacity_is_read_as_a_quantity(capacity, gpus):
    text = ("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}\n"
            f"status: {{capacity: {{nvidia.com/gpu: {capacity}}}}}\n")
    [node] = load_kubernetes_text(text, "n.yaml").pools
    assert node.gpus_per_node == gpus
