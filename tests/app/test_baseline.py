"""``shardwise lint --create-baseline FILE`` / ``--baseline FILE``: a repository that already holds findings
turns the check on and is failed only by new ones.

The repository is ``tests/fixtures/baseline/`` (SW309's and SW308's fail fixtures: 15 findings, 8 mandatory; the TP4 Deployment's
hostIPC gives it the node's /dev/shm, so SW401 names only the LeaderWorkerSet (corpus20); one is SW101's
in-band advisory on the 405B at TP8×PP2 with 0.11: the CUDA graphs captured after sizing),
copied into a folder with a ``.git`` so it is the repository root. Each test changes it as a team would and
checks which findings are new, by rule, line and object.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
import yaml
from repo_paths import FIXTURES, ROOT, SCHEMAS
from shardwise.rules.app.baseline import FORMAT_VERSION, dumps, match, parse
from shardwise.rules.app.baseline import create as create_entries
from shardwise.rules.app.cli import main
from shardwise.rules.engine import Finding
from shardwise.rules.model import Location
from shardwise.rules.report.fingerprint import field_of

BASELINE = ".shardwise-baseline.json"
SCHEMA = json.loads((SCHEMAS / "sarif-2.1.0-trimmed.json").read_text(encoding="utf-8"))

#: The baseline of the fixture repository, as --create-baseline writes it (sorted by file, code, object, field).
ENTRIES = [
    ("SW206", "Deployment serving/llama-8b", "", "deploy/secrets.yaml"),
    ("SW308", "ConfigMap serving/model-download", "HUGGING_FACE_HUB_TOKEN", "deploy/secrets.yaml"),
    ("SW308", "ConfigMap serving/model-download", "REGISTRY_PASSWORD", "deploy/secrets.yaml"),
    ("SW308", "Deployment serving/llama-8b", "container vllm --api-key", "deploy/secrets.yaml"),
    ("SW308", "Deployment serving/llama-8b", "container vllm HF_TOKEN", "deploy/secrets.yaml"),
    ("SW101", "LeaderWorkerSet serving/llama-405b", "", "deploy/security.yaml"),
    ("SW106", "Deployment serving/llama-70b", "", "deploy/security.yaml"),
    ("SW305", "Namespace serving", "", "deploy/security.yaml"),
    ("SW309", "Deployment serving/llama-70b", "container vllm", "deploy/security.yaml"),
    ("SW309", "Deployment serving/llama-70b", "container vllm NET_RAW", "deploy/security.yaml"),
    ("SW309", "Deployment serving/llama-70b", "container vllm SYS_ADMIN", "deploy/security.yaml"),
    ("SW309", "Deployment serving/llama-70b", "hostIPC", "deploy/security.yaml"),
    ("SW309", "LeaderWorkerSet serving/llama-405b", "container vllm", "deploy/security.yaml"),
    ("SW309", "LeaderWorkerSet serving/llama-405b", "hostNetwork", "deploy/security.yaml"),
    ("SW401", "LeaderWorkerSet serving/llama-405b", "container vllm", "deploy/security.yaml"),
]
ALL_BASELINED = ("shardwise: 2 files read, 3 workloads, 0 mandatory findings, 0 advisory findings, 0 suppressed; "
                 "15 findings in the baseline — passed\n")


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "models"
    shutil.copytree(FIXTURES / "baseline", root)
    (root / ".git").mkdir()  # the repository root: paths in the baseline are relative to it
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def entries(path: Path) -> list[tuple[str, str, str, str | None]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["shardwise_baseline"] == FORMAT_VERSION
    assert all(e["urn"] is None and e["count"] == 1 for e in doc["findings"])
    return [(e["code"], e["object"], e["field"], e["file"]) for e in doc["findings"]]


#: What --create-baseline prints: the findings written by level, and the file they went to (adopt19: it said "0
#: mandatory findings, 0 advisory findings, 0 suppressed" beside "15 findings written", counting those outside it)
ALL_WRITTEN = (f"shardwise: 2 files read, 3 workloads; 15 findings written to the baseline {BASELINE} (7 mandatory, 8 "
               "advisory) — passed\n")


def create(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "lint", "deploy", "--create-baseline", BASELINE) == (0, ALL_WRITTEN, "")


def test_create_baseline_records_rule_object_field_and_file_and_the_run_passes(repo, capsys):
    rc, out, err = run(capsys, "lint", "deploy", "--create-baseline", BASELINE)
    assert (rc, out, err) == (0, ALL_WRITTEN, "")
    # the levels written are the run's without a baseline
    assert run(capsys, "lint", "deploy")[1].splitlines()[-1].startswith(
        "shardwise: 2 files read, 3 workloads, 7 mandatory findings, 8 advisory findings, 0 suppressed — failed")
    assert entries(repo / BASELINE) == ENTRIES
    text = (repo / BASELINE).read_text(encoding="utf-8")
    assert text.splitlines()[:3] == ["{", '  "shardwise_baseline": 1,', '  "findings": [']
    assert text.splitlines()[3] == ('    {"code": "SW206", "object": "Deployment serving/llama-8b", "field": "", '
                                    '"file": "deploy/secrets.yaml", "urn": null, "count": 1},')
    assert '"line"' not in text and "GiB" not in text  # no line numbers, nor messages with their sizing estimates
    # the same findings write the same bytes: a file a team commits and diffs
    run(capsys, "lint", "./deploy/", "--create-baseline", BASELINE)
    assert (repo / BASELINE).read_text(encoding="utf-8") == text


def test_a_run_over_the_repository_names_the_baseline_file_it_skips(repo, capsys):
    """The committed baseline lies beside the manifests; a run over `.` skips it under its own name."""
    create(capsys)
    rc, out, err = run(capsys, "lint", ".", "--baseline", BASELINE)
    assert (rc, err) == (0, "")
    assert out == ("shardwise: 2 files read, 3 workloads, 0 mandatory findings, 0 advisory findings, 0 suppressed; skipped 1 "
                   "file that is not an input: shardwise baseline×1; 15 findings in the baseline — passed\n")


def test_without_changes_every_finding_is_in_the_baseline(repo, capsys):
    create(capsys)
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    assert (rc, out, err) == (0, ALL_BASELINED, "")
    # without the baseline the same repository fails
    assert run(capsys, "lint", "deploy")[0] == 1


def test_moved_lines_reformatting_reordered_documents_and_a_renamed_file_stay_baselined(repo, capsys):
    create(capsys)
    security = (repo / "deploy" / "security.yaml").read_text(encoding="utf-8")
    lws, deployment = security.split("---\n")
    # the Deployment first, comments that move every line, flow style written as blocks, keys reordered
    deployment = deployment.replace(
        "capabilities: {add: [IPC_LOCK, NET_RAW, SYS_ADMIN]}",
        "capabilities:\n              add:\n                - SYS_ADMIN\n                - IPC_LOCK\n"
        "                - NET_RAW")
    deployment = deployment.replace("      hostIPC: true\n", "")
    deployment = deployment.replace("    spec:\n      nodeSelector", "    spec:\n      hostIPC: true\n      nodeSelector")
    assert "hostIPC: true\n      nodeSelector" in deployment and "- SYS_ADMIN" in deployment
    (repo / "deploy" / "security.yaml").unlink()
    (repo / "deploy" / "serving").mkdir()
    (repo / "deploy" / "serving" / "llama.yaml").write_text(
        "# moved here from deploy/security.yaml\n\n\n" + deployment + "---\n# the multi-node group\n" + lws,
        encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    assert (rc, out, err) == (0, ALL_BASELINED, "")


def test_a_new_bad_object_is_the_only_finding_and_fails_the_run(repo, capsys):
    create(capsys)
    security = (repo / "deploy" / "security.yaml").read_text(encoding="utf-8")
    canary = security.split("---\n")[1].replace("name: llama-70b", "name: llama-70b-canary")
    (repo / "deploy" / "canary.yaml").write_text(canary, encoding="utf-8")
    # a copy of a baselined object under its own name in another file (another environment) is new too
    (repo / "deploy" / "staging").mkdir()
    (repo / "deploy" / "staging" / "security.yaml").write_text(security.split("---\n")[0], encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    assert rc == 1 and err == ""
    found = [line.split(" [")[0] + " " + line.rsplit(" (", 1)[1] for line in out.splitlines()[:-1]]
    assert found == [
        "deploy/canary.yaml:12: SW309 Deployment serving/llama-70b-canary)",
        "deploy/canary.yaml:17: SW106 Deployment serving/llama-70b-canary)",
        "deploy/canary.yaml:18: SW309 Deployment serving/llama-70b-canary)",
        "deploy/canary.yaml:18: SW309 Deployment serving/llama-70b-canary)",
        "deploy/canary.yaml:18: SW309 Deployment serving/llama-70b-canary)",
        "deploy/staging/security.yaml:16: SW309 LeaderWorkerSet serving/llama-405b)",
        "deploy/staging/security.yaml:19: SW401 LeaderWorkerSet serving/llama-405b)",
        "deploy/staging/security.yaml:22: SW101 LeaderWorkerSet serving/llama-405b)",
        "deploy/staging/security.yaml:23: SW309 LeaderWorkerSet serving/llama-405b)",
    ]
    assert out.splitlines()[-1] == (
        "shardwise: 4 files read, 5 workloads, 4 mandatory findings, 5 advisory findings, 0 suppressed; "
        "15 findings in the baseline — failed: 4 blocking findings at or above mandatory")


def test_a_new_finding_on_a_baselined_object_is_new(repo, capsys):
    create(capsys)
    path = repo / "deploy" / "security.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("[IPC_LOCK, NET_RAW, SYS_ADMIN]",
                                                             "[IPC_LOCK, NET_RAW, SYS_ADMIN, SYS_MODULE]"),
                    encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    # SW309 names both capabilities in one finding now: its field is not the baselined one's, so the finding is
    # new (it fails the run) and the entry for SYS_ADMIN alone is stale
    assert (rc, err) == (1, "")
    assert out.splitlines()[0].startswith(
        "deploy/security.yaml:45: SW309 [mandatory] container `vllm` adds SYS_ADMIN, "
        "SYS_MODULE, which control the node")
    assert out.splitlines()[1] == (
        "shardwise: 2 files read, 3 workloads, 1 mandatory finding, 0 advisory findings, 0 suppressed; 14 findings in the "
        "baseline (1 baseline entry no longer matches a finding: refresh it with --create-baseline) — failed: "
        "1 blocking finding at or above mandatory")


def test_a_fixed_finding_is_a_stale_entry_and_drops_out_on_the_next_create(repo, capsys):
    create(capsys)
    path = repo / "deploy" / "security.yaml"
    # hostIPC removed, and the memory-backed /dev/shm it gave the TP4 pod mounted instead (without one SW401 is new)
    fixed = path.read_text(encoding="utf-8").replace(
        "      hostIPC: true\n", "      volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]\n").replace(
        "          resources: {limits: {nvidia.com/gpu: 4}}\n",
        "          resources: {limits: {nvidia.com/gpu: 4}}\n          volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n")
    assert fixed.count("mountPath: /dev/shm") == 1
    path.write_text(fixed, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    assert (rc, err) == (0, "")  # stale entries are said, never a failure
    assert out == ("shardwise: 2 files read, 3 workloads, 0 mandatory findings, 0 advisory findings, 0 suppressed; "
                   "14 findings in the baseline (1 baseline entry no longer matches a finding: refresh it with "
                   "--create-baseline) — passed\n")
    rc, out, err = run(capsys, "lint", "deploy", "--create-baseline", BASELINE)
    assert rc == 0 and out.endswith("14 findings written to the baseline .shardwise-baseline.json (7 mandatory, 7 "
                                    "advisory) — passed\n")  # the advisory hostIPC finding fixed
    assert entries(repo / BASELINE) == [e for e in ENTRIES if e[2] != "hostIPC"]


def test_a_run_over_part_of_the_repository_leaves_the_other_files_entries_unjudged(repo, capsys):
    """adopt18: a hook or a job that lints one folder (`args: [deploy/secrets.yaml, --baseline, ...]`) was told that
    the baseline entries of every other file "no longer match a finding: refresh it with --create-baseline", and
    that refresh would have dropped them, so the whole-repository job failed on them next. Only the entries of the
    files under the linted paths can be stale: one of a fixed finding there still is."""
    create(capsys)
    rc, out, err = run(capsys, "lint", "deploy/secrets.yaml", "--baseline", BASELINE)
    # its 5 entries, and the namespace's default-deny finding, matched in security.yaml's entry (a moved object)
    assert (rc, out, err) == (0, "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, 0 "
                                 "suppressed; 6 findings in the baseline — passed\n", "")
    path = repo / "deploy" / "secrets.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  REGISTRY_PASSWORD: Tr0ub4dor-and-3\n", ""),
                    encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy/secrets.yaml", "--baseline", BASELINE)
    assert (rc, out, err) == (0, "shardwise: 1 file read, 1 workload, 0 mandatory findings, 0 advisory findings, 0 "
                                 "suppressed; 5 findings in the baseline (1 baseline entry no longer matches a "
                                 "finding: refresh it with --create-baseline) — passed\n", "")
    # the whole repository judges every entry, as before
    assert run(capsys, "lint", "deploy", "--baseline", BASELINE)[1].endswith(
        "14 findings in the baseline (1 baseline entry no longer matches a finding: refresh it with "
        "--create-baseline) — passed\n")


def test_json_lists_the_baselined_findings_apart_and_sarif_marks_them_unchanged(repo, capsys):
    create(capsys)
    path = repo / "deploy" / "security.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("[IPC_LOCK, NET_RAW, SYS_ADMIN]",
                                                             "[IPC_LOCK, NET_RAW, SYS_ADMIN, SYS_MODULE]"),
                    encoding="utf-8")
    rc, _, _ = run(capsys, "lint", "deploy", "--baseline", BASELINE, "--format", "json=r.json",
                   "--format", "sarif=r.sarif")
    assert rc == 1
    doc = json.loads((repo / "r.json").read_text(encoding="utf-8"))
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("SW309", 45)]
    assert len(doc["baselined"]) == 14
    assert doc["summary"]["baseline"] == {"file": BASELINE, "baselined": 14, "stale": 1}
    sarif = json.loads((repo / "r.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(sarif, SCHEMA)
    results = sarif["runs"][0]["results"]
    assert [r["baselineState"] for r in results] == ["new"] + ["unchanged"] * 14
    assert "SYS_MODULE" in results[0]["message"]["text"]
    # without a baseline neither key is written
    run(capsys, "lint", "deploy", "--format", "json=r.json", "--format", "sarif=r.sarif")
    assert "baselined" not in json.loads((repo / "r.json").read_text(encoding="utf-8"))
    assert "baseline" not in json.loads((repo / "r.json").read_text(encoding="utf-8"))["summary"]
    sarif = json.loads((repo / "r.sarif").read_text(encoding="utf-8"))
    assert not any("baselineState" in r for r in sarif["runs"][0]["results"])


HOW = f"; write it with `shardwise lint --create-baseline {BASELINE}`"
#: a baseline named before anyone wrote it (a first CI run): how to write one (newuser9)
CREATE = (f"; create it once with `shardwise lint PATH… --create-baseline {BASELINE}` over the paths the run lints, "
          "and commit it")


@pytest.mark.parametrize(("text", "message"), [
    (None, f"{BASELINE}: --baseline: cannot read: No such file or directory{CREATE}"),
    ("garbage", f"{BASELINE}: --baseline: not a shardwise baseline: not JSON (Expecting value: line 1 column 1 "
                f"(char 0)){HOW}"),
    ('{"findings": []}', f'{BASELINE}: --baseline: not a shardwise baseline (no "shardwise_baseline" key){HOW}'),
    ("[1, 2]", f'{BASELINE}: --baseline: not a shardwise baseline (no "shardwise_baseline" key){HOW}'),
    ('{"shardwise_baseline": 2, "findings": []}',
     f"{BASELINE}: --baseline: baseline format version 2; this shardwise reads version 1{HOW}"),
    ('{"shardwise_baseline": "1", "findings": []}',
     f'{BASELINE}: --baseline: baseline format version "1"; this shardwise reads version 1{HOW}'),
    ('{"shardwise_baseline": 1, "findings": {}}',
     f'{BASELINE}: --baseline: not a shardwise baseline ("findings" is not a list){HOW}'),
    ('{"shardwise_baseline": 1, "findings": [{"code": "SW309", "object": "Deployment a/b", "line": 4}]}',
     f'{BASELINE}: --baseline: entry 1 of "findings" is not a baseline entry (the keys code, object, field, '
     f"file, urn, count; count a whole number from 1){HOW}"),
    # hostile9: nested past the JSON reader's recursion (was an internal error), a key written twice
    ('{"shardwise_baseline": 1, "findings": ' + "[" * 100_000 + "]" * 100_000 + "}",
     f"{BASELINE}: --baseline: not a shardwise baseline: JSON nested too deeply{HOW}"),
    ('{"shardwise_baseline": 1, "shardwise_baseline": 2, "findings": []}',
     f"{BASELINE}: --baseline: not a shardwise baseline: not JSON (the key 'shardwise_baseline' is written twice "
     f"in one object){HOW}"),
])
def test_a_baseline_that_cannot_be_used_is_an_input_error(repo, capsys, text, message):
    if text is not None:
        (repo / BASELINE).write_text(text, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", BASELINE)
    assert (rc, out, err) == (2, "", f"shardwise: error: {message}\n")


def test_a_baseline_that_is_not_utf8_or_a_directory_is_an_input_error(repo, capsys):
    (repo / BASELINE).write_bytes(b"\xff\xfe{}")
    assert run(capsys, "lint", "deploy", "--baseline", BASELINE) == (
        2, "", f"shardwise: error: {BASELINE}: --baseline: not a shardwise baseline: not UTF-8 text{HOW}\n")
    assert run(capsys, "lint", "deploy", "--baseline", "deploy") == (
        2, "", "shardwise: error: deploy: --baseline: cannot read: it is a directory, not a regular file; "
               "shardwise reads only regular files\n")


def test_baseline_and_create_baseline_are_one_or_the_other(repo, capsys):
    rc, out, err = run(capsys, "lint", "deploy", "--baseline", "a.json", "--create-baseline", "b.json")
    assert rc == 2
    assert err.endswith("error: argument --create-baseline: not allowed with argument --baseline\n")


def _finding(code: str, message: str, undecided: bool = False) -> Finding:
    return Finding(code, "x", "mandatory", "high", message, Location("a.yaml", 3), "Deployment a/b",
                   undecided=undecided)


@pytest.mark.parametrize(("code", "message", "undecided", "field"), [
    # capacity and topology findings size the whole object: their estimates and suggested flags are not a field
    ("SW104", "meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs; replicate with --tensor-parallel-size 1",
     False, ""),
    ("SW104", "cannot decide: tensor_parallel_size is not known (a computed output)", True, "tensor_parallel_size"),
    ("SW310", "cannot decide: CUDA_VISIBLE_DEVICES of container `vllm` is not known (envFrom Secret `s`)", True,
     "CUDA_VISIBLE_DEVICES container vllm"),
    ("SW308", "container `vllm` passes --api-key a literal value (26 characters); required: the "
              "key from a Secret (VLLM_API_KEY for --api-key, HF_TOKEN for --hf-token)", False,
     "container vllm --api-key"),
    ("SW309", "Deployment a/b sets hostNetwork: true, so its ports listen on the node", False, "hostNetwork"),
    # adopt18: the remedy a blocking message ends with names nothing new, so baselines written before it still match
    ("SW309", "the pod sets hostNetwork: true, so its API and runtime ports listen on the node's addresses, outside "
              "every NetworkPolicy; remove hostNetwork from the pod spec (a Service reaches the API port, and the "
              "EFA device plugin hands the pod its EFA devices)", False, "hostNetwork"),
    # mend18: the remedy names what the pod shows of its platform (or the options): still nothing new
    *(("SW309", "the pod sets hostNetwork: true, so its API and runtime ports listen on the node's addresses, outside "
                f"every NetworkPolicy; remove hostNetwork from the pod spec ({remedy})", False, "hostNetwork")
      for remedy in (
          "a Service reaches the API port, and GKE multi-networking attaches the GPUDirect NICs the pod's "
          "networking.gke.io/interfaces annotation names",
          "a Service reaches the API port, and the RDMA device plugin hands the pod the devices it requests "
          "(rdma/shared_ib) and Multus attaches the networks its k8s.v1.cni.cncf.io/networks annotation names",
          "a Service reaches the API port; a pod reaches a fast interconnect without it through its platform's "
          "device plugin or secondary networks: EFA devices on EKS (vpc.amazonaws.com/efa), GPUDirect-TCPX/TCPXO "
          "multi-networking on GKE (networking.gke.io/interfaces), InfiniBand or RoCE through an RDMA device plugin "
          "(rdma/...) and Multus (k8s.v1.cni.cncf.io/networks)")),
    ("SW309", "container `mistral-7b` adds SYS_PTRACE and the pod sets hostPID: true, so it can trace and rewrite "
              "every process on the node; remove hostPID from the pod spec, or SYS_PTRACE from "
              "securityContext.capabilities.add", False, "container mistral-7b SYS_PTRACE hostPID"),
    ("SW309", "container `vllm` adds SYS_ADMIN, which controls the node or its other pods; remove it from "
              "securityContext.capabilities.add", False, "container vllm SYS_ADMIN"),
    ("SW310", "container `vllm` sets NVIDIA_VISIBLE_DEVICES to 'all', which overrides the GPUs the device plugin "
              "allocated (it can reach other pods' GPUs); remove NVIDIA_VISIBLE_DEVICES from the container and "
              "request its GPUs as nvidia.com/gpu (the device plugin then chooses them)", False,
     "container vllm NVIDIA_VISIBLE_DEVICES"),
    ("SW310", "container `vllm` sets CUDA_VISIBLE_DEVICES='4,5,6,7', so vLLM sees 0 devices (the container's 4 are "
              "numbered 0-3 inside it) but TP4×PP1 needs 4 in the pod: it cannot start; remove CUDA_VISIBLE_DEVICES "
              "from the container (the device plugin already chose its GPUs)", False,
     "container vllm CUDA_VISIBLE_DEVICES"),
    ("SW304", "EC2NodeClass `gpu` of node pool `l40s` sets http_tokens = optional (IMDSv1 allowed), so pods can take "
              "the node's IAM credentials; set metadataOptions.httpTokens to required", False, ""),
    ("SW301", "security group `gpu-nodes` allows tcp 6379 (Ray GCS) from 0.0.0.0/0", False, ""),
    # adopt19: the remedies SW301, SW305, SW306, SW308 and SW402 now end with name nothing new either
    ("SW301", "security group `gpu-nodes` allows tcp 6379 (Ray GCS) from 0.0.0.0/0, not only from itself; make the "
              "rule's source the group itself (a self-referencing rule: self = true, or source_security_group_id its "
              "own id)", False, ""),
    ("SW301", "Service `serving/llama-405b-master` of type NodePort exposes port 29501 (vLLM multi-node master "
              "(--master-port)) outside the cluster; make the Service type ClusterIP (the group's pods still reach it "
              "inside the cluster; reach a dashboard with kubectl port-forward), or take this port off it and leave "
              "only the API port", False, "--master-port"),
    ("SW305", "namespace `llm` (LeaderWorkerSet llm/llama-405b) has no default-deny ingress policy (no network policy "
              "at all); the runtime ports (Ray, torch.distributed, NCCL) of multi-node llama-405b are open to every pod "
              "in the cluster; add a NetworkPolicy in `llm` that selects every pod (an empty podSelector) with "
              "policyTypes Ingress and no ingress rule, then allow each group's own pods and the gateway's traffic to "
              "the API port", False, ""),
    ("SW306", "Ingress `a/b` routes to Deployment a/b (Service `b`) on an internet-facing ALB, and vLLM checks no API "
              "key there (no --api-key, no VLLM_API_KEY): whoever reaches it can call every route; set VLLM_API_KEY "
              "in the vLLM container from a Secret (valueFrom.secretKeyRef), or authenticate the clients at the "
              "gateway or the load balancer", False, "VLLM_API_KEY --api-key"),
    ("SW308", "container `vllm` passes --api-key a literal value (26 characters); drop the flag and give vLLM the key "
              "in its API-key environment variable from a Secret (valueFrom.secretKeyRef), then rotate the key", False,
     "container vllm --api-key"),
    ("SW308", "container `model-sync` sets AWS_ACCESS_KEY_ID to an AWS access key id written in the manifest (AKIA…, "
              "20 characters); give the pod an IAM role instead (EKS Pod Identity or IRSA on its service account), or "
              "take the value from a Secret with valueFrom.secretKeyRef; deactivate the key, which the repository "
              "keeps", False, "container model-sync AWS_ACCESS_KEY_ID"),
    ("SW402", "container `vllm` has a liveness probe that acts after 90 s (initialDelaySeconds 60 + periodSeconds 10 × "
              "failureThreshold 3) and no startup probe, but starting needs 194-1729 s; add a startupProbe on /health "
              "with periodSeconds 10 and failureThreshold 173 (1730 s, at least the estimate's upper end), or 39 with "
              "the cache on a volume", False, "container vllm"),
    # newuser18: a pod spec key that a remedy or an explanation names after the first "; " is not a field: it moved
    # with the image (vLLM's CPU build or its CUDA build) or the cluster, and the same finding came back as new
    ("SW309", "container `vllm` is privileged: it has every device and capability of the node; remove privileged "
              "from its securityContext: vLLM's CPU build uses no device, and a capability it needs can be added "
              "alone (securityContext.capabilities.add)", False, "container vllm"),
    ("SW309", "container `vllm` is privileged: it has every device and capability of the node; remove privileged "
              "from its securityContext and request its GPUs (and EFA devices) as resources, which the device "
              "plugins hand it", False, "container vllm"),
    ("SW306", "Service `vllm/mistral-7b-class` of type LoadBalancer exposes Deployment vllm/mistral-7b directly on "
              "port 80, with no gateway that authenticates clients; make it `type: ClusterIP` and publish vLLM only "
              "through a gateway or Ingress that does (advisory: `loadBalancerClass: service.k8s.aws/nlb` hands it to "
              "the AWS Load Balancer Controller, which makes the load balancer internal unless "
              "`service.beta.kubernetes.io/aws-load-balancer-scheme` says internet-facing)", False, ""),
    # a key the message observes before its remedy stays one
    ("SW309", "the pod sets hostNetwork: true, so it shares the node's network; remove hostNetwork", False,
     "hostNetwork"),
])
def test_the_field_is_what_the_message_names_on_the_object(code, message, undecided, field):
    assert field_of(_finding(code, message, undecided)) == field


def test_entries_add_up_and_a_count_below_one_is_refused():
    row = {"code": "SW301", "object": "SecurityGroup g", "field": "", "file": "sg.json", "urn": None, "count": 2}
    parsed = parse(json.dumps({"shardwise_baseline": 1, "findings": [row, row]}), "b.json")
    assert list(parsed.values()) == [4]
    with pytest.raises(Exception, match="count a whole number from 1"):
        parse(json.dumps({"shardwise_baseline": 1, "findings": [{**row, "count": 0}]}), "b.json")


def test_the_pre_commit_hook_args_in_docs_ci_take_the_baseline(repo, capsys):
    line = next(ln for ln in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8").splitlines()
                if "--baseline" in ln and ln.strip().startswith("args:"))
    args = yaml.safe_load(line.strip())["args"]
    assert args == ["deploy/", "stacks/", "--baseline", BASELINE]
    (repo / "stacks").mkdir()
    create(capsys)
    rc, out, err = run(capsys, "lint", *args)  # what the hook's `entry: shardwise lint` runs
    assert (rc, err) == (0, "")
    assert out.endswith("15 findings in the baseline — passed\n")


def test_a_finding_known_by_its_urn_is_fingerprinted_by_it(tmp_path):
    urn = "urn:pulumi:prod::models::kubernetes:apps/v1:Deployment::llama"
    f = Finding("SW309", "host-access", "mandatory", "high", "Deployment a/b sets hostNetwork: true",
                Location(urn=urn), "Deployment a/b")
    made = create_entries([f, f], tmp_path)
    assert [(e.code, e.object, e.field, e.file, e.urn, n) for e, n in made.items()] == [
        ("SW309", "Deployment a/b", "hostNetwork", None, urn, 2)]
    assert dumps(made) == (
        '{\n  "shardwise_baseline": 1,\n  "findings": [\n    {"code": "SW309", "object": "Deployment a/b", '
        f'"field": "hostNetwork", "file": null, "urn": "{urn}", "count": 2}}\n  ]\n}}\n')
    matched = match([f, f, f], made, tmp_path)
    assert (len(matched.new), len(matched.baselined), matched.stale) == (1, 2, 0)
    # suppressed findings and internal errors are never baselined
    assert create_entries([replace(f, suppressed=True, suppression_reason="r"), replace(f, internal=True)],
                          tmp_path) == {}
    assert dumps({}) == '{\n  "shardwise_baseline": 1,\n  "findings": []\n}\n'


def test_a_file_name_that_is_not_utf8_is_baselined_as_the_text_report_writes_it(repo, capsys):
    """hostile9: --create-baseline was an internal error (UnicodeEncodeError) on a file name that is not UTF-8; the
    name is held as the text report writes it, so the baseline is UTF-8 JSON that shardwise reads (also where it
    lies in the linted tree), and the next run finds the finding baselined."""
    name = os.fsdecode(b"deploy/odd\xff.yaml")
    shutil.move(repo / "deploy" / "security.yaml", name)
    rc, out, err = run(capsys, "lint", ".", "--create-baseline", BASELINE)
    assert (rc, err) == (0, "")
    text = (repo / BASELINE).read_bytes().decode("utf-8")
    assert '"file": "deploy/odd\\\\xff.yaml"' in text
    rc, out, err = run(capsys, "lint", ".", "--baseline", BASELINE)
    assert (rc, err) == (0, "")
    assert out.endswith("15 findings in the baseline — passed\n")


#: a privileged vLLM container of the CPU build (brokedba/vllm-lab's shape on OKE)
_PRIVILEGED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-server
  namespace: vllm
spec:
  replicas: 1
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
        - name: vllm
          image: IMAGE
          args: ["--model", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--max-model-len", "2048"]
          env:
            - {name: VLLM_CPU_KVCACHE_SPACE, value: "4"}
          securityContext:
            privileged: true
"""


def test_a_baselined_privileged_container_stays_baselined_when_its_image_changes(tmp_path, monkeypatch, capsys):
    """newuser18: SW309's remedy differs for vLLM's CPU build and its CUDA build; the field once took
    `securityContext` from the CPU build's remedy, so the same privileged container was new after an image change
    and failed a gated pull request."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(_PRIVILEGED.replace("IMAGE", "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.8.5.post1"),
                        encoding="utf-8")
    rc, out, _ = run(capsys, "lint", "deploy.yaml", "--create-baseline", BASELINE)
    assert rc == 0
    assert ("SW309", "Deployment vllm/vllm-server", "container vllm", "deploy.yaml") in entries(tmp_path / BASELINE)
    manifest.write_text(_PRIVILEGED.replace("IMAGE", "vllm/vllm-openai:v0.8.5"), encoding="utf-8")
    rc, out, err = run(capsys, "lint", "deploy.yaml", "--baseline", BASELINE, "--format", "json")
    report = json.loads(out)
    assert [f["code"] for f in report["findings"] if f["level"] == "mandatory"] == []
    assert [f["message"].split(";", 1)[0] for f in report["baselined"] if f["code"] == "SW309"] == [
        "SW309: container `vllm` is privileged: it has every device and capability of the node"]
    assert rc == 0
