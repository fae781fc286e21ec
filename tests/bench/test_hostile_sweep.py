"""The hostile-input sweep of ``benchmarks/hostile_sweep.py`` (hostile5): every class it builds (YAML bombs,
bytes that are not UTF-8, links, FIFOs and sockets, values of the wrong type, broken config files, odd
environments, ``plan`` options and ``--engine-arg`` garbage) ends with the exit status and the words recorded in
tests/fixtures/hostile/sweep.expected.json, never a hang, a traceback or a silent pass.

Regenerate the record after a deliberate change of wording, and read its diff::

    .venv/bin/python benchmarks/hostile_sweep.py --write tests/fixtures/hostile/sweep.expected.json
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from repo_paths import ROOT

RECORD = ROOT / "tests" / "fixtures" / "hostile" / "sweep.expected.json"


@pytest.mark.slow  # about 150 runs of the CLI as their own processes: a minute or two
def test_every_hostile_class_ends_as_recorded():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hostile_sweep.py"), "--check", str(RECORD)],
                       capture_output=True, text=True, timeout=1800, cwd=ROOT)
    totals = json.loads(r.stdout.splitlines()[-1])
    assert totals["failures"] == [], r.stdout
    assert r.returncode == 0
    assert totals["cases"] == len(json.loads(RECORD.read_text(encoding="utf-8"))) + totals["skipped"]


def test_the_record_holds_every_class_the_task_names():
    """The record is the sweep's: a class dropped from the script (or never written) fails here, not silently."""
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    for prefix in ("yaml-alias-bomb", "yaml-deep-", "yaml-huge-scalar", "bytes-binary", "bytes-invalid-utf8",
                   "bytes-utf16le-bom", "bytes-nul-", "bytes-crlf", "bytes-mixed-line-ends", "yaml-duplicate-key",
                   "yaml-merge-key", "yaml-python-tag", "yaml-custom-tag", "yaml-multidoc-junk", "json-manifest",
                   "helm-unrendered", "fs-symlink-loop", "fs-symlink-dangling", "fs-socket", "fs-fifo",
                   "fs-device-", "fs-dir-named-yaml", "fs-long-path", "type-image-float", "type-replicas-string",
                   "type-gpu-", "type-memory-", "plan-engine-arg-", "env-", "config-"):
        assert any(case.startswith(prefix) for case in record), prefix
    assert record["type-gpu-negative"]["rc"] == 2
    assert record["config-is-a-directory"] == {"rc": 2, "said": (
        "shardwise: error: shardwise.toml: cannot read config file: it is a directory, not a regular file; "
        "shardwise reads only regular files")}
