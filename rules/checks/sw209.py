"""SW209: the vLLM image is a build for another accelerator than the one the pod requests."""

from __future__ import annotations

from collections.abc import Iterable

from ..catalog.accelerators import families_of, image_families
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known
from ._layout import cpu_image
from ._unseen import held_back_hits


class ImageForAnotherAccelerator(GroupRule):
    meta = RuleMeta(
        code="SW209",
        name="image-for-another-accelerator",
        enforcement="advisory",
        severity="high",
        summary=(
            "The vLLM image is built for another accelerator than the pod requests (a ROCm, Gaudi, TPU, Neuron "
            "or XPU image with nvidia.com/gpu, a CUDA image with amd.com/gpu or google.com/tpu), or is the CPU "
            "build on a pod that holds accelerators."
        ),
        why=(
            "vLLM is built once per platform: the CUDA image (vllm/vllm-openai) carries no ROCm, HPU, XLA or "
            "Neuron runtime, and the ROCm, Gaudi, TPU and Neuron images carry no CUDA. The accelerator request "
            "decides the node the pod lands on, so with another platform's image the pod is scheduled onto "
            "devices its vLLM cannot use and exits at start-up without finding one. The CPU build starts, but "
            "never uses the accelerators the pod holds. The image's platform is read from the words of its "
            "name and tag (rocm, gaudi, hpu, tpu, neuronx, xpu, ascend, rbln, cuda) and from repositories "
            "that are one platform's build; an image that says nothing is not judged."
        ),
        bad_example=("image: rocm/vllm:latest\nresources:\n  limits:\n    nvidia.com/gpu: 1"),
        good_example=("image: vllm/vllm-openai:v0.10.1\nresources:\n  limits:\n    nvidia.com/gpu: 1"),
        remediation=(
            "Use the image built for the requested accelerator (vllm/vllm-openai for NVIDIA, rocm/vllm for AMD, "
            "vllm/vllm-tpu for TPUs, the Gaudi, Neuron, XPU or Ascend builds of their vendors), or request the "
            "accelerator the image is built for; drop the accelerator request for the CPU build."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/getting_started/installation/",
            "https://docs.vllm.ai/en/latest/deployment/docker.html",
        ),
        mandatory_when="when the image is built for another accelerator (not the CPU build)",
        scope="resource",
        applies_to_plans=False,
    )
    fields = ("image",)  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its image is built for the accelerator it requests")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        c = g.main_container
        resource = g.accelerator_resource
        if c is None or not resource:
            return
        wanted = families_of(resource)
        if not wanted:  # a family the vendor table does not know: SW204 says it cannot decide
            return
        # an image not known yet (a computed value at preview) may be any platform's build: never "says nothing"
        known(c.image, f"the image of container `{c.name}`")
        if not isinstance(c.image, str):
            return
        need = " or ".join(dict.fromkeys(a.title for a in wanted))
        if cpu_image(c.image):
            yield hit(g, f"image {c.image} is vLLM's CPU build but the pod requests {resource} ({need}); "
                         "vLLM runs on the CPU and the accelerators stay reserved and idle",
                      location=g.at("image"))
            return
        built = image_families(c.image)
        if not built or {a.family for a in built} & {a.family for a in wanted}:
            return
        platform = " or ".join(dict.fromkeys(a.title for a in built))
        yield hit(g, f"image {c.image} is built for {platform} but the pod requests {resource} ({need}); "
                     "the pod lands on a node whose accelerators this vLLM build cannot use and exits at start-up; "
                     f"use a vLLM image built for {need}, or request the accelerator this image is built for",
                  location=g.at("image"), level="mandatory")
