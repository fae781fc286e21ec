"""engine22: a composite config.json (one that writes a ``text_config``) scales its length by the text config's own RoPE
keys only. vLLM derives the length from ``hf_text_config`` (``get_hf_text_config``; ``_get_and_verify_max_len``), and
neither transformers 4.57 (``Qwen2_5_VLConfig.__init__`` sets the top-level keys on the outer config before
``text_config`` exists, and the text config answers its own) nor 5.5.3 (``Qwen2_5_VLConfig.__post_init__`` uses the
top-level RoPE keys only where ``text_config`` is absent) builds it from a top-level ``rope_scaling``. shardwise's
``text_config()`` merge let a top-level YaRN fill a text config without one: 32,768 × 4 where vLLM takes 128,000."""

from __future__ import annotations

import json

from shardwise.rules.capacity.weights import derived_max_model_len
from shardwise.rules.catalog.hfconfig import hf_overrides_of, load_local_model, with_hf_overrides
from shardwise.rules.vllm.versions import behaviour

#: Qwen's long-context recipe for Qwen2.5-VL, written at the top of config.json
YARN4 = {"type": "yarn", "mrope_section": [16, 24, 24], "factor": 4, "original_max_position_embeddings": 32768}
TEXT = {"model_type": "qwen2_5_vl_text", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
        "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 128000,
        "rope_theta": 1000000.0}


def _model(tmp_path, config: dict):
    folder = tmp_path / "m"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    return load_local_model(str(folder / "config.json"))


def _limits(model) -> list[int]:
    out = []
    for release in ("0.11.2", "0.12.0", "0.29.0", "0.34.0"):
        b = behaviour(release)
        out.append(derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters,
                                         b.rope_scaling_override != "ignored"))
    return out


def test_a_top_level_rope_beside_a_text_config_scales_nothing(tmp_path):
    model = _model(tmp_path, {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
                              "rope_scaling": YARN4, "text_config": TEXT})
    assert model.hf_config["rope_scaling"] == YARN4  # still merged: vLLM's uses_mrope reads the outer config too
    assert model.extra["text_config_rope"] == {}
    assert _limits(model) == [128_000, 128_000, 128_000, 128_000]


def test_the_same_rope_in_the_text_config_or_a_flat_config_scales_it(tmp_path):
    nested = _model(tmp_path / "a", {"architectures": ["Qwen2_5_VLForConditionalGeneration"],
                                     "model_type": "qwen2_5_vl", "text_config": {**TEXT, "rope_scaling": YARN4}})
    flat = _model(tmp_path / "b", {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
                                   **TEXT, "rope_scaling": YARN4})
    # YaRN: original_max_position_embeddings × factor before 0.30 (0.11.2 reads rope_scaling too), as written after
    assert _limits(nested) == [131_072, 131_072, 131_072, 128_000]
    assert _limits(flat) == [131_072, 131_072, 131_072, 128_000]
    assert "text_config_rope" not in flat.extra


def test_an_override_in_text_config_reaches_the_text_config(tmp_path):
    model = _model(tmp_path, {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
                              "text_config": TEXT})
    over = with_hf_overrides(model, hf_overrides_of({"hf_overrides": json.dumps({"text_config": {"rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}})}))
    assert over.extra["text_config_rope"]["rope_scaling"]["factor"] == 4.0
    assert _limits(over) == [131_072, 128_000, 131_072, 128_000]


def _composite(tmp_path, model_type: str, arch: str):
    return _model(tmp_path, {"architectures": [arch], "model_type": model_type, "text_config": TEXT})


def _all_limits(model, release: str) -> tuple[int, ...]:
    from shardwise.rules.capacity.weights import derived_limits
    return derived_limits(model, (behaviour(release),))


def test_a_top_level_override_reaches_the_text_config_only_where_transformers_passes_it_on(tmp_path):
    """engine22: --hf-overrides at the top level of a composite config. transformers 4.57's Qwen2VLConfig and
    Qwen2_5_VLConfig set an attribute their text config holds on it (__setattr__); every other class, and
    transformers 5 (vLLM 0.24 on), keep it on the outer config, which the length does not read."""
    over = {"hf_overrides": json.dumps({"max_position_embeddings": 65536})}
    qwen = with_hf_overrides(_composite(tmp_path / "q", "qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration"),
                             hf_overrides_of(over))
    llava = with_hf_overrides(_composite(tmp_path / "l", "llava", "LlavaForConditionalGeneration"),
                              hf_overrides_of(over))
    assert qwen.max_position_embeddings == 128_000 and qwen.extra["hf_override_top"]["forwards"] is True
    # 0.11.2: transformers not known (both); 0.12 - 0.19 pin 4.56+ (forwarded); 0.20 - 0.23 take 4 or 5; 0.24 on: 5
    assert [_all_limits(qwen, r) for r in ("0.11.2", "0.12.0", "0.19.0", "0.20.0", "0.23.0", "0.24.0", "0.34.0")] == [
        (65_536, 128_000), (65_536,), (65_536,), (65_536, 128_000), (65_536, 128_000), (128_000,), (128_000,)]
    assert [_all_limits(llava, r) for r in ("0.11.2", "0.12.0", "0.20.0", "0.34.0")] == [(128_000,)] * 4
    # under text_config it reaches on every release
    nested = with_hf_overrides(_composite(tmp_path / "n", "llava", "LlavaForConditionalGeneration"),
                               hf_overrides_of({"hf_overrides": json.dumps(
                                   {"text_config": {"max_position_embeddings": 65536}})}))
    assert "hf_override_top" not in nested.extra
    assert [_all_limits(nested, r) for r in ("0.11.2", "0.20.0", "0.34.0")] == [(65_536,)] * 3


def test_a_top_level_rope_override_on_a_qwen_vl_follows_the_release(tmp_path):
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    model = with_hf_overrides(_composite(tmp_path, "qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration"),
                              hf_overrides_of({"hf_overrides": json.dumps({"rope_scaling": yarn})}))
    # 0.12 - 0.19: forwarded, but set after patch_rope_parameters copied the text config's (none): not read;
    # 0.20 - 0.23: under transformers 4 the same, under 5 kept on the outer config; 0.24 on: the outer config's
    assert [_all_limits(model, r) for r in ("0.11.2", "0.12.0", "0.20.0", "0.29.0")] == [
        (128_000, 131_072), (128_000,), (128_000,), (128_000,)]


VISION = {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "out_hidden_size": 3584,
          "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "window_size": 112,
          "fullatt_block_indexes": [7, 15, 23, 31], "in_chans": 3, "model_type": "qwen2_5_vl"}


def test_lint_refuses_the_length_a_top_level_yarn_does_not_give(tmp_path):
    """Qwen's YaRN recipe written at the top of a config.json that nests its text config: vLLM 0.29.0 keeps the
    text config's 128,000 tokens and refuses --max-model-len 131072 (before: passed as 32,768 × 4)."""
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "catalog"))
    from family_manifest import deployment, lint

    def run(config: dict) -> list[tuple[str, str]]:
        folder = tmp_path / "models" / "vl"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(json.dumps(config))
        text = deployment("./models/vl", 1).replace("v0.20.0", "v0.29.0").replace('"32768"', '"131072"')
        return sorted({(f.code, f.level) for f in lint(tmp_path, text) if f.code == "SW102"})

    composite = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
                 "torch_dtype": "bfloat16", "vision_config": VISION, "text_config": TEXT}
    assert run({**composite, "rope_scaling": YARN4}) == [("SW102", "mandatory")]
    assert run({**composite, "text_config": {**TEXT, "rope_scaling": YARN4}}) == []


def test_lint_takes_a_top_level_override_by_release(tmp_path):
    """--hf-overrides '{"max_position_embeddings": 262144}' at the top level of a Qwen2.5-VL config that nests its text
    config, at --max-model-len 200000: taken on 0.16.0 (transformers 4.56+ passes it on), refused on 0.29.0
    (transformers 5 keeps it on the outer config: 128,000), undecided on 0.20.0 (either)."""
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "catalog"))
    from family_manifest import deployment, lint

    folder = tmp_path / "models" / "vl"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "torch_dtype": "bfloat16",
        "vision_config": VISION, "text_config": TEXT}))
    found = {}
    for image in ("v0.16.0", "v0.20.0", "v0.29.0"):
        text = deployment("./models/vl", 1, extra=", --hf-overrides, '{\"max_position_embeddings\": 262144}'")
        text = text.replace("v0.20.0", image).replace('"32768"', '"200000"')
        found[image] = [(f.level, f.undecided, f.message) for f in lint(tmp_path, text) if f.code == "SW102"]
    assert found["v0.16.0"] == []
    ((level, undecided, message),) = found["v0.20.0"]
    assert (level, undecided) == ("advisory", True)
    assert ("--hf-overrides sets max_position_embeddings at the top level, which transformers 4's Qwen2-VL / "
            "Qwen2.5-VL config passes on to the text config and transformers 5 does not (vLLM 0.24 on runs 5), so the "
            "limit depends on the transformers the image runs: 128,000 or 262,144 tokens; write the override under "
            "text_config") in message
    ((level, undecided, message),) = found["v0.29.0"]
    assert (level, undecided) == ("mandatory", False)
    assert "max_model_len 200,000 is above the 128,000 tokens vl allows" in message
