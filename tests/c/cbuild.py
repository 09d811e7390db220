"""Test builds of the C core: the internal functions tests call, which the extension does not export.

`load(module, cdef)` compiles csrc/ into a cffi module of that name whose cdef is the public one
plus `cdef` (declarations of fjcs__ functions), once per content of the sources: the build is kept
in build/test-ext/<hash> and reused until a source, a header, build_ffi.py or `cdef` changes.
`load_or_skip(module, cdef)` is what a test module calls at import: `load`, where the extension
itself is built.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load(module: str, cdef: str) -> ModuleType:
    """The compiled test module (its `ffi` and `lib`); raises if the build fails."""
    digest = hashlib.sha256(cdef.encode())
    for path in sorted((ROOT / "csrc").glob("*.[ch]")) + [ROOT / "build_ffi.py"]:
        digest.update(path.name.encode() + path.read_bytes())
    where = ROOT / "build" / "test-ext" / digest.hexdigest()[:16]
    # this interpreter's build only: PyPy's, made from the same sources in the same directory,
    # is not CPython's (it has no PyInit_ function)
    built = [where / (module + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    built = [path for path in built if path.exists()]
    if not built:
        sys.path.insert(0, str(ROOT))
        try:
            import build_ffi
        finally:
            sys.path.remove(str(ROOT))
        where.mkdir(parents=True, exist_ok=True)
        built = [Path(build_ffi.test_ffibuilder(module, cdef).compile(tmpdir=str(where)))]
    spec = importlib.util.spec_from_file_location(module, built[0])
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def load_or_skip(module: str, cdef: str) -> ModuleType:
    """`load`, where the extension itself is built (a compiler is there): skips the calling test
    module where it is not, and raises instead under FASTJCS_REQUIRE_NATIVE=1 (CI), where a missing
    build is a failure."""
    import pytest

    try:
        import fastjcs._native_ext  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the build
        if os.environ.get("FASTJCS_REQUIRE_NATIVE", "") not in ("", "0"):
            raise
        pytest.skip(f"C extension not built: {exc}", allow_module_level=True)
    return load(module, cdef)
