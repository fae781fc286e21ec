"""vLLM production-stack's router (``vllm-router``) in a pod template, read as the :class:`~..model.Router` SW406
judges.

The router is the ``vllm-router`` entry point of vllm-project/production-stack (``pyproject.toml``
``[project.scripts]``), which its image ``lmcache/lmstack-router`` runs as its ENTRYPOINT (``docker/Dockerfile``),
so the ``vllm-stack`` chart's ``deployment-router.yaml`` writes only ``args``. A container is a router when its image
is ``lmcache/lmstack-router`` (any registry, tag or digest) or its command runs ``vllm-router`` (a path ending in it,
or ``python -m vllm_router.app``). Its arguments are read as the router's parser reads them
(``src/vllm_router/parsers/parser.py`` at vllm-stack-0.1.12, the same options at 0.1.4): ``--routing-logic``,
``--service-discovery``, ``--k8s-namespace`` (default ``default``), ``--k8s-label-selector`` (default empty: every pod
of the namespace), ``--k8s-service-discovery-type`` (``pod-ip`` when not given; the option from 0.1.7),
``--static-backends`` (comma-separated URLs) and ``--static-models`` (the model each backend serves, in the same
order), each as ``--flag value`` or ``--flag=value``. ``$(VAR)`` is expanded as kubelet does, from the container's
literal env, its ``valueFrom.configMapKeyRef`` and its ``envFrom`` ConfigMaps when the inputs hold them (any input:
a router that looked one up that its own input lacks is read again once every input is, ``configjoin.py``). A word
the inputs do not give (a ``$(VAR)`` from a Secret or a ConfigMap not in the inputs, a template placeholder) is
unknown, and the router keeps what was written for it. A router without ``--routing-logic`` exits
at start (``verify_required_args_provided``): it routes nothing and is not read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from ...model import ROUTER_LOGICS, UNKNOWN, Container, Inventory, LaunchIssue, Location, Router
from ...model.unknown import UNKNOWN_TOKEN, holds_placeholder
from .configfile import config_map_key, env_from_values
from .fields import as_map, read_annotations, suppressions_from

ROUTER_IMAGE = "lmcache/lmstack-router"
_VAR = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_FLAGS = ("--routing-logic", "--service-discovery", "--k8s-namespace", "--k8s-label-selector", "--static-backends",
          "--static-models", "--k8s-service-discovery-type")


def _image_repo(image: Any) -> str:
    """The repository of an image reference without registry host, tag or digest (``lmcache/lmstack-router``)."""
    if not isinstance(image, str):
        return ""
    ref = image.split("@", 1)[0]
    name, _, tag = ref.rpartition(":")
    if name and "/" not in tag:
        ref = name
    parts = ref.split("/")
    if len(parts) > 2 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]
    return "/".join(parts)


def is_router(c: Container) -> bool:
    """Whether container ``c`` runs production-stack's router (see the module's docstring)."""
    repo = _image_repo(c.image)
    if repo == ROUTER_IMAGE or repo.endswith("/" + ROUTER_IMAGE):  # a mirror keeps the path under its own
        return True
    words = [w for w in c.command if isinstance(w, str)]
    if words and posixpath.basename(words[0]) == "vllm-router":
        return True
    return any(words[i] == "-m" and words[i + 1] == "vllm_router.app" for i in range(len(words) - 1))


def _word(w: Any, env: Mapping[str, Any]) -> Any:
    """A word as the router receives it: ``$(VAR)`` expanded from a literal env value, UNKNOWN when not known."""
    if not isinstance(w, str) or UNKNOWN_TOKEN in w:
        return UNKNOWN

    def sub(m: re.Match[str]) -> str:
        v = env.get(m.group(1))
        return v if isinstance(v, str) else m.group(0)

    out = _VAR.sub(sub, w)
    return UNKNOWN if _VAR.search(out) or holds_placeholder(out) else out


def _env(c: Container) -> dict[str, str]:
    """The variables kubelet sets in the router's container that the inputs give: its ``envFrom`` ConfigMaps (all
    of them held by the inputs, else none: a Secret or a missing map may set any name), then its ``env`` over them,
    a literal value or a ``configMapKeyRef`` the inputs hold (makeEnvironmentVariables' order)."""
    out: dict[str, str] = {}
    if c.env_from:
        rebuilt = [{"configMapRef" if s.kind == "configMap" else "secretRef": {"name": s.name}, "prefix": s.prefix}
                   for s in c.env_from]
        out.update(env_from_values(rebuilt) or {})
    for name, value in c.env.items():
        if isinstance(value, str):
            out[name] = value
        elif name in c.env_refs:
            known = config_map_key(*c.env_refs[name])
            if known is None:
                out.pop(name, None)
            else:
                out[name] = known
        else:
            out.pop(name, None)
    return out


def _options(words: list[Any], raw: list[Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The last value given for each flag of :data:`_FLAGS` (argparse keeps the last), and what was written for
    each that is not known (``raw``: the words as written)."""
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w is UNKNOWN:
            flag, eq, value = raw[i].partition("=") if isinstance(raw[i], str) else ("", "", "")
            if flag in _FLAGS and eq:  # --routing-logic=$(LOGIC)
                out[flag], written[flag] = UNKNOWN, value
            i += 1
            continue
        flag, eq, value = w.partition("=")
        if flag in _FLAGS:
            if eq:
                out[flag] = value
                written.pop(flag, None)
            elif i + 1 < len(words):
                out[flag] = words[i + 1]
                if words[i + 1] is UNKNOWN and isinstance(raw[i + 1], str):
                    written[flag] = raw[i + 1]
                else:
                    written.pop(flag, None)
                i += 1
        i += 1
    return out, written


def _selector(text: Any) -> Any:
    """``a=b,c=d`` as {a: b, c: d}; UNKNOWN when not known or a term is not an equality (``a in (x)``, ``!a``)."""
    if text is UNKNOWN:
        return UNKNOWN
    out: dict[str, str] = {}
    for term in str(text).split(","):
        term = term.strip()
        if not term:
            continue
        key, op, value = term.partition("==") if "==" in term else term.partition("=")
        if not op or "!" in key or " " in key.strip():
            return UNKNOWN
        out[key.strip()] = value.strip()
    return out


def read_router(kind: str, obj: Mapping[str, Any], loc: Location, containers: list[Container],
                claimed: bool = False) -> Router | None:
    """The router the first router container of a pod template runs, None when none runs one or it is given no
    ``--routing-logic``; ``claimed``: the object says its first container is the router (the operator's
    ``VLLMRouter``, whatever image it names)."""
    c = next((c for c in containers if claimed or is_router(c)), None)
    if c is None:
        return None
    env = _env(c)
    raw = [*c.command, *c.args]
    words = [_word(w, env) for w in raw]
    opts, written = _options(words, raw)
    if "--routing-logic" not in opts:
        return None
    meta = as_map(obj.get("metadata"))
    ann, lines = read_annotations(meta)
    discovery = opts.get("--service-discovery")
    backends = opts.get("--static-backends")
    models = opts.get("--static-models")
    return Router(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"), kind=kind,
        logic=opts["--routing-logic"], discovery=discovery,
        watch_namespace=opts.get("--k8s-namespace", "default"),
        selector=_selector(opts.get("--k8s-label-selector", "")),
        backends=UNKNOWN if backends is UNKNOWN else [b.strip() for b in str(backends or "").split(",") if b.strip()],
        static_models=models if models is None or models is UNKNOWN else [m.strip() for m in str(models).split(",")],
        discovery_type=opts.get("--k8s-service-discovery-type", "pod-ip"),
        location=c.location if c.location.line else loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
        written=written,
    )


def add_router(kind: str, obj: Mapping[str, Any], loc: Location, containers: list[Container],
               inv: Inventory) -> bool:
    """Add the router a workload's pod runs (:func:`read_router`); True when one was added."""
    r = read_router(kind, obj, loc, containers)
    if r is not None:
        keep_router(r, inv)
    return r is not None


def keep_router(r: Router, inv: Inventory) -> None:
    """Add a router read to ``inv``, and SW003's record where its ``--routing-logic`` is one it exits on."""
    inv.routers.append(r)
    if isinstance(r.logic, str) and r.logic not in ROUTER_LOGICS:
        inv.launch_issues.append(_refused_logic(r))


def _refused_logic(r: Router) -> LaunchIssue:
    """SW003's record of a router given a ``--routing-logic`` that no release read takes: argparse's ``choices``
    refuses it ("argument --routing-logic: invalid choice") and the router exits at start, routing nothing. Advisory:
    the router's image tags name no release (builds of main, and ``latest``), and a later build may add a choice, as
    0.1.3 added three and 0.1.11 one (:data:`~..model.ROUTER_LOGICS`)."""
    subject = f"{r.kind} {r.namespace}/{r.name}"
    return LaunchIssue(
        subject, "",
        f"vllm-router exits at start: --routing-logic `{r.logic}` is none of its choices at any release read "
        f"(vllm-stack-0.0.3 to 0.1.12: {', '.join(ROUTER_LOGICS)}; argparse says \"invalid choice\"); write one of "
        "them (advisory: the router's image names no release, and a later build may add a choice)",
        r.location, crash=True, suppressions=list(r.suppressions), namespace=r.namespace, advisory=True)
