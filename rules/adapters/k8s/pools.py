"""Node labels -> :class:`~shardwise.rules.model.NodePool`: read by the Kubernetes adapter, kept in
:mod:`shardwise.rules.catalog.hardware` (the hardware vocabulary's one home, below the adapters, plan and
the components)."""

from __future__ import annotations

from ...catalog.hardware import MAX_GPU_MEMORY_GIB, pool_from_labels

__all__ = ["MAX_GPU_MEMORY_GIB", "pool_from_labels"]
