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
    db.execute("DROP TABLE refused_admissions")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    p = fastjcs("registry", "migrate", path)
    assert p.returncode == 0 and p.stdout == b"migrated from format 1 to 4\n", p.stderr
    p = fastjcs("registry", "migrate", path)
    assert p.returncode == 0 and p.stdout == b"format 4, already current\n"


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


# ---- the command line's words, not the Python API's (issue 36.8) --------------------------------


def test_create_on_an_existing_file_names_the_commands(tmp_path):
    path = tmp_path / "reg.db"
    assert fastjcs("registry", "create", path).returncode == 0
    p = fastjcs("registry", "create", path)
    assert p.returncode == 2
    err = one_line_error(p, "exists already", "`fastjcs registry create` never overwrites", "fastjcs registry migrate")
    assert "ExecutionRegistry" not in err


def test_migrate_of_a_missing_file_names_the_create_command(tmp_path):
    p = fastjcs("registry", "migrate", "nope.db", cwd=tmp_path)
    assert p.returncode == 2
    err = one_line_error(p, "'nope.db' does not exist", "`fastjcs registry create nope.db` makes a new one")
    assert "ExecutionRegistry" not in err
    p = fastjcs("registry", "migrate", "sqlite:///my reg.db", cwd=tmp_path)  # quoted as a shell needs it
    one_line_error(p, "`fastjcs registry create 'sqlite:///my reg.db'`")


def test_a_url_is_never_copied_with_its_password():
    from fastjcs.cli.registry import _in_commands

    said = _in_commands(
        "execution registry 'postgresql://u:***@h/x': no execution registry in schema 'public'; "
        "ExecutionRegistry(url) opens an existing registry, ExecutionRegistry.create(url) makes a new one",
        "postgresql://u:secret@h/x",
    )
    assert said.endswith("; `fastjcs registry create URL` makes a new one") and "secret" not in said
