"""A Chainsaw or KUTTL test's assert and errors files are skipped as test assertions, not read as manifests.

corpus31: vfarcic/crossplane-inference (no licence; the shapes below are written here) tests its Crossplane
composition with Kyverno Chainsaw: tests/llm-inference/chainsaw-test.yaml applies 00-install.yaml (the composite
resource) and asserts 00-assert.yaml and 01-assert.yaml, which hold the objects the composition must produce,
field by field: a provider-kubernetes Object wrapping a VLLMRuntime, and the VLLMRuntime itself with only its
name (Chainsaw compares the fields written, nothing else). shardwise read each as a deployment: SW003 blocked
"the model is empty" on the VLLMRuntime written with no spec, and the repository's lint exited 1.

Chainsaw ("Conventional approach": ``<step index>-<name|assert|errors>.yaml``) and KUTTL name a step's assert and
errors files so; an explicit Chainsaw test names them in its ``assert`` and ``error`` operations. Both are
skipped with their reason; the files a test applies are still read.
"""

from __future__ import annotations

import json

from shardwise.rules.adapters.select import TEST_ASSERTION
from shardwise.rules.app.cli import main

APPLIED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  replicas: 1
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
        resources:
          limits: {nvidia.com/gpu: "1"}
"""
# the composition's output as the test expects it: only the fields compared (no spec on the second object)
EXPECTED = """apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: Object
metadata:
  namespace: ($namespace)
  labels:
    crossplane.io/composite: test-qwen
spec:
  forProvider:
    manifest:
      apiVersion: production-stack.vllm.ai/v1alpha1
      kind: VLLMRuntime
      metadata:
        name: test-qwen
---
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata:
  name: test-qwen
  namespace: target-ns
(status.conditions[?type == 'Ready']):
- status: "True"
"""
CHAINSAW_TEST = """apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: llm-inference
spec:
  steps:
  - try:
    - apply:
        file: install.yaml
    - assert:
        file: expected-*.yaml
    catch:
    - error:
        file: absent.yaml
"""


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def skipped(doc: dict) -> dict[str, str]:
    return {s["file"]: s["reason"] for s in doc["skipped_files"]}


def test_a_chainsaw_tests_assert_and_error_files_are_skipped_and_what_it_applies_is_read(tmp_path, capsys,
                                                                                       monkeypatch):
    (tmp_path / "chainsaw-test.yaml").write_text(CHAINSAW_TEST)
    (tmp_path / "install.yaml").write_text(APPLIED)
    (tmp_path / "expected-runtime.yaml").write_text(EXPECTED)
    (tmp_path / "absent.yaml").write_text(EXPECTED)
    monkeypatch.chdir(tmp_path)
    rc, doc = lint(capsys, ".")
    assert skipped(doc) == {"absent.yaml": TEST_ASSERTION, "expected-runtime.yaml": TEST_ASSERTION}
    assert [w["file"] for w in doc["workloads"]] == ["install.yaml"]
    assert [f for f in doc["findings"] if f["level"] == "mandatory"] == []
    assert doc["input_errors"] == []
    assert rc == 0


def test_conventional_step_files_named_assert_or_errors_are_skipped(tmp_path, capsys, monkeypatch):
    (tmp_path / "00-install.yaml").write_text(APPLIED)
    (tmp_path / "00-assert.yaml").write_text(EXPECTED)
    (tmp_path / "01-errors.yml").write_text(EXPECTED)
    monkeypatch.chdir(tmp_path)
    rc, doc = lint(capsys, ".")
    assert skipped(doc) == {"00-assert.yaml": TEST_ASSERTION, "01-errors.yml": TEST_ASSERTION}
    assert [w["file"] for w in doc["workloads"]] == ["00-install.yaml"]
    assert rc == 0


def test_the_same_objects_outside_a_test_are_still_read(tmp_path, capsys, monkeypatch):
    # no chainsaw-test.yaml names it and its name is no step's: the VLLMRuntime with no model still blocks
    (tmp_path / "expected-runtime.yaml").write_text(EXPECTED)
    (tmp_path / "assert.yaml").write_text(EXPECTED)
    monkeypatch.chdir(tmp_path)
    rc, doc = lint(capsys, ".")
    assert skipped(doc) == {}
    blocks = sorted((f["file"], f["code"]) for f in doc["findings"] if f["level"] == "mandatory")
    assert blocks == [("assert.yaml", "SW003"), ("expected-runtime.yaml", "SW003")]
    assert rc == 1


def test_a_chainsaw_test_file_that_does_not_parse_skips_nothing(tmp_path, capsys, monkeypatch):
    (tmp_path / "chainsaw-test.yaml").write_text("apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nspec: [\n")
    (tmp_path / "expected-runtime.yaml").write_text(EXPECTED)
    monkeypatch.chdir(tmp_path)
    rc, doc = lint(capsys, ".")
    assert "expected-runtime.yaml" not in skipped(doc)
    assert [e["file"] for e in doc["input_errors"]] == ["chainsaw-test.yaml"]
    assert rc == 2


def test_a_chainsaw_tests_files_are_skipped_however_the_folder_is_named(tmp_path, monkeypatch):
    # issue 30: a folder's tests are looked up by the folder as the path names it (relative, with "..", with "./",
    # absolute, not normalised), not by each file's absolute name; every spelling is the same folder in one run, and
    # a folder beside it without a test skips nothing. Files named one by one: each path keeps its spelling.
    from shardwise.rules.adapters.select import select_inputs, tidy

    test, plain = tmp_path / "tests" / "llm", tmp_path / "tests" / "plain"
    test.mkdir(parents=True)
    plain.mkdir()
    (test / "chainsaw-test.yaml").write_text(CHAINSAW_TEST)
    (test / "install.yaml").write_text(APPLIED)
    for k in range(1, 5):
        (test / f"expected-{k}.yaml").write_text(EXPECTED)
        (plain / f"expected-{k}.yaml").write_text(EXPECTED)
    (test / "absent.yaml").write_text(EXPECTED)
    monkeypatch.chdir(tmp_path / "tests")
    asserted = ["llm/expected-1.yaml", "plain/../llm/expected-2.yaml", str(test / "expected-3.yaml"),
                f"{tmp_path}/tests/plain/../llm//expected-4.yaml", "./llm/absent.yaml"]
    read = ["plain/expected-1.yaml", "llm/../plain/expected-2.yaml", str(plain / "expected-3.yaml"),
            f"{tmp_path}/tests/llm/../plain/expected-4.yaml", "./llm/install.yaml"]
    sel = select_inputs([p for pair in zip(read, asserted, strict=True) for p in pair])  # a folder without tests first
    assert sel.skipped == [(tidy(p), TEST_ASSERTION) for p in asserted]  # tidy: a doubled "/" made one
    assert sel.files == [tidy(p) for p in read]
    assert "/../" in sel.skipped[1][0] and "/../" in sel.files[1]  # "a/../b" kept as named (tidy leaves it)
