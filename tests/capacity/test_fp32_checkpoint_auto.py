"""A float32 checkpoint at ``--dtype auto`` (vLLM's default) is served at 16 bits: vLLM downcasts it (to 0.10.0
``_get_and_verify_dtype``: "we use float16 for float32 models"; after it ``_resolve_auto_dtype``: "Downcast for float32
models" to the platform's preferred dtype). Only ``--dtype float32`` keeps 4 bytes a value (review38: a 7B fine-tune
saved in float32 was sized at 25.1 GiB on one L4 and SW101 blocked; vLLM loads 12.6 GiB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shardwise.rules.capacity.weights import activation_dtype_bytes, served_at_auto, weight_precision, weights_bytes
from shardwise.rules.catalog.hfconfig import shape_from_config

#: A Llama-2-7B-shaped fine-tune as a trainer saves it in float32 (the shape of meta-llama/Llama-2-7b-hf's config.json,
#: torch_dtype float32).
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
          "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
          "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
          "torch_dtype": "float32"}

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ft, namespace: serving}}
spec:
  selector: {{matchLabels: {{app: ft}}}}
  template:
    metadata: {{labels: {{app: ft}}}}
    spec:
      nodeSelector: {{node.kubernetes.io/instance-type: g6.xlarge}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [acme/llama2-7b-ft, --max-model-len, "4096"{extra}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def test_a_float32_checkpoint_is_served_at_16_bits_unless_dtype_says_float32() -> None:
    model = shape_from_config(dict(CONFIG), model_id="acme/llama2-7b-ft", source="config.json")
    assert model.precision == "fp32"
    assert weight_precision(model, "auto") == "bf16"
    assert weight_precision(model, "") == "bf16"
    assert weight_precision(model, "float32") == "fp32"
    assert weight_precision(model, "float16") == "fp16"
    assert activation_dtype_bytes(model, "auto") == 2
    assert activation_dtype_bytes(model, "float32") == 4
    assert weights_bytes(model, weight_precision(model, "auto"), None) * 2 == weights_bytes(model, "fp32", None)
    assert [served_at_auto(p) for p in ("fp32", "bf16", "fp16", "fp8", "int4")] == ["bf16", "bf16", "fp16", "fp8",
                                                                                     "int4"]


def _sw101(tmp_path: Path, extra: str) -> list[tuple[str, str]]:
    from shardwise.rules.app.cli import main

    models = tmp_path / "models" / "acme" / "llama2-7b-ft"
    models.mkdir(parents=True, exist_ok=True)
    (models / "config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    (tmp_path / "d.yaml").write_text(DEPLOYMENT.format(extra=extra), encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "d.yaml"), "--model-dir", str(tmp_path / "models"), "--format", "json",
          "--output", str(out)])
    return [(f["level"], f["message"]) for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
            if f["code"] == "SW101"]


@pytest.mark.parametrize(("extra", "expected"), [
    ("", []),
    (', --dtype, auto', []),
    (', --dtype, float32', [("mandatory", "SW101: acme/llama2-7b-ft in fp32 needs 25.1 GiB (±0.8) of weights per GPU at TP1×PP1, "
                                         "but gpu_memory_utilization 0.9 × 22.0 GiB (L4) allows 19.8 GiB")]),
])
def test_sw101_sizes_a_float32_checkpoint_as_vllm_serves_it(tmp_path: Path, extra: str,
                                                            expected: list[tuple[str, str]]) -> None:
    found = _sw101(tmp_path, extra)
    assert [(level, message[:len(text)]) for (level, message), (_, text) in zip(found, expected, strict=False)] \
        == expected
    assert len(found) == len(expected)
