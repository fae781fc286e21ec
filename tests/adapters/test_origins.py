"""kustomize's build annotations, read and removed (newuser16, rules/adapters/origins.py).

The repository here is written for these tests in the shape of a service's: a base with a Service and a vLLM
Deployment in one file, a prod overlay with a strategic-merge patch of the args. The tests marked ``tools`` pin what
kustomize (scripts/build-tools.sh) writes, which the module's design rests on.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from shardwise.rules.adapters.origins import DocOrigin, strip_build_metadata
from tools_support import require_tool

BASE = """\
apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  ports:
  - port: 8000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  annotations:
    team: serving
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.0
        args: ["--model", "x", "--tensor-parallel-size", "1"]
"""

PATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
      - name: vllm
        args: ["--model", "x", "--tensor-parallel-size", "2"]
"""

BUILT = """\
apiVersion: v1
kind: Service
metadata:
  annotations:
    alpha.config.kubernetes.io/transformations: |
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
    config.kubernetes.io/origin: |
      path: ../repo/base/deploy.yaml
  name: vllm
spec:
  ports:
  - port: 8000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    alpha.config.kubernetes.io/transformations: |
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
    config.kubernetes.io/origin: |
      path: ../repo/base/deploy.yaml
    team: serving
  name: vllm
spec:
  replicas: 1
  template:
    spec:
      containers:
      - args:
        - --model
        - x
        - --tensor-parallel-size
        - "2"
        image: vllm/vllm-openai:v0.6.0
        name: vllm
"""

STRIPPED = """\
apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  ports:
  - port: 8000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    team: serving
  name: vllm
spec:
  replicas: 1
  template:
    spec:
      containers:
      - args:
        - --model
        - x
        - --tensor-parallel-size
        - "2"
        image: vllm/vllm-openai:v0.6.0
        name: vllm
"""

PROD = ("../repo/overlays/prod/kustomization.yaml",)


def test_the_build_annotations_are_removed_and_each_document_says_its_origin():
    text, origins = strip_build_metadata(BUILT)
    assert text == STRIPPED
    assert origins == [DocOrigin(1, 7, "../repo/base/deploy.yaml", configured_in=PROD),
                       DocOrigin(9, 26, "../repo/base/deploy.yaml", configured_in=PROD)]


def test_a_remote_base_names_its_repository_and_ref():
    built = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n"
             "      path: examples/cm.yaml\n      repo: https://github.com/acme/x\n      ref: v1.2.0\n  name: cm\n")
    text, origins = strip_build_metadata(built)
    assert text == "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
    assert origins == [DocOrigin(1, 4, "examples/cm.yaml", "https://github.com/acme/x", "v1.2.0")]


def test_an_annotation_of_the_same_name_elsewhere_is_kept():
    """Only metadata's own annotations are the build's: a pod template's are the user's."""
    built = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    metadata:\n"
             "      annotations:\n        config.kubernetes.io/origin: x\n")
    text, origins = strip_build_metadata(built)
    assert text == built
    assert origins == [DocOrigin(1, 9)]


def test_a_generated_object_names_the_kustomization_of_its_generator():
    built = ("apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  annotations:\n"
             "    config.kubernetes.io/origin: |\n      configuredIn: ../repo/overlays/prod/kustomization.yaml\n"
             "      configuredBy:\n        apiVersion: builtin\n        kind: ConfigMapGenerator\n"
             "  name: cfg-4h2mbtbbt6\n")
    text, origins = strip_build_metadata(built)
    assert text == "apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  name: cfg-4h2mbtbbt6\n"
    assert origins == [DocOrigin(1, 6, generated_in="../repo/overlays/prod/kustomization.yaml")]


@pytest.fixture()
def repo(tmp_path):
    """The base and prod overlay, and a folder beside them that wraps the overlay with ``buildMetadata``."""
    (tmp_path / "repo" / "base").mkdir(parents=True)
    (tmp_path / "repo" / "overlays" / "prod").mkdir(parents=True)
    (tmp_path / "wrap").mkdir()
    (tmp_path / "repo" / "base" / "kustomization.yaml").write_text("resources:\n- deploy.yaml\n")
    (tmp_path / "repo" / "base" / "deploy.yaml").write_text(BASE)
    (tmp_path / "repo" / "overlays" / "prod" / "kustomization.yaml").write_text(
        "resources:\n- ../../base\npatches:\n- path: args.yaml\n")
    (tmp_path / "repo" / "overlays" / "prod" / "args.yaml").write_text(PATCH)
    return tmp_path


def _build(kustomize: str, folder: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([kustomize, "build", "--load-restrictor=LoadRestrictionsRootOnly", folder],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.tools
def test_kustomize_annotates_a_wrapped_overlay_and_stripped_its_output_is_the_plain_build(repo):
    kustomize = require_tool("kustomize")
    wrap = repo / "wrap" / "kustomization.yaml"
    wrap.write_text("resources:\n- ../repo/overlays/prod\nbuildMetadata: [originAnnotations, transformerAnnotations]\n")
    built = _build(kustomize, str(repo / "wrap"))
    assert built.returncode == 0, built.stderr
    assert built.stdout == BUILT
    plain = _build(kustomize, str(repo / "repo" / "overlays" / "prod"))
    assert strip_build_metadata(built.stdout)[0] == plain.stdout


@pytest.mark.tools
def test_kustomize_refuses_an_absolute_path_to_the_overlay(repo):
    kustomize = require_tool("kustomize")
    overlay = os.path.join(str(repo), "repo", "overlays", "prod")
    (repo / "wrap" / "kustomization.yaml").write_text(f"resources:\n- {overlay}\nbuildMetadata: [originAnnotations]\n")
    built = _build(kustomize, str(repo / "wrap"))
    assert built.returncode == 1
    assert "cannot be absolute" in built.stderr
