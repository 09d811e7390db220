"""fastjcs: RFC 8785 JSON Canonicalization (JCS), fast.

Quick start:

    >>> import fastjcs
    >>> fastjcs.dumps({"b": 1.0, "a": "\u20ac"})            # Python values in
    b'{"a":"\\xe2\\x82\\xac","b":1}'
    >>> fastjcs.canonicalize(b'{"b": 1E2, "a": 1e-7}')      # JSON text in
    b'{"a":1e-7,"b":100}'

`dumps`/`dump` take Python values and `canonicalize` takes JSON text; both return the canonical
UTF-8 bytes. The work is done by a C core when it is built (`fastjcs.backend() == "native"`), else
by a pure-Python backend with the same answers and the same exceptions; `FASTJCS_BACKEND=python`
or `=native` forces the choice; a fallback nobody asked for is announced once by a
`FallbackWarning`. Every error is a subclass of `FastJCSError` (a ValueError); see
`fastjcs.core.errors` for the hierarchy.

`import fastjcs` loads the core (`fastjcs.core`) and nothing else. The other layers are packages
of their own: `fastjcs.eab` (Execution Action Binding v1 and the execution registry),
`fastjcs.cpb` (Canonical Payload Binding), and the command line, `fastjcs.cli`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The names each module exports are listed once, in that module's __all__.
from .core import api as _api
from .core import digests as _digests
from .core import errors as _errors
from .core import files as _files
from .core.api import *  # noqa: F401,F403 - dumps, dump, canonicalize, canonicalize_to, ...
from .core.backends import FallbackWarning, backend
from .core.digests import *  # noqa: F401,F403 - digest, digest_many, parse_digest, ...
from .core.errors import *  # noqa: F401,F403 - FastJCSError and its subclasses
from .core.files import *  # noqa: F401,F403 - digest_file, canonicalize_file

if TYPE_CHECKING:  # loaded at first use (__getattr__ below)
    from .core.stdlib_types import StdlibTypes, stdlib_types

#: The version of fastjcs: the one place it is written (pyproject.toml reads it from here).
__version__ = "0.1.0"

__all__ = [
    "__version__",
    "backend",
    "StdlibTypes",
    "stdlib_types",
    "FallbackWarning",
    *_api.__all__,
    *_errors.__all__,
    *_digests.__all__,
    *_files.__all__,
]


def __getattr__(name: str) -> Any:
    # StdlibTypes and stdlib_types (fastjcs.core.stdlib_types) are loaded at their first use: they
    # import dataclasses, datetime, decimal, enum and uuid (about 15 ms), which `import fastjcs`
    # need not pay for.
    if name in ("StdlibTypes", "stdlib_types"):
        from .core import stdlib_types as _stdlib_types

        return getattr(_stdlib_types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
