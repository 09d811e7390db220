"""Reading a document fastjcs verifies (a registry snapshot, a vector file, a capsule, a
manifest) with fastjcs's own strict parser, so that its verdict never depends on which parser
reads the file: a repeated member name, a lone surrogate, a number no double holds, a depth past
the limit are refused (CanonicalizationError, with the position), as ``fastjcs canon`` refuses
them, where ``json.loads`` would keep the last duplicate (another reader, the first).
"""

from __future__ import annotations

import json
from typing import Any

from .api import DEFAULT_MAX_DEPTH, canonicalize


def load(data: bytes | str, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The Python value of the JSON text `data`, once fastjcs's strict parser accepts it (the
    values are then what any parser reads: there is no duplicate to choose between)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    canonicalize(raw, max_depth=max_depth)
    return json.loads(raw)
