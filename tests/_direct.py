"""The direct entry (fastjcs._direct) for the test modules that test it.

Seven modules opened with the same lines: import the native backend, skip the whole module where
the C core is not built, skip it again where the direct entry is not in use (PyPy, CPython 3.9,
FASTJCS_DIRECT=0). Where a missing build or direct entry is a failure (FASTJCS_REQUIRE_NATIVE=1 on
CPython >= 3.10, as in CI), tests/conftest.py stops the run at import, before any module skips.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest


def native_or_skip() -> ModuleType:
    """The native backend; skips the calling module where the C core is not built."""
    try:
        from fastjcs.core import native_backend
    except ImportError as exc:  # pragma: no cover - depends on the build
        pytest.skip(f"the C core is not built: {exc}", allow_module_level=True)
    return native_backend


def direct_or_skip() -> tuple[ModuleType, Any]:
    """(the native backend, its direct entry); skips the calling module where either is missing."""
    native = native_or_skip()
    if native._direct is None:  # pragma: no cover - PyPy, CPython 3.9, FASTJCS_DIRECT=0
        from fastjcs.core import _direct_loader

        pytest.skip(f"the direct entry is not in use: {_direct_loader.why}", allow_module_level=True)
    return native, native._direct


def reading_fixture(direct: Any, hook: str) -> Any:
    """A fixture `reading` that runs each test with the direct entry's reading `hook` (a layout
    switch such as "dict_layout") on and off, or only off where its probe found no layout, and
    puts the switch back after."""
    switch = getattr(direct, hook)

    @pytest.fixture(params=[True, False] if switch() else [False], ids=lambda on: "obj" if on else "api")
    def reading(request: Any) -> Any:
        previous = switch(request.param)
        yield request.param
        switch(previous)

    return reading
