"""``vllm serve`` options that take no value, per vLLM release read: written with one (``--enforce-eager=true``,
``--trust-remote-code true``) they make vLLM's argument parser exit at start-up.

argparse gives an option of ``action="store_true"`` (``store_false``, ``store_const``, ``count``) or
``BooleanOptionalAction`` ``nargs=0``: ``--flag=VALUE`` ends the process with "argument --flag: ignored explicit
argument 'VALUE'", and ``--flag VALUE`` leaves VALUE a positional word that nothing takes once the model is given
("unrecognized arguments: VALUE"), exit code 2, before anything loads; the pod crash-loops. vLLM's
``FlexibleArgumentParser`` passes ``--flag=VALUE`` on as it is (it only turns ``_`` into ``-`` in the name) and
converts no ``true``/``false`` word. Which options take no value changes by release: the 0.5 and 0.6 releases add
``--enable-chunked-prefill`` with ``StoreBoolean`` (``nargs="?"``: ``--enable-chunked-prefill=false`` is taken
there), and from 0.9 a config field typed ``bool`` becomes ``BooleanOptionalAction`` (``--no-enforce-eager`` too).

``catalog/data/vllm_switches.txt`` is written by ``benchmarks/collect_vllm_switches.py`` from each release's source
distribution on PyPI (the releases of :data:`~shardwise.rules.vllm.options.OPTION_RELEASES`), erring towards
silence: an option counts only where every definition of it in the files that build the serve parser surely takes no
value (an option added in a loop, such as the frontend's ``FrontendArgs`` fields, is left out). A release not read
has no entry, and nothing is judged there. The file is read lazily: only when a flag written with a value is judged.
"""

from __future__ import annotations

import functools
import os

_DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "catalog", "data", "vllm_switches.txt")


@functools.cache
def _load() -> dict[str, frozenset[str]]:
    """Per release read, its options that take no value: the union of the names, then ``@RELEASE MASK`` lines (bit
    i of the little-endian hex mask: the i-th name)."""
    with open(_DATA, encoding="utf-8") as f:
        lines = f.read().split("\n")
    names = [line for line in lines if line and line[0] not in "@#"]
    out = {}
    for line in lines:
        if line[:1] == "@":
            release, _, mask = line[1:].partition(" ")
            bits = int.from_bytes(bytes.fromhex(mask), "little")
            out[release] = frozenset(n for i, n in enumerate(names) if bits >> i & 1)
    return out


def takes_no_value(name: str, release: str) -> bool:
    """Whether ``--name`` (dashed, without ``--``) surely takes no value at ``release`` (a release number as the
    option tables write it, ``0.6.3``); False for a release not read."""
    found = _load().get(release)
    return found is not None and name in found


def releases_read() -> frozenset[str]:
    return frozenset(_load())
