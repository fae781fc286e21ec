"""Measure, on a real GPU with PyTorch, the torch-level terms of the capacity model that the logs can only imply.

Run on a machine with an NVIDIA GPU and PyTorch (no vLLM needed):

    python benchmarks/gpu/torch_terms.py --out torch_terms.json

What it measures (each a figure docs/capacity-model.md otherwise fits to public start-up logs):

* the sampler's peak over a real vocabulary, in bytes per logit, at 1 to 1,024 rows: the op sequence vLLM's
  PyTorch-native top-k/top-p path runs in its dummy sampler run (V1, ``v1/sample/sampler.py`` ``Sampler.forward``
  and ``v1/sample/ops/topk_topp_sampler.py`` ``apply_top_k_top_p`` / ``random_sample``, the same in 0.9.2, 0.10.1.1,
  0.11.0 and 0.14.1) and V0's (``model_executor/layers/sampler.py`` in 0.6.6.post1: a top-k/top-p that allocates
  the re-sorted logits with ``empty_like`` and a cumulative sum that is not in place, then probabilities and
  log-probabilities), and the bare ``sort`` of float32 logits. The operations are re-written here from that reading,
  not imported; the dummy run's parameters are vLLM's (V1: temperature 0.5, top-p 0.9, top-k vocabulary - 1; V0:
  top-p 0.99, top-k vocabulary - 1);
* the caching allocator's slack over the same sequence: the peak of memory reserved less the peak allocated, from
  an empty cache (what ``cudaMemGetInfo`` sees beside what torch counts as allocated);
* the memory a process holds outside torch's allocator: the CUDA context at the first call, then after the first
  elementwise kernel, a bf16 matrix product (cuBLAS and cuBLASLt handles and workspaces) and a sort (CUB kernels
  loaded lazily) -- what vLLM's "non-torch memory" sees of a one-GPU process;
* NCCL's communicator for one rank (a lower bound of what a tensor-parallel group allocates).

Each figure goes into the JSON with the PyTorch, CUDA and driver versions and the GPU's name: the CUB sort's
buffers depend on PyTorch's version.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

VOCABS = {
    "llama3 (128,256)": 128_256,
    "qwen2.5/3 (151,936)": 151_936,
    "gpt-oss (201,088)": 201_088,
    "gemma3/4 (262,144)": 262_144,
}
ROWS = (1, 2, 8, 32, 64, 100, 127, 128, 129, 192, 256, 384, 512, 768, 1024)

GIB = 1024**3


def _mask_below_top_k(torch: Any, ordered: Any, top_k: Any) -> None:
    """Both engines' top-k on ascending sorted logits: everything below each row's k-th largest goes to -inf (the
    comparison's bool mask, 1 B a logit, lives until the fill)."""
    cut = ordered.size(1) - top_k.to(torch.long)
    cut = ordered.gather(1, cut.unsqueeze(dim=1))
    below = ordered < cut
    ordered.masked_fill_(below, -float("inf"))


def _v1_sampler(torch: Any, logits_bf16: Any) -> Any:
    """V1's dummy sampler run on the PyTorch-native path (no FlashInfer, no logprobs, no penalties)."""
    rows, vocab = logits_bf16.shape
    dev = logits_bf16.device
    temperature = torch.full((rows,), 0.5, device=dev)
    top_p = torch.full((rows,), 0.9, device=dev)
    top_k = torch.full((rows,), vocab - 1, device=dev)
    logits = logits_bf16.to(torch.float32)
    greedy = logits.argmax(dim=-1).view(-1)
    temp = torch.where(temperature < 1e-5, 1.0, temperature)
    logits = logits.div_(temp.unsqueeze(dim=1))
    # top-k and top-p over the sorted logits, then back to the vocabulary's order
    ordered, order = logits.sort(dim=-1, descending=False)
    _mask_below_top_k(torch, ordered, top_k)
    cumulative = ordered.softmax(dim=-1)
    cumulative = torch.cumsum(cumulative, dim=-1, out=cumulative)
    outside = cumulative <= 1 - top_p.unsqueeze(dim=1)
    outside[:, -1] = False
    ordered.masked_fill_(outside, -float("inf"))
    del outside, cumulative
    logits = ordered.scatter(dim=-1, index=order, src=ordered)
    del ordered, order
    probs = logits.softmax(dim=-1, dtype=torch.float32)
    noise = torch.empty_like(probs)
    noise.exponential_()
    random = probs.div_(noise).argmax(dim=-1).view(-1)
    return torch.where(temperature < 1e-5, greedy, random, out=greedy)


def _v0_sampler(torch: Any, logits_bf16: Any) -> Any:
    """V0's profile sampler (0.6.6.post1): float32 logits, top-k/top-p into a new tensor, probs and logprobs."""
    rows, vocab = logits_bf16.shape
    dev = logits_bf16.device
    top_p = torch.full((rows,), 0.99, device=dev)
    top_k = torch.full((rows,), vocab - 1, device=dev, dtype=torch.int)
    logits = logits_bf16.to(torch.float)
    ordered, order = logits.sort(dim=-1, descending=False)
    _mask_below_top_k(torch, ordered, top_k)
    probs_sorted = ordered.softmax(dim=-1)
    cumulative = probs_sorted.cumsum(dim=-1)
    outside = cumulative <= 1 - top_p.unsqueeze(dim=1)
    outside[:, -1] = False
    ordered.masked_fill_(outside, -float("inf"))
    del outside, cumulative, probs_sorted
    logits = torch.empty_like(ordered).scatter_(dim=-1, index=order, src=ordered)
    del ordered, order
    probs = torch.softmax(logits, dim=-1, dtype=torch.float)
    logprobs = torch.log_softmax(logits, dim=-1, dtype=torch.float)
    noise = torch.empty_like(probs)
    noise.exponential_()
    sampled = probs.div_(noise).argmax(dim=1)
    return sampled, logprobs


def _bare_sort(torch: Any, logits_bf16: Any) -> Any:
    logits = logits_bf16.to(torch.float32)
    return logits.sort(dim=-1, descending=False)


def _peak(torch: Any, rows: int, vocab: int, step: Callable[[Any, Any], Any]) -> dict[str, float]:
    """Peak bytes above the process's state before the bf16 logits were made, per logit."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    base_alloc = torch.cuda.memory_allocated()
    base_reserved = torch.cuda.memory_reserved()
    torch.cuda.reset_peak_memory_stats()
    logits = torch.randn(rows, vocab, device="cuda", dtype=torch.bfloat16)
    out = step(torch, logits)
    torch.cuda.synchronize()
    peak_alloc = torch.cuda.max_memory_allocated() - base_alloc
    peak_reserved = torch.cuda.max_memory_reserved() - base_reserved
    del out, logits
    torch.cuda.synchronize()
    n = rows * vocab
    return {
        "bytes_per_logit": round(peak_alloc / n, 3),
        "reserved_per_logit": round(peak_reserved / n, 3),
        "peak_gib": round(peak_alloc / GIB, 4),
        "slack_mib": round((peak_reserved - peak_alloc) / 2**20, 1),
    }


def sampler_table(torch: Any, vocabs: dict[str, int], rows: tuple[int, ...]) -> list[dict[str, Any]]:
    table = []
    for name, vocab in vocabs.items():
        for r in rows:
            row: dict[str, Any] = {"vocab": vocab, "vocab_name": name, "rows": r}
            for label, step in (("v1", _v1_sampler), ("v0", _v0_sampler), ("sort", _bare_sort)):
                try:
                    row[label] = _peak(torch, r, vocab, step)
                except RuntimeError as exc:  # out of memory on a small card: say so and go on
                    row[label] = {"error": str(exc).splitlines()[0][:200]}
            table.append(row)
            v1, v0, srt = row["v1"], row["v0"], row["sort"]
            print(
                f"  V={vocab:>7} rows={r:>5}  v1 {v1.get('bytes_per_logit')} B/logit"
                f" (slack {v1.get('slack_mib')} MiB)  v0 {v0.get('bytes_per_logit')}"
                f"  sort {srt.get('bytes_per_logit')}",
                flush=True,
            )
    return table


_CONTEXT_PROBE = r"""
import json, os, torch
out = {}
def used():
    free, total = torch.cuda.mem_get_info()
    return total - free, total
u, total = used()
out["total_gib"] = total / 2**30
def snap(label):
    u, _ = used()
    out[label] = {"used_mib": round(u / 2**20, 1), "reserved_mib": round(torch.cuda.memory_reserved() / 2**20, 1),
                  "outside_torch_mib": round((u - torch.cuda.memory_reserved()) / 2**20, 1)}
snap("after_init")
x = torch.ones(1024, device="cuda"); x.add_(1); torch.cuda.synchronize(); snap("after_elementwise")
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); b = a @ a
torch.cuda.synchronize(); snap("after_bf16_matmul")
c = torch.nn.functional.linear(a, a, torch.zeros(4096, device="cuda", dtype=torch.bfloat16))
torch.cuda.synchronize(); snap("after_linear_bias")
s = torch.randn(256, 151936, device="cuda").sort(dim=-1); torch.cuda.synchronize(); snap("after_sort")
del s; torch.cuda.empty_cache(); torch.cuda.synchronize(); snap("after_empty_cache")
t = torch.randn(64, 151936, device="cuda").softmax(-1).cumsum(-1)
torch.cuda.synchronize(); snap("after_softmax_cumsum")
f = torch.nn.functional.scaled_dot_product_attention(
    torch.randn(1, 8, 512, 128, device="cuda", dtype=torch.bfloat16),
    torch.randn(1, 8, 512, 128, device="cuda", dtype=torch.bfloat16),
    torch.randn(1, 8, 512, 128, device="cuda", dtype=torch.bfloat16), is_causal=True)
torch.cuda.synchronize(); snap("after_sdpa")
print(json.dumps(out))
"""

_NCCL_PROBE = r"""
import json, os, torch, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29533")
def outside():
    free, total = torch.cuda.mem_get_info()
    return round((total - free - torch.cuda.memory_reserved()) / 2**20, 1)
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda"); torch.cuda.synchronize()
before = outside()
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
dist.all_reduce(x); torch.cuda.synchronize()
after = outside()
print(json.dumps({"outside_before_mib": before, "outside_after_allreduce_mib": after,
                  "nccl_version": ".".join(map(str, torch.cuda.nccl.version()))}))
dist.destroy_process_group()
"""


def probe(code: str, env: dict[str, str] | None = None, timeout: int = 120) -> dict[str, Any]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        return {"error": said[-1][:300] if said else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="torch_terms.json")
    parser.add_argument("--quick", action="store_true", help="two vocabularies, five row counts (a smoke run)")
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("torch_terms: no CUDA device; nothing measured", file=sys.stderr)
        return 2
    t0 = time.time()
    props = torch.cuda.get_device_properties(0)
    result: dict[str, Any] = {
        "gpu": props.name,
        "gpu_total_gib": round(props.total_memory / GIB, 2),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "driver": _driver(),
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }
    print(f"torch_terms: {result['gpu']}, torch {result['torch']}, CUDA {result['cuda']}", flush=True)
    print("context and kernels outside torch's allocator:", flush=True)
    result["outside_torch"] = {
        "lazy": probe(_CONTEXT_PROBE),
        "eager_module_loading": probe(_CONTEXT_PROBE, {"CUDA_MODULE_LOADING": "EAGER"}),
    }
    print(json.dumps(result["outside_torch"], indent=1), flush=True)
    print("NCCL, one rank:", flush=True)
    result["nccl_one_rank"] = probe(_NCCL_PROBE, timeout=90)
    print(json.dumps(result["nccl_one_rank"]), flush=True)
    vocabs = dict(list(VOCABS.items())[:2]) if args.quick else VOCABS
    rows = (1, 64, 128, 256, 1024) if args.quick else ROWS
    print("sampler peaks (bytes per logit, the bf16 logits included):", flush=True)
    result["sampler"] = sampler_table(torch, vocabs, rows)
    result["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"torch_terms: wrote {args.out} after {result['seconds']} s")
    return 0


def _driver() -> str:
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
