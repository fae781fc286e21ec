"""SW106: a supported lower-precision variant would make sharding unnecessary."""

from __future__ import annotations

from collections.abc import Iterable

from ..catalog.types import Precision
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup
from ..sizing import BYTES_PER_PARAM, min_gpus, weights_gb
from ._capacity import gpu_memory_gb, gpu_name, gpu_of, precision, require_model, tp_pp

_LABEL = {"fp8": "FP8", "int4": "4-bit AWQ/GPTQ"}


class ShardingAvoidableByQuantization(GroupRule):
    meta = RuleMeta(
        code="SW106",
        name="sharding-avoidable-by-quantization",
        enforcement="advisory",
        severity="low",
        summary="A supported lower-precision variant of the model would fit on one GPU.",
        why=(
            "FP8 (on Ada, Hopper and Blackwell GPUs) and 4-bit AWQ/GPTQ checkpoints halve or quarter the "
            "weights. When that removes the need to shard, each replica needs fewer GPUs and no all-reduce "
            "per layer — often with quality loss small enough to accept, which an evaluation must confirm."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4",
        good_example="vllm serve hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4   # one H100",
        remediation=(
            "Evaluate the quantised variant on your own prompts; if its quality is acceptable serve it "
            "with one GPU per replica, otherwise suppress the rule with the evaluation as the reason."
        ),
        references=("https://docs.vllm.ai/en/latest/features/quantization/index.html",),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "model")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        gb = gpu_memory_gb(g)
        if not gb:
            return
        tp, pp = tp_pp(g)
        if tp * pp <= 1:
            return
        current = precision(g, model)
        gpu = gpu_of(g)
        candidates: list[Precision] = ["int4"]
        if gpu is None or gpu.fp8:
            candidates.insert(0, "fp8")
        for p in candidates:
            if BYTES_PER_PARAM[p] >= BYTES_PER_PARAM[current]:
                continue
            need = min_gpus(model, gb, p, config.kv_reserve, config.usable_fraction)
            if need["tensor_parallel_size"] == 1:
                yield hit(
                    g,
                    f"SW106: {model.id} is sharded over {tp * pp} GPUs in {current}; a {_LABEL[p]} variant "
                    f"({weights_gb(model, p):.1f} GB of weights) would fit one {gpu_name(g)} with the "
                    f"{config.kv_reserve:g} KV reserve",
                )
                return
