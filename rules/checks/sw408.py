"""SW408: a debugging switch left on in a serving container."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta
from ..model import Inventory, ServingGroup
from ._env import switch_hits


def _int_on(value: str) -> bool:
    """How CUDA and vLLM read these switches: an integer other than 0 turns them on."""
    try:
        return int(value) != 0
    except ValueError:
        return False


#: variable -> (what it does, whether a value turns it on)
SWITCHES = {
    "CUDA_LAUNCH_BLOCKING": (
        "makes every CUDA kernel launch wait until the kernel finishes (the CPU and the GPU stop "
        "overlapping), costing a large part of the throughput",
        _int_on),
    "VLLM_TRACE_FUNCTION": (
        "makes vLLM log every Python function call, slowing each step by orders of magnitude",
        _int_on),
}


class DebugSwitchInServing(GroupRule):
    meta = RuleMeta(
        code="SW408",
        name="debug-switch-in-serving",
        enforcement="advisory",
        severity="medium",
        summary="A vLLM container serves with a debugging switch on (CUDA_LAUNCH_BLOCKING=1, VLLM_TRACE_FUNCTION=1).",
        why=(
            "vLLM's troubleshooting guide suggests CUDA_LAUNCH_BLOCKING=1 to find the kernel behind a CUDA "
            "error and VLLM_TRACE_FUNCTION=1 to find where a process hangs. Both are for a debugging run: "
            "left in a serving manifest, every kernel launch blocks the CPU until the GPU finishes (no "
            "overlap, no CUDA-graph speed-up), or every function call is written to a log, and the replica "
            "serves a fraction of its throughput."
        ),
        bad_example="env:\n  - {name: CUDA_LAUNCH_BLOCKING, value: '1'}",
        good_example="env:\n  - {name: VLLM_LOGGING_LEVEL, value: INFO}   # no debugging switches",
        remediation="Remove CUDA_LAUNCH_BLOCKING and VLLM_TRACE_FUNCTION from serving containers (or set them to 0).",
        references=(
            "https://docs.vllm.ai/en/latest/usage/troubleshooting.html",
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        def judge(name: str, value: str, via: str) -> str | None:
            effect, on = SWITCHES[name]
            return f"sets {name}={value}{via}, which {effect}; required: {name} unset or 0" if on(value) else None

        yield from switch_hits(inv, g, SWITCHES, judge)
