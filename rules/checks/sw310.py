"""SW310: GPU visibility set by hand (NVIDIA_VISIBLE_DEVICES, CUDA/HIP/ROCR/HABANA_VISIBLE_DEVICES) in a vLLM pod."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..capacity.group import layout
from ..capacity.layout import plural
from ..catalog.accelerators import HIDES_EVERY_DEVICE
from ..engine import DECIDED_AT_UP, GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, UNRESOLVED, Container, Inventory, Location, ServingGroup, Undecidable, UnknownEnv
from ..vllm.args import script_assignments
from ._env import env_location, env_value, vllm_containers
from ._layout import cpu_setting_on_accelerator_image, runs_on_cpu
from ._net import ami_family
from ._unseen import unseen_hits

NVIDIA = "NVIDIA_VISIBLE_DEVICES"
CUDA = "CUDA_VISIBLE_DEVICES"
#: Variables that choose among the devices a container was given, numbered from 0 inside it (CUDA, ROCm, Gaudi).
RENUMBERING = (CUDA, "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HABANA_VISIBLE_DEVICES")


class GpuVisibilitySetByHand(GroupRule):
    meta = RuleMeta(
        code="SW310",
        name="gpu-visibility-set-by-hand",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM pod sets NVIDIA_VISIBLE_DEVICES by hand, overriding the GPUs the device plugin gave it "
            "(mandatory), or CUDA_VISIBLE_DEVICES (HIP_, ROCR_, HABANA_VISIBLE_DEVICES), which renumbers or hides "
            "them (advisory; mandatory when it shows fewer devices than the layout needs)."
        ),
        why=(
            "The NVIDIA device plugin tells the container runtime which GPUs a container was allocated. With the "
            "NVIDIA container toolkit's default settings a NVIDIA_VISIBLE_DEVICES written in the pod spec wins "
            "(the CUDA base images even set it to all): the container sees GPUs that the scheduler gave to "
            "other pods, or every GPU of a node it requested none on, and two servers then fill the same "
            "memory. That default (accept-nvidia-visible-devices-envvar-when-unprivileged true) is what the toolkit "
            "and the GPU Operator ship; Bottlerocket's NVIDIA variants ship it false, so on a node group whose "
            "amiType is Bottlerocket the override is advisory. CUDA_VISIBLE_DEVICES cannot escape the allocation, "
            "but inside the container GPUs are "
            "numbered from 0, so a list written for the node (4,5,6,7) or shorter than the layout hides the "
            "GPUs vLLM was given: the runtime stops at the first index that does not exist, and with fewer "
            "devices than tensor_parallel_size × pipeline_parallel_size vLLM cannot start. A list of exactly the "
            "devices the container was given (0 to n-1, or all) is harmless and not reported, nor is "
            "NVIDIA_VISIBLE_DEVICES=0,…,n-1 on a pod that holds every GPU of its node. An `export` in the "
            "container's shell script counts like env, and so does a ConfigMap of the inputs that envFrom names; "
            "what a Secret or a ConfigMap that is not in the inputs could hold is not guessed. A value from a "
            "Secret or the downward API (valueFrom) is reported as an advisory note. A pod that is not known yet "
            "at preview (its template, containers or command line a computed value) is \"cannot decide\", "
            "mandatory."
        ),
        bad_example=(
            "env:\n"
            "  - {name: NVIDIA_VISIBLE_DEVICES, value: all}\n"
            "  - {name: CUDA_VISIBLE_DEVICES, value: '4,5,6,7'}"
        ),
        good_example="resources:\n  limits:\n    nvidia.com/gpu: 4   # the device plugin picks the GPUs",
        remediation=(
            "Remove NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES from serving pods and request GPUs with "
            "nvidia.com/gpu. On shared nodes also set the device plugin's device-list strategy to volume-mounts "
            "and the toolkit's accept-nvidia-visible-devices-envvar-when-unprivileged to false, so no pod can "
            "claim GPUs through its environment."
        ),
        references=(
            "https://github.com/NVIDIA/k8s-device-plugin#deployment-via-helm",
            "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
            "https://bottlerocket.dev/en/os/1.54.x/api/settings/nvidia-container-runtime/",
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
        ),
        scope="resource",
        mandatory_when=("for NVIDIA_VISIBLE_DEVICES, which overrides the device plugin's allocation, and for a "
                        "list that shows fewer devices than the layout needs"),
        applies_to_plans=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            yield from unseen_hits(inv, f"whether its containers set {NVIDIA}", level="mandatory")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        vllm = vllm_containers(g)
        for c in g.containers:
            yield from self._container(inv, g, c, c in vllm)

    def _container(self, inv: Inventory, g: ServingGroup, c: Container, runs_vllm: bool) -> Iterator[Hit]:
        subject = group_subject(g)
        scripted = script_assignments([*c.command, *c.args], (NVIDIA, *RENUMBERING)) if runs_vllm else {}
        # the env list, or an entry of it, not known yet (a computed or masked value at preview): it may set these
        # variables or leave them out, never "sets them from a Secret" (review34); NVIDIA_ fails closed
        unlisted = [n for n in (NVIDIA, *RENUMBERING)
                    if isinstance(c.env, UnknownEnv) and n not in c.env.keys() and n not in scripted]
        for names in ([n for n in unlisted if n == NVIDIA], [n for n in unlisted if n != NVIDIA]):
            if names:
                which = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
                yield Hit(subject, f"cannot decide: whether container `{c.name}` sets {which}: its env is "
                                   f"{_not_known(c.location)}", c.location, tuple(g.suppressions), undecided=True,
                          level="mandatory" if names[0] == NVIDIA else "advisory")
        for name in (NVIDIA, *RENUMBERING):
            if name in unlisted:
                continue
            try:
                # an envFrom source not known yet is noted for NVIDIA_ and CUDA_, not again for each vendor's variable
                found = env_value(inv, g, c, name, read_env_from=runs_vllm and name in (NVIDIA, CUDA))
            except Undecidable as u:  # NVIDIA_VISIBLE_DEVICES would block: fail closed; CUDA_ is advisory
                yield Hit(subject, f"cannot decide: {u.text}", env_location(g, c, name),
                          tuple(g.suppressions), undecided=True, level="mandatory" if name == NVIDIA else "advisory")
                continue
            if name in scripted:  # `export CUDA_VISIBLE_DEVICES=...` before vllm serve wins over env
                found = (scripted[name], " (in the container's script)", c.location if c.location.file else g.location)
            if found is None:
                continue
            value, via, where = found
            if name == NVIDIA:
                shown = "a value from a Secret, ConfigMap or the downward API" if value is UNKNOWN else repr(value)
                if value is not UNKNOWN and str(value).strip().lower() in HIDES_EVERY_DEVICE:
                    if not runs_vllm:
                        continue  # a sidecar that needs no GPU, saying so
                    yield Hit(subject, f"container `{c.name}` sets {NVIDIA}={shown}{via}, which hides every GPU "
                                       "from the vLLM server", where, tuple(g.suppressions), level="advisory")
                    continue
                if value is not UNKNOWN and _whole_node(g, c, str(value)):
                    continue  # the pod holds every GPU of its node: 0..n-1 are exactly the GPUs it was given
                if g.pool is not None and ami_family(g.pool.ami_type) == "Bottlerocket":
                    yield Hit(subject, f"container `{c.name}` sets {NVIDIA} to {shown}{via}, which overrides the "
                                       "GPUs the device plugin allocated wherever the NVIDIA runtime honours it "
                                       f"(advisory: node pool `{g.pool.name}` runs Bottlerocket "
                                       f"({g.pool.ami_type}), whose NVIDIA runtime ignores it in unprivileged "
                                       "containers by default: settings.nvidia-container-runtime."
                                       "visible-devices-envvar-when-unprivileged false)", where,
                              tuple(g.suppressions), level="advisory")
                    continue
                yield Hit(subject, f"container `{c.name}` sets {NVIDIA} to {shown}{via}, which overrides the GPUs "
                                   f"the device plugin allocated (it can reach other pods' GPUs); remove {NVIDIA} "
                                   "from the container and request its GPUs as nvidia.com/gpu (the device plugin "
                                   "then chooses them)", where,
                          tuple(g.suppressions), level="mandatory")
                continue
            yield from self._renumbering(g, c, name, value, via, where, runs_vllm)

    def _renumbering(self, g: ServingGroup, c: Container, name: str, value: object, via: str, where: Location,
                     runs_vllm: bool) -> Iterator[Hit]:
        subject = group_subject(g)
        if runs_on_cpu(g):
            # corpus44: vLLM's CPU backend (a pod that requests no accelerator and sets VLLM_CPU_KVCACHE_SPACE, as
            # jimmyshah83/aks-ai-accelerator's gpt-oss CPU Deployments do) uses no GPU, so a renumbering list that
            # hides every GPU (CUDA_VISIBLE_DEVICES='') hides nothing its workers need: the layout's devices are
            # not GPUs there, and "the device plugin already chose its GPUs" is not so
            return
        if cpu_setting_on_accelerator_image(g) and g.gpus_per_pod is None and not g.accelerator_resource:
            # mend30: the same shape on vLLM's CUDA image is no longer read as the CPU backend; it requests no GPU,
            # so no device plugin chose GPUs for a list to hide: SW204 says what that image does there (advisory)
            return
        if value is UNKNOWN:
            yield Hit(subject, f"container `{c.name}` sets {name} from a Secret, ConfigMap or the downward API, "
                               "and a hand-written list can hide the allocated GPUs (numbered from 0 inside the "
                               "container)", where,
                      tuple(g.suppressions), level="advisory")
            return
        text = str(value).strip()
        listed = [d.strip() for d in text.split(",") if d.strip()]
        gpus = c.gpus if isinstance(c.gpus, int) and not isinstance(c.gpus, bool) else None
        if text.lower() == "all" or (gpus is not None and _in_order(listed, gpus)):
            return  # exactly the devices the container was given, in their order
        visible = _visible(listed, gpus)
        need = _need(g) if runs_vllm and c is g.main_container else None
        if need is not None and visible < need:
            lay = layout(g)
            shown = f"{visible} device" if visible == 1 else f"{visible} devices"
            inside = f" (the container's {gpus} are numbered 0-{gpus - 1} inside it)" if gpus and visible < len(
                listed) else ""
            yield Hit(subject, f"container `{c.name}` sets {name}={value!r}{via}, so vLLM sees {shown}{inside} "
                               f"but {lay.text()} needs {need} in the pod: it cannot start; remove {name} from the "
                               "container (the device plugin already chose its GPUs)", where,
                      tuple(g.suppressions), level="mandatory")
            return
        detail = ""
        if gpus is not None and len(listed) < gpus:
            detail = f"; it lists {len(listed)} of the {plural(gpus, 'GPU')} the container requests"
        elif gpus is not None and any(d.isdigit() and int(d) >= gpus for d in listed):
            detail = f"; the container's {gpus} GPUs are numbered 0-{gpus - 1} inside it"
        yield Hit(subject, f"container `{c.name}` sets {name}={value!r}{via}{detail}, where the device plugin "
                           "already chose the GPUs", where,
                  tuple(g.suppressions), level="advisory")


def _visible(listed: list[str], gpus: int | None) -> int:
    """Devices a *_VISIBLE_DEVICES list shows: the runtime stops at the first index that does not exist (one
    the container was not given, numbered from 0 inside it)."""
    if gpus is None:
        return len(listed)
    n = 0
    for d in listed:
        if not (d.isdigit() and int(d) < gpus):
            break
        n += 1
    return n


def _need(g: ServingGroup) -> int | None:
    """Devices the pod's vLLM workers need (TP × PP × local DP ranks), None when not known."""
    try:
        return layout(g).per_pod
    except Undecidable:
        return None


def _whole_node(g: ServingGroup, c: Container, value: str) -> bool:
    """NVIDIA_VISIBLE_DEVICES=0,…,n-1 on a container that requests every one of its node's n GPUs."""
    gpus = c.gpus if isinstance(c.gpus, int) and not isinstance(c.gpus, bool) else None
    per_node = g.pool.gpus_per_node if g.pool is not None else None
    listed = [d.strip() for d in value.split(",") if d.strip()]
    return gpus is not None and per_node == gpus and _in_order(listed, gpus)


def _in_order(listed: list[str], gpus: int) -> bool:
    """Whether ``listed`` is ``0,1,…,gpus-1``, the devices a container requesting ``gpus`` is given, in order. Compared
    without building that list: a request is any whole number (``nvidia.com/gpu: 2147483648`` as written), and
    the list can be no longer than what was written."""
    return len(listed) == gpus and all(d == str(i) for i, d in enumerate(listed))


def _not_known(location: Location) -> str:
    """Why a value at ``location`` is not known: a computed value at preview for a Pulumi resource, else a value of the
    files the reader cannot resolve (as SW308 says it)."""
    return f"not known (a computed value at preview; {DECIDED_AT_UP})" if location.urn else f"not known ({UNRESOLVED})"
