"""The execution correlation registry (docs/contract.md, "Execution registry").

The registry stores bindings as opaque strings and never canonicalizes, so these tests do not take
the `backend` fixture. They run on every storage (`make_registry`: SQLite in memory and in a file,
PostgreSQL; `new_target`: a SQLite file and PostgreSQL; see _registry_stores, which skips the
PostgreSQL cases with the reason where no server is configured). Multi-process tests run
tests/eab/registry_worker.py as separate interpreters.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import _cli
import pytest
from _registry_stores import make_registry, new_target, stored  # noqa: F401 - fixtures
from conftest import REPO

from fastjcs import InvalidDigestError
from fastjcs.eab import (
    FINALIZE_IGNORED,
    Admission,
    ExecutionRegistry,
    RegistryClosedError,
    RegistryStorageError,
    ReservationState,
    UnknownReservationError,
)
from fastjcs.eab import (
    registry as registry_module,
)

WORKER = REPO / "tests" / "eab" / "registry_worker.py"

AGENT = "spiffe://agent.example/payments/prod"
OTHER_AGENT = "spiffe://agent.example/payments/canary"
B1 = "sha256:" + "1" * 64
B2 = "sha256:" + "2" * 64
B1_384 = "sha384:" + "1" * 96
AUDIT = "sha256:" + "a" * 64


# ---------------------------------------------------------------------------------------------------
# The admission table
# ---------------------------------------------------------------------------------------------------


def _into_state(reg, state: str) -> None:
    """Put (AGENT, "exec-1") with binding B1 into `state`."""
    if state == "absent":
        return
    assert reg.admit(AGENT, "exec-1", B1, call_id="first") is Admission.ADMITTED
    if state == "completed":
        reg.finalize(AGENT, "exec-1", "completed")
    elif state == "outcome_unknown":
        reg.finalize(AGENT, "exec-1", "outcome_unknown")
    elif state == "sealed_by_recover":
        assert reg.recover() == 1


# state -> (answer for the same binding, answer for a different binding)
TABLE = {
    "absent": (Admission.ADMITTED, Admission.ADMITTED),
    "in_flight": (Admission.REPLAY_IN_FLIGHT, Admission.COLLISION_CHANGED_BINDING),
    "completed": (Admission.REPLAY_TERMINAL, Admission.COLLISION_CHANGED_BINDING),
    "outcome_unknown": (Admission.REPLAY_OUTCOME_UNKNOWN, Admission.COLLISION_CHANGED_BINDING),
    "sealed_by_recover": (Admission.REPLAY_OUTCOME_UNKNOWN, Admission.COLLISION_CHANGED_BINDING),
}
STORED_STATE = {
    "in_flight": "in_flight",
    "completed": "completed",
    "outcome_unknown": "outcome_unknown",
    "sealed_by_recover": "outcome_unknown",
}


def check_admission_table(make) -> None:
    """Every state against the same binding, a different one, and another agent identity."""
    for state, (same, different) in TABLE.items():
        for binding, expected in ((B1, same), (B2, different), (B1_384, different)):
            reg = make()
            _into_state(reg, state)
            answer = reg.admit(AGENT, "exec-1", binding, call_id="second")
            assert answer is expected, (state, binding, answer)
            assert answer.allows_call is (expected is Admission.ADMITTED)
            if state != "absent":
                # The stored reservation is unchanged: binding, state, the first attempt's call_id.
                stored = reg.get(AGENT, "exec-1")
                assert (stored.binding, stored.state, stored.call_id) == (B1, STORED_STATE[state], "first"), state
                # The same execution_id under another agent identity is another key.
                assert reg.admit(OTHER_AGENT, "exec-1", binding) is Admission.ADMITTED
                assert reg.get(AGENT, "exec-1").state == STORED_STATE[state]
            # Once admitted, a key is never admitted again, whatever is asked.
            for again in (B1, B2, B1, B1_384):
                assert reg.admit(AGENT, "exec-1", again) is not Admission.ADMITTED


def test_admission_table(make_registry):
    check_admission_table(make_registry)


def test_mutant_replay_after_outcome_unknown_is_caught(make_registry, monkeypatch):
    decide = registry_module._decide

    def lenient(state, stored, binding):
        if state is ReservationState.OUTCOME_UNKNOWN and stored == binding:
            return Admission.ADMITTED  # "the same operation: let it retry"
        return decide(state, stored, binding)

    monkeypatch.setattr(registry_module, "_decide", lenient)
    with pytest.raises(AssertionError):
        check_admission_table(make_registry)


def test_mutant_state_outranks_collision_is_caught(make_registry, monkeypatch):
    decide = registry_module._decide

    def state_first(state, stored, binding):
        if state is ReservationState.COMPLETED:
            return Admission.REPLAY_TERMINAL  # "it is done anyway", whatever the binding
        return decide(state, stored, binding)

    monkeypatch.setattr(registry_module, "_decide", state_first)
    with pytest.raises(AssertionError):
        check_admission_table(make_registry)


def test_admission_members():
    assert [a.name for a in Admission] == [
        "ADMITTED",
        "COLLISION_CHANGED_BINDING",
        "REPLAY_IN_FLIGHT",
        "REPLAY_OUTCOME_UNKNOWN",
        "REPLAY_TERMINAL",
        "BINDING_MISMATCH",
    ]


# ---------------------------------------------------------------------------------------------------
# finalize and recover
# ---------------------------------------------------------------------------------------------------


def test_finalize_never_admitted(make_registry):
    reg = make_registry()
    with pytest.raises(UnknownReservationError):
        reg.finalize(AGENT, "exec-1", "completed")
    with pytest.raises(LookupError):
        reg.finalize(AGENT, "exec-1", "outcome_unknown")
    assert reg.get(AGENT, "exec-1") is None  # nothing was created
    reg.admit(OTHER_AGENT, "exec-1", B1)
    with pytest.raises(UnknownReservationError):  # the key includes the agent identity
        reg.finalize(AGENT, "exec-1", "completed")


@pytest.mark.parametrize("disposition", ["completed", "outcome_unknown"])
def test_finalize_is_idempotent(make_registry, disposition):
    reg = make_registry()
    reg.admit(AGENT, "exec-1", B1)
    assert reg.finalize(AGENT, "exec-1", disposition, AUDIT) == disposition
    first = reg.get(AGENT, "exec-1")
    assert (first.state, first.terminal_audit_entry_hash, first.finalized_by) == (disposition, AUDIT, "finalize")
    time.sleep(0.01)
    assert reg.finalize(AGENT, "exec-1", disposition) == disposition
    assert reg.finalize(AGENT, "exec-1", ReservationState(disposition), AUDIT) == disposition
    assert reg.get(AGENT, "exec-1") == first  # nothing changed, not even finalized_at


def test_terminal_states_do_not_change(make_registry):
    # Changed by issue 34: these calls raised ReservationStateError before. cMCP's finalize is
    # "legal only from in_flight; a second call is a no-op so a retry of the caller's terminal path
    # cannot raise after the effect already happened": no raise, nothing changed, and (more than
    # cMCP) each conflicting call recorded in the history as finalize_ignored with what it named.
    reg = make_registry()
    reg.admit(AGENT, "done", B1)
    reg.finalize(AGENT, "done", "completed", AUDIT)
    reg.admit(AGENT, "unknown", B1)
    reg.finalize(AGENT, "unknown", "outcome_unknown")
    before = {eid: reg.get(AGENT, eid) for eid in ("done", "unknown")}
    other = "sha256:" + "b" * 64
    assert reg.finalize(AGENT, "done", "outcome_unknown") == "completed"  # the state it keeps
    assert reg.finalize(AGENT, "unknown", "completed") == "outcome_unknown"
    assert reg.finalize(AGENT, "done", "completed", other) == "completed"  # another audit hash
    assert reg.finalize(AGENT, "unknown", "outcome_unknown", AUDIT) == "outcome_unknown"  # one not recorded
    assert reg.finalize(AGENT, "done", "completed", AUDIT) == "completed"  # the same outcome: nothing new
    assert reg.finalize(AGENT, "done", "completed") == "completed"  # no hash named: no conflict
    assert {eid: reg.get(AGENT, eid) for eid in ("done", "unknown")} == before  # not even finalized_at

    def trail(eid):
        return [(e.action, e.state, e.terminal_audit_entry_hash) for e in reg.history(AGENT, eid)]

    assert trail("done") == [
        ("admit", "in_flight", None),
        ("finalize", "completed", AUDIT),
        (FINALIZE_IGNORED, "outcome_unknown", None),
        (FINALIZE_IGNORED, "completed", other),
    ]
    assert trail("unknown") == [
        ("admit", "in_flight", None),
        ("finalize", "outcome_unknown", None),
        (FINALIZE_IGNORED, "completed", None),
        (FINALIZE_IGNORED, "outcome_unknown", AUDIT),
    ]


def test_recover_seals_in_flight_only(make_registry):
    reg = make_registry()
    for n in range(5):
        reg.admit(AGENT, f"exec-{n}", B1)
    reg.finalize(AGENT, "exec-0", "completed")
    reg.finalize(AGENT, "exec-1", "outcome_unknown")
    assert reg.recover() == 3
    assert reg.recover() == 0
    states = {n: reg.get(AGENT, f"exec-{n}") for n in range(5)}
    assert states[0].state == "completed" and states[0].finalized_by == "finalize"
    assert states[1].state == "outcome_unknown" and states[1].finalized_by == "finalize"
    for n in (2, 3, 4):
        assert states[n].state == "outcome_unknown" and states[n].finalized_by == "recover"
        assert reg.admit(AGENT, f"exec-{n}", B1) is Admission.REPLAY_OUTCOME_UNKNOWN
        # a sealed call is not "completed" afterwards (a no-op since issue 34, recorded, not a
        # ReservationStateError), and outcome_unknown again is a no-op
        assert reg.finalize(AGENT, f"exec-{n}", "completed") == "outcome_unknown"
        assert reg.get(AGENT, f"exec-{n}") == states[n]
        assert reg.finalize(AGENT, f"exec-{n}", "outcome_unknown") == "outcome_unknown"
        assert [e.action for e in reg.history(AGENT, f"exec-{n}")] == ["admit", "recover", FINALIZE_IGNORED]


# ---------------------------------------------------------------------------------------------------
# Validation, before the database is touched
# ---------------------------------------------------------------------------------------------------


class _Untouchable:
    """Stands in for the connection: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the database was touched ({name}) before validation")


@pytest.fixture
def guarded():
    reg = ExecutionRegistry.create(":memory:")
    real, reg._store = reg._store, _Untouchable()
    yield reg
    reg._store = real
    reg.close()


BAD_EXECUTION_IDS = [
    "",
    "a" * 201,
    "a b",
    " a",
    "a\n",
    "a\t",
    "caf\u00e9",
    "\u0663",
    "a\x7f",
    "a\x00",
    "\x20",
    "id\u2028",
    5,
    None,
    b"exec-1",
]
BAD_BINDINGS = [
    "",
    B1.upper(),
    B1[7:],
    B1 + "\n",
    " " + B1,
    "sha512:" + "1" * 128,
    "sha256:" + "1" * 63,
    "SHA256:" + "1" * 64,
    B1.encode(),
    None,
    5,
]
BAD_TEXT = ["", "\ud800x", "ag\x00ent", "\x00", None, 5, b"agent"]


@pytest.mark.parametrize("execution_id", BAD_EXECUTION_IDS, ids=repr)
def test_bad_execution_id(guarded, execution_id):
    with pytest.raises(ValueError, match="execution_id"):
        guarded.admit(AGENT, execution_id, B1)
    with pytest.raises(ValueError, match="execution_id"):
        guarded.finalize(AGENT, execution_id, "completed")


@pytest.mark.parametrize("binding", BAD_BINDINGS, ids=repr)
def test_bad_binding(guarded, binding):
    with pytest.raises(ValueError):
        guarded.admit(AGENT, "exec-1", binding)


def test_bad_binding_error_class(guarded):
    with pytest.raises(InvalidDigestError):
        guarded.admit(AGENT, "exec-1", B1.upper())


@pytest.mark.parametrize("value", BAD_TEXT, ids=repr)
def test_bad_agent_identity_and_call_id(guarded, value):
    with pytest.raises(ValueError, match="agent_identity"):
        guarded.admit(value, "exec-1", B1)
    with pytest.raises(ValueError, match="agent_identity"):
        guarded.finalize(value, "exec-1", "completed")
    if value is not None:  # None is "no call_id"
        with pytest.raises(ValueError, match="call_id"):
            guarded.admit(AGENT, "exec-1", B1, call_id=value)


@pytest.mark.parametrize("disposition", ["COMPLETED", "in_flight", "done", "", None, 1, ReservationState.IN_FLIGHT])
def test_bad_disposition(guarded, disposition):
    with pytest.raises(ValueError, match="disposition"):
        guarded.finalize(AGENT, "exec-1", disposition)


@pytest.mark.parametrize("audit", [AUDIT.upper(), AUDIT[7:], "", 5])
def test_bad_terminal_audit_entry_hash(guarded, audit):
    with pytest.raises(ValueError):
        guarded.finalize(AGENT, "exec-1", "completed", audit)


@pytest.mark.parametrize("closed", [False, True], ids=["open", "closed"])
def test_nul_is_refused_alike_on_every_storage(make_registry, closed):
    """One argument rule for every storage, checked before the storage is touched (so even on a
    closed registry): before, SQLite admitted "ag\\x00ent" and PostgreSQL failed with
    RegistryStorageError."""
    reg = make_registry()
    assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED
    if closed:
        reg.close()
    calls = [
        lambda: reg.admit("ag\x00ent", "exec-1", B1),
        lambda: reg.admit(AGENT, "exec-1", B1, call_id="c\x00d"),
        lambda: reg.finalize("ag\x00ent", "exec-0", "completed"),
        lambda: reg.get("ag\x00ent", "exec-0"),
        lambda: reg.history("ag\x00ent", "exec-0"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"must not contain NUL"):
            call()
    if not closed:
        assert reg.get(AGENT, "exec-1") is None and [e.action for e in reg.history(AGENT, "exec-0")] == ["admit"]


def test_execution_id_boundaries(make_registry):
    reg = make_registry()
    printable = "".join(map(chr, range(0x21, 0x7F)))
    for eid in ("a" * 200, "!", "~", printable, "');DROP/**/TABLE/**/reservations;--"):
        assert reg.admit(AGENT, eid, B1) is Admission.ADMITTED
        assert reg.get(AGENT, eid).execution_id == eid


# ---------------------------------------------------------------------------------------------------
# Storage
# ---------------------------------------------------------------------------------------------------


def test_file_settings_and_persistence(tmp_path):
    path = tmp_path / "reg.db"
    with ExecutionRegistry.create(path) as reg:
        assert reg._store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert reg._store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert reg.admit(AGENT, "exec-1", B1, call_id="c1") is Admission.ADMITTED
    with pytest.raises(RegistryClosedError):
        reg.admit(AGENT, "exec-2", B1)  # closed by the context manager
    reg.close()  # idempotent
    with ExecutionRegistry(str(path)) as reopened:
        assert reopened.admit(AGENT, "exec-1", B1) is Admission.REPLAY_IN_FLIGHT
        assert reopened.get(AGENT, "exec-1").call_id == "c1"


def test_storage_without_wal_is_refused():
    with pytest.raises(RegistryStorageError, match="WAL"):
        ExecutionRegistry.create("")  # SQLite's temporary database keeps a rollback journal


def test_memory_registries_are_separate():
    with ExecutionRegistry.create(":memory:") as a, ExecutionRegistry.create(":memory:") as b:
        assert a.admit(AGENT, "exec-1", B1) is Admission.ADMITTED
        assert b.admit(AGENT, "exec-1", B1) is Admission.ADMITTED


def test_threads_share_one_registry(new_target):
    answers = []
    with ExecutionRegistry.create(new_target()) as reg:

        def run():
            answers.extend(reg.admit(AGENT, f"exec-{n % 25}", B1) for n in range(100))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert Counter(answers) == {Admission.ADMITTED: 25, Admission.REPLAY_IN_FLIGHT: 375}


def test_processes_contending(new_target, tmp_path):
    """8 processes x 200 admits on 100 overlapping keys: one ADMITTED per key, no error."""
    db, go = new_target(), tmp_path / "go"
    workers, keys, rounds = 8, 100, 2
    ExecutionRegistry.create(db).close()
    results = [
        r
        for out in _cli.run_together([[WORKER, "contend", db, go, w, keys, rounds] for w in range(workers)], go)
        for r in out
    ]
    assert len(results) == workers * keys * rounds

    admitted = Counter(key for key, _, answer in results if answer == "ADMITTED")
    assert admitted == {key: 1 for key in range(keys)}
    winner = {key: binding for key, binding, answer in results if answer == "ADMITTED"}
    with ExecutionRegistry(db) as reg:
        for key, binding, answer in results:
            if answer == "ADMITTED":
                continue
            expected = "REPLAY_IN_FLIGHT" if binding == winner[key] else "COLLISION_CHANGED_BINDING"
            assert answer == expected, (key, binding, answer)
            assert reg.get(f"spiffe://agent.example/w{key % 3}", f"exec-{key}").binding == winner[key]
    assert {answer for _, _, answer in results} == {"ADMITTED", "REPLAY_IN_FLIGHT", "COLLISION_CHANGED_BINDING"}
    # One audit event per reservation: the refused admissions changed nothing.
    reservations, events = stored(db)
    assert len(reservations) == keys and Counter(a for _, a, _ in events) == {"admit": keys}


def test_sigkill_loses_nothing_committed(new_target):
    db = new_target()
    ExecutionRegistry.create(db).close()
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), "loop", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_cli.env()
    )
    admitted, completed = set(), set()
    try:
        for line in proc.stdout:
            word, n = line.decode().split()
            (admitted if word == "admitted" else completed).add(int(n))
            if len(admitted) >= 60:
                break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    assert len(admitted) >= 60

    agent = "spiffe://agent.example/loop"
    reservations, events = stored(db)
    rows = {int(eid[5:]): (state, binding) for eid, state, binding, _ in reservations}
    # Each admit commits before the next begins: the keys are exactly exec-0 .. exec-N, and
    # every one the child reported is there, with its binding.
    assert sorted(rows) == list(range(len(rows)))
    assert admitted <= set(rows)
    for n, (state, binding) in rows.items():
        assert binding == f"sha256:{n:032x}{0:032x}"
        if n in completed or n % 3:
            # reported completed, or never finalized by the child
            assert state == ("completed" if n % 3 == 0 else "in_flight"), (n, state)
        else:
            assert state in ("in_flight", "completed")  # killed between admit and finalize?
    # The audit trail agrees with the reservations: one admit each, one finalize per completed.
    assert Counter((int(eid[5:]), action) for eid, action, _ in events) == Counter(
        [(n, "admit") for n in rows] + [(n, "finalize") for n, (state, _) in rows.items() if state == "completed"]
    )
    in_flight = {n for n, (state, _) in rows.items() if state == "in_flight"}
    assert admitted - completed - {n for n in admitted if n % 3 == 0} <= in_flight

    with ExecutionRegistry(db) as reg:
        assert reg.recover() == len(in_flight)
        assert reg.recover() == 0
        for n in in_flight:
            sealed = reg.get(agent, f"exec-{n}")
            assert (sealed.state, sealed.finalized_by) == ("outcome_unknown", "recover")
            assert reg.admit(agent, f"exec-{n}", f"sha256:{n:032x}{0:032x}") is Admission.REPLAY_OUTCOME_UNKNOWN
            assert [(e.action, e.state) for e in reg.history(agent, f"exec-{n}")] == [
                ("admit", "in_flight"),
                ("recover", "outcome_unknown"),
            ]
        for n in completed:
            assert reg.get(agent, f"exec-{n}").state == "completed"


def test_sigkill_inside_a_transaction(new_target):
    """A client killed after writing a reservation and before its audit event and COMMIT: nothing
    of that admission remains, the key is free, and the earlier reservations are recovered."""
    db, before = new_target(), 7
    ExecutionRegistry.create(db).close()
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), "stall", db, str(before)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_cli.env(),
    )
    try:
        line = proc.stdout.readline()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
    assert line == b"inside\n", err.decode()

    agent = "spiffe://agent.example/stall"
    reservations, events = stored(db)
    assert [eid for eid, *_ in reservations] == sorted(f"exec-{n}" for n in range(before))
    assert events == [(f"exec-{n}", "admit", "in_flight") for n in range(before)]
    with ExecutionRegistry(db, timeout=10) as reg:
        assert reg.get(agent, f"exec-{before}") is None
        assert reg.history(agent, f"exec-{before}") == []
        assert reg.recover() == before
        for n in range(before):
            assert reg.admit(agent, f"exec-{n}", f"sha256:{n:032x}{0:032x}") is Admission.REPLAY_OUTCOME_UNKNOWN
        # The killed client's lock is gone with it: the key is admitted now, once.
        b = f"sha256:{before:032x}{0:032x}"
        assert reg.admit(agent, f"exec-{before}", b, call_id="again") is Admission.ADMITTED
        assert reg.get(agent, f"exec-{before}").call_id == "again"


# ---------------------------------------------------------------------------------------------------
# The audit trail
# ---------------------------------------------------------------------------------------------------


def test_audit_trail_records_each_state_change_once(make_registry):
    reg = make_registry()
    assert reg.history(AGENT, "exec-1") == []
    reg.admit(AGENT, "exec-1", B1, call_id="c1")
    reg.admit(AGENT, "exec-2", B1, call_id="c2")
    reg.admit(AGENT, "exec-3", B1)
    for refused in (B1, B2):  # refusals change no state and record nothing
        assert reg.admit(AGENT, "exec-1", refused, call_id="c9") is not Admission.ADMITTED
    reg.finalize(AGENT, "exec-1", "completed", AUDIT)
    reg.finalize(AGENT, "exec-1", "completed", AUDIT)  # a no-op: nothing recorded
    reg.finalize(AGENT, "exec-2", "outcome_unknown")
    assert reg.finalize(AGENT, "exec-2", "completed") == "outcome_unknown"  # ignored, recorded (issue 34)
    assert reg.recover() == 1

    def trail(eid):
        return [(e.action, e.state, e.call_id, e.terminal_audit_entry_hash) for e in reg.history(AGENT, eid)]

    assert trail("exec-1") == [("admit", "in_flight", "c1", None), ("finalize", "completed", None, AUDIT)]
    assert trail("exec-2") == [
        ("admit", "in_flight", "c2", None),
        ("finalize", "outcome_unknown", None, None),
        (FINALIZE_IGNORED, "completed", None, None),  # what the ignored call named; the state is kept
    ]
    assert trail("exec-3") == [("admit", "in_flight", None, None), ("recover", "outcome_unknown", None, None)]
    assert reg.history(OTHER_AGENT, "exec-1") == []
    events = [e for eid in ("exec-1", "exec-2", "exec-3") for e in reg.history(AGENT, eid)]
    # Each event carries the time its change stored; seq orders the events of the registry.
    for eid in ("exec-1", "exec-2", "exec-3"):
        stored_row = reg.get(AGENT, eid)
        trail_of = [e for e in reg.history(AGENT, eid) if e.action != FINALIZE_IGNORED]
        assert trail_of[0].at == stored_row.admitted_at and trail_of[-1].at == stored_row.finalized_at
    assert sorted(e.seq for e in events) == sorted({e.seq for e in events})
    assert all(isinstance(e.state, ReservationState) for e in events)
