"""Lists in finding messages: each name once, in the order met, and a count for the rest."""

from __future__ import annotations

from collections.abc import Iterable

#: Names a message shows before it counts the rest.
SHOWN = 6


def listed(names: Iterable[str], shown: int = SHOWN) -> str:
    """``a, b, c`` with repeats left out, the first ``shown`` written and ``and N more`` for the rest
    (a folder of samples can put dozens of Services named alike in one namespace)."""
    unique = list(dict.fromkeys(names))
    if len(unique) <= shown:
        return ", ".join(unique)
    return f"{', '.join(unique[:shown])} and {len(unique) - shown} more"
