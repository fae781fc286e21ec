"""KServe's Hugging Face server images by release and build (rules/vllm/images.py)."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm.images import image_info, kserve_hf_cpu_build, kserve_hf_release
from shardwise.rules.vllm.versions import release_build, resolve


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


@pytest.mark.parametrize(("image", "family", "source"), [
    ("763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.10.2-gpu-py312-cu128-ubuntu22.04-ec2", "aws-dlc", "image-tag"),
    ("871362719292.dkr.ecr.ap-east-1.amazonaws.com/vllm:0.10.2-gpu-py312-cu128-ubuntu22.04-ec2", "aws-dlc", "image-tag"),
    ("914824155844.dkr.ecr.me-central-1.amazonaws.com/vllm:0.10.2-gpu-py312-cu128-ubuntu22.04-ec2", "aws-dlc",
     "image-tag"),
    ("727897471807.dkr.ecr.cn-northwest-1.amazonaws.com.cn/vllm:0.13.0-gpu-py312-ec2", "aws-dlc", "image-tag"),
    ("111122223333.dkr.ecr.ap-east-1.amazonaws.com/vllm:0.10.2-gpu-py312-cu128-ubuntu22.04-ec2", "other", "assumed"),
    ("871362719292.dkr.ecr.ap-east-1.amazonaws.com/pytorch-inference:2.6.0-gpu-py312", "other", "assumed"),
])
def test_dlc_from_every_regions_aws_account(image, family, source):
    """AWS serves its DLCs from an account of its own in each opt-in region and in China (review46)."""
    assert image_info(image).family == family
    assert image_info(image).efa is (True if family == "aws-dlc" else None)
    assert release_build(image) is (family == "aws-dlc")
    assert resolve(None, image).source == source
