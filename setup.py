"""The compiled YAML reader (native/, Rust with pyo3) as an optional extension of the wheel.

Everything else about the package is in pyproject.toml; this file only adds the extension, built by
setuptools-rust (``cargo build --release --locked``, crates from crates.io pinned by native/Cargo.lock)
as ``shardwise/rules/_yamlfast.abi3.so`` (the stable ABI from Python 3.11 on: one wheel for every
CPython >= 3.11 on that platform).

``SHARDWISE_NATIVE`` picks the wheel:

- unset: the extension is optional; without cargo, or when the build fails, the wheel is the pure-Python
  one and shardwise reads YAML with its Python reader (the same results, slower);
- ``require``: a failed build fails the wheel (``make dist`` builds the Linux wheel so);
- ``0``: no extension: the pure-Python wheel (``py3-none-any``, for every other platform), and the
  editable install of ``make setup``, whose reader ``scripts/build-native.sh`` builds in place.
"""

import os

from setuptools import setup

mode = os.environ.get("SHARDWISE_NATIVE", "")
if mode not in ("", "0", "require"):
    raise SystemExit(f"SHARDWISE_NATIVE is {mode!r}; it must be unset, 0 or require")

if mode == "0":
    setup()
else:
    from setuptools_rust import Binding, RustExtension

    setup(
        rust_extensions=[
            RustExtension(
                "shardwise.rules._yamlfast",
                path="native/Cargo.toml",
                binding=Binding.PyO3,
                py_limited_api=True,
                optional=mode != "require",
                args=["--locked"],
            )
        ],
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )
