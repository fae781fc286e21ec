"""The one reader of image references: ``[registry/]path[:tag][@digest]``, as Docker and containerd read them.

Every rule, the components' validation and the version table ask this module what an image names, so
SW307 and the components cannot disagree on what is pinned. A first path component is a registry host
when it has a ``.`` or a ``:`` or is ``localhost`` (Docker's rule); a tag is what follows the last ``:``
of the last path component; a digest is what follows ``@``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: Docker Hub's names: an image there is named without them (``docker.io/library/ubuntu`` is ``ubuntu``).
DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")


@dataclass(frozen=True)
class ImageRef:
    """A container image reference, split into its parts."""

    text: str  # the reference as written
    registry: str | None  # the registry host (with its port), None for Docker Hub without a host
    path: str  # the repository path without the registry: ``vllm/vllm-openai``
    tag: str | None  # None when the reference has no tag ("" for a trailing ``:``)
    digest: str | None  # ``sha256:…``, None without one

    @property
    def repository(self) -> str:
        """Registry and path as written, without tag or digest: ``nvcr.io/nvidia/vllm``."""
        return f"{self.registry}/{self.path}" if self.registry else self.path

    @property
    def qualified(self) -> str:
        """The repository with Docker Hub's host and ``library/`` left out, other registries kept."""
        if self.registry is None or self.registry in DOCKER_HUB:
            return self.path.removeprefix("library/")
        return f"{self.registry}/{self.path}"

    @property
    def name(self) -> str:
        """The repository's own name, the last path component: ``vllm-openai``."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def name_and_tag(self) -> str:
        """The last path component as written, tag included: ``vllm-openai:v0.11.0-rocm``."""
        return self.name if self.tag is None else f"{self.name}:{self.tag}"

    @property
    def unpinned(self) -> str | None:
        """Why the reference does not name one build: "no tag" (it means ``latest``), "latest", or None when
        a digest or another tag pins it."""
        if self.digest:
            return None
        if not self.tag:
            return "no tag"
        return "latest" if self.tag == "latest" else None


@functools.lru_cache(maxsize=4096)
def parse_image(text: str) -> ImageRef:
    ref = text.strip()
    ref, at, digest = ref.partition("@")
    parts = ref.split("/")
    registry = None
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry, parts = parts[0], parts[1:]
    tag = None
    if ":" in parts[-1]:
        parts[-1], tag = parts[-1].rsplit(":", 1)
    return ImageRef(text, registry, "/".join(parts), tag, digest if at else None)


#: The repository prefixes of the ECR pull-through cache rules the components create → the upstream registry each
#: mirrors (ECR's names for those upstreams: Docker Hub's rule URL is ``registry-1.docker.io``).
PULL_THROUGH_UPSTREAMS = {"docker-hub": "registry-1.docker.io", "ecr-public": "public.ecr.aws"}
_ECR_PRIVATE = re.compile(r"^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")


def cache_prefix(text: str) -> str | None:
    """The pull-through cache prefix whose rule mirrors the image's registry (:data:`PULL_THROUGH_UPSTREAMS`), or
    None when none does (nvcr.io, a private ECR, ...)."""
    ref = parse_image(text)
    if ref.registry is None or ref.registry in DOCKER_HUB:
        return "docker-hub"
    return "ecr-public" if ref.registry == "public.ecr.aws" else None


def _suffix(ref: ImageRef) -> str:
    return (f":{ref.tag}" if ref.tag is not None else "") + (f"@{ref.digest}" if ref.digest else "")


def through_cache(text: str, registry: str) -> str | None:
    """The reference of the image's copy in the pull-through cache of the private ECR ``registry``
    (``<account>.dkr.ecr.<region>.amazonaws.com``): ``<registry>/<prefix>/<upstream path>``, with Docker Hub's
    official images under ``library/`` (ECR asks for the full path); None when no rule mirrors its registry."""
    prefix = cache_prefix(text)
    if prefix is None:
        return None
    ref = parse_image(text)
    path = f"library/{ref.path}" if prefix == "docker-hub" and "/" not in ref.path else ref.path
    return f"{registry}/{prefix}/{path}{_suffix(ref)}"


def upstream(text: str) -> str:
    """The reference a pull-through cache copy (:func:`through_cache`) mirrors; any other reference as it is."""
    ref = parse_image(text)
    if ref.registry is None or not _ECR_PRIVATE.match(ref.registry):
        return text
    prefix, _, path = ref.path.partition("/")
    if not path or prefix not in PULL_THROUGH_UPSTREAMS:
        return text
    if prefix == "docker-hub":
        return f"{path.removeprefix('library/') if path.count('/') == 1 else path}{_suffix(ref)}"
    return f"{PULL_THROUGH_UPSTREAMS[prefix]}/{path}{_suffix(ref)}"
