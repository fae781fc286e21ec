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

import gc
import importlib.util
import io
import json
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

_ENTRY_CPU = time.process_time()  # the interpreter and the Pulumi SDK, imported by ``pulumi.policy`` (pack_cpu)
if __name__ == "__main__":  # the pack's process: no collection while its modules are imported (see main())
    gc.disable()


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
from pulumi_policy.proxy import UnknownValueError  # noqa: E402
from shardwise.rules import _module_code  # noqa: E402
from shardwise.rules.adapters.pulumi import UNKNOWN_SENTINELS, PulumiResource, kubernetes_api  # noqa: E402
from shardwise.rules.app import crossguard, pack_cpu  # noqa: E402
from shardwise.rules.checks.registry import ALL_RULES  # noqa: E402
from shardwise.rules.model import UNKNOWN  # noqa: E402

_IMPORTED_CPU = time.process_time()  # and the pack's modules, pulumi-policy's and shardwise's

_LEVELS = {"advisory": EnforcementLevel.ADVISORY, "mandatory": EnforcementLevel.MANDATORY}
_SEVERITIES = {s.value: s for s in Severity}
_RULES = {r.meta.code: r for r in ALL_RULES}


def raw(value: Any) -> Any:
    """The SDK's unknown-checking proxies -> plain dicts and lists, through their public interface only.

    The proxies are a ``Mapping`` and a ``Sequence`` whose item access raises ``UnknownValueError`` for a
    value that is not known yet (a computed output at preview); that value becomes the sentinel the error
    carries (the engine's own), which the adapter reads as unknown, never as absent. The proxies of
    properties the pack read itself (:class:`_LazyProxy`) hand over the dict they were made from.
    """
    if isinstance(value, str | bytes) or value is None:
        return value
    if type(value) is _LazyProxy:
        return value.plain
    if isinstance(value, Mapping):
        return {k: raw(_item(value, k)) for k in value}
    if isinstance(value, Sequence):
        return [raw(_item(value, i)) for i in range(len(value))]
    return value


def _item(container: Any, key: Any) -> Any:
    try:
        return container[key]
    except UnknownValueError as e:
        return e.unknown_type_sentinel


#: The key of a value's signature in the engine's properties (``pulumi_policy.deserialize.SPECIAL_SIG_KEY``):
#: a secret, an asset or an archive, which the SDK's reading turns into objects.
_SIG_KEY = "4dabf18193072939515e22adb298388d"


class _NotPlain(Exception):
    """Properties :func:`plain_properties` leaves to the SDK's own reading."""


class NotFinite(ValueError):
    """A number that is not finite (NaN, ±infinity) in a resource's properties (hostile8): the SDK's reading
    (``MessageToDict``) refuses it in words that name no resource nor property; the request still fails (the
    preview stops: no provider takes such a number, and JSON cannot hold it), with the property named here and
    the resource by the caller."""


def not_finite(struct: Any) -> str | None:
    """The first property of ``struct`` (a ``google.protobuf.Struct``) holding a number that is not finite, as
    ``spec.replicas is NaN`` (a secret's value under the secret's own path), or ``None``."""
    stack: list[tuple[str, Any]] = [("", struct)]
    while stack:
        path, node = stack.pop()
        if hasattr(node, "fields"):  # a Struct
            fields = node.fields
            secret = _SIG_KEY in fields
            for k in reversed(list(fields)):
                if secret and k == _SIG_KEY:
                    continue
                sub = path if secret and k == "value" else (f"{path}.{k}" if path else k)
                stack.append((sub, fields[k]))
            continue
        kind = node.WhichOneof("kind")
        if kind == "struct_value":
            stack.append((path, node.struct_value))
        elif kind == "list_value":
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node.list_value.values))))
        elif kind == "number_value" and node.number_value - node.number_value != 0:
            n = node.number_value
            word = "NaN" if n != n else ("Infinity" if n > 0 else "-Infinity")
            return f"{path or 'the properties'} is {word}"
    return None


def _refused(read: Any, message: Any) -> Any:
    """``read(message)``, or :class:`NotFinite` naming the property where the SDK's reading refuses a number."""
    try:
        return read(message)
    except ValueError:
        found = not_finite(message)
        if found is None:
            raise
        raise NotFinite(f"{found}: a number that is not finite, which JSON cannot hold and no Kubernetes or AWS "
                        "field takes; the request is refused (fix the program's value)") from None


def _named(res_type: str, name: str, e: NotFinite) -> ValueError:
    return ValueError(f"shardwise: cannot read {res_type} `{name}`: {e}")


def _too_deep(res_type: str, name: str) -> ValueError:
    """The refusal of a resource whose properties nest deeper than the pack's reading recurses (fuzz23: about 500
    levels of lists). The engine forwards up to protobuf-go's default recursion limit (10,000 message levels,
    about 5,000 of lists); the request failed with Python's RecursionError, naming no resource, and its traceback of
    a thousand frames on the pack's stderr. The request still fails (the preview stops): no Kubernetes or AWS field
    nests so deep."""
    return ValueError(f"shardwise: cannot read {res_type} `{name}`: its properties nest deeper than shardwise reads "
                      "(lists or objects hundreds of levels deep), which no Kubernetes or AWS field does; the request "
                      "is refused (fix the program's value)")


class _Plain(dict):  # type: ignore[type-arg]
    """Properties read by :func:`plain_properties`: what the SDK's ``deserialize_properties`` makes of them is
    an equal dict, so the pack's wiring hands on this one. Read by :func:`kubernetes_properties`, they carry what
    the pack's reading makes of them too (``cleaned``, ``manifest``); else those are ``None``."""

    cleaned: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None


def plain_properties(struct: Any) -> _Plain:
    """A resource's properties (a ``google.protobuf.Struct``) as the SDK reads them (``json_format.MessageToDict``,
    then ``deserialize_properties``: objects, lists, strings, floats, booleans and ``None``, in the message's
    order), read directly, about three times faster.

    Raises :class:`_NotPlain` where the SDK's reading differs from a plain copy or fails: a value with a
    signature anywhere (a secret, asset or archive, or one the SDK does not know), or a number that is not
    finite (``MessageToDict`` refuses it); the caller then reads the properties with the SDK's functions."""
    fields = struct.fields
    if _SIG_KEY in fields:
        raise _NotPlain
    return _Plain((k, _plain_value(fields[k])) for k in fields)


def _plain_struct(struct: Any) -> dict[str, Any]:
    fields = struct.fields
    if _SIG_KEY in fields:
        raise _NotPlain
    return {k: _plain_value(fields[k]) for k in fields}


def _plain_value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return _plain_struct(value.struct_value)
    if kind == "list_value":
        return [_plain_value(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if number - number != 0:  # infinite or NaN
            raise _NotPlain
        return number
    if kind == "bool_value":
        return value.bool_value
    return None  # null_value, or no value set (MessageToDict's None)


def kubernetes_properties(struct: Any) -> _Plain:
    """:func:`plain_properties` of a Kubernetes object's properties, with what the pack's reading makes of them in
    the same walk: ``.cleaned``, equal to :func:`~.adapters.pulumi.clean` of them (the engine's unknown sentinels
    as :data:`~.model.UNKNOWN`, whole numbers as ``int``), and ``.manifest``, the copy of that which the Kubernetes
    reader starts from (:func:`~.adapters.pulumi.k8s.prepare_manifest`: its dicts and lists new, the top-level
    ``__`` keys left out), or ``None`` where a sentinel was met (that reader then decides what each becomes).

    One walk of the message instead of three (the SDK's reading, ``clean``, the reader's copy). Raises
    :class:`_NotPlain` where :func:`plain_properties` does."""
    fields = struct.fields
    if _SIG_KEY in fields:
        raise _NotPlain
    unknown: list[bool] = []
    raw: dict[str, Any] = {}
    cleaned: dict[str, Any] = {}
    manifest: dict[str, Any] = {}
    for k in fields:
        r, c, m = _three(fields[k], unknown)
        raw[k] = r
        cleaned[k] = c
        if not k.startswith("__"):
            manifest[k] = m
    plain = _Plain(raw)
    plain.cleaned = cleaned
    plain.manifest = None if unknown else manifest
    return plain


def _three(value: Any, unknown: list[bool]) -> tuple[Any, Any, Any]:
    """A value read as :func:`_plain_value` reads it, cleaned, and its copy (:func:`kubernetes_properties`); a
    sentinel met is noted in ``unknown``."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        text = value.string_value
        if text in UNKNOWN_SENTINELS:
            unknown.append(True)
            return text, UNKNOWN, UNKNOWN
        return text, text, text
    if kind == "struct_value":
        fields = value.struct_value.fields
        if _SIG_KEY in fields:
            raise _NotPlain
        raw: dict[str, Any] = {}
        cleaned: dict[str, Any] = {}
        copy: dict[str, Any] = {}
        for k in fields:
            raw[k], cleaned[k], copy[k] = _three(fields[k], unknown)
        return raw, cleaned, copy
    if kind == "list_value":
        items = [_three(v, unknown) for v in value.list_value.values]
        return [i[0] for i in items], [i[1] for i in items], [i[2] for i in items]
    if kind == "number_value":
        number = value.number_value
        if number - number != 0:  # infinite or NaN
            raise _NotPlain
        whole = int(number) if number.is_integer() else number
        return number, whole, whole
    if kind == "bool_value":
        flag = value.bool_value
        return flag, flag, flag
    return None, None, None


class _LazyProxy(Mapping):  # type: ignore[type-arg]
    """The SDK's unknown-checking proxy of :class:`_Plain` properties, made only when a policy reads it.

    The pack's own policies take the dict (:func:`raw`), which is what they would copy out of the proxy;
    anything else reading it gets the SDK's proxy, as it would have."""

    def __init__(self, plain: _Plain, make: Any) -> None:
        self.plain = plain
        self._make = make
        self._proxy: Any = None

    def _target(self) -> Any:
        if self._proxy is None:
            self._proxy = self._make(self.plain)
        return self._proxy

    def __getitem__(self, key: Any) -> Any:
        return self._target()[key]

    def __iter__(self) -> Any:
        return iter(self._target())

    def __len__(self) -> int:
        return len(self._target())


class _Pack:
    """Builds the SDK policies from :func:`crossguard.policy_specs` and serves the pack."""

    def __init__(self) -> None:
        self.specs = crossguard.policy_specs(ALL_RULES)
        self.resources = crossguard.RequestCache()
        self.stacks = crossguard.RequestCache()
        self._context: crossguard.StackContext | None = None
        self._local = threading.local()  # crashes of this thread's request, by scope
        self._stack = threading.local()  # the AnalyzeStack request this thread serves, read once (_Wiring)
        self.inputs = crossguard.AnalyzedInputs()
        self.sdk_policies: list[Policy] = []  # what :meth:`policies` made
        self.validators: dict[int, Any] = {}  # id of each of them -> its validate function (:meth:`_validator`)
        self.resource_runs: dict[int, Any] = {}  # id of each resource policy -> its run (:meth:`_policy_run`)
        #: id of each resource policy -> its rule's reads (:func:`crossguard.rule_reads`; ``None``: it always runs)
        self.resource_reads: dict[int, tuple[str, ...] | None] = {}

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
            gc.freeze()  # what reading it imported (the stack spec's models) is kept for good: see main()

    def _resource_analysis(self, args: ResourceValidationArgs, position: int) -> crossguard.Analysis:
        def build() -> crossguard.Analysis:
            return self.resource_analysis(args.resource_type, args.name, args.urn, args.props,
                                          args.opts.parent if args.opts is not None else None)
        return self.resources.get((args.urn, args.resource_type), position, build)

    def resource_analysis(self, type_: str, name: str, urn: str, props: Any, parent: str | None,
                          key: bytes | None = None) -> crossguard.Analysis:
        """The one-resource analysis of a resource's properties (the SDK's proxies or :class:`_LazyProxy`); its
        inputs are remembered for ``AnalyzeStack``, with ``key`` (the properties' message as sent, where
        :func:`plain_properties` read them: :meth:`crossguard.AnalyzedInputs.sent`), and so is what cleaning a
        Kubernetes object's made (:meth:`crossguard.AnalyzedInputs.cleaned`)."""
        plain = raw(props)
        if type(plain) is _Plain:
            manifest, plain.manifest = plain.manifest, None  # the reader's, given once; not kept with the inputs
            self.inputs.remember(urn, plain, key, plain.cleaned, manifest)
        else:
            self.inputs.remember(urn, plain)
        res = PulumiResource(type=type_, name=name, urn=urn, props=plain, parent=parent)
        return crossguard.resource_analysis(res, self.context, self.inputs.cleaned, self.inputs.kubernetes)

    def remembered_only(self, type_: str, urn: str, props: Any, key: bytes | None) -> bool:
        """Where the one-resource analysis of the resource would report nothing (:func:`crossguard.reports_nothing`)
        and its properties are :class:`_Plain` (``props``, a :class:`_LazyProxy`), remember its inputs for
        ``AnalyzeStack`` as :meth:`resource_analysis` does and say ``True``: the analysis is not built. Else
        ``False`` and nothing is done."""
        if type(props) is not _LazyProxy:
            return False
        plain = props.plain
        if plain.manifest is not None or not crossguard.reports_nothing(type_, plain, self.context):
            return False
        self.inputs.remember(urn, plain, key, plain.cleaned)
        return True

    def _stack_analysis(self, args: StackValidationArgs, position: int) -> crossguard.Analysis:
        request: _StackRequest | None = getattr(self._stack, "request", None)
        if request is not None:
            return request.analysis(self)

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

    def serving_stack(self, request: _StackRequest | None) -> None:
        """The ``AnalyzeStack`` request this thread serves from now on (``None``: it is done)."""
        self._stack.request = request

    def _validator(self, spec: crossguard.PolicySpec, position: int):
        resource = spec.scope == "resource"
        run = self._policy_run(spec)

        def validate(args: Any, report_violation: ReportViolation) -> None:
            if not resource:
                request: _StackRequest | None = getattr(self._stack, "request", None)
                if request is not None:  # the SDK's reading: what it cannot read fails the request, as it did
                    request.read()
                run(lambda: self._stack_analysis(args, position), args.get_config(), report_violation)
            else:
                run(lambda: self._resource_analysis(args, position), args.get_config(), report_violation)

        return validate

    def _policy_run(self, spec: crossguard.PolicySpec) -> Any:
        """What the policy ``spec`` does in a request: ``run(analysis, config, report_violation)`` gets the
        request's analysis from ``analysis()``, runs the rule (or hands on the notes or internal errors) with
        the policy's ``config`` and reports each violation (a stack policy with its resource's URN); it never
        raises: a crash is reported by the request's internal-error policy."""
        rule = _RULES.get(spec.code) if spec.code else None
        resource = spec.scope == "resource"
        errors_policy = spec.name in (crossguard.RESOURCE_ERRORS, crossguard.STACK_ERRORS)
        notes_policy = spec.name in (crossguard.RESOURCE_NOTES, crossguard.STACK_NOTES)

        def run(analysis_of: Any, config: Any, report_violation: ReportViolation) -> None:
            try:
                analysis = analysis_of()
                if rule is not None:
                    reports = analysis.check(rule, config, self.context)
                elif notes_policy:
                    reports = analysis.notes
                else:
                    reports = [*analysis.internal, *self._take_crashes(spec.scope)]
                for r in reports:
                    report_violation(r.message, None if resource else r.urn)
            except Exception as exc:  # noqa: BLE001 - no RPC fails because of what it was sent
                message = f"shardwise: internal error in policy {spec.name}: {type(exc).__name__}: {exc}"
                if errors_policy:  # with the crashes of this request's other policies, not left to the next one
                    for c in self._take_crashes(spec.scope):
                        report_violation(c.message, None)
                    report_violation(message, None)
                else:  # reported by this request's (mandatory) internal-error policy, which runs last
                    self._crashes(spec.scope).append(crossguard.Report(spec.name, message))

        return run

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
            validate = self._validator(spec, position)
            policy: Policy
            if spec.scope == "resource":
                policy = ResourceValidationPolicy(validate=validate, **common)
                self.resource_runs[id(policy)] = self._policy_run(spec)
                rule = _RULES.get(spec.code) if spec.code else None
                self.resource_reads[id(policy)] = crossguard.rule_reads(rule) if rule is not None else None
            else:
                policy = StackValidationPolicy(validate=validate, **common)
            out.append(policy)
            self.validators[id(policy)] = validate
        self.sdk_policies = out
        return out

    def initial_config(self) -> dict[str, Any]:
        return {s.name: {"enforcementLevel": _LEVELS[s.enforcement]} for s in self.specs}


def _take_stack_config(servicer: type | None, pack: _Pack) -> None:
    """Hand the ``ConfigureStack`` request's config to the pack before the SDK's own handling.

    A pack the CLI starts by its path gets no ``PULUMI_CONFIG``; pulumi-policy's public API has no hook
    for the engine's ``ConfigureStack``, so its servicer's method is wrapped where the SDK has it (1.21);
    without it the pack reads the config of its environment only."""
    original = getattr(servicer, "ConfigureStack", None) if servicer is not None else None
    if original is None:
        return

    def configure_stack(self: Any, request: Any, context: Any) -> Any:
        pack.configure_stack(dict(request.config))
        return original(self, request, context)

    setattr(servicer, "ConfigureStack", configure_stack)  # noqa: B010


def _check_policy_config(servicer: type | None, pack: _Pack) -> None:
    """Refuse a ``Configure`` whose policy config the pack cannot take (hostile9): a policy it does not have, a
    property its schema does not list, a value of another type or out of its bounds, as
    :func:`~.app.crossguard.policy_config_errors` says. The request fails naming the policy and the property,
    so the preview stops (fail closed) where the value would have been ignored or read as another (a typo'd
    ``kv_reserv``, ``production: "false"`` read as true) or crashed every rule (``kv_reserve: "x"``). An
    enforcement level that does not exist is refused by the SDK itself ("unknown enforcement level: 7")."""
    original = getattr(servicer, "Configure", None) if servicer is not None else None
    json_format = getattr(sys.modules.get("pulumi_policy.policy"), "json_format", None)
    if original is None or json_format is None:
        return
    names = [s.name for s in pack.specs]

    def configure(self: Any, request: Any, context: Any) -> Any:
        errors = []
        for name in request.policyConfig:
            props = json_format.MessageToDict(request.policyConfig[name].properties)
            errors += crossguard.policy_config_errors(name, props, names)
        if errors:
            raise ValueError("shardwise: the policy config cannot be taken: " + "; ".join(errors[:5]) + (
                f"; and {len(errors) - 5} more" if len(errors) > 5 else ""))
        return original(self, request, context)

    setattr(servicer, "Configure", configure)  # noqa: B010


_REMEDIATE = "/pulumirpc.Analyzer/Remediate"
#: pulumi-policy's servicer (1.21): the levels and the config of the engine's ``Configure``, each a dict that
#: ``Configure`` replaces (never changes in place); with the pack's own levels they decide every policy's level.
_CONFIGURED_LEVELS = "_PolicyAnalyzerServicer__policy_pack_config_enforcement_level"
_CONFIGURED = "_PolicyAnalyzerServicer__policy_pack_config"
_UNSET = object()


class _RemediateWhenAsked:
    """The servicer's gRPC handlers, without ``Remediate`` while no resource policy is at the remediate level.

    The engine calls ``Remediate`` for every resource before ``Analyze`` (``step_generator.go``), whether or
    not a policy remediates. No shardwise policy remediates, and with none at that level the SDK's answer is
    empty, after reading the resource's properties, options and provider (1.21): a fifth of the pack's CPU
    time in a 1,121-resource preview. A method the server does not serve is answered ``UNIMPLEMENTED``
    without a worker thread; the engine reads that as an empty answer (``analyzer_plugin.go``: "is
    unimplemented, skipping"), so the preview is the same. A policy configured ``remediate``
    (``--policy-pack-config``) gets the SDK's answer again: each of the pack's policies not applicable
    ("Policy does not implement remediate").
    """

    def __init__(self, handler: Any, remediates: Any) -> None:
        self._handler = handler
        self._remediates = remediates

    def service(self, details: Any) -> Any:
        if details.method == _REMEDIATE and not self._remediates():
            return None
        return self._handler.service(details)


class _ServerWithoutRemediate:
    """The gRPC server, its generic handlers given as :class:`_RemediateWhenAsked` (everything else as it is)."""

    def __init__(self, server: Any, remediates: Any) -> None:
        self._server = server
        self._remediates = remediates

    def add_generic_rpc_handlers(self, handlers: Sequence[Any]) -> None:
        self._server.add_generic_rpc_handlers(tuple(_RemediateWhenAsked(h, self._remediates) for h in handlers))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


def _remediate_when_asked(sdk: Any, pack: _Pack) -> None:
    """Serve ``Remediate`` only while a resource policy is at the remediate level (:class:`_RemediateWhenAsked`):
    the SDK registers its servicer through ``analyzer_pb2_grpc.add_AnalyzerServicer_to_server``, which is
    wrapped where the SDK has it (1.21) and the servicer has ``_get_enforcement_level``, the SDK's own test of
    a policy's level (the pack's default or ``Configure``'s); otherwise ``Remediate`` is served as it was."""
    grpc_module: Any = getattr(sdk, "analyzer_pb2_grpc", None)
    add = getattr(grpc_module, "add_AnalyzerServicer_to_server", None)
    remediate = getattr(getattr(sdk, "EnforcementLevel", None), "REMEDIATE", None)
    resource_policy = getattr(sdk, "ResourceValidationPolicy", None)
    if add is None or remediate is None or resource_policy is None:
        return

    def add_servicer(servicer: Any, server: Any) -> Any:
        level = getattr(servicer, "_get_enforcement_level", None)
        if level is None:
            return add(servicer, server)

        seen: list[Any] = [_UNSET, False]  # the servicer's levels from Configure, and what they concluded

        def remediates() -> bool:
            # The levels change only when the engine's Configure replaces the servicer's dict of them (1.21):
            # concluded once per dict, not for every resource's Remediate (0.03 ms a call in-process).
            configured = getattr(servicer, _CONFIGURED_LEVELS, _UNSET)
            if configured is _UNSET or configured is not seen[0]:
                seen[1] = any(level(p) == remediate for p in pack.sdk_policies if isinstance(p, resource_policy))
                seen[0] = configured
            return bool(seen[1])
        return add(servicer, _ServerWithoutRemediate(server, remediates))

    grpc_module.add_AnalyzerServicer_to_server = add_servicer


class _StackRequest:
    """One ``AnalyzeStack`` request's resources, read once for all the stack policies (see :class:`_Wiring`).

    :meth:`read` does what pulumi-policy's servicer does to each resource before a stack policy runs
    (``MessageToDict``, then ``deserialize_properties``), with the SDK's own functions, once; what they
    cannot read raises out of the first stack policy and fails the request, as it did in the SDK's loop.
    The SDK then wraps each dict in unknown-checking proxies, from which :func:`raw` copies the same dict
    back (an unknown item reads as the sentinel it holds), so the pack takes the dict. Parents and
    dependencies are the URNs among the request's resources, as the SDK links them.

    With ``inputs`` (the pack's :class:`crossguard.AnalyzedInputs`), a resource whose properties are the content
    ``Analyze`` read itself (:func:`plain_properties`) and remembered with the message's deterministic bytes is not
    read again: it gets that dict (which read without failing then, as it would now), its merge with itself is
    itself, and a Kubernetes object's cleaned properties are those ``Analyze`` made
    (:meth:`crossguard.AnalyzedInputs.cleaned`). At preview that is every Kubernetes object the provider's dry run
    adds nothing to: 973 of the 1,122 resources of a real preview (packspeed12).
    """

    def __init__(self, resources: Sequence[Any], read: Any, inputs: crossguard.AnalyzedInputs | None = None) -> None:
        self._resources = resources
        self._read = read
        self._inputs = inputs
        self._props: list[Any] | None = None
        self._analysis: crossguard.Analysis | None = None

    def read(self) -> None:
        if self._props is None:
            props = []
            inputs = self._inputs
            for r in self._resources:
                # the same content as Analyze read (where it read it itself): the dict it read, not read again
                same = None
                if inputs is not None and inputs.has_sent(r.urn):
                    same = inputs.sent(r.urn, r.properties.SerializeToString(deterministic=True))
                if same is not None:
                    props.append(same)
                    continue
                try:
                    props.append(self._read(r.properties))
                except NotFinite as e:
                    raise _named(r.type, r.name, e) from None
                except RecursionError:
                    raise _too_deep(r.type, r.name) from None
            self._props = props

    def analysis(self, pack: _Pack) -> crossguard.Analysis:
        if self._analysis is None:
            self.read()
            assert self._props is not None
            urns = {r.urn for r in self._resources}
            resources = [
                PulumiResource(
                    type=r.type, name=r.name, urn=r.urn, props=pack.inputs.merged(r.urn, props),
                    parent=r.parent if r.parent in urns else None,
                    dependencies=tuple(d for d in r.dependencies if d in urns),
                    property_dependencies={k: tuple(d for d in v.urns if d in urns)
                                           for k, v in r.propertyDependencies.items()},
                )
                for r, props in zip(self._resources, self._props, strict=True)
            ]
            self._analysis = crossguard.stack_analysis(resources, pack.context, pack.inputs.cleaned,
                                                       pack.inputs.kubernetes_again)
        return self._analysis


class _WithoutResources:
    """An ``AnalyzeStack`` request as the SDK's policy loop sees it: every field but the resources, which
    the pack reads once (:class:`_StackRequest`)."""

    resources: tuple[()] = ()

    def __init__(self, request: Any) -> None:
        self._request = request

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


#: What the SDK's ``_configure_runtime_settings`` reads (pulumi-policy 1.21, pulumi 3).
_RUNTIME_ENV = ("PULUMI_CONFIG", "PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_DRY_RUN", "PULUMI_ORGANIZATION")


class _Wiring:
    """The servicer's per-request work, done once per request instead of once per policy.

    pulumi-policy's servicer (1.21) reads a request's resources again for every policy it runs:
    ``Analyze`` turns the resource's properties into a dict (``json_format.MessageToDict``),
    deserializes it, wraps it in unknown-checking proxies and reads its options and provider for each of
    the 23 resource policies; ``AnalyzeStack`` does all of that for every resource, for each of the 21
    stack policies (21,000 times for 1,000 resources: most of the request's time), and links parents and
    dependencies again each time. The SDK's public API has no hook for it, so the servicer's methods are
    wrapped where the SDK has them (without them the pack runs on the SDK's own path, slower, same reports):

    - ``Analyze``: while this thread serves the request, those five steps are memoised by the identity of
      their argument (kept alive by the memo, so that its id stays its own: protobuf's upb hands out the
      same Python object for a submessage while one is alive, and each step's result is the next one's
      argument; a miss only repeats the SDK's work). The proxies and options are read-only to the pack
      (:func:`raw` copies out of them), so the policies can share them.
    - ``AnalyzeStack``: the SDK's loop gets the request without its resources, and the stack policies
      read them from the pack's :class:`_StackRequest`, once.
    - Properties without signatures or odd numbers (all but secrets, assets and archives) are read by
      :func:`plain_properties`, which gives what ``MessageToDict`` and ``deserialize_properties`` give; their
      proxy is made only if something other than the pack's policies reads it (:class:`_LazyProxy`): the
      pack's policies take the dict. The others take the SDK's path as they did.
    """

    def __init__(self, sdk: Any, pack: _Pack) -> None:
        self._local = threading.local()
        self._pack = pack
        self._to_dict = sdk.json_format.MessageToDict
        self._deserialize = sdk.deserialize_properties
        self._proxy = sdk.unknown_checking_proxy
        self._struct = getattr(getattr(sdk, "struct_pb2", None), "Struct", ())

    def read_properties(self, message: Any) -> Any:
        """A resource's properties, as the SDK's functions deserialize them (see :class:`_StackRequest`)."""
        try:
            return plain_properties(message)
        except _NotPlain:
            return self._deserialize(_refused(self._to_dict, message))

    def to_dict(self, message: Any, *args: Any, **kwargs: Any) -> Any:
        """``json_format.MessageToDict``; a ``Struct`` without signatures read by :func:`plain_properties`, the
        properties of the Kubernetes object this thread's ``Analyze`` request names by
        :func:`kubernetes_properties`."""
        if not args and not kwargs and isinstance(message, self._struct):
            try:
                if message is getattr(self._local, "kubernetes", None):
                    return kubernetes_properties(message)
                return plain_properties(message)
            except _NotPlain:
                return _refused(self._to_dict, message)
        return self._to_dict(message, *args, **kwargs)

    def deserialize(self, props: Any, *args: Any, **kwargs: Any) -> Any:
        """``deserialize_properties``, which would copy :class:`_Plain` properties unchanged."""
        if type(props) is _Plain and not args and not kwargs:
            return props
        return self._deserialize(props, *args, **kwargs)

    def proxy(self, props: Any, *args: Any, **kwargs: Any) -> Any:
        """``unknown_checking_proxy``, made when first read for :class:`_Plain` properties."""
        if type(props) is _Plain and not args and not kwargs:
            return _LazyProxy(props, self._proxy)
        return self._proxy(props, *args, **kwargs)

    def _once(self, step: str, fn: Any, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        memo: dict[Any, Any] | None = getattr(self._local, "memo", None)
        if memo is None or args or kwargs:
            return fn(value, *args, **kwargs)
        key = (step, id(value))
        if key not in memo:
            memo[key] = (value, fn(value))  # the value kept alive: its id stays its own
        return memo[key][1]

    def install(self, sdk: Any, servicer: type | None) -> None:
        analyze = getattr(servicer, "Analyze", None) if servicer is not None else None
        analyze_stack = getattr(servicer, "AnalyzeStack", None) if servicer is not None else None
        if analyze is None or analyze_stack is None:
            return
        wiring, pack, once = self, self._pack, self._once
        to_dict, deserialize, proxy = self.to_dict, self.deserialize, self.proxy
        sdk_json_format = sdk.json_format

        class _JsonFormat:
            def __getattr__(self, name: str) -> Any:
                return getattr(sdk_json_format, name)

            @staticmethod
            def MessageToDict(message: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - the SDK's name
                return once("dict", to_dict, message, args, kwargs)

        sdk.json_format = _JsonFormat()
        sdk.deserialize_properties = lambda props, *a, **k: once("deserialize", deserialize, props, a, k)
        sdk.unknown_checking_proxy = lambda props, *a, **k: once("proxy", proxy, props, a, k)
        for name in ("_get_resource_options", "_get_provider_resource"):
            method = getattr(servicer, name, None)
            if method is not None:
                setattr(servicer, name, self._memoised(name, method))
        configure = getattr(servicer, "_configure_runtime_settings", None)
        if configure is not None:
            setattr(servicer, "_configure_runtime_settings", self._configured_once(configure))  # noqa: B010

        dispatch = self._dispatch(sdk, servicer) if servicer is not None else None

        def analyze_memoised(self: Any, request: Any, context: Any) -> Any:
            wiring._local.memo = {}
            # a Kubernetes object's properties, read with what the pack makes of them (kubernetes_properties); the
            # message is kept alive here, so the SDK's reading of it gets the same object (see the memo above)
            wiring._local.kubernetes = request.properties if kubernetes_api(request.type) is not None else None
            try:
                if dispatch is not None:
                    policies = dispatch.ours(self)
                    if policies is not None:
                        return dispatch.analyze(self, policies, request)
                return analyze(self, request, context)
            except NotFinite as e:
                raise _named(request.type, request.name, e) from None
            except RecursionError:
                raise _too_deep(request.type, request.name) from None
            finally:
                wiring._local.memo = None
                wiring._local.kubernetes = None

        def analyze_stack_once(self: Any, request: Any, context: Any) -> Any:
            pack.serving_stack(_StackRequest(request.resources, wiring.read_properties, pack.inputs))
            try:
                return analyze_stack(self, _WithoutResources(request), context)
            finally:
                pack.serving_stack(None)

        setattr(servicer, "Analyze", analyze_memoised)  # noqa: B010
        setattr(servicer, "AnalyzeStack", analyze_stack_once)  # noqa: B010

    def _dispatch(self, sdk: Any, servicer: type) -> _Dispatch | None:
        """The pack's own ``Analyze`` loop where the SDK has every piece it calls (1.21), else ``None``."""
        level = getattr(sdk, "EnforcementLevel", None)
        proto = getattr(sdk, "proto", None)
        pieces = (getattr(sdk, "ResourceValidationArgs", None), getattr(sdk, "ResourceValidationPolicy", None),
                  getattr(proto, "AnalyzeResponse", None), getattr(level, "DISABLED", None),
                  getattr(level, "REMEDIATE", None), getattr(level, "MANDATORY", None))
        methods = ("_configure_runtime_settings", "_get_enforcement_level", "_create_report_violation",
                   "_get_policy_config", "_get_resource_options", "_get_provider_resource")
        if any(p is None for p in pieces) or not all(hasattr(servicer, m) for m in methods):
            return None
        return _Dispatch(sdk, self._pack)

    def _configured_once(self, configure: Any) -> Any:
        """The SDK's ``_configure_runtime_settings``, which every request starts with (it parses ``PULUMI_CONFIG``
        into the Pulumi runtime's config and settings of the serving thread's context: about 0.2 ms), run
        again on a thread only when the environment it reads has changed. The pack's policies never read
        the Pulumi runtime's config: the stack config comes from ``PULUMI_CONFIG`` or ``ConfigureStack``."""
        local = self._local

        def configure_runtime_settings(servicer: Any) -> None:
            env = tuple(os.environ.get(k) for k in _RUNTIME_ENV)
            if getattr(local, "configured", None) != env:
                configure(servicer)
                local.configured = env
        return configure_runtime_settings

    def _memoised(self, step: str, method: Any) -> Any:
        once = self._once

        def memoised(servicer: Any, request: Any) -> Any:
            return once(step, lambda r: method(servicer, r), request, (), {})
        return memoised


class _Dispatch:
    """``Analyze`` as pulumi-policy's servicer runs it (1.21), with the pack's policies called directly.

    The SDK's loop, for each resource policy not disabled (a remediate level reported as mandatory): a
    ``report_violation`` for the policy at that level, the resource's properties read, wrapped in
    unknown-checking proxies, its options and provider read, the policy's config copied, a
    ``ResourceValidationArgs`` of them, then the policy's ``validate``, through ``ResourceValidationPolicy.validate``,
    which calls each validation and gathers what it may await. The pack's validate functions
    (:meth:`_Pack._validator`) return nothing to await and never raise (a crash becomes the internal-error
    policy's report), so the SDK's handling of awaitables, ``UnknownValueError`` and not-applicable answers
    never runs for them. Here the properties, options and provider are read once for the request, where the
    SDK's loop reads them (at the first policy not disabled; the SDK's loop reads them through
    :class:`_Wiring`'s memo, once too: what cannot be read fails the request, as it did), and each policy's
    run (:meth:`_Pack._policy_run`, what its validate function runs) gets the policy's config and the
    request's one-resource analysis, built once; the SDK's ``report_violation`` for the policy, at its
    level, is made only when the policy reports something. The same diagnostics, in the same order, without
    the SDK's per-policy steps, a ``ResourceValidationArgs`` per policy or the request cache (in a replay of
    a 1,121-resource preview, Analyze 0.96 s of the pack's CPU before, 0.865 s after calling the validate
    functions directly; without the transport, ``replay_pack.py --in-process`` of a recorded preview:
    0.35–0.37 ms a call with the validate functions, 0.25–0.32 ms with the runs).

    Only while every policy the servicer holds is one of the pack's; otherwise the SDK's loop runs.
    """

    def __init__(self, sdk: Any, pack: _Pack) -> None:
        self._pack = pack
        self._resource_policy = sdk.ResourceValidationPolicy
        self._response = sdk.proto.AnalyzeResponse
        self._disabled = sdk.EnforcementLevel.DISABLED
        self._remediate = sdk.EnforcementLevel.REMEDIATE
        self._mandatory = sdk.EnforcementLevel.MANDATORY
        self._sdk = sdk
        self._seen: tuple[Any, list[tuple[Any, Any]] | None] = (None, None)
        self._kept: tuple[tuple[Any, Any, Any], list[tuple[Any, Any, Any, bool, Any]], bool] | None = None
        self._providers: set[bytes] = set()  # the provider messages read without failing (:meth:`_read_provider`)

    def ours(self, servicer: Any) -> list[tuple[Any, Any]] | None:
        """The servicer's resource policies with their runs (:meth:`_Pack._policy_run`), in its order; ``None``
        if one of its policies is not the pack's."""
        held = getattr(servicer, "_PolicyAnalyzerServicer__policies", None)
        seen = self._seen
        if seen[0] is held and held is not None:
            return seen[1]
        validators, runs = self._pack.validators, self._pack.resource_runs
        policies: list[tuple[Any, Any]] | None = None
        if isinstance(held, list) and all(id(p) in validators for p in held):
            policies = [(p, runs[id(p)]) for p in held if isinstance(p, self._resource_policy)]
        self._seen = (held, policies)
        return policies

    def analyze(self, servicer: Any, policies: list[tuple[Any, Any]], request: Any) -> Any:
        servicer._configure_runtime_settings()
        response = self._response()
        sdk, pack = self._sdk, self._pack
        read: tuple[Any, Any, bytes | None] | None = None
        built: list[crossguard.Analysis] = []

        def analysis() -> crossguard.Analysis:  # built once; a build that raises is tried again, as it was
            if not built:
                assert read is not None
                built.append(pack.resource_analysis(request.type, request.name, request.urn, *read))
            return built[0]

        context = pack.context
        plan, quiet = self._plan(servicer, policies)
        for policy, run, level, configured, reads in plan:
            if read is None:
                props = sdk.unknown_checking_proxy(sdk.deserialize_properties(
                    sdk.json_format.MessageToDict(request.properties)))
                opts = servicer._get_resource_options(request)
                self._read_provider(servicer, request)  # not read by the pack's policies; what it cannot read fails
                read = (props, opts.parent,
                        request.properties.SerializeToString(deterministic=True)
                        if type(props) is _LazyProxy else None)
                if quiet and pack.remembered_only(request.type, request.urn, props, read[2]):
                    return response  # every policy would report nothing: no inventory made (crossguard.reports_nothing)
            elif reads is not None and built and built[0].idle(reads, context):
                continue  # its run would report nothing: no collection it reads, no configuration (Analysis.idle)
            config = servicer._get_policy_config(policy.name) if configured else None
            run(analysis, config, _Reporter(servicer, response, policy, level))
        return response

    def _read_provider(self, servicer: Any, request: Any) -> None:
        """The SDK's reading of the request's provider (``_get_provider_resource``), which the pack's policies
        never use: what it cannot read fails the request. Its outcome depends on the provider's message only
        (its properties read as a resource's are, wrapped in proxies), so a message read once without failing
        is not read again: every Kubernetes object of a stack names the same provider (973 of the 1,122 requests
        of a real preview name the Kubernetes provider, 4 the AWS one), each read 0.02-0.05 ms. At most 64
        messages are kept (a stack has a few providers)."""
        if request.HasField("provider"):
            key = request.provider.SerializeToString(deterministic=True)
            if key in self._providers:
                return
            servicer._get_provider_resource(request)
            if len(self._providers) < 64:
                self._providers.add(key)
        else:
            servicer._get_provider_resource(request)

    def _plan(self, servicer: Any,
              policies: list[tuple[Any, Any]]) -> tuple[list[tuple[Any, Any, Any, bool, Any]], bool]:
        """The policies a request runs, as the SDK's loop decides each time: ``(policy, run, level, configured,
        reads)`` for each one not disabled, its level (a remediate level as mandatory), whether the engine's
        ``Configure`` gave it a config (``_get_policy_config`` copies it, else gives ``None``) and, for a registry
        rule's policy without one, what the rule reads (:meth:`crossguard.Analysis.idle`; else ``None``); and
        whether each of them is such a policy or the notes or internal-error policy, which report nothing of an
        inventory with nothing in its collections (:meth:`_Pack.remembered_only`). Kept while the servicer holds
        the same policies and the same dicts of ``Configure``'s levels and config."""
        levels, configs = getattr(servicer, _CONFIGURED_LEVELS, _UNSET), getattr(servicer, _CONFIGURED, _UNSET)
        key = (policies, levels, configs)
        kept = self._kept
        if kept is not None and all(a is b for a, b in zip(kept[0], key, strict=True)) and levels is not _UNSET \
                and configs is not _UNSET:
            return kept[1], kept[2]
        plan: list[tuple[Any, Any, Any, bool, Any]] = []
        reads_of = self._pack.resource_reads
        for policy, run in policies:
            level = servicer._get_enforcement_level(policy)
            if level == self._disabled:
                continue
            if level == self._remediate:
                level = self._mandatory
            configured = bool(configs.get(policy.name)) if isinstance(configs, dict) else True
            plan.append((policy, run, level, configured, None if configured else reads_of.get(id(policy))))
        quiet = all(reads is not None or p.name in (crossguard.RESOURCE_NOTES, crossguard.RESOURCE_ERRORS)
                    for p, _, _, _, reads in plan)
        self._kept = (key, plan, quiet)
        return plan, quiet


class _Reporter:
    """The SDK's ``report_violation`` for one policy of one ``Analyze`` request, made when first called."""

    __slots__ = ("_servicer", "_response", "_policy", "_level", "_report")

    def __init__(self, servicer: Any, response: Any, policy: Any, level: Any) -> None:
        self._servicer, self._response, self._policy, self._level = servicer, response, policy, level
        self._report: Any = None

    def __call__(self, message: str, urn: str | None = None) -> None:
        if self._report is None:
            p = self._policy
            self._report = self._servicer._create_report_violation(self._response, p.name, p.description,
                                                                   self._level, p.severity)
        self._report(message, urn)


#: The environment switch of the pack's transport: ``grpcio`` serves through pulumi-policy's grpcio server;
#: ``h2`` (or unset) through :mod:`shardwise.rules.app.grpc_h2`, where ``hpack`` (its one dependency) is importable.
TRANSPORT_ENV = "SHARDWISE_PACK_TRANSPORT"


def transport(environ: Mapping[str, str] = os.environ) -> str:
    """The transport the pack serves through: ``"h2"`` (its own, the default where ``hpack`` is importable) or
    ``"grpcio"`` (pulumi-policy's server; forced by ``SHARDWISE_PACK_TRANSPORT=grpcio``)."""
    wanted = environ.get(TRANSPORT_ENV, "").strip().lower()
    if wanted == "grpcio":
        return "grpcio"
    if wanted not in ("", "h2"):
        print(f"shardwise: {TRANSPORT_ENV}={wanted!r} is neither 'h2' nor 'grpcio'; serving through grpcio",
              file=sys.stderr)
        return "grpcio"
    try:
        from shardwise.rules.app import grpc_h2  # noqa: F401
    except ImportError:
        return "grpcio"
    return "h2"


class _GrpcWithOwnServer:
    """The ``grpc`` module as pulumi-policy's ``PolicyPack`` sees it: ``grpc.server(...)`` is the pack's own
    server (:class:`grpc_h2.Server`), everything else is grpcio's."""

    def __init__(self, grpc_module: Any, server: Any) -> None:
        self._grpc = grpc_module
        self._server = server

    def server(self, thread_pool: Any = None, handlers: Any = None, interceptors: Any = None,  # noqa: ARG002
               options: Any = None, **_: Any) -> Any:
        if thread_pool is not None and hasattr(thread_pool, "shutdown"):
            thread_pool.shutdown(wait=False)  # no thread of it ever started
        server = self._server(options)
        if handlers:
            server.add_generic_rpc_handlers(handlers)
        return server

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grpc, name)


def _serve_with_own_transport(sdk: Any) -> None:
    """Make ``PolicyPack`` serve through the pack's own transport (:func:`transport`), where the SDK makes its
    server with ``grpc.server`` (1.21); the servicer, its handlers and the port printed are the SDK's."""
    if transport() != "h2" or getattr(sdk, "grpc", None) is None or not hasattr(sdk.grpc, "server"):
        return
    from shardwise.rules.app import grpc_h2

    sdk.grpc = _GrpcWithOwnServer(sdk.grpc, grpc_h2.Server)


def main() -> None:
    pack = _Pack()
    _ = pack.context  # read the stack config before serving, not during the first request
    from pulumi_policy import policy as sdk

    _take_stack_config(getattr(sdk, "_PolicyAnalyzerServicer", None), pack)
    _check_policy_config(getattr(sdk, "_PolicyAnalyzerServicer", None), pack)
    if all(hasattr(sdk, name) for name in ("json_format", "deserialize_properties", "unknown_checking_proxy")):
        _Wiring(sdk, pack).install(sdk, getattr(sdk, "_PolicyAnalyzerServicer", None))
    _remediate_when_asked(sdk, pack)
    _serve_with_own_transport(sdk)
    _unbuffered_stdout()
    policies, initial_config = pack.policies(), pack.initial_config()
    cpu_log = pack_cpu.from_environment()
    if cpu_log is not None:  # benchmarks/bench_engine.py: where the pack's CPU time goes
        cpu_log.mark("entry", _ENTRY_CPU)
        cpu_log.mark("imported", _IMPORTED_CPU)
        cpu_log.mark("policies")
        servicer = getattr(sdk, "_PolicyAnalyzerServicer", None)
        if servicer is not None:
            cpu_log.wrap(servicer)
        cpu_log.at_exit()
    # a module-code store found stale (a module changed since it was written) is written now, not at the exit:
    # the engine kills the pack 5 s after its SIGINT (exit_served)
    _module_code.rewrite_now()
    # Everything made so far (the modules, the SDK, the registry and the policies) lives as long as the
    # process: out of the garbage collector's sight, a request's collections go through what that request
    # made only (in a 1,121-resource preview they took an eighth of the requests' CPU time, 0.19 s -> 0.07 s)
    gc.freeze()
    serve_without_collections()
    PolicyPack(
        name=crossguard.PACK_NAME,
        description=crossguard.PACK_DESCRIPTION,
        enforcement_level=EnforcementLevel.ADVISORY,
        policies=policies,
        initial_config=initial_config,
    )
    exit_served()


def serve_without_collections() -> None:
    """The garbage collector off while the pack serves (after :func:`gc.freeze`), as ``shardwise lint`` runs.

    Only reference cycles need the collector (everything else is freed as its last reference goes), and serving
    makes none: a full collection at the end of an in-process replay of a recorded 1,122-resource preview (and
    of ``bench_pack.py``'s stack copied to 1,200 resources) finds nothing unreachable, and
    ``tests/app/test_pack_cycles.py`` fails where a request leaves a cycle. On at CPython's thresholds, the
    collector ran 192 times in that replay (176 young, 15 middle and a full collection, which goes through
    every input remembered for ``AnalyzeStack``), 0.037-0.040 s of CPU, a tenth of the requests'; with its
    young threshold at 100,000 it still ran once, 0.018 s. The start (the modules' imports, until the
    freeze) runs with the collector off too where the pack is run as a program (this module as ``__main__``,
    or through :mod:`~.app.packstart`): what it makes lives as long as the process and is frozen here, with
    the few dozen objects it leaves unreachable (34 in that replay, most of them the SDK's argument parser's).
    In that replay the pack's start went 1,367 -> 1,267 million instructions and the whole replay 7,311 ->
    7,121 million (benchmarks/README.md, packspeed23)."""
    gc.disable()


def exit_served() -> None:
    """End the process once ``PolicyPack`` has stopped serving, without the interpreter's finalization.

    ``PolicyPack`` serves until the engine stops the pack: the CLI sends the plugin's process group ``SIGINT``
    and waits up to 5 s for it to exit (pulumi v3.276.0 ``sdk/go/common/resource/plugin/plugin.go``, the plugin's
    ``kill``; ``cmdutil.InterruptChildren``); the SDK then stops its server and returns, and ``python -m
    pulumi.policy`` flushes stdout and stderr and exits 0. What is left is the interpreter's finalization: tearing
    down every module and freeing the heap the preview built (every resource's inputs are kept for
    ``AnalyzeStack``), work the operating system does anyway when the process ends. So the exit handlers run (the
    stores beside the bytecode are saved there), stdout and stderr are flushed and the process ends with status
    0, as ``shardwise``'s console script does after a lint (``cli.console_main``). When a flush fails (a closed
    pipe) or another thread is still alive, this returns and the interpreter exits as before."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    if threading.active_count() > 1:
        return
    import atexit

    atexit._run_exitfuncs()  # what Py_FinalizeEx would run; it reports a failing handler on stderr itself
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(0)


if __name__ == "__main__":
    main()
