"""Which workloads SW404 takes for production, as docs/cli.md (the config file's `production`) says: the config
file's ``production`` decides for every workload of the run; unset, each workload decides for itself, by its
annotation ``shardwise.dev/production`` or, for a workload a stack config declares, by that stack's
``shardwise:environment.production``. A stack's setting is not the run's (mend10): a plain manifest linted beside
``Pulumi.prod.yaml`` is another deployable unit, and the finding says where the setting came from."""

from __future__ import annotations

import json
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import main

MISTRAL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mistral
  namespace: llm
{annotations}spec:
  replicas: 1
  selector:
    matchLabels: {{app: mistral}}
  template:
    metadata:
      labels: {{app: mistral}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.12xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "mistralai/Mistral-7B-Instruct-v0.3", "--port", "8000"]
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


def sw404(capsys: pytest.CaptureFixture[str], *paths: str) -> list[tuple[str, str, bool]]:
    main(["lint", *paths, "--format", "json"])
    found = json.loads(capsys.readouterr().out)["findings"]
    return [(f["subject"], f["message"].removeprefix("SW404: "), f["suppressed"]) for f in found if f["code"] == "SW404"]


def _inputs(tmp_path, annotations: str) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "mistral.yaml").write_text(MISTRAL.format(annotations=annotations))
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.prod.yaml", tmp_path / "stacks" / "Pulumi.prod.yaml")


#: The prod stack's own single-replica group: production by its stack's setting (suppressed there with its reason).
STACK_405B = ("LeaderWorkerSet serving/llama-405b",
              "1 warm replica in production (replicas is 1), where at least 2 are required; production: the stack "
              "config `Pulumi.prod.yaml` sets `production`", True)
MISTRAL_ANNOTATED = ("Deployment llm/mistral",
                     "1 warm replica in production (replicas is 1), where at least 2 are required; production: the "
                     'annotation `shardwise.dev/production: "true"`', False)


@pytest.mark.parametrize("annotations, expected", [
    ("", []),  # a plain manifest beside a production stack is not the stack's: not production
    ('  annotations: {shardwise.dev/production: "false"}\n', []),
    ('  annotations: {shardwise.dev/production: "true"}\n', [MISTRAL_ANNOTATED]),
])
def test_a_production_stack_is_production_for_its_own_workloads_only(tmp_path, monkeypatch, capsys, annotations,
                                                                     expected):
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, annotations)
    assert sw404(capsys, "deploy/") == expected  # alone: only the annotation says it serves production
    assert sw404(capsys, "deploy/", "stacks/") == [*expected, STACK_405B]
    assert sw404(capsys, "stacks/", "deploy/") == [*expected, STACK_405B]  # findings are in file order


def test_the_config_files_production_decides_for_every_workload(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, '  annotations: {shardwise.dev/production: "false"}\n')
    (tmp_path / "shardwise.toml").write_text("production = true\n")
    by_config = "; production: shardwise.toml sets `production`"
    assert sw404(capsys, "deploy/", "stacks/") == [
        ("Deployment llm/mistral",
         "1 warm replica in production (replicas is 1), where at least 2 are required" + by_config, False),
        (STACK_405B[0], STACK_405B[1].split("; production:")[0] + by_config, True),
    ]
    (tmp_path / "shardwise.toml").write_text("production = false\n")
    assert sw404(capsys, "deploy/", "stacks/") == []



def _pack_sw404(production: object, annotations: str, key: str = "shardwise:environment") -> list[str]:
    """SW404's messages for the Mistral Deployment as the policy pack reads it in a preview of the dev stack, whose
    ``shardwise:environment`` writes ``production`` as given (``"unset"``: not at all; None: the stack has no
    environment config); ``key``: the config key it is written under (another project's ``<project>:environment``)."""
    import yaml
    from pulumi_mocks import engine_config, load_stack_config
    from shardwise.rules.adapters.pulumi import PulumiResource
    from shardwise.rules.app import crossguard
    from shardwise.rules.checks.registry import rule_by_code

    obj = yaml.safe_load(MISTRAL.format(annotations=annotations))
    dep = PulumiResource("kubernetes:apps/v1:Deployment", "mistral",
                         "urn:pulumi:dev::shardwise::kubernetes:apps/v1:Deployment::mistral", obj)
    environ: dict[str, str] = {}
    if production is not None:
        cfg = engine_config(load_stack_config(ROOT / "stacks" / "Pulumi.dev.yaml"))
        value = json.loads(cfg["shardwise:environment"])
        value.pop("production", None)
        if production != "unset":
            value["production"] = production
        cfg.pop("shardwise:environment")
        environ["PULUMI_CONFIG"] = json.dumps({**cfg, key: json.dumps(value)})
    context = crossguard.stack_context(environ)
    assert context.error is None, context.error
    analysis = crossguard.stack_analysis([dep], context)
    return [r.message for r in analysis.check(rule_by_code("SW404"), None, context)]


ANNOTATED = '  annotations: {shardwise.dev/production: "true"}\n'
BY_ANNOTATION = ('SW404: 1 warm replica in production (replicas is 1), where at least 2 are required; production: the '
                 'annotation `shardwise.dev/production: "true"`')


@pytest.mark.parametrize(("production", "annotations", "expected"), [
    # review37: an environment that does not write `production` leaves each workload's own setting to decide (the
    # spec's default, False, made the annotated workload not production, where `shardwise lint` said it was)
    ("unset", ANNOTATED, [BY_ANNOTATION]),
    ("unset", "", []),
    (False, ANNOTATED, []),  # the stack says it is not production: the run's setting decides for every workload
    # mend24: the key the stack wrote, not the placeholder `<project>:environment`
    (True, "", ["SW404: 1 warm replica in production (replicas is 1), where at least 2 are required; production: the "
                "stack's `shardwise:environment` config sets `production`"]),
    (None, ANNOTATED, [BY_ANNOTATION]),
], ids=["unset-annotated", "unset", "false-annotated", "true", "no-environment-annotated"])
def test_the_pack_reads_a_stack_environment_without_production_as_no_setting(production, annotations, expected):
    assert _pack_sw404(production, annotations) == expected


def test_the_pack_names_another_projects_environment_key():
    # mend24: a stack of another project writes `<its project>:environment`; the finding names that key
    assert _pack_sw404(True, "", key="llm-platform:environment") == [
        "SW404: 1 warm replica in production (replicas is 1), where at least 2 are required; production: the "
        "stack's `llm-platform:environment` config sets `production`"]
