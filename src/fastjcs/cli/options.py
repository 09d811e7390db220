"""The argument types and option helpers the commands' parsers share: counts, seconds and depths
checked as they are parsed, the help formatter, the parser whose usage error is one line, and
the options several commands declare alike."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, NoReturn

from ..core.api import DEFAULT_MAX_DEPTH
from .streams import EXIT_ERROR


def _count(text: str) -> int:
    """A number of things where 0 means something (none; for --jobs, one per CPU)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _positive(text: str) -> int:
    """A number of things where 0 means nothing (repeats, calls at once, bytes of a corpus)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0 (nan waits forever or fails inside,
    a negative one or 0 times every call out at once)."""
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text}")
    return value


def _duration(text: str) -> float:
    """A time to spend: a finite number of seconds, 0 or more (nan never ends a loop)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, 0 or more, not {text}")
    return value


_seconds.__name__ = _duration.__name__ = "seconds"  # argparse: "invalid seconds value: 'x'"


def _depth(text: str) -> int:
    """--max-depth: as _count, and at most sys.maxsize (2^63-1 on 64-bit machines): a number
    past any depth a machine can hold is taken for a mistake, not for "no limit"."""
    value = _count(text)
    if value > sys.maxsize:
        raise argparse.ArgumentTypeError(f"must be at most {sys.maxsize}, not {text}")
    return value


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help with each option's default ("(default: X)", unless the help already says it or there
    is nothing to say: no default, a flag), descriptions wrapped, and an epilog kept as written
    (a text with a line break is laid out by hand: the examples)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default in (None, False, argparse.SUPPRESS)
            or isinstance(action, argparse._StoreConstAction)  # a flag: store_true/false, const
            or not (action.option_strings or action.nargs in ("?", "*"))
        ):
            return action.help
        shown = "stdin" if default in ("-", ["-"]) else str(default).replace("%", "%%")
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line on stderr (exit 2), like every other error,
    naming the help of the command that was given (`fastjcs canon --help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())  # one line, whatever argparse wrapped
        self.exit(EXIT_ERROR, f"{self.prog}: {message} (see '{self.prog} --help')\n")


_MAX_DEPTH_HELP = "deepest nesting of arrays and objects allowed; deeper input is an error (exit 2)"
_FILES_HELP = "JSON text files; '-' is stdin"


def _examples(*lines: str) -> str:
    """An epilog: the examples of a command, one per line, kept as written."""
    return "examples:\n" + "".join(f"  {line}\n" for line in lines)


def _add_text_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict-integers",
        action="store_true",
        help="refuse integer tokens outside +/-(2^53-1) instead of rounding them (I-JSON)",
    )
    p.add_argument(
        "--integers-only",
        action="store_true",
        help="integer-only JCS: also refuse number tokens with a fraction or an exponent part (1.0, 1e2, -0.0)",
    )
    p.add_argument(
        "--max-depth",
        type=_depth,
        default=DEFAULT_MAX_DEPTH,
        metavar="N",
        help=_MAX_DEPTH_HELP,
    )


def _add_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        choices=("jcs", "jcs-n"),
        default="jcs",
        help="jcs: RFC 8785; jcs-n (withdrawn by CPB draft -06, for vintage records; "
        "warns): CPB's normal form first (null, [] and {} members removed, integers only, NFC-distinct names)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        metavar="NAME",
        help="jcs-n: leave out this top-level member (repeatable; CPB's exclusion set)",
    )


#: The interop lab's options, declared once for the commands that run the lab (`interop`, and
#: `crosscheck --canon-impl`): what they share, each option's type, metavar, choices and shared
#: default. Each command gives its own help and, where it differs, its default (and metavar).
_LAB_OPTIONS: dict[str, dict[str, Any]] = {
    "corpus": {"action": "append", "metavar": "SOURCE"},
    "seed": {"type": int, "default": 8785},
    "per_category": {"type": _positive, "metavar": "N"},
    "timeout": {"type": _seconds, "metavar": "SECONDS"},
    "shrink_budget": {"type": _count},
    "newline": {"choices": ("strip", "keep"), "default": "strip"},
}


def _add_lab_options(p: argparse.ArgumentParser, **options: dict[str, Any]) -> None:
    """The lab's options named, in the order given (their order in --help), each with what the
    command gives it: its help, and its default where the commands differ
    (`per_category={"default": 50, "help": ...}`). What `_LAB_OPTIONS` declares cannot be given
    again (a TypeError as the parser is built): a command cannot drift from the shared type."""
    for name, own in options.items():
        p.add_argument("--" + name.replace("_", "-"), **_LAB_OPTIONS[name], **own)
