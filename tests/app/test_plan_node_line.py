"""The ``node`` line of ``plan`` says what the recommendation is priced on (newuser18): with ``--gpu`` alone the
layouts are tried on the largest instance type with the GPU, but a replica is priced on the smallest instance type
that holds it, and the line said only the former beside a price of the latter. Each shape: a one-GPU replica, TP2
on a 4-GPU instance, a replica spanning nodes, ``--instance-type`` and ``--gpus-per-node`` given, and no load."""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main

LOAD = ("--concurrency", "32", "--p95-context", "4096")
HINT = "; --instance-type or --gpus-per-node for another; PCIe only)"
LARGEST = "8 × L40S per node (g6e.48xlarge, the largest instance type with this GPU"


def node_line(capsys: pytest.CaptureFixture[str], *argv: str, rc: int = 0) -> str:
    assert main(["plan", *argv]) == rc
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("node ")]
    assert len(lines) == 1, out
    return lines[0].removeprefix("node").strip()


def test_a_one_gpu_replica_names_the_instance_it_is_priced_on(capsys):
    assert node_line(capsys, "--model", "Qwen/Qwen3-14B", "--gpu", "L40S", *LOAD) == (
        f"{LARGEST}, where the layouts are tried; the recommendation's replica of 1 GPU is priced on g6e.xlarge "
        f"(1 GPU), the smallest instance type with this GPU that holds it{HINT}")


def test_a_tp2_replica_is_priced_on_a_four_gpu_instance(capsys):
    assert node_line(capsys, "--model", "Qwen/Qwen3-14B", "--gpu", "L40S", "--tp", "2", *LOAD, rc=1) == (  # SW104 blocks TP2
        f"{LARGEST}, where the layouts are tried; the recommendation's replica of 2 GPUs is priced on g6e.12xlarge "
        f"(4 GPUs), the smallest instance type with this GPU that holds it{HINT}")


def test_a_replica_spanning_nodes_is_priced_on_the_largest(capsys):
    assert node_line(capsys, "--model", "meta-llama/Llama-3.1-405B-Instruct", "--gpu", "L40S", "--concurrency", "8",
                     "--p95-context", "4096") == (
        f"{LARGEST}, which the recommendation's replica of 32 GPUs spans 4 of and is priced on{HINT}")


def test_a_named_instance_type_is_the_node_and_the_price(capsys):
    assert node_line(capsys, "--model", "Qwen/Qwen3-14B", "--instance-type", "g6e.12xlarge", *LOAD) == (
        "4 × L40S per node (g6e.12xlarge; PCIe only)")


def test_gpus_per_node_names_its_instance_type(capsys):
    assert node_line(capsys, "--model", "Qwen/Qwen3-14B", "--gpu", "L40S", "--gpus-per-node", "4", *LOAD) == (
        "4 × L40S per node (--gpus-per-node (g6e.12xlarge); PCIe only)")


def test_without_a_load_nothing_is_priced_and_the_line_names_only_the_node(capsys):
    assert node_line(capsys, "--model", "Qwen/Qwen3-14B", "--gpu", "L40S") == (
        f"{LARGEST}{HINT}")
