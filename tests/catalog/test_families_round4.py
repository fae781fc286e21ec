"""Families served in 2026 added from published configurations (round 4), and the facts vLLM's model files give
about them: Gemma 3n (per-layer embeddings, AltUp, LAuReL, KV-shared layers; no pipeline parallelism), ...

Each case rebuilds the config keys the record was taken from and checks the catalog's parameter count against what
:func:`derive_params` makes of them, then the KV layout vLLM builds and what a layout of it does at start-up.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.support import NO_PIPELINE_PARALLEL, pp_refusal


def _gemma3n_types(n: int) -> list[str]:
    return ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]


# transformers' Gemma3nTextConfig defaults at 018548097621d331be9d60ab6cafdd71cfa67a43 ("gemma3n_text-E4B style"),
# intermediate_size given per layer as the published config.json files give it
GEMMA3N_E4B: dict[str, Any] = {
    "architectures": ["Gemma3nForConditionalGeneration"], "model_type": "gemma3n",
    "text_config": {
        "model_type": "gemma3n_text", "vocab_size": 262_400, "vocab_size_per_layer_input": 262_144,
        "hidden_size": 2048, "hidden_size_per_layer_input": 256, "intermediate_size": [16_384] * 35,
        "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
        "max_position_embeddings": 32_768, "sliding_window": 512, "layer_types": _gemma3n_types(35),
        "num_kv_shared_layers": 15, "altup_num_inputs": 4, "laurel_rank": 64, "tie_word_embeddings": True,
    },
}
# the E2B nested in E4B: 30 layers of FFN 8192, the last 10 KV-shared
GEMMA3N_E2B: dict[str, Any] = {
    **GEMMA3N_E4B,
    "text_config": {**GEMMA3N_E4B["text_config"], "num_hidden_layers": 30, "intermediate_size": [8192] * 30,
                    "layer_types": _gemma3n_types(30), "num_kv_shared_layers": 10},
}


def test_gemma3n_decoder_params():
    # embeddings 262400 x 2048 (tied) + per-layer table 262144 x (35 x 256) + its projection 2048 x 8960 and norm
    # 256 + AltUp's 3 projections and 3 unembeddings of 2048 x 2048 + the final norm; per layer: attention
    # 10,485,760 + q/k norms 512, MLP 3 x 2048 x 16384, 4 norms, AltUp 16 + 64 + 8192 + 2 x 2048, LAuReL 2 x 2048 x
    # 64 + 2048, per-layer input gate and projection 2 x 2048 x 256 + 2048
    layer = (10_485_760 + 512) + 3 * 2048 * 16_384 + 4 * 2048 + (16 + 64 + 8192 + 4096) + (262_144 + 2048) \
        + (1_048_576 + 2048)
    top = 262_400 * 2048 + 262_144 * 35 * 256 + 2048 * 35 * 256 + 256 + 6 * 2048 * 2048 + 2048
    assert derive_params(GEMMA3N_E4B) == top + 35 * layer == 6_866_696_688  # LM Studio's "6.9B" text model
    # E2B: 4.46B, as a public ExecuTorch export of its text decoder states
    assert derive_params(GEMMA3N_E2B) == 4_456_156_768
    e4b, e2b = find_model("google/gemma-3n-E4B-it"), find_model("google/gemma-3n-E2B-it")
    assert (e4b.extra["derived_params"], e2b.extra["derived_params"]) == (6_866_696_688, 4_456_156_768)
    # the records are the Hub's safetensors totals; the encoders are the rest (the same towers in both)
    assert (e4b.params, e4b.vision_params) == (7_850_000_000, 983_303_312)
    assert (e2b.params, e2b.vision_params) == (5_440_000_000, 983_843_232)
    taught = shape_from_config(GEMMA3N_E4B, model_id="gemma3n", source="config.json")
    assert (taught.intermediate_size, taught.num_hidden_layers, taught.max_position_embeddings) == (16_384, 35, 32_768)
    assert find_model("google/gemma-3n-E4B") is e4b


def test_gemma3n_kv_layout():
    # 20 of E4B's 35 layers cache (4 full, 16 sliding of 512); the last 15 read layers 18 (sliding) and 19 (full)
    e4b = kv_layout.layout(find_model("google/gemma-3n-E4B-it"), 1, 1, 2)
    assert [(t.kind, t.layers, t.bytes_per_token, t.span) for t in e4b.types] == [
        ("full", 4, 2 * 2 * 256 * 2, None), ("sliding", 16, 2048, 512)]
    e2b = kv_layout.layout(find_model("google/gemma-3n-E2B-it"), 1, 1, 2)
    assert [(t.kind, t.layers) for t in e2b.types] == [("full", 4), ("sliding", 16)]


def test_no_pipeline_parallelism_is_a_certain_refusal():
    e4b = find_model("google/gemma-3n-E4B-it")
    reason = pp_refusal(e4b, 2)
    assert reason == ("vLLM's Gemma3nForConditionalGeneration (vllm/model_executor/models/gemma3n_mm.py) does not "
                      "implement SupportsPP, so pipeline_parallel_size 2 is refused at start-up (vLLM: Pipeline "
                      "parallelism is not supported for this model); use tensor parallelism or replicas")
    s = sizing.size_replica(e4b, 22.0, tp=1, pp=2, max_model_len=8192, vllm_version="0.20.0")
    assert (s.starts, s.certain, s.verdict, s.refusal) == (False, True, "refuses", reason)
    one = sizing.size_replica(e4b, 22.0, tp=1, pp=1, max_model_len=8192, vllm_version="0.20.0")
    assert one.starts and one.refusal == "" and pp_refusal(e4b, 1) == ""
    # TP is fine: 8 heads, 2 KV heads replicated at TP4
    assert sizing.size_replica(e4b, 22.0, tp=4, max_model_len=8192, vllm_version="0.20.0").starts


@pytest.mark.parametrize("arch", sorted(NO_PIPELINE_PARALLEL))
def test_every_listed_architecture_refuses_pp(arch):
    # the fact is the architecture's, not the model's: any config naming it is refused at PP > 1
    model = find_model("microsoft/Phi-4-mini-instruct")
    named = dataclasses.replace(model, hf_config={**model.hf_config, "architectures": [arch]})
    assert pp_refusal(named, 2).startswith(f"vLLM's {arch} ({NO_PIPELINE_PARALLEL[arch]}) does not implement")
    assert pp_refusal(model, 2) == ""  # Phi3ForCausalLM implements SupportsPP


def test_plan_never_proposes_pipeline_stages_for_gemma3n(capsys):
    # on PCIe-only L4 nodes the search would otherwise go to PP2...PP32; only TP1 is left
    assert main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "L4"]) in (0, 1)
    out, err = capsys.readouterr()
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert [(r[0], r[1]) for r in rows] == [("1", "1")] and "Traceback" not in err
    assert main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "H100"]) == 0
    out, _ = capsys.readouterr()
    assert "recommended: TP1;" in out
    # asked for, PP2 is a certain refusal with vLLM's words
    main(["plan", "--model", "google/gemma-3n-E4B-it", "--gpu", "L4", "--pp", "2"])
    out, _ = capsys.readouterr()
    assert "does not implement SupportsPP, so pipeline_parallel_size 2 is refused at start-up" in out
