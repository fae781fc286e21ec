"""Validation the components run before declaring any child resource.

The typed spec is turned into the same domain model ``shardwise lint`` reads
(:func:`shardwise.rules.adapters.stack.inventory_from_spec`) and every registry rule runs on it. The
first mandatory finding becomes ``pulumi.InputPropertyError(property_path, "SWnnn: message")``, so a
bad configuration fails at ``pulumi preview`` even without the policy pack. A few checks the rules
cannot make (an Ingress across namespaces, a Karpenter pool for multi-node groups, a missing node
role, a model or instance type the catalog does not know) come first, with the property they name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from shardwise.rules import catalog, render
from shardwise.rules.errors import CatalogError, InputError
from shardwise.rules.spec import (
    EnvironmentSpec,
    NodePoolSpec,
    RouterSpec,
    VllmMultiNodeSpec,
    VllmServiceSpec,
)
from shardwise.rules.yamlsrc import LineDict

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


def _error(path: str, reason: str) -> pulumi.InputPropertyError:
    return pulumi.InputPropertyError(path, reason)


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


def _check_catalog(spec: EnvironmentSpec) -> None:
    for i, p in enumerate(spec.pools):
        try:
            catalog.find_instance(p.instance_type)
        except CatalogError as e:
            raise _error(f"pools[{i}].instance_type", e.message) from None
    for kind, items in (("services", spec.services), ("multi_node", spec.multi_node)):
        for i, s in enumerate(items):
            try:
                catalog.find_model(s.engine.model, s.base_model)
            except CatalogError as e:
                raise _error(f"{kind}[{i}].engine.model",
                             f"{e.message}; set base_model to the catalog model whose shape it has") from None


def _check_structure(spec: EnvironmentSpec) -> None:
    for i, p in enumerate(spec.pools):
        if not spec.node_role_arn:
            raise _error("node_role_arn", f"pool `{p.name}` needs the IAM role its GPU nodes run with")
        if p.multi_node and p.provisioner == "karpenter":
            raise _error(f"pools[{i}].provisioner",
                         f"pool `{p.name}` serves multi-node groups, which need a cluster placement group "
                         "and one subnet; use provisioner managed-nodegroup")
    pools = {p.name: p for p in spec.pools}
    for i, m in enumerate(spec.multi_node):
        if not pools[m.pool].multi_node:
            raise _error(f"multi_node[{i}].pool",
                         f"`{m.name}` spans nodes but pool `{m.pool}` is not a multi_node pool "
                         "(EFA, a cluster placement group and one subnet)")
    backends = {s.name: s for s in (*spec.services, *spec.multi_node)}
    for i, r in enumerate(spec.routers):
        _check_router(r, [backends[n] for n in r.services], f"routers[{i}]")


def _check_router(r: RouterSpec, backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec], path: str) -> None:
    if r.kind != "alb-ingress":
        return
    for b in backends:
        if b.namespace != r.namespace:
            raise _error(f"{path}.namespace" if path else "namespace",
                         f"an Ingress routes only to Services in its own namespace: router `{r.name}` is in "
                         f"`{r.namespace}` but `{b.name}` is in `{b.namespace}`; put the router in `{b.namespace}`")


def _image_code() -> str:
    from shardwise.rules.registry import ALL_RULES

    for rule in ALL_RULES:
        if "image" in rule.meta.name and ("unpinned" in rule.meta.name or "latest" in rule.meta.name):
            return rule.meta.code
    return "image"


def _check_images(spec: EnvironmentSpec) -> None:
    for kind, items in (("services", spec.services), ("multi_node", spec.multi_node)):
        for i, s in enumerate(items):
            reason = render.unpinned_image_reason(s.image)
            if reason:
                raise _error(f"{kind}[{i}].image", f"{_image_code()}: {reason}; pin a version tag or a digest")


# --- entry points ------------------------------------------------------------------------------


def validate_environment(spec: EnvironmentSpec) -> None:
    """Raise ``pulumi.InputPropertyError`` for the first problem in ``spec`` (see the module doc)."""
    from shardwise.rules.adapters.stack import inventory_from_spec
    from shardwise.rules.engine import LintConfig, run_rules
    from shardwise.rules.registry import ALL_RULES

    _check_catalog(spec)
    _check_structure(spec)
    lines, paths = _index_lines(spec.model_dump(mode="json"))
    try:
        inv = inventory_from_spec(spec, f"<environment {spec.name}>", lines)
    except InputError as e:
        raise _error("environment", e.message) from None
    for f in run_rules(ALL_RULES, inv, LintConfig(production=spec.production)):
        if f.blocking:
            message = f.message if f.message.startswith(f.code) else f"{f.code}: {f.message}"
            raise _error(_path_for(f.location.line, f.code, paths), message)
    _check_images(spec)


def _relative(err: pulumi.InputPropertyError, renames: dict[str, str]) -> pulumi.InputPropertyError:
    path = err.property_path
    for prefix, new in renames.items():
        if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
            rest = path[len(prefix):].lstrip(".")
            path = f"{new}.{rest}".strip(".") if new else rest
            break
    return pulumi.InputPropertyError(path or "spec", err.reason)


def _standalone_env(name: str, pools: Sequence[NodePoolSpec], node_role_arn: str | None,
                    services: Sequence[VllmServiceSpec] = (),
                    multi_node: Sequence[VllmMultiNodeSpec] = (), production: bool = False) -> EnvironmentSpec:
    return EnvironmentSpec(
        name=name, cluster_name="standalone", production=production,
        node_role_arn=node_role_arn or "arn:aws:iam::000000000000:role/standalone",
        pools=tuple(pools), services=tuple(services), multi_node=tuple(multi_node),
    )


def validate_service(spec: VllmServiceSpec, pool: NodePoolSpec, production: bool = False) -> None:
    """Validate one VllmService against the pool it runs on; paths are relative to its arguments."""
    if spec.pool != pool.name:
        raise _error("pool", f"`{spec.name}` asks for pool `{spec.pool}` but runs on pool `{pool.name}`")
    try:
        validate_environment(_standalone_env(spec.name, [pool], None, services=[spec], production=production))
    except pulumi.InputPropertyError as e:
        raise _relative(e, {"services[0]": "", "pools[0]": "pool"}) from None


def validate_multinode(spec: VllmMultiNodeSpec, pool: NodePoolSpec, production: bool = False) -> None:
    """Validate one VllmMultiNode against its pool; paths are relative to its arguments."""
    if spec.pool != pool.name:
        raise _error("pool", f"`{spec.name}` asks for pool `{spec.pool}` but runs on pool `{pool.name}`")
    try:
        validate_environment(_standalone_env(spec.name, [pool], None, multi_node=[spec], production=production))
    except pulumi.InputPropertyError as e:
        raise _relative(e, {"multi_node[0]": "", "pools[0]": "pool"}) from None


def validate_pool(pool: NodePoolSpec, node_role_arn: str | None) -> None:
    """Validate one GPU node pool; paths are relative to its arguments."""
    if not node_role_arn:
        raise _error("node_role_arn", f"pool `{pool.name}` needs the IAM role its GPU nodes run with")
    try:
        validate_environment(_standalone_env(pool.name, [pool], node_role_arn))
    except pulumi.InputPropertyError as e:
        raise _relative(e, {"pools[0]": ""}) from None


def validate_router(spec: RouterSpec, backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec]) -> None:
    names = {b.name for b in backends}
    for i, s in enumerate(spec.services):
        if s not in names:
            raise _error(f"services[{i}]", f"router `{spec.name}` routes to `{s}`, which is not among its backends")
    _check_router(spec, [b for b in backends if b.name in spec.services], "")
