"""What shardwise knows about a serving image: its vLLM version and whether it can use EFA.

Facts, with where they come from (checked against the sources named, not by running the images):

* ``vllm/vllm-openai:vX.Y.Z`` carries vLLM X.Y.Z; it has no libfabric and no aws-ofi-nccl plugin, so
  NCCL between nodes falls back to TCP sockets even on an EFA pool.
* AWS Deep Learning Containers for vLLM (``public.ecr.aws/deep-learning-containers/vllm:X.Y.Z-gpu-…``
  and ``763104351884.dkr.ecr.<region>.amazonaws.com/vllm:X.Y.Z-gpu-…``, another AWS account in an opt-in region or
  China: :data:`.versions.DLC_ACCOUNTS`) are built ``FROM
  vllm/vllm-openai`` plus the EFA installer (libfabric under ``/opt/amazon/efa``, aws-ofi-nccl under
  ``/opt/amazon/ofi-nccl``, both on ``LD_LIBRARY_PATH``): aws/deep-learning-containers
  ``vllm/x86_64/gpu/Dockerfile`` and ``vllm/CHANGELOG.md`` (0.13.0: EFA installer 1.46.0).
* The version in a tag is read by :mod:`shardwise.rules.vllm.versions` (``version_from_image``); a DLC tag that
  names a minor only (``vllm:0.11-gpu-py312``) holds one of its patches, none sure (``floating_line``), so the
  launcher ``auto`` picks Ray for it.
* vLLM's own multi-node launch (``--nnodes``, ``--node-rank``, ``--master-addr``, workers
  ``--headless``, executor ``mp``) first shipped in v0.11.1: ``vllm/engine/arg_utils.py`` of the
  v0.11.1 source distribution defines the flags, v0.11.0's does not (PR vllm-project/vllm#23691).
  Older images need a Ray cluster (``--distributed-executor-backend ray``); Ray is in the image.
* ``--load-format runai_streamer`` (safetensors streamed from ``s3://``) is in vLLM v0.11.0 and
  later, and both v0.11.0 and v0.11.1 images install ``runai-model-streamer[s3]`` (their
  ``docker/Dockerfile``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .imageref import parse_image, upstream
from .versions import DLC_REGISTRY_PATTERN, behaviour, first_release, version_from_image
from .versions import parse_version as parse_release

VLLM_OPENAI = ("vllm/vllm-openai", "docker.io/vllm/vllm-openai", "index.docker.io/vllm/vllm-openai")
DLC_PUBLIC = "public.ecr.aws/deep-learning-containers/vllm"
#: A mirror of ``vllm/vllm-openai`` that keeps its path (a Harbor proxy project, ``mirror.gcr.io``, an ECR pull-through
#: cache's prefix): the same image (mend28).
_VLLM_OPENAI_MIRROR = re.compile(r"(?:.+/)?vllm/vllm-openai")
#: AWS's own ECR registries for the DLCs, in every region (:data:`.versions.DLC_ACCOUNTS`).
DLC_PRIVATE = re.compile("^" + DLC_REGISTRY_PATTERN + "/vllm$")

def _since(flag: str) -> tuple[int, int, int]:
    v = parse_version(first_release(flag))
    assert v is not None
    return v


#: A pinned image with vLLM, libfabric and aws-ofi-nccl, for EFA pools (AWS DLC, vLLM 0.13.0).
DEFAULT_EFA_IMAGE = "public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2"

@dataclass(frozen=True)
class ImageInfo:
    """What the image reference says about the image."""

    repository: str
    tag: str | None
    digest: str | None
    family: str  # "vllm-openai" | "aws-dlc" | "other"
    vllm_version: tuple[int, int, int] | None
    efa: bool | None  # libfabric + aws-ofi-nccl inside; None: not known


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    """``v0.11.1`` / ``0.13.0`` → ``(0, 11, 1)`` / ``(0, 13, 0)``, read by
    :func:`shardwise.rules.vllm.versions.parse_version`."""
    v = parse_release(text) if text else None
    return (v.parts[0], v.parts[1], v.parts[2]) if v is not None else None


def version_text(v: tuple[int, int, int]) -> str:
    return ".".join(str(x) for x in v)


def has(version: tuple[int, int, int], flag: str) -> bool:
    """Whether the release ``version`` has the behaviour ``flag`` of :class:`.versions.Behaviour`."""
    return bool(getattr(behaviour(version_text(version)), flag))


#: The first vLLM release with the native multi-node launch (the release table's ``native_multinode``).
NATIVE_MULTINODE_SINCE = _since("native_multinode")
#: The first vLLM release whose image streams weights from S3 (``runai_streamer``).
RUNAI_STREAMER_SINCE = _since("runai_streamer")


def image_info(image: str) -> ImageInfo:
    """Split an image reference and read the vLLM version and EFA support where the family is known."""
    ref = parse_image(upstream(image))  # a pull-through cache's copy is its upstream's image
    repository, tag, digest = ref.repository, ref.tag, ref.digest or ""
    found = version_from_image(image)
    version = (found.parts[0], found.parts[1], found.parts[2]) if found is not None else None
    if repository in VLLM_OPENAI or _VLLM_OPENAI_MIRROR.fullmatch(ref.qualified.lower()):
        return ImageInfo(repository, tag, digest or None, "vllm-openai", version, False)
    if repository == DLC_PUBLIC or DLC_PRIVATE.match(repository):
        return ImageInfo(repository, tag, digest or None, "aws-dlc", version, True)
    return ImageInfo(repository, tag, digest or None, "other", version, None)


def vllm_version(image: str, declared: str | None) -> tuple[int, int, int] | None:
    """The vLLM version of a workload: as declared, else read from the image's tag."""
    return parse_version(declared) if declared else image_info(image).vllm_version


def choose_launcher(launcher: str, image: str, declared_version: str | None) -> tuple[str, str]:
    """(``native`` | ``ray``, why) for a multi-node group; ``auto`` picks native only when the image has it."""
    version = vllm_version(image, declared_version)
    since = version_text(NATIVE_MULTINODE_SINCE)
    if launcher != "auto":
        return launcher, f"launcher: {launcher}"
    if version is None:
        return "ray", f"the vLLM version of `{image}` is not known (set vllm_version); Ray works with every version"
    if has(version, "native_multinode"):
        return "native", f"vLLM {version_text(version)} has the native multi-node launch (>= {since})"
    return "ray", f"vLLM {version_text(version)} predates the native multi-node launch (>= {since})"


def image_has_efa(image: str, declared: bool | None) -> bool | None:
    """Whether the image carries libfabric and aws-ofi-nccl: as declared, else by image family."""
    return declared if declared is not None else image_info(image).efa


#: KServe's Hugging Face server image, ``kserve/huggingfaceserver:vX.Y.Z`` (``-rcN``), with ``-gpu`` or not.
_KSERVE_HF_TAG = re.compile(r"^v?(\d+)\.(\d+)\.\d+(?:-rc\d+)?(-gpu)?$")
#: The KServe releases read (kserve/kserve, each minor release's .github/workflows/huggingface-docker-publish.yml,
#: huggingface-cpu-docker-publish.yml and python/huggingface_server*.Dockerfile): up to v0.14 the one image, the plain
#: tag, is the CUDA build (huggingface_server.Dockerfile); from v0.15.0 to v0.20.0 the plain tag is built from
#: huggingface_server_cpu.Dockerfile (``ARG VLLM_TARGET_DEVICE=cpu``, PyTorch's CPU wheels) and the CUDA build is
#: tagged ``-gpu`` (``VERSION="${VERSION}-gpu"``); the kserve-resources chart's default Hugging Face runtime takes the
#: plain tag, its multi-node runtime the ``-gpu`` one.
KSERVE_HF_CPU_RELEASES = ((0, 15), (0, 20))


def kserve_hf_release(image: str) -> tuple[tuple[int, int], bool] | None:
    """(the KServe release, as (major, minor), of a ``kserve/huggingfaceserver`` image whose tag names one; whether
    its tag is the ``-gpu`` one), None for another image or a tag that names no release (``latest``, a digest)."""
    ref = parse_image(image)
    m = _KSERVE_HF_TAG.match(ref.tag or "")
    if ref.qualified != "kserve/huggingfaceserver" or m is None:
        return None
    return (int(m.group(1)), int(m.group(2))), m.group(3) is not None


def kserve_hf_cpu_build(image: str) -> bool:
    """Whether ``image`` is KServe's Hugging Face server built for the CPU: the plain tag of a release read from
    v0.15.0 on (:data:`KSERVE_HF_CPU_RELEASES`). Its vLLM is built with ``VLLM_TARGET_DEVICE=cpu`` and never uses a
    GPU the pod holds. A release after those read is not judged."""
    found = kserve_hf_release(image)
    if found is None:
        return False
    (release, gpu), (first, last) = found, KSERVE_HF_CPU_RELEASES
    return not gpu and first <= release <= last
