"""Docker Compose files are not inputs (shardwise lints Kubernetes objects), but one whose service starts vLLM says so
in its skip reason, by name (``docker-compose.vllm.yml``, met while searching or named) and by content (a Compose
file of another name), instead of the plain "Docker Compose file" of one that runs something else (mend4)."""

from __future__ import annotations

from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.load import load_text
from shardwise.rules.adapters.programs import COMPOSE_FILE

# The shapes of Compose files in the wide corpus, written here: a service of the vLLM image whose entrypoint is
# `vllm serve` in exec form (NapthaAI/node's compose-files/vllm-models/*.yml), and one beside a web app whose command
# is the server's flags under the image's own entrypoint (boanlab/KloudChat-LLM's docker-compose.vllm.yml).
VLLM_MODEL = '''services:
  phi-4:
    image: vllm/vllm-openai:latest
    entrypoint: [
      "vllm", "serve", "microsoft/phi-4",
      "--gpu-memory-utilization", "0.98",
      "--max-model-len", "16384"
    ]
    ipc: host
    deploy:
      resources:
        reservations:
          devices:
            - driver: "nvidia"
              capabilities: [ "gpu" ]
'''
WITH_APP = '''services:
  web:
    build: .
    ports: ["8080:8080"]
    environment:
      - OPENAI_BASE_URL=http://llm:8000/v1
  llm:
    image: ${VLLM_IMAGE:-vllm/vllm-openai:v0.8.5}
    command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
'''


def _starts(word: str, line: int) -> str:
    return (f"Docker Compose file that starts vLLM (`{word}` at line {line}): shardwise reads no Compose service, so "
            "that server is not linted; a Kubernetes manifest of it can be (written by hand, or by `kompose convert`)")


def test_a_compose_file_of_another_name_that_starts_vllm_says_so():
    assert load_text(VLLM_MODEL, "phi-4.yml").skipped_files == [("phi-4.yml", _starts("vllm/vllm-openai", 3))]


def test_a_compose_file_by_name_that_starts_vllm_says_so_searched_or_named(tmp_path):
    (tmp_path / "docker-compose.vllm.yml").write_text(WITH_APP)
    for path in (str(tmp_path), str(tmp_path / "docker-compose.vllm.yml")):
        inv = read_inputs([path], jobs=1)
        assert [why for _, why in inv.skipped_files] == [_starts("vllm/vllm-openai", 8)]


def test_a_compose_file_that_runs_no_vllm_is_a_plain_compose_file(tmp_path):
    other = WITH_APP.replace("${VLLM_IMAGE:-vllm/vllm-openai:v0.8.5}", "ghcr.io/huggingface/text-generation-inference")
    other = other.replace(" --max-model-len 8192", "")
    assert load_text(other, "stack.yml").skipped_files == [("stack.yml", COMPOSE_FILE)]
    (tmp_path / "compose.yaml").write_text(other)
    commented = "# the llm service could run vllm/vllm-openai instead\n" + other
    (tmp_path / "docker-compose.yml").write_text(commented)
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [why for _, why in inv.skipped_files] == [COMPOSE_FILE, COMPOSE_FILE]
