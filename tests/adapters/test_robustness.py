"""Bad input never breaks the promise: a clear ``file:line`` error, or findings, never a traceback.

The fuzz tests take the real fixtures (rule fixtures, Kubernetes manifests, stack files, examples,
Pulumi ``stack export`` / ``preview --json`` files), mutate them structurally (a value of another
type anywhere, a key deleted, a container duplicated, odd command lines), write them out and run
``shardwise lint`` in-process. Whatever the input, the run ends with exit 0 or 1 and a JSON report
with no internal-error finding, or exit 2 and one ``shardwise: error: FILE:LINE: …`` line (one per
workload when several name unknown models; JSON errors about a resource without a URN have no line),
never a Python exception's name as the message. The rules are also run on every inventory the
adapters accept, with no finding marked internal. ``SHARDWISE_FUZZ_EXAMPLES`` sets the examples per
fuzz test (default 1000: about 25 s for the three).

The regression tests below them pin the exact error of each input that broke the promise (found by
the fuzzer, or by reading the code it pointed at), and fail on the code before the fix.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import note as _hypothesis_note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.app.cli import main
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model.errors import InputError
from shardwise.rules.model.spec import EnvironmentSpec
from shardwise.rules.render.network import carve_problem, subnet_plan

SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def _fixtures() -> list[Path]:
    found: list[Path] = []
    for pattern in ("tests/fixtures/rules/*/*.yaml", "tests/fixtures/k8s/*.yaml", "stacks/*.yaml",
                    "examples/*.yaml", "tests/fixtures/rules/SW3*/*.json"):
        found.extend(sorted(ROOT.glob(pattern)))
    return found


FIXTURES = _fixtures()
STACK_FIXTURES = [p for p in FIXTURES if p.parent.name == "stacks"]


def _parse(path: Path) -> list[Any] | None:
    """The fixture's documents (a JSON file is one document); None when it does not parse."""
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            return [json.loads(text)]
        return list(yaml.safe_load_all(text))
    except (yaml.YAMLError, ValueError):
        return None  # bad-yaml.yaml: a parse error is its point; mutating it proves nothing more


@functools.cache
def _parsed(path: Path) -> list[Any] | None:
    """:func:`_parse`, once per file and only when a test asks (not at collection: the edit loop pays nothing)."""
    return _parse(path)


@functools.cache
def _mutable() -> tuple[Path, ...]:
    return tuple(p for p in FIXTURES if _parsed(p) is not None)


# --- values --------------------------------------------------------------------------------------

#: Numbers as text: what a flag, an annotation or a label may say.
ODD_NUMBERS = ["0", "-1", "0.5", "7", "1e-300", "1e300", "1e400", "inf", "-inf", "nan", "9" * 400, "9" * 400 + "k",
               "99999999999999999999k", "auto", "", "x", "$(UNSET)"]
ODD_SCALARS: list[Any] = [
    None, 0, 1, -1, -(2**63), 2**64, 10**30, 10**400, 1.5, -0.5, 1e308, math.inf, -math.inf, math.nan, True, False,
    "", " ", "x", "true", "auto", "-1", "inf", "nan", "1e300", "1e400", "99999999999999999999k", "9" * 400, SENTINEL,
    "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
    "ünïcødé ✓ 😀", "$(UNSET)", "${X:-y}", "a; rm -rf / && `id` | $(whoami) > /dev/null",
    "\x00", "a\x00b", "SW104", "SW104:", "H100", "p5.48xlarge", "meta-llama/Llama-3.1-8B-Instruct", "/models/x/config.json",
]
ODD_VALUES = st.one_of(
    st.sampled_from(ODD_SCALARS),
    st.sampled_from([[], [None], [1, "a"], [SENTINEL], {}, {"a": 1}, {"1": None}, {"value": SENTINEL},
                     [{"name": "x"}], {"nested": {"deeper": [SENTINEL]}}]),
)

ODD_TOKENS = [
    "", " ", "--", "-", "---", "--tensor-parallel-size", "-tp", "--tensor-parallel-size=", "--tensor-parallel-size=x",
    "--tensor-parallel-size=0", "--tensor-parallel-size=-3", "--tensor-parallel-size=99999999999999999999",
    "--max-model-len", "--max-model-len=1e400", "--max-model-len=0.5k", "--max-model-len=99999999999999999999T",
    "--max-num-seqs=0", "--max-num-batched-tokens=-1", "--gpu-memory-utilization=nan",
    "--gpu-memory-utilization=inf", "--gpu-memory-utilization=-1", "--gpu-memory-utilization=1e400",
    "--gpu-memory-utilization=7", "--dtype=", "--dtype=int3", "--quantization=", "--quantization=bogus",
    "--kv-cache-dtype=fp3", "--block-size=0", "--block-size=7", "--enforce-eager=maybe", "--no-enforce-eager",
    "--model", "--model=", "--model=--", "--served-model-name", "--port=99999999999999999999", "--port=-1",
    "--nnodes=0", "--pipeline-parallel-size=0", "-pp", "-O", "-O3", "--config", "--config=x.yaml",
    "--data-parallel-size=0", "--swap-space=x", "--api-key", "--unknown-flag", "--x=", "-=",
    "$(UNSET)", "${", "$(", "$", "$$", "'", '"', "\\", "`", ";", "&&", "|", ">", "<", "2>&1",
    "ünïcødé", "--mödel=x", "😀", "vllm", "serve", "-m", "python3", "sh", "-c", "\t", "\n",
    "a; rm -rf / && `id` | $(whoami)", "vllm serve 'unterminated", "1e400", "-1e400", "nan", "inf",
]
ODD_ARGS = st.one_of(
    st.sampled_from([[], [""], ["--"], ["--tensor-parallel-size"], ["serve"], ["vllm", "serve"],
                     ["vllm", "serve", "--"], ["vllm", "serve", "--model"], ["sh", "-c"], ["sh", "-c", ""],
                     ["sh", "-c", "vllm serve 'unterminated"], ["bash", "-lc", "exec vllm serve $(UNSET) ${A:-"],
                     ["python3", "-m"], ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                     ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model"]]),
    st.lists(st.sampled_from(ODD_TOKENS), min_size=1, max_size=6),
)


def note(text: str) -> None:
    """hypothesis.note, also callable from the plain (unmutated) tests."""
    with contextlib.suppress(InvalidArgument):
        _hypothesis_note(text)


# --- tree surgery ----------------------------------------------------------------------------------

Slot = tuple[Any, Any]  # (container, key or index)


def _slots(node: Any, out: list[Slot]) -> list[Slot]:
    """Every (container, key) pair under ``node``, depth first."""
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((node, k))
            _slots(v, out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((node, i))
            _slots(v, out)
    return out


def _lists_under(node: Any, keys: frozenset[str], out: list[list[Any]]) -> list[list[Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k in keys and isinstance(v, list):
                out.append(v)
            _lists_under(v, keys, out)
    elif isinstance(node, list):
        for v in node:
            _lists_under(v, keys, out)
    return out


def _replace_value(docs: list[Any], data: st.DataObject) -> None:
    slots = _slots(docs, [])
    leaves = [s for s in slots if not isinstance(s[0][s[1]], dict | list)]
    leaf: bool = data.draw(st.booleans(), label="leaf")
    if leaves and leaf:  # a scalar: most fields the adapters read
        slots = leaves
    parent, key = slots[data.draw(st.integers(0, len(slots) - 1), label="slot")]
    parent[key] = copy.deepcopy(data.draw(ODD_VALUES, label="value"))


ODD_STRINGS = [v for v in ODD_SCALARS if isinstance(v, str)] + ODD_NUMBERS
ODD_INTS = [0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 10**400]
ODD_FLOATS = [0.0, -1.0, 0.5, 1e-300, 1e300, math.inf, -math.inf, math.nan]


def _same_type_value(docs: list[Any], data: st.DataObject) -> None:
    """Replace a scalar with an odd one of its own type: passes a schema's type check, meets its bounds."""
    slots = [s for s in _slots(docs, []) if isinstance(s[0][s[1]], str | int | float)]
    if not slots:
        return
    parent, key = slots[data.draw(st.integers(0, len(slots) - 1), label="slot")]
    old = parent[key]
    if isinstance(old, bool):
        parent[key] = not old
    elif isinstance(old, int):
        parent[key] = data.draw(st.sampled_from(ODD_INTS), label="int")
    elif isinstance(old, float):
        parent[key] = data.draw(st.sampled_from(ODD_FLOATS), label="float")
    else:
        parent[key] = data.draw(st.sampled_from(ODD_STRINGS), label="str")


def _delete_key(docs: list[Any], data: st.DataObject) -> None:
    slots = [s for s in _slots(docs, []) if isinstance(s[0], dict)]
    if slots:
        parent, key = slots[data.draw(st.integers(0, len(slots) - 1), label="slot")]
        del parent[key]


_DUPLICABLE = frozenset({"containers", "initContainers", "resources", "steps", "services", "pools", "multi_node",
                         "routers", "env", "items", "ports", "volumes", "tolerations"})


def _duplicate(docs: list[Any], data: st.DataObject) -> None:
    """Duplicate a container (or another list entry: a resource, a pool, an env var, a document)."""
    lists = [docs, *_lists_under(docs, _DUPLICABLE, [])]
    lists = [lst for lst in lists if lst]
    containers = [lst for lst in _lists_under(docs, frozenset({"containers"}), []) if lst]
    container: bool = data.draw(st.booleans(), label="container")
    pick = containers if containers and container else lists
    target = pick[data.draw(st.integers(0, len(pick) - 1), label="list")]
    item = target[data.draw(st.integers(0, len(target) - 1), label="item")]
    target.insert(data.draw(st.integers(0, len(target)), label="at"), copy.deepcopy(item))


def _odd_args(docs: list[Any], data: st.DataObject) -> None:
    """Replace a container's args/command, or splice odd tokens into them."""
    lists = _lists_under(docs, frozenset({"args", "command"}), [])
    if not lists:
        return
    target = lists[data.draw(st.integers(0, len(lists) - 1), label="args")]
    odd = data.draw(ODD_ARGS, label="tokens")
    if data.draw(st.booleans(), label="splice"):
        at = data.draw(st.integers(0, len(target)), label="at")
        target[at:at] = odd
    else:
        target[:] = odd


ENGINE_FLAGS = ["--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "--data-parallel-size", "--max-model-len",
                "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization", "--block-size", "--dtype",
                "--quantization", "--kv-cache-dtype", "--enforce-eager", "--nnodes", "--port", "--swap-space",
                "--model", "--served-model-name", "--distributed-executor-backend"]


def _odd_flag(docs: list[Any], data: st.DataObject) -> None:
    """Add a vLLM flag with an odd value (``--max-model-len 1e400``) to a container's args."""
    lists = _lists_under(docs, frozenset({"args"}), [])
    if not lists:
        return
    target = lists[data.draw(st.integers(0, len(lists) - 1), label="args")]
    flag = data.draw(st.sampled_from(ENGINE_FLAGS), label="flag")
    value = data.draw(st.sampled_from(ODD_NUMBERS), label="value")
    joined: bool = data.draw(st.booleans(), label="joined")
    target.extend([f"{flag}={value}"] if joined else [flag, value])


GPU_LABELS = ["shardwise.dev/gpu-product", "shardwise.dev/gpu-count", "shardwise.dev/gpu-memory-gib",
              "shardwise.dev/nvlink", "shardwise.dev/nvlink-domain-size", "shardwise.dev/efa",
              "nvidia.com/gpu.product", "nvidia.com/gpu.count", "nvidia.com/gpu.memory",
              "karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-memory",
              "node.kubernetes.io/instance-type"]


def _odd_label(docs: list[Any], data: st.DataObject) -> None:
    """Give a node selector or node labels a GPU label with an odd value (``gpu-memory-gib: 1e300``)."""
    maps = [m for m in _maps_under(docs, frozenset({"nodeSelector", "labels"}), [])]
    if not maps:
        return
    target = maps[data.draw(st.integers(0, len(maps) - 1), label="labels")]
    key = data.draw(st.sampled_from(GPU_LABELS), label="label")
    target[key] = data.draw(st.sampled_from([*ODD_NUMBERS, "H100", "A10G", "p5.48xlarge"]), label="value")


def _maps_under(node: Any, keys: frozenset[str], out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k in keys and isinstance(v, dict):
                out.append(v)
            _maps_under(v, keys, out)
    elif isinstance(node, list):
        for v in node:
            _maps_under(v, keys, out)
    return out


MUTATIONS: list[Callable[[list[Any], st.DataObject], None]] = [
    _same_type_value, _same_type_value, _replace_value, _delete_key, _duplicate, _odd_args, _odd_flag, _odd_flag,
    _odd_label,
]


def _dump(docs: list[Any], suffix: str) -> str:
    if suffix == ".json":
        return json.dumps(docs[0], indent=2)
    return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)


def _mutated(data: st.DataObject, paths: list[Path]) -> tuple[Path, str]:
    path = data.draw(st.sampled_from(paths), label="fixture")
    docs = copy.deepcopy(_parsed(path))
    assert docs is not None
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        data.draw(st.sampled_from(MUTATIONS), label="mutation")(docs, data)
    text = _dump(docs, path.suffix)
    note(text)
    return path, text


# --- the promise -----------------------------------------------------------------------------------


def _lint(path: str) -> tuple[int, str, str]:
    """``shardwise lint PATH --format json --output OUT`` in-process: (exit code, report, stderr)."""
    out = path + ".out.json"
    err, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(stdout):
        code = main(["lint", path, "--format", "json", "--output", out])
    report = Path(out).read_text(encoding="utf-8") if os.path.exists(out) else ""
    return code, report, err.getvalue()


def assert_promise(path: str) -> None:
    code, report, err = _lint(path)
    note(f"exit {code}; stderr: {err!r}")
    assert code in (0, 1, 2)
    assert "Traceback" not in err and "internal error" not in err
    lines = err.splitlines()
    if report:  # written whatever the outcome; stderr: the input errors, the blocking findings, the summary line
        doc = json.loads(report)
        assert lines and lines[-1].startswith("shardwise: ") and " — " in lines[-1], err
        errors = [line for line in lines[:-1] if line.startswith("shardwise: error: ")]
        assert len(errors) == len(doc["input_errors"]), err
        assert lines[:len(errors)] == errors, err  # the input errors first
        blocking = [f for f in doc["findings"] if f["level"] == "mandatory" and not f["suppressed"]]
        assert len(lines) - 1 - len(errors) == len(blocking), err  # then one line per blocking finding
        assert (code == 2) == bool(doc["input_errors"]), (code, doc["input_errors"])
        for e in doc["input_errors"]:
            assert e["file"] == path, e
            assert not re.search(r"\b\w+(Error|Exception)\b", e["message"]), f"a Python exception: {e}"
            if path.endswith(".yaml"):  # YAML keeps lines; JSON only has them for resources with a URN
                assert isinstance(e["line"], int) and e["line"] >= 1, f"no line: {e}"
        for line in errors:
            assert line.startswith(f"shardwise: error: {path}"), err
        internal = [f for f in doc["findings"] if f["internal"]]
        assert not internal, internal
        return
    # no report: the run stopped before linting (a workload naming an unknown model): one line per workload
    assert code == 2 and lines, "no report and no message"
    for line in lines:
        assert line.startswith(f"shardwise: error: {path}"), err
        assert not re.search(r"\b\w+(Error|Exception): ", line), f"a Python exception, not a clear message: {err}"
        if path.endswith(".yaml"):
            assert re.match(rf"shardwise: error: {re.escape(path)}:\d+: ", line), f"no line: {err}"
    assert len(lines) == 1 or all("unknown model" in line for line in lines), err


def assert_rules_never_crash(path: str) -> None:
    try:
        inv = load_inputs([path], jobs=1)
    except InputError:
        return
    for config in (LintConfig(), LintConfig(p95_context_tokens=4096, unknown_is_failure=False)):
        internal = [f.message for f in run_rules(ALL_RULES, inv, config) if f.internal]
        assert not internal, internal


def _check(path: Path, text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "input" + path.suffix)
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)
        assert_promise(target)
        assert_rules_never_crash(target)


_FUZZ = settings(
    max_examples=int(os.environ.get("SHARDWISE_FUZZ_EXAMPLES", "1000")), deadline=None, derandomize=True,
    database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow  # a thousand mutated inputs, each read and linted: most of the edit loop's time
@_FUZZ
@given(data=st.data())
def test_fuzz_yaml_inputs(data: st.DataObject) -> None:
    """Kubernetes manifests, rule fixtures and examples, mutated."""
    _check(*_mutated(data, [p for p in _mutable() if p.suffix == ".yaml" and p not in STACK_FIXTURES]))


@pytest.mark.slow  # a thousand mutated inputs, each read and linted: most of the edit loop's time
@_FUZZ
@given(data=st.data())
def test_fuzz_stack_files(data: st.DataObject) -> None:
    """Pulumi stack files (the pydantic-validated spec), mutated."""
    _check(*_mutated(data, STACK_FIXTURES))


@pytest.mark.slow  # a thousand mutated inputs, each read and linted: most of the edit loop's time
@_FUZZ
@given(data=st.data())
def test_fuzz_pulumi_json(data: st.DataObject) -> None:
    """``pulumi stack export`` and ``pulumi preview --json`` files, mutated."""
    _check(*_mutated(data, [p for p in _mutable() if p.suffix == ".json"]))


@pytest.mark.slow  # a sweep over every case: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_unmutated_fixtures_keep_the_promise(path: Path) -> None:
    _check(path, path.read_text(encoding="utf-8"))


# --- source-level fuzzing: tags, duplicate keys, bytes, characters ------------------------------------
#
# The mutations above rewrite parsed documents; these edit the text itself, the way a hand edit, a
# template or a copy from a web page does, and each knows the exact error (file, line, message) it
# must produce: never a pass, never a Python exception, never a lost line.

_SOURCE = settings(_FUZZ, max_examples=max(10, _FUZZ.max_examples // 10))


def _clean(path: Path) -> bool:
    """A fixture with no input error of its own (the edits below must be the only one)."""
    from shardwise.rules.adapters import read_inputs

    return not read_inputs([str(path)], jobs=1).errors


@functools.cache
def _texts(suffix: str) -> dict[Path, str]:
    """The text of each clean fixture with ``suffix``, read when a test first asks."""
    return {p: p.read_text(encoding="utf-8") for p in _mutable() if p.suffix == suffix and _clean(p)}


def _run_source(data: st.DataObject, suffix: str, raw: bytes) -> tuple[int, dict[str, Any] | None, str, str]:
    """Lint ``raw`` as ``input<suffix>``: (exit code, JSON report or None, stderr, path); the promise holds."""
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "input" + suffix)
        with open(target, "wb") as fh:
            fh.write(raw)
        assert_promise(target)
        code, report, err = _lint(target)
        return code, (json.loads(report) if report else None), err.replace(target, "input" + suffix), target


def _only_error(doc: dict[str, Any] | None, line: int) -> str:
    """The message of the report's one input error, which must be at ``line``."""
    assert doc is not None
    [e] = doc["input_errors"]
    assert e["line"] == line, e
    return e["message"]


def _key_lines(text: str) -> list[tuple[int, str]]:
    """(line, key) of every mapping key whose scalar value is written on the key's own line."""
    from shardwise.rules.adapters.yamlsrc import LineDict, load_all

    lines = text.splitlines()
    out: list[tuple[int, str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, LineDict):
            for key, value in node.items():
                line = node.key_lines.get(key) if isinstance(key, str) else None
                if line and not isinstance(value, dict | list):
                    src = lines[line - 1]
                    nxt = lines[line] if line < len(lines) else ""
                    indent = len(src) - len(src.lstrip())
                    if (re.match(rf"^\s*{re.escape(key)}:\s+\S", src) and not src.lstrip().startswith("- ")
                            and (not nxt.strip() or len(nxt) - len(nxt.lstrip()) <= indent)):
                        out.append((line, key))
                walk(value)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)

    for doc in load_all(text, "x"):
        walk(doc)
    return out


TAGS = ["!!bool", "!!int", "!!float", "!!timestamp", "!!binary", "!!null", "!!str", "!!set", "!!map", "!!seq",
        "!!omap", "!!pairs", "!Ref", "!!python/object:os.system", "!"]


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_explicit_tags(data: st.DataObject) -> None:
    """An explicit tag on any scalar: read as that type, or an input error at that line."""
    path = data.draw(st.sampled_from(sorted(_texts(".yaml"))), label="fixture")
    text = _texts(".yaml")[path]
    keys = _key_lines(text)
    if not keys:
        return
    line, key = data.draw(st.sampled_from(keys), label="key")
    tag = data.draw(st.sampled_from(TAGS), label="tag")
    lines = text.splitlines(keepends=True)
    lines[line - 1] = re.sub(rf"^(\s*{re.escape(key)}:\s+)", rf"\g<1>{tag} ", lines[line - 1], count=1)
    code, doc, err, _ = _run_source(data, ".yaml", "".join(lines).encode())
    if code == 2 and doc is not None and doc["input_errors"]:
        assert any(e["line"] == line for e in doc["input_errors"]) or tag in ("!!str", "!!null", "!"), (line, err)


@pytest.mark.slow  # ~10,000 lints (about a minute): in make test, not in the edit loop (make test-fast)
def test_explicit_tags_on_every_key_of_every_fixture(tmp_path: Path) -> None:
    """test_fuzz_explicit_tags's property, swept without chance: every clean YAML fixture, every key whose scalar
    is written on its own line, tagged !!binary and !!float (a value of the wrong type, of two kinds). An input
    error must be at the tagged line. The fuzz samples the fixtures, so a fixture added elsewhere changes its
    draws; this sweep makes a fixture that shows a new class fail where it is added, not at a later merge.
    (It found: model references read as absent, a KServe runtime's fields at the service's lines, KubeAI's env.)"""
    target = str(tmp_path / "input.yaml")
    runs, wrong = 0, []
    for path, text in sorted(_texts(".yaml").items()):
        for line, key in _key_lines(text):
            for tag in ("!!binary", "!!float"):
                lines = text.splitlines(keepends=True)
                lines[line - 1] = re.sub(rf"^(\s*{re.escape(key)}:\s+)", rf"\g<1>{tag} ", lines[line - 1], count=1)
                with open(target, "wb") as fh:
                    fh.write("".join(lines).encode())
                if os.path.exists(target + ".out.json"):
                    os.remove(target + ".out.json")  # the last run's report is not this one's
                code, report, err = _lint(target)
                runs += 1
                assert code in (0, 1, 2) and "Traceback" not in err, (path, line, tag, err)
                errors = json.loads(report)["input_errors"] if code == 2 and report else []
                if errors and not any(e["line"] == line for e in errors):
                    wrong.append((path.relative_to(ROOT).as_posix(), line, key, tag,
                                  [(e["line"], e["message"][:80]) for e in errors[:2]]))
    assert runs > 5000  # the sweep reads the fixtures (about 9,900 runs in December 2026)
    assert wrong == []


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_duplicate_yaml_keys(data: st.DataObject) -> None:
    """A key written twice in one mapping is an input error at the second, whatever the key."""
    path = data.draw(st.sampled_from(sorted(_texts(".yaml"))), label="fixture")
    text = _texts(".yaml")[path]
    keys = _key_lines(text)
    if not keys:
        return
    line, key = data.draw(st.sampled_from(keys), label="key")
    lines = text.splitlines(keepends=True)
    copy_of = lines[line - 1] if lines[line - 1].endswith("\n") else lines[line - 1] + "\n"
    lines.insert(line, copy_of)
    code, doc, err, _ = _run_source(data, ".yaml", "".join(lines).encode())
    assert code == 2, err
    # a manifest is still read with the last value (as lenient readers do): the duplicate is its one error
    # ("cannot parse YAML: duplicate key …" in a stack file, which is read strictly)
    message = _only_error(doc, line + 1)
    assert message.removeprefix("cannot parse YAML: ").startswith(
        f"duplicate key {key!r} (first written on line {line})"), err


def _json_with_duplicate(value: Any, target: int, counter: list[int]) -> str:
    """``value`` as JSON, one key per line, with the first key of the ``target``-th non-empty object
    written twice."""
    if isinstance(value, dict):
        items = [f"{json.dumps(k)}: {_json_with_duplicate(v, target, counter)}" for k, v in value.items()]
        if value:
            counter[0] += 1
            if counter[0] == target:
                first = next(iter(value))
                items.append(f"{json.dumps(first)}: {json.dumps(value[first])}")
        return "{\n" + ",\n".join(items) + "\n}"
    if isinstance(value, list):
        return "[\n" + ",\n".join(_json_with_duplicate(v, target, counter) for v in value) + "\n]"
    return json.dumps(value)


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_duplicate_json_keys(data: st.DataObject) -> None:
    """A key written twice in one JSON object is an input error at the second (not: the last one wins)."""
    path = data.draw(st.sampled_from(sorted(_texts(".json"))), label="fixture")
    value = json.loads(_texts(".json")[path])
    counter = [0]
    _json_with_duplicate(value, 0, counter)
    target = data.draw(st.integers(1, counter[0]), label="object")
    text = _json_with_duplicate(value, target, [0])
    code, doc, err, _ = _run_source(data, ".json", text.encode())
    assert code == 2, err
    assert doc is not None
    [e] = doc["input_errors"]
    assert e["message"].startswith("cannot parse JSON: duplicate key "), e
    duplicate = text.splitlines()[e["line"] - 1]
    assert duplicate.startswith(e["message"].split("duplicate key ", 1)[1].split(":", 1)[0] + ":"), (e, duplicate)


BAD_BYTES = [b"\xff", b"\xfe", b"\xc3", b"\xe9", b"\x80", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_bytes_that_are_not_utf8(data: st.DataObject) -> None:
    """A byte that is not UTF-8 anywhere in a file: an input error naming its line and column."""
    path = data.draw(st.sampled_from(sorted({**_texts(".yaml"), **_texts(".json")})), label="fixture")
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    line = data.draw(st.integers(1, len(lines)), label="line")
    column = data.draw(st.integers(0, len(lines[line - 1])), label="column")
    while column and (lines[line - 1][column - 1] & 0xC0) == 0x80 or (
            column < len(lines[line - 1]) and (lines[line - 1][column] & 0xC0) == 0x80):
        column -= 1  # not inside a character of several bytes
    bad = data.draw(st.sampled_from(BAD_BYTES), label="bytes")
    lines[line - 1] = lines[line - 1][:column] + bad + lines[line - 1][column:]
    code, doc, err, _ = _run_source(data, path.suffix, b"\n".join(lines))
    assert code == 2, err
    assert _only_error(doc, line) == (f"not UTF-8 text: byte 0x{bad[0]:02X} at column {column + 1} is not UTF-8; "
                                      "save the file as UTF-8"), err


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_byte_order_mark_and_crlf_change_nothing(data: st.DataObject) -> None:
    """A UTF-8 byte order mark and Windows line breaks: the same report as the file without them."""
    path = data.draw(st.sampled_from(sorted({**_texts(".yaml"), **_texts(".json")})), label="fixture")
    raw = path.read_bytes()
    variant = (b"\xef\xbb\xbf" if data.draw(st.booleans(), label="bom") else b"") + raw.replace(b"\n", b"\r\n")
    code, doc, _, _ = _run_source(data, path.suffix, raw)
    code2, doc2, _, _ = _run_source(data, path.suffix, variant)
    assert code2 == code

    def seen(d: dict[str, Any] | None) -> list[tuple[Any, ...]]:
        return [(f["code"], f["line"], f["message"], f["level"]) for f in (d or {}).get("findings", [])]

    assert seen(doc2) == seen(doc)


YAML_CONTROLS = [*(chr(c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)), "\x7f", "\x80", "\x9f", "\ufffe",
                 "\uffff"]
JSON_CONTROLS = [chr(c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)]


@pytest.mark.slow  # fuzzes a hundred inputs: in make test, not in the edit loop (make test-fast)
@_SOURCE
@given(data=st.data())
def test_fuzz_control_characters(data: st.DataObject) -> None:
    """A control character anywhere: an input error at its line, in our words for YAML."""
    path = data.draw(st.sampled_from(sorted({**_texts(".yaml"), **_texts(".json")})), label="fixture")
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    line = data.draw(st.integers(1, len(lines)), label="line")
    column = data.draw(st.integers(0, len(lines[line - 1])), label="column")
    char = data.draw(st.sampled_from(YAML_CONTROLS if path.suffix == ".yaml" else JSON_CONTROLS), label="char")
    lines[line - 1] = lines[line - 1][:column] + char + lines[line - 1][column:]
    code, doc, err, _ = _run_source(data, path.suffix, "\n".join(lines).encode())
    assert code == 2, err
    message = _only_error(doc, line)
    if path.suffix == ".yaml":
        what = "control character" if ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F else "character"
        assert message.startswith(f"cannot parse YAML: {what} U+{ord(char):04X} at column {column + 1} "), message
    else:
        assert message.startswith("cannot parse JSON: "), message


# --- regressions ---------------------------------------------------------------------------------

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


def deployment(args: str, node_selector: str = "{node.kubernetes.io/instance-type: p5.48xlarge}",
               probe: str = "") -> str:
    """One vLLM Deployment; ``args`` is a YAML flow list, written on line 12."""
    return (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: m, namespace: serving}\n"
        "spec:\n"
        "  replicas: 2\n"
        "  template:\n"
        "    spec:\n"
        f"      nodeSelector: {node_selector}\n"
        "      containers:\n"
        "        - name: vllm\n"
        "          image: vllm/vllm-openai:v0.11.0\n"
        f"          args: {args}\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n"
        f"{probe}"
    )


def lint_text(tmp_path: Path, name: str, text: str) -> tuple[int, str, list[dict[str, Any]]]:
    """(exit code, stderr with the file shown as its name, findings) of ``shardwise lint`` on ``text``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, report, err = _lint(str(path))
    assert_promise(str(path))
    assert_rules_never_crash(str(path))
    findings = json.loads(report)["findings"] if code in (0, 1) else []
    return code, err.replace(str(path), name), findings


def error_of(tmp_path: Path, name: str, text: str) -> str:
    """The input error lines on stderr of a run that exits 2 (the summary line left out)."""
    code, err, _ = lint_text(tmp_path, name, text)
    assert code == 2, err
    return "".join(line + "\n" for line in err.splitlines() if line.startswith("shardwise: error: "))


def crash_of(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    """(line, message) of the SW003 findings of a run that exits 1 on them (flags48: a value vLLM refuses at start-up
    is the workload's crash, no longer an input error that hid the workload)."""
    code, err, findings = lint_text(tmp_path, name, text)
    assert code == 1, err
    return [(f["line"], f["message"]) for f in findings if f["code"] == "SW003"]


def refused(flag: str, value: str, what: str) -> list[tuple[int, str]]:
    return [(12, f"SW003: container 'vllm': {flag}: {value!r} is not {what}: vLLM refuses it at start-up (it exits) and "
                 "the pod crash-loops")]


# --- engine flags (vllm_args) ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-1", "auto"])
def test_max_num_batched_tokens_takes_no_auto(tmp_path, value):
    # was: "auto" stored as the token budget; the sizing multiplied a string (internal error, exit 2)
    text = deployment(f"[{LLAMA_8B}, --max-num-batched-tokens, '{value}']")
    if value == "-1":  # a count below 1 vLLM may read as unset: an input error
        err = error_of(tmp_path, "d.yaml", text)
        assert err == "shardwise: error: d.yaml:12: --max-num-batched-tokens: '-1' is not a positive integer\n"
    else:  # human_readable_int("auto"): int() raises, argparse exits
        assert crash_of(tmp_path, "d.yaml", text) == refused("--max-num-batched-tokens", "auto",
                                                             "an integer (e.g. 8192 or 32k)")


def test_max_model_len_auto_is_still_accepted(tmp_path):
    code, err, findings = lint_text(tmp_path, "d.yaml", deployment(f"[{LLAMA_8B}, --max-model-len, auto]"))
    assert code in (0, 1) and not any(f["internal"] for f in findings)


def test_human_readable_int_too_large_for_a_float(tmp_path):
    # was: OverflowError (int(inf)) -> "internal error"
    huge = "9" * 400 + "k"
    got = crash_of(tmp_path, "d.yaml", deployment(f"[{LLAMA_8B}, --max-model-len, '{huge}']"))
    assert got == refused("--max-model-len", huge, "an integer (e.g. 8192 or 32k)")


@pytest.mark.parametrize(("value", "what"), [
    ("inf", "a finite number"),
    ("nan", "a finite number"),
    ("-1", "a fraction greater than 0 and at most 1"),
    ("0", "a fraction greater than 0 and at most 1"),
    ("7", "a fraction greater than 0 and at most 1"),
])
def test_gpu_memory_utilization_outside_0_1(tmp_path, value, what):
    # was: inf -> "internal error: ValueError: cannot convert float NaN to integer"; nan, -1, 0 and 7 ->
    # findings computed from a fraction vLLM refuses to start with
    text = deployment(f"[{LLAMA_8B}, --gpu-memory-utilization, '{value}']")
    if value in ("inf", "nan"):  # float() reads them: not surely refused by argparse, an input error
        err = error_of(tmp_path, "d.yaml", text)
        assert err == f"shardwise: error: d.yaml:12: --gpu-memory-utilization: '{value}' is not {what}\n"
    else:  # vLLM refuses a fraction outside (0, 1] at start-up: the workload's crash (flags48)
        assert crash_of(tmp_path, "d.yaml", text) == refused("--gpu-memory-utilization", value, what)


def test_float_flag_must_be_finite(tmp_path):
    err = error_of(tmp_path, "d.yaml", deployment(f"[{LLAMA_8B}, --swap-space, inf]"))
    assert err == "shardwise: error: d.yaml:12: --swap-space: 'inf' is not a finite number\n"


@pytest.mark.parametrize("flag", ["--tensor-parallel-size", "--max-num-seqs", "--max-model-len", "--block-size"])
def test_engine_integer_beyond_64_bits(tmp_path, flag):
    # was: "internal error: OverflowError: int too large to convert to float" (the capacity model)
    huge = "9" * 400
    err = error_of(tmp_path, "d.yaml", deployment(f"[{LLAMA_8B}, {flag}, '{huge}']"))
    assert err == f"shardwise: error: d.yaml:12: {flag}: '{huge}' is not a 64-bit integer\n"


def test_engine_integer_at_64_bits_is_sized_without_crashing(tmp_path):
    big = str(2**63 - 1)
    args = f"[{LLAMA_8B}, -tp, '{big}', --max-num-seqs, '{big}', --max-model-len, '{big}', --block-size, '{big}']"
    code, err, findings = lint_text(tmp_path, "d.yaml", deployment(args))
    assert code == 1 and not any(f["internal"] for f in findings), err


# --- node labels and probes (kubernetes, labels) ---------------------------------------------------


@pytest.mark.parametrize("memory", ["1e300", "inf", "nan"])
def test_absurd_gpu_memory_label_is_no_figure(tmp_path, memory):
    # was: 1e300 GiB (and inf) -> "internal error: ValueError: cannot convert float NaN to integer"
    args = f"[{LLAMA_8B}, --max-model-len, '8192']"
    plain = "{shardwise.dev/gpu-product: H100, shardwise.dev/gpu-count: '8'}"
    selector = f"{{shardwise.dev/gpu-product: H100, shardwise.dev/gpu-memory-gib: '{memory}', shardwise.dev/gpu-count: '8'}}"
    loaded = "metadata: {name: m, namespace: serving, annotations: {shardwise.dev/target-concurrency: '4096'}}"
    code, err, findings = lint_text(tmp_path, "d.yaml", deployment(args, selector).replace(  # a declared load
        "metadata: {name: m, namespace: serving}", loaded))
    plain_code, _, expected = lint_text(tmp_path, "plain.yaml", deployment(args, plain).replace(
        "metadata: {name: m, namespace: serving}", loaded))
    assert code == plain_code, err  # sized with the H100's own memory, as for any label that is no figure
    assert any(f["code"] == "SW103" for f in expected)  # sized at all (4,096 sequences do not fit)
    assert [f["message"] for f in findings] == [f["message"] for f in expected]


def test_probe_timing_of_infinity_reads_as_unset(tmp_path):
    # was: "internal error: OverflowError: cannot convert float infinity to integer"
    probe = ("          livenessProbe:\n"
             "            httpGet: {path: /health, port: 8000}\n"
             "            initialDelaySeconds: .inf\n"
             "            failureThreshold: -.inf\n")
    code, err, findings = lint_text(tmp_path, "d.yaml", deployment(f"[{LLAMA_8B}, --max-model-len, '8192']",
                                                                   probe=probe))
    assert code in (0, 1) and not any(f["internal"] for f in findings), err


# --- YAML (yamlsrc) ----------------------------------------------------------------------------------


def test_impossible_date_is_a_yaml_error(tmp_path):
    # was: "internal error: ValueError: month must be in 1..12"; an unquoted 2024-13-45 is text since hostile8 (as
    # kubectl reads it), a tagged one is still a timestamp
    text = "apiVersion: v1\nkind: Service\nmetadata: {name: s, creationTimestamp: !!timestamp 2024-13-45}\n"
    assert error_of(tmp_path, "s.yaml", text) == (
        "shardwise: error: s.yaml:3:40: cannot parse YAML: '2024-13-45' tagged !!timestamp is not a date or a timestamp "
        "(2024-01-31, 2024-01-31T12:00:00Z)\n"
    )


@pytest.mark.parametrize(("text", "column", "message"), [
    ("a: !!float abc\n", 4, "'abc' tagged !!float is not a number"),
    ("a: !!int abc\n", 4, "'abc' tagged !!int is not an integer"),
    ("a: &x !!timestamp 2024-02-30\nb: *x\n", 4, "'2024-02-30' tagged !!timestamp is not a date or a timestamp "
                                                  "(2024-01-31, 2024-01-31T12:00:00Z)"),
    ("type: !!bool maybe\n", 7, "'maybe' tagged !!bool is not a boolean (true or false)"),  # a tag that does not fit
    ("type: &t !!bool maybe\n", 7, "'maybe' tagged !!bool is not a boolean (true or false)"),
])
def test_tagged_scalar_that_does_not_construct(tmp_path, text, column, message):
    # was: "internal error: ValueError: ..." (both loaders: events, and PyYAML's for anchors); !!bool maybe was
    # "internal error: KeyError: 'maybe'"; then the constructor's own exception text in the message. The column is
    # where the node starts (its anchor or tag, as the reader marks it).
    assert error_of(tmp_path, "t.yaml", text) == (
        f"shardwise: error: t.yaml:1:{column}: cannot parse YAML: {message}\n")


def test_unhashable_mapping_key_names_the_file(tmp_path):
    # was: "shardwise: error: unhashable mapping key at line 2" (no file)
    assert error_of(tmp_path, "k.yaml", "a: &x [1]\n? [a]\n: 1\n") == (
        "shardwise: error: k.yaml:2:3: cannot parse YAML: unhashable mapping key at line 2 "
        "(a key must be text or a number)\n"
    )


# --- JSON (adapters, pulumi) -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["deep.json", "deep.yaml"])
def test_json_nested_too_deep(tmp_path, name):
    # was: "internal error: RecursionError: maximum recursion depth exceeded while decoding a JSON array"
    text = "[" * 100_000 + "]" * 100_000
    expected = ("shardwise: error: deep.json: cannot parse JSON: nesting too deep\n" if name.endswith(".json")
                else "shardwise: error: deep.yaml:1:1001: cannot parse YAML: exceeded maximum nesting depth\n")
    assert error_of(tmp_path, name, text) == expected


def test_json_lone_surrogate_escape(tmp_path):
    # was: "internal error: UnicodeEncodeError: 'utf-8' codec can't encode character '\ud800'" (writing the report)
    text = (ROOT / "tests/fixtures/rules/SW301/fail.json").read_text(encoding="utf-8")
    text = text.replace('SecurityGroup::gpu-nodes"', 'SecurityGroup::gpu-nodes\\ud800"', 1)
    assert error_of(tmp_path, "s.json", text) == (
        "shardwise: error: s.json:7: cannot parse JSON: the escape \\ud800 is half of a UTF-16 surrogate pair, "
        "not a character\n"
    )


def test_json_surrogate_pair_escape_is_a_character(tmp_path):
    text = (ROOT / "tests/fixtures/rules/SW301/fail.json").read_text(encoding="utf-8")
    text = text.replace('"description": "GPU nodes"', '"description": "GPU nodes \\ud83d\\ude00"', 1)
    code, err, _ = lint_text(tmp_path, "s.json", text)
    assert code == 1, err


def test_preview_step_op_that_is_not_a_string(tmp_path):
    # was: "internal error: TypeError: unhashable type: 'list'" (step.get("op") in a frozenset)
    data = json.loads((ROOT / "tests/fixtures/rules/SW302/unknown.json").read_text(encoding="utf-8"))
    data["steps"][1]["op"] = []
    assert error_of(tmp_path, "p.json", json.dumps(data, indent=2)) == (
        'shardwise: error: p.json:30: steps[1].op: expected a string such as "create", got an array\n'
    )


@pytest.mark.parametrize(("key", "value", "message"), [
    ("dependencies", 5, "dependencies must be an array, got a number"),
    ("propertyDependencies", ["urn:pulumi:dev::gpu::x::y"], "propertyDependencies must be an object, got an array"),
    # hostile9: an empty value of the wrong type was read as none (``x or {}``): the resource read without its
    # properties, a Deployment no workload, silently
    ("inputs", [], "inputs and outputs must be objects (inputs is an array)"),
    ("outputs", [], "inputs and outputs must be objects (outputs is an array)"),
    ("inputs", "", "inputs and outputs must be objects (inputs is a string)"),
    ("propertyDependencies", [], "propertyDependencies must be an object, got an array"),
    ("dependencies", {}, "dependencies must be an array, got an object"),
    ("dependencies", 0, "dependencies must be an array, got a number"),
])
def test_state_dependencies_of_the_wrong_type(tmp_path, key, value, message):
    # dependencies: 5 was "internal error: TypeError: 'int' object is not iterable"; a propertyDependencies
    # that is not an object was silently read as none
    data = json.loads((ROOT / "tests/fixtures/rules/SW301/fail.json").read_text(encoding="utf-8"))
    res = data["deployment"]["resources"][0]
    res[key] = value
    assert error_of(tmp_path, "e.json", json.dumps(data, indent=2)) == (
        f"shardwise: error: e.json:10: {res['urn']}: {message}\n"
    )


def test_resource_without_urn_says_which(tmp_path):
    data = json.loads((ROOT / "tests/fixtures/rules/SW301/fail.json").read_text(encoding="utf-8"))
    del data["deployment"]["resources"][1]["urn"]
    assert error_of(tmp_path, "e.json", json.dumps(data, indent=2)) == (
        "shardwise: error: e.json:39: deployment.resources[1]: a resource without a urn (a string)\n"
    )


def test_deployment_that_is_not_an_object_next_to_a_resource_list(tmp_path):
    # was: "internal error: TypeError: 'int' object is not subscriptable" (deployment["resources"])
    data = json.loads((ROOT / "tests/fixtures/rules/SW301/fail.json").read_text(encoding="utf-8"))
    bare = {"deployment": 5, "resources": data["deployment"]["resources"]}
    code, err, findings = lint_text(tmp_path, "b.json", json.dumps(bare, indent=2))
    assert code == 1 and any(f["code"] == "SW301" for f in findings), err


# --- stack files (stack) -----------------------------------------------------------------------------


def _staging(old: str, new: str) -> str:
    """The staging stack in new-VPC mode (its vpc_id and subnet lines blanked, so line numbers stay), edited."""
    text = (ROOT / "stacks/Pulumi.staging.yaml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(\s+)(vpc_id|private_subnet_ids): .*$", r"\1# \2 (new-VPC mode)", text)
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("cidr", "message"), [
    ("H100", "'H100' is not an IPv4 CIDR block such as 10.40.0.0/16 (Expected 4 octets in 'H100')"),
    ("10.0.0.1/16", "'10.0.0.1/16' is not an IPv4 CIDR block such as 10.40.0.0/16 (10.0.0.1/16 has host bits set)"),
    ("'::/0'", "'::/0' is not an IPv4 CIDR block such as 10.40.0.0/16 (Expected 4 octets in '::')"),
    ("10.0.0.0/29", "10.0.0.0/29 is a /29: AWS creates VPCs of /16 (65,536 addresses) to /28 (16); use a block "
                    "such as 10.40.0.0/16"),
    # EC2's CreateVpc refuses a block larger than /16: the stack passed and `up` failed
    ("10.32.0.0/12", "10.32.0.0/12 is a /12: AWS creates VPCs of /16 (65,536 addresses) to /28 (16); use a block "
                     "such as 10.40.0.0/16"),
    # a /24 has eight /27 blocks for two zones, but its last /27 holds two /28s, not the NAT subnet and one
    # load-balancer subnet per zone: was "internal error: IndexError" (render.network.subnet_plan)
    ("10.0.0.0/24", "10.0.0.0/24 is too small for 2 availability zones (a private /28 or larger per zone, and in "
                    "the last block a /28 per zone for load balancers and one for NAT); use a larger block such as "
                    "10.40.0.0/16"),
])
def test_stack_vpc_cidr_that_cannot_be_split(tmp_path, cidr, message):
    # was: "internal error: AddressValueError: ..." / "ValueError: ..." / "IndexError" (render.network.subnet_plan)
    text = _staging("cidr: 10.41.0.0/16", f"cidr: {cidr}")
    assert error_of(tmp_path, "Pulumi.s.yaml", text) == f"shardwise: error: Pulumi.s.yaml:20: network.cidr: {message}\n"


def test_stack_with_several_bad_fields_names_each_with_its_line(tmp_path):
    # was: "region: Input should be a valid string (and 2 more)": the others were found one run at a time
    text = _staging("    region: us-east-1", "    region: [1]").replace("instance_type: p5.4xlarge", "instance_type: 42")
    text = text.replace("- name: h100-single", "- name: 5")
    assert error_of(tmp_path, "Pulumi.s.yaml", text) == (
        "shardwise: error: Pulumi.s.yaml:13: region: Input should be a valid string; also pools[0].name (line 24): "
        "Input should be a valid string; also pools[0].instance_type (line 25): Input should be a valid string\n")


@pytest.mark.parametrize("zones", ["a, b, c, d, e, f, g, h, i", "a, b, c, d, e, f, g, h"])
def test_stack_more_zones_than_subnets(tmp_path, zones):
    # nine: was "internal error: IndexError: list index out of range"; eight: passed, and the eighth private subnet
    # was the block the load-balancer and NAT subnets are carved from (EC2 refuses overlapping subnets)
    text = _staging("availability_zones: [us-east-1a, us-east-1b]", f"availability_zones: [{zones}]")
    assert error_of(tmp_path, "Pulumi.s.yaml", text) == (
        "shardwise: error: Pulumi.s.yaml:21: network.availability_zones: at most 7 zones (one /19 of "
        f"10.41.0.0/16 each; the last holds the load-balancer and NAT subnets), got {zones.count(',') + 1}\n"
    )


def test_stack_small_vpc_that_holds_its_subnets(tmp_path):
    # a /23 has /26 blocks; its last holds four /28s: the NAT subnet and one load-balancer subnet per zone
    text = _staging("cidr: 10.41.0.0/16", "cidr: 10.41.0.0/23")
    spec = EnvironmentSpec.model_validate(yaml.safe_load(text)["config"]["shardwise:environment"])
    assert [(p.cidr, p.load_balancer, p.public) for p in subnet_plan(spec.network, "s")] == [
        ("10.41.0.0/26", False, False), ("10.41.0.64/26", False, False),
        ("10.41.1.208/28", True, False), ("10.41.1.224/28", True, False), ("10.41.1.192/28", False, True)]
    assert carve_problem(spec.network) is None


# --- stdin (yamlsrc) ---------------------------------------------------------------------------------


def test_stdin_that_is_not_utf8(monkeypatch, capsys):
    # was: with a surrogateescape stdin (the C locale), lone surrogates reached the YAML parser and the report
    raw = io.BytesIO(b"apiVersion: v1\nkind: Service\nmetadata: {name: \xff}\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape"))
    assert main(["lint", "-"]) == 2
    assert capsys.readouterr().out.splitlines()[0] == (
        "<stdin>:3: error: not UTF-8 text: byte 0xFF at column 18 is not UTF-8; save the file as UTF-8")


# --- found by the fuzzer after the first fixes ---------------------------------------------------------


@pytest.mark.parametrize(("items", "found"), [("5", "a number"), ("true", "a boolean"), ("{a: 1}", "a mapping")])
def test_list_items_that_are_not_a_list(tmp_path, items, found):
    # was: "internal error: TypeError: 'int' object is not iterable" (a {a: 1} said "found a LineDict")
    assert error_of(tmp_path, "l.yaml", f"apiVersion: v1\nkind: List\nitems: {items}\n") == (
        f"shardwise: error: l.yaml:3: items: expected a list of Kubernetes objects, found {found}\n"
    )


def test_document_that_is_not_an_object_names_its_yaml_type(tmp_path):
    assert error_of(tmp_path, "s.yaml", "just text\n") == (
        "shardwise: error: s.yaml:1: expected a Kubernetes object (a mapping), found a string\n"
    )


def test_pulumi_security_group_id_that_is_not_a_string(tmp_path):
    # was: "…LaunchTemplate…: TypeError: unhashable type: 'list'" (a Python exception as the message)
    text = (ROOT / "tests/fixtures/rules/SW302/pass.json").read_text(encoding="utf-8")
    text = text.replace('"securityGroups": ["sg-0efa0000000000001",', '"securityGroups": [["sg-0efa0000000000001"],', 1)
    urn = "urn:pulumi:prod::gpu::aws:ec2/launchTemplate:LaunchTemplate::p5-efa"
    assert error_of(tmp_path, "p.json", text) == (
        f"shardwise: error: p.json:32: aws:ec2/launchTemplate:LaunchTemplate {urn}: "
        "networkInterfaces[0].securityGroups[0]: expected a string, found an array\n"
    )


def test_pulumi_instance_type_that_is_not_a_string(tmp_path):
    # was: "…NodeGroup…: TypeError: unhashable type: 'dict'" once a second instance type made a set of them
    text = (ROOT / "tests/fixtures/rules/SW302/pass.json").read_text(encoding="utf-8")
    text = text.replace('"instanceTypes": ["p5.48xlarge"]', '"instanceTypes": ["p5.48xlarge", {"a": 1}]', 1)
    urn = "urn:pulumi:prod::gpu::aws:eks/nodeGroup:NodeGroup::h100-efa"
    assert error_of(tmp_path, "p.json", text) == (
        f"shardwise: error: p.json:45: aws:eks/nodeGroup:NodeGroup {urn}: "
        "instanceTypes[1]: expected a string, found an object\n"
    )


def test_stack_unknown_model_is_one_finding_on_the_line_of_its_service(tmp_path):
    # was: "shardwise: error: Pulumi.s.yaml: unknown model 'acme/x'; …" (the file, no line), then an input error
    # (exit 2) on the service's line; now the model is undecided on that workload only and everything else is
    # still linted
    text = _staging("model: hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "model: acme/x")
    code, err, findings = lint_text(tmp_path, "Pulumi.s.yaml", text)
    [sw004] = [f for f in findings if f["code"] == "SW004"]
    assert (code, sw004["line"], sw004["level"], sw004["undecided"]) == (0, 33, "advisory", True)
    assert sw004["message"].startswith("SW004: shardwise does not know the model: 'acme/x' is not in the catalog; ")


def test_stack_karpenter_pool_with_unknown_instance_type(tmp_path):
    # was: "shardwise: error: Pulumi.s.yaml: unknown instance type 'm5.large'; …" (no line, no field)
    text = (ROOT / "stacks/Pulumi.dev.yaml").read_text(encoding="utf-8").replace("instance_type: g6e.xlarge",
                                                                                  "instance_type: m5.large", 1)
    err = error_of(tmp_path, "Pulumi.s.yaml", text)
    assert err.startswith("shardwise: error: Pulumi.s.yaml:29: pools[0].instance_type: unknown instance type "
                          "'m5.large'; did you mean: "), err


def test_args_entry_that_is_a_list(tmp_path):
    # was: the nested list became one word "['--tensor-parallel-size', '2']" (a silent misreading)
    text = deployment(f"[{LLAMA_8B}, [--tensor-parallel-size, '2']]")
    assert error_of(tmp_path, "d.yaml", text) == (
        "shardwise: error: d.yaml:12: container 'vllm': args[1]: expected a string, found a list\n"
    )


def test_billion_laughs(tmp_path):
    # was: 9**8 "lol"s stringified into one args word in 5 s (each extra level: 9 times longer)
    anchors = ['x:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    anchors += [f"  {b}: &{b} [{','.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefg", "bcdefgh", strict=True)]
    text = "\n".join(anchors) + "\n" + deployment(f"[{LLAMA_8B}, *h]")
    assert error_of(tmp_path, "l.yaml", text) == (
        "shardwise: error: l.yaml:1: cannot parse YAML: its aliases expand to more than 1,000,000 values\n"
    )


def test_list_that_contains_itself(tmp_path):
    assert error_of(tmp_path, "r.yaml", "&x [*x]\n") == (
        "shardwise: error: r.yaml:1: cannot parse YAML: its aliases make a list that contains itself\n"
    )


# --- flag carriers and wrong types ------------------------------------------------------------------------

#: Words a container can hand vLLM that may hold any flag: a Kubernetes reference to a variable from a
#: ConfigMap, a shell variable (with or without a default) from it, "$@", and the preview's unknown value.
CARRIERS = ["$(EXTRA_ARGS)", "$EXTRA_ARGS", "${EXTRA_ARGS}", "${EXTRA_ARGS:-}", '"$@"',
            "$(SHARDWISE_UNKNOWN_VALUE)"]
#: Rules whose verdict rests on engine flags: with a carrier after the flags, they may only say they
#: cannot decide (or report something the carrier cannot change).
FLAG_RULES = ("SW101", "SW102", "SW103", "SW104", "SW106", "SW201", "SW202", "SW203", "SW204", "SW207", "SW208")
FLAG_FIXTURES = sorted(p for code in FLAG_RULES for p in (ROOT / "tests/fixtures/rules" / code).glob("fail.yaml"))


def _with_carrier(docs: list[Any], carrier: str) -> int:
    """Append ``carrier`` to every vLLM container's args (inside the script for ``sh -c``); how many."""
    touched = 0
    for slot_parent, key in _slots(docs, []):
        if key != "containers" or not isinstance(slot_parent[key], list):
            continue
        for c in slot_parent[key]:
            if not isinstance(c, dict) or not isinstance(c.get("args"), list) or not c["args"]:
                continue
            env = c.setdefault("env", [])
            if isinstance(env, list):
                env.append({"name": "EXTRA_ARGS", "valueFrom": {"configMapKeyRef": {"name": "flags", "key": "x"}}})
            if c.get("command") in (["sh", "-c"], ["bash", "-c"], ["/bin/sh", "-c"]):
                c["args"][-1] = f"{c['args'][-1]} {carrier}"
            elif carrier.startswith("$(") or carrier == "$(SHARDWISE_UNKNOWN_VALUE)":
                c["args"].append(carrier)
            else:
                c["command"], c["args"] = ["sh", "-c"], [" ".join(["vllm", "serve", *map(str, c["args"]), carrier])]
            touched += 1
    return touched


@pytest.mark.slow  # fuzzes dozens of inputs: in make test, not in the edit loop (make test-fast)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_flag_carrier_leaves_no_definite_verdict_on_the_flags_it_could_set(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(FLAG_FIXTURES), label="fixture")
    carrier = data.draw(st.sampled_from(CARRIERS), label="carrier")
    docs = copy.deepcopy(_parsed(path))
    assert docs is not None
    assert _with_carrier(docs, carrier) > 0
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "input.yaml")
        Path(target).write_text(_dump(docs, ".yaml"), encoding="utf-8")
        inv = load_inputs([target], jobs=1)
        carried = {f"{g.kind} {g.namespace}/{g.name}" for g in inv.groups
                   if any(carrier.strip('"') in " ".join(c.command + c.args) for c in g.containers if c.runs_vllm)}
        assert carried  # the serving CRDs' args (KServe's model.args, ...) are not touched by _with_carrier
        for g in inv.groups:
            if f"{g.kind} {g.namespace}/{g.name}" in carried:
                assert g.engine.extra.get("flag_carriers"), (g.name, g.engine.extra)
        definite = [(f.code, f.message) for f in run_rules(ALL_RULES, inv)
                    if f.code in FLAG_RULES and f.subject in carried and not f.undecided and not f.suppressed]
        assert definite == [], definite


#: (where in a Deployment, the key) of fields the adapters read; each gets a value of a type Kubernetes
#: rejects there, and the run must stop with an input error at that key's line, never pass without it.
TYPED_PATHS = [
    (("spec",), "template"), (("spec", "template"), "spec"), (("spec", "template"), "metadata"),
    (("spec", "template", "spec"), "containers"), (("spec", "template", "spec"), "volumes"),
    (("spec", "template", "spec"), "hostNetwork"), (("spec", "template", "spec"), "hostIPC"),
    (("spec", "template", "spec"), "securityContext"),
    (("spec", "template", "spec", "containers", 0), "env"), (("spec", "template", "spec", "containers", 0), "envFrom"),
    (("spec", "template", "spec", "containers", 0), "ports"),
    (("spec", "template", "spec", "containers", 0), "resources"),
    (("spec", "template", "spec", "containers", 0), "args"), (("spec", "template", "spec", "containers", 0), "command"),
    (("spec", "template", "spec", "containers", 0), "volumeMounts"),
    (("spec", "template", "spec", "containers", 0), "securityContext"),
]
_EXPECTED_TYPE = {"template": dict, "spec": dict, "metadata": dict, "containers": list, "volumes": list,
                  "hostNetwork": bool, "hostIPC": bool, "securityContext": dict, "env": list, "envFrom": list,
                  "ports": list, "resources": dict, "args": list, "command": list, "volumeMounts": list}
_WRONG = {dict: [[1], "x", 5], list: [{"a": 1}, "x", 5], bool: ["true", 1, [True]]}


@pytest.mark.slow  # fuzzes dozens of inputs: in make test, not in the edit loop (make test-fast)
@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_field_of_the_wrong_type_is_an_input_error_at_its_line(data: st.DataObject) -> None:
    parent_path, key = data.draw(st.sampled_from(TYPED_PATHS), label="field")
    wrong = data.draw(st.sampled_from(_WRONG[_EXPECTED_TYPE[key]]), label="value")
    doc = yaml.safe_load(deployment(f"[{LLAMA_8B}, --max-model-len, '8192']"))
    parent = doc
    for step in parent_path:
        parent = parent[step]
    parent[key] = wrong
    text = yaml.safe_dump(doc, sort_keys=False)
    from shardwise.rules.adapters.yamlsrc import load_all

    [read] = list(load_all(text, "w.yaml"))
    for step in parent_path:
        read = read[step]
    line = read.line_of(key)
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "w.yaml")
        Path(target).write_text(text, encoding="utf-8")
        code, _, err = _lint(target)
    note(text)
    assert code == 2, err
    assert err.startswith(f"shardwise: error: {target}:{line}: "), err
    assert key in err and "expected" in err, err


def test_a_json_manifest_with_a_surrogate_pair_escape_is_read_as_its_utf8_form(tmp_path):
    """hostile9: ``json.dumps`` writes a character beyond the BMP as a surrogate pair (``"\\ud83d\\ude00"``), valid
    JSON that the YAML reader (which gives the lines) refused: "found invalid Unicode character escape code". It is
    read as the same manifest written in UTF-8, at the same lines; an escaped backslash before ``u`` stays text, and
    a lone half is still refused."""
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "big", "namespace": "serving", "annotations": {"team": "\U0001f680 infra",
                                                                                  "raw": "\\ud83d\\ude00"}},
                "spec": {"replicas": 1, "template": {"spec": {
                    "nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"},
                    "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                    "args": ["--model", "meta-llama/Llama-3.1-70B-Instruct"],
                                    "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}
    escaped = json.dumps(manifest, indent=2)
    assert "\\ud83d\\ude80" in escaped and "\\\\ud83d" in escaped
    plain = json.dumps(manifest, indent=2, ensure_ascii=False)
    code_e, err_e, found_e = lint_text(tmp_path, "e.json", escaped)
    code_p, err_p, found_p = lint_text(tmp_path, "p.json", plain)
    assert (code_e, [(f["code"], f["line"], f["message"]) for f in found_e]) == (
        code_p, [(f["code"], f["line"], f["message"]) for f in found_p])
    assert code_e == 1 and "SW101" in {f["code"] for f in found_e}
    lone = escaped.replace("\\ude80 infra", " infra")
    assert error_of(tmp_path, "l.json", lone) == (
        "shardwise: error: l.json:8: cannot parse JSON: the escape \\ud83d is half of a UTF-16 surrogate pair, not a "
        "character\n")
