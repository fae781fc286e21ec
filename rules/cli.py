"""The ``shardwise`` command: ``lint``, ``plan``, ``rules``, ``explain`` and ``docs``.

Exit codes: 0 clean, 1 blocking findings (or ``docs --check`` found stale pages, or ``plan`` found
no layout without a mandatory finding), 2 usage or input error. ``lint`` never stops at an input
error: it reads and lints everything else, writes every report asked for with the input errors in
it (``file:line: error: message`` in text; stderr gets ``shardwise: error: file:line: message``
when no text report is on the terminal), then exits 2. A usage error (a bad flag, a config file
that cannot be read) stops before linting. Never a traceback.

Imports are lazy: this module loads only :mod:`argparse` at import time, and each command imports
what it needs (jinja2 only for Markdown, pydantic only when an adapter reads a stack file), so
``shardwise lint one.yaml`` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

PROG = "shardwise"
FORMATS = ("text", "json", "sarif", "github", "markdown")  # as rules.report.FORMATS (not imported: start-up)
TP_CANDIDATES = (1, 2, 4, 8)


class _Usage(Exception):
    """A command-line value that argparse's types could not reject (exit 2)."""


def _ranged(kind: type, lo: float, hi: float, lo_open: bool = False) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` in [lo, hi] (or (lo, hi] with ``lo_open``)."""
    noun = "an integer" if kind is int else "a number"
    bounds = f"{'greater than' if lo_open else 'from'} {lo:g} {'up to' if lo_open else 'to'} {hi:g}"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {noun} {bounds}, got {text!r}") from None
        if value != value or (value <= lo if lo_open else value < lo) or value > hi:  # NaN, bounds
            raise argparse.ArgumentTypeError(f"must be {noun} {bounds}, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _format(spec: str) -> tuple[str, str | None]:
    from .report import parse_format

    try:
        return parse_format(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _max_model_len(text: str) -> Any:
    """An argparse type: a token count from 16 up to 10,000,000, or ``auto`` (``-1``)."""
    if text.strip().lower() in ("auto", "-1"):
        return "auto"
    return _ranged(int, 16, 10_000_000)(text)


def _version() -> str:
    from shardwise import __version__

    return __version__


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """The options of one lint run, shared by ``lint`` and ``diff``."""
    p.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB",
        help="do not read paths matching GLOB (gitignore-like; repeatable; added to .shardwiseignore and the "
        "config file's exclude)",
    )
    p.add_argument(
        "--fail-on", choices=("advisory", "mandatory"), default=None,
        help="lowest level that fails the run (default: mandatory, or fail_on in the config file)",
    )
    p.add_argument(
        "--config", metavar="FILE",
        help="config file (default: shardwise.toml or .shardwise.yaml in the current directory)",
    )
    p.add_argument(
        "--kv-reserve", type=_ranged(float, 1.0, 10.0), metavar="X",
        help="weights × X must fit the GPUs (room for KV cache and activations; default 1.4)",
    )
    p.add_argument(
        "--p95-context", type=_ranged(int, 1, 10_000_000), metavar="N",
        help="p95 prompt+output tokens, for workloads that do not declare one",
    )
    p.add_argument("--jobs", "-j", type=_ranged(int, 1, 256), default=None, metavar="N",
                   help="processes reading files when there are many (default: the CPUs available)")
    p.add_argument(
        "--model-dir", action="append", default=[], metavar="DIR",
        help="a directory of <org>/<name>/config.json for models the catalog lacks (repeatable; adds to "
        "model_dirs in the config file)",
    )
    p.add_argument(
        "--values", "-f", action="append", default=[], metavar="FILE",
        help="a Helm values file for the chart directories given as PATH (repeatable, as helm template takes them)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a Helm value for the chart directories given as PATH (repeatable, as helm template --set)",
    )


def _diff_format(spec: str) -> tuple[str, str | None]:
    fmt, path = _format(spec)
    if fmt not in ("markdown", "json"):
        raise argparse.ArgumentTypeError(f"diff writes markdown or json, not {fmt!r}")
    return fmt, path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Capacity-aware checks for serving LLMs with vLLM on Kubernetes.",
        epilog="Exit codes: 0 clean, 1 blocking findings, 2 usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    lint = sub.add_parser(
        "lint",
        help="check stack configs, Kubernetes manifests and Pulumi preview/state JSON",
        description="Check stack configs, Kubernetes manifests (plain, Helm-rendered, multi-document) and "
        "`pulumi preview --json` / `pulumi stack export` files. Directories are searched.",
    )
    lint.add_argument("paths", nargs="+", metavar="PATH", help="files or directories ('-' for stdin)")
    lint.add_argument(
        "--format", action="append", type=_format, metavar="FMT[=FILE]", dest="formats",
        help=f"a report: {', '.join(FORMATS)} (default text), to FILE or stdout; repeat it for several reports "
        "from one run: --format sarif=shardwise.sarif --format github",
    )
    lint.add_argument("--output", "-o", metavar="FILE",
                      help="write the report (the one --format without =FILE) to FILE instead of stdout")
    _add_run_options(lint)
    lint.add_argument("--no-color", action="store_true", help="never colour the text output")
    lint.add_argument(
        "--fetch-configs", action="store_true",
        help="download the config.json of models shardwise does not know into the Hugging Face cache "
        "(needs huggingface_hub and network access; HF_TOKEN for gated models)",
    )
    lint.set_defaults(func=cmd_lint)

    diff = sub.add_parser(
        "diff",
        help="what a change does to GPUs, nodes, KV cache, cost and findings, against a git ref",
        description="Lint the tree at BASE_REF (a git commit, branch or tag of the repository in the current "
        "directory) and the working tree, and report per workload and in total: GPUs by type, nodes, replicas, "
        "TP/PP/DP, KV cache tokens and concurrency at the p95 context, on-demand cost per hour and month, cost "
        "per million output tokens where a throughput is declared, and the findings added and fixed. Exit 0, or "
        "2 when the ref cannot be read or an input of the working tree cannot be read.",
    )
    diff.add_argument("base", metavar="BASE_REF", help="git ref of the base (e.g. origin/main, HEAD~1)")
    diff.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                      help="files or directories, relative to the current directory (default: .)")
    diff.add_argument(
        "--format", action="append", type=_diff_format, metavar="FMT[=FILE]", dest="formats",
        help="markdown (default) or json, to FILE or stdout; repeatable: --format markdown=diff.md --format "
        "json=diff.json",
    )
    diff.add_argument("--output", "-o", metavar="FILE",
                      help="write the report (the one --format without =FILE) to FILE instead of stdout")
    _add_run_options(diff)
    diff.set_defaults(func=cmd_diff)

    plan = sub.add_parser(
        "plan",
        help="size one replica of a model on a GPU and recommend a tensor-parallel size",
        description="Size one vLLM replica (weights, KV cache, concurrency) and run the capacity rules on "
        "it. Without --tp, tries TP 1, 2, 4 and 8 and recommends the smallest without a mandatory finding; when "
        "none holds the batch width asked, lowers max_num_seqs to what each KV cache holds and recommends the "
        "layout that holds the most sequences per GPU. Exit 1 when the plan has a mandatory finding.",
    )
    plan.add_argument("--model", required=True, metavar="M",
                      help="catalog model id, quantised re-upload name, or path to a config.json or its folder")
    plan.add_argument("--base-model", metavar="ID", help="catalog model whose shape an unknown model id has")
    plan.add_argument("--gpu", metavar="G", help="GPU name, e.g. H100, A10G, L40S (see the catalog)")
    plan.add_argument("--gpu-memory-gib", type=_ranged(float, 0, 4096, lo_open=True), metavar="X",
                      help="memory of one GPU as CUDA reports it; without --gpu, a custom GPU")
    plan.add_argument("--gpus-per-node", type=_ranged(int, 1, 64), default=8, metavar="N",
                      help="GPUs per node, for the replica count (default 8)")
    plan.add_argument("--tp", type=_ranged(int, 1, 64), metavar="N", help="tensor_parallel_size")
    plan.add_argument("--pp", type=_ranged(int, 1, 64), default=1, metavar="N", help="pipeline_parallel_size")
    plan.add_argument("--gpu-memory-utilization", type=_ranged(float, 0, 1, lo_open=True), default=0.9,
                      metavar="U", help="fraction of GPU memory vLLM may use (default 0.9)")
    plan.add_argument("--vllm-version", metavar="X.Y.Z",
                      help="the vLLM release to size for (default: the current release, said in the output)")
    plan.add_argument("--max-model-len", type=_max_model_len, metavar="L",
                      help="longest prompt+output, or auto (vLLM 0.14+ fits it to the KV cache; default: the "
                      "model's context limit)")
    plan.add_argument("--max-num-seqs", type=_ranged(int, 1, 65_536), metavar="S",
                      help="sequences batched at once: the concurrency you declare (default: vLLM's, 256 or "
                      "1024 by GPU and release)")
    plan.add_argument("--max-num-batched-tokens", type=_ranged(int, 16, 10_000_000), metavar="T",
                      help="token budget per scheduler step (default: vLLM's for the release and GPU)")
    plan.add_argument("--dp", type=_ranged(int, 1, 256), default=1, metavar="N",
                      help="data_parallel_size: engines per replica group (expert parallelism spreads experts)")
    plan.add_argument("--enable-expert-parallel", action="store_true",
                      help="spread a mixture-of-experts model's experts over TP × DP ranks")
    plan.add_argument("--p95-context", type=_ranged(int, 1, 10_000_000), metavar="N",
                      help="p95 prompt+output tokens of the real traffic")
    plan.add_argument("--dtype", choices=("auto", "bfloat16", "float16", "float32"), default="auto")
    plan.add_argument("--quantization", metavar="Q",
                      help="weight quantisation: awq, gptq, fp8, int8, mxfp4, nvfp4, ...")
    plan.add_argument("--kv-cache-dtype", choices=("auto", "fp8"), default="auto")
    plan.add_argument("--weights-gib", type=_ranged(float, 0, 100_000, lo_open=True), metavar="W",
                      help="weights of the whole model in GiB, instead of params × bytes per param")
    plan.add_argument("--kv-reserve", type=_ranged(float, 1.0, 10.0), default=1.4, metavar="X",
                      help="KV reserve of the seeds' gpus_needed (default 1.4)")
    plan.add_argument("--json", action="store_true", help="print JSON")
    plan.set_defaults(func=cmd_plan)

    rules = sub.add_parser("rules", help="list every rule", description="List every rule.")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.set_defaults(func=cmd_rules)

    explain = sub.add_parser("explain", help="print one rule's documentation",
                             description="Print a rule's summary, why, examples, remediation and references.")
    explain.add_argument("code", metavar="CODE", help="rule code (SW104) or name (sharded-model-that-fits)")
    explain.set_defaults(func=cmd_explain)

    pack = sub.add_parser(
        "policy-pack-dir", help="write a policy pack directory for this installation and print it",
        description="Write a CrossGuard policy pack directory that runs the shardwise installed in this Python "
                    "environment and print it, for `pulumi preview --policy-pack \"$(shardwise policy-pack-dir)\"` "
                    "from any project. The environment needs shardwise[pulumi].")
    pack.add_argument("--out", metavar="DIR", help="write it there (default: a folder in ~/.cache/shardwise)")
    pack.set_defaults(func=cmd_policy_pack_dir)
    docs = sub.add_parser("docs", help="generate or check the rule documentation",
                          description="Write one Markdown page per rule and an index; --check only compares.")
    docs.add_argument("--check", action="store_true", help="exit 1 if a page is missing or stale")
    docs.add_argument("--out", metavar="DIR", help="output folder (default: the package's rules/docs)")
    docs.add_argument("--readme", metavar="FILE",
                      help="update (or --check) the rule table between <!-- rules:start/end --> in FILE instead")
    docs.set_defaults(func=cmd_docs)
    return parser


def _err(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    from .errors import ShardwiseError

    try:
        return int(args.func(args))
    except (ShardwiseError, _Usage) as e:
        _err(str(e))
        return 2
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            return 1
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        _err(f"{where}{e.strerror or e}")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - a bug must still fail the run with a clear line, not exit 0
        if os.environ.get("SHARDWISE_DEBUG"):
            raise
        _err(f"internal error: {type(e).__name__}: {e} (set SHARDWISE_DEBUG=1 for the traceback; please report it)")
        return 2


def cmd_policy_pack_dir(args: argparse.Namespace) -> int:
    from .crossguard import pack_dir

    print(pack_dir(args.out))
    return 0


# --------------------------------------------------------------------------------------------- lint


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.no_color or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _lint_options(args: argparse.Namespace) -> Any:
    from .run import LintOptions

    return LintOptions(
        config=args.config, fail_on=args.fail_on, kv_reserve=args.kv_reserve, p95_context=args.p95_context,
        exclude=list(args.exclude), model_dirs=list(args.model_dir), jobs=args.jobs,
        fetch_configs=getattr(args, "fetch_configs", False), values=list(args.values), set_values=list(args.set),
    )


def cmd_lint(args: argparse.Namespace) -> int:
    from .report import destinations, render
    from .run import lint_report

    try:
        outputs = destinations(args.formats, args.output)
    except ValueError as e:
        raise _Usage(str(e)) from None
    report = lint_report(args.paths, _lint_options(args))
    failed: list[str] = []
    text_on_stdout = False
    for fmt, path in outputs:
        if path is None:
            text_on_stdout = fmt == "text"
            sys.stdout.write(render(report, fmt, color=text_on_stdout and _use_color(args, sys.stdout)))
            sys.stdout.flush()
            continue
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(render(report, fmt))
        except OSError as e:
            failed.append(f"{path}: {e.strerror or e}")
    for message in failed:
        _err(message)
    if failed:
        return 2
    if not text_on_stdout:  # no report on the terminal: the input errors and the verdict go to stderr
        for error in report.errors:
            _err(str(error))
        print(report.summary_line(), file=sys.stderr)
    return report.exit_code


def cmd_diff(args: argparse.Namespace) -> int:
    from .diff import diff_refs, render_diff
    from .report import destinations

    try:
        outputs = destinations(args.formats or [("markdown", None)], args.output)
    except ValueError as e:
        raise _Usage(str(e)) from None
    result = diff_refs(args.base, args.paths, _lint_options(args))
    for fmt, path in outputs:
        text = render_diff(result, fmt)
        if path is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
    for error in result.head_errors:
        _err(str(error))
    print(result.summary_line(), file=sys.stderr)
    return 2 if result.head_errors else 0


# -------------------------------------------------------------------------------------- rules/explain


def _meta_dict(meta: Any) -> dict[str, Any]:
    from dataclasses import asdict

    d = asdict(meta)
    d["references"] = list(meta.references)
    d["doc_url"] = meta.doc_url
    return d


def cmd_rules(args: argparse.Namespace) -> int:
    from .registry import ALL_RULES

    metas = [r.meta for r in ALL_RULES]
    if args.format == "json":
        import json

        print(json.dumps([_meta_dict(m) for m in metas], indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        from .docgen import rules_table_markdown

        sys.stdout.write(rules_table_markdown(metas))
    else:
        w_name = max(len(m.name) for m in metas)
        for m in metas:
            print(f"{m.code}  {m.name:<{w_name}}  {m.enforcement:<9}  {m.summary}")
    return 0


def _find_meta(code: str) -> Any:
    from .registry import ALL_RULES

    metas = [r.meta for r in ALL_RULES]
    key = code.strip()
    for m in metas:
        if m.code == key.upper() or m.name == key.lower():
            return m
    import difflib

    close = [m.code for m in metas if key.upper().startswith("SW") and m.code.startswith(key.upper())][:5]
    if not close:
        names = [m.code for m in metas] + [m.name for m in metas]
        close = difflib.get_close_matches(key.upper() if key.upper().startswith("SW") else key.lower(),
                                          names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `shardwise rules` lists them"
    raise _Usage(f"unknown rule '{code}'{hint}")


def explain_text(meta: Any, width: int = 100) -> str:
    import textwrap

    def para(title: str, body: str) -> list[str]:
        wrapped = [textwrap.fill(p, width, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False,
                                 break_long_words=False)
                   for p in body.strip().split("\n\n")]
        return [f"{title}:", *wrapped, ""]

    def block(title: str, body: str) -> list[str]:
        return [f"{title}:", *("    " + line for line in body.strip().splitlines()), ""]

    out = [f"{meta.code} {meta.name} ({meta.enforcement_text}, severity {meta.severity}, scope {meta.scope})", ""]
    out += para("Summary", meta.summary)
    out += para("Why", meta.why)
    out += block("Bad", meta.bad_example)
    out += block("Good", meta.good_example)
    out += para("Remediation", meta.remediation)
    if meta.references:
        out += ["References:", *(f"  - {r}" for r in meta.references), ""]
    out.append(f"Docs: {meta.doc_url}")
    return "\n".join(out) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    sys.stdout.write(explain_text(_find_meta(args.code)))
    return 0


# ------------------------------------------------------------------------------------------------ docs


def cmd_docs(args: argparse.Namespace) -> int:
    from . import docgen

    if args.readme:
        readme_stale = docgen.update_readme(args.readme, check=args.check)
        if args.check and readme_stale:
            print(f"{args.readme}: the rule table is stale; run `shardwise docs --readme {args.readme}`",
                  file=sys.stderr)
            return 1
        if readme_stale:
            print(f"updated {args.readme}")
        return 0
    out = args.out or docgen.DEFAULT_OUT
    if args.check:
        stale = docgen.stale_pages(out)
        for p in stale:
            print(f"stale: {p}", file=sys.stderr)
        if stale:
            cmd = "shardwise docs" + (f" --out {args.out}" if args.out else "")
            print(f"{len(stale)} rule page(s) out of date; run `{cmd}`", file=sys.stderr)
            return 1
        print(f"rule docs in {out} are up to date")
        return 0
    for p in docgen.write_docs(out):
        print(f"wrote {p}")
    return 0


# ------------------------------------------------------------------------------------------------ plan


def _load_model(spec: str, base_model: str | None) -> Any:
    from .catalog import find_model, load_local_model
    from .errors import InputError

    if os.path.exists(spec):
        return load_local_model(spec)
    if spec.startswith(("/", "./", "../", "~")) or spec.endswith(".json"):
        raise InputError("no such file or directory", spec)
    return find_model(spec, base_model)


def _with_weights(model: Any, weights_gib: float, precision: str) -> Any:
    """A copy of ``model`` whose parameter count gives ``weights_gib`` at ``precision``.

    The rules size a replica from the model's parameters; this keeps their findings consistent with
    ``--weights-gib`` (embeddings stay 16-bit when the linear layers are quantised).
    """
    from dataclasses import replace

    from .sizing import BYTES_PER_PARAM, GIB

    total = weights_gib * GIB
    bpp = BYTES_PER_PARAM[precision]
    if bpp >= 2.0:
        params = total / bpp
    else:
        embed = model.embedding_params
        params = (total - 2.0 * embed) / bpp + embed
        if params < embed:
            params = total / 2.0
    return replace(model, params=max(1, round(params)))


def _layout(tp: int, pp: int, per_node: int) -> tuple[int | None, str]:
    gpus = tp * pp
    if gpus <= per_node:
        n = per_node // gpus
        layout = f"TP{tp}" + (f" × PP{pp}" if pp > 1 else "")
        return n, f"{layout} × {n} replica{'s' if n != 1 else ''} per {per_node}-GPU node"
    nodes = -(-gpus // per_node)
    return None, f"TP{tp} × PP{pp} = {gpus} GPUs: one replica spans {nodes} {per_node}-GPU nodes"


def _plan_one(args: argparse.Namespace, model: Any, rules_model: Any, gpu: Any, mem: float, tp: int,
              max_num_seqs: int | None) -> dict:
    from .engine import LintConfig, run_rules
    from .model import EngineArgs, Inventory, ServingGroup
    from .registry import ALL_RULES
    from .sizing import size_replica
    from .vllm_versions import resolve

    pp = args.pp
    sizing = size_replica(
        model, mem, tp=tp, pp=pp, dp=args.dp, expert_parallel=args.enable_expert_parallel,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=args.max_model_len, max_num_seqs=max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens, expected_context=args.p95_context,
        dtype=args.dtype, quantization=args.quantization, kv_cache_dtype=args.kv_cache_dtype,
        weights_gib=args.weights_gib, gpu=gpu,
        vllm_version=resolve(args.vllm_version, None, missing="--vllm-version not given"),
    )
    engine = EngineArgs(
        model=model.id, tensor_parallel_size=tp, pipeline_parallel_size=pp, data_parallel_size=args.dp,
        enable_expert_parallel=args.enable_expert_parallel,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=None if args.max_model_len == "auto" else args.max_model_len,
        max_num_seqs=max_num_seqs, max_num_batched_tokens=args.max_num_batched_tokens,
        dtype=args.dtype, quantization=args.quantization, kv_cache_dtype=args.kv_cache_dtype,
        extra={"max_model_len": "auto"} if args.max_model_len == "auto" else {},
    )
    group = ServingGroup(
        name=model.id, kind="plan", namespace="", engine=engine, model=rules_model, replicas=1,
        gpus_per_pod=tp * pp * args.dp, placement_known=False, gpu_override=gpu,
        gpu_memory_gib_override=mem if args.gpu_memory_gib else None, p95_context=args.p95_context,
        vllm_version=args.vllm_version,
    )
    config = LintConfig(kv_reserve=args.kv_reserve, p95_context_tokens=args.p95_context)
    findings = run_rules(ALL_RULES, Inventory(groups=[group]), config)
    return {
        "sizing": sizing,
        "findings": [{"code": f.code, "name": f.name, "level": f.level, "message": f.message}
                     for f in findings if not f.suppressed],
        "blocked": any(f.blocking for f in findings),
        # a layout plan recommends: nothing blocks, vLLM starts beyond the error band, the batch width fits
        "sound": (not any(f.blocking for f in findings) and sizing.verdict == "starts"
                  and sizing.concurrency_at_expected_context >= sizing.max_num_seqs),
        "tp": tp,
        "adjusted_max_num_seqs": False,
        "requested_max_num_seqs": sizing.max_num_seqs,
    }


def _lowered(args: argparse.Namespace, model: Any, rules_model: Any, gpu: Any, mem: float, r: dict) -> dict | None:
    """The candidate ``r`` with max_num_seqs lowered to what its KV cache holds at the expected context,
    when that clears every mandatory finding; else None."""
    fits = r["sizing"].concurrency_at_expected_context
    if not 1 <= fits < r["sizing"].max_num_seqs:
        return None
    lowered = _plan_one(args, model, rules_model, gpu, mem, r["tp"], fits)
    if not lowered["sound"]:
        return None
    lowered["adjusted_max_num_seqs"] = True
    lowered["requested_max_num_seqs"] = r["requested_max_num_seqs"]
    lowered["requested_findings"] = r["findings"]
    return lowered


def cmd_plan(args: argparse.Namespace) -> int:
    from .errors import InputError
    from .sizing import BYTES_PER_PARAM, GB, GIB, QUANTIZATION_PRECISION, min_gpus, weight_precision

    if args.gpu is None and args.gpu_memory_gib is None:
        raise _Usage("plan needs --gpu NAME (e.g. H100) or --gpu-memory-gib GIB (memory of one GPU as CUDA "
                     "reports it)")
    if args.quantization and args.quantization.lower() not in QUANTIZATION_PRECISION:
        raise _Usage(f"unknown --quantization '{args.quantization}'; expected one of: "
                     f"{', '.join(sorted(QUANTIZATION_PRECISION))}")
    if args.vllm_version is not None:
        from .vllm_versions import parse_version

        if parse_version(args.vllm_version) is None:
            raise _Usage(f"--vllm-version '{args.vllm_version}' is not a vLLM release number (e.g. 0.11.0)")
    if args.tp is not None and args.tp * args.pp > 1024:
        raise _Usage(f"--tp {args.tp} × --pp {args.pp} = {args.tp * args.pp} GPUs per replica is absurd")
    model = _load_model(args.model, args.base_model)
    gpu: Any = None  # None: a custom GPU; the rules size against gpu_memory_gib_override alone
    if args.gpu:
        from .catalog import find_gpu

        gpu = find_gpu(args.gpu)
        gpu_gb = gpu.memory_gb
        mem = float(args.gpu_memory_gib or gpu.memory_gib)
    else:
        gpu_gb = args.gpu_memory_gib * GIB / GB
        mem = float(args.gpu_memory_gib)
    precision = weight_precision(model, args.dtype, args.quantization)
    if precision not in BYTES_PER_PARAM:
        raise InputError(f"no bytes-per-parameter figure for precision {precision}", args.model)
    rules_model = _with_weights(model, args.weights_gib, precision) if args.weights_gib else model

    searching = args.tp is None
    tps = [args.tp] if not searching else [t for t in TP_CANDIDATES if t <= args.gpus_per_node] or [1]
    results = [_plan_one(args, model, rules_model, gpu, mem, tp, args.max_num_seqs) for tp in tps]
    chosen = next((r for r in results if r["sound"]), None)
    if chosen is None and not searching and not results[0]["blocked"]:
        chosen = results[0]  # the layout asked for: shown with its findings, not replaced
    if chosen is None and searching:
        # No layout holds the batch width as asked. The layout is what is being chosen and the batch
        # width is a setting of it: lower max_num_seqs to what each KV cache holds (more replicas carry
        # the rest of the load) and pick the layout that holds the most sequences per GPU (the smaller
        # TP on a tie), rather than shard a model that fits or keep a replica that holds almost nothing.
        best = None
        for i, r in enumerate(results):
            lowered = _lowered(args, model, rules_model, gpu, mem, r)
            if lowered is not None:
                results[i] = lowered
                per_gpu = lowered["sizing"].max_num_seqs / lowered["sizing"].gpus
                if best is None or per_gpu > best[0]:
                    best = (per_gpu, lowered)
        chosen = best[1] if best else None
    shown = chosen or results[-1]
    replicas, layout_text = _layout(shown["tp"], args.pp, args.gpus_per_node)
    recommended = None
    if chosen is not None and searching:
        s = chosen["sizing"]
        text = f"recommended: {layout_text}"
        if chosen["adjusted_max_num_seqs"]:
            asked = (f"--max-num-seqs {args.max_num_seqs}" if args.max_num_seqs else
                     f"vLLM's default of {results[0]['requested_max_num_seqs']}")
            text += (f", --max-num-seqs {s.max_num_seqs} (the KV cache holds {s.max_num_seqs} sequences of "
                     f"{s.expected_context:,} tokens; {asked} does not fit: add replicas for the rest of the load)")
        recommended = {
            "tensor_parallel_size": chosen["tp"],
            "pipeline_parallel_size": args.pp,
            "replicas_per_node": replicas,
            "gpus_per_node": args.gpus_per_node,
            "max_num_seqs": s.max_num_seqs,
            "max_num_seqs_lowered": chosen["adjusted_max_num_seqs"],
            "text": text,
        }
    need = min_gpus(model, gpu_gb, precision, args.kv_reserve, 0.90, weights_gib=args.weights_gib)

    if args.json:
        import json

        out: dict[str, Any] = {
            "model": model.id,
            "base_model": model.base_model,
            "params": rules_model.params,
            "gpu": gpu.name if gpu else "custom",
            "gpus_per_node": args.gpus_per_node,
        }
        out.update(shown["sizing"].as_dict())
        out["findings"] = shown["findings"]
        out["gpus_needed"] = need
        out["recommended"] = recommended
        if searching:
            out["candidates"] = [_candidate(r) for r in results]
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(_plan_text(model, gpu, mem, shown, need, results if searching else None,
                                    recommended, layout_text, args))
    if chosen is None:
        if searching:
            print(f"{PROG}: no tensor-parallel size in {', '.join(map(str, tps))} (× PP{args.pp}) is free of "
                  "mandatory findings; try --pp, a GPU with more memory, --quantization or a shorter "
                  "--max-model-len", file=sys.stderr)
        return 1
    return 0


def _candidate(r: dict) -> dict:
    s = r["sizing"]
    return {
        "tensor_parallel_size": s.tensor_parallel_size,
        "pipeline_parallel_size": s.pipeline_parallel_size,
        "gpus": s.gpus,
        "weights_gib_per_gpu": round(s.weights_gib_per_gpu, 3),
        "kv_cache_gib_per_gpu": round(s.kv_cache_gib_per_gpu, 3),
        "kv_cache_tokens": s.kv_cache_tokens,
        "max_concurrency": round(s.max_concurrency, 3),
        "starts": s.starts,
        "verdict": s.verdict,
        "max_num_seqs": s.max_num_seqs,
        "max_num_seqs_lowered": r["adjusted_max_num_seqs"],
        "mandatory": [f["code"] for f in r["findings"] if f["level"] == "mandatory"],
        "findings": r["findings"],
    }


def _table(rows: list[tuple[str, str]]) -> list[str]:
    w = max(len(k) for k, _ in rows)
    return [f"  {k:<{w}}  {v}" for k, v in rows]


def _starts_text(s: Any) -> str:
    if s.verdict == "starts":
        return "yes"
    if s.verdict == "may-refuse":
        return ("maybe: within the estimate's error band" +
                (f" ({s.refusal})" if s.refusal else ""))
    return f"no: {s.refusal}" if s.refusal else "no"


def _plan_text(model: Any, gpu: Any, mem: float, shown: dict, need: dict, results: list[dict] | None,
               recommended: dict | None, layout_text: str, args: argparse.Namespace) -> str:
    s = shown["sizing"]
    lines: list[str] = []
    if results is not None:
        header = ("TP", "PP", "GPUs", "weights GiB/GPU", "KV GiB/GPU", "KV tokens", "max conc", "starts",
                  "max_num_seqs", "mandatory findings")
        body = []
        for r in results:
            c = r["sizing"]
            body.append((
                str(c.tensor_parallel_size), str(c.pipeline_parallel_size), str(c.gpus),
                f"{c.weights_gib_per_gpu:.2f}", f"{c.kv_cache_gib_per_gpu:.2f}", f"{c.kv_cache_tokens:,}",
                f"{c.max_concurrency:,.2f}", {"starts": "yes", "may-refuse": "maybe"}.get(c.verdict, "no"),
                f"{c.max_num_seqs}{'*' if r['adjusted_max_num_seqs'] else ''}",
                ", ".join(f["code"] for f in r["findings"] if f["level"] == "mandatory") or "–",
            ))
        widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]
        fmt = "  ".join(f"{{:>{w}}}" if i < 9 else f"{{:<{w}}}" for i, w in enumerate(widths))
        lines.append(fmt.format(*header).rstrip())
        lines.extend(fmt.format(*row).rstrip() for row in body)
        if any(r["adjusted_max_num_seqs"] for r in results):
            asked = args.max_num_seqs or results[0]["requested_max_num_seqs"]
            lines.append(f"* max_num_seqs lowered from {asked} to what the KV cache holds at "
                         f"{results[0]['sizing'].expected_context:,} tokens per sequence")
        lines.append("")
        lines.append(recommended["text"] if recommended else "recommended: none of these layouts (see findings)")
        lines.append("")
    dp = f" × DP{s.data_parallel_size}" if s.data_parallel_size > 1 else ""
    ep = " with expert parallelism" if s.expert_parallel else ""
    lines.append(f"{model.id} on {gpu.name if gpu else 'a custom GPU'} ({mem:.1f} GiB), TP{s.tensor_parallel_size} × "
                 f"PP{s.pipeline_parallel_size}{dp} = {s.gpus} GPU{'s' if s.gpus != 1 else ''} per engine{ep}; "
                 f"{s.vllm_version_note} ({s.engine.upper()} engine)")
    graphs = ("taken from the KV budget" if s.cudagraphs_in_budget else
              "captured after the KV cache is sized: not in the budget" if s.cudagraph_gib_per_gpu else "none")
    rows = [
        ("weights", f"{s.weights_gb_total:.1f} GB {s.weight_precision} in total, "
                    f"{s.weights_gib_per_gpu:.2f} GiB per GPU"),
        ("usable per GPU", f"{s.usable_gib_per_gpu:.2f} GiB ({s.gpu_memory_utilization:g} × {mem:.2f})"),
        ("activation peak per GPU", f"{s.activation_gib_per_gpu:.2f} GiB (estimate: {s.max_num_batched_tokens:,} "
                                    f"batched tokens; sampler {s.sampler_gib_per_gpu:.2f}"
                                    + (f", vision encoder {s.encoder_gib_per_gpu:.2f}" if s.encoder_gib_per_gpu else "")
                                    + ")"),
        ("non-torch per GPU", f"{s.non_torch_gib_per_gpu:.2f} GiB (estimate)"),
        ("CUDA graphs per GPU", f"{s.cudagraph_gib_per_gpu:.2f} GiB (estimate, {graphs})"),
        ("KV cache per GPU", f"{s.available_kv_gib:.2f} GiB ± {s.error_band_gib:.2f} "
                             "(vLLM logs it as 'Available KV cache memory')"),
        ("KV bytes per token per GPU", f"{s.kv_bytes_per_token_per_gpu:,}"
                                       + (" (hybrid layers: the KV cache groups hold less)" if s.hybrid_kv else "")),
        ("KV cache tokens", f"{s.kv_cache_tokens:,} ('GPU KV cache size')"),
        ("max_model_len", f"{s.max_model_len:,} (the model allows {s.model_max_len:,})"),
        ("max concurrency", f"{s.max_concurrency:.2f}x at {s.max_model_len:,} tokens"),
    ]
    if args.p95_context:
        rows.append(("", f"{s.concurrency_at_expected_context:,} at the p95 context of {s.expected_context:,}"))
    seqs_how = "vLLM default" if s.max_num_seqs_default else "--max-num-seqs"
    rows += [
        ("load", f"{s.max_num_seqs} seqs ({seqs_how}) × {s.expected_context:,} tokens = {s.load_tokens:,} tokens"),
        ("KV left after that load", f"{s.headroom_gib_per_gpu:.2f} GiB per GPU" if s.headroom_gib_per_gpu >= 0 else
         f"none: {-s.headroom_gib_per_gpu:.2f} GiB per GPU short"),
        ("starts", _starts_text(s)),
        ("GPUs for weights × 1.4", f"TP{need['tensor_parallel_size']} (weights × {args.kv_reserve:g} = "
                                   f"{need['need_gb']} GB against {need['per_gpu_gb']} GB usable per GPU)"),
    ]
    if results is None:
        rows.append(("layout", layout_text))
    lines.extend(_table(rows))
    for note in s.notes:
        lines.append(f"  note: {note}")
    lines.append("")
    if shown["findings"]:
        lines.append("findings:")
        for f in shown["findings"]:
            lines.append(f"  {f['code']} [{f['level']}] {f['message'].removeprefix(f['code'] + ': ')}")
    else:
        lines.append("findings: none")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
