"""The ``engine`` marker: tests that run the real Pulumi CLI built by ``scripts/build-pulumi.sh``.

Without the built CLI they are skipped and the run says so and how to run them; with
``SHARDWISE_REQUIRE_ENGINE=1`` (what ``.ci/run`` sets) a missing CLI fails them instead.
"""

from __future__ import annotations

import pytest
from engine_support import HOW, require_engine


@pytest.fixture(autouse=True)
def _engine_available(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("engine") is not None:
        require_engine()


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001 - pytest's hook signature
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "engine" in getattr(r, "keywords", {})]
    if skipped:
        terminalreporter.write_line(f"shardwise: {len(skipped)} engine tests were skipped (no Pulumi CLI): {HOW}.")
