"""SW104: a model that fits fewer GPUs is sharded over more — replicate instead."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..sizing import min_gpus
from ._capacity import gpu_memory_gb, gpu_name, precision, require_model, tp_pp


class ShardedModelThatFits(GroupRule):
    meta = RuleMeta(
        code="SW104",
        name="sharded-model-that-fits",
        enforcement="mandatory",
        severity="high",
        summary=(
            "The model is sharded (TP × PP) over more GPUs than its weights plus KV reserve need; "
            "replicate instead."
        ),
        why=(
            "Tensor parallelism buys the capacity to load a model, not throughput: every layer ends in an "
            "all-reduce across the group, on every token. A model that fits fewer GPUs serves more "
            "traffic, with lower latency and cost per token, as independent replicas on the same GPUs "
            "(the seeds' plan A: 8 × TP1 serves 48 rps where 2 × TP4 serves 18)."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2   # on H100s",
        good_example="replicas: 2\nargs: [meta-llama/Llama-3.1-8B-Instruct]   # TP1, two independent copies",
        remediation=(
            "Lower --tensor-parallel-size to the shard count the message gives and run more replicas "
            "behind the router; if a benchmark shows the sharded layout is faster for your traffic, "
            "suppress the rule with that measurement as the reason."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://github.com/shardwise/shardwise/blob/main/docs/capacity-model.md",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "pipeline_parallel_size")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        gb = gpu_memory_gb(g)
        if not gb:
            return
        tp, pp = tp_pp(g)
        used = tp * pp
        if used <= 1:
            return
        weights_at = precision(g, model)
        need = min_gpus(model, gb, weights_at, config.kv_reserve, config.usable_fraction)
        per_replica = need["tensor_parallel_size"]
        if used <= per_replica:
            return
        replicas = used // per_replica
        yield hit(
            g,
            f"SW104: {model.id} ({need['need_gb'] / config.kv_reserve:.1f} GB of {weights_at} weights) is "
            f"sharded over {used} GPUs (TP{tp}×PP{pp}) but needs {per_replica} {gpu_name(g)} "
            f"GPU{'s' if per_replica > 1 else ''} with the {config.kv_reserve:g} KV reserve "
            f"({need['need_gb']:.1f} GB needed, {need['per_gpu_gb']:.1f} GB usable per GPU); replicate "
            f"instead: {replicas} replicas × TP{per_replica} on the same {used} GPUs",
        )
