"""Vintage: verifying a record made under the withdrawn jcs-n (draft -06, "Algorithm jcs-n (Withdrawn)").

jcs-n was withdrawn on 2026-08-18. A jcs-n identifier verifies only when the consuming profile's
evidence, checked cryptographically by a callback the verifier supplies, binds the recomputed
digest to an authenticated time before the cutoff (the start of 2026-08-18 UTC). Otherwise the
verifier fails closed (VintageError, or the typed-reference verdict `vintage-unestablished`); an
identifier is never relabelled to another algorithm or recomputed under one.

    >>> from datetime import datetime, timezone
    >>> def check(evidence, digest):          # the profile's check: a receipt, a timestamp token...
    ...     assert evidence["binds"] == digest  # (a real one verifies a signature over the digest)
    ...     return datetime(2026, 7, 24, tzinfo=timezone.utc)
    >>> v = Vintage(evidence={"binds": "ab" * 32}, callback=check)
    >>> v.establish("ab" * 32).isoformat()
    '2026-07-24T00:00:00+00:00'

Never evidence: a payload timestamp, a file time, a commit date, a transport time. The callback's
answer must be a timezone-aware datetime; a naive one, an error, or a time at or after the cutoff
fails closed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .errors import VintageError

#: The start of 2026-08-18 UTC: a jcs-n record must be shown to predate it.
JCS_N_CUTOFF = datetime(2026, 8, 18, tzinfo=timezone.utc)

#: callback(evidence, recomputed_digest_hex) -> the authenticated time the evidence binds that digest to
VintageCallback = Callable[[Any, str], datetime]


@dataclass(frozen=True)
class Vintage:
    """The consuming profile's evidence for a jcs-n record, and the callback that checks it."""

    evidence: Any = None
    callback: VintageCallback | None = None
    #: set only by `pre_withdrawal_draft()`: judge as a draft before the withdrawal did
    _draft_rule: bool = False

    @classmethod
    def pre_withdrawal_draft(cls) -> Vintage:
        """Judge under a draft before jcs-n's withdrawal (-01 and earlier), which had no vintage
        rule: for running those drafts' conformance suites, never for verifying today's records."""
        return cls(_draft_rule=True)

    def establish(self, digest: str) -> datetime | None:
        """The authenticated pre-cutoff time for `digest` (None under `pre_withdrawal_draft`).

        Raises VintageError (reason: no-evidence, no-callback, callback-error, not-a-datetime,
        naive-time, at-or-after-cutoff) otherwise."""
        if self._draft_rule:
            return None
        if self.evidence is None:
            raise VintageError("jcs-n is withdrawn: no vintage evidence, the record fails closed", "no-evidence")
        if self.callback is None:
            raise VintageError("jcs-n is withdrawn: no callback to check the vintage evidence", "no-callback")
        try:
            when = self.callback(self.evidence, digest)
        except Exception as exc:  # the profile's check failed: that is a failed verification
            raise VintageError(
                f"the vintage evidence did not verify: {type(exc).__name__}: {exc}", "callback-error"
            ) from exc
        if not isinstance(when, datetime):
            raise VintageError(f"the vintage callback returned {type(when).__name__}, not a datetime", "not-a-datetime")
        if when.tzinfo is None or when.utcoffset() is None:
            raise VintageError("the vintage callback returned a naive time (no timezone)", "naive-time")
        if when >= JCS_N_CUTOFF:
            raise VintageError(
                f"the evidence dates the record {when.isoformat()}, not before the withdrawal "
                f"({JCS_N_CUTOFF.isoformat()})",
                "at-or-after-cutoff",
            )
        return when


def require(vintage: Vintage | None, digest: str) -> datetime | None:
    """`vintage.establish(digest)`, failing closed when no Vintage was given."""
    if vintage is None:
        raise VintageError(
            "jcs-n is withdrawn (2026-08-18): a jcs-n record verifies only with authenticated vintage "
            "evidence and a callback (fastjcs.cpb.vintage.Vintage); none was given",
            "no-evidence",
        )
    return vintage.establish(digest)
