"""A YAML file whose Go template actions read Helm's built-in objects (``.Values``, ``.Release``, ``include``), in a
folder with no Chart.yaml above it, is a chart's template kept apart from its chart: a script copies it into the chart
it packages, and Helm renders it there (corpus39: a repository that repackages upstream charts keeps
``charts/NAME/parent/templates/*.yaml`` beside the script that assembles each chart; 35 such files were input errors
and its run exited 2). Skipped where searched, with the line that mentions vLLM where one does; an input error where
named, and where its placeholders are not Helm's. Files written here in the shapes Helm's documentation gives
(helm.sh/docs/chart_template_guide: builtin_objects, named_templates, control_structures).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import HELM_TEMPLATE
from shardwise.rules.app.cli import main

GOOD = os.path.join(ROOT, "tests/fixtures/rules/SW104/pass.yaml")

RULE = """\
{{ if .Values.alert.prometheusRule.create }}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "gpu-stack.fullname" . }}
  namespace: {{ .Release.Namespace }}
spec:
  groups:
    - name: gpu
      rules:
        - alert: GPUDown
          expr: up{job="dcgm-exporter"} == 0
{{ end }}
"""
VLLM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "gpu-stack.fullname" . }}-server
  labels:
    {{- include "gpu-stack.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:{{ .Values.image.tag }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
JINJA = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: {{ namespace }}
data:
  {{ key }}: {{ value }}
"""


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    shutil.copy(GOOD, tmp_path / "deploy.yaml")
    parent = tmp_path / "charts/gpu-stack/parent/templates"
    parent.mkdir(parents=True)
    (parent / "PrometheusRule.yaml").write_text(RULE)
    (parent / "server.yaml").write_text(VLLM)
    (tmp_path / "charts/gpu-stack/custom.sh").write_text("#!/bin/bash\ncp -r parent/templates/* chart/templates/\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_helm_templates_in_no_chart_met_while_searching_are_skipped(repo, capsys):
    rc, doc = lint(capsys, ".")
    assert doc["input_errors"] == []  # was: "cannot parse YAML: ..." for both files, exit 2
    reasons = {s["file"]: s["reason"] for s in doc["skipped_files"]}
    assert reasons["charts/gpu-stack/parent/templates/PrometheusRule.yaml"] == HELM_TEMPLATE
    assert reasons["charts/gpu-stack/parent/templates/server.yaml"] == (
        HELM_TEMPLATE[:-1] + "; it mentions vLLM (`image: vllm/vllm-openai:{{ .Values.image.tag }}` at line 13), "
        "not linted)")
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide


def test_a_helm_template_named_stays_an_error(repo, capsys):
    rc, doc = lint(capsys, "charts/gpu-stack/parent/templates/server.yaml")
    assert (rc, [e["file"] for e in doc["input_errors"]]) == (2, ["charts/gpu-stack/parent/templates/server.yaml"])


def test_placeholders_that_are_not_helms_stay_an_error(repo, capsys):
    (repo / "charts/gpu-stack/parent/templates/settings.yaml").write_text(JINJA)
    rc, doc = lint(capsys, ".")
    assert ([e["file"] for e in doc["input_errors"]], rc) == (["charts/gpu-stack/parent/templates/settings.yaml"], 2)
