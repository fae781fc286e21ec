"""What a change does to capacity and cost: the tree at a base git ref against the working tree.

:func:`diff_refs` writes the base commit's tree (``git ls-tree``, ``git cat-file``) into a temporary directory,
lints the same paths there (from the same place in the repository, so each tree's own config and ignore files
apply) and in the working tree, and :func:`compare` puts the two reports side by side. Every figure
comes from the lint reports (``Report.workloads``: the capacity rules' own sizing, and
:mod:`shardwise.rules.capacity.cost`), nothing is sized twice.

Per workload (matched by subject, ``Deployment serving/llama``): GPUs and their type, nodes and the
instance type, replicas, TP/PP/DP, the KV cache tokens and the concurrency at the p95 context of one
replica, on-demand cost per hour and month, cost per million output tokens where a throughput is
declared. In total: GPUs by type, nodes, replicas, cost, findings (mandatory and advisory, not
suppressed) and which findings the change adds and fixes — a finding is the same finding when its
code and subject are (its message may change with the numbers).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

from ..engine import Finding
from ..model.errors import InputError, ShardwiseError
from ..model.files import MAX_FILE_BYTES
from ..model.wall import wall_limit
from ..report import Report
from .run import LintOptions, lint_report

WORKING_TREE = "working tree"
_FIELDS = ("gpu", "gpus", "nodes", "instance_type", "replicas", "layout", "kv_cache_tokens", "concurrency_at_p95",
           "p95_context", "hourly_usd", "monthly_usd", "usd_per_million_output_tokens")


class GitError(ShardwiseError):
    """A git command failed (not a repository, an unknown ref)."""


class GitTimeout(GitError):
    """A git command did not finish in its wall time: said as that, never read as a ref that is not there."""


#: The wall time one git call of ``shardwise diff`` may take at a load of one per core or less (``git cat-file``
#: of the base is the long one: seconds on a large repository). It catches a git that is blocked (a lock, a hook);
#: times the load per core (:func:`~..model.wall.wall_limit`, loadlimits1) so a busy runner does not stop a good one.
_GIT_TIMEOUT_S = 300


def _git(args: Sequence[str], cwd: str | None = None, binary: bool = False, out: IO[bytes] | None = None,
         feed: IO[bytes] | None = None) -> Any:
    """What git writes, as text (or bytes with ``binary``); with ``out``, written there instead (``git cat-file``: a
    base of gigabytes is never held in memory); ``feed``: what git reads on its standard input."""
    limit_s = wall_limit(_GIT_TIMEOUT_S)
    try:
        if out is None and feed is None:
            proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False, timeout=limit_s)
        else:
            proc = subprocess.run(["git", *args], cwd=cwd, stdin=feed, stdout=out or subprocess.PIPE,
                                  stderr=subprocess.PIPE, check=False, timeout=limit_s)
    except FileNotFoundError:
        raise GitError("git is not installed: shardwise diff needs it to read the base ref") from None
    except subprocess.TimeoutExpired:  # was a traceback
        scaled = f" ({_GIT_TIMEOUT_S} s times the machine's load per core)" if limit_s > _GIT_TIMEOUT_S else ""
        raise GitTimeout(f"git {' '.join(args[:2])} did not finish in {limit_s} s{scaled}") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        # git reads these from the environment: a stale one (a CI step's, a hook's) points it elsewhere
        steer = [f"{k}={os.environ[k]}" for k in ("GIT_DIR", "GIT_WORK_TREE") if k in os.environ]
        said = f" (the environment sets {' and '.join(steer)})" if steer else ""
        raise GitError(f"git {' '.join(args[:2])}: {msg[-1] if msg else f'exit status {proc.returncode}'}{said}")
    if out is not None:
        return None
    return proc.stdout if binary else proc.stdout.decode("utf-8", "replace").strip()


def _shallow(cwd: str | None) -> bool:
    """Whether the repository is a shallow clone (``git rev-parse --is-shallow-repository``)."""
    try:
        return bool(_git(["rev-parse", "--is-shallow-repository"], cwd) == "true")
    except GitError:
        return False


def snapshot(ref: str, dest: str, cwd: str | None = None, left_out: list[tuple[str, str]] | None = None) -> str:
    """Write the tree of commit ``ref`` into ``dest`` (:func:`_extract_base`); return the full commit id. What could not
    be extracted is added to ``left_out``: (its path in the commit, why)."""
    try:
        commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd)
    except GitTimeout:
        raise
    except GitError:
        hint = ""
        if "/" not in ref and not ref.startswith("-"):
            # a CI checkout (actions/checkout with fetch-depth: 0) has the base branch only as a remote-tracking ref
            remote = _remote_refs(ref, cwd)
            if remote:
                hint = (f"; this checkout has it as {' and '.join(remote)} only (a CI checkout has no local branch "
                        f"but its own): shardwise diff {remote[0]}")
        if not hint and _shallow(cwd):
            # actions/checkout fetches one commit by default: the base is not missing, its history was not fetched
            hint = ("; this is a shallow clone, which holds only the history it fetched: fetch the base "
                    "(git fetch --unshallow, or actions/checkout with fetch-depth: 0)")
        raise GitError(f"{ref!r} is not a commit of this repository (git rev-parse --verify {ref}){hint}") from None
    _extract_base(commit, dest, cwd, [] if left_out is None else left_out)
    return commit


#: ``git ls-tree -r -z``'s line: mode, type, object name, a tab, the path.
_TREE_ENTRY = re.compile(rb"(\d+) (\w+) ([0-9a-f]+)\t(.*)", re.DOTALL)


def _extract_base(commit: str, dest: str, cwd: str | None, left_out: list[tuple[str, str]]) -> None:
    """Write the tree of ``commit`` into the empty folder ``dest`` as the commit holds it: folders, regular files (the
    executable bit kept), symbolic links whatever they name (a link to ``/dev/zero`` or out of the tree is written as
    the link it is, so the base is linted as the working tree is: named, not followed; fuzz15), a submodule as the
    tree its checkout holds at the commit the base records (:func:`_fill_submodules`; an empty folder where it is not
    checked out). What cannot be written is added to ``left_out`` with why.

    The paths come from ``git ls-tree``, the bytes from ``git cat-file --batch`` (to a temporary file), so the base is
    the commit's, whatever its ``.gitattributes`` say: ``git archive`` left out what ``export-ignore`` marks (a
    repository with ``/deploy export-ignore``, as many keep deployment files out of their release tarballs, had no
    manifests at its base: every workload of an unchanged tree read as added) and rewrote what ``export-subst`` marks.

    Time and memory are bounded by what the commit holds, never by its shape (fuzz22): the archive was read whole
    into memory (a committed 1 GiB file: 2.1 GB), and tarfile's ``data`` filter resolved every member's whole path
    (one ``lstat`` per folder above it: a chain of 3,000 folders, which git stores and ``git fast-import`` writes,
    took minutes, quadratic in the depth). A file is written only in a folder this extraction made (never through a
    link, nothing overwritten: ``O_EXCL``); a path with an empty part, ``.`` or ``..`` (no checkout writes one), one
    the system refuses (longer than ``PATH_MAX``) and an object the repository does not hold are left out and said
    (what is below a folder left out is not). A file larger than :data:`~..model.files.MAX_FILE_BYTES` is written as
    its first ``MAX_FILE_BYTES + 1`` bytes and extended to its size without data (a sparse file): every read of it
    sees what the working tree's copy gives, a file larger than shardwise reads, at no cost in disk or memory."""
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit], cwd, binary=True)
    entries = []
    for line in listing.split(b"\0"):
        m = _TREE_ENTRY.fullmatch(line)
        if m is not None:
            entries.append((m.group(1), m.group(2), m.group(3), os.fsdecode(m.group(4))))
    submodules: list[tuple[str, str]] = []  # (path, commit) of each submodule folder written
    top, filtered = _filtered(entries, cwd)
    made = {""}  # the folders (relative to dest) this extraction made: real folders, below no link
    failed: set[str] = set()  # the folders it could not make (said once)
    with tempfile.TemporaryFile(prefix="shardwise-base-") as wanted, \
            tempfile.TemporaryFile(prefix="shardwise-base-") as blobs:
        wanted.write(b"".join(oid + b"\n" for _, kind, oid, _ in entries if kind == b"blob"))
        wanted.seek(0)
        _git(["cat-file", "--batch"], cwd, out=blobs, feed=wanted)
        blobs.seek(0)
        for mode, kind, oid, name in entries:
            size = start = -1
            if kind == b"blob":  # its bytes follow in the batch, whether it is written or not
                head = blobs.readline().split()
                size = int(head[2]) if len(head) == 3 and head[1] == b"blob" and head[2].isdigit() else -1
                start = blobs.tell()
            if any(p in ("", ".", "..") for p in name.split("/")):
                left_out.append((name, "git names it with an empty part, '.' or '..', which no checkout writes"))
            elif kind == b"blob" and size < 0:
                left_out.append((name, f"its object {oid.decode()} is not in the repository"))
            elif _folder_for(name, dest, made, failed, left_out):
                try:
                    if name in filtered and top is not None:
                        _write_filtered(mode, oid.decode("ascii", "replace"), name, top, os.path.join(dest, name))
                    else:
                        _write_entry(mode, kind, size, blobs, os.path.join(dest, name))
                except OSError as e:
                    left_out.append((name, f"it could not be written from git: {e.strerror or e}"))
                else:
                    if kind == b"commit":
                        submodules.append((name, oid.decode("ascii", "replace")))
            if size >= 0:
                blobs.seek(start + size + 1)  # past its bytes, read or not, and the newline after them
    if submodules:
        _fill_submodules(submodules, dest, cwd, left_out)


#: The attributes whose conversion gives a checkout other bytes than the blob's in a way a reader of YAML sees: a
#: filter driver's smudge (git-lfs: the blob is a pointer, the checkout the file; git-crypt) and a working-tree
#: encoding. End-of-line conversion is not among them: YAML reads CRLF as LF, and both sides lint the same.
_CONVERTING = ("filter", "working-tree-encoding")


def _filtered(entries: Sequence[tuple[bytes, bytes, bytes, str]], cwd: str | None) -> tuple[str | None, set[str]]:
    """The repository's top folder and the paths of the files of ``entries`` that a checkout converts
    (:data:`_CONVERTING`, by the working tree's attributes, as ``git checkout`` wrote the working tree's copies):
    ``git check-attr``, one call."""
    files = [name for mode, kind, _, name in entries if kind == b"blob" and mode != b"120000" and "\0" not in name]
    if not files:
        return None, set()
    try:
        top = _git(["rev-parse", "--show-toplevel"], cwd)
        with tempfile.TemporaryFile(prefix="shardwise-base-") as names:
            names.write(b"".join(os.fsencode(n) + b"\0" for n in files))
            names.seek(0)
            out = _git(["check-attr", "-z", "--stdin", *_CONVERTING], top, binary=True, feed=names)
    except GitTimeout:
        raise
    except GitError:
        return None, set()
    fields = out.split(b"\0")
    converted = {os.fsdecode(fields[i]) for i in range(0, len(fields) - 2, 3)
                 if fields[i + 2] not in (b"unspecified", b"unset")}
    return top, converted


def _write_filtered(mode: bytes, oid: str, name: str, top: str, path: str) -> None:
    """The file ``name`` whose checkout the repository converts (a smudge filter, a working-tree encoding) at ``path``,
    as ``git cat-file --filters`` gives it: the bytes ``git checkout`` writes, as ``git archive`` wrote them before
    fuzz22 (a git-lfs file read as its pointer at the base and as its content in the working tree was every workload of
    it added by an unchanged tree; review36). At most ``MAX_FILE_BYTES + 1`` bytes are written (a smudged file may be
    gigabytes: the rest is not read), within git's wall time."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    limit_s = wall_limit(_GIT_TIMEOUT_S)
    with os.fdopen(os.open(path, flags, 0o755 if mode == b"100755" else 0o644), "wb") as f, \
            subprocess.Popen(["git", "cat-file", "--filters", f"--path={name}", oid], cwd=top,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        fired: list[bool] = []

        def stop() -> None:
            fired.append(True)
            proc.kill()

        timer = threading.Timer(limit_s, stop)
        timer.start()
        try:
            left = MAX_FILE_BYTES + 1
            while left > 0 and proc.stdout is not None:
                chunk = proc.stdout.read(min(left, 1 << 20))
                if not chunk:
                    break
                f.write(chunk)
                left -= len(chunk)
            if left <= 0:
                proc.kill()  # larger than shardwise reads: the rest is never read
            _, err = proc.communicate()
        finally:
            timer.cancel()
    if fired:
        raise GitTimeout(f"git cat-file --filters {name} did not finish in {limit_s} s")
    if left > 0 and proc.returncode != 0:
        msg = err.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"git cat-file --filters: {msg[-1] if msg else f'exit status {proc.returncode}'}")


def _fill_submodules(submodules: Sequence[tuple[str, str]], dest: str, cwd: str | None,
                     left_out: list[tuple[str, str]]) -> None:
    """Write into each submodule folder of the base the tree of the commit the base records for it, read from the
    working tree's checkout of that submodule, so both sides hold the same files: the working tree lints a checked-out
    submodule's files, and a base that left the folder empty read every workload in it as added by an unchanged tree
    (``+18 GPUs ... 4 findings added (1 at or above mandatory)``, review36). A submodule that is not checked out (its
    folder empty or missing, as a clone without ``--recurse-submodules`` leaves it) stays an empty folder, as the
    working tree has it; one checked out whose repository does not hold the base's commit is left out and said (a base
    input error: ``git -C PATH fetch``), never passed over as empty. Nested submodules are read the same way, each
    from its own checkout; a checkout reached through a link is not read (the working tree's lint names a link, it
    does not follow it)."""
    try:
        top = os.path.realpath(_git(["rev-parse", "--show-toplevel"], cwd))
    except GitTimeout:
        raise
    except GitError:
        return
    for name, commit in submodules:
        checkout = os.path.join(top, name)
        if os.path.realpath(checkout) != checkout or not os.path.lexists(os.path.join(checkout, ".git")):
            continue  # not checked out (or through a link): the working tree holds no file of it either
        try:
            own = os.path.realpath(_git(["rev-parse", "--show-toplevel"], checkout))
        except GitTimeout:
            raise
        except GitError:
            continue
        if own != checkout:
            continue
        try:
            _git(["cat-file", "-e", f"{commit}^{{commit}}"], checkout)
        except GitTimeout:
            raise
        except GitError:
            left_out.append((name, f"it is a submodule whose checkout does not hold the base's commit {commit} "
                                   f"(git -C {name} fetch)"))
            continue
        inner: list[tuple[str, str]] = []
        _extract_base(commit, os.path.join(dest, name), checkout, inner)
        left_out.extend((f"{name}/{n}", why) for n, why in inner)


def _folder_for(name: str, dest: str, made: set[str], failed: set[str], left_out: list[tuple[str, str]]) -> bool:
    """Whether the folder of ``name`` is one this extraction made, making those above it that are missing; a folder
    the system refuses is said once, and what is below it is left out without a word more."""
    folder = name.rpartition("/")[0]
    missing = []
    while folder not in made:
        missing.append(folder)
        folder = folder.rpartition("/")[0]
    for folder in reversed(missing):
        if folder in failed:
            return False
        try:
            os.mkdir(os.path.join(dest, folder), 0o755)
        except OSError as e:
            failed.add(folder)
            left_out.append((folder, f"it could not be written from git: {e.strerror or e}"))
            return False
        made.add(folder)
    return True


def _write_entry(mode: bytes, kind: bytes, size: int, blobs: IO[bytes], path: str) -> None:
    """One entry of the tree at ``path``: a submodule as an empty folder, a link as the link its blob names, a file
    (created, never opened through a link) as at most ``MAX_FILE_BYTES + 1`` bytes of its blob, and its size."""
    if kind == b"commit":
        os.mkdir(path, 0o755)
    elif kind != b"blob":
        return
    elif mode == b"120000":
        os.symlink(os.fsdecode(blobs.read(min(size, 65536))), path)
    else:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        with os.fdopen(os.open(path, flags, 0o755 if mode == b"100755" else 0o644), "wb") as f:
            left = min(size, MAX_FILE_BYTES + 1)
            while left > 0:
                chunk = blobs.read(min(left, 1 << 20))
                if not chunk:
                    break
                f.write(chunk)
                left -= len(chunk)
            if size > MAX_FILE_BYTES + 1:
                f.truncate(size)


def _left_out_errors(left_out: Sequence[tuple[str, str]], prefix: str, paths: Sequence[str]) -> list[InputError]:
    """The base's members :func:`snapshot` could not extract, as input errors of the base, where ``paths`` (relative to
    the current directory, ``prefix`` in the repository) reach them: the base is said to be read in part, never
    passed over (a chain of folders deeper than the system's longest path, fuzz22)."""
    out = []
    for name, why in left_out:
        if not name.startswith(prefix):
            continue
        rel = name[len(prefix):]
        if any(p in (".", "./") or rel == p.rstrip("/") or rel.startswith(p.rstrip("/") + "/")
               for p in (os.path.normpath(q) for q in paths)):
            out.append(InputError(f"not read: {why}", rel))
    return out


def _remove_tree(top: str) -> None:
    """Remove the folder ``top`` and all below it, links not followed, as far as the system lets: ``shutil.rmtree``
    without its recursion, which raised ``RecursionError`` out of ``shardwise diff`` (an internal error, and the base
    left in the temporary folder) at a base holding a chain of more than about 1,000 folders (fuzz22)."""
    stack = [(top, False)]
    while stack:
        folder, emptied = stack.pop()
        if emptied:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            continue
        stack.append((folder, True))
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, False))
                else:
                    os.unlink(e.path)
            except OSError:
                continue


def _remote_refs(branch: str, cwd: str | None) -> list[str]:
    """The remote-tracking refs named ``REMOTE/branch`` (``origin/main``), shortest remote first."""
    try:
        out = _git(["for-each-ref", "--format=%(refname:short)", f"refs/remotes/*/{branch}"], cwd)
    except GitError:
        return []
    return sorted((r for r in out.splitlines() if r.endswith(f"/{branch}")), key=lambda r: (r != f"origin/{branch}", r))


# ------------------------------------------------------------------------------------------ compare


def workload_row(w: dict[str, Any]) -> dict[str, Any]:
    """The figures of one workload (``Report.workloads`` entry) the diff compares."""
    cost = w.get("cost") or {}
    tp, pp, dp = w.get("tensor_parallel_size"), w.get("pipeline_parallel_size"), w.get("data_parallel_size")
    layout = None
    if tp and pp:
        layout = f"TP{tp}×PP{pp}×DP{dp or 1}"
    return {
        "gpu": w.get("gpu"),
        "gpus": cost.get("gpus"),
        "nodes": cost.get("nodes"),
        "instance_type": cost.get("instance_type"),
        "instance_assumed": bool(cost.get("instance_assumed")),
        "replicas": w.get("replicas"),
        "layout": layout,
        "tensor_parallel_size": tp,
        "pipeline_parallel_size": pp,
        "data_parallel_size": dp,
        "kv_cache_tokens": w.get("kv_cache_tokens"),
        "concurrency_at_p95": w.get("concurrency_at_p95"),
        "p95_context": w.get("p95_context"),
        "hourly_usd": cost.get("hourly_usd"),
        "monthly_usd": cost.get("monthly_usd"),
        "output_tokens_per_second": cost.get("output_tokens_per_second"),
        "usd_per_million_output_tokens": cost.get("usd_per_million_output_tokens"),
        "weights_gib_per_gpu": w.get("weights_gib_per_gpu"),
        "kv_cache_gib_per_gpu": w.get("kv_cache_gib_per_gpu"),
        "headroom_gib_per_gpu": w.get("headroom_gib_per_gpu"),
        "gpu_memory_gib": w.get("gpu_memory_gib"),
        "note": w.get("note") or cost.get("note"),
    }


def _keyed(workloads: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for w in workloads:
        key, n = w["subject"], 2
        while key in out:  # two workloads of one subject (two files): keep both
            key, n = f"{w['subject']} #{n}", n + 1
        out[key] = w
    return out


def totals(report: Report) -> dict[str, Any]:
    """GPUs by type, nodes, replicas, cost and findings of one side."""
    gpus: Counter[str] = Counter()
    nodes = replicas = 0
    hourly = 0.0
    not_priced: list[str] = []
    for w in report.workloads:
        row = workload_row(w)
        if row["gpus"] is not None:
            gpus[row["gpu"] or "unknown GPU"] += row["gpus"]
        nodes += row["nodes"] or 0
        replicas += row["replicas"] or 0
        if row["hourly_usd"] is None:
            not_priced.append(w["subject"])
        else:
            hourly += row["hourly_usd"]
    active = [f for f in report.findings if not f.suppressed]
    # mend24: a side whose workloads are none of them priced has no cost total (None, "–"), not $0.00; a side of
    # no workloads costs nothing, and one of some priced counts those (the others listed as not priced)
    priced = len(not_priced) < len(report.workloads) or not report.workloads
    return {
        "gpus": dict(sorted(gpus.items())),
        "gpus_total": sum(gpus.values()),
        "nodes": nodes,
        "replicas": replicas,
        "hourly_usd": round(hourly, 4) if priced else None,
        "monthly_usd": round(hourly * _hours_per_month(), 4) if priced else None,
        "not_priced": not_priced,
        "workloads": len(report.workloads),
        "mandatory": sum(1 for f in active if f.level == "mandatory"),
        "advisory": sum(1 for f in active if f.level == "advisory"),
        "input_errors": len(report.errors),
    }


def _hours_per_month() -> int:
    from ..capacity.cost import HOURS_PER_MONTH

    return HOURS_PER_MONTH


def _finding_dict(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "name": f.name, "level": f.level, "subject": f.subject, "message": f.coded_message,
            "file": f.location.file, "line": f.location.line}


def finding_changes(base: Report, head: Report) -> tuple[list[Finding], list[Finding]]:
    """Findings the change adds (in head, not in base) and fixes (in base, not in head), by code and
    subject, counting repeats; suppressed findings are left out. A baseline (``--baseline``) changes neither list:
    the findings it holds count as the others do (:meth:`DiffResult.in_baseline` says which)."""
    def active(r: Report) -> list[Finding]:
        return [f for f in [*r.ordered(), *r.baselined] if not f.suppressed]

    before = Counter((f.code, f.subject) for f in active(base))
    after = Counter((f.code, f.subject) for f in active(head))
    added: list[Finding] = []
    fixed: list[Finding] = []
    seen: Counter[tuple[str, str]] = Counter()
    for f in active(head):
        key = (f.code, f.subject)
        seen[key] += 1
        if seen[key] > before[key]:
            added.append(f)
    seen.clear()
    for f in active(base):
        key = (f.code, f.subject)
        seen[key] += 1
        if seen[key] > after[key]:
            fixed.append(f)
    return added, fixed


@dataclass
class DiffResult:
    """Two lint reports side by side."""

    base_ref: str
    base_commit: str | None
    head_ref: str
    base: Report
    head: Report
    paths: list[str] = field(default_factory=list)

    @property
    def head_errors(self) -> list[InputError]:
        return self.head.errors

    def workloads(self) -> list[dict[str, Any]]:
        """One entry per workload of either side: subject, status (added, removed, changed, unchanged),
        base and head figures (None on the side it is missing from)."""
        b, h = _keyed(self.base.workloads), _keyed(self.head.workloads)
        out = []
        for key in [*h, *(k for k in b if k not in h)]:
            before = workload_row(b[key]) if key in b else None
            after = workload_row(h[key]) if key in h else None
            if before is None:
                status = "added"
            elif after is None:
                status = "removed"
            else:
                status = "changed" if any(before[k] != after[k] for k in _FIELDS) else "unchanged"
            name = (h.get(key) or b[key])["name"]
            out.append({"subject": key, "name": name, "status": status, "base": before, "head": after})
        return out

    def prices(self) -> list[dict[str, Any]]:
        """The instance prices the figures use, with their source and date."""
        seen: dict[str, dict[str, Any]] = {}
        for report in (self.base, self.head):
            for w in report.workloads:
                c = w.get("cost") or {}
                if c.get("instance_type") and c.get("price_per_hour_usd") is not None:
                    seen.setdefault(c["instance_type"], {
                        "instance_type": c["instance_type"], "price_per_hour_usd": c["price_per_hour_usd"],
                        "source": c.get("price_source"), "date": c.get("price_date")})
        return sorted(seen.values(), key=lambda p: p["instance_type"])

    def finding_changes(self) -> tuple[list[Finding], list[Finding]]:
        """The findings the change adds and fixes (:func:`finding_changes`)."""
        return finding_changes(self.base, self.head)

    def in_baseline(self, f: Finding) -> bool:
        """Whether the head's baseline (``--baseline``) holds ``f``: then ``shardwise lint --baseline`` does not
        fail on it, and the diff marks it."""
        return any(f is b for b in self.head.baselined)

    def as_object(self) -> dict[str, Any]:
        from shardwise import __version__

        found_added, found_fixed = self.finding_changes()
        added = [{**_finding_dict(f), "in_baseline": self.in_baseline(f)} for f in found_added]
        fixed = list(map(_finding_dict, found_fixed))
        tb, th = totals(self.base), totals(self.head)
        return {
            "version": __version__,
            "base": {"ref": self.base_ref, "commit": self.base_commit},
            "head": {"ref": self.head_ref},
            "paths": self.paths,
            "totals": {"base": tb, "head": th, "change": _change(tb, th)},
            "workloads": self.workloads(),
            "findings": {"added": added, "fixed": fixed},
            "base_input_errors": self.base.input_errors(),
            "head_input_errors": self.head.input_errors(),
            "prices": self.prices(),
            "hours_per_month": _hours_per_month(),
        }

    def summary_line(self) -> str:
        """The line on stderr: what the change does to GPUs, nodes and cost, and the findings it adds and fixes. The
        diff always exits 0 (a report, not a gate): the added findings at or above ``--fail-on`` (or the config file's
        ``fail_on``) are counted, as those ``shardwise lint`` fails on, so the line says whether the change would
        pass the gate (newuser6: ``--fail-on`` was taken and read by nothing)."""
        from ..capacity.layout import plural
        from ..report.result import REPORT_ONLY

        t = self.as_object()
        c = t["totals"]["change"]
        added, _ = self.finding_changes()
        blocking = sum(1 for f in added if self.head.is_blocking(f) and not self.in_baseline(f))
        held = sum(1 for f in added if self.in_baseline(f))
        level = self.head.gate  # fail-on none (report only): what would fail at mandatory, failing nothing
        fails = "would fail on" if self.head.report_only else "fails on"
        only = f"; {REPORT_ONLY}" if self.head.report_only else ""
        gate = (f" ({blocking} at or above {level}: shardwise lint {fails} "
                f"{'it' if blocking == 1 else 'them'}{only})" if blocking else
                f" (none at or above {level}{only})" if added else "")
        if self.head.baseline_file:
            them = "it" if blocking == 1 else "them"
            gate = (f" ({blocking} at or above {level} and not in the baseline "
                    f"{self.head.baseline_file}: shardwise lint --baseline {fails} {them}; "
                    f"{held} in the baseline{only})" if blocking else
                    f" (none at or above {level} outside the baseline {self.head.baseline_file}; {held} in "
                    f"it{only})" if added else "")
        return (f"shardwise diff {self.base_ref}..{self.head_ref}: {c['gpus_total']:+d} GPUs, {c['nodes']:+d} nodes, "
                f"{_money_delta(c['hourly_usd'])}/hour, {plural(len(added), 'finding')} added{gate}, "
                f"{len(t['findings']['fixed'])} fixed")


def _change(tb: dict[str, Any], th: dict[str, Any]) -> dict[str, Any]:
    gpus = {k: th["gpus"].get(k, 0) - tb["gpus"].get(k, 0) for k in sorted({*tb["gpus"], *th["gpus"]})}
    return {
        "gpus": {k: v for k, v in gpus.items() if v},
        "gpus_total": th["gpus_total"] - tb["gpus_total"],
        "nodes": th["nodes"] - tb["nodes"],
        "replicas": th["replicas"] - tb["replicas"],
        "hourly_usd": _money_change(tb["hourly_usd"], th["hourly_usd"]),
        "monthly_usd": _money_change(tb["monthly_usd"], th["monthly_usd"]),
        "mandatory": th["mandatory"] - tb["mandatory"],
        "advisory": th["advisory"] - tb["advisory"],
    }


def _money_change(base: float | None, head: float | None) -> float | None:
    """The change of a cost total; None where a side has none (its workloads not priced)."""
    return None if base is None or head is None else round(head - base, 4)


def _money_delta(x: float | None) -> str:
    return "–" if x is None else f"{'+' if x >= 0 else '−'}${abs(x):,.2f}"


def compare(base: Report, head: Report, base_ref: str, base_commit: str | None = None,
            head_ref: str = WORKING_TREE, paths: Sequence[str] = ()) -> DiffResult:
    return DiffResult(base_ref, base_commit, head_ref, base, head, list(paths))


def _drop_missing(report: Report, paths: Sequence[str]) -> None:
    """A path that does not exist at the base is new in the change, not an error of the base."""
    missing = {p for p in paths}
    report.inventory.errors[:] = [e for e in report.inventory.errors
                                  if not (e.file in missing and e.message == "no such file or directory")]


def diff_refs(base_ref: str, paths: Sequence[str], options: LintOptions, head_ref: str = WORKING_TREE) -> DiffResult:
    """Lint ``paths`` at ``base_ref`` and in the working tree (paths relative to the current directory,
    which must be inside a git repository) and compare them."""
    paths = list(paths) or ["."]
    try:
        prefix = _git(["rev-parse", "--show-prefix"])
    except GitError as e:
        raise GitError(f"shardwise diff runs inside a git repository: {e}") from None
    from ..adapters.gitops import snapshot_of

    tmp = tempfile.mkdtemp(prefix="shardwise-diff-")
    try:
        left_out: list[tuple[str, str]] = []
        commit = snapshot(base_ref, tmp, left_out=left_out)
        here = os.getcwd()
        where = os.path.join(tmp, prefix)
        os.makedirs(where, exist_ok=True)
        # the base's GitOps objects are this checkout's at the base commit (the snapshot has no .git)
        with snapshot_of(tmp, commit):
            os.chdir(where)
            try:  # the base without the baseline: it marks the head's findings, never what the change adds or fixes
                base = lint_report(paths, replace(options, baseline=None))
            finally:
                os.chdir(here)
    finally:
        _remove_tree(tmp)
    _drop_missing(base, paths)
    base.inventory.errors.extend(_left_out_errors(left_out, prefix, paths))
    head = lint_report(paths, options)
    return compare(base, head, base_ref, commit, head_ref, paths)


def render_diff(result: DiffResult, fmt: str) -> str:
    """The diff as ``markdown`` (a pull-request comment) or ``json``."""
    from ..report.formats import utf8_text

    if fmt == "json":
        import json

        return utf8_text(json.dumps(result.as_object(), indent=2, ensure_ascii=False) + "\n", fmt)
    if fmt == "markdown":
        from ..report.diff_markdown import render

        return utf8_text(render(result), fmt)
    raise ValueError(f"diff writes markdown or json, not {fmt!r}")
