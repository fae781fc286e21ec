"""SW407: a vLLM container behind a Service without a readiness probe."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import UNKNOWN, Container, Inventory, Probe, ServingGroup, Undecidable
from ._env import vllm_containers
from ._net import selects, services_in
from ._unseen import held_back_hits
from ._words import listed


class VllmServiceWithoutReadinessProbe(GroupRule):
    meta = RuleMeta(
        code="SW407",
        name="vllm-service-without-readiness-probe",
        enforcement="advisory",
        severity="medium",
        summary=("A Service sends traffic to a vLLM container that has no readiness probe and no startup probe "
                 "on its API port."),
        why=(
            "Without a readiness probe a pod counts as ready as soon as its containers start, so the Service "
            "routes requests to it during the minutes vLLM spends loading weights, profiling memory and "
            "capturing CUDA graphs: clients get refused connections, and a rolling update removes old replicas "
            "before the new ones can answer. A startup probe closes that window too: the kubelet counts a "
            "container ready only after its startup probe has succeeded, and one without a readiness probe is "
            "ready from then on. vLLM binds its API port before loading the model but listens on it only once "
            "the engine is up, so any HTTP or TCP probe of that port (GET /health, /v1/models, /ping) first "
            "succeeds when the server can answer; an exec probe or another port proves nothing. A readiness "
            "probe on GET /health also takes a replica whose engine died out of the Service; a startup probe "
            "stops after its first success."
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
            "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-probes",
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether a Service sends it traffic before its model loads")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        unready = [c for c in vllm_containers(g) if "readiness" not in c.probes]
        if not unready:
            return
        services = []
        for svc in services_in(inv, g.namespace):
            if not inv.same_unit(svc.location.file, g.location.file):
                continue  # another repository's or stack's Service (place16)
            if svc.selector is UNKNOWN or g.pod_labels is UNKNOWN:
                raise Undecidable(f"the selector of Service `{svc.name}` or the pod labels of {group_subject(g)}")
            if selects(svc, g):
                services.append(svc)
        if not services:
            return
        unready = [c for c in unready if not _gated(g, c)]
        names = listed(f"`{s.namespace}/{s.name}`" for s in services)
        for c in unready:
            yield Hit(
                group_subject(g),
                f"Service {names} sends traffic to container `{c.name}` while its model loads: it has no readiness "
                "probe and no startup probe on its API port",
                c.location if (c.location.file or c.location.urn) else g.location,
                tuple(g.suppressions),
            )


#: vLLM's API port when ``--port`` is not given.
DEFAULT_PORT = 8000


def _gated(g: ServingGroup, c: Container) -> bool:
    """Whether container ``c`` is kept out of its Services until vLLM serves: a startup probe (HTTP or TCP) on
    the vLLM server's port. Raises :class:`Undecidable` when the probe's port or the server's is not known."""
    probe = c.probes.get("startup")
    if probe is None or probe.handler not in ("httpGet", "tcpSocket"):
        return False
    port = _probe_port(probe, c)
    return port is not None and port in _server_ports(g, c)


def _probe_port(p: Probe, c: Container) -> int | None:
    if p.port is UNKNOWN:
        raise Undecidable(f"the port of the startup probe of container `{c.name}`")
    if isinstance(p.port, int) and not isinstance(p.port, bool):
        return p.port
    if isinstance(p.port, str):
        if p.port.strip().isdigit():
            return int(p.port)
        return c.port_names.get(p.port)  # a name the container does not declare: the probe never succeeds
    return None


def _server_ports(g: ServingGroup, c: Container) -> set[int]:
    """The port vLLM serves on in ``c``: ``--port`` of the group's engine for its main container (8000 by
    default); for another vLLM container of the pod, 8000 or any port it declares."""
    if c is g.main_container:
        port = g.engine.port
        if port is UNKNOWN:
            raise Undecidable("the vLLM server's port (--port)")
        if port is None:
            return {DEFAULT_PORT}
        try:
            return {int(port)}
        except (TypeError, ValueError):
            raise Undecidable("the vLLM server's port (--port)", f"{port!r} is not a port number") from None
    return {DEFAULT_PORT, *c.ports}
