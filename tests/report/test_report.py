"""Report formats: text, JSON, SARIF 2.1.0, GitHub annotations, Markdown — from hand-built findings."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from repo_paths import SCHEMAS
from shardwise.rules.adapters.config import Settings
from shardwise.rules.app.run import render
from shardwise.rules.capacity.sizing import size_replica
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.engine import Finding, LintConfig, RuleMeta
from shardwise.rules.model import UNKNOWN, EngineArgs, Inventory, Location, NodePool, ServingGroup
from shardwise.rules.model.errors import InputError
from shardwise.rules.report import Report, pascal_case, workload_summary
from shardwise.rules.report.github import annotation, escape_data, escape_property
from shardwise.rules.report.markdown import cell
from shardwise.rules.report.sarif import artifact_uri

from shardwise import __version__

SCHEMA = json.loads((SCHEMAS / "sarif-2.1.0-trimmed.json").read_text())


def meta(code: str, name: str, enforcement: str = "mandatory") -> RuleMeta:
    return RuleMeta(
        code=code, name=name, enforcement=enforcement, severity="high",  # type: ignore[arg-type]
        summary=f"{name} summary.", why=f"{name} why.", bad_example="bad: 1", good_example="good: 1",
        remediation=f"Fix {name}.", references=("https://docs.vllm.ai/",),
    )


METAS = {
    "SW103": meta("SW103", "kv-budget-below-load"),
    "SW104": meta("SW104", "sharded-model-that-fits"),
    "SW106": meta("SW106", "sharding-avoidable-by-quantization", "advisory"),
}

LLAMA = Location("deploy/llama.yaml", 12)
F_BLOCK = Finding(
    "SW104", "sharded-model-that-fits", "mandatory", "high",
    "100% sharded | over 4 GPUs, needs 1: replicate\ninstead", LLAMA, "Deployment serving/llama70b",
)
F_ADVISORY = Finding(
    "SW106", "sharding-avoidable-by-quantization", "advisory", "high",
    "an AWQ variant would fit one GPU", LLAMA, "Deployment serving/llama70b",
)
F_SUPPRESSED = Finding(
    "SW103", "kv-budget-below-load", "mandatory", "high", "32 × 8,192 tokens needs more KV",
    Location("deploy/other.yaml", 3), "Deployment serving/other", suppressed=True,
    suppression_reason="load measured at 12 concurrent",
)
URN = "urn:pulumi:prod::shardwise::shardwise:serving:VllmService::llama"
F_URN = Finding(
    "SW106", "sharding-avoidable-by-quantization", "advisory", "high", "urn only",
    Location(urn=URN), "VllmService llama",
)


def llama_group() -> ServingGroup:
    pool = NodePool("p5", kind="labels", gpu=find_gpu("H100"), gpus_per_node=8)
    return ServingGroup(
        name="llama70b", kind="Deployment", namespace="serving", location=LLAMA,
        engine=EngineArgs(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4,
                          max_model_len=32768, max_num_seqs=32),
        model=find_model("meta-llama/Llama-3.1-70B-Instruct"), replicas=2, pool=pool,
    )


def other_group() -> ServingGroup:
    return ServingGroup(
        name="other", kind="Deployment", namespace="serving", location=Location("deploy/other.yaml", 3),
        engine=EngineArgs(model="meta-llama/Llama-3.1-8B-Instruct"),
        model=find_model("meta-llama/Llama-3.1-8B-Instruct"), replicas=1,
    )


@pytest.fixture
def report() -> Report:
    inv = Inventory(groups=[llama_group(), other_group()],
                    skipped=Counter({"ConfigMap": 2, "Secret": 1}),
                    sources=["deploy/llama.yaml", "deploy/other.yaml"])
    settings = Settings(lint=LintConfig(p95_context_tokens=8192), fail_on="mandatory")
    return Report([F_BLOCK, F_ADVISORY, F_SUPPRESSED, F_URN], inv, settings, METAS, ["deploy"])


# ---------------------------------------------------------------------------------------- summary


def test_summary_and_exit_code(report):
    assert report.summary() == {
        "files": 2, "workloads": 2, "findings": {"mandatory": 1, "advisory": 2}, "suppressed": 1,
        "blocking": 1, "fail_on": "mandatory", "passed": False, "skipped": {"ConfigMap": 2, "Secret": 1},
        "skipped_files": {}, "excluded": 0, "input_errors": 0, "note": None,
    }
    assert report.exit_code == 1
    assert report.summary_line() == (
        "shardwise: 2 files read, 2 workloads, 1 mandatory finding, 2 advisory findings, 1 suppressed; "
        "skipped 3 objects of unknown kinds: ConfigMap×2, Secret×1 — failed: 1 blocking finding at or "
        "above mandatory"
    )


def test_create_baseline_summary_says_what_it_wrote():
    """--create-baseline: the findings written by level, and what it left out (adopt17, adopt18: "0 mandatory
    findings, 0 advisory findings" beside "34 findings written")."""
    internal = dataclasses.replace(F_BLOCK, internal=True)
    r = Report([internal, F_SUPPRESSED], Inventory(sources=["a.yaml"]), baseline_file="b.json",
               baselined=[F_BLOCK, F_ADVISORY, F_URN], baseline_written=True)
    assert r.summary_line() == (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs); 3 findings written to the "
        "baseline b.json (1 mandatory, 2 advisory); 1 finding not written (a rule crashed: internal errors always "
        "block); 1 suppressed, not written — failed: 1 blocking finding at or above mandatory")


def test_fail_on_advisory_blocks_advisory_findings(report):
    report.settings.fail_on = "advisory"
    assert report.blocking == [F_BLOCK, F_ADVISORY, F_URN]
    assert report.exit_code == 1


def test_only_suppressed_and_advisory_passes():
    inv = Inventory(sources=["a.yaml"])
    r = Report([F_ADVISORY, F_SUPPRESSED], inv)
    assert r.exit_code == 0
    assert r.summary_line() == (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 1 advisory "
        "finding, 1 suppressed — passed"
    )


@pytest.mark.parametrize(("issues", "note"), [
    ([("unparsed", 1)], "no vLLM workload could be read, though 1 container runs a vLLM image with a command "
                        "shardwise cannot read: see SW002"),
    ([("unparsed", 4), ("mentioned", 1)],
     "no vLLM workload could be read, though 4 containers run a vLLM image with a command shardwise cannot read: see "
     "SW002; 1 object mentions vLLM: see SW005"),
    ([("mentioned", 2)], "no vLLM workload could be read, though 2 objects mention vLLM: see SW005"),
    ([("crash", 1)], "no vLLM workload found in the inputs"),
    # corpus28: an Argo CD Application of another repository names no vLLM; what it deploys was not read
    ([("source", 1)], "no vLLM workload found in the inputs; 1 object deploys a source that was not read: see SW005"),
    ([("mentioned", 1), ("source", 2)],
     "no vLLM workload could be read, though 1 object mentions vLLM: see SW005; 2 objects deploy a source that was "
     "not read: see SW005"),
])
def test_the_note_of_a_run_without_workloads_names_the_vllm_it_saw(issues, note):
    """A repository whose RayServices and LeaderWorkerSets run vLLM images through scripts (awslabs/ai-on-eks) got
    four SW002 findings and the summary "no vLLM workload found in the inputs" (newuser6)."""
    from shardwise.rules.model.inventory import LaunchIssue

    inv = Inventory(sources=["a.yaml"])
    for kind, n in issues:
        for i in range(n):
            inv.launch_issues.append(LaunchIssue(subject=f"Deployment s/{kind}{i}", container="vllm", reason="r",
                                                 crash=kind == "crash", mentioned=kind in ("mentioned", "source"),
                                                 source_unread=kind == "source"))
    assert Report([], inv).note == note


def test_ordered_blocking_then_advisory_then_suppressed(report):
    assert report.ordered() == [F_BLOCK, F_ADVISORY, F_URN, F_SUPPRESSED]


# --------------------------------------------------------------------------------------- workloads


KARPENTER_PRICES = "https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/pricing/zz_generated.pricing_aws.go"


def test_workload_summary_numbers_come_from_size_replica(report):
    w = report.workloads[0]
    # the workload has no container image: the current release is assumed, as for `latest`
    s = size_replica(find_model("meta-llama/Llama-3.1-70B-Instruct"), find_gpu("H100").memory_gib, tp=4,
                     max_model_len=32768, max_num_seqs=32, expected_context=8192, gpu=find_gpu("H100"))
    assert w == {
        "subject": "Deployment serving/llama70b", "name": "llama70b", "kind": "Deployment",
        "namespace": "serving", "file": "deploy/llama.yaml", "line": 12, "urn": None,
        "model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "H100-SXM-80GB",
        "gpu_memory_gib": find_gpu("H100").memory_gib, "replicas": 2, "tensor_parallel_size": 4,
        "pipeline_parallel_size": 1, "gpus_per_replica": 4, "gpus_total": 8, "max_model_len": 32768,
        "max_num_seqs": 32, "p95_context": 8192, "target_concurrency": None,
        "weights_gib_per_gpu": round(s.weights_gib_per_gpu, 2),
        "kv_cache_gib_per_gpu": round(s.kv_cache_gib_per_gpu, 2),
        "headroom_gib_per_gpu": None,  # no load declared: max_num_seqs 32 is a cap, not a load
        "kv_cache_tokens": s.kv_cache_tokens, "max_concurrency": int(s.max_concurrency),
        "concurrency_at_p95": s.concurrency_at_expected_context, "starts": True, "note": None,
        "data_parallel_size": 1,
        # the pool names the H100 and 8 GPUs per node but no instance type: the catalog's 8-GPU H100 instance
        # is assumed; 2 replicas × 4 GPUs share one node
        "cost": {
            "gpus": 8, "nodes": 1, "gpus_per_node": 8, "instance_type": "p5.48xlarge", "instance_assumed": True,
            "price_per_hour_usd": 55.04, "price_source": KARPENTER_PRICES, "price_date": "2026-07-20",
            "hourly_usd": 55.04, "monthly_usd": 40179.2, "output_tokens_per_second": None,
            "usd_per_million_output_tokens": None, "note": None, "spot_only": False,
        },
    }
    # the numbers themselves, from the documented formulas: 70.55B params × 2 B ÷ 4 GPUs
    assert w["weights_gib_per_gpu"] == round((70_553_706_496 * 2 / 4 + 131072 * 128 * 2) / 2**30, 2) == 32.89
    assert s.kv_bytes_per_token_per_gpu == 2 * 80 * (8 // 4) * 128 * 2
    assert w["max_concurrency"] == s.kv_cache_tokens // 32768
    assert w["concurrency_at_p95"] == s.kv_cache_tokens // 8192


def test_workload_summary_headroom_is_what_the_declared_load_leaves(report):
    """64 sequences declared over the 2 replicas: 32 each × 8,192 tokens × 81,920 B per token per GPU = 20 GiB."""
    g = llama_group()
    g.target_concurrency = 64
    w = workload_summary(g, LintConfig(p95_context_tokens=8192))
    s = size_replica(find_model("meta-llama/Llama-3.1-70B-Instruct"), find_gpu("H100").memory_gib, tp=4,
                     max_model_len=32768, max_num_seqs=32, expected_context=8192, gpu=find_gpu("H100"))
    assert (w["target_concurrency"], w["headroom_gib_per_gpu"]) == (64, round(s.kv_cache_gib_per_gpu - 32 * 0.625, 2))


def test_workload_without_pool_is_not_sized(report):
    w = report.workloads[1]
    assert (w["gpu"], w["gpus_total"], w["kv_cache_tokens"], w["note"]) == (
        None, 1, None, "no GPU pool matches the workload"
    )


def test_workload_with_unknown_values_says_which():
    g = llama_group()
    g.engine.max_num_seqs = UNKNOWN
    g.replicas = UNKNOWN
    w = workload_summary(g, LintConfig())
    assert (w["replicas"], w["gpus_total"], w["max_num_seqs"], w["note"]) == (
        None, None, None, "unknown: max_num_seqs"
    )
    json.dumps(w)  # JSON-safe


def test_pool_memory_label_wins_over_catalog():
    g = llama_group()
    g.pool.gpu_memory_gib = 80.0  # type: ignore[union-attr]
    assert workload_summary(g, LintConfig())["gpu_memory_gib"] == 80.0


# -------------------------------------------------------------------------------------------- text


def test_text_lines(report):
    assert render(report, "text").splitlines() == [
        "deploy/llama.yaml:12: SW104 [mandatory] 100% sharded | over 4 GPUs, needs 1: replicate\\ninstead "
        "(Deployment serving/llama70b)",  # a line break in a message starts no line of its own
        "deploy/llama.yaml:12: SW106 [advisory] an AWQ variant would fit one GPU "
        "(Deployment serving/llama70b)",
        "deploy/other.yaml:3: SW103 [mandatory] 32 × 8,192 tokens needs more KV "
        "(Deployment serving/other) (suppressed: load measured at 12 concurrent)",
        f"{URN}: SW106 [advisory] urn only (VllmService llama)",
        report.summary_line(),
    ]


def test_text_colour_only_when_asked(report):
    plain = render(report, "text")
    coloured = render(report, "text", color=True)
    assert "\033[" not in plain
    assert "\033[1;31mSW104 [mandatory]\033[0m" in coloured
    assert "\033[2mdeploy/other.yaml:3: SW103" in coloured


# -------------------------------------------------------------------------------------------- json


def test_json_document(report):
    doc = json.loads(render(report, "json"))
    assert list(doc) == ["version", "findings", "input_errors", "workloads", "skipped_files", "excluded", "summary"]
    assert (doc["input_errors"], doc["skipped_files"], doc["excluded"]) == ([], [], [])
    assert doc["version"] == __version__
    assert doc["findings"] == [f.as_dict() for f in report.findings]
    assert doc["findings"][2]["suppression_reason"] == "load measured at 12 concurrent"
    assert doc["workloads"] == report.workloads
    assert doc["summary"] == report.summary()


def test_json_layout_encodes_each_item_as_the_encoder_does(monkeypatch):
    """The list items are encoded by one C encoder made per report (json_.item_encoder): the text of each is
    ``JSONEncoder(ensure_ascii=False).encode``'s, byte for byte, and the layout is the same where the C encoder is
    not built."""
    from shardwise.rules.report import json_

    items = [{"a": 1.5, "b": None, "c": [True, False], "d": "GPU × 8 − 2 \u00e9 \"q\"\n", "e": float("inf")},
             "text é", 7, 2.0, [], {}, {"nested": {"x": [1, {"y": float("nan")}]}}]
    obj = {"findings": items, "summary": {"files": 2, "by": {"SW101": 1}}, "excluded": []}
    want = ("{\n  \"findings\": [\n    "
            + ",\n    ".join(json.JSONEncoder(ensure_ascii=False).encode(v) for v in items)
            + "\n  ],\n  \"summary\": {\n    \"files\": 2,\n    \"by\": {\n      \"SW101\": 1\n    }\n  },\n"
            "  \"excluded\": []\n}\n")
    assert json_.layout(obj) == want
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    assert json_.layout(obj) == want
    # items encoded already (a split run's workload summaries) are written as they are
    texts = json_.EncodedItems(json.JSONEncoder(ensure_ascii=False).encode(v) for v in items)
    assert json_.layout({**obj, "findings": texts}) == want


def test_a_summary_s_text_is_the_json_report_s_line_and_reads_back_equal(report):
    """What a split run's processes send back for each workload (summary.workload_summary_text): the JSON report's
    own encoding of the summary, which json.loads turns back into an equal dict (only JSON's own types in it)."""
    from shardwise.rules.report import json_
    from shardwise.rules.report.summary import workload_summary_text

    config = report.settings.lint
    for g, w in zip(report.inventory.groups, report.workloads, strict=True):
        text = workload_summary_text(g, config)
        assert text == json.JSONEncoder(ensure_ascii=False).encode(w) == json_.item_encoder()(w)
        assert json.loads(text) == w
    texts = [workload_summary_text(g, config) for g in report.inventory.groups]
    split = dataclasses.replace(report, workloads_text=texts)
    assert split.workloads == report.workloads
    assert render(split, "json") == render(report, "json")


# ------------------------------------------------------------------------------------------- sarif


def test_sarif_validates_against_trimmed_schema(report):
    doc = json.loads(render(report, "sarif"))
    jsonschema.validate(doc, SCHEMA)
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0"


def test_sarif_driver_and_rules(report, monkeypatch):
    monkeypatch.delenv("SHARDWISE_DOCS_URL", raising=False)
    run = json.loads(render(report, "sarif"))["runs"][0]
    driver = run["tool"]["driver"]
    # the repository URL is pyproject's [project.urls] Repository, read from the installed metadata
    assert (driver["name"], driver["version"], driver["informationUri"]) == (
        "shardwise", __version__, "https://github.com/shardwise/shardwise"
    )
    assert [r["id"] for r in driver["rules"]] == ["SW103", "SW104", "SW106"]
    # no docs site is published: no helpUri, the help names the documentation installed with the package
    assert driver["rules"][1] == {
        "id": "SW104",
        "name": "ShardedModelThatFits",
        "shortDescription": {"text": "sharded-model-that-fits summary."},
        "fullDescription": {"text": "sharded-model-that-fits why."},
        "help": {
            "text": "Fix sharded-model-that-fits.",
            "markdown": "Fix sharded-model-that-fits.\n\n**Why:** sharded-model-that-fits why.\n\n"
            "Rule documentation: `shardwise explain SW104`",
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["capacity", "high", "vllm", "kubernetes"], "precision": "high",
                       "problem.severity": "error"},
    }
    # one configurable base URL for every rule link
    monkeypatch.setenv("SHARDWISE_DOCS_URL", "https://docs.example.org/shardwise/rules/")
    linked = json.loads(render(report, "sarif"))["runs"][0]["tool"]["driver"]["rules"][1]
    assert linked["helpUri"] == "https://docs.example.org/shardwise/rules/SW104.md"
    assert linked["help"]["markdown"].endswith(
        "\n\n[Rule documentation](https://docs.example.org/shardwise/rules/SW104.md)")
    assert list(linked) == ["id", "name", "shortDescription", "fullDescription", "help", "helpUri",
                            "defaultConfiguration", "properties"]
    assert driver["rules"][2]["defaultConfiguration"] == {"level": "warning"}


def test_sarif_results(report):
    run = json.loads(render(report, "sarif"))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [(r["ruleId"], rules[r["ruleIndex"]]["id"], r["level"]) for r in results] == [
        ("SW104", "SW104", "error"), ("SW106", "SW106", "warning"), ("SW103", "SW103", "error"),
        ("SW106", "SW106", "warning"),
    ]
    # the code is the result's ruleId, not repeated in its message (adopt18: "SW104 … SW104: …" in code scanning)
    assert results[0]["message"] == {
        "text": "100% sharded | over 4 GPUs, needs 1: replicate\ninstead (Deployment serving/llama70b)"
    }
    assert results[0]["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "deploy/llama.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 12},
    }}]
    assert "suppressions" not in results[0]
    assert results[2]["suppressions"] == [{"kind": "inSource", "justification": "load measured at 12 concurrent"}]
    assert results[3]["locations"] == [{"logicalLocations": [{"fullyQualifiedName": URN, "kind": "resource"}]}]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == Path(os.getcwd()).resolve().as_uri() + "/"


def test_sarif_finding_without_any_location_points_at_first_file():
    f = Finding("SW104", "sharded-model-that-fits", "mandatory", "high", "m", Location(), "(inventory)")
    r = Report([f], Inventory(sources=["stacks/Pulumi.prod.yaml"]), metas=METAS)
    res = json.loads(render(r, "sarif"))["runs"][0]["results"][0]
    assert res["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "stacks/Pulumi.prod.yaml", "uriBaseId": "%SRCROOT%"}}}]


def test_sarif_rule_missing_from_registry_gets_a_descriptor():
    f = Finding("SW999", "made-up", "advisory", "low", "m", Location("a.yaml", 1), "x")
    r = Report([f], Inventory(sources=["a.yaml"]), metas=METAS)
    doc = json.loads(render(r, "sarif"))
    jsonschema.validate(doc, SCHEMA)
    run = doc["runs"][0]
    assert run["results"][0]["ruleIndex"] == 3
    assert run["tool"]["driver"]["rules"][3]["id"] == "SW999"


def test_artifact_uri_is_relative_and_encoded(tmp_path):
    assert artifact_uri("./deploy/../deploy/a b.yaml", str(tmp_path)) == "deploy/a%20b.yaml"
    assert artifact_uri(str(tmp_path / "x" / "y.yaml"), str(tmp_path)) == "x/y.yaml"


def test_security_rules_carry_security_severity():
    from shardwise.rules.report.sarif import rule_descriptor

    d = rule_descriptor(meta("SW301", "runtime-port-exposed"))
    assert d["properties"]["tags"] == ["security", "high", "vllm", "kubernetes"]
    assert d["properties"]["security-severity"] == "8.0"
    assert "security-severity" not in rule_descriptor(meta("SW104", "x"))["properties"]
    jsonschema.validate({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "s", "rules": [d]}}}]}, SCHEMA)


# ------------------------------------------------------------------------------------------ github


def test_github_escaping():
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    # fuzz25: a control character other than a line break is never written raw (a path in kustomize's error)
    assert escape_data("evil\x1b[31mRED\x1b]0;t\x07\tx\u2028") == "evil\\x1b[31mRED\\x1b]0;t\\x07\tx\\u2028"
    assert escape_property("a\x1b,b") == "a\\x1b%2Cb"


def test_github_annotations(report):
    assert render(report, "github").splitlines() == [
        "::error file=deploy/llama.yaml,line=12,title=sharded-model-that-fits::SW104: 100%25 "
        "sharded | over 4 GPUs, needs 1: replicate%0Ainstead (Deployment serving/llama70b)",
        "::warning file=deploy/llama.yaml,line=12,title=sharding-avoidable-by-quantization::SW106: "
        "an AWQ variant would fit one GPU (Deployment serving/llama70b)",
        "::warning title=sharding-avoidable-by-quantization::SW106: urn only (VllmService llama)",
    ]


def test_github_annotations_of_a_report_only_run_are_warnings(report):
    """--fail-on none fails nothing, so no finding paints the pull request red: the mandatory SW104 is a warning
    there (it was an error, failnone18's note), with the same place, title and message."""
    report.settings.fail_on = "none"
    assert report.exit_code == 0
    assert render(report, "github").splitlines() == [
        "::warning file=deploy/llama.yaml,line=12,title=sharded-model-that-fits::SW104: 100%25 "
        "sharded | over 4 GPUs, needs 1: replicate%0Ainstead (Deployment serving/llama70b)",
        "::warning file=deploy/llama.yaml,line=12,title=sharding-avoidable-by-quantization::SW106: "
        "an AWQ variant would fit one GPU (Deployment serving/llama70b)",
        "::warning title=sharding-avoidable-by-quantization::SW106: urn only (VllmService llama)",
    ]


def test_github_annotations_of_findings_that_fail_the_run_are_errors(report):
    """--fail-on advisory fails the run on the advisory SW106 (exit 1), so its annotations are errors as the exit
    status says, not warnings on a failed run (adopt20); the title is the rule's name and the code leads the message
    once."""
    report.settings.fail_on = "advisory"
    assert report.exit_code == 1
    assert [line.split(" ", 1)[0] for line in render(report, "github").splitlines()] == ["::error"] * 3


def test_sarif_levels_follow_what_fails_the_run(report):
    """At the default gate the advisory SW106 is a warning; under --fail-on advisory it fails the run and is an error,
    while the invocation still succeeded (the tool ran to completion: SARIF's executionSuccessful)."""
    def levels() -> list[tuple[str, str]]:
        doc = json.loads(render(report, "sarif"))
        return [(r["ruleId"], r["level"]) for r in doc["runs"][0]["results"]]

    # SW103 is suppressed: it fails nothing and keeps its rule's level
    assert levels() == [("SW104", "error"), ("SW106", "warning"), ("SW103", "error"), ("SW106", "warning")]
    report.settings.fail_on = "advisory"
    assert levels() == [("SW104", "error"), ("SW106", "error"), ("SW103", "error"), ("SW106", "error")]
    assert json.loads(render(report, "sarif"))["runs"][0]["invocations"][0]["executionSuccessful"] is True
    report.settings.fail_on = "none"  # report-only: each result keeps its rule's level, and fails nothing
    assert levels() == [("SW104", "error"), ("SW106", "warning"), ("SW103", "error"), ("SW106", "warning")]


def test_github_report_only_run_keeps_input_errors_as_errors(broken):
    """An unreadable input fails a report-only run too (exit 2), so its annotation stays an error."""
    broken.settings.fail_on = "none"
    assert broken.exit_code == 2
    lines = render(broken, "github").splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error"] * 3 + ["::warning"] * 3


def test_github_file_with_comma_and_colon_is_escaped():
    f = Finding("SW104", "x", "mandatory", "high", "m", Location("a,b:c.yaml", 7), "s")
    assert annotation(f) == "::error file=a%2Cb%3Ac.yaml,line=7,title=x::SW104: m (s)"


def test_a_finding_read_through_a_render_is_placed_on_its_file():
    """newuser12: a finding on what an Argo CD Application or an overlay renders names its file with what it came
    through (``TEMPLATE (via Application argocd/chat-prod)``); GitHub and a code scanner place an annotation or a
    result only on a file of the repository, so they name the template (the kustomization) and say the rest in the
    message. The text report keeps the file as it was."""
    via = "charts/vllm/templates/deployment.yaml (via Application argocd/chat-prod)"
    built = "deploy/prod/kustomization.yaml (kustomize build) (via Kustomization flux-system/prod)"
    findings = [Finding("SW104", "sharded-model-that-fits", "mandatory", "high", "m", Location(via, 24),
                        "Deployment chat/chat-vllm"),
                Finding("SW305", "namespace-without-default-deny", "advisory", "medium", "n", Location(built, 1),
                        "Namespace prod"),
                Finding("SW402", "liveness-without-startup-probe", "mandatory", "high", "o",
                        Location("base/deploy.yaml (via overlays/prod/kustomization.yaml)", 20), "Deployment p/e")]
    error = InputError("cannot parse YAML", "deploy/prod/kustomization.yaml (kustomize build)", 3)
    r = Report(findings, Inventory(sources=[via], errors=[error]), metas=METAS)
    assert render(r, "github").splitlines() == [
        "::error file=deploy/prod/kustomization.yaml,line=3,title=shardwise input error::cannot parse YAML "
        "(kustomize build)",
        "::error file=charts/vllm/templates/deployment.yaml,line=24,title=sharded-model-that-fits::SW104: m "
        "(Deployment chat/chat-vllm; via Application argocd/chat-prod)",
        "::warning file=deploy/prod/kustomization.yaml,line=1,title=namespace-without-default-deny::SW305: n "
        "(Namespace prod; kustomize build; via Kustomization flux-system/prod)",
        "::error file=base/deploy.yaml,line=20,title=liveness-without-startup-probe::SW402: o "
        "(Deployment p/e; via overlays/prod/kustomization.yaml)",
    ]
    run = json.loads(render(r, "sarif"))["runs"][0]
    assert [(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             x["locations"][0]["physicalLocation"]["region"]["startLine"], x["message"]["text"])
            for x in run["results"]] == [
        ("charts/vllm/templates/deployment.yaml", 24, "m (Deployment chat/chat-vllm; via Application argocd/chat-prod)"),
        ("deploy/prod/kustomization.yaml", 1, "n (Namespace prod; kustomize build; via Kustomization flux-system/prod)"),
        ("base/deploy.yaml", 20, "o (Deployment p/e; via overlays/prod/kustomization.yaml)"),
    ]
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert note["message"]["text"] == "cannot parse YAML (kustomize build)"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/prod/kustomization.yaml"
    assert f"{via}:24: SW104" in render(r, "text")  # the text report names what it came through in the file


def test_a_finding_placed_at_its_origin_through_an_overlay_and_a_flux_object_is_on_the_origin_file():
    """newuser17: an object a Flux Kustomization builds, placed at its base's line, is given to GitHub and a code
    scanner as the base's file, what it came through in the message."""
    placed = "deploy/base/deploy.yaml (via deploy/prod/kustomization.yaml) (via Kustomization flux-system/prod)"
    r = Report([Finding("SW104", "sharded-model-that-fits", "mandatory", "high", "m", Location(placed, 13),
                        "Deployment prod/vllm")], Inventory(sources=[placed]), metas=METAS)
    assert render(r, "github").splitlines() == [
        "::error file=deploy/base/deploy.yaml,line=13,title=sharded-model-that-fits::SW104: m "
        "(Deployment prod/vllm; via deploy/prod/kustomization.yaml; via Kustomization flux-system/prod)"]
    (result,) = json.loads(render(r, "sarif"))["runs"][0]["results"]
    assert (result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            result["locations"][0]["physicalLocation"]["region"]["startLine"]) == ("deploy/base/deploy.yaml", 13)


# ------------------------------------------------------------------------------------ input errors

ERRORS = [
    InputError("cannot parse YAML: a template placeholder {{ … }} is not YAML; render the template first "
               "(helm template …)", "deploy/secret.yaml", 6),
    InputError("cannot read directory: Permission denied", "deploy/private"),
    InputError("not UTF-8 text: byte 0xFF at column 3 is not UTF-8; save the file as UTF-8", "<stdin>", 2),
]


@pytest.fixture
def broken(report) -> Report:
    """The report fixture's run, with input errors, files that are not inputs and excluded paths."""
    report.inventory.errors.extend(ERRORS)
    report.inventory.skipped_files.extend([("chart/Chart.yaml", "Helm chart metadata"),
                                           ("chart/values.yaml", "Helm values"),
                                           ("deploy/kustomization.yaml", "Kustomize file"),
                                           ("chart/values-prod.yaml", "Helm values")])
    report.inventory.excluded.extend(["vendor/", "deploy/old.yaml"])
    return report


def test_input_errors_fail_the_run_with_exit_2(broken):
    assert broken.exit_code == 2
    s = broken.summary()
    assert (s["passed"], s["input_errors"], s["blocking"], s["excluded"]) == (False, 3, 1, 2)
    assert s["skipped_files"] == {"Helm values": 2, "Helm chart metadata": 1, "Kustomize file": 1}
    assert broken.summary_line() == (
        "shardwise: 2 files read, 2 workloads, 1 mandatory finding, 2 advisory findings, 1 suppressed; skipped 3 objects of "
        "unknown kinds: ConfigMap×2, Secret×1; skipped 4 files that are not inputs: Helm values×2, Helm chart "
        "metadata×1, Kustomize file×1 (charts and kustomizations found by searching a folder and not built (no "
        "tool, a failed build, --no-build-found) are not rendered: name their folder, or pipe helm template or kustomize build to shardwise lint -); excluded 2 paths — failed: 3 input errors, 1 blocking finding at or above "
        "mandatory"
    )


def test_input_errors_without_findings_still_exit_2():
    r = Report([F_ADVISORY], Inventory(sources=["a.yaml"], errors=[ERRORS[0]]))
    assert (r.exit_code, r.verdict()) == (2, "failed: 1 input error")


def test_text_lists_input_errors_first(broken):
    lines = render(broken, "text").splitlines()
    assert lines[:3] == [
        "deploy/secret.yaml:6: error: cannot parse YAML: a template placeholder {{ … }} is not YAML; render the "
        "template first (helm template …)",
        "deploy/private: error: cannot read directory: Permission denied",
        "<stdin>:2: error: not UTF-8 text: byte 0xFF at column 3 is not UTF-8; save the file as UTF-8",
    ]
    assert lines[3].startswith("deploy/llama.yaml:12: SW104 [mandatory]")
    assert lines[-1] == broken.summary_line()
    assert render(broken, "text", color=True).splitlines()[1] == (
        "\033[1mdeploy/private\033[0m: \033[1;31merror:\033[0m cannot read directory: Permission denied")


def test_json_carries_input_errors_skipped_files_and_exclusions(broken):
    doc = json.loads(render(broken, "json"))
    assert doc["input_errors"] == [
        {"file": "deploy/secret.yaml", "line": 6, "message": ERRORS[0].message},
        {"file": "deploy/private", "line": None, "message": "cannot read directory: Permission denied"},
        {"file": "<stdin>", "line": 2, "message": ERRORS[2].message},
    ]
    assert doc["skipped_files"][0] == {"file": "chart/Chart.yaml", "reason": "Helm chart metadata"}
    assert doc["excluded"] == ["vendor/", "deploy/old.yaml"]
    assert doc["summary"]["input_errors"] == 3


def test_sarif_input_errors_are_tool_execution_notifications(broken):
    doc = json.loads(render(broken, "sarif"))
    jsonschema.validate(doc, SCHEMA)
    run = doc["runs"][0]
    assert run["tool"]["driver"]["notifications"] == [{
        "id": "input-error", "name": "InputError",
        "shortDescription": {"text": "A file, document or object shardwise could not read; the rest was linted."},
        "defaultConfiguration": {"level": "error"},
    }]
    [invocation] = run["invocations"]
    assert (invocation["executionSuccessful"], invocation["exitCode"]) == (False, 2)
    assert invocation["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": ERRORS[0].message}, "descriptor": {"id": "input-error", "index": 0},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "deploy/secret.yaml", "uriBaseId": "%SRCROOT%"},
             "region": {"startLine": 6}}}]},
        {"level": "error", "message": {"text": "cannot read directory: Permission denied"},
         "descriptor": {"id": "input-error", "index": 0},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "deploy/private",
                                                                  "uriBaseId": "%SRCROOT%"}}}]},
        {"level": "error", "message": {"text": f"<stdin>:2: {ERRORS[2].message}"},
         "descriptor": {"id": "input-error", "index": 0}},
    ]
    assert len(run["results"]) == 4  # the findings of the inputs that were read are all there


def test_sarif_run_without_input_errors_succeeded(report):
    assert json.loads(render(report, "sarif"))["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_github_annotates_input_errors(broken):
    lines = render(broken, "github").splitlines()
    assert lines[:3] == [
        "::error file=deploy/secret.yaml,line=6,title=shardwise input error::cannot parse YAML: a template "
        "placeholder {{ … }} is not YAML; render the template first (helm template …)",
        "::error file=deploy/private,title=shardwise input error::cannot read directory: Permission denied",
        "::error title=shardwise input error::<stdin>:2: not UTF-8 text: byte 0xFF at column 3 is not UTF-8; save "
        "the file as UTF-8",
    ]
    assert len(lines) == 6


def test_a_yaml_syntax_error_gives_its_column_in_every_format():
    """A YAML syntax error carries the reader's column beside its line (adopt18: "broken.yaml:37: error: cannot
    parse YAML: did not find expected key" named no column): text and stderr ``file:line:column``, JSON ``column``
    (only where known: other input errors keep their three keys), SARIF ``startColumn``, GitHub ``col``, Markdown
    ``file:line:column``."""
    e = InputError("cannot parse YAML: did not find expected ',' or ']'", "deploy/lws.yaml", 37, 34)
    other = InputError("cannot read directory: Permission denied", "deploy/private")
    r = Report([], Inventory(sources=["deploy/lws.yaml"], errors=[e, other]))
    assert str(e) == "deploy/lws.yaml:37:34: cannot parse YAML: did not find expected ',' or ']'"
    assert render(r, "text").splitlines()[0] == (
        "deploy/lws.yaml:37:34: error: cannot parse YAML: did not find expected ',' or ']'")
    assert json.loads(render(r, "json"))["input_errors"] == [
        {"file": "deploy/lws.yaml", "line": 37, "column": 34,
         "message": "cannot parse YAML: did not find expected ',' or ']'"},
        {"file": "deploy/private", "line": None, "message": "cannot read directory: Permission denied"},
    ]
    doc = json.loads(render(r, "sarif"))
    jsonschema.validate(doc, SCHEMA)
    notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["locations"][0]["physicalLocation"].get("region") for n in notes] == [
        {"startLine": 37, "startColumn": 34}, None]
    assert render(r, "github").splitlines()[0] == (
        "::error file=deploy/lws.yaml,line=37,col=34,title=shardwise input error::cannot parse YAML: did not find "
        "expected ',' or ']'")
    assert "- `deploy/lws.yaml:37:34` — cannot parse YAML: did not find expected ',' or ']'\n" in render(r, "markdown")
    assert pickle.loads(pickle.dumps(e)).column == 34  # a worker process's error keeps it


def test_a_column_without_a_line_is_dropped():
    assert InputError("m", "f.yaml", None, 4).column is None


def test_markdown_input_errors_and_skipped_files(broken):
    md = render(broken, "markdown")
    assert md.startswith("<!-- shardwise-report -->\n## shardwise report\n\n**❌ Failed** — 3 input errors "
                         "(everything else was read and linted), 1 blocking finding at or above `mandatory`.\n")
    assert "· skipped files that are not inputs: Helm values×2, Helm chart metadata×1, Kustomize file×1\n" in md
    assert "· excluded: 2 paths\n" in md
    assert (
        "### Input errors\n\n"
        "- `deploy/secret.yaml:6` — cannot parse YAML: a template placeholder {{ … }} is not YAML; render the "
        "template first (helm template …)\n"
        "- `deploy/private` — cannot read directory: Permission denied\n"
        "- `<stdin>:2` — not UTF-8 text: byte 0xFF at column 3 is not UTF-8; save the file as UTF-8\n"
    ) in md
    assert md.index("### Input errors") < md.index("### Workloads")


def test_markdown_input_errors_alone():
    md = render(Report([], Inventory(sources=["a.yaml"], errors=[ERRORS[1]])), "markdown")
    assert "**❌ Failed** — 1 input error (everything else was read and linted).\n" in md


# ---------------------------------------------------------------------------------------- markdown


def test_markdown_cell_escapes_pipes():
    assert cell("a|b\nc") == "a\\|b<br>c"
    assert cell(None) == "–"


def test_markdown_report(report):
    md = render(report, "markdown")
    w = report.workloads[0]
    row = (
        f"| Deployment serving/llama70b | meta-llama/Llama-3.1-70B-Instruct | 8 = 2 × 4 × 1 | H100-SXM-80GB "
        f"| {w['weights_gib_per_gpu']:.1f} | {w['kv_cache_gib_per_gpu']:.1f} | – "  # headroom: no load declared
        f"| {w['kv_cache_tokens']:,} | {w['max_concurrency']:,} @ 32,768 | {w['concurrency_at_p95']:,} @ 8,192 "
        "| 1 × p5.48xlarge* | $55.04 | $40,179.20 |"
    )
    assert row in md.splitlines()
    assert "| Deployment serving/other | meta-llama/Llama-3.1-8B-Instruct | 1 = 1 × 1 × 1 | – | – | – | – | – " \
           "| – | – | – | – | – |" in md.splitlines()
    # per-GPU memory of the sized workload, stacked: weights, KV in use, KV headroom, the rest of the GPU
    weights, kv, headroom, total = (w["weights_gib_per_gpu"], w["kv_cache_gib_per_gpu"], w["headroom_gib_per_gpu"],
                                    w["gpu_memory_gib"])
    assert (weights, total) == (32.89, 79.19)
    assert headroom is None  # no load declared: the whole KV cache is headroom
    headroom = kv
    assert (
        "```mermaid\nxychart-beta\n"
        '    title "Per-GPU memory (GiB)"\n'
        '    x-axis ["llama70b"]\n'
        '    y-axis "GiB per GPU" 0 --> 80\n'
        f"    bar [{total:.1f}]\n"
        f"    bar [{weights + kv:.1f}]\n"
        f"    bar [{weights + kv - headroom:.1f}]\n"
        "    bar [32.9]\n"
        "```\n\n"
        "Bars from the bottom: weights · KV cache the declared load uses · KV headroom (KV cache left after that "
        "load) · the rest of the GPU's memory (activations, CUDA graphs, reserve). GiB per GPU, one replica.\n\n"
        "Prices: on-demand Linux, us-east-1, per node-hour, a month of 730 hours; p5.48xlarge $55.04 "
        f"({KARPENTER_PRICES}, published 2026-07-20); * instance type assumed from the GPU (the node pool names "
        "none).\n"
    ) in md
    assert "- Deployment serving/other: not sized — no GPU pool matches the workload" in md
    assert md.startswith("<!-- shardwise-report -->\n## shardwise report\n\n**❌ Failed** — 1 blocking finding "
                         "at or above `mandatory`.\n")
    assert "skipped objects of unknown kinds: ConfigMap×2, Secret×1" in md
    blocking, advisory, suppressed = (md.index("#### Blocking (1)"), md.index("#### Advisory (2)"),
                                      md.index("#### Suppressed (1)"))
    assert blocking < advisory < suppressed
    assert (
        "- **SW103** `kv-budget-below-load` "
        "**mandatory** — 32 × 8,192 tokens needs more KV — `deploy/other.yaml:3` (Deployment "
        "serving/other) — suppressed: load measured at 12 concurrent"
    ) in md
    assert md.count("SW103") == 1  # the code once per finding (it was repeated before the message: adopt18)
    assert "\n\n\n" not in md


def test_markdown_passed_and_empty():
    r = Report([], Inventory(sources=["a.yaml"]))
    md = render(r, "markdown")
    assert "**✅ Passed** — no finding at or above `mandatory`.\n" in md
    assert "No vLLM workloads in the inputs." in md
    assert "No findings." in md


def test_markdown_escapes_pipe_in_table_cells():
    g = llama_group()
    g.name = "a|b"
    md = render(Report([], Inventory(groups=[g], sources=["a.yaml"])), "markdown")
    assert "| Deployment serving/a\\|b |" in md


def test_pascal_case():
    assert pascal_case("tp-across-nodes") == "TpAcrossNodes"
    assert pascal_case("kv_budget-below-load") == "KvBudgetBelowLoad"


def test_unknown_format(report):
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render(report, "xml")


@pytest.mark.parametrize("text", ["ascii only\n", "TP1\u00d7PP1 (\u22120.4/+1.7) \u2014 done\n",
                                  "deploy/\udcff\udcfe bad.yaml: \u00d7\n", "\ud800 alone\n"])
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_report_file_holds_the_bytes_of_its_utf8_text_encoded_once(text, fmt, tmp_path):
    """``--output`` writes :func:`utf8_bytes`: the bytes of :func:`utf8_text` (a lone surrogate escaped), encoded once
    (issue 30), and a file written from them holds what one written from the text holds."""
    from shardwise.rules.app.output import write_atomically
    from shardwise.rules.report.formats import utf8_bytes, utf8_text

    data = utf8_bytes(text, fmt)
    assert data == utf8_text(text, fmt).encode("utf-8")
    write_atomically(str(tmp_path / "from-bytes"), data)
    write_atomically(str(tmp_path / "from-text"), utf8_text(text, fmt))
    assert (tmp_path / "from-bytes").read_bytes() == (tmp_path / "from-text").read_bytes() == data
