"""One job at a time per output folder: `locked`, an flock on ``<output_dir>/.fastjcs.lock`` that
names the job holding it (moved out of `fastjcs.bulk.jobs`, which plans and runs the job)."""

from __future__ import annotations

import datetime
import json
import os
import socket
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .jobs import _LOCK, JobError


@contextmanager
def locked(output_dir: str) -> Iterator[None]:
    """Hold the output folder for one job (created if need be): a second job on the same folder,
    from this machine or another one sharing it, is a JobError naming the job that holds it.

    The lock is an flock on ``<output_dir>/.fastjcs.lock``, which holds the holder's process,
    host, start and command; the operating system releases it when the process ends (a killed
    job leaves no lock behind), and the file is removed when the job ends."""
    import fcntl

    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, _LOCK)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            for attempt in range(20):  # another job's look at this lock holds it for an instant
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if attempt == 19:
                        raise
                    time.sleep(0.005)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise JobError(
                f"--output-dir {output_dir}: another job is writing there ({holder}); "
                "wait for it to end, or choose another folder"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        try:  # the holder may have removed the file while we waited for it: lock the new one
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        other = _held_nearby(output_dir)
    except BaseException:
        os.close(fd)
        raise
    if other is not None:
        where, holder = other
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)
        raise JobError(
            f"--output-dir {output_dir}: another job is writing to {where}, "
            f"{'inside' if _inside(where, output_dir) else 'above'} this folder ({holder}); "
            "wait for it to end, or choose a folder outside its tree"
        )
    try:
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "command": " ".join(["fastjcs" if i == 0 else a for i, a in enumerate(sys.argv)]),
        }
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(me).encode())
        except OSError as exc:  # a full disk: the error names the file (os.write's does not)
            raise OSError(exc.errno, exc.strerror, path) from exc
        yield
    finally:
        try:
            os.unlink(path)  # while it is held: a job waiting on this file will find it gone
        except OSError:
            pass
        os.close(fd)


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real != top and os.path.commonpath([real, top]) == top


def _held_nearby(output_dir: str) -> tuple[str, str] | None:
    """The folder (and its holder) of another job's lock above `output_dir` or inside it, by
    real path: two jobs in one folder tree would write (and clean) each other's files. A lock
    file is held when its flock cannot be taken; one whose job has ended is not."""
    import fcntl

    top = os.path.realpath(output_dir)
    candidates = []
    up = os.path.dirname(top)
    while True:
        candidates.append(up)
        parent = os.path.dirname(up)
        if parent == up:
            break
        up = parent
    for directory, _, files in os.walk(top):
        if directory != top and _LOCK in files:
            candidates.append(directory)
    for directory in candidates:
        try:
            fd = os.open(os.path.join(directory, _LOCK), os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return directory, _holder(fd)
            except OSError:
                continue
        finally:
            os.close(fd)  # releases a lock taken here to look
    return None


def _holder(fd: int) -> str:
    try:
        me = json.loads(os.pread(fd, 1 << 16, 0))
        return f"pid {me['pid']} on {me['host']}, since {me['started']}: {me['command']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a job whose details are not written yet"
