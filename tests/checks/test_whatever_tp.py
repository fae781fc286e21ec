"""A --tensor-parallel-size not known yet where vLLM refuses every TP the pod's GPUs allow (mend17): one blocking
finding, of the rule that refuses the largest TP (SW101 where the weights may not fit there, SW102 where only the KV
cache does not), and SW101, SW102 and SW104 leave the "cannot decide" the other rules still share. Where some TP
may start, or the command exits as written (SW003), nothing moves. The messages are in the fixtures
SW102/tp-unknown.yaml and SW101/tp-unknown.yaml; this asserts what each workload gets from every rule, merged as the
reports merge it."""

from __future__ import annotations

import contextlib
import io
import json

from repo_paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "rules"
#: What holds back the topology rules where TP is not known: SW106 onwards, once SW101, SW102 and SW104 are decided.
REST = ["SW106", "SW201", "SW202", "SW203", "SW204", "SW208", "SW401"]
ALL = ["SW101", "SW102", "SW104", *REST]


def _findings(path: str) -> list[tuple[str, str, list[str], str]]:
    from shardwise.rules.app.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["lint", str(FIXTURES / path), "--format", "json", "--fail-on", "none"])
    return [(f["subject"].removeprefix("Deployment serving/"), f["level"], f["codes"], f["message"].split(": ")[1])
            for f in json.loads(buf.getvalue())["findings"] if f["code"] != "SW305"]


def test_every_tp_refused_is_one_finding_of_the_rule_that_refuses_the_largest() -> None:
    assert _findings("SW102/tp-unknown.yaml") == [
        ("llama70b-h100-tp-envsubst", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 2 nvidia.com/gpu a pod gets, so at most 2), meta-llama/Llama-3.1-70B-Instruct in bf16 does not start on H100-SXM-80GB, where gpu_memory_utilization 0.9 × 79.2 GiB allows 71.3 GiB per GPU"),  # noqa: E501
        ("llama70b-h100-tp-envsubst", "advisory", REST, "cannot decide"),
        ("vllm-llama70b", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 4 nvidia.com/gpu a pod gets, so at most 4), meta-llama/Llama-3.1-70B-Instruct in bf16 does not start on A100-40GB, where gpu_memory_utilization 0.9 × 39.4 GiB allows 35.5 GiB per GPU"),  # noqa: E501
        ("vllm-llama70b", "advisory", REST, "cannot decide"),
        ("llama8b-l4-tp-placeholder", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 1 nvidia.com/gpu a pod gets, so at most 1), meta-llama/Llama-3.1-8B-Instruct in bf16 does not start on L4, where gpu_memory_utilization 0.9 × 22.0 GiB allows 19.8 GiB per GPU"),  # noqa: E501
        ("llama8b-l4-tp-placeholder", "advisory", REST, "cannot decide"),
        # TP2 starts on two L4s: undecided, as before
        ("llama8b-l4x2-tp-placeholder", "advisory", ALL, "cannot decide"),
        # `${TP_SIZE}` with no shell: vLLM exits on the flag as written, which holds every capacity rule back
        ("llama70b-h100-tp-unexpanded", "mandatory", ["SW003"], "container 'vllm'"),
        ("llama70b-h100-tp-unexpanded", "advisory", ALL, "held back by the SW003 error"),
    ]


def test_the_weights_refusal_at_the_largest_tp_is_sw101_s_and_sw102_sw104_are_decided() -> None:
    found = _findings("SW101/tp-unknown.yaml")
    assert [(s, level, codes) for s, level, codes, _ in found] == [
        ("llama70b-l40s-tp-placeholder", "mandatory", ["SW101"]),  # mend13: the weights fail at every TP
        ("llama70b-l40s-tp-placeholder", "advisory", REST),  # SW102 and SW104 no longer wait for TP
        ("llama70b-l40s-tp-from-script", "mandatory", ["SW101"]),
        ("llama70b-l40s-tp-from-script", "advisory", REST),
        ("llama70b-l40s-tp-from-configmap", "advisory", ALL),  # TP4 holds the weights and 8,192 tokens
        ("llama8b-l40s-tp-placeholder", "advisory", ALL),
        # review38: privileged, the node's four L40S bound TP, and TP4 holds the weights: undecided, as mend17 leaves it
        ("llama70b-l40s-tp-privileged", "advisory", ALL),
        ("llama70b-l40s-tp-privileged", "mandatory", ["SW309"]),
        # review38: NVIDIA_VISIBLE_DEVICES=all on a one-L40S node: TP1 is the only TP, and its weights fail (mend13)
        ("llama70b-l40s-tp-visible-all", "mandatory", ["SW101"]),
        ("llama70b-l40s-tp-visible-all", "advisory", REST),
        ("llama70b-l40s-tp-visible-all", "mandatory", ["SW310"]),
        # TP1's weights, then TP2's KV cache with weights inside their band: SW101's, as at a TP written
        ("llama70b-h100-tp-placeholder-util", "mandatory", ["SW101"]),
        ("llama70b-h100-tp-placeholder-util", "advisory", REST),
    ]

