"""What the serving operators share: a serving group from a pod spec a custom resource holds, with the
engine settings the resource sets in its own fields.

Operators (KServe, KubeAI, KubeRay, Dynamo, AIBrix, llm-d) start vLLM from a pod spec they build out
of their custom resource: the container may give only ``args`` (the runtime's image or the
operator supplies the command), the model may be a field (``model.uri``, ``url``, ``storageUri``), and
the parallel layout or the GPU count may be fields too (``parallelism.tensor``, ``resources.gpu``,
``resourceProfile: nvidia-gpu-l4:2``). :class:`Implied` carries those fields, each with its line, and
:func:`crd_group` reads the pod through :func:`.pods.read_pod` and fills what the command line leaves
out from them. Flags written on the command line win over the resource's fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...model import UNKNOWN, EngineArgs, Inventory, Location, NodePool, ServingGroup
from ...model.errors import InputError
from ...model.unknown import is_placeholder
from ...model.vocab import GPU_RESOURCE
from ...vllm.args import parse_serve_args
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field
from .parse import Lines
from .pods import read_pod, string_field
from .workloads import fill_placement, make_group, note_launch

#: Where serving operators mount the downloaded model; a launch naming it serves the resource's model.
MODEL_MOUNTS = ("/mnt/models",)

#: The launch of vLLM's OpenAI server with the model as ``--model`` (KubeAI, KServe's vLLM runtime).
API_SERVER = ("python3", "-m", "vllm.entrypoints.openai.api_server")
VLLM_SERVE = ("vllm", "serve")


@dataclass
class Implied:
    """Engine settings a custom resource states outside the container's command line."""

    entrypoint: tuple[str | None, Sequence[str]] | None = None  # (container, command) for args-only containers
    model: tuple[str, Location] | None = None  # the model the resource names, e.g. from ``hf://org/name``
    flags: list[tuple[str, Any, Location]] = field(default_factory=list)  # ("--tensor-parallel-size", 4, where)
    gpus: tuple[Any, Location] | None = None  # accelerators per pod from a resource field
    resource: str = GPU_RESOURCE  # the extended resource ``gpus`` counts
    pool: NodePool | None = None  # the pool a resource field names (KubeAI resourceProfile, Ray accelerator_type)
    cpu: bool = False  # a resource field names vLLM's CPU backend (KubeAI resourceProfile cpu:N)


def model_from_uri(uri: Any) -> str | None:
    """``hf://org/name[:revision]`` -> ``org/name``; other URIs (``s3://``, ``pvc://``, ``gs://``) as written."""
    if not isinstance(uri, str) or not uri.strip():
        return None
    uri = uri.strip()
    if uri.startswith("hf://"):
        repo = uri[len("hf://"):].strip("/")
        return repo.split(":", 1)[0] or None
    return uri


#: Resource fields that set vLLM's parallel layout, and the flags they stand for.
PARALLELISM_FLAGS = {
    "tensor": "--tensor-parallel-size", "pipeline": "--pipeline-parallel-size", "data": "--data-parallel-size",
    "dataLocal": "--data-parallel-size-local", "tensorParallelSize": "--tensor-parallel-size",
    "pipelineParallelSize": "--pipeline-parallel-size",
}


def parallelism(implied: Implied, d: Mapping[str, Any], keys: Sequence[str], path: str, loc: Location,
                file: str | None) -> dict[str, Any]:
    """Read ``keys`` of a parallelism mapping (``parallelism.tensor``, ``workerSpec.tensorParallelSize``)
    into ``implied.flags``, each at its line; returns the values read (None where absent)."""
    values: dict[str, Any] = {}
    for key in keys:
        values[key] = positive_int(d, key, None, loc, f"{path}.{key}")
        if values[key] is not None:
            implied.flags.append((PARALLELISM_FLAGS[key], values[key], key_location(d, key, file, loc)))
    return values


def model_field(d: Any, key: str, what: str, file: str | None, default: Location) -> Any:
    """The model reference ``d[key]`` of a custom resource (KServe ``storageUri``, an LLMInferenceService's
    ``model.uri``, KubeAI's ``url``, an ArksApplication's ``model.name``, ...): the string, None when absent or
    null, UNKNOWN when not known yet; any other value is an :class:`InputError` at the field's own line (the
    API server refuses a non-string there), never read as a resource that names no model."""
    value = d.get(key) if isinstance(d, Mapping) else None
    return string_field(value, what, file, key_location(d, key, file, default).line)


def key_location(d: Any, key: str, file: str | None, default: Location) -> Location:
    if isinstance(d, LineDict) and key in d:
        return Location(file, d.line_of(key))
    return default


def synthetic_container(name: str, where: Any, file: str | None, **fields: Any) -> LineDict:
    """A container mapping built from a resource's fields (KubeAI ``args``/``env``), keeping their lines."""
    c = LineDict({k: v for k, v in fields.items() if v is not None})
    c.line = where.line if isinstance(where, LineDict) else None
    c["name"] = name
    if isinstance(where, LineDict):
        c.key_lines = {k: where.key_lines[k] for k in ("args", "env", "image", "resources") if k in where.key_lines}
    return c


def _apply_flags(engine: EngineArgs, flags: Sequence[tuple[str, Any, Location]]) -> None:
    """Set the engine fields a resource implies, unless the command line sets them itself."""
    for flag, value, where in flags:
        if value is None:
            continue
        tokens = [flag] if value is True else [flag, str(value)]
        implied = parse_serve_args(tokens, "api_server", where)
        for key, loc in implied.locations.items():
            if key in engine.locations:
                continue  # written on the command line: that wins
            if key in implied.extra:
                engine.extra[key] = implied.extra[key]
            else:
                setattr(engine, key, getattr(implied, key))
            engine.locations[key] = loc


def crd_group(inv: Inventory, kind: str, obj: Mapping[str, Any], loc: Location, lines: Lines | None, *,
              pod_meta: Any, pod_spec: Any, replicas: Any, implied: Implied | None = None,
              name: str | None = None, others: Sequence[Any] = (), pods_per_group: Any = 1,
              injected: Mapping[str, str] | None = None,
              pod_at: tuple[str | None, Sequence[str] | None] | None = None) -> ServingGroup | None:
    """Add the serving group of a pod spec held by a custom resource; None when it runs no vLLM server
    (a pod that looks like vLLM but cannot be read is recorded for SW002).

    ``others`` are the resource's other pod specs (Ray workers, LWS-style workers): placement and the
    GPU request the vLLM pod leaves out are taken from them. ``pod_at`` is (the file, its lines) the pod
    specs were written in when that is not the resource's own (an OME runtime in another file).
    """
    implied = implied or Implied()
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    pod_file, pod_lines = pod_at if pod_at is not None else (file, file_lines)
    pod = read_pod(pod_meta, pod_spec, pod_file, pod_lines, injected or {}, implied.entrypoint)
    if pod.engine is None:
        note_launch(inv, kind, obj, loc, pod, None, name)
        return None
    for other_spec in others:
        if as_map(other_spec):
            fill_placement(pod, read_pod(None, other_spec, pod_file, pod_lines, injected or {}))
    engine = pod.engine
    if implied.model is not None and (engine.model is None or _is_mount(engine.model)):
        engine.model, engine.locations["model"] = implied.model
    _apply_flags(engine, implied.flags)
    if pod.gpus is None and implied.gpus is not None:
        pod.gpus, where = implied.gpus
        pod.accelerator_resource = pod.accelerator_resource or implied.resource
        pod.locations["resources"] = where
    group = make_group(kind, obj, loc, pod, replicas, file, name=name)
    if pods_per_group != 1 or group.pods_per_group == 1:  # a resource's own count; else --nnodes' (make_group)
        group.pods_per_group = pods_per_group
    if implied.pool is not None:
        group.pool = implied.pool
    group.cpu_backend = implied.cpu
    inv.groups.append(group)
    note_launch(inv, kind, obj, loc, pod, group, name)
    return group


def _is_mount(model: Any) -> bool:
    return isinstance(model, str) and any(model.rstrip("/") == m or model.startswith(m + "/") for m in MODEL_MOUNTS)


def first_container(spec: Mapping[str, Any], *names: str) -> Mapping[str, Any]:
    """The container with one of ``names`` (in that order of preference), else the first, else {}."""
    containers = [c for c in as_list(spec.get("containers")) if isinstance(c, dict)]
    for n in names:
        for c in containers:
            if c.get("name") == n:
                return c
    return containers[0] if containers else {}


def unplaced(value: Any) -> Any:
    """``value`` without the lines it was written on: they are lines of another file than the pod is read in (a
    runtime joined to the service that names it from another input)."""
    if isinstance(value, Mapping):
        return LineDict({k: unplaced(v) for k, v in value.items()})
    if isinstance(value, list):
        return [unplaced(v) for v in value]
    return value


def replaced(d: Any, **fields: Any) -> LineDict:
    """A copy of mapping ``d`` (keeping its lines) with ``fields`` set: what an operator adds to a pod spec
    or a container before the pod is created."""
    out = LineDict(as_map(d))
    if isinstance(d, LineDict):
        out.line, out.key_lines = d.line, dict(d.key_lines)
    out.update(fields)
    return out


def placed(value: Mapping[str, Any], where: Any) -> LineDict:
    """``value`` (nested mappings too) as LineDicts placed on ``where``'s line: what an operator adds to a
    pod was written nowhere, so a finding about it points at the object it went into."""
    out = LineDict({k: (placed(v, where) if isinstance(v, Mapping) else v) for k, v in value.items()})
    out.line = where.line if isinstance(where, LineDict) else None
    return out


def memory_shm(volume: str, where: Any) -> tuple[LineDict, LineDict]:
    """(volume, mount) of a memory-backed emptyDir at /dev/shm named ``volume``, placed on ``where``'s line."""
    return (placed({"name": volume, "emptyDir": {"medium": "Memory"}}, where),
            placed({"name": volume, "mountPath": "/dev/shm"}, where))


def mounts_shm(container: Any) -> bool:
    return any(isinstance(m, Mapping) and m.get("mountPath") == "/dev/shm"
               for m in as_list(as_map(container).get("volumeMounts")))


def with_containers(spec: Any, containers: list[Any]) -> LineDict:
    """A copy of a pod spec mapping (keeping its lines) with ``containers`` replaced."""
    out = LineDict(as_map(spec))
    if isinstance(spec, LineDict):
        out.line, out.key_lines = spec.line, dict(spec.key_lines)
    out["containers"] = containers
    return out


def positive_int(d: Mapping[str, Any], key: str, default: Any, loc: Location, what: str) -> Any:
    """An integer field of at least 1 (``parallelism.tensor``), UNKNOWN when not known yet."""
    value = int_field(d, key, default, loc, what, minimum=1)
    return value


def gpu_count(value: Any, file: str | None, line: int | None, what: str) -> Any:
    """A whole number of accelerators written as a resource field (``gpu: "1"``). A template's placeholder written as
    the whole value (``gpu: ${DECODE_GPUS}`` in a Dynamo graph its workflow fills with envsubst, ``{{ .Values.gpus }}``)
    is the value the tool fills: unknown, as a pod's ``nvidia.com/gpu: ${GPUS}`` is (corpus27: sozercan/dynamo-actions'
    six SGLang templates were input errors "expected a whole number" and its lint exited 2)."""
    if value is None or value is UNKNOWN:
        return value
    if is_placeholder(value):
        return UNKNOWN
    try:
        n = int(str(value).strip())
    except ValueError:
        raise InputError(f"{what}: expected a whole number, got {value!r}", file, line) from None
    if n < 0:
        raise InputError(f"{what}: expected a whole number, got {value!r}", file, line)
    return n
