"""SW307: a container image without a pinned version (``:latest`` or no tag)."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import Inventory, ServingGroup, known
from ..vllm.imageref import parse_image
from ._unseen import unseen_hits


class ImageUnpinned(GroupRule):
    meta = RuleMeta(
        code="SW307",
        name="image-unpinned",
        enforcement="advisory",
        severity="medium",
        summary="A serving container's image has no version: the tag is latest or missing, and no digest.",
        why=(
            "vLLM changes engine defaults, CLI flags and memory use between releases. With :latest every "
            "node can pull a different build, a rollback cannot return to what ran before, and a capacity "
            "plan checked against one version silently runs on another."
        ),
        bad_example="containers:\n  - name: vllm\n    image: vllm/vllm-openai:latest",
        good_example=(
            "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.11.0\n"
            "    # or pin the digest: vllm/vllm-openai@sha256:<digest>"
        ),
        remediation="Pin every serving image to a release tag or, better, to its digest.",
        references=(
            "https://kubernetes.io/docs/concepts/containers/images/#image-names",
            "https://kubernetes.io/docs/concepts/configuration/overview/#container-images",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )


    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            # a workload whose containers are not known yet at preview: what this rule reads is not either
            yield from unseen_hits(inv, "whether its images are pinned to a release")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        for c in g.containers:
            if c.image is None:
                continue
            image = str(known(c.image, f"image of container `{c.name}`"))
            unpinned = parse_image(image).unpinned
            if unpinned is None:
                continue
            found = "no tag, so :latest" if unpinned == "no tag" else "tag latest"
            yield Hit(
                group_subject(g),
                f"container `{c.name}` uses image `{image}` ({found}), which is not pinned to a release",
                c.image_location or (c.location if (c.location.file or c.location.urn) else g.location),
                tuple(g.suppressions),
            )
