"""The CPU a grpcio server process spends on one unary call, without any work in the handler.

Run from the repository root::

    .venv/bin/python benchmarks/bench_grpc_transport.py [--calls 2000] [--runs 3] [--env GRPC_EXPERIMENTS=...]

The policy pack answers each resource's ``Remediate`` (refused, ``UNIMPLEMENTED``) and ``Analyze`` through
pulumi-policy's server: ``grpc.server(ThreadPoolExecutor(max_workers=4))`` with generic handlers. This starts such a
server in its own process with an ``Analyze`` handler that returns an empty answer at once, sends it ``--calls``
sequential calls of ``--size`` bytes from this process (after 50 untimed ones), and prints the server's CPU time
(``/proc``, user+sys) and voluntary context switches (all its threads) per call, minimum and median over ``--runs``,
for each variant: served calls through the SDK's server (``generic``), the same with one worker (``one-worker``),
with registered method handlers (``registered``), the asyncio server (``aio``), and a refused ``Remediate``
(``refused``). ``--env NAME=VALUE`` sets a variable in the server's environment before it starts (grpcio reads
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
VARIANTS = ("generic", "one-worker", "registered", "aio", "refused")
_OPTIONS = [("grpc.max_receive_message_length", 1 << 30)]  # pulumi-policy's


def _empty(request: bytes, context: Any) -> bytes:
    return b""


def _server_options() -> list[tuple[str, Any]]:
    """pulumi-policy's options, plus those of ``--option`` (passed on in ``SHARDWISE_GRPC_OPTIONS``)."""
    extra = [o.split("=", 1) for o in os.environ.get("SHARDWISE_GRPC_OPTIONS", "").split(",") if o]
    return [*_OPTIONS, *((k, int(v) if v.lstrip("-").isdigit() else v) for k, v in extra)]


def serve(variant: str) -> None:
    """Serve ``Analyze`` the variant's way and print the port."""
    options = _server_options()
    handlers = {"Analyze": grpc.unary_unary_rpc_method_handler(_empty)}
    if variant == "aio":
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


def _switches(pid: int) -> int:
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as fh:
            total += sum(int(line.split()[1]) for line in fh if line.startswith("voluntary_ctxt_switches"))
    return total


def measure(variant: str, calls: int, size: int, env: dict[str, str]) -> tuple[float, float]:
    """Server CPU (ms) and voluntary context switches per call, for one server process."""
    proc = subprocess.Popen([sys.executable, __file__, "--serve", variant], stdout=subprocess.PIPE,
                            env={**os.environ, **env})
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            method = "Remediate" if variant == "refused" else "Analyze"
            call = channel.unary_unary(f"/{SERVICE}/{method}")
            body = b"x" * size

            def once() -> None:
                try:
                    call(body)
                except grpc.RpcError:
                    if variant != "refused":
                        raise

            for _ in range(50):
                once()
            cpu0, sw0 = _cpu(proc.pid), _switches(proc.pid)
            for _ in range(calls):
                once()
            cpu1, sw1 = _cpu(proc.pid), _switches(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    return (cpu1 - cpu0) / calls * 1000, (sw1 - sw0) / calls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", type=int, default=2000, help="bytes of each request (a resource's properties)")
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="only these (default: all)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="in the server's environment")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a channel argument of the server, beside pulumi-policy's (an integer where it reads as one)")
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    env = dict(e.split("=", 1) for e in args.env)
    print(f"grpcio {grpc.__version__}, {args.calls} calls of {args.size} bytes, {args.runs} runs each, "
          f"server environment {env or 'as this one'}, server options beside pulumi-policy's: "
          f"{', '.join(args.option) or 'none'}; load {os.getloadavg()[0]:.1f}")
    if args.option:
        env["SHARDWISE_GRPC_OPTIONS"] = ",".join(args.option)
    for variant in args.variant or VARIANTS:
        t0 = time.perf_counter()
        runs = [measure(variant, args.calls, args.size, env) for _ in range(args.runs)]
        cpu = [c for c, _ in runs]
        switches = [s for _, s in runs]
        print(f"  {variant:10s} server CPU a call: min {min(cpu):.3f} ms, median {statistics.median(cpu):.3f} ms; "
              f"voluntary context switches a call: median {statistics.median(switches):.1f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
