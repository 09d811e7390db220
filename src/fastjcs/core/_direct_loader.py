"""Loading the direct entry, fastjcs._direct (csrc/cpython/direct.c), where it serves.

The direct entry is a plain CPython extension built against the limited API of 3.10: its calls
hold the GIL throughout, which is what a small call needs in a threaded program (cffi's calls
release it and wait for it after). It is used on CPython 3.10 and later when it is built;
elsewhere (PyPy, CPython 3.9, a free-threaded CPython, for which setup.py does not build it, a
build without it) `direct` is None and the native backend takes
the cffi route for everything. FASTJCS_DIRECT=0 turns it off (the benchmarks and the tests of the
cffi route use it); `why` says which holds.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import sysconfig
from types import ModuleType


def _load() -> tuple[ModuleType | None, str]:
    if platform.python_implementation() != "CPython":
        return None, f"not on CPython ({platform.python_implementation()}): cffi for every call"
    if sys.version_info < (3, 10):
        return None, "CPython 3.9: the direct entry needs 3.10's limited API; cffi for every call"
    if os.environ.get("FASTJCS_DIRECT", "").strip() == "0":
        return None, "FASTJCS_DIRECT=0: cffi for every call"
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return (
            None,
            "free-threaded CPython (Py_GIL_DISABLED): the direct entry is not built for it; cffi for every call",
        )
    try:
        direct = importlib.import_module("fastjcs._direct")
    except ImportError as exc:
        return None, f"the direct entry is not built ({exc}): cffi for every call"
    return direct, "the direct entry for small work (the GIL held), cffi for large texts and bulk"


direct, why = _load()
