"""Every option string ``vllm serve`` can define, per vLLM release read, as data: a flag none of them is or begins
with makes vLLM's argument parser exit ("unrecognized arguments").

``catalog/data/vllm_options.txt`` is written by ``benchmarks/collect_vllm_options.py`` from each release's source
distribution on PyPI, over-counted on purpose the way :mod:`shardwise.rules.vllm.flags` describes (every string
literal shaped like a long option in any file of the ``vllm`` package; the class-level fields of ``config``,
``engine``, ``entrypoints``, ``v1/engine``, ``platforms`` and ``utils`` as flags; every name's ``--no-`` form and
its ``--enable-``/``--disable-`` twin), so a flag counts as undefined only where it surely is. The file is read
lazily: only when a flag of an image of a release in :data:`OPTION_RELEASES` is judged.
"""

from __future__ import annotations

import bisect
import functools
import os
from itertools import compress
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: versions reads OPTION_RELEASES, so options imports nothing of it at run time)
    from .versions import Version

_DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "catalog", "data", "vllm_options.txt")

#: The releases whose option sets the data holds: every release whose source was read for
#: :data:`~shardwise.rules.vllm.flags.RELEASES_READ` (each source distribution vLLM publishes on PyPI from 0.5.0 to
#: 0.34.0; 0.15.0 and 0.15.1 have none). An image is judged only at the release its tag names exactly (a ``.postN``
#: tag of :data:`~shardwise.rules.vllm.flags.POSTS_READ` reads as its release); a tag between or beyond them (0.15.x,
#: a release candidate, a nightly, ``latest``, a release newer than 0.34.0) is mapped to none and not judged, since a
#: flag may come or go in any release.
OPTION_RELEASES: frozenset[str] = frozenset((
    "0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.5.4", "0.5.5", "0.6.0", "0.6.1", "0.6.2", "0.6.3", "0.6.4", "0.6.5",
    "0.6.6", "0.7.0", "0.7.1", "0.7.2", "0.7.3", "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4", "0.8.5", "0.9.0",
    "0.9.0.1", "0.9.1", "0.9.2", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0",
    "0.13.0", "0.14.0", "0.14.1", "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.19.1", "0.20.0",
    "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0",
    "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0",
))


@functools.cache
def _load() -> tuple[tuple[str, ...], dict[str, str]]:
    """The union of every release's names and, per release, its bitmask (hex); plain text, read without json or
    base64 (a one-file lint's cold start)."""
    with open(_DATA, encoding="utf-8") as f:
        lines = f.read().split("\n")
    # two comprehensions over the 6,250 lines (a loop of tests and appends took twice as long, in every process)
    has = {release: bits for release, _, bits in (line[1:].partition(" ") for line in lines if line[:1] == "@")}
    return tuple([line for line in lines if line and line[0] not in "@#"]), has


def release_options(release: str) -> tuple[str, ...] | None:
    """The sorted option names (dashed, without ``--``) of ``release``; None for a release whose source was not
    collected."""
    if release not in OPTION_RELEASES:
        return None
    return _release_options(release)


@functools.cache  # one entry per release of OPTION_RELEASES at most: a flag no image's release names is asked of
# every release read (:func:`.flags.no_release_defines`, 66 of them), and a cache of 32 made each of those asks
# build every release's tuple again (7,284 builds, 2 of 25 s of a lint of tests/corpus/wide; lintspeed30)
def _release_options(release: str) -> tuple[str, ...]:
    union, has = _load()
    # bit i of the mask (byte i // 8, bit i % 8) says whether union[i] is an option of the release: the mask as one
    # integer, its binary digits lowest first as 0/1 bytes, picked by itertools.compress in C (a generator asking each
    # of the 6,000 names its bit took about 3 ms a release, in every process of a parallel lint that judges flags)
    bits = int.from_bytes(bytes.fromhex(has[release]), "little")
    return tuple(compress(union, bin(bits)[:1:-1].encode().translate(_DIGIT_BITS)))


_DIGIT_BITS = bytes.maketrans(b"01", b"\x00\x01")  # a binary digit's character to its value (compress's selector)


def undefined_option(name: str, release: Version) -> bool:
    """Whether ``--name`` (dashed, without ``--``) is no option of ``release``: none is or begins with it (argparse's
    unique-prefix rule, erring here towards silence: an ambiguous prefix passes). False for a release whose source
    was not collected."""
    names = release_options(str(release))
    if names is None:
        return False
    i = bisect.bisect_left(names, name)
    return not (i < len(names) and names[i].startswith(name))


def closest_option(name: str, release: Version) -> str | None:
    """The option of ``release`` closest to ``name`` (difflib, ratio 0.8 or more; ``--no-`` forms left out), if
    any: ``gpu-memory-utilization`` for ``gpu-memory-utilisation``."""
    import difflib

    names = release_options(str(release)) or ()
    close = difflib.get_close_matches(name, [n for n in names if not n.startswith("no-")], n=1, cutoff=0.8)
    return close[0] if close else None
