"""Pure rendering of what the components declare: Kubernetes manifests and AWS plans.

Nothing here imports Pulumi. The components (:mod:`shardwise.components`) turn these plain
dictionaries and plans into resources, and the stack adapter (:mod:`shardwise.rules.adapters.stack`)
turns the very same output into the domain model the rules read, so ``shardwise lint stacks/``
checks exactly what ``pulumi up`` would create.

Kubernetes objects are returned as dictionaries exactly as they would be written in a manifest.
Conventions and the numbers behind them:

* **Labels.** ``app.kubernetes.io/name: <name>`` and ``shardwise.dev/serving-group: <name>`` on
  every object and pod; pods select their node pool with ``shardwise.dev/pool: <pool>`` and
  tolerate the ``nvidia.com/gpu`` NoSchedule taint every GPU pool carries.
* **Annotations.** ``shardwise.dev/p95-context-tokens`` and ``shardwise.dev/target-concurrency`` (the
  declared load: p95 prompt+output length, sequences of the whole workload at once),
  ``shardwise.dev/base-model`` and ``shardwise.dev/ignore`` (``"SW106: reason; SW104: reason"``,
  from the spec's ``suppress`` entries).
* **Container.** ``command: [vllm, serve]``; ``args`` are :meth:`EngineArgsSpec.to_args` plus
  ``--host 0.0.0.0`` (never typed by hand). ``nvidia.com/gpu`` request = limit = tensor_parallel_size.
  Pods on EFA pools also request every ``vpc.amazonaws.com/efa`` device of the node, 5120Mi of
  ``hugepages-2Mi`` and 32000Mi of memory (no memory limit), as the AWS EKS EFA guide's pods do.
* **/dev/shm.** vLLM's Docker guide asks for ``--ipc=host`` or a larger ``--shm-size`` because
  PyTorch and NCCL exchange tensors between the TP worker processes through shared memory; a pod has
  neither, so a memory-backed ``emptyDir`` is mounted at ``/dev/shm``. Size:
  :func:`shm_size_gib` = max(4 GiB, 2 GiB × GPUs of the pod) (the LeaderWorkerSet vLLM example gives
  an 8-GPU pod 15 GiB). It counts against the node's memory, not the GPU's.
* **Model cache and probes.** The weights are kept where the spec's ``cache`` says
  (:mod:`shardwise.rules.capacity.cache`: an init container fills a local cache once, ``HF_HOME`` points at it,
  or vLLM streams from S3). ``startupProbe`` on ``/health`` every 10 s with ``failureThreshold`` =
  ceil(budget ÷ 10), the budget coming from the weights per pod and the cache's throughput;
  readiness and liveness on ``/health`` start only after the startup probe succeeds. ``HF_TOKEN``
  comes from the Secret ``hf_token_secret``, key ``HF_TOKEN``, marked optional.
* **Draining.** A preStop hook keeps a terminating pod serving until vLLM reports no running or
  waiting request (at most ``drain_seconds``); the grace period is ``drain_seconds`` + 30 s.
* **Escape hatches** from the spec's ``pod`` and ``engine.extra_args`` are merged in by
  :mod:`shardwise.rules.render.pod`, which refuses what the rules read.
* **Multi-node groups** launch natively (``--nnodes``/``--node-rank``/``--master-addr``) when the
  image's vLLM has it (:mod:`shardwise.rules.vllm.images`), else with Ray; EFA pods get
  ``FI_PROVIDER=efa`` (and ``FI_EFA_USE_DEVICE_RDMA=1`` on p4d/p5/p6). The LWS exclusive-topology
  annotation is set only when the spec names a topology label.
* **Images** are used as given; :func:`unpinned_image_reason` says why an image is not pinned (tag
  ``latest`` or no tag and no digest) and the components refuse such images.
"""

from __future__ import annotations

import ipaddress
import math
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..capacity import cache
from ..model.spec import (
    AutoscalingSpec,
    EnvironmentSpec,
    NetworkSpec,
    NodePoolSpec,
    RouterSpec,
    SuppressionSpec,
    VllmMultiNodeSpec,
    VllmServiceSpec,
)
from ..model.vocab import (
    ANN_BASE_MODEL,
    ANN_IGNORE,
    ANN_OUTPUT_TPS,
    ANN_P95,
    ANN_TARGET_CONCURRENCY,
    EFA_RESOURCE,
    GPU_RESOURCE,
    LABEL_EFA,
    LABEL_GPU_COUNT,
    LABEL_GPU_MEMORY_GIB,
    LABEL_GPU_PRODUCT,
    LABEL_NVLINK,
    LABEL_NVLINK_DOMAIN_SIZE,
    LABEL_POOL,
)
from ..vllm.imageref import parse_image
from ..vllm.images import choose_launcher
from . import pod as pod_extras

# --- names every rendering shares -------------------------------------------------------------

LABEL_NAME = "app.kubernetes.io/name"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_GROUP = "shardwise.dev/serving-group"
LABEL_ROLE = "role"
ANN_EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology"
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
#: Huge pages an EFA pod asks for. The EFA driver on the node pre-allocates 5128 pages of 2 MiB and
#: libfabric's EFA provider maps its buffers from them; a container whose request does not include
#: them has a zero hugetlb limit. Amount as in the AWS EKS EFA guide's example pod (5120Mi).
EFA_HUGEPAGES = ("hugepages-2Mi", "5120Mi")
#: Kubernetes accepts a huge-page request only beside a cpu or memory request ("HugePages require
#: cpu or memory"); EFA pods request this much memory (the AWS EKS EFA guide's example) and set no
#: memory limit, so the memory-backed /dev/shm and weight loading are never OOM-killed by it.
EFA_MEMORY_REQUEST = "32000Mi"
HF_CACHE = "/root/.cache/huggingface"
HEALTH_PATH = "/health"
PROBE_PERIOD_SECONDS = 10
RAY_PORT = 6379

#: EC2 instance-topology label EKS puts on nodes: the bottom network node, shared by the closest
#: instances. A LeaderWorkerSet group is kept inside one such domain and other groups are kept out.
#: ``kubernetes.io/hostname`` would be wrong (a group spans several nodes by design, so no
#: placement could satisfy it) and ``topology.kubernetes.io/zone`` too coarse (one group per AZ).
DEFAULT_EXCLUSIVE_TOPOLOGY = "topology.k8s.aws/network-node-layer-3"

ALB_TG_ATTRIBUTES = "alb.ingress.kubernetes.io/target-group-attributes"
#: Namespace label that makes the AWS Load Balancer Controller inject pod readiness gates: a pod
#: counts as ready only once its ALB target is healthy, so a rolling update never removes the last
#: registered replica (AWS Load Balancer Controller docs, "Pod readiness gate").
ALB_READINESS_GATE_LABEL = "elbv2.k8s.aws/pod-readiness-gate-inject"
ALB_ANNOTATIONS = {
    "alb.ingress.kubernetes.io/target-type": "ip",
    ALB_TG_ATTRIBUTES: "load_balancing.algorithm.type=least_outstanding_requests",
    "alb.ingress.kubernetes.io/healthcheck-path": HEALTH_PATH,
    "alb.ingress.kubernetes.io/backend-protocol": "HTTP",
    # Streaming completions of long outputs outlive the 60 s default idle timeout.
    "alb.ingress.kubernetes.io/load-balancer-attributes": "idle_timeout.timeout_seconds=600",
}

_LABEL_VALUE_BAD = re.compile(r"[^A-Za-z0-9._-]+")


def label_value(value: object) -> str:
    """A string usable as a Kubernetes label value (63 characters of [A-Za-z0-9._-])."""
    text = _LABEL_VALUE_BAD.sub("-", str(value)).strip("-._")
    return text[:63].rstrip("-._")


def _num(x: float) -> str:
    return f"{x:g}"


def _gi(n: int) -> str:
    return f"{n}Gi"


# --- images -----------------------------------------------------------------------------------


def unpinned_image_reason(image: str) -> str | None:
    """Why ``image`` is not pinned to one build, or None when it has a digest or a non-latest tag."""
    unpinned = parse_image(image).unpinned
    if unpinned == "no tag":
        return f"image `{image}` has no tag: it means `latest` and changes under a running deployment"
    if unpinned == "latest":
        return f"image `{image}` uses the tag `latest`, which changes under a running deployment"
    return None


# --- shared pieces ----------------------------------------------------------------------------


def shm_size_gib(gpus: int) -> int:
    """Memory-backed /dev/shm for a pod with ``gpus`` GPUs: max(4, 2 × gpus) GiB (see module doc)."""
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
    ignore = ignore_annotation(spec.suppress)
    if ignore:
        ann[ANN_IGNORE] = ignore
    return ann


def _meta(name: str, namespace: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
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


def _env(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    return _token_env(spec) + cache.cache_env(spec)


def _volumes(gpus: int, spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    volumes = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": _gi(shm_size_gib(gpus))}}]
    model_cache = cache.cache_volume(spec)
    if model_cache is not None:
        volumes.append(model_cache)
    return volumes


def _mounts(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    return [{"name": "dshm", "mountPath": "/dev/shm"}, *cache.cache_mounts(spec)]


def _resources(gpus: int, efa: int = 0) -> dict[str, Any]:
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


def _template(spec: VllmServiceSpec | VllmMultiNodeSpec, labels: dict[str, str],
              containers: list[dict[str, Any]], gpus: int) -> dict[str, Any]:
    """A pod template with the escape hatches of ``spec.pod`` merged in."""
    template = {"metadata": {"labels": labels}, "spec": _pod_spec(spec, containers, gpus, spec.image)}
    pod_extras.apply_extras(template, containers, spec)
    return template


def _serving_container(spec: VllmServiceSpec | VllmMultiNodeSpec, name: str, command: list[str],
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
        "volumeMounts": _mounts(spec),
        **_probes(budget_seconds),
        "lifecycle": prestop(spec),
    }


# --- VllmService ------------------------------------------------------------------------------


def render_deployment(spec: VllmServiceSpec, pool: NodePoolSpec | None = None) -> dict[str, Any]:
    tp = spec.engine.tensor_parallel_size * spec.engine.pipeline_parallel_size
    budget = cache.startup_budget(spec, pool).budget_seconds
    container = _serving_container(spec, "vllm", ["vllm", "serve"], vllm_args(spec), _env(spec),
                                   _resources(tp), budget)
    template = _template(spec, group_labels(spec.name), [container], tp)
    template["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": selector_labels(spec.name)},
    }]
    replicas = spec.replicas
    if spec.autoscaling is not None:
        replicas = max(spec.replicas, spec.autoscaling.min_replicas)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(spec.name, spec.namespace, workload_annotations(spec)),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": selector_labels(spec.name)},
            # GPUs are scarce: replace one replica at a time instead of asking for a spare node.
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
            "template": template,
        },
    }


def render_service(name: str, namespace: str, port: int, selector: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(name, namespace),
        "spec": {
            "type": "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
        },
    }


def render_pdb(spec: VllmServiceSpec) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": _meta(spec.name, spec.namespace),
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector_labels(spec.name)}},
    }


def _prometheus_query(metric: str, spec: VllmServiceSpec) -> str:
    pods = f'{spec.name}-[a-z0-9]+-[a-z0-9]+'
    if metric == "gpu":
        return f'avg(DCGM_FI_DEV_GPU_UTIL{{namespace="{spec.namespace}",pod=~"{pods}"}})'
    return f'sum({metric}{{namespace="{spec.namespace}",pod=~"{pods}"}})'


def render_autoscaler(spec: VllmServiceSpec) -> dict[str, Any] | None:
    """A KEDA ScaledObject or an autoscaling/v2 HPA on the spec's metric; None without autoscaling."""
    a: AutoscalingSpec | None = spec.autoscaling
    if a is None:
        return None
    behavior = {"scaleDown": {"stabilizationWindowSeconds": a.scale_down_window_seconds}}
    if a.kind == "keda":
        if a.metric == "cpu":
            trigger: dict[str, Any] = {
                "type": "cpu", "metricType": "Utilization", "metadata": {"value": _num(a.threshold)},
            }
        else:
            trigger = {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": a.prometheus_address,
                    "query": _prometheus_query(a.metric, spec),
                    "threshold": _num(a.threshold),
                },
            }
        return {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": _meta(spec.name, spec.namespace),
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
                "minReplicaCount": a.min_replicas,
                "maxReplicaCount": a.max_replicas,
                "pollingInterval": 15,
                "advanced": {"horizontalPodAutoscalerConfig": {"behavior": behavior}},
                "triggers": [trigger],
            },
        }
    if a.metric == "cpu":
        metric: dict[str, Any] = {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": int(a.threshold)}},
        }
    else:
        name = "DCGM_FI_DEV_GPU_UTIL" if a.metric == "gpu" else a.metric
        metric = {
            "type": "Pods",
            "pods": {"metric": {"name": name}, "target": {"type": "AverageValue", "averageValue": _num(a.threshold)}},
        }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": _meta(spec.name, spec.namespace),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
            "minReplicas": max(1, a.min_replicas),
            "maxReplicas": a.max_replicas,
            "metrics": [metric],
            "behavior": behavior,
        },
    }


def render_monitor(spec: VllmServiceSpec | VllmMultiNodeSpec, leaders_only: bool = False) -> dict[str, Any] | None:
    """A Prometheus Operator PodMonitor or ServiceMonitor for vLLM's /metrics (None: monitor external/none)."""
    m = spec.metrics
    if m.monitor not in ("pod-monitor", "service-monitor"):
        return None
    meta = _meta(spec.name, spec.namespace)
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


def _extras(spec: VllmServiceSpec | VllmMultiNodeSpec) -> list[dict[str, Any]]:
    """Objects the workload needs before its pods: a ServiceAccount and a PersistentVolumeClaim."""
    labels = group_labels(spec.name)
    return [o for o in (pod_extras.render_service_account(spec, labels), cache.render_claim(spec, labels))
            if o is not None]


def render_vllm_service(spec: VllmServiceSpec, pool: NodePoolSpec | None = None) -> list[dict[str, Any]]:
    """ServiceAccount and claim (when asked), Deployment, ClusterIP Service, PodDisruptionBudget, the
    autoscaler and the Prometheus monitor (when set)."""
    objs = [
        *_extras(spec),
        render_deployment(spec, pool),
        render_service(spec.name, spec.namespace, spec.engine.port, selector_labels(spec.name)),
        render_pdb(spec),
    ]
    for extra in (render_autoscaler(spec), render_monitor(spec)):
        if extra is not None:
            objs.append(extra)
    return objs


# --- VllmMultiNode ----------------------------------------------------------------------------


def efa_rdma(instance_type: str) -> bool:
    """EFA with GPUDirect RDMA reads (``FI_EFA_USE_DEVICE_RDMA=1``): the p4d/p4de, p5 family and p6 instances."""
    return instance_type.startswith(("p4d", "p4de", "p5", "p6"))


def _multinode_env(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None, efa: int) -> list[dict[str, Any]]:
    env = _env(spec) + [
        {"name": "NCCL_SOCKET_IFNAME", "value": spec.network_interface},
        {"name": "GLOO_SOCKET_IFNAME", "value": spec.network_interface},
        {"name": "VLLM_HOST_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
    ]
    if efa:
        env.append({"name": "FI_PROVIDER", "value": "efa"})
        if pool is not None and efa_rdma(pool.instance_type):
            env.append({"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"})
    return env


#: vLLM's multi-node launch without Ray: every pod runs ``vllm serve`` with the group's size, its
#: rank and the leader's address; workers add ``--headless``. The executor is named explicitly
#: (vLLM: "to use mp you must also set nnodes"; releases before the nnodes>1 default fell back to Ray).
_NATIVE = ["--distributed-executor-backend", "mp", "--nnodes", "$(LWS_GROUP_SIZE)",
           "--node-rank", "$(LWS_WORKER_INDEX)", "--master-addr", "$(LWS_LEADER_ADDRESS)"]


def _ray_leader_script(spec: VllmMultiNodeSpec) -> str:
    gpus = spec.engine.tensor_parallel_size * spec.engine.pipeline_parallel_size
    wait = (
        "import ray; ray.init(address='auto', logging_level='ERROR'); "
        "print(int(ray.cluster_resources().get('GPU', 0)))"
    )
    serve = shlex.join(["vllm", "serve", *vllm_args(spec), "--distributed-executor-backend", "ray"])
    return (
        f'ray start --head --port={RAY_PORT} --node-ip-address="$VLLM_HOST_IP" && '
        f'until [ "$(python3 -c {shlex.quote(wait)} 2>/dev/null || echo 0)" -ge {gpus} ]; do sleep 5; done && '
        f"exec {serve}"
    )


def _ray_worker_script() -> str:
    return f'ray start --address="$LWS_LEADER_ADDRESS:{RAY_PORT}" --node-ip-address="$VLLM_HOST_IP" --block'


def launcher(spec: VllmMultiNodeSpec) -> str:
    """``native`` or ``ray``: as set, or (``auto``) native when the image's vLLM has it."""
    return choose_launcher(spec.launcher, spec.image, spec.vllm_version)[0]


def render_leaderworkerset(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None) -> dict[str, Any]:
    """One LeaderWorkerSet: groups × (PP pods of TP GPUs); the API runs on the leader only."""
    tp = spec.engine.tensor_parallel_size
    pp = spec.engine.pipeline_parallel_size
    efa = efa_interface_count(pool) if pool is not None else 0
    env = _multinode_env(spec, pool, efa)
    resources = _resources(tp, efa)
    budget = cache.startup_budget(spec, pool).budget_seconds
    worker: dict[str, Any]
    if launcher(spec) == "native":
        leader = _serving_container(spec, "vllm-leader", ["vllm", "serve"], vllm_args(spec) + _NATIVE, env,
                                    resources, budget)
        worker = {"name": "vllm-worker", "image": spec.image, "command": ["vllm", "serve"],
                  "args": vllm_args(spec) + _NATIVE + ["--headless"]}
    else:
        leader = _serving_container(spec, "vllm-leader", ["/bin/sh", "-c"], [_ray_leader_script(spec)], env,
                                    resources, budget)
        worker = {"name": "vllm-worker", "image": spec.image, "command": ["/bin/sh", "-c"],
                  "args": [_ray_worker_script()]}
    worker.update({"env": [dict(e) for e in env], "resources": _resources(tp, efa), "volumeMounts": _mounts(spec)})
    leader_labels = {**group_labels(spec.name), LABEL_ROLE: "leader"}
    worker_labels = {**group_labels(spec.name), LABEL_ROLE: "worker"}
    annotations = workload_annotations(spec)
    if spec.exclusive_topology:
        annotations[ANN_EXCLUSIVE_TOPOLOGY] = spec.exclusive_topology
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": _meta(spec.name, spec.namespace, annotations),
        "spec": {
            "replicas": spec.groups,
            "startupPolicy": "LeaderCreated",
            "rolloutStrategy": {
                "type": "RollingUpdate",
                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
            },
            "leaderWorkerTemplate": {
                "size": pp,
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": _template(spec, leader_labels, [leader], tp),
                "workerTemplate": _template(spec, worker_labels, [worker], tp),
            },
        },
    }


def render_vllm_multinode(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None) -> list[dict[str, Any]]:
    """ServiceAccount and claim (when asked), the LeaderWorkerSet, a ClusterIP Service that selects the
    leaders only, and the Prometheus monitor (leaders: the workers serve no HTTP)."""
    selector = {**selector_labels(spec.name), LABEL_ROLE: "leader"}
    objs = [
        *_extras(spec),
        render_leaderworkerset(spec, pool),
        render_service(spec.name, spec.namespace, spec.engine.port, selector),
    ]
    monitor = render_monitor(spec, leaders_only=True)
    if monitor is not None:
        objs.append(monitor)
    return objs


# --- NetworkPolicies --------------------------------------------------------------------------


def _policy(name: str, namespace: str, selector: dict[str, str], types: list[str],
            ingress: list[dict[str, Any]] | None = None,
            egress: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"podSelector": {"matchLabels": selector} if selector else {}, "policyTypes": types}
    if ingress is not None:
        spec["ingress"] = ingress
    if egress is not None:
        spec["egress"] = egress
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": spec,
    }


def _ns_peer(namespace: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}


#: The EKS Pod Identity agent: the SDKs of pods whose service account has a Pod Identity association get
#: their credentials from it (``AWS_CONTAINER_CREDENTIALS_FULL_URI``), on the node's link-local address.
POD_IDENTITY_AGENT = ("169.254.170.23/32", 80)


def uses_pod_identity(spec: VllmServiceSpec | VllmMultiNodeSpec) -> bool:
    sa = spec.pod.service_account
    return sa is not None and bool(sa.role_arn) and sa.mode == "pod-identity"


def render_network_policies(
    network: NetworkSpec,
    services: Sequence[VllmServiceSpec] = (),
    multi_node: Sequence[VllmMultiNodeSpec] = (),
    routers: Sequence[RouterSpec] = (),
) -> list[dict[str, Any]]:
    """NetworkPolicies for every serving namespace.

    Per namespace: deny all ingress and egress by default; allow DNS to kube-system (UDP and TCP
    53); allow HTTPS egress (Hugging Face Hub downloads, the Kubernetes API); where a workload's service
    account uses Pod Identity, allow the EKS Pod Identity agent (:data:`POD_IDENTITY_AGENT`, TCP 80: the
    default deny would block the pods' AWS credentials). Per serving group:
    allow all traffic between the group's own pods (NCCL, Gloo, Ray, torch.distributed use
    ephemeral ports that cannot be listed); allow the API port only from the gateway namespace and
    the monitoring namespace (Prometheus scrapes ``/metrics`` on the API port for the queue-depth
    autoscaler); and, for groups behind an ALB Ingress (target type ``ip``: the load balancer
    connects to pod IPs from inside the VPC), from the VPC CIDR.
    """
    groups: list[VllmServiceSpec | VllmMultiNodeSpec] = [*services, *multi_node]
    alb_routed = {s for r in routers if r.kind == "alb-ingress" for s in r.services}
    out: list[dict[str, Any]] = []
    for ns in sorted({g.namespace for g in groups}):
        out.append(_policy("default-deny", ns, {}, ["Ingress", "Egress"]))
        dns_peer = {**_ns_peer("kube-system"), "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}
        out.append(_policy("allow-dns", ns, {}, ["Egress"], egress=[{
            "to": [dns_peer],
            "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
        }]))
        out.append(_policy("allow-https-egress", ns, {}, ["Egress"], egress=[{
            "to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
            "ports": [{"protocol": "TCP", "port": 443}],
        }]))
        if any(uses_pod_identity(g) for g in groups if g.namespace == ns):
            cidr, port = POD_IDENTITY_AGENT
            out.append(_policy("allow-pod-identity-agent", ns, {}, ["Egress"], egress=[{
                "to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"protocol": "TCP", "port": port}],
            }]))
    for g in groups:
        sel = {LABEL_GROUP: g.name}
        peer = {"podSelector": {"matchLabels": sel}}
        out.append(_policy(f"{g.name}-intra-group", g.namespace, sel, ["Ingress", "Egress"],
                           ingress=[{"from": [peer]}], egress=[{"to": [peer]}]))
        sources = [_ns_peer(network.gateway_namespace)]
        if network.monitoring_namespace:
            sources.append(_ns_peer(network.monitoring_namespace))
        if g.name in alb_routed:
            sources.append({"ipBlock": {"cidr": network.cidr}})
        out.append(_policy(f"{g.name}-api", g.namespace, sel, ["Ingress"], ingress=[{
            "from": sources,
            "ports": [{"protocol": "TCP", "port": g.engine.port}],
        }]))
    return out


# --- InferenceRouter --------------------------------------------------------------------------


def _backend_host(router: RouterSpec, service: str) -> str | None:
    if len(router.services) == 1:
        return None
    return f"{service}.{router.domain}"


def render_router(router: RouterSpec,
                  backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec]) -> list[dict[str, Any]]:
    """An internal ALB Ingress with least-outstanding-requests routing, or Gateway API routes.

    One service is the default backend; several are told apart by host (``<service>.<domain>``).
    An Ingress routes only to Services of its own namespace (checked by the components).
    """
    by_name = {b.name: b for b in backends}
    chosen = [by_name[s] for s in router.services]
    if router.kind == "alb-ingress":
        ann = {"alb.ingress.kubernetes.io/scheme": "internal" if router.internal else "internet-facing",
               **ALB_ANNOTATIONS}
        # the load balancer lets in-flight requests of a deregistered pod finish while it drains
        drain = max(b.drain_seconds for b in chosen)
        ann[ALB_TG_ATTRIBUTES] = f"{ann[ALB_TG_ATTRIBUTES]},deregistration_delay.timeout_seconds={drain}"
        rules = []
        for b in chosen:
            rule: dict[str, Any] = {"http": {"paths": [{
                "path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": b.name, "port": {"number": b.engine.port}}},
            }]}}
            host = _backend_host(router, b.name)
            if host:
                rule["host"] = host
            rules.append(rule)
        spec: dict[str, Any] = {"ingressClassName": "alb", "rules": rules}
        if len(chosen) == 1:
            spec["defaultBackend"] = {"service": {"name": chosen[0].name,
                                                  "port": {"number": chosen[0].engine.port}}}
        return [{
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": router.name, "namespace": router.namespace,
                         "labels": {LABEL_NAME: router.name, LABEL_MANAGED_BY: "shardwise"},
                         "annotations": ann},
            "spec": spec,
        }]
    out: list[dict[str, Any]] = []
    for b in chosen:
        route: dict[str, Any] = {
            "parentRefs": [{"name": router.gateway, "namespace": router.namespace}],
            "rules": [{
                "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                "backendRefs": [{"name": b.name, "namespace": b.namespace, "port": b.engine.port}],
            }],
        }
        host = _backend_host(router, b.name)
        if host:
            route["hostnames"] = [host]
        name = router.name if len(chosen) == 1 else f"{router.name}-{b.name}"
        out.append({
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "HTTPRoute",
            "metadata": {"name": name, "namespace": router.namespace,
                         "labels": {LABEL_NAME: router.name, LABEL_MANAGED_BY: "shardwise"}},
            "spec": route,
        })
    for ns in sorted({b.namespace for b in chosen if b.namespace != router.namespace}):
        out.append({
            "apiVersion": "gateway.networking.k8s.io/v1beta1",
            "kind": "ReferenceGrant",
            "metadata": {"name": f"{router.name}-from-{router.namespace}", "namespace": ns},
            "spec": {
                "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                          "namespace": router.namespace}],
                "to": [{"group": "", "kind": "Service"}],
            },
        })
    return out


# --- GPU node pools: labels, taints, EFA ------------------------------------------------------


def _instance(pool: NodePoolSpec):
    from ..catalog.hardware import catalog_instance

    return catalog_instance(pool.instance_type)


def pool_efa(pool: NodePoolSpec) -> bool:
    """EFA interfaces on this pool: as set, else on for multi-node pools of EFA-capable instances."""
    if pool.efa is not None:
        return pool.efa
    return pool.multi_node and _instance(pool).efa


def efa_interface_count(pool: NodePoolSpec) -> int:
    """EFA devices a node of this pool offers (``vpc.amazonaws.com/efa``); 0 without EFA."""
    if not pool_efa(pool):
        return 0
    return max(1, _instance(pool).efa_interfaces)


def node_labels(pool: NodePoolSpec) -> dict[str, str]:
    """The labels every node of ``pool`` carries (read back by :func:`catalog.hardware.pool_from_labels`)."""
    from .. import catalog
    from ..catalog.hardware import instance_nvlink_domain

    inst = _instance(pool)
    gpu = catalog.find_gpu(inst.gpu)
    domain = instance_nvlink_domain(inst)
    return {
        LABEL_POOL: pool.name,
        LABEL_GPU_PRODUCT: label_value(gpu.name),
        LABEL_GPU_COUNT: str(inst.gpus),
        LABEL_GPU_MEMORY_GIB: _num(gpu.memory_gib),
        LABEL_NVLINK: inst.interconnect,
        LABEL_NVLINK_DOMAIN_SIZE: str(domain),
        LABEL_EFA: "true" if pool_efa(pool) else "false",
    }


def node_taints() -> list[dict[str, str]]:
    """Kubernetes taints of every GPU node: ``nvidia.com/gpu=true:NoSchedule``."""
    return [dict(GPU_TAINT)]


def eks_taints() -> list[dict[str, str]]:
    """The same taint in the EKS node group API's spelling."""
    return [{"key": t["key"], "value": t["value"], "effect": "NO_SCHEDULE"} for t in node_taints()]


EKS_CAPACITY_TYPE = {"on-demand": "ON_DEMAND", "spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}
KARPENTER_CAPACITY_TYPE = {"on-demand": "on-demand", "spot": "spot", "capacity-block": "reserved"}
EKS_AMI_TYPE = "AL2023_x86_64_NVIDIA"


def node_role_name(role_arn: str) -> str:
    """``arn:aws:iam::1:role/path/name`` → ``name`` (Karpenter's EC2NodeClass wants the name)."""
    return role_arn.rsplit("/", 1)[-1]


def render_karpenter(pool: NodePoolSpec, role: str, subnet_ids: Sequence[Any],
                     security_group_ids: Sequence[Any]) -> list[dict[str, Any]]:
    """A Karpenter NodePool and EC2NodeClass with the managed node group's labels, taint and IMDS."""
    inst = _instance(pool)
    labels = node_labels(pool)
    nodeclass: dict[str, Any] = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": {
            "role": role,
            "amiSelectorTerms": [{"alias": pool.ami_alias}],
            "subnetSelectorTerms": [{"id": s} for s in subnet_ids],
            "securityGroupSelectorTerms": [{"id": s} for s in security_group_ids],
            "associatePublicIPAddress": False,
            "metadataOptions": {
                "httpEndpoint": "enabled",
                "httpProtocolIPv6": "disabled",
                "httpPutResponseHopLimit": 1,
                "httpTokens": "required",
            },
            "blockDeviceMappings": [{
                "deviceName": "/dev/xvda",
                "ebs": {"volumeSize": _gi(pool.disk_size_gib), "volumeType": "gp3", "encrypted": True,
                        "deleteOnTermination": True, "throughput": pool.disk_throughput_mib_s,
                        "iops": max(3000, math.ceil(pool.disk_throughput_mib_s * 4))},
            }],
            "tags": {"shardwise.dev/pool": pool.name},
        },
    }
    if pool.instance_store == "raid0":
        nodeclass["spec"]["instanceStorePolicy"] = "RAID0"  # Karpenter: the same RAID-0 at /mnt/k8s-disks/0
    if pool.capacity_type == "capacity-block":
        # Karpenter launches capacity-type `reserved` only into reservations the node class selects
        # (Capacity Blocks are modelled as capacity reservations; Karpenter >= 1.6, ReservedCapacity).
        nodeclass["spec"]["capacityReservationSelectorTerms"] = [{"id": pool.capacity_reservation_id}]
    nodepool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": pool.name, "labels": {LABEL_MANAGED_BY: "shardwise"}},
        "spec": {
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
                    "taints": node_taints(),
                    "requirements": [
                        {"key": "node.kubernetes.io/instance-type", "operator": "In",
                         "values": [pool.instance_type]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In",
                         "values": [KARPENTER_CAPACITY_TYPE[pool.capacity_type]]},
                    ],
                    "expireAfter": "720h",
                },
            },
            # Model servers take minutes to load: only reclaim empty nodes.
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
            "limits": {GPU_RESOURCE: str(pool.max_size * inst.gpus)},
        },
    }
    return [nodeclass, nodepool]


# --- AWS network plans ------------------------------------------------------------------------


@dataclass(frozen=True)
class SubnetPlan:
    name: str
    cidr: str
    availability_zone: str
    public: bool = False  # routes to an internet gateway (only the NAT gateway's subnet)
    map_public_ip_on_launch: bool = False


@dataclass(frozen=True)
class SgRulePlan:
    direction: str  # ingress | egress
    protocol: str  # "-1" | "tcp" | "udp"
    from_port: int | None = None
    to_port: int | None = None
    cidr: str | None = None
    self_ref: bool = False
    description: str = ""


def subnet_plan(network: NetworkSpec, prefix: str) -> list[SubnetPlan]:
    """Private subnets, one per AZ, carved from the VPC CIDR (/16 → /19 each), plus with a NAT
    gateway one small subnet for it in the first AZ. No subnet maps public IPs at launch."""
    if network.vpc_id is not None:
        return []
    vpc = ipaddress.IPv4Network(network.cidr)
    new_prefix = min(vpc.prefixlen + 3, 28)
    blocks = list(vpc.subnets(new_prefix=new_prefix))
    plans = [SubnetPlan(f"{prefix}-private-{az}", str(blocks[i]), az)
             for i, az in enumerate(network.availability_zones)]
    if network.nat_gateway:
        last = blocks[-1]
        nat_block = next(last.subnets(new_prefix=min(last.prefixlen + 3, 28)))
        plans.append(SubnetPlan(f"{prefix}-nat-{network.availability_zones[0]}", str(nat_block),
                                network.availability_zones[0], public=True))
    return plans


def gpu_node_sg_rules() -> list[SgRulePlan]:
    """Rules of the GPU-node security group.

    All traffic to and from the group itself (NCCL, EFA, Ray, torch.distributed; EFA requires the
    self-reference in both directions), and HTTPS out (Hugging Face Hub, ECR and S3 through the
    endpoints, the EKS API). No runtime port is open to anything but the group; kubelet and
    control-plane traffic use the cluster security group the launch template also attaches.
    """
    return [
        SgRulePlan("ingress", "-1", self_ref=True, description="all traffic from the GPU nodes themselves"),
        SgRulePlan("egress", "-1", self_ref=True, description="all traffic to the GPU nodes themselves"),
        SgRulePlan("egress", "tcp", 443, 443, cidr="0.0.0.0/0", description="HTTPS: model hub, ECR, S3, EKS API"),
    ]


def endpoint_sg_rules(vpc_cidr: str) -> list[SgRulePlan]:
    """Interface endpoints accept HTTPS from inside the VPC only."""
    return [SgRulePlan("ingress", "tcp", 443, 443, cidr=vpc_cidr, description="HTTPS from the VPC")]


def interface_endpoint_services(region: str) -> list[str]:
    return [f"com.amazonaws.{region}.ecr.api", f"com.amazonaws.{region}.ecr.dkr"]


def gateway_endpoint_services(region: str) -> list[str]:
    return [f"com.amazonaws.{region}.s3"]


def wants_endpoints(network: NetworkSpec, existing_vpc: bool) -> bool:
    """Whether to create the S3/ECR endpoints: as set, else only in a VPC shardwise creates (an existing
    VPC usually has them, and a second S3 gateway or an ECR endpoint with private DNS conflicts)."""
    return network.endpoints if network.endpoints is not None else not existing_vpc


@dataclass(frozen=True)
class LaunchTemplatePlan:
    """What the launch template of a managed node group sets."""

    http_tokens: str = "required"
    http_put_response_hop_limit: int = 1
    http_endpoint: str = "enabled"
    volume_size_gib: int = 500
    volume_throughput_mib_s: int = 125
    volume_iops: int = 3000
    # (device_index, network_card_index, interface_type) per network interface
    network_interfaces: tuple[tuple[int, int, str], ...] = ((0, 0, "interface"),)
    placement_group: bool = False
    market_type: str | None = None
    # set only for Capacity Blocks, which EKS requires in the launch template; the node group then
    # names no instance types (EKS rejects an instance type in both places)
    instance_type: str | None = None
    user_data: str | None = None  # MIME multi-part nodeadm configuration (not base64-encoded)
    tags: dict[str, str] = field(default_factory=dict)


#: nodeadm configuration that makes the instance-store NVMe disks one RAID-0 array at
#: /mnt/k8s-disks/0, with the kubelet and containerd directories on it (NodeConfig
#: ``spec.instance.localStorage.strategy``, amazon-eks-ami ``setup-local-disks raid0``). EKS merges it
#: with the cluster settings it adds to a managed node group's user data.
RAID0_USER_DATA = """\
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="SHARDWISE"

--SHARDWISE
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  instance:
    localStorage:
      strategy: RAID0

--SHARDWISE--
"""


def efa_interfaces(n: int) -> tuple[tuple[int, int, str], ...]:
    """(device index, network card index, type) of the network interfaces of a node with ``n`` EFA cards.

    The EC2 user guide's current layout ("Maximize network bandwidth on Amazon EC2 instances with
    multiple network cards", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html,
    which also holds its "EFA configuration for P5 and P5e instances"): the primary interface (card 0,
    device 0) is an ENA ``interface`` (an EFA-only interface cannot be primary); card 0 also gets an
    ``efa-only`` interface at device 1 where card 0 supports EFA (as on p5, p5e and p5en); every other card
    an ``efa-only`` interface at device 0 (device 1 is left for an optional ENA interface). EFA-only
    interfaces take no IP address. The guide's earlier text (EFA-with-ENA ``efa`` interfaces, device 1
    on cards 1-31, primary ``efa``) is superseded: it spent an IP address per card. A p5/p5e node gets 32
    EFA devices on 32 cards, a p5en node the catalog's 16. Checked against that guide's text, not on
    hardware.
    """
    if n <= 0:
        return ((0, 0, "interface"),)
    return ((0, 0, "interface"), (1, 0, "efa-only"), *((0, card, "efa-only") for card in range(1, n)))


def launch_template_plan(pool: NodePoolSpec) -> LaunchTemplatePlan:
    """IMDSv2 required with hop limit 1 (pods cannot reach the node's credentials), an encrypted gp3
    root volume at the pool's throughput, no public IP, EFA interfaces per :func:`efa_interfaces`,
    the instance store as RAID-0 when asked. A Capacity Block pool's template targets the
    reservation with market type ``capacity-block`` and names the instance type, as EKS requires for
    node groups of capacity type ``CAPACITY_BLOCK``."""
    throughput = pool.disk_throughput_mib_s
    return LaunchTemplatePlan(
        volume_size_gib=pool.disk_size_gib,
        volume_throughput_mib_s=throughput,
        # gp3 allows at most 0.25 MiB/s per provisioned IOPS; 3000 IOPS are included
        volume_iops=max(3000, math.ceil(throughput * 4)),
        network_interfaces=efa_interfaces(efa_interface_count(pool)),
        placement_group=pool.multi_node,
        market_type="capacity-block" if pool.capacity_type == "capacity-block" else None,
        instance_type=pool.instance_type if pool.capacity_type == "capacity-block" else None,
        user_data=RAID0_USER_DATA if pool.instance_store == "raid0" else None,
        tags={"shardwise.dev/pool": pool.name},
    )


def render_namespace(name: str, alb_readiness_gates: bool = False) -> dict[str, Any]:
    """A namespace shardwise creates; with an ALB in front of its pods, labelled for readiness gates."""
    labels = {LABEL_MANAGED_BY: "shardwise"}
    if alb_readiness_gates:
        labels[ALB_READINESS_GATE_LABEL] = "enabled"
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def environment_namespaces(env: EnvironmentSpec) -> list[dict[str, Any]]:
    """The namespaces of an environment's workloads and routers (readiness gates where an ALB routes)."""
    wanted = {s.namespace for s in (*env.services, *env.multi_node)} | {r.namespace for r in env.routers}
    backends = {b.name: b for b in (*env.services, *env.multi_node)}
    gated = {backends[s].namespace for r in env.routers if r.kind == "alb-ingress" for s in r.services}
    return [render_namespace(ns, ns in gated) for ns in sorted(wanted)]


# --- everything of one environment ------------------------------------------------------------


def render_environment_objects(env: EnvironmentSpec) -> list[tuple[str, dict[str, Any]]]:
    """Every Kubernetes object the environment declares, with the spec path it comes from.

    Karpenter objects carry placeholder subnet and security-group ids: their real values exist
    only once the network is created.
    """
    pools = {p.name: p for p in env.pools}
    out: list[tuple[str, dict[str, Any]]] = []
    for i, p in enumerate(env.pools):
        if p.provisioner == "karpenter":
            role = node_role_name(env.node_role_arn or "")
            for obj in render_karpenter(p, role, ["<subnet>"], ["<security-group>"]):
                out.append((f"pools[{i}]", obj))
    for i, s in enumerate(env.services):
        out.extend((f"services[{i}]", o) for o in render_vllm_service(s, pools.get(s.pool)))
    for i, m in enumerate(env.multi_node):
        out.extend((f"multi_node[{i}]", o) for o in render_vllm_multinode(m, pools.get(m.pool)))
    for o in render_network_policies(env.network, env.services, env.multi_node, env.routers):
        out.append(("network", o))
    backends: list[VllmServiceSpec | VllmMultiNodeSpec] = [*env.services, *env.multi_node]
    for i, r in enumerate(env.routers):
        out.extend((f"routers[{i}]", o) for o in render_router(r, backends))
    return out


#: What an environment's objects need the cluster to run, by prerequisite name (the names of
#: ``cluster.installed``); each is installed by the chart of the same name when shardwise creates the
#: cluster (``prometheus-operator``: kube-prometheus-stack), else declared present by the stack.
PREREQUISITES: dict[str, str] = {
    "nvidia-device-plugin": "the NVIDIA device plugin (nvidia.com/gpu resources on the GPU nodes)",
    "aws-efa-k8s-device-plugin": "the EFA device plugin (vpc.amazonaws.com/efa resources on EFA pools)",
    "lws": "the LeaderWorkerSet controller and CRD (multi-node groups)",
    "keda": "KEDA and its ScaledObject CRD (KEDA autoscalers)",
    "prometheus-operator": "the Prometheus operator and its PodMonitor/ServiceMonitor CRDs, and a Prometheus that "
                           "selects the monitors (kube-prometheus-stack)",
    "aws-load-balancer-controller": "the AWS Load Balancer Controller with its IAM role (alb-ingress routers)",
    "cluster-autoscaler": "the Cluster Autoscaler for the managed node groups (pools that grow past min_size)",
    "karpenter": "Karpenter with its NodePool/EC2NodeClass CRDs (karpenter pools)",
    "gateway-api": "the Gateway API CRDs and a Gateway (gateway-api routers)",
}

#: The prerequisite that installs the CRD of a kind (or serves it, for the ALB Ingress).
PREREQUISITE_OF_KIND: dict[str, str] = {
    "ScaledObject": "keda", "PodMonitor": "prometheus-operator", "ServiceMonitor": "prometheus-operator",
    "LeaderWorkerSet": "lws", "Ingress": "aws-load-balancer-controller", "NodePool": "karpenter",
    "EC2NodeClass": "karpenter", "HTTPRoute": "gateway-api", "ReferenceGrant": "gateway-api",
}


def environment_prerequisites(env: EnvironmentSpec) -> dict[str, str]:
    """The prerequisites (:data:`PREREQUISITES`) the environment's objects need → the first spec path that
    needs each, in the order of :data:`PREREQUISITES`."""
    needed: dict[str, str] = {}
    for i, p in enumerate(env.pools):
        needed.setdefault("nvidia-device-plugin", f"pools[{i}]")
        if pool_efa(p):
            needed.setdefault("aws-efa-k8s-device-plugin", f"pools[{i}]")
        if p.provisioner == "karpenter":
            needed.setdefault("karpenter", f"pools[{i}].provisioner")
        elif p.max_size > p.min_size:
            needed.setdefault("cluster-autoscaler", f"pools[{i}].max_size")
    for path, obj in render_environment_objects(env):
        name = PREREQUISITE_OF_KIND.get(obj["kind"])
        if name is not None:
            needed.setdefault(name, path)
    return {n: needed[n] for n in PREREQUISITES if n in needed}


def priority_classes(env: EnvironmentSpec) -> dict[str, str]:
    """The PriorityClass names the environment's pods use → the spec path of the first that names each."""
    out: dict[str, str] = {}
    for kind in ("services", "multi_node"):
        for i, w in enumerate(getattr(env, kind)):
            if w.pod.priority_class_name:
                out.setdefault(w.pod.priority_class_name, f"{kind}[{i}].pod.priority_class_name")
    return out
