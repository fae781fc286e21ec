"""shardwise's rules: the linter, the capacity model and the policy pack (rules/README.md is the floor plan)."""

from shardwise.rules import _regex_code

_regex_code.install()  # compiled regular expressions kept between runs (first: dataclasses compiles one)

from shardwise.rules import _dataclass_code  # noqa: E402

_dataclass_code.install()  # the methods @dataclass writes, compiled once and kept between runs
