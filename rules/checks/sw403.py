"""SW403: autoscaling vLLM on CPU or GPU utilisation instead of queue depth."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, hit
from ..model import UNKNOWN, Autoscaler, Inventory, Undecidable
from ._net import targets

_QUEUE = ("num_requests_waiting", "num_requests_running", "requests_waiting", "requests_running",
          "in_flight", "inflight", "queue", "pending_requests", "concurrency")
_UTILISATION = ("gpu_util", "gpu-util", "gpu.util", "utilization", "utilisation", "duty_cycle")


def metric_kind(metric: str) -> str:
    """``queue`` (load-aware), ``utilization`` (CPU, memory, GPU busy) or ``other``."""
    m = metric.strip().lower()
    if any(k in m for k in _QUEUE):
        return "queue"
    if m in ("cpu", "memory", "gpu") or any(k in m for k in _UTILISATION):
        return "utilization"
    return "other"


class AutoscalingOnUtilization(ObjectRule[Autoscaler]):
    meta = RuleMeta(
        code="SW403",
        name="autoscaling-on-utilization",
        enforcement="advisory",
        severity="medium",
        summary="vLLM replicas are autoscaled on CPU, memory or GPU utilisation instead of queue depth.",
        why=(
            "A vLLM server keeps one CPU core busy polling and reports its GPU as ~100% utilised whenever "
            "any request runs, and its memory is pre-allocated for the KV cache at start-up. None of these "
            "rises with load, so a utilisation target either never scales out or pins the replica count at "
            "the maximum. Requests waiting in vLLM's queue (vllm:num_requests_waiting) measure exactly the "
            "demand a new replica would absorb."
        ),
        bad_example=(
            "apiVersion: autoscaling/v2\n"
            "kind: HorizontalPodAutoscaler\n"
            "spec:\n"
            "  metrics:\n"
            "    - type: Resource\n"
            "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}"
        ),
        good_example=(
            "apiVersion: keda.sh/v1alpha1\n"
            "kind: ScaledObject\n"
            "spec:\n"
            "  triggers:\n"
            "    - type: prometheus\n"
            "      metadata:\n"
            "        query: sum(vllm:num_requests_waiting{model_name=\"llama\"})\n"
            "        threshold: '5'"
        ),
        remediation=(
            "Scale on vllm:num_requests_waiting (a KEDA Prometheus trigger or an HPA external metric, a "
            "threshold around 5 per replica) or on in-flight requests, and add a scale-down stabilisation "
            "window of a few minutes so replicas still loading weights do not cause flapping."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/design/metrics.html",
            "https://keda.sh/docs/latest/scalers/prometheus/",
            "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
    )

    def objects(self, inv: Inventory) -> Iterable[Autoscaler]:
        return inv.autoscalers

    def check_object(self, a: Autoscaler, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        groups = targets(inv, a)
        if not groups and not (a.target_name is UNKNOWN and _serving_in(inv, a)):
            return
        # a metric not known at preview (UNKNOWN) may be any: a utilisation written beside it is sure
        used = [m for m in a.metrics if isinstance(m, str) and metric_kind(m) == "utilization"]
        if not used:
            if UNKNOWN in a.metrics:
                raise Undecidable(f"a metric of {a.kind} `{a.name}`")
            return
        if not groups:
            raise Undecidable(f"which workload {a.kind} `{a.name}` scales (its scaleTargetRef)")
        yield hit(
            a,
            f"scales {group_subject(groups[0])} on {', '.join(used)}, which does not rise with vLLM's load as "
            "its queue does",
        )


def _serving_in(inv: Inventory, a: Autoscaler) -> bool:
    """Whether the autoscaler's namespace, in its deployable unit, holds a serving group it may scale (its target not
    known at preview)."""
    return any(g.kind != "plan" and g.namespace == a.namespace and inv.same_unit(a.location.file, g.location.file)
               for g in inv.groups)
