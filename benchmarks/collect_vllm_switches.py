"""Collect, per vLLM release, the ``vllm serve`` options that take no value (argparse ``nargs=0``), for
``rules/catalog/data/vllm_switches.txt`` (read by :mod:`shardwise.rules.vllm.switches`).

An option that takes no value given one makes vLLM's argument parser exit at start-up: ``--enforce-eager=true`` with
"ignored explicit argument 'true'", ``--enforce-eager true`` with "unrecognized arguments: true" (the word is a
positional nothing takes once the model is given). Which options take no value changes by release: a flag added with
``action="store_true"``, or a config field typed ``bool`` that ``get_kwargs`` turns into ``BooleanOptionalAction``
(which takes ``--no-X`` too), takes none; ``StoreBoolean`` (``--enable-chunked-prefill`` in the 0.5 and 0.6 releases,
``nargs="?"``) takes an optional one.

Run over the unpacked source distributions (``pip download --no-deps --no-binary :all: --no-clean vllm==X`` keeps
one unpacked), one folder per release holding its ``vllm/`` package::

    python benchmarks/collect_vllm_switches.py SRC > rules/catalog/data/vllm_switches.txt   # SRC/0.6.3/vllm/...

It errs towards silence: an option counts only where every ``add_argument`` of it in the files that build the serve
parser (:data:`_PARSER_FILES`, :data:`_PARSER_DIRS`) writes its option string literally and either gives ``action``
one of ``store_true``, ``store_false``, ``store_const``, ``count`` or ``BooleanOptionalAction``, or passes nothing but
``**KWARGS["field"]`` where ``KWARGS = get_kwargs(Config)``, the field is annotated exactly ``bool`` and that
release's ``get_kwargs`` gives a ``bool`` field ``BooleanOptionalAction``. Options added in a loop (the frontend's
``FrontendArgs`` fields from 0.9), through a dict that may override the field's kwargs, or with any other action are
left out (read as taking a value: no finding).
"""

from __future__ import annotations

import ast
import os
import sys

_NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "count"}
#: The files that build ``vllm serve``'s parser (and the OpenAI API server's): the engine's arguments, the frontend's,
#: the serve subcommand's, the launchers and common arguments of the newest releases, and the 0.5/0.6 CLI. Another
#: CLI's parser (``vllm bench``, ``vllm chat``) may give the same option string another meaning: not read.
_PARSER_FILES = ("engine/arg_utils.py", "entrypoints/openai/cli_args.py", "entrypoints/cli/serve.py", "scripts.py")
_PARSER_DIRS = ("entrypoints/launchers/", "entrypoints/common/")


def _py_files(root: str, parts: tuple[str, ...] | None = None) -> list[str]:
    out = []
    base = os.path.join(root, "vllm")
    for d, _, files in os.walk(base):
        rel = os.path.relpath(d, base)
        if parts is not None and rel != "." and rel.split(os.sep)[0] not in parts:
            continue  # the package's own files (vllm/utils.py, vllm/scripts.py) are read in any case
        out += [os.path.join(d, f) for f in files if f.endswith(".py")]
    return sorted(out)


def _parse(path: str) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as f:
            return ast.parse(f.read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None


def _annotations(root: str) -> dict[str, dict[str, str]]:
    """class name -> {field: annotation as written}, over every file of the package (a name two classes share is
    left out: which one a ``get_kwargs`` reads is not known here)."""
    out: dict[str, dict[str, str]] = {}
    twice: set[str] = set()
    for path in _py_files(root):
        tree = _parse(path)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                fields = {s.target.id: ast.unparse(s.annotation) for s in node.body
                          if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
                if node.name in out:
                    twice.add(node.name)
                out[node.name] = fields
    for name in twice:
        del out[name]
    return out


def _bool_is_boolean_optional(root: str) -> bool:
    """Whether this release's ``get_kwargs`` (or the ``_compute_kwargs`` it calls) gives a ``bool`` field
    ``BooleanOptionalAction``."""
    for path in _py_files(root, ("engine",)):
        tree = _parse(path)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("get_kwargs", "_compute_kwargs"):
                text = ast.unparse(node)
                if "BooleanOptionalAction" in text and "bool" in text:
                    return True
    return False


def _no_value(call: ast.Call, kwargs_of: dict[str, str], fields: dict[str, dict[str, str]],
              bool_optional: bool) -> tuple[bool, bool]:
    """(whether the option takes no value, whether it also takes ``--no-X``)."""
    kw = {k.arg: k.value for k in call.keywords if k.arg is not None}
    starred = [k.value for k in call.keywords if k.arg is None]
    if "nargs" in kw or "type" in kw:
        return False, False
    action = kw.get("action")
    if action is not None:
        if isinstance(action, ast.Constant) and action.value in _NO_VALUE_ACTIONS:
            return True, False
        name = ast.unparse(action)
        if name.split(".")[-1] == "BooleanOptionalAction":
            return True, True
        return False, False
    if len(starred) != 1 or not bool_optional:
        return False, False
    s = starred[0]
    if not (isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name) and isinstance(s.slice, ast.Constant)
            and isinstance(s.slice.value, str)):
        return False, False
    cls = kwargs_of.get(s.value.id)
    if cls is None or fields.get(cls, {}).get(s.slice.value) != "bool":
        return False, False
    return True, True


def _touched(func: ast.FunctionDef) -> set[str]:
    """The names of the kwargs dicts the function changes after ``get_kwargs`` (``X["f"]["type"] = ...``,
    ``X["f"].update(...)``, ``X["f"] = ...``, ``del X["f"]``): a field of those may not keep its action."""
    out: set[str] = set()

    def root_name(node: ast.AST) -> str | None:
        while isinstance(node, ast.Subscript | ast.Attribute):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    for node in ast.walk(func):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("update", "pop", "setdefault", "__setitem__")
              and isinstance(node.func.value, ast.Subscript)):
            targets = [node.func.value]
        for t in targets:
            if isinstance(t, ast.Subscript):
                name = root_name(t)
                if name is not None:
                    out.add(name)
    return out


def switches(root: str) -> set[str]:
    """The option names (dashed, without ``--``) of the release at ``root`` that surely take no value."""
    fields = _annotations(root)
    bool_optional = _bool_is_boolean_optional(root)
    verdicts: dict[str, list[bool]] = {}
    base = os.path.join(root, "vllm")
    for path in _py_files(root):
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        if rel not in _PARSER_FILES and not rel.startswith(_PARSER_DIRS):
            continue
        tree = _parse(path)
        if tree is None:
            continue
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            kwargs_of: dict[str, str] = {}
            for node in ast.walk(func):  # KWARGS = get_kwargs(Config)
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, ast.Call) and ast.unparse(node.value.func).endswith("get_kwargs")
                        and len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name)):
                    kwargs_of[node.targets[0].id] = node.value.args[0].id
            touched = _touched(func)
            for node in ast.walk(func):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "add_argument"):
                    continue
                names = [a.value[2:] for a in node.args
                         if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]
                if not names:
                    continue
                none, negated = _no_value(node, {k: c for k, c in kwargs_of.items() if k not in touched}, fields,
                                          bool_optional)
                for n in names:
                    verdicts.setdefault(n, []).append(none)
                    if negated:
                        verdicts.setdefault(f"no-{n}", []).append(none)
    return {n for n, v in verdicts.items() if all(v)}


def main() -> None:
    src = sys.argv[1]
    releases = sorted(os.listdir(src), key=lambda r: tuple(int(x) for x in r.split(".")))
    found = {r: switches(os.path.join(src, r)) for r in releases}
    union = sorted(set().union(*found.values()))
    print("# vLLM options that take no value (argparse nargs=0), per release: benchmarks/collect_vllm_switches.py over")
    print("# each release's source distribution on PyPI. The union of the names, one a line; then a line per release,")
    print("# @RELEASE MASK: bit i of the hex mask (little-endian) says whether the i-th name takes no value there")
    print("\n".join(union))
    for r in releases:
        bits = sum(1 << i for i, n in enumerate(union) if n in found[r])
        print(f"@{r} {bits.to_bytes((len(union) + 7) // 8, 'little').hex()}")


if __name__ == "__main__":
    main()
