"""Kubernetes object reading that used to let rules pass silently (flag carriers, wrong types, every
container of a pod, and the fields the security rules read): exact input errors with file and line, every vLLM container of a
pod, and flag carriers that make the flag-reading rules undecided.
"""

from __future__ import annotations

import os
import re
import textwrap

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import UNKNOWN, Location
from shardwise.rules.model.errors import InputError

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama, namespace: serving}
spec:
  selector: {matchLabels: {app: llama}}
  template:
    metadata: {labels: {app: llama}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: [sh, -c]
          args: ["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]
          env:
            - name: EXTRA_ARGS
              valueFrom: {configMapKeyRef: {name: flags, key: extra}}
          resources: {limits: {nvidia.com/gpu: 8}}
"""


def lint(tmp_path, text: str, name: str = "input.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path), load_inputs([str(path)])


def input_error(tmp_path, text: str) -> str:
    path = tmp_path / "input.yaml"
    path.write_text(textwrap.dedent(text))
    with pytest.raises(InputError) as e:
        load_inputs([str(path)])
    return str(e.value).replace(str(path), "input.yaml")


# --- item 20: wrong types never make a workload vanish ------------------------------------------------

@pytest.mark.parametrize(("old", "new", "error"), [
    ("      containers:\n        - name: vllm\n", "      containers:\n        vllm:\n",
     "input.yaml:10: spec.template.spec.containers: expected a list, found a mapping"),
    ("  template:\n    metadata: {labels: {app: llama}}\n    spec:\n",
     "  template: 5\n  old:\n    metadata: {labels: {app: llama}}\n    spec:\n",
     "input.yaml:6: spec.template: expected a mapping, found a number"),
    ("    spec:\n      nodeSelector", "    spec: [a]\n    old:\n      nodeSelector",
     "input.yaml:8: spec.template.spec: expected a mapping, found a list"),
    ("spec:\n  selector", "spec: 3\nold:\n  selector", "input.yaml:4: spec: expected a mapping, found a number"),
    ("          env:\n", "          env: {EXTRA_ARGS: x}\n          old:\n",
     "input.yaml:15: spec.template.spec.containers[0].env: expected a list, found a mapping"),
    ("          resources: {limits: {nvidia.com/gpu: 8}}", "          resources: {limits: [8]}",
     "input.yaml:18: resources.limits: expected a mapping, found a list"),
    ("          command: [sh, -c]", "          command: sh -c",
     "input.yaml:13: container 'vllm': command: expected a list, found a string"),
    ("      containers:\n", "      hostNetwork: \"true\"\n      containers:\n",
     "input.yaml:10: spec.template.spec.hostNetwork: expected true or false, found a string"),
    ("          resources:", "          securityContext: {privileged: \"yes\"}\n          resources:",
     "input.yaml:18: spec.template.spec.containers[0].securityContext.privileged: expected true or false, "
     "found a string"),
    ("          env:\n", "          envFrom: {configMapRef: {name: x}}\n          env:\n",
     "input.yaml:15: spec.template.spec.containers[0].envFrom: expected a list, found a mapping"),
])
def test_a_field_of_the_wrong_type_is_an_input_error_with_its_line(tmp_path, old, new, error):
    assert old in DEPLOYMENT
    assert input_error(tmp_path, DEPLOYMENT.replace(old, new, 1)) == error


def test_a_leader_worker_set_template_of_the_wrong_type_is_an_input_error(tmp_path):
    text = """\
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata: {name: llama, namespace: serving}
    spec:
      leaderWorkerTemplate:
        size: 2
        workerTemplate: [spec]
    """
    assert input_error(tmp_path, text) == (
        "input.yaml:7: spec.leaderWorkerTemplate.workerTemplate: expected a mapping, found a list")


# --- item 22: Service types Kubernetes rejects -------------------------------------------------------

@pytest.mark.parametrize(("spelled", "hint"), [
    ("loadbalancer", "; did you mean LoadBalancer?"), ("Loadbalancer", "; did you mean LoadBalancer?"),
    ('"LoadBalancer "', "; did you mean LoadBalancer?"), ("ＬｏａｄＢａｌａｎｃｅｒ", "; did you mean LoadBalancer?"),
    ("nodeport", "; did you mean NodePort?"), ("Internal", ""),
])
def test_a_service_type_kubernetes_rejects_is_an_input_error(tmp_path, spelled, hint):
    text = f"apiVersion: v1\nkind: Service\nmetadata: {{name: llama}}\nspec:\n  type: {spelled}\n"
    value = spelled.strip('"')
    assert input_error(tmp_path, text) == (
        f"input.yaml:5: spec.type: {value!r} is not a Service type Kubernetes accepts (ClusterIP, NodePort, "
        f"LoadBalancer, ExternalName, spelled exactly){hint}")


# --- item 17: every vLLM container of a pod ----------------------------------------------------------

def test_every_vllm_container_of_a_pod_is_a_serving_group(tmp_path):
    text = DEPLOYMENT.replace("          command: [sh, -c]\n", "").replace(
        '          args: ["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]\n'
        "          env:\n            - name: EXTRA_ARGS\n              valueFrom: {configMapKeyRef: {name: flags, "
        "key: extra}}\n          resources: {limits: {nvidia.com/gpu: 8}}\n",
        "          args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, '4']\n"
        "          resources: {limits: {nvidia.com/gpu: 4}}\n"
        "        - name: vllm-small\n          image: vllm/vllm-openai:v0.11.0\n"
        "          args: [Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '3', --port, '8001']\n"
        "          resources: {limits: {nvidia.com/gpu: 4}}\n")
    path, inv = lint(tmp_path, text)
    assert [(g.name, g.vllm_container, g.engine.tensor_parallel_size, g.gpus_per_pod) for g in inv.groups] == [
        ("llama", "vllm", 4, 4), ("llama:vllm-small", "vllm-small", 3, 4)]
    got = [(f.code, f.subject, f.level, f.location.line, f.message) for f in run_rules(ALL_RULES, inv)
           if f.code in ("SW203", "SW208")]
    assert got == [
        ("SW203", "Deployment serving/llama:vllm-small", "mandatory", 17,
         "Qwen/Qwen2.5-7B-Instruct has 28 attention heads, not divisible by tensor_parallel_size 3; the weights split "
         "at tensor_parallel_size 2 or 4"),
        ("SW208", "Deployment serving/llama:vllm-small", "advisory", 18,
         "the pod requests 4 nvidia.com/gpu but TP3×PP1 uses 3; 1 GPU stays reserved and idle per pod"),
    ]


# --- item 16: words that can carry flags -------------------------------------------------------------

#: What decides them (engine.what_decides): a variable the container's shell expands, or any other word
_SHELL = ("run `envsubst` first if it is a template's placeholder; if the container's shell expands it, add the "
          "ConfigMap its variable is read from to the inputs, or set the variable or the value literally")
_LITERALLY = "write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed output)"


@pytest.mark.parametrize(("args", "decides"), [
    ('["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]', _SHELL),
    ('["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 ${EXTRA_ARGS:-}"]', _SHELL),
    ('["exec vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 \\"$@\\""]', _LITERALLY),
    # after the first value of a flag of one or more values: one more value, or flags (review25: read as a name, so
    # the settings were vLLM's defaults, and SW101 blocked the 70B model at TP1)
    ('["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 --served-model-name llama $EXTRA_ARGS"]',
     _SHELL),
    ('["exec vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 --served-model-name llama \\"$@\\""]',
     _LITERALLY),
])
def test_an_unresolvable_word_makes_the_flags_it_could_carry_unknown(tmp_path, args, decides):
    path, inv = lint(tmp_path, DEPLOYMENT.replace(
        '["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]', args))
    [g] = inv.groups
    e = g.engine
    assert (e.tensor_parallel_size, e.pipeline_parallel_size, e.data_parallel_size, e.max_num_seqs) == (
        UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)
    assert e.model == "meta-llama/Llama-3.1-70B-Instruct" and e.max_model_len is UNKNOWN  # set before the word
    found = {f.code: (f.level, f.undecided, f.message) for f in run_rules(ALL_RULES, inv)
             if f.code in ("SW101", "SW204", "SW208")}
    unknown_tp = ("cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference): "
                  f"{decides}")
    # undecided capacity and topology findings are advisory by default: reported, never a silent pass
    assert found == {code: ("advisory", True, unknown_tp) for code in ("SW101", "SW204", "SW208")}
    # unknown = "fail" in the configuration keeps the mandatory rules' level
    strict = LintConfig(unknown_is_failure=True, unknown_configured=True)
    assert {f.code: f.level for f in run_rules(ALL_RULES, inv, strict) if f.code in ("SW101", "SW204", "SW208")} == {
        "SW101": "mandatory", "SW204": "mandatory", "SW208": "advisory"}


def test_a_kubernetes_reference_argument_is_a_flag_carrier_but_flags_after_it_stand(tmp_path):
    text = DEPLOYMENT.replace("          command: [sh, -c]\n", "").replace(
        '["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]',
        "[meta-llama/Llama-3.1-70B-Instruct, $(EXTRA_ARGS), --tensor-parallel-size, '8']")
    _, inv = lint(tmp_path, text)
    e = inv.groups[0].engine
    assert (e.tensor_parallel_size, e.max_num_seqs, e.extra["flag_carriers"]) == (8, UNKNOWN, ["$(EXTRA_ARGS)"])


def test_a_reference_after_the_first_name_of_a_list_carries_flags_and_the_first_is_a_name(tmp_path):
    """``--served-model-name`` takes one or more values (nargs="+"): argparse ends the list at the first word that is a
    flag, so a ``$(VAR)`` after the first name may be one more name or a flag, and the settings before it are unknown;
    one in the first place is a name (argparse refuses the flag without one), and flags after the list stand."""
    text = DEPLOYMENT.replace("          command: [sh, -c]\n", "")
    written = '["vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS"]'
    _, inv = lint(tmp_path, text.replace(written, "[meta-llama/Llama-3.1-70B-Instruct, --max-model-len, '8192', "
                                                  "--served-model-name, llama, $(EXTRA_ARGS), --max-num-seqs, '64']"))
    e = inv.groups[0].engine
    assert (e.tensor_parallel_size, e.max_model_len, e.max_num_seqs, e.extra["flag_carriers"]) == (
        UNKNOWN, UNKNOWN, 64, ["$(EXTRA_ARGS)"])
    _, inv = lint(tmp_path, text.replace(written, "[meta-llama/Llama-3.1-70B-Instruct, --max-model-len, '8192', "
                                                  "--served-model-name, $(EXTRA_ARGS)]"))
    e = inv.groups[0].engine
    assert (e.tensor_parallel_size, e.max_model_len, "flag_carriers" in e.extra) == (1, 8192, False)


def test_a_default_of_a_variable_from_a_secret_is_not_taken_as_its_value(tmp_path):
    text = DEPLOYMENT.replace("$EXTRA_ARGS", "--tensor-parallel-size ${TP:-8}").replace("EXTRA_ARGS", "TP")
    _, inv = lint(tmp_path, text)
    assert inv.groups[0].engine.tensor_parallel_size is UNKNOWN
    resolved = text.replace("              valueFrom: {configMapKeyRef: {name: flags, key: extra}}\n", "").replace(
        "            - name: TP\n", "")
    _, inv = lint(tmp_path, resolved.replace("          env:\n", ""))
    assert inv.groups[0].engine.tensor_parallel_size == 8


def test_gpus_from_a_resource_claim_outside_the_inputs_leave_the_request_undecided(tmp_path):
    text = DEPLOYMENT.replace("          resources: {limits: {nvidia.com/gpu: 8}}\n",
                              "          resources: {claims: [{name: gpus}]}\n").replace(
        "      nodeSelector:", "      resourceClaims: [{name: gpus, resourceClaimTemplateName: eight-h100}]\n"
                              "      nodeSelector:").replace(" $EXTRA_ARGS", " --tensor-parallel-size 8")
    _, inv = lint(tmp_path, text)
    assert inv.groups[0].containers[0].resource_claims == ["gpus"]
    found = [(f.code, f.level, f.undecided, f.message) for f in run_rules(ALL_RULES, inv)
             if f.code in ("SW204", "SW208")]
    reason = ("the device count of container `vllm` is not known (they come from the resource claim `gpus` (dynamic "
              "resource allocation), and ResourceClaimTemplate `eight-h100` is not in the inputs; lint it together "
              "with the workload)")
    assert found == [("SW204", "advisory", True, f"cannot decide: {reason}")]  # SW208 leaves it to SW204


def test_locate_finds_the_first_line_that_writes_a_whole_word_inside_its_range():
    from shardwise.rules.adapters.k8s.parse import make_locate
    from shardwise.rules.model import Location

    lines = [
        "spec:",  # 1
        "  args:",  # 2
        "    - --tensor-parallel-size-x=2",  # 3: not the flag (a longer word)
        "    - --max-model-len=8192",  # 4
        "    - --tensor-parallel-size",  # 5
        "    - '4'",  # 6
        "  image: vllm/vllm-openai:v0.11.0",  # 7
        "  other: --tensor-parallel-size",  # 8: past the range below
    ]
    locate = make_locate(lines, 2, 7, "d.yaml")
    assert locate is not None
    assert locate("--tensor-parallel-size") == Location("d.yaml", 5)
    assert locate("--max-model-len") == Location("d.yaml", 4)  # `=` ends a word
    assert locate("4") == Location("d.yaml", 6)  # quotes end a word too
    assert locate("vllm") == Location("d.yaml", 7)  # `/` ends a word
    assert locate("spec") is None  # before the range
    assert locate("other") is None  # after it
    assert locate("size") is None  # only inside longer words (`-` joins them)
    assert locate("") is None and locate("args:\n    -") is None  # nothing, or a word of two lines
    assert make_locate(lines, 8, None, "d.yaml")("--tensor-parallel-size") == Location("d.yaml", 8)  # type: ignore[misc]
    assert make_locate(None, 1, None, "d.yaml") is None and make_locate(lines, None, None, "d.yaml") is None
    empty = make_locate(lines, 20, None, "d.yaml")  # a start past the end: an empty range
    assert empty is not None and empty("spec") is None


def test_a_locate_leaves_no_reference_cycle():
    """``shardwise lint`` and the pack run with the collector off: a finder made and used must be freed by its
    count alone. (As a closure rebinding its maker's name, mypyc's build kept each one and the file's lines it
    holds in a cycle to the end of the run.)"""
    import gc

    from shardwise.rules.adapters.k8s.parse import make_locate

    lines = ["spec:", "  args: [--max-model-len, '8192']"]
    make_locate(lines, 1, None, "d.yaml")  # once first: what is made once per process is made
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        locate = make_locate(lines, 1, None, "d.yaml")
        assert locate is not None and locate("--max-model-len") == Location("d.yaml", 2)
        del locate
        found = gc.collect()
        left = sorted(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert (found, left) == (0, [])


def test_a_files_first_lines_slice_like_a_list_of_them():
    from shardwise.rules.adapters.k8s.inventory import Upto as _Upto

    lines = list("abcdefgh")
    first = _Upto(lines, 5)
    for s in (slice(1, 3), slice(3, 10), slice(None, None, -1), slice(-2, None), slice(None, None, 2),
              slice(4, 1, -2), slice(7, 9)):
        assert first[s] == lines[:5][s], s
    assert len(first) == 5 and first[-1] == "e" and first[0] == "a"
    with pytest.raises(IndexError):
        first[5]


@pytest.mark.parametrize("file", [
    "patch.yaml", "deploy/patches/vllm.yaml", "deploy/Patch/vllm.yml", "deploy/vllm-patch.yaml", "patches//vllm.yaml",
    "patches/./vllm.yaml", "patches/sub/../vllm.yaml", "./vllm.yaml", "../vllm.yaml", "/vllm.yaml", "vllm.yaml",
    "deploy/base/vllm.yaml", "/srv/patches/x/../vllm.yaml",
])
@pytest.mark.parametrize("cwd", ["patches", "base"])
def test_a_file_named_as_a_patch_is_told_by_its_folder_s_name_as_its_absolute_path_gives_it(file, cwd, tmp_path,
                                                                                            monkeypatch):
    """patch_fragment names a file's folder without making every path absolute (os.path.abspath, a normpath in
    Python, for every file read): its last part, and the absolute path's only where that is none, "." or ".." (the
    current folder, a parent, the root). The answers are those of the absolute path's folder, from any folder."""
    from shardwise.rules.adapters.k8s.workloads import patch_fragment
    from shardwise.rules.model import Container

    here = tmp_path / "sub" / cwd
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    folder, name = os.path.split(os.path.abspath(file))
    by_abspath = bool(re.search(r"(?:^|[._/-])patch(?:es)?(?:[._/-]|$)", name, re.I)) or os.path.basename(
        folder).lower() in ("patch", "patches")
    obj = {"apiVersion": "apps/v1", "kind": "Deployment"}
    told = patch_fragment("Deployment", obj, file, Container(name="vllm", image="vllm/vllm-openai:v0.11.0"))
    assert (told is not None) == by_abspath


def test_a_claim_of_mig_devices_reads_the_profile_its_selectors_name(tmp_path):
    """mig21: NVIDIA's DRA driver publishes each MIG device's profile (``device.attributes["gpu.nvidia.com"].profile``);
    a claim whose every request's selector names one profile gives the container that profile, in the v1 and the
    v1beta1 shape; requests that name different profiles, a selector of two (``||``) or none leave it unknown."""
    from shardwise.rules.catalog.accelerators import cel_mig_profile

    assert cel_mig_profile("device.attributes['gpu.nvidia.com'].profile == '1g.5gb'") == "1g.5gb"
    assert cel_mig_profile('"3g.40gb" == device.attributes["gpu.nvidia.com"]["profile"]') == "3g.40gb"
    assert cel_mig_profile("device.attributes['gpu.nvidia.com'].profile == '1g.10gb' || "
                           "device.attributes['gpu.nvidia.com'].profile == '2g.20gb'") is None
    assert cel_mig_profile("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100'") is None

    def claim(name: str, requests: str) -> str:
        return textwrap.dedent(f"""\
            ---
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaimTemplate
            metadata: {{name: {name}, namespace: serving}}
            spec:
              spec:
                devices:
                  requests:
            """) + textwrap.indent(textwrap.dedent(requests), " " * 6)

    one = "device.attributes['gpu.nvidia.com'].profile == '{}'"
    text = "".join([
        claim("same", f"""\
            - name: a
              exactly: {{deviceClassName: mig.nvidia.com, selectors: [{{cel: {{expression: "{one.format('2g.20gb')}"}}}}]}}
            - name: b
              exactly: {{deviceClassName: mig.nvidia.com, selectors: [{{cel: {{expression: "{one.format('2g.20gb')}"}}}}]}}
            """),
        claim("differ", f"""\
            - name: a
              exactly: {{deviceClassName: mig.nvidia.com, selectors: [{{cel: {{expression: "{one.format('1g.10gb')}"}}}}]}}
            - name: b
              exactly: {{deviceClassName: mig.nvidia.com, selectors: [{{cel: {{expression: "{one.format('2g.20gb')}"}}}}]}}
            """),
        claim("beta", f"""\
            - {{name: a, deviceClassName: mig.nvidia.com, selectors: [{{cel: {{expression: "{one.format('1g.10gb')}"}}}}]}}
            """),
        claim("none", """\
            - {name: a, exactly: {deviceClassName: mig.nvidia.com}}
            """),
    ])
    path = tmp_path / "claims.yaml"
    path.write_text(text)
    inv = load_inputs([str(path)])
    assert {c.name: c.mig_profile for c in inv.device_claims} == {
        "same": "2g.20gb", "differ": None, "beta": "1g.10gb", "none": None}
