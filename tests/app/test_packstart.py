"""The pack's launchers start it through ``shardwise.rules.app.packstart``: ``python -m pulumi.policy`` without
executing the SDK's modules the pack never reads (the Automation API, dynamic providers, OpenTelemetry's set-up
where the CLI does not trace), which stay importable as they were."""

import json
import os
import subprocess
import sys

import pytest
from google.protobuf import empty_pb2
from grpc_harness import PYTHON, ROOT, PackProcess
from shardwise.rules.app import packstart

# which of the SDK's modules a start executed, and whether a deferred one still works when read
_PROBE = """
import json, os, sys, types
if sys.argv[1] == "launcher":
    from shardwise.rules.app import packstart
    packstart.install()
import pulumi, pulumi.runtime, pulumi.policy, pulumi_policy
names = ("pulumi.automation", "pulumi.dynamic", "pulumi.runtime._instrumentation")
state = {n: type(sys.modules[n]) is types.ModuleType for n in names}
loaded = {n: n in sys.modules for n in ("dill", "pulumi.automation._local_workspace", "opentelemetry.sdk.trace")}
workspace = pulumi.automation.LocalWorkspace.__name__  # read: the module runs now, as it would have
after = {n: n in sys.modules for n in ("pulumi.automation._local_workspace",)}
print(json.dumps([state, loaded, workspace, after]))
"""


def _probe(how: str, **env: str) -> list:
    environ = {k: v for k, v in os.environ.items() if k != "TRACEPARENT"}
    out = subprocess.run([sys.executable, "-c", _PROBE, how], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**environ, **env})
    return json.loads(out.stdout)


def test_the_launchers_start_leaves_the_sdk_parts_the_pack_never_reads_unexecuted():
    state, loaded, workspace, after = _probe("launcher")
    assert state == {"pulumi.automation": False, "pulumi.dynamic": False, "pulumi.runtime._instrumentation": False}
    assert loaded == {"dill": False, "pulumi.automation._local_workspace": False, "opentelemetry.sdk.trace": False}
    assert (workspace, after) == ("LocalWorkspace", {"pulumi.automation._local_workspace": True})


def test_the_hosts_start_executes_them_all():
    """What the launchers avoid: ``python -m pulumi.policy`` alone imports every one of them."""
    state, loaded, workspace, _ = _probe("host")
    assert state == {"pulumi.automation": True, "pulumi.dynamic": True, "pulumi.runtime._instrumentation": True}
    assert loaded == {"dill": True, "pulumi.automation._local_workspace": True, "opentelemetry.sdk.trace": True}
    assert workspace == "LocalWorkspace"


def test_a_traced_run_sets_up_tracing_when_pulumi_is_imported():
    state, loaded, _, _ = _probe("launcher", TRACEPARENT="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    assert state == {"pulumi.automation": False, "pulumi.dynamic": False, "pulumi.runtime._instrumentation": True}
    assert loaded["opentelemetry.sdk.trace"] is True


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, ("pulumi.automation", "pulumi.dynamic", "pulumi.runtime._instrumentation")),
    ({"TRACEPARENT": ""}, ("pulumi.automation", "pulumi.dynamic", "pulumi.runtime._instrumentation")),
    ({"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
     ("pulumi.automation", "pulumi.dynamic")),
])
def test_what_is_deferred_depends_on_tracing(environ, expected):
    assert packstart.deferred(environ) == expected


def test_a_module_not_found_is_left_to_the_other_finders():
    finder = packstart.DeferredFinder(["shardwise_no_such_module"])
    assert finder.find_spec("shardwise_no_such_module", None) is None
    assert finder.find_spec("json", None) is None  # not named


def test_the_pack_started_by_the_launchers_module_answers_as_the_hosts_start():
    answers = []
    for launcher in ([PYTHON, "-m", "shardwise.rules.app.packstart"], None):
        with PackProcess(launcher=launcher) as pack:
            pack.handshake()
            info = pack.info()
            answers.append((info.SerializeToString(deterministic=True),
                            pack.stub.GetPluginInfo(empty_pb2.Empty()).SerializeToString(deterministic=True)))
    assert answers[0] == answers[1]
    assert answers[0][0]  # the policies were listed
