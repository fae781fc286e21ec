"""What a vLLM release does at start-up, as a table: version range -> defaults and memory accounting.

Every version-dependent behaviour of vLLM the capacity model needs lives in :data:`RANGES`, one row
per range of releases where that behaviour is constant, each field with the vLLM source file and
release it was read from (``SOURCES``). Nothing else in shardwise compares version numbers: the
sizing code asks :func:`behaviour` for the row of the release being deployed and reads its fields.

The release comes from ``plan --vllm-version`` or from the container image tag
(:func:`version_from_image`); ``latest``, digests and tags that name no release fall back to
:data:`CURRENT_RELEASE`, and the finding says which release it assumed.

What the fields mean (all per GPU, one engine per data-parallel rank):

* ``engine``: ``v0`` (``vllm/worker/worker.py``) or ``v1`` (``vllm/v1/worker/gpu_worker.py``).
  Releases 0.8-0.10 run V1 but fall back to V0 on GPUs with compute capability below 8.0
  (``v0_below_cc80``), and run V0 when ``VLLM_USE_V1=0`` is set (``v0_by_env``).
* ``nontorch``: which memory outside PyTorch's allocator vLLM charges against the KV cache:
  ``increase`` (V0 and V1 0.9-0.10: everything allocated outside torch after the first snapshot,
  NCCL buffers included), ``absolute`` (V1 0.7-0.8: all device memory in use that torch did not
  allocate, the CUDA context included), ``after-distributed`` (V1 0.11+: the snapshot is taken after
  NCCL is set up, so its buffers come out of the ``1 - gpu_memory_utilization`` margin instead).
* ``cudagraphs_in_budget``: CUDA graphs are estimated during profiling and taken from the KV budget
  (V1 0.20+ on CUDA, 0.27+ on ROCm too). Before that graphs are captured after the KV cache is sized
  and come out of the margin.
* ``cudagraph_profiler_env``: vLLM reads ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (0.18+): ``1`` puts the
  estimate in the budget where the release leaves it out by default (0.18-0.19), ``0`` leaves it out where the
  release puts it in (0.20+); the ROCm releases that skip the estimate skip it whatever the variable says.
* ``sampler``: the dummy sampler run in profiling (V1: ``min(max_num_seqs, max_num_batched_tokens)``
  rows × vocabulary), which sets how many bytes per (sequence × vocabulary entry) it needs:
  ``flashinfer`` (FlashInfer top-k/top-p: no sort), ``sort`` (PyTorch's sort of the whole vocabulary,
  0.11.1-0.16: sorted values, int64 indices and the sort's own buffers), ``triton`` (0.17-0.20: an in-place
  Triton top-k/top-p kernel for 8 rows or more, then the probabilities and the exponential noise); the V0
  rows say ``logits``: V0's profile samples ``max_num_seqs`` dummy prompts with top-k/top-p through PyTorch's
  sort, and only with chunked prefill do its logs show the logits alone (``capacity/sizing.py`` ``_sampler_run``).
* ``flashinfer_sampler_default`` / ``native_sampler`` / ``pip_flashinfer``: where FlashInfer is not installed
  (pip installs before 0.11.1) or ``VLLM_USE_FLASHINFER_SAMPLER`` turns it off, V1 samples with the PyTorch-native
  top-k/top-p (the sort, 38.2 B per logit from 128 rows; Triton from 0.17); ``sampler`` is the official image's.
* ``gpu_memory_utilization``: the default (``config/cache.py``): 0.9, 0.92 from 0.20.0 (1.0 from 0.34.0 where the
  KV cache is extensible: ``extensible_kv_cache``).
* ``chunked_prefill_optional``: V1 honours ``--no-enable-chunked-prefill`` (0.12+; before, V1 turns
  chunked prefill on for every generative model); off, the default ``max_num_batched_tokens`` becomes
  ``max(max_model_len, default)``.
* ``max_num_seqs_clamped``: a default ``max_num_seqs`` is lowered to ``max_num_batched_tokens``.
* ``batched_capped_by_seqs``: a default ``max_num_batched_tokens`` is capped at ``max_num_seqs ×
  max_model_len``.
* ``startup_free_check``: V1 refuses to start when the free memory at its first snapshot is below
  ``gpu_memory_utilization × total`` ("Free memory on device ... is less than desired GPU memory
  utilization").
* ``sampler_warmup``: after the KV cache is sized and the CUDA graphs captured, V1 runs the dummy
  sampler again (``compile_or_warm_up_model``): its buffers come out of what the budget left outside.
* ``cudagraph_sizes`` / ``full_cudagraphs`` / ``gpt_oss_capture``: which CUDA graphs V1 captures (the batch sizes,
  ``1, 2, 4`` then multiples of 8 up to 512 (0.8-0.9), up to ``min(2 × max_num_seqs, 512)`` (0.10-0.11), and from
  0.12 multiples of 8 below 256 and of 16 from 256; none above ``max_num_batched_tokens``), whether each size is
  captured twice, piecewise and as a full decode graph for sizes up to ``max_num_seqs`` (``FULL_AND_PIECEWISE``,
  the default from 0.11), and the largest size gpt-oss raises the capture to (1,024; 992 in 0.11).
* ``warmup_before_capture``: from 0.13 V1 runs a dummy forward of ``max_num_batched_tokens`` tokens before it
  captures the CUDA graphs, so the capture reuses the blocks that run left in PyTorch's cache and grows the memory
  in use by little (vLLM's own "CUDAGraph memory" figure: -0.88 to 1.03 GiB on one H100).
* ``tp_buffers_in_budget``: where custom all-reduce runs on NVLink-joined GPUs (TP > 1 in one node; not on a
  PCIe pair, where it runs without them: a 0.22.0 log of two T4s) the
  communication buffers that are set up during the first forward pass are counted as non-torch memory
  (about 2 GiB per GPU in 0.19 logs).
* ``batch_tiers``: the ``vllm serve`` defaults of ``max_num_batched_tokens`` / ``max_num_seqs`` by GPU
  memory (V1), first tier that matches wins. vLLM reads the memory from NVML, and a GPU whose NVML reports none
  (:data:`NVML_NO_MEMORY_PRODUCTS`: the GB10 of a DGX Spark) gets the smallest tier whatever its memory.
* ``mm_prefix_lm_batched``: a default ``max_num_batched_tokens`` is raised to the largest multimodal item of a
  prefix-LM model (bidirectional attention over an item, so an item is never split across steps: Gemma 4's 26B-A4B
  and 31B, ``use_bidirectional_attention`` ``vision``; :func:`shardwise.rules.capacity.sizing.mm_prefix_lm_tokens`),
  before the cap at ``max_num_seqs × max_model_len`` (0.22+).
* ``mm_prefix_lm_chunk_off``: on CUDA, chunked multimodal input is forced off for Gemma 4's prefix-LM models, and
  vLLM refuses to start where their largest multimodal item is above ``max_num_batched_tokens`` (0.20+; in
  0.19.0 and 0.19.1 Gemma 4 is no prefix-LM model). Before 0.22 the default budget is not raised to the item, so
  a 2,048-token GPU refuses them with the defaults (:func:`shardwise.rules.capacity.sizing.mm_prefix_lm_item`).
* ``v0_chunked_tokens``: V0's ``max_num_batched_tokens`` when chunked prefill is on (it is turned on
  by default for ``max_model_len`` > 32,768 on CUDA); off, V0 profiles ``max(max_model_len, 2048)``.
* ``hybrid_kv``: how layers that are not full attention are given KV cache: ``as-full`` (every layer
  holds the full context), ``groups`` (the hybrid KV cache manager: layers grouped by type, sliding
  windows and chunks hold only their span).
* ``chunked_local_hybrid``: Llama 4's chunked local attention uses the hybrid manager by default.
* ``sliding_kernel_block``: in a hybrid layout a sliding-window layer's own block is the attention backend's
  smallest kernel block (16), whatever ``--block-size`` says (0.25+); ``unify_kv_cache_spec_page_size`` then raises
  the smaller pages' block size by the ratio to the largest page, or pads a page that does not divide it (Gemma 4
  at ``--block-size 48``: sliding pages of 16 tokens padded from 128 to 192 KiB beside 48-token full pages).
* ``mamba_cache_modes``: with ``--enable-prefix-caching`` a model with state layers (Mamba, Gated DeltaNet) keeps
  its states in Mamba cache mode ``all`` (a state block per block of tokens: the models that declare
  ``SupportsMambaPrefixCaching``) or ``align`` (two state blocks a request: the others), not one block a request.
* ``hybrid_prefix_caching``: prefix caching is on by default for a generative model with state layers (0.28+; before,
  only an explicit ``--enable-prefix-caching`` turned it on), and the Mamba cache mode it then takes by default is
  ``align`` for every such model, the ``SupportsMambaPrefixCaching`` ones included (``all`` only where
  ``--mamba-cache-mode all`` asks for it): a hybrid start with the default flags holds two state blocks a request
  per state group, which its "GPU KV cache size" counts (:func:`shardwise.rules.capacity.sizing.prefix_caching_on`).
* ``mamba_seqs``: a model with state layers (Mamba, Gated DeltaNet, KDA: a ``MambaSpec`` KV cache group) whose
  ``max_num_seqs`` exceeds the KV cache's ``num_blocks`` with full decode CUDA graphs: ``refused`` (0.20+: "max_num_seqs
  (N) exceeds available Mamba cache blocks (M)", :func:`shardwise.rules.capacity.sizing.mamba_seqs_refusal`),
  ``capped`` (0.18-0.19: the capture sizes are cut to the blocks, it starts), ``asserts`` (0.14-0.17: a Gated DeltaNet
  or KDA layer's decode convolution asserts ``num_cache_lines >= batch`` while the full decode graphs are captured, so
  a capture size above the blocks fails; Mamba layers do not check), ``unchecked`` (before: not read).
* ``moe_chunk_tokens``: the tokens a fused mixture-of-experts layer routes at once, ``VLLM_FUSED_MOE_CHUNK_SIZE``'s
  default (``fused_experts_impl`` and the modular kernel loop over chunks of it, their caches sized for one chunk):
  none before 0.5.1 (0 here: the whole batch), 65,536 in 0.5.1 - 0.5.5, 32,768 from 0.6.0, 16,384 from 0.12.0, and
  none again from 0.18.0 (the variable is gone and the whole batch is routed at once). Where it is not 0 the release
  reads the variable, so a manifest's ``VLLM_FUSED_MOE_CHUNK_SIZE`` replaces it
  (:func:`shardwise.rules.capacity.sizing.moe_chunk_tokens`).
* ``triton_moe_shared_cache``: ``fused_experts_impl`` (``fused_moe/fused_moe.py``, the Triton experts vLLM calls
  directly where no modular all-to-all kernel is built) keeps the first GEMM's output and the second's in one buffer,
  ``cache13`` of ``M × top-k × max(N, K)`` ("by the time we need cache3, we're done with cache1", vllm-project/vllm
  pull request 13625), beside ``intermediate_cache2`` (``M × top-k × N ÷ 2``) and, for FP8 activations, its quantised
  copy: read in the 0.8.4, 0.8.5, 0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.10.1.1 and 0.10.2 wheels; other releases keep the
  forward term's separate caches (not read here) (:func:`shardwise.rules.capacity.sizing.moe_row_bytes`).
* ``hopper_block_fp8_ep_flashinfer``: block FP8 experts (128 × 128 weight blocks, dynamic 128-wide activation scales)
  on compute capability 9.0 with ``ep_size > 1`` run FlashInfer CUTLASS: ``_get_priority_backends`` moves
  ``FLASHINFER_CUTLASS`` to the front (``fused_moe/oracle/fp8.py``, read in the 0.18.0 wheel; later releases inherit
  it unread), and the experts' routed rows are sized by FlashInfer's workspace
  (:func:`shardwise.rules.capacity.sizing.moe_row_bytes`); before 0.18.0 not read (the forward term's Triton caches).
* ``all2all_backend`` and ``all2all_env``: the MoE dispatch backend a data-parallel engine with expert parallelism
  runs (``ParallelConfig.all2all_backend``, used where ``dp_size > 1`` and ``use_ep``: ``use_all2all_kernels`` in
  ``fused_moe/config.py``) and how ``VLLM_ALL2ALL_BACKEND`` names it: ``only`` (before 0.11.1: the variable is the
  setting, default ``naive`` in 0.10.2's ``envs.py``, ``allgather_reducescatter`` in 0.11.0's), ``fallback``
  (0.11.1 - 0.13: ``--all2all-backend``, the variable where the flag is not given), ``override`` (0.14 - 0.15: the
  flag, default ``allgather_reducescatter``; a set variable replaces it with a deprecation warning, read in 0.14.1,
  0.15.0 and 0.15.1), ``unread`` (0.16.0 on: ``envs.py`` has no such variable and ``config/parallel.py`` no longer
  reads it, vllm-project/vllm#33535). The backend decides the DeepEP buffers each rank allocates
  (:func:`shardwise.rules.capacity.sizing.all2all_buffers_gib`). A deployment that names no release but sets the
  variable is sized at the newest release that reads it (:func:`dated_by_env`).
* ``kv_in_flight``: a sliding-window (or chunked-local) layer reserves, per request, its span plus the tokens
  scheduled but not yet settled: ``max_in_flight_tokens`` = concurrent batches × ``max_num_batched_tokens`` (two
  batches with async scheduling at PP1, PP + 1 on Model Runner V2, else PP), not one batch (0.26+, vllm#47728:
  out-of-window blocks are freed on the processed-token basis).
* ``tokens_report``: how "GPU KV cache size: N tokens" is computed: ``blocks`` (blocks × block size,
  or ``blocks // groups × block size`` with several groups) or ``concurrency`` (max concurrency ×
  ``max_model_len``).
* ``max_model_len_auto``: ``--max-model-len auto`` / ``-1`` (fit the KV cache) exists.
* ``pp_check_whole_model``: with pipeline parallelism, V1's check that one ``max_model_len`` request fits (and the
  ``auto`` fit) counts every stage's layers against the smallest worker's budget (0.14.0-0.16.x: the KV cache specs
  of all workers merged into global groups), so a model whose one stage's cache fits is refused when the whole
  model's does not; before 0.14 and from 0.17 each worker checks its own layers.
* ``mm_items`` / ``mm_default_limit`` / ``mm_expand_outputs``: V1's profile of a multimodal encoder. It runs the
  modality whose largest item has the most tokens, as many items of it as the encoder budget ``B = max(
  max_num_batched_tokens, tokens per item)`` and the decoder allow: ``ceil`` (0.8-0.9) ``min(ceil(B ÷ tokens),
  max_num_seqs × limit)``; ``floor`` (0.10.0) ``max(1, min(B // tokens, max_num_seqs × limit))``; ``budget``
  (0.10.1+, ``MultiModalBudget``) the same with ``max(1, min(limit, max_model_len // tokens))`` items per prompt
  (and, without chunked prefill, at most ``max_num_batched_tokens // tokens`` requests). ``limit`` is
  ``--limit-mm-per-prompt``'s default per modality: 1 up to 0.8.3, 999 from 0.8.4. In 0.11-0.12 each encoder
  output shorter than ``B`` is copied into a zeroed ``B``-token tensor before it is cached (``mm_expand_outputs``);
  0.12 pads to the item's largest token count instead (``mm_expand_to_item``), so an image as long as its modality's
  largest is cached as it is.
  From 0.11 the outputs and the dummy batch stay held until the dummy sampler run has run on them too
  (``mm_held_through_sampler``: ``profile_run`` clears ``encoder_cache`` after ``_dummy_sampler_run``). In 0.11-0.12
  Qwen3-VL's largest video item counts 12.5 tokens a vision token (its ``<t seconds>`` timestamps and vision tokens,
  ``qwen3_video_format``), so V1 profiles one video of the video processor's 25,165,824 pixels, not the largest
  image, and pads its output to those tokens; not modelled from 0.13 (absent in 0.22.0, which counts the vision
  tokens only; 0.13-0.21 not read: the image profile is kept).
* ``v2_runner`` / ``v2_model_types`` / ``v2_listed_dense_only``: which generative models run Model Runner V2 by default
  (0.22+), whose profile puts no CUDA graph estimate in the budget: the listed architectures (by config.json
  ``model_type``; 0.22-0.23 dense and unquantized only), from 0.25 every model that is not a mixture of experts, and
  from 0.29 every generative model (``use_v2_model_runner`` no longer asks for a listed or dense model: mixtures of
  experts and hybrids too, but DeepSeek-V3.2 and V4 on ROCm). That last step is **not modelled**: the 0.29 rows it
  would move (mixtures of experts only) move away from their logs, so 0.29+ keeps 0.25's ``dense`` rule (an open
  finding, docs/capacity-model.md, "Model Runner V2"). From 0.29 V2 measures its CUDA graphs into the budget
  (``v2_cudagraphs_in_budget``); the sizing keeps the flat graph term for them (V2's measurement is not modelled).
  Its greedy profile sampler copies the logits to float32 in 0.22-0.27; in 0.28-0.32 it keeps them as
  ``compute_logits`` made them (``v2_profile_logits_copy``: no dummy request needs processing); from 0.33 a second
  pass with every sampling feature on copies them again and samples them as the warm-up does
  (``v2_profile_warmup_sampler``: the warm-up sampler's bytes per logit).
* ``default_block_size``: the KV cache block size where ``--block-size`` is not given (``CacheConfig.
  DEFAULT_BLOCK_SIZE``, 16; 64 from 0.34), which the attention backend keeps where it supports it (MLA backends pick
  their own).
* ``extensible_kv_cache``: from 0.34 vLLM reserves the KV cache's address range and commits its pages after the
  warm-up and the CUDA graph capture, sizing it from the memory then in use (on by default on CUDA and ROCm; off with
  ``--kv-cache-memory-bytes``, ``--num-gpu-blocks-override`` or ``--no-enable-extensible-kv-cache``). An unset
  ``--gpu-memory-utilization`` is then 1.0 and the first snapshot's free-memory check is skipped; the cache gets
  ``min(requested − memory in use, free + committed − margin) − peak``, where the peak is the profile's torch peak
  plus the CUDA graph estimate and the margin is ``max(1 GiB (3 on ROCm), 0.75 × peak)``. Nothing is allocated
  after it is sized, so nothing has to fit outside the budget.
* ``mrope_cache_scale``: how many times the model's position limit the multimodal rotary embedding's cos/sin cache
  holds (``MRotaryEmbedding``, models whose ``rope_scaling`` has an ``mrope_section``: Qwen2-VL, Qwen2.5-VL, Qwen3-VL,
  the Qwen Omni thinkers): 1 up to 0.7.1, 4 from 0.7.2 ("we enlarge max_position_embeddings to 4 times", for
  videos' position indices).
* ``mm_limit_parse`` / ``mm_kwargs_parse``: how vLLM's argument parser reads ``--limit-mm-per-prompt`` and
  ``--mm-processor-kwargs``: ``kvs`` (``image=1,video=0``, integers only: "Each item should be in the form
  KEY=VALUE", "Failed to parse value of item image=x"), ``loads`` (argparse's ``type=json.loads``: "invalid loads
  value"), ``json-or-kvs`` (JSON where the value is ``{...}``, else the pairs, deprecated), ``json`` (JSON only: "Value
  ... cannot be converted to <function loads ...>"). A value it cannot read makes vLLM exit before it starts.
* ``mm_inputs_model_dtype``: the multimodal processor's floating-point outputs (pixel values) are cast to the
  model's dtype before they reach the GPU (0.9.1+: ``InputProcessingContext.call_hf_processor`` "emulates
  output.to(dtype=self.model_config.dtype)"); before, the dummy batch's pixel values are float32 on the GPU and the
  tower casts a copy.
* ``qwen3_vit_pos``: how Qwen3-VL's vision tower (Qwen3-VL, Qwen3.5/3.6) interpolates its learned position
  embeddings over the image (``Qwen3_VisionTransformer.fast_pos_embed_interpolate``), whose temporaries are the
  tower's peak on a large image: ``copies`` (0.11: the four neighbours' embeddings, a weighted copy of them, their sum,
  a contiguous copy and a permuted copy), ``in-place`` (0.17: the four embeddings weighted in place, their sum, a
  permuted copy and ``torch.cat``'s copy), ``kernel`` (0.22: a Triton kernel writes the interpolated rows).
* ``qwen25_vit``: what Qwen2.5-VL's vision tower (``Qwen2_5_VisionTransformer``, which Qwen2.5-Omni's thinker reuses)
  holds at its peak, read from its blocks: ``generic`` (before 0.11: not read in full, the generic estimate),
  ``float32-rotary`` (0.11: attention copies q, k and v contiguous, concatenates q and k and rotates them through a
  float32 copy into a float32 output, then casts it back), ``model-dtype-rotary`` (0.12+: q and k rotated in the
  model's dtype, out of place, from one contiguous copy; the gated MLP is then as large).
* ``qwen_image``: the largest image Qwen2-VL's processing info profiles under the processor's ``max_pixels``:
  ``square`` (up to 0.12: a 9,999,999-pixel square through ``smart_resize``, ``floor(√max_pixels ÷ 28)²`` tokens),
  ``factors`` (0.13+: the most tokens up to ``max_pixels // 28²`` whose closest factor pair is at most 200 : 1).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Literal

from .imageref import parse_image
from .options import OPTION_RELEASES

Engine = Literal["v0", "v1"]
NonTorch = Literal["increase", "absolute", "after-distributed"]
Sampler = Literal["logits", "flashinfer", "sort", "triton"]
HybridKv = Literal["as-full", "groups"]
AutoDtype = Literal["config", "fallback", "checked"]
#: The default CUDA graph batch sizes: ``step8-512`` ([1, 2, 4] + multiples of 8 up to 512), ``step8`` (the same up
#: to min(2 × max_num_seqs, 512)), ``step16`` (multiples of 8 below 256, of 16 from 256 up to that maximum).
CudagraphSizes = Literal["step8-512", "step8", "step16"]
TokensReport = Literal["blocks", "concurrency"]
#: what vLLM does where ``max_num_seqs`` exceeds the KV cache's blocks of a model with state layers (``mamba_seqs``)
MambaSeqs = Literal["unchecked", "asserts", "capped", "refused"]
#: How V1 counts the dummy multimodal items it profiles (see ``mm_items`` in the module docstring).
MmItems = Literal["ceil", "floor", "budget"]
#: How Qwen2-VL's processing info picks the largest image: ``square`` (a huge square resized under ``max_pixels``),
#: ``factors`` (``max_pixels // 28²`` tokens factorised into a height and a width, 0.13+).
QwenImage = Literal["square", "factors"]
#: How Qwen3-VL's vision tower interpolates its position embeddings (see ``qwen3_vit_pos`` in the module docstring).
Qwen3VitPos = Literal["copies", "in-place", "kernel"]
#: How a release reads ``VLLM_ALL2ALL_BACKEND`` beside ``--all2all-backend`` (``Behaviour.all2all_env``)
All2AllEnv = Literal["only", "fallback", "override", "unread"]
#: What Qwen2.5-VL's vision tower holds at its peak (see ``qwen25_vit`` in the module docstring).
Qwen25Vit = Literal["generic", "float32-rotary", "model-dtype-rotary"]
#: How vLLM's argument parser reads a multimodal flag's value (see ``mm_limit_parse`` in the module docstring).
MmArgParse = Literal["kvs", "loads", "json-or-kvs", "json"]
#: Which models run Model Runner V2 by default (see ``Behaviour.v2_runner``).
V2Runner = Literal["none", "listed", "dense"]

#: The release assumed for ``latest``, digests and tags that name no release (the newest on PyPI
#: when this table was last checked, whose source it was read from).
CURRENT_RELEASE = "0.34.0"


@dataclass(frozen=True, order=True)
class Version:
    """A vLLM release number: ``0.10.1.1``, ``0.8.5.post1``, ``0.11.0rc2`` (suffixes ignored)."""

    parts: tuple[int, ...]

    def __str__(self) -> str:
        return _dotted(self.parts)


@functools.lru_cache(maxsize=256)
def _dotted(parts: tuple[int, ...]) -> str:
    """``(0, 11, 0)`` -> ``"0.11.0"`` (a sizing writes its release's number into every result)."""
    return ".".join(str(p) for p in parts)


#: At most three digits a part: vLLM's numbers are 0.x.y (the highest part yet 33); ``99999999999999999999.0.0`` or
#: ``0.1234.0`` is a typing slip, not a release to size for.
_VERSION = re.compile(
    r"^v?(\d{1,3})\.(\d{1,3})(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?(?:[.+\-]?(?:post|rc|dev|a|b)\d*.*)?$", re.I)


@functools.lru_cache(maxsize=512)
def parse_version(text: str) -> Version | None:
    """``"v0.11.0"`` -> Version((0, 11, 0)); None when the text names no release."""
    m = _VERSION.match(text.strip())
    if not m:
        return None
    nums = tuple(int(g) for g in m.groups() if g is not None)
    while len(nums) < 3:
        nums = (*nums, 0)
    return Version(nums)


_CURRENT = Version(tuple(int(p) for p in CURRENT_RELEASE.split(".")))


@dataclass(frozen=True)
class BatchTier:
    """One row of vLLM's batch defaults: GPUs with at least ``min_gib`` (and not named ``exclude``).

    ``max_num_batched_tokens`` / ``max_num_seqs`` are ``vllm serve``'s (the OpenAI server usage context),
    ``llm_*`` the offline ``LLM`` class's.
    """

    min_gib: float
    max_num_batched_tokens: int
    max_num_seqs: int
    llm_max_num_batched_tokens: int
    llm_max_num_seqs: int
    exclude: tuple[str, ...] = ()  # lower-case substrings of the device name that skip this tier
    #: lower-case substrings of which the device name must hold one for this tier (empty: any name); vLLM 0.8.0 -
    #: 0.8.4 chose the large defaults by ``"h100" in device_name or "h200" in device_name``, not by memory
    include: tuple[str, ...] = ()


@dataclass(frozen=True)
class Behaviour:
    """What one range of vLLM releases does at start-up (see the module docstring)."""

    since: str
    engine: Engine
    nontorch: NonTorch
    sampler: Sampler
    batch_tiers: tuple[BatchTier, ...]
    cudagraphs_in_budget: bool = False
    cudagraphs_in_budget_rocm: bool = False
    #: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is read (0.18+): it overrides ``cudagraphs_in_budget`` either way
    cudagraph_profiler_env: bool = False
    v0_below_cc80: bool = False
    v0_by_env: bool = False  # VLLM_USE_V1=0 selects the V0 engine (0.8-0.10; V0 is gone from 0.11)
    v0_chunked_tokens: int = 2048
    hybrid_kv: HybridKv = "groups"
    chunked_local_hybrid: bool = False
    mamba_cache_modes: bool = False
    hybrid_prefix_caching: bool = False  # prefix caching on by default for hybrids, mode align for all (0.28+)
    mamba_seqs: MambaSeqs = "unchecked"
    #: a Gated DeltaNet layer's recurrent state takes --mamba-ssm-cache-dtype (0.17+; 0.14-0.15 both states take
    #: --mamba-cache-dtype; before 0.14 not read, taken as 0.14): ``kv_layout.StateDtypes.gdn_ssm``
    gdn_ssm_dtype: bool = False
    #: Nemotron-H's recurrent state where --mamba-ssm-cache-dtype is auto and config.json names none (float16 in
    #: 0.14-0.19, float32 from 0.20; before 0.14 not read, taken as 0.20): ``kv_layout.StateDtypes.nemotron_h_ssm``
    nemotron_h_ssm_dtype: str = "float32"
    tokens_report: TokensReport = "blocks"
    mm_prefix_lm_batched: bool = False  # a default token budget holds a prefix-LM model's largest item (0.22+)
    mm_prefix_lm_chunk_off: bool = False  # Gemma 4's prefix-LM items are never chunked: one must fit the budget (0.20+)
    max_model_len_auto: bool = False
    concurrency_from_tokens: bool = False  # "Maximum concurrency" = tokens / max_model_len (before 0.9)
    mla_cache: bool = True  # MLA models cache one latent per token (0.7 and later); before, full heads
    kv_cache_memory_flag: bool = False  # --kv-cache-memory-bytes sets the KV cache and skips the budget
    default_max_num_seqs_v0: int = 256
    gpu_memory_utilization: float = 0.9  # vLLM's default (CacheConfig)
    chunked_prefill_optional: bool = False  # V1 honours --no-enable-chunked-prefill (0.12+)
    max_num_seqs_clamped: bool = False  # a default max_num_seqs is lowered to max_num_batched_tokens
    batched_capped_by_seqs: bool = False  # a default max_num_batched_tokens is capped at seqs × max_model_len
    startup_free_check: bool = False  # V1 refuses when free memory at start is below utilization × total
    sampler_warmup: bool = False  # V1 warms the sampler up again after sizing, after the CUDA graphs
    #: the tokens a fused-MoE layer routes at once (VLLM_FUSED_MOE_CHUNK_SIZE's default; 0: no chunking, the variable
    #: is not read)
    moe_chunk_tokens: int = 0
    #: the Triton experts' first and second GEMM outputs share one buffer (``cache13``, 0.8.4 - 0.10.2 read)
    triton_moe_shared_cache: bool = False
    #: block FP8 experts on Hopper with expert parallelism run FlashInfer CUTLASS first (0.18.0+, see the list above)
    hopper_block_fp8_ep_flashinfer: bool = False
    #: the MoE dispatch backend of a data-parallel engine with expert parallelism when nothing names one
    all2all_backend: str = "naive"
    #: how VLLM_ALL2ALL_BACKEND is read beside --all2all-backend (see the list above)
    all2all_env: All2AllEnv = "only"
    #: ``--enable-eplb`` with no redundant-expert count takes the least that divides the routed experts over the EP
    #: ranks (0.34+); before, none (``EPLBConfig.num_redundant_experts`` defaults to 0)
    eplb_min_redundant: bool = False
    #: ``--enable-eplb`` without ``--enable-expert-parallel``, or with it at TP × DP of 1, is refused at start-up
    #: (0.10+); 0.9.2 took both
    eplb_needs_expert_parallel: bool = False
    #: the EP world EPLB needs above 1 counts prefill context parallelism: TP × PCP × DP (0.26+); before, TP × DP
    eplb_world_counts_pcp: bool = False
    #: ``--cpu-offload-gb``'s UVA offloader reads ``VLLM_WEIGHT_OFFLOADING_DISABLE_UVA`` (0.17+); before, V1 always
    #: offloads through UVA
    offload_uva_env: bool = False
    tp_buffers_in_budget: bool = False  # TP > 1: buffers set up in the first forward are counted (0.19+)
    cudagraph_sizes: CudagraphSizes = "step8-512"  # V1's default capture sizes (see CudagraphSizes)
    full_cudagraphs: bool = False  # FULL_AND_PIECEWISE: decode sizes captured a second time as full graphs (0.11+)
    gpt_oss_capture: int = 0  # gpt-oss raises the largest capture size to this (0: no override)
    #: compile_or_warm_up_model runs a dummy forward of max_num_batched_tokens (the end of each compile range)
    #: before capture_model, and the graphs reuse the blocks it leaves in PyTorch's cache (0.14+)
    warmup_before_capture: bool = False
    runai_streamer: bool = False  # --load-format runai_streamer (safetensors from s3://) in the image
    native_multinode: bool = False  # --nnodes / --node-rank / --master-addr, headless workers
    #: Whether V1 samples with FlashInfer by default where FlashInfer is installed (VLLM_USE_FLASHINFER_SAMPLER
    #: unset): yes in 0.8-0.11.0 and from 0.21, opt-in (=1) in 0.11.1-0.20. ``sampler`` is what the official image
    #: runs; where FlashInfer is not used the PyTorch-native path runs (``native_sampler``).
    flashinfer_sampler_default: bool = True
    native_sampler: Sampler = "sort"  # top-k/top-p without FlashInfer: PyTorch's sort, Triton's kernel (0.17+)
    pip_flashinfer: bool = False  # `pip install vllm` brings FlashInfer along (requirements/cuda.txt)
    #: The wheel carries OpenAI's triton_kernels (vllm.third_party.triton_kernels, built in from 0.12), and so does the
    #: official image, which installs that wheel and requirements/cuda.txt and nothing else that brings them; without
    #: them MXFP4 experts on Hopper run on Marlin, whose padding and bf16 scales differ
    wheel_triton_kernels: bool = False
    #: The Triton MXFP4 MoE backend (Hopper) frees the experts' scales as loaded once it has swizzled them, keeping
    #: only the padded copy (0.25+; before, both stay: ``weights.Mxfp4Backend``)
    mxfp4_triton_frees_scales: bool = False
    #: A tower whose modalities ``--limit-mm-per-prompt`` all sets to 0 is built on the meta device, its weights never
    #: loaded (``SupportsMultiModal._mark_tower_model``, 0.19+; ``weights.unbuilt_tower_params``)
    unbuilt_towers: bool = False
    mm_items: MmItems = "ceil"  # how V1 counts the dummy multimodal items it profiles (module docstring)
    mm_default_limit: int = 1  # --limit-mm-per-prompt's default per modality (V1: 999 from 0.8.4)
    mm_expand_outputs: bool = False  # 0.11-0.12: each dummy encoder output is padded to the encoder budget
    #: 0.12: the padding's length is the profiled item's largest token count, not the encoder budget
    mm_expand_to_item: bool = False
    #: 0.11+: the dummy encoder outputs and batch stay held through the dummy sampler run too (module docstring)
    mm_held_through_sampler: bool = False
    #: 0.11-0.12: Qwen3-VL counts a video item's tokens with their timestamps, this many per vision token (0: no video
    #: item is modelled, the largest image is profiled; module docstring)
    qwen3_video_format: float = 0.0
    qwen_image: QwenImage = "square"  # how the largest Qwen-VL image is found (module docstring)
    mm_inputs_model_dtype: bool = False  # the processor's pixel values reach the GPU in the model's dtype (0.9.1+)
    qwen3_vit_pos: Qwen3VitPos = "copies"  # Qwen3-VL's position-embedding interpolation (module docstring)
    qwen25_vit: Qwen25Vit = "generic"  # what Qwen2.5-VL's vision tower holds at its peak (module docstring)
    mm_limit_parse: MmArgParse = "kvs"  # --limit-mm-per-prompt's parser (module docstring)
    mm_kwargs_parse: MmArgParse = "loads"  # --mm-processor-kwargs' parser
    mrope_cache_scale: int = 1  # MRotaryEmbedding's cos/sin cache: this many times max_position_embeddings (0.7.2+: 4)
    #: Which generative models run Model Runner V2 by default (``v1/worker/gpu/model_runner.py``, whose
    #: ``profile_cudagraph_memory`` returns 0: no CUDA graph estimate in the budget): ``none``; ``listed`` (the
    #: architectures of ``v2_model_types``, by config.json ``model_type``; dense and unquantized only where
    #: ``v2_listed_dense_only``); ``dense`` (those and every model that is not a mixture of experts; 0.29 runs every
    #: generative model on it, which is not modelled: docs/capacity-model.md, "Model Runner V2")
    v2_runner: V2Runner = "none"
    v2_model_types: tuple[str, ...] = ()
    v2_listed_dense_only: bool = False
    #: A model with state layers (``is_hybrid``: Mamba or linear attention beside attention; ``is_attention_free``)
    #: stays on the V1 runner although it is not a mixture of experts (0.25 - 0.28; none of ``v2_model_types`` is one)
    v2_skips_state_models: bool = False
    #: Model Runner V2's buffers kept from ``load_model`` on (its penalty state: ``max_num_seqs`` × vocabulary) come
    #: out of the KV budget (``memory_profiling``'s ``total_consumed``, 0.27); before, the budget does not count them
    #: and they sit in the margin outside it (docs/capacity-model.md, "Model Runner V2")
    v2_persistent_in_budget: bool = False
    #: Model Runner V2's ``profile_run`` profiles the multimodal encoder (``profile_encoder_cache``, 0.27); before,
    #: it runs only the language model's dummy forward and sampler
    v2_encoder_profile: bool = False
    #: a sliding-window layer's blocks a request: span + ``max_in_flight_tokens`` (concurrent batches ×
    #: max_num_batched_tokens, 0.26+), not span + one max_num_batched_tokens (module docstring)
    kv_in_flight: bool = False
    #: a sliding-window layer's own block size in a hybrid layout: the attention backend's smallest kernel block
    #: (16 on the CUDA and ROCm backends), not ``--block-size``, before pages are unified (0.25+); 0: the engine's
    sliding_kernel_block: int = 0
    #: Model Runner V2 estimates its CUDA graphs in the budget (``profile_cudagraph_memory`` captures them into a
    #: throw-away pool, 0.29); before, it returns 0 and the graphs are captured after sizing
    v2_cudagraphs_in_budget: bool = False
    #: a checkpoint whose config.json ties the word embeddings but which stores a different ``lm_head.weight`` is
    #: loaded untied, one more vocabulary table (0.29+, ``ModelShape.distinct_lm_head``); before, the head is tied
    #: to the embeddings and the tensor skipped
    unties_distinct_lm_head: bool = False
    #: DeepSeek-V3.2's sparse-attention indexer reserves its prefill K-gather workspace in the profile run: 40 ×
    #: ``max_model_len`` entries of 128 fp8 bytes and a 4-byte scale in the shared workspace (``WorkspaceManager``,
    #: kept for the engine's life), which FlashMLA's sparse backend also takes at init for an ``fp8_ds_mla`` cache (5 ×
    #: ``max_model_len`` × 576 bf16 values): 0.13+; 0.12 gathers 2 × ``max_model_len`` entries at run time only
    sparse_indexer_workspace: bool = False
    #: a layer that shares top-k under IndexCache (``index_topk_freq`` / ``index_topk_pattern``: GLM-5.2) builds no
    #: indexer, so holds no indexer keys in its KV page and no indexer weights (0.24+); 0.23 builds one on every
    #: layer and only skips its top-k, 0.21 - 0.22 do so under ``use_index_cache``, 0.20 reads neither key
    shared_indexers_unbuilt: bool = False
    #: the fused-MoE layer runs its experts through the modular kernel, which takes its caches (``workspace13``,
    #: ``workspace2``) from the shared ``WorkspaceManager`` buffer, grown to the largest request and kept for the
    #: engine's life, so they are still allocated in the profile's sampler run (0.14+: the unquantised method's
    #: ``self.kernel``; 0.13.0 calls ``fused_experts()``, whose caches are freed with the layer)
    moe_workspace_persists: bool = False
    #: block-FP8 experts on DeepGEMM keep their caches after the layer before 0.14 too: ``Fp8MoEMethod.apply`` calls
    #: ``fused_experts(allow_deep_gemm=...)``, which runs ``deep_gemm_moe_fp8`` as a ``FusedMoEModularKernel``
    #: (``fused_moe/deep_gemm_moe.py``), whose caches are the class-level ``SharedResizableBuffer``s in 0.12.0 (grown,
    #: never freed, ``fused_moe/modular_kernel.py``) and the shared ``WorkspaceManager`` buffer in 0.13.0 (read in the
    #: 0.12.0 and 0.13.0 wheels; 0.11 not read). Where vLLM picks DeepGEMM: :func:`~.sizing.deepgemm_moe_picked`
    deepgemm_moe_workspace_persists: bool = False
    #: DeepGEMM runs on every GPU of the 10.x family (B200 10.0, B300 10.3) from 0.13.0
    #: (``is_device_capability_family(100)``); 0.12.0 asks ``is_device_capability(100)``, 10.0 only
    deepgemm_blackwell_family: bool = False
    #: Model Runner V2's profile sampler copies the dummy requests' logits to float32
    #: (``Sampler.apply_sampling_params``, 0.22 - 0.27); from 0.28 it returns them untouched where no request needs
    #: processing (``needs_logits_processing``, all False for the dummy requests), so the greedy profile holds only the
    #: logits in the model's dtype; from 0.33 ``_dummy_sampler_run`` samples a second time with
    #: ``SamplingParams.for_sampler_warmup()`` on every dummy request, through the float32 copy again
    v2_profile_logits_copy: bool = True
    #: From 0.33 that second pass is the whole warm-up pipeline (``Sampler.sample``: the float32 copy, logit bias,
    #: penalties, bad words, temperature and min-p in place, then FlashInfer's fused top-k/top-p where it is used, else
    #: ``apply_top_k_top_p`` and a Gumbel arg-max; logprobs by ``torch.topk`` and a Triton kernel that materialises
    #: nothing), so the profile's sampler peak is the warm-up sampler's bytes per logit (``sizing.sampler_kind``), as
    #: ``warmup_kernels`` after sizing charges it, over the profile's rows
    v2_profile_warmup_sampler: bool = False
    #: Whether the context limit of a YaRN config is ``original_max_position_embeddings`` × ``factor``
    #: (``_get_and_verify_max_len`` before 0.30.0); from 0.30.0 it is ``max_position_embeddings`` as written
    #: (vllm#56446 aligned YaRN with Transformers, which never scales it): ``weights.derived_max_model_len``
    yarn_rescales_limit: bool = True
    #: Whether the limit reads config.json's ``rope_parameters`` (the name transformers 5 gives ``rope_scaling``,
    #: nested by layer type in some models) besides ``rope_scaling`` (0.12.0 on); before, only ``rope_scaling``:
    #: ``weights.derived_max_model_len``
    reads_rope_parameters: bool = True
    #: Whether a LongRoPE config (``rope_type`` ``longrope``, or ``su``, which ``patch_rope_parameters`` renames) with
    #: no ``--max-model-len`` runs at config.json's top-level ``original_max_position_embeddings`` rather than the
    #: limit (0.12.0 on; Phi-3.5-mini: 4,096 of 131,072): ``sizing._max_model_len``
    longrope_default_original: bool = True
    #: Whether a dict-valued ``rope_scaling`` in ``--hf-overrides`` reaches the RoPE parameters the limit reads
    #: (``weights.overridden_rope_config``): ``read`` where the release reads ``rope_scaling`` itself (before 0.12.0)
    #: or runs transformers 5, whose ``rope_scaling`` setter sets ``rope_parameters`` (0.24.0 on: ``transformers >=
    #: 5.5.3``); ``ignored`` where it reads ``rope_parameters`` and pins ``transformers < 5`` (0.12.0 - 0.19.x), so
    #: ``patch_rope_parameters`` has copied the checkpoint's ``rope_scaling`` before the override is set; ``image``
    #: where the requirements take either (0.20.0 - 0.23.x: ``transformers >= 4.56.0, != 5.0.* ... != 5.5.0``), so
    #: it depends on the transformers the image installed
    rope_scaling_override: str = "read"
    #: ``--quantization fp8`` on a checkpoint with no ``quantization_config`` (online FP8) loads each layer's weights
    #: on the ``meta`` device and quantises a layer once its last chunk is copied, so at most a layer is 16-bit at once
    #: (0.16.0+, vLLM PR 31914: ``Fp8OnlineLinearMethod.patched_weight_loader``); before, ``create_weights`` allocates
    #: every weight at 16 bits and ``process_weights_after_loading`` quantises after the whole load:
    #: ``sizing.online_fp8_load_peak``
    online_fp8_layerwise: bool = False
    #: The KV cache block size vLLM starts from where ``--block-size`` is not given and the attention backend takes it
    #: (``CacheConfig.DEFAULT_BLOCK_SIZE``: 16; 64 from 0.34; MLA backends pick their own, ``kv_layout.mla_block_size``)
    default_block_size: int = 16
    #: The extensible KV cache (0.34+, on by default on CUDA and ROCm unless ``--kv-cache-memory-bytes`` or
    #: ``--num-gpu-blocks-override`` is given or ``--no-enable-extensible-kv-cache``): the cache is sized after the
    #: warm-up and the CUDA graph capture from the memory then in use, an unset ``--gpu-memory-utilization`` is 1.0,
    #: the first snapshot's free-memory check is skipped, and a margin of ``max(1 GiB (3 on ROCm), 0.75 × the
    #: transient peak)`` plus the transient peak itself is kept free (module docstring)
    extensible_kv_cache: bool = False
    #: The packed ``--kv-cache-dtype`` values whose first release has been read that the release takes
    #: (``config/cache.py`` ``CacheDType``): ``nvfp4_ds_mla`` from 0.30, ``ultraquant_4bit`` from 0.32, the three
    #: ``octave_*`` from 0.33; argparse refuses them before. ``nvfp4`` (between 0.19.0 and 0.25.1) and
    #: ``nvfp4_4over6`` (between 0.25.1 and 0.29.0) are not gated: their first release is not read
    packed_kv_dtypes: tuple[str, ...] = ()
    #: V1's one-request check (and ``--max-model-len auto``'s fit) reads every pipeline stage's layers against the
    #: smallest worker's budget (0.14.0-0.16.x, ``get_kv_cache_configs``' merged global groups); before and after,
    #: each worker's own layers against its own budget
    pp_check_whole_model: bool = False
    #: ``--kv-cache-dtype auto`` takes a ModelOpt checkpoint's own KV cache format (0.14.0+,
    #: ``resolve_kv_cache_dtype_string`` in ``utils/torch_utils.py``, called by ``EngineArgs.create_engine_config``;
    #: read at 0.14.0, 0.14.1, 0.19.0, 0.29.0 and 0.30.0, absent from 0.13.0's ``engine/arg_utils.py``): its
    #: ``kv_cache_quant_algo`` (or ``kv_cache_scheme``) FP8 caches one byte an element
    kv_dtype_from_checkpoint: bool = False
    #: How ``--dtype auto`` picks the model's dtype (``model_dtype.served_dtype``): "config", config.json's
    #: ``torch_dtype`` whatever the GPU takes (before 0.9.0); "fallback", a dtype the platform does not list falls
    #: back to the first it lists (0.9.0); "checked", the same less float16 for :attr:`float16_refused` (0.9.1+)
    auto_dtype: AutoDtype = "config"
    #: The model types ``_FLOAT16_NOT_SUPPORTED_MODELS`` lists: ``--dtype float16`` is refused for them and ``auto``
    #: never picks it (0.9.1+; ``gemma3_text`` from 0.10.2)
    float16_refused: tuple[str, ...] = ()

    @property
    def version(self) -> Version:
        v = parse_version(self.since)
        assert v is not None
        return v


# (H100-class: >= 70 GiB and not an A100 (vLLM PR #17885); everything else.)
_TIERS_V1 = (
    BatchTier(70.0, 8192, 1024, 16384, 1024, exclude=("a100",)),
    BatchTier(0.0, 2048, 256, 8192, 256),
)
#: vLLM 0.8.0 - 0.8.3 (``engine/arg_utils.py`` ``_set_default_args_v1``, read in the 0.8.0, 0.8.1, 0.8.2 and 0.8.3
#: wheels): the token budget by device name ("h100" or "h200" in ``current_platform.get_device_name()``: 8192 for
#: the server, else 2048) and ``default_max_num_seqs = 1024`` on every GPU; 0.8.4 the same names, 1024 sequences on
#: them and 256 elsewhere; 0.8.5 by memory (>= 70 GiB), any name
_TIERS_V1_080 = (
    BatchTier(0.0, 8192, 1024, 16384, 1024, include=("h100", "h200")),
    BatchTier(0.0, 2048, 1024, 8192, 1024),
)
_TIERS_V1_084 = (
    BatchTier(0.0, 8192, 1024, 16384, 1024, include=("h100", "h200")),
    BatchTier(0.0, 2048, 256, 8192, 256),
)
_TIERS_V1_085 = (BatchTier(70.0, 8192, 1024, 16384, 1024), BatchTier(0.0, 2048, 256, 8192, 256))
_TIERS_V1_028 = (BatchTier(160.0, 16384, 1024, 16384, 1024), *_TIERS_V1)
_TIERS_V0 = (BatchTier(0.0, 2048, 256, 2048, 256),)

_V0 = Behaviour(
    since="0.4.0", engine="v0", nontorch="increase", sampler="logits", batch_tiers=_TIERS_V0,
    v0_chunked_tokens=512, hybrid_kv="as-full", concurrency_from_tokens=True, mla_cache=False,
    reads_rope_parameters=False, longrope_default_original=False,
)

#: Behaviour's fields, when each is an ``__init__`` argument stored as given (no ``__post_init__``, no
#: ``init=False`` field): then a row is a copy of the row before it with the changed attributes set, else None
_COPIED_FIELDS: frozenset[str] | None = (
    frozenset(f.name for f in fields(Behaviour))
    if not hasattr(Behaviour, "__post_init__") and all(f.init for f in fields(Behaviour)) else None
)


def _row(prev: Behaviour, since: str, **changed: object) -> Behaviour:
    """The release ``since`` as what changed from the row before it: the object ``dataclasses.replace(prev,
    since=since, **changed)`` makes (equal, the same attributes in the same order), made by copying ``prev``'s
    attributes. ``replace`` reads every field and calls the frozen ``__init__`` with all 64 by keyword, about 200K
    instructions a row: 5.8M of a one-file lint's start-up for the 29 rows. A name that is not a field is refused
    as ``replace`` refuses it."""
    if _COPIED_FIELDS is None:
        return replace(prev, since=since, **changed)  # type: ignore[arg-type]
    unknown = changed.keys() - _COPIED_FIELDS
    if unknown:
        raise TypeError(f"Behaviour.__init__() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    row: Behaviour = object.__new__(Behaviour)
    attributes = row.__dict__
    attributes.update(prev.__dict__)
    attributes["since"] = since
    attributes.update(changed)
    return row


_R051 = _row(_V0, "0.5.1", moe_chunk_tokens=65536)
_R060 = _row(_R051, "0.6.0", moe_chunk_tokens=32768)
_R065 = _row(_R060, "0.6.5", v0_chunked_tokens=2048)
_R070 = _row(_R065, "0.7.0", mla_cache=True)
_R072 = _row(_R070, "0.7.2", mrope_cache_scale=4)
_R080 = _row(
    _R072, "0.8.0", engine="v1", nontorch="absolute", sampler="flashinfer", batch_tiers=_TIERS_V1_080,
    v0_below_cc80=True, v0_by_env=True, sampler_warmup=True,
)
_R084 = _row(_R080, "0.8.4", mm_default_limit=999, batch_tiers=_TIERS_V1_084, triton_moe_shared_cache=True)
_R085 = _row(_R084, "0.8.5", mm_limit_parse="json-or-kvs", batch_tiers=_TIERS_V1_085)
_R090 = _row(_R085, "0.9.0", nontorch="increase", batch_tiers=_TIERS_V1, hybrid_kv="groups",
             concurrency_from_tokens=False, startup_free_check=True, mm_kwargs_parse="json-or-kvs",
             auto_dtype="fallback")
_R091 = _row(_R090, "0.9.1", mm_inputs_model_dtype=True, auto_dtype="checked",
             float16_refused=("gemma2", "gemma3", "plamo2", "glm4"))
_R0100 = _row(_R091, "0.10.0", max_num_seqs_clamped=True, cudagraph_sizes="step8", gpt_oss_capture=1024,
              mm_items="floor", mm_limit_parse="json", mm_kwargs_parse="json", eplb_needs_expert_parallel=True)
_R0101 = _row(_R0100, "0.10.1", mm_items="budget")
_R0102 = _row(_R0101, "0.10.2", kv_cache_memory_flag=True,
              float16_refused=("gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"))
_R0110 = _row(_R0102, "0.11.0", triton_moe_shared_cache=False, engine="v1", v0_below_cc80=False, v0_by_env=False,
              nontorch="after-distributed",
              runai_streamer=True, all2all_backend="allgather_reducescatter", full_cudagraphs=True,
              gpt_oss_capture=992, mm_expand_outputs=True, mm_held_through_sampler=True, qwen3_video_format=12.5,
              qwen25_vit="float32-rotary")
_R0111 = _row(_R0110, "0.11.1", native_multinode=True, sampler="sort", flashinfer_sampler_default=False,
              pip_flashinfer=True, all2all_env="fallback")
_R0120 = _row(_R0111, "0.12.0", reads_rope_parameters=True, longrope_default_original=True,
              rope_scaling_override="ignored",
              chunked_prefill_optional=True, batched_capped_by_seqs=True,
              cudagraph_sizes="step16", gpt_oss_capture=1024, wheel_triton_kernels=True, mm_expand_to_item=True,
              qwen25_vit="model-dtype-rotary", moe_chunk_tokens=16384, deepgemm_moe_workspace_persists=True)
_R0130 = _row(_R0120, "0.13.0", warmup_before_capture=True, mm_expand_outputs=False, qwen_image="factors",
              qwen3_video_format=0.0, sparse_indexer_workspace=True, deepgemm_blackwell_family=True)
_R0140 = _row(_R0130, "0.14.0", moe_workspace_persists=True, chunked_local_hybrid=True, max_model_len_auto=True,
              pp_check_whole_model=True, kv_dtype_from_checkpoint=True, mamba_seqs="asserts",
              nemotron_h_ssm_dtype="float16", all2all_env="override")
_R0160 = _row(_R0140, "0.16.0", online_fp8_layerwise=True, all2all_env="unread")
_R0170 = _row(_R0160, "0.17.0", sampler="triton", native_sampler="triton", mamba_cache_modes=True, gdn_ssm_dtype=True,
              qwen3_vit_pos="in-place", pp_check_whole_model=False, offload_uva_env=True)
_R0180 = _row(_R0170, "0.18.0", cudagraph_profiler_env=True, mamba_seqs="capped", moe_chunk_tokens=0,
              hopper_block_fp8_ep_flashinfer=True)
_R0190 = _row(_R0180, "0.19.0", tp_buffers_in_budget=True, unbuilt_towers=True)
_R0200 = _row(_R0190, "0.20.0", gpu_memory_utilization=0.92, rope_scaling_override="image", cudagraphs_in_budget=True,
              tokens_report="concurrency", mm_prefix_lm_chunk_off=True, mamba_seqs="refused",
              nemotron_h_ssm_dtype="float32")
_R0210 = _row(_R0200, "0.21.0", sampler="flashinfer", flashinfer_sampler_default=True)
_R0220 = _row(_R0210, "0.22.0", v2_runner="listed", v2_model_types=("qwen3",), v2_listed_dense_only=True,
              qwen3_vit_pos="kernel", mm_prefix_lm_batched=True)
_R0230 = _row(_R0220, "0.23.0", v2_model_types=("qwen3", "llama", "mistral"))
_R0240 = _row(_R0230, "0.24.0", rope_scaling_override="read", shared_indexers_unbuilt=True,
              v2_model_types=("qwen3", "llama", "mistral", "deepseek_v2", "qwen2_moe", "granitemoe"),
              v2_listed_dense_only=False)
_R0250 = _row(_R0240, "0.25.0", v2_runner="dense", v2_model_types=("deepseek_v2", "qwen2_moe", "granitemoe"),
              v2_skips_state_models=True, sliding_kernel_block=16, mxfp4_triton_frees_scales=True)
_R0260 = _row(_R0250, "0.26.0", kv_in_flight=True, eplb_world_counts_pcp=True)
_R0270 = _row(_R0260, "0.27.0", cudagraphs_in_budget_rocm=True, v2_persistent_in_budget=True,
              v2_encoder_profile=True)
_R0280 = _row(_R0270, "0.28.0", batch_tiers=_TIERS_V1_028, hybrid_prefix_caching=True, v2_profile_logits_copy=False)
_R0290 = _row(_R0280, "0.29.0", v2_cudagraphs_in_budget=True, unties_distinct_lm_head=True,
              v2_skips_state_models=False)
_R0300 = _row(_R0290, "0.30.0", packed_kv_dtypes=("nvfp4_ds_mla",), yarn_rescales_limit=False)
_R0320 = _row(_R0300, "0.32.0", packed_kv_dtypes=("nvfp4_ds_mla", "ultraquant_4bit"))
_R0330 = _row(_R0320, "0.33.0", packed_kv_dtypes=("nvfp4_ds_mla", "ultraquant_4bit", "octave_k3v4", "octave_k3v3",
                                                  "octave_k3v3_compact"), v2_profile_logits_copy=True,
              v2_profile_warmup_sampler=True)
_R0340 = _row(_R0330, "0.34.0", default_block_size=64, extensible_kv_cache=True, eplb_min_redundant=True)

#: One row per range of releases, oldest first; a row holds from ``since`` up to the next row, and each
#: row is written as what changed from the one before it.
RANGES: tuple[Behaviour, ...] = (
    _V0, _R051, _R060, _R065, _R070, _R072, _R080, _R084, _R085, _R090, _R091, _R0100, _R0101, _R0102, _R0110,
    _R0111, _R0120, _R0130, _R0140, _R0160, _R0170, _R0180, _R0190, _R0200, _R0210, _R0220, _R0230, _R0240, _R0250,
    _R0260, _R0270, _R0280, _R0290, _R0300, _R0320, _R0330, _R0340,
)

#: Where each field's values were read, per range (vLLM wheels from PyPI, file paths inside ``vllm/``).
SOURCES: dict[str, str] = {
    "auto_dtype": "config.py _get_and_verify_dtype: config.json's torch_dtype (float32 as float16) in the 0.8.4 and "
                  "0.8.5 wheels; 'Falling back to %s for compatibility' to current_platform.supported_dtypes[0] in "
                  "0.9.0; _resolve_auto_dtype, filtered by _is_valid_dtype, in 0.9.1, 0.9.2, 0.10.0-0.10.2 "
                  "(config.py) and 0.11.0-0.19.0 (config/model.py)",
    "float16_refused": "config.py / config/model.py _FLOAT16_NOT_SUPPORTED_MODELS and _check_valid_dtype: gemma2, "
                       "gemma3, plamo2, glm4 in 0.9.1, 0.9.2, 0.10.0 and 0.10.1.1; gemma3_text added in 0.10.2, "
                       "the same in 0.11.0-0.19.0; absent in 0.9.0",
    "engine": "envs.py VLLM_USE_V1 (default 1 from 0.8.0); engine/arg_utils.py _is_v1_supported_oracle "
              "falls back to V0 for 'Compute Capability < 8.0' in 0.8.5.post1, 0.9.2 and 0.10.1.1; "
              "worker/worker.py is gone in 0.11.0",
    "v0_by_env": "envs.py VLLM_USE_V1 (default '1') and engine/arg_utils.py create_engine_config ('If "
                 "VLLM_USE_V1=0, we disable V1'), read in the 0.8.5 and 0.10.1.1 sdists; 0.11.0 still declares the "
                 "variable but has no worker/worker.py (no V0 engine)",
    "nontorch": "worker/worker.py determine_num_available_blocks (0.5.5: init free - free after profiling; "
                "0.6.6.post1, 0.8.5.post1: memory_profiling non_torch_increase); v1/worker/gpu_worker.py "
                "(0.7.3, 0.8.5.post1: peak allocated + all non-torch memory; 0.9.2, 0.10.1.1: MemorySnapshot "
                "before init_worker_distributed_environment; 0.11.0 and later: after it)",
    "sampler": "v1/worker/gpu_model_runner.py _dummy_sampler_run (all V1 releases; the logits come out of "
               "compute_logits in the model dtype and v1/sample/sampler.py converts them to float32); "
               "v1/sample/ops/topk_topp_sampler.py: FlashInfer unless VLLM_USE_FLASHINFER_SAMPLER=0 in "
               "0.8.5.post1-0.11.0; opt-in only from 0.11.1, so forward_native runs apply_top_k_top_p: "
               "logits.sort (0.11.1-0.16.0), apply_top_k_top_p_triton (in place, for 8 rows or more) from "
               "0.17.0 (v1/sample/ops/topk_topp_triton.py, unchanged in kind to 0.20.0); envs.py "
               "VLLM_USE_FLASHINFER_SAMPLER default True from 0.21.0 (read in 0.21.0 and 0.22.1)",
    "gpu_memory_utilization": "config/cache.py CacheConfig.gpu_memory_utilization: 0.9 in 0.9.2 (config.py) and "
                              "0.11.0-0.19.1, Field(default=0.92) in 0.20.0, 0.21.0 and 0.22.1",
    "chunked_prefill_optional": "engine/arg_utils.py: _set_default_args_v1 sets enable_chunked_prefill = True "
                                "for every non-pooling model in 0.9.2, 0.10.1.1 and 0.11.0; from 0.12.0 "
                                "_set_default_chunked_prefill_and_prefix_caching_args keeps the user's False and "
                                "_set_default_max_num_seqs_and_batched_tokens_args takes max(max_model_len, "
                                "default) tokens",
    "max_num_seqs_clamped": "engine/arg_utils.py: max_num_seqs = min(default, max_num_batched_tokens) in "
                            "0.10.1.1, 0.11.0 and 0.12.0-0.22.1 (0.9.2 takes the default as is)",
    "batched_capped_by_seqs": "engine/arg_utils.py: max_num_batched_tokens = min(max_num_seqs × max_model_len, "
                              "default) from 0.12.0 (absent in 0.11.0)",
    "startup_free_check": "v1/worker/gpu_worker.py init_device (0.9.2-0.13.0) and v1/worker/utils.py "
                          "request_memory (0.14.1-0.22.1): ValueError 'Free memory on device ... on startup is "
                          "less than desired GPU memory utilization' when the snapshot's free memory is below "
                          "ceil(total × gpu_memory_utilization)",
    "sampler_warmup": "v1/worker/gpu_worker.py compile_or_warm_up_model: capture_model, then _dummy_run("
                      "min(max_num_seqs, max_num_batched_tokens)) and _dummy_sampler_run on the last PP rank "
                      "('CUDA out of memory occurred when warming up sampler with N dummy requests'), read in "
                      "0.11.0-0.22.1",
    "runai_streamer": "engine/arg_utils.py --load-format runai_streamer and docker/Dockerfile installing "
                      "runai-model-streamer[s3] in 0.11.0 and 0.11.1",
    "native_multinode": "engine/arg_utils.py --nnodes/--node-rank/--master-addr/--headless in the 0.11.1 source "
                        "distribution, absent in 0.11.0 (vllm-project/vllm#23691)",
    "tp_buffers_in_budget": "calibrated, not read: the issue's public 0.19 logs (about 2.1 GiB of non-torch memory "
                            "per GPU at TP2/TP4, against 0.1-0.3 GiB at TP1); the snapshot is taken after "
                            "init_worker_distributed_environment in 0.11.0-0.22.1, so what is counted is set up "
                            "later (first collective, all-reduce workspaces); charged only where "
                            "distributed/device_communicators/custom_all_reduce.py enables custom all-reduce "
                            "(TP 2/4/6/8 in one node; above 2 fully connected GPUs only) on NVLink-joined GPUs: "
                            "not its own buffer (max_size 8 MiB in 0.22.0), the 0.22.0 log of a PCIe T4 pair running "
                            "it counts about 0.2 GiB",
    "batch_tiers": "engine/arg_utils.py _set_default_args_v1 / get_batch_defaults: 0.8.0 - 0.8.3, 8192 tokens "
                   "for serve where the device name holds 'h100' or 'h200', else 2048, and 1024 seqs on every GPU "
                   "(read in the 0.8.0 - 0.8.3 wheels); 0.8.4 the same names, 1024 seqs on them and 256 elsewhere; "
                   "from 0.8.5 >= 70 GiB 8192 tokens / 1024 seqs for serve (0.8.5.post1; device names containing "
                   "'a100' excluded in 0.9.2, "
                   "0.10.1.1, 0.11.0-0.22.1: an A100-80GB gets 2048 / 256); >= 160 GiB 16384 tokens from "
                   "0.28.0; else 2048 / 256 (TPU and CPU have their own, not modelled). The memory is "
                   "platforms/cuda.py NvmlCudaPlatform.get_device_total_memory (nvmlDeviceGetMemoryInfo); where it "
                   "raises, get_batch_defaults takes 0 (0.20.0, 0.21.0, 0.25.1): the GB10 of a DGX Spark, whose "
                   "NVML reports no memory (docs.nvidia.com/dgx/dgx-spark/known-issues.html, 'nvidia-smi reports "
                   "memory usage Not Supported'), so a 121.63 GiB GB10 gets 2048 / 256 (the three GB10 logs of "
                   "sostrowsk/dgx-spark-local-llm at 0.25.1: compile range 2048, 'Raising max_num_batched_tokens "
                   "from 2048')",
    "mm_prefix_lm_chunk_off": "platforms/cuda.py CudaPlatform.check_and_update_config forces "
                              "disable_chunked_mm_input for a multimodal model whose is_mm_prefix_lm holds, and "
                              "v1/core/encoder_cache_manager.py compute_mm_encoder_budget raises 'Chunked MM input "
                              "disabled but max_tokens_per_mm_item (...) is larger than max_num_batched_tokens' "
                              "(0.20.0, 0.21.0, 0.22.0); Gemma4ModelArchConfigConvertor.is_mm_prefix_lm from 0.20.0 "
                              "(absent in 0.19.0 and 0.19.1); vllm-project/recipes#441 (2496 > 2048 on an A100 "
                              "80 GB, fixed by --max-num-batched-tokens above 2496)",
    "mm_prefix_lm_batched": "engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args and "
                            "_get_min_mm_batched_tokens (0.22.0, 0.25.1; absent in 0.20.0 and 0.21.0): with the "
                            "default budget, a multimodal model whose is_mm_prefix_lm holds "
                            "(transformers_utils/model_arch_config_convertor.py Gemma4ModelArchConfigConvertor: "
                            "use_bidirectional_attention == 'vision') gets max_num_batched_tokens = the largest "
                            "get_mm_max_tokens_per_item where that is larger, before the max_num_seqs x "
                            "max_model_len cap; the 0.25.1 GB10 logs of Gemma-4-26B-A4B: 'Raising "
                            "max_num_batched_tokens from 2048 to 2496 to accommodate 'video' input'",
    "v0_chunked_tokens": "config.py SchedulerConfig: 512 with chunked prefill in 0.5.5 and 0.6.3.post1, 2048 in "
                         "0.6.6.post1 (0.6.4 logs show 512); engine/arg_utils.py turns chunked prefill on for "
                         "max_model_len > 32768 on CUDA, not for multimodal, sliding-window or ROCm",
    "unbuilt_towers": "model_executor/models/interfaces.py SupportsMultiModal._mark_tower_model: no_init_weights "
                      "(the modules on the meta device, StageMissingLayer placeholders) when "
                      "mm_config.get_limit_per_prompt(m) == 0 for every modality of the tower, in the 0.19.0, 0.20.0, "
                      "0.25.1, 0.29.0 and 0.30.0 wheels (absent from 0.14.1's); models/gemma4_mm.py marks "
                      "vision_tower and embed_vision for image and video, audio_tower and embed_audio for audio",
    "mxfp4_triton_frees_scales": "model_executor/layers/fused_moe/oracle/mxfp4.py "
                                 "convert_gpt_oss_weight_to_mxfp4_moe_kernel_format, TRITON backends: 'del "
                                 "layer.w13_weight_scale' and 'del layer.w2_weight_scale' after _swizzle_mxfp4 in the "
                                 "0.25.0, 0.25.1, 0.29.0 and 0.30.0 wheels; 0.24.0 deletes layer.w13_weight and "
                                 "layer.w2_weight only (0.21.0 - 0.23.0 neither); the 0.27.1 H100 log of gpt-oss-120b "
                                 "(aihpi/litellm-k8s: weights 61.1 GiB, against 64.38 at 0.14.1)",
    "wheel_triton_kernels": "cmake/external_projects/triton_kernels.cmake (FetchContent of triton v3.5.0's "
                            "python/triton_kernels into the wheel) in the 0.12.0, 0.14.1 and 0.20.0 sdists, absent in "
                            "0.10.1.1, 0.11.0 and 0.11.2, whose docker/Dockerfile installs requirements/cuda.txt and "
                            "the wheel (neither lists triton_kernels: the official image has none either); utils "
                            "has_triton_kernels looks for triton_kernels or "
                          "vllm.third_party.triton_kernels (0.14.1); quantization/mxfp4.py picks Marlin on SM90 "
                          "without them (0.10.1.1 _should_use_marlin, 0.11.0 get_mxfp4_backend)",
    "warmup_before_capture": "v1/worker/gpu_worker.py compile_or_warm_up_model: 0.13.0, 0.14.1 and 0.20.0 add the "
                             "end of every compile range (get_compile_ranges, up to max_num_batched_tokens, set by "
                             "config/vllm.py _set_compile_ranges) to the warm-up sizes and run _dummy_run for each "
                             "before capture_model, then kernel_warmup (model_executor/warmup/kernel_warmup.py); the "
                             "method, _set_compile_ranges, kernel_warmup and GPUModelRunner.capture_model are the "
                             "same code in 0.13.0 and 0.14.1 (log formatting aside); 0.11.0 and 0.12.0 warm up "
                             "compile_sizes only (empty by default) and have no compile ranges",
    "cudagraphs_in_budget": "v1/worker/gpu_worker.py determine_available_memory subtracts "
                            "profile_cudagraph_memory() when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS (absent in "
                            "0.17.0; envs.py default '0' in 0.18.1/0.19.1, '1' in 0.20.0-0.22.1); ROCm skipped "
                            "(not current_platform.is_rocm()) until 0.24.0, included in 0.27.1",
    "cudagraph_profiler_env": "envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: absent in 0.17.0; "
                              "os.getenv(..., '0') in 0.18.0 and 0.19.1, '1' in 0.20.0 and 0.27.1; "
                              "v1/worker/gpu_worker.py determine_available_memory applies profile_cudagraph_memory() "
                              "only 'if envs.VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS' (0.18.0, 0.19.1, 0.20.0, "
                              "0.27.1); 0.18.0 and 0.19.1 estimate only 'not current_platform.is_rocm()'",
    "v2_runner": "config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES and _is_default_v2_model_runner_model: "
                 "{Qwen3ForCausalLM}, not MoE and not quantized, in 0.22.0; the six listed architectures, any "
                 "quantization, in 0.24.0 (0.23.0 from docs/capacity-model.md 'Model Runner V2'); listed or not MoE "
                 "(not hybrid, not attention-free) in 0.26.0, 0.27.1 and 0.28.0 (0.25.0 per the same table); "
                 "0.29.0 and 0.30.0 drop _is_default_v2_model_runner_model: use_v2_model_runner is True unless the "
                 "env says otherwise, ROCm with ROCM_DEFAULT_MRV1_ARCHITECTURES (DeepseekV32ForCausalLM, "
                 "DeepseekV4ForCausalLM), no Triton, or _get_v2_model_runner_unsupported_features; "
                 "envs.py VLLM_USE_V2_MODEL_RUNNER default '0' in 0.20.0-0.21.0",
    "v2_model_types": "config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (0.22.0, 0.24.0, 0.26.0), as config.json "
                      "model_type: Qwen3ForCausalLM qwen3, LlamaForCausalLM llama, MistralForCausalLM mistral, "
                      "DeepseekV2ForCausalLM deepseek_v2, Qwen2MoeForCausalLM qwen2_moe, GraniteMoeForCausalLM "
                      "granitemoe (0.26.0's Inkling and LongcatFlashNgram are not in the catalog)",
    "v2_persistent_in_budget": "utils/mem_utils.py memory_profiling: 0.22.0, 0.24.0 and 0.25.1 take "
                               "torch_peak_increase over the peak before the profile and the weights from "
                               "load_model's DeviceMemoryProfiler, "
                               "and v1/worker/gpu/model_runner.py builds the Sampler (PenaltiesState) outside both "
                               "(0.22.0 in __init__, 0.24.0 and 0.25.1 in load_model after the weights are measured):"
                               " its buffers are in neither; 0.27.1 counts total_consumed (free "
                               "memory at the first snapshot - after the profile), which holds them (0.27.0 not read)",
    "v2_encoder_profile": "v1/worker/gpu/model_runner.py profile_run: _dummy_run and the sampler only in 0.22.0, "
                          "0.24.0 and 0.25.1; 0.27.1 first runs encoder_runner.profile_encoder_cache over "
                          "get_dummy_encoder_profile_inputs (0.27.0 not read)",
    "v2_cudagraphs_in_budget": "v1/worker/gpu/model_runner.py profile_cudagraph_memory: 'return 0' in 0.22.0, 0.24.0, "
                               "0.25.1, 0.27.1 and 0.28.0; 0.29.0, 0.30.0 and 0.33.0 call "
                               "cudagraph_utils.profile_cudagraph_memory (a minimal KV cache, every PIECEWISE graph "
                               "captured into a throw-away pool, the largest FULL ones extrapolated), which "
                               "v1/worker/gpu_worker.py determine_available_memory takes from the budget",
    "sparse_indexer_workspace": "v1/attention/backends/mla/indexer.py get_max_prefill_buffer_size (max_model_len * "
                                "40; * 2 in 0.12.0) and the profile-run branch of sparse_attn_indexer ('Reserve "
                                "workspace for indexer during profiling run': current_workspace_manager()"
                                ".get_simultaneous of (total_seq_lens, head_dim) fp8 and (total_seq_lens, 4) uint8; "
                                "in models/deepseek_v2.py in 0.13.0 and 0.14.0, model_executor/layers/"
                                "sparse_attn_indexer.py in 0.15.0, 0.17.0, 0.19.0 and 0.25.1; absent in 0.12.0), "
                                "v1/worker/workspace.py WorkspaceManager (one buffer grown to the largest request, "
                                "never shrunk; 0.13.0+), v1/attention/backends/mla/flashmla_sparse.py "
                                "get_prefill_workspace_size (max_model_len * 5 rows of head_size bf16, reserved at "
                                "init for fp8_ds_mla, 0.13.0, 0.19.0, 0.25.1)",
    "online_fp8_layerwise": "model_executor/layers/quantization/fp8.py (mend19, the PyPI wheels): 0.12.0 "
                            "Fp8LinearMethod.create_weights allocates a checkpoint that is not FP8-serialised at "
                            "params_dtype and process_weights_after_loading quantises after the loader's loop; 0.15.0 "
                            "and 0.15.1 Fp8OnlineLinearMethod / Fp8OnlineMoEMethod still torch.empty(..., "
                            "dtype=params_dtype) on the load device; 0.16.0 creates them on device='meta' and "
                            "patched_weight_loader materialises and quantises a layer at a time (PR 31914)",
    "moe_workspace_persists": "model_executor/layers/fused_moe/modular_kernel.py _allocate_buffers: "
                              "current_workspace_manager().get_simultaneous of workspace13 and workspace2 (0.13.0, "
                              "0.17.0, 0.19.0, 0.25.1, 0.29.0); fused_moe/unquantized_fused_moe_method.py builds the "
                              "modular self.kernel in 0.14.0, 0.15.0, 0.16.0, 0.17.0 and 0.19.0 and calls "
                              "fused_experts() directly in 0.13.0; in 0.29.0 every FusedMoEMethodBase holds a "
                              "moe_kernel (fused_moe_method_base.py, quantization/fp8.py make_fp8_moe_kernel); "
                              "v1/worker/workspace.py WorkspaceManager never shrinks its buffer",
    "deepgemm_moe_workspace_persists": "model_executor/layers/quantization/fp8.py get_fp8_moe_backend (DEEPGEMM for "
                                       "block-quantised weights where VLLM_USE_DEEP_GEMM and VLLM_MOE_USE_DEEP_GEMM "
                                       "are on, their default '1', the MoE TP size below 8 unless "
                                       "VLLM_MOE_USE_DEEP_GEMM is set, deep_gemm importable and the GPU 9.0 or 10.x, "
                                       "after FlashInfer's VLLM_USE_FLASHINFER_MOE_FP8, default '0', and Marlin below "
                                       "8.9) and Fp8MoEMethod.apply -> fused_experts(allow_deep_gemm=...) -> "
                                       "fused_moe/deep_gemm_moe.py deep_gemm_moe_fp8 -> FusedMoEModularKernel: "
                                       "modular_kernel.py SharedResizableBuffer class attributes (0.12.0), "
                                       "current_workspace_manager().get_simultaneous (0.13.0); the 0.12.0 and 0.13.0 "
                                       "wheels list no deep_gemm among their requirements (METADATA)",
    "deepgemm_blackwell_family": "utils/deep_gemm.py is_deep_gemm_supported: is_device_capability(90) or "
                                 "is_device_capability(100) in 0.12.0, is_device_capability_family(100) in 0.13.0",
    "shared_indexers_unbuilt": "model_executor/models/deepseek_v2.py DeepseekV2MLAAttention.__init__: 'if self.is_v32 "
                               "and (not _skip_topk or is_mtp_layer)' builds the Indexer (and its "
                               "DeepseekV32IndexerCache) in 0.24.0, 0.25.1, 0.26.0 and 0.29.0 (the loader drops a "
                               "skipped layer's checkpoint indexer weights; vllm/models/deepseek_v32/nvidia/"
                               "attention.py in 0.25.1: 'GLM-5.2 uses index_topk_freq=4 so only layers "
                               "[0,1,2,6,10,...] (+ MTP) carry one'); 0.23.0 builds it on every layer and sets "
                               "_skip_topk after; 0.21.0 and 0.22.0 read index_topk_freq only under use_index_cache; "
                               "0.20.0 reads neither",
    "unties_distinct_lm_head": "config/model.py ModelConfig.maybe_untie_word_embeddings (called from config/vllm.py "
                               "unless load_format is dummy or a sharded state; transformers_utils/config.py "
                               "checkpoint_has_lm_head reads the safetensors names) and model_loader/weight_tying.py "
                               "maybe_retie_word_embeddings (re-ties only when torch.equal on the two tables) in "
                               "0.29.0 and 0.30.0; not in 0.28.0, whose models/gemma4.py load_weights skips 'lm_head.' "
                               "when the config ties",
    "v2_profile_logits_copy": "v1/worker/gpu/sample/sampler.py Sampler.apply_sampling_params: an unconditional "
                              "'torch.empty_like(logits, dtype=torch.float32).copy_(logits)' in 0.25.1 and 0.27.1; "
                              "0.28.0, 0.29.0 and 0.30.0 first return the logits when no request of the batch has "
                              "needs_logits_processing (set only by add_request, so all False for profile_run's "
                              "dummy requests), and gumbel_sample allocates only rows x blocks arg-max buffers; "
                              "0.33.0 and 0.34.0 v1/worker/gpu/model_runner.py _dummy_sampler_run adds a second pass "
                              "with SamplingParams.for_sampler_warmup() on every dummy request ('warmup_kernels ... "
                              "pays for the fp32 logits pipeline, so the profiled peak must too'): the copy again",
    "v2_profile_warmup_sampler": "v1/worker/gpu/model_runner.py _dummy_sampler_run (0.33.0, 0.34.0; absent from 0.31.0 "
                                 "and 0.32.0): the second pass adds SamplingParams.for_sampler_warmup() (temperature "
                                 "0.9, top-k 50, top-p 0.9, min-p, penalties, logit bias, bad words, logprobs 5) to "
                                 "every dummy request; v1/worker/gpu/sample/sampler.py Sampler.sample copies the "
                                 "logits to float32, applies the processors, temperature and min-p in place and "
                                 "samples with flashinfer_sample where use_flashinfer (no greedy row, raw logprobs), "
                                 "else apply_top_k_top_p and gumbel_sample; sample/logprob.py compute_topk_scores: "
                                 "torch.topk and compute_token_logprobs (no log-softmax materialised)",
    "yarn_rescales_limit": "config/model.py _get_and_verify_max_len: 0.28.0 and 0.29.0 reset the limit to "
                           "rope_scaling's original_max_position_embeddings for rope_type 'yarn' and multiply it by "
                           "factor; 0.30.0, 0.31.0, 0.32.0 and 0.33.0 leave 'yarn' (and its variants) out of the "
                           "scaling ('YaRN variants leave max_position_embeddings already scaled, as Transformers' "
                           "_compute_yarn_parameters assumes'; vllm#56446)",
    "longrope_default_original": "config/model.py _get_and_verify_max_len: where max_model_len is None and any RoPE "
                                 "parameter set's rope_type is 'longrope', max_model_len = getattr(hf_config, "
                                 "'original_max_position_embeddings', derived_max_model_len) ('For LongRoPE, default "
                                 "to original_max_position_embeddings'; hf_config is the text config) in the 0.12.0, "
                                 "0.13.0, 0.14.1, 0.16.0, 0.17.0 and 0.34.0 wheels; absent from 0.11.0; "
                                 "transformers_utils/config.py patch_rope_parameters renames rope_type 'su' to "
                                 "'longrope' (0.12.0)",
    "reads_rope_parameters": "config/model.py _get_and_verify_max_len: 0.11.0, 0.11.1 and 0.11.2 read "
                             "getattr(hf_config, 'rope_scaling'); 0.12.0, 0.13.0, 0.14.1, 0.18.0 and 0.29.0 read "
                             "getattr(hf_config, 'rope_parameters') (transformers_utils/config.py "
                             "patch_rope_parameters copies a v4 config's rope_scaling into it; a dict of layer "
                             "types is walked, the last factor taken), 0.34.0 iter_rope_parameters (the same walk)",
    "rope_scaling_override": "config/model.py ModelConfig.__post_init__ splits --hf-overrides: flat values go to "
                             "transformers_utils/config.py get_config (config.update, then patch_rope_parameters), "
                             "dict values are set after it (_apply_dict_overrides; 0.11.1, 0.11.2, 0.12.0, 0.14.1, "
                             "0.15.0, 0.18.0, 0.19.0, 0.20.0, 0.23.0, 0.25.1, 0.26.0, 0.28.0, 0.29.0, 0.31.0, 0.34.0; "
                             "0.11.0 passes them all to get_config); patch_rope_parameters' transformers-4 branch "
                             "(0.12.0 - 0.23.0; gone in 0.25.1) copies rope_scaling into rope_parameters. Wheel "
                             "requirements (PyPI metadata): transformers<5,>=4.56.0 in 0.11.2 - 0.19.0; "
                             "!=5.0.*,...,!=5.5.0,>=4.56.0 in 0.20.0 - 0.23.0; >=5.5.3 in 0.24.0 - 0.28.0, >=5.10.4 "
                             "in 0.29.0; transformers 5's PreTrainedConfig.rope_scaling setter sets rope_parameters",
    "default_block_size": "config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE: 16 in 0.33.0, 64 in 0.34.0; "
                          "platforms/interface.py update_block_size_for_backend takes it where --block-size is not "
                          "given and every backend supports it (v1/attention/backend.py get_preferred_block_size; "
                          "FLASH_ATTN and TRITON_ATTN take multiples of 16, 0.34.0)",
    "extensible_kv_cache": "config/cache.py enable_extensible_kv_cache (new in 0.34.0, absent in 0.33.0) and "
                           "resolved_gpu_memory_utilization (1.0 where it is on and gpu_memory_utilization is unset, "
                           "else 0.92); config/vllm.py _resolve_extensible_kv_cache: on by default on CUDA and ROCm, "
                           "off with kv_cache_memory_bytes, num_gpu_blocks_override or elastic EP; "
                           "v1/worker/utils.py request_memory skips the free-memory check where it is on; "
                           "v1/worker/gpu_worker.py compile_or_warm_up_model: warm-up, capture, sampler warm-up, then "
                           "v1/worker/extensible_kv_cache.py measure_kv_cache_bytes: min(requested - non-KV memory in "
                           "use, free + committed - max(KV_CACHE_MARGIN_FLOOR_BYTES 1 GiB (3 on ROCm), 0.75 x the "
                           "transient peak)) - the transient peak, the peak being determine_available_memory's "
                           "peak_activation_memory (the profile's torch peak + the CUDA graph estimate) or the "
                           "warm-up's, whichever is larger (read in 0.34.0)",
    "packed_kv_dtypes": "config/cache.py CacheDType: nvfp4 and nvfp4_4over6 in 0.29.0 (nvfp4 alone in 0.25.1, neither "
                        "in 0.19.0); + nvfp4_ds_mla in 0.30.0 and 0.31.0; + ultraquant_4bit in 0.32.0; + octave_k3v4, "
                        "octave_k3v3 and octave_k3v3_compact in 0.33.0 and 0.34.0",
    "v2_skips_state_models": "config/vllm.py _is_default_v2_model_runner_model returns False for a model that "
                             "is_hybrid or is_attention_free before its dense rule in the 0.25.1 and 0.26.0 wheels, "
                             "and in 0.27.1 and 0.28.0 unless the architecture is listed (no listed one is a hybrid); "
                             "0.29.0 drops the function (tokens40)",
    "v2_listed_dense_only": "config/vllm.py _is_default_v2_model_runner_model returns 'not model_config.is_moe and "
                            "not model_config.is_quantized' for a listed architecture in 0.22.0, not in 0.24.0",
    "sliding_kernel_block": "model_executor/layers/attention/attention.py Attention.get_kv_cache_spec: 'SW chooses its "
                            "own block_size, decoupled from the user's --block-size' (_largest_kernel_block_within: "
                            "the smallest of get_supported_kernel_block_sizes, MultipleOf(16) for TRITON_ATTN and "
                            "FLASH_ATTN) in 0.25.0-0.34.0, the cache's block_size in 0.24.0; "
                            "v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size pads a page that does not divide "
                            "the largest (0.24.0+)",
    "hybrid_kv": "v1/core/kv_cache_utils.py: 0.8.5.post1 unify_hybrid_kv_cache_specs turns sliding windows "
                 "into full attention; _get_kv_cache_config_uniform_page_size groups from 0.9.2",
    "chunked_local_hybrid": "envs.py VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE default '0' in "
                            "0.10.1.1-0.13.0, '1' from 0.14.1; config/vllm.py disables the hybrid manager "
                            "otherwise",
    "mamba_cache_modes": "model_executor/models/config.py MambaModelConfig.verify_and_update_config ('all' where "
                         "model_config.supports_mamba_prefix_caching, else 'align', when prefix caching is on) and "
                         "v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes (all: cdiv(max_model_len, "
                         "block) pages; align: 2; none: 1) in 0.17.1, 0.19.1, 0.20.0, 0.22.0 and 0.27.1; absent "
                         "in 0.14.1 (0.15-0.16 not read); prefix caching is opt-in for hybrid models "
                         "(config/model.py is_prefix_caching_supported in 0.22.0, engine/arg_utils.py "
                         "default_prefix_caching in 0.27.1)",
    "hybrid_prefix_caching": "engine/arg_utils.py _set_default_chunked_prefill_and_prefix_caching_args: "
                             "default_prefix_caching = model_config.is_prefix_caching_supported in 0.28.0, 0.29.0 "
                             "and 0.34.0 ('is_prefix_caching_supported and not model_config.is_hybrid' in 0.26.0; "
                             "config/model.py returns True for a generative 'hybrid' attn_type from 0.26.0, False in "
                             "0.23.0 and 0.25.1); model_executor/models/config.py "
                             "MambaModelConfig.verify_and_update_config sets mamba_cache_mode 'align' where it is "
                             "'none' in 0.28.0, 0.29.0 and 0.34.0 ('all' where supports_mamba_prefix_caching in "
                             "0.25.1 and 0.26.0)",
    "mamba_seqs": "config/compilation.py resolve_cudagraph_mode_and_sizes raises 'max_num_seqs (N) exceeds available "
                  "Mamba cache blocks (M)' where kv_cache_config.has_mamba_layers, "
                  "cudagraph_mode.has_full_cudagraphs() and max_num_reqs > kv_cache_config.num_blocks, in 0.20.0, "
                  "0.23.0, 0.28.0 and 0.34.0 (vllm#38270); "
                  "0.18.0 and 0.19.0 adjust_cudagraph_sizes_for_mamba_cache caps the capture sizes to num_blocks "
                  "with a warning (v1/worker/gpu_model_runner.py); in 0.14.1, 0.15.0 and 0.17.1 neither, and "
                  "models/qwen3_next.py's decode causal_conv1d_update (Qwen3-Next, Qwen3.5 by inheritance) and "
                  "layers/kda.py's (0.14.1, 0.15.0) pass validate_data=True, so layers/mamba/ops/causal_conv1d.py "
                  "asserts num_cache_lines >= batch when a full decode graph above num_blocks is captured",
    "moe_chunk_tokens": "envs.py VLLM_FUSED_MOE_CHUNK_SIZE and model_executor/layers/fused_moe/fused_moe.py "
                        "fused_experts_impl (CHUNK_SIZE = envs.VLLM_FUSED_MOE_CHUNK_SIZE; M = min(num_tokens, "
                        "CHUNK_SIZE) sizes the caches): not in the 0.4.0, 0.4.3 and 0.5.0 wheels (no chunking); "
                        "default '65536' in 0.5.1, 0.5.3, 0.5.4 and 0.5.5; '32768' in 0.6.0, 0.6.3, 0.7.0, 0.7.3, "
                        "0.8.5, 0.10.2, 0.11.0, 0.11.1 and 0.11.2 (fused_moe/modular_kernel.py chunks by it too); "
                        "str(16 * 1024) in 0.12.0, 0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.16.0, 0.17.0 and 0.17.1; gone "
                        "from envs.py in 0.18.0, 0.18.1 and 0.19.0, whose fused_experts_impl sets M = num_tokens and "
                        "whose modular_kernel.py allocates its workspaces for M_full (no chunk)",
    "hopper_block_fp8_ep_flashinfer": "model_executor/layers/fused_moe/oracle/fp8.py _get_priority_backends in the "
                                      "0.18.0 wheel: on capability 9.0 with kFp8Dynamic128Sym activations and "
                                      "kFp8Static128BlockSym weights, FLASHINFER_CUTLASS moved to the front when "
                                      "ep_size > 1 (TRITON otherwise); flashinfer-python 0.6.6 (pinned by the wheel) "
                                      "csrc/fused_moe/cutlass_backend/cutlass_fused_moe_kernels.cuh "
                                      "getWorkspaceDeviceBufferSizes sizes its workspace; earlier releases not read",
    "all2all_backend": "envs.py VLLM_ALL2ALL_BACKEND default 'naive' in 0.10.2, 'allgather_reducescatter' in 0.11.0; "
                       "config/parallel.py ParallelConfig.all2all_backend default 'allgather_reducescatter' in "
                       "0.14.1, 0.15.0, 0.18.0, 0.20.0, 0.25.1, 0.29.0 and 0.30.0 (None in 0.11.1, 0.12.0 and "
                       "0.13.0, then the variable's default 'allgather_reducescatter')",
    "eplb_min_redundant": "config/parallel.py ParallelConfig.compute_eplb_num_redundant_experts (0.34.0: where "
                          "enable_eplb is set and eplb_config.num_redundant_experts is None, the least that makes "
                          "num_logical_experts + it divide by TP x PCP x DP; absent in the 0.31.0, 0.32.0 and 0.33.0 "
                          "wheels); EPLBConfig.num_redundant_experts defaults to 0 in 0.11.0, 0.11.2, 0.18.0, 0.28.0",
    "eplb_needs_expert_parallel": "ParallelConfig raises ValueError('enable_expert_parallel must be True to use "
                                  "EPLB.') where enable_eplb is set and enable_expert_parallel is not: __post_init__ "
                                  "of vllm/config.py in the 0.10.0 wheel and of config/parallel.py in the 0.10.1.1, "
                                  "0.10.2 and 0.11.0 wheels, _validate_parallel_config in the 0.16.0, 0.17.0 and "
                                  "0.34.0 wheels; the 0.9.2 wheel's vllm/config.py checks only the platform and "
                                  "num_redundant_experts. The same block then raises ValueError('EPLB requires "
                                  "tensor_parallel_size or data_parallel_size to be greater than 1, but got "
                                  "TP=..,DP=...') where tensor_parallel_size x data_parallel_size <= 1 (both checks "
                                  "came with vllm-project/vllm#21102: the 0.10.0, 0.22.0, 0.25.0 and 0.25.1 wheels)",
    "offload_uva_env": "model_executor/offloader/uva.py UVAOffloader.__init__: uva_offloading = is_uva_available() and "
                       "not envs.VLLM_WEIGHT_OFFLOADING_DISABLE_UVA, which envs.py reads as "
                       "bool(int(os.getenv(..., '0'))) (the 0.17.0, 0.18.0, 0.22.0 and 0.34.0 wheels); the 0.10.0, "
                       "0.14.0 and 0.16.0 wheels' envs.py has no such variable, and models/utils.py "
                       "maybe_offload_to_cpu asserts UVA on V1 (0.16.0)",
    "eplb_world_counts_pcp": "config/parallel.py _validate_parallel_config: from 0.26.0 the EPLB check reads "
                             "tensor_parallel_size x prefill_context_parallel_size x data_parallel_size <= 1 and "
                             "raises ValueError('EPLB requires tensor, prefill-context, or data parallelism, but got "
                             "TP=.., PCP=.., DP=...') (the 0.26.0, 0.27.0, 0.28.0, 0.33.0 and 0.34.0 wheels); "
                             "tensor_parallel_size x data_parallel_size in the 0.25.0 and 0.25.1 wheels",
    "all2all_env": "config/parallel.py __post_init__: the variable where all2all_backend is None in 0.11.1, 0.12.0 "
                   "and 0.13.0; where envs.is_set('VLLM_ALL2ALL_BACKEND') it replaces the flag in 0.14.1, 0.15.0 "
                   "and 0.15.1; not read in 0.16.0 and 0.18.0 (envs.py has no VLLM_ALL2ALL_BACKEND, removed by "
                   "vllm-project/vllm#33535); 0.11.0 has no --all2all-backend (engine/arg_utils.py)",
    "kv_in_flight": "v1/kv_cache_interface.py SlidingWindowSpec.max_admission_blocks_per_request: cdiv(min("
                    "sliding_window - 1 + max_in_flight_tokens, max_model_len), block_size) + 1 and config/vllm.py "
                    "max_in_flight_tokens = max_concurrent_batches * max_num_batched_tokens (async scheduling: "
                    "pp + 1 on Model Runner V2, 2 at pp 1, else pp) in 0.26.0, 0.27.1, 0.28.0 and 0.29.0; "
                    "sliding_window - 1 + max_num_batched_tokens in 0.25.1 (vllm#47728)",
    "tokens_report": "v1/core/kv_cache_utils.py: num_blocks // len(groups) * block_size up to 0.19.1; "
                     "int(max_concurrency * max_model_len) from 0.20.0",
    "concurrency_from_tokens": "v1/core/kv_cache_utils.py 0.8.5.post1 logs num_tokens / max_model_len; "
                               "get_max_concurrency_for_kv_cache_config (blocks per request) from 0.9.2",
    "mla_cache": "config.py ModelConfig.use_mla in 0.7.3 (absent in 0.6.6.post1, which pads DeepSeek's "
                 "head size to 256 and caches every KV head)",
    "kv_cache_memory_flag": "engine/arg_utils.py --kv-cache-memory-bytes and v1/worker/gpu_worker.py "
                            "determine_available_memory returning it without the budget in 0.10.2 and 0.11.0 "
                            "(absent in 0.10.1.1)",
    "flashinfer_sampler_default": "v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__: FlashInfer when "
                                  "it is importable and VLLM_USE_FLASHINFER_SAMPLER is not '0' (0.8.5.post1-0.11.0), "
                                  "only when it is '1' (0.11.1-0.20.x: 'Users must opt in explicitly via "
                                  "VLLM_USE_FLASHINFER_SAMPLER=1' in the 0.11.1 sdist), envs.py default True from "
                                  "0.21.0; otherwise "
                                  "it logs 'FlashInfer is not available. Falling back to the PyTorch-native "
                                  "implementation' (or that FlashInfer is off) and runs forward_native",
    "native_sampler": "v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p: logits.sort over the vocabulary up to "
                      "0.16.x (38.2 B per logit from 128 rows, measured with PyTorch 2.11 on an H200), the "
                      "in-place Triton kernel "
                      "(v1/sample/ops/topk_topp_triton.py) from 0.17.0",
    "pip_flashinfer": "requirements/cuda.txt (what the PyPI wheel depends on): no flashinfer-python in 0.10.1.1 or "
                      "0.11.0, flashinfer-python==0.5.2 in 0.11.1 and ==0.5.3 from 0.12.0 (read in the 0.11.1, "
                      "0.12.0 and 0.14.1 sdists); the pip installs of 0.8-0.11.0 log 'FlashInfer is not "
                      "available. Falling back to the PyTorch-native "
                      "implementation'; the official vllm/vllm-openai image installs it in every V1 release "
                      "(docker/Dockerfile)",
    "pp_check_whole_model": "v1/core/kv_cache_utils.py get_kv_cache_configs: check_enough_kv_cache_memory on each "
                            "worker's own KV cache specs and budget in 0.11.0, 0.11.2, 0.12.0 and 0.13.0; "
                            "_check_enough_kv_cache_memory(min(available_memory), _max_memory_usage_bytes_from_groups("
                            "global_kv_cache_groups)) over the specs merged from every worker (every pipeline stage's "
                            "layers) in 0.14.0, 0.14.1 and 0.16.0 (0.15.x not read), as _auto_fit_max_model_len; "
                            "per worker again (projected_groups_per_worker) in 0.17.0 (vllm#32105: 'PP cannot share "
                            "kvcache across different GPUs')",
    "max_model_len_auto": "engine/arg_utils.py parses '-1'/'auto' and v1/core/kv_cache_utils.py "
                          "_auto_fit_max_model_len from 0.14.1 (absent in 0.13.0)",
    "mm_items": "v1/worker/gpu_model_runner.py profile_run: cdiv(encoder_budget, max_tokens_per_mm_item) items, at "
                "most max_num_reqs × the modality's limit, in 0.8.3, 0.8.5.post1 and 0.9.2; max(1, min(budget // "
                "tokens, max_num_reqs × limit)) in 0.10.0; v1/worker/utils.py MultiModalBudget.get_max_items (items "
                "per prompt max(1, min(limit, max_model_len // tokens)); max_num_reqs capped at "
                "max_num_batched_tokens // tokens without chunked prefill) in 0.10.1.1-0.14.1, "
                "multimodal/encoder_budget.py _get_max_items in 0.17.0-0.33.0 (0.10.1 itself not read); the budget "
                "is min(compute, cache) = max(max_num_batched_tokens, tokens per item) "
                "(v1/core/encoder_cache_manager.py compute_encoder_budget / compute_mm_encoder_budget, every V1 "
                "release read)",
    "mm_default_limit": "config.py MultiModalConfig.get_limit_per_prompt: 1 in 0.8.3, get_default_limit_per_prompt "
                        "999 if VLLM_USE_V1 else 1 in 0.8.4, 999 in 0.8.5.post1-0.11.0 (config/multimodal.py) and "
                        "0.20.0 ('Unspecified modality is set to 999 by default')",
    "mm_expand_outputs": "v1/worker/gpu_model_runner.py profile_run: 'expanded_outputs' (new_zeros((encoder_budget, "
                         "hidden)) per item when the output is shorter than the budget) in 0.11.0 and 0.12.0; absent "
                         "in 0.10.2 and 0.13.0 (each output cached as it is, encoder_cache[f'tmp_{i}'])",
    "mm_expand_to_item": "v1/worker/gpu_model_runner.py profile_run: 'if encoder_output_shape[0] < "
                         "max_mm_tokens_per_item' then new_zeros((max_mm_tokens_per_item, encoder_hidden_size)) "
                         "(mm_budget.max_tokens_by_modality) in 0.12.0, where 0.11.0 pads to encoder_budget",
    "mm_held_through_sampler": "v1/worker/gpu_model_runner.py profile_run: encoder_cache['tmp'] (the dummy encoder "
                               "outputs) and batched_dummy_mm_inputs are set before the dummy forward pass and "
                               "encoder_cache.clear() runs after _dummy_sampler_run in 0.11.0, 0.12.0, 0.22.0 and "
                               "0.24.0 (0.13-0.21 not read, assumed the same; 0.8-0.10 not read)",
    "qwen3_video_format": "model_executor/models/qwen3_vl.py Qwen3VLProcessingInfo.get_max_video_tokens: "
                          "'formatted_video_soft_tokens = video_soft_tokens * 12.5' in 0.11.0 and 0.12.0, absent "
                          "in 0.22.0; the frames from get_num_frames_with_most_features (start 2, at most 24,576, "
                          "mm_counts {modality: 1} in multimodal/registry.py) through transformers' Qwen3-VL "
                          "video smart_resize (video_processing_qwen3_vl.py, 4.57.1)",
    "qwen_image": "model_executor/models/qwen2_vl.py Qwen2VLProcessingInfo.get_image_size_with_most_features: "
                  "_get_vision_info(9999999, 9999999) (smart_resize under image_processor.max_pixels) in 0.8.3-0.12.0; "
                  "closest_factor_pair of max_pixels // (patch × merge)² with a 200:1 aspect bound in 0.13.0-0.33.0",
    "mm_inputs_model_dtype": "inputs/registry.py InputProcessingContext.call_hf_processor: maybe_cast_dtype "
                             "(floating-point outputs .to(model_config.dtype), 'This mimics the behavior of "
                             "transformers.BatchFeature') in 0.9.1, 0.9.2 and 0.10.1.1, multimodal/processing.py in "
                             "0.11.0, multimodal/processing/context.py _postprocess_output in 0.17.1, 0.19.0 and "
                             "0.22.0; absent in 0.8.4, 0.8.5 and 0.9.0 (the processor's float32 tensors as they are)",
    "qwen25_vit": "model_executor/models/qwen2_5_vl.py Qwen2_5_VisionAttention.forward: q, k, v "
                  "rearranged .contiguous(), torch.cat([q, k]) and qwen2_vl.apply_rotary_pos_emb_vision (t.float(), "
                  "vllm_flash_attn's apply_rotary_emb out of place, .type_as(t)) in 0.11.0, all_gather_interleave's "
                  "gathered pieces and their interleaved torch.cat at TP > 1; qk einops-rearranged into one copy and "
                  "rotated in the model's dtype (dispatch_rotary_emb_function in 0.12.0; ApplyRotaryEmb(enforce_enable="
                  "True), enable_fp32_compute False, in 0.13.0, 0.14.1, 0.15.0, 0.20.0, 0.23.0, 0.25.1 and 0.26.0), "
                  "Qwen2_5_VisionMLP gate_up_proj, act_fn, down_proj, and Qwen2_5_VisionBlock's fused "
                  "norm2(x, residual=x_attn) in every one; compile_mm_encoder False by default "
                  "(config/compilation.py); "
                  "0.8.5 rotates q and k apart by attention backend (not modelled: the generic estimate before 0.11; "
                  "0.11.1-0.11.x and 0.27+ not read, taken as the release before them)",
    "qwen3_vit_pos": "model_executor/models/qwen3_vl.py Qwen3_VisionTransformer.fast_pos_embed_interpolate: embeds "
                     "= pos_embed(indices) (4 × patches × hidden), weighted_embeds = embeds * weights, p0 + p1 + p2 + "
                     "p3, .contiguous() and a permuted reshape in 0.11.0; embeds *= weights, embeds.sum(0), a permuted "
                     "reshape and torch.cat in 0.17.1 and 0.19.0; triton_pos_embed_interpolate in 0.22.0 (0.12-0.16 "
                     "and 0.20-0.21 not read: taken as the release before them)",
    "mm_limit_parse": "engine/arg_utils.py: --limit-mm-per-prompt type=nullable_kvs in 0.6.3, 0.7.2, 0.8.3 and "
                      "0.8.4; get_kwargs(MultiModalConfig) with optional_type/parse_type(json.loads) falling back to "
                      "nullable_kvs (deprecated) for a value not matching ^{.*}$ in 0.8.5, 0.9.0 and 0.9.1; "
                      "parse_type(json.loads) alone in 0.10.0, 0.10.1.1, 0.11.0, 0.14.0 and 0.22.0",
    "mm_kwargs_parse": "engine/arg_utils.py: --mm-processor-kwargs type=json.loads in 0.6.3 - 0.8.5; "
                       "get_kwargs(MultiModalConfig): optional_type(parse_type(json.loads)) with the nullable_kvs "
                       "fallback in 0.9.0 and 0.9.1, without it in 0.10.0, 0.10.1.1, 0.11.0, 0.14.0 and 0.22.0",
    "mrope_cache_scale": "model_executor/layers/rotary_embedding.py MRotaryEmbedding.__init__: max_position_embeddings "
                         "as given in 0.7.1, cache_max_position_num = max_position_embeddings * 4 in 0.7.2 and 0.8.3; "
                         "rotary_embedding/mrope.py the same in 0.10.1.1, 0.11.0, 0.14.0 and 0.22.0 (the cache cast "
                         "to the model dtype, rotary_embedding/base.py)",
}


def behaviour(version: Version | str) -> Behaviour:
    """The row of :data:`RANGES` that holds for ``version``."""
    v = parse_version(version) if isinstance(version, str) else version
    if v is None:
        raise ValueError(f"{version!r} is not a vLLM release number")
    row = RANGES[0]
    for r in RANGES:
        if r.version <= v:
            row = r
    return row


def cudagraph_estimate_in_budget(b: Behaviour, flag: bool | None, vendor: str = "nvidia") -> bool:
    """Whether V1's ``determine_available_memory`` takes its CUDA-graph estimate from the KV budget: the release's
    default (``cudagraphs_in_budget``, on ROCm ``cudagraphs_in_budget_rocm``), unless
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (``flag``: 1/0, None unset) says otherwise where the release reads
    it (0.18+, ``cudagraph_profiler_env``): the estimate is applied only "if
    envs.VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS" (``v1/worker/gpu_worker.py`` 0.18.0, 0.19.1, 0.20.0, 0.27.1),
    whose default is "0" in 0.18.0 - 0.19.1 and "1" from 0.20.0 (``envs.py``). On ROCm the releases that skip the
    estimate (``not current_platform.is_rocm()`` before 0.27) skip it whatever the variable says."""
    default = b.cudagraphs_in_budget_rocm if vendor == "amd" else b.cudagraphs_in_budget
    if flag is None or not b.cudagraph_profiler_env:
        return default
    if vendor == "amd" and not b.cudagraphs_in_budget_rocm:
        return False
    return flag


def first_release(flag: str) -> str:
    """The first release whose row turns the boolean field ``flag`` on (``"native_multinode"`` -> ``"0.11.1"``)."""
    for r in RANGES:
        if getattr(r, flag) is True:
            return r.since
    raise KeyError(flag)


#: Lower-case words of GPU names whose NVML reports no memory (``nvmlDeviceGetMemoryInfo`` "Not Supported"): vLLM's
#: ``get_batch_defaults`` then takes 0 GiB and the smallest tier (the GB10 of a DGX Spark, one memory with the CPU;
#: docs.nvidia.com/dgx/dgx-spark/known-issues.html). Jetson Thor and Orin are left out: not read.
NVML_NO_MEMORY_PRODUCTS: tuple[str, ...] = ("gb10",)


def batch_defaults(b: Behaviour, gpu_total_gib: float, gpu_name: str = "") -> BatchTier:
    """vLLM's ``vllm serve`` default token budget and batch width for a GPU of this size and name (0 GiB where
    NVML reports none: :data:`NVML_NO_MEMORY_PRODUCTS`)."""
    name = gpu_name.lower()
    for w in NVML_NO_MEMORY_PRODUCTS:  # loops, not any() over a generator: asked once or more per sizing
        if w in name:
            gpu_total_gib = 0.0
            break
    for tier in b.batch_tiers:
        if gpu_total_gib >= tier.min_gib:
            if tier.include:
                named = False
                for x in tier.include:
                    if x in name:
                        named = True
                        break
                if not named:
                    continue
            for x in tier.exclude:
                if x in name:
                    break
            else:
                return tier
    return b.batch_tiers[-1]


# --------------------------------------------------------------------------------------------------
# The release from a container image
# --------------------------------------------------------------------------------------------------

VersionSource = Literal["given", "image-tag", "pip-pin", "assumed"]


@dataclass(frozen=True)
class ResolvedVersion:
    """The release the capacity model sizes for, and how it was chosen."""

    version: Version
    source: VersionSource
    detail: str = ""  # the image, or why the current release was assumed
    #: Where an assumed release is one patch of a known line, that line (major, minor): an AWS Deep Learning
    #: Container's floating tag (``vllm:0.11-gpu-py312``) holds one of 0.11.x (:func:`floating_line`); None: any
    #: release. :func:`possible_rows` reads it.
    line: tuple[int, int] | None = None
    behaviour: Behaviour = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "behaviour", behaviour(self.version))

    @property
    def note(self) -> str:
        """Words for a finding: ``"vLLM 0.11.0 from the image tag"``, ``"vLLM 0.33.0, assumed: tag latest
        names no vLLM release"``; a release newer than :data:`CURRENT_RELEASE` says it is sized as that one
        (``"vLLM 0.99.0 from the image tag, newer than the newest release the capacity model knows: sized as
        0.33.0"``): :func:`behaviour` gives it the newest row, whose behaviour it may not have."""
        if self.source == "assumed":
            return f"vLLM {self.version}, assumed: {self.detail}"
        where = (" from the image tag" if self.source == "image-tag" else
                 f" from `{self.detail}`" if self.source == "pip-pin" else "")
        if self.version > _CURRENT:
            return (f"vLLM {self.version}{where}, newer than the newest release the capacity model knows: sized as "
                    f"{CURRENT_RELEASE}")
        return f"vLLM {self.version}{where}"


def possible_rows(rv: ResolvedVersion) -> tuple[Behaviour, ...]:
    """The rows of :data:`RANGES` the release deployed may be in: its own where it is known (given, an image tag, a
    pip pin); where it is assumed, every row, or, for an assumed release that is one patch of a known line
    (:attr:`ResolvedVersion.line`), the rows that hold for some release of that line. A finding that holds on every
    row returned holds whichever of them runs."""
    if rv.source != "assumed":
        return (rv.behaviour,)
    if rv.line is None:
        return RANGES
    return _line_rows(rv.line)


@functools.lru_cache(maxsize=64)
def _line_rows(line: tuple[int, int]) -> tuple[Behaviour, ...]:
    first, after = Version((line[0], line[1], 0)), Version((line[0], line[1] + 1, 0))
    start = behaviour(first)
    return (start, *(r for r in RANGES if first < r.version < after))


_TAG_VERSION = re.compile(r"(?:^|[^0-9.])v?(\d+\.\d+(?:\.\d+){0,2}(?:\.?post\d+|rc\d+)?)(?=$|[^0-9])")


def resolve(version: str | None = None, image: str | None = None, missing: str = "no image") -> ResolvedVersion:
    """The release to size for: ``version`` when given, else the image tag's, else :data:`CURRENT_RELEASE`.

    Image tags that carry a release: ``vllm/vllm-openai:v0.11.0``, ``vllm/vllm-openai:0.10.1.1``,
    ``rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812``, ``.../vllm:0.10.2-gpu-py312-cu128``. The answer for
    the same arguments is the same (immutable) object: a lint asks once per rule and workload.
    """
    if isinstance(version, str | None) and isinstance(image, str | None) and isinstance(missing, str):
        return _resolve_cached(version, image, missing)
    return _resolve(version, image, missing)


@functools.lru_cache(maxsize=1024)
def _resolve_cached(version: str | None, image: str | None, missing: str) -> ResolvedVersion:
    return _resolve(version, image, missing)


def _resolve(version: str | None, image: str | None, missing: str) -> ResolvedVersion:
    if version is not None:
        v = parse_version(version)
        if v is None:
            raise ValueError(f"--vllm-version {version!r} is not a vLLM release number (e.g. 0.11.0)")
        return ResolvedVersion(v, "given")
    current = _CURRENT
    if not image:
        return ResolvedVersion(current, "assumed", missing)
    line = floating_line(image)
    if line is not None:
        return _floating(image, line)
    rhaiis = _rhaiis(image)
    if rhaiis is not None:
        return rhaiis
    found = version_from_image(image)
    if found is None:
        return ResolvedVersion(current, "assumed", _why_no_version(image))
    if not release_build(image):  # a fork's or a team's own build: its tag is its word, not vLLM's (mend28)
        return ResolvedVersion(found, "assumed", _why_not_sure(image, found))
    return ResolvedVersion(found, "image-tag", image)


#: The newest release that reads ``VLLM_ALL2ALL_BACKEND`` (``Behaviour.all2all_env``): the 0.15.1 wheel's
#: ``config/parallel.py`` reads it where ``envs.is_set``; the 0.16.0 wheel's ``envs.py`` has no such variable
#: (vllm-project/vllm#33535, "Remove deprecated VLLM_ALL2ALL_BACKEND environment variable").
LAST_ALL2ALL_ENV_RELEASE = "0.15.1"


def dated_by_env(rv: ResolvedVersion, env: Mapping[str, object]) -> ResolvedVersion:
    """The release to size for where the deployment names none (``rv`` assumed, the current release) but its engine
    environment sets ``VLLM_ALL2ALL_BACKEND``: the variable picks the MoE dispatch of a data-parallel engine with
    expert parallelism, and no release after :data:`LAST_ALL2ALL_ENV_RELEASE` reads it, so the deployment was
    written for one that does; sized at the newest such release, still assumed (the note says why). A release the
    deployment names (given, an image tag, a pip pin) is kept: there the variable is read or ignored as it says."""
    if rv.source != "assumed" or rv.behaviour.all2all_env != "unread":
        return rv
    value = env.get("VLLM_ALL2ALL_BACKEND")
    if not isinstance(value, str) or not value.strip():
        return rv
    return _dated_by_all2all(rv.detail)


@functools.lru_cache(maxsize=64)
def _dated_by_all2all(detail: str) -> ResolvedVersion:
    found = parse_version(LAST_ALL2ALL_ENV_RELEASE)
    assert found is not None
    return ResolvedVersion(found, "assumed",
                           f"{detail}; its VLLM_ALL2ALL_BACKEND is read by no release after {LAST_ALL2ALL_ENV_RELEASE} "
                           "(0.16.0 removed it), so the newest release that reads it is taken")


#: ``pip install`` (``pip3``, ``python -m pip``, ``uv pip``) of the ``vllm`` distribution, and its version specifier
#: as written: ``vllm==0.10.0``, ``"vllm[audio]==0.9.2"``, ``vllm>=0.9``, or none (``-U vllm``). A word that only
#: contains the name (``vllm-router``, ``git+https://.../vllm``, ``./vllm``) is another distribution or a source.
_PIP_SPEC = re.compile(r"""\b(?:pip3?|uv\s+pip)\s+install\b[^;&|\n]*?(?<![\w./@+-])["']?vllm(?![\w./-])"""
                       r"""(?:\[[^\]]*\])?(?:\s*(?P<op>===|==|~=|>=|<=|!=|>|<)\s*(?P<value>[^\s"',;&|]*))?""", re.I)


#: A shell script's comment line.
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*#.*$")


def strip_comment_lines(script: str) -> str:
    """A shell script without its comment lines (those whose first word starts with ``#``)."""
    return _COMMENT_LINE.sub("", script) if "#" in script else script

def command_script(words: Sequence[object]) -> str:
    """A container's command and args as one line (where a shell script installs vLLM), without the script's comment
    lines (``# pip install vllm  # or custom installation`` installs nothing), its continued lines joined."""
    text = " ".join(w for w in words if isinstance(w, str))
    return strip_comment_lines(text.replace("\\\n", " ") if "\\\n" in text else text)


#: pip's (and uv's) ``-U`` / ``--upgrade``, alone or among short flags (``-qU``)
_UPGRADE = re.compile(r"(?<!\S)(?:-[a-zA-Z]*U[a-zA-Z]*|--upgrade)(?![\w-])")


def has_install(script: str) -> bool:
    """False where no pattern of a pip or uv install (``install`` as a word, under ``re.IGNORECASE``: :data:`_PIP_SPEC`,
    ``capacity.group._PIP_VLLM``) can match ``script``: it does not hold ``tall`` in any case. The test is exact for
    those letters: ``re.IGNORECASE`` matches ``t``, ``a`` and ``l`` to their capitals only (no other character lowers
    to them, and none is among ``re``'s extra case pairs, as ``i`` with the dotless ``ı`` and ``s`` with ``ſ`` are),
    and ``str.lower`` maps those capitals and nothing else to them. A search that fails scans from every character
    (about 50,000 instructions for a 200-character command line); this is one lowering and one find."""
    return "tall" in script.lower()


@functools.lru_cache(maxsize=1024)  # asked of each container's command line that installs vLLM
def pip_pin(script: str, image: str | None = None) -> ResolvedVersion | None:
    """The release a container's command installs with pip, or None where the image's release stays (no ``vllm``
    distribution installed, or one pip finds already satisfied).

    ``pip install vllm==0.10.0`` (or ``===``) pins the release, as an image tag names one: the note says
    ``"vLLM 0.10.0 from `pip install vllm==0.10.0`"``. A range (``>=``, ``~=``, ``<``), a wildcard (``==0.10.*``), a
    reference (``==${VLLM_VERSION}``) or no specifier pins nothing: pip installs whatever PyPI serves when the pod
    starts, an unknown release, sized as :data:`CURRENT_RELEASE` and said to be assumed, as an image whose tag names
    no release is. Unless the image already holds a release (its tag names one) and a bare ``vllm`` (extras aside) is
    installed without ``-U`` / ``--upgrade``: pip then leaves the installed vLLM as it is ("Requirement already
    satisfied"; whether the image's release is in a range is not worked out: a range is unknown). A pin to a release
    number the capacity model does not know is treated as such a tag is (:attr:`ResolvedVersion.note`). The last
    install of ``vllm`` in the script is the one that stays installed.
    """
    script = strip_comment_lines(script)  # a commented-out install (``# pip install vllm``) installs nothing
    if not has_install(script):
        return None  # most command lines install nothing: no scan of the pattern from each character
    found = list(_PIP_SPEC.finditer(script))
    if not found:
        return None
    m = found[-1]
    op, value = m.group("op"), m.group("value")
    if op in ("==", "===") and (v := parse_version(value)) is not None:
        return ResolvedVersion(v, "pip-pin", f"pip install vllm{op}{value}")
    command = re.split(r"[;&|\n]", script[m.start():], maxsplit=1)[0]
    if not op and image and not _UPGRADE.search(command) and (
            version_from_image(image) is not None or floating_line(image) is not None):
        return None
    written = f"vllm{op}{value}" if op else "vllm"  # (a reference's value is not known: nothing is pinned)
    return ResolvedVersion(_CURRENT, "assumed",
                           f"`pip install {written}` pins no release (pip installs what PyPI serves at start-up)")


def _why_no_version(image: str) -> str:
    ref = parse_image(image)
    tag, digest = ref.tag, ref.digest
    if tag is None:
        return "image pinned by digest only" if digest else "image without a tag"
    month = _ngc_month(ref.repository, tag)
    if month is not None:
        return (f"tag {tag} is NGC's container {month}, whose vLLM is not in the capacity model's table of NVIDIA's "
                f"release notes ({', '.join(NGC_VLLM_RELEASES)})")
    return f"tag {tag} names no vLLM release"


#: The ECR registries AWS publishes its Deep Learning Containers from: ``763104351884`` in most regions, and an account
#: of its own in each opt-in region and in China (aws/deep-learning-containers ``docs/reference/region_availability.md``
#: at da81c30f, "Region Availability": af-south-1 626614931356, ap-east-1 871362719292, ap-south-2 772153158452,
#: ap-southeast-3 907027046896, ap-southeast-4 457447274322, ap-southeast-5 550225433462, ap-southeast-7 590183813437,
#: ap-northeast-3 364406365360, ca-west-1 204538143572, eu-south-1 692866216735, eu-south-2 503227376785, eu-central-2
#: 380420809688, il-central-1 780543022126, mx-central-1 637423239942, me-south-1 217643126080, me-central-1
#: 914824155844, cn-north-1 and cn-northwest-1 727897471807 under ``amazonaws.com.cn``). A DLC pulled in one of those
#: regions is the same build as in us-east-1 (review46).
DLC_ACCOUNTS = ("763104351884", "626614931356", "871362719292", "772153158452", "907027046896", "457447274322",
                "550225433462", "590183813437", "364406365360", "204538143572", "692866216735", "503227376785",
                "380420809688", "780543022126", "637423239942", "217643126080", "914824155844", "727897471807")
DLC_REGISTRY_PATTERN = r"(?:" + "|".join(DLC_ACCOUNTS) + r")\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?"


#: The repositories whose tags name the vLLM release they hold as it was released (mend28), as
#: :meth:`..imageref.ImageRef.qualified` writes them: vLLM's own (Docker Hub's ``vllm/vllm-openai``, ``vllm/vllm-tpu``,
#: ``vllm/vllm-openai-rocm``, ...) and a mirror that keeps its path (a Harbor proxy project's
#: ``harbor.example.com/dockerhub/vllm/vllm-openai``, ``mirror.gcr.io/vllm/vllm-openai``, an ECR pull-through cache's
#: ``<prefix>/vllm/vllm-openai``); AMD's ``rocm/vllm`` and ``rocm/vllm-dev`` (``rocm6.4.1_vllm_0.10.0_…``);
#: LMCache's ``lmcache/vllm-openai`` (its tag's ``vllm…`` part); NVIDIA's NGC container (:data:`NGC_VLLM_RELEASES`);
#: AWS's Deep Learning Containers, built ``FROM vllm/vllm-openai`` (aws/deep-learning-containers
#: ``vllm/x86_64/gpu/Dockerfile``; an ECR pull-through cache's ``<prefix>/deep-learning-containers/vllm`` too). Any
#: other repository whose tag reads as a release (``ghcr.io/acme/vllm:v0.15.1``,
#: ``myregistry.io/team/vllm-openai:v0.10.0-custom``, ``intel/vllm:0.10.2-xpu``) is a fork's or a team's own build:
#: what it was built from, and with which patches to flags and defaults, its name does not say, so its release is
#: assumed (:func:`resolve`): a finding that only that release makes is advisory, and declaring the release (the
#: annotation ``shardwise.dev/vllm-version``) makes it sure.
_RELEASE_BUILDS = re.compile(
    r"(?:.+/)?vllm/vllm(?:-[a-z0-9]+)*"
    r"|(?:.+/)?rocm/vllm(?:-dev)?"
    r"|(?:.+/)?lmcache/vllm-openai"
    r"|nvcr\.io/nvidia/vllm"
    r"|(?:public\.ecr\.aws/|.+/)?deep-learning-containers/vllm"
    r"|" + DLC_REGISTRY_PATTERN + "/vllm"
    # vLLM's own CPU release repository on ECR Public (docs/getting_started/installation/cpu)
    r"|public\.ecr\.aws/q9t5s3a7/vllm-cpu-release-repo")
#: Red Hat's builds of vLLM on quay.io (``quay.io/vllm/vllm-cuda:0.11.0.0``, ``vllm-rocm``, ``vllm-cpu``,
#: ``vllm-tpu``, ``0.21.0_rhaiv.8``): built by Red Hat from its own midstream of vLLM with Red Hat's patches, the fourth
#: number its own build's (vLLM released no 0.9.2.2); the tag says which upstream release it starts from, not that it
#: is that release as released, so it is assumed (:func:`resolve`), as a fork's is. ``quay.io/vllm`` is not vLLM's own
#: organisation, whose images are on Docker Hub (``vllm/vllm-openai``) and ECR Public.
_RED_HAT_QUAY = re.compile(r"quay\.io/vllm/[a-z0-9._-]+")


def release_build(image: str) -> bool:
    """Whether ``image`` is one of the builds whose tag names the vLLM release it holds for sure
    (:data:`_RELEASE_BUILDS`; not Red Hat's ``quay.io/vllm`` builds, :data:`_RED_HAT_QUAY`)."""
    qualified = parse_image(image).qualified.lower()
    return _RELEASE_BUILDS.fullmatch(qualified) is not None and _RED_HAT_QUAY.fullmatch(qualified) is None


def _why_not_sure(image: str, found: Version) -> str:
    repository = parse_image(image).repository
    if _RED_HAT_QUAY.fullmatch(parse_image(image).qualified.lower()):
        return (f"the tag of {repository} says {found}, but it is Red Hat's build of vLLM (quay.io/vllm), made from "
                "Red Hat's midstream with its own patches over that release, which may change its flags and defaults")
    return (f"the tag of {repository} says {found}, but it is no build of vLLM's own (nor of AMD's, "
            "NVIDIA's or AWS's), and a fork's or a team's build may change that release's flags and defaults")


#: Red Hat AI Inference Server's images (``registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.4``, ``vllm-rocm-rhel9``,
#: ``vllm-tpu-rhel9``): tagged with the product's version, not vLLM's. The vLLM core each version packages, as Red
#: Hat's "Product and version compatibility" table states it (docs.redhat.com/documentation/red_hat_ai_inference_server/
#: 3.0/html/supported_product_and_hardware_configurations/rhaiis-product-and-version-compatibility_supported-
#: configurations: "vLLM core 0.8.4"); a version not listed (no table read) names no release. Red Hat builds it with
#: its own patches, so even a listed one is assumed.
RHAIIS_VLLM_CORE: dict[str, str] = {
    "3.0": "0.8.4",
}
_RHAIIS_REPOSITORY = re.compile(r"registry\.(?:access\.)?redhat\.io/rhaiis/vllm-[a-z0-9-]+")
_RHAIIS_TAG = re.compile(r"(\d{1,2})\.(\d{1,2})(?=[.-]|$)")


def _rhaiis(image: str) -> ResolvedVersion | None:
    """The release of a Red Hat AI Inference Server image (:data:`RHAIIS_VLLM_CORE`), assumed; None for another."""
    ref = parse_image(image)
    m = _RHAIIS_TAG.match(ref.tag or "")
    if m is None or _RHAIIS_REPOSITORY.fullmatch(ref.qualified.lower()) is None:
        return None
    product = f"{m.group(1)}.{m.group(2)}"
    core = RHAIIS_VLLM_CORE.get(product)
    found = parse_version(core) if core is not None else None
    if found is not None:
        return ResolvedVersion(found, "assumed",
                               f"tag {ref.tag} is Red Hat AI Inference Server {product}, whose vLLM core is {core} "
                               "(Red Hat's compatibility table), built by Red Hat with its own patches")
    listed = ", ".join(f"{k}: {v}" for k, v in RHAIIS_VLLM_CORE.items())
    return ResolvedVersion(_CURRENT, "assumed",
                           f"tag {ref.tag} is Red Hat AI Inference Server {product}'s version, not vLLM's, and its "
                           "vLLM core is not in the capacity model's table of Red Hat's compatibility tables "
                           f"({listed})")


#: AWS's Deep Learning Containers for vLLM, in every registry they are published from or mirrored to.
_DLC_REPOSITORY = re.compile(r"(?:public\.ecr\.aws/|.+/)?deep-learning-containers/vllm|"
                             + DLC_REGISTRY_PATTERN + "/vllm")
#: A DLC tag that names a minor release only: ``0.11-gpu-py312``, ``0.11-gpu-py312-ec2``,
#: ``0.11-gpu-py312-cu129-ubuntu22.04-sagemaker-v1``.
_DLC_FLOATING_TAG = re.compile(r"v?(0)\.(\d{1,3})(?:-|$)")


def floating_line(image: str) -> tuple[int, int] | None:
    """The line (major, minor) of an AWS Deep Learning Container whose tag names a minor release only, else None.

    AWS moves such a tag to each patch it publishes of that minor: its vLLM changelog (aws/deep-learning-containers
    ``vllm/CHANGELOG.md`` at the 0.11.2 entry, 2025-11-20) gives ``vllm:0.9-gpu-py312-ec2`` as the sample URI of
    0.9.0.1, 0.9.1 and 0.9.2 alike, ``vllm:0.10-gpu-py312-ec2`` of 0.10.0 and 0.10.1.1, and ``0.11-gpu-py312-ec2``
    of 0.11.0 before 0.11.1 and 0.11.2 were published; the full tag (``0.11.0-gpu-py312-cu128-ubuntu22.04-ec2``)
    names one release. So the image holds one of the line's patches, which one depends on when it was pulled
    (review: a floating tag read as a sure X.Y.0)."""
    ref = parse_image(image)
    if not ref.tag or _DLC_REPOSITORY.fullmatch(ref.qualified.lower()) is None:
        return None
    m = _DLC_FLOATING_TAG.match(ref.tag.lower())
    return (int(m.group(1)), int(m.group(2))) if m else None


@functools.lru_cache(maxsize=64)
def _floating(image: str, line: tuple[int, int]) -> ResolvedVersion:
    """The release an image of :func:`floating_line` is sized for: the newest patch of its line whose source
    shardwise read (:data:`.options.OPTION_RELEASES`), the one a pull today gets, said to be assumed, with the
    patches it may be."""
    prefix = f"{line[0]}.{line[1]}."
    known = sorted(v for v in (parse_version(r) for r in OPTION_RELEASES if r.startswith(prefix)) if v is not None)
    known = [v for i, v in enumerate(known) if i + 1 == len(known) or known[i + 1].parts[:3] != v.parts[:3]]
    newest = known[-1] if known else Version((line[0], line[1], 0))
    patches = (", ".join(str(v) for v in known[:-1]) + f" and {known[-1]}") if len(known) > 1 else \
        str(known[0]) if known else ""
    read = f" (the patches shardwise read: {patches})" if patches else " (none of whose patches shardwise read)"
    minor = f"{line[0]}.{line[1]}"
    return ResolvedVersion(newest, "assumed",
                           f"tag {parse_image(image).tag} is AWS's floating tag of the vLLM {minor} line, which AWS "
                           f"moves to each patch it publishes, so the image holds one of {minor}.x{read}, sized as "
                           f"{newest}; pin a full tag such as {newest}-gpu-py312-ec2", line)


#: NVIDIA's NGC vLLM container (``nvcr.io/nvidia/vllm:YY.MM-py3``): its tag is the container's month, not a vLLM
#: release. The vLLM each month holds, as NVIDIA's release notes state it ("Contents of the vLLM container": "vLLM:
#: x.y.z"), docs.nvidia.com/deeplearning/frameworks/vllm-release-notes/rel-YY-MM.html, one page per tag below. A
#: month not listed (no page read) stays assumed and says so (:func:`_why_no_version`).
NGC_VLLM_RELEASES: dict[str, str] = {
    "25.10": "0.10.2",  # rel-25-10.html
    "26.01": "0.11.1",  # rel-26-01.html
    "26.03": "0.17.1",  # rel-26-03.html
    "26.05": "0.20.1",  # rel-26-05.html
    "26.10": "0.31.0",  # rel-26-10.html
}
_NGC_TAG = re.compile(r"(\d\d\.\d\d(?:\.post\d+)?)(?:-|$)")


def _ngc_month(repo: str, tag: str) -> str | None:
    """The ``YY.MM`` of an NGC vLLM container's tag (``nvcr.io/nvidia/vllm:25.10-py3``), else None."""
    if repo.lower() != "nvcr.io/nvidia/vllm":
        return None
    m = _NGC_TAG.match(tag)
    return m.group(1) if m else None


#: Repository names (last path segment) whose tag is the vLLM release itself.
#: ``vllm-openai-cpu`` (``v0.19.0-x86_64``, ``latest-arm64``) and ``vllm-cpu-release-repo`` (``v0.10.2``) are vLLM's CPU
#: releases (docs/getting_started/installation/cpu).
_RELEASE_TAGGED = frozenset({"vllm-openai", "vllm", "vllm-openai-rocm", "vllm-rocm", "vllm-cpu", "vllm-tpu",
                             "vllm-openai-cpu", "vllm-cpu-release-repo", "vllm-cuda"})
#: Owners whose ``vllm-openai`` images are tagged with their own version (LMCache releases).
_OWN_VERSION_OWNERS = frozenset({"lmcache"})


@functools.lru_cache(maxsize=4096)  # a lint asks it of every container's image, a few hundred distinct
def version_from_image(image: str) -> Version | None:
    """The vLLM release an image's tag names, or None (``latest``, ``nightly``, a digest, a custom tag).

    A tag that says ``vllm`` followed by a number names that release, in any image (ROCm builds,
    LMCache, AWS DLCs). Otherwise only the repositories vLLM publishes under (``vllm-openai``,
    ``vllm``, ...) are tagged with the release; LMCache's ``vllm-openai`` images carry LMCache's
    version, and NVIDIA's ``YY.MM`` tags are not vLLM releases (vLLM releases are 0.x): an NGC vLLM container's month
    is read in :data:`NGC_VLLM_RELEASES`, the vLLM its release notes state. An AWS DLC tag that names a minor only
    (``vllm:0.11-gpu-py312``) names no one release: AWS moves it across the line's patches (:func:`floating_line`).
    """
    ref = parse_image(image)
    repo, tag = ref.repository, ref.tag
    if not tag or floating_line(image) is not None:  # one of a line's patches, not one release
        return None
    month = _ngc_month(repo, tag)
    if month is not None:
        known = NGC_VLLM_RELEASES.get(month)
        return parse_version(known) if known is not None else None
    low = tag.lower()
    after = re.search(r"vllm[-_]?v?(\d+\.\d+(?:\.\d+){0,2}(?:\.?post\d+|rc\d+)?)", low)
    if after:
        return parse_version(after.group(1))
    segments = repo.lower().split("/")
    if segments[-1] not in _RELEASE_TAGGED or any(s in _OWN_VERSION_OWNERS for s in segments[:-1]):
        return None
    m = _TAG_VERSION.search(low)
    if not m:
        return None
    v = parse_version(m.group(1))
    if v is None or v.parts[0] != 0:
        return None
    return v
