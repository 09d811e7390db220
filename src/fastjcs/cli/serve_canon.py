"""`fastjcs serve-canon`: canonicalize documents over the batch protocol."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..core.api import DEFAULT_MAX_DEPTH
from .options import _MAX_DEPTH_HELP, _depth, _examples
from .streams import EXIT_OK, CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve-canon",
        help="canonicalize documents over the batch protocol",
        description="Read base64 lines (one document each) until end of input; answer "
        "each with `ok <base64 canonical bytes>` or `error <why>` "
        "(docs/interop.md).",
        epilog=_examples(
            "fastjcs serve-canon < documents.b64",
            "fastjcs bench --peer 'rfc8785=fastjcs serve-canon --candidate rfc8785'",
        ),
    )
    p.add_argument(
        "--candidate",
        metavar="NAME",
        help="answer with this in-process canonicalizer of `fastjcs bench` instead of fastjcs",
    )
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N", help=_MAX_DEPTH_HELP)
    p.set_defaults(run=cmd_serve_canon)


def cmd_serve_canon(args: argparse.Namespace) -> int:
    """Answer the batch protocol on stdin/stdout (docs/interop.md) with fastjcs, or with an
    in-process canonicalizer `bench` knows (--candidate NAME)."""
    from ..lab import peers as _peers

    canon: Callable[[bytes], bytes]
    if args.candidate is None:
        from ..core import api

        def canon(text: bytes) -> bytes:
            return api.canonicalize(text, max_depth=args.max_depth)
    else:
        from ..lab.canonicalizers import candidates

        found, skipped = candidates()
        chosen = [c for c in found if c.name == args.candidate]
        if not chosen:
            why = skipped.get(args.candidate, "not a candidate `fastjcs bench` knows")
            raise CLIError(f"--candidate {args.candidate}: {why} (known: {', '.join(c.name for c in found)})")
        canon = chosen[0].text
    try:
        _peers.serve(canon, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdin closed (`<&-`: held on /dev/null write-only), or unreadable
        raise CLIError(f"<stdin>: {exc.strerror or exc}") from exc
    return EXIT_OK
