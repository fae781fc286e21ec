"""The model cache: where a workload keeps its weights between restarts, and the startup budget.

A pod that restarts must not download the checkpoint again, and its startup probe must allow the
time the weights really take to load from wherever they are kept. This module renders the cache's
pieces of the pod (volume, download init container, vLLM load flags, a PersistentVolumeClaim) from
:class:`~shardwise.rules.model.spec.ModelCacheSpec` and computes the startup budget.

**Kinds.** ``empty-dir``: lives as long as the pod (container restarts keep it, a recreated pod
downloads again). ``pvc``: a PersistentVolumeClaim (FSx for Lustre ``ReadWriteMany``, shared by all
replicas; EBS ``ReadWriteOnce``, one pod). ``node-nvme``: a ``hostPath`` directory on the node's
instance-store RAID-0 (nodeadm ``localStorage.strategy: RAID0`` mounts it at ``/mnt/k8s-disks/0``,
``awslabs/amazon-eks-ami`` ``setup-local-disks``), so a pod restarted on the same node finds its
weights. ``s3``: no local copy; vLLM streams the safetensors from S3 with ``--load-format
runai_streamer`` (:mod:`shardwise.rules.vllm.images`).

**Download.** For the local kinds an init container (``model-download``) fills the cache with
``huggingface_hub.snapshot_download`` (safetensors, or ``.bin`` when the repository has none; never
``original/``): files already complete are skipped, so a restart downloads nothing. The vLLM
container then runs with ``HF_HUB_OFFLINE=1``. Init containers are not subject to the startup probe:
the probe covers loading, not downloading.

**Startup budget** (seconds) = ``ENGINE_START_SECONDS`` + ``LOAD_FACTOR`` × weights per pod ÷ the
cache's read throughput, and never less than the declared ``model_load_seconds`` nor than SW402's
requirement for the same group (:func:`shardwise.rules.checks.sw402.required_startup_seconds`:
300 s + 2 s/GiB). Weights per pod = the checkpoint's weights ÷ pipeline_parallel_size (each stage
reads its layers); the checkpoint's weights are ``weights_gib`` when declared, else the capacity
model's estimate (parameters × bytes per parameter). The throughput is the declared
``throughput_mib_s``; an ``empty-dir`` reads at the pool's gp3 root-volume throughput.
``LOAD_FACTOR`` = 2 covers readers sharing a file system and page-cache misses; both constants are
estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the typed spec (pydantic) is not imported where the linter reads manifests (SW402)
    from ..model.spec import ModelCacheSpec, NodePoolSpec, VllmMultiNodeSpec, VllmServiceSpec

    Workload = VllmServiceSpec | VllmMultiNodeSpec

CACHE_VOLUME = "model-cache"
HF_HOME = "/root/.cache/huggingface"
#: vLLM's start-up besides reading weights: CUDA init, memory profiling, CUDA-graph capture (estimate).
ENGINE_START_SECONDS = 300
#: Headroom over the ideal read time (estimate).
LOAD_FACTOR = 2.0
#: Hugging Face Hub download rate assumed for Pulumi's rollout timeouts only (estimate).
HUB_DOWNLOAD_MIB_S = 100.0
#: Load budget without a known model size.
DEFAULT_LOAD_SECONDS = 900

#: NVMe instance storage per instance type (GB, all disks together), from the AWS instance-type
#: pages (https://aws.amazon.com/ec2/instance-types/). Used only to refuse a node-nvme cache on an
#: instance without instance storage or smaller than the cache. Absent: no instance storage.
INSTANCE_STORE_GB: dict[str, int] = {
    "g4dn.xlarge": 125, "g4dn.2xlarge": 225, "g4dn.4xlarge": 225, "g4dn.8xlarge": 900,
    "g4dn.12xlarge": 900, "g4dn.16xlarge": 900, "g4dn.metal": 1800,
    "g5.xlarge": 250, "g5.2xlarge": 450, "g5.4xlarge": 600, "g5.8xlarge": 900, "g5.12xlarge": 3800,
    "g5.16xlarge": 1900, "g5.24xlarge": 3800, "g5.48xlarge": 7600,
    "g6.xlarge": 250, "g6.2xlarge": 450, "g6.4xlarge": 600, "g6.8xlarge": 900, "g6.12xlarge": 3760,
    "g6.16xlarge": 1880, "g6.24xlarge": 3760, "g6.48xlarge": 7520,
    "g6e.xlarge": 250, "g6e.2xlarge": 450, "g6e.4xlarge": 600, "g6e.8xlarge": 900, "g6e.12xlarge": 3800,
    "g6e.16xlarge": 1900, "g6e.24xlarge": 3800, "g6e.48xlarge": 7600,
    "p3dn.24xlarge": 1800, "p4d.24xlarge": 8000, "p4de.24xlarge": 8000,
    "p5.4xlarge": 3840, "p5.48xlarge": 30720, "p5e.48xlarge": 30720, "p5en.48xlarge": 30720,
    "p6-b200.48xlarge": 30720,
}

_DOWNLOAD = """\
import sys
from huggingface_hub import HfApi, snapshot_download
repo, revision = sys.argv[1], sys.argv[2] or None
files = HfApi().list_repo_files(repo, revision=revision)
weights = ["*.safetensors"] if any(f.endswith(".safetensors") for f in files) else ["*.bin", "*.pt"]
small = ["*.json", "*.model", "*.txt", "*.tiktoken", "*.jinja", "*.py"]
snapshot_download(repo, revision=revision, allow_patterns=weights + small, ignore_patterns=["original/*"])
"""


def _gi(n: int) -> str:
    return f"{n}Gi"


def is_local_model(model: str) -> bool:
    """A path inside the image or an already-mounted volume: nothing to download."""
    return model.startswith(("/", "./", "s3://", "gs://"))


def claim_name(spec: Workload) -> str | None:
    c = spec.cache
    if c.kind != "pvc":
        return None
    return c.claim_name or f"{spec.name}-model-cache"


def cache_volume(spec: Workload) -> dict[str, Any] | None:
    """The pod volume that holds the cache (None for s3 streaming)."""
    c: ModelCacheSpec = spec.cache
    if c.kind == "empty-dir":
        return {"name": CACHE_VOLUME, "emptyDir": {"sizeLimit": _gi(spec.model_cache_gib)}}
    if c.kind == "pvc":
        return {"name": CACHE_VOLUME, "persistentVolumeClaim": {"claimName": claim_name(spec)}}
    if c.kind == "node-nvme":
        return {"name": CACHE_VOLUME, "hostPath": {"path": c.host_path, "type": "DirectoryOrCreate"}}
    return None


def cache_mounts(spec: Workload) -> list[dict[str, Any]]:
    return [] if spec.cache.kind == "s3" else [{"name": CACHE_VOLUME, "mountPath": HF_HOME}]


def render_claim(spec: Workload, labels: dict[str, str]) -> dict[str, Any] | None:
    """The PersistentVolumeClaim a ``pvc`` cache with a storage class asks for."""
    c = spec.cache
    if c.kind != "pvc" or c.claim_name or not c.storage_class:
        return None
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim_name(spec), "namespace": spec.namespace, "labels": dict(labels)},
        "spec": {
            "accessModes": [c.access_mode],
            "storageClassName": c.storage_class,
            "resources": {"requests": {"storage": _gi(spec.model_cache_gib)}},
        },
    }


def serve_model(spec: Workload) -> str:
    """What ``vllm serve`` loads: the S3 prefix when streaming, else the engine's model."""
    return spec.cache.s3_uri if spec.cache.kind == "s3" and spec.cache.s3_uri else spec.engine.model


def load_flags(spec: Workload) -> list[str]:
    """Flags the cache adds to ``vllm serve`` (the name clients use stays the engine's model)."""
    if spec.cache.kind != "s3":
        return []
    flags = ["--load-format", "runai_streamer"]
    if not spec.engine.served_model_name:
        flags += ["--served-model-name", spec.engine.model]
    return flags


def cache_env(spec: Workload) -> list[dict[str, Any]]:
    """HF_HOME on the cache; offline once the init container has downloaded the checkpoint."""
    if spec.cache.kind == "s3":
        return []
    env: list[dict[str, Any]] = [{"name": "HF_HOME", "value": HF_HOME}]
    if download_needed(spec):
        env.append({"name": "HF_HUB_OFFLINE", "value": "1"})
    return env


def download_needed(spec: Workload) -> bool:
    return spec.cache.kind != "s3" and not is_local_model(spec.engine.model)


def download_container(spec: Workload, image: str, token_env: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The init container that fills the cache (skips files already there)."""
    if not download_needed(spec):
        return None
    return {
        "name": "model-download",
        "image": image,
        "command": ["python3", "-c", _DOWNLOAD],
        "args": [spec.engine.model, spec.engine.revision or ""],
        "env": [*token_env, {"name": "HF_HOME", "value": HF_HOME}],
        "volumeMounts": cache_mounts(spec),
    }


# --- startup budget ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StartupBudget:
    """How long a pod may take to start, and what the figure comes from."""

    weights_gib_per_pod: float | None
    throughput_mib_s: float | None
    load_seconds: int | None  # weights per pod ÷ throughput
    budget_seconds: int  # what the startup probe allows
    floor_seconds: int  # SW402's requirement for the same group

    def as_dict(self) -> dict[str, Any]:
        return {
            "weights_gib_per_pod": self.weights_gib_per_pod,
            "throughput_mib_s": self.throughput_mib_s,
            "load_seconds": self.load_seconds,
            "budget_seconds": self.budget_seconds,
            "floor_seconds": self.floor_seconds,
        }


def checkpoint_gib(spec: Workload) -> float | None:
    """The checkpoint's weights: declared, else parameters × bytes per parameter from the catalog."""
    if spec.weights_gib is not None:
        return spec.weights_gib
    from .. import catalog
    from ..model.errors import CatalogError
    from .sizing import weight_precision, weights_bytes

    try:
        model = catalog.find_model(spec.engine.model, spec.base_model)
        precision = weight_precision(model, spec.engine.dtype, spec.engine.quantization)
        return weights_bytes(model, precision) / 2**30
    except (CatalogError, KeyError, ValueError, TypeError):
        return None


def cache_throughput(spec: Workload, pool: NodePoolSpec | None) -> float | None:
    """MiB/s one pod reads the weights at: declared, else (empty-dir) the pool's root-volume throughput."""
    if spec.cache.throughput_mib_s is not None:
        return spec.cache.throughput_mib_s
    if spec.cache.kind == "empty-dir":
        return float(pool.disk_throughput_mib_s if pool is not None else 125)
    return None


#: The least startup time SW402 and the components allow: vLLM's own start-up (CUDA init, memory
#: profiling, CUDA-graph capture) before any weights.
BASE_STARTUP_SECONDS = 300
#: Seconds per GiB of weights one pod reads (about 0.5 GiB/s: a fast EBS volume or an S3 mount).
SECONDS_PER_WEIGHT_GIB = 2.0


def startup_budget(spec: Workload, pool: NodePoolSpec | None = None) -> StartupBudget:
    """The startup probe's budget (see the module doc)."""
    pp = spec.engine.pipeline_parallel_size
    total = checkpoint_gib(spec)
    per_pod = total / pp if total is not None else None
    throughput = cache_throughput(spec, pool)
    load = math.ceil(per_pod * 1024 / throughput) if per_pod is not None and throughput else None
    floor = int(BASE_STARTUP_SECONDS + SECONDS_PER_WEIGHT_GIB * per_pod) if per_pod is not None \
        else DEFAULT_LOAD_SECONDS
    computed = math.ceil(ENGINE_START_SECONDS + LOAD_FACTOR * load) if load is not None else DEFAULT_LOAD_SECONDS
    budget = max(computed, floor, spec.model_load_seconds or 0)
    return StartupBudget(
        weights_gib_per_pod=round(per_pod, 2) if per_pod is not None else None,
        throughput_mib_s=throughput, load_seconds=load, budget_seconds=budget, floor_seconds=floor,
    )


def rollout_seconds(spec: Workload, pool: NodePoolSpec | None = None) -> int:
    """How long Pulumi should wait for a rollout: a first download from the Hub plus the startup budget."""
    budget = startup_budget(spec, pool)
    download = 0
    if download_needed(spec) and budget.weights_gib_per_pod is not None:
        download = math.ceil(budget.weights_gib_per_pod * spec.engine.pipeline_parallel_size * 1024
                             / HUB_DOWNLOAD_MIB_S)
    return budget.budget_seconds + download


# --- problems the components refuse -----------------------------------------------------------


def cache_problems(spec: Workload, pool: NodePoolSpec, multi_node: bool,
                   max_replicas: int = 1) -> list[tuple[str, str]]:
    """(spec path, message) for a cache that cannot work as declared."""
    c = spec.cache
    out: list[tuple[str, str]] = []
    if c.kind in ("pvc", "node-nvme", "s3") and c.throughput_mib_s is None:
        out.append(("cache.throughput_mib_s",
                    f"a {c.kind} cache needs its read throughput to size the startup probe (MiB/s one pod reads; "
                    "e.g. FSx for Lustre 1000 MB/s/TiB × 4.8 TiB ≈ 4500, an EBS gp3 claim its `throughput` "
                    "parameter, an NVMe RAID-0 its measured sequential read)"))
    if multi_node and c.kind == "empty-dir":
        out.append(("cache.kind",
                    f"`{spec.name}` restarts as a whole group (RecreateGroupOnPodRestart), and an empty-dir "
                    f"cache dies with its pod: every restart would download the checkpoint again; use pvc "
                    f"(ReadWriteMany), node-nvme or s3"))
    if c.kind == "pvc" and c.access_mode == "ReadWriteOnce" and (multi_node or max_replicas > 1):
        who = "the pods of a multi-node group" if multi_node else f"up to {max_replicas} replicas"
        out.append(("cache.access_mode",
                    f"a ReadWriteOnce claim attaches to one node, but {who} mount it; use ReadWriteMany "
                    "(FSx for Lustre) or node-nvme"))
    if c.kind == "node-nvme":
        store = INSTANCE_STORE_GB.get(pool.instance_type, 0)
        if not store:
            out.append(("cache.kind", f"{pool.instance_type} has no NVMe instance storage; use pvc or s3"))
        elif pool.instance_store != "raid0":
            out.append(("cache.kind", f"a node-nvme cache needs pool `{pool.name}` to set instance_store: raid0 "
                        f"(its {store} GB of NVMe mounted at /mnt/k8s-disks/0)"))
        elif spec.model_cache_gib * 2**30 > store * 10**9:
            out.append(("model_cache_gib", f"{spec.model_cache_gib} GiB does not fit the {store} GB of NVMe "
                        f"instance storage of {pool.instance_type}"))
        if not c.host_path.startswith("/mnt/k8s-disks/0/"):
            out.append(("cache.host_path", f"`{c.host_path}` is not on the instance-store RAID-0 "
                        "(/mnt/k8s-disks/0/...)"))
    if c.kind == "s3":
        sa = spec.pod.service_account
        if sa is None or (sa.create and not sa.role_arn):
            out.append(("pod.service_account",
                        f"streaming from {c.s3_uri} needs AWS credentials in the pod: set pod.service_account "
                        "with a role_arn that may read it (IMDSv2 with hop limit 1 keeps the node's role "
                        "from pods)"))
    return out
