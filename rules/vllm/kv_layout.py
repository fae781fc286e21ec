"""The KV cache the way vLLM lays it out: attention layer types, pages, groups, tokens and concurrency.

A model's layers are read from :attr:`ModelShape.hf_config` (config.json keys kept verbatim) the way
vLLM's model implementations read them:

* full attention: every layer by default;
* sliding window: ``layer_types`` entries ``sliding_attention`` (gpt-oss, Gemma 3 with ``layer_types``),
  Gemma 3's ``sliding_window_pattern`` (every n-th layer is global), Gemma 2 (even layers slide),
  or ``sliding_window`` on every layer (Mistral-7B-v0.1, Qwen2 with ``use_sliding_window``), a window above the
  context included (Phi-3/3.5/4-mini's 262,144: one block more a request than full attention);
* chunked local attention: Llama 4's ``attention_chunk_size`` on the layers whose
  ``no_rope_layers`` entry is 1 (the NoPE layers keep full attention);
* linear attention / state-space layers (Qwen3-Next's Gated DeltaNet, ``layer_types`` entries
  ``linear_attention``, ``full_attention_interval``; Mamba2 layers of Nemotron-H's
  ``hybrid_override_pattern`` ``M`` and Granite 4.0-H's ``layer_types`` ``mamba``; Jamba's Mamba1 layers, all but
  every ``attn_layer_period``-th from ``attn_layer_offset``; Kimi Linear's KDA layers,
  ``linear_attn_config.kda_layers``, between MLA layers; LFM2's short convolutions, ``layer_types`` entries
  ``conv``): a constant state per request
  (``MambaStateShapeCalculator`` in ``vllm/model_executor/layers/mamba/mamba_utils.py``);
* layers with no attention at all (Nemotron-H's MLP ``-`` and MoE ``E`` blocks, Llama-Nemotron's
  ``block_configs`` entries whose ``attention.no_op`` is true, :mod:`.nas`) and layers that read another
  layer's cache (``num_kv_shared_layers``: Gemma 3n and Gemma 4 E2B/E4B, vLLM's
  ``kv_sharing_target_layer_name``): no KV cache of their own;
* Gemma 4's full-attention layers: ``global_head_dim`` and, with ``attention_k_eq_v``,
  ``num_global_key_value_heads`` (``Gemma4DecoderLayer`` in ``vllm/model_executor/models/gemma4.py``), so a
  page of them holds more tokens than a sliding page (``unify_kv_cache_spec_page_size`` raises their block
  size until the pages are equal);
* multi-head latent attention (DeepSeek-V2/V3/R1): one latent of ``kv_lora_rank + qk_rope_head_dim``
  per layer and token, not split by TP.

Layouts vLLM has and this model does not (:func:`unmodelled_reason`: DeepSeek-V4's compressed sparse
attention, whose groups :mod:`.dsv4_cache` (and weights, :mod:`.dsv4_weights`) build as vLLM 0.20.0 does but the
sizing does not use yet, so that a DeepSeek-V4 config.json is held back before it is sized
(:mod:`..catalog.unsized`), lightning-attention hybrids, Mamba layers whose positions the config does not give, layer
types not listed above) are laid out as full attention over the config's heads, and the layout says so (``modelled``
False and a note): the weights are known, the KV figures are not vLLM's.

:func:`plan_kv_cache` then follows ``vllm/v1/core/kv_cache_utils.py`` (0.9-0.19): with the hybrid KV
cache manager, layers are grouped by type into groups of equal size (the smallest type count), every
group shares one page size, ``num_blocks = available // page // group_size``; a request at
``max_model_len`` needs ``cdiv(len, block)`` blocks in a full-attention group, ``cdiv(min(window - 1 +
max_num_batched_tokens, len), block) + 1`` in a sliding group, ``cdiv(min(chunk +
max_num_batched_tokens, len), block)`` in a chunked group and one block in a state group; a type whose
token takes fewer bytes has proportionally more tokens per block (Gemma 4's full layers).
Without the hybrid manager (V0, V1 before 0.9, or when vLLM turns it off) every attention layer
holds the full context.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from ..model.shapes import ModelShape
from . import kv_dtypes, nas
from .versions import Behaviour

LayerKind = Literal["full", "sliding", "chunked", "state"]
#: A layer's kind as the config lists it; "none" holds no cache of its own (an MLP or MoE block, a shared layer).
_Kind = str


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class LayerType:
    """Layers of one KV cache type on one GPU (one pipeline stage)."""

    kind: LayerKind
    layers: int
    bytes_per_token: int  # per layer on one GPU (attention); 0 for state layers
    span: int | None = None  # sliding window or attention chunk, tokens
    state_bytes: int = 0  # per layer and request on one GPU (state layers)
    #: state layers: blocks a request holds: one, two (Mamba cache mode ``align``) or one per block of tokens
    #: (``all``); vLLM's modes under ``--enable-prefix-caching`` (:func:`with_mamba_cache_mode`)
    state_blocks: Literal["one", "align", "all"] = "one"
    #: state layers: blocks a request holds beyond ``state_blocks`` for the draft tokens of a speculative method
    #: (vLLM's ``MambaSpec.num_speculative_blocks``, :func:`with_speculative_blocks`)
    spec_blocks: int = 0
    #: tokens of this type's own block before pages are unified, where it is not the engine's block size: from
    #: 0.25 a sliding-window layer takes the attention backend's smallest kernel block (16), not ``--block-size``
    #: (:func:`effective_types`); 0: the engine's block size
    block: int = 0


@dataclass(frozen=True)
class Layout:
    """The attention layout of one model on one GPU, before vLLM groups it."""

    types: tuple[LayerType, ...]
    mla: bool = False
    note: str = ""
    modelled: bool = True  # False: vLLM lays this model's KV cache out in a way not modelled here

    @property
    def attention_layers(self) -> int:
        return sum(t.layers for t in self.types if t.kind != "state")

    @property
    def hybrid(self) -> bool:
        return len({t.kind for t in self.types}) > 1 or any(t.kind != "full" for t in self.types)


def _int(cfg: dict[str, object], key: str) -> int | None:
    v = cfg.get(key)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


_SLIDING = frozenset({"sliding_attention", "sliding", "local", "local_attention"})
#: "conv": LFM2's short-convolution layers (their conv state, :func:`short_conv_state_bytes`)
_STATE = frozenset({"linear_attention", "mamba", "linear", "mamba2", "gated_deltanet", "deltanet", "conv"})
_CHUNKED = frozenset({"chunked_attention", "chunked_local_attention"})
_FULL = frozenset({"full_attention", "full", "global", "global_attention", "attention"})
_NO_CACHE = frozenset({"mlp", "moe"})  # Nemotron-H's layers_block_type entries without a mixer that caches
_KNOWN_LAYER_TYPES = _SLIDING | _STATE | _CHUNKED | _FULL | _NO_CACHE
#: Nemotron-H's hybrid_override_pattern: Mamba2, attention, MLP, MoE (NemotronHConfig._pattern_to_list)
_PATTERN = {"M": "state", "*": "full", "-": "none", "E": "none"}
#: config.json keys that size a Mamba2 mixer (Nemotron-H spells them one way, Granite 4.0-H another)
_MAMBA_KEYS = ("mamba_num_heads", "mamba_n_heads", "ssm_state_size", "mamba_d_state")


def _is_mamba(cfg: dict[str, object]) -> bool:
    return any(k in cfg for k in _MAMBA_KEYS) and "linear_num_key_heads" not in cfg


def _kind_of(name: str) -> str:
    if name in _SLIDING:
        return "sliding"
    if name in _STATE:
        return "state"
    if name in _CHUNKED:
        return "chunked"
    if name in _NO_CACHE:
        return "none"
    return "full"


def _kda_layers(cfg: dict[str, object]) -> list[int] | None:
    """Kimi Linear's KDA layers, 1-based (``linear_attn_config.kda_layers``; vLLM's ``is_kda_layer``)."""
    lac = cfg.get("linear_attn_config")
    kda = lac.get("kda_layers") if isinstance(lac, dict) else None
    if isinstance(kda, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in kda):
        return kda
    return None


def _jamba_kinds(cfg: dict[str, object], n: int) -> list[str] | None:
    """Jamba's layers: attention where ``i % attn_layer_period == attn_layer_offset``, Mamba1 elsewhere
    (``JambaConfig.layers_block_type``, which vLLM's ``JambaModel`` reads); None when the config gives no period."""
    period, offset = _int(cfg, "attn_layer_period"), _int(cfg, "attn_layer_offset")
    if not period or offset is None or not 0 <= offset < period:
        return None
    return ["full" if i % period == offset else "state" for i in range(n)]


def _listed_kinds(cfg: dict[str, object], n: int) -> list[str] | None:
    """One kind per layer from a list the config gives (``hybrid_override_pattern``, ``layers_block_type``,
    ``layer_types``, Kimi Linear's ``linear_attn_config.kda_layers``), or None when it gives none of length
    ``num_hidden_layers``."""
    kda = _kda_layers(cfg)
    if kda is not None:
        return ["state" if i + 1 in kda else "full" for i in range(n)]
    if str(cfg.get("model_type") or "") == "jamba":
        return _jamba_kinds(cfg, n)
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and len(pattern) == n and set(pattern) <= set(_PATTERN):
        return [_PATTERN[c] for c in pattern]
    for key in ("layers_block_type", "layer_types"):
        types = cfg.get(key)
        if isinstance(types, list) and len(types) == n:
            return [_kind_of(str(t)) for t in types]
    return None


def unmodelled_reason(model: ModelShape) -> str:
    """Why vLLM's KV cache for this model is not modelled here, or "" when it is.

    Read from the config.json keys that name such a layout: ``compress_ratios`` (DeepSeek-V4's compressed
    sparse attention over a sliding window, vLLM's ``MLAAttentionSpec`` with a ``compress_ratio``) or
    DeepSeek-V4's ``layer_types`` (``compressed_sparse_attention``, ``heavily_compressed_attention``),
    Mamba layers whose positions no ``hybrid_override_pattern`` / ``layers_block_type`` / ``layer_types`` of
    ``num_hidden_layers`` entries gives (Falcon-H1's parallel mixers; Jamba's ``attn_layer_period`` and
    ``attn_layer_offset`` give them), Mamba1 mixers other than Jamba's, ``attn_type_list`` entries of 0
    (MiniMax-Text-01 / M1's lightning attention;
    MiniMax-M2 lists only 1, softmax), Llama-Nemotron ``block_configs`` whose attention layers differ in KV heads
    (:func:`.nas.unmodelled_reason`), and ``layer_types`` entries of a kind not known here.
    """
    cfg = model.hf_config
    if nas.is_nas(cfg):
        return nas.unmodelled_reason(cfg, model.num_attention_heads, model.hidden_size)
    ratios = cfg.get("compress_ratios")
    if isinstance(ratios, list) and any(isinstance(r, int) and r > 1 for r in ratios):
        return "compressed sparse attention (compress_ratios, DeepSeek-V4)"
    model_type = str(cfg.get("model_type") or model.extra.get("model_type") or "")
    if model_type == "jamba":
        if _jamba_kinds(cfg, model.num_hidden_layers) is None:
            return "Mamba1 layers whose positions the config does not give (attn_layer_period, attn_layer_offset)"
    elif _is_mamba(cfg) or model_type in ("falcon_h1", "bamba"):
        if cfg.get("mamba_d_state") is not None and "mamba_n_heads" not in cfg and "mamba_num_heads" not in cfg:
            return "Mamba1 layers between the attention layers"
        if _listed_kinds(cfg, model.num_hidden_layers) is None:
            return "Mamba layers whose positions the config does not list"
    attn_types = cfg.get("attn_type_list")
    if isinstance(attn_types, list) and 0 in attn_types:  # 0: lightning attention, 1: softmax (MiniMax-M2: all 1)
        return "lightning (linear) attention layers (attn_type_list, MiniMax-Text-01 / M1)"
    types = cfg.get("layer_types")
    if isinstance(types, list):
        unknown = sorted({str(t) for t in types} - _KNOWN_LAYER_TYPES)
        if unknown:
            return f"layer types {', '.join(unknown)} (layer_types)"
    return ""


def _layer_kinds(model: ModelShape) -> tuple[list[str], int | None, int | None]:
    """One kind per layer ('full', 'sliding', 'chunked', 'state', or 'none' for a layer without a cache of
    its own), the sliding window, the chunk size."""
    kinds, window, chunk = _listed_or_derived_kinds(model)
    shared = _int(model.hf_config, "num_kv_shared_layers") or 0
    if 0 < shared < len(kinds):  # vLLM gives these layers a kv_sharing_target_layer_name: no cache
        kinds = kinds[:len(kinds) - shared] + ["none"] * shared
    return kinds, window, chunk


def _listed_or_derived_kinds(model: ModelShape) -> tuple[list[str], int | None, int | None]:
    cfg = model.hf_config
    n = model.num_hidden_layers
    window = _int(cfg, "sliding_window")
    chunk = _int(cfg, "attention_chunk_size")
    model_type = str(cfg.get("model_type", model.extra.get("model_type", "")) or "")
    if nas.is_nas(cfg):  # Llama-Nemotron: a no-op attention builds no Attention module, so no cache
        try:
            blocks = nas.nas_blocks(cfg, model.num_attention_heads, model.hidden_size)
        except ValueError:
            blocks = None
        if blocks and len(blocks) == n:
            return ["full" if b.kv_heads else "none" for b in blocks], None, None
    listed = _listed_kinds(cfg, n)
    if listed is not None:
        if "sliding" in listed and not window:
            listed = ["full" if k == "sliding" else k for k in listed]
        return listed, window, chunk
    interval = _int(cfg, "full_attention_interval")
    if interval and interval > 1 and any(k.startswith("linear_") for k in cfg):
        return ["full" if (i + 1) % interval == 0 else "state" for i in range(n)], None, None
    if chunk:
        nope = cfg.get("no_rope_layers")
        if isinstance(nope, list) and len(nope) == n:
            return ["chunked" if x else "full" for x in nope], None, chunk
        step = _int(cfg, "nope_layer_interval") or 4  # Llama 4: every 4th layer has no RoPE
        return ["full" if (i + 1) % step == 0 else "chunked" for i in range(n)], None, chunk
    # A window at or above the context still slides: vLLM sets CacheConfig.sliding_window from config.json whatever its
    # size and every Attention layer without a window of its own takes it (engine/arg_utils.py create_engine_config,
    # ModelConfig.get_sliding_window, read in 0.14.1 and 0.29.0), so SlidingWindowSpec admits cdiv(max_model_len, block)
    # + 1 blocks a request (Phi-4-mini's 262,144 at 0.29.0: 9,503 blocks logged as 151,973 tokens at 32,768).
    if not window or cfg.get("use_sliding_window") is False:
        return ["full"] * n, None, None
    if model_type.startswith("gemma3"):
        pattern = _int(cfg, "sliding_window_pattern") or 6
        return ["full" if (i + 1) % pattern == 0 else "sliding" for i in range(n)], window, None
    if model_type.startswith("gemma2") or (model_type.startswith("gemma") and cfg.get("interleaved_sliding_window")):
        return ["sliding" if i % 2 == 0 else "full" for i in range(n)], window, None
    max_window_layers = _int(cfg, "max_window_layers")
    if cfg.get("use_sliding_window") and max_window_layers is not None:
        return ["sliding" if i >= max_window_layers else "full" for i in range(n)], window, None
    return ["sliding"] * n, window, None


def _stage_slice(n: int, pp: int, stage: int) -> range:
    """Layers of one pipeline stage, as vLLM's ``get_pp_indices`` (vllm/distributed/utils.py) splits them:
    ``n // pp`` each, and the ``n % pp`` left over one each to the stages before the last, from the
    second-to-last backwards (the first and last stages also hold the embedding and the LM head).

    Counted, not listed: the stages ``pp - 1 - extra`` to ``pp - 2`` hold one more, so ``stage`` starts after
    ``per * stage`` layers and the surplus of the stages before it. A list of every stage's size, made for each of
    the ``pp`` stages asked, was quadratic in ``pp``: fuzz_campaign lint seed 8110 input 750
    (``--pipeline-parallel-size 32768``, a 1.9 KB manifest) took 99 s of CPU."""
    per, extra = divmod(n, pp)
    first_extra = pp - 1 - extra
    start = per * stage + max(0, min(stage, pp - 1) - first_extra)
    size = per + (1 if first_extra <= stage < pp - 1 else 0)
    return range(start, start + size)


def differing_stages(n: int, pp: int) -> range | tuple[int, ...]:
    """The pipeline stages of ``n`` layers over ``pp`` stages whose layer slices (:func:`_stage_slice`) are all those
    any stage has: every stage where each holds a layer or so, else the first and last, one middle stage of none, and
    the ``n`` middle stages of one. What a stage's layers decide (its cache, its reads, its mixers' work), asked of
    these, is asked of every slice: a --pipeline-parallel-size of a million (a typo, a fuzzer's) took a layout per
    stage, seconds for each sizing (fuzz21)."""
    pp = max(pp, 1)
    if pp <= n + 3:
        return range(pp)
    return tuple(sorted({0, pp - 1, 1, *range(pp - 1 - n, pp - 1)}))


def _state_bytes(model: ModelShape, tp: int, dtype_bytes: int, spec_tokens: int = 0,
                 dt: StateDtypes | None = None) -> int:
    """Per layer and request on one GPU: a Gated DeltaNet's conv and recurrent state (its conv state
    ``linear_conv_kernel_dim - 1 + spec_tokens`` columns wide: :func:`gdn_conv_columns`), or a Mamba2 mixer's
    (:func:`mamba2_state_bytes`); the states' dtypes as ``dt`` resolves them (:func:`state_dtype_bytes`)."""
    cfg = model.hf_config
    dt = dt or AUTO_STATE
    if _kda_layers(cfg) is not None:
        return kda_state_bytes(model, tp, dtype_bytes, dt)
    if "conv_L_cache" in cfg:
        return short_conv_state_bytes(model, tp, dtype_bytes, dt)
    if str(cfg.get("model_type") or model.extra.get("model_type") or "") == "jamba":
        return mamba1_state_bytes(model, tp, dtype_bytes, dt)
    if _is_mamba(cfg):
        return mamba2_state_bytes(model, tp, dtype_bytes, dt)
    conv_bytes, ssm_bytes = state_dtype_bytes(model, dt, dtype_bytes)
    kh = _int(cfg, "linear_num_key_heads") or 0
    vh = _int(cfg, "linear_num_value_heads") or kh
    kd = _int(cfg, "linear_key_head_dim") or 0
    vd = _int(cfg, "linear_value_head_dim") or kd
    kernel = _int(cfg, "linear_conv_kernel_dim") or 4
    if kh and kd:
        conv = (2 * kh * kd + vh * vd) // tp * gdn_conv_columns(kernel, spec_tokens)
        ssm = (vh // max(1, min(tp, vh))) * kd * vd if vh >= tp else kd * vd
        return conv * conv_bytes + ssm * (ssm_bytes if dt.gdn_ssm else conv_bytes)
    d_state = _int(cfg, "mamba_d_state") or _int(cfg, "ssm_state_size") or 128
    inner = 2 * model.hidden_size
    return (inner // tp) * (d_state + 3) * conv_bytes


def gdn_conv_columns(kernel: int, spec_tokens: int) -> int:
    """Columns of a Gated DeltaNet layer's conv state: ``conv_kernel_size - 1 + num_spec``, where ``num_spec`` is
    ``--speculative-config``'s ``num_speculative_tokens`` (0 without a draft), so a request's state holds the
    draft tokens' inputs too (``MambaStateShapeCalculator.gated_delta_net_state_shape``,
    ``model_executor/layers/mamba/mamba_utils.py``, called with ``speculative_config.num_speculative_tokens`` by
    ``get_mamba_state_shape_from_config`` in ``models/qwen3_next.py`` (0.11.0, 0.14.1, 0.25.1) and
    ``models/qwen3_5.py`` (0.25.1)). A wider state makes the page the attention block is aligned to larger: a
    0.25.1 log of Qwen3.6-35B-A3B with MTP and 3 draft tokens aligns its attention block at 1,072 tokens, 1,056
    without them."""
    return kernel - 1 + max(spec_tokens, 0)


def mamba2_state_bytes(model: ModelShape, tp: int, dtype_bytes: int = 2, dt: StateDtypes | None = None) -> int:
    """One Mamba2 mixer's state per request on one GPU, as vLLM's ``MambaStateShapeCalculator.mamba2_state_shape``
    sizes it: a conv state of ``(conv_kernel - 1) × (intermediate + 2 × groups × d_state) / TP`` values in the
    model dtype (groups raised to TP when TP does not divide them, ``extra_groups_for_head_shards``) and an SSM
    state of ``heads / TP × head_dim × d_state`` values, float32 for Nemotron-H (``NemotronHForCausalLMConfig``
    takes config.json's ``mamba_ssm_cache_dtype``, float32 when absent), the model dtype otherwise.

    Keys: Nemotron-H ``mamba_num_heads``, ``mamba_head_dim``, ``n_groups``, ``ssm_state_size``, ``conv_kernel``
    (intermediate = heads × head_dim); Granite 4.0-H ``mamba_n_heads``, ``mamba_d_head``, ``mamba_n_groups``,
    ``mamba_d_state``, ``mamba_d_conv``, ``mamba_expand`` (intermediate = expand × hidden).
    """
    cfg = model.hf_config
    heads = _int(cfg, "mamba_num_heads") or _int(cfg, "mamba_n_heads") or 128
    expand = _int(cfg, "mamba_expand") or _int(cfg, "expand") or 2
    head_dim = _int(cfg, "mamba_head_dim") or _int(cfg, "mamba_d_head") or expand * model.hidden_size // heads
    groups = _int(cfg, "n_groups") or _int(cfg, "mamba_n_groups") or _int(cfg, "mamba_num_groups") or 1
    state = _int(cfg, "ssm_state_size") or _int(cfg, "mamba_d_state") or 128
    kernel = _int(cfg, "conv_kernel") or _int(cfg, "mamba_d_conv") or 4
    intermediate = heads * head_dim
    if groups % tp:
        groups += tp - groups
    conv_bytes, ssm_bytes = state_dtype_bytes(model, dt or AUTO_STATE, dtype_bytes)
    conv = (intermediate + 2 * groups * state) // tp * (kernel - 1) * conv_bytes
    ssm = heads // tp * head_dim * state * ssm_bytes
    return conv + ssm


def short_conv_state_bytes(model: ModelShape, tp: int, dtype_bytes: int = 2, dt: StateDtypes | None = None) -> int:
    """One LFM2 short-convolution layer's state per request on one GPU, as vLLM sizes it
    (``MambaStateShapeCalculator.short_conv_state_shape`` in ``model_executor/layers/mamba/mamba_utils.py``, called by
    ``get_mamba_state_shape_from_config`` in ``models/lfm2.py`` with ``conv_dim`` and in ``models/lfm2_moe.py`` with
    ``hidden_size``, 0.34.0): a conv state of ``(conv_L_cache - 1) × width / TP`` values in the model dtype
    (``short_conv_state_dtype``: ``mamba_cache_dtype`` "auto"), nothing else; neither model passes the draft tokens
    (``num_spec`` stays 0). LFM2-1.2B: 2 × 2048 × 2 = 8,192 bytes a layer."""
    cfg = model.hf_config
    moe = str(cfg.get("model_type") or model.extra.get("model_type") or "") == "lfm2_moe"
    width = model.hidden_size if moe else (_int(cfg, "conv_dim") or model.hidden_size)
    conv_bytes = state_dtype_bytes(model, dt or AUTO_STATE, dtype_bytes)[0]
    return ((_int(cfg, "conv_L_cache") or 3) - 1) * (width // tp) * conv_bytes


def mamba1_state_bytes(model: ModelShape, tp: int, dtype_bytes: int = 2, dt: StateDtypes | None = None) -> int:
    """One Mamba1 mixer's state per request on one GPU (Jamba), as vLLM's
    ``MambaStateShapeCalculator.mamba1_state_shape`` sizes it: a conv state of ``intermediate / TP ×
    (mamba_d_conv - 1)`` and an SSM state of ``intermediate / TP × mamba_d_state`` values, both in the model dtype
    (``mamba_cache_dtype`` and ``mamba_ssm_cache_dtype`` "auto"; each flag as :func:`state_dtype_bytes` reads it),
    intermediate = ``mamba_expand`` × hidden."""
    cfg = model.hf_config
    inner = (_int(cfg, "mamba_expand") or 2) * model.hidden_size // tp
    conv_bytes, ssm_bytes = state_dtype_bytes(model, dt or AUTO_STATE, dtype_bytes)
    conv = ((_int(cfg, "mamba_d_conv") or 4) - 1) * conv_bytes
    return inner * (conv + (_int(cfg, "mamba_d_state") or 16) * ssm_bytes)


def kda_state_bytes(model: ModelShape, tp: int, dtype_bytes: int = 2, dt: StateDtypes | None = None) -> int:
    """One Kimi Delta Attention layer's state per request on one GPU (``MambaStateShapeCalculator.kda_state_shape``
    and ``kda_state_dtype``): a conv state of ``(short_conv_kernel_size - 1) × 3 × heads × head_dim / TP`` values
    in the model dtype (q, k and v) and a recurrent state of ``heads / TP × head_dim × head_dim`` float32 values."""
    lac = model.hf_config.get("linear_attn_config")
    lac = lac if isinstance(lac, dict) else {}
    heads = _int(lac, "num_heads") or model.num_attention_heads
    dim = _int(lac, "head_dim") or 128
    kernel = _int(lac, "short_conv_kernel_size") or 4
    conv = 3 * heads * dim // tp * (kernel - 1) * state_dtype_bytes(model, dt or AUTO_STATE, dtype_bytes)[0]
    return conv + heads // tp * dim * dim * 4


#: bytes of one value of the ``--mamba-cache-dtype`` / ``--mamba-ssm-cache-dtype`` choices (``MambaDType``,
#: ``config/cache.py``: "float16" from 0.13.0, "bfloat16" from 0.22.0; flags.MAMBA_DTYPE_SINCE)
_STATE_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}


class StateDtypes(NamedTuple):
    """What sets the dtypes of a state layer's cache: the two flags as written and what the release does with them.

    ``mamba``: ``--mamba-cache-dtype`` (the conv state, and the recurrent state where ``ssm`` is ``auto``; ``auto``:
    the model dtype). ``ssm``: ``--mamba-ssm-cache-dtype`` (the recurrent state). ``gdn_ssm``: whether a Gated
    DeltaNet layer's recurrent state takes ``ssm`` (``gated_delta_net_state_dtype`` passes it from 0.17.1; in 0.14.1
    and 0.15.0 both states take ``mamba``). ``nemotron_h_ssm``: Nemotron-H's recurrent state where ``ssm`` is
    ``auto`` and config.json names no ``mamba_ssm_cache_dtype`` (``NemotronHForCausalLMConfig``: float16 in 0.14.1 -
    0.19.0, ``DEFAULT_MAMBA_SSM_CACHE_DTYPE`` float32 from 0.20.0)."""

    mamba: str = "auto"
    ssm: str = "auto"
    gdn_ssm: bool = True
    nemotron_h_ssm: str = "float32"


#: both flags at ``auto``, as a layout is sized where no release or manifest says otherwise
AUTO_STATE = StateDtypes()


def state_dtype_bytes(model: ModelShape, dt: StateDtypes, dtype_bytes: int = 2) -> tuple[int, int]:
    """Bytes of one conv-state value and one recurrent (temporal) state value, as vLLM resolves the two flags
    (``MambaStateDtypeCalculator._mamba_state_dtype``, ``model_executor/layers/mamba/mamba_utils.py``, 0.14.1 -
    0.34.0): the conv state takes ``--mamba-cache-dtype`` (``auto``: the model dtype, ``dtype_bytes``); the recurrent
    state ``--mamba-ssm-cache-dtype``, and where that is ``auto`` the conv state's dtype — after the model's own
    hook in ``model_executor/models/config.py`` has replaced an ``auto``: config.json's ``mamba_ssm_cache_dtype`` for
    Nemotron-H (else ``dt.nemotron_h_ssm``), config.json's ``mamba_ssm_dtype`` for Qwen3.5 and Qwen3.6
    (``Qwen3_5ForConditionalGenerationConfig.verify_and_update_config``, 0.17.1 - 0.34.0; their published configs
    say float32, which is taken where the entry does not keep the key, and a 0.27.1 log of Qwen3.6-27B-FP8 shows it:
    attention block 784, the page of a float32 state). An explicit ``--mamba-ssm-cache-dtype`` wins over both hooks
    (Qwen3.5's warns and uses it). Qwen3-Next, Mamba and Jamba have no hook. A value outside the choices counts as
    ``auto`` (vLLM's parser would refuse it)."""
    cfg = model.hf_config
    conv = _STATE_DTYPE_BYTES.get(dt.mamba, dtype_bytes)
    ssm = dt.ssm
    if ssm == "auto":
        model_type = str(cfg.get("model_type") or model.extra.get("model_type") or "")
        if model_type.startswith("nemotron_h"):
            ssm = str(cfg.get("mamba_ssm_cache_dtype") or dt.nemotron_h_ssm)
        elif model_type.startswith("qwen3_5"):
            ssm = str(cfg.get("mamba_ssm_dtype") or "float32")
    return conv, _STATE_DTYPE_BYTES.get(ssm, conv)


def indexer_bytes(model: ModelShape) -> int:
    """DeepSeek-V3.2's sparse-attention indexer keys, per layer and token: ``index_head_dim`` fp8 values and
    one fp32 scale per 128 of them (``DeepseekV32IndexerCache``: 128 + 4 = 132 bytes, whatever the KV dtype);
    0 for other models."""
    dim = indexer_head_dim(model)
    return dim + cdiv(dim, 128) * 4 if dim else 0


def indexer_head_dim(model: ModelShape) -> int:
    """DeepSeek-V3.2's ``index_head_dim`` (128), 0 for a model without the sparse-attention indexer."""
    cfg = model.extra.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}
    dim = cfg.get("index_head_dim", model.hf_config.get("index_head_dim"))
    if model.mla is None or not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
        return 0
    return dim


#: config.json keys by which a DeepSeek-V3.2-style checkpoint shares top-k across layers (IndexCache, vllm#37735)
INDEX_CACHE_KEYS = ("index_topk_freq", "index_topk_pattern", "index_skip_topk_offset")


def indexer_layer_ids(model: ModelShape) -> tuple[int, ...]:
    """The decoder layers that build a sparse-attention indexer, and so cache its keys and hold its weights: every
    layer of DeepSeek-V3.2, only the "full" ones of a checkpoint whose config.json shares top-k across layers
    (IndexCache, vllm#37735; GLM-5.2: ``index_topk_freq`` 4, ``index_skip_topk_offset`` 3, so layers 0, 1, 2, 6, 10,
    ..., 74: 21 of 78). vLLM's rule (``DeepseekV2MLAAttention.__init__``, ``model_executor/models/deepseek_v2.py``,
    read in 0.24.0, 0.25.1, 0.26.0 and 0.29.0): without ``index_topk_pattern`` a layer shares where
    ``max(layer - offset + 1, 0) % index_topk_freq != 0`` (offset 2 and freq 1 by default), with it where its letter
    is ``S`` (a layer past the pattern keeps its indexer); a sharing layer builds no ``Indexer``, so no
    ``DeepseekV32IndexerCache`` and no indexer weights (the loader drops any the checkpoint ships). Before 0.24
    every layer builds one (``Behaviour.shared_indexers_unbuilt``: ``sizing.as_loaded`` drops the keys). The
    multi-token-prediction layer (always an indexer) is not a decoder layer here. Empty without the indexer."""
    if not indexer_bytes(model):
        return ()
    return index_topk_layer_ids(model.hf_config, model.num_hidden_layers)


def index_topk_layer_ids(cfg: dict[str, Any], n: int) -> tuple[int, ...]:
    """Of ``n`` decoder layers, those that compute their own top-k under config.json ``cfg`` (vLLM's rule, as
    :func:`indexer_layer_ids` gives it): all of them without ``index_topk_freq`` or ``index_topk_pattern``."""
    pattern = cfg.get("index_topk_pattern")
    if isinstance(pattern, str):
        return tuple(i for i in range(n) if not (i < len(pattern) and pattern[i] == "S"))
    freq, offset = cfg.get("index_topk_freq"), cfg.get("index_skip_topk_offset")
    freq = freq if isinstance(freq, int) and not isinstance(freq, bool) and freq > 0 else 1
    offset = offset if isinstance(offset, int) and not isinstance(offset, bool) else 2
    return tuple(i for i in range(n) if max(i - offset + 1, 0) % freq == 0)


#: fp8 MLA latent of DeepSeek-V3.2's sparse FlashMLA (``fp8_ds_mla``): 512 fp8 values, 4 fp32 scales (one per
#: 128) and the 64 rope dimensions kept bf16 = 656 bytes per layer and token.
FP8_DS_MLA_BYTES = 512 + 4 * 4 + 64 * 2


def mla_block_size(model: ModelShape, capability: tuple[int, int] | None, vendor: str, version: tuple[int, ...],
                   requested: int | None) -> int:
    """The KV block size vLLM's MLA backend forces (``vllm/platforms/cuda.py`` ``check_and_update_config``).

    * DeepSeek-V3.2 (sparse FlashMLA): 64;
    By the GPU's compute capability (``capability``; None: not known, as elsewhere), not the ``blackwell`` label:

    * Hopper (9.0): FlashMLA, 64 (the default MLA backend since vllm#14451, 0.8);
    * the 10.x family (B200, B300, GB200): CUTLASS MLA, 128 (default from vllm#21626, 0.10.1) until
      FlashInfer MLA became the default (vllm#32339, 0.14), which takes 32 or 64 (64 unless asked);
    * elsewhere (Ampere, Ada, 12.x: RTX 5090 and RTX PRO Blackwell; ROCm without AITER): Triton MLA, the block size
      asked (16 by default).
    """
    if indexer_bytes(model):
        return 64
    if vendor == "amd":
        return requested or 16
    if capability is not None and capability[0] == 9:
        return 64
    if capability is not None and capability[0] == 10:
        if version >= (0, 14, 0):
            return requested if requested in (32, 64) else 64
        if version >= (0, 10, 1):
            return 128
    return requested or 16


#: layout()'s answers: (model, layout) by (id(model), tp, pp, kv_bytes, stage, mla_cache, spec_tokens, kv_dtype,
#: state); a Layout is immutable.
_LAYOUTS: dict[tuple[int, int, int, int, int, bool, int, str, StateDtypes], tuple[ModelShape, Layout]] = {}


def layout(model: ModelShape, tp: int, pp: int, kv_bytes: int, stage: int = 0, mla_cache: bool = True,
           spec_tokens: int = 0, kv_dtype: str = "", state: StateDtypes = AUTO_STATE) -> Layout:
    """The KV layout of pipeline stage ``stage`` of the model on one GPU.

    Without ``mla_cache`` (vLLM before 0.7) an MLA model caches every attention head at the head
    size padded to 256, as ordinary attention. ``spec_tokens``: the draft tokens a speculative method proposes a
    step, which widen a Gated DeltaNet layer's state (:func:`gdn_conv_columns`). ``kv_dtype``: a packed KV cache
    dtype (:data:`.kv_dtypes.PACKED`, vLLM 0.33+), whose slots replace ``kv_bytes`` × the head size
    (:func:`head_pair_bytes`); "" for an element size. ``state``: the Mamba cache dtypes (:class:`StateDtypes`).
    """
    key = (id(model), tp, pp, kv_bytes, stage, mla_cache, spec_tokens, kv_dtype, state)
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    lay = _layout(model, tp, pp, kv_bytes, stage, mla_cache, spec_tokens, kv_dtype, state)
    if len(_LAYOUTS) >= 4096:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (model, lay)
    return lay


def rotary_dim(model: ModelShape, head: int) -> int:
    """The rotary dimensions of a head: ``partial_rotary_factor`` (or ``rope_parameters``') × the head size, as
    vLLM's Octave format reads them (``v1/attention/ops/rocm_octave.py`` ``rope_dim_from_hf_config``, 0.33.0); the
    whole head where config.json (or the catalog entry's ``extra.config``) names no factor."""
    cfg = model.hf_config
    factor: Any = cfg.get("partial_rotary_factor")
    extra = model.extra.get("config")
    if factor is None and isinstance(extra, dict):
        factor = extra.get("partial_rotary_factor")
    if factor is None:
        params = cfg.get("rope_parameters")
        factor = params.get("partial_rotary_factor", 1.0) if isinstance(params, dict) else 1.0
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        return head
    return int(head * factor)


def head_pair_bytes(model: ModelShape, heads: int, head: int, kv_bytes: int, kv_dtype: str = "") -> int:
    """K and V of ``heads`` KV heads of size ``head`` for one token: ``2 × heads × head × kv_bytes``, or in a packed
    dtype ``heads`` slots of :func:`.kv_dtypes.head_slot_bytes`."""
    if kv_dtype and kv_dtype in kv_dtypes.PACKED and kv_dtype != "nvfp4_ds_mla":
        return heads * kv_dtypes.head_slot_bytes(kv_dtype, head, rotary_dim(model, head))
    return 2 * heads * head * kv_bytes


def _layout(model: ModelShape, tp: int, pp: int, kv_bytes: int, stage: int, mla_cache: bool,
            spec_tokens: int = 0, kv_dtype: str = "", state: StateDtypes = AUTO_STATE) -> Layout:
    reason = unmodelled_reason(model)
    if reason:
        n = len(_stage_slice(model.num_hidden_layers, pp, stage))
        if model.mla is not None:
            per = (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * kv_bytes
        else:
            per = head_pair_bytes(model, max(1, math.ceil(model.num_key_value_heads / tp)), model.head_dim, kv_bytes,
                                  kv_dtype)
        return Layout((LayerType("full", n, per),), mla=model.mla is not None, modelled=False,
                      note=f"KV layout not modelled: {reason}; the KV figures take every layer as full attention")
    kinds, window, chunk = _layer_kinds(model)
    kinds = [kinds[i] for i in _stage_slice(len(kinds), pp, stage)]
    if model.mla is not None and mla_cache:
        per = (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * kv_bytes
        index = indexer_bytes(model)
        if index:
            # DeepSeek-V3.2: fp8 KV caches use the fp8_ds_mla layout; each layer with an indexer also caches its keys
            # (UniformTypeKVCacheSpecs: one group, the layers' page sizes add up)
            if kv_dtype == "nvfp4_ds_mla":
                per = kv_dtypes.NVFP4_DS_MLA_BYTES
            else:
                per = FP8_DS_MLA_BYTES if kv_bytes == 1 else per
            layers = _stage_slice(model.num_hidden_layers, pp, stage)
            built = set(indexer_layer_ids(model))
            keyed = sum(1 for i in layers if i in built)
            if keyed == len(layers):
                return Layout((LayerType("full", len(layers), per + index),), mla=True,
                              note=f"DeepSeek-V3.2 caches {index} bytes of indexer keys per layer and token")
            # one page a layer, as _with_boundary_layers: the stage's bytes a token over its layers, rounded up
            mean = -(-(len(layers) * per + keyed * index) // len(layers)) if layers else per
            return Layout((LayerType("full", len(layers), mean),), mla=True,
                          note=(f"DeepSeek-V3.2's indexer keys ({index} bytes a token) on {keyed} of this stage's "
                                f"{len(layers)} layers (the rest share top-k)"))
        states = kinds.count("state")
        if states:  # Kimi Linear: MLA layers between KDA layers, one KDA state per layer and request
            mixed = (LayerType("full", kinds.count("full"), per),
                     LayerType("state", states, 0, state_bytes=_state_bytes(model, tp, 2, dt=state)))
            return Layout(tuple(t for t in mixed if t.layers), mla=True)
        return Layout((LayerType("full", len(kinds), per),), mla=True)
    if model.mla is not None:
        heads = max(1, math.ceil(model.num_attention_heads / tp))
        return Layout((LayerType("full", len(kinds), 2 * heads * 256 * kv_bytes),), note="MLA cached as full heads")
    heads = max(1, math.ceil(model.num_key_value_heads / tp))
    per = head_pair_bytes(model, heads, model.head_dim, kv_bytes, kv_dtype)
    if kv_dtype in kv_dtypes.BOUNDARY_SKIP and set(kinds) == {"full"}:
        return _with_boundary_layers(model, pp, stage, heads, per)
    counts: dict[str, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    types: list[LayerType] = []
    for kind in ("full", "sliding", "chunked", "state"):
        c = counts.get(kind, 0)
        if not c:
            continue
        if kind == "state":
            types.append(LayerType("state", c, 0, state_bytes=_state_bytes(model, tp, 2, spec_tokens, state)))
        elif kind == "full" and "sliding" in counts:
            types.append(LayerType("full", c, _global_bytes(model, tp, kv_bytes, kv_dtype) or per))
        else:
            span = window if kind == "sliding" else chunk if kind == "chunked" else None
            types.append(LayerType(kind, c, per, span))  # type: ignore[arg-type]
    return Layout(tuple(types))


def _with_boundary_layers(model: ModelShape, pp: int, stage: int, heads: int, per: int) -> Layout:
    """A dense model's stage in ``ultraquant_4bit``: vLLM keeps the first and last two layers at the model's dtype
    (``TurboQuantConfig.get_boundary_skip_layers``: ``min(2, layers // 2)`` each end, none for a hybrid;
    ``engine/arg_utils.py`` adds them to ``kv_cache_dtype_skip_layers``, 0.32.0 - 0.34.0) and every layer of the
    stage is full attention of one block size, so one group holds them and its page is their pages added up
    (``UniformTypeKVCacheSpecs``). shardwise's layout has one page a layer: the stage's bytes a token over its layers,
    rounded up (within a byte a layer of vLLM's sum)."""
    total = model.num_hidden_layers
    n = min(2, total // 2)
    skip = set(range(n)) | set(range(total - n, total))
    layers = _stage_slice(total, pp, stage)
    kept = sum(1 for i in layers if i in skip)
    native = 2 * heads * model.head_dim * 2  # the UltraQuant backend runs bf16 models only
    stage_bytes = (len(layers) - kept) * per + kept * native
    mean = -(-stage_bytes // len(layers)) if layers else per
    note = (f"ultraquant_4bit keeps {kept} boundary layer{'s' if kept != 1 else ''} of this stage at bf16"
            if kept else "")
    return Layout((LayerType("full", len(layers), mean),), note=note)


def token_bytes(lay: Layout) -> int:
    """KV bytes one token takes on one GPU of the layout's stage: its attention layers only (a state layer holds a
    constant per request, a layer without a cache of its own nothing); a sliding or chunked layer's token takes as
    many bytes as a full layer's, it only keeps fewer tokens."""
    return sum(t.layers * t.bytes_per_token for t in lay.types if t.kind != "state")


def decode_read_bytes(lay: Layout, context: int) -> int:
    """Bytes one decode step reads from one sequence's cache on one GPU of the layout's stage at ``context``
    tokens: every token of a full layer, at most the window of a sliding layer (``min(context, window)``) and
    the chunk of a chunked layer, and the state of a state layer once."""
    total = 0
    for t in lay.types:
        if t.kind == "state":
            total += t.layers * t.state_bytes
        else:
            tokens = min(context, t.span) if t.kind in ("sliding", "chunked") and t.span else context
            total += t.layers * t.bytes_per_token * max(tokens, 0)
    return total


#: replica_token_bytes()'s answers: (model, bytes) by (id(model), tp, pp, kv_bytes, mla_cache, kv_dtype), as
#: :data:`_LAYOUTS` (every sizing writes it into its result).
_REPLICA_TOKEN_BYTES: dict[tuple[int, int, int, int, bool, str], tuple[ModelShape, int]] = {}


def replica_token_bytes(model: ModelShape, tp: int, pp: int, kv_bytes: int, mla_cache: bool = True,
                        kv_dtype: str = "") -> int:
    """:func:`token_bytes` of the pipeline stage that caches the most per token (every stage's GPUs hold their
    own layers' cache)."""
    key = (id(model), tp, pp, kv_bytes, mla_cache, kv_dtype)
    hit = _REPLICA_TOKEN_BYTES.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    n = max(token_bytes(layout(model, tp, pp, kv_bytes, stage, mla_cache, kv_dtype=kv_dtype))
            for stage in differing_stages(model.num_hidden_layers, pp))
    if len(_REPLICA_TOKEN_BYTES) >= 4096:
        _REPLICA_TOKEN_BYTES.clear()
    _REPLICA_TOKEN_BYTES[key] = (model, n)
    return n


def replica_decode_read_bytes(model: ModelShape, tp: int, pp: int, kv_bytes: int, context: int,
                              mla_cache: bool = True) -> int:
    """:func:`decode_read_bytes` of the pipeline stage that reads the most (the stages run one after another)."""
    return max(decode_read_bytes(layout(model, tp, pp, kv_bytes, stage, mla_cache), context)
               for stage in differing_stages(model.num_hidden_layers, pp))


#: FLOPs a decode step spends per byte of a state layer's state for one sequence: the recurrence scales and updates
#: each element of the state once and reads it out once (two multiply-adds, 4 FLOPs, per 16-bit element). An
#: assumption of this model: a Mamba2 mixer's update (``dt·A`` decay, ``B·x`` input) and readout (``C·h``) and a
#: Gated DeltaNet's delta rule (decay, ``S·k``, rank-one update, ``S·q``) take 4 to 8 FLOPs per element.
STATE_FLOPS_PER_BYTE = 2.0


def mixer_flops(model: ModelShape, tp: int, pp: int, context: int) -> float:
    """FLOPs one decode step spends per sequence in the token mixers of one GPU, on the pipeline stage that spends
    most: ``4 × tokens × heads/TP × head_dim`` per attention layer (q·K and p·V over the tokens it attends: the
    context on a full layer, at most the window or chunk on a sliding or chunked one; a KV-shared layer attends over
    the cache it reads), :data:`STATE_FLOPS_PER_BYTE` × its state per linear-attention or Mamba layer, nothing for a
    layer without a mixer (Nemotron-H's MLP and MoE blocks). A layout not modelled counts every layer as full
    attention, as its KV figures do."""
    n = model.num_hidden_layers
    if unmodelled_reason(model):
        kinds, window, chunk = ["full"] * n, None, None
    else:
        kinds, window, chunk = _listed_or_derived_kinds(model)
    per_token = 4.0 * max(1, model.num_attention_heads // tp) * model.head_dim
    state = STATE_FLOPS_PER_BYTE * _state_bytes(model, tp, 2) if "state" in kinds else 0.0
    tokens = {"full": context, "sliding": min(context, window) if window else context,
              "chunked": min(context, chunk) if chunk else context}
    worst = 0.0
    for stage in differing_stages(len(kinds), pp):
        total = 0.0
        for i in _stage_slice(len(kinds), max(pp, 1), stage):
            kind = kinds[i]
            if kind == "state":
                total += state
            elif kind in tokens:
                total += per_token * max(tokens[kind], 0)
        worst = max(worst, total)
    return worst


def kv_sharing_split(model: ModelShape, pp: int) -> str:
    """Why vLLM refuses to build the model with ``pp`` pipeline stages because a KV-shared layer
    (``num_kv_shared_layers``: Gemma 3n, Gemma 4 E2B/E4B) lands on a later stage than the layer whose cache it
    reads, or "". Each stage registers only its own attention layers, and ``Attention.__init__`` checks the
    target with ``validate_kv_sharing_target`` (``vllm/attention/utils/kv_sharing_utils.py`` from 0.10,
    ``vllm/model_executor/layers/attention/attention.py`` by 0.20): a target not registered there raises
    "is not a valid Attention layer in the model". The targets are the last layer of each attention type before
    the shared ones (``Gemma4Attention``)."""
    shared = _int(model.hf_config, "num_kv_shared_layers") or 0
    n = model.num_hidden_layers
    if pp <= 1 or not 0 < shared < n or unmodelled_reason(model):
        return ""
    kinds, _, _ = _listed_or_derived_kinds(model)
    first = n - shared
    targets = {kinds[i]: i for i in range(first)}  # the last layer of each kind before the shared ones
    for stage in differing_stages(n, pp):
        layers = _stage_slice(n, pp, stage)
        missing = sorted({targets.get(kinds[i], first - 1) for i in layers if i >= first} - set(layers))
        if missing:
            low, high = max(layers.start, first), layers.stop - 1
            which = f"layer {low}" if low == high else f"layers {low}-{high}"
            return (f"pipeline stage {stage} holds KV-shared {which} "
                    f"whose target layer {missing[0]} is on an earlier stage (vLLM: Specified KV sharing target "
                    "layer ... is not a valid Attention layer in the model)")
    return ""


def _global_bytes(model: ModelShape, tp: int, kv_bytes: int, kv_dtype: str = "") -> int:
    """Gemma 4's full-attention layers per token on one GPU: ``global_head_dim`` (the sliding head size when
    absent) over ``num_global_key_value_heads`` when ``attention_k_eq_v`` is set, else over the KV heads
    (``Gemma4DecoderLayer``); K and V are both cached. 0 when the config names neither key."""
    cfg = model.hf_config
    dim = _int(cfg, "global_head_dim")
    kv = _int(cfg, "num_global_key_value_heads") if cfg.get("attention_k_eq_v") else None
    if not dim and not kv:
        return 0
    heads = max(1, math.ceil((kv or model.num_key_value_heads) / tp))
    return head_pair_bytes(model, heads, dim or model.head_dim, kv_bytes, kv_dtype)


@dataclass(frozen=True)
class KvPlan:
    """The KV cache vLLM builds from ``available`` bytes on one GPU, and what it reports."""

    block_size: int
    page_bytes: int  # one block of one layer
    group_layers: int  # layers per group
    groups: tuple[LayerType, ...]  # one entry per group (its type)
    num_blocks: int
    tokens: int  # "GPU KV cache size: N tokens"
    max_concurrency: float  # "Maximum concurrency for L tokens per request: X"
    hybrid_manager: bool
    note: str = ""


#: Architectures whose model class declares ``SupportsMambaPrefixCaching`` (0.27.1's ``model_executor/models``:
#: mamba, mamba2, jamba, zamba2, falcon_h1, nemotron_h, granitemoehybrid), by config.json ``model_type``: under
#: ``--enable-prefix-caching`` they keep a state per block of tokens (mode ``all``); the other models with state
#: layers (Qwen3-Next, Qwen3.5/3.6, Kimi Linear) two a request (``align``).
MAMBA_PREFIX_CACHING_TYPES = ("mamba", "mamba2", "falcon_mamba", "jamba", "zamba2", "falcon_h1", "nemotron_h",
                              "granitemoehybrid")


def with_mamba_cache_mode(lay: Layout, model: ModelShape, by_class: bool = True) -> Layout:
    """The layout as vLLM caches it with prefix caching on (``MambaModelConfig.verify_and_update_config``, from
    0.17): state layers hold ``all`` or ``align`` blocks (:data:`MAMBA_PREFIX_CACHING_TYPES`) where the release picks
    the mode by the model's class (``by_class``, 0.17 - 0.27), ``align`` for every model where it does not (0.28+:
    ``Behaviour.hybrid_prefix_caching``); other layouts as they are."""
    if not any(t.kind == "state" for t in lay.types):
        return lay
    model_type = str(model.hf_config.get("model_type") or model.extra.get("model_type") or "")
    mode: Literal["all", "align"] = (
        "all" if by_class and model_type.startswith(MAMBA_PREFIX_CACHING_TYPES) else "align")
    types = tuple(dataclasses.replace(t, state_blocks=mode) if t.kind == "state" else t for t in lay.types)
    return dataclasses.replace(lay, types=types)


def with_speculative_blocks(lay: Layout, spec_tokens: int) -> Layout:
    """The layout with each state layer holding ``spec_tokens`` more blocks a request: vLLM gives a Mamba or Gated
    DeltaNet layer's spec ``num_speculative_blocks`` = ``num_speculative_tokens`` (``MambaBase.get_kv_cache_spec``,
    ``model_executor/layers/mamba/abstract.py``), and ``MambaSpec.max_memory_usage_bytes``
    (``v1/kv_cache_interface.py``) charges a request ``1 + num_speculative_blocks`` pages (``2 +`` in the ``align``
    cache mode) in the 0.17.0, 0.19.0 and 0.25.1 sources, so "Maximum concurrency" and the tokens from it (0.20+)
    count them; in 0.14.1 it charges one page whatever the draft. Mode ``all`` (a page per block of tokens) is left
    as it is."""
    if spec_tokens <= 0 or not any(t.kind == "state" for t in lay.types):
        return lay
    types = tuple(dataclasses.replace(t, spec_blocks=spec_tokens) if t.kind == "state" and t.state_blocks != "all"
                  else t for t in lay.types)
    return dataclasses.replace(lay, types=types)


def type_block(t: LayerType, block: int, page: int) -> int:
    """Tokens one page of type ``t`` holds (``unify_kv_cache_spec_page_size``): its own block size (the engine's,
    or :attr:`LayerType.block`) where its page is the largest; a page that divides the largest one evenly has its
    block size raised by the ratio (Gemma 4's full layers, whose tokens take fewer bytes); one that does not is
    padded to the largest page and keeps its block size (0.24+, non-MLA attention), so its pages carry waste."""
    own = t.block or block
    if t.kind == "state" or t.bytes_per_token <= 0 or t.bytes_per_token * own >= page:
        return own if t.kind != "state" else block
    if page % (t.bytes_per_token * own) == 0:
        return page // t.bytes_per_token
    return own


def _blocks_per_request(t: LayerType, length: int, block: int, batched: int) -> int:
    if t.kind == "state":
        if t.state_blocks == "all":
            return cdiv(length, block)
        return (2 if t.state_blocks == "align" else 1) + t.spec_blocks
    if t.kind == "sliding" and t.span:
        return cdiv(min(t.span - 1 + batched, length), block) + 1
    if t.kind == "chunked" and t.span:
        return cdiv(min(t.span + batched, length), block)
    return cdiv(length, block)


def effective_types(lay: Layout, b: Behaviour, engine: str) -> tuple[tuple[LayerType, ...], bool]:
    """The layer types vLLM allocates for, and whether the hybrid KV cache manager is on.

    V0 and V1 before 0.9 give every attention layer the full context; so does V1 when it turns the
    hybrid manager off (Llama 4's chunked local attention before 0.14).
    """
    kinds = {t.kind for t in lay.types}
    hybrid_on = engine == "v1" and b.hybrid_kv == "groups"
    if "chunked" in kinds and not b.chunked_local_hybrid:
        hybrid_on = False
    if kinds <= {"full"} or (hybrid_on and len(lay.types) >= 1):
        types = lay.types
        if hybrid_on and len(lay.types) > 1 and b.sliding_kernel_block:
            types = tuple(dataclasses.replace(t, block=b.sliding_kernel_block) if t.kind == "sliding" and t.span
                          else t for t in types)
        return types, hybrid_on and len(lay.types) > 1
    merged = sum(t.layers for t in lay.types if t.kind != "state")
    per = max((t.bytes_per_token for t in lay.types if t.kind != "state"), default=0)
    out = [LayerType("full", merged, per)] if merged else []
    out += [t for t in lay.types if t.kind == "state" and engine == "v1"]
    return tuple(out), False


def _aligned_block(types: tuple[LayerType, ...], block: int) -> tuple[int, int]:
    """(block size, page bytes): with state layers the attention block grows until its page holds a state."""
    attn = [t for t in types if t.kind != "state"]
    states = [t for t in types if t.kind == "state"]
    per = max((t.bytes_per_token for t in attn), default=0)
    if not states or not per:
        # the largest page of the types, each at its own block size (unify_kv_cache_spec_page_size's max_page_size)
        return block, max((t.bytes_per_token * (t.block or block) for t in attn), default=0)
    state = max(t.state_bytes for t in states)
    if per * block >= state:
        return block, per * block
    aligned = 16 * cdiv(state, 16 * per)
    return aligned, per * aligned


#: _resolved()'s answers by the identity of the layout and the release row (both immutable, both held by the entry
#: so neither identity is reused while it is there), the engine and the block size asked for.
_RESOLVED: dict[tuple[int, int, str, int], tuple[Layout, Behaviour, tuple[tuple[LayerType, ...], bool, int, int]]] = {}


def _resolved(lay: Layout, b: Behaviour, engine: str, block: int) -> tuple[tuple[LayerType, ...], bool, int, int]:
    """``(types, hybrid, block size, page bytes)``: :func:`effective_types` and :func:`_aligned_block` of a layout,
    which a sizing asks for five times."""
    key = (id(lay), id(b), engine, block)
    hit = _RESOLVED.get(key)
    if hit is not None and hit[0] is lay and hit[1] is b:
        return hit[2]
    types, hybrid = effective_types(lay, b, engine)
    aligned, page = _aligned_block(types, block)
    if len(_RESOLVED) >= 4096:
        _RESOLVED.clear()
    _RESOLVED[key] = (lay, b, (types, hybrid, aligned, page))
    return types, hybrid, aligned, page


def kv_group_size(types: tuple[LayerType, ...], b: Behaviour) -> int:
    """Layers per KV cache group (``_get_kv_cache_groups_uniform_page_size``): the smallest type's count,
    every type split into groups of that size and the last one padded. From 0.12 (vllm#29303) the largest
    count instead when it is under 1.25 × the smallest, so near-equal types are not split: a Gemma 2 or
    gpt-oss pipeline stage of 12 sliding and 11 full layers makes one group of each (1 padding layer), not
    two sliding groups and a full one (10 padding layers)."""
    counts = [t.layers for t in types]
    low, high = min(counts), max(counts)
    since = tuple(int(x) for x in b.since.split(".")[:3])
    if since >= (0, 12, 0) and high < low * 1.25:
        return high
    return low


def plan_kv_cache(
    lay: Layout, b: Behaviour, engine: str, available: float, max_model_len: int, batched: int, block: int = 16,
) -> KvPlan:
    """How vLLM splits ``available`` bytes into blocks, and the tokens and concurrency it logs."""
    types, hybrid, block, page = _resolved(lay, b, engine, block)
    avail = max(int(available), 0)
    if not types or page <= 0:
        return KvPlan(block, page, 0, (), 0, 0, 0.0, hybrid)
    if not hybrid or len(types) == 1:
        layers = sum(t.layers for t in types)
        num_blocks = avail // page // layers if layers else 0
        t0 = types[0]
        block = type_block(t0, block, page)
        per_req = _blocks_per_request(t0, max_model_len, block, batched)
        if engine == "v0" or b.concurrency_from_tokens:
            tokens = num_blocks * block
            conc = tokens / max_model_len if max_model_len else 0.0
        else:
            conc = num_blocks / per_req if per_req else 0.0
            tokens = num_blocks * block if b.tokens_report == "blocks" else int(conc * max_model_len)
        return KvPlan(block, page, layers, (t0,), num_blocks, tokens, conc, False)
    group_size = kv_group_size(types, b)
    groups: list[LayerType] = []
    for t in types:
        groups += [t] * cdiv(t.layers, group_size)
    num_blocks = avail // page // group_size
    per_req = sum(_blocks_per_request(g, max_model_len, type_block(g, block, page), batched) for g in groups)
    conc = num_blocks / per_req if per_req else 0.0
    if b.tokens_report == "blocks":
        tokens = num_blocks // len(groups) * block  # the smallest block size of the groups
    else:
        tokens = int(conc * max_model_len)
    padding = sum(cdiv(t.layers, group_size) * group_size - t.layers for t in types)
    note = f"{padding} padding layer{'s' if padding != 1 else ''} in the KV cache groups" if padding else ""
    return KvPlan(block, page, group_size, tuple(groups), num_blocks, tokens, conc, True, note)


def bytes_needed(lay: Layout, b: Behaviour, engine: str, length: int, batched: int, block: int = 16) -> int:
    """KV bytes one request of ``length`` tokens needs (vLLM's check before it refuses to start)."""
    linear = _linear_request_bytes(lay, b, engine, block)
    if linear is not None:  # the same bytes as _request_bytes's, without building it
        constant, per_block, size = linear
        return constant + per_block * cdiv(length, size)
    return _request_bytes(lay, b, engine, batched, block)(length)


def _request_bytes(lay: Layout, b: Behaviour, engine: str, batched: int, block: int) -> Callable[[int], int]:
    """``length -> bytes`` of one request, with the layout's types and block size resolved once."""
    types, hybrid, block, page = _resolved(lay, b, engine, block)

    def needed(length: int) -> int:
        total = 0
        for t in types:
            if t.kind == "state":
                total += t.layers * _blocks_per_request(t, length, block, batched) * page
            elif hybrid:
                total += t.layers * _blocks_per_request(t, length, type_block(t, block, page), batched) * page
            else:
                total += t.layers * cdiv(length, block) * page
        return total

    return needed


#: _linear_request_bytes()'s answers, keyed and held as :data:`_RESOLVED`'s (a sizing asks for them three times).
_LINEAR: dict[tuple[int, int, str, int], tuple[Layout, Behaviour, tuple[int, int, int] | None]] = {}


def _linear_request_bytes(lay: Layout, b: Behaviour, engine: str, block: int) -> tuple[int, int, int] | None:
    """``(constant, per_block, block)`` when one request of ``length`` tokens needs ``constant + per_block ×
    ⌈length / block⌉`` bytes (no sliding window or attention chunk bounds a layer's blocks), else None."""
    key = (id(lay), id(b), engine, block)
    hit = _LINEAR.get(key)
    if hit is not None and hit[0] is lay and hit[1] is b:
        return hit[2]
    linear = _linear_of(lay, b, engine, block)
    if len(_LINEAR) >= 4096:
        _LINEAR.clear()
    _LINEAR[key] = (lay, b, linear)
    return linear


def _linear_of(lay: Layout, b: Behaviour, engine: str, block: int) -> tuple[int, int, int] | None:
    types, hybrid, block, page = _resolved(lay, b, engine, block)
    if len({type_block(t, block, page) for t in types if t.kind != "state"}) > 1:
        return None
    constant = per_block = 0
    for t in types:
        if t.kind == "state" and t.state_blocks == "all":
            per_block += t.layers * page
        elif t.kind == "state":
            constant += t.layers * page * ((2 if t.state_blocks == "align" else 1) + t.spec_blocks)
        elif not hybrid or not (t.kind in ("sliding", "chunked") and t.span):
            per_block += t.layers * page
        else:
            return None
    return constant, per_block, block


def longest_fitting(lay: Layout, b: Behaviour, engine: str, available: float, batched: int, upper: int,
                    block: int = 16) -> int:
    """The longest ``max_model_len`` whose one request fits ``available`` bytes (vLLM's binary search;
    worked out directly when the bytes grow by the same amount with each block of tokens)."""
    hi = max(upper, 1)
    linear = _linear_request_bytes(lay, b, engine, block)
    if linear is not None and math.isfinite(available):
        constant, per_block, size = linear
        room = math.floor(available) - constant  # needed(length) is whole bytes
        if room < per_block:
            return 0  # not even one block
        return hi if per_block == 0 else min(hi, room // per_block * size)
    needed = _request_bytes(lay, b, engine, batched, block)
    lo, best = 1, 0
    if needed(1) > available:
        return 0
    while lo <= hi:
        mid = (lo + hi) // 2
        if needed(mid) <= available:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def concurrency_at(plan: KvPlan, length: int, batched: int) -> float:
    """How many requests of ``length`` tokens the cache holds at once."""
    if not plan.groups or length <= 0:
        return 0.0
    page = plan.page_bytes
    if len(plan.groups) == 1:
        per = _blocks_per_request(plan.groups[0], length, type_block(plan.groups[0], plan.block_size, page),
                                  batched)
    else:
        per = sum(_blocks_per_request(g, length, type_block(g, plan.block_size, page), batched)
                  for g in plan.groups)
    return plan.num_blocks / per if per else 0.0
