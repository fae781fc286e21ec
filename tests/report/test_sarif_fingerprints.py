"""SARIF ``partialFingerprints``: what GitHub code scanning keys an alert on across runs, so it must hold where a
line moves and tell two objects apart (mend6: without it, alerts were matched by location only)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from repo_paths import FIXTURES, SCHEMAS
from shardwise.rules.app.cli import main
from shardwise.rules.app.run import render
from shardwise.rules.engine import Finding
from shardwise.rules.model import Inventory, Location
from shardwise.rules.report import Report
from shardwise.rules.report.sarif import FINGERPRINT

SCHEMA = json.loads((SCHEMAS / "sarif-2.1.0-trimmed.json").read_text(encoding="utf-8"))


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "models"
    shutil.copytree(FIXTURES / "baseline", root)  # a Deployment, a LeaderWorkerSet, a Namespace, a ConfigMap
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def results(repo: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    main(["lint", "deploy", "--format", "sarif=r.sarif"])
    capsys.readouterr()
    doc = json.loads((repo / "r.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    return doc["runs"][0]["results"]


def keyed(rs: list[dict]) -> dict[tuple[str, str, str], tuple[str, int]]:
    """(rule, object, message) → (fingerprint, line)."""
    out = {(r["ruleId"], r["properties"]["subject"], r["message"]["text"]):
           (r["partialFingerprints"][FINGERPRINT], r["locations"][0]["physicalLocation"]["region"]["startLine"])
           for r in rs}
    assert len(out) == len(rs)
    return out


def expected(*parts: str | None) -> str:
    text = "\x1f".join(p if p is not None else "\x00" for p in parts)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def test_the_fingerprint_holds_where_lines_move_and_differs_between_objects(repo, capsys):
    before = keyed(results(repo, capsys))
    assert len(before) == 15
    # every result its own alert: two objects (llama-70b, llama-405b) with the same rule and container differ
    assert len({fp for fp, _ in before.values()}) == 15
    assert all(fp.endswith(":1") for fp, _ in before.values())
    one = next(v for k, v in before.items() if k[:2] == ("SW106", "Deployment serving/llama-70b"))
    assert one[0] == expected("SW106", "Deployment serving/llama-70b", "", "deploy/security.yaml", None) + ":1"
    vllm = {k[1]: fp for k, (fp, _) in before.items() if k[0] == "SW309" and "hostNetwork" not in k[2]
            and "hostIPC" not in k[2] and "NET_RAW" not in k[2] and "SYS_ADMIN" not in k[2]}
    assert set(vllm) == {"Deployment serving/llama-70b", "LeaderWorkerSet serving/llama-405b"}
    assert len(set(vllm.values())) == 2
    # a comment block above each file's objects: every line moves by 4, no fingerprint moves
    for path in (repo / "deploy").iterdir():
        path.write_text("# reviewed\n# owner: serving\n---\n# moved\n" + path.read_text(encoding="utf-8"),
                        encoding="utf-8")
    after = keyed(results(repo, capsys))
    assert set(after) == set(before)
    assert {k: (fp, line + 4) for k, (fp, line) in before.items()} == after


def test_two_findings_with_one_identity_are_told_apart_by_their_order():
    """Two findings of one rule on one object, that name nothing apart (the baseline counts them)."""
    at = [Location("deploy/a.yaml", 10), Location("deploy/a.yaml", 30)]
    fs = [Finding("SW206", "pool-unknown", "advisory", "medium", "cannot size", loc, "Deployment serving/a")
          for loc in at]
    rs = json.loads(render(Report(fs, Inventory(sources=["deploy/a.yaml"])), "sarif"))["runs"][0]["results"]
    key = expected("SW206", "Deployment serving/a", "", "deploy/a.yaml", None)
    assert [r["partialFingerprints"] for r in rs] == [{FINGERPRINT: f"{key}:1"}, {FINGERPRINT: f"{key}:2"}]
