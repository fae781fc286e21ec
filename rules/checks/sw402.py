"""SW402: a liveness probe without a startup probe that covers loading the model."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.cache import BASE_STARTUP_SECONDS, SECONDS_PER_WEIGHT_GIB
from ..capacity.sizing import weight_precision, weights_bytes
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject, hit
from ..model import Inventory, Probe, ServingGroup, known


def required_startup_seconds(g: ServingGroup) -> int:
    """The least time a startup probe must allow: base start-up plus reading the pod's weights."""
    if g.model is None:
        return BASE_STARTUP_SECONDS
    try:
        precision = weight_precision(g.model, g.engine.dtype, g.engine.quantization)
        pods = g.pods_per_group if isinstance(g.pods_per_group, int) and g.pods_per_group > 0 else 1
        gib = weights_bytes(g.model, precision) / 2**30 / pods
    except (KeyError, ValueError, TypeError):
        return BASE_STARTUP_SECONDS
    return int(BASE_STARTUP_SECONDS + SECONDS_PER_WEIGHT_GIB * gib)


def _checked(p: Probe, container: str) -> Probe:
    for field in ("initial_delay_seconds", "period_seconds", "failure_threshold"):
        known(getattr(p, field), f"{p.kind} probe {field} of container `{container}`")
    return p


def _budget(p: Probe) -> str:
    return (f"{p.budget_seconds} s (initialDelaySeconds {p.initial_delay_seconds} + periodSeconds "
            f"{p.period_seconds} × failureThreshold {p.failure_threshold})")


class LivenessWithoutStartupProbe(GroupRule):
    meta = RuleMeta(
        code="SW402",
        name="liveness-without-startup-probe",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A vLLM container's probes can kill it before the model has loaded: a liveness probe that gives up "
            "sooner, with no startup probe, or a startup probe that gives up sooner."
        ),
        why=(
            "vLLM answers /health only after it has loaded the weights, profiled memory and captured CUDA "
            "graphs: minutes for large models. A liveness probe whose failures add up before that "
            "(initialDelaySeconds + periodSeconds × failureThreshold) kills the container mid-load, and the pod "
            "restarts forever (CrashLoopBackOff) without serving once. A startup probe holds the liveness probe "
            "back until the first success; without one, the liveness probe itself must wait long enough."
        ),
        bad_example=(
            "livenessProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 3"
        ),
        good_example=(
            "startupProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 90   # 15 minutes to load\n"
            "livenessProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 3"
        ),
        remediation=(
            "Add a startupProbe on /health whose periodSeconds × failureThreshold (plus "
            "initialDelaySeconds) exceeds the longest model load you have measured, with margin. Keep the "
            "liveness probe for detecting a hung server after start-up."
        ),
        references=(
            "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes",
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("probe:liveness", "probe:startup")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        c = g.main_container
        if c is None:
            return
        liveness = c.probes.get("liveness")
        if liveness is None:
            return
        liveness = _checked(liveness, c.name)
        need = required_startup_seconds(g)
        startup = c.probes.get("startup")
        if startup is not None:
            startup = _checked(startup, c.name)
        if startup is None:
            if liveness.budget_seconds >= need:  # the first kill comes after the model has loaded
                return
            yield hit(g, f"container `{c.name}` of {group_subject(g)} has a liveness probe that acts "
                         f"after {_budget(liveness)} and no startup probe; loading the model needs about "
                         f"{need} s, so required: a startup probe allowing at least {need} s")
        elif startup.budget_seconds < need:
            yield hit(g, f"the startup probe of container `{c.name}` of {group_subject(g)} allows "
                         f"{_budget(startup)}; loading the model needs about {need} s, so required: at "
                         f"least {need} s", location=g.at("probe:startup"))
