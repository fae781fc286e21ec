"""benchmarks/fuzz_mutate.py (fuzz13): a case is built from its seed and number alone, so a failure the campaign
logs replays with ``--case``; and a few cases run end to end without a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from repo_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import fuzz_mutate  # noqa: E402


def _tree(d: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for dp, dns, fns in os.walk(d):
        for n in dns + fns:
            p = os.path.join(dp, n)
            rel = os.path.relpath(p, d)
            if rel.split(os.sep)[0] == ".git":  # a diff case's commit: its hash holds the time
                continue
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = f.read()
            elif not os.path.isdir(p):
                out[rel] = "special"
    return out


@pytest.mark.parametrize("case", range(0, 40, 3))
def test_a_case_is_built_from_its_seed_and_number_alone(case, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    ca = fuzz_mutate.build(13013, case, str(a))
    fuzz_mutate.build(99, case + 1, str(tmp_path / "other"))  # another case between: no shared state
    cb = fuzz_mutate.build(13013, case, str(b))
    assert (ca["argv"], ca["kinds"], ca["env"]) == (cb["argv"], cb["kinds"], cb["env"])
    assert _tree(str(a)) == _tree(str(b))


@pytest.mark.slow
def test_a_few_cases_run_without_a_failure(tmp_path):
    log = tmp_path / "failures.jsonl"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_mutate.py"), "13013", "--cases", "30",
                        "--log", str(log)], capture_output=True, text=True, timeout=900, cwd=ROOT)
    totals = json.loads(r.stdout[r.stdout.index("{\n"):])
    assert totals["cases"] == 30
    assert totals["failed_classes"] == {}, log.read_text() if log.exists() else r.stderr


def _counts(kinds: list[str]) -> dict[str, str]:
    """``count:KEY=VALUE`` kinds as KEY -> VALUE; a key twice fails."""
    out: dict[str, str] = {}
    for k in kinds:
        key, value = k.removeprefix("count:").split("=", 1)
        assert key not in out, kinds
        out[key] = value
    return out


@pytest.mark.parametrize("seed", range(40))
def test_a_count_mutation_changes_each_slot_it_names_once(seed):
    """hostile18: each of a case's count mutations is a slot of its own, and the text is the unmutated one with exactly
    those slots' values replaced (the braces of a flow mapping kept)."""
    import random

    text = "spec:\n  replicas: 3\n  resources: {limits: {nvidia.com/gpu: 1}}\n  args: [--max-model-len=8192]\n"
    new, kinds = fuzz_mutate.mutate_counts(random.Random(seed), text)
    got = _counts(kinds)
    assert 1 <= len(got) <= 2
    assert new == (f"spec:\n  replicas: {got.get('replicas', '3')}\n  resources: {{limits: {{nvidia.com/gpu: "
                   f"{got.get('nvidia.com/gpu', '1')}}}}}\n  args: [--max-model-len={got.get('--max-model-len', '8192')}]\n")


@pytest.mark.parametrize("seed", range(20))
def test_a_text_with_one_count_slot_gets_one_mutation(seed):
    import random

    new, kinds = fuzz_mutate.mutate_counts(random.Random(seed), "replicas: 2\n")
    (value,) = _counts(kinds).values()
    assert (len(kinds), new) == (1, f"replicas: {value}\n")


def test_a_well_formed_count_beside_a_malformed_one_is_judged_apart(tmp_path):
    """fuzz18 (seed 7301 case 903, before hostile18 changed how counts are drawn): `--max-num-seqs inf` (malformed)
    and `nvidia.com/gpu: 0` (a count) in one file. SW204 (0 GPUs for TP2's 2 workers) is right and comes from the
    count; the judge lints the text with the malformed values alone. The flag's label is the flag alone."""
    import random

    text = "args: [--max-num-seqs=64]\nresources: {limits: {nvidia.com/gpu: 2}}\n"
    seen = set()
    for seed in range(200):
        only: list[str] = []
        new, kinds = fuzz_mutate.mutate_counts(random.Random(seed), text, only)
        got = _counts(kinds)
        plain = [fuzz_mutate.plain_count(v, flag=k.startswith("--"), quantity=k == "nvidia.com/gpu") for k, v in got.items()]
        if len(got) == 2 and any(plain) and not all(plain):
            flag, gpu = got["--max-num-seqs"], got["nvidia.com/gpu"]
            odd_flag = flag if not fuzz_mutate.plain_count(flag, flag=True) else "64"
            odd_gpu = gpu if not fuzz_mutate.plain_count(gpu, quantity=True) else "2"
            assert only == [f"args: [--max-num-seqs={odd_flag}]\nresources: {{limits: {{nvidia.com/gpu: {odd_gpu}}}}}\n"]
            seen.add(odd_flag == "64")
        else:
            assert only == []
    assert seen == {True, False}  # both ways round were drawn
    assert [fuzz_mutate.plain_count(v) for v in ("0", "+4", "2Gi", "1_000", "inf", '"0x10"', '"2"', "1.5")] == [
        True, True, True, True, False, False, False, False]
    # fuzz20 (seed 20006 case 44): go-yaml v2 reads a plain 0x10 as 16 (strconv.ParseInt base 0), so does kubectl
    assert [fuzz_mutate.plain_count(v) for v in ("0x10", "0o10", "010", "0b10", "-0x1_0", "0x", "0o8")] == [
        True, True, True, True, True, False, False]
    assert fuzz_mutate.plain_count("0x10", flag=True) is False  # argparse's int() refuses it
    # fuzz20 (seed 20011 case 101): a quantity's decimal exponent, quantity.go's grammar: "1e3" is 1000
    assert [fuzz_mutate.plain_count(v, quantity=True) for v in ('"1e3"', "1e3", '"1E+2"', '"1.5e3"', '"1.05e1"', '"1e-3"')] == [
        True, True, True, True, False, False]
    # (case 311) a fraction with a suffix that makes it whole: "8.5Gi" is 9,126,805,504
    assert [fuzz_mutate.plain_count(v, quantity=True) for v in ('"8.5Gi"', '"0.5k"', '"1.5"', '"1500m"', '"1.0001k"')] == [
        True, True, False, False, False]
    assert (fuzz_mutate.plain_count(" 4", flag=True), fuzz_mutate.plain_count(" 4")) == (True, False)
    # fuzz19 (seed 7401 case 1158): a resource quantity is a string in the API; `replicas: "2"` is no int32
    assert [fuzz_mutate.plain_count(v, quantity=True) for v in ('"2"', '"2Gi"', '"2 "', '"two"', '"1.5"', '""')] == [
        True, True, True, False, False, False]
