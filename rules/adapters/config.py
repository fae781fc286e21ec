"""The linter's configuration file: ``shardwise.toml`` or ``.shardwise.yaml``.

Precedence, lowest to highest, one explicit tuple (:data:`PRECEDENCE`): built-in defaults, the
config file, command-line flags. A file is found in the current directory when ``--config`` is not
given; when both names exist the run stops, because silently preferring one hides the other.

TOML::

    fail_on = "mandatory"          # or "advisory", or "none" (report only: findings never fail the run)
    unknown = "fail"               # or "warn": a rule that cannot decide is advisory
    kv_reserve = 1.4               # weights × this must fit (gpus_needed's kv_overhead)
    p95_context_tokens = 8192      # declared p95 prompt+output length
    default_deny_namespaces = ["serving", "team-*"]   # their default-deny policy lives elsewhere (SW305)
    exclude = ["charts/**/templates/", "legacy/*.yaml"]   # paths lint does not read (gitignore-like)
    model_dirs = ["models"]        # <dir>/<org>/<name>/config.json for models the catalog lacks
    gitops_revision = "main"       # the branch this checkout stands for (GitOps objects; --gitops-revision wins)
    build_found = true             # build the kustomizations and charts a search meets (--no-build-found: false)
    require_build = false          # true: one met that was not built fails the run (SW005 blocks; --require-build)

    [enforcement]
    SW106 = "disabled"             # disabled | advisory | mandatory

    [[suppress]]
    code = "SW104"
    subject = "Deployment serving/*"   # glob over finding subjects; default "*"
    reason = "benchmarked: TP2 TPOT p95 18 ms vs 31 ms at TP1"

The YAML file has the same keys (``suppress`` is a list of mappings). Unknown keys, wrong types
and suppressions without a reason are input errors naming the file, the line (when known) and the
key.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from ..engine import LintConfig, SuppressionEntry
from ..model.errors import InputError
from ..model.files import read_file_bytes
from .yamlsrc import load_all

CONFIG_NAMES = ("shardwise.toml", ".shardwise.yaml")
PRECEDENCE = ("defaults", "config file", "command line")
LEVELS = ("disabled", "advisory", "mandatory")
#: ``none``: a report-only run (findings never fail it; an input error still exits 2)
FAIL_ON = ("advisory", "mandatory", "none")
_CODE = re.compile(r"^SW\d{3}$")
_TOP_KEYS = (
    "enforcement", "suppress", "kv_reserve", "p95_context_tokens", "unknown", "fail_on",
    "usable_fraction", "production", "default_deny_namespaces", "exclude", "model_dirs",
    "gitops_revision", "build_found", "require_build",
)
_SUPPRESS_KEYS = ("code", "subject", "reason")


@dataclass
class Settings:
    """One run's settings: the engine's :class:`LintConfig` plus the CLI's failure threshold."""

    lint: LintConfig = field(default_factory=LintConfig)
    fail_on: str = "mandatory"
    source: str | None = None  # the config file read, if any
    exclude: list[str] = field(default_factory=list)  # gitignore-like patterns of paths lint does not read
    #: Directories of ``<org>/<name>/config.json`` for models the catalog lacks (relative paths are
    #: relative to the config file's directory).
    model_dirs: tuple[str, ...] = ()
    #: The branch this checkout stands for, for GitOps objects whose source is it (``--gitops-revision`` wins).
    gitops_revision: str | None = None
    #: Build the kustomization leaves and Helm charts met while searching a folder (``--no-build-found`` wins).
    build_found: bool = True


class _Where:
    """Finds the line of a key in the config file (YAML keeps lines; TOML lines are searched)."""

    def __init__(self, path: str, text: str, data: Any) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.data = data

    def line(self, key: str, section: str | None = None, mapping: Any = None) -> int | None:
        line_of = getattr(mapping, "line_of", None)
        if line_of is not None:
            return line_of(key)
        if self.path.endswith((".yaml", ".yml")):
            return None
        in_section = section is None
        pat = re.compile(rf"^\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")
        for i, raw in enumerate(self.lines, 1):
            s = raw.strip()
            if s.startswith("["):
                name = s.strip("[] \t")
                in_section = section is not None and name == section
                if section is None and name == key:
                    return i
                continue
            if in_section and pat.match(raw):
                return i
        return None

    def table_line(self, section: str, index: int) -> int | None:
        """Line of the ``index``-th (1-based) ``[[section]]`` header of a TOML file."""
        n = 0
        for i, raw in enumerate(self.lines, 1):
            if raw.strip().replace(" ", "") == f"[[{section}]]":
                n += 1
                if n == index:
                    return i
        return None

    def error(self, message: str, key: str | None = None, section: str | None = None,
              mapping: Any = None) -> InputError:
        line = self.line(key, section, mapping) if key else None
        return InputError(message, self.path, line)


def discover(cwd: str = ".") -> str | None:
    """The config file in ``cwd``, or None. Both names present is an error. Whatever holds a config file's name is
    the config file: a directory, a FIFO or a link to nothing named ``shardwise.toml`` is an input error when read
    (:func:`load_config`), never passed over as if there were no config file (its settings silently dropped)."""
    found = [n for n in CONFIG_NAMES if os.path.lexists(os.path.join(cwd, n))]
    if len(found) > 1:
        raise InputError(
            f"both {found[0]} and {found[1]} exist in "  # as the run names the folder, never its absolute path (mend21)
            f"{'the current directory' if cwd in ('', '.') else cwd}; keep one or pass --config"
        )
    if not found:
        return None
    return found[0] if cwd in ("", ".") else os.path.join(cwd, found[0])


def _parse(path: str, text: str) -> Any:
    if path.endswith((".yaml", ".yml")):
        docs = list(load_all(text, path))
        if len(docs) > 1:
            raise InputError("a config file holds one YAML document", path)
        return docs[0] if docs else {}
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        raise InputError(f"cannot parse TOML: {msg}", path, line) from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively (fuzz20: an internal error)
        raise InputError("cannot parse TOML: nesting too deep", path) from None
    except ValueError:  # Python's int limit: tomllib lets its "Exceeds the limit (4300 digits)" through
        limit = sys.get_int_max_str_digits()
        m = re.search("[0-9_]{" + str(limit + 1) + ",}", text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        raise InputError(f"cannot parse TOML: a number of more than {limit:,} digits; shardwise reads integers of at "
                         f"most {limit:,} digits", path, line) from None


def _number(w: _Where, data: Any, key: str, lo: float, hi: float, integer: bool) -> float | int:
    v = data[key]
    kind = "an integer" if integer else "a number"
    ok = isinstance(v, int) if integer else isinstance(v, (int, float))
    if isinstance(v, bool) or not ok:
        raise w.error(f"{key} must be {kind}, got {type(v).__name__} {v!r}", key, mapping=data)
    if not lo <= v <= hi:
        raise w.error(f"{key} must be between {lo:g} and {hi:g}, got {v!r}", key, mapping=data)
    return int(v) if integer else float(v)


def _choice(w: _Where, mapping: Any, key: str, choices: tuple[str, ...], name: str,
            section: str | None = None) -> str:
    v = mapping[key]
    if not isinstance(v, str) or v not in choices:
        raise w.error(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {v!r}",
            key, section, mapping,
        )
    return v


def parse_config(path: str, text: str, known_codes: set[str] | None = None) -> Settings:
    """Validate a config file's text into :class:`Settings` (defaults for what it leaves out)."""
    data = _parse(path, text)
    w = _Where(path, text, data)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"a config file is a mapping of settings, got {type(data).__name__}", path)
    settings = Settings(source=path)
    cfg = settings.lint
    for key in data:
        if key not in _TOP_KEYS:
            raise w.error(
                f"unknown key '{key}' (expected one of: {', '.join(_TOP_KEYS)})", str(key), mapping=data
            )
    if "fail_on" in data:
        settings.fail_on = _choice(w, data, "fail_on", FAIL_ON, "fail_on")
    if "unknown" in data:
        cfg.unknown_is_failure = _choice(w, data, "unknown", ("fail", "warn"), "unknown") == "fail"
        cfg.unknown_configured = True
    if "kv_reserve" in data:
        cfg.kv_reserve = float(_number(w, data, "kv_reserve", 1.0, 10.0, integer=False))
    if "usable_fraction" in data:
        cfg.usable_fraction = float(_number(w, data, "usable_fraction", 0.05, 1.0, integer=False))
    if "p95_context_tokens" in data:
        cfg.p95_context_tokens = int(_number(w, data, "p95_context_tokens", 1, 10_000_000, integer=True))
    if "exclude" in data:
        patterns = data["exclude"]
        if isinstance(patterns, str):
            patterns = [patterns]
        if not isinstance(patterns, list) or not all(isinstance(p, str) and p.strip() for p in patterns):
            raise w.error("exclude must be a list of path patterns (gitignore-like, e.g. \"charts/**/templates/\")",
                          "exclude", mapping=data)
        settings.exclude = list(patterns)
    if "production" in data:
        if not isinstance(data["production"], bool):
            raise w.error(f"production must be true or false, got {data['production']!r}", "production",
                          mapping=data)
        cfg.production = data["production"]
        cfg.production_from = f"{os.path.basename(path)} sets `production`"
    for key in ("build_found", "require_build"):
        if key in data and not isinstance(data[key], bool):
            raise w.error(f"{key} must be true or false, got {data[key]!r}", key, mapping=data)
    if "build_found" in data:
        settings.build_found = data["build_found"]
    if "require_build" in data:
        cfg.require_build = data["require_build"]
    if "default_deny_namespaces" in data:
        cfg.default_deny_namespaces = _namespaces(w, data, "default_deny_namespaces")
    if "model_dirs" in data:
        settings.model_dirs = _model_dirs(w, data, path)
    if "gitops_revision" in data:
        value = data["gitops_revision"]
        if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
            raise w.error(f"gitops_revision must be a branch name, got {value!r}", "gitops_revision", mapping=data)
        settings.gitops_revision = value.strip()
    if "enforcement" in data:
        enf = data["enforcement"]
        if not isinstance(enf, dict):
            raise w.error("enforcement must be a table of rule code = level", "enforcement", mapping=data)
        for code, _level in enf.items():
            _check_code(w, str(code), known_codes, "enforcement", enf)
            cfg.enforcement[str(code)] = _choice(  # type: ignore[assignment]
                w, enf, code, LEVELS, f"enforcement.{code}", "enforcement"
            )
    if "suppress" in data:
        entries = data["suppress"]
        if isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise w.error("suppress must be a list of {code, subject, reason} entries", "suppress",
                          mapping=data)
        for i, e in enumerate(entries, 1):
            cfg.suppressions.append(_suppression(w, e, i, known_codes))
    return settings


def _namespaces(w: _Where, data: Any, key: str) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise w.error(f"{key} must be a list of namespace names or globs, got {value!r}", key, mapping=data)
    return tuple(v.strip() for v in value)


def _model_dirs(w: _Where, data: Any, path: str) -> tuple[str, ...]:
    value = data["model_dirs"]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise w.error(f"model_dirs must be a list of directory paths, got {value!r}", "model_dirs", mapping=data)
    base = os.path.dirname(os.path.abspath(path))
    dirs = tuple(os.path.normpath(os.path.join(base, os.path.expanduser(v.strip()))) for v in value)
    for given, full in zip(value, dirs, strict=True):
        if not os.path.isdir(full):
            raise w.error(f"model_dirs: {given.strip()!r} is not a directory ({full})", "model_dirs", mapping=data)
    return dirs


def _check_code(w: _Where, code: str, known_codes: set[str] | None, section: str, mapping: Any) -> None:
    if not _CODE.match(code):
        raise w.error(f"'{code}' in {section} is not a rule code (SWnnn)", code, section, mapping)
    if known_codes is not None and code not in known_codes:
        raise w.error(f"{section} names rule {code}, which does not exist", code, section, mapping)


def _suppression(w: _Where, e: Any, i: int, known_codes: set[str] | None) -> SuppressionEntry:
    where = f"suppress entry {i}"
    line = getattr(e, "line", None) or w.table_line("suppress", i)
    if not isinstance(e, dict):
        raise InputError(f"{where} must be a mapping with code, subject and reason", w.path, line)
    for key in e:
        if key not in _SUPPRESS_KEYS:
            raise w.error(f"unknown key '{key}' in {where} (expected one of: code, subject, reason)",
                          str(key), "suppress", e)
    code = e.get("code")
    if not isinstance(code, str) or not code:
        raise InputError(f"{where} needs a rule code (code = \"SWnnn\")", w.path, line)
    _check_code(w, code, known_codes, where, e)
    subject = e.get("subject", "*")
    if not isinstance(subject, str) or not subject:
        raise w.error(f"{where}: subject must be a non-empty glob string", "subject", "suppress", e)
    reason = e.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise InputError(
            f"{where} suppresses {code} without a reason; write down why the rule does not apply "
            "(reason = \"...\")",
            w.path, line,
        )
    return SuppressionEntry(code=code, reason=reason.strip(), subject=subject)


def load_config(path: str | None = None, cwd: str = ".", known_codes: set[str] | None = None) -> Settings:
    """Read ``path`` (``--config``), or the file discovered in ``cwd``; defaults when there is none."""
    if path is None:
        path = discover(cwd)
        if path is None:
            return Settings()
    try:
        text = read_file_bytes(path).decode("utf-8")  # a regular file only, bounded (..model.files)
    except InputError as e:
        raise InputError(e.message.replace("cannot read: ", "cannot read config file: ", 1), path) from None
    except UnicodeDecodeError:
        raise InputError("config file is not UTF-8 text", path) from None
    return parse_config(path, text, known_codes)
