"""`fastjcs crosscheck`: hold another implementation against fastjcs (the vector protocol, the
canon protocol over the lab's corpus)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..conformance import default_suites
from .common import _lab_corpus
from .options import _add_lab_options, _examples, _positive
from .streams import EXIT_NEGATIVE, EXIT_OK, CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "crosscheck",
        help="hold another implementation against fastjcs",
        description="Run the vectors through CMD over the vector protocol and/or the "
        "interop lab's corpus through CMD over the canon protocol (a one-shot peer of "
        "`interop`: its classes, one shrunk reproducer per class); exit 1 on any "
        "disagreement or failure.",
        epilog=_examples(
            "fastjcs crosscheck --impl 'python3 -m fastjcs serve-vector'",
            "fastjcs crosscheck --canon-impl 'node canon.js' --corpus gen --seed 1",
        ),
    )
    p.add_argument(
        "--impl",
        metavar="CMD",
        help='vector protocol: a vector on stdin, {"pre_image", "digest"} on stdout, non-zero exit to refuse',
    )
    p.add_argument(
        "--canon-impl",
        metavar="CMD",
        help="canon protocol: a JSON text on stdin, its canonical bytes on stdout, non-zero exit to refuse",
    )
    p.add_argument("--vectors", action="append", metavar="PATH", help="suites for --impl (default: as `vectors`)")
    _add_lab_options(
        p,
        corpus={
            "help": "--canon-impl: the lab's corpus, as for `interop` (quick, gen, vectors, es6:N, a file or "
            "folder; default: quick, about 200 cases, a process each)"
        },
        seed={"help": "--canon-impl: seed of the sampled cases"},
        per_category={
            "default": None,
            "help": "--canon-impl with --corpus gen: sampled cases per category (default 50)",
        },
        newline={
            "help": "canon protocol: strip one final line ending from each answer, or keep it and compare bytes exactly"
        },
        shrink_budget={"default": 300, "metavar": "CALLS", "help": "calls spent shrinking each disagreement"},
        timeout={"default": 20.0, "help": "per call"},
    )
    # gone with the generator the canon protocol had of its own: a one-line error says what replaces them
    p.add_argument("--documents", default=None, help=argparse.SUPPRESS)
    p.add_argument("--per-kind", default=None, help=argparse.SUPPRESS)
    p.add_argument("--parallel", type=_positive, default=2, metavar="N", help="calls at once")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=cmd_crosscheck)


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from ..lab import crosscheck as cc

    if args.impl is None and args.canon_impl is None:
        raise CLIError("give --impl CMD (vector protocol) and/or --canon-impl CMD (canon protocol)")
    if args.documents is not None:
        raise CLIError(
            "--documents is gone: --canon-impl runs the interop lab's corpus; choose it with --corpus SOURCE "
            "(quick by default, gen, es6:N, a file) and --per-category N (docs/interop.md)"
        )
    if args.per_kind is not None:
        raise CLIError(
            "--per-kind is gone: --canon-impl counts every failure by class and shows one shrunk "
            "reproducer per class and family of cases (docs/interop.md)"
        )
    # An option for a protocol that is not run would be silently ignored: refuse it.
    if args.vectors and args.impl is None:
        raise CLIError("--vectors feeds --impl (the vector protocol); --canon-impl takes the lab's corpus (--corpus)")
    if (args.corpus or args.per_category is not None) and args.canon_impl is None:
        raise CLIError("--corpus and --per-category feed --canon-impl (the canon protocol); --impl takes --vectors")
    summary, matrix = cc.Summary(), None
    try:
        if args.impl is not None:
            paths = [Path(p) for p in args.vectors] if args.vectors else default_suites()
            cc.run_vectors(args.impl, paths, summary, args.timeout, args.parallel)
    except cc.NothingCompared as exc:
        raise CLIError(str(exc)) from exc
    if args.canon_impl is not None:
        from ..lab import corpus
        from ..lab import interop as lab
        from ..lab.peers import PeerSpec, ended_on_signal

        spec = PeerSpec("canon-impl", args.canon_impl, "one-shot")
        sources = args.corpus or list(corpus.CANON_SOURCES)
        per_category = 50 if args.per_category is None else args.per_category
        cases, meta = _lab_corpus(sources, args.seed, per_category, "crosscheck")
        try:
            with ended_on_signal():
                matrix = lab.run_matrix(
                    [spec], cases, meta, args.timeout, args.shrink_budget, args.newline, False, args.parallel
                )
        except lab.NothingCompared as exc:
            raise CLIError(str(exc)) from exc
    ok = summary.ok and (matrix is None or matrix.ok)
    if args.json:
        body = summary.as_dict() if args.impl is not None else {}
        if matrix is not None:
            body["canon"] = matrix.as_dict()
        print(json.dumps({**body, "ok": ok}, ensure_ascii=False))
    else:
        print("\n".join(([summary.report()] if args.impl is not None else []) + ([matrix.text()] if matrix else [])))
    return EXIT_OK if ok else EXIT_NEGATIVE
