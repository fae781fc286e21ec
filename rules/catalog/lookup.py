"""The shipped catalogs of GPUs, AWS GPU instance types and model shapes (``data/*.json``), read lazily and
once, and their forgiving lookups (see the package's docstring for what each accepts)."""

from __future__ import annotations

import dataclasses
import functools
import marshal
import os
import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from .._regex_code import dump_atomically
from ..model.errors import CatalogError
from ..model.shapes import (
    GpuInfo,
    InstanceType,
    MlaShape,
    ModelShape,
    MoeShape,
    Precision,
)
from . import accelerators as _accelerators
from .accelerators import catalog_resources

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# Keys a data entry may carry for people (provenance notes) that are not record fields.
_NOTE_KEYS = frozenset({"note", "memory_gib_source", "ec2_memory_source", "family"})


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _read_data(filename: str) -> list[dict[str, Any]]:
    import json  # only without the index cache below (start-up time)

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


# The three indexes below, read from JSON and checked entry by entry, cost a one-file lint about as much CPU
# as the rest of its work (48M instructions). What they build from is kept in one file beside this package's
# bytecode, as a .pyc is: the entries as the records are made from them (after the checks, inherited fields
# merged, defaults filled) and the spelling tables. It is used only for the shipped data folder and only
# while every file it was made from has the size and modification time it had (the three data files, the
# accelerator table and the two modules that turn them into records), with the same Python release; then
# the records are made from it by the same constructors, in the same order (a model's record when it is first
# asked for: each model's entry is kept marshalled on its own, see _Records). It is written when all three
# indexes were built from the JSON in one process, unless bytecode writing is off.
_SHIPPED_DATA_DIR = _DATA_DIR
_INDEX_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                            f"catalog-index.{sys.implementation.cache_tag}.marshal")
_built: dict[str, Any] = {}  # what each index was built from in this process, for the cache


def _index_stamp() -> tuple[Any, ...] | None:
    """What the cache must have been made from: the Python release and each source file's size and mtime."""
    files = [os.path.join(_DATA_DIR, name) for name in ("gpus.json", "instances.json", "models.json")]
    files += [_accelerators._DATA, os.path.abspath(__file__), os.path.abspath(_accelerators.__file__)]
    try:
        return (sys.hexversion, *((st.st_size, st.st_mtime_ns) for st in map(os.stat, files)))
    except OSError:
        return None


def _cached_indexes() -> dict[str, Any] | None:
    """The cache's content when the data folder is the shipped one and the cache matches it, else None."""
    return _read_index_cache() if _DATA_DIR == _SHIPPED_DATA_DIR else None


@functools.cache
def _read_index_cache() -> dict[str, Any] | None:
    stamp = _index_stamp()
    try:
        with open(_INDEX_CACHE, "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 2 and stamp is not None and data[0] == stamp
            and isinstance(data[1], dict) and set(data[1]) == {"gpus", "instances", "models"}
            and isinstance(data[1]["models"][0], dict)):
        return None
    return data[1]


def _remember(kind: str, built: Any) -> None:
    """Keep what one index was built from; once all three are there, write the cache (shipped data only)."""
    if _DATA_DIR != _SHIPPED_DATA_DIR:
        return
    _built[kind] = built
    if len(_built) < 3 or sys.dont_write_bytecode:
        return
    dump_atomically(_INDEX_CACHE, (_index_stamp(), dict(_built)))


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    """The fields of a catalog record class (asked once per entry of its file: computed once)."""
    return frozenset(f.name for f in dataclasses.fields(cls))


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
    cached = _cached_indexes()
    if cached is not None:
        entries, keys, family = cached["gpus"]
        return {fields["name"]: GpuInfo(**fields) for fields in entries}, keys, family
    path = os.path.join(_DATA_DIR, "gpus.json")
    by_name: dict[str, GpuInfo] = {}
    keys = {}
    family = {}
    entries = []
    for raw in _read_data("gpus.json"):
        _check_entry(raw, GpuInfo, path, _NOTE_KEYS)
        fields = {k: v for k, v in raw.items() if k not in _NOTE_KEYS}
        fields["aliases"] = tuple(fields.get("aliases", ()))
        if isinstance(fields.get("compute_capability"), list):  # (major, minor), as the record keeps it
            fields["compute_capability"] = tuple(fields["compute_capability"])
        fields.setdefault("nvlink_domain_size", _GPU_DOMAIN_BY_LINK.get(str(fields.get("interconnect", "pcie")), 1))
        fields.setdefault("k8s_resource", catalog_resources()[str(fields.get("vendor", "nvidia"))])
        try:
            gpu = GpuInfo(**fields)
        except TypeError as exc:
            raise CatalogError(f"bad GPU entry {raw.get('name')!r}: {exc}", file=path) from None
        if gpu.name != fields.get("name"):  # the cache keys each record by its entry's name
            raise CatalogError(f"bad GPU entry {raw.get('name')!r}: name must be a string", file=path)
        entries.append(fields)
        if gpu.name in by_name:
            raise CatalogError(f"duplicate GPU {gpu.name!r}", file=path)
        by_name[gpu.name] = gpu
        family[gpu.name] = raw.get("family", gpu.name)
        for spelling in (gpu.name, *gpu.aliases):
            key = _norm_gpu(spelling)
            if keys.get(key, gpu.name) != gpu.name:
                raise CatalogError(f"GPU spelling {spelling!r} names both {keys[key]!r} and {gpu.name!r}", file=path)
            keys[key] = gpu.name
    _remember("gpus", (entries, keys, family))
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


def size_unnamed(name: str) -> bool:
    """Whether ``name`` is a bare family name (``"V100"``, ``"A100"``) of a family whose GPUs come in more than one
    memory size in the catalog: the name alone does not say which (:func:`find_gpu` takes the family's first size
    unless a memory figure picks one). False for a specific name or a name the catalog does not know."""
    if not isinstance(name, str) or not name.strip():
        return False
    by_name, keys, family = _gpu_index()
    canonical = keys.get(_norm_gpu(name))
    if canonical is None or _norm_gpu(name) != _norm_gpu(family[canonical]):
        return False
    return len({g.memory_gib for g in by_name.values() if family[g.name] == family[canonical]}) > 1


#: How NVML begins the product names GPU Feature Discovery writes (``nvidia.com/gpu.product``, spaces as dashes).
_NVML_PREFIXES = ("NVIDIA-", "NVIDIA ", "Tesla-", "Tesla ")


def product_unsized(name: str) -> bool:
    """Whether a GPU Feature Discovery product label ``name`` names no memory size: a bare family name of several sizes
    (:func:`size_unnamed`) that is not NVML's own name for one of them. GFD writes NVML's full product name
    (``NVIDIA-A100-SXM4-40GB``, ``Tesla-V100-SXM2-16GB``); a bare ``NVIDIA-H20`` is the 96 GB part's NVML name (an alias
    of that entry, as written), but ``NVIDIA-A100``, ``NVIDIA-H100`` or ``A100`` are hand-written labels that any
    size of the family may carry (bare15 left this open: they took the family's first size)."""
    if not size_unnamed(name):
        return False
    return not (name.startswith(_NVML_PREFIXES) and name in find_gpu(name).aliases)


def family_sizes(name: str) -> list[str]:
    """The catalog GPUs a bare family name may be (:func:`of_family`), in catalog order: ``["A100-40GB",
    "A100-80GB", "A100-PCIe-40GB", "A100-PCIe-80GB"]`` for ``NVIDIA-A100``."""
    by_name, _, _ = _gpu_index()
    return [g for g in by_name if of_family(name, g)]


def of_family(name: str, gpu_name: str) -> bool:
    """Whether the catalog GPU ``gpu_name`` (``"A100-80GB"``) is one of the GPUs ``name`` names: itself when ``name``
    names one size, any size of the family when ``name`` is a bare family name (``"a100"``, as Karpenter's
    ``instance-gpu-name`` gives both p4d's A100 40 GB and p4de's A100 80 GB). False when either is unknown."""
    if not isinstance(name, str) or not name.strip():
        return False
    by_name, keys, family = _gpu_index()
    canonical = keys.get(_norm_gpu(name))
    if canonical is None or gpu_name not in by_name:
        return False
    if canonical == gpu_name:
        return True
    return size_unnamed(name) and family[gpu_name] == family[canonical]


@functools.cache
def _instance_index() -> dict[str, InstanceType]:
    cached = _cached_indexes()
    if cached is not None:
        return {fields["name"]: InstanceType(**fields) for fields in cached["instances"]}
    path = os.path.join(_DATA_DIR, "instances.json")
    gpu_names = _gpu_index()[0]
    out: dict[str, InstanceType] = {}
    entries = []
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
        if inst.name != fields.get("name"):  # the cache keys each record by its entry's name
            raise CatalogError(f"bad instance entry {raw.get('name')!r}: name must be a string", file=path)
        out[inst.name] = inst
        entries.append(fields)
    _remember("instances", entries)
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


class _Records(Mapping[str, ModelShape]):
    """The catalog's models by id, read from the index cache: each record is made from its entry (unmarshalled, then
    by :func:`_model_from_raw`, as the JSON path makes it) when it is first asked for, then kept, so the same id always
    gives the same object. A lint asks for a few of the ~200 models; making them all cost every start 14M
    instructions (a sixteenth of a one-file lint above the interpreter). Iterating, ``len``, ``in`` and ``dict()``
    see every model, in the data's order."""

    __slots__ = ("_entries", "_made", "_path")

    def __init__(self, entries: dict[str, bytes], path: str) -> None:
        self._entries = entries  # id -> the entry, marshalled
        self._made: dict[str, ModelShape] = {}
        self._path = path

    def __getitem__(self, model_id: str) -> ModelShape:
        shape = self._made.get(model_id)
        if shape is None:
            shape = self._made[model_id] = _model_from_raw(marshal.loads(self._entries[model_id]), self._path)
        return shape

    def __contains__(self, model_id: object) -> bool:
        return model_id in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@functools.cache
def _model_index() -> tuple[Mapping[str, ModelShape], dict[str, str], dict[str, list[str]]]:
    """(models by id, lower-cased id/alias -> id, normalised bare name -> ids)."""
    path = os.path.join(_DATA_DIR, "models.json")
    by_id: dict[str, ModelShape] = {}
    cached = _cached_indexes()
    if cached is not None:
        entries, lower, bare = cached["models"]
        return _Records(entries, path), lower, bare
    raws: dict[str, dict[str, Any]] = {}
    lower = {}
    bare = {}
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
            keys = [_norm_model_name(spelling)]  # once per spelling: three patterns each
            stem, stated = _split_quant_suffix(spelling)
            if stated is not None and stated[1] is None:
                # an id that names its unquantised dtype (nvidia/...-Nano-30B-A3B-BF16): its quantised uploads
                # (...-Nano-30B-A3B-FP8, RedHatAI/...-FP8-block) name the model without it
                keys.append(_norm_model_name(stem))
            for key in keys:
                ids = bare.setdefault(key, [])
                if shape.id not in ids:
                    ids.append(shape.id)
    # each model's entry marshalled on its own: a run unmarshals only the entries of the models it asks for (reading
    # them all cost a one-file lint 4.7M instructions, two thirds of reading the cache)
    _remember("models", ({model_id: marshal.dumps(raw) for model_id, raw in raws.items()}, lower, bare))
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
_QUANT_SUFFIXES: tuple[tuple[str, Precision, str | None], ...] = (
    (r"[-_.]quantized[-_.]w4a16", "int4", "gptq"),
    (r"[-_.]quantized[-_.]w8a16", "int8", "gptq"),
    (r"[-_.]quantized[-_.]w8a8", "int8", "compressed-tensors"),
    (r"[-_.]quantized[-_.]w4a4", "int4", "compressed-tensors"),
    (r"[-_.]w4a16", "int4", "gptq"),
    (r"[-_.]w8a16", "int8", "gptq"),
    (r"[-_.]w8a8", "int8", "compressed-tensors"),
    (r"[-_.]awq[-_.]int4", "int4", "awq"),
    # AWQ is 4-bit in vLLM (AWQConfig raises "only 4-bit weight quantization is supported for AWQ" for any other
    # width, vllm/model_executor/layers/quantization/awq.py): `-AWQ-4bit` states the one width it can be
    # (akiltrebreg/agile-assistant serves a /models/qwen3-8b-awq-4bit)
    (r"[-_.]awq[-_.]4bit", "int4", "awq"),
    (r"[-_.]awq", "int4", "awq"),
    (r"[-_.]gptq[-_.]int4", "int4", "gptq"),
    (r"[-_.]gptq[-_.]int8", "int8", "gptq"),
    (r"[-_.]gptq[-_.]4bit", "int4", "gptq"),
    (r"[-_.]gptq[-_.]8bit", "int8", "gptq"),
    (r"[-_.]gptq", "int4", "gptq"),  # no width: sized only with a quantization_config (:data:`_WIDTH_UNSTATED`)
    (r"[-_.]fp8[-_.]dynamic", "fp8", "fp8"),
    (r"[-_.]fp8[-_.]block", "fp8", "fp8"),
    # AMD's Quark checkpoints (amd/Llama-3.1-70B-Instruct-FP8-KV): FP8 per-tensor weights and activations, with FP8
    # scales for the KV cache, which vLLM uses only under --kv-cache-dtype fp8 (the name says nothing of the default)
    (r"[-_.]fp8[-_.]kv", "fp8", "fp8"),
    (r"[-_.]fp8", "fp8", "fp8"),
    # llm-compressor's FP4 weight-only scheme, named by its preset (``*-NVFP4A16``: 4-bit float weights in groups of
    # 16 with an FP8 scale, 16-bit activations; vLLM loads it as compressed-tensors W4A16 FP4)
    (r"[-_.]nvfp4a16", "nvfp4", "compressed-tensors"),
    (r"[-_.]nvfp4", "nvfp4", "modelopt"),
    (r"[-_.]fp4", "nvfp4", "modelopt"),  # nvidia/DeepSeek-R1-FP4, nvidia/Llama-3.3-70B-Instruct-FP4
    (r"[-_.]mxfp4", "mxfp4", "mxfp4"),
    (r"[-_.]bnb[-_.]4bit", "int4", "bitsandbytes"),
    (r"[-_.]bnb[-_.]8bit", "int8", "bitsandbytes"),
    (r"[-_.]int4", "int4", "gptq"),
    (r"[-_.]int8", "int8", "gptq"),
    (r"[-_.]bf16", "bf16", None),  # an unquantised re-upload (unsloth/gpt-oss-20b-BF16)
    (r"[-_.]fp16", "fp16", None),
)
#: Suffixes that name a method of several widths and not the width: GPTQ is 2, 3, 4 or 8 bits (vLLM's
#: ``GPTQConfig``), and TheBloke's ``-GPTQ`` repositories hold 4- and 8-bit branches under one name. A model resolved
#: by one of these is marked ``quantization_bits_unstated``: its weights cannot be decided
#: (``capacity.weights.checkpoint_precision``), never sized at the int4 the table's row carries.
_WIDTH_UNSTATED = frozenset({r"[-_.]gptq"})
#: Decorations re-uploaders add before or after the precision that state nothing about it: ``-MTP`` says the
#: re-upload keeps the multi-token-prediction layers its quantiser would drop (shawnw3i/Qwen3.6-27B-AWQ-MTP,
#: twolven/Qwen3.8-27B-abliterated-AWQ-MTP, ...-MTP-NVFP4A16), which the base shape's count leaves out as before.
#: A decoration is taken off only where a precision sits under it: ``Qwen3.6-27B-MTP`` states none and stays unknown.
_DECORATIONS = re.compile(r"[-_.](unsloth|dynamic|hf|mtp)$", re.IGNORECASE)
#: Weight edits that keep every tensor's shape and dtype, named after the model with or without a precision around
#: them: abliteration subtracts a refusal direction from the weights that write to the residual stream (W - r rᵀ W),
#: so an ``-abliterated`` re-upload (``-v2``, ``-v3`` for later passes) is its base model's shape at its base's
#: precision unless the name states another (huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2, whose public start-up
#: log loads gpt-oss-20b's 13.72 GiB; twolven/Qwen3.8-27B-abliterated-AWQ-MTP). Unlike a decoration, it is taken off
#: whether a precision sits under it or not.
_WEIGHT_EDITS = re.compile(r"[-_.]abliterated(?:[-_.]?v\d+)?$", re.IGNORECASE)


def _states_precision(name: str) -> bool:
    """Whether ``name``, with any decorations taken off its end, ends in a quantisation suffix."""
    while (decoration := _DECORATIONS.search(name) or _WEIGHT_EDITS.search(name)) and decoration.start() > 0:
        name = name[: decoration.start()]
    return any((m := pattern.search(name)) is not None and m.start() > 0 for pattern, _, _ in _quant_patterns())


@functools.cache
def _quant_patterns() -> tuple[tuple[re.Pattern[str], Precision, str | None], ...]:
    return tuple((re.compile(p + "$", re.IGNORECASE), prec, method) for p, prec, method in _QUANT_SUFFIXES)


def _split_quant_suffix(model_id: str) -> tuple[str, tuple[Precision, str | None] | None]:
    """Split ``org/Name-AWQ-INT4`` into (``Name``, (precision, method)); the first suffix found wins.

    ``method`` is None for an unquantised re-upload that names its dtype (``-BF16``).
    """
    name = model_id.strip().rsplit("/", 1)[-1]
    found: tuple[Precision, str | None] | None = None
    changed = True
    while changed:
        changed = False
        edit = _WEIGHT_EDITS.search(name)
        if edit and edit.start() > 0:
            name = name[: edit.start()]
            changed = True
            continue
        decoration = _DECORATIONS.search(name)
        under = name[: decoration.start()] if decoration and decoration.start() > 0 else None
        if under is not None and (found is not None or _states_precision(under)):
            name = under
            changed = True
            continue
        for pattern, precision, method in _quant_patterns():
            m = pattern.search(name)
            if m and m.start() > 0:
                name = name[: m.start()]
                if found is None:
                    found = (precision, method)
                changed = True
                break
    return name, found


def states_no_width(model_id: str) -> bool:
    """Whether the quantisation suffix of ``model_id`` that :func:`_split_quant_suffix` takes names a method of
    several widths without the width (``...-GPTQ``; ``...-GPTQ-Int8`` states it)."""
    name = model_id.strip().rsplit("/", 1)[-1]
    while True:
        decoration = _DECORATIONS.search(name) or _WEIGHT_EDITS.search(name)
        if decoration and decoration.start() > 0:
            name = name[: decoration.start()]
            continue
        for (pattern, _, _), text in zip(_quant_patterns(), (p for p, _, _ in _QUANT_SUFFIXES), strict=True):
            m = pattern.search(name)
            if m and m.start() > 0:
                return text in _WIDTH_UNSTATED
        return False


def quantisation_word_inside(model_id: str) -> str | None:
    """The quantisation a name states before other words (``google/gemma-4-E4B-it-qat-w4a16-ct``: ``w4a16``, then
    ``-ct``), where its end states none (:func:`resolve_precision_from_name` is None), or None. The words after it are
    no decoration :func:`_split_quant_suffix` knows, so the name is not read as that precision; neither is it the
    base model's 16-bit precision (review22: the QAT export, 9.81 GiB loaded on an L4 at 0.28.0, was sized in bf16,
    15.1 GiB, under the annotation shardwise.dev/base-model, and SW101 blocked a start that ran)."""
    name = model_id.strip().rsplit("/", 1)[-1]
    if _split_quant_suffix(name)[1] is not None:
        return None
    for cut in (m.start() for m in re.finditer(r"[-_.]", name)):
        head = name[:cut]
        for pattern, _, method in _quant_patterns():
            m = pattern.search(head)
            if m is not None and m.start() > 0 and method is not None:  # -BF16 inside states no quantisation
                return head[m.start() + 1:]
    return None


def resolve_precision_from_name(model_id: str) -> tuple[Precision, str | None] | None:
    """The (precision, quantization method) a repository name states, or None if it states none.

    ``...-AWQ`` / ``...-AWQ-INT4`` -> (int4, awq); ``...-GPTQ-Int4`` -> (int4, gptq);
    ``...-FP8`` / ``...-FP8-dynamic`` -> (fp8, fp8); ``...-quantized.w8a8`` -> (int8,
    compressed-tensors); ``...-quantized.w4a16`` -> (int4, gptq).
    """
    return _split_quant_suffix(model_id)[1]


#: The ``quantization_config`` a re-upload whose name states only its method most often carries
#: (the quantisers' defaults: GPTQ/AWQ group 128, RedHat's W4A16 group 128, W8A8 per channel).
_ASSUMED_QUANT_CONFIG: dict[tuple[str, str], dict[str, object]] = {
    ("int4", "awq"): {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
    ("int4", "gptq"): {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True},
    ("int8", "gptq"): {"quant_method": "gptq", "bits": 8, "group_size": 128, "desc_act": False, "sym": True},
    ("int8", "compressed-tensors"): {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "int", "strategy": "channel"}}},
    },
    ("int4", "compressed-tensors"): {
        "quant_method": "compressed-tensors",
        "config_groups": {
            "group_0": {"weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}
        },
    },
    ("fp8", "fp8"): {"quant_method": "fp8", "activation_scheme": "dynamic"},
    ("nvfp4", "modelopt"): {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16},
    # compressed-tensors' NVFP4A16 preset (``quantization/quant_scheme.py``): float 4-bit weights, tensor-group 16
    ("nvfp4", "compressed-tensors"): {
        "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
        "config_groups": {
            "group_0": {"weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16}}
        },
    },
    ("mxfp4", "mxfp4"): {"quant_method": "mxfp4"},
    ("int4", "bitsandbytes"): {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
    ("int8", "bitsandbytes"): {"quant_method": "bitsandbytes", "load_in_8bit": True},
}


#: The modules llm-compressor's FP8_DYNAMIC recipes for Gated DeltaNet models keep 16-bit, as the quantised
#: checkpoint's ``ignore`` list then names them: the LM head, the vision tower, the routers, the embeddings and every
#: linear-attention layer (``re:.*linear_attn.*``). vllm-project/llm-compressor
#: ``examples/quantization_w8a8_fp8/qwen3_5_example.py`` at 16802c1b (this list) and ``qwen3_5_moe_example.py`` at
#: 68d59afa; ``qwen3_next_example.py`` at 1e9253b2 keeps the same decoder modules (no tower, no embedding entry). The
#: Qwen3.5 recipes copy the MTP module's tensors as they are (``save_mtp_tensors_to_checkpoint``); the list does not
#: name them, as theirs does not.
_FP8_DYNAMIC_GDN_IGNORE = ("re:.*lm_head", "re:visual.*", "re:model.visual.*", "re:.*mlp.gate$", "re:.*embed_tokens$",
                           "re:.*shared_expert_gate$", "re:.*linear_attn.*")
_FP8_DYNAMIC_NAME = re.compile(r"[-_.]fp8[-_.]dynamic(?:$|[-_.])", re.IGNORECASE)


def _assumed_quant_config(base: ModelShape, model_id: str, precision: str, method: str) -> dict[str, object] | None:
    """The ``quantization_config`` assumed for a re-upload known by its name (:data:`_ASSUMED_QUANT_CONFIG`). An
    ``-FP8-dynamic`` re-upload (llm-compressor's FP8_DYNAMIC scheme, the name its recipes save under) of a model with
    Gated DeltaNet layers (config.json's ``linear_num_key_heads``: Qwen3-Next, Qwen3.5, Qwen3.6) also carries the
    recipes' ignore list (:data:`_FP8_DYNAMIC_GDN_IGNORE`): its linear attention stays 16-bit, 1,011,356,160
    parameters of Qwen3.5-4B (0.94 GiB more than all-FP8)."""
    assumed = _ASSUMED_QUANT_CONFIG.get((precision, method))
    if assumed is not None and (precision, method) == ("fp8", "fp8") and "linear_num_key_heads" in base.hf_config \
            and _FP8_DYNAMIC_NAME.search(model_id.strip().rsplit("/", 1)[-1]):
        return {**assumed, "ignore": list(_FP8_DYNAMIC_GDN_IGNORE)}
    return assumed


def _as_variant(base: ModelShape, model_id: str, quant: tuple[Precision, str | None] | None) -> ModelShape:
    """``base``'s shape under ``model_id``, at the precision the name states (its own when none)."""
    precision, method = quant if quant is not None else (base.precision, base.quantization)
    hf_config = dict(base.hf_config)
    extra: dict[str, object] = {**base.extra, "resolved_from": base.id}
    if quant is not None and (precision, method) != (base.precision, base.quantization):
        assumed = _assumed_quant_config(base, model_id, precision, str(method))
        if assumed is not None:
            hf_config["quantization_config"] = assumed
            extra["quantization_config_assumed"] = True
            if states_no_width(model_id):
                extra["quantization_bits_unstated"] = True
        else:
            hf_config.pop("quantization_config", None)
    return dataclasses.replace(
        base,
        id=model_id,
        precision=precision,
        quantization=method,
        aliases=(),
        base_model=base.id,
        extra=extra,
        hf_config=hf_config,
    )


def _without_uploader_prefix(model_id: str, name: str) -> str | None:
    """``name`` without the re-uploader's own name in front of the base model's, or None where it has none: the first
    word of the organisation (``huihui-ai`` -> ``Huihui-``, huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2). Tried
    only when the name as written matches no catalog model."""
    org, sep, _ = model_id.strip().partition("/")
    word = re.split(r"[-_.]", org, maxsplit=1)[0] if sep else ""
    if len(word) < 3 or len(name) <= len(word) + 1 or name[len(word)] not in "-_." \
            or not name.lower().startswith(word.lower()):
        return None
    return name[len(word) + 1:]


def find_model_exact(model_id: str) -> ModelShape | None:
    """The catalog entry whose id or alias is ``model_id`` (case does not matter), or None: no guessing."""
    if not isinstance(model_id, str):
        return None
    by_id, lower, _ = _model_index()
    hit = by_id.get(model_id.strip()) or by_id.get(lower.get(model_id.strip().lower(), ""))
    return hit


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
        stated = resolve_precision_from_name(model_id)
        variant = _as_variant(base, model_id, stated)
        unread = quantisation_word_inside(model_id) if stated is None else None
        if unread is not None:  # the name says it is quantised, where shardwise does not read it: not the base's
            variant = dataclasses.replace(variant, extra={**variant.extra, "quantisation_word_unread": unread})
        return variant
    hit = lower.get(model_id.lower())
    if hit is not None:
        return by_id[hit]
    name, quant = _split_quant_suffix(model_id)
    candidates = bare.get(_norm_model_name(name), [])
    if not candidates:  # a version written with a dash for its dot (mistral-7b-v0-3, qwen2-5-7b-instruct)
        dotless = _norm_model_name(name).replace(".", "")
        candidates = list(dict.fromkeys(i for key, ids in bare.items() if key.replace(".", "") == dotless for i in ids))
    unprefixed = _without_uploader_prefix(model_id, name) if not candidates else None
    if unprefixed is not None:  # huihui-ai/Huihui-gpt-oss-20b-...: the re-uploader's own name before the base's
        candidates = bare.get(_norm_model_name(unprefixed), [])
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
