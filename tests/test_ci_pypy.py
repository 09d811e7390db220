"""PyPy is a tested target (issue 26): CI installs Debian's pypy3 (with pypy3-dev, the headers the
cffi build needs), and the install check builds the PyPy wheel (pp39, manylinux2014), installs it
into a PyPy venv and runs the whole suite there with the C core required: one PyPy run in CI tests
both PyPy and its wheel. Without root, sudo or network the step says SKIPPED on one line."""

from __future__ import annotations

from conftest import REPO

CI = REPO / ".ci"


def test_ci_installs_pypy_or_says_skipped() -> None:
    run = (CI / "run").read_text("utf-8")
    assert "apt-get install -y -q pypy3 pypy3-dev" in run
    assert "export PYPY=  # the install check skips its PyPy run" in run
    assert 'echo "SKIPPED: pypy3 and pypy3-dev could not be installed' in run
    # before the install check, which uses $PYPY
    assert run.index("export PYPY") < run.index("bash .ci/install-check.sh")


def test_the_install_check_runs_the_suite_on_the_pypy_wheel_with_the_c_core_required() -> None:
    check = (CI / "install-check.sh").read_text("utf-8")
    assert "pypy=${PYPY-$(command -v pypy3 || true)}" in check
    assert 'ppwheel=$(PYTHON="$pypy" bash .ci/wheel.sh "$work/release" "$sdist" | tail -1)' in check
    assert '"$pypy" -m venv "$venv"' in check and '(cd "$dir" && check_installed "$venv" native)' in check
    # the C core required; and a nursery of the size the suite's resident-set checks assume, not
    # one PyPy sizes from the host's cache (tests/_markers.py)
    assert "export HYPOTHESIS_PROFILE=default FASTJCS_REQUIRE_NATIVE=1 PYPY_GC_NURSERY=4MB &&" in check
    # every suite but the CLI's and the lab's process tests, and a sample of the CLI
    assert "--ignore=tests/cli --ignore=tests/lab tests &&" in check
    assert 'fail "the test suite on the PyPy wheel install"' in check
    assert 'echo "SKIPPED: no PyPy' in check
    # the CPython wheel: the matrix (every CPython found), unless .ci/run's matrix step ran it
    assert 'bash .ci/matrix.sh "$wheel" "$unpacked"' in check


def test_the_pypy_wheel_is_tagged_pp39_and_carries_only_the_cffi_extension() -> None:
    wheel = (CI / "wheel.sh").read_text("utf-8")
    assert 'if [ "$impl" = PyPy ]; then tag=pp39-pypy39_pp73; else tag=cp39-abi3; fi' in wheel
    assert "len(direct) == (0 if pypy else 1)" in wheel
