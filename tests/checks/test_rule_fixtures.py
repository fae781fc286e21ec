"""Every rule fixture, through the real adapters and every rule of the registry, gives exactly the findings of
its rule written beside it: ``tests/fixtures/rules/SW104/fail.yaml`` → ``SW104/fail.yaml.expected``.

An ``.expected`` file has one line per finding of the fixture's rule, in report order, five fields separated by
tabs::

    LINE  LEVEL  SUBJECT  MESSAGE  SUPPRESSION

LINE is the finding's line (``-`` when it has none); LEVEL is ``mandatory`` or ``advisory``, followed by
`` undecided`` for a "cannot decide" finding and `` internal`` for a rule that crashed; MESSAGE is the message
without its code; SUPPRESSION is the reason the finding is suppressed, or ``-``. A fixture that is an input error
(``malformed.*``) has the one line ``LINE  input error  FILE  MESSAGE  -``. A fixture may be a folder of files read
together (facts joined across files: ``SW204/configmap-other-file/``); its ``.expected`` file is beside the folder,
and LINE there is ``FILE:LINE``, the file relative to the folder. A tab, a newline or a backslash in a
field is written ``\\t``, ``\\n``, ``\\\\``. Above the findings, one ``#`` line names the fixture and the fields.

A fixture without its ``.expected`` file fails, and so does an ``.expected`` file without its fixture. After a
change that moves findings on purpose, rewrite the files and review the diff::

    SHARDWISE_UPDATE_EXPECTED=1 .venv/bin/pytest -q tests/checks/test_rule_fixtures.py
    git diff tests/fixtures/rules

(what ``cargo insta`` / ruff's snapshot tests do with ``INSTA_UPDATE``). The other behaviour of the rules on
their fixtures (levels by configuration, suppression, unknown inputs) is asserted in test_rules_capacity.py,
test_rules_net.py and test_rules_topology.py.
"""

from __future__ import annotations

import os
import pathlib

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import Finding, run_rules
from shardwise.rules.model.errors import InputError

FIXTURES = ROOT / "tests" / "fixtures" / "rules"
SUFFIX = ".expected"
INPUTS = sorted(p for p in FIXTURES.glob("SW*/*")
                if p.suffix in (".yaml", ".json", ".sh") or p.is_dir())  # .sh: here-documents; a folder: its files
#: The switch that rewrites the ``.expected`` files from what the rules find now.
UPDATE = os.environ.get("SHARDWISE_UPDATE_EXPECTED", "") not in ("", "0")
HEADER = "# {code} {name}: line, level, subject, message, suppression reason (tests/test_rule_fixtures.py)"


def _field(value: object) -> str:
    text = "-" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _row(*fields: object) -> str:
    return "\t".join(_field(f) for f in fields)


def _finding(f: Finding, folder: pathlib.Path | None = None, base: pathlib.Path | None = None) -> str:
    level = f.level + (" undecided" if f.undecided else "") + (" internal" if f.internal else "")
    line: object = f.location.line
    if folder is not None and f.location.file is not None:
        # a workload of a base two overlays deploy is named by each (``base/x.yaml (via DIR/overlays/prod/...)``)
        where = str(pathlib.Path(f.location.file).relative_to(folder)).replace(f"{folder}/", "")
        line = f"{where}:{line if line is not None else '-'}"
    # a file a message names, as the run was given it (absolute here): relative to the fixture's folder
    message = f.message.replace(f"{base}/", "") if base is not None else f.message
    return _row(line, level, f.subject, message, f.suppression_reason)


def observed(fixture: pathlib.Path) -> list[str]:
    """The lines of ``fixture``'s ``.expected`` file as the rules find it now."""
    code = fixture.parent.name
    lines = [HEADER.format(code=code, name=fixture.name)]
    try:
        inv = load_inputs([str(fixture)])
    except InputError as e:
        file = pathlib.Path(e.file).name if e.file == str(fixture) else e.file
        return [*lines, _row(e.line, "input error", file, e.message, None)]
    for f in run_rules(ALL_RULES, inv):
        if f.code == code:
            assert not f.message.startswith(f"{code}: "), f"the reports add the code: {f.message}"
            lines.append(_finding(f, fixture if fixture.is_dir() else None,
                                  fixture if fixture.is_dir() else fixture.parent))
    return lines


def expected_path(fixture: pathlib.Path) -> pathlib.Path:
    return fixture.with_name(fixture.name + SUFFIX)


@pytest.mark.parametrize("fixture", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_gives_exactly_the_findings_written_beside_it(fixture: pathlib.Path) -> None:
    got = observed(fixture)
    path = expected_path(fixture)
    if UPDATE:
        path.write_text("\n".join(got) + "\n", encoding="utf-8")
        return
    assert path.is_file(), (f"{path.relative_to(ROOT)} is missing: write it with SHARDWISE_UPDATE_EXPECTED=1 "
                            "pytest tests/checks/test_rule_fixtures.py and review what it says")
    assert got == path.read_text(encoding="utf-8").splitlines()


def test_every_expected_file_has_its_fixture() -> None:
    orphans = [p.relative_to(ROOT) for p in FIXTURES.glob(f"*/*{SUFFIX}")
               if not p.with_name(p.name.removesuffix(SUFFIX)).exists()]
    assert orphans == []
