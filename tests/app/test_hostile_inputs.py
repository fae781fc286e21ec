"""No repository content may hang the linter, exhaust it or make it read outside what it was asked to read.

Each test builds a hostile repository at test time in ``tmp_path`` (a FIFO, symbolic links to ``/dev/zero``
and out of the tree, an alias bomb, pathological ignore patterns, a file name with a newline) and runs the
real CLI on it under a deadline: a hang fails the test instead of stalling the suite. Every assertion is
the exact line a user sees, and each test also checks that the readable inputs beside the hostile one are
still linted (one unreadable input never hides the others) and that the run exits 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shardwise.rules.adapters import globs
from shardwise.rules.adapters.select import Excludes, compile_pattern
from shardwise.rules.app.cli import main
from shardwise.rules.model.errors import InputError
from shardwise.rules.model.files import MAX_FILE_BYTES, read_file_bytes


class Hung(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail (raise :class:`Hung`) when the block runs longer than ``seconds``: a blocking open of a FIFO or an
    endless read is interrupted."""
    def expire(signum: int, frame: object) -> None:  # noqa: ARG001 - the signal handler's signature
        raise Hung(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def vllm_deployment(name: str, base_model: str = "") -> str:
    """A vLLM Deployment on one L40S that no capacity rule blocks; SW305 notes its namespace's missing
    default-deny policy (advisory), which tells a linted workload from one left unread. With ``base_model``,
    the annotation naming it (line 7); the model argument is on line 16."""
    ann = f"  annotations:\n    shardwise.dev/base-model: {base_model}\n" if base_model else "  labels: {app: vllm}\n"
    return textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: NAME
          namespace: serving
        ANN
        spec:
          replicas: 2
          template:
            spec:
              nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --max-num-seqs, "16"]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """).replace("NAME", name).replace("ANN\n", ann)


def put(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def lint(capsys: pytest.CaptureFixture[str], *argv: str, seconds: float = 30) -> tuple[int, list[str], str]:
    """Run ``shardwise lint`` in this process under a deadline: (exit status, the input errors as the text
    report prints them, the summary line)."""
    with deadline(seconds):
        rc = main(["lint", *argv])
    out, err = capsys.readouterr()
    lines = (out + err).splitlines()
    errors = [ln for ln in lines if ": error: " in ln]
    summary = next(ln for ln in lines if ln.startswith("shardwise: ") and " read, " in ln)
    return rc, errors, summary


LINTED_ONE = "1 workload, 0 mandatory findings, 1 advisory finding"  # the good Deployment beside the hostile input


# ------------------------------------------------------------------ only regular files inside what was asked


def test_a_fifo_in_a_linted_folder_or_named_is_an_error_not_a_hang(repo, capsys):
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    os.mkfifo(repo / "deploy" / "pipe.yaml")
    rc, errors, summary = lint(capsys, "deploy")
    assert rc == 2
    assert errors == ["deploy/pipe.yaml: error: cannot read: it is a FIFO (named pipe), not a regular file; "
                      "shardwise reads only regular files"]
    assert LINTED_ONE in summary
    rc, errors, _ = lint(capsys, "deploy/pipe.yaml", "deploy/good.yaml")
    assert (rc, errors) == (2, ["deploy/pipe.yaml: error: cannot read: it is a FIFO (named pipe), not a regular file; "
                                "shardwise reads only regular files"])


def test_a_file_named_dash_is_that_file_never_standard_input(repo, capsys, monkeypatch):
    """A repository's shell script named ``-`` (a shebang and a ``kubectl apply -f - <<EOF`` here-document, as deploy
    scripts without a suffix are written) was reported as ``-`` once the folder was searched, and ``-`` is standard
    input to every reader: its Deployment was never read, stdin was read in its place (an error where it was empty,
    a wait where it was a terminal), and ``lint ./-`` did the same (fuzz20)."""
    script = "#!/bin/sh\nset -e\nkubectl apply -f - <<EOF\n" + vllm_deployment("dash") + "EOF\n"
    put(repo, "-", script)
    put(repo, "sub/-", script)
    read: list[int] = []

    class Stdin:
        class buffer:  # noqa: N801 - sys.stdin.buffer's name
            @staticmethod
            def read(n: int = -1) -> bytes:
                read.append(n)
                return b""
    monkeypatch.setattr(sys, "stdin", Stdin)
    for argv in (["."], ["./-", "sub/-"], [".//-", "./sub/-"]):
        rc, errors, summary = lint(capsys, *argv)
        assert (rc, errors) == (0, []), argv
        assert "2 files read, 2 workloads" in summary, argv
    rc = main(["lint", "--format", "json", "."])
    files = sorted(w["file"] for w in json.loads(capsys.readouterr().out)["workloads"])
    assert (rc, files) == (0, ["./-", "sub/-"])
    assert read == []


def test_lint_dash_with_standard_input_closed_is_an_input_error(repo, capsys, monkeypatch):
    """``shardwise lint - good.yaml <&-`` (a CI step or a cron job that runs with no stdin): Python sets ``sys.stdin``
    to None where descriptor 0 is closed, and ``-`` read it: an internal error (AttributeError: 'NoneType' object has
    no attribute 'read'; fuzz22, hostile repositories through ``lint -``). It is an input error that says so, and
    the files named beside ``-`` are linted."""
    put(repo, "good.yaml", vllm_deployment("good"))
    monkeypatch.setattr(sys, "stdin", None)
    rc, errors, summary = lint(capsys, "-", "good.yaml")
    assert (rc, errors) == (2, ["<stdin>: error: cannot read: standard input is closed (the command was run with <&- "
                                "or no stdin at all); pipe the manifests to shardwise lint -, or name their files"])
    assert LINTED_ONE in summary


def test_a_fifo_as_the_ignore_file_is_an_error_and_the_rest_is_linted(repo, capsys):
    put(repo, "good.yaml", vllm_deployment("good"))
    os.mkfifo(repo / ".shardwiseignore")
    rc, errors, summary = lint(capsys, "good.yaml")
    assert rc == 2
    assert errors == [".shardwiseignore: error: cannot read the ignore file: it is a FIFO (named pipe), not a regular "
                      "file; shardwise reads only regular files"]
    assert LINTED_ONE in summary


def test_an_ignore_file_linked_out_of_the_directory_is_not_read(repo, capsys):
    secret = repo.parent / f"{repo.name}-secret"
    secret.write_text("token-line\n", encoding="utf-8")
    os.symlink(secret, repo / ".shardwiseignore")
    put(repo, "good.yaml", vllm_deployment("good"))
    rc, errors, summary = lint(capsys, "good.yaml")
    assert (rc, errors) == (2, [f".shardwiseignore: error: cannot read the ignore file: it is a symbolic link to {secret}, "
                                "outside the current directory; shardwise does not follow it"])
    assert LINTED_ONE in summary


def test_links_to_a_device_or_out_of_the_tree_are_not_followed_from_a_folder(repo, capsys):
    outside = repo.parent / f"{repo.name}-outside.yaml"
    outside.write_text(vllm_deployment("outside"), encoding="utf-8")
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    os.symlink("/dev/zero", repo / "deploy" / "zero.yaml")
    os.symlink(outside, repo / "deploy" / "out.yaml")
    os.symlink("good.yaml", repo / "deploy" / "same.yml")  # inside the folder: read
    rc, errors, summary = lint(capsys, "deploy")
    assert rc == 2
    assert errors == [
        f"deploy/out.yaml: error: not read: a symbolic link to {outside}, outside deploy; shardwise follows no link "
        "out of a folder it searches (name the file on the command line to read it)",
        "deploy/zero.yaml: error: not read: a symbolic link to /dev/zero, outside deploy; shardwise follows no link "
        "out of a folder it searches (name the file on the command line to read it)",
    ]
    assert "2 workloads" in summary  # good.yaml and the link to it
    # named on the command line: the user asked for it; a device is still no regular file
    rc, errors, summary = lint(capsys, "deploy/out.yaml", "deploy/zero.yaml")
    assert (rc, errors) == (2, ["deploy/zero.yaml: error: cannot read: it is a character device, not a regular file; "
                                "shardwise reads only regular files"])
    assert LINTED_ONE in summary


def test_a_file_over_the_size_limit_is_an_error_and_is_not_read(repo, capsys):
    put(repo, "good.yaml", vllm_deployment("good"))
    with open(repo / "huge.yaml", "wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_FILE_BYTES + 1)
    rc, errors, summary = lint(capsys, ".")
    assert rc == 2
    assert errors == ["huge.yaml: error: not read: the file is larger than 32 MiB, the most shardwise reads from "
                      "one file"]
    assert LINTED_ONE in summary
    small = repo / "ten.json"
    small.write_bytes(b"[1,2,3,4,5]")
    assert read_file_bytes(str(small), limit=11) == b"[1,2,3,4,5]"
    with pytest.raises(InputError, match=r"larger than 10 bytes"):
        read_file_bytes(str(small), limit=10)


@pytest.mark.parametrize("target,shown", [
    ("/dev/zero", "'/dev/zero'"),
    ("/proc/self/environ", "'/proc/self/environ', which is /proc/"),
    ("../" * 12 + "etc/passwd", repr("../" * 12 + "etc/passwd") + ", which is /etc/passwd,"),
])
def test_a_base_model_path_outside_the_repository_is_not_read(repo, capsys, target, shown):
    put(repo, "deploy/bot.yaml", vllm_deployment("bot", target))
    rc, errors, summary = lint(capsys, "deploy/bot.yaml")
    assert rc == 2
    assert len(errors) == 1
    assert errors[0].startswith(f"deploy/bot.yaml:16: error: the annotation shardwise.dev/base-model names {shown}")
    assert errors[0].endswith(" outside the repository and the manifest's directory: not read; put the config.json in "
                              "the repository or in a models directory (config key model_dirs)")
    assert LINTED_ONE in summary


def test_a_base_model_path_that_is_a_fifo_is_an_error_not_a_hang(repo, capsys):
    os.mkfifo(repo / "config.json")
    put(repo, "deploy/bot.yaml", vllm_deployment("bot", "config.json"))
    rc, errors, _ = lint(capsys, "deploy/bot.yaml")
    assert (rc, errors) == (2, [f"deploy/bot.yaml:16: error: {repo}/config.json: cannot read model config: it is a "
                                "FIFO (named pipe), not a regular file; shardwise reads only regular files"])


# ------------------------------------------------------------------------ patterns without backtracking

PATHOLOGICAL = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


def test_a_pathological_ignore_pattern_matches_in_linear_time(repo, capsys):
    put(repo, ".shardwiseignore", f"# hostile\n{PATHOLOGICAL}\n")
    put(repo, "deploy/" + "a" * 200 + ".yaml", vllm_deployment("good"))
    start = time.monotonic()
    rc, errors, summary = lint(capsys, "deploy", "--exclude", PATHOLOGICAL.replace("b", "c"), seconds=20)
    assert (rc, errors) == (0, [])
    assert LINTED_ONE in summary
    assert time.monotonic() - start < 10  # the backtracking matcher took minutes
    automaton = globs.matcher(globs.tokens(PATHOLOGICAL))
    assert isinstance(automaton, globs.Automaton)
    assert (automaton("a" * 5000), automaton("a" * 5000 + "b"), automaton("a" * 11 + "b")) == (False, True, False)


def test_an_empty_range_is_an_input_error_with_its_line_and_the_rest_is_linted(repo, capsys):
    put(repo, ".shardwiseignore", "# generated\nlegacy/\n[z-a]*.yaml\n")
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "legacy/old.yaml", "a: [broken\n")
    rc, errors, summary = lint(capsys, ".", "--exclude", "x[9-0]")
    assert rc == 2
    assert errors == [
        ".shardwiseignore:3: error: invalid exclude pattern '[z-a]*.yaml': the range z-a in [z-a] is empty: its first "
        "character comes after its last (write a-z); it is not applied",
        "--exclude: error: invalid exclude pattern 'x[9-0]': the range 9-0 in [9-0] is empty: its first character "
        "comes after its last (write 0-9); it is not applied",
    ]
    assert LINTED_ONE in summary  # legacy/ still excluded by the good line


@pytest.mark.parametrize("pattern,path,matched", [
    ("[a-c].yaml", "b.yaml", True),
    ("[!a-c].yaml", "b.yaml", False),
    ("[^a-c].yaml", "d.yaml", True),
    ("[]x].yaml", "].yaml", True),
    ("a[/]b", "a/b", False),           # a bracket expression never matches a slash
    ("a[!x]b", "a/b", False),
    ("[ab", "[ab", True),              # not closed: "[" is itself
    ("\\*.yaml", "*.yaml", True),
    ("\\*.yaml", "x.yaml", False),
    ("*-test-*.yaml", "deploy/a-test-b.yaml", True),  # three unbounded tokens: the automaton
    ("*-test-*.yaml", "deploy/a-test/b.yaml", False),
    ("a/**/b/*/c*d*e", "a/x/y/b/z/cXdYe", True),
])
def test_bracket_expressions_escapes_and_the_automaton(pattern, path, matched):
    p = compile_pattern(pattern)
    assert p is not None and p.match(path) is matched


_ALPHABET = "ab/-.*?[]!\\"


@pytest.mark.slow  # fuzzes hundreds of inputs: in make test, not in the edit loop (make test-fast)
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, min_size=1, max_size=10), st.text(alphabet="ab/-.[]", max_size=12))
def test_the_automaton_and_the_regular_expression_agree(glob, path):
    try:
        toks = globs.tokens(glob)
    except globs.PatternError:
        return
    import re

    regex = re.compile(globs._regex(toks) + r"\Z", re.DOTALL)
    assert globs.Automaton(toks)(path) is (regex.match(path) is not None)


def test_excludes_keep_the_good_patterns_when_one_is_invalid():
    ex = Excludes.from_lines(["[z-a]", "*.json"], source="shardwise.toml")
    assert [p.text for p in ex.patterns] == ["*.json"]
    assert [str(e) for e in ex.errors] == [
        "shardwise.toml: invalid exclude pattern '[z-a]': the range z-a in [z-a] is empty: its first character comes "
        "after its last (write a-z); it is not applied"]
    assert ex.excluded("a/b.json", False)


def test_a_pattern_longer_than_any_path_is_an_input_error_not_minutes_of_matching():
    """hostile9: a 5 MB ``exclude`` string took 7.7 s of CPU over two paths (the automaton's state grows with the
    pattern); a pattern longer than PATH_MAX is refused, its echo cut, the other patterns kept."""
    import time

    t0 = time.process_time()
    ex = Excludes.from_lines(["x" * 5_000_000, "*.json", "y" * 4096], source=".shardwise.yaml")
    assert time.process_time() - t0 < 1.0
    assert [p.text for p in ex.patterns] == ["*.json", "y" * 4096]
    assert [str(e) for e in ex.errors] == [
        f".shardwise.yaml: invalid exclude pattern {'x' * 60!r}…: 5,000,000 characters, longer than the 4,096 of the "
        "longest path (PATH_MAX); it is not applied"]


# ------------------------------------------------------------------------------- numbers Python cannot read


def test_a_number_of_more_than_4300_digits_is_an_input_error_at_its_line(repo, capsys):
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "preview.json", '{\n  "steps": [\n    ' + "9" * 5000 + "\n  ]\n}\n")
    put(repo, "values.yml", "a: 1\nb: " + "9" * 4301 + "\n")
    rc, errors, summary = lint(capsys, ".")
    assert rc == 2
    assert errors == [
        "preview.json:3: error: cannot parse JSON: a number of 5,000 digits; shardwise reads integers of at most "
        "4,300 digits",
        "values.yml:2:4: error: cannot parse YAML: '" + "9" * 60 + "…' is an integer of 4,301 digits; shardwise reads "
        "integers of at most 4,300 digits; quote it to keep it as text",
    ]
    assert LINTED_ONE in summary


def test_a_toml_config_with_a_huge_number_is_an_input_error(repo, capsys):
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "shardwise.toml", "# team settings\nkv_reserve = " + "1" * 4400 + "\n")
    with deadline(30):
        rc = main(["lint", "good.yaml"])
    _, err = capsys.readouterr()
    assert rc == 2
    assert err.strip() == ("shardwise: error: shardwise.toml:2: cannot parse TOML: a number of more than 4,300 digits; "
                           "shardwise reads integers of at most 4,300 digits")


@pytest.mark.parametrize("value", ["[" * 100_000 + "]" * 100_000, "{a = " * 100_000 + "1" + "}" * 100_000,
                                   "[" * 2_000 + "]" * 2_000])
def test_a_toml_config_nested_too_deep_is_an_input_error(repo, capsys, value):
    """fuzz20: tomllib reads arrays and inline tables recursively, and its RecursionError was an internal error."""
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "shardwise.toml", f"kv_reserve = 0.1\nexclude = {value}\n")
    with deadline(30):
        rc = main(["lint", "good.yaml"])
    _, err = capsys.readouterr()
    assert (rc, err.strip()) == (2, "shardwise: error: shardwise.toml: cannot parse TOML: nesting too deep")


@pytest.mark.parametrize("name,make,why", [
    ("shardwise.toml", lambda p: p.mkdir(), "it is a directory, not a regular file; shardwise reads only regular files"),
    ("shardwise.toml", lambda p: os.mkfifo(p), "it is a FIFO (named pipe), not a regular file; shardwise reads only "
                                               "regular files"),
    (".shardwise.yaml", lambda p: p.symlink_to("gone.yaml"), "a symbolic link to gone.yaml, which does not exist"),
])
def test_a_config_name_held_by_no_regular_file_is_an_error_not_no_config(repo, capsys, name, make, why):
    """Before hostile5 a directory, a FIFO or a dangling link holding a config file's name was passed over as
    if there were no config file: the team's settings (a suppression, fail_on, an exclude) silently dropped."""
    put(repo, "good.yaml", vllm_deployment("good"))
    make(repo / name)
    with deadline(30):
        rc = main(["lint", "good.yaml"])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert err.strip() == f"shardwise: error: {name}: cannot read config file: {why}"


@pytest.mark.parametrize("argv", [
    ["-f", "values.yaml", "good.yaml"],  # a file named, no chart
    ["--set", "image=x", "."],           # the current directory is a chart: walked as files, never rendered
    ["--values", "values.yaml", "sub"],  # a folder without a Chart.yaml
])
def test_helm_values_that_no_chart_would_read_are_a_usage_error(repo, capsys, argv):
    """Before hostile5 ``--values``/``--set`` with no chart directory among the paths were dropped and the run
    passed: a values file that does not parse (as here) or a value meant to change the verdict, read by nothing."""
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "sub/good.yaml", vllm_deployment("good"))
    put(repo, "Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    put(repo, "values.yaml", "image: [\n")
    with deadline(30):
        rc = main(["lint", *argv])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert err.strip() == ("shardwise: error: --values/--set: no PATH is a Helm chart directory (one with a Chart.yaml, "
                           "other than the current directory), so no chart would read them; name the chart's directory")


def test_a_file_and_a_folder_the_user_may_not_read_are_errors_and_the_rest_is_linted(repo, capsys, monkeypatch):
    """Permissions bind no root user (the sweep's ``fs-unreadable-*`` cases are skipped under root), so the
    system's refusal (EACCES) is stood in for at ``os.open`` and ``os.scandir``, where the run meets it."""
    import errno

    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "secret.yaml", vllm_deployment("secret"))
    put(repo, "private/x.yaml", vllm_deployment("x"))
    real_open, real_scandir = os.open, os.scandir

    def refusing_open(path, *args, **kwargs):
        if str(path).endswith("secret.yaml"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    def refusing_scandir(path="."):
        if str(path).endswith("private"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "open", refusing_open)
    monkeypatch.setattr(os, "scandir", refusing_scandir)
    rc, errors, summary = lint(capsys, ".")
    assert rc == 2
    assert errors == ["secret.yaml: error: cannot read: Permission denied",
                      "private: error: cannot read directory: Permission denied"]
    assert summary == ("shardwise: 2 files read, 1 workload, 0 mandatory findings, 1 advisory finding, 0 suppressed — failed: "
                       "2 input errors")


@pytest.mark.slow
def test_the_cli_process_ends_on_a_hostile_tree(repo):
    """The whole tree at once, as its own process: it ends, exits 2, and lints the good file."""
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    os.mkfifo(repo / "deploy" / "pipe.yml")
    os.symlink("/dev/zero", repo / "deploy" / "zero.json")
    put(repo, ".shardwiseignore", PATHOLOGICAL + "\n[z-a]\n")
    proc = subprocess.run([str(Path(sys.executable).parent / "shardwise"), "lint", "deploy", "--format", "json"],
                          capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode not in (0, 1, 2):
        pytest.fail(proc.stderr)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 2
    assert sorted((e["file"], e.get("line")) for e in doc["input_errors"]) == [
        (".shardwiseignore", 2), ("deploy/pipe.yml", None), ("deploy/zero.json", None)]


# ------------------------------------------------------------------------------------------------ alias bombs


def alias_bomb(copies: int, size: int = 1 << 20) -> str:
    """A Deployment whose vLLM args are ``copies`` aliases of one ``size``-character scalar: 1.3 MB of YAML
    that is 20 GiB of text once every alias is expanded (the shape of a "billion laughs" through one scalar)."""
    head = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: bomb, namespace: serving}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
        """)
    return head + f"          command: [vllm, serve, &big {'x' * size}]\n          args:\n" + "            - *big\n" * copies


@pytest.mark.parametrize("reader", ["compiled", "python"])
def test_an_alias_bomb_is_an_input_error_naming_the_limit(repo, capsys, monkeypatch, reader):
    from shardwise.rules.adapters import yamlsrc

    if reader == "python":
        monkeypatch.setattr(yamlsrc, "_fast", None)
    elif yamlsrc._fast is None:
        pytest.skip("the compiled reader is not built (make setup)")
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "bomb.yaml", alias_bomb(20_000))
    assert (repo / "bomb.yaml").stat().st_size < 1_500_000
    rc, errors, summary = lint(capsys, ".", seconds=60)
    assert rc == 2
    assert errors == ["bomb.yaml:1: error: cannot parse YAML: its aliases expand to more than 33,554,432 characters "
                      "of text (the most shardwise reads from one file, 32 MiB)"]
    assert LINTED_ONE in summary


def test_aliases_within_the_bound_are_read_as_written(repo):
    from shardwise.rules.adapters import load_inputs

    put(repo, "shared.yaml", alias_bomb(3, size=40))
    (group,) = load_inputs(["shared.yaml"]).groups
    assert [(c.command, c.args) for c in group.containers] == [(["vllm", "serve", "x" * 40], ["x" * 40] * 3)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["--api-key", "--hf_token", "=", " ", "\n", "x", "sk-1"]), max_size=4)
                .map("".join), max_size=6))
def test_sw308_reads_flags_word_by_word_as_the_joined_line_reads(words):
    import re

    from shardwise.rules.checks.sw308 import secret_flags

    joined = re.compile(r"--(api[-_]key|hf[-_]token)(?:=|\s+)(\S+)")
    assert list(secret_flags(words)) == [(m.group(1), m.group(2)) for m in joined.finditer(" ".join(words))]


# ----------------------------------------------------------------------------------------- output injection

INJECTED = "evil\n::stop-commands::pwned\n::error file=x.yaml::injected\x1b[2J.yaml"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_kind_with_a_control_character_starts_no_line_of_its_own(repo, capsys, fmt):
    """fuzz_mutate seed 8101 case 1386: ``kind: "a\\0b"`` (a double-quoted escape) was written raw in the summary
    line, on stdout in the text report and on stderr beside the others; a kind ``x\\n::error::…`` would start a
    workflow command of its own in a CI log."""
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, "odd.yaml", 'apiVersion: example.com/v1\nkind: "a\\0b\\n::error::x\\e[2J"\nmetadata: {name: o}\n')
    with deadline(30):
        main(["lint", ".", "--format", fmt])
    out, err = capsys.readouterr()
    summary = (out if fmt == "text" else err).splitlines()[-1]
    assert "skipped 1 object of unknown kinds: a\\x00b\\n::error::x\\x1b[2J×1" in summary, summary
    assert not [ln for ln in (out + err).splitlines() if ln.startswith("::")]
    assert "\x00" not in out + err and "\x1b" not in out + err


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif", "github"])
def test_a_file_name_with_a_newline_starts_no_line_of_its_own(repo, capsys, fmt):
    put(repo, "good.yaml", vllm_deployment("good"))
    put(repo, INJECTED, "a: [broken\n")
    with deadline(30):
        rc = main(["lint", ".", "--format", fmt])
    out, err = capsys.readouterr()
    assert rc == 2
    lines = (out + err).splitlines()
    commands = [ln for ln in lines if ln.startswith("::")]
    if fmt == "github":  # the runner's own escaping: one annotation per line; an escape written out (fuzz25: a raw ESC
        # reached the Actions log)
        assert commands == [
            "::error file=evil%0A%3A%3Astop-commands%3A%3Apwned%0A%3A%3Aerror file=x.yaml%3A%3Ainjected\\x1b[2J.yaml,"
            "line=2,col=1,title=shardwise input error::cannot parse YAML: did not find expected ',' or ']'",
            *commands[1:]]
        assert all(c.startswith(("::error ", "::warning ")) for c in commands)
        return
    assert commands == [] and "\x1b[2J" not in out + err
    shown = "evil\\n::stop-commands::pwned\\n::error file=x.yaml::injected\\x1b[2J.yaml"
    if fmt == "text":
        assert f"{shown}:2:1: error: cannot parse YAML: did not find expected ',' or ']'" in lines
    elif fmt == "markdown":
        assert f"- `{shown}:2:1` — cannot parse YAML: did not find expected ',' or ']'" in lines
    elif fmt == "json":  # JSON escapes control characters itself: the name comes back exactly
        assert [e["file"] for e in json.loads(out)["input_errors"]] == [INJECTED]
    else:  # SARIF: a URI, percent-encoded
        assert json.loads(out)["runs"][0]["tool"]["driver"]["name"] == "shardwise"
        assert '"uri": "evil%0A%3A%3Astop-commands%3A%3Apwned%0A%3A%3Aerror' in out


#: fuzz14: a file and an object named with Markdown a pull-request comment would render (a code span broken by a
#: backtick, an image that loads from anywhere, a link, an HTML tag)
MD_FILE = "a`![x](https:/evil.example/p.png)`<img src=x>[l](u).yaml"
MD_NAME = '"b`![y](https://evil.example/q.png)`<b>[m](v)"'


def test_markdown_a_repository_wrote_is_not_rendered_in_the_report(repo, capsys):
    """fuzz14: the Markdown report (the pull-request comment) wrote a file name in a code span a backtick closed and
    object names as prose: the image `![x](…)` was live, a tracking pixel in every run's comment. A file and line is
    one code span whose fence is longer than any backtick run in it; outside code spans ``[`` is escaped and ``<`` is
    ``&lt;``, in prose and table cells alike."""
    put(repo, MD_FILE, vllm_deployment(MD_NAME))
    put(repo, "broken`![z](https:/evil.example/r.png)`.yaml", "a: [broken\n")
    with deadline(30):
        rc = main(["lint", ".", "--format", "markdown"])
    out, _ = capsys.readouterr()
    assert rc == 2
    subject = "Deployment serving/b`![y](https://evil.example/q.png)`&lt;b>\\[m](v)"
    assert f"| {subject} | meta-llama/Llama-3.1-8B-Instruct |" in out
    assert ("- **SW305** `namespace-without-default-deny` **advisory** — namespace `serving` "
            f"({subject}) has no default-deny ingress policy (no network policy at all); every pod in the cluster can "
            "reach vLLM without the gateway — ``a`![x](https:/evil.example/p.png)`<img src=x>[l](u).yaml:1`` "
            "(Namespace serving)") in out.splitlines()
    assert ("- ``broken`![z](https:/evil.example/r.png)`.yaml:2:1`` — cannot parse YAML: did not find expected ',' or "
            "']'") in out.splitlines()
    # every image, link and tag left is inside a code span or escaped
    assert "`<img" not in out.replace("``a`![x](https:/evil.example/p.png)`<img", "")


def test_an_at_mention_a_repository_wrote_notifies_no_one_in_the_markdown_report(repo, capsys):
    """fuzz15: an ``@name`` in an object's name (in a table cell and a finding's text) was written as it is, so posting the report
    as a pull-request comment notified that user or team (GitHub mentions ``@user`` and ``@org/team``). Outside code
    spans it is ``@&#8203;name`` (a zero-width space: the same text, no mention); an address (``a@b.c``) and a file
    name in its code span are kept."""
    put(repo, "ping-@octocat.yaml", vllm_deployment('"cc @octocat @acme/gpu-team a@b.c"'))
    with deadline(30):
        rc = main(["lint", ".", "--format", "markdown"])
    out, _ = capsys.readouterr()
    assert rc == 0
    subject = "Deployment serving/cc @&#8203;octocat @&#8203;acme/gpu-team a@b.c"
    assert f"| {subject} | meta-llama/Llama-3.1-8B-Instruct |" in out
    assert "`ping-@octocat.yaml:1`" in out
    outside_code = re.sub(r"(`+)(?:(?!\1).)*?\1", "", re.sub(r"(?ms)^```mermaid$.*?^```$", "", out))
    assert re.findall(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]", outside_code) == []


def test_markdown_a_repository_wrote_is_not_rendered_in_the_diff_report(repo, capsys):
    """fuzz14: ``shardwise diff --format markdown`` wrote the file of a finding and of an input error in a code span a
    backtick closed, and the subject and message as prose."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    put(repo, "good.yaml", vllm_deployment("good"))
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    put(repo, MD_FILE, vllm_deployment(MD_NAME))
    put(repo, "broken`![z](https:/evil.example/r.png)`.yaml", "a: [broken\n")
    with deadline(60):
        rc = main(["diff", "--format", "markdown", "HEAD"])
    out, _ = capsys.readouterr()
    assert rc == 2
    lines = out.splitlines()
    assert "| Deployment serving/b`![y](https://evil.example/q.png)`&lt;b>\\[m](v) | added |" in out
    assert ("- head: ``broken`![z](https:/evil.example/r.png)`.yaml:2`` — cannot parse YAML: did not find expected "
            "',' or ']'") in lines


# ------------------------------------------------------------------------------------- --output atomically


@pytest.mark.slow
def test_concurrent_runs_leave_one_whole_report(repo):
    """Runs of different sizes write one --output at once: the file is always one of their reports, whole."""
    exe = str(Path(sys.executable).parent / "shardwise")
    for n in range(1, 5):  # as many files in each, names of different lengths: reports of different lengths that
        for i in range(60):  # the runs finish writing at about the same time
            put(repo, f"set{n}/d{i}{'x' * 30 * n}.yaml", vllm_deployment(f"d{i}"))
    expected = set()
    for n in range(1, 5):
        subprocess.run([exe, "lint", f"set{n}", "--format", "sarif", "--output", f"alone{n}.sarif"],
                       capture_output=True, timeout=120, check=False)
        expected.add((repo / f"alone{n}.sarif").read_text(encoding="utf-8"))
    assert len(expected) == 4
    for _ in range(4):
        procs = [subprocess.Popen([exe, "lint", f"set{n}", "--format", "sarif", "--output", "shared.sarif", "--jobs",
                                   "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for n in range(1, 5)]
        for p in procs:
            p.wait(timeout=120)
        assert (repo / "shared.sarif").read_text(encoding="utf-8") in expected
        assert [p.name for p in repo.iterdir() if p.name.endswith(".tmp")] == []


def test_output_keeps_devices_links_and_the_files_mode(repo, capsys):
    from shardwise.rules.app.output import write_atomically

    put(repo, "good.yaml", vllm_deployment("good"))
    assert main(["lint", "good.yaml", "--format", "json", "--output", "/dev/null"]) == 0
    assert Path("/dev/null").is_char_device()
    report = put(repo, "reports/report.json", "old")
    report.chmod(0o640)
    os.symlink("reports/report.json", repo / "latest.json")
    write_atomically(str(repo / "latest.json"), "new\n")
    assert ((repo / "latest.json").is_symlink(), report.read_text(), oct(report.stat().st_mode & 0o777)) == (
        True, "new\n", "0o640")
    capsys.readouterr()


@pytest.mark.parametrize("flag", ["--output", "--create-baseline"])
def test_a_report_onto_a_fifo_no_process_reads_is_an_error_not_a_wait(repo, capsys, flag):
    """fuzz15: ``-o FIFO`` and ``--create-baseline FIFO`` with no reader held the run in ``open`` for ever (the probe's
    20 s limit). Now an error naming it at once (exit 2); the text report still printed."""
    put(repo, "good.yaml", vllm_deployment("good"))
    os.mkfifo(repo / "r.json")
    with deadline(20):
        rc = main(["lint", "good.yaml", flag, "r.json", *(["--format", "json"] if flag == "--output" else [])])
    out, err = capsys.readouterr()
    assert rc == 2
    said = {"--output": "r.json: ", "--create-baseline": "r.json: --create-baseline: cannot write: "}[flag]
    assert (f"shardwise: error: {said}it is a FIFO (named pipe) that no process reads, so the report would wait for "
            "ever; start its reader first, or write a regular file") in err.splitlines()


def test_a_report_onto_a_read_fifo_and_onto_dev_stdout_as_a_pipe_is_written(repo):
    """fuzz15: a FIFO a process reads is written as a pipe; ``--format json=/dev/stdout`` (and ``-o >(…)``, a
    /dev/fd/N) where that is a pipe exited 2, "/dev/stdout: No such file or directory": the link was resolved to
    ``/proc/…/pipe:[N]``, a name no one can open. Now the pipe gets the report."""
    exe = str(Path(sys.executable).parent / "shardwise")
    put(repo, "good.yaml", vllm_deployment("good"))
    os.mkfifo(repo / "r.json")
    reader = subprocess.Popen(["cat", "r.json"], cwd=repo, stdout=subprocess.PIPE)
    time.sleep(0.3)  # cat opens the FIFO for reading
    proc = subprocess.run([exe, "lint", "good.yaml", "--format", "json", "-o", "r.json"], cwd=repo,
                          capture_output=True, timeout=60, check=False)
    got, _ = reader.communicate(timeout=60)
    assert (proc.returncode, [f["code"] for f in json.loads(got)["findings"]]) == (0, ["SW305"])
    proc = subprocess.run([exe, "lint", "good.yaml", "--format", "json=/dev/stdout", "--format", "sarif=/dev/stderr"],
                          cwd=repo, capture_output=True, timeout=60, check=False)
    assert (proc.returncode, [f["code"] for f in json.loads(proc.stdout)["findings"]]) == (0, ["SW305"])
    assert json.loads(proc.stderr.split(b"\nshardwise: ")[0])["version"] == "2.1.0"


def test_a_report_that_cannot_be_written_names_the_path_given_in_lint_and_diff(repo, capsys):
    """hostile9: diff's --output into a missing folder said ``nowhere/.r.json.x1y2.tmp: No such file or directory``
    (the temporary file); both commands name the path given, write the other reports and exit 2."""
    from shardwise.rules.app.output import write_atomically

    with pytest.raises(OSError) as e:
        write_atomically("nowhere/r.json", "x")
    assert (e.value.filename, e.value.strerror) == ("nowhere/r.json", "No such file or directory")
    put(repo, "good.yaml", vllm_deployment("good"))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"], cwd=repo, check=True)
    capsys.readouterr()
    assert main(["diff", "--format", "json=nowhere/r.json", "--format", "markdown=r.md", "HEAD"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "shardwise: error: nowhere/r.json: No such file or directory"
    assert (repo / "r.md").is_file()
    assert main(["lint", "good.yaml", "--format", "sarif", "--output", "nowhere/r.sarif"]) == 2
    assert capsys.readouterr().err == "shardwise: error: nowhere/r.sarif: No such file or directory\n"


def test_a_report_onto_a_file_the_run_read_is_refused_and_the_file_kept(repo, capsys):
    """hostile9: ``--format json=good.yaml`` replaced the manifest just linted with the report (exit 1, the file lost);
    a file found by searching a folder counts, the other reports are written, the run exits 2."""
    text = vllm_deployment("good")
    put(repo, "deploy/good.yaml", text)
    assert main(["lint", "deploy", "--format", "json=deploy/good.yaml", "--format", "sarif=r.sarif"]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        "shardwise: error: deploy/good.yaml: not written: it is an input of this run, which the report would replace")
    assert (repo / "deploy" / "good.yaml").read_text(encoding="utf-8") == text
    assert (repo / "r.sarif").is_file()


# ------------------------------------------------------------------------- kustomize: nothing from outside


def fake_kustomize(repo: Path) -> Path:
    """A kustomize on PATH that records its arguments and prints one Deployment (the real one is a Go build)."""
    bin_dir = repo.parent / f"{repo.name}-bin"
    bin_dir.mkdir()
    script = bin_dir / "kustomize"
    script.write_text("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$KUSTOMIZE_ARGS\"\nfor last; do :; done\n"
                      "cat \"$last/kustomization.yaml\" > \"$KUSTOMIZE_ARGS.kustomization\" 2>/dev/null\n"
                      "cat \"$KUSTOMIZE_OUT\"\n")
    script.chmod(0o755)
    return bin_dir


@pytest.fixture
def kustomize(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{fake_kustomize(repo)}:/usr/bin:/bin")
    monkeypatch.setenv("KUSTOMIZE_ARGS", str(repo.parent / f"{repo.name}-args"))
    out = repo.parent / f"{repo.name}-out.yaml"
    out.write_text(vllm_deployment("built"), encoding="utf-8")
    monkeypatch.setenv("KUSTOMIZE_OUT", str(out))
    return repo.parent / f"{repo.name}-args"


def test_kustomize_runs_with_its_files_kept_under_the_root(repo, capsys, kustomize):
    put(repo, "base/kustomization.yaml", "resources: [deploy.yaml]\n")
    put(repo, "base/deploy.yaml", vllm_deployment("base"))
    put(repo, "overlays/prod/kustomization.yaml", "resources:\n  - ../../base\n")
    rc, errors, summary = lint(capsys, "overlays/prod")
    assert (rc, errors) == (0, [])
    assert LINTED_ONE in summary
    # newuser17: built through a kustomization in a temporary folder (removed after) that lists the overlay by its
    # path relative to that folder and asks for the build annotations; the root restriction holds as before
    flag, root_only, folder = kustomize.read_text().splitlines()
    assert (flag, root_only) == ("build", "--load-restrictor=LoadRestrictionsRootOnly")
    assert os.path.basename(folder).startswith("shardwise-kustomize-") and not os.path.exists(folder)
    wrapper = Path(f"{kustomize}.kustomization").read_text()
    entry = os.path.relpath(os.path.realpath(repo / "overlays" / "prod"), folder)
    assert wrapper == f'resources:\n- "{entry}"\nbuildMetadata: [originAnnotations, transformerAnnotations]\n'


@pytest.mark.parametrize("entry", [
    "https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v5.4.1",
    "github.com/acme/platform//base?ref=v1",
    "git@github.com:acme/platform.git//base",
])
def test_a_remote_base_is_not_fetched_unless_allowed(repo, capsys, kustomize, entry):
    put(repo, "app/kustomization.yaml", f"resources:\n  - deploy.yaml\n  - {entry}\n")
    put(repo, "app/deploy.yaml", vllm_deployment("plain"))
    rc, errors, summary = lint(capsys, "app")
    assert rc == 2
    assert errors == [
        f"app/kustomization.yaml: error: remote base {entry!r} not fetched: kustomize would download it (git fetch); "
        "pass --fetch-remote-bases to let it, or build the kustomization yourself: kustomize build app | shardwise "
        "lint -; its 1 YAML file was read one by one instead (patches, overlays and generators not applied)"]
    assert LINTED_ONE in summary and not kustomize.exists()  # kustomize never ran
    rc, errors, _ = lint(capsys, "app", "--fetch-remote-bases")
    assert (rc, errors) == (0, []) and kustomize.exists()


@pytest.mark.parametrize(("entry", "folder"), [
    ("github.com/acme/platform", True),   # a vendored copy of the base under its import path, as Go vendors
    ("github.com/acme/platform//base?ref=v1", True),
    ("GitHub.com/acme/platform", True),
    ("github.com:acme/platform", False),  # kustomize's own short form: was not taken for remote at all
    ("github.com:acme/platform", True),
])
def test_a_remote_base_beside_a_folder_of_its_name_is_not_fetched(repo, capsys, kustomize, entry, folder):
    """fuzz20: kustomize (v5.8.1; ``FileLoader.New``) asks whether an entry is a git URL before it looks for a folder
    of that name, so a kustomization's ``github.com/acme/platform`` beside a folder ``github.com/acme/platform`` ran
    ``git fetch --depth=1 https://github.com/acme/platform``: shardwise had read the folder as the base and let it
    run. A regular file of the name is read first, and stays local."""
    put(repo, "app/kustomization.yaml", f"resources:\n  - deploy.yaml\n  - {entry}\n")
    put(repo, "app/deploy.yaml", vllm_deployment("plain"))
    if folder:
        put(repo, f"app/{entry.split('//')[0]}/kustomization.yaml", "resources: [cm.yaml]\n")
        put(repo, f"app/{entry.split('//')[0]}/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    rc, errors, summary = lint(capsys, "app")
    before = ", which it tries before the folder of that name" if folder and "//" not in entry else ""
    assert (rc, errors) == (2, [
        f"app/kustomization.yaml: error: remote base {entry!r} not fetched: kustomize would download it (git fetch)"
        f"{before}; pass --fetch-remote-bases to let it, or build the kustomization yourself: kustomize build app | "
        f"shardwise lint -; its {'2 YAML files were' if folder else '1 YAML file was'} read one by one instead "
        "(patches, overlays and generators not applied)"])
    assert not kustomize.exists()  # kustomize never ran


def test_a_file_named_like_a_remote_base_is_read_as_the_file(repo, capsys, kustomize):
    put(repo, "app/kustomization.yaml", "resources:\n  - github.com/acme/platform/deploy.yaml\n")
    put(repo, "app/github.com/acme/platform/deploy.yaml", vllm_deployment("plain"))
    rc, errors, _ = lint(capsys, "app")
    assert (rc, errors) == (0, []) and kustomize.exists()


@pytest.mark.parametrize(("field", "entry", "key"), [
    ("configMapGenerator:\n  - name: meta\n    files: [creds=http://169.254.169.254/latest/meta-data/iam/]",
     "http://169.254.169.254/latest/meta-data/iam/", "configMapGenerator files"),
    ("secretGenerator:\n  - name: s\n    envs: [HTTPS://example.com/prod.env]", "HTTPS://example.com/prod.env",
     "secretGenerator envs"),
    ("patches:\n  - path: https://raw.githubusercontent.com/acme/ops/main/gpu-patch.yaml\n    target: {kind: Deployment}",
     "https://raw.githubusercontent.com/acme/ops/main/gpu-patch.yaml", "patches path"),
    ("crds:\n  - https://example.com/crds.yaml", "https://example.com/crds.yaml", "crds"),
    ("openapi:\n  path: https://example.com/schema.json", "https://example.com/schema.json", "openapi path"),
])
def test_a_remote_file_a_kustomization_reads_is_not_fetched_unless_allowed(repo, capsys, kustomize, field, entry, key):
    """fuzz20: kustomize downloads a file entry given as a URL (an HTTP GET, before its load restriction; v5.8.1
    tried each of these), so a repository's kustomization made the run fetch any address the runner reaches, the
    cloud's metadata service too. Refused as a remote base is."""
    put(repo, "app/kustomization.yaml", f"resources:\n  - deploy.yaml\n{field}\n")
    put(repo, "app/deploy.yaml", vllm_deployment("plain"))
    rc, errors, summary = lint(capsys, "app")
    assert (rc, errors) == (2, [
        f"app/kustomization.yaml: error: remote file {entry!r} ({key}) not fetched: kustomize would download it (HTTP "
        "GET); pass --fetch-remote-bases to let it, or build the kustomization yourself: kustomize build app | "
        "shardwise lint -; its 1 YAML file was read one by one instead (patches, overlays and generators not applied)"])
    assert LINTED_ONE in summary and not kustomize.exists()  # kustomize never ran
    rc, errors, _ = lint(capsys, "app", "--fetch-remote-bases")
    assert (rc, errors) == (0, []) and kustomize.exists()


def test_a_kustomization_the_check_cannot_read_is_not_built(repo, capsys, kustomize):
    """fuzz20 (seed 20011 case 447): a kustomization the check before kustomize could not read was left to kustomize
    "to report in its own words"; kustomize reads UTF-16 with a BOM, and opened the FIFO the file named, holding the
    run for the 120 s timeout. A UTF-16 one is checked in the text kustomize reads; one the check cannot parse (nested
    past the YAML reader's depth, which kustomize's passes) is not built."""
    put(repo, "good.yaml", vllm_deployment("good"))
    (repo / "u16").mkdir()
    (repo / "u16" / "kustomization.yaml").write_bytes("\ufeffresources:\n  - deployment.yaml\n".encode("utf-16-le"))
    os.mkfifo(repo / "u16" / "deployment.yaml")
    put(repo, "deep/kustomization.yaml", "resources:\n  - deployment.yaml\nx: " + "[" * 2000 + "]" * 2000 + "\n")
    os.mkfifo(repo / "deep" / "deployment.yaml")
    fifo = "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files"
    rc, errors, summary = lint(capsys, "good.yaml", "u16", "deep")
    assert (rc, errors) == (2, [
        f"u16/deployment.yaml: error: the kustomization u16/kustomization.yaml is not built: its resources entry "
        f"'deployment.yaml': {fifo}; its 1 YAML file was read one by one instead (patches, overlays and generators not "
        "applied)",
        f"u16/deployment.yaml: error: {fifo}",
        "deep/kustomization.yaml: error: the kustomization is not built: shardwise cannot check what it names (cannot "
        "parse YAML: exceeded maximum nesting depth), so kustomize is not run on it; its 1 YAML file was read one by "
        "one instead (patches, overlays and generators not applied)",
        f"deep/deployment.yaml: error: {fifo}"])
    assert LINTED_ONE in summary and not kustomize.exists()  # kustomize never ran
    os.unlink(repo / "u16" / "deployment.yaml")
    put(repo, "u16/deployment.yaml", vllm_deployment("u16"))
    rc, errors, _ = lint(capsys, "u16")  # UTF-16 with its mark: built, as kustomize reads it
    assert (rc, errors) == (0, []) and kustomize.exists()


def test_a_base_outside_the_repository_is_not_built(repo, capsys, kustomize):
    outside = repo.parent / f"{repo.name}-shared"
    put(outside, "kustomization.yaml", "resources: [deploy.yaml]\n")
    put(outside, "deploy.yaml", vllm_deployment("shared"))
    put(repo, "app/kustomization.yaml", "resources:\n  - ../base\n")
    put(repo, "base/kustomization.yaml", f"bases:\n  - ../../{outside.name}\n")
    rc, errors, _ = lint(capsys, "app")
    assert rc == 2 and not kustomize.exists()
    assert errors == [
        f"base/kustomization.yaml: error: bases entry '../../{outside.name}' leads outside the current directory: the "
        "kustomization is not built (shardwise builds nothing from outside the repository; run it from a directory "
        "that holds both)"]


def test_the_same_hostile_tree_linted_from_two_folders_reports_the_same(tmp_path, capsys, monkeypatch):
    """mend21 (found by fuzz23): a kustomization entry leading out of the repository and a chart's link out of it were
    refused naming the checkout's absolute paths (the entry's target and the current directory), so two checkouts of
    one repository gave two reports. The same tree, in two folders at different depths, gives the same report."""
    outputs = []
    for top in (tmp_path / "one", tmp_path / "two" / "deeper" / "still"):
        repo = top / "repo"
        put(top, "shared/kustomization.yaml", "resources: [deploy.yaml]\n")
        put(top, "shared/deploy.yaml", vllm_deployment("shared"))
        put(top, "shared/secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
        put(repo, "app/kustomization.yaml", "resources:\n  - ../../shared\n")
        put(repo, "up/kustomization.yaml", "resources:\n  - ../..\n")
        put(repo, "llm/Chart.yaml", "apiVersion: v2\nname: llm\nversion: 0.1.0\n")
        (repo / "llm" / "templates").mkdir()
        (repo / "llm" / "templates" / "extra.yaml").symlink_to("../../../shared/secret.yaml")  # as git writes it
        (repo / "deploy").mkdir()
        (repo / "deploy" / "shared.yaml").symlink_to("../../shared/deploy.yaml")
        put(repo, "serve.yaml", vllm_deployment("serve"))
        tools = fake_kustomize(top)
        (tools / "helm").write_text("#!/bin/sh\nexit 1\n")  # never run: the chart's link is refused first
        (tools / "helm").chmod(0o755)
        monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
        for where, named in ((repo, ["app", "up", "llm", "deploy", "serve.yaml"]), (top / "shared", ["../repo/app"])):
            monkeypatch.chdir(where)
            with deadline(30):
                rc = main(["lint", *named])
            out, err = capsys.readouterr()
            assert str(tmp_path) not in out + err
            outputs.append((rc, out + err))
    assert outputs[:2] == outputs[2:]
    errors = [ln for ln in outputs[0][1].splitlines() if ": error: " in ln]
    assert errors == [  # what the search met first, then the folders named
        "deploy/shared.yaml: error: not read: a symbolic link to ../../shared/deploy.yaml, outside deploy; shardwise "
        "follows no link out of a folder it searches (name the file on the command line to read it)",
        "app/kustomization.yaml: error: resources entry '../../shared' leads outside the current directory: the "
        "kustomization is not built (shardwise builds nothing from outside the repository; run it from a directory "
        "that holds both)",
        "up/kustomization.yaml: error: resources entry '../..' leads outside the current directory: the kustomization "
        "is not built (shardwise builds nothing from outside the repository; run it from a directory that holds both)",
        "llm/templates/extra.yaml: error: the chart is not rendered: a symbolic link to ../../../shared/secret.yaml, "
        "outside the current directory; helm would read what it leads to (shardwise reads nothing from outside the "
        "repository)"]
    assert [ln for ln in outputs[1][1].splitlines() if ": error: " in ln] == [
        "../repo/app/kustomization.yaml: error: resources entry '../../shared' leads outside the folder named (app): "
        "the kustomization is not built (shardwise builds nothing from outside the repository; run it from a "
        "directory that holds both: cd .. && shardwise lint repo/app)"]


def test_an_overlay_named_from_another_directory_says_where_to_run_it(repo, capsys, kustomize, monkeypatch):
    """A new user's `shardwise lint /abs/kustomize/overlays/prod` from elsewhere: its base is outside the folder
    named, so nothing is built, and the error gives the line that builds it."""
    top = repo.parent / f"{repo.name}-k"
    put(top, "base/kustomization.yaml", "resources: [deploy.yaml]\n")
    put(top, "base/deploy.yaml", vllm_deployment("shared"))
    put(top, "overlays/prod/kustomization.yaml", "resources:\n  - ../../base\n")
    rc, errors, summary = lint(capsys, str(top / "overlays" / "prod"))
    assert rc == 2 and not kustomize.exists()
    assert errors == [
        f"{top}/overlays/prod/kustomization.yaml: error: resources entry '../../base' leads outside the folder named "
        "(prod): the kustomization is not built (shardwise builds nothing from outside the repository; "
        f"run it from a directory that holds both: cd {top} && shardwise lint overlays/prod)"]
    # the folder was named: no hint to name it (given for kustomizations found by searching), the error says why
    assert summary == (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; skipped 1 file that is not an input: Kustomize file (not built: the input error "
        "says why)×1 — failed: 1 input error")
    put(top, "overlays/dev/kustomization.yaml", "resources:\n  - ../../base\n")
    monkeypatch.chdir(top)
    rc, errors, summary = lint(capsys, "overlays", "--no-build-found")  # found by searching, not built (as
    # without kustomize or kubectl on PATH): skipped, and nothing else read: exit 2
    assert (rc, errors) == (2, [
        "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when met "
        "while searching a folder (or as .): overlays/dev (kustomization), overlays/prod (kustomization); to lint "
        "them: shardwise lint overlays/dev overlays/prod"])
    assert summary == (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; skipped 2 files that are not inputs: Kustomize file×2 (charts and kustomizations found by searching a "
        "folder and not built (no tool, a failed build, --no-build-found) are not rendered: name their folder, or pipe helm template or kustomize build to shardwise lint -) "
        "— failed: 1 input error")


CHART = "apiVersion: v2\nname: NAME\nversion: 0.1.0\n"
TEMPLATE = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"


def test_a_charts_templates_linted_from_inside_name_the_chart(repo, capsys, monkeypatch):
    """corpus20: a user in a chart's templates/ running `shardwise lint .` or `shardwise lint deploy.yaml` met only
    the chart's unrendered templates, as from the repository root, but passed having read nothing (the chart's
    folder, ``..``, was looked for below the current directory only). Now the same input error as from outside,
    naming the chart by its folder and its name, with the command that lints it. (Not built: building what a search
    meets is switched off here, as without helm on PATH; tests/adapters/test_found_builds.py builds.)"""
    put(repo, "charts/vllm/Chart.yaml", CHART.replace("NAME", "vllm"))
    put(repo, "charts/vllm/values.yaml", "image: vllm/vllm-openai\n")
    put(repo, "charts/vllm/templates/deploy.yaml", TEMPLATE)
    rc, errors, _ = lint(capsys, "charts/vllm/templates", "--no-build-found")
    assert (rc, errors) == (2, [
        "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when met "
        "while searching a folder (or as .): charts/vllm (Helm chart); to lint them: shardwise lint charts/vllm"])
    monkeypatch.chdir(repo / "charts" / "vllm" / "templates")
    for named in (".", "deploy.yaml"):
        rc, errors, summary = lint(capsys, named, "--no-build-found")
        assert (rc, errors) == (2, [
            "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when "
            "met while searching a folder (or as .): .. (Helm chart `vllm`); to lint them: shardwise lint .."]), named
        assert summary.endswith("— failed: 1 input error")


def test_only_unrendered_charts_met_while_searching_is_no_silent_pass(repo, capsys, monkeypatch):
    """A repository whose only inputs are charts (a subchart inside one) and a kustomization met while searching:
    nothing is read, so the run is an input error naming the folders and the command that lints them, not a pass
    over nothing; in the chart's own folder (`.` is never rendered) the command pipes helm template. A chart beside
    a file that is read, and a repository with no vLLM and no chart, pass as before. (Not built: building what a
    search meets is switched off here, as without helm or kustomize on PATH.)"""
    put(repo, "charts/vllm/Chart.yaml", CHART.replace("NAME", "vllm"))
    put(repo, "charts/vllm/values.yaml", "image: vllm/vllm-openai\n")
    put(repo, "charts/vllm/templates/deploy.yaml", TEMPLATE)
    put(repo, "charts/vllm/charts/redis/Chart.yaml", CHART.replace("NAME", "redis"))
    put(repo, "charts/vllm/charts/redis/templates/sts.yaml", TEMPLATE)
    put(repo, "charts/gw/Chart.yaml", CHART.replace("NAME", "gw"))
    put(repo, "charts/gw/files/route.yaml", "kind: HTTPRoute\n")
    put(repo, "deploy/overlays/prod/kustomization.yaml", "resources:\n  - github.com/example/base?ref=v1\n")
    rc, errors, summary = lint(capsys, ".", "--no-build-found")
    assert (rc, errors) == (2, [
        "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when met "
        "while searching a folder (or as .): charts/gw (Helm chart), charts/vllm (Helm chart), deploy/overlays/prod "
        "(kustomization); to lint them: shardwise lint charts/gw charts/vllm deploy/overlays/prod"])
    assert summary.endswith("— failed: 1 input error")
    monkeypatch.chdir(repo / "charts" / "vllm")
    rc, errors, _ = lint(capsys, ".", "--no-build-found")
    monkeypatch.chdir(repo)
    assert (rc, errors) == (2, [
        "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when met "
        "while searching a folder (or as .): . (Helm chart `vllm`); to lint them: helm template . | shardwise lint -"])
    put(repo, "deploy/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: serving\n")
    rc, errors, summary = lint(capsys, ".", "--no-build-found")  # a file read: the charts are skipped with the summary's hint, as before
    assert (rc, errors) == (0, []) and summary.startswith("shardwise: 1 file read, 0 workloads")
    for sub in ("charts", "deploy/overlays"):
        shutil.rmtree(repo / sub)
    rc, errors, summary = lint(capsys, ".", "--no-build-found")  # no vLLM and no chart at all: passes
    assert (rc, errors) == (0, []) and summary == (
        "shardwise: 1 file read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed — passed")


@pytest.mark.parametrize(("name", "text", "why"), [
    ("Dockerfile", "FROM python:3.11\nCOPY . /app\n", "Dockerfile (a container image, not a deployment)"),
    ("jsonnet/labels.libsonnet", "{ app: 'chat' }\n", "Jsonnet library source (program source is not read)"),
    ("Pulumi.yaml+index.ts", "export const name = 'chat';\n",
     "Pulumi program in TypeScript (program source is not read: lint its `pulumi preview --json` output)"),
])
def test_a_program_source_beside_unrendered_charts_is_no_file_read(repo, capsys, name, text, why):
    """newuser10: a chart repository with a Dockerfile at its root (or a Jsonnet library, a Pulumi program) passed
    with exit 0 having linted nothing: the program source, only skipped, counted as a file read, which hid that the
    charts were all there was. A skipped program source is now no file read, as a Terraform file is not: the run is
    the input error naming the charts, and the summary counts the file once, as skipped."""
    put(repo, "charts/vllm/Chart.yaml", CHART.replace("NAME", "vllm"))
    put(repo, "charts/vllm/values.yaml", "image: vllm/vllm-openai\n")
    put(repo, "charts/vllm/templates/deploy.yaml", TEMPLATE)
    if name.startswith("Pulumi.yaml"):
        put(repo, "Pulumi.yaml", "name: chat\nruntime: nodejs\n")
        name = "index.ts"
    put(repo, name, text)
    rc, errors, summary = lint(capsys, ".", "--no-build-found")  # not built, as without helm
    assert (rc, errors) == (2, [
        "(input): error: no file was read: the only inputs met are charts or kustomizations, not rendered when met "
        "while searching a folder (or as .): charts/vllm (Helm chart); to lint them: shardwise lint charts/vllm"])
    assert summary.startswith("shardwise: 0 files read, 0 workloads") and f"{why}×1" in summary
    assert summary.endswith("— failed: 1 input error")
    rc, errors, summary = lint(capsys, name)  # named alone: skipped, and no file read
    assert (rc, errors) == (0, []) and summary == (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        f"findings, 0 suppressed; skipped 1 file that is not an input: {why}×1 — passed")


# -------------------------------------------------------- deep trees, sockets, loops, names that are not UTF-8


def chain(root: Path, top: str, name: str, depth: int) -> None:
    """``top/name/name/…`` ``depth`` levels below ``top``, with a vLLM Deployment at the bottom, made one relative
    step at a time (an absolute path that long is refused by the system)."""
    here = os.getcwd()
    os.chdir(root)
    os.makedirs(top, exist_ok=True)
    os.chdir(top)
    try:
        for _ in range(depth):
            os.mkdir(name)
            os.chdir(name)
        Path("bottom.yaml").write_text(vllm_deployment("bottom"), encoding="utf-8")
    finally:
        os.chdir(here)


def unchain(root: Path, top: str, name: str, depth: int) -> None:
    """Remove what :func:`chain` made, from the bottom up, without recursion."""
    here = os.getcwd()
    os.chdir(root / top)
    try:
        for _ in range(depth):
            os.chdir(name)
        os.unlink("bottom.yaml")
        for _ in range(depth):
            os.chdir("..")
            os.rmdir(name)
    finally:
        os.chdir(here)


def test_a_directory_a_thousand_levels_deep_is_searched(repo, capsys):
    """Python 3.11's os.walk recursed once per level: 1,000 levels ended the run with a RecursionError."""
    chain(repo, "deep", "d", 999)
    try:
        rc, errors, summary = lint(capsys, "deep")
    finally:
        unchain(repo, "deep", "d", 999)  # shutil.rmtree (pytest's clean-up) recurses once per level too
    assert (rc, errors) == (0, [])
    assert summary.startswith(f"shardwise: 1 file read, {LINTED_ONE}")


def test_a_path_longer_than_the_system_takes_is_an_error_and_the_rest_is_linted(repo, capsys):
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    chain(repo, "deploy", "x" * 200, 25)  # 25 × 201 characters: past Linux's PATH_MAX of 4,096
    try:
        rc, errors, summary = lint(capsys, "deploy")
    finally:
        unchain(repo, "deploy", "x" * 200, 25)
    assert rc == 2
    assert len(errors) == 1 and errors[0].startswith("deploy/" + "x" * 200 + "/")
    assert errors[0].endswith(": error: cannot read directory: File name too long")
    assert LINTED_ONE in summary


def test_a_socket_is_named_as_one(repo, capsys):
    """Opening a Unix socket fails with ENXIO, "No such device or address": the error says what the file is."""
    import socket

    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("deploy/s.yaml")
        rc, errors, summary = lint(capsys, "deploy")
    assert rc == 2
    assert errors == ["deploy/s.yaml: error: cannot read: it is a socket, not a regular file; shardwise reads only "
                      "regular files"]
    assert LINTED_ONE in summary


def test_a_loop_of_links_and_a_link_to_nothing_say_so_in_a_folder_and_named(repo, capsys):
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    os.symlink("b.yaml", repo / "deploy" / "a.yaml")
    os.symlink("a.yaml", repo / "deploy" / "b.yaml")
    os.symlink("gone.yaml", repo / "deploy" / "dangling.yaml")
    os.symlink(".", repo / "deploy" / "self")  # a link to a directory is not followed
    expected = [
        "deploy/a.yaml: error: cannot read: a loop of symbolic links (each names another, and none a file)",
        "deploy/b.yaml: error: cannot read: a loop of symbolic links (each names another, and none a file)",
        "deploy/dangling.yaml: error: cannot read: a symbolic link to gone.yaml, which does not exist",
    ]
    rc, errors, summary = lint(capsys, "deploy")
    assert (rc, errors) == (2, expected)
    assert summary.startswith(f"shardwise: 4 files read, {LINTED_ONE}")
    # named: "no such file or directory" before, for both
    rc, errors, summary = lint(capsys, "deploy/a.yaml", "deploy/dangling.yaml", "deploy/good.yaml")
    assert (rc, errors) == (2, [expected[0], expected[2]])
    assert LINTED_ONE in summary


def test_a_link_to_a_folder_is_not_followed_and_says_so(repo, capsys, tmp_path_factory):
    """Before hostile5 a searched folder's link to a folder was passed over without a word: manifests kept in a
    folder outside the tree (``deploy/shared -> ../../platform/manifests``) were never linted and the run passed."""
    elsewhere = tmp_path_factory.mktemp("platform")
    put(elsewhere, "m.yaml", vllm_deployment("elsewhere"))
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    os.symlink(elsewhere, repo / "deploy" / "shared")
    os.symlink(".", repo / "deploy" / "self")
    with deadline(30):
        rc = main(["lint", "deploy", "--format", "json"])
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert rc == 0
    assert doc["skipped_files"] == [
        {"file": "deploy/self/", "reason": "link to a folder (not followed: name the folder to lint it)"},
        {"file": "deploy/shared/", "reason": "link to a folder (not followed: name the folder to lint it)"}]
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/good"]
    rc, _, summary = lint(capsys, "deploy/shared")  # named, it is linted
    assert (rc, summary.startswith(f"shardwise: 1 file read, {LINTED_ONE}")) == (0, True)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_file_name_that_is_not_utf8_is_written_in_every_report(repo, capsys, fmt):
    """SARIF raised UnicodeEncodeError on such a name, and every format failed in a file (``=FILE``): the name's
    bytes that are not UTF-8 are written as ``\\xff`` (JSON: the escape ``\\udcff``, which ``os.fsencode`` turns
    back into the byte; a SARIF URI: ``%FF``)."""
    name = os.fsdecode(b"deploy/\xff\xfe bad.yaml")
    put(repo, name, "a: [broken\n")
    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    with deadline(30):
        rc = main(["lint", "deploy", "--format", f"{fmt}=report"])
    capsys.readouterr()
    assert rc == 2
    text = (repo / "report").read_bytes().decode("utf-8")  # UTF-8, strictly
    error = "cannot parse YAML: did not find expected ',' or ']'"
    if fmt == "json":
        assert [(e["file"], e["message"]) for e in json.loads(text)["input_errors"]] == [(name, error)]
        assert '"file": "deploy/\\udcff\\udcfe bad.yaml"' in text
    elif fmt == "sarif":
        [note] = json.loads(text)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/%FF%FE%20bad.yaml"
    elif fmt == "text":
        assert f"deploy/\\xff\\xfe bad.yaml:2:1: error: {error}" in text.splitlines()
    elif fmt == "github":
        assert (f"::error file=deploy/\\xff\\xfe bad.yaml,line=2,col=1,title=shardwise input error::{error}"
                in text.splitlines())
    else:
        assert f"- `deploy/\\xff\\xfe bad.yaml:2:1` — {error}" in text.splitlines()


def test_a_line_of_unclosed_brackets_in_the_ignore_file_is_read_in_linear_time(repo, capsys):
    """Each ``[`` without a ``]`` scanned to the end of its line: 20,000 of them took minutes. (hostile9: a pattern
    longer than PATH_MAX is now refused as it is read, and the line of 4,096 is read as brackets, in linear time.)"""
    put(repo, ".shardwiseignore", "[" * 20_000 + "\n" + "[" * 4096 + "\n")
    put(repo, "good.yaml", vllm_deployment("good"))
    start = time.process_time()
    rc, errors, summary = lint(capsys, ".", seconds=20)
    assert (rc, errors) == (2, [
        f".shardwiseignore:1: error: invalid exclude pattern {'[' * 60!r}…: 20,000 characters, longer than the 4,096 "
        "of the longest path (PATH_MAX); it is not applied"])
    assert LINTED_ONE in summary
    assert time.process_time() - start < 5
    closed = globs._Class(False, frozenset("ab"), ())
    assert globs.tokens("x[ab]y[[") == ["x", closed, "y", "[", "["]  # the brackets as before
    assert globs.tokens("[[ab]") == [globs._Class(False, frozenset("[ab"), ())]


def test_files_that_vanish_or_grow_after_the_walk_are_errors_of_their_own(repo, capsys, monkeypatch):
    """Between the walk and the read a file is removed, another grows past the limit, a third becomes a FIFO:
    each is an input error with its path, and the rest is linted."""
    from shardwise.rules import adapters

    put(repo, "deploy/good.yaml", vllm_deployment("good"))
    for name in ("gone", "grown", "swapped"):
        put(repo, f"deploy/{name}.yaml", vllm_deployment(name))
    real = adapters.select_inputs

    def then_change(*args, **kwargs):  # noqa: ANN002, ANN003 - the wrapped function's own arguments
        selection = real(*args, **kwargs)
        os.unlink("deploy/gone.yaml")
        with open("deploy/grown.yaml", "ab") as fh:  # sparse: costs no disk
            fh.truncate(MAX_FILE_BYTES + 1)
        os.unlink("deploy/swapped.yaml")
        os.mkfifo("deploy/swapped.yaml")
        return selection

    monkeypatch.setattr(adapters, "select_inputs", then_change)
    rc, errors, summary = lint(capsys, "deploy")
    assert (rc, errors) == (2, [
        "deploy/gone.yaml: error: cannot read: No such file or directory",
        "deploy/grown.yaml: error: not read: the file is larger than 32 MiB, the most shardwise reads from one file",
        "deploy/swapped.yaml: error: cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads "
        "only regular files",
    ])
    assert LINTED_ONE in summary
