"""The real-shapes corpus of ``benchmarks/gen_corpus.py``: deterministic, and its ground truth holds for
what the input layer decides (files that are no input are skipped, broken documents are errors on
their line, every other document is read)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs

sys.path.insert(0, str(ROOT / "benchmarks"))

import gen_corpus  # noqa: E402  (a script beside the benchmarks, not a package)


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("corpus")
    gen_corpus.generate(str(out), repos=12, seed=2)  # every shape at least once (6 platforms, twice)
    return out, json.loads((out / "corpus.json").read_text())


def test_the_corpus_is_deterministic(corpus, tmp_path):
    out, entries = corpus
    gen_corpus.generate(str(tmp_path), repos=12, seed=2)
    assert _digest(tmp_path / "repos") == _digest(out / "repos")
    assert {e["shape"] for e in entries} == {*gen_corpus.SHAPES, "not-an-input"}


def test_files_that_are_no_input_are_skipped_and_nothing_else(corpus):
    out, entries = corpus
    inv = read_inputs([str(out / "repos")], jobs=1)
    skipped = sorted(str(Path(f).relative_to(out / "repos")) for f, _ in inv.skipped_files)
    assert skipped == sorted(e["file"] for e in entries if not e["input"])


def test_the_broken_documents_are_the_only_input_errors(corpus):
    out, entries = corpus
    inv = read_inputs([str(out / "repos")], jobs=1)
    got = sorted((str(Path(e.file).relative_to(out / "repos")),
                  e.message.removeprefix("cannot parse YAML: ").split(":")[0].strip()) for e in inv.errors)
    expected = []
    for e in entries:
        if e["shape"] == "helm-output-broken-secret":
            expected.append((e["file"], "a template placeholder {{ … }} is not YAML; render the template first (helm "
                                        "template …)"))
        elif e["shape"] == "helm-output-duplicate-key":
            expected.append((e["file"], "duplicate key 'VLLM_LOGGING_LEVEL' (first written on line "
                                        f"{_line(out, e['file'], 'VLLM_LOGGING_LEVEL')})"))
    assert sum(e["broken"] for e in entries) == len(expected) > 0
    assert got == sorted(expected)


def _line(out: Path, rel: str, key: str) -> int:
    lines = (out / "repos" / rel).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip().startswith(key + ":"))
