"""SW401: tensor or pipeline parallelism without a memory-backed ``/dev/shm``."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import prefill_context_parallel
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    Inventory,
    ServingGroup,
    Undecidable,
    int_or_none,
    known,
    layout_text,
    world_size,
)
from ._capacity import nccl_rules_apply
from ._net import is_multi_node
from ._unseen import held_back_hits

SHM = "/dev/shm"


class ParallelWithoutShm(GroupRule):
    meta = RuleMeta(
        code="SW401",
        name="parallel-without-shm",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A vLLM pod with tensor_parallel_size > 1 or a multi-node group does not mount a memory-backed "
            "volume at /dev/shm."
        ),
        why=(
            "vLLM's workers exchange tensors and control messages through shared memory, and NCCL puts its "
            "intra-node buffers there. A container's /dev/shm is 64 MiB by default: NCCL fails with "
            "'unhandled system error' or the workers crash with bus errors once the buffers outgrow it. An "
            "emptyDir without medium: Memory is node disk, not shared memory."
        ),
        bad_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    args: [serve, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4']\n"
            "    # no volumeMounts at /dev/shm"
        ),
        good_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    args: [serve, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4']\n"
            "    volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
            "volumes:\n"
            "  - name: dshm\n"
            "    emptyDir: {medium: Memory, sizeLimit: 16Gi}"
        ),
        remediation=(
            "Mount an emptyDir volume with medium: Memory at /dev/shm in every vLLM container that runs "
            "more than one GPU worker; give it a sizeLimit (16Gi is plenty for eight GPUs) so it cannot "
            "take the node's memory."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#docker",
            "https://kubernetes.io/docs/concepts/storage/volumes/#emptydir",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("volumeMounts", "container")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether it mounts a memory-backed /dev/shm")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        c = g.main_container
        if c is None:
            return  # a plan or a stack entry: the component mounts /dev/shm itself
        if not nccl_rules_apply(g):
            return  # TPU, Gaudi and Neuron collectives do not exchange buffers through /dev/shm
        tp = int(known(g.engine.tensor_parallel_size, "tensor_parallel_size"))
        pp = int(known(g.engine.pipeline_parallel_size, "pipeline_parallel_size"))
        multi = is_multi_node(g)
        # the workers of one engine, vLLM's world size TP × PP × PCP (model.world_size): more than one talk over NCCL
        pcp = prefill_context_parallel(g) if world_size(tp, pp) <= 1 and not multi else (
            int_or_none(g.prefill_context_parallel) or 1)
        if world_size(tp, pp, pcp) <= 1 and not multi:
            return
        if multi and g.pods_per_group is not UNKNOWN and isinstance(g.pods_per_group, int):
            layout = f"a multi-node group of {g.pods_per_group:,} pods ({layout_text(tp, pp, pcp)})"
        else:
            layout = " × ".join([f"tensor_parallel_size {tp}", *([f"pipeline_parallel_size {pp}"] if pp > 1 else []),
                                 *([f"prefill_context_parallel_size {pcp}"] if pcp > 1 else [])])
        mounted = [name for name, path in c.volume_mounts.items() if str(path).rstrip("/") == SHM]
        if not mounted and g.host.ipc is True:
            # hostIPC: the runtime binds the node's own /dev/shm into the container instead of a 64 MiB tmpfs
            # (containerd, internal/cri/server/container_create_linux.go: a pod whose IPC namespace is the node's
            # gets sandboxDevShm = /dev/shm); SW309 names the hostIPC itself
            return
        if not mounted:
            # a mount not known at preview (UNKNOWN_TOKEN: the Pulumi adapter) may be at /dev/shm: never "nothing"
            unknown = sorted(name for name, path in c.volume_mounts.items() if path == UNKNOWN_TOKEN)
            if unknown:
                raise Undecidable(f"the mount path of {_volume(unknown[0])} in container `{c.name}`")
            yield hit(g, f"container `{c.name}` runs {layout} but mounts nothing at {SHM} (the container "
                         "runtime's default is 64 MiB); mount an emptyDir with medium: Memory there")
            return
        name = mounted[0]
        if name == UNKNOWN_TOKEN:
            raise Undecidable(f"the volume container `{c.name}` mounts at {SHM}")
        volume = next((v for v in g.volumes if v.name == name), None)
        fix = f"make `{name}` an emptyDir with medium: Memory"
        if volume is None and any(v.name == UNKNOWN_TOKEN for v in g.volumes):
            raise Undecidable(f"a volume of the pod (it may define `{name}`)")
        if volume is not None and UNKNOWN_TOKEN in (volume.kind, volume.medium):
            raise Undecidable(f"the {'medium' if volume.kind == 'emptyDir' else 'kind'} of volume `{name}`")
        if volume is None:
            found = f"volume `{name}`, which the pod does not define"
            fix = f"define `{name}` in the pod's volumes as an emptyDir with medium: Memory"
        elif volume.kind == "emptyDir" and str(volume.medium or "") == "Memory":
            return
        elif volume.kind == "hostPath":
            return  # the node's own /dev/shm: memory-backed
        elif volume.kind == "emptyDir":
            found = f"emptyDir `{name}` without medium: Memory (node disk)"
            fix = f"set medium: Memory on emptyDir `{name}`"
        else:
            found = f"{volume.kind} volume `{name}`"
        yield hit(g, f"container `{c.name}` runs {layout} with {found} at {SHM}, not an emptyDir with medium: "
                     f"Memory; {fix}")


def _volume(name: str) -> str:
    return "a volume" if name == UNKNOWN_TOKEN else f"volume `{name}`"
