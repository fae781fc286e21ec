"""Validation the components run before declaring any child resource.

The typed spec is turned into the same domain model ``shardwise lint`` reads
(:func:`shardwise.rules.adapters.stack.inventory_from_spec`) and every registry rule runs on it.
Every mandatory finding becomes one entry of an :class:`~.errors.ArgumentsError` (a
``pulumi.InputPropertyError``) with the property path it is about and ``"SWnnn: message"``, so a bad
configuration fails at ``pulumi preview`` even without the policy pack, with all its problems at
once. Checks the rules cannot make come first, with the property they name: the catalog (a model
or instance type it does not know), the structure (an Ingress across namespaces, a Karpenter pool
for multi-node groups, a missing node role, a new VPC for an existing cluster), the model cache,
the escape hatches (:mod:`shardwise.rules.render.pod`) and the image (pinned; for multi-node groups on
EFA, libfabric and aws-ofi-nccl inside; a launcher its vLLM version has).

:class:`Validation` disables named rules with a reason — the linter's suppression model: a
suppressed finding does not block, and the component logs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shardwise.rules import catalog
from shardwise.rules.adapters.yamlsrc import LineDict
from shardwise.rules.capacity import cache
from shardwise.rules.model.errors import CatalogError, InputError
from shardwise.rules.model.spec import (
    EnvironmentSpec,
    NodePoolSpec,
    RouterSpec,
    VllmMultiNodeSpec,
    VllmServiceSpec,
)
from shardwise.rules.render.environment import PREREQUISITES, environment_prerequisites, priority_classes
from shardwise.rules.render.network import CarveError
from shardwise.rules.render.nodepool import pool_efa
from shardwise.rules.render.pod import escape_hatch_problems
from shardwise.rules.render.workload import unpinned_image_reason
from shardwise.rules.vllm import images

Finding = tuple[str, str]

#: The spec field a rule's finding is about, when the finding names a service or pool.
FIELD_FOR_CODE: dict[str, str] = {
    "SW101": "engine.tensor_parallel_size",
    "SW102": "engine.max_model_len",
    "SW103": "engine.max_num_seqs",
    "SW104": "engine.tensor_parallel_size",
    "SW105": "engine.gpu_memory_utilization",
    "SW106": "engine.quantization",
    "SW201": "engine.tensor_parallel_size",
    "SW202": "engine.tensor_parallel_size",
    "SW203": "engine.tensor_parallel_size",
    "SW204": "engine.tensor_parallel_size",
    "SW205": "pool",
    "SW206": "pool",
    "SW207": "engine.enable_expert_parallel",
}


@dataclass(frozen=True)
class Validation:
    """How a component validates its arguments.

    ``disable`` maps rule codes to the reason they do not apply (``{"SW104": "benchmarked: TP2 TPOT p95
    18 ms vs 31 ms at TP1"}``); a finding of a disabled rule is logged instead of blocking.
    ``enabled=False`` skips the rules and checks entirely (``ServingEnvironment`` validates the whole
    environment once and builds its children that way).
    """

    enabled: bool = True
    disable: Mapping[str, str] = field(default_factory=dict)


#: Validate with every rule.
DEFAULT = Validation()
VALIDATE_DOC = ("True, False, or the rules to disable with their reasons (`{\"SW104\": \"benchmarked: ...\"}`, "
                "or a `Validation`).")


def as_validation(value: bool | Validation | Mapping[str, str]) -> Validation:
    """``True``/``False``, a :class:`Validation`, or a plain ``{code: reason}`` mapping of rules to disable."""
    if isinstance(value, Validation):
        return value
    if isinstance(value, Mapping):
        return Validation(disable=dict(value))
    return Validation(enabled=bool(value))


# --- synthetic line numbers: every spec path gets its own "line" -------------------------------


def _index_lines(value: Any) -> tuple[Any, dict[int, str]]:
    """A LineDict tree of ``value`` whose lines number every key and list item, and line → path."""
    paths: dict[int, str] = {}
    counter = [0]

    def walk(v: Any, path: str) -> Any:
        if isinstance(v, Mapping):
            d = LineDict()
            counter[0] += 1
            d.line = counter[0]
            paths[d.line] = path
            for k, sub in v.items():
                counter[0] += 1
                d.key_lines[k] = counter[0]
                sub_path = f"{path}.{k}" if path else str(k)
                paths[counter[0]] = sub_path
                d[k] = walk(sub, sub_path)
            return d
        if isinstance(v, (list, tuple)):
            return [walk(item, f"{path}[{i}]") for i, item in enumerate(v)]
        return v

    return walk(value, ""), paths


def _path_for(finding_line: int | None, code: str, paths: dict[int, str]) -> str:
    path = paths.get(finding_line or -1, "")
    if not path:
        return "environment"
    head = path.split(".")[0]
    suffix = FIELD_FOR_CODE.get(code)
    if suffix and head.startswith(("services[", "multi_node[")) and path == head:
        return f"{head}.{suffix}"
    return path


# --- checks the rules cannot make --------------------------------------------------------------


def _catalog(spec: EnvironmentSpec) -> list[Finding]:
    out: list[Finding] = []
    for i, p in enumerate(spec.pools):
        try:
            catalog.find_instance(p.instance_type)
        except CatalogError as e:
            out.append((f"pools[{i}].instance_type", e.message))
    for kind, items in (("services", spec.services), ("multi_node", spec.multi_node)):
        for i, s in enumerate(items):
            try:
                catalog.find_model(s.engine.model, s.base_model)
            except CatalogError as e:
                out.append((f"{kind}[{i}].engine.model",
                            f"{e.message}; set base_model to the catalog model whose shape it has"))
    return out


def _structure(spec: EnvironmentSpec) -> list[Finding]:
    out: list[Finding] = []
    if not spec.node_role_arn and not spec.cluster.create:
        out.append(("node_role_arn", f"the GPU nodes of cluster `{spec.cluster_name}` need the IAM role they "
                    "run with (or set cluster.create, which creates it)"))
    if spec.network.vpc_id is None and not spec.cluster.create:
        out.append(("network.vpc_id",
                    f"the existing cluster `{spec.cluster_name}` cannot be in the VPC this environment creates: "
                    "nodes in another VPC never join it; set network.vpc_id and private_subnet_ids to the "
                    "cluster's VPC, or cluster.create to create the cluster in the new VPC"))
    if spec.cluster.create and len(spec.network.availability_zones) < 2 and spec.network.vpc_id is None:
        out.append(("network.availability_zones", "EKS needs subnets in at least two availability zones"))
    for i, p in enumerate(spec.pools):
        if p.multi_node and p.provisioner == "karpenter":
            out.append((f"pools[{i}].provisioner",
                        f"pool `{p.name}` serves multi-node groups, which need a cluster placement group "
                        "and one subnet; use provisioner managed-nodegroup"))
    pools = {p.name: p for p in spec.pools}
    for i, p in enumerate(spec.pools):
        if p.capacity_reservation_id and not p.availability_zone:
            out.append((f"pools[{i}].availability_zone", (
                f"pool `{p.name}` launches into reservation {p.capacity_reservation_id}, which holds instances in "
                "one zone: name that zone so the node group uses only its subnets (a launch in another zone finds "
                "no reserved capacity)")))
    for i, m in enumerate(spec.multi_node):
        if not pools[m.pool].multi_node:
            out.append((f"multi_node[{i}].pool",
                        f"`{m.name}` spans nodes but pool `{m.pool}` is not a multi_node pool "
                        "(EFA, a cluster placement group and one subnet)"))
    backends = {s.name: s for s in (*spec.services, *spec.multi_node)}
    for i, r in enumerate(spec.routers):
        out += _router(r, [backends[n] for n in r.services], f"routers[{i}]")
    alb = next((i for i, r in enumerate(spec.routers) if r.kind == "alb-ingress"), None)
    if alb is not None and spec.network.vpc_id and not spec.network.load_balancer_cidrs:
        out.append(("network.load_balancer_cidrs", (
            f"routers[{alb}] is an ALB whose targets are pod IPs, in an existing VPC: name the CIDRs of the subnets "
            "the load balancer is placed in (tagged kubernetes.io/role/internal-elb); the API port's NetworkPolicy "
            "admits those only (the whole VPC would let every pod call the model directly)")))
    return out


def _router(r: RouterSpec, backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec], path: str) -> list[Finding]:
    """An ALB router: its Ingress and backends share a namespace; HTTPS with a certificate unless `http: plain`;
    who may reach it is written down; and every backend asks for vLLM's API key (the load balancer does not
    authenticate)."""
    if r.kind != "alb-ingress":
        return []
    at = (lambda f: f"{path}.{f}") if path else (lambda f: f)
    out: list[Finding] = [(at("namespace"),
                           f"an Ingress routes only to Services in its own namespace: router `{r.name}` is in "
                           f"`{r.namespace}` but `{b.name}` is in `{b.namespace}`; put the router in `{b.namespace}`")
                          for b in backends if b.namespace != r.namespace]
    if r.http != "plain" and not r.certificate_arn:
        out.append((at("certificate_arn"), f"router `{r.name}` listens on HTTPS (http `{r.http}`): give the ACM "
                    "certificate's ARN, or set http `plain` to serve HTTP only"))
    if not r.inbound_cidrs:
        out.append((at("inbound_cidrs"), f"router `{r.name}`: without inbound_cidrs the AWS Load Balancer "
                    "Controller opens the load balancer to 0.0.0.0/0; list the client ranges (0.0.0.0/0 too, "
                    "written to mean it)"))
    for b in backends:
        if b.api_key_secret is None:
            out.append((at("services"), f"`{b.name}` is behind ALB router `{r.name}`, which does not authenticate: "
                        f"give `{b.name}` an api_key_secret (vLLM's API key, env VLLM_API_KEY)"))
        elif b.api_key_secret.optional:
            out.append((at("services"), f"`{b.name}`'s api_key_secret is optional: a missing Secret would start "
                        "vLLM without authentication; make it required"))
    return out


def _image_code() -> str:
    from shardwise.rules.checks.registry import ALL_RULES

    for rule in ALL_RULES:
        if "image" in rule.meta.name and ("unpinned" in rule.meta.name or "latest" in rule.meta.name):
            return rule.meta.code
    return "image"


def image_findings(spec: VllmServiceSpec | VllmMultiNodeSpec, pool: NodePoolSpec | None, path: str,
                   image: str | None = None) -> list[Finding]:
    """The image is pinned, has what the pool's fabric needs, and a vLLM that has the asked launch."""
    image = image if image is not None else spec.image
    out: list[Finding] = []
    reason = unpinned_image_reason(image)
    if reason:
        out.append((f"{path}image", f"{_image_code()}: {reason}; pin a version tag or a digest"))
    version = images.vllm_version(image, spec.vllm_version)
    if spec.cache.kind == "s3" and version is not None and not images.has(version, "runai_streamer"):
        out.append((f"{path}cache.kind", f"vLLM {images.version_text(version)} cannot stream from S3 "
                    f"(runai_streamer is in {images.version_text(images.RUNAI_STREAMER_SINCE)} and later)"))
    if spec.engine.kv_cache_memory_bytes is not None and version is not None:
        from shardwise.rules.vllm.versions import first_release

        first = first_release("kv_cache_memory_flag")
        if not images.has(version, "kv_cache_memory_flag"):
            out.append((f"{path}engine.kv_cache_memory_bytes", f"vLLM {images.version_text(version)} has no "
                        f"--kv-cache-memory-bytes (it came in {first}) and would not start; use "
                        "gpu_memory_utilization or a newer image"))
    if not isinstance(spec, VllmMultiNodeSpec):
        return out
    since = images.version_text(images.NATIVE_MULTINODE_SINCE)
    if spec.launcher == "native" and version is not None and not images.has(version, "native_multinode"):
        out.append((f"{path}launcher", f"vLLM {images.version_text(version)} in `{image}` has no --nnodes/"
                    f"--node-rank/--master-addr (they came in {since}); use launcher ray or a newer image"))
    if pool is not None and pool_efa(pool) and not images.image_has_efa(image, spec.image_efa):
        known = images.image_has_efa(image, spec.image_efa) is False
        out.append((f"{path}image", (f"`{image}` has no libfabric or aws-ofi-nccl" if known else
                                     f"whether `{image}` has libfabric and aws-ofi-nccl is not known") +
                    f": NCCL would not use pool `{pool.name}`'s EFA; use {images.DEFAULT_EFA_IMAGE} "
                    "(or another AWS DLC vLLM image), or declare image_efa: true for an image that has them"))
    if spec.exclusive_topology == "kubernetes.io/hostname" and spec.engine.pipeline_parallel_size > 1:
        out.append((f"{path}exclusive_topology", f"a group of {spec.engine.pipeline_parallel_size} pods on as "
                    "many nodes never fits one hostname: it would stay Pending; use a network-node-layer label"))
    return out


def _workload(spec: VllmServiceSpec | VllmMultiNodeSpec, pool: NodePoolSpec, path: str) -> list[Finding]:
    multi = isinstance(spec, VllmMultiNodeSpec)
    max_replicas = 1
    if isinstance(spec, VllmServiceSpec):
        max_replicas = max(spec.replicas, spec.autoscaling.max_replicas if spec.autoscaling else 0)
        a = spec.autoscaling
        if a is not None and a.metric != "cpu" and spec.metrics.monitor == "none":
            out_metric = [(f"{path}metrics.monitor",
                           f"the autoscaler reads {a.metric} from Prometheus, and nothing scrapes it "
                           "(metrics.monitor: none); use pod-monitor, or external when something else scrapes")]
        else:
            out_metric = []
    else:
        out_metric = []
    out = [(f"{path}{p}", m) for p, m in cache.cache_problems(spec, pool, multi, max_replicas)]
    out += [(f"{path}{p}", m) for p, m in escape_hatch_problems(spec)]
    return out + out_metric + image_findings(spec, pool, path)


def awaited_pods(spec: VllmServiceSpec | VllmMultiNodeSpec, pool: NodePoolSpec) -> tuple[int, int]:
    """(pods, GPUs per pod) that ``pulumi up`` waits to see Ready: a Deployment's declared replicas (the larger of
    ``replicas`` and the autoscaler's ``min_replicas``, at least one with an autoscaler:
    :class:`~shardwise.components.VllmService`), or every pod of every LeaderWorkerSet group."""
    from shardwise.rules.model.inventory import world_size
    from shardwise.rules.render.multinode import group_shape

    if isinstance(spec, VllmMultiNodeSpec):
        size, per_pod = group_shape(spec, pool)
        return spec.groups * size, per_pod
    e = spec.engine
    per_pod = world_size(e.tensor_parallel_size, e.pipeline_parallel_size,
                         e.prefill_context_parallel_size) * e.data_parallel_size
    replicas = spec.replicas if spec.autoscaling is None else max(1, spec.replicas, spec.autoscaling.min_replicas)
    return replicas, per_pod


def _pool_room(spec: EnvironmentSpec) -> list[Finding]:
    """Pods ``up`` waits for that the pool's ``max_size`` nodes cannot all hold: they would stay Pending, and ``up``
    would fail only when its rollout timeout ends. Counts, not estimates: a node of ``g`` GPUs holds
    ``g // per_pod`` such pods, and the pool's nodes at most ``max_size × g`` GPUs. A pod wider than a node is
    SW201's finding."""
    out: list[Finding] = []
    for j, pool in enumerate(spec.pools):
        node = catalog.find_instance(pool.instance_type).gpus
        if not node:
            continue
        users = [(f"{kind}[{i}]", s, *awaited_pods(s, pool))
                 for kind, items in (("services", spec.services), ("multi_node", spec.multi_node))
                 for i, s in enumerate(items) if s.pool == pool.name]
        alone = []
        for path, s, pods, per_pod in users:
            if not pods or per_pod > node:
                continue
            nodes = -(-pods // (node // per_pod))
            if nodes > pool.max_size:
                field_name = "groups" if isinstance(s, VllmMultiNodeSpec) else "replicas"
                alone.append(path)
                fit = node // per_pod
                out.append((f"{path}.{field_name}", (
                    f"`{s.name}`: `pulumi up` waits for {pods} pods of {per_pod} GPU{'s' if per_pod > 1 else ''}, "
                    f"which need {nodes} nodes of {pool.instance_type} ({fit} such pod{'s' if fit > 1 else ''} a "
                    f"node), but pool `{pool.name}` has at most "
                    f"{pool.max_size} (max_size): the rest would stay Pending until the rollout times out; raise "
                    f"max_size to {nodes} or ask for fewer")))
        fitting = [(s, pods, per_pod) for path, s, pods, per_pod in users if path not in alone and per_pod <= node]
        total = sum(pods * per_pod for _, pods, per_pod in fitting)
        if len(fitting) > 1 and -(-total // node) > pool.max_size:
            names = ", ".join(f"`{s.name}` {pods} × {per_pod}" for s, pods, per_pod in fitting)
            out.append((f"pools[{j}].max_size", (
                f"pool `{pool.name}` holds at most {pool.max_size} × {pool.instance_type} = {pool.max_size * node} "
                f"GPUs, but `pulumi up` waits for pods of {total} GPUs on it ({names}): some would stay Pending "
                f"until the rollout times out; raise max_size to at least {-(-total // node)}")))
    return out


# --- entry points ------------------------------------------------------------------------------


def environment_findings(spec: EnvironmentSpec, validation: Validation = DEFAULT) -> tuple[
        list[Finding], list[str]]:
    """(blocking findings, notes of suppressed ones) for an environment; rules run when the catalog knows
    every model and instance type."""
    from shardwise.rules.adapters.stack import inventory_from_spec
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import LintConfig, SuppressionEntry, run_rules

    findings: list[Finding] = [(f"validate.disable.{code}", "a disabled rule needs the reason it does not apply")
                               for code, reason in validation.disable.items() if not str(reason).strip()]
    known = {r.meta.code for r in ALL_RULES}
    findings += [(f"validate.disable.{code}", f"`{code}` is not a rule code (shardwise rules)")
                 for code in validation.disable if code not in known]
    catalog_findings = _catalog(spec)
    findings += catalog_findings + _structure(spec)
    if catalog_findings:
        return findings, []
    pools = {p.name: p for p in spec.pools}
    for kind, items in (("services", spec.services), ("multi_node", spec.multi_node)):
        for i, s in enumerate(items):
            findings += _workload(s, pools[s.pool], f"{kind}[{i}].")
    try:
        findings += _pool_room(spec)
    except ValueError:  # a data-parallel layout the pool cannot hold: the renderer's and the rules' finding
        pass
    lines, paths = _index_lines(spec.model_dump(mode="json"))
    try:
        inv = inventory_from_spec(spec, f"<environment {spec.name}>", lines)
    except InputError as e:
        return [*findings, ("environment", e.message)], []
    config = LintConfig(production=spec.production, suppressions=[
        SuppressionEntry(code=c, reason=str(r)) for c, r in validation.disable.items() if str(r).strip()])
    notes: list[str] = []
    for f in run_rules(ALL_RULES, inv, config):
        message = f.message if f.message.startswith(f.code) else f"{f.code}: {f.message}"
        if f.blocking:
            findings.append((_path_for(f.location.line, f.code, paths), message))
        elif f.suppressed and f.level == "mandatory":
            notes.append(f"{message} (suppressed: {f.suppression_reason})")
    return findings, notes


#: What a cluster shardwise creates installs with Helm (``cluster.helm_charts``); the load-balancer
#: controller only with its IAM policy (``cluster.load_balancer_controller_policy_arn``).
CREATED_CLUSTER_INSTALLS = ("nvidia-device-plugin", "aws-efa-k8s-device-plugin", "lws", "keda",
                            "prometheus-operator", "cluster-autoscaler", "aws-load-balancer-controller",
                            "dcgm-exporter")


def prerequisite_findings(spec: EnvironmentSpec) -> list[Finding]:
    """What the environment's objects need the cluster to run
    (:func:`shardwise.rules.render.environment.environment_prerequisites`) and the PriorityClasses its pods
    name, each missing one at the spec path that needs it: an existing cluster declares what it has in
    ``cluster.installed`` and ``cluster.priority_classes``; a created one has what its charts install."""
    cluster = spec.cluster
    known = ", ".join(PREREQUISITES)
    unknown = [(f"cluster.installed[{i}]", f"`{n}` is not a prerequisite shardwise knows ({known})")
               for i, n in enumerate(cluster.installed) if n not in PREREQUISITES]
    have = set(cluster.installed)
    out: list[Finding] = []
    policy_missing = False
    if cluster.create and cluster.helm_charts:
        have.update(CREATED_CLUSTER_INSTALLS)
        if not cluster.gpu_telemetry and "dcgm-exporter" not in cluster.installed:
            have.discard("dcgm-exporter")
        alb = next((i for i, r in enumerate(spec.routers) if r.kind == "alb-ingress"), None)
        if alb is not None and cluster.load_balancer_controller_policy_arn is None and \
                "aws-load-balancer-controller" not in cluster.installed:
            out.append(("cluster.load_balancer_controller_policy_arn", (
                f"routers[{alb}] is an ALB Ingress: the AWS Load Balancer Controller that serves it needs an IAM "
                "policy shardwise does not write; set this to the policy made from the iam_policy.json of the "
                "controller's release (or install the controller and list aws-load-balancer-controller in "
                "cluster.installed)")))
            have.discard("aws-load-balancer-controller")
            policy_missing = True
    where = "its charts do not install it" if cluster.create and cluster.helm_charts else \
        "not listed in cluster.installed"
    try:
        needed = environment_prerequisites(spec)
    except CatalogError:  # an instance type the catalog does not know: reported by the catalog check
        needed = {}
    except CarveError:  # a VPC whose subnets cannot be carved: reported by public_subnet_findings
        needed = {}
    for name, path in needed.items():
        if name not in have and not (name == "aws-load-balancer-controller" and policy_missing):
            out.append((path, f"needs {name} on cluster `{spec.cluster_name}` ({PREREQUISITES[name]}): "
                        f"{where}; install it and list it in cluster.installed"))
    for name, path in priority_classes(spec).items():
        if name not in cluster.priority_classes:
            out.append((path, f"PriorityClass `{name}` is not listed in cluster.priority_classes: the API server "
                        f"refuses pods that name a PriorityClass cluster `{spec.cluster_name}` lacks; create it "
                        "and list it there"))
    return unknown + out


def _relative(findings: list[Finding], renames: dict[str, str]) -> list[Finding]:
    out: list[Finding] = []
    for path, reason in findings:
        for prefix, new in renames.items():
            if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
                rest = path[len(prefix):].lstrip(".")
                path = f"{new}.{rest}".strip(".") if new else rest
                break
        out.append((path or "spec", reason))
    return out


def _standalone_env(name: str, pools: Sequence[NodePoolSpec], node_role_arn: str | None,
                    services: Sequence[VllmServiceSpec] = (),
                    multi_node: Sequence[VllmMultiNodeSpec] = (), production: bool = False) -> EnvironmentSpec:
    return EnvironmentSpec(
        name=name, cluster_name="standalone", production=production,
        node_role_arn=node_role_arn or "arn:aws:iam::000000000000:role/standalone",
        network={"vpc_id": "vpc-0000000000000000a", "private_subnet_ids": ("subnet-0000000000000000a",)},
        pools=tuple(pools), services=tuple(services), multi_node=tuple(multi_node),
    )


def service_findings(spec: VllmServiceSpec, pool: NodePoolSpec, production: bool = False,
                     validation: Validation = DEFAULT) -> tuple[list[Finding], list[str]]:
    """A VllmService against the pool it runs on; paths relative to its arguments."""
    env = _standalone_env(spec.name, [pool], None, services=[spec], production=production)
    found, notes = environment_findings(env, validation)
    return _relative(found, {"services[0]": "", "pools[0]": "pool"}), notes


def multinode_findings(spec: VllmMultiNodeSpec, pool: NodePoolSpec, production: bool = False,
                       validation: Validation = DEFAULT) -> tuple[list[Finding], list[str]]:
    """A VllmMultiNode against its pool; paths relative to its arguments."""
    env = _standalone_env(spec.name, [pool], None, multi_node=[spec], production=production)
    found, notes = environment_findings(env, validation)
    return _relative(found, {"multi_node[0]": "", "pools[0]": "pool"}), notes


def pool_findings(pool: NodePoolSpec, validation: Validation = DEFAULT) -> tuple[list[Finding], list[str]]:
    """One GPU node pool; paths relative to its arguments."""
    found, notes = environment_findings(_standalone_env(pool.name, [pool], None), validation)
    return _relative(found, {"pools[0]": ""}), notes


def router_findings(spec: RouterSpec, backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec]) -> list[Finding]:
    names = {b.name for b in backends}
    out = [(f"services[{i}]", f"router `{spec.name}` routes to `{s}`, which is not among its backends")
           for i, s in enumerate(spec.services) if s not in names]
    return out + _router(spec, [b for b in backends if b.name in spec.services], "")
