"""`fastjcs vectors`: run vector suites (CPB, EAB, Agent Action Capsule) with mutation probes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..conformance import default_suites
from .options import _examples
from .streams import EXIT_NEGATIVE, EXIT_OK, CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "vectors",
        help="run vector suites with mutation probes",
        description="Run CPB suites (directories) and EAB vector files; default: the "
        "CPB and EAB suites shipped with fastjcs.",
        epilog=_examples("fastjcs vectors", "fastjcs vectors path/to/cpb-suite eab-vectors.json --json"),
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a CPB suite (a directory) or an EAB vector file (default: the suites shipped)",
    )
    p.add_argument("--json", action="store_true", help="print the summaries as one JSON object")
    p.add_argument("--no-probes", action="store_true", help="skip the mutation probes")
    p.add_argument(
        "--draft",
        choices=("-00", "-01", "-02", "-03", "-04", "-05", "-06"),
        default=None,
        help="the CPB draft revision the CPB suites follow (default: -06; fastjcs's own suite: -01)",
    )
    p.set_defaults(run=cmd_vectors)


def suite_kind(path: Path) -> str:
    """ "eab" for an EAB vector file or a directory whose JSON files all are; "capsule" for a
    directory in the Agent Action Capsule layout; "cpb" otherwise."""
    from ..conformance.capsule_vectors import is_capsule_suite
    from ..conformance.eab_vectors import is_eab_file
    from ..conformance.reader import read_document

    if is_capsule_suite(path):
        return "capsule"
    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    try:
        if files and all(is_eab_file(read_document(f.read_bytes())) for f in files):
            return "eab"
    except (OSError, ValueError, RecursionError):  # not an EAB file: the CPB runner names what is wrong
        pass
    return "cpb"


def run_suite(path: Path, probes: bool, draft: str | None = None):
    from ..conformance import cpb_vectors as vectors
    from ..conformance import eab_vectors as _eab_vectors

    kind = suite_kind(path)
    if kind == "eab":
        files = [path] if path.is_file() else sorted(path.rglob("*.json"))
        return _eab_vectors.run_vectors(files, str(path), probes=probes)
    if kind == "capsule":
        from ..conformance import capsule_vectors

        return capsule_vectors.run_vectors(path, probes=probes)
    if path.is_file():
        raise CLIError(f"{path}: a CPB suite is a directory of vector files")
    return vectors.run_vectors(path, probes=probes, draft=draft)


def cmd_vectors(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or default_suites()
    for p in paths:
        if not p.exists():
            raise CLIError(f"{p}: no such file or directory")
    summaries = [run_suite(p, not args.no_probes, getattr(args, "draft", None)) for p in paths]
    for p, s in zip(paths, summaries):  # a suite of no vector compared nothing: not a pass
        if not s.vectors:
            raise CLIError(f"{p}: no vectors found (nothing compared)")
    ok = all(s.ok for s in summaries)
    if args.json:
        print(json.dumps({"ok": ok, "suites": [s.as_dict() for s in summaries]}, ensure_ascii=False))
    else:
        for s in summaries:
            print(s.report())
        total = sum(len(s.vectors) for s in summaries)
        failed = sum(len(s.failed) + len(s.unclaimed) + len(s.assertion_free) for s in summaries)
        print(
            f"{'OK' if ok else 'FAILED'}: {len(summaries)} suite(s), {total} vectors, "
            f"{sum(len(s.probes) for s in summaries)} mutation probes, {failed} problem(s)"
        )
    return EXIT_OK if ok else EXIT_NEGATIVE
