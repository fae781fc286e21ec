"""A file that a helmfile release, an Argo CD Application or a Flux HelmRelease of the inputs names as its Helm
values is read as Helm values whatever its name (rules/adapters/namedvalues.py; mend31, mend29's reproduction: a
helmfile's `values: [custom.yaml]` configuring vLLM was "YAML that is not a Kubernetes object", no SW005, where the
same text as values-prod.yaml was an SW005 record). The repositories are written in the shapes GitOps repositories
have: a helmfile with environments and Go template lines, a helmfile.d folder, an Argo CD multi-source Application
with `ref: values`, a Flux HelmRelease of a GitRepository chart with valuesFiles."""

from __future__ import annotations

import json

import pytest
from shardwise.rules.app.cli import main

#: production-stack values that serve a model at TP2 on one GPU
VLLM_VALUES = """\
servingEngineSpec:
  modelSpec:
    - name: llama
      repository: vllm/vllm-openai
      tag: v0.8.5
      modelURL: meta-llama/Llama-3.1-8B-Instruct
      requestGPU: 1
      vllmConfig:
        tensorParallelSize: 2
"""
NOT_READ = ("but a Helm values file is read only with its chart, so none of the workloads it configures was linted; "
            "to lint them: ")
SKIP_HELMFILE = "helmfile state file (its releases' values files are read as Helm values; not a Kubernetes object)"


def lint(capsys, monkeypatch, where, *argv: str) -> tuple[int, dict]:
    monkeypatch.chdir(where)
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def sw005(doc: dict) -> list[tuple[str, int | None, str]]:
    return [(f["file"], f["line"], f["message"]) for f in doc["findings"] if f["code"] == "SW005"]


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_helmfile_release_values_file_of_any_name_is_helm_values(capsys, monkeypatch, tmp_path):
    """custom.yaml, named by the release, is an SW005 record as values-prod.yaml is; other.yaml, the same text named
    by nothing, stays what its content says it is."""
    write(tmp_path, {"helmfile.yaml": "repositories:\n  - name: vllm\n    url: https://vllm-project.github.io/"
                                      "production-stack\nreleases:\n  - name: vllm\n    namespace: llm\n"
                                      "    chart: vllm/vllm-stack\n    version: 0.1.5\n    values:\n"
                                      "      - custom.yaml\n      - replicaCount: 1\n",
                     "custom.yaml": VLLM_VALUES, "other.yaml": VLLM_VALUES})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert rc == 0
    assert sw005(doc) == [(
        "custom.yaml", 4, "SW005: not read: it configures vLLM (`repository: vllm/vllm-openai` at line 4); "
        f"helmfile.yaml's release `vllm` names it among its values files, {NOT_READ}helm template vllm "
        "vllm/vllm-stack -f custom.yaml | shardwise lint - (or: helmfile template | shardwise lint -)")]
    assert [(s["file"], s["reason"]) for s in doc["skipped_files"]] == [
        ("custom.yaml", "Helm values"), ("helmfile.yaml", SKIP_HELMFILE),
        ("other.yaml", "YAML that is not a Kubernetes object")]


HELMFILE_ENVS = """\
environments:
  default:
    values:
      - env/default.yaml
  prod:
    values:
      - env/prod.yaml
---
releases:
  - name: llm
    namespace: inference
    chart: ./charts/serving
    {{- if eq .Environment.Name "prod" }}
    installed: true
    {{- end }}
    values:
      - values/common.yaml
      - values/{{ .Environment.Name }}/llm.yaml
      - {{ requiredEnv "TEAM" }}/llm.yaml
"""


def test_a_helmfile_with_environments_reads_each_environment_path_and_says_a_template_is_unknown(
        capsys, monkeypatch, tmp_path):
    """`{{ .Environment.Name }}` is read for each environment declared (prod's file serves vLLM, default's does not);
    `{{ requiredEnv "TEAM" }}` is filled in when helmfile runs: an SW005 record at the release's values says it is
    unknown, and each file it may be (team-a/llm.yaml) is read as values. Template lines are no input error, and the
    environment values (env/*.yaml, helmfile's own) are not the chart's."""
    write(tmp_path, {"helmfile.yaml": HELMFILE_ENVS, "env/prod.yaml": VLLM_VALUES, "env/default.yaml": "x: 1\n",
                     "values/common.yaml": "servingEngineSpec:\n  runtimeClassName: nvidia\n",
                     "values/prod/llm.yaml": VLLM_VALUES, "values/default/llm.yaml": "replicas: 1\n",
                     "team-a/llm.yaml": VLLM_VALUES})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert (rc, doc["input_errors"]) == (0, [])
    how = "-f {} | shardwise lint - (or: helmfile template | shardwise lint -)"
    assert sw005(doc) == [
        ("helmfile.yaml", 16, "SW005: not read: its values file `{{ requiredEnv \"TEAM\" }}/llm.yaml` holds a "
         "template helmfile fills in when it runs ({{ requiredEnv \"TEAM\" }}): which file it is is unknown here, "
         "and each file it may be was read as a Helm values file (team-a/llm.yaml); to lint the release: helmfile "
         "template | shardwise lint -"),
        ("team-a/llm.yaml", 4, "SW005: not read: it configures vLLM (`repository: vllm/vllm-openai` at line 4); "
         "helmfile.yaml's release `llm` may name it among its values files (`{{ requiredEnv \"TEAM\" }}/llm.yaml`, "
         f"a path helmfile fills in), {NOT_READ}helm template llm ./charts/serving "
         + how.format("team-a/llm.yaml")),
        ("values/prod/llm.yaml", 4, "SW005: not read: it configures vLLM (`repository: vllm/vllm-openai` at line "
         f"4); helmfile.yaml's release `llm` names it among its values files, {NOT_READ}helm template llm "
         "./charts/serving " + how.format("values/prod/llm.yaml"))]
    reasons = {s["file"]: s["reason"] for s in doc["skipped_files"]}
    assert (reasons["env/prod.yaml"], reasons["values/default/llm.yaml"], reasons["helmfile.yaml"]) == (
        "YAML that is not a Kubernetes object", "Helm values", SKIP_HELMFILE)


def test_a_templated_path_of_a_release_that_names_no_vllm_is_no_record(capsys, monkeypatch, tmp_path):
    """The unknown path of a release whose chart and files say nothing of vLLM (cert-manager) is no SW005 record."""
    write(tmp_path, {"helmfile.d/10-certs.yaml": "releases:\n  - name: cert-manager\n    chart: jetstack/cert-manager"
                                                 "\n    values:\n      - \"{{ .Values.dir }}/certs.yaml\"\n",
                     "prod/certs.yaml": "installCRDs: true\n"})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert (rc, sw005(doc)) == (0, [])
    assert [(s["file"], s["reason"]) for s in doc["skipped_files"]] == [
        ("helmfile.d/10-certs.yaml", SKIP_HELMFILE), ("prod/certs.yaml", "YAML that is not a Kubernetes object")]


ARGO_MULTI = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vllm
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: llm
  sources:
    - repoURL: https://vllm-project.github.io/production-stack
      chart: vllm-stack
      targetRevision: 0.1.5
      helm:
        valueFiles:
          - $values/envs/prod/custom.yaml
    - repoURL: https://github.com/acme/gitops.git
      targetRevision: main
      ref: values
"""


def test_an_argo_cd_multi_source_values_ref_names_its_file_as_values(capsys, monkeypatch, tmp_path):
    """The chart comes from a Helm repository (not rendered: not fetched); `$values/envs/prod/custom.yaml` is a file
    of this checkout through the `ref: values` source: an SW005 record of its own, naming the Application."""
    write(tmp_path, {"apps/vllm.yaml": ARGO_MULTI, "envs/prod/custom.yaml": VLLM_VALUES})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert rc == 0
    assert ("envs/prod/custom.yaml", 4, "SW005: not read: it configures vLLM (`repository: vllm/vllm-openai` at "
            "line 4); Application argocd/vllm (apps/vllm.yaml) names it in helm.valueFiles "
            f"(`$values/envs/prod/custom.yaml`), {NOT_READ}helm template RELEASE vllm-stack -f "
            "envs/prod/custom.yaml | shardwise lint -") in sw005(doc)
    assert {s["file"]: s["reason"] for s in doc["skipped_files"]}["envs/prod/custom.yaml"] == "Helm values"


FLUX = """\
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: platform
  namespace: flux-system
spec:
  url: https://github.com/acme/platform
  ref:
    branch: main
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: llm
  namespace: inference
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/serving
      sourceRef:
        kind: GitRepository
        name: platform
        namespace: flux-system
      valuesFiles:
        - charts/serving/values.yaml
        - clusters/prod/llm-prod.yaml
"""


def test_a_flux_helmrelease_values_files_are_values(capsys, monkeypatch, tmp_path):
    write(tmp_path, {"clusters/prod/release.yaml": FLUX, "clusters/prod/llm-prod.yaml": VLLM_VALUES})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert rc == 0
    assert ("clusters/prod/llm-prod.yaml", 4, "SW005: not read: it configures vLLM (`repository: "
            "vllm/vllm-openai` at line 4); HelmRelease inference/llm (clusters/prod/release.yaml) names it in "
            f"spec.chart.spec.valuesFiles (`clusters/prod/llm-prod.yaml`), {NOT_READ}helm template RELEASE "
            "./charts/serving -f clusters/prod/llm-prod.yaml | shardwise lint -") in sw005(doc)


@pytest.mark.parametrize("name", ["helmfile.yaml", "helmfile.yml", "helmfile.d/00-llm.yaml"])
def test_a_helmfile_is_skipped_by_name(capsys, monkeypatch, tmp_path, name):
    write(tmp_path, {name: "{{ readFile \"bases.yaml\" }}\nreleases: []\n"})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (0, [], [{"file": name, "reason": SKIP_HELMFILE}])


def test_a_flux_helmrelease_of_a_helm_repository_names_no_file_of_the_checkout(capsys, monkeypatch, tmp_path):
    """Of a HelmRepository chart, valuesFiles are files of the chart's package: the checkout's file of that path is
    not taken for them."""
    release = FLUX.replace("kind: GitRepository\n        name", "kind: HelmRepository\n        name")
    write(tmp_path, {"clusters/prod/release.yaml": release,
                     "clusters/prod/llm-prod.yaml": VLLM_VALUES})
    rc, doc = lint(capsys, monkeypatch, tmp_path, ".")
    assert {s["file"]: s["reason"] for s in doc["skipped_files"]}["clusters/prod/llm-prod.yaml"] == (
        "YAML that is not a Kubernetes object")
    assert [f for f in sw005(doc) if f[0] == "clusters/prod/llm-prod.yaml"] == []


def test_a_values_file_a_gitops_render_read_with_its_chart_is_no_record(capsys, monkeypatch, tmp_path):
    """An Application of this checkout (origin matches) renders its chart with `$values/envs/prod/custom.yaml`: the
    file was judged with its chart, so it is no SW005 record (a helm on PATH that writes one ConfigMap stands for
    helm); the same file named by an Application of another repository is one."""
    import os
    import subprocess

    root = tmp_path / "repo"
    app = ARGO_MULTI.replace("repoURL: https://vllm-project.github.io/production-stack\n      chart: vllm-stack\n"
                             "      targetRevision: 0.1.5", "repoURL: https://github.com/acme/gitops.git\n"
                             "      path: charts/serving\n      targetRevision: main")
    write(root, {"apps/vllm.yaml": app, "envs/prod/custom.yaml": VLLM_VALUES,
                 "charts/serving/Chart.yaml": "apiVersion: v2\nname: serving\nversion: 0.1.0\n",
                 "charts/serving/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"})
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/gitops.git"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "helm").write_text("#!/bin/sh\necho 'apiVersion: v1'; echo 'kind: ConfigMap'; "
                                           "echo 'metadata: {name: x}'\n")
    (tmp_path / "bin" / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")
    rc, doc = lint(capsys, monkeypatch, root, ".")
    assert (rc, doc["input_errors"], [f for f in sw005(doc) if f[0] == "envs/prod/custom.yaml"]) == (0, [], [])
    subprocess.run(["git", "remote", "set-url", "origin", "https://github.com/acme/other.git"], cwd=root, check=True)
    rc, doc = lint(capsys, monkeypatch, root, ".")
    assert [f[:2] for f in sw005(doc) if f[0] == "envs/prod/custom.yaml"] == [("envs/prod/custom.yaml", 4)]
