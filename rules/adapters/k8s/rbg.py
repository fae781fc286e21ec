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

One Ray cluster over roles: a role whose vLLM pod starts Ray's head (``ray start --head``, or vLLM's
examples/online_serving/multi-node-serving.sh and its copies as ``leader``) and other roles of the same group whose
pods join a Ray head (``ray start --address``, the script as ``worker``) are one engine: vLLM's Ray executor
places its workers on every GPU of that cluster, so the engine spans the head role's pods and the joining roles'
pods that request GPUs (their replicas × size), as a Ray cluster's head and worker groups do (ray.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...model import UNKNOWN, Inventory, Location, ServingGroup
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field, str_map
from .ome import merge
from .parse import Lines
from .pods import read_pod
from .serving import crd_group

_PREFIX = "rbg.workloads.x-k8s.io/"
#: A pod script that starts Ray's head, or joins a head: ``ray start`` itself, or vLLM's multi-node-serving.sh
#: (examples/online_serving) and the copies images ship (``/vllm-workspace/ray_init.sh``) run as leader or worker.
_RAY_HEAD = re.compile(r"\bray\s+start\b[^\n;&|]*--head\b|[\w./-]*(?:multi-node-serving|ray_init)\.sh\s+leader\b")
_RAY_JOIN = re.compile(r"\bray\s+start\b[^\n;&|]*--address\b|[\w./-]*(?:multi-node-serving|ray_init)\.sh\s+worker\b")


def _script(template: Mapping[str, Any]) -> str:
    """The commands and args of a pod template's containers, one text (a continued shell line joined)."""
    words = [str(w) for c in as_list(as_map(template.get("spec")).get("containers"))
             for w in (*as_list(as_map(c).get("command")), *as_list(as_map(c).get("args")))]
    return "\n".join(words).replace("\\\n", " ")


def _ray_across_roles(group: ServingGroup, head: Mapping[str, Any],
                      joining: list[tuple[Mapping[str, Any], Any, Any, str]], file: str | None,
                      lines: Sequence[str] | None) -> None:
    """``group`` (a role whose vLLM pod starts Ray's head) spans the pods of the group's other roles that join a
    Ray head and request GPUs: ``joining`` is (their pod template, replicas, pods per instance, role name).
    Unknown replicas leave the pods per engine unknown."""
    if not _RAY_HEAD.search(_script(head)) or not isinstance(group.pods_per_group, int):
        return
    pods: Any = group.pods_per_group
    for template, replicas, size, _ in joining:
        if not _RAY_JOIN.search(_script(template)) or _RAY_HEAD.search(_script(template)):
            continue
        joined = read_pod(template.get("metadata"), template.get("spec"), file, lines, {})
        if not any(c.gpus for c in joined.containers):
            continue
        if not isinstance(replicas, int) or not isinstance(size, int) or isinstance(replicas, bool):
            pods = UNKNOWN
            break
        pods += replicas * size
    group.pods_per_group = pods


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
    heads: list[tuple[ServingGroup, Mapping[str, Any], str]] = []
    roles: list[tuple[Mapping[str, Any], Any, Any, str]] = []
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
            if leader is None:
                heads.append((group, chosen, role_name))
        roles.append((template if leader is None else as_map(worker), replicas, pods, role_name))
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    for group, head, role_name in heads:
        _ray_across_roles(group, head, [r for r in roles if r[3] != role_name], file, file_lines)
    return marks != (len(inv.groups), len(inv.launch_issues))
