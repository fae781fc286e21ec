"""Who owns a group's GPUs: what the manifests declare about sharing them (SW105, SW204, SW208).

The rules that speak of whole GPUs (memory left unused, GPUs reserved and idle, a request short of the layout)
hold only where the pod owns its GPUs. What the inputs may declare instead, each a fact of the vendor table
(``rules/catalog/data/accelerators.json``, the NVIDIA record's ``sharing_note`` gives the sources):

- **time-slicing or MPS**: the pod requests a share (``nvidia.com/gpu.shared``, a renamed ``nvidia.com/gpu.*``),
  or its node selector, node affinity or node pool carries GPU Feature Discovery's sharing labels
  (``nvidia.com/gpu.replicas`` above 1, ``nvidia.com/gpu.sharing-strategy`` other than ``none``, a product
  ending in ``-SHARED``), or the inputs hold the device plugin's configuration (a ConfigMap the GPU operator's
  ``devicePlugin.config`` or the plugin chart's ``config.map`` names) that time-slices or MPS-shares
  ``nvidia.com/gpu`` on the nodes the pod lands on: the configuration its ``nvidia.com/device-plugin.config``
  node label selects, or, with no such label, every configuration of the ConfigMap (a cluster-wide default):
  other pods run on the same GPU;
- **a MIG slice** (``nvidia.com/mig-3g.40gb``): the pod owns a slice of the stated memory, not the card;
- **GPUs seen without a request**: ``runtimeClassName: nvidia``, ``NVIDIA_VISIBLE_DEVICES`` or a privileged
  container (which has every device of the node: a ROCm pod mounting ``/dev/kfd`` and ``/dev/dri``) and no
  request, so the container sees the node's GPUs outside the scheduler's count, and anything else may use them too;
- **a shared resource claim**: the pod names a ResourceClaim (not a template), which every pod naming it
  shares (dynamic resource allocation);
- **unified memory**: a GB10 (DGX Spark) or Jetson device, whose memory is the system's, shared with the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..capacity.group import per_group, single_strategy_label, single_strategy_unsure
from ..catalog.accelerators import (
    GPU_PRODUCT_LABELS,
    HIDES_EVERY_DEVICE,
    MIG_DEVICE_CLASSES,
    mig_profile,
    runtime_visibility,
    shared_resource,
    unified_memory_product,
    visible_devices_envs,
)
from ..model import UNKNOWN, ConfigMap, Container, Inventory, ServingGroup
from ..model.vocab import GPU_RESOURCE

Kind = Literal["time-slicing", "mig", "no-request", "shared-claim", "unified-memory"]

_REPLICAS = "nvidia.com/gpu.replicas"
_STRATEGY = "nvidia.com/gpu.sharing-strategy"
#: The node label that picks one of the device plugin's named configurations (GPU operator, "Time-Slicing GPUs in
#: Kubernetes"; the plugin's config-manager reads it on each node).
PLUGIN_CONFIG = "nvidia.com/device-plugin.config"


@dataclass(frozen=True)
class Sharing:
    """How the group's GPUs are shared, as the inputs declare it."""

    kind: Kind
    how: str  # "time-sliced shares (nvidia.com/gpu.shared)", for a message
    memory_gb: int | None = None  # a MIG slice's memory
    via: str = ""  # what shows a container GPUs without a request: "runtimeClassName nvidia"

    @property
    def shared(self) -> bool:
        """Whether other workloads may use the same GPU memory (not a MIG slice, which the pod owns)."""
        return self.kind != "mig"


def _main(g: ServingGroup) -> Container | None:
    return g.main_container


def _visible(c: Container) -> str | None:
    """``NVIDIA_VISIBLE_DEVICES=all`` as written, when a variable shows the container devices."""
    for name in visible_devices_envs():
        value = c.env.get(name)
        if isinstance(value, str) and value.strip().lower() not in HIDES_EVERY_DEVICE:
            return f"{name}={value.strip()}"
    return None


def placement_labels(g: ServingGroup) -> tuple[tuple[str, str], ...]:
    """The node labels the group's pods are placed by: its node selector, node affinity and pool's labels (read once
    per group: SW201's whole-device check and :func:`gpu_sharing`, which four rules ask, read them)."""
    return per_group(g, "placement_labels", _placement_labels)


def _placement_labels(g: ServingGroup) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    if isinstance(g.node_selector, dict):
        out += [(k, v) for k, v in g.node_selector.items() if isinstance(v, str)]
    for term in g.affinity:
        for e in term:
            if e.operator == "In":
                out += [(e.key, v) for v in e.values]
            elif e.operator in ("Exists", "Gt"):
                out.append((e.key, e.values[0] if e.values else ""))
    if g.pool is not None:
        out += list(g.pool.labels.items())
    return tuple(out)


def mig_devices(g: ServingGroup, claim_classes: tuple[str, ...] = ()) -> str | None:
    """How the group's vLLM container gets MIG devices, for a message (``MIG devices (nvidia.com/mig-3g.47gb)``), or
    None where the inputs do not make it sure that it does: a MIG resource of the device plugin's mixed strategy,
    ``nvidia.com/gpu`` on nodes of its single strategy (``catalog.accelerators.single_strategy_label``), or devices
    by resource claims of a MIG DeviceClass (``claim_classes``: every claim's class, from the inputs).
    ``nvidia.com/gpu`` where the strategy is not known is a whole GPU, as the device plugin's default (``none``)
    makes it."""
    c = _main(g)
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None)
    if mig_profile(resource) is not None:
        return f"MIG devices ({resource})"
    if c is not None and c.resource_claims:
        if claim_classes and all(k in MIG_DEVICE_CLASSES for k in claim_classes):
            return f"MIG devices (resource claims of DeviceClass {claim_classes[0]})"
        return None
    if resource in (None, GPU_RESOURCE):
        label = single_strategy_label(g)
        if label is not None:
            return f"MIG devices (nvidia.com/gpu on nodes of MIG's single strategy, {label})"
    return None


def mig_devices_unsure(g: ServingGroup) -> str | None:
    """The ``nvidia.com/mig.strategy=single`` label of the nodes the group's ``nvidia.com/gpu`` pods land on, where no
    label says whether their GPUs have MIG enabled (``catalog.accelerators.single_strategy_unsure``): its devices may
    be MIG devices or whole GPUs. None where :func:`mig_devices` decides, or nothing suggests MIG."""
    c = _main(g)
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None)
    if mig_profile(resource) is not None or (c is not None and c.resource_claims):
        return None
    if resource not in (None, GPU_RESOURCE):
        return None
    return single_strategy_unsure(g)




def _time_slicing_label(labels: tuple[tuple[str, str], ...]) -> str | None:
    for key, value in labels:
        v = value.strip().lower()
        if key == _REPLICAS:
            try:
                if int(v) > 1:
                    return f"{key}={value}"
            except ValueError:
                if v == "":
                    return key  # an Exists term: placed on nodes that share their GPUs
        elif key == _STRATEGY and v not in ("none",):
            return f"{key}={value}" if v else key
        elif key in GPU_PRODUCT_LABELS and v.endswith("-shared"):
            return f"{key}={value}"
    return None


def _unified(g: ServingGroup, labels: tuple[tuple[str, str], ...]) -> str | None:
    for key, value in labels:
        if key in GPU_PRODUCT_LABELS and unified_memory_product(value):
            return value
    gpu = g.gpu_override or (g.pool.gpu if g.pool is not None else None)
    if gpu is not None and unified_memory_product(gpu.name):
        return gpu.name
    return None


def _plugin_config_maps(inv: Inventory) -> list[ConfigMap]:
    """The ConfigMaps of ``inv`` that hold a device plugin configuration, in input order: an index built once per
    inventory (and again when ConfigMaps were added), so that a run whose inputs hold none asks nothing more of each
    group."""
    index = inv.index.get("device_plugin_config_maps")
    if index is None or index[0] != len(inv.config_maps):
        index = (len(inv.config_maps), [cm for cm in inv.config_maps if cm.device_plugin and cm.kind == "ConfigMap"])
        inv.index["device_plugin_config_maps"] = index
    return index[1]  # type: ignore[no-any-return]


def _configured(g: ServingGroup, inv: Inventory) -> str | None:
    """The device plugin configuration of the inputs that shares ``nvidia.com/gpu`` on the group's nodes, as a
    message's words, or None. A node label ``nvidia.com/device-plugin.config`` among the group's placement picks
    that key; with none, a ConfigMap counts only where every configuration it holds shares the GPU (whichever the
    cluster's default is, or any node's label, the GPU is shared)."""
    configs = _plugin_config_maps(inv)
    if not configs:
        return None
    configs = [cm for cm in configs if inv.same_unit(cm.location.file, g.location.file)]
    labels = placement_labels(g)
    picked = [v.strip() for k, v in labels if k == PLUGIN_CONFIG and v.strip()]
    for cm in configs:
        if picked:
            keys = [k for k in picked if k in cm.device_plugin]
        elif all(cm.device_plugin.values()):
            keys = list(cm.device_plugin)
        else:
            continue
        for key in keys:
            share = cm.device_plugin[key]
            if share is not None:
                strategy, replicas = share
                what = "time-sliced" if strategy == "time-slicing" else "MPS"
                return (f"{what} shares of a GPU, {replicas} a GPU by the device plugin's configuration `{key}` "
                        f"in ConfigMap {cm.namespace}/{cm.name}")
    return None


def gpu_sharing(g: ServingGroup, inv: Inventory | None = None) -> Sharing | None:
    """How the group's GPUs are shared, or None when the inputs declare no sharing (whole GPUs, as far as they
    say). The first of: a MIG slice, a time-sliced share, GPUs seen without a request, a shared claim, unified
    memory, time-slicing labels, the device plugin's configuration in ``inv``. What the group itself declares is
    read once per group (SW105, SW201, SW204 and SW208 ask); the configuration, of the inventory, per call."""
    declared, plugin = per_group(g, "gpu_sharing", _declared)
    if declared is None and plugin and inv is not None:
        configured = _configured(g, inv)
        if configured is not None:
            return Sharing("time-slicing", configured)
    return declared


def _declared(g: ServingGroup) -> tuple[Sharing | None, bool]:
    """What the group declares of :func:`gpu_sharing`, and whether the device plugin's configuration may share
    its GPUs where it declares nothing (it requests ``nvidia.com/gpu``, or no named resource)."""
    c = _main(g)
    resource = g.accelerator_resource or (c.accelerator_resource if c is not None else None)
    profile = mig_profile(resource)
    if profile is not None:
        return Sharing("mig", f"a MIG slice ({resource}, {profile[1]} GB)", profile[1]), False
    if shared_resource(resource):
        return Sharing("time-slicing", f"time-sliced shares of a GPU ({resource})"), False
    gpus: Any = g.gpus_per_pod
    requested = gpus is UNKNOWN or (isinstance(gpus, int) and gpus > 0) or bool(c is not None and c.resource_claims)
    if c is not None and not requested:
        seen = _visible(c)
        runtime = c.runtime_class if isinstance(c.runtime_class, str) else None
        privileged = "privileged: true (every device of the node)" if c.security.privileged is True else None
        if seen or runtime_visibility(runtime) or privileged:
            via = " and ".join(x for x in (f"runtimeClassName {runtime}" if runtime_visibility(runtime) else None,
                                           seen, privileged) if x)
            return Sharing("no-request", f"GPUs seen without a request ({via})", via=via), False
    if c is not None and c.resource_claims:
        shared = [n for n in c.resource_claims if c.claim_refs.get(n, ("", None))[0] == "ResourceClaim"]
        if shared:
            return Sharing("shared-claim", f"the resource claim `{shared[0]}`, which every pod naming it shares"), False
    labels = placement_labels(g)
    product = _unified(g, labels)
    if product is not None:
        return Sharing("unified-memory", f"unified memory ({product}: the GPU's memory is the system's)"), False
    label = _time_slicing_label(labels)
    if label is not None and (resource in (None, GPU_RESOURCE)):
        return Sharing("time-slicing", f"a time-sliced GPU ({label})"), False
    return None, resource in (None, GPU_RESOURCE)
