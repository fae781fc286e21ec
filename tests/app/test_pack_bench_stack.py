"""The pack's per-request caches change no finding: the benchmark's 1,000-resource stack gets exactly the
diagnostics the pack reported before them.

``tests/fixtures/pack/bench-stack-1000.json`` holds every diagnostic (policy, level, code, URN, message,
description) that the pack of commit f08213b (pulumi-policy's servicer reading every resource again for
each policy) reported for ``benchmarks/bench_pack.py``'s stack, in three requests: the engine's order
(``Analyze`` of each resource, then ``AnalyzeStack``), ``AnalyzeStack`` again in the same process, and
``AnalyzeStack`` alone in a fresh process (no inputs seen: the security groups' computed rules fail closed).
SW106's message has since said which of its figures are central estimates (newuser5), and each "cannot decide"
message ends with what decides it (decide46: ``: lint the `pulumi up` state, or write the value as a literal``
appended to the 36 that lacked it), and where a variant holds the load only within the estimate's error band SW106
gives the band's ends and says it may not hold it (mend8: its 33 notes here), and SW404 says "in production" and
what made it so, the stack's ``<project>:environment`` config (mend10: its 33 notes), by the key the stack writes,
``shardwise:environment`` (mend24); nothing else moved.
The stack is the prod stack's resources in URN order, copied until there are 1,000: its last copy is cut
short, so a node group there names subnets that are not in the stack (SW303, undecided and blocking).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys

import pytest
from grpc_harness import PackProcess
from pulumi_mocks import engine_config
from repo_paths import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_pack import big_stack  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("pack_transport")]  # each of the pack's transports

EXPECTED = json.loads((FIXTURES / "pack" / "bench-stack-1000.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def stack():
    return big_stack(1000)


def _plain(diagnostics) -> list[dict]:
    return [dataclasses.asdict(d) for d in diagnostics]


def test_the_benchmark_stack_is_the_same_every_time(stack):
    _, resources = stack
    n = sum(1 for r in resources if not re.search(r"-c[0-9]+$", r.urn))  # the prod stack's own resources
    base = [r.urn for r in resources[:n]]
    assert len(resources) == 1000 and base == sorted(base)  # in URN order
    copies, rest = divmod(1000, n)
    for c in range(1, copies):
        assert [r.urn for r in resources[c * n:(c + 1) * n]] == [f"{u}-c{c}" for u in base]
    assert [r.urn for r in resources[copies * n:]] == [f"{u}-c{copies}" for u in base[:rest]]  # cut short
    assert len({r.urn for r in resources}) == 1000


def test_engine_order_and_a_second_analyze_stack_report_exactly_what_they_did(stack):
    config, resources = stack
    with PackProcess(stack="prod", config=engine_config(config)) as pack:
        run = pack.run(resources)
        again = pack.analyze_stack(resources)
        assert [m for level, m in pack.engine.logs if level >= 3] == []
    assert _plain(run) == EXPECTED["run"]
    assert _plain(again) == EXPECTED["stack_again"]


def test_analyze_stack_alone_reports_exactly_what_it_did(stack):
    config, resources = stack
    with PackProcess(stack="prod", config=engine_config(config)) as pack:
        pack.handshake()
        pack.configure_stack()
        pack.info()
        only = pack.analyze_stack(resources)
    assert _plain(only) == EXPECTED["stack_only"]


def test_the_expected_diagnostics_are_these():
    """What the fixture holds, counted: a change to it shows here too."""
    def count(key: str) -> dict[tuple[str, str, str], int]:
        out: dict[tuple[str, str, str], int] = {}
        for d in EXPECTED[key]:
            k = (d["policy"], d["level"], d["code"])
            out[k] = out.get(k, 0) + 1
        return out

    notes = {("shardwise-stack-notes", "advisory", "SW106"): 11, ("shardwise-stack-notes", "advisory", "SW404"): 11,
             ("gpu-nodes-in-public-subnet", "mandatory", "SW303"): 1}
    assert count("run") == count("stack_again") == notes
    assert count("stack_only") == {**notes, ("runtime-port-exposed", "mandatory", "SW301"): 22,
                                   ("efa-without-self-referencing-security-group", "mandatory", "SW302"): 11}
    [sw303] = [d for d in EXPECTED["run"] if d["code"] == "SW303"]
    assert sw303["urn"].endswith("::prod-cluster-system-c11")
    assert sw303["message"] == ("SW303: cannot decide: a subnet of node pool `prod-cluster-system-c11` is not known "
                                "(a computed value or an unresolved reference): lint the `pulumi up` state, or write "
                                "the value as a literal")


def test_the_sdk_proxies_read_back_to_the_dict_they_wrap(stack):
    """The pack reads AnalyzeStack's resources as the SDK deserializes them, without its proxies: reading a
    proxy back (``raw``) gives the same dict, unknown values included."""
    from google.protobuf import json_format
    from pulumi_policy.deserialize import deserialize_properties
    from pulumi_policy.proxy import unknown_checking_proxy
    from shardwise.rules.__main__ import raw

    _, resources = stack
    request = PackProcess.stack_request(_DryRun(), resources)  # type: ignore[arg-type]
    seen_unknown = False
    for r in request.resources:
        props = deserialize_properties(json_format.MessageToDict(r.properties))
        assert raw(unknown_checking_proxy(props)) == props
        seen_unknown = seen_unknown or "04da6b54-80e4-46f7-96ec-b56ff0331ba9" in json.dumps(props)
    assert seen_unknown


class _DryRun:
    dry_run = True
