"""The execution registry against cMCP's execution correlation (issue 24, item 3), on every storage.

cMCP: docs/spec/execution-correlation.md (agentrust-io/cmcp 2832fdbd) and
docs/spec/execution-action-binding.md (182a8a3b), and cMCP's own registry (the #565/#606
foundation): an admission whose binding's preimage is established; a refusal "remains auditable
under the asserted execution_id"; a retried terminal path is a no-op; finalize pins the terminal
audit entry hash. Each test runs on SQLite (in memory and in a file) and on PostgreSQL (skipped,
saying why, without FASTJCS_TEST_POSTGRES_URL).
"""

from __future__ import annotations

import sqlite3

import pytest
from _registry_stores import admin, make_registry, new_target  # noqa: F401 - fixtures

from fastjcs import eab
from fastjcs.eab import (
    FINALIZE_IGNORED,
    ActionBindingError,
    Admission,
    ExecutionRegistry,
    RegistryFormatError,
)

# EAB-001-ascii-sha256 and EAB-005-ascii-sha384 of cMCP's execution-action-binding-v1-vectors.json
# (01e41e00): the fields and the bindings upstream published for them.
AGENT = "spiffe://agent.example/payments/prod"
ACTION = ("transfer", "account:merchant-7", "2026-09-10T16:30:00Z")
EAB_001 = "sha256:305b05b249b159fa9dea8cbbfaa0c19b71aa867a6da718693c1c7d4b83f52fe4"
EAB_005_ALG = "sha384"
OTHER_AGENT = "spiffe://agent.example/payments/other"
AUDIT = "sha256:" + "a" * 64


def test_admit_action_computes_the_binding_from_the_authenticated_agent(make_registry):
    reg = make_registry()
    assert reg.admit_action(AGENT, "exec-1", *ACTION, call_id="c1") is Admission.ADMITTED
    assert reg.get(AGENT, "exec-1").binding == EAB_001
    assert reg.admit_action(AGENT, "exec-1", *ACTION, call_id="c2") is Admission.REPLAY_IN_FLIGHT
    assert reg.admit_action(AGENT, "exec-1", "transfer", "account:merchant-8", ACTION[2]) is (
        Admission.COLLISION_CHANGED_BINDING
    )
    assert reg.admit_action(AGENT, "exec-2", *ACTION, algorithm=EAB_005_ALG) is Admission.ADMITTED
    assert reg.get(AGENT, "exec-2").binding.startswith("sha384:")
    assert len(reg.get(AGENT, "exec-2").binding) == len("sha384:") + 96
    with pytest.raises(ActionBindingError):  # before the storage is touched
        reg.admit_action(AGENT, "exec-3", "transfer", "", ACTION[2])
    assert reg.get(AGENT, "exec-3") is None


def test_a_carried_binding_is_refused_unless_it_is_the_computed_one(make_registry):
    """The gap cMCP's review lists as blocking: under agent A, a binding computed for agent B
    (an opaque digest whose preimage was never established) used to be admitted."""
    reg = make_registry()
    for_b = eab.binding(OTHER_AGENT, *ACTION)
    assert reg.admit(AGENT, "opaque", for_b) is Admission.ADMITTED  # admit takes it as given (documented)
    assert reg.admit_action(AGENT, "exec-1", *ACTION, binding=for_b, call_id="c1") is Admission.BINDING_MISMATCH
    assert reg.get(AGENT, "exec-1") is None  # nothing reserved
    other_scope = eab.binding(AGENT, "transfer", "account:merchant-8", ACTION[2])
    assert reg.admit_action(AGENT, "exec-1", *ACTION, binding=other_scope) is Admission.BINDING_MISMATCH
    sha384 = eab.binding(AGENT, *ACTION, EAB_005_ALG)
    assert reg.admit_action(AGENT, "exec-1", *ACTION, binding=sha384, algorithm="sha256") is (
        Admission.BINDING_MISMATCH
    )
    assert reg.get(AGENT, "exec-1") is None
    assert reg.admit_action(AGENT, "exec-1", *ACTION, binding=EAB_001, call_id="c2") is Admission.ADMITTED
    assert reg.admit_action(AGENT, "exec-2", *ACTION, binding=sha384) is Admission.ADMITTED  # its own algorithm
    assert [(r.answer, r.binding, r.call_id) for r in reg.refusals(AGENT, "exec-1")] == [
        (Admission.BINDING_MISMATCH, for_b, "c1"),
        (Admission.BINDING_MISMATCH, other_scope, None),
        (Admission.BINDING_MISMATCH, sha384, None),
    ]
    assert [e.action for e in reg.history(AGENT, "exec-1")] == ["admit"]


def test_every_refused_admission_is_kept_under_the_asserted_key(make_registry):
    """Before: a refused admission changed nothing and recorded nothing."""
    reg = make_registry()
    other = "sha256:" + "0" * 64
    assert reg.admit(AGENT, "exec-1", EAB_001, call_id="c1") is Admission.ADMITTED
    assert reg.admit(AGENT, "exec-1", EAB_001, call_id="c2") is Admission.REPLAY_IN_FLIGHT
    assert reg.admit(AGENT, "exec-1", other, call_id="c3") is Admission.COLLISION_CHANGED_BINDING
    reg.finalize(AGENT, "exec-1", "completed", AUDIT)
    assert reg.admit(AGENT, "exec-1", EAB_001) is Admission.REPLAY_TERMINAL
    assert reg.admit(AGENT, "exec-2", EAB_001) is Admission.ADMITTED
    assert reg.recover() == 1
    assert reg.admit(AGENT, "exec-2", EAB_001, call_id="c4") is Admission.REPLAY_OUTCOME_UNKNOWN
    refusals = reg.refusals(AGENT, "exec-1")
    assert [(r.answer, r.binding, r.call_id) for r in refusals] == [
        (Admission.REPLAY_IN_FLIGHT, EAB_001, "c2"),
        (Admission.COLLISION_CHANGED_BINDING, other, "c3"),
        (Admission.REPLAY_TERMINAL, EAB_001, None),
    ]
    assert all((r.agent_identity, r.execution_id) == (AGENT, "exec-1") for r in refusals)
    assert refusals[0].seq < refusals[1].seq < refusals[2].seq and refusals[0].at <= refusals[2].at
    assert [(r.answer, r.call_id) for r in reg.refusals(AGENT, "exec-2")] == [(Admission.REPLAY_OUTCOME_UNKNOWN, "c4")]
    assert reg.refusals(OTHER_AGENT, "exec-1") == []  # scoped under the agent identity
    # The state changes' trail is unchanged by the refusals, and the reservation keeps the first attempt.
    assert [e.action for e in reg.history(AGENT, "exec-1")] == ["admit", "finalize"]
    assert reg.get(AGENT, "exec-1").call_id == "c1"


def test_a_second_finalize_after_recover_is_a_no_op_that_leaves_a_history_entry(make_registry):
    """cMCP's finalize (agentrust-io/cmcp src/cmcp_runtime/execution/registry.py): "Legal only from
    in_flight; a second call is a no-op so a retry of the caller's terminal path cannot raise after
    the effect already happened". Changed by issue 34: a second finalize naming another disposition
    or hash raised ReservationStateError before; now it returns the state kept, and the ignored call
    (its disposition and hash) is in the history, so an auditor sees the conflict."""
    reg = make_registry()
    reg.admit(AGENT, "exec-1", EAB_001)
    assert reg.recover() == 1
    sealed = reg.get(AGENT, "exec-1")
    assert reg.finalize(AGENT, "exec-1", "outcome_unknown") == "outcome_unknown"  # the same: nothing new
    assert reg.finalize(AGENT, "exec-1", "completed", AUDIT) == "outcome_unknown"  # another: ignored
    assert reg.finalize(AGENT, "exec-1", "outcome_unknown", AUDIT) == "outcome_unknown"  # a hash recover never had
    assert reg.get(AGENT, "exec-1") == sealed  # nothing changed: recover's outcome_unknown stands
    events = reg.history(AGENT, "exec-1")
    assert [(e.action, e.state, e.terminal_audit_entry_hash) for e in events] == [
        ("admit", "in_flight", None),
        ("recover", "outcome_unknown", None),
        (FINALIZE_IGNORED, "completed", AUDIT),
        (FINALIZE_IGNORED, "outcome_unknown", AUDIT),
    ]
    assert events[1].seq < events[2].seq < events[3].seq
    # After a finalize: the same outcome again writes nothing; another is ignored and recorded.
    reg.admit(AGENT, "exec-2", EAB_001)
    reg.finalize(AGENT, "exec-2", "completed", AUDIT)
    assert reg.finalize(AGENT, "exec-2", "completed", AUDIT) == "completed"
    for disposition, audit in (("outcome_unknown", AUDIT), ("completed", "sha256:" + "b" * 64)):
        assert reg.finalize(AGENT, "exec-2", disposition, audit) == "completed"
    assert reg.get(AGENT, "exec-2").terminal_audit_entry_hash == AUDIT
    assert [e.action for e in reg.history(AGENT, "exec-2")] == ["admit", "finalize", FINALIZE_IGNORED, FINALIZE_IGNORED]
    # an admission of the key is still a replay of the terminal state, never a second call
    assert reg.admit(AGENT, "exec-1", EAB_001) is Admission.REPLAY_OUTCOME_UNKNOWN


@pytest.mark.parametrize("memory", [False, True], ids=["stored", "memory"])
def test_strict_registry_requires_the_terminal_audit_entry_hash(new_target, memory):
    target = ":memory:" if memory else new_target()
    with ExecutionRegistry.create(target, strict=True) as reg:
        reg.admit(AGENT, "exec-1", EAB_001)
        with pytest.raises(ValueError, match="terminal_audit_entry_hash is required"):
            reg.finalize(AGENT, "exec-1", "completed")
        assert reg.get(AGENT, "exec-1").state == "in_flight"
        assert reg.finalize(AGENT, "exec-1", "completed", AUDIT) == "completed"
    if not memory:
        with ExecutionRegistry(target, strict=True) as reg:
            with pytest.raises(ValueError, match="terminal_audit_entry_hash is required"):
                reg.finalize(AGENT, "exec-1", "completed")
        with ExecutionRegistry(target) as reg:  # the default keeps the hash optional
            assert reg.finalize(AGENT, "exec-1", "completed") == "completed"
    with pytest.raises(ValueError, match="strict"):
        ExecutionRegistry.create(":memory:", strict="yes")


def test_a_registry_without_the_refusals_migrates(new_target):
    """The refusals need a table: a registry made before it is refused on opening, naming migrate,
    which adds it and keeps every reservation."""
    target = new_target()
    with ExecutionRegistry.create(target) as reg:
        reg.admit(AGENT, "exec-1", EAB_001, call_id="c1")
    if target.startswith("postgresql"):
        schema = target.rsplit("%3D", 1)[1]
        with admin() as conn:  # back to PostgreSQL format 1
            conn.execute(f"DROP TABLE {schema}.fastjcs_refused_admissions")
            conn.execute(f"UPDATE {schema}.fastjcs_registry_version SET version = 1")
        old, new = 1, 3
    else:
        db = sqlite3.connect(target)  # back to SQLite format 2
        db.execute("DROP TABLE refused_admissions")
        db.execute("PRAGMA user_version = 2")
        db.commit()
        db.close()
        old, new = 2, 4
    with pytest.raises(RegistryFormatError, match=r"ExecutionRegistry.migrate"):
        ExecutionRegistry(target)
    assert ExecutionRegistry.migrate(target) == (old, new)
    assert ExecutionRegistry.migrate(target) == (new, new)
    with ExecutionRegistry(target) as reg:
        assert reg.admit(AGENT, "exec-1", EAB_001, call_id="c2") is Admission.REPLAY_IN_FLIGHT
        assert [(r.answer, r.call_id) for r in reg.refusals(AGENT, "exec-1")] == [(Admission.REPLAY_IN_FLIGHT, "c2")]
        assert reg.get(AGENT, "exec-1").call_id == "c1"
