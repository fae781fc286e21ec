"""A pull-request comment in Markdown, rendered from ``templates/report.md.j2`` and its partials.

Per workload a table row: GPUs = replicas × TP × PP (× DP where not 1), GPU type, weights / KV cache / headroom GiB
per GPU, KV tokens, the concurrency ceiling at max_model_len and at the p95 context, nodes and the
on-demand cost per hour and month (:mod:`shardwise.rules.capacity.cost`); then the per-GPU memory as a Mermaid
chart (:mod:`.charts`) and the prices used, with their source and date. Then the
findings: blocking first, then the rest, then suppressed ones with their reasons. Autoescape is off
(this is Markdown, not HTML); table cells escape ``|``. Every value the template writes goes through
:func:`prose` (the environment's ``finalize``): a control character a repository wrote (a newline in
a file name) is an escape, so no value starts a line of its own (a GitHub Actions workflow command on stdout),
and outside code spans ``[`` and ``<`` are escaped, so a name a repository chose (a file, an object) cannot
become a link, an image or HTML in the pull-request comment (fuzz14), and an ``@name`` outside code spans gets a
zero-width space after its ``@``, so posting the comment notifies no user or team (fuzz15); a file and line is a
code span whose fence is longer than any run of backticks in it (:func:`code`). Text built here (the chart, a rule's
link, a table cell) is :class:`Lines`, written as it is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2

from .charts import memory_chart
from .result import Report
from .text import visible

TEMPLATES = Path(__file__).resolve().parent / "templates"


class Lines(str):
    """Text this module built, line breaks included (the Mermaid chart): written as it is."""

    __slots__ = ()


#: A run of backticks (CommonMark pairs a run with the next run of the same length: a code span), and what
#: :func:`prose` escapes outside code spans.
_TICKS = re.compile(r"`+")
#: An ``@`` that GitHub reads as a mention (of a user, or an ``org/team``) notifies them when the comment is posted:
#: one that no letter, digit or underscore precedes and a letter or digit follows.
_ACTIVE = re.compile(r"[\[<]|(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])")
#: What an ``@`` mention is written as: a zero-width space after the ``@`` (as an HTML entity, visible in the
#: comment's source) shows the same text and mentions no one.
_UNMENTION = "@&#8203;"


def prose(text: str) -> str:
    """``text`` as Markdown prose: :func:`.text.visible`, then ``[`` backslash-escaped and ``<`` written ``&lt;``
    outside the code spans CommonMark would see in it, so no link, image, autolink or HTML tag a repository wrote is
    rendered, and an ``@name`` is written ``@&#8203;name``, so it mentions (notifies) no one (fuzz15); code spans (a
    rule's `` `serving` ``) are left as they are (fuzz14). GitHub's extended autolinks (a bare ``https://…`` or
    ``www.…``) are not escaped: their text is their own address."""
    text = visible(text)
    if not _ACTIVE.search(text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        m = _TICKS.search(text, i)
        if m is None:
            out.append(_ACTIVE.sub(_md_escape, text[i:]))
            break
        out.append(_ACTIVE.sub(_md_escape, text[i:m.start()]))
        slashes = m.start() - len(text[:m.start()].rstrip("\\"))
        if slashes % 2:  # an escaped backtick (``\```) opens no span: literal, and the run's rest is read on
            out.append("`")
            i = m.start() + 1
            continue
        close = next((c for c in _TICKS.finditer(text, m.end()) if len(c.group()) == len(m.group())), None)
        if close is None:  # an unmatched run is literal text: the rest is read on after it
            out.append(m.group())
            i = m.end()
        else:
            out.append(text[m.start():close.end()])
            i = close.end()
    return "".join(out)


def _md_escape(m: re.Match[str]) -> str:
    if m.group() == "<":
        return "&lt;"
    if m.group() == "@":
        return _UNMENTION
    j = m.start()
    while j > 0 and m.string[j - 1] == "\\":
        j -= 1
    escaped = (m.start() - j) % 2  # ``\[`` is a literal ``[`` already: prose twice is prose
    return m.group() if escaped else "\\" + m.group()


def code(value: Any) -> Lines:
    """``value`` as one inline code span, :func:`.text.visible`: its fence one backtick longer than the longest run of
    backticks in it (CommonMark), padded with a space where it starts or ends with a backtick."""
    text = visible(str(value))
    longest = max((len(m.group()) for m in _TICKS.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Lines(f"{fence}{pad}{text}{pad}{fence}")


def where(file: Any, line: Any = None, column: Any = None) -> Lines:
    """``file:line`` or ``file:line:column`` (``(input)`` for no file) as a code span (:func:`code`)."""
    at = f":{line}:{column}" if line and column else f":{line}" if line else ""
    return code(f"{file or '(input)'}{at}")


def cell(value: Any) -> Lines:
    """A Markdown table cell: ``|`` escaped, newlines as ``<br>``, None as an en dash; :func:`prose`."""
    if value is None or value == "":
        return Lines("–")
    text = str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")
    return Lines(prose(text).replace("&lt;br>", "<br>"))


def num(value: Any, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def int_or_dash(value: Any) -> str:
    return "–" if value is None else f"{value:,}"


def at(value: Any, context: Any) -> str:
    if value is None or context is None:
        return "–"
    return f"{value:,} @ {context:,}"


def gpus(w: dict[str, Any]) -> str:
    r, tp, pp, total = w["replicas"], w["tensor_parallel_size"], w["pipeline_parallel_size"], w["gpus_total"]
    dp = w.get("data_parallel_size")
    factors = (r, tp, pp) if dp == 1 else (r, tp, pp, dp)  # DP shown where it is not 1 (or is not known)
    if total is None:
        return cell(" × ".join("?" if x is None else str(x) for x in factors))
    return f"{total} = {' × '.join(str(x) for x in factors)}"


def money(value: Any) -> str:
    return "–" if value is None else f"${value:,.2f}"


def nodes(cost: dict[str, Any]) -> str:
    """``2 × p5.48xlarge`` (``*`` when the instance type is assumed from the GPU)."""
    if cost.get("nodes") is None:
        return "–"
    return f"{cost['nodes']} × {cost['instance_type']}{'*' if cost.get('instance_assumed') else ''}"


def counts(by: dict[str, int]) -> str:
    """``{"ConfigMap": 2, "Secret": 1}`` as ``ConfigMap×2, Secret×1``."""
    return ", ".join(f"{k}×{n}" for k, n in by.items())


def _finalize(value: Any) -> Any:
    return prose(value) if isinstance(value, str) and not isinstance(value, Lines) else value


def environment(loader_dir: Path = TEMPLATES) -> Any:
    env = jinja2.Environment(
        finalize=_finalize,
        loader=jinja2.FileSystemLoader(str(loader_dir)),
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(cell=cell, code=code, where=where, num=num, int_or_dash=int_or_dash, at=at, gpus=gpus,
                       counts=counts, money=money,
                       nodes=nodes)
    return env


def render(report: Report, color: bool = False) -> str:
    env = environment()

    def rule_link(code: str) -> str:
        meta = report.meta_for(code)
        url = meta.doc_url if meta else None  # SHARDWISE_DOCS_URL; else `shardwise explain CODE` says it
        return Lines(f"[{code}]({url})" if url else f"**{code}**")

    env.filters["rule_link"] = rule_link
    ordered = report.ordered()
    blocking = [f for f in ordered if report.is_blocking(f)]
    advisory = [f for f in ordered if not f.suppressed and not report.is_blocking(f)]
    suppressed = [f for f in ordered if f.suppressed]
    priced = {w["cost"]["instance_type"]: w["cost"] for w in report.workloads
              if w["cost"]["instance_type"] and w["cost"]["price_per_hour_usd"] is not None}
    prices = [{"instance_type": k, "price_per_hour_usd": c["price_per_hour_usd"], "source": c["price_source"],
               "date": c["price_date"]} for k, c in sorted(priced.items())]
    text = env.get_template("report.md.j2").render(
        chart=Lines(memory_chart(report.workloads).rstrip("\n")),
        prices=prices,
        assumed=any(w["cost"]["instance_assumed"] for w in report.workloads),
        spot=[w["subject"] for w in report.workloads
              if w["cost"].get("spot_only") and w["cost"]["price_per_hour_usd"] is not None],
        summary=report.summary(),
        input_errors=report.input_errors(),
        workloads=report.workloads,
        findings=report.findings,
        blocking=blocking,
        advisory=advisory,
        suppressed=suppressed,
    )
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"
