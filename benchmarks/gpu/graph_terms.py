"""Measure, with PyTorch alone, what CUDA graph captures and a cold ``torch.compile`` leave outside torch's allocator.

Issue 28 leaves about 0.45 GiB of a 0.22.0 Qwen2.5-7B run on one A10G unexplained, and names two candidates that
only a GPU can decide (docs/capacity-model.md, "What the 0.22.0 Qwen2.5-7B run on one A10G leaves open"):

* from 0.20 to 0.26 ``determine_available_memory`` profiles the CUDA graphs inside ``memory_profiling``, so the
  device memory the throw-away captures leave outside PyTorch (graph executables, kernels loaded for the first time)
  would count as non-torch increase;
* a cold ``torch.compile`` during the profile run, whose GPU allocations would count in the profile's peak.

vLLM is not installed on the machine this runs on, so a decoder of Qwen2.5-7B's shape (28 layers, hidden 3,584, MLP
18,944, 28 query and 4 KV heads of 128, QKV bias) is written here in plain PyTorch with random weights. Its kernels
are not vLLM's (no fused RMSNorm, no paged attention), so the figures bound the classes, they do not replace vLLM's
own: what a graph executable costs per captured graph, whether it stays once the graphs are released, and what the
compiler's first run adds. Each probe runs in its own process; the output is one JSON file.

    python3 benchmarks/gpu/graph_terms.py --out graph_terms.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from torch_terms import probe  # the same one-process probe runner (this folder is on the path when run)

#: vLLM's default capture sizes when max_num_seqs is 256 (max_cudagraph_capture_size 512): 1, 2, 4, then steps of 8
#: below 256 and of 16 from 256 (``config/vllm.py`` ``_set_cudagraph_sizes``, 0.11 - 0.22): 51 sizes
CAPTURE_SIZES = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]

_COMMON = r"""
import gc, json, time, torch
torch.manual_seed(0)
H, I, L, NQ, NKV, D = 3584, 18944, 28, 28, 4, 128
dt = torch.bfloat16
dev = "cuda"
out = {}
def used():
    free, total = torch.cuda.mem_get_info()
    return total - free
def snap(label):
    torch.cuda.synchronize()
    u = used(); r = torch.cuda.memory_reserved()
    out[label] = {"used_mib": round(u / 2**20, 1), "reserved_mib": round(r / 2**20, 1),
                  "outside_torch_mib": round((u - r) / 2**20, 1),
                  "max_allocated_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1)}
def w(*shape):
    return (torch.randn(*shape, device=dev, dtype=dt) * 0.02)
layers = [dict(n1=torch.ones(H, device=dev, dtype=dt), qkv=w((NQ + 2 * NKV) * D, H),
               qkv_b=torch.zeros((NQ + 2 * NKV) * D, device=dev, dtype=dt), o=w(H, NQ * D),
               n2=torch.ones(H, device=dev, dtype=dt), gu=w(2 * I, H), down=w(H, I)) for _ in range(L)]
norm = torch.ones(H, device=dev, dtype=dt)
def rms(x, g):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(dt) * g
def layer(x, p):
    t = x.shape[0]
    h = rms(x, p["n1"])
    qkv = torch.nn.functional.linear(h, p["qkv"], p["qkv_b"])
    q, k, v = qkv.split([NQ * D, NKV * D, NKV * D], dim=-1)
    q = q.view(t, NQ, D).transpose(0, 1).unsqueeze(0)
    k = k.view(t, NKV, D).transpose(0, 1).unsqueeze(0)
    v = v.view(t, NKV, D).transpose(0, 1).unsqueeze(0)
    a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    a = a.squeeze(0).transpose(0, 1).reshape(t, NQ * D)
    x = x + torch.nn.functional.linear(a, p["o"])
    h = rms(x, p["n2"])
    g, u = torch.nn.functional.linear(h, p["gu"]).chunk(2, dim=-1)
    return x + torch.nn.functional.linear(torch.nn.functional.silu(g) * u, p["down"])
def model(x, step=layer):
    for p in layers:
        x = step(x, p)
    return rms(x, norm)
"""

_GRAPH_PROBE = _COMMON + r"""
sizes = json.loads(SIZES)
snap("weights")
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    model(torch.randn(2048, H, device=dev, dtype=dt))
snap("eager_forward_2048")
out["eager_forward_2048_peak_above_weights_mib"] = round(
    out["eager_forward_2048"]["max_allocated_mib"] - out["weights"]["reserved_mib"], 1)
gc.collect(); torch.cuda.empty_cache()
with torch.inference_mode():
    for n in sizes:
        model(torch.randn(n, H, device=dev, dtype=dt))
gc.collect(); torch.cuda.empty_cache(); snap("after_eager_warmup")
pool = torch.cuda.graph_pool_handle()
graphs = []
t0 = time.time()
with torch.inference_mode():
    for n in sorted(sizes, reverse=True):  # vLLM captures the largest first, into one shared pool
        x = torch.randn(n, H, device=dev, dtype=dt)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            y = model(x)
        graphs.append((g, x, y))
out["capture_seconds"] = round(time.time() - t0, 2)
snap("after_capture")
graphs[0][0].replay(); snap("after_replay")
del graphs, g, x, y
gc.collect(); torch.cuda.empty_cache(); snap("after_release")
out["graphs"] = len(sizes)
a, c, r = (out[k]["outside_torch_mib"] for k in ("after_eager_warmup", "after_capture", "after_release"))
out["outside_added_by_capture_mib"] = round(c - a, 1)
out["outside_per_graph_mib"] = round((c - a) / len(sizes), 3)
out["outside_left_after_release_mib"] = round(r - a, 1)
out["pool_reserved_mib"] = round(out["after_capture"]["reserved_mib"] - out["after_eager_warmup"]["reserved_mib"], 1)
print(json.dumps(out))
"""

_COMPILE_PROBE = _COMMON + r"""
snap("weights")
x = torch.randn(2048, H, device=dev, dtype=dt)
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    model(x)
snap("eager_forward_2048")
gc.collect(); torch.cuda.empty_cache(); snap("before_compile")
step = torch.compile(layer, dynamic=True)
torch.cuda.reset_peak_memory_stats()
t0 = time.time()
with torch.inference_mode():
    model(x, step)
out["cold_compile_seconds"] = round(time.time() - t0, 1)
snap("compiled_forward_2048_cold")
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    model(x, step)
snap("compiled_forward_2048_warm")
gc.collect(); torch.cuda.empty_cache(); snap("after_compile_release")
b = out["before_compile"]
out["cold_peak_above_eager_mib"] = round(
    out["compiled_forward_2048_cold"]["max_allocated_mib"] - out["eager_forward_2048"]["max_allocated_mib"], 1)
out["warm_peak_above_eager_mib"] = round(
    out["compiled_forward_2048_warm"]["max_allocated_mib"] - out["eager_forward_2048"]["max_allocated_mib"], 1)
out["outside_added_by_compile_mib"] = round(
    out["after_compile_release"]["outside_torch_mib"] - b["outside_torch_mib"], 1)
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default="graph_terms.json")
    parser.add_argument("--timeout", type=int, default=240, help="seconds each probe may take")
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("graph_terms: no CUDA device; nothing measured", file=sys.stderr)
        return 2
    t0 = time.time()
    result: dict[str, Any] = {"gpu": torch.cuda.get_device_properties(0).name, "torch": torch.__version__,
                              "cuda": torch.version.cuda, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                              "shape": "Qwen2.5-7B (28 layers, hidden 3584, MLP 18944, 28/4 heads of 128), bf16"}
    print(f"graph_terms: {result['gpu']}, torch {result['torch']}", flush=True)
    result["graphs"] = probe(_GRAPH_PROBE.replace("SIZES", repr(json.dumps(CAPTURE_SIZES))), timeout=args.timeout)
    print(json.dumps(result["graphs"], indent=1), flush=True)
    result["compile"] = probe(_COMPILE_PROBE, timeout=args.timeout)
    print(json.dumps(result["compile"], indent=1), flush=True)
    result["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"graph_terms: wrote {args.out} after {result['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
