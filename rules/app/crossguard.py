"""The CrossGuard policy pack's logic, without ``pulumi_policy`` (``rules/__main__.py`` wires it up).

Every rule of the registry is one policy: name = the rule's name, description = ``"SWnnn: "`` +
its summary (the SDK puts the description first in every violation message, so each message
starts with the code), enforcement level and severity from its metadata, remediation steps, and
the rule page as URL. Rules whose metadata says ``scope="resource"`` are resource policies (run in
``Analyze`` on one resource), the others stack policies (run in ``AnalyzeStack`` on every resource).

A resource policy sees one resource, so every rule that needs the node pool a workload lands on
(the capacity and placement rules) is a stack policy. The stack config the engine hands the pack
in ``PULUMI_CONFIG`` supplies only whether the stack is production.

CrossGuard gives every diagnostic of a policy that policy's enforcement level. A rule whose hits
can be mandatory in some cases (``RuleMeta.mandatory_when``, e.g. SW305 for multi-node groups) is a
mandatory policy, and its advisory hits go to the notes policy. Findings whose level differs from
their policy's are reported by four extra policies, after all the rule policies:

- ``shardwise-resource-notes`` / ``shardwise-stack-notes`` (advisory): suppressed findings
  (``"SW304 suppressed: <reason> (finding: …)"``) and "cannot decide" findings of rules whose
  metadata allows skipping unknown values; nothing is dropped;
- ``shardwise-resource-internal-error`` / ``shardwise-stack-internal-error`` (mandatory): a rule
  that crashed (naming the rule and the resource) and a resource the adapter could not read.

Per-policy configuration (``pulumi preview --policy-pack-config``): the standard
``enforcementLevel``, plus :data:`CONFIG_SCHEMA` (``kv_reserve``, ``p95_context_tokens``,
``usable_fraction``, ``production``, ``unknown_is_failure``, ``default_deny_namespaces`` and
``suppressions``).

``AnalyzeStack`` reads each resource's outputs together with the inputs ``Analyze`` saw for it
(:class:`AnalyzedInputs`): at preview a provider reports the attributes it computes as unknown.

The servicer calls the policies of one request one after another, in list order, on one thread.
:class:`RequestCache` uses that to build the inventory once per request and run each rule once.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..engine import Finding, LintConfig, Rule, SuppressionEntry, internal_error, run_rule
from ..model import Inventory
from ..model.errors import ShardwiseError

PACK_NAME = "shardwise"
PACK_DESCRIPTION = (
    "shardwise: capacity, topology, network, security and reliability rules for vLLM on Kubernetes "
    "(EKS), from the same registry as `shardwise lint`."
)
RESOURCE_NOTES = "shardwise-resource-notes"
STACK_NOTES = "shardwise-stack-notes"
RESOURCE_ERRORS = "shardwise-resource-internal-error"
STACK_ERRORS = "shardwise-stack-internal-error"
ENVIRONMENT_KEY = "shardwise:environment"

Scope = Literal["resource", "stack"]

#: The policy configuration every rule policy accepts (JSON schema properties).
CONFIG_SCHEMA: dict[str, dict[str, Any]] = {
    "kv_reserve": {
        "type": "number", "minimum": 1.0, "maximum": 10.0,
        "description": "Weights × this must fit the GPUs (room for KV cache and activations); default 1.4.",
    },
    "p95_context_tokens": {
        "type": "integer", "minimum": 1,
        "description": "p95 prompt+output tokens for workloads that do not declare one.",
    },
    "usable_fraction": {
        "type": "number", "exclusiveMinimum": 0, "maximum": 1,
        "description": "Fraction of a GPU's memory the capacity rules count as usable; default 0.9.",
    },
    "production": {
        "type": "boolean",
        "description": ("Treat the stack as production (default: shardwise:environment.production where the "
                        "stack's config writes it, else each workload's shardwise.dev/production annotation)."),
    },
    "unknown_is_failure": {
        "type": "boolean",
        "description": "true: every mandatory rule that cannot decide (an unknown value) blocks; false: all such "
                       "findings are advisory. Unset: undecided capacity and topology findings are advisory, "
                       "undecided security findings block.",
    },
    "default_deny_namespaces": {
        "type": "array", "items": {"type": "string", "minLength": 1},
        "description": "Namespaces (globs) whose default-deny ingress policy is managed outside this stack (SW305).",
    },
    "suppressions": {
        "type": "array",
        "description": "Findings of this policy to suppress: a glob over subjects and the reason.",
        "items": {
            "type": "object",
            "properties": {
                "subject": {"type": "string", "description": "Glob over finding subjects; default *."},
                "reason": {"type": "string", "minLength": 1},
            },
            "required": ["reason"],
        },
    },
}


#: The files of a generated pack directory (``shardwise policy-pack-dir``).
PACK_ENTRY = "__main__.py"
PACK_LAUNCHER = "shardwise-pack"
PACK_CONFIG_SCHEMA = "policy-config.schema.json"
#: The pack's Python environment, inside the pack directory: where ``pulumi policy publish``'s consumers
#: (and ``pulumi install``) install requirements.txt. The launcher does not use it.
PACK_VIRTUALENV = "venv"

_ENTRY = """\
# Generated by `shardwise policy-pack-dir` (shardwise {version}): the shardwise CrossGuard policy pack.
# It is the installed package's shardwise.rules.__main__ (requirements.txt pins it); no other file is read.
from shardwise.rules.__main__ import main

main()
"""

_LAUNCHER_SCRIPT = """\
#!/bin/sh
# Generated by `shardwise policy-pack-dir` (shardwise {version}). `pulumi preview --policy-pack <this file>`
# starts it with the engine's address: it serves this folder's pack with the Python environment that wrote
# it ({prefix}), where shardwise and pulumi-policy are installed; nothing is installed.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
engine=$1
shift
{environment}exec {python} -u -m shardwise.rules.app.packstart "$engine" "$here" "$@"
"""

#: grpcio's experiments the pack's launchers turn off (``GRPC_EXPERIMENTS=-NAME,...``): the EventEngine listener and
#: endpoints, which grpcio 1.85 uses by default. With them, each call the engine makes (a Remediate and an Analyze a
#: resource, spaced by the engine's own work on the resource) wakes the C core's event-engine threads besides the
#: poll thread and a worker; without them the poll thread reads the socket itself. grpcio reads ``GRPC_EXPERIMENTS``
#: once, when ``grpc`` is imported (``import grpc`` loads its settings: a value set in the process afterwards changes
#: nothing), and ``python -m pulumi.policy`` imports it (through ``pulumi``) before the pack's own code runs, so
#: only what starts the interpreter can set it: the launchers (:data:`PACK_LAUNCHER`, the tests'
#: ``engine_support.pack_dir``), not a pack the language host starts (``--policy-pack rules``). See
#: benchmarks/README.md (bench_engine.py).
GRPC_EXPERIMENTS_OFF = ("event_engine_listener", "event_engine_for_all_other_endpoints")
#: The grpcio releases (major, minor) whose ``src/core/lib/experiments/experiments.yaml`` names both experiments
#: (read in the 1.85.3 sdist). A name a release does not know is an ``Unknown experiment`` error line on the pack's
#: stderr, which the CLI shows; the listener's experiment expires on 2026/10/30, after which a release may drop its
#: name. Another release gets no setting until its file has been read.
GRPC_VERIFIED_RELEASES = frozenset({(1, 85)})


def pack_grpc_environment(grpcio_version: str | None) -> dict[str, str]:
    """What the pack's launchers put in its environment for the grpcio release ``grpcio_version`` (``None``: not
    installed): ``{"GRPC_EXPERIMENTS": "-event_engine_listener,-event_engine_for_all_other_endpoints"}`` for a
    release of :data:`GRPC_VERIFIED_RELEASES`, else nothing."""
    parts = (grpcio_version or "").split(".")
    try:
        release = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        return {}
    if release not in GRPC_VERIFIED_RELEASES:
        return {}
    return {"GRPC_EXPERIMENTS": ",".join(f"-{name}" for name in GRPC_EXPERIMENTS_OFF)}


def launcher_environment(environment: Mapping[str, str]) -> str:
    """Shell lines that export each of ``environment`` where it is not set already: a value the user gave (even an
    empty one) is kept. Names and values are words of letters, digits, ``_``, ``,``, ``-`` and ``.`` (what needs no
    quoting inside ``"${NAME=value}"``); anything else raises ``ValueError``."""
    lines = ["# grpcio's settings for the pack (crossguard.pack_grpc_environment), where not set already\n"] \
        if environment else []
    for name, value in environment.items():
        if not name.isidentifier() or not name.isascii() or any(not (c.isascii() and (c.isalnum() or c in "_,-."))
                                                                 for c in value):
            raise ValueError(f"not a launcher setting: {name}={value}")
        lines.append(f': "${{{name}={value}}}"\nexport {name}\n')
    return "".join(lines)


def installed_grpcio() -> str | None:
    """The installed grpcio's version, or ``None``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("grpcio")
    except PackageNotFoundError:
        return None


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _pulumi_policy_requirement() -> str:
    """The ``pulumi-policy`` requirement of shardwise's ``pulumi`` extra, as the installed metadata says."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        declared = requires("shardwise") or []
    except PackageNotFoundError:
        declared = []
    for line in declared:
        req, _, marker = line.partition(";")
        if req.strip().startswith("pulumi-policy") and "pulumi" in marker:
            return req.strip().replace(" ", "")
    return "pulumi-policy"


def config_schema_document(specs: Sequence[PolicySpec]) -> dict[str, Any]:
    """The JSON schema of a ``--policy-pack-config`` file for this pack: one optional object per policy,
    with the standard ``enforcementLevel`` and that policy's own properties; nothing else is accepted."""
    levels = {"type": "string", "enum": ["advisory", "mandatory", "disabled"]}
    policies: dict[str, Any] = {}
    for spec in specs:
        props: dict[str, Any] = {"enforcementLevel": levels, **dict(spec.config_schema or {})}
        policies[spec.name] = {"type": "object", "description": spec.description, "properties": props,
                               "additionalProperties": False}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"{PACK_NAME} policy pack configuration (pulumi preview --policy-pack-config FILE)",
        "type": "object",
        "properties": {"all": levels, **policies},
        "additionalProperties": False,
    }


def pack_dir(out: str | None = None) -> str:
    """A CrossGuard policy pack directory for the shardwise installed in this Python environment, written
    to ``out`` (default: ``$XDG_CACHE_HOME/shardwise/policy-pack-<version>-<environment>``) and returned.

    It holds what ``pulumi policy publish`` uploads and its consumers install: ``PulumiPolicy.yaml``
    (runtime python, the virtualenv ``venv`` inside the folder, no path outside it), ``requirements.txt``
    (shardwise and pulumi-policy pinned to the versions installed here), :data:`PACK_ENTRY` (imports the
    installed package only) and :data:`PACK_CONFIG_SCHEMA`; and :data:`PACK_LAUNCHER`, an executable that
    serves the same pack with this environment's interpreter, for ``pulumi preview --policy-pack
    DIR/shardwise-pack`` without installing anything.

    Raises :class:`ShardwiseError` when this environment has no ``pulumi-policy`` (a lint-only install):
    the pack could not start, so no directory is written; the message is the line that installs it.
    """
    import hashlib
    import importlib.util
    import stat
    import sys
    from importlib.metadata import PackageNotFoundError, version

    from shardwise import __version__

    if importlib.util.find_spec("pulumi_policy") is None:
        raise ShardwiseError(
            f"the policy pack needs pulumi-policy, which this environment ({sys.prefix}) does not have; install "
            f"it with: {sys.executable} -m pip install '{_pulumi_policy_requirement()}'")
    try:
        hpack_version: str | None = version("hpack")
    except PackageNotFoundError:
        hpack_version = None
    try:
        policy_version = version("pulumi-policy")
    except PackageNotFoundError:
        raise ShardwiseError("pulumi_policy is importable but not installed as a distribution (no version to "
                             "pin in requirements.txt): reinstall it with pip") from None
    if out is None:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        env = hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]
        out = os.path.join(cache, "shardwise", f"policy-pack-{__version__}-{env}")
    os.makedirs(out, exist_ok=True)
    description = " ".join(PACK_DESCRIPTION.split())
    files = {
        "PulumiPolicy.yaml": (
            f"# Generated by `shardwise policy-pack-dir` (shardwise {__version__}). pulumi policy publish uploads\n"
            f"# this folder; the CLI that runs it installs requirements.txt into {PACK_VIRTUALENV}/ here.\n"
            f"description: {json.dumps(description)}\n"
            f"version: {__version__}\n"
            "runtime:\n"
            "  name: python\n"
            "  options:\n"
            "    toolchain: pip\n"
            f"    virtualenv: {PACK_VIRTUALENV}\n"
        ),
        "requirements.txt": (
            f"# Generated by `shardwise policy-pack-dir`: what the pack imports, pinned.\n"
            f"shardwise=={__version__}\n"
            f"pulumi-policy=={policy_version}\n"
            # the pack's own gRPC transport (grpc_h2) needs hpack; a published pack installed without it serves
            # through grpcio, correct but slower
            + (f"hpack=={hpack_version}\n" if hpack_version else "")
        ),
        PACK_ENTRY: _ENTRY.format(version=__version__),
        PACK_CONFIG_SCHEMA: json.dumps(config_schema_document(policy_specs_of_registry()), indent=2) + "\n",
        PACK_LAUNCHER: _LAUNCHER_SCRIPT.format(version=__version__, prefix=sys.prefix,
                                                python=_shell_quote(sys.executable),
                                                environment=launcher_environment(
                                                    pack_grpc_environment(installed_grpcio()))),
    }
    for name, text in files.items():
        path = os.path.join(out, name)
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(path + ".tmp", path)
    launcher = os.path.join(out, PACK_LAUNCHER)
    os.chmod(launcher, os.stat(launcher).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return out


def policy_specs_of_registry() -> list[PolicySpec]:
    from ..checks.registry import ALL_RULES

    return policy_specs(ALL_RULES)


@dataclass(frozen=True)
class PolicySpec:
    """One CrossGuard policy, described without the SDK."""

    name: str
    description: str
    scope: Scope
    enforcement: Literal["advisory", "mandatory"]
    severity: str | None = None
    remediation: str | None = None
    url: str | None = None
    code: str | None = None  # None for the notes and internal-error policies
    config_schema: Mapping[str, Mapping[str, Any]] | None = None
    tags: tuple[str, ...] = ()


def _category(code: str) -> str:
    return {"SW0": "meta", "SW1": "capacity", "SW2": "topology", "SW3": "network-security",
            "SW4": "reliability"}.get(code[:3], "other")


def policy_specs(rules: Sequence[Rule]) -> list[PolicySpec]:
    """Every rule's policy in registry order, then the notes and internal-error policies."""
    out = []
    for rule in rules:
        m = rule.meta
        out.append(PolicySpec(
            name=m.name, description=f"{m.code}: {m.summary}", scope=m.scope, enforcement=m.highest_enforcement,
            severity=m.severity, remediation=m.remediation, url=m.doc_url, code=m.code,
            config_schema=CONFIG_SCHEMA, tags=("shardwise", m.code, _category(m.code)),
        ))
    out += [
        PolicySpec(RESOURCE_NOTES, "shardwise: suppressed findings, and rules that could not decide and may "
                   "skip unknown values, on one resource.", "resource", "advisory", "low", tags=("shardwise",)),
        PolicySpec(STACK_NOTES, "shardwise: suppressed findings, and rules that could not decide and may skip "
                   "unknown values, across the stack.", "stack", "advisory", "low", tags=("shardwise",)),
        PolicySpec(RESOURCE_ERRORS, "shardwise: a rule crashed or a resource could not be read; nothing was "
                   "checked there.", "resource", "mandatory", "high", tags=("shardwise",)),
        PolicySpec(STACK_ERRORS, "shardwise: a rule crashed or a resource could not be read while checking "
                   "the stack.", "stack", "mandatory", "high", tags=("shardwise",)),
    ]
    return out


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StackContext:
    """What the stack's own config says: whether it is production."""

    production: bool | None = None
    error: str | None = None
    #: The config key that said it (``shardwise:environment``, or another project's ``<project>:environment``), as
    #: SW404's finding names it; not compared: the verdict kept for a value is the same whatever project reads it.
    key: str = field(default="", compare=False)


def stack_context(environ: Mapping[str, str] | None = None) -> StackContext:
    """Read ``shardwise:environment`` (or any ``<project>:environment``) from ``PULUMI_CONFIG``; what a value
    read before concluded comes from the store beside the bytecode (:mod:`.stack_verdicts`)."""
    environ = os.environ if environ is None else environ
    raw = environ.get("PULUMI_CONFIG")
    if not raw:
        return StackContext()
    try:
        config = json.loads(raw)
    except ValueError:
        return StackContext(error="PULUMI_CONFIG is not JSON")
    if not isinstance(config, Mapping):
        return StackContext()
    key = ENVIRONMENT_KEY if ENVIRONMENT_KEY in config else next(
        (k for k in config if isinstance(k, str) and k.endswith(":environment") and k.count(":") == 1), None)
    if key is None:
        return StackContext()
    value = config[key]
    from .stack_verdicts import STORE_OF_PACK, digest

    kept = digest(key, value)
    verdict = STORE_OF_PACK.get(kept)
    if verdict is None:
        verdict = _read_environment(key, value)
        STORE_OF_PACK.put(kept, verdict)
    return StackContext(production=verdict[0], error=verdict[1], key=key)


def _read_environment(key: str, value: Any) -> tuple[bool | None, str | None]:
    """``(production, error)`` of one environment config value, validated against the stack spec (pydantic). A
    value that does not write ``production`` says nothing of it: None, so that each workload's own setting decides
    (its annotation ``shardwise.dev/production``), as in a run of ``shardwise lint`` without one (review37: the spec's
    default, False, made every workload of the stack not production, an annotation ``"true"`` included)."""
    try:
        if isinstance(value, str):
            value = json.loads(value)
        from ..adapters.stack import spec_from_value

        spec = spec_from_value(value, key)
    except (ValueError, ShardwiseError) as e:
        return None, f"{key}: {e}"
    return (spec.production if isinstance(value, Mapping) and "production" in value else None), None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}" if len(repr(value)) <= 40 else "a number"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("…" if len(value) > 40 else "")
    return "a list" if isinstance(value, list | tuple) else "an object"


def policy_config_errors(name: str, props: Mapping[str, Any], known_policies: Sequence[str]) -> list[str]:
    """What is wrong with the configuration of policy ``name`` that ``Configure`` carries (hostile9): a policy
    the pack does not have, a property :data:`CONFIG_SCHEMA` does not list, or a value outside its type or bounds.

    The engine validates a ``--policy-pack-config`` file against each policy's schema, but a name the schema does
    not list passes it (the SDK's schema cannot forbid other properties), and another client sends what it likes:
    ``lint_config`` read ``production: "false"`` as true, ignored ``kv_reserv`` and took ``usable_fraction: 5``.
    Every policy's properties are checked, the notes and error policies too (they take none)."""
    if name not in known_policies:
        return [f"`{name}` is no policy of this pack"]
    errors = []
    for key, value in props.items():
        schema = CONFIG_SCHEMA.get(key)
        if schema is None:
            errors.append(f"`{name}`: unknown property {key!r}; the properties are {', '.join(CONFIG_SCHEMA)}")
            continue
        kind = schema["type"]
        if kind == "boolean":
            ok = isinstance(value, bool)
        elif kind in ("number", "integer"):
            ok = isinstance(value, int | float) and not isinstance(value, bool) and (
                isinstance(value, int) or math.isfinite(value))  # a huge int is finite (fuzz14)
            if ok and kind == "integer":
                ok = isinstance(value, int) or value.is_integer()
            if ok:
                lo, hi = schema.get("minimum"), schema.get("maximum")
                ok = (lo is None or value >= lo) and (hi is None or value <= hi) and (
                    "exclusiveMinimum" not in schema or value > schema["exclusiveMinimum"])
        elif key == "default_deny_namespaces":
            ok = isinstance(value, list) and all(isinstance(n, str) and n for n in value)
        else:  # suppressions
            ok = isinstance(value, list)
            for i, e in enumerate(value if ok else ()):
                if not isinstance(e, Mapping):
                    errors.append(f"`{name}`: suppressions[{i}] is {_json_type(e)}; expected an object with a reason")
                elif other := sorted(set(e) - {"subject", "reason"}):
                    errors.append(f"`{name}`: suppressions[{i}]: unknown key {other[0]!r}; an entry has a reason and "
                                  "an optional subject (a glob), and suppresses this policy")
                elif not isinstance(e.get("reason"), str) or not e["reason"].strip():
                    errors.append(f"`{name}`: suppressions[{i}] has no reason (a non-empty string): every suppression "
                                  "needs one")
                elif not isinstance(e.get("subject", "*"), str):
                    errors.append(f"`{name}`: suppressions[{i}].subject is {_json_type(e['subject'])}; expected a glob")
        if not ok:
            errors.append(f"`{name}`: {key} is {_json_type(value)}; expected {_expected(key, schema)}")
    return errors


def _expected(key: str, schema: Mapping[str, Any]) -> str:
    if key == "default_deny_namespaces":
        return "a list of namespace globs (non-empty strings)"
    if key == "suppressions":
        return "a list of objects with a non-empty reason and an optional subject (a glob), nothing else"
    if schema["type"] == "boolean":
        return "true or false"
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum")
    what = "a whole number" if schema["type"] == "integer" else "a number"
    if lo is not None and hi is not None:
        return f"{what} from {lo:g} to {hi:g}" + (" (above it)" if "exclusiveMinimum" in schema else "")
    return f"{what} of at least {lo:g}" if lo is not None else what


def lint_config(props: Mapping[str, Any] | None, code: str | None, context: StackContext) -> LintConfig:
    """A policy's configuration properties -> the engine's settings."""
    props = props or {}
    cfg = LintConfig()
    if props.get("kv_reserve") is not None:
        cfg.kv_reserve = float(props["kv_reserve"])
    if props.get("usable_fraction") is not None:
        cfg.usable_fraction = float(props["usable_fraction"])
    if props.get("p95_context_tokens") is not None:
        cfg.p95_context_tokens = int(props["p95_context_tokens"])
    if props.get("unknown_is_failure") is not None:
        cfg.unknown_is_failure = bool(props["unknown_is_failure"])
        cfg.unknown_configured = True
    namespaces = props.get("default_deny_namespaces")
    if isinstance(namespaces, list | tuple):
        cfg.default_deny_namespaces = tuple(str(n) for n in namespaces if isinstance(n, str) and n)
    production = props.get("production")
    cfg.production = bool(production) if production is not None else context.production
    cfg.production_from = ("the policy's config sets `production`" if production is not None
                           else f"the stack's `{context.key}` config sets `production`" if context.key
                           else "the stack's environment config sets `production`")
    for entry in props.get("suppressions") or ():
        if isinstance(entry, Mapping) and code and str(entry.get("reason") or "").strip():
            cfg.suppressions.append(SuppressionEntry(code, str(entry["reason"]), str(entry.get("subject") or "*")))
    return cfg


#: The settings of a policy given no configuration, by the stack's production setting and the key that gave it (SW404
#: names it): what every policy of every request of a preview without ``--policy-pack-config`` reads (23,000 times for
#: 1,000 resources).
#: The rules and the runner only read a :class:`LintConfig`.
_UNCONFIGURED: dict[tuple[bool | None, str], LintConfig] = {}


def _policy_config(props: Mapping[str, Any] | None, code: str | None, context: StackContext) -> LintConfig:
    """:func:`lint_config`, made once per production setting for a policy without configuration."""
    if props:
        return lint_config(props, code, context)
    cfg = _UNCONFIGURED.get((context.production, context.key))
    if cfg is None:
        cfg = _UNCONFIGURED[context.production, context.key] = lint_config(None, code, context)
    return cfg


# ---------------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """One violation for one policy: the message (starts with the code) and the resource's URN."""

    policy: str
    message: str
    urn: str | None = None


@dataclass
class Analysis:
    """One request's inventory, and the findings diverted to the notes and internal-error policies."""

    inventory: Inventory
    scope: Scope
    where: str  # "Deployment serving/llama (urn:…)" or "the stack"
    notes: list[Report] = field(default_factory=list)
    internal: list[Report] = field(default_factory=list)

    @property
    def notes_policy(self) -> str:
        return RESOURCE_NOTES if self.scope == "resource" else STACK_NOTES

    @property
    def errors_policy(self) -> str:
        return RESOURCE_ERRORS if self.scope == "resource" else STACK_ERRORS

    def check(self, rule: Rule, props: Mapping[str, Any] | None, context: StackContext) -> list[Report]:
        """:meth:`run` with the policy's configuration; never raises: a crash (in reading the
        configuration, the rule or the runner) becomes an internal-error report."""
        try:
            return self.run(rule, _policy_config(props, rule.meta.code, context))
        except Exception as exc:  # noqa: BLE001 - an RPC must never fail because of what it was sent
            crash = f"{rule.meta.code}: {internal_error(rule.meta, exc)}"
            self.internal.append(Report(self.errors_policy, f"{crash} (while checking {self.where})"))
            return []

    def idle(self, reads: tuple[str, ...], context: StackContext) -> bool:
        """Whether :meth:`check` of a registry rule whose ``reads`` (:func:`rule_reads`) are these, with no
        configuration, would return nothing and change nothing: its collections of the inventory are all empty
        and the configuration of a policy without one has been made for ``context`` (making it may fail, which
        :meth:`check` reports). The pack's ``Analyze`` loop skips such a policy without calling it."""
        if (context.production, context.key) not in _UNCONFIGURED:
            return False
        inv = self.inventory
        for name in reads:
            if getattr(inv, name):
                return False
        return True

    def run(self, rule: Rule, config: LintConfig) -> list[Report]:
        """Run one rule; return its policy's violations and divert the rest (see the module doc).

        A registry rule whose collections of the inventory (:data:`~shardwise.rules.checks.index.RULES`'s
        ``reads``) are all empty yields nothing, as ``lint`` relies on: it is not run (most resources of a
        stack give a one-resource inventory with none of them, a Namespace or an IAM role)."""
        reads = _reads(type(rule))
        if reads is not None:
            inv = self.inventory
            for name in reads:
                if getattr(inv, name):
                    break
            else:
                return []
        out: list[Report] = []
        for f in run_rule(rule, self.inventory, config):
            urn = f.location.urn
            if _crashed(f):
                self.internal.append(Report(self.errors_policy, f"{f.coded_message} (while checking {self.where})",
                                            urn))
            elif f.suppressed:
                self.notes.append(Report(self.notes_policy, f"{f.code} suppressed: {f.suppression_reason} "
                                                            f"(finding: {f.coded_message})", urn))
            elif f.level != config.enforcement.get(f.code, rule.meta.highest_enforcement):
                self.notes.append(Report(self.notes_policy, f.coded_message, urn))
            else:
                out.append(Report(rule.meta.name, f.coded_message, urn))
        return out


def reports_nothing(type_: str, props: Mapping[str, Any], context: StackContext) -> bool:
    """Whether the one-resource analysis of a resource of type ``type_`` with these properties (as the SDK reads them)
    is sure to give nothing to report to a registry rule's policy without configuration (:meth:`Analysis.idle` of each
    one), to the notes policy and to the internal-error policy: the inventory reader puts nothing of a resource of
    that type in a collection (:func:`~.adapters.pulumi.read_alone`: an IAM role, a VPC, a Helm release), its
    properties clean without error (what the reader would report) and the configuration of a policy without one has
    been made for ``context``. The pack's ``Analyze`` then answers at once, without the inventory (packspeed21)."""
    from ..adapters.pulumi import HELM_RELEASE, clean, helm_release_mention, read_alone

    if (context.production, context.key) not in _UNCONFIGURED or read_alone(type_):
        return False
    try:
        cleaned = clean(props)
    except Exception:  # noqa: BLE001 - the analysis reports it
        return False
    # a Helm release of a vLLM chart is SW005's record (review34); the others (KEDA, the LWS controller) are counted
    return isinstance(cleaned, Mapping) and (type_ != HELM_RELEASE or helm_release_mention(cleaned) is None)


_READS: dict[type, tuple[str, ...] | None] = {}


def rule_reads(rule: Rule) -> tuple[str, ...] | None:
    """The inventory collections ``rule`` reads (:data:`~shardwise.rules.checks.index.RULES`), where it is a
    registry rule :meth:`Analysis.run` skips when they are all empty; ``None`` for a rule that always runs."""
    return _reads(type(rule))


def _reads(cls: type) -> tuple[str, ...] | None:
    """The ``reads`` of the registry's rule class ``cls`` (:mod:`~shardwise.rules.checks.index`); ``None`` for any
    other class (a subclass or a rule the registry does not make), which always runs."""
    try:
        return _READS[cls]
    except KeyError:
        pass
    from ..checks.index import RULES

    package = __package__.rsplit(".", 1)[0] + ".checks."
    _READS[cls] = next((reads for _, module, name, reads in RULES
                        if cls.__name__ == name and cls.__module__ == package + module), None)
    return _READS[cls]


def _crashed(f: Finding) -> bool:
    return f.internal


def _analysis(resources: list[Any], context: StackContext, scope: Scope, where: str,
              cleaned: Callable[[Any], Any] | None = None,
              read: Callable[[Any, Any, Any], Any] | None = None) -> Analysis:
    """The inventory of ``resources`` (:class:`~.adapters.pulumi.PulumiResource`; ``cleaned``: a memo of their
    cleaned properties, :meth:`AnalyzedInputs.cleaned`; ``read``: of what the Kubernetes reader made of them,
    :meth:`AnalyzedInputs.kubernetes` / :meth:`AnalyzedInputs.kubernetes_again`); never raises: a resource that
    cannot be read, or a crash while reading them, becomes an internal-error report."""
    from ..adapters.pulumi import inventory_from_resources

    policy = RESOURCE_ERRORS if scope == "resource" else STACK_ERRORS
    errors: list[tuple[Any, str]] = []
    try:
        inv = inventory_from_resources(resources, errors=errors, resolve=scope == "stack", clean_of=cleaned,
                                       kubernetes_of=read)
    except Exception as exc:  # noqa: BLE001 - an RPC must never fail because of what it was sent
        analysis = Analysis(Inventory(), scope, where)
        analysis.internal.append(Report(policy, f"shardwise: internal error while reading {where}: "
                                                f"{type(exc).__name__}: {exc}; no rule checked it"))
        return analysis
    analysis = Analysis(inv, scope, where)
    for bad, msg in errors:
        analysis.internal.append(Report(policy, f"shardwise: cannot read {bad.type} `{bad.name}`: {msg}; "
                                                "no rule checked it", bad.urn))
    return analysis


def resource_analysis(res: Any, context: StackContext, cleaned: Callable[[Any], Any] | None = None,
                      read: Callable[[Any, Any, Any], Any] | None = None) -> Analysis:
    """The one-resource inventory of ``res`` (a :class:`~.adapters.pulumi.PulumiResource`)."""
    return _analysis([res], context, "resource", f"{res.type} {res.name}", cleaned, read)


def stack_analysis(resources: Iterable[Any], context: StackContext,
                   cleaned: Callable[[Any], Any] | None = None,
                   read: Callable[[Any, Any, Any], Any] | None = None) -> Analysis:
    analysis = _analysis(list(resources), context, "stack", "the stack", cleaned, read)
    if context.error:
        analysis.notes.append(Report(STACK_NOTES, f"shardwise: the stack config could not be read ({context.error})"))
    return analysis


class AnalyzedInputs:
    """The inputs each resource was analyzed with (``Analyze``), by URN, for ``AnalyzeStack``.

    The engine sends ``AnalyzeStack`` each resource's outputs. At preview those are the inputs plus
    every attribute the provider computes, unknown, including optional ones the program left unset
    (a security group's ``ingress`` when its rules are separate resources). The same process saw the
    resource's inputs in ``Analyze`` earlier in the preview; with them, the stack policies read the
    properties as :func:`~.adapters.pulumi.merge_state` does for a ``pulumi preview --json`` file. A
    resource not analyzed before (or a process that got only ``AnalyzeStack``) keeps its outputs, in
    which an unknown stays unknown.
    """

    def __init__(self) -> None:
        self._by_urn: dict[str, Mapping[str, Any]] = {}
        #: URN -> the engine's message of the properties remembered (``key``), them, and what ``clean`` made of them
        self._sent: dict[str, tuple[bytes, Mapping[str, Any], list[Any]]] = {}
        #: URN -> the manifest made with the cleaned properties of :attr:`_sent` for the Kubernetes reader (given once)
        self._manifests: dict[str, dict[str, Any]] = {}
        #: URN -> what the Kubernetes reader made of the cleaned properties of :attr:`_sent` in ``Analyze``
        #: (:meth:`kubernetes`): ``(type, name, (file, line), api, the cleaned properties, the inventory)``
        self._read: dict[str, tuple[str, str, Any, Any, Any, Inventory]] = {}

    def remember(self, urn: str, props: Mapping[str, Any], key: bytes | None = None, cleaned: Any = None,
                 manifest: dict[str, Any] | None = None) -> None:
        """``props``, the inputs ``Analyze`` read for ``urn``; ``key``, where given, the message they were read
        from as sent (``Struct.SerializeToString()``), whose reading gives a dict equal to ``props`` (:meth:`sent`).
        With ``key``, ``cleaned`` (where given) is ``clean(props)`` made by the caller, and ``manifest`` (where
        given) what :func:`~.adapters.pulumi.k8s.prepare_manifest` makes of ``cleaned`` holding no unknown: a new
        copy, which the Kubernetes reader takes (:meth:`kubernetes`) in place of its own."""
        if isinstance(props, Mapping):
            self._by_urn[urn] = props
            self._read.pop(urn, None)
            self._manifests.pop(urn, None)
            if key is not None:
                self._sent[urn] = (key, props, [] if cleaned is None else [cleaned])
                if cleaned is not None and manifest is not None:
                    self._manifests[urn] = manifest
            else:
                self._sent.pop(urn, None)

    def has_sent(self, urn: str) -> bool:
        """Whether :meth:`sent` may give the inputs of ``urn`` (they were remembered with their message)."""
        return urn in self._sent

    def sent(self, urn: str, key: bytes) -> Mapping[str, Any] | None:
        """The inputs remembered for ``urn`` when ``key`` is the same as theirs, else ``None``: the message's
        deterministic serialization (``SerializeToString(deterministic=True)``, every map's entries sorted by
        key), so equal keys are equal content and reading the message again gives an equal dict.

        At preview ``AnalyzeStack`` gets a resource's outputs; a Kubernetes object's are its inputs unless the
        provider's server-side dry run adds fields (973 of the 1,122 resources of a real preview). The engine
        (Go) marshals each map of each request in an order of its own (850 of those 973 came in another order
        than their ``Analyze``), so the dict given may list its keys in another order than a reading of the
        stack's message would. Either order is one the engine happened to send (a reading of the stack's
        message has no better one); a replay of that preview answers byte for byte as before
        (``replay_pack.py``), and so does a test whose stack sends every map in reverse order."""
        entry = self._sent.get(urn)
        return entry[1] if entry is not None and entry[0] == key else None

    def merged(self, urn: str, outputs: Any) -> Any:
        inputs = self._by_urn.get(urn)
        if inputs is None or not isinstance(outputs, Mapping):
            return outputs
        if outputs is inputs:  # what :meth:`sent` gives: merge_state(x, x) is a copy of x, keys in x's order
            return inputs
        from ..adapters.pulumi import merge_state

        return merge_state(inputs, outputs)

    def cleaned(self, res: Any) -> Any:
        """``clean(res.props)``, made once for the remembered inputs of a Kubernetes resource (or given to
        :meth:`remember` with them) and kept for the stack's reading of the same dict (:meth:`sent`). Only
        Kubernetes objects: their reader
        (:func:`~.adapters.pulumi.k8s.kubernetes`) copies every container of it into a new manifest and only
        reads the cleaned properties, so no object of either inventory holds a part of it (the objects the reader
        made are given to the stack by :meth:`kubernetes_again`)."""
        from ..adapters.pulumi import clean, kubernetes_api

        entry = self._sent.get(res.urn)
        if entry is None or entry[1] is not res.props or kubernetes_api(res.type) is None:
            return clean(res.props)
        made = entry[2]
        if not made:
            made.append(clean(res.props))
        return made[0]


    def kubernetes(self, res: Any, props: Mapping[str, Any], api: tuple[str, str]) -> Inventory:
        """What the Kubernetes reader (:func:`~.adapters.pulumi.kubernetes`) makes of ``props`` in ``Analyze``,
        kept for the stack's reading (:meth:`kubernetes_again`) where they are the cleaned properties of the inputs
        remembered with their message (:meth:`cleaned`)."""
        from ..adapters.pulumi import kubernetes

        entry = self._sent.get(res.urn)
        ours = entry is not None and entry[1] is res.props and bool(entry[2]) and entry[2][0] is props
        inv = kubernetes(res, props, api, self._manifests.pop(res.urn, None) if ours else None)
        if ours:
            self._read[res.urn] = (res.type, res.name, (res.file, res.line), api, props, inv)
        return inv

    def kubernetes_again(self, res: Any, props: Mapping[str, Any], api: tuple[str, str]) -> Inventory:
        """:func:`~.adapters.pulumi.kubernetes` of ``props`` for the stack: the objects ``Analyze`` read of the same
        cleaned properties (:meth:`kubernetes`) of the same resource, given once, else read anew.

        The reader is a function of the cleaned properties, the API and the resource's name and location; its
        objects are the same. What the one-resource rules left on them is taken off: the capacity model's answers
        made once per group (:func:`~.capacity.group.forget`, made without the node pool the stack resolves) and the
        group on each other kind of node (``ServingGroup.pool_option_groups``); the rules change nothing else of
        them (the reads counted on a group are compared before and after a rule). The stack's ``resolve_pools``
        then sets their pools: they are given once, and a second reading of the stack reads them anew."""
        from ..adapters.pulumi import kubernetes

        kept = self._read.pop(res.urn, None)
        if kept is None or kept[4] is not props or kept[3] != api or kept[0] != res.type or kept[1] != res.name \
                or kept[2] != (res.file, res.line):  # the location: its URN is the key
            return kubernetes(res, props, api)
        inv = kept[5]
        if inv.groups:
            from ..capacity.group import forget

            for g in inv.groups:
                forget(g)
                g.pool_option_groups = []
        return inv


class RequestCache:
    """Builds an :class:`Analysis` once per request.

    The servicer runs the policies of one request in list order on one thread, so a policy whose
    position is not after the cached one's (or a different key) starts a new request.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self, key: Any, position: int, build: Callable[[], Analysis]) -> Analysis:
        state = getattr(self._local, "state", None)
        if state is None or state[0] != key or state[1] >= position:
            state = (key, position, build())
        else:
            state = (key, position, state[2])
        self._local.state = state
        return state[2]
