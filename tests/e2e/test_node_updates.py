"""A GPU pool's update between two ``pulumi up`` runs, as the real engine plans and makes it through the AWS stand-in.

The components declare for every managed GPU node group (``components/nodepool.py``, ``GPU_UPDATE_CONFIG``
and docs/components.md, "Updates"): a change of its launch template makes a new template version and the node
group moves to it in place, EKS rolling it one node at a time with the old node terminated first
(``updateConfig`` ``maxUnavailable: 1``, ``updateStrategy: MINIMAL``: no surge); a change EKS cannot make in
place replaces the group with the old one deleted first (``deleteBeforeReplace``), so neither asks for GPU
instances beyond the pool's.

The real CLI and engine run the real program on prod; the AWS provider is the stand-in
(``tests/support/standin_provider.py``), which plans as the AWS provider does: an update in place unless a
property the provider's schema marks ForceNew changes (``FORCE_NEW``). What the stand-in cannot show, and so
has never run here: EKS's own rolling of the nodes (how long, in what order, whether a replacement p5 is
found), which happens inside AWS after ``UpdateNodegroupVersion``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml
from engine_support import Project, load_stack_config, require_engine

pytestmark = [pytest.mark.engine, pytest.mark.slow]

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"


def _read_config(project: Project) -> dict[str, Any]:
    with open(project.dir / "stacks" / f"Pulumi.{project.stack}.yaml", encoding="utf-8") as fh:
        return dict(yaml.safe_load(fh)["config"])


def _steps(preview_json: str) -> dict[str, list[str]]:
    """``pulumi preview --json``: AWS resource name -> the ops planned for it (a replacement has several). The
    Kubernetes objects are left out: under the Kubernetes stand-in every one of them shows an update on any
    preview (its provider's config diff is not the real one's); the cluster tests show them with the real
    provider, where a second ``up`` changes nothing."""
    out: dict[str, list[str]] = {}
    for step in json.loads(preview_json).get("steps", []):
        if step["urn"].split("::")[-2].split("$")[-1].startswith("aws:"):
            out.setdefault(step["urn"].rsplit("::", 1)[-1], []).append(step["op"])
    return out


def _state(project: Project, name: str) -> dict[str, Any]:
    [r] = [r for r in project.export()["deployment"]["resources"] if r["urn"].rsplit("::", 1)[-1] == name]
    return r


def _pool(config: dict[str, Any], name: str) -> dict[str, Any]:
    [pool] = [p for p in config["shardwise:environment"]["pools"] if p["name"] == name]
    return pool


def _write_config(project: Project, config: dict[str, Any]) -> None:
    """The stack's config as a user edits it between two runs (the file :class:`Project` wrote)."""
    with open(project.dir / "stacks" / f"Pulumi.{project.stack}.yaml", "w", encoding="utf-8") as fh:
        yaml.safe_dump({"config": config}, fh, sort_keys=False)


def _calls_since(project: Project, start: int) -> list[tuple[str, str, str]]:
    return [(c["call"], c["type"], c["name"]) for c in project.provider_calls()[start:]
            if c["package"] == "aws" and not c["preview"]]


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, dict[str, Any]]:
    config = load_stack_config("prod")
    project = Project(tmp_path_factory.mktemp("node-updates"), require_engine(), "prod", config)
    up = project.operation("up", "--yes", "--skip-preview", pack=False)
    assert up.returncode == 0, up.stdout[-6000:] + up.stderr[-3000:]
    return project, config


def test_a_launch_template_change_moves_the_node_group_to_a_new_version_in_place(deployed):
    project, config = deployed
    before = _state(project, "prod-h100-node-group")
    assert before["outputs"]["updateConfig"] == {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}
    assert before["outputs"]["launchTemplate"]["version"] == "1"
    changed = copy.deepcopy(config)
    _pool(changed, "h100")["disk_size_gib"] = 1200  # the root volume of the launch template
    _write_config(project, changed)
    preview = project.operation("preview", "--json", pack=False)
    assert preview.returncode == 0, preview.stdout[-6000:] + preview.stderr[-3000:]
    steps = _steps(preview.stdout)
    assert steps["prod-h100-launch-template"] == ["update"], steps
    assert steps["prod-h100-node-group"] == ["update"], steps
    by_name = {s["urn"].rsplit("::", 1)[-1]: s for s in json.loads(preview.stdout)["steps"]}
    assert by_name["prod-h100-launch-template"]["detailedDiff"] == {
        "blockDeviceMappings": {"kind": "update", "inputDiff": True}}
    # the version is known only once the template has its new version: an update, not a replacement
    assert by_name["prod-h100-node-group"]["detailedDiff"] == {"launchTemplate": {"kind": "update", "inputDiff": True}}
    changed_names = {n for n, ops in steps.items() if ops != ["same"]}
    assert changed_names == {"prod-h100-launch-template", "prod-h100-node-group"}, steps

    start = len(project.provider_calls())
    up = project.operation("up", "--yes", "--skip-preview", pack=False)
    assert up.returncode == 0, up.stdout[-6000:] + up.stderr[-3000:]
    assert _calls_since(project, start) == [("update", LAUNCH_TEMPLATE, "prod-h100-launch-template"),
                                            ("update", NODE_GROUP, "prod-h100-node-group")]
    lt = _state(project, "prod-h100-launch-template")
    assert lt["outputs"]["latestVersion"] == 2
    assert lt["outputs"]["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 1200
    after = _state(project, "prod-h100-node-group")
    assert after["id"] == before["id"]
    assert after["outputs"]["launchTemplate"] == {"id": lt["id"], "version": "2"}
    assert after["outputs"]["updateConfig"] == {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}


def test_a_change_eks_cannot_make_in_place_deletes_the_old_group_before_creating_the_new(deployed):
    """The pool moved to one zone: the node group's subnets are ForceNew, so the group is replaced, and with
    ``deleteBeforeReplace`` the old group goes first (no second set of p5 instances is asked for)."""
    project, _ = deployed
    before = _state(project, "prod-h100-node-group")
    changed = _read_config(project)  # as the test before left it, if it ran
    _pool(changed, "h100")["availability_zone"] = "us-east-1b"
    _write_config(project, changed)
    preview = project.operation("preview", "--json", pack=False)
    assert preview.returncode == 0, preview.stdout[-6000:] + preview.stderr[-3000:]
    steps = _steps(preview.stdout)
    assert {n: ops for n, ops in steps.items() if ops != ["same"]} == {"prod-h100-node-group": ["replace"]}, steps
    [step] = [s for s in json.loads(preview.stdout)["steps"] if s["urn"].endswith("::prod-h100-node-group")]
    assert (step["replaceReasons"], step["detailedDiff"]) == (
        ["subnetIds"], {"subnetIds": {"kind": "update-replace", "inputDiff": True}}), step["detailedDiff"]

    start = len(project.provider_calls())
    up = project.operation("up", "--yes", "--skip-preview", pack=False)
    assert up.returncode == 0, up.stdout[-6000:] + up.stderr[-3000:]
    assert _calls_since(project, start) == [("delete", NODE_GROUP, "prod-h100-node-group"),
                                            ("create", NODE_GROUP, "prod-h100-node-group")]
    after = _state(project, "prod-h100-node-group")
    assert len(before["outputs"]["subnetIds"]) == 3 and len(after["outputs"]["subnetIds"]) == 1, after["outputs"]
    assert after["outputs"]["updateConfig"] == {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}
