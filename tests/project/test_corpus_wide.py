"""The wide corpus of public files (tests/corpus/wide) held to its provenance and its triage.

One in-process lint per repository folder of the corpus (a module-scoped fixture, about 4 s), then:
no traceback and no internal error; no silent pass; every blocking finding triaged in TRIAGE.yaml; no
finding judged false (and fixed) blocks again; every finding judged true still blocks; every file
without a workload triaged. The logic lives in benchmarks/corpus_wide.py, shared with
``bench_corpus.py --wide``; how to add files: tests/corpus/wide/README.md.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest
from repo_paths import ROOT  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus_wide as cw  # noqa: E402  (a module beside the benchmarks, not a package)

HOW = "judge it as a reviewer of that repository would and add it to tests/corpus/wide/TRIAGE.yaml"


@pytest.fixture(scope="module")
def run() -> cw.CorpusRun:
    return cw.lint_corpus()


@pytest.fixture(scope="module")
def triage() -> dict[str, list[dict]]:
    return cw.load_triage()


@pytest.fixture(scope="module")
def assessment(run, triage) -> cw.Assessment:
    return cw.assess(run, triage)


def test_every_file_is_vendored_verbatim_with_its_provenance():
    records = cw.provenance()
    on_disk = sorted(str(p.relative_to(cw.CORPUS)) for p in Path(cw.CORPUS).glob("*__*/*") if p.is_file())
    assert sorted(r["file"] for r in records) == on_disk
    for r in records:
        assert r["licence"] in cw.LICENCES, r
        assert os.path.isfile(os.path.join(cw.CORPUS, r["licence_file"])), r
        assert len(r["commit"]) == 40 and r["repository"].count("/") == 1 and r["path"], r
        assert r["file"] == r["repository"].replace("/", "__", 1) + "/" + r["path"].replace("/", "__"), r
        data = (Path(cw.CORPUS) / r["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == r["sha256"], f"{r['file']} is no longer the file as published"
    assert len(records) >= 300 and len({r["repository"] for r in records}) >= 60


@pytest.mark.parametrize(("text", "serves"), [
    ("    image: quay.io/modh/vllm:rhoai-2.20-cuda\n", True),
    ("    image: registry.example.com/ai/vllm:0.8.5\n", True),
    ('  LLM_BASE_URL: "http://vllm:8000/v1"\n', False),
    ("  OPENAI_API_BASE: https://vllm:8443/v1\n", False),
    ("  LLM_BASE_URL: http://vllm-service:8000/v1\n", False),
    ("          image: \"quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2\"\n", True),
    ("  repository: ghcr.io/neuralmagic/nm-vllm-openai\n", True),
    ("    image: vllm-openai:local\n", True),
    ("    app.kubernetes.io/name: vllm-openai\n", False),
    ('  VLLM_BASE_URL: "http://vllm-openai:8000/v1"\n', False),
    ("  name: vllm-openai-config\n", False),
    ('      - name: OPTION_ROLLING_BATCH\n        value: "vllm"\n', True),
    ("  OPTION_ENTRYPOINT: djl_python.lmi_vllm.vllm_async_service\n", True),
    ("      - name: OPTION_ROLLING_BATCH\n        value: lmi-dist\n      - name: VLLM_X\n", False),
    ('        - "cd /workspace/examples/llm; dynamo serve graphs.disagg:VllmWorker -f configs/disagg.yaml"\n', True),
    ('        - "dynamo serve graphs.disagg:Frontend -f configs/disagg.yaml"\n', False),
])
def test_serves_reads_an_image_not_a_client_url(text, serves):
    """`/vllm:` marks an image (`…/vllm:tag`); a client's URL to a Service named vllm (`http://vllm:8000`) runs
    no engine (0y0h0f0/rag-platform's ConfigMap was counted silent for it). So with `vllm-openai`: an image's
    path or an image/repository value, not a label, a ConfigMap name or a URL's host (corpus batch 15:
    QuentinHamonic/llm-ops-sandbox's ConfigMaps were counted silent)."""
    assert bool(cw.SERVES.search(text)) is serves


def test_no_traceback_and_no_internal_error(run):
    assert run.crashes == {}
    internal = [cw.describe(f) for r in run.files.values() for f in r.findings if f.get("internal")]
    assert internal == []
    assert set(run.exits.values()) <= {0, 1, 2}


def test_no_silent_pass(assessment):
    """A file that runs a vLLM engine yields a workload, or the report says why (SW005, SW002, an input error, a
    skip with its reason); the known misses are triaged false (status: open) until a reader is fixed."""
    unknown = assessment.silent_untriaged
    assert unknown == [], ("these files look like they run vLLM but give no workload and no word why; fix the "
                           f"reader, or {HOW} (files:; verdict false with status open for a real miss): {unknown}")


def test_every_blocking_finding_is_triaged(assessment):
    untriaged = [cw.describe(f) for f in assessment.untriaged]
    assert untriaged == [], f"{len(untriaged)} blocking findings have no verdict; {HOW} (findings:):\n" + "\n".join(
        untriaged)


def test_no_finding_judged_false_blocks_again(assessment):
    back = [f"{e['file']} {e['code']} {e['subject']}: {e['reason']}" for e in assessment.false_back]
    assert back == [], "findings judged false and fixed block again:\n" + "\n".join(back)


def test_every_finding_judged_true_still_blocks(assessment):
    lost = [f"{e['file']} {e['code']} {e['subject']} ({e['match']!r}): {e['reason']}" for e in assessment.true_lost]
    assert lost == [], "findings a reviewer accepts no longer block (or their message lost `match`):\n" + "\n".join(
        lost)


def test_a_fixed_false_finding_is_marked_fixed(assessment):
    """A ratchet: when a rule stops blocking a finding judged false, its entry says status: fixed, so that the
    finding may never come back unnoticed."""
    fixed = [f"{e['file']} {e['code']} {e['subject']}" for e in assessment.false_fixed]
    assert fixed == [], ("these findings judged false no longer block: set `status: fixed` on their entries in "
                         "tests/corpus/wide/TRIAGE.yaml:\n" + "\n".join(fixed))


def test_every_file_without_a_workload_is_triaged(assessment):
    assert assessment.files_untriaged == [], f"files that give no workload; {HOW} (files:): {assessment.files_untriaged}"
    stale = assessment.files_stale
    assert stale == [], f"these files now give a workload: remove or re-judge their files: entries: {stale}"


def test_the_triage_is_well_formed(run, triage):
    for e in triage["findings"]:
        assert set(e) <= {"file", "code", "subject", "match", "verdict", "reason", "status"}, e
        assert str(e["verdict"]).lower() in cw.VERDICTS and e["reason"] and e["match"], e
        assert e["file"] in run.files, e
        assert e.get("status") in (None, "open", "fixed") and (e.get("status") is None) == (
            str(e["verdict"]).lower() != "false"), e
    for e in triage["files"]:
        assert set(e) <= {"file", "verdict", "reason", "status"} and e["file"] in run.files, e
        assert str(e["verdict"]).lower() in cw.VERDICTS and e["reason"], e


def test_the_benchmark_figures_add_up(run, assessment):
    """bench_corpus.py --wide prints corpus_wide.summary: its figures are the run's, counted once each."""
    s = cw.summary(run, assessment)
    workloads = [w for r in run.files.values() for w in r.workloads]
    assert s["files"] == len(run.files) and s["repositories"] == len(cw.repositories())
    assert s["recognised"] == len(workloads) >= s["linted"] and s["recognised"] >= s["undecided"]
    assert s["files_with_workload"] + s["not_read_said_why"] + sum(
        1 for r in run.files.values() if not r.workloads and not r.says_why) == s["files"]
    assert s["blocking"] == len(cw.blocking(run)) == (s["blocking_true"] + s["blocking_false"]
                                                     + s["blocking_debatable"] + s["blocking_untriaged"])
    t, f = s["blocking_true"], s["blocking_false"]
    assert s["blocking_precision"] == (round(t / (t + f), 4) if t + f else None)
    assert s["crashes"] == 0 and s["silent"] == len(assessment.silent)
