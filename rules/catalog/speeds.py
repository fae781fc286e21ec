"""Datasheet speeds of a GPU (``data/speeds.json``): memory bandwidth, dense 16-bit tensor throughput and the
bandwidth of the link tensor parallelism all-reduces over. They feed the decode-throughput estimate
(:mod:`..capacity.throughput`); a GPU without a record has no estimate."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass

from ..model.errors import CatalogError
from .lookup import gpus

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "speeds.json")


@dataclass(frozen=True)
class GpuSpeed:
    gpu: str  # canonical GpuInfo.name
    memory_bandwidth_gb_s: float  # peak, 10^9 bytes per second
    dense_16bit_tflops: float  # peak dense BF16 (FP16) tensor throughput, no sparsity
    link: str  # "nvlink", "pcie", "fabric"
    link_gb_s: float  # one GPU to its peers, one direction
    source: str
    note: str = ""


@functools.cache
def speeds() -> dict[str, GpuSpeed]:
    """Every record, by GPU name; a record naming a GPU the catalog lacks, or without an https source, is an
    error in the shipped catalog."""
    try:
        with open(_PATH, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise CatalogError(f"cannot read the GPU speeds: {exc}", file=_PATH) from None
    known = gpus()
    out: dict[str, GpuSpeed] = {}
    for entry in raw["gpus"]:
        speed = GpuSpeed(**entry)
        if speed.gpu not in known:
            raise CatalogError(f"speeds of {speed.gpu!r}, which is not in gpus.json", file=_PATH)
        if not speed.source.startswith("https://"):
            raise CatalogError(f"speeds of {speed.gpu!r} need an https source URL", file=_PATH)
        out[speed.gpu] = speed
    return out


def speed_of(gpu_name: str) -> GpuSpeed | None:
    """The datasheet speeds of the GPU (canonical name), or None when the catalog has none."""
    return speeds().get(gpu_name)
