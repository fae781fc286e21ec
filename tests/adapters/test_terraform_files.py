"""Terraform files (``*.tf``) are not read as HCL, but never passed over unseen (corpus13): a searched folder takes
them and skips each with its reason, which says when the file starts a vLLM server (a ``kubernetes_deployment`` of
the vLLM image, in the shape of kweinmeister/vllm-gke-terraform) whose workload is then not linted."""

from __future__ import annotations

import os

from repo_paths import FIXTURES
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.load import TERRAFORM, load_text

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
