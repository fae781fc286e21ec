"""benchmarks/bench_split_bound.py: its bound lints the same workloads as ``shardwise lint`` and finds no more than it
(each batch checked against its own facts only, the whole-inventory rules over no groups), and the driver prints a
line per run and the medians. Not a timed test: no figure is compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repo_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_split_bound  # noqa: E402  (a script beside the benchmarks, not a package)
import gen_manifests  # noqa: E402

SCRIPT = str(ROOT / "benchmarks" / "bench_split_bound.py")


def _probe(mode: str, folder: str, out: str) -> str:
    done = subprocess.run([sys.executable, SCRIPT, "--probe", mode, folder, out], capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if x.startswith(bench_split_bound._MARK)]
    return line


def test_the_bound_lints_the_same_workloads_and_finds_no_more(tmp_path):
    folder = tmp_path / "m"
    gen_manifests.generate(str(folder), n=40, seed=3)
    real_line = _probe("real", str(folder), str(tmp_path / "real.json"))
    bound_line = _probe("bound", str(folder), str(tmp_path / "bound.json"))
    real = json.loads((tmp_path / "real.json").read_text())
    bound = json.loads((tmp_path / "bound.json").read_text())
    assert real["summary"]["workloads"] == bound["summary"]["workloads"] == 40
    assert bound["workloads"] == real["workloads"]  # the summaries, made where each group was sized
    key = [(f["file"], f["line"], f["code"], f["subject"], f["message"]) for f in real["findings"]]
    found = [(f["file"], f["line"], f["code"], f["subject"], f["message"]) for f in bound["findings"]]
    assert set(found) <= set(key)
    assert real_line.split()[1] == "real" and bound_line.split()[1] == "bound"
    assert bound_line.endswith(f"bound ({len(found)} findings)")


def test_the_driver_prints_each_run_and_the_medians(tmp_path, capsys):
    folder = tmp_path / "m"
    gen_manifests.generate(str(folder), n=6, seed=1)
    assert bench_split_bound.main([str(folder), "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [x.split()[:3] for x in lines] == [["round", "1", "real"], ["round", "1", "bound"],
                                             ["median", "real", "wall"], ["median", "bound", "wall"]]
