"""A ConfigMap or Secret whose data the API server refuses for its size, said before its document is parsed (review45).

The API server refuses a ConfigMap whose ``data`` and ``binaryData`` values hold more than 1 MiB together, and a
Secret whose ``data`` does (kubernetes v1.34 pkg/apis/core/validation/validation.go ``ValidateConfigMap`` and
``ValidateSecret``: the sum of ``len(value)``, in bytes, the keys not counted, ``binaryData`` and a Secret's ``data``
decoded, against ``core.MaxSecretSize``, ``1 * 1024 * 1024`` in pkg/apis/core/types.go; a Secret's ``stringData`` is
merged into ``data`` before). Such an object is never created, whatever it holds, and a document of millions of small
keys is costly to build (hostile18: a 31.65 MiB ConfigMap of 2,450,000 keys took 18.9 s of CPU and 1.1 GB to read, and
passed). :func:`oversized_data` finds such a document from its text alone, in one pass over its lines: a block
mapping whose top-level ``kind`` is ``ConfigMap`` or ``Secret`` (``apiVersion: v1``), and a lower bound of its data's
bytes that is over the limit; the loader then reports it as an input error at its ``data:`` line and parses the rest.

The bound is sure never to exceed what the API server counts: a value is counted from its text less whatever its text
could spell in fewer bytes (a comment, quotes, each escape as up to ten characters, an anchor, tag or alias, a block
scalar's indicator, a null, a number or a boolean, base64 as three bytes in four less its padding, a SOPS-encrypted
value as the text it decrypts to). A document in flow style, or whose top-level keys it cannot tell, is left to the
parser.
"""

from __future__ import annotations

import re

from ..model.errors import InputError

#: ``core.MaxSecretSize`` (kubernetes pkg/apis/core/types.go): the most bytes of data a ConfigMap or Secret holds.
MAX_DATA_BYTES = 1024 * 1024

_KIND = re.compile(r"^kind:[ \t]*([\"']?)(ConfigMap|Secret)\1[ \t]*(?:#.*)?$", re.MULTILINE)
_ANY_KIND = re.compile(r"^[\"']?kind[\"']?[ \t]*:", re.MULTILINE)
_V1 = re.compile(r"^apiVersion:[ \t]*([\"']?)v1\1[ \t]*(?:#.*)?$", re.MULTILINE)
#: A document marker with its content on its line (``--- |``: the document is a scalar, its lines text).
_SCALAR_DOCUMENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n|%[^\n]*\n)*---[ \t]+[^\s#]")
_SECTION = re.compile(r"^(data|binaryData|stringData):[ \t]*(?:#.*)?$", re.MULTILINE)
_TOP_LEVEL = re.compile(r"^[^ \t\n#]", re.MULTILINE)
_METADATA = re.compile(r"^metadata:[ \t]*(?:\{[^}\n]*?\bname:[ \t]*([^,}\s]+))?", re.MULTILINE)
#: ``metadata.name`` at the indent of metadata's first key (``{n}``: two spaces in kubectl's and helm's output, four in
#: sops's).
_NAME = r"^ {{{n}}}name:[ \t]*([^\s#]+)"
#: A plain value that is no string of its text: a null, a boolean or a number (YAML 1.1, as kubectl's YAML reader
#: takes it); the API server then refuses the object for its type, not counted here.
_NOT_TEXT = re.compile(r"(?:~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON"
                       r"|off|Off|OFF|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|0x[0-9a-fA-F_]+|0o?[0-7_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+)")


#: What of a line is counted: a value of a pair at the mapping's indent (``{n}``) that is text (no block scalar's
#: indicator, anchor, tag, alias, flow collection or null, number or boolean), and a deeper line (a block scalar's, or
#: a value's next line), the spaces around each left out; a line with a ``#`` (a comment, or text) counts nothing.
#: The quotes and backslashes of the counted text are taken off after (:func:`_section_bytes`).
_PAIR = (r"^ {{{n}}}[^\s'\"?#\-][^\n:]*: (?!(?:{not_text})[ \t]*$)"
         r"([^\s|>&*!{{\[%@`#](?:[^\n#]*[^\s#])?)[ \t]*$")
_DEEPER = r"^ {{{n},}}([^\s#](?:[^\n#]*[^\s#])?)[ \t]*$"
_INDENT = re.compile(r"^( *)[^ \n#]", re.MULTILINE)
#: What makes a section's text no sure measure of its values: a tag (``!!binary``: base64 read as bytes) or a complex
#: key (``? |``: a key's text on lines of their own).
_UNSURE = re.compile(r": +!|\n *\?[ \t]")
#: A value SOPS encrypted in the repository (a GitOps tree's ``*.sops.yaml``, which Flux's kustomize-controller or
#: ``sops -d`` decrypts before it is applied): ``ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:<t>]``,
#: whose ``data`` is the AES-GCM ciphertext without its tag, as long as the text it decrypts to (getsops/sops
#: aes/cipher.go at 0486373c, ``Cipher.Encrypt``: ``gcm.Seal``, then ``out[:len(out)-cryptoaes.BlockSize]``). Its
#: text is about 4/3 of the value's and 60-odd characters more, so a Secret of 800,000 bytes SOPS encrypted was over
#: 1 MiB as written (review47: a false input error); it is counted as the text it decrypts to, a ``str``'s, and as
#: nothing for another type (an ``int``, ``float`` or ``bool`` is no string of a ConfigMap's or Secret's data).
_SOPS_VALUE = re.compile(r"ENC\[AES256_GCM,data:([A-Za-z0-9+/]*)=*,iv:[A-Za-z0-9+/=]+,tag:[A-Za-z0-9+/=]+,"
                         r"type:(\w+)\]")


def _sops_plain(m: re.Match[str]) -> str:
    """A SOPS-encrypted value's text replaced by as many characters as the text it decrypts to (``type:str``), or by
    nothing for another type; ``x``: no quote, backslash or ``#`` that the count would take off or stop at."""
    return "x" * (len(m.group(1)) * 3 // 4) if m.group(2) == "str" else ""


#: The text counted at once: a section's lines are counted a part of about this many characters at a time, until
#: the count is over the limit.
_CHUNK = 1 << 21


def _section_bytes(block: str, enough: int, utf8: bool = True) -> int:
    """A lower bound of the bytes the values of a top-level block mapping (``block``: its lines, after its key) hold,
    as text; the count stops once it is over ``enough``. Each quote and backslash of a counted part is taken off it,
    with nine characters more for a backslash (an escape spells one character in at most ten: ``\\U0001F600``).
    A character is counted as its UTF-8 bytes (``utf8``), as the API server counts a string (Go's ``len``: review47, a
    ConfigMap of 1.5 MB of Chinese text in 500,000 characters passed), a lone surrogate as one (a byte that was no
    UTF-8, escaped by a reader that decoded with ``surrogateescape``); as one where the text is base64 (``utf8``
    false: a character outside it makes the value no base64, refused for that)."""
    first = _INDENT.search(block)
    if first is None or _UNSURE.search(block):
        return 0
    n = len(first.group(1))
    pair = re.compile(_PAIR.format(n=n, not_text=_NOT_TEXT.pattern), re.MULTILINE)
    deeper = re.compile(_DEEPER.format(n=n + 1), re.MULTILINE)
    total, at = 0, 0
    while at < len(block) and total <= enough:
        cut = block.find("\n", at + _CHUNK)
        cut = len(block) if cut < 0 else cut + 1
        chunk = block[at:cut]
        if "ENC[AES256_GCM," in chunk:
            chunk = _SOPS_VALUE.sub(_sops_plain, chunk)
        texts: list[str] = [*pair.findall(chunk), *deeper.findall(chunk)]
        if utf8 and not chunk.isascii():
            counted = sum(len(t.encode("utf-8", "replace")) for t in texts)
        else:
            counted = sum(map(len, texts))
        total += max(0, counted - chunk.count('"') - chunk.count("'") - 10 * chunk.count("\\"))
        at = cut
    return total


#: A key of a block mapping at the indent ``{n}``, plain or quoted, as group 1.
_KEY = r"^ {{{n}}}(?!-[ \t])([^\s'\"?#:][^\n:]*?|\"[^\"\n]*\"|'[^'\n]*'):(?:[ \t]|$)"


def _overridden(data: str, string_data: str) -> int:
    """At least as many bytes as a Secret's ``data`` (its block's text) holds, base64 decoded, in the keys its
    ``stringData`` (its block's text) also names: the API server keeps stringData's value of such a key (kubernetes
    pkg/apis/core/v1/conversion.go ``Convert_v1_Secret_To_core_Secret`` writes each stringData key over data's before
    ``ValidateSecret`` counts). Each such key is taken with all of its lines' text, three bytes in four and three more;
    all of data's text where a key of either is written with an escape (its name is not its text)."""
    first = _INDENT.search(string_data)
    if first is None:
        return 0
    keys = {k.strip("'\"") for k in re.findall(_KEY.format(n=len(first.group(1))), string_data, re.MULTILINE)}
    if not keys:
        return 0
    if any("\\" in k or "''" in k for k in keys):
        return len(data)
    first = _INDENT.search(data)
    if first is None:
        return 0
    n = len(first.group(1))
    below = re.compile(f"^ {{0,{n}}}[^ \n#]", re.MULTILINE)  # the next key at its indent or less (a comment
    # line is not one: what it leaves out is counted with the key before it, more taken off, still sure)
    total = 0
    for m in re.finditer(_KEY.format(n=n), data, re.MULTILINE):
        key = m.group(1)
        if "\\" in key or "''" in key:
            return len(data)
        if key.strip("'\"") in keys:
            end = below.search(data, m.end())
            total += ((end.start() if end else len(data)) - m.end()) * 3 // 4 + 3
    return total


def may_be_oversized(text: str) -> bool:
    """Whether ``text`` is over :data:`MAX_DATA_BYTES` in UTF-8, as the API server counts (a character is one to four
    bytes), so that a document of it may hold more data than a ConfigMap or Secret takes."""
    if len(text) > MAX_DATA_BYTES:
        return True
    return len(text) * 4 > MAX_DATA_BYTES and not text.isascii() and len(text.encode("utf-8", "replace")) > \
        MAX_DATA_BYTES


#: A key of a flow mapping (JSON, or YAML's ``{kind: ConfigMap, …}``) or a block one, quoted or not, matched where
#: the key's word is (:func:`_flow_keys`): after a line's start, ``{`` or ``,``, then ``:``.
_FLOW_BEFORE = re.compile(r"(?:^|[{,])[ \t]*\"?$", re.MULTILINE)
_FLOW_AFTER = re.compile(r"(\"?)[ \t]*:[ \t]*")
_FLOW_SCALAR = re.compile(r"(\"?)([^\s,}\"']+)\1[ \t]*(?=[,}\n]|$)")
#: The most times a key's word (``kind``, ``data``…) may be written in a document for its keys to be looked for; more
#: (a data of keys named so), and the document is left to the parser.
_FLOW_WORDS = 64
#: A plain value of a flow mapping (the strings taken out: ``\x00`` each), after its key's ``: ``.
_FLOW_PLAIN = re.compile(r":[ \t\n]+([^\s,\x00}][^,\x00}]*?)[ \t\n]*(?=,|$)")
#: What makes a flow mapping's text no sure measure here, outside its double-quoted strings: a single-quoted string, a
#: comment, a nested collection, an anchor, alias or tag, a complex key (and an escape anywhere: :func:`_flow_bytes`).
_FLOW_UNSURE = re.compile(r"[\\'#{\[&*!?]")


def _flow_keys(part: str, word: str) -> list[int] | None:
    """Where each key ``word`` of ``part`` ends (after its ``:`` and the blanks after it), as :data:`_FLOW_BEFORE` and
    :data:`_FLOW_AFTER` tell a key; None where the word is written more than :data:`_FLOW_WORDS` times. Found with
    ``str.find``: a regular expression tried at each of a document's 2,450,000 commas took seconds."""
    if part.count(word) > _FLOW_WORDS:
        return None
    ends: list[int] = []
    at = part.find(word)
    while at >= 0:
        line_start = part.rfind("\n", 0, at) + 1
        if _FLOW_BEFORE.search(part, max(line_start, at - 80), at):
            after = _FLOW_AFTER.match(part, at + len(word))
            if after is not None and (after.group(1) == "" or part[at - 1:at] == '"'):
                ends.append(after.end())
        at = part.find(word, at + 1)
    return ends


def _flow_value(part: str, word: str) -> str | None:
    """The scalar value of the one key ``word`` of ``part`` (:func:`_flow_keys`); None where it is not written exactly
    once, or its value is no scalar."""
    ends = _flow_keys(part, word)
    if ends is None or len(ends) != 1:
        return None
    m = _FLOW_SCALAR.match(part, ends[0])
    return m.group(2) if m else None


def _flow_bytes(body: str, utf8: bool, enough: int, exact: bool = False) -> int | None:
    """A lower bound of the bytes the string values of a flow mapping hold (``body``: its text between ``{`` and
    ``}``), counted a part of about :data:`_CHUNK` characters at a time (each cut at a ``,`` outside a string) until it
    is over ``enough``; None where its text is no sure measure (:data:`_FLOW_UNSURE` outside its strings, a line break
    in a double-quoted string, which YAML folds) before that. A double-quoted value is the string after an outside
    part that ends in ``:``; a plain value is text after ``: `` up to a ``,`` (a null, number or boolean is no string).
    The parts before one that is not sure are values of the mapping all the same: what they count stands. The plain
    values that are no strings are taken off (``exact``) in a second pass, made only where the first is over
    ``enough``: a mapping under it (1,000,000 keys, which the parser then reads) is counted once, and cheaply."""
    total, at = 0, 0
    while at < len(body) and total <= enough:
        cut = body.find(",", at + _CHUNK)
        while cut >= 0 and body.count('"', at, cut) % 2:
            cut = body.find(",", cut + 1)  # inside a string: the next comma
        cut = len(body) if cut < 0 else cut + 1
        chunk = body[at:cut]
        at = cut
        if "\\" in chunk:  # an escape (`\"` moves where a string ends; `\\` spells one character in two)
            return None if total == 0 else total
        pieces = chunk.split('"')
        if len(pieces) % 2 == 0:
            return None  # a quote left open: a "}" inside a string ended the body early
        outside, inside = pieces[0::2], pieces[1::2]
        skeleton = "\x00".join(outside)
        if _FLOW_UNSURE.search(skeleton) or "\n" in "\x00".join(inside):
            return None if total == 0 else total
        quoted = ([text for before, text in zip(outside, inside, strict=False) if before.rstrip().endswith(":")]
                  if inside else [])
        plain = _FLOW_PLAIN.findall(skeleton)
        if utf8 and not chunk.isascii():
            counted = sum(len(t.encode("utf-8", "replace")) for t in (*quoted, *plain))
        else:
            counted = sum(map(len, quoted)) + sum(map(len, plain))
        if exact:
            counted -= sum(map(len, filter(_NOT_TEXT.fullmatch, plain)))
        total += counted
    if total > enough and not exact:  # the nulls, numbers and booleans taken off only where they could matter
        return _flow_bytes(body, utf8, enough, True)
    return total


def _flow_oversized(part: str) -> tuple[int, str, str, int] | None:
    """:func:`oversized_data` for a ConfigMap or Secret whose data is written as a flow mapping (fuzz26: JSON, a flow
    document ``{apiVersion: v1, kind: ConfigMap, …, data: {k0: v, …}}``, a block one with ``data: {…}``), which the
    block count leaves to the parser: a ConfigMap of 31 MiB on one line passed, and 2,450,000 keys took 5.8 s of CPU
    and 500 MB to parse before its size was known. ``kind`` and ``apiVersion: v1`` must each be written once, as keys
    (:func:`_flow_keys`); each section's mapping is counted by :func:`_flow_bytes` up to its first ``}``. Returns the
    line (0-based) of the first section, the kind, the name (``metadata.name`` where written once, else "") and the
    bytes counted; None where not sure."""
    kind = _flow_value(part, "kind")
    if kind not in ("ConfigMap", "Secret") or _flow_value(part, "apiVersion") != "v1":
        return None
    sections: dict[str, int] = {}
    where: int | None = None
    for name in ("data", "binaryData", "stringData"):
        ends = _flow_keys(part, name)
        if ends is None or len(ends) > 1:
            return None
        if not ends or part[ends[0]:ends[0] + 1] != "{":
            continue
        start = ends[0] + 1
        end = part.find("}", start)
        if end < 0:
            return None
        encoded = name == "binaryData" or (kind == "Secret" and name == "data")
        body = part[start:end]
        counted = _flow_bytes(body, not encoded, len(body) if encoded else MAX_DATA_BYTES)
        if counted is None:
            continue
        sections[name] = max(0, counted * 3 // 4 - 3 * body.count(":")) if encoded else counted
        line = part.count("\n", 0, start)
        where = line if where is None else min(where, line)
    if where is None:
        return None
    if kind == "ConfigMap":
        least = sections.get("data", 0) + sections.get("binaryData", 0)
    else:
        least = max(sections.get("data", 0), sections.get("stringData", 0))
    return where, kind, _flow_value(part, "name") or "", least


def oversized_data(part: str) -> tuple[int, str] | None:
    """For one YAML document's text (``part``, over :data:`MAX_DATA_BYTES` in UTF-8, else None at once): where it is a
    ConfigMap or Secret whose data certainly holds more than :data:`MAX_DATA_BYTES`, the line (0-based, in ``part``)
    of its first ``data:``, ``binaryData:`` or ``stringData:`` key and the message; else None."""
    if not may_be_oversized(part):
        return None
    if _SCALAR_DOCUMENT.match(part):
        return None
    kinds = _ANY_KIND.findall(part)
    found = _KIND.search(part)
    if found is None or len(kinds) != 1 or len(_V1.findall(part)) != 1:
        return _flow_refused(part)
    kind = found.group(2)
    sections: dict[str, int] = {}
    blocks: dict[str, str] = {}
    where: int | None = None
    for m in _SECTION.finditer(part):
        if m.group(1) in sections:  # a key written twice: the parser says so
            return None
        end = _TOP_LEVEL.search(part, m.end() + 1)
        block = part[m.end() + 1:end.start() if end else len(part)]
        blocks[m.group(1)] = block
        encoded = m.group(1) == "binaryData" or (kind == "Secret" and m.group(1) == "data")
        # base64: three bytes in each four characters, less a value's padding and a partial group (3 bytes a value;
        # a key's `:` counts its values)
        counted = _section_bytes(block, len(block) if encoded else MAX_DATA_BYTES, not encoded)
        sections[m.group(1)] = max(0, counted * 3 // 4 - 3 * block.count(":")) if encoded else counted
        if where is None:
            where = part.count("\n", 0, m.start())
    # a ConfigMap's data and binaryData keys are apart (the API server refuses one in both); a Secret's stringData
    # replaces its data's value of a key in both (review49: data's count was sure whatever stringData named, so a
    # Secret whose stringData overrides its large data key was a false input error), so of data only what its other
    # keys hold is sure
    if kind == "ConfigMap":
        least = sections.get("data", 0) + sections.get("binaryData", 0)
    else:
        if "data" in blocks and "stringData" in blocks:
            sections["data"] = max(0, sections["data"] - _overridden(blocks["data"], blocks["stringData"]))
        least = max(sections.get("data", 0), sections.get("stringData", 0))
    if where is None:
        return _flow_refused(part)  # `data: {…}`: a flow mapping in a block document
    if least <= MAX_DATA_BYTES:
        return None
    name = ""
    meta = _METADATA.search(part)
    if meta is not None and meta.group(1):
        name = meta.group(1)
    elif meta is not None:
        end = _TOP_LEVEL.search(part, meta.end() + 1)
        stop = end.start() if end else len(part)
        first = _INDENT.search(part, meta.end() + 1, stop)
        named = (re.compile(_NAME.format(n=len(first.group(1))), re.MULTILINE).search(part, meta.end(), stop)
                 if first is not None else None)
        name = named.group(1) if named else ""
    return where, _too_large(kind, name.strip("'\""), least, part)


def _flow_refused(part: str) -> tuple[int, str] | None:
    """:func:`oversized_data`'s answer for a document whose data is a flow mapping (:func:`_flow_oversized`)."""
    flow = _flow_oversized(part)
    if flow is None or flow[3] <= MAX_DATA_BYTES:
        return None
    return flow[0], _too_large(flow[1], flow[2], flow[3], part)


def _too_large(kind: str, name: str, least: int, part: str) -> str:
    return (
        f"{kind}{' ' + name if name else ''}: its data holds at least {least:,} bytes, more than the "
        f"{MAX_DATA_BYTES:,} (1 MiB) the Kubernetes API server takes in a {kind}'s data (kubernetes "
        f"pkg/apis/core/validation Validate{kind}: core.MaxSecretSize): it cannot be created, and is not read further "
        f"(counted from its text, "
        f"without parsing its {part.count(chr(10)):,} lines); split it into {kind}s of at most 1 MiB each, or mount "
        "the data from a volume")


def refuse_oversized(text: str, file: str, parts: list[tuple[int, str]]) -> tuple[str, list[InputError]]:
    """``text`` with each document of ``parts`` (:func:`.yamlsrc.split_documents` of it) that :func:`oversized_data`
    refuses blanked (its lines kept, so that the others keep theirs), and an input error for each."""
    errors: list[InputError] = []
    kept: list[str] = []
    for base, part in parts:
        got = oversized_data(part)
        if got is None:
            kept.append(part)
            continue
        line, message = got
        errors.append(InputError(message, file, base + line + 1))
        kept.append("\n" * part.count("\n"))
    return ("".join(kept) if errors else text), errors


def _parsed_sizes(values: object, encoded: bool) -> dict[str, int]:
    """What the API server counts of one parsed ``data``/``binaryData``/``stringData`` mapping, a key at a time: each
    string value's UTF-8 bytes, or its base64 decoded (``encoded``: three bytes in four of its text but its line
    breaks, less the padding; review49: a block scalar's line breaks were counted, a false input error), a value SOPS
    encrypted as the text it decrypts to (:data:`_SOPS_VALUE`); other values not."""
    if not isinstance(values, dict):
        return {}
    sizes: dict[str, int] = {}
    for k, v in values.items():
        if isinstance(v, str):
            if v.startswith("ENC[AES256_GCM,"):  # SOPS: the text it decrypts to, as oversized_data counts it
                v = _SOPS_VALUE.sub(_sops_plain, v)
            if encoded:  # Go's base64 decoder skips line breaks (encoding/base64 Decode): a block scalar's are no bytes
                text = v.replace("\n", "").replace("\r", "") if "\n" in v or "\r" in v else v
                sizes[str(k)] = len(text) * 3 // 4 - text[-2:].count("=")
            else:
                sizes[str(k)] = len(v.encode("utf-8", "surrogatepass"))
    return sizes


def oversized_parsed(doc: object, aliased: bool = True) -> str | None:
    """For a parsed document: where it is a v1 ConfigMap or Secret whose data holds more than :data:`MAX_DATA_BYTES`
    as parsed, the message (``aliased``: its text holds an anchor); else None. A document under the bound in its
    text can be over it once its aliases are expanded (fuzz25: a 4 KiB value aliased 300 times is 1.2 MiB to the API
    server, 12 KiB on disk), which :func:`oversized_data` cannot see, nor a Secret whose ``data`` and ``stringData``
    hold different keys: the API server writes each ``stringData`` key over ``data`` before it validates (kubernetes
    pkg/apis/core/v1/conversion.go ``Convert_v1_Secret_To_core_Secret``: ``out.Data[key] = []byte(val)`` for each of
    ``in.StringData``), so their merged map is counted (fuzz26: 600 KB in each, different keys, passed)."""
    if not isinstance(doc, dict) or doc.get("apiVersion") != "v1" or doc.get("kind") not in ("ConfigMap", "Secret"):
        return None
    kind = str(doc.get("kind"))
    how = "once its aliases are expanded," if aliased else "as parsed,"
    if kind == "ConfigMap":
        least = sum(_parsed_sizes(doc.get("data"), False).values()) + \
            sum(_parsed_sizes(doc.get("binaryData"), True).values())
    else:
        merged = _parsed_sizes(doc.get("data"), True)
        plain = _parsed_sizes(doc.get("stringData"), False)
        if merged and plain:
            how = ("once its aliases are expanded and its stringData is merged into its data, as the API server does,"
                   if aliased else "once its stringData is merged into its data, as the API server does,")
        merged.update(plain)
        least = sum(merged.values())
    if least <= MAX_DATA_BYTES:
        return None
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (f"{kind}{' ' + name if isinstance(name, str) and name else ''}: its data holds {least:,} bytes {how} "
            f"more than the {MAX_DATA_BYTES:,} (1 MiB) the Kubernetes API server takes in a "
            f"{kind}'s data (kubernetes pkg/apis/core/validation Validate{kind}: core.MaxSecretSize): it cannot be "
            f"created; split it into {kind}s of at most 1 MiB each, or mount the data from a volume")
