"""SW309: a vLLM pod with access to its node (host namespaces, privileged, added capabilities, no seccomp)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, Container, Inventory, Location, ServingGroup, Undecidable
from ._layout import runs_on_cpu
from ._unseen import unseen, unseen_hits

#: Capabilities that hand a container control of its node or of other pods' traffic and processes.
NODE_CAPABILITIES = frozenset({
    "ALL", "SYS_ADMIN", "SYS_MODULE", "SYS_RAWIO", "SYS_PTRACE", "SYS_BOOT", "NET_ADMIN", "DAC_READ_SEARCH",
    "BPF", "PERFMON", "MKNOD", "SYS_TIME",
})
#: Node capabilities whose reach is a namespace the pod keeps apart from its node unless it shares it, with that
#: namespace's pod field: SYS_PTRACE traces and reads the memory of the processes its container sees (its own,
#: its pod's with shareProcessNamespace) and every process of the node only with hostPID (capabilities(7),
#: ptrace(2): the ptrace access check is made in the tracer's PID namespace).
NAMESPACED_CAPABILITIES = {"SYS_PTRACE": ("pid", "hostPID")}
#: Capabilities GPU and RDMA serving legitimately asks for: IPC_LOCK pins memory for InfiniBand/EFA
#: verbs, NET_BIND_SERVICE binds a port below 1024, SYS_NICE raises thread priorities.
HARMLESS_CAPABILITIES = frozenset({"IPC_LOCK", "NET_BIND_SERVICE", "SYS_NICE", "CHOWN", "SETUID", "SETGID"})

Level = Literal["advisory", "mandatory"]

#: The extended resource of Cloud TPU chips on GKE.
TPU_RESOURCE = "google.com/tpu"


def _tpu(g: ServingGroup, c: Container) -> bool:
    """Whether the container (or the group's vLLM container) is given Cloud TPU chips."""
    return TPU_RESOURCE in (c.accelerator_resource, g.accelerator_resource)


#: The node's namespaces a pod may share: (its ``HostAccess`` attribute, the pod spec key, the level, what follows).
#: ``{fabric}``: what the pod shows of its platform (:func:`_fabric`), made only where the finding is said.
_HOST_NAMESPACES: tuple[tuple[str, str, Level, str], ...] = (
    ("network", "hostNetwork", "mandatory",
     "its API and runtime ports listen on the node's addresses, outside every NetworkPolicy; remove "
     "hostNetwork from the pod spec ({fabric})"),
    ("pid", "hostPID", "mandatory",
     "it can see and signal every process on the node; remove hostPID from the pod spec"),
    ("ipc", "hostIPC", "advisory",
     "it shares the node's shared memory (usually a /dev/shm workaround: mount a memory-backed emptyDir "
     "there instead)"),
)


class VllmPodWithHostAccess(GroupRule):
    meta = RuleMeta(
        code="SW309",
        name="vllm-pod-with-host-access",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM pod shares its node's network or process namespace, runs a privileged container or adds "
            "capabilities that control the node (mandatory), or shares the node's IPC namespace or runs "
            "without seccomp (advisory)."
        ),
        why=(
            "vLLM needs none of these: the NVIDIA and EFA device plugins hand a pod its GPUs and EFA devices, "
            "and a memory-backed emptyDir gives it /dev/shm. With hostNetwork the API and the unauthenticated "
            "runtime ports (Ray, torch.distributed, NCCL) listen on the node's own addresses, outside every "
            "NetworkPolicy; hostPID lets the pod see and signal every process on the node; a privileged "
            "container or capabilities such as SYS_ADMIN or NET_ADMIN let code that reaches the "
            "server (a malicious model file, a prompt-injected tool) take the node and the other tenants' "
            "GPUs. SYS_PTRACE traces and reads the memory of the processes its container sees: with hostPID "
            "every process of the node (mandatory), without it only the pod's own (advisory: vLLM does not "
            "need it, and the Pod Security Standards' baseline forbids it). hostIPC is mostly a workaround "
            "for a small /dev/shm; it shares the node's shared memory with the pod (advisory: mount a "
            "memory-backed emptyDir instead). seccomp Unconfined removes the "
            "kernel filter the runtime's default profile applies (advisory). IPC_LOCK, which RDMA over "
            "InfiniBand or EFA needs to pin memory, is not reported. A privileged TPU container is advisory: "
            "GKE before 1.28 needed it to reach the chips, later versions do not."
        ),
        bad_example=(
            "spec:\n"
            "  hostNetwork: true\n"
            "  hostIPC: true\n"
            "  containers:\n"
            "    - name: vllm\n"
            "      securityContext:\n"
            "        privileged: true"
        ),
        good_example=(
            "spec:\n"
            "  containers:\n"
            "    - name: vllm\n"
            "      securityContext:\n"
            "        capabilities: {add: [IPC_LOCK]}   # RDMA only\n"
            "      volumeMounts: [{name: shm, mountPath: /dev/shm}]\n"
            "  volumes:\n"
            "    - {name: shm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}"
        ),
        remediation=(
            "Remove hostNetwork, hostPID, hostIPC and privileged from serving pods; request GPUs and EFA devices "
            "through their device plugins (GKE 1.28 and later give TPU containers their chips without "
            "privileged); mount a memory-backed emptyDir at /dev/shm; add only the capabilities "
            "RDMA needs (IPC_LOCK) and keep the runtime's default seccomp profile (RuntimeDefault)."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/security/pod-security-standards/",
            "https://kubernetes.io/docs/tutorials/security/seccomp/",
            "https://docs.vllm.ai/en/latest/usage/security.html",
            "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus",
        ),
        scope="resource",
        mandatory_when=("for hostNetwork, hostPID, privileged containers (but TPU ones) and capabilities that "
                        "control the node (SYS_PTRACE only with hostPID)"),
        applies_to_plans=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            # a workload whose pod spec or containers are not known yet may share the node's namespaces or
            # run privileged: fail closed
            yield from unseen_hits(inv, "whether its pods share the node's namespaces or run privileged containers",
                                   level="mandatory", only=[i for i in unseen(inv) if i.pod_unknown])

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        subject = group_subject(g)
        host = g.host
        for attr, key, level, consequence in _HOST_NAMESPACES:
            value = getattr(host, attr)
            where = host.locations.get(attr, g.location)
            if value is UNKNOWN:
                yield self._undecided(g, f"{key} of {subject}", where, level)
            elif value is True:
                if attr == "network":
                    consequence = consequence.format(fabric=_fabric(g))
                yield Hit(subject, f"the pod sets {key}: true, so {consequence}",
                          where, tuple(g.suppressions), level=level)
        for c in g.containers:
            yield from self._container(g, c)

    def _container(self, g: ServingGroup, c: Container) -> Iterator[Hit]:
        subject = group_subject(g)
        sc = c.security
        where = sc.location if (sc.location.file or sc.location.urn) else c.location
        if sc.privileged is UNKNOWN:
            yield self._undecided(g, f"securityContext.privileged of container `{c.name}`", where, "mandatory")
        elif sc.privileged is True and _tpu(g, c):
            # GKE before 1.28 needed privileged TPU containers; later versions hand TPUs out without it: a
            # reviewer cannot tell from the manifest which cluster it targets
            yield Hit(subject, f"container `{c.name}` is privileged: it has every device and capability of the "
                               "node (TPU containers need it only on GKE before 1.28)", where,
                      tuple(g.suppressions), level="advisory")
        elif sc.privileged is True and runs_on_cpu(g):
            # corpus43: vLLM's CPU build on Civo and OKE (brokedba/vllm-lab) runs privileged; it is handed no device,
            # so the advice to request GPUs as resources did not apply: what it needs of the node is a capability
            yield Hit(subject, f"container `{c.name}` is privileged: it has every device and capability of the "
                               "node; remove privileged from its securityContext: vLLM's CPU build uses no device, "
                               "and a capability it needs can be added alone (securityContext.capabilities.add)",
                      where, tuple(g.suppressions), level="mandatory")
        elif sc.privileged is True:
            yield Hit(subject, f"container `{c.name}` is privileged: it has every device and capability of the "
                               "node; remove privileged from its securityContext and request its GPUs (and EFA "
                               "devices) as resources, which the device plugins hand it", where,
                      tuple(g.suppressions), level="mandatory")
        added = [cap.removeprefix("CAP_") for cap in sc.capabilities_add]
        if "<unknown>" in added:
            yield self._undecided(g, f"the capabilities container `{c.name}` adds", where, "mandatory")
        node = sorted(cap for cap in added if cap in NODE_CAPABILITIES and cap not in NAMESPACED_CAPABILITIES)
        for cap in sorted(cap for cap in added if cap in NAMESPACED_CAPABILITIES):
            yield self._namespaced(g, c, cap, where)
        other = sorted(cap for cap in added if cap not in NODE_CAPABILITIES and cap not in HARMLESS_CAPABILITIES
                       and cap != "<unknown>")
        if node:
            yield Hit(subject, f"container `{c.name}` adds {', '.join(node)}, which "
                               f"control{'s' if len(node) == 1 else ''} the node or its other pods; remove "
                               f"{'it' if len(node) == 1 else 'them'} from securityContext.capabilities.add", where,
                      tuple(g.suppressions),
                      level="mandatory")
        if other:
            yield Hit(subject, f"container `{c.name}` adds {', '.join(other)}, which vLLM does not need", where,
                      tuple(g.suppressions), level="advisory")
        if sc.seccomp is UNKNOWN:
            yield self._undecided(g, f"the seccomp profile of container `{c.name}`", where, "advisory")
        elif isinstance(sc.seccomp, str) and sc.seccomp.lower() == "unconfined":
            yield Hit(subject, f"container `{c.name}` runs with seccomp Unconfined, without the runtime's "
                               "system-call filter", where, tuple(g.suppressions), level="advisory")

    def _namespaced(self, g: ServingGroup, c: Container, cap: str, where: Location) -> Hit:
        """A capability whose reach is a namespace (:data:`NAMESPACED_CAPABILITIES`): mandatory when the pod
        shares that namespace with its node, advisory when it does not (or when whether it does is not known
        yet: the host field's own undecided finding, mandatory, says so)."""
        attr, key = NAMESPACED_CAPABILITIES[cap]
        if getattr(g.host, attr) is True:
            return Hit(group_subject(g), f"container `{c.name}` adds {cap} and the pod sets {key}: true, so it can "
                                         f"trace and rewrite every process on the node; remove {key} from the pod "
                                         f"spec, or {cap} from securityContext.capabilities.add", where,
                       tuple(g.suppressions), level="mandatory")
        return Hit(group_subject(g), f"container `{c.name}` adds {cap}, which vLLM does not need: it can trace "
                                     "and read the memory of the processes the container sees (the node's only "
                                     f"with {key}, which this pod does not set); the Pod Security Standards' "
                                     "baseline forbids it", where, tuple(g.suppressions), level="advisory")

    def _undecided(self, g: ServingGroup, prop: str, where: Location, level: Level) -> Hit:
        u = Undecidable(prop)
        return Hit(group_subject(g), f"cannot decide: {u.text}", where, tuple(g.suppressions),
                   undecided=True, level=level)


#: The pod annotations of GKE multi-networking (GPUDirect-TCPX on A3, TCPXO on A3 Mega: the extra NICs a pod gets
#: without the host network; Google Cloud "Maximize GPU network bandwidth ... with GPUDirect-TCPX(O) and
#: multi-networking") and Multus's (k8s.v1.cni.cncf.io/networks: the secondary networks of an InfiniBand or RoCE
#: fabric, with the NVIDIA Network Operator or the Mellanox RDMA shared device plugin).
GKE_NETWORKS = ("networking.gke.io/interfaces", "networking.gke.io/default-interface")
MULTUS_NETWORKS = "k8s.v1.cni.cncf.io/networks"


def _fabric(g: ServingGroup) -> str:
    """What gives the pod its fast interconnect without the host network, by what the pod shows of its platform: EFA
    devices (EKS), GKE multi-networking annotations, RDMA device plugin resources or Multus networks (an InfiniBand or
    RoCE fabric: AKS, on-premises); where nothing shows it, the options. Names no container, flag, variable or
    pod spec key, so a baseline written before it still matches (report.fingerprint.field_of)."""
    api = "a Service reaches the API port"
    if any(c.efa is UNKNOWN or (isinstance(c.efa, int) and c.efa > 0) for c in g.containers):
        return f"{api}, and the EFA device plugin hands the pod its EFA devices"
    if any(key in g.annotations for key in GKE_NETWORKS):
        return (f"{api}, and GKE multi-networking attaches the GPUDirect NICs the pod's networking.gke.io/interfaces "
                "annotation names")
    nics = [n for c in g.containers for n in c.nics]
    multus = MULTUS_NETWORKS in g.annotations
    if nics or multus:
        parts = ([f"the RDMA device plugin hands the pod the devices it requests ({', '.join(dict.fromkeys(nics))})"]
                 if nics else []) + (["Multus attaches the networks its k8s.v1.cni.cncf.io/networks annotation "
                                      "names"] if multus else [])
        return f"{api}, and {' and '.join(parts)}"
    return (f"{api}; a pod reaches a fast interconnect without it through its platform's device plugin or secondary "
            "networks: EFA devices on EKS (vpc.amazonaws.com/efa), GPUDirect-TCPX/TCPXO multi-networking on GKE "
            "(networking.gke.io/interfaces), InfiniBand or RoCE through an RDMA device plugin (rdma/...) and Multus "
            "(k8s.v1.cni.cncf.io/networks)")
