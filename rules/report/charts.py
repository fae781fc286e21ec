"""Charts GitHub renders in Markdown: Mermaid ``xychart-beta`` blocks.

Per-GPU memory of each workload as stacked bars. ``xychart-beta`` has no stacked mode and no legend,
so the stack is drawn as overlapping bars of the running totals, tallest first, and a line under the
chart names the layers: from the bottom, the weights; the KV cache the declared load uses (none without
a declared load: ``max_num_seqs`` is not one); the KV cache left over (headroom); up to the GPU's memory,
the rest (activation peak, CUDA graphs, non-torch memory and the 1 − gpu_memory_utilization reserve).
"""

from __future__ import annotations

from typing import Any

LEGEND = ("Bars from the bottom: weights · KV cache the declared load uses · KV headroom (KV cache left "
          "after that load) · the rest of the GPU's memory (activations, CUDA graphs, reserve). GiB per GPU, one "
          "replica.")


def _label(text: str) -> str:
    return '"' + text.replace('"', "'").replace("\n", " ") + '"'


def _num(x: float) -> str:
    return f"{x:.1f}"


def memory_layers(w: dict[str, Any]) -> tuple[float, float, float, float] | None:
    """(weights, KV in use, KV headroom, rest) GiB per GPU of one workload summary, or None when it was
    not sized."""
    weights, kv, head, total = (w.get("weights_gib_per_gpu"), w.get("kv_cache_gib_per_gpu"),
                                w.get("headroom_gib_per_gpu"), w.get("gpu_memory_gib"))
    if weights is None or kv is None or total is None:
        return None
    headroom = kv if head is None else min(max(head, 0.0), kv)  # no declared load: none of the KV cache is used
    used = kv - headroom
    rest = max(total - weights - kv, 0.0)
    return weights, used, headroom, rest


def memory_chart(workloads: list[dict[str, Any]], title: str = "Per-GPU memory (GiB)") -> str:
    """A Mermaid block charting :func:`memory_layers` of each sized workload ('' when none was sized)."""
    rows = [(w["name"], layers) for w in workloads if (layers := memory_layers(w)) is not None]
    if not rows:
        return ""
    top = max(sum(layers) for _, layers in rows)
    series = []
    for upto in (4, 3, 2, 1):  # tallest (everything) first, weights alone last: each drawn over the one before
        series.append("[" + ", ".join(_num(sum(layers[:upto])) for _, layers in rows) + "]")
    lines = [
        "```mermaid",
        "xychart-beta",
        f"    title {_label(title)}",
        "    x-axis [" + ", ".join(_label(name) for name, _ in rows) + "]",
        f'    y-axis "GiB per GPU" 0 --> {int(-(-top // 10) * 10)}',
        *(f"    bar {s}" for s in series),
        "```",
        "",
        LEGEND,
    ]
    return "\n".join(lines) + "\n"
