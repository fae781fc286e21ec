"""The linter's config file (shardwise.toml / .shardwise.yaml): parsing, validation, discovery."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest
from shardwise.rules.adapters.config import PRECEDENCE, Settings, discover, load_config, parse_config
from shardwise.rules.engine import LintConfig, SuppressionEntry
from shardwise.rules.model.errors import InputError

FULL_TOML = textwrap.dedent(
    """\
    fail_on = "advisory"
    unknown = "warn"
    kv_reserve = 1.6
    p95_context_tokens = 8192
    usable_fraction = 0.85
    production = true
    default_deny_namespaces = ["serving", "team-*"]

    [enforcement]
    SW106 = "disabled"
    SW105 = "mandatory"

    [[suppress]]
    code = "SW104"
    subject = "Deployment serving/*"
    reason = "benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1"

    [[suppress]]
    code = "SW103"
    reason = "batch width measured"
    """
)

FULL_YAML = textwrap.dedent(
    """\
    fail_on: advisory
    unknown: warn
    kv_reserve: 1.6
    p95_context_tokens: 8192
    usable_fraction: 0.85
    production: true
    default_deny_namespaces: [serving, team-*]
    enforcement:
      SW106: disabled
      SW105: mandatory
    suppress:
      - code: SW104
        subject: "Deployment serving/*"
        reason: "benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1"
      - code: SW103
        reason: batch width measured
    """
)

EXPECTED = LintConfig(
    enforcement={"SW106": "disabled", "SW105": "mandatory"},
    suppressions=[
        SuppressionEntry("SW104", "benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1", "Deployment serving/*"),
        SuppressionEntry("SW103", "batch width measured", "*"),
    ],
    kv_reserve=1.6,
    usable_fraction=0.85,
    p95_context_tokens=8192,
    unknown_is_failure=False,
    unknown_configured=True,
    production=True,
    default_deny_namespaces=("serving", "team-*"),
)


def test_precedence_is_one_explicit_tuple():
    assert PRECEDENCE == ("defaults", "config file", "command line")


def test_no_file_gives_defaults(tmp_path):
    s = load_config(None, cwd=str(tmp_path))
    assert s == Settings(lint=LintConfig(), fail_on="mandatory", source=None)


@pytest.mark.parametrize(("name", "text"), [("shardwise.toml", FULL_TOML), (".shardwise.yaml", FULL_YAML)])
def test_full_file_toml_and_yaml_agree(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    s = load_config(None, cwd=str(tmp_path))
    assert s.source == str(tmp_path / name)
    assert s.fail_on == "advisory"
    # production_from says which file set `production` (mend10: SW404 names where it came from)
    assert s.lint == dataclasses.replace(EXPECTED, production_from=f"{name} sets `production`")


@pytest.mark.parametrize(("name", "text"), [("shardwise.toml", 'fail_on = "none"\n'),
                                           (".shardwise.yaml", "fail_on: none\n")])
def test_fail_on_none_is_a_level(tmp_path, name, text):
    """A report-only phase (adopt18): the string none in either file, not YAML's null."""
    (tmp_path / name).write_text(text)
    assert load_config(None, cwd=str(tmp_path)).fail_on == "none"


def test_discovery_prefers_nothing_when_both_exist(tmp_path, monkeypatch):
    (tmp_path / "shardwise.toml").write_text("")
    (tmp_path / ".shardwise.yaml").write_text("")
    with pytest.raises(InputError) as e:
        discover(str(tmp_path))
    assert str(e.value) == (
        f"both shardwise.toml and .shardwise.yaml exist in {tmp_path}; keep one or pass --config"
    )
    monkeypatch.chdir(tmp_path)  # the run's own folder: named so, never by its absolute path (mend21)
    with pytest.raises(InputError) as e:
        discover()
    assert str(e.value) == "both shardwise.toml and .shardwise.yaml exist in the current directory; keep one or pass --config"


def test_empty_files_are_defaults():
    assert parse_config("shardwise.toml", "").lint == LintConfig()
    assert parse_config(".shardwise.yaml", "").lint == LintConfig()


def err(path: str, text: str, known: set[str] | None = None) -> str:
    with pytest.raises(InputError) as e:
        parse_config(path, textwrap.dedent(text), known)
    return str(e.value)


def test_model_dirs_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "models" / "acme").mkdir(parents=True)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "shardwise.toml").write_text('model_dirs = ["../models"]\n')
    s = load_config(str(tmp_path / "ci" / "shardwise.toml"))
    assert s.model_dirs == (str(tmp_path / "models"),)
    assert err("shardwise.toml", 'model_dirs = "models"\n') == (
        "shardwise.toml:1: model_dirs must be a list of directory paths, got 'models'"
    )
    missing = tmp_path / "nope"
    assert err(str(tmp_path / "shardwise.toml"), 'model_dirs = ["nope"]\n') == (
        f"{tmp_path / 'shardwise.toml'}:1: model_dirs: 'nope' is not a directory ({missing})"
    )


def test_unknown_top_level_key_names_key_and_line():
    assert err("shardwise.toml", 'fail_on = "mandatory"\nkv_reserv = 1.2\n') == (
        "shardwise.toml:2: unknown key 'kv_reserv' (expected one of: enforcement, suppress, kv_reserve, "
        "p95_context_tokens, unknown, fail_on, usable_fraction, production, default_deny_namespaces, exclude, model_dirs, "
        "gitops_revision, build_found, require_build)"
    )
    assert err(".shardwise.yaml", "fail_on: mandatory\nfail-on: advisory\n").startswith(
        ".shardwise.yaml:2: unknown key 'fail-on' (expected one of:"
    )


def test_unknown_table_is_an_unknown_key():
    assert err("shardwise.toml", "[rules]\nSW104 = 'off'\n").startswith(
        "shardwise.toml:1: unknown key 'rules'"
    )


def test_wrong_types_and_ranges():
    assert err("shardwise.toml", 'kv_reserve = "high"\n') == (
        "shardwise.toml:1: kv_reserve must be a number, got str 'high'"
    )
    assert err("shardwise.toml", "kv_reserve = 0.5\n") == (
        "shardwise.toml:1: kv_reserve must be between 1 and 10, got 0.5"
    )
    assert err("shardwise.toml", "p95_context_tokens = 81.5\n") == (
        "shardwise.toml:1: p95_context_tokens must be an integer, got float 81.5"
    )
    assert err("shardwise.toml", "p95_context_tokens = true\n") == (
        "shardwise.toml:1: p95_context_tokens must be an integer, got bool True"
    )
    assert err(".shardwise.yaml", "\nunknown: maybe\n") == (
        ".shardwise.yaml:2: unknown must be one of 'fail', 'warn', got 'maybe'"
    )
    assert err("shardwise.toml", 'fail_on = "error"\n') == (
        "shardwise.toml:1: fail_on must be one of 'advisory', 'mandatory', 'none', got 'error'"
    )
    assert err("shardwise.toml", 'production = "yes"\n') == (
        "shardwise.toml:1: production must be true or false, got 'yes'"
    )
    assert err("shardwise.toml", 'default_deny_namespaces = "serving"\n') == (
        "shardwise.toml:1: default_deny_namespaces must be a list of namespace names or globs, got 'serving'"
    )
    assert err(".shardwise.yaml", "default_deny_namespaces: [serving, '']\n") == (
        ".shardwise.yaml:1: default_deny_namespaces must be a list of namespace names or globs, got ['serving', '']"
    )


def test_enforcement_levels_and_codes():
    assert err("shardwise.toml", '[enforcement]\nSW106 = "off"\n') == (
        "shardwise.toml:2: enforcement.SW106 must be one of 'disabled', 'advisory', 'mandatory', got 'off'"
    )
    assert err("shardwise.toml", '[enforcement]\nsharded = "disabled"\n') == (
        "shardwise.toml:2: 'sharded' in enforcement is not a rule code (SWnnn)"
    )
    assert err("shardwise.toml", '[enforcement]\nSW999 = "disabled"\n', known={"SW104"}) == (
        "shardwise.toml:2: enforcement names rule SW999, which does not exist"
    )
    assert err(".shardwise.yaml", "enforcement: [SW104]\n") == (
        ".shardwise.yaml:1: enforcement must be a table of rule code = level"
    )


def test_suppression_without_reason_is_an_error_at_its_entry():
    text = """\
        [[suppress]]
        code = "SW104"
        reason = "measured"

        [[suppress]]
        code = "SW106"
        subject = "*"
        """
    assert err("shardwise.toml", text) == (
        "shardwise.toml:5: suppress entry 2 suppresses SW106 without a reason; write down why the rule "
        'does not apply (reason = "...")'
    )
    assert err(".shardwise.yaml", "suppress:\n  - code: SW104\n    reason: '  '\n") == (
        ".shardwise.yaml:2: suppress entry 1 suppresses SW104 without a reason; write down why the rule "
        'does not apply (reason = "...")'
    )


def test_suppression_entry_shape():
    assert err(".shardwise.yaml", "suppress:\n  - code: SW104\n    reason: r\n    rule: x\n") == (
        ".shardwise.yaml:4: unknown key 'rule' in suppress entry 1 (expected one of: code, subject, reason)"
    )
    assert err(".shardwise.yaml", "suppress:\n  - reason: r\n") == (
        '.shardwise.yaml:2: suppress entry 1 needs a rule code (code = "SWnnn")'
    )
    assert err(".shardwise.yaml", "suppress: SW104\n") == (
        ".shardwise.yaml:1: suppress must be a list of {code, subject, reason} entries"
    )
    assert err(".shardwise.yaml", "suppress:\n  - code: SW104\n    reason: r\n    subject: 3\n") == (
        ".shardwise.yaml:4: suppress entry 1: subject must be a non-empty glob string"
    )


def test_parse_errors_carry_lines():
    assert err("shardwise.toml", 'fail_on = "mandatory"\nkv_reserve = \n') == (
        "shardwise.toml:2: cannot parse TOML: Invalid value"
    )
    # the config file's YAML error has its column too, as a manifest's (adopt19)
    assert err(".shardwise.yaml", "fail_on: [\n") == (
        ".shardwise.yaml:2:1: cannot parse YAML: did not find expected node content")
    assert err(".shardwise.yaml", "- a\n- b\n") == (
        ".shardwise.yaml: a config file is a mapping of settings, got list"
    )


def test_explicit_missing_config_file(tmp_path):
    with pytest.raises(InputError) as e:
        load_config(str(tmp_path / "nope.toml"))
    assert str(e.value) == f"{tmp_path / 'nope.toml'}: cannot read config file: No such file or directory"


def test_gitops_revision_is_one_branch_name():
    assert parse_config("shardwise.toml", 'gitops_revision = " main "\n').gitops_revision == "main"
    assert parse_config(".shardwise.yaml", "gitops_revision: release-1\n").gitops_revision == "release-1"
    assert parse_config("shardwise.toml", "").gitops_revision is None
    for bad, shown in (("1", "1"), ('""', "''"), ('"main dev"', "'main dev'"), ('["main"]', "['main']")):
        assert err("shardwise.toml", f"fail_on = 'mandatory'\ngitops_revision = {bad}\n") == (
            f"shardwise.toml:2: gitops_revision must be a branch name, got {shown}")
