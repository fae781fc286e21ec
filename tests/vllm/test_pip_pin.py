"""Issue 28, "the sampler depends on the image, not only the release": a container that installs vLLM with pip at
start-up runs the release its command pins, not the image's (``versions.pip_pin``, read by ``group.vllm_version``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from shardwise.rules.vllm.versions import CURRENT_RELEASE, pip_pin

WIDE = Path(__file__).resolve().parents[1] / "corpus" / "wide"
PINS_NOTHING = "pins no release (pip installs what PyPI serves at start-up)"


@pytest.mark.parametrize("script,image,expected", [
    # the shapes public commands have (the corpus's, and those find_string shows in install scripts)
    ("pip install vllm==0.10.0 && vllm serve Qwen/Qwen3-8B", "python:3.12", ("0.10.0", "pip-pin")),
    ("uv pip install vllm==0.10.1 --torch-backend=auto --system", None, ("0.10.1", "pip-pin")),
    ('python -m pip install "vllm==0.11.0"', None, ("0.11.0", "pip-pin")),
    ("python3 -m pip install 'vllm[audio]==0.9.2' && exec vllm serve m", None, ("0.9.2", "pip-pin")),
    ("pip3 install vllm===0.10.1.1 --quiet", None, ("0.10.1.1", "pip-pin")),
    ("pip install vllm==0.6.6 --quiet\npython3 -m vllm.entrypoints.openai.api_server --model m", None,
     ("0.6.6", "pip-pin")),
    # the last install stays installed
    ("uv pip install vllm==0.7.3\nuv pip install vllm==0.10.0", None, ("0.10.0", "pip-pin")),
    # an image of vLLM's: the pin replaces its release
    ("pip install vllm==0.10.0 && vllm serve m", "vllm/vllm-openai:v0.9.2", ("0.10.0", "pip-pin")),
    # a pin to a release newer than the table's: a release all the same (sized as the newest, ResolvedVersion.note)
    ("pip install vllm==0.99.0", None, ("0.99.0", "pip-pin")),
])
def test_a_pin_is_the_release(script, image, expected):
    got = pip_pin(script, image)
    assert got is not None
    assert (str(got.version), got.source) == expected


@pytest.mark.parametrize("script,image,written", [
    ("pip install vllm && vllm serve m", "python:3.12", "vllm"),
    ("uv pip install -U vllm --torch-backend auto", None, "vllm"),
    ("pip install vllm>=0.9.0", None, "vllm>=0.9.0"),
    ('pip install "vllm~=0.10.0"', None, "vllm~=0.10.0"),
    ("pip install vllm==0.10.*", None, "vllm==0.10.*"),
    ("pip install vllm==${VLLM_VERSION} && vllm serve m", None, "vllm==${VLLM_VERSION}"),
    # an upgrade replaces an image's release with PyPI's newest
    ("pip install --upgrade vllm && vllm serve m", "vllm/vllm-openai:v0.9.2", "vllm"),
    ("pip install -qU vllm && vllm serve m", "vllm/vllm-openai:v0.9.2", "vllm"),
    # a range is not worked out against the image's release
    ("pip install 'vllm>=0.10' && vllm serve m", "vllm/vllm-openai:v0.9.2", "vllm>=0.10"),
])
def test_no_pin_is_an_unknown_release_sized_as_the_current_one(script, image, written):
    got = pip_pin(script, image)
    assert got is not None
    assert (str(got.version), got.source, got.detail) == (
        CURRENT_RELEASE, "assumed", f"`pip install {written}` {PINS_NOTHING}")
    assert got.note == f"vLLM {CURRENT_RELEASE}, assumed: `pip install {written}` {PINS_NOTHING}"


@pytest.mark.parametrize("script,image", [
    ("vllm serve m", "vllm/vllm-openai:v0.10.0"),
    ("pip install vllm-router && vllm-router --port 8000", "python:3.12"),  # another distribution
    ("pip install git+https://github.com/vllm-project/vllm@main", None),  # a source: the pin regex names no release
    ("# pip install vllm  # or custom installation\nvllm serve m", "ubuntu:22.04"),  # a comment installs nothing
    # an image with a release, a bare install without -U: pip finds vLLM installed and keeps it
    ("pip install vllm[audio,video] && exec python3 -m vllm.entrypoints.openai.api_server", "vllm/vllm-openai:v0.9.2"),
])
def test_nothing_installed_or_the_images_release_kept(script, image):
    assert pip_pin(script, image) is None


def test_the_note_names_the_pin():
    got = pip_pin('pip install "vllm[audio]==0.10.0" && vllm serve m')
    assert got is not None
    assert got.note == "vLLM 0.10.0 from `pip install vllm==0.10.0`"


@pytest.mark.parametrize("path,note,pip", [
    # nvcr.io/nvidia/pytorch:24.01-py3, `pip install vllm==0.6.6 --quiet` then the API server (a bash -c script)
    ("deepaksatna__Agentic-AI-Reasoning-and-Benchmarking-Framework/k8s__vllm-privileged.yaml",
     "vLLM 0.6.6 from `pip install vllm==0.6.6`", True),
    # vllm/vllm-openai:latest with `pip install vllm[audio,video]`: the image's vLLM stays, and its tag names none
    ("kubernetes-sigs__inference-perf/tests__optional__multimodal__cases__audio__vllm.yaml",
     f"vLLM {CURRENT_RELEASE}, assumed: `pip install vllm` {PINS_NOTHING}; declare it with the annotation "
     "shardwise.dev/vllm-version", True),
    # ubuntu:22.04 whose script says `# pip install vllm  # or custom installation`: a comment installs nothing
    ("vllm-project__production-stack/examples__disaggregated_prefill_orchestrated__decode-deploy.yaml",
     f"vLLM {CURRENT_RELEASE}, assumed: tag 22.04 names no vLLM release; declare it with the annotation "
     "shardwise.dev/vllm-version", False),
])
def test_the_release_of_public_manifests_that_install_vllm_with_pip(path, note, pip):
    """Public manifests vendored in the wide corpus (tests/corpus/wide/PROVENANCE.json: repository, path, commit,
    licence), read by the real adapters."""
    from shardwise.rules.adapters import read_inputs
    from shardwise.rules.capacity.group import engine_settings, vllm_version

    (g,) = read_inputs([str(WIDE / path)]).groups
    assert (vllm_version(g).note, engine_settings(g).pip_install) == (note, pip)


# lintspeed20: pip_pin and the FlashInfer check of the sizing look for an install only where the command line holds
# "tall" in some case (versions.has_install), sparing the scan of the pattern from each character elsewhere
def test_re_ignorecase_matches_t_a_and_l_to_exactly_what_lowers_to_them():
    import sys

    every = [chr(i) for i in range(sys.maxunicode + 1)]
    for letter in "tal":
        pattern = re.compile(letter, re.IGNORECASE)
        assert [c for c in every if pattern.fullmatch(c)] == [c for c in every if letter in c.lower()]


@pytest.mark.parametrize("script", [
    "pip install vllm==0.10.0 && vllm serve m", "PIP INSTALL VLLM", "uv  pip InStAlL -U vllm", "pıp ınstall vllm",
    "pip inſtall vllm", "pip İNSTALL vllm", "pip3 install 'vllm[audio]==0.9.2'", "python -m pip install vllm",
    "vllm serve m --port 8000", "pip instal vllm", "pip in stall vllm", "pip instaIl vllm", "",
])
def test_no_install_pattern_matches_where_has_install_says_none_can(script):
    from shardwise.rules.capacity.group import _PIP_VLLM
    from shardwise.rules.vllm.versions import _PIP_SPEC, has_install

    for pattern in (_PIP_SPEC, _PIP_VLLM):
        assert pattern.search(script) is None or has_install(script), (pattern.pattern, script)


def test_the_corpus_command_lines_that_install_vllm_hold_tall():
    from shardwise.rules.capacity.group import _PIP_VLLM
    from shardwise.rules.vllm.versions import _PIP_SPEC, has_install

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(WIDE.rglob("*")) if p.is_file()]
    matched = [t for t in texts if _PIP_SPEC.search(t) or _PIP_VLLM.search(t)]
    assert matched  # the corpus has commands that install vLLM with pip
    assert all(has_install(t) for t in matched)
