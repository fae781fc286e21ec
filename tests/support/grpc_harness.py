"""Drive the policy pack the way the Pulumi engine drives an analyzer plugin.

:class:`PackProcess` starts the pack as its own process exactly as the Python language host does
(``python -m pulumi.policy <engine-address> rules`` from the repository root, with
``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN`` and ``PULUMI_CONFIG`` set), serves a fake
``Engine`` gRPC service at the engine address (recording ``Log`` calls), reads the pack's port from
the first line of its stdout and talks to it with the analyzer stubs of ``pulumi.runtime.proto``.

:meth:`PackProcess.run` calls the analyzer in the engine's order: ``Handshake`` (tolerating
UNIMPLEMENTED, as the engine does), ``ConfigureStack``, ``GetAnalyzerInfo``, ``Configure`` (only
when policy config is given: every policy's enforcement level, with the given overrides, as the
engine sends it), ``Analyze`` once per resource, then ``AnalyzeStack`` with all of them.

What it sends is what the engine sends (``pkg/resource/deploy/step_generator.go`` and
``sdk/go/common/resource/plugin/analyzer_plugin.go`` in pulumi/pulumi, read for this):

- ``Analyze`` gets a resource's (checked) inputs, ``AnalyzeStack`` every registered resource's
  *outputs*, including the root ``pulumi:pulumi:Stack`` and the default providers the engine
  registers itself (:func:`engine_extras`);
- properties are marshalled with ``KeepUnknowns``, ``KeepSecrets`` and ``SkipInternalKeys``: an
  unknown is the typed sentinel string of its kind (``04da6b54-…`` for the strings the Python SDK
  sends), a secret stays ``{sig: secret, value: …}``, keys starting with ``__`` are dropped at every
  level, resource references become their id (or URN), output values collapse to their value (or
  the unknown sentinel), numbers are floats;
- property dependencies with no URNs are not sent;
- at preview, a created resource's outputs are its inputs plus, unknown, every attribute its
  provider computes (:func:`preview_outputs`; Kubernetes objects' outputs are their inputs).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, engine_pb2_grpc, plugin_pb2

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
LEVELS = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
          analyzer_pb2.DISABLED: "disabled", analyzer_pb2.REMEDIATE: "remediate"}
LEVEL_VALUES = {v: k for k, v in LEVELS.items()}
_CODE = re.compile(r"^(SW\d{3})\b")


@dataclass(frozen=True)
class Diagnostic:
    policy: str
    level: str
    code: str | None  # the code the violation's own message starts with
    urn: str
    message: str  # the violation message (without the policy description the SDK prepends)
    description: str


@dataclass
class Resource:
    """One resource as the engine sends it to an analyzer."""

    type: str
    name: str
    urn: str
    props: dict[str, Any]  # its inputs; tests edit them in place to break a resource
    parent: str = ""
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, Iterable[str]] | None = None
    outputs: dict[str, Any] | None = None  # what AnalyzeStack gets; None: the preview's (preview_outputs)


UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

_RULE_COMPUTED = ("id", "arn", "securityGroupRuleId", "tagsAll")
#: Attributes the AWS provider computes, per resource type (from the Terraform AWS provider's schemas):
#: those a program cannot set (ids, ARNs, owners, merged tags, versions) and the optional ones it fills
#: in when the program leaves them unset. At preview, a resource being created reports them unknown.
PREVIEW_COMPUTED: dict[str, tuple[str, ...]] = {
    "aws:ec2/securityGroup:SecurityGroup": ("id", "arn", "ownerId", "tagsAll", "ingress", "egress", "vpcId"),
    "aws:ec2/securityGroupRule:SecurityGroupRule": ("id", "securityGroupRuleId", "sourceSecurityGroupId"),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _RULE_COMPUTED,
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": _RULE_COMPUTED,
    "aws:ec2/launchTemplate:LaunchTemplate": ("id", "arn", "latestVersion", "defaultVersion", "tagsAll",
                                              "metadataOptions"),
    "aws:eks/nodeGroup:NodeGroup": ("id", "arn", "status", "resources", "tagsAll", "releaseVersion", "version",
                                    "amiType", "diskSize", "capacityType", "instanceTypes"),
    "aws:ec2/subnet:Subnet": ("id", "arn", "ownerId", "tagsAll", "availabilityZone", "availabilityZoneId"),
    "aws:ec2/placementGroup:PlacementGroup": ("id", "arn", "placementGroupId", "tagsAll", "partitionCount",
                                              "spreadLevel"),
}
#: Optional attributes inside a block the program sets, computed when left unset.
PREVIEW_COMPUTED_NESTED: dict[str, dict[str, tuple[str, ...]]] = {
    "aws:ec2/launchTemplate:LaunchTemplate": {"metadataOptions": (
        "httpEndpoint", "httpProtocolIpv6", "httpPutResponseHopLimit", "httpTokens", "instanceMetadataTags")},
    "aws:eks/nodeGroup:NodeGroup": {"launchTemplate": ("id", "name")},
}


def preview_outputs(type_: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A created resource's outputs at preview: its inputs and, unknown, what its provider computes."""
    out = dict(inputs)
    for key in PREVIEW_COMPUTED.get(type_, ()):
        out.setdefault(key, UNKNOWN_STRING)
    for key, children in PREVIEW_COMPUTED_NESTED.get(type_, {}).items():
        block = out.get(key)
        if isinstance(block, dict):
            out[key] = {**{c: UNKNOWN_STRING for c in children}, **block}
    return out


def engine_extras(resources: Iterable[Resource], stack: str, project: str) -> list[Resource]:
    """The resources the engine registers itself: the root stack, and the default AWS provider when a
    resource uses AWS (the program registers its Kubernetes provider explicitly)."""
    root = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    out = [Resource("pulumi:pulumi:Stack", f"{project}-{stack}", root, {}, outputs={})]
    if any(r.type.startswith("aws:") for r in resources):
        props = {"region": "us-east-1", "skipCredentialsValidation": "false", "version": "7.51.1"}
        out.append(Resource("pulumi:providers:aws", "default_7_51_1",
                            f"urn:pulumi:{stack}::{project}::pulumi:providers:aws::default_7_51_1", props,
                            outputs=dict(props)))
    return out


def _marshal(value: Any) -> Any:
    """What ``MarshalProperties(..., SkipInternalKeys)`` leaves: no ``__`` keys at any level."""
    if isinstance(value, Mapping):
        return {k: _marshal(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list | tuple):
        return [_marshal(v) for v in value]
    return value


def struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(_marshal(dict(props)))
    return s


class FakeEngine(engine_pb2_grpc.EngineServicer):
    """The engine's side: records what the plugin logs."""

    def __init__(self) -> None:
        self.logs: list[tuple[int, str]] = []
        self.root = ""

    def Log(self, request, context):  # noqa: N802 - gRPC names
        self.logs.append((request.severity, request.message))
        return empty_pb2.Empty()

    def GetRootResource(self, request, context):  # noqa: N802
        from pulumi.runtime.proto import engine_pb2

        return engine_pb2.GetRootResourceResponse(urn=self.root)

    def SetRootResource(self, request, context):  # noqa: N802
        from pulumi.runtime.proto import engine_pb2

        self.root = request.urn
        return engine_pb2.SetRootResourceResponse()


def _diagnostics(resp: analyzer_pb2.AnalyzeResponse, default_urn: str) -> list[Diagnostic]:
    out = []
    for d in resp.diagnostics:
        # pulumi_policy writes "<policy description>\n<violation message>"
        message = d.message[len(d.description) + 1:] if d.message.startswith(d.description + "\n") else d.message
        m = _CODE.match(message)
        out.append(Diagnostic(d.policyName, LEVELS[d.enforcementLevel], m.group(1) if m else None,
                              d.urn or default_urn, message, d.description))
    return out


#: The pack's transports (``SHARDWISE_PACK_TRANSPORT``): its own (``rules/app/grpc_h2.py``) and grpcio's
TRANSPORTS = ("h2", "grpcio")


def served_by(port: int, timeout: float = 10) -> str:
    """Which transport listens on ``port``: ``"h2"`` where the server's first SETTINGS frame is the one
    :mod:`shardwise.rules.app.grpc_h2` sends (its stream window and stream limit), else ``"grpcio"``."""
    import socket

    import h2.config
    import h2.connection
    import h2.events
    from shardwise.rules.app import grpc_h2

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(conn.data_to_send())
        while True:
            data = sock.recv(65536)
            if not data:
                raise RuntimeError(f"port {port} closed the connection before its SETTINGS")
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    values = {int(k): v.new_value for k, v in event.changed_settings.items()}
                    ours = values.get(0x4) == grpc_h2.RECEIVE_WINDOW and values.get(0x3) == 100
                    return "h2" if ours else "grpcio"


class PackProcess:
    """The pack as a child process, plus the fake engine it was told about."""

    def __init__(self, *, stack: str = "dev", project: str = "shardwise", dry_run: bool = True,
                 config: Mapping[str, str] | None = None, argv: list[str] | None = None,
                 extra_env: Mapping[str, str] | None = None, start_timeout: float = 60,
                 config_in_env: bool = True, launcher: list[str] | None = None) -> None:
        """``config_in_env=False``: the config only in ``ConfigureStack``, as the engine sends it to a pack
        it starts as an executable path (no language host sets ``PULUMI_*`` then). ``launcher``: what runs
        in place of ``python -m pulumi.policy``, given the same two arguments (the engine and ``rules``)."""
        self.engine = FakeEngine()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        engine_pb2_grpc.add_EngineServicer_to_server(self.engine, self.server)
        engine_port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.engine_address = f"127.0.0.1:{engine_port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
        if config_in_env:
            env.update({"PULUMI_PROJECT": project, "PULUMI_STACK": stack,
                        "PULUMI_DRY_RUN": "true" if dry_run else "false"})
        if config is not None and config_in_env:
            import json

            env["PULUMI_CONFIG"] = json.dumps(dict(config))
        env.pop("PYTHONUNBUFFERED", None)  # the pack must print its port without it
        env.update(extra_env or {})
        cmd = argv or [*(launcher or [PYTHON, "-m", "pulumi.policy"]), self.engine_address, "rules"]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.port = self._read_port(start_timeout)
        self.transport = served_by(self.port)  # read before any other connection
        wanted = env.get("SHARDWISE_PACK_TRANSPORT")
        if wanted in TRANSPORTS and self.transport != wanted:
            self.close()
            raise RuntimeError(f"SHARDWISE_PACK_TRANSPORT={wanted} but the pack serves through {self.transport}")
        self.start_seconds = time.perf_counter() - self.started
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}", options=[
            ("grpc.max_receive_message_length", 400 * 1024 * 1024),
            ("grpc.max_send_message_length", 400 * 1024 * 1024),
        ])
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        self.stack, self.project, self.dry_run = stack, project, dry_run
        self.config = dict(config or {})

    def _read_port(self, timeout: float) -> int:
        box: list[bytes] = []
        stdout = self.proc.stdout
        assert stdout is not None  # Popen(stdout=PIPE)
        reader = threading.Thread(target=lambda: box.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not box or not box[0].strip():
            self.close()
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            raise RuntimeError(f"the pack printed no port within {timeout} s; stderr:\n{err}")
        return int(box[0].strip())

    # --- the analyzer protocol ---------------------------------------------------------------

    def handshake(self) -> None:
        try:
            self.stub.Handshake(analyzer_pb2.AnalyzerHandshakeRequest(
                engine_address=self.engine_address, root_directory=str(ROOT / "rules"),
                program_directory=str(ROOT / "rules")))
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise

    def configure_stack(self, tags: Mapping[str, str] | None = None) -> None:
        try:
            self.stub.ConfigureStack(analyzer_pb2.AnalyzerStackConfigureRequest(
                stack=self.stack, project=self.project, organization="organization", dry_run=self.dry_run,
                config=self.config, tags=dict(tags or {})))
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        return self.stub.GetAnalyzerInfo(empty_pb2.Empty())

    def plugin_info(self) -> plugin_pb2.PluginInfo:
        return self.stub.GetPluginInfo(empty_pb2.Empty())

    def configure(self, info: analyzer_pb2.AnalyzerInfo, overrides: Mapping[str, Mapping[str, Any]]) -> None:
        """Send every policy's config as the engine does: its level (default or overridden) and
        properties; ``overrides`` maps a policy name to ``{"enforcementLevel": ..., prop: value}``."""
        req = analyzer_pb2.ConfigureAnalyzerRequest()
        for p in info.policies:
            o = dict(overrides.get(p.name, {}))
            level = o.pop("enforcementLevel", None)
            cfg = analyzer_pb2.PolicyConfig(
                enforcementLevel=LEVEL_VALUES[level] if level else p.enforcementLevel)
            if o:
                cfg.properties.update(o)
            req.policyConfig[p.name].CopyFrom(cfg)
        self.stub.Configure(req)

    def analyze_request(self, r: Resource) -> analyzer_pb2.AnalyzeRequest:
        return analyzer_pb2.AnalyzeRequest(
            type=r.type, name=r.name, urn=r.urn, properties=struct(r.props),
            options=analyzer_pb2.AnalyzerResourceOptions(parent=r.parent))

    def analyze(self, r: Resource | analyzer_pb2.AnalyzeRequest) -> list[Diagnostic]:
        """``Analyze`` of one resource (or of a request made by :meth:`analyze_request`)."""
        req = r if isinstance(r, analyzer_pb2.AnalyzeRequest) else self.analyze_request(r)
        return _diagnostics(self.stub.Analyze(req), req.urn)

    def stack_request(self, resources: Iterable[Resource]) -> analyzer_pb2.AnalyzeStackRequest:
        """The ``AnalyzeStack`` request: each resource's outputs (at preview, :func:`preview_outputs`)."""
        req = analyzer_pb2.AnalyzeStackRequest()
        for r in resources:
            ar = req.resources.add()
            ar.type, ar.name, ar.urn, ar.parent = r.type, r.name, r.urn, r.parent
            outputs = r.outputs if r.outputs is not None else (
                preview_outputs(r.type, r.props) if self.dry_run else r.props)
            ar.properties.CopyFrom(struct(outputs))
            ar.options.CopyFrom(analyzer_pb2.AnalyzerResourceOptions(parent=r.parent))
            ar.dependencies.extend(r.dependencies)
            for k, urns in (r.property_dependencies or {}).items():
                if list(urns):  # the engine skips properties without dependencies
                    ar.propertyDependencies[k].urns.extend(urns)
        return req

    def analyze_stack(self, resources: Iterable[Resource] | analyzer_pb2.AnalyzeStackRequest) -> list[Diagnostic]:
        """``AnalyzeStack`` of the resources (or of a request made by :meth:`stack_request`)."""
        req = resources if isinstance(resources, analyzer_pb2.AnalyzeStackRequest) else self.stack_request(resources)
        return _diagnostics(self.stub.AnalyzeStack(req), "")

    def cpu_seconds(self) -> float:
        """The pack process's CPU time so far (user + system, Linux ``/proc``; 0.0 where there is none)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def run(self, resources: list[Resource], policy_config: Mapping[str, Mapping[str, Any]] | None = None
            ) -> list[Diagnostic]:
        """The engine's order, with the resources the engine registers itself
        (:func:`engine_extras`); returns every diagnostic, per-resource ones first."""
        self.handshake()
        self.configure_stack()
        info = self.info()
        if policy_config:
            self.configure(info, policy_config)
        everything = [*engine_extras(resources, self.stack, self.project), *resources]
        out: list[Diagnostic] = []
        for r in everything:
            out.extend(self.analyze(r))
        out.extend(self.analyze_stack(everything))
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        if hasattr(self, "channel"):
            self.channel.close()
        self.server.stop(0)

    def __enter__(self) -> PackProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
