"""`fastjcs check`: the CPB checker's verdict on each record."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.api import DEFAULT_MAX_DEPTH
from ..core.errors import FastJCSError
from .common import _say, _shown
from .options import _MAX_DEPTH_HELP, _depth, _examples
from .streams import (
    EXIT_ERROR,
    EXIT_OK,
    CLIError,
    describe,
    one_line,
    open_input,
    source_name,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="the CPB checker: is a record in jcs-n normal form?",
        description="Exit 0 verified, 1 non-conforming (violations listed as rule, "
        "JSON path, code, position), 2 not JSON or another error. With several FILEs, each "
        "verdict named; a FILE that is not JSON is one line on stderr and the others go on (exit 2).",
        epilog=_examples(
            "fastjcs check record.json", "fastjcs check --json - < record.json", "fastjcs check records/*.json"
        ),
    )
    p.add_argument(
        "file",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help="JSON records; '-' is stdin (several: each verdict named, '<name>: <verdict>')",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print the verdict as one JSON object (several FILEs: one per line, with "file")',
    )
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N", help=_MAX_DEPTH_HELP)
    p.set_defaults(run=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """One record: its verdict and violations. Several: each named (`<name>: <verdict>`, or a
    JSON object per line with its "file"), in order; a FILE that cannot be read or is not JSON is
    one line on stderr and the others go on. Exit 2 if any FILE failed, else 1 if any record is
    non-conforming, else 0."""
    files = args.file
    if files.count("-") > 1:
        raise CLIError("'-' (stdin) can be given once")
    if len(files) == 1:
        return _report_check(args, files[0], *_check_one(args, files[0]), named=False)
    status = EXIT_OK
    for path in files:
        try:
            checked = _check_one(args, path)
        except CLIError as exc:  # this FILE; a failure to write stdout ends the run
            sys.stdout.flush()
            print(f"fastjcs check: {one_line(str(exc))}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        verdict = _report_check(args, path, *checked, named=True)
        if verdict != EXIT_OK and status == EXIT_OK:
            status = verdict
    return status


def _check_one(args: argparse.Namespace, path: str) -> tuple[Any, Any]:
    """The CPB checker's result for FILE and its line index; CLIError when it cannot be read or is
    not JSON."""
    from ..core.errors import LineIndex
    from ..cpb import check

    with open_input(path) as data:
        raw = bytes(data)
    try:
        result = check(raw, max_depth=args.max_depth)
    except FastJCSError as exc:
        raise CLIError(describe(exc, source_name(path))) from exc
    return result, LineIndex(raw)  # the violations come in offset order: one pass for all of them


def _report_check(args: argparse.Namespace, path: str, result: Any, where: Any, named: bool) -> int:
    source = source_name(path)
    if args.json:
        body = result.as_dict()
        for v in body["violations"]:
            v["line"], v["column"] = where(v["offset"])
        print(json.dumps({"file": source, **body} if named else body, ensure_ascii=False))
    else:
        _say(f"{_shown(source)}: {result.verdict}" if named else result.verdict)
        for v in result.violations:
            line, column = where(v.offset)
            _say(f"{v.rule} {v.path} {v.code} {source}:{line}:{column}")
    return result.exit_code
