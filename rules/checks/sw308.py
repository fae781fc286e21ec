"""SW308: a secret written into a manifest instead of a Secret."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator
from typing import Literal

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, subject_of
from ..model import UNKNOWN, ConfigMap, Container, Inventory, ServingGroup
from ._env import env_location

#: Tokens whose shape is theirs alone: Hugging Face user access tokens, AWS access key ids, OpenAI keys.
TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a Hugging Face token", re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])")),
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("an OpenAI API key", re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-)?[A-Za-z0-9_-]{32,}")),
)
#: Variables that hold a credential whatever their value looks like.
SECRET_NAMES = frozenset({
    "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN", "VLLM_API_KEY",
    "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "WANDB_API_KEY", "NGC_API_KEY",
})
#: Names that look like a credential: advisory, since MAX_TOKENS-like settings share the words.
_SECRETISH = re.compile(r"(?:^|_)(?:TOKEN|API_?KEY|SECRET|SECRET_KEY|PASSWORD|PASSWD|ACCESS_KEY)$", re.IGNORECASE)
#: vLLM flags whose value is a credential.
_SECRET_FLAGS = re.compile(r"--(api[-_]key|hf[-_]token)(?:=|\s+)(\S+)")
_PLACEHOLDER = re.compile(
    r"^(?:|-|x+|\*+|\.+|none|null|empty|dummy|todo|tbd|placeholder|change[-_]?me|replace[-_]?me|"
    r"your[-_]?(?:token|key|api[-_]key)|redacted)$", re.IGNORECASE)


#: One word's --api-key / --hf-token with its value in the same word, or at the word's end (the value is the
#: next word's first token).
_FLAG_IN_WORD = re.compile(r"--(api[-_]key|hf[-_]token)(?:(?:=|\s+)(\S+)|\s*\Z)")
_FIRST_TOKEN = re.compile(r"\s*(\S+)")


def secret_flags(words: list[str]) -> Iterator[tuple[str, str]]:
    """``(flag, value)`` for each match of :data:`_SECRET_FLAGS` in the words joined by spaces, found word by
    word: the joined command line is never built (a command whose words are aliases of one large scalar would
    make it as large as every repetition together)."""
    i, at = 0, 0
    while i < len(words):
        m = _FLAG_IN_WORD.search(words[i], at)
        if m is None:
            i, at = i + 1, 0
            continue
        if m.group(2) is not None:
            yield m.group(1), m.group(2)
            at = m.end()
            continue
        j = i + 1  # the flag ends its word: its value is the next word with text, as the joined line reads
        while j < len(words) and not words[j].strip():
            j += 1
        if j == len(words):
            return
        v = _FIRST_TOKEN.match(words[j])
        assert v is not None
        yield m.group(1), v.group(1)
        i, at = j, v.end()


def _placeholder(value: str) -> bool:
    v = value.strip().strip("'\"")
    return bool(_PLACEHOLDER.match(v)) or any(m in v for m in ("<", ">", "{{", "}}", "$(", "${")) or (
        v.startswith("$") and len(v) > 1)


#: An envsubst placeholder, the whole value: $HF_TOKEN, ${HF_TOKEN} (not Kubernetes' own $(VAR) reference).
_ENVSUBST = re.compile(r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?:[:-][^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)$")


def substituted_credential(name: str, value: object) -> bool:
    """Whether variable ``name``, a credential's, holds an envsubst placeholder in a plain value: what the deploy
    step substitutes is then stored in the object in plain text (a placeholder itself is no credential)."""
    return (isinstance(value, str) and _ENVSUBST.match(value.strip()) is not None
            and (name.upper() in SECRET_NAMES or _SECRETISH.search(name) is not None))


def _shape(value: str) -> str | None:
    for what, pattern in TOKEN_PATTERNS:
        if pattern.search(value):
            return what
    return None


def redact(value: str) -> str:
    """What a message may say about a secret: its first characters when they name its kind, and its length."""
    v = value.strip()
    head = v[:3] if v.startswith(("hf_", "sk-")) else v[:4] if v.startswith(("AKIA", "ASIA")) else ""
    return f"{head}…, {len(v)} characters" if head else f"{len(v)} characters"


def judge(name: str, value: object) -> tuple[str, Literal["advisory", "mandatory"]] | None:
    """(what the value is, the level) when variable ``name`` holds a literal credential, else None."""
    if value is UNKNOWN or not isinstance(value, str) or _placeholder(value):
        return None
    shape = _shape(value)
    if shape:
        return shape, "mandatory"
    if name.upper() in SECRET_NAMES:
        return f"a {name} credential", "mandatory"
    if _SECRETISH.search(name) and len(value.strip()) >= 8 and not value.strip().isdigit() and (
            "/" not in value and " " not in value.strip()):
        return "what looks like a credential", "advisory"
    return None


class LiteralSecretInManifest(ObjectRule[ServingGroup | ConfigMap]):
    meta = RuleMeta(
        code="SW308",
        name="literal-secret-in-manifest",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A credential is written into a manifest: a Hugging Face token or API key in a container's env or "
            "in a ConfigMap, or a literal --api-key / --hf-token value on the vLLM command line."
        ),
        why=(
            "Manifests live in Git, in Helm release history, in CI logs and in every `kubectl get -o yaml`; a "
            "token written there is readable by anyone who can read those, and rotating it means rewriting "
            "history. A ConfigMap is not access-controlled like a Secret and is shown in plain text by most "
            "tools. vLLM's --api-key given literally also appears in `ps` on the node and in the pod spec. "
            "Values whose shape is a token's (hf_…, AKIA…, sk-…) and variables that always hold credentials "
            "(HF_TOKEN, VLLM_API_KEY, …) are mandatory; other names that look like a credential (…_TOKEN, "
            "…_PASSWORD) are advisory, since settings such as MAX_TOKENS share the words. Placeholders "
            "(<HF_TOKEN>, changeme, ${HF_TOKEN}) are no credential; an envsubst placeholder ($HF_TOKEN, "
            "${HF_TOKEN}) in a credential's plain value is advisory: the token substituted at deploy time is "
            "stored in the object in plain text."
        ),
        bad_example=(
            "env:\n"
            "  - name: HF_TOKEN\n"
            "    value: hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n"
            "args: [meta-llama/Llama-3.1-8B-Instruct, --api-key, sk-serving-key-1234]"
        ),
        good_example=(
            "env:\n"
            "  - name: HF_TOKEN\n"
            "    valueFrom: {secretKeyRef: {name: hf-token, key: token}}\n"
            "  - name: VLLM_API_KEY\n"
            "    valueFrom: {secretKeyRef: {name: vllm-api-key, key: key}}\n"
            "args: [meta-llama/Llama-3.1-8B-Instruct]   # vLLM reads VLLM_API_KEY"
        ),
        remediation=(
            "Move the value into a Secret (or an external secret store synced to one) and reference it with "
            "valueFrom.secretKeyRef or envFrom.secretRef; pass vLLM's key through the VLLM_API_KEY variable "
            "instead of --api-key. Rotate any token that was committed."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/configuration/secret/",
            "https://kubernetes.io/docs/concepts/security/secrets-good-practices/",
            "https://docs.vllm.ai/en/latest/configuration/env_vars.html",
            "https://huggingface.co/docs/hub/security-tokens",
        ),
        scope="resource",
        applies_to_plans=False,
    )

    def objects(self, inv: Inventory) -> Iterable[ServingGroup | ConfigMap]:
        return [*self.groups(inv), *inv.config_maps]

    def check_object(self, obj: ServingGroup | ConfigMap, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        if isinstance(obj, ConfigMap):
            yield from self._config_map(obj)
            return
        for c in obj.containers:
            yield from self._env(obj, c)
            if c.runs_vllm or c is obj.main_container:
                yield from self._flags(obj, c)

    def _env(self, g: ServingGroup, c: Container) -> Iterator[Hit]:
        for name, value in c.env.items():
            found = judge(name, value)
            if found is None and name not in c.env_written and substituted_credential(name, value):
                yield Hit(
                    group_subject(g),
                    f"container `{c.name}` of {group_subject(g)} sets {name} to the placeholder {value} in a "
                    f"plain value: the token substituted for it at deploy time is stored in the {g.kind} in plain "
                    "text; required: a valueFrom.secretKeyRef to a Secret",
                    env_location(g, c, name), tuple(g.suppressions), level="advisory",
                )
            if found is None:
                continue
            what, level = found
            yield Hit(
                group_subject(g),
                f"container `{c.name}` of {group_subject(g)} sets {name} to {what} written in the manifest "
                f"({redact(str(value))}); required: a valueFrom.secretKeyRef to a Secret",
                env_location(g, c, name), tuple(g.suppressions), level=level,
            )

    def _flags(self, g: ServingGroup, c: Container) -> Iterator[Hit]:
        words = [w for w in (*c.command, *c.args) if isinstance(w, str)]
        for flag, value in secret_flags(words):
            flag = flag.replace("_", "-")
            try:
                value = shlex.split(value)[0] if value else value
            except ValueError:
                pass
            if _placeholder(value):
                continue
            where = g.engine.locations.get(flag.replace("-", "_")) if c.name == g.vllm_container else None
            yield Hit(
                group_subject(g),
                f"container `{c.name}` of {group_subject(g)} passes --{flag} a literal value "
                f"({redact(value)}); required: the key from a Secret (VLLM_API_KEY from valueFrom.secretKeyRef for "
                "--api-key, HF_TOKEN for --hf-token)",
                where or c.location, tuple(g.suppressions),
            )

    def _config_map(self, cm: ConfigMap) -> Iterator[Hit]:
        subject = subject_of(cm)
        for key, value in cm.data.items():
            found = judge(key, value)
            if found is None:
                continue
            what, level = found
            yield Hit(
                subject,
                f"ConfigMap `{cm.namespace}/{cm.name}` holds {what} under {key} ({redact(str(value))}); "
                "ConfigMaps are not for credentials; required: a Secret",
                cm.key_locations.get(key, cm.location), tuple(cm.suppressions), level=level,
            )

