"""The one result type of the vector runners (`cpb_vectors`, `eab_vectors`): the outcome of
each vector, with the checks it made; the outcome of each mutation probe; the run's summary, as
text or JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

_E = TypeVar("_E", bound=BaseException)


@dataclass
class VectorOutcome:
    name: str
    handler: str
    must_fail: bool
    failure_reason: str | None
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    fired: set[str] = field(default_factory=set)

    @property
    def passed(self) -> bool:
        return not self.failures and self.checks > 0

    # ---- assertions ----
    def eq(self, what: str, got: Any, want: Any) -> bool:
        self.checks += 1
        if got != want:
            self.failures.append(f"{what}: got {got!r}, want {want!r}")
            return False
        return True

    def true(self, what: str, condition: bool) -> bool:
        self.checks += 1
        if not condition:
            self.failures.append(what)
        return condition

    def fail(self, what: str) -> None:
        self.checks += 1
        self.failures.append(what)

    def refuses(self, what: str, call: Callable[[], Any], expected: type[_E]) -> _E | None:
        """`call` must raise `expected` (a subclass counts)."""
        try:
            got = call()
        except expected as exc:
            self.checks += 1
            return exc
        except Exception as exc:  # a mutant or a bug: report, never crash the run
            self.fail(f"{what}: raised {type(exc).__name__}: {exc}, want {expected.__name__}")
            return None
        self.fail(f"{what}: accepted ({_short(got)}), want {expected.__name__}")
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 120 else text[:117] + "..."


@dataclass
class ProbeOutcome:
    category: str
    vector: str
    generator: str | None
    flipped: bool
    detail: str = ""


@dataclass
class RunSummary:
    directory: str
    implementation: str
    vectors: list[VectorOutcome]
    unclaimed: list[str]
    probes: list[ProbeOutcome]
    #: files that are not vectors (not .json: a README, notes): reported, never run, never a failure
    ignored: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[VectorOutcome]:
        return [v for v in self.vectors if not v.passed]

    @property
    def assertion_free(self) -> list[str]:
        """Check categories a MUST-FAIL vector fired that no mutant was shown to flip."""
        return sorted({p.category for p in self.probes if not p.flipped})

    @property
    def ok(self) -> bool:
        return not self.failed and not self.unclaimed and not self.assertion_free

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for v in self.vectors:
            out[v.handler] = out.get(v.handler, 0) + 1
        return out

    def categories(self) -> dict[str, list[str]]:
        """category -> the vectors that fired it."""
        out: dict[str, list[str]] = {}
        for v in self.vectors:
            for c in sorted(v.fired):
                out.setdefault(c, []).append(v.name)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "implementation": self.implementation,
            "ok": self.ok,
            "vectors": len(self.vectors),
            "passed": len(self.vectors) - len(self.failed),
            "by_handler": self.counts(),
            "unclaimed": self.unclaimed,
            "ignored": self.ignored,
            "failures": {v.name: v.failures or ["no assertion made"] for v in self.failed},
            "probes": [p.__dict__ for p in self.probes],
            "assertion_free": self.assertion_free,
        }

    def report(self) -> str:
        lines = [
            f"{self.directory}: {len(self.vectors) - len(self.failed)}/{len(self.vectors)} vectors "
            f"passed ({self.implementation})"
        ]
        for v in self.failed:
            lines.append(f"FAIL {v.name}: " + "; ".join(v.failures or ["no assertion made"]))
        for name in self.unclaimed:
            lines.append(f"UNCLAIMED {name}: no handler reads this file")
        for name in self.ignored:
            lines.append(f"IGNORED {name}: not a vector file (not .json)")
        flipped = sum(p.flipped for p in self.probes)
        lines.append(f"mutation probes: {flipped}/{len(self.probes)} mutants flipped the verdict")
        for p in self.probes:
            if not p.flipped:
                lines.append(f"ASSERTION-FREE {p.category} ({p.vector}): {p.detail}")
        return "\n".join(lines)
