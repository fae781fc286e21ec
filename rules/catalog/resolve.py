"""A serving group's model -> its :class:`~shardwise.rules.catalog.types.ModelShape`.

:func:`resolve_model` looks the model a vLLM server names up in the catalog (or reads a local
``config.json`` given by path), honouring the ``shardwise.dev/base-model`` annotation, and records
either the shape or why it could not be found on the group.
"""

from __future__ import annotations

import os
from typing import Any

from ..adapters.vllm_args import is_unresolved
from ..errors import CatalogError
from ..model import UNKNOWN, UNKNOWN_TOKEN, ServingGroup
from ..vocab import ANN_BASE_MODEL


def _looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or model.endswith(".json")


_MODEL_CACHE: dict[tuple[str, str | None], Any] = {}  # (id, base) -> ModelShape | CatalogError


def _find_model(model: str, base: str | None) -> Any:
    """``catalog.find_model``, memoised: thousands of manifests name the same few models."""
    key = (model, base)
    found = _MODEL_CACHE.get(key)
    if found is None:
        from .. import catalog

        try:
            found = catalog.find_model(model, base)
        except CatalogError as err:
            found = err
        if len(_MODEL_CACHE) < 4096:
            _MODEL_CACHE[key] = found
    if isinstance(found, CatalogError):
        raise CatalogError(found.message, found.file, found.line)  # a fresh one: no traceback piles up
    return found


def resolve_model(group: ServingGroup, base_dir: str | None = None) -> None:
    """Set ``group.model`` from the catalog (or a local ``config.json``), or ``group.model_error``."""
    from .. import catalog

    model = group.engine.model
    loc = group.engine.locations.get("model", group.location)
    if not isinstance(model, str) or not model:
        return
    if UNKNOWN_TOKEN in model:
        group.engine.model = UNKNOWN  # a computed value: rules that need the model say they cannot decide
        return
    if is_unresolved(model):
        named = group.annotations.get(ANN_BASE_MODEL)
        if named:  # the annotation says which catalog model the reference holds
            try:
                group.model = _find_model(named, None)
            except CatalogError as err:
                group.model_error = f"{loc}: {ANN_BASE_MODEL}: {err.message}"
            return
        group.engine.model = UNKNOWN
        group.model_unknown = (
            f"it is {model}, set from a Secret, ConfigMap or the downward API; name the model in the "
            "container's env or args, or its catalog model in the annotation shardwise.dev/base-model"
        )
        return
    base = group.annotations.get(ANN_BASE_MODEL) or None
    local = _local_model_path(model, base_dir) if _looks_like_path(model) else None
    try:
        if local is not None:
            group.model = catalog.load_local_model(local)
        else:
            group.model = _find_model(model, base)
        return
    except CatalogError as err:
        first = err
    if _looks_like_path(model) and base is None:
        try:  # /models/Llama-3.1-8B-Instruct: the directory is often named after the repository
            group.model = _find_model(os.path.basename(model.rstrip("/")), None)
            return
        except CatalogError:
            pass
    where = f"{first.file}:{first.line}: " if first.file and first.file != loc.file and first.line else ""
    group.model_error = f"{loc}: {where}{first.message}"


def _local_model_path(model: str, base_dir: str | None) -> str | None:
    expanded = os.path.expanduser(model)
    candidates = [expanded] if os.path.isabs(expanded) else [os.path.join(base_dir or ".", expanded), expanded]
    for path in candidates:
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "config.json")):
            return path
        if path.endswith(".json") and os.path.isfile(path):
            return path
    return None

