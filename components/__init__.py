"""Pulumi components for serving LLMs with vLLM on EKS.

Each component takes a typed ``…Args`` dataclass whose fields map onto the specs of
:mod:`shardwise.rules.model.spec` (the schema ``shardwise lint`` reads stack configs with); names, ARNs,
images, ids and namespaces accept ``pulumi.Input`` values. The arguments are validated with the
shardwise rules before any child resource is declared (one :class:`ArgumentsError` — a
``pulumi.InputPropertyError`` — lists every problem with its property path), and the Kubernetes
objects and AWS plans come from :mod:`shardwise.rules.render`.

>>> from shardwise.components import VllmService, VllmServiceArgs  # doctest: +SKIP

Needs the ``pulumi`` extra: ``pip install 'shardwise[pulumi]'``.
"""

try:
    import pulumi  # noqa: F401
    import pulumi_aws  # noqa: F401
    import pulumi_kubernetes  # noqa: F401
except ImportError as _missing:  # pragma: no cover - exercised by tests/test_wheel.py
    raise ImportError(
        f"shardwise.components needs the Pulumi SDKs ({_missing.name} is not installed): "
        "pip install 'shardwise[pulumi]'"
    ) from None

from .cluster import EksCluster, EksClusterArgs
from .environment import ServingEnvironment, ServingEnvironmentArgs
from .errors import ArgumentsError
from .multinode import VllmMultiNode, VllmMultiNodeArgs
from .network import RuntimeNetwork, RuntimeNetworkArgs
from .nodepool import GpuNodePool, GpuNodePoolArgs
from .router import InferenceRouter, InferenceRouterArgs
from .validation import Validation
from .vllm import VllmService, VllmServiceArgs

__all__ = [
    "ArgumentsError",
    "EksCluster",
    "EksClusterArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "InferenceRouter",
    "InferenceRouterArgs",
    "RuntimeNetwork",
    "RuntimeNetworkArgs",
    "ServingEnvironment",
    "ServingEnvironmentArgs",
    "Validation",
    "VllmMultiNode",
    "VllmMultiNodeArgs",
    "VllmService",
    "VllmServiceArgs",
]
