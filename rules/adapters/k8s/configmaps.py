"""ConfigMap and Secret -> :class:`ConfigMap`: the literal ``data`` (a Secret's decoded from base64, and its
``stringData``), each key with its line. SW308 looks for tokens in both; SW306 reads the variables an
``envFrom`` takes from a ConfigMap.

A ConfigMap may also hold NVIDIA device plugin configurations, one a key (the ConfigMap the GPU operator's
``ClusterPolicy`` names in ``devicePlugin.config.name``, the device plugin chart's ``config.map``): ``version: v1``
with ``sharing.timeSlicing`` or ``sharing.mps``, whose ``resources`` advertise each GPU ``replicas`` times
(github.com/NVIDIA/k8s-device-plugin, "Shared Access to GPUs"; NVIDIA GPU operator documentation, "Time-Slicing
GPUs in Kubernetes"). Each such key is read into :attr:`ConfigMap.device_plugin`: how it shares ``nvidia.com/gpu``.
A resource renamed (``renameByDefault: true``, or its own ``rename``) is advertised as another name, so the plain
``nvidia.com/gpu`` of those nodes is not shared; ``replicas`` of 1 shares nothing."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, ConfigMap, Inventory, Location
from ...model.vocab import GPU_RESOURCE
from ..yamlsrc import load_documents
from .fields import as_list, as_map, line_of, read_annotations, suppressions_from, typed_map

#: The sharing strategies of the device plugin's configuration (``sharing.<key>``), as the rules name them.
_STRATEGIES = (("timeSlicing", "time-slicing"), ("mps", "mps"))


def add_config_map(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta = as_map(obj.get("metadata"))
    ann, lines = read_annotations(meta)
    data = typed_map(obj, "data", "data", loc)
    cm = ConfigMap(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    )
    for key, value in data.items():
        cm.data[str(key)] = UNKNOWN if value is UNKNOWN else "" if value is None else str(value)
        cm.key_locations[str(key)] = Location(loc.file, line_of(data, key) or loc.line)
        text = cm.data[str(key)]
        if isinstance(text, str) and "version" in text and ("sharing" in text or "flags" in text):
            config = _device_plugin_config(text, loc.file or "")
            if config is not None:
                cm.device_plugin[str(key)] = _gpu_shares(config)
    inv.config_maps.append(cm)


def _device_plugin_config(text: str, file: str) -> dict[str, Any] | None:
    """The device plugin configuration a ConfigMap's value holds (``version: v1`` and a ``sharing`` or ``flags``
    mapping), or None for any other value, or one that cannot be parsed (a template, a script)."""
    docs = load_documents(text, file)
    if len(docs) != 1 or not isinstance(docs[0][1], Mapping):
        return None
    config = docs[0][1]
    if str(config.get("version")) != "v1" or not (isinstance(config.get("sharing"), Mapping)
                                                   or isinstance(config.get("flags"), Mapping)):
        return None
    return dict(config)


def _gpu_shares(config: Mapping[str, Any]) -> tuple[str, int] | None:
    """How a device plugin configuration shares ``nvidia.com/gpu``: (strategy, replicas), or None where it
    advertises it whole."""
    sharing = as_map(config.get("sharing"))
    for key, strategy in _STRATEGIES:
        part = as_map(sharing.get(key))
        renamed = part.get("renameByDefault") is True
        for resource in as_list(part.get("resources")):
            resource = as_map(resource)
            if resource.get("name") != GPU_RESOURCE or renamed or resource.get("rename"):
                continue
            replicas = resource.get("replicas")
            if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas > 1:
                return strategy, replicas
    return None


def _decoded(value: str) -> str:
    """A Secret's ``data`` value as the API server stores it (base64, line breaks ignored); a value that is not
    base64 is kept as written, since a token pasted there unencoded is in the file all the same."""
    try:
        raw = base64.b64decode("".join(value.split()), validate=True)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return value


def add_secret(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """A Secret's values, for SW308: what a committed Secret holds is in the repository."""
    meta = as_map(obj.get("metadata"))
    ann, lines = read_annotations(meta)
    secret = ConfigMap(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
        kind="Secret",
    )
    for part in ("data", "stringData"):  # stringData wins over data for the same key, as in the API server
        values = typed_map(obj, part, part, loc)
        for key, value in values.items():
            if value is UNKNOWN:
                text: Any = UNKNOWN
            elif value is None:
                text = ""
            else:
                text = _decoded(str(value)) if part == "data" else str(value)
            secret.data[str(key)] = text
            secret.key_locations[str(key)] = Location(loc.file, line_of(values, key) or loc.line)
    inv.config_maps.append(secret)
