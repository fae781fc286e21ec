"""The parallel layout of one serving group: how many GPUs vLLM starts workers on, per pod and per group.

vLLM places its ranks data-parallel outermost, then pipeline, then tensor parallel innermost:
a group of ``TP × PP × DP`` GPUs. ``--data-parallel-size-local`` says how many DP ranks one
vLLM process (one pod) runs; without it every DP rank is local, unless the group spans several
pods, in which case the ranks are spread over them. On a multi-pod group (a LeaderWorkerSet) each
pod is one node and holds ``world ÷ pods`` GPUs; the tensor-parallel group stays inside a node
exactly when ``TP ≤`` GPUs per node.

Every reader goes through :func:`~shardwise.rules.model.known`, so an unknown flag makes the rule
that needs it say it cannot decide.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..model import UNKNOWN, ServingGroup, Undecidable, known
from ..vllm.imageref import parse_image

T = TypeVar("T")

#: What an unknown number of pods per group is called in an undecided finding.
PODS_PER_GROUP = "pods per group (leaderWorkerTemplate.size, or the workers an operator adds)"


def per_group(g: ServingGroup, name: str, make: Callable[[ServingGroup], T]) -> T:
    """``make(g)``, made once per group and kept on it: a group does not change while the rules run,
    and several rules ask for the same thing (an Undecidable is raised again on each call)."""
    d = g.__dict__
    key = "_shardwise_" + name
    if key in d:
        return d[key]  # type: ignore[no-any-return]
    value = make(g)
    d[key] = value
    return value


@dataclass(frozen=True)
class Layout:
    tp: int
    pp: int
    dp: int
    dp_local: int | None  # --data-parallel-size-local, when given
    pods: int  # pods per group (1 for a single-pod replica)

    @property
    def world(self) -> int:
        """GPUs the whole group runs vLLM workers on."""
        return self.tp * self.pp * self.dp

    @property
    def per_pod(self) -> int | None:
        """GPUs one pod must hold, when the layout fixes it (None: the ranks are spread over the pods)."""
        if self.dp_local is not None:
            return self.tp * self.pp * self.dp_local
        if self.pods == 1:
            return self.world
        return None

    def text(self) -> str:
        """``"TP4×PP2"``, ``"TP1×PP1×DP8"`` (DP only when it is above 1)."""
        base = f"TP{self.tp}×PP{self.pp}"
        return f"{base}×DP{self.dp}" if self.dp > 1 else base


def _int_flag(value: object, prop: str) -> int:
    value = known(value, prop)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise Undecidable(prop, f"{value!r} is not a whole number")
    try:
        return int(value)
    except ValueError:
        raise Undecidable(prop) from None  # an unresolved reference kept as written


def layout(g: ServingGroup) -> Layout:
    """The group's layout; raises :class:`Undecidable` naming the first unknown setting."""
    return per_group(g, "layout", _layout)


def _layout(g: ServingGroup) -> Layout:
    e = g.engine
    tp = _int_flag(e.tensor_parallel_size, "tensor_parallel_size")
    pp = _int_flag(e.pipeline_parallel_size, "pipeline_parallel_size")
    dp = _int_flag(e.data_parallel_size, "data_parallel_size")
    raw_local = getattr(e, "data_parallel_size_local", None)  # a field once the engine model has one
    if raw_local is None:
        raw_local = e.extra.get("data_parallel_size_local")
    dp_local = None if raw_local is None else _int_flag(raw_local, "data_parallel_size_local")
    pods = g.pods_per_group
    pods = 1 if pods is None else _int_flag(pods, PODS_PER_GROUP)
    return Layout(tp, pp, dp, dp_local, max(pods, 1))


#: A CPU build of vLLM's image: vllm/vllm-openai-cpu, vllm-cpu-release-repo, a tag ending in -cpu.
_CPU_IMAGE = re.compile(r"(?<![a-z0-9])cpu(?![a-z0-9])")
#: Settings only vLLM's CPU backend reads.
_CPU_ENV = ("VLLM_CPU_KVCACHE_SPACE", "VLLM_CPU_OMP_THREADS_BIND", "VLLM_CPU_NUM_OF_RESERVED_CPU")


def cpu_image(image: str) -> bool:
    """Whether an image is a CPU build of vLLM: the repository's own name or its tag says ``cpu``, not a
    registry path like cpu-team/vllm-openai."""
    return _CPU_IMAGE.search(parse_image(image.lower()).name_and_tag) is not None


def runs_on_cpu(g: ServingGroup) -> bool:
    """Whether the group runs vLLM's CPU backend and requests no accelerator: a resource field says so
    (``cpu_backend``), or the vLLM container's image is a CPU build, its environment sets
    VLLM_TARGET_DEVICE=cpu or a setting only the CPU backend reads, or it passes ``--device cpu``."""
    gpus = g.gpus_per_pod
    if (isinstance(gpus, int) and not isinstance(gpus, bool) and gpus > 0) or g.accelerator_resource:
        return False
    if g.cpu_backend:
        return True
    c = g.main_container
    if c is None:
        return False
    if isinstance(c.image, str) and cpu_image(c.image):
        return True
    target = c.env.get("VLLM_TARGET_DEVICE")
    if isinstance(target, str) and target.strip().lower() == "cpu":
        return True
    if any(name in c.env for name in _CPU_ENV):
        return True
    device = g.engine.extra.get("device")
    return isinstance(device, str) and device.strip().lower() == "cpu"


def gpus_per_node(g: ServingGroup) -> int | None:
    """GPUs one pod of the group holds: its nvidia.com/gpu request, else the pool's GPUs per node."""
    gpus = g.gpus_per_pod
    if isinstance(gpus, int) and not isinstance(gpus, bool) and gpus > 0:
        return gpus
    if g.pool is not None:
        per_node = g.pool.gpus_per_node
        if per_node is not UNKNOWN and isinstance(per_node, int) and per_node > 0:
            return per_node
    return None
