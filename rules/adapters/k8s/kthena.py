"""kthena (volcano-sh/kthena, API group ``workload.serving.volcano.sh``): ModelServing and ModelBooster.

- ``ModelServing``: ``spec.replicas`` serving groups (default 1), each made of the roles of
  ``spec.template.roles``. A role runs ``replicas`` instances (default 1); one instance is an entry pod
  (``entryTemplate``) and ``workerReplicas`` worker pods (``workerTemplate``; no workers without one), and
  together they are one vLLM engine: the entry starts the server (often ``ray start --head; vllm serve …``),
  the workers join it, and TP × PP spans the 1 + workerReplicas pods, as in a LeaderWorkerSet group. Each
  role whose entry (or worker) pod runs vLLM is a group ``NAME/<role>`` (a prefill/decode pair is two
  groups) with ``spec.replicas`` × the role's ``replicas`` replicas, 1 + ``workerReplicas`` pods per group,
  and the environment kthena gives its pods (``GROUP_SIZE``; ``WORKER_INDEX`` 0 on the entry; the workers'
  ``ENTRY_ADDRESS``). The GPUs of one pod are the entry's, else the worker's; where the entry and the
  workers request different counts, one count per pod does not describe the group, and the rules that count
  GPUs say they cannot decide. The controller creates the pods from the templates as written; plugins
  (``spec.plugins``) may change them, and then the rules about what an operator adds are advisory.
- ``ModelBooster``: see :func:`add_model_booster`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, Inventory, Location
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field, typed_map
from .parse import Lines
from .pods import Pod, read_pod
from .serving import (
    VLLM_SERVE,
    Implied,
    crd_group,
    key_location,
    memory_shm,
    model_field,
    model_from_uri,
    synthetic_container,
    with_containers,
)
from .workloads import add_more_groups, fill_placement, make_group, note_launch, pod_ports

KIND = "ModelServing"


def _product(a: Any, b: Any) -> Any:
    return a * b if isinstance(a, int) and isinstance(b, int) else UNKNOWN


def _accelerators(pod: Pod) -> tuple[Any, str | None]:
    """(accelerators, their resource) one pod requests: its vLLM container's, else its first container's that
    requests any; (0, None) when none does."""
    if pod.vllm is not None:
        return (0 if pod.gpus is None else pod.gpus), pod.accelerator_resource
    for c in pod.containers:
        if c.gpus is not None:
            return c.gpus, c.accelerator_resource
    return 0, None


def _mixed_gpus(entry: Pod, worker: Pod) -> bool:
    """Whether the entry and a worker request different known numbers (or kinds) of accelerators."""
    (a, ra), (b, rb) = _accelerators(entry), _accelerators(worker)
    if a is UNKNOWN or b is UNKNOWN:
        return False
    return a != b or (bool(a) and ra != rb)


def add_model_serving(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """A serving group for each role of a ModelServing whose pods run vLLM; True when one was added (or a
    vLLM-looking pod was recorded as not read)."""
    spec = typed_map(obj, "spec", "spec", loc)
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    meta = as_map(obj.get("metadata"))
    name = str(meta.get("name") or "unnamed")
    namespace = str(meta.get("namespace") or "default")
    serving_groups = int_field(spec, "replicas", 1, loc, "spec.replicas")
    template = typed_map(spec, "template", "spec.template", loc)
    plugins = bool(as_list(spec.get("plugins")))
    read = False
    for i, raw in enumerate(as_list(template.get("roles"))):
        role = as_map(raw)
        path = f"spec.template.roles[{i}]"
        where = Location(file, role.line) if isinstance(role, LineDict) and role.line else loc
        entry_raw = typed_map(role, "entryTemplate", f"{path}.entryTemplate", where)
        worker_raw = typed_map(role, "workerTemplate", f"{path}.workerTemplate", where)
        if not entry_raw:
            continue
        workers = int_field(role, "workerReplicas", 0, where, f"{path}.workerReplicas") if worker_raw else 0
        pods = UNKNOWN if workers is UNKNOWN else 1 + workers
        injected = {"GROUP_SIZE": str(pods)} if isinstance(pods, int) else {}
        role_name = str(role.get("name") or f"role-{i}")
        full = f"{name}/{role_name}"
        ports = pod_ports(f"{KIND} {namespace}/{name}", namespace, entry_raw.get("metadata"), entry_raw.get("spec"),
                          where)
        if ports is not None:
            inv.pod_ports.append(ports)
        entry = read_pod(entry_raw.get("metadata"), entry_raw.get("spec"), file, file_lines,
                         {**injected, "WORKER_INDEX": "0"}, where=where, path=f"{path}.entryTemplate.spec")
        worker = (read_pod(worker_raw.get("metadata"), worker_raw.get("spec"), file, file_lines, injected,
                           where=where, path=f"{path}.workerTemplate.spec") if worker_raw and workers else None)
        chosen = entry if entry.engine is not None or worker is None or worker.engine is None else worker
        other = worker if chosen is entry else entry
        if chosen.engine is None:
            unread = entry if entry.unread is not None or worker is None else worker
            note_launch(inv, KIND, obj, where, unread, None, full)
            read = read or unread.unread is not None
            continue
        mixed = worker is not None and _mixed_gpus(entry, worker)
        if other is not None:
            fill_placement(chosen, other)
        replicas = _product(serving_groups, int_field(role, "replicas", 1, where, f"{path}.replicas"))
        group = make_group(KIND, obj, where, chosen, replicas, file, name=full)
        group.pods_per_group = pods
        if mixed:
            group.gpus_per_pod = UNKNOWN  # the entry and its workers request different counts
        group.unknown_operator = plugins  # a plugin may add to the pods the templates describe
        if isinstance(role, LineDict) and "replicas" in role.key_lines:
            group.locations["replicas"] = Location(file, role.key_lines["replicas"])
        if isinstance(role, LineDict) and "workerReplicas" in role.key_lines:
            group.locations["size"] = Location(file, role.key_lines["workerReplicas"])
        inv.groups.append(group)
        note_launch(inv, KIND, obj, where, chosen, group, full)
        add_more_groups(KIND, obj, where, chosen, replicas, file, inv, group)
        read = True
    return read


def add_model_booster(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """kthena ``ModelBooster`` (``workload.serving.volcano.sh``): its ``backend`` (``backends[]`` in early
    releases) of ``type: vLLM`` or ``vLLMDisaggregated`` names the model (``modelURI``) and its
    ``workers[]``, each an image with ``config`` (vLLM's flags by name: ``max-model-len: 32768``; an empty
    value is a switch), ``resources``, ``replicas`` and ``pods``. The controller starts vLLM with those
    flags: each worker is a group ``NAME/<backend>/<type>`` with the backend's ``minReplicas`` × the
    worker's ``replicas`` and ``pods`` pods (an entry pod and its Ray workers; ``pods: 0``, which the CRD
    allows, is the entry pod alone). For ``vLLM`` it mounts a
    memory-backed ``/dev/shm`` in the engine container (kthena's convert/model_serving.go), for the
    disaggregated type it mounts none. A backend of another type (SGLang) is not vLLM."""
    spec = as_map(obj.get("spec"))
    file = loc.file
    name = as_map(obj.get("metadata")).get("name") or "unnamed"
    backends = [spec["backend"]] if isinstance(spec.get("backend"), dict) else as_list(spec.get("backends"))
    field_at = "spec.backend" if isinstance(spec.get("backend"), dict) else "spec.backends[]"
    for backend in backends:
        backend = as_map(backend)
        kind = str(backend.get("type") or "").lower()
        if kind not in ("vllm", "vllmdisaggregated"):
            continue
        where = Location(file, backend.line) if isinstance(backend, LineDict) else loc
        uri = model_from_uri(model_field(backend, "modelURI", f"{field_at}.modelURI", file, where))
        copies = int_field(backend, "minReplicas", 1, where, "spec.backends[].minReplicas")
        for worker in as_list(backend.get("workers")):
            worker = as_map(worker)
            at = Location(file, worker.line) if isinstance(worker, LineDict) else where
            implied = Implied(entrypoint=(None, VLLM_SERVE))
            config = as_map(worker.get("config"))
            for key, value in config.items():  # each flag at its own line
                flag = True if value in ("", None) else (str(value).lower() if isinstance(value, bool) else value)
                implied.flags.append((f"--{key}", flag, key_location(config, str(key), file, at)))
            container = synthetic_container(str(worker.get("type") or "server"), worker, file,
                                            image=worker.get("image"), env=backend.get("env"),
                                            resources=worker.get("resources"))
            pod_spec = with_containers(LineDict(), [container])
            if kind == "vllm":
                volume, mount = memory_shm("dshm", worker)
                container["volumeMounts"], pod_spec["volumes"] = [mount], [volume]
            if uri is not None:
                implied.model = (uri, key_location(backend, "modelURI", file, where))
            per = int_field(worker, "replicas", 1, at, "spec.backends[].workers[].replicas")
            total = copies * per if isinstance(copies, int) and isinstance(per, int) else UNKNOWN
            # kthena's CRD allows pods: 0 (kubebuilder Minimum=0); the entry pod runs the server either way and
            # a worker's pods beyond it join as Ray workers, so 0 and 1 both read as the entry pod alone
            pods = int_field(worker, "pods", 1, at, "spec.backends[].workers[].pods", minimum=0)
            if pods == 0:
                pods = 1
            crd_group(inv, "ModelBooster", obj, at, lines, pod_meta=None,
                      pod_spec=pod_spec, replicas=total, implied=implied,
                      name=f"{name}/{backend.get('name') or 'backend'}/{worker.get('type') or 'server'}",
                      pods_per_group=pods)
    return True
