"""A mutation fuzzer over what users hand shardwise (fuzz13, fuzz14): real files, trees, plan options and environments,
mutated structurally and byte by byte, each case run in-process AND as its own process.

    .venv/bin/python benchmarks/fuzz_mutate.py SEED [--minutes M] [--cases N] [--log FILE]
    .venv/bin/python benchmarks/fuzz_mutate.py SEED --case I [--keep DIR]   # replay case I of SEED, keep its tree

Case I of a seed is built from ``random.Random(f"{SEED}-{I}")`` alone, so a failure replays with ``--case I``.
Each case builds a folder (a temporary one) from one of these kinds:

- ``file``: a YAML or JSON file of tests/fixtures, tests/corpus/wide, stacks or examples, mutated in its tree (a value
  of another type: huge, negative, float, NaN, infinity, a bool where a number goes, deep nesting, keys deleted,
  renamed or copied) or in its text (anchors and aliases, merge keys, tags, duplicate keys, a BOM, UTF-16, bytes that
  are not UTF-8, NUL bytes, CRLF or lone CR, tabs, a very long line or scalar, unicode in names, truncation,
  document markers and directives), under its own name or a unicode one;
- ``tree``: such a file among hazards: symbolic-link loops and dangling links, a FIFO, a directory named like a
  file, empty and blank files, ``.shardwiseignore`` and ``shardwise.toml`` with odd content;
- ``chart``: tests/fixtures/charts/llm with Chart.yaml, values.yaml or a ``--values`` file mutated, or ``--set``
  odd values (helm on PATH from ~/.cache/shardwise-tools/bin);
- ``kust``: tests/fixtures/kustomize with a kustomization.yaml mutated (kustomize on PATH);
- ``plan``: the options of a plan case of tests/capacity/data/plan_cases.json, one to three of them mutated;
- ``diff``: a git repository whose base commit holds a real file and whose working tree a mutated one;

and, in one case out of five, an environment variable the CLI reads set to an odd value. fuzz14 added file names
with control characters and Markdown, the text/github/markdown reports (judged for raw control characters, stray
GitHub lines and rendered Markdown), ``--output /dev/full``, the files a kustomization patches, replaces or generates
from (components, remote bases, a huge patch), a chart's .helmignore, schema, files and subcharts, templates helm
refuses, missing dependencies, and terminal and locale variables (benchmarks/README.md); fuzz15 env values that
double at each step and a base commit holding a link to an absolute path or out of the tree; fuzz16 the kinds ``pack``
(a preview's or state's input properties replaced by unknowns, secrets, output values, nulls, flipped types, huge
strings, numbers as strings, ``$(VAR)`` loops) and ``gitops`` (Argo CD and Flux paths out of the checkout, at nothing,
at a file, at a link out or a loop); fuzz17 the kind ``count`` (a GPU count, replicas, a size or a quantity of a file
that serves vLLM, or a vLLM count flag, set to a malformed or absurd value; the unmutated file linted too, and a new
blocking finding on a malformed value with no input error recorded as ``blocking-on-malformed``).

A case is recorded as failed when, in-process or as a process: a traceback or an exception escapes, an internal
error is reported (a finding with ``internal``, "internal error" on stderr), the run takes more than 10 s of wall
time (a process is then run again with 60 s: a ``hang`` when it still does not end, else ``slow``), the exit status
is not 0/1/2 or contradicts the report (2 without an input error or an input error without 2; 1 without a blocking
finding; 0 with one), the report is not JSON (or SARIF that fails tests/schemas), the two runs disagree (exit status
or findings), or a file that clearly serves vLLM (a vLLM image or a ``vllm serve``/``vllm.entrypoints`` launch in a
Kubernetes object) yields no workload and nothing in the report names it (a silent pass). Each failure goes to the
log (bench-out/fuzz14/failures.jsonl) with the seed and case number; one line of totals per class at the end.
Standard library, PyYAML and jsonschema only; one process at a time (``--jobs 1``), so one core.
"""
# ruff: noqa: E501
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, ".venv", "bin", "shardwise")
OUT = os.path.join(ROOT, "bench-out", "fuzz14")
TOOLS_BIN = os.path.join(os.path.expanduser("~"), ".cache", "shardwise-tools", "bin")
WALL_S = 10.0


import jsonschema  # noqa: E402
import yaml  # noqa: E402
from shardwise.rules.app.cli import main as cli_main  # noqa: E402


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def read_text(path: str) -> str:
    return read_bytes(path).decode("utf-8", "replace")


SARIF = json.loads(read_text(os.path.join(ROOT, "tests/schemas/sarif-2.1.0-trimmed.json")))
U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown sentinel


def sources() -> list[str]:
    out = []
    for base in ("tests/fixtures", "tests/corpus/wide", "stacks", "examples"):
        for dp, _, fs in os.walk(os.path.join(ROOT, base)):
            for f in fs:
                if f.endswith((".yaml", ".yml", ".json")) and "expected" not in f and f not in ("PROVENANCE.json", "TRIAGE.yaml"):
                    p = os.path.join(dp, f)
                    if os.path.getsize(p) < 120_000:
                        out.append(os.path.relpath(p, ROOT))
    return sorted(out)


SRCS = sources()
VLLM_SRCS = [p for p in SRCS if re.search(r"vllm/vllm-openai|vllm serve|vllm\.entrypoints", read_text(os.path.join(ROOT, p)))]

ODD: list[Any] = [None, 0, 1, -1, -(2**63), 2**64, 10**30, 10**400, 1.5, -0.5, 0.0, -0.0, 1e308, math.inf, -math.inf, math.nan,
                  True, False, "", " ", "yes", "no", "on", "off", "True", "NaN", ".nan", ".inf", "-.inf", "1e400", "0x10", "0o17",
                  "1_000", "1:30", "08", "+1", "-0", "99999999999999999999Gi", "9" * 2000, U, "ünïcødé ✓ 😀", "\u202e", "a\u0000b",
                  "${X}", "$(VLLM_X)", "{{ .Values.x }}", [], [None], [U], {}, {"a": 1}, {U: U}, [[]], [{}], "x" * 70_000]
FIELDS = {"spec", "template", "containers", "env", "ports", "resources", "args", "command", "image", "metadata",
          "annotations", "labels", "nodeSelector", "tolerations", "type", "replicas", "limits", "requests", "name",
          "value", "valueFrom", "volumes", "volumeMounts", "leaderWorkerTemplate", "size", "steps", "newState",
          "inputs", "outputs", "kind", "apiVersion", "items", "nvidia.com/gpu", "containerPort", "namespace",
          "deployment", "config", "model", "tensorParallelSize", "gpu", "instanceType", "maxModelLen"}


def slots(node: Any, out: list) -> list:
    if isinstance(node, dict):
        for k, v in list(node.items()):
            out.append((node, k)); slots(v, out)  # noqa: E702
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((node, i)); slots(v, out)  # noqa: E702
    return out


def tree_mutate(docs: list, r: random.Random) -> str:
    ss = slots(docs, [])
    if not ss:
        return "none"
    named = [s for s in ss if isinstance(s[1], str) and s[1] in FIELDS]
    kind = r.choice(["retype", "retype_field", "retype_field", "unknown", "delete", "dup", "huge", "deep", "rename", "num_as"])
    parent, key = r.choice(named) if kind.endswith("_field") and named else r.choice(ss)
    if kind.startswith("retype"):
        parent[key] = copy.deepcopy(r.choice(ODD))
    elif kind == "unknown":
        parent[key] = U
    elif kind == "delete" and isinstance(parent, dict):
        parent.pop(key, None)
    elif kind == "dup" and isinstance(parent, list):
        parent.insert(r.randint(0, len(parent)), copy.deepcopy(parent[key]))
    elif kind == "huge":
        parent[key] = r.choice([10 ** r.randint(18, 4000), -(10 ** r.randint(3, 300)), float(10**300), 2**63, -(2**63) - 1])
    elif kind == "deep":
        v = parent[key]
        for _ in range(r.randint(5, 600)):
            v = {"a": v} if r.random() < .5 else [v]
        parent[key] = v
    elif kind == "rename" and isinstance(parent, dict):
        parent[r.choice(sorted(FIELDS))] = parent.pop(key)
    elif kind == "num_as":  # a number written as a bool, a float, a string or negative
        nums = [s for s in ss if isinstance(s[0][s[1]], (int, float)) and not isinstance(s[0][s[1]], bool)] or ss
        p, k = r.choice(nums)
        v = p[k]
        half = v + 0.5 if isinstance(v, float) else (v * 2 + 1) / 2 if isinstance(v, int) and abs(v) < 2**52 else 0.5
        p[k] = r.choice([True, False, half, -v if isinstance(v, (int, float)) else -1, str(v), math.nan, math.inf, 0])
    return kind


def dump(docs: list, suffix: str, r: random.Random) -> str:
    if suffix == ".json":
        return json.dumps(docs[0], indent=1 if r.random() < .7 else None)
    return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True, width=10**6)


# ---------------------------------------------------------------- text and byte mutations
TAGS = ["!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!set", "!!omap", "!!timestamp", "!Ref", "!Sub",
        "!!python/object:os.system", "!foo", "!<tag:yaml.org,2002:str>", "!!map", "!!seq"]


def lines_of(t: str) -> list[str]:
    return t.split("\n")


#: FUZZ_TEXT_KINDS=list_nest,bom_mid,...: only these text mutations (to aim a run at new ones; a case then builds
#: otherwise than its seed's number does without it)
TEXT_KINDS = [k for k in os.environ.get("FUZZ_TEXT_KINDS", "").split(",") if k]


def text_mutate(t: str, r: random.Random) -> tuple[str | bytes, str]:
    ls = lines_of(t)
    kv = [i for i, ln in enumerate(ls) if re.match(r"^\s*(- )?[\w./-]+:\s*\S", ln)]
    kk = [i for i, ln in enumerate(ls) if re.match(r"^\s*(- )?[\w./-]+:\s*$", ln)]
    kind = r.choice(TEXT_KINDS or ["anchor_alias", "merge", "tag", "dupkey", "bom", "utf16", "notutf8", "nul", "crlf", "lonecr", "tabs",
                     "longline", "longscalar", "unicode_name", "truncate", "docmark", "directive", "flip", "yaml11", "alias_bomb",
                     "indent", "comment_junk", "ctrl", "env_doubling",
                     # fuzz21: Lists in Lists, a Helm output's block scalar holding '---', a key twice with two
                     # values, numbers as kubectl writes them, a mark inside the text
                     "list_nest", "helm_blockdash", "dupkey_diff", "kubectl_number", "bom_mid"])
    if kind == "anchor_alias" and kk:  # an anchored mapping, aliased further down
        i = r.choice(kk)
        ls[i] = ls[i] + " &a1"
        j = r.choice(kv) if kv else None
        if j is not None:
            ls[j] = re.sub(r":\s*\S.*$", ": *a1", ls[j])
    elif kind == "merge" and kk:
        i = r.choice(kk)
        ind = len(ls[i]) - len(ls[i].lstrip()) + 2
        ls.insert(i + 1, " " * ind + r.choice(["<<: {replicas: 3, x: 1}", "<<: [{a: 1}, {b: 2}]", "<<: 7", "<<: *nope", "<<: ~", "<<: [1, 2]"]))
    elif kind == "tag" and kv:
        i = r.choice(kv)
        ls[i] = re.sub(r":\s+(\S)", lambda m: f": {r.choice(TAGS)} " + m.group(1), ls[i], count=1)
    elif kind == "dupkey" and kv:
        i = r.choice(kv)
        ls.insert(i + 1, ls[i].replace("- ", "  ", 1) if ls[i].lstrip().startswith("- ") else ls[i])
    elif kind == "bom":
        return "\ufeff" + t if r.random() < .7 else ("\ufeff".join(t.split("\n---\n"))), kind
    elif kind == "utf16":
        return (b"\xff\xfe" if r.random() < .5 else b"") + t.encode("utf-16-le"), kind
    elif kind == "notutf8":
        b = bytearray(t.encode("utf-8"))
        for _ in range(r.randint(1, 5)):
            b[r.randrange(len(b) or 1):r.randrange(len(b) or 1)] = r.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xfe\xfe"])
        return bytes(b), kind
    elif kind == "nul":
        b = bytearray(t.encode("utf-8"))
        b.insert(r.randrange(len(b) + 1), 0)
        return bytes(b), kind
    elif kind == "crlf":
        return t.replace("\n", "\r\n"), kind
    elif kind == "lonecr":
        return t.replace("\n", "\r") if r.random() < .5 else t.replace("\n", "\r", r.randint(1, 5)), kind
    elif kind == "tabs":
        return re.sub(r"(?m)^(  )+", lambda m: "\t" * (len(m.group(0)) // 2), t, count=r.randint(1, 5)), kind
    elif kind == "longline":
        ls.insert(r.randrange(len(ls) + 1), "# " + "x" * r.choice([10_000, 300_000, 3_000_000]))
    elif kind == "longscalar" and kv:
        i = r.choice(kv)
        ls[i] = re.sub(r":\s*\S.*$", ": " + r.choice(["a", "9", "vllm serve ", "--tensor-parallel-size "]) * r.choice([1000, 100_000, 1_000_000]), ls[i])
    elif kind == "unicode_name" and kv:
        i = r.choice(kv)
        ls[i] = re.sub(r":\s*\S.*$", ": " + r.choice(["vllm-ünï", "名前", "😀", "a\u200bb", "\u202emodel", "Ａ"]), ls[i])
    elif kind == "truncate":
        return t[: r.randrange(len(t) + 1)], kind
    elif kind == "docmark":
        i = r.randrange(len(ls) + 1)
        ls.insert(i, r.choice(["---", "...", "--- !!map", "--- |", "---\n---", "--- # c", "...\n..."]))
    elif kind == "directive":
        return r.choice(["%YAML 1.1\n---\n", "%YAML 1.3\n---\n", "%TAG ! tag:x,2000:\n---\n", "%FOO bar\n---\n", "%YAML 1.2\n"]) + t, kind
    elif kind == "flip":
        b = bytearray(t.encode("utf-8"))
        for _ in range(r.randint(1, 8)):
            if b:
                b[r.randrange(len(b))] = r.randrange(256)
        return bytes(b), kind
    elif kind == "yaml11" and kv:  # YAML 1.1 spellings where numbers or bools go
        i = r.choice(kv)
        ls[i] = re.sub(r":\s*\S.*$", ": " + r.choice(["yes", "No", "ON", "0x1F", "0o7", "017", "1_0", "1:20", ".NaN", "-.Inf", "2001-12-14", "~", "null", "Null", "=", "<<"]), ls[i])
    elif kind == "alias_bomb":
        bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(f"a{k}: &a{k} [*a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}, *a{k-1}]\n" for k in range(1, r.randint(3, 9)))
        return (t + "\n---\n" + bomb) if r.random() < .5 else t.replace("metadata:", "metadata:\n  x: {" + "}", 0) + "\n" + bomb, kind
    elif kind == "indent" and ls:
        i = r.randrange(len(ls))
        ls[i] = " " * r.randint(1, 3) + ls[i]
    elif kind == "comment_junk":
        ls.insert(r.randrange(len(ls) + 1), r.choice(["# vllm serve x --tensor-parallel-size 999", "#\x00", "#\x1b[31m", "# {{ x }}", "#" * 5000]))
    elif kind == "env_doubling":  # fuzz15: env values that double at each step, beside a container's image
        img = [i for i, ln in enumerate(ls) if re.match(r"^\s*(- )?image:\s*\S", ln)]
        if img:
            i = r.choice(img)
            ind = len(ls[i]) - len(ls[i].lstrip()) + (2 if ls[i].lstrip().startswith("- ") else 0)
            n = r.choice([10, 15, 16, 24, 40])
            ls.insert(i + 1, " " * ind + 'env: [{name: Z0, value: "xxxxxxxx"}, ' + ", ".join(
                f'{{name: Z{k}, value: "$(Z{k - 1})$(Z{k - 1})"}}' for k in range(1, n)) + "]")
    elif kind == "list_nest":  # each document an item of a List, itself an item of a List (kubectl flattens both)
        try:
            docs = [d for d in yaml.safe_load_all(t) if d is not None]
        except Exception:  # noqa: BLE001 - not YAML this reader takes: the text as it is
            docs = None
        if docs:
            inner = {"apiVersion": "v1", "kind": "List", "items": docs}
            outer = inner if r.random() < .3 else {"apiVersion": "v1", "kind": r.choice(["List", "DeploymentList", "ConfigMapList"]),
                                                   "metadata": {}, "items": [inner] if r.random() < .7 else [inner, copy.deepcopy(inner)]}
            try:
                return (json.dumps(outer, indent=1) if r.random() < .3 else yaml.safe_dump(outer, sort_keys=False, width=10**6)), kind
            except (ValueError, OverflowError, RecursionError, yaml.YAMLError):
                pass
    elif kind == "helm_blockdash":  # helm template's output: '# Source:' lines, and a ConfigMap whose block scalar holds '---'
        cm = ("---\n# Source: llm/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n"
              "  run.sh: " + r.choice(["|", "|-", ">", "|+", "|2"]) + "\n    #!/bin/sh\n    cat <<EOF > /tmp/x.yaml\n"
              + r.choice(["    ---\n", "---\n", "    --- # next\n", "    ...\n"]) + "    kind: Pod\n    EOF\n")
        body = "\n".join("---\n# Source: llm/templates/" + f"t{k}.yaml\n" + part.strip("\n") for k, part in enumerate(t.split("\n---\n")))
        return (cm + body if r.random() < .5 else body + "\n" + cm), kind
    elif kind == "dupkey_diff" and kv:  # the same key again with another value (goyaml.v2: an error; the API: the last)
        i = r.choice(kv)
        line = ls[i].replace("- ", "  ", 1) if ls[i].lstrip().startswith("- ") else ls[i]
        ls.insert(i + r.choice([1, 1, 2]), re.sub(r":\s*\S.*$", ": " + r.choice(["0", "1", "8", "x", "true", "null", "[]", "{}", "vllm/vllm-openai:latest"]), line))
    elif kind == "kubectl_number" and kv:  # numbers as kubectl reads and writes them
        i = r.choice(kv)
        ls[i] = re.sub(r":\s*\S.*$", ": " + r.choice(["1e3", "0x10", "0X10", "1_000", "0o10", "010", ".5", "-.5", "+4", "8Gi", '"8Gi"', "'8Gi'",
                                                      "8.0", "1e400", "0b11", '"1e3"', "1E3", "4.", "0.5e1"]), ls[i])
    elif kind == "bom_mid" and ls:  # a mark at the start of a line, after a colon, or in a value
        i = r.randrange(len(ls))
        at = r.choice(["line", "colon", "value"])
        ls[i] = "\ufeff" + ls[i] if at == "line" else ls[i].replace(": ", ":\ufeff ", 1) if at == "colon" else ls[i] + "\ufeff"
    elif kind == "ctrl" and kv:
        i = r.choice(kv)
        ls[i] = ls[i] + r.choice(["\x1b", "\x07", "\x7f", "\u0085", "\u2028", "\ufffe", "\x0c"])
    return "\n".join(ls), kind


def write(path: str, data: str | bytes) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)


PARSED: dict[str, Any] = {}


def parsed(p: str) -> list | None:
    if p not in PARSED:
        try:
            t = read_bytes(os.path.join(ROOT, p)).decode("utf-8")
            docs = [json.loads(t)] if p.endswith(".json") else list(yaml.safe_load_all(t))
            PARSED[p] = docs or None
        except Exception:
            PARSED[p] = None
    return PARSED[p]


def mutated_file(r: random.Random, src: str) -> tuple[str | bytes, list[str]]:
    """One real file mutated one to three times, in its tree or its text."""
    text = read_text(os.path.join(ROOT, src))
    kinds: list[str] = []
    docs = parsed(src)
    if docs is not None and r.random() < .6:
        docs = copy.deepcopy(docs)
        for _ in range(r.randint(1, 3)):
            try:
                kinds.append("tree:" + tree_mutate(docs, r))
            except RecursionError:  # nested deeper than this process walks: the tree as it stands
                kinds.append("tree:too-deep")
                break
        try:
            text = dump(docs, ".json" if src.endswith(".json") else ".yaml", r)
        except (ValueError, OverflowError, RecursionError, yaml.YAMLError):
            kinds.append("undumpable")
    data: str | bytes = text
    if (kinds and r.random() < .4) or (not kinds and r.random() < .3):  # the tree alone: past the parser, into the rules
        return data, kinds
    if r.random() < .75 or not kinds:
        for _ in range(r.randint(1, 2)):
            if isinstance(data, bytes):
                break
            data, k = text_mutate(data, r)
            kinds.append("text:" + k)
    return data, kinds


NAMES = ["input", "ünïcødé-名", "with space", "-dash", "a" * 200, "x.yaml.bak", ".hidden", "UPPER",
         # fuzz14: names a report must escape (a newline, a terminal escape, a workflow command, Markdown)
         "new\nline", "esc\x1b[31mred", "bell\x07", "cr\rname", "::error::x", "tick`![i](http://x/i.png)`|pipe", "tab\tname"]


def file_name(r: random.Random, src: str) -> str:
    ext = os.path.splitext(src)[1]
    if r.random() < .2:
        return r.choice(NAMES) + (ext if r.random() < .9 else r.choice([".YAML", ".yml", ".json", ""]))
    return os.path.basename(src)


# ---------------------------------------------------------------- case kinds
def case_file(r: random.Random, d: str) -> dict:
    src = r.choice(VLLM_SRCS if r.random() < .6 else SRCS)
    data, kinds = mutated_file(r, src)
    name = file_name(r, src)
    write(os.path.join(d, "in", name), data)
    x = r.random()
    fmt = "sarif" if x < .15 else r.choice(["text", "github", "markdown"]) if x < .3 else "json"
    target = "in" if r.random() < .6 else os.path.join("in", name)
    argv = ["lint", "--format", fmt, "--jobs", "1", target]
    if r.random() < .04:  # fuzz14: a report nobody can write (a full disk): an error naming it, exit 2
        argv[3:3] = ["--output", "/dev/full"]
        kinds = kinds + ["output:/dev/full"]
    return {"argv": argv, "src": src, "kinds": kinds, "files": [os.path.join("in", name)], "fmt": fmt}


HAZARDS = ["symloop", "selfloop", "dangling", "fifo", "dir_as_file", "empty", "blank", "ignore", "toml", "dotyaml_config", "deepdir", "link_to_file", "link_to_dev"]


def add_hazard(r: random.Random, d: str, h: str) -> str:
    base = os.path.join(d, "in")
    os.makedirs(base, exist_ok=True)
    if h == "symloop":
        os.symlink("b.yaml", os.path.join(base, "a.yaml")); os.symlink("a.yaml", os.path.join(base, "b.yaml"))  # noqa: E702
    elif h == "selfloop":
        os.makedirs(os.path.join(base, "sub"), exist_ok=True)
        os.symlink("..", os.path.join(base, "sub", "up"))
    elif h == "dangling":
        os.symlink("/nonexistent/x.yaml", os.path.join(base, "gone.yaml"))
    elif h == "fifo":
        at = os.path.join(base, r.choice(["pipe.yaml", "pipe.json", "values.yaml", "Chart.yaml"]))
        if not os.path.lexists(at):  # an earlier hazard of the case made it (fuzz19: seed 7401 case 147)
            os.mkfifo(at)
    elif h == "dir_as_file":
        at = os.path.join(base, r.choice(["dir.yaml", "kustomization.yaml", "x.json", "Chart.yaml"]))
        if not os.path.lexists(at):
            os.makedirs(at)
    elif h == "empty":
        at = os.path.join(base, r.choice(["empty.yaml", "empty.json", "kustomization.yaml"]))
        if not os.path.lexists(at) or os.path.isfile(at) and not os.path.islink(at):  # not a hazard made before
            write(at, b"")
    elif h == "blank":
        write(os.path.join(base, "blank.yaml"), r.choice(["\n\n", "---\n", "---\n---\n", "...\n", "# c\n", " \t\n", "\ufeff", "null\n", "[]\n", "{}\n"]))
    elif h == "ignore":
        write(os.path.join(d, ".shardwiseignore"), r.choice(["*", "!*", "**/**/**/**/**/**/**/**/**/**/**/a", "[", "\\", "in/\n!in/", "\x00", "a" * 5000, "/**/\n", "[!]", "{a,b}"]))
    elif h == "toml":
        write(os.path.join(d, "shardwise.toml"), r.choice(["", "[", "exclude = 7", "fail_on = \"x\"", "kv_reserve = -1", "kv_reserve = nan",
                                                           "p95_context = 1e400", "jobs = true", "model_dirs = [\"/dev/null\"]", "[suppress]\nSW101 = 1",
                                                           "unknown = \"maybe\"", "\xff\xfe", "exclude = [\"[\"]", "p95_context = -5", "kv_reserve = inf"]))
    elif h == "dotyaml_config":
        write(os.path.join(d, ".shardwise.yaml"), r.choice(["", "- a", "exclude: 7", "fail_on: [x]", "kv_reserve: .nan", "&a [*a]", "p95_context: yes"]))
    elif h == "deepdir":
        p = base
        for _ in range(r.randint(20, 80)):
            p = os.path.join(p, "d")
        write(os.path.join(p, "deep.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\n")
    elif h == "link_to_file":
        os.symlink(os.path.join(ROOT, r.choice(VLLM_SRCS)), os.path.join(base, "linked.yaml"))
    elif h == "link_to_dev":
        os.symlink(r.choice(["/dev/null", "/dev/zero", "/proc/version"]), os.path.join(base, "dev.yaml"))
    return h


def case_tree(r: random.Random, d: str) -> dict:
    c = case_file(r, d)
    hz = [add_hazard(r, d, h) for h in r.sample(HAZARDS, r.randint(1, 3))]
    c["kinds"] = c["kinds"] + ["hazard:" + h for h in hz]
    c["argv"][-1] = r.choice(["in", "."])
    return c


def special(r: random.Random, path: str) -> str:
    """Replace ``path`` (a file or folder of a chart or kustomization) with something no tool can read as it."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    what = r.choice(["fifo", "dir", "loop", "dangling", "empty", "devnull", "binary", "link_up"])
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dir":
        os.makedirs(path)
    elif what == "loop":
        os.symlink(os.path.basename(path), path)
    elif what == "dangling":
        os.symlink("nowhere", path)
    elif what == "empty":
        write(path, b"")
    elif what == "devnull":
        os.symlink("/dev/zero" if r.random() < .5 else "/dev/null", path)
    elif what == "binary":
        write(path, bytes(r.randrange(256) for _ in range(200)))
    elif what == "link_up":
        os.symlink("..", path)
    return f"{what}@{os.path.basename(path)}"


CHART = os.path.join(ROOT, "tests/fixtures/charts/llm")


def case_chart(r: random.Random, d: str) -> dict:
    shutil.copytree(CHART, os.path.join(d, "llm"))
    argv = ["lint", "--format", "json", "--jobs", "1"]
    what = r.choice(["Chart.yaml", "values.yaml", "--values", "--set", "template"])
    kinds = ["chart:" + what]
    if what in ("Chart.yaml", "values.yaml"):
        src = os.path.relpath(os.path.join(CHART, what), ROOT)
        data, k = mutated_file(r, src)
        write(os.path.join(d, "llm", what), data)
        kinds += k
    elif what == "--values":
        data, k = mutated_file(r, os.path.relpath(os.path.join(CHART, "values.yaml"), ROOT))
        write(os.path.join(d, "v.yaml"), data)
        argv += ["--values", "v.yaml"]
        kinds += k
    elif what == "--set":
        keys = ["replicaCount", "image.tag", "model", "resources.limits.nvidia\\.com/gpu", "a.b[0]", "", "=", "x[99999999]", "a.b.c.d.e.f"]
        for _ in range(r.randint(1, 3)):
            argv += ["--set", f"{r.choice(keys)}={r.choice(['', '1e400', 'null', '-1', 'true', '{a,b}', 'x' * 5000, 'ü', '[', U])}"]
    else:
        src = os.path.relpath(os.path.join(CHART, "templates", "deployment.yaml"), ROOT)
        data, k = mutated_file(r, src)
        write(os.path.join(d, "llm", "templates", "deployment.yaml"), data)
        kinds += k
    if r.random() < .25:
        kinds.append("hazard:" + special(r, os.path.join(d, "llm", r.choice(["Chart.yaml", "values.yaml", "templates/deployment.yaml", "templates", "charts", ".helmignore", ".helmignore", "values.schema.json", "files/data.txt", "charts/sub"]))))
    if r.random() < .2:  # fuzz14: a template helm cannot run, or a dependency that is not there
        how = r.choice(["{{ nosuchfunc 1 }}", "{{ fail \"boom\" }}", "{{ required \"need x\" .Values.nope }}", "{{ (lookup \"v1\" \"Pod\" \"\" \"\").x }}",
                        "{{ .Files.Get \"../../etc/passwd\" }}", "{{ include \"nope\" . }}", "{{ range until 100000 }}x{{ end }}", "{{ template \"x\" }}", "{{ .Values.a.b.c }}"])
        tdir = os.path.join(d, "llm", "templates")
        if r.random() < .7 and os.path.isdir(tdir) and not os.path.islink(tdir):  # not where the case put a hazard (seed 14016 case 1197)
            write(os.path.join(tdir, "zz.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: zz}\ndata:\n  x: " + how + "\n")
            kinds.append("template:" + how)
        elif os.path.isfile(os.path.join(d, "llm", "Chart.yaml")) and not os.path.islink(os.path.join(d, "llm", "Chart.yaml")):
            with open(os.path.join(d, "llm", "Chart.yaml"), "a", encoding="utf-8") as f:
                f.write("\ndependencies:\n  - name: redis\n    version: 1.0.0\n    repository: " + r.choice(["https://charts.example.com", "file://../nope", "oci://x/y", "@stable"]) + "\n")
            kinds.append("chart:dependency")
    argv.append("llm" if r.random() < .9 else "llm/Chart.yaml")
    return {"argv": argv, "src": "charts/llm", "kinds": kinds, "files": [], "fmt": "json", "tools": True}


KUST = os.path.join(ROOT, "tests/fixtures/kustomize")
#: fuzz14: what a kustomization names besides its resources, and the file or folder made a hazard (None: none)
KUST_EXTRAS = [("patches:\n  - path: p.yaml\n", "p.yaml"), ("patchesStrategicMerge:\n  - p.yaml\n", "p.yaml"),
               ("patchesJson6902:\n  - path: p.json\n    target: {kind: Deployment}\n", "p.json"), ("replacements:\n  - path: r.yaml\n", "r.yaml"),
               ("configMapGenerator:\n  - name: c\n    files: [k=f.txt]\n", "f.txt"), ("secretGenerator:\n  - name: s\n    envs: [s.env]\n", "s.env"),
               ("configMapGenerator:\n  - name: c\n    env: c.env\n", "c.env"), ("openapi:\n  path: o.json\n", "o.json"), ("crds: [c.json]\n", "c.json"),
               ("configurations: [t.yaml]\n", "t.yaml"), ("transformers: [t.yaml]\n", "t.yaml"), ("generators: [g]\n", "g"), ("components: [comp]\n", "comp"),
               ("components: [.]\n", None), ("resources: [https://github.com/x/y//k?ref=v1]\n", None), ("bases: [github.com/x/y]\n", None),
               ("helmCharts:\n  - name: x\n    repo: https://example.com\n", None), ("patches:\n  - patch: |-\n" + "      - op: add\n        path: /metadata/labels/a\n        value: x\n" * 3000 + "    target: {kind: Deployment}\n", None)]


def case_kust(r: random.Random, d: str) -> dict:
    shutil.copytree(KUST, os.path.join(d, "k"))
    rel = r.choice(["base/kustomization.yaml", "overlays/prod/kustomization.yaml"])
    data, kinds = mutated_file(r, os.path.relpath(os.path.join(KUST, rel), ROOT))
    write(os.path.join(d, "k", rel), data)
    target = os.path.join("k", os.path.dirname(rel))
    if r.random() < .3:
        kinds.append("hazard:" + special(r, os.path.join(d, "k", r.choice(["base/kustomization.yaml", "base/deployment.yaml", "overlays/prod/kustomization.yaml", "base"]))))
    kfile = os.path.join(d, "k", rel)
    if r.random() < .35 and not isinstance(data, bytes) and os.path.isfile(kfile) and not os.path.islink(kfile):  # fuzz14: a field naming a file, a component, a remote base
        extra, ref = r.choice(KUST_EXTRAS)
        with open(kfile, "a", encoding="utf-8", errors="surrogatepass") as f:
            f.write("\n" + extra)
        kinds.append("kust-extra:" + extra.split(":")[0])
        if ref:
            kinds.append("hazard:" + special(r, os.path.join(d, "k", os.path.dirname(rel), ref)))
    return {"argv": ["lint", "--format", "json", "--jobs", "1", target], "src": "kustomize/" + rel, "kinds": kinds, "files": [], "fmt": "json", "tools": True}


PLAN_CASES = [c for c in json.loads(read_text(os.path.join(ROOT, "tests/capacity/data/plan_cases.json")))["cases"] if isinstance(c.get("plan"), dict)]
PLAN_ODD = ["", "0", "-1", "1e400", "nan", "inf", "-inf", "1.5", "true", "99999999999999999999", "0x10", " 8", "8 ", "８", "1_000",
            "\x00", "a\nb", "ü", "x" * 5000, "-", "--tp", "1e-300", "0.0000001", "2", U]


def case_plan(r: random.Random, d: str) -> dict:
    c = r.choice(PLAN_CASES)
    argv = ["plan", "--format", "json"] if r.random() < .7 else ["plan"]
    opts = []
    for k, v in c["plan"].items():
        flag = "--" + k.replace("_", "-")
        if isinstance(v, bool):
            if v:
                opts.append([flag])
        elif v is not None:
            opts.append([flag, str(v)])
    kinds = []
    for _ in range(r.randint(1, 3)):
        m = r.choice(["value", "drop", "dup", "add", "engine_arg", "env"])
        kinds.append("plan:" + m)
        if m == "value" and opts:
            o = r.choice(opts)
            if len(o) == 2:
                o[1] = r.choice(PLAN_ODD)
        elif m == "drop" and opts:
            opts.pop(r.randrange(len(opts)))
        elif m == "dup" and opts:
            opts.append(list(r.choice(opts)))
        elif m == "add":
            opts.append([r.choice(["--tp", "--pp", "--dp", "--max-model-len", "--max-num-seqs", "--concurrency", "--p95-context", "--gpu-memory-gib",
                                   "--gpus-per-node", "--weights-gib", "--kv-reserve", "--gpu-memory-utilization", "--vllm-version", "--quantization",
                                   "--speculative-config", "--max-num-batched-tokens", "--output-tokens-per-second", "--base-model", "--gpu", "--instance-type"]),
                         r.choice(PLAN_ODD + ["{}", "{\"model\": 1}", "[1]", "{\"num_speculative_tokens\": -1, \"method\": \"ngram\"}", "0.13.0", "99.0.0", "fp8", "awq"])])
        elif m == "engine_arg":
            opts.append(["--engine-arg", r.choice(["block_size", "swap_space", "max_num_seqs", "x", "", "=", "enable_prefix_caching", "cpu_offload_gb"]) + "=" + r.choice(PLAN_ODD)])
        elif m == "env":
            opts.append(["--env", r.choice(["VLLM_X", "", "=", "VLLM_USE_V1", "VLLM_FUSED_MOE_CHUNK_SIZE", "A B"]) + "=" + r.choice(PLAN_ODD)])
    for o in opts:
        argv += o
    return {"argv": argv, "src": c["id"], "kinds": kinds, "files": [], "fmt": "json" if "json" in argv else "text"}


def git(d: str, *a: str) -> None:
    subprocess.run(["git", "-c", "user.name=f", "-c", "user.email=f@f", "-c", "commit.gpgsign=false", *a], cwd=d, check=True, capture_output=True)


def case_diff(r: random.Random, d: str) -> dict:
    src = r.choice(VLLM_SRCS)
    name = os.path.basename(src)
    write(os.path.join(d, name), read_bytes(os.path.join(ROOT, src)))
    link = r.choice(["/dev/zero", "/etc/hostname", "../../outside.yaml", "/"]) if r.random() < .2 else None
    if link is not None:  # fuzz15: a committed link to an absolute path or out of the tree (an internal error once)
        os.symlink(link, os.path.join(d, "linked.yaml"))
    git(d, "init", "-q", "-b", "main"); git(d, "add", "-A"); git(d, "commit", "-qm", "base")  # noqa: E702
    data, kinds = mutated_file(r, src)
    kinds = kinds + ([f"base-link:{link}"] if link is not None else [])
    write(os.path.join(d, name if r.random() < .8 else file_name(r, src)), data)
    ref = r.choice(["HEAD", "HEAD", "HEAD", "main", "HEAD~5", "nope", "--", "-x", "HEAD:" + name, "\x7f"])
    fmt = r.choice(["json", "markdown"])
    return {"argv": ["diff", "--format", fmt, "--jobs", "1", ref, "."], "src": src, "kinds": kinds + ["ref:" + ref], "files": [], "fmt": fmt}


ENV_ODD = {"COLUMNS": ["0", "-1", "abc", "99999999999999999999", ""], "NO_COLOR": ["", "0", "1"], "SHARDWISE_DEBUG": ["1", ""],
           "GITHUB_WORKSPACE": ["/nonexistent", "", "\xe9"], "XDG_CACHE_HOME": ["/nonexistent", "/dev/null", ""], "HF_HOME": ["/dev/null", ""],
           "HF_HUB_CACHE": ["/proc", "relative"], "SHARDWISE_DOCS_URL": ["", "javascript:alert(1)", "x" * 3000], "SHARDWISE_PURE_YAML": ["1"],
           "GITHUB_REF_NAME": ["", "a\nb"], "GITHUB_BASE_REF": ["main", "../x"], "GIT_DIR": ["/nonexistent"], "HOME": ["/nonexistent"],
           "LANG": ["C", "POSIX", "C.UTF-8", "tr_TR.UTF-8"], "LC_ALL": ["C"], "PYTHONIOENCODING": ["ascii", "latin-1"], "TMPDIR": ["/nonexistent"],
           "PULUMI_CONFIG": ["{", "[]", "null", "{\"a\": 1}"], "CI_COMMIT_BRANCH": ["x"], "GITHUB_ACTIONS": ["true"],
           # fuzz14: terminals, locales and encodings
           "TERM": ["dumb", "", "\x1b", "xterm-256color", "vt100"], "FORCE_COLOR": ["1", "0"], "CLICOLOR_FORCE": ["1"], "LANGUAGE": ["tr_TR"],
           "PYTHONUTF8": ["0", "1"], "PYTHONWARNINGS": ["error"], "PYTHONHASHSEED": ["0", "4294967295"], "SHARDWISE_UNKNOWN_VALUE": ["", "x"],
           "SHARDWISE_PACK_TRANSPORT": ["x", ""]}

# fuzz16: the pack's inputs (a preview's or state's resource properties) mutated where the readers look
PACK_SRCS = [p for p in SRCS if p.endswith(".json") and '"urn:pulumi:' in read_text(os.path.join(ROOT, p))]
SIG = "4dabf18193072939515e22adb298388d"


def pack_mutation(v: Any, r: random.Random) -> tuple[Any, str]:
    m = r.choice(["unknown", "secret", "secret_unknown", "null", "flip", "huge", "numstr", "loop", "output", "masked"])
    if m == "unknown":
        return U, m
    if m == "masked":  # fuzz21: what `pulumi preview --json` writes for a secret value, of any type
        return "[secret]", m
    if m == "secret":
        return {SIG: "1b47061264138c4ac30d75fd1eb44270", "value": v}, m
    if m == "secret_unknown":
        return {SIG: "1b47061264138c4ac30d75fd1eb44270", "value": U}, m
    if m == "output":  # an output value: known or not, secret or not, with dependencies
        return {SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value": v, "secret": r.random() < .5, "dependencies": ["urn:x"]} if r.random() < .6 \
            else {SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4"}, m
    if m == "null":
        return None, m
    if m == "flip":
        return ([v] if isinstance(v, dict) else {"a": v} if isinstance(v, list) else {"x": v}), m
    if m == "huge":
        return "x" * r.choice([300_000, 3_000_000]), m
    if m == "numstr":
        return (str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else int(v) if isinstance(v, str) and v.isdigit() else " 8"), m
    return "$(SELF)$(SELF)" if r.random() < .5 else "$(A)$(B)", m


def case_pack(r: random.Random, d: str) -> dict:
    src = r.choice(PACK_SRCS)
    doc = json.loads(read_text(os.path.join(ROOT, src)))
    res = doc.get("steps") or (doc.get("deployment") or {}).get("resources") or []
    kinds = []
    for _ in range(r.randint(1, 3)):
        props = [x for x in ((s.get("newState") or s).get("inputs") for s in res if isinstance(s, dict)) if isinstance(x, dict)]
        ss = slots(props, []) if props else []
        if not ss:
            break
        parent, key = r.choice(ss)
        parent[key], m = pack_mutation(parent[key], r)
        kinds.append(f"pack:{m}:{key}")
    write(os.path.join(d, "in", "stack.json"), json.dumps(doc, indent=1))
    fmt = r.choice(["json", "json", "sarif"])
    return {"argv": ["lint", "--format", fmt, "--jobs", "1", os.path.join("in", "stack.json")], "src": src, "kinds": kinds, "files": [], "fmt": fmt}


# fuzz16: Argo CD and Flux objects of the checkout pointing where they should not
GITOPS = os.path.join(ROOT, "tests/fixtures/gitops/llm-platform")
GITOPS_PATHS = ["../../../../etc", "/etc", "charts/nothing", "charts/vllm/Chart.yaml", "", ".", "./", "charts/../charts/vllm", "charts/vllm\n",
                "7", "null", "[a]", "{{path}}", "charts/vllm/../../..", "ünï/cødé", "out", "loop"]


def case_gitops(r: random.Random, d: str) -> dict:
    root = d  # the run's folder is the checkout: a source is this repository only seen from inside it
    shutil.copytree(GITOPS, root, symlinks=True, dirs_exist_ok=True)
    git(root, "init", "-q", "-b", "main"); git(root, "remote", "add", "origin", "https://github.com/acme/llm-platform.git")  # noqa: E702
    os.symlink("/etc", os.path.join(root, "out")); os.symlink("loop", os.path.join(root, "loop"))  # noqa: E702
    rel, key = r.choice([("apps/chat-staging.yaml", "path: charts/vllm"), ("apps/chat-prod.yaml", "path: charts/vllm"),
                         ("clusters/prod/summarize.yaml", "path: ./deploy/summarize"),
                         ("apps/chat-staging.yaml", "- $values/environments/staging/values.yaml")])
    p = os.path.join(root, rel)
    text = read_text(p)
    new = r.choice(GITOPS_PATHS)
    if key.startswith("- $values"):
        new = r.choice(["$values/../../../../etc/passwd", "/etc/passwd", "$nope/x.yaml", "$values/out/hostname", "$values/loop"])
        text = text.replace(key, "- " + new)
    elif key in text:
        text = text.replace(key, key.split(":")[0] + ": " + (json.dumps(new) if "\n" in new or new in ("", "7") else new))
    write(p, text)
    kinds = [f"gitops:{rel}:{new!r}"]
    if r.random() < .2:
        kinds.append("hazard:" + special(r, os.path.join(root, r.choice(["charts/vllm/values.yaml", "environments/staging/values.yaml", "deploy/summarize/deployment.yaml"]))))
    fmt = r.choice(["json", "sarif"])
    return {"argv": ["lint", "--format", fmt, "--jobs", "1", "."], "src": "gitops/" + rel, "kinds": kinds, "files": [], "fmt": fmt, "tools": True}


#: A count's value after its key: a quoted scalar, or a plain one up to the `,`, `]` or `}` that ends it in a flow
#: collection (hostile18: `\S+` took `1}}` of `{limits: {nvidia.com/gpu: 1}}`, so the mutation also removed the braces
#: and the case was a YAML syntax error, not a count).
_COUNT_VALUE = r"""\s*(?:"[^"\n]*"|'[^'\n]*'|[^\s,\]}]+)"""
#: fuzz17: where a count or a quantity goes, in the text of a file that serves vLLM, and values that are only
#: malformed there (YAML 1.1/1.2 spellings, strings, units, signs, fractions, overflow) or absurd flag values
COUNT_SLOTS = [r"(nvidia\.com/gpu|amd\.com/gpu|aws\.amazon\.com/neuron):" + _COUNT_VALUE, r"replicas:" + _COUNT_VALUE,
               r"\bsize:" + _COUNT_VALUE, r"memory:" + _COUNT_VALUE, r"cpu:" + _COUNT_VALUE,
               r"ephemeral-storage:" + _COUNT_VALUE, r"sizeLimit:" + _COUNT_VALUE,
               r"--(tensor-parallel-size|pipeline-parallel-size|data-parallel-size|max-model-len|max-num-seqs|"
               r"gpu-memory-utilization|block-size|max-num-batched-tokens)(=|\s+|\"?,\s*\"?)[^\s\",\]]+"]
COUNT_ODD = ["0x10", "0o10", "010", ".inf", "-.inf", ".nan", "1e400", "-1", "0", "0.5", "1.5", '"2Gi"', '"2"', '"-1"', '"1.5"',
             '"two"', '"2 "', "~", "[]", "{}", "99999999999999999999", "1e9", "!!binary Mg==", "!Ref Gpus", '"1m"', '"1e3"',
             '"+2"', "2Gi", "-2Gi", "1Ei", "99999999Ei", "0.000001m", '"8.5Gi"', "1_000", "true", '""']
FLAG_ODD = ["0", "-1", "1e9", "1.5", "two", "", "0x2", "inf", "nan", "2Gi", "99999999999999999999", "+4", " 4", "８", "$(TP)"]


def count_slots(t: str) -> list[re.Match[str]]:
    """The places of ``t`` a count mutation may change (:data:`COUNT_SLOTS`), in the order of the text, none
    overlapping another (the first written wins)."""
    hits = sorted((m for x in COUNT_SLOTS for m in re.finditer(x, t)), key=lambda m: (m.start(), -m.end()))
    out: list[re.Match[str]] = []
    for m in hits:
        if not out or m.start() >= out[-1].end():
            out.append(m)
    return out


def mutate_counts(r: random.Random, t: str, only: list[str] | None = None) -> tuple[str, list[str]]:
    """``t`` with one or two of its count slots (:func:`count_slots`), distinct, each given a malformed or absurd
    value, and a kind naming each change. The slots are drawn from the unmutated text and replaced from the last
    one back: hostile18, where each draw was made again over the text already changed, the same slot could be
    drawn twice (its new value matches the slot too), so a case said two mutations and held one. fuzz18: where a
    well-formed value (:func:`plain_count`: ``nvidia.com/gpu: 0``) is drawn beside a malformed one, ``only`` is given
    the text with the malformed ones alone, on which a new blocking finding is judged (seed 7301 case 903 before
    hostile18: SW204 on 0 GPUs for TP2 is right, and was laid to `--max-num-seqs inf`)."""
    slots = count_slots(t)
    chosen = sorted(r.sample(slots, min(r.randint(1, 2), len(slots))), key=lambda m: m.start())
    kinds = []
    repls = []
    plain: list[bool] = []
    for m in chosen:
        whole = m.group(0)
        if whole.startswith("--"):
            flag = re.match(r"--[\w-]+", whole).group(0)  # type: ignore[union-attr]
            sep = whole[len(flag):][: len(whole[len(flag):]) - len(re.search(r"[^\s\",=]*$", whole).group(0))]  # type: ignore[union-attr]
            value = r.choice(FLAG_ODD)
            repl = flag + sep + value
        else:
            key = whole.split(":", 1)[0]
            value = r.choice(COUNT_ODD)
            repl = f"{key}: {value}"
        repls.append(repl)
        plain.append(plain_count(value, flag=whole.startswith("--"), quantity=_QUANTITY_KEY.search(whole) is not None))
        label = re.match(r"--[\w-]+", whole).group(0) if whole.startswith("--") else whole.split(":")[0]  # type: ignore[union-attr]
        kinds.append(f"count:{label.strip()[:40]}={value}")
    odd_text = t
    for m, repl, ok in reversed(list(zip(chosen, repls, plain, strict=True))):
        t = t[:m.start()] + repl + t[m.end():]
        odd_text = odd_text if ok else odd_text[:m.start()] + repl + odd_text[m.end():]
    if only is not None and any(plain) and not all(plain):
        only.append(odd_text)
    return t, kinds


#: The count slots whose value is a resource quantity (a container's requests and limits, an emptyDir's sizeLimit).
_QUANTITY_KEY = re.compile(r"^\s*(nvidia\.com/gpu|amd\.com/gpu|aws\.amazon\.com/neuron|memory|cpu|ephemeral-storage|"
                           r"sizeLimit):")


#: A Kubernetes quantity (k8s.io/apimachinery pkg/api/resource/quantity.go): a signed decimal and a binary SI, decimal
#: SI or decimal-exponent suffix
_K8S_QUANTITY = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d{1,3})?")
_K8S_SUFFIX: dict[str, str] = {
    "Ki": str(2 ** 10), "Mi": str(2 ** 20), "Gi": str(2 ** 30), "Ti": str(2 ** 40), "Pi": str(2 ** 50), "Ei": str(2 ** 60),
    "n": "1/1000000000", "u": "1/1000000", "m": "1/1000", "k": "1000", "M": "1000000", "G": "1e9", "T": "1e12",
    "P": "1e15", "E": "1e18"}


def plain_count(value: str, flag: bool = False, quantity: bool = False) -> bool:
    """A value vLLM's argparse (int) or Kubernetes reads as a number: no malformed value ("+4" is 4: seed 17003 case
    459; 0 GPUs is a count; `1_000` is 1000 to kubectl's YAML reader, sigs.k8s.io/yaml's go-yaml v2 fork, whose
    resolve.go drops "_" before ParseInt, as to YAML 1.1: seed 7304 case 476). A flag's value " 4" is 4: a shell
    splits it off, and Python's int(), argparse's type, strips the blanks around a number (seed 7307 case 1008).
    A resource quantity is a string in the API (k8s.io/apimachinery pkg/api/resource/quantity.go: UnmarshalJSON
    takes a JSON string or number, blanks around it trimmed), so a quoted one is as well-formed as the bare one:
    `nvidia.com/gpu: "2"` and `"2 "` are two GPUs (fuzz19: seed 7401 case 1158 and seed 7408 case 227, SW201 on a
    1-GPU node, right). A bare `0x10` is 16 to kubectl (fuzz20: seed 20006 case 44, SW201 on 16 GPUs against 8 a
    node, right): go-yaml v2's resolve.go reads a plain scalar with strconv.ParseInt(plain, 0, 64) once the "_" are
    dropped, and base 0 takes `0x`, `0o`, `0b` and a leading `0` (octal); the JSON it hands the API holds the int."""
    value = value.strip() if flag else value
    if not flag and not quantity and value in ("~", "null", "Null", "NULL"):
        # fuzz21: a null count is the field unset, which the API server defaults (a CRD's structural schema prunes the
        # null before its default applies: LeaderWorkerSet `size: ~` is 1; `replicas: ~` a nil pointer, 1), so SW204
        # on `size: ~` (TP4 x PP2 x PCP2 in one pod of 8 GPUs) is right: seed 8112 case 84
        return True
    if quantity and len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1].strip()  # UnmarshalJSON: ParseQuantity(strings.TrimSpace(...)) (seed 7408 case 227)
    elif not flag and re.fullmatch(r"[+-]?0([xX][0-9a-fA-F]+|[oO]?[0-7]+|[bB][01]+)", value.replace("_", "")):
        return True
    m = _K8S_QUANTITY.fullmatch(value) if quantity else None
    if m is not None and (m.group(3) or "." in m.group(2)):
        # quantity.go's grammar, a whole value: "1e3" is 1000 GPUs (seed 20011 case 101), "8.5Gi" 9,126,805,504
        # (case 311): SW201 on either is right
        from fractions import Fraction
        suffix = m.group(3) or ""
        scale = (Fraction(_K8S_SUFFIX[suffix]) if suffix in _K8S_SUFFIX else
                 Fraction(10) ** int(suffix[1:]) if suffix else Fraction(1))
        return (Fraction(m.group(2)) * scale).denominator == 1
    return re.fullmatch(r"[+-]?\d+|\d+(Gi|Mi|Ki|Ei|m)?|1e9|99999999999999999999|\d+(_\d+)+", value) is not None


def case_count(r: random.Random, d: str) -> dict:
    """fuzz17: one or two counts or quantities of a file that serves vLLM replaced by malformed or absurd values
    (:func:`mutate_counts`); the unmutated file is linted too (``base``), so that a new blocking finding on a value
    that is only malformed is seen."""
    srcs = [p for p in VLLM_SRCS if any(re.search(x, read_text(os.path.join(ROOT, p))) for x in COUNT_SLOTS)]
    src = r.choice(srcs)
    only: list[str] = []
    t, kinds = mutate_counts(r, read_text(os.path.join(ROOT, src)), only)
    name = os.path.basename(src)
    write(os.path.join(d, "in", name), t)
    write(os.path.join(d, "base", name), read_text(os.path.join(ROOT, src)))
    fmt = r.choice(["json", "json", "sarif"])
    c = {"argv": ["lint", "--format", fmt, "--jobs", "1", os.path.join("in", name)], "src": src, "kinds": kinds,
         "files": [os.path.join("in", name)], "fmt": fmt, "base": ["lint", "--format", "json", "--jobs", "1",
                                                                     os.path.join("base", name)]}
    if only:
        write(os.path.join(d, "odd", name), only[0])
        c["odd"] = ["lint", "--format", "json", "--jobs", "1", os.path.join("odd", name)]
    return c


KINDS = [("file", case_file, 40), ("tree", case_tree, 20), ("chart", case_chart, 8), ("kust", case_kust, 7), ("plan", case_plan, 15), ("diff", case_diff, 10),
         ("pack", case_pack, 10), ("gitops", case_gitops, 6), ("count", case_count, 15)]


def build(seed: int, i: int, d: str) -> dict:
    r = random.Random(f"{seed}-{i}")
    kind = r.choices([k for k, _, _ in KINDS], [w for _, _, w in KINDS])[0]
    c = dict(next(f for k, f, _ in KINDS if k == kind)(r, d))
    c["kind"] = kind
    c["env"] = {}
    if r.random() < .2:
        k = r.choice(sorted(ENV_ODD))
        c["env"][k] = r.choice(ENV_ODD[k])
    return c


# ---------------------------------------------------------------- running and judging
class Hang(BaseException):
    pass


def _alarm(*_: object) -> None:
    raise Hang()


def env_for(c: dict, d: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SHARDWISE_DEBUG", "SHARDWISE_PURE_YAML", "COLUMNS")}
    env["PATH"] = TOOLS_BIN + os.pathsep + env.get("PATH", "")
    env["HF_HOME"] = os.path.join(d, ".hf")
    env.update(c["env"])
    return env


def run_inproc(c: dict, d: str) -> dict:
    env = env_for(c, d)
    saved = dict(os.environ)
    cwd = os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.monotonic()
    res: dict[str, Any] = {}
    try:
        os.environ.clear(); os.environ.update({k: v for k, v in env.items() if "\x00" not in v})  # noqa: E702
        os.chdir(d)
        signal.alarm(int(WALL_S * 3))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                res["rc"] = cli_main(list(c["argv"]))
            except SystemExit as e:
                res["rc"] = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except Hang:
        res["hang"] = True
    except BaseException as e:  # noqa: BLE001
        tb = traceback.extract_tb(e.__traceback__)[-1]
        res["exc"] = f"{type(e).__name__}@{os.path.basename(tb.filename)}:{tb.lineno}"
        res["tb"] = traceback.format_exc()[-2500:]
    finally:
        signal.alarm(0)
        os.chdir(cwd)
        os.environ.clear(); os.environ.update(saved)  # noqa: E702
    res["wall"] = time.monotonic() - t0
    res["out"], res["err"] = out.getvalue(), err.getvalue()
    return res


def run_proc(c: dict, d: str, limit: float) -> dict:
    env = env_for(c, d)
    t0 = time.monotonic()
    try:
        p = subprocess.run([EXE, *c["argv"]], cwd=d, env=env, capture_output=True, timeout=limit, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"hang": True, "wall": time.monotonic() - t0}
    except ValueError as e:  # an environment value Python cannot pass (a NUL)
        return {"skip": str(e), "wall": 0.0}
    return {"rc": p.returncode, "out": p.stdout.decode("utf-8", "replace"), "err": p.stderr.decode("utf-8", "replace"),
            "outb": p.stdout, "wall": time.monotonic() - t0}


VLLM_SERVES = re.compile(r"vllm/vllm-openai|\bvllm\s+serve\b|vllm\.entrypoints")


def judge(c: dict, res: dict, where: str, d: str) -> list[tuple[str, str]]:
    fails: list[tuple[str, str]] = []
    if res.get("skip"):
        return fails
    if res.get("hang"):
        return [(f"{where}:hang>{WALL_S:.0f}s", "")]
    if "/dev/full" in c["argv"]:  # fuzz14: nothing could be written: exit 2 and the reason on stderr
        if res.get("exc"):
            return [(f"{where}:exception:{res['exc']}", res.get("tb", ""))]
        # exit 2 with a word on stderr (the config's error stops the run before any writing); a GitHub report
        # with nothing to annotate writes nothing, which /dev/full takes (seed 14016 cases 533, 707, 958)
        said = res.get("rc") == 2 and res.get("err", "").strip()
        empty = c["fmt"] == "github" and res.get("rc") == 0
        return [] if said or empty else [(f"{where}:dev-full-not-said", f"rc={res.get('rc')} {res.get('err', '')[-300:]}")]
    if res.get("exc"):
        return [(f"{where}:exception:{res['exc']}", res.get("tb", ""))]
    rc, out, err = res["rc"], res["out"], res["err"]
    if res["wall"] > WALL_S:
        fails.append((f"{where}:slow>{WALL_S:.0f}s", f"{res['wall']:.1f}"))
    if rc not in (0, 1, 2):
        fails.append((f"{where}:exit{rc}", err[-400:]))
    if "Traceback (most recent call last)" in out + err:
        fails.append((f"{where}:traceback", (err or out)[-1500:]))
    if "internal error" in err.lower():
        fails.append((f"{where}:internal-error", [ln for ln in err.splitlines() if "internal error" in ln.lower()][0][:300]))
    cmd = c["argv"][0]
    if cmd in ("lint",) and c["fmt"] in ("json", "sarif"):
        if not out.strip():
            if rc != 2 or not err.strip():
                fails.append((f"{where}:no-report-no-message", f"rc={rc} {err[-300:]}"))
            return fails
        try:
            doc = json.loads(out)
        except ValueError as e:
            fails.append((f"{where}:report-not-json", str(e)[:200]))
            return fails
        if re.search("[\ud800-\udc7f\udd00-\udfff]", json.dumps(doc, ensure_ascii=False)):
            fails.append((f"{where}:lone-surrogate", ""))
        if c["fmt"] == "sarif":
            try:
                jsonschema.validate(doc, SARIF)
            except jsonschema.ValidationError as e:
                fails.append((f"{where}:sarif-schema", e.message[:300]))
            return fails
        internal = [f for f in doc.get("findings", []) if f.get("internal")]
        if internal:
            fails.append((f"{where}:internal-finding", internal[0]["message"][:300]))
        if (rc == 2) != bool(doc.get("input_errors")):
            fails.append((f"{where}:exit-vs-input-errors", f"rc={rc} {str(doc.get('input_errors'))[:300]}"))
        blocking = [f for f in doc.get("findings", []) if f.get("level") == "mandatory" and not f.get("suppressed")]
        if rc == 1 and not blocking:
            fails.append((f"{where}:exit1-without-blocking", ""))
        if rc == 0 and blocking:
            fails.append((f"{where}:exit0-with-blocking", blocking[0]["message"][:200]))
        for entry in doc.get("input_errors", []):
            # what helm or kustomize said is Go's, quoted after "… failed: " (kustomize's `MalformedYAMLError`: seeds
            # 15016 case 2011, 17003 case 101, 20006 case 822), not Python's
            ours = re.split(r"(?:kustomize build|kubectl kustomize|helm template) failed: ", str(entry.get("message")))[0]
            if re.search(r"\b[A-Z]\w+(Error|Exception)\b|object has no attribute|unhashable|not subscriptable|NoneType", ours):
                fails.append((f"{where}:python-words-in-input-error", str(entry.get("message"))[:300]))
                break
        # a silent pass: a file that clearly serves vLLM, no workload, nothing naming it
        # an ignore file may exclude it, and says so; a setup error (a config file that cannot be read) stops the run
        # before any input is read, and the report says so (review17; seed 17001 case 16)
        stopped = "stopped before reading its inputs" in str((doc.get("summary") or {}).get("note"))
        for rel in c["files"] if not doc.get("excluded") and not stopped else []:
            p = os.path.join(d, rel)
            try:
                raw = read_bytes(p)
            except OSError:
                continue
            text = re.sub(r"(?m)^\s*#.*$", "", raw.decode("utf-8", "replace"))  # a comment serves nothing (fuzz14: seed 14014 case 1535)
            if not VLLM_SERVES.search(text) or not re.search(r"(?m)^\s*kind:|\"kind\"", text):
                continue
            if c["argv"][-1] != rel and not rel.endswith((".yaml", ".yml", ".json")):
                continue  # a folder is searched for these names only (case and all, as kubectl apply -f DIR)
            said = [w.get("file") for w in doc.get("workloads", [])] + [e.get("file") for e in doc.get("input_errors", [])]
            said += [s.get("file") for s in doc.get("skipped_files", []) if isinstance(s, dict)]
            said += [f.get("file") for f in doc.get("findings", [])]
            # a chart or kustomization beside it that could not be rendered names the folder's metadata file
            said += [e.get("file") for e in doc.get("input_errors", []) if str(e.get("file")).endswith(("/Chart.yaml", "/kustomization.yaml"))
                     and os.path.dirname(str(e.get("file"))) == os.path.dirname(rel)]
            if not any(s and os.path.basename(str(s)) in (os.path.basename(rel), "Chart.yaml", "kustomization.yaml") for s in said):
                fails.append((f"{where}:silent-pass", rel))
    elif cmd == "lint" and c["fmt"] in ("text", "github", "markdown"):  # fuzz14: the reports people and CI read
        coloured = any(k in c["env"] for k in ("FORCE_COLOR", "CLICOLOR_FORCE"))
        # a GitHub annotation names the file as it is (the runner's escaping: %, CR, LF, colon, comma), so the
        # annotation still points at it: judged by its lines alone
        seen = err if c["fmt"] == "github" else out if coloured else out + err
        ctl = re.search(r"[\x00-\x08\x0b-\x1f\x7f]", seen)
        if ctl and not (coloured and ctl.group(0) == "\x1b"):
            fails.append((f"{where}:raw-control-character", repr(seen[max(0, ctl.start() - 80):ctl.start() + 40])))
        if c["fmt"] == "github":
            stray = [ln for ln in out.splitlines() if ln and not ln.startswith("::")]
            if stray:
                fails.append((f"{where}:github-line-not-a-command", repr(stray[0][:200])))
        if c["fmt"] == "markdown":
            for rel in c["files"]:
                base = os.path.basename(rel)
                if "![" in base and base in out:
                    fails.append((f"{where}:markdown-injection", base))
    elif cmd in ("plan", "diff") and c["fmt"] == "json" and rc != 2 and not (cmd == "plan" and rc == 1 and not out.strip()):
        try:
            json.loads(out)
        except ValueError as e:
            fails.append((f"{where}:report-not-json", f"rc={rc} {str(e)[:100]} {out[:100]!r}"))
    if rc == 2 and not err.strip() and cmd != "lint":
        fails.append((f"{where}:exit2-silent", out[:200]))
    return fails


def judge_malformed(c: dict, res: dict, d: str) -> list[tuple[str, str]]:
    """A count made malformed (not a vLLM flag value, which vLLM itself refuses: SW003/SW004) that gives a blocking
    finding the unmutated file does not have, with no input error: the rule judged a value it could not read."""
    try:
        doc = json.loads(res["out"])
    except ValueError:
        return []
    if c["fmt"] != "json" or doc.get("input_errors"):
        return []
    base = run_inproc({**c, "argv": c["base"], "env": {}}, d)
    try:
        was = {(f["code"], f.get("line")) for f in json.loads(base["out"]).get("findings", []) if f.get("level") == "mandatory"}
    except (ValueError, KeyError):
        return []
    new = [f for f in doc.get("findings", []) if f.get("level") == "mandatory" and not f.get("suppressed")
           and f["code"] not in ("SW003", "SW004") and (f["code"], f.get("line")) not in was]
    # a value vLLM's argparse (int) or Kubernetes reads as a number is no malformed value: "+4" is 4 (seed 17003 case 459)
    odd = [k for k in c["kinds"] if not plain_count(k.rsplit("=", 1)[1], flag=k.startswith("count:--"), quantity=_QUANTITY_KEY.search(
        k.removeprefix("count:").rsplit("=", 1)[0] + ":") is not None)]
    if new and odd and c.get("odd"):  # fuzz18: a well-formed value beside: the file with only the malformed ones
        alone = run_inproc({**c, "argv": c["odd"], "env": {}}, d)
        try:
            new = [f for f in json.loads(alone["out"]).get("findings", []) if f.get("level") == "mandatory"
                   and not f.get("suppressed") and f["code"] not in ("SW003", "SW004") and (f["code"], f.get("line")) not in was]
        except (ValueError, KeyError):
            return []
    return [("proc:blocking-on-malformed", f"{c['kinds']} {new[0]['code']}: {new[0]['message'][:300]}")] if new and odd else []


def summary(res: dict, d: str) -> tuple:
    """What the two runs must agree on: the exit status and the findings (codes and messages, paths relative)."""
    if "rc" not in res:
        return ("none",)
    out = res["out"].replace(os.path.realpath(d), "<d>").replace(d, "<d>")
    try:
        doc = json.loads(out)
    except ValueError:
        return (res["rc"], ())
    if isinstance(doc, dict) and isinstance(doc.get("findings"), list) and all(isinstance(f, dict) for f in doc["findings"]):
        return (res["rc"], tuple(sorted((f.get("code"), f.get("level"), f.get("message")) for f in doc["findings"])))
    return (res["rc"], (out,))


def one(seed: int, i: int, keep: str | None = None) -> tuple[dict, list[tuple[str, str]]]:
    d = tempfile.mkdtemp(prefix="fz14-")
    try:
        c = build(seed, i, d)
        if c.get("tools") and not shutil.which("helm", path=TOOLS_BIN):
            return c, []
        fails: list[tuple[str, str]] = []
        rp = run_proc(c, d, WALL_S)
        if rp.get("hang"):
            rp2 = run_proc(c, d, 60.0)
            rp = rp2 if not rp2.get("hang") else rp
            if not rp.get("hang"):
                rp["wall"] = max(rp["wall"], WALL_S + 0.01)
        fails += judge(c, rp, "proc", d)
        if c.get("base") and "rc" in rp:  # fuzz17: a new blocking capacity finding where a value is only malformed
            fails += judge_malformed(c, rp, d)
        has_fifo = any("fifo" in k for k in c["kinds"])
        if not has_fifo or rp.get("rc") is not None:
            ri = run_inproc(c, d)
            fails += judge(c, ri, "inproc", d)
            if not rp.get("hang") and not ri.get("hang") and "rc" in rp and "rc" in ri and not c["env"] and summary(rp, d) != summary(ri, d):
                a, b = summary(rp, d), summary(ri, d)
                fails.append(("inproc-vs-proc", f"proc rc={a[0]} inproc rc={b[0]} " + (str(set(a[1]) ^ set(b[1]))[:400] if len(a) > 1 and len(b) > 1 else "")))
        c["proc_rc"] = rp.get("rc")
        return c, fails
    finally:
        if keep:
            shutil.copytree(d, keep, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True, ignore=lambda p, ns: [n for n in ns if os.path.exists(os.path.join(p, n)) and not os.path.isdir(os.path.join(p, n)) and not os.path.isfile(os.path.join(p, n))])
        for dp, dns, _ in os.walk(d):
            for n in dns:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(dp, n), 0o755)
        shutil.rmtree(d, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--minutes", type=float, default=0.0, help="run cases until this many minutes have passed")
    ap.add_argument("--cases", type=int, default=0, help="run this many cases (with --minutes: whichever ends first)")
    ap.add_argument("--start", type=int, default=0, help="the first case number")
    ap.add_argument("--case", type=int, help="replay this one case, print what each run said")
    ap.add_argument("--keep", help="with --case: copy its folder here")
    ap.add_argument("--log", default=os.path.join(OUT, "failures.jsonl"))
    a = ap.parse_args()
    if a.case is not None:
        c, fails = one(a.seed, a.case, a.keep)
        print(json.dumps({k: v for k, v in c.items()}, ensure_ascii=True, default=str)[:3000])
        for cls, detail in fails:
            print(cls, "\n   ", detail[-2000:])
        return 1 if fails else 0
    os.makedirs(os.path.dirname(a.log), exist_ok=True)
    t_end = time.monotonic() + a.minutes * 60 if a.minutes else math.inf
    n_end = a.start + a.cases if a.cases else math.inf
    classes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    rcs: Counter[str] = Counter()
    i = a.start
    t0 = time.monotonic()
    with open(a.log, "a", encoding="utf-8") as log:
        while i < n_end and time.monotonic() < t_end:
            try:
                c, fails = one(a.seed, i, None)
            except Exception:  # the fuzzer's own defect: recorded, the campaign goes on
                c, fails = {"kind": "fuzzer", "kinds": [], "argv": [], "env": {}}, [("fuzzer-error", traceback.format_exc()[-1500:])]
            kinds[c["kind"]] += 1
            rcs[f"{c['kind']}:{c.get('proc_rc')}"] += 1
            for cls, detail in fails:
                key = f"{c['kind']}|{cls}"
                classes[key] += 1
                if classes[key] <= 5:
                    log.write(json.dumps({"seed": a.seed, "case": i, "kind": c["kind"], "class": cls, "src": c.get("src"), "kinds": c["kinds"],
                                          "argv": c["argv"], "env": c["env"], "detail": detail[-1500:]}, ensure_ascii=True) + "\n")
                    log.flush()
            i += 1
            if (i - a.start) % 100 == 0:
                print(json.dumps({"cases": i - a.start, "secs": round(time.monotonic() - t0), "fails": sum(classes.values()), "classes": len(classes)}), flush=True)
    print(json.dumps({"seed": a.seed, "first": a.start, "cases": i - a.start, "secs": round(time.monotonic() - t0), "kinds": kinds,
                      "exits": rcs, "failed_classes": classes}, indent=1))
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
