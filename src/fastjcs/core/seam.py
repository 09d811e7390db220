"""The seam between the API and the two backends: which backend runs.

The backend is chosen once, at import (msgpack's MSGPACK_PUREPYTHON pattern):

    FASTJCS_BACKEND=python   the pure-Python backend, even where the C core is built;
    FASTJCS_BACKEND=native   the C core; ImportError if it is not built;
    unset or empty           the C core when it is built, else pure Python.

Only an ImportError of the extension module leads to the pure-Python backend: a C core that is
present but broken fails loudly. Every layer calls the functions of `fastjcs.core.api` (which
alone reads `_impl`, one attribute lookup on its hot paths) or `impl()`, never a backend module
directly, so a test that swaps `_impl` exercises the whole stack on one backend.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import python_backend

if TYPE_CHECKING:  # pragma: no cover
    from .backend import Backend


def _load(choice: str) -> "Backend":
    if choice == "python":
        return python_backend
    if choice == "native":
        from . import native_backend  # ImportError propagates: the caller asked for C

        return native_backend
    if choice == "":
        try:
            from . import native_backend
        except ImportError:
            return python_backend
        return native_backend
    raise ImportError(f"FASTJCS_BACKEND must be 'native', 'python' or unset, not {choice!r}")


_impl: "Backend" = _load(os.environ.get("FASTJCS_BACKEND", "").strip().lower())


def impl() -> "Backend":
    """The backend module in use (`python_backend` or `native_backend`)."""
    return _impl


def backend() -> str:
    """"native" when the C core is in use, "python" otherwise (read now, never stale).

    >>> backend() in ("native", "python")
    True
    """
    return _impl.NAME
