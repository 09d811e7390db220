"""`fastjcs registry create|migrate`: the explicit schema steps of an execution registry."""

from __future__ import annotations

import argparse
import re
import shlex

from .options import _examples
from .streams import EXIT_OK, CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "registry",
        help="create or migrate an execution registry (SQLite or PostgreSQL)",
        description="The explicit schema steps of the EAB execution registry: opening "
        "a registry never creates or changes its tables. TARGET is a path, "
        "sqlite:///PATH or postgresql://...",
        epilog=_examples(
            "fastjcs registry create registry.db",
            "fastjcs registry migrate sqlite:///var/lib/app/registry.db",
            "fastjcs registry create postgresql://app@db.example/app",
        ),
    )
    p.add_argument(
        "action", choices=("create", "migrate"), help="create an empty registry, or bring one to the current format"
    )
    p.add_argument("target", metavar="TARGET", help="a SQLite path, sqlite:///PATH or postgresql://...")
    p.set_defaults(run=cmd_registry)


def cmd_registry(args: argparse.Namespace) -> int:
    """`fastjcs registry create|migrate TARGET`: the explicit schema steps of the execution
    registry (opening one never creates or changes its tables)."""
    from ..eab import ExecutionRegistry, RegistryError

    path = args.target[len("sqlite:///") :] if args.target.startswith("sqlite:///") else args.target
    if path in ("", ":memory:"):  # SQLite's temporary and in-memory databases end with the command
        raise CLIError(
            f"{args.target!r} is a SQLite database that lives only as long as this command: nothing "
            "would persist; give a file path (or sqlite:///PATH, postgresql://...)"
        )
    try:
        if args.action == "create":
            with ExecutionRegistry.create(args.target) as registry:
                print(f"created an empty execution registry at {registry.path}")  # no password shown
        else:
            found, now = ExecutionRegistry.migrate(args.target)
            print(f"format {now}, already current" if found == now else f"migrated from format {found} to {now}")
    except (RegistryError, ValueError) as exc:  # its message names the registry, a URL without its password
        raise CLIError(_in_commands(str(exc), args.target)) from exc
    return EXIT_OK


def _in_commands(message: str, target: str) -> str:
    """A registry's message with the Python calls it suggests (`ExecutionRegistry.create(path)`,
    `open it with ExecutionRegistry(url)`) put as the commands a user of the command line runs."""
    # a URL may hold a password, and the message names it without one: never copy it
    shown = "URL" if "://" in target and not target.startswith("sqlite:") else shlex.quote(target)
    call = r"\((?:path|url|'[^']*'|\"[^\"]*\")\)"
    for pattern, words in (
        (
            rf"ExecutionRegistry\.create never overwrites: open it with ExecutionRegistry{call}",
            f"`fastjcs registry create` never overwrites: the registry is there to be used "
            f"(`fastjcs registry migrate {shown}` brings an older format up to date)",
        ),
        (rf"open it with ExecutionRegistry{call}", "it is there to be used"),
        (r"ExecutionRegistry\((?:path|url)\) opens an existing registry, ", ""),
        (rf"ExecutionRegistry\.create{call}", f"`fastjcs registry create {shown}`"),
    ):
        message = re.sub(pattern, words.replace("\\", "\\\\"), message)  # (words taken literally)
    return message
