"""Pulumi stack files (``stacks/Pulumi.<env>.yaml``) -> :class:`~shardwise.rules.model.Inventory`.

A stack file holds one :class:`~shardwise.rules.model.spec.EnvironmentSpec` under ``config:``, key
``shardwise:environment`` (any ``<project>:environment`` is accepted). The spec is validated with
pydantic; a validation error becomes an :class:`~shardwise.rules.model.errors.InputError` naming the file
and the line of the offending key.

The inventory is built from exactly what the components would declare: the Kubernetes objects come
from :mod:`shardwise.rules.render` and go through the Kubernetes adapter like any manifest; node
pools, security groups, subnets and launch templates come from render's AWS plans. Locations point
at the spec entry each object comes from (``services[1]`` → the line of that list item).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from .. import catalog
from ..capacity import cache
from ..capacity.group import summary
from ..catalog.hardware import pool_from_labels
from ..engine import LintConfig
from ..model import (
    Inventory,
    LaunchTemplate,
    Location,
    NodePool,
    SecurityGroup,
    SgRule,
    Subnet,
    Suppression,
    Taint,
)
from ..model.errors import CatalogError, InputError
from ..model.spec import EnvironmentSpec, NodePoolSpec, VllmMultiNodeSpec, VllmServiceSpec
from ..model.vocab import INSTANCE_TYPE
from ..render.environment import render_environment_objects
from ..render.network import (
    SgRulePlan,
    carve_problem,
    endpoint_sg_rules,
    gpu_node_sg_rules,
    subnet_plan,
    wants_endpoints,
    wants_public_subnets,
)
from ..render.nodepool import launch_template_plan, node_labels, node_taints, pool_efa
from ..render.pod import environment_escape_problems
from .jsonsrc import parse_json  # NaN, duplicate keys and bad escapes are errors here too
from .k8s import inventory_from_objects, resolve_pools
from .yamlsrc import LineDict, load_all, read_text

CONFIG_KEY = "shardwise:environment"


def _environment_key(config: Mapping[str, Any]) -> str | None:
    if CONFIG_KEY in config:
        return CONFIG_KEY
    for key in config:
        if isinstance(key, str) and key.endswith(":environment") and key.count(":") == 1:
            return key
    return None


def is_stack_file(data: Any) -> bool:
    """Whether a loaded YAML document is a Pulumi stack file with a shardwise environment."""
    if not isinstance(data, Mapping):
        return False
    config = data.get("config")
    return isinstance(config, Mapping) and _environment_key(config) is not None


# --- locations --------------------------------------------------------------------------------


def _walk(root: Any, path: tuple[Any, ...], default: int | None) -> int | None:
    """Line of the deepest element of ``path`` that exists under ``root``."""
    line = getattr(root, "line", None) or default
    node = root
    for part in path:
        if isinstance(node, LineDict) and isinstance(part, str) and part in node:
            line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            line = getattr(node, "line", None) or line
        else:
            break
    return line


def _parse_spec_path(path: str) -> tuple[Any, ...]:
    """``services[1].engine`` → ``("services", 1, "engine")``."""
    out: list[Any] = []
    for part in path.split("."):
        if not part:
            continue
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        while rest:
            idx, _, rest = rest.partition("]")
            out.append(int(idx))
            rest = rest.lstrip("[")
    return tuple(out)


def _dotted(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text or "environment"


class _Locator:
    def __init__(self, file: str, lines: Any, default_line: int | None = None) -> None:
        self.file = file
        self.lines = lines
        self.default_line = default_line

    def __call__(self, spec_path: str) -> Location:
        line = _walk(self.lines, _parse_spec_path(spec_path), self.default_line) if self.lines is not None \
            else self.default_line
        return Location(file=self.file, line=line)


# --- loading ----------------------------------------------------------------------------------


_CROSS_REFERENCES = (
    (re.compile(r"service '([^']+)' uses pool"), ("services", "multi_node"), "pool"),
    (re.compile(r"router '([^']+)' routes to"), ("routers",), "services"),
)


def _pinpoint(value: Any, loc: tuple[Any, ...], msg: str) -> tuple[Any, ...]:
    """For an environment-wide check (empty ``loc``), the entry the message names."""
    if loc or not isinstance(value, Mapping):
        return loc
    for pattern, lists, key in _CROSS_REFERENCES:
        m = pattern.search(msg)
        if not m:
            continue
        for list_key in lists:
            items = value.get(list_key)
            for i, item in enumerate(items if isinstance(items, list) else []):
                if isinstance(item, Mapping) and item.get("name") == m.group(1):
                    return (list_key, i, key)
    return loc


def spec_from_value(value: Any, file: str, lines: Any = None, line: int | None = None) -> EnvironmentSpec:
    """Validate an environment value; a pydantic error becomes an InputError at the offending line."""
    try:
        return EnvironmentSpec.model_validate(value)
    except ValidationError as e:
        found = []
        errors = e.errors()
        locs = [tuple(err.get("loc", ())) for err in errors]
        for err in errors:
            mine = tuple(err.get("loc", ()))
            if any(other[:len(mine)] == mine and len(other) > len(mine) for other in locs):
                continue  # a field that failed because one inside it did (a list left empty): the inner one says why
            msg = err.get("msg", "invalid value").removeprefix("Value error, ")
            loc = _pinpoint(value, tuple(err.get("loc", ())), msg)
            found.append((_dotted(loc), msg, _walk(lines if lines is not None else value, loc, line)))
        (where, msg, at), rest = found[0], found[1:]
        # every problem at once, each with its line, so a stack file is not fixed one run at a time
        also = "".join(f"; also {w}" + (f" (line {ln})" if ln else "") + f": {m}" for w, m, ln in rest[:_MORE])
        if len(rest) > _MORE:
            also += f"; and {len(rest) - _MORE} more"
        raise InputError(f"{where}: {msg}{also}", file, at) from None


#: How many more problems of a stack file's environment an input error lists after the first.
_MORE = 4


def load_stack_spec(path: str) -> tuple[EnvironmentSpec, Any]:
    """Read a stack file and return its environment spec and the YAML value it was read from."""
    return stack_spec_from_text(read_text(path), path)


def stack_spec_from_text(text: str, path: str) -> tuple[EnvironmentSpec, Any]:
    """The environment spec of a stack file's text (``path`` names it in errors)."""
    docs = [d for d in load_all(text, path) if d is not None]
    if not docs or not is_stack_file(docs[0]):
        raise InputError(f"not a Pulumi stack file with `{CONFIG_KEY}` under `config:`", path, 1)
    doc = docs[0]
    config = doc["config"]
    key = _environment_key(config)
    assert key is not None
    value = config[key]
    key_line = config.key_lines.get(key) if isinstance(config, LineDict) else None
    if isinstance(value, str):  # `pulumi config set --path` writes objects; a JSON string also works
        try:
            value = parse_json(value, path)
        except InputError as e:
            raise InputError(f"{key}: not a mapping nor JSON: {e.message.removeprefix('cannot parse JSON: ')}",
                             path, key_line) from None
    if not isinstance(value, Mapping):
        raise InputError(f"{key}: expected a mapping, got {type(value).__name__}", path, key_line)
    spec = spec_from_value(value, path, value, key_line)
    _check_escape_hatches(spec, _Locator(path, value, key_line))
    return spec, value


def _check_escape_hatches(spec: EnvironmentSpec, where: _Locator) -> None:
    """What the components refuse in a workload's escape hatches (``engine.extra_args``, ``pod``), refused here too
    (:func:`~shardwise.rules.render.pod.environment_escape_problems`, the one list both read): a flag a typed field
    owns would reach vLLM behind the rules' back, as ``pulumi preview`` would refuse it. Every problem at once, the
    first one's line."""
    problems = environment_escape_problems(spec)
    if not problems:
        return
    (first, msg), rest = problems[0], problems[1:]
    also = "".join(f"; also {p}" + (f" (line {where(p).line})" if where(p).line else "") + f": {m}"
                   for p, m in rest[:_MORE])
    if len(rest) > _MORE:
        also += f"; and {len(rest) - _MORE} more"
    loc = where(first)
    raise InputError(f"{first}: {msg}{also}", loc.file, loc.line)


def load_stack_file(path: str) -> Inventory:
    """Read a stack file into the domain model (see the module docstring)."""
    spec, value = load_stack_spec(path)
    return inventory_from_spec(spec, path, value)


def load_stack_text(text: str, file: str) -> Inventory:
    """A stack file's text into the domain model (``file`` names it in locations and errors)."""
    spec, value = stack_spec_from_text(text, file)
    return inventory_from_spec(spec, file, value)


# --- building the inventory -------------------------------------------------------------------


def _suppressions(pool: NodePoolSpec, loc: Location) -> list[Suppression]:
    return [Suppression(s.code, s.reason, loc) for s in pool.suppress]


def _sg(name: str, plans: list[SgRulePlan], loc: Location) -> SecurityGroup:
    rules = [
        SgRule(
            direction=p.direction,  # type: ignore[arg-type]
            protocol=p.protocol,
            from_port=p.from_port if p.from_port is not None else 0,
            to_port=p.to_port if p.to_port is not None else 0,
            cidrs=[p.cidr] if p.cidr else [],
            source_security_group=name if p.self_ref else None,
            self_ref=p.self_ref,
            location=loc,
        )
        for p in plans
    ]
    return SecurityGroup(name=name, location=loc, rules=rules)


def _check_network(spec: EnvironmentSpec, where: _Locator) -> None:
    """A new VPC's CIDR must be a block AWS creates, with room for every subnet :func:`subnet_plan` carves."""
    problem = carve_problem(spec.network, wants_public_subnets(spec.routers))
    if problem is not None:
        loc = where(problem[0])
        raise InputError(f"{problem[0]}: {problem[1]}", loc.file, loc.line)


def _check_instance_types(spec: EnvironmentSpec, where: _Locator) -> None:
    """Every pool's instance type is in the catalog (rendering a Karpenter pool needs it)."""
    for i, p in enumerate(spec.pools):
        try:
            catalog.find_instance(p.instance_type)
        except CatalogError as e:
            loc = where(f"pools[{i}].instance_type")
            raise InputError(f"pools[{i}].instance_type: {e.message}", loc.file, loc.line) from None


def _network(spec: EnvironmentSpec, inv: Inventory, where: _Locator) -> tuple[str, list[str]]:
    """Security groups and subnets; returns the GPU-node SG name and the node subnets."""
    net = spec.network
    loc = where("network")
    sg_name = f"{spec.name}-gpu-nodes"
    inv.security_groups.append(_sg(sg_name, gpu_node_sg_rules(), loc))
    if wants_endpoints(net, bool(net.vpc_id)):
        inv.security_groups.append(_sg(f"{spec.name}-endpoints", endpoint_sg_rules(net.cidr), loc))
    if net.vpc_id:
        return sg_name, list(net.private_subnet_ids)
    private: list[str] = []
    for plan in subnet_plan(net, spec.name, wants_public_subnets(spec.routers)):
        inv.subnets.append(Subnet(
            name=plan.name,
            map_public_ip_on_launch=plan.map_public_ip_on_launch,
            availability_zone=plan.availability_zone,
            location=loc,
        ))
        if not plan.public and not plan.load_balancer:  # the nodes' subnets
            private.append(plan.name)
    return sg_name, private


def _pool(p: NodePoolSpec, loc: Location, sg: str, subnets: list[str], inv: Inventory) -> NodePool | None:
    """The stack pool of a managed node group; a Karpenter pool already came from its rendered
    NodePool and EC2NodeClass (through the Kubernetes adapter) and only gets its network here."""
    if p.provisioner == "karpenter":
        pool = next((x for x in inv.pools if x.name == p.name and x.kind == "karpenter"), None)
        if pool is not None:
            pool.location = loc
            pool.instance_type = p.instance_type
            pool.efa = pool_efa(p)
            pool.security_groups = [sg]
            pool.subnets = list(subnets)
            pool.suppressions = _suppressions(p, loc)
        for lt in inv.launch_templates:
            if lt.name == p.name:
                lt.location = loc
        return None
    labels = {**node_labels(p), INSTANCE_TYPE: p.instance_type}
    taints = [Taint(t["key"], t["value"], t["effect"]) for t in node_taints()]
    pool = pool_from_labels(p.name, labels, loc, taints, kind="stack")
    pool.instance_type = p.instance_type
    pool.efa = pool_efa(p)
    pool.security_groups = [sg]
    # a pool held to one zone: a new VPC's subnets are named by zone; an existing VPC's are ids, kept as given
    in_zone = [n for n in subnets if p.availability_zone and n.endswith(f"-{p.availability_zone}")]
    subnets = in_zone or subnets
    pool.subnets = subnets[:1] if p.multi_node else list(subnets)
    pool.capacity_type = p.capacity_type
    pool.suppressions = _suppressions(p, loc)
    plan = launch_template_plan(p)
    pool.launch_template = f"{p.name}-launch-template"
    inv.launch_templates.append(LaunchTemplate(
        name=pool.launch_template,
        http_tokens=plan.http_tokens,
        http_put_response_hop_limit=plan.http_put_response_hop_limit,
        location=loc,
        suppressions=_suppressions(p, loc),
    ))
    if plan.placement_group:
        pool.placement_group = f"{p.name}-placement"
    return pool


def inventory_from_spec(spec: EnvironmentSpec, file: str = "<environment>", lines: Any = None,
                        line: int | None = None) -> Inventory:
    """The domain model of everything ``spec`` declares.

    ``lines`` is the YAML value the spec was read from (a :class:`~shardwise.rules.adapters.yamlsrc.LineDict`),
    used to point each object at its entry; without it every location is ``file`` (and ``line``).
    """
    where = _Locator(file, lines, line)
    _check_network(spec, where)
    _check_instance_types(spec, where)
    try:
        objs = [(obj, where(path)) for path, obj in render_environment_objects(spec)]
    except CatalogError as e:
        raise InputError(e.message, file, where("").line) from None
    inv = inventory_from_objects(objs)
    sg, subnets = _network(spec, inv, where)
    for i, p in enumerate(spec.pools):
        loc = where(f"pools[{i}]")
        try:
            pool = _pool(p, loc, sg, subnets, inv)
        except CatalogError as e:
            raise InputError(f"pools[{i}].instance_type: {e.message}", file,
                             where(f"pools[{i}].instance_type").line) from None
        if pool is not None:
            inv.pools.append(pool)
    resolve_pools(inv)
    # the declared vLLM version over the image's tag (an image that is a stand-in for an Output says none)
    declared = {w.name: w.vllm_version for w in (*spec.services, *spec.multi_node) if w.vllm_version}
    for g in inv.groups:  # a stack's production setting is its own workloads' (SW404), not the run's
        g.production = spec.production
        g.declared = True
        g.vllm_version = declared.get(g.name, g.vllm_version)
    if file not in inv.sources:
        inv.sources.append(file)
    return inv


# --- sizing summary ---------------------------------------------------------------------------

SUMMARY_FIELDS = (
    "gpus", "weight_precision", "weights_gib_per_gpu", "kv_cache_gib_per_gpu", "kv_cache_tokens",
    "max_model_len", "max_num_seqs", "max_concurrency", "expected_context",
    "concurrency_at_expected_context", "headroom_gib_per_gpu", "starts",
)


def workload_sizing(s: VllmServiceSpec | VllmMultiNodeSpec, pool: NodePoolSpec) -> dict[str, Any]:
    """One workload's sizing: weights and KV cache per GPU, KV tokens, concurrency, and its startup budget
    (:func:`..cache.startup_budget`).

    The numbers are the capacity model's :func:`~shardwise.rules.capacity.group.summary` of the serving group
    the workload's rendered objects make (the one the rules validate), so they are what ``shardwise lint``
    says of the manifests the component declares. Raises :class:`CatalogError` for a model or instance type
    the catalog does not know."""
    env = EnvironmentSpec(
        name=s.name, cluster_name="sizing", network={"vpc_id": "vpc-0000000000000000a",
                                                     "private_subnet_ids": ("subnet-0000000000000000a",)},
        pools=(pool,), services=(s,) if isinstance(s, VllmServiceSpec) else (),
        multi_node=(s,) if isinstance(s, VllmMultiNodeSpec) else ())
    return _sized(env)[s.name]


def _sized(spec: EnvironmentSpec) -> dict[str, dict[str, Any]]:
    """:func:`workload_sizing` of every workload of ``spec``, from the inventory the rules validate."""
    pools = {p.name: p for p in spec.pools}
    served: list[VllmServiceSpec | VllmMultiNodeSpec] = [*spec.services, *spec.multi_node]
    for w in served:  # the catalog's own errors first (the components say which)
        catalog.find_gpu(catalog.find_instance(pools[w.pool].instance_type).gpu)
        catalog.find_model(w.engine.model, w.base_model)
    try:
        inv = inventory_from_spec(spec, f"<environment {spec.name}>")
    except InputError as e:
        raise CatalogError(e.message) from None
    groups = {g.name: g for g in inv.groups}
    config = LintConfig()
    out: dict[str, dict[str, Any]] = {}
    for w in served:
        sm = summary(groups[w.name], config)
        sized = sm.sizing.as_dict() if sm.sizing is not None else {}
        budget = cache.startup_budget(w, pools[w.pool])
        out[w.name] = {"model": sm.model, "gpu": sm.gpu, **{k: sized.get(k) for k in SUMMARY_FIELDS},
                       **({} if sm.sizing is not None else {"note": sm.note}),
                       "startup_budget_seconds": budget.budget_seconds,
                       "cache_throughput_mib_s": budget.throughput_mib_s}
    return out


def sizing_summary(spec: EnvironmentSpec) -> dict[str, dict[str, Any]]:
    """Per workload: :func:`workload_sizing`."""
    return _sized(spec)
