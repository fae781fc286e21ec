"""DeepSeek-V4's start-up memory beside its weights and KV cache, as vLLM 0.20.0 allocates it.

Read in the vLLM 0.20.0 wheel:

* ``model_executor/models/deepseek_v4.py`` ``DeepseekV4Model.__init__``: a ``topk_indices_buffer`` every indexer
  shares, ``max_num_batched_tokens x index_topk`` int32, and the ``_mtp_hidden_buffer`` (the residual streams before
  ``hc_head``, kept for an MTP draft), ``max_num_batched_tokens x hc_mult x hidden_size`` in the model's dtype; both
  are allocated whether or not a draft runs, on every rank, and are part of what "Model loading took" reports;
* ``DeepseekV4Attention.__init__`` (same file): each layer asks ``get_rope`` for a rotary embedding with
  ``rope_theta`` = ``compress_rope_theta`` on a compressed layer (ratio > 1), else ``rope_theta``; ``get_rope``
  (``layers/rotary_embedding/__init__.py``) caches one module per distinct parameters, so there is one per theta;
  each is a ``DeepseekV4ScalingRotaryEmbedding`` (``deepseek_scaling_rope.py``) whose ``cos_sin_cache`` is float32,
  ``original_max_position_embeddings x factor`` rows of ``qk_rope_head_dim`` (cos and sin halves) — on the GPU;
* ``model_executor/layers/deepseek_v4_attention.py``: the prefill gathers a layer's compressed and window KV into a
  bfloat16 workspace of ``PREFILL_CHUNK_SIZE`` (4) x ``M`` x ``head_dim``, ``M = cdiv(max_model_len, ratio) + window +
  max_num_batched_tokens`` (``N`` = 0 on a window-only layer); the dummy run reserves it
  (``current_workspace_manager().get_simultaneous``) so the profile holds the largest layer's, a ratio-4 layer's;
* ``model_executor/layers/sparse_attn_indexer.py`` (round dsv4b): each ratio-4 layer's indexer, in the dummy run,
  reserves its K-gather workspace from the same manager — ``T`` rows of ``index_head_dim`` FP8 bytes and ``T`` of 4
  scale bytes (``_gather_workspace_shapes``; the MXFP4 indexer cache, ``use_fp4_indexer_cache``, half the values and
  ``index_head_dim / 32`` scale bytes), each rounded up to 256 bytes, and the radix top-k's 1 MiB
  (``RADIX_TOPK_WORKSPACE_SIZE``), with ``T = max_model_len x 40 // 4`` (``get_max_prefill_buffer_size`` in
  ``v1/attention/backends/mla/indexer.py`` over the indexer's compress ratio, ``DeepseekV4Indexer.max_total_seq_len``);
  then it allocates and drops ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` (512) MiB to stand for the logits.

The workspace manager (``v1/worker/workspace.py``) keeps one buffer that grows to the largest single request, so the
profile holds the largest of the attention's, the indexer's and the MoE kernel's requests (the fused-MoE modular
kernel asks it too, for a backend-dependent size not modelled here): :func:`workspace_floor` is a floor, not the
workspace. These are modelled here, not used by the sizing (:mod:`..catalog.unsized` says why DeepSeek-V4 is not sized).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .dsv4_cache import cdiv, layer_ratios

#: ``PREFILL_CHUNK_SIZE`` in ``deepseek_v4_attention.py``: prefill requests gathered at once
PREFILL_CHUNK_SIZE = 4
INT32 = FP32 = 4
BF16 = 2
#: ``get_max_prefill_buffer_size``: the indexer's gather rows, ``max_model_len x 40``, before its compress ratio
PREFILL_BUFFER_FACTOR = 40
#: the compress ratio of every layer that has an indexer
INDEXER_RATIO = 4
#: ``RADIX_TOPK_WORKSPACE_SIZE`` in ``sparse_attn_indexer.py``
RADIX_TOPK_WORKSPACE = 1024 * 1024
#: ``WorkspaceManager.get_simultaneous`` rounds every part up to this many bytes
WORKSPACE_ALIGN = 256
#: ``MXFP4_BLOCK_SIZE``: values a scale byte covers in the MXFP4 indexer cache
MXFP4_BLOCK = 32
#: ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB``'s default: the dummy logits the profile allocates and drops, in MiB
INDEXER_LOGITS_MIB = 512


def _int(cfg: dict[str, Any], key: str) -> int:
    v = cfg.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"a DeepSeek-V4 config.json needs an integer {key}")
    return v


@dataclass(frozen=True)
class Dsv4Buffers:
    """The buffers ``DeepseekV4Model`` allocates at load, bytes on one rank."""

    topk_indices: int
    mtp_hidden: int
    rotary: tuple[int, ...]  # one cos/sin cache per distinct theta

    @property
    def total(self) -> int:
        return self.topk_indices + self.mtp_hidden + sum(self.rotary)


def buffers(cfg: dict[str, Any], max_num_batched_tokens: int, dtype_bytes: int = BF16) -> Dsv4Buffers:
    """What vLLM 0.20.0 allocates beside the weights when it builds DeepSeek-V4."""
    ratios = layer_ratios(cfg)
    scaling = cfg.get("rope_scaling")
    if not isinstance(scaling, dict) or not isinstance(scaling.get("factor"), int | float) \
            or not isinstance(scaling.get("original_max_position_embeddings"), int):
        raise ValueError("a DeepSeek-V4 config.json without YaRN rope_scaling is not one vLLM 0.20.0 builds this way")
    rows = int(scaling["original_max_position_embeddings"] * scaling["factor"])
    rope = rows * _int(cfg, "qk_rope_head_dim") * FP32
    thetas = {cfg.get("compress_rope_theta") if r > 1 else cfg.get("rope_theta") for r in ratios}
    if None in thetas:
        raise ValueError("a DeepSeek-V4 config.json needs rope_theta and compress_rope_theta")
    return Dsv4Buffers(
        topk_indices=max_num_batched_tokens * _int(cfg, "index_topk") * INT32,
        mtp_hidden=max_num_batched_tokens * _int(cfg, "hc_mult") * _int(cfg, "hidden_size") * dtype_bytes,
        rotary=(rope,) * len(thetas),
    )


def prefill_workspace(cfg: dict[str, Any], max_model_len: int, max_num_batched_tokens: int) -> int:
    """The bfloat16 gather workspace the dummy run reserves: the largest layer's, ``4 x M x head_dim``."""
    window, head = _int(cfg, "sliding_window"), _int(cfg, "head_dim")
    rows = max((0 if r == 1 else cdiv(max_model_len, r)) + window + max_num_batched_tokens for r in layer_ratios(cfg))
    return PREFILL_CHUNK_SIZE * rows * head * BF16


def _align(n: int) -> int:
    return -(-n // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


def indexer_workspace(cfg: dict[str, Any], max_model_len: int, fp4_indexer_cache: bool = False) -> int:
    """The K-gather workspace one ratio-4 layer's indexer reserves in the dummy run (0 without such a layer):
    ``T = max_model_len x 40 // 4`` rows of FP8 values and 4 scale bytes (MXFP4: half the values, one scale byte per
    32), each rounded up to 256 bytes, and the radix top-k's 1 MiB."""
    if INDEXER_RATIO not in layer_ratios(cfg):
        return 0
    head = _int(cfg, "index_head_dim")
    rows = max_model_len * PREFILL_BUFFER_FACTOR // INDEXER_RATIO
    values, scales = (rows * head // 2, rows * (head // MXFP4_BLOCK)) if fp4_indexer_cache else (rows * head, rows * 4)
    return _align(values) + _align(scales) + _align(RADIX_TOPK_WORKSPACE)


def workspace_floor(cfg: dict[str, Any], max_model_len: int, max_num_batched_tokens: int,
                    fp4_indexer_cache: bool = False) -> int:
    """The least the shared workspace holds after the profile run: the larger of the attention's prefill gather
    (:func:`prefill_workspace`) and the indexer's (:func:`indexer_workspace`). The MoE kernel's request, which may be
    larger, is not modelled."""
    return max(_align(prefill_workspace(cfg, max_model_len, max_num_batched_tokens)),
               indexer_workspace(cfg, max_model_len, fp4_indexer_cache))
