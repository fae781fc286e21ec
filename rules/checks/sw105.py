"""SW105: gpu_memory_utilization outside the sane range."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known

LOW, HIGH = 0.5, 0.95


class MemoryUtilizationOutOfRange(GroupRule):
    meta = RuleMeta(
        code="SW105",
        name="gpu-memory-utilization-out-of-range",
        enforcement="advisory",
        severity="medium",
        summary=f"gpu_memory_utilization is above {HIGH} or below {LOW}.",
        why=(
            "Above 0.95 there is no room left for the CUDA context, NCCL buffers and fragmentation, and "
            "the server dies with out-of-memory under load. Below 0.5 half of an expensive GPU sits idle "
            "while the KV cache, the real capacity ceiling, is starved."
        ),
        bad_example="--gpu-memory-utilization 0.99",
        good_example="--gpu-memory-utilization 0.90",
        remediation=f"Keep --gpu-memory-utilization between {LOW} and {HIGH}; 0.90 is vLLM's default.",
        references=("https://docs.vllm.ai/en/latest/configuration/engine_args.html",),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("gpu_memory_utilization",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        u = float(known(g.engine.gpu_memory_utilization, "gpu_memory_utilization"))
        if u > HIGH:
            yield hit(g, f"SW105: gpu_memory_utilization is {u:g}, above {HIGH}: no headroom for "
                         "the CUDA context, NCCL buffers and fragmentation")
        elif u < LOW:
            yield hit(g, f"SW105: gpu_memory_utilization is {u:g}, below {LOW}: most of each GPU's "
                         "memory is left unused by the KV cache")
