"""The error a component raises for bad arguments: every finding at once, each with its property path."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi


class ArgumentsError(pulumi.InputPropertyError):
    """``pulumi.InputPropertyError`` for all problems of one component's arguments.

    ``property_path`` and ``reason`` name the first problem (what the Pulumi engine shows for an
    ``InputPropertyError``); ``errors`` lists every ``{"property_path", "reason"}``, in the order they
    were found, and ``str()`` prints them all, one per line, with when they were found
    (construction, or when an Output resolved).
    """

    def __init__(self, component: str, findings: Sequence[tuple[str, str]], when: str = "at construction") -> None:
        if not findings:
            raise ValueError("ArgumentsError needs at least one finding")
        unique: list[tuple[str, str]] = []
        for f in findings:
            if f not in unique:
                unique.append(f)
        path, reason = unique[0]
        super().__init__(path, reason)
        self.component = component
        self.when = when
        self.errors: list[pulumi.InputPropertyErrorDetails] = [
            {"property_path": p, "reason": r} for p, r in unique
        ]

    def __str__(self) -> str:
        n = len(self.errors)
        head = f"{self.component}: {n} invalid argument{'s' if n > 1 else ''} ({self.when})"
        return "\n".join([head, *(f"  {e['property_path']}: {e['reason']}" for e in self.errors)])
