"""What several commands share: an extra's install hint, the profile options read, a FILE's errors
on one line, the lines of a digests file, and the lab's corpus."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..core.errors import FastJCSError
from .streams import (
    CLIError,
    describe,
)


def install_hint(extra: str) -> str:
    """How to install an extra, from where fastjcs is: a checkout (it is on no package index)."""
    return f"install the {extra} extra: pip install '.[{extra}]' from a fastjcs checkout"


def _profile_args(args: argparse.Namespace) -> tuple[str, tuple[str, ...]]:
    exclusion = tuple(args.exclude or ())
    if exclusion and args.profile != "jcs-n":
        raise CLIError("--exclude applies to --profile jcs-n (CPB's exclusion set)")
    return args.profile, exclusion


def _streamed(path: str) -> bool:
    """Is FILE read in bounded memory (fastjcs.canonicalize_file, digest_file)? A regular file
    is; stdin and other inputs are read whole, as before."""
    return path != "-" and os.path.isfile(path)


@contextmanager
def _file_errors(source: str) -> Iterator[None]:
    """A streamed FILE's errors as one line naming it (with the in-memory route's JSON Lines hint)."""
    try:
        yield
    except FastJCSError as exc:
        raise CLIError(describe(exc, source) + _jsonl_hint(exc)) from exc
    except OSError as exc:
        raise CLIError(f"{source}: {exc.strerror or exc}") from exc


def _jsonl_hint(exc: FastJCSError) -> str:
    """A hint for a JSON Lines text given as one document: a second value on a later line."""
    if "expected end of input" in str(exc) and (getattr(exc, "lineno", None) or 1) > 1:
        return "; one JSON text per line (JSON Lines)? give --jsonl"
    return ""


def _say(line: str) -> None:
    """One line on stdout, a name in it as the bytes it was given as (a name that is not UTF-8,
    held by Python with surrogate escapes, is written back as its bytes, as sha256sum writes it)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(line.encode("utf-8", "surrogateescape") + b"\n")


def _escaped_line(digest: str, name: str) -> str:
    """A line of a digests file: sha256sum's, with its escape for a name holding a backslash, a
    line feed or a carriage return (the line starts with a backslash, and they are written as a
    backslash followed by a backslash, n or r)."""
    if not any(c in name for c in "\\\n\r"):
        return f"{digest}  {name}"
    escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"\\{digest}  {escaped}"


def _shown(name: str) -> str:
    """A name on a line of --check's report: escaped as in a digests file (sha256sum -c's way)."""
    line = _escaped_line("", name)
    return line[0] + line[3:] if line.startswith("\\") else name


def _lab_corpus(sources: list[str], seed: int, per_category: int, name: str) -> tuple[list[Any], dict[str, Any]]:
    """The lab's cases of the named sources, and the run's description for its reports."""
    import datetime

    from .. import __version__
    from ..lab import corpus

    try:
        cases = corpus.load(sources, seed, per_category)
    except (OSError, ValueError, corpus.CorpusCheckError) as exc:
        raise CLIError(f"--corpus: {exc}") from exc
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "fastjcs": __version__,
        "seed": seed,
        "per_category": per_category,
        "corpus": ", ".join(map(corpus.printable, sources)),
        "command": f"fastjcs {name} "
        + " ".join(f"--corpus {corpus.printable(s)}" for s in sources)
        + f" --seed {seed} --per-category {per_category}",
    }
    return cases, meta
