"""A JSON file that does not parse: an input error where the user named it, or where its text could be an input (a
Kubernetes object, a Pulumi preview or state, a vLLM server); skipped with its reason where a searched folder met a
tool's configuration written as JSON with comments or trailing commas (fuzz19; docs/cli.md, "Files that are not
inputs"). Before, an `opencode.json` beside the manifests failed the whole run with exit 2.

The tool files are in the shapes their tools document: opencode's config (https://opencode.ai/config.json schema,
JSON with comments), an ESLint `.eslintrc.json` with a trailing comma, a `jsconfig.json` with a comment.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters.load import UNPARSED_JSON, NonFiniteJson
from shardwise.rules.app.cli import main

GOOD = os.path.join(ROOT, "tests/fixtures/rules/SW104/pass.yaml")

OPENCODE = """{
  "$schema": "https://opencode.ai/config.json",
  // the team's self-hosted model
  "provider": {
    "local": {
      "npm": "@ai-sdk/openai-compatible",
      "options": { "baseURL": "http://llm.internal:8000/v1" },
      "models": { "qwen": { "name": "Qwen2.5-Coder" } }
    }
  }
}
"""
ESLINT = '{\n  "extends": ["eslint:recommended"],\n  "rules": { "semi": ["error", "always"], },\n}\n'
JSCONFIG = '{\n  /* editor only */\n  "compilerOptions": { "checkJs": true }\n}\n'
BROKEN_DEPLOYMENT = """{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  // a comment kubectl refuses
  "metadata": { "name": "vllm" }
}
"""
FLOW_STYLE = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: y},}\n"
VLLM_TOOL = '{\n  // run the server locally\n  "image": "vllm/vllm-openai:v0.10.1",\n  "runArgs": ["--gpus=all"]\n}\n'


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    shutil.copy(GOOD, tmp_path / "deploy.yaml")
    (tmp_path / "opencode.json").write_text(OPENCODE)
    (tmp_path / "web").mkdir()
    (tmp_path / "web/.eslintrc.json").write_text(ESLINT)
    (tmp_path / "web/jsconfig.json").write_text(JSCONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_tool_json_with_comments_met_while_searching_is_skipped(repo, capsys):
    rc, doc = lint(capsys, ".")
    assert doc["input_errors"] == []
    assert [(s["file"], s["reason"]) for s in doc["skipped_files"]] == [
        ("opencode.json", UNPARSED_JSON), ("web/.eslintrc.json", UNPARSED_JSON), ("web/jsconfig.json", UNPARSED_JSON)]
    assert doc["summary"]["files"] == 1 and doc["summary"]["workloads"] == 3  # pass.yaml's three
    alone, _ = lint(capsys, "deploy.yaml")
    assert (rc, alone) == (1, 1)  # its own findings decide (SW401), as without the tool files


def test_the_same_file_named_is_an_input_error(repo, capsys):
    rc, doc = lint(capsys, "deploy.yaml", "opencode.json")
    assert [(e["file"], e["line"], e["message"]) for e in doc["input_errors"]] == [
        ("opencode.json", 3, "cannot parse JSON: Expecting property name enclosed in double quotes")]
    assert rc == 2


@pytest.mark.parametrize("text", [BROKEN_DEPLOYMENT, FLOW_STYLE, VLLM_TOOL, '{"\\u006bind": "Pod",}'])
def test_json_that_could_be_an_input_stays_an_error_when_searched(repo, capsys, text):
    (repo / "web/app.json").write_text(text)
    rc, doc = lint(capsys, ".")
    assert [e["file"] for e in doc["input_errors"]] == ["web/app.json"]
    assert "web/app.json" not in [s["file"] for s in doc["skipped_files"]]
    assert rc == 2


def test_a_folder_of_tool_json_alone_reads_nothing_and_passes(tmp_path, capsys):
    (tmp_path / "opencode.json").write_text(OPENCODE)
    rc, doc = lint(capsys, str(tmp_path))
    assert doc["input_errors"] == [] and doc["summary"]["files"] == 0
    assert rc == 0


#: A feature row a Python program saved with json.dump (its default allow_nan writes NaN for a missing float): the
#: shape of a sample request kept beside a model server's manifests (corpus27).
SAMPLE = '{"type": 3, "sum": 1500000.0, "feature_0": 0, "feature_1": NaN, "feature_2": Infinity}\n'


def test_data_json_with_nan_met_while_searching_is_skipped(repo, capsys):
    (repo / "data").mkdir()
    (repo / "data/sample.json").write_text(SAMPLE)
    rc, doc = lint(capsys, ".")
    assert (doc["input_errors"], sorted((s["file"], s["reason"]) for s in doc["skipped_files"])) == ([], [
        ("data/sample.json", NonFiniteJson.reason), ("opencode.json", UNPARSED_JSON),
        ("web/.eslintrc.json", UNPARSED_JSON), ("web/jsconfig.json", UNPARSED_JSON)])
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide, as without the file
    rc, doc = lint(capsys, "data/sample.json")  # named: the user asked for it, an input error as before
    assert (rc, [e["message"] for e in doc["input_errors"]]) == (2, [
        "cannot parse JSON: NaN is not a JSON number (JSON has no NaN or infinity); write a number, or null"])


def test_json_with_nan_naming_an_input_stays_an_error_when_searched(repo, capsys):
    (repo / "web/app.json").write_text('{"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": NaN}}')
    rc, doc = lint(capsys, ".")
    assert ([e["file"] for e in doc["input_errors"]], rc) == (["web/app.json"], 2)


#: Three runs of vLLM's serving benchmark saved with --save-result --append-result (vllm bench serve opens the .json
#: result file in append mode and writes each run's result on a new line): the shape of a benchmark harness's
#: results kept beside its manifests (corpus30). The "deployment" key names the setup benchmarked, not a Pulumi file.
RESULTS = "\n".join(json.dumps({
    "date": f"20250530-19{m:02d}00", "backend": "vllm", "model_id": "meta-llama/Llama-3.2-3B-Instruct",
    "deployment": setup, "gpu": "4xNVIDIA_L40S", "request_rate": rate, "completed": 300,
    "request_throughput": tput, "max_concurrency": None}) for m, setup, rate, tput in (
        (1, "no-features", 10.0, 8.37), (9, "base", 10.0, 8.41), (17, "kvcache", 20.0, 15.9)))
TWO_OBJECTS = ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}\n'
               '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}\n')


def test_json_lines_of_benchmark_results_are_skipped_searched_or_named(repo, capsys):
    from shardwise.rules.adapters.load import JSON_LINES

    (repo / "graphs").mkdir()
    (repo / "graphs/results.json").write_text(RESULTS + "\n")
    rc, doc = lint(capsys, ".")
    assert (doc["input_errors"], [s["reason"] for s in doc["skipped_files"] if s["file"] == "graphs/results.json"]) \
        == ([], [JSON_LINES])
    assert doc["summary"]["workloads"] == 3 and rc == 1  # pass.yaml's own findings decide, as without the file
    rc, doc = lint(capsys, "graphs/results.json")  # named: valid JSON Lines of data, skipped as a data file is
    assert (rc, doc["input_errors"], [s["reason"] for s in doc["skipped_files"]]) == (0, [], [JSON_LINES])


@pytest.mark.parametrize("text, message, line", [
    (TWO_OBJECTS + "7\n", "cannot parse JSON: Extra data", 2),  # a value that is no object: kubectl refuses it
    (RESULTS + "\n{\"date\": \n", "cannot parse JSON: Extra data", 2),  # a value does not parse: as before
])
def test_json_lines_holding_an_input_or_a_broken_value_stay_an_error(repo, capsys, text, message, line):
    (repo / "web/app.json").write_text(text)
    rc, doc = lint(capsys, ".")
    assert ([(e["file"], e["line"], e["message"]) for e in doc["input_errors"]], rc) == (
        [("web/app.json", line, message)], 2)


def _as_json_stream(path: str, sep: str) -> str:
    """The documents of a YAML file as `kubectl create --dry-run=client -o json` writes each object (four spaces of
    indent), appended one after another with ``sep`` between them: the JSON stream kubectl applies."""
    import yaml

    with open(path) as f:
        return sep.join(json.dumps(doc, indent=4) for doc in yaml.safe_load_all(f) if doc) + "\n"


@pytest.mark.parametrize("sep", ["\n", "\n\n", ""])  # one a line, a blank line between, "}{" as Go writes them
def test_a_json_stream_of_kubernetes_objects_is_read_object_by_object(repo, capsys, sep):
    # apimachinery's YAMLOrJSONDecoder reads a text starting with "{" with Go's json.Decoder, value after value:
    # kubectl applies every object; before, the file was the input error "cannot parse JSON: Extra data"
    fail = os.path.join(ROOT, "tests/fixtures/rules/SW101/fail.yaml")
    text = _as_json_stream(fail, sep)
    (repo / "web/app.json").write_text(text)
    rc, doc = lint(capsys, "web/app.json")
    _, want = lint(capsys, fail)
    got = [(f["code"], f["subject"]) for f in doc["findings"]]
    assert (rc, doc["input_errors"], got) == (1, [], [(f["code"], f["subject"]) for f in want["findings"]])
    assert doc["summary"]["workloads"] == want["summary"]["workloads"] == 4
    lines = text.splitlines()  # each at its own object's lines: the model argument of its container
    assert [lines[f["line"] - 1].strip() for f in doc["findings"] if f["code"] == "SW101"] == [
        '"meta-llama/Llama-3.1-70B-Instruct",', '"--tensor-parallel-size",', '"Qwen/Qwen2.5-32B-Instruct",',
        '"meta-llama/Llama-3.1-70B-Instruct",']


#: A Grafana dashboard panel that writes fieldConfig twice (Grafana keeps the last, as Go's encoding/json does): the
#: shape of the observability dashboards kept beside a KubeRay and vLLM repository's manifests (corpus33); its
#: thresholds' "steps" key is no Pulumi preview's.
DASHBOARD = json.dumps({"title": "RAG pipeline", "panels": [{"id": 4, "type": "timeseries", "title": "QA fallbacks",
                        "fieldConfig": {"defaults": {"unit": "reqps"}},
                        "targets": [{"expr": "sum(rate(vllm:num_requests_running[5m]))", "refId": "A"}],
                        "thresholds": {"mode": "absolute", "steps": [{"color": "green", "value": None}]}}]},
                       indent=2).replace('"targets"', '"fieldConfig": {"defaults": {"unit": "short"}},\n      "targets"')


def test_a_dashboard_with_a_key_written_twice_is_skipped_when_searched_and_an_error_when_named(repo, capsys):
    from shardwise.rules.adapters.load import DuplicateKeyJson

    (repo / "dashboards").mkdir()
    (repo / "dashboards/rag.json").write_text(DASHBOARD)
    rc, doc = lint(capsys, ".")
    assert (doc["input_errors"], [s["reason"] for s in doc["skipped_files"] if s["file"] == "dashboards/rag.json"]) \
        == ([], [DuplicateKeyJson.reason])
    assert rc == 1  # pass.yaml's own findings decide, as without the dashboard
    rc, doc = lint(capsys, "dashboards/rag.json")
    assert (rc, [e["message"] for e in doc["input_errors"]]) == (2, [
        'cannot parse JSON: duplicate key "fieldConfig": an object\'s keys must be unique, keep one'])


@pytest.mark.parametrize("text", [
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1", "x": "2"}}',
    '{"apiVersion": "apps/v1", "kind": "Deployment", "kind": "Deployment", "metadata": {"name": "vllm"}}',
])
def test_a_manifest_with_a_key_written_twice_stays_an_error_when_searched(repo, capsys, text):
    (repo / "web/app.json").write_text(text)
    rc, doc = lint(capsys, ".")
    assert ([e["file"] for e in doc["input_errors"]], rc) == (["web/app.json"], 2)
