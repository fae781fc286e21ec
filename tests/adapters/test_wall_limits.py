"""Wall-clock limits scale with the machine's load per core (loadlimits1): a fake load, no timing."""

from __future__ import annotations

import pytest
from shardwise.rules.model import wall


def _load(monkeypatch, load: float, cores: int) -> None:
    monkeypatch.setattr(wall.os, "getloadavg", lambda: (load, 99.0, 99.0))  # the one-minute figure is the one read
    monkeypatch.setattr(wall.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)


@pytest.mark.parametrize(("load", "cores", "limit"), [
    (0.0, 2, 120),    # idle: the base figure
    (2.0, 2, 120),    # one process per core: each has its core
    (6.0, 2, 360),    # three per core: a third of the CPU each, three times as long
    (5.0, 16, 120),   # the cores this process may run on, not one
    (2.5, 1, 300),
])
def test_a_wall_limit_is_its_base_times_the_load_per_core_above_one(monkeypatch, load, cores, limit):
    _load(monkeypatch, load, cores)
    assert wall.wall_limit(120) == limit


def test_a_scaled_limit_is_rounded_up_to_a_whole_second(monkeypatch):
    _load(monkeypatch, 3.3, 2)  # 1.65 per core
    assert wall.wall_limit(10) == 17


def test_without_a_load_average_the_base_figure_holds(monkeypatch):
    def no_load() -> tuple[float, float, float]:
        raise OSError("no load average")

    monkeypatch.setattr(wall.os, "getloadavg", no_load)
    assert wall.wall_limit(10) == 10
