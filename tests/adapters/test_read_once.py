"""A run reads each file once (hostile18 found a run whose GitOps object builds a kustomization reading every file
three times: to find the object, to plan its sources, and again without the folder it builds).

The repository is tests/fixtures/gitops/llm-platform (Argo CD Applications and Flux objects in the shape GitOps
repositories have; its Flux Kustomization `summarize` builds deploy/summarize). The renderer is a stand-in, so the
test needs neither helm nor kustomize: what is counted is the reading of files, not the tools'.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import _reread, load, read_inputs, yamlsrc
from shardwise.rules.model import Inventory

FIXTURE = os.path.join(ROOT, "tests/fixtures/gitops/llm-platform")


class Renders:
    """A renderer that renders nothing and remembers what it was asked to."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def kustomize_build(self, folder: str, namespace: str | None = None) -> Inventory:
        self.asked.append(os.path.relpath(folder))
        return Inventory()

    def helm_release(self, folder: str, *args: object, **kwargs: object) -> Inventory:
        self.asked.append(os.path.relpath(folder))
        return Inventory()


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    root = tmp_path / "llm-platform"
    shutil.copytree(FIXTURE, root)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/llm-platform.git"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture()
def reads(monkeypatch):
    """How many times each file's bytes were read through the reader's one way in (read_text)."""
    counted: Counter[str] = Counter()
    real = yamlsrc.read_file_bytes

    def counting(path: str, *args: object, **kwargs: object) -> bytes:
        counted[path] += 1
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yamlsrc, "read_file_bytes", counting)
    return counted


def test_a_gitops_run_that_builds_a_kustomization_reads_each_file_once(repo, reads):
    renders = Renders()
    inv = read_inputs(["."], jobs=1, render=renders)  # type: ignore[arg-type]
    assert "deploy/summarize" in renders.asked  # the rebuild without the built folder was taken
    assert reads, "nothing was read"
    assert {f: n for f, n in reads.items() if n != 1} == {}
    assert "clusters/prod/summarize.yaml" in reads and "apps/root.yaml" in reads
    assert "deploy/summarize/deployment.yaml" not in inv.sources  # judged as built, not one by one


def test_a_file_changed_during_the_run_is_read_again(repo, reads):
    with load.run_memo():
        first = load.load_file("apps/root.yaml")
        assert load.load_file("apps/root.yaml") is first
        with open("apps/root.yaml", "a", encoding="utf-8") as fh:
            fh.write("# a comment added\n")
        load.load_file("apps/root.yaml")
    assert reads["apps/root.yaml"] == 2
    load.load_file("apps/root.yaml")  # no memo outside a run
    assert reads["apps/root.yaml"] == 3


def test_batches_read_by_other_processes_are_taken_whole_where_they_lose_no_file(tmp_path, reads):
    files = []
    for i in range(4):
        f = tmp_path / f"cm{i}.yaml"
        f.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\ndata:\n  a: b\n")
        files.append(str(f))
    kept_piece, lost_piece = Inventory(sources=["kept batch, as read"]), Inventory(sources=["lost batch, as read"])
    pieces = [(files[:2], kept_piece), (files[2:], lost_piece)]
    inv = _reread(files, lambda f: not f.endswith("cm3.yaml"), pieces)
    assert inv.sources == ["kept batch, as read", files[2]]
    assert dict(reads) == {files[2]: 1}


def test_over_several_processes_only_a_batch_that_loses_a_file_is_read_again(repo, tmp_path, monkeypatch):
    """Two reading processes, batches of 4 files: each file read once, in whichever process read its batch, but for
    the kept files of a batch a child read and the build took a file of (nothing says which process reads which
    batch, so which those are is not fixed). The inventory is the one a single process reads."""
    import shardwise.rules.adapters as adapters
    from shardwise.rules.engine.forked import batches

    log = tmp_path / "reads.log"
    real = yamlsrc.read_file_bytes

    def logging(path: str, *args: object, **kwargs: object) -> bytes:
        with open(log, "a", encoding="utf-8") as fh:  # one short append a line: whole across processes
            fh.write(path + "\n")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    one = read_inputs(["."], jobs=1, render=Renders())  # type: ignore[arg-type]
    monkeypatch.setattr(yamlsrc, "read_file_bytes", logging)
    monkeypatch.setattr(adapters, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(adapters, "_BATCH_FILES", 4)
    renders = Renders()
    two = read_inputs(["."], jobs=2, render=renders)  # type: ignore[arg-type]
    assert "deploy/summarize" in renders.asked
    files = adapters.select_inputs(["."]).files
    counted = Counter(f for f in log.read_text(encoding="utf-8").splitlines() if not os.path.isabs(f))
    assert set(counted) == set(files)  # and the built kustomization's own file, by its absolute path, once
    lost = {f for start, stop in batches(len(files), 2, 4, adapters._LEAST_FILES) for f in files[start:stop]
            if any(g.startswith("deploy/summarize/") for g in files[start:stop])
            and not f.startswith("deploy/summarize/")}
    assert {f for f, n in counted.items() if n > 1} <= lost and max(counted.values()) <= 2
    assert (sorted(two.sources), sorted(two.skipped_files), [str(e) for e in two.errors]) == (
        sorted(one.sources), sorted(one.skipped_files), [str(e) for e in one.errors])
