"""What `make dist` builds works on its own: install it into fresh virtual environments and use it.

`scripts/build-dist.sh` (what `make dist` runs) builds the sdist, from it the Linux wheel with the compiled
YAML reader (setuptools-rust, abi3, `auditwheel repair`) and the pure-Python wheel, into a temporary folder.
Each wheel is installed into a new venv with its dependencies from the package index (pinned to this
environment's versions, so the index or pip's cache serve them); the programs run from a temporary
directory, so the source tree is not on ``sys.path``:

- the Linux wheel with the ``pulumi`` extra lints the repository's examples and stacks with the compiled
  reader (every YAML file read by it) and prints what the checkout prints; a Pulumi program declares a
  ``VllmService`` under mocks; ``policy-pack-dir`` writes a pack whose launcher serves the analyzer
  protocol, and the pack's own ``venv`` gets its requirements.txt (the wheel from the dist folder, the
  rest from the index), as CrossGuard installs a published pack, and serves it from there;
- the pure-Python wheel alone lints the same files with the Python reader, with the same output; its
  ``policy-pack-dir`` and ``shardwise.components`` say what to install.

Without cargo it is skipped (with ``SHARDWISE_REQUIRE_NATIVE=1``, as in CI, it fails).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import textwrap
import zipfile

import pytest
import yaml
from repo_paths import ROOT

from shardwise import __version__

#: Run inside an installed venv: lint, counting the files the compiled reader read (and gave back).
LINT = textwrap.dedent('''
    import json, sys
    from shardwise.rules.adapters import yamlsrc
    from shardwise.rules.app.cli import main

    fast = yamlsrc._fast
    calls = {"compiled": 0, "fell back": 0}
    if fast is not None:
        load = fast.load

        class Counting:
            def load(self, *args):
                got = load(*args)
                calls["compiled" if got is not None else "fell back"] += 1
                return got

        yamlsrc._fast = Counting()
    rc = main(sys.argv[1:])
    print(json.dumps({"rc": rc, "reader": getattr(fast, "__file__", None), "calls": calls}), file=sys.stderr)
''')

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

        # four L40S a node: on a one-GPU g6e.xlarge the TP2 pods never schedule, and SW201 is the finding that
        # blocks there (readers20: the sharding judged on that pool is advisory beside it)
        pool = NodePoolSpec(name="l40s", instance_type="g6e.12xlarge")
        engine = EngineArgsSpec(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=tp,
                                max_model_len=8192, max_num_seqs=16)
        # meta-llama is gated: the Hugging Face token's Secret is made elsewhere (External Secrets, say)
        VllmService("llama", VllmServiceArgs(name="llama", pool=pool, engine=engine, target_concurrency=16,
                                             hf_token_secret_exists=True))


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



def _venv(path: pathlib.Path, constraints: pathlib.Path, *requirements: str,
          find_links: pathlib.Path | None = None) -> pathlib.Path:
    _run([sys.executable, "-m", "venv", str(path)], path.parent, 60)
    python = path / "bin" / "python"
    more = ["--find-links", str(find_links)] if find_links else []
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", str(constraints), *more,
          *requirements], path.parent, 900)
    return python


def _lint(python: pathlib.Path, cwd: pathlib.Path, *args: str) -> tuple[str, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SHARDWISE_PURE_YAML")}
    out = subprocess.run([str(python), "-c", LINT, "lint", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=300, env=env)
    return out.stdout, json.loads(out.stderr.strip().splitlines()[-1])


def _checkout_lint(cwd: pathlib.Path, *args: str) -> tuple[int, str]:
    """The same lint by this checkout, with the Python reader."""
    out = subprocess.run([sys.executable, "-m", "shardwise.rules.app.cli", "lint", *args], cwd=cwd, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "SHARDWISE_PURE_YAML": "1"})
    return out.returncode, out.stdout


def _serves(argv: list[str], cwd: pathlib.Path) -> int:
    """Start a pack as the engine does (its address first) and return the port it prints."""
    server = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = server.stdout.readline().strip() if server.stdout else ""
        assert port.isdigit() and int(port) > 0, server.stderr.read() if server.stderr else port
        return int(port)
    finally:
        server.kill()
        server.communicate(timeout=30)  # reaps it and closes both pipes


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> pathlib.Path:
    if shutil.which("cargo") is None:
        if os.environ.get("SHARDWISE_REQUIRE_NATIVE", "") not in ("", "0"):
            pytest.fail("SHARDWISE_REQUIRE_NATIVE is set but cargo is not installed: make dist needs it")
        pytest.skip("cargo is not installed: the Linux wheel carries the compiled YAML reader (install Rust)")
    out = tmp_path_factory.mktemp("dist")
    _run(["bash", str(ROOT / "scripts" / "build-dist.sh"), sys.executable, str(out)], ROOT, 1800)
    return out


@pytest.fixture(scope="module")
def constraints(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("constraints") / "constraints.txt"
    path.write_text(_run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], ROOT, 60))
    return path


@pytest.mark.slow
def test_make_dist_builds_the_sdist_and_two_wheels(dist):
    names = sorted(p.name for p in dist.iterdir())
    assert len(names) == 3, names
    native, pure, sdist = names
    assert sdist == f"shardwise-{__version__}.tar.gz"
    assert pure == f"shardwise-{__version__}-py3-none-any.whl"
    assert native.startswith(f"shardwise-{__version__}-cp311-abi3-manylinux_"), native
    assert native.endswith(("_x86_64.whl", "_aarch64.whl")), native
    with tarfile.open(dist / sdist) as tf:
        members = {m.split("/", 1)[1] for m in tf.getnames() if "/" in m}
    assert {"setup.py", "pyproject.toml", "MANIFEST.in", "native/Cargo.toml", "native/Cargo.lock",
            "native/src/lib.rs", "rules/docs/SW104.md"} <= members
    assert not [m for m in members if m.startswith("native/target") or m.endswith(".so")]
    with zipfile.ZipFile(dist / native) as zf:
        native_files = {n for n in zf.namelist() if ".dist-info/" not in n and not n.endswith("/")}
    with zipfile.ZipFile(dist / pure) as zf:
        pure_files = {n for n in zf.namelist() if ".dist-info/" not in n and not n.endswith("/")}
    assert native_files - pure_files == {"shardwise/rules/_yamlfast.abi3.so"}
    assert pure_files - native_files == set()
    assert {"shardwise/rules/docs/SW104.md", "shardwise/rules/__main__.py", "shardwise/components/__init__.py"
            } <= pure_files
    assert [n for n in pure_files if n.startswith("shardwise/rules/report/templates/") and n.endswith(".j2")]
    assert [n for n in pure_files if n.startswith("shardwise/rules/catalog/data/") and n.endswith(".json")]
    assert "shardwise/rules/catalog/data/vllm_options.txt" in pure_files  # SW003's option sets (package-data *.txt)
    assert "shardwise/rules/PulumiPolicy.yaml" not in pure_files  # the checkout's pack, bound to ../.venv


@pytest.mark.slow
def test_the_linux_wheel_lints_with_the_compiled_reader_and_serves_the_pack(dist, constraints, tmp_path):
    (wheel,) = dist.glob("shardwise-*-abi3-*.whl")
    venv = tmp_path / "venv"
    python = _venv(venv, constraints, f"{wheel}[pulumi]")
    site = str(venv / "lib")

    # lint: the compiled reader installed with the wheel reads every file; the output is the checkout's
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copytree(ROOT / "stacks", work / "stacks")
    stdout, run = _lint(python, work, "examples/", "stacks/", "--no-color")
    assert run["reader"].startswith(site) and run["reader"].endswith("/shardwise/rules/_yamlfast.abi3.so")
    assert (run["rc"], stdout) == _checkout_lint(work, "examples/", "stacks/", "--no-color")
    # every YAML text lint loaded went through the compiled reader (some files are loaded more than once)
    yaml_files = len([p for p in work.rglob("*") if p.suffix in (".yaml", ".yml")])
    assert yaml_files >= 4 and run["calls"]["compiled"] >= yaml_files and run["calls"]["fell back"] == 0

    # a component under Pulumi's mocks
    program = tmp_path / "program"
    program.mkdir()
    (program / "check.py").write_text(PROGRAM)
    result = json.loads(_run([str(python), "check.py"], program, 60).strip().splitlines()[-1])
    assert result["shardwise"].startswith(site) and result["components"].startswith(site)
    types = [(r["type"], r["name"]) for r in result["registered"]]
    assert ("shardwise:vllm:VllmService", "llama") in types
    (dep,) = [r for r in result["registered"] if r["type"] == "kubernetes:apps/v1:Deployment"]
    container = dep["inputs"]["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][:1] == ["meta-llama/Llama-3.1-8B-Instruct"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}
    # the rules and the catalog data ship in the wheel: an 8B model at TP2 is refused
    assert result["refused"][0] == "engine.tensor_parallel_size"
    assert result["refused"][1].startswith("SW104: ")

    # the policy pack of the installed package: the launcher is what `--policy-pack DIR/shardwise-pack` starts
    pack = pathlib.Path(_run([str(venv / "bin" / "shardwise"), "policy-pack-dir", "--out", str(program / "pack")],
                             program, 60).strip())
    assert pack == program / "pack"
    runtime = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())["runtime"]
    assert runtime == {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}
    assert _serves([str(pack / "shardwise-pack"), "127.0.0.1:1"], tmp_path) > 0

    # what a consumer of the published pack gets: its requirements.txt installed into the pack's venv
    # (shardwise from the dist folder, as a private index would serve it), started the way the Python
    # language host starts a pack directory
    consumer = _venv(pack / "venv", constraints, "-r", str(pack / "requirements.txt"), find_links=dist)
    assert _serves([str(consumer), "-m", "pulumi.policy", "127.0.0.1:1", str(pack)], tmp_path) > 0
    shown = _run([str(consumer), "-c", "import shardwise, pulumi_policy; print(shardwise.__file__)"], tmp_path, 60)
    assert shown.strip().startswith(str(pack / "venv" / "lib"))


@pytest.mark.slow
def test_the_pure_wheel_lints_the_same_and_says_what_the_pack_needs(dist, constraints, tmp_path):
    (wheel,) = dist.glob("shardwise-*-py3-none-any.whl")
    bare = tmp_path / "bare"
    python = _venv(bare, constraints, str(wheel))
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    stdout, run = _lint(python, work, "examples/", "--no-color")
    assert (run["reader"], run["calls"]) == (None, {"compiled": 0, "fell back": 0})
    assert (run["rc"], stdout) == _checkout_lint(work, "examples/", "--no-color")

    out = subprocess.run([str(bare / "bin" / "shardwise"), "policy-pack-dir", "--out", str(work / "pack")],
                         cwd=work, capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        f"shardwise: error: the policy pack needs pulumi-policy, which this environment ({bare}) does not have; "
        f"install it with: {python} -m pip install 'pulumi-policy<2,>=1.21'\n")
    assert not (work / "pack").exists()
    out = subprocess.run([str(python), "-c", "import shardwise.components"], cwd=work,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: shardwise.components needs the Pulumi SDKs (pulumi is not installed): "
        "pip install 'shardwise[pulumi]'")
