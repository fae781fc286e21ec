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


def an(noun: str) -> str:
    """``a GPU``, ``an NPU``, ``an HPU``, ``a Neuron device``: the article as the noun is said (an acronym's first
    letter by its name)."""
    word = noun.split(" ", 1)[0]
    spoken = word[:1] in "AEFHILMNORSX" if word.isupper() else word[:1].lower() in "aeiou"
    return f"{'an' if spoken else 'a'} {noun}"
