"""The real Python language host built by ``scripts/build-pulumi.sh``, spoken to over its own protocol.

It needs only the host (not the CLI), so it is not an ``engine`` test: without the host it is skipped,
and with ``SHARDWISE_REQUIRE_ENGINE`` set it fails instead.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from engine_support import PYTHON, ROOT, host_version, require_host

pytestmark = pytest.mark.slow


def _required_plugins(host: Path, env: dict[str, str]) -> tuple[str, set[tuple[str, str]]]:
    """The host's version and the plugins it finds for the repository's program (its own RPCs)."""
    import threading
    from concurrent import futures

    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import language_pb2, language_pb2_grpc

    engine = grpc.server(futures.ThreadPoolExecutor(1))  # the host health-checks an engine address
    port = engine.add_insecure_port("127.0.0.1:0")
    engine.start()
    proc = subprocess.Popen([str(host / "pulumi-language-python"), f"127.0.0.1:{port}"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(proc.stdout.readline() if proc.stdout else ""))
        reader.start()
        reader.join(60)
        assert box and box[0].strip().isdigit(), proc.stderr.read() if proc.stderr else ""
        stub = language_pb2_grpc.LanguageRuntimeStub(grpc.insecure_channel(f"127.0.0.1:{box[0].strip()}"))
        version = stub.GetPluginInfo(empty_pb2.Empty(), timeout=60).version
        plugins = stub.GetRequiredPlugins(language_pb2.GetRequiredPluginsRequest(
            project="shardwise", pwd=str(ROOT), program="."), timeout=600).plugins
        return version, {(p.name, p.version) for p in plugins}
    finally:
        proc.kill()
        proc.communicate()
        engine.stop(0)


def test_the_language_host_runs_the_venvs_python_named_by_pulumi_python_cmd():
    """The host is v3.79.0's and does not read Pulumi.yaml's virtualenv: with PULUMI_PYTHON_CMD it finds the
    program's provider plugins in the venv, at the versions of the installed SDKs; without, none."""
    from importlib.metadata import version

    host = require_host()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    assert _required_plugins(host, {**env, "PULUMI_PYTHON_CMD": str(PYTHON)}) == (host_version(), {
        ("aws", "v" + version("pulumi_aws")), ("kubernetes", "v" + version("pulumi_kubernetes"))})
    assert _required_plugins(host, env)[1] == set()
