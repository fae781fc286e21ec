"""SW307: a container image without a pinned version (``:latest`` or no tag)."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import Inventory, ServingGroup, Undecidable, known
from ..model.unknown import PLACEHOLDER_MARK, masked_placeholders
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
        hits: list[Hit] = []
        undecided: Undecidable | None = None
        for c in g.containers:
            if c.image is None:
                continue
            image = str(known(c.image, f"image of container `{c.name}`"))
            masked = parse_image(masked_placeholders(image))
            if masked.digest is None and PLACEHOLDER_MARK in (masked.tag if masked.tag else masked.name):
                # `image: $IMAGE`, `vllm:${TAG}`: the template's tool fills the reference, tag and all, so
                # neither "no tag, so :latest" nor a pinned release is known (corpus27: a Dynamo template's
                # `image: $MAIN_CONTAINER_IMAGE` was said to have no tag; a `${TAG}` passed as pinned). The
                # placeholders are masked first: `${TAG:-latest}` and `${IMAGE:-vllm/vllm-openai}` hold a `:` or a
                # `/` of their own, where the reference would be split (review28: the first passed as pinned to a
                # tag `-latest}`, the second was "no tag, so :latest" of a repository `vllm-openai}`)
                undecided = undecided or Undecidable(
                    f"the tag of image `{image}` (a template's placeholder) of container `{c.name}`",
                    "the template's tool fills it")
                continue
            unpinned = masked.unpinned
            if unpinned is None:
                continue
            found = "no tag, so :latest" if unpinned == "no tag" else "tag latest"
            hits.append(Hit(
                group_subject(g),
                f"container `{c.name}` uses image `{image}` ({found}), which is not pinned to a release",
                c.image_location or (c.location if (c.location.file or c.location.urn) else g.location),
                tuple(g.suppressions),
            ))
        if undecided is not None and not hits:
            try:
                raise undecided
            finally:  # not kept in this frame, which the raised value's traceback holds: no reference cycle
                undecided = None
        yield from hits
