"""`fastjcs completion bash|zsh|fish`: completion scripts made from the parser itself.

The parser is walked (its commands, each command's options, which options take a value and
their choices, the positional arguments), so a command or option added to the parser is
completed without anything written here. Values: an option's choices, file names for one whose
value is a FILE or PATH (and for a command's positional FILEs), folder names for a DIR, nothing
otherwise. A name is offered whole, spaces and all (bash: one reply per line, quoted as a file
name when it is inserted).
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

#: A word that is written into a script unquoted: commands, options and choices are all of this
#: shape; anything else is a bug of the parser, refused rather than written into a shell script.
_WORD = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.+-]*\Z|\A--?[A-Za-z0-9][A-Za-z0-9_-]*\Z")
_FILE_METAVARS = ("FILE", "PATH", "DIR")
_DIR_METAVAR = "DIR"


@dataclass
class Option:
    names: list[str]  # "-o", "--output"
    help: str
    takes_value: bool = False
    choices: list[str] = field(default_factory=list)
    files: bool = False  # its value is a file name
    repeatable: bool = False
    dirs: bool = False  # its value is a folder name


@dataclass
class Command:
    name: str
    help: str
    options: list[Option]
    words: list[str]  # the choices of its positional arguments (registry create|migrate)
    files: bool  # a positional argument is a file


def _word(text: str) -> str:
    if not _WORD.match(text):
        raise ValueError(f"not a plain word, not written into a completion script: {text!r}")
    return text


def _short(text: str | None) -> str:
    """The first clause of a help text, on one line, without the characters that would need
    quoting rules of their own in zsh's specs (brackets, colons, quotes, backslashes)."""
    one = " ".join((text or "").split())
    one = re.split(r"[;(]", one, maxsplit=1)[0].strip().rstrip(",.:")
    one = re.sub(r"[\[\]:'\"`\\${}]", "", one)
    return textwrap.shorten(one, 70, placeholder="...")


def _options(parser: argparse.ArgumentParser) -> list[Option]:
    found = []
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        takes = action.nargs != 0
        choices = [_word(str(c)) for c in action.choices or ()] if takes else []
        metavar = str(action.metavar or "")
        found.append(
            Option(
                [_word(o) for o in action.option_strings],
                _short(action.help),
                takes,
                choices,
                takes and not choices and any(m in metavar for m in _FILE_METAVARS),
                isinstance(action, argparse._AppendAction),
                takes and not choices and _DIR_METAVAR in metavar,
            )
        )
    return found


def walk(parser: argparse.ArgumentParser) -> tuple[list[Option], list[Command]]:
    """The program's own options, and its commands with theirs."""
    from . import subcommands

    helps = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: _short(c.help) for c in action._choices_actions}
    commands = []
    for name, sub in subcommands(parser).items():
        positionals = [a for a in sub._actions if not a.option_strings]
        words = [_word(str(c)) for a in positionals for c in a.choices or ()]
        files = any(str(a.metavar or "") in _FILE_METAVARS for a in positionals)
        commands.append(Command(_word(name), helps.get(name, ""), _options(sub), words, files))
    return _options(parser), commands


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    top, commands = walk(parser)
    prog = _word(parser.prog)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](prog, top, commands)


# ---- bash --------------------------------------------------------------------------------------


#: bash: names of files (or folders), one reply per line, so that a name with a space stays whole,
#: and quoted by readline when inserted (compopt says so from inside a completion only).
_BASH_FILES = 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur")'
_BASH_DIRS = 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur")'


def _bash(prog: str, top: Sequence[Option], commands: Sequence[Command]) -> str:
    fn = "_" + prog.replace("-", "_")
    first = [c.name for c in commands] + [n for o in top for n in o.names]
    out = [
        f"# bash completion for {prog}, made by `{prog} completion bash` from its parser",
        f"{fn}() {{",
        "    local cur prev cmd i",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    cmd=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        "            -*) ;;",
        '            *) cmd="${COMP_WORDS[i]}"; break ;;',
        "        esac",
        "    done",
        '    case "$cmd" in',
        f'        "") COMPREPLY=($(compgen -W "{" ".join(first)}" -- "$cur")); return ;;',
    ]
    for c in commands:
        out.append(f"        {c.name})")
        valued = [o for o in c.options if o.takes_value]
        if valued:
            out.append('            case "$prev" in')
            for o in valued:
                if o.choices:
                    action = f'COMPREPLY=($(compgen -W "{" ".join(o.choices)}" -- "$cur"))'
                elif o.dirs:
                    action = _BASH_DIRS
                elif o.files:
                    action = _BASH_FILES
                else:
                    action = "COMPREPLY=()"
                out.append(f"                {'|'.join(o.names)}) {action}; return ;;")
            out.append("            esac")
        names = " ".join(n for o in c.options for n in o.names)
        if c.words:
            rest = f'COMPREPLY=($(compgen -W "{" ".join(c.words)}" -- "$cur"))'
        elif c.files:
            rest = _BASH_FILES
        else:
            rest = "COMPREPLY=()"
        options = f'COMPREPLY=($(compgen -W "{names}" -- "$cur"))'
        out.append(f'            if [[ "$cur" == -* ]]; then {options}; else {rest}; fi')
        out.append("            ;;")
    out += ["    esac", "}", f"complete -o bashdefault -o default -F {fn} {prog}", ""]
    return "\n".join(out)


# ---- zsh ---------------------------------------------------------------------------------------


def _zsh_spec(o: Option) -> list[str]:
    specs = []
    for name in o.names:
        spec = ("*" if o.repeatable else "") + f"{name}[{o.help}]"
        if o.takes_value:
            label = name.lstrip("-")
            if o.choices:
                spec += f":{label}:({' '.join(o.choices)})"
            elif o.dirs:
                spec += f":{label}:_files -/"
            elif o.files:
                spec += f":{label}:_files"
            else:
                spec += f":{label}: "
        specs.append(f"'{spec}'")
    return specs


def _zsh(prog: str, top: Sequence[Option], commands: Sequence[Command]) -> str:
    fn = "_" + prog.replace("-", "_")
    out = [
        f"#compdef {prog}",
        f"# zsh completion for {prog}, made by `{prog} completion zsh` from its parser",
        f"{fn}() {{",
        "    local context state state_descr line",
        "    typeset -A opt_args",
        "    _arguments -C \\",
    ]
    out += [f"        {s} \\" for o in top for s in _zsh_spec(o)]
    out += [
        "        '1: :->command' \\",
        "        '*:: :->args'",
        "    case $state in",
        "        command)",
        "            local -a commands",
        "            commands=(",
    ]
    out += [f"                '{c.name}:{c.help}'" for c in commands]
    out += [
        "            )",
        "            _describe 'command' commands",
        "            ;;",
        "        args)",
        "            case $line[1] in",
    ]
    for c in commands:
        specs = [s for o in c.options for s in _zsh_spec(o)]
        if c.words:
            specs.append(f"'*: :({' '.join(c.words)})'")
        elif c.files:
            specs.append("'*:FILE:_files'")
        out.append(f"                {c.name}) _arguments {' '.join(specs)} ;;")
    out += ["            esac", "            ;;", "    esac", "}", f'{fn} "$@"', ""]
    return "\n".join(out)


# ---- fish --------------------------------------------------------------------------------------


def _fish_option(o: Option, condition: str) -> str:
    parts = [f"complete -c {{prog}} -n '{condition}'"]
    for name in o.names:
        parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
    if o.takes_value:
        if o.choices:
            parts.append(f"-x -a '{' '.join(o.choices)}'")
        elif o.dirs:
            parts.append("-x -a '(__fish_complete_directories)'")
        else:
            parts.append("-r -F" if o.files else "-x")
    parts.append(f"-d '{o.help}'")
    return " ".join(parts)


def _fish(prog: str, top: Sequence[Option], commands: Sequence[Command]) -> str:
    out = [f"# fish completion for {prog}, made by `{prog} completion fish` from its parser", f"complete -c {prog} -f"]
    out += [_fish_option(o, "__fish_use_subcommand").replace("{prog}", prog) for o in top]
    out += [f"complete -c {prog} -n '__fish_use_subcommand' -a {c.name} -d '{c.help}'" for c in commands]
    for c in commands:
        seen = f"__fish_seen_subcommand_from {c.name}"
        out += [_fish_option(o, seen).replace("{prog}", prog) for o in c.options]
        if c.words:
            out.append(f"complete -c {prog} -n '{seen}' -a '{' '.join(c.words)}'")
        elif c.files:
            out.append(f"complete -c {prog} -n '{seen}' -F")
    return "\n".join(out) + "\n"
