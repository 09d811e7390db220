"""The cffi builder for fastjcs's C core (out-of-line API mode).

`setup.py` names `ffibuilder` below in `cffi_modules`; building the project compiles the sources in
csrc/ into the extension module `fastjcs._native_ext`, which only `fastjcs.core.native_backend` imports.

The cdef is not written twice: it is the block of csrc/fastjcs.h between the `cffi:begin` and
`cffi:end` markers, with every `#define` value replaced by `...` so that the C compiler supplies it.
The same header is #included by the generated C, so the compiler checks the declarations cffi sees
against the definitions it compiles.

Environment:
    FASTJCS_REQUIRE_NATIVE=1   a failed C build fails the install (CI sets it). Unset, the
                               extension is optional: without a compiler, fastjcs installs and
                               runs on its pure-Python backend.
    FASTJCS_WERROR=1           compiler warnings are errors (CI sets it).
    FASTJCS_CFLAGS             extra compiler flags, split on whitespace (the sanitizer build).
    FASTJCS_LDFLAGS            extra linker flags, split on whitespace.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

from cffi import FFI

HERE = Path(__file__).resolve().parent
CSRC = HERE / "csrc"
HEADER = CSRC / "fastjcs.h"


def _cdef_from_header(text: str) -> str:
    """Extract the cffi declarations from the public header."""
    match = re.search(r"/\* -+ cffi:begin -+ \*/(.*?)/\* -+ cffi:end -+ \*/", text, re.S)
    if match is None:
        raise RuntimeError(f"{HEADER}: no cffi:begin/cffi:end block")
    block = match.group(1)
    # Constants come from the compiler, not from a copy of their values.
    return re.sub(r"^(#define\s+\w+)\s+.*$", r"\1 ...", block, flags=re.M)


def _flag_list(name: str) -> list[str]:
    return os.environ.get(name, "").split()


def _switch(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def is_gcc(command: list[str]) -> bool:
    """Whether the C compiler `command` (CC, as setuptools runs it: "gcc -pthread", "ccache gcc")
    is GCC: its --version names the Free Software Foundation, as GCC's does and clang's does not."""
    try:
        out = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Free Software Foundation" in out and "clang" not in out.lower()


def _gcc_flags() -> list[str]:
    """-falign-jumps=32 where the compiler is GCC (clang refuses the flag): a jump's target starts
    a 32-byte block. The walker's item loop of 10,000 ints took 32 or 42 us a call depending on
    where an unrelated change moved it (the same instructions; its loop head, reached by jumps,
    16 or 18 bytes into its block); with the flag, 30-32 us either way (docs/performance.md)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return ["-falign-jumps=32"] if is_gcc(shlex.split(cc)) else []


class Plan(NamedTuple):
    """What setup.py builds on an interpreter."""

    direct: bool  #: the direct entry, fastjcs._direct (csrc/cpython/direct.c)
    abi3: bool  #: against the limited API, for the one cp39-abi3 wheel
    why: str


def free_threaded() -> bool:
    """Whether this interpreter is a free-threaded build (PEP 703; sysconfig's Py_GIL_DISABLED)."""
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def build_plan(implementation: str, gil_disabled: bool) -> Plan:
    """The extensions for an interpreter: `implementation` as platform.python_implementation()
    names it, `gil_disabled` as `free_threaded()` answers (docs/decisions.md, "Free-threaded
    CPython"). On a free-threaded CPython the direct entry is not built (it walks dicts and lists
    without the per-object critical sections that build needs, against a limited API 3.13t does
    not offer) and nothing is built against the limited API: cffi's route alone, which cffi 2 builds
    for it."""
    if implementation != "CPython":
        return Plan(False, False, f"{implementation}: the cffi extension only")
    if gil_disabled:
        return Plan(False, False, "free-threaded CPython (Py_GIL_DISABLED): the cffi extension only, no limited API")
    return Plan(True, True, "CPython: the cffi extension and the direct entry, against the limited API")


_sources = sorted(str(p.relative_to(HERE)) for p in CSRC.glob("*.c"))
_depends = sorted(str(p.relative_to(HERE)) for p in CSRC.glob("*.h"))

if sys.platform == "win32":
    _cflags: list[str] = []
else:
    # No -pthread: the core keeps no per-thread state (the lender is the caller's), so the
    # extensions link no symbol of glibc newer than 2.17 (manylinux2014; tests/c/test_c_api.py).
    _cflags = [
        "-std=c11",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Wmissing-prototypes",
        "-Wshadow",
        "-fvisibility=hidden",
        *_gcc_flags(),
    ]
    if _switch("FASTJCS_WERROR"):
        _cflags.append("-Werror")

# The glue cffi generates defines PyInit_<module> with no prior prototype: -Wmissing-prototypes is
# for the core's own files (compiled on their own), not for the glue.
_GLUE = """#include "fastjcs.h"
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#endif
"""

ffibuilder = FFI()
ffibuilder.cdef(_cdef_from_header(HEADER.read_text(encoding="utf-8")))
ffibuilder.set_source(
    "fastjcs._native_ext",
    _GLUE,
    sources=_sources,
    include_dirs=[str(CSRC.relative_to(HERE))],
    depends=_depends,
    extra_compile_args=_cflags + _flag_list("FASTJCS_CFLAGS"),
    extra_link_args=_flag_list("FASTJCS_LDFLAGS"),
    optional=not _switch("FASTJCS_REQUIRE_NATIVE"),
)


def test_ffibuilder(module: str, cdef: str) -> FFI:
    """A builder for a test build of the core: the public cdef plus `cdef`, which declares the
    internal (fjcs__) functions a test calls. Nothing is exported for tests alone; tests reach the
    internals through builds of their own, from the same sources with the same flags."""
    builder = FFI()
    builder.cdef(_cdef_from_header(HEADER.read_text(encoding="utf-8")) + cdef)
    builder.set_source(
        module,
        _GLUE + '#include "fjcs_internal.h"\n',
        sources=[str(HERE / s) for s in _sources],
        include_dirs=[str(CSRC)],
        depends=[str(HERE / d) for d in _depends],
        extra_compile_args=_cflags,
    )
    return builder


if __name__ == "__main__":
    # Run directly, it builds into build/ffi/ (git ignores it), not into a fastjcs/ folder beside
    # this file; the compile runs in that folder, so it takes the builder that names the sources by
    # absolute path. (`pip install -e .` is what builds the extension into the package.)
    test_ffibuilder("fastjcs._native_ext", "").compile(tmpdir=str(HERE / "build" / "ffi"), verbose=True)
