"""Where things are in the checkout, for tests in any folder under tests/ (they are imported by module name)."""

from __future__ import annotations

from pathlib import Path

#: the checkout: pyproject.toml, rules/, components/, stacks/, README.md
ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: the tests' input files: rule fixtures (``rules/SWnnn/``), manifests (``k8s/``), charts, diffs
FIXTURES = TESTS / "fixtures"
#: trimmed public schemas the reports are validated against
SCHEMAS = TESTS / "schemas"
