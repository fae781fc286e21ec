"""Names every rendering shares: the labels shardwise puts on what it creates, vLLM's health path, and
the formatting of label values and quantities."""

from __future__ import annotations

import re

LABEL_NAME = "app.kubernetes.io/name"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_GROUP = "shardwise.dev/serving-group"
LABEL_ROLE = "role"
HEALTH_PATH = "/health"

_LABEL_VALUE_BAD = re.compile(r"[^A-Za-z0-9._-]+")


def label_value(value: object) -> str:
    """A string usable as a Kubernetes label value (63 characters of [A-Za-z0-9._-])."""
    text = _LABEL_VALUE_BAD.sub("-", str(value)).strip("-._")
    return text[:63].rstrip("-._")


def fmt_num(x: float) -> str:
    return f"{x:g}"


def fmt_gi(n: int) -> str:
    return f"{n}Gi"
