"""Run the policy pack and write down every request the engine sends it (engine tests only).

``python tests/support/pack_recorder.py ENGINE_ADDRESS PACK_DIR`` does what ``python -m pulumi.policy
ENGINE_ADDRESS PACK_DIR`` does, after wrapping the gRPC server the SDK makes (grpcio's, or the pack's own
transport's, ``grpc_h2.Server``) so that every call of the
analyzer protocol is appended to the file named by ``SHARDWISE_PACK_RECORD``, one JSON object a line:
``{"method": ..., "request": <the request as protobuf JSON>, "env": {...}}`` (the ``PULUMI_*`` variables the
pack was started with, on the first line only). The recording wraps the handlers the pack registers,
outermost, so it sees a call the pack does not serve too (``Remediate`` while no policy remediates), which
it answers as gRPC does (UNIMPLEMENTED). The pack itself is untouched: the recorder only sees what goes in.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import threading
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format
from pulumi.runtime.proto import analyzer_pb2

SERVICE = "/pulumirpc.Analyzer/"
REQUESTS: dict[str, Any] = {
    "Handshake": analyzer_pb2.AnalyzerHandshakeRequest, "ConfigureStack": analyzer_pb2.AnalyzerStackConfigureRequest,
    "GetAnalyzerInfo": empty_pb2.Empty, "Configure": analyzer_pb2.ConfigureAnalyzerRequest,
    "Analyze": analyzer_pb2.AnalyzeRequest, "AnalyzeStack": analyzer_pb2.AnalyzeStackRequest,
    "Remediate": analyzer_pb2.AnalyzeRequest,
}
METHODS = tuple(REQUESTS)
_lock = threading.Lock()


def _write(entry: dict[str, Any]) -> None:
    with _lock, open(os.environ["SHARDWISE_PACK_RECORD"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def _recorded(name: str, serve: Any) -> Any:
    def call(request: Any, context: Any) -> Any:
        _write({"method": name, "request": json_format.MessageToDict(request)})
        return serve(request, context)
    return call


def _not_served(request: Any, context: Any) -> Any:
    context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


class _Recording:
    """A generic handler: the pack's, with its calls of the analyzer protocol written down."""

    def __init__(self, handler: Any) -> None:
        self._handler = handler

    def service(self, details: Any) -> Any:
        served = self._handler.service(details)
        name = details.method[len(SERVICE):] if details.method.startswith(SERVICE) else None
        if name not in REQUESTS:
            return served
        if served is None:  # not served by this handler: recorded, then UNIMPLEMENTED, as gRPC answers it
            return grpc.unary_unary_rpc_method_handler(_recorded(name, _not_served),
                                                       request_deserializer=REQUESTS[name].FromString)
        return served._replace(unary_unary=_recorded(name, served.unary_unary))


class _RecordingServer:
    def __init__(self, server: Any) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self._server.add_generic_rpc_handlers(tuple(_Recording(h) for h in handlers))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


def main(argv: list[str]) -> None:
    engine, pack = argv[0], argv[1]
    make_server = grpc.server
    grpc.server = lambda *a, **k: _RecordingServer(make_server(*a, **k))  # type: ignore[assignment]
    try:  # the pack's own transport (the default where it imports) gets the same handlers the same way
        from shardwise.rules.app import grpc_h2
    except ImportError:
        pass
    else:
        add = grpc_h2.Server.add_generic_rpc_handlers
        grpc_h2.Server.add_generic_rpc_handlers = (  # type: ignore[method-assign]
            lambda self, handlers: add(self, tuple(_Recording(h) for h in handlers)))
    _write({"method": "start", "request": {"engine": engine, "pack": pack},
            "env": {k: v for k, v in os.environ.items() if k.startswith("PULUMI_") and "PASSPHRASE" not in k}})
    sys.argv = ["pulumi.policy", engine, pack]
    runpy.run_module("pulumi.policy", run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
