"""A sweep of hostile and odd inputs, one case per class (hostile5): ``shardwise lint`` and ``shardwise plan`` run
as the user runs them (a process of their own, under a deadline) on a repository built for each case.

    .venv/bin/python benchmarks/hostile_sweep.py [--only SUBSTRING] [--show]

Every case puts its hostile input beside a good vLLM Deployment (``good.yaml``) and lints the folder (or names
the input, or runs ``plan``). A case fails when the run hangs (120 s of wall time) or takes more than 10 s of CPU, prints a traceback, exits with a status
other than the one the case expects, or passes silently: the hostile input must be named, by its file name, in
the report's input errors or skipped files (with what is wrong), and the good Deployment must still be linted.
Cases whose input is valid (a UTF-8 BOM, CRLF, merge keys, a JSON manifest) must be linted as their plain form
is: the same findings. One line per case; the totals last; exit status 1 when a case failed.
"""
# ruff: noqa: E501
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, ".venv", "bin", "shardwise")
DEADLINE_S = 120.0  # wall time: a blocking read (a FIFO) hangs without using the CPU; the machine may be shared
CPU_S = 10.0  # the CPU time one run may take
#: A progress line (``--progress``, rules/model/progress.py): the first is written once the run is a second old, so
#: whether a run writes one depends on how fast the machine is, never on the input. fuzz21: the record's
#: ``fz17-progress-json-on-stdout`` (two files, under a second on an idle machine) said "reading inputs: 0 of 2 files
#: read (1 s)" more under load (the sweep test failed once at load 6 and passed alone). Such lines are checked for
#: their form and left out of what a case said.
PROGRESS_LINE = re.compile(r"shardwise: (?:reading inputs: [\d,]+ of [\d,]+ files read|rendering .+ with \w+) \(\d+ s\)")


def deadline_for(case_cpu_s: float) -> float:
    """The wall time a case may take before it is judged hung: :data:`DEADLINE_S` (five times that for a case allowed
    more CPU), times the machine's load per core where it is above 1 (a run that has the CPU a third of the time
    takes three times as long; a hang, which uses none, is still found, later)."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        per_core = 1.0
    return DEADLINE_S * (5 if case_cpu_s else 1) * max(1.0, per_core)

GOOD = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: NAME
      namespace: serving
      labels: {app: vllm}
    spec:
      replicas: 2
      template:
        spec:
          nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --max-num-seqs, "16"]
              resources: {limits: {nvidia.com/gpu: 1}}
    """)


def good(name: str = "bad") -> str:
    return GOOD.replace("NAME", name)


def field_set(line_from: str, line_to: str, name: str = "bad") -> str:
    """The good Deployment with one line replaced (a field of another type)."""
    text = good(name)
    assert line_from in text, line_from
    return text.replace(line_from, line_to)


@dataclass
class Case:
    name: str
    build: Callable[[str], list[str]]  # makes the files under the folder given; the argv after ``shardwise``
    rc: tuple[int, ...]                # the exit statuses allowed
    named: str | None = "bad"          # a word the report must say about the hostile input (its file name); None: valid input
    same_as_plain: bool = False        # a valid input: its findings must equal those of good.yaml read as bad.yaml
    env: dict[str, str] = field(default_factory=dict)
    root_only_skip: bool = False       # the case needs a user that permissions bind (root reads a 000 file)
    named_if_refused: str | None = None  # words the run must say when it exits 2 (it may also accept the input)
    cpu_s: float = 0.0                 # the CPU time this run may take, where not CPU_S (20,000 files)
    cwd_sub: str = ""                  # the run's folder under the case's (a repository built in a subfolder)
    stdout_said: bool = False          # a text report: its lines that name a rule or an error count as said
    stdin: bytes | None = None         # what the run reads on stdin (ENDLESS: a pipe that never ends); None: /dev/null
    parse_out: str = ""                # hostile9: a report the run writes ("-": stdout) that must be valid UTF-8 JSON (SARIF: 2.1.0)
    tool: str | None = None            # helm or kustomize: the case runs it (skipped where it is not built, see tool_missing)
    root_needed: bool = False          # fuzz22: the case makes a device node (mknod), which only root may
    no_raw_control: bool = False       # fuzz25: stdout (a text or github report) must hold no control character but \t and \n


def write(d: str, rel: str, data: str | bytes) -> str:
    p = os.path.join(d, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    return p


def deep_write(d: str, parts: list[str], data: str) -> None:
    """``data`` in ``d/parts[0]/.../bad.yaml``, a path longer than PATH_MAX: made one folder at a time."""
    here = os.getcwd()
    try:
        os.chdir(d)
        for part in parts:
            os.mkdir(part)
            os.chdir(part)
        write(".", "bad.yaml", data)
    finally:
        os.chdir(here)


def mkdirs(path: str) -> str:
    os.makedirs(path)
    return path


def symlink(target: str, path: str) -> str:
    os.symlink(target, path)
    return path


def fifo(path: str) -> str:
    os.mkfifo(path)
    return path


def writer(rel: str, data: str | bytes) -> Callable[[str], object]:
    return lambda d: write(d, rel, data)


def argv_of(argv: list[str]) -> Callable[[str], list[str]]:
    return lambda d: argv


def with_good(extra: Callable[[str], object], argv: list[str] | None = None) -> Callable[[str], list[str]]:
    def build(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        extra(d)
        return argv or ["lint", "--format", "json", "."]
    return build


def file_case(name: str, data: str | bytes, rel: str = "bad.yaml", rc: tuple[int, ...] = (2,),
              same_as_plain: bool = False, named: str | None = "", **kw: object) -> Case:
    if named == "":
        named = None if same_as_plain else os.path.basename(rel)
    return Case(name, with_good(lambda d: write(d, rel, data)), rc, named=named,
                same_as_plain=same_as_plain, **kw)  # type: ignore[arg-type]


def cases() -> list[Case]:
    g = good()
    out: list[Case] = []
    # ---------------------------------------------------------------- YAML structure
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    out.append(file_case("yaml-alias-bomb", laughs))
    out.append(file_case("yaml-alias-bomb-in-manifest", g.replace("  replicas: 2\n", "  replicas: 2\n  x: *y\n").replace(
        "kind: Deployment\n", "kind: Deployment\nbomb: " + laughs.replace("\n", "\n  ").replace("a0:", "&y a0:", 0) + "\n") ))
    out.append(file_case("yaml-deep-flow-nesting", "a: " + "[" * 100_000 + "]" * 100_000 + "\n"))
    out.append(file_case("yaml-deep-block-nesting", "".join(" " * i + "a:\n" for i in range(5000)) + " " * 5000 + "b\n"))
    out.append(file_case("yaml-huge-scalar", "kind: ConfigMap\napiVersion: v1\nmetadata: {name: big}\ndata:\n  x: " + "y" * 20_000_000 + "\n", rc=(0, 2), named=None))
    out.append(file_case("yaml-huge-number", g.replace("replicas: 2", "replicas: " + "9" * 5000)))
    # ---------------------------------------------------------------- bytes
    out.append(file_case("bytes-binary", bytes(range(256)) * 64))
    out.append(file_case("bytes-nul-in-manifest", g.replace("namespace: serving", "namespace: serv\0ing")))
    out.append(file_case("bytes-invalid-utf8", g.encode().replace(b"serving", b"serv\xc3\x28ing")))
    out.append(file_case("bytes-utf8-bom", b"\xef\xbb\xbf" + g.encode(), rc=(0,), same_as_plain=True))
    # UTF-16 with a BOM: an input error that says what the file is and how to convert it (kubectl reads UTF-8)
    out.append(file_case("bytes-utf16le-bom", b"\xff\xfe" + g.encode("utf-16-le")))
    out.append(file_case("bytes-utf16be-bom", b"\xfe\xff" + g.encode("utf-16-be")))
    out.append(file_case("bytes-utf16-no-bom", g.encode("utf-16-le")))
    out.append(file_case("bytes-crlf", g.replace("\n", "\r\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("bytes-mixed-line-ends", "".join(ln + ("\r\n" if i % 3 == 0 else "\n") for i, ln in enumerate(g.splitlines())), rc=(0,), same_as_plain=True))
    out.append(file_case("bytes-lone-cr", g.replace("\n", "\r"), rc=(0, 2), same_as_plain=True))
    out.append(file_case("bytes-empty", b"", rc=(0,), named=None))
    # ---------------------------------------------------------------- YAML features
    out.append(file_case("yaml-duplicate-key", g.replace("  replicas: 2\n", "  replicas: 2\n  replicas: 3\n")))
    merged = g.replace("kind: Deployment\n", "kind: Deployment\n").replace(
        "      containers:\n        - name: vllm\n",
        "      containers:\n        - <<: {name: vllm}\n")
    out.append(file_case("yaml-merge-key", merged, rc=(0,), same_as_plain=True))
    out.append(file_case("yaml-python-tag", g.replace("namespace: serving", "namespace: !!python/object/apply:os.system [\"touch PWNED\"]")))
    out.append(file_case("yaml-custom-tag", g.replace("namespace: serving", "namespace: !Ref Namespace")))
    out.append(file_case("yaml-multidoc-junk", g + "---\nkind: [unclosed\n---\n" + good("bad2")))
    out.append(file_case("yaml-multidoc-scalar-doc", g + "---\njust a sentence\n---\n42\n", rc=(0, 2), named="bad"))
    out.append(file_case("json-manifest", json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad", "namespace": "serving", "labels": {"app": "vllm"}}, "spec": {"replicas": 2, "template": {"spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"}, "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "16"], "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}, indent=2), rel="bad.json", rc=(0,), same_as_plain=True))
    out.append(file_case("json-truncated", '{"apiVersion": "apps/v1", "kind": "Deployment", "spec": {', rel="bad.json"))
    out.append(file_case("helm-unrendered", g.replace("image: vllm/vllm-openai:v0.11.0", "image: {{ .Values.image }}").replace("replicas: 2", "replicas: {{ .Values.replicas }}"), rel="templates/bad.yaml", rc=(0, 2)))
    # a placeholder vLLM would receive as written: SW003 blocks it (a finding naming the file, not an input error)
    out.append(file_case("helm-unrendered-quoted", g.replace("\"8192\"", "\"{{ .Values.maxModelLen }}\""), rc=(1,)))
    # ---------------------------------------------------------------- numbers where strings go (and back)
    out.append(file_case("type-image-float", field_set("image: vllm/vllm-openai:v0.11.0", "image: 1.0")))
    # the integer fields (fields.int_field) refuse a digit string, as the API server does (newuser6)
    out.append(file_case("type-replicas-string", field_set("replicas: 2", "replicas: \"2\"")))
    out.append(file_case("type-name-int", field_set("- name: vllm", "- name: 7")))
    out.append(file_case("type-arg-int", field_set("\"8192\"", "8192")))
    out.append(file_case("type-gpu-float", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1.5}")))
    out.append(file_case("type-gpu-string-1e3", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: \"1e3\"}"), rc=(0, 1, 2), named=None))
    out.append(file_case("type-gpu-string-1", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: \"1\"}"), rc=(0,), same_as_plain=True))
    out.append(file_case("type-gpu-bool", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: true}")))
    out.append(file_case("type-gpu-negative", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: -1}")))
    out.append(file_case("type-gpu-garbage", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: lots}")))
    out.append(file_case("type-memory-int", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, memory: 64000000000}"), rc=(0,), named=None))
    out.append(file_case("type-memory-float", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, memory: 1.5e10}"), rc=(0,), named=None))
    # left as is: no rule reads a container's memory, so its quantity is not checked (a schema validator's job)
    out.append(file_case("type-memory-garbage", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, memory: 64 gigs}"),
                         rc=(0,), named=None))
    out.append(file_case("type-cpu-1e3", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, cpu: \"1e3\"}"), rc=(0,), named=None))
    out.append(file_case("type-port-string", field_set("      containers:\n", "      containers:\n        - {name: side, image: busybox, ports: [{containerPort: \"8000\"}]}\n")))
    out.append(file_case("type-env-value-int", field_set("resources: {limits", "env: [{name: VLLM_PORT, value: 8000}]\n          resources: {limits")))
    # flags48: a value vLLM refuses is the workload's crash (SW003, exit 1), no longer an input error that hides it
    out.append(file_case("engine-dtype-no-release-takes", field_set("\"16\"]", "\"16\", --dtype, bogus]"), rc=(1,)))
    out.append(file_case("engine-kv-cache-dtype-no-release-takes", field_set("\"16\"]", "\"16\", --kv-cache-dtype, fp9]"),
                         rc=(1,)))
    out.append(file_case("engine-dtype-case", field_set("\"16\"]", "\"16\", --dtype, BFloat16]"), rc=(0,), named=None))
    out.append(file_case("type-limits-list", field_set("resources: {limits: {nvidia.com/gpu: 1}}", "resources: {limits: [1]}")))
    out.append(file_case("type-containers-null", field_set("      containers:\n", "      containers: null\n      x:\n")))
    out.append(file_case("type-metadata-name-list", field_set("  name: bad", "  name: [bad]")))
    # ---------------------------------------------------------------- the file system

    def symloop(d: str) -> None:
        os.symlink("loop2.yaml", os.path.join(d, "bad.yaml"))
        os.symlink("bad.yaml", os.path.join(d, "loop2.yaml"))
    out.append(Case("fs-symlink-loop", with_good(symloop), (2,)))
    out.append(Case("fs-symlink-dangling", with_good(lambda d: os.symlink("nowhere.yaml", os.path.join(d, "bad.yaml"))), (2,)))
    out.append(Case("fs-symlink-dir-loop", with_good(lambda d: (mkdirs(os.path.join(d, "sub")), symlink("..", os.path.join(d, "sub", "bad")))), (0,), named="sub/bad/"))
    out.append(Case("fs-fifo", with_good(lambda d: os.mkfifo(os.path.join(d, "bad.yaml"))), (2,)))

    def sock(d: str) -> None:
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(d, "bad.yaml"))
        SOCKETS.append(s)
    out.append(Case("fs-socket", with_good(sock), (2,)))
    out.append(Case("fs-device-link", with_good(lambda d: os.symlink("/dev/zero", os.path.join(d, "bad.yaml"))), (2,)))
    out.append(Case("fs-device-named", lambda d: (write(d, "good.yaml", good("good")), ["lint", "--format", "json", "good.yaml", "/dev/zero"])[1], (2,), named="/dev/zero"))
    out.append(Case("fs-dev-stdin-named", lambda d: (write(d, "good.yaml", good("good")), ["lint", "--format", "json", "good.yaml", "/dev/stdin"])[1], (0, 2), named=None))

    def unreadable(d: str) -> None:
        p = write(d, "bad.yaml", g)
        os.chmod(p, 0)
    out.append(Case("fs-unreadable-file", with_good(unreadable), (2,), root_only_skip=True))

    def unreadable_dir(d: str) -> None:
        write(d, "bad/x.yaml", g)
        os.chmod(os.path.join(d, "bad"), 0)
    out.append(Case("fs-unreadable-dir", with_good(unreadable_dir), (2,), root_only_skip=True))
    out.append(Case("fs-dir-named-yaml", with_good(lambda d: write(d, "bad.yaml/inner.yaml", good("inner"))), (0,), named=None))
    out.append(Case("fs-dir-named-yaml-named", lambda d: (write(d, "good.yaml", good("good")), mkdirs(os.path.join(d, "bad.yaml")), ["lint", "--format", "json", "good.yaml", "bad.yaml"])[2], (0, 2), named=None))
    out.append(Case("fs-missing-named", lambda d: (write(d, "good.yaml", good("good")), ["lint", "--format", "json", "good.yaml", "bad.yaml"])[1], (2,)))
    out.append(Case("fs-long-path", with_good(lambda d: deep_write(d, ["d" * 200] * 25, g)), (0, 2), named=None))
    out.append(Case("fs-long-name", with_good(lambda d: None), (2,), named="x" * 300) if False else
               Case("fs-long-name-named", lambda d: (write(d, "good.yaml", good("good")), ["lint", "--format", "json", "good.yaml", "b" * 300 + ".yaml"])[1], (2,), named="bbbb"))
    # ---------------------------------------------------------------- the config file
    for i, (text, rel) in enumerate([
        ("fail_on = 5\n", "shardwise.toml"), ("kv_reserve = \"x\"\n", "shardwise.toml"), ("exclude = \"a\"\n", "shardwise.toml"),
        ("suppress = 5\n", "shardwise.toml"), ("[[suppress]]\ncode = 1\n", "shardwise.toml"), ("kv_reserve = nan\n", "shardwise.toml"),
        ("kv_reserve = inf\n", "shardwise.toml"), ("p95_context_tokens = 1e400\n", "shardwise.toml"), ("model_dirs = [1]\n", "shardwise.toml"),
        ("enforcement = []\n", "shardwise.toml"), ("[enforcement]\nSW104 = 1\n", "shardwise.toml"), ("default_deny_namespaces = [[]]\n", "shardwise.toml"),
        ("\xff\xfe\x00garbage", "shardwise.toml"), ("fail_on: [1]\n", ".shardwise.yaml"), ("- a\n- b\n", ".shardwise.yaml"),
        ("usable_fraction: 2\n", ".shardwise.yaml"), ("production: yes please\n", ".shardwise.yaml"), ("unknown: 0\n", ".shardwise.yaml"),
        ("exclude: {a: 1}\n", ".shardwise.yaml"), ("kv_reserve: !!python/name:os.system\n", ".shardwise.yaml"),
    ]):
        ok = text == "exclude = \"a\"\n"  # one pattern as a string is taken as a list of one (config.py)
        out.append(Case(f"config-{i:02d}-{rel}-{text.split('=')[0].split(':')[0].strip()[:20]}", with_good(writer(rel, text)),
                        (0,) if ok else (2,), named=None if ok else rel))
    out.append(Case("config-is-a-directory", with_good(lambda d: os.makedirs(os.path.join(d, "shardwise.toml"))), (2,), named="shardwise.toml"))
    out.append(Case("config-is-a-fifo", with_good(lambda d: os.mkfifo(os.path.join(d, "shardwise.toml"))), (2,), named="shardwise.toml"))
    out.append(Case("config-both", with_good(lambda d: (write(d, "shardwise.toml", "fail_on = \"advisory\"\n"), write(d, ".shardwise.yaml", "fail_on: mandatory\n"))), (2,), named="shardwise.toml"))
    out.append(Case("ignore-file-binary", with_good(lambda d: write(d, ".shardwiseignore", b"\xff\xfe\x00\x00*[")), (0, 2), named=None))
    out.append(Case("values-file-garbage", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad-values.yaml", "a: [\n"), ["lint", "--format", "json", "-f", "bad-values.yaml", "good.yaml"])[2], (2,), named="--values"))
    out.append(Case("baseline-garbage", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad-baseline.json", "[1, 2"), ["lint", "--format", "json", "--baseline", "bad-baseline.json", "good.yaml"])[2], (2,), named="bad-baseline.json"))
    out.append(Case("baseline-wrong-shape", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad-baseline.json", '{"findings": 5}'), ["lint", "--format", "json", "--baseline", "bad-baseline.json", "good.yaml"])[2], (2,), named="bad-baseline.json"))
    out.append(Case("model-dir-is-a-file", lambda d: (write(d, "good.yaml", good("good")), write(d, "badmodels", "x"), ["lint", "--format", "json", "--model-dir", "badmodels", "good.yaml"])[2], (0, 2), named=None))
    out.append(Case("model-config-garbage", lambda d: (write(d, "good.yaml", good("good").replace("meta-llama/Llama-3.1-8B-Instruct", "acme/bad-model")), write(d, "models/acme/bad-model/config.json", "{\"hidden_size\": \"big\", \"num_hidden_layers\": -3}"), ["lint", "--format", "json", "--model-dir", "models", "good.yaml"])[2], (0, 1, 2), named="bad-model"))
    # ---------------------------------------------------------------- the environment
    for i, (k, v) in enumerate([("COLUMNS", "-5"), ("COLUMNS", "abc"), ("COLUMNS", "9" * 30), ("NO_COLOR", ""), ("HF_HOME", "/dev/null"),
                                ("HF_HUB_CACHE", "/dev/zero"), ("XDG_CACHE_HOME", ""), ("PULUMI_CONFIG", "["), ("PULUMI_CONFIG", '{"shardwise:environment": 5}'),
                                ("PULUMI_CONFIG", '"str"'), ("GITHUB_WORKSPACE", "/nonexistent\0x"[:12]), ("SHARDWISE_DOCS_URL", "javascript:alert(1)"),
                                ("SHARDWISE_PURE_YAML", "1"), ("SHARDWISE_DEBUG", "1"), ("HOME", "/nonexistent")]):
        out.append(Case(f"env-{i:02d}-{k}", with_good(lambda d: None), (0,), named=None, env={k: v}))
    out.append(Case("env-pure-yaml-bad-file", with_good(lambda d: write(d, "bad.yaml", "a: [\n")), (2,), env={"SHARDWISE_PURE_YAML": "1"}))
    # ---------------------------------------------------------------- plan
    base = ["plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]
    for i, arg in enumerate(["===", "foo", "--tensor-parallel-size=abc", "max-model-len=1e400", "max-model-len=-1", "max-model-len=nan",
                             "gpu-memory-utilization=inf", "gpu-memory-utilization=2", "tensor-parallel-size=0", "tensor-parallel-size=" + "9" * 5000,
                             "speculative-config={", "speculative-config=[1]", "hf-overrides={\"num_hidden_layers\": \"x\"}", "kv-cache-dtype=fp9",
                             "max-num-seqs=1.5", "=1", "--=1", "mm-encoder-tp-mode=x", "block-size=-16", "swap-space=abc", "max-model-len=",
                             "enable-prefix-caching=maybe", "\udcff=1", "max-model-len=8k", "max-model-len=1e3"]):
        out.append(Case(f"plan-engine-arg-{i:02d}", argv_of([*base, "--engine-arg", arg]), (0, 2), named=None))
    for i, extra in enumerate([["--env", "=x"], ["--env", "VLLM_USE_V1"], ["--env", "VLLM_ATTENTION_BACKEND=\x01"], ["--speculative-config", "{\"num_speculative_tokens\": -1}"],
                               ["--speculative-config", "null"], ["--max-model-len", "1e400"], ["--max-model-len", "-1k"], ["--gpu", ""], ["--gpu", "H100,,"],
                               ["--instance-type", "../../etc/passwd"], ["--quantization", "\x01"], ["--vllm-version", "x.y.z"], ["--vllm-version", "99999999999999999999.0.0"],
                               ["--tp", "1e3"], ["--gpu-memory-gib", "nan"], ["--base-model", "/dev/zero"]]):
        mine = base[:-2] if extra[0] == "--gpu" else base  # one --gpu: given twice is a usage error of its own (fuzz16)
        out.append(Case(f"plan-opt-{i:02d}", argv_of(mine + extra), (0, 2), named=None))
    # hostile6: a release newer than the capacity model knows says what it is sized as; absurd numbers are errors;
    # what the user typed is echoed escaped (a control character as \\x1b, a byte that is not UTF-8 as \\xff); a
    # --base-model beside a --model the catalog knows itself is said to be unused
    newer = "newer than the newest release the capacity model knows: sized as 0.34.0"
    out.append(Case("plan-version-newer", argv_of([*base, "--vllm-version", "0.99.0"]), (0,), named=newer))
    out.append(Case("plan-version-part-of-4-digits", argv_of([*base, "--vllm-version", "0.1234.0"]), (2,), named="'0.1234.0' is not a vLLM release number"))
    out.append(Case("lint-image-tag-newer", lambda d: (write(d, "bad.yaml", good().replace("v0.11.0", "v0.99.0").replace("Llama-3.1-8B-Instruct", "Llama-3.1-70B-Instruct")), ["lint", "--format", "json", "bad.yaml"])[1], (1,), named="vLLM 0.99.0 from the image tag, " + newer))
    out.append(Case("lint-image-tag-part-of-4-digits", lambda d: (write(d, "bad.yaml", good().replace("v0.11.0", "v0.1234.0").replace("Llama-3.1-8B-Instruct", "Llama-3.1-70B-Instruct")), ["lint", "--format", "json", "bad.yaml"])[1], (1,), named="assumed: tag v0.1234.0 names no vLLM release"))
    out.append(Case("plan-model-control-char", argv_of(["plan", "--model", "acme/x\x1b[31m", "--base-model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]), (2,), named="'acme/x\\x1b[31m' is no model id"))
    out.append(Case("plan-model-not-utf8", argv_of(["plan", "--model", "acme/x\udcffy", "--base-model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]), (2,), named="'acme/x\\xffy' is no model id"))
    out.append(Case("plan-option-newline", argv_of([*base, "--quantization", "a\n::error::x"]), (2,), named="'a\\n::error::x'"))
    out.append(Case("plan-engine-arg-twice-not-utf8", argv_of([*base, "--engine-arg", "block-size=16", "--engine-arg", "block-size=\udcff"]), (2,), named="('16' and '\\xff')"))
    out.append(Case("plan-base-model-unused", argv_of([*base, "--base-model", "Qwen/Qwen2.5-7B-Instruct"]), (2,), named="--base-model 'Qwen/Qwen2.5-7B-Instruct' is unused"))
    out.append(Case("plan-base-model-itself", argv_of([*base, "--base-model", "meta-llama/Llama-3.1-8B-Instruct"]), (0,), named=None))
    out.append(Case("plan-model-fifo", lambda d: (fifo(os.path.join(d, "bad.json")), ["plan", "--model", "./bad.json", "--gpu", "L40S"])[1], (2,), named="bad.json"))
    out.append(Case("plan-model-garbage-json", lambda d: (write(d, "bad.json", "{\"hidden_size\": [1]}"), ["plan", "--model", "./bad.json", "--gpu", "L40S"])[1], (2,), named="bad.json"))
    out.append(Case("plan-model-dev-zero", lambda d: ["plan", "--model", "/dev/zero", "--gpu", "L40S"], (2,), named="/dev/zero"))
    out += cli_cases() + plan_option_cases() + h8_yaml_cases() + h8_cli_cases()
    out += h9_reader_cases() + h9_encoding_cases() + h9_output_cases() + fuzz13_cases() + fuzz14_cases() + fuzz15_cases() + fuzz16_cases() + fuzz17_cases() + fuzz20_cases() + fuzz21_cases() + fuzz22_cases() + fuzz23_cases() + fuzz24_cases() + fuzz25_cases() + fuzz26_cases()
    return out


# ---------------------------------------------------------------------------------------------- hostile7: the CLI


def git(d: str, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                    "-c", "protocol.file.allow=always", *args], cwd=d, check=True, capture_output=True)


def repo(d: str, files: dict[str, str], sub: str = "") -> str:
    """A git repository in ``d/sub`` with ``files`` committed (one commit)."""
    r = os.path.join(d, sub) if sub else d
    os.makedirs(r, exist_ok=True)
    git(r, "init", "-q")
    for rel, text in files.items():
        write(r, rel, text)
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "base")
    return r


BLOCKING = good().replace("Llama-3.1-8B-Instruct", "Llama-3.1-70B-Instruct")  # 70B on one L40S: SW101 blocks


def cli_cases() -> list[Case]:
    out: list[Case] = []
    # ---------------------------------------------------------------- diff against what git cannot give
    out.append(Case("diff-ref-missing", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "no-such-ref"])[1], (2,), named="no-such-ref"))
    out.append(Case("diff-object-missing", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "0123456789abcdef0123456789abcdef01234567"])[1], (2,), named="0123456789abcdef"))
    out.append(Case("diff-ref-not-a-commit", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "HEAD:good.yaml"])[1], (2,), named="HEAD:good.yaml"))
    out.append(Case("diff-ref-option-like", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "--", "--output=x"])[1], (2,), named="--output=x"))
    out.append(Case("diff-ref-newline", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "HEAD\nx"])[1], (2,), named="HEAD\\nx"))

    def shallow(d: str) -> list[str]:
        src = repo(d, {"good.yaml": good("good")}, "src")
        write(src, "bad.yaml", BLOCKING)
        git(src, "add", "-A")
        git(src, "commit", "-q", "-m", "two")
        git(d, "clone", "-q", "--depth", "1", "file://" + src, "clone")
        return ["diff", "--format", "json", "HEAD~1"]
    out.append(Case("diff-shallow-clone", shallow, (2,), named="HEAD~1", cwd_sub="clone"))

    def deleted(d: str) -> list[str]:
        repo(d, {"good.yaml": good("good"), "bad.yaml": BLOCKING})
        os.remove(os.path.join(d, "bad.yaml"))
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("diff-file-deleted", deleted, (0,), named="SW101", stdout_said=True))

    def renamed(d: str) -> list[str]:
        repo(d, {"good.yaml": good("good"), "bad.yaml": BLOCKING})
        git(d, "mv", "bad.yaml", "moved.yaml")
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("diff-file-renamed", renamed, (0,), named=None))

    def submodule(d: str) -> list[str]:
        repo(d, {"bad.yaml": BLOCKING}, "subsrc")
        repo(d, {"good.yaml": good("good")}, "top")
        git(os.path.join(d, "top"), "submodule", "add", "-q", "../subsrc", "sub")
        git(os.path.join(d, "top"), "commit", "-q", "-m", "sub")
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("diff-submodule", submodule, (0, 2), named=None, cwd_sub="top"))
    out.append(Case("lint-submodule", lambda d: (submodule(d), ["lint", "--format", "json", "."])[1], (1,), named="SW101", cwd_sub="top"))
    out.append(Case("diff-not-a-repo", lambda d: (write(d, "good.yaml", good("good")), ["diff", "--format", "json", "HEAD"])[1], (2,), named="git"))
    out.append(Case("diff-GIT_DIR-garbage", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "HEAD"])[1], (2,), named="GIT_DIR=/nonexistent", env={"GIT_DIR": "/nonexistent"}))
    # ---------------------------------------------------------------- odd file names, sizes and counts
    out.append(Case("fs-name-not-utf8", with_good(lambda d: write(d, os.fsdecode(b"bad\xff.yaml"), good())), (0,), named=None, same_as_plain=True))
    out.append(Case("fs-name-not-utf8-refused", with_good(lambda d: write(d, os.fsdecode(b"bad\xff.yaml"), "a: [\n")), (2,), named="bad\\xff.yaml"))
    out.append(Case("fs-name-newline", with_good(lambda d: write(d, "bad\nname.yaml", "a: [\n")), (2,), named="bad\\nname.yaml"))
    out.append(Case("fs-name-newline-blocking", with_good(lambda d: write(d, "bad\nname.yaml", BLOCKING)), (1,), named="SW101"))
    out.append(Case("fs-name-newline-github", lambda d: (write(d, "bad\nname.yaml", BLOCKING), ["lint", "--format", "github", "."])[1], (1,), named="bad%0Aname.yaml", stdout_said=True))
    out.append(Case("fs-unreadable-file-blocking-beside", with_good(lambda d: (unreadable_file(d, "bad.yaml", g_()), write(d, "other.yaml", BLOCKING))), (2,), root_only_skip=True))
    out.append(Case("fs-50mb-file", with_good(lambda d: write(d, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + "".join(f"  k{i:08d}: {'v' * 40}\n" for i in range(900_000)))), (0, 2), named=None, named_if_refused="bad.yaml"))
    # fuzz26: 10 MB of data, which the API server refuses (over 1 MiB): an input error, once parsed before fuzz26's count of a flow mapping
    out.append(Case("fs-one-10mb-line", with_good(lambda d: write(d, "bad.json", json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one-line"}, "data": {"x": "y" * 10_000_000}}))), (2,), named="bad.json:1: ConfigMap one-line: its data holds"))
    out.append(Case("fs-one-10mb-line-yaml-flow", with_good(lambda d: write(d, "bad.yaml", "{apiVersion: v1, kind: ConfigMap, metadata: {name: flow}, data: {" + ", ".join(f"k{i}: v" for i in range(1_000_000)) + "}}\n")), (0, 2), named=None, named_if_refused="bad.yaml"))

    def many(d: str) -> None:
        for i in range(20_000):
            write(d, f"svc/{i // 1000:02d}/s{i:05d}.yaml", f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: web}}\nspec:\n  selector: {{app: s{i}}}\n  ports: [{{port: 80}}]\n")
    out.append(Case("fs-20000-small-files", with_good(many), (0,), named=None, cpu_s=300.0))
    # ---------------------------------------------------------------- --config pointing at odd files
    cfg = ["lint", "--format", "json", "--config"]
    out.append(Case("config-opt-missing", lambda d: (write(d, "good.yaml", good("good")), [*cfg, "bad.toml", "good.yaml"])[1], (2,), named="bad.toml"))
    out.append(Case("config-opt-dev-zero", lambda d: (write(d, "good.yaml", good("good")), [*cfg, "/dev/zero", "good.yaml"])[1], (2,), named="/dev/zero"))
    out.append(Case("config-opt-dev-null", lambda d: (write(d, "good.yaml", good("good")), [*cfg, "/dev/null", "good.yaml"])[1], (0, 2), named=None, named_if_refused="/dev/null"))
    out.append(Case("config-opt-fifo", lambda d: (write(d, "good.yaml", good("good")), fifo(os.path.join(d, "bad.toml")), [*cfg, "bad.toml", "good.yaml"])[2], (2,), named="bad.toml"))
    out.append(Case("config-opt-directory", lambda d: (write(d, "good.yaml", good("good")), mkdirs(os.path.join(d, "bad.toml")), [*cfg, "bad.toml", "good.yaml"])[2], (2,), named="bad.toml"))
    out.append(Case("config-opt-binary", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad.toml", bytes(range(256))), [*cfg, "bad.toml", "good.yaml"])[2], (2,), named="bad.toml"))
    out.append(Case("config-opt-json-suffix", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad.json", '{"fail_on": "advisory"}'), [*cfg, "bad.json", "good.yaml"])[2], (0, 2), named=None, named_if_refused="bad.json"))
    out.append(Case("config-opt-yaml-bomb", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad.yaml.cfg", "x: 1\n"), write(d, "bad.yaml", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))), [*cfg, "bad.yaml", "good.yaml"])[3], (2,), named="bad.yaml"))
    out.append(Case("config-opt-huge", lambda d: (write(d, "good.yaml", good("good")), write(d, "bad.toml", "# " + "x" * 20_000_000 + "\nfail_on = \"mandatory\"\n"), [*cfg, "bad.toml", "good.yaml"])[2], (0,), named=None))
    out.append(Case("config-opt-dangling-link", lambda d: (write(d, "good.yaml", good("good")), symlink("nowhere.toml", os.path.join(d, "bad.toml")), [*cfg, "bad.toml", "good.yaml"])[2], (2,), named="bad.toml"))
    out.append(Case("config-opt-unreadable", lambda d: (write(d, "good.yaml", good("good")), unreadable_file(d, "bad.toml", "fail_on = \"mandatory\"\n"), [*cfg, "bad.toml", "good.yaml"])[2], (2,), named="bad.toml", root_only_skip=True))
    out.append(Case("config-opt-empty-name", lambda d: (write(d, "good.yaml", good("good")), [*cfg, "", "good.yaml"])[1], (2,), named="--config"))
    # ---------------------------------------------------------------- environment variables set to garbage
    for i, (k, v) in enumerate([("PYTHONIOENCODING", "ascii"), ("LC_ALL", "C"), ("COLUMNS", "0"), ("SHARDWISE_DOCS_URL", "https://x/\n::error::y"),
                                ("PULUMI_CONFIG", json.dumps({"shardwise:environment": "x" * 100_000})), ("GITHUB_WORKSPACE", "/dev/null"),
                                ("SHARDWISE_DEBUG", "\x01"), ("TMPDIR", "/nonexistent")]):
        out.append(Case(f"env7-{i:02d}-{k}", lambda d: (write(d, "bad.yaml", BLOCKING), ["lint", "--format", "text", "bad.yaml"])[1], (1,), named="SW101", env={k: v}, stdout_said=True))
    out.append(Case("env7-hf-hub-cache-fifo", lambda d: (fifo(os.path.join(d, "hub")), ["plan", "--model", "acme/not-in-catalog", "--gpu", "L40S"])[1], (2,), named="acme/not-in-catalog", env={"HF_HUB_CACHE": "hub"}))
    return out


def unreadable_file(d: str, rel: str, data: str) -> str:
    p = write(d, rel, data)
    os.chmod(p, 0)
    return p


def g_() -> str:
    return good()


# ---------------------------------------------------------------------------------------------- hostile7: plan options

PLAN_NUMERIC = ["--gpu-memory-gib", "--gpus-per-node", "--tp", "--pp", "--gpu-memory-utilization", "--max-model-len",
                "--max-num-seqs", "--concurrency", "--output-tokens-per-second", "--max-num-batched-tokens", "--dp",
                "--p95-context", "--weights-gib", "--kv-reserve"]


def plan_option_cases() -> list[Case]:
    """Every numeric plan option with empty, huge, negative, NaN/inf and unit-suffixed values: each is an error
    naming the option (exit 2), or a value read as written (exit 0); never a traceback, never a silent reading of
    NaN or infinity as a number."""
    base = ["plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]
    out: list[Case] = []
    for opt in PLAN_NUMERIC:
        for tag, val in (("empty", ""), ("huge", "9" * 400), ("negative", "-1"), ("nan", "nan"), ("inf", "inf"), ("minus-inf", "-inf")):
            if (opt, tag) == ("--max-model-len", "negative"):  # -1: vLLM's "fit the KV cache" (vllm/versions.py max_model_len_auto)
                out.append(Case(f"plan7{opt}-{tag}", argv_of([*base, f"{opt}={val}"]), (0,), named=None))
                continue
            out.append(Case(f"plan7{opt}-{tag}", argv_of([*base, f"{opt}={val}"]), (2,), named=opt))
        for tag, val in (("zero", "0"), ("unit-k", "8k"), ("unit-gib", "80GiB"), ("exp", "1e3"), ("spaces", " 4 ")):
            # a value read as written may force a layout that lint blocks: plan exits 1 then
            out.append(Case(f"plan7{opt}-{tag}", argv_of([*base, f"{opt}={val}"]), (0, 1, 2), named=None, named_if_refused=opt))
    return out


# ---------------------------------------------------------------------------------------------- hostile8
# YAML and JSON the reader meets in the wild and in attacks, read as kubectl reads them (sigs.k8s.io/yaml: the
# goyaml.v2 fork, YAML 1.1 ints and octals (0777), no base-60 numbers (1:30 is a string), a timestamp-like scalar
# kept a string, non-string keys made strings), then as the API server checks them (resource.Quantity: an extended
# resource takes whole numbers only: 1.0, "1e0" and 1k are whole, 500m is not); the CLI's paths, special files,
# stdin and --jobs.

def lws_g(body: str) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + body


def h8_yaml_cases() -> list[Case]:
    g = good()
    out: list[Case] = []
    # ---------------------------------------------------------------- anchors and merge keys: legitimate DRY
    out.append(file_case("h8-merge-into-container", g.replace(
        "        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n",
        "        - <<: &vllm {name: vllm, image: vllm/vllm-openai:v0.11.0}\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-merge-override", g.replace(
        "        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n",
        "        - <<: {name: base, image: vllm/vllm-openai:v0.1.0}\n          name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-merge-list-of-maps", g.replace(
        "        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n",
        "        - <<: [{name: vllm}, {image: vllm/vllm-openai:v0.11.0}, {name: ignored, image: ignored}]\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-anchor-resources", g.replace(
        "resources: {limits: {nvidia.com/gpu: 1}}", "resources: {limits: &gpu {nvidia.com/gpu: 1}, requests: *gpu}"), rc=(0,), same_as_plain=True))
    # (blind, the case was wrong: its alias came before the anchor; now the anchor first, as a file must)
    out.append(file_case("h8-anchor-env-shared", g.replace(
        "          resources: {limits",
        "          env: *env\n          resources: {limits").replace(
        "      containers:\n", "      initContainers: [{name: fetch, image: busybox, env: &env [{name: HF_HOME, value: /cache}]}]\n      containers:\n"), rc=(0,), same_as_plain=True))
    two = good().replace("spec:\n  replicas: 2\n", "spec: &spec\n  replicas: 2\n")
    list_doc = lws_g("  - " + two.replace("\n", "\n    ").rstrip() + "\n  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: bad-copy, namespace: serving}, spec: *spec}\n")
    out.append(file_case("h8-anchor-whole-spec-in-list", list_doc, rc=(0,), named=None))
    # ---------------------------------------------------------------- anchors in attacks
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    out.append(file_case("h8-alias-bomb-in-manifest", g.replace("kind: Deployment\n", "kind: Deployment\nx-bomb:\n" + "".join("  " + ln + "\n" for ln in bomb.splitlines()))))
    merge_bomb = "m0: &m0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v, k9: v}\n" + "".join(
        f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 10)}], n{i}: [{', '.join([f'*m{i - 1}'] * 10)}]}}\n" for i in range(1, 9))
    out.append(file_case("h8-merge-key-bomb", merge_bomb))
    out.append(file_case("h8-alias-quadratic", "big: &big [" + ", ".join(["x"] * 20_000) + "]\nrefs: [" + ", ".join(["*big"] * 20_000) + "]\n"))
    out.append(file_case("h8-recursive-alias", "a: &a [*a]\n"))
    out.append(file_case("h8-recursive-alias-in-manifest", g.replace("  labels: {app: vllm}\n", "  labels: &l {app: vllm, self: *l}\n")))
    out.append(file_case("h8-alias-undefined", g.replace("namespace: serving", "namespace: *nowhere")))
    # ---------------------------------------------------------------- tags
    out.append(file_case("h8-tag-binary-image", field_set("image: vllm/vllm-openai:v0.11.0", "image: !!binary dmxsbS92bGxtLW9wZW5haTp2MC4xMS4w")))
    out.append(file_case("h8-tag-str-gpu", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: !!str 1}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-tag-python-object-new", g.replace("namespace: serving", "namespace: !!python/object/new:os.system [echo PWNED]")))
    out.append(file_case("h8-tag-python-name", g.replace("namespace: serving", "namespace: !!python/name:os.system")))
    # a set is a mapping whose values are null: kubectl sends {app: null, vllm: null}, which the API server decodes as
    # empty label values (a JSON null into a Go string): accepted (blind: expected an input error, wrongly)
    out.append(file_case("h8-tag-set", g.replace("labels: {app: vllm}", "labels: !!set {app, vllm}"), rc=(0,), named=None))
    out.append(file_case("h8-tag-getatt-cfn", field_set("image: vllm/vllm-openai:v0.11.0", "image: !GetAtt Repo.Uri")))
    # ---------------------------------------------------------------- duplicate keys
    out.append(file_case("h8-duplicate-key-flow", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, nvidia.com/gpu: 8}")))
    out.append(file_case("h8-duplicate-key-json", json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad"}}).replace('"kind": "Deployment"', '"kind": "Deployment", "kind": "Service"'), rel="bad.json"))
    out.append(file_case("h8-duplicate-merge-then-key", g.replace("        - name: vllm\n", "        - <<: {name: base}\n          name: vllm\n"), rc=(0,), same_as_plain=True))
    # ---------------------------------------------------------------- streams and bytes
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: script, namespace: serving}\ndata:\n  run.sh: |\n    echo start\n    ---\n    echo ---\n  doc.yaml: |\n    a: 1\n    ---\n    b: 2\n---\n"
    out.append(file_case("h8-dashes-in-block-scalar", cm + g, rc=(0,), same_as_plain=True))
    out.append(file_case("h8-bom-second-document", g + "---\n\ufeff" + good("bad2"), rc=(0,), named=None))
    out.append(file_case("h8-utf32le-bom", b"\xff\xfe\x00\x00" + g.encode("utf-32-le")))
    out.append(file_case("h8-crlf-block-scalar", cm.replace("\n", "\r\n") + g.replace("\n", "\r\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-tab-indent", g.replace("  replicas: 2\n", "\treplicas: 2\n")))
    out.append(file_case("h8-tab-after-colon", g.replace("  replicas: 2\n", "  replicas:\t2\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-deep-json", "[" * 100_000 + "]" * 100_000, rel="bad.json"))
    out.append(file_case("h8-deep-json-object", '{"a": ' * 50_000 + "1" + "}" * 50_000, rel="bad.json"))
    out.append(file_case("h8-json-nan", json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad", "namespace": "serving"}, "spec": {"replicas": 2}}).replace('"replicas": 2', '"replicas": NaN'), rel="bad.json"))
    out.append(file_case("h8-json-infinity", json.dumps({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "bad"}, "spec": {"ports": [{"port": 80}]}}).replace('"port": 80', '"port": Infinity'), rel="bad.json"))
    out.append(file_case("h8-100k-env", field_set("resources: {limits", "env:\n" + "".join(f"            - {{name: E{i}, value: v}}\n" for i in range(100_000)) + "          resources: {limits"), rc=(0,), named=None))
    # YAML that is no Kubernetes object is skipped and said (a repository holds CI files): blind expected exit 2, wrongly
    out.append(file_case("h8-100k-item-top-list", "".join(f"- {i}\n" for i in range(100_000)), rc=(0,), named="bad.yaml"))
    out.append(file_case("h8-100k-list-kind", lws_g("".join(f"  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}, data: {{k: v}}}}\n" for i in range(100_000))), rc=(0,), named=None))
    # ---------------------------------------------------------------- keys that are not strings
    out.append(file_case("h8-key-int-label", g.replace("labels: {app: vllm}", "labels: {app: vllm, 1: a}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-key-bool-on-label", g.replace("labels: {app: vllm}", "labels: {app: vllm, on: a}"), rc=(0,), same_as_plain=True))
    # `on` and `yes` are both the key true to YAML 1.1 (and to kubectl's goyaml.v2): a key written twice
    out.append(file_case("h8-key-bool-on-yes-label", g.replace("labels: {app: vllm}", "labels: {app: vllm, on: a, yes: b}")))
    out.append(file_case("h8-key-null-label", g.replace("labels: {app: vllm}", "labels: {app: vllm, ~: a}"), rc=(0, 2), named=None, named_if_refused="bad.yaml"))
    out.append(file_case("h8-key-complex", g.replace("labels: {app: vllm}", "labels: {app: vllm, [a, b]: c}")))
    # left as is: a resource name no rule reads is not checked (the API server refuses `7`; a schema validator's job)
    out.append(file_case("h8-key-int-limits", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1, 7: 1}"), rc=(0,), named=None))
    # ---------------------------------------------------------------- numbers as kubectl and the API server read them
    out.append(file_case("h8-gpu-float-whole", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1.0}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-string-1e0", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: \"1e0\"}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-plain-1e0", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1e0}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-string-1.0", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: \"1.0\"}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-1k", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1k}"), rc=(0, 1, 2), named=None))
    out.append(file_case("h8-gpu-500m", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 500m}")))
    out.append(file_case("h8-gpu-1000m", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 1000m}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-octal", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 01}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-gpu-sexagesimal", field_set("nvidia.com/gpu: 1}", "nvidia.com/gpu: 0:01}")))
    # left as is: kubectl sends a YAML 2.0 as 2 (goyaml.v2's float, json.Marshal'd), the API server refuses a JSON
    # file's 2.0 (an int32 from a float); the reader does not tell the two apart and refuses both (an input error)
    out.append(file_case("h8-replicas-float-whole", field_set("replicas: 2", "replicas: 2.0")))
    out.append(file_case("h8-replicas-float-half", field_set("replicas: 2", "replicas: 2.5")))
    out.append(file_case("h8-replicas-octal", field_set("replicas: 2", "replicas: 02"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-replicas-sexagesimal", field_set("replicas: 2", "replicas: 0:02")))
    out.append(file_case("h8-port-sexagesimal", field_set("      containers:\n", "      containers:\n        - {name: side, image: busybox, ports: [{containerPort: 2:13}]}\n")))
    out.append(file_case("h8-env-value-time", field_set("resources: {limits", "env: [{name: START, value: 12:30}]\n          resources: {limits"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-env-value-date", field_set("resources: {limits", "env: [{name: SINCE, value: 2024-01-01}]\n          resources: {limits"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-label-date", g.replace("labels: {app: vllm}", "labels: {app: vllm, built: 2024-01-01}"), rc=(0,), same_as_plain=True))
    out.append(file_case("h8-env-value-octal", field_set("resources: {limits", "env: [{name: UMASK, value: 0777}]\n          resources: {limits")))
    # `yes` is the boolean true to kubectl's goyaml.v2 too: the API server refuses it in a string field (blind: wrongly 0)
    out.append(file_case("h8-env-value-yes", field_set("resources: {limits", "env: [{name: FLAG, value: yes}]\n          resources: {limits")))
    out.append(file_case("h8-arg-time", field_set("\"16\"]", "\"16\", --served-model-name, 12:30]"), rc=(0,), same_as_plain=True))
    return out


def jobs_case(val: str) -> Callable[[str], list[str]]:
    def build(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        return ["lint", "--format", "json", f"--jobs={val}", "good.yaml"]
    return build


def h8_cli_cases() -> list[Case]:
    g = good()
    out: list[Case] = []
    lj = ["lint", "--format", "json"]
    # ---------------------------------------------------------------- paths
    out.append(Case("h8-path-dotdot", lambda d: (write(d, "a/bad.yaml", BLOCKING), mkdirs(os.path.join(d, "b")), [*lj, "../a/bad.yaml"])[2], (1,), named="SW101", cwd_sub="b"))
    out.append(Case("h8-path-dotdot-inside", lambda d: (write(d, "a/bad.yaml", BLOCKING), mkdirs(os.path.join(d, "b")), [*lj, "b/../a/bad.yaml"])[2], (1,), named="SW101"))
    out.append(Case("h8-path-dotdot-missing", lambda d: (write(d, "good.yaml", good("good")), [*lj, "good.yaml", "nowhere/../bad.yaml"])[1], (2,), named="bad.yaml"))
    out.append(Case("h8-path-same-file-twice", lambda d: (write(d, "bad.yaml", BLOCKING), write(d, "good.yaml", good("good")), [*lj, "bad.yaml", "./bad.yaml", "."])[2], (1,), named="SW101"))
    # ---------------------------------------------------------------- special files named directly and in a folder

    def loop(d: str) -> str:
        os.symlink("loop2.yaml", os.path.join(d, "bad.yaml"))
        return symlink("bad.yaml", os.path.join(d, "loop2.yaml"))
    out.append(Case("h8-symlink-loop-named", lambda d: (write(d, "good.yaml", good("good")), loop(d), [*lj, "good.yaml", "bad.yaml"])[2], (2,), named="bad.yaml"))
    out.append(Case("h8-symlink-self-named", lambda d: (write(d, "good.yaml", good("good")), symlink("bad.yaml", os.path.join(d, "bad.yaml")), [*lj, "good.yaml", "bad.yaml"])[2], (2,), named="bad.yaml"))
    out.append(Case("h8-symlink-dir-loop-named", lambda d: (write(d, "good.yaml", good("good")), mkdirs(os.path.join(d, "sub")), symlink("..", os.path.join(d, "sub", "bad")), [*lj, "good.yaml", "sub/bad"])[3], (0, 2), named=None, named_if_refused="sub/bad"))
    out.append(Case("h8-fifo-named", lambda d: (write(d, "good.yaml", good("good")), fifo(os.path.join(d, "bad.yaml")), [*lj, "good.yaml", "bad.yaml"])[2], (2,), named="bad.yaml"))

    def sock(d: str) -> str:
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(d, "bad.yaml"))
        SOCKETS.append(s)
        return "bad.yaml"
    out.append(Case("h8-socket-named", lambda d: (write(d, "good.yaml", good("good")), sock(d), [*lj, "good.yaml", "bad.yaml"])[2], (2,), named="bad.yaml"))
    out.append(Case("h8-dev-null-named", lambda d: (write(d, "good.yaml", good("good")), [*lj, "good.yaml", "/dev/null"])[1], (2,), named="/dev/null"))
    out.append(Case("h8-dev-urandom-in-folder", with_good(lambda d: os.symlink("/dev/urandom", os.path.join(d, "bad.yaml"))), (2,)))
    out.append(Case("h8-dev-tty-named", lambda d: (write(d, "good.yaml", good("good")), [*lj, "good.yaml", "/dev/tty"])[1], (2,), named="/dev/tty"))
    # a regular file that is no Kubernetes YAML is skipped and said (blind: expected exit 2, wrongly)
    out.append(Case("h8-proc-file-named", lambda d: (write(d, "good.yaml", good("good")), [*lj, "good.yaml", "/proc/self/status"])[1], (0,), named="/proc/self/status"))
    out.append(Case("h8-fifo-in-subfolder", with_good(lambda d: (mkdirs(os.path.join(d, "sub")), fifo(os.path.join(d, "sub", "bad.yaml")))), (2,)))

    def many_flat(d: str) -> None:
        for i in range(50_000):
            write(d, f"flat/s{i:05d}.yaml", f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: web}}\nspec:\n  selector: {{app: s{i}}}\n  ports: [{{port: 80}}]\n")
    out.append(Case("h8-folder-of-50000", with_good(many_flat), (0,), named=None, cpu_s=600.0))

    def many_other(d: str) -> None:
        os.makedirs(os.path.join(d, "notes"))
        for i in range(50_000):
            open(os.path.join(d, "notes", f"n{i:05d}.txt"), "wb").close()
    out.append(Case("h8-folder-of-50000-not-manifests", with_good(many_other), (0,), named=None, cpu_s=60.0))
    # ---------------------------------------------------------------- stdin
    out.append(Case("h8-stdin-empty", argv_of([*lj, "-"]), (2,), named="<stdin>", stdin=b""))
    out.append(Case("h8-stdin-whitespace", argv_of([*lj, "-"]), (2,), named="<stdin>", stdin=b"\n\n   \n"))
    out.append(Case("h8-stdin-binary", argv_of([*lj, "-"]), (2,), named="<stdin>", stdin=bytes(range(256)) * 64))
    out.append(Case("h8-stdin-blocking", argv_of(["lint", "--format", "json", "-"]), (1,), named="SW101", stdin=BLOCKING.encode()))
    out.append(Case("h8-stdin-twice", argv_of([*lj, "-", "-"]), (1, 2), named="SW101", stdin=BLOCKING.encode()))
    out.append(Case("h8-stdin-endless", argv_of([*lj, "-"]), (2,), named="<stdin>", stdin=ENDLESS))
    # ---------------------------------------------------------------- --jobs
    for tag, val in (("zero", "0"), ("negative", "-1"), ("huge", "9" * 30), ("float", "1.5"), ("empty", "")):
        out.append(Case(f"h8-jobs-{tag}", jobs_case(val), (2,), named="--jobs"))
    out.append(Case("h8-jobs-max", lambda d: (write(d, "good.yaml", good("good")), [*lj, "--jobs", "256", "good.yaml"])[1], (0,), named=None))
    del g
    return out


ENDLESS = b"\0endless"  # the sweep feeds ``yes``-like output to the run's stdin until it exits


SOCKETS: list[socket.socket] = []


@dataclass
class Result:
    case: str
    verdict: str  # ok / FAIL: ...
    rc: int | None
    seconds: float
    said: str
    cpu: float | None = None  # the CPU time the run took (its own and its waited children's: helm, kustomize)


# ---------------------------------------------------------------------------------------------- hostile9
# The readers the sweep covered least, each with wrong types at every level (a list where a mapping goes and back,
# null, a number, a huge string, a deep value): Helm charts, --values files, Kustomize, Pulumi preview and stack
# state JSON, the config file, inline suppressions, baselines; text encodings; the CLI's outputs. Written with what
# a user must get before they were run (blind), then the classes fixed.

TOOLS_BIN = os.path.join(os.path.expanduser("~"), ".cache", "shardwise-tools", "bin")  # helm, kustomize (scripts/build-tools.sh)


def tools_env() -> dict[str, str]:
    return {"PATH": TOOLS_BIN + os.pathsep + os.environ.get("PATH", "")}


def tool_missing(tool: str | None) -> bool:
    """True when a case's ``tool`` (helm, kustomize) is on neither :data:`TOOLS_BIN` nor PATH and the run does not
    require the tools (``SHARDWISE_REQUIRE_TOOLS=1``, as ``.ci/run`` sets, runs the case and lets it fail): a plain
    machine without ``scripts/build-tools.sh``'s binaries skips the chart and kustomize cases and says so."""
    if tool is None or os.environ.get("SHARDWISE_REQUIRE_TOOLS") == "1":
        return False
    return shutil.which(tool, path=tools_env()["PATH"]) is None


CHART_TEMPLATE = good("chart").replace("replicas: 2", "replicas: {{ .Values.replicas }}")


def chart(d: str, chart_yaml: str | bytes = "apiVersion: v2\nname: badchart\nversion: 0.1.0\n",
          values: str | bytes | None = "replicas: 2\n", template: str | bytes = CHART_TEMPLATE,
          extra: dict[str, str] | None = None) -> str:
    """A chart ``badchart`` whose one template renders a good Deployment (``replicas`` from its values)."""
    write(d, "badchart/Chart.yaml", chart_yaml)
    if values is not None:
        write(d, "badchart/values.yaml", values)
    write(d, "badchart/templates/deployment.yaml", template)
    for rel, text in (extra or {}).items():
        write(d, f"badchart/{rel}", text)
    return "badchart"


def chart_case(name: str, rc: tuple[int, ...] = (2,), named: str | None = "badchart", values_file: str | bytes | None = None,
               named_if_refused: str | None = None, **kw: object) -> Case:
    """``lint good.yaml badchart`` (``--values bad-values.yaml`` when given), helm on PATH."""
    def build(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        chart(d, **kw)  # type: ignore[arg-type]
        argv = ["lint", "--format", "json", "good.yaml", "badchart"]
        if values_file is not None:
            write(d, "bad-values.yaml", values_file)
            argv[3:3] = ["--values", "bad-values.yaml"]
        return argv
    return Case(name, build, rc, named=named, env=tools_env(), named_if_refused=named_if_refused, tool="helm")


KUST_BASE = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n"


def kust_case(name: str, kustomization: str | bytes, rc: tuple[int, ...] = (2,), named: str | None = "badkust",
              extra: dict[str, str] | None = None, argv_extra: tuple[str, ...] = ()) -> Case:
    """``lint good.yaml badkust`` with ``badkust/kustomization.yaml`` and a good Deployment beside it, kustomize on PATH."""
    def build(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", kustomization)
        write(d, "badkust/deployment.yaml", good("kust"))
        for rel, text in (extra or {}).items():
            write(d, rel, text)
        return ["lint", "--format", "json", *argv_extra, "good.yaml", "badkust"]
    return Case(name, build, rc, named=named, env=tools_env(), tool="kustomize")


PREVIEW_DEP = {"op": "create", "urn": "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::bad",
               "newState": {"urn": "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::bad",
                            "type": "kubernetes:apps/v1:Deployment", "custom": True,
                            "inputs": json.loads(json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad", "namespace": "serving", "labels": {"app": "vllm"}}, "spec": {"replicas": 2, "template": {"spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"}, "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "16"], "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}})),
                            "outputs": {}}}


def preview(edit: Callable[[dict], object]) -> str:
    """A ``pulumi preview --json`` of one good Deployment, edited."""
    doc = {"steps": [json.loads(json.dumps(PREVIEW_DEP))]}
    edit(doc)
    return json.dumps(doc, indent=2)


def state(edit: Callable[[dict], object]) -> str:
    """A ``pulumi stack export`` of the same Deployment, edited."""
    res: dict = json.loads(json.dumps(PREVIEW_DEP["newState"]))
    res["outputs"] = json.loads(json.dumps(res["inputs"]))
    doc = {"version": 3, "deployment": {"manifest": {}, "resources": [res]}}
    edit(doc)
    return json.dumps(doc, indent=2)


def setp(path: tuple, value: object) -> Callable[[dict], None]:
    def edit(doc: dict) -> None:
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return edit


DEEP = "[" * 50_000 + "]" * 50_000
HUGE = "x" * 12_000_000


def h9_reader_cases() -> list[Case]:
    out: list[Case] = []
    lj = ["lint", "--format", "json"]
    # ---------------------------------------------------------------- Helm charts
    out.append(chart_case("h9-chart-valid", rc=(0,), named=None))  # the control: the chart renders and is linted
    out.append(chart_case("h9-chart-yaml-list", chart_yaml="- apiVersion: v2\n- name: badchart\n"))
    out.append(chart_case("h9-chart-yaml-null", chart_yaml="~\n"))
    out.append(chart_case("h9-chart-yaml-empty", chart_yaml=""))
    out.append(chart_case("h9-chart-yaml-name-list", chart_yaml="apiVersion: v2\nname: [badchart]\nversion: 0.1.0\n"))
    # blind: expected refused; helm reads `version: 1` (and a UTF-16 Chart.yaml with its BOM, a 2 MB name) and renders
    out.append(chart_case("h9-chart-yaml-version-number", chart_yaml="apiVersion: v2\nname: badchart\nversion: 1\n", rc=(0,), named=None))
    out.append(chart_case("h9-chart-yaml-no-version", chart_yaml="apiVersion: v2\nname: badchart\n"))
    out.append(chart_case("h9-chart-yaml-not-yaml", chart_yaml="apiVersion: v2\nname: [badchart\n"))
    out.append(chart_case("h9-chart-yaml-utf16", chart_yaml=b"\xff\xfe" + "apiVersion: v2\nname: badchart\nversion: 0.1.0\n".encode("utf-16-le"), rc=(0,), named=None))
    out.append(chart_case("h9-chart-yaml-huge-name", chart_yaml="apiVersion: v2\nname: " + "b" * 2_000_000 + "\nversion: 0.1.0\n", rc=(0,), named=None))
    out.append(chart_case("h9-values-list", values="- replicas\n- 2\n"))
    out.append(chart_case("h9-values-scalar", values="42\n"))
    # blind: expected refused; `replicas:` renders empty, a null the API server defaults (1 replica): read so
    out.append(chart_case("h9-values-null", values="~\n", named=None, rc=(0,)))
    out.append(chart_case("h9-values-wrong-type", values="replicas: [2]\n"))  # renders `replicas: [2]`: the API server refuses
    out.append(chart_case("h9-values-string", values="replicas: \"2\"\n"))  # renders `replicas: 2`: valid
    out[-1].rc, out[-1].named = (0,), None
    out.append(chart_case("h9-values-deep", values="replicas: 2\nx: " + "[" * 20_000 + "]" * 20_000 + "\n"))
    out.append(chart_case("h9-values-not-utf8", values=b"replicas: 2\nnote: caf\xe9\n"))
    out.append(chart_case("h9-template-parse-error", template=CHART_TEMPLATE.replace("{{ .Values.replicas }}", "{{ .Values.replicas ")))
    out.append(chart_case("h9-template-fail", template="{{ fail \"no model set\" }}\n" + CHART_TEMPLATE))
    out.append(chart_case("h9-template-required", template=CHART_TEMPLATE.replace("{{ .Values.replicas }}", "{{ required \"replicas is required\" .Values.nothing }}")))
    out.append(chart_case("h9-template-nil-pointer", template=CHART_TEMPLATE.replace("{{ .Values.replicas }}", "{{ .Values.a.b.c }}")))
    out.append(chart_case("h9-template-renders-garbage", template="kind: [\n" + CHART_TEMPLATE))
    out.append(chart_case("h9-template-not-utf8", template=CHART_TEMPLATE.encode().replace(b"serving", b"serv\xe9ing")))
    out.append(chart_case("h9-chart-missing-dependency", chart_yaml="apiVersion: v2\nname: badchart\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 17.0.0\n    repository: https://charts.bitnami.com/bitnami\n"))
    out.append(chart_case("h9-chart-dependencies-wrong-type", chart_yaml="apiVersion: v2\nname: badchart\nversion: 0.1.0\ndependencies: {redis: 1}\n"))
    out.append(chart_case("h9-values-file-list", values_file="- a\n- b\n", named="bad-values.yaml"))
    out.append(chart_case("h9-values-file-null", values_file="~\n", rc=(0,), named=None))  # helm reads a null document as no values
    out.append(chart_case("h9-values-file-wrong-type", values_file="replicas: {a: 1}\n"))
    # blind: expected refused; helm's YAML reader takes UTF-16 with a BOM (so does kustomize's, below)
    out.append(chart_case("h9-values-file-utf16", values_file=b"\xff\xfe" + "replicas: 3\n".encode("utf-16-le"), rc=(0,), named=None))
    out.append(chart_case("h9-values-file-nul", values_file=b"replicas: 3\x00\n", named="bad-values.yaml"))
    out.append(chart_case("h9-values-file-huge-string", values_file="note: " + "x" * 12_000_000 + "\n", rc=(0, 2), named=None, named_if_refused="bad-values.yaml"))
    out.append(chart_case("h9-values-file-deep", values_file="x: " + "[" * 50_000 + "]" * 50_000 + "\n", named="bad-values.yaml"))
    out.append(Case("h9-values-file-missing", lambda d: (write(d, "good.yaml", good("good")), chart(d), [*lj, "--values", "nowhere.yaml", "good.yaml", "badchart"])[2], (2,), named="nowhere.yaml", env=tools_env(), tool="helm"))
    # ---------------------------------------------------------------- Kustomize
    out.append(kust_case("h9-kust-valid", KUST_BASE, rc=(0,), named=None))  # the control: built and linted
    out.append(kust_case("h9-kust-resources-loop", KUST_BASE + "  - ../badkust2\n", extra={"badkust2/kustomization.yaml": KUST_BASE.replace("deployment.yaml", "../badkust")}))
    out.append(kust_case("h9-kust-resources-self", KUST_BASE + "  - .\n"))
    out.append(kust_case("h9-kust-patch-missing-path", KUST_BASE + "patches:\n  - target: {kind: Deployment, name: kust}\n    patch: |-\n      - op: replace\n        path: /spec/nothing/here\n        value: 3\n"))
    out.append(kust_case("h9-kust-patch-no-target", KUST_BASE + "patches:\n  - path: patch.yaml\n", extra={"badkust/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nowhere}\nspec: {replicas: 3}\n"}))
    out.append(kust_case("h9-kust-remote-base", KUST_BASE + "  - https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v3.3.1\n"))
    out.append(kust_case("h9-kust-resources-number", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: 5\n"))
    out.append(kust_case("h9-kust-resources-mapping", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: {deployment.yaml: 1}\n"))
    out.append(kust_case("h9-kust-list", "- resources\n- deployment.yaml\n"))
    out.append(kust_case("h9-kust-null", "~\n"))
    out.append(kust_case("h9-kust-not-yaml", "resources: [deployment.yaml\n"))
    out.append(kust_case("h9-kust-missing-resource", KUST_BASE + "  - nowhere.yaml\n"))
    out.append(kust_case("h9-kust-outside-repo", KUST_BASE + "  - /etc/passwd\n"))
    out.append(kust_case("h9-kust-utf16", b"\xff\xfe" + KUST_BASE.encode("utf-16-le"), rc=(0,), named=None))
    # ---------------------------------------------------------------- Pulumi preview and stack state JSON
    for tag, edit in [("steps-mapping", setp(("steps",), {})), ("steps-number", setp(("steps",), 5)),
                      ("step-number", setp(("steps", 0), 1)), ("step-null", setp(("steps", 0), None)),
                      ("newstate-list", setp(("steps", 0, "newState"), [])),
                      ("newstate-string", setp(("steps", 0, "newState"), "x")),
                      ("type-number", setp(("steps", 0, "newState", "type"), 5)),
                      ("inputs-list", setp(("steps", 0, "newState", "inputs"), [])),
                      ("inputs-string", setp(("steps", 0, "newState", "inputs"), "spec")),
                      ("spec-list", setp(("steps", 0, "newState", "inputs", "spec"), [])),
                      ("containers-mapping", setp(("steps", 0, "newState", "inputs", "spec", "template", "spec", "containers"), {"vllm": {}})),
                      ("op-list", setp(("steps", 0, "op"), ["create"])),
                      ("deep-inputs", setp(("steps", 0, "newState", "inputs", "spec", "x"), json.loads("[" * 500 + "]" * 500)))]:
        out.append(file_case(f"h9-preview-{tag}", preview(edit), rel="bad.json"))
    for tag, edit in [("deployment-list", setp(("deployment",), [])), ("resources-mapping", setp(("deployment", "resources"), {})),
                      ("resource-null", setp(("deployment", "resources", 0), None)),
                      ("resource-string", setp(("deployment", "resources", 0), "urn:pulumi:x")),
                      ("outputs-list", setp(("deployment", "resources", 0, "outputs"), [])),
                      ("type-null", setp(("deployment", "resources", 0, "type"), None)),
                      ]:
        out.append(file_case(f"h9-state-{tag}", state(edit), rel="bad.json"))
    # blind: expected refused; the step's own urn is not what is read (its newState's is), a version "3" is not checked,
    # and a type of no provider the linter reads is skipped and counted, as any (the pack does the same)
    out.append(file_case("h9-preview-urn-number", preview(setp(("steps", 0, "urn"), 7)), rel="bad.json", rc=(0,), named=None))
    out.append(file_case("h9-state-version-string", state(setp(("version",), "3")), rel="bad.json", rc=(0,), named=None))
    out.append(file_case("h9-preview-type-huge", preview(setp(("steps", 0, "newState", "type"), "kubernetes:" + "x" * 5_000_000)), rel="bad.json", rc=(0,), named=None))
    # blind: expected read as no workload; a preview holds at least its stack's step, so an empty list is refused
    out.append(file_case("h9-preview-no-steps", json.dumps({"steps": []}), rel="bad.json", rc=(2,)))
    # ---------------------------------------------------------------- the config file: unknown keys and codes, wrong types at each level
    for i, (text, rel) in enumerate([
        ("unknwon_key = 1\n", "shardwise.toml"), ("[enforcement]\nSW999 = \"disabled\"\n", "shardwise.toml"),
        ("[enforcement]\nSW104 = \"warn\"\n", "shardwise.toml"), ("[enforcement]\nsw104 = \"disabled\"\n", "shardwise.toml"),
        ("[[suppress]]\ncode = \"SW999\"\nreason = \"x\"\n", "shardwise.toml"), ("[[suppress]]\ncode = \"SW104\"\nreason = 5\n", "shardwise.toml"),
        ("[[suppress]]\ncode = \"SW104\"\nsubject = []\nreason = \"x\"\n", "shardwise.toml"), ("[[suppress]]\ncode = \"SW104\"\nreason = \"x\"\nextra = 1\n", "shardwise.toml"),
        ("suppress = [5]\n", "shardwise.toml"), ("exclude = [1]\n", "shardwise.toml"), ("[enforcement]\nSW104 = [\"advisory\"]\n", "shardwise.toml"),
        ("fail_on = \"" + "x" * 5_000_000 + "\"\n", "shardwise.toml"), ("[[suppress]]\ncode = \"SW104\"\nreason = \"x\"\nsubject = \"[\"\n", "shardwise.toml"),
        ("unknown = \"maybe\"\n", "shardwise.toml"), ("production = \"yes\"\n", "shardwise.toml"),
        ("enforcement: [SW104]\n", ".shardwise.yaml"), ("enforcement: {SW999: disabled}\n", ".shardwise.yaml"),
        ("suppress: {code: SW104, reason: x}\n", ".shardwise.yaml"), ("suppress: [{code: SW999, reason: x}]\n", ".shardwise.yaml"),
        ("suppress: [[SW104]]\n", ".shardwise.yaml"), ("kv_reserve: " + "[" * 20_000 + "]" * 20_000 + "\n", ".shardwise.yaml"),
        ("exclude: " + "x" * 5_000_000 + "\n", ".shardwise.yaml"), ("fail_on: mandatory\nfail_on: advisory\n", ".shardwise.yaml"),
        ("~\n", ".shardwise.yaml"), ("42\n", ".shardwise.yaml"),
    ]):
        # an empty (null) settings file sets nothing; blind: expected refused, and read as documented: one
        # [[suppress]] entry written as a mapping is a list of one (as exclude's one string), a subject "[" is a glob
        # of that character. A 5 MB exclude string (21) passed after 7.7 s of CPU over two paths: now refused
        ok = text == "~\n" or i in (12, 17)
        key = text.split("=")[0].split(":")[0].strip().strip("[").strip("]")[:20] or "x"
        out.append(Case(f"h9-config-{i:02d}-{rel}-{key}", with_good(writer(rel, text)), (0,) if ok else (2,), named=None if ok else rel))
    # ---------------------------------------------------------------- inline suppressions
    def annotated(value: str) -> str:
        return BLOCKING.replace("  labels: {app: vllm}\n", f"  labels: {{app: vllm}}\n  annotations:\n    shardwise.dev/ignore: {value}\n")
    out.append(file_case("h9-ignore-unknown-code", annotated("\"SW999: benchmarked\""), rc=(1,), named="SW999"))
    out.append(file_case("h9-ignore-number", annotated("104"), rc=(2,)))
    out.append(file_case("h9-ignore-list", annotated("[SW101]"), rc=(2,)))
    out.append(file_case("h9-ignore-mapping", annotated("{SW101: reason}"), rc=(2,)))
    # blind: expected refused; a null annotation is sent as "" by kubectl (the API server's map[string]string): none
    out.append(file_case("h9-ignore-null", annotated("~"), rc=(1,), named="SW101"))
    out.append(file_case("h9-ignore-empty", annotated("\"\""), rc=(1,), named="SW101"))
    out.append(file_case("h9-ignore-separators-only", annotated("\";;;\""), rc=(1,), named="SW101"))
    # blind: expected SW101 to stay; the codes then the reason without a colon is documented (fields.parse_ignore), a
    # control character written as a YAML escape is text, and a 3 MB reason is a reason: each suppresses
    out.append(file_case("h9-ignore-no-colon", annotated("\"SW101 benchmarked on one L40S\""), rc=(0,), named=None))
    out.append(file_case("h9-ignore-control-char", annotated("\"SW101: ok\\u0007\""), rc=(0,), named=None))
    out.append(file_case("h9-ignore-huge-reason", annotated("\"SW101: " + "x" * 3_000_000 + "\""), rc=(0,), named=None))
    # ---------------------------------------------------------------- baselines damaged or foreign
    def baseline_case(name: str, data: str | bytes, cmd: str = "lint") -> Case:
        def build(d: str) -> list[str]:
            if cmd == "diff":
                repo(d, {"good.yaml": good("good")})
            else:
                write(d, "good.yaml", good("good"))
            write(d, "bad-baseline.json", data)
            return [cmd, "--format", "json", "--baseline", "bad-baseline.json"] + (["HEAD"] if cmd == "diff" else ["good.yaml"])
        return Case(name, build, (2,), named="bad-baseline.json")
    entry = {"code": "SW101", "object": "Deployment serving/bad", "field": None, "file": "bad.yaml", "urn": None, "count": 1}
    baselines: list[tuple[str, str | bytes]] = [
        ("sarif", json.dumps({"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": []})),
        ("json-report", json.dumps({"findings": [], "input_errors": [], "summary": {}})),
        ("version-2", json.dumps({"shardwise_baseline": 2, "findings": []})),
        ("version-string", json.dumps({"shardwise_baseline": "1", "findings": []})),
        ("version-true", json.dumps({"shardwise_baseline": True, "findings": []})),
        ("findings-null", json.dumps({"shardwise_baseline": 1, "findings": None})),
        ("findings-mapping", json.dumps({"shardwise_baseline": 1, "findings": {"SW101": 1}})),
        ("entry-list", json.dumps({"shardwise_baseline": 1, "findings": [["SW101"]]})),
        ("entry-code-number", json.dumps({"shardwise_baseline": 1, "findings": [{**entry, "code": 101}]})),
        ("entry-count-string", json.dumps({"shardwise_baseline": 1, "findings": [{**entry, "count": "1"}]})),
        ("entry-count-negative", json.dumps({"shardwise_baseline": 1, "findings": [{**entry, "count": -1}]})),
        ("entry-count-huge", json.dumps({"shardwise_baseline": 1, "findings": [{**entry, "count": 10 ** 400}]})),
        ("entry-missing-code", json.dumps({"shardwise_baseline": 1, "findings": [{k: v for k, v in entry.items() if k != "code"}]})),
        ("top-list", json.dumps([{"shardwise_baseline": 1, "findings": []}])),
        ("utf16", b"\xff\xfe" + json.dumps({"shardwise_baseline": 1, "findings": []}).encode("utf-16-le")),
        ("nul", json.dumps({"shardwise_baseline": 1, "findings": []}).encode() + b"\x00"),
        ("lone-surrogate", '{"shardwise_baseline": 1, "findings": [{"code": "SW101", "object": "Deployment serving/b\\ud800", "field": null, "file": "bad.yaml", "urn": null, "count": 1}]}'),
        ("deep", '{"shardwise_baseline": 1, "findings": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        ("duplicate-key", '{"shardwise_baseline": 1, "shardwise_baseline": 1, "findings": []}'),
    ]
    for tag, data in baselines:
        out.append(baseline_case(f"h9-baseline-{tag}", data))
    out.append(baseline_case("h9-diff-baseline-sarif", json.dumps({"version": "2.1.0", "runs": []}), cmd="diff"))
    out.append(baseline_case("h9-diff-baseline-version-2", json.dumps({"shardwise_baseline": 2, "findings": []}), cmd="diff"))
    out.append(Case("h9-baseline-directory", lambda d: (write(d, "good.yaml", good("good")), mkdirs(os.path.join(d, "bad-baseline.json")), [*lj, "--baseline", "bad-baseline.json", "good.yaml"])[2], (2,), named="bad-baseline.json"))
    out.append(Case("h9-create-baseline-into-missing-folder", lambda d: (write(d, "good.yaml", good("good")), [*lj, "--create-baseline", "nowhere/bad-baseline.json", "good.yaml"])[1], (2,), named="nowhere/bad-baseline.json"))
    return out


def h9_encoding_cases() -> list[Case]:
    g = good()
    out: list[Case] = []
    j = json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad", "namespace": "serving", "labels": {"app": "vllm"}}, "spec": {"replicas": 2, "template": {"spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"}, "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-seqs", "16"], "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}, indent=2)
    # UTF-16 and UTF-32 of both byte orders, with and without a BOM, in YAML and JSON: an input error naming the file
    out.append(file_case("h9-utf16be-no-bom", g.encode("utf-16-be")))
    out.append(file_case("h9-utf16le-no-bom-json", j.encode("utf-16-le"), rel="bad.json"))
    out.append(file_case("h9-utf16be-bom-json", b"\xfe\xff" + j.encode("utf-16-be"), rel="bad.json"))
    out.append(file_case("h9-utf16le-bom-json", b"\xff\xfe" + j.encode("utf-16-le"), rel="bad.json"))
    out.append(file_case("h9-utf32be-no-bom", g.encode("utf-32-be")))
    # Latin-1 bytes in a value (a comment, a label, an arg), YAML and JSON
    out.append(file_case("h9-latin1-label", g.encode().replace(b"labels: {app: vllm}", b"labels: {app: vllm, team: \xe9quipe}")))
    out.append(file_case("h9-latin1-comment", g.encode().replace(b"  replicas: 2\n", b"  replicas: 2  # r\xe9plicas\n")))
    out.append(file_case("h9-latin1-json", j.encode().replace(b'"serving"', b'"s\xe9rving"'), rel="bad.json"))
    # NUL bytes: in JSON, in a comment, at the end of the file
    out.append(file_case("h9-nul-json", j.replace('"serving"', '"serv\0ing"'), rel="bad.json"))
    # blind: expected refused; a control character written as a JSON escape is the text kubectl sends (the API server
    # judges a namespace's characters): control characters are refused as raw bytes only, in YAML and JSON alike
    out.append(file_case("h9-nul-json-escaped", j.replace('"serving"', '"serv\\u0000ing"'), rel="bad.json", rc=(0,), named=None))
    out.append(file_case("h9-nul-comment", g.replace("  replicas: 2\n", "  replicas: 2  # \0\n")))
    out.append(file_case("h9-nul-trailing", g + "\0"))
    # a lone surrogate escaped in JSON: not a character; never written back into a report (invalid UTF-8)
    out.append(file_case("h9-lone-surrogate-json-value", j.replace('"serving"', '"serv\\ud800ing"'), rel="bad.json"))
    out.append(file_case("h9-lone-surrogate-json-name", j.replace('"name": "bad"', '"name": "bad\\udfff"'), rel="bad.json"))
    # (blind: these two replaced text the indented JSON does not hold, so they read the plain file; rebuilt)
    jd = json.loads(j)
    jd["metadata"]["labels"] = {"app\ud800": "vllm"}
    out.append(file_case("h9-lone-surrogate-json-key", json.dumps(jd, indent=2), rel="bad.json"))
    jd["metadata"]["labels"] = {"app": "vllm"}
    jd["metadata"]["annotations"] = {"note": "\U0001f600"}
    assert "\\ud83d\\ude00" in json.dumps(jd)
    out.append(file_case("h9-surrogate-pair-json", json.dumps(jd, indent=2), rel="bad.json", rc=(0,), same_as_plain=True))
    out.append(file_case("h9-lone-surrogate-yaml-escape", g.replace("namespace: serving", "namespace: \"serv\\ud800ing\"")))
    out.append(file_case("h9-lone-surrogate-preview", preview(setp(("steps", 0, "newState", "inputs", "metadata", "namespace"), "serv\ud800ing")).replace("\\ud800", "\\ud800"), rel="bad.json"))
    # very long lines: a 10 MB comment, a 10 MB plain value, a 10 MB arg
    out.append(file_case("h9-10mb-comment-line", "# " + "x" * 10_000_000 + "\n" + g, rc=(0,), same_as_plain=True))
    out.append(file_case("h9-10mb-annotation", g.replace("  labels: {app: vllm}\n", "  labels: {app: vllm}\n  annotations: {note: " + "x" * 10_000_000 + "}\n"), rc=(0,), same_as_plain=True))
    out.append(file_case("h9-10mb-arg", field_set("\"16\"]", "\"16\", --served-model-name, " + "x" * 10_000_000 + "]"), rc=(0, 1, 2), named=None))
    # a million documents of `---`
    out.append(file_case("h9-million-doc-separators", "---\n" * 1_000_000 + g, rc=(0,), same_as_plain=True, cpu_s=30.0))
    # blind: expected said; a stream of empty documents is read as an empty file is (bytes-empty): nothing to say
    out.append(file_case("h9-million-doc-separators-only", "---\n" * 1_000_000, rc=(0,), named=None, cpu_s=30.0))
    # fuzz19: a .json met while searching that breaks JSON's grammar and names no input is skipped (named as skipped)
    out.append(file_case("h9-million-doc-separators-json-suffix", "---\n" * 1_000_000, rc=(0,), rel="bad.json", named="bad.json", cpu_s=30.0))
    out.append(file_case("h9-million-empty-flow-docs", "--- {}\n" * 1_000_000, rc=(0,), named="bad.yaml", cpu_s=30.0))
    # config files and values in odd encodings
    out.append(Case("h9-config-utf16", with_good(writer(".shardwise.yaml", b"\xff\xfe" + "fail_on: mandatory\n".encode("utf-16-le"))), (2,), named=".shardwise.yaml"))
    out.append(Case("h9-config-latin1", with_good(writer("shardwise.toml", b"# r\xe9glages\nfail_on = \"mandatory\"\n")), (2,), named="shardwise.toml"))
    out.append(Case("h9-config-nul", with_good(writer(".shardwise.yaml", b"fail_on: mandatory\x00\n")), (2,), named=".shardwise.yaml"))
    out.append(Case("h9-config-bom", with_good(writer(".shardwise.yaml", b"\xef\xbb\xbffail_on: mandatory\n")), (0,), named=None))
    return out


def h9_output_cases() -> list[Case]:
    out: list[Case] = []

    def two(d: str) -> str:
        write(d, "good.yaml", good("good"))
        return write(d, "bad.yaml", BLOCKING)
    lint = ["lint", "good.yaml", "bad.yaml"]
    # --output and --format FMT=FILE where no file can be written: a usage error naming the path, before or after
    # the reading, never a traceback, never a pass (a CI job that uploads the SARIF would find nothing)
    out.append(Case("h9-output-missing-folder", lambda d: (two(d), [*lint, "--format", "sarif", "--output", "nowhere/bad.sarif"])[1], (2,), named="nowhere/bad.sarif"))
    out.append(Case("h9-output-format-file-missing-folder", lambda d: (two(d), [*lint, "--format", "json=nowhere/bad.json"])[1], (2,), named="nowhere/bad.json"))
    out.append(Case("h9-output-is-a-folder", lambda d: (two(d), mkdirs(os.path.join(d, "bad.sarif")), [*lint, "--format", "sarif", "--output", "bad.sarif"])[2], (2,), named="bad.sarif"))
    out.append(Case("h9-output-dev-full", lambda d: (two(d), [*lint, "--format", "json", "--output", "/dev/full"])[1], (2,), named="/dev/full"))
    out.append(Case("h9-output-format-file-dev-full", lambda d: (two(d), [*lint, "--format", "sarif=/dev/full", "--format", "text"])[1], (2,), named="/dev/full", stdout_said=True))
    out.append(Case("h9-output-read-only", lambda d: (two(d), unreadable_file(d, "bad.sarif", ""), [*lint, "--format", "sarif", "--output", "bad.sarif"])[2], (2,), named="bad.sarif", root_only_skip=True))
    out.append(Case("h9-output-empty-name", lambda d: (two(d), [*lint, "--format", "json", "--output", ""])[1], (2,), named="--output"))
    out.append(Case("h9-output-format-empty-file", lambda d: (two(d), [*lint, "--format", "json="])[1], (2,), named="--format"))
    out.append(Case("h9-output-same-file-twice", lambda d: (two(d), [*lint, "--format", "json=bad.out", "--format", "sarif=bad.out"])[1], (2,), named="bad.out"))
    out.append(Case("h9-output-is-an-input", lambda d: (two(d), [*lint, "--format", "json=bad.yaml"])[1], (2,), named="bad.yaml"))
    out.append(Case("h9-stdout-closed", lambda d: (two(d), [*lint, "--format", "json"])[1], (1, 2), named=None, stdout_said=True, env={"H9_CLOSE_STDOUT": "1"}))
    out.append(Case("h9-diff-output-missing-folder", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "json", "--output", "nowhere/bad.json", "HEAD"])[1], (2,), named="nowhere/bad.json"))
    # --format unknown, twice to stdout, case
    out.append(Case("h9-format-unknown", lambda d: (two(d), [*lint, "--format", "xml"])[1], (2,), named="--format"))
    out.append(Case("h9-format-unknown-with-file", lambda d: (two(d), [*lint, "--format", "xml=bad.xml"])[1], (2,), named="--format"))
    out.append(Case("h9-format-upper-case", lambda d: (two(d), [*lint, "--format", "JSON"])[1], (2,), named="--format"))
    out.append(Case("h9-format-two-to-stdout", lambda d: (two(d), [*lint, "--format", "json", "--format", "sarif"])[1], (2,), named="--format"))
    out.append(Case("h9-format-empty", lambda d: (two(d), [*lint, "--format", ""])[1], (2,), named="--format"))
    out.append(Case("h9-diff-format-sarif", lambda d: (repo(d, {"good.yaml": good("good")}), ["diff", "--format", "sarif", "HEAD"])[1], (2,), named="--format"))
    # names holding control characters: the JSON and SARIF written stay valid (parsed strictly, as UTF-8)
    ctrl = "bad\x1b[31m\x07\x7f\u2028\u202e.yaml"
    def report_case(name: str, fmt: str, rel: str, data: str, rc: tuple[int, ...]) -> Case:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, rel, data)
            return ["lint", "--format", f"{fmt}=bad.out", "."]
        return Case(name, build, rc, named=None, parse_out="bad.out", stdout_said=True)  # blind: stdout_said was missing
    obj = json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad\u001b[2J\u0085\u2028", "namespace": "serving"}, "spec": {"replicas": 2, "template": {"spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"}, "containers": [{"name": "vllm\u0007", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "meta-llama/Llama-3.1-70B-Instruct\u0000"], "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}})
    for fmt in ("json", "sarif"):
        out.append(report_case(f"h9-ctrl-file-name-{fmt}", fmt, ctrl, BLOCKING, (1,)))
        out.append(report_case(f"h9-ctrl-file-name-error-{fmt}", fmt, ctrl, "a: [\n", (2,)))
        out.append(report_case(f"h9-ctrl-object-name-{fmt}", fmt, "bad.json", obj, (0,)))  # blind: (1, 2); escapes are text (above)
        out.append(report_case(f"h9-lone-surrogate-name-{fmt}", fmt, os.fsdecode(b"bad\xed\xa0\x80.yaml"), BLOCKING, (1,)))
    out.append(Case("h9-ctrl-file-name-stdout-json", lambda d: (write(d, "good.yaml", good("good")), write(d, ctrl, "a: [\n"), ["lint", "--format", "json", "."])[2], (2,), named=None, parse_out="-"))
    out.append(Case("h9-ctrl-file-name-markdown", lambda d: (write(d, "good.yaml", good("good")), write(d, ctrl, BLOCKING), ["lint", "--format", "markdown=bad.out", "--format", "json", "."])[2], (1,), named=None, parse_out="-"))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz13
# Classes benchmarks/fuzz_mutate.py (and its hazards) found: a JSON report on a standard output that cannot encode it,
# a chart's Chart.yaml or a kustomization file that is no regular file, a FIFO a kustomization builds from.


def special_file(path: str, kind: str) -> str:
    """``path`` made a FIFO, a directory, a link that loops or one that leads nowhere (replacing what is there)."""
    if os.path.lexists(path):
        os.unlink(path)
    {"fifo": os.mkfifo, "dir": os.makedirs, "loop": lambda p: os.symlink(os.path.basename(p), p),
     "dangling": lambda p: os.symlink("nowhere", p)}[kind](path)
    return path


def fuzz13_cases() -> list[Case]:
    out: list[Case] = []
    for enc in ("ascii", "latin-1"):
        for fmt in ("json", "sarif"):
            def stdout_build(d: str, fmt: str = fmt) -> list[str]:
                write(d, "bad.yaml", BLOCKING)
                return ["lint", "--format", fmt, "bad.yaml"]
            out.append(Case(f"fz13-{fmt}-stdout-{enc}", stdout_build, (1,), named="SW101" if fmt == "json" else None,
                            env={"PYTHONIOENCODING": enc}, parse_out="-"))
    out.append(Case("fz13-plan-json-stdout-ascii", argv_of(["plan", "--format", "json", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "L40S", "--tp", "1"]),
                    (1,), named=None, env={"PYTHONIOENCODING": "ascii"}, parse_out="-"))
    for kind in ("fifo", "dir", "loop", "dangling"):
        def chart_build(d: str, kind: str = kind) -> list[str]:
            write(d, "good.yaml", good("good"))
            chart(d)
            special_file(os.path.join(d, "badchart", "Chart.yaml"), kind)
            write(d, "badchart/plain.yaml", good("plain"))
            return ["lint", "--format", "json", "good.yaml", "badchart"]
        out.append(Case(f"fz13-chart-yaml-{kind}", chart_build, (2,), named="badchart/Chart.yaml", env=tools_env(), tool="helm"))
    for kind in ("fifo", "dir", "loop"):
        def kust_file_build(d: str, kind: str = kind) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "badkust/deployment.yaml", good("kust"))
            special_file(os.path.join(d, "badkust", "kustomization.yaml"), kind)
            return ["lint", "--format", "json", "good.yaml", "badkust"]
        out.append(Case(f"fz13-kustomization-{kind}", kust_file_build, (2,), named="badkust/kustomization.yaml", env=tools_env(), tool="kustomize"))
    for what in ("base", "resource"):
        def kust_build(d: str, what: str = what) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "badkust/base/kustomization.yaml", KUST_BASE)
            write(d, "badkust/base/deployment.yaml", good("kust"))
            write(d, "badkust/overlay/kustomization.yaml", KUST_BASE.replace("deployment.yaml", "../base"))
            special_file(os.path.join(d, "badkust", "base", "kustomization.yaml" if what == "base" else "deployment.yaml"), "fifo")
            return ["lint", "--format", "json", "good.yaml", "badkust/overlay"]
        out.append(Case(f"fz13-kustomize-{what}-fifo", kust_build, (2,), named="badkust/base/", env=tools_env(), tool="kustomize"))
    for kind in ("fifo", "dir", "loop"):  # a model directory's config.json that is no file was passed over (SW004)
        def model_dir_build(d: str, kind: str = kind) -> list[str]:
            write(d, "bad.yaml", good().replace("meta-llama/Llama-3.1-8B-Instruct", "acme/bot"))
            os.makedirs(os.path.join(d, "models", "acme", "bot"))
            special_file(os.path.join(d, "models", "acme", "bot", "config.json"), kind)
            return ["lint", "--format", "json", "--model-dir", "models", "bad.yaml"]
        out.append(Case(f"fz13-model-dir-config-{kind}", model_dir_build, (2,), named="acme/bot/config.json"))
    # an operator's object of an unknown kind naming its vLLM image as Helm's {repository, tag}: was skipped silently
    crd = ("apiVersion: serving.example.com/v1\nkind: LLMServer\nmetadata: {name: bad}\nspec:\n  image:\n"
           "    repository: vllm/vllm-openai\n    tag: v0.11.0\n  model: meta-llama/Llama-3.1-8B-Instruct\n")
    out.append(Case("fz13-crd-image-repository", lambda d: (write(d, "bad.yaml", crd), ["lint", "--format", "text", "bad.yaml"])[1],
                    (0,), named="SW005", stdout_said=True))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz14
# A FIFO a kustomization patches, replaces or generates from (fuzz13 refused a base or resource only), and a chart's
# .helmignore that is a FIFO: each held kustomize or helm, and the run, for the 120 s timeout.

KUST_FILE_FIELDS = {"patch": ("patches:\n  - path: p.yaml\n", "p.yaml"),
                    "patch-strategic-merge": ("patchesStrategicMerge:\n  - p.yaml\n", "p.yaml"),
                    "replacement": ("replacements:\n  - path: r.yaml\n", "r.yaml"),
                    "generator-files": ("configMapGenerator:\n  - name: c\n    files: [k=f.txt]\n", "f.txt"),
                    "generator-envs": ("secretGenerator:\n  - name: s\n    envs: [s.env]\n", "s.env"),
                    "openapi": ("openapi:\n  path: schema.json\n", "schema.json")}


def fuzz14_cases() -> list[Case]:
    out: list[Case] = []
    for what, (extra, rel) in KUST_FILE_FIELDS.items():
        def kust_build(d: str, extra: str = extra, rel: str = rel) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "badkust/kustomization.yaml", KUST_BASE + extra)
            write(d, "badkust/deployment.yaml", good("kust"))
            fifo(os.path.join(d, "badkust", rel))
            return ["lint", "--format", "json", "good.yaml", "badkust"]
        out.append(Case(f"fz14-kustomize-{what}-fifo", kust_build, (2,), named=f"badkust/{rel}", env=tools_env(), tool="kustomize"))

    def helmignore_build(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        chart(d)
        fifo(os.path.join(d, "badchart", ".helmignore"))
        return ["lint", "--format", "json", "good.yaml", "badchart"]
    out.append(Case("fz14-chart-helmignore-fifo", helmignore_build, (2,), named="badchart/.helmignore", env=tools_env(), tool="helm"))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz15
# $(VAR) expansions that grow without end, a JSON 6902 patch kustomize takes minutes over, a report onto a FIFO no
# process reads and onto /dev/stdout that is a pipe, a base commit holding a link to an absolute path.

def _env_doubling(n: int) -> str:
    env = 'env: [{name: E0, value: "xxxxxxxx"}, ' + ", ".join(f'{{name: E{i}, value: "$(E{i - 1})$(E{i - 1})"}}' for i in range(1, n)) + "]"
    return good().replace("resources:", env + "\n          resources:")


def fuzz15_cases() -> list[Case]:
    out: list[Case] = [
        file_case("fz15-env-doubling", _env_doubling(40)),
        file_case("fz15-args-repeating", _env_doubling(14).replace('--max-model-len, "8192"', '--max-model-len, "' + "$(E13)" * 3 + '"')),
    ]

    def json6902(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", KUST_BASE + "patchesJson6902:\n  - path: p.json\n    target: {kind: Deployment}\n")
        write(d, "badkust/deployment.yaml", good("kust"))
        write(d, "badkust/p.json", json.dumps([{"op": "add", "path": f"/metadata/labels/l{i}", "value": "x"} for i in range(20000)]))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz15-kustomize-json6902-20000-ops", json6902, (2,), named="badkust/kustomization.yaml", env=tools_env(), tool="kustomize"))
    for flag in ("--output", "--create-baseline"):
        def fifo_out(d: str, flag: str = flag) -> list[str]:
            write(d, "good.yaml", good("good"))
            fifo(os.path.join(d, "r.json"))
            return ["lint", "--format", "json", flag, "r.json", "good.yaml"]
        out.append(Case(f"fz15-{flag[2:]}-fifo-unread", fifo_out, (2,), named="r.json: "))
    out.append(Case("fz15-format-dev-stdout-pipe", with_good(lambda d: None, ["lint", "--format", "json=/dev/stdout", "good.yaml"]),
                    (0,), named=None, parse_out="-"))

    def diff_abs_link(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        os.symlink("/dev/zero", os.path.join(d, "bad.yaml"))
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=d, check=True)
        subprocess.run([*git, "add", "-A"], cwd=d, check=True)
        subprocess.run([*git, "commit", "-qm", "base"], cwd=d, check=True)
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz15-diff-base-link-absolute", diff_abs_link, (2,), named="bad.yaml"))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz16
# kustomize handed a mapping of 20,000 keys or 4,000 objects (bounded before it runs), a nodeSelector value that is a
# mapping, an empty docs path, plan's --gpu given twice, an Argo CD Application whose path leads out of its repository.

def fuzz16_cases() -> list[Case]:
    out: list[Case] = []

    def wide(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", KUST_BASE + "  - wide.yaml\n")
        write(d, "badkust/deployment.yaml", good("kust"))
        write(d, "badkust/wide.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: wide\n  labels:\n"
              + "".join(f"    l{i}: v\n" for i in range(20000)))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz16-kustomize-20000-labels", wide, (2,), named="badkust/wide.yaml", env=tools_env(), tool="kustomize"))

    def many(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", KUST_BASE + "  - cms.yaml\n")
        write(d, "badkust/deployment.yaml", good("kust"))
        write(d, "badkust/cms.yaml", "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"
                                             for i in range(4000)))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz16-kustomize-4000-objects", many, (2,), named="badkust/kustomization.yaml", env=tools_env(), tool="kustomize"))
    out.append(file_case("fz16-node-selector-value-mapping", field_set(
        "nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}",
        "nodeSelector: {node.kubernetes.io/instance-type: {x: g6e.xlarge}}")))
    out.append(Case("fz16-docs-readme-empty", argv_of(["docs", "--readme", ""]), (2,), named="--readme"))
    out.append(Case("fz16-plan-gpu-twice", argv_of(["plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                                                    "--gpu", "L4"]), (2,), named="--gpu"))

    def argo_escape(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "charts/vllm/Chart.yaml", "apiVersion: v2\nname: vllm\nversion: 0.1.0\n")
        write(d, "apps/bad.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: bad, namespace: "
              "argocd}\nspec:\n  source:\n    repoURL: https://github.com/acme/llm.git\n    path: ../../../../etc\n"
              "  destination: {namespace: llm}\n")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=d, check=True)
        subprocess.run([*git, "remote", "add", "origin", "https://github.com/acme/llm.git"], cwd=d, check=True)
        return ["lint", "--format", "json", "."]
    out.append(Case("fz16-argo-path-outside-root", argo_escape, (2,), named="apps/bad.yaml"))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz17
# kustomize handed 600,600 YAML nodes within its object and width bounds (the node bound), progress asked for with a
# JSON report on stdout.

def fuzz17_cases() -> list[Case]:
    out: list[Case] = []

    def nodes(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", KUST_BASE + "".join(f"  - cm{f}.yaml\n" for f in range(6)))
        write(d, "badkust/deployment.yaml", good("kust"))
        for f in range(6):
            write(d, f"badkust/cm{f}.yaml", "".join(
                f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{10 * f + i}\ndata:\n"
                + "".join(f"  k{k}: v\n" for k in range(5000)) for i in range(10)))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz17-kustomize-600600-nodes", nodes, (2,), named="badkust/cm4.yaml", env=tools_env(), tool="kustomize"))

    def progress(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "bad.yaml", good())
        return ["lint", "--progress", "--format", "json", "."]
    out.append(Case("fz17-progress-json-on-stdout", progress, (0,), named=None, same_as_plain=True))
    return out


# ------------------------------------------------------------------------------------------------------------ fuzz20
# A file named ``-`` (standard input to every reader), charts whose templates loop (helm builds the whole output in
# memory), a chart holding a link out of the repository (helm follows it), a kustomization whose remote base has a
# folder of its name or is written ``github.com:org/repo`` (kustomize clones before it looks for the folder), a remote
# file a kustomization names (kustomize downloads it), and shapes that were already refused, recorded: a sparse
# 1 GiB file, a gzip and a zip named .yaml, links to ``/``, ``/proc/self/fd`` and a block device, a million aliases
# and a million anchors, a 31 MiB line, a folder whose name is not UTF-8, a template that includes itself; a
# shardwise.toml nested 3,000 deep (was an internal RecursionError); 260 Argo CD Applications naming one chart (250
# rendered, the bound); a UTF-16 kustomization naming a FIFO (was not checked, and kustomize opened the FIFO).

def fuzz21_cases() -> list[Case]:
    """fuzz21's classes: a preview's masked secrets, a byte order mark inside the text, a pipeline of absurdly many
    stages, and Lists nested in Lists."""
    g = good()
    out: list[Case] = []

    def preview_secret(path: tuple[str | int, ...]) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            step = json.loads(json.dumps(PREVIEW_DEP))
            node = step["newState"]["inputs"]
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = "[secret]"
            write(d, "preview.json", json.dumps({"steps": [step]}, indent=1))
            return ["lint", "--format", "json", "good.yaml", "preview.json"]
        return build
    container = ("spec", "template", "spec", "containers", 0)
    for name, path in [("container", container), ("env", (*container, "env")), ("args-word", (*container, "args", 2)),
                       ("security-context", (*container, "securityContext")), ("pod-spec", ("spec", "template", "spec"))]:
        out.append(Case(f"fz21-preview-secret-{name}", preview_secret(path), (1,), named="preview.json"))
    out.append(file_case("fz21-bom-line-start", g.replace("  replicas: 2\n", "\ufeff  replicas: 2\n"), named="U+FEFF"))
    out.append(file_case("fz21-bom-after-colon", g.replace("replicas: 2", "replicas:\ufeff 2"), named="U+FEFF"))
    for stages in ("32768", "2147483647"):
        out.append(file_case(f"fz21-pipeline-{stages}-stages", field_set(
            "--max-model-len,", f'--pipeline-parallel-size, "{stages}", --max-model-len,'), rc=(1,), named="bad.yaml"))
    # kubectl flattens a List inside a List (kubernetes/cli-runtime pkg/resource/visitor.go, FlattenListVisitor: its
    # itemsToProcess): the Deployment as written alone
    inner = {"apiVersion": "v1", "kind": "List", "items": [json.loads(json.dumps(PREVIEW_DEP))["newState"]["inputs"]]}
    out.append(file_case("fz21-list-in-list", json.dumps({"apiVersion": "v1", "kind": "List", "items": [inner]}, indent=1),
                         rc=(0,), same_as_plain=True))
    return out


def _chain(d: str, depth: int, data: str) -> str:
    """``data`` as ``bad.yaml`` at the bottom of ``d/d/d/...``, ``depth`` folders: made relative to each folder's
    descriptor, so past PATH_MAX. Returns ``d``."""
    fd = os.open(d, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
        out = os.open("bad.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, data.encode())
        os.close(out)
    finally:
        os.close(fd)
    return d


def _grower(rel: str, head: str, filler: bytes, upto: int) -> Callable[[str], object]:
    """A file that grows while it is read: ``head``, then ``filler`` appended by a thread until the file holds
    ``upto`` bytes (the writer stops on its own)."""
    import threading

    def build(d: str) -> None:
        path = write(d, rel, head)

        def grow() -> None:
            with open(path, "ab") as f:
                while f.tell() < upto:
                    f.write(filler)
                    f.flush()
        threading.Thread(target=grow, daemon=True).start()
    return build


def fuzz22_cases() -> list[Case]:
    """fuzz22: hostile repositories through ``lint PATH``, ``lint -`` and ``diff``: device nodes, a file that grows
    while read, a 2 GiB sparse file, a chain of 10,000 folders, kustomizations that include themselves, ignore files
    with odd globs, a closed standard input, and a base commit holding what no checkout can."""
    out: list[Case] = []
    lj = ["lint", "--format", "json"]
    out.append(Case("fz22-char-device-node", with_good(lambda d: os.mknod(os.path.join(d, "bad.yaml"), 0o600 | 0o020000, os.makedev(1, 5))),
                    (2,), root_needed=True))
    out.append(Case("fz22-block-device-node", with_good(lambda d: os.mknod(os.path.join(d, "bad.yaml"), 0o600 | 0o060000, os.makedev(7, 0))),
                    (2,), root_needed=True))

    def sparse(d: str) -> None:
        with open(os.path.join(d, "bad.yaml"), "wb") as f:
            f.truncate((1 << 31) + 1)
    out.append(Case("fz22-sparse-2gib-plus-1", with_good(sparse), (2,)))
    # read while it grows: past the limit already (refused however far it has grown), or a Deployment followed by
    # comments that stay under it (read as the Deployment, however far it has grown)
    out.append(Case("fz22-file-growing-over-limit", with_good(_grower("bad.yaml", "# x\n" * (33 << 18), b"# y\n" * (1 << 18), 96 << 20)), (2,)))
    out.append(Case("fz22-file-growing-under-limit", with_good(_grower("bad.yaml", good(), b"# y\n" * (1 << 16), 8 << 20)), (0,),
                    named=None, same_as_plain=True))
    # the error names the folder where the path passes PATH_MAX ("cannot read directory: File name too long"): its
    # 4,000 characters of d/d/... are all of what a case keeps of it
    chain = "d/" * 100
    out.append(Case("fz22-folder-chain-10000", with_good(lambda d: _chain(d, 10_000, good("deep"))), (2,), named=chain))
    out.append(Case("fz22-folder-chain-10000-named", lambda d: (write(d, "good.yaml", good("good")), _chain(d, 10_000, good("deep")),
                                                                [*lj, "good.yaml", "d"])[2], (2,), named=chain))
    out.append(kust_case("fz22-kustomize-includes-itself", KUST_BASE + "  - .\n", named="badkust/kustomization.yaml"))
    out.append(kust_case("fz22-kustomize-includes-its-includer", KUST_BASE + "  - ../other\n", named="badkust/kustomization.yaml",
                         extra={"other/kustomization.yaml": "resources:\n  - ../badkust\n"}))
    odd = ("[\n\\\n!\n" + "**/" * 2000 + "x\n" + "*a" * 200 + "b\n[z-a]\n[!]\n[]]\n" + "a" * 100_000 + "\n")
    out.append(Case("fz22-shardwiseignore-odd-globs", with_good(lambda d: (write(d, ".shardwiseignore", odd), write(d, "a" * 200 + ".yaml", good("aaa")))),
                    (2,), named=".shardwiseignore"))
    out.append(Case("fz22-stdin-closed", lambda d: (write(d, "good.yaml", good("good")), [*lj, "-", "good.yaml"])[1], (2,),
                    named="standard input is closed",
                    env={"FZ22_CLOSE_STDIN": "1"}))

    # diff: what the working tree holds, and what a base commit holds that no checkout can
    def diff_fifo(d: str) -> list[str]:
        repo(d, {"good.yaml": good("good")})
        fifo(os.path.join(d, "bad.yaml"))
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz22-diff-fifo-in-working-tree", diff_fifo, (2,), named="bad.yaml"))

    def diff_loop(d: str) -> list[str]:
        repo(d, {"good.yaml": good("good")})
        symlink("b.yaml", os.path.join(d, "a.yaml"))
        symlink("a.yaml", os.path.join(d, "b.yaml"))
        git(d, "add", "-A")
        git(d, "commit", "-q", "-m", "loop")
        return ["diff", "--format", "json", "HEAD~1"]
    out.append(Case("fz22-diff-link-loop-committed", diff_loop, (2,), named="a.yaml"))

    def diff_big(d: str) -> list[str]:
        repo(d, {"good.yaml": good("good")})
        with open(os.path.join(d, "big.yaml"), "wb") as f:
            f.truncate(40 << 20)
        git(d, "add", "-A")
        git(d, "commit", "-q", "-m", "big")
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz22-diff-base-file-over-32mib", diff_big, (2,), named="big.yaml"))

    def diff_chain(d: str) -> list[str]:  # written with fast-import: git stores it, no checkout can
        repo(d, {"good.yaml": good("good")})
        text = good("deep").encode()
        stream = (b"commit refs/heads/deep\ncommitter t <t@t> 0 +0000\ndata 4\ndeep\nfrom HEAD\n"
                  + f"M 100644 inline {'d/' * 3000}bad.yaml\ndata {len(text)}\n".encode() + text + b"\n")
        subprocess.run(["git", "fast-import", "--quiet"], cwd=d, input=stream, check=True, capture_output=True)
        return ["diff", "--format", "json", "deep", "good.yaml"]
    out.append(Case("fz22-diff-base-chain-3000", diff_chain, (0,), named=None))

    def diff_gitignore(d: str) -> list[str]:  # git's own wildmatch takes minutes on it: no git call here may read it
        repo(d, {"good.yaml": good("good"), "a" * 200 + ".yaml": good("aaa")})
        write(d, ".gitignore", "*a" * 200 + "b\n" + "**/" * 2000 + "x\n[\n")
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz22-diff-gitignore-backtracking", diff_gitignore, (0,), named=None))

    def diff_export_ignore(d: str) -> list[str]:  # git archive left these out of the base: all read as added
        repo(d, {"good.yaml": good("good"), ".gitattributes": "*.yaml export-ignore\n"})
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz22-diff-export-ignore", diff_export_ignore, (0,), named=None))
    return out



def _stack_export(d: str, edit: Callable[[dict], object], nest: str = "") -> list[str]:
    """``bad.json``, a ``pulumi stack export`` of the Deployment and a component resource, edited; ``nest`` replaces
    the string ``NEST`` where an edit put it (a nesting too deep for ``json.dumps`` to write)."""
    def both(doc: dict) -> None:
        res = doc["deployment"]["resources"]
        res.append({"urn": "urn:pulumi:dev::p::acme:index:Serving::llm", "type": "acme:index:Serving", "custom": False})
        edit(doc)
    write(d, "good.yaml", good("good"))
    write(d, "bad.json", state(both).replace('"NEST"', nest))
    return ["lint", "--format", "json", "."]


def _cycle(doc: dict) -> None:
    dep, comp = doc["deployment"]["resources"]
    dep["parent"], comp["parent"] = comp["urn"], dep["urn"]
    dep["dependencies"], comp["dependencies"] = [comp["urn"]], [dep["urn"]]
    dep["propertyDependencies"] = {"spec": [comp["urn"], dep["urn"]]}


def _self_parent(doc: dict) -> None:
    dep = doc["deployment"]["resources"][0]
    dep["parent"], dep["dependencies"] = dep["urn"], [dep["urn"]]


def fuzz23_cases() -> list[Case]:
    """fuzz23: anchors and aliases that expand without end inside a Helm values file and a kustomization being built,
    a chart naming itself as its dependency, kustomization resources that lead out of the repository (``../..``), a
    values file of 50 MB, a ``.git`` file (a worktree's link) pointing nowhere for ``diff``, 20,000 YAML files in one
    folder, a stack export whose resources form a cycle or nest a million levels deep, and a stack config that is not
    UTF-8. Every one ends, fails closed and says why (or, valid, is read as it is)."""
    out: list[Case] = []
    lj = ["lint", "--format", "json"]
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    # ------------------------------------------------ alias bombs where helm and kustomize read them
    out.append(chart_case("fz23-values-file-alias-bomb", values_file="replicas: 2\n" + laughs, named="bad-values.yaml"))
    out.append(chart_case("fz23-chart-values-alias-bomb", values="replicas: 2\n" + laughs, named="badchart/values.yaml"))
    out.append(kust_case("fz23-kustomization-alias-bomb", KUST_BASE + laughs, named="badkust/kustomization.yaml"))
    # kustomize reads the resource first and stops at its memory bound (1 GiB); the file is refused as well
    out.append(kust_case("fz23-kust-resource-alias-bomb", KUST_BASE + "  - bomb.yaml\n", named="badkust/bomb.yaml",
                         extra={"badkust/bomb.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  "
                                + laughs.replace("\n", "\n  ")}))
    # ------------------------------------------------ a chart that is its own dependency
    self_dep = "apiVersion: v2\nname: badchart\nversion: 0.1.0\ndependencies:\n  - name: badchart\n    version: 0.1.0\n    repository: file://.\n"
    out.append(chart_case("fz23-chart-depends-on-itself", chart_yaml=self_dep, named="badchart/Chart.yaml"))

    def self_dep_linked(d: str) -> list[str]:  # charts/badchart -> ..: the dependency there, the chart inside itself
        write(d, "good.yaml", good("good"))
        chart(d, chart_yaml=self_dep)
        os.makedirs(os.path.join(d, "badchart", "charts"))
        os.symlink("..", os.path.join(d, "badchart", "charts", "badchart"))
        return [*lj, "good.yaml", "badchart"]
    out.append(Case("fz23-chart-depends-on-itself-linked", self_dep_linked, (2,), named="badchart/Chart.yaml",
                    env=tools_env(), tool="helm"))
    # ------------------------------------------------ kustomization resources out of the repository
    def kust_out(entry: str) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:  # the repository in repo/: `../..` from its kustomization is the case's folder
            write(d, "repo/good.yaml", good("good"))
            write(d, "repo/badkust/kustomization.yaml", KUST_BASE + f"  - {entry}\n")
            write(d, "repo/badkust/deployment.yaml", good("kust"))
            write(d, "kustomization.yaml", KUST_BASE.replace("deployment.yaml", "repo/good.yaml"))
            return [*lj, "good.yaml", "badkust"]
        return build
    out.append(Case("fz23-kust-resources-dotdot", kust_out("../.."), (2,), named="badkust/kustomization.yaml",
                    cwd_sub="repo", env=tools_env(), tool="kustomize"))
    out.append(Case("fz23-kust-resources-dotdot-etc", kust_out("../" * 40 + "etc/passwd"), (2,), named="/etc/passwd",
                    cwd_sub="repo", env=tools_env(), tool="kustomize"))
    out.append(Case("fz23-kust-resources-url-file", kust_out("https://raw.githubusercontent.com/acme/platform/main/vllm.yaml"), (2,),
                    named="not fetched", cwd_sub="repo", env=tools_env(), tool="kustomize"))
    # ------------------------------------------------ a values file of 50 MB, and a chart's own values.yaml of 50 MB
    out.append(chart_case("fz23-values-file-50mb", values_file="replicas: 2\nnote: " + "x" * (50 << 20) + "\n", named="bad-values.yaml"))
    out.append(chart_case("fz23-chart-values-50mb", values="replicas: 2\n" + "".join(f"k{i:08d}: {'v' * 40}\n" for i in range(1_000_000)),
                          named="badchart"))
    # ------------------------------------------------ a .git file (a worktree's link) pointing nowhere
    def git_file(target: str | bytes, cmd: str = "diff") -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, ".git", target)
            return ["diff", "--format", "json", "HEAD"] if cmd == "diff" else [*lj, "."]
        return build
    out.append(Case("fz23-diff-git-file-nowhere", git_file("gitdir: /nonexistent/.git/worktrees/gone\n"), (2,), named="not a git repository"))
    out.append(Case("fz23-diff-git-file-relative-nowhere", git_file("gitdir: ../main/.git/worktrees/gone\n"), (2,), named="not a git repository"))
    out.append(Case("fz23-diff-git-file-garbage", git_file(b"\xff\xfe not a gitdir line\n"), (2,), named="invalid gitfile format"))
    out.append(Case("fz23-lint-beside-git-file-nowhere", git_file("gitdir: /nonexistent/.git/worktrees/gone\n", "lint"), (0,), named=None))

    def nested_git_file(d: str) -> list[str]:  # a stale nested worktree: git reads sub/ as plain files, so does lint
        repo(d, {"good.yaml": good("good")})
        write(d, "sub/.git", "gitdir: /nonexistent/.git/worktrees/gone\n")
        write(d, "sub/bad.yaml", BLOCKING)
        return ["diff", "--format", "json", "HEAD"]
    out.append(Case("fz23-diff-nested-git-file-nowhere", nested_git_file, (0,), named="SW101", stdout_said=True))
    # ------------------------------------------------ 20,000 YAML files in one folder, with progress
    def one_folder(d: str) -> None:
        for i in range(20_000):
            write(d, f"svc/s{i:05d}.yaml", f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: web}}\nspec:\n  selector: {{app: s{i}}}\n  ports: [{{port: 80}}]\n")
    out.append(Case("fz23-20000-files-one-folder", with_good(one_folder, [*lj, "--progress", "."]), (0,), named=None, cpu_s=300.0))
    # ------------------------------------------------ a stack export: a cycle of parents and dependencies, deep nesting
    out.append(Case("fz23-stack-export-parent-cycle", lambda d: _stack_export(d, _cycle), (0,), named=None))
    out.append(Case("fz23-stack-export-parent-is-itself", lambda d: _stack_export(d, _self_parent), (0,), named=None))
    out.append(Case("fz23-stack-export-lists-1e6-deep", lambda d: _stack_export(d, setp(("deployment", "resources", 0, "outputs", "spec", "x"), "NEST"),
                                                                                "[" * 1_000_000 + "]" * 1_000_000), (2,), named="bad.json"))
    out.append(Case("fz23-stack-export-objects-1e6-deep", lambda d: _stack_export(d, setp(("deployment", "resources", 0, "inputs", "spec", "x"), "NEST"),
                                                                                  '{"a":' * 1_000_000 + "1" + "}" * 1_000_000), (2,), named="bad.json"))
    # ------------------------------------------------ a stack config that is not UTF-8
    def stack_config(data: bytes) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "Pulumi.yaml", "name: p\nruntime: python\n")
            write(d, "Pulumi.prod.yaml", data)
            return [*lj, "."]
        return build
    out.append(Case("fz23-stack-config-latin1-value", stack_config(b"config:\n  aws:region: us-east-1\n  p:team: \xe9quipe\n"), (2,), named="Pulumi.prod.yaml"))
    out.append(Case("fz23-stack-config-latin1-comment", stack_config(b"# r\xe9glages\nconfig:\n  aws:region: us-east-1\n"), (2,), named="Pulumi.prod.yaml"))
    out.append(Case("fz23-stack-config-utf16", stack_config(b"\xff\xfe" + "config:\n  aws:region: us-east-1\n".encode("utf-16-le")), (2,), named="Pulumi.prod.yaml"))
    out.append(Case("fz23-stack-config-cp1252-quote", stack_config(b"config:\n  p:note: \x93prod\x94\n"), (2,), named="Pulumi.prod.yaml"))
    return out

def fuzz24_cases() -> list[Case]:
    """fuzz24: what helm and kustomize read is read through shardwise's own reader first (an alias bomb in a file a
    kustomization patches with, a 2 GiB sparse file or a socket among its resources, a chart template of 2 GiB), and a
    shell command that opens 100,000 here-documents. Every one ends, fails closed and says why, at once, before helm or
    kustomize runs. (A kustomization that names itself, a cycle of bases and a directory named ``*.yaml`` among its
    resources end at once in kustomize's own words: fz22-kustomize-includes-itself, h9-kust-resources-loop.)"""
    out: list[Case] = []
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    bomb = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: kust}\nx:\n  " + laughs.replace("\n", "\n  ")
    out.append(kust_case("fz24-kust-patch-alias-bomb", KUST_BASE + "patches:\n  - path: bomb.yaml\n",
                         named="badkust/kustomization.yaml", extra={"badkust/bomb.yaml": bomb}))
    out.append(kust_case("fz24-kust-strategic-merge-alias-bomb", KUST_BASE + "patchesStrategicMerge:\n  - bomb.yaml\n",
                         named="badkust/kustomization.yaml", extra={"badkust/bomb.yaml": bomb}))

    def sparse(rel: str, size: int = 2 << 30) -> Callable[[str], object]:
        def make(d: str) -> None:
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "wb") as f:
                f.truncate(size)
        return make

    def kust_with(entry: str, make: Callable[[str], object]) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "badkust/kustomization.yaml", KUST_BASE + f"  - {entry}\n")
            write(d, "badkust/deployment.yaml", good("kust"))
            make(d)
            return ["lint", "--format", "json", "good.yaml", "badkust"]
        return build

    def sock(d: str) -> None:  # bound, then closed: the socket file stays, nothing listens on it
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(os.path.join(d, "badkust", "sock.yaml"))
    out.append(Case("fz24-kust-resource-sparse-2gib", kust_with("big.yaml", sparse("badkust/big.yaml")), (2,),
                    named="badkust/big.yaml", env=tools_env(), tool="kustomize"))
    out.append(Case("fz24-kust-resource-socket", kust_with("sock.yaml", sock), (2,), named="badkust/sock.yaml",
                    env=tools_env(), tool="kustomize"))
    def chart_template_sparse(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        chart(d)
        sparse("badchart/templates/big.yaml")(d)
        return ["lint", "--format", "json", "good.yaml", "badchart"]
    out.append(Case("fz24-chart-template-sparse-2gib", chart_template_sparse, (2,), named="badchart/templates/big.yaml",
                    env=tools_env(), tool="helm"))
    crowded = "#!/bin/sh\nkubectl apply -f - " + "<<E " * 100_000 + "\n" + "E\n" * 100_000
    out.append(file_case("fz24-heredoc-100k-operators-one-command", crowded, rel="deploy.sh", named="deploy.sh"))
    out.append(file_case("fz24-heredoc-never-closed-1e5-lines", "#!/bin/sh\nkubectl apply -f - <<EOF\n" + good("bad")
                         + "EOFX\n" * 100_000, rel="deploy.sh", named="deploy.sh"))
    # review45: hostile18's ConfigMap of 2,450,000 keys (31.65 MiB) took 18.9 s of CPU and 1.1 GB and passed; its data
    # is over the API server's 1 MiB: an input error from its text, before any parse (a Secret's base64 as well)
    out.append(file_case("rv45-configmap-2450000-keys", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n"
                         + "".join(f"  k{i}: v\n" for i in range(2_450_000)), named="bad.yaml"))
    out.append(file_case("rv45-secret-base64-over-1mib", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: blob\ndata:\n"
                         "  blob: " + "QUFB" * 400_000 + "\n", named="bad.yaml"))
    return out


def _tgz(entries: Sequence[tuple[str, bytes | None, bytes]], gz: bool = True) -> bytes:
    """A chart archive: each entry (name, data or None, tar type: tarfile.REGTYPE, SYMTYPE, FIFOTYPE...)."""
    import gzip
    import io
    import tarfile
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w") as tar:
        for name, data, kind in entries:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = "/etc/passwd"
            info.size = len(data or b"")
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(bio.getvalue(), mtime=0) if gz else bio.getvalue()


def fuzz25_cases() -> list[Case]:
    """fuzz25: packed subcharts an attacker hands helm (``charts/sub.tgz``: a gzip bomb, an archive truncated or not
    gzip, entries out of the chart, links, FIFOs, archives nested 50 deep) and a subchart folder's broken values.yaml.
    Each ends at once in helm's words or shardwise's, placed at the subchart's file or archive, never at the chart's
    own values.yaml (which the report named, though it may not exist); a link or FIFO entry is read by helm as an empty
    file (pkg/chart/loader/archive.go copies the entry's data, and a link has none), as the cluster would see it."""
    import tarfile
    import zlib
    out: list[Case] = []
    reg = tarfile.REGTYPE
    sub = ("sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 0.1.0\n", reg)
    laughs = ("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))).encode()
    packed = "badchart/charts/sub.tgz"

    def packed_case(name: str, archive: bytes, rc: tuple[int, ...] = (2,), named: str | None = packed) -> Case:
        return chart_case(name, rc=rc, named=named, extra={"charts/sub.tgz": archive})  # type: ignore[dict-item]
    out.append(chart_case("fz25-subchart-folder-values-broken", named="badchart/charts/sub/values.yaml:2:", extra={
        "charts/sub/Chart.yaml": sub[1].decode(), "charts/sub/values.yaml": "a: 1\nb: [unclosed\n"}))
    inner = _tgz([("in/Chart.yaml", b"apiVersion: v2\nname: in\nversion: 0.1.0\n", reg), ("in/values.yaml", laughs, reg)])
    out.append(packed_case("fz25-packed-nested-values-alias-bomb", _tgz([sub, ("sub/charts/in.tgz", inner, reg)])))
    nest = _tgz([sub, ("sub/values.yaml", b"a: [\n", reg)])
    for i in range(50):
        nest = _tgz([(f"n{i}/Chart.yaml", f"apiVersion: v2\nname: n{i}\nversion: 0.1.0\n".encode(), reg),
                     (f"n{i}/charts/c.tgz", nest, reg)])
    out.append(packed_case("fz25-packed-nested-50-deep", nest))
    zeros = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join(zeros.compress(bytes(1 << 20)) for _ in range(1024)) + zeros.flush()  # 1 GiB of zeros, 1 MiB
    out.append(packed_case("fz25-packed-gzip-bomb-1gib", bomb))
    whole = _tgz([sub, ("sub/values.yaml", b"a: 1\n", reg)])
    out.append(packed_case("fz25-packed-truncated-gzip", whole[: len(whole) // 2]))
    out.append(packed_case("fz25-packed-not-gzip", b"PK\x03\x04" + bytes(200)))
    out.append(packed_case("fz25-packed-entry-dotdot", _tgz([sub, ("sub/../../evil.yaml", b"a: 1\n", reg)])))
    out.append(packed_case("fz25-packed-entry-double-slash", _tgz([sub, ("sub//values.yaml", b"a: 1\n", reg)])))
    for kind, typ in (("symlink", tarfile.SYMTYPE), ("hardlink", tarfile.LNKTYPE), ("fifo", tarfile.FIFOTYPE),
                      ("chardev", tarfile.CHRTYPE)):
        out.append(packed_case(f"fz25-packed-{kind}-entry-values", _tgz([sub, ("sub/values.yaml", None, typ)]), rc=(0,),
                               named=None))
    # kustomize's selector patterns are RE2 (linear); shardwise matches them with Python's backtracking re to place
    # findings (origins.py) and to tell a generated ConfigMap an overlay patches (generated.py): each of these hung
    # the run (> 30 s) before fuzz25
    long_name = "a" * 100_000
    patch = "patches:\n  - target: {kind: Deployment, name: 'PAT'}\n    patch: |-\n      - op: replace\n" \
            "        path: /spec/replicas\n        value: 3\n"
    for tag, pat, name in (("two-stars-100k-name", ".*.*x", long_name), ("classes-100k-name", "[a-z]*[a-z]*[0-9]", long_name),
                           ("30-optionals", "a?" * 30 + "a" * 30, "a" * 30)):
        # fuzz26: a name of 100,000 characters is refused as the API server refuses it (over 253), so those two
        # cases end in that input error, still without a hang
        long = len(name) > 253
        out.append(kust_case(f"fz25-kust-patch-target-{tag}", KUST_BASE + patch.replace("PAT", pat), rc=(2,) if long else (0,),
                             named="metadata.name: 100,000 characters" if long else None,
                             extra={"badkust/deployment.yaml": good(name)}))
    repl = ("replacements:\n  - source: {kind: Deployment, name: NAME, fieldPath: spec.replicas}\n    targets:\n"
            "      - select: {kind: Deployment, name: '.*.*x'}\n        fieldPaths: [spec.template.spec.containers.0.name]\n")
    out.append(kust_case("fz25-kust-replacement-select-two-stars-100k-name", KUST_BASE + repl.replace("NAME", long_name),
                         rc=(2,), named="metadata.name: 100,000 characters", extra={"badkust/deployment.yaml": good(long_name)}))
    gen_name = "a" * 32 + "!"
    reader = good("kust").replace("          resources:", f"          envFrom: [{{configMapRef: {{name: '{gen_name}'}}}}]\n"
                                   "          resources:")
    out.append(kust_case("fz25-kust-not-built-generator-nested-quantifier", KUST_BASE + "  - missing.yaml\n"
                         f"configMapGenerator:\n  - name: '{gen_name}'\n    literals: [x=1]\n"
                         "patches:\n  - target: {kind: ConfigMap, name: '(a+)+$'}\n    patch: |-\n      - op: add\n"
                         "        path: /data/y\n        value: '2'\n", named="badkust/kustomization.yaml",
                         extra={"badkust/deployment.yaml": reader}))
    # a path with ESC, BEL and a line break in kustomize's error: written escaped in the GitHub annotation, where the
    # runner's log would render the colour (\x1b[31m) and a terminal the title (\x1b]0;...\x07)
    def escaped(fmt: str) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            write(d, "badkust/kustomization.yaml", KUST_BASE + '  - "evil\\e[31mRED\\e]0;title\\a\\nshardwise: passed\\n.yaml"\n')
            write(d, "badkust/deployment.yaml", good("kust"))
            return ["lint", "--format", fmt, "good.yaml", "badkust"]
        return build
    # review45 refuses a ConfigMap over the API server's 1 MiB from its text; one that reaches it only once its
    # aliases expand (12 KiB on disk, 1.2 MiB to the API server) passed
    def aliased(n: int) -> str:
        return ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: anch}\ndata:\n  k0: &v " + "z" * 4096 + "\n"
                + "".join(f"  k{i}: *v\n" for i in range(1, n)))
    out.append(file_case("fz25-configmap-over-1mib-once-aliases-expand", aliased(300), named="bad.yaml:1: ConfigMap anch"))
    out.append(file_case("fz25-configmap-1mib-exactly-once-aliases-expand", aliased(256), rc=(0,), named=None))
    for fmt in ("github", "text"):
        out.append(Case(f"fz25-kust-error-path-escapes-{fmt}", escaped(fmt), (2,), named="badkust/kustomization.yaml",
                        env=tools_env(), tool="kustomize", stdout_said=True, no_raw_control=True))
    return out


def fuzz26_cases() -> list[Case]:
    """fuzz26: each known defect of the task, with a case that failed before its fix."""
    import tarfile
    out: list[Case] = []
    reg = tarfile.REGTYPE
    sub = ("sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 0.1.0\n", reg)
    # helm's crash under shardwise's memory limit in Go's other shapes (a signal in the runtime, the bare fatalsignal
    # dump, the out-of-memory line alone), played by a helm on PATH that writes it: fz20-chart-range-1e8 ends in one or
    # another by chance, and the message must name memory in each
    signal_crash = ("fatal error: unexpected signal during runtime execution\n[signal SIGSEGV: segmentation violation "
                    "code=0x1 addr=0x0 pc=0x46c2b5]\n\nruntime stack:\nruntime.throw({0x2a5f0b1?, 0x0?})\n"
                    "rax    0x0\nrip    0x46c2b5\ncs     0x33\nfs     0x0\ngs     0x0\n")
    bare = "SIGSEGV: segmentation violation\nPC=0x46c2b5 m=4 sigcode=1 addr=0x0\n\nrax    0x0\ncs     0x33\nfs     0x0\n"
    for tag, text in (("signal-in-runtime", signal_crash), ("fatalsignal-bare", bare),
                      ("runtime-out-of-memory-no-fatal", "runtime: out of memory: cannot allocate 8192-byte block (3932160 in use)\n")):
        def fake_helm(d: str, text: str = text) -> list[str]:
            write(d, "good.yaml", good("good"))
            chart(d)
            write(d, "fakebin/helm", "#!/bin/sh\ncat >&2 <<'EOF'\n" + text + "EOF\nexit 2\n")
            os.chmod(os.path.join(d, "fakebin/helm"), 0o755)
            return ["lint", "--format", "json", "good.yaml", "badchart"]
        out.append(Case(f"fz26-helm-crash-{tag}", fake_helm, (2,), named="out of memory: shardwise lets helm and kustomize use",
                        env={"PATH": "fakebin" + os.pathsep + "/usr/bin" + os.pathsep + "/bin"}))
    # a kustomize error whose path holds line breaks: said whole, its start kept, each break escaped

    def newline_path(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", KUST_BASE + '  - "evil\\nshardwise: passed\\n.yaml"\n')
        write(d, "badkust/deployment.yaml", good("kust"))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz26-kust-error-path-newline-keeps-start", newline_path, (2,),
                    named="accumulating resources from 'evil\\nshardwise: passed\\n.yaml'", env=tools_env(), tool="kustomize"))
    # an alias bomb at a name helm cleans to the packed subchart's values.yaml: refused by shardwise's reader, as at
    # sub/values.yaml (helm's own words, "excessive aliasing", were all that was said)
    laughs = ("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))).encode()
    for tag, entry in (("dot-segment", "sub/./values.yaml"), ("dot-first", "./values.yaml"),
                       ("dotdot-inside", "sub/x/../values.yaml")):
        bomb = _tgz([sub, (entry, laughs, reg)])
        out.append(chart_case(f"fz26-packed-alias-bomb-{tag}", named=f"{entry} in this packed subchart: cannot parse YAML", extra={"charts/sub.tgz": bomb}))  # type: ignore[dict-item]
    # a packed subchart of 100,000 tiny templates (8.6 s of CPU, and a pass) and a templates folder of 12,000
    many = _tgz([sub] + [(f"sub/templates/f{i}.yaml", b"a: 1\n", reg) for i in range(100_000)])
    out.append(chart_case("fz26-packed-100k-entries", named="more than 10,000 files", extra={"charts/sub.tgz": many}))  # type: ignore[dict-item]
    out.append(chart_case("fz26-chart-folder-12k-templates", named="more than 10,000 files",
                          extra={f"templates/t{i}.yaml": "a: 1\n" for i in range(12_000)}))
    # names longer than the API server takes for their kind
    long_name = "a" * 100_000
    out.append(file_case("fz26-name-100k-deployment", good(long_name), named="bad.yaml:4: metadata.name: 100,000 characters"))
    svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + "s" * 64 + "\nspec:\n  ports: [{port: 80}]\n"
    out.append(file_case("fz26-name-64-service", svc, named="bad.yaml:4: metadata.name: 64 characters"))
    crd = "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: " + "c" * 254 + "\n"
    out.append(file_case("fz26-name-254-custom-resource", crd, named="bad.yaml:4: metadata.name: 254 characters"))
    # a Secret over 1 MiB only once its stringData is merged into its data (600,000 bytes each, keys apart)
    secret = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: split\ndata:\n  a: " + "QUFB" * 200_000 + "\n"
              "stringData:\n  b: " + "z" * 600_000 + "\n")
    out.append(file_case("fz26-secret-data-and-stringdata-keys-apart", secret, named="bad.yaml:1: Secret split: its data holds 1,200,000 bytes once its stringData is merged"))
    # a ConfigMap over 1 MiB in flow style or JSON: counted from its text before any parse (it passed; 2,450,000 keys in
    # flow style took 5.8 s of CPU and 500 MB to parse before the count said anything)
    flow_keys = ", ".join(f"k{i}: v" for i in range(2_450_000))
    out.append(file_case("fz26-configmap-flow-2450000-keys", "{apiVersion: v1, kind: ConfigMap, metadata: {name: flow}, data: {"
                         + flow_keys + "}}\n", named="bad.yaml:1: ConfigMap flow: its data holds at least", cpu_s=4.0))
    out.append(file_case("fz26-configmap-block-with-flow-data-2450000-keys", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bf\ndata: {"
                         + flow_keys + "}\n", named="bad.yaml:5: ConfigMap bf: its data holds at least", cpu_s=4.0))
    out.append(file_case("fz26-configmap-json-1500000-keys", json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "js"},
                         "data": {f"k{i}": "v" for i in range(1_500_000)}}), rel="bad.json", named="bad.json:1: ConfigMap js: its data holds at least", cpu_s=4.0))
    return out


def fuzz20_cases() -> list[Case]:
    import gzip
    import io
    import zipfile

    out: list[Case] = []
    script = "#!/bin/sh\nset -e\nkubectl apply -f - <<EOF\n" + BLOCKING + "EOF\n"
    out.append(Case("fz20-file-named-dash-in-folder", with_good(lambda d: write(d, "-", script)), (1,), named="SW101"))
    out.append(Case("fz20-file-named-dash-named", lambda d: (write(d, "-", script), ["lint", "--format", "json", "./-"])[1],
                    (1,), named="SW101"))

    def sparse(d: str) -> None:
        with open(os.path.join(d, "bad.yaml"), "wb") as f:
            f.truncate(1 << 30)
    out.append(Case("fz20-sparse-1gib-file", with_good(sparse), (2,)))
    out.append(file_case("fz20-gzip-named-yaml", gzip.compress(b"\0" * (50 << 20), mtime=0)))
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("a.yaml", (1980, 1, 1, 0, 0, 0)), good("z") * 1000)
    out.append(file_case("fz20-zip-named-yaml", zbuf.getvalue()))
    def link_to(target: str, rel: str) -> Callable[[str], object]:
        return lambda d: os.symlink(target, os.path.join(d, rel))
    for tag, target in (("root", "/"), ("proc-self-fd", "/proc/self/fd"), ("proc-self-root", "/proc/self/root")):
        out.append(Case(f"fz20-link-to-{tag}-in-folder", with_good(link_to(target, "bad")), (0,), named="bad/"))
    out.append(Case("fz20-link-to-block-device", with_good(lambda d: os.symlink("/dev/loop0", os.path.join(d, "bad.yaml"))), (2,)))
    out.append(file_case("fz20-yaml-1m-aliases", "a: &a x\nb: [" + ", ".join(["*a"] * 1_000_000) + "]\n", rc=(0,), named="bad.yaml"))
    out.append(file_case("fz20-yaml-1m-anchors", "b:\n" + "".join(f"- &a{i} x\n" for i in range(1_000_000)), rc=(0,), named="bad.yaml"))
    out.append(Case("fz20-one-31mib-line", with_good(lambda d: write(d, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l}\ndata: {x: " + "y" * (31 << 20) + "}\n")),
                    (2,), named="ConfigMap l: its data holds"))  # fuzz26: over the API server's 1 MiB
    out.append(Case("fz20-folder-not-utf8-blocking", with_good(lambda d: write(d, os.fsdecode(b"sub\xff") + "/bad.yaml", BLOCKING)), (1,), named="SW101"))
    loop = CHART_TEMPLATE + '# {{ range until 100000000 }}xxxxxxxxxx{{ end }}\n'
    out.append(chart_case("fz20-chart-range-1e8", named="out of memory", template=loop))
    out.append(chart_case("fz20-chart-tpl-itself", named="out of memory", values="replicas: 2\nx: '{{ tpl .Values.x . }}'\n",
                          template=CHART_TEMPLATE + "# {{ tpl .Values.x . }}\n"))
    out.append(chart_case("fz20-chart-include-itself", named="badchart/templates/deployment.yaml:17",
                          template=CHART_TEMPLATE + '{{ define "x" }}{{ include "x" . }}{{ end }}{{ include "x" . }}\n'))

    def chart_link(target: str, rel: str) -> Callable[[str], list[str]]:
        def build(d: str) -> list[str]:
            write(d, "good.yaml", good("good"))
            chart(d)
            os.makedirs(os.path.dirname(os.path.join(d, "badchart", rel)), exist_ok=True)
            os.symlink(target, os.path.join(d, "badchart", rel))
            return ["lint", "--format", "json", "good.yaml", "badchart"]
        return build
    for tag, target, rel in (("template-to-etc-hostname", "/etc/hostname", "templates/host.yaml"),
                             ("templates-to-root", "/", "templates/root"), ("subchart-to-usr-share", "/usr/share", "charts/share")):
        out.append(Case(f"fz20-chart-link-{tag}", chart_link(target, rel), (2,), named=f"badchart/{rel}", env=tools_env(), tool="helm"))

    def beside(entry: str) -> dict[str, str]:
        return {f"badkust/{entry}/kustomization.yaml": "resources: [cm.yaml]\n",
                f"badkust/{entry}/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}
    out.append(kust_case("fz20-kust-remote-beside-its-folder", KUST_BASE + "  - github.com/acme/platform\n", named="remote base",
                         extra=beside("github.com/acme/platform")))
    out.append(kust_case("fz20-kust-remote-short-form", KUST_BASE + "  - github.com:acme/platform\n", named="remote base"))
    out.append(kust_case("fz20-kust-remote-generator-file", KUST_BASE + "configMapGenerator:\n  - name: meta\n    files: "
                         "[creds=http://169.254.169.254/latest/meta-data/iam/]\n", named="remote file"))
    out.append(Case("fz20-config-toml-nested", lambda d: (write(d, "good.yaml", good("good")), write(d, "shardwise.toml", "exclude = " + "[" * 3000 + "]" * 3000 + "\n"),
                                                          ["lint", "--format", "json", "good.yaml"])[2], (2,), named="shardwise.toml"))
    def argo_many(d: str) -> list[str]:
        write(d, "good.yaml", good("good"))
        chart(d)
        write(d, "apps/all.yaml", "".join(
            f"---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: app{i}, namespace: argocd}}\n"
            "spec:\n  source:\n    repoURL: https://github.com/acme/llm.git\n    path: badchart\n    targetRevision: main\n"
            f"  destination: {{namespace: llm{i}}}\n" for i in range(260)))
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=d, check=True)
        subprocess.run([*git, "remote", "add", "origin", "https://github.com/acme/llm.git"], cwd=d, check=True)
        return ["lint", "--format", "json", "good.yaml", "apps"]
    out.append(Case("fz20-gitops-260-applications", argo_many, (2,), named="apps/all.yaml", env=tools_env(), tool="helm",
                    cpu_s=90.0))
    def kust_utf16_fifo(d: str) -> list[str]:  # fuzz_mutate seed 20011 case 447: held kustomize until the timeout
        write(d, "good.yaml", good("good"))
        write(d, "badkust/kustomization.yaml", ("\ufeff" + KUST_BASE).encode("utf-16-le"))
        fifo(os.path.join(d, "badkust", "deployment.yaml"))
        return ["lint", "--format", "json", "good.yaml", "badkust"]
    out.append(Case("fz20-kust-utf16-fifo-resource", kust_utf16_fifo, (2,), named="badkust/deployment.yaml", env=tools_env(),
                    tool="kustomize"))
    out.append(kust_case("fz20-kust-remote-patch", KUST_BASE + "patches:\n  - path: https://example.com/gpu-patch.yaml\n"
                         "    target: {kind: Deployment}\n", named="remote file"))
    return out


def findings_of(report: dict) -> list[tuple]:
    return sorted((f.get("code"), f.get("level"), f.get("message")) for f in report.get("findings", []))


def plain_findings(d: str) -> list[tuple] | None:
    """The findings of good.yaml beside the good Deployment named bad: what a valid variant must give."""
    with tempfile.TemporaryDirectory() as p:
        write(p, "good.yaml", good("good"))
        write(p, "bad.yaml", good())
        r = subprocess.run([EXE, "lint", "--format", "json", "."], cwd=p, capture_output=True, timeout=DEADLINE_S)
        return findings_of(json.loads(r.stdout))


def report_invalid(out: str | bytes) -> str:
    """What is wrong with a JSON or SARIF report (the bytes of stdout, or a file's path): not UTF-8, not JSON, a
    lone surrogate that stands for no byte of a file name, a SARIF log without its version; "" when
    none of these."""
    if isinstance(out, str):
        try:
            with open(out, "rb") as f:
                out = f.read()
        except OSError as e:
            return f"the report was not written ({e.strerror})"
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"the report is not UTF-8 ({e.reason} at byte {e.start})"
    try:
        doc = json.loads(text)
    except ValueError as e:
        return f"the report is not JSON ({str(e)[:80]})"
    # a lone surrogate escape stands for a byte of a file name that is not UTF-8 (U+DC80-U+DCFF, surrogateescape:
    # formats.utf8_text, by design, so os.fsencode gets the bytes back); any other is no character
    if re.search("[\ud800-\udc7f\udd00-\udfff]", json.dumps(doc, ensure_ascii=False)):
        return "the report holds a lone surrogate that stands for no byte: not a character"
    if isinstance(doc, dict) and "runs" in doc and doc.get("version") != "2.1.0":
        return "the SARIF log has no version 2.1.0"
    return ""


def _ends(text: str) -> str:
    """A long finding's head and its tail (the release it was sized for is the last words)."""
    return text if len(text) <= 260 else f"{text[:120]} … {text[-130:]}"


def run_exe(argv: list[str], cwd: str, env: dict[str, str], deadline: float, stdin: bytes | None) -> subprocess.CompletedProcess[bytes]:
    """``shardwise ARGV`` with ``stdin`` on its standard input (hostile8): /dev/null, bytes, or ENDLESS (a writer
    that never stops, as ``yes | shardwise lint -``)."""
    if env.get("FZ22_CLOSE_STDIN"):  # fuzz22: ``shardwise lint - ... <&-``, a closed standard input
        return subprocess.run([EXE, *argv], cwd=cwd, env=env, capture_output=True, timeout=deadline,
                              preexec_fn=lambda: os.close(0))  # noqa: PLW1509
    if env.get("H9_CLOSE_STDOUT"):  # hostile9: ``shardwise lint ... >&-``, a closed standard output
        return subprocess.run([EXE, *argv], cwd=cwd, env=env, capture_output=True, timeout=deadline, stdin=subprocess.DEVNULL,
                              preexec_fn=lambda: os.close(1))  # noqa: PLW1509
    if stdin is None:
        return subprocess.run([EXE, *argv], cwd=cwd, env=env, capture_output=True, timeout=deadline, stdin=subprocess.DEVNULL)
    if stdin != ENDLESS:
        return subprocess.run([EXE, *argv], cwd=cwd, env=env, capture_output=True, timeout=deadline, input=stdin)
    import threading
    proc = subprocess.Popen([EXE, *argv], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pipe, proc.stdin = proc.stdin, None  # communicate() would close it: the writer keeps it open
    assert pipe is not None

    def feed() -> None:
        chunk = b"y\n" * 32768
        try:
            while proc.poll() is None:
                pipe.write(chunk)
        except (BrokenPipeError, OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                pipe.close()
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        out, err = proc.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def judge(case: Case, plain: list[tuple]) -> Result:
    d = tempfile.mkdtemp()
    try:
        return _judge(case, plain, d)
    finally:  # rm, not shutil.rmtree: a case's chain of 10,000 folders is past its recursion (fuzz22) and PATH_MAX
        subprocess.run(["rm", "-rf", "--", d], check=False)


def _judge(case: Case, plain: list[tuple], d: str) -> Result:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SHARDWISE_DEBUG", "SHARDWISE_PURE_YAML")}
    env["HF_HOME"] = os.path.join(d, ".hf")
    env.update(case.env)
    argv = case.build(d)
    cwd = os.path.join(d, case.cwd_sub) if case.cwd_sub else d
    deadline = deadline_for(case.cpu_s)
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = run_exe(argv, cwd, env, deadline, case.stdin)
    except subprocess.TimeoutExpired:
        return Result(case.name, f"FAIL: hung (over {deadline:.0f} s)", None, deadline, "")
    finally:
        for s in SOCKETS:
            s.close()
        SOCKETS.clear()
        if case.root_only_skip:
            for dp, dns, _ in os.walk(d):
                for n in dns:
                    os.chmod(os.path.join(dp, n), 0o755)
    dt = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    out, err = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    said_lines: list[str] = []
    report = None
    if argv[0] == "lint":
        try:
            report = json.loads(out)
        except ValueError:
            report = None
    if report is not None:
        said_lines += [f"{e.get('file')}:{e.get('line')}: {e.get('message')}" for e in report.get("input_errors", [])]
        said_lines += [f"skipped {s.get('file', s) if isinstance(s, dict) else s}: {s.get('reason', '') if isinstance(s, dict) else ''}" for s in report.get("skipped_files", [])]
    # argparse's usage block names every option: only its error line is what the run said
    usage = err.startswith("usage:")
    said_lines += [ln for ln in err.splitlines() if ln.strip() and not (usage and (ln.startswith(("usage:", " "))))
                   and not PROGRESS_LINE.fullmatch(ln)]
    if argv[0] != "lint":
        said_lines += [ln for ln in out.splitlines() if "error" in ln.lower() or "cannot" in ln.lower() or "; vLLM " in ln][:3]
    if case.stdout_said:
        said_lines += [_ends(ln) for ln in out.splitlines() if "SW" in ln or "error" in ln.lower()][:3]
    said = " | ".join(said_lines)[:600].replace(os.path.realpath(d), "<tmp>").replace(d, "<tmp>")
    if report is not None and r.returncode == 1:  # a blocking finding names its file
        said += " | " + " | ".join(_ends(f"{f.get('file')}:{f.get('line')}: {f.get('message')}")
                                   for f in report.get("findings", []) if f.get("level") == "mandatory")
    if cpu > (case.cpu_s or CPU_S):
        return Result(case.name, f"FAIL: {cpu:.1f} s of CPU (over {case.cpu_s or CPU_S:.0f} s)", r.returncode, dt, said, cpu)
    if "Traceback (most recent call last)" in out + err:
        return Result(case.name, "FAIL: traceback", r.returncode, dt, said, cpu)
    if r.returncode not in case.rc:
        return Result(case.name, f"FAIL: exit {r.returncode}, expected {'/'.join(map(str, case.rc))}", r.returncode, dt, said, cpu)
    raw = re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out) if case.no_raw_control else None
    if raw:
        return Result(case.name, f"FAIL: a raw control character ({raw.group()!r}) in the report", r.returncode, dt, said, cpu)
    if case.named_if_refused and r.returncode == 2 and case.named_if_refused not in said:
        return Result(case.name, f"FAIL: refused without naming {case.named_if_refused}", r.returncode, dt, said, cpu)
    if argv[0] == "lint" and r.returncode != 2 and report is None and not case.stdout_said:
        return Result(case.name, "FAIL: the report is not JSON", r.returncode, dt, (out + err)[:300], cpu)
    # a finding's whole message, not only the head and tail `said` keeps of it (a remedy after the release's
    # note moves the note out of the tail)
    whole = " | ".join(str(f.get("message")) for f in report.get("findings", [])) if report is not None else ""
    if case.named and r.returncode != 0 and case.named not in said and case.named not in whole:
        return Result(case.name, f"FAIL: silent (nothing names {case.named})", r.returncode, dt, said, cpu)
    if case.named and r.returncode == 0 and case.named not in said:
        return Result(case.name, f"FAIL: silent pass (nothing names {case.named})", r.returncode, dt, said, cpu)
    if report is not None and "-named" not in case.name and argv[-1] == "." and not case.name.startswith(("config-", "ignore-", "h9-config-")):
        subjects = [w.get("name") or w.get("subject") for w in report.get("workloads", [])]
        if not any("good" in str(s) for s in subjects):
            return Result(case.name, f"FAIL: the good Deployment was not linted ({subjects})", r.returncode, dt, said, cpu)
    if case.parse_out:
        bad = report_invalid(r.stdout if case.parse_out == "-" else os.path.join(cwd, case.parse_out))
        if bad:
            return Result(case.name, f"FAIL: {bad}", r.returncode, dt, said, cpu)
    if case.same_as_plain and report is not None and findings_of(report) != plain:
        return Result(case.name, "FAIL: a valid variant read differently from its plain form", r.returncode, dt,
                      said + " || " + json.dumps(sorted(set(findings_of(report)) ^ set(plain)))[:400], cpu)
    return Result(case.name, "ok", r.returncode, dt, said, cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="run the cases whose name holds this")
    ap.add_argument("--show", action="store_true", help="print what each run said, not only the failures'")
    ap.add_argument("--write", metavar="FILE", help="write each case's exit status and what it said to FILE (JSON)")
    ap.add_argument("--check", metavar="FILE", help="fail a case whose exit status or words differ from FILE's")
    args = ap.parse_args()
    expected = json.load(open(args.check, encoding="utf-8")) if args.check else None
    plain = plain_findings(ROOT)
    results = []
    for case in cases():
        if args.only not in case.name:
            continue
        if case.root_only_skip and os.geteuid() == 0:
            results.append(Result(case.name, "skipped (root reads a file whatever its mode)", None, 0.0, ""))
        elif case.root_needed and os.geteuid() != 0:
            results.append(Result(case.name, "skipped (only root makes a device node)", None, 0.0, ""))
        elif tool_missing(case.tool):
            results.append(Result(case.name, f"skipped ({case.tool} not built: scripts/build-tools.sh)", None, 0.0, ""))
        else:
            results.append(judge(case, plain or []))
        res = results[-1]
        if expected is not None and not res.verdict.startswith(("FAIL", "skipped")):
            want = expected.get(case.name)
            if want != {"rc": res.rc, "said": res.said}:
                res.verdict = f"FAIL: differs from {args.check}: {want}"
        cpu = "" if res.cpu is None else f" cpu {res.cpu:5.2f}s"
        print(f"{res.case:45} {res.verdict:40} rc={res.rc} {res.seconds:5.2f}s{cpu}" + (f"\n    {res.said}" if args.show or res.verdict.startswith("FAIL") else ""), flush=True)
    import hostile_pack  # the policy pack's cases (hostile7): one pack process, driven over gRPC
    for name, verdict, rc, seconds, said in hostile_pack.run(args.only):
        res = Result(name, verdict, rc, seconds, said)
        if expected is not None and not res.verdict.startswith("FAIL"):
            want = expected.get(name)
            if want != {"rc": res.rc, "said": res.said}:
                res.verdict = f"FAIL: differs from {args.check}: {want}"
        results.append(res)
        print(f"{res.case:45} {res.verdict:40} rc={res.rc} {res.seconds:5.2f}s" + (f"\n    {res.said}" if args.show or res.verdict.startswith("FAIL") else ""), flush=True)
    no_tool = [r.case for r in results if r.verdict.startswith("skipped (") and " not built" in r.verdict]
    if args.write and no_tool:
        print(f"hostile_sweep: not written: {len(no_tool)} cases need helm or kustomize (scripts/build-tools.sh)",
              file=sys.stderr)
        return 2
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump({r.case: {"rc": r.rc, "said": r.said} for r in results if not r.verdict.startswith("skipped")},
                      f, indent=1, ensure_ascii=True)
            f.write("\n")
    failed = [r for r in results if r.verdict.startswith("FAIL")]
    print(json.dumps({"cases": len(results), "failed": len(failed), "skipped": sum(r.verdict.startswith("skipped") for r in results),
                      "skipped_no_tool": len(no_tool),
                      "failures": [r.case for r in failed]}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
