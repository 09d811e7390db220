"""`fastjcs interop`: the interop lab, its peers over a corpus, and the matrix."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .common import _lab_corpus
from .options import _add_lab_options, _examples
from .streams import EXIT_NEGATIVE, EXIT_OK, CLIError, open_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "interop",
        help="the interop lab: run canonicalizers over a corpus, write the matrix",
        description="Put every case of the corpus to each peer (batch protocol, or one "
        "process per document), classify every answer, shrink a reproducer "
        "per class of failure, print the matrix (docs/interop.md). Exit 1 when "
        "a peer fails a case, 2 when nothing was compared.",
        epilog=_examples(
            "fastjcs interop --fastjcs --peers interop/build/peers.json --markdown matrix.md",
            "fastjcs interop --one-shot 'node=node canon.js' --corpus gen --per-category 10",
        ),
    )
    p.add_argument("--peer", action="append", metavar="NAME=CMD", help="a peer speaking the batch protocol")
    p.add_argument(
        "--one-shot",
        action="append",
        metavar="NAME=CMD",
        help="a peer run once per document (JSON on stdin, canonical bytes on stdout)",
    )
    p.add_argument("--peers", action="append", metavar="FILE", help="a peers manifest (interop/setup.sh writes one)")
    p.add_argument("--fastjcs", action="store_true", help="also run fastjcs itself, as a peer (the reference row)")
    p.add_argument("--only", action="append", metavar="NAME", help="peers whose name contains NAME")
    _add_lab_options(
        p,
        corpus={
            "help": "gen, quick, vectors, vectors:PATH, es6:N, or a JSONL file or folder of documents "
            "(default: gen, es6:2000)"
        },
        seed={"help": "seed of the sampled cases"},
        per_category={
            "default": 50,
            "help": "sampled cases per category, on top of the listed ones (every entry of every list, always)",
        },
        timeout={"default": 10.0, "help": "per answer"},
        shrink_budget={"default": 400, "metavar": "CASES", "help": "per class of failure"},
        newline={"help": "--one-shot: strip one final line ending from each answer, or keep it"},
    )
    p.add_argument("--markdown", metavar="PATH", help="write the matrix as markdown")
    p.add_argument("--html", metavar="PATH", help="write the matrix as a self-contained HTML page")
    p.add_argument("--json", dest="json_report", metavar="PATH", help="write everything as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(run=cmd_interop)


def _lab_peers(args: argparse.Namespace) -> tuple[list[Any], list[dict[str, str]]]:
    """The peers named on the command line (and their manifests' skipped peers)."""
    from ..lab.peers import PeerSpec, parse_peer, read_manifest

    specs: list[Any] = []
    skipped: list[dict[str, str]] = []
    try:
        for path in args.peers or ():
            found, left_out = read_manifest(path)
            specs += found
            skipped += left_out
        specs += [parse_peer(t) for t in args.peer or ()]
        specs += [parse_peer(t, "one-shot") for t in args.one_shot or ()]
    except OSError as exc:
        raise CLIError(f"{exc.filename}: {exc.strerror}") from exc
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    if args.fastjcs:
        from .. import __version__

        specs.insert(
            0,
            PeerSpec(
                "fastjcs",
                f"{sys.executable} -m fastjcs serve-canon",
                "batch",
                "PyPI",
                "Python + C",
                "fastjcs",
                __version__,
            ),
        )
    if args.only:
        specs = [s for s in specs if any(o in s.name for o in args.only)]
    if not specs:
        raise CLIError("no peer to run: give --peer NAME=CMD, --one-shot NAME=CMD, --peers FILE or --fastjcs")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise CLIError(f"two peers share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    return specs, skipped


def cmd_interop(args: argparse.Namespace) -> int:
    from ..lab import corpus
    from ..lab import interop as lab

    specs, skipped = _lab_peers(args)
    sources = args.corpus or list(corpus.DEFAULT_SOURCES)
    cases, meta = _lab_corpus(sources, args.seed, args.per_category, "interop")
    from ..lab.peers import ended_on_signal

    try:
        with ended_on_signal():  # a SIGTERM or SIGHUP ends the peers too (they have their own sessions)
            matrix = lab.run_matrix(
                specs, cases, meta, args.timeout, args.shrink_budget, args.newline, not args.no_progress
            )
    except lab.NothingCompared as exc:
        raise CLIError(str(exc)) from exc
    matrix.skipped = skipped
    for path, render in (
        (args.markdown, matrix.markdown),
        (args.html, matrix.html),
        (args.json_report, lambda: json.dumps(matrix.as_dict(), ensure_ascii=False, indent=1)),
    ):
        if path is not None:
            with open_output(path) as out:
                out.write(render().encode("utf-8"))
    print(matrix.text())
    return EXIT_OK if matrix.ok else EXIT_NEGATIVE
