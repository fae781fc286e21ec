"""Open Data Hub / OpenShift AI HardwareProfiles, and what their admission webhook gives the workloads that name them.

A KServe InferenceService or LLMInferenceService annotated ``opendatahub.io/hardware-profile-name`` (and optionally
``opendatahub.io/hardware-profile-namespace``; unset: the workload's own namespace) gets, at admission, what the
named ``infrastructure.opendatahub.io`` HardwareProfile says (opendatahub-operator
internal/webhook/hardwareprofile/mutating.go at 0c0c991, performHardwareProfileInjection and
applyHardwareProfileToWorkload; the same logic runs in odh-model-controller for these kinds since #3777):

- each identifier (``nvidia.com/gpu``) not already in the model container's ``resources.requests`` is requested
  with its ``defaultCount``, and a limit not already set is the request (applyIdentifiersToRequests/Limits);
- with ``scheduling.kueue.localQueueName`` only the Kueue label is set; else ``scheduling.node.nodeSelector`` is
  merged over the workload's (the profile's value wins) and ``scheduling.node.tolerations`` come first, the
  workload's of other keys after (mergeNodeSelector, mergeTolerations).

The ``dashboard.opendatahub.io/v1alpha1`` HardwareProfile is the deprecated kind the webhook does not read (the
operator's validating webhook marks it DeprecatedGVK): it is not applied. A profile not in the inputs leaves the
GPU count undecided (SW204 says so)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, HardwareProfile, Inventory, Location, Toleration, Unknown
from .fields import as_list, as_map, line_of
from .pods import read_tolerations

#: The workload kinds the webhook acts on (WorkloadConfigs).
KINDS = ("InferenceService", "LLMInferenceService")
NAME_ANNOTATION = "opendatahub.io/hardware-profile-name"
NAMESPACE_ANNOTATION = "opendatahub.io/hardware-profile-namespace"
_WHOLE = re.compile(r"^\s*(\d+)\s*$")


def add_hardware_profile(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta = as_map(obj.get("metadata"))
    spec = as_map(obj.get("spec"))
    counts: dict[str, Any] = {}
    where: dict[str, Location] = {}
    for ident in as_list(spec.get("identifiers")):
        ident = as_map(ident)
        resource = ident.get("identifier")
        if not isinstance(resource, str) or not resource:
            continue
        value = ident.get("defaultCount")
        m = _WHOLE.match(str(value)) if isinstance(value, int | str) and not isinstance(value, bool) else None
        counts[resource] = int(m.group(1)) if m else UNKNOWN
        where[resource] = Location(loc.file, line_of(ident, "defaultCount") or line_of(ident, "identifier") or loc.line)
    scheduling = as_map(spec.get("scheduling"))
    node = as_map(scheduling.get("node"))
    queue = as_map(scheduling.get("kueue")).get("localQueueName")
    inv.hardware_profiles.append(HardwareProfile(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        counts=counts,
        count_locations=where,
        node_selector={str(k): str(v) for k, v in as_map(node.get("nodeSelector")).items()},
        tolerations=read_tolerations(node),
        queue=str(queue) if isinstance(queue, str) and queue else None,
        location=loc,
    ))


def apply_hardware_profiles(inv: Inventory) -> None:
    """Give each InferenceService and LLMInferenceService of ``inv`` what the HardwareProfile it names gives it at
    admission, when that profile is in the inputs (once: two of one name and namespace are not guessed between)."""
    profiles: dict[tuple[str, str], list[HardwareProfile]] = {}
    for p in inv.hardware_profiles:
        profiles.setdefault((p.namespace, p.name), []).append(p)
    for g in inv.groups:
        ann = g.annotations if isinstance(g.annotations, dict) else {}
        name = ann.get(NAME_ANNOTATION)
        if g.kind not in KINDS or not isinstance(name, str) or not name.strip():
            continue
        namespace = ann.get(NAMESPACE_ANNOTATION)
        found = profiles.get((namespace if isinstance(namespace, str) and namespace else g.namespace, name.strip()))
        if not found or len(found) > 1:
            continue
        profile = found[0]
        g.hardware_profile = f"{profile.namespace}/{profile.name}"
        c = g.main_container
        if g.gpus_per_pod is None:  # the webhook requests an identifier the container does not
            for resource, count in profile.counts.items():
                if g.accelerator_resource in (None, resource) and _accelerator(resource):
                    g.gpus_per_pod = count
                    g.accelerator_resource = resource
                    if c is not None:
                        c.gpus = count
                        c.accelerator_resource = resource
                    # a finding on the count points at the profile's defaultCount: that is what to change
                    g.locations["resources"] = profile.count_locations.get(resource, profile.location)
                    break
        if profile.queue is None and isinstance(g.node_selector, dict):
            g.node_selector = {**g.node_selector, **profile.node_selector}
            keys = {_key(t) for t in profile.tolerations}
            g.tolerations = [*profile.tolerations, *(t for t in g.tolerations if _key(t) not in keys)]


def _accelerator(resource: str) -> bool:
    """Whether an identifier is a device the layout counts (not ``cpu`` or ``memory``)."""
    return "/" in resource


def _key(t: Toleration) -> tuple[str | Unknown | None, str | Unknown, str | Unknown | None, str | Unknown | None]:
    """TolerationKey: key, operator, value and effect."""
    return (t.key, t.operator, t.value, t.effect)
