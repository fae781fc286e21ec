"""SW206: a vLLM workload whose GPU is not known, so no capacity rule can size it."""

from __future__ import annotations

from collections.abc import Iterable

from .. import catalog
from ..capacity.group import engine_settings, gpu_memory_gib, require_model, tpu_of, vllm_version
from ..capacity.sizing import Device, size_deployment
from ..catalog.accelerators import device_word, families_of, group_vendor
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, Inventory, ServingGroup, Undecidable, known
from ..model import vocab as L
from ..model.errors import CatalogError
from ._cluster import no_cluster
from ._layout import runs_on_cpu
from ._request import device_claims, unschedulable_reason
from ._unseen import held_back_hits
from ._words import listed

#: Selector labels that name a GPU product.
_PRODUCT_LABELS = (L.LABEL_GPU_PRODUCT, L.GFD_PRODUCT, L.KARPENTER_GPU_NAME)
#: Selector and node-affinity labels whose value is a GPU type (the pool readers of catalog/hardware.py read them)
_TYPE_LABELS = (*_PRODUCT_LABELS, L.EKS_PREFIX + L.INSTANCE_GPU_NAME_SUFFIX, L.GKE_ACCELERATOR, L.GKE_TPU_ACCELERATOR,
                L.CLOUD_RUN_ACCELERATOR, L.AMD_PRODUCT, L.COREWEAVE_GPU_MODEL, L.COREWEAVE_GPU_CLASS, L.VKE_GPU_NAME,
                L.ACK_GPU_NAME)

_CANNOT_SIZE = "so the capacity rules cannot size this workload"
#: What decides it, for a workload whose selector names no pool: a selector, or the nodes of a cluster of one GPU type
#: (such a cluster needs no selector; shardwise sees its GPU only in a manifest of its nodes)
_SELECT = ("; select the GPU pool with a nodeSelector (nvidia.com/gpu.product, node.kubernetes.io/instance-type or "
           "shardwise.dev/pool), or, on a cluster of one GPU type, lint a manifest of its nodes with the rest (a Node "
           "whose labels, or a Karpenter NodePool whose requirements, name the GPU)")
#: What decides it for a pool or selector that names a GPU the catalog lacks, or a pool that names none
_LABEL_UNKNOWN = "; label the pool with shardwise.dev/gpu-memory-gib and shardwise.dev/gpu-count"
def _select(g: ServingGroup) -> str:
    """:data:`_SELECT`, worded for the accelerator the pods request: an Ascend workload is told to select its NPU pool,
    not a GPU pool by NVIDIA's labels (mend2). A family shardwise's catalog has no record of is said so, with the
    labels that size it."""
    vendor = group_vendor(g)
    if vendor in (None, "nvidia"):
        return _SELECT
    word = device_word(g)
    if not any(gpu.vendor == vendor for gpu in catalog.gpus().values()):
        family = families_of(g.accelerator_resource or "")
        title = family[0].title.split(" (")[0] if family else f"{vendor} {word}s"
        return (f"; shardwise's catalog has no {title}: select the {word} pool with a nodeSelector "
                "(shardwise.dev/pool or node.kubernetes.io/instance-type) and label it with the memory of one "
                f"{word} and their number (shardwise.dev/gpu-memory-gib and shardwise.dev/gpu-count)")
    labels = f"{L.AMD_PRODUCT}, " if vendor == "amd" else ""  # the product label AMD's node labeller writes
    return (f"; select the {word} pool with a nodeSelector ({labels}node.kubernetes.io/instance-type or "
            "shardwise.dev/pool), "
            f"or, on a cluster of one {word} type, lint a manifest of its nodes with the rest (a Node whose labels, or "
            f"a Karpenter NodePool whose requirements, name the {word})")
_LABEL_POOL = ("; label the pool's nodes with the GPU (nvidia.com/gpu.product, node.kubernetes.io/instance-type, or "
               "shardwise.dev/gpu-memory-gib and shardwise.dev/gpu-count)")


def fits_every_gpu(g: ServingGroup) -> bool:
    """Whether the group starts on the smallest GPU in the catalog (then any GPU will do): its weights per GPU
    and the KV cache of one max_model_len sequence fit, with the estimate's error band (Phi-4-mini's 7 GiB of
    weights fit a T4, but at its default 131,072 tokens one sequence needs 16 GiB of KV cache beside them).

    False when that cannot be shown (the model or a setting is not known), and for a sharded group: whether one
    GPU would hold its model (SW104) depends on the GPU (Llama-3.1-8B at TP2 starts on a T4 and fits one H100).
    """
    try:
        if g.gpus_per_replica != 1:
            return False
        model = require_model(g)
        smallest = min(catalog.gpus().values(), key=lambda gpu: gpu.memory_gib)
        s = size_deployment(model, Device.of(smallest), engine_settings(g), vllm_version(g))
    except (Undecidable, ValueError, TypeError):
        return False
    return s.kv_verdict == "starts"  # the weights and one sequence's KV cache; the margin is SW101's


def _unknown_product(labels: dict[str, str]) -> tuple[str, str] | None:
    """(label, GPU name) when a product label names a GPU the catalog does not know."""
    for key in _PRODUCT_LABELS:
        value = labels.get(key)
        if value:
            try:
                catalog.find_gpu(str(value))
            except CatalogError:
                return key, str(value)
    return None


class WorkloadWithoutGpuPool(GroupRule):
    meta = RuleMeta(
        code="SW206",
        name="workload-without-gpu-pool",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM workload's GPU is not known: no selector, a selector that matches no GPU pool, or a pool or "
            "GPU product shardwise does not know, so the capacity rules cannot size it."
        ),
        why=(
            "Without a selector the scheduler may put the pod on any node that has free GPUs — a PCIe "
            "card when the layout assumed NVSwitch, a 24 GB GPU when the sizing assumed 80 GB — and no "
            "check can tell what memory or interconnect the replica will get. A model that starts on the "
            "smallest GPU in the catalog (its weights and the KV cache of one max_model_len sequence) on one GPU is "
            "not reported: it starts on any of them. A sharded one is, though it starts everywhere: whether one GPU "
            "would hold it (SW104) depends on the GPU. Not knowing the GPU is a cannot-decide, not a defect: a uniform "
            "GPU cluster needs no selector, and pods that request a whole node's GPUs land only on nodes that "
            "have them, so the finding is advisory (it blocks with unknown = \"fail\"). A multi-node group needs "
            "the selector most: its fabric and NVLink layout decide whether it works at all. One case is not a "
            "cannot-decide: a selector on a pool's name label (karpenter.sh/nodepool, eks.amazonaws.com/nodegroup, "
            "cloud.google.com/gke-nodepool) confines the pods to that pool, and where the pool is in the inputs and "
            "its nodes have another maker's accelerator or none, no node ever advertises the resource the pods "
            "request (kube-scheduler's NodeResourcesFit filter): they stay Pending, and the finding blocks. A pool "
            "named that is not in the inputs may be anything: advisory. So is a selector on the hardware itself, "
            "whatever pools the inputs declare: an instance type, a GKE TPU or GPU accelerator "
            "(cloud.google.com/gke-tpu-accelerator, cloud.google.com/gke-accelerator), a Karpenter instance family or "
            "GPU name, a GPU product label, whose nodes have another maker's accelerator or none (a GPU pod on a TPU "
            "node pool): sure, and blocking; where another affinity term admits other nodes, or the catalog does not "
            "know the hardware, it is not."
        ),
        bad_example="spec:\n  containers: [...]   # no nodeSelector, no affinity",
        good_example="spec:\n  nodeSelector:\n    node.kubernetes.io/instance-type: p5.48xlarge",
        remediation=(
            "Select the GPU pool with a nodeSelector or required node affinity on its labels (shardwise.dev/pool, "
            "node.kubernetes.io/instance-type, nvidia.com/gpu.product) and tolerate its GPU taint. For a GPU the "
            "catalog does not know, label the pool with shardwise.dev/gpu-memory-gib and shardwise.dev/gpu-count. A "
            "cluster of one GPU type needs no selector: lint a manifest of its nodes with the workloads (a Node whose "
            "labels, or a Karpenter NodePool whose requirements, name the GPU: nvidia.com/gpu.product, "
            "node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-family), and a workload without a selector "
            "is sized on it."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/",
            "https://github.com/NVIDIA/k8s-device-plugin#gpu-feature-discovery",
        ),
        mandatory_when=('when the selector pins the workload by name (karpenter.sh/nodepool, '
                        'eks.amazonaws.com/nodegroup, cloud.google.com/gke-nodepool) to a pool of the inputs whose '
                        'nodes never advertise the accelerator its pods request (another maker\'s, or none), or by '
                        'a hardware label (instance type, GKE TPU or GPU accelerator, GPU product) to nodes that '
                        'never do: the pods stay Pending; with `unknown = "fail"` in the configuration otherwise'),
    )
    fields = ("nodeSelector", "affinity", "podSpec")  # the line a finding points at (a selector goes in the pod spec)

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether a GPU pool of the inputs runs its pods")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or runs_on_cpu(g):  # vLLM's CPU backend has no GPU to size
            return
        if g.pool is None and g.unplaceable:  # pinned by name to a pool of the inputs that never holds the pods: sure
            reason = unschedulable_reason(g, inv)
            if not device_claims(g, inv):
                reason += ": no node the scheduler may bind them to has one"
            yield Hit(group_subject(g), f"{g.unplaceable}, so the pods stay Pending ({reason}); select a pool whose "
                                        "nodes have that accelerator, or request the one the pool has",
                      g.at("nodeSelector", "affinity", "podSpec"), tuple(g.suppressions), level="mandatory")
            return
        if tpu_of(g) is not None:
            return  # a TPU is not sized whatever pool it lands on (SW101 says so): nothing to name for the sizing
        # advisory for every group, multi-node ones too: an unknown GPU is a cannot-decide (DESIGN: undecided
        # topology findings are advisory unless unknown = "fail"), not a defect
        if g.pool is None and g.node_selector is UNKNOWN:
            u = Undecidable("the nodeSelector")
            yield Hit(group_subject(g), f"cannot decide: {u.text}", g.at("nodeSelector", "podSpec"),
                      tuple(g.suppressions),
                      undecided=True)
            return
        if g.pool is not None:
            try:
                if gpu_memory_gib(g) is not None:
                    return
            except Undecidable:
                if not _unknown_product(g.pool.labels):
                    raise
                # a GPU the pool names but the catalog lacks: said below
            observed = _unknown_product(g.pool.labels)
            what = (f"pool `{g.pool.name}` names GPU `{observed[1]}` ({observed[0]}), which is not in shardwise's "
                    "catalog" if observed
                    else f"pool `{g.pool.name}` does not say which GPU its nodes have")
            fix = _LABEL_UNKNOWN if observed else _LABEL_POOL
        else:
            selector = known(g.node_selector, "the nodeSelector")
            if not selector and not g.affinity:
                what, fix = "the vLLM workload has no nodeSelector or node affinity", _select(g)
            else:
                observed = _unknown_product(dict(selector))
                wanted = ", ".join(f"{k}={v}" for k, v in selector.items())
                for term in g.affinity:
                    wanted += ("; " if wanted else "") + " and ".join(
                        f"{e.key} {e.operator} {list(e.values)}" if e.values else f"{e.key} {e.operator}"
                        for e in term
                    )
                in_unit = [inv.same_unit(p.location.file, g.location.file) for p in inv.pools]
                pools = [p for p, inside in zip(inv.pools, in_unit, strict=True) if inside]
                # each pool once, not each kind of node it may launch (a NodePool's instance families); the pools
                # of other units are those the test above left out (``p not in pools`` compared every pool with
                # each of the unit's, field by field: 5 of 25 s of a lint of tests/corpus/wide, lintspeed30)
                others = list(dict.fromkeys((p.variant_of or p.name, p.location.file)
                                            for p, inside in zip(inv.pools, in_unit, strict=True) if not inside))
                # place16: "none declared" was said where other deployable units of the run declare pools
                known_pools = (listed(f"`{p.name}`" for p in pools) or
                               ("none declared" if not others else
                                f"none in its deployable unit; {len(others)} in other units of the run, which do "
                                "not place its pods"))
                # the GPU types it names (small16: a node affinity `In` several of them was said to name none)
                types = [v for k, v in selector.items() if k in _TYPE_LABELS]
                for term in g.affinity:
                    types += [v for e in term if e.key in _TYPE_LABELS and e.operator == "In" for v in e.values]
                types = list(dict.fromkeys(str(t) for t in types))
                named = ("names no GPU type" if not types else
                         f"names GPU type {listed(f'`{t}`' for t in types)}" if len(types) == 1 else
                         f"names {len(types)} GPU types ({listed(f'`{t}`' for t in types)}), any of which the pods "
                         "may get")
                what = (f"the selector ({wanted}) names GPU `{observed[1]}`, which is not in shardwise's catalog"
                        if observed else
                        f"the selector ({wanted}) matches no GPU pool (pools: {known_pools}) and {named}")
                fix = (_LABEL_UNKNOWN if observed else _select(g) if not pools else
                       "; make the selector match one of those pools, or lint the manifest of the pool it names with "
                       "the rest")
        if fits_every_gpu(g):
            return
        flux = no_cluster(g.location.file, "GPU nodes and node pools")  # readers18: which facts are missing
        yield Hit(group_subject(g), f"{what}, {_CANNOT_SIZE}{fix}{flux}", g.at("nodeSelector", "affinity", "podSpec"),
                  tuple(g.suppressions), undecided=True)  # the capacity verdict is undecided
