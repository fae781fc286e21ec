"""The RTX A5000 and Granite 3.3 2B Base in the catalog, and the Qwen3-VL embedders kept out (issue 28, catalog16).

- The **RTX A5000** (GA102, 24 GB GDDR6, PCIe) is the GPU of LMCache#3430's log, which logs15 left out for want of
  it: 25,402,343,424 bytes as CUDA reports the card (a public device query), 23.66 GiB.
- **Qwen/Qwen3-VL-Embedding-2B** and **-8B** were added from their card and taken out again (review16): their
  config.json was not read, and the card's 32K and the Qwen3-VL base's 262,144 each let SW102 block a manifest the
  other starts, so a manifest serving one stays undecided (SW004).
- **ibm-granite/granite-3.3-2b-base** is served by llm-d's simple-model sample (llm-d/llm-d-model-service); the
  instruct model's card says it is built on top of it, so the record inherits granite-3.3-2b-instruct's shape (a weak
  citation, labelled so).
"""

from __future__ import annotations

import pytest
from family_manifest import deployment, lint
from shardwise.rules.capacity.weights import weights_bytes
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.model.errors import CatalogError
from shardwise.rules.vllm import kv_layout

EMBED = "Qwen/Qwen3-VL-Embedding-2B"
EMBED_8B = "Qwen/Qwen3-VL-Embedding-8B"
GRANITE_BASE = "ibm-granite/granite-3.3-2b-base"
_SHAPE = ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
          "intermediate_size", "vocab_size", "tie_word_embeddings", "precision", "vision_params")


def test_the_rtx_a5000_is_a_24_gb_ampere_pcie_card():
    for label in ("NVIDIA-RTX-A5000", "NVIDIA RTX A5000", "RTX A5000"):
        g = find_gpu(label)
        assert (g.name, g.memory_gb, g.memory_gib, g.architecture, g.fp8, g.interconnect) == (
            "RTX-A5000", 24, 23.66, "ampere", False, "pcie"), label
        assert g.nvlink_domain_size == 1  # a PCIe card alone: no NVLink bridge is assumed
    assert round(25_402_343_424 / 2**30, 2) == 23.66


def test_granite_3_3_2b_base_is_the_instruct_models_shape():
    m, instruct = find_model(GRANITE_BASE), find_model("ibm-granite/granite-3.3-2b-instruct")
    for name in (*_SHAPE, "max_position_embeddings"):
        assert getattr(m, name) == getattr(instruct, name), name
    assert (m.params, m.num_hidden_layers, m.head_dim, m.max_position_embeddings) == (2_533_539_840, 40, 64, 131_072)
    assert weights_bytes(m, "bf16", None) == 5_067_079_680
    (full,) = kv_layout.layout(m, 1, 1, 2).types
    assert (full.layers, full.bytes_per_token) == (40, 2048)  # 2 x 8 x 64 x 2: 81,920 bytes a token at TP1


def test_the_new_models_resolve_by_their_names_and_no_other():
    assert find_model(GRANITE_BASE).id == GRANITE_BASE
    # the instruct model and the Qwen3-VL chat model keep their own records
    assert find_model("ibm-granite/granite-3.3-2b-instruct").id == "ibm-granite/granite-3.3-2b-instruct"
    assert find_model("Qwen/Qwen3-VL-2B-Instruct").max_position_embeddings == 262_144


def _on_a5000(text: str) -> str:
    return text.replace("node.kubernetes.io/instance-type: g6.xlarge", "nvidia.com/gpu.product: NVIDIA-RTX-A5000")


def test_a_manifest_serving_granite_3_3_2b_base_is_decided(tmp_path):
    findings = [f for f in lint(tmp_path, deployment(GRANITE_BASE, 1, instance="g6.xlarge"))
                if f.subject == "Deployment llm/server"]
    assert not [f for f in findings if f.code == "SW004" or f.undecided], [f.message for f in findings]
    assert not [f for f in findings if f.code.startswith("SW1") and f.level == "mandatory"]


def test_the_qwen3_vl_embedders_stay_out_while_their_length_is_unsourced(tmp_path):
    """Their config.json was not read: the card says 32K, the Qwen3-VL base they are built on says 262,144, and
    vLLM takes the length from config.json. Either value can make SW102 block a manifest the other lets start
    (`--max-model-len 65536`, or no `--max-model-len` on a small GPU), so neither is in the catalog: a manifest
    serving one is undecided (SW004, advisory), never blocked on a guessed limit (review16)."""
    for name in (EMBED, EMBED_8B):
        with pytest.raises(CatalogError, match="unknown model"):
            find_model(name)
        text = _on_a5000(deployment(name, 1, instance="g6.xlarge",
                                    extra=", --runner, pooling, --convert, embed, --max-model-len, '65536'"))
        findings = [f for f in lint(tmp_path, text) if f.subject == "Deployment llm/server"]
        assert [f.code for f in findings if f.code == "SW004"] == ["SW004"], [f.message for f in findings]
        assert not [f for f in findings if f.level == "mandatory"], [f.message for f in findings]
