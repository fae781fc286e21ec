"""shardwise: capacity-aware checks and Pulumi components for serving LLMs with vLLM."""

from __future__ import annotations

import os as _os

# In a checkout, rules/ and components/ sit beside this folder, not in it (pyproject.toml maps them into the package):
# make setup's editable install puts a link to this folder on sys.path with a .pth path entry, which costs nothing
# at start-up (setuptools' finder hook imported pathlib, urllib.parse, ipaddress, importlib.util and more in every
# start of the environment's interpreter, about 50M instructions), and the repository root joins this package's
# path here. In an installed wheel rules/ is in this folder and nothing is added.
if not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "rules")):
    _root = _os.path.dirname(_os.path.dirname(_os.path.realpath(__file__)))
    if _os.path.isfile(_os.path.join(_root, "rules", "PulumiPolicy.yaml")) and _root not in __path__:
        __path__.append(_root)

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
