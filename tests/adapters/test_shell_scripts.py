"""Manifests written in shell scripts as here-documents (:mod:`shardwise.rules.adapters.shell`): which scripts a
run reads, which here-documents are manifests, what the shell does to their text, the script's own line numbers,
and what a script that yields none says. The scripts are written in the shapes public deploy scripts have
(``kubectl apply -f - <<EOF``, ``cat <<EOF | kubectl apply -f -``, ``envsubst <<'EOF' | kubectl create -f -``,
``cat > FILE <<'EOF'`` then ``kubectl apply -f FILE``, ``<<-EOF`` inside an ``if``, usage texts, ``python -``)."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.load import load_text
from shardwise.rules.adapters.select import select_inputs
from shardwise.rules.adapters.shell import (
    COMMAND_OUTPUT,
    NO_MANIFEST,
    NO_MANIFEST_VLLM,
    envsubst_inputs,
    heredocs,
    manifest_text,
)
from shardwise.rules.adapters.shellname import is_script
from shardwise.rules.model import UNKNOWN

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: serving}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def script(*parts: str) -> str:
    return "\n".join(textwrap.dedent(p).rstrip("\n") for p in parts) + "\n"


def body_lines(text: str | None) -> dict[int, str]:
    """The non-blank lines of a manifest text, by line number."""
    assert text is not None
    return {n: line for n, line in enumerate(text.split("\n"), 1) if line}


@pytest.mark.parametrize("opener", [
    "kubectl apply -f - <<EOF",
    "kubectl apply -f - << 'EOF'",
    'kubectl -n serving apply -f- <<"EOF"',
    "kubectl apply --filename=- <<\\EOF",
    "cat <<EOF | kubectl apply -f -",
    "envsubst <<'EOF' | kubectl create -f -",
    "cat <<EOF | envsubst | kubectl apply -f - && echo applied",
    "oc apply -f - <<EOF",
])
def test_a_here_document_fed_to_kubectl_is_read_at_the_scripts_lines(opener):
    text = script("#!/bin/bash", "set -e", opener, POD, "EOF", "echo done")
    found = manifest_text(text, "deploy.sh")
    assert found.errors == [] and found.documents == 1
    lines = body_lines(found.text)
    assert lines[3] == "---"
    assert lines[4] == "apiVersion: v1" and lines[5] == "kind: Pod"
    assert max(lines) == 12  # the last body line; `EOF` (13) and `echo done` (14) are not YAML
    assert len(found.text.split("\n")) == len(text.split("\n"))


@pytest.mark.parametrize("opener", [
    "cat <<EOF",  # to the terminal
    "python3 - <<'EOF'",
    "cat > values.yaml <<EOF",  # a file no kubectl applies (helm reads it)
    "kubectl delete -f - <<EOF",
    "ssh host <<EOF",
])
def test_a_here_document_fed_to_anything_else_is_not_a_manifest(opener):
    text = script("#!/bin/bash", opener, POD, "EOF", "helm install x chart -f values.yaml")
    found = manifest_text(text, "deploy.sh")
    assert (found.text, found.documents, found.errors) == (None, 0, [])


@pytest.mark.parametrize("opener", [
    # corpus28: a setup script merges a cluster's OAuth CR with Python and applies what it prints
    'python3 - "$IDP_NAME" "$CR_JSON" <<\'EOF\' | oc apply -f -',
    "PYTHONUNBUFFERED=1 /usr/bin/python3.11 - <<EOF | kubectl apply -f -",
    "env LANG=C python - <<'EOF' | kubectl create -f -",
    "bash -s <<'EOF' | kubectl apply -f -",
])
def test_a_here_document_an_interpreter_runs_is_not_what_kubectl_gets(opener):
    program = ("import json, sys\nname, path = sys.argv[1], sys.argv[2]\noauth = json.load(open(path))\n"
               "oauth['spec'] = {'identityProviders': [{'name': name, 'type': 'HTPasswd'}]}\n"
               "json.dump(oauth, sys.stdout)")
    text = script("#!/bin/bash", "set -euo pipefail", opener, program, "EOF", "echo merged")
    found = manifest_text(text, "setup-access.sh")
    assert (found.text, found.documents, found.errors) == (None, 0, [])
    # the same pipe fed through cat is the manifest itself
    assert manifest_text(script("cat <<'EOF' | oc apply -f -", POD, "EOF"), "deploy.sh").documents == 1


def test_a_file_written_from_a_here_document_and_applied_by_name_is_read():
    text = script("#!/bin/bash", 'cat > "$WORK/vllm.yaml" << \'EOF\'', POD, "EOF",
                  "cat <<EOF >>secret.yaml", "apiVersion: v1", "kind: Secret", "metadata: {name: s}",
                  "data: {token: $(echo -n \"$HF_TOKEN\" | base64)}", "EOF",
                  "kubectl apply -f secret.yaml", 'kubectl apply -f "$WORK/vllm.yaml" -n "$NAMESPACE"')
    found = manifest_text(text, "install.sh")
    assert found.documents == 2
    lines = body_lines(found.text)
    assert lines[2] == "---" and lines[3] == "apiVersion: v1" and lines[13] == "---"
    # an unquoted here-document: the shell runs the command substitution, its output an unknown (a flow mapping's
    # value: quoted, so YAML reads it, corpus40)
    assert lines[17] == 'data: {token: "' + COMMAND_OUTPUT + '"}'


def test_a_file_applied_through_envsubst_keeps_its_placeholders_even_when_quoted():
    text = script("cat > lws.yaml <<'EOF'", "metadata: {name: '$(keep)', ns: ${NS}}", "EOF",
                  "envsubst < lws.yaml | kubectl apply -f -")
    lines = body_lines(manifest_text(text, "a.sh").text)
    assert lines[2] == "metadata: {name: '" + COMMAND_OUTPUT + "', ns: \"${NS}\"}"


def test_an_unquoted_here_document_is_what_the_shell_makes_of_it_and_a_quoted_one_is_literal():
    raw = r"args: ['--model ${MODEL}', '$HOME', '\$(TP)', '$(date)', '`hostname`', '$((2*4))']"
    unquoted = body_lines(manifest_text(script("kubectl apply -f - <<EOF", raw, "EOF"), "a.sh").text)
    quoted = body_lines(manifest_text(script("kubectl apply -f - <<'EOF'", raw, "EOF"), "a.sh").text)
    c = COMMAND_OUTPUT
    assert unquoted[2] == f"args: ['--model ${{MODEL}}', '$HOME', '$(TP)', '{c}', '{c}', '{c}']"
    assert quoted[2] == raw


def test_dash_strips_leading_tabs_of_the_body_and_of_the_delimiter_only():
    text = "if true; then\n\tkubectl apply -f - <<-EOF\n\tapiVersion: v1\n\tkind: Pod\n\tmetadata:\n\t  name: p\n\tEOF\nfi\n"
    lines = body_lines(manifest_text(text, "a.sh").text)
    assert lines == {2: "---", 3: "apiVersion: v1", 4: "kind: Pod", 5: "metadata:", 6: "  name: p"}
    # without the dash a tab-indented delimiter closes nothing: the here-document runs to the end
    found = manifest_text(text.replace("<<-EOF", "<<EOF"), "a.sh")
    assert found.text is None
    assert [(e.line, e.message) for e in found.errors] == [(2, (
        "here-document fed to kubectl is never closed: no line `EOF` ends it (the shell would apply the rest of "
        "the script as a manifest)"))]


def test_what_is_not_a_here_document_operator():
    text = script("echo $((1 << 2))", "read -r x <<< \"$LINE\"", "echo '<<EOF' # <<EOF", "echo done")
    assert heredocs(text) == []


def test_several_here_documents_and_a_continued_command():
    text = script("cat <<A | kubectl apply -f - \\", "  --server-side", "kind: A", "A",
                  "kubectl create -f - <<B; cat <<C", "kind: B", "B", "kind: C", "C")
    docs = heredocs(text)
    assert [(d.line, d.delimiter, d.start, d.end) for d in docs] == [(2, "A", 3, 4), (5, "B", 6, 7), (5, "C", 8, 9)]
    lines = body_lines(manifest_text(text, "a.sh").text)
    assert lines == {2: "---", 3: "kind: A", 5: "---", 6: "kind: B"}


def test_scripts_are_known_by_name_or_shebang():
    assert is_script("deploy.sh", "") and is_script("x.bash", "")
    assert is_script("deploy", "#!/usr/bin/env bash\n") and is_script("run", "#!/bin/sh -e\n")
    assert not is_script("run", "#!/usr/bin/env python3\n")
    assert not is_script("pod.yaml", "#!/bin/bash\n")  # a YAML comment: the name says what it is


def test_a_searched_folder_reads_scripts_by_suffix_or_shebang(tmp_path: Path):
    (tmp_path / "deploy.sh").write_text("kubectl apply -f - <<EOF\n" + POD + "EOF\n")
    (tmp_path / "up").write_text("#!/usr/bin/env bash\necho hi\n")
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (tmp_path / "notes.txt").write_text("kubectl apply -f - <<EOF\n")
    os.mkfifo(tmp_path / "fifo")  # never opened: a FIFO is no script
    sel = select_inputs([str(tmp_path)])
    assert [os.path.basename(f) for f in sel.files] == ["deploy.sh", "up"]


def test_a_script_read_whole(tmp_path: Path):
    (tmp_path / "deploy.sh").write_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", POD, "EOF"))
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct\n")
    (tmp_path / "clean.sh").write_text("#!/bin/bash\nrm -rf build\n")
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [(os.path.basename(w.location.file), w.location.line) for w in inv.groups] == [("deploy.sh", 3)]
    assert sorted((os.path.basename(f), why) for f, why in inv.skipped_files) == [
        ("clean.sh", NO_MANIFEST), ("serve.sh", NO_MANIFEST_VLLM)]
    assert inv.errors == []


def test_a_vllm_manifest_in_a_here_document_no_kubectl_applies_says_why():
    text = script("#!/bin/bash", 'cat > "$OUT" <<EOF', "apiVersion: apps/v1", "kind: Deployment",
                  "spec: {template: {spec: {containers: [{name: v, image: vllm/vllm-openai:v0.11.0}]}}}", "EOF",
                  'kubectl apply -f "$(dirname "$OUT")"')
    inv = load_text(text, "gen.sh")
    assert inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert (issue.subject, issue.location.line, issue.mentioned) == ("shell script gen.sh", 2, True)
    assert issue.reason.startswith("its here-document at line 2 reads as a vLLM manifest (`vllm/vllm-openai`) but "
                                   "shardwise saw it fed to no `kubectl apply|create`")


def test_an_unapplied_vllm_here_document_beside_applied_ones_is_said_too():
    """Applied here-documents are read; the vLLM one no kubectl is seen to apply gets the same SW005 record as
    when it is the script's only one, saying the others were read."""
    unapplied = ('cat > "$OUT" <<EOF', "apiVersion: apps/v1", "kind: Deployment",
                 "spec: {template: {spec: {containers: [{name: v, image: vllm/vllm-openai:v0.11.0}]}}}", "EOF")
    one = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", POD, "EOF", *unapplied,
                           'kubectl apply -f "$(dirname "$OUT")"'), "mixed.sh")
    assert [(g.location.file, g.location.line) for g in one.groups] == [("mixed.sh", 3)]
    [issue] = one.launch_issues
    assert (issue.subject, issue.location.line, issue.mentioned) == ("shell script mixed.sh", 13, True)
    assert issue.reason.startswith(
        "its here-document at line 13 reads as a vLLM manifest (`vllm/vllm-openai`) but shardwise saw it fed to no "
        "`kubectl apply|create` (the other here-document, which it applies, was read and linted): it reads ")
    two = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", POD, "EOF", "kubectl create -f - <<'EOF'",
                           "apiVersion: v1", "kind: Namespace", "metadata: {name: serving}", "EOF", *unapplied),
                    "two.sh")
    [issue] = two.launch_issues
    assert issue.location.line == 18
    assert "`kubectl apply|create` (the 2 other here-documents, which it applies, were read and linted): " in (
        issue.reason)
    quiet = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", POD, "EOF", "cat > notes.txt <<EOF",
                             "vllm serve is started by the Pod above", "EOF"), "quiet.sh")
    assert quiet.launch_issues == [] and len(quiet.groups) == 1


def test_hostile_scripts_end_quickly_with_an_error_or_nothing():
    many = "kubectl apply -f - <<EOF\n" * 200_000  # each opens the next: one unterminated here-document
    long_line = "kubectl apply " * 200_000 + "-f - <<EOF\n"
    arithmetic = "echo $((" * 100_000 + "\n"
    start = time.perf_counter()
    for text in (many, long_line, arithmetic):
        inv = load_text(text, "x.sh")
        assert inv.groups == []
        assert [e.line for e in inv.errors] == ([1] if "EOF" in text else [])
    assert time.perf_counter() - start < 20


def test_a_command_opening_here_documents_past_the_bound_is_an_error_not_a_hang():
    """fuzz24: one command of 100,000 ``<<E`` operators, each closed on a line of its own, held the run past 90 s
    (each here-document was matched against the whole 400,000-character command). Past
    :data:`~shardwise.rules.adapters.shell.MAX_HEREDOC_WORK` (here-documents times the command's length, over the
    script) the command is an input error at its line and none of its here-documents is read; the here-document of the
    next command is read as before."""
    from shardwise.rules.adapters.shell import MAX_HEREDOC_WORK

    crowded = "#!/bin/sh\nkubectl apply -f - " + "<<E " * 100_000 + "\n" + "E\n" * 100_000 + "kubectl apply -f - <<EOF\n" \
        + POD + "EOF\n"
    start = time.process_time()
    found = manifest_text(crowded, "x.sh")
    assert time.process_time() - start < 5
    assert [(e.line, e.message) for e in found.errors] == [(2, (
        f"a command of 400,019 characters opens 100,000 here-documents: shardwise matches each against the whole "
        f"command, at most {MAX_HEREDOC_WORK:,} characters in all for a script, so none of them is read (split the "
        "command, or build the manifest and lint the file)"))]
    assert found.documents == 1  # the Pod after it is still read


def test_a_pipe_that_goes_on_after_the_closing_delimiter():
    text = script("cat <<EOF |", "kind: A", "EOF", "kubectl apply -f -", "cat <<EOF |", "kind: B", "EOF", "grep x")
    lines = body_lines(manifest_text(text, "a.sh").text)
    assert lines == {1: "---", 2: "kind: A"}


def test_a_script_on_standard_input_is_known_by_its_shebang():
    inv = load_text(script("#!/bin/bash", "kubectl apply -f - <<'EOF'", POD, "EOF"), "<stdin>")
    assert [(g.location.file, g.location.line) for g in inv.groups] == [("<stdin>", 3)]


JOB_FROM_VARIABLES = """\
apiVersion: batch/v1
kind: Job
metadata: {generateName: "${NAME}-"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: server
          image: ${IMAGE}
          command: [/bin/bash, -c]
          args: ["${CMD}"]
          resources: {limits: {nvidia.com/gpu: "${TP}"}}
"""


def test_a_pod_whose_image_is_a_shell_variable_in_a_script_that_runs_vllm_is_said():
    """The script picks the image and the server command into shell variables (a case on its argument) and applies
    a Job that takes both from them: the shell fills them when it runs, this reader does not, so no workload is
    read; SW005 says so at the image's line and names what says the script runs vLLM (outside the here-document,
    not in a comment), instead of a silent pass (aproeme/AgentCAP's k8s/launch_llm_server.sh)."""
    text = script("#!/bin/bash", "# images: lmsysorg/sglang or vllm/vllm-openai", 'case "$1" in',
                  '  vllm) IMAGE="vllm/vllm-openai:v0.21.0"; CMD="vllm serve /models/m --tensor-parallel-size 2" ;;',
                  '  sglang) IMAGE="lmsysorg/sglang:v0.5.9" ;;', "esac", "kubectl create -f - <<YAML",
                  JOB_FROM_VARIABLES, "YAML")
    inv = load_text(text, "launch.sh")
    assert inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert (issue.subject, issue.location.line, issue.mentioned) == ("shell script launch.sh", 17, True)
    assert issue.reason.startswith(
        "the script runs vLLM (`vllm/vllm-openai` at line 4) but the pod its here-document at line 7 applies takes "
        "its image from the shell variable `${IMAGE}`, which the shell fills when the script runs; ")


def test_an_image_variable_is_not_said_where_the_script_runs_no_vllm_or_the_pod_is_read():
    """Only a script that runs vLLM outside its manifests gets the record (a web app's image in a variable is no
    vLLM server); a quoted delimiter keeps `${IMAGE}` as written (no shell fills it: not this case); and a pod of the
    script that is read as a workload needs no word."""
    web = load_text(script("#!/bin/bash", 'IMAGE="nginx:1.27"', "kubectl apply -f - <<EOF", JOB_FROM_VARIABLES,
                           "EOF", "echo 'the chat UI talks to vllm'"), "web.sh")
    assert web.launch_issues == []
    quoted = load_text(script("#!/bin/bash", 'IMAGE="vllm/vllm-openai:v0.21.0"', "kubectl apply -f - <<'EOF'",
                              JOB_FROM_VARIABLES, "EOF"), "quoted.sh")
    assert [i for i in quoted.launch_issues if "shell variable" in i.reason] == []
    served = POD.replace("image: vllm/vllm-openai:v0.11.0", "image: ${IMAGE}").replace(
        "args: [", "command: [vllm, serve]\n      args: [")
    read = load_text(script("#!/bin/bash", 'IMAGE="vllm/vllm-openai:v0.11.0"', "kubectl apply -f - <<EOF", served,
                            "EOF"), "read.sh")
    assert [i for i in read.launch_issues if "shell variable" in i.reason] == []


BENCHMARK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: "${JOB_NAME}", namespace: "${MODEL_NS}"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: guidellm
          image: ghcr.io/vllm-project/guidellm:v0.3.0
          args:
            - benchmark
            - --target
            - "${GUIDELLM_TARGET}"
${BACKEND_ARGS_MOUNT}
            - --data
            - '${GUIDELLM_DATA}'
          volumeMounts:
            - {name: results, mountPath: /results}
${DATA_MOUNT}
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: "${PVC_NAME}"}
"""
PVC = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: "${PVC_NAME}", namespace: "${MODEL_NS}"}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""


@pytest.mark.parametrize("expansion", ["${BACKEND_ARGS_MOUNT}", "$BACKEND_ARGS_MOUNT", '"${EXTRA:-}"',
                                       "$(cat mounts.yaml)", "            ${EXTRA_ARGS}",
                                       # corpus40: an RHOAI toolkit's InferenceService, its model's args two
                                       # variables glued at column 0 under `args:`
                                       "${DEFAULT_ARGS}${VLLM_ARGS}"])
def test_a_here_document_line_that_is_only_a_shell_expansion_is_not_read_as_written(expansion):
    """A line of an unquoted here-document that is nothing but an expansion is YAML the shell writes there when the
    script runs (more args, volume mounts, or nothing): the manifest kubectl gets is not known, so that here-document
    is not read, and the script says why instead of an input error that failed the whole run (corpus25: a GuideLLM
    benchmark script's Job with `${BACKEND_ARGS_MOUNT}` and `${DATA_MOUNT}` alone on their lines, between a
    container's args and after its volume mounts). The script's other applied here-documents are still read."""
    job = BENCHMARK_JOB.replace("${BACKEND_ARGS_MOUNT}", expansion)
    text = script("#!/bin/bash", "set -euo pipefail", "oc apply -f - <<EOF", PVC, "EOF",
                  "oc apply -f - --insecure-skip-tls-verify=true <<EOF", job, "EOF")
    found = manifest_text(text, "benchmark.sh")
    assert found.errors == [] and found.documents == 1
    assert found.filled == [(9, 24, expansion.strip(), None)]
    assert body_lines(found.text) == {3: "---", 4: "apiVersion: v1", 5: "kind: PersistentVolumeClaim",
                                      6: 'metadata: {name: "${PVC_NAME}", namespace: "${MODEL_NS}"}',
                                      7: "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}"}
    inv = load_text(text, "benchmark.sh")
    assert inv.errors == [] and inv.groups == [] and inv.launch_issues == [] and inv.skipped_files == []
    alone = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", job, "EOF"), "alone.sh")
    assert alone.errors == [] and alone.groups == [] and alone.launch_issues == []
    assert alone.skipped_files == [("alone.sh", (
        f"shell script whose here-document at line 2, which it applies, has a line that is only the shell expansion "
        f"`{expansion.strip()}` (line 17): the shell writes lines of YAML there (or none) when the script runs, so "
        "the manifest kubectl gets is not known here and that here-document is not read; render the manifest (run "
        "the script with `kubectl apply --dry-run=client -o yaml`) and lint the output"))]


def test_a_vllm_here_document_with_a_line_the_shell_fills_is_said_by_sw005():
    """The same for a vLLM server's manifest: not read (its args may gain any flag at that line), and SW005 says
    so at the line, not a silent pass. A quoted delimiter keeps the line as written (no shell fills it), and a
    placeholder that is a list item or a value (`- ${ARG}`, `image: ${IMAGE}`) is no such line."""
    served = POD.replace('      args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]\n',
                         "      args:\n        - meta-llama/Llama-3.1-8B-Instruct\n${EXTRA_VLLM_ARGS}\n")
    inv = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", served, "EOF"), "serve.sh")
    assert inv.errors == [] and inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert (issue.subject, issue.location.line, issue.mentioned) == ("shell script serve.sh", 12, True)
    assert issue.reason.startswith(
        "its here-document at line 2 runs vLLM (`vllm/vllm-openai`) but is not read: the shell writes lines of YAML "
        "there (or none) when the script runs, so the manifest kubectl gets is not known here")
    quoted = manifest_text(script("#!/bin/bash", "kubectl apply -f - <<'EOF'", served, "EOF"), "q.sh")
    assert quoted.filled == [] and quoted.documents == 1
    item = served.replace("${EXTRA_VLLM_ARGS}", "        - ${EXTRA_VLLM_ARG}")
    listed = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", item, "EOF"), "item.sh")
    assert [g.location.line for g in listed.groups] == [3] and listed.launch_issues == []
    # inside a block scalar (a shell script the container runs), the expansion is more of its words: read as before
    scripted = POD.replace('      args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]\n',
                           "      command: [/bin/sh, -c]\n      args:\n        - |\n"
                           "          vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 \\\\\n"
                           "          ${EXTRA_VLLM_ARGS}\n")
    found = manifest_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", scripted, "EOF"), "block.sh")
    assert found.filled == [] and found.documents == 1


GLUED_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-test, namespace: $NAMESPACE}
spec:
  selector: {matchLabels: {service: vllm-test}}
  template:
    metadata: {labels: {service: vllm-test}}
    spec:
      containers:
        - image: vllm/vllm-openai:v0.11.0
          name: vllm
          args: ["--model", "${TINY_MODEL}", "--max-model-len", "2048"]
          env:$MINIMAL_ENV
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize(("line", "expansion"), [
    ("          env:$MINIMAL_ENV", "env:$MINIMAL_ENV"),
    ("          env:$GPU_ENV$HF_TOKEN_ENV", "env:$GPU_ENV$HF_TOKEN_ENV"),
    ('          env: [{name: BASE_URL, value: "http://$ROUTER:8000/v1"}]\n'
     '          command: ["vllm", "serve"]$EXTRA_COMMAND', 'command: ["vllm", "serve"]$EXTRA_COMMAND'),
    ('          workingDir: "/srv"${HF_TOKEN_ENV}', 'workingDir: "/srv"${HF_TOKEN_ENV}'),
])
def test_a_here_document_line_ending_in_an_expansion_glued_to_yaml_is_not_read_as_written(line, expansion):
    """A line of an unquoted here-document that ends in expansions glued where YAML leaves room only for lines,
    right after a key's colon or after a quoted value, is YAML the shell completes when the script runs: a script
    that works sets the variable to lines that begin with a newline (`MINIMAL_ENV="\n            - name: …"`), or
    to nothing (corpus35: a V100 cluster's deploy scripts, `env:$MINIMAL_ENV` in a vLLM Deployment, `value:
    "http://…/v1"$WEBUI_API_KEY_ENV` in a web UI's, were input errors "could not find expected ':'" and "did not find
    expected key" that made the repository's run exit 2). Not read, and SW005 says so for the vLLM server."""
    served = GLUED_POD.replace("          env:$MINIMAL_ENV", line)
    found = manifest_text(script("#!/bin/bash", 'TMP_FILE=$(mktemp)', 'cat << EOF > "$TMP_FILE"', served, "EOF",
                                 'kubectl apply -f "$TMP_FILE"'), "deploy-vllm-minimal.sh")
    assert found.errors == [] and found.documents == 0
    assert [(opened, expanded, serves) for opened, _, expanded, serves in found.filled] == [
        (3, expansion, "vllm/vllm-openai")]
    inv = load_text(script("#!/bin/bash", 'TMP_FILE=$(mktemp)', 'cat << EOF > "$TMP_FILE"', served, "EOF",
                           'kubectl apply -f "$TMP_FILE"'), "deploy-vllm-minimal.sh")
    assert inv.errors == [] and inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert issue.reason.startswith("its here-document at line 3 runs vLLM (`vllm/vllm-openai`) but is not read: the "
                                   "shell writes lines of YAML there (or none) when the script runs")
    web = served.replace("vllm/vllm-openai:v0.11.0", "ghcr.io/open-webui/open-webui:main").replace("vllm", "webui")
    alone = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", web, "EOF"), "deploy-webui.sh")
    [(_, why)] = alone.skipped_files
    assert why.startswith("shell script whose here-document at line 2, which it applies, has a line that ends in a "
                          f"shell expansion YAML leaves room for only as lines, `{expansion.replace('vllm', 'webui')}` (line ")


@pytest.mark.parametrize("line", [
    "          env: [{name: TAG, value: vllm/vllm-openai:$TAG}]",  # a colon inside a value
    '          env: [{name: URL, value: "$SCHEME://$HOST"}]',  # expansions inside the quotes
    "          env: $ENV_LIST",  # a value, the placeholder an unknown
])
def test_an_expansion_inside_a_value_is_read_as_a_placeholder(line):
    served = GLUED_POD.replace("          env:$MINIMAL_ENV", line)
    found = manifest_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", served, "EOF"), "deploy.sh")
    assert found.filled == [] and found.documents == 1


FLOW_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: ${POD_NAME}, namespace: serving}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
      env:
        - {name: HF_TOKEN, value: $(cat /run/secrets/hf-token)}
        - {name: REVISION, value: main-${REV:-0}}  # a suffix the shell fills
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_an_expansion_that_is_a_flow_mapping_value_is_read_as_a_placeholder():
    """YAML reads `{` and `(` as its own in a flow collection, so `metadata: {name: ${POD_NAME}}` is no YAML as written;
    in an unquoted here-document the shell fills it before kubectl parses it, and a flow mapping's value is one scalar
    whatever it holds: read as the placeholder it is (quoted), never an input error "did not find expected ',' or
    '}'". A YAML file written so stays an input error: kubectl gets that text as it is."""
    text = script("#!/bin/bash", "kubectl apply -f - <<EOF", FLOW_POD, "EOF")
    found = manifest_text(text, "serve.sh")
    assert (found.errors, found.filled, found.documents) == ([], [], 1)
    lines = body_lines(found.text)
    assert (lines[5], lines[12], lines[13]) == (
        'metadata: {name: "${POD_NAME}", namespace: serving}',
        f'        - {{name: HF_TOKEN, value: "{COMMAND_OUTPUT}"}}',
        '        - {name: REVISION, value: "main-${REV:-0}"}  # a suffix the shell fills')
    inv = load_text(text, "serve.sh")
    assert inv.errors == [] and [(g.name, g.location.line) for g in inv.groups] == [("${POD_NAME}", 3)]
    assert [e.message for e in load_text(FLOW_POD, "pod.yaml").errors] == [
        "cannot parse YAML: did not find expected ',' or '}'"]


@pytest.mark.parametrize(("line", "collection"), [
    # corpus40: an RHOAI toolkit's MCP server Deployment, its args a command's output written as a flow sequence
    ("""      args: [$(echo "$ARGS" | sed 's/ /", "/g' | sed 's/^/"/;s/$/"/')]""",
     """[$(echo "$ARGS" | sed 's/ /", "/g' | sed 's/^/"/;s/$/"/')]"""),
    ("      args: [meta-llama/Llama-3.1-8B-Instruct, ${EXTRA_FLAGS}]", "[meta-llama/Llama-3.1-8B-Instruct, ${EXTRA_FLAGS}]"),
    ("      resources: {limits: {${GPU_RESOURCE}: 1}}", "{limits: {${GPU_RESOURCE}: 1}}"),  # a key
])
def test_an_expansion_where_a_flow_collection_s_items_go_is_not_read_as_written(line, collection):
    """Where the expansion stands for a flow sequence's items or a mapping's key, the shell writes any number of them
    (`$(echo "$ARGS" | sed …)` is built to print `"a", "b"`): what kubectl gets is not known here, so that
    here-document is not read, and SW005 says so for a vLLM server, instead of an input error that made the
    repository's run exit 2. The same inside quotes is text, read as before."""
    served = POD.replace('      args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]', line) \
        if line.lstrip().startswith("args") else POD.replace("      resources: {limits: {nvidia.com/gpu: 1}}", line)
    text = script("#!/bin/bash", "kubectl apply -f - <<EOF", served, "EOF")
    found = manifest_text(text, "serve.sh")
    assert (found.errors, found.documents) == ([], 0)
    assert [(opened, expanded, serves) for opened, _, expanded, serves in found.filled] == [
        (2, collection, "vllm/vllm-openai")]
    inv = load_text(text, "serve.sh")
    assert inv.errors == [] and inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert issue.reason.startswith("its here-document at line 2 runs vLLM (`vllm/vllm-openai`) but is not read: the "
                                   "shell writes items there (any number, or none) when the script runs")
    web = served.replace("vllm/vllm-openai:v0.11.0", "ghcr.io/open-webui/open-webui:main").replace("vllm", "webui")
    alone = load_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", web, "EOF"), "deploy-webui.sh")
    [(_, why)] = alone.skipped_files
    assert why.startswith("shell script whose here-document at line 2, which it applies, has a flow collection with a "
                          f"shell expansion where its items or keys go, `{collection.replace('vllm', 'webui')}` (line ")
    quoted = manifest_text(script("#!/bin/bash", "kubectl apply -f - <<EOF", POD.replace(
        '"8192"]', '"8192", "${EXTRA_FLAGS}", "$(cat flags)"]'), "EOF"), "quoted.sh")
    assert (quoted.errors, quoted.filled, quoted.documents) == ([], [], 1)


ASSEMBLED = """\
#!/bin/bash
TMP_FILE=$(mktemp)
cat << EOF > "$TMP_FILE"
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: $NAMESPACE}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
EOF

if [ "$USE_GPU" == "true" ]; then
    cat >> "$TMP_FILE" << EOF
      tolerations:
      - {key: "${GPU_TYPE}", operator: Exists, effect: NoSchedule}
EOF
fi

cat >> "$TMP_FILE" << EOF
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "${MODEL}"]
EOF
kubectl apply -f "$TMP_FILE"
"""


def test_a_manifest_a_script_assembles_from_appended_here_documents_is_not_read_piece_by_piece():
    """A script that writes its manifest's head with `cat << EOF > "$TMP_FILE"` and appends the rest, some of it
    under a condition (`if [ "$USE_GPU" == "true" ]` adds tolerations), then applies the file: no one here-document
    is a manifest (a Deployment whose `spec:` is null, then pieces that are lists or lack apiVersion) and their sum
    depends on the run (corpus35: a TGI deploy script was 28 input errors and the repository's run exited 2). Not
    read; SW005 says so where the file runs vLLM, the skip reason where it does not."""
    inv = load_text(ASSEMBLED, "deploy-vllm-transformers.sh")
    assert inv.errors == [] and inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert (issue.location.line, issue.mentioned) == (3, True)
    assert issue.reason.startswith(
        "the manifest it applies, `$TMP_FILE`, runs vLLM (`vllm/vllm-openai`) but is not read: the script assembles "
        "it from several here-documents (the first at line 3, appended to at line 15, `cat >> $TMP_FILE`)")
    tgi = load_text(ASSEMBLED.replace("vllm/vllm-openai:v0.11.0", "ghcr.io/huggingface/text-generation-inference:3.0")
                    .replace("vllm", "tgi"), "deploy-tgi-transformers.sh")
    assert tgi.errors == [] and tgi.groups == [] and tgi.launch_issues == []
    assert tgi.skipped_files == [("deploy-tgi-transformers.sh", (
        "shell script whose applied manifest `$TMP_FILE` is not read: the script assembles it from several "
        "here-documents (the first at line 3, appended to at line 15, `cat >> $TMP_FILE`), some of them maybe under a "
        "condition: no one piece is the manifest and what kubectl gets is not known here, so they are not read; "
        "render the manifest (run the script with `kubectl apply --dry-run=client -o yaml`) and lint the output"))]


@pytest.mark.parametrize(("container", "said"), [
    # vLLM's ROCm build (docs.vllm.ai, "Using Docker": rocm/vllm) started by its CLI as a flow list's words
    ('        image: rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812\n        command: ["vllm", "serve", "${MODEL}"]',
     "rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812"),
    # vllm-ascend's image (quay.io/ascend/vllm-ascend), its args only
    ('        image: quay.io/ascend/vllm-ascend:v0.10.0rc1\n        args: ["--model", "${MODEL}"]',
     "quay.io/ascend/vllm-ascend:v0.10.0rc1"),
    # a custom image whose block list starts vLLM's CLI
    ("        image: registry.example.com/llm/server:1.4\n        command:\n        - vllm\n        - serve",
     "vllm serve"),
], ids=["rocm-flow-list", "ascend-args", "custom-block-list"])
def test_an_assembled_manifest_of_any_vllm_build_is_said(container, said):
    """review34: the words that said an assembled (or shell-filled) manifest runs vLLM were `vllm serve` written on one
    line, the API server module, `vllm/vllm-openai` and --tensor-parallel-size only: a ROCm or Ascend build of vLLM, or
    `vllm serve` as a list's words, was skipped as a script of no vLLM server, and the run passed without a word of it.
    The images vLLM's readers take for its builds and the list's words say it now (SW005)."""
    text = ASSEMBLED.replace('        image: vllm/vllm-openai:v0.11.0\n        args: ["--model", "${MODEL}"]', container)
    assert container in text
    inv = load_text(text, "deploy-llm.sh")
    assert inv.errors == [] and inv.groups == [] and inv.skipped_files == []
    [issue] = inv.launch_issues
    assert issue.reason.startswith(f"the manifest it applies, `$TMP_FILE`, runs vLLM (`{said}`) but is not read")
    assert manifest_text(text, "deploy-llm.sh").assembled == [(3, 15, "$TMP_FILE", said)]


def test_here_documents_written_to_files_of_their_own_are_read_each():
    """Two here-documents, each the whole of a file the script applies (one appended to a file no other writes), are
    read as before, and so are objects appended whole to one file."""
    text = script("#!/bin/bash", 'cat << EOF > "$A"', POD, "EOF", 'cat <<EOF >> "$B"',
                  POD.replace("name: p,", "name: q,"), "EOF", 'kubectl apply -f "$A"', 'kubectl apply -f "$B"')
    found = manifest_text(text, "two.sh")
    assert found.assembled == [] and found.documents == 2 and found.errors == []
    service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: p}\nspec: {ports: [{port: 8000}]}"
    whole = script("#!/bin/bash", "cat > all.yaml <<EOF", POD, "EOF", "cat >> all.yaml <<EOF", service, "EOF",
                   "kubectl apply -f all.yaml")
    found = manifest_text(whole, "whole.sh")
    assert found.assembled == [] and found.documents == 2 and found.errors == []


def test_the_files_a_script_pipes_through_envsubst():
    """What :func:`envsubst_inputs` takes as a file envsubst fills: a redirect into envsubst's pipe, written either
    way, or `cat FILE` before it, whatever is done with the output; not a here-document, a here-string, a comment, a
    file another command of the line reads, nor a name the shell builds."""
    text = script("#!/bin/bash", "# envsubst < old.yaml | kubectl apply -f -",
                  'envsubst < k8s/vllm.yaml > "$OUT" && kubectl apply -f "$OUT"', "envsubst <svc.yaml | kubectl apply -f -",
                  "cat base/lws.yaml overlay.yaml | envsubst | kubectl apply -f -", "envsubst <<EOF | kubectl apply -f -",
                  "kind: Pod", "EOF", 'envsubst <<< "$TEXT"', 'envsubst < "$DIR/x.yaml" | kubectl apply -f -',
                  "grep x < notes.txt; envsubst < rendered.yaml.tpl", "kubectl apply -f plain.yaml")
    assert envsubst_inputs(text) == ["base/lws.yaml", "k8s/vllm.yaml", "overlay.yaml", "rendered.yaml.tpl",
                                     "svc.yaml"]
    assert envsubst_inputs("kubectl apply -f a.yaml\n") == []


SERVICE_FROM_VARIABLES = """\
apiVersion: v1
kind: Service
metadata: {name: "${SERVICE_NAME}", namespace: "${NAMESPACE}"}
spec:
  selector: {app: "${APP_NAME}"}
  ports:
    - name: http
      port: ${SERVICE_PORT}
      targetPort: ${SERVICE_PORT}
"""


def test_a_service_port_the_script_fills_is_unknown_not_an_input_error():
    """A deploy script's Service whose port and targetPort are the script's variable (`SERVICE_PORT=8000` above,
    `port: ${SERVICE_PORT}` in the here-document it pipes to `oc apply`): the shell writes the number when the script
    runs, so the port is unknown here, as a replica count so written is, never an input error that failed the whole
    run (corpus26: the shape of nb-qbits/vllm-ocp-deploy's setup script). A number Kubernetes refuses still is one."""
    text = script("#!/bin/bash", "SERVICE_PORT=8000", "cat <<EOF | oc apply -f -", SERVICE_FROM_VARIABLES, "EOF")
    inv = load_text(text, "setup-service.sh")
    assert inv.errors == []
    [svc] = inv.services
    assert (svc.name, svc.ports, svc.target_ports) == ("${SERVICE_NAME}", [], [UNKNOWN])
    bad = load_text(text.replace("${SERVICE_PORT}", "70000"), "setup-service.sh")
    assert [str(e) for e in bad.errors] == [
        "setup-service.sh:11: spec.ports[0].port: expected a port number (1-65535), found 70000"]


@pytest.mark.parametrize("opener", [
    # review28: envsubst's perl idiom, a line filter like sed: kubectl gets the here-document, each line changed
    "perl -pe 's/\\$\\{(\\w+)\\}/$ENV{$1}/g' <<'EOF' | kubectl apply -f -",
    "perl -p -e 's/__TAG__/v0.11.0/' <<EOF | kubectl apply -f -",
    "ruby -pe 'gsub(/__TAG__/, \"v0.11.0\")' <<'EOF' | kubectl apply -f -",
    # a program given inline or as a file reads the here-document as its data and may print it changed
    "python3 -c 'import sys; sys.stdout.write(sys.stdin.read())' <<'EOF' | kubectl apply -f -",
    "python3 -u render.py --tag v1 <<'EOF' | kubectl apply -f -",
    "node -e 'process.stdin.pipe(process.stdout)' <<'EOF' | kubectl apply -f -",
    "sh -c 'envsubst' <<EOF | kubectl apply -f -",
    # the program a shell is given is kubectl itself (corpus28 read none of these)
    'bash -c "kubectl apply -f -" <<EOF',
    "env KUBECONFIG=/tmp/kc bash -c 'kubectl apply -f -' <<'EOF'",
])
def test_a_here_document_an_interpreter_given_its_program_reads_is_read_as_one_fed_to_sed_is(opener):
    """Only a here-document an interpreter runs as its program (``python3 -``, ``bash -s``) is no manifest; one a
    program given inline or as a file reads on stdin is its data, read as before corpus28 (the conservative side:
    perl's envsubst idiom left a Deployment unlinted and the run passed)."""
    found = manifest_text(script("#!/bin/bash", opener, POD, "EOF"), "deploy.sh")
    assert (found.documents, found.errors) == (1, [])
    sed = manifest_text(script("#!/bin/bash", "sed 's/x/y/' <<'EOF' | kubectl apply -f -", POD, "EOF"), "deploy.sh")
    assert sed.documents == 1


@pytest.mark.parametrize("opener", [
    "python3 <<'EOF' | kubectl apply -f -", "perl <<'EOF' | kubectl apply -f -", "node - <<'EOF' | kubectl apply -f -",
    "python3 -u - <<'EOF' | kubectl apply -f -", "bash -x -s -- arg <<'EOF' | kubectl apply -f -",
])
def test_a_here_document_an_interpreter_runs_with_options_is_still_not_a_manifest(opener):
    found = manifest_text(script("#!/bin/bash", opener, "print('apiVersion: v1')", "EOF"), "deploy.sh")
    assert (found.text, found.documents, found.errors) == (None, 0, [])
