"""A Flux ``HelmRelease`` of a chart whose rendering shardwise knows, read as the workloads it renders.

Flux renders a HelmRelease's chart in the cluster; when the chart is in this checkout, :mod:`..gitops` renders it
here with helm. A chart from a Helm or OCI repository is not fetched, so its pods are not in the inputs, except for
charts whose rendering of the values is known and modelled:

- bjw-s' ``app-template`` (:mod:`.apptemplate`): the chart ``spec.chart.spec.chart: app-template``, or a
  ``spec.chartRef`` naming ``app-template`` (the OCIRepository home-ops repositories name after the chart);
- llm-d's ``llm-d-modelservice`` (:mod:`.modelservice`): ``spec.chart.spec.chart: llm-d-modelservice`` (or a
  ``chartRef`` of that name).

The values are ``spec.values``. A release that also takes ``valuesFrom`` (ConfigMaps or Secrets in the cluster,
which the inputs do not hold and which override the inline values) or ``postRenderers`` (patches over the rendered
chart) is not read: what it renders is not known here, and SW005 says why, as for any other HelmRelease. The release
name is ``spec.releaseName``, else ``[targetNamespace-]name``; the namespace ``targetNamespace``, else the object's
(Flux's defaults). Each rendered object is read at the line its values are written on, as the manifest reader reads a
plain object, and carries the HelmRelease's annotations (its ``shardwise.dev/ignore`` suppressions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Inventory, Location
from ..yamlsrc import LineDict
from .apptemplate import app_template_objects
from .dispatch import add_object
from .fields import as_map
from .modelservice import modelservice_objects

#: The charts read here, by the name a HelmRelease gives them.
APP_TEMPLATE, MODELSERVICE = "app-template", "llm-d-modelservice"


def chart_of(spec: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the chart's name, the kind of its source) of a HelmRelease's spec: ``chart.spec.chart`` and its
    ``sourceRef.kind``, or ``chartRef``'s name and kind."""
    chart = as_map(as_map(spec.get("chart")).get("spec"))
    if chart:
        name = chart.get("chart")
        return (str(name) if isinstance(name, str) else None), str(as_map(chart.get("sourceRef")).get("kind") or "")
    ref = as_map(spec.get("chartRef"))
    if ref:
        return (str(ref["name"]) if isinstance(ref.get("name"), str) else None), str(ref.get("kind") or "")
    return None, None


def rendered_objects(obj: Mapping[str, Any]) -> list[LineDict] | None:
    """The objects a HelmRelease's known chart renders from its inline values; None when its chart is not one
    modelled here or what it renders is not known (``valuesFrom``, ``postRenderers``, a chart in a GitRepository,
    which :mod:`..gitops` renders itself)."""
    spec = as_map(obj.get("spec"))
    name, source = chart_of(spec)
    if name is None or source == "GitRepository" or spec.get("valuesFrom") or spec.get("postRenderers"):
        return None
    values = spec.get("values")
    if not isinstance(values, dict):
        return None
    meta = as_map(obj.get("metadata"))
    target = spec.get("targetNamespace")
    release = str(spec.get("releaseName") or (f"{target}-{meta.get('name')}" if target else meta.get("name") or ""))
    namespace = str(target or meta.get("namespace") or "") or None
    annotations = as_map(meta.get("annotations")) or None
    if name == APP_TEMPLATE and isinstance(values.get("controllers"), dict):
        return app_template_objects(values, release, namespace, annotations)
    if name == MODELSERVICE:
        return modelservice_objects(values, release, namespace, annotations)
    return None


def add_helm_release(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Any) -> bool:
    """Read the objects a HelmRelease of a known chart renders (:func:`rendered_objects`); False when none was read
    (the object is then counted as not read, and SW005 says why where it names vLLM)."""
    objs = rendered_objects(obj)
    if not objs:
        return False
    marks = len(inv.groups), len(inv.launch_issues)
    for o in objs:
        add_object(o, Location(loc.file, o.line or loc.line), inv, ctx)
    return (len(inv.groups), len(inv.launch_issues)) != marks
