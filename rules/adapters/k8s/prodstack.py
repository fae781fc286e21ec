"""vLLM's production-stack chart (``vllm-stack``): its Helm values as the router and engine Deployments it renders.

vLLM's production-stack serves models with a release of its ``vllm-stack`` chart (Helm repository
``https://vllm-project.github.io/production-stack``), in a Flux HelmRelease or an Argo CD Application: no pod spec
is written, the chart builds one Deployment per ``servingEngineSpec.modelSpec[]`` entry. The rendering below follows
``helm/templates/deployment-vllm-multi.yaml`` and ``_helpers.tpl`` of vllm-project/production-stack at the tags
``vllm-stack-0.1.3`` (ff7a6c1) to ``vllm-stack-0.1.12`` (66b6066), each read. Those releases render differently in
places, so a release is read only when it names one of them exactly (a HelmRelease's ``chart.spec.version``, an
Application's ``targetRevision``): a version range or none is resolved by the controller to a release not known
here, and any other version is not modelled (SW005 says the chart is not rendered here, as before). 0.1.3 differs
from 0.1.4 only in what 0.1.4 added (``git diff vllm-stack-0.1.3 vllm-stack-0.1.4 -- helm``: values and helpers
alike): no ``hostIPC``/``hostPID``, no ``SYS_PTRACE``, no ``ucx-port``, no ``CUDA_VISIBLE_DEVICES`` from LMCache's
config, the LMCache executable for the tag ``2025-05-17-v1`` only, and a ``raySpec`` key of ``servingEngineSpec``
(not of an entry) that renders no engine at all. 0.1.0 to 0.1.2 render the engines further apart
(:func:`older_release_why`).

- ``routerSpec.enableRouter`` (default true) renders the router, ``<release>-deployment-router``
  (``deployment-router.yaml``, the same in these respects at every release read): image ``lmcache/lmstack-router``
  (``repository:tag``), ``--service-discovery`` (default ``k8s``) with ``--k8s-namespace`` the release's and
  ``--k8s-label-selector`` ``servingEngineSpec.labels`` (merged over the chart's ``environment: test, release:
  test``, which every engine pod also carries beside ``model`` and ``helm-release-name``), or ``static`` with its
  required ``staticBackends``/``staticModels``; ``--routing-logic`` ``routingLogic`` (``roundrobin`` by default at
  every release) and ``--session-key``. Read by :mod:`.router`, judged by SW406;
- ``servingEngineSpec.enableEngine`` (default true) gates every engine; each ``modelSpec`` entry is the Deployment
  ``<release>-<name>-deployment-vllm`` with ``replicaCount`` replicas (none written from 0.1.11 when
  ``keda.enabled``: KEDA scales it). An entry with ``raySpec`` (0.1.11: ``raySpec.enabled``) is a KubeRay cluster
  the chart renders elsewhere (``ray-cluster.yaml``): not read here; ``enabled: false`` (0.1.11) renders nothing;
- its container ``vllm``: image ``repository:tag``; command ``vllm serve MODEL --host 0.0.0.0 --port PORT`` (the
  executable ``/opt/venv/bin/vllm`` for LMCache's image, by the version's test), ``--enable-lora``,
  ``--enable-auto-tool-choice``, ``--tool-call-parser``, from ``vllmConfig``: ``--[no-]enable-chunked-prefill``
  (when written), ``--[no-]enable-prefix-caching`` (always, when ``vllmConfig`` is), ``--max-model-len``,
  ``--dtype``, ``--tensor-parallel-size``, ``--max-num-seqs``, ``--gpu_memory_utilization``, ``--max_loras``,
  ``--runner``/``--convert`` (0.1.9 on), ``extraArgs``; ``--revision`` (0.1.12); ``--kv-transfer-config`` for
  ``lmcacheConfig.enabled`` (its JSON by version; unknown at 0.1.4 and 0.1.5 outside P/D);
- env: ``PYTHONHASHSEED``, ``POD_IP``, ``HF_TOKEN`` and ``VLLM_API_KEY`` from their secrets,
  ``servingEngineSpec.env`` (0.1.10 on), ``modelSpec.env``, ``CUDA_VISIBLE_DEVICES`` from
  ``lmcacheConfig.cudaVisibleDevices``; ``envFrom`` the ``configs`` ConfigMap and ``envFromSecret`` (0.1.7 on).
  The chart's LMCache, ``HF_HOME`` and Prometheus variables are not rendered here (no rule reads them);
- ports ``containerPort`` (8000), 55555 and 9999; probes from ``servingEngineSpec`` over the chart's defaults
  (startup: 15 s, every 10 s, 60 failures; liveness 15/10/3; readiness, 0.1.8 on, 15/5/3; ``httpGet
  /health:8000``), as written before 0.1.10 and from 0.1.10 each field defaulted as ``chart.templateProbe`` does;
- resources: ``modelSpec.resources`` when written, else ``requestCPU``/``requestMemory`` and, for
  ``requestGPU`` above 0, ``requestGPUType`` (default ``nvidia.com/gpu``) in requests and limits (HAMi's
  ``nvidia.com/gpumem``/``gpucores`` from ``requestGPUMem`` ... and the default ``strategy`` are not rendered);
- ``/dev/shm``: an in-memory ``emptyDir`` of ``shmSize`` (20Gi) when ``vllmConfig.tensorParallelSize`` is written;
  ``pvcStorage`` mounted at ``/data`` (its claim ``<release>-<name>-storage-claim``; from 0.1.8 a mapping with
  ``emptyDir`` is that volume); ``extraVolumes``/``extraVolumeMounts`` as written;
- the pod: ``hostIPC``/``hostPID`` with ``lmcacheConfig.enablePD`` (0.1.4: on every engine pod; 0.1.3: none);
  ``securityContext``; the container's ``containerSecurityContext`` (default ``runAsNonRoot: false``; 0.1.4 and
  0.1.5 write ``securityContext`` twice in the container, ``SYS_PTRACE`` then ``containerSecurityContext`` when set,
  and the later key wins, so ``SYS_PTRACE`` holds only where the values empty it); ``serviceAccountName`` (0.1.5
  on);
  ``runtimeClassName`` (``servingEngineSpec``'s, default ``nvidia``; from 0.1.8 the entry's own when written);
  ``tolerations`` (``servingEngineSpec``'s; from 0.1.11 with the entry's appended, or instead with
  ``tolerationsPolicy: override``); ``schedulerName``, ``nodeName``, ``priorityClassName`` (0.1.7 on), affinity
  (from 0.1.8 the entry's ``affinity`` first) else ``nodeSelectorTerms`` as a required node affinity (not with
  ``nodeName``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model.errors import InputError
from ...model.unknown import UNKNOWN, UNKNOWN_TOKEN
from ..yamlsrc import LineDict
from .apptemplate import _ld, _text
from .fields import as_list, as_map

CHART = "vllm-stack"
#: The chart releases read (``vllm-stack-0.1.N`` tags), by N.
VERSIONS = range(3, 13)
_VERSION = re.compile(r"v?0\.1\.(\d+)")
_PROBE_DEFAULTS: dict[str, dict[str, Any]] = {
    "startupProbe": {"initialDelaySeconds": 15, "periodSeconds": 10, "failureThreshold": 60,
                     "httpGet": {"path": "/health", "port": 8000}},
    "livenessProbe": {"initialDelaySeconds": 15, "periodSeconds": 10, "failureThreshold": 3,
                      "httpGet": {"path": "/health", "port": 8000}},
    "readinessProbe": {"initialDelaySeconds": 15, "periodSeconds": 5, "failureThreshold": 3,
                       "httpGet": {"path": "/health", "port": 8000}},
}


def chart_version(version: Any) -> int | None:
    """N of an exact ``0.1.N`` release read here, None for any other version, a range or none."""
    m = _VERSION.fullmatch(str(version).strip()) if isinstance(version, str | int | float) else None
    n = int(m.group(1)) if m else None
    return n if n in VERSIONS else None


def older_release_why(version: Any) -> str | None:
    """Why an exact release before 0.1.3 is not read (its templates, read at each tag, render the engines unlike
    0.1.3 on), None for any other version."""
    m = re.fullmatch(r"v?0\.(0|1)\.(\d+)", str(version).strip()) if isinstance(version, str | int | float) else None
    if m is None or (m.group(1) == "1" and int(m.group(2)) >= VERSIONS[0]):
        return None
    return (f"vllm-stack {str(version).strip()} renders its engines unlike 0.1.3 to 0.1.12, the releases read: the "
            "executable is always `vllm`, `--enable-prefix-caching` is written only when true (no "
            "`--no-enable-prefix-caching`), no POD_IP env, zmq port or `nodeName`, and before 0.1.2 no `enableEngine` "
            "gate: not modelled")


def is_prodstack_values(values: Any) -> bool:
    """Values that give the chart engines to render: a ``servingEngineSpec.modelSpec`` list."""
    return isinstance(as_map(as_map(values).get("servingEngineSpec")).get("modelSpec"), list)


def _merged(default: Mapping[str, Any], written: Any) -> Any:
    """Helm's merge of a written value over the chart's default: maps key by key, null deletes, anything else
    replaces."""
    if written is None:
        return None
    if not isinstance(written, dict):
        return written
    out: dict[str, Any] = dict(default)
    for k, v in written.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merged(out[k], v)
        else:
            out[k] = v
    return _ld(out, written)


def _probe(p: Mapping[str, Any], like: Any) -> LineDict:
    """``chart.templateProbe``: timings defaulted when unset or zero (Sprig ``default``), one handler."""
    out: dict[str, Any] = {"initialDelaySeconds": p.get("initialDelaySeconds") or 15,
                           "periodSeconds": p.get("periodSeconds") or 10,
                           "failureThreshold": p.get("failureThreshold") or 3}
    for k in ("timeoutSeconds", "successThreshold"):
        if p.get(k):
            out[k] = p[k]
    if as_map(p.get("exec")):
        out["exec"] = {"command": [_text(w) for w in as_list(as_map(p["exec"]).get("command"))]}
    elif as_map(p.get("tcpSocket")):
        out["tcpSocket"] = {k: v for k, v in as_map(p["tcpSocket"]).items() if k in ("host", "port")}
    elif as_map(p.get("grpc")):
        out["grpc"] = {k: v for k, v in as_map(p["grpc"]).items() if k in ("service", "port")}
    else:
        get = as_map(p.get("httpGet"))
        out["httpGet"] = {"path": get.get("path") or "/health", "port": get.get("port") or 8000,
                          **{k: get[k] for k in ("httpHeaders", "host", "scheme") if get.get(k)}}
    return _ld(out, like)


def _gpus(value: Any) -> int:
    """Sprig's ``int`` of ``requestGPU`` (a text or a float truncated; anything else 0). An infinity is 0 too: Go
    converts ±Inf to the most negative int64 on amd64, which no ``gt 0`` passes (``.inf`` raised OverflowError, an
    internal error: fuzz15, seed 15015 case 381)."""
    try:
        return int(float(str(value).strip())) if not isinstance(value, bool) and value is not None else 0
    except (ValueError, OverflowError):
        return 0


def _flags(m: Mapping[str, Any], v: int) -> list[Any]:
    out: list[Any] = []
    if m.get("enableLoRA"):
        out.append("--enable-lora")
    if m.get("enableTool"):
        out.append("--enable-auto-tool-choice")
    if m.get("toolCallParser"):
        out += ["--tool-call-parser", _text(m["toolCallParser"])]
    cfg = m.get("vllmConfig")
    if isinstance(cfg, dict) and cfg:  # `with` skips an empty map: Go templates take a map of length zero as false
        if "enableChunkedPrefill" in cfg:
            out.append("--enable-chunked-prefill" if cfg["enableChunkedPrefill"] else "--no-enable-chunked-prefill")
        out.append("--enable-prefix-caching" if cfg.get("enablePrefixCaching") else "--no-enable-prefix-caching")
        named = [("maxModelLen", "--max-model-len"), ("dtype", "--dtype"), ("tensorParallelSize",
                 "--tensor-parallel-size"), ("maxNumSeqs", "--max-num-seqs"), ("gpuMemoryUtilization",
                 "--gpu_memory_utilization"), ("maxLoras", "--max_loras")]
        if v >= 9:
            named += [("runner", "--runner"), ("convert", "--convert")]
        for key, flag in named:
            if key in cfg:
                value = cfg[key]
                if not isinstance(value, str | int | float | bool) and value is not None and value is not UNKNOWN:
                    # what the chart would write as the flag's word is no text (a !!binary's bytes, a map): an
                    # input error at the key's own line, not at the command's (the explicit-tags sweep)
                    found = ("binary data (a !!binary tag)" if isinstance(value, bytes) else "a mapping"
                             if isinstance(value, dict) else "a list" if isinstance(value, list) else
                             f"a {type(value).__name__}")
                    raise InputError(f"vllmConfig.{key}: expected a number or text, found {found}",
                                     None, cfg.key_lines.get(key) if isinstance(cfg, LineDict) else None)
                out += [flag, _text(value)]
        out += [_text(a) for a in as_list(cfg.get("extraArgs"))]
    if v >= 12 and m.get("modelRevision"):
        out += ["--revision", _text(m["modelRevision"])]
    lm = as_map(m.get("lmcacheConfig"))
    if lm.get("enabled"):
        role = lm.get("kvRole") or "kv_both"
        if "enablePD" in lm:
            conf = ('{"kv_connector":"LMCacheConnectorV1","kv_role":"' + str(role) + '","kv_connector_extra_config":'
                    '{"discard_partial_chunks": false, "lmcache_rpc_port": "' + str(lm.get("nixlRole") or "") + '"}}')
        elif v < 6:
            conf = UNKNOWN_TOKEN  # 0.1.4/0.1.5 pick the connector from vllmConfig.v1, read no further here
        else:
            v0 = "v0" in as_map(cfg) and str(as_map(cfg)["v0"]) == "1"
            connector = "LMCacheConnector" if v0 else "LMCacheConnectorV1"
            conf = '{"kv_connector":"' + connector + '","kv_role":"' + str(role) + '"}'
        out += ["--kv-transfer-config", conf]
    if m.get("chatTemplate"):
        out += ["--chat-template", f"/templates/{m['chatTemplate']}" if v >= 6 else _text(m["chatTemplate"])]
    return out


def _executable(m: Mapping[str, Any], v: int) -> str:
    repo, tag = str(m.get("repository") or ""), str(m.get("tag") or "")
    if v >= 8:
        lmcache = repo == "lmcache/vllm-openai"
    else:
        lmcache = tag in (("2025-05-27-v1", "2025-05-17-v1") if v >= 4 else ("2025-05-17-v1",)) or (
            tag == "latest" and repo == "lmcache/vllm-openai")
        if v >= 6:
            lmcache = lmcache or tag == "latest-nightly" or tag.startswith("nightly-")
    return "/opt/venv/bin/vllm" if lmcache else "vllm"


def _env(m: Mapping[str, Any], se: Mapping[str, Any], release: str, v: int, line: int | None) -> list[Any]:
    env: list[Any] = [_ld({"name": "PYTHONHASHSEED", "value": "123"}, line=line),
                      _ld({"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}, line=line)]
    token = m.get("hf_token")
    if token:
        ref = ({"name": f"{release}-secrets", "key": f"hf_token_{m.get('name')}"} if isinstance(token, str)
               else {"name": as_map(token).get("secretName"), "key": as_map(token).get("secretKey")})
        env.append(_ld({"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": ref}}, line=line))
    key = se.get("vllmApiKey")
    if isinstance(key, str) and key:
        env.append(_ld({"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {
            "name": f"{release}-secrets", "key": "vllmApiKey"}}}, line=line))
    elif isinstance(key, dict) and key.get("secretName") and key.get("secretKey"):
        env.append(_ld({"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {
            "name": key["secretName"], "key": key["secretKey"]}}}, line=line))
    if v >= 10:
        env += [e for e in as_list(se.get("env"))]
    env += [e for e in as_list(m.get("env"))]
    lm = as_map(m.get("lmcacheConfig"))
    if "cudaVisibleDevices" in lm and v >= 4:
        env.append(_ld({"name": "CUDA_VISIBLE_DEVICES", "value": _text(lm["cudaVisibleDevices"])}, line=line))
    return env


def _resources(m: Mapping[str, Any]) -> Any:
    if m.get("resources"):
        return m["resources"]
    requests: dict[str, Any] = {k: _text(m[f]) for k, f in (("memory", "requestMemory"), ("cpu", "requestCPU"))
                                if m.get(f) is not None}
    limits: dict[str, Any] = {k: _text(m[f]) for k, f in (("memory", "limitMemory"), ("cpu", "limitCPU")) if f in m}
    if _gpus(m.get("requestGPU")) > 0:
        kind = str(m.get("requestGPUType") or "nvidia.com/gpu")
        requests[kind] = limits[kind] = _text(m["requestGPU"])
    out: dict[str, Any] = {"requests": requests}
    if limits:
        out["limits"] = limits
    like = m if isinstance(m, LineDict) else None
    res = _ld(out, line=like.key_lines.get("requestGPU", like.line) if like else None)
    return res


def _deployment(m: Mapping[str, Any], se: Mapping[str, Any], release: str, namespace: str | None,
                annotations: Mapping[str, Any] | None, v: int) -> LineDict:
    at = m.line if isinstance(m, LineDict) else None
    name = _text(m.get("name"))
    cfg = as_map(m.get("vllmConfig"))
    port = se.get("containerPort") or 8000
    container = _ld({"name": "vllm", "image": f"{m.get('repository')}:{m.get('tag')}",
                     "command": [_executable(m, v), "serve", _text(m.get("modelURL")), "--host", "0.0.0.0",
                                 "--port", _text(port), *_flags(m, v)]}, line=at)
    csc = dict(as_map(se.get("containerSecurityContext", {"runAsNonRoot": False})))
    if v in (4, 5) and not csc:
        # the template writes `securityContext: {capabilities: {add: [SYS_PTRACE]}}` and, further down the same
        # container, `securityContext: <containerSecurityContext>` when that is set: the later key wins as YAML is
        # read without strict duplicate checks (sigs.k8s.io/yaml, which Helm's client decodes with)
        csc = {"capabilities": {"add": ["SYS_PTRACE"]}}
    if csc:
        container["securityContext"] = csc
    if isinstance(m, LineDict):
        for key, src in (("command", "vllmConfig"), ("command", "modelURL"), ("image", "repository")):
            if key not in container.key_lines and m.key_lines.get(src) is not None:
                container.key_lines[key] = m.key_lines[src]
    container["env"] = _env(m, se, release, v, at)
    env_from: list[Any] = []
    if se.get("configs"):
        env_from.append({"configMapRef": {"name": f"{release}-configs"}})
    if v >= 7 and as_map(m.get("envFromSecret")).get("name"):
        env_from.append({"secretRef": {"name": as_map(m["envFromSecret"])["name"]}})
    if env_from:
        container["envFrom"] = env_from
    container["ports"] = [{"name": "container-port", "containerPort": port},
                          {"name": "zmq-port", "containerPort": 55555}]
    if v >= 4:
        container["ports"].append({"name": "ucx-port", "containerPort": 9999})
    for probe, default in _PROBE_DEFAULTS.items():
        if probe == "readinessProbe" and v < 8:
            continue  # no readiness probe before 0.1.8
        p = _merged(default, se[probe]) if probe in se else default
        if p:  # chart.templateProbe from 0.1.10; before, the merged value as written (toYaml)
            container[probe] = _probe(as_map(p), se.get(probe)) if v >= 10 else p
    container["resources"] = _resources(m)
    mounts: list[Any] = []
    volumes: list[Any] = []
    storage = m.get("pvcStorage")
    if "pvcStorage" in m:
        mounts.append({"name": f"{release}-storage", "mountPath": "/data"})
        if v >= 8 and isinstance(storage, dict) and "emptyDir" in storage:
            volumes.append({"name": f"{release}-storage", "emptyDir": storage["emptyDir"]})
        elif v < 8 or isinstance(storage, str):
            volumes.append({"name": f"{release}-storage", "persistentVolumeClaim": {
                "claimName": f"{release}-{name}-storage-claim"}})
    if "tensorParallelSize" in cfg:
        mounts.append({"name": "shm", "mountPath": "/dev/shm"})
        volumes.append({"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": m.get("shmSize") or "20Gi"}})
    mounts += as_list(m.get("extraVolumeMounts"))
    volumes += as_list(m.get("extraVolumes"))
    if mounts:
        container["volumeMounts"] = mounts
    pod = _ld({"containers": [container]}, line=at)
    if se.get("securityContext"):
        pod["securityContext"] = se["securityContext"]
    if v == 4 or (v >= 5 and as_map(m.get("lmcacheConfig")).get("enablePD")):
        pod["hostIPC"] = pod["hostPID"] = True  # 0.1.4 writes them on every engine pod, 0.1.3 on none
    if v >= 5 and m.get("serviceAccountName"):
        pod["serviceAccountName"] = m["serviceAccountName"]
    if v >= 7 and m.get("priorityClassName"):
        pod["priorityClassName"] = m["priorityClassName"]
    if volumes:
        pod["volumes"] = volumes
    tolerations = list(as_list(se.get("tolerations")))
    if v >= 11 and as_list(m.get("tolerations")):
        own = list(as_list(m["tolerations"]))
        tolerations = own if m.get("tolerationsPolicy") == "override" else tolerations + own
    if tolerations:
        pod["tolerations"] = tolerations
    rtc = m.get("runtimeClassName") if v >= 8 and "runtimeClassName" in m else se.get("runtimeClassName", "nvidia")
    if rtc:
        pod["runtimeClassName"] = rtc
    for key, where in (("schedulerName", se), ("nodeName", m)):
        if where.get(key):
            pod[key] = where[key]
    if v >= 8 and m.get("affinity"):
        pod["affinity"] = m["affinity"]
    elif m.get("nodeSelectorTerms") and not m.get("nodeName"):
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": m["nodeSelectorTerms"]}}}
    if isinstance(m, LineDict):
        for key, src in (("affinity", "affinity" if "affinity" in pod and v >= 8 and m.get("affinity")
                          else "nodeSelectorTerms"), ("tolerations", "tolerations"), ("volumes", "extraVolumes")):
            if key in pod and src in m.key_lines:
                pod.key_lines[key] = m.key_lines[src]
    pod_meta: dict[str, Any] = {"labels": {"model": _text(m.get("name")), "helm-release-name": release,
                                           **{k: _text(v) for k, v in engine_labels(se).items()}}}
    if m.get("podAnnotations"):
        pod_meta["annotations"] = m["podAnnotations"]
    meta: dict[str, Any] = {"name": f"{release}-{name}-deployment-vllm"}
    if namespace:
        meta["namespace"] = namespace
    merged = {**as_map(annotations), **as_map(m.get("annotations"))}
    if merged:
        meta["annotations"] = merged
    body: dict[str, Any] = {}
    if not (v >= 11 and as_map(m.get("keda")).get("enabled")) and m.get("replicaCount") is not None:
        body["replicas"] = m["replicaCount"]  # none written: the template's `replicas:` is null, Kubernetes' 1
    if se.get("strategy"):
        body["strategy"] = se["strategy"]
    body["template"] = _ld({"metadata": _ld(pod_meta, line=at), "spec": pod}, line=at)
    spec = _ld(body, line=at)
    if isinstance(m, LineDict) and "replicaCount" in m.key_lines:
        spec.key_lines["replicas"] = m.key_lines["replicaCount"]
    return _ld({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _ld(meta, line=at), "spec": spec},
               line=at)


#: ``servingEngineSpec.labels`` in the chart's values.yaml at every release read (0.1.0 to 0.1.12 alike): Helm merges
#: the written map over it key by key.
ENGINE_LABELS = {"environment": "test", "release": "test"}
#: ``routerSpec`` defaults read here, the same at every release read: the router image, port, discovery and
#: ``routingLogic: "roundrobin"``.
ROUTER_DEFAULTS = {"repository": "lmcache/lmstack-router", "tag": "latest", "enableRouter": True,
                   "containerPort": 8000, "serviceDiscovery": "k8s", "routingLogic": "roundrobin", "sessionKey": ""}


def engine_labels(se: Mapping[str, Any]) -> Any:
    """``servingEngineSpec.labels`` as Helm merges it over the chart's default (a written null deletes it)."""
    if "labels" not in se:
        return dict(ENGINE_LABELS)
    merged = _merged(ENGINE_LABELS, se["labels"])
    return merged if isinstance(merged, dict) else {}


def _router(values: Mapping[str, Any], release: str, namespace: str | None,
            annotations: Mapping[str, Any] | None, version: int) -> LineDict | None:
    """``deployment-router.yaml`` (the same in these respects at 0.1.3 to 0.1.12): the Deployment
    ``<release>-deployment-router`` running the router image with ``--service-discovery``, for ``k8s``
    ``--k8s-namespace`` (the release's) and, with the engines enabled, ``--k8s-label-selector`` from
    ``servingEngineSpec.labels`` (``labels.toCommaSeparatedList``: ``key=value`` joined by commas, keys sorted as Go
    ranges a map), for ``static`` the backends and models, then ``--routing-logic``, ``--session-key`` and
    ``extraArgs``; None with ``enableRouter`` false."""
    written = values.get("routerSpec")
    r = _merged(ROUTER_DEFAULTS, written) if isinstance(written, dict) else dict(ROUTER_DEFAULTS)
    if not r.get("enableRouter"):
        return None
    se = as_map(values.get("servingEngineSpec"))
    discovery = r.get("serviceDiscovery")
    args: list[Any] = ["--host", "0.0.0.0", "--port", _text(r.get("containerPort")), "--service-discovery",
                       _text(discovery or "k8s")]
    if discovery == "k8s":
        args += ["--k8s-namespace", namespace or "default"]
        if version >= 8:  # 0.1.8 on: `--k8s-service-discovery-type {{ default "pod-ip" ... }}`
            args += ["--k8s-service-discovery-type", _text(r.get("k8sServiceDiscoveryType") or "pod-ip")]
        if "enableEngine" not in se or se["enableEngine"]:
            labels = engine_labels(se)
            args += ["--k8s-label-selector", ",".join(f"{k}={_text(labels[k])}" for k in sorted(labels))]
    if discovery == "static":
        args += ["--static-backends", _text(r.get("staticBackends")), "--static-models", _text(r.get("staticModels"))]
    args += ["--routing-logic", _text(r.get("routingLogic"))]
    if r.get("sessionKey"):
        args += ["--session-key", _text(r["sessionKey"])]
    extra = r.get("extraArgs")
    if isinstance(extra, list):  # written last at every release read: a flag here wins (argparse)
        args += [_text(a) for a in extra]
    like = written if isinstance(written, LineDict) else None
    at = like.key_lines.get("routingLogic", like.line) if like else None
    container = _ld({"name": "router-container", "image": f"{r.get('repository')}:{r.get('tag')}", "args": args},
                    line=at)
    meta: dict[str, Any] = {"name": f"{release}-deployment-router"}
    if namespace:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = dict(annotations)
    pod = _ld({"containers": [container]}, line=at)
    body = _ld({"template": _ld({"spec": pod}, line=at)}, line=at)
    return _ld({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _ld(meta, line=at), "spec": body},
               line=at)


def refusal(values: Mapping[str, Any]) -> str | None:
    """Why ``helm template`` fails on these values (a ``required`` value of an engine the chart renders is missing:
    ``repository``, ``tag``, and without ``resources`` ``requestMemory`` and ``requestCPU``), None when it renders
    them. The chart then renders nothing, so no engine is read."""
    router = as_map(values.get("routerSpec"))
    if router.get("enableRouter", True) and router.get("serviceDiscovery") == "static":
        missing = [k for k in ("staticBackends", "staticModels") if router.get(k) in (None, "")]
        if missing:
            return (f"the chart refuses its values (routerSpec.serviceDiscovery is static and routerSpec has no "
                    f"{' or '.join(missing)}, which it then requires): it renders nothing")
    se = as_map(values.get("servingEngineSpec"))
    for i, m in enumerate(as_list(se.get("modelSpec"))):
        if not isinstance(m, dict) or m.get("enabled") is False:
            continue
        needed = ["repository", "tag"] + ([] if m.get("resources") else ["requestMemory", "requestCPU"])
        missing = [k for k in needed if m.get(k) in (None, "")]
        if missing:
            return (f"the chart refuses its values (servingEngineSpec.modelSpec[{i}] has no "
                    f"{' or '.join(missing)}, which it requires): it renders nothing")
    return None


def prodstack_objects(values: Mapping[str, Any], version: int, release: str, namespace: str | None,
                      annotations: Mapping[str, Any] | None) -> list[LineDict]:
    """The router Deployment (:func:`_router`, at ``routerSpec.routingLogic``'s line) and the engine Deployments
    release ``0.1.<version>`` of the chart renders from ``values`` for ``release``, each engine at its ``modelSpec``
    entry's line."""
    se = as_map(values.get("servingEngineSpec"))
    if refusal(values):
        return []
    router = _router(values, release, namespace, annotations, version)
    out: list[LineDict] = [router] if router is not None else []
    if "enableEngine" in se and not se["enableEngine"] or version == 3 and "raySpec" in se:
        return out  # 0.1.3 renders no engine at all where servingEngineSpec has a raySpec key
    for m in as_list(se.get("modelSpec")):
        if not isinstance(m, dict):
            continue
        if version >= 11:
            if m.get("enabled") is False or as_map(m.get("raySpec")).get("enabled"):
                continue
        elif "raySpec" in m and version >= 4:
            continue  # 0.1.3 reads raySpec at servingEngineSpec only
        out.append(_deployment(m, se, release, namespace, annotations, version))
    return out
