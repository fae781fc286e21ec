"""Values the engine does not know yet: :data:`UNKNOWN` (a computed output at preview, an unresolved reference),
how a rule asks for a value it needs (:func:`known`) and what it raises when the value is unknown
(:class:`Undecidable`, :class:`ModelNotKnown`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import TypeIs

T = TypeVar("T")


class _Unknown:
    """Sentinel for a value the engine does not know yet (a computed output at preview)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unknown>"

    def __bool__(self) -> bool:
        raise TypeError("an unknown value has no truth value; use known() first")


#: The type of :data:`UNKNOWN`, for a field or variable that may hold it: ``str | Unknown | None``. Code compiled
#: by mypyc (scripts/mypyc_build.py) checks a value against its annotation where it reads it, so a field that may
#: be unknown says so in its type (an ``int | Unknown`` field; ``Any`` where it may hold anything).
Unknown = _Unknown

UNKNOWN: Any = _Unknown()


#: How an unknown value is written inside a command line (args are text): the vLLM flag parser reads
#: it as an unresolved reference, so the field becomes UNKNOWN.
UNKNOWN_TOKEN = "$(SHARDWISE_UNKNOWN_VALUE)"
#: How a template's angle-bracket placeholder written in a script (``vllm serve <model-id>``) reads: a value the
#: template's user fills in before applying it, not known here (rules/vllm/args.py ``_ANGLE_PLACEHOLDER``). A word of
#: its own (the script splitter would cut :data:`UNKNOWN_TOKEN` at its parentheses); read as UNKNOWN, never as a
#: variable a Secret sets.
PLACEHOLDER_VALUE = "${TEMPLATE_PLACEHOLDER}"
#: The key of ``EngineArgs.locations`` that holds where an unresolved word (``$(EXTRA_ARGS)``, an unknown
#: value) made the settings it could carry unknown: an undecided finding about one of them points there.
UNKNOWN_AT = "unknown-at"


#: The namespace of an object whose namespace is not known yet (the model keeps namespaces as text).
UNKNOWN_NAMESPACE = repr(UNKNOWN)
#: The namespace of a Helm chart's release where the run does not know it: a chart named on its own is rendered
#: with ``helm template --namespace RELEASE-NAMESPACE`` (``{{ .Release.Namespace }}``), and its objects that name no
#: namespace are given it, as ``helm install --namespace NS`` creates them in NS. Every object of the release shares
#: it, so its Services, policies and router select its pods as they will in the one namespace it is installed in;
#: it is never ``default`` (newuser11). Upper case: no namespace of a cluster can have this name (RFC 1123 label).
RELEASE_NAMESPACE = "RELEASE-NAMESPACE"


#: A template placeholder written as the whole value: envsubst's ``${NAME}`` (``${NAME:-x}``) and ``$NAME``, or an
#: unrendered Helm/Go ``{{ … }}``; never Kubernetes' own ``$(VAR)`` reference, which it expands itself.
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+-][^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*\}\}")


#: A template's angle-bracket placeholder written as the whole value, ``<GPU_COUNT>``, ``<tp-size>``, ``<your model
#: id>``: what a tutorial's or workshop's manifest leaves for its reader to fill before applying it (corpus38: AWS and
#: Red Hat guides write ``--tensor-parallel-size=<TP_SIZE>``, ``nvidia.com/gpu: "<gpu-count>"``). No Kubernetes
#: quantity, name, image or vLLM value is written so; read as a value it was an input error (a quantity) or SW003's
#: sure crash (a flag's value). Only the whole value: ``<s>`` inside a chat template's text is no placeholder.
_ANGLED = re.compile(r"<[A-Za-z][A-Za-z0-9_.:/-]*(?: [A-Za-z0-9_.:/-]+)*>")


def is_angle_placeholder(value: object) -> bool:
    """Whether ``value`` is, as a whole, a template's angle-bracket placeholder (:data:`_ANGLED`)."""
    return isinstance(value, str) and "<" in value and _ANGLED.fullmatch(value.strip()) is not None


def is_placeholder(value: object) -> bool:
    """Whether ``value`` is a whole-value template placeholder (:data:`_PLACEHOLDER`, :data:`_ANGLED`): a value the
    template's tool or its reader fills before the object is applied, an unknown, not a value as written."""
    return isinstance(value, str) and (_PLACEHOLDER.fullmatch(value.strip()) is not None or is_angle_placeholder(value))


def holds_placeholder(value: object) -> bool:
    """Whether ``value`` has a template placeholder (:data:`_PLACEHOLDER`) anywhere in it (``vllm-${SUFFIX}``), or is
    an angle-bracket one as a whole (:data:`_ANGLED`)."""
    return isinstance(value, str) and (_PLACEHOLDER.search(value) is not None or is_angle_placeholder(value))


def named_as_written(value: object, what: str) -> str:
    """``value`` as a finding names it, the ``what`` it is: ``the preset 'llama-3.1-8b'``, and for a value holding a
    template placeholder (:func:`holds_placeholder`, ``<your-vm-sku>`` too) ``the preset the template placeholder
    `${presetName}` names`` (corpus37: SW005 quoted a KAITO template's ``'${presetName}'`` as if it were a value)."""
    if holds_placeholder(value):
        return f"the {what} the template placeholder `{str(value).strip()}` names"
    return f"the {what} {value!r}"


#: What :func:`masked_placeholders` writes for each placeholder: a character no image reference, path or flag uses.
PLACEHOLDER_MARK = "\ue000"


def masked_placeholders(value: str) -> str:
    """``value`` with each template placeholder (:data:`_PLACEHOLDER`) written as :data:`PLACEHOLDER_MARK`, so a
    reader that splits the text at ``:``, ``/`` or ``@`` never splits a placeholder: ``${TAG:-latest}`` and
    ``${IMAGE:-vllm/vllm-openai}`` hold them in their defaults."""
    return _PLACEHOLDER.sub(PLACEHOLDER_MARK, value) if "$" in value or "{{" in value else value


def is_unknown(value: object) -> TypeIs[Unknown]:
    return value is UNKNOWN


def int_or_none(value: object) -> int | None:
    """``value`` as an int for a summary or a cost, or None when it is absent, unknown or not a number."""
    if value is None or value is UNKNOWN or isinstance(value, bool):
        return None
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


#: Why a value the inputs write is not known (the default reason of :class:`Undecidable`): a computed output, a
#: template placeholder, a ``$(VAR)`` or ``valueFrom`` the reader cannot resolve. What decides it depends on which
#: (``engine.what_decides``).
UNRESOLVED = "a computed value or an unresolved reference"
#: Why a variable set with ``valueFrom`` is not known where no ConfigMap of the inputs gives it.
FROM_VALUE_SOURCE = "it comes from a Secret, a ConfigMap or the downward API"


class Undecidable(Exception):
    """A rule needed a property whose value is unknown; ``reason`` says why it is unknown."""

    def __init__(self, prop: str, reason: str = UNRESOLVED) -> None:
        self.prop = prop
        self.reason = reason
        super().__init__(prop)

    @property
    def text(self) -> str:
        """``"tensor_parallel_size is not known (a computed value or an unresolved reference)"``."""
        return f"{self.prop} is not known ({self.reason})"


class ModelNotKnown(Undecidable):
    """The group's model is not known: SW004 reports it once for the workload, so the rules that need
    the model's shape say nothing on it (instead of each reporting "cannot decide")."""

    def __init__(self, reason: str) -> None:
        super().__init__("the model", reason)


def known(value: T | Unknown, prop: str) -> T:
    """Return ``value``, or raise :class:`Undecidable` naming ``prop`` when it is unknown."""
    if value is UNKNOWN:
        raise Undecidable(prop)
    return value  # type: ignore[return-value]  # not UNKNOWN: a T (``is`` with the one instance; no isinstance)
