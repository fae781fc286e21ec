"""Pulumi inputs in component arguments: what is validated now, what when it resolves.

A component's ``…Args`` may carry ``pulumi.Output`` values anywhere a name, ARN, image, id or
namespace goes (an ECR repository URL, an IAM role's ARN, a namespace created in the same program).
Such a value is unknown while the program runs, so the component validates with a stand-in:

* :class:`Unknowns` replaces each Output in the arguments with a token that the spec's field
  accepts (a DNS label, a role or certificate ARN, a pinned image reference, an ``sg-``/``subnet-``/``vpc-`` id),
  and remembers the path it came from;
* the spec is validated and rendered with the tokens; :meth:`Unknowns.substitute` then puts the
  Outputs back wherever a token appears in the rendered objects (inside longer strings too);
* each Output is re-validated when it resolves (during ``pulumi preview`` when the value is known
  then, else during ``pulumi up``): the field's own constraint and the component's checks for that
  field (an image that turns out to be ``:latest`` fails then, naming the argument and saying when).

Values whose effect is only on AWS resources the component cannot see through (subnets that map
public IPs, security groups) are left to the policy pack, and the component says so in its
``validation`` output.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pulumi
from pydantic import BaseModel, TypeAdapter, ValidationError

from .errors import ArgumentsError

TOKEN_PREFIX = "shardwise-unknown-"
_COUNTER = itertools.count(1)
#: (id(Output), kind of stand-in) -> (the Output, its token, the stand-ins it brings): one token per Output and
#: kind in a program (the same Output as a role ARN and as a name needs a stand-in each field accepts).
_BY_OUTPUT: dict[tuple[int, str], tuple[pulumi.Output[Any], str, dict[str, pulumi.Output[Any]]]] = {}
_ROLE = "arn:aws:iam::000000000000:role/"
_CERT = "arn:aws:acm:us-east-1:000000000000:certificate/"

Check = Callable[[Any], list[tuple[str, str]]]


def is_output(value: Any) -> bool:
    return isinstance(value, pulumi.Output)


def _kind(path: str) -> str:
    leaf = path.rsplit(".", 1)[-1].split("[", 1)[0]
    if leaf == "certificate_arn":
        return "certificate"
    if leaf.endswith("_arn") or leaf.endswith("_arns"):
        return "role"
    if leaf == "image" or path.startswith("images."):  # ServingEnvironmentArgs.images: per workload, an image
        return "image"
    if leaf.endswith(("_id", "_ids")):
        for part, kind in (("security_group", "sg"), ("subnet", "subnet"), ("vpc", "vpc"),
                           ("capacity_reservation", "cr")):
            if part in leaf:
                return kind
    return "name"


class Unknowns:
    """Stand-ins for the Outputs of one component's arguments (see the module doc)."""

    def __init__(self) -> None:
        self._outputs: dict[str, pulumi.Output[Any]] = {}
        self.paths: dict[str, str] = {}  # argument path -> token
        self._checks: dict[str, list[Check]] = {}

    # --- replacing -----------------------------------------------------------------------------

    def token(self, path: str, value: pulumi.Output[Any]) -> str:
        kind = _kind(path)
        known = _BY_OUTPUT.get((id(value), kind))
        if known is not None and known[0] is value:  # the same Output in several arguments: the same token
            self._outputs.update(known[2])
            self.paths[path] = known[1]
            return known[1]
        n = next(_COUNTER)
        if kind == "role":
            token = f"{_ROLE}{TOKEN_PREFIX}{n:08d}"
            self._outputs[f"{TOKEN_PREFIX}{n:08d}"] = value.apply(lambda arn: str(arn).rsplit("/", 1)[-1])
        elif kind == "certificate":  # an ACM certificate made in the same program
            token = f"{_CERT}{TOKEN_PREFIX}{n:08d}"
            self._outputs[f"{TOKEN_PREFIX}{n:08d}"] = value.apply(lambda arn: str(arn).rsplit("/", 1)[-1])
        elif kind == "image":
            token = f"{TOKEN_PREFIX}{n:08d}:unknown"
        elif kind in ("vpc", "subnet", "sg", "cr"):
            token = f"{kind}-{0x5ad0000000000000 + n:017x}"
        else:
            token = f"{TOKEN_PREFIX}{n:08d}"
        self._outputs[token] = value
        self.paths[path] = token
        _BY_OUTPUT[(id(value), kind)] = (value, token, {t: o for t, o in self._outputs.items() if t in token})
        return token

    def replace(self, value: Any, path: str = "") -> Any:
        """A copy of ``value`` (dataclasses, pydantic models, mappings, sequences) with tokens for Outputs."""
        if is_output(value):
            return self.token(path, value)
        if isinstance(value, BaseModel):
            return value  # validated already: it holds no Output
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: self.replace(getattr(value, f.name), _join(path, f.name))
                    for f in dataclasses.fields(value)}
        if isinstance(value, Mapping):
            return {k: self.replace(v, _join(path, str(k))) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.replace(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    def merge(self, *others: Unknowns) -> Unknowns:
        """These stand-ins and those of other components' arguments (tokens are unique per process)."""
        for other in others:
            self._outputs.update(other._outputs)
        return self

    def tokens_in(self, text: str) -> list[str]:
        """The stand-ins that occur in ``text``."""
        return [t for t in sorted(self._outputs, key=len, reverse=True) if t in text]

    def is_token(self, value: Any) -> bool:
        return isinstance(value, str) and value in self._outputs

    @property
    def deferred(self) -> list[str]:
        """The argument paths validated only when their value resolves."""
        return sorted(self.paths)

    # --- checks at resolution --------------------------------------------------------------------

    def check_when_resolved(self, path: str, check: Check) -> None:
        """Run ``check(resolved value)`` (→ (path, message) findings) when the Output at ``path`` resolves."""
        if path in self.paths:
            self._checks.setdefault(path, []).append(check)

    def field_check(self, path: str, model: type[BaseModel], field: str) -> None:
        """Re-validate the resolved value with the constraint of ``model.field``."""
        info = model.model_fields[field]
        adapter: TypeAdapter[Any] = TypeAdapter(info.annotation if info.annotation is not None else Any)
        pattern = next((getattr(m, "pattern", None) for m in info.metadata if getattr(m, "pattern", None)), None)

        def check(value: Any) -> list[tuple[str, str]]:
            try:
                adapter.validate_python(value)
            except ValidationError as e:
                return [(path, e.errors()[0]["msg"])]
            if pattern and isinstance(value, str) and not re.search(pattern, value):
                return [(path, f"`{value}` does not match {pattern}")]
            return []

        self.check_when_resolved(path, check)

    def finish(self, component: str) -> None:
        """Attach the resolution checks: each Output becomes one that fails with the findings."""
        by_token: dict[str, list[str]] = {}
        for path, token in self.paths.items():  # one Output in several arguments: every one's checks
            by_token.setdefault(token, []).append(path)
        for token, out in list(self._outputs.items()):
            paths = by_token.get(token, [])
            checks = [c for p in paths for c in self._checks.get(p, [])]
            if checks:
                self._outputs[token] = out.apply(_checked(component, paths[0], checks))

    # --- substituting ----------------------------------------------------------------------------

    def substitute(self, obj: Any) -> Any:
        """``obj`` with every token replaced by its Output (strings that contain one become Outputs)."""
        if not self._outputs:
            return obj
        pattern = re.compile("|".join(re.escape(t) for t in sorted(self._outputs, key=len, reverse=True)))
        return self._sub(obj, pattern)

    def output(self, token_or_value: Any) -> Any:
        """The Output behind a token (else the value itself)."""
        return self._outputs.get(token_or_value, token_or_value) if isinstance(token_or_value, str) \
            else token_or_value

    def _sub(self, obj: Any, pattern: re.Pattern[str]) -> Any:
        if isinstance(obj, str):
            if obj in self._outputs:
                return self._outputs[obj]
            found = pattern.findall(obj)
            if not found:
                return obj
            outs = [self._outputs[t] for t in found]
            return pulumi.Output.all(*outs).apply(lambda values: _fill(obj, pattern, found, values))
        if isinstance(obj, Mapping):
            return {k: self._sub(v, pattern) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self._sub(v, pattern) for v in obj]
        return obj


def _fill(text: str, pattern: re.Pattern[str], found: Sequence[str], values: Sequence[Any]) -> str:
    lookup = dict(zip(found, values, strict=True))
    return pattern.sub(lambda m: str(lookup[m.group(0)]), text)


def _checked(component: str, path: str, checks: list[Check]) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        findings = [f for check in checks for f in check(value)]
        if findings:
            raise ArgumentsError(component, findings, when=f"when `{path}` resolved to {value!r}")
        return value

    return run


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def spec_values(args: Any, fields: Sequence[str]) -> dict[str, Any]:
    """The named fields of an ``…Args`` dataclass, as a mapping for a spec model."""
    return {f: getattr(args, f) for f in fields if hasattr(args, f)}
