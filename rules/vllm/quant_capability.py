"""The least GPU compute capability each quantisation method takes, by release, and vLLM's refusal below it.

``VllmConfig._get_quantization_config`` (``vllm/config.py`` 0.8.4 to 0.10.0, ``vllm/config/__init__.py`` 0.10.1.1 and
0.10.2, ``vllm/config/vllm.py`` 0.12.0 to 0.29.0) builds the quantisation config of the method the model
configuration settled on (``--quantization``, else the checkpoint's ``quantization_config``, after the Marlin
overrides that pick ``awq_marlin`` or ``gptq_marlin`` only where the GPU takes them) and raises, on a CUDA GPU::

    ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 80.
    Current capability: 75.

when ``current_platform.get_device_capability().to_int()`` is below the config's ``get_min_capability()``. That
happens before any weight is read, whatever the memory: a start-up refusal. The table below is each method's
``get_min_capability()`` as the ``model_executor/layers/quantization/*.py`` file of its config class returns it
(``method_to_config`` in that folder's ``__init__.py`` names the class), read in the wheels of the releases in
:data:`READ` (``fp8.py`` alone at 0.11.0 and 0.19.0). docs/capacity-model.md has the table.

A release between two read ones is decided where both say the same of the GPU; a release before the first or after
the last one read is not decided (the minimum has only come down so far: FP8 to 7.5 with Marlin's Turing kernels,
vllm-project/vllm#29901, first read in 0.14.1).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .versions import Version, parse_version

#: The releases whose quantisation configs were read (every method's ``get_min_capability``).
READ: Final = ("0.8.4", "0.8.5", "0.9.0", "0.9.1", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2", "0.12.0", "0.13.0",
               "0.14.1", "0.29.0")

#: The key of compressed-tensors' weight-only FP8 scheme in :data:`MIN_CAPABILITY`.
SCHEME_FP8: Final = "compressed-tensors/w8a16fp8"


def _at(*steps: tuple[str, int], read: tuple[str, ...] = READ) -> tuple[tuple[str, int], ...]:
    """A method's minimum at each release of ``read`` that has it, from ``steps``: (first release read with it, the
    minimum from there on). A release of ``read`` before the first step lacks the method."""
    out: list[tuple[str, int]] = []
    for tag in read:
        v = _v(tag)
        cap: int | None = None
        for since, c in steps:
            if _v(since) <= v:
                cap = c
        if cap is not None:
            out.append((tag, cap))
    return tuple(out)


def _v(tag: str) -> Version:
    v = parse_version(tag)
    assert v is not None
    return v


#: ``--quantization`` name (or ``quant_method``) -> ((release read, ``get_min_capability()`` there), ...), 80 being
#: compute capability 8.0. Only releases that have the method are listed. The Marlin-named methods (``awq_marlin``,
#: ``gptq_marlin``, ``marlin``) are left out: below their minimum vLLM's override keeps the plain method, and a
#: ``--quantization awq_marlin`` it cannot take fails on the method's mismatch with the checkpoint's first.
MIN_CAPABILITY: Final[dict[str, tuple[tuple[str, int], ...]]] = {
    # Fp8Config (fp8.py): 80 to 0.13.0 (read at 0.11.0 too), 75 from 0.14.1 (read at 0.19.0 too): weight-only FP8
    # through Marlin below 8.9 (``Fp8LinearMethod``: ``not current_platform.has_device_capability(89)``)
    "fp8": _at(("0.8.4", 80), ("0.14.1", 75),
               read=("0.8.4", "0.8.5", "0.9.0", "0.9.1", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2", "0.11.0",
                     "0.12.0", "0.13.0", "0.14.1", "0.19.0", "0.29.0")),
    "fbgemm_fp8": _at(("0.8.4", 80)),  # FBGEMMFp8Config
    "experts_int8": _at(("0.8.4", 80)),  # ExpertsInt8Config
    "awq": _at(("0.8.4", 75)),  # AWQConfig; AutoAWQConfig (auto_awq.py) at 0.29.0
    "gptq": _at(("0.8.4", 60)),  # GPTQConfig; AutoGPTQConfig (auto_gptq.py) at 0.29.0
    "bitsandbytes": _at(("0.8.4", 70), read=READ[:-1]),  # BitsAndBytesConfig; not in 0.29.0's method_to_config
    "gguf": _at(("0.8.4", 60), read=READ[:-1]),  # GGUFConfig; not in 0.29.0's method_to_config
    "mxfp4": _at(("0.10.1.1", 80)),  # Mxfp4Config (gpt-oss)
    "modelopt": _at(("0.8.4", 89), ("0.29.0", 80)),  # ModelOptFp8Config: 89 to 0.14.1, 80 at 0.29.0
    "modelopt_fp4": _at(("0.9.0", 80), ("0.14.1", 75)),  # ModelOptNvFp4Config (``nvfp4`` in 0.8.x, at 100)
    "compressed-tensors": _at(("0.8.4", 70)),  # CompressedTensorsConfig (its schemes check their own at load)
    "moe_wna16": _at(("0.8.4", 70)),  # MoeWNA16Config
    "torchao": _at(("0.8.4", 75)),  # TorchAOConfig
    "quark": _at(("0.8.4", 70)),  # QuarkConfig
    "fp_quant": _at(("0.12.0", 100)),  # FPQuantConfig
    "hqq": _at(("0.8.4", 80), read=READ[:-1]),  # HQQMarlinConfig
    "rtn": _at(("0.10.0", 80), read=READ[:-1]),  # RTNConfig
    "petit_nvfp4": _at(("0.10.2", 90), read=READ[:-1]),  # PetitNvFp4Config
    # not a method: compressed-tensors' FP8 layers, where the GPU lacks W8A8Fp8's 8.9, run CompressedTensorsW8A16Fp8
    # (schemes/compressed_tensors_w8a16_fp8.py), whose minimum ``_check_scheme_supported`` enforces as the layers are
    # built: RuntimeError "Quantization scheme is not supported for the current GPU. Min capability: 80. Current
    # capability: 75." (compressed_tensors.py). Asked only of an FP8 checkpoint known by its name (SCHEME_FP8).
    SCHEME_FP8: _at(("0.8.4", 80), ("0.29.0", 75)),
}


#: Before the first release read: a release from which the method's minimum is known to be the first read one, and
#: the minimum before it, from the change that lowered it (not read at a tag, so never a block): Fp8Config required
#: 8.9 until FP8 Marlin (vllm-project/vllm#5975, merged 2024-06-28, first in 0.5.1) ran FP8 weights on Ampere.
_BEFORE_READ: Final[dict[str, tuple[str, int, str]]] = {
    "fp8": ("0.5.1", 89, "which FP8 Marlin lowered to 8.0 (vllm-project/vllm#5975)")}


class CapabilityCheck(NamedTuple):
    """What the read releases say of one method on one GPU at one release."""

    refused: bool  # the release refuses it (only where ``sure``)
    sure: bool  # the releases read around it agree
    minimum: int  # the minimum the check compares with (the nearer read release's where not sure), 0: none
    why: str  # where not sure: what the releases read say, "" otherwise


def capability_text(cap: int) -> str:
    """80 -> ``8.0``."""
    return f"{cap // 10}.{cap % 10}"


def check(method: str, capability: tuple[int, int], version: Version) -> CapabilityCheck | None:
    """vLLM ``version``'s capability check of ``method`` on a GPU of ``capability``; None where no release read has
    the method, or it takes the GPU at every release read around ``version``."""
    rows = MIN_CAPABILITY.get(method.lower())
    if not rows:
        return None
    cc = capability[0] * 10 + capability[1]
    lo = next((r for r in reversed(rows) if _v(r[0]) <= version), None)
    hi = next((r for r in rows if _v(r[0]) >= version), None)
    if lo is not None and hi is not None:
        if cc < lo[1] and cc < hi[1]:
            return CapabilityCheck(True, True, lo[1], "")
        if cc >= lo[1] and cc >= hi[1]:
            return None
        return CapabilityCheck(False, False, lo[1], f"vLLM {lo[0]} requires {capability_text(lo[1])} and {hi[0]} "
                                                    f"requires {capability_text(hi[1])}; vLLM {version} was not read")
    near = lo or hi
    before = _BEFORE_READ.get(method.lower())
    if lo is None and before is not None and version < _v(before[0]) and cc < before[1]:
        return CapabilityCheck(False, False, before[1], f"vLLM releases before {before[0]} required "
                                                        f"{capability_text(before[1])}, {before[2]}; vLLM {version} "
                                                        "was not read")
    if near is None or cc >= near[1]:
        return None
    where = "the newest release" if lo is not None else "the oldest release"
    return CapabilityCheck(False, False, near[1], f"vLLM {near[0]}, {where} shardwise read, requires "
                                                  f"{capability_text(near[1])}; vLLM {version} was not read")


def releases_refusing(method: str, capability: tuple[int, int]) -> tuple[list[str], list[str]]:
    """The releases read that refuse ``method`` on a GPU of ``capability``, and those that take it."""
    rows = MIN_CAPABILITY.get(method.lower(), ())
    cc = capability[0] * 10 + capability[1]
    return [t for t, c in rows if cc < c], [t for t, c in rows if cc >= c]


def span(tags: list[str]) -> str:
    """Releases read, as words: ``from 0.8.4 to 0.13.0`` where they follow one another in :data:`MIN_CAPABILITY`'s
    order (every caller's list does: a method's minimum only came down), else listed."""
    if len(tags) == 1:
        return tags[0]
    return f"from {tags[0]} to {tags[-1]}"


def first_taking_after(method: str, capability: tuple[int, int], version: Version) -> str:
    """The first release read after ``version`` that takes ``method`` on a GPU of ``capability``, or ""."""
    cc = capability[0] * 10 + capability[1]
    return next((t for t, c in MIN_CAPABILITY.get(method.lower(), ()) if _v(t) > version and cc >= c), "")


def message(method: str, minimum: int, capability: tuple[int, int]) -> str:
    """vLLM's words for the refusal."""
    return (f"\"The quantization method {method} is not supported for the current GPU. Minimum capability: {minimum}. "
            f"Current capability: {capability[0] * 10 + capability[1]}.\"")
