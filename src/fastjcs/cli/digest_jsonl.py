"""`fastjcs digest --jsonl`: a digest per line of each FILE, with its progress bar."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from contextlib import ExitStack
from typing import Any, Callable

from .streams import (
    EXIT_ERROR,
    EXIT_OK,
    CLIError,
    one_line,
    open_source,
    source_name,
)


def _progress_bar(
    args: argparse.Namespace, path: str
) -> tuple[Callable[[int], None] | None, Callable[[], None], Callable[[], None]]:
    """A progress bar on stderr when stderr is a terminal and the input a named file: tqdm's when
    it is installed (the `progress` extra), else a line of fastjcs's own; nothing otherwise. Its
    update(bytes), close() and wipe() (before a message on stderr: ours is redrawn after it)."""
    nothing = (None, lambda: None, lambda: None)
    if args.no_progress or path == "-" or not sys.stderr.isatty():
        return nothing
    try:
        total = os.path.getsize(path)
    except OSError:
        return nothing  # open_source names the file and the reason
    try:
        from tqdm import tqdm
    except ImportError:
        bar = _Progress(total)
        return bar.update, bar.close, bar.close
    tq = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="digest", file=sys.stderr, leave=False)
    return tq.update, tq.close, lambda: None


class _Progress:
    """`digest: 41.2 MiB of 100.0 MiB (41%)` on stderr, redrawn in place at most 5 times a second,
    wiped at the end (as tqdm's bar with leave=False): the bar without the tqdm extra."""

    def __init__(self, total: int) -> None:
        import time

        self._clock = time.monotonic
        self.total, self.done, self._drawn, self._width = total, 0, 0.0, 0

    def update(self, n: int) -> None:
        self.done += n
        now = self._clock()
        if now - self._drawn >= 0.2 or self.done >= self.total:
            self._drawn = now
            share = f" ({100 * self.done // self.total}%)" if self.total else ""
            text = f"digest: {_mib(self.done)} of {_mib(self.total)}{share}"
            sys.stderr.write("\r" + text.ljust(self._width))
            sys.stderr.flush()
            self._width = len(text)

    def close(self) -> None:
        """Wipe the line (at the end, or before a message: the next update draws it again)."""
        if self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
            self._width, self._drawn = 0, 0.0


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _jsonl_workers(path: str, jobs: int, chunk: int) -> int:
    """The workers of `digest --jsonl --jobs N`: at most one per CPU and one per chunk of a file
    (`fastjcs.bulk.jsonl.workers_for`); a request that is capped is said on stderr, once."""
    from ..bulk import jsonl as _jsonl

    size = None
    if path != "-":
        try:
            info = os.stat(path)
            size = info.st_size if stat.S_ISREG(info.st_mode) else None
        except OSError:
            pass  # open_source names the file and the reason
    n = _jsonl.workers_for(jobs, size, chunk)
    if jobs > n:
        chunks = "" if size is None else f", {max(1, -(-size // chunk))} chunk(s) of input"
        print(
            f"fastjcs digest: --jobs {jobs}: {n} worker(s) ({_jsonl.cpus()} CPU(s) here{chunks})",
            file=sys.stderr,
        )
    return n


def _digest_jsonl(args: argparse.Namespace, settings: Any, files: list[str]) -> int:
    """--jsonl: one output line per input line, each FILE's lines in turn (their line numbers
    their own, stderr naming the FILE); a FILE that cannot be read is one line on stderr and the
    others go on. Exit 2 if any line or FILE failed (bad input)."""
    from ..bulk import jsonl as _jsonl

    chunk = args.chunk_bytes or _jsonl.CHUNK
    out = sys.stdout.buffer

    def write(lines: bytes) -> None:
        # Whole lines (a chunk's digests) reach stdout whole: a stop signal waits for the write to
        # end, so that what a Ctrl-C leaves on stdout never ends inside a digest.
        with _jsonl.stop_signals_held():
            out.write(lines)
            out.flush()

    failed = unreadable = 0
    for path in files:
        where = f"fastjcs digest: {one_line(source_name(path))}:"

        wipe = [lambda: None]  # the progress bar's, once it is drawn

        def report(notes: list[str], where: str = where, wipe: list = wipe) -> None:
            out.flush()  # the error lines first: a failing stdout is reported before any note
            wipe[0]()
            for text in (where, ("\n" + where).join(notes), "\n"):  # no copy of the joined notes
                sys.stderr.write(text)

        with ExitStack() as opened:
            try:
                stream = opened.enter_context(open_source(path))
            except CLIError as exc:  # a FILE that cannot be opened; an error once it streams ends the run
                if len(files) == 1:
                    raise
                out.flush()
                print(f"fastjcs digest: {one_line(str(exc))}", file=sys.stderr)
                unreadable += 1
                continue
            jobs = _jsonl_workers(path, args.jobs, chunk)  # said once the input is open
            update, close, wipe[0] = _progress_bar(args, path)
            try:
                failed += _jsonl.digest_stream(stream, settings, jobs, write, report, args.fail_fast, update, chunk)
            finally:
                close()
        if failed and args.fail_fast:
            break
    out.flush()
    return EXIT_ERROR if failed or unreadable else EXIT_OK  # a line that is not JSON is bad input, as a FILE is
