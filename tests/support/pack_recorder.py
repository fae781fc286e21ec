"""Run the policy pack and write down every request the engine sends it (engine tests only).

``python tests/support/pack_recorder.py ENGINE_ADDRESS PACK_DIR`` does what ``python -m pulumi.policy
ENGINE_ADDRESS PACK_DIR`` does, after wrapping ``add_AnalyzerServicer_to_server`` so that every
call of the analyzer protocol is appended to the file named by ``SHARDWISE_PACK_RECORD``, one JSON
object a line: ``{"method": ..., "request": <the request as protobuf JSON>, "env": {...}}`` (the
``PULUMI_*`` variables the pack was started with, on the first line only). The pack itself is
untouched: the recorder only sees what goes in.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import threading
from typing import Any

from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2_grpc

METHODS = ("Handshake", "ConfigureStack", "GetAnalyzerInfo", "Configure", "Analyze", "AnalyzeStack", "Remediate")
_lock = threading.Lock()


def _write(entry: dict[str, Any]) -> None:
    with _lock, open(os.environ["SHARDWISE_PACK_RECORD"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def _wrap(servicer: Any, name: str) -> None:
    original = getattr(servicer, name)

    def call(request: Any, context: Any) -> Any:
        _write({"method": name, "request": json_format.MessageToDict(request)})
        return original(request, context)

    setattr(servicer, name, call)


def main(argv: list[str]) -> None:
    engine, pack = argv[0], argv[1]
    add = analyzer_pb2_grpc.add_AnalyzerServicer_to_server

    def add_recording(servicer: Any, server: Any) -> None:
        for name in METHODS:
            if hasattr(servicer, name):
                _wrap(servicer, name)
        add(servicer, server)

    analyzer_pb2_grpc.add_AnalyzerServicer_to_server = add_recording
    _write({"method": "start", "request": {"engine": engine, "pack": pack},
            "env": {k: v for k, v in os.environ.items() if k.startswith("PULUMI_") and "PASSPHRASE" not in k}})
    sys.argv = ["pulumi.policy", engine, pack]
    runpy.run_module("pulumi.policy", run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
