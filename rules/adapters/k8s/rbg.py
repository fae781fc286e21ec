"""RoleBasedGroup (sgl-project/rbg, ``workloads.x-k8s.io``): the roles of a serving group, each a pod template.

A role's pod is built the way the RBG controller builds it (api/workloads/v1alpha2/helper.go, a strategic
merge patch of a PodTemplateSpec), so a role that names a shared template and patches it keeps the template's
image, probes and volumes:

- v1alpha2: ``roles[].standalonePattern`` or ``roles[].leaderWorkerPattern`` hold a ``template``, or a
  ``templateRef`` (``name`` of an entry of ``spec.roleTemplates``, and a ``patch`` merged onto it); a
  leader-worker role's ``size`` is the pods of one instance, its leader is the template with
  ``leaderTemplatePatch``, its workers with ``workerTemplatePatch``;
- v1alpha1: ``roles[].template``, or ``templateRef`` with ``templatePatch``, and ``leaderWorkerSet`` (``size``,
  ``patchLeaderTemplate``, ``patchWorkerTemplate``) for a role run as a LeaderWorkerSet;
- a RoleBasedGroupSet's ``groupTemplate`` is a RoleBasedGroup, ``spec.replicas`` of them.

Each role whose pod runs vLLM is a serving group named ``<group>/<role>``: replicas the role's (times the
set's), the pod labels the controller adds (``rbg.workloads.x-k8s.io/group-name`` and ``role-name``,
api/workloads/constants/label.go) over the template's. A role in another shape (``customComponentsPattern``)
is left to the generic reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Inventory, Location
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field, str_map
from .ome import merge
from .parse import Lines
from .serving import crd_group

_PREFIX = "rbg.workloads.x-k8s.io/"


def _patched(base: Any, patch: Any) -> Mapping[str, Any]:
    if not isinstance(patch, Mapping) or not patch:
        return as_map(base)
    if not as_map(base):
        return patch
    return as_map(merge(base, patch))


def _role_templates(role: Mapping[str, Any], shared: Mapping[str, Mapping[str, Any]]
                    ) -> tuple[Mapping[str, Any], Any, Mapping[str, Any] | None, Mapping[str, Any] | None] | None:
    """(the role's pod template, pods per instance, leader template, worker template) with the patches applied;
    None for a role in a shape not read here."""
    lwp, sp = as_map(role.get("leaderWorkerPattern")), as_map(role.get("standalonePattern"))
    lws = as_map(role.get("leaderWorkerSet"))
    holder = lwp or sp or role
    ref = as_map(holder.get("templateRef"))
    if holder.get("template") is not None:
        template: Mapping[str, Any] = as_map(holder.get("template"))
    elif ref:
        template = as_map(shared.get(str(ref.get("name"))))
    else:
        return None
    template = _patched(template, ref.get("patch") if ref.get("patch") is not None else holder.get("templatePatch"))
    if lwp:
        return (template, lwp.get("size", 1), _patched(template, lwp.get("leaderTemplatePatch")),
                _patched(template, lwp.get("workerTemplatePatch")))
    if lws:
        return (template, lws.get("size", 1), _patched(template, lws.get("patchLeaderTemplate")),
                _patched(template, lws.get("patchWorkerTemplate")))
    return template, 1, None, None


def add_role_based_group(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                         lines: Lines | None) -> bool:
    """A serving group per role whose pod runs vLLM; True when one was added or a role was recorded as unread."""
    spec = as_map(obj.get("spec"))
    sets = 1
    if kind == "RoleBasedGroupSet":
        sets = int_field(spec, "replicas", 1, loc, "spec.replicas")
        spec = as_map(spec.get("groupTemplate"))
    shared = {str(as_map(t).get("name")): as_map(as_map(t).get("template"))
              for t in as_list(spec.get("roleTemplates"))}
    name = str(as_map(obj.get("metadata")).get("name") or "unnamed")
    marks = len(inv.groups), len(inv.launch_issues)
    for role in as_list(spec.get("roles")):
        role = as_map(role)
        found = _role_templates(role, shared)
        if found is None:
            continue
        template, size, leader, worker = found
        role_name = str(role.get("name") or "role")
        at = Location(loc.file, role.line if isinstance(role, LineDict) and role.line else loc.line)
        replicas = int_field(role, "replicas", 1, at, f"role {role_name}: replicas")
        if isinstance(replicas, int) and isinstance(sets, int):
            replicas *= sets
        pods = int_field({"size": size}, "size", 1, at, f"role {role_name}: size", minimum=1)
        chosen, others = template, []
        if leader is not None and worker is not None:
            chosen, others = leader, [worker.get("spec")]
        group = crd_group(inv, kind, obj, at, lines, pod_meta=chosen.get("metadata"), pod_spec=chosen.get("spec"),
                          replicas=replicas, name=f"{name}/{role_name}", others=others, pods_per_group=pods)
        if group is None and worker is not None:  # the leader only coordinates: the workers run vLLM
            group = crd_group(inv, kind, obj, at, lines, pod_meta=worker.get("metadata"),
                              pod_spec=worker.get("spec"), replicas=replicas, name=f"{name}/{role_name}",
                              others=[as_map(leader).get("spec")], pods_per_group=pods)
        if group is not None:
            labels = str_map(as_map(chosen.get("metadata")).get("labels"))
            group.pod_labels = {**labels, f"{_PREFIX}group-name": name, f"{_PREFIX}role-name": role_name}
    return marks != (len(inv.groups), len(inv.launch_issues))
