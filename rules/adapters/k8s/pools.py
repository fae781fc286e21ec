"""A stale re-export left by a move: node labels are read by :mod:`shardwise.rules.catalog.hardware`. Its one
importer left is ``adapters/pulumi/aws.py``; import from the catalog there and delete this module."""

from __future__ import annotations

from ...catalog.hardware import MAX_GPU_MEMORY_GIB, pool_from_labels

__all__ = ["MAX_GPU_MEMORY_GIB", "pool_from_labels"]
