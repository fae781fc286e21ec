"""Estimates of what vLLM measures at start-up (the activation peak, the sampler, the encoder, non-torch memory,
CUDA graphs), and how far each may be off: the coefficients :func:`.sizing.size_deployment` sizes with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Estimates:
    """Coefficients for the terms vLLM measures at start-up, and how far each may be off.

    * forward pass of ``T`` = ``max_num_batched_tokens`` tokens: ``T × (mlp × MLP width per rank +
      hidden × hidden size) × activation bytes`` for dense layers; MoE layers keep
      ``top_k × (3 × expert width per rank + hidden)`` per token (vLLM's fused-MoE caches, chunked by release:
      ``Behaviour.moe_chunk_tokens``, ``VLLM_FUSED_MOE_CHUNK_SIZE``). Calibrated on V0 logs (Llama-3.1-8B: 110 KB
      per token, vllm#10517).
    * sampler: ``rows × vocabulary × bytes`` — rows are ``min(max_num_seqs, T)`` in V1, ``max_num_seqs`` in V0
      (whose profile samples its dummy prompts with top-k/top-p through PyTorch's sort; the logits only with
      chunked prefill, as the 0.6-0.7 logs show). Per (row × vocabulary entry): the bf16 logits (2) and their
      float32 copy (4) stay alive through the sampler; FlashInfer adds about 10 (0.59 GiB measured for
      Qwen2.5-0.5B × 256 rows, kvcached#448: 16); PyTorch's sort (0.11.1-0.16) adds the sorted values (4), the
      int64 indices (8) and the sort's own key/value/index buffers (20): 38.2 from 128 rows (``sort_bytes``: 51.1 from
      2 to 127 rows, 38.3 on one), the peaks measured with PyTorch 2.11 on an H200
      (benchmarks/gpu/torch_terms-h200-torch2.11.json); the
      Triton top-k/top-p kernel (0.17-0.20) works in place and adds the probabilities and the
      exponential noise (4 + 4) and a per-SM buffer: 15.5, between the 15 and 16 of the 0.17-0.19 logs.
    * multimodal encoder: the largest dummy image batch through the vision tower, ``patches ×
      (vit_hidden × hidden + 3 × MLP width ÷ TP) × 2`` bytes, plus the encoder cache kept for the
      language model, and the batch's pixel values (float32 and the model's dtype) while the tower runs
      (Qwen2.5-VL-72B at TP4 on one image of 16,384 tokens: 2.62 GiB. vllm#16570's 2.51 GiB for it is a V0 log, whose
      peak is the language model's forward over the whole dummy prompt, so it bounds the tower without measuring it;
      Gemma 3 4B's 64 images on a B200, V1 0.10.0, vllm PR #21489: 9.96 GiB logged for the whole profile, 11.81
      estimated). How many items, and what V1 holds through the forward pass after them, is by release
      (:func:`.sizing._encoder`); Qwen3-VL's tower, and Qwen2.5-VL's from 0.11, are modelled from their blocks
      instead (``sizing._qwen3_vit_patch_bytes``, ``sizing._qwen25_vit_patch_bytes``).
    * non-torch memory (CUDA context, cuBLAS workspaces, NCCL buffers where vLLM counts them) by
      what the release counts (:data:`shardwise.rules.vllm.versions.NonTorch`); ROCm adds ``rocm_extra_gib``; from
      0.19 ``tp_buffers_gib`` more where custom all-reduce runs on NVLink-joined GPUs (the communication buffers set
      up in the first forward pass; about 2.1 GiB per GPU at TP2/TP4 in 0.19 logs; none on a PCIe pair).
    * CUDA graphs: where the release estimates them inside the budget (V1 runner, 0.20+), vLLM's own estimate
      (``sizing.profiled_cudagraph_gib``: ``cudagraph_profile_base_gib`` + two forward passes of the largest
      capture size + ``cudagraph_profile_layer_mib`` per layer of every further graph; the 0.22.0 and 0.26.1rc1 logs
      of docs/capacity-model.md), ``cudagraph_gib`` where that is not modelled (state layers). Model Runner V2
      estimates none in the budget and captures after sizing: ``cudagraph_v2_gib`` in the margin.
      Where they are captured after sizing (V1 before 0.20) the graphs vLLM captures are counted (the sizes
      and modes of :data:`shardwise.rules.vllm.versions.RANGES`) and each holds ``cudagraph_token_bytes`` × hidden
      size × activation bytes per captured token (``cudagraph_token_bytes_moe`` for mixture-of-experts models, whose
      fused-MoE buffers live in the graphs' pools too), on every GPU whatever the TP: calibrated on what vLLM 0.10.1.1
      logged as "Graph capturing finished ... took X GiB" (the free memory the capture used) in
      dennislee22/vLLM-benchmarking: Qwen2-7B (hidden 3,584) on one A100 0.50 GiB for 67 sizes of 16,647 tokens
      (4.4 B), 0.65 GiB per GPU at TP2 (5.7 B: no smaller at TP2); gpt-oss-120b (hidden 2,880) at TP4 1.88 GiB for
      83 sizes of 35,335 tokens (9.9 B). Full decode graphs (0.11+) keep ``cudagraph_full_token_bytes``: the 0.11.0
      logs of vllm#27508 (gpt-oss-120b on one H100, 660 MiB of graph pools and about 5.4 GiB outside PyTorch when
      the warm-up ran out of memory) and llm-d#787 (Qwen3-32B at TP2 and 0.95, out of memory at the warm-up after
      67 + 67 graphs) need about 9 B per token over both kinds; a mixture-of-experts model's full graphs
      (``cudagraph_full_token_bytes_moe``, 10.5 B) hold what vllm#27508 charged to the allocator's slack before the
      slack was measured (0.22 GiB over its 33,303 full-graph tokens of 2,880: 1.5 B more per token). From 0.13 vLLM
      warms the model up with a dummy forward of ``max_num_batched_tokens`` tokens before it captures, and the graphs
      reuse the blocks that run left in PyTorch's cache: what the capture adds is small
      (``cudagraph_token_bytes_warm``, ``_warm_moe``). vLLM's
      own "CUDAGraph memory" on one H100 (llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md,
      the 0.12-0.16 line): gpt-oss-20b 0.39 GiB and gpt-oss-120b 1.03 GiB for 83 + 83 graphs of 35,335 tokens each
      (1.0 and 2.7 B), Qwen3-0.6B 0.10 GiB, Llama-3.1-8B -0.45, Qwen3-32B -0.88 (TP2 -0.33), Llama-3.3-70B-FP8 at
      TP2 -0.42.
    * outside the budget: what is allocated before vLLM's first snapshot is not charged to the KV
      budget and has to fit the ``1 − gpu_memory_utilization`` margin: the CUDA context
      (``cuda_context_gib``, by GPU where a log reads it: ``cuda_context_by_gpu``; where the release does not count
      it) and, from 0.11 where a rank holds one (several GPUs, or a data-parallel rank:
      ``sizing.device_communicators``), NCCL's communicators (``nccl_init_gib``, once); so do the CUDA graphs
      captured after sizing, the allocator's slack
      (``allocator_slack_gib``: 27 MiB, the largest peak reserved less peak allocated of PyTorch's caching allocator
      over the sampler's sequence from an empty cache, 2 – 27 MiB on an H200 with torch 2.11,
      benchmarks/gpu/torch_terms-h200-torch2.11.json; the 186 and 331 MiB "reserved but unallocated" of the
      out-of-memory reports of vllm#15105 and vllm#27508 are the state after an allocation failed, every pool's free
      blocks counted, the graphs' private pools too, not what a warm-up that succeeds needs;
      ``allocator_slack_error_gib`` keeps 0.1 GiB for other GPUs and releases) and what V1's sampler warm-up needs
      beyond the profile run's peak, which the
      budget reserved and ``memory_profiling`` gave back before the KV cache was allocated; on Model Runner V2
      its ``warmup_kernels`` (every sampling feature, after a greedy profile) and, before 0.27, its penalty
      buffers (``sizing.v2_runner_terms``).

    Each ``*_error`` is the relative (or absolute GiB) error allowed for that term; their sum is the
    error band of the KV budget. Where a release counts NCCL's buffers (V0, V1 before 0.11) and the
    engine spans several GPUs, non-torch memory may be off by ``nccl_error_gib`` (NVSwitch systems
    allocate large NCCL buffers).
    """

    mlp: float = 3.0
    hidden: float = 3.0
    sampler_bytes: tuple[tuple[str, float], ...] = (
        ("logits", 2.0), ("flashinfer", 16.0), ("sort", 38.2), ("triton", 15.5))
    #: PyTorch's sort takes one of three paths by the number of rows (``launch_stable_sort_kernel``,
    #: aten/src/ATen/native/cuda/SortStable.cu): from 128 rows CUB's segmented radix sort (``sort`` above: an int64
    #: index per logit and CUB's alternate key and value buffers, 8 + 4 + 8); from 2 to 127 rows a full radix sort of
    #: every row at once, then a sort by segment (two int2 buffers, a float32 key copy and CUB's alternate key and
    #: int2 buffers: 8 + 8 + 4 + 4 + 8, 12 more); one row sorts alone (an int64 initial index per logit and CUB's
    #: alternates, 20 as from 128 rows). Each figure is the largest peak measured over four vocabularies (128,256 -
    #: 262,144) with PyTorch 2.11 on an H200, V1's and V0's sampler and the bare sort alike, rounded up to 0.1 B:
    #: 38.00 - 38.18 from 128 rows, 50.20 - 51.06 from 2 to 127, 38.23 - 38.28 on one
    #: (benchmarks/gpu/torch_terms-h200-torch2.11.json)
    sort_few_rows_bytes: float = 51.1
    sort_one_row_bytes: float = 38.3
    vit_hidden: float = 12.0
    nontorch_gib: tuple[tuple[str, float, float], ...] = (
        # scope: (one GPU, extra when the replica spans several GPUs)
        ("increase", 0.25, 0.15),
        ("absolute", 0.70, 0.20),
        ("after-distributed", 0.12, 0.10),
    )
    rocm_extra_gib: float = 1.0
    tp_buffers_gib: float = 2.0
    #: The profile's torch peak while a cold ``torch.compile`` runs, in copies of one GPU's share of the input
    #: embedding (:func:`.sizing.cold_compile_gib`): 1, as public logs read it (0.13.0 asks for 1.02 GiB for
    #: Qwen2.5-Coder-7B's 1.015; 0.26.0 logs 1.01 for Llama-3.1-8B's 0.98, BF16 and GPTQ alike; 0.27.1 1.18 for
    #: Qwen3-8B's 1.16)
    cold_compile_embedding_copies: float = 1.0
    cuda_context_gib: float = 0.5
    #: The CUDA context by GPU where a public log reads it smaller than ``cuda_context_gib`` (H100/H200-class: 527 MiB
    #: measured on an H200, benchmarks/gpu/torch_terms-h200-torch2.11.json; "Free memory on device (78.57/79.18 GiB)" in
    #: two 0.10.2 H100 logs). What vLLM's first snapshot finds used on one GPU before anything is loaded (total − free):
    #: an L4, 0.19 GiB ("Free memory on device (21.84/22.03 GiB) on startup", vllm/vllm-openai:v0.29.0-cu129, one L4,
    #: Qwen3.5-4B, a RunPod lab's findings); an A10, 0.23 GiB ("(21.83/22.06 GiB)", a Modal A10 serving Gemma 4 12B);
    #: the A10G (the same GA102 die, 80 SMs to the A10's 72) is charged 0.24: the context's local-memory reservation
    #: grows with the SMs (1,536 threads × 1 KiB of stack an SM on GA102 and AD102/AD104: 12 MiB more). Other parts keep
    #: ``cuda_context_gib`` (docs/capacity-model.md, "The margin outside the budget")
    cuda_context_by_gpu: tuple[tuple[str, float], ...] = (("L4", 0.19), ("A10G", 0.24))
    nccl_init_gib: float = 0.25
    nccl_init_error_gib: float = 0.25
    #: NCCL's device buffers where it connects every channel when a communicator is created (vLLM 0.9 - 0.10 set
    #: ``NCCL_CUMEM_ENABLE=0``, so NCCL 2.26.2's ``runtimeConn`` is 0: ``initTransportsRank``, ``src/init.cc``), on
    #: NVSwitch Hopper (:func:`.sizing.nccl_buffers_at_init_gib`): the channels of one communicator
    #: (``comm->nChannels``: 24 on 8 x H200, vllm#9699's "nvlsPerRankSize 301989888" = 24 x 2 x 6 MiB with NCCL
    #: 2.20.5; Hopper's 18 NVLinks to the NVSwitch set it, nccl#1429), by GPU where a log gives fewer (H800, 8
    #: NVLinks: "16 coll channels, 0 nvls channels", nccl#892) ...
    nccl_nvswitch_channels: int = 24
    nccl_channels_by_gpu: tuple[tuple[str, int], ...] = (("H800", 16),)
    #: ... one P2P ring channel of a rank (a send connection of ``sizeof(ncclSendMem)`` and a receive connection of
    #: the LL, LL128 and SIMPLE buffers, each rounded up to ``CUDA_IPC_MIN``: 2 + 10 MiB, or 6 + 6 with P2P read;
    #: ``transport/p2p.cc`` 2.26.2), which a tree channel adds again beyond two ranks (its chain's reverse
    #: direction) ...
    nccl_p2p_channel_mib: float = 12.0
    #: ... and NVLink SHARP's buffer beyond two GPUs with multicast support (``transport/nvls.cc`` 2.22 - 2.28:
    #: ``NVLS_NCHANNELS_SM90`` 16 channels x 2 x ``NVLS_CHUNKSIZE`` 128 KiB x ``NCCL_STEPS`` 8 per GPU of the
    #: communicator, and a 2 MiB credit granule)
    nccl_nvls_channels: int = 16
    nccl_nvls_buffer_mib: float = 1.0
    nccl_nvls_credit_mib: float = 2.0
    cudagraph_gib: float = 0.4
    #: Model Runner V2's CUDA graphs, captured after sizing (its ``profile_cudagraph_memory`` returns 0): the two V2
    #: logs that give the capture log 0.06 GiB (0.22.0, an 8B Qwen3 at ``--max-num-seqs 2``) and 0.00 (0.27.1,
    #: Qwen2.5-0.5B with the defaults); the larger is charged, ``cudagraph_error_gib`` is its band
    cudagraph_v2_gib: float = 0.06
    #: 0.20+: what vLLM's profiled estimate charges besides two forward passes of the largest size, and per layer of
    #: every further graph it extrapolates (``sizing.profiled_cudagraph_gib``)
    cudagraph_profile_base_gib: float = 0.065
    cudagraph_profile_layer_mib: float = 0.17
    cudagraph_token_bytes: float = 5.0  # × hidden size × activation bytes, per token of a piecewise graph
    cudagraph_token_bytes_moe: float = 10.0  # the same for a mixture-of-experts model
    cudagraph_full_token_bytes: float = 9.0  # the same for a full decode graph (0.11+, FULL_AND_PIECEWISE)
    cudagraph_full_token_bytes_moe: float = 10.5  # the same for a mixture-of-experts model's full decode graph
    #: from 0.13 (a warm-up forward before the capture), per token of every graph: dense models, MoE models
    cudagraph_token_bytes_warm: float = 1.0
    cudagraph_token_bytes_warm_moe: float = 3.0
    cudagraph_error: float = 0.3  # relative, for the graphs captured after sizing
    allocator_slack_gib: float = 0.026  # 27 MiB, measured (benchmarks/gpu/torch_terms-h200-torch2.11.json)
    allocator_slack_error_gib: float = 0.1
    #: the weights' error band, asymmetric (docs/capacity-model.md, "The weights' band"; estimate − logged over the
    #: start-up logs' "Model loading took"): vLLM may load up to ``weights_error`` + ``weights_error_gib`` MORE than
    #: the estimate (a vision tower's buffers, ROCm: up to 5.2 % and 0.45 GiB in the logs) ...
    weights_error: float = 0.02
    weights_error_gib: float = 0.3
    #: ... and LESS than it by at most ``weights_error_below`` + ``weights_error_below_gib`` for an unquantised
    #: checkpoint with an exact parameter count and nothing vLLM may skip (no encoder tower, no MTP module): its bytes
    #: are parameters × dtype bytes (the logs: never more than 0.004 GiB less, 27 rows, CUDA and ROCm); a quantised,
    #: multimodal, MTP-carrying or config-derived one keeps the wide side (Qwen3.6-27B-FP8: 0.30 GiB, 1.1 %, less)
    weights_error_below: float = 0.005
    weights_error_below_gib: float = 0.05
    activation_error: float = 0.35
    activation_floor_gib: float = 0.15
    #: The error of PyTorch's sort where it decides the profile's peak (``sizing._error_band``), in place of
    #: ``activation_error``: its bytes a logit are measured (38.0 - 38.2 on an H200, torch 2.11); the twelve one-GPU
    #: sort-only logs of 1,024 rows (0.10.1.1 - 0.14.1) imply 37.9 - 38.7 against the 38.2 charged (+1.3 % at most), and
    #: CUB's temporary storage, the part most likely to move between PyTorch releases, is the last 0.1 - 1 B (2.6 %)
    sort_error: float = 0.03
    encoder_error: float = 0.5
    nontorch_error_gib: float = 0.3
    nccl_error_gib: float = 1.0
    rocm_error_gib: float = 1.5
    cudagraph_error_gib: float = 0.35
    context_error_gib: float = 0.15
    warmup_error: float = 0.2

    def sampler(self, kind: str) -> float:
        return dict(self.sampler_bytes)[kind]

    def nccl_channels(self, gpu: str) -> int:
        """NCCL's channels a communicator of NVSwitch-joined ``gpu`` s (a catalog name) holds."""
        for name, channels in self.nccl_channels_by_gpu:
            if gpu.upper().startswith(name):
                return channels
        return self.nccl_nvswitch_channels

    def cuda_context(self, gpu: str) -> float:
        """GiB the CUDA context holds on ``gpu`` (a catalog name) before vLLM's first snapshot."""
        return dict(self.cuda_context_by_gpu).get(gpu, self.cuda_context_gib)

    def sort_bytes(self, rows: int) -> float:
        """Bytes per logit of PyTorch's sort over ``rows`` rows of the vocabulary (see ``sort_few_rows_bytes``)."""
        if rows <= 1:
            return self.sort_one_row_bytes
        return self.sort_few_rows_bytes if rows < 128 else self.sampler("sort")

    def nontorch(self, scope: str) -> tuple[float, float]:
        for s, one, extra in self.nontorch_gib:
            if s == scope:
                return one, extra
        raise KeyError(scope)


DEFAULT_ESTIMATES = Estimates()
