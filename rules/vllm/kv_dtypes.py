"""The packed KV cache dtypes of vLLM 0.33 and 0.34: their bytes per token and layer, and where vLLM takes them.

``--kv-cache-dtype`` values whose cache is not ``elements × element size``: each (token, KV head) is one packed
slot of codes and scales that the attention backend sizes (its ``customize_spec`` sets the spec's
``state_content_bytes``; ``v1/kv_cache_interface.py`` ``AttentionSpec.page_size_bytes`` = heads × tokens ×
that), or one opaque per-token record for an MLA latent. Read in the 0.33.0 and 0.34.0 sdists, identical in both:

* ``nvfp4``, ``nvfp4_4over6`` (FlashInfer, ``v1/attention/backends/flashinfer.py`` ``FlashInferBackend.
  customize_spec``): K and V each ``head // 2`` bytes of fp4 values plus ``head // 16`` fp8 block scales
  (``utils/torch_utils.py`` ``nvfp4_kv_cache_full_dim``): 144 bytes a KV head of 128 against 512 in bf16.
  ``supports_kv_cache_dtype``: on compute capability 8.x, 9.x and 12.x (FlashAttention 2's path) only ``nvfp4``, and
  ``supports_combination`` refuses head size 64 and attention sinks there; on 10.x (B200, B300, GB200) both, through
  TRT-LLM's kernels. No other backend lists them: not on ROCm.
* ``ultraquant_4bit`` (ROCm, ``v1/attention/backends/ultraquant_attn.py``, ``v1/attention/ops/ultraquant/format.py``
  ``slot_size``): K and V each ``head // 2`` bytes of fp4 codes and one UE8M0 scale byte per 32 dimensions: 136 bytes
  a KV head of 128; a dense model keeps its first and last two layers in bf16 (boundary layers, one group with the
  rest: their pages add up). Only the ROCm platform lists the backend (``platforms/rocm.py``), for bf16 models only
  (``supported_dtypes``), without attention sinks (``supports_sink``), head sizes that are multiples of 32 (a head
  above 256 runs Triton's kernel instead of CK's, still the same format).
* ``octave_k3v4``, ``octave_k3v3``, ``octave_k3v3_compact`` (ROCm, ``v1/attention/backends/rocm_octave_attn.py``,
  ``v1/attention/ops/rocm_octave.py`` ``OctaveFormat.slot_bytes``): K's rotary dimensions at 4 bits and the rest at 3
  (compact: all at 3), V at 4 or 3 bits, fp16 scales (one per 64 K dimensions and one for V; compact: one for K),
  padded to 8 bytes (compact: 4). Head size 256 only (``_KERNEL_HEAD_SIZE``), the rotary dimensions
  (``partial_rotary_factor`` × head size) a multiple of 64, on RDNA3 and CDNA3 (MI300X, MI325X) only.
* ``nvfp4_ds_mla`` (``v1/attention/backends/mla/flashmla_sparse.py``, ``model_executor/layers/attention/
  mla_attention.py``): 352 bytes a token and layer (512 fp4 latent values, 64 fp8 rotary values, 32 fp8 scales),
  DeepSeek-V3.2's sparse FlashMLA on compute capability 10.x only.
"""

from __future__ import annotations

from typing import Literal

#: The packed dtypes this module sizes (the other ``CacheDType`` values are an element size: fp8 one byte, the rest
#: the model's; the TurboQuant and per-token-head formats are not read here).
PACKED: frozenset[str] = frozenset({
    "nvfp4", "nvfp4_4over6", "ultraquant_4bit", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "nvfp4_ds_mla",
})

#: The packed dtypes whose dense models keep their first and last two layers at the model's dtype
#: (``engine/arg_utils.py``: ``turboquant_*`` and ``ultraquant_4bit`` add ``TurboQuantConfig.get_boundary_skip_layers``
#: to ``kv_cache_dtype_skip_layers``, 0.32.0 - 0.34.0; :func:`.kv_layout.layout`)
BOUNDARY_SKIP: frozenset[str] = frozenset({"ultraquant_4bit"})
#: The block size a packed dtype's backend picks whatever the default (``get_preferred_block_size``: UltraQuant's
#: FlyDSL decode needs 64-token blocks, ``ultraquant_attn.py`` 0.33.0 and 0.34.0)
OWN_BLOCK: dict[str, int] = {"ultraquant_4bit": 64}
#: ``nvfp4_ds_mla``'s record per token and layer (``mla_attention.py``: ``{"nvfp4_ds_mla": 352}``)
NVFP4_DS_MLA_BYTES = 352
_OCTAVE = {"octave_k3v4": (4, False), "octave_k3v3": (3, False), "octave_k3v3_compact": (3, True)}
_HADAMARD = 64
_ULTRAQUANT_GROUP = 32
_OCTAVE_HEAD = 256

Gpu = Literal["sm100", "fa2", "other-cuda", "unknown-cuda", "rocm-octave", "rocm", "other"]


def packed(kv_cache_dtype: str | None) -> str:
    """The packed dtype ``--kv-cache-dtype`` names (vLLM compares the lower-case word), or ""."""
    word = (kv_cache_dtype or "").lower()
    return word if word in PACKED else ""


def octave_slot_bytes(kind: str, head: int, rope: int) -> int:
    """``OctaveFormat.slot_bytes``: one (token, KV head) slot of K and V."""
    v_bits, compact = _OCTAVE[kind]
    wide = 0 if compact else rope
    scales = (1 if compact else head // _HADAMARD) + 1
    raw = wide * 4 // 8 + (head - wide) * 3 // 8 + head * v_bits // 8 + 2 * scales
    align = 4 if compact else 8
    return -(-raw // align) * align


def head_slot_bytes(kind: str, head: int, rope: int) -> int:
    """Bytes one (token, KV head) holds for K and V together in the packed dtype ``kind`` (not ``nvfp4_ds_mla``)."""
    if kind in ("nvfp4", "nvfp4_4over6"):
        return 2 * (head // 2 + head // 16)
    if kind == "ultraquant_4bit":
        return 2 * (head // 2 + head // _ULTRAQUANT_GROUP)
    if kind in _OCTAVE:
        return octave_slot_bytes(kind, head, rope)
    raise ValueError(f"{kind!r} is not a packed KV cache dtype")


def gpu_class(vendor: str, arch: str, capability: tuple[int, int] | None) -> Gpu:
    """Which of the classes the backends tell apart a GPU is in, by its compute capability (``capability``; the
    ``blackwell`` label holds both 10.x and 12.x): 10.x (B200, B300, GB200, GB300), 8.x / 9.x / 12.x (FlashAttention
    2's path for NVFP4: the RTX 5090 and RTX PRO Blackwell cards are 12.0), other CUDA (below 8.0, 11.x), CUDA of a
    capability not known (no refusal that depends on it), ROCm CDNA3/RDNA3 (``arch``), other ROCm, anything else."""
    if vendor == "nvidia":
        if capability is None:
            return "unknown-cuda"
        if capability[0] == 10:
            return "sm100"
        if capability[0] in (8, 9, 12):
            return "fa2"
        return "other-cuda"
    if vendor == "amd":
        return "rocm-octave" if arch in ("cdna3", "rdna3") else "rocm"
    return "other"


def refusal(kind: str, vendor: str, arch: str, name: str, *, head: int, rope: int, mla: bool, sparse_mla: bool,
            bf16: bool, sinks: bool, capability: tuple[int, int] | None = None) -> str:
    """vLLM's refusal to start with the packed dtype ``kind`` on this GPU and model (no attention backend takes it:
    "No valid attention backend found"), or ""."""
    gpu = gpu_class(vendor, arch, capability)
    where = f"--kv-cache-dtype {kind}"
    # an NVIDIA GPU whose compute capability is not known: a refusal that depends on it is not sure
    unknown = gpu == "unknown-cuda"
    if kind == "nvfp4_ds_mla":
        if not sparse_mla:
            return f"{where} is read only by DeepSeek-V3.2's sparse FlashMLA backend, which this model does not use"
        if gpu != "sm100" and not unknown:
            return f"{where}: FlashMLA's sparse backend takes it on compute capability 10.x (B200, B300, GB200) only"
        return ""
    if mla:
        return f"{where}: no MLA attention backend of vLLM takes it"
    if kind in ("nvfp4", "nvfp4_4over6"):
        if gpu == "sm100" or unknown:
            return ""
        if gpu != "fa2":
            return f"{where}: only FlashInfer takes it, on NVIDIA GPUs of compute capability 8.0 and later"
        if kind == "nvfp4_4over6":
            return (f"{where}: FlashInfer takes it on compute capability 10.x only (B200, B300, GB200); on {name} only "
                    "nvfp4")
        if head == 64:
            return f"{where}: FlashInfer's FlashAttention 2 prefill on {name} misreads an NVFP4 cache at head size 64"
        if sinks:
            return f"{where}: FlashInfer's sink prefill on {name} cannot read an NVFP4 cache"
        return ""
    if kind == "ultraquant_4bit":
        if vendor != "amd":
            return f"{where}: only the ROCm UltraQuant backend takes it"
        if not bf16:
            return f"{where}: the UltraQuant backend runs bf16 models only"
        if head % _ULTRAQUANT_GROUP:
            return f"{where}: the UltraQuant format needs a head size that is a multiple of 32, not {head}"
        if sinks:
            return f"{where}: the UltraQuant backend takes no attention sinks (supports_sink)"
        return ""
    if kind in _OCTAVE:
        if gpu != "rocm-octave":
            return f"{where}: only the ROCm Octave backend takes it, on RDNA3 and CDNA3 GPUs (MI300X, MI325X)"
        if head != _OCTAVE_HEAD:
            return f"{where}: the Octave backend takes head size 256 only, not {head}"
        if rope % _HADAMARD:
            return f"{where}: the Octave backend needs the rotary dimensions in multiples of 64, not {rope}"
        return ""
    return ""
