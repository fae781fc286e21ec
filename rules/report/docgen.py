"""Rule documentation generated from each rule's :class:`~shardwise.rules.engine.RuleMeta`.

``shardwise docs`` writes ``rules/docs/SWnnn.md`` (one page per rule: What it does / Why is this
bad? / Example / Use instead / Remediation / References / enforcement and severity) and
``rules/docs/README.md`` (the index); ``--check`` fails when a page is missing, stale or left over
from a rule that no longer exists. :func:`rules_table_markdown` is the rule list the project README
carries between ``<!-- rules:start -->`` and ``<!-- rules:end -->``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2

from ..catalog.accelerators import accelerators
from ..checks.registry import ALL_RULES
from ..engine import RuleMeta
from ..model.errors import InputError

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs"
START, END = "<!-- rules:start -->", "<!-- rules:end -->"
_PAGE = re.compile(r"^SW\d{3}\.md$")


def all_metas() -> list[RuleMeta]:
    return [r.meta for r in ALL_RULES]


def fence_lang(example: str) -> str:
    """``console`` for a command line, ``yaml`` for everything else."""
    first = example.lstrip().split("\n", 1)[0]
    if first.startswith(("vllm ", "$ ", "shardwise ", "pulumi ", "kubectl ", "python ")):
        return "console"
    return "yaml"


def _env() -> Any:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).resolve().parent / "templates")),
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["fence_lang"] = fence_lang
    return env


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render_rule_page(meta: RuleMeta) -> str:
    return _env().get_template("rule.md.j2").render(meta=meta).rstrip("\n") + "\n"


def rules_table_markdown(metas: Iterable[RuleMeta] | None = None, link_prefix: str = "rules/docs/") -> str:
    """A Markdown table of every rule: code (linked to its page), name, enforcement, severity, summary."""
    metas = list(metas) if metas is not None else all_metas()
    rows = ["| Code | Name | Enforcement | Severity | Summary |", "|---|---|---|---|---|"]
    for m in metas:
        rows.append(
            f"| [{m.code}]({link_prefix}{m.code}.md) | `{m.name}` | {m.enforcement_text} | {m.severity} "
            f"| {_cell(m.summary)} |"
        )
    return "\n".join(rows) + "\n"


def accelerators_table_markdown() -> str:
    """A Markdown table of the vendor table's families: resources (vLLM devices per unit), NCCL, TP across
    hosts, whether the layout counts the devices, and the source."""
    rows = ["| Family | Resources (vLLM devices per unit) | DRA device classes | NCCL | TP across hosts | "
            "Layout counts devices | Source |", "|---|---|---|---|---|---|---|"]
    yes = {True: "yes", False: "no"}
    for a in accelerators():
        spans = {**a.resources, **{f"{p}*": v for p, v in a.resource_prefixes.items()}}
        res = ", ".join(f"`{r}` ({lo})" if lo == hi else f"`{r}` ({lo}–{hi})" for r, (lo, hi) in spans.items())
        classes = ", ".join(f"`{c}`" for c in a.dra_device_classes) or "—"
        rows.append(f"| {_cell(a.title)} | {res} | {classes} | {yes[a.nccl]} | {yes[a.tp_across_hosts]} | "
                    f"{yes[a.layout_counts_devices]} | {a.source} |")
    return "\n".join(rows) + "\n"


def render_index(metas: Iterable[RuleMeta] | None = None) -> str:
    table = rules_table_markdown(metas, link_prefix="")
    return _env().get_template("rules_index.md.j2").render(
        table=table.rstrip("\n"), accelerators=accelerators_table_markdown().rstrip("\n")).rstrip("\n") + "\n"


def expected_pages(metas: Iterable[RuleMeta] | None = None) -> dict[str, str]:
    """File name → content of every generated page."""
    metas = list(metas) if metas is not None else all_metas()
    pages = {f"{m.code}.md": render_rule_page(m) for m in metas}
    pages["README.md"] = render_index(metas)
    return pages


def stale_pages(out: str | os.PathLike[str] = DEFAULT_OUT, metas: Iterable[RuleMeta] | None = None) -> list[str]:
    """Pages under ``out`` that are missing, differ from the metadata, or belong to no rule."""
    out = Path(out)
    want = expected_pages(metas)
    stale = []
    for name, text in want.items():
        p = out / name
        try:
            have = p.read_text(encoding="utf-8")
        except OSError:
            have = None
        if have != text:
            stale.append(str(p))
    if out.is_dir():
        for p in sorted(out.iterdir()):
            if _PAGE.match(p.name) and p.name not in want:
                stale.append(str(p))
    return stale


def write_docs(out: str | os.PathLike[str] = DEFAULT_OUT, metas: Iterable[RuleMeta] | None = None) -> list[str]:
    """Write every page that changed and remove pages of rules that no longer exist; return them."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    want = expected_pages(metas)
    changed = []
    for name, text in want.items():
        p = out / name
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
            changed.append(str(p))
    for p in sorted(out.iterdir()):
        if _PAGE.match(p.name) and p.name not in want:
            p.unlink()
            changed.append(str(p))
    return changed


def readme_block(text: str, table: str, path: str = "README.md") -> str:
    """``text`` with the block between the markers replaced by ``table``."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < 0 or end < start:
        raise InputError(f"no '{START}' … '{END}' block to update", path)
    return text[: start + len(START)] + "\n" + table + text[end:]


def update_readme(path: str, check: bool = False, metas: Iterable[RuleMeta] | None = None) -> bool:
    """Update (or with ``check`` only compare) the README's rule table; True when it was stale."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    new = readme_block(text, rules_table_markdown(metas), path)
    if new == text:
        return False
    if not check:
        Path(path).write_text(new, encoding="utf-8")
    return True
