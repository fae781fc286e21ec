"""`shardwise diff BASE_REF`: the tree at a git ref against the working tree, in Markdown and JSON.

The fixture change (tests/fixtures/diff/base → head) doubles a 70B Deployment on p5.48xlarge nodes,
mounts its /dev/shm (SW401 fixed) and adds an 8B model sharded over two L40S GPUs (SW104 and SW202 added;
no SW106: one L40S holds it at the precision served). Its Markdown is the sample in docs/ci.md ("What a pull
request changes"); this test keeps the two equal: SHARDWISE_UPDATE_README=1 rewrites that copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest
from diff_support import DIFF, SAMPLE_PAGE, diff_repo, documented_sample, git
from shardwise.rules.app.cli import main

KARPENTER = "https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/pricing/zz_generated.pricing_aws.go"


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    r = diff_repo(tmp_path)
    monkeypatch.chdir(r)
    return r


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(("enforcement", "gate"), [
    ('SW202 = "advisory"', "2 findings added (1 at or above mandatory: shardwise lint fails on it)"),
    ('SW104 = "advisory"\nSW202 = "advisory"', "2 findings added (none at or above mandatory)"),
])
def test_the_summary_line_counts_the_added_findings_lint_fails_on(repo, capsys, tmp_path, enforcement, gate):
    """diff always exits 0 (a report); its line on stderr says how many added findings are at or above the run's
    fail_on, the ones lint fails on (newuser6: --fail-on was taken by diff and read by nothing)."""
    config = tmp_path / "levels.toml"
    config.write_text(f"[enforcement]\n{enforcement}\n", encoding="utf-8")
    rc, _, err = run(capsys, "diff", "main", "deploy/", "--config", str(config))
    assert (rc, err) == (0, f"shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, {gate}, 1 fixed\n")
    rc, _, err = run(capsys, "diff", "main", "deploy/", "--config", str(config), "--fail-on", "advisory")
    assert (rc, err) == (0, "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added "
                            "(2 at or above advisory: shardwise lint fails on them), 1 fixed\n")



def test_help_says_fail_on_does_not_fail_diff(capsys):
    """newuser10: `shardwise diff --help` said --fail-on is the "lowest level that fails the run", as lint's does,
    and a new user's `shardwise diff main --fail-on mandatory` with four mandatory findings added exited 0 (diff is a
    report, above). Its help now says what the level does there, and lint's keeps its own words."""
    import re

    def option_help(*argv: str) -> str:
        assert main([*argv, "--help"]) == 0
        return " ".join(capsys.readouterr().out.split())

    diff = option_help("diff")
    assert "A report, not a gate: exit 0 whatever the findings (--fail-on included)" in diff
    assert re.search(r"--fail-on \{advisory,mandatory,none\} lowest level of the added findings the summary line "
                     r"counts as those shardwise lint fails on, or none; diff is a report and exits 0 whatever the "
                     r"findings \(run shardwise lint for the verdict\)", diff)
    assert "fails the run" not in diff
    assert "--fail-on {advisory,mandatory,none} lowest level that fails the run, or none" in option_help("lint")

def test_markdown_is_the_documented_sample(repo, capsys):
    rc, out, err = run(capsys, "diff", "main", "deploy/")
    assert (rc, err) == (0, "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added "
                            "(1 at or above mandatory: shardwise lint fails on it), 1 fixed\n")
    if os.environ.get("SHARDWISE_UPDATE_README"):
        path = SAMPLE_PAGE
        text = path.read_text(encoding="utf-8")
        start = text.index("<!-- diff-sample:start -->\n````markdown\n") + len("<!-- diff-sample:start -->\n````markdown\n")
        text = text[:start] + out + text[text.index("````\n<!-- diff-sample:end -->", start):]
        path.write_text(text, encoding="utf-8")
    assert out == documented_sample()


def test_markdown_figures(repo, capsys):
    _, out, _ = run(capsys, "diff", "main", "deploy/")
    lines = out.splitlines()
    commit = git(repo, "rev-parse", "main")[:12]
    assert lines[:4] == ["<!-- shardwise-diff -->", "## shardwise diff: `main` → working tree", "",
                         f"Base `main` ({commit}), head: working tree; paths: `deploy/`."]
    # 2 → 4 replicas of TP4 on 8-GPU p5.48xlarge nodes ($55.04/h): 1 → 2 nodes; TP2 on a 4-GPU g6e.12xlarge
    # ($10.49264/h): 1 node. 730 hours a month.
    assert "| GPUs | 8 × H100-SXM-80GB | 16 × H100-SXM-80GB, 2 × L40S | +8 H100-SXM-80GB, +2 L40S |" in lines
    assert "| Nodes | 1 | 3 | +2 |" in lines
    assert "| On-demand $/hour | $55.04 | $120.57 | +$65.53 |" in lines
    assert "| On-demand $/month (730 h) | $40,179.20 | $88,018.00 | +$47,838.80 |" in lines
    assert "| Findings | 1 mandatory, 2 advisory | 1 mandatory, 3 advisory | 2 added, 1 fixed |" in lines
    # $/M output tokens = $55.04 / (2 replicas × 2,400 tok/s × 3,600 s) × 10⁶ = $3.19 (and the same at 4 replicas)
    row = next(ln for ln in lines if ln.startswith("| Deployment serving/llama70b |"))
    assert row.split(" | ")[1:4] == ["changed", "8 × H100-SXM-80GB → 16 × H100-SXM-80GB",
                                     "1 × p5.48xlarge → 2 × p5.48xlarge"]
    assert row.endswith("| $55.04 → $110.08 | $40,179.20 → $80,358.40 | $3.19 |")


def test_json(repo, capsys):
    rc, out, _ = run(capsys, "diff", "main", "deploy/", "--format", "json")
    d = json.loads(out)
    assert rc == 0
    assert d["base"] == {"ref": "main", "commit": git(repo, "rev-parse", "main")}
    assert d["totals"]["base"] == {
        "gpus": {"H100-SXM-80GB": 8}, "gpus_total": 8, "nodes": 1, "replicas": 2, "hourly_usd": 55.04,
        "monthly_usd": 40179.2, "not_priced": [], "workloads": 1, "mandatory": 1, "advisory": 2, "input_errors": 0}
    assert d["totals"]["change"] == {
        "gpus": {"H100-SXM-80GB": 8, "L40S": 2}, "gpus_total": 10, "nodes": 2, "replicas": 3, "hourly_usd": 65.5326,
        "monthly_usd": 47838.798, "mandatory": 0, "advisory": 1}
    llama70b, llama8b = d["workloads"]
    assert (llama70b["status"], llama8b["status"], llama8b["base"]) == ("changed", "added", None)
    h = llama70b["head"]
    assert (h["gpus"], h["nodes"], h["instance_type"], h["replicas"], h["layout"], h["p95_context"],
            h["hourly_usd"], h["output_tokens_per_second"]) == (16, 2, "p5.48xlarge", 4, "TP4×PP1×DP1", 8192,
                                                              110.08, 2400.0)
    assert h["usd_per_million_output_tokens"] == round(110.08 / (4 * 2400 * 3600) * 1e6, 4) == 3.1852
    assert llama8b["head"]["usd_per_million_output_tokens"] is None  # no throughput declared: no figure
    assert [(f["code"], f["subject"], f["level"], f["line"]) for f in d["findings"]["added"]] == [
        ("SW104", "Deployment serving/llama8b", "mandatory", 47),
        ("SW202", "Deployment serving/llama8b", "advisory", 47)]
    assert [(f["code"], f["subject"], f["file"], f["line"]) for f in d["findings"]["fixed"]] == [
        ("SW401", "Deployment serving/llama70b", "deploy/serving.yaml", 18)]
    assert d["prices"] == [
        {"instance_type": "g6e.12xlarge", "price_per_hour_usd": 10.49264, "source": KARPENTER, "date": "2026-07-20"},
        {"instance_type": "p5.48xlarge", "price_per_hour_usd": 55.04, "source": KARPENTER, "date": "2026-07-20"}]


def test_both_formats_to_files_from_one_run(repo, capsys):
    rc, out, _ = run(capsys, "diff", "main", "deploy/", "--format", "markdown=diff.md", "--format", "json=diff.json")
    assert (rc, out) == (0, "")
    assert (repo / "diff.md").read_text().startswith("<!-- shardwise-diff -->\n")
    assert json.loads((repo / "diff.json").read_text())["totals"]["change"]["nodes"] == 2


def test_a_path_new_in_the_change_is_not_an_error_of_the_base(repo, capsys):
    (repo / "new").mkdir()
    shutil.copy(DIFF / "head" / "serving.yaml", repo / "new" / "more.yaml")
    rc, out, _ = run(capsys, "diff", "main", "new/", "--format", "json")
    d = json.loads(out)
    assert (rc, d["base_input_errors"], d["totals"]["base"]["workloads"], d["totals"]["head"]["workloads"]) == (
        0, [], 0, 2)


UNPRICED = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: serving}
spec:
  replicas: 1
  selector: {matchLabels: {app: qwen}}
  template:
    metadata: {labels: {app: qwen}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_a_side_whose_workloads_are_none_priced_has_no_cost_total(repo, capsys):
    """mend24: a side whose every workload is unpriced (no GPU pool matches it, so no instance type) showed its cost
    total as $0.00, and the change as -$0.00 or the other side's whole cost; it is "–" (null in JSON), and so is the
    change. A side with no workload costs nothing: $0.00."""
    (repo / "new").mkdir()
    (repo / "new" / "qwen.yaml").write_text(UNPRICED, encoding="utf-8")
    rc, out, err = run(capsys, "diff", "main", "new/", "--format", "json")
    d = json.loads(out)
    assert rc == 0
    assert [(t["workloads"], t["hourly_usd"], t["monthly_usd"], t["not_priced"]) for t in (
        d["totals"]["base"], d["totals"]["head"])] == [(0, 0.0, 0.0, []), (1, None, None, ["Deployment serving/qwen"])]
    assert (d["totals"]["change"]["hourly_usd"], d["totals"]["change"]["monthly_usd"]) == (None, None)
    assert err.startswith("shardwise diff main..working tree: +1 GPUs, +0 nodes, –/hour, ")
    rc, out, _ = run(capsys, "diff", "main", "new/")
    lines = out.splitlines()
    assert "| On-demand $/hour | $0.00 | – | – |" in lines
    assert "| On-demand $/month (730 h) | $0.00 | – | – |" in lines
    assert "Not in the cost totals (no price or no node count): Deployment serving/qwen." in lines


def test_unchanged_tree(repo, capsys):
    git(repo, "commit", "-q", "-am", "head")
    rc, out, err = run(capsys, "diff", "HEAD", "deploy/")
    assert rc == 0
    assert "| Nodes | 3 | 3 | ±0 |" in out.splitlines()
    assert "No finding added or fixed." in out
    assert err == "shardwise diff HEAD..working tree: +0 GPUs, +0 nodes, +$0.00/hour, 0 findings added, 0 fixed\n"


def test_unknown_ref_and_not_a_repository(repo, capsys, tmp_path, monkeypatch):
    assert run(capsys, "diff", "no-such-branch") == (2, "", (
        "shardwise: error: 'no-such-branch' is not a commit of this repository (git rev-parse --verify "
        "no-such-branch)\n"))
    # a CI checkout (actions/checkout, fetch-depth: 0) has the base branch only as origin/BRANCH: said, with the line
    git(repo, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    git(repo, "update-ref", "refs/remotes/fork/trunk", "HEAD")
    assert run(capsys, "diff", "trunk") == (2, "", (
        "shardwise: error: 'trunk' is not a commit of this repository (git rev-parse --verify trunk); this checkout "
        "has it as origin/trunk and fork/trunk only (a CI checkout has no local branch but its own): shardwise diff "
        "origin/trunk\n"))
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    rc, out, err = run(capsys, "diff", "main")
    assert (rc, out) == (2, "")
    assert err.startswith("shardwise: error: shardwise diff runs inside a git repository: git rev-parse "
                          "--show-prefix: fatal: not a git repository")


def test_diff_formats_are_markdown_and_json(repo, capsys):
    rc, _, err = run(capsys, "diff", "main", "--format", "sarif")
    assert rc == 2
    assert err.splitlines()[-1] == "shardwise diff: error: argument --format: diff writes markdown or json, not 'sarif'"


def test_a_baseline_marks_the_added_findings_it_holds_and_the_gate_counts_the_others(repo, capsys, tmp_path):
    """`diff --baseline FILE` (newuser7: diff had no --baseline, so a repository adopting shardwise with a baseline
    read a verdict from diff that its `lint --baseline` gate did not give): what the change adds and fixes is the
    same as without it; the added findings the baseline holds are marked and listed after the others, and the line
    on stderr counts only the others as those `lint --baseline` fails on."""
    baseline = tmp_path / "baseline.json"
    rc, _, _ = run(capsys, "lint", "deploy/", "--create-baseline", str(baseline))
    assert rc == 0
    lines = baseline.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"code": "SW104"' not in line]
    assert len(kept) == len(lines) - 1
    baseline.write_text("".join(kept), encoding="utf-8")
    rc, out, err = run(capsys, "diff", "main", "deploy/", "--baseline", str(baseline), "--format", "json")
    assert (rc, err) == (0, (
        "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added (1 at or above "
        f"mandatory and not in the baseline {baseline}: shardwise lint --baseline fails on it; 1 in the baseline), "
        "1 fixed\n"))
    d = json.loads(out)
    # the findings the baseline does not hold first
    assert [(f["code"], f["in_baseline"]) for f in d["findings"]["added"]] == [("SW104", False), ("SW202", True)]
    assert [f["code"] for f in d["findings"]["fixed"]] == ["SW401"]
    rc, out, _ = run(capsys, "diff", "main", "deploy/", "--baseline", str(baseline))
    added = [line for line in out.splitlines() if line.startswith("- **SW")][:2]
    assert [(line[:9], line.endswith(" — in the baseline")) for line in added] == [
        ("- **SW104", False), ("- **SW202", True)]
    # the gate agrees: lint --baseline fails on the one finding the baseline does not hold
    rc, out, _ = run(capsys, "lint", "deploy/", "--baseline", str(baseline))
    assert (rc, [line.split(": ")[1].split(" ")[0] for line in out.splitlines() if ": SW" in line]) == (1, ["SW104"])
    # every added finding in the baseline: none counted
    rc, _, _ = run(capsys, "lint", "deploy/", "--create-baseline", str(baseline))
    rc, _, err = run(capsys, "diff", "main", "deploy/", "--baseline", str(baseline))
    assert (rc, err) == (0, (
        "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added (none at or above "
        f"mandatory outside the baseline {baseline}; 2 in it), 1 fixed\n"))
    # a baseline that cannot be read fails the diff, as it fails lint
    rc, _, err = run(capsys, "diff", "main", "deploy/", "--baseline", str(tmp_path / "missing.json"))
    assert (rc, err.splitlines()[-1]) == (2, f"shardwise: error: {tmp_path / 'missing.json'}: --baseline: cannot read: "
                                             "No such file or directory; create it once with `shardwise lint PATH… "
                                             f"--create-baseline {tmp_path / 'missing.json'}` over the paths the run "
                                             "lints, and commit it")


def test_a_link_out_of_the_tree_in_the_base_is_linted_as_in_the_working_tree(repo, capsys):
    """fuzz15: a committed symbolic link to an absolute path or out of the tree (``deploy/zero.yaml -> /dev/zero``,
    ``-> ../../outside.yaml``) made the base's extraction raise tarfile's ``AbsoluteLinkError`` (an internal error,
    exit 2, no report). The base now holds the link and lints it as the working tree does: named, not followed."""
    os.symlink("/dev/zero", repo / "deploy" / "zero.yaml")
    os.symlink("../../outside.yaml", repo / "deploy" / "up.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "links")
    rc, out, err = run(capsys, "diff", "HEAD", "deploy/", "--format", "json")
    d = json.loads(out)
    said = "shardwise follows no link out of a folder it searches (name the file on the command line to read it)"
    base_errors = sorted((e["file"], e["message"]) for e in d["base_input_errors"])
    # each link is named by what it says (what git stores), not where it resolves (for the base, beside the
    # temporary folder): the base and the working tree say the same (mend21)
    assert (rc, base_errors) == (2, [
        ("deploy/up.yaml", f"not read: a symbolic link to ../../outside.yaml, outside deploy/; {said}"),
        ("deploy/zero.yaml", f"not read: a symbolic link to /dev/zero, outside deploy/; {said}")])
    assert sorted((e["file"], e["message"]) for e in d["head_input_errors"]) == base_errors
    assert "internal error" not in err


@pytest.mark.parametrize(("load", "said"), [
    (1.0, "git cat-file --batch did not finish in 300 s"),
    (8.0, "git cat-file --batch did not finish in 1200 s (300 s times the machine's load per core)"),
])
def test_a_git_call_that_does_not_finish_is_an_error_said_as_that(monkeypatch, tmp_path, load, said):
    """loadlimits1: git past its wall time raised TimeoutExpired out of shardwise diff (a traceback); the limit is
    300 s times the load per core (a fake load on two cores, a fake git that times out: no waiting)."""
    import subprocess

    from shardwise.rules.app import diff
    from shardwise.rules.model import wall

    monkeypatch.setattr(wall.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(wall.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)

    def run(cmd, **kw):
        if cmd[1] == "cat-file":  # the base's bytes (fuzz22: was git archive)
            raise subprocess.TimeoutExpired(cmd, kw["timeout"])
        return subprocess.CompletedProcess(cmd, 0, b"0123abcd\n", b"")

    monkeypatch.setattr(diff.subprocess, "run", run)
    with pytest.raises(diff.GitTimeout) as e:
        diff.snapshot("main", str(tmp_path))
    assert str(e.value) == said


def test_a_rev_parse_that_does_not_finish_is_not_read_as_a_ref_that_is_not_there(monkeypatch, tmp_path):
    import subprocess

    from shardwise.rules.app import diff
    from shardwise.rules.model import wall

    monkeypatch.setattr(wall.os, "getloadavg", lambda: (0.0, 0.0, 0.0))

    def run(cmd, **kw):
        raise subprocess.TimeoutExpired(cmd, kw["timeout"])

    monkeypatch.setattr(diff.subprocess, "run", run)
    with pytest.raises(diff.GitTimeout) as e:
        diff.snapshot("main", str(tmp_path))
    assert str(e.value) == "git rev-parse --verify did not finish in 300 s"


def test_a_base_deeper_than_the_longest_path_is_read_in_part_and_said(repo, capsys, tmp_path, monkeypatch):
    """fuzz22: a commit whose tree is a chain of 2,500 folders (git stores it: here written with ``git fast-import``,
    as a hostile repository's history may hold it; no checkout can) made the base's extraction resolve every member's
    whole path (tarfile's ``data`` filter: minutes, quadratic in the depth), then ``shutil.rmtree`` raise
    RecursionError (an internal error, the base left in the temporary folder). The base is now extracted as far as
    the system writes paths, what is left out is a base input error naming it, and the temporary folder is removed."""
    deep = "d/" * 2500 + "serving.yaml"
    text = (repo / "deploy" / "serving.yaml").read_bytes()
    stream = (b"commit refs/heads/deep\ncommitter a <a@b> 0 +0000\ndata 4\ndeep\nfrom refs/heads/main\n"
              + f"M 100644 inline deploy/{deep}\ndata {len(text)}\n".encode() + text + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True, capture_output=True)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the base is extracted: checked to be left empty
    before = set(os.listdir(tmp_path))
    rc, out, err = run(capsys, "diff", "deep", "deploy/", "--format", "json")
    d = json.loads(out)
    [error] = d["base_input_errors"]
    cut = error["file"].removeprefix("deploy/")
    # the chain is cut where the path, beside the temporary folder's, passes the system's longest (4,096 on Linux)
    assert (rc, error["message"], set(cut.split("/")), deep.startswith(cut + "/")) == (
        0, "not read: it could not be written from git: File name too long", {"d"}, True)
    assert 1_000 < cut.count("d") < 2_500 and "internal error" not in err
    assert set(os.listdir(tmp_path)) == before


def test_a_base_file_larger_than_shardwise_reads_is_said_as_in_the_working_tree(repo):
    """fuzz22: ``git archive`` of the base was read whole into memory and every file written whole (a committed 1 GiB
    file: 2.1 GB of memory, 1 GiB of disk). A file larger than shardwise reads is now written as its head and its size
    (a sparse file): read, it is what the working tree's is."""
    from shardwise.rules.app import diff
    from shardwise.rules.model.errors import InputError
    from shardwise.rules.model.files import MAX_FILE_BYTES, read_file_bytes

    big = b"# " + b"x" * (MAX_FILE_BYTES + 4096) + b"\n"
    (repo / "deploy" / "big.yaml").write_bytes(big)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    base = repo.parent / "base"
    base.mkdir()
    left_out: list[tuple[str, str]] = []
    diff.snapshot("HEAD", str(base), left_out=left_out)
    copy = base / "deploy" / "big.yaml"
    st = copy.stat()
    assert (st.st_size, st.st_blocks * 512 < MAX_FILE_BYTES + (1 << 20), left_out) == (len(big), True, [])
    with copy.open("rb") as f:
        assert f.read(MAX_FILE_BYTES + 1) == big[:MAX_FILE_BYTES + 1]
    assert (base / "deploy" / "serving.yaml").read_bytes() == git_show(repo, "HEAD:deploy/serving.yaml")
    with pytest.raises(InputError) as e:
        read_file_bytes(str(copy), "deploy/big.yaml")
    assert str(e.value) == "deploy/big.yaml: not read: the file is larger than 32 MiB, the most shardwise reads from one file"


def git_show(repo, spec: str) -> bytes:
    return subprocess.run(["git", "show", spec], cwd=repo, check=True, capture_output=True).stdout


def test_the_base_is_the_commit_whatever_its_gitattributes_export(repo, capsys):
    """``git archive`` leaves out what ``.gitattributes`` marks ``export-ignore`` and rewrites ``$Format:…$`` in what it
    marks ``export-subst``: a repository keeping its deployment files out of release tarballs (``/deploy
    export-ignore``) had no manifests at its base, so an unchanged tree read as every workload and finding added
    (+18 GPUs, 4 findings added here). The base is now the commit's tree and bytes (git ls-tree and git cat-file)."""
    (repo / ".gitattributes").write_text("/deploy export-ignore\n*.yaml export-subst\n", encoding="utf-8")
    with (repo / "deploy" / "serving.yaml").open("a", encoding="utf-8") as f:
        f.write("# $Format:%H$\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "export rules")
    rc, _, err = run(capsys, "diff", "HEAD", "deploy/")
    assert (rc, err) == (0, "shardwise diff HEAD..working tree: +0 GPUs, +0 nodes, +$0.00/hour, 0 findings added, "
                            "0 fixed\n")


def _submodule_repo(tmp_path, monkeypatch, checked_out: bool = True):
    """A repository whose deploy/ is a submodule (a gitlink and .gitmodules, as ``git submodule add`` writes them)
    holding the fixture's base serving.yaml; deploy/ checked out at the recorded commit, or left empty as a clone
    without ``--recurse-submodules`` leaves it."""
    r, sub = tmp_path / "repo", tmp_path / "repo" / "deploy"
    sub.mkdir(parents=True)
    git(r, "init", "-q", "-b", "main")
    git(sub, "init", "-q", "-b", "main")
    shutil.copy(DIFF / "base" / "serving.yaml", sub / "serving.yaml")
    git(sub, "add", ".")
    git(sub, "commit", "-qm", "base")
    (r / ".gitmodules").write_text('[submodule "deploy"]\n\tpath = deploy\n\turl = ../deploy.git\n', encoding="utf-8")
    git(r, "add", ".gitmodules", "deploy")
    git(r, "commit", "-qm", "base")
    if not checked_out:
        shutil.rmtree(sub)
        sub.mkdir()
    monkeypatch.chdir(r)
    return r, sub


def test_a_submodule_of_the_base_is_its_checkout_at_the_recorded_commit(tmp_path, monkeypatch, capsys):
    """review36: the base wrote a submodule as an empty folder while the working tree's lint reads its checked-out
    files, so an unchanged tree whose manifests live in a submodule said "+18 GPUs, +3 nodes, +$120.57/hour, 4 findings
    added (1 at or above mandatory: shardwise lint fails on it)". The base's submodule is now the tree its checkout
    holds at the commit the base records: unchanged, nothing moves; the checkout moved to the fixture's head commit,
    the change is the fixture's own (+10 GPUs, as the plain repository's diff says)."""
    _, sub = _submodule_repo(tmp_path, monkeypatch)
    rc, _, err = run(capsys, "diff", "HEAD")
    assert (rc, err) == (0, "shardwise diff HEAD..working tree: +0 GPUs, +0 nodes, +$0.00/hour, 0 findings added, "
                            "0 fixed\n")
    shutil.copy(DIFF / "head" / "serving.yaml", sub / "serving.yaml")
    git(sub, "commit", "-qam", "head")  # what `git submodule update --remote` leaves: the checkout at a new commit
    rc, out, err = run(capsys, "diff", "HEAD", "--format", "json")
    d = json.loads(out)
    assert (rc, d["totals"]["base"]["gpus_total"], d["totals"]["head"]["gpus_total"], d["base_input_errors"]) == (
        0, 8, 18, [])
    assert err == ("shardwise diff HEAD..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added (1 at or "
                   "above mandatory: shardwise lint fails on it), 1 fixed\n")


def test_a_submodule_not_checked_out_is_empty_on_both_sides(tmp_path, monkeypatch, capsys):
    """A submodule folder left empty (no ``git submodule update``) holds no file in the working tree, and none at the
    base: the parent repository, which does not hold the submodule's commit, is never read for it."""
    _submodule_repo(tmp_path, monkeypatch, checked_out=False)
    rc, out, err = run(capsys, "diff", "HEAD", "--format", "json")
    d = json.loads(out)
    assert (rc, d["totals"]["base"]["workloads"], d["totals"]["head"]["workloads"], d["base_input_errors"]) == (
        0, 0, 0, [])
    assert err == "shardwise diff HEAD..working tree: +0 GPUs, +0 nodes, +$0.00/hour, 0 findings added, 0 fixed\n"


def test_a_submodule_whose_checkout_lacks_the_base_commit_is_said(tmp_path, monkeypatch, capsys):
    """A base recording a submodule commit its checkout does not hold (not fetched) is a base input error naming the
    folder and the commit, never an empty folder that reads every workload in it as added without a word."""
    r, _ = _submodule_repo(tmp_path, monkeypatch)
    lost = "0123456789abcdef0123456789abcdef01234567"
    git(r, "update-index", "--cacheinfo", f"160000,{lost},deploy")
    git(r, "commit", "-qm", "a commit the checkout does not hold")
    rc, out, _ = run(capsys, "diff", "HEAD", "--format", "json")
    d = json.loads(out)
    assert (rc, [(e["file"], e["message"]) for e in d["base_input_errors"]]) == (0, [(
        "deploy", f"not read: it is a submodule whose checkout does not hold the base's commit {lost} "
                  "(git -C deploy fetch)")])


def test_a_file_the_checkout_converts_is_read_at_the_base_as_the_checkout_writes_it(repo, capsys):
    """review36: git-lfs keeps a pointer in the blob and the file in the checkout (its smudge filter). ``git archive``
    ran the filter, as checkout does; the base read from ``git cat-file --batch`` (fuzz22) was the blob, so an
    unchanged tree whose manifest a filter converts read as every workload added: "+18 GPUs, +3 nodes, +$120.57/hour, 4
    findings added (1 at or above mandatory ...)". Such a file is now written as ``git cat-file --filters`` gives it.
    The filter here (base64, the blob's bytes no manifest) stands in for git-lfs's, which the test machine may lack."""
    import base64

    text = (repo / "deploy" / "serving.yaml").read_bytes()
    (repo / "deploy" / "serving.yaml").write_bytes(base64.b64encode(text) + b"\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the manifest as its filter stores it")
    (repo / ".gitattributes").write_text("*.yaml filter=b64\n", encoding="utf-8")
    git(repo, "config", "filter.b64.smudge", "base64 -d")
    git(repo, "config", "filter.b64.clean", "base64")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    (repo / "deploy" / "serving.yaml").unlink()
    git(repo, "checkout", "--", "deploy")
    assert (repo / "deploy" / "serving.yaml").read_bytes() == text  # the checkout is the manifest
    rc, out, err = run(capsys, "diff", "HEAD", "deploy/", "--format", "json")
    d = json.loads(out)
    assert (rc, d["totals"]["base"]["gpus_total"], d["base_input_errors"]) == (0, 18, [])
    assert err == "shardwise diff HEAD..working tree: +0 GPUs, +0 nodes, +$0.00/hour, 0 findings added, 0 fixed\n"
