"""The statements of the execution registry's rules that both storages run alike (SQLite in
`_sqlite`, PostgreSQL in `_postgres`): the SQL written once, with `?` placeholders, over the
storage's own table names and parameter style. What differs stays with the storage: `reserve`
(SQLite holds the write lock already; PostgreSQL inserts ON CONFLICT DO NOTHING) and the row locks
of `lock` and `in_flight` (PostgreSQL's FOR UPDATE)."""

from __future__ import annotations

from typing import Any

#: The most rows of refusals one key holds (a row per answer and binding); the refusals of further
#: bindings are counted in their answer's row with the binding OTHER_BINDINGS.
MAX_REFUSAL_ROWS = 16
#: The binding of the row that counts a key's refusals beyond MAX_REFUSAL_ROWS (not a digest).
OTHER_BINDINGS = "*"

#: The columns of a reservation row, in the order of `Reservation`.
COLUMNS = (
    "agent_identity, execution_id, binding, state, call_id, terminal_audit_entry_hash, "
    "admitted_at, finalized_at, finalized_by"
)


class Statements:
    """The registry's statements on one connection inside a transaction. `names` are the tables
    (reservations, events, refusals), `placeholder` the storage's parameter marker, `lock_rows`
    what a read that locks its rows ends with ("" where the transaction holds the lock)."""

    __slots__ = ("conn", "r", "e", "f", "placeholder", "lock_rows")

    def __init__(self, conn: Any, names: tuple[str, str, str], placeholder: str, lock_rows: str = "") -> None:
        self.conn = conn
        self.r, self.e, self.f = names
        self.placeholder = placeholder
        self.lock_rows = lock_rows

    def run(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Execute `sql` (with `?` placeholders) on the connection; the cursor."""
        return self.conn.execute(sql.replace("?", self.placeholder), params)

    def lock(self, agent: str, eid: str) -> tuple[str, str | None, str | None] | None:
        """(state, terminal audit entry hash, finalized_by) of a key, its row locked; or None."""
        row: tuple[str, str | None, str | None] | None = self.run(
            f"SELECT state, terminal_audit_entry_hash, finalized_by FROM {self.r} "
            f"WHERE agent_identity = ? AND execution_id = ?{self.lock_rows}",
            (agent, eid),
        ).fetchone()
        return row

    def in_flight(self) -> list[tuple[str, str]]:
        """The keys of every in_flight reservation, their rows locked."""
        rows: list[tuple[str, str]] = self.run(
            f"SELECT agent_identity, execution_id FROM {self.r} WHERE state = 'in_flight'{self.lock_rows}"
        ).fetchall()
        return rows

    def finish(self, agent: str, eid: str, state: str, audit: str | None, at: float, by: str) -> None:
        """Move a reservation to a terminal state."""
        self.run(
            f"UPDATE {self.r} SET state = ?, terminal_audit_entry_hash = ?, finalized_at = ?, "
            "finalized_by = ? WHERE agent_identity = ? AND execution_id = ?",
            (state, audit, at, by, agent, eid),
        )

    def record(
        self, agent: str, eid: str, action: str, state: str, call_id: str | None, audit: str | None, at: float
    ) -> None:
        """Append one event to the audit trail."""
        self.run(
            f"INSERT INTO {self.e} (agent_identity, execution_id, action, state, call_id, "
            "terminal_audit_entry_hash, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (agent, eid, action, state, call_id, audit, at),
        )

    def refuse(self, agent: str, eid: str, answer: str, binding: str, call_id: str | None, at: float) -> None:
        """Keep a refused admission under the key it asserted: counted in the key's row for this
        answer and binding (its call_id and time the latest's). A key holds at most
        MAX_REFUSAL_ROWS rows of its own; the refusals of further bindings are counted in the row
        of their answer and OTHER_BINDINGS."""
        rows, present = self.run(
            f"SELECT count(*), coalesce(sum(CASE WHEN answer = ? AND binding = ? THEN 1 ELSE 0 END), 0) "
            f"FROM {self.f} WHERE agent_identity = ? AND execution_id = ?",
            (answer, binding, agent, eid),
        ).fetchone()
        if not present and rows >= MAX_REFUSAL_ROWS:
            binding = OTHER_BINDINGS
        self.run(
            f"INSERT INTO {self.f} AS t (agent_identity, execution_id, answer, binding, call_id, first_at, at, times) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (agent_identity, execution_id, answer, binding) "
            "DO UPDATE SET times = t.times + 1, at = excluded.at, call_id = excluded.call_id",
            (agent, eid, answer, binding, call_id, at, at),
        )

    def refusals(self, agent: str, eid: str, after: int, limit: int | None) -> list[tuple[Any, ...]]:
        """The refused admissions of a key after `seq` `after`, oldest first, at most `limit`
        (the columns of Refusal)."""
        rows: list[tuple[Any, ...]] = self.run(
            f"SELECT seq, agent_identity, execution_id, answer, binding, call_id, at, times, first_at FROM {self.f} "
            "WHERE agent_identity = ? AND execution_id = ? AND seq > ? ORDER BY seq"
            + ("" if limit is None else f" LIMIT {int(limit)}"),
            (agent, eid, after),
        ).fetchall()
        return rows

    def prune_refusals(self, before: float) -> int:
        """Delete the refusal rows whose latest refusal is older than `before`; how many."""
        count: int = self.run(f"DELETE FROM {self.f} WHERE at < ?", (before,)).rowcount
        return count

    def get(self, agent: str, eid: str) -> tuple[Any, ...] | None:
        """The stored row of a key (the columns of Reservation), or None."""
        row: tuple[Any, ...] | None = self.run(
            f"SELECT {COLUMNS} FROM {self.r} WHERE agent_identity = ? AND execution_id = ?", (agent, eid)
        ).fetchone()
        return row

    def history(self, agent: str, eid: str) -> list[tuple[Any, ...]]:
        """The audit trail of a key, oldest first (the columns of AuditEvent)."""
        rows: list[tuple[Any, ...]] = self.run(
            "SELECT seq, agent_identity, execution_id, action, state, call_id, "
            f"terminal_audit_entry_hash, at FROM {self.e} WHERE agent_identity = ? "
            "AND execution_id = ? ORDER BY seq",
            (agent, eid),
        ).fetchall()
        return rows
