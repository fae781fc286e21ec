"""The composite action (`action.yml`) and the repository's workflow that uses it.

* `action.yml` is checked against GitHub's metadata syntax for actions ("Metadata syntax for GitHub
  Actions": required `name`, `description`, `runs`; inputs and outputs with their keys; composite
  `runs.using` and steps that have `run` + `shell` or `uses`), plus this repository's own rules: every
  `inputs.X` and `steps.Y` it names exists, and no shell script holds a `${{ }}` expression.
* Its shell steps run here, in order, as the runner runs them (`bash --noprofile --norc -eo pipefail`),
  with `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_PATH` and `GITHUB_ENV` pointed at temporary files
  and the `${{ }}` values of their `env:` filled in from the inputs, the event and earlier steps' outputs.
  The `uses:` steps (setup-python, upload-sarif) need GitHub and are not run. `gh` is a recording
  script: the GitHub API is not reachable here, so the test checks the calls the comment step makes.
* `actionlint` (built by scripts/build-tools.sh) passes on `.github/workflows/`; it also reads
  `action.yml` for the workflow's `uses: ./` and checks the inputs the workflow gives it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from diff_support import diff_repo, documented_sample
from repo_paths import ROOT
from tools_support import require_tool

ACTION = ROOT / "action.yml"

# GitHub's metadata syntax (docs.github.com, "Metadata syntax for GitHub Actions").
TOP_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
INPUT_KEYS = {"description", "required", "default", "deprecationMessage"}
COMPOSITE_STEP_KEYS = {"id", "if", "name", "uses", "with", "run", "shell", "env", "working-directory",
                       "continue-on-error"}
BRANDING_COLORS = {"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def metadata_errors(meta: Any) -> list[str]:
    """What makes ``meta`` (a parsed action.yml) invalid for a composite action; [] when nothing does."""
    if not isinstance(meta, dict):
        return ["the file is not a mapping"]
    errors = [f"unknown top-level key `{k}`" for k in meta if k not in TOP_KEYS]
    errors += [f"`{k}` is required" for k in ("name", "description", "runs") if k not in meta]
    errors += [f"`{k}` must be a string" for k in ("name", "description", "author")
               if k in meta and not isinstance(meta[k], str)]
    inputs = meta.get("inputs") or {}
    for name, spec in inputs.items():
        where = f"inputs.{name}"
        if not ID.match(name):
            errors.append(f"{where}: an input id starts with a letter or _ and has only letters, digits, - and _")
        if not isinstance(spec, dict):
            errors.append(f"{where}: must be a mapping")
            continue
        errors += [f"{where}: unknown key `{k}`" for k in spec if k not in INPUT_KEYS]
        if not isinstance(spec.get("description"), str):
            errors.append(f"{where}: `description` is required")
        if "required" in spec and not isinstance(spec["required"], bool):
            errors.append(f"{where}: `required` must be a boolean")
        if "default" in spec and not isinstance(spec["default"], str):
            errors.append(f"{where}: `default` must be a string (quote it)")
    for name, spec in (meta.get("outputs") or {}).items():
        where = f"outputs.{name}"
        if not isinstance(spec, dict) or not isinstance(spec.get("description"), str):
            errors.append(f"{where}: `description` is required")
        elif not isinstance(spec.get("value"), str):
            errors.append(f"{where}: a composite action's output needs `value`")
    branding = meta.get("branding")
    if branding is not None and (not isinstance(branding, dict) or branding.get("color") not in BRANDING_COLORS
                                 or not isinstance(branding.get("icon"), str)):
        errors.append(f"branding: needs an icon and one of the colors {sorted(BRANDING_COLORS)}")
    runs = meta.get("runs")
    if not isinstance(runs, dict):
        return errors + ["runs: must be a mapping"]
    if runs.get("using") != "composite":
        errors.append(f"runs.using: `{runs.get('using')}`, not composite")
    errors += [f"runs: unknown key `{k}` for a composite action" for k in runs if k not in ("using", "steps")]
    steps = runs.get("steps")
    if not isinstance(steps, list) or not steps:
        return errors + ["runs.steps: a composite action needs a list of steps"]
    ids: list[str] = []
    for i, step in enumerate(steps):
        where = f"runs.steps[{i}]"
        if not isinstance(step, dict):
            errors.append(f"{where}: must be a mapping")
            continue
        errors += [f"{where}: unknown key `{k}`" for k in step if k not in COMPOSITE_STEP_KEYS]
        if ("run" in step) == ("uses" in step):
            errors.append(f"{where}: needs exactly one of `run` and `uses`")
        if "run" in step and "shell" not in step:
            errors.append(f"{where}: a `run` step of a composite action needs `shell`")
        if "uses" in step and ({"shell", "working-directory"} & set(step)):
            errors.append(f"{where}: `shell` and `working-directory` go with `run`, not `uses`")
        if "with" in step and "uses" not in step:
            errors.append(f"{where}: `with` goes with `uses`")
        if "uses" in step and not re.search(r"^(\./|[\w.-]+/[\w./-]+@(v\d+(\.\d+)*|[0-9a-f]{40})$)", step["uses"]):
            errors.append(f"{where}: `uses: {step['uses']}` is neither a local path nor pinned to a version or SHA")
        if "id" in step:
            if not ID.match(str(step["id"])) or step["id"] in ids:
                errors.append(f"{where}: id `{step['id']}` is not a valid unique step id")
            ids.append(step["id"])
        if "${{" in str(step.get("run", "")):
            errors.append(f"{where}: the script holds a `${{{{ }}}}` expression; pass the value through `env:`")
    # every inputs.X and steps.Y named anywhere exists (a typo is an empty string at run time)
    text = yaml.safe_dump(meta)
    for expr in EXPR.findall(text):
        errors += [f"`{expr}` names the unknown input `{n}`" for n in re.findall(r"inputs\.([\w-]+)", expr)
                   if n not in inputs]
        errors += [f"`{expr}` names the unknown step `{n}`" for n in re.findall(r"steps\.([\w-]+)", expr) if n not in ids]
    return errors


def load_action() -> dict[str, Any]:
    meta = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(meta, dict)
    return meta


def test_action_yml_follows_the_metadata_syntax():
    meta = load_action()
    assert metadata_errors(meta) == []
    assert sorted(meta["inputs"]) == ["base-ref", "baseline", "comment", "config", "fail-level", "formats", "github-token",
                                      "index-url", "install", "paths", "plan", "plan-emit", "python-version",
                                      "sarif-file", "upload-sarif", "wheel"]
    assert sorted(meta["outputs"]) == ["diff-file", "exit-code", "plan-file", "report-file", "sarif-file"]
    assert [s.get("uses") or s["shell"] for s in meta["runs"]["steps"]] == [
        "actions/setup-python@v5", "bash", "bash", "github/codeql-action/upload-sarif@v3", "bash", "bash", "bash",
        "bash"]


def test_the_metadata_check_finds_what_github_rejects():
    bad = {
        "name": "x", "runs": {"using": "node20", "main": "index.js",
                              "steps": [{"run": "echo ${{ inputs.pth }}", "with": {"a": 1}},
                                        {"uses": "actions/checkout@main", "shell": "bash", "id": "a"},
                                        {"run": "true", "shell": "bash", "id": "a"}]},
        "inputs": {"paths": {"default": 1}, "9x": {"description": "d"}},
        "outputs": {"o": {"description": "d"}},
        "branding": {"icon": "cpu", "color": "pink"},
        "on": "push",
    }
    assert metadata_errors(bad) == [
        "unknown top-level key `on`",
        "`description` is required",
        "inputs.paths: `description` is required",
        "inputs.paths: `default` must be a string (quote it)",
        "inputs.9x: an input id starts with a letter or _ and has only letters, digits, - and _",
        "outputs.o: a composite action's output needs `value`",
        "branding: needs an icon and one of the colors ['black', 'blue', 'gray-dark', 'green', 'orange', 'purple', "
        "'red', 'white', 'yellow']",
        "runs.using: `node20`, not composite",
        "runs: unknown key `main` for a composite action",
        "runs.steps[0]: a `run` step of a composite action needs `shell`",
        "runs.steps[0]: `with` goes with `uses`",
        "runs.steps[0]: the script holds a `${{ }}` expression; pass the value through `env:`",
        "runs.steps[1]: `shell` and `working-directory` go with `run`, not `uses`",
        "runs.steps[1]: `uses: actions/checkout@main` is neither a local path nor pinned to a version or SHA",
        "runs.steps[2]: id `a` is not a valid unique step id",
        "`inputs.pth` names the unknown input `pth`",
    ]


# ------------------------------------------------------------------------------------------ running it

FAKE_GH = """#!/usr/bin/env bash
# gh, recorded: each call's arguments go to $GH_LOG; listing comments prints $GH_EXISTING (the ids the
# real gh's --jq filter would print), posting or editing prints a comment URL.
printf '%s\\n' "$*" >> "$GH_LOG"
case "$*" in
  *--paginate*) printf '%s' "$GH_EXISTING" ;;
  *) echo "https://github.com/acme/models/pull/7#issuecomment-42" ;;
esac
"""


def _value(expr: str, ctx: dict[str, Any]) -> str:
    """A `${{ a.b.c }}` expression of the action: a path into ``ctx`` ('' when it leads nowhere)."""
    node: Any = ctx
    for part in expr.split("."):
        if not re.fullmatch(r"[\w-]+", part):
            raise AssertionError(f"the local runner evaluates only context paths, not `{expr}`")
        node = node.get(part, "") if isinstance(node, dict) else ""
    return str(node) if node is not None else ""


def _read_outputs(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            key, delim = line.split("<<", 1)
            out[key] = "\n".join(iter(lambda: next(lines), delim))
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
    return out


def run_action(workdir: Path, tmp: Path, inputs: dict[str, str], *, event: dict[str, Any],
               path: str, skip: tuple[str, ...] = (), action_path: Path = ROOT,
               uses_outcomes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Run action.yml's shell steps in ``workdir`` as a runner would; one record per step, in order.
    ``uses_outcomes`` gives the ``outcome`` of the `uses:` steps it cannot run, by id (``{"upload": "failure"}``)."""
    meta = load_action()
    given = {k: str(v.get("default", "")) for k, v in meta["inputs"].items()}
    given["github-token"] = "test-token"
    given.update(inputs)
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    files = {name: tmp / name.lower() for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH",
                                                   "GITHUB_ENV")}
    for f in files.values():
        f.write_text("", encoding="utf-8")
    steps: dict[str, Any] = {k: {"outcome": v} for k, v in (uses_outcomes or {}).items()}
    ctx: dict[str, Any] = {"inputs": given, "steps": steps, "runner": {"temp": str(runner_temp)},
                           "github": {"action_path": str(action_path), "event": event, "repository": "acme/models"}}
    records: list[dict[str, Any]] = []
    for step in meta["runs"]["steps"]:
        if "uses" in step or step["name"] in skip:
            records.append({"name": step["name"], "ran": False})
            continue
        assert "if" not in step, "the local runner runs shell steps unconditionally; conditions go in the script"
        files["GITHUB_OUTPUT"].write_text("", encoding="utf-8")  # each step gets its own output file
        added = [p for p in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if p]
        env = {"HOME": os.environ.get("HOME", str(tmp)), "LANG": "C.UTF-8",
               "PATH": os.pathsep.join([*reversed(added), path]),
               "RUNNER_TEMP": str(runner_temp), "GITHUB_REPOSITORY": "acme/models", "GITHUB_WORKSPACE": str(workdir),
               "PIP_CONSTRAINT": str(tmp / "constraints.txt"), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
               "GH_LOG": str(tmp / "gh.log"), "GH_EXISTING": os.environ.get("GH_EXISTING", ""),
               **{k: str(v) for k, v in files.items()},
               **_read_outputs(files["GITHUB_ENV"])}
        for key, raw in (step.get("env") or {}).items():
            env[key] = EXPR.sub(lambda m: _value(m.group(1), ctx), str(raw))
        script = tmp / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workdir,
                              env=env, capture_output=True, text=True, timeout=900)
        outputs = _read_outputs(files["GITHUB_OUTPUT"])
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs}
        records.append({"name": step["name"], "ran": True, "rc": done.returncode, "stdout": done.stdout,
                        "stderr": done.stderr, "outputs": outputs})
        if done.returncode != 0:
            break
    return records


@pytest.fixture()
def pr_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/app/test_diff.py's repository: `main` holds the base, the working tree the head (the sample in docs/ci.md)."""
    r = diff_repo(tmp_path)
    gh = tmp_path / "bin" / "gh"
    gh.parent.mkdir()
    gh.write_text(FAKE_GH, encoding="utf-8")
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "constraints.txt").write_text(
        subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                       capture_output=True, text=True).stdout, encoding="utf-8")
    monkeypatch.setenv("GH_EXISTING", "")
    return r


SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
SW104_ANNOTATION = (
    '::error file=deploy/serving.yaml,line=47,title=sharded-model-that-fits::SW104: meta-llama/Llama-3.1-8B-I'
    'nstruct is sharded over 2 GPUs per replica (TP2×PP1) on L40S, but 2 replicas × TP1×PP1 on the same 2 GPUs hold'
    ' 98 sequences of 4,096 tokens (p95 context) together: enough for the 16 a replica must hold (16 by annotation '
    'shardwise.dev/target-concurrency); run them instead: replicas 1 → 2, --tensor-parallel-size 2 → 1, nvidia.com/'
    'gpu limit 2 → 1 (vLLM 0.11.0 from the image tag) (Deployment serving/llama8b)')
FAIL_MESSAGE = ("::error title=shardwise::findings at or above mandatory (exit 1); see the annotations and the "
                "summary\n")
PR_EVENT = {"pull_request": {"number": 7}}


@pytest.mark.slow
def test_the_action_installs_lints_diffs_comments_and_fails(pr_repo, tmp_path):
    # the runner's Python (what setup-python provides) without shardwise: the install step must provide it
    path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.base_prefix) / "bin"), SYSTEM_PATH])
    assert shutil.which("shardwise", path=path) is None
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "base-ref": "main", "comment": "true",
                                             "formats": "json=shardwise.json"}, event=PR_EVENT, path=path)
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", 0), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 1)]
    install, lint, _, diff, comment, plan, fail = records[1:]
    venv_bin = tmp_path / "runner-temp" / "shardwise-venv" / "bin"
    assert install["stdout"] == "shardwise 0.1.0\n"
    assert (tmp_path / "github_path").read_text(encoding="utf-8") == f"{venv_bin}\n"

    report = tmp_path / "runner-temp" / "shardwise-report.md"
    assert lint["outputs"] == {"exit-code": "1", "fail-level": "mandatory", "sarif-file": "shardwise.sarif",
                               "report-file": str(report)}
    annotations = [line for line in lint["stdout"].splitlines() if line.startswith("::")]
    assert [a.split("::")[1].split(",title=")[1] for a in annotations] == [
        "namespace-without-default-deny", "sharding-avoidable-by-quantization",
        "sharded-model-that-fits", "tensor-parallel-over-pcie"]
    assert annotations[2] == SW104_ANNOTATION
    sarif = json.loads((pr_repo / "shardwise.sarif").read_text(encoding="utf-8"))
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in sarif["runs"][0]["results"]] == [
        ("SW305", "warning", 3), ("SW106", "warning", 21), ("SW104", "error", 47), ("SW202", "warning", 47)]
    assert [f["code"] for f in json.loads((pr_repo / "shardwise.json").read_text(encoding="utf-8"))["findings"]] \
        == ["SW305", "SW106", "SW104", "SW202"]

    assert plan["outputs"] == {"plan-file": ""}  # no plan input: no plan
    diff_md = tmp_path / "runner-temp" / "shardwise-diff.md"
    assert diff["outputs"] == {"diff-file": str(diff_md)}
    assert diff_md.read_text(encoding="utf-8") == documented_sample()
    assert (tmp_path / "github_step_summary").read_text(encoding="utf-8") == \
        report.read_text(encoding="utf-8") + documented_sample()

    body = tmp_path / "runner-temp" / "shardwise-comment.md"
    assert (tmp_path / "gh.log").read_text(encoding="utf-8").splitlines() == [
        'api --paginate repos/acme/models/issues/7/comments --jq .[] | select(.body | startswith("<!-- shardwise-diff'
        ' -->")) | .id',
        f"api --method POST repos/acme/models/issues/7/comments -F body=@{body} --jq .html_url"]
    assert body.read_text(encoding="utf-8") == documented_sample()
    assert comment["stdout"] == "https://github.com/acme/models/pull/7#issuecomment-42\n"
    assert (fail["stdout"], fail["rc"]) == (FAIL_MESSAGE, 1)


@pytest.mark.slow
def test_a_second_push_edits_the_same_comment(pr_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("GH_EXISTING", "1234567\n")
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "comment": "true", "upload-sarif": "false"},
                         event=PR_EVENT, path=path, skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 1)]
    body = tmp_path / "runner-temp" / "shardwise-comment.md"
    report = tmp_path / "runner-temp" / "shardwise-report.md"
    assert (tmp_path / "gh.log").read_text(encoding="utf-8").splitlines() == [
        'api --paginate repos/acme/models/issues/7/comments --jq .[] | select(.body | startswith("<!-- shardwise-lint'
        ' -->")) | .id',
        f"api --method PATCH repos/acme/models/issues/comments/1234567 -F body=@{body} --jq .html_url"]
    # without base-ref the comment is the lint report under its own marker
    assert body.read_text(encoding="utf-8") == "<!-- shardwise-lint -->\n" + report.read_text(encoding="utf-8")
    assert records[4]["outputs"] == {"diff-file": ""}


@pytest.mark.slow
def test_fail_level_none_reports_without_failing_and_a_bad_level_is_an_error(pr_repo, tmp_path):
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "fail-level": "none", "comment": "true",
                                             "base-ref": "main"},
                         event={}, path=path, skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 0)]
    # adopt18: the action ran lint without --fail-on and swallowed its exit 1, so the summary and the comment said
    # "❌ Failed" while the job passed; it passes --fail-on none, and every report says the run is report only
    report = tmp_path / "runner-temp" / "shardwise-report.md"
    assert records[2]["outputs"] == {"exit-code": "0", "fail-level": "none", "sarif-file": "shardwise.sarif",
                                     "report-file": str(report)}
    assert report.read_text(encoding="utf-8").splitlines()[3] == (
        "**📝 Report only** (`fail-on none`) — 1 blocking finding would fail at `mandatory`; findings do not fail this run.")
    sarif = json.loads((pr_repo / "shardwise.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["invocations"] == [{
        "executionSuccessful": True, "exitCode": 0,
        "exitCodeDescription": "report only (fail-on none): 1 blocking finding would fail at mandatory",
        "properties": {"fail_on": "none"}}]
    assert records[4]["stderr"] == (  # the diff counts what would fail at mandatory, and says it is report only
        "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added (1 at or above "
        "mandatory: shardwise lint would fail on it; report only (fail-on none)), 1 fixed\n")
    assert records[5]["stdout"] == "shardwise: not a pull request; no comment\n"
    assert records[6]["outputs"] == {"plan-file": ""}  # no plan input: no plan
    assert records[7]["stdout"] == ""
    assert not (tmp_path / "gh.log").exists()

    # what `|| true` would hide: an input that cannot be read still fails a report-only run (exit 2)
    (pr_repo / "deploy" / "broken.yaml").write_text("kind: Deployment\nmetadata: {name: [\n", encoding="utf-8")
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "fail-level": "none"}, event={}, path=path,
                         skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records][-1] == ("Fail on findings", 2)
    assert records[2]["outputs"]["exit-code"] == "2"
    assert records[-1]["stdout"] == "::error title=shardwise::an input could not be read (exit 2); see the lint step\n"
    assert report.read_text(encoding="utf-8").splitlines()[3] == (
        "**❌ Failed** — 1 input error (everything else was read and linted); report only (`fail-on none`): 1 blocking finding "
        "would fail at `mandatory`.")

    records = run_action(pr_repo, tmp_path, {"fail-level": "blocking"}, event={}, path=path,
                         skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 2)]
    assert records[2]["stdout"] == (
        "::error title=shardwise::fail-level is 'blocking'; it must be mandatory, advisory, none or empty (the config "
        "file's fail_on, else mandatory)\n")


ADVISORY_ONLY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama8b, namespace: serving}
spec:
  replicas: 2
  selector: {matchLabels: {app: llama8b}}
  template:
    metadata: {labels: {app: llama8b}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize(("inputs", "rc", "said"), [
    ({}, 1, "::error title=shardwise::findings at or above advisory (exit 1); see the annotations and the summary\n"),
    ({"fail-level": "mandatory"}, 0, ""),  # the input, when given, wins over the config file as --fail-on does
])
def test_the_config_files_fail_on_decides_unless_the_input_says_otherwise(pr_repo, tmp_path, inputs, rc, said):
    """The Action's fail-level defaulted to mandatory and passed --fail-on mandatory, which overrides the config
    file: a team's `fail_on = "advisory"` failed `shardwise lint` locally and passed in CI (newuser6). Empty now
    passes no flag, so the config file decides, and the last step names the level the run failed at."""
    (pr_repo / "adv").mkdir()
    (pr_repo / "adv" / "serving.yaml").write_text(ADVISORY_ONLY, encoding="utf-8")
    (pr_repo / "shardwise.toml").write_text('fail_on = "advisory"\n', encoding="utf-8")
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(pr_repo, tmp_path, {"paths": "adv/", **inputs}, event={}, path=path,
                         skip=("Install shardwise",))
    assert records[2]["outputs"]["fail-level"] == inputs.get("fail-level", "advisory")
    assert (records[-1]["name"], records[-1]["rc"], records[-1]["stdout"]) == ("Fail on findings", rc, said)


UPLOAD_WARNING = (
    "::warning title=shardwise::the SARIF upload to code scanning failed (a pull request from a fork gets a read-only "
    "token; code scanning may be off for this repository); the findings are in the annotations and the summary, and "
    "they still decide this step (upload-sarif: false skips the upload)\n")


def test_a_failed_sarif_upload_is_a_warning_and_the_findings_still_decide(pr_repo, tmp_path):
    """A fork's pull request has a read-only token, so upload-sarif fails: the upload step continues on error,
    and the last step warns and fails on the findings alone."""
    meta = load_action()
    (upload,) = [s for s in meta["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    assert (upload["id"], upload["continue-on-error"]) == ("upload", True)
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/"}, event={}, path=path, skip=("Install shardwise",),
                         uses_outcomes={"upload": "failure"})
    assert [(r["name"], r.get("rc")) for r in records][-1] == ("Fail on findings", 1)
    assert records[-1]["stdout"] == UPLOAD_WARNING + FAIL_MESSAGE
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "fail-level": "none"}, event={}, path=path,
                         skip=("Install shardwise",), uses_outcomes={"upload": "failure"})
    assert (records[-1]["rc"], records[-1]["stdout"]) == (0, UPLOAD_WARNING)
    # an upload that succeeded (or was skipped) says nothing
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "fail-level": "none"}, event={}, path=path,
                         skip=("Install shardwise",), uses_outcomes={"upload": "success"})
    assert (records[-1]["rc"], records[-1]["stdout"]) == (0, "")


@pytest.mark.slow
def test_a_baseline_input_reports_only_new_findings_and_a_bad_one_fails(pr_repo, tmp_path):
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    shardwise = str(Path(sys.executable).parent / "shardwise")
    made = subprocess.run([shardwise, "lint", "deploy/", "--create-baseline", ".shardwise-baseline.json"],
                          cwd=pr_repo, capture_output=True, text=True, check=False)
    assert made.returncode == 0 and made.stdout == (
        "shardwise: 1 file read, 2 workloads; 4 findings written to the baseline .shardwise-baseline.json (1 mandatory, "
        "3 advisory) — passed\n")
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "baseline": ".shardwise-baseline.json"},
                         event={}, path=path, skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 0)]
    assert records[2]["outputs"]["exit-code"] == "0"
    assert [line for line in records[2]["stdout"].splitlines() if line.startswith("::")] == []  # no annotation
    sarif = json.loads((pr_repo / "shardwise.sarif").read_text(encoding="utf-8"))
    assert [(r["ruleId"], r["baselineState"]) for r in sarif["runs"][0]["results"]] == [
        ("SW305", "unchanged"), ("SW106", "unchanged"), ("SW104", "unchanged"), ("SW202", "unchanged")]
    report = (tmp_path / "runner-temp" / "shardwise-report.md").read_text(encoding="utf-8")
    assert "· 4 findings in the baseline\n" in report
    # with base-ref, the diff step is given the same baseline and fail-level: its line counts what the gate fails on
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "baseline": ".shardwise-baseline.json",
                                             "base-ref": "main", "fail-level": "mandatory"},
                         event={}, path=path, skip=("Install shardwise",))
    assert (records[4]["name"], records[4]["rc"], records[4]["stderr"]) == ("Capacity and cost diff", 0, (
        "shardwise diff main..working tree: +10 GPUs, +2 nodes, +$65.53/hour, 2 findings added (none at or above "
        "mandatory outside the baseline .shardwise-baseline.json; 2 in it), 1 fixed\n"))

    (pr_repo / ".shardwise-baseline.json").write_text('{"shardwise_baseline": 2, "findings": []}', encoding="utf-8")
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "baseline": ".shardwise-baseline.json"},
                         event={}, path=path, skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 2)]
    assert records[2]["outputs"]["exit-code"] == "2"
    assert "--baseline: baseline format version 2; this shardwise reads version 1" in records[2]["stderr"]


COMPARE = "--model meta-llama/Llama-3.1-70B-Instruct --gpu H100,H200,L40S,A100 --max-model-len 8192 --concurrency 64"
ONE_GPU = "--model meta-llama/Llama-3.1-70B-Instruct\n--gpu H100 --max-model-len 8192 --concurrency 64\n"
STEPS_BEFORE_PLAN = [("Set up Python", None), ("Install shardwise", None), ("Lint", None),
                     ("Upload SARIF to code scanning", None), ("Capacity and cost diff", None),
                     ("Pull-request comment", None)]
ONLY_PLAN = ("Install shardwise", "Lint", "Capacity and cost diff", "Pull-request comment")


def _plan_text(args: str) -> tuple[int, str]:
    done = subprocess.run([str(Path(sys.executable).parent / "shardwise"), "plan", *args.split()],
                          capture_output=True, text=True, check=False)
    return done.returncode, done.stdout


@pytest.mark.slow
def test_the_plan_input_puts_the_comparison_in_the_summary_after_the_lint(pr_repo, tmp_path):
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(pr_repo, tmp_path, {"paths": "deploy/", "plan": COMPARE}, event={}, path=path,
                         skip=("Install shardwise",))
    assert [(r["name"], r.get("rc")) for r in records] == [
        ("Set up Python", None), ("Install shardwise", None), ("Lint", 0), ("Upload SARIF to code scanning", None),
        ("Capacity and cost diff", 0), ("Pull-request comment", 0), ("Plan", 0), ("Fail on findings", 1)]
    rc, text = _plan_text(COMPARE)
    assert rc == 0
    assert text.splitlines()[1].split() == ["hardware", "GPU", "layout", "GPUs/replica", "seqs/replica", "replicas",
                                            "GPUs", "billed", "on", "$/hour", "tokens/s/replica", "$/M", "output",
                                            "tokens"]
    assert [line.split()[0] for line in text.splitlines()[2:6]] == ["H100", "H200", "L40S", "A100"]
    assert text.splitlines()[-1].startswith("cheapest for the declared load: A100 — 2 replicas of TP8 on 2 × "
                                            "p4d.24xlarge")
    plan = records[6]
    assert plan["outputs"] == {"plan-file": ""}
    assert plan["stdout"] == text
    report = (tmp_path / "runner-temp" / "shardwise-report.md").read_text(encoding="utf-8")
    # the lint's report, then the plan in a fenced block under its heading; the lint's verdict stays its own
    assert (tmp_path / "github_step_summary").read_text(encoding="utf-8") == (
        report + "## shardwise plan\n\n```text\n" + text + "```\n")
    assert records[7]["stdout"] == FAIL_MESSAGE


@pytest.mark.slow
@pytest.mark.parametrize("emit,suffix,shape", [
    # vLLM 0.34.0 assumed: its extensible KV cache's unset utilization (1.0) is the one planned, so none is written
    ("vllm-args", "sh", "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 "
                        "--max-model-len 8192 --host 0.0.0.0"),
    ("manifest", "yaml", ["Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy", "NetworkPolicy",
                          "NetworkPolicy", "NetworkPolicy", "NetworkPolicy"]),
    ("stack-config", "yaml", ["config"]),
])
def test_plan_emit_writes_the_recommended_layout_to_plan_file(tmp_path, emit, suffix, shape):
    path = f"{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(tmp_path, tmp_path, {"plan": ONE_GPU, "plan-emit": emit}, event={}, path=path,
                         skip=ONLY_PLAN)
    assert [(r["name"], r.get("rc")) for r in records] == [*STEPS_BEFORE_PLAN, ("Plan", 0), ("Fail on findings", 0)]
    plan_file = tmp_path / "runner-temp" / f"shardwise-plan-{emit}.{suffix}"
    assert records[6]["outputs"] == {"plan-file": str(plan_file)}
    emitted = subprocess.run([str(Path(sys.executable).parent / "shardwise"), "plan", *ONE_GPU.split(), "--emit", emit],
                             capture_output=True, text=True, check=True).stdout
    assert plan_file.read_text(encoding="utf-8") == emitted
    assert records[6]["stdout"].endswith(f"shardwise: the {emit} layout is in {plan_file}\n")
    assert emitted.startswith("# shardwise plan: meta-llama/Llama-3.1-70B-Instruct as TP4 on H100-SXM-80GB, for 64 "
                              "sequences of 8,192 tokens at once")
    if emit == "vllm-args":
        assert emitted.splitlines()[1] == shape
    else:
        docs = [d for d in yaml.safe_load_all(emitted) if d]
        if emit == "manifest":
            assert [d["kind"] for d in docs] == shape
        else:
            assert [sorted(d) for d in docs] == [shape]
    summary = (tmp_path / "github_step_summary").read_text(encoding="utf-8")
    assert summary == "## shardwise plan\n\n```text\n" + _plan_text(ONE_GPU)[1] + "```\n"


@pytest.mark.slow
def test_a_plan_without_a_clean_layout_is_reported_and_fails_nothing(tmp_path):
    args = "--model meta-llama/Llama-3.1-70B-Instruct --gpu L40S --tp 1"
    path = f"{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(tmp_path, tmp_path, {"plan": args, "plan-emit": "manifest"}, event={}, path=path,
                         skip=ONLY_PLAN)
    assert [(r["name"], r.get("rc")) for r in records] == [*STEPS_BEFORE_PLAN, ("Plan", 0), ("Fail on findings", 0)]
    rc, text = _plan_text(args)
    assert rc == 1
    assert "  SW101 [mandatory] meta-llama/Llama-3.1-70B-Instruct in bf16 needs 131.4 GiB (−0.7/+2.9) of weights per GPU" \
        in text
    plan = records[6]
    assert plan["outputs"] == {"plan-file": ""}
    assert [line for line in plan["stdout"].splitlines() if line.startswith("::")] == [
        "::warning title=shardwise::plan: no layout is free of mandatory findings (exit 1); see the summary",
        "::warning title=shardwise::plan-emit: nothing to emit: TP1×PP1 has mandatory findings (SW101)"]
    assert not (tmp_path / "runner-temp" / "shardwise-plan-manifest.yaml").exists()
    assert (tmp_path / "github_step_summary").read_text(encoding="utf-8") == (
        "## shardwise plan\n\n```text\n" + text + "```\n\nNo layout is free of mandatory findings (exit 1): the plan"
        " above says which findings block each one.\n")


@pytest.mark.slow
@pytest.mark.parametrize("inputs,error,summary", [
    ({"plan": "--model meta-llama/Llama-3.1-70B-Instruct --gpu H100 --bogus"},
     "::error title=shardwise::plan (exit 2): unrecognized arguments: --bogus",
     "## shardwise plan\n\nThe plan could not run (exit 2): unrecognized arguments: --bogus\n"),
    # the words reach shardwise as they are: no command substitution, no glob
    ({"plan": "--model $(touch pwned) --gpu H100 *"},
     "::error title=shardwise::plan (exit 2): unrecognized arguments: pwned) *",
     "## shardwise plan\n\nThe plan could not run (exit 2): unrecognized arguments: pwned) *\n"),
    ({"plan": "--model nope/x --gpu H100"},
     "::error title=shardwise::plan (exit 2): unknown model 'nope/x'; it is not in the catalog: name the catalog model "
     "it is a copy of (annotation shardwise.dev/base-model, base_model in a stack, --base-model for plan) or give the "
     "path of its config.json",
     "## shardwise plan\n\nThe plan could not run (exit 2): unknown model 'nope/x'; it is not in the catalog: name the "
     "catalog model it is a copy of (annotation shardwise.dev/base-model, base_model in a stack, --base-model for "
     "plan) or give the path of its config.json\n"),
    ({"plan": COMPARE, "plan-emit": "manifest"},
     "::error title=shardwise::plan-emit (exit 2): --emit writes one layout: give one --gpu or --instance-type (the "
     "comparison names the cheapest)",
     "\nplan-emit manifest could not run (exit 2): --emit writes one layout: give one --gpu or --instance-type (the "
     "comparison names the cheapest)\n"),
    ({"plan": ONE_GPU + " --emit manifest"},
     "::error title=shardwise::plan: --emit is the action's to set; use plan-emit for an emitted layout", ""),
    ({"plan": ONE_GPU, "plan-emit": "helm"},
     "::error title=shardwise::plan-emit is 'helm'; it must be manifest, stack-config or vllm-args", ""),
    ({"plan-emit": "manifest"}, "::error title=shardwise::plan-emit needs plan (the arguments of shardwise plan)", ""),
])
def test_plan_arguments_it_cannot_take_fail_the_step(tmp_path, inputs, error, summary):
    path = f"{Path(sys.executable).parent}{os.pathsep}{SYSTEM_PATH}"
    records = run_action(tmp_path, tmp_path, inputs, event={}, path=path, skip=ONLY_PLAN)
    assert [(r["name"], r.get("rc")) for r in records] == [*STEPS_BEFORE_PLAN, ("Plan", 2)]
    assert records[6]["stdout"].splitlines()[-1] == error
    written = (tmp_path / "github_step_summary").read_text(encoding="utf-8")
    if summary.startswith("\n"):  # after the plan's own block
        assert written.startswith("## shardwise plan\n\n```text\n") and written.endswith("```\n" + summary)
    else:
        assert written == summary
    assert not (tmp_path / "pwned").exists()


FAKE_PYTHON = """#!/usr/bin/env bash
# python3, recorded: `-m venv DIR` makes DIR/bin/python (this script) and a shardwise that prints its
# version; every other call (pip) goes to the log.
if [[ "$1 $2" == "-m venv" ]]; then
  mkdir -p "$3/bin"; cp "$0" "$3/bin/python"
  printf '#!/bin/sh\\necho "shardwise 0.1.0"\\n' > "$3/bin/shardwise"; chmod +x "$3/bin/shardwise"; exit 0
fi
printf '%s\\n' "$*" >> LOG
"""


@pytest.mark.parametrize("inputs,action_path,pip,error", [
    # the published form: `uses: shardwise/shardwise@v0.1.0` checks the source out as the action's path
    ({}, "checkout", "{checkout}", None),
    ({"wheel": "tools/shardwise-0.1.0-py3-none-any.whl"}, "copy", "tools/shardwise-0.1.0-py3-none-any.whl", None),
    ({"wheel": "https://artifacts.example.com/shardwise-0.1.0-py3-none-any.whl"}, "copy",
     "https://artifacts.example.com/shardwise-0.1.0-py3-none-any.whl", None),
    ({"index-url": "https://pypi.example.com/simple"}, "copy",
     "--index-url https://pypi.example.com/simple shardwise", None),
    ({"index-url": "https://pypi.example.com/simple", "install": "shardwise==0.1.0"}, "copy",
     "--index-url https://pypi.example.com/simple shardwise==0.1.0", None),
    ({"wheel": "tools/missing.whl"}, "copy", None,
     "::error title=shardwise::wheel: no file tools/missing.whl in the workspace (commit it, or name an https URL)"),
    ({"wheel": "tools/shardwise-0.1.0-py3-none-any.whl", "install": "shardwise"}, "copy", None,
     "::error title=shardwise::set wheel or install, not both"),
    ({}, "copy", None,
     "::error title=shardwise::this copy of the action has no shardwise source beside it; set wheel (a wheel file or "
     "URL) or index-url (an index that holds shardwise)"),
])
def test_the_install_step_takes_a_wheel_an_index_or_the_actions_checkout(tmp_path, inputs, action_path, pip, error):
    """What the install step hands pip, for each way a team can have shardwise (docs/ci.md): a copy of
    action.yml in the team's repository (`uses: ./.github/actions/shardwise`) has no source beside it."""
    work = tmp_path / "work"
    (work / "tools").mkdir(parents=True)
    (work / "tools" / "shardwise-0.1.0-py3-none-any.whl").write_bytes(b"")
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(ACTION, copy / "action.yml")
    log = tmp_path / "pip.log"
    fake = tmp_path / "fakebin" / "python3"
    fake.parent.mkdir()
    fake.write_text(FAKE_PYTHON.replace("LOG", str(log)), encoding="utf-8")
    fake.chmod(0o755)
    records = run_action(work, tmp_path, inputs, event={}, path=f"{fake.parent}{os.pathsep}{SYSTEM_PATH}",
                         action_path=ROOT if action_path == "checkout" else copy)
    install = records[1]
    assert install["name"] == "Install shardwise"
    if error:
        assert (install["rc"], install["stdout"], log.exists()) == (2, error + "\n", False)
        return
    assert (install["rc"], install["stdout"]) == (0, "shardwise 0.1.0\n")
    assert log.read_text(encoding="utf-8") == (
        f"-m pip install --quiet --disable-pip-version-check {pip.format(checkout=ROOT)}\n")


@pytest.mark.tools
def test_actionlint_passes_on_the_workflows():
    actionlint = require_tool("actionlint")
    workflows = sorted(str(p) for p in (ROOT / ".github" / "workflows").glob("*.y*ml"))
    assert [Path(w).name for w in workflows] == ["shardwise.yml"]
    done = subprocess.run([actionlint, "-no-color", *workflows], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_workflow_uses_the_action():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "shardwise.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["lint"]["steps"]
    [mine] = [s for s in steps if s.get("uses") == "./"]
    assert mine["with"] == {"paths": "stacks/ examples/", "fail-level": "mandatory",
                            "base-ref": "${{ github.event.pull_request.base.sha }}",
                            "comment": "${{ github.event_name == 'pull_request' }}"}
    assert steps[0] == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}
