"""The `fastjcs` command line.

    fastjcs canon [FILE ...] [-o PATH] [--check] [--profile jcs|jcs-n] [--exclude NAME]...
                  [--strict-integers] [--integers-only] [--max-depth N]
    fastjcs digest [FILE ...] [--algorithm sha256|sha384] [--profile jcs|jcs-n] [--exclude NAME]...
                   [--check | --expect DIGEST]
                   [--quiet] [--status] [--ignore-missing] [--strict] [--warn]
                   [--jsonl [--jobs N] [--fail-fast] [--no-progress]] [--strict-integers]
                   [--integers-only] [--max-depth N]
    fastjcs eab (--agent-id A --action-type T --action-scope S --action-timestamp TS | --preimage FILE)
                [--algorithm sha256|sha384] [--verify BINDING] [--print-preimage]
    fastjcs registry (create | migrate) TARGET
    fastjcs check [FILE ...] [--json] [--max-depth N]
    fastjcs vectors [PATH ...] [--json] [--no-probes] [--draft -0N]
    fastjcs crosscheck (--impl CMD | --canon-impl CMD) [--vectors PATH]... [--corpus SOURCE]... [--seed S]
                       [--per-category N] [--newline strip|keep] [--timeout SECONDS]
    fastjcs interop [--peer NAME=CMD]... [--one-shot NAME=CMD]... [--peers FILE]... [--fastjcs]
                    [--corpus SOURCE]... [--seed S] [--per-category N] [--markdown PATH] [--html PATH]
    fastjcs serve-vector [FILE]
    fastjcs serve-canon [--candidate NAME]
    fastjcs bench [FILE] [--mode text|object] [--json] [--plot PATH] [--only NAME]...
                  [--impl-cmd NAME=COMMAND]... [--peer NAME=COMMAND]... [--peers FILE]...
    fastjcs completion bash|zsh|fish

Input is FILE, or stdin when FILE is absent or "-"; `COMMAND --help` gives every option's
default and examples. Exit status: 0 success, 1 a negative verdict (a mismatch, a non-conforming
record, a failed vector, a disagreement), 2 bad input or usage (a FILE, or a line of JSON Lines,
that cannot be read or digested: also when the others were done). Errors go to stderr on one
line, with the position for text input. docs/cli.md describes every command and the decisions
behind them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from .options import _examples, _Parser
from .streams import (
    EXIT_ERROR,
    EXIT_OK,
    CLIError,
    _reader_gone,
    _standard_streams,
    interrupted_status,
    one_line,
    stop_signals,
)

#: The commands: name -> the module of this package with its `register(sub)`, in the order of
#: `fastjcs --help` (completion's is below: its module, the scripts, is loaded only when it runs).
#: A module is imported when its command is built: `fastjcs digest` loads neither the lab's
#: commands nor what they import (pathlib, the conformance suites, bench's dataclasses).
_COMMANDS = {
    "canon": "canon",
    "digest": "digest",
    "eab": "eab",
    "registry": "registry",
    "check": "check",
    "vectors": "vectors",
    "crosscheck": "crosscheck",
    "serve-vector": "serve_vector",
    "interop": "interop",
    "serve-canon": "serve_canon",
    "bench": "bench",
}


# ---- the parser ------------------------------------------------------------------------------


def _register_completion(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script for SHELL, made from this parser: every command, "
        "its options and their choices. Load it in the shell's start-up file.",
        epilog=_examples(
            "source <(fastjcs completion bash)          # in ~/.bashrc",
            "fastjcs completion zsh > ~/.zfunc/_fastjcs  # a directory on $fpath",
            "fastjcs completion fish > ~/.config/fish/completions/fastjcs.fish",
        ),
    )
    p.add_argument("shell", choices=("bash", "zsh", "fish"), metavar="SHELL", help="bash, zsh or fish")
    p.set_defaults(run=cmd_completion)


def cmd_completion(args: argparse.Namespace) -> int:
    from .completion import script

    sys.stdout.write(script(build_parser(), args.shell))
    return EXIT_OK


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, when `only` names one, of that command alone (what a run
    of that command needs: the other commands' modules are not imported)."""
    parser = _Parser(
        prog="fastjcs",
        description="RFC 8785 JSON canonicalization (JCS). 'fastjcs COMMAND --help' describes a command. "
        "Exit status: 0 success; 1 a negative verdict (a mismatch, a non-conforming record, a failed "
        "vector, a disagreement); 2 bad input or usage (a FILE or a line of JSON Lines that cannot be "
        "read or digested, also when the others were done), with one line on stderr.",
        epilog=_examples(
            "fastjcs canon doc.json",
            "fastjcs digest a.json b.json > SUMS && fastjcs digest --check SUMS",
            "fastjcs --version --verbose",
            "source <(fastjcs completion bash)",
        ),
    )
    parser.add_argument("--version", action="store_true", help="print the version and the backend in use, and exit")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="with --version: also why the C core is or is not in use, and the versions "
        "of Python, cffi and pycryptodome",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from importlib import import_module

    for name, module in _COMMANDS.items():
        if only is None or only == name or only not in _COMMANDS:
            import_module(f".{module}", __name__).register(sub)
    if only is None or only not in _COMMANDS:
        _register_completion(sub)
    return parser


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The command a command line names: its first word that is not an option (the program's
    options before it are flags), as `parse` reads it."""
    words = sys.argv[1:] if argv is None else argv
    return next((a for a in words if not a.startswith("-")), None)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands of the parser and the parser of each, in the order of `fastjcs --help`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """parse_args, with the usage errors argparse words for the whole program worded for the user:
    an unknown command with the closest one ("did you mean 'canon'?"), and an unknown option of a
    command naming that command's help ('fastjcs canon --help'), not the program's."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = subcommands(parser)
    given = _command_of(argv)
    if given is not None and given not in commands:
        import difflib

        close = difflib.get_close_matches(given, list(commands), n=1)
        hint = f"did you mean '{close[0]}'?" if close else "commands: " + ", ".join(commands)
        parser.error(f"unknown command '{given}'; {hint}")
    args, extra = parser.parse_known_args(argv)
    where = commands.get(getattr(args, "command", None) or "", parser)
    if extra:
        where.error(f"unrecognized arguments: {' '.join(extra)}{_closest_option(where, extra)}")
    if args.version and args.command is not None:
        parser.error(f"--version takes no COMMAND ('{args.command}' given): 'fastjcs --version [--verbose]'")
    return args


def _closest_option(parser: argparse.ArgumentParser, extra: Sequence[str]) -> str:
    """ "; did you mean '--algorithm'?" for the first unknown option that is close to one of the
    command's options (a typo: `--algoritm`, `--jsnl`), or nothing."""
    import difflib

    known = [o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings]
    for word in extra:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.partition("=")[0], known, n=1, cutoff=0.75)
            if close:
                return f"; did you mean '{close[0]}'?"
    return ""


def version_report(verbose: bool = False) -> str:
    """`fastjcs --version`: the version and the backend; with `verbose`, why that backend (the
    C core's import error when it is not in use), where the extension is, and the versions of
    what fastjcs runs on."""
    import platform

    from ..core import backends

    lines = [f"fastjcs {__version__} ({backends.backend()} backend)"]
    if not verbose:
        return lines[0]
    lines.append(f"backend: {backends.why()}")
    native = backends.native_report("sha256")
    if native is not None:
        path, small_calls, oneshot = native
        lines.append(f"C core: {path}")
        lines.append(f"small calls: {small_calls}")
        lines.append(
            "digests in C: pycryptodome's compiled SHA-256 one-shot "
            + ("found" if oneshot else "not found (digests hash through pycryptodome's Python API)")
        )
    lines.append(
        f"python: {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.system()} {platform.machine()}"
    )
    for dist in ("cffi", "pycryptodome"):
        lines.append(f"{dist}: {_dist_version(dist)}")
    return "\n".join(lines)


def _dist_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


#: One line on stderr after a run with --profile jcs-n (CPB draft -06 withdrew it).
JCS_N_WARNING = "jcs-n is withdrawn (CPB draft -06, 2026-08-18): for checking vintage records only; new digests use jcs"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: its exit status. SIGINT, SIGTERM and SIGHUP end a command cleanly (its
    temporary files removed), with one line on stderr and 128 + the signal's number (130 for
    SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""
    _standard_streams()
    with stop_signals():
        return _main(argv)


def _what_did_not_fit(args: argparse.Namespace | None) -> str:
    """The inputs of the command (for an error that has no file of its own)."""
    files = getattr(args, "file", None)
    names = [files] if isinstance(files, str) else list(files or [])
    names = ["stdin" if n == "-" else str(n) for n in names]
    if not names:
        return "the input"
    return "the input " + ", ".join(names[:3]) + (f" (and {len(names) - 3} more)" if len(names) > 3 else "")


def _main(argv: Sequence[str] | None) -> int:
    name = "fastjcs"
    args: argparse.Namespace | None = None
    try:
        given = _command_of(argv)
        parser = build_parser(given if given in _COMMANDS else None)
        try:
            args = parse(parser, argv)
            if not args.version and (args.verbose or args.command is None):
                parser.error("give a COMMAND (or --version, with --verbose for the details)")
        except SystemExit as exc:  # --help (0) or a usage error (2): argparse printed it
            status = exc.code if isinstance(exc.code, int) else EXIT_ERROR
        else:
            if args.version:
                print(version_report(args.verbose))
                status = EXIT_OK
            else:
                name = f"fastjcs {args.command}"
                status = args.run(args)
        sys.stdout.flush()  # here, where a failure is reported, not at the interpreter's exit
        if getattr(args, "profile", None) == "jcs-n":  # asked for by name: computed, with a warning
            print(f"{name}: warning: {JCS_N_WARNING}", file=sys.stderr)
        return status
    except CLIError as exc:
        print(f"{name}: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return _reader_gone()
    except MemoryError:  # one line naming what did not fit, never a traceback
        print(
            f"{name}: out of memory: {_what_did_not_fit(args)} did not fit in the memory this process may use",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except RecursionError:  # a document nested past what Python code walks (a vector file, a manifest)
        print(f"{name}: {_what_did_not_fit(args)}: nested too deep to be read", file=sys.stderr)
        return EXIT_ERROR
    except ValueError as exc:  # e.g. a name with a NUL byte given to open(): one line, not a traceback
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:  # SIGINT, or Interrupted: SIGTERM, SIGHUP
        status, signame = interrupted_status(exc)
        try:
            print(f"{name}: interrupted ({signame})", file=sys.stderr)
            sys.stderr.flush()
        except KeyboardInterrupt:
            pass
        return status
