"""The shardwise CrossGuard policy pack: ``pulumi preview --policy-pack rules``.

The Pulumi language host starts it as ``python -m pulumi.policy <engine-address> rules`` from the
repository root (with ``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN`` and ``PULUMI_CONFIG``
set); ``python rules/__main__.py`` works too. Either way it serves the analyzer protocol over gRPC
and prints its port on the first line of stdout.

This is the only module of ``rules/`` that imports ``pulumi_policy``; what it does is wiring. The
policies, their configuration, the per-request inventory and where each finding is reported live
in :mod:`shardwise.rules.app.crossguard` (pure Python, tested without the SDK).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any


def _bootstrap() -> None:
    """Make ``shardwise.rules`` importable and keep ``rules/`` itself off ``sys.path``.

    ``runpy`` (and ``python rules/__main__.py``) put this folder first on ``sys.path``, where its
    modules (``model``, ``spec``, ``errors``...) would shadow other packages. Without an installed
    ``shardwise`` (a bare checkout), the package is mapped onto the checkout's folders.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import shardwise.rules.app.crossguard  # noqa: F401
        return
    except ImportError:
        pass
    root = os.path.dirname(here)
    for name, folder in (("shardwise", os.path.join(root, "shardwise")), ("shardwise.rules", here)):
        spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                      submodule_search_locations=[folder])
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {name} from {folder}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


def _unbuffered_stdout() -> None:
    """The SDK writes the port to ``sys.stdout.buffer`` and never flushes; make that reach a pipe."""
    try:
        raw = open(sys.stdout.fileno(), "wb", buffering=0, closefd=False)  # noqa: SIM115
    except (AttributeError, OSError, io.UnsupportedOperation):
        return
    sys.stdout = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)


_bootstrap()

from pulumi_policy import (  # noqa: E402
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import _DictProxy, _ListProxy  # noqa: E402
from shardwise.rules.adapters.pulumi import PulumiResource  # noqa: E402
from shardwise.rules.app import crossguard  # noqa: E402
from shardwise.rules.checks.registry import ALL_RULES  # noqa: E402

_LEVELS = {"advisory": EnforcementLevel.ADVISORY, "mandatory": EnforcementLevel.MANDATORY}
_SEVERITIES = {s.value: s for s in Severity}
_RULES = {r.meta.code: r for r in ALL_RULES}


def raw(value: Any) -> Any:
    """The SDK's unknown-checking proxies -> plain dicts and lists, sentinels left in place."""
    if isinstance(value, _DictProxy):
        value = value["__target"]
    elif isinstance(value, _ListProxy):
        value = value["__target"]
    if isinstance(value, Mapping):
        return {k: raw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [raw(v) for v in value]
    return value


class _Pack:
    """Builds the SDK policies from :func:`crossguard.policy_specs` and serves the pack."""

    def __init__(self) -> None:
        self.specs = crossguard.policy_specs(ALL_RULES)
        self.resources = crossguard.RequestCache()
        self.stacks = crossguard.RequestCache()
        self._context: crossguard.StackContext | None = None
        self._local = threading.local()  # crashes of this thread's request, by scope
        self.inputs = crossguard.AnalyzedInputs()

    @property
    def context(self) -> crossguard.StackContext:
        if self._context is None:
            self._context = crossguard.stack_context()
        return self._context

    def configure_stack(self, config: Mapping[str, str]) -> None:
        """The stack config from the engine's ``ConfigureStack``, where ``PULUMI_CONFIG`` did not carry it.

        A language host sets ``PULUMI_CONFIG`` before it starts a pack; a pack started as an
        executable path (``--policy-pack DIR/launcher``) gets the config only in this request.
        """
        if not os.environ.get("PULUMI_CONFIG") and config:
            self._context = crossguard.stack_context({"PULUMI_CONFIG": json.dumps(dict(config))})

    def _resource_analysis(self, args: ResourceValidationArgs, position: int) -> crossguard.Analysis:
        def build() -> crossguard.Analysis:
            props = raw(args.props)
            self.inputs.remember(args.urn, props)
            res = PulumiResource(type=args.resource_type, name=args.name, urn=args.urn, props=props,
                                 parent=args.opts.parent if args.opts is not None else None)
            return crossguard.resource_analysis(res, self.context)
        return self.resources.get((args.urn, args.resource_type), position, build)

    def _stack_analysis(self, args: StackValidationArgs, position: int) -> crossguard.Analysis:
        def build() -> crossguard.Analysis:
            resources = [
                PulumiResource(
                    type=r.resource_type, name=r.name, urn=r.urn, props=self.inputs.merged(r.urn, raw(r.props)),
                    parent=r.parent.urn if r.parent is not None else None,
                    dependencies=tuple(d.urn for d in r.dependencies),
                    property_dependencies={k: tuple(d.urn for d in v) for k, v in r.property_dependencies.items()},
                )
                for r in args.resources
            ]
            return crossguard.stack_analysis(resources, self.context)
        return self.stacks.get(tuple(r.urn for r in args.resources), position, build)

    def _validator(self, spec: crossguard.PolicySpec, position: int):
        rule = _RULES.get(spec.code) if spec.code else None
        resource = spec.scope == "resource"
        errors_policy = spec.name in (crossguard.RESOURCE_ERRORS, crossguard.STACK_ERRORS)

        def validate(args: Any, report_violation: ReportViolation) -> None:
            try:
                if resource:
                    analysis = self._resource_analysis(args, position)
                else:
                    analysis = self._stack_analysis(args, position)
                if rule is not None:
                    reports = analysis.check(rule, args.get_config(), self.context)
                elif spec.name in (crossguard.RESOURCE_NOTES, crossguard.STACK_NOTES):
                    reports = analysis.notes
                else:
                    reports = [*analysis.internal, *self._take_crashes(spec.scope)]
                for r in reports:
                    report_violation(r.message, None if resource else r.urn)
            except Exception as exc:  # noqa: BLE001 - no RPC fails because of what it was sent
                message = f"shardwise: internal error in policy {spec.name}: {type(exc).__name__}: {exc}"
                if errors_policy:
                    report_violation(message, None)
                else:  # reported by this request's (mandatory) internal-error policy, which runs last
                    self._crashes(spec.scope).append(crossguard.Report(spec.name, message))

        return validate

    def _crashes(self, scope: str) -> list[crossguard.Report]:
        if not hasattr(self._local, scope):
            setattr(self._local, scope, [])
        crashes: list[crossguard.Report] = getattr(self._local, scope)
        return crashes

    def _take_crashes(self, scope: str) -> list[crossguard.Report]:
        crashes = list(self._crashes(scope))
        self._crashes(scope).clear()
        return crashes

    def policies(self) -> list[Policy]:
        out: list[Policy] = []
        for position, spec in enumerate(self.specs):
            common: dict[str, Any] = {
                "name": spec.name,
                "description": spec.description,
                "enforcement_level": _LEVELS[spec.enforcement],
                "severity": _SEVERITIES.get(spec.severity or ""),
                "remediation_steps": spec.remediation,
                "url": spec.url,
                "tags": list(spec.tags),
                "config_schema": PolicyConfigSchema(dict(spec.config_schema)) if spec.config_schema else None,
            }
            if spec.scope == "resource":
                out.append(ResourceValidationPolicy(validate=self._validator(spec, position), **common))
            else:
                out.append(StackValidationPolicy(validate=self._validator(spec, position), **common))
        return out

    def initial_config(self) -> dict[str, Any]:
        return {s.name: {"enforcementLevel": _LEVELS[s.enforcement]} for s in self.specs}


def _shared_deserialization_servicer() -> type | None:
    """The SDK's servicer, changed only to deserialize each request's properties once.

    pulumi_policy 1.21 deserializes every resource again for every policy (``MessageToDict``, then
    an unknown-checking proxy): with 30 policies that is most of an ``AnalyzeStack``. This
    subclass builds the same ``ResourceValidationArgs``/``PolicyResource`` objects once per request
    and hands them to every policy, with the SDK's own enforcement, config, unknown-value and
    not-applicable handling. It relies on the servicer's private attributes, so it is used only
    with the SDK versions it was written against (1.21.x) and when
    ``SHARDWISE_STOCK_SERVICER`` is unset; otherwise the stock servicer runs.
    """
    import asyncio
    from inspect import isawaitable

    from google.protobuf import json_format
    from pulumi.runtime import proto
    from pulumi_policy import policy as sdk
    from pulumi_policy.deserialize import deserialize_properties
    from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy
    from pulumi_policy.version import VERSION

    base = getattr(sdk, "_PolicyAnalyzerServicer", None)
    if os.environ.get("SHARDWISE_STOCK_SERVICER") or base is None or not VERSION.startswith("1.21."):
        return None
    def _properties(struct: Any) -> Any:
        """The SDK's reading of a resource's properties; where the SDK cannot read them (a value
        signature it does not know), the raw ones, which the adapter reports as unreadable."""
        raw_props = json_format.MessageToDict(struct)
        try:
            return unknown_checking_proxy(deserialize_properties(raw_props))
        except Exception:  # noqa: BLE001 - never fail the RPC over a resource's values
            return unknown_checking_proxy(raw_props)

    needed = ("_PolicyAnalyzerServicer__policies", "_PolicyAnalyzerServicer__stack_tags",
              "_PolicyAnalyzerServicer__policy_pack_name", "_PolicyAnalyzerServicer__policy_pack_version")

    class Servicer(base):  # type: ignore[misc, valid-type]
        def _run(self, policy: Any, report: Any, args: Any, response: Any) -> None:
            try:
                result: Any = policy.validate(args, report)
                if isawaitable(result):
                    loop = asyncio.new_event_loop()
                    loop.run_until_complete(result)
                    loop.close()
            except UnknownValueError as e:
                name, version = self._PolicyAnalyzerServicer__policy_pack_name, \
                    self._PolicyAnalyzerServicer__policy_pack_version
                response.diagnostics.append(proto.AnalyzeDiagnostic(
                    policyName=policy.name, policyPackName=name, policyPackVersion=version,
                    message=f"can't run policy '{policy.name}' from policy pack '{name}@v{version}' during "
                            f"preview: {e.message}",
                    urn="", description=policy.description,
                    enforcementLevel=self._map_enforcement_level(sdk.EnforcementLevel.ADVISORY),
                ))
            except sdk._NotApplicableError as e:
                response.not_applicable.append(proto.PolicyNotApplicable(policy_name=policy.name,
                                                                         reason=e.reason or ""))

        def _policies(self, kind: Any, response: Any) -> Any:
            policy: Any
            for policy in self._PolicyAnalyzerServicer__policies:
                level = self._get_enforcement_level(policy)
                if level == sdk.EnforcementLevel.DISABLED or not isinstance(policy, kind):
                    continue
                if level == sdk.EnforcementLevel.REMEDIATE:
                    level = sdk.EnforcementLevel.MANDATORY
                yield policy, self._create_report_violation(response, policy.name, policy.description, level,
                                                            policy.severity)

        def Analyze(self, request, _context):  # noqa: N802 - gRPC name
            if not all(hasattr(self, a) for a in needed):
                return super().Analyze(request, _context)
            self._configure_runtime_settings()
            response = proto.AnalyzeResponse()
            props = opts = provider = None
            for policy, report in self._policies(sdk.ResourceValidationPolicy, response):
                if not policy.has_validation():
                    response.not_applicable.append(proto.PolicyNotApplicable(
                        policy_name=policy.name, reason="Policy does not implement validate"))
                    continue
                if props is None:
                    props = _properties(request.properties)
                    opts = self._get_resource_options(request)
                    provider = self._provider(request)
                args = sdk.ResourceValidationArgs(request.type, props, request.urn, request.name, opts, provider,
                                                  self._get_policy_config(policy.name),
                                                  self._PolicyAnalyzerServicer__stack_tags)
                self._run(policy, report, args, response)
            return response

        def AnalyzeStack(self, request, _context):  # noqa: N802 - gRPC name
            if not all(hasattr(self, a) for a in needed):
                return super().AnalyzeStack(request, _context)
            self._configure_runtime_settings()
            response = proto.AnalyzeResponse()
            resources = None
            for policy, report in self._policies(sdk.StackValidationPolicy, response):
                if resources is None:
                    resources = self._resources(request)
                args = sdk.StackValidationArgs(resources, self._get_policy_config(policy.name),
                                               self._PolicyAnalyzerServicer__stack_tags)
                self._run(policy, report, args, response)
            return response

        def _provider(self, request) -> Any:
            try:
                return self._get_provider_resource(request)
            except Exception:  # noqa: BLE001 - provider properties the SDK cannot read: no provider
                return None

        def _resources(self, request) -> list:
            by_urn: dict[str, Any] = {}
            pending = []
            for r in request.resources:
                res = sdk.PolicyResource(r.type, _properties(r.properties), r.urn, r.name,
                                         self._get_resource_options(r), self._provider(r), None, [], {})
                by_urn[r.urn] = res
                pending.append((res, r.parent, list(r.dependencies),
                                {k: list(v.urns) for k, v in r.propertyDependencies.items()}))
            for res, parent, deps, prop_deps in pending:
                if parent and parent in by_urn:
                    res.parent = by_urn[parent]
                res.dependencies.extend(by_urn[d] for d in deps if d in by_urn)
                for k, urns in prop_deps.items():
                    res.property_dependencies[k] = [by_urn[u] for u in urns if u in by_urn]
            return [p[0] for p in pending]

    return Servicer


def _take_stack_config(servicer: type | None, pack: _Pack) -> None:
    """Hand the ``ConfigureStack`` request's config to the pack before the SDK's own handling."""
    original = getattr(servicer, "ConfigureStack", None) if servicer is not None else None
    if original is None:
        return

    def configure_stack(self: Any, request: Any, context: Any) -> Any:
        pack.configure_stack(dict(request.config))
        return original(self, request, context)

    setattr(servicer, "ConfigureStack", configure_stack)  # noqa: B010


def main() -> None:
    pack = _Pack()
    _ = pack.context  # read the stack config before serving, not during the first request
    from pulumi_policy import policy as sdk

    servicer = _shared_deserialization_servicer()
    if servicer is not None:
        setattr(sdk, "_PolicyAnalyzerServicer", servicer)  # noqa: B010 - a private name of the SDK
    _take_stack_config(getattr(sdk, "_PolicyAnalyzerServicer", None), pack)
    _unbuffered_stdout()
    PolicyPack(
        name=crossguard.PACK_NAME,
        description=crossguard.PACK_DESCRIPTION,
        enforcement_level=EnforcementLevel.ADVISORY,
        policies=pack.policies(),
        initial_config=pack.initial_config(),
    )


if __name__ == "__main__":
    main()
