"""fuzz22: a ``name`` that is no string (a list or a mapping, where Kubernetes takes a string) in an env entry, a
volume mount, a runtime's volume or a ModelService container was used where names are matched (a set, a dict key):
``TypeError: unhashable type`` out of the reader, an internal error for the whole file. Such a name names nothing;
the pod's reader says what is wrong with it (an input error), and the run fails closed (exit 2).

Each case is a real file of the corpus with the one name mutated as the fuzz campaign (seed 8202) did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shardwise.rules.app.cli import main

WIDE = Path(__file__).resolve().parents[1] / "corpus" / "wide"


def mutated(rel: str, old: str, new: str, extra: str = "") -> str:
    text = (WIDE / rel).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    return text.replace(old, new) + extra


MSVC = "llm-d__llm-d-model-service/samples__nixl-xpyd__facebook-nixl.yaml"
BASE = "---\n" + (WIDE / "llm-d__llm-d-model-service/samples__nixl-xpyd__universal-baseconfig-hf.yaml").read_text(
    encoding="utf-8")

CASES = {
    # an env entry's name a mapping: command_texts' declared names (runs_ray reads every container)
    "env-name-mapping": (mutated(
        "jkershawrh__fleet-llm-d/deploy__brutus__vllm-gpu-inference.yaml", "            - name: HOME\n",
        "            - name: {HOME: 1}\n"), "env[0].name: expected a string, found a mapping"),
    # a volume mount's name a list, where the command names a mounted path: mounted_config's volume lookup
    "mount-name-list": (mutated(
        "ai-on-gke__tutorials-and-examples/nemo-rl-on-gke__gemma3-27b-it__nvidia-vllm-post-trained-gemma3-27-deploy"
        ".yaml", "          name: dshm\n", "          name: [dshm]\n"), "volumeMounts[0].name: expected a string"),
    # a ServingRuntime's volume named by a list, beside the predictor's own volumes: the runtime's pod fields merged
    "runtime-volume-name-list": (mutated(
        "cfchase__basic-kserve-vllm/sample-deployments__granite.yaml", "      name: shm\n---",
        "      name: [shm]\n---").replace(
        "    tolerations:\n", "    volumes:\n      - name: cache\n        emptyDir: {}\n    tolerations:\n"),
        "name: expected a string, found a list"),
    # a ModelService's container named by a list: merged by name into its base ConfigMap's template's containers
    "modelservice-container-name-list": (mutated(
        MSVC, '    containers:\n    - name: "vllm"\n', '    containers:\n    - name: ["vllm"]\n', BASE),
        "name: expected a string, found a list"),
    # a ModelService container's env entry named by a list: merged by name into the template container's env
    "modelservice-env-name-list": (mutated(
        MSVC, '    - name: "vllm"\n      args:\n', '    - name: "vllm"\n      env:\n        - name: [UCX_TLS]\n'
        '          value: "cuda_ipc"\n      args:\n', BASE), "name: expected a string, found a list"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_name_that_is_no_string_is_an_input_error_not_an_internal_one(case, tmp_path, capsys, monkeypatch):
    text, said = CASES[case]
    (tmp_path / "in.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc = main(["lint", "--format", "json", "in.yaml"])
    out, err = capsys.readouterr()
    messages = [e["message"] for e in json.loads(out)["input_errors"]]
    assert (rc, "internal error" in err) == (2, False)
    assert any(said in m for m in messages), messages

