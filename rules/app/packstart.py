"""The policy pack's start through its launchers: ``python -m pulumi.policy ENGINE DIR``, less the SDK it never runs.

``python -m pulumi.policy`` imports the ``pulumi`` package first, and its ``__init__`` imports the whole Python SDK,
parts the pack never calls included: the Automation API (``pulumi.automation``: workspaces, the CLI's wrapper, and
with them ``yaml``, ``semver``, ``urllib.request``), dynamic providers (``pulumi.dynamic``: ``dill``) and, where the
CLI traces the run (``TRACEPARENT`` in the environment), OpenTelemetry's set-up (``pulumi.runtime._instrumentation``,
which imports OpenTelemetry's SDK and does nothing else without ``TRACEPARENT``). ``pulumi/__init__.py`` only binds
those names (``from . import dynamic, automation``...), so here they are bound to modules executed when something
first reads them (the standard library's :class:`importlib.util.LazyLoader`): nothing the pack does reads them, and
anything that does gets the module as it was. Every other module (the runtime, the protobufs, grpcio,
``pulumi_policy``) is imported as before, and ``pulumi.policy`` runs as ``__main__`` with the same arguments.

The launchers run ``python -u -m shardwise.rules.app.packstart ENGINE DIR`` (``shardwise policy-pack-dir``'s
``shardwise-pack``, the tests' pack); a pack the language host starts (``--policy-pack rules``) runs ``python -m
pulumi.policy`` itself, which imports ``pulumi`` before any of the pack's code. This module imports nothing of
Pulumi's itself; see benchmarks/README.md (``bench_engine.py``) for what it saves.
"""

from __future__ import annotations

import gc
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

#: The SDK's modules that ``pulumi/__init__.py`` imports and the pack never reads.
DEFERRED = ("pulumi.automation", "pulumi.dynamic")
#: OpenTelemetry's set-up, deferred only where the CLI does not trace the run (it starts tracing on import then).
TRACING = "pulumi.runtime._instrumentation"
TRACING_ENV = "TRACEPARENT"


def deferred(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The modules executed only when first read, in this environment."""
    return DEFERRED if environ.get(TRACING_ENV) else (*DEFERRED, TRACING)


class DeferredFinder(importlib.abc.MetaPathFinder):
    """Finds the modules named as the path finder does, with a loader that executes them when first read."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None  # left to the other finders, as without this one
        spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


def install(environ: Mapping[str, str] = os.environ) -> DeferredFinder:
    """Put a :class:`DeferredFinder` first on ``sys.meta_path`` (before ``pulumi`` is imported) and return it."""
    finder = DeferredFinder(deferred(environ))
    sys.meta_path.insert(0, finder)
    return finder


def main() -> None:
    gc.disable()  # the imports make what lives as long as the pack (its main() freezes it): nothing to collect
    install()
    runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
