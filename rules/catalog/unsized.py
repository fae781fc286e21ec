"""Model families shardwise recognises but does not size, and why: never sized as something else, never guessed.

DeepSeek-V4 (``DeepseekV4ForCausalLM``, ``model_type`` ``deepseek_v4``: V4-Flash, V4-Flash-Base, V4-Pro and their
re-uploads). Its KV cache is compressed sparse attention over a sliding window (per-layer ``compress_ratios``), which
no other layout of the capacity model holds; laid out as another model's attention, or with parameters derived from
its config's shapes, every figure would be a guess (a V4-Flash config.json given by path was sized at 69 GiB of
weights a GPU at TP4, against the 37.24 GiB vLLM 0.20.0 builds, and blocked as "vLLM will refuse to start"). What is
read and what is not (docs/capacity-model.md, "Round catalog13" and "Round dsv4"):

* vLLM 0.20.0 (the release that added the architecture; 0.19.1's wheel has no ``models/deepseek_v4.py``): its KV
  groups (:mod:`..vllm.dsv4_cache`), weights (:mod:`..vllm.dsv4_weights`) and start-up buffers and prefill workspace
  (:mod:`..vllm.dsv4_startup`) are modelled, but the profile run's activation peak is not (V4 carries four
  hyper-connection streams of the hidden size through every layer and runs the sparse indexer), and no public 0.20.0
  start-up log checks the sum, so the sizing does not use them;
* later releases (round dsv4b, every wheel from 0.20.1 to 0.34.0 compared with 0.20.0): 0.20.1 to 0.22.1 group V4's
  KV cache, size its pool and check it at start-up with 0.20.0's functions, unchanged, but build the model otherwise
  (0.20.1 reads the experts' dtype from ``expert_dtype`` and runs the attention's projections on side streams);
  0.23.0 to 0.25.1 keep the groups and the check but divide the pool by each page size times its slots and build V4
  from ``vllm/models/deepseek_v4/``; from 0.26.0 the layout was not read (0.26.0 charges a sliding group for
  ``max_in_flight_tokens``, two batches under async scheduling; 0.27.0 overlays the groups in a packed block planner;
  0.29.0 takes V4's grouping out of ``kv_cache_utils``; 0.33.0 plans the cache in ``v1/core/kv_cache_planning.py``);
  the profile run's peak is modelled for none;
* DeepSeek-V4-Pro: its config.json was not found in a source shardwise can cite (only its technical report's 61
  layers, width 7,168, 128 heads and 384 experts, not the per-layer ``compress_ratios`` its cache depends on).

A workload serving one is undecided (SW004, advisory unless ``unknown = "fail"``) with this reason, and ``plan``
refuses it with the same words.
"""

from __future__ import annotations

import re
from typing import Any

from ..vllm.versions import Version

#: the component of a model id or path that names the checkpoint: the last one (``org/name``, ``/models/name/``, the
#: folder of ``/models/name/config.json``), or a Hugging Face cache folder's ``models--org--name``
#: (``.../models--org--name/snapshots/<commit>``)
_HF_CACHE = re.compile(r"^models--[^/]+?--(.+)$")
#: a DeepSeek-V4 checkpoint or a re-upload of one: the name *starts* with the family (``DeepSeek-V4-Flash``,
#: ``deepseek_v4_pro``, ``DeepSeek-V4-Flash-FP8``; not V3, V3.2, V40, nor ``Qwen3-8B-distilled-from-DeepSeek-V4``)
_DSV4_NAME = re.compile(r"^deepseek[-_ .]?v4(?![0-9.])", re.I)
#: a later DeepSeek-V4 release (``DeepSeek-V4.1``): the family is known, its architecture in vLLM not sourced
_DSV4_LATER = re.compile(r"^(deepseek[-_ .]?v4\.[0-9]+)(?![0-9])", re.I)
#: a distilled model, which is the student's architecture, not V4's (``DeepSeek-V4-Distill-Qwen-7B``)
_DISTILL = re.compile(r"distill", re.I)
_PRO = re.compile(r"^deepseek[-_ .]?v4[-_ .]?pro(?![a-z])", re.I)

#: the release whose V4 KV groups and weights were read (catalog13)
READ_RELEASE = (0, 20, 0)
#: the last release whose V4 grouping and start-up check are 0.20.0's functions, unchanged (dsv4b: 0.26.0 charges a
#: sliding group for ``max_in_flight_tokens``, 0.27.0 changes ``_get_kv_cache_groups_uniform_groups``)
SAME_GROUPS_UNTIL = (0, 25, 999)
#: the release from which the pool is divided by each page size times its slots (``_bucket_layers_by_page_size``)
PACKED_POOL_FROM = (0, 23, 0)

_NOT_SIZED = ("DeepSeek-V4 (compressed sparse attention over a sliding window, per-layer compress_ratios), which "
              "shardwise does not size yet")
_PRO_CONFIG = ("its config.json was not found in a source shardwise can cite (its technical report gives 61 layers, "
               "width 7,168, 128 heads and 384 experts, not the per-layer compress_ratios its KV cache depends on)")
_STARTUP = ("its KV groups, weights and start-up buffers are modelled but the sizing does not use them yet: the "
            "profile run's activation peak (four hyper-connection streams, the sparse indexer) is not modelled and no "
            "public 0.20.0 start-up log checks the sum")


def _checkpoint(name: str) -> str:
    """The component of ``name`` (a model id or path) that names the checkpoint (:data:`_HF_CACHE`)."""
    parts = [p for p in re.split(r"[/\\]", name.strip()) if p]
    if len(parts) > 1 and parts[-1].lower().endswith(".json"):  # the checkpoint's config.json: its folder names it
        parts.pop()
    for i, part in enumerate(parts):
        cached = _HF_CACHE.match(part)
        if cached and (i == len(parts) - 1 or parts[i + 1] == "snapshots"):
            return cached.group(1)
    return parts[-1] if parts else ""


def is_dsv4_name(name: str) -> bool:
    """Whether a model id or path names a DeepSeek-V4 checkpoint or a re-upload of one (its name starts with the
    family's), or a later V4 release (:data:`_DSV4_LATER`); never a model whose name merely mentions V4 (a distilled
    student, ``...-distilled-from-DeepSeek-V4``)."""
    if not isinstance(name, str):
        return False
    base = _checkpoint(name)
    return (_DSV4_NAME.search(base) is not None or _DSV4_LATER.search(base) is not None) and not _DISTILL.search(base)


def is_dsv4_config(cfg: dict[str, Any]) -> bool:
    """Whether a config.json (the keys :data:`.hfconfig.HF_CONFIG_KEYS` keeps) is DeepSeek-V4's."""
    arch = cfg.get("architectures")
    return cfg.get("model_type") == "deepseek_v4" or (
        isinstance(arch, list) and any(isinstance(a, str) and a.startswith("DeepseekV4") for a in arch))


def reason(name: str, *, by_config: bool = False) -> str:
    """Why ``name`` (a DeepSeek-V4 id, path or config's model id) is not sized, whatever the release. A later V4
    release known by its name only (``by_config`` false: no config.json says ``DeepseekV4ForCausalLM``) is not said to
    be V4's layout: whether vLLM builds it as V4 is not sourced, so the reason says the family is known and its
    config.json was not found, and :func:`is_reason` is false for it (no V4 release note is added)."""
    base = _checkpoint(name)
    later = _DSV4_LATER.search(base)
    if later and not by_config:
        return (f"{name!r} is {later.group(1)}, a later DeepSeek-V4 release: the family is known, but its config.json "
                "was not found in a source shardwise can cite, so whether vLLM builds it as DeepSeek-V4 "
                "(DeepseekV4ForCausalLM) is not known, and shardwise does not size it")
    if _PRO.search(base):
        return f"{name!r} is DeepSeek-V4-Pro: the family is known, but {_PRO_CONFIG}; and it is {_NOT_SIZED}"
    return f"{name!r} is {_NOT_SIZED}"


def release_note(version: Version, note: str) -> str:
    """What the release the workload runs (``note``: ``"vLLM 0.20.0 from the image tag"``) adds to the reason."""
    parts = version.parts[:3]
    if parts < READ_RELEASE:
        return (f"{note} builds no DeepSeek-V4 (the architecture came in 0.20.0; 0.19.1's wheel has no "
                "models/deepseek_v4.py)")
    if parts == READ_RELEASE and len(version.parts) <= 3:
        return f"for {note}, {_STARTUP}"
    if len(version.parts) <= 3 and parts <= SAME_GROUPS_UNTIL:
        pool = ("0.20.0's pool" if parts < PACKED_POOL_FROM else
                "a pool divided by each page size times its slots, not 0.20.0's layer tuples")
        return (f"for {note}, its DeepSeek-V4 KV groups and start-up check are 0.20.0's (the same functions, for the "
                f"fp8_ds_mla cache), with {pool}, but it builds the model otherwise than 0.20.0 (the weights and "
                "start-up buffers read there are not checked against it) and the profile run's activation peak is not "
                "modelled")
    return (f"for {note}, its DeepSeek-V4 layout was not read (read: 0.20.0, and 0.20.1 to 0.25.1 compared with it; "
            "0.26.0 charges a sliding group for the tokens in flight, 0.27.0 overlays the groups in a packed block "
            "planner, 0.33.0 plans the cache in v1/core/kv_cache_planning.py)")


def is_reason(text: str | None) -> bool:
    """Whether a group's ``model_unknown`` is one of :func:`reason`'s (SW004 then adds the release's part)."""
    return isinstance(text, str) and _NOT_SIZED in text
