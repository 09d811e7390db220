"""The backends: which one runs (between the API and the two backend modules).

The backend is chosen once, at import (msgpack's MSGPACK_PUREPYTHON pattern):

    FASTJCS_BACKEND=python   the pure-Python backend, even where the C core is built;
    FASTJCS_BACKEND=native   the C core; ImportError if it is not built;
    unset or empty           the C core when it is built, else pure Python, announced once by a
                             FallbackWarning naming why the C core could not be loaded.

Only an ImportError of the extension module leads to the pure-Python backend: a C core that is
present but broken fails loudly. `why()` says why the backend in use was chosen (`fastjcs
--version --verbose` prints it). Every layer calls the functions of `fastjcs.core.api` (which
alone reads `_impl`, one attribute lookup on its hot paths) or those of this module (`impl()`,
`load()`, `arrow_columns()`, `native_report()`), never a backend module directly
(tests/test_layers.py checks it), so a test that swaps the backend with `use()`, the one way to
swap it, exercises the whole stack on one backend.
"""

from __future__ import annotations

import os
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from . import python_backend

if TYPE_CHECKING:  # pragma: no cover
    from .protocol import Backend


class FallbackWarning(RuntimeWarning):
    """The C core could not be loaded and nothing asked for a backend: fastjcs runs on its
    pure-Python backend (the same answers, 10 to 40 times slower). Set FASTJCS_BACKEND=python to
    choose it without the warning, or install a wheel (or a compiler) to get the C core."""


def _load(choice: str) -> tuple[Backend, str]:
    """The backend for a FASTJCS_BACKEND value, and why it is the one."""
    if choice == "python":
        return python_backend, "the pure-Python backend, as FASTJCS_BACKEND=python asks"
    if choice == "native":
        from . import native_backend  # ImportError propagates: the caller asked for C

        return native_backend, "the C core, as FASTJCS_BACKEND=native asks"
    if choice == "":
        try:
            from . import native_backend
        except ImportError as exc:
            why = f"the C core is not available ({type(exc).__name__}: {exc})"
            _fallback_warning(
                f"{why}; running on the pure-Python backend, 10-40x slower "
                "(FASTJCS_BACKEND=python chooses it without this warning)"
            )
            return python_backend, why
        return native_backend, "the C core (built and loaded)"
    raise ImportError(f"FASTJCS_BACKEND must be 'native', 'python' or unset, not {choice!r}")


def _as_command() -> bool:
    """Is this process the `fastjcs` command (its console script, or `python -m fastjcs`)? The
    backend is chosen while `fastjcs` is imported, before the command line's own code runs, so
    the command's way of reporting (one line on stderr) is decided here."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) in ("fastjcs", "fastjcs.exe", "fastjcs-script.py"):
        return True
    if argv0 != "-m":  # while -m locates the module, argv[0] is "-m"
        return False
    orig = list(getattr(sys, "orig_argv", ()))  # CPython 3.10+
    if not orig:  # 3.9 and PyPy: the process's own command line, where the system shows it
        try:
            with open("/proc/self/cmdline", "rb") as f:
                orig = [os.fsdecode(a) for a in f.read().split(b"\0")]
        except OSError:
            orig = []
    return any(a == "-m" and b == "fastjcs" for a, b in zip(orig, orig[1:]))


def _fallback_warning(message: str) -> None:
    """The FallbackWarning, once (this runs once per process), subject to the warning filters
    (`-W error` makes it an error). In a library, Python's own form with no source line to quote;
    in the `fastjcs` command, `fastjcs: warning: ...` as its other warnings read."""
    show = warnings.showwarning
    if _as_command():

        def command_form(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
            sys.stderr.write(f"fastjcs: warning: {message}\n")

        warnings.showwarning = command_form
    try:
        warnings.warn_explicit(message, FallbackWarning, "fastjcs", 0, module="fastjcs")
    finally:
        warnings.showwarning = show


def _chosen() -> tuple[Backend, str]:
    """The backend FASTJCS_BACKEND asks for. In the `fastjcs` command, one it cannot have (a bad
    value, `native` without the C core) ends the process with one line on stderr and exit 2, the
    command's usage error; everywhere else it is an ImportError of `import fastjcs`."""
    choice = os.environ.get("FASTJCS_BACKEND", "").strip().lower()
    try:
        return _load(choice)
    except ImportError as exc:
        if not _as_command():
            raise
        what = str(exc)
        if choice == "native":
            what = (
                f"FASTJCS_BACKEND=native: the C core is not available ({type(exc).__name__}: {exc}); "
                "unset FASTJCS_BACKEND for the pure-Python backend"
            )
        sys.stderr.write(f"fastjcs: {what}\n")
        raise SystemExit(2) from None


_impl, _why = _chosen()


def public_functions(python: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """The public functions (`dumps`, `dump`, `canonicalize`, `format_double`, the digests), given
    the API's Python functions by name: where the native backend is chosen and runs the direct entry (fastjcs._direct,
    CPython >= 3.10), its functions of the same signatures, which serve the calls they can and
    hand every other call to the Python function of the same name in `fastjcs.core.api` or
    `fastjcs.core.digests` (csrc/cpython/api.c); else the Python functions. Called once, at import; after it, `use`
    decides whether the C functions serve."""
    direct = _direct_entry() if _impl.NAME == "native" else None
    if direct is None:
        return dict(python)
    direct.serve_public(True)
    return {name: getattr(direct, name) for name in python}


def _direct_entry() -> ModuleType | None:
    """fastjcs._direct where the native backend is loaded with its direct entry, else None."""
    return getattr(sys.modules.get(f"{__package__}.native_backend"), "_direct", None)


def use(backend: Backend, why: str | None = None) -> Backend:
    """Run every layer on `backend` (`python_backend` or `native_backend`, as `load` gives them)
    from now on, and return the one it replaces: the one way to swap the backend in use (tests
    and benchmarks that compare the two; a program chooses with FASTJCS_BACKEND). It sets what
    `impl()` returns and tells the direct entry's public functions whether to serve calls
    themselves (native) or hand each to the API's Python function (python). `why` replaces what
    `why()` says; by default it says which backend `use` chose.

    >>> previous = use(load("python"))
    >>> backend()
    'python'
    >>> use(previous).NAME, backend() == previous.NAME
    ('python', True)
    """
    global _impl, _why
    if getattr(backend, "NAME", None) not in ("native", "python"):
        raise TypeError(f"use takes a backend module (load('native') or load('python')), not {backend!r}")
    previous = _impl
    _impl, _why = backend, why if why is not None else f"the {backend.NAME} backend, as backends.use chose"
    direct = _direct_entry()
    if direct is not None:
        direct.serve_public(backend.NAME == "native")
    return previous


def impl() -> Backend:
    """The backend module in use (`python_backend` or `native_backend`)."""
    return _impl


def load(name: str) -> Backend:
    """The backend named `name` ("native" or "python"), whichever is in use: for what compares
    the two (the benchmark). ImportError when the C core is not built."""
    if name == "python":
        return python_backend
    if name == "native":
        from . import native_backend

        return native_backend
    raise ValueError(f"no backend named {name!r}: 'native' or 'python'")


def arrow_columns() -> ModuleType | None:
    """The C path of Arrow columns (`fastjcs.core.arrow_native`) when the C core is in use, else
    None (`fastjcs.arrow` then works row by row through `impl()`)."""
    if _impl.NAME != "native":
        return None
    from . import arrow_native

    return arrow_native


def native_report(algorithm: str = "sha256") -> tuple[str, str, bool] | None:
    """For `fastjcs --version --verbose`, when the C core is in use: (the extension's file, which
    route small calls take, whether C hashes through pycryptodome's compiled one-shot of
    `algorithm`); None on the pure-Python backend."""
    if _impl.NAME != "native":
        return None
    from . import _direct_loader, native_backend

    return native_backend.extension_path(), _direct_loader.why, native_backend.has_compiled_oneshot(algorithm)


def backend() -> str:
    """ "native" when the C core is in use, "python" otherwise (read now, never stale).

    >>> backend() in ("native", "python")
    True
    """
    return _impl.NAME


def why() -> str:
    """Why the backend in use is the one: asked for by FASTJCS_BACKEND, the C core loaded, or
    the C core unavailable and the reason (the ImportError).

    >>> why().startswith("the ")
    True
    """
    return _why
