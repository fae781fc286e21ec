"""Decode throughput of one replica, estimated from the hardware: an **estimate**, never a measurement.

One decode step of an engine generates one token for each of the ``b`` sequences it runs. Per GPU it reads the
weights of its shard once and the KV cache of every running sequence, does two multiply-adds per parameter and
token, and (with TP > 1) all-reduces the hidden state twice per layer. The step time is the sum of the three terms
(no overlap is assumed)::

    t_memory    = (W + b × KV(L)) / (HBM bandwidth × 0.77)
    t_compute   = (2 × P_active / (TP × PP) × b + b × M(L)) / dense 16-bit FLOP/s
    t_allreduce = 2 × layers/PP × (α + 2 (TP − 1)/TP × b × hidden × 2 bytes / link bandwidth)   (TP > 1)

``W`` is the weights per GPU (the sizing's), ``KV(L)`` what one step reads of one sequence's KV cache at ``L``
tokens on the stage that reads most (every token of a full-attention layer, at most the window of a sliding one, the
state of a Mamba or linear-attention layer once, nothing for a KV-shared layer), ``L`` the context each running
sequence has (the declared p95 context, else max_model_len: a long context, so the KV term is not understated),
``M(L)`` what one sequence's token mixers compute on the stage that computes most (``kv_layout.mixer_flops``:
``4 × L × heads/TP × head_dim`` per full-attention layer, the window or chunk instead of ``L`` on a sliding or chunked
layer, a constant state update on a Mamba or linear-attention layer, nothing on a layer without a mixer),
``P_active`` the parameters a
token uses (a mixture of experts reads and multiplies only the experts its tokens are routed to: of ``E`` routed
experts with ``k`` per token, a batch of ``b`` tokens touches ``1 − (1 − k/E)^b`` of them). The 0.77 is the share
of the bandwidth ceiling vLLM's decode reaches, as measured at batch 1 (docs/capacity-model.md); ``α`` is the fixed
cost of one all-reduce (10 µs over NVLink or a vendor fabric, 30 µs over PCIe: an assumption of this model). With
pipeline parallelism the batch runs as PP micro-batches of ``b / PP`` through PP stages, and a replica makes
``b`` tokens in ``PP × t(b / PP)``; data-parallel engines each run ``b / DP`` (with expert parallelism the experts
a GPU holds see every engine's tokens; the all-to-all is not modelled).

Prefill is not in the step: the estimate is decode only, an upper bound where prompts are long beside the output
and at large batches (docs/capacity-model.md compares it with published vLLM benchmarks and states the error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..catalog.speeds import speed_of
from ..model.shapes import ModelShape
from ..vllm import kv_layout
from .layout import plural

#: Share of the HBM bandwidth ceiling vLLM's decode reaches: Llama-3.1-8B-Instruct in BF16 on one A100 40GB decodes
#: at about 75 tokens/s at batch 1, "roughly 77 % of the GPU's memory-bandwidth ceiling" (vLLM 0.23,
#: https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on).
MEMORY_EFFICIENCY = 0.77
#: Fixed cost of one all-reduce (s) by link: an assumption (vLLM's custom all-reduce and NCCL's low-latency
#: protocol take microseconds on NVLink; PCIe peer-to-peer is slower).
ALLREDUCE_LATENCY_S = {"nvlink": 10e-6, "nvswitch": 10e-6, "fabric": 10e-6, "pcie": 30e-6}
#: Bytes of one activation element the all-reduce moves (BF16/FP16 hidden states).
ACTIVATION_BYTES = 2


@dataclass(frozen=True)
class DecodeEstimate:
    """Output tokens per second one replica generates at ``batch`` sequences of ``context`` tokens (an estimate)."""

    tokens_per_second: float
    batch: int  # sequences the replica runs at once
    context: int  # tokens each has (the KV it reads)
    step_ms: float  # one engine step (one stage of one micro-batch with PP)
    memory_ms: float
    compute_ms: float
    allreduce_ms: float
    gpu: str
    source: str  # where the GPU's speeds come from

    @property
    def bound(self) -> str:
        return "memory" if self.memory_ms >= self.compute_ms else "compute"

    def as_dict(self) -> dict[str, object]:
        return {"estimate": True, "output_tokens_per_second": round(self.tokens_per_second, 1),
                "batch": self.batch, "context": self.context, "step_ms": round(self.step_ms, 3),
                "memory_ms": round(self.memory_ms, 3), "compute_ms": round(self.compute_ms, 3),
                "allreduce_ms": round(self.allreduce_ms, 3), "bound": self.bound, "gpu": self.gpu,
                "source": self.source}

    def text(self) -> str:
        return (f"{self.tokens_per_second:,.0f} output tokens/s per replica (estimate: decode only, at "
                f"{plural(self.batch, 'sequence')} of {self.context:,} tokens; a {self.step_ms:.1f} ms step = memory "
                f"{self.memory_ms:.1f} + compute {self.compute_ms:.1f} + all-reduce {self.allreduce_ms:.1f}; "
                "docs/capacity-model.md)")


def routed_expert_params(model: ModelShape) -> int:
    """Parameters of the routed experts (gate, up and down projections of every expert of every layer); 0 for a
    dense model or a mixture of experts whose expert size the config does not give."""
    moe = model.moe
    if moe is None or not moe.moe_intermediate_size:
        return 0
    routed = model.num_hidden_layers * moe.num_experts * 3 * model.hidden_size * moe.moe_intermediate_size
    return min(routed, int(model.params * 0.98))


def touched_share(model: ModelShape, tokens: int) -> float:
    """Share of the routed experts a step of ``tokens`` tokens reads: 1 − (1 − k/E)^tokens."""
    moe = model.moe
    if moe is None or not moe.num_experts:
        return 1.0
    k = min(moe.experts_per_token, moe.num_experts)
    return 1.0 - (1.0 - k / moe.num_experts) ** max(1, tokens)


def estimate_decode(model: ModelShape, gpu: str, *, weights_bytes_per_gpu: float, kv_bytes_per_token_per_gpu: float,
                    tp: int, pp: int, dp: int, batch: int, context: int,
                    expert_parallel: bool = False,
                    kv_read_bytes_per_sequence: float | None = None) -> DecodeEstimate | None:
    """The decode estimate of one replica (DP engines of TP × PP GPUs) at ``batch`` sequences of ``context`` tokens;
    None when the catalog has no speeds for ``gpu`` or the batch is empty.

    ``kv_read_bytes_per_sequence``: what one step reads of one sequence's cache on one GPU, layer by layer
    (``kv_layout.replica_decode_read_bytes``: a sliding layer reads its window, a state layer its state); without
    it ``context × kv_bytes_per_token_per_gpu``."""
    speed = speed_of(gpu)
    if speed is None or batch < 1:
        return None
    per_engine = batch / max(1, dp)
    micro = per_engine / pp  # sequences in one micro-batch of one stage
    routed = routed_expert_params(model)
    # with expert parallelism every engine's tokens reach the experts a GPU holds (the all-to-all itself is not
    # modelled)
    share = touched_share(model, math.ceil(batch / pp if expert_parallel else micro))
    # bytes: the weights of the shard, the routed experts only as far as the micro-batch touches them
    routed_fraction = routed / model.params if model.params else 0.0
    weights = weights_bytes_per_gpu * ((1.0 - routed_fraction) + routed_fraction * share)
    per_sequence = (kv_read_bytes_per_sequence if kv_read_bytes_per_sequence is not None
                    else context * kv_bytes_per_token_per_gpu)
    kv = micro * per_sequence
    memory_s = (weights + kv) / (speed.memory_bandwidth_gb_s * 1e9 * MEMORY_EFFICIENCY)
    moe = model.moe
    active = model.params - routed + (routed * moe.experts_per_token / moe.num_experts if moe and routed else 0)
    layers = model.num_hidden_layers / pp
    flops = 2.0 * active / (tp * pp) * micro + micro * kv_layout.mixer_flops(model, tp, pp, context)
    compute_s = flops / (speed.dense_16bit_tflops * 1e12)
    allreduce_s = 0.0
    if tp > 1:
        alpha = ALLREDUCE_LATENCY_S.get(speed.link, 30e-6)
        message = micro * model.hidden_size * ACTIVATION_BYTES
        allreduce_s = 2 * layers * (alpha + 2 * (tp - 1) / tp * message / (speed.link_gb_s * 1e9))
    step = memory_s + compute_s + allreduce_s
    tokens = batch / (pp * step)
    return DecodeEstimate(tokens, batch, context, step * 1e3, memory_s * 1e3, compute_s * 1e3, allreduce_s * 1e3,
                          gpu, speed.source)
