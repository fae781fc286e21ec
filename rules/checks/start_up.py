"""The start-up verdict of a layout, as SW101 and SW102 give it: one function that ``plan`` reads from the findings
lint gives the same layout, so that the two never disagree (mend36)."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import Finding

#: The rules whose findings are the start-up verdict of a layout (:func:`start_up_verdict`).
START_UP_RULES = ("SW101", "SW102")


def start_up_verdict(findings: Iterable[Finding]) -> str:
    """``yes``, ``maybe`` or ``no``: whether vLLM starts a layout, as SW101 (the weights and the margin outside the KV
    budget) and SW102 (one request of max_model_len, and what vLLM refuses at start-up: a quantisation method below
    its minimum compute capability, a dtype, a length) judge it in ``findings`` (suppressed ones aside): ``maybe``
    where one of them is advisory (inside the estimate's error band, or it cannot decide: a method read from a
    checkpoint's name only, a release only assumed), ``no`` where one is mandatory (a sure refusal outranks a
    possible one), else ``yes``. A finding that
    holds one of these rules back (a "cannot decide" merged into another rule's) counts as theirs. ``plan`` read its
    verdict from the sizing and said ``yes`` where SW102 could not decide (mend36)."""
    levels = {f.level for f in findings if not f.suppressed and any(c in START_UP_RULES for c in f.codes)}
    if "mandatory" in levels:
        return "no"
    return "maybe" if "advisory" in levels else "yes"


def start_up_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The advisory findings of ``findings`` that make :func:`start_up_verdict` ``maybe``."""
    return [f for f in findings if not f.suppressed and f.level == "advisory"
            and any(c in START_UP_RULES for c in f.codes)]
