"""DeepSeek-V4's KV cache the way vLLM 0.20.0 lays it out: compressed sparse attention over a sliding window.

Read in the vLLM 0.20.0 wheel (the release vLLM's DeepSeek-V4 recipe names; ``vllm/model_executor/models/
deepseek_v4.py``, ``model_executor/layers/deepseek_v4_attention.py``, ``layers/deepseek_compressor.py``,
``v1/attention/backends/mla/sparse_swa.py``, ``v1/kv_cache_interface.py``, ``v1/core/kv_cache_utils.py``).
A layer's ``compress_ratios`` entry (``max(1, ratio)``; the entry after the last layer is the MTP layer's) decides
what it caches, every cache one latent row a token on every tensor-parallel rank (``num_kv_heads=1``):

* every layer: a sliding-window cache (``DeepseekV4SWACache``: ``SlidingWindowMLASpec``, 64-token blocks, the
  config's ``sliding_window``) of the ``fp8_ds_mla`` row, 584 bytes a token (448 FP8 NoPE bytes, 64 RoPE values in
  16 bits, 7 scale bytes and a pad: ``MLAAttentionSpec.real_page_size_bytes``);
* a ratio-4 or ratio-128 layer: the compressed cache (``MLAAttentionSpec`` with ``compress_ratio``: a block of
  ``--block-size`` tokens stores ``block / ratio`` rows of 584 bytes) and its compressor's state
  (``CompressorStateCache``: a float32 vector of ``2 x coff x head_dim`` a token, coff 2 on ratio 4, 1 on ratio 128,
  in a window of ``coff x ratio`` tokens, blocks of 4 and 8 tokens);
* a ratio-4 layer also its indexer's key cache (``DeepseekV4IndexerCache``: ``index_head_dim`` FP8 bytes and a
  float32 scale per 128 a compressed row, 132 bytes, the FP4 option allocating the same) and the indexer
  compressor's state (``2 x 2 x index_head_dim`` float32);
* every page padded to a multiple of 576 bytes (``alignment=576``, FlashMLA's).

vLLM only accepts an FP8 cache for it (``DeepseekV4MLAAttention`` asserts ``kv_cache_dtype.startswith("fp8")`` and
turns it into ``fp8_ds_mla``), and the sparse-SWA backend prefers 256-token blocks when ``--block-size`` is not
given (``DeepseekSparseSWABackend.get_preferred_block_size``; the recipe passes ``--block-size 256``).

**Grouping** (``group_and_unify_kv_cache_specs``, ``_get_kv_cache_groups_uniform_groups``): the compressed and
indexer caches form the first group, whose distinct page sizes make one *layer tuple*; the sliding caches are grouped
by (block size, window) — the SWA caches, the ratio-4 states, the ratio-128 states. The tuple count is the one of
``[tuples of each group]`` that pads least (``_approximate_gcd``, at least the first group's); each sliding group's
pages are padded to the nearest compressed page size, and a sliding group with more layers than tuples is split into
``cdiv(layers, tuples)`` groups. ``_get_kv_cache_config_deepseek_v4`` then gives ``num_blocks = available //
(tuple bytes x tuples)``, where tuples is the longest page-size bucket of any group.

**A request** holds ``cdiv(len, block)`` blocks in the compressed group and, in each sliding group,
``cdiv(min(window - 1 + max_num_batched_tokens, len), group block) + 1`` (``SlidingWindowSpec``); vLLM refuses to
start when one request of ``max_model_len`` needs more than ``available``: the sum over groups of those blocks x
tuples x tuple bytes (``_max_memory_usage_bytes_from_groups``). It logs ``num_blocks // groups x`` the smallest
group block size as "GPU KV cache size" (4 tokens a block, from the ratio-4 states: a figure of blocks, not of
context) and the concurrency of ``get_max_concurrency_for_kv_cache_config``.

Not modelled here: the MTP layer's caches (a speculative MTP draft adds one layer), pipeline stages (every stage is
taken to hold the whole model's layers), prefix-caching differences.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

#: bytes of one ``fp8_ds_mla`` row (``MLAAttentionSpec.real_page_size_bytes`` for model_version deepseek_v4)
TOKEN_BYTES = 584
#: FlashMLA's page alignment (``alignment=576`` on every DeepSeek-V4 spec)
ALIGNMENT = 576
#: ``DeepseekV4SWACache.block_size``
SWA_BLOCK = 64
#: ``CompressorStateCache.block_size`` by compress ratio
STATE_BLOCK = {4: 4, 128: 8}
#: the block size vLLM picks when ``--block-size`` is not given (``DeepseekSparseSWABackend``)
DEFAULT_BLOCK = 256
FP32 = 4


def _round_up(n: int, k: int) -> int:
    return -(-n // k) * k


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Group:
    """One KV cache group: its block size, its window (None: the whole context) and its layers' pages (bytes, after
    padding), one entry per layer."""

    name: str
    block: int
    window: int | None
    pages: tuple[int, ...]

    def blocks_per_request(self, length: int, batched: int) -> int:
        if self.window is None:
            return cdiv(length, self.block)
        return cdiv(min(self.window - 1 + batched, length), self.block) + 1

    @property
    def page_sum(self) -> int:
        return sum(self.pages)


@dataclass(frozen=True)
class Dsv4Layout:
    """DeepSeek-V4's KV cache groups on one GPU."""

    block_size: int
    tuple_pages: tuple[int, ...]  # the compressed group's distinct page sizes, ascending
    #: layer tuples a block of the pool holds: the longest page-size bucket of any group, which is also the tuple count
    #: the start-up check charges (``get_num_layer_tuples``'s largest)
    tuples: int
    groups: tuple[Group, ...]

    @property
    def tuple_bytes(self) -> int:
        return sum(self.tuple_pages)

    def num_blocks(self, available: float) -> int:
        return max(int(available), 0) // (self.tuple_bytes * self.tuples)

    @property
    def slot_bytes(self) -> int:
        """Bytes a pool block holds from 0.23.0 to 0.25.1 (round dsv4b: ``_bucket_layers_by_page_size``,
        ``_get_kv_cache_config_deepseek_v4`` / ``_get_kv_cache_config_packed``): every page size times its slots, the
        most layers of that page size in any one group, not the tuple times the tuple count (0.20.0 to 0.22.1)."""
        sizes = {p for g in self.groups for p in g.pages}
        return sum(p * max(g.pages.count(p) for g in self.groups) for p in sizes)

    def num_blocks_sliced(self, available: float) -> int:
        """:meth:`num_blocks` as 0.23.0 to 0.25.1 divide the pool (:attr:`slot_bytes`); their grouping and start-up
        check are 0.20.0's."""
        return max(int(available), 0) // self.slot_bytes

    def request_bytes(self, length: int, batched: int) -> int:
        """What vLLM's start-up check charges one request of ``length`` tokens."""
        pages = sum(g.blocks_per_request(length, batched) for g in self.groups)
        return pages * self.tuples * self.tuple_bytes

    def logged_tokens(self, num_blocks: int) -> int:
        """"GPU KV cache size: N tokens" (``_report_kv_cache_config``)."""
        return num_blocks // len(self.groups) * min(g.block for g in self.groups)

    def logged_concurrency(self, num_blocks: int, length: int, batched: int) -> float:
        """"Maximum concurrency for L tokens per request" (``get_max_concurrency_for_kv_cache_config``): every
        group's pages a request needs, each at the sum of its layers' pages, over blocks of the first group's."""
        per_request = sum(g.blocks_per_request(length, batched) * g.page_sum for g in self.groups)
        blocks = cdiv(per_request, self.groups[0].page_sum)
        return num_blocks / blocks if blocks else 0.0

    def concurrency_at(self, num_blocks: int, length: int, batched: int) -> float:
        """Requests of ``length`` tokens the pool holds at once: every group takes its blocks from the one pool."""
        per = sum(g.blocks_per_request(length, batched) for g in self.groups)
        return num_blocks / per if per else 0.0


def _int(cfg: dict[str, Any], key: str, default: int) -> int:
    v = cfg.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def layer_ratios(cfg: dict[str, Any]) -> list[int]:
    """Each decoder layer's compress ratio, ``max(1, compress_ratios[i])`` (``DeepseekV4DecoderLayer``); the entry
    after ``num_hidden_layers`` is the MTP layer's and is not a decoder layer."""
    n = _int(cfg, "num_hidden_layers", 0)
    ratios = cfg.get("compress_ratios")
    if not isinstance(ratios, list) or len(ratios) < n:
        raise ValueError("compress_ratios must give one entry per decoder layer")
    out = [max(1, int(r)) for r in ratios[:n]]
    if any(r not in (1, 4, 128) for r in out):
        raise ValueError(f"compress ratios other than 4 and 128 are not built by vLLM: {sorted(set(out))}")
    return out


def _approximate_gcd(values: list[int], lower_bound: int) -> int:
    """The tuple count in ``[lower_bound, max(values)]`` whose rounding up pads least, the larger on a tie."""
    best_d, best_pad = lower_bound, None
    for d in range(max(1, lower_bound), max(values) + 1):
        pad = sum((d - x % d) % d for x in values)
        if best_pad is None or pad < best_pad or (pad == best_pad and d > best_d):
            best_d, best_pad = d, pad
    return best_d


def layout(cfg: dict[str, Any], block_size: int = DEFAULT_BLOCK) -> Dsv4Layout:
    """The groups vLLM 0.20.0 builds for a DeepSeek-V4 config.json at ``--block-size`` ``block_size``."""
    ratios = layer_ratios(cfg)
    head = _int(cfg, "head_dim", 512)
    index_head = _int(cfg, "index_head_dim", 128)
    window = _int(cfg, "sliding_window", 128)
    # the compressed group: per compressed layer its cache, per ratio-4 layer its indexer's keys
    full: list[int] = []
    # the sliding groups, keyed (block, window) in the order vLLM registers them: a ratio-4 layer's indexer (and its
    # compressor's state) before the attention's SWA cache, its compressed cache, and its compressor's state
    sliding: dict[tuple[int, int], list[int]] = {}
    for r in ratios:
        if r == 4:
            rows = block_size // 4
            full.append(_round_up(rows * (index_head + index_head // 128 * FP32), ALIGNMENT))
            sliding.setdefault((STATE_BLOCK[4], 2 * 4), []).append(
                _round_up(STATE_BLOCK[4] * 2 * 2 * index_head * FP32, ALIGNMENT))
        sliding.setdefault((SWA_BLOCK, window), []).append(_round_up(SWA_BLOCK * TOKEN_BYTES, ALIGNMENT))
        if r > 1:
            rows = block_size // r
            if rows < 1:
                raise ValueError(f"--block-size {block_size} holds no compressed row at ratio {r}")
            full.append(_round_up(rows * TOKEN_BYTES, ALIGNMENT))
            coff = 2 if r == 4 else 1
            sliding.setdefault((STATE_BLOCK[r], coff * r), []).append(
                _round_up(STATE_BLOCK[r] * 2 * coff * head * FP32, ALIGNMENT))
    if not full:
        raise ValueError("a DeepSeek-V4 config without a compressed layer is not one vLLM groups this way")
    sizes = Counter(full)
    tuple_pages = tuple(sorted(sizes))
    full_tuples = sizes.most_common(1)[0][1]
    padded: list[tuple[tuple[int, int], list[int]]] = []
    for key, pages in sliding.items():
        if max(pages) > max(tuple_pages):
            raise ValueError("a sliding page larger than every compressed page is not unified by vLLM")
        padded.append((key, [min(x for x in tuple_pages if x >= p) for p in pages]))
    group_tuples = [full_tuples] + [Counter(p).most_common(1)[0][1] for _, p in padded]
    tuples = _approximate_gcd(group_tuples, lower_bound=full_tuples)
    groups = [Group("compressed", block_size, None, tuple(full))]
    for (block, win), pages in padded:
        per_size = Counter(pages)
        if len(set(per_size.values())) != 1:
            raise ValueError("vLLM requires as many layers of each page size in a sliding group")
        layers = next(iter(per_size.values()))
        split = cdiv(layers, tuples)
        for i in range(split):
            count = len(range(i, layers, split))
            groups.append(Group(f"window {win} / block {block}", block, win,
                                tuple(p for p in sorted(per_size) for _ in range(count))))
    bucket = max(max(Counter(g.pages).values()) for g in groups)
    return Dsv4Layout(block_size, tuple_pages, bucket, tuple(groups))
