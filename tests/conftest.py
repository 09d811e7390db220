"""The one conftest: shared paths, the backend fixtures, hypothesis profiles, the slow switch.

Tests are laid out like the code (core/, digests/, eab/, cpb/, conformance/, lab/, cli/, c/). This directory
is on sys.path (pytest puts a rootless conftest's directory there), so the shared helper modules
beside this file (_cli, _vectors, _growth, _strategies, shapes, es6corpus, wrong_canon) import
by name, and so do the paths below (`from conftest import REPO`).

The `backend` fixture yields a backend module (`fastjcs.core.python_backend` or
`fastjcs.core.native_backend`), and for the duration of the test also installs it as the
backend in use (`fastjcs.core.backends.use`), so tests of the layers above (digests, bindings, CPB) run on it
too, and `fastjcs.backend()` names it.

The native parameter is skipped, with the reason, only where the C extension is not built; with
FASTJCS_REQUIRE_NATIVE=1 (CI) a missing extension is an error instead.

Tests marked `slow` (big inputs, the long runs) are deselected unless `--slow` is given or
FASTJCS_SLOW=1 is set (CI sets it).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from fastjcs import conformance
from fastjcs.core import backends
from fastjcs.core import python_backend as _python

#: The checkout, and the data the tests read from it.
REPO = Path(__file__).resolve().parents[1]
VECTORS = REPO / "vectors"  # rfc8785/, text-canonical/, text-must-fail/
SUITES = conformance.SUITES  # the suites the CLI ships: cpb/, eab/
FUZZ = REPO / "fuzz"
CSRC = REPO / "csrc"
#: The upstream suites, read in place when present (tests that need them skip otherwise).
UPSTREAM = REPO.parent / "shared" / "upstream"

REQUIRE_NATIVE = os.environ.get("FASTJCS_REQUIRE_NATIVE", "") not in ("", "0")

try:
    from fastjcs.core import native_backend as _native
except ImportError as exc:  # pragma: no cover - depends on the build
    _native = None
    _NATIVE_MISSING = f"C extension not built: {exc}"
    if REQUIRE_NATIVE:
        raise
else:
    _NATIVE_MISSING = ""
    # The direct entry (fastjcs._direct) serves CPython 3.10 and later: required with the C core.
    if REQUIRE_NATIVE and _native._direct is None and platform.python_implementation() == "CPython":
        from fastjcs.core import _direct_loader

        if sys.version_info >= (3, 10) and os.environ.get("FASTJCS_DIRECT", "") != "0":
            raise ImportError(f"FASTJCS_REQUIRE_NATIVE=1 but {_direct_loader.why}")

BACKENDS = {"python": _python, "native": _native}

# Hypothesis profiles: "ci" runs at least 2,000 examples per property. The backend fixtures only
# select a module, identical for every example, so function scope is harmless under @given.
_SUPPRESS = [HealthCheck.function_scoped_fixture]
settings.register_profile("default", max_examples=200, deadline=None, suppress_health_check=_SUPPRESS)
settings.register_profile(
    "ci", max_examples=2000, deadline=None, suppress_health_check=_SUPPRESS + [HealthCheck.too_slow]
)
settings.register_profile("quick", max_examples=30, deadline=None, suppress_health_check=_SUPPRESS)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_addoption(parser):
    env = os.environ.get("FASTJCS_ES6_LINES")
    parser.addoption(
        "--es6-lines",
        type=int,
        default=int(env) if env else None,
        help="lines of the ES6 number corpus to check (default 100000, or $FASTJCS_ES6_LINES; CI 1000000)",
    )
    parser.addoption(
        "--slow",
        action="store_true",
        default=os.environ.get("FASTJCS_SLOW", "") not in ("", "0"),
        help="also run the tests marked slow (or FASTJCS_SLOW=1; CI does)",
    )


def pytest_collection_modifyitems(config, items):
    """Deselect the tests marked slow, unless --slow (or FASTJCS_SLOW=1) asks for them."""
    if config.getoption("--slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


@pytest.fixture
def swap_backend():
    """`fastjcs.core.backends.use` for one test: swap_backend(module) runs the whole stack on that
    backend; the one in use before, and why, are restored after the test."""
    saved = backends.impl(), backends.why()
    yield backends.use
    backends.use(*saved)


@pytest.fixture
def held_text():
    """held_text(n) for one test: the direct entry parses texts of up to n bytes itself (the GIL
    held) and a longer one goes through cffi (`_direct.held_text_limit`); the limit is restored
    after the test. Without the direct entry (PyPy, 3.9) every text goes through cffi already
    and held_text does nothing."""
    direct = getattr(_native, "_direct", None)
    if direct is None:
        yield lambda n: None
        return
    saved = direct.held_text_limit()
    yield direct.held_text_limit
    direct.held_text_limit(saved)


@pytest.fixture(params=["python", "native"])
def backend(request, swap_backend):
    module = BACKENDS[request.param]
    if module is None:
        pytest.skip(_NATIVE_MISSING)
    swap_backend(module)
    return module


@pytest.fixture
def native():
    """The C backend alone (for tests that compare it with the Python one)."""
    if _native is None:
        pytest.skip(_NATIVE_MISSING)
    return _native


@pytest.fixture(params=["python", "native"])
def cli_backend(request):
    """The child environment that runs the command line on one backend (FASTJCS_BACKEND)."""
    if request.param == "native" and _native is None:
        pytest.skip(_NATIVE_MISSING)
    return {"FASTJCS_BACKEND": request.param}
