"""What the weights of a model take: the precision vLLM loads them at, bytes per parameter, the MXFP4 experts as
vLLM lays them out, the parameters every rank keeps whole, and the KV bytes per token.

Weights per GPU = embeddings ÷ TP (16-bit even in quantised checkpoints) + other parameters × bytes per parameter
÷ TP, per pipeline stage (:func:`.sizing.size_deployment`); with ``--enable-expert-parallel`` the routed experts
are spread over TP × DP ranks instead of split by TP.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..model.shapes import ModelShape, Precision
from ..model.unknown import Undecidable
from ..vllm import kv_dtypes, kv_layout, nas

if TYPE_CHECKING:
    from .sizing import Device

GIB = 1024**3
GB = 10**9

#: Bytes per parameter of the (quantised) linear layers.
BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5 + 2.5 / 128,  # AWQ/GPTQ, group 128: fp16 scale + 4-bit zero point per group
    "mxfp4": 0.5 + 1 / 32,  # e8m0 scale per 32 weights
    "nvfp4": 0.5 + 1 / 16,  # fp8 scale per 16 weights
}

QUANTIZATION_PRECISION: dict[str, Precision] = {
    # AWQ is 4-bit only: ``AWQConfig.__init__`` refuses any other ``w_bit``/``bits`` (awq.py, 0.6.6.post1 to 0.14.1),
    # and AWQ-Marlin takes only 4-bit checkpoints (awq_marlin.py ``TYPE_MAP``)
    "awq": "int4",
    "awq_marlin": "int4",
    "fp8": "fp8",
    "fbgemm_fp8": "fp8",
    # ROCm's per-token-activation, per-channel-weight FP8: a 16-bit checkpoint quantised at load, one byte a weight
    # (``PTPCFp8Config``, ptpc_fp8.py, 0.9.2 to 0.14.1; the vLLM blog's 2025-02-24 post, vLLM 0.7.3+)
    "ptpc_fp8": "fp8",
    "modelopt": "fp8",
    # vLLM's name for ModelOpt's NVFP4 checkpoints (``QuantizationMethods``: "modelopt_fp4" → ModelOptNvFp4Config,
    # vllm/model_executor/layers/quantization/__init__.py); "nvfp4" is shardwise's name for the same precision
    "modelopt_fp4": "nvfp4",
    "int8": "int8",
    "w8a8": "int8",
    "mxfp4": "mxfp4",
    "nvfp4": "nvfp4",
}

#: vLLM's ``--quantization`` methods that read the weights' bits from the checkpoint's own ``quantization_config``
#: and quantise nothing at load time, with the checkpoint ``quant_method`` each loads (vLLM refuses another:
#: ``ModelConfig._verify_quantization``). Their weights are the checkpoint's own precision; on a checkpoint without a
#: matching ``quantization_config`` the bits are not known and shardwise cannot decide (:class:`QuantizationUnknown`).
#: Read in vllm/model_executor/layers/quantization/ of 0.9.2, 0.10.1.1, 0.11.0 and 0.14.1: ``compressed_tensors``,
#: ``quark/quark.py``, ``auto_round.py`` (``bits`` from the config) and ``moe_wna16.py`` (``MoeWNA16Config.from_config``
#: takes a GPTQ or AWQ checkpoint's ``quant_method``, ``bits`` and ``group_size``).
CHECKPOINT_QUANTIZATION: dict[str, frozenset[str]] = {
    "compressed-tensors": frozenset({"compressed-tensors"}),
    "quark": frozenset({"quark"}),
    "auto-round": frozenset({"auto-round", "intel/auto-round"}),
    "moe_wna16": frozenset({"gptq", "awq", "gptq_marlin", "awq_marlin"}),
    # GPTQ admits 2, 3, 4 and 8 bits (``GPTQConfig.__init__``), GPTQ-Marlin 4 and 8 (``GPTQMarlinConfig.TYPE_MAP``):
    # ``from_config`` reads ``bits`` (and ``group_size``, ``desc_act``) from the checkpoint's quantization_config
    "gptq": frozenset({"gptq", "gptq_marlin"}),
    "gptq_marlin": frozenset({"gptq", "gptq_marlin"}),
}

#: ``--quantization`` methods that quantise a 16-bit checkpoint at load time when it carries no
#: ``quantization_config``, at the width vLLM defaults to, and read the checkpoint's when it carries one of theirs:
#: ``BitsAndBytesConfig.from_config`` takes ``load_in_8bit`` (default False) and ``load_in_4bit`` (default True), so
#: in-flight bitsandbytes is 4-bit (bitsandbytes.py, 0.9.2 to 0.14.1), with its absmax double-quantised
#: (``BitsAndBytesModelLoader`` calls ``quantize_4bit(..., compress_statistics=True)``, bitsandbytes_loader.py): the
#: ``quantization_config`` that sizes it, as :func:`..catalog.hfconfig.weight_bytes_per_param` reads one.
LOAD_TIME_DEFAULT_QUANTIZATION: dict[str, tuple[Precision, frozenset[str], dict[str, object]]] = {
    "bitsandbytes": ("int4", frozenset({"bitsandbytes"}),
                     {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True}),
}

#: vLLM's ``--quantization`` methods that quantise only the fused-MoE experts at load time, and the experts' precision:
#: ``ExpertsInt8Config.get_quant_method`` gives every linear layer ``UnquantizedLinearMethod`` and each ``FusedMoE``
#: ``ExpertsInt8MoEMethod`` (int8 weights, one scale a channel), so a dense model loads unchanged (experts_int8.py,
#: 0.6.6.post1 to 0.14.1).
EXPERTS_ONLY_QUANTIZATION: dict[str, Precision] = {"experts_int8": "int8"}

#: Every ``--quantization`` name vLLM accepts in the releases read (``QUANTIZATION_METHODS`` /
#: ``QuantizationMethods`` in vllm/model_executor/layers/quantization/__init__.py of 0.6.6.post1, 0.9.2, 0.10.1.1,
#: 0.11.0 and 0.14.1): shardwise sizes those of :data:`QUANTIZATION_PRECISION`, :data:`CHECKPOINT_QUANTIZATION` and
#: :data:`EXPERTS_ONLY_QUANTIZATION`, and says it cannot decide for the others (their bits depend on a format or a
#: device shardwise does not model: GGUF, HQQ, BitBLAS, torchao, TPU/Neuron/IPEX/INC).
VLLM_QUANTIZATION_METHODS: frozenset[str] = frozenset({
    "aqlm", "auto-round", "awq", "awq_marlin", "bitblas", "bitsandbytes", "compressed-tensors", "cpu_awq",
    "deepspeedfp", "experts_int8", "fbgemm_fp8", "fp8", "fp_quant", "gguf", "gptq", "gptq_bitblas", "gptq_marlin",
    "gptq_marlin_24", "hqq", "inc", "ipex", "marlin", "modelopt", "modelopt_fp4", "moe_wna16", "mxfp4",
    "neuron_quant", "petit_nvfp4", "ptpc_fp8", "qqq", "quark", "rtn", "torchao", "tpu_int8",
})


#: ``--quantization`` methods vLLM builds only on one vendor's GPUs, with the error it raises elsewhere:
#: ``PTPCFp8Config.__init__`` checks ``current_platform.is_rocm()`` (ptpc_fp8.py, 0.9.2 to 0.14.1).
QUANTIZATION_VENDOR: dict[str, tuple[str, str]] = {
    "ptpc_fp8": ("amd", "ptpc_fp8 quantization is supported only on ROCm"),
}


def quantization_vendor_refusal(quantization: str | None, vendor: str) -> str:
    """vLLM's error for a ``--quantization`` it builds only on another vendor's GPUs, else ""."""
    only = QUANTIZATION_VENDOR.get((quantization or "").lower())
    return only[1] if only is not None and vendor != only[0] else ""


class QuantizationUnknown(Undecidable):
    """``--quantization`` names a method whose weight bits shardwise cannot know for this checkpoint: the capacity
    rules say they cannot decide (an :class:`~..model.Undecidable`), and ``plan`` refuses the request."""


def quantization_precision(model: ModelShape, quantization: str) -> Precision:
    """The precision of the linear-layer weights vLLM loads with ``--quantization quantization``, or
    :class:`QuantizationUnknown` saying why the bits are not known (never a guess)."""
    q = quantization.lower()
    if q in QUANTIZATION_PRECISION:
        return QUANTIZATION_PRECISION[q]
    if q in EXPERTS_ONLY_QUANTIZATION:
        return EXPERTS_ONLY_QUANTIZATION[q] if model.moe is not None else model.precision
    prop = f"the weights' size at --quantization {quantization}"
    cfg = model.hf_config.get("quantization_config")
    stated = str(cfg.get("quant_method", "")).lower() if isinstance(cfg, dict) else ""
    if q in LOAD_TIME_DEFAULT_QUANTIZATION:
        default, read, _ = LOAD_TIME_DEFAULT_QUANTIZATION[q]
        if stated in read:
            return checkpoint_precision(model)  # the checkpoint's own (``load_in_8bit``)
        if not stated:
            return default  # a 16-bit checkpoint quantised in flight at vLLM's default width
        raise QuantizationUnknown(prop, f"the method reads the bits from the checkpoint's quantization_config, and "
                                        f"{model.id}'s quantization_config names '{stated}'")
    if q in CHECKPOINT_QUANTIZATION:
        if stated in CHECKPOINT_QUANTIZATION[q]:
            # the checkpoint's config states the bits (or its name does, ``-AWQ``, ``-GPTQ-Int8``, ``-w4a16``)
            return checkpoint_precision(model)
        what = (f"{model.id}'s quantization_config names '{stated}'" if stated else
                f"{model.id} is a {model.precision} checkpoint without one")
        raise QuantizationUnknown(prop, f"the method reads the bits from the checkpoint's quantization_config, and "
                                        f"{what}")
    if q in VLLM_QUANTIZATION_METHODS:
        raise QuantizationUnknown(prop, "shardwise does not size this method's weights")
    raise QuantizationUnknown(prop, f"'{quantization}' is not a method vLLM knows")


def checkpoint_precision(model: ModelShape) -> Precision:
    """The precision a quantised checkpoint stores its weights at, or :class:`QuantizationUnknown` where the catalog
    has no ``quantization_config`` of it and its name gives a method of several widths without one (a bare ``-GPTQ``:
    GPTQ checkpoints are 2, 3, 4 or 8 bits, and re-uploaders publish several on one name's branches)."""
    if model.extra.get("quantization_bits_unstated"):
        raise QuantizationUnknown(
            "the weights' size", f"{model.id} is a {model.quantization} checkpoint whose bits neither its name nor the "
                                 f"catalog states, and the method admits several widths")
    return model.precision


DTYPE_PRECISION: dict[str, Precision] = {
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "fp16",
    "fp16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "fp32": "fp32",
}


# --------------------------------------------------------------------------------------------------
# Precision, weights, KV bytes
# --------------------------------------------------------------------------------------------------


def weight_precision(model: ModelShape, dtype: str = "auto", quantization: str | None = None) -> Precision:
    """Precision of the linear-layer weights vLLM will load.

    ``--quantization`` wins (:func:`quantization_precision`: :class:`QuantizationUnknown` where its bits are not
    known), then a quantised checkpoint's own precision, then ``--dtype``.
    """
    if quantization:
        served = quantization_precision(model, quantization)
        return served_at_auto(served) if not dtype or dtype == "auto" else served
    unread = model.extra.get("quantisation_word_unread")
    if unread:  # catalog.lookup.quantisation_word_inside: neither that quantisation nor the base model's precision
        raise QuantizationUnknown(
            "the weights' size", f"{model.id}'s name says `{unread}` before words shardwise does not read, so it is "
                                 f"sized neither at that quantisation nor at {model.base_model}'s {model.precision}; "
                                 "give its config.json instead, whose quantization_config states the bits (the "
                                 "annotation shardwise.dev/base-model, or plan's --model, takes its path)")
    if model.precision not in ("bf16", "fp16", "fp32"):
        return checkpoint_precision(model)
    if dtype and dtype != "auto":
        return DTYPE_PRECISION.get(dtype.lower(), model.precision)
    return served_at_auto(model.precision)


def served_at_auto(precision: Precision) -> Precision:
    """The precision vLLM serves a checkpoint stored at ``precision`` in where ``--dtype`` is ``auto`` (the default):
    a float32 checkpoint is downcast to 16 bits, never served in 4 bytes a value. vLLM's ``_get_and_verify_dtype``
    (vllm/config.py, to 0.10.0): "Following common practice, we use float16 for float32 models"; its successor
    ``_resolve_auto_dtype`` (vllm/config/model.py): "Downcast for float32 models" to the platform's preferred dtype,
    bfloat16 on GPUs that take it (the ``--dtype`` help: auto "will use FP16 precision for FP32 and FP16 models").
    Either is two bytes; bf16 is said, as :func:`.sizing.kv_dtype_refusal` reads a float32 checkpoint. Only
    ``--dtype float32`` serves it in fp32 (review38: a fine-tune saved in float32 was sized at 4 bytes a parameter,
    twice what vLLM loads, and SW101 blocked a 7B on one L4 that holds it)."""
    return "bf16" if precision == "fp32" else precision


def activation_dtype_bytes(model: ModelShape, dtype: str = "auto") -> int:
    """Bytes of one activation (and of one KV cache element at ``--kv-cache-dtype auto``): ``--dtype``'s, else 2, a
    float32 checkpoint included (:func:`served_at_auto`)."""
    if dtype and dtype != "auto":
        return 4 if DTYPE_PRECISION.get(dtype.lower()) == "fp32" else 2
    return 2


def bytes_per_param(model: ModelShape, precision: Precision, quantization: str | None = None) -> float:
    """Bytes per weight of the linear layers at ``precision``: the checkpoint's own group size and bits
    when it is stored quantised at that precision (``quantization_config``), a method's own layout when it quantises
    a 16-bit checkpoint at load time (:data:`LOAD_TIME_DEFAULT_QUANTIZATION`), else :data:`BYTES_PER_PARAM`."""
    qcfg = model.hf_config.get("quantization_config")
    if precision == model.precision and isinstance(qcfg, dict) and BYTES_PER_PARAM[precision] < 2.0:
        from ..catalog.hfconfig import weight_bytes_per_param  # a checkpoint stored quantised: rare, and big

        return weight_bytes_per_param(precision, qcfg)
    in_flight = LOAD_TIME_DEFAULT_QUANTIZATION.get((quantization or "").lower())
    if in_flight is not None and precision == in_flight[0] and not isinstance(qcfg, dict):
        from ..catalog.hfconfig import weight_bytes_per_param

        return weight_bytes_per_param(precision, in_flight[2])
    return BYTES_PER_PARAM[precision]


def weights_bytes(model: ModelShape, precision: Precision, quantization: str | None = None) -> float:
    """Bytes of all weights of the model at ``precision``.

    MXFP4 (gpt-oss): vLLM quantises only the fused-MoE experts (``Mxfp4Config.get_quant_method``
    gives every linear layer ``UnquantizedLinearMethod``), so attention, router, embeddings and the
    LM head stay 16-bit whatever the checkpoint's ``modules_to_not_convert`` says.

    A checkpoint stored quantised (``precision`` is the checkpoint's own) keeps its vision or audio encoder
    16-bit: AutoAWQ and llm-compressor quantise the language model only and list the encoder as not converted
    (``modules_to_not_convert``, ``ignore``), which vLLM's ``is_layer_skipped`` honours, and vLLM's
    multimodal models drop a GPTQ config for the encoder themselves (``_maybe_ignore_quant_config``,
    ``qwen2_5_vl.py``). Quantising a 16-bit checkpoint at load time (``--quantization fp8``) keeps the
    count as before: the encoder is quantised with the rest.

    ``quantization`` ``experts_int8`` (:data:`EXPERTS_ONLY_QUANTIZATION`) quantises only the routed experts of a MoE
    model: they take ``precision``'s bytes, everything else stays 16-bit.
    """
    bpp = bytes_per_param(model, precision, quantization)
    slot = allocated_beyond_checkpoint(model)  # Gemma 4's V slots, in the attention's precision
    if bpp >= 2.0:
        return (model.params + slot) * bpp
    slot_bytes = slot * (2.0 if precision == model.precision and attention_unquantised(model) else bpp)
    return _weights_bytes_quantised(model, precision, quantization, bpp) + slot_bytes


def _weights_bytes_quantised(model: ModelShape, precision: Precision, quantization: str | None, bpp: float) -> float:
    embed = min(model.embedding_params + per_layer_embedding_params(model), model.params)
    if (quantization or "").lower() in EXPERTS_ONLY_QUANTIZATION and model.moe is not None:
        # ``--quantization experts_int8``: the routed experts at ``precision``, everything else 16-bit
        experts = min(expert_params(model), model.params - embed)
        return (model.params - experts) * 2.0 + experts * bpp
    if precision == "mxfp4" and model.moe is not None:
        experts = min(expert_params(model), model.params - embed)
        return (model.params - experts) * 2.0 + experts * bpp
    kept = embed + indexer_weights_params(model)  # built unquantised whatever the checkpoint or the flag says
    if precision == model.precision:
        kept += model.vision_params + ignored_params(model)
    kept = min(kept, model.params)
    return kept * 2.0 + (model.params - kept) * bpp


def per_layer_embedding_params(model: ModelShape) -> int:
    """Parameters of the per-layer embedding table of Gemma 3n and the Gemma 4 E-series (``hidden_size_per_layer_input``
    d > 0): ``vocab_size_per_layer_input`` rows (the vocabulary when absent) of d values for every decoder layer. vLLM
    builds it as a ``VocabParallelEmbedding`` (``embed_tokens_per_layer``, ``vllm/model_executor/models/gemma4.py`` at
    v0.30.0), a row lookup: a quantised checkpoint whose scheme targets ``Linear`` leaves it 16-bit
    (``CompressedTensorsConfig.get_quant_method`` returns no method for an embedding its scheme does not name), like the
    input embeddings. Google's QAT W4A16 export of gemma-4-E2B stores it in BF16, 4.70 GB of the file (set 22,
    xbill9/sagemaker-gemma's safetensors header). 0 for every other model."""
    d = _cfg_int(model, "hidden_size_per_layer_input") or 0
    if d <= 0:
        return 0
    vocab = _cfg_int(model, "vocab_size_per_layer_input") or model.vocab_size
    return d * model.num_hidden_layers * vocab


# --------------------------------------------------------------------------------------------------
# What a quantised checkpoint keeps 16-bit: its ignore list, read the way vLLM reads it
# --------------------------------------------------------------------------------------------------

#: The keys of ``quantization_config`` that name the modules a checkpoint leaves unquantised: compressed-tensors'
#: ``ignore`` (``CompressedTensorsConfig``), AutoAWQ's and transformers' ``modules_to_not_convert`` (``AWQConfig``,
#: ``Fp8Config``), vLLM's FP8 ``ignored_layers`` and ModelOpt's ``exclude_modules``.
IGNORE_KEYS = ("ignore", "modules_to_not_convert", "ignored_layers", "exclude_modules")
#: Where a decoder layer's modules sit in a checkpoint: a text model, a multimodal wrapper (transformers 5's
#: ``model.language_model``) and the older ``language_model.model`` wrappers.
_LAYER_PREFIXES = ("model.layers.", "model.language_model.layers.", "language_model.model.layers.")
#: Representative linear layers of each part of a decoder layer, as checkpoints name them.
_PART_MODULES: dict[str, tuple[str, ...]] = {
    "self_attn": ("self_attn.q_proj", "self_attn.o_proj", "self_attn.q_a_proj", "self_attn.kv_a_proj_with_mqa"),
    # Gated DeltaNet's input projections (qkv and z, with b and a beside them, or vLLM's fused qkvz) apart from its
    # output projection: a list may keep only the inputs 16-bit (``linear_attn.in_proj_qkv``) or the whole layer
    # (``linear_attn*``, ``re:.*linear_attn.*``, AWQ's ``linear_attn``: both parts)
    "linear_attn_in": ("linear_attn.in_proj_qkvz", "linear_attn.in_proj_qkv"),
    "linear_attn_out": ("linear_attn.out_proj",),
    "mlp": ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"),
    "router": ("mlp.gate", "router", "router.proj", "block_sparse_moe.gate", "mlp.router"),
    "shared_expert": ("mlp.shared_expert.gate_proj", "mlp.shared_expert.down_proj", "mlp.shared_experts.gate_proj",
                      "mlp.shared_experts.down_proj"),
}
#: An MTP module's linear layers (Qwen3-Next / Qwen3.5: ``mtp.fc``, ``mtp.layers.N``).
_MTP_MODULES = ("mtp.fc", "mtp.layers.0.self_attn.q_proj", "mtp.layers.0.mlp.experts.0.gate_proj",
                "mtp.layers.0.mlp.gate_proj", "model.mtp.layers.0.self_attn.q_proj")
#: Methods whose plain entries match as substrings of a layer's name (vLLM's ``is_layer_skipped_awq``: ``module_name
#: in prefix``; ModelOpt's ``is_layer_excluded``); the others' plain entries name one layer exactly
#: (compressed-tensors' ``should_ignore_layer``, FP8's ``is_layer_skipped``).
_SUBSTRING_METHODS = frozenset({"awq", "awq_marlin", "modelopt", "modelopt_fp4"})


def _ignore_matcher(model: ModelShape) -> Any:
    """A predicate on a layer's name: whether the checkpoint's ``quantization_config`` leaves it unquantised, or
    None when it names no module. ``re:`` entries are regular expressions matched at the start of the name
    (compressed-tensors), entries with ``*`` are shell patterns (ModelOpt, gpt-oss's ``modules_to_not_convert``),
    plain entries exact names or, for AWQ and ModelOpt, substrings."""
    import fnmatch
    import re

    qcfg = model.hf_config.get("quantization_config")
    if not isinstance(qcfg, dict):
        return None
    entries: list[str] = []
    nested = qcfg.get("quantization")
    for where in (qcfg, nested if isinstance(nested, dict) else {}):
        for key in IGNORE_KEYS:
            v = where.get(key)
            if isinstance(v, list):
                entries += [e for e in v if isinstance(e, str) and e]
    if not entries:
        return None
    substring = str(qcfg.get("quant_method", "")).lower() in _SUBSTRING_METHODS
    regexes, globs, plain = [], [], set()
    for e in entries:
        if e.startswith("re:"):
            try:
                regexes.append(re.compile(e[3:]))
            except re.error:
                continue
        elif "*" in e or "?" in e:
            globs.append(e)
        else:
            plain.add(e)

    def ignored(name: str) -> bool:
        return (name in plain or any(r.match(name) for r in regexes) or any(fnmatch.fnmatchcase(name, g) for g in globs)
                or (substring and any(e in name for e in plain)))

    return ignored


def _layer_ignored(ignored: Any, layer: int, part: str) -> bool:
    return any(ignored(f"{p}{layer}.{m}") for p in _LAYER_PREFIXES for m in _PART_MODULES[part])


def ignored_params(model: ModelShape) -> int:
    """Parameters of the decoder layers a quantised checkpoint leaves 16-bit by its ignore list (:data:`IGNORE_KEYS`),
    beyond the embeddings, the LM head and the vision or audio tower (counted apart): the attention projections, Gated
    DeltaNet's linear attention, the dense MLP (Gemma 4's beside its experts, DeepSeek's first layers), the shared
    experts and the MoE routers (``mlp.gate``, Gemma 4's ``router``), each over the layers whose modules the list
    names. A router the list does not name is counted at the checkpoint's precision, as before: whether vLLM builds
    it unquantised differs by model and release, and the logs do not tell 17 MB apart. vLLM builds an ignored layer with
    ``UnquantizedLinearMethod`` (``should_ignore_layer``, ``is_layer_skipped``), so it loads at the model's dtype.
    Kimi-K2-Thinking keeps attention, shared experts and dense MLP 16-bit (``re:.*self_attn.*``); RedHatAI's Qwen3.6
    NVFP4 its linear attention (``re:.*linear_attn.*``, llm-compressor's recipe); cyankiwi's Gemma 4 AWQ its dense MLP;
    a list naming only Gated DeltaNet's input projections (``linear_attn.in_proj_qkv``, ``in_proj_z``, ``in_proj_b``,
    ``in_proj_a``) keeps those 16-bit and counts ``out_proj`` (value heads x value head dim -> hidden) quantised.
    The routed experts are never counted here, nor the sparse-attention indexer's ``weights_proj``, which vLLM builds
    unquantised in every checkpoint (:func:`indexer_weights_params`, counted apart by :func:`weights_bytes`)."""
    ignored = _ignore_matcher(model)
    if ignored is None:
        return 0
    from ..catalog.hfconfig import (  # quantised only
        attention_params,
        config_int,
        full_attention_layers,
        linear_attention_params,
    )

    extra = model.extra.get("config")
    cfg: dict[str, Any] = {**(extra if isinstance(extra, dict) else {}), **model.hf_config}
    cfg.setdefault("model_type", model.extra.get("model_type", ""))
    if model.mla is not None:  # the catalog keeps the latent sizes on the shape
        cfg.setdefault("kv_lora_rank", model.mla.kv_lora_rank)
        cfg.setdefault("qk_rope_head_dim", model.mla.qk_rope_head_dim)
    model_type = str(cfg.get("model_type") or "")
    h, n = model.hidden_size, model.num_hidden_layers
    full = full_attention_layers(cfg, n)
    types = cfg.get("layer_types")
    if full < n and isinstance(types, list) and len(types) == n:
        full_layers = [i for i, t in enumerate(types) if t == "full_attention"]
    else:  # every full_attention_interval-th layer (Qwen3-Next, Qwen3.5), or all of them
        interval = max(1, n // full) if full and full < n else 1
        full_layers = [i for i in range(n) if full == n or (i + 1) % interval == 0]
    linear_layers = [i for i in range(n) if i not in set(full_layers)]
    # the indexer's weights_proj is 16-bit whatever the list says, counted apart (:func:`indexer_weights_params`)
    indexer = indexer_weights_params(model) // indexer_layers(model) if n else 0
    parts: dict[str, tuple[list[int], int]] = {
        "self_attn": (full_layers, attention_params(cfg, h, model.num_attention_heads, model.num_key_value_heads,
                                                    model.head_dim, model_type) - indexer),
    }
    if full < n:  # Gated DeltaNet: out_proj is value heads x value head dim -> hidden; the rest feeds the recurrence
        value_dim = (config_int(cfg, "linear_num_value_heads") or 0) * (config_int(cfg, "linear_value_head_dim") or 0)
        out_proj = value_dim * h
        parts["linear_attn_in"] = (linear_layers, linear_attention_params(cfg, h) - out_proj)
        parts["linear_attn_out"] = (linear_layers, out_proj)
    moe_count = moe_layers(model)
    if model.moe is None or cfg.get("enable_moe_block"):  # a dense MLP in every layer (Gemma 4 beside its experts)
        dense = list(range(n))
    else:
        dense = list(range(n - moe_count))  # DeepSeek's and Kimi's first layers
    parts["mlp"] = (dense, 3 * h * model.intermediate_size)
    if model.moe is not None:
        moe = model.moe
        shared = config_int(cfg, "shared_expert_intermediate_size") or moe.shared_experts * moe.moe_intermediate_size
        parts["shared_expert"] = (list(range(n - moe_count, n)), 3 * h * shared)
        parts["router"] = (list(range(n - moe_count, n)), model.moe.num_experts * h)
    total = 0
    for part, (layers, per_layer) in parts.items():
        if per_layer and layers:
            total += per_layer * sum(1 for i in layers if _layer_ignored(ignored, i, part))
    built = kv_layout.indexer_layer_ids(model)
    if indexer and len(built) < n:  # a layer that shares top-k (GLM-5.2) builds no indexer: wq_b, wk, k_norm
        rest = indexer_layer_params(model) - indexer  # the indexer less weights_proj, taken off above
        kept = set(built)
        total -= rest * sum(1 for i in full_layers if i not in kept and _layer_ignored(ignored, i, "self_attn"))
    glob = gemma4_global_attention(model)
    if glob is not None:  # Gemma 4's full-attention layers are wider than the sliding ones counted above
        layers, per_layer, _ = glob
        total += (per_layer - parts["self_attn"][1]) * sum(1 for i in layers if _layer_ignored(ignored, i, "self_attn"))
    return total


def gemma4_global_attention(model: ModelShape) -> tuple[list[int], int, int] | None:
    """Gemma 4's full-attention layers as vLLM builds them, or None for another model: their indices, the parameters
    of one such layer's attention in the checkpoint, and the parameters vLLM allocates beyond the checkpoint in each.
    ``Gemma4DecoderLayer`` gives a full-attention layer ``global_head_dim`` (512) and, with ``attention_k_eq_v``,
    ``num_global_key_value_heads`` KV heads; ``Gemma4Attention`` builds its ``QKVParallelLinear`` with K and V slots
    alike, and the loader copies the checkpoint's ``k_proj`` into both (the checkpoint has no ``v_proj``: "k_eq_v layers
    load K weights into both K and V slots", ``models/gemma4.py`` in the 0.19.0, 0.20.0, 0.29.0 and 0.30.0 wheels). So
    the 31B's ten global layers hold 36,864 outputs a hidden unit (q 16,384, k and v 2,048 each, o 16,384) where the
    sliding layers hold 24,576, and 11.0 M parameters a layer (its V slot) that no checkpoint counts: 0.21 GiB at 16
    bits. The E-series set ``attention_k_eq_v`` false (no slot); its KV-shared layers are not told apart here."""
    model_type = str(model.hf_config.get("model_type") or model.extra.get("model_type") or "")
    types = model.hf_config.get("layer_types")
    if not model_type.startswith("gemma4") or not isinstance(types, list) or len(types) != model.num_hidden_layers:
        return None
    full = [i for i, t in enumerate(types) if t == "full_attention"]
    g = _cfg_int(model, "global_head_dim") or model.head_dim
    k_eq_v = model.hf_config.get("attention_k_eq_v") is True
    kv = (_cfg_int(model, "num_global_key_value_heads") or model.num_key_value_heads) if k_eq_v \
        else model.num_key_value_heads
    h, q = model.hidden_size, model.num_attention_heads * g
    checkpoint = h * q + h * kv * g * (1 if k_eq_v else 2) + q * h  # q, k (and v), o: the projections, as counted above
    return full, checkpoint, (h * kv * g if k_eq_v else 0)


def allocated_beyond_checkpoint(model: ModelShape) -> int:
    """Parameters vLLM allocates that the checkpoint does not hold (:func:`gemma4_global_attention`'s V slots),
    at the precision of the layers they sit in."""
    glob = gemma4_global_attention(model)
    return len(glob[0]) * glob[2] if glob is not None else 0


def attention_unquantised(model: ModelShape) -> bool:
    """Whether a quantised checkpoint's ignore list keeps the attention projections 16-bit (``re:.*self_attn.*``,
    Kimi-K2-Thinking): the MLA down projections every TP rank holds whole (:func:`replicated_params`) are then 16-bit
    too."""
    ignored = _ignore_matcher(model)
    return ignored is not None and _layer_ignored(ignored, model.num_hidden_layers - 1, "self_attn")


def mtp_unquantised(model: ModelShape) -> bool:
    """Whether a quantised checkpoint's ignore list names its MTP module (``mtp.*``): vLLM then builds the draft's
    layers unquantised (``Qwen3_5MultiTokenPredictor`` passes the target's ``quant_config``, whose
    ``should_ignore_layer`` decides). llm-compressor's Qwen3.5 / 3.6 recipes do not load the MTP layers, so a
    checkpoint that ships them ships the base model's 16-bit weights and must list them."""
    ignored = _ignore_matcher(model)
    return ignored is not None and any(ignored(m) for m in _MTP_MODULES)


# --------------------------------------------------------------------------------------------------
# MXFP4 experts as vLLM lays them out per GPU (vllm/model_executor/layers/quantization/mxfp4.py)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mxfp4Backend:
    """The MXFP4 MoE kernel vLLM picks on a GPU, and how it pads and keeps the expert weights.

    ``Mxfp4MoEMethod.create_weights`` rounds the per-rank intermediate size and the hidden size up to
    the kernel's alignment; the Triton kernel's ``process_weights_after_loading`` swizzles the scales
    into new tensors (Hopper: rows padded to 2 × num_warps(8) × 2 × 8 = 256) and keeps the loaded ones up to
    0.24 (``loaded_scales`` True), frees them from 0.25 (``convert_gpt_oss_weight_to_mxfp4_moe_kernel_format``,
    ``fused_moe/oracle/mxfp4.py``: ``del layer.w13_weight_scale`` / ``w2_weight_scale`` after the swizzle, read in
    the 0.25.0, 0.25.1, 0.29.0 and 0.30.0 wheels; 0.24.0 deletes the loaded weights only), and turns the biases into
    fp32; FlashInfer's TRTLLM path on SM100 keeps fp32 biases.
    """

    name: str
    intermediate_align: int
    hidden_align: int
    swizzled_scales: bool = False  # a second, padded copy of the scales (Triton on Hopper)
    bias_bytes: int = 2
    loaded_scales: bool = True  # the scales as loaded stay beside the swizzled copy (Triton on Hopper up to 0.24)


MXFP4_BACKENDS: dict[str, Mxfp4Backend] = {
    # SM90 with triton_kernels (vLLM's default there): intermediate per rank to 64, hidden as is
    "triton": Mxfp4Backend("Triton (SM90)", 64, 1, swizzled_scales=True, bias_bytes=4),
    # SM100 family with FlashInfer (B200, B300, GB200): both to 256
    "flashinfer": Mxfp4Backend("FlashInfer TRTLLM (SM100)", 256, 256, bias_bytes=4),
    # Ampere, Ada, SM120 (RTX 50, RTX PRO 6000 Blackwell): weight-only Marlin, n % 256 and k % 128
    "marlin": Mxfp4Backend("Marlin", 128, 256),
    # ROCm: get_padding_alignment(): 256 on gfx950 (MI350/MI355), 128 otherwise
    "rocm": Mxfp4Backend("Triton (ROCm)", 128, 128, bias_bytes=4),
    "rocm-gfx950": Mxfp4Backend("Triton (ROCm gfx950)", 256, 256, bias_bytes=4),
}


def mxfp4_backend(device: Device | None, triton_kernels: bool = True,
                  scales_freed: bool = False) -> Mxfp4Backend | None:
    """vLLM's ``get_mxfp4_backend`` for ``device`` (None: a GPU the table does not place). On Hopper the Triton
    kernels need OpenAI's ``triton_kernels`` package; without it (``triton_kernels`` False: 0.10 and 0.11, whose
    wheels do not carry it and whose official image installs nothing else that does) vLLM falls back to Marlin
    (``mxfp4.py``: ``not has_triton_kernels()`` -> Marlin in 0.10.1.1, 0.11.0 and 0.11.2). ``scales_freed``: the
    release frees the Triton backend's loaded scales once swizzled (0.25+, :class:`Mxfp4Backend`)."""
    if device is None:
        return None
    if device.vendor == "amd":
        return MXFP4_BACKENDS["rocm-gfx950" if device.architecture == "cdna4" else "rocm"]
    cc = device.capability()  # by compute capability: 9.0, the 10.x family, 8.x and 12.x (not the ``blackwell`` label)
    if cc is None:
        return None
    if cc[0] == 9:
        if triton_kernels and scales_freed:
            return replace(MXFP4_BACKENDS["triton"], loaded_scales=False)
        return MXFP4_BACKENDS["triton" if triton_kernels else "marlin"]
    if cc[0] == 10:
        return MXFP4_BACKENDS["flashinfer"]
    if cc[0] in (8, 12):
        return MXFP4_BACKENDS["marlin"]
    return None


def _round_up(n: int, k: int) -> int:
    return -(-n // k) * k


def mxfp4_expert_bytes(model: ModelShape, tp: int, ep_ranks: int = 1, backend: Mxfp4Backend | None = None) -> float:
    """Bytes of the MXFP4 experts of one MoE layer on one rank: 4-bit values, an e8m0 scale per 32,
    and the bf16 (or fp32) biases vLLM always creates, at the backend's padded sizes.

    Without expert parallelism every rank holds all experts with ``moe_intermediate_size / tp``
    columns; with it (``ep_ranks`` > 1) a rank holds ``experts / ep_ranks`` whole experts.
    """
    assert model.moe is not None
    moe = model.moe
    b = backend or Mxfp4Backend("unpadded", 1, 1)
    local = -(-moe.num_experts // ep_ranks) if ep_ranks > 1 else moe.num_experts
    inter = moe.moe_intermediate_size if ep_ranks > 1 else -(-moe.moe_intermediate_size // tp)
    i_pad = _round_up(inter, b.intermediate_align)
    h_pad = _round_up(model.hidden_size, b.hidden_align)
    values = 3 * i_pad * h_pad / 2  # w13: 2I x H/2, w2: H x I/2 (uint8, two values each)
    scales = 3 * i_pad * h_pad / 32 if b.loaded_scales else 0.0
    if b.swizzled_scales:
        scales += (_round_up(2 * i_pad, 256) * _round_up(h_pad // 32, 2)
                   + _round_up(h_pad, 256) * _round_up(i_pad // 32, 2))
    bias = (2 * i_pad + h_pad) * b.bias_bytes
    return local * (values + scales + bias)


#: Model types whose vision and audio towers vLLM builds with transformers' ``AutoModel.from_config`` rather than its
#: own parallel layers (``vllm/model_executor/models/gemma4_mm.py`` and ``gemma3n_mm.py``, 0.14.1 - 0.25.1): plain
#: ``nn.Linear`` modules that no tensor-parallel rank splits and vLLM's quantisation does not reach.
TRANSFORMERS_TOWER_TYPES = ("gemma4", "gemma3n")
#: Architectures whose audio tower vLLM builds from transformers' own module: ``Qwen2AudioForConditionalGeneration``
#: (``vllm/model_executor/models/qwen2_audio.py``) builds ``audio_tower = Qwen2AudioEncoder(config.audio_config)`` and
#: an ``nn.Linear`` projector on every rank. Its text decoder's ``model_type`` is plain ``qwen2``: the architecture
#: says it.
TRANSFORMERS_TOWER_ARCHITECTURES = ("Qwen2AudioForConditionalGeneration",)


def transformers_tower_params(model: ModelShape) -> int:
    """Parameters of the vision and audio towers every GPU of a replica holds whole (:data:`TRANSFORMERS_TOWER_TYPES`):
    ``Gemma4ForConditionalGeneration`` builds ``vision_tower`` (and ``audio_tower``) as ``AutoModel.from_config`` on
    every rank, so TP does not divide them, and they stay at the model's dtype whatever the checkpoint's quantisation;
    so does Qwen2-Audio's audio tower and projector (:data:`TRANSFORMERS_TOWER_ARCHITECTURES`).
    0 for every other model, whose towers vLLM builds from its parallel layers (``ColumnParallelLinear`` and the like)
    and splits TP ways with the rest."""
    model_type = str(model.hf_config.get("model_type") or model.extra.get("model_type") or "")
    architectures = model.hf_config.get("architectures")
    if isinstance(architectures, list) and any(a in TRANSFORMERS_TOWER_ARCHITECTURES for a in architectures):
        return max(model.vision_params, 0)
    if not (model_type.startswith(TRANSFORMERS_TOWER_TYPES) and isinstance(model.hf_config.get("vision_config"), dict)):
        return 0
    return max(model.vision_params, 0)


#: The modalities a Gemma 4 tower is marked for (``gemma4_mm.py``: ``_mark_tower_model(vllm_config, {"image",
#: "video"})`` around ``vision_tower``, ``_mark_tower_model(vllm_config, "audio")`` around ``audio_tower``).
_GEMMA4_TOWER_MODALITIES = ("image", "video")
#: Model types whose vision tower vLLM marks for image and video alone (``qwen2_vl.py``, ``qwen2_5_vl.py``,
#: ``qwen3_vl.py``, ``qwen3_5.py``: ``_mark_tower_model(vllm_config, {"image", "video"})`` in the 0.19.0 and 0.29.0
#: wheels); the Omni thinkers' audio towers are marked apart and counted with the vision one here, so they are left out.
_QWEN_VISION_TOWER_TYPES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5")


def unbuilt_tower_params(model: ModelShape, limits: tuple[tuple[str, int], ...]) -> int:
    """Parameters of the towers vLLM does not build because ``--limit-mm-per-prompt`` (or ``--language-model-only``)
    sets every modality they take to 0: ``SupportsMultiModal._mark_tower_model`` (``models/interfaces.py``) builds the
    modules assigned inside it on the meta device, as ``StageMissingLayer`` placeholders, when
    ``get_limit_per_prompt`` is 0 for all of its modalities, so their weights are never allocated (read in the 0.19.0,
    0.20.0, 0.25.1, 0.29.0 and 0.30.0 wheels; absent from 0.14.1's; the release gate is
    ``Behaviour.unbuilt_towers``). Gemma 4, whose ``gemma4_mm.py`` marks its vision tower for image and video and its
    audio tower for audio: the catalog counts both towers as one ``vision_params``, so an E-series model (which has
    the audio tower: per-layer inputs) leaves it out only with audio at 0 too; Qwen2-VL, Qwen2.5-VL, Qwen3-VL and
    Qwen3.5/3.6 (:data:`_QWEN_VISION_TOWER_TYPES`, image and video) and Gemma 3 (image). A modality the limits do not
    name keeps vLLM's default (999). 0 for any other model (its class's marks not read)."""
    model_type = str(model.hf_config.get("model_type") or model.extra.get("model_type") or "")
    if model.vision_params <= 0 or not limits or not isinstance(model.hf_config.get("vision_config"), dict):
        return 0
    if model_type.startswith("gemma4"):
        audio = per_layer_embedding_params(model) > 0 or isinstance(model.hf_config.get("audio_config"), dict)
        taken: tuple[str, ...] = (*_GEMMA4_TOWER_MODALITIES, *(("audio",) if audio else ()))
    elif model_type.startswith(_QWEN_VISION_TOWER_TYPES):
        taken = ("image", "video")
    elif model_type.startswith("gemma3") and not model_type.startswith("gemma3n"):
        taken = ("image",)
    else:
        return 0
    limit = dict(limits)
    return model.vision_params if all(limit.get(m, 1) == 0 for m in taken) else 0


def indexer_weights_params(model: ModelShape) -> int:
    """Parameters of the sparse-attention indexer's ``weights_proj`` (hidden -> ``index_n_heads``, every layer) of
    DeepSeek-V3.2 and GLM-5, which vLLM builds with ``quant_config=None`` (``Indexer`` in
    ``vllm/model_executor/models/deepseek_v2.py``, which ``GlmMoeDsaForCausalLM`` reuses): 16-bit in every checkpoint
    and under every ``--quantization``, whatever an ignore list names. Z.ai's GLM-5 FP8 lists name it by the
    transformers module ``self_attn.indexers_proj``, a name no vLLM layer has (vLLM's is ``self_attn.indexer
    .weights_proj``), so no ignore-list match could count it; it is counted here. 0 for a model without the
    indexer."""
    if model.mla is None:
        return 0
    cfg = model.extra.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}

    def num(key: str) -> int:
        v = cfg.get(key, model.hf_config.get(key))
        return int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0

    if not (num("index_n_heads") and num("index_head_dim")):
        return 0
    return model.hidden_size * num("index_n_heads") * indexer_layers(model)


def indexer_layer_params(model: ModelShape) -> int:
    """Parameters of one layer's sparse-attention indexer (``Indexer`` in ``model_executor/models/deepseek_v2.py``):
    ``wq_b`` (q_lora_rank -> index heads × index_head_dim), ``wk`` (hidden -> index_head_dim), ``k_norm``'s weight
    and bias and ``weights_proj`` (hidden -> index heads): 9,371,904 for GLM-5. 0 for a model without it."""
    if model.mla is None:
        return 0
    cfg = model.extra.get("config")
    cfg = {**(cfg if isinstance(cfg, dict) else {}), **model.hf_config}
    heads, dim = _num_of(cfg, "index_n_heads"), _num_of(cfg, "index_head_dim")
    if not (heads and dim):
        return 0
    h = model.hidden_size
    return (_num_of(cfg, "q_lora_rank") or h) * heads * dim + h * dim + 2 * dim + h * heads


def unbuilt_indexer_params(model: ModelShape) -> int:
    """Parameters of the indexers the layers that share top-k do not build (:func:`indexer_layers`): 57 ×
    9,371,904 for GLM-5.2; 0 where every layer builds one."""
    ids = kv_layout.indexer_layer_ids(model)
    return (model.num_hidden_layers - len(ids)) * indexer_layer_params(model) if ids else 0


def indexer_layers(model: ModelShape) -> int:
    """How many decoder layers build the sparse-attention indexer (:func:`.kv_layout.indexer_layer_ids`): every
    layer, or where the checkpoint shares top-k across layers (GLM-5.2, from 0.24) its "full" layers only; a model
    without the indexer's key cache is taken as building it on every layer (the counts that read it add nothing
    without ``index_n_heads`` and ``index_head_dim``)."""
    ids = kv_layout.indexer_layer_ids(model)
    return len(ids) if ids else model.num_hidden_layers


def replicated_params(model: ModelShape) -> tuple[int, int]:
    """(quantised, 16-bit) parameters every tensor-parallel rank of an MLA model holds whole.

    vLLM's DeepSeek-V2/V3 attention (``vllm/model_executor/models/deepseek_v2.py``) builds the down
    projections ``q_a_proj`` (hidden -> q_lora_rank) and ``kv_a_proj_with_mqa`` (hidden -> kv_lora_rank +
    qk_rope_head_dim) as ``ReplicatedLinear`` layers (fused into one with ``disable_tp`` in later
    releases), the MoE router ``gate`` (hidden -> routed experts, unquantised) likewise, and DeepSeek-V3.2's
    sparse-attention indexer (``wq_b``: q_lora_rank -> index heads × index_head_dim, ``wk``: hidden ->
    index_head_dim, ``weights_proj``: hidden -> index heads) too. Only the up projections, the output
    projection and the MLPs are split by TP.

    Nemotron-H's LatentMoE (``moe_latent_size``, ``vllm/model_executor/models/nemotron_h.py``: ``NemotronHMoE``)
    builds ``fc1_latent_proj`` (hidden -> latent) and ``fc2_latent_proj`` (latent -> hidden) as ``ReplicatedLinear``
    with the checkpoint's quantisation, and its router ``gate`` (hidden -> routed experts, float32) likewise, in
    every MoE layer.
    """
    latent = _cfg_int(model, "moe_latent_size") if _nemotron_h(model) else None
    if latent and model.moe is not None:
        layers = moe_layers(model)
        return 2 * model.hidden_size * latent * layers, model.moe.num_experts * model.hidden_size * layers
    if model.mla is None:
        return 0, 0
    cfg = model.extra.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}

    def num(key: str) -> int:
        v = cfg.get(key, model.hf_config.get(key))
        return int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0

    h, layers = model.hidden_size, model.num_hidden_layers
    q_lora = num("q_lora_rank")
    per_layer = h * (q_lora + model.mla.kv_lora_rank + model.mla.qk_rope_head_dim)
    index_heads, index_dim = num("index_n_heads"), num("index_head_dim")
    dense = num("first_k_dense_replace")  # DeepSeek's leading dense layers (kept in extra.config by the catalog)
    router = model.moe.num_experts * h * (layers - dense if dense else moe_layers(model)) if model.moe else 0
    indexer = 0
    if index_heads and index_dim:
        # wq_b and wk on the layers that build an indexer (all of them unless the checkpoint shares top-k)
        indexer = (q_lora * index_heads * index_dim + h * index_dim) * indexer_layers(model)
        router += indexer_weights_params(model)  # weights_proj: unquantised
    lac = model.hf_config.get("linear_attn_config")
    lac = lac if isinstance(lac, dict) else {}
    kda = lac.get("kda_layers")
    if not isinstance(kda, list):
        return per_layer * layers + indexer, router
    # Kimi Linear and Kimi-K3: MLA only on the layers KDA leaves. Kimi-K3's KDA (``KimiK3DeltaAttention``,
    # ``use_full_rank_gate``) keeps its forget gate's down projection ``f_a`` (hidden -> head_dim) whole on every rank
    # (``_KimiGDNMergedColumnParallelLinear``'s replicated shard), with the attention's quantisation; its LatentMoE
    # builds ``routed_expert_down_proj`` and ``routed_expert_up_proj`` as ``ReplicatedLinear`` with
    # ``quant_config=None`` (``vllm/models/kimi_k3/nvidia/model.py``, ``KimiMoE``)
    quantised = per_layer * (layers - len(kda))
    if lac.get("use_full_rank_gate"):
        quantised += h * (_num_of(lac, "head_dim") or 128) * len(kda)
    latent = _cfg_int(model, "routed_expert_hidden_size")
    if latent and model.moe is not None:
        router += 2 * h * latent * moe_layers(model)
    return quantised, router


def _num_of(cfg: dict[str, Any], key: str) -> int:
    """A positive integer ``cfg[key]``, else 0."""
    v = cfg.get(key)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def mla_dequantised_bytes(model: ModelShape, precision: Precision, tp: int) -> int:
    """Bytes of the 16-bit copy of a quantised ``kv_b_proj`` that every MLA layer keeps on one GPU.

    After loading, MLA's ``process_weights_after_loading`` (``v1/attention/backends/mla/common.py`` in 0.9.2 and
    0.11.0, ``model_executor/layers/attention/mla_attention.py`` in 0.15.0, 0.19.0 and 0.25.1) takes ``kv_b_proj``
    through ``get_and_maybe_dequant_weights`` and keeps ``W_UK_T`` and ``W_UV`` as views of the result. An
    unquantised layer returns its own weight (no new memory); a quantised one (FP8 by its scales, anything else by
    an identity matmul) returns a new tensor in the model's dtype, which the views keep alive beside the quantised
    weight the prefill still uses: ``kv_lora_rank × (heads ÷ TP) × (qk_nope_head_dim + v_head_dim)`` 16-bit values a
    layer. 0 for an unquantised attention (a 16-bit checkpoint, or an ignore list that keeps ``self_attn``), a model
    whose config gives no head sizes, and Kimi Linear (MLA between KDA layers: not counted)."""
    if model.mla is None or BYTES_PER_PARAM[precision] >= 2.0 or attention_unquantised(model):
        return 0
    if "linear_attn_config" in model.hf_config:
        return 0
    nope, v = _cfg_int(model, "qk_nope_head_dim"), _cfg_int(model, "v_head_dim")
    if not nope or not v:
        return 0
    heads = model.num_attention_heads // tp
    return model.num_hidden_layers * model.mla.kv_lora_rank * heads * (nope + v) * 2


def stage_share(model: ModelShape, pp: int, stage: int) -> float:
    """The part of the decoder layers' weights that pipeline stage ``stage`` holds: its share of the layers
    (``get_pp_indices``), or, for Llama-Nemotron, whose layers differ in size (:mod:`..vllm.nas`), its layers'
    parameters over all layers' (Ultra-253B's 162 layers run from nothing to a 425,984-wide MLP)."""
    layers = model.num_hidden_layers
    stage_layers = kv_layout._stage_slice(layers, pp, stage)
    try:
        blocks = nas.nas_blocks(model.hf_config, model.num_attention_heads, model.hidden_size) if pp > 1 else None
    except ValueError:
        blocks = None
    if blocks and len(blocks) == layers:
        sizes = [nas.block_params(b, model.hidden_size, model.num_attention_heads, model.head_dim) for b in blocks]
        total = sum(sizes)
        if total:
            return sum(sizes[i] for i in stage_layers) / total
    return len(stage_layers) / layers if layers else 1.0


def _checkpoint_expert_bias_params(model: ModelShape) -> int:
    """Expert biases the checkpoint itself holds (gpt-oss), already counted in ``params``."""
    if model.moe is None or str(model.hf_config.get("model_type", "")) != "gpt_oss":
        return 0
    return moe_layers(model) * model.moe.num_experts * (2 * model.moe.moe_intermediate_size + model.hidden_size)


def weights_gb(model: ModelShape, precision: Precision) -> float:
    """Weights of the whole model in decimal GB (the rule-of-thumb functions' ``model_gb``)."""
    return weights_bytes(model, precision) / GB


def kv_bytes_per_token_per_gpu(model: ModelShape, tp: int = 1, pp: int = 1, kv_bytes: int = 2,
                               mla_cache: bool = True, kv_dtype: str = "") -> int:
    """KV-cache bytes one token occupies on one GPU of a TP × PP replica, as vLLM lays the cache out
    (:func:`kv_layout.replica_token_bytes`): the attention layers of the stage that caches the most, not the
    state layers of a hybrid nor the KV-shared ones; a sliding-window layer's token counts in full (the window
    bounds how many tokens it keeps, not what one costs)."""
    return kv_layout.replica_token_bytes(model, tp, pp, kv_bytes, mla_cache, kv_dtype)


def kv_dtype_bytes(model: ModelShape, kv_cache_dtype: str = "auto", dtype: str = "auto") -> int:
    """fp8 KV caches store one byte per element; ``auto`` follows the activation dtype. The packed dtypes
    (:data:`shardwise.rules.vllm.kv_dtypes.PACKED`) are stored as bytes (uint8) and sized by their slots
    (:func:`shardwise.rules.vllm.kv_layout.head_pair_bytes`): 1 here."""
    if kv_cache_dtype and (kv_cache_dtype.lower().startswith("fp8") or kv_dtypes.packed(kv_cache_dtype)):
        return 1
    return activation_dtype_bytes(model, dtype)


def _cfg(model: ModelShape, key: str) -> Any:
    """A config.json key of the model: from ``hf_config`` (a taught config keeps its keys there) or, for a catalog
    entry, from ``extra.config`` (where the catalog keeps DeepSeek's ``first_k_dense_replace``, Llama 4's
    ``interleave_moe_layer_step`` and the like); None when neither has it."""
    if key in model.hf_config:
        return model.hf_config[key]
    extra = model.extra.get("config")
    return extra.get(key) if isinstance(extra, dict) else None


def _cfg_int(model: ModelShape, key: str) -> int | None:
    v = _cfg(model, key)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)) and float(v).is_integer():
        return int(v)
    return None


def moe_layers(model: ModelShape) -> int:
    """Layers whose MLP is a mixture of experts (DeepSeek's first dense layers, LFM2-MoE's ``num_dense_layers``,
    Llama 4's interleaving)."""
    if model.moe is None:
        return 0
    n = model.num_hidden_layers
    period, offset = _cfg_int(model, "expert_layer_period"), _cfg_int(model, "expert_layer_offset")
    if period and offset is not None:  # Jamba: experts where i % expert_layer_period == expert_layer_offset
        return len([i for i in range(n) if i % period == offset])
    pattern = None
    if _nemotron_h(model):
        from ..catalog.hfconfig import layer_pattern  # Nemotron-H only

        pattern = layer_pattern(model.hf_config)
    if pattern:  # Nemotron-H: the MoE blocks its pattern spells "E"
        return pattern.count("E")
    dense = (_cfg_int(model, "first_k_dense_replace") or _cfg_int(model, "moe_layer_start_index")  # ERNIE 4.5
             or _cfg_int(model, "num_dense_layers") or 0)  # LFM2-MoE
    step = _cfg_int(model, "interleave_moe_layer_step") or _cfg_int(model, "decoder_sparse_step") or 1
    only = _cfg(model, "mlp_only_layers")
    count = len(range(dense, n)) if step <= 1 else len([i for i in range(n) if (i + 1) % step == 0])
    if isinstance(only, list):
        count -= len([i for i in only if isinstance(i, int) and i >= dense])
    return max(0, min(n, count))


def expert_params(model: ModelShape) -> int:
    """Parameters of the routed experts (what expert parallelism spreads over ranks)."""
    if model.moe is None:
        return 0
    matrices = 2 if _nemotron_h(model) else 3  # Nemotron-H's experts are ungated (up and down, squared ReLU)
    width = latent_moe_width(model) or model.hidden_size
    per_layer = model.moe.num_experts * matrices * width * model.moe.moe_intermediate_size
    counted = per_layer * moe_layers(model)
    if any(_cfg(model, k) is not None for k in _MOE_LAYER_KEYS):
        return min(counted, model.params)
    # Without the config's dense-layer keys every layer counts as MoE: keep the attention projections
    # outside (or 3 % of the body, whichever leaves more room). A 3 % cap alone cut gpt-oss-120b's
    # experts (98 % of its parameters) short by 2.5 billion.
    body = model.params - model.embedding_params
    q = model.num_attention_heads * model.head_dim
    attention = model.num_hidden_layers * model.hidden_size * (2 * q + 2 * model.num_key_value_heads * model.head_dim)
    return int(min(max(0.97 * body, body - attention), counted))


_MOE_LAYER_KEYS = ("first_k_dense_replace", "interleave_moe_layer_step", "decoder_sparse_step", "mlp_only_layers",
                   "moe_layer_start_index", "expert_layer_period", "hybrid_override_pattern", "layers_block_type",
                   "num_dense_layers")


#: Kimi-K3's smallest per-rank expert width (``min_moe_intermediate_per_partition``, 256 where the config sets none)
KIMI_MIN_MOE_INTERMEDIATE_PER_PARTITION = 256


def expert_padding(model: ModelShape, tp: int) -> float:
    """How much larger vLLM builds the routed experts than the checkpoint holds them, at ``tp`` tensor-parallel ranks.

    Kimi-K3 (``KimiMoE``, ``vllm/models/kimi_k3/nvidia/model.py`` at 006193b5): where ``moe_intermediate_size / TP``
    falls below ``min_moe_intermediate_per_partition`` (256), the experts are built with an intermediate size of
    256 × TP and the rows the checkpoint does not fill are zeroed, with or without expert parallelism (``tp_size`` is
    the tensor-parallel world size either way): 3,072 at TP16 becomes 4,096, a third more expert memory per GPU. The
    public TP16 H200 deployment that logs it (aws-samples/sample-llm-inference-on-eks, 129.75 GiB of weights a GPU)
    is held by a test. 1.0 for every other model."""
    if tp <= 1 or model.moe is None or _cfg_int(model, "routed_expert_hidden_size") is None:
        return 1.0
    inter = model.moe.moe_intermediate_size
    floor = _cfg_int(model, "min_moe_intermediate_per_partition") or KIMI_MIN_MOE_INTERMEDIATE_PER_PARTITION
    return floor * tp / inter if inter and inter // tp < floor else 1.0


def latent_moe_width(model: ModelShape) -> int | None:
    """The width the routed experts of a LatentMoE work in, or None where they work in ``hidden_size``: Nemotron-H's
    ``moe_latent_size`` (``NemotronHMoE``) and Kimi-K3's ``routed_expert_hidden_size`` (vLLM's ``KimiMoE``
    ``moe_hidden_size``, ``vllm/models/kimi_k3/nvidia/model.py``: the experts between ``routed_expert_down_proj`` and
    ``routed_expert_up_proj``)."""
    if model.moe is None:
        return None
    return (_cfg_int(model, "moe_latent_size") if _nemotron_h(model) else None) or _cfg_int(
        model, "routed_expert_hidden_size")


def _nemotron_h(model: ModelShape) -> bool:
    return str(model.hf_config.get("model_type") or model.extra.get("model_type") or "") == "nemotron_h"


def derived_max_model_len(model: ModelShape, yarn_rescales: bool = True, rope_parameters: bool = True,
                          scaling_override: bool = True, top_override: bool = False) -> int:
    """The context limit vLLM derives from config.json (``_get_and_verify_max_len``).

    ``max_position_embeddings`` scaled by the RoPE ``factor`` unless the RoPE type is ``su``, ``longrope`` or
    ``llama3`` (their limit is already the long one) or the model is Gemma 3; YaRN scales
    ``original_max_position_embeddings`` where ``yarn_rescales`` (releases before 0.30.0,
    ``versions.Behaviour.yarn_rescales_limit``); from 0.30.0 a YaRN config's ``max_position_embeddings`` is the
    limit as written (vllm#56446: "YaRN variants leave max_position_embeddings already scaled"; ``deepseek_yarn``
    and ``deepseek_llama_scaling`` with it).

    The RoPE parameters are ``rope_scaling`` and, where ``rope_parameters`` (0.12.0 on,
    ``versions.Behaviour.reads_rope_parameters``), config.json's ``rope_parameters``, the name transformers 5
    gives them: vLLM reads ``hf_config.rope_parameters``, into which ``patch_rope_parameters`` copies a
    transformers-4 config's ``rope_scaling`` (so ``rope_scaling`` wins where both are written). A dict of them by
    layer type (``full_attention``, ``sliding_attention``, ...) is walked in order: the last layer type with a
    scaling type that is not exempt gives the factor (and a YaRN one its ``original_max_position_embeddings``),
    as vLLM's loop does ("This assumes all layer types have the same scaling factor"). Before 0.12.0 vLLM reads
    ``rope_scaling`` alone, so a config that writes only ``rope_parameters`` keeps ``max_position_embeddings``.

    A dict-valued RoPE override in ``--hf-overrides`` (:func:`overridden_rope_config`) is set after
    ``patch_rope_parameters`` has run: ``scaling_override`` False where the release reads ``rope_parameters`` under
    transformers 4 (``versions.Behaviour.rope_scaling_override``), so the override's ``rope_scaling`` never reaches
    the parameters the limit reads.

    ``top_override``: a top-level length override of a composite config reaches the text config
    (:func:`top_override_readings`); without it, it does not.
    """
    if top_override:
        model = _top_applied(model)
    limit = model.max_position_embeddings
    model_type = str(model.hf_config.get("model_type", model.extra.get("model_type", "")) or "")
    if "gemma3" in model_type:
        return limit
    cfg = overridden_rope_config(model, rope_parameters, scaling_override)
    ropes = rope_parameter_sets(cfg, rope_parameters)
    if not ropes:
        return limit
    exempt = ("su", "longrope", "llama3", "mrope", "default") + (
        () if yarn_rescales else ("yarn", "deepseek_yarn", "deepseek_llama_scaling"))
    factor: float = 1.0
    for rope in ropes:
        kind = str(rope.get("rope_type") or rope.get("type") or "")
        if kind in exempt:
            continue
        value = rope.get("factor")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            factor = value
        if kind == "yarn" and isinstance(rope.get("original_max_position_embeddings"), (int, float)):
            limit = int(rope["original_max_position_embeddings"])
    return int(limit * factor)


def overridden_rope_config(model: ModelShape, rope_parameters: bool = True,
                           scaling_override: bool = True) -> dict[str, Any]:
    """The config whose RoPE parameters vLLM's length check reads where ``--hf-overrides`` gives a dict-valued
    ``rope_scaling`` or ``rope_parameters`` (``catalog.hfconfig.OVERRIDE_ROPE_KEY``); the model's ``hf_config``
    where it gives neither, or where the release reads ``rope_scaling`` alone (before 0.12.0: the override is the
    ``rope_scaling`` it reads).

    From 0.11.1 ``ModelConfig.__post_init__`` (``vllm/config/model.py``) passes flat overrides to ``get_config``,
    which applies them (``PretrainedConfig.update``) before ``patch_rope_parameters``, and applies the dict-valued
    ones after it (``_apply_dict_overrides``: a top-level key is set as the attribute, a nested config such as
    ``text_config`` is merged key by key, ``_update_nested``). Read at 0.11.1, 0.11.2, 0.12.0, 0.14.1, 0.15.0,
    0.18.0, 0.19.0, 0.20.0, 0.23.0, 0.25.1, 0.26.0, 0.28.0, 0.29.0, 0.31.0 and 0.34.0. So:

    - a ``rope_parameters`` dict is what the check reads (set last, over what the patch made);
    - a ``rope_scaling`` dict reaches it only where ``rope_scaling`` is ``rope_parameters`` (``scaling_override``:
      transformers 5's ``PreTrainedConfig.rope_scaling`` setter sets ``rope_parameters``). Under transformers 4
      ``patch_rope_parameters`` has already copied the checkpoint's ``rope_scaling`` into ``rope_parameters``: a
      top-level override replaces ``rope_scaling`` alone and the checkpoint's parameters stay; one in
      ``text_config`` is merged into the checkpoint's ``rope_scaling`` dict, the very object ``rope_parameters``
      holds, where the checkpoint has one, and is lost where it has none."""
    cfg = length_config(model)
    given = model.extra.get(_OVERRIDE_ROPE_KEY) if model.extra else None
    if not isinstance(given, dict) or not rope_parameters:
        return cfg
    scaling, parameters = given.get("rope_scaling"), given.get("rope_parameters")
    if scaling and scaling_override:
        return cfg  # the override's rope_scaling, as with_hf_overrides merged it, is what the check reads
    if parameters:
        return {**cfg, "rope_scaling": None}  # the override's rope_parameters, set after the patch
    checkpoint = given.get("checkpoint")
    checkpoint = checkpoint if isinstance(checkpoint, dict) else {}
    own = checkpoint.get("rope_scaling")
    out = {k: v for k, v in cfg.items() if k not in ("rope_scaling", "rope_parameters")}
    out.update(checkpoint)
    given_scaling = cfg.get("rope_scaling")
    if scaling == "nested" and isinstance(own, dict) and isinstance(given_scaling, dict):
        out["rope_scaling"] = {**own, **given_scaling}
    return out


#: ``catalog.hfconfig.OVERRIDE_ROPE_KEY`` (rules/capacity imports no catalog module here)
_OVERRIDE_ROPE_KEY = "hf_override_rope"
#: ``catalog.hfconfig.TEXT_ROPE_KEY``
_TEXT_ROPE_KEY = "text_config_rope"
#: ``catalog.hfconfig.OVERRIDE_TOP_KEY``
_OVERRIDE_TOP_KEY = "hf_override_top"


def top_override_readings(model: ModelShape, behaviour: Any) -> tuple[bool, ...]:
    """Whether a top-level ``--hf-overrides`` length key of a composite config (``catalog.hfconfig.OVERRIDE_TOP_KEY``)
    reaches the text config vLLM derives the length from, under the release ``behaviour``: (False,) where there is
    none, where the checkpoint's transformers-4 class does not pass it on (only ``Qwen2VLConfig`` and
    ``Qwen2_5_VLConfig`` do, in 4.57.0), or where the release runs transformers 5 (0.24.0 on, whose setter keeps it
    on the outer config); (True,) for those two classes on a release that pins transformers 4.56+ (0.12.0 - 0.19.x:
    ``Behaviour.rope_scaling_override`` ``ignored``); both where the image decides (0.20.0 - 0.23.x, 4 or 5) or the
    release predates the 4.56 pin and its transformers is not known (before 0.12.0)."""
    given = model.extra.get(_OVERRIDE_TOP_KEY) if model.extra else None
    if not isinstance(given, dict) or not given.get("forwards"):
        return (False,)
    mode = behaviour.rope_scaling_override
    if mode == "ignored":
        return (True,)
    if mode == "read" and behaviour.reads_rope_parameters:
        return (False,)  # 0.24.0 on: transformers >= 5.5.3
    return (True, False)


def _top_applied(model: ModelShape) -> ModelShape:
    """``model`` with its top-level length override reaching the text config (what ``with_hf_overrides`` kept)."""
    given = model.extra.get(_OVERRIDE_TOP_KEY) if model.extra else None
    if not isinstance(given, dict):
        return model
    import dataclasses

    extra = {k: v for k, v in model.extra.items() if k != _OVERRIDE_TOP_KEY}
    for key in (_TEXT_ROPE_KEY, _OVERRIDE_ROPE_KEY):
        if given.get(key) is not None:
            extra[key] = given[key]
    return dataclasses.replace(model, extra=extra, max_position_embeddings=int(
        given.get("max_position_embeddings") or model.max_position_embeddings))


def length_config(model: ModelShape) -> dict[str, Any]:
    """The config whose RoPE parameters the length reads: the model's ``hf_config``, where config.json writes a
    ``text_config`` (``catalog.hfconfig.TEXT_ROPE_KEY``) with only the RoPE keys that text config itself writes, as
    vLLM's ``hf_text_config`` holds them: a top-level ``rope_scaling`` beside a ``text_config`` that has none scales
    nothing (Qwen's long-context recipe written at the top of a Qwen2.5-VL config.json that nests its text config)."""
    own = model.extra.get(_TEXT_ROPE_KEY) if model.extra else None
    if not isinstance(own, dict):
        return model.hf_config
    out = {k: v for k, v in model.hf_config.items() if k not in ("rope_scaling", "rope_parameters")}
    out.update(own)
    return out


def derived_limits(model: ModelShape, behaviours: Any) -> tuple[int, ...]:
    """The context limits vLLM derives for ``model`` under each of ``behaviours`` (``versions.Behaviour`` rows:
    one for a known release, every row where the release is not known), sorted, without repeats; a row whose
    ``rope_scaling_override`` is ``image`` (0.20 - 0.23, whose requirements take transformers 4 or 5) gives both."""
    out: set[int] = set()
    for b in behaviours:
        mode = b.rope_scaling_override
        forwards = top_override_readings(model, b)[0] or len(top_override_readings(model, b)) > 1
        if mode == "image":  # transformers 5 (the override's rope_scaling read, a top-level key kept outside) or 4
            pairs = [(True, False), (False, forwards)]
        elif mode == "ignored":
            pairs = [(False, forwards)]
        else:
            pairs = [(True, top) for top in top_override_readings(model, b)]
        for read, top in pairs:
            out.add(derived_max_model_len(model, b.yarn_rescales_limit, b.reads_rope_parameters, read, top))
    return tuple(sorted(out))


#: The keys by which a ``rope_parameters`` dict is nested (vLLM's ``is_rope_parameters_nested``: every key one of
#: transformers' ``ALLOWED_LAYER_TYPES``: ``full_attention``, ``sliding_attention``, ``chunked_attention`` and
#: ``linear_attention`` in 4.57; 5.x adds ``compressed_sparse_attention``, ``heavily_compressed_attention``,
#: ``minimax_m3_sparse``, ``conv``, ``sparse``, ``dense``, ``hybrid``, ``hybrid_sliding``, ``moe``; vLLM 0.34.0 adds
#: DeepSeek-V4's ``main`` and ``compress``). The union: a flat dict's keys (``rope_type``, ``factor``, ...) are
#: never among them.
ROPE_LAYER_TYPES = frozenset({
    "full_attention", "sliding_attention", "chunked_attention", "linear_attention", "compressed_sparse_attention",
    "heavily_compressed_attention", "minimax_m3_sparse", "conv", "sparse", "dense", "hybrid", "hybrid_sliding",
    "moe", "main", "compress",
})


def rope_parameter_sets(cfg: dict[str, Any], rope_parameters: bool = True) -> list[dict[str, Any]]:
    """The RoPE parameter dicts vLLM's length check walks: ``rope_scaling`` where it is a dict (a transformers-4
    config, or one that writes both), else ``rope_parameters`` (where the release reads it), one dict per layer type
    where it is keyed by layer types; empty where neither is written."""
    rope = cfg.get("rope_scaling")
    if not isinstance(rope, dict) and rope_parameters:
        rope = cfg.get("rope_parameters")
    if not isinstance(rope, dict) or not rope:
        return []
    if set(rope) <= ROPE_LAYER_TYPES:
        return [p for p in rope.values() if isinstance(p, dict) and p]
    return [rope]
