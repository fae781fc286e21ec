"""Drafter checkpoints the catalog knows that are not models one serves on their own: what
``--speculative-config``'s ``model`` loads beside the target (``rules/capacity/draft.py`` charges them).

A drafter that is also a model of its own (a small Llama as a ``draft_model``) is read from the model catalog
instead (:func:`~shardwise.rules.catalog.lookup.find_model_exact`); one neither table holds is not guessed.

Gemma 4's assistants (``model_type`` ``gemma4_assistant``, released 2026-05-05 beside the targets) are four
decoder layers (three sliding-window, one full-attention) whose attention is KV-shared: each layer has only its
query and output projections (and a query norm) and reads K/V from the target's cache, so the drafter adds no KV
cache of its own (``vllm/model_executor/models/gemma4_mtp.py`` at 0.29.0: "All assistant decoder layers are
KV-shared: they only have Q projections"). Its parameters: the tied embedding (vocab × hidden), ``pre_projection``
(2 × the target's hidden → hidden) and ``post_projection`` (hidden → the target's hidden), and per layer q_proj and
o_proj (heads × head_dim, the full-attention layer heads × global_head_dim, each × hidden) and the gated MLP
(3 × hidden × intermediate). The config fields, from each assistant's ``config.json`` as quoted in a public
knowledge base of the release (hidden 1,024, intermediate 8,192, head_dim 256, global_head_dim 512, vocab 262,144,
tied, 26B-A4B: 16 heads over a 2,816 target, 31B: 32 heads over a 5,376 target); the E2B/E4B assistants (hidden
256, a centroid LM head) are not held.
"""

from __future__ import annotations

from typing import NamedTuple


class Drafter(NamedTuple):
    """A drafter checkpoint: its parameters (stored 16-bit) and the KV-cache layers it adds a token."""

    model_id: str
    params: int
    kv_layers: int  # attention layers with a KV cache of their own (0: it reads the target's)
    source: str


def _gemma4_assistant(heads: int, target_hidden: int) -> int:
    hidden, inter, head_dim, global_head_dim, vocab = 1024, 8192, 256, 512, 262_144
    sliding = 2 * hidden * heads * head_dim + 3 * hidden * inter
    full = 2 * hidden * heads * global_head_dim + 3 * hidden * inter
    return vocab * hidden + 2 * target_hidden * hidden + hidden * target_hidden + 3 * sliding + full


_SOURCE = ("config.json (gemma4_assistant: 4 KV-shared layers, hidden 1,024, intermediate 8,192, tied 262,144 "
           "vocabulary); vllm/model_executor/models/gemma4_mtp.py at 0.29.0")

#: By Hugging Face id, lower case.
DRAFTERS: dict[str, Drafter] = {d.model_id.lower(): d for d in (
    Drafter("google/gemma-4-26B-A4B-it-assistant", _gemma4_assistant(16, 2816), 0, _SOURCE),
    Drafter("google/gemma-4-31B-it-assistant", _gemma4_assistant(32, 5376), 0, _SOURCE),
)}


def find_drafter(model_id: str) -> Drafter | None:
    """The drafter table's entry for ``model_id`` (case does not matter), or None."""
    return DRAFTERS.get(model_id.strip().lower()) if isinstance(model_id, str) else None
