"""Terraform files (``*.tf``) are not read as HCL, but never passed over unseen (corpus13): a searched folder takes
them and skips each with its reason, which says when the file starts a vLLM server (a ``kubernetes_deployment`` of
the vLLM image, in the shape of kweinmeister/vllm-gke-terraform) whose workload is then not linted."""

from __future__ import annotations

import os

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.load import TERRAFORM, load_text
from shardwise.rules.adapters.select import (
    TERRAFORM_TEMPLATE,
    TERRAFORM_TEMPLATE_UNREAD,
    Excludes,
    terraform_defaults,
    terraform_template_paths,
)

DIR = os.path.join(FIXTURES, "inputs", "terraform")
STARTS = ("Terraform configuration that starts vLLM (`vllm/vllm-openai` at line 18): shardwise reads no HCL, so that "
          "server is not linted; a Kubernetes object it declares can be (write it as YAML, or `kubectl get -o yaml` "
          "once applied), a server it starts on a virtual machine cannot")


def test_a_searched_folder_skips_terraform_files_and_says_which_starts_vllm():
    inv = read_inputs([DIR], jobs=1)
    assert inv.groups == [] and inv.errors == [] and inv.launch_issues == []
    assert sorted((os.path.basename(f), why) for f, why in inv.skipped_files) == [
        ("gke.tf", TERRAFORM), ("kubernetes.tf", STARTS)]


def test_a_terraform_file_named_is_skipped_too_not_an_input_error():
    with open(os.path.join(DIR, "kubernetes.tf"), encoding="utf-8") as fh:
        inv = load_text(fh.read(), "kubernetes.tf")
    assert inv.errors == [] and inv.groups == []
    assert inv.skipped_files == [("kubernetes.tf", STARTS)]


def test_a_comment_that_names_the_vllm_image_is_no_server():
    text = '# deploys vllm/vllm-openai with the chart below\nresource "helm_release" "x" {\n  chart = "./chart"\n}\n'
    assert load_text(text, "helm.tf").skipped_files == [("helm.tf", TERRAFORM)]


# corpus31 (shapes written here): brokedba/vllm-lab's vllm-production-stack.tf installs production-stack's chart
# with values Terraform renders from a .tpl; sarvamai/uidai-deployment's models/*.tf declare kubernetes_deployment_v1
# containers of the team's vLLM builds, whose entrypoint starts the server from MODEL1/PORT1 env. Both were skipped
# as plain "Terraform configuration (HCL is not read)", as if they deployed nothing of vLLM.
HELM_RELEASE = '''resource "helm_release" "vllm_stack" {
  count      = var.enable_vllm ? 1 : 0
  name       = "vllm-${var.inference_hardware}"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  values     = [data.template_file.vllm_values[0].rendered]
}
'''
DEPLOYMENT_V1 = '''resource "kubernetes_deployment_v1" "vllm_guard" {
  spec {
    template {
      spec {
        container {
          name  = "vllm-guard"
          image = "${var.docker_registry_name}/inference/llm/vllm-release-guard:0.5.2"
          env {
            name  = "MODEL1"
            value = "/workspace/meta-llama/Llama-Guard-3-8B"
          }
        }
      }
    }
  }
}
'''


def test_a_helm_release_of_vllms_chart_says_the_chart_is_not_linted():
    reason = load_text(HELM_RELEASE, "stack.tf").skipped_files[0][1]
    assert reason == ("Terraform configuration that installs vLLM's Helm chart `vllm-stack` (line 5): shardwise "
                      "reads no HCL, so the servers that chart runs are not linted; lint the chart rendered with the "
                      "release's values (helm template, with the values it sets, piped to shardwise lint -)")
    oci = HELM_RELEASE.replace('"vllm-stack"', '"oci://ghcr.io/acme/charts/vllm"')
    assert "installs vLLM's Helm chart `oci://ghcr.io/acme/charts/vllm` (line 5)" in load_text(
        oci, "stack.tf").skipped_files[0][1]


def test_a_container_of_an_image_named_for_vllm_says_its_workload_is_not_linted():
    reason = load_text(DEPLOYMENT_V1, "guard.tf").skipped_files[0][1]
    assert reason == ("Terraform configuration that runs an image named for vLLM (`${var.docker_registry_name}/"
                      "inference/llm/vllm-release-guard:0.5.2` at line 7): shardwise reads no HCL, so that workload "
                      "is not linted; write the Kubernetes object it declares as YAML (or `kubectl get -o yaml` once "
                      "applied) to lint it")


def test_other_charts_images_and_comments_are_plain_terraform():
    for text in (HELM_RELEASE.replace('"vllm-stack"', '"vllm-router"'),
                 HELM_RELEASE.replace('  chart      = "vllm-stack"', '  # chart    = "vllm-stack"'),
                 DEPLOYMENT_V1.replace("vllm-release-guard", "guard"),
                 DEPLOYMENT_V1.replace('"${var.docker_registry_name}/inference/llm/vllm-release-guard:0.5.2"',
                                       '"${var.vllm_image}"')):
        assert load_text(text, "x.tf").skipped_files == [("x.tf", TERRAFORM)]


# corpus44: a KAITO Workspace declared as a kubectl_manifest heredoc (paolosalvatori/aks-kaito-terraform's
# workspace.tf, cmendible/kaito-rag's modules/kaito/main.tf with the preset from a variable), and the same object as
# a kubernetes_manifest HCL map. KAITO runs an inference preset with vLLM unless kaito.sh/runtime says transformers.
KAITO_TF = '''resource "kubectl_manifest" "kaito_workspace" {
  count = var.kaito_enabled ? 1 : 0

  yaml_body = <<-EOF
    apiVersion: kaito.sh/v1alpha1
    kind: Workspace
    metadata:
      name: workspace-falcon-7b-instruct
      namespace: ${var.namespace}
      annotations:
        kaito.sh/enablelb: "False"
    resource:
      count: 1
      instanceType: "${var.instance_type}"
      labelSelector:
        matchLabels:
          apps: falcon-7b-instruct
    inference:
      preset:
        name: "falcon-7b-instruct"
    EOF
}
'''
KAITO_HCL = '''resource "kubernetes_manifest" "workspace" {
  manifest = {
    apiVersion = "kaito.sh/v1beta1"
    kind       = "Workspace"
    metadata   = { name = "phi", namespace = "default" }
    resource   = { instanceType = "Standard_NC24ads_A100_v4" }
    inference = {
      preset = {
        name = var.kaito_ai_model
      }
    }
  }
}
'''


def test_a_kaito_workspace_declared_in_terraform_says_kaito_runs_it_with_vllm():
    reason = load_text(KAITO_TF, "workspace.tf").skipped_files[0][1]
    assert reason == ("Terraform configuration that declares a KAITO Workspace (`kaito.sh` at line 5) whose inference "
                      "preset 'falcon-7b-instruct' KAITO runs with vLLM, its default runtime: shardwise reads no HCL, "
                      "so that server is not linted; write the Workspace as YAML (or `kubectl get workspace -o yaml` "
                      "once applied) to lint it, and lint the pod KAITO renders (kubectl get pod -o yaml) to check "
                      "the layout")
    from_variable = KAITO_TF.replace('name: "falcon-7b-instruct"', 'name: "${var.kaito_ai_model}"')
    assert ("whose inference preset `${var.kaito_ai_model}`, a value Terraform fills, KAITO runs with vLLM"
            in load_text(from_variable, "main.tf").skipped_files[0][1])
    assert ("declares a KAITO Workspace (`kaito.sh` at line 3) whose inference preset `var.kaito_ai_model`, a value "
            "Terraform fills, KAITO runs" in load_text(KAITO_HCL, "main.tf").skipped_files[0][1])


def test_a_kaito_workspace_on_transformers_for_tuning_or_in_a_comment_is_plain_terraform():
    transformers = KAITO_TF.replace('kaito.sh/enablelb: "False"', "kaito.sh/runtime: transformers")
    tuning = KAITO_TF.replace("    inference:\n      preset:", "    tuning:\n      preset:")
    commented = "\n".join("# " + line for line in KAITO_TF.splitlines())
    other = KAITO_TF.replace("kaito.sh/v1alpha1", "example.com/v1")
    for text in (transformers, tuning, commented, other):
        assert load_text(text, "x.tf").skipped_files == [("x.tf", TERRAFORM)]


# corpus31: ai-on-gke/common-infra's modules/kuberay-cluster (no licence; shape written here) passes its values.yaml
# through templatefile to a helm_release; the file holds Terraform's ${indent(4, ...)} and %{ if } lines, which are
# not YAML until Terraform renders them, and the repository's lint exited 2 on "cannot parse YAML".
MODULE_TF = '''resource "helm_release" "ray_cluster" {
  name  = var.name
  chart = "ray-cluster"
  values = [
    templatefile("${path.module}/values.yaml", {
      additional_labels   = var.additional_labels
      k8s_service_account = var.k8s_service_account
      enable_gpu          = var.enable_gpu
    })
  ]
}

data "template_file" "monitoring" {
  template = file("${path.module}/config/monitoring.yaml")
}
'''
RAY_VALUES = '''head:
  labels:
    cloud.google.com/gke-ray-node-type: head
    ${indent(4, chomp(yamlencode(additional_labels)))}
  serviceAccountName: ${k8s_service_account}
worker:
%{ if enable_gpu ~}
  resources:
    limits:
      nvidia.com/gpu: 1
%{ endif ~}
'''


def _module(tmp_path, tf: str = MODULE_TF) -> None:
    (tmp_path / "main.tf").write_text(tf)
    (tmp_path / "values.yaml").write_text(RAY_VALUES)
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config/monitoring.yaml").write_text(RAY_VALUES)


def test_a_yaml_file_terraform_renders_with_templatefile_is_a_template_when_searched(tmp_path):
    _module(tmp_path)
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert inv.errors == [] and inv.groups == []
    assert sorted((os.path.relpath(f, tmp_path), why) for f, why in inv.skipped_files) == [
        ("config/monitoring.yaml", TERRAFORM_TEMPLATE), ("main.tf", TERRAFORM), ("values.yaml", TERRAFORM_TEMPLATE)]


def test_the_same_template_named_or_rendered_by_no_terraform_file_is_read(tmp_path):
    _module(tmp_path, MODULE_TF.replace("templatefile(", "# templatefile(").replace("template = file(", "# t("))
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert sorted(os.path.relpath(e.file, tmp_path) for e in inv.errors) == ["config/monitoring.yaml", "values.yaml"]
    _module(tmp_path)
    inv = read_inputs([str(tmp_path / "values.yaml")], jobs=1)
    assert [(os.path.basename(e.file), e.line) for e in inv.errors] == [("values.yaml", 5)]


# mend4 (shape written here): brokedba/vllm-lab renders production-stack's values from a `.tpl` beside the .tf
# (vllm-values.tpl, no YAML suffix), which no search takes: the release was said (above) but its values, where the
# model and the vLLM flags are, passed without a word. A rendered file the search does not take and that mentions
# vLLM is now said as not read, at the first line that does.
STACK_TF = '''data "template_file" "vllm_values" {
  count    = var.enable_vllm ? 1 : 0
  template = file("${path.module}/config/vllm-values.tpl")
  vars = {
    model_name = var.model_name
  }
}

resource "helm_release" "vllm_stack" {
  name       = "vllm"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  values     = [data.template_file.vllm_values[0].rendered]
}

resource "helm_release" "router_values" {
  name   = "router"
  chart  = "./router"
  values = [templatefile("router-values.tftpl", { replicas = var.replicas })]
}
'''
VLLM_VALUES_TPL = '''servingEngineSpec:
  runtimeClassName: ""
  modelSpec:
  - name: "${model_name}"
    repository: "vllm/vllm-openai"
    tag: "v0.10.0"
    modelURL: "${model_name}"
    vllmConfig:
      maxModelLen: 4096
      extraArgs: ["--gpu-memory-utilization", "0.99"]
'''


def _stack(tmp_path, tf: str = STACK_TF) -> None:
    (tmp_path / "vllm-production-stack.tf").write_text(tf)
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config/vllm-values.tpl").write_text(VLLM_VALUES_TPL)
    (tmp_path / "router-values.tftpl").write_text("replicaCount: ${replicas}\n")


def test_a_template_no_search_takes_that_mentions_vllm_is_said_not_read(tmp_path):
    _stack(tmp_path)
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert inv.errors == [] and inv.groups == []
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    assert sorted(skipped) == ["config/vllm-values.tpl", "vllm-production-stack.tf"]  # the router's: no vLLM
    assert skipped["config/vllm-values.tpl"] == TERRAFORM_TEMPLATE_UNREAD.format(
        word='repository: "vllm/vllm-openai"', line=5)
    assert skipped["config/vllm-values.tpl"] == (
        "Terraform template that mentions vLLM (`repository: \"vllm/vllm-openai\"` at line 5), not read: a "
        "Terraform file of the inputs renders it with templatefile (the values of a helm_release, or a manifest), "
        "and shardwise reads no template; lint what Terraform renders")


@pytest.mark.parametrize("where", ["${path.root}/", "${path.cwd}/"])
def test_a_template_under_the_root_modules_path_is_said_not_read_too(tmp_path, where):
    # review29: a root module names its folder ${path.root} (or runs from it: ${path.cwd}); the same .tpl passed
    # without a word where the .tf wrote that instead of ${path.module}
    _stack(tmp_path, STACK_TF.replace("${path.module}/", where))
    inv = read_inputs([str(tmp_path)], jobs=1)
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    assert sorted(skipped) == ["config/vllm-values.tpl", "vllm-production-stack.tf"]
    assert skipped["config/vllm-values.tpl"] == TERRAFORM_TEMPLATE_UNREAD.format(
        word='repository: "vllm/vllm-openai"', line=5)


def test_a_template_named_in_a_comment_excluded_or_absent_is_not_said(tmp_path):
    _stack(tmp_path, STACK_TF.replace('  template = file(', '  # template = file('))
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [os.path.relpath(f, tmp_path) for f, _ in inv.skipped_files] == ["vllm-production-stack.tf"]
    _stack(tmp_path)
    inv = read_inputs([str(tmp_path)], jobs=1, excludes=Excludes.from_lines(["*.tpl"], str(tmp_path)))
    assert [os.path.relpath(f, tmp_path) for f, _ in inv.skipped_files] == ["vllm-production-stack.tf"]
    os.remove(tmp_path / "config/vllm-values.tpl")  # not there (a module's caller passes it): Terraform says so
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [os.path.relpath(f, tmp_path) for f, _ in inv.skipped_files] == ["vllm-production-stack.tf"]


# corpus43 (CloudThrill's vllm-production-stack-terraform, the EKS/GKE/AKS/Nebius stacks): the values template's
# path is a variable's default (`variables.tf`), written as `"${path.module}/${var.gpu_vllm_helm_config}"`, and on
# EKS inside a conditional over the hardware that spans lines; the literal-path reading took neither, so the .tpl
# where the model and the vLLM flags are passed without a word.
VARS_STACK_TF = '''data "template_file" "vllm_values" {
  count = var.enable_vllm ? 1 : 0
  template = file(
  var.inference_hardware == "gpu"
  ? "${path.module}/${var.gpu_vllm_helm_config}"
  : "${path.module}/${var.cpu_vllm_helm_config}"  # the CPU profile
)
  vars = {
  }
}

resource "helm_release" "vllm_stack" {
  name       = "vllm-${var.inference_hardware}"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  values     = [data.template_file.vllm_values[0].rendered]
}
'''
VARS_TF = '''variable "inference_hardware" {
  type    = string
  default = "cpu"
}

variable "cpu_vllm_helm_config" {
  description = "Path to the Helm chart values template for CPU inference."
  type        = string
  default     = "modules/llm-stack/helm/cpu/cpu-values.tpl"
}

variable "gpu_vllm_helm_config" {
  description = "Path to the Helm chart values template for GPU inference."
  type        = string
  default     = "modules/llm-stack/helm/gpu/gpu-values.tpl"
}

variable "unused_config" {
  type    = string
  default = "modules/llm-stack/helm/gpu/other-values.tpl"
}
'''
CPU_VALUES_TPL = VLLM_VALUES_TPL.replace('"vllm/vllm-openai"', '"public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo"')


def _var_stack(tmp_path, tf: str = VARS_STACK_TF, variables: str = VARS_TF) -> None:
    (tmp_path / "vllm-production-stack.tf").write_text(tf)
    (tmp_path / "variables.tf").write_text(variables)
    for hw, text in (("gpu", VLLM_VALUES_TPL), ("cpu", CPU_VALUES_TPL)):
        (tmp_path / f"modules/llm-stack/helm/{hw}").mkdir(parents=True, exist_ok=True)
        (tmp_path / f"modules/llm-stack/helm/{hw}/{hw}-values.tpl").write_text(text)
    (tmp_path / "modules/llm-stack/helm/gpu/other-values.tpl").write_text(VLLM_VALUES_TPL)


def test_a_template_named_by_a_variables_default_is_said_not_read(tmp_path):
    _var_stack(tmp_path)
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert inv.errors == [] and inv.groups == []
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    # both branches of the conditional; the template no call names (other-values.tpl) is not said
    assert sorted(skipped) == ["modules/llm-stack/helm/cpu/cpu-values.tpl", "modules/llm-stack/helm/gpu/gpu-values.tpl",
                               "variables.tf", "vllm-production-stack.tf"]
    assert skipped["modules/llm-stack/helm/gpu/gpu-values.tpl"] == TERRAFORM_TEMPLATE_UNREAD.format(
        word='repository: "vllm/vllm-openai"', line=5)
    assert skipped["modules/llm-stack/helm/cpu/cpu-values.tpl"] == TERRAFORM_TEMPLATE_UNREAD.format(
        word='repository: "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo"', line=5)


def test_a_templatefile_on_one_line_through_a_variable_is_said_not_read(tmp_path):
    # the GKE/AKS/Nebius stacks' form: one path, the variable's default in another file of the folder
    one = VARS_STACK_TF.replace('''file(
  var.inference_hardware == "gpu"
  ? "${path.module}/${var.gpu_vllm_helm_config}"
  : "${path.module}/${var.cpu_vllm_helm_config}"  # the CPU profile
)''', 'file( "${path.module}/${var.gpu_vllm_helm_config}" )  # Concatenate path.module and the variable')
    _var_stack(tmp_path, one)
    inv = read_inputs([str(tmp_path)], jobs=1)
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    assert sorted(skipped) == ["modules/llm-stack/helm/gpu/gpu-values.tpl", "variables.tf",
                               "vllm-production-stack.tf"]


def test_a_variable_without_a_literal_default_or_a_commented_call_names_no_template(tmp_path):
    no_default = VARS_TF.replace('  default     = "modules/llm-stack/helm/gpu/gpu-values.tpl"\n', "")
    _var_stack(tmp_path, variables=no_default)
    inv = read_inputs([str(tmp_path)], jobs=1)
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    assert sorted(skipped) == ["modules/llm-stack/helm/cpu/cpu-values.tpl", "variables.tf",
                               "vllm-production-stack.tf"]  # gpu: the caller passes it, not known here
    commented = "\n".join("# " + line for line in VARS_STACK_TF.splitlines()[:10]) + "\n" + \
        "\n".join(VARS_STACK_TF.splitlines()[10:]) + "\n"
    _var_stack(tmp_path, commented)
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert sorted(os.path.relpath(f, tmp_path) for f, _ in inv.skipped_files) == [
        "variables.tf", "vllm-production-stack.tf"]


def test_a_path_among_the_templates_variables_is_no_template(tmp_path):
    # only the call's first argument names what it renders: a path passed in its variables map (a script the
    # rendered values mount) is read by no templatefile, and is not said as one
    tf = '''resource "helm_release" "vllm" {
  name   = "vllm"
  chart  = "vllm-stack"
  values = [templatefile("${path.module}/${var.gpu_vllm_helm_config}", {
    init_script = file("${path.module}/scripts/vllm-init.sh"),
    extra       = "${path.module}/scripts/vllm-extra.${var.script_suffix}"
  })]
}
'''
    _var_stack(tmp_path, tf)
    (tmp_path / "scripts").mkdir()
    for name in ("vllm-init.sh", "vllm-extra.sh", "vllm-extra.tpl"):
        (tmp_path / "scripts" / name).write_text("vllm serve facebook/opt-125m --max-model-len 2048\n")
    inv = read_inputs([str(tmp_path)], jobs=1)
    skipped = {os.path.relpath(f, tmp_path): why for f, why in inv.skipped_files}
    assert "modules/llm-stack/helm/gpu/gpu-values.tpl" in skipped
    assert not any(k.startswith("scripts/") and "Terraform template" in v for k, v in skipped.items())
    defaults = terraform_defaults(VARS_TF + 'variable "script_suffix" {\n  default = "tpl"\n}\n')
    assert terraform_template_paths(tf, defaults) == ["modules/llm-stack/helm/gpu/gpu-values.tpl"]
    # a literal path in a conditional over lines is taken, as one through a variable is
    cond = VARS_STACK_TF.replace("${var.cpu_vllm_helm_config}", "modules/llm-stack/helm/cpu/cpu-values.tpl")
    assert terraform_template_paths(cond, defaults) == ["modules/llm-stack/helm/gpu/gpu-values.tpl",
                                                       "modules/llm-stack/helm/cpu/cpu-values.tpl"]
