"""Where a serving group runs, as the topology rules read it: vLLM's CPU backend, GPUs per node.

The group's parallel layout itself comes through the capacity model's front door
(:func:`shardwise.rules.capacity.group.layout`).
"""

from __future__ import annotations

import re

from ..catalog.accelerators import image_families
from ..catalog.hardware import selects_no_accelerator
from ..model import UNKNOWN, NodePool, ServingGroup, Undecidable
from ..model.vocab import EFA_RESOURCE, GFD_CLIQUE
from ..vllm.imageref import parse_image
from ..vllm.images import kserve_hf_cpu_build

#: A CPU build of vLLM's image: vllm/vllm-openai-cpu, vllm-cpu-release-repo, a tag ending in -cpu.
_CPU_IMAGE = re.compile(r"(?<![a-z0-9])cpu(?![a-z0-9])")
#: Settings only vLLM's CPU backend reads.
_CPU_ENV = ("VLLM_CPU_KVCACHE_SPACE", "VLLM_CPU_OMP_THREADS_BIND", "VLLM_CPU_NUM_OF_RESERVED_CPU")
#: vLLM's OpenVINO build (``VLLM_TARGET_DEVICE=openvino``, ``Dockerfile.openvino``, an image such as
#: ``vllm-openvino-env``): the image's own name or tag says ``openvino``, or its environment holds a setting only
#: that build reads (``VLLM_OPENVINO_DEVICE``, ``VLLM_OPENVINO_KVCACHE_SPACE``, ...).
_OPENVINO_IMAGE = re.compile(r"(?<![a-z0-9])openvino(?![a-z0-9])")
_OPENVINO_ENV = "VLLM_OPENVINO_"


def cpu_image(image: str) -> bool:
    """Whether an image is a CPU build of vLLM: the repository's own name or its tag says ``cpu``, not a
    registry path like cpu-team/vllm-openai; or it is KServe's Hugging Face server of a release whose plain tag is
    its CPU build (:func:`~shardwise.rules.vllm.images.kserve_hf_cpu_build`: v0.15.0 on, the CUDA build ``-gpu``)."""
    return (_CPU_IMAGE.search(parse_image(image.lower()).name_and_tag) is not None
            or kserve_hf_cpu_build(image.lower()))


def runs_on_cpu(g: ServingGroup) -> bool:
    """Whether the group runs vLLM's CPU backend and requests no accelerator: a resource field says so
    (``cpu_backend``), or the vLLM container's image is a CPU build, its environment holds a setting only
    the CPU backend reads, or, on an image that is not known as an accelerator's build, it sets
    VLLM_TARGET_DEVICE=cpu or passes ``--device cpu``.

    vLLM picks its platform from how it was built, never from ``--device`` (deprecated as having no
    effect in vllm-project/vllm#18399, removed in 0.10.0 by #21349) nor from the environment:
    ``VLLM_TARGET_DEVICE`` is read by its setup.py when the wheel is built, and at start-up
    ``vllm/platforms/__init__.py`` activates the CPU platform only for a build whose version names ``cpu``
    (or on macOS), the CUDA one only where NVML finds a GPU, so a CUDA build with no GPU gets no platform
    (UnspecifiedPlatform). ``vllm/vllm-openai`` with ``--device cpu`` or ``VLLM_TARGET_DEVICE=cpu`` is the
    CUDA build and still needs a GPU. Only on an image whose build nothing names (a team's own) are these
    kept as a sign of a CPU build. (Read at vllm-project/vllm 00e2bbc, ``vllm/platforms/__init__.py``;
    ``VLLM_TARGET_DEVICE`` is read in ``setup.py`` and tests only.) A setting only the CPU backend reads
    (``VLLM_CPU_KVCACHE_SPACE``) is taken as the author's sign of a CPU build on such an image too, never on an image
    known as an accelerator's build (mend30: ``vllm/vllm-openai`` with it and no GPU request passed in silence as the
    CPU backend; SW204 says what that build does there, :func:`cpu_setting_on_accelerator_image`). So is, on such an
    image, a node selection that admits only EC2 instances without an accelerator (``karpenter.k8s.aws/
    instance-family: m8g``, :func:`~shardwise.rules.catalog.hardware.selects_no_accelerator`): the CUDA build has
    no platform there, so a team's own image placed there is its CPU build (corpus19: a Graviton vLLM)."""
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
    if not (isinstance(c.image, str) and image_families(c.image)) and selects_no_accelerator(g.node_selector,
                                                                                          g.affinity):
        return True  # a team's own build, placed on instances without accelerators: its CPU build (corpus19)
    if any(name in c.env for name in _CPU_ENV) and not cpu_setting_on_accelerator_image(g):
        return True
    if openvino_on_cpu(c.image, c.env):
        return True
    target = c.env.get("VLLM_TARGET_DEVICE")
    device = g.engine.extra.get("device")
    if not ((isinstance(target, str) and target.strip().lower() == "cpu")
            or (isinstance(device, str) and device.strip().lower() == "cpu")):
        return False
    return not (isinstance(c.image, str) and image_families(c.image))


def cpu_setting_on_accelerator_image(g: ServingGroup) -> str:
    """The first setting only vLLM's CPU backend reads (:data:`_CPU_ENV`) that the group's vLLM container sets on an
    image known as vLLM's CUDA build (``vllm/vllm-openai``), else ``VLLM_TARGET_DEVICE=cpu`` written there (which no
    start of vLLM reads); "" where there is none (another accelerator's build, whose
    start without its devices was not read here, keeps the setting as a sign of a CPU build). That build never runs
    the CPU backend: vLLM activates its CPU platform only for a build whose version names ``cpu`` (vllm-project/vllm
    00e2bbc, ``vllm/platforms/__init__.py`` ``cpu_platform_plugin``), and the CUDA one where NVML counts a GPU
    (``cuda_platform_plugin``), else none (UnspecifiedPlatform, which cannot start an engine)."""
    c = g.main_container
    if c is None or not isinstance(c.image, str):
        return ""
    families = image_families(c.image)
    if not families or any(a.family != "nvidia-gpu" for a in families):  # the CUDA build's only (what is read)
        return ""
    setting = next((name for name in _CPU_ENV if name in c.env), "")
    if setting:
        return setting
    # mend38: VLLM_TARGET_DEVICE=cpu is the same sign of the same intent, and no start of vLLM reads it either:
    # setup.py reads it when the wheel is built (and tests do), vllm/envs.py only defines it, and the platform is
    # picked as above (vllm-project/vllm 00e2bbc, vllm/platforms/__init__.py), so the pod does what the CPU setting's
    # pod does and SW204 says it at the same level (it blocked, the CPU setting's was advisory). Not `--device cpu`:
    # the releases that take it build the model on the CPU under the CUDA worker even where a GPU is visible, and
    # 0.10.0 - 0.23 exit on it (release37, device-flag.yaml): it fails on either node, and blocks.
    target = c.env.get("VLLM_TARGET_DEVICE")
    if isinstance(target, str) and target.strip().lower() == "cpu":
        return "VLLM_TARGET_DEVICE=cpu"
    return ""


def openvino_on_cpu(image: object, env: dict[str, object]) -> bool:
    """Whether the container runs vLLM's OpenVINO build on the host's CPU. That build serves on x86-64 CPUs and on
    Intel GPUs through OpenVINO, never on an NVIDIA or AMD device; ``VLLM_OPENVINO_DEVICE`` picks the device and is
    ``CPU`` when unset (vllm-project/vllm v0.6.4, ``vllm/envs.py``: ``os.getenv("VLLM_OPENVINO_DEVICE", "CPU")
    .upper()``; ``docs/source/getting_started/openvino-installation.rst``: "x86-64 CPUs with, at least, AVX2
    support"). So a pod of that build that requests no accelerator is the CPU backend (corpus22: a KServe
    ServingRuntime of ``quay.io/.../vllm-openvino`` with ``VLLM_OPENVINO_DEVICE=CPU`` was blocked by SW204). A
    device written as a placeholder or naming a GPU is not read as the CPU, and an image known as another
    accelerator's build (``vllm/vllm-openai``: CUDA) is that build whatever OpenVINO setting it carries."""
    own = parse_image(image.lower()).name_and_tag if isinstance(image, str) else ""
    if isinstance(image, str) and image_families(image):
        return False
    if not (_OPENVINO_IMAGE.search(own) or any(k.startswith(_OPENVINO_ENV) for k in env)):
        return False
    device = env.get("VLLM_OPENVINO_DEVICE", "CPU")
    return isinstance(device, str) and device.strip().upper() == "CPU"


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


def in_one_nvlink_domain(g: ServingGroup, gpus: int) -> bool:
    """Whether ``gpus`` GPUs of the group share one NVLink domain that spans nodes (GB200 NVL72: 72 GPUs over 18
    trays): the pool's nodes are one ``nvidia.com/gpu.clique``, or the LeaderWorkerSet keeps each group inside one
    (``leaderworkerset.sigs.k8s.io/exclusive-topology: nvidia.com/gpu.clique``), and the domain holds them (the
    pool's, or for the tray of a rack, ``GpuInfo.gpus_per_node``, the rack's where labels give only the tray)."""
    pool = g.pool
    if pool is None:
        return False
    one = bool(pool.clique) or g.exclusive_topology == GFD_CLIQUE
    size = pool.nvlink_domain_size or 0
    if one and pool.gpu is not None and pool.gpu.gpus_per_node and pool.gpu.nvlink_domain_size > size:
        size = pool.gpu.nvlink_domain_size  # a rack's tray (GB300 NVL72): one clique is the rack's domain
    return one and size >= gpus


def requests_efa(g: ServingGroup) -> bool:
    """Whether a container of the group's pods requests ``vpc.amazonaws.com/efa`` devices; :class:`Undecidable`
    when none does for sure and one's count is not known (a computed value, a template placeholder)."""
    if any(c.efa is not UNKNOWN and c.efa > 0 for c in g.containers):
        return True
    unknown = next((c for c in g.containers if c.efa is UNKNOWN), None)
    if unknown is not None:
        raise Undecidable(EFA_RESOURCE, f"the count container `{unknown.name}` requests is a template placeholder or "
                                        "a computed value")
    return False


def nvlink_domain(pool: NodePool) -> int | None:
    """GPUs of one node that NVLink joins all-to-all: 1 on PCIe-only pools, the pool's NVLink domain where
    NVLink joins only some of them (H100 NVL pairs); None when every GPU of the node shares it or the
    interconnect is not known."""
    if pool.interconnect == "pcie":
        return 1
    if pool.interconnect == "nvlink" and pool.nvlink_domain_size:
        return int(pool.nvlink_domain_size)
    return None
