"""The README's quick start works as written: every `shardwise` command in it runs with the exit
status its comment announces (0 when it announces none)."""

import pathlib
import re
import shlex
import subprocess
import sys

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import main


def _quick_start() -> list[tuple[str, int]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    out, expect = [], 0
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("#"):
            m = re.search(r"\(exit (\d)\)", line)
            expect = int(m.group(1)) if m else 0
        elif "shardwise " in line and not line.startswith("pip"):
            out.append((line, expect))
            expect = 0
    return out


COMMANDS = _quick_start()


def test_the_quick_start_has_the_commands_it_promises():
    assert [c.split()[0:2] for c, _ in COMMANDS] == [
        ["shardwise", "plan"], ["shardwise", "plan"], ["shardwise", "plan"],
        ["shardwise", "lint"], ["shardwise", "lint"], ["shardwise", "lint"], ["shardwise", "lint"],
        ["shardwise", "lint"], ["shardwise", "lint"], ["shardwise", "lint"], ["shardwise", "lint"],
        ["shardwise", "lint"], ["cat", "examples/llama-3.1-70b-tp4.yaml"], ["shardwise", "rules"],
        ["shardwise", "explain"],
    ]
    assert [e for _, e in COMMANDS] == [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0, 0, 0]


@pytest.mark.parametrize("command,expected", [c for c in COMMANDS if "|" not in c[0]])
def test_quick_start_command(command, expected, tmp_path, monkeypatch, capsys):
    argv = shlex.split(command)[1:]
    written = []
    for i, arg in enumerate(argv):  # write reports to a temporary folder, not into the checkout
        if argv[i - 1] in ("--create-baseline", "--baseline"):  # a baseline in the temporary folder
            argv[i] = str(tmp_path / arg)
        elif argv[i - 1] == "--output":
            argv[i] = str(tmp_path / arg)
            written.append(argv[i])
        elif argv[i - 1] == "--format" and "=" in arg:
            fmt, name = arg.split("=", 1)
            argv[i] = f"{fmt}={tmp_path / name}"
            written.append(str(tmp_path / name))
    monkeypatch.chdir(ROOT)
    if "--baseline" in argv:  # the line before records it: record it here too, so each line runs alone
        at = argv.index("--baseline")
        assert main([*argv[:at], "--create-baseline", argv[at + 1]]) == 0
        capsys.readouterr()
    assert main(argv) == expected
    for path in written:
        assert pathlib.Path(path).stat().st_size > 0


def test_quick_start_stdin_pipe():
    [(command, expected)] = [c for c in COMMANDS if "|" in c[0]]
    source = shlex.split(command.split("|")[0])[1]
    text = (ROOT / source).read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "shardwise.rules.app.cli", "lint", "-"], input=text, text=True,
                          capture_output=True, cwd=ROOT)
    assert (done.returncode, done.stderr) == (expected, "")
    assert done.stdout.splitlines()[-1].startswith("shardwise: 1 file read, 1 workload, 0 mandatory")
