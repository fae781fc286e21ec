"""shardwise's rules: the linter, the capacity model and the policy pack (rules/README.md is the floor plan)."""

import gc

# The stores below are read with the cyclic collector paused: reading them makes some ten thousand tuples,
# dicts and code objects that all live on, and the collections their allocations set off found nothing to free
# (2M instructions of a one-file lint). The collector's state is put back as it was.
_collecting = gc.isenabled()
gc.disable()
try:
    from shardwise.rules import _module_code

    _module_code.install()  # this package's modules' bytecode, read from one file (first: the others are read so)

    from shardwise.rules import _regex_code

    _regex_code.install()  # compiled regular expressions kept between runs (first: dataclasses compiles one)

    from shardwise.rules import _dataclass_code

    _dataclass_code.install()  # the methods @dataclass writes, compiled once and kept between runs
finally:
    if _collecting:
        gc.enable()
