"""Escape hatches onto a vLLM pod (:class:`~shardwise.rules.model.spec.PodSpec`, ``engine.extra_args``).

What a real service needs beyond the typed fields — extra vLLM flags, env and env-from, volumes and
mounts, resources beyond GPUs, a service account for IAM, labels, annotations, node selector and
affinity additions, tolerations, a priority class, image pull secrets — is merged into the pod the
renderer builds. What the rules read, or what shardwise sets itself, is refused with the typed field
to use instead: a flag like ``--tensor-parallel-size`` in ``extra_args`` would change the GPUs per
replica behind the rules' back, a node selector on ``shardwise.dev/pool`` would move the workload to
another pool. :func:`pod_problems` and :func:`extra_args_problems` list every refusal with its spec
path; :func:`escape_hatch_problems` lists them for one workload and :func:`environment_escape_problems` for a
whole environment, the one list the components refuse at ``pulumi preview`` and ``shardwise lint`` refuses in a
stack file; :func:`apply_extras` merges an accepted spec.
"""

from __future__ import annotations

from typing import Any

from ..model import Location
from ..model.errors import InputError
from ..model.spec import EngineArgsSpec, EnvironmentSpec, PodSpec, VllmMultiNodeSpec, VllmServiceSpec
from ..model.vocab import (
    EFA_RESOURCE,
    GPU_LABELS,
    GPU_RESOURCE,
    GPU_TAINT_KEY,
    KARPENTER_NODEPOOL,
    LABEL_EFA,
    LABEL_NVLINK,
    LABEL_NVLINK_DOMAIN_SIZE,
    LABEL_POOL,
)
from ..vllm.args import parse_serve_args

Workload = VllmServiceSpec | VllmMultiNodeSpec

#: Label and annotation prefixes shardwise and LeaderWorkerSet own on pods.
OWNED_PREFIXES = ("shardwise.dev/", "leaderworkerset.sigs.k8s.io/")
OWNED_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/managed-by", "role")
#: Node labels that select the pool (the rules decide the pool from them).
POOL_SELECTORS = frozenset({*GPU_LABELS, LABEL_POOL, LABEL_EFA, LABEL_NVLINK, LABEL_NVLINK_DOMAIN_SIZE,
                            KARPENTER_NODEPOOL, "eks.amazonaws.com/nodegroup", "karpenter.sh/capacity-type",
                            "nvidia.com/gpu.clique"})
#: Resources the typed fields own: GPUs = TP, EFA devices and huge pages from the pool.
OWNED_RESOURCES = frozenset({GPU_RESOURCE, EFA_RESOURCE, "hugepages-2Mi", "hugepages-1Gi"})
#: Environment variables shardwise sets (launch, cache, fabric).
OWNED_ENV = frozenset({"HF_TOKEN", "VLLM_API_KEY", "HF_HOME", "HF_HUB_OFFLINE", "VLLM_HOST_IP", "NCCL_SOCKET_IFNAME",
                       "GLOO_SOCKET_IFNAME", "FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA", "LWS_LEADER_ADDRESS",
                       "LWS_GROUP_SIZE", "LWS_WORKER_INDEX"})
OWNED_VOLUMES = frozenset({"dshm", "model-cache", "home"})
OWNED_PATHS = ("/dev/shm", "/root/.cache/huggingface", "/home/vllm")

#: ``extra_args`` flags (snake_case, as :func:`~shardwise.rules.vllm.args.parse_serve_args`
#: names them) and why each is refused there.
_LAUNCH = "is set by the multi-node launcher (`launcher`)"
OWNED_FLAGS: dict[str, str] = {
    **{name: f"is read by the rules: set engine.{name}" for name in EngineArgsSpec.model_fields
       if name != "extra_args"},
    "distributed_executor_backend": _LAUNCH, "nnodes": _LAUNCH, "node_rank": _LAUNCH, "master_addr": _LAUNCH,
    "master_port": _LAUNCH, "headless": _LAUNCH, "data_parallel_size_local": _LAUNCH,
    "data_parallel_rank": _LAUNCH, "data_parallel_start_rank": _LAUNCH, "data_parallel_address": _LAUNCH,
    "data_parallel_rpc_port": _LAUNCH,
    "host": "is set by shardwise (it serves on 0.0.0.0 behind the Service)",
    "load_format": "is set by `cache` (kind s3 streams with runai_streamer)",
    "download_dir": "is set by `cache`",
    "api_key": "would show the key in the pod spec: name its Secret in api_key_secret",
    "config": "would hide the flags in its file from the rules: set them in engine's fields or extra_args",
}


def extra_args_problems(engine: EngineArgsSpec, prefix: str = "engine.extra_args") -> list[tuple[str, str]]:
    """Every ``extra_args`` entry that a typed field owns, or that cannot be parsed."""
    if not engine.extra_args:
        return []
    try:
        # with a location, every flag given is recorded, even one whose value is vLLM's default
        parsed = parse_serve_args(list(engine.extra_args), form="api", location=Location())
    except InputError as e:
        return [(prefix, e.message)]
    out: list[tuple[str, str]] = []
    for key in parsed.locations:
        why = OWNED_FLAGS.get(key)
        if why:
            out.append((prefix, f"--{key.replace('_', '-')} {why}"))
    for token in parsed.extra.get("positional", []):
        out.append((prefix, f"`{token}` is not a flag (a positional argument would be taken as the model)"))
    return out


def escape_hatch_problems(spec: Workload) -> list[tuple[str, str]]:
    """Every refusal of one workload's escape hatches (:func:`pod_problems`, then :func:`extra_args_problems`), each
    with its path inside the workload: what the components refuse and what ``shardwise lint`` refuses of a stack
    file, so the two agree."""
    return [*pod_problems(spec), *extra_args_problems(spec.engine)]


def environment_escape_problems(spec: EnvironmentSpec) -> list[tuple[str, str]]:
    """:func:`escape_hatch_problems` of every service and multi-node group, each at its path in the environment
    (``services[0].engine.extra_args``)."""
    out: list[tuple[str, str]] = []
    for i, s in enumerate(spec.services):
        out += [(f"services[{i}].{p}", m) for p, m in escape_hatch_problems(s)]
    for i, m_ in enumerate(spec.multi_node):
        out += [(f"multi_node[{i}].{p}", m) for p, m in escape_hatch_problems(m_)]
    return out


def _owned_key(key: str) -> bool:
    return key.startswith(OWNED_PREFIXES) or key in OWNED_LABELS


def pod_problems(spec: Workload, prefix: str = "pod") -> list[tuple[str, str]]:
    """Every escape-hatch entry that collides with what shardwise or the rules own."""
    p: PodSpec = spec.pod
    out: list[tuple[str, str]] = []
    for field in ("labels", "annotations"):
        for key in getattr(p, field):
            if _owned_key(key):
                out.append((f"{prefix}.{field}", f"`{key}` is set by shardwise (suppressions: `suppress`)"))
    for key in p.node_selector:
        if key in POOL_SELECTORS:
            out.append((f"{prefix}.node_selector", f"`{key}` selects the GPU pool: set `pool`"))
    for i, term in enumerate(p.node_affinity):
        key = term.get("key") if isinstance(term, dict) else None
        if not isinstance(key, str) or term.get("operator") not in ("In", "NotIn", "Exists", "DoesNotExist",
                                                                    "Gt", "Lt"):
            out.append((f"{prefix}.node_affinity[{i}]", "each entry is a {key, operator, values} match expression"))
        elif key in POOL_SELECTORS:
            out.append((f"{prefix}.node_affinity[{i}]", f"`{key}` selects the GPU pool: set `pool`"))
    for field in ("requests", "limits"):
        for res in getattr(p, field):
            if res in OWNED_RESOURCES:
                owner = "engine.tensor_parallel_size" if res == GPU_RESOURCE else "the pool's EFA interfaces"
                out.append((f"{prefix}.{field}", f"`{res}` comes from {owner}"))
    for i, env in enumerate(p.env):
        if env.name in OWNED_ENV:
            hint = ": name the key's Secret in api_key_secret" if env.name == "VLLM_API_KEY" else ""
            out.append((f"{prefix}.env[{i}].name", f"`{env.name}` is set by shardwise{hint}"))
    names = {v.name for v in p.volumes}
    for i, vol in enumerate(p.volumes):
        if vol.name in OWNED_VOLUMES:
            out.append((f"{prefix}.volumes[{i}].name", f"`{vol.name}` is shardwise's own volume"))
    for i, m in enumerate(p.volume_mounts):
        if m.name not in names:
            out.append((f"{prefix}.volume_mounts[{i}].name", f"no volume `{m.name}` in pod.volumes"))
        if any(m.mount_path == path or m.mount_path.startswith(path + "/") for path in OWNED_PATHS):
            out.append((f"{prefix}.volume_mounts[{i}].mount_path",
                        f"{m.mount_path} is shardwise's (/dev/shm, the model cache)"))
    for i, t in enumerate(p.tolerations):
        if t.key == GPU_TAINT_KEY:
            out.append((f"{prefix}.tolerations[{i}]", "the GPU taint is tolerated already"))
    if spec.run_as_non_root and spec.cache.kind == "node-nvme":
        out.append(("run_as_non_root", "a node-nvme cache is a hostPath directory the kubelet creates owned by root: "
                    "UID 2000 could not write the download there; use a pvc or s3 cache, or run as root"))
    return out


def _env(p: PodSpec) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in p.env:
        if e.value is not None:
            out.append({"name": e.name, "value": e.value})
        elif e.field_path is not None:
            out.append({"name": e.name, "valueFrom": {"fieldRef": {"fieldPath": e.field_path}}})
        else:
            ref = e.secret_key_ref or e.config_map_key_ref
            assert ref is not None
            kind = "secretKeyRef" if e.secret_key_ref is not None else "configMapKeyRef"
            body: dict[str, Any] = {"name": ref.name, "key": ref.key}
            if ref.optional:
                body["optional"] = True
            out.append({"name": e.name, "valueFrom": {kind: body}})
    return out


def _env_from(e: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"secretRef": {"name": e.secret}} if e.secret else {"configMapRef": {"name": e.config_map}}
    if e.prefix:
        out["prefix"] = e.prefix
    return out


def _volume(v: Any) -> dict[str, Any]:
    if v.secret is not None:
        return {"name": v.name, "secret": {"secretName": v.secret}}
    if v.config_map is not None:
        return {"name": v.name, "configMap": {"name": v.config_map}}
    if v.claim_name is not None:
        return {"name": v.name, "persistentVolumeClaim": {"claimName": v.claim_name}}
    if v.empty_dir_gib is not None:
        return {"name": v.name, "emptyDir": {"sizeLimit": f"{v.empty_dir_gib}Gi"}}
    return {"name": v.name, "hostPath": {"path": v.host_path}}


def apply_extras(template: dict[str, Any], containers: list[dict[str, Any]], spec: Workload) -> None:
    """Merge ``spec.pod`` into a pod template (``{"metadata": …, "spec": …}``) and its vLLM containers."""
    p: PodSpec = spec.pod
    meta = template.setdefault("metadata", {})
    if p.labels:
        meta["labels"] = {**p.labels, **meta.get("labels", {})}
    if p.annotations:
        meta["annotations"] = {**p.annotations, **meta.get("annotations", {})}
    pod = template["spec"]
    for c in containers:
        if p.env:
            c["env"] = [*c.get("env", []), *_env(p)]
        if p.env_from:
            c["envFrom"] = [_env_from(e) for e in p.env_from]
        if p.volume_mounts:
            c["volumeMounts"] = [*c.get("volumeMounts", []), *[
                {k: v for k, v in (("name", m.name), ("mountPath", m.mount_path), ("readOnly", m.read_only or None),
                                   ("subPath", m.sub_path)) if v is not None} for m in p.volume_mounts]]
        res = c.setdefault("resources", {})
        if p.requests:
            res["requests"] = {**res.get("requests", {}), **p.requests}
        if p.limits:
            res["limits"] = {**res.get("limits", {}), **p.limits}
    if p.volumes:
        pod["volumes"] = [*pod.get("volumes", []), *[_volume(v) for v in p.volumes]]
    if p.service_account is not None:
        pod["serviceAccountName"] = p.service_account.name
    if p.node_selector:
        pod["nodeSelector"] = {**p.node_selector, **pod.get("nodeSelector", {})}
    if p.node_affinity:
        terms = [dict(t) for t in p.node_affinity]
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": terms}]}}}
    if p.tolerations:
        pod["tolerations"] = [*pod.get("tolerations", []), *[
            {k: v for k, v in (("key", t.key), ("operator", t.operator), ("value", t.value), ("effect", t.effect))
             if v is not None} for t in p.tolerations]]
    if p.priority_class_name:
        pod["priorityClassName"] = p.priority_class_name
    if p.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": s} for s in p.image_pull_secrets]


def render_service_account(spec: Workload, labels: dict[str, str]) -> dict[str, Any] | None:
    """The ServiceAccount the pods run as, when the spec asks shardwise to create it (IRSA annotates it)."""
    sa = spec.pod.service_account
    if sa is None or not sa.create:
        return None
    meta: dict[str, Any] = {"name": sa.name, "namespace": spec.namespace, "labels": dict(labels)}
    if sa.mode == "irsa" and sa.role_arn:
        meta["annotations"] = {"eks.amazonaws.com/role-arn": sa.role_arn}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}
