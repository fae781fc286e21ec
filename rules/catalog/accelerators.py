"""The one vendor table: which extended resources request accelerators, and what each family is.

``data/accelerators.json`` holds one record per accelerator family (NVIDIA GPUs, AMD GPUs, Intel Gaudi,
Intel GPUs, Google TPUs, TPU7x, AWS Neuron, Huawei Ascend, Rebellions ATOM, FuriosaAI RNGD), each with
the public ``source`` its facts come from: the Kubernetes extended resources its device plugin
advertises and how many vLLM devices one unit of each holds (a range where the server decides: an
Ascend910 is one NPU on Atlas A2 and two dies on A3), whether collectives run NCCL (or its API, RCCL),
whether tensor parallelism may span hosts, whether vLLM's layout flags count the devices at all (the
Rebellions and Furiosa compilers place the model themselves), and the words that mark an image built for
it. Everything else that speaks of vendors (the resource a count is requested by, the non-NCCL vendors,
the catalog GPUs' resource) derives from it.

Any other ``<domain>/<name>`` resource a vLLM container requests is an accelerator of a family this
table does not know: :func:`family_known` is False and the rules that count devices are undecided.
"""

from __future__ import annotations

import functools
import marshal
import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._regex_code import dump_atomically, kept
from ..vllm.imageref import parse_image

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..model import ServingGroup

_DATA = os.path.join(os.path.dirname(__file__), "data", "accelerators.json")


@dataclass(frozen=True)
class Accelerator:
    """One accelerator family of the vendor table."""

    family: str  # "nvidia-gpu", "google-tpu-v7x", ...
    vendor: str  # "nvidia", "amd", "intel", "google", "aws", "huawei", "rebellions", "furiosa"
    title: str
    #: Extended resource -> (fewest, most) vLLM devices one unit of it holds.
    resources: dict[str, tuple[int, int]]
    resource_prefixes: dict[str, tuple[int, int]]
    architectures: tuple[str, ...]  # catalog GPU architectures of this family, where a resource has several
    memory: str
    interconnect: str
    nccl: bool  # collectives run NCCL (or RCCL, its API on ROCm): the NCCL fabric rules apply
    tp_across_hosts: bool
    layout_counts_devices: bool  # TP × PP × DP is the number of devices the pod needs
    image_markers: tuple[str, ...]  # words of an image's name or tag that mark a build for this family
    image_repositories: tuple[str, ...]  # repositories (or "org/" prefixes) that are builds for this family
    catalog_resource: str  # the resource one catalog GPU record of this vendor is one unit of
    source: str
    devices_why: str = ""  # why one unit of a resource may hold more than one device (or a range)
    dra_device_classes: tuple[str, ...] = ()  # DeviceClass (and DRA driver) names of dynamic resource allocation
    #: Resources (prefixes) whose units are time-sliced shares of a device, not devices: nvidia.com/gpu.shared.
    shared_resource_prefixes: tuple[str, ...] = ()
    runtime_classes: tuple[str, ...] = ()  # RuntimeClasses that show a container the devices without a request
    visible_devices_env: str = ""  # the variable that picks the devices such a container sees
    #: Words of product names whose devices have one memory with the CPU (GB10, Jetson).
    unified_memory_products: tuple[str, ...] = ()

    @property
    def request_resource(self) -> str:
        """The resource a count of this family's devices is requested by (the first of ``resources``)."""
        return next(iter(self.resources))

    def devices(self, resource: str) -> tuple[int, int] | None:
        if resource in self.resources:
            return self.resources[resource]
        for prefix, span in self.resource_prefixes.items():
            if resource.startswith(prefix):
                return span
        return None


def _span(raw: list[int]) -> tuple[int, int]:
    return int(raw[0]), int(raw[1])


#: The table as JSON gives it, kept beside this package's bytecode as a .pyc is: a one-file lint read it with
#: :mod:`json`, whose import was most of the cost (5.4M instructions). Used only while accelerators.json has the size
#: and modification time it had, with the same Python release; the records are made from it as from the JSON.
_DATA_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                           f"accelerators-table.{sys.implementation.cache_tag}.marshal")


def _data_stamp() -> tuple[int, str, int, int] | None:
    try:
        st = os.stat(_DATA)
    except OSError:
        return None
    return sys.hexversion, os.path.abspath(_DATA), st.st_size, st.st_mtime_ns


def _read_data() -> dict[str, Any]:
    """accelerators.json's content: from the cache when it matches the file, else parsed (and the cache written,
    unless bytecode writing is off)."""
    stamp = _data_stamp()
    try:
        with open(_DATA_CACHE, "rb") as fh:
            cached = marshal.loads(fh.read())
        if (isinstance(cached, tuple) and len(cached) == 2 and stamp is not None and cached[0] == stamp
                and isinstance(cached[1], dict)):
            return cached[1]
    except (OSError, EOFError, ValueError, TypeError):
        pass
    import json

    with open(_DATA, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    if stamp is not None and not sys.dont_write_bytecode:
        dump_atomically(_DATA_CACHE, (stamp, data))
    return data


@functools.cache
def _table() -> tuple[tuple[Accelerator, ...], tuple[str, ...]]:
    data = _read_data()
    out = []
    for raw in data["accelerators"]:
        resources = {str(k): _span(v) for k, v in raw["resources"].items()}
        out.append(Accelerator(
            family=raw["family"], vendor=raw["vendor"], title=raw["title"], resources=resources,
            resource_prefixes={str(k): _span(v) for k, v in raw.get("resource_prefixes", {}).items()},
            architectures=tuple(raw.get("architectures", ())), memory=raw["memory"],
            interconnect=raw["interconnect"], nccl=bool(raw["nccl"]), tp_across_hosts=bool(raw["tp_across_hosts"]),
            layout_counts_devices=bool(raw["layout_counts_devices"]),
            image_markers=tuple(raw.get("image_markers", ())),
            image_repositories=tuple(raw.get("image_repositories", ())),
            catalog_resource=raw.get("catalog_resource") or next(iter(resources)), source=raw["source"],
            devices_why=raw.get("devices_why", ""), dra_device_classes=tuple(raw.get("dra_device_classes", ())),
            shared_resource_prefixes=tuple(raw.get("shared_resource_prefixes", ())),
            runtime_classes=tuple(raw.get("runtime_classes", ())),
            visible_devices_env=raw.get("visible_devices_env", ""),
            unified_memory_products=tuple(raw.get("unified_memory_products", ())),
        ))
    return tuple(out), tuple(data["not_accelerators"])


def accelerators() -> tuple[Accelerator, ...]:
    """Every family of the table, in its order (NVIDIA first)."""
    return _table()[0]


@functools.cache
def families_of(resource: str) -> tuple[Accelerator, ...]:
    """The families whose device plugins advertise ``resource`` (two for google.com/tpu: v4–v6e and 7x)."""
    return tuple(a for a in accelerators() if a.devices(resource) is not None)


@functools.cache
def families_made_by(vendor: str) -> tuple[str, ...]:
    """The families (``Accelerator.family``) of one vendor: ``intel`` makes ``intel-gaudi`` and ``intel-gpu``."""
    return tuple(a.family for a in accelerators() if a.vendor == vendor)


@functools.lru_cache(maxsize=1024)
def vendor_of(resource: str | None) -> str | None:
    """Who makes the accelerators ``resource`` requests, None when the table does not know it."""
    if not resource:
        return None
    vendors = {a.vendor for a in families_of(resource)}
    return next(iter(vendors)) if len(vendors) == 1 else None


def group_vendor(g: ServingGroup) -> str | None:
    """Who makes the accelerators a group's pods request ("nvidia", "amd", "google", "intel", "aws", "huawei",
    ...), or its pool's when the pods request none; None when neither says."""
    if g.accelerator_resource:
        return vendor_of(g.accelerator_resource)
    return g.pool.accelerator if g.pool is not None else None


#: Vendors whose vLLM memory profile the capacity model's estimates follow: CUDA's and ROCm's workers (a smaller
#: layout's reserve is judged sure only on them, capacity/layout.py; SW203's weight loaders are theirs).
SIZED_VENDORS = frozenset({"nvidia", "amd"})

#: What vLLM's plugin for a family the capacity model does not follow sizes its own way (mend12, review34); another
#: family's: :data:`_OTHER_TERMS`.
_OWN_TERMS = {
    "huawei-ascend": "vllm-ascend's graph mode, its HCCL buffers and its own gpu_memory_utilization handling",
    "intel-gaudi": "vllm-gaudi's HPU graphs, its warm-up buckets and its own memory profiling",
    "aws-neuron": "the Neuron compiler's own placement of weights, KV cache and buffers",
}
_OTHER_TERMS = "its own graph capture, collective buffers and memory profiling"


def sized_as_cuda(g: ServingGroup) -> tuple[str, bool] | None:
    """Why the capacity model's estimate for the group's accelerator follows another's memory profile, in words, and
    whether that leaves every memory verdict unsure (True) or only a verdict that the model fits in less (False); None
    where the estimate follows the accelerator's own (a CUDA or ROCm GPU).

    An Ascend, Gaudi, Neuron or TPU device is sized with the terms of vLLM's CUDA worker (CUDA graphs, NCCL buffers,
    its profiling of the activation peak), which its plugin replaces by its own, larger or smaller: no verdict is
    sure. An AMD GPU the catalog does not know (its memory from the pool's labels) is sized without ROCm's terms, each
    of which only adds (``rocm_extra_gib``, the 3 GiB KV margin, the wider error band): that it does not fit stays
    sure, that it fits in fewer GPUs does not. The vendor is the one of the resource the pods request, else the
    pool's (:func:`group_vendor`)."""
    gpu = g.gpu_override if g.gpu_override is not None else (g.pool.gpu if g.pool is not None else None)
    sized = (vendor_of(gpu.k8s_resource) or gpu.vendor) if gpu is not None else "nvidia"  # a GPU known by its memory
    vendor = group_vendor(g) or sized
    if vendor not in SIZED_VENDORS:
        fams = families_of(g.accelerator_resource) if g.accelerator_resource else ()
        title = fams[0].title if fams else vendor
        terms = _OWN_TERMS.get(fams[0].family, _OTHER_TERMS) if fams else _OTHER_TERMS
        return (f"sized as if on a CUDA GPU: vLLM runs on {title} through its own plugin, whose memory terms "
                f"({terms}) the capacity model does not follow"), True
    if vendor != sized:
        return ("sized as if on a CUDA GPU: the catalog does not know this AMD GPU (its memory is the pool's label), "
                "so ROCm's terms, which only add, were not applied; name a catalog GPU in the pool's labels"), False
    return None


#: What one device of a family that is no GPU is called (the table's titles: Huawei Ascend, Rebellions ATOM and
#: FuriosaAI RNGD are NPUs, Intel Gaudi an HPU, Google's a TPU, AWS Trainium and Inferentia Neuron devices); every other
#: is a GPU.
_DEVICE_WORD = {"huawei": "NPU", "rebellions": "NPU", "furiosa": "NPU", "google": "TPU", "aws": "Neuron device"}


def device_word(g: ServingGroup, rank: bool = False) -> str:
    """What the group's accelerators are called, in a word: "GPU", or the family's own ("NPU" for
    huawei.com/Ascend910, "HPU" for Gaudi). ``rank``: the unit vLLM's layout counts (TP × PP) rather than the unit
    the pods request, which differ on AWS Neuron: tensor parallelism counts NeuronCores, the device plugin hands out
    Neuron devices (mend2, mend6: SW206's and SW106's messages said "GPU" on an Ascend pool)."""
    if g.accelerator_resource and any(a.family == "intel-gaudi" for a in families_of(g.accelerator_resource)):
        return "HPU"
    if not g.accelerator_resource and g.pool is not None and g.pool.accelerator_families == ("intel-gaudi",):
        return "HPU"  # mend24: pods that request none on a Gaudi pool (a privileged container sees its HPUs)
    vendor = group_vendor(g) or ""
    if rank and vendor == "aws":
        return "NeuronCore"
    return _DEVICE_WORD.get(vendor, "GPU")


def family_known(resource: str) -> bool:
    return bool(families_of(resource))


@functools.cache
def resource_names() -> tuple[str, ...]:
    """The exact resource names of the table, in its order: the first a pod or node carries wins."""
    seen: dict[str, None] = {}
    for a in accelerators():
        for name in a.resources:
            seen.setdefault(name, None)
    return tuple(seen)


def vendor_resources() -> dict[str, str]:
    """Vendor -> the resource a count of its devices is requested by (its first family's first resource)."""
    out: dict[str, str] = {}
    for a in accelerators():
        out.setdefault(a.vendor, a.request_resource)
    return out


def catalog_resources() -> dict[str, str]:
    """Vendor -> the resource one catalog GPU record of it is one unit of (aws.amazon.com/neuron: a device)."""
    out: dict[str, str] = {}
    for a in accelerators():
        out.setdefault(a.vendor, a.catalog_resource)
    return out


@functools.cache
def non_nccl_vendors() -> frozenset[str]:
    """Vendors none of whose families run NCCL: the NVIDIA fabric rules do not speak about them."""
    vendors = {a.vendor for a in accelerators()}
    return frozenset(v for v in vendors if not any(a.nccl for a in accelerators() if a.vendor == v))


def devices_per_unit(resource: str, architecture: str | None = None) -> tuple[int, int] | None:
    """(fewest, most) vLLM devices one unit of ``resource`` holds; the catalog architecture of the node
    (``tpu-v7x``) picks among families that share the resource. None when the table does not know it."""
    fams = families_of(resource)
    if architecture:
        picked = [a for a in fams if architecture in a.architectures]
        if picked:
            fams = tuple(picked)
    spans = [a.devices(resource) for a in fams]
    known = [s for s in spans if s is not None]
    if not known:
        return None
    return min(s[0] for s in known), max(s[1] for s in known)


def layout_counts_devices(resource: str) -> bool:
    """Whether TP × PP × DP is the number of units of ``resource`` vLLM needs (False for compilers that
    place the model over devices themselves, and for resources the table does not know)."""
    fams = families_of(resource)
    return bool(fams) and all(a.layout_counts_devices for a in fams)


def family_of_device_class(name: str) -> Accelerator | None:
    """The family whose DRA driver a DeviceClass name (or a driver name) is: ``gpu.nvidia.com`` is NVIDIA's."""
    return next((a for a in accelerators() if name in a.dra_device_classes), None)


def shared_resource(resource: str | None) -> bool:
    """Whether a unit of ``resource`` is a time-sliced share of a device (``nvidia.com/gpu.shared``)."""
    return bool(resource) and any(resource.startswith(p)  # type: ignore[union-attr]
                                  for a in accelerators() for p in a.shared_resource_prefixes)


_MIG = re.compile(r"^nvidia\.com/mig-(\d+)g\.(\d+)gb(?:[.+]me)?$")


def mig_profile(resource: str | None) -> tuple[int, int] | None:
    """(compute slices, memory in GB) of a MIG device resource, ``nvidia.com/mig-3g.40gb`` -> (3, 40): NVIDIA's
    profile names state the memory of the slice (MIG user guide, "Supported MIG Profiles")."""
    m = _MIG.match(resource or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


#: The DeviceClasses whose devices are MIG devices (NVIDIA/k8s-dra-driver-gpu: ``mig.nvidia.com``).
MIG_DEVICE_CLASSES = frozenset({"mig.nvidia.com"})

#: A CEL selector's test of the MIG profile NVIDIA's DRA driver publishes for each MIG device (the attribute
#: ``profile`` of driver ``gpu.nvidia.com``, cmd/gpu-kubelet-plugin/deviceinfo.go ``MigDeviceInfo.GetDevice``;
#: demo/specs/quickstart gpu-test4: ``device.attributes['gpu.nvidia.com'].profile == '1g.5gb'``), either way round.
_CEL_PROFILE = re.compile(
    r"""device\.attributes\[\s*["']gpu\.nvidia\.com["']\s*\]\s*(?:\.\s*profile|\[\s*["']profile["']\s*\])\s*==\s*"""
    r"""["'](\d+g\.\d+gb)["']"""
    r"""|["'](\d+g\.\d+gb)["']\s*==\s*device\.attributes\[\s*["']gpu\.nvidia\.com["']\s*\]\s*"""
    r"""(?:\.\s*profile|\[\s*["']profile["']\s*\])""")


def cel_mig_profile(expression: str) -> str | None:
    """The MIG profile a DRA selector's CEL expression requires a device to have (``1g.10gb``), or None where it
    names none, or where it names more than one (``... || ...``: the device is one of them, which is not known)."""
    found = {(a or b).lower() for a, b in _CEL_PROFILE.findall(expression or "")}
    return next(iter(found)) if len(found) == 1 and "||" not in expression else None


def mig_profile_name(resource: str | None) -> str | None:
    """The MIG profile a MIG device resource names, without its media-extension mark: ``nvidia.com/mig-1g.10gb.me``
    -> ``1g.10gb``; None for any other resource."""
    profile = mig_profile(resource)
    return f"{profile[0]}g.{profile[1]}gb" if profile is not None else None


@functools.cache
def _mig_table() -> dict[str, dict[str, int]]:
    raw = _read_data().get("mig_profiles", {}).get("gpus", {})
    return {str(gpu): {str(p): int(n) for p, n in profiles.items()} for gpu, profiles in raw.items()}


def mig_memory_eighths(gpu: str, profile: str) -> int | None:
    """The eighths of ``gpu``'s memory one MIG slice of ``profile`` holds (``A100-80GB``, ``3g.40gb`` -> 4), from the
    table of NVIDIA's MIG user guide (accelerators.json ``mig_profiles``); None where that table does not list the
    profile for the GPU (the slice's size is not known)."""
    return _mig_table().get(gpu, {}).get(profile)


@functools.cache
def _listed_gib() -> dict[str, dict[str, float]]:
    raw = _read_data().get("mig_profiles", {}).get("listed_gib", {})
    return {str(gpu): {str(p): float(v) for p, v in profiles.items()} for gpu, profiles in raw.items()}


def mig_listed_gib(gpu: str, profile: str) -> float | None:
    """The GiB of one GPU instance of ``profile`` on ``gpu`` that a public ``nvidia-smi mig -lgip`` lists
    (accelerators.json ``mig_profiles.listed_gib``, mig21), or None where no listing of that row is known."""
    return _listed_gib().get(gpu, {}).get(profile)


def mig_profiles_of(gpu: str) -> tuple[str, ...]:
    """The MIG profiles the table lists for a catalog GPU, in its order (empty: none known)."""
    return tuple(_mig_table().get(gpu, {}))


#: GPU Feature Discovery's MIG strategy label: ``single`` makes ``nvidia.com/gpu`` count MIG devices.
MIG_STRATEGY = "nvidia.com/mig.strategy"
GPU_PRODUCT_LABELS = ("nvidia.com/gpu.product", "shardwise.dev/gpu-product", "karpenter.k8s.aws/instance-gpu-name")
#: GPU Feature Discovery's product label (the first of GPU_PRODUCT_LABELS; rules.model.vocab.GFD_PRODUCT).
_GFD_PRODUCT = GPU_PRODUCT_LABELS[0]
_PRODUCT_MIG = re.compile(r"-mig-(\d+g\.\d+gb)", re.IGNORECASE)


def mig_label(key: str, value: str) -> bool:
    """Whether a node label may say the node's ``nvidia.com/gpu`` are MIG devices: GPU Feature Discovery's
    ``nvidia.com/mig.strategy=single`` (:func:`mig_strategy_label`), or a product it names under that strategy
    (:func:`mig_product_label`). Only the product makes it sure; this is for the readers that must not count on whole
    devices where it may be so."""
    return mig_product_label(key, value) or mig_strategy_label(key, value)


def mig_product_label(key: str, value: str) -> bool:
    """Whether a node label says the node's ``nvidia.com/gpu`` are MIG devices: a product GPU Feature Discovery names
    under MIG's single strategy on a node whose GPUs have MIG enabled (``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``;
    NVIDIA/gpu-feature-discovery README, "MIG 'single' strategy")."""
    return key in GPU_PRODUCT_LABELS and "-mig-" in value.strip().lower()


def mig_strategy_label(key: str, value: str) -> bool:
    """Whether a node label is GPU Feature Discovery's ``nvidia.com/mig.strategy=single``. That makes no GPU a MIG
    device: GFD writes it on every node of a plugin configured with the single strategy, MIG-enabled or not
    (NVIDIA/k8s-device-plugin internal/lm/mig-strategy.go, ``newMigLabeler`` merges ``migStrategyLabeler`` whatever the
    devices; its test "single non-mig device returns non-mig (none) labels" expects it beside a whole GPU's product),
    and the GPU operator's default is that strategy with MIG disabled (deployments/gpu-operator/values.yaml:
    ``mig.strategy: single``, ``migManager.config.default: all-disabled``)."""
    return key == MIG_STRATEGY and value.strip().lower() == "single"


def _required_labels(g: ServingGroup) -> list[tuple[str, str]]:
    """The labels every node the group's pods may land on has: its node selector's and its pool's."""
    fixed: list[tuple[str, str]] = []
    if isinstance(g.node_selector, dict):
        fixed += [(k, v) for k, v in g.node_selector.items() if isinstance(v, str)]
    if g.pool is not None:
        fixed += list(g.pool.labels.items())
    return fixed


def _every_node(g: ServingGroup, says: Callable[[str, str], bool]) -> str | None:
    """The label (``key=value``, or ``key In values``) by which every node the group's pods may land on has a label
    ``says`` holds of: the node selector or the pool's labels name it, or each term of the required node affinity has
    an ``In`` on such a label whose values all do. None where the inputs do not make that sure."""
    for key, value in _required_labels(g):
        if says(key, value):
            return f"{key}={value}"
    found: list[str] = []
    for term in g.affinity:
        expr = next((e for e in term if e.operator == "In" and e.values
                     and all(says(e.key, v) for v in e.values)), None)
        if expr is None:
            return None
        found.append(f"{expr.key} In {', '.join(expr.values)}")
    return found[0] if found else None


def single_strategy_label(g: ServingGroup) -> str | None:
    """The label by which every node the group's pods may land on has MIG devices as its ``nvidia.com/gpu`` (GPU
    Feature Discovery's product with a MIG profile after it, MIG's single strategy), or None where the inputs do not
    make that sure. ``nvidia.com/mig.strategy=single`` alone does not (:func:`single_strategy_unsure`)."""
    return _every_node(g, mig_product_label)


def single_strategy_unsure(g: ServingGroup) -> str | None:
    """The ``nvidia.com/mig.strategy=single`` label every node the group's pods may land on has, where no label they
    require says whether its GPUs have MIG enabled: GFD writes the strategy on MIG-disabled nodes too
    (:func:`mig_strategy_label`), so their ``nvidia.com/gpu`` may be MIG devices or whole GPUs. None where the strategy
    is not required, or where a product label decides it: GFD's ``nvidia.com/gpu.product`` names the MIG profile under
    the single strategy where MIG is enabled (:func:`single_strategy_label`), so without one it names a whole GPU."""
    if single_strategy_label(g) is not None:
        return None
    label = _every_node(g, mig_strategy_label)
    if label is None or _every_node(g, lambda k, _v: k == _GFD_PRODUCT) is not None:
        return None
    return label


def single_strategy_profile(g: ServingGroup) -> str | None:
    """The MIG profile a required GPU Feature Discovery product label names under the single strategy
    (``NVIDIA-A100-SXM4-80GB-MIG-3g.40gb`` -> ``3g.40gb``), None where none does."""
    for key, value in _required_labels(g):
        m = _PRODUCT_MIG.search(value) if key in GPU_PRODUCT_LABELS else None
        if m:
            return m.group(1).lower()
    return None


@dataclass(frozen=True)
class DeviceAnnotation:
    """A pod annotation by which an admission webhook or a scheduler gives the pod accelerators its resources do
    not request (``composite.dra/gpu-nic-pairs: "8"``, KAI's ``gpu-fraction: "0.5"``): the table's
    ``device_annotations``."""

    annotation: str
    counts: str  # "count": the value's leading integer is the device count; "fraction": a share of devices;
    # "profile": the value names an object (a HardwareProfile) whose count is not in the annotation
    by: str  # who reads it, for a message
    source: str
    count_annotation: str = ""  # for a fraction: the annotation that gives how many devices it spans (else one)
    kinds: tuple[str, ...] = ()  # the workload kinds the component acts on; empty: any pod


@functools.cache
def device_annotations() -> tuple[DeviceAnnotation, ...]:
    """The pod annotations that ask for accelerators at admission, in the table's order."""
    return tuple(DeviceAnnotation(str(r["annotation"]), str(r["counts"]), str(r["by"]), str(r["source"]),
                                  str(r.get("count_annotation", "")), tuple(str(k) for k in r.get("kinds", ())))
                 for r in _read_data().get("device_annotations", ()))


def runtime_visibility(runtime_class: str | None) -> bool:
    """Whether a RuntimeClass shows a container the node's devices without a request (``nvidia``)."""
    return bool(runtime_class) and any(runtime_class in a.runtime_classes for a in accelerators())


#: Values of a visible-devices variable that give the container no device at all (the NVIDIA container toolkit's
#: ``void`` and ``none``, and an empty value): they hide devices, they show none beyond the request.
HIDES_EVERY_DEVICE = frozenset({"", "void", "none"})


@functools.cache
def visible_devices_envs() -> tuple[str, ...]:
    """The variables that pick the devices a container sees without a request (NVIDIA_VISIBLE_DEVICES)."""
    return tuple(a.visible_devices_env for a in accelerators() if a.visible_devices_env)


@functools.lru_cache(maxsize=1024)
def unified_memory_product(name: str | None) -> bool:
    """Whether a product name (a GPU Feature Discovery label, a catalog GPU) is a device whose memory is the
    system's, shared with the CPU (NVIDIA GB10, Jetson)."""
    words = " ".join(re.findall(r"[a-z0-9]+", (name or "").lower()))
    return any(kept(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])").search(words)
               for a in accelerators() for w in a.unified_memory_products)


@functools.lru_cache(maxsize=1024)
def is_extended_resource(name: str) -> bool:
    """Whether a resource name is an extended resource that may be an accelerator: ``<domain>/<name>``
    outside kubernetes.io and the network, storage and security devices the table lists."""
    if "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io"):
        return False
    return not any(name == x or (x.endswith("/") and name.startswith(x)) for x in _table()[1])


_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _repository(image: str) -> str:
    return parse_image(image.lower()).qualified


def _marked(text: str, marker: str) -> bool:
    """``marker`` as a word of ``text``, a version may follow it (``rocm6.4``, ``cuda12.8``, ``gaudi3``)."""
    return kept(rf"(?<![a-z0-9]){re.escape(marker)}(?![a-z])").search(text) is not None  # a table's marker


@functools.lru_cache(maxsize=1024)
def image_families(image: str) -> tuple[Accelerator, ...]:
    """The families an image is a build for, read from the words of its repository's own name and tag
    (``rocm``, ``gaudi``, ``tpu``, ``neuronx``, ``xpu``, ``rbln``) and from repositories that are one
    family's build (``rocm/vllm``, ``vllm/vllm-openai`` for CUDA). Words and organisations win over a
    repository's default, so ``vllm/vllm-openai:v0.9.0-rocm`` is ROCm. Empty when nothing says.

    A mirror keeps the upstream path after a prefix of its own (an ECR pull-through cache of Docker Hub,
    ``ACCOUNT.dkr.ecr.REGION.amazonaws.com/docker-hub/vllm/vllm-openai``; a Harbor proxy project), so a repository
    that ends in ``/`` + one of those repositories, or holds a Docker Hub organisation's segment (``…/rocm/vllm``),
    is that build too (review18: the CUDA image so mirrored was read as a team's own, a CPU build on an m7i)."""
    own = parse_image(image.lower()).name_and_tag  # a registry path like cpu-team/ says nothing
    repo = _repository(image)
    marked = tuple(a for a in accelerators()
                   if any(_marked(own, m) for m in a.image_markers)
                   or any(r.endswith("/") and (repo.startswith(r) or (_hub_org(r) and f"/{r}" in repo))
                          for r in a.image_repositories))
    if marked:
        return marked
    return tuple(a for a in accelerators()
                 if repo in a.image_repositories
                 or any(not r.endswith("/") and repo.endswith(f"/{r}") for r in a.image_repositories))


def _hub_org(prefix: str) -> bool:
    """Whether an ``image_repositories`` prefix is a Docker Hub organisation (``rocm/``), not a registry's path
    (``nvcr.io/nvidia/``): one segment, no host."""
    return prefix.count("/") == 1 and "." not in prefix and ":" not in prefix
