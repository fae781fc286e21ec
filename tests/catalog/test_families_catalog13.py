"""SmolLM2-135M-Instruct and Granite 3.2 8B in the catalog (issue 28, catalog13).

Both are served by public manifests of the wide corpus that were undecided for want of the model (SW004):
HuggingFaceTB/SmolLM2-135M-Instruct (SecureCloudOps/llm-queue-meltdown) and Red Hat's modelcar of
ibm-granite/granite-3.2-8b-instruct (three InferenceServices). SmolLM2-135M is a ``LlamaForCausalLM`` whose
config.json public reproductions state key for key (hidden 576, FFN 1536, 30 layers, 9 query and 3 KV heads of 64,
vocabulary 49152, 8,192 positions, tied); Granite-3.2-8B-Instruct is Granite-3.1-8B-Instruct fine-tuned (its card's
``base_model``), so it inherits that record (a weak citation, labelled so in the record).
"""

from __future__ import annotations

from family_manifest import deployment, lint
from shardwise.rules.capacity.weights import weights_bytes
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GRANITE = "ibm-granite/granite-3.2-8b-instruct"
H, V, F = 576, 49_152, 1536

# the tied embedding once, 30 layers of q/o (576 x 576), k/v (576 x 192), a gated MLP of 1,536 and two norms, the
# final norm
_SMOL = V * H + 30 * (2 * H * H + 2 * H * 192 + 3 * H * F + 2 * H) + H


def test_smollm2_135m_is_its_llama_shape():
    assert _SMOL == 134_515_008
    m = find_model(SMOL)
    assert (m.params, m.num_hidden_layers, m.hidden_size, m.num_attention_heads, m.num_key_value_heads, m.head_dim,
            m.intermediate_size, m.vocab_size, m.max_position_embeddings, m.tie_word_embeddings, m.precision) == (
        _SMOL, 30, H, 9, 3, 64, F, V, 8192, True, "bf16")
    assert weights_bytes(m, "bf16", None) == 269_030_016


def test_smollm2_135m_caches_3_kv_heads_of_64_on_30_layers():
    m = find_model(SMOL)
    # 2 x 3 KV heads x 64 x 2 bytes a layer at TP1 (23,040 bytes a token); TP3 gives each rank one head, and TP9
    # (the 9 query heads split nine ways) replicates the 3 KV heads: still one a rank
    for tp, per_layer in ((1, 768), (3, 256), (9, 256)):
        (full,) = kv_layout.layout(m, tp, 1, 2).types
        assert (full.kind, full.layers, full.bytes_per_token) == ("full", 30, per_layer)
    assert 30 * 768 == 23_040


def test_granite_3_2_8b_is_granite_3_1_8b_fine_tuned():
    m, base = find_model(GRANITE), find_model("ibm-granite/granite-3.1-8b-instruct")
    for field in ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                  "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "tie_word_embeddings",
                  "precision"):
        assert getattr(m, field) == getattr(base, field), field
    assert (m.params, m.max_position_embeddings) == (8_170_848_256, 131_072)
    assert weights_bytes(m, "bf16", None) == 16_341_696_512
    (full,) = kv_layout.layout(m, 1, 1, 2).types
    assert (full.layers, full.bytes_per_token) == (40, 4096)  # 163,840 bytes a token at TP1


def test_the_modelcar_of_granite_3_2_resolves_by_its_name(tmp_path):
    # rh-ai-quickstart/vllm-tool-calling and vllm-project/semantic-router serve Red Hat's modelcar image by this name
    text = deployment("oci://quay.io/redhat-ai-services/modelcar-catalog:granite-3.2-8b-instruct", 1,
                      instance="g6e.xlarge")
    findings = [f for f in lint(tmp_path, text) if f.subject == "Deployment llm/server"]
    (named,) = [f for f in findings if f.code == "SW004"]
    assert "sized it as the catalog model ibm-granite/granite-3.2-8b-instruct" in named.message
    assert named.level == "advisory"


def test_a_manifest_serving_smollm2_135m_is_decided(tmp_path):
    findings = lint(tmp_path, deployment(SMOL, 1, instance="g6.xlarge").replace('"32768"', '"8192"'))
    mine = [f for f in findings if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], [f.message for f in mine]
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"]
