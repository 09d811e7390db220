"""Shared fixtures: every core test runs on both backends.

The `backend` fixture yields a backend module (`fastjcs._python` or `fastjcs._native`), and for the
duration of the test also installs it behind the public API (`fastjcs._core._impl`), so tests of
the layers above (digests, bindings, CPB) run on it too.

The native parameter is skipped, with the reason, only where the C extension is not built; with
FASTJCS_REQUIRE_NATIVE=1 (CI) a missing extension is an error instead.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from fastjcs import _core, _python

REQUIRE_NATIVE = os.environ.get("FASTJCS_REQUIRE_NATIVE", "") not in ("", "0")

try:
    from fastjcs import _native
except ImportError as exc:  # pragma: no cover - depends on the build
    _native = None
    _NATIVE_MISSING = f"C extension not built: {exc}"
    if REQUIRE_NATIVE:
        raise
else:
    _NATIVE_MISSING = ""

BACKENDS = {"python": _python, "native": _native}

# Hypothesis profiles: "ci" runs at least 2,000 examples per property. The backend fixtures only
# select a module, identical for every example, so function scope is harmless under @given.
_SUPPRESS = [HealthCheck.function_scoped_fixture]
settings.register_profile("default", max_examples=200, deadline=None, suppress_health_check=_SUPPRESS)
settings.register_profile("ci", max_examples=2000, deadline=None,
                          suppress_health_check=_SUPPRESS + [HealthCheck.too_slow])
settings.register_profile("quick", max_examples=30, deadline=None, suppress_health_check=_SUPPRESS)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_addoption(parser):
    env = os.environ.get("FASTJCS_ES6_LINES")
    parser.addoption("--es6-lines", type=int, default=int(env) if env else None,
                     help="lines of the ES6 number corpus to check (default 100000, or "
                          "$FASTJCS_ES6_LINES; CI 1000000)")


@pytest.fixture(params=["python", "native"])
def backend(request, monkeypatch):
    module = BACKENDS[request.param]
    if module is None:
        pytest.skip(_NATIVE_MISSING)
    monkeypatch.setattr(_core, "_impl", module)
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
