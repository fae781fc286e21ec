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
* DeepSeek-V4-Pro: its config.json is in ai-dynamo/aiconfigurator (found by catalog17; 62 ``compress_ratios``) and
  not in the catalog; it is V4 as V4-Flash is, and not sized for the same reasons.

A workload serving one is undecided (SW004, advisory unless ``unknown = "fail"``) with this reason, and ``plan``
refuses it with the same words.

Three more families are recognised the same way (round catalog18, :data:`FAMILIES`), by their config.json's
``model_type`` / ``architectures`` or by a name that starts with the family's. For each, vLLM builds attention whose
KV cache the capacity model does not hold, and no published config.json was found in a source shardwise can cite
(ai-dynamo/aiconfigurator's copies of MiniMax-M3's and Step-3.7's are flattened or curated, its commits say so;
its MiMo-V2-Flash one does not say where it comes from), so no parameter count either:

* MiniMax-M3 (``minimax_m3``; vLLM's ``vllm/models/minimax_m3``, in the 0.29.0 to 0.34.0 wheels, not in 0.18.0's):
  MiniMax Sparse Attention, an indexer key cache on each sparse layer beside the GQA K/V (``common/indexer.py``:
  ``MLAAttentionSpec`` with one head of the index head size);
* MiMo-V2 (``mimo_v2_flash`` / ``mimo_v2``, MiMo-V2-Flash and V2.5): full-attention layers of ``num_key_value_heads``
  and sliding-window layers (``hybrid_layer_pattern`` 1) of ``swa_num_key_value_heads``, with a K head of
  ``head_dim`` and a V head of ``v_head_dim`` (0.14.1's ``mimo_v2_flash.py`` pads V to the K head's size; 0.29.0's
  ``mimo_v2.py`` gives the cache ``head_size_v``); read as another layout, the 48 layers of MiMo-V2-Flash were taken
  as 12 full and 36 chunked ones of one head count;
* Step-3.5 / Step-3.7 (``step3p5`` / ``step3p7``; ``step3p5.py`` from 0.18.0): the layers whose ``layer_types`` entry
  is ``attention_other_setting``'s ``attention_type`` take that setting's heads, KV groups and head size, the others
  the config's ``num_attention_groups``.

Encoder-only embedders and cross-encoders (round catalog19, :data:`ENCODER_ONLY`) are recognised by their config.json
only (a name does not say whether a checkpoint is an encoder: ``bge-m3`` is, ``bge-multilingual-gemma2`` is not): vLLM
builds their attention as ``EncoderOnlyAttention`` and keeps no KV cache, a shape the capacity model does not have;
sized as a decoder they were charged a KV term. Their config.json is published, so their reason does not say it was
not found.

These reasons do not depend on the release: no release's note is added.
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
_PRO_CONFIG = ("config.json (ai-dynamo/aiconfigurator 095f58a5, aic-core/src/aiconfigurator_core/model_configs/"
               "deepseek-ai--DeepSeek-V4-Pro_config.json: 61 layers, width 7,168, 128 heads, 384 experts, 62 "
               "compress_ratios) is not in the catalog")
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
        return f"{name!r} is DeepSeek-V4-Pro, whose {_PRO_CONFIG}; and it is {_NOT_SIZED}"
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


#: families recognised and not sized besides DeepSeek-V4: (name pattern on the checkpoint's name, ``model_type``s,
#: ``architectures`` prefixes, what vLLM builds that the capacity model does not hold)
FAMILIES: tuple[tuple[str, re.Pattern[str], tuple[str, ...], tuple[str, ...], str], ...] = (
    ("MiniMax-M3", re.compile(r"^minimax[-_ .]?m3(?![0-9.])", re.I), ("minimax_m3", "minimax_m3_vl"),
     ("MiniMaxM3",),
     "MiniMax Sparse Attention: vLLM (vllm/models/minimax_m3, 0.29.0 - 0.34.0) caches an indexer key on each sparse "
     "layer beside the GQA K/V (an MLAAttentionSpec of one head), a layout the capacity model does not hold"),
    ("MiMo-V2", re.compile(r"^mimo[-_ .]?v2(?![0-9])", re.I), ("mimo_v2_flash", "mimo_v2"), ("MiMoV2",),
     "vLLM builds its full-attention layers with num_key_value_heads and its sliding-window layers "
     "(hybrid_layer_pattern) with swa_num_key_value_heads, K heads of head_dim and V heads of v_head_dim "
     "(mimo_v2_flash.py, 0.14.1; mimo_v2.py, 0.29.0): per-type KV heads and head sizes the capacity model does not "
     "hold"),
    ("Step-3.5 / Step-3.7", re.compile(r"^step[-_ .]?3[.p][57](?![0-9])", re.I), ("step3p5", "step3p7"),
     ("Step3p5", "Step3p7"),
     "vLLM (step3p5.py, 0.18.0 on) builds the layers of attention_other_setting's attention_type with that "
     "setting's heads, KV groups and head size and the others with num_attention_groups: per-type KV heads the "
     "capacity model does not hold"),
)
_NO_CONFIG = "no published config.json or parameter count was found in a source shardwise can cite"

#: encoder-only embedders and cross-encoders (BGE, E5, gte, nomic-embed, MiniLM, ModernBERT: round catalog19):
#: the ``architectures`` vLLM's registry maps to ``bert``, ``roberta``, ``bert_with_rope`` and ``modernbert``
#: (``vllm/model_executor/models/registry.py``, the same names in the 0.11.1 and 0.29.0 wheels; BertForMaskedLM and
#: BgeM3EmbeddingModel in 0.29.0's only), and the transformers ``model_type`` s of those encoders
ENCODER_ONLY_ARCHITECTURES = frozenset({
    "BertModel", "BertForMaskedLM", "BertSpladeSparseEmbeddingModel", "BertForSequenceClassification",
    "BertForTokenClassification", "BgeM3EmbeddingModel", "GteModel", "GteNewModel", "GteNewForSequenceClassification",
    "ModernBertModel", "ModernBertForSequenceClassification", "ModernBertForTokenClassification", "NomicBertModel",
    "RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification", "RobertaForTokenClassification",
    "XLMRobertaModel", "XLMRobertaForSequenceClassification", "XLMRobertaForTokenClassification",
})
ENCODER_ONLY_MODEL_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "modernbert", "nomic_bert"})
#: the ``model_type`` of Alibaba-NLP's remote-code gte encoders (``new-impl``'s ``NewConfig``: gte-base-en-v1.5,
#: gte-large-en-v1.5, gte-multilingual-base and its reranker), whose config.json names ``NewModel`` /
#: ``NewForSequenceClassification``, which vLLM's registry does not map: vLLM builds them as ``GteNewModel`` /
#: ``GteNewForSequenceClassification`` with ``--hf-overrides '{"architectures": ["GteNewModel"]}'`` (its own
#: tests/models/language/pooling_mteb_test/test_gte.py; ``GteNewModelConfig`` asserts the class is ``NewConfig``),
#: or through the Transformers backend with the remote code, whose non-causal attention is ``EncoderOnlyAttention``
#: (model_executor/models/transformers/base.py, 0.29.0): an encoder either way, named architectures or not
#: (round catalog22)
REMOTE_ENCODER_MODEL_TYPES = frozenset({"new"})
ENCODER_ONLY = "an encoder-only model (BERT / RoBERTa / XLM-R / gte / nomic-bert / ModernBERT)"
_ENCODER_ONLY_WHY = (
    "vLLM runs it with the pooling runner and builds its attention as EncoderOnlyAttention, whose "
    "get_kv_cache_spec returns None (vllm/attention/layers/encoder_only_attention.py, 0.11.1; "
    "model_executor/layers/attention/, 0.18.0 and 0.29.0): it keeps no KV cache, so no KV budget or KV capacity "
    "bounds it, and its length is sentence_bert_config.json's max_seq_length where the checkpoint has one "
    "(_get_and_verify_max_len's encoder_config), not max_position_embeddings; the capacity model has no shape without "
    "a KV cache yet, and sized as a decoder it would charge one")


def _family_reason(name: str, family: str, why: str) -> str:
    if family == ENCODER_ONLY:  # its config.json is published: only the layout is missing
        return f"{name!r} is {family}, which shardwise does not size yet: {why}"
    return f"{name!r} is {family}, which shardwise does not size yet: {why}; and {_NO_CONFIG}"


def family_of_config(cfg: dict[str, Any]) -> tuple[str, str] | None:
    """The family of :data:`FAMILIES` a config.json (the keys :data:`.hfconfig.HF_CONFIG_KEYS` keeps) is, with
    what vLLM builds that is not held, or :data:`ENCODER_ONLY`; None for any other config."""
    model_type = cfg.get("model_type")
    arch = cfg.get("architectures")
    archs = [a for a in arch if isinstance(a, str)] if isinstance(arch, list) else []
    for family, _, types, prefixes, why in FAMILIES:
        if model_type in types or any(a.startswith(prefixes) for a in archs):
            return family, why
    if (any(a in ENCODER_ONLY_ARCHITECTURES for a in archs) or model_type in REMOTE_ENCODER_MODEL_TYPES
            or (not archs and model_type in ENCODER_ONLY_MODEL_TYPES)):
        return ENCODER_ONLY, _ENCODER_ONLY_WHY
    return None


def family_of_name(name: str) -> tuple[str, str] | None:
    """The family of :data:`FAMILIES` a model id or path names (its checkpoint's name starts with the family's:
    ``MiniMax-M3-NVFP4``, ``MiMo-V2.5-Pro``, ``Step-3.7-Flash-FP8``; not MiniMax-M2, MiMo-7B or Step-3); None
    otherwise."""
    if not isinstance(name, str):
        return None
    base = _checkpoint(name)
    if _DISTILL.search(base):
        return None
    for family, pattern, _, _, why in FAMILIES:
        if pattern.search(base):
            return family, why
    return None


def family_reason(name: str, cfg: dict[str, Any] | None = None) -> str:
    """Why ``name`` (with its config.json's kept keys, where one was read) is not sized, for a family of
    :data:`FAMILIES`; "" for any other model."""
    found = family_of_config(cfg) if cfg is not None else family_of_name(name)
    return _family_reason(name, *found) if found else ""


def is_reason(text: str | None) -> bool:
    """Whether a group's ``model_unknown`` is one of :func:`reason`'s (SW004 then adds the release's part)."""
    return isinstance(text, str) and _NOT_SIZED in text
