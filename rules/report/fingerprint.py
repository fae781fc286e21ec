"""What identifies a finding whatever line it is on: the parts a baseline entry is made of
(:mod:`shardwise.rules.app.baseline`) and SARIF's ``partialFingerprints`` (:mod:`.sarif`) — the rule, the object
(``Deployment serving/llama``: kind, namespace and name), what on the object the finding is about (:func:`field_of`:
a container, a variable, a flag; the unknown value of a "cannot decide" finding), the file relative to the
repository root with what it was read through, and the Pulumi URN. Never a line number nor a message's figures."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from ..engine import Finding
from .formats import utf8_text

# What a message names on its object, in the forms the rules write them: a container (``container `vllm```),
# an environment variable or capability (``HF_TOKEN``, ``SYS_ADMIN``), an engine flag (``--api-key``), a pod
# spec key (``hostNetwork: true``). Numbers, sizes, image tags, pool lists and prose are not taken.
_CONTAINER = re.compile(r"container `([^`]+)`")
_CAPS = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")
_KEY = re.compile(r"(?<![\w-])([a-z]+[A-Z][A-Za-z]*): ")
_CANNOT = "cannot decide: "


def field_of(f: Finding) -> str:
    """What on its object finding ``f`` is about, derived from its code and message (the rules do not
    carry it): the unknown value of a "cannot decide" finding (``tensor_parallel_size``); for a capacity or
    topology rule (SW1xx, SW2xx) nothing else, since one such finding sizes the whole object and its message
    carries estimates and suggested flags that move with them; for the other rules the names the message
    gives before ``required:``, in order, without repeats: containers, environment variables and capabilities,
    flags, and the pod spec keys it names before its first ``; `` (``container vllm HF_TOKEN``, ``hostNetwork``).
    Two findings with the same field on one object are told apart by count."""
    message = f.message
    if f.undecided and message.startswith(_CANNOT):
        rest = message[len(_CANNOT):]
        first = rest.split(" ", 1)[0].strip("`;,")
        names = [first, *(f"container {c}" for c in _CONTAINER.findall(rest))]
        return " ".join(dict.fromkeys(n for n in names if n))
    if f.code.startswith(("SW1", "SW2")):
        return ""
    message = message.split("required:", 1)[0]  # what is observed, not what the remedy names
    # a pod spec key is taken only where the message observes it, before its first "; ": a remedy or an explanation
    # that names one in prose (``remove privileged from its securityContext: vLLM's CPU build ...``, ``sets
    # `loadBalancerClass: service.k8s.aws/nlb` at creation``) varies with the image or the cluster, not the finding
    # (newuser18: a baselined privileged container came back as new when its image changed from the CPU build)
    observed = message.split("; ", 1)[0]
    names = [*(f"container {c}" for c in _CONTAINER.findall(message)), *_CAPS.findall(message),
             *_FLAG.findall(message), *_KEY.findall(observed)]
    return " ".join(dict.fromkeys(names))


def repository_root(start: str | None = None) -> Path:
    """The folder holding ``.git`` at or above ``start`` (default: the working directory), else ``start``."""
    here = Path(os.path.abspath(start or os.getcwd()))
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def relative_file(file: str | None, root: Path) -> str | None:
    """``file`` (as the run names it: relative to the working directory, or absolute) relative to ``root``,
    with ``/``; None for no file or standard input."""
    if not file or file == "-" or file.startswith("<"):
        return None
    return Path(os.path.relpath(os.path.abspath(file), root)).as_posix()


def identity(f: Finding, root: Path) -> tuple[str, str, str, str | None, str | None]:
    """``code``, ``object``, ``field``, ``file`` and ``urn`` of ``f`` (a baseline entry's fingerprint). A file name that
    is not UTF-8 is held as the text report writes it (``bad\\xff.yaml``)."""
    file = relative_file(f.location.file, root)
    return (f.code, f.subject, field_of(f), utf8_text(file, "text") if file else file, f.location.urn)


def digest(parts: tuple[str, str, str, str | None, str | None]) -> str:
    """32 hex digits of a finding's :func:`identity`, the same on every machine and in every run."""
    text = "\x1f".join(p if p is not None else "\x00" for p in parts)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
