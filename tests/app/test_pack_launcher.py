"""grpcio's settings the pack's launchers set (``crossguard.pack_grpc_environment``, ``launcher_environment``).

grpcio reads ``GRPC_EXPERIMENTS`` once, when ``grpc`` is imported, and ``python -m pulumi.policy`` imports it before
the pack's code runs: the launcher that starts the interpreter is where it can be set. These tests check which
releases get the setting, that the launcher's shell lines keep what the user set, that the setting reaches the
pack's process, and that the installed grpcio knows every name (a name it does not know is an error line on the
pack's stderr, which the CLI would show). No timing: what the setting saves is measured by benchmarks/bench_engine.py.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest
from shardwise.rules.app import crossguard

OFF = "-event_engine_listener,-event_engine_for_all_other_endpoints"


@pytest.mark.parametrize(("release", "expected"), [
    ("1.85.3", {"GRPC_EXPERIMENTS": OFF}),
    ("1.85.0", {"GRPC_EXPERIMENTS": OFF}),
    ("1.85.0rc1", {"GRPC_EXPERIMENTS": OFF}),
    ("1.84.2", {}),  # not read: no setting
    ("1.86.0", {}),  # the listener's experiment expires 2026/10/30: a later release may not know the name
    ("2.85.0", {}),
    ("1", {}),
    ("", {}),
    (None, {}),  # grpcio not installed
    ("one.two", {}),
])
def test_the_setting_is_given_only_to_releases_read_for_it(release, expected):
    assert crossguard.pack_grpc_environment(release) == expected


def _shell(lines: str, environ: dict[str, str]) -> str:
    script = lines + 'exec "$0" -c \'import os; print(repr(os.environ.get("GRPC_EXPERIMENTS")))\'\n'
    out = subprocess.run(["sh", "-c", script, sys.executable], env=environ, capture_output=True, text=True,
                         check=True)
    assert out.stderr == ""
    return out.stdout.strip()


def test_the_launcher_sets_what_the_user_did_not_and_keeps_what_they_did():
    lines = crossguard.launcher_environment({"GRPC_EXPERIMENTS": OFF})
    assert lines.splitlines() == [
        "# grpcio's settings for the pack (crossguard.pack_grpc_environment), where not set already",
        f': "${{GRPC_EXPERIMENTS={OFF}}}"',
        "export GRPC_EXPERIMENTS",
    ]
    assert _shell(lines, {}) == repr(OFF)
    assert _shell(lines, {"GRPC_EXPERIMENTS": ""}) == "''"  # an empty value is the user's: grpcio's defaults
    assert _shell(lines, {"GRPC_EXPERIMENTS": "-event_engine_client"}) == "'-event_engine_client'"
    assert crossguard.launcher_environment({}) == ""


@pytest.mark.parametrize("setting", [
    {"GRPC_EXPERIMENTS": "a b"}, {"GRPC_EXPERIMENTS": "$(true)"}, {"GRPC_EXPERIMENTS": "x}"},
    {"GRPC_EXPERIMENTS": "'x'"}, {"GRPC EXPERIMENTS": "x"}, {"1GRPC": "x"}, {"GRPC_EXPERIMENTS": "x\ny"},
])
def test_a_setting_the_launcher_cannot_write_plainly_is_refused(setting):
    with pytest.raises(ValueError, match="not a launcher setting"):
        crossguard.launcher_environment(setting)


_SERVE = """\
import grpc
from concurrent import futures
server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
server.add_insecure_port("127.0.0.1:0")
server.start()
server.stop(None)
print("served")
"""


def test_the_installed_grpcio_takes_the_setting_without_a_word_on_stderr():
    setting = crossguard.pack_grpc_environment(version("grpcio"))
    if not setting:
        pytest.skip(f"grpcio {version('grpcio')} gets no setting (GRPC_VERIFIED_RELEASES)")
    out = subprocess.run([sys.executable, "-c", _SERVE], env={**setting, "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "served\n", "")
    # the check can fail: a name grpcio does not know is an error line on stderr
    unknown = subprocess.run([sys.executable, "-c", _SERVE],
                             env={"GRPC_EXPERIMENTS": "-no_such_experiment", "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, timeout=60)
    assert "Unknown experiment: no_such_experiment" in unknown.stderr
