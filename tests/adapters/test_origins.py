"""kustomize's build annotations, read and removed (newuser16, rules/adapters/origins.py).

The repository here is written for these tests in the shape of a service's: a base with a Service and a vLLM
Deployment in one file, a prod overlay with a strategic-merge patch of the args. The tests marked ``tools`` pin what
kustomize (scripts/build-tools.sh) writes, which the module's design rests on.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from shardwise.rules.adapters.generated import _matches
from shardwise.rules.adapters.origins import DocOrigin, kustomize_selects, place_build, strip_build_metadata
from shardwise.rules.app.cli import main
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


# ------------------------------------------------------------------------------ placing (newuser17)
#
# A platform repository's overlay in the shapes real ones have: a base Deployment whose args are a block list, a
# prod overlay with a namespace, a namePrefix, a strategic-merge patch file that sets --tensor-parallel-size, an inline
# JSON 6902 patch of the replicas and the GPU count, a configMapGenerator, and a component that adds a Service.

TREE = {
    "base/kustomization.yaml": """\
resources:
  - deployment.yaml
""",
    "base/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
  labels:
    app: qwen
spec:
  replicas: 1
  selector:
    matchLabels:
      app: qwen
  template:
    metadata:
      labels:
        app: qwen
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.12xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args:
            - --model=Qwen/Qwen2.5-7B-Instruct
            - --max-model-len=8192
          resources:
            limits:
              nvidia.com/gpu: 1
""",
    "overlays/prod/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: serving
namePrefix: prod-
resources:
  - ../../base
components:
  - ../../components/netpol
patches:
  - path: tp.yaml
  - target:
      kind: Deployment
      name: qwen
    patch: |-
      - op: replace
        path: /spec/replicas
        value: 2
      - op: replace
        path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu
        value: 2
configMapGenerator:
  - name: qwen-env
    literals:
      - VLLM_LOGGING_LEVEL=DEBUG
""",
    "overlays/prod/tp.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  template:
    spec:
      containers:
        - name: vllm
          args:
            - --model=Qwen/Qwen2.5-7B-Instruct
            - --max-model-len=8192
            - --tensor-parallel-size=4
""",
    "components/netpol/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
  - service.yaml
""",
    "components/netpol/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: qwen
spec:
  type: LoadBalancer
  selector:
    app: qwen
  ports:
    - port: 8000
""",
}

WRAPPED = """\
apiVersion: v1
data:
  VLLM_LOGGING_LEVEL: DEBUG
kind: ConfigMap
metadata:
  annotations:
    alpha.config.kubernetes.io/transformations: |
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: NamespaceTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PrefixTransformer
    config.kubernetes.io/origin: |
      configuredIn: ../repo/overlays/prod/kustomization.yaml
      configuredBy:
        apiVersion: builtin
        kind: ConfigMapGenerator
  name: prod-qwen-env-84b5kgcgk2
  namespace: serving
---
apiVersion: v1
kind: Service
metadata:
  annotations:
    alpha.config.kubernetes.io/transformations: |
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: NamespaceTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PrefixTransformer
    config.kubernetes.io/origin: |
      path: ../repo/components/netpol/service.yaml
  name: prod-qwen
  namespace: serving
spec:
  ports:
  - port: 8000
  selector:
    app: qwen
  type: LoadBalancer
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
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: NamespaceTransformer
      - configuredIn: ../repo/overlays/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PrefixTransformer
    config.kubernetes.io/origin: |
      path: ../repo/base/deployment.yaml
  labels:
    app: qwen
  name: prod-qwen
  namespace: serving
spec:
  replicas: 2
  selector:
    matchLabels:
      app: qwen
  template:
    metadata:
      labels:
        app: qwen
    spec:
      containers:
      - args:
        - --model=Qwen/Qwen2.5-7B-Instruct
        - --max-model-len=8192
        - --tensor-parallel-size=4
        image: vllm/vllm-openai:v0.11.0
        name: vllm
        resources:
          limits:
            nvidia.com/gpu: 2
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.12xlarge
"""
#: What ``kustomize build`` of a folder ``wrap`` beside ``repo`` that lists ``../repo/overlays/prod`` with
#: ``buildMetadata: [originAnnotations, transformerAnnotations]`` writes (kubectl kustomize, kustomize v5.5.0; the
#: annotations' shape is the one v5.8.1 writes above); place_build reads the stripped text.
PLACED = {
    # the generated ConfigMap: its generator's entry
    **dict.fromkeys(range(1, 8), ("repo/overlays/prod/kustomization.yaml", 22)),
    # the component's Service, its namespace from the overlay's `namespace:`
    9: ("repo/components/netpol/service.yaml", 1), 12: ("repo/components/netpol/service.yaml", 4),
    13: ("repo/overlays/prod/kustomization.yaml", 3), 16: ("repo/components/netpol/service.yaml", 10),
    19: ("repo/components/netpol/service.yaml", 6),
    # the base Deployment (`prod-qwen` found as `qwen`: the namePrefix taken off)
    21: ("repo/base/deployment.yaml", 1), 26: ("repo/base/deployment.yaml", 4),
    27: ("repo/overlays/prod/kustomization.yaml", 3),
    28: ("repo/base/deployment.yaml", 7),
    29: ("repo/overlays/prod/kustomization.yaml", 17),  # replicas: the JSON 6902 operation's value
    39: ("repo/base/deployment.yaml", 20),  # - args: is the container (`- name: vllm`)
    40: ("repo/overlays/prod/tp.yaml", 11), 42: ("repo/overlays/prod/tp.yaml", 13),  # the patch's args
    43: ("repo/base/deployment.yaml", 21),  # the image no patch sets
    44: ("repo/base/deployment.yaml", 20),  # the container's name: the merge key, the base's
    # resources: every value under it the JSON 6902 operation wrote
    45: ("repo/overlays/prod/kustomization.yaml", 20), 47: ("repo/overlays/prod/kustomization.yaml", 20),
    49: ("repo/base/deployment.yaml", 18),
}


def _write_tree(root) -> None:
    for path, text in TREE.items():
        (root / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "repo" / path).write_text(text, encoding="utf-8")


def test_each_line_of_a_build_is_placed_at_the_repository_line_that_wrote_it(tmp_path, monkeypatch):
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    text, origins = strip_build_metadata(WRAPPED)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    assert {n: placed.get(n) for n in PLACED} == PLACED
    assert [n for n in range(1, len(text.splitlines()) + 1) if n not in placed] == [8, 20]  # the `---` lines


def test_an_object_whose_origin_cannot_be_found_is_not_placed(tmp_path, monkeypatch):
    """A remote base's object (kustomize fetched it: no file here), and one whose origin file holds no document of its
    kind and name, keep the output's lines (`... (kustomize build)`)."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    remote = WRAPPED.replace("      path: ../repo/components/netpol/service.yaml\n",
                             "      path: base/service.yaml\n      repo: https://github.com/acme/x\n      ref: v1\n")
    (tmp_path / "repo/base/deployment.yaml").write_text(TREE["base/deployment.yaml"].replace("name: qwen\n  labels",
                                                                                           "name: other\n  labels"))
    text, origins = strip_build_metadata(remote)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    assert sorted({f for f, _ in placed.values()}) == ["repo/overlays/prod/kustomization.yaml"]
    assert sorted(placed) == list(range(1, 8))  # the generated ConfigMap alone


def test_a_json_6902_append_is_placed_at_its_own_operation(tmp_path, monkeypatch):
    """Two `/-` appends to one list: the first appended item at the first operation, the second at the second."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    kustomization = tmp_path / "repo/overlays/prod/kustomization.yaml"
    kustomization.write_text(TREE["overlays/prod/kustomization.yaml"].replace("  - path: tp.yaml\n", "").replace(
        "      - op: replace\n        path: /spec/replicas\n",
        "      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: --tensor-parallel-size\n"
        "      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: \"4\"\n"
        "      - op: replace\n        path: /spec/replicas\n"))
    built = WRAPPED.replace("        - --tensor-parallel-size=4\n", "        - --tensor-parallel-size\n        - \"4\"\n")
    text, origins = strip_build_metadata(built)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(text.splitlines(), 1)}
    assert placed[at["        - --model=Qwen/Qwen2.5-7B-Instruct"]] == ("repo/base/deployment.yaml", 23)
    # (the `- path: tp.yaml` entry removed: the inline patch's text starts at line 14)
    assert placed[at["        - --tensor-parallel-size"]] == ("repo/overlays/prod/kustomization.yaml", 16)
    assert placed[at['        - "4"']] == ("repo/overlays/prod/kustomization.yaml", 19)
    assert placed[at["  replicas: 2"]] == ("repo/overlays/prod/kustomization.yaml", 22)


#: What the overlay's lint says, each finding at a line of the repository: the TP the patch file sets (SW104, SW202),
#: the GPU count the inline JSON 6902 operation sets (SW204, at `resources:`, which it wrote whole), the container
#: (SW401, SW407) and the Deployment (SW305) at the base's lines, the component's Service at its own file.
VIA = " (via overlays/prod/kustomization.yaml)"
FINDINGS = [
    ("SW305", "advisory", "base/deployment.yaml" + VIA, 1),
    ("SW401", "mandatory", "base/deployment.yaml" + VIA, 20),
    ("SW407", "advisory", "base/deployment.yaml" + VIA, 20),
    ("SW306", "advisory", "components/netpol/service.yaml" + VIA, 6),
    ("SW204", "mandatory", "overlays/prod/kustomization.yaml", 20),
    ("SW104", "mandatory", "overlays/prod/tp.yaml" + VIA, 13),
    ("SW202", "advisory", "overlays/prod/tp.yaml" + VIA, 13),
]


@pytest.mark.tools
def test_findings_on_an_overlay_point_at_the_repository_lines(tmp_path, monkeypatch, capsys):
    kustomize = require_tool("kustomize")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    _write_tree(tmp_path)
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["lint", "overlays/prod", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr()[0])
    assert [(f["code"], f["level"], f["file"], f["line"]) for f in doc["findings"]] == FINDINGS
    assert [(w["subject"], w["file"], w["replicas"]) for w in doc["workloads"]] == [
        ("Deployment serving/prod-qwen", "base/deployment.yaml" + VIA, 2)]
    # a code scanner and a pull request's annotations are given the repository's file, the overlay in the message
    main(["lint", "overlays/prod", "--format", "sarif"])
    run = json.loads(capsys.readouterr()[0])["runs"][0]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]] == [
        (code, file.removesuffix(VIA), line) for code, _, file, line in FINDINGS]
    assert run["results"][-1]["message"]["text"].endswith("; via overlays/prod/kustomization.yaml)")
    main(["lint", "overlays/prod", "--format", "github"])
    github = [line for line in capsys.readouterr()[0].splitlines() if line.startswith("::")]
    assert [line.split("::", 2)[1] for line in github] == [
        f"{'error' if level == 'mandatory' else 'warning'} file={file.removesuffix(VIA)},line={line},"
        f"title={title}" for (_, level, file, line), title in zip(FINDINGS, [
            "namespace-without-default-deny", "parallel-without-shm", "vllm-service-without-readiness-probe",
            "vllm-exposed-without-gateway", "gpu-request-not-tp", "sharded-model-that-fits",
            "tensor-parallel-over-pcie"], strict=True)]


@pytest.mark.tools
def test_an_application_that_builds_the_overlay_names_itself_on_every_placed_file(tmp_path, monkeypatch, capsys):
    """An Argo CD Application of the overlay adds itself to each file a finding names, the patch file a flag's
    finding is placed at too (before relabel reached only the files of the objects themselves: SW104 at
    `overlays/prod/tp.yaml (via overlays/prod/kustomization.yaml)` named no Application, and no cluster)."""
    kustomize = require_tool("kustomize")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    _write_tree(tmp_path)
    root = tmp_path / "repo"
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/llm.git"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    (root / "prod.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: qwen-prod, namespace: argocd}\n"
        "spec:\n  project: default\n  source: {repoURL: 'https://github.com/acme/llm.git', targetRevision: HEAD, "
        "path: overlays/prod}\n  destination: {server: 'https://kubernetes.default.svc', namespace: serving}\n")
    monkeypatch.chdir(root)
    main(["lint", "prod.yaml", "--format", "json"])
    doc = json.loads(capsys.readouterr()[0])
    app = " (via Application argocd/qwen-prod)"
    assert [(f["code"], f["file"], f["line"]) for f in doc["findings"]] == [
        (code, file + app, line) for code, _, file, line in FINDINGS]


def test_a_patch_of_one_name_is_not_placed_on_an_object_whose_name_holds_it(tmp_path, monkeypatch):
    """The base holds Deployments `qwen` and `qwen-router`; prod's patch file names `qwen`: the router's args stay at
    the base's line, `prod-qwen-router` is found as `qwen-router` (the longest name it holds), not as `qwen`."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    router = TREE["base/deployment.yaml"].replace("name: qwen\n  labels", "name: qwen-router\n  labels")
    (tmp_path / "repo/base/deployment.yaml").write_text(TREE["base/deployment.yaml"] + "---\n" + router)
    deployment = WRAPPED[WRAPPED.index("apiVersion: apps/v1"):]
    built = WRAPPED + "---\n" + deployment.replace("name: prod-qwen\n", "name: prod-qwen-router\n").replace(
        "        - --tensor-parallel-size=4\n", "")
    text, origins = strip_build_metadata(built)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    lines = text.splitlines()
    router_start = lines.index("  name: prod-qwen-router") + 1
    model = next(n for n in range(router_start, len(lines) + 1) if lines[n - 1].endswith("--model=Qwen/Qwen2.5-7B"
                                                                                             "-Instruct"))
    second = 28  # the second document's line k is the file's 28 + k (27 lines and a `---` before it)
    assert placed[router_start] == ("repo/base/deployment.yaml", second + 4)  # its name
    assert placed[model] == ("repo/base/deployment.yaml", second + 23)  # the base's args: no patch names it


def test_an_image_and_a_replica_count_the_kustomization_sets_are_placed_at_its_entries(tmp_path, monkeypatch):
    """`images:` and `replicas:` run after the kustomization's patches (configureBuiltinTransformers' order): the
    built image is at the `images:` entry, the count at the `replicas:` entry, not at the JSON 6902 `replace` of
    /spec/replicas that ran before them."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(
        TREE["overlays/prod/kustomization.yaml"] + "images:\n  - name: vllm/vllm-openai\n    newTag: v0.12.0\n"
        "replicas:\n  - name: qwen\n    count: 3\n")  # lines 25-27 and 28-30
    built = WRAPPED.replace("image: vllm/vllm-openai:v0.11.0", "image: vllm/vllm-openai:v0.12.0").replace(
        "  replicas: 2\n", "  replicas: 3\n")
    text, origins = strip_build_metadata(built)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(text.splitlines(), 1)}
    assert placed[at["        image: vllm/vllm-openai:v0.12.0"]] == ("repo/overlays/prod/kustomization.yaml", 26)
    assert placed[at["  replicas: 3"]] == ("repo/overlays/prod/kustomization.yaml", 29)


@pytest.mark.tools
def test_an_overlay_named_through_a_link_names_the_files_kustomize_read(tmp_path, monkeypatch, capsys):
    """mend27: `prod -> overlays/prod`: kustomize resolves the link and builds `../../base` from overlays/prod, but the
    label joined the link's own path to a path relative to its target (`../base/deployment.yaml`, a file that is not
    there). The file is named from its real path, relative to the run's folder; the overlay as the user named it."""
    kustomize = require_tool("kustomize")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    _write_tree(tmp_path)
    os.symlink("overlays/prod", tmp_path / "repo" / "prod")
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["lint", "prod", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr()[0])
    via = " (via prod/kustomization.yaml)"
    assert [(f["code"], f["file"], f["line"]) for f in doc["findings"]] == [
        (code, file.replace(VIA, via).replace("overlays/prod/", "prod/"), line) for code, _, file, line in FINDINGS]


@pytest.mark.parametrize(("target", "placed_at"), [
    # kustomize matches a target's kind and name as regular expressions, whole (api/types/selector.go anchorRegex):
    # the JSON 6902 operations wrote the count and the replicas
    ('      name: "qw.*"\n', ("repo/overlays/prod/kustomization.yaml", 20)),
    ('      name: qwen|llama\n', ("repo/overlays/prod/kustomization.yaml", 20)),
    ('      kind: "Deploy.*"\n      name: "(qwen|llama)"\n', ("repo/overlays/prod/kustomization.yaml", 20)),
    # `qw` matches no name whole (kustomize would fail the build: the patch selects nothing), nor does `router-.*`
    ('      name: qw\n', ("repo/base/deployment.yaml", 27)),
    ('      name: "router-.*"\n', ("repo/base/deployment.yaml", 27)),
    # a quantified group: Python's matcher may backtrack without end on it (kustomize's RE2 does not): not matched
    ('      name: "(q+)+wen"\n', ("repo/base/deployment.yaml", 27)),
])
def test_a_patch_target_named_by_a_regular_expression_is_placed_where_it_matches(tmp_path, monkeypatch, target,
                                                                                 placed_at):
    """review45: `target: {name: "qw.*"}` left the GPU count its JSON 6902 operation set at the base's line (which
    writes 1: the finding said 2 there)."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    kustomization = TREE["overlays/prod/kustomization.yaml"]
    assert "      kind: Deployment\n      name: qwen\n" in kustomization
    lines = 1 if target.count("\n") == 1 else 0  # the same line count: kind: written again where the target has one
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(kustomization.replace(
        "      kind: Deployment\n      name: qwen\n", ("      kind: Deployment\n" if lines else "") + target))
    text, origins = strip_build_metadata(WRAPPED)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(text.splitlines(), 1)}
    assert placed[at["            nvidia.com/gpu: 2"]] == placed_at


REPLACEMENT = """\
replacements:
  - source:
      kind: ConfigMap
      name: qwen-env
      fieldPath: data.VLLM_LOGGING_LEVEL
    targets:
      - select:
{select}
{reject}        fieldPaths:
          - spec.template.spec.containers.[name={container}].resources.limits.nvidia\\.com/gpu
"""


@pytest.mark.parametrize(("select", "reject", "container", "replaced"), [
    ("          kind: Deployment", "", "vllm", True),
    ('          name: "qw.*"', "", "vllm", True),  # the written name, matched whole as kustomize's selector does
    ("          kind: Deployment", "        reject:\n          - name: prod-qwen\n", "vllm", False),
    ("          kind: Deployment", "", "router", False),  # another container's field
    ("          kind: StatefulSet", "", "vllm", False),
    ('          labelSelector: "app=qwen"', "", "vllm", False),  # a label selector: not told here
])
def test_a_replacement_is_placed_at_its_target_where_it_writes_the_field(tmp_path, monkeypatch, select, reject,
                                                                        container, replaced):
    """review45: `replacements:` (kustomize's last transformer) wrote the GPU count from a ConfigMap, and the finding
    stayed at the JSON 6902 operation that ran before it and writes another count."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    written = TREE["overlays/prod/kustomization.yaml"] + REPLACEMENT.format(select=select, reject=reject,
                                                                             container=container)
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(written)
    target = written.splitlines().index("      - select:") + 1
    text, origins = strip_build_metadata(WRAPPED)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(text.splitlines(), 1)}
    assert placed[at["            nvidia.com/gpu: 2"]] == (
        "repo/overlays/prod/kustomization.yaml", target if replaced else 20)


@pytest.mark.parametrize(("selector", "qwen_patched", "router_patched"), [
    ("app=qwen", True, False),
    ("app in (qwen, router)", True, True),
    ("app!=qwen", False, True),
    ("!app", False, False),
    ("app=qwen,tier=gpu", False, False),  # no tier label on either
])
def test_a_patch_by_label_selector_is_placed_only_on_the_objects_it_selects(tmp_path, monkeypatch, selector,
                                                                          qwen_patched, router_patched):
    """review45: the base holds Deployments `qwen` (app=qwen) and `qwen-router` (app=router); a JSON 6902 patch whose
    target is `labelSelector: app=qwen` was placed on the router's GPU count as well (a target's labels were not
    read: every Deployment was its target)."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    router = TREE["base/deployment.yaml"].replace("name: qwen\n", "name: qwen-router\n").replace("app: qwen",
                                                                                                 "app: router")
    (tmp_path / "repo/base/deployment.yaml").write_text(TREE["base/deployment.yaml"] + "---\n" + router)
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(TREE["overlays/prod/kustomization.yaml"].replace(
        "      kind: Deployment\n      name: qwen\n", f"      kind: Deployment\n      labelSelector: {selector}\n"))
    deployment = WRAPPED[WRAPPED.index("apiVersion: apps/v1"):]
    built = WRAPPED + "---\n" + deployment.replace("name: prod-qwen\n", "name: prod-qwen-router\n").replace(
        "app: qwen", "app: router")
    text, origins = strip_build_metadata(built)
    placed = place_build(text, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    gpu = [n for n, line in enumerate(text.splitlines(), 1) if line == "            nvidia.com/gpu: 2"]
    second = 28  # the router's document: the file's line 28 + k
    assert [placed[n] for n in gpu] == [
        ("repo/overlays/prod/kustomization.yaml", 20) if qwen_patched else ("repo/base/deployment.yaml", 27),
        ("repo/overlays/prod/kustomization.yaml", 20) if router_patched else ("repo/base/deployment.yaml",
                                                                               second + 27)]


@pytest.mark.parametrize("listed", [True, False])
def test_a_replacement_in_a_file_of_its_own_is_placed_in_that_file(tmp_path, monkeypatch, listed):
    """`replacements: [{path: gpus.yaml}]`: the file holds a list of replacements, or one."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    one = REPLACEMENT.format(select="          kind: Deployment", reject="", container="vllm").split("\n", 1)[1]
    text = one if listed else "\n".join(line[4:] for line in one.splitlines()) + "\n"
    (tmp_path / "repo/overlays/prod/gpus.yaml").write_text(text)
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(
        TREE["overlays/prod/kustomization.yaml"] + "replacements:\n  - path: gpus.yaml\n")
    target = text.splitlines().index("      - select:" if listed else "  - select:") + 1
    built, origins = strip_build_metadata(WRAPPED)
    placed = place_build(built, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(built.splitlines(), 1)}
    assert placed[at["            nvidia.com/gpu: 2"]] == ("repo/overlays/prod/gpus.yaml", target)


@pytest.mark.tools
def test_a_namespace_the_overlay_renames_and_a_binding_s_subject_are_placed_at_its_namespace(tmp_path, monkeypatch):
    """review45: kustomize's namespace transformer renames a Namespace object (`llm` -> `serving`) and sets a
    RoleBinding's subjects' namespace: the renamed Namespace was at the build output's lines (its origin file holds no
    `serving`), the subject's namespace at the base's line that writes `default`; a ClusterRole gets none."""
    from shardwise.rules.adapters.charts import _build_with_origins

    kustomize = require_tool("kustomize")
    _write_tree(tmp_path)
    root = tmp_path / "repo"
    (root / "base/extra.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: llm\n---\napiVersion: rbac.authorization.k8s.io/v1\n"
        "kind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\n"
        "kind: RoleBinding\nmetadata:\n  name: rb\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, "
        "name: reader}\nsubjects:\n  - kind: ServiceAccount\n    name: default\n    namespace: default\n")
    (root / "base/kustomization.yaml").write_text("resources:\n  - deployment.yaml\n  - extra.yaml\n")
    monkeypatch.chdir(root)
    built = _build_with_origins([kustomize, "build", "--load-restrictor=LoadRestrictionsRootOnly"], "overlays/prod",
                                "overlays/prod/kustomization.yaml", "kustomize build")
    assert built is not None
    text, place = built
    lines = text.splitlines()
    got = {(n, lines[n - 1]): place.get(n) for n in range(1, 25)
           if lines[n - 1] in ("kind: Namespace", "  name: serving", "  name: prod-reader", "    namespace: serving",
                               "  namespace: serving")}
    overlay = ("overlays/prod/kustomization.yaml", 3)
    assert got == {(2, "kind: Namespace"): ("base/extra.yaml", 2), (4, "  name: serving"): overlay,
                   (9, "  name: prod-reader"): ("base/extra.yaml", 9), (16, "  namespace: serving"): overlay,
                   (20, "  name: prod-reader"): ("base/extra.yaml", 16),  # the roleRef's: its flow mapping's line
                   (24, "  namespace: serving"): overlay}


@pytest.mark.parametrize("quote", ["'", '"'])
def test_an_inline_patch_written_on_its_key_s_line_is_placed_at_that_line(tmp_path, monkeypatch, quote):
    """review45: `patch: '[{"op": "replace", …}]'` (the text on the key's line, not a block scalar): the operations
    were placed one line below it (the text's line 1 counted as the key's next line, as a `|` block's is)."""
    _write_tree(tmp_path)
    (tmp_path / "wrap").mkdir()
    monkeypatch.chdir(tmp_path)
    kustomization = TREE["overlays/prod/kustomization.yaml"]
    block = kustomization[kustomization.index("    patch: |-\n"):kustomization.index("configMapGenerator:")]
    ops = ('[{"op": "replace", "path": "/spec/replicas", "value": 2}, {"op": "replace", "path": '
           '"/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu", "value": 2}]')
    text = ops if quote == "'" else ops.replace('"', '\\"')
    (tmp_path / "repo/overlays/prod/kustomization.yaml").write_text(
        kustomization.replace(block, f"    patch: {quote}{text}{quote}\n"))
    built, origins = strip_build_metadata(WRAPPED)
    placed = place_build(built, origins, lambda p: os.path.normpath(os.path.join("wrap", p)))
    at = {line: n for n, line in enumerate(built.splitlines(), 1)}
    assert placed[at["            nvidia.com/gpu: 2"]] == ("repo/overlays/prod/kustomization.yaml", 14)
    assert placed[at["  replicas: 2"]] == ("repo/overlays/prod/kustomization.yaml", 14)


@pytest.mark.parametrize(("pattern", "name", "selects"), [
    ("vllm-.*", "vllm-a", True),
    ("(?:vllm|llm)-.*", "llm-abc", True),
    ("llm-[a-z]+-v?[0-9]*", "llm-abc-v2", True),
    ("vllm-.*", "llm-a", False),
    ("llm", "llm", True),
    ("llm", "vllm", False),
    # fuzz25: what Python's backtracking re could not match in bounded time is not matched (None), where RE2 would
    ("(a+)+$", "a" * 32 + "!", None),
    ("a?" * 30 + "a" * 30, "a" * 30, None),
    (".*.*x", "a" * 100_000, None),
    ("[a-z]*[a-z]*[0-9]", "a" * 100_000, None),
    ("a" * 300, "a" * 300, True),  # spelled: selected, however long
    ("(", "(x", None),
])
def test_a_kustomize_pattern_is_matched_only_where_python_can_in_bounded_time(pattern, name, selects):
    assert kustomize_selects(pattern, name) is selects
    # a generated ConfigMap's name an overlay may patch: what cannot be told is taken to be patched
    assert _matches(pattern, name) is (selects is not False)


def test_a_long_name_does_not_hide_a_short_one_the_pattern_selects():
    assert kustomize_selects("vllm-.*", "a" * 300, "vllm-x") is True
    assert kustomize_selects("vllm-.*", "a" * 300, "llm-x") is None
