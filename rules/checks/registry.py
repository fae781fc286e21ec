"""The explicit rule registry: every rule, in code order. Nothing registers itself on import."""

from __future__ import annotations

from ..engine import Rule
from . import (
    sw001,
    sw002,
    sw003,
    sw004,
    sw005,
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
    sw208,
    sw209,
    sw301,
    sw302,
    sw303,
    sw304,
    sw305,
    sw306,
    sw307,
    sw308,
    sw309,
    sw310,
    sw311,
    sw312,
    sw401,
    sw402,
    sw403,
    sw404,
    sw405,
    sw406,
    sw407,
    sw408,
)
from .index import wire_not_running

# --- SW3xx / SW4xx (network, security, reliability): imports below this line ---
# (ruff's isort keeps them in the sorted `from .checks import (...)` list above: sw301 … sw406)
# --- end SW3xx / SW4xx imports ---

ALL_RULES: tuple[Rule, ...] = (
    sw001.SuppressionWithoutReason(),
    sw002.VllmCommandNotUnderstood(),
    sw003.VllmCommandCrashes(),
    sw004.ModelNotKnownToShardwise(lambda: ALL_RULES),
    sw005.VllmMentionedNotRead(),
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
    sw208.GpusRequestedButUnused(),
    sw209.ImageForAnotherAccelerator(),
    # --- SW3xx / SW4xx entries below this line ---
    sw301.RuntimePortExposed(),
    sw302.EfaWithoutSelfReference(),
    sw303.GpuNodesInPublicSubnet(),
    sw304.ImdsV2NotRequired(),
    sw305.NamespaceWithoutDefaultDeny(),
    sw306.VllmExposedWithoutGateway(),
    sw307.ImageUnpinned(),
    sw308.LiteralSecretInManifest(),
    sw309.VllmPodWithHostAccess(),
    sw310.GpuVisibilitySetByHand(),
    sw311.TlsVerificationDisabled(),
    sw312.RuntimeLoraWithoutAuth(),
    sw401.ParallelWithoutShm(),
    sw402.LivenessWithoutStartupProbe(),
    sw403.AutoscalingOnUtilization(),
    sw404.SingleReplicaInProduction(),
    sw405.LwsWithoutGroupRestart(),
    sw406.RoundRobinInFrontOfVllm(),
    sw407.VllmServiceWithoutReadinessProbe(),
    sw408.DebugSwitchInServing(),
    # --- end SW3xx / SW4xx entries ---
)

wire_not_running(ALL_RULES)  # SW201 (Pending pods), SW204 (MIG): which replicas do not run as written; the others ask

_BY_CODE = {r.meta.code: r for r in ALL_RULES}


def rule_by_code(code: str) -> Rule:
    """The rule with this code; KeyError when there is none."""
    return _BY_CODE[code.upper()]


def codes() -> list[str]:
    return list(_BY_CODE)
