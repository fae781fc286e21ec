"""Launch, capacity and topology rules (SW0xx, SW1xx, SW2xx). What each fixture fires, exactly, is written beside it
(``tests/fixtures/rules/SW104/fail.yaml.expected``, test_rule_fixtures.py); here: levels, configuration and the
runner. ``unknown.yaml`` fixtures hold a value the rule needs that the manifest does not state (from a ConfigMap
or the downward API): the rule says it cannot decide. ``malformed.yaml`` ones are input errors that name the
file and line.
"""


import pytest
import repo_paths
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES, rule_by_code
from shardwise.rules.engine import LintConfig, run_rules

FIXTURES = repo_paths.FIXTURES / "rules"

#: The rules whose fixtures this module looks at beyond test_rule_fixtures.py (which asserts every finding).
CODES = ("SW001", "SW002", "SW003", "SW004", "SW005", "SW101", "SW102", "SW103", "SW104", "SW105", "SW106", "SW201",
         "SW202", "SW203", "SW207")


def fixtures(*kinds: str) -> list[tuple[str, str]]:
    return sorted((c, kind) for c in CODES for kind in kinds if (FIXTURES / c / f"{kind}.yaml").is_file())


@pytest.mark.parametrize("code,kind", fixtures("fail", "pass", "advisory"))
def test_pass_fixtures_have_no_blocking_finding_of_their_rule(code, kind):
    inv = load_inputs([str(FIXTURES / code / f"{kind}.yaml")])
    found = [f for f in run_rules(ALL_RULES, inv) if f.code == code and not f.suppressed]
    # fail.yaml has findings, pass.yaml none; advisory.yaml has findings, none of them blocking
    assert (len(found) > 0) == (kind in ("fail", "advisory"))
    if kind == "advisory":
        assert not any(f.blocking for f in found)


@pytest.mark.parametrize("code", [c for c, _ in fixtures("unknown")])
def test_undecided_level_follows_the_rule_metadata(code):
    meta = rule_by_code(code).meta
    inv = load_inputs([str(FIXTURES / code / "unknown.yaml")])
    found = [f for f in run_rules(ALL_RULES, inv) if f.code == code]
    # one undecided finding on unknown.yaml; capacity and topology rules that cannot decide are advisory unless
    # the config says unknown = "fail"
    skip = meta.enforcement == "advisory" or meta.safe_to_skip_unknown or meta.decides_capacity_or_topology
    assert [(f.undecided, f.level) for f in found] == [(True, "advisory" if skip else "mandatory")]


def test_unknown_tp_makes_every_rule_that_needs_it_say_so():
    inv = load_inputs([str(FIXTURES / "SW104" / "unknown.yaml")])
    undecided = {(f.code, f.level) for f in run_rules(ALL_RULES, inv) if f.undecided and f.code < "SW3"}
    # by default an undecided capacity or topology finding is advisory (it says which value is missing)
    assert undecided == {(code, "advisory") for code in (
        "SW101", "SW102", "SW104", "SW106", "SW201", "SW202", "SW203", "SW204", "SW208")}
    # no load is declared there: SW103 has nothing to judge, so it does not need TP
    # unknown = "fail" in the configuration keeps each rule's own level
    strict = LintConfig(unknown_is_failure=True, unknown_configured=True)
    assert {(f.code, f.level) for f in run_rules(ALL_RULES, inv, strict) if f.undecided and f.code < "SW3"} == {
        ("SW101", "mandatory"), ("SW102", "mandatory"), ("SW104", "mandatory"),
        ("SW106", "advisory"), ("SW201", "mandatory"), ("SW202", "mandatory"), ("SW203", "mandatory"),
        ("SW204", "mandatory"), ("SW208", "advisory"),
    }
    msg = next(f.message for f in run_rules(ALL_RULES, inv) if f.code == "SW104")
    assert msg == (  # what decides it: the `$(TP)` on its line, from a ConfigMap that is not in the inputs
        "cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference): add the "
        "ConfigMap its variable is read from to the inputs, or set the variable or the value literally (a Secret's "
        "value is never read)"
    )


def test_unknown_is_advisory_when_configured_to_warn():
    from shardwise.rules.engine import LintConfig

    inv = load_inputs([str(FIXTURES / "SW104" / "unknown.yaml")])
    levels = {f.level for f in run_rules(ALL_RULES, inv, LintConfig(unknown_is_failure=False)) if f.undecided}
    assert levels == {"advisory"}


def test_a_crashing_rule_becomes_a_mandatory_diagnostic():
    from shardwise.rules.engine import Rule

    class Broken(Rule):
        meta = rule_by_code("SW101").meta

        def check(self, inv, config):
            raise ZeroDivisionError("boom")

    inv = load_inputs([str(FIXTURES / "SW101" / "fail.yaml")])
    [f] = run_rules([Broken()], inv)
    assert (f.code, f.level, f.message) == (
        "SW101", "mandatory", "internal error in rule weights-exceed-gpu-memory: ZeroDivisionError: boom"
    )


def test_unknown_dtype_or_quantization_is_undecided_not_a_crash():
    from shardwise.rules.model import UNKNOWN

    for field in ("dtype", "quantization", "kv_cache_dtype", "block_size", "enforce_eager"):
        inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
        setattr(inv.groups[0].engine, field, UNKNOWN)
        found = {f.code: f for f in run_rules(ALL_RULES, inv) if f.subject == "Deployment serving/llama8b-tp2"}
        assert not any(f.internal for f in found.values()), field
        assert found["SW101"].message == (  # set here, not in the file: no line of it shows the value
            f"cannot decide: {field} is not known (a computed value or an unresolved reference): write it "
            "literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed output)"
        )
        assert (found["SW101"].level, found["SW101"].undecided) == ("advisory", True)


def test_a_rule_crashing_on_one_group_still_checks_the_others():
    from shardwise.rules.engine import GroupRule, hit

    class CrashesOnTp2(GroupRule):
        meta = rule_by_code("SW101").meta

        def check_group(self, g, inv, config):
            if g.name == "llama8b-tp2":
                raise KeyError("boom")
            yield hit(g, f"checked {g.name}")

    inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
    got = [(f.subject, f.level, f.internal, f.message) for f in run_rules([CrashesOnTp2()], inv)]
    assert got == [
        ("Deployment serving/llama8b-tp2", "mandatory", True,
         "internal error in rule weights-exceed-gpu-memory: KeyError: 'boom'"),
        ("StatefulSet serving/llama70b-tp4-pp2", "advisory", False, "checked llama70b-tp4-pp2"),
    ]


@pytest.mark.parametrize("applies", [True, False])
def test_the_runner_skips_plans_for_a_rule_that_does_not_apply_to_them(applies):
    from dataclasses import replace

    from shardwise.rules.engine import GroupRule, Rule, hit

    meta = replace(rule_by_code("SW101").meta, applies_to_plans=applies)

    class Checks(GroupRule):
        def check_group(self, g, inv, config):
            yield hit(g, f"checked {g.name}")

    class ChecksByHand(Rule):
        def check(self, inv, config):
            for g in self.groups(inv):
                yield hit(g, f"checked {g.name}")

    Checks.meta = ChecksByHand.meta = meta
    inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
    inv.groups[0].kind = "plan"
    names = [g.name for g in inv.groups if applies or g.kind != "plan"]
    for rule in (Checks(), ChecksByHand()):
        assert sorted(f.message for f in run_rules([rule], inv)) == sorted(f"checked {n}" for n in names)


def test_an_image_not_known_yet_sizes_for_the_current_release_and_says_so():
    from shardwise.rules.model import UNKNOWN
    from shardwise.rules.vllm.versions import CURRENT_RELEASE

    inv = load_inputs([str(FIXTURES / "SW102" / "fail.yaml")])
    inv.groups[0].containers[0].image = UNKNOWN  # a computed image at `pulumi preview`
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW102" and f.subject.endswith("default-len")]
    assert (f.level, f.undecided) == ("mandatory", False)
    assert f"(vLLM {CURRENT_RELEASE}, assumed: the image is not known yet)" in f.message


@pytest.mark.parametrize("code", ["SW101", "SW102", "SW103", "SW104", "SW202"])
def test_capacity_fail_fixtures_block_and_advisory_ones_do_not(code):
    levels = {kind: [f.level for f in run_rules(ALL_RULES, load_inputs([str(FIXTURES / code / f"{kind}.yaml")]))
                     if f.code == code]
              for kind in ("fail", "advisory")}
    assert levels["fail"] and set(levels["fail"]) == {"mandatory"}
    assert levels["advisory"] and set(levels["advisory"]) == {"advisory"}


_QWEN_FP8_TP8 = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  replicas: 1
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      nodeSelector:
        %s
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.2
        args: ["--model", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "--tensor-parallel-size", "8"]
        resources:
          limits:
            %s: 8
"""


def test_sw203_blocks_split_fp8_blocks_only_where_vllms_gpu_loaders_load_them(tmp_path):
    """Qwen's own FP8 release at TP8 splits each expert's 128 x 128 blocks (192 columns a rank): vLLM's CUDA and ROCm
    loaders refuse it (Qwen's model cards state the block size, so it blocks on H100); on a TPU slice vLLM's
    tpu-inference plugin loads quantised weights its own way (vllm-project/tpu-inference's GKE example serves this
    checkpoint at TP8), so it is said, never blocking."""
    found = {}
    for name, selector, resource in (
            ("h100", "nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu"),
            ("tpu", "cloud.google.com/gke-tpu-accelerator: tpu7x", "google.com/tpu")):
        path = tmp_path / f"{name}.yaml"
        path.write_text(_QWEN_FP8_TP8 % (selector, resource))
        found[name] = [(f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([str(path)]))
                       if f.code == "SW203" and not f.suppressed]
    split = ("at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of "
             "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM "
             "refuses to load the weights")
    assert found["h100"] == [("mandatory", split + "; the weights split at tensor_parallel_size 2 or 4, or add "
                                               "--enable-expert-parallel, which keeps the experts whole")]
    assert found["tpu"] == [("advisory", split + " on vLLM's CUDA and ROCm builds; on google accelerators vLLM's "
                             "plugin loads quantised weights its own way, so this is not known to refuse there")]


def test_a_tpu_workload_gets_no_gpu_finding_and_one_note_that_its_capacity_is_not_checked():
    # tpu19: vLLM on Google TPUs (gcp-getting-started-lab-jp's gke-tpu lab in the wide corpus) got SW101 on "the CUDA
    # context and NCCL" and SW106 suggesting a 4-bit AWQ/GPTQ variant, which vLLM's TPU backend does not load; a 70B
    # over 4 v6e chips was blocked by the GPU arithmetic. Every capacity and topology rule but SW101's note is silent
    # on the TPUs; the GPU workload of the same file is still judged.
    inv = load_inputs([str(FIXTURES / "SW101" / "tpu.yaml")])
    found = [(f.code, f.level, f.subject.split("/")[-1], f.message.split(":")[0])
             for f in run_rules(ALL_RULES, inv) if f.code < "SW3"]
    assert sorted(found) == [
        ("SW101", "advisory", "llama70b-v6e", "TPU-v6e"),
        ("SW101", "advisory", "qwen14b-v5e", "TPU-v5e"),
        ("SW101", "advisory", "qwen32b-tpu-request", "Google TPU"),
        ("SW101", "mandatory", "llama70b-l4",
         "meta-llama/Llama-3.1-70B-Instruct in bf16 needs 32.9 GiB (−0.2/+1.0) of weights per GPU at TP4×PP1, but "
         "gpu_memory_utilization 0.9 × 22.0 GiB (L4) allows 19.8 GiB; vLLM will fail at start-up (vLLM 0.11.1 from "
         "the image tag); spread the weights over at least 7 of these GPUs (131.4 GiB over 19.8 GiB each); or serve an "
         "FP8 or 4-bit quantised checkpoint; or use a GPU with more memory"),
        ("SW202", "advisory", "llama70b-l4",
         "tensor_parallel_size 4 on pool `gpu.product=NVIDIA-L4` (L4, joined only by PCIe) runs every layer's "
         "all-reduce over PCIe, and TP4×PP1 would not start"),
    ]


_QWEN36_FP8_TP8_EP = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen36-dp-rank0
spec:
  replicas: 1
  selector:
    matchLabels: {app: qwen36}
  template:
    metadata:
      labels: {app: qwen36}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H200
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.29.0
        command: ["vllm", "serve"]
        args: ["Qwen/Qwen3.6-35B-A3B-FP8", "--tensor-parallel-size", "8", "--enable-expert-parallel"%s]
        resources:
          limits:
            nvidia.com/gpu: 8
"""


def test_sw203_a_qwen_shared_expert_is_whole_under_data_parallel_expert_parallelism(tmp_path):
    """review26: Qwen3.6-35B-A3B-FP8's 512-wide shared expert splits over TP8 into 64 input columns a rank, half a
    128 block, with expert parallelism alone (vLLM pull request 52915 quotes the refusal). With data parallelism
    beside it vLLM runs sequence-parallel MoE (ParallelConfig.use_sequence_parallel_moe: EP, TP > 1, DP > 1 and the
    default allgather_reducescatter backend) and, from vllm#39181 on, Qwen2MoeMLP builds the shared expert with
    disable_tp (read in the 0.25.1 and 0.29.0 wheels): nothing splits, so SW203 has nothing to say; a DP size the
    inputs do not resolve leaves it undecided. Multi-node DP as
    vLLM's data-parallel deployment guide writes it: one TP8 rank a node, --data-parallel-size-local 1."""
    found = {}
    for name, extra in (("ep", ""),
                        ("dp2", ', "--data-parallel-size", "2", "--data-parallel-size-local", "1", '
                                '"--data-parallel-address", "qwen36-dp-rank0"'),
                        ("dp-unseen", ', "--data-parallel-size", "$(DP_SIZE)"')):
        path = tmp_path / f"{name}.yaml"
        path.write_text(_QWEN36_FP8_TP8_EP % extra)
        found[name] = [(f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([str(path)]))
                       if f.code == "SW203" and not f.suppressed]
    assert found["ep"] == [("mandatory", (
        "at tensor_parallel_size 8 each rank holds 64 input columns of the shared expert's down projection of "
        "Qwen/Qwen3.6-35B-A3B-FP8, not a multiple of block_k 128 (128x128 FP8 blocks); vLLM refuses to load the "
        "weights; the weights split at tensor_parallel_size 2 or 4"))]
    assert found["dp2"] == []
    # a DP size the inputs do not resolve decides whether the shared expert splits: undecided, never read as 1
    assert [(level, message.split(" (")[0]) for level, message in found["dp-unseen"]] == [
        ("advisory", "cannot decide: data_parallel_size is not known")]
