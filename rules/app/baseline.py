"""A baseline: the findings a repository already holds, recorded so that only new ones are reported.

``shardwise lint --create-baseline FILE`` writes the run's findings to FILE; ``--baseline FILE`` reports
only the findings FILE does not hold. An entry is a **fingerprint**, never a line number nor a message:

- ``code``: the rule;
- ``object``: the finding's subject (``Deployment serving/llama``, ``NodePool gpu``, ``SecurityGroup efa``);
- ``field``: what on the object the finding is about, where the message names it
  (:func:`~shardwise.rules.report.fingerprint.field_of`);
- ``file``: the file, relative to the repository root (the folder holding ``.git`` above the working
  directory, else the working directory), in ``/`` form; ``urn``: the Pulumi URN of a finding known by it;
- ``count``: how many findings have this fingerprint.

Moving lines, reformatting a document or reordering the documents of a file changes none of these. A
**renamed or moved file** keeps its objects: matching is in two passes, first on the whole fingerprint,
then, for the findings still unmatched, on code, object and field alone against the entries still unused
(whatever their file). So a renamed file's findings stay baselined, while a *copy* of a baselined object
into a new file (the original still there, its entry used by it) is new.

Findings that are never baselined: a suppressed finding (it carries its own reason and does not block)
and an internal error (a rule crashed: it always blocks).

The file is JSON, one entry per line, sorted, with a format version (:data:`FORMAT_VERSION`): the same
findings write the same bytes. A file that cannot be read, is not JSON, is not a shardwise baseline or
has another format version is a :class:`~shardwise.rules.model.errors.InputError` (exit 2): a baseline
is never silently ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import Finding
from ..model.errors import InputError
from ..report.fingerprint import identity, repository_root
from ..report.formats import utf8_text

#: The marker key of a baseline file and the format version this shardwise reads and writes.
MARKER = "shardwise_baseline"
FORMAT_VERSION = 1

_KEYS = ("code", "object", "field", "file", "urn", "count")

@dataclass(frozen=True, order=True)
class Entry:
    """One fingerprint of a baseline (without its count)."""

    code: str
    object: str
    field: str
    file: str | None
    urn: str | None

    @property
    def anywhere(self) -> tuple[str, str, str]:
        """The fingerprint without its file: what a renamed file's findings still match."""
        return (self.code, self.object, self.field)


def baselinable(f: Finding) -> bool:
    return not f.suppressed and not f.internal


def entry_of(f: Finding, root: Path) -> Entry:
    """The fingerprint of ``f`` (:func:`~shardwise.rules.report.fingerprint.identity`). A file name that is not UTF-8
    is held as the text report writes it (``bad\\xff.yaml``), when written and when matched: JSON can hold its bytes
    only as lone surrogate escapes, which shardwise's own JSON reader refuses (a baseline kept in the linted tree)."""
    return Entry(*identity(f, root))


def _sort_key(item: tuple[Entry, int]) -> tuple[str, str, str, str, str]:
    e = item[0]
    return (e.file or "", e.urn or "", e.code, e.object, e.field)


def dumps(entries: dict[Entry, int]) -> str:
    """The baseline file's text: the marker and version, then one entry per line, sorted by file, URN,
    code, object and field."""
    rows = [json.dumps({"code": e.code, "object": e.object, "field": e.field, "file": e.file, "urn": e.urn,
                        "count": n}, ensure_ascii=False)
            for e, n in sorted(entries.items(), key=_sort_key)]
    body = ",\n    ".join(rows)
    findings = f"[\n    {body}\n  ]" if rows else "[]"
    # anything else that is not UTF-8 (a lone surrogate) as the bytes it stands for, written out: written as is, a
    # file name that is not UTF-8 made --create-baseline an internal error (hostile9)
    return utf8_text(f'{{\n  "{MARKER}": {FORMAT_VERSION},\n  "findings": {findings}\n}}\n', "text")


def create(findings: Iterable[Finding], root: Path | None = None) -> dict[Entry, int]:
    """The baseline of ``findings``: each baselinable finding's fingerprint and how many share it."""
    root = root or repository_root()
    out: dict[Entry, int] = {}
    for f in findings:
        if baselinable(f):
            e = entry_of(f, root)
            out[e] = out.get(e, 0) + 1
    return out


def _bad(name: str, what: str) -> InputError:
    return InputError(f"--baseline: {what}; write it with `shardwise lint --create-baseline {name}`", name)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {key!r} is written twice in one object")
    return doc


def parse(text: str, name: str) -> dict[Entry, int]:
    """The entries of a baseline file's ``text`` (``name`` names it in errors), or :class:`InputError`."""
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except ValueError as e:
        raise _bad(name, f"not a shardwise baseline: not JSON ({e})") from None
    except RecursionError:  # was an internal error (hostile9)
        raise _bad(name, "not a shardwise baseline: JSON nested too deeply") from None
    if not isinstance(doc, dict) or MARKER not in doc:
        raise _bad(name, f'not a shardwise baseline (no "{MARKER}" key)')
    version = doc[MARKER]
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise _bad(name, f"baseline format version {json.dumps(version)}; this shardwise reads version "
                         f"{FORMAT_VERSION}")
    rows = doc.get("findings")
    if not isinstance(rows, list):
        raise _bad(name, 'not a shardwise baseline ("findings" is not a list)')
    out: dict[Entry, int] = {}
    for i, row in enumerate(rows):
        if (not isinstance(row, dict) or set(row) != set(_KEYS)
                or not all(isinstance(row[k], str) for k in ("code", "object", "field"))
                or not all(row[k] is None or isinstance(row[k], str) for k in ("file", "urn"))
                or not isinstance(row["count"], int) or isinstance(row["count"], bool) or row["count"] < 1):
            raise _bad(name, f"entry {i + 1} of \"findings\" is not a baseline entry (the keys "
                             f"{', '.join(_KEYS)}; count a whole number from 1)")
        entry = Entry(row["code"], row["object"], row["field"], row["file"], row["urn"])
        out[entry] = out.get(entry, 0) + row["count"]
    return out


def load(path: str) -> dict[Entry, int]:
    """The baseline in file ``path``, or :class:`InputError`: unreadable, not UTF-8, not a baseline, or of
    another format version."""
    from ..model.files import read_file_bytes

    try:
        data = read_file_bytes(path)
    except InputError as e:
        # a first CI run names the file before anyone wrote it: say how to write it (newuser9)
        how = (f"; create it once with `shardwise lint PATH… --create-baseline {path}` over the paths the run lints, "
               "and commit it") if not os.path.lexists(path) else ""
        raise InputError(f"--baseline: {e.message}{how}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "not a shardwise baseline: not UTF-8 text") from None
    return parse(text, path)


@dataclass
class Matched:
    """Findings split by a baseline: the new ones, those it holds, and its entries no finding matched."""

    new: list[Finding]
    baselined: list[Finding]
    stale: int  # entries (counted with their counts) that no finding of the run matched, of the files it linted


def _outside(e: Entry, root: Path, linted: list[Path]) -> bool:
    """Whether entry ``e`` is of a file outside every linted path: a run over part of the repository (a hook's
    `args: [deploy/]`) could not have matched it, so it is not stale."""
    if e.file is None:
        return False
    path = root / e.file
    return not any(path == p or path.is_relative_to(p) for p in linted)


def match(findings: list[Finding], baseline: dict[Entry, int], root: Path | None = None,
          linted: list[str] | None = None) -> Matched:
    """Split ``findings`` (in their order) by ``baseline``: first on the whole fingerprint, then, for those
    still unmatched, on code, object and field against the entries still unused, in the baseline's order.
    With ``linted`` (the paths the run read), an unused entry of a file outside all of them is not counted
    stale."""
    root = root or repository_root()
    read = None if linted is None else [Path(os.path.abspath(p)) for p in linted]
    left = dict(baseline)
    keys = [entry_of(f, root) if baselinable(f) else None for f in findings]
    held = [False] * len(findings)
    for i, key in enumerate(keys):
        if key is not None and left.get(key, 0) > 0:
            left[key] -= 1
            held[i] = True
    spare: dict[tuple[str, str, str], list[Entry]] = {}
    for e, _ in sorted(left.items(), key=_sort_key):
        spare.setdefault(e.anywhere, []).append(e)
    for i, key in enumerate(keys):
        if key is None or held[i]:
            continue
        for e in spare.get(key.anywhere, ()):
            if left[e] > 0:
                left[e] -= 1
                held[i] = True
                break
    return Matched(
        new=[f for f, h in zip(findings, held, strict=True) if not h],
        baselined=[f for f, h in zip(findings, held, strict=True) if h],
        stale=sum(n for e, n in left.items() if read is None or not _outside(e, root, read)),
    )
