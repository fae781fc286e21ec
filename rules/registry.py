"""The explicit rule registry: every rule, in code order. Nothing registers itself on import."""

from __future__ import annotations

from .checks import (
    sw001,
    sw101,
    sw102,
    sw103,
    sw104,
    sw105,
    sw106,
    sw201,
    sw202,
    sw203,
    sw204,
    sw205,
    sw206,
    sw207,
)
from .engine import Rule

# --- SW3xx / SW4xx (network, security, reliability): imports below this line ---
# --- end SW3xx / SW4xx imports ---

ALL_RULES: tuple[Rule, ...] = (
    sw001.SuppressionWithoutReason(),
    sw101.WeightsDoNotFit(),
    sw102.KvCapacityBelowMaxModelLen(),
    sw103.KvBudgetBelowLoad(),
    sw104.ShardedModelThatFits(),
    sw105.MemoryUtilizationOutOfRange(),
    sw106.ShardingAvoidableByQuantization(),
    sw201.TensorParallelLargerThanNode(),
    sw202.TensorParallelOverPcie(),
    sw203.HeadsNotDivisibleByTp(),
    sw204.GpuRequestNotTp(),
    sw205.MultiNodeWithoutFastFabric(),
    sw206.WorkloadWithoutGpuPool(),
    sw207.ExpertParallelOnDenseModel(),
    # --- SW3xx / SW4xx entries below this line ---
    # --- end SW3xx / SW4xx entries ---
)

_BY_CODE = {r.meta.code: r for r in ALL_RULES}


def rule_by_code(code: str) -> Rule:
    """The rule with this code; KeyError when there is none."""
    return _BY_CODE[code.upper()]


def codes() -> list[str]:
    return list(_BY_CODE)
