"""The dtype vLLM serves a model in (``--dtype``), by release, model type and GPU, and the start-ups it refuses.

Read in the wheels on PyPI (``vllm/config.py`` ``_get_and_verify_dtype`` to 0.10.2, ``vllm/config/model.py`` from
0.11.0; ``platforms/cuda.py`` ``supported_dtypes`` and ``check_if_supports_dtype``; ``worker/worker.py`` and
``v1/worker/gpu_worker.py`` ``_check_if_gpu_supports_dtype`` before 0.11.0), at 0.8.4, 0.8.5, 0.9.0, 0.9.1, 0.9.2,
0.10.0, 0.10.1.1, 0.10.2, 0.11.0, 0.11.1, 0.12.0, 0.15.0 and 0.19.0, and on main (``config/model.py``):

* Every release's GPU worker refuses bfloat16 below compute capability 8.0 (T4 7.5, V100 7.0) at start-up:
  "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute
  capability 7.5. You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example:
  --dtype=half." (V0's and V1's worker, then ``CudaPlatform.check_if_supports_dtype`` from 0.11.0).
* ``--dtype auto`` (the default), before 0.9.0 (``Behaviour.auto_dtype`` "config"): config.json's ``torch_dtype``,
  float32 served as float16, whatever the GPU takes; a bfloat16 checkpoint on a T4 is refused as above.
* 0.9.0 ("fallback"): a dtype the platform does not list (``supported_dtypes``: bfloat16, float16, float32 from 8.0;
  float16, float32 from 6.0) falls back to the first it lists, float16 below 8.0 ("Your ... device (with compute
  capability 7.5) doesn't support torch.bfloat16. Falling back to torch.float16 for compatibility."), Gemma included.
* 0.9.1 on ("checked", ``_resolve_auto_dtype``): the same, but the platform's dtypes are first filtered by
  ``_is_valid_dtype``, which drops float16 for the model types of ``_FLOAT16_NOT_SUPPORTED_MODELS``
  (``Behaviour.float16_refused``: ``gemma2``, ``gemma3``, ``plamo2``, ``glm4``; ``gemma3_text``, Gemma 3 1B's and
  270M's, from 0.10.2): below 8.0 such a model is left with float32 alone and is served in float32, four bytes a
  weight, an activation and a KV cache element; and ``_check_valid_dtype`` refuses ``--dtype float16``/``half`` for
  them on every GPU: "The model type 'gemma2' does not support float16. Reason: Numerical instability. Please use
  bfloat16 or float32 instead."

The model type vLLM checks is config.json's top level: ``gemma3`` for the multimodal Gemma 3 checkpoints
(``Gemma3ForConditionalGeneration``), whose text config the catalog keeps as ``gemma3_text``.
"""

from __future__ import annotations

from typing import NamedTuple

from .versions import Behaviour

#: The top-level ``model_type`` of each architecture whose model type a release may refuse float16 for (the
#: checkpoints' config.json; the catalog keeps a multimodal model's text config, whose type differs).
ARCHITECTURE_MODEL_TYPE: dict[str, str] = {
    "Gemma2ForCausalLM": "gemma2",
    "Gemma3ForCausalLM": "gemma3_text",
    "Gemma3ForConditionalGeneration": "gemma3",
    "Plamo2ForCausalLM": "plamo2",
    "Glm4ForCausalLM": "glm4",
}

#: ``--dtype`` words as vLLM's ``_STR_DTYPE_TO_TORCH_DTYPE`` reads them, to one name each.
_WORDS: dict[str, str] = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
                          "float32": "float32"}


class ServedDtype(NamedTuple):
    """What vLLM does with the model's dtype on one GPU: the dtype it serves in (``float16``, ``bfloat16``,
    ``float32``; "" where not decided here), its refusal in words ("" where it starts), and whether the GPU worker
    refuses it (at start-up, after the configuration is made) rather than the model configuration."""

    dtype: str
    refusal: str
    by_worker: bool = False
    model_type: str = ""  # the top-level model type judged


def top_model_type(architectures: object, model_type: str) -> str:
    """The model type vLLM reads from config.json's top level: by architecture where :data:`ARCHITECTURE_MODEL_TYPE`
    has it, else ``model_type`` as given."""
    if isinstance(architectures, list | tuple) and architectures:
        found = ARCHITECTURE_MODEL_TYPE.get(str(architectures[0]))
        if found:
            return found
    return model_type


def _platform_dtypes(vendor: str, capability: tuple[int, int] | None) -> tuple[str, ...] | None:
    """``CudaPlatform.supported_dtypes`` for an NVIDIA GPU of ``capability``; None where not read (another vendor, or
    a GPU whose capability is not known)."""
    if vendor != "nvidia" or capability is None:
        return None
    if capability >= (8, 0):
        return ("bfloat16", "float16", "float32")
    if capability >= (6, 0):
        return ("float16", "float32")
    return ("float32",)


def served_dtype(b: Behaviour, model_type: str, config_dtype: str, given: str, vendor: str,
                 capability: tuple[int, int] | None, gpu: str) -> ServedDtype:
    """The dtype vLLM (release behaviour ``b``) serves a model of top-level ``model_type`` in, whose config.json says
    ``config_dtype`` (``bfloat16``, ``float16``, ``float32``), with ``--dtype given`` on ``gpu``, and its refusal
    (module docstring). ``dtype`` is "" where this module does not decide it (a word it does not read)."""
    word = given.lower() if given else "auto"
    config = _WORDS.get(config_dtype.lower(), "float32") if config_dtype else "float32"
    if word != "auto":
        dtype = _WORDS.get(word, "")
        if dtype == "float16" and model_type in b.float16_refused:
            return ServedDtype(dtype, f"--dtype {given}: the model type '{model_type}' does not support float16 "
                                      "(_FLOAT16_NOT_SUPPORTED_MODELS: \"Numerical instability. Please use bfloat16 or "
                                      "float32 instead.\")", model_type=model_type)
    else:
        dtype = _auto(b, model_type, config, _platform_dtypes(vendor, capability))
    if dtype == "bfloat16" and vendor == "nvidia" and capability is not None and capability < (8, 0):
        how = f"--dtype {given}" if word != "auto" else f"--dtype auto takes config.json's {config_dtype}"
        fix = ("--dtype float32 serves it in float32" if model_type in b.float16_refused else
               "--dtype half serves it in float16")
        return ServedDtype(dtype, f"{how}: bfloat16 is only supported on GPUs with compute capability of at least "
                                  f"8.0, and {gpu} has {capability[0]}.{capability[1]} (the GPU worker's check; "
                                  f"{fix})", True, model_type)
    return ServedDtype(dtype, "", model_type=model_type)


def _auto(b: Behaviour, model_type: str, config: str, platform: tuple[str, ...] | None) -> str:
    """``--dtype auto`` by release (:attr:`Behaviour.auto_dtype`); ``platform`` is None where not known (then the
    GPU is taken to list every dtype)."""
    if b.auto_dtype == "config" or platform is None:
        return "float16" if config == "float32" else config
    if b.auto_dtype == "fallback":
        dtype = "float16" if config == "float32" else config
        if model_type == "plamo2":  # "For PLaMo2, we cast models to bfloat16 instead of using float16 by default"
            dtype = "bfloat16"
        return dtype if dtype in platform else platform[0]
    listed = [d for d in platform if not (d == "float16" and model_type in b.float16_refused)]
    preferred = listed[0]
    wanted = preferred if config == "float32" else config
    return wanted if wanted in listed else preferred
