"""The ``engine`` marker: tests that run the real Pulumi CLI built by ``scripts/build-pulumi.sh``.

Without the built CLI they are skipped and the run says so and how to run them; with
``SHARDWISE_REQUIRE_ENGINE=1`` (what ``.ci/run`` sets) a missing CLI fails them instead. The ``tools``
marker does the same for helm, kustomize and actionlint (``scripts/build-tools.sh``,
``SHARDWISE_REQUIRE_TOOLS=1``), and the ``cluster`` marker for the local control plane
(``scripts/build-cluster.sh``, ``SHARDWISE_REQUIRE_CLUSTER=1``).
"""

from __future__ import annotations

import sys
from pathlib import Path

# the tests' helpers (harnesses, stand-ins, mocks) live in tests/support/ and are imported by module name
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests assert what the code does, never how fast: hypothesis's default 200 ms deadline per example
# fails a test on a loaded machine (a first sizing under load takes over a second), so no example has one.
# Speed is measured by the benchmarks (benchmarks/), which print figures.
settings.register_profile("shardwise", deadline=None)
settings.load_profile("shardwise")
from cluster_support import require_cluster  # noqa: E402
from engine_support import HOW, require_engine  # noqa: E402
from tools_support import HOW as TOOLS_HOW  # noqa: E402


@pytest.fixture(params=("h2", "grpcio"))
def pack_transport(request, monkeypatch):
    """Each transport of the policy pack (``SHARDWISE_PACK_TRANSPORT``: its own, then grpcio's) in turn, for the
    pack processes a test starts (``grpc_harness.PackProcess`` checks the one that serves)."""
    monkeypatch.setenv("SHARDWISE_PACK_TRANSPORT", request.param)
    return request.param


_engine_tests: set[str] = set()
_skipped: set[str] = set()
_tool_tests: set[str] = set()
_tools_skipped: set[str] = set()
_cluster_tests: set[str] = set()
_cluster_skipped: set[str] = set()


def pytest_collection_modifyitems(session, config, items):  # noqa: ARG001 - pytest's hook signature
    _engine_tests.update(item.nodeid for item in items if item.get_closest_marker("engine") is not None)
    _tool_tests.update(item.nodeid for item in items if item.get_closest_marker("tools") is not None)
    _cluster_tests.update(item.nodeid for item in items if item.get_closest_marker("cluster") is not None)


#: What CIs say about the branch a checkout stands for (rules/adapters/gitops.py ``stands_for``): cleared for each
#: test, so that a GitOps object renders the same in a pull request's CI job as on a workstation.
CI_BRANCH_VARS = ("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "SYSTEM_PULLREQUEST_TARGETBRANCH",
                  "BITBUCKET_PR_DESTINATION_BRANCH", "GITHUB_REF_NAME", "GITHUB_REF_TYPE", "CI_COMMIT_BRANCH")


@pytest.fixture(autouse=True)
def _no_ci_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CI_BRANCH_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _engine_available(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("engine") is not None:
        require_engine()
    if request.node.get_closest_marker("cluster") is not None:
        require_cluster()


def pytest_runtest_logreport(report):
    if hasattr(report, "wasxfail"):  # an expected failure reports as skipped: it ran
        return
    if report.skipped and report.nodeid in _engine_tests:
        _skipped.add(report.nodeid)
    if report.skipped and report.nodeid in _tool_tests:
        _tools_skipped.add(report.nodeid)
    if report.skipped and report.nodeid in _cluster_tests:
        _cluster_skipped.add(report.nodeid)


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001 - pytest's hook signature
    """Close the event loops Pulumi's mocks left open, before the interpreter's exit finalises them.

    The first component test under ``pulumi.runtime.set_mocks`` makes an event loop in the main thread
    (``asyncio.Future()`` in ``resource_output``) and one in each thread of the SDK's invoke pool
    (``sync_await._ensure_event_loop``); none is closed, so the exit printed a ``ResourceWarning`` for each loop
    and each of its self-pipe sockets (18 lines after ``make test``)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return
    import gc

    for obj in gc.get_objects():
        if isinstance(obj, asyncio.AbstractEventLoop) and not obj.is_running() and not obj.is_closed():
            obj.close()


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001 - pytest's hook signature
    if _skipped:
        terminalreporter.write_line(f"shardwise: {len(_skipped)} engine tests were skipped (no Pulumi CLI): {HOW}.")
    if _tools_skipped:
        terminalreporter.write_line(f"shardwise: {len(_tools_skipped)} tests of helm, kustomize and actionlint were "
                                    f"skipped (not built): {TOOLS_HOW}.")
    if _cluster_skipped:
        terminalreporter.write_line(f"shardwise: {len(_cluster_skipped)} cluster tests were skipped (no control "
                                    "plane): build it with scripts/build-cluster.sh (`make cluster`), then "
                                    "`make test-cluster`.")
