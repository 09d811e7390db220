"""`fastjcs eab`: compute or verify an Execution Action Binding v1."""

from __future__ import annotations

import argparse
import json
import sys

from ..core.errors import FastJCSError
from ..core.hashing import ALGORITHMS
from .options import _examples
from .streams import (
    EXIT_NEGATIVE,
    EXIT_OK,
    CLIError,
    describe,
    read_all,
    source_name,
)

_EAB_FIELDS = ("agent_id", "action_type", "action_scope", "action_timestamp")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eab",
        help="compute or verify an Execution Action Binding v1",
        description="Compute the cMCP Execution Action Binding v1 of an action, from "
        "the four fields or a JSON preimage file; --verify compares.",
        epilog=_examples(
            "fastjcs eab --agent-id agent-7 --action-type tool.call --action-scope billing "
            "--action-timestamp 2026-01-01T00:00:00Z",
            "fastjcs eab --preimage action.json --print-preimage",
            "fastjcs eab --preimage action.json --verify sha256:<hex>",
        ),
    )
    for name in _EAB_FIELDS:
        p.add_argument("--" + name.replace("_", "-"), dest=name, metavar="TEXT", help=f"the action's {name} (a string)")
    p.add_argument("--preimage", metavar="FILE", help="a JSON preimage object ('-' for stdin)")
    p.add_argument(
        "--algorithm",
        choices=tuple(ALGORITHMS),
        default=None,
        help="sha256 or sha384 (default: sha256; with --verify, the binding's own)",
    )
    p.add_argument(
        "--verify",
        metavar="BINDING",
        help="exit 0 if BINDING is the binding, 1 if not, 2 if BINDING or the input is invalid",
    )
    p.add_argument("--print-preimage", action="store_true", help="also print the JCS preimage bytes")
    p.set_defaults(run=cmd_eab)


def cmd_eab(args: argparse.Namespace) -> int:
    from .. import eab
    from ..core.digests import parse_digest

    given = {name: getattr(args, name) for name in _EAB_FIELDS if getattr(args, name) is not None}
    if args.preimage is not None and given:
        raise CLIError("give the four action fields or --preimage FILE, not both")
    algorithm = args.algorithm
    if args.verify is not None:
        try:
            parsed = parse_digest(args.verify)
        except FastJCSError as exc:
            raise CLIError(f"--verify: {type(exc).__name__}: {exc}") from exc
        algorithm = algorithm or parsed.algorithm
    algorithm = algorithm or "sha256"
    try:
        if args.preimage is not None:
            source = source_name(args.preimage)
            data = read_all(args.preimage)
            try:  # strict JSON first, so a bad file is reported with its position
                value = json.loads(_canonical_text(data))
            except FastJCSError as exc:
                raise CLIError(describe(exc, source)) from exc
            fields = eab.parse_preimage(value)
        else:
            missing = [f"--{name.replace('_', '-')}" for name in _EAB_FIELDS if name not in given]
            if missing:
                raise CLIError("missing " + ", ".join(missing) + " (or give --preimage FILE)")
            fields = eab.ActionFields(*(given[name] for name in _EAB_FIELDS))
        binding = eab.binding(*fields, algorithm=algorithm)
    except FastJCSError as exc:
        raise CLIError(f"{type(exc).__name__}: {exc}") from exc
    if args.print_preimage:
        sys.stdout.buffer.write(eab.preimage(*fields) + b"\n")
    if args.verify is None:
        print(binding)
        return EXIT_OK
    if binding == args.verify:
        print("match")
        return EXIT_OK
    print(f"mismatch: the preimage binds to {binding}")
    return EXIT_NEGATIVE


def _canonical_text(data: bytes) -> bytes:
    from ..core.api import canonicalize

    return canonicalize(data)
