"""KServe's Hugging Face server images by release and build (rules/vllm/images.py)."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm.images import kserve_hf_cpu_build, kserve_hf_release


@pytest.mark.parametrize(("image", "release", "cpu"), [
    ("kserve/huggingfaceserver:v0.15.0", ((0, 15), False), True),  # the plain tag: huggingface_server_cpu.Dockerfile
    ("docker.io/kserve/huggingfaceserver:v0.20.0", ((0, 20), False), True),
    ("kserve/huggingfaceserver:v0.18.0-rc1", ((0, 18), False), True),
    ("kserve/huggingfaceserver:v0.15.2-gpu", ((0, 15), True), False),  # the CUDA build
    ("kserve/huggingfaceserver:v0.14.1", ((0, 14), False), False),  # one image, the CUDA build, before v0.15
    ("kserve/huggingfaceserver:v0.21.0", ((0, 21), False), False),  # a release not read: not judged
    ("kserve/huggingfaceserver:latest", None, False),
    ("registry.example.com/mirror/kserve/huggingfaceserver:v0.15.0", None, False),  # another repository
])
def test_kserve_hf_images_by_release_and_build(image, release, cpu):
    """mend29: kserve/kserve's huggingface-docker-publish.yml tags the CUDA build `-gpu` from v0.15.0, and
    huggingface-cpu-docker-publish.yml pushes the plain tag from huggingface_server_cpu.Dockerfile (read to v0.20.0)."""
    assert (kserve_hf_release(image), kserve_hf_cpu_build(image)) == (release, cpu)
