"""Serve the repository's Pulumi program (``__main__.py``) as a language runtime for the engine.

``pulumi-language-python`` cannot be built here (the Go module proxy does not serve it), so the
engine tests run the program the way Pulumi runs an inline program of its Automation API: the
Python SDK's own language runtime (``pulumi.automation._server.LanguageServer``) serves the
``LanguageRuntime`` protocol on a local port, and the real CLI is pointed at it with
``pulumi preview --client 127.0.0.1:PORT`` (likewise ``up``). Its ``Run`` sets up the SDK with the
engine's project, stack, config and monitor address, then runs the program function: here
``runpy`` of the real ``__main__.py``, which declares the real components.

``SHARDWISE_SKIP_COMPONENT_CHECK=1`` turns off the components' own rule check (what
``tests/pulumi_mocks.py --skip-validation`` does), so that a broken stack config still declares its
resources and the policy pack, not the program, has to stop it.

Usage: ``python tests/engine_program.py`` prints the port on its first line and serves until killed.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from pulumi.automation._server import LanguageServer
from standin_language_host import serve

ROOT = Path(__file__).resolve().parents[1]


def program() -> None:
    if os.environ.get("SHARDWISE_SKIP_COMPONENT_CHECK"):
        import shardwise.components.environment as environment

        environment.validate_environment = lambda spec, validation=None: []
    runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")


if __name__ == "__main__":
    serve(LanguageServer(program), 4)
