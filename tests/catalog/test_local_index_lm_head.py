"""A local checkpoint whose safetensors index stores an ``lm_head.weight`` under a tied config (review22, tokens38).

vLLM 0.29 reads the checkpoint's tensor names: where the config ties the word embeddings and a name ends in
``lm_head.weight`` (``checkpoint_has_lm_head``, ``transformers_utils/config.py``), ``ModelConfig.maybe_untie_word_
embeddings`` builds the head untied and loads it (``config/model.py``, the 0.29.0 wheel). Earlier releases tie the head
and skip the tensor. The index's ``total_size`` counts every stored tensor, so it held that head at every release; the
shape now counts the tied model and marks the stored head (``ModelShape.distinct_lm_head``), which the sizing adds
back from 0.29 only (``sizing.as_loaded``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import load_local_model

#: Qwen2.5-0.5B-Instruct's config.json keys (tied embeddings, 151,936 x 896): 494,032,768 parameters with one table.
QWEN25_05B: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
    "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
    "max_position_embeddings": 32768, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}
TABLE = 151_936 * 896  # 136,134,656


def _model(tmp_path: Path, names: list[str], total_params: int, config: dict[str, Any] = QWEN25_05B,
           name: str = "m") -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(config))
    index = {"metadata": {"total_size": total_params * 2}, "weight_map": {n: "model.safetensors" for n in names}}
    (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return directory


BODY = ["model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight", "model.norm.weight"]


def test_an_index_that_stores_the_head_of_a_tied_model_counts_the_tied_model_and_marks_the_head(tmp_path):
    stored = load_local_model(_model(tmp_path, [*BODY, "lm_head.weight"], 494_032_768 + TABLE, name="stored"))
    assert (stored.params, stored.tie_word_embeddings, stored.distinct_lm_head) == (494_032_768, True, True)
    assert stored.extra["params_source"] == "safetensors index: total_size / 2 bytes"
    # an index without the head: its total is the tied model's, as before
    plain = load_local_model(_model(tmp_path, BODY, 494_032_768, name="plain"))
    assert (plain.params, plain.distinct_lm_head) == (494_032_768, False)


def test_the_stored_head_is_loaded_from_0_29_only(tmp_path):
    stored = load_local_model(_model(tmp_path, [*BODY, "lm_head.weight"], 494_032_768 + TABLE, name="stored"))
    plain = load_local_model(_model(tmp_path, BODY, 494_032_768, name="plain"))
    device = sizing.Device("L4", 22.03, "nvidia", "ada", 1)
    settings = sizing.EngineSettings(max_model_len=4096)

    def weights(model, release):
        return sizing.size_deployment(model, device, settings, release).weights_gib_per_gpu

    # 0.28.0 ties the head and skips the tensor: the tied model's weights (before, the index's total held the head)
    assert weights(stored, "0.28.0") == weights(plain, "0.28.0")
    # 0.29.0 loads it untied: one 16-bit 151,936 x 896 table more, 0.254 GiB
    assert round(weights(stored, "0.29.0") - weights(plain, "0.29.0"), 4) == round(TABLE * 2 / 2**30, 4) == 0.2536


def test_the_head_is_read_only_where_the_config_ties_and_the_total_holds_both_tables(tmp_path):
    untied = {**QWEN25_05B, "tie_word_embeddings": False}
    own = load_local_model(_model(tmp_path, [*BODY, "lm_head.weight"], 494_032_768 + TABLE, untied, name="untied"))
    assert (own.params, own.distinct_lm_head) == (494_032_768 + TABLE, False)  # an untied model counts its head
    # a total too small to hold two tables is not read as one (a hostile or truncated index): as the index says
    small = load_local_model(_model(tmp_path, [*BODY, "lm_head.weight"], 2 * TABLE, name="small"))
    assert (small.params, small.distinct_lm_head) == (2 * TABLE, False)
    # a name that only contains the words is not the head's tensor (vLLM's test is endswith)
    odd = load_local_model(_model(tmp_path, [*BODY, "lm_head.weight_scale"], 494_032_768, name="odd"))
    assert (odd.params, odd.distinct_lm_head) == (494_032_768, False)
