"""The CLI on odd command lines and environments (hostile7's sweep): an empty path given to an option or as a PATH is
a usage error naming it; standard output in an encoding that cannot hold a report's characters is written with
escapes, not ended by an internal error; git steered elsewhere by GIT_DIR says so."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import main

EXE = str(ROOT / ".venv" / "bin" / "shardwise")
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: serving}
spec:
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, meta-llama/Llama-3.1-70B-Instruct, --max-model-len, "8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize(("argv", "option"), [
    (["lint", ""], "PATH"),
    (["lint", "--config", "", "x.yaml"], "--config"),
    (["lint", "--baseline", "", "x.yaml"], "--baseline"),
    (["lint", "--create-baseline", "", "x.yaml"], "--create-baseline"),  # was: no baseline written, exit 0
    (["lint", "--output", "", "x.yaml"], "--output/-o"),
    (["lint", "--model-dir", "", "x.yaml"], "--model-dir"),
    (["lint", "--values", "", "x.yaml"], "--values/-f"),
    (["lint", "x.yaml", ""], "PATH"),
    (["diff", "HEAD", ""], "PATH"),
    (["diff", "HEAD", "--config", ""], "--config"),
    # fuzz16: these three were read as not given (docs wrote the package's pages, exit 0) or named no file
    (["docs", "--readme", ""], "--readme"),
    (["docs", "--out", ""], "--out"),
    (["policy-pack-dir", "--out", ""], "--out"),
])
def test_an_empty_path_is_a_usage_error_naming_its_option(argv, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text("", encoding="utf-8")
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"shardwise {argv[0]}: error: argument {option}: an empty path names no file or folder"
    assert not (tmp_path / "baseline.json").exists()


def test_an_ascii_standard_output_gets_escapes_not_an_internal_error(tmp_path):
    (tmp_path / "big.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([EXE, "lint", "big.yaml"], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert (r.returncode, r.stderr) == (1, b"")
    assert r.stdout.decode("ascii").splitlines()[-1] == (
        "shardwise: 1 file read, 1 workload, 1 mandatory finding, 1 advisory finding, 0 suppressed \\u2014 failed: "
        "1 blocking finding at or above mandatory")
    assert "(\\u22120.7/+2.9) of weights per GPU at TP1\\xd7PP1" in r.stdout.decode("ascii")


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("argv", [["lint", "--format", "json", "big.yaml"], ["lint", "--format", "sarif", "big.yaml"],
                                  ["plan", "--format", "json", "--model", "meta-llama/Llama-3.1-70B-Instruct",
                                   "--gpu", "L40S", "--tp", "1"]])
def test_a_json_report_on_an_ascii_standard_output_is_still_json(encoding, argv, tmp_path):
    """fuzz13: under ``PYTHONIOENCODING=ascii`` a JSON or SARIF report on standard output held Python's escape
    ``\\xd7`` (TP1×PP1), which is no JSON escape: ``json.loads`` refused the report. Each character that is not ASCII
    is now its JSON escape, read back as the character."""
    (tmp_path / "big.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": encoding, "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([EXE, *argv], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    utf8 = subprocess.run([EXE, *argv], cwd=tmp_path, env={**env, "PYTHONIOENCODING": "utf-8"}, capture_output=True,
                          timeout=120)
    assert r.returncode == utf8.returncode == 1
    assert r.stdout.isascii()
    assert "\\u00d7" in r.stdout.decode("ascii")  # TP1×PP1, in the findings or the layouts
    assert json.loads(r.stdout) == json.loads(utf8.stdout)


def test_git_steered_by_the_environment_says_so(tmp_path, monkeypatch, capsys):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    assert main(["diff", "HEAD"]) == 2
    assert capsys.readouterr().err == (
        "shardwise: error: shardwise diff runs inside a git repository: git rev-parse --show-prefix: fatal: not a "
        f"git repository: '{tmp_path}/nowhere' (the environment sets GIT_DIR={tmp_path}/nowhere)\n")


def test_a_base_a_shallow_clone_lacks_says_to_fetch_it(tmp_path, monkeypatch, capsys):
    src = tmp_path / "src"
    src.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for i in range(2):
        (src / "x.yaml").write_text(f"a: {i}\n", encoding="utf-8")
        subprocess.run([*git, "init", "-q"] if i == 0 else ["true"], cwd=src, check=True)
        subprocess.run([*git, "add", "-A"], cwd=src, check=True)
        subprocess.run([*git, "commit", "-q", "-m", str(i)], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{src}", "clone"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path / "clone")
    assert main(["diff", "HEAD~1"]) == 2
    assert capsys.readouterr().err == (
        "shardwise: error: 'HEAD~1' is not a commit of this repository (git rev-parse --verify HEAD~1); this is a "
        "shallow clone, which holds only the history it fetched: fetch the base (git fetch --unshallow, or "
        "actions/checkout with fetch-depth: 0)\n")
    monkeypatch.chdir(src)  # the full clone: the same ref is a commit
    assert main(["diff", "HEAD~1", "--format", "json"]) == 0


def test_a_closed_standard_output_is_said_and_exits_2_not_an_internal_error(tmp_path):
    """hostile9: ``shardwise lint … >&-`` (Python's ``sys.stdout`` is None) was an internal error with a traceback
    from the exit's flush; a report written to a file needs no standard output (the summary goes to stderr)."""
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([EXE, "lint", *argv, "a.yaml"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, preexec_fn=lambda: os.close(1))  # noqa: PLW1509
    closed = run("--format", "json")
    assert (closed.returncode, closed.stderr) == (2, (
        "shardwise: error: standard output is closed: the report cannot be written there (name a file with --output "
        "or --format FMT=FILE)\n"))
    to_file = run("--format", "json=out.json")
    assert (to_file.returncode, to_file.stderr) == (0, (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — passed\n"))


L40S_PLAN = ["plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "L40S"]


@pytest.mark.parametrize("what", ["manifest", "stack-config"])
def test_emitted_yaml_on_an_ascii_standard_output_is_still_yaml(what, tmp_path):
    """tiny13: under ``PYTHONIOENCODING=ascii`` ``plan --emit`` wrote Python's escape ``\\xd7`` (TP1×PP8) into the
    YAML; comments are now the nearest ASCII and scalars YAML's own escapes: the same documents as on UTF-8."""
    import yaml

    argv = [*L40S_PLAN, "--emit", what]
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([EXE, *argv], cwd=tmp_path, env={**env, "PYTHONIOENCODING": "ascii"}, capture_output=True,
                       timeout=120)
    utf8 = subprocess.run([EXE, *argv], cwd=tmp_path, env={**env, "PYTHONIOENCODING": "utf-8"}, capture_output=True,
                          timeout=120)
    assert (r.returncode, r.stderr, utf8.returncode) == (0, b"", 0)
    assert r.stdout.isascii() and b"\\x" not in r.stdout and b"\\u" not in r.stdout
    first = r.stdout.decode("ascii").splitlines()[0]
    assert first == ("# shardwise plan: meta-llama/Llama-3.1-70B-Instruct as TP1 x PP8 on L40S, for no load declared "
                     "(one replica; --concurrency C sizes replicas); sequences of 131,072 tokens; vLLM 0.34.0, assumed: "
                     "--vllm-version not given")
    assert utf8.stdout.decode("utf-8").splitlines()[0] == first.replace("TP1 x PP8", "TP1 \u00d7 PP8")
    assert list(yaml.safe_load_all(r.stdout)) == list(yaml.safe_load_all(utf8.stdout))


def test_emitted_yaml_scalars_use_yaml_escapes_where_the_stream_is_ascii():
    from shardwise.rules.app.emit import dump_documents

    docs = [{"note": "TP1\u00d7PP8 \u00e9", "cmd": "a\nb \u00d7 c\n", "ascii": "a\nb\n", "n": "x\u2192y \U0001f680"}]
    text = dump_documents(docs, ascii_only=True)
    assert text == ('---\nnote: "TP1\\xD7PP8 \\xE9"\ncmd: "a\\nb \\xD7 c\\n"\nascii: |\n  a\n  b\nn: "x\\u2192y '
                    '\\U0001F680"\n')
    import yaml

    assert list(yaml.safe_load_all(text)) == docs


def test_plan_text_on_an_ascii_standard_output_gets_escapes_not_an_internal_error(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([EXE, *L40S_PLAN], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, b"")
    lines = r.stdout.decode("ascii").splitlines()
    assert lines[4] == " 1   8   1     8            17.93       20.89    547,584      4.18             3     yes  \\u2013"


def test_a_markdown_report_on_an_ascii_standard_output_gets_escapes_not_an_internal_error(tmp_path):
    (tmp_path / "big.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([EXE, "lint", "--format", "markdown", "big.yaml"], cwd=tmp_path, env=env, capture_output=True,
                       timeout=120)
    assert (r.returncode, r.stderr) == (1, b"shardwise: 1 file read, 1 workload, 1 mandatory finding, 1 advisory finding, "
                                           b"0 suppressed \\u2014 failed: 1 blocking finding at or above mandatory\n")
    text = r.stdout.decode("ascii")
    assert "**\\u274c Failed** \\u2014 1 blocking finding at or above `mandatory`." in text.splitlines()
    assert "1 file read \\xb7 1 workload \\xb7 1 mandatory \\xb7 1 advisory \\xb7 0 suppressed" in text.splitlines()


@pytest.mark.parametrize(("argv", "said"), [
    (["--gpu", "H100", "--gpu", "L4"], "--gpu: is given twice ('H100' and 'L4'); give one list: --gpu H100,L4"),
    (["--instance-type", "p5.48xlarge", "--instance-type", "g6.xlarge"],
     "--instance-type: is given twice ('p5.48xlarge' and 'g6.xlarge'); give one list: --instance-type "
     "p5.48xlarge,g6.xlarge"),
    (["--gpu", "H100", "--model", "Qwen/Qwen3-8B"],
     "--model: is given twice ('meta-llama/Llama-3.1-8B-Instruct' and 'Qwen/Qwen3-8B')"),
])
def test_a_plan_option_given_twice_is_a_usage_error_not_the_last_one_alone(argv, said, capsys):
    """fuzz16: ``plan --gpu H100 --gpu L4`` planned L4 alone (argparse keeps the last), exit 0: the H100 the user
    asked to compare was dropped without a word. A GPU, instance type or model given twice is a usage error."""
    assert main(["plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", *argv]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"shardwise plan: error: argument {said}"
