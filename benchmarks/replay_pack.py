"""Replay the requests the real engine sent the policy pack in one ``pulumi preview`` to a fresh pack.

Run from the repository root::

    .venv/bin/python benchmarks/replay_pack.py --record bench-out/preview-requests.jsonl [--services 138]
    .venv/bin/python benchmarks/replay_pack.py bench-out/preview-requests.jsonl [--answers OUT] [--profile] [--pause MS]

``--record`` runs one preview of ``bench_engine.py``'s stack (``--services`` copies of the dev stack's service:
1,121 resources for 138) with the pack started through ``tests/support/pack_recorder.py``, which writes down
every request (Handshake, ConfigureStack, GetAnalyzerInfo, Configure, Remediate and Analyze for each resource,
AnalyzeStack), a few MB. It needs what ``bench_engine.py`` needs.

A replay starts the pack as the CLI starts an executable pack path (the config only in ConfigureStack, with
the ``PULUMI_*`` environment the recording saw), sends the requests in the recorded order, one at a time, and
prints the pack's CPU time (``/proc``) for its start and by method: the engine's requests without the engine,
steady enough to compare two commits on a shared machine. It prints a digest of the answers (each answer's
deterministic serialization; a Remediate answered UNIMPLEMENTED counts as the empty answer the engine reads
it as), which a change that keeps every diagnostic must not change; ``--answers`` writes them, one a line;
``--expect SHA256`` (another commit's digest, or its first eight digits or more; every mode) exits 1 where they
differ.
After the last request it stops the pack as the engine stops a plugin (``SIGINT``, then waits for its exit) and
prints the CPU the pack spent from the signal to its exit (its ``wait4`` usage less its threads' CPU before the
signal, ``/proc/PID/task/*/schedstat``), the seconds to its exit and its exit status: the shutdown, which a preview
pays too (the engine kills a plugin 5 s after the signal); a pack that has not exited 10 s after the signal is named
with each of its threads' name, state and kernel wait channel (``/proc/PID/task/*``).
``--profile`` runs the pack under a cProfile of its request handlers and prints the top functions by method.
``--pause MS`` waits MS milliseconds after each ``Analyze``, as the engine spaces its calls in a preview (it works
on each resource between them: about 100 ms a resource in a 1,121-resource preview on two loaded cores), and prints
the pack's CPU while it waits (its threads going back to sleep) and a resource's cost in all: calls sent back to
back leave the pack's threads awake and cost about half as much a resource as the same calls spaced. ``--env
NAME=VALUE`` (repeatable) starts the pack with that in its environment too. The pack is started with grpcio's
settings that the pack's launchers give it (``crossguard.pack_grpc_environment``: ``GRPC_EXPERIMENTS`` where this
environment sets none); ``--env GRPC_EXPERIMENTS=`` replays it on grpcio's defaults. It prints the transport
that serves (the pack's own by default; ``--env SHARDWISE_PACK_TRANSPORT=grpcio`` replays pulumi-policy's grpcio
server).
``--pack DIR`` serves the pack from ``DIR`` (a folder with another commit's ``rules/__main__.py``, the library
imported as installed) in place of ``rules``, so that two entry points can be replayed in turn.

Without the Pulumi CLI, ``--synthesize FILE [--resources 1121]`` writes a recording of the same shape from
``bench_pack.py``'s stack (the prod stack's resources under Pulumi's mocks, copied until there are that many):
the requests the engine would send for them (``grpc_harness.PackProcess.run``'s order, a ``Remediate`` before
each ``Analyze``, the config only in ``ConfigureStack``, the outputs at preview in ``AnalyzeStack``). The
Kubernetes objects' outputs are their inputs there, not what a real provider's dry run returns.

``--in-process`` runs the pack's ``main()`` in this process with a stand-in for the gRPC server and calls the
handlers the pack registered (the same generic handlers a call of the server reaches) with the recorded
requests: the pack's own work without the transport, in this process's CPU time, steady enough for
``valgrind --tool=callgrind`` (instruction counts: the pack's start-up, then every request, one process).
``--in-process --wire`` reaches the same handlers through the pack's own transport (``grpc_h2``): the pack's server
is made as in a preview but not started, and each request is fed, as bytes, to one of its connections with a socket
stand-in, framed as the CLI's grpc-go frames it (HPACK from ``hpack``'s encoder, which indexes every header as Go's
does, the message in DATA frames of 16 KiB at most, and after each answer with a message grpc-go's WINDOW_UPDATE
and bandwidth-probe PING, as a real preview's client sends them; the pack refuses ``Remediate``, trailers
only); the answers are read back from the bytes the
server wrote. The transport's work a call without the kernel's: its figures less ``--in-process``'s are what the
transport adds in Python. The requests are sent from ``itertools.starmap``, so that
``valgrind --tool=callgrind --toggle-collect=starmap_next`` counts the calls' instructions only.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import pstats
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

import grpc  # noqa: E402
from google.protobuf import empty_pb2, json_format  # noqa: E402
from grpc_harness import PYTHON, PackProcess  # noqa: E402
from pack_recorder import REQUESTS  # noqa: E402
from pulumi.runtime.proto import analyzer_pb2  # noqa: E402
from shardwise.rules.app.crossguard import installed_grpcio, pack_grpc_environment  # noqa: E402

# the pack's entry point with each request handler profiled, one profile per method, written after AnalyzeStack
_PROFILED_PACK = """
import cProfile, os, runpy, sys, threading
from shardwise.rules.app import packstart
packstart.install()  # as the launchers start it
from pulumi.runtime.proto import analyzer_pb2_grpc
out, lock, profiles = os.environ["SHARDWISE_PACK_PROFILE"], threading.Lock(), {}
add = analyzer_pb2_grpc.add_AnalyzerServicer_to_server
def wrap(servicer, name):
    serve, prof = getattr(servicer, name), profiles.setdefault(name, cProfile.Profile())
    def call(request, context):
        with lock:
            prof.enable()
            try:
                return serve(request, context)
            finally:
                prof.disable()
                if name == "AnalyzeStack":
                    for n, p in profiles.items():
                        p.dump_stats(f"{out}.{n}")
    setattr(servicer, name, call)
def add_profiled(servicer, server):
    for name in ("ConfigureStack", "Remediate", "Analyze", "AnalyzeStack"):
        wrap(servicer, name)
    return add(servicer, server)
analyzer_pb2_grpc.add_AnalyzerServicer_to_server = add_profiled
sys.argv = ["pulumi.policy", *sys.argv[1:]]
runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
"""


def record(path: Path, services: int) -> None:
    from bench_engine import bench_config
    from cluster_support import ControlPlane, cluster_bin
    from engine_support import HOW, Project, engine_bin, k8s_provider_bin

    bin_dir = engine_bin()
    if bin_dir is None:
        raise SystemExit(f"replay_pack: the Pulumi CLI is not built: {HOW}")
    k8s_bin = k8s_provider_bin()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        project = Project(Path(tmp), bin_dir, "bench", bench_config(services), k8s_bin=k8s_bin)
        config: dict[str, str] = {}
        plane_bin = cluster_bin() if k8s_bin is not None else None
        if plane_bin is not None:
            plane = stack.enter_context(ControlPlane(plane_bin, Path(tmp) / "control-plane"))
            plane.apply_crds()
            config = {"shardwise:kubeconfig": str(plane.kubeconfig)}
        elif k8s_bin is not None:
            config = {"kubernetes:renderYamlToDirectory": str(Path(tmp) / "rendered")}
        proc = project.operation("preview", record_pack=True, config=config)
        if proc.returncode != 0:
            raise SystemExit(f"pulumi preview failed:\n{proc.stdout}\n{proc.stderr}")
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(project.pack_record, path)
    counts = Counter(json.loads(line)["method"] for line in path.read_text(encoding="utf-8").splitlines())
    print(f"recorded {path}: {dict(counts)}")


def synthesize(path: Path, resources: int) -> None:
    from bench_pack import big_stack
    from grpc_harness import PackProcess as _Pack
    from grpc_harness import engine_extras
    from pulumi_mocks import engine_config

    stack, project = "prod", "shardwise"
    config, stack_resources = big_stack(resources)
    everything = [*engine_extras(stack_resources, stack, project), *stack_resources]
    # the request builders of the harness, without starting a pack
    builder = _Pack.__new__(_Pack)
    builder.stack, builder.project, builder.dry_run = stack, project, True
    entries: list[dict[str, object]] = [{
        "method": "start", "request": {},
        "env": {"PULUMI_PROJECT": project, "PULUMI_STACK": stack, "PULUMI_DRY_RUN": "true"}}]

    def add(method: str, request: object) -> None:
        entries.append({"method": method, "request": json_format.MessageToDict(request)})

    add("Handshake", analyzer_pb2.AnalyzerHandshakeRequest(engine_address="127.0.0.1:0"))
    add("ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
        stack=stack, project=project, organization="organization", dry_run=True, config=engine_config(config)))
    add("GetAnalyzerInfo", REQUESTS["GetAnalyzerInfo"]())
    for r in everything:
        request = builder.analyze_request(r)
        add("Remediate", request)
        add("Analyze", request)
    add("AnalyzeStack", builder.stack_request(everything))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    print(f"synthesized {path}: {len(everything)} resources ({resources} of the prod stack's, copied)")


# ``python -m pulumi.policy <engine> <pack folder>``, the folder given in SHARDWISE_PACK_DIR (``--pack``)
_OTHER_PACK = """
import os, runpy, sys
sys.argv = ["pulumi.policy", sys.argv[1], os.environ["SHARDWISE_PACK_DIR"]]
runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
"""


#: How the pack's launchers start it (``crossguard.PACK_LAUNCHER``, the tests' ``engine_support.pack_dir``); the
#: language host runs ``python -m pulumi.policy`` (``--host-start``).
LAUNCHER = [PYTHON, "-m", "shardwise.rules.app.packstart"]


def replay(path: Path, answers_out: Path | None, profile: bool, pack_dir: Path | None = None,
           pause: float = 0.0, env: dict[str, str] | None = None, host_start: bool = False) -> str:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    requests = [(e["method"], json_format.ParseDict(e["request"], REQUESTS[e["method"]]())) for e in lines[1:]]
    launcher = None if host_start else LAUNCHER
    # grpcio's settings as the pack's launchers give them (where this environment sets none), then the recording's
    # PULUMI_* environment, then --env
    extra = {k: v for k, v in pack_grpc_environment(installed_grpcio()).items() if k not in os.environ}
    extra.update(lines[0]["env"])
    extra.update(env or {})
    grpc_settings = {k: extra.get(k, os.environ.get(k)) for k in ("GRPC_EXPERIMENTS",)}
    print(f"the pack's grpcio settings: {', '.join(f'{k}={v!r}' for k, v in grpc_settings.items())}")
    stats = ROOT / "bench-out" / "replay_pack.prof"
    if profile:
        stats.parent.mkdir(exist_ok=True)
        launcher = [PYTHON, "-c", _PROFILED_PACK]
        extra["SHARDWISE_PACK_PROFILE"] = str(stats)
    if pack_dir is not None:
        if profile:
            raise SystemExit("replay_pack: --pack and --profile cannot be combined")
        launcher = [PYTHON, "-c", _OTHER_PACK]
        extra["SHARDWISE_PACK_DIR"] = str(pack_dir.resolve())
    cpu: dict[str, float] = dict.fromkeys(REQUESTS, 0.0)
    calls: Counter[str] = Counter()
    answers: list[tuple[str, bytes]] = []
    between = 0.0  # the pack's CPU while it waits between resources (``--pause``): threads going back to sleep
    with PackProcess(config_in_env=False, extra_env=extra, launcher=launcher) as pack:
        print(f"the pack's transport: {pack.transport} (SHARDWISE_PACK_TRANSPORT="
              f"{extra.get('SHARDWISE_PACK_TRANSPORT', os.environ.get('SHARDWISE_PACK_TRANSPORT'))!r})")
        start_cpu = pack.cpu_seconds()
        t0 = time.perf_counter()
        for method, request in requests:
            cpu0 = pack.cpu_seconds()
            try:
                answer = getattr(pack.stub, method)(request).SerializeToString(deterministic=True)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                answer = analyzer_pb2.RemediateResponse().SerializeToString() if method == "Remediate" else b"-"
            cpu[method] += pack.cpu_seconds() - cpu0
            calls[method] += 1
            answers.append((method, answer))
            if pause and method == "Analyze":
                cpu0 = pack.cpu_seconds()
                time.sleep(pause)
                between += pack.cpu_seconds() - cpu0
        wall = time.perf_counter() - t0
        shutdown = interrupt(pack.proc)
        stuck = _threads_state(pack.proc.pid) if shutdown is None else []
    total = start_cpu + sum(cpu.values()) + between
    print(f"the pack over {calls['Analyze']} resources ({path.name}): {total:.2f} s CPU; start-up {start_cpu:.2f} s, "
          f"requests {sum(cpu.values()):.2f} s ({wall:.2f} s wall)")
    _print_methods(cpu, calls, 2)
    if shutdown is None:
        print(f"  shutdown: the pack did not exit within 10 s of SIGINT; its threads then: {'; '.join(stuck)}")
    else:
        print(f"  shutdown (SIGINT, as the engine stops it, to its exit): {shutdown[0] * 1000:.1f} ms CPU in "
              f"{shutdown[2]:.3f} s, exit status {shutdown[1]}")
    if pause:
        print(f"  between resources ({pause * 1000:g} ms each): {between:.2f} s CPU "
              f"({between / max(calls['Analyze'], 1) * 1000:.3f} ms a resource); a resource in all "
              f"{(cpu['Remediate'] + cpu['Analyze'] + between) / max(calls['Analyze'], 1) * 1000:.3f} ms")
    digest = hashlib.sha256()
    for method, answer in answers:
        digest.update(method.encode() + b"\0" + answer + b"\0")
    print(f"  answers: sha256 {digest.hexdigest()}")
    if answers_out is not None:
        answers_out.write_text("".join(f"{m} {a.hex()}\n" for m, a in answers), encoding="utf-8")
    if profile:
        for method in ("ConfigureStack", "Remediate", "Analyze", "AnalyzeStack"):
            if Path(f"{stats}.{method}").exists():
                buf = io.StringIO()
                try:
                    st = pstats.Stats(f"{stats}.{method}", stream=buf)
                except TypeError:  # an empty profile: no call reached the servicer (Remediate, UNIMPLEMENTED)
                    print(f"\n== cProfile of {method} in the pack: no call reached its handler ==")
                    continue
                st.strip_dirs().sort_stats("cumulative").print_stats(15)
                print(f"\n== cProfile of {method} in the pack (top 15 by cumulative time) ==\n{buf.getvalue()}")
    return digest.hexdigest()


def _threads_cpu(pid: int) -> float:
    """The CPU seconds of every live thread of ``pid`` (``/proc/PID/task/*/schedstat``: nanoseconds, not ticks)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def _threads_state(pid: int) -> list[str]:
    """Each live thread of ``pid`` as ``name state wait-channel`` (``/proc/PID/task/*``): what a pack that does not
    exit is waiting in."""
    states = []
    for task in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
        base = f"/proc/{pid}/task/{task}"
        try:
            comm = Path(f"{base}/comm").read_text().strip()
            state = Path(f"{base}/stat").read_text().rsplit(")", 1)[1].split()[0]
            wchan = Path(f"{base}/wchan").read_text().strip() or "-"
        except (OSError, IndexError):
            continue
        states.append(f"{comm} {state} {wchan}")
    return states


def interrupt(proc: Any, timeout: float = 10.0) -> tuple[float, int, float] | None:
    """Stop the pack as the engine stops a plugin (``SIGINT``; pulumi v3.276.0 ``plugin.go``'s ``kill`` through
    ``cmdutil.InterruptChildren``, then up to 5 s for it to exit) and return the CPU seconds it spent from then to
    its exit (its ``wait4`` usage less its threads' CPU before the signal: its serving thread and main thread, the
    only ones it has then), its exit status and the seconds from the signal to its exit; ``None`` if it has not
    exited within ``timeout``."""
    before = _threads_cpu(proc.pid)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    deadline = sent + timeout
    while time.monotonic() < deadline:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime - before, proc.returncode, time.monotonic() - sent
        time.sleep(0.002)
    return None


class _Started(BaseException):  # not an Exception: pulumi.policy's main() catches those
    """Raised by the stand-in server's ``start``: the pack has registered its handlers."""


class _StandInServer:
    def __init__(self) -> None:
        self.handlers: list[Any] = []

    def add_generic_rpc_handlers(self, handlers: Iterable[Any]) -> None:
        self.handlers.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: object) -> None:
        raise SystemExit("replay_pack --in-process: the SDK registers its methods; only generic handlers are read")

    def add_insecure_port(self, address: str) -> int:
        return 0

    def start(self) -> None:
        raise _Started


class _Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


class _Context:
    """What a handler may call on its context: the generated servicer's defaults set UNIMPLEMENTED."""

    def set_code(self, code: object) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        self.details = details

    def abort(self, code: object, details: str) -> None:
        raise RuntimeError(f"{code}: {details}")



def _start_pack() -> float:
    """Runs the pack's ``__main__`` (``pulumi.policy ADDR rules``) until its server would start (the caller's
    stand-in raises :class:`_Started`); the CPU seconds it took."""
    import runpy

    argv, sys.argv = sys.argv, ["pulumi.policy", "127.0.0.1:0", "rules"]
    t0 = time.process_time()
    try:
        runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
    except _Started:
        pass
    finally:
        sys.argv = argv
    return time.process_time() - t0

def replay_in_process(path: Path) -> str:
    """:func:`replay` without the pack's process and its gRPC server (see the module doc)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    os.environ.update(lines[0]["env"])
    os.environ["SHARDWISE_PACK_TRANSPORT"] = "grpcio"  # the stand-in takes grpcio's place; the pack's own would serve
    requests = [(e["method"], json_format.ParseDict(e["request"], REQUESTS[e["method"]]())) for e in lines[1:]]
    server = _StandInServer()
    make_server = grpc.server
    grpc.server = lambda *a, **k: server  # type: ignore[assignment]
    try:
        start_cpu = _start_pack()
    finally:
        grpc.server = make_server  # type: ignore[assignment]
    cpu: dict[str, float] = dict.fromkeys(REQUESTS, 0.0)
    calls: Counter[str] = Counter()
    digest = hashlib.sha256()
    context = _Context()
    for method, request in requests:
        c0 = time.process_time()
        details = _Details(f"/pulumirpc.Analyzer/{method}")
        handler = next((h for h in (g.service(details) for g in server.handlers) if h is not None), None)
        if handler is None:
            answer = analyzer_pb2.RemediateResponse().SerializeToString() if method == "Remediate" else b"-"
        else:
            try:
                answer = handler.unary_unary(request, context).SerializeToString(deterministic=True)
            except NotImplementedError:  # UNIMPLEMENTED, as the out-of-process replay counts it
                answer = b"-"
        cpu[method] += time.process_time() - c0
        calls[method] += 1
        digest.update(method.encode() + b"\0" + answer + b"\0")
    total = start_cpu + sum(cpu.values())
    print(f"the pack in this process over {calls['Analyze']} resources ({path.name}): {total:.3f} s CPU; "
          f"start-up {start_cpu:.3f} s, requests {sum(cpu.values()):.3f} s")
    _print_methods(cpu, calls, 3)
    print(f"  answers: sha256 {digest.hexdigest()}")
    return digest.hexdigest()


#: what a real preview's client (grpc-go, in the Pulumi CLI) sends after an answer's DATA when no probe is out:
#: a connection WINDOW_UPDATE, then its bandwidth-probe PING (``bdpPing``, internal/transport/bdp_estimator.go)
_GRPC_GO_BDP_PING = bytes([2, 4, 16, 16, 9, 14, 7, 7])
_ANSWERS = {"Analyze": analyzer_pb2.AnalyzeResponse, "AnalyzeStack": analyzer_pb2.AnalyzeResponse,
            "Remediate": analyzer_pb2.RemediateResponse, "GetAnalyzerInfo": analyzer_pb2.AnalyzerInfo,
            "Handshake": analyzer_pb2.AnalyzerHandshakeResponse,
            "ConfigureStack": analyzer_pb2.AnalyzerStackConfigureResponse, "Configure": empty_pb2.Empty}


def _h2_frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes((kind, flags)) + stream.to_bytes(4, "big") + payload


class _SocketStandIn:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(bytes(data))


def replay_wire(path: Path) -> str:
    """:func:`replay_in_process` through the pack's own transport, from bytes (see the module doc)."""
    import collections
    import itertools

    import hpack
    from shardwise.rules.app import grpc_h2

    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    os.environ.update(lines[0]["env"])
    os.environ.pop("SHARDWISE_PACK_TRANSPORT", None)
    requests = [(e["method"], json_format.ParseDict(e["request"], REQUESTS[e["method"]]())) for e in lines[1:]]
    made: list[Any] = []

    def start(server: Any) -> None:
        made.append(server)
        raise _Started

    start_server = grpc_h2.Server.start
    grpc_h2.Server.start = start  # type: ignore[assignment,method-assign]
    try:
        start_cpu = _start_pack()
    finally:
        grpc_h2.Server.start = start_server  # type: ignore[method-assign]
    if not made:
        raise SystemExit("replay_pack --wire: the pack did not make the pack's own server (is hpack installed?)")
    sock = _SocketStandIn()
    connection = grpc_h2._Connection(made[0], sock, "ipv4:127.0.0.1:1")  # noqa: SLF001 - the transport's own
    encoder, decoder = hpack.Encoder(), hpack.Decoder()
    # the client's preface and SETTINGS (a 16 MiB stream window, as large a connection window), then each call
    wire: list[tuple[str, bytes]] = []
    opening = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + _h2_frame(4, 0, 0, (4).to_bytes(2, "big") + (1 << 24).to_bytes(
        4, "big")) + _h2_frame(8, 0, 0, (1 << 30).to_bytes(4, "big")) + _h2_frame(4, 1, 0)
    for i, (method, request) in enumerate(requests):
        stream = 2 * i + 1
        block = encoder.encode([(":method", "POST"), (":scheme", "http"), (":path", f"/pulumirpc.Analyzer/{method}"),
                                (":authority", "127.0.0.1:0"), ("content-type", "application/grpc"),
                                ("user-agent", "grpc-go/1.85.0"), ("te", "trailers")])
        body = request.SerializeToString()
        message = len(body).to_bytes(5, "big") + body
        chunks = [message[at:at + 16384] for at in range(0, len(message), 16384)]
        wire.append((method, (opening if i == 0 else b"") + _h2_frame(1, 4, stream, block) + b"".join(
            _h2_frame(0, 1 if n == len(chunks) - 1 else 0, stream, c) for n, c in enumerate(chunks))))
    probe = _h2_frame(8, 0, 0, (1).to_bytes(4, "big")) + _h2_frame(6, 0, 0, _GRPC_GO_BDP_PING)
    cpu: dict[str, float] = dict.fromkeys(REQUESTS, 0.0)
    calls: Counter[str] = Counter()
    written: list[bytes] = []

    def call(method: str, data: bytes) -> None:
        c0 = time.process_time()
        connection.receive(data)
        if method != "Remediate":  # an answer with a message (the pack refuses Remediate: trailers only)
            connection.receive(probe)
        cpu[method] += time.process_time() - c0
        calls[method] += 1
        written.append(b"".join(sock.sent))
        sock.sent.clear()

    collections.deque(itertools.starmap(call, wire), maxlen=0)
    digest = hashlib.sha256()
    for (method, _), out in zip(wire, written, strict=True):
        message, status = _read_answer(out, decoder)
        if status == grpc.StatusCode.UNIMPLEMENTED.value[0]:
            answer = analyzer_pb2.RemediateResponse().SerializeToString() if method == "Remediate" else b"-"
        elif status != 0 or message is None:
            raise SystemExit(f"replay_pack --wire: {method} answered status {status}")
        else:
            answer = _ANSWERS[method].FromString(message).SerializeToString(deterministic=True)
        digest.update(method.encode() + b"\0" + answer + b"\0")
    print(f"the pack in this process through its own transport over {calls['Analyze']} resources ({path.name}): "
          f"{start_cpu + sum(cpu.values()):.3f} s CPU; start-up {start_cpu:.3f} s, requests {sum(cpu.values()):.3f} s")
    _print_methods(cpu, calls, 3)
    print(f"  answers: sha256 {digest.hexdigest()}")
    return digest.hexdigest()


def _frames(data: bytes) -> Iterable[tuple[int, int, bytes]]:
    """The HTTP/2 frames in ``data``: ``(type, flags, payload)``."""
    at = 0
    while at < len(data):
        length = int.from_bytes(data[at:at + 3], "big")
        yield data[at + 3], data[at + 4], data[at + 9:at + 9 + length]
        at += 9 + length


def _read_answer(out: bytes, decoder: Any) -> tuple[bytes | None, int | None]:
    """An answer's message (without gRPC's prefix; ``None`` without DATA) and its ``grpc-status``."""
    message: bytes | None = None
    status: int | None = None
    for kind, _, payload in _frames(out):
        if kind == 0:
            message = (message or b"") + payload
        elif kind == 1:
            for name, value in decoder.decode(payload):
                if name == "grpc-status":
                    status = int(value)
    return (message[5:] if message is not None else None), status


def _print_methods(cpu: dict[str, float], calls: dict[str, int], digits: int) -> None:
    """One line per method the replay called: its CPU seconds, its calls and the CPU of a call."""
    for method in ("ConfigureStack", "Remediate", "Analyze", "AnalyzeStack"):
        if calls[method]:
            print(f"  {method}: {cpu[method]:.{digits}f} s CPU over {calls[method]} calls "
                  f"({cpu[method] / calls[method] * 1000:.3f} ms a call)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("requests", nargs="?", help="a recording (--record writes one)")
    ap.add_argument("--record", metavar="FILE", help="record one preview's requests to FILE")
    ap.add_argument("--services", type=int, default=138)
    ap.add_argument("--synthesize", metavar="FILE", help="write a recording of bench_pack.py's stack to FILE")
    ap.add_argument("--resources", type=int, default=1121, help="with --synthesize: how many resources")
    ap.add_argument("--answers", metavar="OUT", help="write each answer, hex-encoded, one a line")
    ap.add_argument("--expect", metavar="SHA256",
                    help="the answers' digest of another replay (another commit's): exit 1 if these differ")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--pack", metavar="DIR", help="serve the pack from DIR's __main__.py, not rules/")
    ap.add_argument("--in-process", action="store_true", help="call the pack's handlers in this process (no gRPC)")
    ap.add_argument("--wire", action="store_true",
                    help="with --in-process: through the pack's own transport, from bytes framed as grpc-go does")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="start the pack with this in its environment as well (GRPC_EXPERIMENTS=...)")
    ap.add_argument("--pause", type=float, default=0.0, metavar="MS",
                    help="wait MS milliseconds after each Analyze, as the engine spaces its calls in a preview")
    ap.add_argument("--host-start", action="store_true",
                    help="start the pack as the language host does (python -m pulumi.policy), not as the launchers do")
    a = ap.parse_args(argv)
    if a.record:
        record(Path(a.record), a.services)
        return 0
    if a.synthesize:
        synthesize(Path(a.synthesize), a.resources)
        return 0
    if not a.requests:
        ap.error("give a recording, or --record FILE")
    pack_dir = Path(a.pack).resolve() if a.pack else None
    os.chdir(ROOT)
    if a.in_process:
        if a.pack or a.profile or a.answers or a.pause or a.env or a.host_start:
            ap.error("--in-process takes no --pack, --profile, --answers, --pause, --env or --host-start")
        digest = replay_wire(Path(a.requests)) if a.wire else replay_in_process(Path(a.requests))
        return _expected(digest, a.expect)
    if a.wire:
        ap.error("--wire goes with --in-process")
    if any("=" not in e for e in a.env):
        ap.error("--env takes NAME=VALUE")
    digest = replay(Path(a.requests), Path(a.answers) if a.answers else None, a.profile, pack_dir, a.pause / 1000,
                    dict(e.split("=", 1) for e in a.env), a.host_start)
    return _expected(digest, a.expect)


def _expected(digest: str, expect: str | None) -> int:
    """0 where ``expect`` (a digest, or the start of one) is not given or is this replay's, else 1, said."""
    if expect is None:
        return 0
    if len(expect) >= 8 and digest.startswith(expect.lower()):
        print(f"  answers: the same as expected ({expect})")
        return 0
    print(f"replay_pack: the answers differ from those expected: sha256 {digest}, expected {expect}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
