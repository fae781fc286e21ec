"""Dynamic resource allocation: ResourceClaims, ResourceClaimTemplates and DeviceClasses, and the devices
they give the pods that name them in ``spec.resourceClaims``.

A claim's device requests are read in both published shapes: ``resource.k8s.io/v1`` puts the count under
``exactly`` (``exactly: {deviceClassName: gpu.nvidia.com, count: 2}``), ``v1beta1`` beside the class name
(``{deviceClassName: gpu.nvidia.com, count: 2}``). ``allocationMode: All`` and a prioritized list
(``firstAvailable``) give a count the manifest does not fix. The device class names the family through the
vendor table (``gpu.nvidia.com`` is NVIDIA's DRA driver); a DeviceClass of the inputs whose selector names
a driver (``device.driver == "gpu.nvidia.com"``) is followed to it.

Every API version Kubernetes has served is taken (``resource.k8s.io`` v1alpha2, v1alpha3, v1beta1, v1beta2, v1;
the dispatch goes by group and kind). v1alpha3 (1.31) has v1beta1's shape and v1beta2 (1.33) v1's, so those are read
by their shape. v1alpha2 (classic DRA, Kubernetes 1.26 - 1.30, removed in 1.31) has no device requests at all: a
claim names a ``resourceClassName`` and a ``parametersRef`` to its driver's own object (NVIDIA's
``GpuClaimParameters``, ``MigDeviceClaimParameters``), which decide the devices; shardwise does not read those, and
says so (:attr:`..model.DeviceClaim.unread`) rather than calling the claim missing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...catalog.accelerators import cel_mig_profile, family_of_device_class
from ...model import UNKNOWN, DeviceClaim, Inventory, Location
from .fields import as_list, as_map

_DRIVER = re.compile(r"""device\\.driver\\s*==\\s*["']([^"']+)["']""")


def _requests(spec: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(devices asked for, the device class of the first request) of a claim spec."""
    total: Any = 0
    klass: str | None = None
    requests = as_list(as_map(spec.get("devices")).get("requests"))
    if not requests:
        return None, None
    for raw in requests:
        r = as_map(raw)
        exact = as_map(r.get("exactly")) if "exactly" in r else r  # v1 nests it, v1beta1 does not
        if "firstAvailable" in r:
            return UNKNOWN, klass
        klass = klass or (str(exact["deviceClassName"]) if exact.get("deviceClassName") else None)
        if str(exact.get("allocationMode") or "ExactCount") == "All":
            return UNKNOWN, klass
        count = exact.get("count", 1)
        if count is UNKNOWN or isinstance(count, bool) or not isinstance(count, int | str):
            return UNKNOWN, klass
        try:
            total += int(count)
        except ValueError:
            return UNKNOWN, klass
    return total, klass


def _mig_profile(spec: Mapping[str, Any]) -> str | None:
    """The MIG profile every device request of a claim spec requires by a CEL selector (NVIDIA's DRA driver publishes
    each MIG device's ``profile`` attribute: ``device.attributes["gpu.nvidia.com"].profile == "3g.40gb"``), in the v1
    (``exactly.selectors``) and the v1beta1 shape (``selectors`` beside the class name); None where a request requires
    none (a device of any profile may be allocated), names several, or the requests differ (mig21)."""
    found: set[str | None] = set()
    for raw in as_list(as_map(spec.get("devices")).get("requests")):
        r = as_map(raw)
        exact = as_map(r.get("exactly")) if "exactly" in r else r
        named = {cel_mig_profile(str(as_map(as_map(sel).get("cel")).get("expression") or ""))
                 for sel in as_list(exact.get("selectors"))} - {None}
        found.add(next(iter(named)) if len(named) == 1 else None)
    return next(iter(found)) if len(found) == 1 else None


def add_device_claim(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    claim = DeviceClaim(kind=kind, name=str(meta.get("name") or "unnamed"),
                        namespace=str(meta.get("namespace") or "default"), location=loc)
    if kind == "DeviceClass":
        for sel in as_list(spec.get("selectors")):
            m = _DRIVER.search(str(as_map(as_map(sel).get("cel")).get("expression") or ""))
            if m:
                claim.device_class = m.group(1)
                break
        claim.namespace = ""
    else:
        inner = as_map(spec.get("spec")) if kind == "ResourceClaimTemplate" else spec
        version = str(obj.get("apiVersion") or "")
        if version == CLASSIC_DRA or ("resourceClassName" in inner and "devices" not in inner):
            params = as_map(inner.get("parametersRef"))
            by = f"ResourceClass `{inner.get('resourceClassName')}` decides"
            if params.get("kind"):
                by = by.removesuffix(" decides") + f" and its driver's {params['kind']} `{params.get('name')}` decide"
            claim.count = UNKNOWN
            claim.unread = (f"is of {version or CLASSIC_DRA} (classic DRA, Kubernetes 1.26 to 1.30), where {by} "
                            "the devices; shardwise reads the device requests of v1alpha3 and later, not these")
        else:
            claim.count, claim.device_class = _requests(inner)
            claim.mig_profile = _mig_profile(inner)
    inv.device_claims.append(claim)


#: The API version of classic dynamic resource allocation, whose claims name a ResourceClass and parameters.
CLASSIC_DRA = "resource.k8s.io/v1alpha2"


def claim_refs(pod_spec: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """``spec.resourceClaims``: claim name -> (kind, object name), in the current and the 1.30 shape."""
    out: dict[str, tuple[str, Any]] = {}
    for raw in as_list(pod_spec.get("resourceClaims")):
        c = as_map(raw)
        src = as_map(c.get("source")) or c
        if not c.get("name"):
            continue
        if src.get("resourceClaimTemplateName") is not None:
            out[str(c["name"])] = ("ResourceClaimTemplate", src["resourceClaimTemplateName"])
        elif src.get("resourceClaimName") is not None:
            out[str(c["name"])] = ("ResourceClaim", src["resourceClaimName"])
    return out


def resolve_claims(inv: Inventory) -> None:
    """Give each group whose vLLM container requests no extended resource but names resource claims the
    devices those claims ask for: the count, and the family's resource (the class name where the vendor
    table does not know the class). A claim that is not in the inputs leaves the request unread."""
    if not inv.device_claims:
        return
    index = {(c.kind, c.namespace, c.name): c for c in inv.device_claims}
    drivers = {c.name: c.device_class for c in inv.device_claims if c.kind == "DeviceClass" and c.device_class}
    for g in inv.groups:
        c = g.main_container
        if c is None or c.gpus is not None or not c.resource_claims or g.gpus_per_pod is not None:
            continue
        total: Any = 0
        klass: str | None = None
        profiles: set[str | None] = set()
        for name in c.resource_claims:
            kind, ref = c.claim_refs.get(name, ("", None))
            claim = index.get((kind, g.namespace, str(ref))) if ref is not UNKNOWN else None
            if claim is None:
                total = None
                break
            if claim.unread:
                c.claims_unread = f"{claim.kind} `{claim.name}` {claim.unread}"
                total = None
                break
            if claim.count is None:
                continue  # a claim for something else than devices
            total = UNKNOWN if claim.count is UNKNOWN or total is UNKNOWN else total + claim.count
            klass = klass or claim.device_class
            profiles.add(claim.mig_profile)
        if total is None or klass is None:
            continue
        c.claim_class = klass
        c.claim_mig_profile = next(iter(profiles)) if len(profiles) == 1 else None
        family = family_of_device_class(klass) or family_of_device_class(drivers.get(klass, ""))
        resource = family.request_resource if family is not None else klass
        c.gpus = g.gpus_per_pod = total
        c.accelerator_resource = g.accelerator_resource = resource
