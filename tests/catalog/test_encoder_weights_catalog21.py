"""An encoder-only embedder whose config.json is read is judged on its weights alone (issue 28, round catalog21).

vLLM builds an encoder's attention as ``EncoderOnlyAttention``, whose ``get_kv_cache_spec`` returns None, and
``EngineCore._initialize_kv_caches`` profiles the memory only where some layer has a KV cache spec ("Attention free
models don't need memory for kv cache", ``vllm/v1/engine/core.py`` in the 0.18.0, 0.20.0 and 0.34.0 wheels): no KV
budget, no KV capacity, and the ``gpu_memory_utilization`` budget is never compared with the weights. So the group is
judged on the weights ``rules/capacity/encoder.py`` counts (catalog20): SW101 blocks weights above the GPU's whole
memory (loading them runs out of memory), is advisory above the budget only, and says nothing below it; SW103 / SW104 /
SW106 (KV terms) never fire; SW004 stays (advisory, undecided) and says the weights and that the pooling runner's
profile peak is not modelled. The manifests are the shape of a real embedding Deployment: ``vllm serve <path>
--runner pooling`` with the checkpoint's config.json in the repository (the bge-m3 fine-tune of vllm#25865,
tests/catalog/data/catalog19).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from family_manifest import deployment, lint

DATA = Path(__file__).parent.parent / "catalog" / "data" / "catalog19"
WHY = ("'./models/bge-m3' is an encoder-only model (BERT / RoBERTa / XLM-R / gte / nomic-bert / ModernBERT), which "
       "shardwise does not size yet: vLLM runs it with the pooling runner and builds its attention as "
       "EncoderOnlyAttention, whose get_kv_cache_spec returns None (vllm/attention/layers/encoder_only_attention.py, "
       "0.11.1; model_executor/layers/attention/, 0.18.0 and 0.29.0): it keeps no KV cache, so no KV budget or KV "
       "capacity bounds it, and its length is sentence_bert_config.json's max_seq_length where the checkpoint has one "
       "(_get_and_verify_max_len's encoder_config), not max_position_embeddings; the capacity model has no shape "
       "without a KV cache yet, and sized as a decoder it would charge one")
PEAK = ("the pooling runner's profile peak (a dummy run over max_num_batched_tokens, then the pooler once per task) is "
        "not modelled, so whether it starts is not decided")
HELD = "SW104, SW106, SW203 could not run on it"


def _repo(tmp_path: Path, name: str = "bge-m3", **wider: object) -> None:
    folder = tmp_path / "models" / name
    folder.mkdir(parents=True)
    if not wider:
        shutil.copy(DATA / "bge-m3-korean_config.json", folder / "config.json")
        return
    cfg = json.loads((DATA / "bge-m3-korean_config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, **wider}, indent=2))


def _weights_only(*args, **kwargs) -> str:
    """The Deployment with --max-model-len 8192, inside the bge-m3 shape's 8,194 (SW102 is tested below)."""
    return deployment(*args, **kwargs).replace('"32768"', '"8192"')


def _sw(found):
    return sorted((f.code, f.level) for f in found if f.code.startswith(("SW0", "SW1", "SW2")))


def _msg(found, code):
    (f,) = [f for f in found if f.code == code]
    return f.message


def test_bge_m3_on_an_h100_is_judged_on_its_weights_only(tmp_path: Path):
    # vLLM 0.20.0 (the image): RobertaEmbedding's positions and token types unpadded, 566,752,256 parameters,
    # float32 checkpoint downcast to float16: 1,133,504,512 bytes = 1.06 GiB; default utilisation 0.92
    _repo(tmp_path)
    found = lint(tmp_path, _weights_only("./models/bge-m3", 1, extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory")]
    assert _msg(found, "SW004") == (
        f"shardwise does not know the model: {WHY}; judged on its weights alone: 1.06 GiB of weights in float16 on "
        "vLLM 0.20.0, no KV cache, against the 72.9 GiB gpu_memory_utilization 0.92 × 79.2 GiB (H100-SXM-80GB) "
        f"allows; {PEAK}; {HELD}")


def test_weights_above_the_budget_but_inside_the_gpu_are_advisory(tmp_path: Path):
    # 0.04 × 22.0 GiB = 0.88 GiB < 1.06 GiB: vLLM compares no budget with an encoder's weights, so it loads them
    _repo(tmp_path)
    found = lint(tmp_path, _weights_only("./models/bge-m3", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling, --gpu-memory-utilization, '0.04'"))
    assert _sw(found) == [("SW004", "advisory"), ("SW101", "advisory"), ("SW105", "advisory")]
    assert _msg(found, "SW101") == (
        "'./models/bge-m3' is an encoder-only embedder with 1.06 GiB of weights in float16 on vLLM 0.20.0, no KV "
        "cache, against the 0.9 GiB gpu_memory_utilization 0.04 × 22.0 GiB (L4) allows: vLLM does not hold a model "
        "without a KV cache to that budget (it profiles the memory only for a KV cache), so it loads, but takes more "
        "of the GPU than gpu_memory_utilization gives it")


def test_weights_above_the_whole_gpu_block(tmp_path: Path):
    # synthetic: bge-m3's config.json widened to 4,096 x 48 layers (no public XLMRobertaModel checkpoint is this
    # large); at --dtype float32 its 10,722,451,456 parameters take 39.95 GiB, more than an L4's 22.0 GiB
    _repo(tmp_path, "wide", hidden_size=4096, intermediate_size=16384, num_hidden_layers=48, num_attention_heads=32)
    found = lint(tmp_path, _weights_only("./models/wide", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling, --dtype, float32"))
    assert _sw(found) == [("SW004", "advisory"), ("SW101", "mandatory")]
    assert _msg(found, "SW101") == (
        "'./models/wide' is an encoder-only embedder with 39.95 GiB of weights in float32 on vLLM 0.20.0, no KV "
        "cache, against the 20.2 GiB gpu_memory_utilization 0.92 × 22.0 GiB (L4) allows: the weights alone exceed "
        "the GPU's memory; vLLM will fail at start-up")
    # in float16 (--dtype auto downcasts the float32 checkpoint) 19.98 GiB: inside the 20.2 GiB budget, no SW101
    found = lint(tmp_path, _weights_only("./models/wide", 1, instance="g6.xlarge", extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory")]
    assert "judged on its weights alone: 19.98 GiB of weights in float16" in _msg(found, "SW004")


def test_a_sharded_encoder_says_its_weights_were_not_judged(tmp_path: Path):
    _repo(tmp_path)
    found = lint(tmp_path, _weights_only("./models/bge-m3", 2, instance="g6.12xlarge", extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory")]
    assert _msg(found, "SW004") == (
        f"shardwise does not know the model: {WHY}; its weights were not judged: an encoder sharded over 2 GPUs is "
        f"not modelled (TP 2, PP 1); {PEAK}; SW104, SW106, SW202, SW203 could not run on it")


def test_by_annotation_with_a_release_whose_roberta_embedding_is_padded(tmp_path: Path):
    # vLLM 0.29.0: padded positions and token types, 566,880,256 parameters (catalog20), 1.06 GiB in float16
    _repo(tmp_path)
    text = _weights_only("BAAI/bge-m3", 1, instance="g6.xlarge", extra=", --runner, pooling").replace(
        "v0.20.0", "v0.29.0").replace(
        "  namespace: llm\n", "  namespace: llm\n  annotations:\n    shardwise.dev/base-model: models/bge-m3/config.json\n")
    found = lint(tmp_path, text)
    assert _sw(found) == [("SW004", "advisory")]
    assert ("; judged on its weights alone: 1.06 GiB of weights in float16 on vLLM 0.29.0, no KV cache, against the "
            "20.2 GiB gpu_memory_utilization 0.92 × 22.0 GiB (L4) allows; ") in _msg(found, "SW004")


# The length (round catalog21, second step): vLLM's _get_and_verify_max_len refuses a --max-model-len above the length
# it derives unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (config/model.py, 0.20.0); sentence_bert_config.json's
# max_seq_length replaces that length up or down, so where it is absent beside the config.json the refusal is not sure.

def test_max_model_len_above_the_config_without_sentence_bert_config_is_advisory(tmp_path: Path):
    _repo(tmp_path)
    found = lint(tmp_path, deployment("./models/bge-m3", 1, extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "advisory")]
    assert _msg(found, "SW102") == (
        "'./models/bge-m3' is an encoder-only embedder: --max-model-len 32,768 is above the 8,194 tokens vLLM 0.20.0 "
        "derives (config.json's length keys), and vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; not sure: "
        "there is no sentence_bert_config.json beside the config.json, and the checkpoint vLLM loads may have one, "
        "whose max_seq_length replaces the length")


def test_max_model_len_above_sentence_bert_config_blocks(tmp_path: Path):
    # BAAI/bge-m3's sentence_bert_config.json: {"max_seq_length": 8192, "do_lower_case": false}
    _repo(tmp_path)
    (tmp_path / "models" / "bge-m3" / "sentence_bert_config.json").write_text(
        '{\n  "max_seq_length": 8192,\n  "do_lower_case": false\n}\n')
    found = lint(tmp_path, deployment("./models/bge-m3", 1, extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "mandatory")]
    assert _msg(found, "SW102") == (
        "'./models/bge-m3' is an encoder-only embedder: --max-model-len 32,768 is above the 8,192 tokens vLLM 0.20.0 "
        "derives (sentence_bert_config.json's max_seq_length), and vLLM refuses it unless "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; vLLM will refuse to start")
    # at the length, nothing
    ok = deployment("./models/bge-m3", 1, extra=", --runner, pooling").replace('"32768"', '"8192"')
    assert _sw(lint(tmp_path, ok)) == [("SW004", "advisory")]


def test_an_unreadable_sentence_bert_config_is_advisory(tmp_path: Path):
    _repo(tmp_path)
    (tmp_path / "models" / "bge-m3" / "sentence_bert_config.json").write_text('{"max_seq_length": 8192,')
    found = lint(tmp_path, deployment("./models/bge-m3", 1, extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "advisory")]
    assert _msg(found, "SW102").endswith(
        "(config.json's length keys), and vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; not sure: "
        "sentence_bert_config.json beside the config.json was not read: it cannot be read (JSONDecodeError)")


def test_a_tokenizer_cap_only_lowers_the_length(tmp_path: Path):
    # tokenizer_config.json's model_max_length 8,192 caps the 8,194 positions (absolute positions); a
    # sentence_bert_config.json without do_lower_case does not replace it, and it was read: sure
    _repo(tmp_path)
    folder = tmp_path / "models" / "bge-m3"
    (folder / "tokenizer_config.json").write_text('{"model_max_length": 8192, "tokenizer_class": "XLMRobertaTokenizer"}')
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 512}')
    found = lint(tmp_path, deployment("./models/bge-m3", 1, extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW102", "mandatory")]
    assert "above the 8,192 tokens vLLM 0.20.0 derives (config.json's length keys, capped by tokenizer_config.json's " \
           "model_max_length)" in _msg(found, "SW102")


# review20: SW101 blocked an encoder whose weights were counted at 16 bits where vLLM loads less of them on the GPU.
# A config.json with ``quantization_config`` is a quantised checkpoint: vLLM builds the layers with that method
# (ModelConfig reads the checkpoint's quantization_config whatever --quantization says), so its weights are not the
# 16-bit count; and ``--cpu-offload-gb N`` has vLLM move up to N GiB of each GPU's weights to CPU memory
# (vllm/model_executor/models/utils.py ``maybe_offload_to_cpu``, set from cache_config.cpu_offload_gb). Neither is
# modelled for an encoder, so neither is judged (SW004 says why); the 56-layer widening is 22.98 GiB in float16, more
# than an L4's 22.0 GiB, which blocked both before.

def test_a_quantised_encoder_checkpoint_is_not_judged_at_16_bits(tmp_path: Path):
    _repo(tmp_path, "wide", hidden_size=4096, intermediate_size=16384, num_hidden_layers=56, num_attention_heads=32,
          quantization_config={"quant_method": "compressed-tensors", "format": "pack-quantized"})
    found = lint(tmp_path, _weights_only("./models/wide", 1, instance="g6.xlarge", extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory")]
    assert ("; its weights were not judged: a quantised encoder's weights are not modelled (config.json's "
            "quantization_config, compressed-tensors); ") in _msg(found, "SW004")


def test_an_encoder_with_cpu_offload_is_not_judged(tmp_path: Path):
    _repo(tmp_path, "wide", hidden_size=4096, intermediate_size=16384, num_hidden_layers=56, num_attention_heads=32)
    found = lint(tmp_path, _weights_only("./models/wide", 1, instance="g6.xlarge",
                                      extra=", --runner, pooling, --cpu-offload-gb, '16'"))
    assert _sw(found) == [("SW004", "advisory")]
    assert ("; its weights were not judged: --cpu-offload-gb 16 moves up to 16 GiB of the weights to CPU memory, "
            "which is not modelled; ") in _msg(found, "SW004")
    # without the flag the same checkpoint blocks (22.98 GiB of float16 weights on 22.0 GiB)
    found = lint(tmp_path, _weights_only("./models/wide", 1, instance="g6.xlarge", extra=", --runner, pooling"))
    assert _sw(found) == [("SW004", "advisory"), ("SW101", "mandatory")]
