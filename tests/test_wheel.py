"""The built wheel works on its own: install it into a fresh virtual environment and use a component.

The wheel is built from the working tree, installed with its ``pulumi`` extra into a new venv
(dependencies pinned to this environment's versions, so the package index or pip's cache serve
them), and a separate small Pulumi program, written to a temporary directory and run from there
(so the source tree is not on ``sys.path``), declares a ``VllmService`` under mocks.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]

PROGRAM = textwrap.dedent('''
    import json

    import pulumi
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    registered = []


    class Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args):
            registered.append({"type": args.typ, "name": args.name, "inputs": args.inputs})
            return f"{args.name}-id", dict(args.inputs)

        def call(self, args):
            return {}


    pulumi.runtime.set_mocks(Mocks(), project="wheel-check", stack="test", preview=False)


    def program(tp):
        from shardwise.components import VllmService, VllmServiceArgs
        from shardwise.rules.model.spec import EngineArgsSpec, NodePoolSpec

        pool = NodePoolSpec(name="l40s", instance_type="g6e.xlarge")
        engine = EngineArgsSpec(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=tp,
                                max_model_len=8192, max_num_seqs=16)
        VllmService("llama", VllmServiceArgs(name="llama", pool=pool, engine=engine, target_concurrency=16))


    _sync_await(run_pulumi_func(lambda: program(1)))
    try:
        program(2)
        refused = None
    except pulumi.InputPropertyError as e:
        refused = [e.property_path, e.reason]

    import shardwise
    import shardwise.components

    print(json.dumps({"shardwise": shardwise.__file__, "components": shardwise.components.__file__,
                      "registered": registered, "refused": refused}))
''')


def _run(cmd: list[str], cwd: pathlib.Path, timeout: int) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.mark.slow
def test_wheel_installs_and_serves_a_component(tmp_path):
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(dist)], tmp_path, 600)
    (wheel,) = dist.glob("shardwise-*.whl")

    constraints = tmp_path / "constraints.txt"
    constraints.write_text(_run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], tmp_path, 60))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, 60)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "-c", str(constraints), f"{wheel}[pulumi]"], tmp_path, 900)

    work = tmp_path / "program"
    work.mkdir()
    (work / "check.py").write_text(PROGRAM)
    result = json.loads(_run([str(python), "check.py"], work, 60).strip().splitlines()[-1])

    site = str(venv / "lib")
    assert result["shardwise"].startswith(site) and result["components"].startswith(site)
    assert not result["shardwise"].startswith(str(ROOT))
    types = [(r["type"], r["name"]) for r in result["registered"]]
    assert ("shardwise:vllm:VllmService", "llama") in types
    (dep,) = [r for r in result["registered"] if r["type"] == "kubernetes:apps/v1:Deployment"]
    container = dep["inputs"]["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][:1] == ["meta-llama/Llama-3.1-8B-Instruct"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}
    # the rules and the catalog data ship in the wheel: an 8B model at TP2 is refused
    assert result["refused"][0] == "engine.tensor_parallel_size"
    assert result["refused"][1].startswith("SW104: ")

    # the policy pack from the installed package: a pack directory bound to this environment, not to the
    # checkout's ../.venv; the language host's way of starting it serves the analyzer protocol
    pack = pathlib.Path(_run([str(venv / "bin" / "shardwise"), "policy-pack-dir", "--out", str(work / "pack")],
                             work, 60).strip())
    assert pack == work / "pack"
    runtime = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())["runtime"]
    assert runtime == {"name": "python", "options": {"toolchain": "pip", "virtualenv": str(venv)}}
    server = subprocess.Popen([str(python), "-m", "pulumi.policy", "127.0.0.1:1", str(pack)], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = server.stdout.readline().strip() if server.stdout else ""
        assert port.isdigit() and int(port) > 0, server.stderr.read() if server.stderr else port
    finally:
        server.kill()
        server.communicate(timeout=30)  # reaps it and closes both pipes

    # without the [pulumi] extra, importing the components says how to get them
    bare = tmp_path / "bare"
    _run([sys.executable, "-m", "venv", str(bare)], tmp_path, 60)
    _run([str(bare / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(constraints), str(wheel)], tmp_path, 900)
    out = subprocess.run([str(bare / "bin" / "python"), "-c", "import shardwise.components"], cwd=work,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: shardwise.components needs the Pulumi SDKs (pulumi is not installed): "
        "pip install 'shardwise[pulumi]'")
