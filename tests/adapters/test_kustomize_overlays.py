"""A kustomization met while searching a folder (or named, when its build failed) is not rendered, but its overlay's
``replicas:``, patches of ``spec.replicas`` and ``images:`` apply to the objects of its bases (rules/adapters/overlays.py).

review13 noticed: a folder whose overlay sets ``replicas: 2`` over a base Deployment at ``replicas: 0`` was read as
the base (0: its findings advisory), where ``kustomize build`` of the overlay, piped to shardwise, gives 2. Each case
is checked against the real kustomize where it is installed (``~/.cache/shardwise-tools/bin`` or PATH).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import textwrap

import pytest
import yaml
from shardwise.rules.adapters import _not_searched_where_rendered, read_inputs
from shardwise.rules.adapters.select import select_inputs

BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 0
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.0
          args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def _write(root: pathlib.Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _repo(root: pathlib.Path, overlays: dict[str, str]) -> None:
    _write(root, {"base/deployment.yaml": BASE, "base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
                  **{f"overlays/{name}/kustomization.yaml": text for name, text in overlays.items()}})


def _read(root: pathlib.Path) -> tuple[int, str]:
    inv = read_inputs([str(root)], jobs=1)
    [g] = inv.groups
    assert isinstance(g.containers[0].image, str)
    return g.replicas, g.containers[0].image


def _kustomize() -> str | None:
    cached = os.path.expanduser("~/.cache/shardwise-tools/bin/kustomize")
    return cached if os.path.isfile(cached) else shutil.which("kustomize")


def _built(root: pathlib.Path, overlay: str) -> tuple[int, str] | None:
    """(replicas, image) of the Deployment ``kustomize build`` gives for one overlay; None without kustomize."""
    tool = _kustomize()
    if tool is None:
        return None
    out = subprocess.run([tool, "build", str(root / "overlays" / overlay)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    [dep] = [d for d in yaml.safe_load_all(out) if d and d.get("kind") == "Deployment"]
    return dep["spec"].get("replicas", 1), dep["spec"]["template"]["spec"]["containers"][0]["image"]


REPLICAS_FIELD = """\
    namespace: serving
    namePrefix: prod-
    resources:
      - ../../base
    replicas:
      - name: vllm
        count: 2
    images:
      - name: vllm/vllm-openai
        newTag: v0.11.0
    """

JSON_PATCH = """\
    resources:
      - ../../base
    patches:
      - target: {kind: Deployment, name: vllm}
        patch: |-
          - op: replace
            path: /spec/replicas
            value: 3
    """

MERGE_PATCH_FILE = """\
    resources:
      - ../../base
    patches:
      - path: replicas.yaml
    """

MERGE_PATCH = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: vllm
    spec:
      replicas: 4
    """


@pytest.mark.parametrize("overlay,files,expected", [
    (REPLICAS_FIELD, {}, (2, "vllm/vllm-openai:v0.11.0")),
    (JSON_PATCH, {}, (3, "vllm/vllm-openai:v0.9.0")),
    (MERGE_PATCH_FILE, {"overlays/prod/replicas.yaml": MERGE_PATCH}, (4, "vllm/vllm-openai:v0.9.0")),
], ids=["replicas-and-images", "json6902-patch", "strategic-merge-patch-file"])
def test_the_overlay_s_count_and_image_win(tmp_path, overlay, files, expected):
    """Before: (0, v0.9.0) each time, the base as written."""
    _repo(tmp_path, {"prod": overlay})
    _write(tmp_path, files)
    assert _read(tmp_path) == expected
    built = _built(tmp_path, "prod")
    assert built in (None, expected)


def test_of_several_overlays_each_is_its_own_object(tmp_path):
    """dev runs 1 pod of v0.10.0, prod 3 of v0.11.0: one object per overlay, each with its own count and image, as
    ``kustomize build`` of each gives (readers17; before, one object at the largest count, 3, with the base's image,
    as the overlays disagreed)."""
    _repo(tmp_path, {
        "dev": "resources: [../../base]\nreplicas: [{name: vllm, count: 1}]\n"
               "images: [{name: vllm/vllm-openai, newTag: v0.10.0}]\n",
        "prod": "resources: [../../base]\nreplicas: [{name: vllm, count: 3}]\n"
                "images: [{name: vllm/vllm-openai, newTag: v0.11.0}]\n",
    })
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert sorted((g.location.file.rpartition(" (via ")[2], g.replicas, g.containers[0].image)
                  for g in inv.groups) == [
        (f"{tmp_path}/overlays/dev/kustomization.yaml)", 1, "vllm/vllm-openai:v0.10.0"),
        (f"{tmp_path}/overlays/prod/kustomization.yaml)", 3, "vllm/vllm-openai:v0.11.0")]
    assert _built(tmp_path, "dev") in (None, (1, "vllm/vllm-openai:v0.10.0"))
    assert _built(tmp_path, "prod") in (None, (3, "vllm/vllm-openai:v0.11.0"))


def test_an_overlay_over_an_overlay_the_outer_one_wins(tmp_path):
    """prod-eu lists prod (count 2, v0.10.0) and sets count 5 and v0.11.0: 5 and v0.11.0; prod, listed by another,
    is no deployment of its own."""
    _repo(tmp_path, {
        "prod": "resources: [../../base]\nreplicas: [{name: vllm, count: 2}]\n"
                "images: [{name: vllm/vllm-openai, newTag: v0.10.0}]\n",
        "prod-eu": "resources: [../prod]\nreplicas: [{name: vllm, count: 5}]\n"
                   "images: [{name: vllm/vllm-openai, newTag: v0.11.0}]\n",
    })
    assert _read(tmp_path) == (5, "vllm/vllm-openai:v0.11.0")
    assert _built(tmp_path, "prod-eu") in (None, (5, "vllm/vllm-openai:v0.11.0"))


def test_a_base_alone_and_another_object_are_left_as_written(tmp_path):
    """A kustomization that lists the base and sets nothing, and a count for another name: 0, as written."""
    _repo(tmp_path, {"prod": "resources: [../../base]\nreplicas: [{name: other, count: 2}]\n"})
    assert _read(tmp_path) == (0, "vllm/vllm-openai:v0.9.0")


def _patched_by(root: pathlib.Path) -> str | None:
    [g] = read_inputs([str(root)], jobs=1).groups
    return g.patched_by


def test_an_overlay_that_patches_what_the_container_runs_is_recorded(tmp_path):
    """A strategic merge patch that sets a container's args (or a JSON 6902 operation on them) is not applied: the
    object records the overlay, and its blocking capacity findings become advisory (SW101/overlay-patches-args/); a
    patch of the container's resources only, and an overlay that lists the base, record nothing."""
    _repo(tmp_path, {"prod": "resources: [../../base]\npatches: [{path: args.yaml}]\n"})
    _write(tmp_path, {"overlays/prod/args.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"]
        """})
    assert _patched_by(tmp_path) == "../overlays/prod/kustomization.yaml"
    _write(tmp_path, {"overlays/prod/args.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  resources: {limits: {memory: 64Gi}}
        """})
    assert _patched_by(tmp_path) is None



def test_an_overlay_met_while_searching_that_patches_what_runs_says_it_was_not_applied(tmp_path, monkeypatch):
    """newuser11: an overlay met while searching that patches the container's args is one SW005 record, at the line of
    its patches, naming the command that lints what it deploys; a run with no blocking finding passed before with no
    word that the overlay's model was never judged. An overlay that sets only replicas records nothing, and neither
    does the same overlay named on the command line, where kustomize builds it (no record without a build either: its
    input error says what was not applied)."""
    _repo(tmp_path, {
        "prod": "resources: [../../base]\nreplicas: [{name: vllm, count: 1}]\npatches:\n  - path: args.yaml\n",
        "dev": "resources: [../../base]\nreplicas: [{name: vllm, count: 1}]\n"})
    _write(tmp_path, {"overlays/prod/args.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  args: ["--model", "Qwen/Qwen2.5-72B-Instruct", "--tensor-parallel-size", "8"]
        """})
    inv = read_inputs([str(tmp_path)], jobs=1)
    # the patch's own file is read as a fragment, and says so on its own (its record is not this one)
    [issue] = [i for i in inv.launch_issues if i.location.file.endswith("kustomization.yaml")]
    prod = tmp_path / "overlays" / "prod"
    assert (issue.subject, issue.location.file, issue.location.line, issue.mentioned) == (
        "Deployment default/vllm", str(prod / "kustomization.yaml"), 3, True)
    assert issue.reason.endswith(f"do not block; to lint what it deploys: shardwise lint {prod}")
    monkeypatch.chdir(tmp_path)  # kustomize builds a base outside the named folder only inside the working directory
    named = read_inputs(["overlays/prod"], jobs=1)  # built where kustomize is found, else read plainly with an error
    assert [i for i in named.launch_issues if i.location.file.endswith("kustomization.yaml")] == []


DENY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: serving}
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""


def _namespaces(root: pathlib.Path) -> dict[str, str]:
    inv = read_inputs([str(root)], jobs=1)
    return {**{f"{g.kind}/{g.name}": g.namespace for g in inv.groups},
            **{f"NetworkPolicy/{p.name}": p.namespace for p in inv.network_policies}}


def _built_namespaces(root: pathlib.Path, overlay: str) -> dict[str, str] | None:
    tool = _kustomize()
    if tool is None:
        return None
    out = subprocess.run([tool, "build", str(root / "overlays" / overlay)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {f"{d['kind']}/{d['metadata']['name']}": d["metadata"].get("namespace", "default")
            for d in yaml.safe_load_all(out) if d}


def test_the_namespace_every_overlay_gives_is_applied(tmp_path):
    """place16: an overlay's ``namespace: serving`` moves the base's Deployment (written without one: ``default``) to
    ``serving``, where the overlay's own default-deny policy is; read as the base, the policy did not cover it and
    SW305 reported namespace ``default``. ``kustomize build`` gives the same namespaces."""
    _repo(tmp_path, {"prod": "namespace: serving\nresources:\n  - ../../base\n  - deny.yaml\n"})
    _write(tmp_path, {"overlays/prod/deny.yaml": DENY})
    expected = {"Deployment/vllm": "serving", "NetworkPolicy/default-deny": "serving"}
    assert _namespaces(tmp_path) == expected
    built = _built_namespaces(tmp_path, "prod")
    assert built is None or built == expected
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [f for f in run_rules(ALL_RULES, inv) if f.code == "SW305"] == []


def test_overlays_of_different_namespaces_give_one_object_in_each(tmp_path):
    """Two overlays moving the base to ``dev`` and to ``prod``: it runs in each, one object per overlay in its
    namespace (readers17; before, one object that kept the base's ``default``)."""
    _repo(tmp_path, {"dev": "namespace: dev\nresources:\n  - ../../base\n",
                     "prod": "namespace: prod\nresources:\n  - ../../base\n"})
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert sorted(g.namespace for g in inv.groups) == ["dev", "prod"]
    for overlay in ("dev", "prod"):
        assert _built_namespaces(tmp_path, overlay) in (None, {"Deployment/vllm": overlay})


def test_what_a_named_chart_or_overlay_renders_is_not_also_searched(tmp_path, monkeypatch):
    """newuser11: `shardwise lint . charts/vllm overlays/prod` (docs/ci.md: name a chart's or an overlay's folder
    beside the repository searched) also read the chart's and the overlay's files as met while searching: SW005 said
    the named chart was not rendered and the overlay's patches not applied, and the base was reported again as
    written. What a named folder renders, and the bases its kustomization reaches, are left out of the search; a
    base that an overlay met while searching reaches too (dev) is still read for it, and a file named is kept."""
    _repo(tmp_path, {"prod": "resources: [../../base]\n", "dev": "resources: [../../base]\n"})
    _write(tmp_path, {"charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
                      "charts/vllm/values.yaml": "model: Qwen/Qwen2.5-7B-Instruct\n",
                      "charts/vllm/templates/deployment.yaml": BASE, "other.yaml": BASE})
    monkeypatch.chdir(tmp_path)

    def selected(paths: list[str]) -> tuple[list[str], list[str], list[tuple[str, str]]]:
        sel = select_inputs(paths)
        _not_searched_where_rendered(sel, paths)
        return sel.renders, sel.files, sel.skipped

    assert selected([".", "charts/vllm", "overlays/prod"]) == (
        ["charts/vllm", "overlays/prod"], ["other.yaml", "base/deployment.yaml"],
        [("base/kustomization.yaml", "Kustomize file"), ("overlays/dev/kustomization.yaml", "Kustomize file")])
    assert selected([".", "charts/vllm", "overlays/prod", "overlays/dev"]) == (
        ["charts/vllm", "overlays/prod", "overlays/dev"], ["other.yaml"], [])
    assert selected([".", "overlays/prod", "overlays/dev", "base/deployment.yaml"])[1:] == (
        ["other.yaml", "base/deployment.yaml"],
        [("charts/vllm/Chart.yaml", "Helm chart metadata"), ("charts/vllm/values.yaml", "Helm values"),
         ("charts/vllm/templates/deployment.yaml", "Helm chart template (not rendered)")])


def test_a_file_of_a_named_folder_its_render_does_not_read_is_still_searched(tmp_path, monkeypatch):
    """review28: newuser11 left every file of a named chart or overlay folder out of the search, also those its
    render never reads (a Deployment beside prod's kustomization that lists it nowhere, a chart's `examples/`
    manifest): read by neither, where `lint .` alone reads them. Only what the render reads is left out: the
    kustomization's resources and the files it names (a patch), a chart's templates, subcharts, CRDs, metadata and
    values, and a file its templates read (`.Files.Get`)."""
    _repo(tmp_path, {"prod": "resources: [../../base]\npatches:\n  - path: replicas.yaml\n"})
    _write(tmp_path, {"overlays/prod/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\n"
                                                      "spec: {replicas: 2}\n",
                      "overlays/prod/extra.yaml": BASE, "overlays/prod/sub/extra-values.yaml": "x: 1\n",
                      "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
                      "charts/vllm/values.yaml": "model: Qwen/Qwen2.5-7B-Instruct\n",
                      "charts/vllm/ci/gpu-values.yaml": "gpus: 2\n",
                      "charts/vllm/templates/deployment.yaml": BASE, "charts/vllm/crds/crd.yaml": "kind: X\n",
                      "charts/vllm/charts/sub/templates/d.yaml": BASE, "charts/vllm/examples/raw.yaml": BASE,
                      "charts/vllm/templates/extra.yaml": '{{ .Files.Get "manifests/raw.yaml" }}\n',
                      "charts/vllm/manifests/raw.yaml": BASE})
    monkeypatch.chdir(tmp_path)
    sel = select_inputs([".", "charts/vllm", "overlays/prod"])
    _not_searched_where_rendered(sel, [".", "charts/vllm", "overlays/prod"])
    assert sel.renders == ["charts/vllm", "overlays/prod"]
    assert sorted(sel.files) == ["charts/vllm/examples/raw.yaml", "overlays/prod/extra.yaml",
                                 "overlays/prod/sub/extra-values.yaml"]
    assert sel.skipped == []  # the base's kustomization is built with prod
