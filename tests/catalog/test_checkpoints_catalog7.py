"""Quantised and long-context checkpoints that public recipes name and the catalog lacked (issue 28).

GLM-4.5-FP8 and GLM-4.5-Air-FP8 are compressed-tensors FP8 with one scale per output channel: no block stays whole
on a rank, so every tensor-parallel size the heads allow loads (vLLM's own recipe runs the Air at TP8). A re-upload
known only by an ``-FP8`` name keeps the 128 x 128 block assumption, and its refusals stay advisory.
"""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity.layout import weight_load_refusals
from shardwise.rules.catalog import find_model


@pytest.mark.parametrize(
    ("model_id", "base", "params"),
    [
        ("zai-org/GLM-4.5-Air-FP8", "zai-org/GLM-4.5-Air", 106_852_251_264),
        ("zai-org/GLM-4.5-FP8", "zai-org/GLM-4.5", 352_797_829_024),
    ],
)
def test_glm45_fp8_is_channel_wise_compressed_tensors(model_id, base, params):
    m = find_model(model_id)
    assert (m.precision, m.quantization, m.base_model, m.params) == ("fp8", "compressed-tensors", base, params)
    group = m.hf_config["quantization_config"]["config_groups"]["group_0"]
    assert (group["weights"]["type"], group["weights"]["num_bits"], group["weights"]["strategy"]) == (
        "float", 8, "channel")
    assert "quantization_config_assumed" not in m.extra
    # heads 96 and KV heads 8: TP 2, 4, 8 and 16 all load; no block of the experts' 1,408 / 1,536 columns to keep
    assert {tp: weight_load_refusals(m, tp) for tp in (2, 4, 8, 16)} == {2: (), 4: (), 8: (), 16: ()}


def test_an_unknown_fp8_reupload_keeps_the_assumed_blocks():
    m = find_model("SomeOrg/GLM-4.5-Air-FP8")
    assert m.extra.get("quantization_config_assumed") is True
    refusals = weight_load_refusals(m, 8)
    assert [(r.sure, r.experts) for r in refusals] == [(False, True)]
    assert "176 columns of each expert's gate/up projection" in refusals[0].message


@pytest.mark.parametrize(("tp", "rc", "per_gpu"), [(4, 0, "25.20 GiB per GPU"), (8, 1, "12.62 GiB per GPU")])
def test_plan_loads_glm45_air_fp8_at_the_recipes_tp(capsys, tp, rc, per_gpu):
    # vllm-project/recipes GLM/GLM-4.5.md at 5009b047: "Start server with FP8 model on 4 GPUs" over
    # vllm serve zai-org/GLM-4.5-Air-FP8 --tensor-parallel-size 8. Both load (no SW203); at TP8 SW104 says two TP4
    # replicas fit the same GPUs, which is its own judgement and the exit status 1
    assert main(["plan", "--model", "zai-org/GLM-4.5-Air-FP8", "--gpu", "H100", "--tp", str(tp),
                 "--vllm-version", "0.10.0"]) == rc
    out, _ = capsys.readouterr()
    assert f"TP{tp} × PP1 = {tp} GPUs per engine" in out
    assert f"108.1 GB fp8 in total, {per_gpu}" in out
    assert "  starts                      yes" in out
    assert "SW203" not in out
