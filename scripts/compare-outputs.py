#!/usr/bin/env python3
"""Every output a refactoring must leave alone, written into a folder, and a diff of two such folders.

    .venv/bin/python scripts/compare-outputs.py write /tmp/before     # on the untouched branch
    .venv/bin/python scripts/compare-outputs.py write /tmp/after      # after the change
    .venv/bin/python scripts/compare-outputs.py diff /tmp/before /tmp/after
    .venv/bin/python scripts/compare-outputs.py check /tmp/before     # write to a temporary folder and diff

What it writes (run from the repository root, in one process, ``--jobs 1``):

* ``lint/<path>.json`` and ``lint/<path>.txt``: ``shardwise lint --format json`` and the text report (no
  colour) of every file under ``tests/fixtures``, ``examples`` and ``stacks``, each linted alone, with the exit
  status on the last line;
* ``plan/<n>.txt`` and ``plan/<n>.json``: ``shardwise plan`` over a set of models, GPUs and flags the tests use;
* ``sizing/<path>.json``: the components' sizing output (:func:`shardwise.rules.adapters.stack.sizing_summary`,
  what ``VllmService.sizing`` and the environment's ``sizing`` export) of every stack file among those inputs.

``diff`` prints a unified diff of every file that differs or is missing on one side and exits 1 when any does.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUT_DIRS = ("tests/fixtures", "examples", "stacks")

L8 = "meta-llama/Llama-3.1-8B-Instruct"
L70 = "meta-llama/Llama-3.1-70B-Instruct"
#: ``shardwise plan`` runs: the tests' models, GPUs and flags.
PLANS: tuple[tuple[str, ...], ...] = (
    ("--model", L8, "--gpu", "H100"),
    ("--model", L8, "--gpu", "H100", "--tp", "1"),
    ("--model", L8, "--gpu", "H100", "--tp", "2"),
    ("--model", L8, "--gpu", "L4"),
    ("--model", L8, "--gpu", "L4", "--tp", "2"),
    ("--model", L8, "--gpu", "A10G", "--concurrency", "64", "--p95-context", "4096"),
    ("--model", L8, "--gpu", "H100", "--vllm-version", "0.11.0"),
    ("--model", L8, "--gpu", "H100", "--vllm-version", "0.8.5", "--max-model-len", "auto"),
    ("--model", L8, "--gpu", "H100", "--max-model-len", "auto"),
    ("--model", L8, "--gpu-memory-gib", "44.5"),
    ("--model", L8, "--gpu", "H100", "--tp", "1", "--max-num-seqs", "512", "--gpu-memory-utilization", "0.95"),
    ("--model", L8, "--gpu", "H100", "--kv-cache-dtype", "fp8", "--dtype", "float16"),
    ("--model", L70, "--gpu", "H100"),
    ("--model", L70, "--gpu", "H100", "--tp", "4"),
    ("--model", L70, "--gpu", "H100", "--tp", "8", "--concurrency", "200", "--p95-context", "8192"),
    ("--model", L70, "--gpu", "H100", "--quantization", "fp8"),
    ("--model", L70, "--gpu", "L40S", "--pp", "2"),
    ("--model", L70, "--gpu", "H100", "--weights-gib", "70", "--kv-reserve", "1.2"),
    ("--model", "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "--gpu", "L40S"),
    ("--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--tp", "8"),
    ("--model", "deepseek-ai/DeepSeek-R1", "--gpu", "H200", "--tp", "1", "--dp", "8", "--enable-expert-parallel"),
    ("--model", "deepseek-ai/DeepSeek-R1", "--gpu", "H200"),
    ("--model", "openai/gpt-oss-120b", "--gpu", "H100"),
    ("--model", "openai/gpt-oss-20b", "--gpu", "L4", "--max-num-batched-tokens", "4096"),
    ("--model", "Qwen/Qwen2.5-VL-72B-Instruct", "--gpu", "H100", "--tp", "4"),
    ("--model", "google/gemma-3-27b-it", "--gpu", "A100"),
    ("--model", L8, "--instance-type", "g6.12xlarge", "--concurrency", "40"),
    ("--model", "acme/nonexistent-13b", "--gpu", "H100"),
)


def _inputs() -> list[str]:
    out = []
    for d in INPUT_DIRS:
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file() and not p.is_symlink():
                out.append(str(p.relative_to(ROOT)))
    return out


#: What differs between two runs of the same code: klog's time stamp and process id in kubectl's errors.
_VOLATILE = re.compile(r"[EWI]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ")


def _run_cli(argv: list[str]) -> str:
    """``shardwise <argv>`` in this process: stdout, stderr and the exit status."""
    from shardwise.rules.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
    except Exception as e:  # noqa: BLE001 - a crash is an output too
        rc = f"crash: {type(e).__name__}: {e}"
    text = f"{out.getvalue()}--- stderr\n{err.getvalue()}--- exit {rc}\n"
    return _VOLATILE.sub("<klog> ", text)


def _sizing(path: str) -> str | None:
    """The components' sizing output of a stack file (None: not a stack file)."""
    from shardwise.rules.adapters.stack import is_stack_file, load_stack_spec, sizing_summary
    from shardwise.rules.adapters.yamlsrc import load_all, read_text
    from shardwise.rules.model.errors import CatalogError, InputError

    try:
        docs = [d for d in load_all(read_text(path), path) if d is not None]
    except Exception:  # noqa: BLE001 - not YAML: not a stack file
        return None
    if not docs or not is_stack_file(docs[0]):
        return None
    try:
        spec, _ = load_stack_spec(path)
        return json.dumps(sizing_summary(spec), indent=1, sort_keys=True) + "\n"
    except (InputError, CatalogError) as e:
        return f"error: {e}\n"
    except Exception as e:  # noqa: BLE001
        return f"crash: {type(e).__name__}: {e}\n"


def write(folder: Path) -> None:
    os.chdir(ROOT)
    os.environ.setdefault("NO_COLOR", "1")
    folder.mkdir(parents=True, exist_ok=True)
    for path in _inputs():
        for fmt, ext in (("json", "json"), ("text", "txt")):
            target = folder / "lint" / f"{path}.{ext}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_run_cli(["lint", "--jobs", "1", "--no-color", "--format", fmt, path]))
        sized = _sizing(path)
        if sized is not None:
            target = folder / "sizing" / f"{path}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(sized)
    (folder / "plan").mkdir(parents=True, exist_ok=True)
    for i, argv in enumerate(PLANS):
        (folder / "plan" / f"{i:02d}.txt").write_text(" ".join(argv) + "\n" + _run_cli(["plan", *argv]))
        (folder / "plan" / f"{i:02d}.json").write_text(" ".join(argv) + "\n" + _run_cli(["plan", *argv, "--json"]))


def diff(a: Path, b: Path) -> int:
    files = sorted({p.relative_to(a) for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b) for p in b.rglob("*") if p.is_file()})
    changed = 0
    for rel in files:
        x = (a / rel).read_text().splitlines(keepends=True) if (a / rel).exists() else []
        y = (b / rel).read_text().splitlines(keepends=True) if (b / rel).exists() else []
        if x != y:
            changed += 1
            sys.stdout.writelines(difflib.unified_diff(x, y, f"{a}/{rel}", f"{b}/{rel}"))
    print(f"{len(files)} files compared, {changed} differ", file=sys.stderr)
    return 1 if changed else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        write(Path(argv[1]).resolve())
        return 0
    if len(argv) == 3 and argv[0] == "diff":
        return diff(Path(argv[1]), Path(argv[2]))
    if len(argv) == 2 and argv[0] == "check":
        with tempfile.TemporaryDirectory() as tmp:
            write(Path(tmp))
            return diff(Path(argv[1]).resolve(), Path(tmp))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
