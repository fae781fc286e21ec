"""``SHARDWISE_PACK_CPU_LOG``: the pack notes where its CPU time goes (its start's marks, its handlers by method) for
benchmarks/bench_engine.py, which splits a preview's pack process with it (``cpu_split``)."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest
from grpc_harness import ROOT, PackProcess
from pulumi.runtime.proto import analyzer_pb2
from shardwise.rules.app import pack_cpu

sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_engine  # noqa: E402  (a script beside the benchmarks, not a package)


class _Servicer:
    def Analyze(self, request, context):  # noqa: N802 - the protocol's name
        return f"analyzed {request}"

    def AnalyzeStack(self, request, context):  # noqa: N802
        if request == "fail":
            raise ValueError("refused")
        return "stack"


def test_the_handlers_are_counted_by_method_and_written_after_analyze_stack(tmp_path):
    log = pack_cpu.CpuLog(str(tmp_path / "cpu.json"))
    log.mark("entry", 0.1)
    log.mark("imported", 0.15)
    log.wrap(_Servicer)
    servicer = _Servicer()
    assert servicer.Analyze("a", None) == "analyzed a"
    assert servicer.Analyze("b", None) == "analyzed b"
    assert not (tmp_path / "cpu.json").exists()  # written after AnalyzeStack only
    with pytest.raises(ValueError, match="refused"):
        servicer.AnalyzeStack("fail", None)  # counted and written all the same
    assert servicer.AnalyzeStack("s", None) == "stack"
    written = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    assert written["marks"] == {"entry": 0.1, "imported": 0.15}
    assert sorted(written["methods"]) == ["Analyze", "AnalyzeStack"]  # the methods the class has
    assert [written["methods"]["Analyze"][0], written["methods"]["AnalyzeStack"][0]] == [2, 2]
    assert written["process_cpu"] > 0
    assert list(tmp_path.iterdir()) == [tmp_path / "cpu.json"]


def test_the_last_record_is_written_again_at_exit_with_the_cpu_then(tmp_path):
    log = pack_cpu.CpuLog(str(tmp_path / "cpu.json"))
    log.wrap(_Servicer)
    log.write_exit()
    assert not (tmp_path / "cpu.json").exists()  # nothing before an AnalyzeStack
    _Servicer().AnalyzeStack("s", None)
    before = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    log.write_exit()
    after = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in after.items() if k != "exit"} == before
    assert sorted(after["exit"]) == ["main_thread_cpu", "process_cpu"]
    assert after["exit"]["process_cpu"] >= before["process_cpu"]


def test_bench_engine_takes_what_the_pack_wrote_at_exit_where_the_watcher_read_less():
    log = {"process_cpu": 1.20, "exit": {"process_cpu": 1.23, "main_thread_cpu": 0.19}}
    assert bench_engine.seen_at_exit(log, 1.21, 0.18) == (1.23, 0.19)
    assert bench_engine.seen_at_exit(log, 1.25, 0.20) == (1.25, 0.20)
    assert bench_engine.seen_at_exit({"process_cpu": 1.2}, 1.21, 0.18) == (1.21, 0.18)
    assert bench_engine.seen_at_exit(None, 1.21, 0.18) == (1.21, 0.18)


def test_nothing_is_noted_without_the_variable():
    assert pack_cpu.from_environment({}) is None
    assert pack_cpu.from_environment({pack_cpu.ENV: ""}) is None
    assert pack_cpu.from_environment({pack_cpu.ENV: "/x/cpu.json"}).path == "/x/cpu.json"


def test_the_pack_writes_its_split_when_asked(tmp_path: Path):
    out = tmp_path / "cpu.json"
    with PackProcess(extra_env={pack_cpu.ENV: str(out)}) as pack:
        pack.handshake()
        pack.info()
        pack.stub.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest())
        written = json.loads(out.read_text(encoding="utf-8"))
        pack.proc.send_signal(signal.SIGINT)  # as the engine stops it: the record again, with the CPU at exit
        assert pack.proc.wait(10) == 0
    at_exit = json.loads(out.read_text(encoding="utf-8"))
    assert at_exit["exit"]["process_cpu"] >= written["process_cpu"]
    assert {k: v for k, v in at_exit.items() if k != "exit"} == written
    assert list(written["marks"]) == ["entry", "imported", "policies"]
    assert 0 < written["marks"]["entry"] < written["marks"]["imported"] <= written["marks"]["policies"]
    calls = {m: n for m, (n, _) in written["methods"].items() if n}
    assert calls == {"Handshake": 1, "GetAnalyzerInfo": 1, "AnalyzeStack": 1}


def test_bench_engine_splits_a_preview_with_the_log():
    log = {"marks": {"entry": 0.10, "imported": 0.15, "policies": 0.16},
           "methods": {"Analyze": [1122, 0.40], "AnalyzeStack": [1, 0.06], "ConfigureStack": [1, 0.01],
                       "Remediate": [0, 0.0]},
           "process_cpu": 1.20}
    split = bench_engine.cpu_split(log, total=1.25, main_thread=0.18)
    assert split is not None
    assert list(split) == list(bench_engine.SPLIT)
    assert {k: round(v, 6) for k, v in split.items()} == {
        "interpreter and Pulumi SDK": 0.10, "pulumi-policy and shardwise modules": 0.05, "policies": 0.01,
        "main thread's rest": 0.02, "Remediate": 0.0, "Analyze": 0.40, "AnalyzeStack": 0.06, "other calls": 0.01,
        "transport and wake-ups": 0.55, "shutdown": 0.05}
    assert bench_engine.cpu_split(None, 1.0, 0.1) is None


# ``go tool pprof -traces`` of the CLI's profiles (pulumi v3.276.0 ``preview --profiling``), in the listing's shape: a
# header, then each stack after a ``-----------+----`` rule, its value on its leaf's line (an allocation profile puts a
# ``bytes:`` label line first); frames abridged from a real preview's profile
_CPU_TRACES = """File: pulumi
Build ID: be51e51de50f4a8af639afd7038a3b88b76d54c3
Type: cpu
Time: 2026-12-06 10:48:27 UTC
Duration: 92.79s, Total samples = 57.87s (62.37%)
-----------+-------------------------------------------------------
      10ms   google.golang.org/protobuf/internal/impl.(*MessageInfo).sizePointerSlow
             google.golang.org/protobuf/proto.MarshalOptions.Size
             google.golang.org/grpc/encoding/proto.(*codecV2).Marshal
             google.golang.org/grpc.(*ClientConn).Invoke
             github.com/pulumi/pulumi/sdk/v3/proto/go.(*analyzerClient).Remediate
             github.com/pulumi/pulumi/pkg/v3/resource/plugin.(*analyzer).Remediate
             github.com/pulumi/pulumi/pkg/v3/resource/deploy.(*stepGenerator).generateSteps
-----------+-------------------------------------------------------
      20ms   runtime.mallocgc
             github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin.MarshalPropertyValue
             github.com/pulumi/pulumi/pkg/v3/resource/plugin.(*analyzer).Analyze
             github.com/pulumi/pulumi/pkg/v3/resource/deploy.analyzeResource.func1
-----------+-------------------------------------------------------
     1.20s   github.com/pulumi/pulumi/pkg/v3/resource/stack.SerializeProperties
             github.com/pulumi/pulumi/pkg/v3/resource/stack.SerializeResource
             github.com/pulumi/pulumi/pkg/v3/backend.(*SnapshotManager).Deployment
             github.com/pulumi/pulumi/pkg/v3/backend.(*SnapshotManager).saveSnapshot
             github.com/pulumi/pulumi/pkg/v3/backend.(*SnapshotManager).defaultServiceLoop
-----------+-------------------------------------------------------
     300ms   runtime.scanObject
             runtime.gcDrain
             runtime.gcBgMarkWorker.func2
             runtime.systemstack
             runtime.gcBgMarkWorker
-----------+-------------------------------------------------------
      10ms   github.com/pulumi/pulumi/pkg/v3/engine.(*eventEmitter).policyAnalyzeSummaryEvent
             github.com/pulumi/pulumi/pkg/v3/engine.(*policyEvents).OnPolicyAnalyzeSummary
-----------+-------------------------------------------------------
      30ms   google.golang.org/grpc/internal/transport.(*loopyWriter).run
             google.golang.org/grpc/internal/transport.(*http2Client).newClientTransportWithOptions.func6
-----------+-------------------------------------------------------
      40ms   gopkg.in/yaml%2ev3.yaml_parser_scan_plain_scalar
             gopkg.in/yaml%2ev3.(*parser).parse
-----------+-------------------------------------------------------
"""

_ALLOC_TRACES = """File: pulumi
Type: alloc_space
-----------+-------------------------------------------------------
     bytes:  72kB
  548.84kB   github.com/pulumi/pulumi/pkg/v3/resource/plugin.(*analyzer).AnalyzeStack
             github.com/pulumi/pulumi/pkg/v3/resource/deploy.(*stepGenerator).AnalyzeResources
-----------+-------------------------------------------------------
     bytes:  240B
       2MB   github.com/pulumi/pulumi/pkg/v3/resource/stack.SerializeProperties
             github.com/pulumi/pulumi/pkg/v3/backend.(*SnapshotManager).saveSnapshot
-----------+-------------------------------------------------------
"""


def test_the_cli_profile_is_split_by_what_the_engine_was_doing():
    split = bench_engine.profile_split(_CPU_TRACES)
    parts = [name for name, _ in bench_engine.CLI_SPLIT]
    assert list(split) == parts
    got = {name: round(seconds, 6) for name, seconds in split.items()}
    assert got == {
        "Remediate per resource (marshal, call, answer)": 0.01,
        "Analyze per resource (marshal, call, answer)": 0.02,
        "AnalyzeStack (collect, marshal, call)": 0.0,
        "the pack's start, handshake, info and config": 0.0,
        "policy events (summaries, violations: engine, display)": 0.01,
        "the in-memory snapshot's saves (serialised whole at each mutation)": 1.2,
        "the garbage collector's background work": 0.3,
        "gRPC and HTTP/2 outside the calls above (all plugins)": 0.03,
        "everything else (program, providers, steps, display, runtime)": 0.04,
    }
    assert round(sum(split.values()), 6) == 1.61  # every sample counted once


def test_an_allocation_profile_is_split_in_bytes_past_its_label_lines():
    split = bench_engine.profile_split(_ALLOC_TRACES)
    assert split["AnalyzeStack (collect, marshal, call)"] == 548.84e3
    assert split["the in-memory snapshot's saves (serialised whole at each mutation)"] == 2e6
    assert sum(split.values()) == 548.84e3 + 2e6
