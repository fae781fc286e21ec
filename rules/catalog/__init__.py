"""Shipped catalogs of GPUs, AWS GPU instance types and model shapes, and their lookups.

The data lives in ``data/*.json`` beside this module. Every entry names the public page its
numbers come from (``source``). Files are read lazily, once, with the standard library only, so
importing this module costs next to nothing.

Lookups are forgiving about spelling and strict about meaning:

- :func:`find_gpu` accepts canonical names, common spellings (``"H100"``, ``"h100 sxm"``), GPU
  Feature Discovery product labels (``"NVIDIA-H100-80GB-HBM3"``) and Karpenter GPU names
  (``"h100"``). Bare family names that exist in several memory sizes resolve to one documented
  default (bare ``"A100"`` is the 40 GB SXM4 part that ``p4d.24xlarge`` carries); pass
  ``memory_mib`` (the ``nvidia.com/gpu.memory`` or ``karpenter.k8s.aws/instance-gpu-memory`` label)
  to pick the right size.
- :func:`find_model` accepts Hugging Face ids, old names and quantised re-uploads
  (``hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4``), which resolve to the base model's
  shape with the precision the name states.
- :func:`load_local_model` reads a Hugging Face ``config.json`` given by path.

Every failure is a :class:`~shardwise.rules.errors.CatalogError` that names what was asked for
and, where possible, the closest known names.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from typing import Any

from ..errors import CatalogError
from .types import (
    VENDOR_RESOURCE,
    GpuInfo,
    InstanceType,
    Interconnect,
    MlaShape,
    ModelShape,
    MoeShape,
    Precision,
    Vendor,
)

__all__ = [
    "CatalogError",
    "GpuInfo",
    "InstanceType",
    "Interconnect",
    "MlaShape",
    "ModelShape",
    "MoeShape",
    "Precision",
    "Vendor",
    "derive_params",
    "find_gpu",
    "find_instance",
    "find_model",
    "gpus",
    "instance_types",
    "instances_for_gpu",
    "load_local_model",
    "models",
    "resolve_precision_from_name",
]

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# Keys a data entry may carry for people (provenance notes) that are not record fields.
_NOTE_KEYS = frozenset({"note", "memory_gib_source", "price_source", "family"})


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _read_data(filename: str) -> list[dict[str, Any]]:
    import json

    path = os.path.join(_DATA_DIR, filename)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise CatalogError(f"cannot read shipped catalog: {exc.strerror}", file=path) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise CatalogError("expected a JSON list of objects", file=path)
    return data


def _field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def _check_entry(entry: dict[str, Any], cls: type, path: str, extra_ok: frozenset[str]) -> None:
    name = entry.get("name") or entry.get("id") or "?"
    unknown = set(entry) - _field_names(cls) - extra_ok
    if unknown:
        raise CatalogError(f"entry {name!r} has unknown key(s): {', '.join(sorted(unknown))}", file=path)
    source = entry.get("source")
    if not isinstance(source, str) or not source.startswith("https://"):
        raise CatalogError(f"entry {name!r} needs an https source URL", file=path)


_VENDOR_WORDS = ("nvidia", "geforce", "tesla", "amd", "instinct", "intel", "habana", "google", "aws")

#: An entry without ``nvlink_domain_size`` gets the usual domain of its interconnect: an HGX board
#: (or another vendor's 8-way platform) joins 8, a PCIe-only card is alone.
_GPU_DOMAIN_BY_LINK = {"nvswitch": 8, "nvlink": 8, "fabric": 8, "pcie": 1}


def _norm_gpu(name: str) -> str:
    """Fold a GPU spelling to a lookup key: case, separators and vendor words do not matter."""
    key = re.sub(r"[\s_\-./()]+", "", name.strip().lower())
    stripped = True
    while stripped:  # "nvidia-tesla-t4" (GKE), "AMD Instinct MI300X", "Intel Gaudi 2"
        stripped = False
        for prefix in _VENDOR_WORDS:
            if key.startswith(prefix) and len(key) > len(prefix):
                key = key[len(prefix) :]
                stripped = True
    # GPU Feature Discovery appends "-SHARED" to the product label under time-slicing.
    if key.endswith("shared") and len(key) > len("shared"):
        key = key[: -len("shared")]
    return key


@functools.cache
def _gpu_index() -> tuple[dict[str, GpuInfo], dict[str, str], dict[str, str]]:
    path = os.path.join(_DATA_DIR, "gpus.json")
    by_name: dict[str, GpuInfo] = {}
    keys: dict[str, str] = {}
    family: dict[str, str] = {}
    for raw in _read_data("gpus.json"):
        _check_entry(raw, GpuInfo, path, _NOTE_KEYS)
        fields = {k: v for k, v in raw.items() if k not in _NOTE_KEYS}
        fields["aliases"] = tuple(fields.get("aliases", ()))
        fields.setdefault("nvlink_domain_size", _GPU_DOMAIN_BY_LINK.get(str(fields.get("interconnect", "pcie")), 1))
        fields.setdefault("k8s_resource", VENDOR_RESOURCE.get(str(fields.get("vendor", "nvidia")), "nvidia.com/gpu"))
        try:
            gpu = GpuInfo(**fields)
        except TypeError as exc:
            raise CatalogError(f"bad GPU entry {raw.get('name')!r}: {exc}", file=path) from None
        if gpu.name in by_name:
            raise CatalogError(f"duplicate GPU {gpu.name!r}", file=path)
        by_name[gpu.name] = gpu
        family[gpu.name] = raw.get("family", gpu.name)
        for spelling in (gpu.name, *gpu.aliases):
            key = _norm_gpu(spelling)
            if keys.get(key, gpu.name) != gpu.name:
                raise CatalogError(f"GPU spelling {spelling!r} names both {keys[key]!r} and {gpu.name!r}", file=path)
            keys[key] = gpu.name
    return by_name, keys, family


def gpus() -> dict[str, GpuInfo]:
    """All GPUs in the catalog, keyed by canonical name."""
    return dict(_gpu_index()[0])


def _unknown(kind: str, name: str, query: str, candidates: dict[str, str], cutoff: float = 0.75) -> CatalogError:
    """An error naming the closest known spellings of ``query`` (mapped back to canonical names)."""
    import difflib

    close = difflib.get_close_matches(query, list(candidates), n=8, cutoff=cutoff)
    suggestions: list[str] = []
    for key in close:
        if candidates[key] not in suggestions:
            suggestions.append(candidates[key])
    if suggestions:
        return CatalogError(f"unknown {kind} {name!r}; did you mean: {', '.join(suggestions[:3])}?")
    known = sorted(set(candidates.values()))
    shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
    return CatalogError(f"unknown {kind} {name!r}; known: {shown}")


def find_gpu(name: str, *, memory_mib: int | None = None) -> GpuInfo:
    """Resolve any known spelling of a GPU to its catalog record.

    Case, spaces, underscores and dashes do not matter; GPU Feature Discovery product labels
    (``nvidia.com/gpu.product``) and Karpenter names (``karpenter.k8s.aws/instance-gpu-name``) are
    accepted. When the name is a bare family name that several sizes share (``"a100"``,
    ``"v100"``, ``"h100"``, as Karpenter's ``instance-gpu-name`` label gives them) and
    ``memory_mib`` (the node's ``gpu.memory`` label, MiB) is given, the size closest to that memory
    is chosen; a specific name is never overridden.
    """
    if not isinstance(name, str) or not name.strip():
        raise CatalogError(f"unknown GPU {name!r}: expected a GPU name")
    by_name, keys, family = _gpu_index()
    canonical = keys.get(_norm_gpu(name))
    if canonical is None:
        raise _unknown("GPU", name, _norm_gpu(name), keys)
    gpu = by_name[canonical]
    bare_family = _norm_gpu(name) == _norm_gpu(family[canonical])
    if memory_mib is not None and memory_mib > 0 and bare_family:
        siblings = [g for g in by_name.values() if family[g.name] == family[canonical]]
        reported_gib = memory_mib / 1024
        # Stable: the bare name's own target wins ties (SXM and PCIe H100 report the same memory).
        gpu = min(siblings, key=lambda g: (round(abs(g.memory_gib - reported_gib), 1), g is not gpu))
    return gpu


@functools.cache
def _instance_index() -> dict[str, InstanceType]:
    path = os.path.join(_DATA_DIR, "instances.json")
    gpu_names = _gpu_index()[0]
    out: dict[str, InstanceType] = {}
    for raw in _read_data("instances.json"):
        _check_entry(raw, InstanceType, path, _NOTE_KEYS)
        fields = {k: v for k, v in raw.items() if k not in _NOTE_KEYS}
        if not fields.get("nvlink_domain_size"):  # the node's own GPUs, unless they share no link
            fields["nvlink_domain_size"] = 1 if fields.get("interconnect") == "pcie" else fields.get("gpus", 1)
        try:
            inst = InstanceType(**fields)
        except TypeError as exc:
            raise CatalogError(f"bad instance entry {raw.get('name')!r}: {exc}", file=path) from None
        if inst.gpu not in gpu_names:
            raise CatalogError(f"instance {inst.name!r} names unknown GPU {inst.gpu!r}", file=path)
        if inst.name in out:
            raise CatalogError(f"duplicate instance type {inst.name!r}", file=path)
        out[inst.name] = inst
    return out


def instance_types() -> dict[str, InstanceType]:
    """All AWS GPU instance types in the catalog, keyed by name (``"p5.48xlarge"``)."""
    return dict(_instance_index())


def find_instance(name: str) -> InstanceType:
    """Look up an instance type by name, ignoring case and surrounding spaces."""
    index = _instance_index()
    key = name.strip().lower() if isinstance(name, str) else ""
    inst = index.get(key)
    if inst is None:
        raise _unknown("instance type", str(name), key, {n: n for n in index})
    return inst


def instances_for_gpu(gpu_name: str) -> list[InstanceType]:
    """Instance types that carry the given GPU (any known spelling), fewest GPUs first."""
    gpu = find_gpu(gpu_name)
    found = [i for i in _instance_index().values() if i.gpu == gpu.name]
    return sorted(found, key=lambda i: (i.gpus, i.vcpus, i.name))


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


def _model_from_raw(raw: dict[str, Any], path: str) -> ModelShape:
    fields = dict(raw)
    moe = fields.get("moe")
    mla = fields.get("mla")
    try:
        if moe is not None:
            fields["moe"] = MoeShape(**moe)
        if mla is not None:
            fields["mla"] = MlaShape(**mla)
        fields["aliases"] = tuple(fields.get("aliases", ()))
        fields["extra"] = dict(fields.get("extra", {}))
        fields["hf_config"] = dict(fields.get("hf_config", {}))
        return ModelShape(**fields)
    except TypeError as exc:
        raise CatalogError(f"bad model entry {raw.get('id')!r}: {exc}", file=path) from None


@functools.cache
def _model_index() -> tuple[dict[str, ModelShape], dict[str, str], dict[str, list[str]]]:
    """(models by id, lower-cased id/alias -> id, normalised bare name -> ids)."""
    path = os.path.join(_DATA_DIR, "models.json")
    raws: dict[str, dict[str, Any]] = {}
    by_id: dict[str, ModelShape] = {}
    lower: dict[str, str] = {}
    bare: dict[str, list[str]] = {}
    for entry in _read_data("models.json"):
        _check_entry(entry, ModelShape, path, frozenset({"inherits"}))
        parent_id = entry.get("inherits")
        if parent_id is not None:
            if parent_id not in raws:
                raise CatalogError(
                    f"model {entry.get('id')!r} inherits {parent_id!r}, which is not listed before it",
                    file=path,
                )
            merged = {k: v for k, v in raws[parent_id].items() if k not in ("aliases", "source")}
            merged["extra"] = {**raws[parent_id].get("extra", {}), **entry.get("extra", {})}
            merged.update({k: v for k, v in entry.items() if k not in ("inherits", "extra", "hf_config")})
            merged["extra"]["inherits"] = parent_id
            merged["hf_config"] = {**raws[parent_id].get("hf_config", {}), **entry.get("hf_config", {})}
            raw = merged
        else:
            raw = dict(entry)
        shape = _model_from_raw(raw, path)
        if shape.id in by_id:
            raise CatalogError(f"duplicate model {shape.id!r}", file=path)
        raws[shape.id] = raw
        by_id[shape.id] = shape
        for spelling in (shape.id, *shape.aliases):
            key = spelling.lower()
            if lower.get(key, shape.id) != shape.id:
                raise CatalogError(f"model spelling {spelling!r} names two models", file=path)
            lower[key] = shape.id
            bare.setdefault(_norm_model_name(spelling), [])
            if shape.id not in bare[_norm_model_name(spelling)]:
                bare[_norm_model_name(spelling)].append(shape.id)
    return by_id, lower, bare


def models() -> dict[str, ModelShape]:
    """All models in the catalog, keyed by Hugging Face id."""
    return dict(_model_index()[0])


def _norm_model_name(model_id: str) -> str:
    """A model name without organisation, case, separators or the ``Meta-`` / ``-hf`` decorations."""
    name = model_id.strip().rsplit("/", 1)[-1].lower()
    name = re.sub(r"^meta-llama-", "llama-", name)
    name = re.sub(r"[-_]hf$", "", name)
    return re.sub(r"[\s_\-]+", "", name)


# (pattern on the end of the bare name, precision, quantization method), tried in this order.
_QUANT_SUFFIXES: tuple[tuple[str, Precision, str], ...] = (
    (r"[-_.]quantized[-_.]w4a16", "int4", "gptq"),
    (r"[-_.]quantized[-_.]w8a16", "int8", "gptq"),
    (r"[-_.]quantized[-_.]w8a8", "int8", "compressed-tensors"),
    (r"[-_.]quantized[-_.]w4a4", "int4", "compressed-tensors"),
    (r"[-_.]w4a16", "int4", "gptq"),
    (r"[-_.]w8a16", "int8", "gptq"),
    (r"[-_.]w8a8", "int8", "compressed-tensors"),
    (r"[-_.]awq[-_.]int4", "int4", "awq"),
    (r"[-_.]awq", "int4", "awq"),
    (r"[-_.]gptq[-_.]int4", "int4", "gptq"),
    (r"[-_.]gptq[-_.]int8", "int8", "gptq"),
    (r"[-_.]gptq[-_.]4bit", "int4", "gptq"),
    (r"[-_.]gptq[-_.]8bit", "int8", "gptq"),
    (r"[-_.]gptq", "int4", "gptq"),
    (r"[-_.]fp8[-_.]dynamic", "fp8", "fp8"),
    (r"[-_.]fp8[-_.]block", "fp8", "fp8"),
    (r"[-_.]fp8", "fp8", "fp8"),
    (r"[-_.]nvfp4", "nvfp4", "modelopt"),
    (r"[-_.]mxfp4", "mxfp4", "mxfp4"),
    (r"[-_.]bnb[-_.]4bit", "int4", "bitsandbytes"),
    (r"[-_.]bnb[-_.]8bit", "int8", "bitsandbytes"),
    (r"[-_.]int4", "int4", "gptq"),
    (r"[-_.]int8", "int8", "gptq"),
)


@functools.cache
def _quant_patterns() -> tuple[tuple[re.Pattern[str], Precision, str], ...]:
    return tuple((re.compile(p + "$", re.IGNORECASE), prec, method) for p, prec, method in _QUANT_SUFFIXES)


def _split_quant_suffix(model_id: str) -> tuple[str, tuple[Precision, str] | None]:
    """Split ``org/Name-AWQ-INT4`` into (``Name``, (precision, method)); the first suffix found wins."""
    name = model_id.strip().rsplit("/", 1)[-1]
    found: tuple[Precision, str] | None = None
    changed = True
    while changed:
        changed = False
        for pattern, precision, method in _quant_patterns():
            m = pattern.search(name)
            if m and m.start() > 0:
                name = name[: m.start()]
                if found is None:
                    found = (precision, method)
                changed = True
                break
    return name, found


def resolve_precision_from_name(model_id: str) -> tuple[Precision, str] | None:
    """The (precision, quantization method) a repository name states, or None if it states none.

    ``...-AWQ`` / ``...-AWQ-INT4`` -> (int4, awq); ``...-GPTQ-Int4`` -> (int4, gptq);
    ``...-FP8`` / ``...-FP8-dynamic`` -> (fp8, fp8); ``...-quantized.w8a8`` -> (int8,
    compressed-tensors); ``...-quantized.w4a16`` -> (int4, gptq).
    """
    return _split_quant_suffix(model_id)[1]


def _as_variant(base: ModelShape, model_id: str, quant: tuple[Precision, str] | None) -> ModelShape:
    precision, method = quant if quant is not None else (base.precision, base.quantization)
    return dataclasses.replace(
        base,
        id=model_id,
        precision=precision,
        quantization=method,
        aliases=(),
        base_model=base.id,
        extra={**base.extra, "resolved_from": base.id},
    )


def find_model(model_id: str, base_model: str | None = None) -> ModelShape:
    """Resolve a Hugging Face model id to its shape.

    Order: exact id; id or alias ignoring case; with ``base_model``, that model's shape carrying
    the precision ``model_id``'s name states; a re-upload whose name, stripped of organisation and
    quantisation suffixes (``-AWQ``, ``-GPTQ-Int4``, ``-FP8-dynamic``, ``-quantized.w8a8``...),
    matches exactly one catalog model. A resolved re-upload is a copy with ``id`` = ``model_id``,
    the stated precision and ``base_model`` = the catalog id.
    """
    if not isinstance(model_id, str) or not model_id.strip():
        raise CatalogError(f"unknown model {model_id!r}: expected a Hugging Face model id")
    by_id, lower, bare = _model_index()
    model_id = model_id.strip()
    if model_id in by_id:
        return by_id[model_id]
    if base_model is not None:
        base = find_model(base_model)
        return _as_variant(base, model_id, resolve_precision_from_name(model_id))
    hit = lower.get(model_id.lower())
    if hit is not None:
        return by_id[hit]
    name, quant = _split_quant_suffix(model_id)
    candidates = bare.get(_norm_model_name(name), [])
    if len(candidates) == 1:
        return _as_variant(by_id[candidates[0]], model_id, quant)
    if len(candidates) > 1:
        raise CatalogError(
            f"model {model_id!r} is ambiguous; it could be: {', '.join(sorted(candidates))}; name one as the base model"
        )
    spellings = {_norm_model_name(k): v for k, v in lower.items()}
    err = _unknown("model", model_id, _norm_model_name(name), spellings, cutoff=0.6)
    if "did you mean" not in err.message:
        err = CatalogError(
            f"unknown model {model_id!r}; it is not in the catalog: name the catalog model it is a copy of "
            "(annotation shardwise.dev/base-model, base_model in a stack, --base-model for plan) "
            "or give the path of its config.json"
        )
    raise err


# --------------------------------------------------------------------------------------------
# Hugging Face config.json
# --------------------------------------------------------------------------------------------

# Defaults for keys a model family's config.json may leave out (the transformers config class
# defaults). Gemma 3 multimodal checkpoints omit most of their text_config.
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 131_072,
        "tie_word_embeddings": True,
    },
    "gemma3": {"tie_word_embeddings": True},
    "gemma2": {"tie_word_embeddings": True, "head_dim": 256},
    "gemma": {"tie_word_embeddings": True, "head_dim": 256},
}

_DTYPE_PRECISION: dict[str, Precision] = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "float8_e4m3fn": "fp8",
}
_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, "float8_e4m3fn": 1}


#: config.json keys kept verbatim on :attr:`ModelShape.hf_config` (plus every ``linear_*`` key).
HF_CONFIG_KEYS = frozenset({
    "model_type", "architectures", "sliding_window", "layer_types", "sliding_window_pattern",
    "attention_chunk_size", "no_rope_layers", "use_sliding_window", "max_window_layers",
    "full_attention_interval", "rope_scaling", "rope_theta", "max_position_embeddings", "vision_config",
    "quantization_config", "interleaved_sliding_window", "attention_type", "mamba_d_state",
})


def _text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The decoder's config: ``text_config`` merged over the top level (multimodal checkpoints)."""
    merged = dict(config)
    text = config.get("text_config")
    if isinstance(text, dict):
        merged.update(text)
        merged.pop("text_config", None)
    model_type = str(merged.get("model_type", ""))
    for key, value in _FAMILY_DEFAULTS.get(model_type, {}).items():
        merged.setdefault(key, value)
    if "tie_word_embeddings" not in merged:
        merged["tie_word_embeddings"] = model_type.startswith("gemma")
    return merged


def _int(cfg: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if value is not None and not isinstance(value, bool):
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ValueError(f"{key} must be an integer, got {value!r}")
    return None


def _moe_from_config(cfg: dict[str, Any]) -> MoeShape | None:
    experts = _int(cfg, "n_routed_experts", "num_local_experts", "num_experts")
    if not experts or experts <= 1:
        return None
    per_token = _int(cfg, "num_experts_per_tok", "experts_per_token", "num_experts_per_token", "top_k") or 1
    shared = _int(cfg, "n_shared_experts") or 0
    if not shared and _int(cfg, "shared_expert_intermediate_size"):
        shared = 1
    size = _int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size") or 0
    return MoeShape(num_experts=experts, experts_per_token=per_token, shared_experts=shared, moe_intermediate_size=size)


def _required(cfg: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    missing = []
    for key in ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"):
        value = _int(cfg, key)
        if value is None or value <= 0:
            missing.append(key)
        else:
            out[key] = value
    if missing:
        raise KeyError(", ".join(missing))
    return out


def derive_params(config: dict[str, Any]) -> int:
    """Total parameters implied by a Hugging Face ``config.json`` (all experts counted).

    embeddings = vocab x hidden, twice when the LM head is not tied; per layer: attention
    q = hidden x heads x head_dim, k and v = hidden x kv_heads x head_dim each, o = heads x
    head_dim x hidden (plus q/k/v biases for Qwen2 and ``attention_bias`` models, per-head q/k
    RMSNorm for Qwen3 and Gemma 3, the latent projections for MLA models); MLP = 3 x hidden x
    intermediate (gate, up, down), or for MoE layers experts x 3 x hidden x moe_intermediate +
    shared experts + router (hidden x experts); RMSNorm weights 2 x hidden per layer (4 for
    Gemma 2/3) + the final hidden. Rotary buffers, vision towers and multi-token-prediction
    heads are not counted.
    """
    if not isinstance(config, dict):
        raise CatalogError("model config must be a JSON object")
    try:
        return _derive(_text_config(config))
    except KeyError as exc:
        raise CatalogError(f"missing required key(s) in model config: {exc.args[0]}") from None
    except (TypeError, ValueError) as exc:
        raise CatalogError(f"bad value in model config: {exc}") from None


def _derive(cfg: dict[str, Any]) -> int:
    req = _required(cfg)
    h, layers = req["hidden_size"], req["num_hidden_layers"]
    heads, vocab = req["num_attention_heads"], req["vocab_size"]
    kv_heads = _int(cfg, "num_key_value_heads") or heads
    head_dim = _int(cfg, "head_dim") or h // heads
    model_type = str(cfg.get("model_type", ""))
    tied = bool(cfg.get("tie_word_embeddings"))
    total = vocab * h * (1 if tied else 2)

    kv_lora = _int(cfg, "kv_lora_rank")
    if kv_lora:
        rope = _int(cfg, "qk_rope_head_dim") or 0
        nope = _int(cfg, "qk_nope_head_dim") or 0
        v_dim = _int(cfg, "v_head_dim") or nope
        q_lora = _int(cfg, "q_lora_rank")
        qk = nope + rope
        attn = (h * q_lora + q_lora + q_lora * heads * qk) if q_lora else h * heads * qk
        attn += h * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim) + heads * v_dim * h
    else:
        q_out, kv_out = heads * head_dim, kv_heads * head_dim
        attn = h * q_out + 2 * h * kv_out + q_out * h
        if model_type.startswith("qwen2"):
            attn += q_out + 2 * kv_out
        elif cfg.get("attention_bias"):
            attn += q_out + 2 * kv_out + h
        if model_type in ("qwen3", "qwen3_moe", "gemma3", "gemma3_text"):
            attn += 2 * head_dim

    intermediate = _int(cfg, "intermediate_size") or 0
    dense_mlp = 3 * h * intermediate
    if cfg.get("mlp_bias"):
        dense_mlp += 2 * intermediate + h
    moe = _moe_from_config(cfg)
    if moe is None:
        mlp = layers * dense_mlp
    else:
        moe_layer = moe.num_experts * 3 * h * moe.moe_intermediate_size + h * moe.num_experts
        shared_size = _int(cfg, "shared_expert_intermediate_size")
        if shared_size:
            moe_layer += 3 * h * shared_size + h  # Qwen2-MoE shared expert and its gate
        elif moe.shared_experts:
            moe_layer += moe.shared_experts * 3 * h * moe.moe_intermediate_size
        if cfg.get("topk_method") == "noaux_tc":
            moe_layer += moe.num_experts  # e_score_correction_bias
        dense_layers = _int(cfg, "first_k_dense_replace") or len(cfg.get("mlp_only_layers") or ())
        dense_layers = min(dense_layers, layers)
        mlp = dense_layers * dense_mlp + (layers - dense_layers) * moe_layer

    norms_per_layer = 4 if model_type in ("gemma2", "gemma3", "gemma3_text") else 2
    return total + layers * attn + mlp + layers * norms_per_layer * h + h


def _quant_from_config(q: Any) -> tuple[Precision, str] | None:
    if not isinstance(q, dict):
        return None
    method = str(q.get("quant_method", "")).lower()
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        bits = q.get("bits", q.get("w_bit", 4))
        return ("int8" if bits == 8 else "int4"), method.replace("_marlin", "")
    if method in ("fp8", "fbgemm_fp8"):
        return "fp8", method
    if method == "mxfp4":
        return "mxfp4", method
    if method == "bitsandbytes":
        return ("int8" if q.get("load_in_8bit") else "int4"), method
    if method == "modelopt":
        algo = str(q.get("quant_algo", "")).upper()
        return ("nvfp4" if "FP4" in algo else "fp8"), method
    if method == "compressed-tensors":
        groups = q.get("config_groups") or {}
        for group in groups.values() if isinstance(groups, dict) else ():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict):
                bits = weights.get("num_bits")
                kind = str(weights.get("type", "int")).lower()
                if kind == "float":
                    return ("nvfp4" if bits == 4 else "fp8"), method
                return ("int8" if bits == 8 else "int4"), method
        return "fp8", method
    return None


def load_local_model(path: str | os.PathLike[str]) -> ModelShape:
    """Read a Hugging Face ``config.json`` (or a directory holding one) into a :class:`ModelShape`.

    Parameters come from ``model.safetensors.index.json`` beside it when present
    (``metadata.total_parameters``, or ``metadata.total_size`` bytes / bytes per parameter of the
    unquantised ``torch_dtype``), otherwise from :func:`derive_params`.
    """
    import json

    target = os.fspath(path)
    config_path = os.path.join(target, "config.json") if os.path.isdir(target) else target
    try:
        with open(config_path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except FileNotFoundError:
        raise CatalogError("config.json not found", file=config_path) from None
    except OSError as exc:
        raise CatalogError(f"cannot read model config: {exc.strerror}", file=config_path) from None
    except UnicodeDecodeError:
        raise CatalogError("model config is not UTF-8 text", file=config_path) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"invalid JSON: {exc.msg}", file=config_path, line=exc.lineno) from None
    if not isinstance(raw, dict):
        raise CatalogError("model config must be a JSON object", file=config_path)

    cfg = _text_config(raw)
    try:
        req = _required(cfg)
        max_pos = _int(cfg, "max_position_embeddings", "max_sequence_length", "seq_length")
        heads = req["num_attention_heads"]
        kv_heads = _int(cfg, "num_key_value_heads") or heads
        moe = _moe_from_config(cfg)
        intermediate = _int(cfg, "intermediate_size")
        mla = None
        kv_lora = _int(cfg, "kv_lora_rank")
        if kv_lora:
            mla = MlaShape(kv_lora_rank=kv_lora, qk_rope_head_dim=_int(cfg, "qk_rope_head_dim") or 0)
            head_dim = (_int(cfg, "qk_nope_head_dim") or 0) + mla.qk_rope_head_dim
        else:
            head_dim = _int(cfg, "head_dim") or req["hidden_size"] // heads
    except KeyError as exc:
        raise CatalogError(f"missing required key(s) in model config: {exc.args[0]}", file=config_path) from None
    except ValueError as exc:
        raise CatalogError(str(exc), file=config_path) from None
    missing = [k for k, v in (("max_position_embeddings", max_pos),) if v is None]
    if intermediate is None and (moe is None or not moe.moe_intermediate_size):
        missing.append("intermediate_size")
    if missing:
        raise CatalogError(f"missing required key(s) in model config: {', '.join(missing)}", file=config_path)

    dtype = str(raw.get("torch_dtype") or raw.get("dtype") or cfg.get("torch_dtype") or cfg.get("dtype") or "")
    if dtype not in _DTYPE_PRECISION:
        dtype = "bfloat16"  # absent or unusual: assume the common case and say so
        extra_dtype_note = True
    else:
        extra_dtype_note = False
    quant = _quant_from_config(raw.get("quantization_config") or cfg.get("quantization_config"))
    precision: Precision = quant[0] if quant else _DTYPE_PRECISION.get(dtype, "bf16")
    extra: dict[str, object] = {"model_type": cfg.get("model_type"), "config_path": config_path}
    if extra_dtype_note:
        extra["torch_dtype_assumed"] = True

    quant_cfg = raw.get("quantization_config") or cfg.get("quantization_config")
    if isinstance(quant_cfg, dict) and quant_cfg.get("quant_method"):
        extra["quant_method"] = quant_cfg.get("quant_method")
    params, params_source = _params_from_index(os.path.dirname(config_path), dtype, quant is not None)
    if params is None:
        try:
            params, params_source = derive_params(raw), "derived"
        except CatalogError as exc:
            raise CatalogError(exc.message, file=config_path) from None
    extra["params_source"] = params_source

    name_or_path = raw.get("_name_or_path")
    if isinstance(name_or_path, str) and name_or_path:
        extra["name_or_path"] = name_or_path
    return ModelShape(
        id=os.path.basename(os.path.dirname(os.path.abspath(config_path))) or config_path,
        params=params,
        num_hidden_layers=req["num_hidden_layers"],
        hidden_size=req["hidden_size"],
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate or 0,
        vocab_size=req["vocab_size"],
        max_position_embeddings=max_pos or 0,
        torch_dtype=dtype,
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings")),
        precision=precision,
        quantization=quant[1] if quant else None,
        moe=moe,
        mla=mla,
        source=config_path,
        extra=extra,
        hf_config={k: v for k, v in cfg.items() if k in HF_CONFIG_KEYS or k.startswith("linear_")},
    )


def _params_from_index(directory: str, dtype: str, quantized: bool) -> tuple[int | None, str]:
    import json

    index_path = os.path.join(directory, "model.safetensors.index.json")
    if not os.path.exists(index_path):
        return None, "derived"
    try:
        with open(index_path, encoding="utf-8") as fh:
            index = json.load(fh)
    except (OSError, UnicodeDecodeError):
        raise CatalogError("cannot read safetensors index", file=index_path) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"invalid JSON: {exc.msg}", file=index_path, line=exc.lineno) from None
    meta = index.get("metadata") if isinstance(index, dict) else None
    if not isinstance(meta, dict):
        return None, "derived"
    total_params = meta.get("total_parameters")
    if isinstance(total_params, int) and not isinstance(total_params, bool) and total_params > 0:
        return total_params, "safetensors index: total_parameters"
    total_size = meta.get("total_size")
    per = _DTYPE_BYTES.get(dtype)
    if not quantized and per and isinstance(total_size, int) and total_size > 0:
        return total_size // per, f"safetensors index: total_size / {per} bytes"
    return None, "derived"
