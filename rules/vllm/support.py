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
"""

from __future__ import annotations

from ..model.shapes import ModelShape

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
