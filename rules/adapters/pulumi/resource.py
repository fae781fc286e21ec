"""One Pulumi resource as the engine, ``pulumi preview --json`` or ``pulumi stack export`` give it, and the
helpers that read its name and merge its state (the bottom of the Pulumi adapter: it imports none of the others)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...model import (
    Location,
)
from .values import is_unknown_value


@dataclass(frozen=True)
class PulumiResource:
    """One resource as the engine describes it; ``props`` in camelCase, raw (sentinels included)."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    id: str | None = None
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, Sequence[str]] = field(default_factory=dict)
    file: str | None = None
    line: int | None = None
    #: A preview's resource whose properties the preview masked as ``[secret]``
    #: (:func:`.values.unmask_preview_secrets`): True where those are its only unknowns, False where it holds computed
    #: values too; None where it masked none.
    masked: bool | None = None
    #: A preview step's operation (``create``, ``update``, ...); None for a state export's resource. The preview
    #: leaves out the steps whose resource does not change (``same``, pulumi/pulumi pkg/backend/display ``shouldShow``
    #: without ``--show-sames``), so only a created component's children are all in it.
    op: str | None = None

    @property
    def location(self) -> Location:
        return Location(self.file, self.line, self.urn or None)


def name_from_urn(urn: str) -> str:
    return urn.rsplit("::", 1)[-1] if "::" in urn else urn


def merge_state(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> dict[str, Any]:
    """One resource's properties from its inputs and outputs: the inputs win; an output that is not
    among the inputs is kept, unless it is unknown.

    At preview a provider reports every attribute it computes as unknown: the id and ARN, and the
    optional attributes the program left unset, which it fills in after the update (a security
    group's ``ingress`` read back from AWS, a node group's default ``instanceTypes``, the launch
    template's ``metadataOptions`` defaults). The program did not set them, so they read as absent,
    as they do in the inputs; an unknown the program set is among the inputs and stays unknown.
    """
    merged = {k: v for k, v in outputs.items() if k in inputs or not is_unknown_value(v)}
    merged.update(inputs)
    return merged


# ---------------------------------------------------------------------------------------------
# Inventory
# ---------------------------------------------------------------------------------------------
