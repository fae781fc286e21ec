"""A stand-in for the AWS and Kubernetes provider plugins in the engine tests.

The real ``pulumi-resource-aws`` and ``pulumi-resource-kubernetes`` cannot be built or downloaded
here, so the engine tests put ``tests/engine_bin`` first on ``PATH``: its ``pulumi-resource-aws``
and ``pulumi-resource-kubernetes`` run this module, a provider written with Pulumi's Python
provider SDK (``pulumi.provider.experimental``). It talks to the real engine over the real provider
protocol and touches nothing outside the test:

* ``Check`` accepts the inputs as they are, and gives an AWS resource without a ``name`` the one the AWS
  provider's auto-naming would (the logical name and a suffix, kept from the old inputs on later runs), so
  the outputs that other resources read (a role's or a placement group's name) exist and stay the same;
  ``Diff`` leaves the comparison to the engine (old inputs against new), except for the types in
  :data:`FORCE_NEW`: there it plans as the AWS provider does, an update in place unless a property its schema
  marks ``ForceNew`` changes, which replaces the resource (the engine then deletes first where the resource
  asks for ``deleteBeforeReplace``).
* A launch template has a ``latestVersion`` (1, one more on each update), as the AWS provider computes it.
* ``Create`` during a preview answers the inputs plus computed outputs that are unknown, as a real
  provider does (``id`` and ``arn`` for AWS, whose bridged provider lists the id among the
  outputs, ``status`` for Kubernetes; the engine makes the resource's id unknown itself); outside
  a preview it answers the id ``<name>-id`` and the same outputs, known.
* ``Invoke`` answers ``aws:eks/getCluster:getCluster`` and ``aws:ec2/getRouteTable:getRouteTable``
  with a fixed cluster and route table, ``aws:ec2/getInstanceTypeOfferings`` with us-east-1a to -1d for
  every type and ``aws:ec2/getSubnet`` with a zone from the id's last digit.
* Every ``Create``, ``Update`` and ``Delete`` is appended, one JSON object a line, to the file named
  by ``SHARDWISE_STANDIN_LOG``: ``{"call", "package", "type", "name", "preview"}``; so a test can
  prove that nothing was created when the pack blocked the update.

Usage (what the shims run): ``python tests/support/standin_provider.py PACKAGE ENGINE_ADDRESS``; the plugin
reports the version of the installed ``pulumi_PACKAGE`` SDK, the one the program asks for.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from pulumi.provider.experimental import provider as p
from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.server import main as serve
from pulumi.runtime.rpc import UNKNOWN

# The SDK's PropertyValue cannot marshal Computed (pulumi 3.272), so unknowns go back as the wire
# format's unknown sentinel string, which is what marshalling an unknown produces.
UNKNOWN_VALUE = PropertyValue(UNKNOWN)

COMPUTED = {"aws": ("id", "arn"), "kubernetes": ("status",)}
#: outputs of one resource type that the real provider computes, with their value after a create
COMPUTED_BY_TYPE = {"aws:ec2/launchTemplate:LaunchTemplate": {"latestVersion": 1.0}}

#: Properties the AWS provider cannot change in place, by type: ``ForceNew`` in the schema of the Terraform
#: provider it bridges (internal/service/eks/node_group.go, internal/service/ec2/ec2_launch_template.go); a
#: change of one replaces the resource. Every other change of these types is an update: a launch template gets
#: a new version (``CreateLaunchTemplateVersion``), a node group ``UpdateNodegroupVersion`` (a launch-template
#: version, an AMI release) or ``UpdateNodegroupConfig`` (labels, taints, sizes, ``updateConfig``). A dotted
#: name is a field of a one-element block.
FORCE_NEW: dict[str, tuple[str, ...]] = {
    "aws:eks/nodeGroup:NodeGroup": (
        "amiType", "capacityType", "clusterName", "diskSize", "instanceTypes", "nodeGroupName",
        "nodeGroupNamePrefix", "nodeRoleArn", "remoteAccess", "subnetIds", "launchTemplate.id",
        "launchTemplate.name"),
    "aws:ec2/launchTemplate:LaunchTemplate": ("name", "namePrefix"),
}

CLUSTER = {
    "arn": "arn:aws:eks:us-east-1:123456789012:cluster/{name}",
    "endpoint": "https://{name}.example.eks.amazonaws.com",
    "certificateAuthorities": [{"data": "Y2VydA=="}],
    "vpcConfig": {"clusterSecurityGroupId": "sg-0cafe0cafe0cafe00", "vpcId": "vpc-0123", "subnetIds": [],
                  "securityGroupIds": []},
    "version": "1.31",
    "status": "ACTIVE",
}


def _existing_cluster_vpcs() -> dict[str, str]:
    """The VPC of each existing cluster a stack of this repository names (``cluster_name`` and
    ``network.vpc_id``): an existing cluster is looked up in the VPC its stack says it is in."""
    import glob

    import yaml

    stacks = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "stacks")
    out: dict[str, str] = {}
    for path in glob.glob(os.path.join(stacks, "Pulumi.*.yaml")):
        with open(path, encoding="utf-8") as fh:
            env = ((yaml.safe_load(fh) or {}).get("config") or {}).get("shardwise:environment") or {}
        vpc = (env.get("network") or {}).get("vpc_id")
        if env.get("cluster_name") and vpc:
            out[str(env["cluster_name"])] = str(vpc)
    return out


def _arn(urn: str, name: str) -> str:
    """An ARN in AWS's shape for the resource type of ``urn`` (``aws:iam/role:Role`` ->
    ``arn:aws:iam::123456789012:role/<name>``), so that components validating ARNs accept it."""
    token = urn.split("::")[2].split("$")[-1] if urn.count("::") >= 3 else ""
    module = token.split(":")[1] if token.count(":") == 2 else "x/x"
    service, _, kind = module.partition("/")
    region = "" if service == "iam" else "us-east-1"
    return f"arn:aws:{service}:{region}:123456789012:{kind.lower() or 'resource'}/{name}"


def to_value(x: Any) -> PropertyValue:
    """A plain JSON-like value -> the SDK's PropertyValue (numbers are floats on the wire)."""
    if isinstance(x, PropertyValue):
        return x
    if isinstance(x, Mapping):
        return PropertyValue({k: to_value(v) for k, v in x.items()})
    if isinstance(x, list | tuple):
        return PropertyValue([to_value(v) for v in x])
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return PropertyValue(x)
    if isinstance(x, int | float):
        return PropertyValue(float(x))
    raise TypeError(f"cannot send {type(x).__name__}")


def wire(v: PropertyValue) -> PropertyValue:
    """The value with every unknown replaced by the sentinel (secrecy and dependencies kept)."""
    value = v.value
    if isinstance(value, Computed):
        out = UNKNOWN_VALUE
    elif isinstance(value, Mapping):
        out = PropertyValue({k: wire(x) for k, x in value.items()})
    elif isinstance(value, tuple):
        out = PropertyValue([wire(x) for x in value])
    else:
        return v
    return PropertyValue(out.value, is_secret=v.is_secret, dependencies=v.dependencies)


def plain(v: PropertyValue) -> Any:
    """PropertyValue -> a plain value (unknowns become None)."""
    value = v.value
    if isinstance(value, Computed):
        return None
    if isinstance(value, Mapping):
        return {k: plain(x) for k, x in value.items()}
    if isinstance(value, tuple):
        return [plain(x) for x in value]
    return value


#: AWS's id prefixes for the resources whose ids other objects validate (Karpenter's EC2NodeClass
#: schema wants ``sg-[0-9a-z]+`` and ``subnet-[0-9a-z]+``): the stand-in makes ids of that shape
ID_PREFIXES = {"aws:ec2/securityGroup:SecurityGroup": "sg", "aws:ec2/subnet:Subnet": "subnet",
               "aws:ec2/vpc:Vpc": "vpc", "aws:ec2/launchTemplate:LaunchTemplate": "lt",
               "aws:ec2/routeTable:RouteTable": "rtb", "aws:ec2/internetGateway:InternetGateway": "igw",
               "aws:ec2/natGateway:NatGateway": "nat", "aws:ec2/eip:Eip": "eipalloc",
               "aws:ec2/vpcEndpoint:VpcEndpoint": "vpce"}


def _type(urn: str) -> str:
    """The resource type token of ``urn`` (``aws:ec2/launchTemplate:LaunchTemplate``)."""
    return urn.split("::")[-2].split("$")[-1]


def resource_id(urn: str, name: str) -> str:
    """An id of AWS's shape for the types in :data:`ID_PREFIXES` (17 hex digits from the name, stable
    across runs), else ``<name>-id``."""
    prefix = ID_PREFIXES.get(urn.split("::")[-2].split("$")[-1])
    if prefix is None:
        return f"{name}-id"
    return f"{prefix}-{hashlib.sha256(name.encode()).hexdigest()[:17]}"


def _unknown(v: PropertyValue) -> bool:
    value = v.value
    if isinstance(value, Computed) or value == UNKNOWN:
        return True
    if isinstance(value, Mapping):
        return any(_unknown(x) for x in value.values())
    if isinstance(value, tuple):
        return any(_unknown(x) for x in value)
    return False


def _differs(old: PropertyValue | None, new: PropertyValue | None) -> bool:
    """Whether a property changes: a value not known yet (an output of a resource being updated) counts as a
    change, as it does for the AWS provider at preview."""
    if old is None or new is None:
        return (old is None) != (new is None)
    return _unknown(new) or plain(old) != plain(new)


def _field(v: PropertyValue | None, dotted: str) -> PropertyValue | None:
    """``launchTemplate.id`` of a property value: the field of the block (an object, or a list of one)."""
    if v is None:
        return None
    value = v.value
    if isinstance(value, tuple):
        value = value[0].value if value else None
    if not isinstance(value, Mapping):
        return None
    return value.get(dotted.split(".", 1)[1])


class StandIn(p.Provider):
    def __init__(self, package: str) -> None:
        self.package = package
        self.log = os.environ.get("SHARDWISE_STANDIN_LOG", "")

    def _record(self, call: str, urn: str, preview: bool) -> None:
        if not self.log:
            return
        line = json.dumps({"call": call, "package": self.package, "type": urn.split("::")[-2].split("$")[-1],
                           "name": urn.split("::")[-1], "preview": preview})
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    async def configure(self, request: p.ConfigureRequest) -> p.ConfigureResponse:
        return p.ConfigureResponse(accept_secrets=True, supports_preview=True, accept_resources=True,
                                   accept_outputs=True)

    async def check(self, request: p.CheckRequest) -> p.CheckResponse:
        news = dict(request.new_inputs)
        if self.package == "aws" and "name" not in news and "namePrefix" not in news:
            old = request.old_inputs.get("name")
            suffix = hashlib.sha256(request.urn.encode()).hexdigest()[:7]
            news["name"] = old if old is not None else PropertyValue(f"{request.name}-{suffix}")
        return p.CheckResponse(inputs=news)

    async def create(self, request: p.CreateRequest) -> p.CreateResponse:
        self._record("create", request.urn, request.preview)
        out = {k: wire(v) for k, v in request.properties.items()}
        known = {"id": resource_id(request.urn, request.name), "arn": _arn(request.urn, request.name)}
        for key in COMPUTED.get(self.package, ()):
            if request.preview:
                out[key] = UNKNOWN_VALUE
            else:
                out[key] = PropertyValue(known.get(key, f"{self.package}:{request.name}:{key}"))
        for key, value in COMPUTED_BY_TYPE.get(_type(request.urn), {}).items():
            out[key] = UNKNOWN_VALUE if request.preview else PropertyValue(value)
        return p.CreateResponse(resource_id=None if request.preview else known["id"], properties=out)

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        force_new = FORCE_NEW.get(_type(request.urn))
        if self.package != "aws" or force_new is None:
            return p.DiffResponse()  # the engine compares old inputs with new
        computed = {*COMPUTED["aws"], *COMPUTED_BY_TYPE.get(_type(request.urn), {})}
        olds = {k: v for k, v in request.old_state.items() if k not in computed}
        news = dict(request.new_inputs)
        changed = sorted(k for k in {*olds, *news} if k not in news or k not in olds
                         or _differs(olds[k], news[k]))
        replaces = sorted({k for k in changed for f in force_new if f == k or (
            f.startswith(k + ".") and _differs(_field(olds.get(k), f), _field(news.get(k), f)))})
        detailed = {k: p.PropertyDiff(p.PropertyDiffKind.UPDATE_REPLACE if k in replaces
                                      else p.PropertyDiffKind.UPDATE, True) for k in changed}
        return p.DiffResponse(changes=bool(changed), replaces=replaces, diffs=changed, detailed_diff=detailed)

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        self._record("update", request.urn, request.preview)
        out = {k: wire(v) for k, v in request.news.items()}
        # the computed outputs stay (a launch template's version goes up by one)
        for key in (*COMPUTED.get(self.package, ()), *COMPUTED_BY_TYPE.get(_type(request.urn), {})):
            if key in request.olds and key not in out:
                out[key] = request.olds[key]
        if "latestVersion" in COMPUTED_BY_TYPE.get(_type(request.urn), {}):
            old = request.olds.get("latestVersion")
            version = old.value if old is not None and isinstance(old.value, float) else 1.0
            out["latestVersion"] = UNKNOWN_VALUE if request.preview else PropertyValue(version + 1)
        return p.UpdateResponse(properties=out)

    async def delete(self, request: p.DeleteRequest) -> None:
        self._record("delete", request.urn, False)

    async def invoke(self, request: p.InvokeRequest) -> p.InvokeResponse:
        args = {k: plain(v) for k, v in request.args.items()}
        if request.tok == "aws:eks/getCluster:getCluster":
            name = str(args.get("name") or "cluster")
            result = json.loads(json.dumps(CLUSTER).replace("{name}", name))
            result.update(name=name, id=name)
            result["vpcConfig"]["vpcId"] = _existing_cluster_vpcs().get(name, result["vpcConfig"]["vpcId"])
            return p.InvokeResponse(return_value={k: to_value(v) for k, v in result.items()})
        if request.tok == "aws:ec2/getRouteTable:getRouteTable":
            subnet = str(args.get("subnetId") or "")
            return p.InvokeResponse(return_value={"routeTableId": to_value(f"rtb-{subnet or 'main'}"),
                                                  "id": to_value("rtb")})
        if request.tok == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
            zones = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]  # every type, every zone of the stacks
            return p.InvokeResponse(return_value={"locations": to_value(zones), "id": to_value("us-east-1")})
        if request.tok == "aws:ec2/getSubnet:getSubnet":  # the stacks' subnet ids end in 1, 2: us-east-1a, -1b
            subnet = str(args.get("id") or "")
            zone = "us-east-1" + ("abcdef"[int(subnet[-1]) - 1] if subnet[-1:].isdigit() else "a")
            return p.InvokeResponse(return_value={"id": to_value(subnet), "availabilityZone": to_value(zone)})
        return p.InvokeResponse(failures=[p.CheckFailure("", f"the stand-in provider has no {request.tok}")])


if __name__ == "__main__":
    from importlib.metadata import version

    package = sys.argv[1]
    del sys.argv[1]  # the SDK's main reads the engine address from sys.argv
    serve(sys.argv[1:], version(f"pulumi_{package}"), StandIn(package))
