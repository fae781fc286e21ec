"""``SHARDWISE_PACK_CPU_LOG``: the pack notes where its CPU time goes (its start's marks, its handlers by method) for
benchmarks/bench_engine.py, which splits a preview's pack process with it (``cpu_split``)."""

from __future__ import annotations

import json
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
