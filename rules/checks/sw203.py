"""SW203: attention or KV heads not divisible by the tensor-parallel size."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ._capacity import require_model, tp_pp


class HeadsNotDivisibleByTp(GroupRule):
    meta = RuleMeta(
        code="SW203",
        name="heads-not-divisible-by-tp",
        enforcement="mandatory",
        severity="critical",
        summary="Attention heads (or KV heads) are not divisible by tensor_parallel_size as vLLM requires.",
        why=(
            "vLLM splits attention by heads: it refuses to start when the attention heads are not a "
            "multiple of TP, and KV heads must either divide evenly across ranks or be replicated "
            "(TP a multiple of the KV heads). Pipeline stages need at least one layer each."
        ),
        bad_example="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 8   # 28 heads",
        good_example="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4",
        remediation="Choose a tensor_parallel_size that divides the model's attention heads.",
        references=("https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",),
        scope="resource",
    )
    fields = ("tensor_parallel_size", "pipeline_parallel_size")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        tp, pp = tp_pp(g)
        heads, kv = model.num_attention_heads, model.num_key_value_heads
        if heads % tp:
            yield hit(g, f"SW203: {model.id} has {heads} attention heads, not divisible by "
                         f"tensor_parallel_size {tp}")
        elif model.mla is None and kv % tp and tp % kv:
            yield hit(g, f"SW203: {model.id} has {kv} KV heads; tensor_parallel_size {tp} neither divides "
                         "them nor is a multiple of them")
        if pp > model.num_hidden_layers:
            yield hit(g, f"SW203: pipeline_parallel_size {pp} exceeds the {model.num_hidden_layers} layers "
                         f"of {model.id}")
