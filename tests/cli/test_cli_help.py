"""The help of every command (every option explained, its default shown, examples that parse),
and the usage errors worded for the user: the command's own help named, "did you mean"."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest
from _cli import fastjcs, one_line_error

from fastjcs.cli import build_parser, parse, subcommands

PARSER = build_parser()
COMMANDS = subcommands(PARSER)


def _actions(parser):
    return [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_argument_is_explained_with_its_default(name):
    sub = COMMANDS[name]
    text = " ".join(sub.format_help().split())  # argparse wraps at the terminal's width
    for action in _actions(sub):
        if action.help == argparse.SUPPRESS:
            continue
        assert action.help, f"fastjcs {name}: {action.option_strings or action.dest} has no help"
        default = action.default
        if default in (None, False) or action.nargs == 0:
            continue
        shown = "stdin" if default in ("-", ["-"]) else str(default)
        assert f"default: {shown}" in text or f"default {shown}" in text, (name, action.dest, shown)


def test_the_options_the_issue_names_have_help_and_defaults():
    bench = " ".join(COMMANDS["bench"].format_help().split())
    for needle in (
        "--json print the result as one JSON object",
        "--min-time SECONDS shortest timing run, in seconds (default: 0.3)",
        "--repeat N timing runs per candidate (the best one counts) (default: 3)",
        "--corpus-size BYTES size of the built-in corpus (without FILE) (default: 1048576)",
    ):
        assert needle in bench
    check = " ".join(COMMANDS["check"].format_help().split())
    assert "--max-depth N deepest nesting of arrays and objects allowed" in check and "(default: 10000)" in check
    for name in ("canon", "digest", "check"):  # FILE and '-'
        text = " ".join(COMMANDS[name].format_help().split())
        assert re.search(r"FILE .*'-' is stdin", text), name


#: A fastjcs command in an example: at the start of a line, or after a pipe, "&&" or "$(" / "<(";
#: up to a redirection, a pipe, a closing parenthesis or a comment.
_COMMAND = re.compile(r"(?:^|[|&(]\s*)fastjcs\b([^|<>)&#]*)")


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_every_command_has_examples_that_parse(name):
    parser = PARSER if name is None else COMMANDS[name]
    epilog = parser.epilog or ""
    assert epilog.startswith("examples:\n"), name
    examples = [line.strip() for line in epilog.splitlines()[1:] if line.strip()]
    assert examples
    text = parser.format_help()
    for line in examples:
        assert line in text  # laid out as written, not re-wrapped
    found = [m for line in examples for m in _COMMAND.findall(line)]
    assert name is None or any(shlex.split(m)[:1] == [name] for m in found), f"no example runs {name}"
    for argv in found:
        parse(build_parser(), shlex.split(argv))  # a usage error would be SystemExit


def test_help_exits_0_with_the_examples():
    p = fastjcs("digest", "--help")
    assert p.returncode == 0 and p.stderr == b""
    assert b"examples:\n  fastjcs digest doc.json\n" in p.stdout
    assert b"(default: sha256)" in p.stdout


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["canon", "--bogus"], "fastjcs canon: unrecognized arguments: --bogus (see 'fastjcs canon --help')"),
        (["digest", "--algorithm", "md5"], "(see 'fastjcs digest --help')"),
        (
            ["bench", "--repeat", "0"],
            "fastjcs bench: argument --repeat: must be >= 1, not 0 (see 'fastjcs bench --help')",
        ),
        (["registry", "create"], "(see 'fastjcs registry --help')"),
        (["--bogus"], "fastjcs: unrecognized arguments: --bogus (see 'fastjcs --help')"),
    ],
)
def test_a_usage_error_names_the_help_of_its_command(argv, needle):
    p = fastjcs(*argv)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, needle)


def test_did_you_mean():
    p = fastjcs("cannon", "doc.json")
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "fastjcs: unknown command 'cannon'; did you mean 'canon'? (see 'fastjcs --help')")
    assert "did you mean 'digest'" in one_line_error(fastjcs("--version", "digst"))
    p = fastjcs("xyzzy")  # nothing close: the commands, still on one line
    assert p.returncode == 2
    one_line_error(p, "fastjcs: unknown command 'xyzzy'; commands: canon, digest, eab,", "completion")


def test_install_hints_work_from_a_checkout():
    """fastjcs is on no package index: `pip install 'fastjcs[plot]'` fails where it is suggested;
    from a checkout, `pip install '.[plot]'` works (the bench test runs the --plot hint itself)."""
    from conftest import REPO

    from fastjcs.cli.common import install_hint

    src = REPO / "src" / "fastjcs"
    for path in [*src.rglob("*.py"), REPO / "docs" / "cli.md"]:
        assert "fastjcs[" not in path.read_text("utf-8"), path
    assert install_hint("plot") == "install the plot extra: pip install '.[plot]' from a fastjcs checkout"


# ---- the lab's options: declared once (cli.options._add_lab_options) for interop and crosscheck -


@pytest.mark.parametrize("command", ["interop", "crosscheck"])
@pytest.mark.parametrize(
    "option, value, why",
    [
        ("--per-category", "0", "must be >= 1, not 0"),  # 0 sampled cases would compare nothing
        ("--timeout", "nan", "must be a finite number of seconds above 0, not nan"),
        ("--timeout", "0", "must be a finite number of seconds above 0, not 0"),
        ("--shrink-budget", "-1", "must be >= 0, not -1"),  # 0 is allowed: no shrinking
        ("--newline", "both", "invalid choice: 'both'"),
        ("--seed", "1.5", "invalid int value: '1.5'"),
    ],
)
def test_the_lab_options_refuse_the_same_values_in_both_commands(command, option, value, why):
    p = fastjcs(command, option, value)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, f"fastjcs {command}: argument {option}: {why}", f"(see 'fastjcs {command} --help')")


def test_a_command_cannot_declare_a_lab_option_with_a_type_of_its_own():
    from fastjcs.cli.options import _add_lab_options, _Parser

    with pytest.raises(TypeError, match="type"):
        _add_lab_options(_Parser(prog="x"), seed={"type": float, "help": "a seed"})
    with pytest.raises(KeyError):
        _add_lab_options(_Parser(prog="x"), seeds={"help": "not one of the lab's options"})
    p = _Parser(prog="x")
    _add_lab_options(p, timeout={"default": 5.0, "help": "per call"}, seed={"help": "a seed"})
    assert [a.option_strings for a in p._actions[1:]] == [["--timeout"], ["--seed"]]  # the order given
    args = p.parse_args(["--timeout", "2.5"])
    assert (args.timeout, args.seed) == (2.5, 8785)
