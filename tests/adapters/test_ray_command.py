"""Whether a pod's containers run Ray (``PodPorts.ray``, read by SW301): the command's pattern is searched only where
the command holds the words every branch of it spells (lintspeed25), with the same verdict as searching every
command."""

from __future__ import annotations

import itertools

import pytest
from shardwise.rules.adapters.k8s.workloads import _RAY_COMMAND, _may_name_ray, runs_ray
from shardwise.rules.model import UNKNOWN

VLLM = "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --port 8000"


@pytest.mark.parametrize(("command", "args", "expected"), [
    # one command per branch of the pattern, each as a shell line, as public manifests write them
    # (a `ray start`: the Ray ports it listens on, a head's, a worker's agent port; mend11; a head's dashboard only
    # with --dashboard-host beyond the loopback, review37)
    (["sh", "-c"], ["ray start --head --port=6379 && " + VLLM], frozenset({6379, 10001, 52365})),
    (["bash", "-c"], ["/usr/bin/ray start --address=$(RAY_HEAD):6379 --block"], frozenset({52365})),
    (["serve", "run", "config.yaml"], [], True),
    (["sh", "-c"], ["serve deploy /home/ray/serve_config.yaml"], True),
    (["python3", "-m", "ray.scripts.scripts", "start"], [], True),
    (["python3", "-m", "ray", "start"], [], frozenset({52365})),
    (["python3", "-c"], ["import ray; ray.init(address='auto')"], True),
    (["vllm", "serve", "m"], ["--distributed-executor-backend", "ray"], True),
    (["vllm", "serve", "m"], ["--data-parallel-backend=ray"], True),
    # vLLM's multi-node-serving.sh worker runs `ray start --address=... --block` (review44): a Ray worker's ports
    (["sh", "-c"], ["bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"], frozenset({52365})),
    # names that spell the words and are no Ray command: the pattern decides, as before
    (["sh", "-c"], ["bash my-array-job.sh worker --array_address=$(LEADER_ADDRESS)"], False),
    (["sh", "-c"], ["vllm serve m --served-model-name array-runner"], False),
    (["vllm", "serve", "m"], ["--distributed-executor-backend", "mp"], False),
    # neither word: no search
    (["vllm", "serve"], ["m", "--port", 8000, 0.9], False),
    (None, None, False),
])
def test_runs_ray_by_command(command: list[object] | None, args: list[object] | None, expected: object) -> None:
    container: dict[str, object] = {"name": "c", "image": "vllm/vllm-openai:v0.10.2"}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    assert runs_ray([container]) == expected


def test_runs_ray_unknown_and_image() -> None:
    assert runs_ray([{"image": "vllm/vllm-openai:v0.10.2", "args": [UNKNOWN]}]) is UNKNOWN
    assert runs_ray([{"image": "rayproject/ray:2.40.0", "command": ["python", "app.py"]}]) is True


def test_the_words_are_needed_by_every_match() -> None:
    """Every string built from the pattern's pieces and vLLM's words that the pattern matches holds the words (the
    test never skips a match), and a string without them is never matched."""
    pieces = ["ray", "start", "serve", "run", "deploy", "-m", "import", "ray.init", "--distributed-executor-backend",
              "--data-parallel-backend=", "'", "vllm", "--port", "8000", "/", ";", "&&", "(", "rayx", "_ray"]
    matched = 0
    for n in (1, 2, 3):
        for words in itertools.product(pieces, repeat=n):
            for sep in (" ", ""):
                text = sep.join(words)
                if _RAY_COMMAND.search(text):
                    matched += 1
                    assert _may_name_ray(text), text
    assert matched == 1855
    assert not _may_name_ray(VLLM)
