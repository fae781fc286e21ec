"""bjw-s' ``app-template`` chart: its Helm values as the workloads the chart renders from them.

Home clusters run vLLM through a Flux ``HelmRelease`` of bjw-s' ``app-template`` (a chart over bjw-s' ``common``
library): no pod spec is written, the chart builds one from ``values.controllers``. The rendering below follows the
``common`` library v3 and v4 (bjw-s-labs/helm-charts, ``charts/library/common/templates`` at common-4.1.1,
dfaf83d; its image and probe templates and probe defaults read the same at common-3.7.3):

- each controller of ``controllers`` (``enabled`` unless ``enabled: false``) is a Deployment (``type: deployment``,
  the default), StatefulSet or DaemonSet (a Job or CronJob serves nothing: not read); ``replicas`` is written or 1;
- its name is the release's (app-template sets ``global.nameOverride`` to the release name), with ``-<controller>``
  appended when the values hold more than one controller (``lib/common/_determineResourceNameFromValues.tpl``);
- each of its ``containers`` (and ``initContainers``), ``enabled`` unless disabled, is a container named after its
  key: ``image.repository:image.tag``; ``command`` and ``args`` as written (a string is a list of one); ``env`` as a
  list, or a mapping turned into one in key order (a ``dependsOn`` first), either way a value as text, a mapping with
  ``value``/``valueFrom`` as written and any other mapping as the ``valueFrom``; ``envFrom``, ``resources``,
  ``securityContext``, ``workingDir``, ``lifecycle`` as written; the controller's ``defaultContainerOptions`` fill
  what a container leaves empty (``defaultContainerOptionsStrategy: merge``: merged);
- ``probes``: off unless ``enabled: true``; ``custom: true`` takes ``spec`` as the probe; otherwise a TCP (or
  ``type: HTTP``) probe on the port of the service whose ``controller`` is this one, with ``spec``'s timings or the
  defaults 0, 10, 1, 3 s (``lib/container/fields/_probes.tpl``); with no such service the chart renders none;
- the pod takes each option of ``defaultPodOptions`` that ``controllers.<id>.pod`` does not set (``nodeSelector``,
  ``tolerations``, ``affinity``, ``runtimeClassName``, ``hostIPC`` ...; ``annotations`` and ``labels`` go to the
  pod's metadata);
- ``persistence``: each enabled item is a volume named after its key (``emptyDir`` with its ``medium`` and
  ``sizeLimit``, ``hostPath``, ``persistentVolumeClaim`` — ``existingClaim`` or the chart's claim —, ``configMap``,
  ``secret``, ``nfs``, ``custom``'s ``volumeSpec``), mounted by ``globalMounts`` in every container,
  ``advancedMounts.<controller>.<container>`` in that one, and with neither in every container at ``/<key>``
  (``hostPath`` items at their host path).

What the chart fills from elsewhere stays unknown: a ``{{ template }}`` in a value is read as the placeholder it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..yamlsrc import LineDict
from .fields import as_list, as_map

#: The controller types that run a server, and the kind each renders.
_KINDS = {"deployment": ("apps/v1", "Deployment"), "statefulset": ("apps/v1", "StatefulSet"),
          "daemonset": ("apps/v1", "DaemonSet")}
#: Container fields the chart copies as written.
_AS_WRITTEN = ("envFrom", "resources", "securityContext", "workingDir", "lifecycle", "ports", "stdin", "tty",
               "imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy")
_PROBE_DEFAULTS = (("initialDelaySeconds", 0), ("failureThreshold", 3), ("timeoutSeconds", 1), ("periodSeconds", 10))


def _ld(value: Mapping[str, Any], like: Any = None, line: int | None = None) -> LineDict:
    """``value`` as a LineDict at ``like``'s line (or ``line``), keeping ``like``'s key lines for the keys it holds."""
    out = LineDict(value)
    out.line = like.line if isinstance(like, LineDict) else line
    if isinstance(like, LineDict):
        out.key_lines = {k: n for k, n in like.key_lines.items() if k in out}
    return out


def _enabled(item: Any) -> bool:
    return isinstance(item, dict) and item.get("enabled", True) is not False


def _words(value: Any) -> list[Any] | None:
    if value is None or value == [] or value == "":
        return None
    return [value] if isinstance(value, str) else as_list(value) or None


def _text(value: Any) -> Any:
    """How the chart writes an env value: text as written, a number or boolean as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return value


def _env(env: Any) -> list[Any] | None:
    """The container's env list (``lib/container/fields/_env.tpl``). Written as a list or as a mapping, each
    ``value`` the chart reads as a number or a boolean is written as text (``toString``: its last loop takes both
    forms alike, since common 2.1.0): ``- {name: ENABLE_RAG_WEB_SEARCH, value: true}`` renders ``"true"``, which
    Kubernetes takes (corpus29: two home-ops Open WebUI releases were an input error 'expected a string')."""
    if isinstance(env, list):
        return [_ld({**e, "value": _text(e["value"])}, e) if isinstance(e, dict) and "value" in e else e
                for e in env] or None
    if not isinstance(env, dict) or not env:
        return None
    deps = {str(k): ([v["dependsOn"]] if isinstance(v, dict) and isinstance(v.get("dependsOn"), str)
                     else [str(d) for d in as_list(v.get("dependsOn"))] if isinstance(v, dict) else [])
            for k, v in env.items()}
    order: list[str] = []
    todo = sorted(deps)
    while todo:  # Kahn's order, ready names alphabetically (lib/chart/_kahn.tpl)
        ready = [k for k in todo if all(d in order or d not in deps for d in deps[k])] or todo[:1]
        order.append(ready[0])
        todo.remove(ready[0])
    out: list[Any] = []
    for name in order:
        value = env[name]
        line = env.key_lines.get(name) if isinstance(env, LineDict) else None
        if isinstance(value, dict):
            body = {k: v for k, v in value.items() if k != "dependsOn"}
            item = ({"name": name, **body} if "value" in body or "valueFrom" in body
                    else {"name": name, "valueFrom": _ld(body, value)})
            if "value" in item:
                item["value"] = _text(item["value"])
            out.append(_ld(item, value if isinstance(value, LineDict) else None, line))
            out[-1].line = line
        else:
            out.append(_ld({"name": name, "value": _text(value)}, line=line))
    return out


def _service_port(values: Mapping[str, Any], controller: str) -> tuple[Any, str] | None:
    """(port, protocol) of the primary port of the primary service of ``controller``, None when it has none."""
    services = [(k, v) for k, v in sorted(as_map(values.get("service")).items())
                if _enabled(v) and v.get("controller") == controller]
    if not services:
        return None
    _, svc = next(((k, v) for k, v in services if v.get("primary") is True), services[0])
    ports = [(k, v) for k, v in sorted(as_map(svc.get("ports")).items()) if _enabled(v)]
    if not ports:
        return None
    _, port = next(((k, v) for k, v in ports if v.get("primary") is True), ports[0])
    return port.get("targetPort") or port.get("port"), str(port.get("protocol") or "TCP")


def _probes(container: Mapping[str, Any], values: Mapping[str, Any], controller: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, probe in as_map(container.get("probes")).items():
        if not isinstance(probe, dict) or probe.get("enabled") is not True:
            continue
        spec = as_map(probe.get("spec"))
        if probe.get("custom") is True:
            if spec:
                out[f"{name}Probe"] = _ld(dict(spec), spec)
            continue
        primary = _service_port(values, controller)
        if primary is None:
            continue
        port, protocol = primary
        kind = protocol if probe.get("type") == "AUTO" else str(probe.get("type") or "TCP")
        body = _ld({k: spec.get(k, d) if spec.get(k) is not None else d for k, d in _PROBE_DEFAULTS}, probe)
        if kind in ("HTTP", "HTTPS"):
            body["httpGet"] = {"path": probe.get("path"), "scheme": kind}
        elif kind == "GRPC":
            body["grpc"] = {}
        else:
            body["tcpSocket"] = {}
        header = next(k for k in ("httpGet", "grpc", "tcpSocket") if k in body)
        body[header]["port"] = probe.get("port") or port
        out[f"{name}Probe"] = body
    return out


def _persistence(values: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(str(k), v) for k, v in sorted(as_map(values.get("persistence")).items()) if _enabled(v)]


def _volume(key: str, item: Mapping[str, Any], release: str) -> LineDict:
    kind = item.get("type") or "persistentVolumeClaim"
    body: dict[str, Any]
    if kind == "emptyDir":
        body = {"emptyDir": {k: item[k] for k in ("medium", "sizeLimit") if item.get(k)}}
    elif kind == "hostPath":
        body = {"hostPath": {"path": item.get("hostPath"), **({"type": item["hostPathType"]}
                                                              if item.get("hostPathType") else {})}}
    elif kind == "configMap":
        body = {"configMap": {"name": item.get("name") or item.get("identifier")}}
    elif kind == "secret":
        body = {"secret": {"secretName": item.get("name") or item.get("identifier")}}
    elif kind == "nfs":
        body = {"nfs": {"server": item.get("server"), "path": item.get("path")}}
    elif kind == "custom":
        body = dict(as_map(item.get("volumeSpec")))
    else:
        body = {"persistentVolumeClaim": {"claimName": item.get("existingClaim") or f"{release}-{key}"}}
    return _ld({"name": key, **body}, item)


def _mounts(values: Mapping[str, Any], controller: str, container: str) -> list[LineDict]:
    out: list[LineDict] = []
    for key, item in _persistence(values):
        default = item.get("hostPath") if item.get("type") == "hostPath" else f"/{key}"
        glob, adv = item.get("globalMounts"), item.get("advancedMounts")
        if glob or adv:
            mounts = list(as_list(glob)) + list(as_list(as_map(as_map(adv).get(controller)).get(container)))
        else:
            mounts = [item]  # neither: every container, at the default path
        for m in mounts:
            m = as_map(m)
            path = m.get("path") if m is not item else None
            mount: dict[str, Any] = {"name": key, "mountPath": path or default}
            if m is not item:
                mount.update({k: m[k] for k in ("subPath", "readOnly") if k in m})
            out.append(_ld(mount, m if isinstance(m, LineDict) else item))
    return out


def _merged(default: Any, specific: Any) -> Any:
    """Sprig's ``merge`` of ``specific`` over ``default`` (mappings deep, the rest: ``specific`` when set)."""
    if isinstance(default, dict) and isinstance(specific, dict):
        out = _ld(dict(default), default)
        for k, v in specific.items():
            out[k] = _merged(default.get(k), v)
            if isinstance(specific, LineDict) and k in specific.key_lines:
                out.key_lines[k] = specific.key_lines[k]
        return out
    return default if specific in (None, "", [], {}) else specific


def _container(cid: str, c: Mapping[str, Any], ctrl: Mapping[str, Any], cname: str, values: Mapping[str, Any],
               probes: bool) -> LineDict:
    defaults = as_map(ctrl.get("defaultContainerOptions"))
    if defaults:
        if ctrl.get("defaultContainerOptionsStrategy") == "merge":
            c = _merged(defaults, c)
        else:
            filled = _ld(dict(c), c)
            for k, v in defaults.items():
                if c.get(k) in (None, "", [], {}):
                    filled[k] = v
                    if isinstance(defaults, LineDict) and k in defaults.key_lines:
                        filled.key_lines[k] = defaults.key_lines[k]
            c = filled
    out = _ld({"name": cid}, c)
    image = c.get("image")
    if isinstance(image, dict):
        repo, tag = image.get("repository"), image.get("tag")
        if repo and tag is not None and tag != "":
            out["image"] = f"{repo}:{_text(tag)}"
    elif isinstance(image, str):
        out["image"] = image
    for key in ("command", "args"):
        words = _words(c.get(key))
        if words is not None:
            out[key] = words
    env = _env(c.get("env"))
    if env is not None:
        out["env"] = env
    for key in _AS_WRITTEN:
        if c.get(key) not in (None, "", [], {}):
            out[key] = c[key]
    if probes:
        out.update(_probes(c, values, cname))
    mounts = _mounts(values, cname, cid)
    if mounts:
        out["volumeMounts"] = mounts
    if isinstance(c, LineDict):
        out.key_lines = {k: c.key_lines[k] for k in out if k in c.key_lines}
    return out


def _pod_options(values: Mapping[str, Any], ctrl: Mapping[str, Any]) -> dict[str, Any]:
    """The pod options (``lib/pod/_getOption.tpl``): the controller's ``pod`` over ``defaultPodOptions``."""
    default, own = as_map(values.get("defaultPodOptions")), as_map(ctrl.get("pod"))
    merge = values.get("defaultPodOptionsStrategy") == "merge"
    out: dict[str, Any] = {}
    for key in sorted({*default, *own}):
        d, o = default.get(key), own.get(key)
        if isinstance(o, bool) or o not in (None, "", [], {}):
            out[key] = _merged(d, o) if merge and isinstance(o, dict) else o
        elif isinstance(d, bool) or d not in (None, "", [], {}):
            out[key] = d
    return out


def app_template_objects(values: Mapping[str, Any], release: str, namespace: str | None,
                         annotations: Mapping[str, Any] | None) -> list[LineDict]:
    """The Deployments, StatefulSets and DaemonSets app-template renders from ``values`` for ``release``, each at
    its controller's line; ``annotations`` (the HelmRelease's) go on each, so its suppressions hold."""
    controllers = [(str(k), v) for k, v in as_map(values.get("controllers")).items() if _enabled(v)]
    out: list[LineDict] = []
    for cname, ctrl in controllers:
        kind = _KINDS.get(str(ctrl.get("type") or "deployment"))
        if kind is None:
            continue
        name = release if len(controllers) == 1 or cname == release or release.endswith(f"-{cname}") \
            else f"{release}-{cname}"
        pod = _pod_options(values, ctrl)
        pod_meta: dict[str, Any] = {k: pod.pop(k) for k in ("annotations", "labels") if k in pod}
        containers = [_container(cid, c, ctrl, cname, values, True)
                      for cid, c in sorted(as_map(ctrl.get("containers")).items()) if _enabled(c)]
        inits = [_container(cid, c, ctrl, cname, values, False)
                 for cid, c in sorted(as_map(ctrl.get("initContainers")).items()) if _enabled(c)]
        volumes = [_volume(key, item, release) for key, item in _persistence(values)
                   if not (item.get("globalMounts") or item.get("advancedMounts"))
                   or item.get("globalMounts") or as_map(item.get("advancedMounts")).get(cname)]
        spec = _ld({**pod, "containers": containers}, as_map(ctrl.get("pod")) or ctrl)
        if inits:
            spec["initContainers"] = inits
        if volumes:
            spec["volumes"] = volumes
        at = ctrl.line if isinstance(ctrl, LineDict) else None
        meta: dict[str, Any] = {"name": name}
        if namespace:
            meta["namespace"] = namespace
        if annotations:
            meta["annotations"] = annotations
        body: dict[str, Any] = {"template": _ld({"metadata": _ld(pod_meta, line=at), "spec": spec}, line=at)}
        if kind[1] != "DaemonSet":
            body["replicas"] = ctrl["replicas"] if ctrl.get("replicas") is not None else 1
        obj = _ld({"apiVersion": kind[0], "kind": kind[1], "metadata": _ld(meta, line=at),
                   "spec": _ld(body, ctrl, at)}, line=at)  # spec at the controller, replicas at its line
        out.append(obj)
    return out
