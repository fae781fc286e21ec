"""Never silent at any depth (fuzz18): what says an object runs vLLM is looked for however deep it is written. The
reader bounds nesting and refuses a recursive alias; the walks that look for a vLLM image, launch, operator field
or annotation pod patch stopped at 40 levels, so a vLLM container wrapped 60 levels down (seed 7301 case 1144: the
SW312 fixture's container under a mutation's nested `a:` keys and lists) passed as "no vLLM workload found" without
a word. Each case is a real fixture with the part that names vLLM moved below 40 levels, written as YAML."""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml
from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

GENERAL = ("none of its pod specs starts a vLLM server shardwise can read: the server is started elsewhere (a "
           "script, a job's entrypoint, the operator's own command)")


def _wrap(value: Any, levels: int) -> Any:
    """``value`` under ``levels`` levels, alternately a mapping's key `a` and a list's item (the fuzzer's shape), the
    outermost a mapping."""
    for i in range(levels):
        value = {"a": value} if (levels - i) % 2 else [value]
    return value


def _docs(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]


def _sw005(tmp_path: Any, doc: dict[str, Any], needle: str) -> tuple[list[tuple[str, int | None, str]], int]:
    text = yaml.safe_dump(doc, sort_keys=False, width=10_000)
    path = tmp_path / "deep.yaml"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)
    inv = load_inputs([str(path)])
    assert inv.groups == [] and not inv.errors
    got = [(f.subject, f.location.line, f.message) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]
    return got, line


@pytest.mark.parametrize("levels", [41, 60, 200])
def test_a_vllm_container_nested_deep_in_a_deployment_is_named(tmp_path: Any, levels: int) -> None:
    doc = _docs(os.path.join(FIXTURES, "rules", "SW312", "unknown.yaml"))[0]
    spec = doc["spec"]["template"]["spec"]
    spec["containers"] = [_wrap(spec["containers"][0], levels)]
    got, line = _sw005(tmp_path, doc, "image: vllm/vllm-openai:v0.10.1")
    assert got == [("Deployment serving/llama-lora-from-config", line,
                    f"not read: it mentions vLLM (the vLLM image vllm/vllm-openai:v0.10.1) but {GENERAL}")]


def test_an_operator_field_naming_a_vllm_build_nested_deep_is_named(tmp_path: Any) -> None:
    """The arcadia Worker of tests/fixtures/k8s/mentions/operators.yaml, its runner 60 levels down."""
    doc = next(d for d in _docs(os.path.join(FIXTURES, "k8s", "mentions", "operators.yaml")) if d.get("kind") == "Worker")
    doc["spec"]["runner"] = _wrap(doc["spec"]["runner"], 60)
    got, line = _sw005(tmp_path, doc, "image: kubeagi/arcadia-fastchat-worker:vllm-v0.4.0-hotfix")
    assert got == [("Worker default/qwen-7b-chat", line,
                    "not read: it mentions vLLM (the vLLM image kubeagi/arcadia-fastchat-worker:vllm-v0.4.0-hotfix) "
                    "but shardwise found no pod spec in it whose container starts a vLLM server it can read (no "
                    "`containers` list or container with image and command at any depth); the operator builds the "
                    "pod from fields shardwise does not know")]


def test_an_annotation_pod_patch_nested_deep_is_named(tmp_path: Any) -> None:
    """llm-d's dual-pods ReplicaSet of tests/fixtures/rules/SW005/annotation-patch.yaml, its pod template's metadata
    60 levels down."""
    doc = _docs(os.path.join(FIXTURES, "rules", "SW005", "annotation-patch.yaml"))[0]
    doc["spec"]["template"]["metadata"] = _wrap(doc["spec"]["template"]["metadata"], 60)
    got, line = _sw005(tmp_path, doc, "dual-pod.llm-d.ai/server-patch")
    assert [(s, ln) for s, ln, _ in got] == [("ReplicaSet default/granite-requester", line)]
    assert got[0][2].startswith("not read: it mentions vLLM (the vLLM image docker.io/vllm/vllm-openai:v0.11.0 in the "
                                "annotation `dual-pod.llm-d.ai/server-patch`) but ")
