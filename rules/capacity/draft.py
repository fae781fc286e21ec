"""What a speculative draft (``--speculative-config``) adds to one GPU at start-up.

vLLM's V1 engine loads the draft inside the target's ``load_model`` (``GPUModelRunner.load_model`` calls the
drafter's ``load_model`` under the same ``DeviceMemoryProfiler``), so the draft's weights are part of what it logs
as "Model loading took"; the draft's attention layers register in the same static forward context as the target's,
so ``get_kv_cache_spec`` gives them KV cache in the same budget and every token costs the draft's layers too
(``EagleProposer.load_model`` collects them as ``draft_attn_layer_names``; ``vllm/v1/spec_decode/eagle.py``). V0's
spec-decode worker splits its blocks between scorer and proposer by their bytes per block, to the same effect.

* **MTP** (``method`` one of :data:`~shardwise.rules.vllm.support.MTP_METHODS`): the draft is the target's own
  multi-token-prediction module, ``num_nextn_predict_layers`` (Qwen3-Next, Qwen3.5: ``mtp_num_hidden_layers``)
  decoder layers of the target's shape, each with an ``eh_proj`` (2 × hidden → hidden, an ``nn.Linear`` every
  rank holds whole in 16 bits) and, in DeepSeek's and GLM's layout, its own ``shared_head`` (a norm and a
  ``ParallelLMHead`` split by TP) which ``compute_logits`` uses: ``EagleProposer.load_model`` shares the target's
  embedding with an MTP draft and assigns ``lm_head``, which DeepSeek's layer does not read
  (``vllm/model_executor/models/deepseek_mtp.py``). The MTP layers are full-attention layers of the target's kind
  (MLA for DeepSeek), each with its own KV cache.
* **ngram / suffix**: the proposer runs on the CPU; nothing on the GPU.
* **A drafter checkpoint** (the config's ``model``: an EAGLE/EAGLE-3 head, a ``draft_model``, a Gemma 4 assistant
  drafting with ``method`` ``mtp``): vLLM loads it with the target (``GPUModelRunner.load_model`` at 0.29.0 calls
  the proposer's ``load_model``), so its weights are charged where the catalog knows it (the drafter table,
  ``catalog/drafters.py``, else the model catalog for a draft model that is a model of its own), at 16 bits split
  by TP (the draft's TP is the target's unless ``draft_tensor_parallel_size`` says otherwise), and its own
  attention layers, where they have the target's KV shape, join the target's KV cache. A drafter the catalog does
  not know is not guessed: "cannot decide" names it; nothing is charged to the central estimate and the error band
  holds an EAGLE head of the target's shape (one decoder layer, the fc and an untied LM head) for EAGLE methods, the
  target's own weights for a draft model, so that a blocking finding still has to clear it.

Every figure is per GPU of the last pipeline stage (the drafter runs where the target's last hidden states are).
"""

from __future__ import annotations

from typing import NamedTuple

from ..catalog.drafters import find_drafter
from ..catalog.lookup import find_model_exact
from ..catalog.resolve import drafter_config_shape
from ..model.shapes import ModelShape, Precision
from ..vllm.support import MTP_METHODS, mtp_draft
from .weights import BYTES_PER_PARAM, bytes_per_param, expert_params, mtp_unquantised

#: Methods whose proposer keeps nothing on the GPU (``NgramProposer``, ``SuffixDecodingProposer``).
CPU_METHODS = frozenset({"ngram", "suffix"})
#: MTP draft architectures whose layers keep their own ``shared_head`` LM head (DeepSeek's layout).
OWN_HEAD_DRAFTS = frozenset({"DeepSeekMTPModel", "Glm4MoeMTPModel"})
#: Config keys that give the MTP module's layer count.
MTP_LAYER_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")


class Draft(NamedTuple):
    """The draft's share of one GPU of the last pipeline stage."""

    method: str
    kv_layers: int  # full-attention layers of the target's shape the draft adds to the KV cache
    weight_bytes: float  # its weights, central estimate
    unknown_bytes: float  # what it may weigh beyond the central estimate (error band), when not known
    note: str


NO_DRAFT = Draft("", 0, 0.0, 0.0, "")


def mtp_layers(model: ModelShape) -> int | None:
    """The MTP module's decoder layers, from the config (``num_nextn_predict_layers``, Qwen's
    ``mtp_num_hidden_layers``), else None."""
    extra = model.extra.get("config")
    for where in (model.hf_config, extra if isinstance(extra, dict) else {}):
        for key in MTP_LAYER_KEYS:
            v = where.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
    return None


def decoder_layer_bytes(model: ModelShape, precision: Precision, tp: int, ep_ranks: int) -> float:
    """Bytes of one decoder layer of ``model`` on one GPU: its share of the non-embedding, non-expert parameters
    split by TP (a vision tower's parameters left out), and one MoE layer's routed experts over the expert ranks."""
    bpp = 2.0 if precision == model.precision and mtp_unquantised(model) else bytes_per_param(model, precision)
    embed = model.vocab_size * model.hidden_size * (1 if model.tie_word_embeddings else 2)
    experts = expert_params(model)
    layers = max(model.num_hidden_layers, 1)
    other = max(model.params - (model.vision_params or 0) - embed - experts, 0) / layers
    per_moe = 0.0
    if model.moe is not None:
        per_moe = model.moe.num_experts * 3 * model.hidden_size * model.moe.moe_intermediate_size
    return other * bpp / tp + per_moe * bpp / ep_ranks


def drafter_checkpoint(model: ModelShape, method: str, drafter: str, tp: int) -> Draft | None:  # tp: the draft's
    """What a drafter checkpoint the catalog knows (the drafter table, the model catalog, else its ``config.json`` in
    the run's model directories or Hugging Face cache) puts on one GPU of the last stage, or None where none does.
    Its weights are 16-bit (EAGLE heads and assistants are published in bf16; a draft model at its catalog
    precision) split by TP; its attention layers with a KV cache of their own join the target's full-attention
    group where their KV shape is the target's (an EAGLE head's is), else they are left out with a note."""
    known = find_drafter(drafter)
    if known is not None:
        wb = known.params * 2.0 / tp
        return Draft(method, known.kv_layers, wb, 0.0,
                     f"the speculative method {method} loads the drafter {known.model_id} ({wb / 2**30:.2f} GiB per "
                     f"GPU{'; its layers read the target KV cache, none of their own' if not known.kv_layers else ''})")
    catalog = find_model_exact(drafter)
    shape = catalog or drafter_config_shape(drafter)  # else its config.json where this run can read one
    if shape is None:
        return None
    wb = shape.params * max(BYTES_PER_PARAM[shape.precision], 1.0) / tp
    same = (shape.num_key_value_heads, shape.head_dim) == (model.num_key_value_heads, model.head_dim)
    layers = shape.num_hidden_layers if same else 0
    return Draft(method, layers, wb, 0.0,
                 f"the speculative method {method} loads the drafter {shape.id} ({wb / 2**30:.2f} GiB per GPU"
                 f"{'' if catalog else ', from its config.json'})"
                 + (f" and caches its {layers} attention layers per token" if same else
                    "; its KV cache, of another shape than the target's, is not charged"))


def draft(model: ModelShape, method: str | None, precision: Precision, tp: int, ep_ranks: int,
          drafter: str | None = None, draft_tp: int | None = None) -> Draft:
    """What ``--speculative-config``'s ``method`` (and ``model``, the drafter checkpoint, split over ``draft_tp`` GPUs,
    else the target's ``tp``) loads on one GPU of the last stage (:class:`Draft`)."""
    if not method or method in CPU_METHODS:
        return NO_DRAFT
    h, vocab = model.hidden_size, model.vocab_size
    head = vocab * h * max(BYTES_PER_PARAM[precision], 2.0) / tp  # ParallelLMHead: 16-bit in quantised checkpoints
    own_checkpoint = drafter is not None and drafter.strip().lower() != model.id.lower()
    if own_checkpoint and drafter is not None:
        found = drafter_checkpoint(model, method, drafter, min(draft_tp or tp, tp))
        if found is not None:
            return found
        if method in MTP_METHODS and mtp_layers(model):
            pass  # the target's own MTP layers, named by a copy of its checkpoint: sized below
        else:
            return _unknown_drafter(model, method, drafter, tp)
    if method in MTP_METHODS:
        n = mtp_layers(model)
        if n is None:
            return Draft(method, 0, 0.0, decoder_layer_bytes(model, precision, tp, ep_ranks) + 2 * h * h * 2 + head,
                         f"the speculative method {method}: {model.id}'s config names no MTP layer count "
                         "(num_nextn_predict_layers), so the draft's weights and KV layers are not known; the error "
                         "band holds one MTP layer")
        if n == 0:
            return Draft(method, 0, 0.0, 0.0,
                         f"the speculative method {method}: {model.id}'s config has no MTP layer "
                         "(num_nextn_predict_layers 0), so there is no draft to load; shardwise charges nothing")
        arch = mtp_draft(model) or ""
        own_head = arch in OWN_HEAD_DRAFTS
        per_layer = decoder_layer_bytes(model, precision, tp, ep_ranks) + 2 * h * h * 2 + (head if own_head else 0.0)
        return Draft(method, n, n * per_layer, 0.0,
                     f"the speculative method {method} loads {model.id}'s {n} MTP layer{'s' if n != 1 else ''} "
                     f"({n * per_layer / 2**30:.2f} GiB per GPU{', with its own LM head' if own_head else ''}) and "
                     f"caches {n} more attention layer{'s' if n != 1 else ''} per token")
    return _unknown_drafter(model, method, drafter, tp)


def _unknown_drafter(model: ModelShape, method: str, drafter: str | None, tp: int) -> Draft:
    """A drafter checkpoint the catalog does not know: nothing in the central estimate, a bound in the error band
    (an EAGLE head of the target's shape; for a draft model, the target's own weights), and "cannot decide"."""
    h, vocab = model.hidden_size, model.vocab_size
    dense = (model.params - (model.vision_params or 0) - vocab * h * (1 if model.tie_word_embeddings else 2)
             - expert_params(model))
    layer = max(dense, 0) / max(model.num_hidden_layers, 1) * 2.0 / tp
    bound = layer + 3 * h * h * 2 + vocab * h * 2.0 / tp
    what = "an EAGLE head of the target's shape"
    if method == "draft_model":  # a whole model, smaller than the target it drafts for
        bound, what = model.params * 2.0 / tp, "the target's own weights in 16 bits"
    name = f"the drafter {drafter}" if drafter else "a draft checkpoint"
    return Draft(method, 0, 0.0, bound,
                 f"cannot decide: the speculative method {method} loads {name}, which shardwise does not know: its "
                 f"weights and KV cache are not charged; the error band holds {bound / 2**30:.2f} GiB per GPU for "
                 f"them ({what}); name a drafter the catalog holds")
