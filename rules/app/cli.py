"""The ``shardwise`` command: ``lint``, ``plan``, ``rules``, ``explain`` and ``docs``.

Exit codes: 0 clean, 1 blocking findings (or ``docs --check`` found stale pages, or ``plan`` found
no layout without a mandatory finding), 2 usage or input error. ``lint`` never stops at an input
error: it reads and lints everything else, writes every report asked for with the input errors in
it (``file:line: error: message`` in text; stderr gets ``shardwise: error: file:line: message`` when no text
report is on the terminal, and the blocking findings too when every report goes to a file), then exits 2. A
usage error (a bad flag, a config file that cannot be read) stops before linting. Never a traceback.

Imports are lazy: this module loads nothing beyond what the interpreter has at import time (:mod:`argparse`,
with :mod:`gettext` and :mod:`locale`, only when a command line needs parsing: not ``shardwise lint PATH...``
without options or with the common ones, such as ``--format json``, see :func:`_plain_lint`), and each command
imports what it needs (jinja2 only for Markdown, pydantic only when an adapter reads a stack file), so
``shardwise lint one.yaml`` starts fast.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

if TYPE_CHECKING:
    import argparse

PROG = "shardwise"
FORMATS = ("text", "json", "sarif", "github", "markdown")  # as rules.report.FORMATS (not imported: start-up)
#: ``--fail-on``'s levels, as rules.adapters.config.FAIL_ON (not imported: start-up); none: report only
FAIL_ON_LEVELS = ("advisory", "mandatory", "none")
#: The commands, in the order ``--help`` lists them (:func:`build_parser`).
COMMANDS = ("lint", "diff", "plan", "rules", "explain", "policy-pack-dir", "docs")


class _Usage(Exception):
    """A command-line value that argparse's types could not reject (exit 2)."""


def _ranged(kind: type, lo: float, hi: float, lo_open: bool = False) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` in [lo, hi] (or (lo, hi] with ``lo_open``)."""
    noun = "an integer" if kind is int else "a number"
    low, high = (f"{lo:,}", f"{hi:,}") if kind is int else (f"{lo:g}", f"{hi:g}")
    bounds = f"{'greater than' if lo_open else 'from'} {low} {'up to' if lo_open else 'to'} {high}"

    def parse(text: str) -> Any:
        import argparse  # the parser that calls this imported it

        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {noun} {bounds}, got '{text}'") from None
        if value != value or (value <= lo if lo_open else value < lo) or value > hi:  # NaN, bounds
            raise argparse.ArgumentTypeError(f"must be {noun} {bounds}, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _path(text: str) -> str:
    """An argparse type: a file or folder name, never empty (an empty --config or --create-baseline was read as the
    option not given, or failed with an error that names no file)."""
    if not text:
        import argparse  # the parser that calls this imported it

        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return text


def _once_action() -> type:
    """An argparse action that refuses its option given twice: ``plan --gpu H100 --gpu L4`` planned L4 alone, the
    first silently dropped (fuzz16); each of these options takes a comma list instead."""
    import argparse  # the parser that uses it imported it

    class Once(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                     option_string: str | None = None) -> None:
            before = getattr(namespace, self.dest, None)  # None until given: none of them has a default
            if before is not None:
                hint = f"; give one list: {option_string} {before},{values}" if self.dest in ("gpu", "instance_type") \
                    else ""
                raise argparse.ArgumentError(self, f"is given twice ('{before}' and '{values}'){hint}")
            setattr(namespace, self.dest, values)

    return Once


def _format(spec: str) -> tuple[str, str | None]:
    import argparse  # the parser that calls this imported it

    from ..report import parse_format

    try:
        return parse_format(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _max_model_len(text: str) -> Any:
    """An argparse type: a token count from 16 up to 10,000,000, written as vLLM reads ``--max-model-len``
    (``32768``, ``32k`` = 32,000, ``32K`` = 32,768), or ``auto`` (``-1``)."""
    import argparse  # the parser that calls this imported it

    from ..vllm.args import human_int

    if text.strip().lower() in ("auto", "-1"):
        return "auto"
    try:
        value = human_int(text.strip())
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"must be an integer from 16 to 10,000,000 (as vLLM reads it: 32768, 32k "
                                         f"= 32,000, 32K = 32,768) or auto, got '{text}'") from None
    return _ranged(int, 16, 10_000_000)(str(value))


def _env_pair(text: str) -> tuple[str, str]:
    """An argparse type: ``NAME=VALUE`` (plan checks the name: :func:`.plan.check_env`)."""
    import argparse  # the parser that calls this imported it

    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=VALUE")
    return name.strip(), value


def _engine_pair(text: str) -> tuple[str, str]:
    """An argparse type: ``FLAG=VALUE``, or ``FLAG`` alone for a switch set true (plan checks the flag:
    :func:`.plan.engine_words`)."""
    import argparse  # the parser that calls this imported it

    flag, eq, value = text.partition("=")
    if not flag.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not FLAG=VALUE")
    return flag.strip(), value if eq else "true"


def _version() -> str:
    from shardwise import __version__

    return __version__


#: ``--fail-on``'s help in ``diff``, a report that never fails on findings (docs/cli.md, "shardwise diff"): the level
#: only says which added findings its summary line counts as those lint fails on (newuser10: the help said "fails the
#: run", and a new user's `shardwise diff main --fail-on mandatory` with four mandatory findings added exited 0).
DIFF_FAIL_ON_HELP = (
    "lowest level of the added findings the summary line counts as those shardwise lint fails on, or none; diff is "
    "a report and exits 0 whatever the findings (run shardwise lint for the verdict) (default: mandatory, or "
    "fail_on in the config file)")


def _add_run_options(p: argparse.ArgumentParser, *, report: bool = False) -> None:
    """The options of one lint run, shared by ``lint`` and ``diff`` (``report``: diff's words for ``--fail-on``)."""
    p.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB",
        help="do not read paths matching GLOB (gitignore-like; repeatable; added to .shardwiseignore and the "
        "config file's exclude)",
    )
    p.add_argument(
        "--fail-on", choices=FAIL_ON_LEVELS, default=None,
        help=DIFF_FAIL_ON_HELP if report else (
            "lowest level that fails the run, or none: report only, findings never fail it (an unreadable input "
            "still exits 2) (default: mandatory, or fail_on in the config file)"),
    )
    p.add_argument(
        "--config", type=_path, metavar="FILE",
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
                   help="processes reading the files and running the rules when there are many "
                        "(default: the CPUs available)")
    p.add_argument("--progress", action="store_true",
                   help="say on standard error how far a long read has gone (a line every 2 s once a run is 1 s "
                        "old; default: when standard error is a terminal); never on standard output")
    p.add_argument(
        "--model-dir", action="append", default=[], type=_path, metavar="DIR",
        help="a directory of <org>/<name>/config.json for models the catalog lacks (repeatable; adds to "
        "model_dirs in the config file)",
    )
    p.add_argument(
        "--values", "-f", action="append", default=[], type=_path, metavar="FILE",
        help="a Helm values file for the chart directories given as PATH (repeatable, as helm template takes them)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a Helm value for the chart directories given as PATH (repeatable, as helm template --set)",
    )
    p.add_argument(
        "--fetch-remote-bases", action="store_true",
        help="let kustomize fetch the remote bases (git URLs) and remote files (http(s) URLs) of the kustomization "
             "directories given as PATH; without it such an entry is an input error and nothing is downloaded",
    )
    p.add_argument(
        "--no-build-found", dest="build_found", action="store_false", default=None,
        help="do not build the kustomizations and Helm charts met while searching a folder (default: each overlay no "
             "other lists, and each chart with its values.yaml, is built where kustomize or helm is on PATH; "
             "build_found in the config file); what is not built is read as written and SW005 says so",
    )
    p.add_argument(
        "--require-build", action="store_true",
        help="fail the run where a kustomization or chart met while searching was not built (no tool on PATH, a build "
             "error, --no-build-found): SW005 blocks (require_build in the config file)",
    )
    p.add_argument(
        "--gitops-revision", metavar="BRANCH",
        help="the branch this checkout stands for: an Argo CD Application or Flux object whose source is this "
             "repository at BRANCH is rendered from these files (default: gitops_revision in the config file, else "
             "a pull request's target branch, or on a detached HEAD the branch pushed, as the CI names it)",
    )


def _diff_format(spec: str) -> tuple[str, str | None]:
    import argparse

    fmt, path = _format(spec)
    if fmt not in ("markdown", "json"):
        raise argparse.ArgumentTypeError(f"diff writes markdown or json, not '{fmt}'")
    return fmt, path


def _terminal_columns() -> int:
    """The columns of the terminal, as :func:`shutil.get_terminal_size` says them (``COLUMNS`` when it is a positive
    integer, else the terminal of ``sys.__stdout__``, else 80), without importing :mod:`shutil`."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


@functools.cache
def _parser_class() -> type[argparse.ArgumentParser]:
    """:class:`_Parser`, made on first use: the classes derive from argparse's, which is imported only when a command
    line needs parsing (a plain ``lint PATH...`` line does not: :func:`_plain_lint`)."""
    import argparse

    class _HelpFormatter(argparse.HelpFormatter):
        """argparse's help formatter, with its default width found without :mod:`shutil`: argparse makes a formatter
        for every option it adds, and the first one imported shutil (with bz2, lzma and zlib: 6 ms of every start)."""

        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position,
                             _terminal_columns() - 2 if width is None else width)

    class _Parser(argparse.ArgumentParser):
        """An :class:`argparse.ArgumentParser` whose formatter is :class:`_HelpFormatter` (the subcommands' too: they
        are made of the parser's own class), and whose usage errors read as shardwise's own: a value quoted plainly
        (``invalid choice 'x'; expected one of advisory, mandatory``), never with Python's repr (``"it's"``,
        ``'\\udcff'``), and the line written as :func:`_err` writes one (a control character or a byte that is not
        UTF-8 as the reports' escape). No option may be abbreviated (``allow_abbrev=False``, the subcommands' parsers
        too): argparse's prefix matching read ``diff main --base ''`` as ``--baseline ''`` (adopt19), and a prefix
        that is whole today may name two options tomorrow; an abbreviation is refused with the options it begins."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("formatter_class", _HelpFormatter)
            kwargs.setdefault("allow_abbrev", False)
            super().__init__(*args, **kwargs)

        def _options(self) -> list[str]:
            """The long options of this parser and of the subcommands' parsers built so far."""
            found: list[str] = []
            for action in self._actions:
                found += [o for o in action.option_strings if o.startswith("--")]
                if isinstance(action, argparse._SubParsersAction):
                    for parser in dict.fromkeys(action.choices.values()):
                        found += parser._options() if isinstance(parser, _Parser) else []
            return list(dict.fromkeys(found))

        def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
            self._words = list(sys.argv[1:] if args is None else args)  # for error(): the words an abbreviation is in
            return super().parse_known_args(args, namespace)

        def _abbreviations(self, message: str) -> str:
            """``message``, and each word of the command line that begins a long option without being one, named
            with the options it begins: ``--base is not an option (shardwise takes no abbreviations): write
            --baseline``. Any error, not only "unrecognized arguments": ``plan --mod x`` fails first on the missing
            --model."""
            options = self._options()
            said = []
            for word in dict.fromkeys(getattr(self, "_words", [])):
                if not isinstance(word, str) or not word.startswith("--") or word == "--":
                    continue
                typed = word.partition("=")[0]
                whole = [o for o in options if o.startswith(typed) and o != typed]
                # a bare "--" or "--=1" begins every option: no option is meant, and argparse's words say enough
                if typed not in options and 0 < len(whole) <= 4:
                    said.append(f"{typed} is not an option (shardwise takes no abbreviations): write "
                                f"{' or '.join(whole)}")
            return f"{message}; {'; '.join(said)}" if said else message

        def _check_value(self, action: argparse.Action, value: Any) -> None:
            if action.choices is not None and value not in action.choices:
                raise argparse.ArgumentError(
                    action, f"invalid choice '{value}'; expected one of {', '.join(map(str, action.choices))}")

        def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
            try:
                return super()._get_value(action, arg_string)
            except argparse.ArgumentError as e:
                if isinstance(e.__context__, argparse.ArgumentTypeError):  # the type's own words
                    raise
                kind = getattr(action.type, "__name__", "")
                raise argparse.ArgumentError(action, f"invalid {kind + ' ' if kind else ''}value '{arg_string}'") \
                    from None

        def error(self, message: str) -> NoReturn:
            from ..report.formats import utf8_text
            from ..report.text import visible

            message = self._abbreviations(_what_to_name(message))
            self.print_usage(sys.stderr)
            self.exit(2, f"{self.prog}: error: {utf8_text(visible(message), 'text')}\n")

    return _Parser


#: argparse's words for a missing command or path, and what a new user types next (newuser9: a bare ``shardwise`` or
#: ``shardwise lint`` said only "the following arguments are required: COMMAND", which names no command)
_MISSING = {
    "the following arguments are required: COMMAND":
        f"no command given; name one of {', '.join(COMMANDS)} (`shardwise --help` says what each does; "
        "`shardwise lint .` lints this folder)",
    "the following arguments are required: PATH":
        "no PATH given; name what to lint: files or folders (`shardwise lint .` for this folder), or - for standard "
        "input",
    "the following arguments are required: BASE_REF":
        "no BASE_REF given; name the git ref to compare the working tree with (`shardwise diff main deploy/`)",
}


def _what_to_name(message: str) -> str:
    """argparse's ``message``, or for a missing command or path what to name (:data:`_MISSING`)."""
    return _MISSING.get(message, message)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command an argument list starts with, or None: then (``--help``, ``--version``, a usage error) the parser of
    every command is built, and what it prints names them all."""
    return argv[0] if argv and argv[0] in COMMANDS else None


#: What ``shardwise lint --help`` ends with: the statuses a CI step sees (docs/cli.md, "Exit status").
LINT_EXIT_CODES = (
    "Exit codes: 0 nothing blocks (with --fail-on none, whatever the findings); 1 findings at or above --fail-on "
    "(or the config file's fail_on; default mandatory; with --baseline, new ones only); 2 an input that cannot be "
    "read (after everything readable was linted and the reports written; 2 wins over 1) or a usage error (nothing "
    "is linted)."
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``command`` the parser of that command alone: a run that starts with its
    command builds only that command's parser (argparse translates three strings for each parser it makes, and adds
    each option with a formatter of its own: about 10 ms for the parsers of the other commands)."""
    parser = _parser_class()(
        prog=PROG,
        description="Capacity-aware checks for serving LLMs with vLLM on Kubernetes.",
        epilog="Exit codes: 0 clean, 1 blocking findings, 2 usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    if command in (None, "lint"):
        lint = sub.add_parser(
            "lint",
            help="check stack configs, Kubernetes manifests and Pulumi preview/state JSON",
            description="Check stack configs, Kubernetes manifests (plain, Helm-rendered, multi-document) and "
            "`pulumi preview --json` / `pulumi stack export` files. Directories are searched.",
            epilog=LINT_EXIT_CODES,
        )
        lint.add_argument("paths", nargs="+", type=_path, metavar="PATH", help="files or directories ('-' for stdin)")
        lint.add_argument(
            "--format", action="append", type=_format, metavar="FMT[=FILE]", dest="formats",
            help=f"a report: {', '.join(FORMATS)} (default text), to FILE or stdout; repeat it for several reports "
            "from one run: --format sarif=shardwise.sarif --format github",
        )
        lint.add_argument("--output", "-o", type=_path, metavar="FILE",
                          help="write the report (the one --format without =FILE) to FILE instead of stdout")
        _add_run_options(lint)
        lint.add_argument("--no-color", action="store_true", help="never colour the text output")
        known = lint.add_mutually_exclusive_group()
        known.add_argument(
            "--baseline", type=_path, metavar="FILE",
            help="report only the findings FILE does not hold (a file --create-baseline wrote); only those fail the "
            "run, and the summary counts the others and the entries that no longer match",
        )
        known.add_argument(
            "--create-baseline", type=_path, metavar="FILE",
            help="write the findings of this run to FILE (rule, object, field and file of each; no line numbers), "
            "for --baseline FILE in later runs; rewriting it drops the findings that are gone",
        )
        lint.add_argument(
            "--fetch-configs", action="store_true",
            help="download the config.json of models shardwise does not know into the Hugging Face cache "
            "(needs huggingface_hub and network access; HF_TOKEN for gated models)",
        )
        lint.set_defaults(func=cmd_lint)

    if command in (None, "diff"):
        diff = sub.add_parser(
            "diff",
            help="what a change does to GPUs, nodes, KV cache, cost and findings, against a git ref",
            description="Lint the tree at BASE_REF (a git commit, branch or tag of the repository in the current "
            "directory) and the working tree, and report per workload and in total: GPUs by type, nodes, replicas, "
            "TP/PP/DP, KV cache tokens and concurrency at the p95 context, on-demand cost per hour and month, cost "
            "per million output tokens where a throughput is declared, and the findings added and fixed. A report, "
            "not a gate: exit 0 whatever the findings (--fail-on included), or 2 when the ref cannot be read or an "
            "input of the working tree cannot be read.",
        )
        diff.add_argument("base", metavar="BASE_REF", help="git ref of the base (e.g. origin/main, HEAD~1)")
        diff.add_argument("paths", nargs="*", default=["."], type=_path, metavar="PATH",
                          help="files or directories, relative to the current directory (default: .)")
        diff.add_argument(
            "--format", action="append", type=_diff_format, metavar="FMT[=FILE]", dest="formats",
            help="markdown (default) or json, to FILE or stdout; repeatable: --format markdown=diff.md --format "
            "json=diff.json",
        )
        diff.add_argument("--output", "-o", type=_path, metavar="FILE",
                          help="write the report (the one --format without =FILE) to FILE instead of stdout")
        _add_run_options(diff, report=True)
        diff.add_argument(
            "--baseline", type=_path, metavar="FILE",
            help="a baseline lint --create-baseline wrote: the added findings it holds are marked (in the baseline) "
            "and not counted as those lint --baseline FILE fails on",
        )
        diff.set_defaults(func=cmd_diff)

    if command in (None, "plan"):
        once = _once_action()
        plan = sub.add_parser(
            "plan",
            help="size a model on a GPU pool and recommend a layout (TP, PP, DP) that lint accepts",
            description="Size one vLLM replica (weights, KV cache, concurrency) and run every rule on it, as lint "
            "would on a manifest of it. Without --tp, tries tensor parallelism inside the NVLink domain and "
            "pipeline parallelism beyond it (and data parallelism with the experts spread, for a mixture-of-experts "
            "model) on 1, 2, 4, ... GPUs up to a node, then over 2 and 4 nodes, and recommends the layout on the "
            "fewest GPUs that starts, holds the batch width asked and has no mandatory finding (a layout that does "
            "so only below vLLM's default --max-num-seqs is tried at half of it, not below 256, before a "
            "wider one, and the cap is written; a model with Mamba or linear-attention layers that vLLM would "
            "refuse for its Mamba cache blocks is tried at the blocks it surely holds); when none holds "
            "the batch width, lowers max_num_seqs to what each KV cache holds and recommends the layout that holds "
            "the most sequences per GPU. Exit 1 when no layout (or the --tp layout) is free of mandatory findings.",
        )
        plan.add_argument("--model", required=True, action=once, metavar="M",
                          help="catalog model id, quantised re-upload name, or path to a config.json or its folder")
        plan.add_argument("--base-model", metavar="ID", help="catalog model whose shape an unknown model id has")
        plan.add_argument("--gpu", action=once, metavar="G",
                          help="GPU name, e.g. H100, A10G, L40S (see the catalog); a list "
                          "(H100,H200,L40S,A100) compares the layouts each recommends and names the cheapest")
        plan.add_argument("--instance-type", action=once, metavar="T",
                          help="instance type of the node pool, e.g. p5.48xlarge, g5.12xlarge: its GPU, GPUs per node "
                          "and NVLink (default: the largest instance type with --gpu in the catalog); a list "
                          "(p5.48xlarge,p4de.24xlarge) compares them")
        plan.add_argument("--gpu-memory-gib", type=_ranged(float, 0, 4096, lo_open=True), metavar="X",
                          help="memory of one GPU as CUDA reports it; without --gpu, a custom GPU")
        plan.add_argument("--gpus-per-node", type=_ranged(int, 1, 64), metavar="N",
                          help="GPUs per node (default: the instance type's)")
        plan.add_argument("--tp", type=_ranged(int, 1, 64), metavar="N", help="tensor_parallel_size")
        plan.add_argument("--pp", type=_ranged(int, 1, 64), metavar="N",
                          help="pipeline_parallel_size (default: searched; 1 with --tp)")
        plan.add_argument("--pcp", type=_ranged(int, 1, 64), default=1, metavar="N",
                          help="prefill_context_parallel_size (vLLM 0.12+), on every layout: each rank holds the TP "
                          "shard, so an engine runs TP × PP × PCP GPUs")
        plan.add_argument("--gpu-memory-utilization", type=_ranged(float, 0, 1, lo_open=True), default=None,
                          metavar="U", help="fraction of GPU memory vLLM may use (default: the release's, "
                                            "0.9; 0.92 from vLLM 0.20; 1.0 with 0.34's extensible KV cache)")
        plan.add_argument("--vllm-version", metavar="X.Y.Z",
                          help="the vLLM release to size for (default: the current release, said in the output)")
        plan.add_argument("--max-model-len", type=_max_model_len, metavar="L",
                          help="longest prompt+output, or auto (vLLM 0.14+ fits it to the KV cache; default: the "
                          "model's context limit)")
        plan.add_argument("--max-num-seqs", type=_ranged(int, 1, 65_536), metavar="S",
                          help="vLLM's cap on the sequences batched at once, a setting and never a load (default: "
                          "vLLM's, 256 or 1024 by GPU and release)")
        plan.add_argument("--concurrency", type=_ranged(int, 1, 10_000_000), metavar="C",
                          help="the load: sequences the deployment serves at once, all replicas together, at the p95 "
                          "context (or max_model_len); plan sizes replicas for it (+1 for headroom above 80 %% full)")
        plan.add_argument("--output-tokens-per-second", type=_ranged(float, 0, 10_000_000, lo_open=True), metavar="R",
                          help="output tokens one replica generates per second at the load (measured): the cost per "
                          "million output tokens")
        plan.add_argument("--max-num-batched-tokens", type=_ranged(int, 16, 10_000_000), metavar="T",
                          help="token budget per scheduler step (default: vLLM's for the release and GPU)")
        plan.add_argument("--dp", type=_ranged(int, 1, 256), default=1, metavar="N",
                          help="data_parallel_size: engines per replica group (expert parallelism spreads experts)")
        plan.add_argument("--enable-expert-parallel", action="store_true",
                          help="spread a mixture-of-experts model's experts over TP × DP ranks")
        plan.add_argument("--p95-context", type=_ranged(int, 1, 10_000_000), metavar="N",
                          help="p95 prompt+output tokens of the real traffic (the length of each sequence of the load)")
        plan.add_argument("--dtype", choices=("auto", "bfloat16", "float16", "float32"), default="auto")
        plan.add_argument("--quantization", metavar="Q",
                          help="vLLM's --quantization: fp8, ptpc_fp8, awq, gptq, experts_int8, modelopt_fp4, ...; "
                               "the methods that read the bits from the checkpoint (compressed-tensors, quark, "
                               "auto-round, moe_wna16) need a checkpoint whose quantization_config states them")
        plan.add_argument("--kv-cache-dtype", choices=("auto", "fp8"), default="auto")
        plan.add_argument("--speculative-config", metavar="JSON",
                          help="vLLM's speculative decoding config, e.g. '{\"method\": \"mtp\", "
                          "\"num_speculative_tokens\": 1}': an MTP draft's layers are charged to the weights and "
                          "the KV cache; a draft checkpoint shardwise does not know widens the error band")
        plan.add_argument("--env", action="append", type=_env_pair, default=[], metavar="NAME=VALUE",
                          help="the vLLM engine's environment, as the pod would set it; only what the capacity model "
                          "reads (VLLM_USE_FLASHINFER_SAMPLER, VLLM_USE_V1, VLLM_ALLOW_LONG_MAX_MODEL_LEN, "
                          "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, VLLM_FUSED_MOE_CHUNK_SIZE, VLLM_ALL2ALL_BACKEND, "
                          "VLLM_DEEPEP_BUFFER_SIZE_MB, VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE, "
                          "VLLM_MOE_DP_CHUNK_SIZE, VLLM_USE_DEEP_GEMM, VLLM_MOE_USE_DEEP_GEMM, "
                          "VLLM_USE_FLASHINFER_MOE_FP8, VLLM_ROCM_USE_AITER, VLLM_ROCM_USE_AITER_MOE); "
                          "repeatable; --emit writes it into the pod's env")
        plan.add_argument("--install", choices=("image", "pip"), default="image",
                          help="how the engine's vLLM is installed: image (default), the official vllm/vllm-openai "
                          "image of the release; pip, `pip install vllm==RELEASE` at start-up in a Python image "
                          "(the 0.10.0-0.11.0 wheels bring no FlashInfer: the sampler's warm-up is PyTorch's); "
                          "--emit writes it so")
        plan.add_argument("--engine-arg", action="append", type=_engine_pair, default=[], metavar="FLAG=VALUE",
                          help="a further vLLM engine flag the capacity model reads, as vLLM spells it: block-size, "
                          "enforce-eager, enable-chunked-prefill, enable-prefix-caching, kv-cache-memory-bytes, "
                          "compilation-config (JSON: its cudagraph_mode), async-scheduling, limit-mm-per-prompt, "
                          "mm-processor-kwargs (JSON), runner; a switch takes true or false, or stands alone for "
                          "true; repeatable; --emit writes it on the command line")
        plan.add_argument("--weights-gib", type=_ranged(float, 0, 100_000, lo_open=True), metavar="W",
                          help="weights of the whole model in GiB, instead of params × bytes per param")
        plan.add_argument("--kv-reserve", type=_ranged(float, 1.0, 10.0), default=1.4, metavar="X",
                          help="the rule of thumb that the weights × X must fit the GPUs' usable memory (room for a "
                          "KV cache), used where no concurrency is declared (default 1.4)")
        plan.add_argument("--emit", choices=("manifest", "stack-config", "vllm-args"), metavar="WHAT",
                          help="instead of the plan, print the recommended layout as a Deployment or LeaderWorkerSet "
                          "with its Service and NetworkPolicies (manifest), as the pool and service entries of "
                          "stacks/Pulumi.<env>.yaml (stack-config), or as the vllm serve command line (vllm-args)")
        plan.add_argument("--format", choices=("text", "json"), default=None, dest="plan_format",
                          help="text (default) or json")
        plan.add_argument("--json", action="store_true", help="print JSON (as --format json)")
        plan.set_defaults(func=cmd_plan)

    if command in (None, "rules"):
        rules = sub.add_parser("rules", help="list every rule", description="List every rule.")
        rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
        rules.set_defaults(func=cmd_rules)

    if command in (None, "explain"):
        explain = sub.add_parser("explain", help="print one rule's documentation",
                                 description="Print a rule's summary, why, examples, remediation and references.")
        explain.add_argument("code", metavar="CODE", help="rule code (SW104) or name (sharded-model-that-fits)")
        explain.set_defaults(func=cmd_explain)

    if command in (None, "policy-pack-dir"):
        pack = sub.add_parser(
            "policy-pack-dir", help="write a policy pack directory for this installation and print it",
            description="Write a CrossGuard policy pack directory for the shardwise installed in this Python "
                        "environment and print it: PulumiPolicy.yaml, requirements.txt, the pack entry and its config "
                        "schema, for `pulumi policy publish`, and the launcher shardwise-pack, for `pulumi preview "
                        "--policy-pack \"$(shardwise policy-pack-dir)/shardwise-pack\"` from any project. The "
                        "environment needs pulumi-policy (shardwise[pulumi]).")
        pack.add_argument("--out", type=_path, metavar="DIR",
                          help="write it there (default: a folder in ~/.cache/shardwise)")
        pack.set_defaults(func=cmd_policy_pack_dir)
    if command in (None, "docs"):
        docs = sub.add_parser("docs", help="generate or check the rule documentation",
                              description="Write one Markdown page per rule and an index; --check only compares.")
        docs.add_argument("--check", action="store_true", help="exit 1 if a page is missing or stale")
        docs.add_argument("--out", type=_path, metavar="DIR", help="output folder (default: the package's rules/docs)")
        docs.add_argument("--readme", type=_path, metavar="FILE",
                          help="update (or --check) the rule table between <!-- rules:start/end --> in FILE instead")
        docs.set_defaults(func=cmd_docs)
    return parser


def _err(message: str) -> None:
    """One error line on stderr; what the user typed or a file named (a control character, a byte that is not
    UTF-8) is written as an escape, as the reports write it: it starts no line of its own."""
    from ..report.formats import utf8_text
    from ..report.text import visible

    print(f"{PROG}: error: {utf8_text(visible(message), 'text')}", file=sys.stderr)


#: What ``lint``'s parser gives every option when the command line sets none (:func:`_plain_lint`); the lists are
#: copied for each run. tests/app/test_cli.py holds this to :func:`build_parser`'s namespace.
_LINT_DEFAULTS: dict[str, Any] = {
    "formats": None, "output": None, "exclude": [], "fail_on": None, "config": None, "kv_reserve": None,
    "p95_context": None, "jobs": None, "progress": False, "model_dir": [], "values": [], "set": [],
    "fetch_remote_bases": False, "build_found": None, "require_build": False, "gitops_revision": None,
    "no_color": False, "baseline": None, "create_baseline": None, "fetch_configs": False,
}


#: The options :func:`_plain_lint` reads itself, in their exact spellings: option -> (namespace field, kind of value).
#: ``--format`` appends; the others keep their last value, as argparse's ``store`` and ``store_true`` do.
_PLAIN_OPTIONS: dict[str, tuple[str, str]] = {
    "--format": ("formats", "format"), "--output": ("output", "word"), "-o": ("output", "word"),
    "--no-color": ("no_color", "flag"), "--jobs": ("jobs", "jobs"), "-j": ("jobs", "jobs"),
    "--fail-on": ("fail_on", "fail_on"),
}


def _plain_lint(argv: Sequence[str]) -> Any:
    """The namespace ``lint``'s parser makes of a plain ``lint`` line, or None for any other command line.

    A plain line is ``lint`` and one run of paths, with options of :data:`_PLAIN_OPTIONS` before or after it
    (``--format FMT[=FILE]``, ``--output``/``-o FILE``, ``--no-color``, ``--jobs``/``-j N``, ``--fail-on``), each
    spelt in full, its value as the next word or after ``=``, and every value one that argparse accepts. Such a line
    has one reading: argparse reads a word as an option only when it starts with ``-`` and is more than ``-`` (stdin's
    name), a value that does not start with ``-`` is the option's, and the paths are one positional run. Building the
    parser imports argparse, gettext and locale and makes two parsers, each translating its headings: 15M
    instructions, a thirteenth of a one-file lint above the interpreter, and 25M with ``--format``. Anything else (an
    abbreviation, ``--``, ``-oFILE``, a value argparse would refuse, paths on both sides of an option, no path) goes
    to argparse as before, which reads it or says what is wrong."""
    if len(argv) < 2 or argv[0] != "lint":
        return None
    fields = {key: list(value) if type(value) is list else value for key, value in _LINT_DEFAULTS.items()}
    paths: list[str] = []
    ended = False  # a run of paths was read and an option followed it: another path is argparse's error
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        i += 1
        if word[:1] != "-" or word == "-":
            if ended or not word:  # an empty path: argparse's error
                return None
            paths.append(word)
            continue
        if paths:
            ended = True
        name, eq, value = word.partition("=") if word[:2] == "--" else (word, "", "")
        spec = _PLAIN_OPTIONS.get(name)
        if spec is None:
            return None
        field, kind = spec
        if kind == "flag":
            if eq:
                return None
            fields[field] = True
            continue
        if not eq:
            if i == n or argv[i][:1] == "-":
                return None
            value = argv[i]
            i += 1
        if not value:
            return None
        if kind == "format":
            from ..report.formats import parse_format

            try:
                fields[field] = [*(fields[field] or ()), parse_format(value)]
            except ValueError:
                return None
        elif kind == "jobs":  # as _ranged(int, 1, 256)
            try:
                jobs = int(value)
            except ValueError:
                return None
            if not 1 <= jobs <= 256:
                return None
            fields[field] = jobs
        elif kind == "fail_on":
            if value not in FAIL_ON_LEVELS:
                return None
            fields[field] = value
        else:
            fields[field] = value
    if not paths:
        return None
    return SimpleNamespace(command="lint", paths=paths, **fields, func=cmd_lint)


def _writable_stdout() -> None:
    """Standard output in an encoding that cannot hold every character of a report (``PYTHONIOENCODING=ascii``, a
    Latin-1 locale): what it cannot encode is written as a backslash escape (``\\u2212``), as Python writes standard
    error, where the first ``−`` or ``×`` of a finding ended the run in an internal error (exit 2)."""
    out = sys.stdout
    if getattr(out, "errors", None) == "strict" and str(getattr(out, "encoding", "")).lower() not in ("utf-8", "utf8"):
        try:
            out.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass


class _ClosedStdout(io.TextIOBase):
    """Standard output when the process has none (``shardwise lint … >&-``: Python sets ``sys.stdout`` to None, and
    the report's write was an internal error, with a traceback from the exit's flush): a report written there
    fails as a write to a closed file does, so the run says so and exits 2 (hostile9)."""

    def write(self, s: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed: the report cannot be written there (name a file "
                                   "with --output or --format FMT=FILE)")


def _silence_stdout() -> None:
    """Standard output's reader has gone (EPIPE: ``shardwise rules | head -1``): point its descriptor at /dev/null, so
    what is still buffered, and the exit's flush, is dropped without a word instead of raising again."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(fd, sys.stdout.fileno())
        finally:
            os.close(fd)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


@contextlib.contextmanager
def _reader_may_leave() -> Iterator[None]:
    """Write to standard output as a well-behaved filter does: when the reader closes the pipe early (``| head``),
    stop writing there, quietly (no traceback, no message), and let the command end with its own status: lint's
    verdict (0 pass, 1 blocking findings), plan's fit, 0 for ``rules`` and ``explain``, so a CI that pipes into
    ``head`` under ``set -o pipefail`` reads neither a pass as a failure nor a failure as a pass (docs/cli.md)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _standard_streams() -> None:
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:  # nowhere to say anything: the exit status still says it
        sys.stderr = io.StringIO()


def main(argv: Sequence[str] | None = None) -> int:
    _standard_streams()
    _writable_stdout()
    args_list = sys.argv[1:] if argv is None else list(argv)
    args = _plain_lint(args_list)
    if args is None:
        parser = build_parser(_command_of(args_list))
        try:
            args = parser.parse_args(args_list)
        except SystemExit as e:  # --help, --version, usage errors
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    from ..model.errors import ShardwiseError

    try:
        return int(args.func(args))
    except (ShardwiseError, _Usage) as e:
        _err(str(e))
        _json_error(args, e)
        return 2
    except OSError as e:
        if isinstance(e, BrokenPipeError):  # a command that writes outside _reader_may_leave (docs)
            _silence_stdout()
            return 1
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        _err(f"{where}{e.strerror or e}")
        _json_error(args, e)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - a bug must still fail the run with a clear line, not exit 0
        if os.environ.get("SHARDWISE_DEBUG"):
            raise
        _err(f"internal error: {type(e).__name__}: {e} (set SHARDWISE_DEBUG=1 for the traceback; please report it)")
        return 2


def _json_on_stdout(args: Any) -> bool:
    """Whether the command asked for its JSON on standard output: ``lint`` or ``diff`` with ``--format json`` (no
    file of its own), ``plan --format json`` or ``--json``."""
    command = getattr(args, "command", None)
    if command == "plan":
        return bool(getattr(args, "json", False)) or getattr(args, "plan_format", None) == "json"
    if command not in ("lint", "diff") or not getattr(args, "formats", None):
        return False
    from ..report import destinations

    try:
        outputs = destinations(args.formats, getattr(args, "output", None))
    except ValueError:  # the reports' places are themselves the usage error
        return False
    return any(fmt == "json" and path is None for fmt, path in outputs)


def _json_error(args: Any, e: Exception) -> None:
    """review17: a command that stops on an error before it wrote its JSON (a ``--config``, ``--baseline`` or
    ``--model-dir`` that cannot be read, a ``plan --model`` that cannot be read) still writes a JSON document where
    its JSON was asked for, naming the error as the lint report names an input error (``input_errors``: ``file``,
    ``line``, ``message``): ``lint``'s report with nothing linted (:func:`..report.json_.stopped_object`), ``plan``'s
    and ``diff``'s ``{"version", "input_errors"}``. The exit status stays 2 and stderr still says it."""
    if not _json_on_stdout(args):
        return
    import json

    from shardwise import __version__

    from ..model.errors import InputError
    from ..report.formats import for_stream, utf8_text
    from ..report.json_ import layout, stopped_object

    if isinstance(e, InputError):
        from ..report.result import error_object

        error = error_object(e)
    elif isinstance(e, OSError):
        error = {"file": e.filename if isinstance(e.filename, str) else None, "line": None,
                 "message": str(e.strerror or e)}
    else:
        error = {"file": None, "line": None, "message": str(e)}
    if args.command == "lint":
        text = layout(stopped_object([error], getattr(args, "fail_on", None)))
    else:
        text = json.dumps({"version": __version__, "input_errors": [error]}, indent=2, ensure_ascii=False) + "\n"
    try:
        with _reader_may_leave():
            sys.stdout.write(for_stream(utf8_text(text, "json"), "json", sys.stdout))
    except (OSError, ValueError):  # no standard output to write it to (closed): stderr has said it
        pass


#: What a command made that lives until the process ends, when :func:`console_main` runs it (a list there, None for
#: an in-process :func:`main`): the lint's report, with its inventory, findings and the sizings kept beside its
#: groups. The process then ends by :func:`os._exit`, so nothing needs them freed; freeing them one by one when
#: the command returned cost about 0.03 s of CPU after a 2,000-file lint (issue 30), on the one thread that also
#: writes the report. Where the interpreter exits as usual it frees them then, as before.
_KEPT: list[object] | None = None


def console_main() -> int:
    """The ``shardwise`` console script: :func:`main`, then the process ends without tearing the interpreter down.

    A normal exit frees every object of the run and makes the cyclic collector walk them all two or three
    times (about 20 ms of CPU after a one-file lint, a sixth of its start-up cost); the operating system
    reclaims the memory anyway. Before :func:`os._exit` the exit handlers run (the dataclass store is saved
    there) and stdout and stderr are flushed. When a flush fails (a closed pipe), another thread is still
    alive, or a handler stands in for ``os._exit``, the interpreter exits as usual, so those cases behave as
    before. In-process callers use :func:`main`, which returns.

    The cyclic collector is paused for the whole command, as :func:`cmd_lint` pauses it for the lint: the modules
    a command imports make tens of thousands of objects that live until the end, and the collections their
    allocations set off find nothing to free (3.5M instructions of a one-file lint, in the imports before
    :func:`cmd_lint`). Where the interpreter exits as usual it is turned back on first."""
    global _KEPT
    collecting = gc.isenabled()
    gc.disable()
    _KEPT = []
    code = main()
    if collecting:
        gc.enable()  # the exits below that return: the interpreter's own exit as before
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return code
    if "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
        return code
    import atexit

    atexit._run_exitfuncs()  # what Py_FinalizeEx would run; it reports a failing handler on stderr itself
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return code
    os._exit(code)


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
        remote_bases=args.fetch_remote_bases, gitops_revision=args.gitops_revision,
        build_found=getattr(args, "build_found", None), require_build=getattr(args, "require_build", False),
        baseline=getattr(args, "baseline", None),
        create_baseline=getattr(args, "create_baseline", None),
    )


def cmd_lint(args: argparse.Namespace) -> int:
    """Lint with the cyclic garbage collector paused: a run builds millions of objects that live until
    it ends and makes almost no cycles, so every collection rescans them for nothing (about 15 % of a
    2,000-file lint). Reference counting still frees everything else; the collector is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _lint(args)
    finally:
        _stop_progress()
        if enabled:
            gc.enable()


def _start_progress(args: argparse.Namespace) -> None:
    """Progress lines on standard error (:mod:`..model.progress`) with ``--progress`` or when it is a terminal."""
    if args.progress or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        from ..model import progress

        progress.start(sys.stderr)


def _stop_progress() -> None:
    from ..model import progress

    progress.stop()


def _lint(args: argparse.Namespace) -> int:
    from ..report import destinations
    from ..report.formats import for_stream
    from ..report.text import finding_line, visible
    from .run import lint_report, render, render_bytes

    try:
        outputs = destinations(args.formats, args.output)
    except ValueError as e:
        raise _Usage(str(e)) from None
    _start_progress(args)
    report = lint_report(args.paths, _lint_options(args))
    if _KEPT is not None:
        _KEPT.append(report)  # not freed object by object when the command returns: the process ends by os._exit
    failed: list[str] = []
    text_on_stdout = stdout_used = False
    for fmt, path in outputs:
        if path is None:
            text_on_stdout, stdout_used = fmt == "text", True
            with _reader_may_leave():  # the reader gone: the verdict is still the exit status
                sys.stdout.write(for_stream(render(report, fmt, color=text_on_stdout and _use_color(args, sys.stdout)),
                                            fmt, sys.stdout))
            continue
        from .output import write_atomically  # tempfile: only for a report written to a file

        if _is_an_input(path, report.files):
            failed.append(f"{path}: not written: it is an input of this run, which the report would replace")
            continue
        try:
            write_atomically(path, render_bytes(report, fmt))  # concurrent runs leave one whole report
        except OSError as e:
            failed.append(f"{path}: {e.strerror or e}")
    for message in failed:
        _err(message)
    if failed:
        return 2
    if not text_on_stdout:  # no text report on the terminal: the input errors, what blocks, the verdict to stderr
        for error in report.errors:
            _err(visible(str(error)))  # a newline in a file name starts no line of its own
        if not stdout_used:  # every report in a file: a CI log shows why the run failed without opening them
            # one write for all of them, not a print (and a write to the stream) per line: 626 on 2,000 files
            sys.stderr.write("".join([f"{finding_line(finding)}\n" for finding in report.blocking]))
        print(visible(report.summary_line()), file=sys.stderr)  # the kinds of objects a repository wrote in it
    return report.exit_code


def _is_an_input(path: str, files: Sequence[str]) -> bool:
    """Whether the report file ``path`` is one of the ``files`` the run read (hostile9: ``--format json=deploy/a.yaml``
    replaced the manifest it had just linted with the report). Only files of the same name are compared, and only
    when ``path`` exists: no work per file read in the common case."""
    if not os.path.isfile(path):
        return False
    name = os.path.basename(path)
    for f in files:
        if os.path.basename(f) == name:
            try:
                if os.path.samefile(f, path):
                    return True
            except OSError:
                continue
    return False


def cmd_diff(args: argparse.Namespace) -> int:
    try:
        return _diff(args)
    finally:
        _stop_progress()


def _diff(args: argparse.Namespace) -> int:
    from ..report import destinations
    from ..report.formats import for_stream
    from .diff import diff_refs, render_diff
    from .output import write_atomically

    try:
        outputs = destinations(args.formats or [("markdown", None)], args.output)
    except ValueError as e:
        raise _Usage(str(e)) from None
    _start_progress(args)
    result = diff_refs(args.base, args.paths, _lint_options(args))
    failed: list[str] = []
    for fmt, path in outputs:
        text = render_diff(result, fmt)
        if path is None:
            with _reader_may_leave():
                sys.stdout.write(for_stream(text, fmt, sys.stdout))
        else:
            try:  # as lint: every other report is still written, and each one that is not is said (hostile9)
                write_atomically(path, text)
            except OSError as e:
                failed.append(f"{path}: {e.strerror or e}")
    for message in failed:
        _err(message)
    for error in result.head_errors:
        _err(str(error))
    from ..report.text import visible

    print(visible(result.summary_line()), file=sys.stderr)  # the refs the user typed, the baseline's name
    return 2 if result.head_errors or failed else 0


# -------------------------------------------------------------------------------------- rules/explain


def _meta_dict(meta: Any) -> dict[str, Any]:
    from dataclasses import asdict

    d = asdict(meta)
    d["references"] = list(meta.references)
    d["doc_url"] = meta.doc_url
    d["doc_ref"] = meta.doc_ref
    return d


def cmd_rules(args: argparse.Namespace) -> int:
    from ..checks.registry import ALL_RULES

    metas = [r.meta for r in ALL_RULES]
    with _reader_may_leave():
        _write_rules(args, metas)
    return 0


def _write_rules(args: argparse.Namespace, metas: list[Any]) -> None:
    if args.format == "json":
        import json

        from ..report.formats import for_stream

        print(for_stream(json.dumps([_meta_dict(m) for m in metas], indent=2, ensure_ascii=False), "json", sys.stdout))
    elif args.format == "markdown":
        from ..report.docgen import rules_table_markdown

        sys.stdout.write(rules_table_markdown(metas))
    else:
        w_name = max(len(m.name) for m in metas)
        for m in metas:
            level = f"{m.enforcement}*" if m.mandatory_when else m.enforcement
            print(f"{m.code}  {m.name:<{w_name}}  {level:<10}  {m.summary}")
        if any(m.mandatory_when for m in metas):
            print("* advisory, but mandatory (blocking, exit 1) in the case the rule names: "
                  "shardwise explain CODE says when")


def _find_meta(code: str) -> Any:
    from ..checks.registry import ALL_RULES

    metas = [r.meta for r in ALL_RULES]
    key = code.strip()
    for m in metas:
        if m.code == key.upper() or m.name == key.lower():
            return m
    import difflib

    close = [m.code for m in metas if key.upper().startswith("SW") and m.code.startswith(key.upper())][:5]
    if not close and not key.upper().startswith("SW"):
        # a word of the rule's name (`explain shm`, `explain probe`): the rules whose name holds it
        close = [f"{m.code} ({m.name})" for m in metas if key.lower() in m.name][:5]
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
    # the page under SHARDWISE_DOCS_URL, else the copy of this page installed with the package
    installed = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", f"{meta.code}.md")
    out.append(f"Docs: {meta.doc_url or installed}")
    return "\n".join(out) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    text = explain_text(_find_meta(args.code))
    with _reader_may_leave():
        sys.stdout.write(text)
    return 0


# ------------------------------------------------------------------------------------------------ docs


def cmd_docs(args: argparse.Namespace) -> int:
    from ..report import docgen

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


def cmd_plan(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace

    from ..report.formats import for_stream, utf8_text
    from ..report.text import visible, visible_lines
    from .compare import comparison_json, comparison_text, hardware_list, make_comparison
    from .plan import PlanRequest, make_plan, plan_json, plan_text

    gpus, instance_types = hardware_list(args.gpu), hardware_list(args.instance_type)
    as_json = args.json or args.plan_format == "json"
    req = PlanRequest(
        model=args.model, base_model=args.base_model, gpu=args.gpu, gpu_memory_gib=args.gpu_memory_gib,
        instance_type=args.instance_type, gpus_per_node=args.gpus_per_node, tp=args.tp, pp=args.pp, dp=args.dp,
        pcp=args.pcp, enable_expert_parallel=args.enable_expert_parallel,
        gpu_memory_utilization=args.gpu_memory_utilization,
        vllm_version=args.vllm_version, max_model_len=args.max_model_len, max_num_seqs=args.max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens, p95_context=args.p95_context, dtype=args.dtype,
        quantization=args.quantization, kv_cache_dtype=args.kv_cache_dtype, weights_gib=args.weights_gib,
        speculative_config=args.speculative_config, kv_reserve=args.kv_reserve, concurrency=args.concurrency,
        output_tokens_per_second=args.output_tokens_per_second, env=tuple(args.env),
        engine_args=tuple(args.engine_arg), install=args.install,
    )
    if len(gpus) > 1 or len(instance_types) > 1:
        if args.emit:
            raise _Usage("--emit writes one layout: give one --gpu or --instance-type (the comparison names the "
                         "cheapest)")
        cmp = make_comparison(req, gpus, instance_types)
        with _reader_may_leave():  # the reader gone: the exit status still says whether a layout fits
            if as_json:
                print(for_stream(utf8_text(json.dumps(comparison_json(cmp), indent=2, ensure_ascii=False), "json"),
                                 "json", sys.stdout))
            else:
                sys.stdout.write(visible_lines(comparison_text(cmp)))
        return 0 if cmp.ok else 1
    plan = make_plan(replace(req, gpu=gpus[0] if gpus else None,
                             instance_type=instance_types[0] if instance_types else None))
    failure = plan.failure()
    if args.emit:
        from .emit import emit

        if not plan.ok:
            codes = ", ".join(dict.fromkeys(f.code for f in plan.shown.findings if f.blocking))
            why = failure or f"{plan.shown.parallel.text()} has mandatory findings ({codes})"
            print(f"{PROG}: nothing to emit: {utf8_text(visible(why), 'text')}", file=sys.stderr)
            return 1
        from ..report.formats import stream_holds

        text = emit(plan, args.emit)
        with _reader_may_leave():
            sys.stdout.write(text if stream_holds(text, sys.stdout) else emit(plan, args.emit, ascii_only=True))
        return 0
    with _reader_may_leave():
        if as_json:
            text = utf8_text(json.dumps(plan_json(plan), indent=2, ensure_ascii=False), "json")
            print(for_stream(text, "json", sys.stdout))
        else:
            sys.stdout.write(visible_lines(plan_text(plan)))
    if failure:
        print(f"{PROG}: {utf8_text(visible(failure), 'text')}", file=sys.stderr)
    return 0 if plan.ok else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
