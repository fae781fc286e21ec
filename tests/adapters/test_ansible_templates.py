"""A YAML file an Ansible task renders with its template module is a Jinja template: Ansible fills its ``{{ … }}``
before anything reads it as YAML, so an unquoted placeholder in it is no broken manifest (corpus35: a playbook that
templates a kubeadm configuration, ``controlPlaneEndpoint: {{cp_ip}}:6443``, to /tmp and runs ``kubeadm init`` on it
made the whole repository's run exit 2). Skipped where searched, with the line that mentions vLLM where one does; an
input error where named, where no task renders it, or where an object of it was read. Files written here in the
shapes of Ansible's documentation (a role's tasks and templates/, a playbook's files/ and the module's short form).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import ANSIBLE_TEMPLATE
from shardwise.rules.app.cli import main

GOOD = os.path.join(ROOT, "tests/fixtures/rules/SW104/pass.yaml")

ROLE_TASKS = """\
---
- name: Render the vLLM manifest
  ansible.builtin.template:
    src: vllm-deployment.yml
    dest: /tmp/vllm/vllm-deployment.yml
    mode: "0644"

- name: Apply it
  ansible.builtin.command: kubectl apply -f /tmp/vllm/vllm-deployment.yml
"""
ROLE_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: {{ vllm_namespace }}
spec:
  replicas: {{ vllm_replicas }}
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:{{ vllm_version }}
          args: ["--model", "{{ vllm_model }}", "--tensor-parallel-size", "{{ vllm_gpus }}"]
          resources:
            limits:
              nvidia.com/gpu: {{ vllm_gpus }}
"""
PLAYBOOK = """\
- hosts: control_plane
  become: true
  tasks:
    - name: Configuring create template
      template: src=files/create.yml dest=/tmp/k8s/create.yml mode=0644
    - name: Create cluster
      command: kubeadm init --config=/tmp/k8s/create.yml
"""
KUBEADM = """\
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
controlPlaneEndpoint: {{cp_ip}}:6443
networking:
  podSubnet: "10.217.0.0/16"
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
nodeRegistration:
  name: {{hostname}}
"""


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    shutil.copy(GOOD, tmp_path / "deploy.yaml")
    role = tmp_path / "ansible/roles/vllm"
    (role / "tasks").mkdir(parents=True)
    (role / "templates").mkdir()
    (role / "tasks/main.yml").write_text(ROLE_TASKS)
    (role / "templates/vllm-deployment.yml").write_text(ROLE_TEMPLATE)
    plays = tmp_path / "ansible/plays/k8s"
    (plays / "files").mkdir(parents=True)
    (plays / "play.yml").write_text(PLAYBOOK)
    (plays / "files/create.yml").write_text(KUBEADM)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_templates_ansible_renders_met_while_searching_are_skipped(repo, capsys):
    rc, doc = lint(capsys, ".")
    assert doc["input_errors"] == []  # was: "cannot parse YAML: a template placeholder {{ … }} is not YAML", exit 2
    reasons = {s["file"]: s["reason"] for s in doc["skipped_files"]}
    assert reasons["ansible/plays/k8s/files/create.yml"] == ANSIBLE_TEMPLATE
    assert reasons["ansible/roles/vllm/templates/vllm-deployment.yml"] == (
        ANSIBLE_TEMPLATE[:-1] + "; it mentions vLLM (`name: vllm` at line 4), not linted)")
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide


def test_an_ansible_template_named_stays_an_error(repo, capsys):
    rc, doc = lint(capsys, "ansible/roles/vllm/templates/vllm-deployment.yml")
    assert (rc, [e["line"] for e in doc["input_errors"]]) == (2, [5])


def test_a_template_no_task_renders_stays_an_error(repo, capsys):
    (repo / "ansible/roles/vllm/templates/other.yml").write_text(ROLE_TEMPLATE)
    rc, doc = lint(capsys, ".")
    assert ([e["file"] for e in doc["input_errors"]], rc) == (["ansible/roles/vllm/templates/other.yml"], 2)


def test_a_template_an_object_of_which_was_read_stays_an_error(repo, capsys):
    service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\nspec:\n  ports:\n    - port: 8000\n---\n"
    (repo / "ansible/roles/vllm/templates/vllm-deployment.yml").write_text(service + ROLE_TEMPLATE)
    rc, doc = lint(capsys, ".")
    assert ({e["file"] for e in doc["input_errors"]}, rc) == ({"ansible/roles/vllm/templates/vllm-deployment.yml"}, 2)
