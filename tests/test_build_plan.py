"""setup.py's decision of what to build (build_ffi.build_plan), given each answer of the
interpreter: a free-threaded CPython (Py_GIL_DISABLED) gets the cffi extension only, and nothing
against the limited API; and the direct entry's loader says so (`fastjcs --version --verbose`
prints its reason on the "small calls:" line)."""

from __future__ import annotations

import importlib
import sys
import sysconfig

import pytest
from conftest import REPO

if not (REPO / "build_ffi.py").exists():  # pragma: no cover - a run folder without the build script
    pytest.skip("build_ffi.py is not beside the tests", allow_module_level=True)


@pytest.fixture
def build_ffi(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    return importlib.import_module("build_ffi")


def test_the_build_plan_for_each_interpreter(build_ffi):
    assert build_ffi.build_plan("CPython", False)[:2] == (True, True)  # both, abi3: the cp39-abi3 wheel
    free = build_ffi.build_plan("CPython", True)
    assert free[:2] == (False, False) and "Py_GIL_DISABLED" in free.why
    assert build_ffi.build_plan("PyPy", False)[:2] == (False, False)


def test_free_threaded_reads_sysconfig(build_ffi, monkeypatch):
    for value, expected in ((1, True), (0, False), (None, False)):
        monkeypatch.setattr(sysconfig, "get_config_var", lambda name, v=value: v if name == "Py_GIL_DISABLED" else None)
        assert build_ffi.free_threaded() is expected
    monkeypatch.undo()
    assert build_ffi.free_threaded() is bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def test_setup_follows_the_plan():
    setup = (REPO / "setup.py").read_text("utf-8")
    assert "plan = build_ffi.build_plan(platform.python_implementation(), build_ffi.free_threaded())" in setup
    assert "if plan.direct:" in setup and "if plan.abi3 else {}" in setup


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info < (3, 10), reason="CPython 3.10+")
def test_the_loader_says_the_direct_entry_is_off_on_a_free_threaded_build(monkeypatch):
    from fastjcs.core import _direct_loader

    monkeypatch.delenv("FASTJCS_DIRECT", raising=False)
    real = sysconfig.get_config_var
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: 1 if name == "Py_GIL_DISABLED" else real(name))
    direct, why = _direct_loader._load()
    assert direct is None and why.startswith("free-threaded CPython (Py_GIL_DISABLED)")
    monkeypatch.undo()
    if _direct_loader.direct is not None:  # this build has it: the real answer is the direct entry
        assert _direct_loader._load()[0] is _direct_loader.direct


def test_the_jump_alignment_flag_goes_to_gcc_alone(build_ffi, tmp_path):
    # -falign-jumps=32 is GCC's; clang refuses it (with -Werror, the build fails). Asked of the
    # compilers themselves where they are installed, and of a command that does not run.
    import shutil

    for name, gcc in (("gcc", True), ("clang", False)):
        path = shutil.which(name)
        if path is None:
            continue
        assert build_ffi.is_gcc([path]) is gcc, name
        if gcc:  # as setuptools gives CC, with flags after the compiler
            assert build_ffi.is_gcc([path, "-pthread"])
    assert build_ffi.is_gcc([str(tmp_path / "no-such-compiler")]) is False
