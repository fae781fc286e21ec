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


# the pack's main() up to its server, its module-code store found stale (a module changed since it was written) and
# redirected to a file of the test's: whether the store is written when the pack would serve, and what is left to
# write at its exit
_STALE = """
import os, runpy, sys
from shardwise.rules import _module_code
_module_code._state["rewrite"] = sys.argv[2] == "stale"
_module_code.STORE = sys.argv[1]
import pulumi_policy

class Served(BaseException):
    pass

def serve(**_):
    print(os.path.exists(sys.argv[1]), _module_code._state["rewrite"], flush=True)
    raise Served

pulumi_policy.PolicyPack = serve  # what the pack serves with (it imports the name when it runs)
try:
    runpy.run_path("rules/__main__.py", run_name="__main__")
except Served:
    pass
_module_code._rewrite_if_stale(sys.argv[1] + ".at-exit")
print(os.path.exists(sys.argv[1] + ".at-exit"), flush=True)
"""


def _bytecode_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PULUMI_CONFIG")}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")  # not beside the sources
    return env


@pytest.mark.parametrize(("state", "expected"), [
    ("stale", "True False\nFalse\n"),  # written before serving; the exit writes nothing
    ("current", "False False\nFalse\n"),  # nothing to write, then or at the exit
])
def test_the_pack_writes_a_stale_module_code_store_before_it_serves_not_at_its_exit(tmp_path, state, expected):
    """The engine kills the pack 5 s after its SIGINT: a module-code store rewritten at the exit (every module's code
    compiled or read) is written when the pack starts instead, and the exit has nothing left to write."""
    store = tmp_path / "module-code.bin"
    out = subprocess.run([sys.executable, "-c", _STALE, str(store), state], capture_output=True, text=True, cwd=ROOT,
                         env=_bytecode_written(tmp_path), timeout=120)
    assert (out.returncode, out.stdout, out.stderr) == (0, expected, "")
    if state == "stale":
        from shardwise.rules import _module_code

        with open(store, "rb") as f:
            fd = f.fileno()
            index, _ = _module_code._read_index(fd)
        assert set(index) == {module for module, _, _ in _module_code._modules()}
