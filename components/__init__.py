"""Pulumi components for serving LLMs with vLLM on EKS.

Each takes the typed specs of :mod:`shardwise.rules.spec`, validates them with the shardwise rules
before declaring any child resource, and renders its Kubernetes objects and AWS plans with
:mod:`shardwise.rules.render` (the same functions ``shardwise lint`` reads stack files with).

>>> from shardwise.components import VllmService  # doctest: +SKIP
"""

from .environment import ServingEnvironment
from .multinode import VllmMultiNode
from .network import RuntimeNetwork
from .nodepool import GpuNodePool
from .router import InferenceRouter
from .validation import validate_environment
from .vllm import VllmService

__all__ = [
    "GpuNodePool",
    "InferenceRouter",
    "RuntimeNetwork",
    "ServingEnvironment",
    "VllmMultiNode",
    "VllmService",
    "validate_environment",
]
