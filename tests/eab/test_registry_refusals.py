"""The refusals log's bounds (issue 32, finding 10), on every storage.

Before: every refused admission was a row of its own, with the call_id whole. One caller replaying
one key with a 4 KB call_id wrote 100,000 rows in 20 s (the SQLite file at 516 MB), and
`refusals()` returned all of them. Now the log coalesces repeats (a row per key, answer and
binding, with how many times and when first and last), holds at most MAX_REFUSAL_ROWS rows of
its own per key (further bindings counted in one row per answer), keeps a call_id whole up to
MAX_KEPT_CALL_ID bytes, pages `refusals()`, and prunes on request (`prune_refusals`).
"""

from __future__ import annotations

import os
import sqlite3
import time

import pytest
from _registry_stores import admin, make_registry, new_target  # noqa: F401 - fixtures
from Crypto.Hash import SHA256

from fastjcs.eab import (
    MAX_KEPT_CALL_ID,
    MAX_REFUSAL_ROWS,
    OTHER_BINDINGS,
    Admission,
    ExecutionRegistry,
)

AGENT = "spiffe://agent.example/payments/prod"
B1 = "sha256:" + "1" * 64
B2 = "sha256:" + "2" * 64


def _binding(n: int) -> str:
    return f"sha256:{n:064x}"


def test_a_replayed_key_is_one_row_with_its_count(make_registry):
    """The wrong implementation it catches: a row per refusal (N rows), or a count that is not kept."""
    reg = make_registry()
    assert reg.admit(AGENT, "exec-1", B1, call_id="c0") is Admission.ADMITTED
    started = time.time()
    for i in range(1, 51):
        assert reg.admit(AGENT, "exec-1", B1, call_id=f"c{i}") is Admission.REPLAY_IN_FLIGHT
    ended = time.time()
    (row,) = reg.refusals(AGENT, "exec-1")
    assert (row.answer, row.binding, row.times, row.call_id) == (Admission.REPLAY_IN_FLIGHT, B1, 50, "c50")
    assert started <= row.first_at <= row.at <= ended
    # Another answer or another binding is a row of its own, in the order first seen.
    assert reg.admit(AGENT, "exec-1", B2, call_id="x") is Admission.COLLISION_CHANGED_BINDING
    reg.finalize(AGENT, "exec-1", "completed")
    assert reg.admit(AGENT, "exec-1", B1) is Admission.REPLAY_TERMINAL
    assert reg.admit(AGENT, "exec-1", B1, call_id="c51") is Admission.REPLAY_TERMINAL
    rows = reg.refusals(AGENT, "exec-1")
    assert [(r.answer, r.binding, r.times) for r in rows] == [
        (Admission.REPLAY_IN_FLIGHT, B1, 50),
        (Admission.COLLISION_CHANGED_BINDING, B2, 1),
        (Admission.REPLAY_TERMINAL, B1, 2),
    ]
    assert rows[0].seq < rows[1].seq < rows[2].seq
    assert rows[2].call_id == "c51"  # the latest refusal's


def test_a_key_holds_a_bounded_number_of_rows(make_registry):
    """A caller that varies the binding on one key (every one a collision) cannot add a row per
    binding: after MAX_REFUSAL_ROWS rows of its own, the key's further bindings are counted in one
    row per answer, with OTHER_BINDINGS; nothing is lost from the count."""
    reg = make_registry()
    reg.admit(AGENT, "exec-1", B1)
    n = MAX_REFUSAL_ROWS + 40
    for i in range(n):
        assert reg.admit(AGENT, "exec-1", _binding(1000 + i)) is Admission.COLLISION_CHANGED_BINDING
    assert reg.admit(AGENT, "exec-1", B1) is Admission.REPLAY_IN_FLIGHT
    assert reg.admit(AGENT, "exec-1", _binding(1000)) is Admission.COLLISION_CHANGED_BINDING  # a kept row
    rows = reg.refusals(AGENT, "exec-1")
    kept = [r for r in rows if r.binding != OTHER_BINDINGS]
    assert [r.binding for r in kept] == [_binding(1000 + i) for i in range(MAX_REFUSAL_ROWS)]
    assert kept[0].times == 2
    other = [(r.answer, r.times) for r in rows if r.binding == OTHER_BINDINGS]
    assert other == [(Admission.COLLISION_CHANGED_BINDING, n - MAX_REFUSAL_ROWS), (Admission.REPLAY_IN_FLIGHT, 1)]
    # (The key's rows were full, so the replay of its own binding went to the other row of its answer.)
    assert sum(r.times for r in rows) == n + 2
    assert len(rows) == MAX_REFUSAL_ROWS + 2


def test_a_long_call_id_is_kept_shortened_with_its_digest(make_registry):
    reg = make_registry()
    reg.admit(AGENT, "exec-1", B1)
    whole = "a" * MAX_KEPT_CALL_ID
    long = "é" * 2048  # 4,096 bytes of UTF-8, the longest call_id there is
    for call_id in (whole, long):
        reg.admit(AGENT, "exec-1", B1, call_id=call_id)
        (row,) = reg.refusals(AGENT, "exec-1")
        if call_id is whole:
            assert row.call_id == whole  # exactly MAX_KEPT_CALL_ID bytes: kept whole
        else:
            digest = SHA256.new(long.encode("utf-8")).hexdigest()
            assert row.call_id == "é" * 64 + "...sha256:" + digest
    # 129 two-byte characters are 258 bytes: over the bound though the str has 129 characters.
    reg.admit(AGENT, "exec-1", B1, call_id="é" * 129)
    assert reg.refusals(AGENT, "exec-1")[0].call_id.endswith(SHA256.new(("é" * 129).encode()).hexdigest())


def test_refusals_page(make_registry):
    reg = make_registry()
    reg.admit(AGENT, "exec-1", B1)
    for i in range(7):
        reg.admit(AGENT, "exec-1", _binding(i))
    everything = reg.refusals(AGENT, "exec-1")
    assert [r.binding for r in everything] == [_binding(i) for i in range(7)]
    pages, after = [], 0
    while True:
        page = reg.refusals(AGENT, "exec-1", after=after, limit=3)
        if not page:
            break
        assert len(page) <= 3
        pages.append(page)
        after = page[-1].seq
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [r for p in pages for r in p] == everything
    assert reg.refusals(AGENT, "exec-1", after=2**63 - 1, limit=2**63 - 1) == []  # the storages' largest
    # Before: past 2**63 - 1 the storage's own error came through (OverflowError, or a
    # RegistryStorageError "datatype mismatch" that blamed the storage).
    bad_args = ({"after": -1}, {"after": 1.5}, {"after": True}, {"limit": 0}, {"limit": "3"}, {"after": 2**63})
    for bad in (*bad_args, {"limit": 2**63}, {"limit": 10**30}):
        with pytest.raises(ValueError):
            reg.refusals(AGENT, "exec-1", **bad)


def test_prune_refusals_deletes_rows_last_refused_before_a_time(make_registry):
    reg = make_registry()
    reg.admit(AGENT, "exec-1", B1)
    reg.admit(AGENT, "exec-1", B2)
    time.sleep(0.05)
    cut = time.time()
    time.sleep(0.05)
    reg.admit(AGENT, "exec-1", _binding(3))
    reg.admit(AGENT, "exec-2", B1, call_id="never reserved")  # admitted: not a refusal
    assert reg.prune_refusals(cut) == 1
    assert [r.binding for r in reg.refusals(AGENT, "exec-1")] == [_binding(3)]
    assert reg.get(AGENT, "exec-1").binding == B1  # reservations are never pruned
    assert [e.action for e in reg.history(AGENT, "exec-1")] == ["admit"]
    assert reg.prune_refusals(cut) == 0
    for bad in (float("nan"), "yesterday", None, True):
        with pytest.raises(ValueError):
            reg.prune_refusals(bad)


def test_the_log_does_not_grow_with_replays_at_ten_to_the_fifth():
    """The finding's flood: 10^5 refusals of one key with a 4 KB call_id. The database's pages after
    10^3 and after 10^5 refusals are the same (before: 516 MB, about 5 KB per refusal)."""
    reg = ExecutionRegistry.create(":memory:")
    db = reg._store.db  # the in-memory database behind the registry
    call_id = "x" * 4096
    reg.admit(AGENT, "exec-1", B1)
    for _ in range(1000):
        reg.admit(AGENT, "exec-1", B1, call_id=call_id)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    for _ in range(99_000):
        reg.admit(AGENT, "exec-1", B1, call_id=call_id)
    assert db.execute("PRAGMA page_count").fetchone()[0] == pages
    (row,) = reg.refusals(AGENT, "exec-1")
    assert row.times == 100_000
    reg.close()


def test_a_file_does_not_grow_with_replays(tmp_path):
    path = tmp_path / "reg.db"
    with ExecutionRegistry.create(path) as reg:
        reg.admit(AGENT, "exec-1", B1)
        for _ in range(100):
            reg.admit(AGENT, "exec-1", B1, call_id="y" * 4096)
        db = sqlite3.connect(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        for _ in range(2000):
            reg.admit(AGENT, "exec-1", B1, call_id="y" * 4096)
        assert db.execute("PRAGMA page_count").fetchone()[0] == pages
        db.close()
        assert reg.refusals(AGENT, "exec-1")[0].times == 2100
    assert os.path.getsize(path) < 200_000


def test_migrate_coalesces_the_refusals_of_the_previous_format(new_target):
    """A registry of the format with a row per refusal (SQLite 3, PostgreSQL 2) migrates: its
    refusals are coalesced in their order, each group with its count, its first and last time and
    its latest call_id; nothing else changes."""
    target = new_target()
    with ExecutionRegistry.create(target) as reg:
        reg.admit(AGENT, "exec-1", B1, call_id="c0")
    old_rows = [  # (seq, execution_id, answer, binding, call_id, at)
        (1, "exec-1", "replay_in_flight", B1, "c1", 10.0),
        (2, "exec-1", "collision_changed_binding", B2, None, 11.0),
        (3, "exec-1", "replay_in_flight", B1, "c3", 12.0),
        (4, "exec-9", "binding_mismatch", B2, "m", 13.0),
        (5, "exec-1", "replay_in_flight", B1, None, 14.0),
    ]
    columns = "seq, agent_identity, execution_id, answer, binding, call_id, at"
    if target.startswith("postgresql"):
        schema = target.rsplit("%3D", 1)[1]
        with admin() as conn:  # back to PostgreSQL format 2, with its rows
            conn.execute(f"DROP TABLE {schema}.fastjcs_refused_admissions")
            conn.execute(
                f"CREATE TABLE {schema}.fastjcs_reservation_refusals (seq bigint GENERATED ALWAYS AS "
                "IDENTITY PRIMARY KEY, agent_identity text NOT NULL, execution_id text NOT NULL, answer text "
                "NOT NULL, binding text NOT NULL, call_id text, at double precision NOT NULL)"
            )
            for seq, *rest in old_rows:
                conn.execute(
                    f"INSERT INTO {schema}.fastjcs_reservation_refusals ({columns}) OVERRIDING SYSTEM VALUE "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (seq, AGENT, *rest),
                )
            conn.execute(f"UPDATE {schema}.fastjcs_registry_version SET version = 2")
        old, new = 2, 3
    else:
        from fastjcs.eab import _sqlite

        db = sqlite3.connect(target)  # back to SQLite format 3, with its rows
        db.execute("DROP TABLE refused_admissions")
        db.execute(_sqlite._REFUSALS_V3)
        db.execute(_sqlite._REFUSALS_V3_INDEX)
        db.executemany(
            f"INSERT INTO reservation_refusals ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(seq, AGENT, *rest) for seq, *rest in old_rows],
        )
        db.execute("PRAGMA user_version = 3")
        db.commit()
        db.close()
        old, new = 3, 4
    assert ExecutionRegistry.migrate(target) == (old, new)
    with ExecutionRegistry(target) as reg:
        rows = reg.refusals(AGENT, "exec-1")
        assert [(r.answer.value, r.binding, r.call_id, r.times, r.first_at, r.at) for r in rows] == [
            ("replay_in_flight", B1, None, 3, 10.0, 14.0),  # the latest call_id: None
            ("collision_changed_binding", B2, None, 1, 11.0, 11.0),
        ]
        assert [(r.answer.value, r.call_id, r.times) for r in reg.refusals(AGENT, "exec-9")] == [
            ("binding_mismatch", "m", 1)
        ]
        assert reg.get(AGENT, "exec-1").call_id == "c0"
        # the migrated log goes on coalescing
        reg.admit(AGENT, "exec-1", B1, call_id="c6")
        assert (reg.refusals(AGENT, "exec-1")[0].times, reg.refusals(AGENT, "exec-1")[0].call_id) == (4, "c6")
