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
                   "type-gpu-", "type-memory-", "plan-engine-arg-", "env-", "config-", "plan-version-newer",
                   "lint-image-tag-newer", "plan-model-control-char", "plan-model-not-utf8", "plan-option-newline",
                   "plan-base-model-unused"):
        assert any(case.startswith(prefix) for case in record), prefix
    assert record["type-gpu-negative"]["rc"] == 2
    # hostile6: a release newer than the table says what it is sized as; what was typed is echoed escaped
    assert record["plan-version-newer"]["rc"] == 0
    assert ("; vLLM 0.99.0, newer than the newest release the capacity model knows: sized as 0.34.0 (V1 engine)"
            in record["plan-version-newer"]["said"])
    assert record["plan-opt-12"] == {"rc": 2, "said": (
        "shardwise: error: --vllm-version '99999999999999999999.0.0' is not a vLLM release number (e.g. 0.11.0)")}
    assert record["plan-model-not-utf8"] == {"rc": 2, "said": (
        "shardwise: error: --model 'acme/x\\xffy' is no model id: it holds a byte that is not UTF-8")}
    assert record["config-is-a-directory"] == {"rc": 2, "said": (
        "shardwise: error: shardwise.toml: cannot read config file: it is a directory, not a regular file; "
        "shardwise reads only regular files")}
