"""``shardwise plan --gpu H100,H200,L40S,A100`` (or a list of instance types): the layouts each piece of hardware
recommends, side by side in one table, priced as billed, and one line naming the cheapest for the declared load."""

from __future__ import annotations

import json

import pytest
from shardwise.rules.app.cli import main

MODEL = ("--model", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192", "--vllm-version", "0.11.0")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_four_gpus_side_by_side_for_a_load(capsys):
    """70B for 64 sequences of 8,192 tokens: each GPU's plan alone recommends the layout shown (TP4 on H100, TP2 on
    H200, TP1 × PP8 on L40S, which has no NVLink, TP8 on the 40 GB A100); each is billed on the smallest priced
    instance type with its GPU that holds one replica (p5.48xlarge 55.04 USD/hour, p5en 63.296, g6e.48xlarge
    30.13118, p4d 21.957642), whole instances: 2 × p4d.24xlarge = 43.92 is the cheapest."""
    rc, out, err = run(capsys, "plan", *MODEL, "--gpu", "H100,H200,L40S,A100", "--concurrency", "64")
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == ("meta-llama/Llama-3.1-70B-Instruct for 64 sequences of 8,192 tokens at once (max_model_len; "
                        "no --p95-context); vLLM 0.11.0:")
    assert out == """\
meta-llama/Llama-3.1-70B-Instruct for 64 sequences of 8,192 tokens at once (max_model_len; no --p95-context); vLLM 0.11.0:
  hardware            GPU     layout  GPUs/replica  seqs/replica  replicas  GPUs          billed on  $/hour  tokens/s/replica  $/M output tokens
      H100  H100-SXM-80GB        TP4             4            52         2     8    1 × p5.48xlarge  $55.04      1,269 (est.)  $6.02 (est.)
      H200     H200-141GB        TP2             2            41         2     4  1 × p5en.48xlarge  $63.30        911 (est.)  $9.65 (est.)
      L40S           L40S  TP1 × PP8             8            62         2    16   2 × g6e.48xlarge  $60.26        128 (est.)  $65.23 (est.)
      A100      A100-40GB        TP8             8            53         2    16   2 × p4d.24xlarge  $43.92      1,147 (est.)  $5.32 (est.)
  $/hour of H100, H200, L40S, A100: whole instances at the on-demand price, on the smallest priced instance type with the GPU that holds one replica
  tokens/s (est.): the decode estimate of one replica from the GPU's memory bandwidth, compute and links (docs/capacity-model.md), not a measurement; --output-tokens-per-second R for one
cheapest for the declared load: A100 — 2 replicas of TP8 on 2 × p4d.24xlarge (the smallest priced instance type with the GPU that holds one replica), $43.92/hour on demand, $5.32 (est.) per million output tokens
"""


def test_instance_types_are_billed_as_named_and_json_says_the_same(capsys):
    """Named instance types are billed as named: the 70B's TP1 × PP8 on L40S spans two 4-GPU g6e.12xlarge per
    replica (4 × 10.49264 = 41.97 USD/hour), more than one p4de.24xlarge (8 × A100-80GB, 27.44705) holding both TP4
    replicas."""
    argv = ("plan", *MODEL, "--instance-type", "p5.48xlarge,p4de.24xlarge,g6e.12xlarge", "--concurrency", "64")
    rc, out, _ = run(capsys, *argv)
    assert rc == 0
    assert out.splitlines()[-3:] == [
        "  $/hour of p5.48xlarge, p4de.24xlarge, g6e.12xlarge: whole instances at the on-demand price, on the named "
        "instance type",
        "  tokens/s (est.): the decode estimate of one replica from the GPU's memory bandwidth, compute and links "
        "(docs/capacity-model.md), not a measurement; --output-tokens-per-second R for one",
        "cheapest for the declared load: p4de.24xlarge — 2 replicas of TP4 on 1 × p4de.24xlarge (the named instance "
        "type), $27.45/hour on demand, $5.05 (est.) per million output tokens"]
    rc, out, _ = run(capsys, *argv, "--format", "json")
    d = json.loads(out)
    assert rc == 0
    # A100-80GB TP4 at 32 sequences of 8,192 tokens: (35.3 GB of weights + 21.5 GB of KV) per GPU at 0.77 × 2,039 GB/s
    # = 36.2 ms, + 4.3 ms of compute at 312 TFLOPS + 2.0 ms of all-reduce = 42.4 ms a step: 755 tokens/s (estimate)
    assert [{k: v for k, v in r.items() if k != "plan"} for r in d["compared"]] == [
        {"hardware": "p5.48xlarge", "gpu": "H100-SXM-80GB", "layout": "TP4", "gpus_per_replica": 4,
         "sequences_per_replica": 52, "replicas": 2, "gpus": 8, "instance_type": "p5.48xlarge", "instances": 1,
         "billed_as": "the named instance type", "usd_per_hour": 55.04, "usd_per_million_output_tokens": 6.02,
         "output_tokens_per_second": 1269.4, "output_tokens_per_second_estimated": True, "no_price": None},
        {"hardware": "p4de.24xlarge", "gpu": "A100-80GB", "layout": "TP4", "gpus_per_replica": 4,
         "sequences_per_replica": 55, "replicas": 2, "gpus": 8, "instance_type": "p4de.24xlarge", "instances": 1,
         "billed_as": "the named instance type", "usd_per_hour": 27.45, "usd_per_million_output_tokens": 5.05,
         "output_tokens_per_second": 755.5, "output_tokens_per_second_estimated": True, "no_price": None},
        {"hardware": "g6e.12xlarge", "gpu": "L40S", "layout": "TP1 × PP8", "gpus_per_replica": 8,
         "sequences_per_replica": 62, "replicas": 2, "gpus": 16, "instance_type": "g6e.12xlarge", "instances": 4,
         "billed_as": "the named instance type", "usd_per_hour": 41.97, "usd_per_million_output_tokens": 45.43,
         "output_tokens_per_second": 128.3, "output_tokens_per_second_estimated": True, "no_price": None},
    ]
    assert d["cheapest"] == "p4de.24xlarge"
    assert d["compared"][1]["plan"]["recommended"]["tensor_parallel_size"] == 4
    assert d["cheapest_text"] == out_cheapest(capsys, argv)


def out_cheapest(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> str:
    return run(capsys, *argv)[1].splitlines()[-1]


def test_no_price_says_why_and_no_load_compares_one_replica(capsys):
    """MI300X is not sold on-demand on AWS and the GB200 tray has no public on-demand price: each row says why, and
    the cheapest is named among the priced. Without --concurrency, one replica's instances are compared and the line
    says so."""
    rc, out, _ = run(capsys, "plan", *MODEL, "--gpu", "H100,MI300X,GB200,A100-80GB")
    assert rc == 0
    lines = out.splitlines()
    # GB200 has no speeds in the catalog: no estimate; MI300X has one, but no price. Both are TP1: 131 GiB of weights
    # leave a KV cache of 35 GiB (MI300X) beyond the error band's reach, judged on the KV left, not weights × 1.4
    assert [line.split()[2] for line in lines[2:6]] == ["TP4", "TP1", "TP1", "TP4"]
    assert [line.split()[-3:] for line in lines[2:6]] == [
        ["(est.)", "$9.23", "(est.)"], ["255", "(est.)", "–"], ["–", "–", "–"], ["(est.)", "$7.69", "(est.)"]]
    assert lines[6:] == [
        "  MI300X: no price: the catalog has no instance type with MI300X GPUs (none is sold on-demand on AWS)",
        "  GB200: no price: p6e-gb200.36xlarge has no public us-east-1 on-demand price in the catalog",
        "  $/hour of H100, A100-80GB: whole instances at the on-demand price, on the smallest priced instance type "
        "with the GPU that holds one replica",
        "  tokens/s (est.): the decode estimate of one replica from the GPU's memory bandwidth, compute and links "
        "(docs/capacity-model.md), not a measurement; --output-tokens-per-second R for one",
        "cheapest for one replica (no load declared: --concurrency C prices the replicas a load needs): A100-80GB — "
        "one TP4 replica on 1 × p4de.24xlarge (the smallest priced instance type with the GPU that holds one "
        "replica), $27.45/hour on demand, $7.69 (est.) per million output tokens",
    ]


@pytest.mark.parametrize("argv,message", [
    (("--gpu", "H100,,A100"), "an empty name in the list 'H100,,A100': give names separated by commas, e.g. "
                              "H100,H200,L40S"),
    (("--gpu", "H100,A100", "--instance-type", "p5.48xlarge,p4d.24xlarge"),
     "compare either GPUs (--gpu H100,H200) or instance types (--instance-type p5.48xlarge,p4de.24xlarge), not both"),
    # one instance type beside a list of GPUs is not silently dropped
    (("--gpu", "H100,A100", "--instance-type", "p5.48xlarge"),
     "compare either GPUs (--gpu H100,H200) or instance types (--instance-type p5.48xlarge,p4de.24xlarge), not both"),
])
def test_comparison_usage_errors(capsys, argv, message):
    assert run(capsys, "plan", *MODEL, *argv) == (2, "", f"shardwise: error: {message}\n")
