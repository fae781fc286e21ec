"""CNDI's configuration and templates: the Kubernetes manifests written under ``cluster_manifests``.

A ``cndi_config.yaml`` holds, besides its cloud and Helm applications, ``cluster_manifests``: a mapping of a file name
to a Kubernetes manifest. ``cndi overwrite`` writes each to ``cndi/cluster_manifests/<name>.yaml``, Argo CD applies them
(polyseam/cndi v3.1.1 README.md, "cluster_manifests - used for arbitrary Kubernetes configuration";
src/commands/overwrite.ts, "write each manifest in the "cluster_manifests" section of the config to
`cndi/cluster_manifests`"). A CNDI template (``cndi create``'s, templates/*.yaml) holds the same configuration under
``outputs.cndi_config``, with ``{{ $cndi.get_prompt_response(...) }}`` placeholders the prompts fill (polyseam/cndi
templates/vllm.yaml: a vLLM Deployment so). The file was skipped as "YAML that is not a Kubernetes object" and the
vLLM server it deploys passed in silence (corpus45). An entry that is a ``$cndi.get_block(url)`` reference is a block
CNDI fetches when it renders the template: not in the input, so not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .yamlsrc import LineDict

#: Why a CNDI configuration or template whose ``cluster_manifests`` write no Kubernetes object in the file is not read.
CNDI_NO_MANIFESTS = ("CNDI configuration or template whose cluster_manifests hold no Kubernetes object written in this "
                     "file (its applications are Helm charts CNDI's Argo CD installs, and a $cndi.get_block reference "
                     "is fetched when the template is rendered; neither is read)")

#: Keys of a ``cndi_config.yaml`` beside ``cluster_manifests`` (src/cndi_config/types.ts, v3.1.1).
_CONFIG_KEYS = frozenset({"cndi_version", "project_name", "provider", "distribution", "infrastructure",
                          "applications"})


#: A CNDI template's placeholder (``{{ $cndi.get_prompt_response(hf_model) }}``, filled by ``cndi create`` from the
#: answers to its prompts) or a value ``cndi overwrite`` computes (``$cndi_on_ow.seal_secret_from_env_var(TOKEN)``):
#: a value the file names but that does not exist yet (polyseam/cndi v3.1.1 src/use-template/README.md and mod.ts,
#: src/commands/overwrite.ts).
#: Group 1 (a placeholder) or 2 (a computed value): the prompt or variable it names.
_PLACEHOLDER = re.compile(r"\{\{\s*\$cndi[\w.]*\(\s*([\w.-]*)[^{}]*\}\}|\$cndi(?:_on_ow)?\.\w+\(\s*([\w.-]*)[^()]*\)")


def _angled(m: re.Match[str]) -> str:
    """A CNDI placeholder as the angle-bracket placeholder a template's user fills (``<hf_model>``): read as a value
    not known yet in a command line, exec form or script alike (:func:`..model.unknown.is_angle_placeholder`)."""
    name = m.group(1) or m.group(2) or ""
    return f"<{name}>" if name[:1].isalpha() else "<cndi-value>"


def _unknowns(value: Any, seen: set[int], depth: int = 0) -> Any:
    """``value`` with each CNDI placeholder in its strings written as a template's placeholder (in place in mappings
    and lists, which keep their lines). ``seen``: the containers already walked, each once (a YAML alias shares one
    object many times: an alias bomb is walked in linear time)."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(_angled, value) if "$cndi" in value else value
    if depth > 64 or not isinstance(value, dict | list) or id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, dict):
        for key in list(value):
            value[key] = _unknowns(value[key], seen, depth + 1)
    else:
        for i, item in enumerate(value):
            value[i] = _unknowns(item, seen, depth + 1)
    return value


def _config_of(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The CNDI configuration ``doc`` is or holds (a template's ``outputs.cndi_config``), None for any other mapping."""
    outputs = doc.get("outputs")
    if isinstance(outputs, Mapping):
        inner = outputs.get("cndi_config")
        if isinstance(inner, Mapping) and isinstance(inner.get("cluster_manifests"), Mapping):
            return inner
    if isinstance(doc.get("cluster_manifests"), Mapping) and any(k in doc for k in _CONFIG_KEYS):
        return doc
    return None


def _block_reference(entry: Mapping[str, Any]) -> bool:
    """Whether ``entry`` is a ``$cndi.get_block(...)`` reference (and its condition), not a manifest."""
    return bool(entry) and all(isinstance(k, str) and k.startswith("$cndi") for k in entry)


def cndi_manifests(docs: list[tuple[int | None, Any]]) -> list[tuple[int | None, Any]] | None:
    """The manifests written under the ``cluster_manifests`` of the CNDI configurations or templates among ``docs``
    (parsed YAML documents with their lines), as documents for the manifest reader; None when no document is one.
    A block reference is left out; any other entry is handed on as it is (one that is no object is an input error
    there, as kubectl would refuse the file CNDI writes from it)."""
    found = False
    out: list[tuple[int | None, Any]] = []
    seen: set[int] = set()
    for _, doc in docs:
        if not isinstance(doc, Mapping):
            continue
        config = _config_of(doc)
        if config is None:
            continue
        found = True
        manifests = config["cluster_manifests"]
        for key, entry in manifests.items():
            if isinstance(entry, Mapping) and _block_reference(entry):
                continue
            out.append((manifests.line_of(key) if isinstance(manifests, LineDict) else None, _unknowns(entry, seen)))
    return out if found else None
