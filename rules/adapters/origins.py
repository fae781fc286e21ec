"""Where each object of a kustomize build came from: kustomize's build annotations, read and removed (newuser16).

A finding on an object a kustomize overlay builds points at a line of the build's output (``DIR/kustomization.yaml
(kustomize build):143``), a line no file of the repository has. kustomize can say where each object came from:
``buildMetadata: [originAnnotations]`` in a kustomization (kustomize v4.5.5+) adds ``config.kubernetes.io/origin``
(``path:`` of the resource file, relative to that kustomization; ``repo:``/``ref:`` for a remote base), and
``transformerAnnotations`` adds ``alpha.config.kubernetes.io/transformations`` (sigs.k8s.io/kustomize
``api/internal/utils/annotations.go``: ``OriginAnnotationKey``, ``TransformerAnnotationKey``). What kustomize v5.8.1
writes, measured (tests/adapters/test_origins.py):

- the overlay is built through a kustomization that lists it and sets ``buildMetadata``, so nothing is written into
  the user's tree; kustomize refuses an absolute path there (``new root ... cannot be absolute``): the entry is the
  overlay's path relative to the wrapping folder, and ``path:`` is relative to the wrapping folder too;
- the transformations annotation names the kustomization a transformer is configured in (``configuredIn``) and its
  kind (``PatchTransformer``), never the patch file, and it is on every object the transformer visited, a Service
  that a ``target: {kind: Deployment}`` patch did not change included: it does not say which object a patch changed.

:func:`strip_build_metadata` removes both annotations from the build's output text (and the ``annotations:`` key
they leave empty), so that no rule reads them and every other line is what a build without them emits, and says,
for each document, the lines it spans and its origin.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The annotations ``buildMetadata: [originAnnotations, transformerAnnotations]`` adds.
ORIGIN = "config.kubernetes.io/origin"
TRANSFORMATIONS = "alpha.config.kubernetes.io/transformations"
_BUILD_KEYS = (ORIGIN, TRANSFORMATIONS)


@dataclass
class DocOrigin:
    """One document of a build's output, after :func:`strip_build_metadata`: its first and last line (1-based, of
    the stripped text) and where kustomize says it came from."""

    first: int
    last: int
    #: ``path:`` of the origin annotation (relative to the kustomization that asked for it), "" where none
    path: str = ""
    #: ``repo:`` and ``ref:`` of a remote base's object, "" where none
    repo: str = ""
    ref: str = ""
    #: a generated object's (a ``configMapGenerator``'s): the kustomization that configures its generator, "" where
    #: none (its origin annotation names no ``path``)
    generated_in: str = ""
    #: the ``configuredIn`` kustomizations the transformations annotation names, in its order, each once
    configured_in: tuple[str, ...] = ()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _field(block: list[str], key: str) -> str:
    """The plain scalar ``key: VALUE`` of a block's lines (the annotation's text, dedented or not), "" where none."""
    for line in block:
        text = line.strip()
        if text.startswith("- "):
            text = text[2:].strip()
        if text.startswith(key + ":"):
            value = text[len(key) + 1:].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value
    return ""


def _strip_doc(lines: list[str]) -> tuple[list[str], DocOrigin]:
    """One document's lines without the build annotations, and its origin (lines not yet numbered)."""
    origin = DocOrigin(0, 0)
    out: list[str] = []
    in_meta = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _indent(line) == 0 and line.strip():
            in_meta = line.rstrip() == "metadata:"
        if not (in_meta and line.rstrip() == "  annotations:"):
            out.append(line)
            i += 1
            continue
        # the annotations of metadata: keep every entry but the build's
        kept: list[str] = []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > 2):
            entry = [lines[i]]
            i += 1
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > 4):
                entry.append(lines[i])
                i += 1
            key = entry[0].strip().split(":", 1)[0].strip("'\"")
            if key == ORIGIN:
                origin.path, origin.repo, origin.ref, origin.generated_in = (
                    _field(entry[1:], k) for k in ("path", "repo", "ref", "configuredIn"))
            elif key == TRANSFORMATIONS:
                seen = [_field([t], "configuredIn") for t in entry[1:] if "configuredIn:" in t]
                origin.configured_in = tuple(dict.fromkeys(s for s in seen if s))
            else:
                kept.extend(entry)
        if kept:
            out.append(line)
            out.extend(kept)
    return out, origin


def strip_build_metadata(text: str) -> tuple[str, list[DocOrigin]]:
    """``text`` (what ``kustomize build`` emitted) without the build annotations, and each document's origin."""
    docs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.rstrip() == "---":
            docs.append([])
        else:
            docs[-1].append(line)
    out: list[str] = []
    origins: list[DocOrigin] = []
    for n, lines in enumerate(docs):
        if n:
            out.append("---")
        kept, origin = _strip_doc(lines)
        origin.first = len(out) + 1
        out.extend(kept)
        origin.last = len(out)
        if kept:
            origins.append(origin)
    return "\n".join(out) + ("\n" if out else ""), origins
