"""VllmMultiNode (:mod:`shardwise.components.multinode`): one LeaderWorkerSet of groups × (PP pods of TP
GPUs), launched natively or with Ray, or of data-parallel engines spread over the group's nodes (vLLM's
``--data-parallel-size-local`` launch), the leaders' ClusterIP Service and their Prometheus monitor."""

from __future__ import annotations

import shlex
from typing import Any

from ..capacity import cache
from ..catalog.hardware import catalog_instance
from ..model.inventory import world_size
from ..model.spec import NodePoolSpec, VllmMultiNodeSpec
from ..vllm.images import choose_launcher
from .common import LABEL_ROLE
from .nodepool import efa_interface_count
from .workload import (
    gpu_resources,
    group_labels,
    object_meta,
    pod_template,
    render_monitor,
    render_service,
    selector_labels,
    serving_container,
    serving_env,
    serving_mounts,
    vllm_args,
    workload_annotations,
    workload_extras,
)

ANN_EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology"
RAY_PORT = 6379


def efa_rdma(instance_type: str) -> bool:
    """EFA with GPUDirect RDMA reads (``FI_EFA_USE_DEVICE_RDMA=1``): the p4d/p4de, p5 family and p6 instances."""
    return instance_type.startswith(("p4d", "p4de", "p5", "p6"))


def _multinode_env(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None, efa: int) -> list[dict[str, Any]]:
    env = serving_env(spec) + [
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


#: The port vLLM's data-parallel engines hand-shake with the leader's front end on (``--data-parallel-rpc-port``;
#: vLLM's data-parallel deployment guide uses 13345); it stays inside the group, which RuntimeNetwork allows.
DP_RPC_PORT = 13345


def node_gpus(pool: NodePoolSpec | None, gpus_per_node: int | None) -> int | None:
    """GPUs of one node: the pool's instance type's, else ``gpus_per_node`` (nodes no instance type names: a GPU
    selected by its GPU Feature Discovery labels), else None (not known)."""
    return catalog_instance(pool.instance_type).gpus if pool is not None else gpus_per_node


def data_parallel_local(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None,
                        gpus_per_node: int | None = None) -> int:
    """The data-parallel engines one pod (one node of ``pool``, or of ``gpus_per_node``) runs: as many TP × PP
    engines as a node holds, at most ``--data-parallel-size`` (one per pod where the node is not known); raises
    ValueError where an engine is wider than a node or the engines do not fill the group's nodes evenly."""
    e = spec.engine
    engine = world_size(e.tensor_parallel_size, e.pipeline_parallel_size, e.prefill_context_parallel_size)
    per_node = node_gpus(pool, gpus_per_node) or engine
    if engine > per_node:
        raise ValueError(f"data-parallel engines of {engine} GPUs (TP × PP) are wider than a node's {per_node}: "
                         "spread data-parallel engines over nodes only when each fits one")
    local = min(e.data_parallel_size, per_node // engine)
    if e.data_parallel_size % local:
        raise ValueError(f"data_parallel_size {e.data_parallel_size} is not a multiple of the {local} engines a "
                         "node holds: the group's nodes would hold uneven shares")
    return local


def _data_parallel(spec: VllmMultiNodeSpec, local: int) -> list[str]:
    """vLLM's multi-node data-parallel launch (docs/serving/data_parallel_deployment.md, "Internal Load
    Balancing"): every pod runs its ``local`` engines; the leader's front end binds the handshake at its address."""
    return ["--data-parallel-size-local", str(local), "--data-parallel-address", "$(LWS_LEADER_ADDRESS)",
            "--data-parallel-rpc-port", str(DP_RPC_PORT)]


def _dp_worker_script(spec: VllmMultiNodeSpec, local: int) -> str:
    """A worker pod's engines: ``--headless`` (no API server), ranks from ``LWS_WORKER_INDEX × local`` (the
    leader holds ranks 0 to local − 1); the shell computes the start rank, as KServe's LLMInferenceService
    controller does for the same launch (``$(( ${LWS_WORKER_INDEX:-0} * dataLocal ))``)."""
    words = shlex.join(["vllm", "serve", *vllm_args(spec), *_data_parallel(spec, local), "--headless"])
    return f'exec {words} --data-parallel-start-rank "$((LWS_WORKER_INDEX * {local}))"'


def _ray_leader_script(spec: VllmMultiNodeSpec) -> str:
    e = spec.engine
    gpus = world_size(e.tensor_parallel_size, e.pipeline_parallel_size, e.prefill_context_parallel_size)
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


def group_shape(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None,
                gpus_per_node: int | None = None) -> tuple[int, int]:
    """``(pods per group, GPUs per pod)``: PP pods of TP GPUs; where TP is wider than a node of ``pool`` (a
    tensor-parallel group over the trays of one NVLink domain, GB200 NVL72's 4-GPU trays), each pod takes a whole
    node's GPUs and the group has TP × PP ÷ that many pods (vLLM's ranks run TP-major over ``--nnodes``). With
    data parallelism, DP ÷ :func:`data_parallel_local` pods of that many engines each."""
    # a pipeline stage is TP × PCP ranks: vLLM lays its ranks out DP × PP × PCP × TP (parallel_state.py,
    # initialize_model_parallel; docs/capacity-model.md "GPUs per engine: prefill context parallelism")
    tp = spec.engine.tensor_parallel_size * spec.engine.prefill_context_parallel_size
    pp = spec.engine.pipeline_parallel_size
    if spec.engine.data_parallel_size > 1:  # each pod one node's data-parallel engines (data_parallel_local)
        local = data_parallel_local(spec, pool, gpus_per_node)
        return spec.engine.data_parallel_size // local, world_size(tp, pp) * local
    per_node = node_gpus(pool, gpus_per_node) or tp
    if tp <= per_node or tp % per_node:
        return pp, tp
    return world_size(tp, pp) // per_node, per_node


def render_leaderworkerset(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None,
                           gpus_per_node: int | None = None) -> dict[str, Any]:
    """One LeaderWorkerSet: groups × (PP pods of TP GPUs, or of a node's GPUs where TP spans nodes,
    :func:`group_shape`); the API runs on the leader only. ``gpus_per_node``: the node's GPUs where no ``pool``
    (no instance type) says them."""
    size, per_pod = group_shape(spec, pool, gpus_per_node)
    efa = efa_interface_count(pool) if pool is not None else 0
    env = _multinode_env(spec, pool, efa)
    resources = gpu_resources(per_pod, efa)
    budget = cache.startup_budget(spec, pool).budget_seconds
    worker: dict[str, Any]
    if spec.engine.data_parallel_size > 1:
        if spec.launcher == "ray":
            raise ValueError("data-parallel engines over nodes are launched by vLLM itself "
                             "(--data-parallel-size-local, --headless), not in a Ray cluster: use launcher native")
        local = data_parallel_local(spec, pool, gpus_per_node)
        leader = serving_container(spec, "vllm-leader", ["vllm", "serve"],
                                   vllm_args(spec) + _data_parallel(spec, local), env, resources, budget)
        worker = {"name": "vllm-worker", "image": spec.image, "command": ["/bin/sh", "-c"],
                  "args": [_dp_worker_script(spec, local)]}
    elif launcher(spec) == "native":
        leader = serving_container(spec, "vllm-leader", ["vllm", "serve"], vllm_args(spec) + _NATIVE, env,
                                   resources, budget)
        worker = {"name": "vllm-worker", "image": spec.image, "command": ["vllm", "serve"],
                  "args": vllm_args(spec) + _NATIVE + ["--headless"]}
    else:
        leader = serving_container(spec, "vllm-leader", ["/bin/sh", "-c"], [_ray_leader_script(spec)], env,
                                   resources, budget)
        worker = {"name": "vllm-worker", "image": spec.image, "command": ["/bin/sh", "-c"],
                  "args": [_ray_worker_script()]}
    worker.update({"env": [dict(e) for e in env], "resources": gpu_resources(per_pod, efa),
                   "volumeMounts": serving_mounts(spec)})
    leader_labels = {**group_labels(spec.name), LABEL_ROLE: "leader"}
    worker_labels = {**group_labels(spec.name), LABEL_ROLE: "worker"}
    annotations = workload_annotations(spec)
    if spec.exclusive_topology:
        annotations[ANN_EXCLUSIVE_TOPOLOGY] = spec.exclusive_topology
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": object_meta(spec.name, spec.namespace, annotations),
        "spec": {
            "replicas": spec.groups,
            "startupPolicy": "LeaderCreated",
            "rolloutStrategy": {
                "type": "RollingUpdate",
                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
            },
            "leaderWorkerTemplate": {
                "size": size,
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": pod_template(spec, leader_labels, [leader], per_pod),
                "workerTemplate": pod_template(spec, worker_labels, [worker], per_pod),
            },
        },
    }


def render_vllm_multinode(spec: VllmMultiNodeSpec, pool: NodePoolSpec | None = None,
                          gpus_per_node: int | None = None) -> list[dict[str, Any]]:
    """ServiceAccount and claim (when asked), the LeaderWorkerSet, a ClusterIP Service that selects the
    leaders only, and the Prometheus monitor (leaders: the workers serve no HTTP)."""
    selector = {**selector_labels(spec.name), LABEL_ROLE: "leader"}
    objs = [
        *workload_extras(spec),
        render_leaderworkerset(spec, pool, gpus_per_node),
        render_service(spec.name, spec.namespace, spec.engine.port, selector),
    ]
    monitor = render_monitor(spec, leaders_only=True)
    if monitor is not None:
        objs.append(monitor)
    return objs
