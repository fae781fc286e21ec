"""plan's start-up verdict from a layout's findings (``checks.start_up``, mend36): the one SW101 and SW102 give."""

from __future__ import annotations

from shardwise.rules.checks.start_up import start_up_findings, start_up_verdict
from shardwise.rules.engine import Finding
from shardwise.rules.model import Location

AT = Location("plan.yaml", 3)


def _f(code: str, level: str, *, undecided: bool = False, suppressed: bool = False,
       held: tuple[str, ...] = ()) -> Finding:
    return Finding(code, "x", level, "high", "m", AT, "Deployment a/b", suppressed=suppressed,  # type: ignore[arg-type]
                   undecided=undecided, held=held)


def test_advisory_is_maybe_mandatory_is_no_none_is_yes() -> None:
    assert start_up_verdict([]) == "yes"
    assert start_up_verdict([_f("SW104", "mandatory"), _f("SW402", "advisory")]) == "yes"  # not about start-up
    assert start_up_verdict([_f("SW102", "advisory", undecided=True)]) == "maybe"  # SW102 cannot decide
    assert start_up_verdict([_f("SW101", "advisory")]) == "maybe"  # within the error band
    assert start_up_verdict([_f("SW101", "mandatory")]) == "no"
    # a sure refusal outranks a possible one: weights that surely do not fit are not made "maybe" by a method SW102
    # cannot decide
    assert start_up_verdict([_f("SW101", "mandatory"), _f("SW102", "advisory")]) == "no"


def test_suppressed_findings_do_not_count_and_held_codes_do() -> None:
    assert start_up_verdict([_f("SW102", "mandatory", suppressed=True)]) == "yes"
    held = _f("SW206", "advisory", undecided=True, held=("SW101", "SW102"))  # a cannot-decide merged into SW206's
    assert start_up_verdict([held]) == "maybe"
    assert start_up_findings([held, _f("SW104", "advisory"), _f("SW102", "mandatory")]) == [held]
