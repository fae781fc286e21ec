"""Run the real Pulumi CLI and language host (built by ``scripts/build-pulumi.sh``) against this repository.

What is real and what stands in (see docs/status.md and docs/development.md, "The real Pulumi engine"):

* real: the ``pulumi`` CLI and its engine (built from ``github.com/pulumi/pulumi/pkg/v3``), the
  Python language host ``pulumi-language-python`` (built from ``sdk/v3@v3.79.0``, the last release
  that holds it, with its ``pulumi-language-python-exec`` beside it), the local file backend with a
  passphrase secrets provider, the Python SDK, ``__main__.py``, the components and the policy pack;
* the program is run by the host under the CLI as ``pulumi up`` runs it for a user; the host is
  older than the CLI and does not read Pulumi.yaml's ``virtualenv``, so ``PULUMI_PYTHON_CMD`` names
  the project venv's python;
* the pack: the host cannot start a pack directory under this CLI (its ``RunPlugin`` runs the
  request's ``program``, which CLI 3.276 no longer sends, in the project directory), so the pack is
  started as an executable pack path, which the CLI starts directly (:func:`pack_dir`);
* the providers: ``tests/engine_bin/pulumi-resource-aws`` runs ``tests/support/standin_provider.py``,
  which records create calls instead of calling AWS (the AWS provider cannot be built here), and
  so does ``tests/engine_bin/pulumi-resource-kubernetes`` where the real Kubernetes provider
  (``scripts/build-k8s-provider.sh``) is not built.

:class:`Project` is a throw-away copy of the Pulumi project (``Pulumi.yaml``, one stack file, and
links to ``__main__.py``, ``rules/`` and ``.venv``) logged in to a ``file://`` backend in a
temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
STANDINS = ROOT / "tests" / "engine_bin"
BUILD_SCRIPT = ROOT / "scripts" / "build-pulumi.sh"
K8S_BUILD_SCRIPT = ROOT / "scripts" / "build-k8s-provider.sh"
CACHE = Path(os.environ.get("SHARDWISE_PULUMI_CACHE", Path.home() / ".cache" / "shardwise-pulumi"))
PASSPHRASE = "shardwise-engine-tests"
NEEDED = ("pulumi", "pulumi-language-python", "pulumi-language-python-exec")


def _default(script: Path, name: str) -> str:
    """A script's default for the variable ``name`` (its ``X="${NAME:-default}"`` line)."""
    marker = f'="${{{name}:-'
    for line in script.read_text(encoding="utf-8").splitlines():
        if marker in line and not line.startswith("#"):
            return line.split(marker, 1)[1].split("}", 1)[0]
    raise AssertionError(f"{script.name} names no {name}")


def engine_version() -> str:
    """The release ``scripts/build-pulumi.sh`` builds (its ``PULUMI_VERSION`` default)."""
    return _default(BUILD_SCRIPT, "PULUMI_VERSION")


def host_version() -> str:
    """The sdk/v3 release whose language host ``scripts/build-pulumi.sh`` builds."""
    return _default(BUILD_SCRIPT, "PULUMI_LANGUAGE_PYTHON_VERSION")


def k8s_provider_version() -> str:
    return _default(K8S_BUILD_SCRIPT, "K8S_PROVIDER_VERSION")


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def engine_bin() -> Path | None:
    """The folder with the built ``pulumi`` and ``pulumi-language-python``, or None when not built."""
    env = os.environ.get("SHARDWISE_PULUMI_BIN")
    folder = Path(env) if env else CACHE / os.environ.get("PULUMI_VERSION", engine_version()) / "bin"
    return folder if all((folder / n).is_file() for n in NEEDED) and _executable(folder / "pulumi") else None


def host_bin() -> Path | None:
    """The folder with the built ``pulumi-language-python`` and its exec script (the CLI's folder)."""
    env = os.environ.get("SHARDWISE_PULUMI_BIN")
    folder = Path(env) if env else CACHE / os.environ.get("PULUMI_VERSION", engine_version()) / "bin"
    return folder if _executable(folder / NEEDED[1]) and (folder / NEEDED[2]).is_file() else None


def k8s_provider_bin() -> Path | None:
    """The folder with the built ``pulumi-resource-kubernetes``, or None when it has not been built."""
    env = os.environ.get("SHARDWISE_K8S_PROVIDER_BIN")
    folder = Path(env) if env else CACHE / f"pulumi-kubernetes-{k8s_provider_version()}" / "bin"
    return folder if _executable(folder / "pulumi-resource-kubernetes") else None


HOW = ("build the engine with scripts/build-pulumi.sh (needs Go; the CLI about 20 minutes the first time, "
       "the language host a few more), then run `make test-engine` (or `make test` again)")
HOW_K8S = "build the Kubernetes provider with scripts/build-k8s-provider.sh (needs Go; about 10 minutes)"


def _required(what: str, how: str) -> None:
    import pytest

    if os.environ.get("SHARDWISE_REQUIRE_ENGINE", "") not in ("", "0"):
        pytest.fail(f"SHARDWISE_REQUIRE_ENGINE is set but {what} is not built: {how}", pytrace=False)
    pytest.skip(f"{what} is not built: {how}")


def require_engine() -> Path:
    """The built CLI's folder; otherwise skip the test, or fail it when ``SHARDWISE_REQUIRE_ENGINE`` is set."""
    found = engine_bin()
    if found is None:
        _required("the Pulumi CLI or its Python language host", HOW)
        raise AssertionError("unreachable")
    return found


def require_host() -> Path:
    """The built language host's folder; otherwise skip (or fail, with ``SHARDWISE_REQUIRE_ENGINE``)."""
    found = host_bin()
    if found is None:
        _required("the Python language host", HOW)
        raise AssertionError("unreachable")
    return found


def require_k8s_provider() -> Path:
    """The built Kubernetes provider's folder; otherwise skip (or fail, with ``SHARDWISE_REQUIRE_ENGINE``)."""
    found = k8s_provider_bin()
    if found is None:
        _required("the Kubernetes provider", HOW_K8S)
        raise AssertionError("unreachable")
    return found


def load_stack_config(stack: str) -> dict[str, Any]:
    from pulumi_mocks import STACK_SECRETS  # the secret config a user sets and does not commit

    with open(ROOT / "stacks" / f"Pulumi.{stack}.yaml", encoding="utf-8") as fh:
        return {**dict(yaml.safe_load(fh)["config"]), **STACK_SECRETS.get(stack, {})}


def pack_dir(where: Path, *, record: Path | None = None, host_start: bool = False) -> Path:
    """A pack directory for ``--policy-pack DIR/pack``: PulumiPolicy.yaml and an executable launcher.

    CLI 3.276 starts an executable pack path itself, with the engine's address as its one
    argument; the launcher runs ``python -u -m shardwise.rules.app.packstart ENGINE rules/`` with the project
    venv's interpreter, as ``shardwise policy-pack-dir``'s launcher does (``python -m pulumi.policy``, what a
    language host runs for a Python pack, without executing the SDK's modules the pack never reads; with
    ``host_start``, ``python -m pulumi.policy`` itself), with grpcio's settings that launcher sets
    (``crossguard.pack_grpc_environment``). With ``record`` the pack is started through
    ``tests/support/pack_recorder.py``, which writes down every request it receives.
    """
    from shardwise.rules.app.crossguard import installed_grpcio, launcher_environment, pack_grpc_environment

    folder = where / "policy-pack"
    folder.mkdir()
    shutil.copy(ROOT / "rules" / "PulumiPolicy.yaml", folder / "PulumiPolicy.yaml")
    if record is None:
        module = "pulumi.policy" if host_start else "shardwise.rules.app.packstart"
        run = f'exec "{PYTHON}" -u -m {module} "$1" "{ROOT / "rules"}"'
    else:
        run = f'SHARDWISE_PACK_RECORD="{record}" exec "{PYTHON}" -u "{ROOT / "tests" / "support" / "pack_recorder.py"}" ' \
              f'"$1" "{ROOT / "rules"}"'
    launcher = folder / "pack"
    environment = launcher_environment(pack_grpc_environment(installed_grpcio()))
    launcher.write_text(f"#!/bin/sh\n{environment}{run}\n", encoding="utf-8")
    launcher.chmod(0o755)
    return launcher


class Project:
    """A copy of the Pulumi project with one stack, on a local backend, driven by the real CLI and host."""

    def __init__(self, where: Path, bin_dir: Path, stack: str, config: Mapping[str, Any], *,
                 k8s_bin: Path | None = None) -> None:
        self.dir = where / "project"
        self.stack = stack
        self.standin_log = where / "provider-calls.jsonl"
        self.pack_record = where / "pack-requests.jsonl"
        self.pack = pack_dir(where)
        (where / "recording").mkdir()
        self.recording_pack = pack_dir(where / "recording", record=self.pack_record)
        (self.dir / "stacks").mkdir(parents=True)
        shutil.copy(ROOT / "Pulumi.yaml", self.dir / "Pulumi.yaml")
        (self.dir / "__main__.py").symlink_to(ROOT / "__main__.py")
        (self.dir / "rules").symlink_to(ROOT / "rules")
        (self.dir / ".venv").symlink_to(ROOT / ".venv")
        with open(self.dir / "stacks" / f"Pulumi.{stack}.yaml", "w", encoding="utf-8") as fh:
            yaml.safe_dump({"config": dict(config)}, fh, sort_keys=False)
        home = where / "pulumi-home"
        home.mkdir()
        # the real Kubernetes provider ahead of the stand-ins where it was given
        path = [str(bin_dir), *([str(k8s_bin)] if k8s_bin else []), str(STANDINS), os.environ.get("PATH", "")]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_") and k != "KUBECONFIG"}
        self.env.update({
            "PATH": os.pathsep.join(path),
            "PULUMI_HOME": str(home),
            "PULUMI_PYTHON_CMD": str(PYTHON),  # the host does not read Pulumi.yaml's virtualenv
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "PULUMI_SKIP_CONFIRMATIONS": "true",
            "SHARDWISE_STANDIN_LOG": str(self.standin_log),
            "NO_COLOR": "1",
        })
        self.pulumi = str(bin_dir / "pulumi")
        state = where / "state"
        state.mkdir()
        self.run("login", f"file://{state}", check=True)
        self.run("stack", "init", stack, "--secrets-provider", "passphrase", check=True)

    def run(self, *args: str, check: bool = False, timeout: float = 900,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([self.pulumi, *args, "--non-interactive", "--color", "never"], cwd=self.dir,
                              env={**self.env, **(env or {})}, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"pulumi {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def operation(self, command: str, *args: str, pack: bool = True, record_pack: bool = False,
                  config: Mapping[str, str] | None = None,
                  env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """``pulumi preview`` or ``pulumi up`` of the real program through the real engine and host,
        with the policy pack unless ``pack=False``; ``config`` adds ``--config KEY=VALUE`` settings, ``env``
        variables to the CLI's environment (which its plugins and the pack inherit)."""
        flags = [f"--config={k}={v}" for k, v in (config or {}).items()]
        if pack:
            flags += ["--policy-pack", str(self.recording_pack if record_pack else self.pack)]
        return self.run(command, "--stack", self.stack, *flags, *args, env=env)

    def export(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.run("stack", "export", "--stack", self.stack, check=True).stdout)
        return data

    def provider_calls(self) -> list[dict[str, Any]]:
        if not self.standin_log.exists():
            return []
        return [json.loads(line) for line in self.standin_log.read_text(encoding="utf-8").splitlines()]

    def pack_requests(self) -> list[dict[str, Any]]:
        if not self.pack_record.exists():
            return []
        return [json.loads(line) for line in self.pack_record.read_text(encoding="utf-8").splitlines()]
