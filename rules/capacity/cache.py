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

**Startup budget** (seconds; what the components render) = ``ENGINE_START_SECONDS`` + ``LOAD_FACTOR`` ×
weights per pod ÷ the cache's read throughput, and never less than the declared ``model_load_seconds`` nor than
the components' floor for the same group (:func:`shardwise.rules.checks.sw402.required_startup_seconds`:
300 s + 2 s/GiB). Weights per pod = the checkpoint's weights ÷ pipeline_parallel_size (each stage
reads its layers); the checkpoint's weights are ``weights_gib`` when declared, else the capacity
model's estimate (parameters × bytes per parameter). The throughput is the declared
``throughput_mib_s``; an ``empty-dir`` reads at the pool's gp3 root-volume throughput.
``LOAD_FACTOR`` = 2 covers readers sharing a file system and page-cache misses; both constants are
estimates. The floor stays above the top of SW402's band for a pod that does not download
(:func:`startup_estimate`: at most 120 s + 2 s/GiB), so what the components render never trips SW402.

**Start-up estimate** (SW402, :func:`startup_estimate`): a band, low to high, of the seconds from the
container's start to vLLM's first answer on its port. A probe window below the low end is surely too short;
inside the band it may be; above the high end it is enough. Each end is engine start-up + reading the pod's
weights + downloading the checkpoint, each term at its fast or slow rate (docs/capacity-model.md, "Start-up
time"):

- engine start-up besides the weights (:data:`ENGINE_START_BAND`): imports, CUDA and worker start, memory
  profiling, then per release: torch.compile and CUDA-graph capture (the V1 engine, vLLM 0.8 and later,
  unless ``--enforce-eager``), CUDA-graph capture only (V0), or neither (``--enforce-eager``);
- reading: weights per pod at :data:`READ_GIB_S_FAST` (page cache, local NVMe) to :data:`READ_GIB_S_SLOW`
  (a network volume: ``SECONDS_PER_WEIGHT_GIB``);
- downloading: the whole checkpoint from the Hugging Face Hub at :data:`DOWNLOAD_MIB_S_FAST` to
  :data:`DOWNLOAD_MIB_S_SLOW`, in both ends when the container downloads at every start (``every start``: a
  Hub model id, not offline, a stock vLLM image, and no volume holding the Hugging Face cache, so each restart
  begins with an empty cache), in the high end only when the image or a variable that is not known may already
  hold it or turn it off (``possible``), and in neither when a volume keeps the cache (``cached``: a start
  killed mid-download leaves its files there, and huggingface_hub resumes them at the next start) nor for a
  local path, an S3 stream or ``HF_HUB_OFFLINE=1`` (``none``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .. import catalog
from ..model.errors import CatalogError
from .sizing import QuantizationUnknown, weight_precision, weights_bytes

if TYPE_CHECKING:  # the typed spec (pydantic) is not imported where the linter reads manifests (SW402)
    from ..model.spec import ModelCacheSpec, NodePoolSpec, VllmMultiNodeSpec, VllmServiceSpec

    Workload = VllmServiceSpec | VllmMultiNodeSpec

CACHE_VOLUME = "model-cache"
HF_HOME = "/root/.cache/huggingface"
#: The cache of a pod that runs as non-root (``run_as_non_root``): under the `vllm` user's HOME.
NON_ROOT_HF_HOME = "/home/vllm/.cache/huggingface"
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


def hf_home(spec: Workload) -> str:
    """Where the cache is mounted and HF_HOME points: /root is closed to a pod that runs as non-root."""
    return NON_ROOT_HF_HOME if spec.run_as_non_root else HF_HOME


def cache_mounts(spec: Workload) -> list[dict[str, Any]]:
    return [] if spec.cache.kind == "s3" else [{"name": CACHE_VOLUME, "mountPath": hf_home(spec)}]


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
    env: list[dict[str, Any]] = [{"name": "HF_HOME", "value": hf_home(spec)}]
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
        "env": [*token_env, {"name": "HF_HOME", "value": hf_home(spec)}],
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
    try:
        model = catalog.find_model(spec.engine.model, spec.base_model)
        precision = weight_precision(model, spec.engine.dtype, spec.engine.quantization)
        return weights_bytes(model, precision, spec.engine.quantization) / 2**30
    except (CatalogError, KeyError, ValueError, TypeError, QuantizationUnknown):
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


# --- start-up estimate (SW402) ----------------------------------------------------------------

#: Engine start-up besides reading the weights, (fewest, most) seconds, by what the release does at start.
#: ``compile``: vLLM's V1 engine (0.8 and later) runs torch.compile and captures CUDA graphs: vLLM PR #11005
#: logs 19.4 s of torch.compile and 15 s of graph capture for Llama-3-8B (init engine 39 s), the torch.compile
#: guide (PR #11078) 21-67 s of compilation for 1B-8B models, issue #20264 a pod answering 59 s after start
#: with its compile cache reused (7.5 s compile, 17 s graph capture, 30 s of process start and imports).
#: ``graphs``: V0 captures CUDA graphs without compiling (PR #11005: init engine 14 s, 10 s of it graphs).
#: ``eager``: ``--enforce-eager`` does neither.
ENGINE_START_BAND: dict[str, tuple[int, int]] = {"compile": (30, 120), "graphs": (20, 90), "eager": (15, 60)}
#: Reading weights, GiB/s: from the page cache or local NVMe (issue #20264: 3.42 GiB loaded in 0.90 s) ...
READ_GIB_S_FAST = 4.0
#: ... to a network volume (``SECONDS_PER_WEIGHT_GIB``: 2 s/GiB).
READ_GIB_S_SLOW = 1 / SECONDS_PER_WEIGHT_GIB
#: Downloading from the Hugging Face Hub, MiB/s: hf_transfer and hf_xet go beyond the ~500 MB/s that Python's
#: client reaches on very high bandwidth networks (github.com/huggingface/hf_transfer) ...
DOWNLOAD_MIB_S_FAST = 1024.0
#: ... to a common rate for one pod (``HUB_DOWNLOAD_MIB_S``).
DOWNLOAD_MIB_S_SLOW = HUB_DOWNLOAD_MIB_S

Download = Literal["every start", "possible", "cached", "none"]
EngineStart = Literal["compile", "graphs", "eager"]


@dataclass(frozen=True)
class StartupEstimate:
    """The band of seconds from a vLLM container's start to its first answer, and what it comes from."""

    low_seconds: int
    high_seconds: int
    weights_gib_per_pod: float | None  # None: the model's size is not known
    checkpoint_gib: float | None
    download: Download
    engine: EngineStart

    def terms(self) -> str:
        """What the band is made of, for a message."""
        parts = []
        if self.checkpoint_gib is not None and self.download in ("every start", "possible"):
            when = ("at every start, as no volume keeps the Hugging Face cache" if self.download == "every start"
                    else "unless the image or the environment already holds it")
            parts.append(f"{self.checkpoint_gib:.1f} GiB downloaded {when}")
        if self.weights_gib_per_pod is not None:
            parts.append(f"{self.weights_gib_per_pod:.1f} GiB read")
        else:
            parts.append("weights of a size not known")
        what = {"compile": "torch.compile and CUDA graphs", "graphs": "CUDA graphs", "eager": "eager mode"}
        parts.append(what[self.engine])
        return "; ".join(parts)


def startup_estimate(checkpoint: float | None, pods: int, download: Download, engine: EngineStart
                     ) -> StartupEstimate:
    """The start-up band (see the module doc) for a checkpoint of ``checkpoint`` GiB (None: not known) served by
    groups of ``pods`` pods (each reads its share of the weights, and downloads the whole checkpoint)."""
    per_pod = checkpoint / max(pods, 1) if checkpoint is not None else None
    low, high = ENGINE_START_BAND[engine]
    low_s, high_s = float(low), float(high)
    if per_pod is not None:
        low_s += per_pod / READ_GIB_S_FAST
        high_s += per_pod / READ_GIB_S_SLOW
    if checkpoint is not None and download in ("every start", "possible"):
        high_s += checkpoint * 1024 / DOWNLOAD_MIB_S_SLOW
        if download == "every start":
            low_s += checkpoint * 1024 / DOWNLOAD_MIB_S_FAST
    return StartupEstimate(
        low_seconds=math.floor(low_s), high_seconds=math.ceil(high_s),
        weights_gib_per_pod=round(per_pod, 2) if per_pod is not None else None,
        checkpoint_gib=round(checkpoint, 2) if checkpoint is not None else None, download=download, engine=engine)


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
