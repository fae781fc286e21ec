"""The per-file reading's cheaper paths (lintspeed16) read what the plain ones read.

- :func:`read_file_bytes` asks its first read for the size ``fstat`` gave: every byte of a file is still read, of a
  file longer or shorter than it said too, and the limit still holds.
- :func:`config_maps_of` and :func:`pods_of` are classes now, not ``@contextmanager`` generators: what they set is
  reset on the way out, also when the body raises, and they nest.
- ``flags._name_absent_at`` (the memo keyed by a release's numbers) gives the verdict ``_name_absent`` gives, for
  two objects of one release too.
- ``parse.location_at`` (a :class:`Location` made without calling ``__init__``) makes the object ``__init__`` makes.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import sys
import types

import pytest
from shardwise.rules.adapters.k8s import configfile
from shardwise.rules.adapters.k8s.configfile import config_maps_of, pods_of
from shardwise.rules.adapters.k8s.parse import location_at
from shardwise.rules.model import Location
from shardwise.rules.model.errors import InputError
from shardwise.rules.model.files import read_file_bytes
from shardwise.rules.vllm import flags
from shardwise.rules.vllm.versions import Version


@pytest.mark.parametrize("size", [0, 1, 3192, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 7, 3 * (1 << 20) + 1])
def test_every_byte_is_read_whatever_the_size(tmp_path, size):
    data = bytes((i * 7 + 3) % 251 for i in range(size))
    path = tmp_path / "m.yaml"
    path.write_bytes(data)
    assert read_file_bytes(str(path)) == data


def test_the_limit_still_holds_at_the_size_asked_first(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_bytes(b"x" * 11)
    assert read_file_bytes(str(path), limit=11) == b"x" * 11
    with pytest.raises(InputError, match="larger than 10 bytes"):
        read_file_bytes(str(path), limit=10)
    assert read_file_bytes(str(path), limit=4, head=True) == b"xxxx"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")
def test_a_file_that_says_it_is_empty_is_read_to_its_end():
    # procfs files are regular files whose fstat size is 0 though they hold text: the first read asks for one byte,
    # and the reading goes on to the end as for a file that grew since its fstat
    with open(f"/proc/{os.getpid()}/cmdline", "rb") as f:
        expected = f.read()
    assert os.stat(f"/proc/{os.getpid()}/cmdline").st_size == 0
    assert len(expected) > 1
    assert read_file_bytes(f"/proc/{os.getpid()}/cmdline") == expected


def test_a_file_that_grew_after_its_fstat_is_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "m.yaml"
    path.write_bytes(b"a" * 100)
    real_fstat = os.fstat

    def stale_fstat(fd):  # the size a moment before the file grew to 100 bytes
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 40,
                               st.st_atime, st.st_mtime, st.st_ctime))

    monkeypatch.setattr(os, "fstat", stale_fstat)
    assert read_file_bytes(str(path)) == b"a" * 100
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result(tuple(real_fstat(fd))[:6] + (400,)
                                                               + tuple(real_fstat(fd))[7:10]))
    assert read_file_bytes(str(path)) == b"a" * 100  # (and one that shrank)


CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "vllm-config", "namespace": "llm"},
              "data": {"config.yaml": "tensor-parallel-size: 2\n"}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "llm"}}


def test_the_contexts_set_and_reset_what_they_did():
    assert configfile._CONFIG_MAPS.get() is None
    with config_maps_of([(CONFIG_MAP, None), (DEPLOYMENT, None)]):
        assert configfile._CONFIG_MAPS.get() == {("llm", "vllm-config"): [CONFIG_MAP["data"]]}
        assert configfile._NAMESPACE.get() == "default"
        with pods_of(DEPLOYMENT) as missed:
            assert missed == set()
            assert configfile._NAMESPACE.get() == "llm"
            assert configfile._datas("vllm-config") == [CONFIG_MAP["data"]]
            assert configfile._datas("other") == []
            with pods_of({"kind": "Pod", "metadata": {}}) as inner:
                assert configfile._NAMESPACE.get() == "default"
                assert configfile._datas("vllm-config") == []
            assert inner == {"vllm-config"}
            assert configfile._NAMESPACE.get() == "llm"
        assert missed == {"other"}
        assert configfile._MISSED.get() is None
        assert configfile._NAMESPACE.get() == "default"
    assert configfile._CONFIG_MAPS.get() is None


def test_the_contexts_reset_when_the_reading_raises():
    with pytest.raises(InputError, match="bad"):
        with config_maps_of([(CONFIG_MAP, None)]):
            with pods_of(DEPLOYMENT):
                raise InputError("bad", "m.yaml", 3)
    assert configfile._CONFIG_MAPS.get() is None
    assert configfile._NAMESPACE.get() == "default"
    assert configfile._MISSED.get() is None


@pytest.mark.parametrize("name", ["max-model-len", "tensor-parallel-size", "max_model_len", "no-such-flag",
                                  "enable-prefix-caching", "task", "disable-log-requests", "swap-space"])
@pytest.mark.parametrize("parts", [(0, 5, 0), (0, 9, 2), (0, 10, 2), (0, 11, 0)])
def test_the_memo_by_numbers_gives_the_verdict_of_the_release(name, parts):
    expected = flags._name_absent(name, Version(parts))
    assert flags._name_absent_at(name, parts) == expected
    assert flags._name_absent_at(name, Version(parts).parts) == expected  # another object of the same release


def test_the_memo_by_numbers_still_refuses_a_flag():
    why = flags._name_absent_at("no-such-flag", (0, 10, 2))
    assert why is not None and why.startswith("`--no-such-flag` is not a flag of vLLM 0.10.2 ")


@dataclasses.dataclass(frozen=True)
class _DataclassLocation:
    """The class ``Location`` was until lintspeed19 (a frozen dataclass): its methods are the ones to keep."""

    file: str | None = None
    line: int | None = None
    urn: str | None = None


_WHERE = [("m.yaml", 3, None), ("m.yaml", None, None), (None, None, None), ("dir/ü.yaml", 10_000, None),
          (None, None, "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::d"), ("m.yaml", 0, None)]


@pytest.mark.parametrize(("file", "line", "urn"), _WHERE)
def test_a_location_behaves_as_the_frozen_dataclass_it_was(file, line, urn):
    loc, old = Location(file, line, urn), _DataclassLocation(file, line, urn)
    assert (loc.file, loc.line, loc.urn) == (file, line, urn)
    assert repr(loc) == repr(old).replace("_DataclassLocation(", "Location(")
    assert hash(loc) == hash(old) == hash((file, line, urn))
    assert loc == Location(file, line, urn) and not loc != Location(file, line, urn)
    assert loc != Location(file, (line or 0) + 1, urn) and loc != Location("other.yaml", line, urn)
    assert loc != (file, line, urn) and loc != old  # only a Location of the same values is equal, as the dataclass's
    assert {loc: 1}[Location(file, line, urn)] == 1
    again = pickle.loads(pickle.dumps(loc))
    assert type(again) is Location and again == loc and repr(again) == repr(loc)
    assert copy.deepcopy(loc) == loc and copy.copy(loc) == loc


def test_a_location_prints_its_file_and_line_or_its_urn():
    assert [str(Location(*w)) for w in _WHERE] == [
        "m.yaml:3", "m.yaml", "<unknown location>", "dir/ü.yaml:10000",
        "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::d", "m.yaml"]
    assert Location() == Location(None, None, None) and str(Location(urn="u")) == "u"


@pytest.mark.parametrize(("file", "line"), [("m.yaml", 3), ("m.yaml", None), (None, None), ("dir/ü.yaml", 10_000)])
def test_location_at_makes_the_location_init_makes(file, line):
    made, plain = location_at(file, line), Location(file, line)
    assert type(made) is Location
    assert made == plain and hash(made) == hash(plain) and repr(made) == repr(plain) and str(made) == str(plain)
    assert pickle.dumps(made) == pickle.dumps(plain)


def test_a_compiled_location_refuses_writes():
    """Compiled (``make setup``), the fields are read-only at run time; from the source only mypy holds writes
    (``Final``), as it held them of the frozen dataclass."""
    loc = Location("m.yaml", 3)
    if isinstance(Location.__init__, types.FunctionType):
        pytest.skip("model/location.py runs from its source here (SHARDWISE_MYPYC=0 or not built)")
    with pytest.raises(AttributeError):
        loc.line = 4  # type: ignore[misc]
    with pytest.raises(AttributeError):
        loc.column = 1  # type: ignore[attr-defined]
    assert (loc.file, loc.line) == ("m.yaml", 3)
