"""What the command line loads: each command its own module and what it needs, so that a
`fastjcs digest small.json` in a shell loop pays for little more than the interpreter. Checked in
a child process (sys.modules after the run); no test here times anything.

What is refused, and why: another command's module (their imports: pathlib, the conformance
suites, logging, dataclasses); fastjcs.bulk (the JSON Lines driver; dataclasses, inspect);
pycparser and pycryptodome's hash modules, whose import has cffi parse C declarations (20-25 ms)
where fastjcs reaches pycryptodome's compiled one-shot from its library file
(native_hash.find_oneshot_raw)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _cli import env

RUN = """
import json, sys
sys.argv = ["fastjcs", *{args!r}]
from fastjcs.cli import main
status = main()
raw = None
if {native!r}:
    from fastjcs.core import backends, native_hash
    raw = backends.backend() == "native" and native_hash.find_oneshot_raw("sha256") != native_hash.ffi.NULL
print(json.dumps({{"status": status, "raw": raw, "modules": sorted(sys.modules)}}), file=sys.stderr)
"""

OTHER_COMMANDS = {"bench", "canon", "check", "crosscheck", "digest", "eab", "interop", "registry", "vectors"}


def _run(*args: str, native: bool = False) -> dict:
    code = RUN.format(args=list(args), native=native)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env(), timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stderr.decode().splitlines()[-1])


def _refused(modules: list[str], command: str | None) -> list[str]:
    others = {f"fastjcs.cli.{c}" for c in OTHER_COMMANDS - {command}}
    return [
        m
        for m in modules
        if m in others
        or m.startswith(("fastjcs.bulk", "fastjcs.conformance", "fastjcs.lab", "pycparser", "cffi.cparser"))
        or m in ("logging", "Crypto.Hash.SHA256", "Crypto.Hash.SHA384", "Crypto.Util._raw_api")
    ]


def test_importing_the_cli_loads_no_command():
    p = subprocess.run(
        [sys.executable, "-c", "import sys, json, fastjcs.cli; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        env=env(),
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert _refused(json.loads(p.stdout), None) == []


@pytest.mark.parametrize("command", ["digest", "canon"])
def test_a_command_on_a_small_file_loads_only_what_it_needs(tmp_path, command):
    """`fastjcs digest FILE` and `canon FILE`: their own module, no other command's, no JSON Lines
    driver; and for digest, where the C core found the one-shot from its file, no C parser."""
    path = tmp_path / "small.json"
    path.write_bytes(b'{"b": [1, 2.50, "x"], "a": {"z": null}}')
    got = _run(command, str(path), native=True)
    assert got["status"] == 0
    refused = _refused(got["modules"], command)
    if not got["raw"]:  # the python backend, or pycryptodome's files not as expected: its loader
        refused = [m for m in refused if not m.startswith(("Crypto", "pycparser", "cffi"))]
    assert refused == []
    assert f"fastjcs.cli.{command}" in got["modules"]


def test_an_unknown_command_still_names_the_closest(tmp_path):
    """Only the named command is built; a name that is no command builds them all, for the hint."""
    p = subprocess.run([sys.executable, "-m", "fastjcs", "digets", "x"], capture_output=True, env=env(), timeout=120)
    assert p.returncode == 2 and "did you mean 'digest'?" in p.stderr.decode()
