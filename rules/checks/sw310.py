"""SW310: GPU visibility set by hand (NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES) in a vLLM pod."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, Container, Inventory, ServingGroup, Undecidable
from ._env import env_location, env_value, vllm_containers

NVIDIA = "NVIDIA_VISIBLE_DEVICES"
CUDA = "CUDA_VISIBLE_DEVICES"
#: NVIDIA_VISIBLE_DEVICES values that give the container no GPU at all (they hide, they do not escape).
_NO_GPU = ("void", "none", "")


class GpuVisibilitySetByHand(GroupRule):
    meta = RuleMeta(
        code="SW310",
        name="gpu-visibility-set-by-hand",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM pod sets NVIDIA_VISIBLE_DEVICES by hand, overriding the GPUs the device plugin gave it "
            "(mandatory), or CUDA_VISIBLE_DEVICES, which renumbers or hides them (advisory)."
        ),
        why=(
            "The NVIDIA device plugin tells the container runtime which GPUs a container was allocated. With the "
            "NVIDIA container toolkit's default settings a NVIDIA_VISIBLE_DEVICES written in the pod spec wins "
            "(the CUDA base images even set it to all): the container sees GPUs that the scheduler gave to "
            "other pods, or every GPU of a node it requested none on, and two servers then fill the same "
            "memory. CUDA_VISIBLE_DEVICES cannot escape the allocation, but inside the container GPUs are "
            "numbered from 0, so a list written for the node (4,5,6,7) or shorter than the layout hides the "
            "GPUs vLLM was given. Values the linter cannot read (a valueFrom, an envFrom source that is not in "
            "the inputs) are reported as advisory notes; SW306 already blocks an unreadable envFrom."
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
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
        ),
        scope="resource",
        mandatory_when="for NVIDIA_VISIBLE_DEVICES, which overrides the device plugin's allocation",
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.kind == "plan":
            return
        vllm = vllm_containers(g)
        for c in g.containers:
            yield from self._container(inv, g, c, c in vllm)

    def _container(self, inv: Inventory, g: ServingGroup, c: Container, runs_vllm: bool) -> Iterator[Hit]:
        subject = group_subject(g)
        for name in (NVIDIA, CUDA):
            try:
                found = env_value(inv, g, c, name, read_env_from=runs_vllm)
            except Undecidable as u:
                yield Hit(subject, f"SW310: cannot decide: {u.text}", env_location(g, c, name),
                          tuple(g.suppressions), undecided=True, level="advisory")
                continue
            if found is None:
                continue
            value, via, where = found
            if name == NVIDIA:
                shown = "a value from a Secret, ConfigMap or the downward API" if value is UNKNOWN else repr(value)
                if value is not UNKNOWN and str(value).strip().lower() in _NO_GPU:
                    if not runs_vllm:
                        continue  # a sidecar that needs no GPU, saying so
                    yield Hit(subject, f"SW310: container `{c.name}` of {subject} sets {NVIDIA}={shown}{via}, which "
                                       "hides every GPU from the vLLM server; required: the variable unset (request "
                                       "GPUs with nvidia.com/gpu)", where, tuple(g.suppressions), level="advisory")
                    continue
                yield Hit(subject, f"SW310: container `{c.name}` of {subject} sets {NVIDIA} to {shown}{via}, which "
                                   "overrides the GPUs the device plugin allocated (it can reach other pods' GPUs); "
                                   "required: the variable unset, GPUs requested with nvidia.com/gpu", where,
                          tuple(g.suppressions), level="mandatory")
            else:
                yield Hit(subject, self._cuda_message(g, c, value, via), where, tuple(g.suppressions),
                          level="advisory")

    @staticmethod
    def _cuda_message(g: ServingGroup, c: Container, value: object, via: str) -> str:
        subject = group_subject(g)
        if value is UNKNOWN:
            return (f"SW310: container `{c.name}` of {subject} sets {CUDA} from a Secret, ConfigMap or the downward "
                    "API; inside the container the allocated GPUs are numbered from 0, and a hand-written list can "
                    "hide them; required: the variable unset")
        listed = [d for d in str(value).split(",") if d.strip()]
        gpus = c.gpus if isinstance(c.gpus, int) and not isinstance(c.gpus, bool) else None
        detail = ""
        if gpus is not None and len(listed) < gpus:
            detail = f"; it lists {len(listed)} of the {gpus} GPUs the container requests"
        elif gpus is not None and any(d.strip().isdigit() and int(d) >= gpus for d in listed):
            detail = f"; the container's {gpus} GPUs are numbered 0-{gpus - 1} inside it"
        return (f"SW310: container `{c.name}` of {subject} sets {CUDA}={value!r}{via}{detail}; the device plugin "
                "already chose the GPUs; required: the variable unset")
