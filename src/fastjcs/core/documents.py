"""Reading the JSON documents fastjcs verifies: registry snapshots, vector files, capsules, manifests.

A verdict must not depend on which parser reads the file. `json.loads` keeps the last of two
members with one name, takes lone surrogates and recurses without bound, so a document that
fastjcs's own strict parser refuses (`fastjcs canon` says DuplicateKeyError) could still be
verified through it. `read_json` first holds the text to the strict parser, the same one
`canonicalize` runs, with a depth bound well inside Python's recursion limit, and only then builds
the Python values (json.loads: ints stay ints), so what is verified is what `canonicalize` reads.
"""

from __future__ import annotations

import json
from typing import Any

from . import api

#: How deep a verified document may nest: far beyond any snapshot, vector file or capsule, and
#: well inside Python's recursion limit, which `json.loads` would otherwise meet (RecursionError).
DOCUMENT_MAX_DEPTH = 256


def read_json(data: bytes | bytearray | memoryview | str, *, max_depth: int = DOCUMENT_MAX_DEPTH) -> Any:
    """The Python value of a JSON text that the strict parser accepts.

    Raises what `fastjcs.canonicalize` raises for the text (a CanonicalizationError: InvalidJSONError,
    DuplicateKeyError or DepthLimitError, with the line, column and byte of the fault), so a caller
    turns it into its own error naming the document.

    >>> read_json(b'{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> read_json(b'{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    fastjcs.core.errors.DuplicateKeyError: duplicate member name 'a': line 1 column 10 (byte 9)
    """
    api.canonicalize(data, max_depth=max_depth)
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    return json.loads(data)


__all__ = ["DOCUMENT_MAX_DEPTH", "read_json"]
