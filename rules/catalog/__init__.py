"""Shipped catalogs of GPUs, AWS GPU instance types and model shapes, and their lookups.

The data lives in ``data/*.json`` beside this module. Every entry names the public page its
numbers come from (``source``). Files are read lazily, once, with the standard library only, so
importing this module costs next to nothing.

Lookups are forgiving about spelling and strict about meaning:

- :func:`find_gpu` accepts canonical names, common spellings (``"H100"``, ``"h100 sxm"``), GPU
  Feature Discovery product labels (``"NVIDIA-H100-80GB-HBM3"``) and Karpenter GPU names
  (``"h100"``). Bare family names that exist in several memory sizes resolve to one documented
  default (bare ``"A100"`` is the 40 GB SXM4 part that ``p4d.24xlarge`` carries); pass
  ``memory_mib`` (the ``nvidia.com/gpu.memory`` or ``karpenter.k8s.aws/instance-gpu-memory`` label)
  to pick the right size.
- :func:`find_model` accepts Hugging Face ids, old names and quantised re-uploads
  (``hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4``), which resolve to the base model's
  shape with the precision the name states.
- :func:`load_local_model` reads a Hugging Face ``config.json`` given by path (see
  :mod:`~shardwise.rules.catalog.hfconfig` for the parameter count and quantisation rules).

Every failure is a :class:`~shardwise.rules.model.errors.CatalogError` that names what was asked for
and, where possible, the closest known names.

The lookups live in :mod:`.lookup`, the Hugging Face ``config.json`` reader in :mod:`.hfconfig`; this face
re-exports their public names (import from here).
"""

from typing import TYPE_CHECKING, Any

from ..model.errors import CatalogError
from ..model.shapes import (
    GpuInfo,
    InstanceType,
    Interconnect,
    MlaShape,
    ModelShape,
    MoeShape,
    Precision,
    Vendor,
)
from .lookup import (
    find_gpu,
    find_instance,
    find_model,
    find_model_exact,
    gpus,
    instance_types,
    instances_for_gpu,
    models,
    resolve_precision_from_name,
)

if TYPE_CHECKING:
    from .hfconfig import (
        HF_CONFIG_KEYS,
        derive_params,
        derive_vision_params,
        load_local_model,
        shape_from_config,
        weight_bytes_per_param,
    )

#: The names of :mod:`.hfconfig` this face re-exports: that module (the ``config.json`` reader, the largest of the
#: package) is imported on the first use of one of them, not with the package (a lint of models the catalog holds
#: never reads a ``config.json``: start-up time).
_FROM_HFCONFIG = frozenset({"HF_CONFIG_KEYS", "derive_params", "derive_vision_params", "load_local_model",
                            "shape_from_config", "weight_bytes_per_param"})


def __getattr__(name: str) -> Any:
    if name in _FROM_HFCONFIG:
        from . import hfconfig

        value = getattr(hfconfig, name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "CatalogError",
    "GpuInfo",
    "InstanceType",
    "Interconnect",
    "MlaShape",
    "ModelShape",
    "MoeShape",
    "Precision",
    "Vendor",
    "HF_CONFIG_KEYS",
    "derive_params",
    "derive_vision_params",
    "find_gpu",
    "find_instance",
    "find_model",
    "find_model_exact",
    "gpus",
    "instance_types",
    "instances_for_gpu",
    "load_local_model",
    "models",
    "resolve_precision_from_name",
    "shape_from_config",
    "weight_bytes_per_param",
]
