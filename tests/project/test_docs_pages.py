"""The README, CONTRIBUTING.md and the pages in docs/ stay true: every command and option that
`shardwise COMMAND --help` prints is in docs/cli.md under that command's heading, every relative link
resolves (to a file, and to a heading of it where it names one), and every `make` target they name is a
target of the Makefile."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import build_parser

PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").glob("*.md")])
CLI = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.M | re.S)


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _section(command: str) -> str:
    """docs/cli.md from the heading ``## `shardwise COMMAND…`` to the next ``## `` heading."""
    m = re.search(rf"^## `shardwise {re.escape(command)}\b[^\n]*\n(.*?)(?=^## |\Z)", CLI, re.M | re.S)
    assert m, f"docs/cli.md has no heading for `shardwise {command}`"
    return m.group(1)


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_of_a_command_is_in_its_section_of_cli_md(command):
    text = _section(command)
    options = [s for a in _subcommands()[command]._actions for s in a.option_strings if s not in ("-h", "--help")]
    missing = [o for o in options if not re.search(rf"`{re.escape(o)}(?![\w-])", text)]
    assert missing == [], f"docs/cli.md, `shardwise {command}`: {missing} not documented"


def test_the_commands_and_top_level_options_are_in_cli_md():
    synopsis = CLI.split("```", 2)[1]
    assert sorted(c for c in _subcommands() if f"shardwise {c}" not in synopsis) == []
    assert "shardwise --version" in synopsis
    # the synopsis is where a reader looks first: every option of every command is in it (diff's run options
    # are lint's, which its line names)
    missing = {c: [o for a in p._actions for o in a.option_strings
                   if o.startswith("--") and o != "--help" and not re.search(rf"{re.escape(o)}(?![\w-])", synopsis)]
               for c, p in _subcommands().items()}
    assert {c: m for c, m in missing.items() if m} == {}


def test_the_config_file_example_parses_and_names_every_setting(tmp_path: Path):
    """A setting the config file accepts but cli.md does not name is one no user finds; the example is what
    users copy, so it must parse as written."""
    from shardwise.rules.adapters.config import _TOP_KEYS, parse_config
    from shardwise.rules.checks.registry import ALL_RULES

    m = re.search(r"^A config file looks like this.*?\n```toml\n(.*?)^```", CLI, re.M | re.S)
    assert m, "docs/cli.md has no config file example"
    (tmp_path / "models").mkdir()  # its model_dirs, relative to the file
    settings = parse_config(str(tmp_path / "shardwise.toml"), m.group(1), {r.meta.code for r in ALL_RULES})
    assert (settings.fail_on, settings.lint.production, settings.lint.suppressions[0].code) == ("mandatory", True, "SW104")
    named = set(re.findall(r"^(\w+) =|^\[\[?(\w+)\]", m.group(1), re.M))
    assert sorted(set(_TOP_KEYS) - {k for pair in named for k in pair if k}) == []


def _anchors(text: str) -> set[str]:
    """GitHub's ids of a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for title in re.findall(r"^#{1,6} (.+?)\s*$", FENCE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(text: str) -> list[str]:
    prose = re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))
    return re.findall(r"\]\(([^)\s]+)\)", prose)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    text = page.read_text(encoding="utf-8")
    broken = []
    for link in _links(text):
        if re.match(r"^[a-z]+:", link):
            continue  # https:, mailto:
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link}: no heading #{anchor} in {target.relative_to(ROOT)}")
    assert broken == []


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {t for line in re.findall(r"^([\w][\w .-]*):(?!=)", text, re.M) for t in line.split()}


@pytest.mark.parametrize("page", [*PAGES, ROOT / "benchmarks" / "README.md"], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_make_target_named_exists(page: Path):
    text = page.read_text(encoding="utf-8")
    # commands: lines of code blocks, and inline code that starts with the command (prose such as
    # "… make a list" inside an error message quoted in a table is no command)
    fenced = "\n".join(m.group(0) for m in FENCE.finditer(text))
    named = set(re.findall(r"(?:^|[;&(]|&&)\s*(?:\$\s*)?make ([a-z][\w-]*)", fenced, re.M))
    named |= set(re.findall(r"`make ([a-z][\w-]*)", text))
    assert sorted(named - _make_targets()) == []
