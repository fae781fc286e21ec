"""shardwise's rules: the linter, the capacity model and the policy pack (rules/README.md is the floor plan)."""

from shardwise.rules import _dataclass_code

_dataclass_code.install()  # the methods @dataclass writes, compiled once and kept between runs
