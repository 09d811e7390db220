"""`fastjcs --version [--verbose]`, the version's one source, and the fallback warning.

The fallback is simulated in a child process by making the extension module unimportable
(`sys.modules["fastjcs._native_ext"] = None`, the way Python itself blocks an import), which is
what a missing or unloadable extension looks like to fastjcs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _cli import env, one_line_error
from _cli import fastjcs as run_fastjcs
from conftest import REPO

import fastjcs

NATIVE = pytest.mark.skipif(fastjcs.backend() != "native", reason="the C core is not built here")
BLOCKED = "import sys; sys.modules['fastjcs._native_ext'] = None; "


def child(code: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, env=env(extra), timeout=60)


def test_the_version_is_written_once():
    # (read with patterns: tomllib is not in Python 3.9's standard library)
    project = (REPO / "pyproject.toml").read_text("utf-8").split("\n[", 2)[1]
    assert project.startswith("project]") and 'dynamic = ["version"]' in project
    assert not re.search(r"^version\s*=", project, re.M)
    init = Path(fastjcs.__file__).read_text("utf-8")  # the source tree's, or the installed one
    assert re.findall(r'^__version__ = "([^"]+)"$', init, re.M) == [fastjcs.__version__]


def test_version_names_the_backend():
    p = run_fastjcs("--version")
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout.decode() == f"fastjcs {fastjcs.__version__} ({fastjcs.backend()} backend)\n"


@NATIVE
def test_verbose_version_says_why_the_c_core_is_used():
    p = run_fastjcs("--version", "--verbose", extra_env={"FASTJCS_BACKEND": ""})
    out = p.stdout.decode()
    assert p.returncode == 0 and p.stderr == b""
    assert "(native backend)" in out and "backend: the C core (built and loaded)" in out
    assert re.search(r"^C core: .*_native_ext.*\.so$", out, re.M)
    assert re.search(r"^cffi: \d", out, re.M) and re.search(r"^pycryptodome: \d", out, re.M)
    from fastjcs.core import _direct_loader

    assert f"small calls: {_direct_loader.why}\n" in out  # the same interpreter, the same route


@NATIVE
def test_verbose_version_says_when_the_direct_entry_is_off():
    p = run_fastjcs("--version", "--verbose", extra_env={"FASTJCS_BACKEND": "", "FASTJCS_DIRECT": "0"})
    assert p.returncode == 0 and p.stderr == b""
    assert re.search(
        r"^small calls: FASTJCS_DIRECT=0: cffi for every call$|^small calls: (not on CPython|CPython 3\.9)",
        p.stdout.decode(),
        re.M,
    )


def test_verbose_version_when_python_is_asked_for_warns_nothing():
    p = run_fastjcs("--verbose", "--version", extra_env={"FASTJCS_BACKEND": "python"})
    assert p.returncode == 0 and p.stderr == b""
    assert "backend: the pure-Python backend, as FASTJCS_BACKEND=python asks" in p.stdout.decode()


def test_a_fallback_nobody_asked_for_is_announced_once_with_its_cause():
    code = BLOCKED + (
        "import fastjcs, fastjcs.cli, importlib; import fastjcs.core.backends; "
        "from fastjcs.cli import main; main(['--version', '--verbose'])"
    )
    p = child(code, FASTJCS_BACKEND="")
    out, err = p.stdout.decode(), p.stderr.decode()
    assert p.returncode == 0, err
    assert "(python backend)" in out and "backend: the C core is not available (ModuleNotFoundError" in out
    assert err.count("FallbackWarning") == 1 and err.count("\n") == 1  # one line, once
    assert "FASTJCS_BACKEND=python" in err and "_native_ext" in err


def test_the_fallback_warning_is_a_class_users_can_filter():
    code = BLOCKED + ("import warnings; warnings.simplefilter('error'); import fastjcs")
    p = child(code, FASTJCS_BACKEND="")
    assert p.returncode != 0 and b"FallbackWarning" in p.stderr  # raised as an error
    assert issubclass(fastjcs.FallbackWarning, RuntimeWarning)


def test_no_warning_when_python_is_asked_for_and_the_c_core_is_missing():
    p = child(BLOCKED + "import fastjcs; print(fastjcs.backend())", FASTJCS_BACKEND="python")
    assert p.returncode == 0 and p.stdout == b"python\n" and p.stderr == b""


@pytest.mark.parametrize("args", [(), ("--verbose",)])
def test_no_command_is_a_usage_error(args):
    p = run_fastjcs(*args)
    assert p.returncode == 2
    one_line_error(p, "give a COMMAND")


# ---- the environment, as the command reports it (issue 36, item 4) ---------------------------

#: `fastjcs ARGS` as its console script runs it (argv[0] "fastjcs"), with the C core blocked.
AS_COMMAND = "sys.argv = ['fastjcs', '--version']; import runpy; runpy.run_module('fastjcs', run_name='__main__')"


@pytest.mark.parametrize("value", ["bogus", "Native2", "c"])
def test_a_bad_backend_choice_is_one_line_and_exit_2(value):
    p = run_fastjcs("--version", extra_env={"FASTJCS_BACKEND": value})
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "fastjcs: FASTJCS_BACKEND must be 'native', 'python' or unset", repr(value.lower()))


def test_native_asked_for_without_the_c_core_is_one_line_and_exit_2():
    p = child(BLOCKED + AS_COMMAND, FASTJCS_BACKEND="native")
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "fastjcs: FASTJCS_BACKEND=native: the C core is not available", "_native_ext", "unset")


def test_the_library_keeps_its_import_error():
    # Outside the command a bad choice stays what the docs promise: an ImportError of the import.
    p = child("import fastjcs", FASTJCS_BACKEND="bogus")
    assert p.returncode == 1 and b"ImportError: FASTJCS_BACKEND must be" in p.stderr


def test_the_command_words_the_fallback_warning_as_its_own_warnings():
    p = child(BLOCKED + AS_COMMAND, FASTJCS_BACKEND="")
    assert p.returncode == 0 and p.stdout.decode().endswith("(python backend)\n")
    err = one_line_error(p, "the C core is not available", "FASTJCS_BACKEND=python")
    assert err.startswith("fastjcs: warning: ") and "FallbackWarning" not in err and "fastjcs:0:" not in err
    # still a warning the filters govern: -W error makes it an error (no run on the slow backend)
    p = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", BLOCKED + AS_COMMAND],
        capture_output=True,
        env=env({"FASTJCS_BACKEND": ""}),
        timeout=60,
    )
    assert p.returncode != 0 and b"FallbackWarning" in p.stderr
