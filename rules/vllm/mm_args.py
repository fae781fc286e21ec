"""What vLLM's argument parser makes of the multimodal flags' values, by release.

``--limit-mm-per-prompt`` and ``--mm-processor-kwargs`` are converted by argparse itself: a value the release's
converter cannot read makes ``vllm serve`` print "argument --limit-mm-per-prompt: ..." and exit before anything is
loaded (``versions.py`` ``mm_limit_parse`` / ``mm_kwargs_parse``, read in ``engine/arg_utils.py`` of each release):

* ``kvs`` (up to 0.8.4, ``nullable_kvs``): comma-separated ``KEY=VALUE`` pairs of integers, keys lower-cased; an
  empty value is no limit;
* ``loads`` (``--mm-processor-kwargs`` up to 0.8.5): ``type=json.loads``, so argparse says "invalid loads value";
* ``json-or-kvs`` (0.8.5 - 0.9.x for the limits, 0.9.x for the kwargs): JSON where the value matches ``^{.*}$``,
  else the pairs (deprecated); ``""`` and ``"None"`` are no value for an optional flag;
* ``json`` (0.10.0 and later): JSON only, "Value ... cannot be converted to <function loads at 0x...>."

What the value means once read (a JSON list, a count that is not an integer) is validated later, with words this
module does not model: it answers only for what the parser refuses.
"""

from __future__ import annotations

import re

from .versions import MmArgParse

LIMIT_FLAG = "--limit-mm-per-prompt"
KWARGS_FLAG = "--mm-processor-kwargs"
#: ``parse_type`` / ``optional_type`` in 0.8.5 - 0.9.x: ``re.match("^{.*}$", val)`` (no DOTALL, no spaces around).
_JSON_LIKE = re.compile(r"^{.*}$")
#: How vLLM prints the converter in "Value ... cannot be converted to ..." (its address differs per process).
_LOADS = "<function loads at 0x…>"


def _kvs_error(value: str) -> str | None:
    """``nullable_kvs``'s complaint about ``value``, or None where it reads it."""
    seen: dict[str, int] = {}
    for item in value.split(","):
        parts = [part.lower().strip() for part in item.split("=")]
        if len(parts) != 2:
            return "Each item should be in the form KEY=VALUE"
        key, text = parts
        try:
            number = int(text)
        except ValueError:
            return f"Failed to parse value of item {key}={text}"
        if key in seen and seen[key] != number:
            return f"Conflicting values specified for key: {key}"
        seen[key] = number
    return None


def _json_fails(value: str) -> bool:
    try:
        import json  # only for a manifest that sets one of these flags: a one-file lint imports no json

        json.loads(value)
    except ValueError:
        return True
    return False


def parse_error(flag: str, value: str, how: MmArgParse) -> str | None:
    """argparse's message (``"argument --limit-mm-per-prompt: ..."``) when the release that reads ``flag`` the
    ``how`` way cannot convert ``value``; None when it can."""
    optional = flag == KWARGS_FLAG or how == "json-or-kvs"  # Optional[...] fields: "" and "None" are None
    if how == "kvs":
        why = None if value == "" else _kvs_error(value)
    elif how == "loads":
        why = f"invalid loads value: {value!r}" if _json_fails(value) else None
    elif optional and value in ("", "None"):
        why = None
    elif how == "json-or-kvs" and not _JSON_LIKE.match(value):
        why = _kvs_error(value)
    else:
        why = f"Value {value} cannot be converted to {_LOADS}." if _json_fails(value) else None
    return None if why is None else f"argument {flag}: {why}"


def _forms(how: MmArgParse) -> str:
    return {
        "kvs": "KEY=VALUE pairs of integers (image=1,video=0); JSON only from 0.8.5",
        "loads": "JSON",
        "json-or-kvs": "JSON ({...}) or KEY=VALUE pairs of integers",
        "json": "JSON only ('{\"image\": 1}'; the KEY=VALUE pairs were read up to 0.9)",
    }[how]


#: Why quotes around a value reach vLLM (the entrypoint of an image that is not vLLM's may still run its args through
#: a shell: then they are removed).
_QUOTES = ("the quotes are part of the value (Kubernetes passes a container's args as written; only a shell would "
           "remove them)")


def _shell_quoted(value: str) -> str | None:
    """The text inside ``value``'s outer quotes (``'image=5'``, ``"{...}"``), or None: quotes a shell would remove,
    but a container's ``args`` and a Compose ``command`` list reach vLLM without a shell."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return None


def refusal(flag: str, value: str, how: MmArgParse, release: str) -> str | None:
    """Why vLLM ``release`` exits on ``flag value`` at start-up, in its own words, or None. Where the value is
    wrapped in quotes that a shell would have removed and the text inside would be read, the words say so."""
    words = parse_error(flag, value, how)
    if words is None:
        return None
    why = f"{flag} {value!r} is not what vLLM {release} reads there ({_forms(how)}): it exits with \"{words}\""
    inner = _shell_quoted(value)
    if inner is not None and parse_error(flag, inner, how) is None:
        why += f"; {_QUOTES}: {inner} without them is read"
    return why


#: Every way a release has read each flag (``mm_limit_parse`` / ``mm_kwargs_parse`` of the release rows in
#: ``vllm/versions.py``): 0.6-0.8.4, 0.8.5-0.9.x and from 0.10 for the limits; to 0.8.5, 0.9.x and from 0.10 for
#: the kwargs.
EVERY_PARSE: dict[str, tuple[MmArgParse, ...]] = {
    LIMIT_FLAG: ("kvs", "json-or-kvs", "json"),
    KWARGS_FLAG: ("loads", "json-or-kvs", "json"),
}


def no_release_reads(flag: str, value: str) -> str:
    """Words for a refusal where the release is only assumed (:func:`refused_by_every_release` holds): no release
    reads the value, and where the text inside shell quotes would be read by some release, the quotes are why."""
    words = "; no vLLM release reads it"
    inner = _shell_quoted(value)
    if inner is not None and not refused_by_every_release(flag, inner):
        words += f": {_QUOTES}, and {inner} without them is read by some releases"
    return words


def quotes_only(flag: str, value: str, how: MmArgParse | None) -> bool:
    """Whether vLLM refuses ``flag value`` only because of the shell quotes around it: the text inside them is read by
    the release's parser ``how`` (None: the release is only assumed, by some release). Such a refusal is certain
    only where the quotes surely reach vLLM's parser: an image whose entrypoint is not vLLM's may run its args
    through a shell, which removes them."""
    inner = _shell_quoted(value)
    if inner is None:
        return False
    return parse_error(flag, inner, how) is None if how is not None else not refused_by_every_release(flag, inner)


def refused_by_every_release(flag: str, value: str) -> bool:
    """Whether no release's parser reads ``flag value``: where the release is only assumed (a tag that names
    none), a value some release reads is no certain refusal (``image=2`` is right up to 0.9)."""
    return all(parse_error(flag, value, how) is not None for how in EVERY_PARSE[flag])

