"""The PostgreSQL registry under misuse (issue 23): a damaged schema, every spelling of a password,
a stopped server, a wrong password or option, mixed-case schemas.

Each runs against the real server of FASTJCS_TEST_POSTGRES_URL (see _registry_stores) and skips,
saying why, without one. The stopped-server cases also need the server on this host
(FASTJCS_TEST_POSTGRES_CTL, which `. .ci/postgres.sh start` sets): they SIGSTOP its processes and
always SIGCONT them again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import socket
import threading
import traceback
import urllib.parse

import _cli
import pytest
from _registry_stores import PG_CTL, PG_URL, Targets, admin, postgres_url

from fastjcs.eab import (
    Admission,
    ExecutionRegistry,
    RegistryError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryReadOnlyError,
    RegistryStorageError,
)

AGENT = "spiffe://agent.example/payments/prod"
B1 = "sha256:" + "1" * 64
LOST_ANSWER = "call again once the server is back"


@pytest.fixture
def schemas(tmp_path):
    made = Targets("postgresql", tmp_path)
    yield made
    made.close()


def _schema_of(url: str) -> str:
    return url.rsplit("%3D", 1)[1]


def _with(url: str, **params: str) -> str:
    """`url` with more query parameters."""
    return url + ("&" if "?" in url else "?") + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)


# ---------------------------------------------------------------------------------------------------
# Finding 3: opening verifies the schema
# ---------------------------------------------------------------------------------------------------

R, E = "fastjcs_reservations", "fastjcs_reservation_events"
DAMAGES = {
    "primary key dropped (and with it the foreign key)": (
        [f"ALTER TABLE {{s}}.{R} DROP CONSTRAINT {R}_pkey CASCADE"],
        [
            f"the primary key of {R} (agent_identity, execution_id) is missing",
            f"the foreign key of {E} (agent_identity, execution_id) referencing {R} "
            "(agent_identity, execution_id) is missing",
        ],
    ),
    "primary key replaced by a narrower one": (
        [
            f"ALTER TABLE {{s}}.{R} DROP CONSTRAINT {R}_pkey CASCADE",
            f"ALTER TABLE {{s}}.{R} ADD PRIMARY KEY (agent_identity, execution_id, binding)",
        ],
        [f"the primary key of {R} (agent_identity, execution_id, binding) is not the registry's"],
    ),
    "foreign key dropped": (
        [f"ALTER TABLE {{s}}.{E} DROP CONSTRAINT {E}_agent_identity_execution_id_fkey"],
        [f"the foreign key of {E} (agent_identity, execution_id) referencing {R}"],
    ),
    "a column's type changed": (
        [f"ALTER TABLE {{s}}.{R} ALTER COLUMN binding TYPE varchar(16)"],
        [f"{R}.binding is character varying(16) NOT NULL, not text NOT NULL"],
    ),
    "NOT NULL dropped": (
        [f"ALTER TABLE {{s}}.{R} ALTER COLUMN binding DROP NOT NULL"],
        [f"{R}.binding is text (nullable), not text NOT NULL"],
    ),
    "a column dropped": (
        [f"ALTER TABLE {{s}}.{E} DROP COLUMN call_id"],
        [f"{E} has no column call_id"],
    ),
    "a column added": (
        [f"ALTER TABLE {{s}}.{R} ADD COLUMN tenant text"],
        [f"{R} has a column tenant that the registry does not have"],
    ),
    "a unique constraint added": (
        [f"ALTER TABLE {{s}}.{R} ADD UNIQUE (execution_id)"],
        [f"the unique constraint of {R} (execution_id) is not the registry's"],
    ),
    "a primary key made deferrable": (
        [
            f"ALTER TABLE {{s}}.{R} DROP CONSTRAINT {R}_pkey CASCADE",
            f"ALTER TABLE {{s}}.{R} ADD PRIMARY KEY (agent_identity, execution_id) DEFERRABLE",
        ],
        [f"the primary key of {R} (agent_identity, execution_id) is deferrable"],
    ),
    "a rule that swallows admissions": (
        [f"CREATE RULE swallow AS ON INSERT TO {{s}}.{R} DO INSTEAD NOTHING"],
        [f"{R} has a rule swallow"],
    ),
    "the audit trail made unlogged (emptied by a crash)": (
        [f"ALTER TABLE {{s}}.{E} SET UNLOGGED"],
        [f"{E} is not a permanent table"],
    ),
    "a trigger": (
        [
            "CREATE FUNCTION {s}.nothing() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'",
            f"CREATE TRIGGER drop_all BEFORE INSERT ON {{s}}.{R} FOR EACH ROW EXECUTE FUNCTION {{s}}.nothing()",
        ],
        [f"{R} has a trigger drop_all"],
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_schema_that_differs_is_refused_naming_what_differs(schemas, damage):
    """Before: the registry opened, and without its primary key answered ADMITTED three times."""
    statements, says = DAMAGES[damage]
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    with admin() as conn:
        for statement in statements:
            conn.execute(statement.format(s=_schema_of(url)))
    for call in (ExecutionRegistry, ExecutionRegistry.migrate):
        with pytest.raises(RegistryFormatError) as info:
            call(url)
        for needle in says:
            assert needle in str(info.value), (needle, str(info.value))
        assert _schema_of(url) in str(info.value)


def test_the_registry_made_by_create_passes_its_own_check(schemas):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    with ExecutionRegistry(url) as reg:
        assert [reg.admit(AGENT, "same-key", B1) for _ in range(3)] == [
            Admission.ADMITTED,
            Admission.REPLAY_IN_FLIGHT,
            Admission.REPLAY_IN_FLIGHT,
        ]


def test_a_view_in_place_of_a_table_is_refused(schemas):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    s = _schema_of(url)
    with admin() as conn:
        conn.execute(f"ALTER TABLE {s}.{E} RENAME TO events_elsewhere")
        conn.execute(f"CREATE VIEW {s}.{E} AS SELECT * FROM {s}.events_elsewhere")
    with pytest.raises(RegistryFormatError, match=f"{E} is not an ordinary table"):
        ExecutionRegistry(url)


# ---------------------------------------------------------------------------------------------------
# Finding 17: mixed-case schemas
# ---------------------------------------------------------------------------------------------------


@pytest.fixture
def mixed_case():
    """A schema "Fj_<hex>" with a lowercase twin fj_<hex>; the URL chooses the mixed-case one."""
    postgres_url()
    name = f"Fj_{secrets.token_hex(5)}"
    with admin() as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
        conn.execute(f"CREATE SCHEMA {name.lower()}")
    quoted = urllib.parse.quote(f'-csearch_path="{name}"', safe="")
    yield name, f"{PG_URL}{'&' if '?' in PG_URL else '?'}options={quoted}"
    with admin() as conn:
        conn.execute(f'DROP SCHEMA "{name}" CASCADE')
        conn.execute(f"DROP SCHEMA {name.lower()} CASCADE")


def test_a_mixed_case_schema(mixed_case):
    """Before: `schema "fj_..." does not exist` (the name folded to lower case by ::regnamespace),
    or, with the twin holding a registry, the twin's tables were checked instead."""
    name, url = mixed_case
    with ExecutionRegistry.create(url) as reg:
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED
    with ExecutionRegistry(url) as reg:
        assert reg.admit(AGENT, "exec-0", B1) is Admission.REPLAY_IN_FLIGHT
        assert reg.finalize(AGENT, "exec-0", "completed") == "completed"
        assert [e.action for e in reg.history(AGENT, "exec-0")] == ["admit", "finalize"]
    with admin() as conn:
        assert conn.execute(f'SELECT count(*) FROM "{name}".{R}').fetchone()[0] == 1
        assert conn.execute(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{name.lower()}'").fetchone()[0] == 0


def test_a_mixed_case_schema_is_checked_not_its_lowercase_twin(mixed_case):
    name, url = mixed_case
    twin_url = url.replace(urllib.parse.quote(f'"{name}"', safe=""), name.lower())
    ExecutionRegistry.create(twin_url).close()  # a sound registry in the twin
    with pytest.raises(RegistryNotFoundError, match=f"no execution registry in schema '{name}'"):
        ExecutionRegistry(url)
    ExecutionRegistry.create(url).close()
    with admin() as conn:  # damage the mixed-case one only
        conn.execute(f'ALTER TABLE "{name}".{R} DROP CONSTRAINT {R}_pkey CASCADE')
    with pytest.raises(RegistryFormatError, match=f"primary key of {R}"):
        ExecutionRegistry(url)
    with ExecutionRegistry(twin_url) as reg:
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED


# ---------------------------------------------------------------------------------------------------
# Finding 4: passwords are never shown
# ---------------------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def _credential_forms(secret: str) -> dict[str, str]:
    """A failing target for each way a URL can carry the password `secret`."""
    port = _closed_port()
    pct = "".join(f"%{b:02X}" for b in secret.encode())
    return {
        "userinfo": f"postgresql://reg:{secret}@127.0.0.1:{port}/regdb",
        "query": f"postgresql://reg@127.0.0.1:{port}/regdb?password={secret}",
        "percent-encoded userinfo": f"postgresql://reg:{pct}@127.0.0.1:{port}/regdb",
        "percent-encoded query": f"postgresql://reg@127.0.0.1:{port}/regdb?password={pct}",
        "percent-encoded query key": f"postgresql://reg@127.0.0.1:{port}/regdb?pass%77ord={secret}",
        "malformed IPv6 host": f"postgresql://reg:{secret}@[127.0.0.1:{port}/regdb",
        "malformed percent escape": f"postgresql://reg:Pct%zz{secret}@127.0.0.1:{port}/regdb",
        "malformed escape in the query": f"postgresql://reg@127.0.0.1:{port}/regdb?password={secret}%zz",
        "unknown parameter": f"postgresql://reg@127.0.0.1:{port}/regdb?password={secret}&bogus=1",
        "parameter without a value": f"postgresql://reg:{secret}@127.0.0.1:{port}/regdb?x",
        "bad sslmode": f"postgresql://reg:{secret}@127.0.0.1:{port}/regdb?sslmode=bogus",
        "postgres scheme": f"postgres://reg:{secret}@127.0.0.1:{port}/regdb",
    }


def _every_text(exc: BaseException) -> str:
    """The text of `exc`, of every exception chained to it, and the traceback as printed."""
    parts, seen, todo = [], set(), [exc]
    while todo:
        item = todo.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        parts += [str(item), repr(item), *map(str, item.args), *getattr(item, "__notes__", [])]
        todo += [item.__cause__, item.__context__]
    parts.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    return "\n".join(parts)


@pytest.mark.parametrize("form", list(_credential_forms("x")))
def test_no_password_in_any_output_of_a_failing_run(form, caplog):
    """Before: libpq's message for a malformed URL quoted the password, a `password=` parameter
    was kept in `.path` and every message, and a percent-encoded one in its decoded form."""
    postgres_url()
    secret = "S3cretPW" + secrets.token_hex(4)
    url = _credential_forms(secret)[form]
    caplog.set_level(logging.DEBUG)
    with pytest.raises(RegistryError) as info:
        ExecutionRegistry(url, timeout=2)
    text = _every_text(info.value) + "\n".join(r.getMessage() for r in caplog.records)
    encoded = "".join(f"%{b:02X}" for b in secret.encode())
    assert secret not in text and encoded not in text
    for action in ("create", "migrate"):
        p = _cli.fastjcs("registry", action, url)
        assert p.returncode == 2
        line = _cli.one_line_error(p)
        assert secret not in line and secret not in p.stdout.decode() and encoded not in line
        assert "127.0.0.1" in line


def test_no_password_in_the_path_or_output_of_a_working_registry(schemas):
    """Before: `registry create 'postgresql://...?password=...'` printed the password."""
    secret = "S3cretPW" + secrets.token_hex(4)
    url = _with(schemas.new(), password=secret)  # the test server trusts: any password connects
    p = _cli.fastjcs("registry", "create", url)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    assert secret not in p.stdout.decode() and "password=***" in p.stdout.decode()
    with ExecutionRegistry(url) as reg:
        assert secret not in reg.path and secret not in repr(reg._store.where)
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED


# ---------------------------------------------------------------------------------------------------
# Finding 16: a wrong password or option is not a lost answer
# ---------------------------------------------------------------------------------------------------

PASSWORD_ROLE = "fastjcs_password_test"


@pytest.fixture
def password_role():
    """A role that must give its password (.ci/postgres.sh configures the server for it)."""
    url = urllib.parse.urlsplit(postgres_url())
    with admin() as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PASSWORD_ROLE,)).fetchone() is None:
            conn.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD 'the-right-one'")
    wrong = f"postgresql://{PASSWORD_ROLE}:Wr0ngSecret@{url.hostname}:{url.port}{url.path}"
    import psycopg

    try:
        psycopg.connect(wrong, connect_timeout=5).close()
    except psycopg.OperationalError:
        return wrong
    pytest.skip(f"the test server lets {PASSWORD_ROLE} in with any password (pg_hba.conf trusts it)")


def test_a_wrong_password_is_not_a_lost_answer(password_role):
    for action in (ExecutionRegistry, ExecutionRegistry.create):
        with pytest.raises(RegistryStorageError) as info:
            action(password_role, timeout=5)
        text = str(info.value)
        assert "password authentication failed" in text and "nothing was recorded" in text
        assert LOST_ANSWER not in text and "Wr0ngSecret" not in _every_text(info.value)
        assert "credentials" in text


def test_a_bad_option_is_not_a_lost_answer(schemas):
    url = _with(schemas.new(), sslmode="bogus")
    with pytest.raises(RegistryStorageError) as info:
        ExecutionRegistry(url, timeout=5)
    assert 'invalid sslmode value: "bogus"' in str(info.value)
    assert "nothing was recorded" in str(info.value) and LOST_ANSWER not in str(info.value)


# ---------------------------------------------------------------------------------------------------
# Finding 6: a stopped server
# ---------------------------------------------------------------------------------------------------


def _server_processes() -> list[int]:
    """The postmaster of the test server and its children (it must run on this host)."""
    with admin() as conn:
        data = conn.execute("SELECT current_setting('data_directory')").fetchone()[0]
    with open(os.path.join(data, "postmaster.pid")) as f:
        postmaster = int(f.readline())
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                    children.append(int(entry))
    return [postmaster, *children]


@contextlib.contextmanager
def _stopped_server():
    if not PG_CTL:
        pytest.skip("FASTJCS_TEST_POSTGRES_CTL is unset: the server is not known to run on this host")
    pids = _server_processes()
    try:
        try:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):  # a backend that has just ended
                    os.kill(pid, signal.SIGSTOP)
        except PermissionError:
            pytest.skip("this user may not stop the server's processes")
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _returns_while_stopped(call):
    """Run call() in a thread while the server is stopped: its exception, or fail if it is still
    waiting after 60 s (the server is then resumed, so that the test ends)."""
    outcome: list[BaseException | None] = []

    def run():
        try:
            call()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    with _stopped_server():
        worker.start()
        worker.join(60)
        returned = not worker.is_alive()
    worker.join(120)
    assert returned, "the call waited for the stopped server past its timeout (it returned only after SIGCONT)"
    return outcome[0]


def test_a_stopped_server_ends_every_call_within_its_timeout(schemas):
    """Before: admit returned only after SIGCONT, however long the server stayed stopped."""
    url = schemas.new()
    with ExecutionRegistry.create(url, timeout=1) as reg:
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED  # a pooled connection, now idle
        error = _returns_while_stopped(lambda: reg.admit(AGENT, "exec-1", B1))
        assert isinstance(error, RegistryStorageError), error
        text = str(error)
        assert "no answer from the PostgreSQL server within the timeout of 1.0 s" in text
        assert "the change was not committed, so nothing was recorded" in text
        # The server, resumed, rolled the cut transaction back: the key is free.
        assert reg.admit(AGENT, "exec-1", B1) is Admission.ADMITTED
        for call in (lambda: reg.get(AGENT, "exec-0"), lambda: reg.finalize(AGENT, "exec-0", "completed")):
            reg.get(AGENT, "exec-0")  # a pooled connection again (the cut one was dropped)
            error = _returns_while_stopped(call)
            assert isinstance(error, RegistryStorageError) and "within the timeout of 1.0 s" in str(error), str(error)
        assert reg.finalize(AGENT, "exec-0", "completed") == "completed"


def test_a_connection_lost_while_committing_leaves_the_answer_unknown(schemas, monkeypatch):
    """Only a failure during COMMIT may have recorded the change, and only then does the error say
    the answer is unknown (the server ends the connection after the last statement)."""
    from fastjcs.eab import _postgres

    url = schemas.new()
    record = _postgres._PostgresTx.record

    def record_then_lose_the_connection(self, *args):
        record(self, *args)
        pid = self.conn.info.backend_pid
        with admin() as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))

    with ExecutionRegistry.create(url, timeout=5) as reg:
        monkeypatch.setattr(_postgres._PostgresTx, "record", record_then_lose_the_connection)
        with pytest.raises(RegistryStorageError) as info:
            reg.admit(AGENT, "exec-0", B1)
        assert "whether it was recorded is unknown" in str(info.value)
        assert "make no upstream call" in str(info.value) and "REPLAY_IN_FLIGHT" in str(info.value)
        monkeypatch.undo()
        # Here the server ended the session before it read COMMIT: nothing was recorded.
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED


def test_a_role_that_may_only_read_gets_a_read_only_error(schemas):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    role = f"fjreader_{secrets.token_hex(4)}"
    with admin() as conn:
        conn.execute(f"CREATE ROLE {role}")
        conn.execute(f"GRANT USAGE ON SCHEMA {_schema_of(url)} TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {_schema_of(url)} TO {role}")
    try:
        options = urllib.parse.quote(f"-crole={role} -csearch_path={_schema_of(url)}", safe="")
        with ExecutionRegistry(f"{PG_URL}{'&' if '?' in PG_URL else '?'}options={options}") as reg:
            assert reg.get(AGENT, "exec-0") is None
            with pytest.raises(RegistryReadOnlyError, match="cannot be written .* nothing was recorded"):
                reg.admit(AGENT, "exec-0", B1)
    finally:
        with admin() as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_opening_a_stopped_server_ends_within_its_timeout(schemas):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    error = _returns_while_stopped(lambda: ExecutionRegistry(url, timeout=1))
    assert isinstance(error, RegistryStorageError), error
    assert "no connection to the PostgreSQL server within the timeout of 1.0 s" in str(error)
    assert "nothing was sent, so nothing was recorded" in str(error)
    assert LOST_ANSWER not in str(error)
