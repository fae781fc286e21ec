"""A shell script that a vLLM container runs from a file mounted from a ConfigMap of the inputs
(adapters/k8s/configfile.py ``mounted_script``): Potabk/kthene (corpus33) keeps ``prefill.sh`` and ``decode.sh``,
each ``vllm serve`` after its exports, in a ConfigMap of ``config.yaml``, and its ``model_server.yaml`` mounts them
by subPath and runs ``bash -c "cd /workspace && ./prefill.sh"``. The script was never read (SW002: a command
shardwise cannot read; SW005 on the ConfigMap: "lint it together with the workload that mounts it", though it was).
It is now read as the container's own ``sh -c`` script. The fixture folder is
tests/fixtures/rules/SW204/configmap-script (its findings: configmap-script.expected)."""

from __future__ import annotations

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.k8s.configfile import config_maps_of, mounted_script, pods_of
from shardwise.rules.model import UNKNOWN

FOLDER = ROOT / "tests" / "fixtures" / "rules" / "SW204" / "configmap-script"
SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n"
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "scripts"},
              "data": {"start.sh": SCRIPT, "serve.py": "#!/usr/bin/env python3\nprint('vllm serve')\n",
                       "run.sh": "#!/usr/bin/env bash\n" + SCRIPT}}


def _script(argv: list[str], mount: dict[str, str], working_dir: str | None = None):
    container: dict[str, object] = {"name": "vllm", "volumeMounts": [{"name": "s", **mount}]}
    if working_dir is not None:
        container["workingDir"] = working_dir
    spec = {"volumes": [{"name": "s", "configMap": {"name": "scripts"}}], "containers": [container]}
    with config_maps_of([(CONFIG_MAP, None)]), pods_of({"metadata": {}}):
        return mounted_script(argv, container, spec)


@pytest.mark.parametrize(("argv", "mount", "working_dir", "runs"), [
    (["/bin/bash", "/scripts/start.sh"], {"mountPath": "/scripts"}, None, ["/scripts/start.sh"]),
    (["sh", "-e", "-o", "pipefail", "/scripts/start.sh", "--port", "9000"], {"mountPath": "/scripts"}, None,
     ["/scripts/start.sh", "--port", "9000"]),
    (["/scripts/run.sh"], {"mountPath": "/scripts/"}, None, ["/scripts/run.sh"]),
    (["/bin/bash", "-c", "cd /workspace && ./prefill.sh"],
     {"mountPath": "/workspace/prefill.sh", "subPath": "start.sh"}, None, ["/workspace/prefill.sh"]),
    (["bash", "-c", "set -x; source ../opt/start.sh"], {"mountPath": "/opt"}, "/app", ["/opt/start.sh"]),
    (["bash", "-lc", "exec ./start.sh"], {"mountPath": "/scripts"}, "/scripts", ["/scripts/start.sh"]),
])
def test_the_script_a_command_runs_from_a_mounted_configmap_is_read(argv, mount, working_dir, runs):
    found = _script(argv, mount, working_dir)
    assert found is not None and found[1] == runs and "vllm serve" in found[0]


@pytest.mark.parametrize(("argv", "mount", "working_dir"), [
    (["python3", "/scripts/serve.py"], {"mountPath": "/scripts"}, None),  # run by Python: no shell script
    (["/scripts/serve.py"], {"mountPath": "/scripts"}, None),  # its #! line names Python
    (["bash", "./start.sh"], {"mountPath": "/scripts"}, None),  # relative to the image's WORKDIR: not known
    (["bash", "-c", "$SCRIPTS/start.sh"], {"mountPath": "/scripts"}, None),  # a variable's path
    (["bash", "-c", "cd $HOME && ./start.sh"], {"mountPath": "/scripts"}, None),
    (["bash", "/other/start.sh"], {"mountPath": "/scripts"}, None),  # not the mounted file
    (["start.sh"], {"mountPath": "/scripts"}, "/scripts"),  # looked up in PATH, not the working directory
    (["bash", "-c", "vllm serve x"], {"mountPath": "/scripts"}, None),  # an inline script is the container's own
])
def test_a_command_that_runs_no_mounted_shell_script_reads_none(argv, mount, working_dir):
    assert _script(argv, mount, working_dir) is None


def _engines(inv) -> dict[str, tuple[object, object]]:
    return {g.name: (g.engine.tensor_parallel_size, g.engine.data_parallel_size) for g in inv.groups}


def test_the_fixture_folder_reads_each_script_and_drops_the_configmaps_sw005():
    inv = read_inputs([str(FOLDER)], jobs=1)
    assert _engines(inv) == {"qwen-prefill": (4, 2), "qwen-decode": (4, 1), "qwen-start": (2, 1),
                             "qwen-start-args": (4, 1)}
    unread = {i.subject for i in inv.launch_issues}
    # a Python program and a ConfigMap of another namespace stay unread (SW002); the ConfigMaps whose scripts
    # were read are no longer "not read: lint it together with the workload that mounts it" (SW005)
    assert unread == {"Deployment default/qwen-python", "Deployment staging/qwen-other-namespace"}


def test_the_scripts_file_alone_still_says_its_workload_is_not_in_the_inputs():
    inv = read_inputs([str(FOLDER / "scripts.yaml")], jobs=1)
    assert inv.groups == []
    assert sorted(i.subject for i in inv.launch_issues if i.mentioned) == ["ConfigMap default/start-scripts",
                                                                           "ConfigMap serving/pd-scripts"]


def test_the_workloads_file_alone_leaves_the_scripts_unread():
    inv = read_inputs([str(FOLDER / "workloads.yaml")], jobs=1)
    assert inv.groups == []
    assert len(inv.launch_issues) == 6 and not any(i.mentioned for i in inv.launch_issues)


def test_volumes_that_are_no_list_are_an_input_error_not_an_internal_one(tmp_path):
    """test_fuzz_yaml_inputs: a pod's ``volumes: 5`` beside a container that runs a mounted script was read by the
    script's look-up before the pod's reader refused it (TypeError: 'int' object is not iterable)."""
    path = tmp_path / "vllm.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      volumes: 5
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/bash", "/scripts/start.sh"]
          volumeMounts:
            - {name: s, mountPath: /scripts}
""", encoding="utf-8")
    inv = read_inputs([str(path)], jobs=1)
    assert [e.message for e in inv.errors] == ["spec.template.spec.volumes: expected a list, found a number"]


#: A start script that picks the server by the pod's role (the shape of kthene's prefill.sh/decode.sh in one file)
ROLE_SCRIPT = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: scripts, namespace: serving}
data:
  start.sh: |
    #!/bin/bash
    set -euo pipefail
    echo "--tensor-parallel-size 16 is what the H200 pool would take"
    if [ "${ROLE}" = "prefill" ]; then
      exec vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4 --port 8000
    else
      exec vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --port 8000
    fi
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: serving}
spec:
  replicas: 1
  selector: {matchLabels: {app: qwen}}
  template:
    metadata: {labels: {app: qwen}}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/bash", "/scripts/start.sh"]
          env: [{name: ROLE, value: decode}]
          resources: {limits: {nvidia.com/gpu: 2}}
          volumeMounts: [{name: scripts, mountPath: /scripts}]
      volumes: [{name: scripts, configMap: {name: scripts, defaultMode: 0755}}]
"""


def test_a_mounted_script_that_runs_one_of_two_servers_is_not_read_as_the_first(tmp_path):
    """review34: the script's first `vllm serve` (the prefill branch's TP4) was read as what runs, and the decode pod
    of 2 GPUs blocked on SW204 ("requests 2 nvidia.com/gpu but TP4×PP1 starts 4 workers") and SW401. The branches
    differ in the tensor-parallel size only: that is not known, the rest is read (an echo's words are no flags)."""
    from shardwise.rules.app.cli import main

    (tmp_path / "all.yaml").write_text(ROLE_SCRIPT, encoding="utf-8")
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [(g.name, g.engine.model, g.engine.tensor_parallel_size, g.engine.port) for g in inv.groups] == [
        ("qwen", "Qwen/Qwen2.5-7B-Instruct", UNKNOWN, 8000)]
    out = tmp_path / "r.json"
    assert main(["lint", str(tmp_path / "all.yaml"), "--format", "json", "--output", str(out)]) == 0
    import json

    findings = json.loads(out.read_text(encoding="utf-8"))["findings"]
    assert [f["code"] for f in findings if f["level"] == "mandatory"] == []
    assert [f["codes"] for f in findings if f["message"].startswith("SW104: cannot decide: tensor_parallel_size")] == [
        ["SW104", "SW106", "SW203", "SW204", "SW208", "SW401"]]
