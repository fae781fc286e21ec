"""SW407: a vLLM container behind a Service without a readiness probe."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, Inventory, ServingGroup, Undecidable
from ._env import vllm_containers
from ._net import selects, services_in
from ._words import listed


class VllmServiceWithoutReadinessProbe(GroupRule):
    meta = RuleMeta(
        code="SW407",
        name="vllm-service-without-readiness-probe",
        enforcement="advisory",
        severity="medium",
        summary="A Service sends traffic to a vLLM container that has no readiness probe.",
        why=(
            "Without a readiness probe a pod counts as ready as soon as its containers start, so the Service "
            "routes requests to it during the minutes vLLM spends loading weights, profiling memory and "
            "capturing CUDA graphs: clients get refused connections, and a rolling update removes old replicas "
            "before the new ones can answer. vLLM answers GET /health with 200 once it serves, and stops "
            "answering when its engine dies."
        ),
        bad_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    args: [meta-llama/Llama-3.1-8B-Instruct]\n"
            "    # no readinessProbe, and a Service selects the pod"
        ),
        good_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    args: [meta-llama/Llama-3.1-8B-Instruct]\n"
            "    readinessProbe:\n"
            "      httpGet: {path: /health, port: 8000}\n"
            "      periodSeconds: 5"
        ),
        remediation=(
            "Give every vLLM container a readinessProbe on GET /health (the server's port), next to a startup "
            "probe long enough for the model to load."
        ),
        references=(
            "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-readiness-probes",
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        unready = [c for c in vllm_containers(g) if "readiness" not in c.probes]
        if not unready:
            return
        services = []
        for svc in services_in(inv, g.namespace):
            if svc.selector is UNKNOWN or g.pod_labels is UNKNOWN:
                raise Undecidable(f"the selector of Service `{svc.name}` or the pod labels of {group_subject(g)}")
            if selects(svc, g):
                services.append(svc)
        if not services:
            return
        names = listed(f"`{s.namespace}/{s.name}`" for s in services)
        for c in unready:
            yield Hit(
                group_subject(g),
                f"Service {names} sends traffic to container `{c.name}` of {group_subject(g)}, which has no "
                "readiness probe, so requests reach it while the model is still loading; required: a "
                "readinessProbe on GET /health",
                c.location if (c.location.file or c.location.urn) else g.location,
                tuple(g.suppressions),
            )
