"""The PostgreSQL registry's schema: its format versions, tables and statements, and the check that
a schema holds what the registry expects (`differences`), for `_postgres.PostgresStore`."""

from __future__ import annotations

from typing import Any

# Format versions: 1 (the reservations and the audit trail), 2 (and the refused admissions, a row
# per refusal), 3 (the refused admissions coalesced: a row per key, answer and binding, with its
# count and its first and last time).
_FORMAT_VERSION = 3
_APPLICATION = "fastjcs execution registry"
_VERSION_TABLE = "fastjcs_registry_version"
_TABLE = "fastjcs_reservations"
_EVENTS = "fastjcs_reservation_events"
_REFUSALS_V2 = "fastjcs_reservation_refusals"
_REFUSALS = "fastjcs_refused_admissions"
# Format 3: the refused admissions, kept under the key they asserted (no foreign key: the key may
# have no reservation), one row per key, answer and binding.
_REFUSALS_SCHEMA = (
    """CREATE TABLE {f} (
    seq                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    answer                    text NOT NULL CHECK (answer IN ('collision_changed_binding',
                              'replay_in_flight', 'replay_outcome_unknown', 'replay_terminal',
                              'binding_mismatch')),
    binding                   text NOT NULL,
    call_id                   text,
    first_at                  double precision NOT NULL,
    at                        double precision NOT NULL,
    times                     bigint NOT NULL CHECK (times >= 1),
    UNIQUE (agent_identity, execution_id, answer, binding)
)""",
)
# Format 2's refusals, coalesced into format 3's table in their order, each group with the call_id of
# its latest refusal; then format 2's table goes.
_COALESCE_V2 = (
    """INSERT INTO {f} (agent_identity, execution_id, answer, binding, call_id, first_at, at, times)
SELECT g.agent_identity, g.execution_id, g.answer, g.binding,
       (SELECT r.call_id FROM {f2} r WHERE r.seq = g.last), g.first_at, g.at, g.times
FROM (SELECT agent_identity, execution_id, answer, binding, min(seq) AS first, max(seq) AS last,
             min(at) AS first_at, max(at) AS at, count(*) AS times
      FROM {f2} GROUP BY agent_identity, execution_id, answer, binding) AS g
ORDER BY g.first""",
    "DROP TABLE {f2}",
)
# The statements take the schema-qualified, quoted names: {v} the version table, {r} the
# reservations, {e} the events, {ek} the events' index (unqualified: an index lives in its table's
# schema).
_SCHEMA = (
    f"""CREATE TABLE {{v}} (
    application  text PRIMARY KEY CHECK (application = '{_APPLICATION}'),
    version      integer NOT NULL,
    migrated_at  timestamptz NOT NULL DEFAULT now()
)""",
    """CREATE TABLE {r} (
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    binding                   text NOT NULL,
    state                     text NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   text,
    terminal_audit_entry_hash text,
    admitted_at               double precision NOT NULL,
    finalized_at              double precision,
    finalized_by              text CHECK (finalized_by IN ('finalize', 'recover')),
    PRIMARY KEY (agent_identity, execution_id)
)""",
    """CREATE TABLE {e} (
    seq                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    action                    text NOT NULL CHECK (action IN ('admit', 'finalize', 'recover')),
    state                     text NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   text,
    terminal_audit_entry_hash text,
    at                        double precision NOT NULL,
    FOREIGN KEY (agent_identity, execution_id) REFERENCES {r}
)""",
    "CREATE INDEX {ek} ON {e} (agent_identity, execution_id, seq)",
    *_REFUSALS_SCHEMA,
    f"INSERT INTO {{v}} (application, version) VALUES ('{_APPLICATION}', {_FORMAT_VERSION})",
)
# What opening expects of each table, as the catalog describes it: the columns (name: type as
# format_type() writes it, NOT NULL) and the constraints that the rules rely on: the primary keys
# (an admission is decided by the reservations' one) and the events' foreign key. Checks, defaults
# and indexes are not compared (the server's text for them varies between versions).
_TEXT, _FLOAT = "text", "double precision"
_EXPECTED_COLUMNS: dict[str, dict[str, tuple[str, bool]]] = {
    _VERSION_TABLE: {
        "application": (_TEXT, True),
        "version": ("integer", True),
        "migrated_at": ("timestamp with time zone", True),
    },
    _TABLE: {
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "binding": (_TEXT, True),
        "state": (_TEXT, True),
        "call_id": (_TEXT, False),
        "terminal_audit_entry_hash": (_TEXT, False),
        "admitted_at": (_FLOAT, True),
        "finalized_at": (_FLOAT, False),
        "finalized_by": (_TEXT, False),
    },
    _EVENTS: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "action": (_TEXT, True),
        "state": (_TEXT, True),
        "call_id": (_TEXT, False),
        "terminal_audit_entry_hash": (_TEXT, False),
        "at": (_FLOAT, True),
    },
    _REFUSALS_V2: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "answer": (_TEXT, True),
        "binding": (_TEXT, True),
        "call_id": (_TEXT, False),
        "at": (_FLOAT, True),
    },
    _REFUSALS: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "answer": (_TEXT, True),
        "binding": (_TEXT, True),
        "call_id": (_TEXT, False),
        "first_at": (_FLOAT, True),
        "at": (_FLOAT, True),
        "times": ("bigint", True),
    },
}
# (table, kind, columns, referenced table, referenced columns): kind "p" primary key, "u" unique,
# "f" foreign key, as pg_constraint.contype.
_EXPECTED_KEYS = sorted(
    [
        (_VERSION_TABLE, "p", ("application",), "", ()),
        (_TABLE, "p", ("agent_identity", "execution_id"), "", ()),
        (_EVENTS, "p", ("seq",), "", ()),
        (_REFUSALS_V2, "p", ("seq",), "", ()),
        (_REFUSALS, "p", ("seq",), "", ()),
        (_REFUSALS, "u", ("agent_identity", "execution_id", "answer", "binding"), "", ()),
        (_EVENTS, "f", ("agent_identity", "execution_id"), _TABLE, ("agent_identity", "execution_id")),
    ]
)
# Serialises concurrent create() and migrate() calls on one database, and holds an opening off
# a migration until it commits (pg_advisory_xact_lock's key: "FJXR").
_CREATE_LOCK = 0x464A5852
# TCP keepalives for every connection, unless the URL sets its own: a peer that vanished from the
# network is noticed within about keepalives_idle + keepalives_interval * keepalives_count s.
_KEEPALIVES = {"keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3"}


def _column_words(column: tuple[str, bool]) -> str:
    return f"{column[0]}{' NOT NULL' if column[1] else ' (nullable)'}"


def _key_words(key: tuple[str, str, tuple[str, ...], str, tuple[str, ...]]) -> str:
    table, kind, cols, ref, ref_cols = key
    what = {"p": "primary key", "u": "unique constraint", "f": "foreign key", "x": "exclusion constraint"}[kind]
    words = f"the {what} of {table} ({', '.join(cols)})"
    return words + (f" referencing {ref} ({', '.join(ref_cols)})" if kind == "f" else "")


def differences(conn: Any, oid: int, tables: list[str]) -> list[str]:
    """What differs between the tables `tables` in schema `oid` and the registry's, in words."""
    out: list[str] = []
    relations = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT c.relname, c.relkind, c.relpersistence FROM pg_class c "
            "WHERE c.relnamespace = %s AND c.relname = ANY(%s)",
            (oid, tables),
        ).fetchall()
    }
    columns: dict[str, dict[str, tuple[str, bool]]] = {t: {} for t in tables}
    for table, name, typ, notnull in conn.execute(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
        "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND a.attnum > 0 AND NOT a.attisdropped",
        (oid, tables),
    ).fetchall():
        columns[table][name] = (typ, notnull)
    for table in tables:
        kind, persistence = relations[table]
        if kind != "r":
            out.append(f"{table} is not an ordinary table (relkind {kind!r})")
            continue
        if persistence != "p":  # an unlogged table is emptied by a crash: keys admitted again
            out.append(f"{table} is not a permanent table (it is unlogged or temporary)")
        want, have = _EXPECTED_COLUMNS[table], columns[table]
        for name in sorted(want.keys() - have.keys()):
            out.append(f"{table} has no column {name}")
        for name in sorted(have.keys() - want.keys()):
            out.append(f"{table} has a column {name} that the registry does not have")
        for name in sorted(want.keys() & have.keys()):
            if have[name] != want[name]:
                out.append(f"{table}.{name} is {_column_words(have[name])}, not {_column_words(want[name])}")
    keys = conn.execute(
        "SELECT c.relname, k.contype, "
        "ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a "
        "ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i), "
        "coalesce(f.relname, ''), "
        "ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a "
        "ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i), "
        "f.relnamespace, k.condeferrable, k.convalidated "
        "FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid LEFT JOIN pg_class f ON f.oid = k.confrelid "
        "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND k.contype IN ('p', 'u', 'f', 'x')",
        (oid, tables),
    ).fetchall()
    have_keys = []
    for table, kind, cols, ref, ref_cols, ref_ns, deferrable, valid in keys:
        entry = (table, kind, tuple(cols), ref, tuple(ref_cols or ()))
        have_keys.append(entry)
        if deferrable or not valid or (kind == "f" and ref_ns != oid):
            out.append(f"{_key_words(entry)} is {'deferrable' if deferrable else 'not validated or elsewhere'}")
    want_keys = [k for k in _EXPECTED_KEYS if k[0] in tables]
    for entry in sorted(set(want_keys) - set(have_keys)):
        out.append(f"{_key_words(entry)} is missing")
    for entry in sorted(set(have_keys) - set(want_keys)):
        out.append(f"{_key_words(entry)} is not the registry's")
    for table, what in conn.execute(
        "SELECT c.relname, 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND NOT t.tgisinternal "
        "UNION ALL SELECT c.relname, 'rule ' || r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class "
        "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND c.relkind = 'r'",
        (oid, tables, oid, tables),
    ).fetchall():
        out.append(f"{table} has a {what} that could change what the registry writes")
    return out
