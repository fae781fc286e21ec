"""ConfigMap and Secret -> :class:`ConfigMap`: the literal ``data`` (a Secret's decoded from base64, and its
``stringData``), each key with its line. SW308 looks for tokens in both; SW306 reads the variables an
``envFrom`` takes from a ConfigMap."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, ConfigMap, Inventory, Location
from .fields import as_map, line_of, read_annotations, suppressions_from, typed_map


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
    inv.config_maps.append(cm)


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
