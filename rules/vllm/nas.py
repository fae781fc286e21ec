"""Llama-Nemotron's per-layer blocks (DeciLM, neural architecture search) as vLLM builds them.

A ``nemotron-nas`` config.json (``DeciLMForCausalLM``: Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-Ultra-253B)
leaves ``num_key_value_heads`` and ``intermediate_size`` null and gives one ``block_configs`` entry per layer.
``DeciLMDecoderLayer`` in vLLM's ``vllm/model_executor/models/nemotron_nas.py`` (read at the main branch the code
index holds, commit 00bd1493) builds, per layer:

* attention unless ``attention.no_op``: Llama's q/k/v/o with ``num_attention_heads // n_heads_in_group`` KV heads
  and its input RMSNorm; a no-op layer has no attention module, so no KV cache;
* an MLP unless ``ffn.no_op``: Llama's gated MLP of ``_ffn_mult_to_intermediate_size(ffn_mult, hidden)`` =
  ``int(2 × ffn_mult × hidden / 3)`` rounded up to a multiple of 256 (or ``ffn.intermediate_size``), with its
  RMSNorm.

vLLM builds nothing for ``replace_with_linear`` (it would build full attention or a full MLP and fail to load
the checkpoint's linear weights), so such a config is refused here. ``ModelConfig.get_total_num_kv_heads``
(``vllm/config/model.py``) answers the first attention layer's KV heads for the whole model; layers whose KV heads
differ are not modelled by the KV layout (:func:`unmodelled_reason`).

Standard library only: this module is on the lint path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: config.json ``model_type`` of DeciLM / Llama-Nemotron NAS checkpoints
NAS_MODEL_TYPE = "nemotron-nas"


@dataclass(frozen=True)
class NasBlock:
    """One layer: its KV heads (0: no attention) and its MLP width (0: no MLP)."""

    kv_heads: int
    ffn_width: int


def ffn_width(ffn_mult: float, hidden: int) -> int:
    """``_ffn_mult_to_intermediate_size``: ``int(2 × ffn_mult × hidden / 3)`` rounded up to a multiple of 256."""
    width = int(2 * ffn_mult * hidden / 3)
    return width if width % 256 == 0 else width + 256 - width % 256


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_nas(cfg: dict[str, Any]) -> bool:
    return cfg.get("model_type") == NAS_MODEL_TYPE and isinstance(cfg.get("block_configs"), list)


def nas_blocks(cfg: dict[str, Any], heads: int | None = None, hidden: int | None = None
               ) -> tuple[NasBlock, ...] | None:
    """The layers of a ``nemotron-nas`` config, or None for any other config; ``heads`` and ``hidden`` stand for
    the config's ``num_attention_heads`` and ``hidden_size`` where it lacks them (a catalog record's ``hf_config``
    keeps only the keys vLLM reads verbatim). Raises ValueError for a block vLLM does not build
    (``replace_with_linear``) or one that does not say its size."""
    if not is_nas(cfg):
        return None
    heads, hidden = cfg.get("num_attention_heads", heads), cfg.get("hidden_size", hidden)
    if not isinstance(heads, int) or not isinstance(hidden, int) or heads <= 0 or hidden <= 0:
        raise ValueError("num_attention_heads and hidden_size must be positive integers")
    out: list[NasBlock] = []
    for i, block in enumerate(cfg["block_configs"]):
        attention = block.get("attention") if isinstance(block, dict) else None
        ffn = block.get("ffn") if isinstance(block, dict) else None
        if not isinstance(attention, dict) or not isinstance(ffn, dict):
            raise ValueError(f"block_configs[{i}] must have an attention and an ffn object")
        for name, part in (("attention", attention), ("ffn", ffn)):
            if part.get("replace_with_linear") and not part.get("no_op"):
                raise ValueError(f"block_configs[{i}].{name}.replace_with_linear: vLLM's DeciLMDecoderLayer builds "
                                 "no linear replacement")
        kv = 0
        if not attention.get("no_op"):
            group = attention.get("n_heads_in_group")
            if not isinstance(group, int) or isinstance(group, bool) or group <= 0 or heads % group:
                raise ValueError(f"block_configs[{i}].attention.n_heads_in_group must divide num_attention_heads")
            kv = heads // group
        width = 0
        if not ffn.get("no_op"):
            if _number(ffn.get("ffn_mult")):
                width = ffn_width(float(ffn["ffn_mult"]), hidden)
            elif isinstance(ffn.get("intermediate_size"), int) and not isinstance(ffn["intermediate_size"], bool):
                width = ffn["intermediate_size"]
            else:
                raise ValueError(f"block_configs[{i}].ffn gives neither ffn_mult nor intermediate_size")
        out.append(NasBlock(kv, width))
    return tuple(out)


def block_params(block: NasBlock, hidden: int, heads: int, head_dim: int, bias: bool = False) -> int:
    """Weights of one layer: q and o (hidden × heads × head_dim each), k and v (hidden × KV heads × head_dim each)
    and the input RMSNorm where it has attention; gate, up and down (3 × hidden × width) and the post-attention
    RMSNorm where it has an MLP (``attention_bias``: q/k/v/o biases)."""
    total = 0
    if block.kv_heads:
        total += 2 * hidden * heads * head_dim + 2 * hidden * block.kv_heads * head_dim + hidden
        if bias:
            total += heads * head_dim + 2 * block.kv_heads * head_dim + hidden
    if block.ffn_width:
        total += 3 * hidden * block.ffn_width + hidden
    return total


def unmodelled_reason(cfg: dict[str, Any], heads: int | None = None, hidden: int | None = None) -> str:
    """Why the KV layout of a ``nemotron-nas`` config is not modelled, or "": attention layers whose KV heads differ
    (each vLLM layer caches its own heads; one KV head count per model is modelled), a block vLLM does not build."""
    try:
        blocks = nas_blocks(cfg, heads, hidden)
    except ValueError as exc:
        return f"Llama-Nemotron block_configs: {exc}"
    if not blocks:
        return ""
    kv = sorted({b.kv_heads for b in blocks if b.kv_heads})
    if len(kv) > 1:
        return f"attention layers with different KV heads ({', '.join(map(str, kv))}; block_configs)"
    return ""
