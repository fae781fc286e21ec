"""Work shared out over forked processes (rules/engine/forked.py) and the lint steps that use it: the same
answers, in the same order, as one process gives."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from repo_paths import ROOT
from shardwise.rules.engine import forked
from shardwise.rules.engine.forked import Tickets, map_parts, map_pieces, spans

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="fork is Linux-only here")


def test_spans_cover_every_index_once_in_order_with_about_equal_weight():
    assert spans([1] * 10, 2) == [(0, 5), (5, 10)]
    assert spans([1] * 10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert spans([9, 1, 1, 1], 2) == [(0, 1), (1, 4)]  # the heavy first item is a share of its own
    assert spans([1, 1, 1, 9], 2) == [(0, 3), (3, 4)]
    assert spans([5, 5], 4) == [(0, 1), (1, 2)]  # never more shares than items, none empty
    assert spans([0, 0, 0], 2) == [(0, 1), (1, 3)]  # zero weights (empty files) still split
    assert spans([], 2) == [(0, 0)]
    assert spans([3, 4, 5], 1) == [(0, 3)]
    assert spans([1] * 21, 2, first=1.1) == [(0, 11), (11, 21)]  # the first share 1.1 times the other
    assert spans([1] * 20, 3, first=0.5) == [(0, 4), (4, 12), (12, 20)]


@needs_fork
def test_map_parts_returns_each_share_in_order_and_children_run_elsewhere():
    parent = os.getpid()
    got = map_parts(lambda i: (i, i * i, os.getpid() == parent), 3)
    assert [(i, sq) for i, sq, _ in got] == [(0, 0), (1, 1), (2, 4)]
    assert [here for _, _, here in got] == [True, False, False]


@needs_fork
def test_pieces_arrive_in_order_and_what_they_share_stays_shared():
    from shardwise.rules.model import Location

    shared = Location("deploy/a.yaml", 3)

    def share(i: int):
        for k in range(3):
            yield {"share": i, "piece": k, "where": shared, "names": [f"w{i}-{k}", "common"], "pid": os.getpid()}

    got = map_pieces(share, 2)
    assert got[1][0]["pid"] != os.getpid()  # the child's pieces, not a share computed again here
    assert [[(p["share"], p["piece"]) for p in pieces] for pieces in got] == [
        [(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (1, 2)]]
    assert all(p["where"] == shared for pieces in got for p in pieces)
    child = got[1]
    assert child[0]["where"] is child[2]["where"]  # one object on the way back, as it was one object there
    assert [p["names"][0] for p in child] == ["w1-0", "w1-1", "w1-2"]


@needs_fork
def test_the_childs_pieces_are_loaded_while_this_share_is_still_working(tmp_path, monkeypatch):
    """The parent loads each piece a child has sent between the pieces of its own share, not all of them once its
    share is done (then the other process would wait for that unpickling): here the child has finished before the
    parent's share does, and its three pieces and its end record are loaded by the time the parent waits for it."""
    marker = tmp_path / "child done"
    seen: list[tuple[int, bool]] = []
    finish = forked._Stream.finish

    def noting(self):
        seen.append((len(self.pieces), self.done))
        return finish(self)

    monkeypatch.setattr(forked._Stream, "finish", noting)

    def share(i: int):
        if i == 1:
            yield from ({"piece": k} for k in range(3))
            marker.write_text("done")  # after the last piece was written
            return
        yield "first"
        for _ in range(500):
            if marker.exists():
                break
            time.sleep(0.01)
        time.sleep(0.1)  # the end record, written after the marker
        yield "second"

    got = map_pieces(share, 2)
    assert got == [["first", "second"], [{"piece": 0}, {"piece": 1}, {"piece": 2}]]
    assert seen == [(3, True)]


@needs_fork
def test_a_child_that_sent_everything_is_not_waited_for_while_it_exits(monkeypatch):
    """The parent takes a child's share once the child has written its end record and the byte after it, not once
    the child has exited (the kernel releasing a large child's memory held the parent 0.02-0.05 s of each parallel
    step; lintspeed14). Here the child's exit takes 3 s: the share comes back well before, and the child is reaped
    by :func:`forked.reap` (or the next split), so none is left behind."""
    real_exit = os._exit

    def slow_exit(code: int) -> None:
        time.sleep(3)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", slow_exit)  # only the child calls it
    start = time.monotonic()
    assert map_parts(lambda i: i * 10, 2) == [0, 10]
    took = time.monotonic() - start
    monkeypatch.undo()
    assert took < 2.0
    assert len(forked._UNREAPED) == 1
    forked.reap()
    assert forked._UNREAPED == []
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # reaped


@needs_fork
def test_a_child_gone_before_its_end_record_is_waited_for_and_its_share_computed_here():
    """A child that exits (here: is killed) after sending a piece but before its end record closes the pipe
    without the byte: the parent waits for it, reaps it and computes the share itself."""
    parent = os.getpid()

    def share(i: int):
        yield ("piece", i, os.getpid() == parent)
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    assert map_pieces(share, 2) == [[("piece", 0, True)], [("piece", 1, True)]]
    assert forked._UNREAPED == []
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def _explode_in(pid: int) -> str:
    if os.getpid() == pid:
        raise ValueError("cannot be loaded here")
    return "loaded"


class _LoadsOnlyElsewhere:
    def __init__(self, pid: int) -> None:
        self.pid = pid

    def __reduce__(self):
        return (_explode_in, (self.pid,))


@needs_fork
def test_a_piece_that_cannot_be_loaded_here_makes_the_share_computed_again_here():
    parent = os.getpid()

    def share(i: int):
        yield "plain"
        yield _LoadsOnlyElsewhere(parent) if os.getpid() != parent else f"share {i} here"

    assert map_pieces(share, 2) == [["plain", "share 0 here"], ["plain", "share 1 here"]]


def test_a_location_goes_to_another_process_as_its_three_values():
    import pickle

    from shardwise.rules.model import Location

    for loc in (Location("deploy/a.yaml", 3), Location("deploy/a.yaml"), Location(urn="urn:pulumi:dev::p::t::n"),
                Location()):
        back = pickle.loads(pickle.dumps(loc, protocol=pickle.HIGHEST_PROTOCOL))
        assert (type(back), back, (back.file, back.line, back.urn), str(back)) == (
            Location, loc, (loc.file, loc.line, loc.urn), str(loc))
    assert Location("deploy/a.yaml", 3).__reduce__() == (Location, ("deploy/a.yaml", 3, None))


@needs_fork
def test_a_share_whose_child_fails_is_computed_again_here():
    parent = os.getpid()

    def share(i: int) -> str:
        if os.getpid() != parent:
            raise RuntimeError("only in the child")
        return f"share {i}"

    assert map_parts(share, 2) == ["share 0", "share 1"]


@needs_fork
def test_a_share_whose_child_is_killed_is_computed_again_here():
    parent = os.getpid()

    def share(i: int) -> int:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return i + 10

    assert map_parts(share, 3) == [10, 11, 12]


@needs_fork
def test_an_error_computed_here_reaches_the_caller_and_leaves_no_child():
    parent = os.getpid()

    def share(i: int) -> int:
        if os.getpid() == parent:
            raise ValueError(f"share {i} is broken")
        return i

    with pytest.raises(ValueError, match="share 0 is broken"):
        map_parts(share, 2)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every child was reaped


@needs_fork
def test_tickets_hand_out_every_number_once_over_the_processes():
    with Tickets(300) as tickets:
        got = map_pieces(lambda i: ((i, k) for k in tickets), 3)
    taken = [k for pieces in got for _, k in pieces]
    assert sorted(taken) == list(range(300))  # each number to one process, none lost
    assert all([k for _, k in pieces] == sorted(k for _, k in pieces) for pieces in got)  # each in order
    assert all(i == share for share, pieces in enumerate(got) for i, _ in pieces)


@needs_fork
def test_a_process_that_gets_no_cpu_takes_no_tickets_and_holds_no_one_up():
    wake_r, wake_w = os.pipe()  # the child waits on it until this process has taken every ticket
    parent = os.getpid()

    def share(i: int):
        if os.getpid() != parent:
            os.close(wake_w)
            os.read(wake_r, 1)  # the end of the pipe: this process closed it
        yield from tickets
        if os.getpid() == parent:
            os.close(wake_w)

    with Tickets(40) as tickets:
        got = map_pieces(share, 2)
    os.close(wake_r)
    assert got == [list(range(40)), []]


def test_tickets_are_bounded_by_what_a_pipe_holds():
    assert Tickets.MOST * 4 <= 4096  # one page: what a pipe holds at the least
    with pytest.raises(ValueError, match="at most 1024"):
        Tickets(Tickets.MOST + 1)
    with Tickets(0) as none:
        assert list(none) == []


@needs_fork
def test_a_batch_whose_reader_died_is_read_here(tmp_path, monkeypatch):
    from shardwise.rules import adapters
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, read_inputs

    sources = sorted((ROOT / "tests" / "fixtures" / "rules").glob("SW1*/*.yaml"))
    for i in range(PARALLEL_MIN_FILES):
        src = sources[i % len(sources)]
        (tmp_path / f"{i:04d}-{src.parent.name}-{src.name}").write_text(src.read_text(encoding="utf-8"))
    one = read_inputs([str(tmp_path)], jobs=1)
    parent = os.getpid()
    load_chunk = adapters._load_chunk
    took_r, took_w = os.pipe()  # this process reads its first batch once the child has taken one
    waited: list[bytes] = []

    def dies_in_the_child(files):
        if os.getpid() != parent:
            os.write(took_w, b"x")
            os.kill(os.getpid(), signal.SIGKILL)  # holding the batch it took
        elif not waited:
            waited.append(os.read(took_r, 1))
        return load_chunk(files)

    monkeypatch.setattr(adapters, "_load_chunk", dies_in_the_child)
    try:
        two = read_inputs([str(tmp_path)], jobs=2)
    finally:
        os.close(took_r)
        os.close(took_w)
    assert waited == [b"x"]  # the child took a batch and died with it
    assert [(g.name, g.location) for g in two.groups] == [(g.name, g.location) for g in one.groups]
    assert two.sources == one.sources and two.errors == one.errors


@needs_fork
def test_meanwhile_sees_each_batch_this_process_read_and_no_other(tmp_path, monkeypatch):
    """lintspeed17: ``read_inputs``' ``meanwhile`` (the rules' imports, done while the other process still reads) is
    called here with each batch this process read, after it, never in a child, and changes nothing read."""
    from shardwise.rules import adapters
    from shardwise.rules.adapters import PARALLEL_MIN_FILES, read_inputs

    sources = sorted((ROOT / "tests" / "fixtures" / "rules").glob("SW1*/*.yaml"))
    for i in range(PARALLEL_MIN_FILES):
        src = sources[i % len(sources)]
        (tmp_path / f"{i:04d}-{src.parent.name}-{src.name}").write_text(src.read_text(encoding="utf-8"))
    one = read_inputs([str(tmp_path)], jobs=1)
    parent = os.getpid()
    load_chunk = adapters._load_chunk
    read_here: list[object] = []

    def slow_in_the_child(files):
        if os.getpid() != parent:
            time.sleep(0.05)  # this process reads most batches: meanwhile is called more than once
            return load_chunk(files)
        piece = load_chunk(files)
        read_here.append(piece)
        return piece

    seen: list[tuple[int, object]] = []
    monkeypatch.setattr(adapters, "_load_chunk", slow_in_the_child)
    two = read_inputs([str(tmp_path)], jobs=2, meanwhile=lambda piece: seen.append((os.getpid(), piece)))
    assert len(read_here) >= 2
    assert [(pid, id(piece)) for pid, piece in seen] == [(parent, id(piece)) for piece in read_here]
    assert [(g.name, g.location) for g in two.groups] == [(g.name, g.location) for g in one.groups]
    assert two.sources == one.sources and two.errors == one.errors


def test_one_part_or_no_fork_runs_everything_here(monkeypatch):
    parent = os.getpid()
    assert map_parts(lambda i: (i, os.getpid() == parent), 1) == [(0, True)]
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    assert map_parts(lambda i: (i, os.getpid() == parent), 3) == [(0, True), (1, True), (2, True)]


def _many_groups(tmp_path: Path) -> Path:
    from shardwise.rules.engine import SPLIT_MIN_GROUPS

    sources = sorted((ROOT / "tests" / "fixtures" / "rules").glob("SW*/*.yaml"))
    out = tmp_path / "many"
    out.mkdir()
    for i in range(SPLIT_MIN_GROUPS + 40):
        src = sources[i % len(sources)]
        (out / f"{i:04d}-{src.parent.name}-{src.name}").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    return out


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
@needs_fork
def test_rules_split_over_processes_find_what_one_process_finds(tmp_path):
    from shardwise.rules.adapters import read_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import SPLIT_MIN_GROUPS, LintConfig, run_rules
    from shardwise.rules.engine.split import run_rules_split
    from shardwise.rules.report import workload_summary

    inv = read_inputs([str(_many_groups(tmp_path))], jobs=1)
    assert len(inv.groups) >= SPLIT_MIN_GROUPS
    config = LintConfig()
    one = run_rules(ALL_RULES, inv, config)
    split, summaries = run_rules_split(ALL_RULES, inv, config, 2, lambda g: workload_summary(g, config))
    assert split == one
    assert len({f.code for f in one}) > 20  # group rules and inventory rules both found something
    assert summaries == [workload_summary(g, config) for g in inv.groups]
    # one job, or too few groups: nothing is split and no summary is made ahead
    assert run_rules_split(ALL_RULES, inv, config, 1, lambda g: 1) == (one, None)


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
@needs_fork
def test_a_batch_of_groups_whose_process_died_is_checked_here(tmp_path):
    from shardwise.rules.adapters import read_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import LintConfig, run_rules
    from shardwise.rules.engine.split import run_rules_split

    inv = read_inputs([str(_many_groups(tmp_path))], jobs=1)
    config = LintConfig()
    one = run_rules(ALL_RULES, inv, config)
    parent = os.getpid()
    took_r, took_w = os.pipe()  # this process checks its first batch once the child has checked one
    waited: list[bytes] = []

    def per_group(g):
        if os.getpid() != parent:
            os.write(took_w, b"x")
            os.kill(os.getpid(), signal.SIGKILL)  # holding the batch it took
        elif not waited:
            waited.append(os.read(took_r, 1))
        return g.name

    try:
        split, names = run_rules_split(ALL_RULES, inv, config, 2, per_group)
    finally:
        os.close(took_r)
        os.close(took_w)
    assert waited == [b"x"]
    assert split == one
    assert names == [g.name for g in inv.groups]


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
@needs_fork
def test_a_split_lint_writes_the_report_one_process_writes(tmp_path, monkeypatch):
    from shardwise.rules.app.run import LintOptions, lint_report, render

    folder = _many_groups(tmp_path)
    monkeypatch.chdir(tmp_path)
    one = lint_report([folder.name], LintOptions(jobs=1))
    two = lint_report([folder.name], LintOptions(jobs=2))
    # the split run's summaries come as the JSON report's text, made where the groups were sized
    assert one.workloads_text is None and two.workloads_text is not None
    assert two.workloads == one.workloads  # read back for the reports that need the values (Markdown, diff)
    for fmt in ("json", "sarif", "text", "markdown"):
        assert render(two, fmt) == render(one, fmt)


def test_the_json_report_has_one_finding_per_line(tmp_path, monkeypatch):
    from shardwise.rules.app.run import LintOptions, lint_report, render

    monkeypatch.chdir(ROOT)
    report = lint_report(["tests/fixtures/rules/SW104/fail.yaml"], LintOptions(jobs=1))
    text = render(report, "json")
    data = json.loads(text)
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert lines[1] == f'  "version": {json.dumps(data["version"])},'
    start = lines.index('  "findings": [')
    for i, finding in enumerate(data["findings"]):
        assert json.loads(lines[start + 1 + i].rstrip(",")) == finding
    assert lines[start + 1 + len(data["findings"])] == "  ],"
    assert '  "summary": {' in lines and '    "blocking": 4,' in lines


@needs_fork
def test_no_temporary_file_or_no_fork_means_the_share_is_computed_here(monkeypatch):
    import tempfile

    parent = os.getpid()

    def no_file():
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_file)
    assert map_parts(lambda i: (i, os.getpid() == parent), 3) == [(0, True), (1, True), (2, True)]
    monkeypatch.undo()

    def no_fork():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert map_parts(lambda i: (i, os.getpid() == parent), 2) == [(0, True), (1, True)]


def test_batches_cover_every_index_once_in_order_and_shrink_towards_the_end():
    from shardwise.rules.engine.forked import batches

    got = batches(2000, 2, 25, 4)
    assert got[0] == (0, 25) and got[-1] == (1996, 2000)
    assert [start for start, _ in got[1:]] == [stop for _, stop in got[:-1]]  # contiguous, in order
    sizes = [stop - start for start, stop in got]
    assert sizes == sorted(sizes, reverse=True)  # never larger than the one before
    # an eighth of what is left per process from 200 files left on: 25 ... then 22, 20, 17, ... and fours
    assert sizes[-24:] == [25, 25, 25, 25, 22, 20, 17, 15, 13, 11, 10, 9, 8, 7, 6, 5, 4, 4, 4, 4, 4, 4, 4, 4]
    assert len(got) == 93
    assert batches(3, 2, 25, 4) == [(0, 3)]
    assert batches(0, 2, 25, 4) == []
    # more items than half the tickets hold at ``size``: larger batches; never more batches than tickets
    many = batches(200_000, 2, 25, 4)
    assert many[0] == (0, 391) and many[-1][1] == 200_000 and len(many) <= Tickets.MOST
    wide = batches(200_000, 64, 25, 4)
    assert len(wide) <= Tickets.MOST and wide[-1][1] == 200_000
    assert [start for start, _ in wide[1:]] == [stop for _, stop in wide[:-1]]
