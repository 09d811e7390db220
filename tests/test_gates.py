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


def test_ci_runs_the_gates_first_each_on_a_line_of_its_own():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_command", REPO / ".ci" / "readme_command.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pins = module.lint_requirements((REPO / "pyproject.toml").read_text("utf-8"))
    assert {"ruff", "mypy", "cffi", "pycryptodome"} <= {re.split("[=<>]", p)[0] for p in pins}
    run = (REPO / ".ci" / "run").read_text("utf-8")
    gates = run[run.index("step_gates() {") : run.index("\n}\n", run.index("step_gates() {"))]
    assert 'read -ra reqs <<<"$(python .ci/readme_command.py --lint-requirements)"' in gates
    # one command a line: under `set -e`, `ruff check . && ...` failing in its first command went on
    lines = [line.strip() for line in gates.splitlines()]
    assert {"ruff check .", "ruff format --check .", "mypy"} <= set(lines)
    assert "FASTJCS_CFLAGS= python setup.py -q build_ext --force -j 2 -b build/gates/py -t build/gates/tmp \\" in lines
    steps = re.findall(r'^    "([a-z-]+)\|', run, re.M)
    assert steps[0] == "gates" and steps[1] == "suite"
