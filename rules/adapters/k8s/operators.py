"""Serving operators whose resources hold vLLM settings or pod specs: KubeAI, NVIDIA Dynamo, AIBrix, llm-d.

- KubeAI ``Model`` (``kubeai.org/v1``) with ``engine: VLLM``: the model is ``url`` (``hf://org/name``),
  the flags ``args``, the environment ``env`` (a mapping), the GPUs ``resourceProfile``
  (``nvidia-gpu-l4:2``: 2 × the GPU the profile is named after; the profile's node selector lives in
  KubeAI's Helm values, so the pool is the profile's GPU). Replicas: ``replicas``, else ``minReplicas``
  (0 scales to zero; the group is sized as one replica).
- Dynamo ``DynamoGraphDeployment`` (``nvidia.com/v1alpha1``): each of ``spec.services`` whose
  ``extraPodSpec.mainContainer`` runs vLLM (``python3 -m dynamo.vllm``, ``vllm serve``) is a group
  ``NAME/<service>``; GPUs from ``resources.limits.gpu`` (or ``requests.gpu``), pods per group from
  ``multinode.nodeCount``, placement from ``extraPodSpec``. A main container with only ``args`` runs
  them through ``sh -c``, as the operator does. ``nvidia.com/v1beta1`` lists ``spec.components`` instead,
  each with a ``type`` and a whole ``podTemplate`` (the container ``main`` runs the engine).
- AIBrix ``StormService`` (``orchestration.aibrix.ai``): each role of ``spec.template.spec.roles``
  whose pod template runs vLLM is a group ``NAME/<role>`` with ``spec.replicas`` × the role's replicas.
- llm-d ``ModelService`` (``llm-d.ai``): ``decode`` and ``prefill`` each hold ``containers`` (the
  ``vllm`` container's args are ``vllm serve`` args), ``replicas`` and ``parallelism``
  (``tensor``, ``data``); the model is ``modelArtifacts.uri``; ``acceleratorTypes`` (``labelKey``,
  ``labelValues``) is a node-affinity requirement. The controller renders the containers' args as Go templates
  with the ModelService's own values (``{{ .HFModelName }}``, ``{{ .ModelPath }}``, ``{{ .MountedModelPath }}``,
  ``{{ "app_port" | getPort }}``: internal/controller/modelservice_controller.go TemplateVars) and merges the role
  into the Deployment template of its ``baseConfigMapRef`` ConfigMap (``decodeDeployment``/``prefillDeployment``,
  rendered the same way): containers and init containers by name, the role's fields over the base's, lists appended
  (child_resources.go mergePDDeployment: mergo WithOverride, WithAppendSlice), except in a container: the role's
  command replaces the base's, its args come before the base's, env merges by name (merge_transformers.go). That
  ConfigMap, read from any input, gives the image, command, resources and volumes the role leaves out; when no
  input holds it, what it may hold is not known (:func:`add_model_service`).
- Arks ``ArksApplication`` (``arks.ai/v1``) with ``runtime: vllm`` (the default): the operator runs a
  LeaderWorkerSet of ``spec.replicas`` groups of ``spec.size`` pods (at least 1) in ``spec.runtimeImage``
  (else its default, ``vllm/vllm-openai:v0.8.2`` at scitix/arks e1732a9); the leader runs ``python3 -m
  vllm.entrypoints.openai.api_server --port 8080 --model /models/models/<namespace>/<ArksModel>
  --served-model-name … --tensor-parallel-size <spec.tensorParallelSize>`` and then each of
  ``spec.runtimeCommonArgs`` through ``bash -c``; the workers join its Ray cluster. Each pod gets
  ``spec.instanceSpec``'s resources, env, probes, volumes and placement; the operator adds no /dev/shm
  (internal/controller/arksapplication_controller.go: generateLws, generateLeaderCommand). The model is the
  ``spec.model`` of the ``ArksModel`` of that name and namespace when an input holds it
  (:func:`link_arks_models`), else the path as the operator passes it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ... import catalog
from ...catalog.accelerators import vendor_resources
from ...catalog.resolve import resolve_model
from ...model import UNKNOWN, CrossRef, Inventory, LaunchIssue, Location, NodePool
from ...model.errors import CatalogError, InputError
from ...model.unknown import holds_placeholder, is_placeholder, named_as_written
from ...model.vocab import INSTANCE_TYPE
from ..yamlsrc import LineDict, load_documents
from .configfile import config_map_data, config_map_unread, namespace_of
from .fields import as_list, as_map, int_field, read_annotations, suppressions_from
from .generic import add_generic
from .parse import Lines
from .serving import (
    API_SERVER,
    VLLM_SERVE,
    Implied,
    crd_group,
    gpu_count,
    key_location,
    memory_shm,
    model_field,
    model_from_uri,
    mounts_shm,
    parallelism,
    placed,
    positive_int,
    replaced,
    synthetic_container,
    unplaced,
    with_containers,
)

# ---------------------------------------------------------------------------------------------
# KubeAI
# ---------------------------------------------------------------------------------------------

#: NodePool.kind of the pool a KubeAI resource profile names.
PROFILE_POOL_KIND = "resource-profile"

#: KubeAI resource-profile name prefixes, and who makes the accelerator they name.
_PROFILE_PREFIXES = (("nvidia-gpu-", "nvidia"), ("amd-gpu-", "amd"), ("google-tpu-", "google"),
                     ("intel-gaudi-", "intel"), ("aws-neuron-", "aws"))


#: The profiles whose GPU KubeAI's chart binds with a node selector on the GPU in the values it ships for EKS
#: (charts/kubeai/values-eks.yaml: karpenter.k8s.aws/instance-gpu-name, and -memory for the A100s) or GKE
#: (values-gke.yaml: cloud.google.com/gke-accelerator, gke-tpu-accelerator and topology). Its base values.yaml gives
#: every profile limits and tolerations but no node selector, so another name (nvidia-gpu-t4, nvidia-gpu-gh200, a
#: team's nvidia-gpu-a10g) says its GPU by its name only: the blocking findings that read that GPU are advisory.
_BOUND_PROFILES = frozenset({"nvidia-gpu-l4", "nvidia-gpu-l40s", "nvidia-gpu-h100", "nvidia-gpu-a100-80gb",
                             "nvidia-gpu-a100-40gb", "google-tpu-v5e-1x1", "google-tpu-v5e-2x2", "google-tpu-v5e-2x4"})


def _profile_pool(profile: str, where: Location) -> NodePool | None:
    """The pool a KubeAI resource profile names: ``nvidia-gpu-h100`` -> H100, ``amd-gpu-mi300x`` -> MI300X."""
    found = next(((p, v) for p, v in _PROFILE_PREFIXES if profile.startswith(p)), None)
    if found is None:
        return None  # "cpu" or a profile named otherwise
    prefix, vendor = found
    part = profile[len(prefix):]
    pool = NodePool(name=f"resourceProfile {profile}", location=where, kind=PROFILE_POOL_KIND, accelerator=vendor)
    candidates = [part, part.rsplit("-", 1)[0]] if vendor == "google" else [part]
    for name in candidates:  # google-tpu-v5e-2x2: the chip is v5e, 2x2 its topology
        try:
            pool.gpu = catalog.find_gpu(("tpu-" + name) if vendor == "google" else name)
            break
        except CatalogError:
            continue
    if pool.gpu is None:
        pool.gpu_memory_gib = UNKNOWN  # a profile named for a GPU the catalog does not know
    else:
        pool.gpu_memory_gib = pool.gpu.memory_gib
        if profile not in _BOUND_PROFILES:  # a GPU read from the profile's name alone
            pool.gpu_assumed = (f"the GPU is read from the name of resource profile `{profile}`, to which KubeAI's "
                                "shipped values bind no node selector, so which GPU the pod gets is set in the "
                                "cluster's KubeAI resourceProfiles, which are not in the inputs")
    return pool  # gpus_per_node unset: the profile says what a pod gets (on one node), not what a node has


#: Words of a custom profile's name that say whose accelerator it gives (``gaudi-for-text-generation``).
_PROFILE_WORDS = (("gaudi", "intel"), ("neuron", "aws"), ("inferentia", "aws"), ("trainium", "aws"),
                  ("tpu", "google"), ("amd", "amd"), ("instinct", "amd"), ("nvidia", "nvidia"))


def _custom_profile_pool(profile: str, where: Location) -> NodePool:
    """The pool of a resource profile that is not one of KubeAI's defaults (``gaudi-for-text-generation``): the
    operator gives the pod the profile's ``limits`` × the count, and those live in KubeAI's configuration (the
    Helm values' ``resourceProfiles``), not in the inputs; so the accelerator count is unknown (not none) and
    the accelerator is the one the profile's name speaks of, where it names one."""
    words = profile.lower().replace("_", "-").split("-")
    vendor = next((v for w, v in _PROFILE_WORDS if w in words), None)
    pool = NodePool(name=f"resourceProfile {profile}", location=where, kind=PROFILE_POOL_KIND, accelerator=vendor)
    pool.gpu_memory_gib = UNKNOWN
    return pool


#: The probes KubeAI's model controller gives a vLLM server (internal/modelcontroller/engine_vllm.go): three
#: hours to start, then readiness and liveness on /health; with a memory-backed /dev/shm.
_KUBEAI_VLLM_PROBES: dict[str, dict[str, Any]] = {
    "startupProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 2, "timeoutSeconds": 2,
                     "failureThreshold": 5400},
    "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10, "timeoutSeconds": 2,
                       "failureThreshold": 3},
    "livenessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 30, "timeoutSeconds": 3,
                      "failureThreshold": 3},
}


def _env_list(env: Any) -> list[LineDict]:
    """A ``{NAME: value}`` env mapping (KubeAI's ``spec.env``) as the container's env list, each entry at its
    name's line, so that a value of the wrong type is an error where it was written."""
    out: list[LineDict] = []
    for k, v in as_map(env).items():
        entry = LineDict({"name": str(k), "value": v})
        entry.line = env.key_lines.get(k) if isinstance(env, LineDict) else None
        if entry.line is not None:
            entry.key_lines = {"name": entry.line, "value": entry.line}
        out.append(entry)
    return out


def add_kubeai_model(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    if str(spec.get("engine") or "").upper() != "VLLM":
        return True  # OLlama, FasterWhisper, Infinity: recognised, not vLLM
    file = loc.file
    implied = Implied(entrypoint=(None, API_SERVER))
    url = model_from_uri(model_field(spec, "url", "spec.url", file, loc))
    if url is not None:
        implied.model = (url, key_location(spec, "url", file, loc))
    profile = spec.get("resourceProfile")
    if isinstance(profile, str) and profile.strip():
        where = key_location(spec, "resourceProfile", file, loc)
        name, _, count = profile.strip().partition(":")
        amount = gpu_count(count or "1", file, where.line, "spec.resourceProfile count")
        implied.pool = _profile_pool(name, where)
        if implied.pool is not None:
            implied.gpus = (amount, where)
            implied.resource = vendor_resources()[implied.pool.accelerator or "nvidia"]
        elif name == "cpu":  # cpu:6 is six times the CPU profile's cores and memory: no accelerator
            implied.cpu = True
        else:  # a profile of the team's own KubeAI configuration: the operator writes its limits × the count
            implied.pool = _custom_profile_pool(name, where)
            implied.gpus = (UNKNOWN, where)
            implied.resource = vendor_resources()[implied.pool.accelerator or "nvidia"]
    env = _env_list(spec.get("env"))
    container = synthetic_container("server", spec, file, image=spec.get("image"), args=spec.get("args") or [],
                                    env=env or None)
    volume, mount = memory_shm("dshm", container)  # what KubeAI's model controller gives every vLLM pod
    container = replaced(container, volumeMounts=[mount], **{
        key: placed(probe, container) for key, probe in _KUBEAI_VLLM_PROBES.items()})
    if "replicas" in spec:
        replicas = int_field(spec, "replicas", 1, loc, "spec.replicas")
    else:
        replicas = max(1, int_field(spec, "minReplicas", 1, loc, "spec.minReplicas"))
    pod_spec = with_containers(LineDict(), [container])
    pod_spec["volumes"] = [volume]
    crd_group(inv, "Model", obj, loc, lines, pod_meta=obj.get("metadata"), pod_spec=pod_spec, replicas=replicas,
              implied=implied)
    return True


# ---------------------------------------------------------------------------------------------
# NVIDIA Dynamo
# ---------------------------------------------------------------------------------------------


#: What the Dynamo operator gives a worker's main container unless the service says otherwise (its
#: "Operator Default Values Injection" documentation): a startup probe of 720 × 10 s, and an 8Gi memory
#: emptyDir at /dev/shm (``sharedMemory.disabled: true`` turns that off).
_DYNAMO_WORKER_STARTUP: dict[str, Any] = {"periodSeconds": 10, "failureThreshold": 720}  # its timing only


def _dynamo_worker(svc: Mapping[str, Any]) -> bool:
    """A component that runs an engine: v1alpha1's ``componentType`` or v1beta1's ``type`` (worker, prefill,
    decode); the frontend, planner and router run none."""
    kind = svc.get("type") if "type" in svc else svc.get("componentType")
    return str(kind or "worker").lower() in ("worker", "prefill", "decode")


def _dynamo_defaults(svc: Mapping[str, Any], container: LineDict, pod_spec: LineDict) -> None:
    """The operator's defaults for a worker's main container: its startup probe and its /dev/shm."""
    if "startupProbe" not in container:  # the operator's for workers: two hours to load
        container["startupProbe"] = placed(_DYNAMO_WORKER_STARTUP, container)
    if as_map(svc.get("sharedMemory")).get("disabled") is not True and not mounts_shm(container):
        volume, mount = memory_shm("shared-memory", container)  # the operator's default: 8Gi of memory
        container["volumeMounts"] = [*as_list(container.get("volumeMounts")), mount]
        pod_spec["volumes"] = [*as_list(pod_spec.get("volumes")), volume]


def _copy(value: Any) -> LineDict:
    out = LineDict(as_map(value))
    if isinstance(value, LineDict):
        out.line, out.key_lines = value.line, dict(value.key_lines)
    return out


def add_dynamo_graph(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    file = loc.file
    name = as_map(obj.get("metadata")).get("name") or "unnamed"
    if isinstance(spec.get("components"), list):
        return _add_dynamo_components(obj, spec, loc, inv, lines, str(name))
    services = as_map(spec.get("services"))
    for service, raw in services.items():
        svc = as_map(raw)
        if not _dynamo_worker(svc):
            continue
        extra = as_map(svc.get("extraPodSpec"))
        main = extra.get("mainContainer")
        if not isinstance(main, dict):
            continue
        where = key_location(services, str(service), file, loc)
        container = _copy(main)
        container.setdefault("name", "main")
        pod_spec = with_containers(extra, [container])
        _dynamo_defaults(svc, container, pod_spec)
        implied = Implied(entrypoint=(None, ("/bin/sh", "-c")))
        resources = as_map(svc.get("resources"))
        for part in ("limits", "requests"):
            section = as_map(resources.get(part))
            if "gpu" in section:
                implied.gpus = (gpu_count(section["gpu"], file, key_location(section, "gpu", file, where).line,
                                          f"spec.services.{service}.resources.{part}.gpu"),
                                key_location(resources, part, file, where))
                break
        multinode = as_map(svc.get("multinode"))
        pods = positive_int(multinode, "nodeCount", 1, where, f"spec.services.{service}.multinode.nodeCount")
        replicas = int_field(svc, "replicas", 1, where, f"spec.services.{service}.replicas")
        crd_group(inv, "DynamoGraphDeployment", obj, where, lines, pod_meta=None, pod_spec=pod_spec,
                  replicas=replicas, implied=implied, name=f"{name}/{service}", pods_per_group=pods)
    return True


def _add_dynamo_components(obj: Mapping[str, Any], spec: Mapping[str, Any], loc: Location, inv: Inventory,
                           lines: Lines | None, name: str) -> bool:
    """``nvidia.com/v1beta1``: ``spec.components`` is a list; each has a ``name``, a ``type``, ``replicas``,
    ``multinode.nodeCount`` and a whole ``podTemplate`` whose container ``main`` (else the first) is the
    engine's, with its GPUs in its own ``resources``. One pod per group unless ``multinode`` says more."""
    file = loc.file
    components = spec["components"]
    for index, raw in enumerate(components):
        svc = as_map(raw)
        if not _dynamo_worker(svc):
            continue
        template = as_map(svc.get("podTemplate"))
        pod = as_map(template.get("spec"))
        containers = [c for c in as_list(pod.get("containers")) if isinstance(c, Mapping)]
        if not containers:
            continue
        main = next((c for c in containers if c.get("name") == "main"), containers[0])
        component = str(svc.get("name") or index)
        where = Location(file, raw.line if isinstance(raw, LineDict) and raw.line else loc.line)
        container = _copy(main)
        pod_spec = with_containers(pod, [container if c is main else c for c in containers])
        _dynamo_defaults(svc, container, pod_spec)
        multinode = as_map(svc.get("multinode"))
        what = f"spec.components[{index}]"
        pods = positive_int(multinode, "nodeCount", 1, where, f"{what}.multinode.nodeCount")
        replicas = int_field(svc, "replicas", 1, where, f"{what}.replicas")
        crd_group(inv, "DynamoGraphDeployment", obj, where, lines, pod_meta=template.get("metadata"),
                  pod_spec=pod_spec, replicas=replicas, implied=Implied(entrypoint=(None, ("/bin/sh", "-c"))),
                  name=f"{name}/{component}", pods_per_group=pods)
    return True


# ---------------------------------------------------------------------------------------------
# AIBrix StormService
# ---------------------------------------------------------------------------------------------


def add_storm_service(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    file = loc.file
    name = as_map(obj.get("metadata")).get("name") or "unnamed"
    replicas = int_field(spec, "replicas", 1, loc, "spec.replicas")
    for role in as_list(as_map(as_map(spec.get("template")).get("spec")).get("roles")):
        role = as_map(role)
        template = as_map(role.get("template"))
        if not template:
            continue
        where = Location(file, role.line) if isinstance(role, LineDict) else loc
        role_replicas = int_field(role, "replicas", 1, where, "roles[].replicas")
        total = replicas * role_replicas if isinstance(replicas, int) and isinstance(role_replicas, int) else UNKNOWN
        pods = positive_int(role, "podGroupSize", 1, where, "roles[].podGroupSize")
        crd_group(inv, "StormService", obj, where, lines, pod_meta=template.get("metadata"),
                  pod_spec=template.get("spec"), replicas=total, name=f"{name}/{role.get('name') or 'role'}",
                  pods_per_group=pods)
    return True


# ---------------------------------------------------------------------------------------------
# llm-d ModelService
# ---------------------------------------------------------------------------------------------


#: Where the ModelService controller mounts the model volume (internal/controller/constants.go modelStorageRoot).
_MSVC_STORAGE_ROOT = "/model-cache"
#: A Go template action the controller renders: ``{{ .Name }}`` (a TemplateVars field) or ``{{ "port" | getPort }}``.
_MSVC_VAR = re.compile(r"\{\{-?\s*\.(\w+)\s*-?\}\}")
_MSVC_PORT = re.compile(r"\{\{-?\s*\"([^\"]*)\"\s*\|\s*getPort\s*-?\}\}")


def _msvc_values(obj: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The template values the ModelService controller renders its templates with that the object decides
    (TemplateVars.from: the model's name and path from ``modelArtifacts.uri``), and the ports ``getPort`` looks
    up by name in ``routing.ports``."""
    meta = as_map(obj.get("metadata"))
    values = {"ModelServiceName": str(meta.get("name") or ""), "ModelServiceNamespace": namespace_of(obj)}
    routing = as_map(spec.get("routing"))
    if isinstance(routing.get("modelName"), str):
        values["ModelName"] = routing["modelName"]
    uri = as_map(spec.get("modelArtifacts")).get("uri")
    if isinstance(uri, str) and uri.startswith("hf://"):
        values["HFModelName"] = values["ModelPath"] = uri[len("hf://"):]
        values["MountedModelPath"] = _MSVC_STORAGE_ROOT
    elif isinstance(uri, str) and uri.startswith("pvc://"):
        values["ModelPath"] = "/".join(uri[len("pvc://"):].split("/")[1:])
        values["MountedModelPath"] = f"{_MSVC_STORAGE_ROOT}/{values['ModelPath']}"
    ports = {str(p["name"]): str(p["port"]) for p in as_list(routing.get("ports"))  # an int32 in the CRD's schema
             if isinstance(p, Mapping) and p.get("name") is not None and type(p.get("port")) is int}
    return values, ports


def _msvc_render(text: str, values: Mapping[str, str], ports: Mapping[str, str]) -> str:
    """``text`` with the template actions the object decides rendered; any other is left as written."""
    text = _MSVC_VAR.sub(lambda m: values.get(m.group(1), m.group(0)), text)
    return _MSVC_PORT.sub(lambda m: ports.get(m.group(1), m.group(0)), text)


def _msvc_container(c: Any, values: Mapping[str, str], ports: Mapping[str, str]) -> Any:
    """A role's container with its args rendered as the controller renders them (interpolateContainerArgs)."""
    if not isinstance(c, Mapping) or not isinstance(c.get("args"), list):
        return c
    return replaced(c, args=[_msvc_render(a, values, ports) if isinstance(a, str) else a for a in c["args"]])


def _placed_all(value: Any, where: Any) -> Any:
    """``value`` (its mappings at any depth, in lists too) placed on ``where``'s line: the base template was written
    in a ConfigMap's string, so a finding about what it gives points at the role that merges it."""
    if isinstance(value, Mapping):
        out = LineDict({k: _placed_all(v, where) for k, v in value.items()})
        out.line = getattr(where, "line", None)
        out.key_lines = {k: out.line or 0 for k in value} if out.line else {}
        return out
    if isinstance(value, list):
        return [_placed_all(v, where) for v in value]
    return value


def _merged(base: Any, over: Any) -> Any:
    """``over`` merged into ``base`` as mergo does with WithOverride and WithAppendSlice: mappings key by key,
    lists appended, any other value of ``over`` replaces the base's."""
    if isinstance(base, Mapping) and isinstance(over, Mapping):
        out = LineDict({**base})
        for k, v in over.items():
            out[k] = _merged(base[k], v) if k in base else v
        if isinstance(over, LineDict):
            out.line, out.key_lines = over.line, {**getattr(base, "key_lines", {}), **over.key_lines}
        return out
    if isinstance(base, list) and isinstance(over, list):
        return [*base, *over]
    return over


def _merged_container(base: Mapping[str, Any], over: Mapping[str, Any]) -> Any:
    """A role's container merged into the base template's container of the same name as the controller merges it
    (internal/controller/merge_transformers.go containerSliceTransformer): the role's ``command``, when it gives
    one, replaces the base's; the role's ``args`` come before the base's (stringSlicePrependTransformer), so of a
    flag both give vLLM's parser keeps the base's, the later; ``env`` is merged by name (the role's fields over
    the base's entry, the role's other entries after the base's); any other list appended, mappings key by key
    (:func:`_merged`)."""
    out = _merged(base, over)
    command = over.get("command")
    if isinstance(command, list) and command:
        out["command"] = command
    elif "command" in base:
        out["command"] = base["command"]
    args, base_args = over.get("args"), base.get("args")
    if isinstance(args, list) and args and isinstance(base_args, list):
        out["args"] = [*args, *base_args]
    env, base_env = over.get("env"), base.get("env")
    if isinstance(env, list) and isinstance(base_env, list):
        own = {name: e for e in env if (name := _name(e)) is not None}
        common = {name for e in base_env if (name := _name(e)) is not None and name in own}
        out["env"] = [*(_merged(e, own[e["name"]]) if _name(e) in common else e for e in base_env),
                      *(e for e in env if _name(e) not in common)]
    return out


def _by_name(base: list[Any], own: list[Any], where: Location) -> list[Any]:
    """The base template's containers with the role's merged in by name (:func:`_merged_container`), then the role's
    other containers (merge_transformers.go genericSliceTransformer)."""
    by_name = {_name(c): c for c in own if isinstance(c, Mapping)}  # one with no name, or not a string, under None
    merged = [_merged_container(_placed_all(c, where), by_name.pop(_name(c))) if _name(c) in by_name
              else _placed_all(c, where) for c in base if isinstance(c, Mapping)]
    return [*merged, *by_name.values()]


def _name(item: Any) -> str | None:
    """The ``name`` of a container or an env entry where it is a string: a list or a mapping there (an input error of
    the pod's reader) names nothing, and was a TypeError (unhashable) where names were matched (fuzz22)."""
    name = item.get("name") if isinstance(item, Mapping) else None
    return name if isinstance(name, str) else None


def _msvc_base_pod(name: str, namespace: str | None, role: str, values: Mapping[str, str],
                   ports: Mapping[str, str], file: str | None) -> tuple[Mapping[str, Any], int | None] | str:
    """The pod spec of the ``<role>Deployment`` template of ConfigMap ``name`` (rendered) and the template's
    ``spec.replicas`` (None when it writes no number), ({}, None) when the ConfigMap holds no such template (the
    controller then builds the Deployment from the role alone), or why what it holds is not known: no input holds
    the ConfigMap, or its template is not YAML once rendered with what the object decides."""
    data = config_map_data(name, namespace)
    if data is None:
        return config_map_unread(name, namespace)
    text = data.get(f"{role}Deployment")
    if not isinstance(text, str):
        return {}, None
    for _, doc in load_documents(_msvc_render(text, values, ports), file or "<configmap>"):
        if isinstance(doc, Mapping):
            dep = as_map(doc.get("spec"))
            replicas = dep.get("replicas")
            return (unplaced(as_map(as_map(dep.get("template")).get("spec"))),
                    replicas if type(replicas) is int and replicas >= 0 else None)
    return f"whose `{role}Deployment` is not YAML once rendered with what this object decides"


def add_model_service(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    file = loc.file
    name = as_map(obj.get("metadata")).get("name") or "unnamed"
    artifacts = as_map(spec.get("modelArtifacts"))
    uri = model_from_uri(model_field(artifacts, "uri", "spec.modelArtifacts.uri", file, loc))
    values, ports = _msvc_values(obj, spec)
    base_name = as_map(spec.get("baseConfigMapRef")).get("name")
    # the controller reads the ConfigMap of baseConfigMapRef.namespace, the ModelService's when that is blank
    # (child_resources.go getChildResourcesFromConfigMap)
    base_ns = as_map(spec.get("baseConfigMapRef")).get("namespace")
    base_ns = base_ns.strip() or None if isinstance(base_ns, str) else None
    for role in ("decode", "prefill"):
        part = as_map(spec.get(role))
        if not part:
            continue
        where = key_location(spec, role, file, loc)
        implied = Implied(entrypoint=("vllm", VLLM_SERVE))
        if uri is not None:
            implied.model = (uri, key_location(artifacts, "uri", file, loc))
        parallelism(implied, as_map(part.get("parallelism")), ("tensor", "data"), f"spec.{role}.parallelism",
                    where, file)
        containers = [_msvc_container(c, values, ports) for c in as_list(part.get("containers"))]
        fragment: str | None = None
        base: Mapping[str, Any] = {}
        base_replicas: int | None = None
        base_unread = ""  # why the base's template is not read (mend25: absent, or held twice with different data)
        if isinstance(base_name, str) and base_name:
            found = _msvc_base_pod(base_name, base_ns, role, values, ports, file)
            base_unread = found if isinstance(found, str) else ""
            if isinstance(found, str):
                fragment = (f"the ModelService controller merges this role into the Deployment template of ConfigMap "
                            f"`{base_name}` (spec.baseConfigMapRef), {found}")
            else:
                base, base_replicas = found
            if base:
                containers = _by_name(as_list(base.get("containers")), containers, where)
                # init containers too (small16): the controller renders them as the containers and its Deployment
                # merge's containerSliceTransformer applies to every []corev1.Container, so they merge by name
                # (child_resources.go interpolateContainerArgsForPDSpec, mergePDDeployment)
                base_init = as_list(base.get("initContainers"))
                init = [_msvc_container(c, values, ports) for c in as_list(part.get("initContainers"))]
                part = _merged(_placed_all({k: v for k, v in base.items() if k not in ("containers", "initContainers")},
                                           where), part)
                if base_init or init:
                    lines_of = (getattr(part, "line", None), dict(getattr(part, "key_lines", {})))
                    part = LineDict(part)
                    part.line, part.key_lines = lines_of
                    part["initContainers"] = _by_name(base_init, init, where)
        pod_spec = with_containers(part, containers)
        accel = as_map(part.get("acceleratorTypes"))
        if accel.get("labelKey") and as_list(accel.get("labelValues")):
            term = {"matchExpressions": [{"key": str(accel["labelKey"]), "operator": "In",
                                          "values": [str(v) for v in as_list(accel["labelValues"])]}]}
            pod_spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [term]}}}
            pod_spec.key_lines["affinity"] = key_location(part, "acceleratorTypes", file, where).line or 0
        # a role without replicas leaves the base template's (mergo.WithOverride keeps dst where src is nil)
        replicas = int_field(part, "replicas", 1 if base_replicas is None else base_replicas, where,
                             f"spec.{role}.replicas")
        group = crd_group(inv, "ModelService", obj, where, lines, pod_meta=None, pod_spec=pod_spec,
                          replicas=replicas, implied=implied, name=f"{name}/{role}")
        if group is not None and fragment is not None:
            group.fragment = fragment
            group.fragment_fix = (f"keep in the inputs only the ConfigMap `{base_name}` the cluster holds"
                                  if base_unread.startswith("in the inputs") else
                                  f"lint ConfigMap `{base_name}` with it")
            group.fragment_args = True  # the base's args follow the role's (stringSlicePrependTransformer)
    return True



# ---------------------------------------------------------------------------------------------
# SageMaker HyperPod
# ---------------------------------------------------------------------------------------------

def add_hyperpod_endpoint(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                          lines: Lines | None) -> bool:
    r"""SageMaker HyperPod ``InferenceEndpointConfig`` (``inference.sagemaker.aws.amazon.com``): its ``spec.worker``
    container is read as any pod spec (:mod:`.generic`), and ``spec.instanceType`` ("Instance Type to deploy the model
    on", a SageMaker name matching ``^ml\..*``: the CRD at aws/sagemaker-hyperpod-cli's inference-operator chart) is
    where the operator runs the pod. HyperPod's EKS nodes carry that name as their ``node.kubernetes.io/instance-type``
    label, so the group selects it as a nodeSelector would (the node pool reads an ``ml.`` name as its EC2 type).
    A placeholder (``${HYPERPOD_INSTANCE_TYPE}``) leaves the group's node selector unknown; a non-string, unread."""
    marks = len(inv.groups)
    added = add_generic(kind, obj, loc, inv, lines)
    instance = as_map(obj.get("spec")).get("instanceType")
    if isinstance(instance, str) and instance.strip():
        for group in inv.groups[marks:]:
            if is_placeholder(instance):  # envsubst's ${HYPERPOD_INSTANCE_TYPE}: the node is not known yet
                group.node_selector = UNKNOWN
            elif isinstance(group.node_selector, dict) and INSTANCE_TYPE not in group.node_selector:
                group.node_selector = {**group.node_selector, INSTANCE_TYPE: instance.strip()}
    # ``spec.replicas`` is the endpoint's pod count (the CRD's scale subresource: specReplicasPath .spec.replicas); the
    # worker sits beside it, not below it, so the generic reader does not see it. An autoScalingSpec lets the
    # operator's KEDA ScaledObject move it between its min and max: unknown then.
    spec = as_map(obj.get("spec"))
    replicas = spec.get("replicas")
    if (isinstance(replicas, int) and not isinstance(replicas, bool) and replicas >= 0
            and spec.get("autoScalingSpec") is None):
        for group in inv.groups[marks:]:
            if group.replicas is UNKNOWN:
                group.replicas, group.replicas_why = replicas, None
    elif spec.get("autoScalingSpec") is not None:
        for group in inv.groups[marks:]:
            if group.replicas is UNKNOWN:
                group.replicas_why = ("spec.autoScalingSpec is set: the operator's KEDA ScaledObject moves "
                                      "spec.replicas between its minReplicaCount and maxReplicaCount")
    if not added:
        inv.skipped[kind] += 1  # as an object no adapter claims
    return added


def add_kaito_workspace(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """Kaito ``Workspace`` (``kaito.sh``) with an inference preset: the operator writes the vLLM command from
    the preset and the instance type, so no command is in the object. What is known (the preset, the
    instance type, the node count) is recorded for SW005, which says why the workload was not sized; a
    workspace with its own pod template (``inference.template``) is read by the generic reader instead."""
    _kaito_spec_refused(obj, loc)
    inference = as_map(obj.get("inference"))
    preset = as_map(inference.get("preset"))
    if not preset.get("name"):
        return False
    meta = as_map(obj.get("metadata"))
    ann, ann_lines = read_annotations(meta, {})
    runtime = str(ann.get("kaito.sh/runtime") or "vllm").lower()
    if runtime != "vllm":
        return True  # the Hugging Face transformers runtime: not vLLM
    resource = as_map(obj.get("resource"))
    count = resource.get("count", 1)
    instance = resource.get("instanceType")
    if not instance:
        on = "the nodes its labelSelector matches (no instanceType)"
    elif holds_placeholder(instance) or holds_placeholder(count):  # a template's value is named as one (corpus37)
        shown = named_as_written(instance, "instance type") if holds_placeholder(instance) else str(instance)
        on = (f"as many nodes as the template placeholder `{count}` says of {shown}" if holds_placeholder(count)
              else f"{count} × {shown}")
    else:
        on = f"{count} × {instance}"
    subject = f"Workspace {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"
    where = key_location(preset, "name", loc.file, loc)
    inv.launch_issues.append(LaunchIssue(subject, "", (
        f"Kaito runs {named_as_written(preset['name'], 'preset')} with vLLM on {on} and writes the vLLM command "
        "(model, tensor parallel size from the instance type's GPUs, max model length) itself"
        f"{_kaito_config_text(inference.get('config'), namespace_of(obj))}, so no command is in "
        "the object; lint the pod it renders (kubectl get pod -o yaml) to check the layout"), where,
        mentioned=True, suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line)))
    return True


#: The fields of a KAITO Workspace, which sit at the object's top level beside metadata (kaito-project/kaito
#: api/v1alpha1/workspace_types.go at 46dea37d: Resource, Inference, Tuning, Status; the same in v1beta1).
_KAITO_WORKSPACE_FIELDS = ("resource", "inference", "tuning")


def _kaito_spec_refused(obj: Mapping[str, Any], loc: Location) -> None:
    """A Workspace whose ``resource``/``inference``/``tuning`` sit under a ``spec:`` it does not have (corpus44:
    ctava-msft/apim-mcp-aks-kaito's k8s/kaito-workspace.yaml) is an input error at ``spec``: the CRD
    (config/crd/bases/kaito.sh_workspaces.yaml) declares no ``spec`` and no preserve-unknown-fields at its root, so
    kubectl's strict field validation refuses the object (the API server prunes it where validation is off), and
    KAITO's webhook refuses a Workspace with neither inference nor tuning ("Either Inference or Tuning must be
    specified, not neither": validateCreate, api/v1alpha1/workspace_validation.go at a637a5fd). Nothing is served,
    so nothing is read as served."""
    spec = obj.get("spec")
    if not isinstance(spec, Mapping) or any(obj.get(k) is not None for k in ("inference", "tuning")):
        return
    nested = [k for k in _KAITO_WORKSPACE_FIELDS if k in spec]
    if not nested:
        return
    line = obj.line_of("spec") if isinstance(obj, LineDict) else None
    named = nested[0] if len(nested) == 1 else f"{', '.join(nested[:-1])} and {nested[-1]}"
    raise InputError(
        f"spec: a KAITO Workspace has no spec: its {named} {'belongs' if len(nested) == 1 else 'belong'} at the "
        "object's top level, beside "
        "metadata; as written, kubectl refuses the unknown field spec (the API server drops it where validation is "
        "off) and KAITO's webhook then refuses a Workspace with neither inference nor tuning, so nothing is served; "
        f"move {named} out of spec", loc.file, line or loc.line)


#: The vLLM settings of a KAITO inference config that decide the layout SW005 names, as the finding writes them.
_KAITO_LAYOUT_KEYS = ("tensor-parallel-size", "pipeline-parallel-size", "max-model-len", "gpu-memory-utilization")


def _kaito_config_text(name: Any, namespace: str) -> str:
    """What a Workspace's ``inference.config`` ConfigMap does to the command KAITO writes (corpus37). KAITO's vLLM
    entrypoint appends each ``vllm:`` entry of the ConfigMap's ``inference_config.yaml`` as ``--key value`` after the
    command line the controller wrote (``KAITOArgumentParser.parse_args``, presets/workspace/inference/vllm/
    inference_api.py at kaito-project/kaito 0170b84a), and vLLM's parser keeps an option's last value: the
    ConfigMap's tensor-parallel-size and max-model-len win over the instance type's GPU count and
    ``--max-model-len=auto`` (pkg/workspace/inference/preset_inferences.go at 00dc9aa6 says so of max-model-len)."""
    if not isinstance(name, str) or not name.strip():
        return ""
    if is_placeholder(name):
        return (f", then appends after it the `vllm:` settings of the ConfigMap the template placeholder `{name}` "
                "names (they win over its own)")
    data = config_map_data(name, namespace)
    if data is None:
        return (f", then appends after it the `vllm:` settings of ConfigMap `{namespace}/{name}` "
                f"({config_map_unread(name, namespace)}), which win over its own")
    text = data.get("inference_config.yaml")
    docs = load_documents(text, "inference_config.yaml") if isinstance(text, str) else []
    vllm = as_map(as_map(docs[0][1] if docs else None).get("vllm"))
    found = {str(k).replace("_", "-"): v for k, v in vllm.items()}
    set_here = [f"--{k} {found[k]}" for k in _KAITO_LAYOUT_KEYS if k in found and not isinstance(found[k], Exception)]
    if not set_here:
        return (f", then appends after it the `vllm:` settings of ConfigMap `{namespace}/{name}`, none of which is "
                f"{', '.join(_KAITO_LAYOUT_KEYS)}")
    return (f", then appends after it the `vllm:` settings of ConfigMap `{namespace}/{name}`, which win over its own: "
            f"{', '.join(set_here)}")


# ---------------------------------------------------------------------------------------------
# Arks
# ---------------------------------------------------------------------------------------------

#: The vLLM image the Arks operator runs when the application names none (getApplicationRuntimeImage at scitix/arks
#: e1732a9; an install may override it with ARKS_RUNTIME_DEFAULT_VLLM_IMAGE, which is not in the inputs).
ARKS_DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:v0.8.2"
#: The instanceSpec fields the operator copies into the vLLM container, and into the pod spec.
_ARKS_CONTAINER_KEYS = ("resources", "env", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe",
                        "securityContext", "lifecycle")
_ARKS_POD_KEYS = ("nodeSelector", "affinity", "tolerations", "schedulerName", "serviceAccountName", "volumes",
                  "initContainers")


def _arks_args(spec: Mapping[str, Any], meta: Mapping[str, Any]) -> list[str]:
    """The leader's vLLM arguments as the operator writes them into ``bash -c``: its own, then each of
    ``runtimeCommonArgs`` split as the shell splits it (``"--max-model-len 32768"`` is two words)."""
    model = as_map(spec.get("model")).get("name")
    namespace = meta.get("namespace") or "default"
    args = ["--port", "8080"]
    if isinstance(model, str) and model:
        args += ["--model", f"/models/models/{namespace}/{model}"]
    served = spec.get("servedModelName") or model
    if isinstance(served, str) and served:
        args += ["--served-model-name", served]
    for extra in as_list(spec.get("runtimeCommonArgs")):
        if isinstance(extra, str):
            try:
                args += shlex.split(extra)
            except ValueError:
                args.append(extra)
    return args


def add_arks_application(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    if str(spec.get("runtime") or "vllm").lower() != "vllm":
        return True  # SGLang, Dynamo: recognised, not a vLLM server
    meta = as_map(obj.get("metadata"))
    file = loc.file
    instance = as_map(spec.get("instanceSpec"))
    implied = Implied()
    parallelism(implied, spec, ("tensorParallelSize",), "spec", loc, file)
    model_field(spec.get("model"), "name", "spec.model.name", file, loc)  # a wrong type: refused at its line
    container = synthetic_container("main", spec, file, image=spec.get("runtimeImage") or ARKS_DEFAULT_VLLM_IMAGE,
                                    command=list(API_SERVER), args=_arks_args(spec, meta))
    if isinstance(spec, LineDict) and "runtimeImage" in spec.key_lines:
        container.key_lines["image"] = spec.key_lines["runtimeImage"]  # a wrong-typed image is an error at its line
    container = replaced(container, **{k: instance[k] for k in _ARKS_CONTAINER_KEYS if k in instance})
    if isinstance(instance, LineDict) and isinstance(container, LineDict):
        container.key_lines.update({k: instance.key_lines[k] for k in _ARKS_CONTAINER_KEYS
                                    if k in instance and k in instance.key_lines})
    pod_spec = LineDict({k: instance[k] for k in _ARKS_POD_KEYS if k in instance})
    if isinstance(instance, LineDict):
        pod_spec.line = instance.line
        pod_spec.key_lines = {k: instance.key_lines[k] for k in _ARKS_POD_KEYS if k in instance.key_lines}
    pod_spec = with_containers(pod_spec, [container])
    replicas = int_field(spec, "replicas", 0, loc, "spec.replicas")
    size = int_field(spec, "size", 1, loc, "spec.size")
    size = size if size is UNKNOWN or size >= 1 else 1
    pod_meta = {"labels": as_map(instance.get("labels")), "annotations": as_map(instance.get("annotations"))}
    group = crd_group(inv, "ArksApplication", obj, loc, lines, pod_meta=pod_meta, pod_spec=pod_spec,
                      replicas=replicas, implied=implied, pods_per_group=size)
    if group is not None:
        inv.cross_refs.append(CrossRef(ARKS_APP_REF, obj, loc, lines, groups=[group]))
    return True


#: CrossRef kinds: an ArksApplication read, and an ArksModel (what it loads), joined once every input is read.
ARKS_APP_REF = "arks application"
ARKS_MODEL_REF = "arks model"


def add_arks_model(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """An ``ArksModel`` downloads ``spec.model`` (a Hugging Face id) to a volume; the applications that name it
    serve it from /models. Kept for :func:`link_arks_models`."""
    inv.cross_refs.append(CrossRef(ARKS_MODEL_REF, obj, loc))


def link_arks_models(inv: Inventory) -> None:
    """Give each ArksApplication's engine the model its ArksModel (same name and namespace) downloads, at that
    model's ``spec.model`` line: the path the operator passes (/models/models/<namespace>/<name>) names nothing
    shardwise can size."""
    def key(obj: Mapping[str, Any], name: Any) -> tuple[str, str]:
        return (str(as_map(obj.get("metadata")).get("namespace") or "default"), str(name))

    models = {key(r.obj, as_map(r.obj.get("metadata")).get("name")): r for r in inv.cross_refs
              if r.kind == ARKS_MODEL_REF}
    for ref in inv.cross_refs:
        if ref.kind != ARKS_APP_REF or ref.done:
            continue
        named = models.get(key(ref.obj, as_map(as_map(ref.obj.get("spec")).get("model")).get("name")))
        model_spec = as_map(named.obj.get("spec")) if named is not None else {}
        model = model_spec.get("model")
        if named is None or not isinstance(model, str) or not model.strip():
            continue
        where = key_location(model_spec, "model", named.location.file, named.location)
        for g in ref.groups:
            g.engine.model, g.engine.locations["model"] = model.strip(), where
            g.model, g.model_unknown = None, None  # read again as the model it names (as make_group does)
            resolve_model(g, os.path.dirname(g.location.file) if g.location.file else None)
        ref.done = True
