"""Raw vs hex: the leaf input a log (or any consumer) declares for a derived identifier (draft -06 §7.1,
"Leaf Construction"; "Representation").

A construction registered by CPB yields a 32-byte RAW-DIGEST and its 64-character lowercase-hex
CANONICAL-DIGEST. Which one is the leaf input is declared by the VDS or profile, never inferred
from the value's shape, and the two are not interchangeable:

    >>> d = "1009a072df7fc0bfc6fcf49ca2f194067f6c0136c871a88d4fbd66a13361c1d1"
    >>> len(leaf_input(d, "raw")), len(leaf_input(d, "hex"))
    (32, 64)
"""

from __future__ import annotations

import re

from .errors import CanonicalizationUsageError

#: The declarations: "raw" (RAW-DIGEST, bytes.fromhex(D)) or "hex" (CANONICAL-DIGEST text, D as ASCII).
LEAF_REPRESENTATIONS = ("raw", "hex")

_BARE_HEX = re.compile(r"\A[0-9a-f]{64}\Z")


def leaf_input(identifier: str, representation: str) -> bytes:
    """The leaf input for a bare-hex derived identifier under the declared `representation`.

    Raises CanonicalizationUsageError for an undeclared representation (there is no default: the
    declaration must be stated) or an identifier that is not 64 lowercase hex characters."""
    if representation not in LEAF_REPRESENTATIONS:
        raise CanonicalizationUsageError(
            f"leaf representation {representation!r} is not declared as 'raw' or 'hex'; it is never inferred"
        )
    if not isinstance(identifier, str) or _BARE_HEX.match(identifier) is None:
        raise CanonicalizationUsageError(f"{identifier!r} is not a bare 64-character lowercase hex identifier")
    return bytes.fromhex(identifier) if representation == "raw" else identifier.encode("ascii")
