"""The objects of the inventory every input is turned into and every rule reads: serving groups (with their
engine arguments, containers and probes), node pools, Services, Ingresses, NetworkPolicies, autoscalers,
security groups, launch issues, and the :class:`Inventory` that holds them, each with its :class:`Location`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import InputError
from .location import Location as Location  # the model's face and every reader import it from here
from .shapes import GpuInfo, ModelShape
from .unknown import UNKNOWN, Unknown


@dataclass(frozen=True)
class Suppression:
    """An explicit, reasoned exception for one rule on one object."""

    code: str
    reason: str
    location: Location = Location()


@dataclass(frozen=True)
class Taint:
    """A node taint (``spec.taints`` of a Node, or the taints a node pool gives its nodes)."""

    key: Any  # str | UNKNOWN
    value: Any  # str | None | UNKNOWN
    effect: Any  # NoSchedule | NoExecute | PreferNoSchedule | UNKNOWN


@dataclass(frozen=True)
class Toleration:
    """A pod's toleration of node taints (``spec.tolerations``)."""

    key: str | Unknown | None  # each UNKNOWN when computed at preview
    operator: str | Unknown = "Equal"  # Equal | Exists
    value: str | Unknown | None = None
    effect: str | Unknown | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Whether this toleration surely tolerates ``taint`` (a taint field that is not known yet
        matches only a toleration that accepts any value of it)."""
        if UNKNOWN in (self.key, self.operator, self.effect) or (self.operator == "Equal" and self.value is UNKNOWN):
            return False  # not surely
        if self.effect and self.effect != taint.effect:
            return False
        if self.key is None:  # empty key with Exists tolerates everything
            return self.operator == "Exists"
        if self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return taint.value is not UNKNOWN and (self.value or "") == (taint.value or "")


@dataclass(frozen=True)
class MatchExpression:
    """One node-affinity requirement (``key In [..]``, ``Exists``, ...)."""

    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist | Gt | Lt
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        have = labels.get(self.key)
        op = self.operator
        if op == "In":
            return have is not None and have in self.values
        if op == "NotIn":
            return have is None or have not in self.values
        if op == "Exists":
            return have is not None
        if op == "DoesNotExist":
            return have is None
        if op in ("Gt", "Lt") and have is not None and self.values:
            try:
                a, b = int(have), int(self.values[0])
            except ValueError:
                return False
            return a > b if op == "Gt" else a < b
        return False


@dataclass
class NodePool:
    """A set of identical GPU nodes the scheduler can place pods on."""

    name: str
    location: Location = Location()
    kind: str = "labels"  # eks-nodegroup | karpenter | stack | labels
    gpu: GpuInfo | None = None
    gpus_per_node: Any = None  # int | UNKNOWN | None
    gpu_memory_gib: Any = None  # float | UNKNOWN | None
    interconnect: Any = None  # Interconnect | UNKNOWN (a GPU partition's fabric, amd17) | None
    #: GPUs sharing one NVLink domain (> gpus_per_node: multi-node NVLink); UNKNOWN between GPU partitions
    nvlink_domain_size: Any = None  # int | UNKNOWN | None
    clique: str | None = None  # nvidia.com/gpu.clique
    efa: Any = None  # bool | UNKNOWN | None
    instance_type: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[Taint] = field(default_factory=list)
    unknown_labels: Any = frozenset()  # label keys whose values are not known yet; UNKNOWN: the whole map
    security_groups: list[str] = field(default_factory=list)
    subnets: list[str] = field(default_factory=list)
    launch_template: str | Unknown | None = None
    #: A network interface of the launch template asks for a public IPv4 (associatePublicIpAddress), whatever its
    #: subnet maps: True, UNKNOWN, or None (not asked: the subnet decides)
    public_ip: Any = None
    placement_group: str | None = None
    capacity_type: str | None = None
    #: An EKS managed node group's amiType (``AL2_x86_64_GPU``, ``AL2023_x86_64_NVIDIA``,
    #: ``BOTTLEROCKET_x86_64_NVIDIA``, ...): str, UNKNOWN, or None when the inputs do not say
    ami_type: Any = None
    #: Who makes the accelerators: "nvidia", "amd", "google" (TPU), "intel" (Gaudi), "aws" (Neuron), "huawei"
    #: (Ascend); None: unknown.
    accelerator: str | None = None
    #: The vendor-table families (``Accelerator.family``: ``intel-gaudi``, ``intel-gpu``, ``nvidia-gpu``) whose device
    #: plugins the nodes run, where the inputs say more than the maker: Intel's Gaudi and GPU plugins advertise
    #: different resources (``habana.ai/gaudi``; ``gpu.intel.com/i915``, ``gpu.intel.com/xe``). ``()``: the nodes are
    #: known to have no accelerator (a Node whose capacity lists none, an instance type of a category without one).
    #: None: known no better than ``accelerator`` (or the GPU) says.
    accelerator_families: tuple[str, ...] | None = None
    #: The accelerator resources a Node's ``status.capacity`` lists (a Node only; None for any other pool): the
    #: scheduler binds a pod that requests an extended resource only to a node whose allocatable holds it.
    node_resources: tuple[str, ...] | None = None
    fabric: str | None = None  # "efa" | "infiniband": the network between nodes, when the labels say
    #: Why ``gpu_memory_gib`` is UNKNOWN where a reason better than "not known" is at hand ("" otherwise): a label
    #: naming a GPU family the catalog holds in several sizes, with no memory figure to pick one.
    gpu_memory_why: str = ""
    #: Why the pool's hardware (its GPU, GPU memory and GPUs per node) is UNKNOWN when the pool stands for one node
    #: the inputs do not describe ("" otherwise): a selector that pins the pod by ``kubernetes.io/hostname``.
    hardware_why: str = ""
    #: Why ``gpu`` is read from a name rather than from what the nodes are ("" when it is not): a KubeAI resource
    #: profile ``nvidia-gpu-l4`` says L4 by its name only; the blocking findings that read the GPU are advisory.
    gpu_assumed: str = ""
    #: The Karpenter (or EKS Auto Mode) NodePool this pool is one kind of, when that NodePool's requirements admit
    #: several (an ``In`` list of instance types, families or GPU names): one pool per kind, all with this name.
    variant_of: str | None = None
    #: The kinds were listed from the catalog for a requirement that names none (an instance category, a GPU memory
    #: or count) and no ``instance-gpu-manufacturer In`` names the makers: EC2 may hold types of that requirement the
    #: catalog does not (g4ad, AMD's Radeon Pro V520, in category g), so what the pool never advertises is not sure.
    catalog_listed: bool = False
    #: The most GPUs a node of this kind may have where ``gpus_per_node`` is not one figure (a Karpenter NodePool's
    #: kind whose instance types vary in GPU count) and its requirements bound them: ``instance-gpu-count In``/``Lt``,
    #: or ``instance-size In`` sizes of its family that the catalog all holds. None: not bounded, or not known.
    max_gpus_per_node: int | None = None
    #: A Karpenter NodePool's ``spec.weight`` (0 when unset): of several NodePools that admit a pod, Karpenter uses
    #: the one with the highest weight.
    weight: int = 0
    suppressions: list[Suppression] = field(default_factory=list)


@dataclass
class Probe:
    """A container's startup, liveness or readiness probe."""

    kind: Literal["startup", "liveness", "readiness"]
    path: str | None = None
    port: Any = None  # int | a named container port | UNKNOWN | None
    initial_delay_seconds: int = 0
    period_seconds: int = 10
    failure_threshold: int = 3
    timeout_seconds: int = 1
    handler: str | None = field(default=None, compare=False)  # "httpGet" | "tcpSocket" | "grpc" | "exec"

    @property
    def budget_seconds(self) -> int:
        """Longest time the probe tolerates before the kubelet acts."""
        return self.initial_delay_seconds + self.period_seconds * self.failure_threshold


@dataclass
class Volume:
    """A pod volume, as far as the rules look at it (its kind, and the medium and size of an emptyDir)."""

    name: str
    kind: str  # emptyDir | persistentVolumeClaim | secret | hostPath | configMap | other
    medium: str | None = None  # "Memory" for a memory-backed emptyDir
    size_limit: str | None = None


@dataclass(frozen=True)
class EnvSource:
    """One ``envFrom`` entry: every key of a ConfigMap or Secret becomes a variable (after ``prefix``)."""

    kind: Literal["configMap", "secret"]
    name: Any  # str | UNKNOWN
    prefix: str | Unknown = ""
    location: Location = Location()


@dataclass
class SecurityContext:
    """What a container may do on its node (the container's securityContext over the pod's)."""

    privileged: Any = False  # bool | UNKNOWN
    capabilities_add: list[str] = field(default_factory=list)
    seccomp: Any = None  # "RuntimeDefault" | "Unconfined" | "Localhost" | None (not set) | UNKNOWN
    location: Location = Location()


class UnknownEnv(dict[str, Any]):
    """Variables of which some are not known yet (a container's ``env`` list or an entry of it, a
    ConfigMap's ``data``): the known ones keep their values, any other name reads as :data:`UNKNOWN`."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> Any:
        return UNKNOWN

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key]


@dataclass
class Container:
    """One container of a pod template."""

    name: str
    image: str | Unknown | None = None  # UNKNOWN: a computed image at preview
    command: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)
    ports: list[int] = field(default_factory=list)
    gpus: Any = None  # accelerators requested (nvidia.com/gpu, amd.com/gpu, ...): int | UNKNOWN | None
    accelerator_resource: str | None = None  # the resource ``gpus`` counts, e.g. "nvidia.com/gpu"
    #: ``gpus`` is a request the container writes without a limit of that resource (the API server refuses that for
    #: an extended resource unless admission writes the limit: ``adapters.k8s.pods.check_requests_within_limits``)
    gpus_request_only: bool = False
    efa: Any = 0  # vpc.amazonaws.com/efa devices: int | UNKNOWN (a computed value, a template placeholder)
    #: The RDMA or NIC extended resources the container requests, as written (``rdma/ib``: an RDMA device plugin's;
    #: ``nvidia.com/hostdev``: an SR-IOV or host-device network's): what shows an InfiniBand or RoCE fabric (SW309).
    nics: list[str] = field(default_factory=list)
    probes: dict[str, Probe] = field(default_factory=dict)
    volume_mounts: dict[str, str] = field(default_factory=dict)  # volume name -> mount path
    location: Location = Location()
    env_from: list[EnvSource] = field(default_factory=list)
    env_locations: dict[str, Location] = field(default_factory=dict)  # variable -> where it is set
    image_location: Location | None = field(default=None, compare=False)  # where `image:` is written
    #: Named containerPorts: name -> number, UNKNOWN when the number is not known yet; the key "*" (no port
    #: name has it) -> UNKNOWN when the list, an entry or a name is not known yet: any name may be there.
    port_names: dict[str, Any] = field(default_factory=dict)
    security: SecurityContext = field(default_factory=SecurityContext)
    runs_vllm: bool = False  # the container's command starts a vLLM server
    resource_claims: list[str] = field(default_factory=list)  # resources.claims (dynamic resource allocation)
    #: The pod's spec.resourceClaims: claim name -> (ResourceClaim or ResourceClaimTemplate, its name | UNKNOWN)
    claim_refs: dict[str, tuple[str, Any]] = field(default_factory=dict)
    #: Why the devices of those claims are not read, where a claim of the inputs names them in a way not read
    #: (:attr:`DeviceClaim.unread`, with the claim's kind and name); "" otherwise.
    claims_unread: str = ""
    #: The DeviceClass those claims take their devices from (the first that names one), where the inputs hold them.
    claim_class: str | None = None
    #: The MIG profile their selectors require of every device (NVIDIA's DRA driver's ``profile`` attribute,
    #: :attr:`DeviceClaim.mig_profile`), None where any of them requires none or they differ (mig21).
    claim_mig_profile: str | None = None
    #: What was written for each env value that referenced other variables ($(VAR)), before expansion; UNKNOWN_TOKEN
    #: for a plain ``value`` not known (a computed value at preview, not a ``valueFrom``: written in plain text).
    env_written: dict[str, str] = field(default_factory=dict)
    #: Variables set by ``valueFrom.configMapKeyRef``: name -> (ConfigMap, key), resolved by the rules from the
    #: ConfigMaps of the inputs, as Kubernetes does.
    env_refs: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: The pod's spec.runtimeClassName (``nvidia`` shows the node's GPUs without a request): str | UNKNOWN | None.
    runtime_class: Any = None


@dataclass
class HostAccess:
    """The node namespaces a pod shares (``hostNetwork``, ``hostIPC``, ``hostPID``): bool | UNKNOWN."""

    network: Any = False
    ipc: Any = False
    pid: Any = False
    locations: dict[str, Location] = field(default_factory=dict)  # "network" | "ipc" | "pid" -> line


@dataclass
class ConfigMap:
    """A ConfigMap, or a Secret, of the inputs: its literal data (a Secret's ``data`` decoded from base64, and its
    ``stringData``), each key with its line."""

    name: str
    namespace: str = "default"
    data: dict[str, str] = field(default_factory=dict)
    key_locations: dict[str, Location] = field(default_factory=dict)
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)
    kind: str = "ConfigMap"  # "ConfigMap" | "Secret"
    #: Where the ConfigMap holds NVIDIA device plugin configurations (the GPU operator's ``devicePlugin.config``,
    #: the plugin chart's ``config.map``): for each such key, how it shares ``nvidia.com/gpu`` as (strategy,
    #: replicas), ``("time-slicing", 4)`` or ``("mps", 2)``, or None where that configuration advertises it whole
    #: (no sharing, one replica, or the shares renamed to ``nvidia.com/gpu.shared``). Empty for any other ConfigMap.
    device_plugin: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    #: The files (absolute) whose workloads meet it, where not every workload of its namespace does: a ConfigMap a
    #: kustomization not built generates with kustomize's name suffix hash (``vllm-config-5f7c9h2m4k``) is met only by
    #: the references kustomize rewrites in that build, those of the files it reaches (:mod:`..adapters.generated`).
    #: None: every workload of its namespace.
    seen_by: frozenset[str] | None = None


@dataclass
class HardwareProfile:
    """An Open Data Hub / OpenShift AI HardwareProfile of the inputs (``infrastructure.opendatahub.io``, v1alpha1 or
    v1): what its admission webhook gives a workload that names it in ``opendatahub.io/hardware-profile-name``
    (``adapters.k8s.hwprofiles``)."""

    name: str
    namespace: str = "default"
    #: each identifier's ``defaultCount`` (the count the webhook requests), by resource (``nvidia.com/gpu``); UNKNOWN
    #: where it is not a whole number
    counts: dict[str, Any] = field(default_factory=dict)
    count_locations: dict[str, Location] = field(default_factory=dict)  # the line of each defaultCount
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[Toleration] = field(default_factory=list)
    queue: str | None = None  # scheduling.kueue.localQueueName: then the webhook sets no node scheduling
    location: Location = Location()


@dataclass
class LimitRange:
    """A LimitRange of the inputs (core v1): what the LimitRanger admission plugin writes into, and refuses of, every
    Pod created in its namespace (``adapters.k8s.limitranges``). Only the accelerator resources (a name with a domain,
    ``nvidia.com/gpu``) are kept; each value is an int, or UNKNOWN where it is not a whole number known yet."""

    name: str
    namespace: str = "default"
    #: Type Container: the limit a container that writes none gets, by resource, as the API server stores it
    #: (``default``, else ``max``: ``SetDefaults_LimitRangeItem``)
    default: dict[str, Any] = field(default_factory=dict)
    #: Type Container: the most a container's limit may be, by resource
    max: dict[str, Any] = field(default_factory=dict)
    #: Type Pod: the most the pod's containers' limits may sum to, by resource
    pod_max: dict[str, Any] = field(default_factory=dict)
    locations: dict[str, Location] = field(default_factory=dict)  # "default:<res>" | "max:<res>" | "pod:<res>"
    location: Location = Location()


@dataclass
class DeviceClaim:
    """A ResourceClaim or ResourceClaimTemplate of the inputs (dynamic resource allocation): the devices its
    requests ask for, and the DeviceClass they name (the first request's, when they name one class)."""

    kind: str  # "ResourceClaim" | "ResourceClaimTemplate" | "DeviceClass"
    name: str
    namespace: str = "default"
    count: Any = None  # int | UNKNOWN (allocationMode All, a prioritized list, a computed value)
    device_class: str | None = None  # for a DeviceClass: the DRA driver its selector names
    #: Why its devices are not read, where they are not ("" where they are): an API version whose claims name no
    #: devices (resource.k8s.io/v1alpha2: a ResourceClass and its driver's parameters decide them)
    unread: str = ""
    location: Location = Location()
    #: The MIG profile every device request's CEL selector requires (``device.attributes["gpu.nvidia.com"].profile ==
    #: "3g.40gb"``, NVIDIA's DRA driver); None where a request names none, or they name different ones (mig21).
    mig_profile: str | None = None


@dataclass(frozen=True)
class RayPins:
    """:attr:`PodPorts.ray` where a ``ray start`` flag's value is not read (mend25): Ray runs there, every default
    port of Ray's is Ray's (fail closed, as ``True``), and so are ``ports``, the ones its readable flags pin
    (``--port=$(SECRET_VAR) --node-manager-port=6380``: 6380, once dropped with the fail-closed marker). ``unknown``
    names a pin flag whose value is not known yet (a preview's computed output, a template's placeholder): a port a
    Service sends there may be that one, so SW301 cannot decide at it. A Secret's value is no unknown (DESIGN.md)."""

    ports: frozenset[int] = frozenset()
    unknown: str = ""


@dataclass
class PodPorts:
    """The named container ports of one workload's pods (any workload, vLLM or not), for resolving a
    Service's named ``targetPort``."""

    subject: str  # "Deployment serving/ray-head"
    namespace: str
    labels: Any  # dict[str, str] | UNKNOWN
    named: dict[str, Any] = field(default_factory=dict)  # as Container.port_names ("*": a name not known)
    #: Where the workload is: its file decides its deployable unit (``Inventory.units``), so that a Service's named
    #: ``targetPort`` is resolved on the pods of its own unit only, as its selector is (readers17).
    location: Location = Location()
    #: Whether the pods run Ray (SW301: a port that is only Ray's default number is Ray's where they do): True for a
    #: Ray custom resource's pods and for a container whose image or command says Ray (``rayproject/ray``,
    #: ``ray start``, ``serve run``, a ray executor), UNKNOWN where an image, command or argument is not known yet; the
    #: Ray ports they listen on (a frozenset) where each is a ``ray start`` whose flags are known (mend11: a worker's
    #: dashboard agent port only; a head's GCS, dashboard, client and agent ports at the numbers its flags choose);
    #: a :class:`RayPins` where a flag's value is not read (every default port Ray's, and the ports its readable flags
    #: pin, mend25).
    ray: Any = False
    #: Whether the pods run torch.distributed, NCCL or vLLM's own runtime (SW301: a port that is only the default number
    #: of torch.distributed's store, vLLM's multi-node or data-parallel master or RPC, or vLLM's KV-transfer ports is
    #: theirs where the pods do): True for a container whose env (``MASTER_PORT``, ``NCCL_*``, ``VLLM_DP_*``), command
    #: (``torchrun``, ``--master-port``, ``--data-parallel-rpc-port``, ``vllm serve``) or image (``vllm/vllm-openai``)
    #: says so; the ports it is sure of (a frozenset) where only those are: NCCL_COMM_ID's port, a PyTorchJob's
    #: MASTER_PORT, a multi-node LeaderWorkerSet's 29500 and 29501 (mend9; other NCCL_* settings open none);
    #: UNKNOWN where an image, command, argument, env entry or envFrom source (a Secret, a ConfigMap not in the input)
    #: is not known.
    dist: Any = False
    #: The images of its containers that run their image's own entrypoint (no ``command``: the Container API runs the
    #: image's ENTRYPOINT then), none of them one well known to run another program (redis, nginx, bitnami/…): what
    #: they run is decided by an entrypoint the input does not show (SW301: advisory on a Ray default port, mend7).
    entrypoints: list[str] = field(default_factory=list)
    #: The range Ray's worker processes take their ports from where the pods' ``ray start`` flags are known (``ray``
    #: a frozenset) and pin none of ``--min-worker-port``, ``--max-worker-port``, ``--worker-port-list``: ray start's
    #: defaults, 10002 to 19999 (mend24); None otherwise (a pinned range is in ``ray`` itself).
    ray_workers: tuple[int, int] | None = None
    #: The container port numbers (known whole numbers) each container and native sidecar of the pods declares, by
    #: container name (review49: an llm-d routing sidecar's 8000 in front of vLLM's 8200): a port a container that
    #: is not a vLLM server declares is that program's, and a vLLM KV connector's rank, which binds its port and fails
    #: on one in use, is not there while the pod serves.
    declared: dict[str, frozenset[int]] = field(default_factory=dict)


def world_size(tp: int, pp: int = 1, pcp: int = 1) -> int:
    """The GPUs one vLLM engine (one data-parallel rank) starts workers on, the one place shardwise counts them:
    ``ParallelConfig.world_size``, PP × TP × PCP (``vllm/config/parallel.py`` ``__post_init__`` of the 0.12.0, 0.25.1,
    0.26.0 and 0.28.0 wheels: ``--prefill-context-parallel-size`` "expands the process world size";
    ``--decode-context-parallel-size`` adds none, "DCP does not expand the process world size. Without PCP, DCP reuses
    TP ranks"). Data-parallel ranks are engines of their own: a group runs ``world_size × DP`` GPUs."""
    return pp * tp * pcp


def layout_text(tp: int, pp: int = 1, pcp: int = 1, dp: int = 1, ep: bool = False) -> str:
    """An engine's layout as every rule and ``plan`` writes it, the one place it is written: ``TP4×PP1``, with
    ``×PCP2`` where prefill context-parallel ranks add GPUs to the engine (:func:`world_size`), ``×DP8`` where
    data-parallel engines do, and `` EP`` with expert parallelism: ``TP1×PP1×PCP2`` is two GPUs, not one."""
    out = f"TP{tp}×PP{pp}" + (f"×PCP{pcp}" if pcp > 1 else "") + (f"×DP{dp}" if dp > 1 else "")
    return out + (" EP" if ep else "")


def engine_world_size(engine: EngineArgs) -> int | None:
    """:func:`world_size` of an engine's flags as written (``--prefill-context-parallel-size`` 1 where not given), None
    where one of them is not a known whole number (not known yet, or a reference kept as written)."""
    pcp = engine.extra.get("prefill_context_parallel_size", 1)
    sizes = [_whole(engine.tensor_parallel_size), _whole(engine.pipeline_parallel_size), _whole(pcp)]
    if any(v is None for v in sizes):
        return None
    tp, pp, cp = (int(v) for v in sizes if v is not None)
    return world_size(tp, pp, cp)


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


@dataclass
class EngineArgs:
    """The vLLM engine settings of one workload (``vllm serve`` flags / ``LLM(...)`` arguments). Any of them may be
    :data:`UNKNOWN` (a flag carrier such as ``$(EXTRA_ARGS)``, a ``--config`` file not read, a computed value)."""

    model: str | Unknown | None = None
    tensor_parallel_size: Any = 1
    pipeline_parallel_size: Any = 1
    data_parallel_size: Any = 1
    enable_expert_parallel: bool | Unknown = False
    gpu_memory_utilization: Any = None  # None: the release's default (0.9; 0.92 from vLLM 0.20; 1.0 extensible, 0.34)
    max_model_len: Any = None  # None: the model's context limit; "auto": vLLM fits it to the KV cache (0.14+)
    max_num_seqs: Any = None  # None: vLLM's default (256)
    max_num_batched_tokens: Any = None
    dtype: str | Unknown = "auto"
    quantization: str | Unknown | None = None
    kv_cache_dtype: str | Unknown = "auto"
    block_size: Any = None  # None: vLLM's default (16; MLA models by attention backend)
    enforce_eager: bool | Unknown = False
    enable_chunked_prefill: Any = None  # None: the release's default
    kv_cache_memory_bytes: Any = None  # the KV cache per GPU, without gpu_memory_utilization's budget (0.10.2+)
    #: --cpu-offload-gb: the GiB of each GPU's decoder-layer parameters vLLM keeps in CPU memory (None: not given)
    cpu_offload_gb: Any = None
    distributed_executor_backend: str | Unknown | None = None
    nnodes: Any = None
    port: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    locations: dict[str, Location] = field(default_factory=dict)  # flag -> where it was set


@dataclass
class ServingGroup:
    """One vLLM workload: N replicas (or LWS groups), each TP × PP GPUs."""

    name: str
    kind: str  # Deployment | StatefulSet | Pod | Job | LeaderWorkerSet | VllmService | VllmMultiNode | plan
    location: Location = Location()
    namespace: str = "default"
    engine: EngineArgs = field(default_factory=EngineArgs)
    model: ModelShape | None = None
    model_error: str | None = None  # "file:line: unknown model …": an input error
    model_unknown: str | None = None  # why the model cannot be known from the input (SW004; rules silent)
    #: The catalog entry a model path was matched to by its name (``/models/llama-3.1-8b-instruct``):
    #: the rules size it as that entry and SW004 says which one was assumed.
    model_assumed: str | None = None
    #: The config.json of an encoder-only embedder given by path or annotation (``catalog.unsized.ENCODER_ONLY``),
    #: read whole: ``model`` stays None (no KV cache, no decoder shape), and SW101 / SW004 judge its weights alone
    #: (``capacity.group.encoder_fit``; round catalog21).
    encoder_config: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    #: The files beside that config.json that set its length (``sentence_bert_config.json``,
    #: ``tokenizer_config.json``): each read JSON object, None where the file is absent, or why it was not read.
    encoder_siblings: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: How many times a rule asked for the model's shape (``capacity.group.require_model``): the engine
    #: tells from it which findings rest on an assumed model.
    model_reads: int = field(default=0, compare=False, repr=False)
    #: How many times a rule asked for the GPU the group lands on (``capacity.group.gpu_of``, ``gpu_memory_gib``,
    #: ``sizing``): the engine tells from it which findings rest on a GPU read from a name (``NodePool.gpu_assumed``).
    device_reads: int = field(default=0, compare=False, repr=False)
    replicas: Any = 1
    #: Why ``replicas`` is not known, naming what the object writes (a ``replicas`` beside the pod's containers in a
    #: custom resource whose schema is not read); None: the general reason.
    replicas_why: str | None = None
    pods_per_group: Any = 1  # LeaderWorkerSet size; 1 for single-node replicas
    gpus_per_pod: Any = None
    #: The GPUs of ``accelerator_resource`` one pod requests as the scheduler counts them, where that is not the
    #: vLLM server's own ``gpus_per_pod``: native sidecars (init containers with ``restartPolicy: Always``) and the
    #: pod's other containers request them too, or an init container more while it runs (KEP-753's formula:
    #: ``adapters.k8s.pods.scheduled_request``); UNKNOWN where one of those counts is not known yet; None: the
    #: server's. What fits a node reads :attr:`scheduled_gpus`; what vLLM sees reads ``gpus_per_pod``.
    pod_gpus: Any = None
    #: What in the pod besides the server requests them (``native sidecar `x` (1)``), for a finding to name.
    pod_gpus_from: tuple[str, ...] = ()
    node_selector: Any = field(default_factory=dict)  # dict[str, str] | UNKNOWN
    affinity: list[list[MatchExpression]] = field(default_factory=list)  # OR of AND-terms
    tolerations: list[Toleration] = field(default_factory=list)
    pool: NodePool | None = None
    #: The other kinds of node the same NodePool may launch for this pod (``NodePool.variant_of``), besides
    #: ``pool``, the one it is billed on (the cheapest that holds the pod, where Karpenter picks by price): a
    #: finding that reads the GPU blocks only when it holds on every one (engine.rule.GroupRule).
    pool_options: list[NodePool] = field(default_factory=list)
    #: Why the group may land on ``pool`` or any of ``pool_options`` where that is not one NodePool's kinds (or one
    #: selector's sizes), for a finding to name: the terms of its required node affinity (Kubernetes ORs them) or
    #: the Nodes of the inputs its selector admits ("nodes"), or the pools and Nodes of the inputs of other GPUs that
    #: all admit it ("pools", mend37); "" otherwise.
    pool_options_from: str = ""
    #: Why no node of the pool the group's selector pins it to (by the pool's name label) can ever hold its pods,
    #: where that pool is in the inputs: its nodes advertise another maker's accelerator, or none (the scheduler's
    #: NodeResourcesFit filter never passes them); None otherwise. Set by ``resolve_pools``.
    unplaceable: str | None = None
    #: A kustomization that is not built and patches this object's containers' args, command, env or device count, or
    #: its pods' nodeSelector or affinity (its path): what
    #: was read is the base's, not what the overlay applies (``adapters.overlays``). None otherwise.
    patched_by: str | None = None
    #: The group as it would be on each of ``pool_options`` (made once, by the engine, for the rules to check).
    pool_option_groups: list[ServingGroup] = field(default_factory=list, compare=False, repr=False)
    gpu_override: GpuInfo | None = None  # plan: the GPU given on the command line
    gpu_memory_gib_override: float | None = None
    p95_context: int | None = None
    target_concurrency: int | None = None  # declared concurrent sequences per replica (annotation)
    output_tokens_per_second: float | None = None  # declared throughput of one replica (annotation)
    tpot_target_ms: float | None = None  # declared per-output-token latency target (annotation)
    vllm_version: str | None = None  # plan --vllm-version; else the image tag says it
    #: The engine's environment where no container carries one: ``plan --env`` (the container's env otherwise).
    engine_env: dict[str, str] = field(default_factory=dict)
    #: ``plan --install pip``: vLLM installed from PyPI where no container's command says how it is installed.
    pip_install: bool = False
    annotations: dict[str, str] = field(default_factory=dict)
    pod_labels: dict[str, str] | Unknown = field(default_factory=dict)  # UNKNOWN: computed labels at preview
    containers: list[Container] = field(default_factory=list)
    vllm_container: str | None = None
    volumes: list[Volume] = field(default_factory=list)
    restart_policy: str | Unknown | None = None  # LWS spec.leaderWorkerTemplate.restartPolicy
    exclusive_topology: str | None = None
    production: Any = None  # bool | None: the environment is production
    #: Declared by a stack config or a component (``adapters.stack``): its load, latency target and release are the
    #: workload's fields (``target_concurrency``, ``tpot_target_ms``, ``vllm_version``), not annotations.
    declared: bool = False
    placement_known: bool = True  # False for `plan` (no node pool to check)
    suppressions: list[Suppression] = field(default_factory=list)
    host: HostAccess = field(default_factory=HostAccess)
    accelerator_resource: str | None = None  # the resource gpus_per_pod counts ("nvidia.com/gpu", "google.com/tpu")
    #: A resource field puts the group on vLLM's CPU backend (KubeAI ``resourceProfile: cpu:N``); the image,
    #: environment and flags can say so too (:func:`shardwise.rules.checks._layout.runs_on_cpu`).
    cpu_backend: bool = False
    #: Read by the generic reader: an operator shardwise does not know builds the pod from this object and
    #: may add resources, /dev/shm or probes (the rules about those are advisory on it: engine.OPERATOR_ADDS).
    unknown_operator: bool = False
    #: Why the object read is a patch merged onto a base elsewhere rather than the whole object Kubernetes receives
    #: (a kustomize overlay's strategic-merge patch: ``adapters.k8s.workloads.patch_fragment``); the base may hold
    #: the resources, /dev/shm or probes the patch leaves out (the rules about those are advisory on it:
    #: engine.OPERATOR_ADDS). None: read as a whole object.
    fragment: str | None = None
    #: What makes the findings that ``fragment`` holds back blocking (None: a kustomize overlay's, `kustomize build`).
    fragment_fix: str | None = None
    #: The base ``fragment`` names may also add engine arguments, which win over the ones read, and give the image
    #: (an llm-d ModelService whose base ConfigMap is not known: its args come after the role's): every blocking
    #: finding but a security rule's (SW3xx, which fail closed) is held back, not only engine.OPERATOR_ADDS.
    fragment_args: bool = False
    #: The Open Data Hub HardwareProfile of the inputs applied to it (``namespace/name``,
    #: ``adapters.k8s.hwprofiles``): its annotation then asks for nothing more than the profile gave.
    hardware_profile: str | None = None
    #: The LimitRange of the inputs whose default gave the pod's GPUs at admission (``namespace/name``,
    #: ``adapters.k8s.limitranges``): its containers write none.
    limit_range: str | None = None
    #: How the GPUs one pod (one replica) holds are written where it is not the vLLM container's resources.limits,
    #: with ``{units}`` for the count (Ray Serve LLM: its LLMConfig's ``placement_group_config``); None: the limits
    gpus_written: str | None = None
    #: Why the GPUs one pod (one replica) holds are not known where the adapter knows (``(what, why)`` of an
    #: :class:`~.unknown.Undecidable`; ``gpus_per_pod`` is then UNKNOWN): Ray Serve LLM's plain app with vLLM
    #: data parallelism, whose DP ranks vLLM starts outside the replica's bundles. None: not known is plain unknown.
    gpus_undecided: tuple[str, str] | None = None
    #: A serving runtime (KServe, OME ``ServingRuntime``/``ClusterServingRuntime``) read alone: the services that
    #: run on it set the model, resources, placement and namespace, so only the checks of its own container
    #: run on it (engine.TEMPLATE_CHECKS: image pin, /dev/shm, probes, secrets, host access, crashes).
    template: bool = False
    #: The controller that runs the group also publishes it outside the cluster: a Knative Service without the
    #: ``networking.knative.dev/visibility: cluster-local`` label gets a route on the cluster's ingress gateway,
    #: which Knative publishes on an external address by default. None: nothing publishes it; a str: how, as SW306
    #: says it; UNKNOWN: the label is not known yet (a preview's computed labels).
    published: Any = None
    #: Why the publication in ``published`` is advisory only, "" when it blocks: what decides whether the address
    #: is reachable from outside is cluster configuration the inputs do not show (KServe's Standard mode: the
    #: ingress config of its inferenceservice-config, which a distribution such as OpenShift AI sets off).
    published_advisory: str = ""
    #: The value not known yet that decides whether ``published`` faces the internet (a preview's computed
    #: gatewayClassName of the Gateway an LLMInferenceService's route attaches to: adapters.k8s.gateway)
    published_undecided: str | None = None
    #: Where each field a finding may point at was written: "resources", "nodeSelector", "affinity",
    #: "tolerations", "replicas", "size", "restartPolicy", "volumes", "volumeMounts", "env", "image",
    #: "container" (the vLLM container), "probe:startup|liveness|readiness", "annotation:<key>".
    #: Engine flags are in ``engine.locations``.
    locations: dict[str, Location] = field(default_factory=dict)

    def at(self, *keys: str) -> Location:
        """The location of the first of ``keys`` that was written (engine flags included), else the object's."""
        for key in keys:
            loc = self.locations.get(key) or self.engine.locations.get(key)
            if loc is not None and (loc.line is not None or loc.urn is not None):
                return loc
        return self.location

    @property
    def scheduled_gpus(self) -> Any:
        """The GPUs one pod requests as the scheduler counts them (:attr:`pod_gpus`, else ``gpus_per_pod``)."""
        return self.gpus_per_pod if self.pod_gpus is None else self.pod_gpus

    @property
    def prefill_context_parallel(self) -> Any:
        """``--prefill-context-parallel-size`` as written, 1 where it is not given: vLLM's ``world_size`` is
        TP × PP × PCP (``config/parallel.py``, 0.25.1 - 0.28.0; ``capacity.group.Layout``)."""
        value = self.engine.extra.get("prefill_context_parallel_size")
        return 1 if value is None else value

    @property
    def gpus_per_replica(self) -> int:
        return world_size(int(self.engine.tensor_parallel_size), int(self.engine.pipeline_parallel_size),
                          int(self.prefill_context_parallel))

    @property
    def main_container(self) -> Container | None:
        for c in self.containers:
            if c.name == self.vllm_container:
                return c
        return self.containers[0] if self.containers else None


@dataclass
class SgRule:
    """One ingress or egress rule of an AWS security group."""

    direction: Any  # "ingress" | "egress" | UNKNOWN
    protocol: str  # "-1" (all), "tcp", "udp", "icmp"
    from_port: Any = 0
    to_port: Any = 0
    cidrs: list[str] = field(default_factory=list)
    ipv6_cidrs: list[str] = field(default_factory=list)
    prefix_lists: Any = field(default_factory=list)  # managed prefix list ids: sources of unknown extent
    source_security_group: str | None = None
    self_ref: bool = False
    location: Location = Location()

    def covers(self, port: int) -> bool:
        if self.protocol in ("-1", "all"):
            return True
        lo, hi = self.from_port, self.to_port
        if lo is UNKNOWN or hi is UNKNOWN:
            return True
        return int(lo) <= port <= int(hi)


@dataclass
class SecurityGroup:
    """An AWS security group and its rules."""

    name: str
    id: str | None = None
    location: Location = Location()
    rules: list[SgRule] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)


@dataclass
class Subnet:
    """An AWS subnet."""

    name: str
    id: str | None = None
    map_public_ip_on_launch: Any = False
    availability_zone: str | None = None
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)


@dataclass
class LaunchTemplate:
    """An EC2 launch template or a Karpenter EC2NodeClass: the node settings the rules check."""

    name: str
    id: str | None = None
    kind: str = "LaunchTemplate"  # LaunchTemplate (EC2) | EC2NodeClass (Karpenter)
    http_tokens: Any = None  # "required" | "optional" | None (default: optional)
    http_put_response_hop_limit: Any = None
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)


@dataclass
class Service:
    """A Kubernetes Service."""

    name: str
    namespace: str = "default"
    type: str | Unknown = "ClusterIP"  # UNKNOWN: computed at preview, as the fields below
    ports: list[Any] = field(default_factory=list)  # int | UNKNOWN
    target_ports: list[Any] = field(default_factory=list)
    selector: dict[str, str] | Unknown = field(default_factory=dict)
    annotations: dict[str, Any] = field(default_factory=dict)  # values str | UNKNOWN
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)
    port_names: dict[str, Any] = field(default_factory=dict)  # named service port -> its targetPort
    type_location: Location | None = field(default=None, compare=False)  # where spec.type is written
    #: spec.loadBalancerClass: the controller that provisions a LoadBalancer (``service.k8s.aws/nlb``: the AWS Load
    #: Balancer Controller); None when not set, UNKNOWN when not known yet.
    load_balancer_class: Any = None
    #: What it is: a Service, or a Gateway API Inference Extension ``InferencePool`` an HTTPRoute's backendRef names,
    #: read as what it selects (its pods' labels, the target port), for the routes that send to it (never a Service
    #: of the rules that judge Services).
    kind: str = "Service"


@dataclass
class RemoteRef:
    """A Gateway API route's backendRef to an object of another namespace, or of a namespace not known yet
    (``backendRefs[].namespace``; a ref that names none, or the route's own, is in ``Ingress.services`` or
    ``Ingress.pool_refs``), or one whose kind or group is not known yet (``unseen``). The Gateway sends there only
    where a ReferenceGrant of that namespace permits it
    (gateway-api apis/v1 ``BackendObjectReference``: "a ReferenceGrant object is required in the referent namespace";
    ``HTTPBackendRef``: otherwise ResolvedRefs is False, reason RefNotPermitted, and the backend is not configured)."""

    kind: str  # "Service" | "InferencePool"
    namespace: str  # UNKNOWN_NAMESPACE where the ref's namespace is not known yet (a placeholder, a computed value)
    name: str
    #: whether the route sends there (adapters.k8s.network.link_backends): True where a ReferenceGrant of the inputs
    #: permits it, False where the inputs hold ReferenceGrants of that namespace and none permits it, otherwise why
    #: it is not known (no ReferenceGrant of that namespace in the inputs: one applied apart from them may permit it;
    #: a value not known yet)
    permitted: bool | str = False
    #: True where ``permitted`` is not known only for want of a ReferenceGrant the inputs do not hold (never a block:
    #: what is outside the inputs is no unknown value), False where a value the inputs write is not known yet
    outside: bool = True
    #: the ref's API group: "" (the core group) for a Service, an InferencePool's (inference.networking.k8s.io, or
    #: v1alpha2's inference.networking.x-k8s.io), which a ReferenceGrant's ``to`` entry must name
    group: str = ""
    #: why the route may not send there even where a ReferenceGrant permits it ("" when nothing else decides): a
    #: Service ref of ``group: core``, which only some implementations resolve (adapters.k8s.network.add_http_route)
    note: str = ""
    #: True for a ref whose kind or group is not known yet (a template placeholder, a preview's computed value): it
    #: may name this object, of the route's namespace or the one it writes, and ``permitted`` says which value is not
    #: known (mend29: read as a Service, it was one surely)
    unseen: bool = False


@dataclass
class Ingress:
    """A Kubernetes Ingress, a Gateway API HTTPRoute or an OpenShift Route."""

    name: str
    namespace: str = "default"
    kind: str = "Ingress"  # Ingress | HTTPRoute | Route
    annotations: dict[str, str] = field(default_factory=dict)
    services: list[str] = field(default_factory=list)
    ports: list[Any] = field(default_factory=list)
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)
    #: the ports (``ports``' entries) each backend names for the Service of its own namespace it names, by that
    #: Service's name (review49: ``ports`` pools them, so a port routed to one Service was taken as routed to every
    #: one); a Service no backend writes a port for has no entry
    service_ports: dict[str, list[Any]] = field(default_factory=dict)
    #: an Ingress's class: ``spec.ingressClassName``, else the ``kubernetes.io/ingress.class`` annotation (None: the
    #: cluster's default class); an HTTPRoute's parent Gateways, ``namespace/name``
    class_name: Any = None
    parents: list[str] = field(default_factory=list)
    #: what the Ingress's IngressClass of the inputs says (adapters.k8s.network.link_ingress_classes): its
    #: controller, and the ``spec.scheme`` of the IngressClassParams it names with the params' name (the AWS Load
    #: Balancer Controller's and EKS Auto Mode's; it overrides the Ingress's scheme annotation)
    class_controller: str | None = None
    class_scheme: tuple[str, str] | None = None
    #: an HTTPRoute's parentRefs as written (namespace defaulted to the route's), its ``spec.hostnames`` and the
    #: ExtensionRef filters of its rules (kind, name): what the Gateways of the inputs admit (adapters.k8s.gateway)
    parent_refs: list[dict[str, Any]] = field(default_factory=list)
    hostnames: list[Any] = field(default_factory=list)
    extension_refs: list[tuple[str, str]] = field(default_factory=list)
    #: what the Gateways of the inputs it attaches to say (adapters.k8s.gateway.link_gateways): (how it is published,
    #: why that is only advisory, "" when sure to face the internet), None when no parent Gateway is in the inputs;
    #: ``gateway_auth`` a policy of the inputs that authenticates its clients; ``gateway_undecided`` the value not
    #: known yet that decides it (a preview's computed gatewayClassName)
    gateway: tuple[str, str] | None = None
    gateway_auth: str | None = None
    gateway_undecided: str | None = None
    #: an HTTPRoute's backendRefs that name a Gateway API Inference Extension InferencePool of its own namespace (their
    #: names; ``services`` holds its Service refs of that namespace), and the InferencePools of the inputs its refs
    #: name, of any namespace (``remote_refs`` too), joined once every input is read
    #: (adapters.k8s.network.link_backends)
    pool_refs: list[str] = field(default_factory=list)
    #: the API group each of ``pool_refs`` names (v1's inference.networking.k8s.io or v1alpha2's
    #: inference.networking.x-k8s.io): a ref joins only the pool of that group (mend23)
    pool_groups: list[str] = field(default_factory=list)
    pools: list[Service] = field(default_factory=list)
    #: an HTTPRoute's backendRefs to other namespaces (Services and InferencePools), and whether it sends there
    remote_refs: list[RemoteRef] = field(default_factory=list)
    #: an HTTPRoute that names no namespace (read as ``default``) or a Helm chart's route given the release's
    #: (RELEASE_NAMESPACE): it lands in the namespace it is applied into (``kubectl apply -n``, ``helm install -n``),
    #: the same as the other objects of its input that name none, which the inputs do not show against a namespace
    #: a ReferenceGrant names (mend23)
    namespace_applied: bool = False


#: production-stack router's ``--routing-logic`` choices (argparse ``choices``), the union over every tag read: at
#: vllm-stack-0.0.3 to 0.1.2 ``roundrobin`` and ``session`` (``src/vllm_router/router.py``, then
#: ``parsers/parser.py``), from 0.1.3 ``kvaware``, ``prefixaware`` and ``disaggregated_prefill``, from 0.1.11
#: ``disaggregated_prefill_orchestrated`` (the same six at 0.1.12 and at main, a6c01db0). Only ``roundrobin`` ignores
#: the engines' load; ``session``, ``kvaware`` and ``prefixaware`` send a request to the engine that holds its
#: session or prefix and otherwise to the one with the lowest request rate (``_qps_routing``), the disaggregated ones
#: by prefill/decode role. The router's image tags (``lmcache/lmstack-router``) are builds of main
#: (setuptools_scm versions, and ``latest``), not the chart's releases: no tag names the set of one release.
ROUTER_LOGICS = ("roundrobin", "session", "kvaware", "prefixaware", "disaggregated_prefill",
                 "disaggregated_prefill_orchestrated")


@dataclass
class Router:
    """A pod running vLLM production-stack's router (``vllm-router``, the ``lmcache/lmstack-router`` image; the
    ``vllm-stack`` chart's ``<release>-deployment-router``), read from its arguments
    (``src/vllm_router/parsers/parser.py``): it spreads requests by ``--routing-logic`` over the engines it discovers,
    with ``--service-discovery k8s`` the pods of ``--k8s-namespace`` (default ``default``) whose labels match
    ``--k8s-label-selector`` (empty: every pod there), with ``static`` the URLs of ``--static-backends``."""

    name: str
    namespace: str = "default"
    kind: str = "Deployment"  # the object the router's pod template is in
    logic: Any = None  # --routing-logic as written: str | UNKNOWN (a value not known yet)
    discovery: Any = None  # --service-discovery: "k8s" | "static" | another | UNKNOWN
    watch_namespace: Any = "default"  # --k8s-namespace: str | UNKNOWN
    #: --k8s-label-selector as equality terms (``a=b,c=d``); UNKNOWN when a value is not known or a term is not one
    selector: Any = field(default_factory=dict)
    backends: Any = field(default_factory=list)  # --static-backends: list[str] | UNKNOWN
    #: --static-models, the model of each static backend in order: list[str] | UNKNOWN | None (not given)
    static_models: Any = None
    #: --k8s-service-discovery-type: "pod-ip" (the router picks a pod) | "service-name" (it picks a Service, whose
    #: pods kube-proxy picks among) | UNKNOWN
    discovery_type: Any = "pod-ip"
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)
    #: What was written for each option whose value is not known (``--routing-logic`` -> ``$(ROUTING_LOGIC)``), so a
    #: "cannot decide" names it.
    written: dict[str, str] = field(default_factory=dict)


@dataclass
class NetworkPolicy:
    """A policy that can isolate pods for ingress: a Kubernetes NetworkPolicy, or a CNI's own kind
    (Cilium, Calico) or an AdminNetworkPolicy / BaselineAdminNetworkPolicy.

    For the Kubernetes kind the rules read the selector, types and rule counts. For the others the
    adapter decides ``denies_all_ingress`` itself (whether the policy leaves every pod it selects in a
    default-deny state for ingress) and, for cluster-scoped kinds, ``namespaces`` (the namespaces whose
    every pod it selects; ``("*",)`` for all of them).
    """

    name: str
    namespace: str = "default"
    pod_selector: dict[str, str] = field(default_factory=dict)  # empty: every pod
    policy_types: list[str] = field(default_factory=list)
    ingress_rules: int = 0
    egress_rules: int = 0
    location: Location = Location()
    kind: str = "NetworkPolicy"
    api_group: str = "networking.k8s.io"
    denies_all_ingress: bool | None = None  # None: judge from selector, types and rules (Kubernetes kind)
    namespaces: tuple[str, ...] | None = None  # cluster-scoped kinds: the namespaces covered, "*" for all
    open_ingress: bool = False  # an ingress rule admits every source (no `from`, all namespaces, 0.0.0.0/0)
    #: what of the policy is not known yet (a preview's computed ``spec``), e.g. "spec.policyTypes"; the policy is
    #: then read as one that isolates no pod, and SW305 says it cannot decide rather than what the policy selects
    unknown_part: str | None = None

    def isolates(self, namespace: str, labels: dict[str, str]) -> bool:
        """Whether the policy puts pods with these labels in ``namespace`` into default deny for ingress
        and admits only the sources its rules name (not everyone)."""
        if self.namespaces is not None or self.namespace != namespace or "Ingress" not in self.policy_types:
            return False
        return not self.open_ingress and all(labels.get(k) == v for k, v in self.pod_selector.items())

    @property
    def default_deny_ingress(self) -> bool:
        if self.denies_all_ingress is not None:
            return self.denies_all_ingress
        return not self.pod_selector and "Ingress" in self.policy_types and self.ingress_rules == 0

    def covers(self, namespace: str) -> bool:
        """Whether the policy applies to (every pod of) ``namespace``."""
        if self.namespaces is not None:
            return "*" in self.namespaces or namespace in self.namespaces
        return self.namespace == namespace


@dataclass
class Autoscaler:
    """A HorizontalPodAutoscaler or KEDA ScaledObject."""

    name: str
    namespace: str = "default"
    kind: str = "HorizontalPodAutoscaler"  # | ScaledObject
    target_kind: str | None = None
    target_name: str | Unknown | None = None  # UNKNOWN: not known at preview
    metrics: list[str | Unknown] = field(default_factory=list)  # cpu, memory, gpu-utilization, a metric name; UNKNOWN
    min_replicas: Any = None
    max_replicas: Any = None
    scale_down_window_seconds: Any = None
    location: Location = Location()
    suppressions: list[Suppression] = field(default_factory=list)


#: :attr:`LaunchIssue.other_engine` of a pod that serves a model on accelerators with a command and an image that name
#: no server shardwise knows (``adapters.k8s.engines.unrecognised_server``): an engine not known, which may be vLLM.
UNRECOGNISED_ENGINE = "an engine not recognised"

@dataclass
class LaunchIssue:
    """A workload that looks like vLLM (its image or flags say so) but whose command shardwise cannot
    read, or one that reads as a command vLLM would refuse (``crash`` says so): no rule can judge it."""

    subject: str  # "Deployment llm/qwen"
    container: str
    reason: str  # what was seen, and what would make it readable
    location: Location = Location()
    crash: bool = False  # the command as written makes vLLM exit at start-up
    suppressions: list[Suppression] = field(default_factory=list)
    #: No workload was read from the object at all, though it mentions vLLM (SW005): ``reason`` says why
    mentioned: bool = False
    #: With ``mentioned``: the object names no vLLM itself, but deploys a source that was not read (an Argo CD
    #: Application or a Flux object whose repository or chart was not fetched) and may hold a vLLM server (corpus28)
    source_unread: bool = False
    #: What of the workload is not known yet at preview ("its pod spec (spec.template.spec)"), "" when all of
    #: it is: the security rules that read that part cannot decide and fail closed (SW305, SW306, SW310).
    unknown_part: str = ""
    #: The unknown part holds the pod's own settings (a pod template or spec, the container list, a whole
    #: container), not only a container's command, image or name: what SW309 reads is not known either.
    pod_unknown: bool = False
    #: The workload declares a load SW103 would weigh (annotation shardwise.dev/target-concurrency, which the
    #: components write from the stack's ``target_concurrency``), or may: its annotations are not known at preview.
    declares_load: bool = False
    #: The workload's kind runs one model over several pods (a LeaderWorkerSet): SW305 is mandatory for it.
    multi_node: bool = False
    namespace: str = ""  # the object's namespace, as the subject gives it
    #: The crash holds at every vLLM release read, but the image names none of them: SW003 reports it as advisory.
    advisory: bool = False
    #: The workload serves a model with another engine ("SGLang"): no vLLM rule judges it, SW005 says so. Where its
    #: command and image name no server shardwise knows, :data:`UNRECOGNISED_ENGINE`: not known to be another
    #: engine, it may run vLLM in a way shardwise does not read.
    other_engine: str = ""
    #: The ``${VAR}`` of a crash on a template's placeholder written in vLLM's args: a run whose inputs write one of
    #: them where only a template tool fills it (:attr:`Inventory.template_vars`) drops the crash (envsubst fills it).
    placeholder_vars: tuple[str, ...] = ()
    #: With ``mentioned``: a kustomization or chart met while searching a folder that was not built (no tool on PATH,
    #: a build error, building switched off) deploys what the record names, so that was not judged as deployed;
    #: ``require_build`` makes the record block (:mod:`..adapters.found`).
    not_built: bool = False
    #: With ``not_built``: the folder (absolute) of the kustomization leaf or chart that was not built.
    not_built_folder: str = ""


@dataclass
class CrossRef:
    """An object of the inputs that names others by name, or is named by one (an OME InferenceService, the
    runtime and the base model it names), kept as read so that its adapter joins them once every input is
    read, whichever files they are in (``adapters.k8s.ome``). Adapter state: no rule reads it."""

    kind: str
    obj: Any  # the object as read (its mappings keep their lines)
    location: Location = Location()
    lines: Any = None  # the text lines of its file, where engine flags are looked up
    groups: list[ServingGroup] = field(default_factory=list)  # what was read from the object alone
    issues: list[LaunchIssue] = field(default_factory=list)
    routers: list[Router] = field(default_factory=list)  # production-stack routers read from the object alone
    done: bool = False  # joined: what it names was found
    #: What it names that its own input does not hold (the ConfigMaps a pod looked up: ``adapters.k8s.configjoin``).
    names: tuple[str, ...] = ()


#: The unit (``Inventory.units``) of a file that is of every unit: one named on its own on the command line.
EVERY_UNIT = "*"
#: What separates a unit from the Argo CD destination that refines it (``git:ROOT|server=URL``).
CLUSTER_MARK = "|"


@dataclass
class UnknownWord:
    """A word of a vLLM container's command or args not known at ``pulumi preview`` that stands where a flag may (never
    the value of a flag vLLM defines), or its whole args: vLLM may refuse what it turns out to be (SW003 cannot
    decide)."""

    group: ServingGroup
    path: str  # ``spec.template.spec.containers[0].args[3]`` (or ``.command[3]``), ``…containers[0].args`` for the list


@dataclass
class Inventory:
    """Everything the rules look at, from one or many inputs."""

    groups: list[ServingGroup] = field(default_factory=list)
    pools: list[NodePool] = field(default_factory=list)
    security_groups: list[SecurityGroup] = field(default_factory=list)
    subnets: list[Subnet] = field(default_factory=list)
    launch_templates: list[LaunchTemplate] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    ingresses: list[Ingress] = field(default_factory=list)
    routers: list[Router] = field(default_factory=list)  # vLLM production-stack routers (vllm-router)
    network_policies: list[NetworkPolicy] = field(default_factory=list)
    autoscalers: list[Autoscaler] = field(default_factory=list)
    #: What runs another workload's pods whatever its own ``replicas`` says, as (namespace, kind, name, replicas): an
    #: Argo Rollout's ``spec.workloadRef`` (the Rollout's replicas), a KEDA HTTP add-on HTTPScaledObject (None: on
    #: demand, from zero).
    workload_refs: list[tuple[str, str, str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # unknown kinds, by kind
    sources: list[str] = field(default_factory=list)
    launch_issues: list[LaunchIssue] = field(default_factory=list)  # vLLM launches not understood or crashing
    unknown_words: list[UnknownWord] = field(default_factory=list)  # args not known at preview (SW003)
    # What a lint run could not read, and what it did not read (see adapters.load_inputs):
    errors: list[InputError] = field(default_factory=list)  # input errors: file, line, message
    skipped_files: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not an input)
    excluded: list[str] = field(default_factory=list)  # paths excluded by pattern ("dir/" for a directory)
    config_maps: list[ConfigMap] = field(default_factory=list)
    pod_ports: list[PodPorts] = field(default_factory=list)
    device_claims: list[DeviceClaim] = field(default_factory=list)
    hardware_profiles: list[HardwareProfile] = field(default_factory=list)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    cross_refs: list[CrossRef] = field(default_factory=list, compare=False, repr=False)
    #: The ``${VAR}`` the inputs write where neither Kubernetes nor a shell expands them (a PersistentVolume's
    #: ``bucketName: ${S3_BUCKET_NAME}``): the variables of a template tool that fills the repository's files.
    template_vars: list[str] = field(default_factory=list, compare=False, repr=False)
    #: The files a deploy script of the inputs pipes through envsubst (``envsubst < vllm.yaml | kubectl apply -f -``),
    #: as the script names them, and joined to its folder (``adapters.shell.envsubst_inputs``): their ``${VAR}``
    #: are the template's placeholders.
    envsubst_files: list[str] = field(default_factory=list, compare=False, repr=False)
    #: The files read as one Pulumi stack each (a ``pulumi preview --json`` or ``stack export`` file, a stack config).
    stacks: list[str] = field(default_factory=list, compare=False, repr=False)
    #: The deployable unit of each file that holds a pool or a workload (``adapters.units``), set for a lint run's
    #: inputs: a pool places only the workloads of its own unit. Empty: all inputs are one unit.
    units: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: The cluster an Argo CD Application of the inputs deploys to (``spec.destination``: ``server=URL`` or
    #: ``name=NAME``), by the suffix its rendered objects' files carry (`` (via Application NS/NAME)``,
    #: ``adapters.gitops``): ``adapters.units`` makes the objects of two destinations two deployable units.
    clusters: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: What decides the unknown values of a workload (by subject) whose ConfigMap the inputs hold twice with
    #: different data (``adapters.k8s.configjoin``): the "cannot decide" findings end with it.
    config_deciders: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: The URNs of a preview's resources whose secret values it masks as ``[secret]`` (``adapters.pulumi``), and their
    #: ``FILE:LINE`` where no other resource is on that line: True where those are the resource's only unknowns, False
    #: where it holds computed values too. What decides a value not
    #: known there is said for a secret (``engine.runner.secret_advice``): no state shows it.
    masked: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)
    #: Lookups the rules build once per run (``checks._net.services_in``); not part of the inventory's value.
    index: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def same_unit(self, a: str | None, b: str | None) -> bool:
        """Whether files ``a`` and ``b`` are of one deployable unit (:attr:`units`; a file it does not hold is of
        every unit)."""
        if not self.units:
            return True
        ua, ub = self.units.get(a or "", EVERY_UNIT), self.units.get(b or "", EVERY_UNIT)
        if ua == ub or EVERY_UNIT in (ua, ub):
            return True
        # a unit refined by an Argo CD destination (``git:ROOT|server=URL``) is its repository's: the repository's
        # plain files are of every destination, and two destinations are two clusters only where both are named the
        # same way (two servers, two names); a name and a server may be one cluster
        (base_a, _, dest_a), (base_b, _, dest_b) = ua.partition(CLUSTER_MARK), ub.partition(CLUSTER_MARK)
        if base_a != base_b:
            return False
        if not dest_a or not dest_b:
            return True
        return dest_a.partition("=")[0] != dest_b.partition("=")[0]

    def extend(self, other: Inventory) -> None:
        for name in (
            "groups", "pools", "security_groups", "subnets", "launch_templates",
            "services", "ingresses", "routers", "network_policies", "autoscalers", "workload_refs", "sources",
            "launch_issues", "unknown_words",
            "errors",
            "skipped_files", "excluded", "config_maps", "pod_ports", "device_claims", "hardware_profiles",
            "limit_ranges", "cross_refs", "stacks", "template_vars", "envsubst_files",
        ):
            items = getattr(other, name)
            if items:  # most are empty (a Kubernetes object's inventory: one or two of them hold anything)
                getattr(self, name).extend(items)
        if other.skipped:
            self.skipped.update(other.skipped)
        if other.masked:
            self.masked.update(other.masked)
