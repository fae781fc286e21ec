"""Reports of one lint run: text, JSON, SARIF 2.1.0, GitHub annotations and a Markdown comment.

A :class:`Report` holds the findings, the inventory they came from and the settings of the run;
each format is a module with ``render(report, color=False) -> str``, and a front end imports only the one
asked for (:func:`shardwise.rules.app.run.render`; jinja2 only for Markdown), so the linter starts fast.

The code lives in named modules; this face re-exports their public names (import from here):
:mod:`.result` (the :class:`Report`), :mod:`.summary` (each workload's sizing summary) and :mod:`.formats`
(the formats and where each report goes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .formats import FORMATS, destinations, parse_format
from .result import Report, metas_of, pascal_case

if TYPE_CHECKING:
    from .summary import group_subject, workload_summary

#: :mod:`.summary`'s names, imported on their first use (:func:`__getattr__`): a text report shows no summary
_FROM_SUMMARY = frozenset({"group_subject", "workload_summary"})


def __getattr__(name: str) -> Any:
    if name in _FROM_SUMMARY:
        from . import summary

        value = getattr(summary, name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS",
    "Report",
    "destinations",
    "group_subject",
    "metas_of",
    "parse_format",
    "pascal_case",
    "workload_summary",
]
