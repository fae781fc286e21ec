"""vLLM production-stack's operator (``production-stack.vllm.ai/v1alpha1``): a ``VLLMRuntime`` read as the engine
Deployment its controller creates, a ``VLLMRouter`` as the router Deployment, each as the controller writes it at
vllm-stack-0.1.12 (vllm-project/production-stack 66b6066, ``operator/internal/controller/vllmruntime_controller.go``
``deploymentForVLLMRuntime`` and ``vllmrouter_controller.go`` ``deploymentForVLLMRouter``; the fields and their
``+kubebuilder:default`` in ``operator/api/v1alpha1/*_types.go``, which the API server writes into an object that
leaves them out).

VLLMRuntime: the Deployment ``<name>`` of ``replicas`` pods (default 1; with ``autoscalingConfig.enabled`` the
KEDA ScaledObject the controller creates moves them, and it is read too: :func:`runtime_scaled_object`), labelled
``app: <name>`` and the runtime's own labels, with one container ``vllm`` running ``/opt/venv/bin/vllm serve
<modelURL>`` on ``image.registry/image.name`` with the flags the controller writes (``--enable-lora``,
``--no-enable-chunked-prefill`` unless enabled, ``--max-model-len``, ``--tensor-parallel-size``,
``--gpu_memory_utilization``, ``extraArgs`` ... in its order), the request ``gpu`` of ``gpuType`` (``nvidia.com/gpu``
by default) as request and limit, the runtime class (``nvidia`` by default), node
affinity from ``nodeSelectorTerms``, tolerations, and its probes (startup 120 s + 100 × 20 s). It mounts no
``/dev/shm`` at 0.1.12; the operator on main since 217fadb (vllm-project/production-stack#994, July 2026) mounts an
emptyDir of medium Memory there when ``deploymentConfig.shmSize`` is written (a field the 0.1.12 CRD prunes), and the
object says nothing of which operator runs it, so a written ``shmSize`` is read as main reads it. The sidecar
(``sidecarConfig``), the Service and the PVC are not rendered.

VLLMRouter: the Deployment ``<name>`` running ``image.registry/image.name`` with ``--service-discovery`` (``k8s`` by
default), for ``k8s`` ``--k8s-namespace <the router's namespace>`` and ``--k8s-label-selector``, for ``static`` the
backends and models, then ``--routing-logic`` (``roundrobin`` by default), ``--session-key`` and ``extraArgs``, with
the literal ``env`` (the CRD's env entries have a name and a value only); SW406 judges it as any router
(:mod:`.router`). ``enableRouter`` is not read by the controller: it deploys the router whatever it says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, Inventory, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict
from .apptemplate import _ld
from .fields import as_map, int_field, line_of, quantity, typed_list, typed_map
from .parse import Lines
from .pods import read_pod
from .router import keep_router, read_router

GROUP = "production-stack.vllm.ai"
#: The controller's probes (``deploymentForVLLMRuntime``): HTTP GET /health on the vLLM port.
_PROBES = {"readinessProbe": (10, 20, 5, 10), "livenessProbe": (10, 20, 3, 10), "startupProbe": (120, 20, 3, 100)}


def _str(d: Mapping[str, Any], key: str, what: str, loc: Location, default: str = "") -> Any:
    """A string field of the CRD: the text, ``default`` when absent or null, UNKNOWN when not known yet; any other
    type is refused by the API server (``type: string`` in the CRD's schema), an InputError at its line."""
    value = d.get(key)
    if value is None:
        return default
    if value is UNKNOWN or isinstance(value, str):
        return value
    raise InputError(f"{what}: expected a string, found {type(value).__name__} ({value!r}); the CRD types it as a "
                     "string, so Kubernetes refuses the object as written", loc.file, line_of(d, key) or loc.line)


def _bool(d: Mapping[str, Any], key: str, what: str, loc: Location) -> Any:
    value = d.get(key)
    if value is None:
        return False
    if value is UNKNOWN or isinstance(value, bool):
        return value
    raise InputError(f"{what}: expected a boolean, found {type(value).__name__} ({value!r}); Kubernetes refuses the "
                     "object as written", loc.file, line_of(d, key) or loc.line)


def _image(spec: Mapping[str, Any], what: str, loc: Location) -> Any:
    image = typed_map(spec, "image", f"{what}.image", loc)
    registry, name = _str(image, "registry", f"{what}.image.registry", loc), _str(image, "name", f"{what}.image.name",
                                                                                 loc)
    if registry is UNKNOWN or name is UNKNOWN:
        return UNKNOWN
    return f"{registry}/{name}"


def _env(items: list[Any], what: str, loc: Location) -> list[Any]:
    out: list[Any] = []
    for i, e in enumerate(items):
        if not isinstance(e, dict):
            raise InputError(f"{what}[{i}]: expected a mapping", loc.file, loc.line)
        out.append(_ld({"name": e.get("name"), "value": e.get("value")}, like=e))
    return out


def _meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = as_map(obj.get("metadata"))
    out: dict[str, Any] = {"name": meta.get("name") or "unnamed"}
    for key in ("namespace", "annotations"):
        if meta.get(key):
            out[key] = meta[key]
    return out


def _labels(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The pod labels: ``app: <name>``, then the object's own labels over it (``maps.Copy``)."""
    meta = as_map(obj.get("metadata"))
    return {"app": meta.get("name") or "unnamed", **as_map(meta.get("labels"))}


def runtime_deployment(obj: Mapping[str, Any], loc: Location) -> LineDict:
    """The Deployment a VLLMRuntime's controller creates (see the module's docstring), as a ``VLLMRuntime`` with a
    ``spec.template``; the container at ``spec.model``'s line."""
    spec = typed_map(obj, "spec", "spec", loc)
    model = typed_map(spec, "model", "spec.model", loc)
    vc = typed_map(spec, "vllmConfig", "spec.vllmConfig", loc)
    dc = typed_map(spec, "deploymentConfig", "spec.deploymentConfig", loc)
    lmc = typed_map(spec, "lmCacheConfig", "spec.lmCacheConfig", loc)
    res = typed_map(dc, "resources", "spec.deploymentConfig.resources", loc)
    port = int_field(vc, "port", 8000, loc, "spec.vllmConfig.port")
    args: list[Any] = [_str(model, "modelURL", "spec.model.modelURL", loc), "--host", "0.0.0.0", "--port", str(port)]
    lora = _bool(model, "enableLoRA", "spec.model.enableLoRA", loc)
    if lora:
        args.append("--enable-lora")
    if _bool(model, "enableTool", "spec.model.enableTool", loc):
        args.append("--enable-auto-tool-choice")
    parser = _str(model, "toolCallParser", "spec.model.toolCallParser", loc)
    if parser:
        args += ["--tool-call-parser", parser]
    for key, flag in (("enableChunkedPrefill", "chunked-prefill"), ("enablePrefixCaching", "prefix-caching")):
        on = _bool(vc, key, f"spec.vllmConfig.{key}", loc)
        args.append(UNKNOWN if on is UNKNOWN else f"--enable-{flag}" if on else f"--no-enable-{flag}")
    numbers = {k: int_field(d, k, 0, loc, f"spec.{p}.{k}") for d, p, k in (
        (model, "model", "maxModelLen"), (vc, "vllmConfig", "tensorParallelSize"), (model, "model", "maxNumSeqs"),
        (vc, "vllmConfig", "maxLoras"))}
    if numbers["maxModelLen"] is UNKNOWN or numbers["maxModelLen"] > 0:
        args += ["--max-model-len", str(numbers["maxModelLen"]) if numbers["maxModelLen"] is not UNKNOWN else UNKNOWN]
    dtype = _str(model, "dtype", "spec.model.dtype", loc)
    if dtype:
        args += ["--dtype", dtype]
    for key, flag in (("tensorParallelSize", "--tensor-parallel-size"), ("maxNumSeqs", "--max-num-seqs")):
        n = numbers[key]
        if n is UNKNOWN or n > 0:
            args += [flag, UNKNOWN if n is UNKNOWN else str(n)]
    util = _str(vc, "gpuMemoryUtilization", "spec.vllmConfig.gpuMemoryUtilization", loc)
    if util:
        args += ["--gpu_memory_utilization", util]
    if numbers["maxLoras"] is UNKNOWN or numbers["maxLoras"] > 0:
        args += ["--max_loras", UNKNOWN if numbers["maxLoras"] is UNKNOWN else str(numbers["maxLoras"])]
    args += typed_list(vc, "extraArgs", "spec.vllmConfig.extraArgs", loc)
    if _str(model, "chatTemplate", "spec.model.chatTemplate", loc):
        args += ["--chat-template", "/etc/chat-template.json"]
    v1 = _bool(vc, "v1", "spec.vllmConfig.v1", loc)
    env: list[Any] = [{"name": "VLLM_USE_V1", "value": UNKNOWN if v1 is UNKNOWN else "1" if v1 else "0"}]
    if lora:
        env.append({"name": "VLLM_ALLOW_RUNTIME_LORA_UPDATING", "value": "True"})
    if _bool(lmc, "enabled", "spec.lmCacheConfig.enabled", loc):
        connector = "LMCacheConnectorV1" if v1 else "LMCacheConnector"
        args += ["--kv-transfer-config", f'{{"kv_connector":"{connector}","kv_role":"kv_both"}}']
    env += _env(typed_list(vc, "env", "spec.vllmConfig.env", loc), "spec.vllmConfig.env", loc)
    resources: dict[str, dict[str, Any]] = {"requests": {}, "limits": {}}
    for key, name in (("cpu", "cpu"), ("memory", "memory")):
        value = _str(res, key, f"spec.deploymentConfig.resources.{key}", loc)
        if value:
            resources["requests"][name] = resources["limits"][name] = value
    gpu = _str(res, "gpu", "spec.deploymentConfig.resources.gpu", loc)
    if gpu:
        kind = _str(res, "gpuType", "spec.deploymentConfig.resources.gpuType", loc) or "nvidia.com/gpu"
        resources["requests"][kind] = resources["limits"][kind] = gpu
    at = line_of(spec, "model") or loc.line
    container: dict[str, Any] = {
        "name": "vllm", "image": _image(dc, "spec.deploymentConfig", loc),
        "command": ["/opt/venv/bin/vllm", "serve"], "args": args, "env": env,
        "ports": [{"name": "http", "containerPort": port}], "resources": resources,
    }
    for key, (delay, period, timeout, failures) in _PROBES.items():
        container[key] = {"httpGet": {"path": "/health", "port": port, "scheme": "HTTP"}, "initialDelaySeconds": delay,
                          "periodSeconds": period, "timeoutSeconds": timeout, "failureThreshold": failures}
    shm = _str(dc, "shmSize", "spec.deploymentConfig.shmSize", loc)
    volumes: list[Any] = []
    if shm:  # the operator after vllm-stack-0.1.12 (217fadb, main): an emptyDir of medium Memory at /dev/shm
        empty: dict[str, Any] = {"medium": "Memory"}
        if shm is not UNKNOWN and quantity(shm) is not None:
            empty["sizeLimit"] = shm
        volumes.append({"name": "dshm", "emptyDir": empty})
        container["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    pod: dict[str, Any] = {"containers": [_ld(container, line=at)],
                           "runtimeClassName": _str(dc, "runtimeClass", "spec.deploymentConfig.runtimeClass", loc,
                                                    "nvidia")}
    if volumes:
        pod["volumes"] = volumes
    terms = typed_list(dc, "nodeSelectorTerms", "spec.deploymentConfig.nodeSelectorTerms", loc)
    if "nodeSelectorTerms" in dc and dc["nodeSelectorTerms"] is not None:
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}
    tolerations = typed_list(dc, "toleration", "spec.deploymentConfig.toleration", loc)
    if tolerations:
        pod["tolerations"] = tolerations
    # with autoscalingConfig.enabled, KEDA moves this count (the CRD's scale subresource) between the ScaledObject's
    # bounds (:func:`runtime_scaled_object`): the count written is the one it starts at, as a Deployment's is
    replicas = int_field(dc, "replicas", 1, loc, "spec.deploymentConfig.replicas")
    template = _ld({"metadata": {"labels": _labels(obj), "annotations": as_map(dc.get("podAnnotations"))},
                    "spec": _ld(pod, line=at)}, line=at)
    return _ld({"apiVersion": f"{GROUP}/v1alpha1", "kind": "VLLMRuntime", "metadata": _meta(obj),
                "spec": _ld({"replicas": replicas, "template": template}, line=at)}, line=loc.line)


def runtime_scaled_object(obj: Mapping[str, Any], loc: Location) -> tuple[dict[str, Any], Location] | None:
    """The KEDA ScaledObject the controller creates for a VLLMRuntime with ``autoscalingConfig.enabled``
    (``reconcileScaledObject`` at vllm-stack-0.1.12), and where its config is; None when autoscaling is off.

    ``<name>-scaledobject`` in the runtime's namespace scales the VLLMRuntime itself (its CRD's scale subresource is
    ``.spec.deploymentConfig.replicas``, which the controller copies to the Deployment) between ``minReplicas``
    (default 1; 0 scales to zero) and ``maxReplicas`` (required), with the HPA scale-down window
    ``scaleDownPolicy.stabilizationWindowSeconds`` (default 300), on four Prometheus triggers: requests arriving
    (``vllm:num_incoming_requests_total``), ``vllm:num_requests_running`` (threshold 5 by default),
    ``vllm:generation_tokens_total`` and ``vllm:prompt_tokens_total`` rates (100 each by default)."""
    spec = typed_map(obj, "spec", "spec", loc)
    scaling = typed_map(spec, "autoscalingConfig", "spec.autoscalingConfig", loc)
    if not _bool(scaling, "enabled", "spec.autoscalingConfig.enabled", loc):
        return None
    line = spec.key_lines.get("autoscalingConfig") if isinstance(spec, LineDict) else None
    where = Location(loc.file, line or loc.line)
    if scaling.get("maxReplicas") is None:  # +kubebuilder:validation:Required: the API server refuses the object
        raise InputError("spec.autoscalingConfig.maxReplicas: required when autoscaling is enabled (the VLLMRuntime "
                         "CRD's validation)", where.file, where.line)
    low = int_field(scaling, "minReplicas", 1, where, "spec.autoscalingConfig.minReplicas")
    high = int_field(scaling, "maxReplicas", None, where, "spec.autoscalingConfig.maxReplicas", minimum=1)
    down = typed_map(scaling, "scaleDownPolicy", "spec.autoscalingConfig.scaleDownPolicy", where)
    window = int_field(down, "stabilizationWindowSeconds", 300, where,
                       "spec.autoscalingConfig.scaleDownPolicy.stabilizationWindowSeconds")
    meta = as_map(obj.get("metadata"))
    name = str(meta.get("name") or "unnamed")
    queries = ("sum(rate(vllm:num_incoming_requests_total[2m]) > bool 0)", "sum(vllm:num_requests_running)",
               "sum(rate(vllm:generation_tokens_total[1m]))", "sum(rate(vllm:prompt_tokens_total[1m]))")
    return {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
            "metadata": {"name": f"{name}-scaledobject", "namespace": meta.get("namespace") or "default"},
            "spec": {"scaleTargetRef": {"apiVersion": f"{GROUP}/v1alpha1", "kind": "VLLMRuntime", "name": name},
                     "minReplicaCount": low, "maxReplicaCount": high,
                     "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {
                         "stabilizationWindowSeconds": window}}}},
                     "triggers": [{"type": "prometheus", "metadata": {"query": q}} for q in queries]}}, where


def router_deployment(obj: Mapping[str, Any], loc: Location) -> LineDict:
    """The Deployment a VLLMRouter's controller creates (see the module's docstring), as a ``VLLMRouter`` with a
    ``spec.template``; the container at ``spec.routingLogic``'s line (the object's when it names none)."""
    spec = typed_map(obj, "spec", "spec", loc)
    meta = as_map(obj.get("metadata"))
    port = int_field(spec, "port", 80, loc, "spec.port")
    discovery = _str(spec, "serviceDiscovery", "spec.serviceDiscovery", loc, "k8s")
    args: list[Any] = ["--host", "0.0.0.0", "--port", str(port), "--service-discovery", discovery]
    if discovery == "k8s":
        args += ["--k8s-namespace", meta.get("namespace") or "default",
                 "--k8s-label-selector", _str(spec, "k8sLabelSelector", "spec.k8sLabelSelector", loc)]
    elif discovery == "static":
        args += ["--static-backends", _str(spec, "staticBackends", "spec.staticBackends", loc),
                 "--static-models", _str(spec, "staticModels", "spec.staticModels", loc)]
    logic = _str(spec, "routingLogic", "spec.routingLogic", loc, "roundrobin")
    if logic:
        args += ["--routing-logic", logic]
    session = _str(spec, "sessionKey", "spec.sessionKey", loc)
    if session:
        args += ["--session-key", session]
    args += typed_list(spec, "extraArgs", "spec.extraArgs", loc)
    at = spec.key_lines.get("routingLogic", loc.line) if isinstance(spec, LineDict) else loc.line
    container = _ld({"name": "router", "image": _image(spec, "spec", loc), "args": args,
                     "env": _env(typed_list(spec, "env", "spec.env", loc), "spec.env", loc),
                     "ports": [{"name": "http", "containerPort": port}]}, line=at)
    template = _ld({"metadata": {"labels": _labels(obj)}, "spec": _ld({"containers": [container]}, line=at)}, line=at)
    replicas = int_field(spec, "replicas", 1, loc, "spec.replicas")
    return _ld({"apiVersion": f"{GROUP}/v1alpha1", "kind": "VLLMRouter", "metadata": _meta(obj),
                "spec": _ld({"replicas": replicas, "template": template}, line=at)}, line=loc.line)


def add_prodstack_operator(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                           lines: Lines | None) -> bool:
    """Read a VLLMRuntime or VLLMRouter as the Deployment its controller creates; True when a workload or a
    router was added (or a vLLM pod that could not be read was recorded)."""
    from .workloads import add_workload  # it imports the router reader

    routers = len(inv.routers)
    rendered = runtime_deployment(obj, loc) if kind == "VLLMRuntime" else router_deployment(obj, loc)
    added = add_workload(kind, rendered, loc, inv, lines, known=False, rendered=True) or len(inv.routers) > routers
    if kind == "VLLMRouter" and not added:  # an image of another name (a mirror, a fork): the object says it routes
        file_lines = lines.get(loc.file) if lines is not None and loc.file is not None else None
        tpl = rendered["spec"]["template"]
        pod = read_pod(tpl["metadata"], tpl["spec"], loc.file, file_lines, {}, where=loc, path="spec.template.spec")
        router = read_router(kind, rendered, loc, pod.containers, claimed=True)
        if router is not None:
            keep_router(router, inv)
            added = True
    if kind == "VLLMRuntime":
        scaled = runtime_scaled_object(obj, loc)
        if scaled is not None:  # readers17: the operator's KEDA ScaledObject, as any ScaledObject of the inputs
            from .autoscaling import add_scaled_object

            add_scaled_object(scaled[0], scaled[1], inv)
    if not added:
        inv.skipped[kind] += 1  # as an object no adapter claims
    return added
