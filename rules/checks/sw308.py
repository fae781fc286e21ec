"""SW308: a secret written into a manifest instead of a Secret."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Literal

from ..engine import DECIDED_AT_UP, Hit, LintConfig, ObjectRule, RuleMeta, group_subject, object_subject
from ..model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    UNRESOLVED,
    ConfigMap,
    Container,
    Inventory,
    Location,
    ServingGroup,
    UnknownEnv,
)
from ..vllm.args import takes_value
from ._env import env_location
from ._unseen import unseen_hits

#: Tokens whose shape is theirs alone: Hugging Face user access tokens (``hf_`` and 34 letters or digits,
#: https://huggingface.co/docs/hub/security-tokens), AWS access key ids (``AKIA``/``ASIA`` and 16 upper-case
#: letters or digits, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html), OpenAI keys
#: (``sk-``, ``sk-proj-``), GitHub tokens (``ghp_`` ... and 36 letters or digits,
#: https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/).
TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a Hugging Face token", re.compile(r"(?<![A-Za-z0-9_])hf_([A-Za-z0-9]{34,})(?![A-Za-z0-9])")),
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)([A-Z0-9]{16})(?![A-Z0-9])")),
    ("an OpenAI API key", re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-)?([A-Za-z0-9_-]{32,})")),
    ("a GitHub token", re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_([A-Za-z0-9]{36})(?![A-Za-z0-9])")),
)
_SHAPES = frozenset(what for what, _ in TOKEN_PATTERNS)
#: Variables that hold a credential whatever their value looks like.
SECRET_NAMES = frozenset({
    "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN", "VLLM_API_KEY",
    "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "WANDB_API_KEY", "NGC_API_KEY",
})
#: Credentials whose issuer gives them a shape (TOKEN_PATTERNS): a value of another shape is no working token
#: of that issuer (a placeholder, or a format it no longer issues), so it is advisory.
VENDOR_SHAPED = {
    "HF_TOKEN": "a Hugging Face token", "HUGGING_FACE_HUB_TOKEN": "a Hugging Face token",
    "HUGGINGFACE_HUB_TOKEN": "a Hugging Face token", "HUGGINGFACEHUB_API_TOKEN": "a Hugging Face token",
    "OPENAI_API_KEY": "an OpenAI API key",
}
#: Names that look like a credential, as :func:`credential_name` spells them: advisory, since MAX_TOKENS-like settings
#: share the words. ``_PASS`` is the docker-library images' spelling (RABBITMQ_DEFAULT_PASS); ``SECRETKEY`` and
#: ``ACCESSKEY`` the keys of Kubeflow Pipelines' mlpipeline-minio-artifact Secret (``secretkey``, ``accesskey``).
_SECRETISH = re.compile(r"(?:^|_)(?:TOKEN|API_?KEY|SECRET|SECRET_?KEY|PASSWORD|PASSWD|PASS|ACCESS_?KEY)$")
#: An access key that is the user half of a key pair (MinIO's MINIO_ACCESS_KEY and the ``accesskey`` of Kubeflow's
#: mlpipeline-minio-artifact are the user name; AWS's access key id likewise), not AWS_SECRET_ACCESS_KEY: a product's
#: default password there is its default user name (``minioadmin`` is both), judged by the name's own level.
_USER_KEY = re.compile(r"(?:^|_)(?<!SECRET_)ACCESS_?KEY$")
#: A name that names where a credential is, not the credential: a Secret that exists already (Helm charts'
#: ``existingSecret``, Bitnami's ``auth.existingSecretPasswordKey``), or the key of a Secret that holds a password or a
#: user name (``passwordSecretKey``, ``userSecretKey``, ``adminPasswordSecretKey``). Its value is a Secret's or a key's
#: name (``admin``, ``admin-password``), no credential, however it reads. Not ``…_PASSWORD_SECRET`` or
#: ``…_TOKEN_SECRET`` (Graylog's GRAYLOG_PASSWORD_SECRET, an API's ACCESS_TOKEN_SECRET are credentials).
_REFERENCE = re.compile(r"(?:^|_)EXISTING(?:_|$)|(?:^|_)(?:PASSWORD|PASSWD|PASS|USER|USERNAME)_SECRET_?KEY$")
#: Where a name's words meet: a separator (``secret-key``, ``secret.key``) or a change of case (``secretKey``,
#: ``HFToken``).
_NAME_BREAKS = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def credential_name(name: str) -> str:
    """``name`` as upper-case words joined by ``_``, however it is spelled: ``secretKey``, ``secret_key``,
    ``SECRET-KEY`` and ``secret.key`` are ``SECRET_KEY``, ``secretkey`` is ``SECRETKEY`` (one word), ``hf-token`` is
    ``HF_TOKEN``: a Secret's or a values file's keys, a config file's settings and env names are matched as one."""
    return "_".join(w for w in _NAME_BREAKS.split(name.strip()) if w).upper()
#: vLLM flags whose value is a credential.
_SECRET_FLAGS = re.compile(r"--(api[-_]key|hf[-_]token)(?:=|\s+)(\S+)")
#: Template and substitution syntax: Helm/Go ({{ }}), shell and envsubst (${X}, $X), Kubernetes ($(X)),
#: fill-in markers (<X>), Azure DevOps and Octopus (#{X}#, #{X}), Windows (%X%), token replacement (__X__).
_TEMPLATE = re.compile(r"<[^>]*>|\{\{|\}\}|\$\(|\$\{|^\$[A-Za-z_]|#\{|^%[A-Za-z_]\w*%$|^__[A-Za-z0-9_]+__$")
#: Words that make a value a fill-in instead of a credential ("insert-your-huggingface-token-here",
#: "REPLACE_ME", "not-needed", the OpenAI client's "EMPTY" for a server without a key).
_PLACEHOLDER_WORDS = frozenset({
    "your", "insert", "here", "replace", "replaceme", "change", "changeme", "placeholder", "example", "dummy",
    "fake", "sample", "todo", "tbd", "fixme", "redacted", "none", "null", "nil", "empty", "undefined", "unset",
    "notset", "unused", "needed", "nokey", "noauth", "masked", "hidden", "omitted", "secretvalue",
})
#: Words that only name a credential: a value made of them alone ("hf-token", "api_key", "secret") is a label.
_LABEL_WORDS = frozenset({
    "hf", "hugging", "face", "huggingface", "hub", "token", "tokens", "api", "apikey", "key", "keys", "secret",
    "password", "passwd", "pass", "access", "vllm", "openai", "aws", "wandb", "ngc", "auth", "bearer", "value",
    "my", "the", "a", "id", "string", "str", "xxx",
})
#: Words that say where a credential comes from or what to do with it: a value made of them and of
#: :data:`_LABEL_WORDS` alone describes the credential instead of holding it (``API_KEY_GENERATED_FROM_NGC``,
#: ``hf-token-from-settings``, ``PASTE_NGC_KEY``); a generated token is no run of such words, and a key a person
#: chose (``key-for-team``) is none of them.
_INSTRUCTION_WORDS = frozenset({
    "generated", "generate", "from", "obtain", "obtained", "paste", "enter", "fill", "provide", "provided", "copy",
    "copied", "issued", "settings", "profile", "portal", "console", "dashboard", "catalog", "nvidia",
})
#: Keys given as examples in public documentation, which a reader copies into a demo: vLLM's
#: ("token-abc123", docs/serving/openai_compatible_server.md) and AWS's documented example key pair.
_DOCUMENTED_EXAMPLES = frozenset({"token-abc123", "akiaiosfodnn7example", "wjalrxutnfemi/k7mdeng/bpxrficyexamplekey"})


#: Passwords a product ships or documents as its default, which anyone can try: MinIO's root password when none is set
#: (``minioadmin``, MinIO's documentation of MINIO_ROOT_PASSWORD) and the one Kubeflow Pipelines' MinIO and the MinIO
#: Operator's example tenant use (``minio123``); Grafana's admin password (``admin``: grafana/grafana
#: ``conf/defaults.ini``, ``admin_password = admin``, kept until someone changes it); RabbitMQ's guest user's
#: (``guest``: RabbitMQ's access-control guide; the docker-library image lets it connect from anywhere,
#: ``conf.d/10-defaults.conf`` ``loopback_users.guest = false``). Under a credential's name it is no fill-in: the
#: deployment runs with it, and it is a credential of that product whose value is public, so it blocks whatever the
#: name's own level. Not listed, so judged by the name's own level: a value no product ships as its default, however
#: common in examples (``postgres``: the official PostgreSQL image has no default password and refuses to start
#: without POSTGRES_PASSWORD, docker-library/postgres ``docker-entrypoint.sh``), and a default a product no longer
#: ships (Elasticsearch's ``changeme`` before 6.0), which is a fill-in word (:data:`_PLACEHOLDER_WORDS`).
KNOWN_DEFAULT_PASSWORDS = {"minioadmin": "MinIO's", "minio123": "MinIO's", "admin": "Grafana's",
                           "guest": "RabbitMQ's"}

#: A line of an env file a Secret or ConfigMap value holds (``config.env`` of the MinIO Operator's example tenant,
#: ``export MINIO_ROOT_PASSWORD="minio123"``): the variable and its value as written (review29).
_ENV_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(\S.*?)[ \t]*$", re.MULTILINE)


_QUOTES = "'\""


def known_default(name: str, value: str) -> str | None:
    """Whose well-known default password (:data:`KNOWN_DEFAULT_PASSWORDS`) ``value`` is, under a credential's name
    that is no access key's (:data:`_USER_KEY`), else None. Compared as written, quotes and blanks aside: a password's
    case is its own (``MINIO123`` and ``Admin`` are no product's default; review29)."""
    owner = KNOWN_DEFAULT_PASSWORDS.get(value.strip().strip("'\"").strip())
    upper = credential_name(name)
    if owner is not None and (upper in SECRET_NAMES or _SECRETISH.search(upper)) and not _USER_KEY.search(upper):
        return owner
    return None


def env_file_default(text: str) -> tuple[str, str, str] | None:
    """(the variable, its value, whose default it is) of the first line of an env file in ``text`` that sets a
    credential's name to a product's well-known default password (:func:`known_default`), else None."""
    for m in _ENV_LINE.finditer(text):
        owner = known_default(m.group(1), m.group(2))
        if owner is not None:
            return m.group(1), m.group(2).strip("'\""), owner
    return None


def _words(value: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", value)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_placeholder(value: str, name: str = "") -> bool:
    """Whether ``value`` is a fill-in, not a credential: empty or a few characters, one character repeated
    (``xxxx``, ``****``), template or substitution syntax, prose, a word of :data:`_PLACEHOLDER_WORDS`
    (``insert-your-huggingface-token-here``), only words that name a credential (``hf-token``), the variable's
    own name, a documented example key, the word ``example`` anywhere (``AKIAIOSFODNN7EXAMPLE``), or three words or
    more of those and of :data:`_INSTRUCTION_WORDS` that say where the credential comes from
    (``API_KEY_GENERATED_FROM_NGC``)."""
    v = value.strip().strip("'\"").strip()
    low = v.lower()
    if len(v) < 4 or len(set(low) - {"-", "_", "."}) <= 2 or _TEMPLATE.search(v) or " " in v:
        return True
    if low in _DOCUMENTED_EXAMPLES or "example" in low or (name and low == name.lower()):
        return True
    words = [w.rstrip("0123456789") or w for w in _words(v)]  # "changeme123" is "changeme"
    if any(w in _PLACEHOLDER_WORDS or (len(w) >= 3 and set(w) == {"x"}) for w in words):
        return True
    if len(words) >= 3 and any(w in _INSTRUCTION_WORDS for w in words):
        return all(w in _LABEL_WORDS or w in _INSTRUCTION_WORDS for w in words)
    return bool(words) and all(w in _LABEL_WORDS for w in words)


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


#: An envsubst placeholder, the whole value: $HF_TOKEN, ${HF_TOKEN} (not Kubernetes' own $(VAR) reference).
_ENVSUBST = re.compile(r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?:[:-][^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)$")


def substituted_credential(name: str, value: object) -> bool:
    """Whether variable ``name``, a credential's, holds an envsubst placeholder in a plain value: what the deploy
    step substitutes is then stored in the object in plain text (a placeholder itself is no credential)."""
    return (isinstance(value, str) and _ENVSUBST.match(value.strip()) is not None
            and (credential_name(name) in SECRET_NAMES or _SECRETISH.search(credential_name(name)) is not None))


def _first_token(value: str) -> tuple[str, str] | None:
    """(what issuer's token, the token as written) of the first token ``value`` holds; a run of a few characters in
    the token's shape (``hf_xxxx…``, ``sk-0000…``) is a placeholder, not a token, and so is one whose ``-``/``_``
    parts include a fill-in word of four letters or more (:func:`_filled_in`)."""
    for what, pattern in TOKEN_PATTERNS:
        for m in pattern.finditer(value):
            body = m.group(1)
            if len(set(body.lower())) >= 8 and "example" not in body.lower() and not _filled_in(body):
                return what, m.group(0)
    return None


def _filled_in(body: str) -> bool:
    """Whether a token's body is words with a fill-in among them: ``sk-ant-demo-key-replace-with-real-key``
    (corpus29: an operator's config/samples Secret, blocked as "an OpenAI API key"). Only whole ``-``/``_`` parts of
    four letters or more count, and only where no part is 16 characters or more: an OpenAI key's random body
    (``sk-proj-`` and base64url characters, a separator about once in 32) has long parts, and a key with a word glued
    to it (``sk-<key>-replace``) is still a key."""
    parts = re.split(r"[-_]", body.lower())
    return all(len(w) < 16 for w in parts) and any(len(w) >= 4 and w in _PLACEHOLDER_WORDS for w in parts)


def _shape(value: str) -> str | None:
    """What issuer's token ``value`` holds (:func:`_first_token`)."""
    found = _first_token(value)
    return found[0] if found is not None else None


def described(value: str) -> str:
    """What a finding says of a credential ``value`` (:func:`redact`): a token written inside a longer text (a script
    or config file a ConfigMap holds) is described by itself, and the text by its length (corpus25: a RayJob's
    ConfigMap whose 574-character Python script passes vLLM ``--api-key sk-…`` was said to hold "an OpenAI API key
    (574 characters)", the script's length, not the key's)."""
    v = value.strip()
    found = _first_token(v)
    if found is None or found[1] == v:
        return redact(v)
    return f"{redact(found[1])}, inside a text of {len(v)} characters"


def redact(value: str) -> str:
    """What a message may say about a secret: its first characters when they name its kind, and its length."""
    v = value.strip()
    head = (v[:3] if v.startswith(("hf_", "sk-")) else v[:4] if v.startswith(("AKIA", "ASIA", "ghp_", "gho_",
                                                                                "ghu_", "ghs_", "ghr_")) else "")
    return f"{head}…, {len(v)} characters" if head else f"{len(v)} characters"


#: A value SOPS encrypted: ``ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:<str|int|...>]``
#: (getsops/sops aes/cipher.go, ``Cipher.Encrypt``'s format and ``parse``'s pattern). Ciphertext: Flux's
#: kustomize-controller or ``sops -d`` decrypts it at deploy time with a key that is not in the repository, which is
#: how SOPS and Flux say to commit a Secret.
_SOPS_VALUE = re.compile(r"ENC\[AES256_GCM,data:[A-Za-z0-9+/=]*,iv:[A-Za-z0-9+/=]+,tag:[A-Za-z0-9+/=]+,type:\w+\]")


def judge(name: str, value: object) -> tuple[str, Literal["advisory", "mandatory"]] | None:
    """(what the value is, the level) when variable ``name`` holds a literal credential, else None.

    Decided by the value's shape: an issuer's token format blocks wherever it is written; a placeholder is no
    credential under any name; a credential that has no issuer format (vLLM's API key, an AWS secret key)
    blocks as any other literal; one whose issuer has a format (HF_TOKEN) but whose value is not in it is
    advisory; a name that only looks like a credential's (…_TOKEN, …_PASSWORD) is advisory, unless it holds a
    product's well-known default password (:data:`KNOWN_DEFAULT_PASSWORDS`), which blocks."""
    if value is UNKNOWN or not isinstance(value, str):
        return None
    shape = _shape(value)
    if shape:
        return shape, "mandatory"
    if is_placeholder(value, name):
        return None
    upper = credential_name(name)
    if _REFERENCE.search(upper):  # it names a Secret or a key of one, not the value
        return None
    owner = known_default(name, value)
    if owner is not None:
        # the value is that product's default, whatever product the name is for (DB_PASSWORD: admin is Grafana's
        # default password, not Grafana's password): say which default it is, not whose credential
        return f"a well-known default password (`{value.strip().strip(_QUOTES).strip()}`, {owner} default)", "mandatory"
    if upper in VENDOR_SHAPED:
        return f"a literal value not shaped like {VENDOR_SHAPED[upper]}", "advisory"
    if upper in SECRET_NAMES:
        return f"a {name} credential", "mandatory"
    if _SECRETISH.search(upper) and len(value.strip()) >= 8 and not value.strip().isdigit() and (
            "/" not in value and " " not in value.strip()):
        return "what looks like a credential", "advisory"
    return None


#: :func:`judge`'s answers by (name, text value) for the run: manifests repeat the same variables file after file
#: (HF_HOME=/models, VLLM_LOGGING_LEVEL=INFO), and the answer is a pure function of the two. At most
#: :data:`_JUDGED_MAX` of them.
_JUDGED: dict[tuple[str, str], tuple[str, Literal["advisory", "mandatory"]] | None] = {}
_JUDGED_MAX = 8192


def judged(name: str, value: object) -> tuple[str, Literal["advisory", "mandatory"]] | None:
    """:func:`judge`, each (name, text value) judged once."""
    if not isinstance(value, str):
        return judge(name, value)
    key = (name, value)
    try:
        return _JUDGED[key]
    except KeyError:
        pass
    found = judge(name, value)
    if len(_JUDGED) >= _JUDGED_MAX:
        _JUDGED.clear()
    _JUDGED[key] = found
    return found


class LiteralSecretInManifest(ObjectRule[ServingGroup | ConfigMap]):
    meta = RuleMeta(
        code="SW308",
        name="literal-secret-in-manifest",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A credential is written into a manifest: a Hugging Face token or API key in a container's env, in a "
            "ConfigMap or in a committed Secret, or a literal --api-key / --hf-token value on the vLLM command line."
        ),
        why=(
            "Manifests live in Git, in Helm release history, in CI logs and in every `kubectl get -o yaml`; a "
            "token written there is readable by anyone who can read those, and rotating it means rewriting "
            "history. A ConfigMap is not access-controlled like a Secret and is shown in plain text by most "
            "tools. A Secret committed with its values (stringData, or base64 in data, which is an encoding, "
            "not encryption) is the same token in Git; a Secret's value SOPS encrypted (ENC[AES256_GCM,…], "
            "which Flux or sops decrypts at deploy time) is not. vLLM's --api-key given literally also appears "
            "in `ps` on "
            "the node and in the pod spec. The value's shape decides: an issuer's token format (hf_ and 34 "
            "letters or digits, AKIA…, sk-…, ghp_…) is mandatory wherever it is written, and so is any literal "
            "of a credential that has no issuer format (VLLM_API_KEY, --api-key, AWS_SECRET_ACCESS_KEY); a "
            "HF_TOKEN that is not shaped like a Hugging Face token, and other names that look like a credential "
            "(…_TOKEN, …_PASSWORD), are advisory, since settings such as MAX_TOKENS share the words. "
            "A credential's name is matched however it is spelled (secretKey, secret_key, SECRET-KEY, secretkey, "
            "hf-token). A product's well-known default password under a credential's name (MINIO_ROOT_PASSWORD, "
            "AWS_SECRET_ACCESS_KEY, secretkey, adminPassword, RABBITMQ_DEFAULT_PASS) is mandatory too: it is no "
            "fill-in, the deployment runs with it, and anyone can try it; so is one set in an env file a Secret or "
            "ConfigMap holds (export MINIO_ROOT_PASSWORD=minio123), and each is compared as written (MINIO123 is "
            "none). Those are the defaults a product ships or "
            "documents: MinIO's minioadmin and minio123 (Kubeflow Pipelines', the MinIO Operator's example tenant), "
            "Grafana's admin, RabbitMQ's guest; not a value no product ships as its default however common "
            "(postgres: the official PostgreSQL image has none), and not under an access key's name (the user half of "
            "a key pair, MINIO_ACCESS_KEY, accesskey), where each is judged by the name's own level. "
            "Placeholders (insert-your-huggingface-token-here, <token>, changeme, xxx, {{ .Values.token }}, "
            "${HF_TOKEN}) are no credential; an envsubst placeholder ($HF_TOKEN, ${HF_TOKEN}) in a credential's "
            "plain value is advisory: the token substituted at deploy time is stored in the object in plain "
            "text."
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
            "instead of --api-key. Keep Secrets' values out of the repository (an external secret store, Sealed "
            "Secrets, or a Secret created at deploy time). Rotate any token that was committed."
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


    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            # a workload whose containers are not known yet at preview: what this rule reads is not either
            yield from unseen_hits(inv, "whether its containers write a credential into the manifest")

    def objects(self, inv: Inventory) -> Iterable[ServingGroup | ConfigMap]:
        return [*self.groups(inv), *inv.config_maps]

    def check_object(self, obj: ServingGroup | ConfigMap, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        if isinstance(obj, ConfigMap):
            yield from self._data(obj)
            return
        for c in _own_containers(obj):
            yield from self._env(obj, c)
            if c.runs_vllm or c is obj.main_container:
                yield from self._flags(obj, c)

    def _env(self, g: ServingGroup, c: Container) -> Iterator[Hit]:
        if isinstance(c.env, UnknownEnv):  # an env list or entry not known yet at preview: any name, any value
            yield Hit(group_subject(g), f"cannot decide: whether container `{c.name}` writes a credential in its env: "
                      f"{_not_known(c.location)}", c.location, tuple(g.suppressions), undecided=True)
        for name, value in c.env.items():
            if value is UNKNOWN and c.env_written.get(name) == UNKNOWN_TOKEN:
                yield from self._computed_env(g, c, name)
                continue
            found = judged(name, value)
            if found is None and name not in c.env_written and substituted_credential(name, value):
                yield Hit(
                    group_subject(g),
                    f"container `{c.name}` sets {name} to the placeholder {value} in a plain value: the token "
                    f"substituted for it at deploy time is stored in the {g.kind} in plain text",
                    env_location(g, c, name), tuple(g.suppressions), level="advisory",
                )
            if found is None:
                continue
            what, level = found
            yield Hit(
                group_subject(g),
                f"container `{c.name}` sets {name} to {what} written in the manifest ({redact(str(value))}); "
                f"{_from_secret(name)}",
                env_location(g, c, name), tuple(g.suppressions), level=level,
            )

    def _computed_env(self, g: ServingGroup, c: Container, name: str) -> Iterator[Hit]:
        """Variable ``name``'s plain value not known (not a ``valueFrom``): the name decides. A setting's
        (``MAX_MODEL_LEN``) is no credential; a credential's without an issuer format (VLLM_API_KEY,
        AWS_SECRET_ACCESS_KEY) is written in the object in plain text whatever it turns out to be, and any literal
        of it blocks (:func:`judge`): decided, where the Pulumi program computes it; one whose issuer has a format
        (HF_TOKEN), or a name that only looks like a credential's, blocks or not by the value's shape: it cannot be
        decided (fail closed)."""
        upper = credential_name(name)
        if upper in SECRET_NAMES and upper not in VENDOR_SHAPED and c.location.urn:
            yield Hit(
                group_subject(g),
                f"container `{c.name}` sets {name} to a value computed by the program, not known at preview: whatever "
                f"it turns out to be, it is written in the {g.kind} in plain text; write it into a Secret instead (the "
                f"program may create it) and take it with valueFrom.secretKeyRef",
                env_location(g, c, name), tuple(g.suppressions), level="mandatory",
            )
        elif upper in SECRET_NAMES or _SECRETISH.search(upper):
            yield Hit(group_subject(g), f"cannot decide: whether container `{c.name}` writes a credential in {name}: "
                      f"its value is {_not_known(c.location)}", env_location(g, c, name), tuple(g.suppressions),
                      undecided=True)

    def _flags(self, g: ServingGroup, c: Container) -> Iterator[Hit]:
        # one pass over the command line (asked of every container): its words, whether one not known yet stands
        # where a flag may, and whether one may hold a secret flag (each match of secret_flags' pattern holds
        # `--api` or `--hf`)
        words: list[str] = []
        unknown = flagged = False
        key_unknown: str | None = None  # --api-key's value not known: the flag as written
        before: object = None  # the word before, as written
        for w in (*c.command, *c.args):
            if w is UNKNOWN or (isinstance(w, str) and UNKNOWN_TOKEN in w):
                flag = _value_of(before, w, c.runs_vllm)
                if flag is None:
                    unknown = True  # where a flag may stand: it may be --api-key=<literal>
                elif _SECRET_FLAG.fullmatch(flag):
                    key_unknown = flag
            if isinstance(w, str):
                words.append(w)
                if "--api" in w or "--hf" in w:
                    flagged = True
            elif w is UNKNOWN:
                words.append(UNKNOWN_TOKEN)  # a word: the next one is no value of the flag before it
            before = w
        if unknown:
            # a word not known yet at preview may be --api-key=<literal>
            yield Hit(group_subject(g), f"cannot decide: whether container `{c.name}` passes --api-key or --hf-token "
                      f"a literal value: a word of its command line is {_not_known(c.location)}", c.location,
                      tuple(g.suppressions), undecided=True)
        if key_unknown is not None:
            yield from self._unknown_key(g, c, key_unknown)
        if not flagged:
            return
        for flag, value in secret_flags(words):
            import shlex  # only a container that passes a secret flag (start-up time)

            flag = flag.replace("_", "-")
            try:
                value = shlex.split(value)[0] if value else value
            except ValueError:
                pass
            found = judge("HF_TOKEN" if flag == "hf-token" else "VLLM_API_KEY", value)
            if found is None:
                continue
            what, level = found
            where = g.engine.locations.get(flag.replace("-", "_")) if c.name == g.vllm_container else None
            shaped = f"{what}, " if what in _SHAPES else ""
            yield Hit(
                group_subject(g),
                f"container `{c.name}` passes --{flag} a literal value ({shaped}{redact(value)}); {_FLAG_REMEDY[flag]}",
                where or c.location, tuple(g.suppressions), level=level,
            )

    def _unknown_key(self, g: ServingGroup, c: Container, flag: str) -> Iterator[Hit]:
        """--api-key's value not known (no word of the command line not known where a flag may stand). A value
        computed by the Pulumi program (another resource's output: a generated password, a Secret's data read
        back) is written into the pod spec in plain text whatever it turns out to be, and vLLM's API key has no
        issuer format: a literal of it blocks (:func:`judge`), so this does, decided. A value the reader cannot
        resolve in files may come from a Secret (a reference): that cannot be decided."""
        if not c.location.urn:
            yield Hit(group_subject(g), f"cannot decide: whether container `{c.name}` passes --api-key a literal "
                      f"value: its value is {_not_known(c.location)}", c.location, tuple(g.suppressions),
                      undecided=True)
            return
        where = g.engine.locations.get("api_key") if c.name == g.vllm_container else None
        yield Hit(
            group_subject(g),
            f"container `{c.name}` passes {flag} a value computed by the program, not known at preview: whatever it "
            f"turns out to be, it is written in the {g.kind} in plain text; {_FLAG_REMEDY['api-key']}",
            where or c.location, tuple(g.suppressions), level="mandatory",
        )

    def _data(self, cm: ConfigMap) -> Iterator[Hit]:
        if cm.kind == "Secret" and cm.location.urn:
            return  # a Secret a Pulumi program declares: its values come from the program (config secrets)
        subject = object_subject(cm.kind, cm.name, cm.namespace)
        if isinstance(cm.data, UnknownEnv):  # its data not known yet at preview: any key, any value
            yield Hit(subject, f"cannot decide: whether {cm.kind} `{cm.namespace}/{cm.name}` holds a credential: its "
                      f"data is {_not_known(cm.location)}", cm.location, tuple(cm.suppressions), undecided=True)
        for key, value in cm.data.items():
            if cm.kind == "Secret" and isinstance(value, str) and _SOPS_VALUE.fullmatch(value.strip()):
                continue  # encrypted in the repository (corpus29: a GitOps tree's *.sops.yaml); a ConfigMap's is
                # decrypted into an object that is not for credentials, and judged as written
            found = judge(key, value)
            said = described(str(value))
            if found is None and isinstance(value, str) and "=" in value:
                in_file = env_file_default(value)  # an env file it holds: ``export MINIO_ROOT_PASSWORD=minio123``
                if in_file is not None:
                    found = (f"{in_file[2]} well-known default password", "mandatory")
                    said = f"as {in_file[0]}, {redact(in_file[1])}"
            if found is None:
                continue
            what, level = found
            if cm.kind == "Secret":
                tail = ("committed to the repository (a Secret's data is base64, not encryption); commit a "
                        "SealedSecret or an ExternalSecret in its place (or create the Secret at deploy time), and "
                        "rotate the value, which the repository's history keeps")
            else:
                tail = ("in a ConfigMap, which is not for credentials; move the key to a Secret, take it with "
                        "valueFrom.secretKeyRef or envFrom.secretRef, and rotate the value, which the repository's "
                        "history keeps")
            yield Hit(
                subject,
                f"{cm.kind} `{cm.namespace}/{cm.name}` holds {what} under {key} ({said}), {tail}",
                cm.key_locations.get(key, cm.location), tuple(cm.suppressions), level=level,
            )


#: What to write instead of a secret flag's literal value (no variable named: a baseline's field is read from the
#: message, and the remedy must not change it; the rule's remediation names the variables).
_FLAG_REMEDY = {
    "api-key": "drop the flag and give vLLM the key in its API-key environment variable from a Secret "
               "(valueFrom.secretKeyRef), then rotate the key",
    "hf-token": "drop the flag and give vLLM the token in its Hugging Face token environment variable from a Secret "
                "(valueFrom.secretKeyRef), then rotate the token",
}


#: A flag that takes a credential as its value (:data:`_SECRET_FLAGS`; ``--hf-token`` takes one optionally, so the
#: word after it may be a flag: :func:`~shardwise.rules.vllm.args.takes_value` says it takes none).
_SECRET_FLAG = re.compile(r"--(?:api[-_]key|hf[-_]token)")


def _value_of(before: object, word: object, vllm: bool) -> str | None:
    """The flag whose value ``word`` (not known, or holding :data:`UNKNOWN_TOKEN`) is on a vLLM container's command
    line, else None (it may stand where a flag does): the flag before it that vLLM defines and that takes a value
    (``--tensor-parallel-size <unknown>``: vLLM's parser reads the next word as its value, whatever it is; the
    reader SW003 asks the same of, :func:`~shardwise.rules.vllm.args.takes_value`), or the flag the word itself
    starts with, written with ``=`` before the unknown part (``--max-model-len=<unknown>``)."""
    if not vllm:
        return None
    if isinstance(word, str) and word.startswith("--") and "=" in word:
        flag = word.split("=", 1)[0]
        return flag if UNKNOWN_TOKEN not in flag and takes_value(flag) else None
    if isinstance(before, str) and UNKNOWN_TOKEN not in before and takes_value(before):
        return before
    return None


def _from_secret(name: str) -> str:
    """What to write instead of a credential in a plain env value."""
    if credential_name(name).startswith("AWS_"):
        return ("give the pod an IAM role instead (EKS Pod Identity or IRSA on its service account), or take the "
                "value from a Secret with valueFrom.secretKeyRef; deactivate the key, which the repository keeps")
    return "take the value from a Secret with valueFrom.secretKeyRef, and rotate it, which the repository keeps"


def _not_known(location: Location) -> str:
    """Why a value at ``location`` is not known: a computed value at preview for a Pulumi resource, else a value
    of the files the reader cannot resolve (the runner says what decides it: ``engine.what_decides``)."""
    return f"not known (a computed value at preview; {DECIDED_AT_UP})" if location.urn else f"not known ({UNRESOLVED})"


def _own_containers(g: ServingGroup) -> list[Container]:
    """The containers whose settings this group reports: a pod with several vLLM containers is one group per
    container, all sharing the pod's containers, so each vLLM container is reported by its own group and the
    other containers by the first vLLM container's group (one finding per value and object)."""
    vllm = [c for c in g.containers if c.runs_vllm]
    if len(vllm) < 2:
        return list(g.containers)
    mine = g.main_container
    first = vllm[0].name == (mine.name if mine is not None else None)
    return [c for c in g.containers if (c is mine or c.name == g.vllm_container) or (first and not c.runs_vllm)]
