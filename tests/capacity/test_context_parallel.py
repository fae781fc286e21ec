"""engine22: prefill context parallelism adds GPUs to an engine (vLLM's world size is TP × PP × PCP), decode context
parallelism adds none (config/parallel.py of the 0.12.0, 0.25.1, 0.26.0 and 0.28.0 wheels)."""

from __future__ import annotations

from shardwise.rules.capacity.group import Layout
from shardwise.rules.capacity.layout import Parallel


def test_a_layout_counts_prefill_context_parallel_ranks():
    lay = Layout(tp=2, pp=1, dp=1, dp_local=None, pods=1, pcp=2)
    assert (lay.engine, lay.world, lay.per_pod, lay.text()) == (4, 4, 4, "TP2×PP1×PCP2")
    spread = Layout(tp=1, pp=2, dp=2, dp_local=1, pods=2, pcp=2)
    assert (spread.engine, spread.world, spread.per_pod, spread.text()) == (4, 8, 4, "TP1×PP2×PCP2×DP2")
    plain = Layout(tp=4, pp=1, dp=1, dp_local=None, pods=1)
    assert (plain.engine, plain.world, plain.text()) == (4, 4, "TP4×PP1")


def test_the_layout_search_counts_them_too():
    p = Parallel(1, 1, 2, False, pcp=2)
    assert (p.gpus, p.world, p.text()) == (2, 4, "TP1×PP1×PCP2×DP2")
    assert Parallel(2).gpus == 2
