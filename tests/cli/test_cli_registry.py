"""`fastjcs registry create|migrate TARGET`: the explicit schema steps, from the command line.

The PostgreSQL side of the same steps is tested in tests/eab (test_registry_postgres.py) against a
real server; here the command's own work: its answers, exit statuses and one-line errors.
"""

from __future__ import annotations

import sqlite3

from _cli import fastjcs, one_line_error

from fastjcs.eab import ExecutionRegistry

AGENT = "spiffe://agent.example/cli"


def test_create_makes_an_empty_registry_once(tmp_path):
    path = tmp_path / "reg.db"
    p = fastjcs("registry", "create", path)
    assert p.returncode == 0 and p.stdout.decode() == f"created an empty execution registry at {path}\n"
    with ExecutionRegistry(path) as reg:  # it opens: made whole, with its schema
        assert reg.get(AGENT, "exec-1") is None
    before = path.read_bytes()
    p = fastjcs("registry", "create", path)
    assert p.returncode == 2 and path.read_bytes() == before  # never overwrites
    one_line_error(p, "exists already")


def test_migrate_an_older_file_then_nothing_to_do(tmp_path):
    path = tmp_path / "old.db"
    with ExecutionRegistry.create(path):
        pass
    db = sqlite3.connect(path)  # back to the format before the audit trail
    db.execute("DROP TABLE reservation_events")
    db.execute("DROP TABLE reservation_refusals")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    p = fastjcs("registry", "migrate", path)
    assert p.returncode == 0 and p.stdout == b"migrated from format 1 to 3\n", p.stderr
    p = fastjcs("registry", "migrate", path)
    assert p.returncode == 0 and p.stdout == b"format 3, already current\n"


def test_migrate_never_creates(tmp_path):
    p = fastjcs("registry", "migrate", tmp_path / "absent.db")
    assert p.returncode == 2 and not (tmp_path / "absent.db").exists()
    one_line_error(p, "does not exist")


def test_an_unreachable_server_is_one_line_without_the_password():
    p = fastjcs("registry", "migrate", "postgresql://user:s3cret@127.0.0.1:1/db")
    assert p.returncode == 2
    line = one_line_error(p)
    assert "s3cret" not in line and "127.0.0.1" in line


def test_an_unknown_scheme_is_one_line_without_the_password(tmp_path):
    """Finding 11 of issue 23: `registry create 'mysql://u:pw@h/db'` was a ValueError traceback
    (exit 1). Now one line naming the scheme, never the password; exit 2; nothing made."""
    for action in ("create", "migrate"):
        p = fastjcs("registry", action, "mysql://u:Pw5ecret@h/db", cwd=tmp_path)
        assert p.returncode == 2 and p.stdout == b""
        line = one_line_error(p, "fastjcs registry: unknown registry URL scheme in 'mysql'")
        assert "Pw5ecret" not in line
    assert list(tmp_path.iterdir()) == []


def test_a_registry_that_would_not_persist_is_refused(tmp_path):
    """Finding 16 of issue 23: `registry create ':memory:'` printed "created an empty execution
    registry at :memory:" (exit 0) though nothing outlives the command. SQLite's in-memory and
    temporary databases are refused: one line, exit 2."""
    for target in (":memory:", "sqlite:///:memory:", "sqlite:///", ""):
        for action in ("create", "migrate"):
            p = fastjcs("registry", action, target, cwd=tmp_path)
            assert p.returncode == 2 and p.stdout == b"", (target, p.stdout)
            one_line_error(p, f"{target!r} is a SQLite database that lives only as long as this command")
    assert list(tmp_path.iterdir()) == []
