"""benchmarks/bench_report.py: each further run of ``cli.main`` on the kept report writes what a fresh lint writes
(so what it times is the work after the rules of a real lint), and the probe leaves ``run.lint_report`` as it found
it. Not a timed test: no figure is compared."""

from __future__ import annotations

import sys

from repo_paths import ROOT
from shardwise.rules.app import cli, run

sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_report  # noqa: E402  (a script beside the benchmarks, not a package)
import gen_manifests  # noqa: E402


def test_a_run_on_the_kept_report_writes_what_a_fresh_lint_writes(tmp_path, capsys):
    folder = tmp_path / "m"
    gen_manifests.generate(str(folder), n=30, seed=2)
    fresh, probed = tmp_path / "fresh.json", tmp_path / "probed.sarif"
    assert cli.main(["lint", str(folder), "--jobs", "1", "--format", "json", "--output", str(fresh),
                     "--format", f"sarif={probed}.fresh"]) == 1
    real = run.lint_report
    assert bench_report.main(["2", "lint", str(folder), "--jobs", "1", "--format", "json", "--output",
                              str(tmp_path / "probed.json"), "--format", f"sarif={probed}"]) == 0
    assert run.lint_report is real
    assert (tmp_path / "probed.json").read_bytes() == fresh.read_bytes()
    assert probed.read_bytes() == (tmp_path / "probed.sarif.fresh").read_bytes()
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"lint {folder} --jobs 1 --format json --output {tmp_path / 'probed.json'} --format "
                           f"sarif={probed}: after the rules, CPU least ")
    assert line.endswith(" ms over 2 runs")
