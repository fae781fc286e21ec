"""What the pods of VllmService and VllmMultiNode share: the image check, a serving group's labels and
annotations, the ``vllm serve`` arguments, the serving container (probes, /dev/shm, the model cache,
the preStop drain), the pod template with the escape hatches merged in, the ClusterIP Service, the
Prometheus monitor and the objects a workload needs before its pods (conventions:
:mod:`shardwise.rules.render`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..capacity import cache
from ..model.spec import SuppressionSpec, VllmMultiNodeSpec, VllmServiceSpec
from ..model.vocab import (
    ANN_BASE_MODEL,
    ANN_IGNORE,
    ANN_OUTPUT_TPS,
    ANN_P95,
    ANN_TARGET_CONCURRENCY,
    ANN_TPOT_TARGET,
    EFA_RESOURCE,
    GPU_RESOURCE,
    LABEL_POOL,
)
from ..vllm.imageref import parse_image
from . import pod as pod_extras
from .common import HEALTH_PATH, LABEL_GROUP, LABEL_MANAGED_BY, LABEL_NAME, LABEL_ROLE, fmt_gi

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
#: Huge pages an EFA pod asks for. The EFA driver on the node pre-allocates 5128 pages of 2 MiB and
#: libfabric's EFA provider maps its buffers from them; a container whose request does not include
#: them has a zero hugetlb limit. Amount as in the AWS EKS EFA guide's example pod (5120Mi).
EFA_HUGEPAGES = ("hugepages-2Mi", "5120Mi")
#: Kubernetes accepts a huge-page request only beside a cpu or memory request ("HugePages require
#: cpu or memory"); EFA pods request this much memory (the AWS EKS EFA guide's example) and set no
#: memory limit, so the memory-backed /dev/shm and weight loading are never OOM-killed by it.
EFA_MEMORY_REQUEST = "32000Mi"
PROBE_PERIOD_SECONDS = 10


def unpinned_image_reason(image: str) -> str | None:
    """Why ``image`` is not pinned to one build, or None when it has a digest or a non-latest tag."""
    unpinned = parse_image(image).unpinned
    if unpinned == "no tag":
        return f"image `{image}` has no tag: it means `latest` and changes under a running deployment"
    if unpinned == "latest":
        return f"image `{image}` uses the tag `latest`, which changes under a running deployment"
    return None


def shm_size_gib(gpus: int) -> int:
    """Memory-backed /dev/shm for a pod with ``gpus`` GPUs: max(4, 2 × gpus) GiB (see :mod:`shardwise.rules.render`)."""
    return max(4, 2 * max(1, gpus))


def startup_failure_threshold(model_load_seconds: int, period: int = PROBE_PERIOD_SECONDS) -> int:
    """Probes the kubelet tolerates so that threshold × period ≥ the longest model load."""
    return max(1, math.ceil(model_load_seconds / period))


def ignore_annotation(suppress: Iterable[SuppressionSpec]) -> str | None:
    entries = [f"{s.code}: {s.reason.replace(';', ',').strip()}" for s in suppress]
    return "; ".join(entries) or None


def group_labels(name: str) -> dict[str, str]:
    return {LABEL_NAME: name, LABEL_GROUP: name, LABEL_MANAGED_BY: "shardwise"}


def selector_labels(name: str) -> dict[str, str]:
    return {LABEL_NAME: name, LABEL_GROUP: name}


def workload_annotations(spec: VllmServiceSpec | VllmMultiNodeSpec) -> dict[str, str]:
    ann: dict[str, str] = {}
    if spec.p95_context_tokens:
        ann[ANN_P95] = str(spec.p95_context_tokens)
    if spec.target_concurrency:
        ann[ANN_TARGET_CONCURRENCY] = str(spec.target_concurrency)
    if spec.base_model:
        ann[ANN_BASE_MODEL] = spec.base_model
    elif spec.cache.kind == "s3":  # the container loads s3://…; the rules read the model's shape from here
        ann[ANN_BASE_MODEL] = spec.engine.model
    if spec.output_tokens_per_second:
        ann[ANN_OUTPUT_TPS] = f"{spec.output_tokens_per_second:g}"
    if spec.tpot_target_ms:
        ann[ANN_TPOT_TARGET] = f"{spec.tpot_target_ms:g}"
    ignore = ignore_annotation(spec.suppress)
    if ignore:
        ann[ANN_IGNORE] = ignore
    return ann


def object_meta(name: str, namespace: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": group_labels(name)}
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def vllm_args(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[str]:
    """``vllm serve`` arguments: the model (or the S3 prefix it streams from), the engine spec's flags,
    the cache's load flags, then ``--host 0.0.0.0``."""
    engine = spec.engine.to_args()
    return [cache.serve_model(spec), *engine[1:], *cache.load_flags(spec), "--host", "0.0.0.0"]


def _http_probe(port: str, period: int, failure: int, timeout: int = 5) -> dict[str, Any]:
    return {
        "httpGet": {"path": HEALTH_PATH, "port": port},
        "periodSeconds": period,
        "failureThreshold": failure,
        "timeoutSeconds": timeout,
    }


def _probes(budget_seconds: int) -> dict[str, Any]:
    return {
        "startupProbe": _http_probe("http", PROBE_PERIOD_SECONDS, startup_failure_threshold(budget_seconds)),
        "readinessProbe": _http_probe("http", 5, 3),
        "livenessProbe": _http_probe("http", 15, 4, timeout=10),
    }


def _token_env(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    if not spec.hf_token_secret:
        return []
    return [{
        "name": "HF_TOKEN",
        "valueFrom": {"secretKeyRef": {"name": spec.hf_token_secret, "key": "HF_TOKEN", "optional": True}},
    }]


def _api_key_env(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    """vLLM's API key from its Secret: vLLM reads ``VLLM_API_KEY`` when ``--api-key`` is not given, so the key
    is neither in the pod spec nor on the command line."""
    ref = spec.api_key_secret
    if ref is None:
        return []
    return [{"name": "VLLM_API_KEY",
             "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.key, "optional": ref.optional}}}]


def serving_env(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    return _token_env(spec) + _api_key_env(spec) + cache.cache_env(spec)


def _volumes(gpus: int, spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    volumes = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": fmt_gi(shm_size_gib(gpus))}}]
    model_cache = cache.cache_volume(spec)
    if model_cache is not None:
        volumes.append(model_cache)
    return volumes


def serving_mounts(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    return [{"name": "dshm", "mountPath": "/dev/shm"}, *cache.cache_mounts(spec)]


def gpu_resources(gpus: int, efa: int = 0) -> dict[str, Any]:
    """GPUs (and EFA devices) as request = limit; EFA pods also get huge pages and a memory request."""
    res: dict[str, Any] = {GPU_RESOURCE: gpus}
    if not efa:
        return {"requests": dict(res), "limits": dict(res)}
    res[EFA_RESOURCE] = efa
    res[EFA_HUGEPAGES[0]] = EFA_HUGEPAGES[1]  # huge-page requests must equal their limits
    return {"requests": {**res, "memory": EFA_MEMORY_REQUEST}, "limits": dict(res)}


#: preStop drain: wait for the endpoint removal to reach kube-proxy and the load balancer, then until
#: vLLM reports no running or waiting request (its /metrics) or the drain time is up. SIGTERM follows.
_DRAIN = """import sys, time, urllib.request
port, deadline = sys.argv[1], time.time() + float(sys.argv[2])
time.sleep(5)
while time.time() < deadline:
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
    except Exception:
        break
    busy = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(("vllm:num_requests_running", "vllm:num_requests_waiting")))
    if busy == 0:
        break
    time.sleep(2)
"""
#: Seconds the kubelet allows after the drain for vLLM to shut down on SIGTERM.
SHUTDOWN_SECONDS = 30


def prestop(spec: VllmServiceSpec | VllmMultiNodeSpec) -> dict[str, Any]:
    """The serving container's preStop hook that drains in-flight requests (``drain_seconds``)."""
    return {"preStop": {"exec": {"command": ["python3", "-c", _DRAIN, str(spec.engine.port),
                                             str(spec.drain_seconds)]}}}


def _pod_spec(spec: VllmServiceSpec | VllmMultiNodeSpec, containers: list[dict[str, Any]], gpus: int,
              image: str) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "nodeSelector": {LABEL_POOL: spec.pool},
        "tolerations": [dict(GPU_TOLERATION)],
        "terminationGracePeriodSeconds": spec.drain_seconds + SHUTDOWN_SECONDS,
    }
    init = cache.download_container(spec, image, _token_env(spec))
    if init is not None:
        pod["initContainers"] = [init]
    pod["containers"] = containers
    pod["volumes"] = _volumes(gpus, spec)
    return pod


#: The user a non-root pod runs as: the `vllm` user of vllm/vllm-openai images that ship one (UID 2000, GID 0,
#: HOME /home/vllm, group-0-writable caches); the other images run the same way with HOME on an emptyDir.
NON_ROOT_UID, NON_ROOT_GID, NON_ROOT_HOME = 2000, 0, "/home/vllm"


def harden(pod: dict[str, Any]) -> None:
    """Run a pod spec as :data:`NON_ROOT_UID` at the Pod Security ``restricted`` level: non-root, no privilege
    escalation, no capabilities, the RuntimeDefault seccomp profile; HOME (where HF, Triton, torch.compile and vLLM
    keep their caches) on a writable emptyDir, and USER set (``getpass.getuser()`` of a UID /etc/passwd may not
    list)."""
    pod["securityContext"] = {"runAsNonRoot": True, "runAsUser": NON_ROOT_UID, "runAsGroup": NON_ROOT_GID,
                              "fsGroup": NON_ROOT_UID, "seccompProfile": {"type": "RuntimeDefault"}}
    pod["volumes"] = [*pod.get("volumes", []), {"name": "home", "emptyDir": {}}]
    for c in [*pod.get("initContainers", []), *pod["containers"]]:
        c["securityContext"] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
        c["env"] = [{"name": "HOME", "value": NON_ROOT_HOME}, {"name": "USER", "value": "vllm"}, *c.get("env", [])]
        c["volumeMounts"] = [{"name": "home", "mountPath": NON_ROOT_HOME}, *c.get("volumeMounts", [])]


def pod_template(spec: VllmServiceSpec | VllmMultiNodeSpec, labels: dict[str, str],
                 containers: list[dict[str, Any]], gpus: int) -> dict[str, Any]:
    """A pod template with the escape hatches of ``spec.pod`` merged in (and :func:`harden`-ed with
    ``run_as_non_root``)."""
    template = {"metadata": {"labels": labels}, "spec": _pod_spec(spec, containers, gpus, spec.image)}
    pod_extras.apply_extras(template, containers, spec)
    if spec.run_as_non_root:
        harden(template["spec"])
    return template


def serving_container(spec: VllmServiceSpec | VllmMultiNodeSpec, name: str, command: list[str],
                      args: list[str], env: list[dict[str, Any]], resources: dict[str, Any],
                      budget_seconds: int) -> dict[str, Any]:
    return {
        "name": name,
        "image": spec.image,
        "command": command,
        "args": args,
        "ports": [{"name": "http", "containerPort": spec.engine.port, "protocol": "TCP"}],
        "env": env,
        "resources": resources,
        "volumeMounts": serving_mounts(spec),
        **_probes(budget_seconds),
        "lifecycle": prestop(spec),
    }


def render_service(name: str, namespace: str, port: int, selector: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(name, namespace),
        "spec": {
            "type": "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
        },
    }


def render_monitor(spec: VllmServiceSpec | VllmMultiNodeSpec, leaders_only: bool = False) -> dict[str, Any] | None:
    """A Prometheus Operator PodMonitor or ServiceMonitor for vLLM's /metrics (None: monitor external/none)."""
    m = spec.metrics
    if m.monitor not in ("pod-monitor", "service-monitor"):
        return None
    meta = object_meta(spec.name, spec.namespace)
    meta["labels"] = {**m.labels, **meta["labels"]}
    endpoint = {"port": "http", "path": "/metrics", "interval": f"{m.interval_seconds}s"}
    selector = {**selector_labels(spec.name), **({LABEL_ROLE: "leader"} if leaders_only else {})}
    if m.monitor == "pod-monitor":
        body = {"selector": {"matchLabels": selector}, "podMetricsEndpoints": [endpoint]}
        kind = "PodMonitor"
    else:
        body = {"selector": {"matchLabels": selector_labels(spec.name)}, "endpoints": [endpoint]}
        kind = "ServiceMonitor"
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": kind, "metadata": meta, "spec": body}


def workload_extras(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    """Objects the workload needs before its pods: a ServiceAccount and a PersistentVolumeClaim."""
    labels = group_labels(spec.name)
    return [o for o in (pod_extras.render_service_account(spec, labels), cache.render_claim(spec, labels))
            if o is not None]
