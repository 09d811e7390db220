"""`fastjcs completion bash|zsh|fish`: scripts made from the parser, naming every command and
option; the bash one sourced and run the way bash runs it on a TAB."""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys

import pytest
from _cli import env, fastjcs, one_line_error

from fastjcs.cli import build_parser, subcommands
from fastjcs.cli.completion import script

PARSER = build_parser()
COMMANDS = subcommands(PARSER)
BASH = shutil.which("bash")


def _options(parser):
    return [o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_command_and_option_is_in_the_script(shell):
    p = fastjcs("completion", shell)
    assert p.returncode == 0 and p.stderr == b""
    text = p.stdout.decode()
    assert text == script(PARSER, shell)
    words = set(text.replace("*", " ").replace("'", " ").replace('"', " ").replace("|", " ").replace(")", " ").split())
    if shell == "fish":  # options as `-l NAME` / `-s X`
        words |= {"--" + w for w in words} | {"-" + w for w in words}
    assert set(COMMANDS) <= words
    for name, sub in COMMANDS.items():
        missing = [o for o in _options(sub) if o not in words and not any(w.startswith(o + "[") for w in words)]
        assert not missing, (shell, name, missing)
    assert {"--version", "--verbose"} <= words | {w.split("[")[0] for w in words}


def test_a_command_added_to_the_parser_is_completed():
    """Made from the parser, not written by hand: a new command and option appear."""
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            new = action.add_parser("frobnicate", help="a new command")
            new.add_argument("--widget-count", type=int, help="widgets")
    for shell in ("bash", "zsh", "fish"):
        text = script(parser, shell)
        assert "frobnicate" in text and "widget-count" in text, shell


def test_an_unknown_shell_is_a_usage_error():
    p = fastjcs("completion", "tcsh")
    assert p.returncode == 2
    one_line_error(p, "argument SHELL: invalid choice: 'tcsh'", "(see 'fastjcs completion --help')")


def _complete(words: list[str], cwd=None) -> list[str]:
    """What bash's completion function offers for the command line `words` (the last one is the
    word under the cursor), with the script sourced as a user's ~/.bashrc would; one reply a line."""
    completion = subprocess.run(
        [sys.executable, "-m", "fastjcs", "completion", "bash"], capture_output=True, check=True, env=env()
    ).stdout.decode()
    program = (
        completion
        + f"\nCOMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        + "_fastjcs fastjcs; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    p = subprocess.run([BASH, "--norc", "--noprofile", "-c", program], capture_output=True, timeout=30, cwd=cwd)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    return sorted(p.stdout.decode().splitlines()) if cwd else p.stdout.decode().splitlines()


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_sources_cleanly_and_completes():
    # `bash -c CMD NAME` sets $0 to NAME: here, this test run's interpreter
    load = 'source <("$0" -m fastjcs completion bash) && complete -p fastjcs'
    p = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", load, sys.executable],
        capture_output=True,
        env=env(),
        timeout=30,
    )
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    assert p.stdout.decode().strip() == "complete -o bashdefault -o default -F _fastjcs fastjcs"
    assert _complete(["fastjcs", "ca"]) == ["canon"]
    assert _complete(["fastjcs", "c"]) == ["canon", "check", "crosscheck", "completion"]
    assert _complete(["fastjcs", "digest", "--al"]) == ["--algorithm"]
    assert _complete(["fastjcs", "digest", "--algorithm", ""]) == ["sha256", "sha384"]
    assert _complete(["fastjcs", "canon", "--profile", "jcs-"]) == ["jcs-n"]
    assert _complete(["fastjcs", "registry", ""]) == ["create", "migrate"]
    assert _complete(["fastjcs", "completion", "f"]) == ["fish"]
    assert _complete(["fastjcs", "--version", "be"]) == ["bench"]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_keeps_names_with_spaces_whole_and_offers_folders_for_a_dir(tmp_path):
    (tmp_path / "my file.json").write_text("{}")
    (tmp_path / "my other.json").write_text("{}")
    (tmp_path / "out dir").mkdir()
    (tmp_path / "outfile.json").write_text("{}")
    assert _complete(["fastjcs", "canon", "my"], tmp_path) == ["my file.json", "my other.json"]
    assert _complete(["fastjcs", "canon", "-o", "my f"], tmp_path) == ["my file.json"]
    assert _complete(["fastjcs", "digest", "--output-dir", "out"], tmp_path) == ["out dir"]  # no file
    assert _complete(["fastjcs", "canon", "out"], tmp_path) == ["out dir", "outfile.json"]


def test_zsh_and_fish_offer_folders_for_a_dir():
    assert "'--output-dir[" in script(PARSER, "zsh") and ":output-dir:_files -/'" in script(PARSER, "zsh")
    assert "-l output-dir -x -a '(__fish_complete_directories)'" in script(PARSER, "fish")
