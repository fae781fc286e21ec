"""The policy pack and the program under the real Pulumi engine (``pytest -m engine``).

The CLI is the real ``pulumi`` built from its Go modules by ``scripts/build-pulumi.sh``; the
backend is a local ``file://`` one with a passphrase secrets provider; the program is the real
``__main__.py`` with the real components; the pack is ``--policy-pack rules``.

Two things stand in, and only these (see ``tests/engine_support.py`` and the README):

* the AWS and Kubernetes provider plugins cannot be built here: ``tests/standin_provider.py``,
  written with Pulumi's Python provider SDK, stands in for both and records every create call;
* ``pulumi-language-python`` is not served by the Go module proxy: the program is served by the
  Python SDK's own language runtime (the Automation API's, reached with ``--client``), and the pack
  is started by ``tests/engine_bin/pulumi-analyzer-policy-python`` with the language host's command.

Without the built CLI these tests are skipped (``make test`` says so); ``.ci/run`` requires them.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from engine_support import ROOT, Project, engine_version, load_stack_config, require_engine
from pulumi_mocks import record

pytestmark = [pytest.mark.engine, pytest.mark.slow]

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SHARDWISE = str(ROOT / ".venv" / "bin" / "shardwise")


def short(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


# =================================================================================================
# Stack exports produced by the real engine from the real program
# =================================================================================================


def _service(**engine: Any):
    def edit(env: dict[str, Any]) -> None:
        env["services"][0]["engine"].update(engine)
    return edit


def _tp16(env: dict[str, Any]) -> None:  # a 16-GPU tensor-parallel group over 8-GPU nodes
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=16,
                                        max_num_seqs=32)
    env["services"][0]["model_load_seconds"] = 2400


CONFIG_VARIANTS = {
    "tp-split-across-nodes": _tp16,
    "8b-sharded-over-two-gpus": _service(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=2),
    "kv-cache-under-budget": _service(max_num_seqs=1024),
}


def _resource(export: dict[str, Any], name: str) -> dict[str, Any]:
    [r] = [r for r in export["deployment"]["resources"] if short(r["urn"]) == name]
    return r


def _both(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["inputs"], r["outputs"]]


def _runtime_port_open(export: dict[str, Any]) -> None:
    """A hand-written ingress rule opening Ray's port 6379 to the internet on the GPU nodes' group."""
    sg = _resource(export, "prod-network-gpu-nodes")
    rule_type = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    name = "prod-network-gpu-nodes-ingress-ray-anywhere"
    props = {"securityGroupId": sg["id"], "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379,
             "cidrIpv4": "0.0.0.0/0", "description": "Ray head from anywhere"}
    rule = {k: v for k, v in sg.items() if k in ("custom", "provider", "parent", "created", "modified")}
    rule.update(urn=sg["urn"].replace(sg["type"], rule_type).rsplit("::", 1)[0] + "::" + name, type=rule_type,
                id=f"{name}-id", inputs=dict(props), outputs=dict(props, arn="aws:rule:arn"),
                dependencies=[sg["urn"]], propertyDependencies={"securityGroupId": [sg["urn"]]})
    export["deployment"]["resources"].append(rule)


def _imdsv1(export: dict[str, Any]) -> None:
    for props in _both(_resource(export, "prod-h100-launch-template")):
        props["metadataOptions"]["httpTokens"] = "optional"


def _no_shm(export: dict[str, Any]) -> None:
    for props in _both(_resource(export, "prod-llama-70b-deployment")):
        spec = props["spec"]["template"]["spec"]
        spec["volumes"] = [v for v in spec["volumes"] if v["name"] != "dshm"]
        c = spec["containers"][0]
        c["volumeMounts"] = [m for m in c["volumeMounts"] if m["mountPath"] != "/dev/shm"]


EXPORT_EDITS = {
    "runtime-port-open-to-the-internet": _runtime_port_open,
    "imdsv1": _imdsv1,
    "no-dev-shm": _no_shm,
}

# (policy, code, resource) of every mandatory violation, per export
EXPECTED_MANDATORY = {
    "good": set(),
    "tp-split-across-nodes": {("tensor-parallel-larger-than-node", "SW201", "prod-llama-70b-deployment")},
    "8b-sharded-over-two-gpus": {("sharded-model-that-fits", "SW104", "prod-llama-70b-deployment")},
    "kv-cache-under-budget": {("kv-budget-below-load", "SW103", "prod-llama-70b-deployment")},
    "runtime-port-open-to-the-internet": {
        ("runtime-port-exposed", "SW301", "prod-network-gpu-nodes-ingress-ray-anywhere")},
    "imdsv1": {("imdsv2-not-required", "SW304", "prod-h100-launch-template")},
    "no-dev-shm": {("parallel-without-shm", "SW401", "prod-llama-70b-deployment")},
}


def broken_config(edit) -> dict[str, Any]:
    cfg = copy.deepcopy(load_stack_config("prod"))
    edit(cfg["shardwise:environment"])
    return cfg


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``pulumi up`` (no pack) of the prod stack and of each broken config, then ``pulumi stack
    export``; the resource-level breakages are edits of the good export."""
    bin_dir = require_engine()
    out = tmp_path_factory.mktemp("exports")
    data: dict[str, dict[str, Any]] = {}
    jobs: dict[str, tuple[dict[str, Any], bool]] = {"good": (load_stack_config("prod"), False)}
    jobs.update({name: (broken_config(edit), True) for name, edit in CONFIG_VARIANTS.items()})
    for name, (config, skip) in jobs.items():
        project = Project(tmp_path_factory.mktemp(name), bin_dir, "prod", config)
        proc = project.operation("up", "--yes", "--skip-preview", skip_component_check=skip)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        data[name] = project.export()
    for name, edit in EXPORT_EDITS.items():
        data[name] = copy.deepcopy(data["good"])
        edit(data[name])
    paths = {}
    for name, export in data.items():
        paths[name] = out / f"{name}.json"
        paths[name].write_text(json.dumps(export, indent=2), encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def analyzer(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A project directory to run ``pulumi policy analyze`` from (it needs no stack)."""
    return Project(tmp_path_factory.mktemp("analyze"), require_engine(), "prod", load_stack_config("prod"))


def analyze(project: Project, export: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return project.run("policy", "analyze", "--file", str(export), "--policy-pack", "rules", *flags)


def test_the_built_cli_is_the_pinned_release():
    proc = subprocess.run([str(require_engine() / "pulumi"), "version"], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout.strip()) == (0, engine_version())


def test_policy_analyze_passes_the_good_export(analyzer, exports):
    proc = analyze(analyzer, exports["good"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mandatory" not in proc.stdout


@pytest.mark.parametrize("variant", sorted(set(EXPECTED_MANDATORY) - {"good"}))
def test_policy_analyze_blocks_each_broken_export(analyzer, exports, variant):
    proc = analyze(analyzer, exports[variant])
    assert proc.returncode != 0
    assert "one or more mandatory policy violations were found" in proc.stdout + proc.stderr
    for policy, code, resource in EXPECTED_MANDATORY[variant]:
        lines = [line for line in proc.stdout.splitlines() if f"[mandatory]  {policy}" in line]
        assert lines, proc.stdout
        assert any(f"{code}:" in line or resource in line for line in proc.stdout.splitlines()), proc.stdout


def policy_events(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [e["policyEvent"] for e in events if "policyEvent" in e]


def pack_findings(events: list[dict[str, Any]]) -> set[tuple[str, str, str, bool]]:
    """(code, urn, message, suppressed) of each policy event, the shape of ``shardwise lint --format json``."""
    out = set()
    for e in events:
        message = e["message"]
        description, _, message = message.partition("\n")
        code = description.split(":", 1)[0]
        if message.startswith(f"{code} suppressed: "):
            finding = message[message.index("(finding: ") + len("(finding: "):-1]
            out.add((code, e.get("resourceUrn", ""), finding, True))
        else:
            out.add((code, e.get("resourceUrn", ""), message, False))
    return out


@pytest.mark.parametrize("variant", sorted(EXPECTED_MANDATORY))
def test_policy_analyze_and_shardwise_lint_agree_on_the_same_file(analyzer, exports, variant):
    proc = analyze(analyzer, exports[variant], "--json")
    events = policy_events(proc.stdout)
    mandatory = {(e["policyName"], e["message"].split(":", 1)[0], short(e["resourceUrn"]))
                 for e in events if e["enforcementLevel"] == "mandatory"}
    assert mandatory == EXPECTED_MANDATORY[variant]
    lint = subprocess.run([SHARDWISE, "lint", str(exports[variant]), "--format", "json"], capture_output=True,
                          text=True, env={**os.environ, "NO_COLOR": "1"}, cwd=exports[variant].parent)
    assert lint.returncode in (0, 1), lint.stderr
    findings = {(f["code"], f["urn"], f["message"], f["suppressed"]) for f in json.loads(lint.stdout)["findings"]}
    assert findings == pack_findings(events)
    assert (lint.returncode == 1) == (proc.returncode != 0) == bool(EXPECTED_MANDATORY[variant])


# =================================================================================================
# preview and up of the program with the pack, on a local backend
# =================================================================================================


def created(project: Project) -> set[tuple[str, str]]:
    return {(c["type"], c["name"]) for c in project.provider_calls() if c["call"] == "create" and not c["preview"]}


def test_a_good_stack_previews_and_every_resource_is_created(tmp_path):
    project = Project(tmp_path, require_engine(), "prod", load_stack_config("prod"))
    preview = project.operation("preview", "--policy-pack", "rules")
    assert preview.returncode == 0, preview.stdout + preview.stderr
    assert created(project) == set()
    up = project.operation("up", "--policy-pack", "rules", "--yes")
    assert up.returncode == 0, up.stdout + up.stderr
    program = {(r.type, r.name) for r in record(ROOT / "stacks" / "Pulumi.prod.yaml")
               if r.custom and not r.type.startswith("pulumi:providers:")}
    assert created(project) == program
    state = project.export()["deployment"]["resources"]
    assert {(r["type"], short(r["urn"])) for r in state if r.get("custom") and not r["type"].startswith(
        "pulumi:providers:")} == program


def test_a_bad_stack_is_blocked_before_anything_is_created(tmp_path):
    config = broken_config(CONFIG_VARIANTS["8b-sharded-over-two-gpus"])
    project = Project(tmp_path, require_engine(), "prod", config)
    preview = project.operation("preview", "--policy-pack", "rules", skip_component_check=True)
    assert preview.returncode != 0
    assert "[mandatory]  sharded-model-that-fits" in preview.stdout, preview.stdout
    up = project.operation("up", "--policy-pack", "rules", "--yes", skip_component_check=True)
    assert up.returncode != 0
    assert "[mandatory]  sharded-model-that-fits" in up.stdout, up.stdout
    assert created(project) == set()
    assert [c for c in project.provider_calls() if c["call"] != "create" or not c["preview"]] == []
    assert project.export()["deployment"].get("resources", []) == []
