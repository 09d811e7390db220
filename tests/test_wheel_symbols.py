"""The release wheel's symbol scan (.ci/symbols.py), which .ci/wheel.sh runs on every wheel it builds.

The wheel is tagged manylinux2014: its shared objects must not ask for a symbol version newer than
CentOS 7's (PEP 599: GLIBC_2.17, GLIBCXX_3.4.19, CXXABI_1.3.7, GCC_4.8.0). The scan is tested on
libraries built here: one with the pthread keys that csrc/local.c used (bound to GLIBC_2.34 by
glibc 2.34 and later, where libpthread merged into libc), which it must refuse, and one without.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

SCRIPT = REPO / ".ci" / "symbols.py"
_spec = importlib.util.spec_from_file_location("ci_symbols", SCRIPT)
assert _spec is not None and _spec.loader is not None
symbols = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(symbols)

needs_toolchain = pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("readelf") is None or not sys.platform.startswith("linux"),
    reason="needs a C compiler and readelf on Linux (ELF symbol versions)",
)

# the tools run without the sanitizer runtimes that .ci/asan.sh preloads into the suite
_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}

WITH_KEYS = r"""
#include <pthread.h>
static pthread_key_t key;
int make_key(void) { return pthread_key_create(&key, 0); }
"""
WITHOUT_KEYS = r"""
#include <stdlib.h>
#include <string.h>
size_t length(const char *s) { char *p = malloc(8); free(p); return strlen(s); }
"""


def _library(tmp_path: Path, name: str, source: str) -> Path:
    c = tmp_path / f"{name}.c"
    c.write_text(source, "utf-8")
    so = tmp_path / f"{name}.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-pthread", "-o", str(so), str(c)], check=True, env=_ENV)
    return so


def _run(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, text=True, check=False, env=_ENV
    )


def _glibc_at_least_2_34() -> bool:
    import platform

    lib, version = platform.libc_ver()
    return lib == "glibc" and tuple(int(p) for p in version.split(".")[:2]) >= (2, 34)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        # PEP 599's table, read off the PEP: the last allowed version of each family, and the next
        ("GLIBC_2.2.5", False),
        ("GLIBC_2.17", False),
        ("GLIBC_2.18", True),
        ("GLIBC_2.34", True),
        ("GLIBC_2.3.4", False),  # 2.3.4 < 2.17: compared as numbers, not as text
        ("GLIBCXX_3.4.19", False),
        ("GLIBCXX_3.4.20", True),
        ("CXXABI_1.3.7", False),
        ("CXXABI_1.3.8", True),
        ("GCC_4.8.0", False),
        ("GCC_7.0.0", True),
        ("GLIBC_PRIVATE", False),  # no number: not a family of the policy
        ("OPENSSL_3.0.0", False),
    ],
)
def test_the_limits_are_pep_599s(version: str, expected: bool) -> None:
    assert symbols.too_new(version) is expected


@needs_toolchain
@pytest.mark.skipif(not _glibc_at_least_2_34(), reason="pthread keys are bound to GLIBC_2.34 from glibc 2.34 on")
def test_the_scan_refuses_the_pthread_keys_of_glibc_2_34(tmp_path: Path) -> None:
    proc = _run(_library(tmp_path, "keys", WITH_KEYS))
    assert proc.returncode == 1, proc
    assert "pthread_key_create@GLIBC_2.34" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "symbols: FAILED: 1 symbol(s) newer than manylinux2014"


@needs_toolchain
def test_the_scan_passes_a_library_within_glibc_2_17(tmp_path: Path) -> None:
    proc = _run(_library(tmp_path, "plain", WITHOUT_KEYS))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("symbols: 1 shared object(s), no symbol version newer than manylinux2014")


@needs_toolchain
@pytest.mark.skipif(not _glibc_at_least_2_34(), reason="pthread keys are bound to GLIBC_2.34 from glibc 2.34 on")
def test_the_scan_reads_every_shared_object_of_a_wheel(tmp_path: Path) -> None:
    good = _library(tmp_path, "plain", WITHOUT_KEYS)
    bad = _library(tmp_path, "keys", WITH_KEYS)
    wheel = tmp_path / "demo-1.0-cp39-abi3-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.write(good, "demo/_first.abi3.so")
        z.write(bad, "demo/_second.abi3.so")
        z.writestr("demo/__init__.py", "")
    proc = _run(wheel)
    assert proc.returncode == 1, proc
    assert f"{wheel.name}:demo/_second.abi3.so: pthread_key_create@GLIBC_2.34" in proc.stderr
    assert "_first" not in proc.stderr
    with zipfile.ZipFile(good.with_suffix(".whl"), "w") as z:
        z.write(good, "demo/_first.abi3.so")
    assert _run(good.with_suffix(".whl")).returncode == 0


def test_an_unreadable_file_is_exit_2_in_one_line(tmp_path: Path) -> None:
    proc = _run(tmp_path / "missing.so")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("symbols: ")


def test_the_release_wheel_is_held_to_manylinux2014() -> None:
    script = (REPO / ".ci" / "wheel.sh").read_text("utf-8")
    assert "plat=manylinux2014_$(uname -m)" in script and 'auditwheel repair --plat "$plat"' in script
    assert ".ci/symbols.py" in script and "auditwheel show" in script
