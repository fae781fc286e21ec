"""Small readers of object fields: maps, lists, lines, integers, annotations, suppressions.

Every extractor reads through these, so a wrong-typed field reads as absent in one place (or is an
:class:`InputError` with file and line where a rule needs the value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ...model import UNKNOWN, Location, Suppression
from ...model.errors import InputError
from ...model.unknown import is_placeholder
from ...model.vocab import ANN_IGNORE
from ..yamlsrc import LineDict
from .parse import yaml_type

_CODE = re.compile(r"^SW\d{3}$")
_CODES_THEN_REASON = re.compile(r"^((?:SW\d{3}\b[\s,]*)+)(.*)$", re.IGNORECASE | re.DOTALL)
# module constants, not literals in parse_ignore: this module is compiled by mypyc, and the pattern store
# (rules/_regex_code.py) keeps the patterns of a compiled module's body only
_ENTRIES = re.compile(r"[;\n]")
_CODE_SEPARATORS = re.compile(r"[,\s]+")
_ANY_CODE = re.compile(r"SW\d{3}", re.IGNORECASE)

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else _EMPTY  # dict, not Mapping: the ABC check is slow


def api_group(obj: Mapping[str, Any]) -> str | None:
    """The API group of an object's ``apiVersion``: ``"apps"`` of ``apps/v1``, ``""`` (the core group) of
    ``v1``; None when ``apiVersion`` is not a string (not known yet at preview)."""
    api = obj.get("apiVersion")
    if not isinstance(api, str):
        return None
    return api.split("/", 1)[0].strip() if "/" in api else ""


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def line_of(d: Any, key: str) -> int | None:
    return d.line_of(key) if isinstance(d, LineDict) else None


def typed_map(d: Any, key: str, what: str, loc: Location) -> Mapping[str, Any]:
    """``d[key]`` as a mapping. Absent, null or not known yet (a computed value) reads as empty; any other
    type is an :class:`InputError` naming ``what`` (the field's path) at the key's line: Kubernetes
    rejects such an object, so it must not vanish from the run."""
    value = d.get(key) if isinstance(d, dict) else None
    if value is None or value is UNKNOWN or isinstance(value, dict):
        return value if isinstance(value, dict) else _EMPTY
    raise InputError(f"{what}: expected a mapping, found {_yaml_type(value)}", loc.file, line_of(d, key) or loc.line)


def typed_list(d: Any, key: str, what: str, loc: Location) -> list[Any]:
    """``d[key]`` as a list, read like :func:`typed_map`."""
    value = d.get(key) if isinstance(d, dict) else None
    if value is None or value is UNKNOWN or isinstance(value, list):
        return value if isinstance(value, list) else []
    raise InputError(f"{what}: expected a list, found {_yaml_type(value)}", loc.file, line_of(d, key) or loc.line)


def typed_items(d: Any, key: str, what: str, loc: Location) -> list[Mapping[str, Any]]:
    """The entries of the list ``d[key]``, each a mapping (an entry of another type is an InputError at
    its list's line)."""
    out: list[Mapping[str, Any]] = []
    for i, item in enumerate(typed_list(d, key, what, loc)):
        if item is UNKNOWN:
            continue
        if not isinstance(item, dict):
            raise InputError(f"{what}[{i}]: expected a mapping, found {_yaml_type(item)}", loc.file,
                             line_of(d, key) or loc.line)
        out.append(item)
    return out


def _yaml_type(value: Any) -> str:
    return yaml_type(value)


def port_names(ports: Any, first_wins: bool = False) -> dict[str, Any]:
    """A container's named ports (``Container.port_names``): name -> containerPort, UNKNOWN when the number is
    not known yet; ``"*"`` -> UNKNOWN when the list, an entry or a name is not known yet (a Kubernetes port
    name never is ``*``)."""
    if ports is UNKNOWN:
        return {"*": UNKNOWN}
    out: dict[str, Any] = {}
    for p in as_list(ports):
        if p is UNKNOWN or (isinstance(p, Mapping) and p.get("name") is UNKNOWN):
            out["*"] = UNKNOWN
            continue
        p = as_map(p)
        name, number = p.get("name"), p.get("containerPort")
        if isinstance(name, str) and (number is UNKNOWN or (isinstance(number, int) and not isinstance(number, bool))):
            if not first_wins or name not in out:
                out[name] = number
    return out


def str_map(value: Any) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in as_map(value).items()}



#: A Kubernetes resource quantity (k8s.io/apimachinery/pkg/api/resource, quantity.go): a signed decimal number
#: and a suffix, binary (Ki..Ei), decimal (n, u, m, k, M, G, T, P, E) or an exponent (e3, E-2).
_QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?")
_SUFFIX = {"Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
           "Pi": Fraction(2**50), "Ei": Fraction(2**60), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6),
           "m": Fraction(1, 1000), "": Fraction(1), "k": Fraction(10**3), "M": Fraction(10**6),
           "G": Fraction(10**9), "T": Fraction(10**12), "P": Fraction(10**15), "E": Fraction(10**18)}


#: No quantity holds more than this (quantity.go: "no quantity may represent a number greater than 2^63-1").
_MAX_QUANTITY = 2**63 - 1
#: The most digits a quantity's number may have to be read: Python's own bound on converting a string to an integer
#: (``sys.get_int_max_str_digits()``, 4,300; the JSON and YAML readers hold numbers to it too, docs/limits.md).
#: Past it a quantity is not read, as an exponent past e1000 is not: far beyond 2^63-1, or of a precision the API
#: server rounds away.
_MAX_DIGITS = 4300


def quantity(value: Any) -> Fraction | None:
    """The value of a Kubernetes resource quantity as the API server parses it (``"2"``, ``2``, ``1.0``, ``"1e3"``,
    ``"2000m"``, ``"1k"``: a YAML number or a string), None when it is not one (``true``, ``"one"``, ``"2 GPUs"``,
    a list). Exponents beyond what the API server takes (its limit is far below ``e1000``) are not quantities."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = value.strip() if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)
    m = _QUANTITY.fullmatch(text)
    if not m:
        return None
    number, suffix = m.group(1), m.group(2) or ""
    if len(number) > _MAX_DIGITS or len(suffix) > 6:  # Python converts no more digits (fuzz19: an internal error)
        return None
    if suffix not in _SUFFIX:  # an exponent (e3, E-2); not "E" (exa) nor "Ei" (exbi), an internal error before (fuzz17)
        exponent = int(suffix[1:])
        if abs(exponent) > 1000:
            return None
        scale = Fraction(10) ** exponent
    else:
        scale = _SUFFIX[suffix]
    return Fraction(number) * scale


def whole_quantity(value: Any) -> int | None:
    """A quantity that is a whole number of at least 0 (what Kubernetes admits for an extended resource such as
    ``nvidia.com/gpu``), else None."""
    if type(value) is int or (type(value) is str and value.isascii() and value.isdigit()  # 1, "8": most counts
                              and len(value) <= _MAX_DIGITS):
        n = int(value)
        return n if 0 <= n <= _MAX_QUANTITY else None
    q = quantity(value)
    return int(q) if q is not None and q.denominator == 1 and 0 <= q <= _MAX_QUANTITY else None


def quantity_problem(value: Any) -> str:
    """Why ``value`` is no count of an extended resource, in the words of Kubernetes' validation."""
    q = quantity(value)
    if q is None:
        return "not a Kubernetes quantity"
    if q < 0:
        return "Kubernetes refuses a negative quantity"
    if q > _MAX_QUANTITY:
        return "more than the 2^63-1 a Kubernetes quantity holds"
    return "Kubernetes takes only whole numbers of an extended resource"


def int_field(d: Mapping[str, Any], key: str, default: Any, loc: Location, what: str, minimum: int = 0,
              text_ok: bool = False) -> Any:
    """An integer field of a Kubernetes object (``spec.replicas``, a CRD's ``size`` or ``minReplicas``): the number,
    ``default`` when absent or null, UNKNOWN when not known yet (a template's placeholder).

    Kubernetes types these fields as integers (int32 in the Go structs, ``type: integer`` in a CRD's schema): the
    API server refuses ``replicas: "2"`` (``cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
    of type int32``), so a string of digits is an :class:`InputError` at its line, never read as its number, as a
    boolean is. ``text_ok`` is for fields that no API server types (Ray Serve's config, read by pydantic, which
    takes ``"2"`` as 2)."""
    value = d.get(key)
    if value is None:
        return default
    if value is UNKNOWN or is_placeholder(value):  # a template's ${REPLICAS} / {{ .Values.size }}: not known yet
        return UNKNOWN
    line = line_of(d, key) or loc.line
    if isinstance(value, bool):
        raise InputError(f"{what}: expected an integer, got {value!r}", loc.file, line)
    if isinstance(value, int):
        number = value
    else:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InputError(f"{what}: expected an integer, got {value!r}", loc.file, line) from None
        if not text_ok:
            raise InputError(f"{what}: expected an integer, found {yaml_type(value)} (\"{value}\"); Kubernetes refuses "
                             f"the object as written: write the number without quotes ({number})", loc.file, line)
    if number < minimum:
        raise InputError(f"{what}: expected an integer of at least {minimum}, got {value!r}", loc.file, line)
    if number > INT32_MAX and not text_ok:  # hostile8: int32 in the Go structs (Ray reads its own config)
        raise InputError(f"{what}: expected an integer of at most {INT32_MAX:,} (Kubernetes types it as int32), got "
                         f"{_short_number(value)}", loc.file, line)
    return number


#: The largest value of a Kubernetes int32 field (``spec.replicas``, a port).
INT32_MAX = 2**31 - 1


def _short_number(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}…({len(text):,} characters)"


def read_annotations(*metas: Any) -> tuple[dict[str, str], dict[str, int | None]]:
    """Merged annotations (later metadata wins) and the line of each."""
    values: dict[str, str] = {}
    lines: dict[str, int | None] = {}
    for meta in metas:
        ann = as_map(as_map(meta).get("annotations"))
        for k, v in ann.items():
            values[str(k)] = "" if v is None else str(v)
            lines[str(k)] = line_of(ann, k)
    return values, lines


def parse_ignore(value: str, location: Location) -> list[Suppression]:
    """``"SW104: reason; SW106: reason"`` -> suppressions (``;`` or newlines between entries).

    An entry without a reason (``"SW104"`` or ``"SW104:"``) is kept with ``reason=""`` so the
    engine reports it. Several codes may share a reason (``"SW104, SW106: reason"``); without a
    colon, the words after the codes are the reason. A piece that does not start with a rule code
    continues the previous entry's reason (a reason may contain ``;``); anywhere else it is an
    :class:`InputError`.
    """
    out: list[Suppression] = []
    last: list[int] = []  # indices of the previous entry's suppressions
    for raw in _ENTRIES.split(value):
        entry = raw.strip()
        if not entry:
            continue
        head, colon, tail = entry.partition(":")
        codes: list[str] = []
        reason = ""
        if colon:
            words = [w for w in _CODE_SEPARATORS.split(head) if w]
            if words and all(_CODE.match(w.upper()) for w in words):
                codes, reason = [w.upper() for w in words], tail.strip()
        else:
            m = _CODES_THEN_REASON.match(entry)
            if m:
                codes = [c.upper() for c in _ANY_CODE.findall(m.group(1))]
                reason = m.group(2).strip()
        if not codes:
            if last and out[last[0]].reason:
                joined = f"{out[last[0]].reason}; {entry}"
                for i in last:
                    out[i] = Suppression(out[i].code, joined, out[i].location)
                continue
            raise InputError(
                f"{ANN_IGNORE}: {entry!r} does not start with a rule code (SWnnn)", location.file, location.line
            )
        last = []
        for code in codes:
            last.append(len(out))
            out.append(Suppression(code, reason, location))
    return out


def suppressions_from(ann: Mapping[str, str], lines: Mapping[str, int | None], file: str | None,
                  default_line: int | None) -> list[Suppression]:
    if ANN_IGNORE not in ann:
        return []
    return parse_ignore(ann[ANN_IGNORE], Location(file, lines.get(ANN_IGNORE) or default_line))

