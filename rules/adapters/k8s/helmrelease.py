"""A Flux ``HelmRelease`` or Argo CD ``Application`` of a chart whose rendering shardwise knows, read as the workloads
it renders.

Flux renders a HelmRelease's chart in the cluster; when the chart is in this checkout, :mod:`..gitops` renders it
here with helm. A chart from a Helm or OCI repository is not fetched, so its pods are not in the inputs, except for
charts whose rendering of the values is known and modelled:

- bjw-s' ``app-template`` (:mod:`.apptemplate`): the chart ``spec.chart.spec.chart: app-template``, or a
  ``spec.chartRef`` naming ``app-template`` (the OCIRepository home-ops repositories name after the chart);
- llm-d's ``llm-d-modelservice`` (:mod:`.modelservice`): ``spec.chart.spec.chart: llm-d-modelservice`` (or a
  ``chartRef`` of that name);
- vLLM's production-stack ``vllm-stack`` (:mod:`.prodstack`): ``spec.chart.spec.chart: vllm-stack`` at a
  ``version`` that names one of the releases read there exactly (a range, or a ``chartRef`` whose version the
  OCIRepository holds, is resolved in the cluster: not read).

The values are ``spec.values``. A release that also takes ``valuesFrom`` (ConfigMaps or Secrets, which Flux merges
in order under the inline values, ``spec.values`` last: :func:`values_from_why`) or ``postRenderers`` (patches
over the rendered chart) is not read: what it renders is not known here, and SW005 says why, as for any other
HelmRelease. The release name is ``spec.releaseName``, else ``[targetNamespace-]name``; the namespace
``targetNamespace``, else the object's
(Flux's defaults). Each rendered object is read at the line its values are written on, as the manifest reader reads a
plain object, and carries the HelmRelease's annotations (its ``shardwise.dev/ignore`` suppressions).

An Argo CD ``Application`` is read the same way for each of its sources (``spec.source``, ``spec.sources``) that
names a chart of a Helm repository (``chart``, which the GitOps reader never renders): its values are
``helm.valuesObject``, else ``helm.values`` (a YAML text, read at the lines it is written on), as Argo CD's
``ValuesYAML`` picks them; a source that also takes ``valueFiles`` (files of the chart or of another source,
``$values/...``), ``parameters`` or ``fileParameters`` is not read (values the inputs do not hold, or overrides not
modelled). The release is ``helm.releaseName``, else the Application's name; the namespace
``spec.destination.namespace``; the chart's version ``targetRevision``.

An input error in a rendered object (a value Kubernetes would refuse) names the values key the user wrote
(``values.controllers.vllm.replicas``, rendered as ``spec.replicas``), found by the line it is written on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Inventory, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict, _parse
from .apptemplate import app_template_objects
from .dispatch import add_object
from .fields import as_list, as_map
from .modelservice import modelservice_objects, version_why
from .prodstack import (
    VERSIONS,
    chart_version,
    is_prodstack_values,
    older_release_why,
    prodstack_objects,
    refusal,
)

#: The charts read here, by the name a HelmRelease gives them.
APP_TEMPLATE, MODELSERVICE, PRODSTACK = "app-template", "llm-d-modelservice", "vllm-stack"


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


def chart_objects(name: str, version: Any, values: Mapping[str, Any], release: str, namespace: str | None,
                  annotations: Mapping[str, Any] | None) -> list[LineDict] | None:
    """The objects chart ``name`` (at ``version``, as the GitOps object names it) renders from ``values``; None when
    the chart is not one modelled here, or not at a version modelled."""
    if name == APP_TEMPLATE and isinstance(values.get("controllers"), dict):
        return app_template_objects(values, release, namespace, annotations)
    if name == MODELSERVICE:
        return None if version_why(version) else modelservice_objects(values, release, namespace, annotations)
    if name == PRODSTACK and is_prodstack_values(values):
        n = chart_version(version)
        return None if n is None else prodstack_objects(values, n, release, namespace, annotations)
    return None


def modelled_why(chart: str, version: Any, spec: Mapping[str, Any], values: Any = None) -> str | None:
    """Why a GitOps object of a chart modelled here (its ``chart`` and ``version``; a HelmRelease's ``spec``, or an
    Argo CD source's ``helm``; its inline ``values``) was not read, or None when nothing here says so: the words
    SW005 gives in place of "not fetched", which would be no reason for these charts."""
    if chart not in (APP_TEMPLATE, MODELSERVICE, PRODSTACK):
        return None
    if spec.get("postRenderers"):
        return "its postRenderers (kustomize patches over the rendered chart) are Flux's to apply: not rendered"
    if spec.get("valuesFrom"):
        return values_from_why(spec.get("valuesFrom"))
    if spec.get("valueFiles") or spec.get("fileParameters"):
        return "its valueFiles (or fileParameters) are files the inputs do not hold: its values are not known here"
    if spec.get("parameters"):
        return "its helm parameters override the values in ways not modelled here: not rendered"
    if chart == MODELSERVICE and version_why(version):
        return version_why(version)
    if chart == PRODSTACK and isinstance(values, dict) and refusal(values):
        return refusal(values)
    if chart == PRODSTACK and chart_version(version) is None:
        return older_release_why(version) or (
            f"shardwise reads the vllm-stack chart's values at an exact release 0.1.{VERSIONS[0]} to "
            f"0.1.{VERSIONS[-1]}, and this one names {str(version) if version is not None else 'none'!r} (a "
            "range or none is resolved in the cluster; another release is not modelled)")
    return None


def values_from_why(values_from: Any) -> str:
    """Why a HelmRelease with ``valuesFrom`` is not rendered, naming what it reads: Flux's helm-controller merges each
    entry's key (``valuesKey``, default ``values.yaml``; at ``targetPath`` where set) of the ConfigMap or Secret of the
    release's namespace in the order given, and ``spec.values`` over them last; a missing object or key fails the
    release unless ``optional`` (fluxcd/helm-controller at b8d65235, internal/chartutil/values.go
    ``ChartValuesFromReferences``).
    shardwise does not merge them, whether the inputs hold those objects or not (the words were "which the inputs do
    not hold", untrue where a ConfigMap it names is beside it)."""
    named: list[str] = []
    for item in as_list(values_from):
        ref = as_map(item)
        kind, name = ref.get("kind"), ref.get("name")
        if not isinstance(kind, str) or not isinstance(name, str):
            continue
        key = ref.get("valuesKey") if isinstance(ref.get("valuesKey"), str) else "values.yaml"
        at = f" at `{ref['targetPath']}`" if isinstance(ref.get("targetPath"), str) else ""
        named.append(f"{kind} `{name}` (key `{key}`{at})")
    what = ", ".join(named) if named else "ConfigMaps or Secrets"
    return (f"its valuesFrom merges the values of {what} under its spec.values (Flux merges them in order, then "
            "spec.values over them), which shardwise does not merge: not rendered")


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
    version = as_map(as_map(spec.get("chart")).get("spec")).get("version")
    return chart_objects(name, version, values, release, namespace, annotations)


def _values_text(helm: Mapping[str, Any], file: str | None) -> Any:
    """``helm.values`` (a YAML text) as a mapping at the lines it is written on; None when it is not one."""
    text = helm.get("values")
    if not isinstance(text, str):
        return None
    at = helm.key_lines.get("values") if isinstance(helm, LineDict) else None
    try:
        docs = _parse(text, file or "", at or 0, None, [])
    except InputError:
        return None  # Argo CD fails the sync; what it would render is not known
    return docs[0] if len(docs) == 1 and isinstance(docs[0], dict) else None


def source_values(helm: Mapping[str, Any], file: str | None = None) -> Any:
    """An Argo CD source's inline values: ``valuesObject``, else the ``values`` text read (Argo CD's
    ``ValuesYAML``); None when it has neither."""
    return helm["valuesObject"] if isinstance(helm.get("valuesObject"), dict) else _values_text(helm, file)


def application_objects(obj: Mapping[str, Any], file: str | None = None
                        ) -> list[tuple[LineDict, Any, str]] | None:
    """(rendered object, the values it came from, their key) for each Helm-repository source of an Argo CD
    Application whose chart is modelled here and whose values are all inline; None when there is none."""
    spec = as_map(obj.get("spec"))
    sources = [spec["source"]] if isinstance(spec.get("source"), dict) else as_list(spec.get("sources"))
    meta = as_map(obj.get("metadata"))
    out: list[tuple[LineDict, Any, str]] = []
    for src in sources:
        if not isinstance(src, dict) or not isinstance(src.get("chart"), str):
            continue
        helm = as_map(src.get("helm"))
        if helm.get("valueFiles") or helm.get("parameters") or helm.get("fileParameters"):
            continue
        key = "helm.valuesObject" if isinstance(helm.get("valuesObject"), dict) else "helm.values"
        values = source_values(helm, file)
        if not isinstance(values, dict):
            continue
        release = str(helm.get("releaseName") or meta.get("name") or "")
        namespace = str(as_map(spec.get("destination")).get("namespace") or "") or None
        objs = chart_objects(src["chart"], src.get("targetRevision"), values, release, namespace,
                             as_map(meta.get("annotations")) or None)
        out += [(o, values, key) for o in objs or ()]
    return out or None


def _key_at(values: Any, line: int, prefix: str) -> str | None:
    """The dotted path of the values key written at ``line`` (``modelSpec[0].requestGPU``), None when no key or
    more than one is written there."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                here = f"{path}.{k}" if path else str(k)
                if isinstance(node, LineDict) and node.key_lines.get(k) == line:
                    found.append(here)
                walk(v, here)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    walk(values, prefix)
    return found[0] if len(found) == 1 else None


def named_for_values(e: InputError, values: Any, prefix: str) -> InputError:
    """``e`` with its rendered field path (``spec.replicas: ...``) replaced by the values key written at its line,
    the rendered path kept in brackets; ``e`` itself when that key is not known."""
    what, sep, rest = e.message.partition(": ")
    key = _key_at(values, e.line, prefix) if e.line is not None and sep and " " not in what else None
    if key is None:
        return e
    e.message = f"{key} (rendered as {what}): {rest}"
    e.args = (str(e),)
    return e


def _add_rendered(objs: list[tuple[LineDict, Any, str]], loc: Location, inv: Inventory, ctx: Any) -> bool:
    marks = len(inv.groups), len(inv.launch_issues)
    for o, values, prefix in objs:
        try:
            add_object(o, Location(loc.file, o.line or loc.line), inv, ctx)
        except InputError as e:
            raise named_for_values(e, values, prefix) from None
    return (len(inv.groups), len(inv.launch_issues)) != marks


def modelled_unread(kind: str, obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` installs a chart modelled here from a Helm repository and :func:`modelled_why` says why it is
    not read (a version not modelled, ``valuesFrom``, ``postRenderers`` ...): its values are the chart's, not a pod
    spec, so no other reader takes them for one (llm-d-modelservice's ``containers`` with ``modelCommand`` were read
    as a pod naming no model), and SW005 gives the reason."""
    spec = as_map(obj.get("spec"))
    if kind == "Application":
        sources = [spec["source"]] if isinstance(spec.get("source"), dict) else as_list(spec.get("sources"))
        return any(isinstance(src, dict) and isinstance(src.get("chart"), str) and modelled_why(
            src["chart"], src.get("targetRevision"), as_map(src.get("helm"))) is not None for src in sources)
    name, source = chart_of(spec)
    if name is None or source == "GitRepository":
        return False
    version = as_map(as_map(spec.get("chart")).get("spec")).get("version")
    return modelled_why(name, version, spec, spec.get("values")) is not None


def add_helm_release(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Any) -> bool:
    """Read the objects a HelmRelease of a known chart renders (:func:`rendered_objects`); False when none was read
    (the object is then counted as not read, and SW005 says why where it names vLLM)."""
    try:
        objs = rendered_objects(obj)
    except InputError as e:  # a value the chart cannot write (prodstack's vllmConfig): at its line, in this file
        raise InputError(e.message, e.file or loc.file, e.line or loc.line) from None
    if not objs:
        return False
    return _add_rendered([(o, as_map(obj.get("spec")).get("values"), "values") for o in objs], loc, inv, ctx)


def add_application(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Any) -> bool:
    """Read the objects an Argo CD Application's Helm-repository chart renders (:func:`application_objects`);
    False when none was read."""
    try:
        objs = application_objects(obj, loc.file)
    except InputError as e:  # as add_helm_release
        raise InputError(e.message, e.file or loc.file, e.line or loc.line) from None
    return bool(objs) and _add_rendered(objs or [], loc, inv, ctx)
