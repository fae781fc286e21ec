"""The repository `shardwise diff` is tried on (tests/app/test_diff.py, tests/e2e/test_action.py) and the
copy of what it prints in docs/ci.md ("What a pull request changes").

The fixture change (tests/fixtures/diff/base → head): `main` holds the base, the working tree the head.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from repo_paths import FIXTURES, ROOT

DIFF = FIXTURES / "diff"
#: the page that shows the sample, between <!-- diff-sample:start/end --> markers
SAMPLE_PAGE = ROOT / "docs" / "ci.md"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def diff_repo(tmp_path: Path) -> Path:
    """A repository whose commit on `main` is the base; the working tree holds the head."""
    r = tmp_path / "repo"
    (r / "deploy").mkdir(parents=True)
    git(r, "init", "-q", "-b", "main")
    shutil.copy(DIFF / "base" / "serving.yaml", r / "deploy" / "serving.yaml")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "base")
    shutil.copy(DIFF / "head" / "serving.yaml", r / "deploy" / "serving.yaml")
    return r


def documented_sample() -> str:
    text = SAMPLE_PAGE.read_text(encoding="utf-8")
    m = re.search(r"<!-- diff-sample:start -->\n````markdown\n(.*?)````\n<!-- diff-sample:end -->", text, re.S)
    assert m, f"{SAMPLE_PAGE.name} has no diff sample between <!-- diff-sample:start/end --> markers"
    return m.group(1)
