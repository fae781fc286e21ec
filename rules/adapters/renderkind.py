"""Which directories are rendered rather than read (a Helm chart, a kustomization), told from their files
alone: the input selection asks this of every directory named on the command line without importing the
renderer (:mod:`.charts`, which runs helm and kustomize as subprocesses)."""

from __future__ import annotations

import os
from collections.abc import Iterable

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")

__all__ = ["GITOPS_KINDS", "KUSTOMIZATION_FILES", "has_gitops", "render_kind", "to_render"]

#: The kinds of the GitOps objects that name a chart or kustomization to render (:mod:`.gitops`).
GITOPS_KINDS = frozenset({"Application", "ApplicationSet", "HelmRelease", "Kustomization"})


def to_render(path: str) -> str | None:
    """The directory to render when ``path`` is named on the command line: a chart or kustomization
    directory other than the current one, or the ``Chart.yaml`` or kustomization file of one; else None."""
    if os.path.isdir(path):
        if os.path.abspath(path) == os.getcwd():
            return None
        return path if render_kind(path) is not None else None
    name = os.path.basename(path)
    if name == "Chart.yaml" or name in KUSTOMIZATION_FILES:
        return os.path.dirname(path) or "."
    return None


def render_kind(directory: str) -> str | None:
    """``"helm"`` for a chart directory, ``"kustomize"`` for a kustomization directory, else None. A ``Chart.yaml``
    or kustomization file that is there but no regular file (a FIFO, a directory, a link that loops or leads nowhere)
    still makes the directory one to render: the renderer says what is wrong with that file (fuzz13: the
    directory was read as plain manifests, its templates' placeholders were the errors, and the file unnamed)."""
    if os.path.lexists(os.path.join(directory, "Chart.yaml")):
        return "helm"
    if any(os.path.lexists(os.path.join(directory, f)) for f in KUSTOMIZATION_FILES):
        return "kustomize"
    return None


def has_gitops(skipped: Iterable[str], mentioned_subjects: Iterable[str]) -> bool:
    """Whether a run read a GitOps object: an unread kind it counted (``skipped``) or the subject of an SW005 record
    (``Application argocd/x``). Nothing more is looked at when it did not: a run without one pays nothing."""
    return any(k in GITOPS_KINDS for k in skipped) or any(
        s.split(" ", 1)[0] in GITOPS_KINDS for s in mentioned_subjects)
