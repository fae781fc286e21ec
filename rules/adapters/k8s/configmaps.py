"""ConfigMap -> :class:`ConfigMap`: its literal ``data``, each key with its line (SW308 looks for tokens
in it; SW306 reads the variables an ``envFrom`` takes from it)."""

from __future__ import annotations

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
