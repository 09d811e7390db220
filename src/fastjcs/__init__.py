"""fastjcs: RFC 8785 JSON Canonicalization (JCS), fast.

Quick start::

    >>> import fastjcs
    >>> fastjcs.dumps({"b": 1.0, "a": "\u20ac"})            # Python values in
    b'{"a":"\\xe2\\x82\\xac","b":1}'
    >>> fastjcs.canonicalize(b'{"b": 1E2, "a": 1e-7}')      # JSON text in
    b'{"a":1e-7,"b":100}'

`dumps`/`dump` take Python values and `canonicalize` takes JSON text; both return the canonical
UTF-8 bytes. The work is done by a C core when it is built (`fastjcs.backend == "native"`), else by
a pure-Python backend with the same answers and the same exceptions; `FASTJCS_BACKEND=python` or
`=native` forces the choice. Every error is a subclass of `FastJCSError` (a ValueError); see
`fastjcs._errors` for the hierarchy.
"""

from __future__ import annotations

# The names each module exports are listed once, in that module's __all__.
from . import _core, _errors
from . import digest as _digest
from ._core import *  # noqa: F401,F403 - dumps, dump, canonicalize, canonicalize_to, ...
from ._core import _impl as _backend_module
from ._errors import *  # noqa: F401,F403 - FastJCSError and its subclasses
from .digest import *  # noqa: F401,F403 - digest, digest_many, parse_digest, ... (shadows the module)
from . import eab  # fastjcs.eab; fastjcs.registry is imported on demand (sqlite3 costs ~10 ms)

__version__ = "0.1.0"

#: "native" when the C core is in use, "python" otherwise (chosen once, at import).
backend: str = _backend_module.NAME

__all__ = ["__version__", "backend", "eab", *_core.__all__, *_errors.__all__, *_digest.__all__]
