"""The `cpb-check` role: is a JSON text already in jcs-n normal form, token for token?

    >>> check(b'{"type":"action","id":"1234","type":"injected"}').violations[0].path
    '$["type"]'

A verdict is `verified` or `non-conforming`, with every violation as (JSON path, rule):

    P  a member whose value is null, [] or {}, at any depth (array elements are exempt; objects
       inside arrays are checked)
    R  a number token outside 0|-?[1-9][0-9]*, an integer token outside +/-(2^53-1), or a member
       name equal to an earlier one of the same object after NFC normalization

    C  (with `context=`) a constraint the digest context declares: field-set, required-member,
       member-type, number-policy (the first one broken; `CheckResult.not_machine_checked` lists the
       context's prose that no machine form covers)

Text that is not strict JSON (RFC 8259 / I-JSON as `fastjcs.canonicalize` reads it) or nests
deeper than `max_depth` is neither: `check` raises the CanonicalizationError that
`canonicalize` raises. The command line maps verified -> 0, non-conforming -> 1, an error -> 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.api import DEFAULT_MAX_DEPTH, Data, as_bytes, check_depth
from ._scan import format_path, scan
from .constraints import ContextViolationError

if TYPE_CHECKING:  # pragma: no cover
    from .registry import DigestContext

VERIFIED = "verified"
NON_CONFORMING = "non-conforming"

EXIT_VERIFIED = 0
EXIT_NON_CONFORMING = 1
EXIT_ERROR = 2  # for the CLI: the input is not JSON, too deep, unreadable


@dataclass(frozen=True)
class Violation:
    path: str  # e.g. $["payload"]["amount"]
    rule: str  # "P", "R", or "C" (a digest-context constraint)
    code: str  # empty-member, non-integer-number, unsafe-integer, duplicate-name; for C the
    # constraint: field-set, required-member, member-type, number-policy
    offset: int  # byte offset of the member name (P, duplicate-name) or of the number token

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "rule": self.rule, "code": self.code, "offset": self.offset}


@dataclass(frozen=True)
class CheckResult:
    violations: tuple[Violation, ...]
    not_machine_checked: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        return NON_CONFORMING if self.violations else VERIFIED

    @property
    def exit_code(self) -> int:
        return EXIT_NON_CONFORMING if self.violations else EXIT_VERIFIED

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "violations": [v.as_dict() for v in self.violations]}
        if self.not_machine_checked:
            out["not_machine_checked"] = list(self.not_machine_checked)
        return out


def check(data: Data, *, max_depth: int = DEFAULT_MAX_DEPTH, context: DigestContext | None = None) -> CheckResult:
    """Judge a JSON text; violations come in document order (by byte offset). With `context`, the
    first constraint of that digest context the text breaks follows them (rule C, offset -1)."""
    raw = as_bytes(data)
    findings = scan(raw, check_depth(max_depth), "check").findings
    violations: list[Violation] = [
        Violation(format_path(f.path), f.rule, f.code, f.offset)
        for f in sorted(findings, key=lambda f: (f.offset, f.rule))
    ]
    unchecked: tuple[str, ...] = ()
    if context is not None:
        unchecked = context.not_machine_checked
        if context.constraints is not None and context.algorithm != "as-transmitted":
            try:
                context.constraints.check(
                    raw, exclusion_set=context.exclusion_set or (), as_text=True, max_depth=max_depth
                )
            except ContextViolationError as exc:
                v = exc.violation
                violations.append(Violation(v.path, "C", v.constraint, -1))
    return CheckResult(tuple(violations), unchecked)
