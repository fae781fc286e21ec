"""llm-d's ``llm-d-modelservice`` chart: its Helm values as the Deployments or LeaderWorkerSets it renders.

llm-d's guides serve vLLM with a values file of this chart (``modelArtifacts``, ``decode``, ``prefill``,
``routing``, ``multinode``, ``accelerator``) installed by helmfile, or with a Flux HelmRelease of it: no pod spec is
written. The rendering below follows llm-d-incubation/llm-d-modelservice (``charts/llm-d-modelservice/templates``,
``_helpers.tpl``) at v0.3.0 (e7dfb0b) and v0.4.12 (3051935), and where those two render a field differently the
field is unknown, never one version's reading (a values file does not say which chart version renders it). Of the
releases between, v0.3.6 is the first to render as v0.4.12 does (``numGpuPerWorker``, ``numWorkers``,
``--data-parallel-size``, ``DP_SIZE_LOCAL``), except the GPU count: v0.3.6 to v0.3.16 write ``dataLocal × tensor``
over a written count, which v0.3.17 on keep; so a written count is known only where all three agree. v0.2.16 renders
the workloads as v0.3.0; v0.2.0 to v0.2.7 differ further (no GPU request at tensor 1, ``routing.modelName``) and are
not modelled apart:

- each of ``decode`` and ``prefill`` that the values write, with ``create`` not false and its own ``containers``
  (the chart's default container is llm-d's inference simulator), is a Deployment
  ``<fullname>-<role>`` (``multinode: true``: a LeaderWorkerSet whose ``workerTemplate`` is the pod) with the role's
  ``replicas`` (default 1 for decode, 0 for prefill); ``requester.enable`` makes decode a dual-pods requester,
  whose server pod is not written: not read. ``<fullname>`` is ``fullnameOverride``, else the release's name plus
  ``-llm-d-modelservice`` (a values file has no release: ``llm-d-modelservice``);
- a container's ``modelCommand`` (default ``custom``): ``custom`` keeps ``command`` and ``args`` as written;
  ``vllmServe`` runs ``vllm serve MODEL --port PORT [--tensor-parallel-size TP] --served-model-name NAME ARGS...``
  and ``imageDefault`` the image's entrypoint with ``--model MODEL`` and the same flags, MODEL from
  ``modelArtifacts.uri`` (``hf://org/name``: ``org/name``; ``pvc://claim/path``: ``mountPath/path``;
  ``pvc+hf://claim/.../org/name``: ``org/name``), PORT ``routing.servicePort`` (8000) for prefill or without the
  routing proxy, else ``routing.proxy.targetPort`` (8200); ``--data-parallel-size`` is v0.4's alone, so with
  ``parallelism.data`` above 1 it is unknown;
- env: the container's, then ``DP_SIZE`` and ``TP_SIZE`` from ``parallelism`` (``DP_SIZE_LOCAL`` is v0.4's alone:
  unknown unless written with v0.4's value), ``HF_HOME`` for an ``hf://`` model mounted from ``model-storage``,
  ``HF_TOKEN`` from ``modelArtifacts.authSecretName``;
- the accelerator (``nvidia.com/gpu``; ``accelerator.type`` picks ``amd.com/gpu``, ``google.com/tpu``,
  ``gpu.intel.com/xe`` ..., ``cpu`` none; the inference simulator none) in each container's limits and requests:
  v0.3 writes ``parallelism.tensor`` over what the values say, v0.3.6 to v0.3.16 ``dataLocal × tensor``, v0.3.17
  on keep a written count and else write ``dataLocal × tensor``; where they differ the count is unknown;
- LeaderWorkerSet size: ``parallelism.data`` in v0.3, ``parallelism.workers`` in v0.4; unknown where they differ;
- the pod: ``extraConfig``, ``nodeSelector``, ``tolerations``, ``acceleratorTypes`` (a required node affinity on
  ``labelKey`` In ``labelValues``), ``podSecurityContext``, ``volumes`` plus ``model-storage`` (an ``emptyDir`` of
  ``modelArtifacts.size`` for ``hf://``, the claim for ``pvc://``) when a container sets ``mountModelVolume``,
  mounted at ``modelArtifacts.mountPath`` (``/model-cache``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...model import UNKNOWN
from ...model.unknown import UNKNOWN_TOKEN
from ..yamlsrc import LineDict
from .apptemplate import _ld
from .fields import as_list, as_map

CHART = "llm-d-modelservice"
#: accelerator.type -> the resource the chart requests (values.yaml's accelerator.resources).
_RESOURCES = {"nvidia": "nvidia.com/gpu", "intel-i915": "gpu.intel.com/i915", "intel-xe": "gpu.intel.com/xe",
              "intel-gaudi": "habana.ai/gaudi", "amd": "amd.com/gpu", "google": "google.com/tpu",
              "rebellions-atom": "rebellions.ai/ATOM"}
_SIM = "llm-d-inference-sim"
#: Container fields the chart copies as written (the deprecated ones beside extraConfig).
_AS_WRITTEN = ("securityContext", "imagePullPolicy", "ports", "livenessProbe", "readinessProbe", "startupProbe",
               "workingDir", "stdin", "tty")


def is_modelservice_values(doc: Any) -> bool:
    """A values file of this chart: ``modelArtifacts`` and a ``decode`` or ``prefill`` with a ``containers``
    list, and no ``apiVersion`` (a Kubernetes object is no values file)."""
    return (isinstance(doc, dict) and "apiVersion" not in doc and isinstance(doc.get("modelArtifacts"), dict)
            and any(isinstance(as_map(doc.get(r)).get("containers"), list) for r in ("decode", "prefill")))


def _count(value: Any) -> Any:
    """A parallelism field as the chart reads it: its integer, 1 when absent or zero, UNKNOWN when not a number."""
    if value is None or value == 0 or value == "":
        return 1
    try:
        return int(str(value).strip())
    except ValueError:
        return UNKNOWN


def _same(*values: Any) -> Any:
    """The value when every version renders the same, else UNKNOWN."""
    if any(v is UNKNOWN for v in values):
        return UNKNOWN
    return values[0] if all(v == values[0] for v in values) else UNKNOWN


#: A reference to a value in a values text the chart passes through ``tpl`` (``modelArtifacts.uri``'s default is
#: ``hf://{{ .Values.modelArtifacts.name }}``).
_VALUE_REF = re.compile(r"\{\{-?\s*\.Values\.([A-Za-z0-9_.]+)\s*-?\}\}")


def _tpl(text: str, values: Mapping[str, Any]) -> str:
    """``text`` with each ``{{ .Values.a.b }}`` that names a written text or number replaced by it; any other
    template is left as written (a placeholder: unknown)."""
    def sub(m: re.Match[str]) -> str:
        node: Any = values
        for part in m.group(1).split("."):
            node = as_map(node).get(part)
        return str(node) if isinstance(node, str | int | float) and not isinstance(node, bool) else m.group(0)

    return _VALUE_REF.sub(sub, text)


def _model(values: Mapping[str, Any], modelarg: bool) -> list[str] | None:
    arts = as_map(values.get("modelArtifacts"))
    uri = _tpl(str(arts.get("uri") or "hf://{{ .Values.modelArtifacts.name }}"), values)
    protocol, _, rest = uri.partition("://")
    if len(rest) > 1 and rest[0] == rest[-1] == '"':
        rest = rest[1:-1]  # hf://"{{ ... }}": the rendered word is a quoted YAML scalar
    if protocol == "hf":
        model = rest
    elif protocol == "pvc":
        model = f"{arts.get('mountPath') or '/model-cache'}/{rest.split('/', 1)[1] if '/' in rest else ''}"
    elif protocol == "pvc+hf":
        parts = rest.split("/")
        model = "/".join(parts[-2:])
    else:
        return None  # oci://: the chart fails ("not implemented")
    return ["--model", model] if modelarg else [model]


def _command(c: Mapping[str, Any], values: Mapping[str, Any], role: str, tp: Any, dp: Any) -> dict[str, Any] | None:
    how = c.get("modelCommand") or "custom"
    if how == "custom":
        if not c.get("command"):
            return None  # the chart fails: "a `command` is required"
        out: dict[str, Any] = {"command": c["command"]}
        if c.get("args"):
            out["args"] = c["args"]
        return out
    if how not in ("vllmServe", "imageDefault"):
        return None  # the chart fails on any other modelCommand
    model = _model(values, how == "imageDefault")
    if model is None:
        return None
    routing = as_map(values.get("routing"))
    proxy = as_map(routing.get("proxy"))
    port = routing.get("servicePort", 8000) if role == "prefill" or proxy.get("enabled", True) is False \
        else proxy.get("targetPort", 8200)
    args: list[Any] = [*model, "--port", str(port)]
    if tp is UNKNOWN or tp > 1:
        args += ["--tensor-parallel-size", UNKNOWN_TOKEN if tp is UNKNOWN else str(tp)]
    if dp is UNKNOWN or dp > 1:
        args += ["--data-parallel-size", UNKNOWN_TOKEN]  # v0.4 passes it, v0.3 does not
    name = as_map(values.get("modelArtifacts")).get("name") or "random/model"  # values.yaml's default
    args += ["--served-model-name", str(name), *[a for a in as_list(c.get("args"))]]
    return {"command": ["vllm", "serve"], "args": args} if how == "vllmServe" else {"args": args}


def _resource(c: Mapping[str, Any], values: Mapping[str, Any], role: str) -> str | None:
    if _SIM in str(c.get("image") or ""):
        return None
    kind = as_map(values.get(role)).get("accelerator")
    atype = str(as_map(kind).get("type") if "type" in as_map(kind) else
                as_map(values.get("accelerator")).get("type") or "nvidia")
    if atype == "cpu":
        return None
    own = as_map(as_map(values.get("accelerator")).get("resources"))
    return str(own.get(atype) or _RESOURCES.get(atype) or "nvidia.com/gpu")


def _resources(c: Mapping[str, Any], values: Mapping[str, Any], role: str, tp: Any, dpl: Any) -> LineDict:
    written = as_map(c.get("resources"))
    out = _ld({k: v for k, v in written.items() if k not in ("limits", "requests")}, written)
    name = _resource(c, values, role)
    dra = as_map(values.get("accelerator")).get("dra") is True
    for part in ("limits", "requests"):
        given = as_map(written.get(part))
        mine = _ld(dict(given), given, written.line if isinstance(written, LineDict) else None)
        if name is not None and not dra:
            if name in given:
                v4 = given[name]
                try:  # v0.3.0-v0.3.5 write tensor, v0.3.6-v0.3.16 dataLocal x tensor, v0.3.17 on keep it
                    same = tp is not UNKNOWN and int(str(v4).strip()) == tp and dpl == 1
                except ValueError:
                    same = False
                mine[name] = v4 if same else UNKNOWN
            else:
                mine[name] = _same(tp, tp * dpl if tp is not UNKNOWN and dpl is not UNKNOWN else UNKNOWN)
                if mine[name] is not UNKNOWN:
                    mine[name] = str(mine[name])
        if mine:
            out[part] = mine
    return out


def _env(c: Mapping[str, Any], values: Mapping[str, Any], tp: Any, dp: Any, dpl: Any, line: int | None
         ) -> list[Any]:
    env = [e for e in as_list(c.get("env"))]
    written = {str(as_map(e).get("name")): as_map(e).get("value") for e in env}

    def var(name: str, value: Any) -> LineDict:
        return _ld({"name": name, "value": value if value is UNKNOWN else str(value)}, line=line)

    env += [var("DP_SIZE", dp), var("TP_SIZE", tp)]
    local = written.get("DP_SIZE_LOCAL")
    env.append(var("DP_SIZE_LOCAL", dpl if dpl is not UNKNOWN and local is not None and str(local) == str(dpl)
                   else UNKNOWN))
    arts = as_map(values.get("modelArtifacts"))
    uri = str(arts.get("uri") or "hf://")
    if uri.startswith("hf://") and c.get("mountModelVolume"):
        env.append(var("HF_HOME", arts.get("mountPath") or "/model-cache"))
    if arts.get("authSecretName"):
        env.append(_ld({"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": arts["authSecretName"],
                                                                            "key": "HF_TOKEN"}}}, line=line))
    return env


def _container(c: Mapping[str, Any], values: Mapping[str, Any], role: str, tp: Any, dp: Any, dpl: Any
               ) -> LineDict | None:
    cmd = _command(c, values, role, tp, dp)
    if cmd is None or not c.get("image"):
        return None
    line = c.line if isinstance(c, LineDict) else None
    out = _ld({"name": c.get("name") or "vllm", "image": c["image"], **cmd}, c)
    out.update({k: c[k] for k in _AS_WRITTEN if c.get(k) not in (None, "", [], {})})
    out.update(as_map(c.get("extraConfig")))
    out["env"] = _env(c, values, tp, dp, dpl, line)
    out["resources"] = _resources(c, values, role, tp, dpl)
    mounts = list(as_list(c.get("volumeMounts")))
    if c.get("mountModelVolume"):
        mounts.append(_ld({"name": "model-storage", "mountPath": as_map(values.get("modelArtifacts")).get(
            "mountPath") or "/model-cache"}, line=line))
    if mounts:
        out["volumeMounts"] = mounts
    if isinstance(c, LineDict):
        out.key_lines = {k: c.key_lines[k] for k in out if k in c.key_lines}
        if "args" in out and "args" not in c.key_lines and "command" in c.key_lines:
            out.key_lines["args"] = c.key_lines["command"]
    return out


def _pod(part: Mapping[str, Any], values: Mapping[str, Any], containers: list[LineDict],
         raw: Sequence[Mapping[str, Any]]) -> LineDict:
    spec = _ld(dict(as_map(part.get("extraConfig"))), part.get("extraConfig"))
    for key in ("nodeSelector", "tolerations", "schedulerName", "priorityClassName", "hostIPC", "hostPID",
                "enableServiceLinks", "terminationGracePeriodSeconds"):
        if part.get(key) not in (None, "", [], {}):
            spec[key] = part[key]
    if part.get("podSecurityContext"):
        spec["securityContext"] = part["podSecurityContext"]
    accel = as_map(part.get("acceleratorTypes"))
    if accel.get("labelKey"):
        expr: dict[str, Any] = {"key": str(accel["labelKey"]), "operator": "In"}
        if as_list(accel.get("labelValues")):
            expr["values"] = [str(v) for v in as_list(accel["labelValues"])]
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}
        if isinstance(part, LineDict) and "acceleratorTypes" in part.key_lines:
            spec.key_lines["affinity"] = part.key_lines["acceleratorTypes"]
    volumes = list(as_list(part.get("volumes")))
    if any(c.get("mountModelVolume") for c in raw):
        arts = as_map(values.get("modelArtifacts"))
        protocol, _, rest = str(arts.get("uri") or "hf://").partition("://")
        if protocol == "hf":
            volumes.append(_ld({"name": "model-storage", "emptyDir": {"sizeLimit": arts.get("size") or "0"}},
                               arts))
        elif protocol.startswith("pvc"):
            volumes.append(_ld({"name": "model-storage", "persistentVolumeClaim": {
                "claimName": rest.split("/", 1)[0], "readOnly": arts.get("readOnly", True)}}, arts))
    if volumes:
        spec["volumes"] = volumes
    spec["containers"] = containers
    if isinstance(part, LineDict):
        spec.line = part.line
        for key in ("nodeSelector", "tolerations", "volumes"):
            if key in part.key_lines and key in spec:
                spec.key_lines[key] = part.key_lines[key]
    return spec


_EXACT = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
#: The releases whose rendering the reader follows: v0.2.16 (as v0.3.0) to v0.4.12, the newest.
FIRST_READ, NEWEST_READ = (0, 2, 16), (0, 4, 12)


def version_why(version: Any) -> str | None:
    """Why a GitOps object naming the chart at ``version`` is not read, None when it is: an exact release before
    v0.2.16 renders its workloads unlike the releases read (each range of tags read, llm-d-incubation/
    llm-d-modelservice ``charts/llm-d-modelservice/templates/_helpers.tpl``), one after v0.4.12 was not read. A
    range or no version resolves in the cluster to the newest release that matches, and is read as a values file
    is."""
    m = _EXACT.fullmatch(str(version).strip()) if isinstance(version, str | int | float) else None
    if m is None:
        return None
    v = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    shown = str(version).strip()
    if FIRST_READ <= v <= NEWEST_READ:
        return None
    if v > NEWEST_READ:
        why = "is newer than v0.4.12, the newest release read"
    elif v < (0, 2, 0):
        why = "is a release before v0.2.0, whose templates were not read"
    elif v < (0, 2, 8):
        why = ("renders the accelerator request only above parallelism.tensor 1 and always as nvidia.com/gpu (v0.2.8 "
               "on write it from tensor 1, of accelerator.type's resource)")
    elif v < (0, 2, 15):
        why = ("takes vllmServe's and imageDefault's --tensor-parallel-size from the container's own parallelism, "
               "not the role's, while the GPU count follows the role's (v0.2.15 fixed it)")
    else:
        why = ("passes vllmServe's --tensor-parallel-size as the text \"$TP_SIZE\", which Kubernetes does not expand "
               "(v0.2.16 fixed it)")
    return f"llm-d-modelservice {shown} {why}: not modelled (shardwise reads v0.2.16 and v0.3.0 to v0.4.12)"


def modelservice_objects(values: Mapping[str, Any], release: str | None, namespace: str | None,
                         annotations: Mapping[str, Any] | None) -> list[LineDict]:
    """The Deployments (or LeaderWorkerSets) the chart renders from ``values`` for ``release`` (None: a values
    file, which names none), each at its role's line."""
    if as_map(values.get("requester")).get("enable") is True:
        roles: tuple[str, ...] = ("prefill",)
    else:
        roles = ("decode", "prefill")
    base = values.get("fullnameOverride") or (
        (release if CHART in release else f"{release}-{CHART}") if release else CHART)
    multinode = values.get("multinode") is True
    out: list[LineDict] = []
    for role in roles:
        part = values.get(role)
        if not isinstance(part, dict) or part.get("create") is False or not isinstance(part.get("containers"), list):
            continue
        p = as_map(part.get("parallelism"))
        tp, dp = _count(p.get("tensor")), _count(p.get("data"))
        dpl, workers = _count(p.get("dataLocal")), _count(p.get("workers"))
        raw = [c for c in as_list(part["containers"]) if isinstance(c, dict)]
        containers = [c for c in (_container(c, values, role, tp, dp, dpl) for c in raw) if c is not None]
        if not containers:
            continue
        at = part.line if isinstance(part, LineDict) else None
        pod = _pod(part, values, containers, raw)
        template = _ld({"metadata": _ld({"annotations": part["podAnnotations"]} if part.get("podAnnotations")
                                        else {}, line=at), "spec": pod}, line=at)
        meta: dict[str, Any] = {"name": f"{base}-{role}"}
        if namespace:
            meta["namespace"] = namespace
        if annotations:
            meta["annotations"] = annotations
        replicas = part["replicas"] if "replicas" in part else (1 if role == "decode" else 0)
        if multinode:
            size = _same(dp, workers)
            spec = _ld({"replicas": replicas, "leaderWorkerTemplate": _ld(
                {"size": size, "workerTemplate": template}, line=at)}, part)
            obj = _ld({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                       "metadata": _ld(meta, line=at), "spec": spec}, line=at)
        else:
            spec = _ld({"replicas": replicas, "template": template}, part)
            obj = _ld({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _ld(meta, line=at),
                       "spec": spec}, line=at)
        out.append(obj)
    return out
