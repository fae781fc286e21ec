"""A YAML file with tags only its application reads (YAML's local tags: ``!env_var``, ``!secret``, ``!Find``) beside
the manifests of a GitOps tree (corpus29): skipped, with its reason, where a searched folder met it and it holds no
Kubernetes object; an input error where the user named it, or where it is a Kubernetes object (``namespace: !Ref
Namespace``: kubectl would read the literal text, which the template meant to fill).

The files are written here in the shapes their tools document: Recyclarr's config (its ``!env_var``), an ESPHome
device (``!secret``, from its secrets.yaml), an authentik blueprint (``!Find``, ``!KeyOf``).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters.load import ApplicationTagYaml
from shardwise.rules.adapters.yamlsrc import load_untagged
from shardwise.rules.app.cli import main

GOOD = os.path.join(ROOT, "tests/fixtures/rules/SW104/pass.yaml")

RECYCLARR = """\
---
# yaml-language-server: $schema=https://raw.githubusercontent.com/recyclarr/recyclarr/master/schemas/config-schema.json
sonarr:
  series:
    base_url: http://sonarr.media.svc.cluster.local
    api_key: !env_var SONARR_API_KEY
    quality_definition:
      type: series
"""
ESPHOME = """\
esphome:
  name: shed-light
esp8266:
  board: esp01_1m
wifi:
  ssid: !secret wifi_ssid
  password: !secret wifi_password
ota:
  - platform: esphome
    password: !secret ota_password
"""
BLUEPRINT = """\
version: 1
metadata:
  name: Longhorn application
entries:
  - model: authentik_core.application
    identifiers:
      slug: longhorn
    attrs:
      name: Longhorn
      provider: !KeyOf longhorn-provider
      policy_engine_mode: any
  - model: authentik_brands.brand
    identifiers:
      domain: auth.example.com
    attrs:
      flow_authentication: !Find [authentik_flows.flow, [slug, default-authentication-flow]]
"""
TAGGED_OBJECT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: !Ref Namespace
data:
  a: b
"""


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    shutil.copy(GOOD, tmp_path / "deploy.yaml")
    for name, text in (("recyclarr/recyclarr.yml", RECYCLARR), ("esphome/shed-light.yaml", ESPHOME),
                       ("authentik/longhorn.yaml", BLUEPRINT)):
        (tmp_path / os.path.dirname(name)).mkdir()
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_application_yaml_met_while_searching_is_skipped_with_its_tags(repo, capsys):
    rc, doc = lint(capsys, ".")
    assert (doc["input_errors"], sorted((s["file"], s["reason"]) for s in doc["skipped_files"])) == ([], [
        ("authentik/longhorn.yaml", "YAML that is not a Kubernetes object, with YAML tags only its application reads "
                                    "(!KeyOf, !Find)"),
        ("esphome/shed-light.yaml", "YAML that is not a Kubernetes object, with YAML tags only its application reads "
                                    "(!secret)"),
        ("recyclarr/recyclarr.yml", "YAML that is not a Kubernetes object, with YAML tags only its application reads "
                                    "(!env_var)")])
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide, as without the files


def test_application_yaml_named_stays_an_error(repo, capsys):
    rc, doc = lint(capsys, "esphome/shed-light.yaml")
    assert (rc, [(e["line"], e["message"]) for e in doc["input_errors"]]) == (2, [
        (6, "cannot parse YAML: could not determine a constructor for the tag '!secret'")])


def test_a_kubernetes_object_with_a_local_tag_stays_an_error_when_searched(repo, capsys):
    (repo / "settings.yaml").write_text(TAGGED_OBJECT)
    rc, doc = lint(capsys, ".")
    assert ([(e["file"], e["line"], e["message"]) for e in doc["input_errors"]], rc) == ([
        ("settings.yaml", 5, "cannot parse YAML: could not determine a constructor for the tag '!Ref'")], 2)


def test_local_tags_read_as_kubectl_reads_them():
    # goyaml.v2: a scalar whose tag it cannot resolve is its text; a list or mapping is built whatever its tag
    docs, tags = load_untagged("a: !env_var 5\nb: !Find [x, [slug, y]]\nc: !Obj {k: !!int 3}\nd: !!str 4\n", "x.yaml")
    assert (docs, tags) == ([{"a": "5", "b": ["x", ["slug", "y"]], "c": {"k": 3}, "d": "4"}], ["!env_var", "!Find",
                                                                                                "!Obj"])


def test_the_skip_reason_survives_a_worker_process():
    e = pickle.loads(pickle.dumps(ApplicationTagYaml("m", "f.yaml", 6, 13, "why")))
    assert (type(e), e.message, e.file, e.line, e.column, e.reason) == (ApplicationTagYaml, "m", "f.yaml", 6, 13, "why")
