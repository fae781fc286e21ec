"""The torch-level terms the capacity model charges against what ``benchmarks/gpu/torch_terms.py`` measured on a GPU.

The JSON files are data (the figures one run printed); these tests read them and hold the estimates to them, so a
new measurement that moves a figure fails here until the model and docs/capacity-model.md say what it changes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from shardwise.rules.capacity.estimates import DEFAULT_ESTIMATES

GPU_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu"
H200_TORCH211 = GPU_DIR / "torch_terms-h200-torch2.11.json"
MIB_PER_GIB = 1024


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _peaks(data: dict[str, Any], rows: range) -> list[float]:
    """Bytes per logit of every sampler measured at a row count in ``rows``: V1's, V0's and the bare sort's."""
    return [row[kind]["bytes_per_logit"] for row in data["sampler"] if row["rows"] in rows
            for kind in ("v1", "v0", "sort")]


#: the three paths of PyTorch's sort (``launch_stable_sort_kernel``) by the number of rows
BANDS = {"one row": range(1, 2), "2 - 127 rows": range(2, 128), "from 128 rows": range(128, 1 << 20)}


def test_the_h200_run_measured_the_four_vocabularies_at_every_row_count():
    data = _load(H200_TORCH211)
    assert (data["gpu"], data["torch"]) == ("NVIDIA H200", "2.11.0+cu130")
    assert sorted({row["vocab"] for row in data["sampler"]}) == [128_256, 151_936, 201_088, 262_144]
    assert sorted({row["rows"] for row in data["sampler"]}) == [
        1, 2, 8, 32, 64, 100, 127, 128, 129, 192, 256, 384, 512, 768, 1024]


def test_the_sorts_measured_peaks_per_path():
    data = _load(H200_TORCH211)
    assert {band: (min(_peaks(data, rows)), max(_peaks(data, rows))) for band, rows in BANDS.items()} == {
        "one row": (38.225, 38.279), "2 - 127 rows": (50.191, 51.055), "from 128 rows": (38.0, 38.182)}


@pytest.mark.parametrize("path", sorted(GPU_DIR.glob("torch_terms-*.json")), ids=lambda p: p.name)
def test_the_sort_is_charged_the_largest_peak_measured_rounded_up_to_a_tenth(path):
    # each path of the sort is charged the largest peak measured on it, V1's, V0's and the bare sort's alike, over
    # every vocabulary, rounded up to 0.1 B a logit: nothing measured is above the charge, and the charge is within
    # 0.1 B of what was measured
    data = _load(path)
    for rows in BANDS.values():
        charged = DEFAULT_ESTIMATES.sort_bytes(rows.start)
        assert charged == math.ceil(max(_peaks(data, rows)) * 10) / 10
        assert all(DEFAULT_ESTIMATES.sort_bytes(r) == charged for r in (rows.start, min(rows.stop - 1, 1024)))


def test_the_allocator_slack_term_is_the_samplers_measured_slack():
    # 2 - 27 MiB reserved beyond the peak allocated over the sampler's sequence from an empty cache, the state vLLM's
    # warm-up starts from (the profile empties the cache, the KV cache is allocated whole, the graphs keep their own
    # pool): the slack term is the largest of them (0.026 GiB), with a 0.1 GiB band for other GPUs and releases
    data = _load(H200_TORCH211)
    slack = [row[kind]["slack_mib"] for row in data["sampler"] for kind in ("v1", "v0", "sort")]
    assert (min(slack), max(slack)) == (0.0, 27.0)
    e = DEFAULT_ESTIMATES
    assert e.allocator_slack_gib == 0.026 and round(e.allocator_slack_gib * MIB_PER_GIB) == max(slack)
    assert e.allocator_slack_error_gib == 0.1


def test_the_cuda_context_at_the_first_call_is_inside_the_context_terms_band():
    # 526.8 MiB outside torch's allocator at the first call (lazy module loading, CUDA's default and vLLM's): what
    # is allocated before vLLM's first snapshot on one GPU; the model charges 0.5 GiB with a 0.15 GiB band
    data = _load(H200_TORCH211)
    context = data["outside_torch"]["lazy"]["after_init"]["outside_torch_mib"] / MIB_PER_GIB
    e = DEFAULT_ESTIMATES
    assert round(context, 3) == 0.514
    assert abs(context - e.cuda_context_gib) <= e.context_error_gib
