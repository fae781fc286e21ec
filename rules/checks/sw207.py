"""SW207: expert parallelism on a dense model."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import require_model
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known
from ._unseen import held_back_hits


class ExpertParallelOnDenseModel(GroupRule):
    meta = RuleMeta(
        code="SW207",
        name="expert-parallel-on-dense-model",
        enforcement="mandatory",
        severity="medium",
        summary="Expert parallelism is enabled for a model that has no experts.",
        why=(
            "Expert parallelism places whole experts of a Mixture-of-Experts model on different ranks. A "
            "dense transformer has no experts to place, so the flag changes nothing but signals a layout "
            "nobody checked."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --enable-expert-parallel",
        good_example="vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --enable-expert-parallel",
        remediation="Remove --enable-expert-parallel, or serve a Mixture-of-Experts model.",
        references=("https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment.html",),
        scope="resource",
    )
    fields = ("enable_expert_parallel",)  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether it enables expert parallelism for a model without experts")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not known(g.engine.enable_expert_parallel, "enable_expert_parallel"):
            return
        model = require_model(g)
        if model.moe is None:
            yield hit(g, f"--enable-expert-parallel is set but {model.id} is a dense model with no experts; "
                         "remove the flag")
