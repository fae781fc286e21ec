"""A stand-in for ``pulumi-language-python`` that only starts policy packs (engine tests only).

``pulumi-language-python`` is not served by the Go module proxy this project reaches, so it cannot
be built, and the engine (v3.276) starts a Python policy pack only through a language host's
``RunPlugin``. This host serves the ``LanguageRuntime`` protocol with that one method (and
``GetPluginInfo``) and does for a policy pack what the real host does:

1. it serves an analyzer proxy (the real host uses ``PolicyProxy`` of the sdk/v3 module) and
   tells the engine its port; the proxy answers ``Handshake`` itself and waits for the engine's
   ``ConfigureStack`` (or for any other call, which means there is no stack configuration);
2. it then starts the pack as ``<virtualenv>/bin/python -u -m pulumi.policy ENGINE_ADDRESS
   PACK_DIRECTORY`` in the pack's directory, the ``virtualenv`` option resolved against it
   (``PulumiPolicy.yaml``: ``virtualenv: ../.venv``), with ``PULUMI_ORGANIZATION``,
   ``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN`` and ``PULUMI_CONFIG`` (the config as
   JSON) from that configuration, then the engine's environment;
3. it reads the pack's port, sends it the ``ConfigureStack`` it received, and from then on
   forwards every analyzer call to the pack; the pack's further output and its exit code are
   streamed back to the engine.

Every other method of the host (``Run`` among them) answers UNIMPLEMENTED: the program is run by
the Python SDK's language runtime through ``--client`` (``tests/engine_program.py``).

With ``SHARDWISE_PACK_RECORD`` set the pack is started through ``tests/pack_recorder.py``, which
writes down every request the pack receives (the pack itself is unchanged).

Usage (what ``tests/engine_bin/pulumi-language-python`` runs): ``python tests/standin_language_host.py
ENGINE_ADDRESS``; prints its port on the first line.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, language_pb2, language_pb2_grpc, plugin_pb2

HERE = Path(__file__).resolve().parent
FORWARDED = ("Analyze", "AnalyzeStack", "Remediate", "GetAnalyzerInfo", "GetPluginInfo", "Configure", "Cancel")


def pack_command(request: Any) -> list[str]:
    """The language host's command for a policy pack, from a ``RunPluginRequest``."""
    info = request.info
    options = json_format.MessageToDict(info.options) if info.HasField("options") else {}
    python = "python3"
    venv = options.get("virtualenv")
    if venv:
        root = Path(info.root_directory or info.program_directory)
        python = str((root / venv if not os.path.isabs(venv) else Path(venv)) / "bin" / "python")
    if os.environ.get("SHARDWISE_PACK_RECORD"):
        return [python, "-u", str(HERE / "pack_recorder.py"), *request.args, info.program_directory]
    return [python, "-u", "-m", "pulumi.policy", *request.args, info.program_directory]


def config_env(config: Any) -> dict[str, str]:
    """What the real host adds to the pack's environment from the engine's ConfigureStack."""
    if config is None:
        return {}
    values = {"PULUMI_ORGANIZATION": config.organization, "PULUMI_PROJECT": config.project,
              "PULUMI_STACK": config.stack, "PULUMI_DRY_RUN": "true" if config.dry_run else "false"}
    if config.config:
        values["PULUMI_CONFIG"] = json.dumps(dict(config.config))
    return {k: v for k, v in values.items() if v}


class Proxy(analyzer_pb2_grpc.AnalyzerServicer):
    """The engine's analyzer until the pack runs, then a pass-through to the pack."""

    def __init__(self) -> None:
        self.configured = threading.Event()
        self.config: Any = None
        self.ready = threading.Event()
        self.stub: Any = None
        self.error = ""
        for name in FORWARDED:
            setattr(self, name, self._forward(name))

    def Handshake(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC name
        return analyzer_pb2.AnalyzerHandshakeResponse()

    def ConfigureStack(self, request: Any, context: Any) -> Any:  # noqa: N802
        if not self.configured.is_set():
            self.config = request
            self.configured.set()
        return analyzer_pb2.AnalyzerStackConfigureResponse()

    def _forward(self, name: str) -> Callable[[Any, Any], Any]:
        def call(request: Any, context: Any) -> Any:
            self.configured.set()  # no ConfigureStack came first: start the pack without stack config
            self.ready.wait()
            if self.stub is None:
                context.abort(grpc.StatusCode.UNAVAILABLE, f"policy pack not started: {self.error}")
            return getattr(self.stub, name)(request)
        return call


class Host(language_pb2_grpc.LanguageRuntimeServicer):
    def GetPluginInfo(self, request: Any, context: Any) -> plugin_pb2.PluginInfo:  # noqa: N802 - gRPC name
        return plugin_pb2.PluginInfo(version="0.0.0-standin")

    def RunPlugin(self, request: Any, context: Any) -> Iterator[language_pb2.RunPluginResponse]:  # noqa: N802
        if request.kind != "analyzer":
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "the stand-in language host runs policy packs only")
        proxy = Proxy()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=_GRPC_CHANNEL_OPTIONS)
        analyzer_pb2_grpc.add_AnalyzerServicer_to_server(proxy, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        context.add_callback(lambda: server.stop(0))
        yield language_pb2.RunPluginResponse(stdout=f"{port}\n".encode())
        while not proxy.configured.wait(0.2):
            if not context.is_active():
                return
        env = {**os.environ, **config_env(proxy.config)}
        env.update(e.split("=", 1) for e in request.env if "=" in e)
        proc = subprocess.Popen(pack_command(request), cwd=request.info.program_directory or None, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        def stop() -> None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()  # reaped here, so its CPU time is accounted to this host and up the tree

        context.add_callback(stop)
        out: queue.Queue[tuple[str, bytes]] = queue.Queue()
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        try:
            channel = grpc.insecure_channel(f"127.0.0.1:{int(first)}", options=_GRPC_CHANNEL_OPTIONS)
            proxy.stub = analyzer_pb2_grpc.AnalyzerStub(channel)
            if proxy.config is not None:
                proxy.stub.ConfigureStack(proxy.config)
        except (ValueError, grpc.RpcError) as e:
            proxy.stub, proxy.error = None, f"{e}: {first!r}"
        proxy.ready.set()

        def pump(name: str, stream: Any) -> None:
            for chunk in iter(lambda: stream.read1(65536), b""):
                out.put((name, chunk))
            out.put((name, b""))

        for name, stream in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            threading.Thread(target=pump, args=(name, stream), daemon=True).start()
        open_streams = 2
        while open_streams:
            name, chunk = out.get()
            if not chunk:
                open_streams -= 1
            elif name == "stdout":
                yield language_pb2.RunPluginResponse(stdout=chunk)
            else:
                yield language_pb2.RunPluginResponse(stderr=chunk)
        yield language_pb2.RunPluginResponse(exitcode=proc.wait())


def serve(servicer: Any, workers: int) -> None:
    """Serve a ``LanguageRuntime`` on a local port, print the port, run until the engine stops it."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers), options=_GRPC_CHANNEL_OPTIONS)
    language_pb2_grpc.add_LanguageRuntimeServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:  # the engine stops its plugins with SIGINT
        server.stop(0)


if __name__ == "__main__":
    serve(Host(), 8)
