"""What VllmService and VllmMultiNode share: their ``…Args`` fields, turning them into a validated spec,
and the children every vLLM workload may have (service account, Pod Identity association, cache claim,
Prometheus monitor)."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ValidationError
from shardwise.rules.model.spec import (
    EngineArgsSpec,
    MetricsSpec,
    ModelCacheSpec,
    NodePoolSpec,
    PodSpec,
    SecretKeySpec,
    SuppressionSpec,
    VllmMultiNodeSpec,
    VllmServiceSpec,
)

from ._k8s import (
    INSTALLS_DOC,
    KUBECONFIG_DOC,
    PROVIDER_DOC,
    canonical_pod_quantities,
    child_opts,
    declare,
    doc,
    installed_by,
)
from .errors import ArgumentsError
from .hf_token import secret_metadata, token_findings
from .inputs import Unknowns
from .validation import VALIDATE_DOC, Finding, Validation, as_validation, image_findings

Workload: TypeAlias = VllmServiceSpec | VllmMultiNodeSpec


@dataclass(kw_only=True)
class WorkloadArgs:
    """Fields every vLLM workload takes. Each maps onto the field of the same name of the spec
    (:class:`~shardwise.rules.model.spec.VllmServiceSpec` / ``VllmMultiNodeSpec``, the stack config's schema);
    ``name``, ``namespace``, ``image``, ``hf_token_secret`` and any name or ARN inside ``pod`` accept a
    ``pulumi.Output``."""

    name: pulumi.Input[str]
    pool: Any = field(metadata=doc("The pool it runs on: a NodePoolSpec, a mapping of its fields, or a GpuNodePool."))
    engine: EngineArgsSpec | Mapping[str, Any]
    namespace: pulumi.Input[str] = "serving"
    image: pulumi.Input[str] = "vllm/vllm-openai:v0.11.0"
    vllm_version: str | None = None
    p95_context_tokens: int | None = None
    target_concurrency: int | None = None
    output_tokens_per_second: float | None = None
    tpot_target_ms: float | None = None
    base_model: str | None = None
    weights_gib: float | None = None
    model_load_seconds: int | None = None
    hf_token_secret: pulumi.Input[str] | None = "hf-token"
    api_key_secret: SecretKeySpec | Mapping[str, Any] | None = None
    model_cache_gib: int = 200
    cache: ModelCacheSpec | Mapping[str, Any] = field(default_factory=ModelCacheSpec)
    drain_seconds: int = 30
    pod: PodSpec | Mapping[str, Any] = field(default_factory=PodSpec)
    run_as_non_root: bool = False
    metrics: MetricsSpec | Mapping[str, Any] = field(default_factory=MetricsSpec)
    suppress: Sequence[SuppressionSpec | Mapping[str, Any]] = ()
    # --- the component's own ---------------------------------------------------------------------
    production: bool = field(default=False, metadata=doc("Production stack: the rules expect headroom (SW404)."))
    validate: bool | Validation | Mapping[str, str] = field(default=True, metadata=doc(VALIDATE_DOC))
    cluster_name: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "EKS cluster, for the Pod Identity association of `pod.service_account` (mode pod-identity)."))
    installs: Mapping[str, pulumi.Resource] = field(default_factory=dict, metadata=doc(INSTALLS_DOC))
    k8s_provider: pulumi.ProviderResource | None = field(default=None, metadata=doc(PROVIDER_DOC))
    kubeconfig: pulumi.Input[str] | None = field(default=None, metadata=doc(KUBECONFIG_DOC))
    hf_token: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "The Hugging Face token, as a Pulumi secret (`pulumi.Config().require_secret(...)`): the component creates "
        "the Secret `hf_token_secret` (key HF_TOKEN) with it. Required for a gated model unless "
        "`hf_token_secret_exists`."))
    hf_token_secret_exists: bool | pulumi.Resource = field(default=False, metadata=doc(
        "The Secret `hf_token_secret` is made elsewhere: True (outside this program: External Secrets from AWS "
        "Secrets Manager, a platform team) or the resource of this program that makes it (the pods wait for it). "
        "A gated model may then go without `hf_token`."))
    api_key_secret_exists: bool | pulumi.Resource = field(default=False, metadata=doc(
        "The resource of this program that makes the Secret `api_key_secret` names (the pods wait for it), or "
        "True when it is made outside the program; the component does not make that Secret."))


COMPONENT_FIELDS = frozenset({"production", "validate", "cluster_name", "installs", "k8s_provider", "kubeconfig",
                              "hf_token", "hf_token_secret_exists", "api_key_secret_exists"})


def pool_spec(pool: Any) -> NodePoolSpec:
    """The NodePoolSpec of ``pool``: a spec, a mapping of its fields, or a GpuNodePool component."""
    spec = getattr(pool, "spec", pool)
    return spec if isinstance(spec, NodePoolSpec) else NodePoolSpec.model_validate(spec)


def _field_model(model: type[BaseModel], parts: Sequence[str]) -> tuple[type[BaseModel], str] | None:
    """(model, field) that ``parts`` (a spec path split on dots, list indexes dropped) ends at."""
    for i, part in enumerate(parts):
        name = part.split("[", 1)[0]
        if name not in model.model_fields:
            return None
        if i == len(parts) - 1:
            return model, name
        nested = _models_in(model.model_fields[name].annotation)
        if not nested:
            return None
        model = nested[0]
    return None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        return [m for a in typing.get_args(annotation) for m in _models_in(a)]
    return []


def pydantic_findings(e: ValidationError, unknowns: Unknowns, prefix: str = "") -> list[Finding]:
    out: list[Finding] = []
    for err in e.errors():
        path = (prefix + "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                                 for i, p in enumerate(err.get("loc", ())))).rstrip(".")
        if unknowns.is_token(err.get("input")):
            out.append((path or "spec", "must be known when the component is created (a pulumi.Output was given)"))
        else:
            out.append((path or "spec", str(err.get("msg", "invalid value")).removeprefix("Value error, ")))
    return out


def build_spec(component: str, args: WorkloadArgs, spec_cls: type[Workload],
               findings: Callable[[Workload, NodePoolSpec, bool, Validation], tuple[list[Finding], list[str]]],
               ) -> tuple[Workload, NodePoolSpec, Unknowns, list[str]]:
    """Validate ``args`` (every finding at once) and arm the checks of values that resolve later."""
    unknowns = Unknowns()
    try:
        pool = pool_spec(args.pool)
    except ValidationError as e:
        raise ArgumentsError(component, pydantic_findings(e, unknowns, "pool.")) from None
    values = {f: getattr(args, f) for f in spec_cls.model_fields if f != "pool" and hasattr(args, f)}
    values = unknowns.replace(values)
    values["pool"] = pool.name
    try:
        spec = spec_cls.model_validate(values)
    except ValidationError as e:
        raise ArgumentsError(component, pydantic_findings(e, unknowns)) from None
    validation = as_validation(args.validate)
    notes: list[str] = []
    problems: list[Finding] = []
    sa = spec.pod.service_account
    if sa is not None and sa.role_arn and sa.mode == "pod-identity" and args.cluster_name is None:
        problems.append(("cluster_name", "a Pod Identity association for pod.service_account needs the EKS cluster "
                         "name (or use mode irsa)"))
    problems += token_findings(spec, args.hf_token is not None, bool(args.hf_token_secret_exists))
    if validation.enabled:
        found, notes = findings(spec, pool, args.production, validation)
        problems += found
    if problems:
        raise ArgumentsError(component, problems)
    for path in unknowns.deferred:
        located = _field_model(spec_cls, path.split("."))
        if located is not None:
            unknowns.field_check(path, *located)
    unknowns.check_when_resolved("image", lambda image: image_findings(spec, pool, "", image=str(image)))
    unknowns.finish(component)
    return spec, pool, unknowns, notes


def log_notes(resource: pulumi.Resource, notes: Sequence[str]) -> None:
    for note in notes:
        pulumi.log.warn(note, resource=resource)


def identity_children(name: str, parent: pulumi.Resource, spec: Workload, unknowns: Unknowns,
                      cluster_name: pulumi.Input[str] | None) -> aws.eks.PodIdentityAssociation | None:
    """An EKS Pod Identity association for the pods' service account (mode pod-identity)."""
    sa = spec.pod.service_account
    if sa is None or not sa.role_arn or sa.mode != "pod-identity" or cluster_name is None:
        return None
    return aws.eks.PodIdentityAssociation(
        f"{name}-pod-identity", cluster_name=cluster_name,
        namespace=unknowns.substitute(spec.namespace), service_account=unknowns.substitute(sa.name),
        role_arn=unknowns.substitute(sa.role_arn), opts=pulumi.ResourceOptions(parent=parent))


#: Pulumi's annotation that declares an object without waiting for it to become ready.
SKIP_AWAIT = "pulumi.com/skipAwait"
#: Pulumi's annotation (Kubernetes provider v4.18 and later) with the readiness of an object it has no await
#: logic for: a custom resource is otherwise ready as soon as the API server accepts it.
WAIT_FOR = "pulumi.com/waitFor"


def group_ready(groups: int) -> str:
    """The ``pulumi.com/waitFor`` of a LeaderWorkerSet of ``groups`` groups: a JSON array, every expression met
    at once. The LWS controller sets ``Available`` only when every group is updated and ready (and
    ``Progressing``/``UpdateInProgress`` while one is not); ``readyReplicas`` counts the ready groups. The
    wait lasts the resource's custom timeouts, which the provider honours for custom resources too (its
    ``pulumi.com/timeoutSeconds`` annotation is the other way; shardwise uses the timeouts)."""
    import json

    return json.dumps(["condition=Available", f"jsonpath={{.status.readyReplicas}}={groups}"])


#: Kinds that own a Deployment's replica count once they exist.
AUTOSCALER_KINDS = ("ScaledObject", "HorizontalPodAutoscaler")


def _annotated(obj: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    meta = obj["metadata"]
    return {**obj, "metadata": {**meta, "annotations": {**meta.get("annotations", {}), key: value}}}


def declare_all(name: str, parent: pulumi.Resource, objs: Sequence[dict[str, Any]], unknowns: Unknowns,
                provider: pulumi.ProviderResource | None, deps: Sequence[pulumi.Resource],
                options: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                installs: Mapping[str, pulumi.Resource] | None = None,
                pod_deps: Sequence[pulumi.Resource] = ()) -> dict[str, pulumi.CustomResource]:
    """Declare the rendered objects (Outputs put back in); objects the pods need come first and the
    workload waits for them; a custom resource waits for what installs its CRD (``installs``). Keyed by kind.

    The model-cache claim is declared with ``pulumi.com/skipAwait``: with a ``WaitForFirstConsumer``
    storage class it binds only once a pod uses it, and the pods come after it. A LeaderWorkerSet gets
    ``pulumi.com/waitFor`` (:func:`group_ready`): without it the provider reports the custom resource ready
    as soon as it is accepted, and ``up`` succeeds while the groups never form."""
    out: dict[str, pulumi.CustomResource] = {}
    first = [o for o in objs if o["kind"] in ("ServiceAccount", "PersistentVolumeClaim")]
    for obj in first:
        if obj["kind"] == "PersistentVolumeClaim":
            obj = _annotated(obj, SKIP_AWAIT, "true")
        out[obj["kind"]] = declare(f"{name}-{obj['kind'].lower()}", unknowns.substitute(obj),
                                   child_opts(parent, provider, deps))
    for obj in objs:
        if obj["kind"] in out:
            continue
        extra = options(obj) if options is not None else {}
        if obj["kind"] == "LeaderWorkerSet":
            obj = _annotated(canonical_pod_quantities(obj), WAIT_FOR, group_ready(int(obj["spec"].get("replicas", 1))))
        wait = [*deps, *out.values(), *pod_deps] if obj["kind"] in ("Deployment", "LeaderWorkerSet") else [*deps]
        if obj["kind"] in AUTOSCALER_KINDS and "Deployment" in out:
            # the autoscaler comes once a replica serves: KEDA at minReplicaCount 0 would otherwise scale the
            # Deployment to zero while the provider awaits it, and the provider counts 0 of 0 replicas as done
            wait.append(out["Deployment"])
        wait += installed_by(obj["kind"], installs or {})
        out[obj["kind"]] = declare(f"{name}-{obj['kind'].lower()}", unknowns.substitute(obj),
                                   child_opts(parent, provider, wait, **extra))
    return out


def endpoint(spec: Workload, unknowns: Unknowns) -> pulumi.Output[str]:
    """The in-cluster URL of the workload's Service."""
    url = unknowns.substitute(f"http://{spec.name}.{spec.namespace}.svc.cluster.local:{spec.engine.port}")
    return pulumi.Output.from_input(url)


def safe_sizing(spec: Workload, pool: NodePoolSpec) -> dict[str, Any]:
    """The workload's sizing; a model or instance type the catalog does not know (validation off) says so."""
    from shardwise.rules.adapters.stack import workload_sizing
    from shardwise.rules.model.errors import CatalogError

    try:
        return workload_sizing(spec, pool)
    except CatalogError as e:
        return {"error": e.message}


def declare_workload(component: pulumi.ComponentResource, name: str, args: WorkloadArgs, spec: Workload,
                     pool: NodePoolSpec, unknowns: Unknowns, notes: Sequence[str], objs: Sequence[dict[str, Any]],
                     workload_kind: str, opts: pulumi.ResourceOptions | None,
                     **workload_options: Any) -> dict[str, pulumi.CustomResource]:
    """Declare a workload's objects as children of ``component`` and set the outputs every workload has
    (service, monitor, service account, Pod Identity association, cache claim, names, endpoint, sizing,
    startup budget, validation). The workload (Deployment or LeaderWorkerSet) gets a rollout timeout that
    covers a first download and the load, and ``workload_options``; so does its Service (it waits for
    ready endpoints). The workload waits for its Pod Identity association (new pods get the credentials) and for
    the Hugging Face token's Secret when ``hf_token`` makes one."""
    from shardwise.rules.capacity import cache

    from ._k8s import depends_on, metadata_name, provider_for

    log_notes(component, notes)
    provider = provider_for(name, component, args.k8s_provider, args.kubeconfig)
    minutes = rollout_minutes(spec, pool)
    rollout = f"{minutes}m"
    update = f"{update_minutes(spec, pool)}m"

    def options(obj: dict[str, Any]) -> dict[str, Any]:
        # the Service waits for ready endpoints: as long as the pods' first download and load may take
        if obj["kind"] == "Service":
            return {"custom_timeouts": pulumi.CustomTimeouts(create=rollout, update=rollout)}
        if obj["kind"] != workload_kind:
            return {}
        return {"custom_timeouts": pulumi.CustomTimeouts(create=rollout, update=update), **workload_options}

    c: Any = component
    c.pod_identity_association = identity_children(name, component, spec, unknowns, args.cluster_name)
    c.token_secret = None
    if args.hf_token is not None and spec.hf_token_secret:
        import pulumi_kubernetes as k8s

        c.token_secret = k8s.core.v1.Secret(
            f"{name}-hf-token", metadata=unknowns.substitute(secret_metadata(spec.hf_token_secret, spec.namespace)),
            type="Opaque",
            string_data={"HF_TOKEN": pulumi.Output.secret(args.hf_token)},
            opts=child_opts(component, provider, depends_on(opts)))
    made_elsewhere = args.hf_token_secret_exists if isinstance(args.hf_token_secret_exists, pulumi.Resource) else None
    key_made = args.api_key_secret_exists if isinstance(args.api_key_secret_exists, pulumi.Resource) else None
    pod_deps = [r for r in (c.pod_identity_association, c.token_secret, made_elsewhere, key_made) if r is not None]
    made = declare_all(name, component, objs, unknowns, provider, depends_on(opts), options, args.installs,
                       pod_deps)
    c.rollout_minutes = minutes
    c.update_minutes = update_minutes(spec, pool)
    c.spec, c.unknowns = spec, unknowns
    c.service = made["Service"]
    c.monitor = made.get("PodMonitor") or made.get("ServiceMonitor")
    c.service_account, c.cache_claim = made.get("ServiceAccount"), made.get("PersistentVolumeClaim")
    c.service_name = metadata_name(c.service)
    c.namespace = pulumi.Output.from_input(unknowns.substitute(spec.namespace))
    c.endpoint = endpoint(spec, unknowns)
    c.sizing = safe_sizing(spec, pool)
    c.startup_budget = cache.startup_budget(spec, pool).as_dict()
    c.validation = {"checked_when_resolved": unknowns.deferred, "suppressed": list(notes)}
    return made


def rollout_minutes(spec: Workload, pool: NodePoolSpec) -> int:
    """Minutes a first rollout may take: the startup budget of a first start (download and load,
    :func:`shardwise.rules.capacity.cache.rollout_seconds`) and 10 minutes for node launch and image pull."""
    import math

    from shardwise.rules.capacity import cache

    return math.ceil(cache.rollout_seconds(spec, pool) / 60) + 10


def replaced_one_at_a_time(spec: Workload) -> int:
    """How many pods (a Deployment's replicas) or groups (a LeaderWorkerSet's) an update replaces one after
    another: the most the workload runs (its replicas, or the autoscaler's ``max_replicas``). Both roll with
    ``maxSurge: 0, maxUnavailable: 1`` (:func:`shardwise.rules.render.vllm.render_deployment`,
    :func:`shardwise.rules.render.multinode.render_vllm_multinode`): the controller replaces the next one only
    once the last is ready."""
    if isinstance(spec, VllmMultiNodeSpec):
        return spec.groups
    most = spec.autoscaling.max_replicas if spec.autoscaling is not None else 0
    return max(1, spec.replicas, most)


def update_minutes(spec: Workload, pool: NodePoolSpec) -> int:
    """Minutes an update's rollout may take: each replaced pod or group starts again, one after another
    (:func:`replaced_one_at_a_time`), each within the startup budget, and downloads the checkpoint again when
    its cache dies with the pod (``empty-dir``); 10 minutes for node launch and image pull. With one replica
    it is never less than :func:`rollout_minutes` (a first start)."""
    import math

    from shardwise.rules.capacity import cache

    per_pod = cache.startup_budget(spec, pool).budget_seconds
    if spec.cache.kind == "empty-dir":
        per_pod = cache.rollout_seconds(spec, pool)
    return max(rollout_minutes(spec, pool), math.ceil(replaced_one_at_a_time(spec) * per_pod / 60) + 10)


#: The outputs :func:`declare_workload` sets, registered by both workload components.
COMMON_OUTPUTS = ("service", "monitor", "service_account", "cache_claim", "pod_identity_association",
                  "token_secret", "service_name", "namespace", "endpoint", "sizing", "startup_budget", "validation")
