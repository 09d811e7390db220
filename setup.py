# cffi has no pyproject-only route: setuptools learns about the extensions here.
#
# Two extensions link the same C core (csrc/*.c):
#  - fastjcs._native_ext, through cffi (build_ffi.py): every backend call on PyPy, and on CPython the
#    large texts, batches, JSON Lines and Arrow, where it releases the GIL so that threads run in
#    parallel;
#  - fastjcs._direct, a plain CPython extension (csrc/cpython/: direct.c, the module; walker.c,
#    which reads Python values; api.c, the public functions' fast path) that holds the GIL for the
#    whole call: small work on CPython (docs/decisions.md, "The direct entry"). Built on CPython only.
# Both are built against the limited API, so one wheel serves every CPython: the wheel is tagged
# cp39-abi3. _direct needs the limited API of 3.10 (PyType_GetSlot on built-in types,
# PyUnicode_AsUTF8AndSize): CPython 3.9 loads only the cffi one (fastjcs.core.native_backend).
# On a free-threaded CPython (Py_GIL_DISABLED) only the cffi one, and not against the limited API
# (build_ffi.build_plan; docs/decisions.md, "Free-threaded CPython").
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_ffi  # noqa: E402  (the flags and sources of the C core, shared with the cffi build)

plan = build_ffi.build_plan(platform.python_implementation(), build_ffi.free_threaded())
ext_modules = []
if plan.direct:
    ext_modules.append(
        Extension(
            "fastjcs._direct",
            # the core without lender.c: the lender serves cffi's callers (the direct entry keeps
            # its state per interpreter); and without number_format.c, which cpython/walker.c
            # includes, so that its item and member loops inline the double's writer
            sources=[
                *(s for s in build_ffi._sources if not s.endswith(("lender.c", "number_format.c"))),
                *(
                    f"csrc/cpython/{name}.c"
                    for name in (
                        "direct",
                        "walker",
                        "api",
                        "types",
                        "dataclass",
                        "decimal_layout",
                        "long_layout",
                        "str_layout",
                        "list_layout",
                        "dict_layout",
                        "type_version",
                        "hooks",
                        "bytes_out",
                    )
                ),
            ],
            include_dirs=["csrc"],
            depends=[
                *build_ffi._depends,
                "csrc/number_format.c",
                *(
                    f"csrc/cpython/{name}.h"
                    for name in (
                        "walker",
                        "direct",
                        "long_layout",
                        "str_layout",
                        "list_layout",
                        "dict_layout",
                        "type_version",
                        "fast_paths",
                        "open_set",
                    )
                ),
            ],
            define_macros=[("Py_LIMITED_API", "0x030A0000")],
            py_limited_api=True,
            extra_compile_args=build_ffi._cflags + build_ffi._flag_list("FASTJCS_CFLAGS"),
            extra_link_args=build_ffi._flag_list("FASTJCS_LDFLAGS"),
            optional=not build_ffi._switch("FASTJCS_REQUIRE_NATIVE"),
        )
    )

setup(
    cffi_modules=["build_ffi.py:ffibuilder"],
    ext_modules=ext_modules,
    options={"bdist_wheel": {"py_limited_api": "cp39"}} if plan.abi3 else {},
)
