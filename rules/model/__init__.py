"""The one domain model every input is turned into and every rule reads.

Adapters (stack config, Kubernetes YAML, Pulumi preview/state JSON, policy-pack resources) build an
:class:`Inventory`; rules never see raw YAML or raw Pulumi properties. Every object keeps the
:class:`Location` it came from so a finding can point at a file and line, or at a resource URN.

A value that is not known yet (a computed output at ``pulumi preview``) is :data:`UNKNOWN`; a rule
that needs it calls :func:`known`, which raises :class:`Undecidable` naming the property, and the
engine turns that into an explicit "cannot decide" finding instead of a silent pass.

The code lives in named modules; this face re-exports their public names (import from here):
:mod:`.unknown` (unknown values and :class:`Undecidable`) and :mod:`.inventory` (the objects and the
:class:`Inventory`); beside them :mod:`.errors`, :mod:`.shapes` (the catalog's records), :mod:`.vocab` (label
and annotation names) and :mod:`.spec` (the typed stack and component spec, pydantic).
"""

from .inventory import (
    Autoscaler,
    ConfigMap,
    Container,
    CrossRef,
    DeviceClaim,
    EngineArgs,
    EnvSource,
    HardwareProfile,
    HostAccess,
    Ingress,
    Inventory,
    LaunchIssue,
    LaunchTemplate,
    LimitRange,
    Location,
    MatchExpression,
    NetworkPolicy,
    NodePool,
    PodPorts,
    Probe,
    Router,
    SecurityContext,
    SecurityGroup,
    Service,
    ServingGroup,
    SgRule,
    Subnet,
    Suppression,
    Taint,
    Toleration,
    UnknownEnv,
    UnknownWord,
    Volume,
    engine_world_size,
    layout_text,
    world_size,
)
from .unknown import (
    FROM_VALUE_SOURCE,
    UNKNOWN,
    UNKNOWN_AT,
    UNKNOWN_NAMESPACE,
    UNKNOWN_TOKEN,
    UNRESOLVED,
    ModelNotKnown,
    Undecidable,
    Unknown,
    int_or_none,
    is_unknown,
    known,
)

__all__ = [
    "FROM_VALUE_SOURCE",
    "UNKNOWN",
    "UNKNOWN_AT",
    "UNKNOWN_NAMESPACE",
    "UNKNOWN_TOKEN",
    "UNRESOLVED",
    "Unknown",
    "Autoscaler",
    "ConfigMap",
    "Container",
    "CrossRef",
    "DeviceClaim",
    "HardwareProfile",
    "LimitRange",
    "EngineArgs",
    "EnvSource",
    "HostAccess",
    "Ingress",
    "Inventory",
    "LaunchIssue",
    "LaunchTemplate",
    "Location",
    "MatchExpression",
    "ModelNotKnown",
    "NetworkPolicy",
    "NodePool",
    "PodPorts",
    "Probe",
    "Router",
    "SecurityContext",
    "SecurityGroup",
    "Service",
    "ServingGroup",
    "SgRule",
    "Subnet",
    "Suppression",
    "Taint",
    "Toleration",
    "Undecidable",
    "UnknownEnv",
    "UnknownWord",
    "Volume",
    "engine_world_size",
    "int_or_none",
    "is_unknown",
    "known",
    "layout_text",
    "world_size",
]
