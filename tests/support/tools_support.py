"""The Go tools some tests run (helm, kustomize, actionlint), built by ``scripts/build-tools.sh``.

Tests marked ``tools`` call :func:`require_tool`: without the tool they are skipped and the run says so
and how to build it; with ``SHARDWISE_REQUIRE_TOOLS=1`` (what ``.ci/run`` sets) a missing tool fails them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

HOW = "build them with `bash scripts/build-tools.sh` (Go and the Go module proxy; ~15 min the first time) or " \
      "put helm, kustomize and actionlint on PATH"


def tools_bin() -> Path:
    cache = os.environ.get("SHARDWISE_TOOLS_CACHE") or str(Path.home() / ".cache" / "shardwise-tools")
    return Path(cache) / "bin"


def find_tool(name: str) -> str | None:
    built = tools_bin() / name
    if built.exists():
        return str(built)
    return shutil.which(name)


def require_tool(name: str) -> str:
    """The tool's path; otherwise skip the test, or fail it when ``SHARDWISE_REQUIRE_TOOLS`` is set."""
    path = find_tool(name)
    if path is not None:
        return path
    if os.environ.get("SHARDWISE_REQUIRE_TOOLS", "") not in ("", "0"):
        pytest.fail(f"SHARDWISE_REQUIRE_TOOLS is set but {name} is not built: {HOW}", pytrace=False)
    pytest.skip(f"{name} is not built: {HOW}")
    raise AssertionError("unreachable")
