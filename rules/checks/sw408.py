"""SW408: a debugging switch left on in a serving container."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..engine import GroupRule, Hit, LintConfig, RuleMeta
from ..model import Inventory, ServingGroup
from ._env import switch_hits
from ._unseen import held_back_hits


def _int_on(value: str) -> bool:
    """How CUDA and vLLM read these switches: an integer other than 0 turns them on."""
    try:
        return int(value) != 0
    except ValueError:
        return False


def _word_on(*words: str) -> Callable[[str], bool]:
    """A switch that a level or a word turns on (compared without case or surrounding space)."""
    on = {w.lower() for w in words}
    return lambda value: value.strip().lower() in on


@dataclass(frozen=True)
class Switch:
    """One switch the rule reads, how to tell it is on, and what the message requires of it."""

    effect: str  # what it does when on
    on: Callable[[str], bool]  # whether a value turns it on
    off: str  # what the message requires


#: variable -> the debugging switch it is. Each is documented as a debugging aid by its project:
#: CUDA_LAUNCH_BLOCKING (CUDA programming guide, environment variables), VLLM_TRACE_FUNCTION and
#: VLLM_LOGGING_LEVEL (vLLM's troubleshooting guide and vllm/envs.py), VLLM_DEBUG_LOG_API_SERVER_RESPONSE
#: (vllm/envs.py; the API server warns that it logs what the responses hold), NCCL_DEBUG (NCCL's environment
#: variables: VERSION and WARN print almost nothing, INFO prints the set-up of each communicator with the default
#: NCCL_DEBUG_SUBSYS; TRACE "prints replayable trace information on every call"), TORCH_DISTRIBUTED_DEBUG
#: (PyTorch's distributed docs: DETAIL "may impact the application performance and thus should only be used
#: when debugging issues"; INFO adds start-up logs only).
SWITCHES: dict[str, Switch] = {
    "CUDA_LAUNCH_BLOCKING": Switch(
        "makes every CUDA kernel launch wait until the kernel finishes (the CPU and the GPU stop "
        "overlapping), costing a large part of the throughput", _int_on, "CUDA_LAUNCH_BLOCKING unset or 0"),
    "VLLM_TRACE_FUNCTION": Switch(
        "makes vLLM log every Python function call, slowing each step by orders of magnitude", _int_on,
        "VLLM_TRACE_FUNCTION unset or 0"),
    "NCCL_DEBUG": Switch(
        "turns on NCCL's most verbose level, meant for debugging (with NCCL_DEBUG_SUBSYS naming COLL or CALL, a "
        "log line per collective on every token)",
        _word_on("trace"), "NCCL_DEBUG unset, WARN or INFO"),
    "TORCH_DISTRIBUTED_DEBUG": Switch(
        "makes torch.distributed check every collective call, a cost PyTorch documents as for debugging only",
        _word_on("detail"), "TORCH_DISTRIBUTED_DEBUG unset, OFF or INFO"),
    "VLLM_LOGGING_LEVEL": Switch(
        "makes vLLM log at debug level, as its troubleshooting guide does to chase a problem",
        _word_on("debug"), "VLLM_LOGGING_LEVEL unset or INFO"),
    "VLLM_DEBUG_LOG_API_SERVER_RESPONSE": Switch(
        "makes the API server log every response it sends, with what the model wrote to the users",
        _word_on("true"), "VLLM_DEBUG_LOG_API_SERVER_RESPONSE unset or false"),
}


class DebugSwitchInServing(GroupRule):
    meta = RuleMeta(
        code="SW408",
        name="debug-switch-in-serving",
        enforcement="advisory",
        severity="medium",
        summary=("A vLLM container serves with a debugging switch on (CUDA_LAUNCH_BLOCKING=1, VLLM_TRACE_FUNCTION=1, "
                 "NCCL_DEBUG=TRACE, TORCH_DISTRIBUTED_DEBUG=DETAIL, VLLM_LOGGING_LEVEL=DEBUG, "
                 "VLLM_DEBUG_LOG_API_SERVER_RESPONSE=true)."),
        why=(
            "vLLM's troubleshooting guide suggests CUDA_LAUNCH_BLOCKING=1 to find the kernel behind a CUDA "
            "error, VLLM_TRACE_FUNCTION=1 and NCCL_DEBUG=TRACE to find where a process hangs, and "
            "VLLM_LOGGING_LEVEL=DEBUG for more logs. They are for a debugging run: left in a serving manifest, "
            "every kernel launch blocks the CPU until the GPU finishes (no overlap, no CUDA-graph speed-up), "
            "every function call or every NCCL collective is written to a log, and the replica serves a "
            "fraction of its throughput. TORCH_DISTRIBUTED_DEBUG=DETAIL adds a consistency check to every "
            "collective; VLLM_DEBUG_LOG_API_SERVER_RESPONSE=true writes users' responses into the logs. "
            "NCCL_DEBUG=INFO and TORCH_DISTRIBUTED_DEBUG=INFO print when communicators are set up, and are "
            "common in multi-node manifests to show the transport NCCL chose: not findings."
        ),
        bad_example="env:\n  - {name: CUDA_LAUNCH_BLOCKING, value: '1'}",
        good_example="env:\n  - {name: VLLM_LOGGING_LEVEL, value: INFO}   # no debugging switches",
        remediation=("Remove the debugging switches from serving containers, or set them to their serving values: "
                     "CUDA_LAUNCH_BLOCKING and VLLM_TRACE_FUNCTION 0, NCCL_DEBUG WARN or INFO, "
                     "TORCH_DISTRIBUTED_DEBUG OFF, VLLM_LOGGING_LEVEL INFO."),
        references=(
            "https://docs.vllm.ai/en/latest/usage/troubleshooting.html",
            "https://docs.vllm.ai/en/latest/configuration/env_vars.html",
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug",
            "https://docs.pytorch.org/docs/stable/distributed.html#debugging-torch-distributed-applications",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether it serves with a debugging switch on")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        def judge(name: str, value: str, via: str) -> str | None:
            switch = SWITCHES[name]
            return f"sets {name}={value}{via}, which {switch.effect}" if switch.on(value) \
                else None

        yield from switch_hits(inv, g, SWITCHES, judge)
