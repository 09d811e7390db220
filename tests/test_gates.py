"""The lint gates are pinned once in pyproject.toml's `lint` extra; the pre-commit hooks must use
the same versions as CI (`.ci/run` installs the extra), or a commit passes locally and fails CI."""

from __future__ import annotations

import re

from conftest import REPO


def test_pre_commit_uses_the_pins_of_the_lint_extra():
    # (read with a pattern: tomllib is not in Python 3.9's standard library)
    (extra,) = re.findall(r"^lint = \[(.*)\]$", (REPO / "pyproject.toml").read_text("utf-8"), re.M)
    pins = dict(re.findall(r'"(ruff|mypy)==([^"]+)"', extra))
    hooks = (REPO / ".pre-commit-config.yaml").read_text("utf-8")
    used = re.findall(r'"(ruff|mypy)==([^"]+)"', hooks)
    assert used and {name for name, _ in used} == set(pins)
    assert all(pins[name] == version for name, version in used), (pins, used)


def test_ci_runs_the_gates():
    run = (REPO / ".ci" / "run").read_text("utf-8")
    assert 'pip install --quiet ".[lint]"' in run
    assert "ruff check . && ruff format --check . && mypy" in run
