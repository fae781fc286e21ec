"""Audit of ``catalog/data/vllm_options.txt`` against the sources: every ``--flag`` written anywhere in the
project's test data (``tests/``: the corpus, the wide corpus, rule fixtures, start-up logs, plan cases) is judged
at every release collected, and each one judged undefined is looked up in that release's source distribution: a
judged-undefined flag whose option string appears in the ``vllm`` package's code is printed as a SUSPECT (the
collection missed a source), one whose bare name does as ``named`` (to read), the others as ``absent``.

Usage: ``python benchmarks/audit_vllm_options.py SDIST.tar.gz ...`` (the sdists the data was collected from).
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

from shardwise.rules.vllm.options import OPTION_RELEASES, undefined_option
from shardwise.rules.vllm.versions import parse_version

ROOT = Path(__file__).resolve().parent.parent
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?![\w.{$(-])")
_VERSION = re.compile(r"vllm-(\d+(?:\.\d+)+)(?:\.post\d+)?\.tar\.gz$")


def test_flags() -> dict[str, set[str]]:
    """Each flag name (dashed) written in ``tests/`` with the files it is in."""
    found: dict[str, set[str]] = {}
    for p in (ROOT / "tests").rglob("*"):
        if not p.is_file() or p.suffix in (".pyc",) or p.stat().st_size > 5_000_000:
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for m in _FLAG.finditer(text):
            found.setdefault(m.group(1).replace("_", "-"), set()).add(str(p.relative_to(ROOT)))
    return found


def source_words(sdist: str) -> set[str]:
    """Every word (letters, digits, ``_`` and ``-``) of the ``vllm`` package's code in ``sdist``."""
    words: set[str] = set()
    with tarfile.open(sdist) as tar:
        for member in tar:
            bits = member.name.split("/")
            if member.isfile() and len(bits) > 2 and bits[1] == "vllm" and member.name.endswith(".py"):
                f = tar.extractfile(member)
                if f is not None:
                    words.update(re.findall(r"[A-Za-z0-9_-]+", f.read().decode("utf-8", "replace")))
    return words


def main(sdists: list[str]) -> int:
    flags = test_flags()
    print(f"{len(flags)} distinct flags written in tests/", file=sys.stderr)
    suspects = 0
    for sdist in sdists:
        m = _VERSION.search(sdist)
        assert m is not None and m.group(1) in OPTION_RELEASES, sdist
        release = parse_version(m.group(1))
        assert release is not None
        undefined = sorted(f for f in flags if undefined_option(f, release))
        words = source_words(sdist)
        for f in undefined:
            base = f[3:] if f.startswith("no-") else f
            # SUSPECT: the option string itself is in the code (the collection missed it); named: the name is
            # (a field, a variable, a word of a message: read it); absent: neither
            kind = ("SUSPECT" if "--" + base in words or "--" + base.replace("-", "_") in words
                    else "named" if base in words or base.replace("-", "_") in words else "absent")
            suspects += kind == "SUSPECT"
            print(f"{release}\t{kind}\t--{f}\t{sorted(flags[f])[0]}")
    print(f"suspects: {suspects}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
