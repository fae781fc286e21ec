"""The CPU a grpcio server process spends on one unary call, without any work in the handler.

Run from the repository root::

    .venv/bin/python benchmarks/bench_grpc_transport.py [--calls 2000] [--runs 3] [--pause MS] \\
        [--env GRPC_EXPERIMENTS=...]

The policy pack answers each resource's ``Remediate`` (refused, ``UNIMPLEMENTED``) and ``Analyze`` through
pulumi-policy's server: ``grpc.server(ThreadPoolExecutor(max_workers=4))`` with generic handlers. This starts such a
server in its own process with an ``Analyze`` handler that returns an empty answer at once, sends it ``--calls``
sequential calls of ``--size`` bytes from this process (after 50 untimed ones), and prints the server's CPU time
(``/proc``, user+sys) and voluntary context switches (all its threads) per call, minimum and median over ``--runs``,
for each variant: served calls through the SDK's server (``generic``), the same with one worker (``one-worker``),
with registered method handlers (``registered``), the asyncio server (``aio``), a refused ``Remediate``
(``refused``), the same refused by the asyncio server (``aio-refused``), and ``h2-floor``: no grpcio server but one
thread reading and answering the HTTP/2 frames by hand, without decoding a header (:func:`serve_h2_floor`), the
floor under any transport of the pack's own; ``native-floor``: the same loop in Rust (``benchmarks/h2_floor.rs``,
built with ``rustc -O`` into ``bench-out/``; skipped, and said so, without ``rustc``), the floor of a native answerer
that never enters the interpreter; ``own`` and ``own-refused``: the pack's own transport
(``shardwise.rules.app.grpc_h2``: HTTP/2 by hand on one thread), a served call and a refused one; ``own-pair``: a
resource's two calls as the engine sends them, a refused ``Remediate`` then a served ``Analyze``, the pause after both
(the figures are a pair's: what a change of how one of them is answered saves the resource). The server's
CPU a call is printed by thread name too (the
interpreter's threads, grpcio's poll thread and workers among them, carry its executable's name, ``python`` or
``python3``; ``event_engine``: the C core's). ``--pause MS`` waits MS milliseconds after each call, as the engine
spaces its calls in a preview (the server's threads go back to sleep between calls, which costs more than calls
sent back to back). ``--env NAME=VALUE`` sets a variable in the server's environment before it starts (grpcio reads
``GRPC_EXPERIMENTS`` when ``grpc`` is imported, so set in the process later it changes nothing); ``--option
NAME=VALUE`` adds a channel argument to the server's, beside pulumi-policy's (``grpc.http2.bdp_probe=0``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from concurrent import futures
from typing import Any

import grpc

SERVICE = "pulumirpc.Analyzer"
VARIANTS = ("generic", "one-worker", "registered", "aio", "refused", "aio-refused", "h2-floor", "native-floor", "own",
            "own-refused", "own-pair")
_OPTIONS = [("grpc.max_receive_message_length", 1 << 30)]  # pulumi-policy's


def _empty(request: bytes, context: Any) -> bytes:
    return b""


def _server_options() -> list[tuple[str, Any]]:
    """pulumi-policy's options, plus those of ``--option`` (passed on in ``SHARDWISE_GRPC_OPTIONS``)."""
    extra = [o.split("=", 1) for o in os.environ.get("SHARDWISE_GRPC_OPTIONS", "").split(",") if o]
    return [*_OPTIONS, *((k, int(v) if v.lstrip("-").isdigit() else v) for k, v in extra)]


#: HTTP/2 frame types (RFC 9113 section 6) that the floor's server reads or writes
_DATA, _HEADERS, _SETTINGS, _PING, _WINDOW_UPDATE = 0, 1, 4, 6, 8
_END_STREAM, _END_HEADERS, _ACK = 0x1, 0x4, 0x1
#: a gRPC answer's header block and trailers, HPACK (RFC 7541) without a dynamic table: ``:status 200`` (static
#: index 8), ``content-type: application/grpc`` (a literal of static name 31, not indexed), ``grpc-status: 0``
_ANSWER_HEADERS = b"\x88\x0f\x10\x10application/grpc"
_ANSWER_TRAILERS = b"\x00\x0bgrpc-status\x010"


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes((kind, flags)) + stream.to_bytes(4, "big") + payload


def serve_h2_floor() -> None:
    """The floor under any transport of the pack's own: one thread, one blocking socket, HTTP/2 frames read and
    written by hand, every request answered with an empty message and ``grpc-status: 0``, without decoding a header
    (so without HPACK's decoder or a method lookup, which a real server needs). Not a server: a measure of what
    reading and answering a call costs in Python at least."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    print(listener.getsockname()[1], flush=True)
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = b""

    def read(n: int) -> bytes:
        nonlocal buffer
        while len(buffer) < n:
            chunk = conn.recv(65536)
            if not chunk:
                raise SystemExit(0)
            buffer += chunk
        out, buffer = buffer[:n], buffer[n:]
        return out

    read(24)  # the client's preface
    conn.sendall(_frame(_SETTINGS, 0, 0))
    while True:
        head = read(9)
        length, kind, flags = int.from_bytes(head[:3], "big"), head[3], head[4]
        stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        payload = read(length)
        if kind == _SETTINGS and not flags & _ACK:
            conn.sendall(_frame(_SETTINGS, _ACK, 0))
        elif kind == _PING and not flags & _ACK:
            conn.sendall(_frame(_PING, _ACK, 0, payload))
        elif kind == _DATA:
            out = _frame(_WINDOW_UPDATE, 0, 0, length.to_bytes(4, "big")) if length else b""
            if flags & _END_STREAM:
                out += (_frame(_HEADERS, _END_HEADERS, stream, _ANSWER_HEADERS)
                        + _frame(_DATA, 0, stream, b"\x00\x00\x00\x00\x00")
                        + _frame(_HEADERS, _END_HEADERS | _END_STREAM, stream, _ANSWER_TRAILERS))
            if out:
                conn.sendall(out)


def serve(variant: str) -> None:
    """Serve ``Analyze`` the variant's way and print the port."""
    if variant == "h2-floor":
        serve_h2_floor()
        return
    if variant == "native-floor":
        binary = native_floor()
        if binary is None:
            raise SystemExit(1)
        os.execv(binary, [binary])
    options = _server_options()
    handlers = {"Analyze": grpc.unary_unary_rpc_method_handler(_empty)}
    if variant in ("own", "own-refused", "own-pair"):
        from shardwise.rules.app import grpc_h2

        own = grpc_h2.Server(options)
        own.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        port = own.add_insecure_port("127.0.0.1:0")
        own.start()
        print(port, flush=True)
        own.wait_for_termination()
        return
    if variant in ("aio", "aio-refused"):
        async def empty(request: bytes, context: Any) -> bytes:
            return b""

        async def run() -> None:
            server = grpc.aio.server(options=options)
            server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
                SERVICE, {"Analyze": grpc.unary_unary_rpc_method_handler(empty)}),))
            port = server.add_insecure_port("127.0.0.1:0")
            await server.start()
            print(port, flush=True)
            await server.wait_for_termination()

        asyncio.run(run())
        return
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1 if variant == "one-worker" else 4), options=options)
    if variant == "registered":
        server.add_registered_method_handlers(SERVICE, handlers)
    else:
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


def _cpu(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (user+sys) of the process's live threads, summed by thread name (the interpreter's threads,
    grpcio's poll thread and workers among them, carry its executable's name; ``event_engine``: the C core's)."""
    out: dict[str, float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/stat") as fh:
            stat = fh.read()
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _switches(pid: int) -> int:
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as fh:
            total += sum(int(line.split()[1]) for line in fh if line.startswith("voluntary_ctxt_switches"))
    return total


def native_floor() -> str | None:
    """The ``native-floor`` server (``benchmarks/h2_floor.rs``) built with ``rustc -O`` into ``bench-out/`` (kept while
    newer than its source), or ``None`` (said with the figures) where ``rustc`` is not found or the build fails."""
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.join(here, "h2_floor.rs")
    out_dir = os.path.join(os.path.dirname(here), "bench-out")
    binary = os.path.join(out_dir, "h2_floor")
    if os.path.exists(binary) and os.path.getmtime(binary) >= os.path.getmtime(source):
        return binary
    os.makedirs(out_dir, exist_ok=True)
    try:
        subprocess.run(["rustc", "-O", "--edition", "2021", "-o", binary, source], check=True,
                       stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"  native-floor skipped: rustc could not build {source} ({e})", flush=True)
        return None
    return binary


def measure(variant: str, calls: int, size: int, env: dict[str, str],
            pause: float = 0.0) -> tuple[float, float, dict[str, float]]:
    """Server CPU (ms) and voluntary context switches per call, for one server process, and its CPU (ms) a call by
    thread name; ``pause`` seconds between calls (the server's CPU while it waits counts)."""
    command = [sys.executable, __file__, "--serve", variant]
    if variant == "native-floor":
        binary = native_floor()
        assert binary is not None
        command = [binary]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, env={**os.environ, **env})
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            refused = variant in ("refused", "aio-refused", "own-refused")
            method = "Remediate" if refused else "Analyze"
            call = channel.unary_unary(f"/{SERVICE}/{method}")
            body = b"x" * size

            remediate = channel.unary_unary(f"/{SERVICE}/Remediate")

            def once() -> None:
                if variant == "own-pair":
                    try:
                        remediate(body)
                    except grpc.RpcError as e:
                        if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                            raise
                try:
                    call(body)
                except grpc.RpcError:
                    if not refused:
                        raise

            for _ in range(50):
                once()
            cpu0, sw0, threads0 = _cpu(proc.pid), _switches(proc.pid), _thread_cpu(proc.pid)
            for _ in range(calls):
                once()
                if pause:
                    time.sleep(pause)
            cpu1, sw1, threads1 = _cpu(proc.pid), _switches(proc.pid), _thread_cpu(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    by_thread = {k: (v - threads0.get(k, 0.0)) / calls * 1000 for k, v in threads1.items()}
    return (cpu1 - cpu0) / calls * 1000, (sw1 - sw0) / calls, by_thread


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", type=int, default=2000, help="bytes of each request (a resource's properties)")
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="only these (default: all)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="in the server's environment")
    ap.add_argument("--pause", type=float, default=0.0, metavar="MS",
                    help="wait MS milliseconds after each call, as the engine spaces them in a preview")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a channel argument of the server, beside pulumi-policy's (an integer where it reads as one)")
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    env = dict(e.split("=", 1) for e in args.env)
    print(f"grpcio {grpc.__version__}, {args.calls} calls of {args.size} bytes, {args.runs} runs each, "
          f"server environment {env or 'as this one'}, server options beside pulumi-policy's: "
          f"{', '.join(args.option) or 'none'}; {args.pause:g} ms between calls; load {os.getloadavg()[0]:.1f}")
    if args.option:
        env["SHARDWISE_GRPC_OPTIONS"] = ",".join(args.option)
    for variant in args.variant or VARIANTS:
        if variant == "native-floor" and native_floor() is None:
            continue
        t0 = time.perf_counter()
        runs = [measure(variant, args.calls, args.size, env, args.pause / 1000) for _ in range(args.runs)]
        cpu = [c for c, _, _ in runs]
        switches = [s for _, s, _ in runs]
        names = sorted({k for _, _, t in runs for k in t})
        threads = ", ".join(f"{k} {statistics.median(t.get(k, 0.0) for _, _, t in runs):.3f}" for k in names)
        print(f"  {variant:10s} server CPU a call: min {min(cpu):.3f} ms, median {statistics.median(cpu):.3f} ms; "
              f"voluntary context switches a call: median {statistics.median(switches):.1f}; "
              f"CPU a call by thread, medians: {threads} ms "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
