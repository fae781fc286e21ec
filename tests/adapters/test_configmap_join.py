"""A vLLM workload's ConfigMap kept in another file of the inputs (adapters/k8s/configjoin.py): kustomization
folders keep ``configmap.yaml`` beside ``deployment.yaml`` (QuentinHamonic/llm-ops-sandbox's k8s/vllm, wide corpus
batch 15), and each file is read alone, so the ``$(VAR)`` flags, ``configMapKeyRef`` values and mounted ``--config``
file that come from it were unknown. They are joined once every input is read, by name in the pod's namespace
(unset is ``default``); two ConfigMaps of one name in one namespace stay ambiguous. The fixture folder is
tests/fixtures/rules/SW204/configmap-other-file (its findings: configmap-other-file.expected)."""

from __future__ import annotations

import shutil
import sys

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import PARALLEL_MIN_FILES, read_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, CrossRef

FOLDER = ROOT / "tests" / "fixtures" / "rules" / "SW204" / "configmap-other-file"
#: What each Deployment of the folder runs with its ConfigMaps joined: (namespace, TP, model).
JOINED = {
    "qwen-tp1-elsewhere": ("default", 1, "Qwen/Qwen2.5-1.5B-Instruct"),
    "qwen-tp2-elsewhere": ("default", 2, "Qwen/Qwen2.5-1.5B-Instruct"),
    "qwen-keyref": ("llm", 2, "Qwen/Qwen2.5-1.5B-Instruct"),
    "qwen-config-file": ("default", 2, "Qwen/Qwen2.5-1.5B-Instruct"),
    "qwen-twice": ("default", UNKNOWN, UNKNOWN),  # vllm-twice in both ConfigMap files: ambiguous
    "qwen-other-namespace": ("default", UNKNOWN, UNKNOWN),  # vllm-staging is only in namespace staging
}


def _runs(inv) -> dict[str, tuple[object, object, object]]:
    return {g.name: (g.namespace, g.engine.tensor_parallel_size, g.engine.model) for g in inv.groups}


def test_the_folder_read_together_joins_each_workload_to_its_configmap():
    inv = read_inputs([str(FOLDER)], jobs=1)
    assert _runs(inv) == JOINED
    assert [g.name for g in inv.groups] == list(JOINED)  # in the order of the file, not joined ones last


def test_the_deployment_file_alone_leaves_what_the_configmaps_hold_unknown():
    inv = read_inputs([str(FOLDER / "deployment.yaml")], jobs=1)
    assert {name: run[1] for name, run in _runs(inv).items()} == dict.fromkeys(JOINED, UNKNOWN)
    # only the workloads that missed a ConfigMap wait for the join, each naming what it missed
    refs = [(r.obj["metadata"]["name"], r.names) for r in inv.cross_refs]
    assert refs == [("qwen-tp1-elsewhere", ("vllm-openai-config",)), ("qwen-tp2-elsewhere", ("vllm-openai-tp2",)),
                    ("qwen-keyref", ("vllm-flags",)), ("qwen-config-file", ("vllm-serve-config",)),
                    ("qwen-twice", ("vllm-twice",)), ("qwen-other-namespace", ("vllm-staging",))]
    assert all(isinstance(r, CrossRef) and not r.done for r in inv.cross_refs)


def test_a_workload_whose_configmaps_are_in_its_file_waits_for_no_join():
    inv = read_inputs([str(ROOT / "tests" / "fixtures" / "rules" / "SW204" / "configmap-envfrom.yaml")], jobs=1)
    # qwen-envfrom-elsewhere names a ConfigMap no input holds: the only one kept for the join
    assert [r.obj["metadata"]["name"] for r in inv.cross_refs] == ["qwen-envfrom-elsewhere"]


def test_the_configmap_file_read_first_or_last_gives_the_same():
    inv = read_inputs([str(FOLDER / "deployment.yaml"), str(FOLDER / "configmap.yaml"),
                       str(FOLDER / "overlay-configmap.yaml")], jobs=1)
    first = read_inputs([str(FOLDER / "overlay-configmap.yaml"), str(FOLDER / "configmap.yaml"),
                         str(FOLDER / "deployment.yaml")], jobs=1)
    assert _runs(inv) == _runs(first) == JOINED


def test_without_the_overlay_copy_the_configmap_is_read():
    inv = read_inputs([str(FOLDER / "configmap.yaml"), str(FOLDER / "deployment.yaml")], jobs=1)
    assert _runs(inv)["qwen-twice"] == ("default", 2, "Qwen/Qwen2.5-1.5B-Instruct")


def test_a_copy_with_the_same_data_is_one_configmap(tmp_path):
    """A kustomize base's ConfigMap and its committed rendered copy (SecureCloudOps/llm-rag-infra-platform keeps
    ``k8s/vllm/configmap.yaml`` and ``rendered.yaml``): the same name, namespace and data twice is one value."""
    shutil.copy(FOLDER / "deployment.yaml", tmp_path / "deployment.yaml")
    shutil.copy(FOLDER / "configmap.yaml", tmp_path / "configmap.yaml")
    shutil.copy(FOLDER / "configmap.yaml", tmp_path / "rendered.yaml")
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert _runs(inv) == {**JOINED, "qwen-twice": ("default", 2, "Qwen/Qwen2.5-1.5B-Instruct")}


@pytest.mark.skipif(sys.platform != "linux", reason="reading in forked processes needs fork")
def test_two_reading_processes_join_as_one_does(tmp_path):
    """The ConfigMaps are in the last file and the Deployments in the first ones: with ``--jobs 2`` they are read
    in different processes' batches; the join runs on the merged inventory, so the workloads and the findings are
    the ones of ``--jobs 1``."""
    copies = PARALLEL_MIN_FILES
    for i in range(copies):
        text = (FOLDER / "deployment.yaml").read_text(encoding="utf-8").replace("namespace: llm", f"namespace: llm{i}")
        (tmp_path / f"{i:04d}-deployment.yaml").write_text(text, encoding="utf-8")
    flags = "\n".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vllm-flags\n  namespace: llm{i}\n"
                      f"data:\n  tp: \"{1 + i % 2}\"" for i in range(copies))
    (tmp_path / "zz-configmap.yaml").write_text((FOLDER / "configmap.yaml").read_text(encoding="utf-8") + flags,
                                                encoding="utf-8")
    shutil.copy(FOLDER / "overlay-configmap.yaml", tmp_path / "zz-overlay-configmap.yaml")
    one = read_inputs([str(tmp_path)], jobs=1)
    two = read_inputs([str(tmp_path)], jobs=2)
    keyref = [g.engine.tensor_parallel_size for g in one.groups if g.name == "qwen-keyref"]
    assert keyref == [1 + i % 2 for i in range(copies)]  # each namespace's own ConfigMap
    assert sum(g.engine.tensor_parallel_size == 2 for g in one.groups if g.name == "qwen-tp2-elsewhere") == copies
    assert [(g.name, g.namespace, g.location, g.engine.tensor_parallel_size) for g in two.groups] == [
        (g.name, g.namespace, g.location, g.engine.tensor_parallel_size) for g in one.groups]
    assert run_rules(ALL_RULES, two) == run_rules(ALL_RULES, one)
