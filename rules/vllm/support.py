"""What vLLM's model implementations support, by architecture: facts read from each model file.

Pipeline parallelism needs the model class to implement vLLM's ``SupportsPP`` interface. With
``--pipeline-parallel-size`` above 1, ``ModelConfig.verify_with_parallel_config`` (``vllm/config/model.py``;
``vllm/config.py`` before 0.10.2) asks the registry ``is_pp_supported_model`` and raises, before any weight is
loaded::

    NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the
    `SupportsPP` interface.

:data:`NO_PIPELINE_PARALLEL` lists the architectures (config.json's ``architectures``) whose class vLLM declares
without ``SupportsPP``, with the file that declares it. A layout with PP > 1 of such a model is a certain refusal
(:func:`pp_refusal`).

The same check runs on a speculative draft: ``SpeculativeConfig._verify_args`` (``vllm/config/speculative.py``) calls
``draft_model_config.verify_with_parallel_config(draft_parallel_config)``, and ``create_draft_parallel_config`` copies
the target's ``pipeline_parallel_size`` into the draft's. An MTP draft (``--speculative-config '{"method": "mtp"}'``)
is the target's own multi-token-prediction head, built by the class ``SpeculativeConfig.hf_config_override`` names
for the target's architecture; :data:`MTP_DRAFTS` lists those classes and the releases whose class lacks
``SupportsPP`` (:func:`draft_pp_refusal`). vLLM's issue #52069 (0.26.1 nightly) shows the refusal at
``create_engine_config``, before any weight is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.shapes import ModelShape
from .versions import Version, parse_version

#: Architecture → the vLLM model file whose class for it does not implement ``SupportsPP``.
NO_PIPELINE_PARALLEL: dict[str, str] = {
    # Gemma 3n: Gemma3nForCausalLM(nn.Module) in gemma3n.py, Gemma3nForConditionalGeneration(nn.Module,
    # SupportsMultiModal, SupportsTranscription) in gemma3n_mm.py (0.10 to the 2026 releases)
    "Gemma3nForCausalLM": "vllm/model_executor/models/gemma3n.py",
    "Gemma3nForConditionalGeneration": "vllm/model_executor/models/gemma3n_mm.py",
    # Phi-4-multimodal-instruct: Phi4MMForCausalLM(nn.Module, SupportsLoRA, SupportsMultiModal)
    "Phi4MMForCausalLM": "vllm/model_executor/models/phi4mm.py",
    # Phi-4-mini-flash-reasoning (SambaY): Phi4FlashForCausalLM(nn.Module, HasInnerState, IsHybrid)
    "Phi4FlashForCausalLM": "vllm/model_executor/models/phi4flash.py",
}


def architectures(model: ModelShape) -> list[str]:
    """The architectures the model's config.json names (what vLLM's registry resolves)."""
    archs = model.hf_config.get("architectures")
    return [str(a) for a in archs] if isinstance(archs, list) else []


def pp_refusal(model: ModelShape, pp: int) -> str:
    """Why vLLM refuses ``model`` at ``pp`` pipeline stages because its class does not implement ``SupportsPP``,
    or "" (PP 1, or an architecture that supports it)."""
    if pp <= 1:
        return ""
    for arch in architectures(model):
        where = NO_PIPELINE_PARALLEL.get(arch)
        if where:
            return (f"vLLM's {arch} ({where}) does not implement SupportsPP, so pipeline_parallel_size {pp} is "
                    "refused at start-up (vLLM: Pipeline parallelism is not supported for this model); use "
                    "tensor parallelism or replicas")
    return ""


#: MTP draft architecture → (vLLM model file, first and last release read whose class lacks ``SupportsPP`` while the
#: draft's parallel config keeps the target's PP). Read from the releases' sources: ``DeepSeekMTP``,
#: ``Glm4MoeMTP``, ``ErnieMTP`` and ``Qwen3NextMTP`` implement ``SupportsPP`` in 0.10.2 to 0.13.0 and not in 0.14.1,
#: 0.17.0, 0.19.0, 0.20.0 and 0.27.1; ``Qwen3_5MTP`` (0.17.0 on) and ``MiMoMTP`` (0.9.2 on) never did up to 0.27.1.
#: 0.33.0 builds the draft with ``pipeline_parallel_size=1``; the releases between 0.27.1 and 0.33.0 and 0.14.0 are
#: not read, so no refusal is asserted for them.
MTP_DRAFTS: dict[str, tuple[str, str, str]] = {
    "DeepSeekMTPModel": ("vllm/model_executor/models/deepseek_mtp.py", "0.14.1", "0.27.1"),
    "Glm4MoeMTPModel": ("vllm/model_executor/models/glm4_moe_mtp.py", "0.14.1", "0.27.1"),
    "ErnieMTPModel": ("vllm/model_executor/models/ernie_mtp.py", "0.14.1", "0.27.1"),
    "Qwen3NextMTP": ("vllm/model_executor/models/qwen3_next_mtp.py", "0.14.1", "0.27.1"),
    "Qwen3_5MTP": ("vllm/model_executor/models/qwen3_5_mtp.py", "0.17.0", "0.27.1"),
    "Qwen3_5MoeMTP": ("vllm/model_executor/models/qwen3_5_mtp.py", "0.17.0", "0.27.1"),
    "MiMoMTPModel": ("vllm/model_executor/models/mimo_mtp.py", "0.9.2", "0.27.1"),
}

#: ``SpeculativeConfig.hf_config_override`` (0.20.0): the target's model_type or first architecture → the draft
#: architecture its MTP head is built as.
_MTP_BY_TYPE: dict[str, str] = {
    "deepseek_v3": "DeepSeekMTPModel", "deepseek_v32": "DeepSeekMTPModel", "glm_moe_dsa": "DeepSeekMTPModel",
    "ernie4_5_moe": "ErnieMTPModel", "qwen3_next": "Qwen3NextMTP", "qwen3_5": "Qwen3_5MTP",
    "qwen3_5_moe": "Qwen3_5MoeMTP",
}
_MTP_BY_ARCH: dict[str, str] = {"Glm4MoeForCausalLM": "Glm4MoeMTPModel", "MiMoForCausalLM": "MiMoMTPModel"}

#: ``MTPModelTypes`` (``vllm/config/speculative.py``): the methods that draft with the target's MTP head.
MTP_METHODS = frozenset({
    "mtp", "deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp", "ernie_mtp",
    "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp", "qwen3_next_mtp", "qwen3_5_mtp", "longcat_flash_mtp",
    "pangu_ultra_moe_mtp", "step3p5_mtp", "hy_v3_mtp",
})


def json_object(value: Any) -> dict[str, Any] | None:
    """An engine argument that takes a JSON object (``--speculative-config``, ``--compilation-config``,
    ``--mm-processor-kwargs``...) as a dict: the dict given, or the JSON text's object; None when it is neither."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        return None
    import json  # only an engine argument given as JSON text (start-up time)

    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def speculative_method(config: Any) -> str | None:
    """The ``method`` of a ``--speculative-config`` value (JSON text or a dict), or None when it names none or
    cannot be read. Without a ``method`` vLLM infers one from the ``model`` (``SpeculativeConfig.__post_init__``,
    ``vllm/config/speculative.py`` at 0.29.0 and 0.34.0): ``ngram`` for the model ``ngram``/``[ngram]``, else
    ``draft_model``, which it then names ``eagle`` where the drafter's name holds "eagle-" and ``eagle3`` where it
    holds "eagle3"; a config with neither a method nor a model is None."""
    cfg = json_object(config) or {}
    method = cfg.get("method")
    if isinstance(method, str):
        return method
    model = cfg.get("model")
    if not isinstance(model, str) or not model:
        return None
    if model in ("ngram", "[ngram]"):
        return "ngram"
    low = model.lower()
    return "eagle" if "eagle-" in low else "eagle3" if "eagle3" in low else "draft_model"


def speculative_model(config: Any) -> str | None:
    """The drafter checkpoint a ``--speculative-config`` names (its ``model``), or None where it names none (an MTP
    head of the target, a CPU proposer) or cannot be read."""
    model = (json_object(config) or {}).get("model")
    return model if isinstance(model, str) and model and model not in ("ngram", "[ngram]") else None


def speculative_draft_tp(config: Any) -> int | None:
    """The ``draft_tensor_parallel_size`` of a ``--speculative-config`` value, or None where it gives none (the draft
    then takes the target's TP; ``SpeculativeConfig._verify_and_get_draft_tp``, ``vllm/config/speculative.py`` at
    0.29.0, which takes only 1 or the target's TP)."""
    n = (json_object(config) or {}).get("draft_tensor_parallel_size")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def legacy_speculative_config(extra: Mapping[str, Any]) -> dict[str, Any] | None:
    """The speculative config of the flags releases before ``--speculative-config`` took (``--speculative-model`` and
    ``--num-speculative-tokens``, removed in 0.8.3: ``vllm/flags.py``), as the JSON config would give it; None where
    no ``--speculative-model`` is given. (``--speculative-draft-tensor-parallel-size`` is not read: the draft is sized
    at the target's TP.)"""
    model = extra.get("speculative_model")
    if not isinstance(model, str) or not model:
        return None
    cfg: dict[str, Any] = {"model": model}
    n = extra.get("num_speculative_tokens")
    if isinstance(n, str) and n.isdigit():
        n = int(n)
    if isinstance(n, int) and not isinstance(n, bool):
        cfg["num_speculative_tokens"] = n
    return cfg


def speculative_tokens(config: Any) -> int | None:
    """The ``num_speculative_tokens`` of a ``--speculative-config`` value (JSON text or a dict), or None when it
    gives none (vLLM then takes an MTP head's ``n_predict``, ``config/speculative.py``) or cannot be read."""
    n = (json_object(config) or {}).get("num_speculative_tokens")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def cudagraph_mode(config: Any) -> str | None:
    """The ``cudagraph_mode`` of a ``--compilation-config`` value (JSON text or a dict), upper-cased (``NONE``,
    ``PIECEWISE``, ``FULL``, ``FULL_DECODE_ONLY``, ``FULL_AND_PIECEWISE``), or None when it names none (``-O3``, an
    optimisation level) or cannot be read."""
    mode = (json_object(config) or {}).get("cudagraph_mode")
    return mode.strip().upper() if isinstance(mode, str) and mode.strip() else None


def mtp_draft(model: ModelShape) -> str | None:
    """The architecture vLLM builds ``model``'s MTP head as (``hf_config_override``), None when not known."""
    archs = architectures(model)
    for arch in archs[:1]:
        if arch in _MTP_BY_ARCH:
            return _MTP_BY_ARCH[arch]
    kind = str(model.hf_config.get("model_type") or model.extra.get("model_type") or "")
    return _MTP_BY_TYPE.get(kind.removesuffix("_text"))


def draft_pp_refusal(model: ModelShape, pp: int, method: str | None, version: Version) -> str:
    """Why vLLM ``version`` refuses an MTP draft of ``model`` at ``pp`` pipeline stages (its draft class lacks
    ``SupportsPP`` and the draft keeps the target's PP), or ""."""
    if pp <= 1 or method not in MTP_METHODS:
        return ""
    draft = mtp_draft(model)
    row = MTP_DRAFTS.get(draft or "")
    if row is None:
        return ""
    where, first, last = row
    lo, hi = parse_version(first), parse_version(last)
    assert lo is not None and hi is not None
    if not lo.parts <= version.parts <= hi.parts:
        return ""
    return (f"the speculative method {method} drafts with {model.id}'s MTP head, which vLLM {version} builds as "
            f"{draft} ({where}) without SupportsPP and checks against the target's pipeline_parallel_size {pp}, so "
            "it refuses at start-up (vLLM: Pipeline parallelism is not supported for this model. Supported models "
            "implement the `SupportsPP` interface.); drop the speculative config or use tensor parallelism")


#: ``--mm-encoder-tp-mode data``: the multimodal encoder's weights whole on every tensor-parallel rank (its linears
#: built with ``disable_tp``), each rank encoding a share of the batch's items, where ``weights`` (the default) splits
#: them TP ways with the language model. ``ModelConfig.__post_init__`` (``vllm/config/model.py``) keeps ``data`` only
#: for a class with ``supports_encoder_tp_data = True`` (inherited by its subclasses) and otherwise warns "This model
#: does not support `--mm-encoder-tp-mode data`. Falling back to `--mm-encoder-tp-mode weights`." Architecture (the
#: registry's name for the class) → the first of the wheels read that holds it: 0.11.0, 0.14.1, 0.15.0, 0.19.0 and
#: 0.25.1 (0.10.1.1 has no such flag). Tarsier2 (0.11.0 – 0.19.0) is left out: 0.25.1 no longer lists it.
ENCODER_TP_DATA: dict[str, str] = {
    **dict.fromkeys((
        "DotsOCRForCausalLM", "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration", "H2OVLChatModel",
        "InternVLChatModel", "JinaVLForRanking", "KimiVLForConditionalGeneration", "Llama4ForConditionalGeneration",
        "MiniCPMO", "MiniCPMV", "NVLM_D", "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
        "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration", "Step3VLForConditionalGeneration",
    ), "0.11.0"),
    **dict.fromkeys(("HunYuanVLForConditionalGeneration", "IsaacForConditionalGeneration",
                     "OpenCUAForConditionalGeneration"), "0.14.1"),
    **dict.fromkeys(("Eagle2_5_VLForConditionalGeneration", "KimiK25ForConditionalGeneration",
                     "StepVLForConditionalGeneration"), "0.15.0"),
    **dict.fromkeys(("ColQwen3", "ColQwen3_5", "GlmOcrForConditionalGeneration", "InternS1ProForConditionalGeneration",
                     "OpsColQwen3Model", "Qwen3VLNemotronEmbedModel", "Qwen3_5ForConditionalGeneration",
                     "Qwen3_5MoeForConditionalGeneration"), "0.19.0"),
    **dict.fromkeys(("Cosmos3ForConditionalGeneration", "Exaone4_5_ForConditionalGeneration",
                     "InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
                     "QianfanOCRForConditionalGeneration", "Step3p7ForConditionalGeneration"), "0.25.1"),
}


def encoder_tp_data(model: ModelShape, mode: str | None, version: Version) -> bool:
    """Whether vLLM ``version`` keeps ``--mm-encoder-tp-mode`` ``mode`` as ``data`` for ``model`` (its encoder whole on
    every tensor-parallel rank): the mode is ``data`` and the model's architecture supports it in that release
    (:data:`ENCODER_TP_DATA`); vLLM falls back to ``weights`` for any other."""
    if mode != "data":
        return False
    for arch in architectures(model):
        since = ENCODER_TP_DATA.get(arch)
        first = parse_version(since) if since else None
        if first is not None and version.parts >= first.parts:
            return True
    return False
