"""Gitignore-like glob patterns matched in time linear in the path, whatever the pattern.

A pattern is parsed once into tokens (:func:`tokens`); a bracket expression whose range is empty
(``[z-a]``) is a :class:`PatternError`, which the caller turns into an input error with the file and
line of the pattern. Matching never backtracks without bound:

- a pattern with at most one ``*`` and at most one ``**`` (nearly every real one: ``*.yaml``,
  ``charts/**/templates/``, ``**/tmp-*.yaml``) is matched by Python's regular expressions, whose
  backtracking is then bounded by the number of ``/`` in the path times the length of one name;
- any other (``*a*a*a*a*a*a*a*a*a*a*a*a*b``: a backtracking matcher takes minutes on one name) by a
  set-of-states automaton (Thompson's construction), one step per character of the path, its
  transitions memoised per state set and character (a lazy DFA, its memo bounded).

Both are built from the same tokens and give the same answers (``tests/test_hostile_inputs.py``
compares them on random patterns). Semantics: ``*`` and ``?`` match within one path segment, ``**``
spans segments (``**/`` also matches no directory, a trailing ``/**`` everything below), ``[...]``
one character of a set (``!`` or ``^`` first negates it; ``]`` first is itself; ranges ``a-z``), never
``/``; ``\\`` escapes the next character.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: Most memoised transitions an automaton keeps (a pattern whose state sets keep growing only recomputes).
_MEMO = 65536


class PatternError(ValueError):
    """A pattern that cannot mean anything (an empty range): the message says what is wrong."""


@dataclass(frozen=True)
class _Class:
    negate: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]

    def __call__(self, c: str) -> bool:
        if c == "/":
            return False
        hit = c in self.chars or any(lo <= c <= hi for lo, hi in self.ranges)
        return hit != self.negate

    def regex(self) -> str:
        body = "".join(re.escape(c) for c in sorted(self.chars))
        body += "".join(f"{re.escape(lo)}-{re.escape(hi)}" for lo, hi in self.ranges)
        return f"[^/{body}]" if self.negate else f"(?!/)[{body}]"


#: Token kinds: a literal character is the character itself (a one-character str).
ONE, STAR, ANY, DIRS = "?", "*", "**", "**/"
Token = str | _Class


def _bracket(glob: str, i: int) -> tuple[_Class, int] | None:
    """The bracket expression starting at ``glob[i] == "["`` and the index after it, or None when it is not
    closed (then ``[`` is itself)."""
    n = len(glob)
    j = i + 1
    negate = j < n and glob[j] in "!^"
    if negate:
        j += 1
    members: list[str] = []
    first = True
    while j < n and (glob[j] != "]" or first):
        c = glob[j]
        if c == "\\" and j + 1 < n:
            j += 1
            c = glob[j]
        members.append(c)
        first = False
        j += 1
    if j >= n:
        return None
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    k = 0
    while k < len(members):
        if k + 2 < len(members) and members[k + 1] == "-":
            lo, hi = members[k], members[k + 2]
            if lo > hi:
                raise PatternError(f"the range {lo}-{hi} in {glob[i:j + 1]} is empty: its first character comes "
                                   f"after its last (write {hi}-{lo})")
            ranges.append((lo, hi))
            k += 3
        else:
            chars.add(members[k])
            k += 1
    return _Class(negate, frozenset(chars), tuple(ranges)), j + 1


def tokens(glob: str) -> list[Token]:
    """The tokens of ``glob`` (without the leading ``!`` and the trailing ``/`` of a gitignore line), or
    :class:`PatternError`."""
    out: list[Token] = []
    i, n = 0, len(glob)
    # Once one ``[`` has no ``]`` after it, no later one has (both scans step over the same escapes, and a
    # later one's first member comes after the earlier one's): without this, each of a line of 20,000 ``[``
    # scanned to the end of the line, 20,000² steps from one line of a repository's ``.shardwiseignore``.
    closable = True
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append(DIRS)
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out += [_Literal("/"), ANY]
            i += 3
        elif glob.startswith("**", i):
            out.append(ANY)
            i += 2
        elif c == "*":
            out.append(STAR)
            i += 1
        elif c == "?":
            out.append(ONE)
            i += 1
        elif c == "[":
            found = _bracket(glob, i) if closable else None
            if found is None:
                closable = False
                out.append(_Literal("["))
                i += 1
            else:
                out.append(found[0])
                i = found[1]
        elif c == "\\" and i + 1 < n:
            out.append(_Literal(glob[i + 1]))
            i += 2
        else:
            out.append(_Literal(c))
            i += 1
    return out


class _Literal(str):
    """A literal character, told apart from the token kinds (an escaped ``\\*`` is the character ``*``)."""

    __slots__ = ()


def _regex(toks: list[Token]) -> str:
    parts = []
    for t in toks:
        if isinstance(t, _Class):
            parts.append(t.regex())
        elif isinstance(t, _Literal):
            parts.append(re.escape(t))
        else:
            parts.append({ONE: "[^/]", STAR: "[^/]*", ANY: ".*", DIRS: "(?:.*/)?"}[t])
    return "".join(parts)


def _kind(t: Token) -> str | None:
    return None if isinstance(t, _Class | _Literal) else t if t in (ONE, STAR, ANY, DIRS) else None


class Automaton:
    """A set-of-states matcher of ``toks`` against a whole string: state ``2i`` is "before token i", state
    ``2i + 1`` is "inside the ``**/`` token i" (it has read some text and awaits a ``/``); bit ``2n`` accepts."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.kinds = [_kind(t) for t in toks]
        self.accept = 1 << (2 * len(toks))
        self.memo: dict[tuple[int, str], int] = {}
        self.start = self._closure(1)

    def _closure(self, mask: int) -> int:
        todo = [b for b in range(mask.bit_length()) if mask >> b & 1]
        while todo:
            s = todo.pop()
            if s & 1 or s // 2 >= len(self.toks):
                continue
            kind = self.kinds[s // 2]
            adds = (s + 2,) if kind in (STAR, ANY) else (s + 2, s + 1) if kind == DIRS else ()
            for a in adds:
                if not mask >> a & 1:
                    mask |= 1 << a
                    todo.append(a)
        return mask

    def _step(self, mask: int, c: str) -> int:
        out = 0
        for s in range(mask.bit_length()):
            if not mask >> s & 1:
                continue
            i = s // 2
            if s & 1:  # inside **/: any character stays, a "/" may also end it
                out |= 1 << s
                if c == "/":
                    out |= 1 << (s + 1)
                continue
            if i >= len(self.toks):
                continue
            t, kind = self.toks[i], self.kinds[i]
            if kind in (STAR, ANY):
                if kind == ANY or c != "/":
                    out |= 1 << s
            elif kind == ONE:
                if c != "/":
                    out |= 1 << (s + 2)
            elif kind == DIRS:
                continue  # entered through the closure (state s + 1)
            elif isinstance(t, _Class):
                if t(c):
                    out |= 1 << (s + 2)
            elif c == t:
                out |= 1 << (s + 2)
        return self._closure(out) if out else 0

    def __call__(self, text: str) -> bool:
        mask = self.start
        memo = self.memo
        for c in text:
            key = (mask, c)
            nxt = memo.get(key)
            if nxt is None:
                if len(memo) >= _MEMO:
                    memo.clear()
                nxt = memo[key] = self._step(mask, c)
            mask = nxt
            if not mask:
                return False
        return bool(mask & self.accept)


def matcher(toks: list[Token]) -> Callable[[str], bool]:
    """A function telling whether a whole string matches ``toks``: a regular expression where its backtracking
    is bounded, else an :class:`Automaton`."""
    kinds = [_kind(t) for t in toks]
    if kinds.count(STAR) <= 1 and kinds.count(ANY) + kinds.count(DIRS) <= 1:
        compiled = re.compile(_regex(toks) + r"\Z", re.DOTALL)
        return lambda text: compiled.match(text) is not None
    return Automaton(toks)
