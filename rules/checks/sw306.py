"""SW306: vLLM exposed without a gateway (LoadBalancer/NodePort Service, or dev mode on)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, hit
from ..model import UNKNOWN, Inventory, Service, ServingGroup, Undecidable, known
from ._env import env_value
from ._net import EXTERNAL_SERVICE_TYPES, selectable, selects
from ._unseen import unseen_hits
from ._words import listed

DEV_MODE = "VLLM_SERVER_DEV_MODE"


class VllmExposedWithoutGateway(ObjectRule[Service | ServingGroup]):
    meta = RuleMeta(
        code="SW306",
        name="vllm-exposed-without-gateway",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A LoadBalancer or NodePort Service, or the public route of a Knative Service or a KServe "
            "InferenceService, exposes vLLM pods directly, "
            "or a vLLM container sets VLLM_SERVER_DEV_MODE."
        ),
        why=(
            "vLLM's HTTP server is not meant to face clients on its own: --api-key guards only the /v1 "
            "routes, and metrics, health, tokenizer and (with VLLM_SERVER_DEV_MODE) development endpoints "
            "such as /sleep, /reset_prefix_cache and /collective_rpc answer anyone. A Service of type "
            "LoadBalancer or NodePort bypasses the gateway that authenticates, rate-limits and routes by "
            "load. A public LoadBalancer blocks; a NodePort (reachable as far as the nodes' security groups "
            "allow) or a LoadBalancer its annotation makes internal is advisory. A Knative Service without the label "
            "networking.knative.dev/visibility: cluster-local gets a route on the cluster's ingress gateway; whether "
            "that route is reachable from outside is the cluster's config-domain (since Knative 1.8 the default, "
            "svc.cluster.local, is not exposed through the ingress) and the gateway's Service, which manifests "
            "rarely show: advisory (a label not known yet is said the same way; a Cloud Run service, the same kind, is "
            "served behind Cloud Run's IAM invoker check, not a Knative ingress). A KServe InferenceService is "
            "routed the same way in Serverless (Knative) mode, the mode KServe's inferenceservice-config ships as the "
            "default (v0.10 to v0.19) and the one taken when no serving.kserve.io/deploymentMode annotation names "
            "another, unless it carries networking.knative.dev/visibility: cluster-local: advisory, for the same "
            "reason. In RawDeployment (Standard) mode KServe creates an Ingress or HTTPRoute unless "
            "networking.kserve.io/visibility: cluster-local is set, but only where the cluster's ingress config turns "
            "ingress creation on (OpenShift AI ships it off): advisory. A networking.kserve.io/visibility label with "
            "no annotation says Standard mode (only it reads the label). VLLM_SERVER_DEV_MODE is read "
            "from env and from the envFrom ConfigMaps of the inputs (what a Secret or a ConfigMap kept elsewhere "
            "could hold is not guessed); a value that is not known yet (a preview's computed value, a whole pod "
            "template not known yet) blocks until it is known."
        ),
        bad_example=(
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata: {name: llama, namespace: serving}\n"
            "spec:\n"
            "  type: LoadBalancer\n"
            "  selector: {app: llama}\n"
            "  ports: [{port: 80, targetPort: 8000}]"
        ),
        good_example=(
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata: {name: llama, namespace: serving}\n"
            "spec:\n"
            "  type: ClusterIP\n"
            "  selector: {app: llama}\n"
            "  ports: [{port: 8000, targetPort: 8000}]"
        ),
        remediation=(
            "Give vLLM a ClusterIP Service and publish it only through a gateway or ingress that "
            "authenticates clients. Remove VLLM_SERVER_DEV_MODE from production containers."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/usage/security.html",
            "https://knative.dev/docs/serving/services/private-services/",
            "https://github.com/knative/serving/pull/13259",
            "https://github.com/kserve/kserve/blob/v0.19.0/pkg/controller/v1beta1/inferenceservice/reconcilers/"
            "ingress/kube_ingress_reconciler.go",
            "https://docs.vllm.ai/en/latest/configuration/env_vars.html",
            "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[Service | ServingGroup]:
        return [*inv.services, *self.groups(inv)]

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        # a workload whose pods are not known yet may run vLLM with dev mode on: fail closed
        yield from unseen_hits(inv, f"whether its containers set {DEV_MODE}")

    def check_object(self, obj: Service | ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if isinstance(obj, Service):
            return self._service(inv, obj)
        return [*self._published(obj), *self._dev_mode(inv, obj)]

    def _published(self, g: ServingGroup) -> Iterator[Hit]:
        """The group's own controller publishes it outside the cluster (a Knative Service's route)."""
        if g.published is None:
            return
        if g.published is UNKNOWN:
            what = ("the `networking.knative.dev/visibility` label" if g.kind.startswith("Knative") else
                    "the visibility label or the `serving.kserve.io/deploymentMode` annotation")
            # every answer a known label gives is advisory (the cluster's domain and gateway decide the rest), so an
            # unknown one is too: said at the label's line, never a silent pass
            yield Hit(group_subject(g), f"cannot decide whether {group_subject(g)} is published outside the cluster: "
                      f"{what} is not known yet (advisory: a route's reach is the cluster's ingress configuration)",
                      g.at("published"), tuple(g.suppressions), level="advisory")
            return
        message = f"{group_subject(g)} {g.published}, with no gateway that authenticates clients"
        if g.published_advisory:
            yield Hit(group_subject(g), f"{message} (advisory: {g.published_advisory})", g.at("published"),
                      tuple(g.suppressions), level="advisory")
            return
        yield Hit(group_subject(g), message, g.at("published"), tuple(g.suppressions))

    def _service(self, inv: Inventory, svc: Service) -> Iterator[Hit]:
        kind = known(svc.type, f"type of Service `{svc.name}`")
        if kind not in EXTERNAL_SERVICE_TYPES:
            return
        groups = [g for g in selectable(inv, svc) if g.kind != "plan" and selects(svc, g)]
        if not groups:
            return
        ports = ", ".join(str(p) for p in svc.ports) or "its ports"
        message = (f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes "
                   f"{listed(group_subject(g) for g in groups)} directly on port {ports}, with no gateway that "
                   "authenticates clients")
        internal = internal_annotation(svc.annotations) if kind == "LoadBalancer" else None
        at = svc.type_location or svc.location
        if kind == "NodePort":  # reachable where the nodes' security groups or firewall let clients in
            yield hit(svc, f"{message} (advisory: who reaches a NodePort depends on the nodes' firewall, which the "
                           "inputs do not show)",
                      at, level="advisory")
        elif internal is not None:  # reachable inside the network only
            yield hit(svc, f"{message} (advisory: {internal} keeps the load balancer off the internet)", at,
                      level="advisory")
        else:
            yield hit(svc, message, at)

    def _dev_mode(self, inv: Inventory, g: ServingGroup) -> Iterator[Hit]:
        for c in g.containers:
            found = env_value(inv, g, c, DEV_MODE, read_env_from=c.runs_vllm)
            if found is None:
                continue
            value, source, where = found
            if value is UNKNOWN or not isinstance(value, str | int | float | bool):
                raise Undecidable(f"{DEV_MODE} of container `{c.name}`")
            on = dev_mode_on(str(value))
            if on is False:
                continue
            if on is None:
                yield Hit(
                    group_subject(g),
                    f"container `{c.name}` sets {DEV_MODE}={value!r}{source}, which is not an integer: vLLM reads "
                    "it with int() and stops with a ValueError at start-up (dev mode is not on)",
                    where, tuple(g.suppressions), level="advisory",
                )
                continue
            yield Hit(
                group_subject(g),
                f"container `{c.name}` sets {DEV_MODE}={value}{source}, which serves unauthenticated development "
                "endpoints (/sleep, /reset_prefix_cache, /collective_rpc)",
                where,
                tuple(g.suppressions),
            )


#: Annotations that make a cloud load balancer internal (a private address in the VPC): AWS Load Balancer
#: Controller and the in-tree AWS provider, GKE, AKS, OCI. Their values, as the providers read them.
_INTERNAL_LB = (
    ("service.beta.kubernetes.io/aws-load-balancer-scheme", ("internal",)),
    ("service.beta.kubernetes.io/aws-load-balancer-internal", ("true", "0.0.0.0/0")),
    ("networking.gke.io/load-balancer-type", ("internal",)),
    ("cloud.google.com/load-balancer-type", ("internal",)),
    ("service.beta.kubernetes.io/azure-load-balancer-internal", ("true",)),
    ("service.beta.kubernetes.io/oci-load-balancer-internal", ("true",)),
)


def internal_annotation(annotations: dict[str, str]) -> str | None:
    """``key: value`` of the annotation that makes a LoadBalancer Service internal, or None."""
    for key, values in _INTERNAL_LB:
        value = annotations.get(key)
        if isinstance(value, str) and value.strip().lower() in values:
            return f"`{key}: {value}`"
    return None


def dev_mode_on(value: str) -> bool | None:
    """Whether vLLM turns dev mode on for this value; None when vLLM cannot read it.

    vLLM reads the variable as ``bool(int(os.getenv("VLLM_SERVER_DEV_MODE", "0")))`` (vllm/envs.py), so
    ``"00"``, ``" 0 "`` and ``"-0"`` are off, any other integer is on, and a word such as ``"true"`` or
    an empty value makes ``int()`` raise when the API server reads it at start-up.
    """
    try:
        return int(value) != 0
    except ValueError:
        return None
