"""The exceptions of Canonical Payload Binding, grafted onto fastjcs's hierarchy.

    FastJCSError(ValueError)
    ├── CanonicalizationError
    │   └── WireRuleError (+ CPBError)      a jcs-n wire rule refused the input; rule, code, path
    │       ├── NonIntegerNumberError       a number that is not an integer token (12.50, 1e2, -0, a float)
    │       │                               (also fastjcs.NonIntegerNumberError)
    │       ├── UnsafeIntegerError          an integer outside +/-(2^53-1) (also an IntegerDomainError)
    │       └── DuplicateNameError          two member names equal after NFC normalization
    │           └── DuplicateNameTextError  ... found in JSON text (also a DuplicateKeyError)
    ├── UnsupportedAlgorithmError
    │   ├── UnknownCanonicalizationError (+ CPBError)    a name the registry's canonicalizations lack
    │   └── WithdrawnCanonicalizationError (+ CPBError)  cde-n: registered once, withdrawn, fails closed
    └── CPBError                            every CPB failure
        ├── CanonicalizationUsageError      a canonicalization used outside its definition
        ├── IdentifierMismatchError         a carried derived identifier differs from the recomputed one
        ├── SnapshotFormatError             a registry snapshot that does not follow the format
        ├── StreamError                     a stream-reassemble source that cannot be reassembled
        │   └── StreamIncompleteError       ... because its terminal `done: true` chunk is missing
        └── MemberMappingError              a member mapping that cannot be applied
            └── MemberMappingUndeclaredError  ... because the digest context declares none

Wire-rule errors carry `rule` ("R" for the token rules), `code` (a stable kebab-case name),
`path` (a JSON path such as `$["payload"]["amount"]`) and, for text input, the byte `offset` with
`lineno` and `colno` as every fastjcs text error does; for Python values `offset` is None.
"""

from __future__ import annotations

from ..core.errors import (
    CanonicalizationError,
    DuplicateKeyError,
    FastJCSError,
    IntegerDomainError,
    UnsupportedAlgorithmError,
)
from ..core.errors import (
    NonIntegerNumberError as _CoreNonIntegerNumberError,
)


class CPBError(FastJCSError):
    """Base class of every Canonical Payload Binding failure."""


class WireRuleError(CPBError, CanonicalizationError):
    """The input breaks a jcs-n wire rule; nothing was digested.

    `rule` is "R", `code` names the rule precisely, `path` is the JSON path of the offending value
    or member, `offset` the byte offset of its token in text input (None for Python values).
    """

    rule = "R"
    code = "wire-rule"

    def __init__(self, msg: str, path: str, data: bytes | None = None, offset: int | None = None) -> None:
        self.path = path
        CanonicalizationError.__init__(self, f"jcs-n rule {self.rule} ({self.code}) at {path}: {msg}", data, offset)


class NonIntegerNumberError(WireRuleError, _CoreNonIntegerNumberError):
    """A number that jcs-n refuses: a token outside `0|-?[1-9][0-9]*`, or a Python float.

    Also the core's `fastjcs.NonIntegerNumberError` (integer-only JCS), so either `except` clause
    catches it; jcs-n's own grammar adds `-0` to what integer-only JCS refuses."""

    code = "non-integer-number"


class UnsafeIntegerError(WireRuleError, IntegerDomainError):
    """An integer outside +/-(2^53-1), which a double cannot hold exactly."""

    code = "unsafe-integer"


class DuplicateNameError(WireRuleError):
    """Two member names of one object are equal after NFC normalization. `key` is the later one."""

    code = "duplicate-name"

    def __init__(
        self, msg: str, path: str, data: bytes | None = None, offset: int | None = None, key: str | None = None
    ) -> None:
        self.key = key
        WireRuleError.__init__(self, msg, path, data, offset)


class DuplicateNameTextError(DuplicateNameError, DuplicateKeyError):
    """A duplicate member name in JSON text: also fastjcs's DuplicateKeyError, with its offset."""


class UnknownCanonicalizationError(CPBError, UnsupportedAlgorithmError):
    """A canonicalization name that the registry does not hold (names are exact)."""


class WithdrawnCanonicalizationError(CPBError, UnsupportedAlgorithmError):
    """A withdrawn canonicalization (cde-n): any use fails closed."""


class CanonicalizationUsageError(CPBError):
    """A canonicalization used outside its definition (as-transmitted with an exclusion set or a value)."""


class IdentifierMismatchError(CPBError):
    """A carried derived identifier is not the recomputed one: a defect in the record.

    `carried` and `recomputed` hold both values; the comparison is exact (no trimming, no case
    folding).
    """

    def __init__(self, carried: object, recomputed: str) -> None:
        self.carried = carried
        self.recomputed = recomputed
        super().__init__(f"carried identifier {carried!r} does not match the recomputed {recomputed}")


class SnapshotFormatError(CPBError):
    """A registry snapshot that does not follow the upstream format. (Not the execution registry's
    `fastjcs.eab.RegistryFormatError`, a file that is not an execution registry.)"""


#: The older name of SnapshotFormatError (the same class): it shared its name with
#: `fastjcs.eab.RegistryFormatError`, an unrelated error.
RegistryFormatError = SnapshotFormatError


class ContextResolutionError(CPBError):
    """An artifact type that does not resolve to exactly one digest context (`Registry.context`):
    not registered or not live, no context for the selectors, or several. `reason` names the
    typed-reference verdict it stands for (unknown-id, withdrawn, unknown-purpose, ambiguous-context...)."""

    def __init__(self, msg: str, reason: str) -> None:
        self.reason = reason
        super().__init__(msg)


class VintageError(CPBError):
    """A withdrawn canonicalization's record (jcs-n) without authenticated evidence that it predates the
    withdrawal: the verifier fails closed. `reason` says which condition failed."""

    def __init__(self, msg: str, reason: str) -> None:
        self.reason = reason
        super().__init__(msg)


class WithdrawnCanonicalizationWarning(UserWarning):
    """A new digest or declaration under a withdrawn canonicalization (jcs-n), asked for by name."""


class StreamError(CPBError):
    """A stream-reassemble source that is not a list of `{"chunk": str, "done"?: true}` items."""


class StreamIncompleteError(StreamError):
    """A stream-reassemble source that does not end with its terminal `done: true` chunk."""


class MemberMappingError(CPBError):
    """A member mapping that cannot be applied (a pointer the source lacks, two members on one place)."""


class MemberMappingUndeclaredError(MemberMappingError):
    """An assembled preimage whose digest context declares no member mapping: the bytes are not fixed."""


# Older names, kept working: each is the same class as its new name (docs/cpb.md, "Older names").
# In fastjcs an "algorithm" is a hash (sha256, sha384); what cpb names jcs, jcs-n, as-transmitted
# and cde-n is a canonicalization (upstream's "canonicalization_algorithms", "canonicalization_id").
UnknownAlgorithmError = UnknownCanonicalizationError
WithdrawnAlgorithmError = WithdrawnCanonicalizationError
AlgorithmUsageError = CanonicalizationUsageError
WithdrawnAlgorithmWarning = WithdrawnCanonicalizationWarning

__all__ = [
    "CPBError",
    "WireRuleError",
    "NonIntegerNumberError",
    "UnsafeIntegerError",
    "DuplicateNameError",
    "DuplicateNameTextError",
    "UnknownCanonicalizationError",
    "WithdrawnCanonicalizationError",
    "CanonicalizationUsageError",
    "IdentifierMismatchError",
    "SnapshotFormatError",
    "RegistryFormatError",
    "ContextResolutionError",
    "VintageError",
    "WithdrawnCanonicalizationWarning",
    "StreamError",
    "StreamIncompleteError",
    "MemberMappingError",
    "MemberMappingUndeclaredError",
    # older names (aliases)
    "UnknownAlgorithmError",
    "WithdrawnAlgorithmError",
    "AlgorithmUsageError",
    "WithdrawnAlgorithmWarning",
]
