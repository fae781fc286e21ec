"""shardwise: capacity-aware checks and Pulumi components for serving LLMs with vLLM."""

from __future__ import annotations

#: The one place the version is written: pyproject.toml reads it (the wheel), the CLI prints it, the
#: generated policy pack pins it, rules/PulumiPolicy.yaml and CHANGELOG.md repeat it (tests/test_release.py).
__version__ = "0.1.0"


def repository_url() -> str | None:
    """The repository the project will be published under: pyproject.toml's ``[project.urls] Repository``,
    read from the installed metadata (None when shardwise runs without being installed)."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("shardwise").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository":
            return url.strip()
    return None
