"""Collect, per vLLM release, every option string its ``vllm serve`` parser can define, from the release's sdist.

Writes ``rules/catalog/data/vllm_options.txt`` (read lazily by :mod:`shardwise.rules.vllm.options`): the union of
the option names of every release read, and per release a bitmask of which of them it has. Over-counted on purpose,
the way :mod:`shardwise.rules.vllm.flags` describes, so that a flag judged absent is surely absent:

- every string literal shaped like a long option (``"--max-model-len"``) in any ``.py`` file of the ``vllm``
  package (parser files, platforms, tool parsers, launchers, plugins, scripts: all of them);
- every annotated class-level field (``max_model_len: int``) in the files whose dataclasses become flags
  (``config``, ``engine``, ``entrypoints``, ``v1/engine``, ``platforms``, ``utils``), as ``--max-model-len``;
- ``--help``, which argparse itself adds to every parser;
- for every name, its ``--no-`` form (``BooleanOptionalAction``) and, for ``--enable-X``/``--disable-X``, its twin
  (``EnableDisableAction``).

``_`` is read as ``-``. Usage: ``python benchmarks/collect_vllm_options.py SDIST.tar.gz ...`` (vLLM's source
distributions from PyPI: https://pypi.org/simple/vllm/).
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "rules" / "catalog" / "data" / "vllm_options.txt"
_LITERAL = re.compile(r"""(?<![\w])[rbfu]?['"]--([A-Za-z0-9][A-Za-z0-9_-]*)""")
_FIELD = re.compile(r"^[ \t]+([A-Za-z][A-Za-z0-9_]*)[ \t]*:(?!=)", re.M)
_FIELD_DIRS = ("config", "engine", "entrypoints", "v1/engine", "platforms", "utils")
_VERSION = re.compile(r"vllm-(\d+(?:\.\d+)+)(?:\.post\d+)?\.tar\.gz$")


def _field_file(rel: str) -> bool:
    """``rel``: a path under ``vllm/``; whether its annotated fields may become flags."""
    return any(rel == d + ".py" or rel.startswith(d + "/") or rel.startswith(d + ".") for d in _FIELD_DIRS)


def options(sdist: Path) -> set[str]:
    """The option names (dashed, without ``--``) of the release whose source distribution is ``sdist``."""
    names: set[str] = set()
    with tarfile.open(sdist) as tar:
        for member in tar:
            parts = member.name.split("/")
            if not member.isfile() or len(parts) < 3 or parts[1] != "vllm" or not member.name.endswith(".py"):
                continue
            f = tar.extractfile(member)
            if f is None:
                continue
            text = f.read().decode("utf-8", "replace")
            names.update(m.group(1) for m in _LITERAL.finditer(text))
            if _field_file("/".join(parts[2:])):
                names.update(m.group(1) for m in _FIELD.finditer(text))
    out = {n.replace("_", "-").rstrip("-") for n in names}  # argparse is case-sensitive
    out.discard("")
    out.add("help")  # argparse's own -h/--help (add_help), in no string literal
    for n in list(out):
        out.add("no-" + n)
        for a, b in (("enable-", "disable-"), ("disable-", "enable-")):
            if n.startswith(a):
                out.add(b + n[len(a):])
    return out


def _bits(union: list[str], names: set[str]) -> str:
    """Bit i of byte i // 8 set where the release has union[i], in hex."""
    buf = bytearray((len(union) + 7) // 8)
    for i, n in enumerate(union):
        if n in names:
            buf[i // 8] |= 1 << (i % 8)
    return bytes(buf).hex()


def main(paths: list[str]) -> None:
    per: dict[str, set[str]] = {}
    for p in paths:
        m = _VERSION.search(p)
        if m is None:
            raise SystemExit(f"not a vLLM sdist name: {p}")
        per[m.group(1)] = options(Path(p))
        print(f"{m.group(1)}: {len(per[m.group(1)])} names", file=sys.stderr)
    union = sorted(set().union(*per.values()))
    order = sorted(per, key=lambda v: tuple(map(int, v.split("."))))
    lines = ["# vLLM option names per release, from the sdists on PyPI (benchmarks/collect_vllm_options.py).",
             "# '@RELEASE HEX': bit i of byte i // 8 set where the release has name i; then the names, one a line.",
             *(f"@{v} {_bits(union, per[v])}" for v in order), *union]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(union)} names, {OUT.stat().st_size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
