"""The pack ends as the engine stops it (``SIGINT``, then up to 5 s to exit: pulumi v3.276.0 ``plugin.go``) with
status 0, its exit handlers run and without the interpreter's finalization (``rules/__main__.py``'s
``exit_served``), started as the launchers start it and as the language host does."""

import os
import signal
import subprocess
import sys
import time

import pytest
from grpc_harness import PYTHON, ROOT, PackProcess

# rules/__main__.py's exit_served after an exit handler is registered, with or without another thread alive
_EXIT = """
import atexit, runpy, sys, threading
pack = runpy.run_path("rules/__main__.py", run_name="shardwise_pack")  # its module, main() not run
atexit.register(lambda: print("exit handler ran", flush=True))
if sys.argv[1] == "thread":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
pack["exit_served"]()
print("returned", flush=True)
"""


@pytest.mark.parametrize(("how", "expected"), [
    ("alone", "exit handler ran\n"),
    ("thread", "returned\nexit handler ran\n"),  # the interpreter exits as usual, handlers at its finalization
])
def test_exit_served_runs_the_exit_handlers_and_ends_with_status_0(how, expected):
    out = subprocess.run([sys.executable, "-c", _EXIT, how], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, expected, "")


@pytest.mark.parametrize("launcher", [[PYTHON, "-m", "shardwise.rules.app.packstart"], None],
                         ids=["launcher", "host-start"])
def test_the_pack_interrupted_as_the_engine_stops_it_exits_0(launcher):
    with PackProcess(launcher=launcher) as pack:
        assert pack.info().policies
        pack.proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 5  # the engine's wait before it kills the plugin
        while pack.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pack.proc.returncode == 0
        assert pack.proc.stderr is not None
        assert os.read(pack.proc.stderr.fileno(), 65536) == b""
