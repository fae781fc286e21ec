"""A ConfigMap or Secret whose data the API server refuses for its size, said from its text (review45,
rules/adapters/datasize.py): kubernetes pkg/apis/core/validation ValidateConfigMap and ValidateSecret refuse more
than core.MaxSecretSize (1 MiB) of values. The shapes are the ones such files have: Helm output with a CA bundle or a
dashboard in a block scalar, a generated ConfigMap of many small keys, a Secret's base64."""

from __future__ import annotations

import base64

import pytest
from shardwise.rules.adapters.datasize import MAX_DATA_BYTES, oversized_data
from shardwise.rules.adapters.load import load_text

DEPLOYMENT = """\
---
# Source: vllm/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 1
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _bundle(chars: int, width: int = 64) -> str:
    """A CA bundle's lines in a block scalar under `ca.crt: |` (indent 4), ``chars`` characters of base64 text."""
    lines = [("A" * width) for _ in range(chars // width)] + (["A" * (chars % width)] if chars % width else [])
    return "".join(f"    {line}\n" for line in lines)


def _message(kind: str, name: str, least: int, lines: int) -> str:
    return (f"{kind} {name}: its data holds at least {least:,} bytes, more than the 1,048,576 (1 MiB) the Kubernetes "
            f"API server takes in a {kind}'s data (kubernetes pkg/apis/core/validation Validate{kind}: "
            f"core.MaxSecretSize): it cannot be created, and is not read further (counted from its text, without "
            f"parsing its {lines:,} lines); split it into {kind}s of at most 1 MiB each, or mount the data from a volume")


def test_a_helm_rendered_config_map_over_a_mebibyte_is_an_input_error_and_the_rest_is_read():
    """helm template output: a ConfigMap whose CA bundle is 1,100,032 bytes, then the chart's Deployment, whose lines
    are still its own."""
    head = ("---\n# Source: vllm/templates/ca.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: trust-bundle\n"
            "  labels: {app: vllm}\ndata:\n  ca.crt: |\n")
    text = head + _bundle(17_188 * 64) + DEPLOYMENT
    inv = load_text(text, "rendered.yaml")
    cm_lines = (head + _bundle(17_188 * 64)).count("\n")
    assert [(e.file, e.line, e.message) for e in inv.errors] == [
        ("rendered.yaml", 8, _message("ConfigMap", "trust-bundle", 1_100_032, cm_lines))]
    assert [(g.location.file, g.location.line) for g in inv.groups] == [("rendered.yaml", cm_lines + 3)]


def test_many_small_keys_are_counted_without_parsing():
    """hostile18's shape, smaller: 120,000 keys of nine characters (the 31.65 MiB one of 2,450,000 keys took 18.9 s
    of CPU and 1.1 GB and passed; now 1.9 s and 0.24 GB, an input error)."""
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: serving}\ndata:\n"
            + "".join(f"  k{i}: vvvvvvvvv\n" for i in range(120_000)))
    assert oversized_data(text) == (3, _message("ConfigMap", "flags", 1_080_000, 120_004))
    inv = load_text(text, "flags.yaml")
    assert [(e.line, e.message) for e in inv.errors] == [(4, _message("ConfigMap", "flags", 1_080_000, 120_004))]


def test_a_secret_counts_its_base64_decoded():
    """A Secret's data is base64: 1,500,000 characters are at least 1,124,997 bytes (three in four, less a value's
    padding and partial group); 1,300,000 are at most 975,000, under the limit, and the Secret is parsed."""
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: weights-key\ntype: Opaque\ndata:\n  key.bin: |\n"
    big = secret + _bundle(1_500_000, 76)
    assert oversized_data(big) == (5, _message("Secret", "weights-key", 1_124_997, big.count("\n")))
    assert oversized_data(secret + _bundle(1_300_000, 76)) is None


def test_data_of_exactly_a_mebibyte_is_read():
    exact = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: exact}\ndata:\n  blob: |\n" + _bundle(MAX_DATA_BYTES)
    assert len(exact) > MAX_DATA_BYTES
    assert oversized_data(exact) is None
    assert oversized_data(exact + "    A\n") == (3, _message("ConfigMap", "exact", MAX_DATA_BYTES + 1,
                                                          exact.count("\n") + 1))


@pytest.mark.parametrize("value", [
    "12345678",  # a number: kubectl refuses it for its type, not counted
    "true",
    "~",
    "&a aaaaaaaa",  # an anchor, a tag, an alias, a flow collection: left to the parser
    "!!str aaaa",
    "*ref",
    "[aaaaaa]",
    "aaaa # a comment",  # a `#`: the line counts nothing
])
def test_values_whose_text_is_not_their_bytes_are_not_counted(value):
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"
            + "".join(f"  k{i}: {value}\n" for i in range(140_000)))
    assert oversized_data(text) is None


@pytest.mark.parametrize("text", [
    # quotes and escapes are taken off: '"\x41\x41"' spells two bytes in ten characters
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"
    + "".join(f'  k{i}: "\\x41\\x41"\n' for i in range(140_000)),
    # flow style with lists for values (fuzz26 counts a flow mapping of scalars), and a document that is one block
    # scalar (its lines are text): left to the parser
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {" + ", ".join(f"k{i}: [vvvvvvvv]" for i in
                                                                               range(140_000)) + "}}\n",
    "--- |\napiVersion: v1\nkind: ConfigMap\ndata:\n" + "".join(f"  k{i}: vvvvvvvvv\n" for i in range(140_000)),
    # not a ConfigMap: a CRD of 1.3 MB (its schema's descriptions)
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x.y.io}\ndata:\n"
    + "".join(f"  k{i}: vvvvvvvvv\n" for i in range(140_000)),
    # kind written twice: the parser says so
    "apiVersion: v1\nkind: ConfigMap\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"
    + "".join(f"  k{i}: vvvvvvvvv\n" for i in range(140_000)),
    # a tag in the section: !!binary reads base64 as bytes
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: !!binary |\n" + _bundle(1_300_000),
], ids=["escapes", "flow-lists", "scalar-document", "crd", "kind-twice", "binary-tag"])
def test_text_that_is_no_sure_measure_is_left_to_the_parser(text):
    assert oversized_data(text) is None


def test_the_name_is_found_at_the_indent_metadata_is_written_in():
    """review47: sops writes four-space indents; the message named no Secret (``Secret: its data…``), for the name was
    looked for at two spaces only. A ``name`` deeper (a label's, an owner reference's) is not the object's."""
    secret = ("apiVersion: v1\nkind: Secret\nmetadata:\n    labels:\n        name: not-this\n    ownerReferences:\n"
              "        -   name: nor-this\n    name: weights-key\ntype: Opaque\ndata:\n    key.bin: |\n")
    text = secret + _bundle(1_500_000, 76).replace("    ", "        ")
    assert oversized_data(text) == (9, _message("Secret", "weights-key", 1_124_997, text.count("\n")))


def _sops(plain_chars: int, kind: str = "str") -> str:
    """A value as ``sops -e`` writes it (getsops/sops aes/cipher.go ``Cipher.Encrypt``): the ciphertext, as long as
    the ``plain_chars`` characters it decrypts to, in base64, a 32-byte IV and a 16-byte tag."""
    data = base64.b64encode(b"\x8f" * plain_chars).decode()
    iv, tag = base64.b64encode(b"\x11" * 32).decode(), base64.b64encode(b"\x22" * 16).decode()
    return f"ENC[AES256_GCM,data:{data},iv:{iv},tag:{tag},type:{kind}]"


#: The metadata ``sops -e --encrypted-regex '^(data|stringData)$'`` appends (sops writes four-space indents).
SOPS_TAIL = ("sops:\n    kms: []\n    gcp_kms: []\n    azure_kv: []\n    hc_vault: []\n    age:\n"
             "        - recipient: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n"
             "          enc: |\n            -----BEGIN AGE ENCRYPTED FILE-----\n            YWdlLWVuY3J5cHRpb24=\n"
             "            -----END AGE ENCRYPTED FILE-----\n    lastmodified: \"2026-11-02T10:00:00Z\"\n"
             f"    mac: {_sops(32)}\n    pgp: []\n    encrypted_regex: ^(data|stringData)$\n    version: 3.9.0\n")


def test_a_sops_encrypted_secret_is_counted_as_what_it_decrypts_to():
    """review47: a GitOps tree's Secret, SOPS encrypted (Flux decrypts it before applying): 800,000 bytes of data,
    base64 of 1,066,668 characters, encrypted as 1,422,224 characters of base64 ciphertext. Read as written that was
    at least 1,066,6xx bytes, a false input error; it is 800,000, and the Secret is parsed."""
    value = base64.b64encode(b"\x00" * 800_000).decode()
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n    name: tls-bundle\n    namespace: serving\ntype: Opaque\n"
            f"data:\n    ca.crt: {_sops(len(value))}\n" + SOPS_TAIL)
    assert len(text) > 1_400_000
    assert oversized_data(text) is None
    assert load_text(text, "secret.sops.yaml").errors == []


def test_a_sops_encrypted_value_over_a_mebibyte_is_still_one():
    """The text a value decrypts to is counted: a stringData value of 1,100,000 characters SOPS encrypted holds
    1,100,000 bytes; a value of another type (``type:int``) counts nothing."""
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n    name: prompts\ntype: Opaque\nstringData:\n"
            f"    prompts.txt: {_sops(1_100_000)}\n    replicas: {_sops(2_000_000, 'int')}\n" + SOPS_TAIL)
    assert oversized_data(text) == (5, _message("Secret", "prompts", 1_100_000, text.count("\n")))


def test_text_is_counted_in_utf8_bytes_as_the_api_server_counts_it():
    """review47: the API server sums Go's ``len`` of each value, its UTF-8 bytes. A ConfigMap of a Chinese prompt
    library, 500,000 characters of three bytes each in 1,000 keys, holds 1,500,000 bytes though its text is 0.5 M
    characters: it was parsed and passed; it is an input error at its ``data:`` line."""
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prompts-zh\n  namespace: serving\ndata:\n"
    text = head + "".join(f"  prompt-{i:04d}.txt: |\n    {'模' * 250}\n    {'型' * 250}\n" for i in range(1_000))
    assert len(text) < MAX_DATA_BYTES
    lines = text.count("\n")
    assert oversized_data(text) == (5, _message("ConfigMap", "prompts-zh", 1_500_000, lines))
    inv = load_text(text + DEPLOYMENT, "prompts.yaml")
    assert [(e.line, e.message) for e in inv.errors] == [(6, _message("ConfigMap", "prompts-zh", 1_500_000, lines))]
    assert [g.location.line for g in inv.groups] == [lines + 3]


def test_keys_and_multibyte_text_under_a_mebibyte_are_read():
    """900 KiB of values in two-byte characters (é) under keys of 244 characters: the text is 1,034,559 characters and
    1,495,359 bytes in UTF-8, the values 921,600 bytes; keys are not counted (ValidateConfigMap sums the values only).
    Not refused."""
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: accents\ndata:\n"
            + "".join(f"  {'k' * 240}{i:04d}: {'é' * 200}\n" for i in range(2_304)))
    assert (len(text), len(text.encode())) == (1_034_559, 1_495_359)
    assert oversized_data(text) is None
    assert load_text(text, "accents.yaml").errors == []


def test_a_lone_surrogate_counts_one_byte():
    """Text decoded with ``surrogateescape`` (a piped stdin) holds each byte that was no UTF-8 as a lone surrogate:
    600,000 of them were 600,000 bytes, not the 1,800,000 a surrogate's own encoding would count."""
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: latin1\ndata:\n"
            + "".join(f"  k{i}: {chr(0xDCE9) * 600}\n" for i in range(1_000)))
    assert oversized_data(text) is None

def test_data_over_a_mebibyte_only_once_its_aliases_expand_is_an_input_error():
    """fuzz25: 12 KiB of text, a 4,096-byte value aliased 300 times in all (1,228,800 bytes to the API server), passed;
    256 of them (exactly 1 MiB) are read. A Secret's base64 and a ConfigMap's binaryData count decoded."""
    def aliased(n: int, kind: str = "ConfigMap", section: str = "data", value: str = "z" * 4096) -> str:
        return (f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: anch}}\n{section}:\n  k0: &v {value}\n"
                + "".join(f"  k{i}: *v\n" for i in range(1, n)))
    inv = load_text(aliased(300), "a.yaml")
    assert [(e.file, e.line, e.message) for e in inv.errors] == [("a.yaml", 1, (
        "ConfigMap anch: its data holds 1,228,800 bytes once its aliases are expanded, more than the 1,048,576 (1 MiB) "
        "the Kubernetes API server takes in a ConfigMap's data (kubernetes pkg/apis/core/validation ValidateConfigMap: "
        "core.MaxSecretSize): it cannot be created; split it into ConfigMaps of at most 1 MiB each, or mount the data "
        "from a volume"))]
    assert load_text(aliased(256), "a.yaml").errors == []
    # base64 of 4,096 characters is 3,072 bytes: 342 of them are 1,050,624, over; 341 (1,047,552) are not
    assert [e.line for e in load_text(aliased(342, "Secret", value="QUFB" * 1024), "s.yaml").errors] == [1]
    assert load_text(aliased(341, "Secret", value="QUFB" * 1024), "s.yaml").errors == []
    assert [e.line for e in load_text(aliased(342, section="binaryData", value="QUFB" * 1024), "b.yaml").errors] == [1]


#: A Secret as a chart renders one whose values file may replace a key: data in base64, stringData's value of a key
#: written over data's by the API server (kubernetes pkg/apis/core/v1/conversion.go Convert_v1_Secret_To_core_Secret)
#: before ValidateSecret counts.
_SECRET_BOTH = ("---\n# Source: vllm/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: weights\n"
                "type: Opaque\ndata:\n  model.key: |\n{bundle}  token: dG9rZW4=\nstringData:\n  {over}: sk-1234\n")


def test_a_secret_whose_string_data_replaces_its_large_data_key_is_read():
    """review49: 1,500,000 characters of base64 under data's `model.key`, which stringData replaces by seven bytes:
    the API server counts 7 + 5 bytes and creates it; it was an input error of at least 1,125,000 bytes."""
    text = _SECRET_BOTH.format(bundle=_bundle(1_500_000, 76), over="model.key") + DEPLOYMENT
    assert oversized_data(text.split(DEPLOYMENT)[0]) is None
    inv = load_text(text, "rendered.yaml")
    assert inv.errors == []
    assert [g.name for g in inv.groups] == ["vllm"]


def test_a_secret_whose_string_data_replaces_a_small_key_is_still_over():
    """stringData replacing `token` leaves `model.key`'s 1,125,000 bytes or so: data's text counted (1,500,008
    characters, three bytes in four less three a key: 1,125,000), less `token`'s line (nine characters: 9)."""
    text = _SECRET_BOTH.format(bundle=_bundle(1_500_000, 76), over="token")
    assert oversized_data(text) == (7, _message("Secret", "weights", 1_124_991, text.count("\n")))


def test_a_secret_whose_string_data_key_is_quoted_or_escaped():
    """A quoted key is its text; one written with an escape is not, so nothing of data is sure (stringData's 7 bytes
    are all that is)."""
    quoted = _SECRET_BOTH.format(bundle=_bundle(1_500_000, 76), over='"model.key"')
    assert oversized_data(quoted) is None
    escaped = _SECRET_BOTH.format(bundle=_bundle(1_500_000, 76), over='"model\\x2ekey"')
    assert oversized_data(escaped) is None


def test_a_parsed_secret_merges_string_data_over_data():
    """The parsed count (an anchor in the file): data of 342 aliased 3,072-byte values (1,050,624 bytes, over) whose
    keys k1-k10 stringData replaces by one byte each: 332 x 3,072 + 10 = 1,019,914 bytes, read; with stringData
    replacing none of them it is still over."""
    def secret(over: str) -> str:
        return ("apiVersion: v1\nkind: Secret\nmetadata: {name: anch}\ndata:\n  k0: &v " + "QUFB" * 1024 + "\n"
                + "".join(f"  k{i}: *v\n" for i in range(1, 342)) + "stringData:\n"
                + "".join(f"  {over}{i}: x\n" for i in range(1, 11)))
    assert load_text(secret("k"), "s.yaml").errors == []
    assert [(e.line, e.message.split(":")[1]) for e in load_text(secret("other"), "s.yaml").errors] == [
        (1, " its data holds 1,050,634 bytes once its aliases are expanded and its stringData is merged into its "
            "data, as the API server does, more than the 1,048,576 (1 MiB) the Kubernetes API server takes in a "
            "Secret's data (kubernetes pkg/apis/core/validation ValidateSecret")]


def test_a_parsed_secrets_line_breaks_are_not_counted():
    """review49: base64 in a block scalar of 76-character lines, as `base64` writes it, is 1,040,000 bytes decoded
    (the line breaks are no base64: Go's decoder skips them). With an `&&` in the chart's Deployment the file is
    parsed and counted again, and the 18,246 line breaks made it 1,053,685: a false input error."""
    secret = ("---\n# Source: vllm/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: weights-key\n"
              "type: Opaque\ndata:\n  key.bin: |\n" + _bundle(1_386_668, 76))
    text = secret + DEPLOYMENT.replace('args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]', (
        'command: ["/bin/sh", "-c"]\n          args: ["pip install -q hf_transfer && vllm serve Qwen/Qwen2.5-7B-Instruct"]'))
    assert "&&" in text
    inv = load_text(text, "rendered.yaml")
    assert inv.errors == []
    assert [g.name for g in inv.groups] == ["vllm"]
    # 12,000 characters more are 1,049,001 bytes, over: said from the text, at `data:`
    over = secret + _bundle(12_000, 76) + text[len(secret):]
    assert [e.line for e in load_text(over, "rendered.yaml").errors] == [8]

def test_a_secret_is_counted_with_its_stringdata_merged_into_its_data():
    """fuzz26: the API server writes each stringData key over data before it validates (kubernetes
    pkg/apis/core/v1/conversion.go Convert_v1_Secret_To_core_Secret): 600,000 bytes in each, under different keys, is
    1,200,000 bytes of data, refused; under the same key stringData's value replaces data's, 600,000, read."""
    def secret(data_key: str, string_key: str) -> str:
        return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: split\ndata:\n"
                f"  {data_key}: {'QUFB' * 200_000}\nstringData:\n  {string_key}: {'z' * 600_000}\n")
    inv = load_text(secret("a", "b"), "s.yaml")
    assert [(e.file, e.line, e.message) for e in inv.errors] == [("s.yaml", 1, (
        "Secret split: its data holds 1,200,000 bytes once its stringData is merged into its data, as the API server "
        "does, more than the 1,048,576 (1 MiB) the Kubernetes API server takes in a Secret's data (kubernetes "
        "pkg/apis/core/validation ValidateSecret: core.MaxSecretSize): it cannot be created; split it into Secrets of "
        "at most 1 MiB each, or mount the data from a volume"))]
    assert load_text(secret("a", "a"), "s.yaml").errors == []


def test_a_flow_or_json_configmap_over_a_mebibyte_is_refused_from_its_text():
    """fuzz26: the count left a flow mapping to the parser: a JSON ConfigMap of one 10 MB value and a 31 MiB
    `data: {x: ...}` passed, and 2,450,000 keys in flow style took 5.8 s of CPU and 500 MB to parse. Each shape is now
    counted from its text (JSON, a flow document, a block one with a flow `data`), its line the section's."""
    import json

    keys = ", ".join(f"k{i}: v" for i in range(1_100_000))
    as_json = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"},
                          "data": {f"k{i}": "v" for i in range(1_100_000)}})
    for text, line, name in (
            ("{apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {" + keys + "}}\n", 0, "f"),
            ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata: {" + keys + "}\n", 4, "b"),
            (as_json, 0, "j")):
        got = oversized_data(text)
        assert got is not None and (got[0], got[1].split(":")[0]) == (line, f"ConfigMap {name}")
        assert "its data holds at least 1,0" in got[1]
    one = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"x": "y" * 2_000_000}})
    assert oversized_data(one)[1].startswith("ConfigMap one: its data holds at least 2,000,000 bytes")
    inv = load_text(one, "one.json")
    assert [(e.file, e.line) for e in inv.errors] == [("one.json", 1)]
    secret = json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"x": "QUFB" * 400_000}})
    assert oversized_data(secret)[1].startswith("Secret s: its data holds at least 1,199,997 bytes")


@pytest.mark.parametrize("text", [
    # 1,000,000 one-byte values: under the bound
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {" + ", ".join(f"k{i}: v" for i in range(1_000_000)) + "}}\n",
    # numbers are no strings (the API server refuses them for their type): not counted
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: n}, data: {" + ", ".join(f"k{i}: 1234567" for i in range(300_000)) + "}}\n",
    # a nested mapping, an escape, a comment: no sure measure, left to the parser
    '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": {"b": "' + "x" * 2_000_000 + '"}}}',
    '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "\\\\' + "x" * 2_000_000 + '"}}',
    # two kinds written: not sure which is the object's
    '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "' + "x" * 2_000_000 + '", "kind": "Secret"}}',
    # not v1
    '{"apiVersion": "v2", "kind": "ConfigMap", "data": {"a": "' + "x" * 2_000_000 + '"}}',
    # a string holding "}" ends the body early, inside a string: not counted
    '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "}' + "x" * 2_000_000 + '"}}',
])
def test_a_flow_mapping_that_is_not_surely_over_is_left_to_the_parser(text):
    assert oversized_data(text) is None


def test_numbers_before_strings_in_a_flow_mapping_are_not_counted():
    """A first part of numbers (2,250,000 characters, more than one part of the count, no strings) and then 300,000
    bytes of strings: 300,000 bytes of data, under the bound, however the count cuts its text."""
    text = ("{apiVersion: v1, kind: ConfigMap, metadata: {name: m}, data: {"
            + ", ".join(f"n{i}: 123456789" for i in range(250_000)) + ", "
            + ", ".join(f"s{i}: abcdefghij" for i in range(30_000)) + "}}\n")
    assert oversized_data(text) is None
