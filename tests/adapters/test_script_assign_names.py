"""A container's script assignments (review43, :func:`_script_assignments`) are searched for only where the words name
an assignment (lintspeed29): every name the search of the joined words reads is one the per-word pattern finds, so
where that finds none (`--max-model-len=8192`, `--port=8000`) the search is skipped with the same reading."""

from __future__ import annotations

import itertools

import pytest
from shardwise.rules.adapters.k8s.workloads import _SCRIPT_ASSIGN, _script_assignments, command_texts

#: The pieces of the patterns (separators, the export/local/readonly prefixes, names, values, quotes, references).
_PIECES = ("A", "B_1", "=", "7000", " ", ";", "&", "|", "(", ")", "export ", "local ", "-", "--", '"', "'", "$", "${A}",
           "${A:-6385}", "$B_1", "\n")


def _per_word_names(words: list[str]) -> set[str]:
    names: set[str] = set()
    for w in words:
        names.update(_SCRIPT_ASSIGN.findall(w))
    return names


def test_every_name_read_is_found_per_word() -> None:
    """Words of up to four pieces, one or two of them: the names :func:`_script_assignments` returns are among the
    per-word pattern's names, and where it finds none the search returns nothing (fails where the skip would drop
    an assignment the search reads)."""
    checked = skipped = 0
    for n in range(1, 5):
        for combo in itertools.product(_PIECES, repeat=n):
            text = "".join(combo)
            if "=" not in text:
                continue
            splits = [[text]] + [[text[:i], text[i:]] for i in range(1, len(text)) if "=" in text[i:]
                                 and "=" in text[:i]][:2]
            for words in splits:
                read = _script_assignments(words, {}, set(), set(), False)
                names = _per_word_names(words)
                assert set(read) <= names, (words, read, names)
                checked += 1
                skipped += not names
    assert checked > 10_000 and skipped > 1_000


@pytest.mark.parametrize(("args", "expected"), [
    # vLLM's flags with their values after '=': no assignment, the script's search is skipped, the words as written
    (["--max-model-len=8192", "--port=8000"], "vllm serve m --max-model-len=8192 --port=8000"),
    # a start script that assigns its port once, then uses it (review43): read as before
    (["HEAD_PORT=${HEAD_PORT:-6385}; ray start --head --port=$HEAD_PORT"],
     "vllm serve m HEAD_PORT=6385; ray start --head --port=6385"),
    (["export GCS=7000 && ray start --head --port=${GCS:-6379}"],
     "vllm serve m export GCS=7000 && ray start --head --port=7000"),
])
def test_command_texts_with_assignments(args: list[str], expected: str) -> None:
    container = {"name": "c", "image": "vllm/vllm-openai:v0.10.2", "command": ["vllm", "serve", "m"], "args": args}
    texts, unknown = command_texts(container, {})
    assert texts == [expected]
    assert unknown is False


def test_script_path_pattern_as_the_lookbehind_first_one():
    """_SCRIPT_PATH written with its slash first (lintspeed29) finds what the pattern with its lookbehind first found,
    on every text of up to six characters of word characters (ASCII and not), ``$``, the path's punctuation and
    separators."""
    import re

    from shardwise.rules.adapters.k8s.workloads import _SCRIPT_PATH

    before = re.compile(r"(?<![\w$])/[\w.\-/]+")
    alphabet = "/a1é$.- "
    found = 0
    for n in range(1, 7):
        for combo in itertools.product(alphabet, repeat=n):
            text = "".join(combo)
            assert _SCRIPT_PATH.findall(text) == before.findall(text), text
            found += bool(before.findall(text))
    assert found > 50_000
