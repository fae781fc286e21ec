"""capacity/sizing builds its named tuples with ``tuple.__new__`` (lintspeed20: a named tuple's own ``__new__`` is a
Python function, 2.7 % of a large lint). ``tuple.__new__`` checks nothing: a call that gives fewer or more values than
the class has fields builds a tuple whose later fields are missing or extra, and the mistake shows only where a field
is read. Every such call writes its values as a tuple literal (or a conditional between two); each must give exactly the
class's fields."""

from __future__ import annotations

import ast
import os

from repo_paths import ROOT
from shardwise.rules.capacity import sizing

#: the module's source: read from the file, as `make setup` compiles the module with mypyc (no source to inspect)
SOURCE = os.path.join(ROOT, "rules", "capacity", "sizing.py")


def _calls() -> list[tuple[int, str, int]]:
    """(line, class name, values given) of every ``_tuple_new(Class, (...))`` in capacity/sizing.py."""
    with open(SOURCE, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_tuple_new":
            cls, values = node.args
            assert isinstance(cls, (ast.Name, ast.Attribute)), f"line {node.lineno}: the class is not named"
            # one tuple literal, or a conditional between tuple literals: each branch counted
            branches = [values.body, values.orelse] if isinstance(values, ast.IfExp) else [values]
            for v in branches:
                assert isinstance(v, ast.Tuple), f"line {node.lineno}: the values are not a tuple literal"
                starred = any(isinstance(e, ast.Starred) for e in v.elts)  # not counted here: see below
                out.append((node.lineno, ast.unparse(cls), -1 if starred else len(v.elts)))
    return out


def test_every_tuple_new_call_gives_each_field_of_its_class():
    calls = _calls()
    assert len(calls) >= 20  # the sizing's tuples are built this way (28 calls when this was written)
    def fields(name: str) -> int:  # a class of the module, or of a module it imports (kv_layout.StateDtypes)
        obj = sizing
        for part in name.split("."):
            obj = getattr(obj, part)
        return len(obj._fields)

    wrong = [(line, name, given, fields(name)) for line, name, given in calls if given not in (-1, fields(name))]
    assert wrong == []
    # the one call that spreads a row's values (_Stage: six, the last stage's peak, three) is read by hand; another
    # such call needs reading too (and this count moved)
    assert [name for _, name, given in calls if given == -1] == ["_Stage"]
