"""Run the real Pulumi CLI (built by ``scripts/build-pulumi.sh``) against this repository.

What is real and what stands in (see README, "The real engine"):

* real: the ``pulumi`` CLI and its engine (built from ``github.com/pulumi/pulumi/pkg/v3``), the
  local file backend with a passphrase secrets provider, the Python SDK, ``__main__.py``, the
  components and the policy pack (``--policy-pack rules``);
* the language host: ``pulumi-language-python`` is not served by the Go module proxy, so the
  program is served by the Python SDK's own language runtime (the one the Automation API uses for
  inline programs, ``tests/engine_program.py``, reached with ``--client``), and the pack is started
  by ``tests/engine_bin/pulumi-analyzer-policy-python`` with the command the language host uses;
* the providers: ``tests/engine_bin/pulumi-resource-{aws,kubernetes}`` run
  ``tests/standin_provider.py``, which records create calls instead of calling AWS or Kubernetes.

:class:`Project` is a throw-away copy of the Pulumi project (``Pulumi.yaml``, one stack file, and
links to ``rules/`` and ``.venv``) logged in to a ``file://`` backend in a temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
STANDINS = ROOT / "tests" / "engine_bin"
BUILD_SCRIPT = ROOT / "scripts" / "build-pulumi.sh"
CACHE = Path(os.environ.get("SHARDWISE_PULUMI_CACHE", Path.home() / ".cache" / "shardwise-pulumi"))
PASSPHRASE = "shardwise-engine-tests"


def engine_version() -> str:
    """The release ``scripts/build-pulumi.sh`` builds (its ``PULUMI_VERSION`` default)."""
    for line in BUILD_SCRIPT.read_text(encoding="utf-8").splitlines():
        if line.startswith('PULUMI_VERSION="${PULUMI_VERSION:-'):
            return line.split(":-", 1)[1].split("}", 1)[0]
    raise AssertionError("scripts/build-pulumi.sh names no PULUMI_VERSION")


def engine_bin() -> Path | None:
    """The folder with the built ``pulumi``, or None when it has not been built."""
    env = os.environ.get("SHARDWISE_PULUMI_BIN")
    folder = Path(env) if env else CACHE / os.environ.get("PULUMI_VERSION", engine_version()) / "bin"
    return folder if (folder / "pulumi").is_file() and os.access(folder / "pulumi", os.X_OK) else None


HOW = ("build the engine with scripts/build-pulumi.sh (needs Go; about 20 minutes the first time), then run "
       "`make test-engine` (or `make test` again)")


def require_engine() -> Path:
    """The built CLI's folder; otherwise skip the test, or fail it when ``SHARDWISE_REQUIRE_ENGINE`` is set."""
    import pytest

    found = engine_bin()
    if found is not None:
        return found
    if os.environ.get("SHARDWISE_REQUIRE_ENGINE", "") not in ("", "0"):
        pytest.fail(f"SHARDWISE_REQUIRE_ENGINE is set but the Pulumi CLI is not built: {HOW}", pytrace=False)
    pytest.skip(f"the Pulumi CLI is not built: {HOW}")


def load_stack_config(stack: str) -> dict[str, Any]:
    with open(ROOT / "stacks" / f"Pulumi.{stack}.yaml", encoding="utf-8") as fh:
        return dict(yaml.safe_load(fh)["config"])


class Project:
    """A copy of the Pulumi project with one stack, on a local backend, driven by the real CLI."""

    def __init__(self, where: Path, bin_dir: Path, stack: str, config: Mapping[str, Any]) -> None:
        self.dir = where / "project"
        self.stack = stack
        self.standin_log = where / "provider-calls.jsonl"
        self.pack_record = where / "pack-requests.jsonl"
        (self.dir / "stacks").mkdir(parents=True)
        shutil.copy(ROOT / "Pulumi.yaml", self.dir / "Pulumi.yaml")
        (self.dir / "rules").symlink_to(ROOT / "rules")  # `--policy-pack rules`, as from the repository
        (self.dir / ".venv").symlink_to(ROOT / ".venv")  # PulumiPolicy.yaml: virtualenv ../.venv
        with open(self.dir / "stacks" / f"Pulumi.{stack}.yaml", "w", encoding="utf-8") as fh:
            yaml.safe_dump({"config": dict(config)}, fh, sort_keys=False)
        home = where / "pulumi-home"
        home.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
        self.env.update({
            "PATH": f"{bin_dir}{os.pathsep}{STANDINS}{os.pathsep}{os.environ.get('PATH', '')}",
            "PULUMI_HOME": str(home),
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

    def run(self, *args: str, check: bool = False, timeout: float = 600,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([self.pulumi, *args, "--non-interactive", "--color", "never"], cwd=self.dir,
                              env={**self.env, **(env or {})}, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"pulumi {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    @contextmanager
    def program(self, *, skip_component_check: bool = False) -> Iterator[str]:
        """The program's language runtime, running: yields its address for ``--client``."""
        env = dict(self.env)
        if skip_component_check:
            env["SHARDWISE_SKIP_COMPONENT_CHECK"] = "1"
        proc = subprocess.Popen([str(PYTHON), str(ROOT / "tests" / "engine_program.py")], cwd=self.dir, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        box: list[str] = []
        assert proc.stdout is not None
        reader = threading.Thread(target=lambda: box.append(proc.stdout.readline() if proc.stdout else ""),
                                  daemon=True)
        reader.start()
        reader.join(60)
        try:
            if not box or not box[0].strip().isdigit():
                proc.kill()
                raise AssertionError(f"the program's language runtime did not start: {proc.communicate()[1]}")
            yield f"127.0.0.1:{box[0].strip()}"
        finally:
            proc.kill()
            proc.communicate()

    def operation(self, command: str, *args: str, skip_component_check: bool = False,
                  record_pack: bool = False) -> subprocess.CompletedProcess[str]:
        """``pulumi preview`` or ``pulumi up`` of the real program through the real engine."""
        env = {"SHARDWISE_PACK_RECORD": str(self.pack_record)} if record_pack else {}
        with self.program(skip_component_check=skip_component_check) as address:
            return self.run(command, "--stack", self.stack, "--client", address, *args, env=env)

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
