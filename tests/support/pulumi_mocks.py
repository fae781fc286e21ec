"""Record what the real ``__main__.py`` registers for a stack, as the engine would see it.

``record(stack_file)`` runs the Pulumi program in a child process under Pulumi's mocks (a
preview: resources being created get no id, so ids and other computed outputs are unknown, exactly
as at ``pulumi preview``) and returns one :class:`Recorded` per resource: type, name, URN, parent,
dependencies, per-property dependencies and the properties *as the SDK serialised them for the
engine* (camelCase, unknown and secret sentinels included, numbers as floats).

The child process also takes ``skip_validation=True``, which turns off the components' own rule
check so that a deliberately broken stack config still yields its resources (to prove that the
policy pack catches what the components would have refused).

Run as a script: ``python tests/support/pulumi_mocks.py STACK_FILE OUT.json [--skip-validation]
[--set path=value ...]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: The VPC each existing cluster is in (the stacks' network.vpc_id), as ``aws.eks.getCluster`` reports it.
CLUSTER_VPCS = {"llm-dev": "vpc-0d1e2f3a4b5c6d7e8", "llm-staging": "vpc-0a1b2c3d4e5f60718"}
#: The secret config a user sets on a stack and does not commit (``pulumi config set --secret``): prod's gated
#: models need the Hugging Face token, which the stack file cannot carry in plain text.
STACK_SECRETS = {"prod": {"shardwise:hfToken": "hf_shardwise_test_token_not_a_real_one",
                          "shardwise:apiKey": "shardwise-test-api-key-not-a-real-one"},
                 "staging": {"shardwise:apiKey": "shardwise-test-api-key-not-a-real-one"}}
PYTHON = sys.executable


@dataclass
class Recorded:
    type: str
    name: str
    urn: str
    props: dict[str, Any]
    custom: bool = True
    parent: str = ""
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    id: str = ""

    def as_pulumi_resource(self):
        from shardwise.rules.adapters.pulumi import PulumiResource

        return PulumiResource(type=self.type, name=self.name, urn=self.urn, props=self.props,
                              id=self.id or None, parent=self.parent or None,
                              dependencies=tuple(self.dependencies),
                              property_dependencies={k: tuple(v) for k, v in self.property_dependencies.items()})


def load_stack_config(stack_file: str | os.PathLike[str]) -> dict[str, Any]:
    import yaml

    with open(stack_file, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return {**dict(data.get("config") or {}), **STACK_SECRETS.get(Path(stack_file).name.split(".")[1], {})}


def engine_config(config: dict[str, Any]) -> dict[str, str]:
    """Stack config as the engine passes it (``PULUMI_CONFIG``): objects become JSON strings."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}


def record(stack_file: str | os.PathLike[str], *, config: dict[str, Any] | None = None,
           skip_validation: bool = False, stack: str | None = None, timeout: float = 240) -> list[Recorded]:
    """The resources the program registers for a stack file (or for ``config``, a stack config)."""
    import tempfile

    stack = stack or Path(stack_file).name.split(".")[1]
    cfg = config if config is not None else load_stack_config(stack_file)
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = os.path.join(tmp, "config.json")
        out = os.path.join(tmp, "out.json")
        with open(cfg_path, "w", encoding="utf-8") as fh:
            json.dump(cfg, fh)
        cmd = [PYTHON, str(Path(__file__).resolve()), cfg_path, out, "--stack", stack]
        if skip_validation:
            cmd.append("--skip-validation")
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"recording {stack} failed:\n{proc.stdout}\n{proc.stderr}")
        with open(out, encoding="utf-8") as fh:
            return [Recorded(**r) for r in json.load(fh)]


# ---------------------------------------------------------------------------------------------
# The child process
# ---------------------------------------------------------------------------------------------


def _invoke_result(token: str, args: dict[str, Any]) -> dict[str, Any]:
    if token == "aws:eks/getCluster:getCluster":
        name = args.get("name", "cluster")
        return {
            "name": name, "arn": f"arn:aws:eks:us-east-1:123456789012:cluster/{name}", "id": name,
            "endpoint": f"https://{name}.example.eks.amazonaws.com",
            "certificateAuthorities": [{"data": "Y2VydA=="}],
            "vpcConfig": {"clusterSecurityGroupId": "sg-0cafe0cafe0cafe00", "vpcId": CLUSTER_VPCS.get(name, ""),
                          "subnetIds": [], "securityGroupIds": []},
            "version": "1.31", "status": "ACTIVE",
        }
    if token == "aws:ec2/getRouteTable:getRouteTable":
        return {"routeTableId": f"rtb-{abs(hash(str(args))) % 10**8:08d}", "id": "rtb"}
    if token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
        return {"locations": ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]}  # every type in these
    if token == "aws:ec2/getSubnet:getSubnet":  # the stacks' subnet ids end in 1, 2: us-east-1a, us-east-1b
        subnet = str(args.get("id", ""))
        return {"id": subnet, "availabilityZone": "us-east-1" + ("abcdef"[int(subnet[-1]) - 1]
                                                                 if subnet[-1:].isdigit() else "a")}
    return {}


def _child(config_path: str, out_path: str, stack: str, skip_validation: bool) -> None:
    import runpy

    import pulumi
    from google.protobuf import json_format
    from pulumi.runtime import mocks
    from pulumi.runtime.stack import run_pulumi_func

    with open(config_path, encoding="utf-8") as fh:
        config = json.load(fh)
    for key, value in engine_config(config).items():
        pulumi.runtime.set_config(key, value)

    records: list[dict[str, Any]] = []

    class Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs):
            # A preview: a resource being created has no id yet and its computed outputs are
            # unknown; the outputs are the inputs.
            return "", dict(args.inputs)

        def call(self, args: pulumi.runtime.MockCallArgs):
            return _invoke_result(args.token, dict(args.args))

    class Monitor(mocks.MockMonitor):
        def RegisterResource(self, request):  # noqa: N802 - gRPC name
            resp = super().RegisterResource(request)
            if request.type != "pulumi:pulumi:Stack":
                records.append({
                    "type": request.type,
                    "name": request.name,
                    "urn": resp.urn,
                    "custom": bool(request.custom),
                    "parent": request.parent,
                    "dependencies": list(request.dependencies),
                    "property_dependencies": {k: list(v.urns) for k, v in request.propertyDependencies.items()},
                    "props": json_format.MessageToDict(request.object),
                })
            return resp

    m = Mocks()
    pulumi.runtime.set_mocks(m, project="shardwise", stack=stack, preview=True, monitor=Monitor(m))
    if skip_validation:
        import shardwise.components.environment as environment

        environment.validate_environment = lambda *args, **kwargs: []
    program = str(ROOT / "__main__.py")

    def run_program() -> None:
        runpy.run_path(program, run_name="__main__")

    mocks._sync_await(run_pulumi_func(run_program))
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(records, fh)


def _main(argv: list[str]) -> None:
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("out")
    p.add_argument("--stack", default="dev")
    p.add_argument("--skip-validation", action="store_true")
    a = p.parse_args(argv)
    _child(a.config, a.out, a.stack, a.skip_validation)


if __name__ == "__main__":
    _main(sys.argv[1:])

__all__ = ["Recorded", "asdict", "engine_config", "load_stack_config", "record"]
