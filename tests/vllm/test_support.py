"""What vLLM's model classes support, by release: the MTP drafts that refuse pipeline parallelism."""

from __future__ import annotations

import pytest
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm.support import MTP_DRAFTS, draft_pp_refusal, mtp_draft, speculative_method
from shardwise.rules.vllm.versions import parse_version


def _v(text: str):
    v = parse_version(text)
    assert v is not None
    return v


@pytest.mark.parametrize(("model_id", "draft"), [
    ("deepseek-ai/DeepSeek-R1", "DeepSeekMTPModel"),  # deepseek_v3
    ("deepseek-ai/DeepSeek-V3.2", "DeepSeekMTPModel"),  # deepseek_v32
    ("zai-org/GLM-5", "DeepSeekMTPModel"),  # glm_moe_dsa
    ("zai-org/GLM-4.5-Air", "Glm4MoeMTPModel"),  # Glm4MoeForCausalLM
    ("baidu/ERNIE-4.5-21B-A3B-PT", "ErnieMTPModel"),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen3NextMTP"),
    ("Qwen/Qwen3.6-27B", "Qwen3_5MTP"),  # the catalog's qwen3_5_text is config.json's qwen3_5
    ("Qwen/Qwen3.5-397B-A17B", "Qwen3_5MoeMTP"),
    ("meta-llama/Llama-3.1-8B-Instruct", None),  # no MTP head
])
def test_mtp_draft_architecture(model_id, draft):
    assert mtp_draft(find_model(model_id)) == draft


def test_speculative_method_is_read_from_the_json_or_a_dict():
    assert speculative_method('{"method": "mtp", "num_speculative_tokens": 1}') == "mtp"
    assert speculative_method({"method": "ngram"}) == "ngram"
    # no method: vLLM infers one from the drafter's name (SpeculativeConfig.__post_init__, 0.29.0), as shardwise does
    assert speculative_method('{"model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}') == "eagle"
    assert speculative_method('{"num_speculative_tokens": 3}') is None
    assert speculative_method("{not json") is None
    assert speculative_method(None) is None


def test_mtp_draft_refuses_pipeline_parallelism_in_the_releases_read():
    r1 = find_model("deepseek-ai/DeepSeek-R1")
    text = draft_pp_refusal(r1, 2, "mtp", _v("0.20.0"))
    assert text == (
        "the speculative method mtp drafts with deepseek-ai/DeepSeek-R1's MTP head, which vLLM 0.20.0 builds as "
        "DeepSeekMTPModel (vllm/model_executor/models/deepseek_mtp.py) without SupportsPP and checks against the "
        "target's pipeline_parallel_size 2, so it refuses at start-up (vLLM: Pipeline parallelism is not supported "
        "for this model. Supported models implement the `SupportsPP` interface.); drop the speculative config or use "
        "tensor parallelism")
    assert draft_pp_refusal(r1, 2, "deepseek_mtp", _v("0.14.1"))  # the method's older spelling
    assert draft_pp_refusal(r1, 2, "mtp", _v("0.27.1"))
    # DeepSeekMTP implements SupportsPP in 0.10.2-0.13.0; 0.33.0 builds the draft at PP 1; 0.28-0.32 are not read
    assert draft_pp_refusal(r1, 2, "mtp", _v("0.13.0")) == ""
    assert draft_pp_refusal(r1, 2, "mtp", _v("0.30.0")) == ""
    assert draft_pp_refusal(r1, 2, "mtp", _v("0.33.0")) == ""
    assert draft_pp_refusal(r1, 1, "mtp", _v("0.20.0")) == ""  # no pipeline stages
    assert draft_pp_refusal(r1, 2, "ngram", _v("0.20.0")) == ""  # no draft model
    assert draft_pp_refusal(r1, 2, "eagle", _v("0.20.0")) == ""  # a separate draft, its class not known here
    # Qwen3.5's MTP class came with 0.17.0
    q = find_model("Qwen/Qwen3.6-27B")
    assert draft_pp_refusal(q, 2, "mtp", _v("0.17.0")) and not draft_pp_refusal(q, 2, "mtp", _v("0.14.1"))
    assert set(MTP_DRAFTS) == {"DeepSeekMTPModel", "Glm4MoeMTPModel", "ErnieMTPModel", "Qwen3NextMTP", "Qwen3_5MTP",
                               "Qwen3_5MoeMTP", "MiMoMTPModel"}
