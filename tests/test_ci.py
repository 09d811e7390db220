""".ci/run: the README's test command read from README.md (so the two cannot drift, whatever the
README's command becomes), its steps named, listed and run one at a time, the step times printed
whatever ends the run."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess

import pytest
from conftest import REPO

CI = REPO / ".ci"
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _readme_command():
    spec = importlib.util.spec_from_file_location("readme_command", CI / "readme_command.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_test_command_is_the_readmes_second_sh_line():
    rc = _readme_command()
    readme = "text\n\n```sh\nrun the sample\nA && B\n```\n\n```sh\nnot this\nnor this\n```\n"
    assert rc.test_command(readme) == "A && B"
    with pytest.raises(SystemExit):
        rc.test_command("```sh\nonly one line\n```\n")
    readme = (REPO / "README.md").read_text("utf-8")
    assert rc.test_command(readme).endswith("python3 -m pytest")


def test_a_venv_step_of_the_readme_is_recognised():
    rc = _readme_command()
    assert rc.venv_of('python3 -m pip install ".[test]" && python3 -m pytest') == ""
    made = 'python3 -m venv .venv && . .venv/bin/activate && python3 -m pip install ".[test]" && python3 -m pytest'
    assert rc.venv_of(made) == ".venv"
    assert rc.venv_of("python3 -m venv --upgrade-deps env; . env/bin/activate; python3 -m pytest") == "env"


def test_ci_runs_the_command_it_reads():
    run = (CI / "run").read_text("utf-8")
    assert "command=$(python .ci/readme_command.py)" in run
    assert 'bash -c "$command"' in run
    out = subprocess.run(["python3", str(CI / "readme_command.py")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == _readme_command().test_command((REPO / "README.md").read_text("utf-8"))


@needs_bash
def test_steps_are_listed_and_an_unknown_one_is_refused():
    listed = subprocess.run(["bash", str(CI / "run"), "--list"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names[:2] == ["gates", "suite"] and {"asan", "matrix", "install", "interop"} <= set(names)
    run = (CI / "run").read_text("utf-8")
    assert all(f"step_{name}() {{" in run for name in names)  # each has its function
    bad = subprocess.run(["bash", str(CI / "run"), "no-such-step"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown step 'no-such-step'" in bad.stderr


@needs_bash
@pytest.mark.parametrize("script", ["run", "install-check.sh", "wheel.sh", "dist.sh", "matrix.sh"])
def test_the_ci_scripts_parse(script: str) -> None:
    proc = subprocess.run(["bash", "-n", str(CI / script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@needs_bash
def test_the_whole_run_orchestration(tmp_path):
    """The whole run with every step a no-op (FASTJCS_CI_DRY): the gates, then the two lanes; every
    step's time at the end; a failure in either lane stops the run and fails it, naming the step."""
    import os

    def run(fail: str = "", lanes: str = "1") -> subprocess.CompletedProcess:
        env = {**os.environ, "FASTJCS_CI_VENV": str(tmp_path / "venv"), "FASTJCS_CI_DRY": "0"}
        env.update(FASTJCS_CI_DRY_FAIL=fail, FASTJCS_CI_LANES=lanes)
        return subprocess.run(["bash", str(CI / "run")], capture_output=True, text=True, timeout=120, env=env)

    names = [line.split()[0] for line in run_list().splitlines()]
    ok = run()
    assert ok.returncode == 0, ok.stdout + ok.stderr
    timed = ok.stdout[ok.stdout.index("==== step times") :]
    assert sorted(line.split()[0] for line in timed.splitlines()[1:-1]) == sorted(names)
    # a dry step takes 0s on an idle machine, a second or two on a loaded one (CI's PyPy run saw 1s)
    assert re.fullmatch(r"  gates \d+s", timed.splitlines()[1]) and "budget 35m" in timed
    for step in ("gates", "cffi", "c-numbers"):  # the gates, a step of each lane
        bad = run(step)
        assert bad.returncode != 0 and re.search(rf"^  {step} \d+s FAILED$", bad.stdout, re.M), bad.stdout
        assert f"==== FAILED at: {step}" in bad.stdout
    assert "  suite" not in run("gates").stdout  # a gate failed: nothing else ran
    serial = run("asan", lanes="0")
    assert serial.returncode != 0 and re.search(r"^  asan \d+s FAILED$", serial.stdout, re.M)
    assert "  install" not in serial.stdout


def run_list() -> str:
    return subprocess.run(["bash", str(CI / "run"), "--list"], capture_output=True, text=True, timeout=60).stdout
