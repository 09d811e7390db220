"""Faults of the execution registry's file and storage.

A registry file that is missing, emptied, damaged, foreign, read-only, on a full disk, or used after
close() gives a RegistryError subclass that names the path and the cause (the sqlite3 exception
chained), and each test checks the state afterwards: a refused file is left as it was, and a
failed admission leaves every earlier reservation in place. Read-only and full-disk storage need
root (chattr, bind and tmpfs mounts); those tests skip, saying why, where it cannot be arranged.
Multi-process tests run tests/eab/registry_worker.py as separate interpreters.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import _cli
import pytest

from fastjcs.eab import (
    Admission,
    ExecutionRegistry,
    RegistryClosedError,
    RegistryCorruptError,
    RegistryError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryReadOnlyError,
    RegistryStorageError,
)
from fastjcs.eab._sqlite import _sqlite_error

WORKER = Path(__file__).resolve().parent / "registry_worker.py"
AGENT = "spiffe://agent.example/payments/prod"
B1 = "sha256:" + "1" * 64

# The table as fastjcs wrote it before registry files carried a marker (copied from that version,
# not from the code under test), the only table of formats 0 and 1: such a file must migrate,
# keeping its reservations.
LEGACY_SCHEMA = """
CREATE TABLE IF NOT EXISTS reservations (
    agent_identity            TEXT NOT NULL,
    execution_id              TEXT NOT NULL,
    binding                   TEXT NOT NULL,
    state                     TEXT NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   TEXT,
    terminal_audit_entry_hash TEXT,
    admitted_at               REAL NOT NULL,
    finalized_at              REAL,
    finalized_by              TEXT CHECK (finalized_by IN ('finalize', 'recover')),
    PRIMARY KEY (agent_identity, execution_id)
) WITHOUT ROWID
"""


def made(path: Path, keys: int = 3) -> Path:
    """A registry at `path` with exec-0 .. exec-(keys-1) admitted, closed."""
    with ExecutionRegistry.create(path) as reg:
        for n in range(keys):
            assert reg.admit(AGENT, f"exec-{n}", B1) is Admission.ADMITTED
    return path


def refused(cls, path, call, *args, **kwargs) -> RegistryError:
    """Assert call(*args) raises exactly `cls` (or a subclass), naming `path`; return it."""
    with pytest.raises(cls) as info:
        call(*args, **kwargs)
    assert str(path) in str(info.value), info.value
    return info.value


def assert_holds(path: Path, keys: int) -> None:
    """The registry at `path` opens, is sound, and answers a replay for each earlier key."""
    with ExecutionRegistry(path) as reg:
        assert reg._store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for n in range(keys):
            assert reg.admit(AGENT, f"exec-{n}", B1) is Admission.REPLAY_IN_FLIGHT


# ---------------------------------------------------------------------------------------------------
# Opening never creates; creating never overwrites
# ---------------------------------------------------------------------------------------------------


def test_truncated_to_zero_bytes_is_refused_and_not_recreated(tmp_path):
    path = made(tmp_path / "reg.db")
    os.truncate(path, 0)
    err = refused(RegistryFormatError, path, ExecutionRegistry, path)
    assert "empty (0 bytes)" in str(err)
    # create() does not treat the empty file as free either: exec-0 can be admitted nowhere.
    refused(RegistryExistsError, path, ExecutionRegistry.create, path)
    assert path.stat().st_size == 0  # left as it was, for the operator to restore
    assert sorted(os.listdir(tmp_path)) == ["reg.db"]


def test_missing_file_is_not_created(tmp_path):
    path = tmp_path / "absent.db"
    err = refused(RegistryNotFoundError, path, ExecutionRegistry, path)
    assert "ExecutionRegistry.create" in str(err)
    assert os.listdir(tmp_path) == []
    for transient in (":memory:", ""):  # always new: only create() makes them
        refused(RegistryNotFoundError, transient, ExecutionRegistry, transient)


def test_create_never_overwrites(tmp_path):
    path = made(tmp_path / "reg.db")
    before = path.read_bytes()
    err = refused(RegistryExistsError, path, ExecutionRegistry.create, path)
    assert "ExecutionRegistry(path)" in str(err)
    text = tmp_path / "notes.txt"
    text.write_text("not a registry\n")
    refused(RegistryExistsError, text, ExecutionRegistry.create, text)
    dangling = tmp_path / "link.db"
    dangling.symlink_to(tmp_path / "nowhere.db")
    refused(RegistryExistsError, dangling, ExecutionRegistry.create, dangling)
    assert path.read_bytes() == before and text.read_text() == "not a registry\n"
    assert not (tmp_path / "nowhere.db").exists()
    assert sorted(os.listdir(tmp_path)) == ["link.db", "notes.txt", "reg.db"]
    assert_holds(path, 3)


def test_create_leaves_one_file_with_the_marker(tmp_path):
    path = tmp_path / "reg.db"
    ExecutionRegistry.create(path).close()
    assert os.listdir(tmp_path) == ["reg.db"]  # no temporary file, no journal left
    header = path.read_bytes()[:100]
    assert header.startswith(b"SQLite format 3\x00")
    assert header[68:72] == b"FJXR"  # application_id, big-endian, at offset 68
    assert int.from_bytes(header[60:64], "big") == 4  # user_version: the format with the coalesced refusals
    assert header[18:20] == b"\x02\x02"  # WAL, set before anyone opens it


def test_concurrent_creators(tmp_path):
    """6 processes create one path at once: one succeeds, the others get RegistryExistsError."""
    db, go = tmp_path / "reg.db", tmp_path / "go"
    results = _cli.run_together([[WORKER, "create", db, go] for _ in range(6)], go)
    assert Counter(r["created"] for r in results) == {True: 1, False: 5}
    assert {r["error"] for r in results if not r["created"]} == {"RegistryExistsError"}
    # Every process used the one registry: one admission, five replays.
    assert Counter(r["answer"] for r in results) == {"ADMITTED": 1, "REPLAY_IN_FLIGHT": 5}
    assert sorted(os.listdir(tmp_path)) == ["go", "reg.db"]


# ---------------------------------------------------------------------------------------------------
# Files that are not an execution registry
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content", [bytes(range(256)) * 32, b"reservations\n" * 500, b"SQLite format 3"], ids=["binary", "text", "short"]
)
def test_not_a_sqlite_file(tmp_path, content):
    path = tmp_path / "reg.db"
    path.write_bytes(content)
    err = refused(RegistryFormatError, path, ExecutionRegistry, path)
    assert "not a SQLite database" in str(err)
    assert isinstance(err.__cause__, sqlite3.DatabaseError)
    assert path.read_bytes() == content and os.listdir(tmp_path) == ["reg.db"]


def test_valid_header_then_garbage(tmp_path):
    path = made(tmp_path / "reg.db")
    data = path.read_bytes()
    path.write_bytes(data[:100] + random.Random(0).randbytes(len(data) - 100))
    damaged = path.read_bytes()
    err = refused(RegistryCorruptError, path, ExecutionRegistry, path)
    assert "damaged" in str(err) and isinstance(err.__cause__, sqlite3.DatabaseError)
    assert path.read_bytes() == damaged


def test_damage_found_during_an_admission(tmp_path):
    """Page 1 (the schema) intact, the table's pages garbage: the open succeeds, admit refuses."""
    path = made(tmp_path / "reg.db", keys=50)
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    assert len(data) > page
    path.write_bytes(data[:page] + random.Random(1).randbytes(len(data) - page))
    with ExecutionRegistry(path) as reg:
        err = refused(RegistryCorruptError, path, reg.admit, AGENT, "exec-1", B1)
        assert isinstance(err.__cause__, sqlite3.DatabaseError)
        refused(RegistryCorruptError, path, reg.get, AGENT, "exec-1")


def _sqlite_file(path: Path, *statements: str) -> bytes:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    "statements, says",
    [
        (["CREATE TABLE accounts (id INTEGER PRIMARY KEY)"], "other tables or another schema"),
        ([LEGACY_SCHEMA, "CREATE TABLE extra (a)"], "other tables or another schema"),
        ([LEGACY_SCHEMA.replace("call_id  ", "call_ids ")], "other tables or another schema"),
        (["PRAGMA application_id = 1234", "CREATE TABLE t (a)"], "another application's"),
        (["PRAGMA user_version = 1", LEGACY_SCHEMA], "without the registry's marker"),
        ([f"PRAGMA application_id = {0x464A5852}", "PRAGMA user_version = 5", LEGACY_SCHEMA], "format version 5"),
        ([f"PRAGMA application_id = {0x464A5852}", "PRAGMA user_version = 1"], "without tables"),
        (["PRAGMA user_version = 0"], "without tables"),
    ],
    ids=[
        "foreign-table",
        "extra-table",
        "renamed-column",
        "foreign-id",
        "version-without-id",
        "newer-version",
        "marker-without-table",
        "empty-database",
    ],
)
def test_foreign_sqlite_database(tmp_path, statements, says):
    path = tmp_path / "reg.db"
    before = _sqlite_file(path, *statements)
    err = refused(RegistryFormatError, path, ExecutionRegistry, path)
    assert says in str(err)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "version, marker",
    [
        (0, []),
        (1, [f"PRAGMA application_id = {0x464A5852}", "PRAGMA user_version = 1"]),
    ],
    ids=["before-the-marker", "before-the-audit-trail"],
)
def test_older_format_is_refused_until_migrated(tmp_path, version, marker):
    """A registry of format 0 or 1 is not changed by opening: the error names migrate, which adds
    the audit trail and keeps every reservation."""
    path = tmp_path / "reg.db"
    before = _sqlite_file(
        path,
        *marker,
        LEGACY_SCHEMA,
        "INSERT INTO reservations (agent_identity, execution_id, binding, state, "
        f"admitted_at) VALUES ('{AGENT}', 'exec-0', '{B1}', 'in_flight', 0)",
    )
    err = refused(RegistryFormatError, path, ExecutionRegistry, path)
    assert f"format version {version}" in str(err) and "ExecutionRegistry.migrate" in str(err)
    assert path.read_bytes() == before
    assert ExecutionRegistry.migrate(path) == (version, 4)
    assert ExecutionRegistry.migrate(path) == (4, 4)  # nothing left to do
    header = path.read_bytes()[:100]
    assert header[68:72] == b"FJXR" and int.from_bytes(header[60:64], "big") == 4
    assert_holds(path, 1)
    with ExecutionRegistry(path) as reg:
        assert reg.history(AGENT, "exec-0") == []  # the trail starts at the migration
        reg.finalize(AGENT, "exec-0", "completed")
        assert [e.action for e in reg.history(AGENT, "exec-0")] == ["finalize"]


def test_migrate_never_creates(tmp_path):
    refused(RegistryNotFoundError, tmp_path / "absent.db", ExecutionRegistry.migrate, tmp_path / "absent.db")
    assert os.listdir(tmp_path) == []


def test_not_a_regular_file(tmp_path):
    refused(RegistryFormatError, tmp_path, ExecutionRegistry, tmp_path)


# ---------------------------------------------------------------------------------------------------
# Read-only and full storage (root: chattr, bind and tmpfs mounts)
# ---------------------------------------------------------------------------------------------------


def _run(*argv: str) -> bool:
    try:
        return subprocess.run(argv, capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def _mounted(target: Path, *argv: str):
    """`mount *argv target` (root only), unmounted afterwards; skip when it cannot be done."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount")
    if not _run("mount", *argv, str(target)):
        pytest.skip(f"mount {' '.join(argv)} is not permitted here")
    try:
        yield target
    finally:
        _run("umount", "-l", str(target))


@contextlib.contextmanager
def _read_only_file(path: Path):
    """The file made read-only even for root (chattr +i), or by its mode for other users."""
    if os.geteuid() == 0:
        if not _run("chattr", "+i", str(path)):
            pytest.skip("chattr +i is not available on this file system")
        undo = ["chattr", "-i", str(path)]
    else:
        path.chmod(0o444)
        undo = None
    try:
        if os.access(path, os.W_OK):
            pytest.skip("the file stays writable for this user")
        yield
    finally:
        if undo:
            _run(*undo)
        else:
            path.chmod(0o644)


def test_read_only_file(tmp_path):
    path = made(tmp_path / "reg.db")
    before = path.read_bytes()
    with _read_only_file(path):
        err = refused(RegistryReadOnlyError, path, ExecutionRegistry, path)
        assert "cannot be written" in str(err)
        assert path.read_bytes() == before
    assert_holds(path, 3)


def test_read_only_directory(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = made(folder / "reg.db")
    with _mounted(folder, "--bind", str(folder)):
        if not _run("mount", "-o", "remount,bind,ro", str(folder)):
            pytest.skip("a read-only bind mount is not permitted here")
        refused(RegistryReadOnlyError, path, ExecutionRegistry, path)
        refused(RegistryReadOnlyError, folder / "new.db", ExecutionRegistry.create, folder / "new.db")
        assert os.listdir(folder) == ["reg.db"]
    assert_holds(path, 3)


def test_full_disk(tmp_path):
    """Admissions on a 256 KiB tmpfs until it is full: the one that fails is not recorded, every
    earlier one stays, and after the space grows the same registry carries on."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with _mounted(mnt, "-t", "tmpfs", "-o", "size=256k", "tmpfs"):
        path = mnt / "reg.db"
        with ExecutionRegistry.create(path) as reg:
            call_id = "c" * 4000  # the longest a call_id may be: the disk fills in a few calls
            admitted = 0
            with pytest.raises(RegistryStorageError) as info:
                while admitted < 1000:
                    reg.admit(AGENT, f"exec-{admitted}", B1, call_id=call_id)
                    admitted += 1
            err = info.value
            assert str(path) in str(err) and "disk is full" in str(err), err
            assert isinstance(err.__cause__, sqlite3.OperationalError)
            assert 5 < admitted < 1000
            # The failed admission left nothing; the earlier ones are all there.
            assert reg.get(AGENT, f"exec-{admitted}") is None
            for n in range(admitted):
                assert reg.get(AGENT, f"exec-{n}").call_id == call_id
            assert reg._store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert _run("mount", "-o", "remount,size=2m", str(mnt))
            assert reg.admit(AGENT, f"exec-{admitted}", B1) is Admission.ADMITTED
        assert_holds(path, admitted + 1)


# ---------------------------------------------------------------------------------------------------
# Locks, closed registries, oversized fields
# ---------------------------------------------------------------------------------------------------


def test_lock_held_past_the_timeout(tmp_path):
    path = made(tmp_path / "reg.db")
    with ExecutionRegistry(path, timeout=0.2) as reg:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            err = refused(RegistryStorageError, path, reg.admit, AGENT, "exec-9", B1)
            assert "locked" in str(err) and "0.2 s" in str(err)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert reg.get(AGENT, "exec-9") is None
        assert reg.admit(AGENT, "exec-9", B1) is Admission.ADMITTED


@pytest.mark.parametrize("where", ["memory", "file"])
def test_use_after_close(tmp_path, where):
    path = ":memory:" if where == "memory" else tmp_path / "reg.db"
    reg = ExecutionRegistry.create(path)
    reg.admit(AGENT, "exec-0", B1)
    reg.close()
    reg.close()  # idempotent
    for call, args in (
        (reg.admit, (AGENT, "exec-1", B1)),
        (reg.get, (AGENT, "exec-0")),
        (reg.finalize, (AGENT, "exec-0", "completed")),
        (reg.recover, ()),
    ):
        err = refused(RegistryClosedError, path, call, *args)
        assert "closed" in str(err)
    if where == "file":
        with ExecutionRegistry(path) as again:
            assert again.get(AGENT, "exec-0").state == "in_flight"  # finalize did not happen
            assert again.get(AGENT, "exec-1") is None


@pytest.mark.parametrize("field", ["agent_identity", "call_id"])
def test_oversized_field(field):
    """A limit of 4,096 UTF-8 bytes, refused with ValueError before SQLite sees the value."""

    def admit(reg, text):
        if field == "agent_identity":
            return reg.admit(text, "exec-1", B1)
        return reg.admit(AGENT, "exec-1", B1, call_id=text)

    with ExecutionRegistry.create(":memory:") as reg:
        for text in ("x" * (4 << 20), "\u00e9" * 2048 + "x", "\U0001f600" * 1025):
            with pytest.raises(ValueError, match=f"{field} must be at most 4096 bytes"):
                admit(reg, text)
        assert reg._store.db.execute("SELECT count(*) FROM reservations").fetchone()[0] == 0
        assert admit(reg, "\u00e9" * 2048) is Admission.ADMITTED  # exactly 4,096 bytes


@pytest.mark.parametrize(
    "exc, cls, says",
    [
        (sqlite3.DatabaseError("database disk image is malformed"), RegistryCorruptError, "damaged"),
        (sqlite3.DatabaseError("file is not a database"), RegistryFormatError, "not a SQLite"),
        (sqlite3.OperationalError("attempt to write a readonly database"), RegistryReadOnlyError, "cannot be written"),
        (sqlite3.OperationalError("database or disk is full"), RegistryStorageError, "disk is full"),
        (sqlite3.OperationalError("database is locked"), RegistryStorageError, "locked"),
        (sqlite3.OperationalError("disk I/O error"), RegistryStorageError, "SQLite failed"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, type) else None,
)
def test_errors_without_a_result_code(exc, cls, says):
    """Before Python 3.11 sqlite3 exceptions carry no result code: the message decides."""
    assert not hasattr(exc, "sqlite_errorname")
    err = _sqlite_error("/srv/reg.db", exc, 30.0)
    assert type(err) is cls and says in str(err) and "'/srv/reg.db'" in str(err)


def test_a_postgres_driver_that_fails_before_connecting_is_one_storage_error(monkeypatch):
    """psycopg 3.2 on PyPy 7.3 raises a TypeError from its libpq wrapper when it connects: that
    was a traceback from `fastjcs registry`. A driver failure that is not a psycopg.Error is a
    RegistryStorageError on one line, the password redacted, nothing recorded."""
    psycopg = pytest.importorskip("psycopg")

    def broken(*args, **kwargs):
        raise TypeError("cannot create weak reference to 'weakref' object (secret-pw)")

    monkeypatch.setattr(psycopg, "connect", broken)
    with pytest.raises(RegistryStorageError) as caught:
        ExecutionRegistry.create("postgresql://user:secret-pw@127.0.0.1:1/db")
    message = str(caught.value)
    assert "the PostgreSQL driver failed before connecting (TypeError: cannot create weak reference" in message
    assert "secret-pw" not in message and "\n" not in message
