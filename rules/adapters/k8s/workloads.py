"""Workloads with a pod template -> :class:`ServingGroup`: Deployment, StatefulSet, DaemonSet,
ReplicaSet, ReplicationController, Job, CronJob, Pod, Argo Rollout, LeaderWorkerSet, and unknown
custom resources with ``spec.template``.

Annotations read on workloads (object metadata merged with the pod template's, the pod template
winning): ``shardwise.dev/p95-context-tokens``, ``shardwise.dev/base-model``,
``shardwise.dev/production`` and ``shardwise.dev/ignore``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...catalog.resolve import resolve_model
from ...errors import InputError
from ...model import UNKNOWN, Container, Inventory, LaunchIssue, Location, ServingGroup, Suppression
from ...vocab import ANN_P95, ANN_PRODUCTION, LWS_EXCLUSIVE
from .fields import as_map, int_field, read_annotations, str_map, suppressions_from
from .parse import Lines
from .pods import Pod, read_affinity, read_node_selector, read_pod, read_tolerations

SIMPLE_WORKLOADS = frozenset({
    "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job",
    "CronJob", "Pod", "Rollout", "LeaderWorkerSet",
})
_HUMAN_INT = re.compile(r"^(\d+)([kK])$")


def _production(value: str, file: str | None, line: int | None) -> bool:
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise InputError(f"{ANN_PRODUCTION}: expected \"true\" or \"false\", got {value!r}", file, line)


def _p95(value: str, file: str | None, line: int | None) -> int:
    v = value.strip().replace("_", "")
    m = _HUMAN_INT.match(v)
    try:
        n = int(m.group(1)) * (1000 if m.group(2) == "k" else 1024) if m else int(v)
    except ValueError:
        raise InputError(f"{ANN_P95}: expected a whole number of tokens, got {value!r}", file, line) from None
    if n <= 0:
        raise InputError(f"{ANN_P95}: expected a positive number of tokens, got {value!r}", file, line)
    return n



def make_group(kind: str, obj: Mapping[str, Any], loc: Location, pod: Pod, replicas: Any,
               file: str | None, name: str | None = None) -> ServingGroup:
    """The serving group of a pod whose container runs vLLM (``name`` overrides the object's name)."""
    meta = as_map(obj.get("metadata"))
    name = name or str(meta.get("name") or meta.get("generateName") or "unnamed")
    ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
    engine = pod.engine
    assert engine is not None and pod.vllm is not None
    if loc.line is not None:  # objects without lines (rendered from a stack spec) point at their object
        engine.locations = {k: v if v.line is not None or v.file != loc.file else loc
                            for k, v in engine.locations.items()}
    g = ServingGroup(
        name=name,
        kind=kind,
        location=loc,
        namespace=str(meta.get("namespace") or "default"),
        engine=engine,
        replicas=replicas,
        gpus_per_pod=pod.gpus,
        accelerator_resource=pod.accelerator_resource,
        node_selector=read_node_selector(pod.spec, loc),
        affinity=read_affinity(pod.spec),
        tolerations=read_tolerations(pod.spec),
        annotations=ann,
        pod_labels=str_map(pod.meta.get("labels")),
        containers=pod.containers,
        vllm_container=pod.vllm.name,
        volumes=pod.volumes,
    )
    g.locations.update(pod.locations)
    if loc.line is not None:
        for key, line in ann_lines.items():
            if line is not None:
                g.locations[f"annotation:{key}"] = Location(file, line)
    if ANN_P95 in ann:
        g.p95_context = _p95(ann[ANN_P95], file, ann_lines.get(ANN_P95) or loc.line)
    if ANN_PRODUCTION in ann:
        g.production = _production(ann[ANN_PRODUCTION], file, ann_lines.get(ANN_PRODUCTION) or loc.line)
    g.suppressions = suppressions_from(ann, ann_lines, file, loc.line)
    if engine.model is None:
        where = pod.vllm.location if pod.vllm.location.line else loc
        if "config" in engine.extra:
            g.engine.model = UNKNOWN
            g.model_unknown = (f"it is set in the --config file {engine.extra['config']!r}, which shardwise "
                               "cannot read; pass the model on the command line")
        else:
            raise InputError(
                f"container {pod.vllm.name!r} runs vLLM but names no model "
                "(give it as `vllm serve MODEL` or `--model MODEL`)",
                where.file, where.line,
            )
    else:
        resolve_model(g, os.path.dirname(file) if file else None)
    return g


def launch_issue(inv: Inventory, subject: str, container: Container, reason: str, where: Location,
                 suppressions: list[Suppression], crash: bool = False) -> None:
    inv.launch_issues.append(LaunchIssue(subject, container.name, reason, where, crash, list(suppressions)))


def note_launch(inv: Inventory, kind: str, obj: Mapping[str, Any], loc: Location, pod: Pod,
                group: ServingGroup | None, name: str | None = None) -> None:
    """Record a pod whose vLLM command would crash, or that looks like vLLM but could not be read."""
    meta = as_map(obj.get("metadata"))
    subject = f"{kind} {meta.get('namespace') or 'default'}/{name or meta.get('name') or 'unnamed'}"
    if group is not None and pod.crash is not None and pod.vllm is not None:
        launch_issue(inv, subject, pod.vllm, f"container {pod.vllm.name!r}: {pod.crash}",
                     group.at("crash"), group.suppressions, crash=True)
    elif group is None and pod.unread is not None:
        ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
        c = pod.unread
        launch_issue(inv, subject, c, (
            f"container {c.name!r} runs the vLLM image {c.image} but its command "
            f"({' '.join([*c.command, *c.args]) or 'the image entrypoint, no args'}) does not start a vLLM "
            "server shardwise can read; start it as `vllm serve MODEL [flags]` (or `python3 -m "
            "vllm.entrypoints.openai.api_server --model MODEL`), directly or in a `sh -c` script"),
            pod.locations.get("unread", loc), suppressions_from(ann, ann_lines, loc.file, loc.line))


def _template_of(kind: str, spec: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """(template metadata, pod spec) for a workload, or None when it has no pod template."""
    if kind == "Pod":
        return None
    if kind == "CronJob":
        template = as_map(as_map(as_map(spec.get("jobTemplate")).get("spec")).get("template"))
    else:
        template = as_map(spec.get("template"))
    if not template:
        return None
    return template.get("metadata"), template.get("spec")


def _replicas(kind: str, obj: Mapping[str, Any], loc: Location) -> Any:
    spec = as_map(obj.get("spec"))
    if kind == "DaemonSet":
        return UNKNOWN  # one per matching node
    if kind == "Pod":
        return 1
    if kind == "Job":
        return int_field(spec, "parallelism", 1, loc, "spec.parallelism")
    if kind == "CronJob":
        job = as_map(as_map(spec.get("jobTemplate")).get("spec"))
        return int_field(job, "parallelism", 1, loc, "spec.jobTemplate.spec.parallelism")
    return int_field(spec, "replicas", 1, loc, "spec.replicas")


def add_workload(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """Add a serving group for a workload that runs vLLM; True when one was added."""
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    spec = as_map(obj.get("spec"))
    if kind == "LeaderWorkerSet":
        return add_lws(obj, loc, inv, file_lines)
    if kind == "Pod":
        meta, pod_spec = obj.get("metadata"), spec
    else:
        tpl = _template_of(kind, spec)
        if tpl is None:
            return False
        meta, pod_spec = tpl
        if not isinstance(as_map(pod_spec).get("containers"), list):
            return False
    pod = read_pod(meta, pod_spec, file, file_lines, {})
    if pod.engine is None:
        note_launch(inv, kind, obj, loc, pod, None)
        return pod.unread is not None
    group = make_group(kind, obj, loc, pod, _replicas(kind, obj, loc), file)
    if kind == "Pod":  # a bare pod's annotations and labels are its own
        group.pod_labels = str_map(as_map(obj.get("metadata")).get("labels"))
    inv.groups.append(group)
    note_launch(inv, kind, obj, loc, pod, group)
    return True


def add_lws(obj: Mapping[str, Any], loc: Location, inv: Inventory, file_lines: Sequence[str] | None) -> bool:
    file = loc.file
    spec = as_map(obj.get("spec"))
    lwt = as_map(spec.get("leaderWorkerTemplate"))
    size = int_field(lwt, "size", 1, loc, "spec.leaderWorkerTemplate.size", minimum=1)
    injected = {"LWS_GROUP_SIZE": str(size)}
    leader_raw = as_map(lwt.get("leaderTemplate"))
    worker_raw = as_map(lwt.get("workerTemplate"))
    leader = read_pod(leader_raw.get("metadata"), leader_raw.get("spec"), file, file_lines,
                       {**injected, "LWS_WORKER_INDEX": "0"}) if leader_raw else None
    worker = read_pod(worker_raw.get("metadata"), worker_raw.get("spec"), file, file_lines,
                       injected if leader_raw else {**injected, "LWS_WORKER_INDEX": "0"})
    chosen = leader if leader is not None and leader.engine is not None else worker
    other = worker if chosen is leader else leader
    if chosen.engine is None:
        unread = leader if leader is not None and leader.unread is not None else worker
        note_launch(inv, "LeaderWorkerSet", obj, loc, unread, None)
        return unread.unread is not None
    if other is not None:
        fill_placement(chosen, other)
    group = make_group("LeaderWorkerSet", obj, loc, chosen, int_field(spec, "replicas", 1, loc, "spec.replicas"),
                   file)
    group.pods_per_group = size
    rp = lwt.get("restartPolicy")
    group.restart_policy = str(rp) if rp is not None else None
    meta_ann = str_map(as_map(obj.get("metadata")).get("annotations"))
    group.exclusive_topology = meta_ann.get(LWS_EXCLUSIVE) or group.annotations.get(LWS_EXCLUSIVE) or None
    inv.groups.append(group)
    note_launch(inv, "LeaderWorkerSet", obj, loc, chosen, group)
    return True


def fill_placement(chosen: Pod, other: Pod) -> None:
    """Placement usually lives in both pod templates of a group (leader and workers, head and
    workers); fill what the vLLM pod leaves out from the other one."""
    if not chosen.spec.get("nodeSelector") and other.spec.get("nodeSelector"):
        chosen.spec = {**chosen.spec, "nodeSelector": other.spec["nodeSelector"]}
        _take_location(chosen, other, "nodeSelector")
    if not read_affinity(chosen.spec) and read_affinity(other.spec):
        chosen.spec = {**chosen.spec, "affinity": other.spec.get("affinity")}
        _take_location(chosen, other, "affinity")
    if not chosen.spec.get("tolerations") and other.spec.get("tolerations"):
        chosen.spec = {**chosen.spec, "tolerations": other.spec["tolerations"]}
        _take_location(chosen, other, "tolerations")
    if chosen.gpus is None and other.containers:
        chosen.gpus = other.containers[0].gpus
        chosen.accelerator_resource = other.containers[0].accelerator_resource


def _take_location(chosen: Pod, other: Pod, key: str) -> None:
    if key in other.locations:
        chosen.locations[key] = other.locations[key]

