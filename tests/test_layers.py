"""Layering: rules/ never imports pulumi (the linter must start without the Pulumi SDK)."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_no_pulumi_import_in_rules_source():
    offenders = []
    for path in (ROOT / "rules").rglob("*.py"):
        if path == ROOT / "rules" / "__main__.py":
            continue  # the policy pack entry point is the one place that imports pulumi_policy
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0].startswith("pulumi")]
    assert offenders == []


def test_importing_every_rules_module_loads_no_pulumi():
    code = (
        "import sys, pkgutil, importlib, shardwise.rules as r\n"
        "for m in pkgutil.walk_packages(r.__path__, 'shardwise.rules.'):\n"
        "    if m.name != 'shardwise.rules.__main__': importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0].startswith('pulumi'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_linting_manifests_does_not_import_the_pulumi_or_stack_adapters():
    code = (
        "import sys\n"
        "from shardwise.rules.app.cli import main\n"
        "rc = main(['lint', 'examples/llama-3.1-70b-tp4.yaml', '--format', 'json', '--output', '/dev/null'])\n"
        "print(rc, sorted(m for m in sys.modules if m in ('shardwise.rules.adapters.pulumi',"
        " 'shardwise.rules.adapters.stack', 'pydantic', 'jinja2')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "0 []"
