"""The evidence table of docs/capacity-model.md, "The graphs captured after sizing, log by log" (issue 28, margin15).

Every held-out start-up log of vLLM 0.10 - 0.19 that prints what the CUDA graph capture took has a row there, with
the graphs vLLM captures and shardwise's estimate beside the logged figure. These tests rebuild the table from the
logs and the model and hold the docs to it: a change to the graph term, the capture sizes or the sets fails here
until the table (and what the docs conclude from it) is brought up to date.
"""

from __future__ import annotations

import re
from pathlib import Path

from shardwise.rules.capacity import sizing
from shardwise.rules.vllm import versions
from startup_logs import Log, load, size

DOC = Path(__file__).resolve().parents[2] / "docs" / "capacity-model.md"
HEADING = "**The graphs captured after sizing, log by log (issue 28, margin15).**"
#: how the logs (or the case's own summary of them) quote the capture's fall in free memory
CAPTURE = (r"[Gg]raph capturing (?:finished in [0-9.]+ secs?, )?took (-?[0-9.]+) GiB", r"graphs took (-?[0-9.]+) GiB",
           r"and (-?[0-9.]+) GiB for CUDAGraph memory", r"graphs (-?[0-9.]+), Available")


def _logged(log: Log) -> float | None:
    for pattern in CAPTURE:
        found = re.search(pattern, log.logged)
        if found:
            return float(found.group(1))
    return None


def _row(log: Log, logged: float) -> str:
    sized = size(log)
    sizes, full = sizing.cudagraph_captures(log.model, versions.behaviour(log.release), sized.max_num_seqs,
                                            sized.max_num_batched_tokens, log.settings.cudagraph_mode)
    layers = log.model.num_hidden_layers
    graphs = len(sizes) * (layers + 1) + len(full)
    kind = "MoE" if log.model.moe is not None else "dense"
    estimate = f"{sized.cudagraph_gib_per_gpu:.2f}" + (" (budget)" if sized.cudagraphs_in_budget else "")
    return (f"| {log.release} | {log.model.id} | {log.gpu} | {log.settings.tp} | {kind} | {log.model.hidden_size} / "
            f"{layers} | {sized.max_num_seqs} / {sized.max_num_batched_tokens} | {len(sizes)} + {len(full)} | "
            f"{sum(sizes):,} + {sum(full):,} | {logged:.2f} | {estimate} | {logged * 1024 / graphs:.2f} |")


def _expected_rows() -> list[str]:
    rows = []
    for log in load():
        logged = _logged(log)
        major, minor = (int(p) for p in log.release.split(".")[:2])
        if logged is None or not (major == 0 and 10 <= minor <= 19):
            continue
        rows.append(_row(log, logged))
    return rows


def _doc_rows() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(HEADING) == 1
    section = text.split(HEADING, 1)[1]
    table = section.split("|---|", 1)[1].split("\n\n", 1)[0]
    return [line for line in table.splitlines()[1:] if line.startswith("| 0.")]


def test_the_docs_table_is_every_log_that_prints_the_capture():
    expected = _expected_rows()
    assert len(expected) == 27  # set 28: the RTX A5000's 0.13.0 Qwen2.5-14B-AWQ start (1.18 GiB)
    assert sorted(_doc_rows()) == sorted(expected)


def test_the_rows_the_conclusions_rest_on():
    rows = {tuple(cell.strip() for cell in row.strip("|").split("|")[:4]): row for row in _doc_rows()}
    # gpt-oss-20b with the 0.13 warm-up: 0.86 GiB logged for 83 + 35 graphs of 24 + 1 pieces each, 0.64 modelled
    gpt_oss = rows[("0.13.0", "huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", "GB10", "1")]
    assert gpt_oss.endswith("| 83 + 35 | 35,335 + 4,231 | 0.86 | 0.64 | 0.42 |")
    # a dense 0.17 row: the "warm" bytes give a fifth of what the capture took
    llama = rows[("0.17.1", "meta-llama/Llama-3.1-8B-Instruct", "A100-80GB", "1")]
    assert llama.endswith("| 51 + 35 | 10,503 + 4,231 | 0.50 | 0.11 | 0.30 |")
