"""Compile shardwise's hottest pure-Python modules with mypyc (an optional accelerator; scripts/build-mypyc.sh).

Run by ``scripts/build-mypyc.sh`` in a staging folder (``build/mypyc``) that holds ``shardwise/__init__.py`` and a
link ``shardwise/rules`` to ``rules/``, so that mypy names each module as the package installs it
(``shardwise.rules.capacity.sizing``, not ``rules.capacity.sizing``). ``build_ext --inplace`` writes each module's
extension beside its source (``rules/capacity/sizing.cpython-311-x86_64-linux-gnu.so``) and the group's shared
library as ``rules/_mc__mypyc.*.so``; the path finder imports an extension before a ``.py`` of the same name.
Then :data:`MANIFEST` records each compiled module's source size and modification time: the module-code finder
(``rules/_module_code.py``) lets the extensions be imported only while every one of those sources is as recorded
(the modules of a group call each other directly in C, so one edited source retires the whole group), else the
sources are imported as before.

The same code runs either way; the reports are the same byte for byte (benchmarks/README.md, lintspeed6).
"""

import marshal
import os
import sys

#: the modules compiled, relative to rules/: the sizing, the vLLM flag reader and the Kubernetes pod and workload
#: readers (where a lint of the generated manifests spends its CPU: benchmarks/README.md, "Compiled with mypyc").
#: A compiled module checks its annotations at run time, its own and those of the classes it reads from other
#: modules: a field or variable that may hold ``UNKNOWN`` says so in its type (``str | Unknown | None``, or
#: ``Any``), else the compiled read raises TypeError. Each must also import without a module-level
#: ``__getattr__`` (set one after the body), compare no tuple or number by identity (compiled, they are values),
#: make no instance of its own dataclasses without ``__init__`` (compiled, their fields are slots), and no test may
#: monkeypatch its functions or classes (a compiled call does not see the patch)
MODULES = (
    "capacity/sizing",
    "capacity/layout",
    "vllm/kv_layout",
    "capacity/group",
    "vllm/args",
    "adapters/k8s/pods",
    "adapters/k8s/fields",
    "vllm/flags",
    "adapters/k8s/workloads",
    "adapters/k8s/parse",
    "adapters/k8s/dispatch",
    "adapters/k8s/inventory",
    "model/location",
)
GROUP = "shardwise.rules._mc"  # the shared library: rules/_mc__mypyc.*.so
MANIFEST = "_mc_sources.marshal"  # in rules/: {module: (size, mtime as the .pyc header has it)}
FORMAT = 1


def write_manifest(rules_dir: str) -> None:
    entries = {}
    for rel in MODULES:
        st = os.stat(os.path.join(rules_dir, rel + ".py"))
        entries["shardwise.rules." + rel.replace("/", ".")] = (st.st_size & 0xFFFFFFFF, int(st.st_mtime) & 0xFFFFFFFF)
    tmp = os.path.join(rules_dir, MANIFEST + ".tmp")
    with open(tmp, "wb") as f:
        f.write(marshal.dumps((FORMAT, sys.hexversion, entries)))
    os.replace(tmp, os.path.join(rules_dir, MANIFEST))


def main() -> None:
    if sys.argv[1:2] == ["--manifest"]:
        write_manifest(sys.argv[2])
        return
    if sys.argv[1:2] == ["--modules"]:
        print("\n".join(MODULES))
        return
    from mypyc.build import mypycify
    from setuptools import setup

    setup(
        name="shardwise-mypyc",
        ext_modules=mypycify([f"shardwise/rules/{rel}.py" for rel in MODULES], group_name=GROUP, opt_level="3"),
        script_args=["build_ext", "--inplace"],
    )


if __name__ == "__main__":
    main()
