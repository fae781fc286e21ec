"""The one reader of image references: ``[registry/]path[:tag][@digest]``, as Docker and containerd read them.

Every rule, the components' validation and the version table ask this module what an image names, so
SW307 and the components cannot disagree on what is pinned. A first path component is a registry host
when it has a ``.`` or a ``:`` or is ``localhost`` (Docker's rule); a tag is what follows the last ``:``
of the last path component; a digest is what follows ``@``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

#: Docker Hub's names: an image there is named without them (``docker.io/library/ubuntu`` is ``ubuntu``).
DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")


@dataclass(frozen=True)
class ImageRef:
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
