"""The pre-commit hooks of `.pre-commit-hooks.yaml`, run by the real `pre-commit try-repo` on a new repository.

The repository holds the diff fixture's head (`deploy/serving.yaml`: a 70B model on p5.48xlarge, an 8B
model sharded over two L40S GPUs) and, in another file, the default-deny NetworkPolicy of its namespace.
Only the policy file is given to pre-commit: the hook must still lint the whole tree (pass_filenames is
false), and must see the policy, so the namespace has no SW305 finding. A commit that touches no YAML or
JSON file skips the hook.

`shardwise-lint` (language: python) makes pre-commit build this repository into its own virtualenv with
pip — the package index or pip's cache serve the dependencies, pinned to this environment's versions;
PATH holds no shardwise while it runs, so the one it runs is the one pre-commit installed.
`shardwise-lint-system` runs the shardwise on PATH (this environment's).

The `repo: local` hook that docs/ci.md shows (the form that works before the repository is published) runs
through `pre-commit run` with its wheel URL replaced by a `file://` URL of a wheel built from this checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from repo_paths import ROOT

HEAD = ROOT / "tests" / "fixtures" / "diff" / "head" / "serving.yaml"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
NETPOL = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny-ingress
  namespace: serving
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""

FINDINGS = [
    'deploy/serving.yaml:21: SW106 [advisory] meta-llama/Llama-3.1-70B-Instruct takes 4 GPUs a replica (TP4×PP1, '
    'bf16); a 4-bit AWQ/GPTQ variant (39.8 GB of weights) fits on one H100-SXM-80GB, so those 4 GPUs could run 4 on'
    'e-GPU replicas holding 48 sequences of 8,192 tokens (p95 context) together: enough for the 32 a replica must h'
    'old (128 by annotation shardwise.dev/target-concurrency over 4 replicas); the TP4×PP1 replica holds 59 (both '
    'central estimates; 54 beyond its error band) (vLLM 0.11.0 from the image tag) (Deployment serving/llama70b)',
    'deploy/serving.yaml:47: SW104 [mandatory] meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replic'
    'a (TP2×PP1) on L40S, but 2 replicas × TP1×PP1 on the same 2 GPUs hold 98 sequences of 4,096 tokens (p95 contex'
    't) together: enough for the 16 a replica must hold (16 by annotation shardwise.dev/target-concurrency); run t'
    'hem instead: replicas 1 → 2, --tensor-parallel-size 2 → 1, nvidia.com/gpu limit 2 → 1 (vLLM 0.11.0 from the i'
    'mage tag) (Deployment serving/llama8b)',
    'deploy/serving.yaml:47: SW202 [advisory] tensor_parallel_size 2 on pool `instance-type=g6e.12xlarge` (L40S,'
    " joined only by PCIe) runs every layer's all-reduce over PCIe, and the sharding is avoidable: 2 replicas × TP1"
    '×PP1 on the same 2 GPUs hold 98 sequences of 4,096 tokens (p95 context) together: enough for the 16 a replica '
    'must hold (16 by annotation shardwise.dev/target-concurrency) (vLLM 0.11.0 from the image tag) (advisory: the '
    "model needs fewer GPUs per replica, SW104's finding on this group, which blocks; the layout its change makes is "
    'judged again) (Deployment serving/llama8b)',
    "shardwise: 2 files read, 2 workloads, 1 mandatory finding, 2 advisory findings, 0 suppressed — failed: 1 blocking "
    "finding at or above mandatory",
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "deploy").mkdir(parents=True)
    shutil.copy(HEAD, r / "deploy" / "serving.yaml")
    (r / "deploy" / "netpol.yaml").write_text(NETPOL, encoding="utf-8")
    (r / "NOTES.txt").write_text("not an input\n", encoding="utf-8")
    _git(r, "init", "-q", "-b", "main")
    _git(r, "add", ".")
    _git(r, "commit", "-q", "-m", "deploy")
    return r


def hooks_repo(tmp_path: Path) -> Path:
    """This checkout's hooks and package committed to a new git repository, as a user's `rev` pins them.

    (The checkout itself may not be a git repository, and pre-commit would leave its untracked files out.)
    """
    r = tmp_path / "shardwise"
    for folder in ("shardwise", "rules", "components"):
        shutil.copytree(ROOT / folder, r / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, r / name)
    _git(r, "init", "-q", "-b", "main")
    _git(r, "add", ".")
    _git(r, "commit", "-q", "-m", "shardwise")
    return r


def try_repo(repo: Path, tmp_path: Path, hook: str, file: str, path: str) -> tuple[int, str]:
    """`pre-commit try-repo <this repository> HOOK --files FILE` in ``repo``; (exit code, the hook's output)."""
    hooks = tmp_path / "shardwise" if (tmp_path / "shardwise").is_dir() else hooks_repo(tmp_path)
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                                          check=True, capture_output=True, text=True).stdout, encoding="utf-8")
    env = {**os.environ, **GIT_ENV, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "PIP_CONSTRAINT": str(constraints), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks), hook, "--files", file,
                           "--color", "never"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    # the hook's own block: from its status line to the end (try-repo first prints the config it made)
    m = re.search(r"^shardwise lint.*$", out, re.M)
    assert m, out
    return done.returncode, out[m.start():]


def status_line(name: str, result: str) -> str:
    """pre-commit's line for a hook: its name, dots, the result, 79 columns in all."""
    return name + "." * (79 - len(name) - len(result)) + result


def test_the_hooks_lint_the_tree_without_filenames():
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert sorted(hooks) == ["shardwise-lint", "shardwise-lint-system"]
    for h in hooks.values():
        assert (h["entry"], h["args"], h["pass_filenames"], h["types_or"], h["require_serial"]) == (
            "shardwise lint", ["."], False, ["yaml", "json", "shell"], True)
    assert (hooks["shardwise-lint"]["language"], hooks["shardwise-lint-system"]["language"]) == ("python", "system")


@pytest.mark.slow
def test_shardwise_lint_hook_installs_shardwise_and_lints_the_whole_tree(repo, tmp_path):
    bare = "/usr/local/bin:/usr/bin:/bin"
    assert shutil.which("shardwise", path=bare) is None  # only the environment pre-commit builds has it
    rc, out = try_repo(repo, tmp_path, "shardwise-lint", "deploy/netpol.yaml", bare)
    assert rc == 1
    assert out.splitlines() == [status_line("shardwise lint", "Failed"), "- hook id: shardwise-lint", "- exit code: 1", "",
                                *FINDINGS, ""]


@pytest.mark.slow
def test_system_hook_runs_the_installed_shardwise_and_skips_commits_without_yaml(repo, tmp_path):
    path = f"{Path(sys.executable).parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
    rc, out = try_repo(repo, tmp_path, "shardwise-lint-system", "deploy/netpol.yaml", path)
    assert rc == 1
    assert out.splitlines() == [status_line("shardwise lint (installed)", "Failed"), "- hook id: shardwise-lint-system",
                                "- exit code: 1", "", *FINDINGS, ""]
    rc, out = try_repo(repo, tmp_path, "shardwise-lint-system", "NOTES.txt", path)
    assert (rc, out.splitlines()) == (0, [status_line("shardwise lint (installed)", "(no files to check)Skipped")])


def documented_local_hook(wheel: Path) -> str:
    """docs/ci.md's `repo: local` hook, installing ``wheel`` instead of the URL it names."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = text.split("### Now: a local hook\n", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    m = re.search(r'"shardwise @ (\S+)"', block)
    assert m, block
    return block.replace(m.group(1), wheel.as_uri())


@pytest.mark.slow
def test_the_documented_local_hook_installs_a_wheel_and_lints_the_whole_tree(repo, tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)],
                   env={**os.environ, "SHARDWISE_NATIVE": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, check=True,
                   capture_output=True, timeout=900)
    (wheel,) = wheels.glob("shardwise-*-py3-none-any.whl")
    config = documented_local_hook(wheel)
    assert yaml.safe_load(config)["repos"][0]["hooks"][0]["args"] == ["deploy/", "stacks/"]
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    (repo / "stacks").mkdir()
    (repo / "stacks" / "NOTES.txt").write_text("no stack yet\n", encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "hooks")
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                                          check=True, capture_output=True, text=True).stdout, encoding="utf-8")
    bare = "/usr/local/bin:/usr/bin:/bin"
    assert shutil.which("shardwise", path=bare) is None  # only the environment pre-commit builds has it
    env = {**os.environ, **GIT_ENV, "PATH": bare,
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PIP_CONSTRAINT": str(constraints),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "shardwise-lint", "--files", "deploy/netpol.yaml",
                           "--color", "never"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    m = re.search(r"^shardwise lint.*$", out, re.M)
    assert m, out
    assert done.returncode == 1
    assert out[m.start():].splitlines() == [
        status_line("shardwise lint", "Failed"), "- hook id: shardwise-lint", "- exit code: 1", "",
        *(f.removeprefix("./") for f in FINDINGS), ""]
