"""Run a Pulumi program under Pulumi's mocks in this process, recording every registration.

The program runs the way the engine runs it: the stack's config is set as the engine passes it (every
value a string, objects as JSON), the program file is executed with ``runpy``, and every resource
registration is recorded. The mocks answer like the AWS provider would for the outputs programs read
(an IAM role's ARN, an ECR repository's URL, an EKS cluster's endpoint, certificate and security
group) and for the data sources the program reads (``aws.eks.getCluster``; ``aws.ec2.getRouteTables`` by
subnet and ``aws.ec2.getRouteTable`` for a VPC's main table, which the subnets in
:data:`MAIN_TABLE_SUBNETS` use; ``aws.ec2.getInstanceTypeOfferings`` from :data:`OFFERED_ZONES`;
``aws.ec2.getSubnet`` from :func:`subnet_zone`).
"""

from __future__ import annotations

import asyncio
import gc
import json
import pathlib
import runpy
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks
from pulumi.runtime.settings import ROOT as ROOT_RESOURCE
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await
from pulumi_mocks import CLUSTER_VPCS

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAIN = ROOT / "__main__.py"
ACCOUNT = "123456789012"
#: Subnets without an explicit route table association (they use their VPC's main table).
MAIN_TABLE_SUBNETS = {"private-b-id", "subnet-0d1e2f3a4b5c60002"}
#: The zones ``aws.ec2.getInstanceTypeOfferings`` answers for an instance type (a test may change them):
#: every type in us-east-1a to us-east-1d unless listed.
OFFERED_ZONES: dict[str, list[str]] = {}
DEFAULT_ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]


def subnet_zone(subnet_id: str) -> str:
    """The zone ``aws.ec2.getSubnet`` answers: the stacks' subnets end in 1, 2, … (us-east-1a, -1b, …), the
    composed program's are private-a-id, private-b-id."""
    last = subnet_id.removesuffix("-id")[-1]
    return "us-east-1" + ("abcdef"[int(last) - 1] if last.isdigit() else last)


@dataclass
class Registered:
    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool
    #: what the engine is told besides the inputs (set by :class:`RecordingMonitor`)
    urn: str = ""
    dependencies: list[str] = field(default_factory=list)  # URNs of depends_on
    custom_timeouts: dict[str, str] = field(default_factory=dict)  # create/update/delete that are set
    ignore_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False


@dataclass
class Run:
    resources: list[Registered] = field(default_factory=list)
    calls: list[tuple[str, dict]] = field(default_factory=list)
    call_providers: list[str] = field(default_factory=list)  # the provider reference of each call
    exports: dict[str, Any] = field(default_factory=dict)

    def of_type(self, type_: str) -> list[Registered]:
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str) -> Registered:
        found = [r for r in self.resources if r.type == type_ and r.name == name]
        assert len(found) == 1, f"{type_} {name}: {[(r.type, r.name) for r in self.resources]}"
        return found[0]

    def names(self, type_: str) -> list[str]:
        return sorted(r.name for r in self.of_type(type_))

    def depends_on(self, type_: str, name: str) -> list[str]:
        """The resource names (``type::name``) that a resource's depends_on names, sorted."""
        by_urn = {r.urn: f"{r.type}::{r.name}" for r in self.resources}
        return sorted(by_urn.get(u, u) for u in self.one(type_, name).dependencies)


def _computed(typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Outputs the AWS provider computes that programs read."""
    if typ == "aws:iam/role:Role":
        return {"arn": f"arn:aws:iam::{ACCOUNT}:role/{name}", "name": name}
    if typ == "aws:ecr/repository:Repository":
        return {"repositoryUrl": f"{ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/{name}"}
    if typ == "aws:eks/cluster:Cluster":
        cluster = inputs.get("name", name)
        return {"name": cluster, "endpoint": f"https://{cluster}.gr7.us-east-1.eks.amazonaws.com",
                "certificateAuthority": {"data": "LS0tLS1CRUdJTg=="},
                "vpcConfig": {**inputs.get("vpcConfig", {}), "clusterSecurityGroupId": "sg-0c1a55e0c1a55e0c1"},
                "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.us-east-1.amazonaws.com/id/{cluster}"}]}]}
    if typ == "aws:eks/nodeGroup:NodeGroup":  # auto-named from the resource name (without the random suffix)
        return {"name": name, "nodeGroupName": inputs.get("nodeGroupName", name)}
    if typ.startswith("aws:"):
        return {"name": name}  # what auto-naming computes, without its random suffix
    return {}


class RecordingMocks(pulumi.runtime.Mocks):
    """Records every registration; answers like the providers for the outputs programs read."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        self.run.resources.append(Registered(args.typ, args.name, dict(args.inputs), bool(args.custom)))
        state = dict(args.inputs)
        computed = _computed(args.typ, args.name, state)
        name = computed.pop("name", None)
        state.update(computed)
        if name is not None:
            state.setdefault("name", name)
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list[tuple[str, str]] | None]:
        self.run.calls.append((args.token, dict(args.args)))
        self.run.call_providers.append(args.provider)
        if args.token == "aws:eks/getCluster:getCluster":
            name = args.args["name"]
            return {
                "name": name,
                "endpoint": "https://0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com",
                "certificateAuthorities": [{"data": "LS0tLS1CRUdJTg=="}],
                "vpcConfig": {"clusterSecurityGroupId": "sg-0feedface0000000", "vpcId": CLUSTER_VPCS.get(name, "")},
            }, []
        if args.token == "aws:ec2/getRouteTable:getRouteTable":  # the VPC's main table
            assert args.args["filters"] == [{"name": "association.main", "values": ["true"]}], args.args
            return {"routeTableId": f"rtb-main-{args.args['vpcId']}"}, []
        if args.token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
            assert args.args["locationType"] == "availability-zone", args.args
            ((kind,),) = [f["values"] for f in args.args["filters"] if f["name"] == "instance-type"]
            zones = OFFERED_ZONES.get(kind, DEFAULT_ZONES)
            return {"locations": zones, "instanceTypes": [kind] * len(zones),
                    "locationTypes": ["availability-zone"] * len(zones)}, []
        if args.token == "aws:ec2/getSubnet:getSubnet":
            return {"id": args.args["id"], "availabilityZone": subnet_zone(args.args["id"])}, []
        if args.token == "aws:ec2/getRouteTables:getRouteTables":  # a subnet's explicitly associated table
            (subnet,) = args.args["filters"][0]["values"]
            return {"ids": [] if subnet in MAIN_TABLE_SUBNETS else [f"rtb-{subnet}"]}, []
        return {}, []


class RecordingMonitor(mocks.MockMonitor):
    """Adds what a registration tells the engine besides the inputs to the :class:`Registered` the mocks
    recorded: its URN, dependencies, custom timeouts, ignored changes and delete-before-replace."""

    def __init__(self, m: RecordingMocks) -> None:
        super().__init__(m)
        self.run = m.run

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC name
        resp = super().RegisterResource(request)
        # registrations run on several threads: find this one's record by its type and name
        mine = [r for r in self.run.resources if (r.type, r.name, r.urn) == (request.type, request.name, "")]
        if mine:
            r = mine[0]
            r.urn, r.dependencies = resp.urn, list(request.dependencies)
            timeouts = request.customTimeouts
            r.custom_timeouts = {k: getattr(timeouts, k) for k in ("create", "update", "delete")
                                 if getattr(timeouts, k)}
            r.ignore_changes = list(request.ignoreChanges)
            r.delete_before_replace = bool(request.deleteBeforeReplace)
        return resp


def engine_config(config: dict[str, Any]) -> dict[str, str]:
    """Config as the engine hands it to a program: each value a string, objects as JSON."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}


def execute(program: pathlib.Path = MAIN) -> None:
    """Run a Pulumi program file the way the Python language host does, and wait for its resources."""
    def main() -> None:
        runpy.run_path(str(program), run_name="__main__")

    try:
        _sync_await(run_pulumi_func(main))
    finally:
        _settle()


def _settle() -> None:
    """Finish what a failed program left pending, now rather than in a later test.

    A program that fails leaves tasks and coroutines behind; finalised later by the garbage collector in
    the middle of an unrelated ``ast.parse``, they trip CPython 3.11's "AST constructor recursion depth
    mismatch" SystemError. Cancel and await them, and collect, here."""
    loop = asyncio.get_event_loop()
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    gc.collect()


def start(run: Run, config: dict[str, Any], stack: str = "test", preview: bool = False) -> None:
    ROOT_RESOURCE.set(None)
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    m = RecordingMocks(run)
    pulumi.runtime.set_mocks(m, project="shardwise", stack=stack, preview=preview, monitor=RecordingMonitor(m))
    pulumi.runtime.set_all_config(engine_config(config))


def run_program(config: dict[str, Any], stack: str = "test", program: pathlib.Path = MAIN) -> Run:
    """Run ``program`` under mocks with ``config``; return what it registered and exported."""
    run = Run()
    start(run, config, stack)
    execute(program)
    root: Any = pulumi.runtime.get_root_resource()
    run.exports = _sync_await(pulumi.Output.from_input(root.outputs).future())  # type: ignore[arg-type]
    return run


def failing_program(config: dict[str, Any], program: pathlib.Path = MAIN, preview: bool = True,
                    error: type[BaseException] = pulumi.InputPropertyError) -> tuple[BaseException, Run]:
    """Run ``program`` expecting ``error``; return it and what was registered before it."""
    run = Run()
    start(run, config, "broken", preview=preview)
    try:
        execute(program)
    except error as e:
        return e, run
    raise AssertionError(f"{program.name} did not raise {error.__name__}")
