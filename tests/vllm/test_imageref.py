"""One reader of image references: what SW307, the components, the version table and the accelerator
rules read from an image all come from :func:`parse_image`."""

import pytest
from shardwise.rules.render.workload import unpinned_image_reason
from shardwise.rules.vllm.imageref import parse_image


@pytest.mark.parametrize("text,fields", [
    ("vllm/vllm-openai", (None, "vllm/vllm-openai", None, None)),
    ("vllm/vllm-openai:latest", (None, "vllm/vllm-openai", "latest", None)),
    ("vllm/vllm-openai:v0.11.0", (None, "vllm/vllm-openai", "v0.11.0", None)),
    ("registry.example.com:5000/team/vllm", ("registry.example.com:5000", "team/vllm", None, None)),
    ("registry.example.com:5000/team/vllm:v1", ("registry.example.com:5000", "team/vllm", "v1", None)),
    ("localhost/vllm:dev", ("localhost", "vllm", "dev", None)),
    ("vllm/vllm-openai@sha256:0123abcd", (None, "vllm/vllm-openai", None, "sha256:0123abcd")),
    ("vllm/vllm-openai:v0.11.0@sha256:0123abcd", (None, "vllm/vllm-openai", "v0.11.0", "sha256:0123abcd")),
    ("docker.io/library/ubuntu:24.04", ("docker.io", "library/ubuntu", "24.04", None)),
    ("vllm/vllm-openai:", (None, "vllm/vllm-openai", "", None)),
])
def test_the_parts_of_a_reference(text, fields):
    ref = parse_image(text)
    assert (ref.registry, ref.path, ref.tag, ref.digest) == fields


def test_derived_names():
    ref = parse_image("public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1-neuronx-py310")
    assert (ref.repository, ref.qualified, ref.name, ref.name_and_tag) == (
        "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx", "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx",
        "pytorch-inference-vllm-neuronx", "pytorch-inference-vllm-neuronx:0.9.1-neuronx-py310")
    assert parse_image("docker.io/library/ubuntu:24.04").qualified == "ubuntu"
    assert parse_image("index.docker.io/rocm/vllm").qualified == "rocm/vllm"


@pytest.mark.parametrize("text,unpinned", [
    ("vllm/vllm-openai", "no tag"), ("vllm/vllm-openai:", "no tag"), ("vllm/vllm-openai:latest", "latest"),
    ("vllm/vllm-openai:v0.11.0", None), ("vllm/vllm-openai@sha256:0123abcd", None),
    ("vllm/vllm-openai:latest@sha512:0123abcd", None), ("registry.example.com:5000/team/vllm", "no tag"),
])
def test_what_is_pinned(text, unpinned):
    assert parse_image(text).unpinned == unpinned


@pytest.mark.parametrize("text,reason", [
    ("vllm/vllm-openai", "image `vllm/vllm-openai` has no tag: it means `latest` and changes under a running deployment"),
    ("vllm/vllm-openai:", "image `vllm/vllm-openai:` has no tag: it means `latest` and changes under a running deployment"),
    ("vllm/vllm-openai:latest", "image `vllm/vllm-openai:latest` uses the tag `latest`, which changes under a running "
                                "deployment"),
    ("vllm/vllm-openai:latest@sha512:0123abcd", None),
    ("registry.example.com:5000/team/vllm:v1", None),
])
def test_the_components_refuse_what_sw307_reports(text, reason):
    assert unpinned_image_reason(text) == reason
