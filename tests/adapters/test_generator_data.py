"""A file a kustomization met while searching hands its configMapGenerator (or secretGenerator) as data: kustomize puts
its text in the ConfigMap as it is and never parses it, so a YAML error in it is no broken manifest (corpus29: a
GitOps tree's homepage dashboard config, `{{HOMEPAGE_VAR_…}}` placeholders homepage fills from its environment, made
the whole run exit 2). Skipped where searched; an input error where named, or where another document of the file may
have been read. Files written here in the shapes homepage and kustomize document.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import GENERATOR_DATA
from shardwise.rules.app.cli import main

GOOD = os.path.join(ROOT, "tests/fixtures/rules/SW104/pass.yaml")

KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ./helmrelease.yaml
configMapGenerator:
  - name: homepage-config
    files:
      - services.yaml=./config/services.yaml
      - ./config/widgets.yaml
generatorOptions:
  disableNameSuffixHash: true
"""
SERVICES = """\
#prettier-ignore
---
- Network:
    - Cloudflared:
        icon: cloudflare-zero-trust.png
        widget:
          type: cloudflared
          accountid: {{HOMEPAGE_VAR_CLOUDFLARED_ACCOUNTID}}
          key: {{HOMEPAGE_VAR_CLOUDFLARED_API_TOKEN}}
"""
WIDGETS_TWO_DOCUMENTS = """\
- resources:
    cpu: true
---
- openweathermap:
    apiKey: {{HOMEPAGE_VAR_OPENWEATHERMAP_TOKEN}}
"""


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    shutil.copy(GOOD, tmp_path / "deploy.yaml")
    app = tmp_path / "apps/homepage"
    (app / "config").mkdir(parents=True)
    (app / "kustomization.yaml").write_text(KUSTOMIZATION)
    (app / "config/services.yaml").write_text(SERVICES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_a_generators_data_file_met_while_searching_is_skipped(repo, capsys):
    rc, doc = lint(capsys, ".")
    assert doc["input_errors"] == []  # was: "cannot parse YAML: a template placeholder {{ … }} is not YAML"
    assert ("apps/homepage/config/services.yaml", GENERATOR_DATA) in [(s["file"], s["reason"])
                                                                       for s in doc["skipped_files"]]
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide


def test_a_generators_data_file_named_stays_an_error(repo, capsys):
    rc, doc = lint(capsys, "apps/homepage/config/services.yaml")
    assert (rc, [e["line"] for e in doc["input_errors"]]) == (2, [8])


def test_a_generators_file_of_two_documents_stays_an_error(repo, capsys):
    (repo / "apps/homepage/config/widgets.yaml").write_text(WIDGETS_TWO_DOCUMENTS)
    rc, doc = lint(capsys, ".")
    assert ({e["file"] for e in doc["input_errors"]}, rc) == ({"apps/homepage/config/widgets.yaml"}, 2)


def test_a_file_no_generator_names_stays_an_error(repo, capsys):
    (repo / "apps/homepage/config/other.yaml").write_text(SERVICES)
    rc, doc = lint(capsys, ".")
    assert ([e["file"] for e in doc["input_errors"]], rc) == (["apps/homepage/config/other.yaml"], 2)
