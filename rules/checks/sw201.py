"""SW201: a tensor-parallel group larger than one node's GPUs."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import prefill_context_parallel, tp_pp
from ..capacity.layout import plural
from ..catalog.accelerators import (
    catalog_resources,
    devices_per_unit,
    group_vendor,
    layout_counts_devices,
    mig_label,
    mig_profile,
)
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import UNKNOWN, Inventory, ServingGroup, Undecidable, is_unknown, known, layout_text, world_size
from ..model.vocab import GFD_CLIQUE
from ._capacity import nccl_rules_apply
from ._layout import in_one_nvlink_domain, requests_efa
from ._request import device_claims, unschedulable_reason
from ._sharing import MIG_DEVICE_CLASSES, gpu_sharing, mig_devices, placement_labels
from ._unseen import held_back_hits
from ._words import listed

#: What TP across nodes measurably costs on an RDMA fabric, and where it was measured.
MEASURED = (
    "vllm-project/vllm#17006 measured DeepSeek-R1 on two 8-GPU nodes over InfiniBand: TP16 with RDMA came within "
    "about 100 ms of TP8×PP2's time to first token, and ran far slower over TCP without RDMA"
)


def _fabric(g: ServingGroup) -> tuple[str | None, bool, str]:
    """(the RDMA fabric the group's NCCL traffic between nodes uses, or None; whether that is known; why not).

    EFA carries NCCL only for pods that request ``vpc.amazonaws.com/efa`` devices (as SW205 checks)."""
    pool = g.pool
    assert pool is not None
    named = (pool.labels.get("shardwise.dev/fabric") or pool.fabric or "").lower()
    efa = pool.efa is True or named == "efa"
    if named == "infiniband":
        return "InfiniBand", True, ""
    if efa:
        if g.kind == "plan" or requests_efa(g):
            # (a plan's group has no pods yet: the LeaderWorkerSet plan --emit writes requests the pool's EFA devices)
            return "EFA", True, ""
        return None, True, "the pool has EFA but the pods request no vpc.amazonaws.com/efa devices"
    if pool.efa is False:
        return None, True, ""
    return None, False, ""


class TensorParallelLargerThanNode(GroupRule):
    meta = RuleMeta(
        code="SW201",
        name="tensor-parallel-larger-than-node",
        enforcement="advisory",
        mandatory_when=("when the nodes are known to have no RDMA fabric (EFA, InfiniBand) between them and SW205, "
                        "which owns the TCP between nodes, does not block on the group, or when one pod requests more "
                        "GPUs than a node has"),
        severity="critical",
        summary=("tensor_parallel_size is larger than the GPUs of one node in the selected pool, or than the GPUs "
                 "of one pod of a multi-node group."),
        why=(
            "Tensor parallelism all-reduces twice per layer on every token. Inside a node that runs over "
            "NVLink/NVSwitch (~900 GB/s per H100); split across nodes it crosses the network. On an RDMA "
            "fabric the pods use (InfiniBand, or EFA with vpc.amazonaws.com/efa devices requested) that works "
            "and costs latency (" + MEASURED + "). Without one NCCL falls "
            "back to TCP sockets and every layer waits on them, so the finding blocks only there; on a fabric "
            "it is advisory. Keep TP inside one NVLink domain and span nodes with pipeline parallelism, or, "
            "for a mixture-of-experts model, with data parallelism and expert parallelism (attention inside "
            "each node, only the experts' all-to-all across). A single pod never spans nodes: where one pod "
            "requests more GPUs than a node of its pool has, the scheduler places it nowhere and it stays Pending "
            "(Insufficient nvidia.com/gpu for a device plugin's resource; cannot allocate all claims for devices "
            "claimed by dynamic resource allocation); a pod's MIG slices are counted against the slices the node's "
            "GPUs hold, and a Karpenter NodePool's nodes against the most GPUs its requirements admit "
            "(instance-gpu-count, or instance-size within a family): Karpenter launches no instance type that does "
            "not hold the pod (no instance type has enough resources). "
            "What a pod requests is what its containers and native sidecars (init containers with restartPolicy "
            "Always) request together, not only the vLLM container (KEP-753). "
            "Nor does NVLink join pods (outside a multi-node NVLink domain such as GB200 NVL72): each pod sees "
            "only its own GPUs and NCCL takes each pod for a host of its "
            "own, so a TP group spread over the pods of a multi-node group all-reduces over the network wherever "
            "the pods run (advisory)."
        ),
        bad_example="--tensor-parallel-size 16   # on g5.48xlarge nodes with 8 A10G each and no EFA",
        good_example="--tensor-parallel-size 8 --pipeline-parallel-size 2   # TP in the node, PP across two",
        remediation=(
            "Set --tensor-parallel-size to at most the GPUs of one node and use --pipeline-parallel-size "
            "for the rest (for MoE models: --data-parallel-size with --enable-expert-parallel), or choose a "
            "pool whose nodes share a multi-node NVLink domain or an EFA/InfiniBand fabric. One pod runs on one "
            "node: a pod that requests more GPUs than a node has never schedules, so span nodes with a multi-node "
            "group (a LeaderWorkerSet) or choose a pool with enough GPUs per node. Where the fabric is not known, "
            "name the instance type or label the pool shardwise.dev/efa or shardwise.dev/fabric."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
            "https://github.com/vllm-project/vllm/issues/17006",
        ),
    )
    fields = ("tensor_parallel_size",)  # the line a finding points at
    reads_pool = True  # GPUs per node and NVLink domain: judged on every kind a NodePool may launch

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its tensor-parallel group fits one node")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if group_vendor(g) == "google":
            return  # a TPU slice joins the chips of several hosts by ICI: TP may span them
        if not g.placement_known or g.pool is None:
            yield from _across_pods(g)
            return
        tp, pp = tp_pp(g)
        if tp <= 1:
            yield from _request_beyond_node(g, inv, tp, pp)
            return
        if is_unknown(g.pool.gpus_per_node) and g.pool.hardware_why:
            raise Undecidable(f"GPUs per node of pool `{g.pool.name}`", g.pool.hardware_why)
        per_node = known(g.pool.gpus_per_node, f"GPUs per node of pool `{g.pool.name}`")
        if not per_node or tp <= int(per_node):
            pending = list(_request_beyond_node(g, inv, tp, pp))
            yield from pending or _across_pods(g)  # pods that never schedule span nothing
            return
        unit = catalog_resources().get(group_vendor(g) or "nvidia", "nvidia.com/gpu")
        if not layout_counts_devices(unit):
            return  # the vendor's compiler places the model over the devices: TP does not count them
        arch = g.pool.gpu.architecture if g.pool.gpu is not None else None
        lo, hi = devices_per_unit(unit, arch) or (1, 1)
        if tp <= int(per_node) * lo:
            return  # the node's devices hold more than one worker each (NeuronCores of a Neuron device)
        if tp <= int(per_node) * hi:
            raise Undecidable(f"the workers one node of pool `{g.pool.name}` holds",
                              f"each of its {int(per_node):,} {unit} holds {lo} to {hi} vLLM devices")
        if in_one_nvlink_domain(g, tp):
            return
        if (lo, hi) != (1, 1):
            held = f"{int(per_node):,} {unit} per node ({int(per_node) * lo:,} to {int(per_node) * hi:,} vLLM devices)"
            yield hit(g, f"pool `{g.pool.name}` has {held} but tensor_parallel_size is {tp}; the TP group "
                         f"would span at least {-(-tp // (int(per_node) * hi)):,} nodes")
            return
        per_node = int(per_node)
        if g.pods_per_group is not UNKNOWN and int(g.pods_per_group or 1) == 1:  # unknown: it may span nodes
            # one pod runs on one node: the TP group spans no nodes; only a request no node holds is said (sched19:
            # MIG slices, of which one GPU holds several, were said to leave the pod Pending)
            yield from _one_pod(g, inv, tp, per_node)
            return
        pending = list(_one_pod(g, inv, tp, per_node, each=True))
        if pending:  # sched19: pods that never schedule were judged for the fabric between the nodes they'd run on
            yield from pending
            return
        nodes = -(-tp // per_node)
        head = (f"pool `{g.pool.name}` has {plural(per_node, 'GPU')} per node but tensor_parallel_size is {tp}; "
                f"the TP group would span {nodes:,} nodes without a shared NVLink domain")
        fabric, sure, unused = _fabric(g)
        if fabric:
            yield hit(g, f"{head}: over {fabric} it works, but every layer's all-reduce crosses the network")
        elif sure:
            how = f" ({unused})" if unused else " or an RDMA fabric"
            yield hit(g, f"{head}{how}: NCCL's all-reduces run over TCP sockets on every layer", level="mandatory")
        else:
            yield hit(g, f"{head}, and whether the nodes share EFA or InfiniBand is not known: without one NCCL runs "
                         "every layer's all-reduce over TCP")


def pending(g: ServingGroup, inv: Inventory, config: LintConfig | None = None) -> list[Hit]:
    """SW201's findings that the group's pods never schedule on its pool (a pod's request beyond what one node of the
    pool holds, :func:`_one_pod`): the paths of :meth:`TensorParallelLargerThanNode.check_group` that give them, and
    only those. Empty where that is not so or not known (a value not known yet, a request the node's unit does not
    count). The engine asks it of a group on which a capacity or topology rule blocks (readers20): that rule judged a
    replica on a pool that never runs it, so its finding is advisory and SW201's is the one that blocks."""
    if group_vendor(g) == "google" or not g.placement_known or g.pool is None:
        return []
    try:
        tp, pp = tp_pp(g)
        per_node = g.pool.gpus_per_node
        if tp <= 1 or (not is_unknown(per_node) and (not per_node or tp <= int(per_node))):
            return list(_request_beyond_node(g, inv, tp, pp))
        if is_unknown(per_node):
            return []
        unit = catalog_resources().get(group_vendor(g) or "nvidia", "nvidia.com/gpu")
        arch = g.pool.gpu.architecture if g.pool.gpu is not None else None
        if (not layout_counts_devices(unit) or (devices_per_unit(unit, arch) or (1, 1)) != (1, 1)
                or in_one_nvlink_domain(g, tp)):
            return []
        one = g.pods_per_group is not UNKNOWN and int(g.pods_per_group or 1) == 1
        return list(_one_pod(g, inv, tp, int(per_node), each=not one))
    except Undecidable:
        return []


def _across_pods(g: ServingGroup) -> Iterable[Hit]:
    """A multi-pod group whose pods hold fewer GPUs than tensor_parallel_size: the TP group spans pods. Each
    pod sees only its own GPUs and NCCL takes each pod for a host of its own, so the all-reduces between pods run
    over the network (TCP sockets, or EFA/InfiniBand where the pods use it), never over NVLink, wherever the
    scheduler puts the pods. Advisory: whether a fabric carries it is SW205's and the pool's to say."""
    if not nccl_rules_apply(g) or not layout_counts_devices(g.accelerator_resource or "nvidia.com/gpu"):
        return
    pods, gpus = g.pods_per_group, g.gpus_per_pod
    if not isinstance(pods, int) or pods <= 1 or not isinstance(gpus, int) or gpus < 1:
        return
    if g.host.network is not False or g.host.ipc is not False:
        return  # pods that share the node's network and IPC namespaces may reach each other's GPUs on one node
    tp, pp = tp_pp(g)
    if tp <= gpus or in_one_nvlink_domain(g, tp) or g.exclusive_topology == GFD_CLIQUE:
        return  # (a multi-node NVLink domain, GB200 NVL72, joins pods through IMEX: SW205 and the pool decide)
    if world_size(tp, pp, prefill_context_parallel(g)) > pods * gpus:
        return  # the pods hold fewer GPUs than the workers: SW204's finding
    spanned = -(-tp // gpus)
    per_pod = plural(gpus, "GPU")
    yield hit(g, f"tensor_parallel_size is {tp} but each of the group's {pods:,} pods has {per_pod}, so the TP group "
                 f"spans {spanned:,} pods: NCCL between pods runs over the network (TCP, or EFA/InfiniBand where the "
                 "pods use it), not NVLink, and every layer's all-reduce waits on it; put each TP group in one pod "
                 f"({plural(tp, 'GPU')} per pod) and span pods with pipeline parallelism only")


def _one_pod(g: ServingGroup, inv: Inventory, tp: int, per_node: int, layout: str = "",
             uses: int | None = None, bounded: bool = False, each: bool = False) -> Iterable[Hit]:
    """A group of one pod: its workers run in that pod, on one node. A request beyond what one node of the pool
    advertises (:func:`_node_holds`) leaves it unschedulable, and the finding says what the scheduler says for the
    request's resource model (:func:`unschedulable_reason`); a request below TP × PP is SW204's (vLLM cannot place
    its workers). ``bounded``: ``per_node`` is the most GPUs a node the Karpenter NodePool may launch has
    (:attr:`NodePool.max_gpus_per_node`), not the one count of its nodes. Karpenter launches a node only of an
    instance type whose resources hold the pod's requests, and says of a pod none holds "no instance type has enough
    resources" (kubernetes-sigs/karpenter, pkg/controllers/provisioning/scheduling: the instance-type filter's error),
    while the scheduler leaves it Pending. ``each``: the pod is one of a multi-pod group, whose pods each request
    ``g.gpus_per_pod`` (a LeaderWorkerSet of 8-GPU pods on 4-GPU nodes): none schedules, whatever the layout."""
    assert g.pool is not None
    others = g.pod_gpus is not None and not is_unknown(g.pod_gpus)  # else judged on the server's own, a lower bound
    gpus = known(g.pod_gpus if others else g.gpus_per_pod, "the GPU request (nvidia.com/gpu limit)")
    holds = _node_holds(g, inv, per_node)
    if gpus is None or holds is None or int(gpus) <= holds:
        return
    unit = g.accelerator_resource or "nvidia.com/gpu"
    used = layout or f"tensor_parallel_size {tp}"
    uses = tp if uses is None else uses
    own = g.gpus_per_pod if isinstance(g.gpus_per_pod, int) else 0
    claims = device_claims(g, inv)
    if claims:  # dynamic resource allocation: devices of a DeviceClass, not an extended resource
        classes = listed(dict.fromkeys(f"`{d.device_class}`" for d in claims if d.device_class)) or "its"
        asks = f"claims {plural(int(gpus), 'device')} of DeviceClass {classes}"
        has = plural(per_node, "GPU")
        fewer = f"or claim the {plural(uses, 'device')} {used} uses"
    else:
        asks = f"requests {int(gpus):,} {unit}"
        has = (f"{per_node:,}" if holds == per_node else
               f"{plural(per_node, 'GPU')}, which {'holds' if per_node == 1 else 'hold'} at most {holds:,} {unit}")
        fewer = f"or request the {uses:,} {unit} {used} uses"
    if bounded:
        has = f"at most {plural(per_node, 'GPU')} (its requirements admit no instance type with more)"
    instead = (f"select a pool with {int(gpus):,} or more GPUs per node" if holds == per_node else
               f"select a pool whose nodes hold {int(gpus):,} {unit}")
    if others:  # others in the pod request GPUs too: the scheduler counts them all (KEP-753)
        parts = " and ".join(g.pod_gpus_from)
        if own <= holds:
            instead += f", or move the GPUs of {parts} out of this pod"
        asks = (f"requests {int(gpus):,} {unit} while its init containers run ({parts}), more than the {own:,} of the "
                f"vLLM server's {used}" if g.pod_gpus_from[-1].startswith("init container `")
                else f"requests {int(gpus):,} {unit}, {own:,} for the vLLM server's {used} and {parts}")
        asks += (": Kubernetes schedules a pod on what its containers and native sidecars (init containers with "
                 "restartPolicy Always, which run for the pod's life) request together, or on an init container "
                 "beside the sidecars started before it where that is more (KEP-753), and")
    else:
        asks += f" for {used}, but"
        if uses <= holds and not each:  # the layout itself fits a node: the request is what does not
            instead += f", {fewer}"
    if uses > 1 and mig_devices(g, tuple(d.device_class or "" for d in claims)) is not None:
        # mig20: more slices, or a pool that holds them, start no layout of more than one worker on MIG devices
        instead = ("serve it at TP1 on one MIG slice that holds the model, or on whole GPUs: a CUDA process "
                   "enumerates one MIG device, so no layout of more than one worker per pod starts on them (SW204)")
    # a request beyond the node where the TP group fits it points at the request (TP1 writes no flag to point at)
    reason = unschedulable_reason(g, inv, unit)
    if g.pool.kind == "karpenter":  # no node of the NodePool holds it, and Karpenter launches none that would
        has = plural(per_node, "GPU") if has == f"{per_node:,}" else has
        node = f"a node Karpenter may launch from NodePool `{g.pool.variant_of or g.pool.name}`"
        if g.pool.variant_of is not None:
            node += f" as `{g.pool.name}`"
        stays = (f"Karpenter launches no node for the pod (no instance type has enough resources) and it stays "
                 f"Pending ({reason})")
    else:
        node, stays = f"a node of pool `{g.pool.name}`", f"the pod stays Pending ({reason})"
    pod = "a pod of this workload"
    if each:
        pod = "each pod of this multi-pod group"
        stays = stays.replace("for the pod", "for them").replace("and it stays", "and they stay").replace(
            "the pod stays", "no pod of the group schedules: each stays")
    yield hit(g, f"{pod} {asks} {node} has {has}, so {stays}; {instead}",
              location=g.at("resources") if layout else None, level="mandatory")


def _node_holds(g: ServingGroup, inv: Inventory, per_node: int) -> int | None:
    """How many units of the requested resource one node of the group's pool advertises at most, or None where the
    inputs do not say. Whole devices (:func:`_whole_devices`): the node's GPUs. A MIG device of one profile under
    the device plugin's mixed strategy (``nvidia.com/mig-3g.47gb``): a GPU has seven compute slices, so it holds at
    most 7 // (the profile's slices) of them (NVIDIA MIG user guide, "Supported MIG Profiles": 1g ×7, 2g ×3, 3g ×2,
    4g and 7g ×1), and fewer where its memory is split otherwise. Anything else (time-slicing, MIG's single
    strategy, NeuronCores, MIG devices by a claim): not known."""
    if _whole_devices(g, inv):
        return per_node
    profile = mig_profile(g.accelerator_resource)
    if profile is not None and profile[0] > 0 and not device_claims(g, inv):
        return per_node * (7 // profile[0])
    return None


def _request_beyond_node(g: ServingGroup, inv: Inventory, tp: int, pp: int) -> Iterable[Hit]:
    """A pod whose tensor-parallel group fits a node but whose GPU request does not (of a multi-pod group too: each of
    its pods runs on one node): pipeline stages
    or data-parallel ranks in the pod (TP2 x PP2 requesting 4 GPUs on 2-GPU nodes), or more GPUs requested than
    the layout uses (1 GPU used, 2 requested on a 1-GPU node). A pod runs on one node, so the scheduler places it
    nowhere (Insufficient nvidia.com/gpu) and it stays Pending. Nothing is said where the node's GPUs are not
    known (SW206 says why)."""
    assert g.pool is not None
    if g.gpus_per_pod is UNKNOWN:
        return  # (a request not known yet: SW204 and SW208 name it)
    each = g.pods_per_group is UNKNOWN or int(g.pods_per_group or 1) != 1  # sched19: each pod of a multi-pod group
    per_node, bounded = g.pool.gpus_per_node, False
    if (is_unknown(per_node) or not per_node) and g.pool.max_gpus_per_node:  # sched19: a NodePool's kinds vary
        per_node, bounded = g.pool.max_gpus_per_node, True
    if is_unknown(per_node) or not per_node:
        return
    pcp = prefill_context_parallel(g)  # vLLM's world is TP × PP × PCP (capacity.group.Layout)
    text = layout_text(tp, pp, pcp)
    yield from _one_pod(g, inv, tp, int(per_node), layout=text, uses=world_size(tp, pp, pcp), bounded=bounded,
                        each=each)


def _whole_devices(g: ServingGroup, inv: Inventory) -> bool:
    """Whether a node of the group's pool advertises one unit of the requested resource per device the pool counts
    (its GPUs per node), so a request above that count is sure to leave the pod Pending (review19). Not so where the
    request is of another unit than the pool's (a MIG slice ``nvidia.com/mig-3g.47gb``, of which one GPU holds up to
    seven; ``aws.amazon.com/neuroncore``, two to eight per Neuron device the pool counts; ``nvidia.com/gpu.shared``),
    where the inputs declare time-slicing or MPS (the device plugin advertises each GPU ``replicas`` times), or where
    GPU Feature Discovery's product names a MIG device (MIG's single strategy: ``nvidia.com/gpu`` counts MIG devices,
    56 on eight A100s; NVIDIA/gpu-feature-discovery README, "MIG 'single' strategy"), or where a resource claim asks
    for MIG devices (NVIDIA's DRA driver publishes them in the DeviceClass ``mig.nvidia.com``, not among
    ``gpu.nvidia.com``'s GPUs: NVIDIA/k8s-dra-driver-gpu)."""
    unit = catalog_resources().get(group_vendor(g) or "nvidia", "nvidia.com/gpu")
    if (g.accelerator_resource or unit) != unit:
        return False
    sharing = gpu_sharing(g, inv)
    if sharing is not None and sharing.kind in ("time-slicing", "mig"):
        return False
    if any(mig_label(key, value) for key, value in placement_labels(g)):
        return False
    return not any(d.device_class in MIG_DEVICE_CLASSES for d in device_claims(g, inv))
