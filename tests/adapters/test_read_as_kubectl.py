"""hostile8: YAML read as kubectl reads it (sigs.k8s.io/yaml's goyaml.v2 fork), and the same input named twice.

- a plain ``1:30`` or ``2024-01-31`` is text (goyaml.v2 has no base-60 numbers and keeps a timestamp-like scalar a
  string); before, PyYAML's YAML 1.1 resolvers made them 90 and a date, and an env value ``12:30`` or an ``args``
  word ``12:30`` was an input error ("found a number (750)") on a manifest the API server takes;
- ``<<: [*a, *b]``: the earlier mapping wins (the merge key's specification, goyaml.v2); PyYAML 6.0.4 let the later;
- a byte order mark that opens a later document (files joined with cat) is dropped, as kubectl splits the stream;
- a file named twice (``f.yaml ./f.yaml .``, ``- -``) is read once: its findings are reported once;
- an int32 field past 2,147,483,647 is an input error (it was read as the number).
"""

from __future__ import annotations

import io
import json
import sys

import pytest
from shardwise.rules.adapters import yamlsrc
from shardwise.rules.adapters.select import select_inputs
from shardwise.rules.app.cli import main

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: bad, namespace: serving}
spec:
  replicas: 2
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, meta-llama/Llama-3.1-70B-Instruct, --max-model-len, "8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def docs(text: str) -> list[object]:
    return [d for _, d in yamlsrc.load_documents(text, "f.yaml")]


@pytest.mark.parametrize(("scalar", "value"), [
    ("1:30", "1:30"), ("12:30:00", "12:30:00"), ("-1:30", "-1:30"), ("1:30.5", "1:30.5"),
    ("2024-01-31", "2024-01-31"), ("2024-13-45", "2024-13-45"), ("2024-01-31T12:00:00Z", "2024-01-31T12:00:00Z"),
    ("0777", 511), ("010", 8), ("0x1f", 31), ("1_000", 1000), ("1.5", 1.5), ("yes", True),
    # review27: goyaml.v2 reads a plain scalar with Go's strconv.ParseInt(plain, 0, 64), whose base 0 takes 0x, 0o
    # and 0b in either case; no int, it is a float where it matches resolve.go's yamlStyleFloat (an exponent needs
    # no dot nor sign; "08" is no octal)
    ("0o10", 8), ("0O10", 8), ("0X10", 16), ("0B101", 5), ("-0o7", -7), ("+0X1_0", 16), ("0o8", "0o8"), ("0x", "0x"),
    ("1e3", 1000.0), ("1.5e3", 1500.0), ("-.5", -0.5), ("08", 8.0), ("1e3x", "1e3x"), ("9e", "9e"),
    ("1e400", "1e400"), ("-1.5e999", "-1.5e999"), (".inf", float("inf")),  # past a float: ParseFloat's ErrRange, text
])
def test_plain_scalars_as_kubectl_reads_them(scalar, value):
    got = docs(f"a: {scalar}\nb: [{scalar}]\n")[0]
    assert got == {"a": value, "b": [value]}
    assert type(got["a"]) is type(value)


def test_a_time_in_an_env_value_or_an_arg_is_text(tmp_path, capsys):
    p = tmp_path / "d.yaml"
    p.write_text(DEPLOYMENT.replace('"8192"]', '"8192", --served-model-name, 12:30]\n'
                                    "          env: [{name: START, value: 12:30}, {name: SINCE, value: 2024-01-01}]"))
    code = main(["lint", "--format", "json", str(p)])
    report = json.loads(capsys.readouterr().out)
    assert report["input_errors"] == []
    assert code == 1  # SW101: the 70B model on one L40S, read as it was before the words were added


def test_a_base_60_port_is_a_string_the_api_server_refuses(tmp_path, capsys):
    p = tmp_path / "d.yaml"
    p.write_text(DEPLOYMENT.replace("          resources:", "          ports: [{containerPort: 2:13}]\n          resources:"))
    assert main(["lint", "--format", "json", str(p)]) == 2
    errors = json.loads(capsys.readouterr().out)["input_errors"]
    assert [(e["line"], e["message"]) for e in errors] == [(13, (
        'spec.template.spec.containers[0].ports[0].containerPort: expected an integer, found a string ("2:13"); '
        "Kubernetes refuses the object as written"))]


@pytest.mark.parametrize(("written", "gpus"), [("0o10", 8), ("0X10", 16), ("0B1", 1), ("1e0", 1)])
def test_a_gpu_count_in_go_s_spellings_is_the_count_kubectl_sends(tmp_path, capsys, written, gpus):
    """review27: ``nvidia.com/gpu: 0o10`` was an input error ("not a Kubernetes quantity"); kubectl sends 8."""
    p = tmp_path / "d.yaml"
    p.write_text(DEPLOYMENT.replace("nvidia.com/gpu: 1}", f"nvidia.com/gpu: {written}}}")
                 .replace("replicas: 2", "replicas: 0X2"))
    main(["lint", "--format", "json", str(p)])
    report = json.loads(capsys.readouterr().out)
    assert report["input_errors"] == []
    requests = [f["message"].split(" nvidia.com/gpu")[0] for f in report["findings"] if f["code"] in ("SW201", "SW208")]
    assert requests == ([] if gpus == 1 else [f"SW201: a pod of this workload requests {gpus}",
                                              f"SW208: the pod requests {gpus}"])


def test_a_quoted_go_spelling_is_no_quantity(tmp_path, capsys):
    """A quoted "0o10" reaches the API as the string, which its quantity parser refuses: an input error still."""
    p = tmp_path / "d.yaml"
    p.write_text(DEPLOYMENT.replace("nvidia.com/gpu: 1}", 'nvidia.com/gpu: "0o10"}'))
    assert main(["lint", "--format", "json", str(p)]) == 2
    errors = json.loads(capsys.readouterr().out)["input_errors"]
    assert [e["message"] for e in errors] == [
        "resources.limits.nvidia.com/gpu: expected a whole number, got '0o10' (not a Kubernetes quantity)"]


def test_a_list_of_merged_mappings_the_earlier_wins():
    got = docs("a: {<<: [{name: vllm, x: 1}, {image: v}, {name: ignored, image: ignored, y: 2}]}\n"
               "b: &b {k: 1, j: 1}\nc: {<<: *b, k: 2}\n")[0]
    assert got == {"a": {"name": "vllm", "x": 1, "image": "v", "y": 2}, "b": {"k": 1, "j": 1}, "c": {"k": 2, "j": 1}}


def test_a_merge_of_merges_grows_with_the_keys_not_the_aliases():
    text = "m0: &m0 {k0: v, k1: v}\n" + "".join(
        f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 10)}], n{i}: 1}}\n" for i in range(1, 12))
    got = docs(text)[0]
    assert got["m11"] == {"k0": "v", "k1": "v", **{f"n{i}": 1 for i in range(1, 12)}}


def test_a_byte_order_mark_opening_a_later_document_is_dropped():
    text = yamlsrc.decode_text(b"a: 1\n---\n\xef\xbb\xbfb: 2\n--- # two\n\xef\xbb\xbfc: '\xef\xbb\xbf'\n", "f.yaml")
    assert text == "a: 1\n---\nb: 2\n--- # two\nc: '\ufeff'\n"
    assert docs(text) == [{"a": 1}, {"b": 2}, {"c": "\ufeff"}]


MARK = "a byte order mark (U+FEFF) inside the text"


@pytest.mark.parametrize(("edit", "where", "parser"), [
    # cat of a file saved with a mark after one without, into the middle of a mapping
    (lambda t: t.replace("  replicas: 2", "\ufeff  replicas: 2"), (5, 1), "did not find expected key, line 6, column 3"),
    # a mark pasted after a key's colon: the colon is no longer followed by a space
    (lambda t: t.replace("replicas: 2", "replicas:\ufeff 2"), (5, 12),
     "mapping values are not allowed in this context, line 6, column 11"),
    # a document whose mark does not follow its '---' line at once (a comment between)
    (lambda t: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n# the second file\n\ufeff" + t, (6, 1), "did not find expected <document start>"),
], ids=["line-start", "after-colon", "after-comment"])
def test_a_byte_order_mark_in_the_middle_is_named_where_it_stands(tmp_path, capsys, edit, where, parser):
    """review28: libyaml's words ("did not find expected key", a line later) did not name the mark; go-yaml, kubectl's
    reader, refuses these texts the same way (it skips a mark at column 0 and counts it a column)."""
    (tmp_path / "joined.yaml").write_text(edit(DEPLOYMENT), encoding="utf-8")
    assert main(["lint", str(tmp_path / "joined.yaml"), "--format", "json"]) == 2
    [error] = json.loads(capsys.readouterr().out)["input_errors"]
    assert (error["line"], error["column"]) == where
    assert error["message"].startswith(f"cannot parse YAML: {MARK}: only the start of the file, or of a document "
                                       "after a `---` line, may hold one (a file joined after another?); remove it "
                                       "(the parser: "), error["message"]
    assert parser in error["message"]


def test_a_byte_order_mark_inside_a_value_is_a_character_of_it():
    assert docs("a: \ufeffx\nb: 'y\ufeff'\n") == [{"a": "\ufeffx", "b": "y\ufeff"}]


def test_a_file_named_twice_is_read_once(tmp_path, monkeypatch):
    (tmp_path / "bad.yaml").write_text(DEPLOYMENT)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert select_inputs(["bad.yaml", "./bad.yaml", ".", "sub/../bad.yaml"]).files == ["bad.yaml"]
    assert select_inputs(["-", "bad.yaml", "-"]).files == ["-", "bad.yaml"]
    assert select_inputs(["."]).files == ["bad.yaml"]


def test_stdin_named_twice_is_read_once(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DEPLOYMENT.encode())))
    assert main(["lint", "--format", "json", "-", "-"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["input_errors"] == []
    assert [(f["file"], f["code"]) for f in report["findings"] if f["level"] == "mandatory"] == [("<stdin>", "SW101")]


def test_an_int32_field_past_its_largest_value_is_an_input_error(tmp_path, capsys):
    p = tmp_path / "d.yaml"
    p.write_text(DEPLOYMENT.replace("replicas: 2", "replicas: 2147483648"))
    assert main(["lint", "--format", "json", str(p)]) == 2
    errors = json.loads(capsys.readouterr().out)["input_errors"]
    assert [(e["line"], e["message"]) for e in errors] == [(5, (
        "spec.replicas: expected an integer of at most 2,147,483,647 (Kubernetes types it as int32), got 2147483648"))]
    p.write_text(DEPLOYMENT.replace("replicas: 2", "replicas: 2147483647"))
    assert main(["lint", "--format", "json", str(p)]) == 1


def test_stdin_is_read_to_its_end_as_kubectl_reads_it(tmp_path):
    """A pipe that has not closed keeps the run waiting (docs/cli.md): what comes before its end is linted."""
    import subprocess
    import time

    from repo_paths import ROOT

    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "shardwise"), "lint", "--format", "json", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        assert proc.stdin is not None
        proc.stdin.write(DEPLOYMENT.encode())
        proc.stdin.flush()
        time.sleep(1.5)
        assert proc.poll() is None  # still reading
        proc.stdin.close()
        proc.stdin = None  # closed here: communicate() must not flush it
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1
    assert [f["code"] for f in json.loads(out)["findings"] if f["level"] == "mandatory"] == ["SW101"]
