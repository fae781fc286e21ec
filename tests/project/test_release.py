"""One version and one repository URL, each written in one place and repeated correctly everywhere else.

The version is ``shardwise.__version__`` (pyproject.toml reads it: the wheel's version); ``shardwise
--version``, the checkout's rules/PulumiPolicy.yaml, the newest release heading of CHANGELOG.md and the
README's install lines repeat it. The repository URL is pyproject's ``[project.urls] Repository``; the
README's install line, the published forms of the pre-commit and GitHub Action snippets in docs/ci.md and
the SARIF ``informationUri`` use it.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version

import jsonschema
import yaml
from repo_paths import ROOT
from shardwise.rules.app import crossguard

import shardwise
from shardwise import __version__, repository_url

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
URL = "https://github.com/shardwise/shardwise"


def test_the_version_is_written_once_and_repeated_everywhere():
    assert __version__ == "0.1.0"
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "shardwise.__version__"}
    assert version("shardwise") == __version__  # the installed metadata, built from pyproject
    out = subprocess.run([sys.executable, "-m", "shardwise.rules.app.cli", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout == f"shardwise {__version__}\n"
    assert yaml.safe_load((ROOT / "rules" / "PulumiPolicy.yaml").read_text())["version"] == __version__
    releases = re.findall(r"^## (\d+\.\d+\.\d+)\b", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert releases[0] == __version__
    # the README's install lines name this version's files and tag
    assert f"dist/shardwise-{__version__}-cp311-abi3-" in README
    assert f"shardwise-{__version__}-py3-none-any.whl" in README
    assert f"`shardwise=={__version__}`" in README
    assert f"dist/shardwise-{__version__}-py3-none-any.whl" in CI_DOC and f"shardwise=={__version__}" in CI_DOC


def test_the_repository_url_is_defined_once():
    assert PYPROJECT["project"]["urls"] == {"Repository": URL}
    assert repository_url() == URL  # read from the installed metadata, not written again in the code
    # (rules/checks/: three rules' references name pages of the repository, which the registry requires to be
    # https links, so they name where those pages will be published)
    for folder in ("rules", "components", "shardwise"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.parent.name != "checks":
                assert "github.com/shardwise" not in path.read_text(encoding="utf-8"), path
    owner_name = URL.removeprefix("https://github.com/")
    install = re.findall(r'pip install "shardwise\[pulumi\] @ git\+(\S+)"', README)
    assert install == [f"{URL}@v{__version__}"]
    # docs/ci.md: each snippet in the form that works now (a local hook, a copy of the action) and the
    # published form, which names the repository at this version's tag
    assert re.findall(r"^  - repo: (\S+)$", CI_DOC, flags=re.M) == ["local", URL]
    assert re.findall(r"^    rev: (\S+)$", CI_DOC, flags=re.M) == [f"v{__version__}"]
    assert re.findall(r"^      - uses: (\S+)", CI_DOC, flags=re.M) == [
        "actions/checkout@v4", "./.github/actions/shardwise", "actions/checkout@v4", f"{owner_name}@v{__version__}",
        "./.github/actions/shardwise",  # the copy in a report-only phase (fail-level: none)
        "./.github/actions/shardwise",  # the copy with a baseline input
        "./.github/actions/shardwise", "./.github/actions/shardwise", "actions/upload-artifact@v4"]  # with a plan
    for path in ("README.md", "docs/ci.md", "action.yml", ".pre-commit-hooks.yaml"):
        assert "your-org" not in (ROOT / path).read_text(encoding="utf-8"), path


def test_the_pack_directory_is_what_crossguard_publishes(tmp_path):
    pack = pathlib.Path(crossguard.pack_dir(str(tmp_path / "pack")))
    assert sorted(p.name for p in pack.iterdir()) == [
        "PulumiPolicy.yaml", "__main__.py", "policy-config.schema.json", "requirements.txt", "shardwise-pack"]
    project = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    # the fields of the CLI's PolicyPackProject, and no path that leaves the folder
    assert project == {
        "description": "shardwise: capacity, topology, network, security and reliability rules for vLLM on "
                       "Kubernetes (EKS), from the same registry as `shardwise lint`.",
        "version": __version__,
        "runtime": {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}},
    }
    # hpack: the pack's own gRPC transport (a pack installed without it serves through grpcio)
    assert (pack / "requirements.txt").read_text().splitlines()[1:] == [
        f"shardwise=={__version__}", f"pulumi-policy=={version('pulumi-policy')}", f"hpack=={version('hpack')}"]
    assert (pack / "__main__.py").read_text().splitlines()[2:] == [
        "from shardwise.rules.__main__ import main", "", "main()"]
    launcher = (pack / "shardwise-pack")
    assert launcher.stat().st_mode & 0o111 == 0o111
    lines = launcher.read_text().splitlines()
    assert lines[0] == "#!/bin/sh"
    assert lines[-1] == f"exec '{sys.executable}' -u -m shardwise.rules.app.packstart \"$engine\" \"$here\" \"$@\""
    # grpcio's settings for the installed release, where the user set none (tests/app/test_pack_launcher.py)
    if crossguard.pack_grpc_environment(version("grpcio")):
        assert lines[-4:-1] == [
            "# grpcio's settings for the pack (crossguard.pack_grpc_environment), where not set already",
            ': "${GRPC_EXPERIMENTS=-event_engine_listener,-event_engine_for_all_other_endpoints}"',
            "export GRPC_EXPERIMENTS"]
    else:
        assert not any("GRPC" in line for line in lines)

    # the config schema accepts docs/ci.md's example and refuses a misspelt option or policy
    schema = json.loads((pack / "policy-config.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    example = json.loads(CI_DOC.split("(`policy-config.json`):\n\n```json\n", 1)[1].split("```", 1)[0])
    jsonschema.validate(example, schema)
    assert sorted(schema["properties"]) == sorted(["all", *(s.name for s in crossguard.policy_specs_of_registry())])
    for wrong in ({"sharded-model-that-fits": {"kv_reserv": 1.3}}, {"no-such-policy": {}},
                  {"sharded-model-that-fits": {"enforcementLevel": "blocking"}}):
        assert not jsonschema.Draft7Validator(schema).is_valid(wrong), wrong


def test_policy_pack_dir_without_pulumi_policy_writes_nothing_and_says_what_to_run(tmp_path):
    # this environment with pulumi_policy hidden: the lint-only install's view
    code = ("import sys\n"
            "sys.modules['pulumi_policy'] = None  # as if it were not installed\n"
            "from shardwise.rules.app.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    out = subprocess.run([sys.executable, "-c", code, "policy-pack-dir", "--out", str(tmp_path / "pack")],
                         capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        f"shardwise: error: the policy pack needs pulumi-policy, which this environment ({sys.prefix}) does not "
        f"have; install it with: {sys.executable} -m pip install 'pulumi-policy<2,>=1.21'\n")
    assert not (tmp_path / "pack").exists()
    assert shardwise.__file__.startswith(str(ROOT))
