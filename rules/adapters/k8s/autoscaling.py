"""Autoscalers: HorizontalPodAutoscaler (v1, v2) and KEDA ScaledObject, with the metrics they scale on; and KEDA's
HTTP add-on ``HTTPScaledObject``, read only as what runs its target from zero."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import Autoscaler, Inventory, Location, Unknown
from .fields import as_list, as_map, int_field, read_annotations, suppressions_from

_VLLM_METRIC = re.compile(r"vllm:[A-Za-z_][A-Za-z0-9_:]*")
_GPU_UTIL = re.compile(r"DCGM_FI_DEV_GPU_UTIL|gpu_util", re.IGNORECASE)


def _metric_name(name: str) -> str:
    return "gpu-utilization" if _GPU_UTIL.search(name) else name


def add_hpa(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    target = as_map(spec.get("scaleTargetRef"))
    metrics: list[str | Unknown] = []  # the Pulumi adapter adds UNKNOWN (a metric not known at preview)
    version = str(obj.get("apiVersion", ""))
    if version.endswith("/v1"):
        metrics.append("cpu")  # autoscaling/v1 scales on CPU only (80% when no target is given)
    else:
        for m in as_list(spec.get("metrics")):
            m = as_map(m)
            mtype = str(m.get("type", ""))
            if mtype in ("Resource", "ContainerResource"):
                res = as_map(m.get("resource" if mtype == "Resource" else "containerResource"))
                metrics.append(str(res.get("name", "cpu")))
                continue
            body = as_map(m.get({"Pods": "pods", "External": "external", "Object": "object"}.get(mtype, "")))
            name = as_map(body.get("metric")).get("name") or body.get("metricName")
            if name:
                metrics.append(_metric_name(str(name)))
        if not as_list(spec.get("metrics")):
            metrics.append("cpu")  # autoscaling/v2 with no metrics: 80% average CPU
    window = as_map(as_map(as_map(spec.get("behavior")).get("scaleDown"))).get("stabilizationWindowSeconds")
    inv.autoscalers.append(Autoscaler(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="HorizontalPodAutoscaler",
        target_kind=str(target["kind"]) if target.get("kind") else None,
        target_name=str(target["name"]) if target.get("name") else None,
        metrics=metrics,
        min_replicas=int_field(spec, "minReplicas", 1, loc, "spec.minReplicas"),
        max_replicas=int_field(spec, "maxReplicas", None, loc, "spec.maxReplicas"),
        scale_down_window_seconds=window,
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))


def add_scaled_object(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    target = as_map(spec.get("scaleTargetRef"))
    metrics: list[str | Unknown] = []  # the Pulumi adapter adds UNKNOWN (a metric not known at preview)
    for trig in as_list(spec.get("triggers")):
        trig = as_map(trig)
        ttype = str(trig.get("type", ""))
        md = as_map(trig.get("metadata"))
        if ttype == "prometheus":
            query = str(md.get("query", ""))
            found = list(dict.fromkeys(_VLLM_METRIC.findall(query)))
            if found:
                metrics.extend(found)
            elif _GPU_UTIL.search(query):
                metrics.append("gpu-utilization")
            else:
                metrics.append(query)
        elif ttype in ("cpu", "memory"):
            metrics.append(ttype)
        elif ttype:
            metrics.append(_metric_name(ttype))
    window = as_map(as_map(as_map(as_map(as_map(spec.get("advanced")).get("horizontalPodAutoscalerConfig"))
                            .get("behavior")).get("scaleDown"))).get("stabilizationWindowSeconds")
    inv.autoscalers.append(Autoscaler(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="ScaledObject",
        target_kind=str(target.get("kind") or "Deployment"),
        target_name=str(target["name"]) if target.get("name") else None,
        metrics=metrics,
        min_replicas=int_field(spec, "minReplicaCount", 0, loc, "spec.minReplicaCount"),
        max_replicas=int_field(spec, "maxReplicaCount", 100, loc, "spec.maxReplicaCount"),
        scale_down_window_seconds=window,
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))



def add_http_scaled_object(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """A KEDA HTTP add-on ``HTTPScaledObject`` (http.keda.sh/v1alpha1): the add-on's interceptor holds a request to
    its target while the add-on scales that target from zero (``replicas.min``, 0 by default), so a Deployment at
    ``replicas: 0`` that it names runs pods on demand (kedacore/http-add-on, docs). Its target is
    ``scaleTargetRef.name`` (``scaleTargetRef.deployment`` before v0.7), a Deployment unless ``kind`` says otherwise.
    It is not an :class:`Autoscaler` of the inventory (its scaling metric is the add-on's request count): it is
    recorded among the objects that run a workload (``Inventory.workload_refs``), with no replica count."""
    meta, target = as_map(obj.get("metadata")), as_map(as_map(obj.get("spec")).get("scaleTargetRef"))
    name = target.get("name") or target.get("deployment")
    if isinstance(name, str):
        inv.workload_refs.append((str(meta.get("namespace") or "default"), str(target.get("kind") or "Deployment"),
                                  name, None))
