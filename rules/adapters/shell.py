"""Kubernetes manifests written inside shell scripts as here-documents.

A deploy script often carries its manifests inline: ``kubectl apply -f - <<EOF … EOF`` (also ``<<'EOF'``,
``<<-EOF``, ``cat <<EOF | kubectl apply -f -``, ``envsubst <<EOF | kubectl create -f -``), or writes one to a
file that it applies later (``cat > vllm.yaml <<'EOF'`` … ``kubectl apply -f vllm.yaml``). Only such
here-documents are read, as manifests at the script's own line numbers: every other line of the script is a
blank line of the YAML text :func:`manifest_text` returns, and the line of each command that opens one is a
``---``, so a finding points at the script's line. Here-documents fed to anything else (``python - <<EOF``, a
usage text, a config file no ``kubectl`` applies) are not manifests and are left alone, and so is one an interpreter
runs as its program in a pipe to kubectl (``python3 - <<'EOF' | oc apply -f -``: kubectl gets what the program
prints).

What the shell does to the text before kubectl sees it:

- an unquoted delimiter (``<<EOF``): the shell expands ``${VAR}`` and ``$VAR``, which are left as written, the
  template placeholders the Kubernetes adapter reads as unknowns (:func:`..model.unknown.is_placeholder`); a
  command substitution (``$(…)``, ``$((…))``, a backquoted one) becomes the placeholder ``${COMMAND_OUTPUT}``, an
  unknown too, never Kubernetes' own ``$(VAR)`` reference; ``\\$``, ``\\``` and ``\\\\`` lose their backslash;
- a quoted delimiter (``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``): the text is literal, unless ``envsubst`` is in the
  pipe (it fills ``${VAR}`` and ``$VAR``: they stay placeholders, as written);
- ``<<-``: leading tabs are removed from each line and from the closing delimiter.

A line of such a here-document that is nothing but an expansion (``${EXTRA_VOLUME_MOUNTS}``, ``$ARGS``,
``$(cat mounts.yaml)``, alone on its line), or that ends in one glued where YAML leaves it room only for lines
(``env:$GPU_ENV``, ``value: "…"$API_KEY_ENV``: corpus35), is lines of YAML the shell writes there when the script
runs, or none:
what kubectl gets is not known here, so that here-document is not read (its text as written is not the manifest,
and often not YAML at all), and the script says why (:attr:`ScriptManifests.filled`) instead of failing as an input
error (corpus25: a benchmark script's Job with ``${BACKEND_ARGS_MOUNT}`` between its args made the whole
repository's run exit 2 on YAML the shell never hands kubectl).

YAML reads ``{``, ``(`` and a backquote as its own inside a flow collection, so ``metadata: {name: ${NAME}}`` is no
YAML as written, though the shell fills it before kubectl parses it (corpus40). Where such an expansion, outside
quotes, is a flow mapping's plain value (``- {name: TOKEN, value: $(cat token)}``) it is one scalar whatever it
holds, read quoted, the placeholder it is; where it stands for a flow sequence's items or a mapping's key
(``args: [$(echo "$ARGS" | sed …)]``: built to print ``"a", "b"``) the shell writes any number of them, and that
here-document is not read, as above.

A pod an applied here-document builds from shell variables (``image: ${IMAGE}``, set by the script when it runs, a
``case`` on its arguments choosing vLLM or another engine) is no workload this reader can see; where the script
runs vLLM outside its manifests (``IMAGE=vllm/vllm-openai:…``, ``vllm serve`` in a command it builds), SW005 says
so at the image's line (:attr:`ScriptManifests.image_variables`) instead of a silent pass.

A here-document fed to kubectl whose closing delimiter never comes is an input error at the line that opens it.
The scan is one pass over the lines, linear in the script's length; the script is at most the size any input is
(:data:`..model.files.MAX_FILE_BYTES`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..model.errors import InputError
from ..vllm.args import is_vllm_image

#: The placeholder a command substitution of an unquoted here-document becomes: its output is not known here.
COMMAND_OUTPUT = "${COMMAND_OUTPUT}"
NO_MANIFEST = ("shell script with no manifest here-document (shardwise reads only here-documents fed to "
               "kubectl apply/create)")
NO_MANIFEST_VLLM = ("shell script that mentions vLLM but feeds no here-document to kubectl apply/create (a manifest "
                    "it applies from a file is read as that file; a server it starts outside Kubernetes is not linted)")

#: ``<<`` (not ``<<<``, a here-string) and its delimiter word: quoted, backslashed or plain; a plain one starts
#: with a letter or ``_`` (so ``$((1 << 2))`` is not one).
_OPERATOR = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*"
                       r"(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\([A-Za-z0-9_.-]+)|([A-Za-z_][A-Za-z0-9_.-]*))")
#: Where a command writes: ``> FILE``, ``>> FILE`` (not ``2>`` or ``&>``), ``tee [-a] FILE``.
_WRITES = re.compile(r"(?<![<>&0-9])>{1,2}[ \t]*[\"']?([^\s\"';&|<>]+)"
                     r"|\btee[ \t]+(?:-a[ \t]+)?[\"']?([^\s\"';&|<>-][^\s\"';&|<>]*)")
#: What says a script runs a vLLM server (as the wide corpus's triage reads a file).
_SERVES = re.compile(r"vllm serve|vllm\.entrypoints|vllm/vllm-openai|vllm-openai|--tensor-parallel-size", re.I)


#: An ``image:`` line of a here-document's YAML (``image: rocm/vllm:…``, ``- image: "…"``): its value
_HEREDOC_IMAGE = re.compile(r"^[ \t]*-?[ \t]*image:[ \t]*['\"]?([^\s'\"#]+)", re.M)
#: ``vllm serve`` as the words of a YAML list, in flow (``command: ["vllm", "serve", …]``) or block form
_LIST_SERVE = re.compile(r"""["']?\bvllm["']?[ \t]*(?:,|\n[ \t]*-)[ \t]*["']?serve\b""", re.I)


def manifest_serves(body: str) -> str | None:
    """The word that says a here-document's manifest runs a vLLM server, or None: :data:`_SERVES`, an image vLLM's
    readers take for a vLLM build (:func:`~shardwise.rules.vllm.args.is_vllm_image`: ``rocm/vllm``,
    ``quay.io/ascend/vllm-ascend``, ``nvcr.io/nvidia/vllm``), or ``vllm serve`` as a list's words. review34: a manifest
    a script assembles from pieces (or whose lines the shell fills) that ran ``rocm/vllm`` with ``command: ["vllm",
    "serve", …]`` was skipped as a script of no vLLM server, where the same with ``vllm/vllm-openai`` is SW005."""
    m = _SERVES.search(body)
    if m is not None:
        return m.group(0)
    for found in _HEREDOC_IMAGE.finditer(body):
        if is_vllm_image(found.group(1)):
            return found.group(1)
    m = _LIST_SERVE.search(body)
    return " ".join(m.group(0).replace('"', " ").replace("'", " ").replace(",", " ").replace("-", " ").split()) \
        if m is not None else None


def serves_vllm(text: str) -> tuple[int, str] | None:
    """(line, word) of the first line of ``text`` outside a comment (``#``, ``//``) that says it runs a vLLM server
    (:data:`_SERVES`), or None."""
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("#", "//")):
            continue
        m = _SERVES.search(line)
        if m is not None:
            return n, m.group(0)
    return None


_API_VERSION = re.compile(r"^[ \t]*apiVersion:", re.M)
_KIND = re.compile(r"^[ \t]*kind:", re.M)
#: What the shell changes in an unquoted here-document's line: an escaped ``$``, backquote or backslash (group 1), or
#: a command substitution on one line (``$((…))``, ``$(…)``, a backquoted one).
_EXPANDED = re.compile(r"\\([$`\\])|\$\(\([^()\n]*\)\)|\$\([^()\n]*\)|`[^`\n]*`")
_MENTION = re.compile(r"vllm", re.I)
#: A container image an unquoted here-document leaves to the shell: ``image: ${IMAGE}``, ``- image: "$IMAGE"``.
_IMAGE_VARIABLE = re.compile(r"^[ \t]*(?:-[ \t]+)?image:[ \t]*[\"']?"
                             r"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)")
_SEPARATORS = re.compile(r";|&&|\|\|")
#: A line of an unquoted here-document that is only expansions: ``${VAR}`` (``${VAR:-x}``), ``$VAR``, ``$(…)`` or a
#: backquoted command, quoted or not, one or several glued (``${DEFAULT_ARGS}${VLLM_ARGS}``: corpus40); the shell
#: writes whatever they hold, lines of YAML or none, in their place.
_WHOLE_LINE = re.compile(r"^[ \t]*[\"']?(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+=-][^}\n]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*"
                         r"|\$\([^\n]*\)|`[^`\n]*`)+[\"']?[ \t]*$")
_ONE_EXPANSION = (r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+=-][^}\n]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^()\n]*\)"
                  r"|`[^`\n]*`)")
#: A line of an unquoted here-document that ends in expansions glued to YAML that leaves them no room but lines:
#: right after a key's colon (``env:$GPU_ENV``), after a quoted value (``value: "http://$HOST:8000/v1"$KEY_ENV``)
#: or a flow collection (``args: [...]$MORE``). YAML reads none as written (a key's colon wants a space; nothing may
#: follow a quoted scalar or a flow collection on its line), so a script that works holds lines of YAML there,
#: beginning with a newline, which the shell writes when the script runs (or nothing). ``image: repo:$TAG`` (the
#: colon inside a value) and ``value: "$A$B"`` (inside the quotes) are values.
_GLUED = re.compile(r"^[ \t]*(?:-[ \t]+)?[A-Za-z0-9_.-]+:(?:[ \t]+\"[^\"\n]*\"|[ \t]+'[^'\n]*'|[ \t]+[\[{][^\n]*[\]}])?"
                    r"((?:" + _ONE_EXPANSION + r")+)[ \t]*$")

#: A line whose value is a flow collection: ``args: [...]``, ``- {name: X, value: ...}``, ``env: [{...}]``.
_FLOW_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?(?:[A-Za-z0-9_./-]+:[ \t]+)?[\[{]")


def _expansion_end(text: str, i: int) -> int:
    """Where the expansion that starts at ``text[i]`` (``${…}``, ``$(…)`` with nested parentheses, or a backquoted
    command) ends, one past its last character; -1 where it does not end on the line."""
    if text[i] == "`":
        j = text.find("`", i + 1)
        return -1 if j < 0 else j + 1
    close = "}" if text[i + 1] == "{" else ")"
    depth = 0
    for j in range(i + 1, len(text)):
        if text[j] == text[i + 1]:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _flow_expansions(line: str) -> tuple[str, list[tuple[int, int]]] | None:
    """An unquoted here-document's line whose value is a flow collection with ``${…}``, ``$(…)`` or a backquoted
    command outside quotes, where YAML reads ``{``, ``(`` and a backquote as its own (``metadata: {name: ${NAME}}``
    is no YAML as written; the shell fills it before kubectl parses it). Returns ``("item", [])`` where one stands
    for a flow sequence's items or a mapping's key (``args: [$(echo "$ARGS" | sed …)]``: the shell writes any number
    of items there), ``("value", spans)`` where each is in a flow mapping's plain value, the spans of those values
    (``{name: MODEL, value: ${MODEL}}``, ``{image: vllm/vllm-openai:${TAG}}``: one scalar whatever it holds), and
    None where there is none."""
    m = _FLOW_LINE.match(line)
    if m is None or not any(c in line for c in ("${", "$(", "`")):
        return None
    stack: list[str] = []
    spans: list[tuple[int, int]] = []
    quote = ""
    value = -1  # where the plain value of the innermost flow mapping's current key starts, -1 before its ": "
    i = m.end() - 1
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote and not (quote == '"' and line[i - 1] == "\\"):
                quote = ""
            i += 1
            continue
        if c in "\"'":
            quote = c
        elif c in "[{":
            stack.append(c)
            value = -1
        elif c in "]}":
            if stack:
                stack.pop()
            value = -1
            if not stack:
                break
        elif c == ",":
            value = -1
        elif c == ":" and stack and stack[-1] == "{" and value < 0 and line[i + 1:i + 2] in (" ", "\t"):
            value = len(line) - len(line[i + 1:].lstrip(" \t"))
            i = value
            continue
        elif c == "#" and line[i - 1] in " \t":
            break
        elif (c == "$" and line[i + 1:i + 2] in ("{", "(")) or c == "`":
            if not stack or stack[-1] != "{" or value < 0:
                return "item", []  # a flow sequence's items or a mapping's key: the shell writes any number
            j = value  # the plain value from its start to the next , } or ] at this depth
            while j < len(line) and line[j] not in ",}]":
                if line[j] in "\"'":
                    return "item", []
                if (line[j] == "$" and line[j + 1:j + 2] in ("{", "(")) or line[j] == "`":
                    end = _expansion_end(line, j)
                    if end < 0:
                        return "item", []
                    j = end
                else:
                    j += 1
            spans.append((value, value + len(line[value:j].rstrip())))
            i, value = j, -1
            continue
        i += 1
    return ("value", spans) if spans else None


_FLOW_VALUE = re.compile(r"[\[{].*", re.S)


def _flow_items(line: str) -> re.Match[str] | None:
    """The flow collection of a line where an expansion stands for items the shell writes (:func:`_flow_expansions`),
    as a match whose text is that collection as written (``[$(echo "$args" | sed …)]``), or None."""
    found = _flow_expansions(line)
    if found is None or found[0] != "item":
        return None
    start = _FLOW_LINE.match(line)
    return None if start is None else _FLOW_VALUE.match(line.rstrip(), start.end() - 1)


def _quote_flow_values(line: str) -> str:
    """The line with each ``${…}`` or ``$(…)`` that is a flow mapping's whole value double-quoted, so YAML reads it
    as the text it is (a placeholder, an unknown) instead of failing on its ``{`` (:func:`_flow_expansions`)."""
    found = _flow_expansions(line)
    if found is None or found[0] != "value":
        return line
    out = line
    for start, end in reversed(found[1]):
        out = out[:start] + '"' + out[start:end] + '"' + out[end:]
    return out


@dataclass(frozen=True)
class HereDoc:
    """One here-document of a script: the line of the command that opens it, its body's lines (1-based,
    ``end`` the closing delimiter's line, None when it never comes) and how the shell reads it."""

    line: int
    command: str  # the command that opens it, its continued lines joined
    at: int  # where its operator is in ``command``
    delimiter: str
    quoted: bool
    strip_tabs: bool
    start: int
    end: int | None


def _logical(lines: list[str], i: int) -> tuple[str, int]:
    """The command starting at line index ``i``, with its backslash-continued lines joined, and the index of its
    last line."""
    parts = [lines[i]]
    while parts[-1].endswith("\\") and not parts[-1].endswith("\\\\") and i + 1 < len(lines):
        parts[-1] = parts[-1][:-1]
        i += 1
        parts.append(lines[i])
    return " ".join(parts), i


def _operators(command: str) -> list[re.Match[str]]:
    """The here-document operators of a command line, outside quotes and comments."""
    found: list[re.Match[str]] = []
    quote = ""
    i = 0
    n = len(command)
    while i < n:
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1] in " \t;|&("):
            break
        elif c == "<":
            m = _OPERATOR.match(command, i)
            if m is not None and (i == 0 or command[i - 1] != "<"):
                found.append(m)
                i = m.end()
                continue
        i += 1
    return found


def heredocs(text: str) -> list[HereDoc]:
    """Every here-document of a script, in order."""
    lines = text.split("\n")
    docs: list[HereDoc] = []
    i = 0
    while i < len(lines):
        command, last = _logical(lines, i)
        ops = _operators(command)
        i = last + 1
        for m in ops:
            delimiter = next(g for g in (m.group(2), m.group(3), m.group(4), m.group(5)) if g is not None)
            strip = m.group(1) == "-"
            start = i
            end = None
            while i < len(lines):
                body = lines[i].lstrip("\t") if strip else lines[i]
                if body == delimiter:
                    end = i
                    break
                i += 1
            docs.append(HereDoc(last + 1, command, m.start(), delimiter, m.group(5) is None, strip, start + 1,
                                None if end is None else end + 1))
            i = len(lines) if end is None else end + 1
    return docs


def _words(segment: str) -> list[str]:
    return [w.strip("\"'") for w in segment.split()]


def _applies(segment: str) -> tuple[bool, list[str]]:
    """Whether one command of a pipe (``segment``) is ``kubectl|oc … apply|create …``, and the files it names with
    ``-f`` / ``--filename`` (``-`` for standard input). Words, not a pattern: linear in the command's length."""
    if "apply" not in segment and "create" not in segment:
        return False, []
    words = _words(segment)
    tool = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] in ("kubectl", "oc")), None)
    if tool is None or not any(w in ("apply", "create") for w in words[tool + 1:]):
        return False, []
    files: list[str] = []
    rest = words[tool + 1:]
    for k, w in enumerate(rest):
        if w in ("-f", "--filename") and k + 1 < len(rest):
            files.append(rest[k + 1])
        elif w.startswith("--filename="):
            files.append(w.split("=", 1)[1])
        elif w.startswith("-f") and len(w) > 2 and not w.startswith("--"):
            files.append(w[2:].lstrip("="))
    return True, files


def _applied_files(text: str) -> tuple[set[str], set[str]]:
    """The files a script applies with ``kubectl apply|create -f FILE``, and those it applies through envsubst
    (``envsubst < FILE | kubectl apply -f -``)."""
    applied: set[str] = set()
    filled: set[str] = set()
    for line in text.split("\n"):
        if "kubectl" not in line and "oc " not in line:
            continue
        for pipe in _SEPARATORS.split(line):
            segments = pipe.split("|")
            stdin = False
            for segment in segments:
                yes, files = _applies(segment)
                if yes:
                    applied.update(f for f in files if f != "-")
                    stdin = stdin or "-" in files
            if stdin:
                for segment in segments:
                    words = _words(segment)
                    if "envsubst" in words:
                        for k, w in enumerate(words):
                            if w == "<" and k + 1 < len(words):
                                filled.add(words[k + 1])
                            elif w.startswith("<") and len(w) > 1 and not w.startswith("<<"):
                                filled.add(w[1:].strip("\"'"))
    return applied | filled, filled


def envsubst_inputs(text: str) -> list[str]:
    """The files a script pipes through envsubst, as it names them: ``envsubst < FILE``, ``envsubst <FILE``, ``cat
    FILE | envsubst``, whatever it does with the output (``| kubectl apply -f -``, ``> rendered.yaml`` that it applies
    next). A name holding a shell expansion (``$DIR/vllm.yaml``) is not known here and is left out."""
    if "envsubst" not in text:
        return []
    found: set[str] = set()
    for line in text.split("\n"):
        if "envsubst" not in line or line.lstrip().startswith("#"):
            continue
        for pipe in _SEPARATORS.split(line):
            segments = pipe.split("|")
            at = next((k for k, segment in enumerate(segments) if "envsubst" in _words(segment)), None)
            if at is None:
                continue
            for k, segment in enumerate(segments[:at + 1]):
                words = _words(segment)
                for n, w in enumerate(words):
                    if w == "<" and n + 1 < len(words):
                        found.add(words[n + 1])
                    elif w.startswith("<") and len(w) > 1 and not w.startswith("<<"):
                        found.add(w[1:].strip("\"'"))
                if k < at and words[:1] == ["cat"]:
                    found.update(w for w in words[1:] if not w.startswith("-"))
    direct = _direct_applies(text)
    return sorted(f for f in found if f and "$" not in f and "`" not in f and not _applied_raw(f, direct))


def _direct_applies(text: str) -> set[str]:
    """The files and folders a script hands to ``kubectl apply|create -f`` itself (not ``-`` , its stdin), normalised:
    what kubectl reads as written, ``${VAR}`` and all."""
    out: set[str] = set()
    for line in text.split("\n"):
        if line.lstrip().startswith("#") or ("kubectl" not in line and "oc " not in line):
            continue
        for pipe in _SEPARATORS.split(line):
            for segment in pipe.split("|"):
                yes, files = _applies(segment)
                if yes:
                    out.update(os.path.normpath(f.strip("\"'")) for f in files if f != "-" and "$" not in f)
    return out


def _applied_raw(name: str, direct: set[str]) -> bool:
    """Whether the script also applies ``name`` as written: ``kubectl apply -f NAME``, or ``-f`` the folder that holds
    it (kubectl reads each manifest of a folder; without ``-R`` not those of its sub-folders). There the ``${VAR}``
    reaches vLLM unfilled, whatever the envsubst line renders (review26)."""
    path = os.path.normpath(name)
    return path in direct or os.path.dirname(path) in direct


def _pipeline(command: str, at: int) -> str:
    """The pipeline of ``command`` (split at ``;``, ``&&``, ``||``) that holds the character at ``at``."""
    start = 0
    for m in _SEPARATORS.finditer(command):
        if m.start() > at:
            return command[start:m.start()]
        start = m.end()
    return command[start:]


#: Programs that run a here-document fed to them as their own source and write something else: in ``python3 - "$CR"
#: <<'EOF' | oc apply -f -`` kubectl gets what the program prints, not the here-document (corpus28: a script that
#: merges an OAuth CR with Python made a repository's run exit 2 on Python read as YAML).
_INTERPRETERS = frozenset({"python", "python2", "python3", "sh", "bash", "zsh", "node", "ruby", "perl"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _program_from_elsewhere(name: str, option: str) -> bool:
    """Whether the interpreter ``name``'s ``option`` gives it its program (so what it reads on stdin is its data):
    python's ``-c`` and ``-m``; perl's and ruby's ``-e``/``-E`` and their ``-p``/``-n`` line loops (``perl -pe
    's/x/y/'`` prints every line, sed's way); node's ``-e``/``-p``/``--eval``/``--print``; a shell's ``-c``."""
    if name in ("node",):
        return option in ("-e", "-p", "--eval", "--print") or option.startswith(("--eval=", "--print="))
    if option.startswith("--"):
        return False
    letters = set(option[1:])
    if name in ("perl", "ruby"):
        return bool(letters & set("eEpn"))
    if name in ("sh", "bash", "zsh"):
        return "c" in letters
    return bool(letters & set("cm"))  # python


def _run_by_interpreter(command: str, at: int) -> bool:
    r"""Whether the command of the pipe that the here-document at ``at`` feeds is an interpreter
    (:data:`_INTERPRETERS`, after any ``VAR=value`` words; a versioned ``python3.11`` too) that runs the
    here-document as its program: it is given no program of its own (``python3 -``, ``bash -s``, ``perl``, ``node
    -``). One given its program (``python3 -c …``, ``python3 render.py``, ``perl -pe 's/__TAG__/v1/'``, ``sh -c
    'envsubst'``) reads the here-document as its data and may print it changed, as sed does: the here-document is
    read as before (review28: ``perl -pe 's/\$\{(\w+)\}/$ENV{$1}/g' <<EOF | kubectl apply -f -``, envsubst's
    perl idiom, left a Deployment unlinted and the run passed)."""
    start = 0
    for m in _SEPARATORS.finditer(command):
        if m.start() > at:
            break
        start = m.end()
    words = [w for w in _words(command[start:at].split("|")[-1]) if w]
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if words[:1] == ["env"]:
        words = [w for w in words[1:] if not _ASSIGNMENT.match(w)]
    name = words[0].rsplit("/", 1)[-1] if words else ""
    if re.fullmatch(r"python[23](?:\.\d+)?", name) is not None:
        name = "python"
    if name not in _INTERPRETERS:
        return False
    for word in words[1:]:
        if word == "-" or name in ("sh", "bash", "zsh") and word[:2] == "-s":  # the program is stdin
            return True
        if word.startswith("-") and word != "--":
            if _program_from_elsewhere(name, word):
                return False
            continue
        if word != "--":
            return False  # a script file (or an option's value): the here-document is its data
    return True


def _fed_to_kubectl(doc: HereDoc, after: str, files: Callable[[], tuple[set[str], set[str]]]) -> tuple[bool, bool]:
    """Whether ``doc`` reaches ``kubectl apply/create`` (in its own pipe, or written to a file the script applies),
    and whether envsubst fills its placeholders on the way. ``after``: the line after its closing delimiter (a
    command ending in ``|`` goes on there); ``files``: the files the script applies, and those it applies through
    envsubst (:func:`_applied_files`, looked up only for a here-document written to a file). A here-document an
    interpreter runs as its program (:func:`_run_by_interpreter`) reaches no kubectl: the program's output does."""
    if _run_by_interpreter(doc.command, doc.at):
        return False, False
    pipe = _pipeline(doc.command, doc.at)
    if pipe.rstrip().endswith("|"):
        pipe = pipe + " " + _SEPARATORS.split(after)[0]
    segments = pipe.split("|")
    envsubst = any("envsubst" in _words(segment) for segment in segments)
    if any("-" in _applies(segment)[1] for segment in segments):
        return True, envsubst
    for m in _WRITES.finditer(pipe):
        target = (m.group(1) or m.group(2) or "").strip("\"'")
        if not target or target == "/dev/null":
            continue
        applied, filled = files()
        if target in applied:
            return True, envsubst or target in filled
    return False, False


#: A line that opens a YAML block scalar (``script: |``, ``- >-``, ``args: |2``), a comment after it allowed.
_BLOCK_OPENER = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$")


def _in_block_scalar(lines: list[str], k: int, start: int) -> bool:
    """Whether line ``k`` (1-based) of a here-document whose body starts at line ``start`` is inside a YAML block
    scalar: the nearest line above it that is less indented opens one (``- |``). An expansion alone on such a line
    is words of a script or a file (``vllm serve … \\`` then ``$EXTRA_ARGS``), not lines of YAML."""
    line = lines[k - 1]
    indent = len(line) - len(line.lstrip(" "))
    for j in range(k - 1, start - 1, -1):
        above = lines[j - 1]
        if not above.strip():
            continue
        if len(above) - len(above.lstrip(" ")) < indent:
            return _BLOCK_OPENER.search(above.rstrip()) is not None
    return False


def _unquoted(line: str) -> str:
    """A line of an unquoted here-document as kubectl gets it, as far as this reader can know: command
    substitutions are unknowns, escapes lose their backslash; ``${VAR}`` / ``$VAR`` stay (placeholders)."""
    return _EXPANDED.sub(lambda m: m.group(1) or COMMAND_OUTPUT, line)


@dataclass
class ScriptManifests:
    """What a script holds for the linter: its manifests as YAML text at the script's line numbers (None when
    no here-document reaches kubectl), the input errors, and where it mentions vLLM."""

    text: str | None
    errors: list[InputError]
    documents: int
    mention: tuple[int, str] | None  # (line, word) of the first line that names vLLM
    #: (line, what) of the first here-document that reads as a vLLM manifest (``apiVersion``, ``kind`` and a vLLM
    #: server) but that the script feeds to no ``kubectl apply/create`` this reader can see
    stray: tuple[int, str] | None = None
    #: (line, word) of the first line outside the here-documents it applies, not a comment, that says the script
    #: runs a vLLM server (``IMAGE=vllm/vllm-openai:…``, ``vllm serve`` in a command it builds)
    serves: tuple[int, str] | None = None
    #: the applied here-documents whose container image is a shell variable (``image: ${IMAGE}``): (line of the
    #: command that opens it, its body's first and closing lines, the image's line, the variable)
    image_variables: list[tuple[int, int, int, int, str]] = field(default_factory=list)
    #: the applied here-documents not read because a line of them is only an expansion the shell fills with lines
    #: when the script runs (module docstring): (line of the command that opens it, that line, the expansion, the
    #: word that says it runs a vLLM server, or None)
    filled: list[tuple[int, int, str, str | None]] = field(default_factory=list)
    #: the files the script applies that it assembles from several here-documents, one of them appended
    #: (``cat << EOF > "$TMP_FILE"``, then ``cat >> "$TMP_FILE" << EOF`` under an ``if``): (line of the command
    #: that opens the first, of the first that appends, the file, the word that says it runs a vLLM server, or None)
    assembled: list[tuple[int, int, str, str | None]] = field(default_factory=list)


def _write_target(doc: HereDoc) -> tuple[str, bool] | None:
    """The file a here-document is written to (``cat > F <<EOF``, ``cat <<EOF >> F``, ``tee [-a] F``) and whether
    it is appended to, or None."""
    for m in _WRITES.finditer(_pipeline(doc.command, doc.at)):
        target = (m.group(1) or m.group(2) or "").strip("\"'")
        if target and target != "/dev/null":
            return target, m.group(0).startswith(">>") or bool(re.match(r"tee[ \t]+-a", m.group(0)))
    return None


#: The first line of a here-document that begins a Kubernetes object: ``apiVersion:`` or ``kind:`` at its left edge.
_OBJECT_START = re.compile(r"(?:apiVersion|kind)[ \t]*:")


def _piece(lines: list[str], doc: HereDoc) -> bool:
    """Whether ``doc`` is a piece of a manifest rather than whole objects: its first line that is not blank, a comment
    or ``---`` does not begin an object at the left edge (``      tolerations:``, ``- name: …``)."""
    for k in range(doc.start, doc.end or doc.start):
        line = lines[k - 1].lstrip("\t") if doc.strip_tabs else lines[k - 1]
        if not line.strip() or line.lstrip().startswith("#") or line.strip() == "---":
            continue
        return _OBJECT_START.match(line) is None
    return False


def _assembled_targets(lines: list[str], docs: list[HereDoc]) -> set[str]:
    """The files a script writes from more than one here-document, one of them appended and a piece of an object
    (:func:`_piece`): a manifest the script assembles from pieces when it runs, some of them often under a condition
    (corpus35: a Deployment's tolerations appended only ``if [ "$USE_GPU" == "true" ]``), so no one piece is a
    manifest and their sum is not known here. Appended here-documents that are whole objects each (``cat >> all.yaml
    << EOF`` then ``---`` and a Service) are read as before."""
    writes: dict[str, list[bool]] = {}
    for doc in docs:
        target = _write_target(doc)
        if target is not None:
            writes.setdefault(target[0], []).append(target[1] and _piece(lines, doc))
    return {t for t, pieces in writes.items() if len(pieces) > 1 and any(pieces)}


#: The most characters the here-documents of a script are matched against, together: each is matched against the
#: whole command it is opened on (its pipeline, the program it feeds, the file it is written to), so the work is the
#: command's length times its here-documents. fuzz24: a command of 100,000 ``<<E`` operators, each closed on a line
#: of its own, held the run past 90 s (5,000 took 34 s of CPU); 64 on a line of 2 MB took 22 s, one on 16 MB 4.9 s
#: (two cores shared, load 10). A real command opens one or two on a line of a few hundred characters; a command
#: whose here-documents take the script past this bound is an input error at its line, none of them read.
MAX_HEREDOC_WORK = 16_000_000


def manifest_text(text: str, file: str) -> ScriptManifests:
    """The manifests a script applies through here-documents (module docstring)."""
    lines = text.split("\n")
    known: list[tuple[set[str], set[str]]] = []

    def files() -> tuple[set[str], set[str]]:
        if not known:
            known.append(_applied_files(text))
        return known[0]

    out = [""] * len(lines)
    errors: list[InputError] = []
    read = 0
    stray: tuple[int, str] | None = None
    applied = [False] * len(lines)
    variables: list[tuple[int, int, int, int, str]] = []
    filled: list[tuple[int, int, str, str | None]] = []
    assembled: list[tuple[int, int, str, str | None]] = []
    every = heredocs(text)
    per_command = Counter(doc.line for doc in every)
    sizes = {doc.line: len(doc.command) for doc in every}
    crowded: set[int] = set()
    work = 0
    for opened, n in sorted(per_command.items()):  # in the script's order, the work of the commands read so far
        if work + n * sizes[opened] > MAX_HEREDOC_WORK:
            crowded.add(opened)
        else:
            work += n * sizes[opened]
    for opened in sorted(crowded):
        errors.append(InputError(
            f"a command of {sizes[opened]:,} characters opens {per_command[opened]:,} here-documents: shardwise "
            f"matches each against the whole command, at most {MAX_HEREDOC_WORK:,} characters in all for a script, so "
            "none of them is read (split the command, or build the manifest and lint the file)", file, opened))
    every = [doc for doc in every if doc.line not in crowded]
    pieces = _assembled_targets(lines, every)
    for doc in every:
        after = lines[doc.end] if doc.end is not None and doc.end < len(lines) else ""
        fed, envsubst = _fed_to_kubectl(doc, after, files)
        if not fed:
            if stray is None and doc.end is not None:
                body = "\n".join(lines[doc.start - 1:doc.end - 1])
                said = manifest_serves(body)
                if said is not None and _API_VERSION.search(body) and _KIND.search(body):
                    stray = (doc.line, said)
            continue
        if doc.end is None:
            errors.append(InputError(
                f"here-document fed to kubectl is never closed: no line `{doc.delimiter}` ends it (the shell "
                "would apply the rest of the script as a manifest)", file, doc.line))
            continue
        target = _write_target(doc) if pieces else None
        if target is not None and target[0] in pieces:
            first = next((a for a in assembled if a[2] == target[0]), None)
            body = "\n".join(lines[doc.start - 1:doc.end - 1])
            said = manifest_serves(body)
            if first is None:
                assembled.append((doc.line, 0, target[0], said))
            else:
                k = assembled.index(first)
                assembled[k] = (first[0], first[1] or (doc.line if target[1] else 0), first[2],
                                first[3] if first[3] is not None else said)
            continue
        literal = doc.quoted and not envsubst
        if not literal:
            whole = next(((k, m.group(0).strip()) for k in range(doc.start, doc.end)
                          if ((m := _WHOLE_LINE.match(lines[k - 1])) is not None
                              or (m := _GLUED.match(lines[k - 1])) is not None
                              or (m := _flow_items(lines[k - 1])) is not None)
                          and not _in_block_scalar(lines, k, doc.start)), None)
            if whole is not None:
                said = manifest_serves("\n".join(lines[doc.start - 1:doc.end - 1]))
                filled.append((doc.line, whole[0], whole[1], said))
                continue
        read += 1
        out[doc.line - 1] = "---"
        variable: tuple[int, int, int, int, str] | None = None
        for k in range(doc.start, doc.end):
            line = lines[k - 1].lstrip("\t") if doc.strip_tabs else lines[k - 1]
            out[k - 1] = line if literal else _quote_flow_values(_unquoted(line))
            applied[k - 1] = True
            if variable is None and not literal and (m := _IMAGE_VARIABLE.match(line)) is not None:
                variable = (doc.line, doc.start, doc.end, k, m.group(1))
        if variable is not None:
            variables.append(variable)
    mention = None
    for n, line in enumerate(lines, 1):
        m = _MENTION.search(line)
        if m is not None:
            mention = (n, m.group(0))
            break
    runs = None
    if variables:
        for n, line in enumerate(lines, 1):
            if applied[n - 1] or line.lstrip().startswith("#"):
                continue
            m = _SERVES.search(line)
            if m is not None:
                runs = (n, m.group(0))
                break
    return ScriptManifests("\n".join(out) if read else None, errors, read, mention, stray, runs, variables, filled,
                           [(o, a or o, t, w) for o, a, t, w in assembled])
