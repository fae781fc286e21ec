"""A NomicBERT embedder whose config.json is read is judged on its weights alone, and a given length on what vLLM
holds it to (issue 28, round catalog22).

``rules/capacity/encoder.py`` counts ``NomicBertModel`` from catalog22 (tests/capacity/test_encoder_nomic_weights_
catalog22.py: nomic-embed-text-v1.5's 136,731,648 checkpoint parameters, 136,779,264 allocated with the token types
padded), so a Deployment serving nomic-embed-text-v1.5 from a path in the repository is judged as catalog21 judges a
BERT: SW004 (advisory, undecided) with the weights. Before, SW004 said "its weights were not judged: NomicBertModel is
not an encoder whose weights are modelled", and SW102 judged its length by BERT's rule (the smallest length key,
n_positions 8,192: advisory), which is not vLLM's for it: 0.11.1 to 0.21.0 re-verify a given --max-model-len against
max_trained_positions (2,048), sentence_bert_config.json's max_seq_length dropped, so 32,768 is refused for sure;
0.22.0 on do not, and derive it as any encoder's (engine21). The manifest is the shape of a real embedding
Deployment (``vllm serve <path> --runner pooling``); the config.json is the one public code restates (its own file
was not found as text: data/catalog22/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from family_manifest import deployment, lint
from shardwise.rules.app.plan import PlanError, load_model

DATA = Path(__file__).parent / "data" / "catalog22"
#: nomic-embed-text-v1.5's config.json as public code restates it (data/catalog22/README.md)
NOMIC_V15 = json.loads((DATA / "nomic-embed-text-v1.5_config.json").read_text())

WHY = ("'./models/nomic-embed-text-v1.5' is an encoder-only model (BERT / RoBERTa / XLM-R / gte / nomic-bert / "
       "ModernBERT), which shardwise does not size yet: vLLM runs it with the pooling runner and builds its attention "
       "as EncoderOnlyAttention, whose get_kv_cache_spec returns None (vllm/attention/layers/encoder_only_attention.py,"
       " 0.11.1; model_executor/layers/attention/, 0.18.0 and 0.29.0): it keeps no KV cache, so no KV budget or KV "
       "capacity bounds it, and its length is sentence_bert_config.json's max_seq_length where the checkpoint has one "
       "(_get_and_verify_max_len's encoder_config), not max_position_embeddings; the capacity model has no shape "
       "without a KV cache yet, and sized as a decoder it would charge one")
PEAK = ("the pooling runner's profile peak (a dummy run over max_num_batched_tokens, then the pooler once per task) is "
        "not modelled, so whether it starts is not decided")


def _repo(tmp_path: Path, **changed: object) -> None:
    folder = tmp_path / "models" / "nomic-embed-text-v1.5"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({**NOMIC_V15, **changed}, indent=2))


def _sw(found):
    return sorted((f.code, f.level) for f in found if f.code.startswith(("SW0", "SW1", "SW2")))


def _msg(found, code):
    (f,) = [f for f in found if f.code == code]
    return f.message


def _within(*args, **kwargs) -> str:
    """The Deployment with --max-model-len 2048, inside the 2,048 tokens vLLM holds NomicBERT to up to 0.21."""
    return deployment(*args, **kwargs).replace('"32768"', '"2048"')


def test_nomic_embed_text_v1_5_on_an_l4_is_judged_on_its_weights(tmp_path: Path):
    # vLLM 0.20.0: 136,779,264 parameters, the float32 checkpoint in float16: 273,558,528 bytes = 0.25 GiB
    _repo(tmp_path)
    found = lint(tmp_path, _within("./models/nomic-embed-text-v1.5", 1, instance="g6.xlarge",
                                   extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory")]
    assert _msg(found, "SW004") == (
        f"shardwise does not know the model: {WHY}; judged on its weights alone: 0.25 GiB of weights in float16 on "
        "vLLM 0.20.0, no KV cache, against the 20.2 GiB gpu_memory_utilization 0.92 × 22.0 GiB (L4) allows; "
        f"{PEAK}; SW104, SW106, SW203 could not run on it")


def test_a_given_length_above_max_trained_positions_is_refused_up_to_0_21(tmp_path: Path):
    # NomicBertModelConfig (0.18.0 - 0.21.0) re-verifies a given --max-model-len against max_trained_positions
    # (2,048) with sentence_bert_config.json's max_seq_length dropped: 32,768 is refused whatever that file says.
    # Before catalog22: advisory "above the 8,192 tokens" (BERT's rule, the smallest length key, n_positions)
    _repo(tmp_path)
    found = lint(tmp_path, deployment("./models/nomic-embed-text-v1.5", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "mandatory")]
    assert _msg(found, "SW102") == (
        "'./models/nomic-embed-text-v1.5' is an encoder-only embedder: --max-model-len 32,768 is above the 2,048 "
        "tokens vLLM 0.20.0 derives (max_trained_positions, which NomicBertModelConfig holds a given --max-model-len "
        "to, whatever sentence_bert_config.json says), and vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; "
        "vLLM will refuse to start")


def test_from_0_22_its_length_is_any_encoders(tmp_path: Path):
    # engine21: 0.22.0 on (the 0.22.0 and 0.34.0 wheels' NomicBertModelConfig builds only the rotary's parameters) no
    # longer hold it to max_trained_positions: vLLM derives the length as any encoder's, the smallest length key
    # (n_positions 8,192: GPT2Config's attribute_map reads max_position_embeddings as n_positions), not capped by
    # tokenizer_config.json (its positions are not "absolute"), replaced by sentence_bert_config.json's max_seq_length.
    # Before engine21: no SW102 either way
    _repo(tmp_path)
    found = lint(tmp_path, deployment("./models/nomic-embed-text-v1.5", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling").replace("v0.20.0", "v0.29.0"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "advisory")]
    assert _msg(found, "SW102").startswith(
        "'./models/nomic-embed-text-v1.5' is an encoder-only embedder: --max-model-len 32,768 is above the 8,192 "
        "tokens vLLM 0.29.0 derives (config.json's length keys)")
    # with the checkpoint's sentence_bert_config.json beside it (nomic-embed-text-v1.5's says 8,192): sure
    folder = tmp_path / "models" / "nomic-embed-text-v1.5"
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 8192, "do_lower_case": false}')
    found = lint(tmp_path, deployment("./models/nomic-embed-text-v1.5", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling").replace("v0.20.0", "v0.29.0"))
    assert ("SW102", "mandatory") in _sw(found)
    assert _msg(found, "SW102") == (
        "'./models/nomic-embed-text-v1.5' is an encoder-only embedder: --max-model-len 32,768 is above the 8,192 "
        "tokens vLLM 0.29.0 derives (sentence_bert_config.json's max_seq_length), and vLLM refuses it unless "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; vLLM will refuse to start")


def test_from_0_22_a_max_position_embeddings_beside_n_positions_is_not_judged(tmp_path: Path):
    # the Hub file's later revision: max_position_embeddings 2,048 beside n_positions 8,192 (vllm-project/vllm#40130),
    # one attribute of GPT2Config's; which value the loaded config keeps is transformers' order of setting them
    _repo(tmp_path, max_position_embeddings=2048)
    found = lint(tmp_path, deployment("./models/nomic-embed-text-v1.5", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling").replace("v0.20.0", "v0.29.0"))
    assert _sw(found) == [("SW004", "advisory")]


def test_weights_above_the_whole_gpu_still_block(tmp_path: Path):
    # synthetic: v1.5's config.json widened to 8,192 x 64 layers with 32,768 inner (no public NomicBERT is this
    # large): 64 x (4 x 8,192^2 + 3 x 8,192 x 32,768 + 4 x 8,192) + (30,528 + 64) x 8,192 + 16,384 =
    # 68,972,199,936 parameters, 128.47 GiB in float16, more than an H100's 79.2 GiB
    _repo(tmp_path, n_embd=8192, n_inner=32768, n_layer=64, n_head=64)
    found = lint(tmp_path, deployment("./models/nomic-embed-text-v1.5", 1, extra=", --runner, pooling"))
    assert ("SW101", "mandatory") in _sw(found)
    assert "with 128.47 GiB of weights in float16 on vLLM 0.20.0" in _msg(found, "SW101")


def test_plan_says_its_weights(tmp_path: Path):
    _repo(tmp_path)
    config = tmp_path / "models" / "nomic-embed-text-v1.5" / "config.json"
    with pytest.raises(PlanError) as e:
        load_model(str(config), None, "0.29.0")
    # before: "its weights were not judged: NomicBertModel is not an encoder whose weights are modelled"
    assert ("; on one GPU its weights alone are 0.25 GiB in float16 under --dtype auto on vLLM 0.29.0, with no KV "
            "cache; ") in str(e.value)


@pytest.mark.parametrize(("release", "changed", "length"), [
    ((0, 21, 0), {}, None),  # NomicBertModelConfig's own rule (nomic_given_limit)
    ((0, 22, 0), {}, 8192),
    ((0, 34, 0), {"max_position_embeddings": 8192}, 8192),  # the same attribute, the same value
    ((0, 34, 0), {"max_position_embeddings": 2048}, None),  # which one transformers keeps is not read
    ((0, 34, 0), {"n_positions": None, "max_position_embeddings": 2048}, None),  # GPT2Config's default 1,024 may stay
    ((0, 34, 0), {"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, None),  # a factor multiplies it
])
def test_nomic_length_by_release(release: tuple[int, int, int], changed: dict, length: int | None):
    from shardwise.rules.capacity import encoder

    cfg = {k: v for k, v in {**NOMIC_V15, **changed}.items() if v is not None}
    if length is None:
        with pytest.raises(encoder.EncoderShapeError):
            encoder.max_len(cfg, None, {"model_max_length": 512}, release)
        return
    # tokenizer_config.json's model_max_length does not cap it: the positions are not "absolute"
    assert encoder.max_len(cfg, None, {"model_max_length": 512}, release) == length
    assert encoder.max_len(cfg, {"max_seq_length": 2048, "do_lower_case": False}, None, release) == 2048
